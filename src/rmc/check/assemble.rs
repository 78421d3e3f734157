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
    if run.recorder.book.lost {
        // (A walked state's vector could not be made through the map: no record is whole.)
        return None;
    }
    let mut builder = std::mem::take(&mut run.recorder.book.graph);
    // (Moved: the book is done with them.)
    let mut table = Table::new(
        std::mem::take(&mut run.recorder.book.elements.list),
        std::mem::take(&mut run.recorder.book.sets.sets),
    );
    // (Taken: the book's copies go as soon as `states` holds them.)
    let book = &mut run.recorder.book;
    let (Some(fps), Some(sets_of)) = (book.fingerprints.take(), book.set_of.take()) else {
        return None;
    };
    let mut states: Vec<St> = fps
        .iter()
        .zip(sets_of.iter())
        .enumerate()
        .map(|(i, (f, s))| St {
            fp: f,
            set: s,
            slot: builder.slot(i as u32),
        })
        .collect();
    drop((fps, sets_of));
    let rec = &run.recorder;
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
        states.dedup_by_key(|s| s.fp);
        let slot_of: Vec<u32> = states.iter().map(|s| s.slot).collect();
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
                while j < states.len() && states[j].fp() < *fp {
                    j += 1;
                }
                still += u64::from(states.get(j).is_some_and(|s| s.fp() == *fp));
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
        fingerprints: std::sync::Arc::new(states.iter().map(St::fp).collect()),
        set_of: states.iter().map(|s| s.set).collect(),
        graph,
        violations: recorded_violations(m, &run.outcome),
        trails: recorded_trails(m, &run.outcome),
    })
}

/// Bytes the assembly of a record holds at its peak (as it writes the file) per state or
/// slot, beside its events and vectors: the finished graph's tables (footprint, shape, the
/// spans of events and vector: 24), its states' slots, fingerprints and sets (24), and the
/// `STAT` section and slot table compressed (about 24). Measured: filter_lock N=4 (11.66M
/// states, 533 MB of events and vectors) peaks at 1.72 GB resident, the program's own
/// included, which this puts at 1.64 GB.
const ASSEMBLY_PER_STATE: u64 = 72;

/// Whether the record of a complete recording, pruning or replaying run can be assembled
/// within the run's memory limit: its events and vectors, held compressed while the search
/// ran, are decompressed and compressed again for the file (half as much again), beside
/// `ASSEMBLY_PER_STATE` bytes a state. The search's visited set is gone by then; what the
/// run held beside it (a base record) is not. Err says why not: then no record is kept, and
/// the verdict stands.
pub fn fits(run: &Run) -> Result<(), String> {
    let rec = &run.recorder;
    if !run.outcome.complete() || run.unchanged.is_some() {
        return Ok(());
    }
    let Some(limit) = rec.budget().and_then(|b| b.limit()) else {
        return Ok(());
    };
    let (slots, raw) = rec.book.graph.size();
    let states = rec.book.fingerprints.as_ref().map_or(0, |f| f.len() as u64);
    let need = ASSEMBLY_PER_STATE * slots.max(states) + raw + raw / 2;
    if rec.held.saturating_add(need) <= limit {
        return Ok(());
    }
    let mb = |b: u64| format!("{:.0} MB", b as f64 / 1e6);
    Err(format!(
        "assembling it would take about {}{}, past the memory limit of {} (the verdict \
         stands; a larger --memory-limit keeps it)",
        mb(need),
        match rec.held {
            0 => String::new(),
            h => format!(" beside the {} the run holds", mb(h)),
        },
        mb(limit)
    ))
}

/// The graph of a run that pruned nothing, its bytes written while `states` are sorted by
/// fingerprint (and made distinct) on a second thread: neither waits for the other until
/// the graph takes each state's slot.
fn finish_beside_sort(
    builder: crate::rmc::record::graph_build::GraphBuilder,
    states: &mut Vec<St>,
) -> Option<crate::rmc::record::graph::Graph> {
    let arrange = |states: &mut Vec<St>| {
        sort_by_fingerprint(states);
        states.dedup_by_key(|s| s.fp);
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
    let slot_of: Vec<u32> = states.iter().map(|s| s.slot).collect();
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
    states: &mut Vec<St>,
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
            while i < states.len() && states[i].fp() < fp {
                i += 1;
            }
            if prune.meets_danger[old as usize] || states.get(i).is_some_and(|s| s.fp() == fp) {
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
            kept.push(St::new(fp, known, slot));
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
                    kept.push(St::new(fp, set, crate::rmc::record::graph::NONE));
                    if let Some(w) = met.as_mut().and_then(|b| b.get_mut(k / 64)) {
                        *w |= 1 << (k % 64);
                    }
                }
            });
            // (Never expected: what a pruned state stands for is carried exactly.)
            debug_assert!(complete, "a pruned part of the state space was not carried");
            sort_by_fingerprint(&mut kept);
            kept.dedup_by_key(|s| s.fp);
            // A state the search stored keeps its own set.
            let mut i = 0;
            kept.retain(|s| {
                while i < states.len() && states[i].fp() < s.fp() {
                    i += 1;
                }
                states.get(i).is_none_or(|t| t.fp != s.fp)
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

/// A state of the record being assembled: its fingerprint's kept bits (`kept_words`), its
/// set and its slot in the new graph. Twenty bytes where `(Fingerprint, u32, u32)` takes 32
/// (a `u128` aligns to 16): the assembly holds one per state beside the graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct St {
    fp: [u32; 3],
    set: u32,
    slot: u32,
}

impl St {
    fn new(fp: Fingerprint, set: u32, slot: u32) -> St {
        St {
            fp: fp.kept_words(),
            set,
            slot,
        }
    }

    #[inline]
    fn fp(&self) -> Fingerprint {
        Fingerprint::from_kept_words(self.fp)
    }
}

/// Sorts by fingerprint in place, without a second buffer (the assembly's peak is where it
/// holds the most): states go to their buckets of the fingerprint's top 8 bits (they are
/// uniformly distributed), then each bucket to those of the next 8, then each small bucket
/// is sorted. 256 buckets keep the places being filled in cache, so the swaps stream.
fn sort_by_fingerprint(v: &mut [St]) {
    flag_sort(v, 24);
}

/// `sort_by_fingerprint` of states that agree above bit `shift + 8` of their highest kept
/// word.
fn flag_sort(v: &mut [St], shift: u32) {
    if v.len() < 1 << 8 || shift < 16 {
        v.sort_unstable_by_key(St::fp);
        return;
    }
    let bucket = |s: &St| ((s.fp[2] >> shift) & 0xff) as usize;
    let mut ends = [0usize; 256];
    for s in v.iter() {
        ends[bucket(s)] += 1;
    }
    let mut next = [0usize; 256];
    let mut at = 0;
    for b in 0..256 {
        next[b] = at;
        at += ends[b];
        ends[b] = at;
    }
    let starts = next;
    for b in 0..256 {
        while next[b] < ends[b] {
            // The state at the first open place of bucket `b` travels to its own bucket,
            // displacing a state there that travels on, until one of `b`'s fills the place.
            let mut s = v[next[b]];
            let mut t = bucket(&s);
            while t != b {
                std::mem::swap(&mut s, &mut v[next[t]]);
                next[t] += 1;
                t = bucket(&s);
            }
            v[next[b]] = s;
            next[b] += 1;
        }
    }
    for b in 0..256 {
        flag_sort(&mut v[starts[b]..ends[b]], shift - 8);
    }
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
fn merge(a: Vec<St>, b: Vec<St>) -> Vec<St> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].fp() <= b[j].fp() {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-place sort orders every size of list as a comparison sort does, through both
    /// bucket passes (fingerprints that share their top bytes included) and the small
    /// lists sorted directly.
    #[test]
    fn states_sort_in_place_by_fingerprint() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [0usize, 1, 255, 256, 257, 5_000, 70_000] {
            let mut v: Vec<St> = (0..n)
                .map(|i| {
                    let (a, b) = (next(), next());
                    // A third share the top 16 bits, so the last pass sorts long lists.
                    let top = if i % 3 == 0 {
                        0xabcd_0000
                    } else {
                        b as u32 & 0xffff_0000
                    };
                    St {
                        fp: [a as u32, (a >> 32) as u32, top | (b >> 40) as u32 & 0xffff],
                        set: i as u32,
                        slot: (n - i) as u32,
                    }
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(St::fp);
            sort_by_fingerprint(&mut v);
            let key = |s: &St| (s.fp(), s.set, s.slot);
            let (mut got, mut sorted) = (v.clone(), want.clone());
            // (Equal fingerprints may come in either order; none are equal here.)
            got.sort_by_key(key);
            sorted.sort_by_key(key);
            assert_eq!(got, sorted, "n = {n}: states lost or made");
            assert!(
                v.windows(2).all(|w| w[0].fp() <= w[1].fp()),
                "n = {n}: not sorted"
            );
            assert_eq!(
                v.iter().map(St::fp).collect::<Vec<_>>(),
                want.iter().map(St::fp).collect::<Vec<_>>()
            );
        }
    }
}
