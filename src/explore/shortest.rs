//! Shortest trails: a breadth-first search over the same successor relation as the DFS
//! (atomic sequences included) that finds, for each violation the DFS reported, a shortest
//! path from the initial state to the same violation.

use std::collections::HashSet;

use super::machine::{EdgeNo, Machine};
use super::search::{fault_kind, flag_kind, Outcome, ViolationKind};
use super::state::State;
use super::store::Store;
use super::succ::Gen;
use super::trail::TrailStep;

/// What identifies a violation across searches.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Target {
    Edge(ViolationKind, EdgeNo),
    End(Vec<(usize, u32)>),
}

/// For each violation of `out`, a shortest trail to it (None when not found, e.g. for a
/// non-terminating atomic sequence, which keeps its depth-first trail).
pub fn shortest_trails(m: &Machine, out: &Outcome) -> Vec<Option<Vec<TrailStep>>> {
    let targets: Vec<Option<Target>> = out
        .violations
        .iter()
        .map(|v| match (v.kind, v.edge) {
            (ViolationKind::NonTerminatingAtomic, _) => None,
            (ViolationKind::InvalidEndState, _) => Some(Target::End(
                v.blocked.iter().map(|&(_, t, l)| (t, l)).collect(),
            )),
            (k, Some(e)) => Some(Target::Edge(k, e)),
            (_, None) => None,
        })
        .collect();
    let mut found: Vec<Option<Vec<TrailStep>>> = vec![None; targets.len()];
    let mut wanted: HashSet<Target> = targets.iter().flatten().cloned().collect();
    if wanted.is_empty() {
        return found;
    }
    // Node i: its state is store entry i (atomic owner byte first), reached from `parent`.
    let mut store = Store::new();
    let mut nodes: Vec<(u32, Option<TrailStep>)> = Vec::new();
    let mut key = Vec::new();
    key.push(0xff);
    key.extend_from_slice(&out.initial);
    store.insert(&key);
    nodes.push((u32::MAX, None));
    let mut st = State::default();
    let mut g = Gen::default();
    let mut head = 0usize;
    let path = |nodes: &Vec<(u32, Option<TrailStep>)>, mut i: u32, last: TrailStep| {
        let mut steps = vec![last];
        while let Some(&(p, Some(s))) = nodes.get(i as usize) {
            steps.push(s);
            i = p;
        }
        steps.reverse();
        steps
    };
    while head < nodes.len() && !wanted.is_empty() {
        let id = head as u32;
        head += 1;
        let bytes = store.get(id).to_vec();
        let owner = bytes[0];
        st.load(&m.layout, &bytes[1..]);
        g.clear();
        let mut n = 0;
        if owner != 0xff {
            n = m.successors(&st, Some(owner as usize), &mut g);
        }
        if n == 0 {
            n = m.successors(&st, None, &mut g);
            if n == 0 {
                let blocked: Vec<(usize, u32)> = (0..st.nr_pr())
                    .filter(|&p| !m.location(&st, p).is_some_and(|l| l.end))
                    .map(|p| (st.ptype(p), m.loc_no(&st, p)))
                    .collect();
                let t = Target::End(blocked);
                if wanted.remove(&t) {
                    let trail = match nodes[head - 1] {
                        (p, Some(s)) => path(&nodes, p, s),
                        _ => Vec::new(),
                    };
                    settle(&targets, &mut found, &t, trail);
                }
            }
        }
        for f in &g.faults {
            let t = Target::Edge(fault_kind(&f.fault), f.edge);
            if wanted.remove(&t) {
                let step = TrailStep {
                    pid: f.pid,
                    edge: f.edge,
                    rv: f.rv,
                };
                settle(&targets, &mut found, &t, path(&nodes, id, step));
            }
        }
        for it in &g.items {
            let step = TrailStep {
                pid: it.pid,
                edge: it.edge,
                rv: it.rv,
            };
            if let Some(flag) = it.flag {
                let t = Target::Edge(flag_kind(flag), it.edge);
                if wanted.remove(&t) {
                    settle(&targets, &mut found, &t, path(&nodes, id, step));
                }
            }
            key.clear();
            key.push(if it.atomic { it.mover() } else { 0xff });
            key.extend_from_slice(g.bytes_of(it));
            if store.insert(&key).1 {
                nodes.push((id, Some(step)));
            }
        }
    }
    found
}

fn settle(
    targets: &[Option<Target>],
    found: &mut [Option<Vec<TrailStep>>],
    t: &Target,
    trail: Vec<TrailStep>,
) {
    for (i, x) in targets.iter().enumerate() {
        if x.as_ref() == Some(t) {
            found[i] = Some(trail.clone());
        }
    }
}
