//! `git rmc cache ls|gc|clear`: what the cache holds, and freeing it.

use std::collections::HashSet;

use clap::{Args, Subcommand};

use super::error::Outcome;
use super::walk::{At, Session};

/// Show or free what git rmc keeps in its cache
///
/// The cache (.rmc/ at the work tree root, or GIT_RMC_CACHE_DIR, or cache_dir in
/// .rmc.toml): records of checked versions and results per commit. A corrupt or foreign
/// cache costs time, never a verdict.
///
///   git rmc cache ls
///   git rmc cache gc       keep what the branch tips need (and the records those stand on)
///   git rmc cache clear
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(Subcommand, Debug)]
pub enum CacheAction {
    /// List the records per model and the commits with results.
    Ls,
    /// Delete what no branch tip needs: results of commits no branch reaches, and records
    /// other than the newest each branch tip's models reuse (and the records those stand
    /// on).
    Gc,
    /// Delete every record and result.
    Clear,
}

pub fn cmd_cache(args: &CacheArgs) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let s = Session::open(&cwd)?;
    match args.action {
        CacheAction::Ls => {
            let l = s.cache.ls()?;
            let mut out = format!("cache: {}\n", s.cache.root().display());
            for m in &l.models {
                out.push_str(&format!(
                    "model {}: {} record(s)\n",
                    m.model,
                    m.records.len()
                ));
                for r in &m.records {
                    out.push_str(&format!("  {}  {} bytes", r.hash, r.bytes));
                    // A record whose state graph is written on another needs that one.
                    let path = s.cache.record_path(&m.model, &r.hash);
                    if let Ok(Some(base)) = crate::rmc::Record::base_of(&path) {
                        let base = base.strip_suffix(".rec").unwrap_or(&base);
                        out.push_str(&format!("  on {base}"));
                    }
                    out.push('\n');
                }
            }
            out.push_str(&format!(
                "{} commit(s) with results; {} bytes of records\n",
                l.commits,
                l.record_bytes()
            ));
            super::out(&out)?;
        }
        CacheAction::Clear => {
            let f = s.cache.clear()?;
            super::out(&format!("removed {} files, {} bytes\n", f.files, f.bytes))?;
        }
        CacheAction::Gc => {
            let tips = s.repo.branch_tips()?;
            let mut keep_commits = HashSet::new();
            let mut keep = HashSet::new();
            for t in &tips {
                for c in s.repo.commits_not_in(*t, &[])? {
                    keep_commits.insert(c.hex());
                }
                // The records a tip's next check reuses: its own results' records, or the
                // nearest ancestor's.
                let models = s
                    .models(At::Commit(*t))
                    .map(|m| m.config.models)
                    .unwrap_or_default();
                for m in models {
                    let mut c = *t;
                    loop {
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
            // A kept record written on a base needs the base, and the base its own.
            let mut todo: Vec<(String, String)> = keep.iter().cloned().collect();
            while let Some((m, h)) = todo.pop() {
                let path = s.cache.record_path(&m, &h);
                if let Ok(Some(base)) = crate::rmc::Record::base_of(&path) {
                    if let Some(bh) = base.strip_suffix(".rec") {
                        if keep.insert((m.clone(), bh.to_string())) {
                            todo.push((m, bh.to_string()));
                        }
                    }
                }
            }
            let f = s.cache.gc(&keep, &keep_commits)?;
            super::out(&format!(
                "kept {} record(s) for {} branch tip(s); removed {} files, {} bytes\n",
                keep.len(),
                tips.len(),
                f.files,
                f.bytes
            ))?;
        }
    }
    Ok(Outcome::Ok)
}
