//! The impact analysis between two versions as a document (JSON) and as text: per dangerous
//! location its proctype, where it was, its statements before and after and why it is
//! dangerous; then the counts, the layout change and the changes to the initial state.

use serde::Serialize;

use crate::program::{LocId, Program};
use crate::promela::source::SourceFiles;
use crate::rmc::Impact;

#[derive(Serialize, Debug)]
pub struct DiffDoc {
    pub old: String,
    pub new: String,
    pub dangerous: Vec<DangerDoc>,
    pub locations_paired: usize,
    pub locations_dangerous: usize,
    pub locations_new: usize,
    pub locations_deleted: usize,
    /// Why the state layout differs (then nothing of the old version can be reused, unless
    /// the new layout only gains variables or changes global channels: `layout_extends`).
    pub layout_change: Option<String>,
    /// The new layout only gains variables or changes global channels: a run looks states up
    /// by their projection onto the old layout.
    pub layout_extends: bool,
    pub initial_state_changes: Vec<String>,
}

#[derive(Serialize, Debug)]
pub struct DangerDoc {
    pub proctype: String,
    /// Where the location was in the old version.
    pub location: String,
    pub old: Vec<String>,
    pub new: Vec<String>,
    pub reason: String,
}

fn statements(p: &Program, id: LocId) -> Vec<String> {
    p.procs
        .iter()
        .find_map(|pr| pr.automaton.location(id))
        .map(|l| l.edges.iter().map(|e| e.text.clone()).collect())
        .unwrap_or_default()
}

/// `old` and `new` carry stable ids (the new one as the impact analysis gave them).
pub fn document(
    old_name: &str,
    new_name: &str,
    old: (&Program, &SourceFiles),
    new: &Program,
    impact: &Impact,
) -> DiffDoc {
    let dangerous = impact
        .dangerous
        .values()
        .map(|d| {
            let location = old
                .0
                .procs
                .iter()
                .find_map(|p| p.automaton.location(d.old))
                .map(|l| old.1.location(l.span))
                .unwrap_or_default();
            DangerDoc {
                proctype: d.proc.clone(),
                location,
                old: statements(old.0, d.old),
                new: d.new.map(|n| statements(new, n)).unwrap_or_default(),
                reason: d.reason.clone(),
            }
        })
        .collect();
    DiffDoc {
        old: old_name.to_string(),
        new: new_name.to_string(),
        dangerous,
        locations_paired: impact.paired,
        locations_dangerous: impact.dangerous.len(),
        locations_new: impact.new_locations,
        locations_deleted: impact.deleted,
        layout_change: impact.layout_change.clone(),
        layout_extends: impact.extension.is_some(),
        initial_state_changes: impact.notes.clone(),
    }
}

pub fn text(d: &DiffDoc) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "git rmc diff: {} -> {}", d.old, d.new);
    for x in &d.dangerous {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "dangerous: {} at {}: {}",
            x.proctype, x.location, x.reason
        );
        for s in &x.old {
            let _ = writeln!(o, "  - {s}");
        }
        for s in &x.new {
            let _ = writeln!(o, "  + {s}");
        }
    }
    if !d.dangerous.is_empty() {
        let _ = writeln!(o);
    }
    let _ = writeln!(
        o,
        "{} locations paired, {} dangerous, {} new, {} deleted",
        d.locations_paired, d.locations_dangerous, d.locations_new, d.locations_deleted
    );
    for n in &d.initial_state_changes {
        let _ = writeln!(o, "note: {n}");
    }
    match &d.layout_change {
        Some(c) if d.layout_extends => {
            let _ = writeln!(
                o,
                "layout changed: {c}; recorded states are reused through their projection"
            );
        }
        Some(c) => {
            let _ = writeln!(
                o,
                "layout changed: {c}; no state of the old version can be reused"
            );
        }
        None => {
            let _ = writeln!(o, "layout unchanged: recorded states can be reused");
        }
    }
    o
}
