//! Lowering of one proctype body to pan's automaton. Follows how spin builds its elements:
//! one element per statement, `if`/`do`/`{}`/`atomic`/`unless` headers whose options are
//! flattened into their first statements, `.` elements after `fi`/`od`, a `break` element
//! after each `do`, and jumps (`goto`, `break`, `.`) that are steps only where pan keeps them
//! (first in an option or block, or leaving an atomic sequence). Only locations reachable
//! from the start are kept, as in pan.
//!
//! One file, as spin's element building is one walk: jumps are folded and atomic and unless
//! structure applied as the elements are made, over the same tables.

use std::collections::HashMap;

use crate::promela::ast::{
    self, BinOp, Expr, ExprKind, Sequence, Step, StepKind, Stmt, StmtKind, VarRef,
};
use crate::promela::source::Span;

use super::expr::{LExpr, LStmt};
use super::resolve::Resolver;
use super::types::VarInit;
use super::{Automaton, Edge, LocId, Location};

mod dstep;

type ElId = usize;

/// (source element, statement, text, target element, the `unless` escape it belongs to)
type RawEdge = (ElId, LStmt, String, ElId, Option<ElId>);

#[derive(Clone, Debug)]
enum ElKind {
    Stmt(LStmt),
    Goto(String, Span),
    Break(ElId),
    /// After `fi`/`od`: moves on to the next element.
    Dot,
    /// A `do`'s exit: moves on to what follows the `od`.
    DoExit,
    Header(Vec<ElId>),
    End,
    Terminal,
}

#[derive(Clone, Debug)]
struct El {
    kind: ElKind,
    next: Option<ElId>,
    span: Span,
    /// Where pan places the statement (its `srcln`): for an expression, the line of its
    /// right-most operand, as spin's syntax nodes record it.
    line: Span,
    labels: Vec<String>,
    /// Inside an atomic sequence and not its last element (spin's ATOM).
    atom: bool,
    /// Inside an atomic sequence and not its last element, gotos included: a step from it
    /// that stays in the sequence keeps control (pan's A flag on the transition).
    seq_inner: bool,
    group: Option<u32>,
    /// Entries of enclosing `unless` escapes, outermost first.
    escapes: Vec<ElId>,
    /// On a header: the selection it opens (none for `{}` and `atomic`).
    choice: Option<Choice>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    If,
    Do,
}

/// A lowered statement or sequence: where it starts, the elements whose `next` continues
/// after it, and its last element (for atomic sequences).
#[derive(Clone, Debug)]
struct Chunk {
    entry: ElId,
    exits: Vec<ElId>,
    last: ElId,
}

/// A label as declared (when its statement is complete), with the symbol its name was bound
/// to when read, its block and the inline definition it was written in (0: none).
#[derive(Clone, Debug)]
struct LabelDecl {
    name: String,
    symbol: usize,
    el: ElId,
    block: usize,
    inline: u32,
}

/// Labels and gotos, resolved as spin does: names are bound to block-scoped symbols in
/// textual order (a name reuses the most recent visible symbol of that name, else makes one
/// in its block), and a `goto` takes the most recently declared label with its own symbol,
/// else the earliest-declared one in a block enclosing it, else the most recently declared
/// one of that name in the proctype.
#[derive(Clone, Debug, Default)]
struct Labels {
    /// Parent of each block (every `{`); block 0 is the body.
    parents: Vec<usize>,
    block: usize,
    /// (name, block) of each symbol.
    symbols: Vec<(String, usize)>,
    decls: Vec<LabelDecl>,
    /// (symbol, block) of each goto element.
    gotos: HashMap<ElId, (usize, usize)>,
}

impl Labels {
    fn encloses(&self, outer: usize, mut b: usize) -> bool {
        loop {
            if b == outer {
                return true;
            }
            match self.parents.get(b) {
                Some(&p) if p != b => b = p,
                _ => return false,
            }
        }
    }

    fn bind(&mut self, name: &str) -> usize {
        let found = (0..self.symbols.len()).rev().find(|&s| {
            let (n, b) = &self.symbols[s];
            n == name && self.encloses(*b, self.block)
        });
        found.unwrap_or_else(|| {
            self.symbols.push((name.to_string(), self.block));
            self.symbols.len() - 1
        })
    }

    fn open(&mut self) -> usize {
        let saved = self.block;
        self.parents.push(saved);
        self.block = self.parents.len() - 1;
        saved
    }

    fn resolve(&self, goto: ElId) -> Option<ElId> {
        let &(sym, block) = self.gotos.get(&goto)?;
        let name = &self.symbols[sym].0;
        if let Some(d) = self.decls.iter().rev().find(|d| d.symbol == sym) {
            return Some(d.el);
        }
        if let Some(d) = self
            .decls
            .iter()
            .find(|d| &d.name == name && self.encloses(d.block, block))
        {
            return Some(d.el);
        }
        self.decls
            .iter()
            .rev()
            .find(|d| &d.name == name)
            .map(|d| d.el)
    }
}

pub struct Lowerer<'r> {
    pub res: &'r mut Resolver,
    els: Vec<El>,
    labels: Labels,
    breaks: Vec<ElId>,
    next_group: u32,
    in_atomic: bool,
    /// A statement was seen: later declarations become assignments (spin's
    /// `initialization_ok`).
    seen_stmt: bool,
    /// Depth of nested sequences; declarations in nested ones are always statements.
    nest: usize,
    /// Lowering a `d_step` body, where an option starting with `false` is kept (it guards).
    in_dstep: bool,
}

fn is_jump(k: &ElKind) -> bool {
    matches!(
        k,
        ElKind::Goto(..) | ElKind::Break(_) | ElKind::Dot | ElKind::DoExit
    )
}

impl<'r> Lowerer<'r> {
    pub fn new(res: &'r mut Resolver) -> Self {
        Lowerer {
            res,
            els: Vec::new(),
            labels: Labels {
                parents: vec![0],
                ..Labels::default()
            },
            breaks: Vec::new(),
            next_group: 0,
            in_atomic: false,
            seen_stmt: false,
            nest: 0,
            in_dstep: false,
        }
    }

    fn el(&mut self, kind: ElKind, span: Span) -> ElId {
        self.els.push(El {
            kind,
            next: None,
            span,
            line: span,
            labels: Vec::new(),
            atom: false,
            seq_inner: false,
            group: None,
            escapes: Vec::new(),
            choice: None,
        });
        self.els.len() - 1
    }

    fn single(&mut self, kind: ElKind, span: Span) -> Chunk {
        let e = self.el(kind, span);
        Chunk {
            entry: e,
            exits: vec![e],
            last: e,
        }
    }

    fn link(&mut self, exits: &[ElId], to: ElId) {
        for &x in exits {
            self.els[x].next = Some(to);
        }
    }

    /// Lowers a whole body; returns the automaton and the labels it defines.
    pub fn body(mut self, seq: &Sequence, end_span: Span, base: u32) -> (Automaton, Vec<String>) {
        let chunk = self.seq(seq);
        let end = self.el(ElKind::End, end_span);
        let entry = match chunk {
            Some(c) => {
                self.link(&c.exits, end);
                c.entry
            }
            None => end,
        };
        let mut labels: Vec<String> = self.labels.decls.iter().map(|d| d.name.clone()).collect();
        labels.sort();
        labels.dedup();
        (self.materialize(entry, base), labels)
    }

    // ----- building elements -----

    /// A `{ }` sequence: a block scope of its own, for variables and labels (spin opens one
    /// at every `{`, an inline's expansion included, and none for an `if`/`do` option).
    fn scoped(&mut self, seq: &Sequence) -> Option<Chunk> {
        self.res.push_scope();
        let saved = self.labels.open();
        let c = self.seq(seq);
        self.labels.block = saved;
        self.res.pop_scope();
        c
    }

    fn seq(&mut self, seq: &Sequence) -> Option<Chunk> {
        self.nest += 1;
        let mut chunks: Vec<Chunk> = Vec::new();
        for step in &seq.steps {
            if let Some(c) = self.step(step) {
                chunks.push(c);
            }
        }
        self.nest -= 1;
        let mut it = chunks.into_iter();
        let mut acc = it.next()?;
        for c in it {
            self.link(&acc.exits, c.entry);
            acc = Chunk {
                entry: acc.entry,
                exits: c.exits,
                last: c.last,
            };
        }
        Some(acc)
    }

    fn step(&mut self, step: &Step) -> Option<Chunk> {
        // A label's name is bound when it is read; the label is declared once its
        // statement is complete (so after the labels inside a compound statement).
        let symbols: Vec<usize> = step
            .labels
            .iter()
            .map(|(l, _)| self.labels.bind(l))
            .collect();
        // Where the labels after the first go, when a skip took the first (below).
        let mut jump_el = None;
        let chunk = match &step.kind {
            StepKind::Decl(d) => return self.decl(d),
            StepKind::Xu { chans, .. } => {
                self.res.uses_xr_xs = true;
                for c in chans {
                    self.res.var(c, false);
                }
                return None;
            }
            StepKind::Stmt(s) => {
                // A jump has no location of its own, so spin puts an end/progress/accept
                // label, or one a remote reference names, on a skip before it: the
                // outermost label only; any other stays on the jump, whose state pan
                // folds away, and with it that label's end, progress or accept flag.
                let special = step.labels.iter().any(|(l, _)| {
                    l.starts_with("end")
                        || l.starts_with("progress")
                        || l.starts_with("accept")
                        || self
                            .res
                            .remote_labels
                            .iter()
                            .any(|(p, rl)| rl == l && *p == self.res.proc_name)
                });
                if special && matches!(s.kind, StmtKind::Goto(..) | StmtKind::Break) {
                    let skip = self.single(ElKind::Stmt(LStmt::Expr(LExpr::Const(1))), s.span);
                    let g = self.stmt(s);
                    self.link(&skip.exits, g.entry);
                    jump_el = Some(g.entry);
                    Chunk {
                        entry: skip.entry,
                        exits: g.exits,
                        last: g.last,
                    }
                } else {
                    self.stmt(s)
                }
            }
            StepKind::Unless(main, esc) => self.unless(main, esc),
        };
        // spin emits a `for` loop's initialisation as a statement of its own before the
        // labelled loop: a label on a `for` names the loop, past the initialisation.
        let is_for = matches!(
            &step.kind,
            StepKind::Stmt(Stmt {
                kind: StmtKind::ForRange { .. } | StmtKind::ForIn { .. },
                ..
            })
        );
        let entry = match self.els[chunk.entry].next {
            Some(n) if is_for && !step.labels.is_empty() => n,
            _ => chunk.entry,
        };
        // A `do` is entered through its loop-back point; its labels mark the `do` itself.
        let marked = match self.els[entry].kind {
            ElKind::Dot => self.els[entry]
                .next
                .filter(|&n| matches!(self.els[n].kind, ElKind::Header(_)))
                .unwrap_or(entry),
            _ => entry,
        };
        for (k, ((l, sp), symbol)) in step.labels.iter().zip(symbols).enumerate() {
            let (entry, marked) = match jump_el {
                Some(j) if k > 0 => (j, j),
                _ => (entry, marked),
            };
            let inline = self.res.inline_of(*sp);
            if self
                .labels
                .decls
                .iter()
                .any(|d| d.symbol == symbol && d.inline == inline)
            {
                self.res.error(*sp, format!("label {l} redeclared"));
            } else {
                self.labels.decls.push(LabelDecl {
                    name: l.clone(),
                    symbol,
                    el: entry,
                    block: self.labels.block,
                    inline,
                });
            }
            self.els[marked].labels.push(l.clone());
        }
        Some(chunk)
    }

    /// A declaration inside a body: before the first statement it only creates the
    /// variables; after it, each variable also gets an initialising step (spin).
    fn decl(&mut self, d: &ast::Decl) -> Option<Chunk> {
        // The body's own sequence is at depth 1.
        let late = self.seen_stmt || self.nest > 1;
        let vars = self.res.declare_vars(d, late);
        let mut chunks = Vec::new();
        for (v, written) in vars.into_iter().zip(&d.vars) {
            let at = written.after;
            let span = v.span;
            let ty = v.ty.clone();
            let init = v.init.clone();
            let is_array = v.array.is_some();
            let name = v.name.clone();
            let idx = self.res.add_local(v);
            // The body's own scope is `_N_`; a nested block's prefix has more numbers.
            if d.scope.matches('_').count() > 2 {
                self.res
                    .block_names
                    .insert(idx, format!("{}{name}", d.scope));
            }
            if !late {
                continue;
            }
            let target = super::LVar {
                slot: super::Slot::Local(idx),
                name: name.clone(),
                index: if is_array {
                    Some(Box::new(LExpr::Const(0)))
                } else {
                    None
                },
                fields: Vec::new(),
            };
            let stmt = match (&ty, init) {
                (super::Type::Struct { .. }, _) => LStmt::Expr(LExpr::Const(1)),
                (_, VarInit::Chan(_)) => {
                    self.res.error(
                        span,
                        format!("place initialized chan decl of '{name}' at start of proctype"),
                    );
                    LStmt::Expr(LExpr::Const(1))
                }
                (_, VarInit::Expr(e)) => LStmt::Assign(target, e),
                // spin initialises a late declaration by one assignment, which a list of
                // values has no place in.
                (_, VarInit::List(_)) => {
                    self.res.error(
                        span,
                        "cannot use an array list initializer here".to_string(),
                    );
                    LStmt::Expr(LExpr::Const(1))
                }
                (_, VarInit::Zero) => LStmt::Assign(target, LExpr::Const(0)),
            };
            chunks.push(self.single(ElKind::Stmt(stmt), at));
        }
        let mut it = chunks.into_iter();
        let mut acc = it.next()?;
        for c in it {
            self.link(&acc.exits, c.entry);
            acc.exits = c.exits;
            acc.last = c.last;
        }
        Some(acc)
    }

    /// `main unless esc`: no element of its own (spin attaches the escape to every element of
    /// the main statement, and a `{ }` main loses its block header).
    fn unless(&mut self, main: &Stmt, esc: &Stmt) -> Chunk {
        let start = self.els.len();
        let m = match &main.kind {
            StmtKind::Block(seq) => {
                self.seen_stmt = true;
                match self.scoped(seq) {
                    Some(c) => c,
                    None => self.single(ElKind::Stmt(LStmt::Expr(LExpr::Const(1))), main.span),
                }
            }
            _ => self.stmt(main),
        };
        let end = self.els.len();
        let e = self.stmt(esc);
        let esc_entry = self.skip_dots(e.entry);
        for id in start..end {
            self.els[id].escapes.insert(0, esc_entry);
        }
        let mut exits = m.exits;
        exits.extend(e.exits);
        // spin closes an `unless` with a `.` of its own (on the escape's last line): a jump
        // where control goes on, and, last in an atomic sequence, that sequence's last
        // element, so that the statements of both parts keep control and the sequence is
        // left by a step of its own.
        let end = Span {
            start: esc.span.end.saturating_sub(1),
            ..esc.span
        };
        let dot = self.el(ElKind::Dot, end);
        self.link(&exits, dot);
        Chunk {
            entry: m.entry,
            exits: vec![dot],
            last: dot,
        }
    }

    fn skip_dots(&self, mut e: ElId) -> ElId {
        for _ in 0..self.els.len() {
            match (&self.els[e].kind, self.els[e].next) {
                (ElKind::Dot, Some(n)) => e = n,
                _ => break,
            }
        }
        e
    }

    fn stmt(&mut self, s: &Stmt) -> Chunk {
        self.seen_stmt = true;
        let sp = s.span;
        let simple = |st: LStmt| ElKind::Stmt(st);
        match &s.kind {
            StmtKind::Expr(e) => {
                let le = self.res.expr(e);
                self.res.check_no_chan_arith(&le, e.span);
                let c = self.single(simple(LStmt::Expr(le)), sp);
                self.els[c.entry].line = line_of(e);
                c
            }
            StmtKind::Skip => self.single(simple(LStmt::Expr(LExpr::Const(1))), sp),
            StmtKind::Assign(v, e) => {
                let lv = self.res.var(v, true);
                let le = self.res.expr(e);
                self.res.check_mtype_assign(&lv, &le, sp);
                self.res.check_no_chan_arith(&le, e.span);
                self.single(simple(LStmt::Assign(lv, le)), sp)
            }
            StmtKind::Incr(v) | StmtKind::Decr(v) => {
                let op = if matches!(s.kind, StmtKind::Incr(_)) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let lv = self.res.var(v, true);
                if self.res.var_type(&lv) == Some(super::Type::Chan) {
                    self.res.error(sp, "arithmetic on chan");
                }
                let e = LExpr::Binary(
                    op,
                    Box::new(LExpr::Var(lv.clone())),
                    Box::new(LExpr::Const(1)),
                );
                self.single(simple(LStmt::Assign(lv, e)), sp)
            }
            StmtKind::Send { chan, args, sorted } => {
                let c = self.res.var(chan, false);
                let a: Vec<LExpr> = args.iter().map(|x| self.res.expr(x)).collect();
                // Checked once the whole model is read: spin rejects a send only when it
                // has more values than any channel of the model has fields.
                let known = self.res.chan_fields(&c);
                self.res.sends.push((chan.span, a.len(), known));
                self.single(
                    simple(LStmt::Send {
                        chan: c,
                        args: a,
                        sorted: *sorted,
                    }),
                    sp,
                )
            }
            StmtKind::Recv {
                chan,
                args,
                random,
                copy,
            } => {
                let c = self.res.var(chan, false);
                let a = args.iter().map(|x| self.res.recv_arg(x)).collect();
                self.single(
                    simple(LStmt::Recv {
                        chan: c,
                        args: a,
                        random: *random,
                        copy: *copy,
                    }),
                    sp,
                )
            }
            StmtKind::Else => self.single(simple(LStmt::Else), sp),
            StmtKind::Assert(e) => {
                let le = self.res.expr(e);
                let c = self.single(simple(LStmt::Assert(le)), sp);
                self.els[c.entry].line = line_of(e);
                c
            }
            StmtKind::Printf(f, args) => {
                let a = args.iter().map(|x| self.res.expr(x)).collect();
                self.single(simple(LStmt::Printf(f.clone(), a)), sp)
            }
            StmtKind::Printm(e) => {
                let le = self.res.expr(e);
                self.single(simple(LStmt::Printm(le)), sp)
            }
            StmtKind::SetPriority(a, b) => {
                self.res.uses_priority = true;
                let (a, b) = (self.res.expr(a), self.res.expr(b));
                self.single(simple(LStmt::SetPriority(a, b)), sp)
            }
            StmtKind::Goto(l, lsp) => {
                let c = self.single(ElKind::Goto(l.clone(), *lsp), sp);
                let sym = self.labels.bind(l);
                self.labels.gotos.insert(c.entry, (sym, self.labels.block));
                c
            }
            StmtKind::Break => match self.breaks.last() {
                Some(&x) => self.single(ElKind::Break(x), sp),
                None => {
                    self.res.error(sp, "misplaced break statement");
                    self.single(simple(LStmt::Expr(LExpr::Const(1))), sp)
                }
            },
            StmtKind::If(opts, end) => self.if_stmt(opts, sp, *end),
            StmtKind::Do(opts, end) => self.do_stmt(opts, sp, *end),
            StmtKind::Block(seq) => self.block(seq, sp, false),
            StmtKind::Atomic(seq) => self.block(seq, sp, true),
            StmtKind::DStep(seq) => self.dstep(seq, sp),
            StmtKind::ForRange {
                var,
                from,
                to,
                body,
            } => {
                if let (ExprKind::Const(a), ExprKind::Const(b)) = (&from.kind, &to.kind) {
                    if a > b {
                        self.res.error(sp, "start value exceeds end-value in for");
                    }
                }
                let cond = bin(BinOp::Le, var_expr(var), to.clone());
                self.for_loop(var, from.clone(), cond, body, sp)
            }
            StmtKind::ForIn { var, array, body } => {
                let lv = self.res.var(array, false);
                let n = match lv.slot {
                    super::Slot::Global(g) => self.res.globals[g].array,
                    super::Slot::Local(l) => self.res.locals[l].array,
                    _ => None,
                };
                if (n.is_none() || array.index.is_some())
                    && self.res.var_type(&lv) == Some(super::Type::Chan)
                {
                    return self.for_in_chan(var, array, body, sp);
                }
                let n = match n {
                    Some(n) => n as i64,
                    None => {
                        self.res
                            .error(array.span, format!("'{}' is not an array", array.name));
                        1
                    }
                };
                let zero = Expr {
                    kind: ExprKind::Const(0),
                    span: sp,
                };
                let limit = Expr {
                    kind: ExprKind::Const(n - 1),
                    span: sp,
                };
                let cond = bin(BinOp::Le, var_expr(var), limit);
                self.for_loop(var, zero, cond, body, sp)
            }
            StmtKind::Select {
                var,
                from,
                to,
                lexed,
            } => self.select(var, from, to, *lexed, sp),
        }
    }

    /// `for (v in ch)`: visits each buffered message, as spin does by rotating the channel:
    /// `t = 0; do :: t < len(ch) -> ch?v; ch!v; body; t++ :: else -> break od`, with a
    /// hidden counter local `t`.
    fn for_in_chan(&mut self, var: &VarRef, chan: &VarRef, body: &Sequence, sp: Span) -> Chunk {
        let name = format!("f0r_t3mp_{}_", self.res.locals.len());
        self.res.add_local(super::Var {
            name: name.clone(),
            ty: super::Type::Int,
            array: None,
            init: VarInit::Zero,
            vis: ast::Visibility::Default,
            span: sp,
            late: false,
        });
        let counter = VarRef {
            name,
            span: sp,
            index: None,
            field: None,
        };
        let st = |kind: StmtKind| Step {
            labels: Vec::new(),
            kind: StepKind::Stmt(Stmt { kind, span: sp }),
            span: sp,
        };
        let mut steps = vec![
            st(StmtKind::Recv {
                chan: chan.clone(),
                args: vec![ast::RecvArg::Var(var.clone())],
                random: false,
                copy: false,
            }),
            st(StmtKind::Send {
                chan: chan.clone(),
                args: vec![var_expr(var)],
                sorted: false,
            }),
        ];
        steps.extend(body.steps.iter().cloned());
        let inner = Sequence {
            steps,
            span: body.span,
        };
        let len = Expr {
            kind: ExprKind::Len(chan.clone()),
            span: sp,
        };
        let cond = bin(BinOp::Lt, var_expr(&counter), len);
        let zero = Expr {
            kind: ExprKind::Const(0),
            span: sp,
        };
        self.for_loop(&counter, zero, cond, &inner, sp)
    }

    /// `for`: `v = from; do :: cond -> body; v++ :: else -> break od`.
    fn for_loop(
        &mut self,
        var: &VarRef,
        from: Expr,
        cond: Expr,
        body: &Sequence,
        sp: Span,
    ) -> Chunk {
        let st = |kind: StmtKind| Step {
            labels: Vec::new(),
            kind: StepKind::Stmt(Stmt { kind, span: sp }),
            span: sp,
        };
        let mut opt1 = vec![st(StmtKind::Expr(cond))];
        opt1.push(Step {
            labels: Vec::new(),
            kind: StepKind::Stmt(Stmt {
                kind: StmtKind::Block(body.clone()),
                span: body.span,
            }),
            span: body.span,
        });
        opt1.push(st(StmtKind::Incr(var.clone())));
        // spin builds the loop's exit when the body is closed: those steps carry the line
        // of the body's closing brace.
        let end = Span {
            file: body.span.file,
            start: body.span.end.saturating_sub(1),
            end: body.span.end,
        };
        let at_end = |kind: StmtKind| Step {
            labels: Vec::new(),
            kind: StepKind::Stmt(Stmt { kind, span: end }),
            span: end,
        };
        let opt2 = vec![at_end(StmtKind::Else), at_end(StmtKind::Break)];
        let seq = Sequence {
            steps: vec![
                st(StmtKind::Assign(var.clone(), from)),
                Step {
                    labels: Vec::new(),
                    kind: StepKind::Stmt(Stmt {
                        kind: StmtKind::Do(
                            vec![
                                Sequence {
                                    steps: opt1,
                                    span: sp,
                                },
                                Sequence {
                                    steps: opt2,
                                    span: sp,
                                },
                            ],
                            end,
                        ),
                        span: end,
                    }),
                    span: end,
                },
            ],
            span: sp,
        };
        self.inline_seq(&seq)
    }

    /// A generated sequence lowered in the current scope.
    fn inline_seq(&mut self, seq: &Sequence) -> Chunk {
        match self.seq(seq) {
            Some(c) => c,
            None => self.single(ElKind::Stmt(LStmt::Expr(LExpr::Const(1))), seq.span),
        }
    }

    fn select(&mut self, var: &VarRef, from: &Expr, to: &Expr, lexed: bool, sp: Span) -> Chunk {
        let st = |kind: StmtKind| Step {
            labels: Vec::new(),
            kind: StepKind::Stmt(Stmt { kind, span: sp }),
            span: sp,
        };
        // spin expands `select` in its lexer only for `( name : digits .. digits )` with an
        // alphanumeric name (no `_`), and not in an inline's body; anything else takes the
        // grammar's loop form.
        let literal = lexed
            && var.index.is_none()
            && var.field.is_none()
            && var.name.chars().all(|c| c.is_ascii_alphanumeric());
        if let (ExprKind::Const(a), ExprKind::Const(b), true) = (&from.kind, &to.kind, literal) {
            if a > b {
                self.res.error(sp, "bad range in select statement");
            } else if b - a <= 32 {
                // spin's lexer turns this into `if :: v = a :: … :: v = b fi`.
                let opts = (*a..=*b)
                    .map(|k| Sequence {
                        steps: vec![st(StmtKind::Assign(
                            var.clone(),
                            Expr {
                                kind: ExprKind::Const(k),
                                span: sp,
                            },
                        ))],
                        span: sp,
                    })
                    .collect();
                return self.stmt(&Stmt {
                    kind: StmtKind::If(opts, sp),
                    span: sp,
                });
            }
        }
        let cond = bin(BinOp::Lt, var_expr(var), to.clone());
        let guard = Sequence {
            steps: vec![st(StmtKind::Expr(cond)), st(StmtKind::Incr(var.clone()))],
            span: sp,
        };
        let stop = Sequence {
            steps: vec![st(StmtKind::Break)],
            span: sp,
        };
        // spin: with constant bounds the guard comes first, otherwise the break.
        let constant = matches!(
            (&from.kind, &to.kind),
            (ExprKind::Const(_), ExprKind::Const(_))
        );
        let opts = if constant && literal {
            vec![guard, stop]
        } else {
            vec![stop, guard]
        };
        let seq = Sequence {
            steps: vec![
                st(StmtKind::Assign(var.clone(), from.clone())),
                st(StmtKind::Do(opts, sp)),
            ],
            span: sp,
        };
        self.inline_seq(&seq)
    }

    /// The options of an `if`/`do`, with `else` moved last (spin).
    fn options(&mut self, opts: &[Sequence]) -> (Vec<ElId>, Vec<ElId>) {
        let mut entries = Vec::new();
        let mut else_entry = None;
        let mut exits = Vec::new();
        for o in opts {
            let o = &prune_skips(o);
            let dead = matches!(
                o.steps.first().map(|s| &s.kind),
                Some(StepKind::Stmt(Stmt {
                    kind: StmtKind::Expr(Expr {
                        kind: ExprKind::Const(0),
                        ..
                    }),
                    ..
                }))
            );
            let is_else = matches!(
                o.steps.first().map(|s| &s.kind),
                Some(StepKind::Stmt(Stmt {
                    kind: StmtKind::Else,
                    ..
                }))
            );
            match self.seq(o) {
                Some(c) => {
                    let e = self.skip_dots(c.entry);
                    if dead && !self.in_dstep {
                        // spin drops an option starting with `false` ("dead link").
                    } else if is_else {
                        if else_entry.is_some() {
                            self.res.error(o.steps[0].span, "duplicate `else'");
                        }
                        else_entry = Some(e);
                    } else {
                        entries.push(e);
                    }
                    exits.extend(c.exits);
                }
                None => self.res.error(o.span, "an option needs a statement"),
            }
        }
        entries.extend(else_entry);
        (entries, exits)
    }

    fn if_stmt(&mut self, opts: &[Sequence], sp: Span, end: Span) -> Chunk {
        let (entries, exits) = self.options(opts);
        let h = self.el(ElKind::Header(entries), sp);
        self.els[h].choice = Some(Choice::If);
        let dot = self.el(ElKind::Dot, end);
        self.link(&exits, dot);
        Chunk {
            entry: h,
            exits: vec![dot],
            last: dot,
        }
    }

    fn do_stmt(&mut self, opts: &[Sequence], sp: Span, end: Span) -> Chunk {
        let dot = self.el(ElKind::Dot, end);
        let h = self.el(ElKind::Header(Vec::new()), sp);
        let exit = self.el(ElKind::DoExit, sp);
        self.breaks.push(exit);
        let (entries, exits) = self.options(opts);
        self.breaks.pop();
        self.els[h].kind = ElKind::Header(entries);
        self.els[h].choice = Some(Choice::Do);
        self.link(&exits, dot);
        self.els[dot].next = Some(h);
        Chunk {
            entry: dot,
            exits: vec![exit],
            last: exit,
        }
    }

    fn block(&mut self, seq: &Sequence, sp: Span, atomic: bool) -> Chunk {
        let outer = atomic && !self.in_atomic;
        if outer {
            self.in_atomic = true;
        }
        let h = self.el(ElKind::Header(Vec::new()), sp);
        let start = self.els.len();
        if let Some((l, lsp)) = seq.steps.first().and_then(|s| s.labels.first()) {
            if self.res.is_inline_body(sp) {
                self.res.error(
                    *lsp,
                    format!("label {l} placed incorrectly (first in an inline body)"),
                );
            }
        }
        let inner = self.scoped(seq);
        if outer {
            self.in_atomic = false;
        }
        let inner = match inner {
            Some(c) => c,
            None => self.single(ElKind::Stmt(LStmt::Expr(LExpr::Const(1))), sp),
        };
        let entry = self.skip_dots(inner.entry);
        self.els[h].kind = ElKind::Header(vec![entry]);
        if outer {
            let g = self.next_group;
            self.next_group += 1;
            for id in start..self.els.len() {
                self.els[id].group = Some(g);
                // spin does not mark a `goto` as part of the sequence: a jump that would
                // hop onto one from inside stops before it (pan keeps that state).
                let is_goto = matches!(self.els[id].kind, ElKind::Goto(..));
                self.els[id].atom = id != inner.last && !is_goto;
                self.els[id].seq_inner = id != inner.last;
            }
            // The header is how control enters the sequence, not part of it: a jump from
            // another atomic sequence onto it leaves that sequence first (pan).
            self.els[h].group = Some(g);
        }
        Chunk {
            entry: h,
            exits: inner.exits,
            last: inner.last,
        }
    }

    fn dstep(&mut self, seq: &Sequence, sp: Span) -> Chunk {
        let saved_els = std::mem::take(&mut self.els);
        let saved_labels = std::mem::replace(
            &mut self.labels,
            Labels {
                parents: vec![0],
                ..Labels::default()
            },
        );
        let saved_breaks = std::mem::take(&mut self.breaks);
        let saved_atomic = self.in_atomic;
        let saved_dstep = std::mem::replace(&mut self.in_dstep, true);
        let chunk = self.scoped(seq);
        let end = self.el(ElKind::End, sp);
        let entry = match chunk {
            Some(c) => {
                self.link(&c.exits, end);
                c.entry
            }
            None => end,
        };
        let guard = self.dstep_guard(entry);
        let code = self.dstep_code(entry);
        let auto = self.materialize(entry, 0);
        self.els = saved_els;
        self.labels = saved_labels;
        self.breaks = saved_breaks;
        self.in_atomic = saved_atomic;
        self.in_dstep = saved_dstep;
        let d = super::dcode::DStep { auto, guard, code };
        self.single(ElKind::Stmt(LStmt::DStep(Box::new(d))), sp)
    }

    // ----- from elements to locations -----

    fn jump_target(&mut self, e: ElId) -> Option<ElId> {
        match &self.els[e].kind {
            ElKind::Goto(l, sp) => match self.labels.resolve(e) {
                Some(t) => Some(t),
                None => {
                    let (l, sp) = (l.clone(), *sp);
                    self.res.error(sp, format!("undefined label {l}"));
                    // Report once: turn it into a plain step.
                    self.els[e].kind = ElKind::Stmt(LStmt::Goto(l));
                    None
                }
            },
            ElKind::Break(x) => Some(*x),
            ElKind::Dot | ElKind::DoExit => self.els[e].next,
            _ => None,
        }
    }

    /// spin's ATOM status of element `e`: inside an atomic sequence and not its last element;
    /// a `goto` (or `break`) has it when it and the statement it names are inside atomic sequences (its
    /// last elements included: spin's `patch_atomic` takes ATOM from a goto that leaves
    /// the sequences and gives it to one that bridges two).
    fn spin_atom(&self, e: ElId) -> bool {
        // spin makes a `break` a goto to the loop's exit.
        let target = match self.els[e].kind {
            ElKind::Goto(..) => self.labels.resolve(e),
            ElKind::Break(x) => Some(x),
            _ => return self.els[e].atom,
        };
        let in_atomic = |x: ElId| {
            let el = &self.els[x];
            // (A sequence's own header is how control enters it, not part of it.)
            el.group.is_some() && (el.seq_inner || !matches!(el.kind, ElKind::Header(_)))
        };
        in_atomic(e) && target.is_some_and(in_atomic)
    }

    /// Follows jumps from `e` to the element that becomes a location; `from` is the element
    /// whose successor (or start) this is. Only a chain that starts inside an atomic
    /// sequence (spin's `huntele` asks the origin's ATOM status, not each jump's) stops at a
    /// jump that would land on a statement that is not atomic.
    fn hunt(&mut self, mut e: ElId, from: ElId) -> ElId {
        let inside = self.spin_atom(from);
        let mut via_goto = false;
        for _ in 0..=self.els.len() {
            if !is_jump(&self.els[e].kind) {
                if via_goto {
                    if let ElKind::Stmt(LStmt::DStep(_)) = self.els[e].kind {
                        let sp = self.els[e].span;
                        self.res.error(sp, "jump into d_step sequence");
                    }
                }
                return e;
            }
            via_goto |= matches!(self.els[e].kind, ElKind::Goto(..) | ElKind::Break(_));
            let Some(t) = self.jump_target(e) else {
                return e;
            };
            // From inside an atomic sequence, a jump that would land on a statement that is
            // not atomic (outside it, or its last one) stays a step of its own: control
            // leaves the sequence there. spin patches a sequence's gotos (`patch_atomic`) as
            // it generates its code, in order: a goto in a later sequence still has the
            // status its place gives it.
            let later = matches!(self.els[t].kind, ElKind::Goto(..))
                && matches!(
                    (self.els[t].group, self.els[from].group),
                    (Some(g), Some(o)) if g > o
                );
            let atomic = match later {
                true => self.els[t].seq_inner,
                false => self.spin_atom(t),
            };
            if inside && !atomic {
                return e;
            }
            e = t;
        }
        let sp = self.els[e].span;
        self.res.error(sp, "goto loop without a statement");
        self.els[e].kind = ElKind::Stmt(LStmt::Expr(LExpr::Const(1)));
        e
    }

    fn flatten(&self, h: ElId, out: &mut Vec<ElId>, depth: usize) {
        if let ElKind::Header(opts) = &self.els[h].kind {
            for &o in opts {
                if matches!(self.els[o].kind, ElKind::Header(_)) && depth < 64 {
                    self.flatten(o, out, depth + 1);
                } else {
                    out.push(o);
                }
            }
        }
    }

    /// For each option source `flatten` reaches from header `h`: the inner headers passed
    /// on the way (whose states pan folds into `h`'s too).
    fn passed_headers(
        &self,
        h: ElId,
        path: &mut Vec<ElId>,
        out: &mut HashMap<ElId, Vec<ElId>>,
        depth: usize,
    ) {
        if let ElKind::Header(opts) = &self.els[h].kind {
            for &o in opts {
                if matches!(self.els[o].kind, ElKind::Header(_)) && depth < 64 {
                    path.push(o);
                    self.passed_headers(o, path, out, depth + 1);
                    path.pop();
                } else {
                    out.insert(o, path.clone());
                }
            }
        }
    }

    /// The single transition of element `t`: its statement and target element.
    fn transition(&mut self, t: ElId, terminal: ElId) -> (LStmt, String, ElId) {
        let kind = self.els[t].kind.clone();
        match kind {
            ElKind::Stmt(s) => {
                let text = s.to_string();
                let target = match self.els[t].next {
                    Some(n) => self.hunt(n, t),
                    None => terminal,
                };
                (s, text, target)
            }
            ElKind::Goto(l, _) => {
                let target = match self.jump_target(t) {
                    Some(n) => self.hunt(n, t),
                    None => self.els[t].next.unwrap_or(terminal),
                };
                let text = format!("goto {l}");
                (LStmt::Goto(l), text, target)
            }
            ElKind::Break(x) => {
                let target = self.hunt(x, t);
                (LStmt::Goto("break".into()), "break".into(), target)
            }
            ElKind::Dot | ElKind::DoExit => {
                let target = match self.els[t].next {
                    Some(n) => self.hunt(n, t),
                    None => terminal,
                };
                (LStmt::Goto(".".into()), ".(goto)".into(), target)
            }
            ElKind::End => (LStmt::End, "-end-".into(), terminal),
            ElKind::Header(_) | ElKind::Terminal => {
                (LStmt::Expr(LExpr::Const(1)), "skip".into(), terminal)
            }
        }
    }

    fn edges_of(&mut self, e: ElId, terminal: ElId) -> Vec<RawEdge> {
        let mut sources = Vec::new();
        if matches!(self.els[e].kind, ElKind::Header(_)) {
            self.flatten(e, &mut sources, 0);
        } else {
            sources.push(e);
        }
        sources
            .into_iter()
            .map(|s| {
                let (st, text, target) = self.transition(s, terminal);
                (s, st, text, target, None)
            })
            .collect()
    }

    /// spin refuses a chain of jumps that never reaches a statement wherever it sits,
    /// reached or not (`huntele`: "infinite goto loop", "confusing control structure"); a
    /// reached one `hunt` meets, this finds the others.
    fn refuse_goto_loops(&mut self) {
        for g in 0..self.els.len() {
            if !matches!(self.els[g].kind, ElKind::Goto(..)) {
                continue;
            }
            let mut e = g;
            let mut looped = true;
            for _ in 0..=self.els.len() {
                let next = match is_jump(&self.els[e].kind) {
                    true => self.jump_target(e),
                    false => None,
                };
                match next {
                    Some(t) => e = t,
                    None => {
                        looped = false;
                        break;
                    }
                }
            }
            if looped {
                // (`e` is on the loop by now: reported there, once.)
                let sp = self.els[e].span;
                self.res.error(sp, "goto loop without a statement");
                self.els[e].kind = ElKind::Stmt(LStmt::Expr(LExpr::Const(1)));
            }
        }
    }

    fn materialize(&mut self, entry: ElId, base: u32) -> Automaton {
        self.refuse_goto_loops();
        let terminal = self.el(ElKind::Terminal, Span::default());
        let start = self.hunt(entry, entry);
        let mut order = vec![start];
        let mut seen: HashMap<ElId, usize> = HashMap::from([(start, 0)]);
        let mut edges_per: Vec<Vec<RawEdge>> = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let e = order[i];
            let mut edges = Vec::new();
            if e != terminal {
                let mut escapes = self.els[e].escapes.clone();
                // pan folds the state an option starts in into the choice, with the escapes
                // (`unless`) that state has: they leave the choice too.
                if matches!(self.els[e].kind, ElKind::Header(_)) {
                    let mut sources = Vec::new();
                    self.flatten(e, &mut sources, 0);
                    for s in sources {
                        for esc in self.els[s].escapes.clone() {
                            if !escapes.contains(&esc) {
                                escapes.push(esc);
                            }
                        }
                    }
                }
                for esc in escapes {
                    for mut x in self.edges_of(esc, terminal) {
                        x.4 = Some(esc);
                        edges.push(x);
                    }
                }
                edges.extend(self.edges_of(e, terminal));
            }
            for x in &edges {
                if let std::collections::hash_map::Entry::Vacant(v) = seen.entry(x.3) {
                    v.insert(order.len());
                    order.push(x.3);
                }
            }
            edges_per.push(edges);
            i += 1;
        }
        // pan folds the state an option starts in (and an inner `if` or `do` it opens) into
        // the choice that leads to it, and hands that state's end, progress and accept
        // flags to the state its first statement leads to (pan's `imed`): a label on an
        // option's first statement marks the location after it.
        let mut handed: HashMap<ElId, Vec<&'static str>> = HashMap::new();
        for (k, &e) in order.iter().enumerate() {
            if !matches!(self.els[e].kind, ElKind::Header(_)) {
                continue;
            }
            let mut passed = HashMap::new();
            self.passed_headers(e, &mut Vec::new(), &mut passed, 0);
            for x in edges_per[k].iter().filter(|x| x.4.is_none() && x.0 != e) {
                let via = passed.get(&x.0).cloned().unwrap_or_default();
                for el in via.into_iter().chain([x.0]) {
                    for flag in ["end", "progress", "accept"] {
                        if self.els[el].labels.iter().any(|l| l.starts_with(flag)) {
                            handed.entry(x.3).or_default().push(flag);
                        }
                    }
                }
            }
        }
        let id = |el: ElId| LocId(base + el as u32);
        let mut locations = Vec::with_capacity(order.len());
        for (k, &e) in order.iter().enumerate() {
            let el = &self.els[e];
            let first_src = edges_per[k].iter().find(|x| x.4.is_none()).map(|x| x.0);
            let span = match (&el.kind, first_src) {
                (ElKind::Header(_), Some(s)) => self.els[s].line,
                _ => el.line,
            };
            let labels = el.labels.clone();
            let from_choice = handed.get(&e);
            let has = |p: &str| {
                labels.iter().any(|l| l.starts_with(p))
                    || from_choice.is_some_and(|f| f.contains(&p))
            };
            let edges = edges_per[k]
                .iter()
                .map(|(src, st, text, target, escape)| Edge {
                    stmt: st.clone(),
                    target: id(*target),
                    span: self.els[*src].span,
                    // pan's A flag: a statement inside a sequence (not its last) keeps
                    // control, even where a folded jump takes it into another sequence; a
                    // `goto` or `break` kept as a step keeps it when it and the statement it
                    // names are inside atomic sequences, its last statements included
                    // (spin's `patch_atomic`: it bridges two), and a jump onto a sequence's
                    // header (a label on the `atomic`) leaves it; a `.` jump keeps it only
                    // when it stays in its sequence.
                    atomic: match self.els[*src].kind {
                        ElKind::Goto(..) | ElKind::Break(_) => self.spin_atom(*src),
                        _ => {
                            self.els[*src].seq_inner
                                && (!is_jump(&self.els[*src].kind)
                                    || (self.els[*target].group.is_some()
                                        && self.els[*target].group == self.els[*src].group
                                        && !matches!(self.els[*target].kind, ElKind::Header(_))))
                        }
                    },
                    escape: escape.is_some(),
                    escape_group: escape.map_or(0, |x| x as u32 + 1),
                    text: text.clone(),
                })
                .collect();
            locations.push(Location {
                id: id(e),
                end: has("end") || matches!(el.kind, ElKind::End | ElKind::Terminal),
                progress: has("progress"),
                accept: has("accept"),
                atomic: el.atom,
                terminal: e == terminal,
                labels,
                span,
                edges,
            });
        }
        Automaton {
            initial: id(start),
            locations,
            elements: self.els.len() as u32,
        }
    }
}

/// The place spin records for an expression node: a name or constant is its own token; an
/// operator node takes its right operand's place (else its left's).
fn line_of(e: &Expr) -> Span {
    match &e.kind {
        ExprKind::Binary(_, _, b) => line_of(b),
        ExprKind::Unary(_, a) => line_of(a),
        ExprKind::Cond(_, _, c) => line_of(c),
        ExprKind::Var(v) => v.span,
        ExprKind::RemoteVar { var, .. } => var.span,
        _ => e.span,
    }
}

fn is_skip_like(s: &Step) -> Option<bool> {
    if !s.labels.is_empty() {
        return None;
    }
    match &s.kind {
        StepKind::Stmt(Stmt {
            kind:
                StmtKind::Expr(Expr {
                    kind: ExprKind::Const(1),
                    ..
                })
                | StmtKind::Skip,
            ..
        }) => Some(true),
        StepKind::Stmt(Stmt {
            kind: StmtKind::Printf(..) | StmtKind::Printm(_),
            ..
        }) => Some(false),
        _ => None,
    }
}

/// spin's `check_sequence` on an `if`/`do` option: a run of unlabelled skips (printf and
/// printm count as skips here) loses every real skip after the first that is neither the
/// option's first nor its last statement.
fn prune_skips(o: &Sequence) -> Sequence {
    let n = o.steps.len();
    let mut count = 0;
    let mut steps = Vec::with_capacity(n);
    for (i, s) in o.steps.iter().enumerate() {
        match is_skip_like(s) {
            Some(real) => {
                count += 1;
                if count > 1 && real && i != 0 && i + 1 != n {
                    continue;
                }
            }
            None => count = 0,
        }
        steps.push(s.clone());
    }
    Sequence {
        steps,
        span: o.span,
    }
}

fn var_expr(v: &VarRef) -> Expr {
    Expr {
        kind: ExprKind::Var(v.clone()),
        span: v.span,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}
