//! Weak fairness in the product's search for acceptance cycles (pan -f, read from pan's
//! `new_state`, `h_store` and `checkcycles` of SPIN 6.5.2; section 5 of the claims note). It
//! rides the one search as data of its frames and of its stored states; nothing here
//! searches, and a search without -f never reaches this file.
//!
//! A frame carries pan's A-bit (`_a_t & 2`) and counter (`_cnt[_a_t & 1]`), as the frame was
//! reached and as its moves see them. Rule 1: a program turn that is accepting, its A-bit
//! clear, sets it and the counter to pan's number of processes (the claim included) plus
//! one. Rule 2: as the system's turn tries process II (pan numbers the claim 0, so II is the
//! pid plus one) with the counter at II + 2, the counter drops by one (to 1 for II = 1: the
//! claim need not move), once per turn; undone when II moved, kept when it did not (and then,
//! if anything moved before, every process is tried again). Rule 3: a counter at 1 clears
//! the A-bit, in a program turn and in the claim's turn before it moves. When nothing of
//! the system moves and the counter is not 0, pan takes a "default move": the same state at
//! the next depth, counter 1, the claim's turn. A nested search starts only from a claim's
//! turn reached with the A-bit and counter 1, and closes a cycle only with the counter at 1.
//!
//! Without a claim (pan -a -f built without one), every state outside atomic sequences is a
//! program turn and is stored: rules 1 and 3 apply as its frame is pushed, pan numbers the
//! processes from 0 (`II` is the pid, none exempt), the default move is a program turn
//! again, and a nested search starts from any stored state that moved, reached with the
//! A-bit and counter 1.
//!
//! A stored state is one entry whatever its counter (pan's compare skips `_a_t` and `_cnt`),
//! with bits for the (search, A-bit) pairs and the counter values that visited it, and for
//! the (search, A-bit) pairs that have it on their stack: a visit is new when one of its
//! bits is. pan's figures count entries (stored) and visits (visited).

use super::product::{ACCEPT, CLAIM, STUTTER};
use super::{Ident, Rider, Search, NONE};
use crate::explore::budget::{Budget, OutOfMemory};
use crate::explore::chunked::ChunkedVec;
use crate::explore::outcome::{Violation, ViolationKind};
use crate::explore::trail::TrailStep;

/// pan's process limit under -f (`-DNFAIR=2`): its counter bits hold `8 * NFAIR / 2 - 2`
/// processes, the claim included; pan stops when `_nr_pr + 1` reaches `8 * NFAIR / 2`.
pub const MAX_FAIR_PROCS: usize = 6;

/// The message of a model with more processes than weak fairness takes (`claim`: the
/// count includes a never claim's).
pub fn too_many_message(procs: usize, claim: bool) -> String {
    let with = if claim { " with the claim" } else { "" };
    format!(
        "too many processes for weak fairness: {procs}{with}, pan -f takes at most \
         {MAX_FAIR_PROCS} (it stops there; its -DNFAIR=3 takes more, which git rmc does not)"
    )
}

/// No process is being tried.
const NO_PID: u8 = u8::MAX;
/// Rule 2 was applied in this turn (pan's `o_pm & 32`).
const R2: u8 = 1;
/// ... to the process being tried (`o_pm & 64`).
const R2_HERE: u8 = 2;
/// The process being tried moved (`o_pm & 1`).
const PID_MOVED: u8 = 4;
/// Something moved in this turn (pan's `_n != 0`, rendezvous offers included).
const ANY: u8 = 8;
/// The turn took the default move.
const DEFAULTED: u8 = 16;

/// A frame's fairness.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Fair {
    /// As the frame was reached (what its state is stored with).
    pub a0: bool,
    pub c0: u8,
    /// As its moves see them.
    pub a: bool,
    pub c: u8,
    flags: u8,
    pid: u8,
    /// Over a recorded system graph: where the reading of the frame's system turn stands
    /// (`fair_graph`), the process it announces next, and the highest one of its state.
    pub read: super::fair_graph::Reading,
    pub ann: i16,
    pub top: i16,
    /// The nested search explores the frame's state again: on both searches' stacks with
    /// the counter at 0 (pan's "fairness count non-zero").
    pub again: bool,
}

impl Fair {
    pub fn reached(a: bool, c: u8) -> Fair {
        Fair {
            a0: a,
            c0: c,
            a,
            c,
            flags: 0,
            pid: NO_PID,
            read: super::fair_graph::Reading::Closed,
            ann: -1,
            top: -1,
            again: false,
        }
    }

    /// Rules 1 and 3 as a program turn begins; `procs` is pan's `_nr_pr` (the claim
    /// included).
    pub fn program_turn(&mut self, accept: bool, procs: usize) {
        if !self.a {
            if accept {
                self.a = true;
                self.c = (procs + 1).min(u8::MAX as usize) as u8;
            }
        } else if self.c == 1 {
            self.a = false;
            self.c = 0;
        }
    }

    /// What the claim's moves see: rule 3 on the values the turn was reached with (pan
    /// undoes rules 1 and 3 of a program turn before its claim stutters).
    pub fn claim_moves(&self) -> (bool, u8) {
        match self.a0 && self.c0 == 1 {
            true => (false, 0),
            false => (self.a0, self.c0),
        }
    }

    /// The process the turn is trying, if any.
    pub fn trying(&self) -> Option<u8> {
        (self.pid != NO_PID).then_some(self.pid)
    }

    /// A claim's turn reached like this may seed the nested search.
    pub fn seeds(&self) -> bool {
        self.a0 && self.c0 == 1
    }

    /// The turn tries process `pid`: rule 2. With a claim (`veri`), pan numbers the claim
    /// 0 and process `pid` is its `II = pid + 1`; without one, `II = pid`.
    fn try_process(&mut self, pid: u8, veri: bool) {
        self.pid = pid;
        self.flags &= !(R2_HERE | PID_MOVED);
        if self.flags & R2 == 0 && self.a && rule2_applies(self.c, pid, veri) {
            self.c = rule2(self.c, pid, veri);
            self.flags |= R2 | R2_HERE;
        }
    }

    fn undo_rule2(&mut self, veri: bool) {
        if veri && self.c == 1 {
            self.c = 2;
        }
        self.c = self.c.saturating_add(1);
    }

    /// The turn is done with the process it tried last: true when every process is to be
    /// tried again (rule 2 applied to a process that did not move, after others moved).
    fn tried(&mut self, veri: bool) -> bool {
        if self.pid == NO_PID {
            return false;
        }
        self.pid = NO_PID;
        if self.flags & R2_HERE == 0 {
            return false;
        }
        if self.flags & PID_MOVED != 0 {
            self.undo_rule2(veri);
            self.flags &= !(R2 | R2_HERE);
            return false;
        }
        if self.flags & ANY != 0 {
            self.flags &= !R2_HERE;
            return true;
        }
        false
    }

    /// The pass over the processes is over: a decrement that stayed is undone.
    fn pass_over(&mut self, veri: bool) {
        if self.flags & R2 != 0 {
            self.undo_rule2(veri);
            self.flags &= !R2;
        }
    }

    /// The process being tried moved. (pan marks a rendezvous offer as a move of its
    /// sender as it takes the offer back, in its `unsend`, when a receive took it.)
    pub fn moved(&mut self) {
        self.flags |= ANY | PID_MOVED;
    }
}

/// Whether rule 2 applies to process `pid` with the counter at `c`: pan's `cnt == II + 2`.
fn rule2_applies(c: u8, pid: u8, veri: bool) -> bool {
    u16::from(c) == u16::from(pid) + 2 + u16::from(veri)
}

/// The counter after rule 2 for process `pid`: one less, or 1 when the claim would be next
/// (it need not move).
fn rule2(c: u8, pid: u8, veri: bool) -> u8 {
    match veri && pid == 0 {
        true => 1,
        false => c - 1,
    }
}

/// What pan's `h_store` makes of a state it has stored (or stores now).
pub(super) enum Hs {
    /// A new visit: explore it.
    New,
    /// A state on the first search's stack, met by the nested search (`wasnew`: the visit
    /// was new). A cycle when the counter is 1.
    Cycle { wasnew: bool },
    /// On the current search's stack.
    Stack,
    /// Visited before.
    Old,
}

/// The fairness of the frames and of the stored states.
pub(super) struct FairStore {
    /// Per frame index, written as the frame is pushed (entries above the top are stale).
    stack: ChunkedVec<Fair>,
    /// Per search id: counter bits (0..16), visit bits (16..20), stack bits (20..24).
    bits: ChunkedVec<u32>,
    /// The fairness of the frame pushed next.
    pub next: Fair,
    /// Visits pan counts as stored states (a state on both stacks with the counter at 0:
    /// `nstates++` without `nShadow++`).
    pub unshadowed: u64,
    /// pan's `From` less one, as the last move left it: the process a turn that tries every
    /// process again starts from. pan sets it at every move (the processes of the state
    /// moved to, or the process in an atomic sequence) and does not restore it when it
    /// backtracks, so it may be another state's.
    pub from: i32,
    /// The search is a product with a never claim (pan's VERI): the claim is pan's process
    /// 0 and counts among the processes.
    pub veri: bool,
}

/// pan's `V_A`: the visit (and stack) bit of a search and A-bit.
fn va(dfs2: bool, a: bool) -> u32 {
    (if dfs2 { 2 } else { 1 }) << (if a { 2 } else { 0 })
}

/// pan's `A_V`: the other search's bit.
fn av(dfs2: bool, a: bool) -> u32 {
    (if dfs2 { 1 } else { 2 }) << (if a { 2 } else { 0 })
}

/// The counter's bit: the first search counts from the first bit of `_cnt`, the nested one
/// from the last (pan shares the bits; they meet above 7).
fn cnt_bit(dfs2: bool, c: u8) -> u32 {
    let k = u32::from(c.min(15));
    match dfs2 {
        true => 1 << (15 - k),
        false => 1 << k,
    }
}

impl FairStore {
    pub fn new(budget: &Budget, veri: bool) -> FairStore {
        FairStore {
            veri,
            stack: ChunkedVec::new(budget.clone(), 1 << 14),
            bits: ChunkedVec::new(budget.clone(), 1 << 16),
            next: Fair::reached(false, 0),
            unshadowed: 0,
            from: 0,
        }
    }

    pub fn put(&mut self, fi: usize, f: Fair) -> Result<(), OutOfMemory> {
        while self.stack.len() <= fi {
            self.stack.push(Fair::default())?;
        }
        *self.stack.get_mut(fi) = f;
        Ok(())
    }

    pub fn get(&self, fi: usize) -> Fair {
        self.stack.get(fi)
    }

    pub fn get_mut(&mut self, fi: usize) -> &mut Fair {
        self.stack.get_mut(fi)
    }

    fn word(&mut self, id: u32) -> Result<&mut u32, OutOfMemory> {
        while self.bits.len() <= id as usize {
            self.bits.push(0)?;
        }
        Ok(self.bits.get_mut(id as usize))
    }

    /// A state stored for the first time, by the search `dfs2` with `(a, c)`.
    pub fn stored(&mut self, id: u32, dfs2: bool, a: bool, c: u8) -> Result<(), OutOfMemory> {
        let v = va(dfs2, a);
        *self.word(id)? = cnt_bit(dfs2, c) | v << 16 | v << 20;
        Ok(())
    }

    /// The stored state `id` reached by the search `dfs2` with `(a, c)`; `beyond`: deeper
    /// than the nested search's seed.
    pub fn reach(
        &mut self,
        id: u32,
        dfs2: bool,
        (a, c): (bool, u8),
        beyond: bool,
    ) -> Result<Hs, OutOfMemory> {
        let (v, o, cb) = (va(dfs2, a), av(dfs2, a), cnt_bit(dfs2, c));
        let w = self.word(id)?;
        let mut wasnew = false;
        if *w >> 16 & v == 0 {
            wasnew = true;
            *w |= v << 16;
        }
        if *w & cb == 0 {
            wasnew = true;
            *w |= cb;
        }
        let tagged = *w >> 20 & 0xf;
        let other = dfs2 && tagged & o != 0 && beyond;
        if wasnew {
            *w |= v << 20;
            return Ok(match other {
                true => Hs::Cycle { wasnew: true },
                false => Hs::New,
            });
        }
        if tagged & v != 0 {
            return Ok(match other && c <= 1 {
                true => Hs::Cycle { wasnew: false },
                false => Hs::Stack,
            });
        }
        Ok(Hs::Old)
    }

    /// The state `id` leaves the stack of the search `dfs2` with A-bit `a`.
    pub fn unstack(&mut self, id: u32, dfs2: bool, a: bool) -> Result<(), OutOfMemory> {
        *self.word(id)? &= !(va(dfs2, a) << 20);
        Ok(())
    }
}

impl<R: Rider> Search<'_, '_, R> {
    pub(super) fn fair_store(&mut self) -> Option<&mut FairStore> {
        self.ndfs.as_mut().and_then(|n| n.fair.as_mut())
    }

    /// The fairness of frame `fi`.
    pub(super) fn fair_of(&self, fi: usize) -> Fair {
        self.ndfs
            .as_ref()
            .and_then(|n| n.fair.as_ref())
            .map_or_else(Fair::default, |f| f.get(fi))
    }

    /// The frame pushed next is reached with `(a, c)`.
    pub(super) fn fair_next(&mut self, (a, c): (bool, u8)) {
        if let Some(f) = self.fair_store() {
            f.next = Fair::reached(a, c);
        }
    }

    /// The frame being pushed at `fi` takes the fairness set for it. Without a claim, a
    /// state stored outside an atomic sequence is a program turn: rules 1 and 3 apply to
    /// what its moves see (with a claim, `visit_product` applies them to the program turn,
    /// which is never stored).
    pub(super) fn fair_push(&mut self, fi: usize) {
        let turn = self.solo && self.next_tau & super::product::ATOMIC == 0;
        let (accept, procs) = (self.next_tau & ACCEPT != 0, self.next.nr_pr());
        let Some(f) = self.fair_store() else {
            return;
        };
        let mut next = f.next;
        if turn {
            next.program_turn(accept, procs);
        }
        if f.put(fi, next).is_err() {
            self.out_of_memory();
        }
    }

    /// The system's turn of frame `fi` announces process `g` (None: the end of its pass);
    /// `skipped`: the process before was not tried (its `provided` clause or a priority).
    /// Some(from) when the turn is to try the processes again from `from` down.
    pub(super) fn fair_turn(&mut self, fi: usize, g: Option<u8>, skipped: bool) -> Option<i32> {
        let s = self.fair_store()?;
        let (from, veri) = (s.from, s.veri);
        let f = s.get_mut(fi);
        if skipped {
            // pan leaves it at once: rule 2, if applied, stays until the pass is over.
            f.pid = NO_PID;
        } else if f.tried(veri) {
            return Some(from);
        }
        match g {
            Some(pid) => f.try_process(pid, veri),
            None => f.pass_over(veri),
        }
        None
    }

    /// A move led to `st`; `atomic`: the process that keeps atomic control (pan's `From`).
    pub(super) fn fair_from(&mut self, procs: usize, atomic: Option<u8>) {
        if let Some(s) = self.fair_store() {
            s.from = atomic.map_or(procs as i32 - 1, i32::from);
        }
    }

    /// A move of frame `fi`'s system turn: its successor is reached with what the turn's
    /// moves see. A rendezvous's receiver `rv` gets rule 2 as its receive completes (pan's
    /// receive code, in the frame of the offer; undone after, since the receiver moved).
    pub(super) fn fair_moved(&mut self, fi: usize, rv: Option<u8>) {
        if let Some(s) = self.fair_store() {
            let veri = s.veri;
            let f = s.get_mut(fi);
            f.moved();
            let (a, mut c) = (f.a, f.c);
            if let Some(q) = rv {
                if a && rule2_applies(c, q, veri) {
                    c = rule2(c, q, veri);
                }
            }
            s.next = Fair::reached(a, c);
        }
    }

    /// Frame `fi`'s system turn took `step` (executed or read from a record), which leaves
    /// `nr` processes running and `atomic` keeping atomic control: the successor's
    /// counters, pan's `From`, and its limit on processes. False: past the limit (a fatal
    /// error, reported).
    pub(super) fn fair_took(
        &mut self,
        fi: usize,
        step: TrailStep,
        nr: usize,
        atomic: Option<u8>,
    ) -> bool {
        self.fair_moved(fi, step.rv.map(|(r, _)| r));
        self.fair_from(nr, atomic);
        let procs = nr + usize::from(!self.solo);
        if procs > MAX_FAIR_PROCS {
            self.fair_too_many(Some(step), procs);
            return false;
        }
        true
    }

    /// Frame `fi`'s system turn moved nothing (not inside an atomic sequence): pan's
    /// default move, when the counter is not 0, takes the same state to the next depth as
    /// the claim's turn with the counter at 1. True when it was taken (or had been).
    pub(super) fn default_move(&mut self, fi: usize, tau: u8) -> bool {
        let non_progress = self.m.claim.as_ref().is_some_and(|c| c.non_progress);
        let timeouts = self.m.claim.as_ref().is_some_and(|c| c.timeouts);
        // (A turn read from a recorded graph may have left another frame's state loaded;
        // the move's product state is this frame's recorded state, known by its slot.)
        self.load(fi);
        self.next_slot = self.frames.get_ref(fi).slot;
        let procs = self.cur.nr_pr() as i32;
        let Some(s) = self.fair_store() else {
            return false;
        };
        let f = s.get_mut(fi);
        if f.flags & DEFAULTED != 0 {
            return true;
        }
        // pan -l (-DNP) has no default move; with `timeout` in the model, only once the
        // claim's turn with `timeout` was tried.
        if non_progress
            || (timeouts && tau & super::product::TIMEOUT == 0)
            || f.c == 0
            || f.flags & ANY != 0
        {
            return false;
        }
        f.flags |= DEFAULTED;
        let a = f.a;
        s.next = Fair::reached(a, 1);
        s.from = procs - 1;
        let depth = self.frames.get_ref(fi).depth();
        self.next.copy_from(&self.cur);
        // With a claim, the claim's turn; without one, a program turn again.
        let to = if self.solo { 0 } else { CLAIM };
        self.visit_product(depth + 1, None, to, None, false);
        true
    }

    /// With -f: the state in `self.next` (or the frame on top, `in_place`), reached by
    /// `step` at `depth`, is `ident`: pan's `h_store` and what `new_state` makes of it.
    pub(super) fn arrive_fair(
        &mut self,
        ident: Ident,
        depth: u64,
        step: Option<TrailStep>,
        in_place: bool,
    ) {
        let (dfs2, beyond) = match &self.ndfs {
            Some(n) => (n.root.is_some(), n.root.is_some() && depth > n.a_depth),
            None => return,
        };
        let top = self.frames.len().saturating_sub(1);
        let Some(s) = self.fair_store() else {
            return;
        };
        let reached = match in_place {
            true => s.get(top),
            false => s.next,
        };
        let (a, c) = (reached.a0, reached.c0);
        let id = match ident {
            Ident::New { id, sid, key } => {
                if s.stored(id, dfs2, a, c).is_err() {
                    return self.out_of_memory();
                }
                if !dfs2 {
                    let frames = self.frames.len();
                    match in_place {
                        true => self.store_blocked(frames - 1, id, sid, key, true),
                        false => self.enter(id, sid, key, depth, step, true),
                    }
                    if self.frames.len() > frames - usize::from(in_place)
                        && self.frames.get_ref(self.frames.len() - 1).id == id
                    {
                        self.claim_end_check();
                    }
                    return;
                }
                // New to the whole search (a stuttering seed's state): stored now.
                self.stats.states_stored += 1;
                return self.explore_fair(id, depth, step, in_place, false);
            }
            Ident::Known(id) => id,
        };
        let hs = match s.reach(id, dfs2, (a, c), beyond) {
            Ok(h) => h,
            Err(_) => return self.out_of_memory(),
        };
        match hs {
            Hs::New => {
                self.stats.states_revisited += 1;
                self.explore_fair(id, depth, step, in_place, false)
            }
            Hs::Cycle { wasnew: false } if c != 1 && self.fair_runaway(id, (a, c), in_place) => {
                // pan would explore it again, and again from there without end (to its
                // depth limit): a match here.
                self.stats.states_matched += 1;
                if in_place {
                    self.pop();
                }
            }
            Hs::Cycle { wasnew } if c != 1 => {
                // pan: "fairness count non-zero", explored as a new visit.
                match wasnew {
                    true => self.stats.states_revisited += 1,
                    false => {
                        if let Some(s) = self.fair_store() {
                            s.unshadowed += 1;
                        }
                    }
                }
                self.explore_fair(id, depth, step, in_place, !wasnew)
            }
            Hs::Cycle { wasnew } => {
                if !wasnew {
                    // pan's `nShadow--` on a visit it did not count (see `Ndfs::phantom`).
                    if let Some(n) = &mut self.ndfs {
                        n.phantom += 1;
                    }
                }
                self.report_cycle(|s| s.fair_frame_of(id), step);
                if in_place {
                    self.pop();
                }
            }
            Hs::Stack | Hs::Old => {
                self.stats.states_matched += 1;
                if in_place {
                    self.pop();
                }
            }
        }
    }

    /// Explores a visit of the stored state `id` again: a frame without a search id of its
    /// own, which keeps `id` in its `lowlink` (as the nested search's frames do); `again`:
    /// a state on both stacks with the counter at 0, which the nested search meets again.
    fn explore_fair(
        &mut self,
        id: u32,
        depth: u64,
        step: Option<TrailStep>,
        in_place: bool,
        again: bool,
    ) {
        self.reach(depth);
        if !in_place && !self.push(NONE, NONE, depth, None, NONE, step) {
            return;
        }
        let top = self.frames.len() - 1;
        self.frames.get_mut(top).lowlink = id;
        if let Some(s) = self.fair_store() {
            s.get_mut(top).again = again;
        }
        self.claim_end_check();
    }

    /// The nested search meets state `id` with the counters `(a, c)` again on both stacks
    /// (the counter at 0), which pan explores as new. Where every stored state since the
    /// frame that explores `id` with these counters again (below the top when `in_place`)
    /// was such a visit too, pan's next round is this one over again: each state on the
    /// way gets the same answer from the same marks (marks only grow, and what a sibling
    /// explored then is met now), so pan descends without end, to its depth limit (`-m`),
    /// finding no cycle it did not find in the first round. True there, unless the search
    /// has a depth limit (then it descends to it, as pan does, with pan's figures).
    fn fair_runaway(&self, id: u32, (a, c): (bool, u8), in_place: bool) -> bool {
        let Some(root) = self.ndfs.as_ref().and_then(|n| n.root) else {
            return false;
        };
        if self.opts.max_depth.is_some() {
            return false;
        }
        let top = self.frames.len() - usize::from(in_place);
        for i in (root..top).rev() {
            let f = self.frames.get_ref(i);
            if f.id == NONE && f.lowlink == NONE {
                // Not stored: a system's turn, a state inside an atomic run.
                continue;
            }
            let fair = self.fair_of(i);
            if !fair.again {
                return false;
            }
            if self.fair_id(i) == id && (fair.a0, fair.c0) == (a, c) {
                return true;
            }
        }
        false
    }

    /// The state id of frame `fi` under -f (a visit again keeps it in `lowlink`).
    pub(super) fn fair_id(&self, fi: usize) -> u32 {
        let f = self.frames.get_ref(fi);
        match f.id {
            NONE => f.lowlink,
            id => id,
        }
    }

    /// The frame of state `id` on the first search's stack: where it was stored, else its
    /// lowest visit (pan names the depth the state was stored at).
    fn fair_frame_of(&self, id: u32) -> Option<usize> {
        let top = self
            .ndfs
            .as_ref()
            .and_then(|n| n.root)
            .unwrap_or(self.frames.len());
        (0..top)
            .find(|&i| self.frames.get_ref(i).id == id)
            .or_else(|| (0..top).find(|&i| self.fair_id(i) == id))
    }

    /// Frame `fi` leaves its search's stack (pan's `onstack_zap`): the stack bit of its
    /// search and the A-bit it was reached with is cleared.
    pub(super) fn fair_unstack(&mut self, fi: usize, dfs2: bool) {
        let id = self.fair_id(fi);
        if id == NONE {
            return;
        }
        let a = self.fair_of(fi).a0;
        if let Some(s) = self.fair_store() {
            if s.unstack(id, dfs2, a).is_err() {
                self.out_of_memory();
            }
        }
    }

    /// A state with more processes than weak fairness takes, reached by `step` (pan stops
    /// there): a fatal error.
    pub(super) fn fair_too_many(&mut self, step: Option<TrailStep>, procs: usize) {
        let kind = ViolationKind::TooManyProcesses;
        self.stopped_by = Some(kind);
        let edge = step.map(|s| s.edge);
        self.rider.violation(self.m, kind, edge, &[]);
        if edge.is_some_and(|e| self.found.seen_edge(kind, e)) {
            return;
        }
        // No trail: a replay has no limit on processes, so no trail would end here.
        self.add(Violation {
            kind,
            edge,
            pid: step.map(|s| s.pid),
            message: too_many_message(procs, !self.solo),
            blocked: Vec::new(),
            trail: None,
            via: None,
            cycle: None,
            cycle_depth: None,
        });
    }
}

/// Whether the frame `tau` of a product turn is left as pan leaves a stack entry.
pub(super) fn zaps(tau: u8, parent_stutter: bool) -> bool {
    tau & super::product::ATOMIC == 0
        && ((tau & CLAIM != 0 && tau & STUTTER == 0) || parent_stutter)
}
