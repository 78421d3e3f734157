//! A few random walks through the new version, taken before auto settles on prune or a
//! replay: the share of the states they meet that the record does not hold estimates how
//! much of the new state space is new. The record and the change cannot tell that: a change
//! that alters a value the processes keep passing on (a token, a fork's owner) makes nearly
//! every state after it new, although few recorded states meet it. Prune and replay store
//! such states at a higher cost than a full check does (each is looked up in the record on
//! the search's thread), and reuse little.
//!
//! The walks are pan's moves (`Machine::next`), atomic sequences included: a state inside an
//! atomic sequence is not stored, so it is not counted. Walks are short and start from the
//! initial state, so that the share is of the part of the state space a search meets first
//! as much as of where a long run settles. Only auto's choice depends on the estimate, never
//! what a check reports.

use crate::explore::machine::Machine;
use crate::explore::state::State;
use crate::explore::succ::{Cursor, Next};

/// What the walks met: states a search would store, and those of them the record lacks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub met: u64,
    pub new: u64,
}

impl Sample {
    /// The share of new states met (0 when none was met).
    pub fn new_share(&self) -> f64 {
        if self.met == 0 {
            0.0
        } else {
            self.new as f64 / self.met as f64
        }
    }
}

/// Successors the walks may build in all: a model whose states have hundreds of successors
/// gets shorter walks rather than a probe that costs more than it saves.
const MAX_BUILT: u64 = 1 << 16;

/// Walks of `steps` moves each from the initial state of `m`'s program, `walks` of them,
/// each move chosen at random (a fixed seed: the same model gives the same estimate); a
/// walk that reaches a state without successors ends there, and all end once `MAX_BUILT`
/// successors were built. `recorded` tells whether the record holds a state, by its
/// canonical vector. None when the initial state cannot be made.
pub fn sample(
    m: &Machine,
    walks: u32,
    steps: u32,
    recorded: impl Fn(&[u8]) -> bool,
) -> Option<Sample> {
    let initial = m.initial().ok()?;
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let (mut cur, mut chosen, mut out, mut tmp) = (
        State::default(),
        State::default(),
        State::default(),
        State::default(),
    );
    let mut canon = Vec::new();
    let mut s = Sample::default();
    let mut built = 0u64;
    for _ in 0..walks {
        cur.copy_from(&initial);
        // The process holding atomic control, if one does.
        let mut only: Option<u8> = None;
        let mut left = steps;
        while left > 0 && built < MAX_BUILT {
            let mut c = Cursor::new(&cur, only);
            let (mut seen, mut faults, mut next_only) = (0u64, 0u32, None);
            loop {
                match m.next(&cur, &mut c, &mut out, &mut tmp) {
                    Next::Succ(it) => {
                        seen += 1;
                        built += 1;
                        // Reservoir sampling: each successor is kept with probability 1/seen.
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        if rng.is_multiple_of(seen) {
                            chosen.copy_from(&out);
                            next_only = it.atomic.then(|| it.mover());
                        }
                    }
                    // A step that faults counts as a move that leads nowhere (the search
                    // then neither stores the state nor hands control on).
                    Next::Fault(_) => faults += 1,
                    Next::Report(_) | Next::Group(_) => {}
                    Next::Done => break,
                }
            }
            if seen == 0 {
                if faults == 0 && only.take().is_some() {
                    // The process in control blocks: the state is stored, and every process
                    // may move from it.
                    count(m, &cur, &mut canon, &recorded, &mut s);
                    continue;
                }
                break;
            }
            left -= 1;
            std::mem::swap(&mut cur, &mut chosen);
            only = next_only;
            if only.is_none() {
                count(m, &cur, &mut canon, &recorded, &mut s);
            }
        }
    }
    Some(s)
}

/// Counts a state a search would store: met, and new unless the record holds it.
fn count(
    m: &Machine,
    st: &State,
    canon: &mut Vec<u8>,
    recorded: &impl Fn(&[u8]) -> bool,
    s: &mut Sample,
) {
    m.canonical(st, canon);
    s.met += 1;
    if !recorded(canon) {
        s.new += 1;
    }
}
