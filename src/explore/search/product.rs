//! The product with a never claim, inside the one search loop: pan's VERI search. The claim
//! and the system take turns, the claim first; a frame's `tau` holds whose turn it is and
//! pan's other bits. Only states where the claim is about to move are stored (and those a
//! stuttering claim reaches); a blocked claim cuts the path; a claim at its closing brace is
//! a violation; a blocked system first asks the claim's turn to move again with `timeout`
//! true (when the model uses `timeout`), then the claim stutters: it moves with the system
//! unchanged. Invalid end states are not checked. An atomic sequence (the system's or the
//! claim's) keeps the turn to its end.
//!
//! With -a (`Options::acceptance`), pan's nested depth-first search rides the same loop: when
//! a claim's turn of the first search that moved and is accepting is left, a copy of its
//! frame starts the nested search on top of the stack (`product_done`), which ends when that
//! copy is left. A cycle closes on the seed (pan's `A_Root`), on a state of the first
//! search's stack, or on a state of the current search's stack when it or its parent is
//! accepting; the counters (stored, visited again, matched) and the stack bits follow pan's
//! `h_store` and `onstack_zap` exactly, quirks included (see `Ndfs`).
//!
//! Read from pan's `new_state` (SPIN 6.5.2): the hashing condition at `Down`, the `tau` bits
//! set after a move, and the branches where nothing moved (`AllOver`, the timeout request,
//! `BreakOut`), `checkcycles` and `h_store`. Besides a plain check's rider, the product
//! (with a claim or without one) rides only the one that reads the system's moves from a
//! recorded graph (`Rider::system_graph`, `system_turn_recorded`).

use super::acceptors::Acceptors;
use super::{Ident, Rider, Search, NONE, SYS_BLOCKED, SYS_NOVEC, SYS_OPEN, SYS_TAIL};
use crate::explore::claim::{ClaimMove, CLAIM_PID};
use crate::explore::event::{End, Event, To};
use crate::explore::outcome::{Violation, ViolationKind};
use crate::explore::succ::Next;
use crate::explore::trail::TrailStep;

use super::fault_kind;

/// `timeout` holds in this turn (pan's tau bit 1).
pub(super) const TIMEOUT: u8 = 1;
/// The system's turn below blocked: run the claim's moves again with `timeout` (bit 2).
const REQUEST: u8 = 2;
/// The claim's turn (bit 4).
pub(super) const CLAIM: u8 = 4;
/// Inside an atomic sequence: the turn does not change (bit 8).
pub(super) const ATOMIC: u8 = 8;
/// The claim stutters: the system blocked, and the claim moves alone (bit 128).
pub(super) const STUTTER: u8 = 128;
/// The state is accepting (pan's `o_pm & 2`, set by the move into it); only with -a.
pub(super) const ACCEPT: u8 = 16;
/// Something moved from this frame (pan's `_n != 0`, for a claim's turn).
const MOVED: u8 = 32;
/// The nested search from this frame has run: the frame is left next.
const SEEDED: u8 = 64;

/// pan's nested depth-first search for acceptance cycles (-a, section 3 of the claims
/// note): states on each search's stack, the states the nested search visited, and the
/// seed it started from. Sets of search ids; their memory comes from the search's budget.
pub(super) struct Ndfs {
    on1: Bits,
    on2: Bits,
    seen2: Bits,
    /// States the nested search stored first (the vector of a stutter seed, which the first
    /// search never stores) and the first search has not visited: pan's visit bit for the
    /// first search is unset, so the first search explores them when it reaches them (a
    /// state visited again, its frame holding the id in `lowlink`, as the nested search's).
    fresh2: Bits,
    /// The frame of the nested search's root (the seed's copy), while it runs.
    pub(super) root: Option<usize>,
    /// The seed's depth (pan's `A_depth`, 0 outside a nested search) and its stored bytes
    /// (`A_Root`).
    pub(super) a_depth: u64,
    a_root: Vec<u8>,
    /// With a recorded system graph: the seed's key (states are known by key there).
    a_root_key: u32,
    /// Without a claim, over a recorded graph: a process of the seed is inside an atomic
    /// sequence, so a state inside a recorded atomic run (which has no vector there) may be
    /// the seed's.
    a_root_atomic: bool,
    /// pan's `nShadow--` where a nested search meets the first one's stack on a state it
    /// had visited: pan's stored count (visited less nShadow) grows by one each time.
    pub(super) phantom: u64,
    /// With weak fairness (-f): the counters of the frames and the stored states' bits.
    pub(super) fair: Option<super::fair::FairStore>,
}

impl Ndfs {
    pub(super) fn new(budget: &crate::explore::budget::Budget, fair: bool, veri: bool) -> Ndfs {
        Ndfs {
            fair: fair.then(|| super::fair::FairStore::new(budget, veri)),
            on1: Bits::new(budget),
            on2: Bits::new(budget),
            seen2: Bits::new(budget),
            fresh2: Bits::new(budget),
            a_root_key: NONE,
            a_root_atomic: false,
            root: None,
            a_depth: 0,
            a_root: Vec::new(),
            phantom: 0,
        }
    }
}

/// A set of search ids.
struct Bits(crate::explore::chunked::ChunkedVec<u64>);

impl Bits {
    fn new(budget: &crate::explore::budget::Budget) -> Bits {
        Bits(crate::explore::chunked::ChunkedVec::new(
            budget.clone(),
            1 << 14,
        ))
    }

    fn has(&self, id: u32) -> bool {
        let (w, b) = (id as usize / 64, id % 64);
        w < self.0.len() && self.0.get(w) >> b & 1 == 1
    }

    /// Sets or clears `id`; false when memory ran out.
    fn put(&mut self, id: u32, on: bool) -> bool {
        let (w, b) = (id as usize / 64, id % 64);
        while self.0.len() <= w {
            if self.0.push(0).is_err() {
                return false;
            }
        }
        let x = self.0.get_mut(w);
        if on {
            *x |= 1 << b;
        } else {
            *x &= !(1 << b);
        }
        true
    }
}

/// What a nested search makes of a state it reaches (pan's `h_store` with the visit and
/// stack bits of both searches, and the checks around it).
enum Arrive {
    /// Explore it: its search id.
    Explore(u32),
    /// Met again, or a cycle was reported.
    Done,
}

/// The message pan prints for a state at an accept label where nothing moves (without a
/// claim).
const ACCEPT_STUTTER: &str = "accept stutter";

/// The message pan prints for a claim at its end.
const CLAIM_END: &str = "end state in claim reached";

impl<R: Rider> Search<'_, '_, R> {
    /// One step of the product's frame `fi`: the claim's next move or the system's.
    pub(super) fn product_step(&mut self, fi: usize, depth: u64) {
        let tau = self.frames.get_ref(fi).tau;
        if self.sys_graph.is_some() && tau & CLAIM == 0 {
            return self.system_turn_recorded(fi, depth, tau);
        }
        self.load(fi);
        if tau & CLAIM != 0 {
            self.claim_turn(fi, depth, tau);
        } else {
            self.system_turn(fi, depth, tau);
        }
    }

    /// The system's turn of frame `fi` with its moves taken from the recorded graph
    /// (`Rider::system_graph`): the recorded expansion of the frame's state, atomic runs
    /// followed inside it as recorded (a run keeps the turn, as an executed one does, so no
    /// move of the claim falls inside one), each move's target the recorded state with the
    /// claim where it is. What an executed turn does with a move, a fault, a failed offer
    /// and a blocked run, this does with their records. The recorded pass with `timeout`
    /// true is read only in a turn the claim allowed it in.
    fn system_turn_recorded(&mut self, fi: usize, depth: u64, tau: u8) {
        let f = *self.frames.get_ref(fi);
        if tau & SEEDED != 0 {
            // Without a claim a system turn seeds the nested search; back on top, it is
            // over.
            return self.product_done(fi);
        }
        if f.sys & SYS_BLOCKED != 0 {
            return self.system_blocked(fi, tau);
        }
        if f.sys & (SYS_OPEN | SYS_NOVEC) == 0 {
            self.load(fi);
            let q = self.m.claim.as_ref().map_or(0, |c| c.loc(&self.cur));
            self.sys_q.push(q);
            if let Some(a) = &mut self.acceptors {
                a.enter(fi, Acceptors::of(self.m, &self.cur));
            }
            self.rider.open_system(f.slot, tau & TIMEOUT != 0);
            self.frames.get_mut(fi).sys |= SYS_OPEN;
            if self.fair {
                self.fair_open(fi, tau);
            }
        }
        let (Some(ev), Some(&q)) = (self.rider.system_event(), self.sys_q.last()) else {
            self.halted = true;
            return;
        };
        if self.fair && !self.fair_read(fi, &ev) {
            return;
        }
        match ev {
            Event::Offer => {
                self.reach(depth + 1);
                if self.fair {
                    // (As `system_turn`: an offer nobody took sets pan's `From`.)
                    let nr = self.acceptors.as_mut().and_then(|a| a.of(fi));
                    self.fair_from(nr.map_or(0, |a| a.nr()), None);
                }
            }
            Event::Group { pid: None, .. } if tau & TIMEOUT == 0 && !self.solo => {
                // The first pass is over: the pass with `timeout` is the claim's to allow.
                // As `system_turn` leaves the cursor's own, its failed offers up to its
                // first result still reached the level below.
                self.frames.get_mut(fi).sys |= SYS_TAIL;
            }
            _ if f.sys & SYS_TAIL != 0 => {
                if self.frames.get_ref(fi).cursor.moved > 0 {
                    self.product_done(fi)
                } else {
                    if tau & ATOMIC == 0 {
                        self.frames.get_mut(fi).sys |= SYS_BLOCKED;
                    }
                    self.system_blocked(fi, tau)
                }
            }
            Event::Group { .. } | Event::End(End::Group) => {}
            Event::Step { step, flag, to } => {
                self.frames.get_mut(fi).cursor.count_step();
                if self.solo {
                    self.frames.get_mut(fi).tau |= MOVED;
                }
                self.mark(step);
                if let Some(flag) = flag {
                    self.report_flag(flag, step);
                }
                let d = depth + if step.rv.is_some() { 2 } else { 1 };
                let mover = step.rv.map_or(step.pid, |(p, _)| p);
                let sys = match &mut self.acceptors {
                    Some(a) => match a.of(fi) {
                        Some(set) => Some(set.after(self.m, step)),
                        None => {
                            self.halted = true;
                            return;
                        }
                    },
                    None => None,
                };
                if self.fair {
                    let nr = sys.map_or(0, |s| s.nr());
                    let atomic = matches!(to, To::Atomic | To::Repeat).then_some(mover);
                    if !self.fair_took(fi, step, nr, atomic) {
                        return;
                    }
                }
                match to {
                    To::State(slot) => {
                        // Without a claim the system moves again from the state it reached.
                        let to = if self.solo { 0 } else { CLAIM };
                        self.visit_recorded(d, step, to, Some((slot, q)), sys);
                    }
                    To::Atomic => {
                        let to = ATOMIC | (tau & TIMEOUT);
                        self.visit_recorded(d, step, to, None, sys)
                    }
                    To::Repeat => {
                        if self.limit.is_none() && self.arrive(d, Some(step)) {
                            self.stats.atomic_steps += 1;
                            self.non_terminating(Some(step), mover);
                        }
                    }
                }
            }
            Event::Fault {
                step,
                kind,
                executed,
                flag,
            } => {
                if executed {
                    self.frames.get_mut(fi).cursor.count_step();
                    if self.fair {
                        self.fair_moved(fi, None);
                    }
                }
                self.recorded_fault(depth, step, kind, executed, flag);
            }
            Event::End(End::Stored(_)) if f.sys & SYS_NOVEC == 0 => {
                // Only a state inside an atomic run blocks so: a record that contradicts
                // itself.
                self.halted = true;
            }
            Event::End(End::Stored(k)) => {
                // The atomic run blocked in the recorded state `k`: the frame becomes that
                // state, with its vector, and the claim moves from it (`system_blocked`).
                self.loaded = usize::MAX;
                let mut cur = std::mem::take(&mut self.cur);
                let built = self.rider.build_product(self.m, k, q, &mut cur);
                self.cur = cur;
                if !built {
                    self.halted = true;
                    return;
                }
                self.forget_kept(fi);
                self.path.truncate(f.at);
                let Ok(at) = self.path.push(&self.cur.v) else {
                    return self.out_of_memory();
                };
                let len = self.cur.v.len() as u32;
                let fr = self.frames.get_mut(fi);
                (fr.at, fr.len, fr.sid, fr.slot) = (at, len, NONE, k);
                fr.sys &= !SYS_NOVEC;
                self.loaded = fi;
                self.system_blocked(fi, tau);
            }
            Event::End(_) => {
                if self.frames.get_ref(fi).cursor.moved > 0 {
                    self.product_done(fi)
                } else {
                    if self.solo && f.sys & SYS_NOVEC == 0 {
                        // (An accept stutter asks the state's processes.)
                        self.load(fi);
                    }
                    if tau & ATOMIC == 0 {
                        self.frames.get_mut(fi).sys |= SYS_BLOCKED;
                    }
                    self.system_blocked(fi, tau)
                }
            }
        }
    }

    /// A recorded move of the system at `depth` by `step`: into the recorded state `at`
    /// (slot, claim location), which is the claim's turn; or (`at` None) into a state inside
    /// an atomic run, which has no vector and keeps the system's turn. `sys`: the processes
    /// at accept labels after the move, where any process has one (`Search::acceptors`).
    fn visit_recorded(
        &mut self,
        depth: u64,
        step: TrailStep,
        to: u8,
        at: Option<(u32, u32)>,
        sys: Option<Acceptors>,
    ) {
        if self.limit.is_some() || !self.arrive(depth, Some(step)) {
            return;
        }
        let anchor = self.anchor();
        let q = match at {
            Some((_, q)) => q,
            None => self.sys_q.last().copied().unwrap_or(0),
        };
        let mut to = to;
        // (The claim of a search for non-progress cycles alone says what accepts.)
        let np = self.m.claim.as_ref().is_some_and(|c| c.non_progress);
        let sys_accepts = !np && sys.is_some_and(|s| s.any());
        if self.ndfs.is_some() && (self.m.claim_accepts(q) || sys_accepts) {
            to |= ACCEPT;
        }
        let Some((slot, q)) = at else {
            // Inside an atomic run: the claim's location is the turn's, so neither its
            // acceptance nor its end changed (both were looked at when the turn began).
            // Without a claim pan asks every state whether it is the nested search's seed,
            // those inside atomic runs too, which has no vector here to ask.
            let seed = self
                .ndfs
                .as_ref()
                .filter(|n| n.root.is_some() && n.a_root_atomic);
            if self.solo && seed.is_some_and(|n| depth > n.a_depth) {
                self.give_up_graph();
                return;
            }
            self.stats.atomic_steps += 1;
            self.next_tau = to;
            self.reach(depth);
            let frames = self.frames.len();
            self.push_inside(depth, anchor.unwrap_or(NONE), Some(step));
            if let (Some(a), Some(set)) = (&mut self.acceptors, sys) {
                if self.frames.len() > frames {
                    a.enter(frames, set);
                }
            }
            return;
        };
        let parent_accept = self
            .frames
            .len()
            .checked_sub(1)
            .is_some_and(|t| self.frames.get_ref(t).tau & ACCEPT != 0);
        let key = self.product_key(slot, q);
        if let Some(n) = &self.ndfs {
            if n.root.is_some()
                && depth > n.a_depth
                && n.fair.as_ref().is_none_or(|f| f.next.c0 == 1)
                && key == n.a_root_key
            {
                let seed = n.root.and_then(|r| r.checked_sub(1));
                return self.report_cycle(|_| seed, Some(step));
            }
        }
        self.next_tau = to;
        self.next_slot = slot;
        self.next_pending = Some((slot, q));
        let ident = self.ident_keyed(key);
        if self.fair {
            self.arrive_fair(ident, depth, Some(step), false);
        } else if self.ndfs.is_some() {
            self.arrive_new(ident, depth, Some(step), to & ACCEPT != 0 || parent_accept);
        } else {
            match ident {
                Ident::Known(id) => self.matched(id, anchor),
                Ident::New { id, sid, key } => {
                    let frames = self.frames.len();
                    self.enter(id, sid, key, depth, Some(step), true);
                    if self.frames.len() > frames {
                        self.claim_end_check();
                    }
                }
            }
        }
        self.next_pending = None;
    }

    fn claim_turn(&mut self, fi: usize, depth: u64, tau: u8) {
        let (mut next, mut moved) = self.frames.get_ref(fi).cursor.claim_option();
        let timeout = tau & TIMEOUT != 0;
        let r = self.m.claim_next(
            &self.cur,
            &mut next,
            &mut moved,
            (timeout, tau & STUTTER != 0),
            &mut self.next,
        );
        self.frames.get_mut(fi).cursor.set_claim_option(next, moved);
        self.next_slot = self.frames.get_ref(fi).slot;
        match r {
            ClaimMove::Step { edge, atomic, flag } => {
                let step = TrailStep {
                    pid: CLAIM_PID,
                    edge,
                    rv: None,
                };
                self.frames.get_mut(fi).tau |= MOVED;
                self.mark(step);
                if let Some(flag) = flag {
                    self.report_flag(flag, step);
                }
                if self.fair {
                    let moves = self.fair_of(fi).claim_moves();
                    self.fair_next(moves);
                    // An atomic move of the claim leaves pan's `From` at the claim's 0.
                    let procs = self.next.nr_pr();
                    self.fair_from(if atomic { 0 } else { procs }, None);
                }
                // An atomic move keeps the claim's turn; else the system moves next, with
                // `timeout` when this turn had it.
                let to = match (atomic, timeout) {
                    (true, _) => CLAIM | ATOMIC,
                    (false, true) => TIMEOUT,
                    (false, false) => 0,
                };
                self.visit_product(depth + 1, Some(step), to, None, tau & STUTTER != 0);
            }
            ClaimMove::Fault { edge, fault } => {
                self.frames.get_mut(fi).tau |= MOVED;
                let step = TrailStep {
                    pid: CLAIM_PID,
                    edge,
                    rv: None,
                };
                let (fault, flag) = fault.split();
                self.fault_of(step, fault_kind(&fault), true, Some(&fault), flag);
            }
            ClaimMove::Done if tau & REQUEST != 0 && tau & TIMEOUT == 0 => {
                // The system blocked below: the claim's moves again, with `timeout` true.
                let f = self.frames.get_mut(fi);
                f.tau = (tau | TIMEOUT) & !REQUEST;
                f.cursor.set_claim_option(0, 0);
            }
            ClaimMove::Done => self.product_done(fi),
        }
    }

    fn system_turn(&mut self, fi: usize, depth: u64, tau: u8) {
        let mut c = self.frames.get_ref(fi).cursor;
        let r = loop {
            let r = self.next_of(fi, &mut c);
            if std::mem::take(&mut c.failed_offer) {
                // A rendezvous offer nobody took still reached the level below.
                self.reach(depth + 1);
                if self.fair {
                    // pan's offer is a move (it sets `From`), which its `unsend` undoes
                    // as no move at all when no receive took it (`_n` stays as it was).
                    self.fair_from(self.cur.nr_pr(), None);
                }
            }
            // Under weak fairness the cursor announces each process it tries and the end
            // of its pass (not those of a pass with `timeout` the claim did not allow).
            match r {
                Next::Group(g) if self.solo || !(tau & TIMEOUT == 0 && c.in_timeout_pass()) => {
                    let skipped = c.take_skipped();
                    if let Some(from) = self.fair_turn(fi, g, skipped) {
                        c.restart(&self.cur, from);
                    }
                }
                _ => break r,
            }
        };
        self.frames.get_mut(fi).cursor = c;
        if !self.solo && tau & TIMEOUT == 0 && c.in_timeout_pass() {
            // The pass without `timeout` moved nothing: what the cursor's own timeout pass
            // found is not the product's (the claim's turn decides on `timeout`).
            return self.system_blocked(fi, tau);
        }
        match r {
            Next::Succ(it) => {
                let step = self.took(&it);
                let d = depth + if it.rv.is_some() { 2 } else { 1 };
                if self.fair {
                    let atomic = it.atomic.then(|| it.mover());
                    if !self.fair_took(fi, step, self.next.nr_pr(), atomic) {
                        return;
                    }
                }
                let to = match (it.atomic, tau & TIMEOUT) {
                    (true, t) => ATOMIC | t,
                    (false, _) if self.solo => 0,
                    (false, _) => CLAIM,
                };
                if self.solo {
                    self.frames.get_mut(fi).tau |= MOVED;
                }
                // (Not under weak fairness, whose bookkeeping follows each process tried.)
                if !self.fair && !it.atomic {
                    self.maybe_look_ahead(fi, c);
                }
                self.visit_product(d, Some(step), to, it.atomic.then(|| it.mover()), false);
            }
            Next::Fault(f) => {
                if self.fair {
                    self.fair_moved(fi, None);
                }
                self.step_failed(&f, depth)
            }
            Next::Report(f) => self.reported(&f),
            Next::Done if c.moved > 0 => self.product_done(fi),
            Next::Done => self.system_blocked(fi, tau),
            Next::Group(_) => self.halted = true,
        }
    }

    /// Nothing of the system moved from frame `fi`.
    fn system_blocked(&mut self, fi: usize, tau: u8) {
        let depth = self.frames.get_ref(fi).depth();
        if self.opts.max_depth.is_some_and(|m| depth + 1 >= m) {
            // pan: "ok if ... we're at maxdepth": no timeout or stutter on the last level
            // the depth limit leaves (their moves would be cut). An accept stutter there is
            // reported all the same, as an invalid end state is: pan misses both.
            if self.solo && tau & ATOMIC == 0 && self.cur.nr_pr() > 0 && tau & ACCEPT != 0 {
                self.accept_stutter(fi);
            }
            // (The moves left out make the search incomplete, though pan does not say so;
            // without a claim only an atomic sequence's blocked process leaves some out.)
            self.depth_cut |= !self.solo || tau & ATOMIC != 0;
            return self.product_done(fi);
        }
        if self.solo {
            return self.solo_blocked(fi, tau);
        }
        if tau & ATOMIC != 0 {
            // Blocked inside an atomic sequence: the claim moves now, from this state,
            // which is stored (or met again).
            let f = self.frames.get_mut(fi);
            f.tau = CLAIM | (tau & ACCEPT);
            f.cursor.set_claim_option(0, 0);
            if self.ndfs.is_some() {
                return self.arrive_in_place(fi);
            }
            let depth = self.frames.len();
            self.blocked_in_atomic(fi);
            if self.frames.len() == depth && self.frames.get_ref(fi).id != NONE {
                self.claim_end_check();
            }
            return;
        }
        if self.fair && self.default_move(fi, tau) {
            // Weak fairness took the default move from here (and it is over when the
            // frame is on top again).
            if self.frames.len() == fi + 1 {
                self.product_done(fi);
            }
            return;
        }
        let timeouts = self.m.claim.as_ref().is_some_and(|c| c.timeouts);
        if timeouts && tau & TIMEOUT == 0 {
            // Ask the claim's turn below to move again with `timeout` true.
            if let Some(below) = fi.checked_sub(1) {
                self.frames.get_mut(below).tau |= REQUEST;
            }
            // pan's `goto Up`: the frame is left without `Done`, so a state stored here (a
            // stutter reached it) keeps its stack bit; the claim's moves with `timeout` may
            // meet it again, on the stack for pan though no frame holds it (`frame_of` finds
            // none, and no cycle is reported: there is none).
            return self.pop();
        }
        // The claim stutters: it moves from this very state (not stored), and the states
        // its moves reach are stored.
        let f = self.frames.get_mut(fi);
        f.tau = tau | CLAIM | STUTTER;
        f.cursor.set_claim_option(0, 0);
    }

    /// Without a claim (pan -a built without one), nothing of the system moved from frame
    /// `fi`, the `timeout` pass included: a process blocked inside its atomic sequence
    /// gives up its control and every process is tried again from this state, which is
    /// stored (or met again) now (pan's `AllOver`); else a state where a process is at an
    /// accept label stutters for ever in it: an acceptance cycle (pan: "accept stutter").
    /// Invalid end states are not checked (pan -a does not).
    fn solo_blocked(&mut self, fi: usize, tau: u8) {
        if tau & ATOMIC != 0 {
            let c = crate::explore::succ::Cursor::product(&self.cur, None, false);
            let f = self.frames.get_mut(fi);
            f.tau = tau & ACCEPT;
            f.cursor = if self.fair { c.fair() } else { c };
            return self.arrive_in_place(fi);
        }
        if self.fair && self.default_move(fi, tau) {
            // Weak fairness took the default move from here, before pan would report an
            // accept stutter (and it is over when the frame is on top again).
            if self.frames.len() == fi + 1 {
                self.product_done(fi);
            }
            return;
        }
        if self.cur.nr_pr() > 0 && tau & ACCEPT != 0 {
            self.accept_stutter(fi);
        }
        self.product_done(fi);
    }

    /// The state of frame `fi` is accepting and nothing can move: the run that stays in it
    /// is accepted (its cycle starts and ends there).
    fn accept_stutter(&mut self, fi: usize) {
        let kind = ViolationKind::AcceptanceCycle;
        let step = self.frames.get_ref(fi).step();
        // (The initial state itself: no step, and no edge to name.)
        let edge = step.map_or(NONE, |s| s.edge);
        self.rider
            .violation(self.m, kind, step.map(|s| s.edge), &[]);
        if self.found.seen_edge(kind, edge) {
            return;
        }
        let cycle = (0..=fi)
            .filter(|&i| self.frames.get_ref(i).step().is_some())
            .count();
        // pan names the depth before it (its `depth--` ahead of `uerror`; -1 for the
        // initial state, which names nothing).
        let cycle_depth = fi.checked_sub(1).map(|p| self.frames.get_ref(p).depth());
        let trail = self.trail_for(kind, None);
        self.add(Violation {
            kind,
            edge: step.map(|s| s.edge),
            pid: step.map(|s| s.pid),
            message: ACCEPT_STUTTER.into(),
            blocked: Vec::new(),
            trail,
            via: None,
            cycle: Some(cycle),
            cycle_depth,
        });
    }

    /// Visits the product state in `self.next`, reached at `depth` by `step`; `to` is its
    /// turn and bits, `only` the process that keeps atomic control, `stutter` that the
    /// claim stuttered into it. It is stored when the claim moves next (or the claim
    /// stuttered into it), outside atomic sequences.
    pub(super) fn visit_product(
        &mut self,
        depth: u64,
        step: Option<TrailStep>,
        to: u8,
        only: Option<u8>,
        stutter: bool,
    ) {
        if self.limit.is_some() {
            // A violation just reached the limit of errors: pan stops inside that move.
            return;
        }
        if !self.arrive(depth, step) {
            return;
        }
        let anchor = self.anchor();
        if to & ATOMIC != 0 {
            self.stats.atomic_steps += 1;
            // The claim's atomic runs too: a claim `do :: atomic { !p -> assert(p) } od` (a
            // formula without temporal operators) stays inside its atomic across the loop's
            // back edge (spin -o3), and pan descends until its depth limit; here the run is
            // seen to repeat a state and reported, as a process's is.
            let hash = super::quick_hash(&self.next.v);
            if self.repeats_in_atomic_run(only.unwrap_or(CLAIM_PID), hash) {
                return self.non_terminating(step, only.unwrap_or(CLAIM_PID));
            }
        }
        let mut to = to;
        let parent_accept = self
            .frames
            .len()
            .checked_sub(1)
            .is_some_and(|t| self.frames.get_ref(t).tau & ACCEPT != 0);
        let hashed = to & CLAIM != 0 || stutter || self.solo;
        if let Some(n) = &self.ndfs {
            if self.m.accepting(&self.next) {
                to |= ACCEPT;
            }
            // The nested search is back at its seed (pan's `A_Root`); asked last, as it
            // compares whole states.
            let at_root = || match self.sys_graph {
                Some(_) => {
                    let key = self.key_of(&self.next, self.next_slot);
                    key == n.a_root_key
                }
                None => self.next.v[self.hidden..] == n.a_root[..],
            };
            if hashed
                && n.root.is_some()
                && depth > n.a_depth
                && n.fair.as_ref().is_none_or(|f| f.next.c0 == 1)
                && at_root()
            {
                let seed = n.root.and_then(|r| r.checked_sub(1));
                return self.report_cycle(|_| seed, step);
            }
        }
        self.next_tau = to;
        if to & ATOMIC != 0 || !hashed {
            if self.fair && to & (ATOMIC | CLAIM) == 0 {
                // A program turn: fairness rules 1 and 3.
                let procs = self.next.nr_pr() + 1;
                if let Some(f) = self.fair_store() {
                    f.next.program_turn(to & ACCEPT != 0, procs);
                }
            }
            self.reach(depth);
            if self.push(NONE, NONE, depth, only, anchor.unwrap_or(NONE), step) {
                self.claim_end_check();
            }
            return;
        }
        let ident = match self.sys_graph {
            Some(_) => self.ident_keyed(self.key_of(&self.next, self.next_slot)),
            None => match self.identify_next() {
                Ok(i) => i,
                Err(_) => return self.out_of_memory(),
            },
        };
        if self.fair {
            return self.arrive_fair(ident, depth, step, false);
        }
        if self.ndfs.is_some() {
            return self.arrive_new(ident, depth, step, to & ACCEPT != 0 || parent_accept);
        }
        match ident {
            Ident::Known(id) => self.matched(id, anchor),
            Ident::New { id, sid, key } => {
                let frames = self.frames.len();
                self.enter(id, sid, key, depth, step, true);
                if self.frames.len() > frames {
                    self.claim_end_check();
                }
            }
        }
    }

    /// With -a: the state in `self.next`, reached by `step` at `depth`, is `ident`; a cycle
    /// closes on a state on the stack when it or its parent is accepting (`accept`).
    fn arrive_new(&mut self, ident: Ident, depth: u64, step: Option<TrailStep>, accept: bool) {
        let nested = self.ndfs.as_ref().is_some_and(|n| n.root.is_some());
        if !nested {
            match ident {
                Ident::New { id, sid, key } => {
                    let frames = self.frames.len();
                    self.enter(id, sid, key, depth, step, true);
                    if self.frames.len() > frames {
                        self.mark_on(id, true, true);
                        self.claim_end_check();
                    }
                }
                Ident::Known(id) if self.first_visit(id) => {
                    self.reach(depth);
                    if self.push(NONE, NONE, depth, None, NONE, step) {
                        let top = self.frames.len() - 1;
                        self.frames.get_mut(top).lowlink = id;
                        self.mark_on(id, true, true);
                        self.claim_end_check();
                    }
                }
                Ident::Known(id) => {
                    if self.on_stack(id, true) && accept && self.beyond_seed(depth) {
                        return self.report_cycle(|s| s.frame_of(id, false), step);
                    }
                    self.matched(id, self.anchor());
                }
            }
            return;
        }
        let Arrive::Explore(id) = self.arrive_nested(ident, depth, accept, step) else {
            return;
        };
        self.reach(depth);
        if self.push(NONE, NONE, depth, None, NONE, step) {
            let top = self.frames.len() - 1;
            self.frames.get_mut(top).lowlink = id;
            self.claim_end_check();
        }
    }

    /// With -a: the frame `fi` on top (not stored: a process blocked inside its atomic
    /// sequence) becomes the claim's turn, and its state is stored or met again here.
    fn arrive_in_place(&mut self, fi: usize) {
        self.frames.get_mut(fi).blocked_atomic = true;
        let depth = self.frames.get_ref(fi).depth();
        let accept = self.frames.get_ref(fi).tau & ACCEPT != 0
            || fi
                .checked_sub(1)
                .is_some_and(|b| self.frames.get_ref(b).tau & ACCEPT != 0);
        let Ok(ident) = self.ident_cur(fi) else {
            return self.out_of_memory();
        };
        if self.fair {
            self.fair_from(self.cur.nr_pr(), None);
            // Its counters are the ones it was reached with (rule 2 was undone). Without a
            // claim the state is a program turn now, which pan enters afresh (`AllOver`):
            // its marks cleared, rules 1 and 3 applied.
            let (solo, accept) = (self.solo, self.frames.get_ref(fi).tau & ACCEPT != 0);
            let procs = self.cur.nr_pr();
            if let Some(s) = self.fair_store() {
                let f = s.get_mut(fi);
                f.a0 = f.a;
                f.c0 = f.c;
                if solo {
                    *f = super::fair::Fair::reached(f.a, f.c);
                    f.program_turn(accept, procs);
                }
            }
        }
        let fair_seed = self.fair_of(fi).c0 == 1 || !self.fair;
        let nested = match &self.ndfs {
            Some(n) => match n.root {
                Some(root) => {
                    let at_root = match self.sys_graph {
                        Some(_) => {
                            self.key_of(&self.cur, self.frames.get_ref(fi).slot) == n.a_root_key
                        }
                        None => self.cur.v[self.hidden..] == n.a_root[..],
                    };
                    if depth > n.a_depth && fair_seed && at_root {
                        self.report_cycle(|_| root.checked_sub(1), None);
                        return self.pop();
                    }
                    true
                }
                None => false,
            },
            None => false,
        };
        if self.fair {
            return self.arrive_fair(ident, depth, None, true);
        }
        if !nested {
            match ident {
                Ident::New { id, sid, key } => {
                    self.store_blocked(fi, id, sid, key, true);
                    if self.frames.len() == fi + 1 && self.frames.get_ref(fi).id == id {
                        self.mark_on(id, true, true);
                        self.claim_end_check();
                    }
                }
                Ident::Known(id) if self.first_visit(id) => {
                    self.frames.get_mut(fi).lowlink = id;
                    self.mark_on(id, true, true);
                    self.claim_end_check();
                }
                Ident::Known(id) => {
                    if self.on_stack(id, true) && accept && self.beyond_seed(depth) {
                        self.report_cycle(|s| s.frame_of(id, false), None);
                    } else {
                        let anchor = self.frames.get_ref(fi).anchor;
                        self.matched(id, (anchor != NONE).then_some(anchor));
                    }
                    self.pop();
                }
            }
            return;
        }
        match self.arrive_nested(ident, depth, accept, None) {
            Arrive::Explore(id) => {
                self.frames.get_mut(fi).lowlink = id;
                self.claim_end_check();
            }
            Arrive::Done => self.pop(),
        }
    }

    /// The nested search reaches a state (`ident`) at `depth` (pan's `h_store` and the
    /// checks after it): a state the first search has on its stack closes a cycle; a state
    /// on the nested search's own stack closes one when it or its parent is accepting
    /// (`accept`); a state the nested search has not visited is explored (counted as a
    /// state visited again); anything else is a match.
    fn arrive_nested(
        &mut self,
        ident: Ident,
        depth: u64,
        accept: bool,
        step: Option<TrailStep>,
    ) -> Arrive {
        let id = match ident {
            Ident::New { id, .. } => {
                // New to the whole search (a stuttering seed's state): stored now.
                self.stats.states_stored += 1;
                self.reach(depth);
                self.mark_on(id, false, true);
                self.mark_seen2(id);
                if let Some(n) = &mut self.ndfs {
                    if !n.fresh2.put(id, true) {
                        self.out_of_memory();
                    }
                }
                return Arrive::Explore(id);
            }
            Ident::Known(id) => id,
        };
        let on1 = self.on_stack(id, true) && self.beyond_seed(depth);
        let seen = self.ndfs.as_ref().is_some_and(|n| n.seen2.has(id));
        if !seen {
            self.stats.states_revisited += 1;
            self.mark_seen2(id);
            self.mark_on(id, false, true);
            if on1 {
                // pan: the first search's stack intersected (`nShadow--`).
                self.stats.states_revisited -= 1;
                self.report_cycle(|s| s.frame_of(id, false), step);
                return Arrive::Done;
            }
            return Arrive::Explore(id);
        }
        if self.on_stack(id, false) {
            if on1 {
                if let Some(n) = &mut self.ndfs {
                    n.phantom += 1;
                }
                self.report_cycle(|s| s.frame_of(id, false), step);
                return Arrive::Done;
            }
            if accept && self.beyond_seed(depth) {
                self.report_cycle(|s| s.frame_of(id, true), step);
                return Arrive::Done;
            }
        }
        self.stats.states_matched += 1;
        Arrive::Done
    }

    /// The first search reaches `id`, which only the nested search visited: a new visit for
    /// it (pan's `nShadow++` in `h_store`: visited grows, stored does not).
    fn first_visit(&mut self, id: u32) -> bool {
        let Some(n) = &mut self.ndfs else {
            return false;
        };
        if !n.fresh2.has(id) {
            return false;
        }
        n.fresh2.put(id, false);
        self.stats.states_revisited += 1;
        true
    }

    /// pan's `depth > A_depth`.
    fn beyond_seed(&self, depth: u64) -> bool {
        self.ndfs.as_ref().is_some_and(|n| depth > n.a_depth)
    }

    fn on_stack(&self, id: u32, first: bool) -> bool {
        self.ndfs
            .as_ref()
            .is_some_and(|n| if first { n.on1.has(id) } else { n.on2.has(id) })
    }

    fn mark_on(&mut self, id: u32, first: bool, on: bool) {
        let Some(n) = &mut self.ndfs else {
            return;
        };
        let ok = if first {
            n.on1.put(id, on)
        } else {
            n.on2.put(id, on)
        };
        if !ok {
            self.out_of_memory();
        }
    }

    fn mark_seen2(&mut self, id: u32) {
        if let Some(n) = &mut self.ndfs {
            if !n.seen2.put(id, true) {
                self.out_of_memory();
            }
        }
    }

    /// The frame of the state `id` on the first search's stack (`nested` false) or on the
    /// nested search's (true). None for a state pan takes for one on the nested search's
    /// stack although it is not: the root of an earlier nested search from a stutter keeps
    /// its stack bit (pan's `onstack_zap` skips it), and pan reports a cycle there.
    fn frame_of(&self, id: u32, nested: bool) -> Option<usize> {
        let root = self.ndfs.as_ref().and_then(|n| n.root);
        let top = self.frames.len();
        let range = match (nested, root) {
            (true, Some(r)) => r..top,
            (false, Some(r)) => 0..r,
            _ => 0..top,
        };
        range.rev().find(|&i| {
            let f = self.frames.get_ref(i);
            if nested {
                f.id == NONE && f.lowlink == id
            } else {
                f.id == id || (f.id == NONE && f.lowlink == id)
            }
        })
    }

    /// An acceptance cycle: the path to the frame `start` and on to the frame on top, then
    /// `last`, comes back to the state of `start`. (None: pan's cycle through a stale stack
    /// bit, which counts as pan counts it and is not reported: there is no such cycle.)
    /// `start` is asked only for a cycle not reported before: finding the frame walks the
    /// stack, which a search that meets one cycle many times must not pay each time.
    pub(super) fn report_cycle(
        &mut self,
        start: impl FnOnce(&Self) -> Option<usize>,
        last: Option<TrailStep>,
    ) {
        let (kind, message) = match self.m.claim.as_ref().is_some_and(|c| c.non_progress) {
            true => (ViolationKind::NonProgressCycle, "non-progress cycle"),
            false => (ViolationKind::AcceptanceCycle, "acceptance cycle"),
        };
        let top = self.frames.len().saturating_sub(1);
        let closing = last.or_else(|| self.frames.get_ref(top).step());
        let edge = closing.map_or(NONE, |s| s.edge);
        if self.found.seen_edge(kind, edge) {
            self.rider.violation(self.m, kind, Some(edge), &[]);
            return;
        }
        let Some(start) = start(self) else {
            return;
        };
        self.rider.violation(self.m, kind, Some(edge), &[]);
        let cycle = (0..=start.min(top))
            .filter(|&i| self.frames.get_ref(i).step().is_some())
            .count();
        let cycle_depth = self.frames.get_ref(start.min(top)).depth();
        let trail = self.trail_for(kind, last);
        self.add(Violation {
            kind,
            edge: Some(edge),
            pid: closing.map(|s| s.pid),
            message: message.into(),
            blocked: Vec::new(),
            trail,
            via: None,
            cycle: Some(cycle),
            cycle_depth: Some(cycle_depth),
        });
    }

    /// The product's frame `fi` has no move left: it leaves the stack of its search, and
    /// with -a a claim's turn in the first search that moved and is accepting starts the
    /// nested search from its state (pan's `checkcycles` at `Done`) before it is left.
    fn product_done(&mut self, fi: usize) {
        let Some(root) = self.ndfs.as_ref().map(|n| n.root) else {
            return self.pop();
        };
        let f = *self.frames.get_ref(fi);
        if f.tau & SEEDED != 0 {
            return self.pop();
        }
        if self.fair {
            return self.fair_done(fi, root);
        }
        // A frame leaves its search's stack as pan's `onstack_zap` says: a claim's turn
        // that is not a stutter, or a state a stutter reached (pan's parent of the nested
        // search's root is the seed's).
        let parent = match root == Some(fi) {
            true => fi.checked_sub(2),
            false => fi.checked_sub(1),
        };
        let parent_stutter = parent.is_some_and(|p| self.frames.get_ref(p).tau & STUTTER != 0);
        let zap = f.tau & ATOMIC == 0
            && (self.solo || (f.tau & CLAIM != 0 && f.tau & STUTTER == 0) || parent_stutter);
        if root.is_some_and(|r| fi >= r) {
            if zap && f.id == NONE && f.lowlink != NONE {
                self.mark_on(f.lowlink, false, false);
            }
            if root == Some(fi) {
                self.nested_over();
            }
            return self.pop();
        }
        // (A state the nested search stored first holds its id in `lowlink`.)
        let id = if f.id == NONE { f.lowlink } else { f.id };
        if zap && id != NONE {
            self.mark_on(id, true, false);
        }
        let turn = self.solo || f.tau & CLAIM != 0;
        let seed = turn && f.tau & ATOMIC == 0 && f.tau & MOVED != 0 && f.tau & ACCEPT != 0;
        if !seed {
            return self.pop();
        }
        self.load(fi);
        self.seed_nested(fi, f.depth(), f.tau);
        let ident = match self.sys_graph {
            Some(_) => Ok(self.ident_keyed(self.key_of(&self.next, f.slot))),
            None => self.identify_next(),
        };
        let Ok(ident) = ident else {
            return self.out_of_memory();
        };
        match self.arrive_nested(ident, f.depth(), false, None) {
            Arrive::Explore(id) => {
                if self.push(NONE, NONE, f.depth(), None, NONE, None) {
                    let top = self.frames.len() - 1;
                    self.frames.get_mut(top).lowlink = id;
                    self.claim_end_check();
                } else {
                    self.nested_over();
                }
            }
            Arrive::Done => self.nested_over(),
        }
    }

    /// `product_done` with weak fairness: the frame leaves its stack, and a claim's turn of
    /// the first search reached with the A-bit and the counter at 1 (that moved, with a
    /// process of the system left or accepting) seeds the nested search, which starts with
    /// the counter at 1 (pan's `checkcycles` copies `_cnt[0]` to `_cnt[1]`).
    fn fair_done(&mut self, fi: usize, root: Option<usize>) {
        let f = *self.frames.get_ref(fi);
        let parent = match root == Some(fi) {
            true => fi.checked_sub(2),
            false => fi.checked_sub(1),
        };
        let parent_stutter = parent.is_some_and(|p| self.frames.get_ref(p).tau & STUTTER != 0);
        let nested = root.is_some_and(|r| fi >= r);
        if super::fair::zaps(f.tau, parent_stutter || self.solo) {
            self.fair_unstack(fi, nested);
        }
        if nested {
            if root == Some(fi) {
                self.nested_over();
            }
            return self.pop();
        }
        self.load(fi);
        let fair = self.fair_of(fi);
        // (Without a claim every stored state is a program turn, and pan asks for no
        // process left.)
        let seed = (self.solo || f.tau & CLAIM != 0)
            && f.tau & ATOMIC == 0
            && f.tau & MOVED != 0
            && (self.solo || self.cur.nr_pr() > 0 || f.tau & ACCEPT != 0)
            && fair.seeds();
        if !seed {
            return self.pop();
        }
        self.seed_nested(fi, f.depth(), f.tau);
        self.fair_next((fair.a0, fair.c0));
        let ident = match self.sys_graph {
            Some(_) => Ok(self.ident_keyed(self.key_of(&self.next, f.slot))),
            None => {
                let cur = std::mem::take(&mut self.next);
                let ident = self.identify(&cur);
                self.next = cur;
                ident
            }
        };
        let Ok(ident) = ident else {
            return self.out_of_memory();
        };
        let frames = self.frames.len();
        self.arrive_fair(ident, f.depth(), None, false);
        if self.frames.len() == frames {
            // Met before with these counters: the nested search is over at once.
            self.nested_over();
        }
    }

    /// The claim's turn of frame `fi` (loaded, at `depth`, with flags `tau`) seeds the
    /// nested search: pan's `checkcycles` notes its root, and the search starts at the seed
    /// itself, as a claim's turn again (in `next`).
    fn seed_nested(&mut self, fi: usize, depth: u64, tau: u8) {
        self.frames.get_mut(fi).tau |= SEEDED;
        let slot = self.frames.get_ref(fi).slot;
        let key = match self.sys_graph {
            Some(_) => self.key_of(&self.cur, slot),
            None => NONE,
        };
        self.next_slot = slot;
        let atomic = self.sys_graph.is_some()
            && self.solo
            && self
                .cur
                .pids()
                .any(|p| self.m.location(&self.cur, p).is_some_and(|l| l.atomic));
        if let Some(n) = &mut self.ndfs {
            n.a_root_atomic = atomic;
            n.root = Some(fi + 1);
            n.a_depth = depth;
            n.a_root.clear();
            n.a_root.extend_from_slice(&self.cur.v[self.hidden..]);
            n.a_root_key = key;
        }
        self.next.copy_from(&self.cur);
        self.next_tau = match self.solo {
            true => tau & ACCEPT,
            false => CLAIM | (tau & (STUTTER | ACCEPT)),
        };
    }

    /// The product cannot be followed over the recorded graph: the search stops, and the
    /// caller searches it instead (false).
    pub(super) fn give_up_graph(&mut self) -> bool {
        self.rider.give_up();
        self.halted = true;
        false
    }

    /// The nested search is over: pan's `checkcycles` returns (and sets `A_depth` to 0).
    fn nested_over(&mut self) {
        if let Some(n) = &mut self.ndfs {
            n.root = None;
            n.a_depth = 0;
        }
    }

    /// The frame on top was just reached (not met again): a claim at its closing brace
    /// there is a violation (pan checks at every level, whoever moves next).
    pub(super) fn claim_end_check(&mut self) {
        let top = self.frames.len() - 1;
        self.load(top);
        let Some(edge) = self.m.claim_end_edge(&self.cur) else {
            return;
        };
        let kind = ViolationKind::ClaimEnd;
        self.rider.violation(self.m, kind, Some(edge), &[]);
        if self.found.seen_edge(kind, edge) {
            return;
        }
        let trail = self.trail_for(kind, None);
        self.add(Violation {
            kind,
            edge: Some(edge),
            pid: Some(CLAIM_PID),
            message: CLAIM_END.into(),
            blocked: Vec::new(),
            trail,
            via: None,
            cycle: None,
            cycle_depth: None,
        });
    }
}
