//! `git rmc check`: the models of a repository checked at commits, each reusing the record
//! of the nearest first-parent ancestor that has one.

use std::path::PathBuf;

use crate::report::verify::{CheckReport, CommitResults, ModelVerdict};
use clap::{Args, ValueEnum};

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
/// A model's never claims and ltl formulas are checked each on its own after its safety
/// properties, acceptance cycles included (`claims`, `fair`, `non_progress` under
/// [model.checks] choose which and how); the model passes only when every one does.
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
    /// Check again what a limit cut before (a cut check's result is otherwise reused while
    /// the content and the limits stay the same).
    #[arg(long)]
    pub retry_incomplete: bool,
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
    /// Text output: how much of each new violation's trail to print (cut: its first and
    /// last steps; the JSON always has every step).
    #[arg(long, value_enum, default_value_t = TrailArg::Cut)]
    pub trail: TrailArg,
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
    s.retry_incomplete = args.retry_incomplete;
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
    // Only the newest commit's models decide the exit status (the pushed tip, for the
    // hook): a commit in between is reported, whatever it holds.
    let mut tip: Vec<(Checked, FailOn)> = Vec::new();
    let mut tip_error = None;
    let mut totals = Totals::default();
    let mut internal = Vec::new();
    let mut noted = std::collections::HashSet::new();
    for (i, at) in ats.iter().enumerate() {
        let newest = i + 1 == ats.len();
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
        let models = match s.models(*at) {
            Ok(m) => m,
            Err(e) => {
                // A configuration that does not load at a commit in between is reported;
                // at the newest commit it is the command's error.
                if newest {
                    tip_error = Some(e);
                } else {
                    eprintln!("error: {short}: {e:#}");
                    out_commits.push(CommitResults {
                        commit: hex,
                        subject,
                        models: Vec::new(),
                        error: Some(format!("{e:#}")),
                    });
                }
                continue;
            }
        };
        if let Some(n) = &models.note {
            if !super::quiet() && noted.insert(n.clone()) {
                eprintln!("note: {n}");
            }
        }
        let fail_on = args.fail_on.unwrap_or(models.config.fail_on);
        let mut results = Vec::new();
        let mut lines = Vec::new();
        for model in &models.config.models {
            let c = s.check(*at, model, compare, &mut bar)?;
            totals.add(&c);
            if let Some(why) = &c.audit_failure {
                internal.push(format!("{short} {}: {why}", model.name));
            }
            lines.push(line(
                &c,
                models.config.models.len() > 1,
                fail_on,
                args.trail,
            ));
            let mut r = c.result.clone();
            r.doc.model = model.name.clone();
            results.push(r);
            if newest {
                tip.push((c, fail_on));
            }
        }
        if args.format == CheckFormat::Text && !super::quiet() {
            super::out(&format!(
                "{short} {}\n{}",
                truncate(&subject, 72),
                lines.join("")
            ))?;
        }
        out_commits.push(CommitResults {
            commit: hex,
            subject,
            models: results,
            error: None,
        });
    }
    s.print_diagnostics();
    if let Some(e) = tip_error {
        return Err(e);
    }
    match args.format {
        CheckFormat::Text => {
            if !super::quiet() {
                super::out(&totals.summary(ats.len()))?;
            }
        }
        CheckFormat::Json => super::out(
            &(serde_json::to_string_pretty(&CheckReport {
                commits: out_commits,
            })? + "\n"),
        )?,
        CheckFormat::Sarif => sarif(&out_commits)?,
    }
    if !internal.is_empty() {
        return Err(InternalError(format!(
            "an incremental check disagrees with a full check: {}",
            internal.join("; ")
        ))
        .into());
    }
    Ok(exit_of(tip.iter()))
}

/// Prints the results as SARIF 2.1.0 (one result per violation; models that did not load
/// or were absent have none).
fn sarif(commits: &[CommitResults]) -> anyhow::Result<()> {
    let runs: Vec<(String, Vec<crate::report::verify::CheckDoc>)> = commits
        .iter()
        .map(|c| {
            let docs = c
                .models
                .iter()
                .filter(|m| m.verdict().ran())
                .map(|m| m.doc.clone())
                .collect();
            (c.commit.clone(), docs)
        })
        .collect();
    let log = crate::report::sarif::sarif(&runs, env!("CARGO_PKG_VERSION"));
    super::out(&(serde_json::to_string_pretty(&log)? + "\n"))
}

/// The exit status from the newest commit's models (`cli/error.rs` decides what each
/// verdict means).
pub fn exit_of<'a>(newest: impl Iterator<Item = &'a (Checked, FailOn)>) -> Outcome {
    super::error::worst(newest.map(|(c, fail_on)| {
        super::error::of_model(
            c.result.verdict(),
            *fail_on == FailOn::Any || c.new_violations > 0,
        )
    }))
}

/// How much of a new violation's trail the text output shows.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq, Default)]
pub enum TrailArg {
    /// Its first and last steps, as `verify` prints them.
    #[default]
    Cut,
    /// Every step.
    Full,
    /// None (the JSON still has them).
    None,
}

/// One model's line under its commit, and its violations (grouped where they repeat by
/// symmetry), each new one with its trail.
fn line(c: &Checked, named: bool, fail_on: FailOn, trail: TrailArg) -> String {
    use crate::report::verdict::{group, verdict_words, Groupable};
    let r = &c.result;
    let d = &r.doc;
    let st = &d.stats;
    let (stored, pruned, walked) = (st.states_stored, st.states_pruned, st.states_walked);
    let v = r.verdict();
    let verdict = match v {
        ModelVerdict::Fail if fail_on == FailOn::New && c.new_violations == 0 => {
            "fail (known)".to_string()
        }
        v => verdict_words(v.as_str(), &d.claims_not_checked),
    };
    let name = if named {
        format!("{} ", c.model)
    } else {
        String::new()
    };
    let short = |x: u64| super::progress::short(x as f64);
    let what = match (v, d.mode.as_str()) {
        (ModelVerdict::Error, _) => {
            format!("does not load: {}", r.error.as_deref().unwrap_or(""))
        }
        (ModelVerdict::Absent, _) => "no model at this commit".into(),
        (_, "reused") => match &r.reused_from {
            Some(x) if r.base_commit.as_ref() != Some(x) => {
                format!("same content as {}: result reused", &x[..x.len().min(7)])
            }
            _ => "unchanged: result reused".into(),
        },
        _ if c.reused => "already checked".into(),
        (_, "incremental") => {
            let explored = stored.saturating_sub(pruned + walked);
            let mut parts = vec![format!("{} states explored", short(explored))];
            if pruned > 0 {
                parts.push(format!("{} pruned", short(pruned)));
            }
            if walked > 0 {
                parts.push(format!("{} replayed", short(walked)));
            }
            if let Some(total) = r.record_states {
                parts.push(format!("{} in the record", short(total)));
            }
            format!(
                "incremental ({}): {}, {:.2} s",
                d.algorithm,
                parts.join(", "),
                c.elapsed.as_secs_f64()
            )
        }
        (_, m) => format!(
            "{m}: {} states, {:.2} s",
            short(stored),
            c.elapsed.as_secs_f64()
        ),
    };
    let mut s = format!("    {name}{verdict:<10} {what}\n");
    // -v: how the check reused its base's record, and why (auto's choice, or why not; of
    // the check that made the result, when it is one already made).
    if super::verbose() && v.ran() && d.mode != "reused" && !d.algorithm_reason.is_empty() {
        s.push_str(&format!("      why: {}\n", d.algorithm_reason));
    }
    if v.ran() && !d.complete {
        let why = d.limit_detail.as_ref().map(|l| l.sentence()).or_else(|| {
            d.limit
                .as_ref()
                .map(|l| format!("stopped by the {l} limit"))
        });
        if let Some(why) = why {
            let again = if c.reused {
                " (result reused: --retry-incomplete checks it again)"
            } else {
                ""
            };
            s.push_str(&format!("      incomplete: {why}{again}\n"));
        }
    }
    if let Some(full) = r.full_ms {
        if d.mode == "incremental" && full < c.elapsed.as_millis() as u64 {
            s.push_str(&format!(
                "      note: a full check of this commit took {:.2} s: this incremental check \
                 cost more than a full one\n",
                full as f64 / 1000.0
            ));
        }
    }
    let docs = &d.violations;
    for g in group(docs.iter().map(Groupable::from)) {
        let v = &docs[g.members[0]];
        let new = g.members.iter().any(|&i| docs[i].new);
        let status = if new { "new" } else { "still present" };
        // An invalid end state is told apart by where each blocked process is.
        let at = if v.locations.is_empty() {
            v.location.clone()
        } else {
            v.locations.join(", ")
        };
        let note = if g.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", g.note)
        };
        s.push_str(&format!(
            "      {status}: {} [{}] at {at}{note}\n",
            v.message, v.kind,
        ));
        if new {
            let window = match trail {
                TrailArg::Cut => Some(crate::report::verify::TEXT_TRAIL_STEPS),
                TrailArg::Full => None,
                TrailArg::None => continue,
            };
            s.push_str(&crate::report::verify::trail_text(v, "        ", window));
        }
    }
    // Each claim checked on its own: its verdict, and its violations (new ones with their
    // trail).
    for cl in &d.claims {
        let what = match &cl.formula {
            Some(f) => format!("ltl {}: {f}", cl.name.trim_start_matches("ltl ")),
            None => cl.name.clone(),
        };
        let cut = match (&cl.limit, cl.complete) {
            (Some(l), false) => format!(" (cut by the {l} limit)"),
            _ => String::new(),
        };
        let reused = match (cl.reused, cl.over_graph) {
            (true, _) => " (reused: the state graph is unchanged)",
            (false, true) => " (system moves from the recorded state graph)",
            (false, false) => "",
        };
        s.push_str(&format!(
            "      claim {what}: {}{cut}{reused}\n",
            cl.verdict.as_str()
        ));
        for v in &cl.violations {
            let status = if v.new { "new" } else { "still present" };
            s.push_str(&format!(
                "        {status}: {} [{}] at {}\n",
                v.message, v.kind, v.location
            ));
            if v.new {
                let window = match trail {
                    TrailArg::Cut => Some(crate::report::verify::TEXT_TRAIL_STEPS),
                    TrailArg::Full => None,
                    TrailArg::None => continue,
                };
                s.push_str(&crate::report::verify::trail_text(v, "          ", window));
            }
        }
    }
    let fixed: Vec<String> = d
        .fixed
        .iter()
        .map(|f| format!("{} [{}] (was at {})", f.message, f.kind, f.location))
        .collect();
    let mut shown: Vec<&String> = Vec::new();
    for f in &fixed {
        if shown.contains(&f) {
            continue;
        }
        shown.push(f);
        let n = fixed.iter().filter(|g| *g == f).count();
        let times = if n > 1 {
            format!(" ({n} times)")
        } else {
            String::new()
        };
        s.push_str(&format!("      fixed: {f}{times}\n"));
    }
    if let Some(a) = &r.audit {
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
        match c.result.verdict() {
            ModelVerdict::Pass => self.pass += 1,
            ModelVerdict::Fail => self.fail += 1,
            _ => self.other += 1,
        }
        if !c.reused {
            let st = &c.result.doc.stats;
            self.stored += st.states_stored;
            let reused = st.states_pruned + st.states_walked;
            self.explored += st.states_stored.saturating_sub(reused);
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
