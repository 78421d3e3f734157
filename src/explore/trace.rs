//! An event trace (`trace` or `notrace`) as the search runs it: pan's `require()`. The
//! trace is not a process: it never moves on its own. Its location lives in every state
//! (pan's `now._event`, here as its stable id), and every channel event it watches moves it:
//! a send to a channel that one of its sends names (pan's `Addq` hook, after the message is
//! in the queue) and a completed receive from a channel that one of its receives names
//! (pan's `qrecv` hook, before the message leaves). The first of its transitions that
//! matches the event (direction, channel, and each field given as a constant or `eval`)
//! moves it; a second one that matches is pan's fatal "non-determinism in event-trace".
//! When none matches, a `trace` reports "no matching event" and stays where it was, and a
//! `notrace` is disarmed for good (it goes to its end, which its events never leave). A
//! `notrace` whose events all matched (it reached its end) is an error. Where the system
//! ends, a `trace` (or an armed `notrace`) that is neither at its end nor at an `end` label
//! makes the end state invalid (see `property`).

use std::cell::Cell;

use crate::program::expr::{LExpr, LRecvArg, LVar};
use crate::program::{LStmt, LocId, ProcKind, Program};

use super::eval::{Ctx, Fault};
use super::exec::Flag;
use super::layout::Layout;
use super::machine::Machine;
use super::state::State;

/// Which way a channel event went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Send,
    Recv,
}

/// Where an event's message is: a slot of a buffered channel (the offset of the message in
/// the state, and the channel's type), or the values a rendezvous hands over.
#[derive(Clone, Copy, Debug)]
pub enum Msg<'a> {
    Slot { at: usize, ty: usize },
    Vals(&'a [i32]),
}

/// What an event did to the trace besides moving it: an error pan reports while the step
/// goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// No transition of a `trace` matched (pan: "event_trace error (no matching event)").
    Mismatch,
    /// A `notrace` reached its end (pan: "event_trace error (all events matched)").
    Completed,
}

impl Hit {
    /// The flag of a completed step; `rv`: the event was a rendezvous's receive.
    pub fn flag(self, rv: bool) -> Flag {
        match self {
            Hit::Mismatch => Flag::TraceMismatch { rv },
            Hit::Completed => Flag::NotraceMatched { rv },
        }
    }

    /// The error reported where a rendezvous offer is made (pan checks the send once per
    /// offer, whether or not a receiver takes it).
    pub fn fault(self) -> Fault {
        match self {
            Hit::Mismatch => Fault::TraceMismatch,
            Hit::Completed => Fault::NotraceMatched,
        }
    }
}

/// The model's event trace and what the search needs of it.
#[derive(Clone, Debug)]
pub struct TraceSlot<'p> {
    /// Its proctype.
    pub proc: usize,
    /// A `notrace`.
    pub negated: bool,
    /// Offset of its location (a stable id, 4 bytes) in the vector.
    at: usize,
    /// The stable id of its initial location.
    pub initial: u32,
    /// pan's `endevent`: the stable id of the location of its `-end-` (where a disarmed
    /// `notrace` goes), or `u32::MAX` when its closing brace cannot be reached.
    end: u32,
    /// The channels of its sends and of its receives (pan's `in_s_scope`, `in_r_scope`):
    /// only events on these move it.
    sends: Vec<&'p LVar>,
    recvs: Vec<&'p LVar>,
    /// Per edge of the trace (numbered location by location, from `first[li]`): whether it
    /// was taken, for the unreached-code report. The trace moves inside successor
    /// generation, which only reads the machine, hence cells.
    taken: Vec<Cell<bool>>,
    first: Vec<u32>,
}

/// The id a disarmed `notrace` holds when its end is unreachable: no location has it.
const NO_END: u32 = u32::MAX;

impl<'p> TraceSlot<'p> {
    /// The trace of a program laid out as `layout`, if it has one.
    pub fn new(prog: &'p Program, layout: &Layout) -> Option<TraceSlot<'p>> {
        let proc = prog.procs.iter().position(|p| p.kind.is_trace())?;
        let at = layout.trace_at? as usize;
        let a = &prog.procs[proc].automaton;
        let end = a
            .locations
            .iter()
            .find(|l| l.edges.iter().any(|e| matches!(e.stmt, LStmt::End)))
            .map_or(NO_END, |l| l.id.0);
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        for e in a.locations.iter().flat_map(|l| &l.edges) {
            match &e.stmt {
                LStmt::Send { chan, .. } => sends.push(chan),
                LStmt::Recv { chan, .. } => recvs.push(chan),
                _ => {}
            }
        }
        let mut first = Vec::with_capacity(a.locations.len());
        let mut n = 0;
        for l in &a.locations {
            first.push(n);
            n += l.edges.len() as u32;
        }
        Some(TraceSlot {
            proc,
            negated: prog.procs[proc].kind == ProcKind::Notrace,
            at,
            initial: a.initial.0,
            end,
            sends,
            recvs,
            taken: vec![Cell::new(false); n as usize],
            first,
        })
    }

    /// Forgets which edges were taken (a search starts).
    pub fn clear_taken(&self) {
        self.taken.iter().for_each(|c| c.set(false));
    }

    fn take(&self, li: u32, k: usize) {
        if let Some(c) = self
            .first
            .get(li as usize)
            .and_then(|&f| self.taken.get(f as usize + k))
        {
            c.set(true);
        }
    }

    /// The trace's location (its stable id) in `st`.
    #[inline]
    pub fn loc(&self, st: &State) -> u32 {
        let b = &st.v[self.at..self.at + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    #[inline]
    pub fn set_loc(&self, st: &mut State, id: u32) {
        st.v[self.at..self.at + 4].copy_from_slice(&id.to_le_bytes());
    }
}

/// The context a trace's expressions are evaluated in: it has no variables of its own, so
/// only globals are read.
const TRACE_CX: Ctx = Ctx {
    pid: 0,
    timeout: false,
    stutter: false,
    nest: 0,
};

impl Machine<'_> {
    /// A channel event on the channel at offset `chan` of `st` (after a send, before a
    /// receive's message leaves): the trace moves in `st` as pan's `require()` moves it,
    /// and the error pan reports, if any. Only a model with a trace pays for more than a
    /// branch.
    #[inline]
    pub(crate) fn trace_event(
        &self,
        st: &mut State,
        dir: Dir,
        chan: usize,
        msg: Msg,
    ) -> Result<Option<Hit>, Fault> {
        let Some(t) = &self.trace else {
            return Ok(None);
        };
        match self.trace_require(t, st, dir, chan, msg)? {
            Some((to, hit)) => {
                t.set_loc(st, to);
                Ok(hit)
            }
            None => Ok(None),
        }
    }

    /// pan's `require()` on `st`: None when the trace does not watch the event, else the
    /// location it moves to and the error reported. A second matching transition is pan's
    /// fatal error.
    pub(crate) fn trace_require(
        &self,
        t: &TraceSlot,
        st: &State,
        dir: Dir,
        chan: usize,
        msg: Msg,
    ) -> Result<Option<(u32, Option<Hit>)>, Fault> {
        let scope = match dir {
            Dir::Send => &t.sends,
            Dir::Recv => &t.recvs,
        };
        if !scope.iter().any(|v| self.names_chan(st, v, chan)) {
            return Ok(None);
        }
        let cur = t.loc(st);
        if cur != t.end {
            let li = self.index_of(LocId(cur));
            let edges = self.prog.procs[t.proc]
                .automaton
                .locations
                .get(li as usize)
                .map_or(&[][..], |l| &l.edges[..]);
            for (k, e) in edges.iter().enumerate() {
                if !self.trace_matches(st, &e.stmt, dir, chan, msg) {
                    continue;
                }
                let to = e.target.0;
                t.take(li, k);
                if to == t.end {
                    // pan marks the state reached: its `-end-` is not unreached code.
                    t.take(self.index_of(LocId(to)), 0);
                }
                if t.negated && to == t.end {
                    return Ok(Some((to, Some(Hit::Completed))));
                }
                if edges[k + 1..]
                    .iter()
                    .any(|x| self.trace_matches(st, &x.stmt, dir, chan, msg))
                {
                    return Err(Fault::TraceNondeterminism);
                }
                return Ok(Some((to, None)));
            }
        }
        Ok(Some(match t.negated {
            // Only the first try counts: the `notrace` can never complete now.
            true => (t.end, None),
            false => (cur, Some(Hit::Mismatch)),
        }))
    }

    /// Marks in `executed` (per edge number) the trace's edges taken since the search
    /// began.
    pub(crate) fn trace_coverage(&self, executed: &mut [bool]) {
        let Some(t) = &self.trace else {
            return;
        };
        let a = &self.prog.procs[t.proc].automaton;
        for (li, l) in a.locations.iter().enumerate() {
            for k in 0..l.edges.len() {
                let taken = t.taken[t.first[li] as usize + k].get();
                if let Some(x) = executed.get_mut(self.edge_no(t.proc, li as u32, k) as usize) {
                    *x |= taken;
                }
            }
        }
    }

    /// Whether the trace's location in `st` is a valid place for the system to end: its
    /// end, an `end` label, or (a disarmed `notrace`) its unreachable end.
    pub(crate) fn trace_at_stop(&self, st: &State) -> bool {
        let Some(t) = &self.trace else {
            return true;
        };
        let cur = t.loc(st);
        cur == t.end
            || self.prog.procs[t.proc]
                .automaton
                .locations
                .get(self.index_of(LocId(cur)) as usize)
                .is_none_or(|l| l.end)
    }

    /// Whether the channel variable `v` (a global) holds the channel at offset `chan`. A
    /// channel it cannot name (uninitialised, an index out of range) is none.
    fn names_chan(&self, st: &State, v: &LVar, chan: usize) -> bool {
        self.read_var(st, TRACE_CX, v)
            .is_ok_and(|id| st.chan(id) == Some(chan))
    }

    /// Whether one of the trace's statements matches the event: a send or receive of the
    /// event's direction on its channel whose constants and `eval`s equal the message's
    /// fields (its variables and `_` match anything: pan compares only those); a `skip` or
    /// a jump matches any event (pan's generic transition); its `-end-` matches none.
    fn trace_matches(&self, st: &State, s: &LStmt, dir: Dir, chan: usize, msg: Msg) -> bool {
        let field = |i: usize| -> i32 {
            match msg {
                Msg::Vals(v) => v.get(i).copied().unwrap_or(0),
                Msg::Slot { at, ty } => {
                    let cl = &self.layout.chans[ty];
                    match (cl.fields.get(i), cl.field_offsets.get(i)) {
                        (Some(f), Some(o)) => f.read(&st.v, at + *o as usize),
                        // pan's `qrecv` of a field the message lacks gives 0.
                        _ => 0,
                    }
                }
            }
        };
        // An expression that cannot be evaluated (an index out of range) matches nothing.
        let equal = |i: usize, e: &LExpr| self.eval(st, TRACE_CX, e).is_ok_and(|x| x == field(i));
        match (s, dir) {
            (LStmt::Send { chan: c, args, .. }, Dir::Send) => {
                self.names_chan(st, c, chan)
                    && args.iter().enumerate().all(|(i, a)| match a {
                        LExpr::Const(_) | LExpr::Mtype(..) => equal(i, a),
                        _ => true,
                    })
            }
            (LStmt::Recv { chan: c, args, .. }, Dir::Recv) => {
                self.names_chan(st, c, chan)
                    && args.iter().enumerate().all(|(i, a)| match a {
                        LRecvArg::Const(e) | LRecvArg::Eval(e) => equal(i, e),
                        LRecvArg::Var(_) => true,
                    })
            }
            (LStmt::Expr(LExpr::Const(c)), _) => *c != 0,
            (LStmt::Goto(_), _) => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::explore::test_program as program;

    const SYSTEM: &str = "chan c = [2] of { byte }; active proctype P() { c!1; c!2 }\n";

    #[test]
    fn a_model_without_a_trace_has_no_trace_in_its_states() {
        let p = program(SYSTEM);
        let m = Machine::new(&p).expect("layout");
        assert!(m.trace.is_none());
        assert_eq!(m.layout.trace_at, None);
    }

    type Moved = Result<Option<(u32, Option<Hit>)>, Fault>;

    /// The trace's location, its end, and what an event on `c` (a send of `v`, in the first
    /// slot) does there.
    fn event(trace: &str, v: u8) -> (u32, u32, Moved) {
        let p = program(&format!("{SYSTEM}{trace}"));
        let m = Machine::new(&p).expect("layout");
        let t = m.trace.as_ref().expect("a trace");
        let mut st = m.initial().expect("initial");
        let at = st.chan(1).expect("channel c");
        // The message, as a send leaves it in the first slot.
        st.v[at + 1] = 1;
        st.v[at + 2] = v;
        let msg = Msg::Slot { at: at + 2, ty: 0 };
        (
            t.loc(&st),
            t.end,
            m.trace_require(t, &st, Dir::Send, at, msg),
        )
    }

    #[test]
    fn the_first_matching_transition_moves_the_trace() {
        let (from, _, r) = event("trace { c!1; c!2 }", 1);
        let (to, hit) = r.expect("no fault").expect("an event of the trace");
        assert_ne!(to, from);
        assert_eq!(hit, None);
    }

    #[test]
    fn no_matching_transition_is_a_mismatch_for_a_trace_and_disarms_a_notrace() {
        let (from, _, r) = event("trace { c!2 }", 1);
        assert_eq!(r, Ok(Some((from, Some(Hit::Mismatch)))));
        // Disarmed: at its end, reported by nothing.
        let (_, end, r) = event("notrace { c!2; c!1 }", 1);
        assert_ne!(end, NO_END);
        assert_eq!(r, Ok(Some((end, None))));
        // Its end unreachable (a loop), a disarmed notrace holds an id no location has.
        let (_, end, r) = event("notrace { do :: c!2 od }", 1);
        assert_eq!((end, r), (NO_END, Ok(Some((NO_END, None)))));
    }

    #[test]
    fn a_notrace_that_reaches_its_end_is_reported() {
        let (_, _, r) = event("notrace { c!1 }", 1);
        assert!(matches!(r, Ok(Some((_, Some(Hit::Completed))))));
    }

    #[test]
    fn two_matching_transitions_are_pans_fatal_error() {
        let (_, _, r) = event("byte x; trace { if :: c!1 :: c!x fi }", 1);
        assert_eq!(r, Err(Fault::TraceNondeterminism));
    }

    #[test]
    fn events_on_channels_the_trace_does_not_name_are_not_its() {
        let (_, _, r) = event("chan d = [1] of { byte }; trace { d!1 }", 1);
        assert_eq!(r, Ok(None));
        // A receive from c is not an event of a trace that only sends to it.
        let p = program(&format!("{SYSTEM}trace {{ c!1 }}"));
        let m = Machine::new(&p).expect("layout");
        let t = m.trace.as_ref().expect("a trace");
        let st = m.initial().expect("initial");
        let at = st.chan(1).expect("channel c");
        let r = m.trace_require(t, &st, Dir::Recv, at, Msg::Vals(&[1]));
        assert_eq!(r, Ok(None));
    }
}
