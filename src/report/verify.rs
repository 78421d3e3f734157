//! The result of one check as a document (the JSON of DESIGN.md section 7) and as SPIN-style
//! text: verdict, figures, violations with readable trails, statements never reached.

use serde::{Deserialize, Serialize};

use crate::explore::{Machine, Outcome, Replayed, Stats};
use crate::promela::source::SourceFiles;

#[derive(Serialize, Deserialize, Debug)]
pub struct CheckDoc {
    pub model: String,
    /// "full" or "incremental" (something was pruned or reused from the base).
    pub mode: String,
    /// The base's model hash (the record reused), when there is one.
    pub base: Option<String>,
    /// The algorithm that ran ("full" or "prune") and why.
    pub algorithm: String,
    pub algorithm_reason: String,
    /// What the choice between prune and replay predicted (regression checks with a base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<crate::rmc::check::Predicted>,
    pub verdict: String,
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// The limit that cut the search: its value, where it came from, how to raise it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_detail: Option<super::verdict::LimitDoc>,
    /// The fatal error that ended the whole search (as pan ends it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    pub stats: Stats,
    pub dangerous_locations: u64,
    pub claims_not_checked: Vec<String>,
    pub xr_xs_not_checked: bool,
    /// pan's state vector would exceed its default VECTORSZ (1,024 bytes): spin needs
    /// `-DVECTORSZ=N` with N above this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spin_needs_vectorsz_above: Option<u64>,
    pub violations: Vec<ViolationDoc>,
    /// The base's violations that are gone.
    pub fixed: Vec<FixedDoc>,
    pub unreached: Vec<UnreachedDoc>,
    /// The record this check wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordDoc>,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct FixedDoc {
    pub kind: String,
    /// Where it was, in the base version.
    pub location: String,
    pub message: String,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct RecordDoc {
    pub path: String,
    pub bytes: u64,
    pub states: u64,
    pub bytes_per_state: f64,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct ViolationDoc {
    pub kind: String,
    pub location: String,
    pub message: String,
    pub new: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<String>,
    /// Absent beyond the first `--max-trails` violations of a kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trail: Option<Vec<StepDoc>>,
    /// Steps of the trail left out of `trail` after its first half (text output of very
    /// long trails only; the JSON keeps every step).
    #[serde(skip)]
    pub elided: usize,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct StepDoc {
    pub step: usize,
    pub proc: String,
    pub pid: crate::explore::Pid,
    pub location: String,
    pub statement: String,
    pub changed: serde_json::Map<String, serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct UnreachedDoc {
    pub proc: String,
    pub location: String,
    pub statement: String,
}

/// pan's default limit on its state vector.
const PAN_VECTORSZ: u64 = 1024;

/// How many steps of a trail the text output shows at most (half from each end).
pub const TEXT_TRAIL_STEPS: usize = 200;

/// Builds the document of a finished check. `trails` holds each violation's replayed trail
/// (None where the violation kept none; only some of its steps when it was replayed with a
/// window).
pub fn document(
    model: &str,
    m: &Machine,
    files: &SourceFiles,
    out: &Outcome,
    trails: &[Option<Replayed>],
) -> CheckDoc {
    let verdict = out.verdict().as_str();
    let violations = out
        .violations
        .iter()
        .zip(trails)
        .map(|(v, t)| {
            let location = match v.edge {
                Some(e) => files.location(m.edge(e).span),
                None => v
                    .blocked
                    .first()
                    .map(|b| {
                        files.location(
                            m.prog.procs[b.proc].automaton.locations[b.loc.0 as usize].span,
                        )
                    })
                    .unwrap_or_default(),
            };
            let locations = v
                .blocked
                .iter()
                .map(|b| {
                    let p = &m.prog.procs[b.proc];
                    format!(
                        "{}({}) at {}",
                        p.name,
                        b.pid,
                        files.location(p.automaton.locations[b.loc.0 as usize].span)
                    )
                })
                .collect();
            ViolationDoc {
                kind: v.kind.as_str().to_string(),
                location,
                message: v.message.clone(),
                new: true,
                locations,
                elided: t.as_ref().map_or(0, |t| t.steps - t.views.len()),
                trail: t.as_ref().map(|t| {
                    t.views
                        .iter()
                        .map(|s| StepDoc {
                            step: s.step,
                            proc: m.prog.procs[m.edge_proc(s.edge)].name.clone(),
                            pid: s.pid,
                            location: files.location(m.edge(s.edge).span),
                            statement: m.edge(s.edge).text.clone(),
                            changed: s
                                .changed
                                .iter()
                                .map(|(n, v)| (n.clone(), serde_json::Value::from(*v)))
                                .collect(),
                            output: s.output.clone(),
                        })
                        .collect()
                }),
            }
        })
        .collect();
    let mut unreached = Vec::new();
    for (no, &done) in out.executed.iter().enumerate() {
        if done {
            continue;
        }
        let e = m.edge(no as u32);
        let p = &m.prog.procs[m.edge_proc(no as u32)];
        if p.kind == crate::program::ProcKind::Never {
            continue;
        }
        unreached.push(UnreachedDoc {
            proc: p.name.clone(),
            location: files.location(e.span),
            statement: e.text.clone(),
        });
    }
    CheckDoc {
        model: model.to_string(),
        mode: "full".into(),
        base: None,
        algorithm: "full".into(),
        algorithm_reason: String::new(),
        predicted: None,
        verdict: verdict.to_string(),
        complete: out.complete(),
        limit: out.limit.map(|l| l.as_str().to_string()),
        limit_detail: None,
        stopped_by: out.stopped_by.map(|k| k.as_str().to_string()),
        stats: out.stats.clone(),
        dangerous_locations: 0,
        claims_not_checked: m
            .prog
            .procs
            .iter()
            .filter(|p| p.kind == crate::program::ProcKind::Never)
            .map(|p| format!("never {}", p.name))
            .chain(m.prog.ltl.iter().map(|l| format!("ltl {}", l.name)))
            .collect(),
        xr_xs_not_checked: m.prog.has_xr_xs,
        spin_needs_vectorsz_above: (out.stats.state_vector_bytes >= PAN_VECTORSZ)
            .then_some(out.stats.state_vector_bytes),
        violations,
        fixed: Vec::new(),
        unreached,
        record: None,
    }
}

/// A violation's trail as text, each line starting with `indent`. A trail longer than
/// `window` steps shows its first and last `window / 2` (the JSON keeps every step); a
/// trail already cut when it was replayed says how many steps it left out.
pub fn trail_text(v: &ViolationDoc, indent: &str, window: Option<usize>) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let Some(trail) = &v.trail else {
        let _ = writeln!(
            o,
            "{indent}(no trail: only the first trails of each kind are kept; see max_trails)"
        );
        return o;
    };
    let total = trail.len() + v.elided;
    let _ = writeln!(o, "{indent}trail ({total} steps):");
    let half = window.map_or(usize::MAX, |w| w.div_ceil(2).max(1));
    let shown =
        |k: usize| trail.len() <= half.saturating_mul(2) || k < half || k >= trail.len() - half;
    let mut next = 1;
    for (k, s) in trail.iter().enumerate() {
        if !shown(k) {
            continue;
        }
        if s.step > next {
            let _ = writeln!(
                o,
                "{indent}... {} steps not shown (--format json gives the whole trail) ...",
                s.step - next
            );
        }
        next = s.step + 1;
        let changed: Vec<String> = s.changed.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = write!(
            o,
            "{indent}{:>5}  {}({}) {}  {}",
            s.step, s.proc, s.pid, s.location, s.statement
        );
        if !changed.is_empty() {
            let _ = write!(o, "   [{}]", changed.join(", "));
        }
        let _ = writeln!(o);
        if let Some(out) = &s.output {
            for line in out.lines() {
                let _ = writeln!(o, "{indent}       | {line}");
            }
        }
    }
    o
}

/// SPIN-style text of a check.
pub fn text(doc: &CheckDoc, elapsed_s: f64) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "git rmc verify: {} (full state space search for safety, as pan -DSAFETY -DNOCLAIM)",
        doc.model
    );
    if !doc.claims_not_checked.is_empty() {
        let _ = writeln!(
            o,
            "note: not checked yet (safety only): {}",
            doc.claims_not_checked.join(", ")
        );
    }
    if doc.xr_xs_not_checked {
        let _ = writeln!(o, "note: xr/xs channel assertions are not checked");
    }
    if let Some(b) = &doc.base {
        let _ = writeln!(
            o,
            "base {b}: {} ({}); {} states executed, {} walked, {} pruned",
            doc.algorithm,
            doc.algorithm_reason,
            doc.stats.states_executed,
            doc.stats.states_walked,
            doc.stats.states_pruned
        );
    } else if !doc.algorithm_reason.is_empty() {
        let _ = writeln!(o, "{}", doc.algorithm_reason);
    }
    if let Some(n) = doc.spin_needs_vectorsz_above {
        let _ = writeln!(
            o,
            "note: pan's state vector reaches about {n} bytes: spin's pan stops at once unless \
             pan.c is compiled with -DVECTORSZ=N, N > {n} (git rmc has no such limit)"
        );
    }
    let groups = super::verdict::group(doc.violations.iter().map(Into::into));
    for (i, g) in groups.iter().enumerate() {
        let v = &doc.violations[g.members[0]];
        let _ = writeln!(o);
        let since = match (&doc.base, v.new) {
            (None, _) => "",
            (Some(_), true) => " (new)",
            (Some(_), false) => " (also in the base)",
        };
        let note = if g.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", g.note)
        };
        let _ = writeln!(
            o,
            "violation {}: {} [{}] at {}{since}{note}",
            i + 1,
            v.message,
            v.kind,
            v.location
        );
        for l in &v.locations {
            let _ = writeln!(o, "  blocked: {l}");
        }
        o.push_str(&trail_text(v, "  ", None));
    }
    for f in &doc.fixed {
        let _ = writeln!(
            o,
            "\nfixed since the base: {} [{}] (was at {})",
            f.message, f.kind, f.location
        );
    }
    let s = &doc.stats;
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "State-vector {} byte, depth reached {}, errors: {}",
        s.state_vector_bytes,
        s.depth_reached,
        doc.violations.len()
    );
    let _ = writeln!(o, "{:>9} states, stored", s.states_stored);
    let _ = writeln!(o, "{:>9} states, matched", s.states_matched);
    let _ = writeln!(o, "{:>9} transitions (= stored+matched)", s.transitions);
    let _ = writeln!(o, "{:>9} atomic steps", s.atomic_steps);
    if doc.base.is_some() {
        let _ = writeln!(
            o,
            "{:>9} states pruned (not explored: recorded)",
            s.states_pruned
        );
        let _ = writeln!(
            o,
            "{:>9} states walked (successors from the record), {} recorded states executed \
             at the frontier",
            s.states_walked, s.frontier_states
        );
        if s.groups_replayed + s.groups_executed > 0 {
            let _ = writeln!(
                o,
                "{:>9} processes' moves replayed in the states executed, {} executed",
                s.groups_replayed, s.groups_executed
            );
        }
        let _ = writeln!(
            o,
            "{:>9} states executed; record: {} states reused, {} dropped",
            s.states_executed, s.states_reused, s.states_dropped
        );
    }
    let rate = if elapsed_s > 0.0 {
        s.states_stored as f64 / elapsed_s
    } else {
        0.0
    };
    let _ = writeln!(
        o,
        "memory {:.3} MB, elapsed {:.2} s, {:.0} states/s",
        s.peak_memory_bytes as f64 / 1048576.0,
        elapsed_s,
        rate
    );
    if let Some(r) = &doc.record {
        let _ = writeln!(
            o,
            "record: {} ({} states, {} bytes, {:.1} bytes per state)",
            r.path, r.states, r.bytes, r.bytes_per_state
        );
    }
    let mut last_proc = "";
    for u in &doc.unreached {
        if u.proc != last_proc {
            let _ = writeln!(o, "unreached in proctype {}", u.proc);
            last_proc = &u.proc;
        }
        let _ = writeln!(o, "\t{}, \"{}\"", u.location, u.statement);
    }
    let _ = writeln!(o);
    if let Some(k) = &doc.stopped_by {
        let _ = writeln!(
            o,
            "the search was ended by a fatal error ({k}), as pan ends it: the figures are those at that point"
        );
    }
    let why = |l: Option<&str>| match &doc.limit_detail {
        Some(d) => d.sentence(),
        None => format!("the {} limit cut the search", l.unwrap_or("a")),
    };
    match (doc.verdict.as_str(), doc.limit.as_deref()) {
        ("pass", _) => {
            let _ = writeln!(
                o,
                "verdict: {}",
                super::verdict::verdict_words("pass", &doc.claims_not_checked)
            );
        }
        ("fail", None) => {
            let _ = writeln!(o, "verdict: FAIL ({} violations)", doc.violations.len());
        }
        ("fail", Some(l)) => {
            let _ = writeln!(
                o,
                "verdict: FAIL ({} violations; incomplete: {})",
                doc.violations.len(),
                why(Some(l))
            );
        }
        (_, l) => {
            let _ = writeln!(o, "verdict: INCOMPLETE ({}; this is not a pass)", why(l));
        }
    }
    o
}
