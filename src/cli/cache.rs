//! `git rmc cache ls|gc|clear`: what the cache and the user's record store hold, and freeing
//! them; and what a run leaves behind it (`after_run`): the store told which records this
//! clone's branch tips need, and the records kept within their size budget.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::error::Outcome;
use super::walk::{At, Session};
use crate::cache::{Needs, StoreSweep};
use crate::git::CommitId;
use crate::report::verdict::human_bytes;

/// How long gc and clear wait for other runs to stop using the store before they leave its
/// records as they are. The budget after a run does not wait: the next run enforces it.
const STORE_WAIT: Duration = Duration::from_secs(5);
/// How far back from a branch tip a result with a record is looked for.
const MAX_ANCESTORS: usize = 100_000;
/// Commits named per record by `cache ls`.
const COMMITS_SHOWN: usize = 3;

/// Show or free what git rmc keeps in its cache
///
/// The cache (.rmc/ at the work tree root, or GIT_RMC_CACHE_DIR, or cache_dir in
/// .rmc.toml) holds the results per commit; the records of checked versions are kept in a
/// store that the user's clones and worktrees share (the platform's cache folder, or
/// GIT_RMC_STORE; GIT_RMC_STORE=none keeps them in the cache). After each check, the least
/// recently used records that no branch tip needs are dropped past the size budget
/// (max_size under [cache] in .rmc.toml or the user's settings; 2G by default). A corrupt or
/// foreign cache costs time, never a verdict.
///
///   git rmc cache ls
///   git rmc cache gc       keep what the branch tips need (in every clone using the store)
///   git rmc cache clear
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(Subcommand, Debug)]
pub enum CacheAction {
    /// List the records per model, with the commits whose results name them, and the
    /// store's other records.
    Ls,
    /// Delete what no branch tip needs: results of commits no branch reaches, and records
    /// other than the newest each branch tip's models reuse (and the records those stand
    /// on); in the store, what no clone using it needs.
    Gc,
    /// Delete every record and result (in the store too: every clone's records).
    Clear,
}

pub fn cmd_cache(args: &CacheArgs) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let s = Session::open(&cwd)?;
    match args.action {
        CacheAction::Ls => super::out(&ls(&s)?)?,
        CacheAction::Clear => {
            let f = s.cache.clear()?;
            let mut out = format!(
                "removed {} files, {} from {}\n",
                f.files,
                human_bytes(f.bytes),
                s.cache.root().display()
            );
            out.push_str(&store_line(&s, s.cache.clear_store(STORE_WAIT)?));
            super::out(&out)?;
        }
        CacheAction::Gc => {
            let tips = s.repo.branch_tips()?;
            let mut keep_commits = HashSet::new();
            for t in &tips {
                for c in s.repo.commits_not_in(*t, &[])? {
                    keep_commits.insert(c.hex());
                }
            }
            let keep = tip_needs(&s)?;
            s.cache.register(&keep, &base_of)?;
            let f = s.cache.gc(&keep, &keep_commits, &base_of, STORE_WAIT)?;
            let mut out = format!(
                "kept {} record(s) for {} branch tip(s){}; removed {} files, {} from {}\n",
                f.kept,
                tips.len(),
                if s.cache.store_dir().is_some() {
                    " and the other clones using the store"
                } else {
                    ""
                },
                f.local.files,
                human_bytes(f.local.bytes),
                s.cache.root().display()
            );
            out.push_str(&store_line(&s, f.store));
            super::out(&out)?;
        }
    }
    Ok(Outcome::Ok)
}

/// What gc or clear did in the store, as a line (none without a store).
fn store_line(s: &Session, sweep: StoreSweep) -> String {
    let dir = s
        .cache
        .store_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    match sweep {
        StoreSweep::None => String::new(),
        StoreSweep::Busy => format!(
            "the store at {dir} is in use by another git rmc run: its records were left as they \
             are\n"
        ),
        StoreSweep::Freed(f) => format!(
            "removed {} files, {} from the store at {dir}\n",
            f.files,
            human_bytes(f.bytes)
        ),
    }
}

/// The name of the record a record file stands on, if any (a file that cannot be read
/// stands on nothing).
fn base_of(path: &Path) -> Option<String> {
    crate::rmc::Record::base_of(path).ok().flatten()
}

/// The records the branch tips' next checks reuse: per tip and model, the record of the
/// nearest result on the tip's first-parent line whose record is in the cache.
pub fn tip_needs(s: &Session) -> anyhow::Result<Needs> {
    let mut keep = HashSet::new();
    for t in s.repo.branch_tips()? {
        let models = s
            .models(At::Commit(t))
            .map(|m| m.config.models)
            .unwrap_or_default();
        for m in models {
            let mut c = t;
            for _ in 0..MAX_ANCESTORS {
                if let Ok(Some(r)) = s.cache.get_result(&c.hex(), &m.name) {
                    if let Some(h) = r["hash"].as_str() {
                        if s.cache.has_record(&m.name, h) {
                            keep.insert((m.name.clone(), h.to_string()));
                            break;
                        }
                    }
                }
                match s
                    .repo
                    .commit(c)
                    .ok()
                    .and_then(|i| i.parents.first().copied())
                {
                    Some(p) => c = p,
                    None => break,
                }
            }
        }
    }
    Ok(keep)
}

/// `cache ls`: per model its records (in the store or `.rmc/`), each with its size, the
/// commits whose results name it and the record it stands on; then the store's records that
/// no result here names (other clones'), and the totals against the budget.
fn ls(s: &Session) -> anyhow::Result<String> {
    let l = s.cache.ls()?;
    // Per (model, hash), the commits whose results name it, newest first.
    let mut named: BTreeMap<(String, String), Vec<(i64, CommitId)>> = BTreeMap::new();
    for (commit, results) in s.cache.all_results()? {
        let Ok(id) = s.repo.resolve(&commit) else {
            continue;
        };
        let time = s.repo.commit(id).map(|i| i.time).unwrap_or(0);
        for (model, r) in results {
            if let Some(h) = r["hash"].as_str() {
                named
                    .entry((model, h.to_string()))
                    .or_default()
                    .push((time, id));
            }
        }
    }
    for commits in named.values_mut() {
        commits.sort_by(|a, b| b.cmp(a));
    }
    let mut out = format!(
        "cache: {} (results of {} commit(s), {})\n",
        s.cache.root().display(),
        l.commits,
        human_bytes(l.results_bytes)
    );
    if let Some(st) = &l.store {
        out.push_str(&format!(
            "store: {} ({} record(s), {}; used by {} clone(s))\n",
            st.dir.display(),
            st.records.len(),
            human_bytes(l.store_bytes()),
            st.clones
        ));
    }
    // Every record file, by path, listed once under the first model that names it.
    let mut shown: HashSet<std::path::PathBuf> = HashSet::new();
    let mut models: BTreeSet<&str> = l.models.iter().map(|m| m.model.as_str()).collect();
    models.extend(named.keys().map(|(m, _)| m.as_str()));
    for model in models {
        let mut lines = Vec::new();
        let local = l.models.iter().find(|m| m.model == model);
        let mut hashes: Vec<&str> = named
            .keys()
            .filter(|(m, _)| m == model)
            .map(|(_, h)| h.as_str())
            .collect();
        hashes.extend(
            local
                .iter()
                .flat_map(|m| m.records.iter().map(|r| r.hash.as_str())),
        );
        hashes.sort();
        hashes.dedup();
        for h in hashes {
            let path = s.cache.record_path(model, h);
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if !shown.insert(path.clone()) {
                continue;
            }
            let mut line = format!("  {h}  {:>9}", human_bytes(meta.len()));
            let commits = named.get(&(model.to_string(), h.to_string()));
            let newest = commits.and_then(|c| c.first()).map(|(t, _)| *t);
            if let Some(commits) = commits {
                let mut ids: Vec<String> = commits
                    .iter()
                    .take(COMMITS_SHOWN)
                    .map(|(_, c)| c.short())
                    .collect();
                if commits.len() > COMMITS_SHOWN {
                    ids.push(format!("+{} more", commits.len() - COMMITS_SHOWN));
                }
                line.push_str(&format!("  at {}", ids.join(", ")));
            } else {
                line.push_str("  at no commit");
            }
            // A record whose state graph is written on another needs that one.
            if let Some(base) = base_of(&path) {
                let base = base.strip_suffix(".rec").unwrap_or(&base);
                line.push_str(&format!("  on {base}"));
            }
            lines.push((newest, line));
        }
        // The records of the newest commits first; those of no commit last.
        lines.sort_by_key(|l| std::cmp::Reverse(l.0));
        if !lines.is_empty() {
            out.push_str(&format!("model {model}: {} record(s)\n", lines.len()));
            for (_, line) in lines {
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    if let Some(st) = &l.store {
        let others: Vec<_> = st
            .records
            .iter()
            .filter(|r| !shown.contains(&r.path))
            .collect();
        if !others.is_empty() {
            out.push_str(&format!(
                "other records in the store (other clones' or no result's here): {}, {}\n",
                others.len(),
                human_bytes(others.iter().map(|r| r.bytes).sum())
            ));
        }
    }
    let total = l.record_bytes() + l.store_bytes();
    out.push_str(&format!(
        "{} of records; budget {} ({})\n",
        human_bytes(total),
        s.budget.size.text,
        s.budget.origin
    ));
    Ok(out)
}

/// What a run leaves behind it, when it read or wrote records: the store told which records
/// this clone's branch tips need, and the records (here and in the store) kept within the
/// budget, the least recently used that no branch tip needs dropped first, in one line.
/// Never fails the run: a problem is a warning.
pub fn after_run(s: &Session) {
    for n in s.cache.take_notes() {
        eprintln!("note: {n}");
    }
    if s.cache.records_used() == 0 {
        return;
    }
    if let Err(e) = keep_within_budget(s) {
        eprintln!("warning: the cache's size budget was not enforced: {e:#}");
    }
}

fn keep_within_budget(s: &Session) -> anyhow::Result<()> {
    let needs = tip_needs(s)?;
    s.cache.register(&needs, &base_of)?;
    let max = s.budget.size.bytes;
    let e = s
        .cache
        .enforce_budget(max, &needs, &base_of, Duration::ZERO)?;
    let over = e.kept > max;
    if (e.dropped.files == 0 && !over) || super::quiet() {
        return Ok(());
    }
    let budget = format!("the {} budget ({})", s.budget.size.text, s.budget.origin);
    let mut line = if e.dropped.files > 0 {
        format!(
            "cache: dropped {} least recently used record(s), {}, to stay within {budget}; {} \
             kept",
            e.dropped.files,
            human_bytes(e.dropped.bytes),
            human_bytes(e.kept)
        )
    } else {
        format!("cache: records take {}, over {budget}", human_bytes(e.kept))
    };
    if over {
        line.push_str(if e.store_busy {
            "; the store is in use by another run, so its records are dropped later"
        } else {
            "; the rest are what the branch tips need"
        });
    }
    eprintln!("{line}");
    Ok(())
}
