//! Which processes of the system stand at `accept` labels, followed through the system
//! turns a claim's product reads from a recorded state graph (`Rider::system_graph`). pan's
//! accept bit of a product state asks every process's location as well as the claim's; a
//! recorded move names its target's slot but no vector, and a state inside a recorded
//! atomic run has none at all. A move changes only the locations of the processes it
//! names: the mover's (and a rendezvous partner's) becomes its edge's target whatever it
//! was, a `run` adds a process at its proctype's initial location, and `-end-` removes the
//! last one. So the set is read once from the vector a turn opens on and carried through
//! the turn's moves, atomic runs included, one set per frame that reads them.

use crate::explore::machine::Machine;
use crate::explore::state::State;
use crate::explore::trail::TrailStep;
use crate::program::dcode::DOp;
use crate::program::expr::{LExpr, LStmt};
use crate::program::Program;

/// The pids at accept labels (pan allows 255 processes), and how many processes run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Acceptors {
    at: [u64; 4],
    nr: u16,
}

/// The process a statement creates, if it is a `run`.
fn created(s: &LStmt) -> Option<usize> {
    match s {
        LStmt::Expr(LExpr::Run { proc, .. }) | LStmt::Assign(_, LExpr::Run { proc, .. }) => {
            Some(*proc)
        }
        _ => None,
    }
}

/// Whether every move's effect on the processes' locations is what its edge says: no
/// `d_step` runs a process (its one edge would create an unknown number of them).
pub fn followable(prog: &Program) -> bool {
    prog.procs.iter().all(|p| {
        p.automaton.locations.iter().all(|l| {
            l.edges.iter().all(|e| match &e.stmt {
                LStmt::DStep(d) => d.code.iter().all(|op| match op {
                    DOp::Stmt { stmt, .. } => created(stmt).is_none(),
                    _ => true,
                }),
                _ => true,
            })
        })
    })
}

impl Acceptors {
    /// The processes of `st` at accept labels.
    pub fn of(m: &Machine, st: &State) -> Acceptors {
        let mut a = Acceptors {
            at: [0; 4],
            nr: st.nr_pr() as u16,
        };
        for p in st.pids() {
            a.set(usize::from(p), m.location(st, p).is_some_and(|l| l.accept));
        }
        a
    }

    /// How many processes run.
    pub fn nr(&self) -> usize {
        usize::from(self.nr)
    }

    /// Some process is at an accept label.
    pub fn any(&self) -> bool {
        self.at != [0; 4]
    }

    fn set(&mut self, pid: usize, on: bool) {
        let (w, b) = (pid / 64 % 4, pid % 64);
        if on {
            self.at[w] |= 1 << b;
        } else {
            self.at[w] &= !(1 << b);
        }
    }

    /// Process `pid` moved along edge `no`.
    fn moved(&mut self, m: &Machine, pid: usize, no: u32) {
        let stmt = &m.edge(no).stmt;
        if matches!(stmt, LStmt::End) {
            self.set(pid, false);
            self.nr = self.nr.saturating_sub(1);
            return;
        }
        let accept = |proc: usize, loc: u32| {
            m.prog.procs[proc]
                .automaton
                .locations
                .get(loc as usize)
                .is_some_and(|l| l.accept)
        };
        self.set(pid, accept(m.edge_proc(no), m.target(no)));
        if let Some(proc) = created(stmt) {
            let initial = m.index_of(m.prog.procs[proc].automaton.initial);
            self.set(usize::from(self.nr), accept(proc, initial));
            self.nr += 1;
        }
    }

    /// The set after `step`.
    pub fn after(mut self, m: &Machine, step: TrailStep) -> Acceptors {
        self.moved(m, usize::from(step.pid), step.edge);
        if let Some((q, e)) = step.rv {
            self.moved(m, usize::from(q), e);
        }
        self
    }
}

/// One set per frame that reads a recorded system turn (the frame that opened it and each
/// state inside its atomic runs), by frame index: a stack, as the frames are.
#[derive(Default)]
pub(super) struct TurnAcceptors {
    sets: Vec<(usize, Acceptors)>,
}

impl TurnAcceptors {
    /// Frame `fi` reads with `set` (any set of a frame at or above it was a frame's that is
    /// gone).
    pub fn enter(&mut self, fi: usize, set: Acceptors) {
        self.left(fi);
        self.sets.push((fi, set));
    }

    /// The set of frame `fi` (None: it has none).
    pub fn of(&mut self, fi: usize) -> Option<Acceptors> {
        self.left(fi + 1);
        self.sets.last().filter(|e| e.0 == fi).map(|e| e.1)
    }

    /// The frames from `len` on are gone.
    pub fn left(&mut self, len: usize) {
        while self.sets.last().is_some_and(|e| e.0 >= len) {
            self.sets.pop();
        }
    }
}
