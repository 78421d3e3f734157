//! Breadth-first paths to violations over the same successor relation as the DFS (atomic
//! sequences included): shortest trails from the initial state, and the rest of a trail from
//! a pruned state whose recorded sub-state-space holds a violation. "The same violation" and
//! "invalid end state" are `property`'s definitions, with the check's own options.

use crate::explore::Blocked;
use std::collections::HashMap;

use super::budget::Budget;
use super::machine::Machine;
use super::outcome::{Options, Outcome, ViolationKind};
use super::property::{self, Key};
use super::search::{
    fault_kind, fault_message_at, flag_at, flag_kind, flag_message, NON_TERMINATING,
};
use super::state::State;
use super::store::Store;
use super::succ::Gen;
use super::trail::TrailStep;

/// A violation reached by a breadth-first search.
#[derive(Clone, Debug)]
pub struct Reached {
    pub steps: Vec<TrailStep>,
    pub message: String,
    /// Invalid end states: the blocked processes, with their pids.
    pub blocked: Vec<Blocked>,
}

/// For each violation of `out` that has a trail, a shortest trail to it (None when not found
/// within the memory limit or within as many states as the depth-first search met; the
/// violation then keeps its depth-first trail).
pub fn shortest_trails(m: &Machine, out: &Outcome, opts: &Options) -> Vec<Option<Vec<TrailStep>>> {
    if m.claim.is_some() {
        // The breadth-first search knows the system's moves only, not the product with a
        // never claim: its trails would leave the claim out. The search's trails stay.
        return vec![None; out.violations.len()];
    }
    let targets: Vec<Option<Key>> = out
        .violations
        .iter()
        .map(|v| v.trail.as_ref().and_then(|_| Key::of(v)))
        .collect();
    // Breadth-first can need far more states than depth-first to reach a deep violation
    // (pan stops at the first fatal error): no more than the DFS met, atomic ones included.
    let bound = (out.stats.states_stored + out.stats.states_matched + out.stats.atomic_steps)
        .saturating_mul(2)
        .saturating_add(1000);
    let found = match Finder::new(opts) {
        Some(mut f) => f.find(m, &out.initial, &targets, opts, Some(bound as usize)),
        None => vec![None; targets.len()],
    };
    found.into_iter().map(|r| r.map(|r| r.steps)).collect()
}

/// Breadth-first searches one after another (`find`) in one visited set, emptied between
/// them: a check that pruned 10^5 states holding violations completes their trails with as
/// many small searches, and a set allocated, faulted in and freed for each cost most of it.
pub struct Finder {
    store: Store,
}

impl Finder {
    /// None: not even an empty visited set fits the memory limit.
    pub fn new(opts: &Options) -> Option<Finder> {
        Some(Finder {
            store: Store::new(Budget::new(opts.memory_limit)).ok()?,
        })
    }

    /// Breadth-first from the stored state `start` (not inside an atomic sequence), a
    /// shortest path to each target violation, looking at no more than `max_nodes` states.
    pub fn find(
        &mut self,
        m: &Machine,
        start: &[u8],
        targets: &[Option<Key>],
        opts: &Options,
        max_nodes: Option<usize>,
    ) -> Vec<Option<Reached>> {
        let store = &mut self.store;
        store.clear();
        let mut found: Vec<Option<Reached>> = vec![None; targets.len()];
        // Per violation wanted, the targets that name it (a pruned state's search may want
        // 10^5 of them: settling one must not look at the others).
        let mut wanted: HashMap<Key, Vec<usize>> = HashMap::new();
        for (i, t) in targets.iter().enumerate() {
            if let Some(t) = t {
                wanted.entry(t.clone()).or_default().push(i);
            }
        }
        if wanted.is_empty() {
            return found;
        }
        // Node i: its state is store entry i (atomic owner byte first), reached from `parent`.
        let mut nodes: Vec<(u32, Option<TrailStep>)> = Vec::new();
        let mut key = Vec::new();
        key.push(0xff);
        key.extend_from_slice(start);
        if store.insert(&key).is_err() {
            return found;
        }
        nodes.push((u32::MAX, None));
        let mut st = State::default();
        let mut g = Gen::default();
        let mut blocked = Vec::new();
        let mut head = 0usize;
        let path = |nodes: &Vec<(u32, Option<TrailStep>)>, mut i: u32, last: Option<TrailStep>| {
            let mut steps: Vec<TrailStep> = last.into_iter().collect();
            while let Some(&(p, Some(s))) = nodes.get(i as usize) {
                steps.push(s);
                i = p;
            }
            steps.reverse();
            steps
        };
        // A target reached (the caller took it out of `wanted`): every violation that has it.
        let mut settle =
            |at: Vec<usize>, steps: Vec<TrailStep>, message: String, blocked: Vec<Blocked>| {
                let r = Reached {
                    steps,
                    message,
                    blocked,
                };
                for i in at {
                    found[i] = Some(r.clone());
                }
            };
        while head < nodes.len() && !wanted.is_empty() && max_nodes.is_none_or(|n| nodes.len() < n)
        {
            let id = head as u32;
            head += 1;
            let bytes = store.get(id);
            let owner = bytes[0];
            st.load(&m.layout, &bytes[1..]);
            g.clear();
            let mut n = 0;
            if owner != 0xff {
                n = m.successors(&st, Some(owner as usize), &mut g);
            }
            if n == 0 {
                n = m.successors(&st, None, &mut g);
                if n == 0 && opts.end_states && property::invalid_end(m, &st, opts, &mut blocked) {
                    let t = Key::End(blocked.iter().map(|b| (b.proc as u32, b.loc.0)).collect());
                    if let Some(at) = wanted.remove(&t) {
                        let message = property::end_message(m, &blocked);
                        settle(at, path(&nodes, id, None), message, blocked.clone());
                    }
                }
            }
            // The errors steps reported: completed ones, and failed ones before their fault (an
            // assertion inside a d_step that then blocked).
            let reported = (g.faults.iter().map(|f| (f.step(), f.flag)))
                .chain(g.items.iter().map(|it| (it.step(), it.flag)));
            for (step, flag) in reported {
                for flag in flag.into_iter().flat_map(super::exec::Flag::parts) {
                    let edge = flag_at(flag, &step).1;
                    let t = Key::Edge(flag_kind(flag), edge);
                    if let Some(at) = wanted.remove(&t) {
                        let message = flag_message(m, flag, edge);
                        settle(at, path(&nodes, id, Some(step)), message, Vec::new());
                    }
                }
            }
            for f in &g.faults {
                let step = f.step();
                let edge = property::fault_at(&step).1;
                let t = Key::Edge(fault_kind(&f.fault), edge);
                if let Some(at) = wanted.remove(&t) {
                    let message = fault_message_at(m, &f.fault, edge);
                    settle(at, path(&nodes, id, Some(step)), message, Vec::new());
                }
            }
            for it in &g.items {
                let step = it.step();
                if it.atomic && repeats(store, &nodes, id, g.bytes_of(it)) {
                    let t = Key::Edge(ViolationKind::NonTerminatingAtomic, it.edge);
                    if let Some(at) = wanted.remove(&t) {
                        let steps = path(&nodes, id, Some(step));
                        settle(at, steps, NON_TERMINATING.into(), Vec::new());
                    }
                    continue;
                }
                key.clear();
                key.push(if it.atomic { it.mover() } else { 0xff });
                key.extend_from_slice(g.bytes_of(it));
                match store.insert(&key) {
                    Ok((_, true)) => nodes.push((id, Some(step))),
                    Ok(_) => {}
                    Err(_) => return found,
                }
            }
        }
        found
    }
}

/// Whether `next` already occurs on the path to node `id` within its atomic run (the nodes
/// inside the run and the one it started from), as the DFS defines a non-terminating atomic
/// sequence.
fn repeats(store: &Store, nodes: &[(u32, Option<TrailStep>)], mut id: u32, next: &[u8]) -> bool {
    loop {
        let b = store.get(id);
        if &b[1..] == next {
            return true;
        }
        if b[0] == 0xff {
            return false;
        }
        match nodes.get(id as usize) {
            Some(&(p, _)) if p != u32::MAX => id = p,
            _ => return false,
        }
    }
}
