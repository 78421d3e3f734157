//! A `d_step` as pan runs it. spin does not run a `d_step` as an automaton: it compiles the
//! body to straight-line C (its `dstep.c`), and two facts of that code are visible in pan's
//! figures. The transition is enabled by a guard collected from the body's first statement,
//! not by trying the body (an `if` whose options start with assignments is guarded by its
//! other options only, and one with none is always enabled); and once the guard holds,
//! anything that blocks is an error, except an option's first statement, which passes the
//! turn to the next option of its own selection (never of an enclosing one).

use super::{Automaton, LStmt};

/// The program counter of a d_step's code.
pub type Pc = u32;

/// One compiled `d_step`.
#[derive(Clone, Debug)]
pub struct DStep {
    /// Its statements as an automaton, the view every analysis reads.
    pub auto: Automaton,
    /// pan's guard: enabled when any of these statements could run (tested, not run);
    /// `None` is pan's `1` (always enabled).
    pub guard: Option<Vec<LStmt>>,
    /// The body, entered at 0.
    pub code: Vec<DOp>,
}

#[derive(Clone, Debug)]
pub enum DOp {
    /// Runs `stmt` and goes on at `next`; where it blocks, `fail` says what happens.
    Stmt {
        stmt: Box<LStmt>,
        next: Pc,
        fail: DFail,
    },
    Jump(Pc),
    /// A selection with no option (pan's "blocking sel in d_step").
    NoOption,
    End,
}

/// What a blocked statement of a d_step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DFail {
    /// It opens an option: the next option of its selection is tried.
    Option(Pc),
    /// It is the first statement of its selection's last option: no option can run (pan's
    /// "blocking sel in d_step").
    Selection,
    /// Anywhere else: pan's "block in d_step seq".
    Sequence,
}

impl DStep {
    /// The receive a d_step starts with, where nothing else could start it, and where its
    /// code goes on after it: a rendezvous sender's handshake runs the rest of the body in
    /// the same transition.
    pub fn first_receive(&self) -> Option<(&LStmt, Pc)> {
        let mut pc = 0;
        for _ in 0..=self.code.len() {
            match self.code.get(pc as usize)? {
                DOp::Jump(t) => pc = *t,
                DOp::Stmt { stmt, next, fail }
                    if matches!(**stmt, LStmt::Recv { copy: false, .. })
                        && !matches!(fail, DFail::Option(_)) =>
                {
                    return Some((stmt, *next))
                }
                _ => return None,
            }
        }
        None
    }
}
