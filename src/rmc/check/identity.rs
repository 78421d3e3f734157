//! What identifies a violation from version to version (its kind and stable locations, as
//! records name it), and how a check's violations compare with its base's: which are new,
//! which are gone. Computed here, once, from typed violations.

use std::collections::HashSet;

use xxhash_rust::xxh3::Xxh3Builder;

use crate::explore::machine::Machine;
use crate::rmc::record::{RecViolation, Record};

/// A violation as the record and the base comparison know it.
pub fn rec_violation(m: &Machine, v: &crate::explore::Violation) -> RecViolation {
    let (at, edge, pids) = match v.edge {
        Some(e) if (e as usize) < m.edges.len() => {
            let (l, k) = m.edge_at(e);
            (vec![l], Some(k), v.pid.into_iter().collect())
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
            v.blocked.iter().map(|b| b.pid).collect(),
        ),
    };
    RecViolation {
        kind: v.kind.as_str().to_string(),
        at,
        edge,
        message: v.message.clone(),
        pids,
    }
}

/// Per violation, whether it is new: not in the base (if any) by kind and stable location.
pub fn new_in(current: &[RecViolation], base: Option<&Record>) -> Vec<bool> {
    match base {
        Some(base) => new_against(current, &base.violations),
        None => vec![true; current.len()],
    }
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

/// The identities of `list`, as a set (xxh3: the default hasher cost a check with 10^5
/// violations tens of milliseconds per set).
fn identities(list: &[RecViolation]) -> HashSet<(&str, &[u32], Option<u32>), Xxh3Builder> {
    let mut set = HashSet::with_capacity_and_hasher(list.len(), Xxh3Builder::new());
    set.extend(list.iter().map(identity));
    set
}

/// Marks each of `current` new unless `versus` has it.
pub fn new_against(current: &[RecViolation], versus: &[RecViolation]) -> Vec<bool> {
    let known = identities(versus);
    current
        .iter()
        .map(|v| !known.contains(&identity(v)))
        .collect()
}

/// Those of `base` that `current` lacks.
pub fn gone_from<'a>(current: &[RecViolation], base: &'a [RecViolation]) -> Vec<&'a RecViolation> {
    let present = identities(current);
    base.iter()
        .filter(|b| !present.contains(&identity(b)))
        .collect()
}
