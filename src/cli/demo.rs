//! `git rmc demo`: the bundled sample (an elevator controller and its history) built into a
//! real git repository, then `git rmc history` on it.

use std::path::PathBuf;

use clap::Args;

use super::error::Outcome;
use crate::git::build::{build, Snapshot};

include!(concat!(env!("OUT_DIR"), "/sample.rs"));

/// Build the bundled sample into a git repository and show its history report
///
/// An elevator controller written for git rmc, in 23 commits (refactorings, features, a
/// change in an included file, bugs and their fixes). The first commit is checked in full
/// and records; every later one reuses its parent's record. The records stay in the
/// sample repository's own cache: the user's record store is left alone, so every demo
/// shows the first checks again.
///
///   git rmc demo                 in a new temporary folder
///   git rmc demo elevator        in ./elevator (which must not exist or be empty)
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct DemoArgs {
    /// Where to build the repository (default: a new temporary folder).
    pub dir: Option<PathBuf>,
}

/// The .rmc.toml every commit of the sample carries.
const CONFIG: &str = "# git rmc settings (see git rmc init)\n[[model]]\nname = \"elevator\"\nentry = \"model.pml\"\n";

pub fn cmd_demo(args: &DemoArgs) -> anyhow::Result<Outcome> {
    let dir = match &args.dir {
        Some(d) => d.clone(),
        None => {
            let base = std::env::temp_dir();
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            base.join(format!("git-rmc-demo-{}-{stamp}", std::process::id()))
        }
    };
    if dir.exists() && std::fs::read_dir(&dir)?.next().is_some() {
        anyhow::bail!(
            "{} exists and is not empty: choose another folder",
            dir.display()
        );
    }
    std::fs::create_dir_all(&dir)?;
    let snapshots = snapshots()?;
    let n = snapshots.len();
    build(&dir, &snapshots, ("Sample Author", "sample@example.com"))?;
    if !super::quiet() {
        eprintln!(
            "built the sample repository in {} ({n} commits); its history, checked commit by commit:\n",
            dir.display()
        );
    }
    let h = super::history::HistoryArgs {
        range: None,
        format: super::history::HistoryFormat::Text,
        output: None,
        retry_incomplete: false,
        paths: Vec::new(),
        // Every run shows the sample's first checks, whatever an earlier demo stored.
        own_records: true,
    };
    super::history::history_in(&dir, &h)?;
    if !super::quiet() {
        eprintln!(
            "\nnext: cd {} && git rmc check HEAD~3..HEAD, git rmc history --format html -o report.html",
            dir.display()
        );
    }
    Ok(Outcome::Ok)
}

/// The sample's commits from the embedded history.toml and snapshots.
fn snapshots() -> anyhow::Result<Vec<Snapshot>> {
    let file = |p: &str| SAMPLE.iter().find(|(n, _)| *n == p).map(|(_, t)| *t);
    let history = file("history.toml")
        .ok_or_else(|| anyhow::anyhow!("the sample's history.toml is missing from this build"))?;
    let doc: toml_edit::DocumentMut = history.parse()?;
    let commits = doc["commit"]
        .as_array_of_tables()
        .ok_or_else(|| anyhow::anyhow!("the sample's history.toml has no [[commit]]"))?;
    let mut out = Vec::new();
    for c in commits {
        let dir = c["dir"].as_str().unwrap_or_default();
        let prefix = format!("versions/{dir}/");
        let mut files: Vec<(PathBuf, String)> = SAMPLE
            .iter()
            .filter_map(|(n, t)| {
                n.strip_prefix(&prefix)
                    .map(|rel| (PathBuf::from(rel), t.to_string()))
            })
            .collect();
        files.push((PathBuf::from(crate::config::FILE_NAME), CONFIG.to_string()));
        out.push(Snapshot {
            files,
            message: c["message"].as_str().unwrap_or(dir).trim().to_string() + "\n",
            time: parse_date(c["date"].as_str().unwrap_or("")).unwrap_or(0),
        });
    }
    Ok(out)
}

/// Seconds since the epoch of a UTC date `YYYY-MM-DDTHH:MM:SSZ`.
fn parse_date(s: &str) -> Option<i64> {
    let n = |a: usize, b: usize| s.get(a..b)?.parse::<i64>().ok();
    let (y, mo, d) = (n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let (h, mi, se) = (n(11, 13)?, n(14, 16)?, n(17, 19)?);
    // Days since 1970-01-01: whole 400-year eras, then the day of the era, with the year
    // starting in March so that February's length does not matter.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Some(days * 86400 + h * 3600 + mi * 60 + se)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::parse_date("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            super::parse_date("2026-01-05T10:00:00Z"),
            Some(1_767_607_200)
        );
        assert_eq!(super::parse_date("nonsense"), None);
    }

    #[test]
    fn the_sample_is_embedded() {
        let s = super::snapshots().expect("sample");
        assert!(s.len() >= 12);
        assert!(s[0]
            .files
            .iter()
            .any(|(p, _)| p == std::path::Path::new("model.pml")));
    }
}
