//! What identifies a violation from version to version (its kind and stable locations, as
//! records name it), and how a check's violations compare with its base's: which are new,
//! which are gone. Computed here, once, from typed violations.

use crate::explore::machine::Machine;
use crate::rmc::record::{RecViolation, Record};

/// A violation as the record and the base comparison know it.
pub fn rec_violation(m: &Machine, v: &crate::explore::Violation) -> RecViolation {
    let (at, edge) = match v.edge {
        Some(e) if (e as usize) < m.edges.len() => {
            let (l, k) = m.edge_at(e);
            (vec![l], Some(k))
        }
        _ => (
            v.blocked
                .iter()
                .map(|b| {
                    m.prog.procs[b.proc].automaton.locations[b.loc.0 as usize]
                        .id
                        .0
                })
                .collect(),
            None,
        ),
    };
    RecViolation {
        kind: v.kind.as_str().to_string(),
        at,
        edge,
        message: v.message.clone(),
    }
}

/// How the violations compare with the base's: per violation whether it is new (not in the
/// base by kind and stable location), and the base's violations that are gone.
pub fn compare(current: &[RecViolation], base: Option<&Record>) -> (Vec<bool>, Vec<RecViolation>) {
    let Some(base) = base else {
        return (vec![true; current.len()], Vec::new());
    };
    let same =
        |a: &RecViolation, b: &RecViolation| a.kind == b.kind && a.at == b.at && a.edge == b.edge;
    let new = current
        .iter()
        .map(|v| !base.violations.iter().any(|b| same(v, b)))
        .collect();
    let fixed = base
        .violations
        .iter()
        .filter(|b| !current.iter().any(|v| same(v, b)))
        .cloned()
        .collect();
    (new, fixed)
}
