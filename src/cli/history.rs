//! `git rmc history`: a report over a history from the cache, checking what is missing.

use std::path::{Path, PathBuf};

use crate::report::verify::ModelResult;
use clap::{Args, ValueEnum};

use super::error::Outcome;
use super::walk::{At, Session};
use crate::report::history::{
    ClaimCell, CommitRow, HistoryDoc, ModelCell, ViolationLife, ViolationRef,
};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum HistoryFormat {
    Text,
    Json,
    Markdown,
    /// One self-contained HTML page (a chart of time and states per commit, the violations
    /// with their trails).
    Html,
}

/// Report on a history: verdicts, states, times and speed-ups per commit
///
/// Per commit and model: the verdict, the states explored and reused, the time and the
/// speed-up over a full check, and when each violation first appeared and was fixed.
/// Results come from the cache; what is missing is checked (as `git rmc check` does,
/// reusing records).
///
///   git rmc history                     HEAD's whole history
///   git rmc history v1.0..HEAD --format markdown
///   git rmc history --format html > report.html
///
/// The speed-up of an incremental check is the time of a full check of the same commit (as
/// `git rmc check --audit` measures it, reading the base record included, as a full check
/// reads it) over the time it took; without one, the time of the
/// model's nearest full check in the history, scaled by the work of the two versions
/// (transitions and atomic steps where the check's figures give them, as a replay's do; else
/// the states stored).
///
/// Exit status: 0 once the report is made (the verdicts are in it), 2 when it cannot be made.
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct HistoryArgs {
    /// A range A..B (default: HEAD's whole history, oldest first).
    pub range: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = HistoryFormat::Text)]
    pub format: HistoryFormat,
    /// Write the report to FILE instead of the standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Check again what a limit cut before (its result is otherwise reused while the
    /// content and the limits stay the same).
    #[arg(long)]
    pub retry_incomplete: bool,
    /// Only the models whose entry file is one of these paths.
    #[arg(last = true, value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Keep the records in the repository's own cache, away from the user's record store
    /// (the demo: the store may hold records of the same contents from an earlier demo,
    /// which would leave nothing to check).
    #[arg(skip)]
    pub own_records: bool,
}

pub fn cmd_history(args: &HistoryArgs) -> anyhow::Result<Outcome> {
    history_in(&std::env::current_dir()?, args)
}

/// The report for the repository at `cwd`.
pub fn history_in(cwd: &Path, args: &HistoryArgs) -> anyhow::Result<Outcome> {
    let mut s = Session::open_with(cwd, !args.own_records)?;
    s.paths = super::relative_paths(&s.root, cwd, &args.paths);
    s.retry_incomplete = args.retry_incomplete;
    let commits = match &args.range {
        Some(r) => s.repo.range(r)?,
        None => s.repo.all()?,
    };
    let mut bar = super::progress::Bar::new();
    let mut rows = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut lives: Vec<ViolationLife> = Vec::new();
    // Per model, per commit: the time of a full check, when one ran (or was measured by
    // --audit), and its work; speed-ups compare with the nearest one, scaled by work.
    let mut full_ms: Vec<(usize, String, f64, f64, f64)> = Vec::new();
    // Per row, per cell: the work of a full check of that version (pan's transitions and
    // atomic steps, which a replay's or a full check's figures give exactly).
    let mut works: Vec<Vec<(Option<f64>, Option<f64>)>> = Vec::new();
    let mut noted = std::collections::HashSet::new();
    for c in &commits {
        let info = s.repo.commit(*c)?;
        let models = match s.models(At::Commit(*c)) {
            Ok(m) => m,
            Err(e) => {
                // A configuration that does not load at one commit is reported; the
                // report goes on with the others.
                eprintln!("error: {}: {e:#}", c.short());
                rows.push(CommitRow {
                    commit: c.hex(),
                    short: c.short(),
                    subject: info.subject,
                    time: info.time,
                    models: Vec::new(),
                });
                works.push(Vec::new());
                continue;
            }
        };
        if let Some(n) = &models.note {
            if !super::quiet() && noted.insert(n.clone()) {
                eprintln!("note: {n}");
            }
        }
        let mut cells = Vec::new();
        let mut row_works = Vec::new();
        for m in &models.config.models {
            if !names.contains(&m.name) {
                names.push(m.name.clone());
            }
            let checked = s.check(At::Commit(*c), m, None, &mut bar)?;
            let r = &checked.result;
            let cell = cell(&m.name, r);
            let measured = r.full_ms.map(|ms| ms as f64).or_else(|| {
                (cell.mode == "full" && cell.states_stored > 0).then_some(cell.elapsed_ms as f64)
            });
            let work = full_work(r);
            if let (Some(ms), Some(w)) = (measured, work) {
                full_ms.push((rows.len(), m.name.clone(), ms, w, cell.states_stored as f64));
            }
            track(&mut lives, &m.name, &c.short(), r);
            cells.push(cell);
            row_works.push((work, full_states(r)));
        }
        works.push(row_works);
        rows.push(CommitRow {
            commit: c.hex(),
            short: c.short(),
            subject: info.subject,
            time: info.time,
            models: cells,
        });
    }
    // Speed-ups need the full checks' times, known once the history is walked.
    for (i, row) in rows.iter_mut().enumerate() {
        for (k, cell) in row.models.iter_mut().enumerate() {
            // (A reused result took no check: it has no speed-up to show.)
            if cell.mode == "full" || cell.mode == "reused" || !cell.verdict.ran() {
                continue;
            }
            let nearest = full_ms
                .iter()
                .filter(|(_, m, _, _, _)| *m == cell.model)
                .min_by_key(|(j, _, _, _, _)| (*j as i64 - i as i64).unsigned_abs());
            if let Some(&(j, _, ms, w, stored)) = nearest {
                // The commit's own full check when --audit measured it, else the nearest
                // one's time scaled by the work of this version's state space (by its states
                // stored when a pruning run does not know its work).
                let (own, states) = works
                    .get(i)
                    .and_then(|r| r.get(k))
                    .copied()
                    .unwrap_or_default();
                // Without the version's work or its states, nothing is estimated.
                let ms = match (own, states) {
                    _ if j == i => Some(ms),
                    (Some(x), _) if w > 0.0 => Some(ms * x / w),
                    (_, Some(n)) if stored > 0.0 && n > 0.0 => Some(ms * n / stored),
                    _ => None,
                };
                cell.speedup = ms.map(|ms| ms / (cell.elapsed_ms.max(1) as f64));
            }
        }
    }
    s.print_diagnostics();
    let doc = HistoryDoc {
        repository: s
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        models: names,
        commits: rows,
        violations: lives,
    };
    let text = match args.format {
        HistoryFormat::Text => crate::report::history::text(&doc, super::color()),
        HistoryFormat::Json => serde_json::to_string_pretty(&doc)? + "\n",
        HistoryFormat::Markdown => crate::report::history::markdown(&doc),
        HistoryFormat::Html => crate::report::history::html(&doc),
    };
    match &args.output {
        Some(p) => {
            crate::cache::write_atomic(p, text.as_bytes())?;
            if !super::quiet() {
                eprintln!("wrote {}", p.display());
            }
        }
        None => super::out(&text)?,
    }
    Ok(Outcome::Ok)
}

/// The work of a full check of a version (transitions and atomic steps), when the run's
/// figures are a full check's (a full check or a replay; a pruning run skips work).
fn full_work(r: &ModelResult) -> Option<f64> {
    let st = &r.doc.stats;
    if st.states_pruned > 0 || !r.doc.complete {
        return None;
    }
    let w = st.transitions + st.atomic_steps;
    (w > 0).then_some(w as f64)
}

/// The states of a version's whole state space, where the run knows them: all it stored for
/// a full check or a replay, the record it wrote for a pruning run (which holds every
/// reachable state, pruned ones' included); unknown otherwise, and then no speed-up is
/// estimated from it.
fn full_states(r: &ModelResult) -> Option<f64> {
    let st = &r.doc.stats;
    if !r.doc.complete {
        return None;
    }
    if st.states_pruned == 0 {
        return Some(st.states_stored as f64);
    }
    r.record_states.map(|n| n as f64)
}

fn cell(model: &str, r: &ModelResult) -> ModelCell {
    let d = &r.doc;
    let st = &d.stats;
    let stored = st.states_stored;
    // Pruned and replayed states: their successors came from the record.
    let pruned = st.states_pruned + st.states_walked;
    let reused = d.mode == "reused";
    let verdict = r.verdict();
    ModelCell {
        model: model.to_string(),
        verdict,
        algorithm: d.algorithm.clone(),
        states_stored: stored,
        states_explored: if reused {
            0
        } else {
            stored.saturating_sub(pruned)
        },
        states_reused: pruned,
        elapsed_ms: if reused { 0 } else { r.elapsed_ms },
        full_states: (d.mode == "full").then_some(stored),
        speedup: None,
        violations: d
            .violations
            .iter()
            .map(|v| ViolationRef {
                kind: v.kind.clone(),
                location: v.location.clone(),
                message: v.message.clone(),
                status: if v.new { "new" } else { "still" }.to_string(),
            })
            .collect(),
        error: r.error.clone(),
        claims_not_checked: d.claims_not_checked.clone(),
        // Which of the safety check and the claims failed, when claims were checked.
        failed: match d.claims.is_empty() {
            true => Vec::new(),
            false => (!d.violations.is_empty())
                .then(|| "safety".to_string())
                .into_iter()
                .chain(
                    d.claims
                        .iter()
                        .filter(|c| c.verdict == crate::report::verify::ModelVerdict::Fail)
                        .map(|c| c.name.clone()),
                )
                .collect(),
        },
        limit: (verdict.ran() && !d.complete)
            .then(|| {
                d.limit_detail.as_ref().map(|l| l.sentence()).or_else(|| {
                    d.limit
                        .as_ref()
                        .map(|l| format!("stopped by the {l} limit"))
                })
            })
            .flatten(),
        mode: d.mode.clone(),
        claims: d
            .claims
            .iter()
            .map(|c| ClaimCell {
                claim: c.name.clone(),
                verdict: c.verdict,
            })
            .collect(),
    }
}

/// Follows violations across commits: when each first appeared, when it was fixed.
fn track(lives: &mut Vec<ViolationLife>, model: &str, short: &str, r: &ModelResult) {
    if !r.verdict().ran() {
        return;
    }
    let key_of =
        |k: &crate::rmc::record::RecViolation| format!("{}@{:?}#{:?}", k.kind, k.at, k.edge);
    let present: Vec<String> = r.keys.iter().map(key_of).collect();
    // Open violations that are gone are fixed here.
    for l in lives
        .iter_mut()
        .filter(|l| l.model == model && l.fixed_in.is_none())
    {
        if !present.iter().any(|k| Some(k.as_str()) == l_key(l)) {
            l.fixed_in = Some(short.to_string());
        }
    }
    // The keys are the safety check's violations', then each claim's, in order.
    let docs: Vec<&crate::report::verify::ViolationDoc> = r
        .doc
        .violations
        .iter()
        .chain(r.doc.claims.iter().flat_map(|c| c.violations.iter()))
        .collect();
    for (i, k) in r.keys.iter().enumerate() {
        let key = key_of(k);
        let open = lives
            .iter()
            .any(|l| l.model == model && l.fixed_in.is_none() && l_key(l) == Some(key.as_str()));
        if open {
            continue;
        }
        let v = docs.get(i).copied();
        // An invalid end state is told apart by where each blocked process is.
        let location = match v {
            Some(v) if !v.locations.is_empty() => v.locations.join(", "),
            Some(v) => v.location.clone(),
            None => String::new(),
        };
        lives.push(ViolationLife {
            locations: v.map(|v| v.locations.clone()).unwrap_or_default(),
            model: model.to_string(),
            kind: k.kind.clone(),
            location,
            message: k.message.clone(),
            first_seen: short.to_string(),
            fixed_in: None,
            trail: v.and_then(|v| v.trail.clone()),
            key: Some(key),
        });
    }
}

fn l_key(l: &ViolationLife) -> Option<&str> {
    l.key.as_deref()
}
