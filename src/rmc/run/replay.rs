//! What a replaying run knows of the old version (DESIGN.md 5.4): its state graph, which
//! recorded states may be replayed (their footprint misses the dangerous locations), and the
//! reading of their events, in the search's order, translated to the new machine's edges and
//! locations. Recorded states are known by their slot (the key the search uses for them).
//!
//! One file of about 870 lines, on purpose: the replay's cursor over a recorded state's
//! events is private state that opening, grouping, predicting and reading all move; split
//! across files it would have to be exposed to each.

use crate::explore::budget::Held;
use crate::explore::Blocked;
use crate::explore::Fingerprint;
use crate::explore::Pid;
use std::sync::Arc;

use crate::explore::event::{End, Event};
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::search::GroupPlan;
use crate::explore::state::State;
use crate::program::expr::{LExpr, LStmt};

use crate::rmc::record::graph::{
    decode_event, edge_map, group_header, work_in_states, Graph, SeqDecoder, NONE,
};
use crate::rmc::run::map_keys::MapKeys;

/// How many executed states `Replay::predict` reads the groups of, at most.
const PREDICT_SAMPLE: usize = 1 << 12;

/// Where the reading of one recorded state's events stands.
struct Cursor {
    /// The search id it is stored as, and its slot.
    id: u32,
    slot: u32,
    /// The part of the graph's events its events lie in, the next byte there, and the end
    /// of its events.
    part: usize,
    pos: usize,
    end: usize,
    /// Across a layout change, the id of its extras (`MapKeys`): its successors' keys
    /// follow from it.
    ctx: u32,
    /// The state is executed, but groups of its events may be replayed (`group`): the end
    /// of the one being replayed (0: none).
    mixed: bool,
    group_end: usize,
    /// Group markers are read through (its recorded events are kept, or it is replayed in
    /// one layout), not handed to the search for a graph written anew.
    read_through: bool,
}

/// What a replay would do, predicted from the record (`Replay::predict`): the recorded
/// states it would walk and execute; of the executed, the processes' moves it would
/// execute, counted in states, and the states none of whose moves it would execute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    pub walked: u64,
    pub executed: u64,
    pub moves: f64,
    pub idle: f64,
    /// The executed states' work, in recorded states of average work (`work_in_states`).
    pub work: f64,
}

/// What a replay looks a built state's slot up with (`Replay::lookups`).
pub struct Lookups {
    index: crate::rmc::record::fpindex::FpIndex,
    fp_of_slot: Vec<Fingerprint>,
    position_of_slot: Vec<u32>,
}

/// The old graph and what the change makes of it.
pub struct Replay {
    /// Shared with the book across a declaration change (`MapVectors`), which makes walked
    /// states' new vectors from it.
    pub graph: Arc<Graph>,
    /// The record's fingerprints (sorted; the record's own list), to know a built state's
    /// slot.
    pub fingerprints: Arc<Vec<Fingerprint>>,
    /// Built when the replay is to run (`lookups`): a plan that only predicts, or that runs
    /// prune or a full check, does without them.
    index: Option<crate::rmc::record::fpindex::FpIndex>,
    /// Per slot: its fingerprint (with `index`).
    pub fp_of_slot: Vec<Fingerprint>,
    /// Per footprint: whether it meets a dangerous location.
    pub foot_danger: Vec<bool>,
    /// A recorded state without moves is executed, not walked: where a valid end state
    /// needs every channel empty (`-q`) and the map changes what channels a state holds,
    /// its recorded verdict may not be the new one (its moves, none, are).
    pub ends_execute: bool,
    /// The new machine's edge per edge-table entry, filled at the first replayed event.
    edges: Option<Vec<EdgeNo>>,
    /// Read positions of the replayed (or partly replayed) states on the search stack.
    cursors: Vec<Cursor>,
    /// Per stable location id: whether it is dangerous (ids past the end are).
    danger_id: Vec<bool>,
    /// Per (proctype, location index) of the new machine: whether no statement there reads
    /// other processes' code (`enabled`, `pc_value`, `np_`, a remote label) or may offer a
    /// rendezvous (`quiet`), and whether a process there then does what the record says, as
    /// far as its location goes (it is quiet and not dangerous), filled at the first partly
    /// replayed state.
    holds: Vec<Vec<(bool, bool)>>,
    /// Per footprint: whether a location in it is wide (computed when first asked).
    foot_wide: Vec<Option<bool>>,
    /// Dangerous locations whose change is confined to conditions (`Impact::guards`): a
    /// process there whose changed conditions keep their value moves as recorded. Empty
    /// across a layout change.
    pub guards: std::collections::BTreeMap<u32, Vec<crate::rmc::diff::impact::GuardChange>>,
    /// Across a layout change, the dangerous locations whose change is confined to indices
    /// of resized arrays (`Impact::indexed`): a process there whose indices stay below
    /// their bounds moves as recorded.
    pub indexed: std::collections::BTreeMap<u32, Vec<crate::rmc::diff::indexed::IndexBound>>,
    /// Per footprint: its only dangerous location, if it has exactly one (computed when
    /// first asked; NONE: none or several).
    foot_single: Vec<Option<u32>>,
    /// Groups of executed recorded states replayed, and executed.
    pub groups_replayed: u64,
    pub groups_executed: u64,
    /// Across a declaration change: how a state projects onto the record's layout, and that
    /// layout's hash. States are then not known by slot alone (one slot stands for every
    /// state that projects to it) but by slot and extras (`MapKeys`): a built state by its
    /// projection and its own extras, a replayed successor by its recorded slot and the
    /// extras of the state replayed.
    pub project: Option<(crate::rmc::diff::extension::Extension, u64)>,
    /// Across a declaration change that drops bytes: the recorded states by key, which
    /// lookups answer from instead of the record's fingerprints.
    pub keys: Option<Arc<crate::rmc::run::keys::Keys>>,
    /// Across a layout change: per slot, its position in the record's list (NONE: none).
    position_of_slot: Vec<u32>,
    /// The keys of the states met through the map (with `project`).
    map: MapKeys,
    blocked: Vec<(u32, u32)>,
    /// The recorded vectors `load` decodes, each from the one before (their slots come
    /// about in the order the record's slots were written).
    loads: SeqDecoder,
    /// Per shape: (search-form length, pan bytes) in the new machine, once computed.
    shapes: Vec<Option<(u64, u64)>>,
    pub failed: bool,
    /// Across a layout change, the recorded target of the step `next` returned last, when
    /// it was renamed to another key (`renamed_target`).
    renamed: Option<u32>,
    /// The new initial state's canonical vector, once `sample_state` needs it.
    initial_canon: Vec<u8>,
}

impl Replay {
    /// The old graph, taken out (the book's share of it, if it had one, is gone by then).
    pub fn into_graph(self) -> Graph {
        Arc::try_unwrap(self.graph).unwrap_or_else(|g| (*g).clone())
    }

    /// Heap bytes held beside the record's own (its graph included: the replay owns it).
    pub fn memory(&self) -> u64 {
        self.graph.memory()
            + self.index.as_ref().map_or(0, |i| i.memory())
            + self.keys.as_ref().map_or(0, |k| k.memory())
            + self.fp_of_slot.held()
            + self.position_of_slot.held()
            + self.foot_danger.held()
            + self.danger_id.held()
            + self.foot_wide.held()
            + self.map_memory()
            + self.shapes.held()
    }

    /// Heap bytes of the keys of the states met through a declaration change's map, which
    /// grow as the run goes.
    pub fn map_memory(&self) -> u64 {
        self.map.memory()
    }

    /// `fingerprints`: the record's (its `STAT`); `dangerous`: whether a stable location is.
    pub fn new(
        graph: Graph,
        fingerprints: Arc<Vec<Fingerprint>>,
        dangerous: impl Fn(u32) -> bool,
    ) -> Replay {
        let foot_danger = graph
            .foots
            .iter()
            .map(|f| f.iter().any(|&l| dangerous(l)))
            .collect();
        let max_id = graph.foots.iter().flatten().copied().max().unwrap_or(0);
        let danger_id = (0..=max_id).map(&dangerous).collect();
        Replay {
            index: None,
            graph: Arc::new(graph),
            fingerprints,
            fp_of_slot: Vec::new(),
            foot_danger,
            ends_execute: false,
            edges: None,
            cursors: Vec::new(),
            danger_id,
            holds: Vec::new(),
            foot_wide: Vec::new(),
            guards: Default::default(),
            indexed: Default::default(),
            foot_single: Vec::new(),
            groups_replayed: 0,
            groups_executed: 0,
            project: None,
            keys: None,
            position_of_slot: Vec::new(),
            map: MapKeys::default(),
            blocked: Vec::new(),
            loads: SeqDecoder::default(),
            shapes: Vec::new(),
            failed: false,
            renamed: None,
            initial_canon: Vec::new(),
        }
    }

    /// Whether what the replay's search looks states up with is built (`take_lookups`).
    pub fn is_ready(&self) -> bool {
        self.index.is_some()
    }

    /// What the replay's search looks states up with (the fingerprints' index and each
    /// slot's fingerprint), built without changing the replay: on a second thread while
    /// the recorder is made (`Recorder::new`).
    pub fn lookups(&self) -> Lookups {
        let mut fp_of_slot = vec![Fingerprint::default(); self.graph.len()];
        for (i, &s) in self.graph.slot_of.iter().enumerate() {
            if let Some(f) = fp_of_slot.get_mut(s as usize) {
                *f = self.fingerprints[i];
            }
        }
        let mut position_of_slot = Vec::new();
        if self.project.is_some() {
            position_of_slot = vec![NONE; self.graph.len()];
            for (i, &s) in self.graph.slot_of.iter().enumerate() {
                if let Some(p) = position_of_slot.get_mut(s as usize) {
                    *p = i as u32;
                }
            }
        }
        Lookups {
            index: crate::rmc::record::fpindex::FpIndex::new(&self.fingerprints),
            fp_of_slot,
            position_of_slot,
        }
    }

    /// Takes what `lookups` built: the replay can look states up.
    pub fn take_lookups(&mut self, l: Lookups) {
        self.index = Some(l.index);
        self.fp_of_slot = l.fp_of_slot;
        self.position_of_slot = l.position_of_slot;
    }

    /// The position in the record's list of the state in `slot`, and the slot (None: no
    /// position holds it). Known across a layout change only.
    pub fn position_of(&self, slot: u32) -> Option<(usize, u32)> {
        // With keys, the key's representative, as a lookup gives (with its own slot).
        if let Some(k) = &self.keys {
            return k.representative(slot);
        }
        let at = *self.position_of_slot.get(slot as usize)?;
        (at != NONE).then_some((at as usize, slot))
    }

    /// The slot of the state with fingerprint `fp`, if the graph has it.
    pub fn slot(&self, fp: Fingerprint) -> Option<u32> {
        self.position_and_slot(fp).map(|x| x.1)
    }

    /// The position of fingerprint `fp` in the record's list, and its slot, if the graph
    /// has it.
    pub fn position_and_slot(&self, fp: Fingerprint) -> Option<(usize, u32)> {
        debug_assert!(
            self.index.is_some(),
            "a replay looks states up once it has its lookups"
        );
        let i = match &self.keys {
            Some(k) => k.find(fp)?,
            None => self.index.as_ref()?.find(&self.fingerprints, fp)?,
        };
        let s = self.graph.slot_of[i];
        (s != NONE).then_some((i, s))
    }

    /// Whether the recorded expansion of `slot` holds in the new version.
    pub fn replayable(&self, slot: u32) -> bool {
        let moves = || {
            let ev = self.graph.events_of(slot);
            has_step(ev, 0, ev.len(), slot)
        };
        !self.foot_danger[self.graph.foot[slot as usize] as usize]
            && (!self.ends_execute || moves())
    }

    /// How many recorded states would be walked, and how many executed (the record's
    /// states: a graph may keep dead slots); and, of the work of those executed, the share
    /// of their processes' moves that would be executed (`grouped`: groups may be replayed),
    /// predicted from the record alone: a process's recorded moves are executed when its
    /// group met a rendezvous or its footprint (its location and what its moves passed)
    /// meets the change. (A process that had no moves and now may costs the test of its
    /// guards.)
    ///
    /// When `enough` says the counts alone decide (given the walked states and the executed
    /// states' work: a full check would run however few moves were executed),
    /// the record's groups are not read and every move counts. Else
    /// the share is estimated on at most `PREDICT_SAMPLE` executed states, evenly spread.
    ///
    /// With the new machine `m`, a sampled state's group where the change is confined to
    /// conditions (`guards`) is read as the replay will: its conditions evaluated in the
    /// state. A sampled state none of whose moves would be executed, and whose footprint
    /// meets the change only at conditions its groups are replayed at, is idle (auto counts
    /// it at `IDLE_COST`).
    pub fn predict(
        &mut self,
        m: Option<&Machine>,
        grouped: bool,
        enough: impl Fn(u64, f64) -> bool,
    ) -> Prediction {
        let live = || self.graph.slot_of.iter().filter(|&&s| s != NONE);
        let (mut walked, mut executed) = (0u64, 0u64);
        let (mut all_bytes, mut executed_bytes) = (0u64, 0u64);
        for &s in live() {
            let bytes = self.graph.event_bytes(s);
            all_bytes += bytes;
            if self.replayable(s) {
                walked += 1;
            } else {
                executed += 1;
                executed_bytes += bytes;
            }
        }
        let executed_work = work_in_states(executed, executed_bytes, walked + executed, all_bytes);
        if !grouped || enough(walked, executed_work) {
            return Prediction {
                walked,
                executed,
                moves: executed as f64,
                idle: 0.0,
                work: executed_work,
            };
        }
        // The share is estimated from an even sample of the executed states: reading every
        // one's groups missed the cache over the whole graph (5 % of some replays' time).
        let every = (executed as usize).div_ceil(PREDICT_SAMPLE).max(1);
        let (mut work, mut sampled, mut idle) = (0.0, 0u64, 0u64);
        let sample: Vec<u32> = live()
            .copied()
            .filter(|&s| !self.replayable(s))
            .step_by(every)
            .collect();
        let (mut st, mut canon, mut chain) = (State::default(), Vec::new(), Vec::new());
        let mut embedded = Vec::new();
        // The changed conditions a state's groups are replayed at: the state is idle when
        // they are all the change its footprint meets (a process blocked at a dangerous
        // location has no group, and is executed).
        let mut covered: Vec<u32> = Vec::new();
        for s in sample {
            sampled += 1;
            // Weighed by the bytes of their events: the moves of a process that sits where
            // the change is are often most of the state's.
            let (mut pos, mut met, mut all) = (0, 0usize, 0usize);
            let mut loaded = None;
            covered.clear();
            while let Some((pid, foot, rv, start, end)) = group_header(self.graph.events_of(s), pos)
            {
                let meets = self.foot_danger.get(foot as usize).copied().unwrap_or(true);
                let mut executed = rv || meets;
                if executed && !rv && self.has_guards() {
                    if let Some(m) = m {
                        let ok = *loaded.get_or_insert_with(|| {
                            self.graph.decode_vector(s, &mut chain, &mut canon)
                                && self.sample_state(m, &canon, &mut embedded, &mut st)
                        });
                        let steps = ok && steps_only(self.graph.events_of(s), start, end, s);
                        let at = steps
                            .then(|| self.guards_hold(m, &st, pid))
                            .flatten()
                            .filter(|&at| self.replays_at_guard(m, at, foot, rv));
                        covered.extend(at);
                        executed = at.is_none();
                    }
                }
                if executed {
                    met += end - start;
                }
                all += end - start;
                pos = end;
            }
            work += if all == 0 {
                1.0
            } else {
                met as f64 / all as f64
            };
            let explained = || {
                let foot = self.graph.foot.get(s as usize);
                foot.and_then(|&f| self.graph.foots.get(f as usize))
                    .is_some_and(|f| {
                        f.iter()
                            .all(|&l| !self.dangerous_id(l) || covered.contains(&l))
                    })
            };
            idle += u64::from(all > 0 && met == 0 && explained());
        }
        let scale = if sampled == 0 {
            0.0
        } else {
            executed as f64 / sampled as f64
        };
        Prediction {
            walked,
            executed,
            moves: work * scale,
            idle: idle as f64 * scale,
            work: executed_work,
        }
    }

    /// A sampled recorded state (its recorded vector `canon`) as a state of the new machine,
    /// to read its conditions or indices. Across a layout change it is embedded with the
    /// new initial state's extras: what `guards_hold` reads there is kept, not added.
    fn sample_state(
        &mut self,
        m: &Machine,
        canon: &[u8],
        embedded: &mut Vec<u8>,
        st: &mut State,
    ) -> bool {
        let Some((ext, _)) = &self.project else {
            return m.from_canonical(canon, st);
        };
        if self.initial_canon.is_empty() {
            let Ok(init) = m.initial() else {
                return false;
            };
            m.canonical(&init, &mut self.initial_canon);
        }
        ext.embed(canon, &self.initial_canon, embedded) && m.from_canonical(embedded, st)
    }

    /// Starts reading the events of `slot`, stored as search id `id` (`ctx`: its extras
    /// id across a layout change, else 0).
    pub fn open(&mut self, id: u32, slot: u32, ctx: u32) {
        let (at, len) = self.graph.ev.at(slot as usize);
        // A span no part holds reads as no events: the replay fails and executes.
        let (part, at) = self.graph.events.locate(at, len).unwrap_or((usize::MAX, 0));
        let len = if part == usize::MAX { 0 } else { len };
        self.cursors.push(Cursor {
            id,
            slot,
            part,
            pos: at,
            end: at + len as usize,
            ctx,
            mixed: false,
            group_end: 0,
            read_through: self.project.is_none(),
        });
    }

    /// The recorded state `slot`, stored as `id`, is executed, but the groups of its events
    /// that the change cannot alter may be replayed (`group`).
    pub fn open_mixed(&mut self, id: u32, slot: u32, ctx: u32) {
        self.open(id, slot, ctx);
        if let Some(c) = self.cursors.last_mut() {
            c.mixed = true;
        }
    }

    /// Whether the state whose events are being read is executed with groups replayed.
    pub fn top_is_mixed(&self) -> bool {
        self.cursors.last().is_some_and(|c| c.mixed)
    }

    /// Across a layout change, the state just opened is walked in its own slot with its
    /// recorded events kept: its group markers are read through, as in one layout.
    pub fn read_through(&mut self) {
        if let Some(c) = self.cursors.last_mut() {
            c.read_through = true;
        }
    }

    /// Across a layout change, the recorded target of the step `next` returned last, when
    /// that step reached another key than the target's slot.
    pub fn renamed_target(&self) -> Option<u32> {
        self.renamed
    }

    /// The stored state `id` is finished (replayed or not).
    pub fn close(&mut self, id: u32) {
        if self.cursors.last().is_some_and(|c| c.id == id) {
            self.cursors.pop();
        }
    }

    /// Whether the stable location `id` is dangerous.
    fn dangerous_id(&self, id: u32) -> bool {
        self.danger_id.get(id as usize).copied().unwrap_or(true)
    }

    /// Whether process `pid` of `st` sits where neither the change nor other processes'
    /// code can alter what it does. (Not where it may send: see `sends`.)
    fn location_holds(&mut self, m: &Machine, st: &State, pid: Pid) -> bool {
        self.location(m, st, pid).1
    }

    /// Process `pid`'s location in `st`: (quiet, holds), as `holds` keeps them.
    fn location(&mut self, m: &Machine, st: &State, pid: Pid) -> (bool, bool) {
        if self.holds.is_empty() {
            let rendezvous = self.rendezvous(m);
            let holds: Vec<Vec<(bool, bool)>> = m
                .prog
                .procs
                .iter()
                .map(|p| {
                    let ls = &p.automaton.locations;
                    ls.iter()
                        .map(|l| {
                            let quiet = !(reads_others(l) || (rendezvous && sends(l)));
                            (quiet, quiet && !self.dangerous_id(l.id.0))
                        })
                        .collect()
                })
                .collect();
            self.holds = holds;
        }
        self.holds
            .get(st.ptype(pid))
            .and_then(|w| w.get(st.loc(pid) as usize))
            .copied()
            .unwrap_or((false, false))
    }

    /// Whether a footprint holds a location whose statements read other processes' code.
    fn foot_is_wide(&mut self, m: &Machine, foot: u32) -> bool {
        let f = foot as usize;
        if self.foot_wide.len() <= f {
            self.foot_wide.resize(f + 1, None);
        }
        if let Some(w) = self.foot_wide[f] {
            return w;
        }
        let w = self.graph.foots.get(f).is_none_or(|ls| {
            ls.iter()
                .any(|&l| match m.locate_id(crate::program::LocId(l)) {
                    Some((t, li)) => {
                        reads_others(&m.prog.procs[t].automaton.locations[li as usize])
                    }
                    None => true,
                })
        });
        self.foot_wide[f] = Some(w);
        w
    }

    /// Process `pid`'s group of the partly replayed state `id` (in `st`): replayed from the
    /// record when its footprint, its location and what it reads miss the change, else
    /// executed. Executing is always sound; anything unexpected in the record executes.
    pub fn group(&mut self, m: &Machine, id: u32, st: &State, pid: Pid) -> GroupPlan {
        let Some(c) = self.cursors.last() else {
            return GroupPlan::Execute;
        };
        if c.id != id || !c.mixed || c.group_end != 0 {
            return GroupPlan::Execute;
        }
        let (mut pos, end, c_slot, part) = (c.pos, c.end, c.slot, c.part);
        let events = events_upto(&self.graph, part, end);
        // Groups come in pid order, highest first; the search asks in that order.
        let mut found = None;
        while pos < events.len() {
            match group_header(events, pos) {
                Some((q, _, _, _, e)) if q > pid => pos = e,
                Some((q, foot, rv, start, e)) if q == pid => {
                    found = Some((foot, rv, start, e));
                    break;
                }
                _ => break,
            }
        }
        let holds = self.location_holds(m, st, pid);
        // Where the process sits is dangerous only by conditions that keep their value
        // here: its moves are as recorded, if its recorded moves start and end there.
        let same_guards = if holds {
            None
        } else {
            self.guards_hold(m, st, pid)
        };
        // The plan, and where the reading goes on: at the group's events when they are
        // replayed (up to their end), past them when they are executed.
        let (plan, pos, group_end) = match found {
            // No events recorded for it: nothing to replay when nothing it reads changed.
            None if holds || same_guards.is_some() => (GroupPlan::Skip, pos, 0),
            None => (GroupPlan::Execute, pos, 0),
            Some((foot, rv, start, e)) => {
                let replay = match same_guards {
                    Some(at) => {
                        steps_only(events_upto(&self.graph, part, end), start, e, c_slot)
                            && self.replays_at_guard(m, at, foot, rv)
                    }
                    None => {
                        holds
                            && !rv
                            && self.foot_danger.get(foot as usize) == Some(&false)
                            && !self.foot_is_wide(m, foot)
                    }
                };
                if replay {
                    (GroupPlan::Replay { foot, rv }, start, e)
                } else {
                    (GroupPlan::Execute, e, 0)
                }
            }
        };
        if let Some(c) = self.cursors.last_mut() {
            c.pos = pos;
            c.group_end = group_end;
        }
        match plan {
            GroupPlan::Execute => self.groups_executed += 1,
            _ => self.groups_replayed += 1,
        }
        plan
    }

    /// Whether the recorded state `slot` (`st`, in the new machine `m`) expands in the new
    /// version as recorded, by the rule a partly replayed state follows (`group`): every
    /// process's group would be replayed, or has no events and nothing it reads changed;
    /// and the recorded first pass moved, so that neither a timeout pass nor an end-state
    /// verdict is made anew. False means not known: the caller executes and compares. The
    /// replay's counters and cursors are left as they were.
    pub fn expands_as_recorded(&mut self, m: &Machine, slot: u32, st: &State) -> bool {
        // A state is partly replayed only without priorities (the search announces no
        // groups then), and known by slot only in the record's own layout.
        if m.layout.uses_priority || self.project.is_some() || slot as usize >= self.graph.len() {
            return false;
        }
        const PROBE: u32 = NONE - 1;
        let counters = (self.groups_replayed, self.groups_executed);
        self.open_mixed(PROBE, slot, 0);
        let (mut all, mut moved) = (true, false);
        for pid in st.pids().rev() {
            match self.group(m, PROBE, st, pid) {
                GroupPlan::Skip => {}
                GroupPlan::Execute => {
                    all = false;
                    break;
                }
                GroupPlan::Replay { .. } => {
                    let Some(c) = self.cursors.last_mut() else {
                        all = false;
                        break;
                    };
                    // As the search does once it has read the group's events.
                    let (start, end) = (c.pos, c.group_end);
                    c.pos = end;
                    c.group_end = 0;
                    if !moved {
                        let events = events_upto(&self.graph, c.part, c.end);
                        moved = has_step(events, start, end, slot);
                    }
                }
            }
        }
        self.close(PROBE);
        (self.groups_replayed, self.groups_executed) = counters;
        all && moved
    }

    /// The stable location of process `pid` of `st`, when it is dangerous only by
    /// conditions (`guards`) that have the same value in the old and the new version here,
    /// or by indices of resized arrays (`indexed`) that lie below their bounds here, and
    /// nothing else there reads other processes' code or sends. (A condition or an index
    /// that faults does not count.)
    fn guards_hold(&mut self, m: &Machine, st: &State, pid: Pid) -> Option<u32> {
        if !self.has_guards() || !self.location(m, st, pid).0 {
            return None;
        }
        let l = m
            .prog
            .procs
            .get(st.ptype(pid))?
            .automaton
            .locations
            .get(st.loc(pid) as usize)?;
        let cx = crate::explore::eval::Ctx::of(pid);
        if let Some(ix) = self.indexed.get(&l.id.0) {
            let below = ix.iter().all(|(e, n)| {
                m.eval(st, cx, e)
                    .is_ok_and(|v| (0..*n).contains(&i64::from(v)))
            });
            return below.then_some(l.id.0);
        }
        // (Conditions are compared in one layout only: `guards` is empty across a map.)
        let changed = self.guards.get(&l.id.0)?;
        let same =
            changed.iter().all(
                |(_, old, new)| match (m.eval(st, cx, old), m.eval(st, cx, new)) {
                    (Ok(a), Ok(b)) => (a != 0) == (b != 0),
                    _ => false,
                },
            );
        same.then_some(l.id.0)
    }

    /// Whether some dangerous location's change is confined to what `guards_hold` reads.
    fn has_guards(&self) -> bool {
        !self.guards.is_empty() || !self.indexed.is_empty()
    }

    /// Whether a send may be a rendezvous offer: either version has a channel type of
    /// capacity 0 (across a layout change the old version's types are the map's). Where
    /// none can, a send's outcome is a function of the state, as any statement's, and a
    /// channel whose declaration changed has its operations dangerous.
    fn rendezvous(&self, m: &Machine) -> bool {
        m.layout.chans.iter().any(|c| c.capacity == 0)
            || self
                .project
                .as_ref()
                .is_some_and(|(e, _)| e.old_chans.iter().any(|c| c.capacity == 0))
    }

    /// Whether a group whose process sits at `at`, where its changed conditions keep their
    /// value (`guards_hold`), and whose events are steps to stored states (`steps_only`),
    /// is replayed: it met no rendezvous, and its footprint has no other dangerous location
    /// and nothing that reads other processes' code. (One rule for the replay and for
    /// `predict`.)
    fn replays_at_guard(&mut self, m: &Machine, at: u32, foot: u32, rv: bool) -> bool {
        !rv && self.foot_only(foot, at) && !self.foot_is_wide(m, foot)
    }

    /// Whether footprint `foot`'s only dangerous location is `at`.
    fn foot_only(&mut self, foot: u32, at: u32) -> bool {
        let f = foot as usize;
        if self.foot_single.len() <= f {
            self.foot_single.resize(f + 1, None);
        }
        let single = match self.foot_single[f] {
            Some(x) => x,
            None => {
                let mut hit = self
                    .graph
                    .foots
                    .get(f)
                    .map(|ls| ls.iter().copied().filter(|&l| self.dangerous_id(l)));
                let x = match hit.as_mut().map(|h| (h.next(), h.next())) {
                    Some((Some(one), None)) => one,
                    _ => NONE,
                };
                self.foot_single[f] = Some(x);
                x
            }
        };
        single == at && at != NONE
    }

    /// Across a layout change: the position in the record's list and the key of the new
    /// state whose canonical vector is `canon` (`projected`: scratch), if its projection is
    /// recorded. A state whose projection is recorded but that has no extras (a vector of
    /// another layout) fails the replay.
    pub fn find_projected(
        &mut self,
        canon: &[u8],
        projected: &mut Vec<u8>,
    ) -> Option<(usize, u32)> {
        let (ext, old_hash) = self.project.as_ref()?;
        let old = ext
            .project(canon, projected)
            .then(|| crate::explore::store::fingerprint(*old_hash, projected))?;
        let (at, slot) = self.position_and_slot(old)?;
        let key = self
            .map
            .intern(ext, canon)
            .and_then(|ctx| self.map.key(&self.graph, slot, ctx));
        if key.is_none() {
            self.failed = true;
        }
        Some((at, key?))
    }

    /// The (representative slot, extras id) a key names across a layout change; the slot
    /// and 0 in one layout.
    pub fn pair(&self, key: u32) -> Option<(u32, u32)> {
        match self.project {
            Some(_) => self.map.pair(self.graph.len(), key),
            None => Some((key, 0)),
        }
    }

    /// Across a layout change, the new canonical vector of the state `key` names.
    pub fn canon_of(&mut self, key: u32) -> Option<&[u8]> {
        let (slot, ctx) = self.pair(key)?;
        let (ext, _) = self.project.as_ref()?;
        self.map.embed(&self.graph, ext, slot, ctx)
    }

    /// Across a layout change, whether the state (`slot`, `ctx`) names may have its new
    /// vector made by the book from the pair alone (`MapVectors`): its embedding cannot
    /// fail.
    pub fn embeds_always(&mut self, slot: u32, ctx: u32) -> bool {
        match self.project.as_ref() {
            Some((ext, _)) => self.map.embeds_always(&self.graph, ext, slot, ctx),
            None => false,
        }
    }

    /// Across a layout change, the parent vectors of the extras ids interned so far.
    pub fn parents(&self) -> &[Vec<u8>] {
        self.map.parents()
    }

    /// Across a layout change, what the book needs to make walked states' vectors.
    pub fn map_vectors(&self) -> Option<crate::rmc::run::map_vectors::MapVectors> {
        let (ext, _) = self.project.as_ref()?;
        Some(crate::rmc::run::map_vectors::MapVectors::new(
            self.graph.clone(),
            ext.clone(),
        ))
    }

    /// Across a layout change, the tags of the state `key` names, into `tags`.
    pub fn tags_of(&mut self, m: &Machine, key: u32, tags: &mut Vec<u8>) -> bool {
        let (Some(pair), Some((ext, _))) = (self.pair(key), self.project.as_ref()) else {
            return false;
        };
        match self.map.shape(m, &self.graph, ext, pair) {
            Some((_, _, t)) => {
                tags.clear();
                tags.extend_from_slice(t);
                true
            }
            None => false,
        }
    }

    /// Across a layout change, the key of the state a step of the replayed state on top
    /// into the recorded `slot` reaches (its representative, with the extras the step
    /// leaves: those of the state replayed, as its shape takes them).
    fn target_key(&mut self, slot: u32) -> Option<u32> {
        let ctx = self.cursors.last()?.ctx;
        let (ext, _) = self.project.as_ref()?;
        if self.keys.is_none() {
            // (Without keys a slot stands for itself: a step's target is a live slot.)
            return self.map.target(&self.graph, ext, slot, ctx);
        }
        let next = self.map.successor(&self.graph, ext, slot, ctx)?;
        let rep = self.position_of(slot)?.1;
        self.map.key(&self.graph, rep, next)
    }

    /// The (search-form length, pan bytes) of a recorded state, in the new machine.
    pub fn shape(&mut self, m: &Machine, slot: u32) -> (u64, u64) {
        if let Some((ext, _)) = self.project.as_ref() {
            // (Across a layout change, `slot` is a key.)
            let pair = self.map.pair(self.graph.len(), slot);
            let got = pair.and_then(|p| self.map.shape(m, &self.graph, ext, p));
            if got.is_none() {
                self.failed = true;
            }
            return got.map_or((0, 0), |(len, pan, _)| (len, pan));
        }
        let s = self.graph.shape[slot as usize] as usize;
        if let Some(Some(x)) = self.shapes.get(s) {
            return *x;
        }
        let x = self.compute_shape(m, s);
        if self.shapes.len() <= s {
            self.shapes.resize(s + 1, None);
        }
        self.shapes[s] = Some(x);
        x
    }

    fn compute_shape(&self, m: &Machine, s: usize) -> (u64, u64) {
        let (canon, tags) = &self.graph.shapes[s];
        let len = m.vector_len_of(*canon as u64, tags);
        (len, m.pan_of_tags(tags).unwrap_or(0))
    }

    /// Builds a recorded state for the new machine.
    pub fn load(&mut self, m: &Machine, slot: u32, out: &mut State) -> bool {
        if let Some((ext, _)) = self.project.as_ref() {
            // (Across a layout change, `slot` is a key.)
            let pair = self.map.pair(self.graph.len(), slot);
            let ok = pair.is_some_and(|p| self.map.load(m, &self.graph, ext, p, out));
            if !ok {
                self.failed = true;
            }
            return ok;
        }
        let ok = self
            .loads
            .decode(&self.graph, slot)
            .is_some_and(|canon| m.from_canonical(canon, out));
        if !ok {
            self.failed = true;
        }
        ok
    }

    /// The next event of the replayed state on top; blocked processes as (pid, proctype,
    /// location index). A record that does not fit the new machine sets `failed`.
    pub fn next(&mut self, m: &Machine, blocked: &mut Vec<Blocked>) -> Event {
        let stop = Event::End(End::Leave);
        self.renamed = None;
        if self.edges.is_none() {
            self.edges = Some(edge_map(m, &self.graph.edges));
        }
        let (Some(c), Some(edges)) = (self.cursors.last_mut(), self.edges.as_deref()) else {
            self.failed = true;
            return stop;
        };
        // Inside a replayed group: up to its end, which hands the state back to the
        // search's execution.
        let end = if c.group_end != 0 { c.group_end } else { c.end };
        if c.group_end != 0 && c.pos >= c.group_end {
            c.group_end = 0;
            return Event::End(End::Group);
        }
        let (slot, mut pos, part) = (c.slot, c.pos, c.part);
        let mut ev = decode_event(
            events_upto(&self.graph, part, end),
            slot,
            &mut pos,
            &mut self.blocked,
            |i| edges.get(i as usize).copied().filter(|&e| e != NONE),
        );
        // A whole replay reads through the groups' markers (its expansion is the recorded
        // one, every group of it), unless the graph is written afresh, which needs them; a
        // replayed group holds none.
        while let Some(Event::Group { .. }) = ev {
            if c.group_end != 0 {
                ev = None;
                break;
            }
            if !c.read_through {
                break;
            }
            ev = decode_event(
                events_upto(&self.graph, part, end),
                slot,
                &mut pos,
                &mut self.blocked,
                |i| edges.get(i as usize).copied().filter(|&e| e != NONE),
            );
        }
        c.pos = pos;
        let Some(ev) = ev else {
            self.failed = true;
            return stop;
        };
        if ev.target().is_some_and(|k| k as usize >= self.graph.len()) {
            self.failed = true;
            return stop;
        }
        if matches!(ev, Event::End(End::Invalid)) {
            blocked.clear();
            for &(pid, loc) in &self.blocked {
                match m.locate_id(crate::program::LocId(loc)) {
                    Some((t, l)) => blocked.push(Blocked {
                        pid: pid as crate::explore::Pid,
                        proc: t,
                        loc: crate::explore::LocIndex(l),
                    }),
                    None => {
                        self.failed = true;
                        return stop;
                    }
                }
            }
        }
        if self.project.is_none() {
            return ev;
        }
        // Across a layout change, the state a step reaches is named by its key.
        match ev.renamed(|slot| self.target_key(slot)) {
            Some(named) => {
                if named.target() != ev.target() {
                    self.renamed = ev.target();
                }
                named
            }
            None => {
                self.failed = true;
                stop
            }
        }
    }
}

/// Whether a location's statements read other processes' code (what those processes can
/// do, or where they are): what its process does may then change with a change elsewhere.
fn reads_others(l: &crate::program::Location) -> bool {
    l.edges.iter().any(|e| {
        let mut wide = false;
        e.stmt.each_expr(&mut |x| {
            wide |= matches!(
                x,
                LExpr::Enabled(_) | LExpr::PcValue(_) | LExpr::Np | LExpr::RemoteLabel { .. }
            );
        });
        wide
    })
}

/// Whether a location may send on a channel. A rendezvous offer's outcome depends on where
/// the receivers are, and its group may not say so: an enumeration that does not announce
/// its groups (a recording run's) tells the failed offers of several processes in one pass
/// as one offer, in the group of the last, so an earlier offerer's group is recorded without
/// it (or not at all).
fn sends(l: &crate::program::Location) -> bool {
    l.edges.iter().any(|e| match &e.stmt {
        LStmt::Send { .. } => true,
        LStmt::DStep(a) => a.auto.locations.iter().any(sends),
        _ => false,
    })
}

/// Whether the events of a group (`start..end` of `events`, slot `own`'s) are steps to
/// stored states only: no state inside an atomic run (where the process could pass its
/// location again, in another state), no fault, flag or rendezvous offer.
fn steps_only(events: &[u8], start: usize, end: usize, own: u32) -> bool {
    group_events(events, start, end, own).all(|e| {
        matches!(
            e,
            Some(Event::Step {
                flag: None,
                to: crate::explore::event::To::State(_),
                ..
            })
        )
    })
}

/// Whether the events of a group (as `steps_only`) hold a step: a move of the process,
/// counted by the pass it belongs to.
fn has_step(events: &[u8], start: usize, end: usize, own: u32) -> bool {
    group_events(events, start, end, own)
        .map_while(|e| e)
        .any(|e| matches!(e, Event::Step { .. }))
}

/// The events of a group, `start..end` of `events` (slot `own`'s), edges unmapped; None
/// where they do not decode (and then no more).
fn group_events(
    events: &[u8],
    start: usize,
    end: usize,
    own: u32,
) -> impl Iterator<Item = Option<Event>> + '_ {
    let (mut at, mut blocked, mut broken) = (start, Vec::new(), false);
    let b = events.get(..end);
    std::iter::from_fn(move || {
        if broken || at >= end {
            return None;
        }
        let ev = b
            .and_then(|b| decode_event(b, own, &mut at, &mut blocked, |_| Some(EdgeNo::default())));
        broken = ev.is_none();
        Some(ev)
    })
}

/// The event bytes of part `part` of the graph's up to `end` (a cursor's); fewer when the
/// offsets do not fit (a replay then fails and executes).
fn events_upto(g: &Graph, part: usize, end: usize) -> &[u8] {
    let all = g.events.part(part);
    &all[..end.min(all.len())]
}
