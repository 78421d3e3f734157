//! The never claim as the search runs it: where its location lives in a state, whether it
//! is at its end, and its moves one at a time in pan's order (its `-end-` too, which ends
//! pan's claim process once the system's have ended). The claim is not a process
//! (pids, `_nr_pr` and `run` stay the system's); only its location is part of the state.
//! The lockstep with the system (who moves when, what is stored) is the search's.

use crate::program::{LStmt, Program};

use super::eval::{Ctx, Fault};
use super::exec::{Flag, Step};
use super::layout::Layout;
use super::machine::{EdgeNo, Machine};
use super::state::State;

/// The pid a claim's step carries in trails (no process has it: pids stop at 254).
pub const CLAIM_PID: crate::explore::Pid = u8::MAX;

/// Where the checked claim lives and what the search needs of its automaton.
#[derive(Clone, Debug)]
pub struct ClaimSlot {
    /// Its proctype.
    pub proc: usize,
    /// Offset of its location index in the vector, and that index's width.
    at: usize,
    lw: usize,
    /// Its initial location index.
    pub initial: u32,
    /// Per location index: the claim is at its end there (the closing brace, whose only
    /// statement is the claim's `-end-`).
    ends: Vec<bool>,
    /// The model uses `timeout` somewhere (pan's ETIM): a blocked system first asks the
    /// claim to move again with `timeout` true.
    pub timeouts: bool,
    /// It is the non-progress claim (`NP_CLAIM`, pan -l): its cycles are non-progress
    /// cycles.
    pub non_progress: bool,
}

/// The name of the claim git rmc adds for a search for non-progress cycles (pan's built-in
/// `np_` claim of `-DNP`), and its text: stay while `np_` or not; once `np_` is taken,
/// accept while it holds.
pub const NP_CLAIM: &str = "_np_claim_";
pub const NP_CLAIM_TEXT: &str = "never _np_claim_ {
T0_init:
\tdo
\t:: np_ -> goto accept_S1
\t:: true
\tod;
accept_S1:
\tdo
\t:: np_
\tod
}
";

/// A claim's next move.
pub enum ClaimMove {
    /// It moved along `edge` (the state is in `out`); `atomic`: it keeps the turn.
    Step {
        edge: EdgeNo,
        atomic: bool,
        flag: Option<Flag>,
    },
    /// The statement of `edge` could not complete.
    Fault { edge: EdgeNo, fault: Fault },
    /// No move left.
    Done,
}

impl ClaimSlot {
    pub fn new(prog: &Program, proc: usize, layout: &Layout) -> ClaimSlot {
        let a = &prog.procs[proc].automaton;
        let ends = a
            .locations
            .iter()
            .map(|l| l.terminal || l.edges.iter().any(|e| matches!(e.stmt, LStmt::End)))
            .collect();
        let initial = a
            .locations
            .iter()
            .position(|l| l.id == a.initial)
            .unwrap_or(0) as u32;
        ClaimSlot {
            proc,
            at: layout.claim_at.unwrap_or(0) as usize,
            lw: layout.loc_width as usize,
            initial,
            ends,
            timeouts: prog.uses_timeout(),
            non_progress: prog.procs[proc].name == NP_CLAIM,
        }
    }

    /// The claim's location index in `st`.
    #[inline]
    pub fn loc(&self, st: &State) -> u32 {
        if self.lw == 1 {
            st.v[self.at] as u32
        } else {
            u16::from_le_bytes([st.v[self.at], st.v[self.at + 1]]) as u32
        }
    }

    #[inline]
    pub fn set_loc(&self, st: &mut State, loc: u32) {
        if self.lw == 1 {
            st.v[self.at] = loc as u8;
        } else {
            st.v[self.at..self.at + 2].copy_from_slice(&(loc as u16).to_le_bytes());
        }
    }

    /// The claim is at its closing brace in `st`.
    #[inline]
    pub fn at_end(&self, st: &State) -> bool {
        self.ends
            .get(self.loc(st) as usize)
            .copied()
            .unwrap_or(false)
    }
}

impl Machine<'_> {
    /// The claim's next move from `st`, trying its options from the `*next`-th on (`moved`:
    /// how many moved before in this pass, for `else`); `timeout` is true in the pass pan
    /// makes when the system blocked. A claim at its end has no move.
    pub fn claim_next(
        &self,
        st: &State,
        next: &mut u32,
        moved: &mut u32,
        (timeout, stutter): (bool, bool),
        out: &mut State,
    ) -> ClaimMove {
        let Some(c) = &self.claim else {
            return ClaimMove::Done;
        };
        let li = c.loc(st);
        let Some(loc) = self.prog.procs[c.proc].automaton.locations.get(li as usize) else {
            return ClaimMove::Done;
        };
        while let Some(e) = loc.edges.get(*next as usize) {
            let k = *next as usize;
            *next += 1;
            let no = self.edge_no(c.proc, li, k);
            match e.stmt {
                // pan's claim is its process 0, and only the last process may end: the
                // claim only once every process of the system has ended.
                LStmt::End if st.nr_pr() > 0 => continue,
                LStmt::End => {
                    // The claim ends: it stays at its terminal location, with no move.
                    out.copy_from(st);
                    c.set_loc(out, self.target(no));
                    *moved += 1;
                    return ClaimMove::Step {
                        edge: no,
                        atomic: false,
                        flag: None,
                    };
                }
                LStmt::Else if *moved > 0 => continue,
                _ => {}
            }
            let cx = Ctx {
                pid: CLAIM_PID,
                timeout,
                stutter,
                nest: 0,
            };
            // A compiled condition is evaluated in `st` itself: most of a claim's options
            // are conditions, most of them false, and a false one copies nothing.
            if let (Some(code), LStmt::Expr(_)) = (self.cond(no), &e.stmt) {
                match code.eval(self, st, cx) {
                    Ok(0) => continue,
                    Ok(_) => {
                        out.copy_from(st);
                        c.set_loc(out, self.target(no));
                        *moved += 1;
                        return ClaimMove::Step {
                            edge: no,
                            atomic: e.atomic,
                            flag: None,
                        };
                    }
                    Err(fault) => {
                        *moved += 1;
                        return ClaimMove::Fault { edge: no, fault };
                    }
                }
            }
            out.copy_from(st);
            // No process has the claim's pid: `enabled(p)` asks of any process. (`np_` in a
            // claim is read from the state: spin 6.5.2 builds a model whose claim uses
            // `np_` with its own `:np_:` claim process, which this does not reproduce.)
            match self.exec(out, cx, e) {
                Ok(Step::Blocked) => continue,
                Ok(step) => {
                    c.set_loc(out, self.target(no));
                    *moved += 1;
                    return ClaimMove::Step {
                        edge: no,
                        atomic: e.atomic,
                        flag: match step {
                            Step::Flagged(f) => Some(f),
                            _ => None,
                        },
                    };
                }
                Err(fault) => {
                    *moved += 1;
                    return ClaimMove::Fault { edge: no, fault };
                }
            }
        }
        ClaimMove::Done
    }

    /// The claim's end as a violation names it: the `-end-` statement at its closing brace
    /// in `st` (None when the claim is not at its end).
    pub fn claim_end_edge(&self, st: &State) -> Option<EdgeNo> {
        let c = self.claim.as_ref()?;
        if !c.at_end(st) {
            return None;
        }
        let li = c.loc(st);
        let loc = self.prog.procs[c.proc]
            .automaton
            .locations
            .get(li as usize)?;
        let k = loc
            .edges
            .iter()
            .position(|e| matches!(e.stmt, LStmt::End))
            .unwrap_or(0);
        if loc.edges.is_empty() {
            // A terminal location: name the statement that led there instead.
            return None;
        }
        Some(self.edge_no(c.proc, li, k))
    }

    /// Takes the claim's step along `edge` from `st` (trail replay), with `timeout` false
    /// and then true, outside a stutter and then in one. None when the claim cannot take it.
    pub fn claim_take(
        &self,
        st: &State,
        edge: EdgeNo,
        out: &mut State,
    ) -> Option<Result<Option<Flag>, Fault>> {
        for turn in [(false, false), (true, false), (false, true), (true, true)] {
            let (mut next, mut moved) = (0, 0);
            loop {
                match self.claim_next(st, &mut next, &mut moved, turn, out) {
                    ClaimMove::Step { edge: e, flag, .. } if e == edge => return Some(Ok(flag)),
                    ClaimMove::Fault { edge: e, fault } if e == edge => return Some(Err(fault)),
                    ClaimMove::Done => break,
                    _ => {}
                }
            }
        }
        None
    }
}

impl Machine<'_> {
    /// pan's accept flag of a product state: the claim or a process of the system is at an
    /// `accept` label. Under -l only the non-progress claim's accepting state counts (pan
    /// built with -DNP ignores the system's accept labels).
    /// Whether the checked claim's location index `q` is an accept state (what
    /// `accepting` says of a state with the claim there, where no process's accept label
    /// counts).
    pub fn claim_accepts(&self, q: u32) -> bool {
        self.claim.as_ref().is_some_and(|c| {
            self.prog.procs[c.proc]
                .automaton
                .locations
                .get(q as usize)
                .is_some_and(|l| l.accept)
        })
    }

    pub fn accepting(&self, st: &State) -> bool {
        let claim = self.claim.as_ref().is_some_and(|c| {
            self.prog.procs[c.proc]
                .automaton
                .locations
                .get(c.loc(st) as usize)
                .is_some_and(|l| l.accept)
        });
        if self.claim.as_ref().is_some_and(|c| c.non_progress) {
            return claim;
        }
        claim
            || (self.system_accepts
                && st
                    .pids()
                    .any(|p| self.location(st, p).is_some_and(|l| l.accept)))
    }
}
