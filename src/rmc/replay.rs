//! What a replaying run knows of the old version (DESIGN.md 5.4): its state graph, which
//! recorded states may be replayed (their footprint misses the dangerous locations), and the
//! reading of their events, in the search's order, translated to the new machine's edges and
//! locations. Recorded states are known by their slot (the key the search uses for them).

use crate::explore::event::Event;
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::search::Build;
use crate::explore::state::State;

use super::graph::{decode_event, edge_map, Graph, NONE};

/// The old graph and what the change makes of it.
pub struct Replay {
    pub graph: Graph,
    /// The record's fingerprints (sorted), to know a built state's slot.
    pub fingerprints: Vec<u128>,
    index: super::fpindex::FpIndex,
    /// Per slot: its fingerprint.
    pub fp_of_slot: Vec<u128>,
    /// Per footprint: whether it meets a dangerous location.
    pub foot_danger: Vec<bool>,
    /// The new machine's edge per edge-table entry, filled at the first replayed event.
    edges: Option<Vec<EdgeNo>>,
    /// Read positions of the replayed states on the search stack: (search id, slot, next
    /// byte, end of its events, where its new canonical vector starts in `canons`, the id
    /// of its extras).
    cursors: Vec<(u32, u32, usize, usize, usize, u32)>,
    /// When the new layout only adds variables: how a state projects onto the record's
    /// layout, and that layout's hash. States are then not known by slot (one slot stands
    /// for every state that projects to it): the search stores them, a built state finds
    /// its slot through its projection, and a replayed successor is built from its recorded
    /// vector and the added variables of the state replayed (`build`).
    pub project: Option<(super::extension::Extension, u64)>,
    /// The new canonical vectors of the replayed states on the stack (with `project`).
    canons: Vec<u8>,
    embedded: Vec<u8>,
    /// Replayed states' extras (`Extension::extras`), interned: a successor is a function
    /// of its slot and its parent's extras.
    extras: std::collections::HashMap<Vec<u8>, u32, xxhash_rust::xxh3::Xxh3DefaultBuilder>,
    extras_buf: Vec<u8>,
    /// Per slot: the (extras id, search id) of the state built for it last, so that a
    /// transition to a state met before costs no building.
    memo: Vec<(u32, u32)>,
    blocked: Vec<(u32, u32)>,
    scratch: Vec<u8>,
    chain: Vec<(u32, usize)>,
    /// Per shape: (search-form length, pan bytes) in the new machine, once computed.
    shapes: Vec<Option<(u64, u64)>>,
    pub failed: bool,
}

impl Replay {
    /// `fingerprints`: the record's (its `STAT`); `dangerous`: whether a stable location is.
    pub fn new(graph: Graph, fingerprints: Vec<u128>, dangerous: impl Fn(u32) -> bool) -> Replay {
        let mut fp_of_slot = vec![0u128; graph.len()];
        for (i, &s) in graph.slot_of.iter().enumerate() {
            if s != NONE {
                fp_of_slot[s as usize] = fingerprints[i];
            }
        }
        let foot_danger = graph
            .foots
            .iter()
            .map(|f| f.iter().any(|&l| dangerous(l)))
            .collect();
        Replay {
            index: super::fpindex::FpIndex::new(&fingerprints),
            graph,
            fingerprints,
            fp_of_slot,
            foot_danger,
            edges: None,
            cursors: Vec::new(),
            project: None,
            canons: Vec::new(),
            embedded: Vec::new(),
            extras: Default::default(),
            extras_buf: Vec::new(),
            memo: Vec::new(),
            blocked: Vec::new(),
            scratch: Vec::new(),
            chain: Vec::new(),
            shapes: Vec::new(),
            failed: false,
        }
    }

    /// The slot of the state with fingerprint `fp`, if the graph has it.
    pub fn slot(&self, fp: u128) -> Option<u32> {
        self.position_and_slot(fp).map(|x| x.1)
    }

    /// The position of fingerprint `fp` in the record's list, and its slot, if the graph
    /// has it.
    pub fn position_and_slot(&self, fp: u128) -> Option<(usize, u32)> {
        let i = self.index.find(&self.fingerprints, fp)?;
        let s = self.graph.slot_of[i];
        (s != NONE).then_some((i, s))
    }

    /// Whether the recorded expansion of `slot` holds in the new version.
    pub fn replayable(&self, slot: u32) -> bool {
        !self.foot_danger[self.graph.foot[slot as usize] as usize]
    }

    /// How many recorded states would be walked, and how many executed (the record's
    /// states: a graph may keep dead slots).
    pub fn predict(&self) -> (u64, u64) {
        let live = self.graph.slot_of.iter().filter(|&&s| s != NONE);
        let (mut walked, mut executed) = (0, 0);
        for &s in live {
            if self.replayable(s) {
                walked += 1;
            } else {
                executed += 1;
            }
        }
        (walked, executed)
    }

    /// Starts reading the events of `slot`, stored as search id `id`.
    pub fn open(&mut self, id: u32, slot: u32) {
        self.open_with(id, slot, &[]);
    }

    /// Starts reading the events of `slot` for the state stored as `id` whose new canonical
    /// vector is `canon` (kept to build its successors when the layout gained variables).
    pub fn open_with(&mut self, id: u32, slot: u32, canon: &[u8]) {
        let (at, len) = self.graph.ev[slot as usize];
        let c = self.canons.len();
        self.canons.extend_from_slice(canon);
        let mut ctx = NONE;
        if let Some((ext, _)) = &self.project {
            if ext.extras(canon, &mut self.extras_buf) {
                let n = self.extras.len() as u32;
                ctx = *self
                    .extras
                    .entry(std::mem::take(&mut self.extras_buf))
                    .or_insert(n);
            }
        }
        self.cursors
            .push((id, slot, at as usize, at as usize + len as usize, c, ctx));
    }

    /// The stored state `id` is finished (replayed or not).
    pub fn close(&mut self, id: u32) {
        if self.cursors.last().is_some_and(|c| c.0 == id) {
            if let Some(c) = self.cursors.pop() {
                self.canons.truncate(c.4);
            }
        }
    }

    /// Builds the successor that the replayed state on top reaches as `slot`, in the new
    /// layout (`project`): its recorded vector with the added variables of the state
    /// replayed. False (and `failed`) when it does not fit.
    pub fn build(&mut self, m: &Machine, slot: u32, out: &mut State) -> Build {
        let ctx = self.cursors.last().map_or(NONE, |c| c.5);
        if let Some(&(x, id)) = self.memo.get(slot as usize) {
            if x == ctx && ctx != NONE {
                return Build::Known(id);
            }
        }
        if self.try_build(m, slot, out) {
            Build::Built
        } else {
            self.failed = true;
            Build::Failed
        }
    }

    /// The state built for `slot` from the replayed state on top is search id `id`.
    pub fn built(&mut self, slot: u32, id: u32) {
        let ctx = self.cursors.last().map_or(NONE, |c| c.5);
        if self.memo.len() != self.graph.len() {
            self.memo = vec![(NONE, NONE); self.graph.len()];
        }
        if let Some(m) = self.memo.get_mut(slot as usize) {
            *m = (ctx, id);
        }
    }

    fn try_build(&mut self, m: &Machine, slot: u32, out: &mut State) -> bool {
        let (Some((ext, _)), Some(c)) = (&self.project, self.cursors.last()) else {
            return false;
        };
        if slot as usize >= self.graph.len() {
            return false;
        }
        let parent = &self.canons[c.4..];
        let mut old = std::mem::take(&mut self.scratch);
        let ok = self.graph.decode_vector(slot, &mut self.chain, &mut old)
            && ext.embed(&old, parent, &mut self.embedded)
            && m.from_canonical(&self.embedded, out);
        self.scratch = old;
        ok
    }

    /// The (search-form length, pan bytes) of a recorded state, in the new machine.
    pub fn shape(&mut self, m: &Machine, slot: u32) -> (u64, u64) {
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
        let procs = tags
            .iter()
            .filter(|&&t| t & crate::explore::layout::CHAN_TAG == 0)
            .count() as u64;
        let lw = m.layout.loc_width as u64;
        let len = (*canon as u64 + m.layout.hidden_size as u64).saturating_sub(procs * (4 - lw));
        (len, m.pan_of_tags(tags).unwrap_or(0))
    }

    /// Builds a recorded state for the new machine.
    pub fn load(&mut self, m: &Machine, slot: u32, out: &mut State) -> bool {
        let mut canon = std::mem::take(&mut self.scratch);
        let ok = self.graph.decode_vector(slot, &mut self.chain, &mut canon)
            && m.from_canonical(&canon, out);
        self.scratch = canon;
        if !ok {
            self.failed = true;
        }
        ok
    }

    /// The next event of the replayed state on top; blocked processes as (pid, proctype,
    /// location index). A record that does not fit the new machine sets `failed`.
    pub fn next(&mut self, m: &Machine, blocked: &mut Vec<(usize, usize, u32)>) -> Event {
        let stop = Event::End(crate::explore::event::End::Leave);
        if self.edges.is_none() {
            self.edges = Some(edge_map(m, &self.graph.edges));
        }
        let (Some(c), Some(edges)) = (self.cursors.last_mut(), self.edges.as_deref()) else {
            self.failed = true;
            return stop;
        };
        let (slot, mut pos, end) = (c.1, c.2, c.3);
        let ev = decode_event(
            &self.graph.events[..end],
            slot,
            &mut pos,
            &mut self.blocked,
            |i| edges.get(i as usize).copied().filter(|&e| e != NONE),
        );
        c.2 = pos;
        let Some(ev) = ev else {
            self.failed = true;
            return stop;
        };
        if ev.target().is_some_and(|k| k as usize >= self.graph.len()) {
            self.failed = true;
            return stop;
        }
        if matches!(ev, Event::End(crate::explore::event::End::Invalid)) {
            blocked.clear();
            for &(pid, loc) in &self.blocked {
                match m.locate_id(crate::program::LocId(loc)) {
                    Some((t, l)) => blocked.push((pid as usize, t, l)),
                    None => {
                        self.failed = true;
                        return stop;
                    }
                }
            }
        }
        ev
    }
}
