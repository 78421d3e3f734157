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
    let pending: Vec<usize> = (0..out.violations.len())
        .filter(|&i| out.violations[i].via.is_some())
        .collect();
    // One search per pruned state, for all the violations reported from it.
    let mut done = vec![false; out.violations.len()];
    for &i in &pending {
        if done[i] {
            continue;
        }
        let via = out.violations[i].via.clone().unwrap_or_default();
        let group: Vec<usize> = pending
            .iter()
            .copied()
            .filter(|&j| !done[j] && out.violations[j].via.as_deref() == Some(&via[..]))
            .collect();
        let targets: Vec<Option<Key>> =
            group.iter().map(|&j| Key::of(&out.violations[j])).collect();
        let found = crate::explore::shortest::find(m, &via, &targets, opts, None);
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
            done[j] = true;
        }
    }
    Ok(())
}
