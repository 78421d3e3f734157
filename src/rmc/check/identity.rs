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
    let new = new_against(current, &base.violations);
    let fixed = gone_from(current, &base.violations)
        .into_iter()
        .cloned()
        .collect();
    (new, fixed)
}

/// Whether two violations are one from version to version: the same kind at the same
/// stable locations (and edge there). Messages hold values, which other changes can alter.
pub fn same(a: &RecViolation, b: &RecViolation) -> bool {
    identity(a) == identity(b)
}

/// What `same` compares, as a key for a set: a model can have 10^5 distinct violations, so
/// the comparisons below look each one up instead of scanning the other list.
fn identity(v: &RecViolation) -> (&str, &[u32], Option<u32>) {
    (v.kind.as_str(), v.at.as_slice(), v.edge)
}

/// Marks each of `current` new unless `versus` has it.
pub fn new_against(current: &[RecViolation], versus: &[RecViolation]) -> Vec<bool> {
    let known: std::collections::HashSet<_> = versus.iter().map(identity).collect();
    current
        .iter()
        .map(|v| !known.contains(&identity(v)))
        .collect()
}

/// Those of `base` that `current` lacks.
pub fn gone_from<'a>(current: &[RecViolation], base: &'a [RecViolation]) -> Vec<&'a RecViolation> {
    let present: std::collections::HashSet<_> = current.iter().map(identity).collect();
    base.iter()
        .filter(|b| !present.contains(&identity(b)))
        .collect()
}
