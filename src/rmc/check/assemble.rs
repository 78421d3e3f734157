//! The record a complete run leaves for the next check: every state it stored with its set,
//! the old states a pruning run did not reach but that are still valid, carried across a
//! layout change where needed, and the state graph as traversed (DESIGN.md 5.2, 5.4).

use std::collections::HashMap;

use xxhash_rust::xxh3::Xxh3Builder;

use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::{Fingerprint, Options};
use crate::program::LocId;
use crate::rmc::diff::ids::StableIds;
use crate::rmc::record::elements::Element;
use crate::rmc::record::{Meta, RecStep, Record, Sources, SEMANTICS};

use super::base::{checks_of, prunable, Base};
use super::execute::Run;
use super::identity::rec_violation;

/// The record a complete run leaves: every state it stored with its set (fresh for
/// explored states, the old one for pruned states), plus the old records whose set misses
/// the dangerous locations (still valid although this run did not reach them). None when
/// the run was cut by a limit or ended by a fatal error.
pub fn record(
    m: &Machine,
    ids: &StableIds,
    run: &mut Run,
    base: Option<&Base>,
    sources: Sources,
    opts: &Options,
) -> Option<Record> {
    if !run.outcome.complete() {
        return None;
    }
    if let Some(u) = run.unchanged.take() {
        // The old record under the new sources and ids: its states, sets and graph hold.
        let u = *u;
        return Some(Record {
            meta: Meta {
                semantics: SEMANTICS,
                checks: checks_of(opts),
                layout_hash: m.layout.hash,
                figures: u.figures,
                prunable: prunable(m.prog),
                executed: u.executed_stable,
            },
            sources,
            ids: ids.clone(),
            elements: u.elements,
            sets: u.sets,
            fingerprints: u.fingerprints,
            set_of: u.set_of,
            violations: recorded_violations(m, &run.outcome),
            trails: recorded_trails(m, &run.outcome),
            graph: Some(u.graph),
        });
    }
    let mut builder = std::mem::take(&mut run.recorder.book.graph);
    // (Moved: the book is done with them.)
    let mut table = Table::new(
        std::mem::take(&mut run.recorder.book.elements.list),
        std::mem::take(&mut run.recorder.book.sets.sets),
    );
    let rec = &run.recorder;
    let (Some(fps), Some(sets_of)) = (&rec.book.fingerprints, &rec.book.set_of) else {
        return None;
    };
    // (fingerprint, set, slot in the new graph)
    let mut states: Vec<(Fingerprint, u32, u32)> = fps
        .iter()
        .zip(sets_of.iter())
        .enumerate()
        .map(|(i, (f, s))| (Fingerprint::from_kept_words(f), s, builder.slot(i as u32)))
        .collect();
    let pruned = rec.prune().is_some();
    // (A full check reuses nothing, and may not have read the recorded states at all.)
    let reused = pruned || rec.replay.is_some();
    let mut carried = 0u64;
    let mut met = rec.old_states_met_bits().map(<[u64]>::to_vec);
    let graph = if pruned {
        sort_by_fingerprint(&mut states);
        carry_pruned(
            &mut builder,
            &mut table,
            run,
            base,
            m,
            &mut states,
            &mut met,
            &mut carried,
        );
        states.dedup_by_key(|s| s.0);
        let slot_of: Vec<u32> = states.iter().map(|s| s.2).collect();
        // The old graph's bytes go in front of the new ones (moved, not copied).
        builder.join(run.recorder.take_old_graph());
        builder.finish(slot_of)
    } else {
        builder.join(run.recorder.take_old_graph());
        finish_beside_sort(builder, &mut states)
    };
    if let Some(base) = base.filter(|_| reused) {
        // Across a layout change, the old states met through their projection; else both
        // lists are sorted: one merge.
        let (mut j, mut still) = (0, 0u64);
        if let Some(met) = &met {
            still = met.iter().map(|w| w.count_ones() as u64).sum();
        } else {
            for fp in base.record.fingerprints.iter() {
                while j < states.len() && states[j].0 < *fp {
                    j += 1;
                }
                still += u64::from(states.get(j).is_some_and(|s| s.0 == *fp));
            }
        }
        let st = &mut run.outcome.stats;
        st.states_dropped = base.record.fingerprints.len() as u64 - still;
        st.states_reused = st.states_walked + st.states_pruned + carried;
    }
    // SPIN's figures only: a record's bytes depend on the model and the checks, never on
    // the machine (time, memory).
    let s = &run.outcome.stats;
    let figures = serde_json::json!({
        "states_stored": s.states_stored,
        "states_matched": s.states_matched,
        "transitions": s.transitions,
        "atomic_steps": s.atomic_steps,
        "depth_reached": s.depth_reached,
        "state_vector_bytes": s.state_vector_bytes,
        "vector_bytes": s.vector_bytes,
        "states_pruned": s.states_pruned,
        "sccs": s.sccs,
        "largest_scc": s.largest_scc,
    });
    Some(Record {
        meta: Meta {
            semantics: SEMANTICS,
            checks: checks_of(opts),
            layout_hash: m.layout.hash,
            figures,
            prunable: prunable(m.prog),
            executed: executed_stable(m, &run.outcome.executed),
        },
        sources,
        ids: ids.clone(),
        elements: table.elements,
        sets: table.sets,
        fingerprints: std::sync::Arc::new(states.iter().map(|s| s.0).collect()),
        set_of: states.iter().map(|s| s.1).collect(),
        graph,
        violations: recorded_violations(m, &run.outcome),
        trails: recorded_trails(m, &run.outcome),
    })
}

/// The graph of a run that pruned nothing, its bytes written while `states` are sorted by
/// fingerprint (and made distinct) on a second thread: neither waits for the other until
/// the graph takes each state's slot.
fn finish_beside_sort(
    builder: crate::rmc::record::graph_build::GraphBuilder,
    states: &mut Vec<(Fingerprint, u32, u32)>,
) -> Option<crate::rmc::record::graph::Graph> {
    let arrange = |states: &mut Vec<(Fingerprint, u32, u32)>| {
        sort_by_fingerprint(states);
        states.dedup_by_key(|s| s.0);
    };
    let (sorted, finished) = crate::rmc::beside::beside(
        "git-rmc-sort",
        || arrange(&mut *states),
        || builder.finish_graph(),
    );
    if sorted.is_none() {
        // (No thread, or it failed: sorted here. A sort stopped halfway leaves the same
        // states in another order, none lost.)
        arrange(states);
    }
    let slot_of: Vec<u32> = states.iter().map(|s| s.2).collect();
    finished?.with(slot_of)
}

/// What a pruning run adds to the record beside the states it stored (`states`, sorted by
/// fingerprint): the old states below its pruned ones, still reachable (`carried`), by the
/// old graph or, across a layout change, carried into the new layout (`met` marks the old
/// states met).
#[allow(clippy::too_many_arguments)]
fn carry_pruned(
    builder: &mut crate::rmc::record::graph_build::GraphBuilder,
    table: &mut Table,
    run: &Run,
    base: Option<&Base>,
    m: &Machine,
    states: &mut Vec<(Fingerprint, u32, u32)>,
    met: &mut Option<Vec<u64>>,
    carried: &mut u64,
) {
    let rec = &run.recorder;
    let old_graph = rec.prune().and_then(|p| p.graph.as_ref());
    // With the old graph, the old states a pruning run did not reach but that are still
    // reachable are known: those below its pruned states (carried, in their slots). The
    // others are dropped, as a replay drops what it does not reach. Without it, every old
    // state whose set misses the change is kept.
    if let Some(g) = old_graph {
        let mut todo: Vec<u32> = builder.verbatim_slots().to_vec();
        let mut blocked = Vec::new();
        while let Some(s) = todo.pop() {
            let b = g.events_of(s);
            let mut at = 0;
            while at < b.len() {
                let Some(ev) =
                    crate::rmc::record::graph::decode_event(b, s, &mut at, &mut blocked, Some)
                else {
                    builder.broken = true;
                    break;
                };
                let Some(leaf) = ev.target() else {
                    continue;
                };
                if (leaf as usize) < g.len() && !builder.is_live(leaf) {
                    builder.carry(leaf);
                    todo.push(leaf);
                }
            }
        }
    }
    // (Not when the layout changed: the record's fingerprints are of its own layout.)
    if let (Some(base), Some(prune)) = (base, rec.prune().filter(|p| p.project.is_none())) {
        // Accumulate: old states this run did not reach whose set is still valid. Both
        // lists are sorted by fingerprint: one merge, no lookups.
        let r = &base.record;
        // Per old set: its id here (NONE until met).
        let mut translated = vec![crate::rmc::record::graph::NONE; r.sets.len()];
        let mut kept = Vec::new();
        let mut i = 0;
        for (k, &fp) in r.fingerprints.iter().enumerate() {
            let old = r.set_of[k];
            while i < states.len() && states[i].0 < fp {
                i += 1;
            }
            if prune.meets_danger[old as usize] || states.get(i).is_some_and(|s| s.0 == fp) {
                continue;
            }
            let slot = match old_graph {
                Some(g) => {
                    let o = g.slot_of[k];
                    if o == crate::rmc::record::graph::NONE || !builder.is_live(o) {
                        continue;
                    }
                    o
                }
                None => crate::rmc::record::graph::NONE,
            };
            let Some(known) = table.adopt(r, old, &mut translated) else {
                continue;
            };
            kept.push((fp, known, slot));
            *carried += 1;
        }
        *states = merge(std::mem::take(states), kept);
    }
    // Across a layout change: the recorded states below the pruned ones, re-keyed.
    if let (Some(base), Some(prune), Some(c)) = (base, rec.prune(), rec.carry.as_ref()) {
        if let (Some((ext, _)), Some(g)) = (&prune.project, &prune.across) {
            let r = &base.record;
            let mut position = vec![crate::rmc::record::graph::NONE; g.len()];
            for (k, &slot) in g.slot_of.iter().enumerate() {
                if let Some(p) = position.get_mut(slot as usize) {
                    *p = k as u32;
                }
            }
            let mut translated = vec![crate::rmc::record::graph::NONE; r.sets.len()];
            let mut kept = Vec::new();
            let complete = c.states(ext, g, m.layout.hash, |fp, slot| {
                let k = position[slot as usize] as usize;
                if let Some(set) = r
                    .set_of
                    .get(k)
                    .and_then(|&old| table.adopt(r, old, &mut translated))
                {
                    kept.push((fp, set, crate::rmc::record::graph::NONE));
                    if let Some(w) = met.as_mut().and_then(|b| b.get_mut(k / 64)) {
                        *w |= 1 << (k % 64);
                    }
                }
            });
            // (Never expected: what a pruned state stands for is carried exactly.)
            debug_assert!(complete, "a pruned part of the state space was not carried");
            sort_by_fingerprint(&mut kept);
            kept.dedup_by_key(|s| s.0);
            // A state the search stored keeps its own set.
            let mut i = 0;
            kept.retain(|s| {
                while i < states.len() && states[i].0 < s.0 {
                    i += 1;
                }
                states.get(i).is_none_or(|t| t.0 != s.0)
            });
            *carried += kept.len() as u64;
            *states = merge(std::mem::take(states), kept);
        }
    }
}

/// The run's violations as the record names them (by stable places).
fn recorded_violations(
    m: &Machine,
    out: &crate::explore::Outcome,
) -> Vec<crate::rmc::record::RecViolation> {
    out.violations.iter().map(|v| rec_violation(m, v)).collect()
}

/// Steps of trails a record keeps at most, over all its violations: beyond that (a model
/// with thousands of distinct deadlocks) it keeps none, and a later version with the same
/// state graph searches again rather than read megabytes of trails.
const MAX_TRAIL_STEPS: usize = 1 << 16;

/// The violations' trails as the record keeps them (`Record::trails`): each one's, by
/// stable edges (None for one reported without a trail, past its kind's limit), when the
/// whole search found them (none was reported from a pruned state) and together they are
/// short enough; else none.
fn recorded_trails(m: &Machine, out: &crate::explore::Outcome) -> Vec<Option<Vec<RecStep>>> {
    let whole = out.stats.states_pruned == 0 && out.violations.iter().all(|v| v.via.is_none());
    let steps: usize = out
        .violations
        .iter()
        .map(|v| v.trail.as_ref().map_or(0, Vec::len))
        .sum();
    if !whole || steps > MAX_TRAIL_STEPS {
        return Vec::new();
    }
    let at = |e: EdgeNo| m.edge_at(e);
    out.violations
        .iter()
        .map(|v| {
            let t = v.trail.as_ref()?;
            let steps = t
                .iter()
                .map(|s| {
                    let (loc, k) = at(s.edge);
                    RecStep(
                        s.pid,
                        loc,
                        k,
                        s.rv.map(|(q, e)| {
                            let (l, k) = at(e);
                            (q, l, k)
                        }),
                    )
                })
                .collect();
            Some(steps)
        })
        .collect()
}

/// The edges marked executed, as (stable location, index there), sorted.
fn executed_stable(m: &Machine, executed: &[bool]) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = executed
        .iter()
        .enumerate()
        .filter(|(_, &x)| x)
        .map(|(no, _)| m.edge_at(no as EdgeNo))
        .collect();
    v.sort_unstable();
    v
}

/// Sorts by fingerprint: one bucket pass on the top 16 bits (fingerprints are uniformly
/// distributed), then each small bucket.
fn sort_by_fingerprint(v: &mut Vec<(Fingerprint, u32, u32)>) {
    if v.len() < 1 << 12 {
        v.sort_unstable_by_key(|s| s.0);
        return;
    }
    let bucket = |s: &(Fingerprint, u32, u32)| s.0.top(16);
    let mut counts = vec![0usize; (1 << 16) + 1];
    for s in v.iter() {
        counts[bucket(s) + 1] += 1;
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let mut out = vec![(Fingerprint::default(), 0u32, 0u32); v.len()];
    let mut at = counts.clone();
    for s in v.iter() {
        let b = bucket(s);
        out[at[b]] = *s;
        at[b] += 1;
    }
    for w in counts.windows(2) {
        out[w[0]..w[1]].sort_unstable_by_key(|s| s.0);
    }
    *v = out;
}

/// The elements and sets of a record being written, which old records' sets are adopted
/// into.
struct Table {
    elements: Vec<Element>,
    sets: Vec<Vec<u32>>,
    /// Built at the first adoption: a run that adopts nothing (every recording run) does not
    /// pay for them (10^5 sets and elements on a model with as many distinct deadlocks).
    index: Option<Index>,
}

struct Index {
    elements: HashMap<Element, u32, Xxh3Builder>,
    sets: HashMap<Vec<u32>, u32, Xxh3Builder>,
}

impl Table {
    fn new(elements: Vec<Element>, sets: Vec<Vec<u32>>) -> Table {
        Table {
            elements,
            sets,
            index: None,
        }
    }

    /// The id here of set `old` of record `r` (`translated` remembers, per old set, its id
    /// here: NONE until adopted). None: `r` has no such set.
    fn adopt(&mut self, r: &Record, old: u32, translated: &mut [u32]) -> Option<u32> {
        let known = translated.get_mut(old as usize)?;
        if *known == crate::rmc::record::graph::NONE {
            let (elements, sets) = (&mut self.elements, &mut self.sets);
            let index = self.index.get_or_insert_with(|| Index {
                elements: (elements.iter().enumerate())
                    .map(|(i, e)| (e.clone(), i as u32))
                    .collect(),
                sets: (sets.iter().enumerate())
                    .map(|(i, s)| (s.clone(), i as u32))
                    .collect(),
            });
            let mut s: Vec<u32> = r
                .sets
                .get(old as usize)?
                .iter()
                .map(|&e| {
                    let el = &r.elements[e as usize];
                    *index.elements.entry(el.clone()).or_insert_with(|| {
                        elements.push(el.clone());
                        elements.len() as u32 - 1
                    })
                })
                .collect();
            s.sort_unstable();
            *known = *index.sets.entry(s.clone()).or_insert_with(|| {
                sets.push(s);
                sets.len() as u32 - 1
            });
        }
        Some(*known)
    }
}

/// Two lists sorted by fingerprint, as one.
fn merge(
    a: Vec<(Fingerprint, u32, u32)>,
    b: Vec<(Fingerprint, u32, u32)>,
) -> Vec<(Fingerprint, u32, u32)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].0 <= b[j].0 {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The stable location ids a record's set holds for a state (for tests and tools).
pub fn set_locations(r: &Record, fp: Fingerprint) -> Option<Vec<LocId>> {
    let i = r.fingerprints.binary_search(&fp).ok()?;
    let set = &r.sets[r.set_of[i] as usize];
    Some(
        set.iter()
            .filter_map(|&e| match &r.elements[e as usize] {
                Element::Location(l) => Some(LocId(*l)),
                _ => None,
            })
            .collect(),
    )
}
