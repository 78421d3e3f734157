//! The machine: a program with its state layout and the tables that map a state's stable
//! location ids to locations and edges. Everything that executes a model (evaluation,
//! statements, successors) is a method on it, so the search itself stays small.

use crate::explore::Pid;
use crate::program::expr::LStmt;
use crate::program::{Edge, Location, ProcKind, Program};

use super::eval::{Ctx, Fault};
use super::layout::{Layout, LayoutError, Scalar, Shape};
use super::state::State;

/// A reference to one edge of the model: a dense number for coverage and trails.
pub type EdgeNo = u32;

/// A location by its index in its proctype's automaton, as states hold it while a search
/// runs: not the stable id (`LocId`) that records and fingerprints use, which
/// `Machine::canonical` translates to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocIndex(pub u32);

pub struct Machine<'p> {
    pub prog: &'p Program,
    pub layout: Layout,
    /// Location index within its proctype's automaton, by location id (u32::MAX: none).
    loc_index: Vec<u32>,
    /// The proctype of each location id (u32::MAX: none).
    loc_owner: Vec<u32>,
    /// Number of the first edge of each location, per proctype.
    edge_base: Vec<Vec<u32>>,
    /// (proctype, location index, edge index) per edge number.
    pub edges: Vec<(u32, u32, u32)>,
    /// Per proctype: where its locations start in `loc_first`, and how many it has.
    proc_locs: Vec<(u32, u32)>,
    /// The first edge number of each location, proctypes one after another, and the number
    /// of edges at the end: a location's edges are `loc_first[i]..loc_first[i + 1]`.
    loc_first: Vec<u32>,
    /// What the successor loop asks of each edge, per edge number, packed so that the edges
    /// of one location lie next to each other (`EdgeHot`).
    hot: Vec<EdgeHot<'p>>,
    /// Location index of each edge's target, per edge number.
    targets: Vec<u32>,
    /// The stable id of each location, per proctype (what `canonical` writes).
    stable: Vec<Vec<u32>>,
    /// Sizes of the records pan would give this program's states.
    pan: super::pan_size::PanSizes,
    /// An error pan reports during an evaluation without ending anything (a poll of a
    /// rendezvous channel): set by the evaluator, taken by successor generation.
    pub(crate) soft: std::cell::Cell<Option<Fault>>,
    /// The never claim the search runs in lockstep with (`with_claim`), if any.
    pub claim: Option<super::claim::ClaimSlot>,
    /// The model's event trace (`trace` or `notrace`), if any: channel events move it.
    pub trace: Option<super::trace::TraceSlot<'p>>,
    /// Some proctype of the system has an `accept` label (else no process makes a state
    /// accepting, and `accepting` need not look at them).
    pub(crate) system_accepts: bool,
    /// Per proctype and location index: whether an edge there may complete a rendezvous (a
    /// receive, or a d_step that starts with one). A send's search for its receiver passes
    /// over the processes at other locations without looking at their edges.
    receives: Vec<Vec<bool>>,
    /// Where each global is in the vector when it is a scalar or an array of scalars, and
    /// each proctype's such locals from the start of its process record: a variable named
    /// without a field is read there without walking its shape.
    pub(crate) global_flat: Vec<Flat>,
    pub(crate) local_flat: Vec<Vec<Flat>>,
    /// Per edge number: its condition compiled (`code`), for an edge whose statement is an
    /// expression or an assertion that compiles; its assignment compiled, for one that is
    /// an assignment that compiles.
    conds: Vec<Option<super::code::Code<'p>>>,
    assigns: Vec<Option<super::code::Assign<'p>>>,
    /// Per edge number: its receive compiled, for a receive that compiles (`code::Recv`).
    recvs: Vec<Option<super::code::Recv<'p>>>,
    /// Every d_step's statements compiled, by the address of its `DStep` (sorted).
    dsteps: Vec<(usize, super::code::DStepCode<'p>)>,
    /// Some proctype has a `provided` clause (else `provided` need not find the process's).
    any_provided: bool,
}

/// What the successor loop asks of an edge before it executes it, kept apart from the
/// program's `Edge` (its statement tree, span and text): the loop reads this for every
/// edge it tries, most of which do not move, so it must not miss the cache on the tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EdgeHot<'p> {
    /// The edge itself (its statement tree), for the statements that need it.
    pub edge: &'p Edge,
    pub escape_group: u32,
    pub kind: EdgeKind,
    pub atomic: bool,
    pub escape: bool,
}

/// The kind of an edge's statement as the successor loop dispatches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeKind {
    /// A condition (an expression statement that is not a `run`): evaluated once, its
    /// value decides.
    Cond,
    Else,
    /// A send or a receive: its channel is read first.
    Chan,
    Assert,
    End,
    Other,
}

/// A variable as the evaluator's short path sees it: where it starts and its shape, when
/// that is a scalar or an array of scalars.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Flat {
    Scalar(u32, Scalar),
    Array {
        at: u32,
        len: u32,
        stride: u32,
        elem: Scalar,
    },
    Other,
}

impl Flat {
    fn of(shape: &Shape, at: u32) -> Flat {
        match shape {
            Shape::Scalar(s) => Flat::Scalar(at, *s),
            Shape::Array { elem, len, stride } => match elem.as_ref() {
                Shape::Scalar(s) => Flat::Array {
                    at,
                    len: *len,
                    stride: *stride,
                    elem: *s,
                },
                _ => Flat::Other,
            },
            _ => Flat::Other,
        }
    }
}

impl<'p> Machine<'p> {
    /// The machine of a safety check: never claims are not run.
    pub fn new(prog: &'p Program) -> Result<Machine<'p>, LayoutError> {
        Machine::build(prog, Layout::new(prog)?, None)
    }

    /// The machine of the product with the never claim `claim` (a proctype index; see
    /// `claim`): its location is part of every state, and the search moves it in lockstep
    /// with the system, as pan does.
    pub fn with_claim(prog: &'p Program, claim: usize) -> Result<Machine<'p>, LayoutError> {
        let layout = Layout::with_claim(prog)?;
        let slot = super::claim::ClaimSlot::new(prog, claim, &layout);
        Machine::build(prog, layout, Some(slot))
    }

    fn build(
        prog: &'p Program,
        layout: Layout,
        claim: Option<super::claim::ClaimSlot>,
    ) -> Result<Machine<'p>, LayoutError> {
        let max = prog
            .procs
            .iter()
            .flat_map(|p| p.automaton.locations.iter().map(|l| l.id.0))
            .max()
            .unwrap_or(0);
        let mut loc_index = vec![u32::MAX; max as usize + 1];
        let mut loc_owner = vec![u32::MAX; max as usize + 1];
        for (pi, p) in prog.procs.iter().enumerate() {
            for (li, l) in p.automaton.locations.iter().enumerate() {
                loc_index[l.id.0 as usize] = li as u32;
                loc_owner[l.id.0 as usize] = pi as u32;
            }
        }
        let mut edge_base = Vec::new();
        let mut edges = Vec::new();
        let mut targets = Vec::new();
        for (pi, p) in prog.procs.iter().enumerate() {
            let mut bases = Vec::new();
            for (li, l) in p.automaton.locations.iter().enumerate() {
                bases.push(edges.len() as u32);
                for (k, e) in l.edges.iter().enumerate() {
                    edges.push((pi as u32, li as u32, k as u32));
                    targets.push(
                        loc_index
                            .get(e.target.0 as usize)
                            .copied()
                            .unwrap_or(u32::MAX),
                    );
                }
            }
            edge_base.push(bases);
        }
        let chan_types: Vec<_> = layout.chans.iter().map(|c| c.source.clone()).collect();
        let pan = super::pan_size::PanSizes::new(prog, &chan_types);
        let stable = prog
            .procs
            .iter()
            .map(|p| p.automaton.locations.iter().map(|l| l.id.0).collect())
            .collect();
        let trace = super::trace::TraceSlot::new(prog, &layout);
        let receives = prog
            .procs
            .iter()
            .map(|p| {
                p.automaton
                    .locations
                    .iter()
                    .map(|l| {
                        l.edges.iter().any(|e| match &e.stmt {
                            crate::program::expr::LStmt::Recv { .. } => true,
                            crate::program::expr::LStmt::DStep(a) => a.first_receive().is_some(),
                            _ => false,
                        })
                    })
                    .collect()
            })
            .collect();
        let global_flat: Vec<Flat> = layout
            .globals
            .iter()
            .map(|g| Flat::of(&g.shape, layout.global_base(g)))
            .collect();
        let local_flat: Vec<Vec<Flat>> = layout
            .procs
            .iter()
            .map(|p| {
                p.locals
                    .iter()
                    .map(|l| Flat::of(&l.shape, p.header + l.offset))
                    .collect()
            })
            .collect();
        // Each edge's statement, and the flat locals of its proctype, by (proctype,
        // location, edge).
        let edge_at = |p: u32, l: u32, k: u32| {
            &prog.procs[p as usize].automaton.locations[l as usize].edges[k as usize]
        };
        let locals_of = |p: u32| local_flat.get(p as usize).map_or(&[][..], Vec::as_slice);
        // Per edge: its condition (or assertion) compiled, or its assignment.
        let (conds, assigns) = edges
            .iter()
            .map(|&(p, l, k)| {
                use crate::program::expr::LExpr;
                let e = edge_at(p, l, k);
                let locals = locals_of(p);
                match &e.stmt {
                    LStmt::Expr(x) if !matches!(x, LExpr::Run { .. }) => {
                        (super::code::compile(&global_flat, locals, x), None)
                    }
                    LStmt::Assert(x) => (super::code::compile(&global_flat, locals, x), None),
                    LStmt::Assign(v, x) if !matches!(x, LExpr::Run { .. }) => (
                        None,
                        super::code::compile_assign(&global_flat, locals, v, x),
                    ),
                    _ => (None, None),
                }
            })
            .unzip();
        // (A trace moves on the receives it sees: those are left to the tree walker.)
        let recvs = edges
            .iter()
            .map(|&(p, l, k)| {
                let e = edge_at(p, l, k);
                let locals = locals_of(p);
                match &e.stmt {
                    LStmt::Recv {
                        args, random, copy, ..
                    } if trace.is_none() => {
                        super::code::compile_recv(&global_flat, locals, args, *random, *copy)
                    }
                    _ => None,
                }
            })
            .collect();
        let mut dsteps: Vec<_> = edges
            .iter()
            .filter_map(|&(p, l, k)| {
                let e = edge_at(p, l, k);
                let LStmt::DStep(d) = &e.stmt else {
                    return None;
                };
                let locals = locals_of(p);
                let key = &**d as *const crate::program::dcode::DStep as usize;
                let code = super::code::DStepCode::new(d, Some((&global_flat, locals)));
                Some((key, code))
            })
            .collect();
        dsteps.sort_unstable_by_key(|(k, _)| *k);
        let mut proc_locs = Vec::with_capacity(prog.procs.len());
        let mut loc_first = Vec::new();
        for bases in &edge_base {
            proc_locs.push((loc_first.len() as u32, bases.len() as u32));
            loc_first.extend_from_slice(bases);
        }
        loc_first.push(edges.len() as u32);
        let hot = edges
            .iter()
            .map(|&(p, l, k)| {
                use crate::program::expr::LExpr;
                let e = edge_at(p, l, k);
                let kind = match &e.stmt {
                    LStmt::Expr(x) if !matches!(x, LExpr::Run { .. }) => EdgeKind::Cond,
                    LStmt::Else => EdgeKind::Else,
                    LStmt::Send { .. } | LStmt::Recv { .. } => EdgeKind::Chan,
                    LStmt::Assert(_) => EdgeKind::Assert,
                    LStmt::End => EdgeKind::End,
                    _ => EdgeKind::Other,
                };
                EdgeHot {
                    edge: e,
                    escape_group: e.escape_group,
                    kind,
                    atomic: e.atomic,
                    escape: e.escape,
                }
            })
            .collect();
        let system_accepts = prog.procs.iter().any(|p| {
            p.kind != crate::program::ProcKind::Never
                && p.automaton.locations.iter().any(|l| l.accept)
        });
        Ok(Machine {
            prog,
            claim,
            trace,
            system_accepts,
            receives,
            global_flat,
            local_flat,
            conds,
            assigns,
            recvs,
            dsteps,
            any_provided: prog.procs.iter().any(|p| p.provided.is_some()),
            stable,
            pan,
            soft: std::cell::Cell::new(None),
            layout,
            loc_index,
            loc_owner,
            edge_base,
            edges,
            proc_locs,
            loc_first,
            hot,
            targets,
        })
    }

    /// Whether process `pid` is at a location where an edge may complete a rendezvous.
    #[inline]
    pub fn may_receive(&self, st: &State, pid: Pid) -> bool {
        self.receives[st.ptype(pid)]
            .get(st.loc(pid) as usize)
            .copied()
            .unwrap_or(false)
    }

    /// The condition of edge `no` compiled, if it is one that compiles.
    #[inline]
    pub(crate) fn cond(&self, no: EdgeNo) -> Option<&super::code::Code<'p>> {
        self.conds.get(no as usize).and_then(Option::as_ref)
    }

    /// The assignment of edge `no` compiled, if it is one that compiles.
    #[inline]
    pub(crate) fn assign(&self, no: EdgeNo) -> Option<&super::code::Assign<'p>> {
        self.assigns.get(no as usize).and_then(Option::as_ref)
    }

    /// The receive of edge `no` compiled, if it is one that compiles.
    #[inline]
    pub(crate) fn recv_code(&self, no: EdgeNo) -> Option<&super::code::Recv<'p>> {
        self.recvs.get(no as usize).and_then(Option::as_ref)
    }

    /// The d_step `d`'s statements compiled (None: not one of this program's d_steps).
    #[inline]
    pub(crate) fn dstep_code(
        &self,
        d: &crate::program::dcode::DStep,
    ) -> Option<&super::code::DStepCode<'p>> {
        let key = d as *const crate::program::dcode::DStep as usize;
        let i = self.dsteps.binary_search_by_key(&key, |(k, _)| *k).ok()?;
        Some(&self.dsteps[i].1)
    }

    /// The location process `pid` is at.
    #[inline]
    pub fn location(&self, st: &State, pid: Pid) -> Option<&'p Location> {
        let t = st.ptype(pid);
        self.prog.procs[t]
            .automaton
            .locations
            .get(st.loc(pid) as usize)
    }

    /// The index of the location process `pid` is at.
    #[inline]
    pub fn loc_no(&self, st: &State, pid: Pid) -> LocIndex {
        LocIndex(st.loc(pid))
    }

    /// The location index an edge leads to.
    #[inline]
    pub fn target(&self, no: EdgeNo) -> u32 {
        self.targets[no as usize]
    }

    /// The location index of a location id.
    pub fn index_of(&self, id: crate::program::LocId) -> u32 {
        self.loc_index
            .get(id.0 as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// The proctype and location index of a location id.
    pub fn locate_id(&self, id: crate::program::LocId) -> Option<(usize, u32)> {
        let p = *self.loc_owner.get(id.0 as usize)?;
        (p != u32::MAX).then(|| (p as usize, self.loc_index[id.0 as usize]))
    }

    /// The stable id of the location process `pid` is at.
    #[inline]
    pub fn loc_id(&self, st: &State, pid: Pid) -> crate::program::LocId {
        crate::program::LocId(self.location(st, pid).map_or(u32::MAX, |l| l.id.0))
    }

    /// The stable id of an edge's source location, and the edge's index there.
    pub fn edge_at(&self, no: EdgeNo) -> (u32, u32) {
        let (p, l, k) = self.edges[no as usize];
        (
            self.prog.procs[p as usize].automaton.locations[l as usize]
                .id
                .0,
            k,
        )
    }

    /// The canonical encoding of a state, the one fingerprints and records use: the stored
    /// bytes with each process's location as its u32 stable id.
    pub fn canonical(&self, st: &State, out: &mut Vec<u8>) {
        // On the hot path of every replay (each successor of an executed state is looked up
        // in the record by it): one reservation, the ids from a flat table.
        out.clear();
        let v = &st.v[..];
        let lw = st.lw as usize;
        out.reserve(v.len() + st.procs.len() * 4);
        let mut at = self.layout.hidden_size as usize;
        for &p in &st.procs {
            let p = p as usize;
            out.extend_from_slice(&v[at..p + 1]);
            let l = if lw == 1 {
                v[p + 1] as usize
            } else {
                u16::from_le_bytes([v[p + 1], v[p + 2]]) as usize
            };
            let id = self
                .stable
                .get(v[p] as usize)
                .and_then(|ids| ids.get(l))
                .copied()
                .unwrap_or(u32::MAX);
            out.extend_from_slice(&id.to_le_bytes());
            at = p + 1 + lw;
        }
        out.extend_from_slice(&v[at..]);
    }

    /// The state whose canonical encoding is `canon` (the inverse of `canonical`), with
    /// hidden globals zero. False when the bytes do not describe a state of this machine (a
    /// location that no longer exists, a record that does not fit).
    pub fn from_canonical(&self, canon: &[u8], out: &mut State) -> bool {
        let hidden = self.layout.hidden_size as usize;
        let records = self.layout.records_at as usize;
        let lw = self.layout.loc_width as usize;
        // The records' offsets are noted as they are copied (what `rescan` would find), so
        // that a recorded state is built in one pass: replays build one per state whose
        // conditions they read.
        out.lw = lw as u8;
        out.procs.clear();
        out.chans.clear();
        out.v.clear();
        out.v.resize(hidden, 0);
        let Some(head) = canon.get(..records - hidden) else {
            return false;
        };
        out.v.extend_from_slice(head);
        let mut at = records - hidden;
        while at < canon.len() {
            let tag = canon[at];
            if tag & super::layout::CHAN_TAG != 0 {
                let Some(c) = self
                    .layout
                    .chans
                    .get((tag & !super::layout::CHAN_TAG) as usize)
                else {
                    return false;
                };
                let Some(rec) = canon.get(at..at + c.record_size()) else {
                    return false;
                };
                out.chans.push(out.v.len() as u32);
                super::small_copy::extend(&mut out.v, rec);
                at += c.record_size();
                continue;
            }
            let Some(p) = self.layout.procs.get(tag as usize) else {
                return false;
            };
            let size = p.record_size();
            let Some(id) = canon.get(at + 1..at + 5) else {
                return false;
            };
            let id = u32::from_le_bytes([id[0], id[1], id[2], id[3]]);
            let Some((proc, li)) = self.locate_id(crate::program::LocId(id)) else {
                return false;
            };
            if proc != tag as usize {
                return false;
            }
            let Some(rest) = canon.get(at + 5..at + 5 + size - 1 - lw) else {
                return false;
            };
            out.procs.push(out.v.len() as u32);
            out.v.push(tag);
            super::small_copy::extend(&mut out.v, &li.to_le_bytes()[..lw]);
            super::small_copy::extend(&mut out.v, rest);
            at += 5 + size - 1 - lw;
        }
        debug_assert!({
            let mut check = out.clone();
            check.rescan(&self.layout);
            check.procs == out.procs && check.chans == out.chans
        });
        true
    }

    /// The size pan's state vector would have for `st` (its `vsize`): the header and
    /// globals, then each process and channel in creation order from the next multiple of 8.
    pub fn pan_vector(&self, st: &State) -> u64 {
        self.pan_vector_from(st, self.pan.base)
    }

    /// `pan_vector` as pan -a built without a claim lays it out (the header's acceptance
    /// counters kept).
    pub fn pan_vector_acceptance(&self, st: &State) -> u64 {
        self.pan_vector_from(st, self.pan.acceptance_base)
    }

    fn pan_vector_from(&self, st: &State, base: u64) -> u64 {
        let (mut i, mut j) = (0, 0);
        let mut v = base;
        if let Some(c) = &self.claim {
            // The claim is pan's process 0; a build with a claim keeps the acceptance bits
            // (`_a_t`, `_cnt[2]`) in the header.
            v = self.pan.claim_base + self.pan.procs[c.proc];
        }
        loop {
            let size = match (st.procs.get(i), st.chans.get(j)) {
                (Some(&p), c) if c.is_none_or(|&c| p < c) => {
                    i += 1;
                    self.pan.procs[st.v[p as usize] as usize]
                }
                (_, Some(&c)) => {
                    j += 1;
                    self.pan.chans[st.chan_type(c as usize)]
                }
                _ => return v,
            };
            v = v.div_ceil(8) * 8 + size;
        }
    }

    /// pan's vector size of a state whose records carry `tags` in vector order (see
    /// `State::tags`), as `pan_vector` computes it (a checked claim's record first).
    pub fn pan_of_tags(&self, tags: &[u8]) -> Option<u64> {
        let mut v = match &self.claim {
            Some(c) => self.pan.claim_base + *self.pan.procs.get(c.proc)?,
            None => self.pan.base,
        };
        for &t in tags {
            let size = if t & super::layout::CHAN_TAG != 0 {
                *self
                    .pan
                    .chans
                    .get((t & !super::layout::CHAN_TAG) as usize)?
            } else {
                *self.pan.procs.get(t as usize)?
            };
            v = v.div_ceil(8) * 8 + size;
        }
        Some(v)
    }

    /// The length of a state's vector in the search's form (hidden globals included, and a
    /// checked claim's location) for a state whose canonical vector is `canon` bytes long and
    /// whose records carry `tags`: the canonical form keeps each process's location in 4
    /// bytes, the search's in `loc_width`.
    pub fn vector_len_of(&self, canon: u64, tags: &[u8]) -> u64 {
        let procs = tags
            .iter()
            .filter(|&&t| t & super::layout::CHAN_TAG == 0)
            .count() as u64;
        let lw = self.layout.loc_width as u64;
        let claim = if self.claim.is_some() { lw } else { 0 };
        (canon + self.layout.hidden_size as u64 + claim).saturating_sub(procs * (4 - lw))
    }

    /// The 128-bit fingerprint of a state: its canonical encoding hashed with the layout.
    pub fn fingerprint(&self, st: &State) -> super::store::Fingerprint {
        let mut buf = Vec::new();
        self.canonical(st, &mut buf);
        super::store::fingerprint(self.layout.hash, &buf)
    }

    /// The edge numbers of the location process `pid` is at (None: no such location).
    #[inline]
    pub(crate) fn edge_range(&self, st: &State, pid: Pid) -> Option<(EdgeNo, EdgeNo)> {
        let (base, count) = *self.proc_locs.get(st.ptype(pid))?;
        let loc = st.loc(pid);
        if loc >= count {
            return None;
        }
        let i = (base + loc) as usize;
        Some((self.loc_first[i], self.loc_first[i + 1]))
    }

    /// What the successor loop asks of edge `no` (`EdgeHot`).
    #[inline]
    pub(crate) fn hot(&self, no: EdgeNo) -> &EdgeHot<'p> {
        &self.hot[no as usize]
    }

    #[inline]
    pub fn edge_no(&self, proc: usize, loc: u32, k: usize) -> EdgeNo {
        self.edge_base[proc][loc as usize] + k as u32
    }

    pub fn edge(&self, no: EdgeNo) -> &'p Edge {
        let (p, l, k) = self.edges[no as usize];
        &self.prog.procs[p as usize].automaton.locations[l as usize].edges[k as usize]
    }

    pub fn edge_proc(&self, no: EdgeNo) -> usize {
        self.edges[no as usize].0 as usize
    }

    /// The initial state: globals initialised in declaration order (channels created as
    /// they are declared), then the active processes in declaration order. Never claims are
    /// not processes (a checked claim's location is set to its initial one), nor is an
    /// event trace (its location is set to its initial one).
    pub fn initial(&self) -> Result<State, Fault> {
        let mut st = State {
            v: vec![0; self.layout.records_at as usize],
            lw: self.layout.loc_width as u8,
            ..State::default()
        };
        if let Some(c) = &self.claim {
            c.set_loc(&mut st, c.initial);
        }
        if let Some(t) = &self.trace {
            t.set_loc(&mut st, t.initial);
        }
        let cx = Ctx::of(0);
        for (g, var) in self.layout.globals.iter().zip(&self.prog.globals) {
            let at = self.layout.global_base(g) as usize;
            self.init_var(&mut st, cx, at, &g.shape, var)?;
        }
        for (i, p) in self.prog.procs.iter().enumerate() {
            if p.kind == ProcKind::Never || p.kind.is_trace() {
                continue;
            }
            for _ in 0..p.active {
                self.create_proc(&mut st, i, &[], p.priority as i32)?;
            }
        }
        Ok(st)
    }

    /// Whether the process's `provided` clause allows it to move.
    #[inline]
    pub fn provided(&self, st: &State, pid: Pid) -> bool {
        if !self.any_provided {
            return true;
        }
        let t = st.ptype(pid);
        match &self.prog.procs[t].provided {
            None => true,
            Some(e) => {
                let cx = Ctx::of(pid);
                self.eval(st, cx, e).map(|v| v != 0).unwrap_or(false)
            }
        }
    }
}
