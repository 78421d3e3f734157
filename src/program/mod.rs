//! The checked program: names resolved, types checked, constants folded, inlines expanded and
//! each proctype, `init` and never claim lowered to an automaton whose locations carry ids that
//! are unique across the whole model. Knows nothing of search or of git.
//!
//! Architecture invariant: everything the explorer needs to execute a model is here; the
//! explorer never looks at the AST.

pub mod dcode;
pub mod expr;
pub(crate) mod lower;
pub mod ltl_text;
pub(crate) mod resolve;
pub mod types;

use serde::Serialize;

use crate::promela::source::Span;

pub use expr::{LExpr, LRecvArg, LStmt, LVar, Slot};
pub use types::{Type, Var};

/// A location id, unique across the whole model. Stable across versions once an id table from
/// a previous version is applied (regression checking); fresh ids are assigned in order here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
pub struct LocId(pub u32);

/// Index of a proctype (in declaration order; `init` and never claims included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ProcId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcKind {
    Proctype,
    Init,
    Never,
    /// A `trace` assertion: the channel events it mentions must follow it.
    Trace,
    /// A `notrace` assertion: the channel events it mentions must never complete it.
    Notrace,
}

impl ProcKind {
    /// An event trace (`trace` or `notrace`): an automaton driven by channel events, never
    /// run as a process.
    pub fn is_trace(self) -> bool {
        matches!(self, ProcKind::Trace | ProcKind::Notrace)
    }
}

#[derive(Clone, Debug)]
pub struct Program {
    pub globals: Vec<Var>,
    /// mtype constants with their values (1-based, in declaration order as spin numbers them),
    /// and the named mtype they belong to (`None` for plain `mtype`).
    pub mtypes: Vec<(String, i64, Option<String>)>,
    pub typedefs: Vec<types::TypeDef>,
    pub procs: Vec<Proc>,
    pub ltl: Vec<LtlInfo>,
    /// True when the model reads `_last` (it is then part of the state).
    pub uses_last: bool,
    /// True when priorities are used (they are then part of each process's state).
    pub uses_priority: bool,
    /// The model has `xr`/`xs` assertions (pan checks them only with partial-order
    /// reduction; the explorer says they are not checked).
    pub has_xr_xs: bool,
}

#[derive(Clone, Debug)]
pub struct LtlInfo {
    pub name: String,
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Proc {
    pub id: ProcId,
    pub name: String,
    pub kind: ProcKind,
    /// Number of instances started by `active [n]` (0 for plain proctypes; 1 for init).
    pub active: u32,
    pub params: Vec<usize>,
    /// Locals (parameters first), each with a unique name within the proctype.
    pub locals: Vec<Var>,
    pub priority: i64,
    pub provided: Option<LExpr>,
    /// A `D_proctype`: pan reports a nondeterministic choice in it.
    pub deterministic: bool,
    pub automaton: Automaton,
    pub span: Span,
}

/// A proctype's automaton: its reachable locations, each with outgoing edges in pan's order.
#[derive(Clone, Debug, Default)]
pub struct Automaton {
    pub initial: LocId,
    pub locations: Vec<Location>,
    /// Elements the lowering built, reachable or not: about how many states pan numbers
    /// (it sizes a process's state field by them).
    pub elements: u32,
}

impl Automaton {
    pub fn location(&self, id: LocId) -> Option<&Location> {
        self.locations.iter().find(|l| l.id == id)
    }

    pub fn edge_count(&self) -> usize {
        self.locations.iter().map(|l| l.edges.len()).sum()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Location {
    pub id: LocId,
    /// Labels of the statement at this location (user labels, including end/progress/accept).
    pub labels: Vec<String>,
    pub end: bool,
    pub progress: bool,
    pub accept: bool,
    /// Inside an atomic sequence (control stays with the process).
    pub atomic: bool,
    /// The process's terminal location (after the last statement).
    pub terminal: bool,
    /// Source position of the statement at this location (pan's `srcln`).
    pub span: Span,
    pub edges: Vec<Edge>,
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub stmt: LStmt,
    pub target: LocId,
    /// The statement's own source span.
    pub span: Span,
    /// Executing this edge keeps control inside an atomic sequence.
    pub atomic: bool,
    /// An `unless` escape, tried before the location's own statements.
    pub escape: bool,
    /// Which `unless` escape the edge belongs to (0: none). Once an escape's edge executes,
    /// the location's edges of other groups are not tried (pan's `e_trans`).
    pub escape_group: u32,
    /// Rendering of the statement, for display.
    pub text: String,
}

impl Program {
    /// Whether any statement (a claim's included) uses `timeout`: pan's ETIM, which makes a
    /// blocked system ask the claim to move again.
    /// Whether a process reads `_nr_pr`: a never claim counts among the running processes
    /// (as pan counts it), so the system moves differently with a claim than without.
    pub fn uses_nr_pr(&self) -> bool {
        let mut found = false;
        for p in &self.procs {
            for l in &p.automaton.locations {
                for e in &l.edges {
                    e.stmt.each_expr(&mut |x| {
                        found |= matches!(x, LExpr::Var(v) if matches!(v.slot, expr::Slot::NrPr))
                    });
                }
            }
        }
        found
    }

    pub fn uses_timeout(&self) -> bool {
        let mut found = false;
        for p in &self.procs {
            for l in &p.automaton.locations {
                for e in &l.edges {
                    e.stmt
                        .each_expr(&mut |x| found |= matches!(x, LExpr::Timeout));
                }
            }
        }
        found
    }

    /// Replaces every location id of every proctype (locations, edge targets, initial
    /// locations) by `f(id)`: how a table of stable ids carried from a previous version is
    /// applied. `d_step` bodies keep their own internal ids.
    pub fn remap_locations(&mut self, f: &dyn Fn(LocId) -> LocId) {
        for p in &mut self.procs {
            let a = &mut p.automaton;
            a.initial = f(a.initial);
            for l in &mut a.locations {
                l.id = f(l.id);
                for e in &mut l.edges {
                    e.target = f(e.target);
                }
            }
        }
    }

    /// Every location id in use, in proctype order.
    pub fn location_ids(&self) -> impl Iterator<Item = LocId> + '_ {
        self.procs
            .iter()
            .flat_map(|p| p.automaton.locations.iter().map(|l| l.id))
    }

    /// Where the pan that spin generates would refuse to run the model although spin accepts
    /// it: an unconditional self-loop (`do :: skip od`). git rmc checks such models normally;
    /// the warning says why spin's figures cannot be had for them.
    pub fn pan_refusals(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        // A never claim's `true` self-loop is its usual way to wait; pan runs it.
        for p in self.procs.iter().filter(|p| p.kind != ProcKind::Never) {
            for l in &p.automaton.locations {
                let self_loop = l.edges.iter().any(|e| {
                    e.target == l.id && matches!(e.stmt, LStmt::Expr(LExpr::Const(c)) if c != 0)
                });
                if self_loop {
                    out.push(
                        Diagnostic::warning(
                            l.span,
                            format!(
                                "unconditional self-loop in proctype {}: spin's pan refuses to \
                                 run this model",
                                p.name
                            ),
                        )
                        .with_note("git rmc checks it; spin's figures cannot be compared here"),
                    );
                }
            }
        }
        out
    }
}

/// Resolves, checks and lowers a parsed model. Returns the program when there were no
/// errors, and every diagnostic (warnings included).
pub fn build(model: &crate::promela::ast::Model) -> (Option<Program>, Vec<Diagnostic>) {
    use crate::promela::ast::Unit;
    let mut res = resolve::Resolver::new();
    res.remote_labels = model.remote_labels.clone();
    res.inline_bodies = model
        .units
        .iter()
        .filter_map(|u| match u {
            Unit::Inline(i) => Some(i.body),
            _ => None,
        })
        .collect();
    // Proctypes may be `run` before their declaration; register them first.
    for u in &model.units {
        match u {
            Unit::Proctype(p) => res.procs.push(resolve::ProcSig {
                name: p.name.clone(),
                params: p.params.iter().map(|d| d.vars.len()).sum(),
                locals: Vec::new(),
                labels: Vec::new(),
            }),
            Unit::Init(p) => res.procs.push(resolve::ProcSig {
                name: p.name.clone(),
                params: 0,
                locals: Vec::new(),
                labels: Vec::new(),
            }),
            Unit::Never(c) => res.procs.push(resolve::ProcSig {
                name: c.name.clone().unwrap_or_else(|| "never_0".into()),
                params: 0,
                locals: Vec::new(),
                labels: Vec::new(),
            }),
            // Proctypes are indexed as they are declared: a trace takes its place too.
            Unit::Trace(t) => res.procs.push(resolve::ProcSig {
                name: trace_name(t.negated).into(),
                params: 0,
                locals: Vec::new(),
                labels: Vec::new(),
            }),
            _ => {}
        }
    }
    let mut procs = Vec::new();
    let mut ltl = Vec::new();
    let mut next_loc: u32 = 0;
    let mut never_count = 0;
    let mut ltl_count = 0;
    res.number_mtypes(model.units.iter().filter_map(|u| match u {
        Unit::Mtype(m) => Some(m),
        _ => None,
    }));
    for u in &model.units {
        match u {
            Unit::Decl(d) => {
                for v in res.declare_vars(d, false) {
                    res.add_global(v);
                }
            }
            Unit::Mtype(m) => res.add_mtypes(m),
            Unit::Typedef(t) => res.add_typedef(t),
            Unit::Proctype(p) | Unit::Init(p) => {
                let kind = if matches!(u, Unit::Init(_)) {
                    ProcKind::Init
                } else {
                    ProcKind::Proctype
                };
                let proc = lower_proc(&mut res, p, kind, procs.len(), &mut next_loc);
                procs.push(proc);
            }
            Unit::Never(c) => {
                let name = c
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("never_{never_count}"));
                never_count += 1;
                let p = crate::promela::ast::Proctype {
                    name,
                    name_span: c.span,
                    active: None,
                    d_proctype: false,
                    params: Vec::new(),
                    priority: None,
                    provided: None,
                    body: c.body.clone(),
                    span: c.span,
                };
                let proc = lower_proc(&mut res, &p, ProcKind::Never, procs.len(), &mut next_loc);
                // spin: "never_0 defines local i" (a claim has no variables of its own).
                for v in &proc.locals {
                    res.error(
                        v.span,
                        format!(
                            "never claim {} defines local {}: a never claim has no variables \
                             of its own (spin rejects it)",
                            proc.name, v.name
                        ),
                    );
                }
                procs.push(proc);
            }
            Unit::Ltl(l) => {
                let name = l.name.clone().unwrap_or_else(|| format!("ltl_{ltl_count}"));
                ltl_count += 1;
                ltl.push(LtlInfo {
                    name,
                    text: ltl_text::spin_text(&l.formula),
                    span: l.span,
                });
            }
            Unit::Trace(t) => {
                if let Some(first) = procs.iter().find(|p: &&Proc| p.kind.is_trace()) {
                    // spin: "trace :trace: redefined".
                    res.error(
                        t.span,
                        format!(
                            "{} redefined: a model has at most one trace or notrace",
                            first.name
                        ),
                    );
                }
                check_trace_body(&mut res, &t.body);
                let p = crate::promela::ast::Proctype {
                    name: trace_name(t.negated).into(),
                    name_span: t.span,
                    active: None,
                    d_proctype: false,
                    params: Vec::new(),
                    priority: None,
                    provided: None,
                    body: t.body.clone(),
                    span: t.span,
                };
                let kind = match t.negated {
                    true => ProcKind::Notrace,
                    false => ProcKind::Trace,
                };
                // spin checks the values of a trace's sends against no channel.
                let sends = res.sends.len();
                let proc = lower_proc(&mut res, &p, kind, procs.len(), &mut next_loc);
                res.sends.truncate(sends);
                procs.push(proc);
            }
            Unit::Inline(_) => {}
        }
    }
    // ltl formulas may name globals declared after them (spin defers them to the end).
    res.in_ltl = true;
    for u in &model.units {
        if let Unit::Ltl(l) = u {
            let _ = res.expr(&l.formula);
        }
    }
    res.in_ltl = false;
    check_sends(&mut res, &procs);
    if procs
        .iter()
        .filter(|p| !p.kind.is_trace())
        .all(|p| p.kind == ProcKind::Proctype && p.active == 0)
    {
        let sp = model
            .units
            .first()
            .map(|_| crate::promela::source::Span::default())
            .unwrap_or_default();
        res.error(sp, "no runable process");
    }
    let diags = std::mem::take(&mut res.diags);
    if crate::promela::diag::has_errors(&diags) {
        return (None, diags);
    }
    let program = Program {
        globals: res.globals,
        mtypes: res.mtypes,
        typedefs: res.typedefs,
        procs,
        ltl,
        uses_last: res.uses_last,
        uses_priority: res.uses_priority,
        has_xr_xs: res.uses_xr_xs,
    };
    (Some(program), diags)
}

use crate::promela::diag::Diagnostic;

/// spin rejects a send with more values than the most fields of any channel in the model
/// (a send through a channel parameter with too many values is a run-time error instead).
fn check_sends(res: &mut resolve::Resolver, procs: &[Proc]) {
    let mut most = 0usize;
    let mut note = |v: &Var| {
        if let types::VarInit::Chan(c) = &v.init {
            most = most.max(c.fields.len());
        }
    };
    res.globals.iter().for_each(&mut note);
    res.typedefs
        .iter()
        .flat_map(|t| &t.fields)
        .for_each(&mut note);
    procs.iter().flat_map(|p| &p.locals).for_each(&mut note);
    for p in procs {
        for l in &p.automaton.locations {
            for e in &l.edges {
                if let LStmt::ChanInit(_, c) = &e.stmt {
                    most = most.max(c.fields.len());
                }
            }
        }
    }
    for (span, n, known) in std::mem::take(&mut res.sends) {
        if n > most {
            let want = known.unwrap_or(most);
            res.error(
                span,
                format!("{n} msg parameters sent, {want} expected (too many pars in send)"),
            );
        }
    }
}

fn lower_proc(
    res: &mut resolve::Resolver,
    p: &crate::promela::ast::Proctype,
    kind: ProcKind,
    index: usize,
    next_loc: &mut u32,
) -> Proc {
    let active = match (&p.active, kind) {
        (_, ProcKind::Init) => 1,
        (Some(e), _) => match res.const_eval(e) {
            Some(n) if (0..=255).contains(&n) => n as u32,
            Some(_) => {
                res.error(e.span, "max nr of processes is 255");
                0
            }
            None => 0,
        },
        (None, _) => 0,
    };
    res.begin_proc();
    res.proc_name = p.name.clone();
    res.in_never = kind == ProcKind::Never;
    res.in_trace = kind.is_trace();
    let mut params = Vec::new();
    for d in &p.params {
        for v in res.declare_vars(d, false) {
            params.push(res.add_local(v));
        }
    }
    let provided = p.provided.as_ref().map(|e| res.expr(e));
    let priority = p.priority.map(|(v, _)| v).unwrap_or(1);
    if p.priority.is_some() {
        res.uses_priority = true;
    }
    let end_span = crate::promela::source::Span {
        file: p.body.span.file,
        start: p.body.span.end.saturating_sub(1),
        end: p.body.span.end,
    };
    let lowerer = lower::Lowerer::new(res);
    let (automaton, labels) = lowerer.body(&p.body, end_span, *next_loc);
    let max = automaton
        .locations
        .iter()
        .map(|l| l.id.0)
        .max()
        .unwrap_or(*next_loc);
    *next_loc = max + 1;
    let names: Vec<(String, usize)> = (0..res.locals.len())
        .map(|i| (res.remote_name(i), i))
        .collect();
    let locals = res.end_proc();
    if let Some(sig) = res.procs.get_mut(index) {
        sig.locals = names;
        sig.labels = labels;
    }
    Proc {
        id: ProcId(index as u32),
        name: p.name.clone(),
        kind,
        active,
        params,
        locals,
        priority,
        provided,
        deterministic: p.d_proctype,
        automaton,
        span: p.span,
    }
}

/// The name a trace's proctype goes by (both are keywords, so no proctype has them).
pub fn trace_name(negated: bool) -> &'static str {
    match negated {
        true => "notrace",
        false => "trace",
    }
}

/// spin reads a trace's body as events only: sends and receives (neither sorted, random
/// nor copying), with `if`, `do`, `goto`, `break` and labels around them. Anything else is
/// its "not an event" error; a declaration there, and accept or progress labels (which
/// pan's searches for cycles would read in the trace), are not supported.
fn check_trace_body(res: &mut resolve::Resolver, seq: &crate::promela::ast::Sequence) {
    use crate::promela::ast::{StepKind, StmtKind};
    for step in &seq.steps {
        for (label, span) in &step.labels {
            if label.starts_with("accept") || label.starts_with("progress") {
                res.diags.push(
                    Diagnostic::error(*span, format!("label {label} in a trace is not supported"))
                        .with_note(
                            "pan reads accept and progress labels of a trace only in its \
                             searches for cycles, which git rmc does not extend to traces",
                        ),
                );
            }
        }
        let stmt = match &step.kind {
            StepKind::Stmt(s) => s,
            StepKind::Decl(d) => {
                res.diags.push(
                    Diagnostic::error(d.span, "a declaration in a trace is not supported")
                        .with_note("a trace has no variables of its own; declare them globally"),
                );
                continue;
            }
            StepKind::Xu { .. } | StepKind::Unless(..) => {
                res.error(step.span, NOT_AN_EVENT);
                continue;
            }
        };
        match &stmt.kind {
            StmtKind::Send { sorted: false, .. }
            | StmtKind::Recv {
                random: false,
                copy: false,
                ..
            }
            | StmtKind::Break
            | StmtKind::Goto(..)
            | StmtKind::Skip => {}
            StmtKind::If(options, _) | StmtKind::Do(options, _) => {
                for o in options {
                    check_trace_body(res, o);
                }
            }
            _ => res.error(stmt.span, NOT_AN_EVENT),
        }
    }
}

const NOT_AN_EVENT: &str =
    "not an event: a trace holds only sends, receives, if, do, goto, break and labels";
