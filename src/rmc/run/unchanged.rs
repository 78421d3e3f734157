//! Whether a change left the recorded state graph exactly as it was, and the check it then
//! needs (the step past replay that DESIGN.md 5.4 leaves open): when every recorded state
//! whose footprint meets the change expands in the new version as in the old one (same
//! steps, same flags and faults, same successors, atomic runs followed step by step), the
//! new version's search is the old one's, state for state, so its figures are the record's
//! and its record is the old one under the new sources. Nothing is walked: only the states
//! at the change are looked at, each by the values of its changed conditions where the
//! change is confined to conditions and the replay's own rule says that is enough
//! (`Replay::expands_as_recorded`), else executed once in each version and compared.
//!
//! The states whose footprint misses the change need no look: their expansion holds in the
//! new version by the argument replay itself rests on (`Replay::replayable`).

use crate::explore::Blocked;
use crate::explore::Fingerprint;
use std::sync::Arc;
use std::time::Instant;

use crate::explore::exec::Flag;
use crate::explore::machine::{EdgeNo, LocIndex, Machine};
use crate::explore::property::{self, invalid_end};
use crate::explore::search::{fault_kind, flag_message, NON_TERMINATING};
use crate::explore::state::State;
use crate::explore::succ::{Cursor, FaultAt, Next, Succ};
use crate::explore::trail::TrailStep;
use crate::explore::{Options, Stats, Violation, ViolationKind};
use crate::program::Program;
use crate::rmc::diff::extension::Extension;

use crate::rmc::record::elements::Element;
use crate::rmc::record::graph::{Graph, SeqDecoder, Shape, NONE};
use crate::rmc::record::{RecStep, RecViolation, Record};
use crate::rmc::run::replay::Replay;

/// Steps followed inside atomic runs from one state before the comparison gives up (a
/// record never holds a run that repeats a state: that is a violation).
const MAX_ATOMIC_STEPS: u64 = 1 << 22;

/// A check whose search would repeat the recorded one exactly: what it reports, and the
/// record it writes (the old one's parts).
pub struct Unchanged {
    /// The recorded states the change meets, all checked; of them, those whose expansion
    /// the values of their changed conditions showed to be the recorded one (the others
    /// were executed in both versions and compared).
    pub checked: u64,
    pub by_conditions: u64,
    /// The vectors were mapped to a new layout (`unchanged_layout`).
    pub mapped: bool,
    /// When mapped: each pair of a recorded state's shape and its image's (search-form
    /// length in canonical bytes, record tags), once: what a claim's figures across the map
    /// are computed from (`unchanged_layout::claim_shift`).
    pub shape_pairs: Vec<(Shape, Shape)>,
    pub stats: Stats,
    /// Per edge of the new machine: whether the search executes it; and as the record
    /// keeps them.
    pub executed: Vec<bool>,
    pub executed_stable: Vec<(u32, u32)>,
    /// The new version's initial state (trails start there).
    pub initial: Vec<u8>,
    /// The record's violations, found again along their recorded trails.
    pub violations: Vec<Violation>,
    /// The record's figures, as its `META` holds them.
    pub figures: serde_json::Value,
    pub graph: Graph,
    pub fingerprints: Arc<Vec<Fingerprint>>,
    pub set_of: Vec<u32>,
    pub sets: Vec<Vec<u32>>,
    pub elements: Vec<Element>,
}

/// The record's figures, when they are those of a whole search of its version whose states
/// are exactly the recorded ones: none pruned, none kept from earlier versions, every
/// violation's trail kept, every state in its graph `g` (taken out of it), no limit of
/// `opts` reached.
pub fn eligible(r: &Record, g: &Graph, opts: &Options) -> Option<Stats> {
    // Violations are found again by their recorded trails (`recorded_violations`); a
    // search that would stop at its limit of errors runs.
    let errors_stop = opts
        .max_errors
        .is_some_and(|m| r.violations.len() as u64 >= m);
    if r.trails.len() != r.violations.len()
        || errors_stop
        || opts.max_depth.is_some()
        || !remakeable(r, opts)
    {
        return None;
    }
    // (A record made before its figures held `vector_bytes` and `largest_scc` lacks the
    // edges executed as well: it is not eligible.)
    let f = &r.meta.figures;
    let n = |k: &str| f.get(k).and_then(serde_json::Value::as_u64);
    let stats = Stats {
        states_stored: n("states_stored")?,
        states_matched: n("states_matched")?,
        transitions: n("transitions")?,
        atomic_steps: n("atomic_steps")?,
        depth_reached: n("depth_reached")?,
        state_vector_bytes: n("state_vector_bytes")?,
        vector_bytes: n("vector_bytes")?,
        sccs: n("sccs")?,
        largest_scc: n("largest_scc")?,
        ..Stats::default()
    };
    // A limit the whole search would reach (the search stops when it has stored the
    // limit's number of states): the check runs, and stops there.
    let within = opts.max_states.is_none_or(|m| stats.states_stored < m)
        && opts.memory_limit.is_none_or(|m| held(r, g) <= m);
    let whole = within
        && n("states_pruned")? == 0
        && stats.states_stored == r.fingerprints.len() as u64
        && g.slot_of
            .iter()
            .all(|&s| s != NONE && (s as usize) < g.len());
    whole.then_some(stats)
}

/// How many recorded states were checked, and how many of them by the rule alone, when the
/// graph of `rp` holds in the new version (`new`) exactly as in the old one (`old`); None
/// at the first difference. The states whose footprint meets the change are checked: by
/// the rule a partly replayed state follows (`Replay::expands_as_recorded`: the change is
/// confined to conditions that keep their value there), else by executing them in both
/// versions and comparing. Both machines share the record's layout.
pub fn compare(
    old: &Machine,
    new: &Machine,
    rp: &mut Replay,
    opts: &Options,
) -> Option<(u64, u64)> {
    let mut c = Comparer::default();
    let (mut so, mut sn) = (State::default(), State::default());
    // The initial states first: the search starts there.
    let (io, inew) = (old.initial().ok()?, new.initial().ok()?);
    old.canonical(&io, &mut c.canon_old);
    new.canonical(&inew, &mut c.canon_new);
    if c.canon_old != c.canon_new {
        return None;
    }
    let mut dec = SeqDecoder::default();
    let (mut checked, mut by_rule) = (0u64, 0u64);
    // In slot order: a vector is a delta on one written shortly before it.
    let mut slots: Vec<u32> = rp
        .graph
        .slot_of
        .iter()
        .copied()
        .filter(|&s| !rp.replayable(s))
        .collect();
    slots.sort_unstable();
    for slot in slots {
        let canon = dec.decode(&rp.graph, slot)?;
        if !new.from_canonical(canon, &mut sn) {
            return None;
        }
        if rp.expands_as_recorded(new, slot, &sn) {
            checked += 1;
            by_rule += 1;
            continue;
        }
        if !old.from_canonical(canon, &mut so) {
            return None;
        }
        if !c.same_expansion(old, new, (&so, &sn), None, opts) {
            return None;
        }
        checked += 1;
    }
    Some((checked, by_rule))
}

/// What a check that takes its figures from the record holds: the record (its graph taken
/// out of it) and its graph.
fn held(r: &Record, g: &Graph) -> u64 {
    r.memory() + g.memory()
}

/// Per edge of `m`: whether the recorded search executed it (`executed`: stable location and
/// index). None when one is not an edge of `m`.
pub fn executed_edges(m: &Machine, executed: &[(u32, u32)]) -> Option<Vec<bool>> {
    let mut out = vec![false; m.edges.len()];
    for &(loc, k) in executed {
        let (p, l) = m.locate_id(crate::program::LocId(loc))?;
        let no = m.edge_no(p, l, k as usize);
        if no as usize >= m.edges.len() || m.edge_at(no) != (loc, k) {
            return None;
        }
        out[no as usize] = true;
    }
    Some(out)
}

/// Whether every recorded violation without a trail can be made again (`without_trail`)
/// where this check's search would report it without one: asked before any state is looked
/// at, so that a record that cannot serve costs nothing.
fn remakeable(r: &Record, opts: &Options) -> bool {
    let mut given = [0usize; ViolationKind::ALL.len()];
    r.violations.iter().zip(&r.trails).all(|(v, t)| {
        let Some(k) = ViolationKind::ALL.iter().position(|k| k.as_str() == v.kind) else {
            return false;
        };
        if t.is_some() {
            given[k] += 1;
            return true;
        }
        given[k] >= opts.max_trails
            && match ViolationKind::ALL[k] {
                ViolationKind::InvalidEndState => v.edge.is_none() && v.pids.len() == v.at.len(),
                ViolationKind::Assertion | ViolationKind::NonTerminatingAtomic => {
                    v.edge.is_some() && v.at.len() == 1 && v.pids.len() == 1
                }
                _ => false,
            }
    })
}

/// A recorded violation that has no trail, made again in `m` from what the record keeps:
/// where it is, the pids it names, and a message the new sources give (an assertion's text
/// may have moved). Only kinds whose message follows from those (an invalid end state, an
/// assertion, a non-terminating atomic sequence); None for the others (a fault's message
/// holds values the record does not keep) and for a record without pids.
fn without_trail(m: &Machine, v: &RecViolation, kind: ViolationKind) -> Option<Violation> {
    let made = |edge, pid, message, blocked| Violation {
        kind,
        edge,
        pid,
        message,
        blocked,
        trail: None,
        via: None,
        cycle: None,
        cycle_depth: None,
    };
    match kind {
        ViolationKind::InvalidEndState => {
            if v.pids.len() != v.at.len() || v.edge.is_some() {
                return None;
            }
            let blocked =
                v.at.iter()
                    .zip(&v.pids)
                    .map(|(&id, &pid)| {
                        let (proc, loc) = m.locate_id(crate::program::LocId(id))?;
                        Some(Blocked {
                            pid,
                            proc,
                            loc: LocIndex(loc),
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
            if property::end_kind(m, &blocked) != kind {
                return None;
            }
            let message = property::end_message(m, &blocked);
            Some(made(None, None, message, blocked))
        }
        ViolationKind::Assertion | ViolationKind::NonTerminatingAtomic => {
            let (&[loc], Some(k), &[pid]) = (v.at.as_slice(), v.edge, v.pids.as_slice()) else {
                return None;
            };
            let edge = crate::rmc::record::graph::edge_map(m, &[(loc, k)])[0];
            if edge == NONE {
                return None;
            }
            let message = match kind {
                ViolationKind::Assertion => flag_message(m, Flag::Assertion, edge),
                _ => NON_TERMINATING.to_string(),
            };
            Some(made(Some(edge), Some(pid), message, Vec::new()))
        }
        _ => None,
    }
}

/// The check of the version `new` against the record `r` of the version `old`, when the
/// change leaves the recorded state graph as it was: the record's figures, with the states
/// the change meets executed (compared) and the others' moves taken from the record, and the
/// record's graph (its states, sets and elements the caller moves over: `adopt`). Else the
/// replay, to run as usual.
pub fn carry(
    old: &Program,
    new: &Program,
    r: &Record,
    mut rp: Replay,
    opts: &Options,
) -> Result<Unchanged, Box<Replay>> {
    let started = Instant::now();
    let found = (|| {
        let mut stats = eligible(r, &rp.graph, opts)?;
        let (mo, mn) = (Machine::new(old).ok()?, Machine::new(new).ok()?);
        // pan's State-vector is the new version's: the widths of its process fields follow
        // the automata's sizes, which a change may alter without altering a state.
        stats.state_vector_bytes = pan_vector(&mn, &rp.graph)?;
        let (checked, by_conditions) = compare(&mo, &mn, &mut rp, opts)?;
        let executed = executed_edges(&mn, &r.meta.executed)?;
        let initial = mn.initial().ok()?.v;
        let violations = recorded_violations(&mn, r, &initial, opts)?;
        Some((stats, checked, by_conditions, executed, initial, violations))
    })();
    let Some((mut stats, checked, by_conditions, executed, initial, violations)) = found else {
        return Err(Box::new(rp));
    };
    let graph = rp.into_graph();
    let mut figures = r.meta.figures.clone();
    if let Some(f) = figures.as_object_mut() {
        f.insert(
            "state_vector_bytes".into(),
            serde_json::Value::from(stats.state_vector_bytes),
        );
    }
    stats.states_executed = checked;
    stats.frontier_states = checked;
    stats.states_walked = stats.states_stored - checked;
    stats.states_reused = stats.states_stored;
    stats.peak_memory_bytes = held(r, &graph);
    stats.elapsed = started.elapsed();
    Ok(Unchanged {
        checked,
        by_conditions,
        mapped: false,
        shape_pairs: Vec::new(),
        stats,
        executed,
        executed_stable: r.meta.executed.clone(),
        initial,
        violations,
        figures,
        graph,
        fingerprints: r.fingerprints.clone(),
        set_of: Vec::new(),
        sets: Vec::new(),
        elements: Vec::new(),
    })
}

/// The record's violations as the new version's search (machine `m`, initial state
/// `initial`) finds them when its state graph is the record's: in the same order, each at
/// the end of its recorded trail, made there as the search makes it (`violation_after`:
/// the new version's messages and places), with trails kept for the first `max_trails` of
/// each kind as the search keeps them; those the recording run reported without a trail
/// made again from what the record keeps (`without_trail`). None when a trail does not
/// reach its violation, or reaches another (a record that does not hold for this version),
/// or a violation without a trail cannot be made again.
pub fn recorded_violations(
    m: &Machine,
    r: &Record,
    initial: &[u8],
    opts: &Options,
) -> Option<Vec<Violation>> {
    let edge = |loc: u32, k: u32| -> Option<EdgeNo> {
        let e = crate::rmc::record::graph::edge_map(m, &[(loc, k)])[0];
        (e != NONE).then_some(e)
    };
    let mut trails_of = vec![0usize; ViolationKind::ALL.len()];
    let mut out = Vec::with_capacity(r.violations.len());
    for (v, t) in r.violations.iter().zip(&r.trails) {
        let kind = *ViolationKind::ALL.iter().find(|k| k.as_str() == v.kind)?;
        let given = &mut trails_of[ViolationKind::ALL.iter().position(|&k| k == kind)?];
        let made = match t {
            // Reported without a trail, its kind's trails given: so it is here too (a check
            // that asks for more trails searches).
            None if *given < opts.max_trails => return None,
            None => without_trail(m, v, kind)?,
            Some(t) => {
                let steps = t
                    .iter()
                    .map(|&RecStep(pid, loc, k, rv)| {
                        Some(TrailStep {
                            pid,
                            edge: edge(loc, k)?,
                            rv: match rv {
                                Some((q, l, k)) => Some((q, edge(l, k)?)),
                                None => None,
                            },
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                let mut made = m.violation_after(initial, &steps, kind, opts)?;
                if *given >= opts.max_trails {
                    made.trail = None;
                } else {
                    *given += 1;
                }
                made
            }
        };
        let key = crate::rmc::check::rec_violation(m, &made);
        if key.kind != v.kind || key.at != v.at || key.edge != v.edge {
            return None;
        }
        out.push(made);
    }
    Some(out)
}

/// The largest of the recorded states' vectors in pan's layout of machine `m` (pan's
/// State-vector); None when a shape does not fit `m`.
fn pan_vector(m: &Machine, g: &Graph) -> Option<u64> {
    let mut used = vec![false; g.shapes.len()];
    for &s in g.slot_of.iter().filter(|&&s| s != NONE) {
        *used.get_mut(*g.shape.get(s as usize)? as usize)? = true;
    }
    let mut most = 0;
    for (k, (_, tags)) in g.shapes.iter().enumerate() {
        if used[k] {
            most = most.max(m.pan_of_tags(tags)?);
        }
    }
    Some(most)
}

impl Unchanged {
    /// Moves the record's states' sets and elements over (they stand as they are).
    pub fn adopt(&mut self, r: &mut Record) {
        // (Across a layout change the states are in their new fingerprints' order, and
        // their sets were moved along: `unchanged_layout`.)
        if self.set_of.is_empty() {
            self.set_of = std::mem::take(&mut r.set_of);
        }
        self.sets = std::mem::take(&mut r.sets);
        self.elements = std::mem::take(&mut r.elements);
    }
}

/// One frame of the comparison of an expansion: the same state in each version, their
/// cursors, and the process holding atomic control.
struct Frame {
    old: State,
    new: State,
    co: Cursor,
    cn: Cursor,
    only: Option<u8>,
}

/// Reused buffers of the comparison.
#[derive(Default)]
pub(crate) struct Comparer {
    frames: Vec<Frame>,
    spare: Vec<(State, State)>,
    out_old: State,
    out_new: State,
    tmp_old: State,
    tmp_new: State,
    canon_old: Vec<u8>,
    canon_new: Vec<u8>,
    /// Across a layout change: a successor's parent in the new layout, and the image of
    /// the old successor.
    canon_parent: Vec<u8>,
    image: Vec<u8>,
    blocked_old: Vec<Blocked>,
    blocked_new: Vec<Blocked>,
}

impl Comparer {
    /// Whether the stored state (`so` in the old machine, `sn` in the new) expands the same
    /// way in both: every successor, fault and report in the same order, the same failed
    /// rendezvous offers, atomic runs followed into their states, and the same end-state
    /// verdict where nothing moves. Across a layout change (`map`), `sn` is the image of
    /// `so` and each new successor must be the image of the old one from its new parent
    /// (`Extension::embed`); else both share a layout and must be equal.
    pub(crate) fn same_expansion(
        &mut self,
        old: &Machine,
        new: &Machine,
        (so, sn): (&State, &State),
        map: Option<&Extension>,
        opts: &Options,
    ) -> bool {
        self.frames.clear();
        self.push(so, sn, None);
        let mut steps = 0u64;
        while let Some(top) = self.frames.len().checked_sub(1) {
            let f = &mut self.frames[top];
            let ro = old.next(&f.old, &mut f.co, &mut self.out_old, &mut self.tmp_old);
            let rn = new.next(&f.new, &mut f.cn, &mut self.out_new, &mut self.tmp_new);
            if std::mem::take(&mut f.co.failed_offer) != std::mem::take(&mut f.cn.failed_offer) {
                return false;
            }
            match (ro, rn) {
                (Next::Succ(a), Next::Succ(b)) => {
                    if !same_succ(old, new, &a, &b) {
                        return false;
                    }
                    old.canonical(&self.out_old, &mut self.canon_old);
                    new.canonical(&self.out_new, &mut self.canon_new);
                    let same = match map {
                        None => self.canon_old == self.canon_new,
                        Some(ext) => {
                            new.canonical(&self.frames[top].new, &mut self.canon_parent);
                            ext.embed(&self.canon_old, &self.canon_parent, &mut self.image)
                                && self.image == self.canon_new
                        }
                    };
                    if !same {
                        return false;
                    }
                    if a.atomic {
                        steps += 1;
                        if steps > MAX_ATOMIC_STEPS {
                            return false;
                        }
                        let (o, n) = (
                            std::mem::take(&mut self.out_old),
                            std::mem::take(&mut self.out_new),
                        );
                        self.push(&o, &n, Some(a.mover()));
                        self.out_old = o;
                        self.out_new = n;
                    }
                }
                (Next::Fault(a), Next::Fault(b)) | (Next::Report(a), Next::Report(b)) => {
                    if !same_fault(old, new, &a, &b) {
                        return false;
                    }
                }
                (Next::Group(a), Next::Group(b)) if a == b => {}
                (Next::Done, Next::Done) => {
                    let f = &self.frames[top];
                    if f.co.moved != f.cn.moved {
                        return false;
                    }
                    if f.only.is_none() && f.co.moved == 0 && opts.end_states {
                        let bo = invalid_end(old, &f.old, opts, &mut self.blocked_old);
                        let bn = invalid_end(new, &f.new, opts, &mut self.blocked_new);
                        if bo || bn {
                            return false;
                        }
                    }
                    self.pop();
                }
                _ => return false,
            }
        }
        true
    }

    fn push(&mut self, so: &State, sn: &State, only: Option<u8>) {
        let (mut o, mut n) = self.spare.pop().unwrap_or_default();
        o.copy_from(so);
        n.copy_from(sn);
        let (co, cn) = (Cursor::new(&o, only), Cursor::new(&n, only));
        self.frames.push(Frame {
            old: o,
            new: n,
            co,
            cn,
            only,
        });
    }

    fn pop(&mut self) {
        if let Some(f) = self.frames.pop() {
            self.spare.push((f.old, f.new));
        }
    }
}

/// The same edge in both machines: its source location's stable id and its index there.
fn same_edge(old: &Machine, new: &Machine, a: EdgeNo, b: EdgeNo) -> bool {
    old.edge_at(a) == new.edge_at(b)
}

fn same_succ(old: &Machine, new: &Machine, a: &Succ, b: &Succ) -> bool {
    a.pid == b.pid
        && same_edge(old, new, a.edge, b.edge)
        && a.atomic == b.atomic
        && a.flag == b.flag
        && match (a.rv, b.rv) {
            (None, None) => true,
            (Some((p, e)), Some((q, f))) => p == q && same_edge(old, new, e, f),
            _ => false,
        }
}

fn same_fault(old: &Machine, new: &Machine, a: &FaultAt, b: &FaultAt) -> bool {
    a.pid == b.pid
        && same_edge(old, new, a.edge, b.edge)
        && fault_kind(&a.fault) == fault_kind(&b.fault)
        && a.flag == b.flag
        && match (a.rv, b.rv) {
            (None, None) => true,
            (Some((p, e)), Some((q, f))) => p == q && same_edge(old, new, e, f),
            _ => false,
        }
}
