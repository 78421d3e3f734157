//! The trails of violations reported again from pruned states: the path so far, then a
//! breadth-first path through the pruned state's unchanged sub-state-space.

use crate::explore::machine::Machine;
use crate::explore::property::Key;
use crate::explore::{Options, Outcome, ViolationKind};

/// A trail reported from a pruned state could not be completed: the recorded sub-state-space
/// did not hold the violation. A bug, never the model's fault.
#[derive(Debug, thiserror::Error)]
#[error("the recorded {kind} violation was not found again below the pruned state")]
pub struct LostViolation {
    pub kind: &'static str,
}

/// Completes the violations reported from pruned states: the rest of each trail is a
/// breadth-first path from the pruned state through its unchanged sub-state-space, and the
/// message and blocked processes are those found there.
pub fn complete_trails(
    m: &Machine,
    out: &mut Outcome,
    opts: &Options,
) -> Result<(), LostViolation> {
    // One search per pruned state, for all the violations reported from it (grouped by a
    // map: a model can have 10^5 violations reported from pruned states).
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_via: std::collections::HashMap<&[u8], usize, xxhash_rust::xxh3::Xxh3Builder> =
        std::collections::HashMap::default();
    for (i, v) in out.violations.iter().enumerate() {
        if let Some(via) = v.via.as_deref() {
            let g = *by_via.entry(via).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
        }
    }
    drop(by_via);
    let mut finder = crate::explore::shortest::Finder::new(opts);
    for group in groups {
        let via = out.violations[group[0]].via.clone().unwrap_or_default();
        let targets: Vec<Option<Key>> =
            group.iter().map(|&j| Key::of(&out.violations[j])).collect();
        let found = match &mut finder {
            Some(f) => f.find(m, &via, &targets, opts, None),
            None => vec![None; targets.len()],
        };
        for (&j, f) in group.iter().zip(found) {
            let v = &mut out.violations[j];
            let Some(f) = f else {
                return Err(LostViolation {
                    kind: v.kind.as_str(),
                });
            };
            if let Some(t) = &mut v.trail {
                t.extend_from_slice(&f.steps);
            }
            v.message = f.message;
            if matches!(
                v.kind,
                ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete
            ) {
                v.blocked = f.blocked;
            }
            v.pid = f.steps.last().map(|s| s.rv.map_or(s.pid, |(q, _)| q));
            v.via = None;
        }
    }
    Ok(())
}
