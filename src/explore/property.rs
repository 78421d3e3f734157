//! The safety properties, defined once for the search, shortest trails and trail replay: what
//! makes an end state invalid (the blocked processes, with `-q` the channels, an event trace
//! not at its end), and what makes two violations the same (their key). The register of
//! violations found checks a key before anything is built, so a violation reached again
//! costs a lookup.

use crate::explore::Blocked;
use crate::program::LocId;
use std::collections::HashSet;
use xxhash_rust::xxh3::Xxh3Builder;

use super::machine::{EdgeNo, LocIndex, Machine};
use super::outcome::{Options, Violation, ViolationKind};
use super::state::State;
use super::trail::TrailStep;

/// What identifies a violation across searches: its kind and the edge whose step violated,
/// or for an invalid end state the (proctype, location) of each blocked process in pid order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Edge(ViolationKind, EdgeNo),
    End(Vec<(u32, u32)>),
}

impl Key {
    pub fn of(v: &Violation) -> Option<Key> {
        match (v.kind, v.edge) {
            // An incomplete trace is an end state whose tuple holds the trace (no process
            // has its proctype), so the two never share a key.
            (ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete, _) => Some(Key::End(
                v.blocked.iter().map(|b| (b.proc as u32, b.loc.0)).collect(),
            )),
            (k, Some(e)) => Some(Key::Edge(k, e)),
            (_, None) => None,
        }
    }
}

/// Where a faulting step's violation is: the process and edge whose statement failed. In a
/// rendezvous every fault happens in the receive half (the send itself cannot fail once a
/// receiver takes it), so it is the receive's.
pub fn fault_at(step: &TrailStep) -> (u8, EdgeNo) {
    step.rv.unwrap_or((step.pid, step.edge))
}

/// Fills `blocked` with (pid, proctype, location index) of every process of `st` that is not
/// at a valid end (its end or an `end` label), in pid order. Returns whether `st`, as a state
/// without successors, is an invalid end state: a process is blocked, or (`-q`) a channel
/// still holds a message, or the event trace is not at a valid end.
///
/// The trace is pan's last check (`endstate()`), made only when every process is at a valid
/// end, one is left (pan accepts a system whose processes all died at once), and `-q` is
/// not given (pan then asks only for empty channels); `blocked` then holds the trace alone,
/// with pid `TRACE_PID`. (pan checks no end state in a claim's search, nor with `-a`, whose
/// search here is always a claim's.)
pub fn invalid_end(m: &Machine, st: &State, opts: &Options, blocked: &mut Vec<Blocked>) -> bool {
    blocked.clear();
    for pid in st.pids() {
        if !m.location(st, pid).is_some_and(|l| l.end) {
            blocked.push(Blocked {
                pid,
                proc: st.ptype(pid),
                loc: m.loc_no(st, pid),
            });
        }
    }
    let full_chan = opts.empty_channels && st.chans.iter().any(|&at| st.chan_len(at as usize) > 0);
    if !blocked.is_empty() || full_chan {
        return true;
    }
    let Some(t) = &m.trace else {
        return false;
    };
    if st.nr_pr() == 0 || opts.empty_channels || m.trace_at_stop(st) {
        return false;
    }
    blocked.push(Blocked {
        pid: TRACE_PID,
        proc: t.proc,
        loc: LocIndex(m.index_of(LocId(t.loc(st)))),
    });
    true
}

/// The pid an incomplete trace has among the blocked of an end state (no process has it).
pub const TRACE_PID: crate::explore::Pid = u8::MAX;

/// The kind of an invalid end state with these blocked (processes, or the trace).
pub fn end_kind(m: &Machine, blocked: &[Blocked]) -> ViolationKind {
    match m
        .trace
        .as_ref()
        .is_some_and(|t| blocked.iter().any(|b| b.proc == t.proc))
    {
        true => ViolationKind::TraceIncomplete,
        false => ViolationKind::InvalidEndState,
    }
}

/// The message of an invalid end state.
pub fn end_message(m: &Machine, blocked: &[Blocked]) -> String {
    if end_kind(m, blocked) == ViolationKind::TraceIncomplete {
        "event trace not completed: the system ends with the trace neither at its end nor at \
         an end label"
            .into()
    } else if blocked.is_empty() {
        "invalid end state: channels not empty".into()
    } else {
        "invalid end state".into()
    }
}

/// The distinct violations found so far, and how many trails each kind has used.
pub struct Register {
    pub list: Vec<Violation>,
    edges: HashSet<(ViolationKind, EdgeNo), Xxh3Builder>,
    ends: HashSet<Vec<(u32, u32)>, Xxh3Builder>,
    trails: [usize; ViolationKind::ALL.len()],
    max_trails: usize,
    /// Scratch for end-state keys.
    key: Vec<(u32, u32)>,
}

impl Register {
    pub fn new(max_trails: usize) -> Register {
        Register {
            list: Vec::new(),
            edges: HashSet::with_hasher(Xxh3Builder::new()),
            ends: HashSet::with_hasher(Xxh3Builder::new()),
            trails: [0; ViolationKind::ALL.len()],
            max_trails,
            key: Vec::new(),
        }
    }

    pub fn seen_edge(&self, kind: ViolationKind, edge: EdgeNo) -> bool {
        self.edges.contains(&(kind, edge))
    }

    /// Whether the end state with these blocked processes was reported already.
    pub fn seen_end(&mut self, blocked: &[Blocked]) -> bool {
        self.key.clear();
        self.key
            .extend(blocked.iter().map(|b| (b.proc as u32, b.loc.0)));
        self.ends.contains(self.key.as_slice())
    }

    /// Whether the next violation of `kind` gets a trail.
    pub fn wants_trail(&self, kind: ViolationKind) -> bool {
        self.trails[kind_index(kind)] < self.max_trails
    }

    /// Adds a violation not seen before (the caller checked its key). Returns false when it
    /// was a duplicate after all.
    pub fn add(&mut self, v: Violation) -> bool {
        let end = matches!(
            v.kind,
            ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete
        );
        let fresh = match (v.kind, v.edge) {
            (_, None) | (ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete, _) => {
                let k: Vec<(u32, u32)> =
                    v.blocked.iter().map(|b| (b.proc as u32, b.loc.0)).collect();
                !end || self.ends.insert(k)
            }
            (k, Some(e)) => self.edges.insert((k, e)),
        };
        if !fresh {
            return false;
        }
        if v.trail.is_some() {
            self.trails[kind_index(v.kind)] += 1;
        }
        self.list.push(v);
        true
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }
}

fn kind_index(k: ViolationKind) -> usize {
    ViolationKind::ALL.iter().position(|&x| x == k).unwrap_or(0)
}
