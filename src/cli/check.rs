//! `git rmc check`: the models of a repository checked at commits, each reusing the record
//! of the nearest first-parent ancestor that has one.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};

use super::error::{InternalError, Outcome};
use super::walk::{At, Checked, Session};
use crate::config::{Algorithm, FailOn};
use crate::git::CommitId;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum CheckFormat {
    Text,
    Json,
    /// SARIF 2.1.0, for code-scanning services.
    Sarif,
}

/// Check the repository's Promela models at commits, incrementally
///
/// The first check of a model is a full check that records what the next one needs; every
/// later one diffs the model against the recorded version and explores only the states the
/// change can affect (results are those of a full check). Models, their options and
/// `fail_on` come from `.rmc.toml` (at the checked commit, else in the work tree; see
/// `git rmc init`); without one, a repository with a single model file checks that file.
///
/// Examples:
///
///   git rmc check                   HEAD, against the nearest ancestor with a record
///   git rmc check HEAD~5..HEAD      each of those commits, oldest first
///   git rmc check --all             every commit in HEAD's history, oldest first, as
///                                   `git rev-list --topo-order --reverse HEAD` lists them
///                                   (not every ref, unlike `git log --all`)
///   git rmc check --worktree        the uncommitted files, against HEAD's record
///   git rmc check --all -- models/mesi.pml
///                                   one model file, configured or not
///
/// Exit status, from the newest commit of each model: 0 pass; 1 a violation fails the
/// check (by `fail_on`: "new", the default, only violations not present at the base); 2 a
/// model, usage or configuration error; 3 a limit cut a search; 4 an internal error (with
/// --audit: a pruning run that disagrees with a full check).
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct CheckArgs {
    /// A commit (default HEAD) or a range A..B.
    pub range: Option<String>,
    /// Every commit in HEAD's history, oldest first (`git rev-list --topo-order --reverse
    /// HEAD`).
    #[arg(long, conflicts_with_all = ["range", "worktree"])]
    pub all: bool,
    /// Check the uncommitted files of the work tree against HEAD's record.
    #[arg(long, conflicts_with = "range")]
    pub worktree: bool,
    /// How a check reuses its base's record (overrides .rmc.toml).
    #[arg(long, value_enum)]
    pub algorithm: Option<Algorithm>,
    /// Which violations fail the check (overrides .rmc.toml's fail_on).
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Also run a full check of every commit and fail where the two disagree.
    #[arg(long)]
    pub audit: bool,
    /// A violation is new when this commit does not have it (default: the base's). Used by
    /// the pre-push hook with the remote's tip.
    #[arg(long, value_name = "COMMIT")]
    pub compare_with: Option<String>,
    /// Check the commits reachable from COMMIT and from no remote-tracking ref (a new
    /// branch being pushed); every violation of COMMIT is new.
    #[arg(long, value_name = "COMMIT", conflicts_with_all = ["range", "all", "worktree"])]
    pub not_on_remotes: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Restrict to the models whose entry file is one of these paths (or under them); a
    /// model file the configuration does not list is checked with default options.
    #[arg(last = true, value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
}

/// The commits a range argument names, oldest first.
pub fn commits(s: &Session, range: Option<&str>, all: bool) -> anyhow::Result<Vec<CommitId>> {
    if all {
        return Ok(s.repo.all()?);
    }
    match range {
        Some(r) => Ok(s.repo.range(r)?),
        None => match s.repo.head()? {
            Some(h) => Ok(vec![h]),
            None => anyhow::bail!("the repository has no commits yet"),
        },
    }
}

pub fn cmd_check(args: &CheckArgs) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let mut s = Session::open(&cwd)?;
    s.paths = super::relative_paths(&s.root, &cwd, &args.paths);
    s.algorithm = args.algorithm;
    s.audit = args.audit;
    if s.repo.is_shallow() {
        eprintln!("note: shallow clone: commits beyond its boundary are not checked");
    }
    let (ats, compare): (Vec<At>, Option<CommitId>) = if args.worktree {
        (vec![At::WorkTree], None)
    } else if let Some(tip) = &args.not_on_remotes {
        let tip = s.repo.resolve(tip)?;
        let remotes = s.repo.remote_tracking_tips()?;
        let list = s.repo.commits_not_in(tip, &remotes)?;
        (list.into_iter().map(At::Commit).collect(), None)
    } else {
        let list = commits(&s, args.range.as_deref(), args.all)?;
        let compare = args
            .compare_with
            .as_deref()
            .map(|c| s.repo.resolve(c))
            .transpose()?;
        (list.into_iter().map(At::Commit).collect(), compare)
    };
    if ats.is_empty() {
        if !super::quiet() {
            eprintln!("nothing to check: the range has no commits");
        }
        return Ok(Outcome::Ok);
    }
    let mut bar = super::progress::Bar::new();
    let mut out_commits = Vec::new();
    let mut newest: std::collections::BTreeMap<String, (Checked, FailOn)> = Default::default();
    let mut totals = Totals::default();
    let mut internal = Vec::new();
    let mut noted = std::collections::HashSet::new();
    for at in &ats {
        let models = s.models(*at)?;
        if let Some(n) = &models.note {
            if !super::quiet() && noted.insert(n.clone()) {
                eprintln!("note: {n}");
            }
        }
        let fail_on = args.fail_on.unwrap_or(models.config.fail_on);
        let (hex, short, subject) = match at {
            At::Commit(c) => {
                let info = s.repo.commit(*c)?;
                (c.hex(), c.short(), info.subject)
            }
            At::WorkTree => (
                "worktree".into(),
                "worktree".into(),
                "(uncommitted changes)".into(),
            ),
        };
        let mut results = Vec::new();
        let mut lines = Vec::new();
        for model in &models.config.models {
            let c = s.check(*at, model, compare, &mut bar)?;
            totals.add(&c);
            if let Some(why) = &c.audit_failure {
                internal.push(format!("{short} {}: {why}", model.name));
            }
            lines.push(line(&c, models.config.models.len() > 1, fail_on));
            let mut r = c.result.clone();
            r["model"] = json!(model.name);
            results.push(r);
            newest.insert(model.name.clone(), (c, fail_on));
        }
        if args.format == CheckFormat::Text && !super::quiet() {
            super::out(&format!(
                "{short} {}\n{}",
                truncate(&subject, 72),
                lines.join("")
            ))?;
        }
        out_commits.push(json!({"commit": hex, "subject": subject, "models": results}));
    }
    match args.format {
        CheckFormat::Text => {
            if !super::quiet() {
                super::out(&totals.summary(ats.len()))?;
            }
        }
        CheckFormat::Json => {
            super::out(&(serde_json::to_string_pretty(&json!({"commits": out_commits}))? + "\n"))?
        }
        CheckFormat::Sarif => sarif(&out_commits)?,
    }
    if !internal.is_empty() {
        return Err(InternalError(format!(
            "an incremental check disagrees with a full check: {}",
            internal.join("; ")
        ))
        .into());
    }
    Ok(exit_of(newest.values()))
}

/// Prints the results as SARIF 2.1.0 (one result per violation; models that did not load
/// or were absent have none).
fn sarif(commits: &[Value]) -> anyhow::Result<()> {
    let runs: Vec<(String, Vec<crate::report::verify::CheckDoc>)> = commits
        .iter()
        .map(|c| {
            let docs = c["models"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| serde_json::from_value(m.clone()).ok())
                .collect();
            (c["commit"].as_str().unwrap_or_default().to_string(), docs)
        })
        .collect();
    let log = crate::report::sarif::sarif(&runs, env!("CARGO_PKG_VERSION"));
    super::out(&(serde_json::to_string_pretty(&log)? + "\n"))
}

/// The exit status from the newest commit of each model: an error beats a failure, which
/// beats an incomplete search.
pub fn exit_of<'a>(newest: impl Iterator<Item = &'a (Checked, FailOn)>) -> Outcome {
    let mut o = Outcome::Ok;
    let rank = |o: &Outcome| match o {
        Outcome::ModelError => 3,
        Outcome::Violation => 2,
        Outcome::Incomplete => 1,
        Outcome::Ok => 0,
    };
    for (c, fail_on) in newest {
        let this = match c.verdict.as_str() {
            "error" => Outcome::ModelError,
            "fail" if *fail_on == FailOn::Any || c.new_violations > 0 => Outcome::Violation,
            "incomplete" => Outcome::Incomplete,
            _ => Outcome::Ok,
        };
        if rank(&this) > rank(&o) {
            o = this;
        }
    }
    o
}

/// One model's line under its commit, and its violations.
fn line(c: &Checked, named: bool, fail_on: FailOn) -> String {
    let r = &c.result;
    let st = &r["stats"];
    let stored = st["states_stored"].as_u64().unwrap_or(0);
    let pruned = st["states_pruned"].as_u64().unwrap_or(0);
    let walked = st["states_walked"].as_u64().unwrap_or(0);
    let mode = r["mode"].as_str().unwrap_or("");
    let verdict = match c.verdict.as_str() {
        "fail" if fail_on == FailOn::New && c.new_violations == 0 => "fail (known)",
        "fail" => "FAIL",
        "incomplete" => "INCOMPLETE",
        v => v,
    };
    let name = if named {
        format!("{} ", c.model)
    } else {
        String::new()
    };
    let what = match (c.verdict.as_str(), mode) {
        ("error", _) => format!("does not load: {}", r["error"].as_str().unwrap_or("")),
        ("absent", _) => "no model at this commit".into(),
        (_, "reused") => match r["reused_from"].as_str() {
            Some(x) if r["base_commit"].as_str() != Some(x) => {
                format!("same content as {}: result reused", &x[..x.len().min(7)])
            }
            _ => "unchanged: result reused".into(),
        },
        _ if c.reused => "already checked".into(),
        (_, m) => format!(
            "{m}{}, {} of {} states explored{}{}, {:.2} s",
            r["algorithm"]
                .as_str()
                .filter(|_| m == "incremental")
                .map(|a| format!(" ({a})"))
                .unwrap_or_default(),
            super::progress::short(stored.saturating_sub(pruned + walked) as f64),
            super::progress::short(stored as f64),
            if pruned > 0 {
                format!(" ({} pruned)", super::progress::short(pruned as f64))
            } else {
                String::new()
            },
            if walked > 0 {
                format!(" ({} replayed)", super::progress::short(walked as f64))
            } else {
                String::new()
            },
            c.elapsed.as_secs_f64()
        ),
    };
    let mut s = format!("    {name}{verdict:<10} {what}\n");
    for v in r["violations"].as_array().into_iter().flatten() {
        let status = if v["new"] == true {
            "new"
        } else {
            "still present"
        };
        // An invalid end state is told apart by where each blocked process is.
        let at = match v["locations"].as_array() {
            Some(ls) if !ls.is_empty() => ls
                .iter()
                .filter_map(|l| l.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            _ => v["location"].as_str().unwrap_or("").to_string(),
        };
        s.push_str(&format!(
            "      {status}: {} [{}] at {at}\n",
            v["message"].as_str().unwrap_or(""),
            v["kind"].as_str().unwrap_or(""),
        ));
    }
    for f in r["fixed"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "      fixed: {} [{}] (was at {})\n",
            f["message"].as_str().unwrap_or(""),
            f["kind"].as_str().unwrap_or(""),
            f["location"].as_str().unwrap_or("")
        ));
    }
    if let Some(a) = r["audit"].as_str() {
        s.push_str(&format!("      audit: {a}\n"));
    }
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n - 1).collect();
        format!("{t}…")
    }
}

#[derive(Default)]
struct Totals {
    pass: usize,
    fail: usize,
    other: usize,
    stored: u64,
    explored: u64,
    secs: f64,
}

impl Totals {
    fn add(&mut self, c: &Checked) {
        match c.verdict.as_str() {
            "pass" => self.pass += 1,
            "fail" => self.fail += 1,
            _ => self.other += 1,
        }
        if !c.reused {
            let st = &c.result["stats"];
            let stored = st["states_stored"].as_u64().unwrap_or(0);
            self.stored += stored;
            let reused = st["states_pruned"].as_u64().unwrap_or(0)
                + st["states_walked"].as_u64().unwrap_or(0);
            self.explored += stored.saturating_sub(reused);
        }
        self.secs += c.elapsed.as_secs_f64();
    }

    fn summary(&self, commits: usize) -> String {
        format!(
            "checked {commits} commit{}: {} pass, {} fail, {} other; {} states explored of {}; {:.2} s\n",
            if commits == 1 { "" } else { "s" },
            self.pass,
            self.fail,
            self.other,
            super::progress::short(self.explored as f64),
            super::progress::short(self.stored as f64),
            self.secs
        )
    }
}
