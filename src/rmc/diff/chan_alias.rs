//! Which channel operations may reach a channel whose declaration changed (a global one, or
//! a local one whose type changed).
//!
//! A channel is named through variables that hold its id: the global it was declared with,
//! and whatever that id was copied into (assignments, `run` arguments, message fields). A
//! may-point-to analysis over every statement of a program follows those copies; a value it
//! cannot follow (arithmetic, a constant other than 0, a predefined variable) may be any
//! channel. An operation (send, receive, poll, `len`, `empty`/`full`/…) whose channel may be
//! a changed one is dangerous; every other one behaves as before, whatever the changed
//! channels hold.

use std::collections::BTreeSet;

use crate::program::expr::{LExpr, LRecvArg, LStmt, LVar, Slot};
use crate::program::types::{Var, VarInit};
use crate::program::{Location, Proc, Program};

/// A changed channel, by the variable that declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Global(usize),
    /// (proctype, local)
    Local(usize, usize),
}

/// The changed channels a value may be, as the variables that declare them; `any`: a
/// value the analysis could not follow.
#[derive(Clone, Default, PartialEq, Eq)]
struct Targets {
    chans: BTreeSet<Source>,
    any: bool,
}

impl Targets {
    fn any() -> Targets {
        Targets {
            chans: BTreeSet::new(),
            any: true,
        }
    }

    fn of(s: Source) -> Targets {
        Targets {
            chans: [s].into_iter().collect(),
            any: false,
        }
    }

    /// Adds `other`; true when something was new.
    fn join(&mut self, other: &Targets) -> bool {
        let before = (self.chans.len(), self.any);
        self.chans.extend(other.chans.iter().copied());
        self.any |= other.any;
        before != (self.chans.len(), self.any)
    }
}

/// The analysis of one program, for a set of changed channels.
pub struct ChanAlias<'p> {
    prog: &'p Program,
    changed: BTreeSet<usize>,
    changed_locals: BTreeSet<(usize, usize)>,
    /// Per global, and per proctype per local: what it may hold.
    globals: Vec<Targets>,
    locals: Vec<Vec<Targets>>,
    /// What any message may carry (a received value is one of them).
    sent: Targets,
}

impl<'p> ChanAlias<'p> {
    /// Runs the analysis to its fixpoint; `changed` are the globals (indices in `prog`)
    /// whose channels changed, `locals` the locals (proctype, local) whose channel type
    /// changed.
    pub fn new(prog: &'p Program, changed: &[usize], locals: &[(usize, usize)]) -> ChanAlias<'p> {
        let mut a = ChanAlias {
            prog,
            changed: changed.iter().copied().collect(),
            changed_locals: locals.iter().copied().collect(),
            globals: vec![Targets::default(); prog.globals.len()],
            locals: prog
                .procs
                .iter()
                .map(|p| vec![Targets::default(); p.locals.len()])
                .collect(),
            sent: Targets::default(),
        };
        while a.round() {}
        a
    }

    /// One pass over every declaration and statement; true when something grew.
    fn round(&mut self) -> bool {
        let prog = self.prog;
        let mut grew = false;
        for (g, v) in prog.globals.iter().enumerate() {
            let t = self.initial(None, g, v);
            grew |= self.globals[g].join(&t);
        }
        for (pi, p) in prog.procs.iter().enumerate() {
            for (l, v) in p.locals.iter().enumerate() {
                let t = self.initial(Some(pi), l, v);
                grew |= self.locals[pi][l].join(&t);
            }
            for loc in &p.automaton.locations {
                for e in &loc.edges {
                    grew |= self.flows(pi, &e.stmt);
                }
            }
        }
        grew
    }

    /// What a declaration starts as.
    fn initial(&self, proc: Option<usize>, i: usize, v: &Var) -> Targets {
        match &v.init {
            VarInit::Chan(_) => match proc {
                None if self.changed.contains(&i) => Targets::of(Source::Global(i)),
                Some(p) if self.changed_locals.contains(&(p, i)) => {
                    Targets::of(Source::Local(p, i))
                }
                _ => Targets::default(),
            },
            VarInit::Zero => Targets::default(),
            VarInit::Expr(e) => self.value(proc, e),
            VarInit::List(items) => {
                let mut t = Targets::default();
                for e in items {
                    t.join(&self.value(proc, e));
                }
                t
            }
        }
    }

    /// What a statement of proctype `pi` copies; true when something grew.
    fn flows(&mut self, pi: usize, s: &LStmt) -> bool {
        let mut grew = false;
        match s {
            LStmt::Assign(v, e) => {
                let t = self.value(Some(pi), e);
                grew |= self.assign(pi, v, &t);
            }
            LStmt::Send { args, .. } => {
                for a in args {
                    let t = self.value(Some(pi), a);
                    grew |= self.sent.join(&t);
                }
            }
            LStmt::Recv { args, .. } => {
                let t = self.sent.clone();
                for a in args {
                    if let LRecvArg::Var(v) = a {
                        grew |= self.assign(pi, v, &t);
                    }
                }
            }
            LStmt::DStep(a) => {
                for l in &a.auto.locations {
                    for e in &l.edges {
                        grew |= self.flows(pi, &e.stmt);
                    }
                }
            }
            _ => {}
        }
        // `run P(args)` anywhere in the statement binds P's parameters.
        let mut runs = Vec::new();
        s.each_expr(&mut |e| {
            if let LExpr::Run { proc, args, .. } = e {
                runs.push((*proc, args.clone()));
            }
        });
        for (q, args) in runs {
            let Some(params) = self.prog.procs.get(q).map(|p| p.params.clone()) else {
                continue;
            };
            for (k, a) in args.iter().enumerate() {
                let t = self.value(Some(pi), a);
                if let Some(slot) = params.get(k).and_then(|&l| self.locals[q].get_mut(l)) {
                    grew |= slot.join(&t);
                }
            }
        }
        grew
    }

    /// Copies `t` into the variable `v` names (all of it: indices and fields are not told
    /// apart).
    fn assign(&mut self, pi: usize, v: &LVar, t: &Targets) -> bool {
        match v.slot {
            Slot::Global(g) => self.globals.get_mut(g).is_some_and(|x| x.join(t)),
            Slot::Local(l) => self
                .locals
                .get_mut(pi)
                .and_then(|ls| ls.get_mut(l))
                .is_some_and(|x| x.join(t)),
            _ => false,
        }
    }

    /// What the variable `v` (read in proctype `proc`) may hold.
    fn var(&self, proc: Option<usize>, v: &LVar) -> Targets {
        match (v.slot, proc) {
            (Slot::Global(g), _) => self.globals.get(g).cloned().unwrap_or_else(Targets::any),
            (Slot::Local(l), Some(pi)) => self
                .locals
                .get(pi)
                .and_then(|ls| ls.get(l))
                .cloned()
                .unwrap_or_else(Targets::any),
            _ => Targets::any(),
        }
    }

    /// What the value of `e` may be.
    fn value(&self, proc: Option<usize>, e: &LExpr) -> Targets {
        match e {
            LExpr::Const(0) => Targets::default(),
            LExpr::Var(v) => self.var(proc, v),
            LExpr::Cond(_, a, b) => {
                let mut t = self.value(proc, a);
                t.join(&self.value(proc, b));
                t
            }
            LExpr::RemoteVar { proc: q, local, .. } => self
                .locals
                .get(*q)
                .and_then(|ls| ls.get(*local))
                .cloned()
                .unwrap_or_else(Targets::any),
            _ => Targets::any(),
        }
    }

    /// Why an operation at location `l` of proctype `p` may reach a changed channel (None:
    /// none of its operations can). The proctype's `provided` clause counts for every one of
    /// its locations.
    pub fn touches(&self, p: &Proc, l: &Location) -> Option<String> {
        let pi = self.prog.procs.iter().position(|q| std::ptr::eq(q, p))?;
        let mut hit = Targets::default();
        if let Some(e) = &p.provided {
            e.each(&mut |e| self.probed(pi, e, &mut hit));
        }
        for e in &l.edges {
            self.operated(pi, &e.stmt, &mut hit);
        }
        if !hit.any && hit.chans.is_empty() {
            return None;
        }
        let names: Vec<String> = hit
            .chans
            .iter()
            .filter_map(|&s| match s {
                Source::Global(g) => self.prog.globals.get(g).map(|v| format!("'{}'", v.name)),
                Source::Local(q, l) => {
                    let p = self.prog.procs.get(q)?;
                    p.locals.get(l).map(|v| format!("'{}:{}'", p.name, v.name))
                }
            })
            .collect();
        Some(if hit.any || names.is_empty() {
            "may operate on a channel whose declaration changed (which channel it names is a \
             value the analysis cannot follow)"
                .into()
        } else {
            format!(
                "operates on channel {}, whose declaration changed",
                names.join(", ")
            )
        })
    }

    /// Adds to `hit` what the channels `s` operates on may be: its own send or receive, and
    /// the polls, `len` and probes in its expressions.
    fn operated(&self, pi: usize, s: &LStmt, hit: &mut Targets) {
        match s {
            LStmt::Send { chan, .. } | LStmt::Recv { chan, .. } => {
                hit.join(&self.var(Some(pi), chan));
            }
            LStmt::DStep(a) => {
                for l in &a.auto.locations {
                    for e in &l.edges {
                        self.operated(pi, &e.stmt, hit);
                    }
                }
                return;
            }
            _ => {}
        }
        s.each_expr(&mut |e| self.probed(pi, e, hit));
    }

    /// Adds to `hit` what the channel `e` reads (a poll, `len`, a probe) may be.
    fn probed(&self, pi: usize, e: &LExpr, hit: &mut Targets) {
        if let LExpr::Len(v) | LExpr::Probe(_, v) | LExpr::Poll { chan: v, .. } = e {
            hit.join(&self.var(Some(pi), v));
        }
    }
}
