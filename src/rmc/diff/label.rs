//! A location's label: everything that decides what a process at that location can do, as
//! canonical bytes that two versions can compare. Variables appear as slots (which global,
//! which local, which field), never by name; constants (`#define`, `mtype`) as values;
//! proctypes named by `run` and remote references by name; the location a remote reference
//! names by its stable id. Spans, lines and comments are not part of it, so moving code
//! changes nothing while changing what it does changes the label.
//!
//! The label holds the location's flags, its ordered outgoing edges (statement, target, the
//! atomic and escape structure), and the proctype's `provided` clause and priority (they
//! govern every transition of the proctype). A `run P()` statement also holds what the new
//! process starts as: P's first location, parameters, local declarations with their initial
//! values and priority, so that a change to how P starts makes every `run P()` dangerous
//! (an `active` process only changes the initial state, which is then not in the record).

use crate::program::dcode::{DFail, DOp, DStep};
use crate::program::expr::{LExpr, LRecvArg, LStmt, LVar, Slot};
use crate::program::types::{ChanType, Type, Var, VarInit};
use crate::program::{Automaton, Location, Proc, Program};

/// How labels name what lies outside the statement itself.
pub trait Names {
    /// The stable id of a target location (None: leave targets out of the label).
    fn target(&self, id: crate::program::LocId) -> Option<u32>;
    /// The stable id of the location labelled `label` in proctype `proc` (for `P@L`).
    fn remote_label(&self, proc: usize, label: &str) -> Option<u32>;
    /// The stable id of proctype `proc`'s initial location (for `run`).
    fn start(&self, proc: usize) -> Option<u32>;
    /// The number a global variable is compared by (an old version whose layout only lacks
    /// some globals numbers its globals as the new version does).
    fn global(&self, i: usize) -> usize {
        i
    }
    /// The number local `i` of proctype `proc` is compared by (likewise, when the new
    /// version's proctype only gained locals).
    fn local(&self, proc: usize, i: usize) -> usize {
        let _ = proc;
        i
    }
    /// The number a read of global `i` is compared by: a variable retyped whose values
    /// carry over unchanged reads as it did, though writing it is another statement.
    fn global_read(&self, i: usize) -> usize {
        self.global(i)
    }
    /// Likewise for local `i` of proctype `proc`.
    fn local_read(&self, proc: usize, i: usize) -> usize {
        self.local(proc, i)
    }
    /// The number a write of the constant `v` to global `i` is compared by: as a read where
    /// both versions' types hold `v` (the value written is then the same in a state and in
    /// its image), else as a write.
    fn global_const(&self, i: usize, v: i64) -> usize {
        let _ = v;
        self.global(i)
    }
    /// Likewise for local `i` of proctype `proc`.
    fn local_const(&self, proc: usize, i: usize, v: i64) -> usize {
        let _ = v;
        self.local(proc, i)
    }
    /// The number an access of element `k` (a constant index) of global array `i` is
    /// compared by, read or written, where that element is the same in both versions though
    /// the array was resized (None: as the array is).
    fn global_element(&self, i: usize, k: i64) -> Option<usize> {
        let _ = (i, k);
        None
    }
    /// Likewise for local `i` of proctype `proc`.
    fn local_element(&self, proc: usize, i: usize, k: i64) -> Option<usize> {
        let _ = (proc, i, k);
        None
    }
}

/// The value of an expression that is a constant (`-1` is a negation of one).
fn constant(e: &LExpr) -> Option<i64> {
    match e {
        LExpr::Const(c) | LExpr::Mtype(_, c) => Some(*c),
        LExpr::Unary(crate::promela::ast::UnOp::Neg, a) => match **a {
            LExpr::Const(c) => c.checked_neg(),
            _ => None,
        },
        _ => None,
    }
}

/// How a statement names a variable.
#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
    /// An assignment of a constant.
    WriteConst(i64),
}

/// Writes canonical bytes.
pub struct Canon<'a, N: Names> {
    pub prog: &'a Program,
    pub names: &'a N,
    pub out: Vec<u8>,
    /// The proctype whose locals `Slot::Local` names (None: outside any).
    cur: Option<usize>,
}

impl<'a, N: Names> Canon<'a, N> {
    pub fn new(prog: &'a Program, names: &'a N) -> Self {
        Canon {
            prog,
            names,
            out: Vec::new(),
            cur: None,
        }
    }

    fn tag(&mut self, t: u8) {
        self.out.push(t);
    }

    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn i64(&mut self, v: i64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.out.extend_from_slice(s.as_bytes());
    }

    fn opt_expr(&mut self, e: Option<&LExpr>) {
        match e {
            Some(e) => {
                self.tag(1);
                self.expr(e);
            }
            None => self.tag(0),
        }
    }

    fn proc_name(&mut self, proc: usize) {
        let name = self.prog.procs.get(proc).map_or("", |p| p.name.as_str());
        self.str(name);
    }

    /// A variable read (its index and field expressions are always reads).
    pub fn var(&mut self, v: &LVar) {
        self.slot(v, Access::Read);
    }

    /// A variable written: an assignment's target, a receive's variable, a channel created.
    fn target(&mut self, v: &LVar) {
        self.slot(v, Access::Write);
    }

    fn slot(&mut self, v: &LVar, access: Access) {
        // An element named by a constant index, of an array whose other elements changed.
        let element = v
            .index
            .as_deref()
            .and_then(constant)
            .filter(|_| v.fields.is_empty());
        match v.slot {
            Slot::Global(i) => {
                self.tag(1);
                let kept = element.and_then(|k| self.names.global_element(i, k));
                let n = match (kept, access) {
                    (Some(n), _) => n,
                    (None, Access::Read) => self.names.global_read(i),
                    (None, Access::Write) => self.names.global(i),
                    (None, Access::WriteConst(c)) => self.names.global_const(i, c),
                };
                self.u32(n as u32);
            }
            Slot::Local(i) => {
                self.tag(2);
                let kept = self
                    .cur
                    .zip(element)
                    .and_then(|(p, k)| self.names.local_element(p, i, k));
                let i = match (kept, self.cur, access) {
                    (Some(n), _, _) => n,
                    (None, Some(p), Access::Read) => self.names.local_read(p, i),
                    (None, Some(p), Access::Write) => self.names.local(p, i),
                    (None, Some(p), Access::WriteConst(c)) => self.names.local_const(p, i, c),
                    (None, None, _) => i,
                };
                self.u32(i as u32);
            }
            Slot::Pid => self.tag(3),
            Slot::NrPr => self.tag(4),
            Slot::Last => self.tag(5),
            Slot::Underscore => self.tag(6),
            Slot::Priority => self.tag(7),
        }
        self.opt_expr(v.index.as_deref());
        self.u32(v.fields.len() as u32);
        for (i, _, ix) in &v.fields {
            self.u32(*i as u32);
            self.opt_expr(ix.as_deref());
        }
    }

    pub fn expr(&mut self, e: &LExpr) {
        match e {
            LExpr::Const(v) | LExpr::Mtype(_, v) => {
                self.tag(1);
                self.i64(*v);
            }
            LExpr::Var(v) => {
                self.tag(2);
                self.var(v);
            }
            LExpr::Unary(op, a) => {
                self.tag(3);
                self.str(op.as_str());
                self.expr(a);
            }
            LExpr::Binary(op, a, b) => {
                self.tag(4);
                self.str(op.as_str());
                self.expr(a);
                self.expr(b);
            }
            LExpr::Cond(c, a, b) => {
                self.tag(5);
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            LExpr::Run {
                proc,
                args,
                priority,
                ..
            } => {
                self.tag(6);
                self.proc_name(*proc);
                // What the new process starts as: its first location, its parameters and
                // local declarations with their initial values, its priority. A change to
                // any of them changes what `run` creates.
                match self.names.start(*proc) {
                    Some(id) => {
                        self.tag(1);
                        self.u32(id);
                    }
                    None => self.tag(0),
                }
                if let Some(p) = self.prog.procs.get(*proc) {
                    // Its declarations name its own locals.
                    let caller = self.cur.replace(*proc);
                    self.u32(p.params.len() as u32);
                    for &i in &p.params {
                        self.u32(self.names.local(*proc, i) as u32);
                    }
                    self.u32(p.locals.len() as u32);
                    for v in &p.locals {
                        self.var_decl(v);
                    }
                    self.i64(p.priority);
                    self.cur = caller;
                }
                self.exprs(args);
                match priority {
                    Some(p) => {
                        self.tag(1);
                        self.i64(*p);
                    }
                    None => self.tag(0),
                }
            }
            LExpr::Len(v) => {
                self.tag(7);
                self.var(v);
            }
            LExpr::Probe(p, v) => {
                self.tag(8);
                self.str(p.as_str());
                self.var(v);
            }
            LExpr::Poll { chan, args, random } => {
                self.tag(9);
                self.var(chan);
                self.recv_args(args);
                self.tag(u8::from(*random));
            }
            LExpr::Enabled(a) => {
                self.tag(10);
                self.expr(a);
            }
            LExpr::GetPriority(a) => {
                self.tag(11);
                self.expr(a);
            }
            LExpr::PcValue(a) => {
                self.tag(12);
                self.expr(a);
            }
            LExpr::Timeout => self.tag(13),
            LExpr::Np => self.tag(14),
            LExpr::RemoteLabel {
                proc, index, label, ..
            } => {
                self.tag(15);
                self.proc_name(*proc);
                self.opt_expr(index.as_deref());
                // The location it names, by stable id: if the label moves, this changes.
                match self.names.remote_label(*proc, label) {
                    Some(id) => {
                        self.tag(1);
                        self.u32(id);
                    }
                    None => {
                        self.tag(0);
                        self.str(label);
                    }
                }
            }
            LExpr::RemoteVar {
                proc,
                index,
                local,
                var_index,
                ..
            } => {
                self.tag(16);
                self.proc_name(*proc);
                self.opt_expr(index.as_deref());
                self.u32(self.names.local(*proc, *local) as u32);
                self.opt_expr(var_index.as_deref());
            }
        }
    }

    fn exprs(&mut self, es: &[LExpr]) {
        self.u32(es.len() as u32);
        for e in es {
            self.expr(e);
        }
    }

    fn recv_args(&mut self, args: &[LRecvArg]) {
        self.u32(args.len() as u32);
        for a in args {
            match a {
                LRecvArg::Var(v) => {
                    self.tag(1);
                    self.target(v);
                }
                LRecvArg::Eval(e) => {
                    self.tag(2);
                    self.expr(e);
                }
                LRecvArg::Const(e) => {
                    self.tag(3);
                    self.expr(e);
                }
            }
        }
    }

    pub fn stmt(&mut self, s: &LStmt) {
        match s {
            LStmt::Expr(e) => {
                self.tag(1);
                self.expr(e);
            }
            LStmt::Assign(v, e) => {
                self.tag(2);
                match constant(e) {
                    Some(c) => self.slot(v, Access::WriteConst(c)),
                    None => self.target(v),
                }
                self.expr(e);
            }
            LStmt::Send { chan, args, sorted } => {
                self.tag(3);
                self.var(chan);
                self.exprs(args);
                self.tag(u8::from(*sorted));
            }
            LStmt::Recv {
                chan,
                args,
                random,
                copy,
            } => {
                self.tag(4);
                self.var(chan);
                self.recv_args(args);
                self.tag(u8::from(*random) | u8::from(*copy) << 1);
            }
            LStmt::Else => self.tag(5),
            // A kept `goto`, `break` or `.` is a move with no effect; its label is kept so
            // that the walk never pairs the targets of two different jumps.
            LStmt::Goto(l) => {
                self.tag(6);
                self.str(l);
            }
            LStmt::Assert(e) => {
                self.tag(7);
                self.expr(e);
            }
            LStmt::Printf(f, args) => {
                self.tag(8);
                self.str(f);
                self.exprs(args);
            }
            LStmt::Printm(e) => {
                self.tag(9);
                self.expr(e);
            }
            LStmt::SetPriority(a, b) => {
                self.tag(10);
                self.expr(a);
                self.expr(b);
            }
            LStmt::DStep(a) => {
                self.tag(11);
                self.inner_automaton(&a.auto);
                self.dstep_code(a);
            }
            LStmt::ChanInit(v, ct) => {
                self.tag(12);
                self.target(v);
                self.chan_type(ct);
            }
            LStmt::End => self.tag(13),
        }
    }

    /// A `d_step` body: its locations in order, targets by position.
    fn inner_automaton(&mut self, a: &Automaton) {
        let pos = |id| {
            a.locations
                .iter()
                .position(|l| l.id == id)
                .map_or(u32::MAX, |p| p as u32)
        };
        self.u32(pos(a.initial));
        self.u32(a.locations.len() as u32);
        for l in &a.locations {
            self.flags(l);
            self.u32(l.edges.len() as u32);
            for e in &l.edges {
                self.stmt(&e.stmt);
                self.u32(pos(e.target));
            }
        }
    }

    /// What a d_step's automaton does not show: its guard and where each statement goes
    /// when it blocks.
    fn dstep_code(&mut self, d: &DStep) {
        match &d.guard {
            None => self.tag(0),
            Some(atoms) => {
                self.tag(1);
                self.u32(atoms.len() as u32);
                atoms.iter().for_each(|s| self.stmt(s));
            }
        }
        self.u32(d.code.len() as u32);
        for op in &d.code {
            match op {
                DOp::Stmt { stmt, next, fail } => {
                    self.tag(0);
                    self.stmt(stmt);
                    self.u32(*next);
                    match fail {
                        DFail::Option(p) => {
                            self.tag(0);
                            self.u32(*p);
                        }
                        DFail::Selection => self.tag(1),
                        DFail::Sequence => self.tag(2),
                    }
                }
                DOp::Jump(p) => {
                    self.tag(1);
                    self.u32(*p);
                }
                DOp::NoOption => self.tag(2),
                DOp::End => self.tag(3),
            }
        }
    }

    fn chan_type(&mut self, ct: &ChanType) {
        self.u32(ct.capacity);
        self.u32(ct.fields.len() as u32);
        for f in &ct.fields {
            self.ty(f);
        }
    }

    fn ty(&mut self, t: &Type) {
        match t {
            Type::Struct { index, .. } => {
                self.tag(20);
                self.u32(*index as u32);
            }
            t => {
                self.tag(21);
                self.u32(t.bits());
                self.tag(u8::from(t.signed()));
            }
        }
    }

    fn flags(&mut self, l: &Location) {
        self.tag(
            u8::from(l.end)
                | u8::from(l.progress) << 1
                | u8::from(l.accept) << 2
                | u8::from(l.atomic) << 3
                | u8::from(l.terminal) << 4,
        );
    }

    pub fn var_decl(&mut self, v: &Var) {
        self.ty(&v.ty);
        self.u32(v.array.unwrap_or(0));
        self.tag(u8::from(v.late));
        match &v.init {
            VarInit::Zero => self.tag(0),
            VarInit::Expr(e) => {
                self.tag(1);
                self.expr(e);
            }
            VarInit::List(l) => {
                self.tag(2);
                self.exprs(l);
            }
            VarInit::Chan(ct) => {
                self.tag(3);
                self.chan_type(ct);
            }
        }
    }

    fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// The label of location `l` of proctype `p`, in parts that can be compared one by one.
    pub fn parts(&mut self, p: &Proc, l: &Location) -> Parts {
        self.out.clear();
        self.cur = self.prog.procs.iter().position(|q| std::ptr::eq(q, p));
        self.flags(l);
        let flags = self.take();
        self.opt_expr(p.provided.as_ref());
        self.i64(p.priority);
        self.tag(u8::from(p.deterministic));
        let context = self.take();
        // Escape groups are numbered by the lowering; only which edges share one matters.
        let mut groups: Vec<u32> = Vec::new();
        let mut edges = Vec::with_capacity(l.edges.len());
        for e in &l.edges {
            self.stmt(&e.stmt);
            let g = if e.escape_group == 0 {
                0
            } else {
                match groups.iter().position(|&x| x == e.escape_group) {
                    Some(i) => i as u32 + 1,
                    None => {
                        groups.push(e.escape_group);
                        groups.len() as u32
                    }
                }
            };
            self.tag(u8::from(e.atomic) | u8::from(e.escape) << 1);
            self.u32(g);
            let stmt = self.take();
            edges.push((stmt, self.names.target(e.target)));
        }
        Parts {
            flags,
            context,
            edges,
        }
    }
}

/// A location's label in parts: its flags, its proctype's context (`provided`, priority,
/// determinism), and per outgoing edge the statement (with its atomic and escape structure)
/// and the target's stable id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Parts {
    pub flags: Vec<u8>,
    pub context: Vec<u8>,
    pub edges: Vec<(Vec<u8>, Option<u32>)>,
}

impl Parts {
    /// The label without its targets: what the walk and the sequence diff compare.
    pub fn shape_hash(&self) -> u64 {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        use std::hash::Hasher;
        h.write(&self.flags);
        h.write(&self.context);
        h.write(&(self.edges.len() as u32).to_le_bytes());
        for (s, _) in &self.edges {
            h.write(&(s.len() as u32).to_le_bytes());
            h.write(s);
        }
        h.finish()
    }

    /// Equal but for the targets.
    pub fn same_shape(&self, o: &Parts) -> bool {
        self.flags == o.flags
            && self.context == o.context
            && self.edges.len() == o.edges.len()
            && self.edges.iter().zip(&o.edges).all(|(a, b)| a.0 == b.0)
    }
}
