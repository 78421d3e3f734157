//! The product with a never claim, inside the one search loop: pan's VERI search. The claim
//! and the system take turns, the claim first; a frame's `tau` holds whose turn it is and
//! pan's other bits. Only states where the claim is about to move are stored (and those a
//! stuttering claim reaches); a blocked claim cuts the path; a claim at its closing brace is
//! a violation; a blocked system first asks the claim's turn to move again with `timeout`
//! true (when the model uses `timeout`), then the claim stutters: it moves with the system
//! unchanged. Invalid end states are not checked. An atomic sequence (the system's or the
//! claim's) keeps the turn to its end.
//!
//! Read from pan's `new_state` (SPIN 6.5.2): the hashing condition at `Down`, the `tau` bits
//! set after a move, and the branches where nothing moved (`AllOver`, the timeout request,
//! `BreakOut`). Riders other than a plain check's are not used with a claim.

use super::{Ident, Limit, Rider, Search, NONE};
use crate::explore::claim::{ClaimMove, CLAIM_PID};
use crate::explore::outcome::{Violation, ViolationKind};
use crate::explore::succ::Next;
use crate::explore::trail::TrailStep;

use super::{fault_kind, fault_step};

/// `timeout` holds in this turn (pan's tau bit 1).
pub(super) const TIMEOUT: u8 = 1;
/// The system's turn below blocked: run the claim's moves again with `timeout` (bit 2).
const REQUEST: u8 = 2;
/// The claim's turn (bit 4).
pub(super) const CLAIM: u8 = 4;
/// Inside an atomic sequence: the turn does not change (bit 8).
const ATOMIC: u8 = 8;
/// The claim stutters: the system blocked, and the claim moves alone (bit 128).
const STUTTER: u8 = 128;

/// The message pan prints for a claim at its end.
const CLAIM_END: &str = "end state in claim reached";

impl<R: Rider> Search<'_, '_, R> {
    /// One step of the product's frame `fi`: the claim's next move or the system's.
    pub(super) fn product_step(&mut self, fi: usize, depth: u64) {
        self.load(fi);
        let tau = self.frames.get_ref(fi).tau;
        if tau & CLAIM != 0 {
            self.claim_turn(fi, depth, tau);
        } else {
            self.system_turn(fi, depth, tau);
        }
    }

    fn claim_turn(&mut self, fi: usize, depth: u64, tau: u8) {
        let (mut next, mut moved) = self.frames.get_ref(fi).cursor.claim_option();
        let timeout = tau & TIMEOUT != 0;
        let r = self
            .m
            .claim_next(&self.cur, &mut next, &mut moved, timeout, &mut self.next);
        self.frames.get_mut(fi).cursor.set_claim_option(next, moved);
        match r {
            ClaimMove::Step { edge, atomic, flag } => {
                let step = TrailStep {
                    pid: CLAIM_PID,
                    edge,
                    rv: None,
                };
                self.mark(step);
                if let Some(flag) = flag {
                    self.report_flag(flag, step);
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
                let step = TrailStep {
                    pid: CLAIM_PID,
                    edge,
                    rv: None,
                };
                self.fault_of(step, fault_kind(&fault), true, Some(&fault));
            }
            ClaimMove::Done if tau & REQUEST != 0 && tau & TIMEOUT == 0 => {
                // The system blocked below: the claim's moves again, with `timeout` true.
                let f = self.frames.get_mut(fi);
                f.tau = (tau | TIMEOUT) & !REQUEST;
                f.cursor.set_claim_option(0, 0);
            }
            ClaimMove::Done => self.pop(),
        }
    }

    fn system_turn(&mut self, fi: usize, depth: u64, tau: u8) {
        let mut c = self.frames.get_ref(fi).cursor;
        let r = self
            .m
            .next(&self.cur, &mut c, &mut self.next, &mut self.tmp);
        if std::mem::take(&mut c.failed_offer) {
            // A rendezvous offer nobody took still reached the level below.
            self.reach(depth + 1);
        }
        self.frames.get_mut(fi).cursor = c;
        if tau & TIMEOUT == 0 && c.in_timeout_pass() {
            // The pass without `timeout` moved nothing: what the cursor's own timeout pass
            // found is not the product's (the claim's turn decides on `timeout`).
            return self.system_blocked(fi, tau);
        }
        match r {
            Next::Succ(it) => {
                let step = TrailStep {
                    pid: it.pid,
                    edge: it.edge,
                    rv: it.rv,
                };
                self.mark(step);
                if let Some(flag) = it.flag {
                    self.report_flag(flag, step);
                }
                let d = depth + if it.rv.is_some() { 2 } else { 1 };
                let to = match (it.atomic, tau & TIMEOUT) {
                    (true, t) => ATOMIC | t,
                    (false, _) => CLAIM,
                };
                self.visit_product(d, Some(step), to, it.atomic.then(|| it.mover()), false);
            }
            Next::Fault(f) => {
                if f.rv.is_some() {
                    self.reach(depth + 1);
                }
                self.fault_of(fault_step(&f), fault_kind(&f.fault), true, Some(&f.fault))
            }
            Next::Report(f) => {
                self.fault_of(fault_step(&f), fault_kind(&f.fault), false, Some(&f.fault))
            }
            Next::Done if c.moved > 0 => self.pop(),
            Next::Done => self.system_blocked(fi, tau),
            Next::Group(_) => self.halted = true,
        }
    }

    /// Nothing of the system moved from frame `fi`.
    fn system_blocked(&mut self, fi: usize, tau: u8) {
        if tau & ATOMIC != 0 {
            // Blocked inside an atomic sequence: the claim moves now, from this state,
            // which is stored (or met again).
            let f = self.frames.get_mut(fi);
            f.tau = CLAIM;
            f.cursor.set_claim_option(0, 0);
            let depth = self.frames.len();
            self.blocked_in_atomic(fi, None);
            if self.frames.len() == depth && self.frames.get_ref(fi).id != NONE {
                self.claim_end_check();
            }
            return;
        }
        let timeouts = self.m.claim.as_ref().is_some_and(|c| c.timeouts);
        if timeouts && tau & TIMEOUT == 0 {
            // Ask the claim's turn below to move again with `timeout` true.
            if let Some(below) = fi.checked_sub(1) {
                self.frames.get_mut(below).tau |= REQUEST;
            }
            return self.pop();
        }
        // The claim stutters: it moves from this very state (not stored), and the states
        // its moves reach are stored.
        let f = self.frames.get_mut(fi);
        f.tau = tau | CLAIM | STUTTER;
        f.cursor.set_claim_option(0, 0);
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
        if let Some(max) = self.opts.max_depth {
            if depth >= max {
                // pan counts a cut at the depth limit as a match.
                self.stats.states_matched += 1;
                self.limit = Some(Limit::Depth);
                return;
            }
        }
        if step.is_some_and(|s| s.rv.is_some()) {
            // The middle of a rendezvous is a state pan explores without storing.
            self.reach(depth - 1);
        }
        let anchor = self.anchor();
        if to & ATOMIC != 0 {
            self.stats.atomic_steps += 1;
            if let Some(p) = only {
                if self.repeats_in_atomic_run() {
                    return self.non_terminating(step, p);
                }
            }
        }
        self.next_tau = to;
        if to & ATOMIC != 0 || (to & CLAIM == 0 && !stutter) {
            self.reach(depth);
            if self.push(NONE, NONE, depth, only, anchor.unwrap_or(NONE), step) {
                self.claim_end_check();
            }
            return;
        }
        let ident = match self.identify_next() {
            Ok(i) => i,
            Err(_) => return self.out_of_memory(),
        };
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

    /// The frame on top was just reached (not met again): a claim at its closing brace
    /// there is a violation (pan checks at every level, whoever moves next).
    fn claim_end_check(&mut self) {
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
        });
    }
}
