//! Name resolution and SPIN-level type checks: globals, block-scoped locals (spin 6 rules:
//! sibling blocks may reuse a name, an inner block may not redeclare a visible local), mtype
//! constants, typedef fields, proctypes for `run` and remote references, constant folding of
//! sizes. Errors read like spin's, with a span.

use std::collections::HashMap;

use crate::promela::ast::{self, Expr, ExprKind, RecvArg, TypeName, VarRef};
use crate::promela::diag::Diagnostic;
use crate::promela::source::Span;

use super::expr::{LExpr, LRecvArg, LVar, Slot};
use super::types::{ChanType, Type, TypeDef, Var, VarInit};

/// What `run` and remote references need to know about a proctype.
#[derive(Clone, Debug)]
pub struct ProcSig {
    pub name: String,
    pub params: usize,
    /// Local variable names with their index (filled in once the proctype is lowered).
    pub locals: Vec<(String, usize)>,
    pub labels: Vec<String>,
}

pub struct Resolver {
    pub globals: Vec<Var>,
    global_names: HashMap<String, usize>,
    pub mtypes: Vec<(String, i64, Option<String>)>,
    /// Every mtype name's value, numbered before anything is resolved (`number_mtypes`).
    mtype_values: HashMap<String, i64>,
    pub typedefs: Vec<TypeDef>,
    pub procs: Vec<ProcSig>,
    pub diags: Vec<Diagnostic>,
    pub uses_last: bool,
    pub uses_priority: bool,
    /// The model has `xr`/`xs` channel assertions (not checked by the explorer).
    pub uses_xr_xs: bool,
    /// Locals of the proctype being resolved, and the scope stack over them.
    pub locals: Vec<Var>,
    /// The names remote references give the locals declared in nested blocks (spin's
    /// block-scope prefix and the name: `_1_2_x`), by local index.
    pub block_names: HashMap<usize, String>,
    scopes: Vec<HashMap<String, usize>>,
    in_proc: bool,
    /// Resolving a never claim (where `pc_value` is allowed).
    pub in_never: bool,
    /// Resolving an event trace, whose sends and receives name no variable they read.
    pub in_trace: bool,
    /// Resolving an ltl formula.
    pub in_ltl: bool,
    /// (proctype, label) pairs named by remote references, and the proctype being lowered.
    pub remote_labels: Vec<(String, String)>,
    pub proc_name: String,
    /// The body of every inline definition (braces included).
    pub inline_bodies: Vec<Span>,
    /// Every send: where, how many values, and the channel's field count when known.
    pub sends: Vec<(Span, usize, Option<usize>)>,
}

impl Resolver {
    pub fn new() -> Self {
        Resolver {
            globals: Vec::new(),
            global_names: HashMap::new(),
            mtypes: Vec::new(),
            mtype_values: HashMap::new(),
            typedefs: Vec::new(),
            procs: Vec::new(),
            diags: Vec::new(),
            uses_last: false,
            uses_priority: false,
            uses_xr_xs: false,
            locals: Vec::new(),
            block_names: HashMap::new(),
            scopes: Vec::new(),
            in_proc: false,
            in_never: false,
            in_trace: false,
            in_ltl: false,
            remote_labels: Vec::new(),
            proc_name: String::new(),
            inline_bodies: Vec::new(),
            sends: Vec::new(),
        }
    }

    /// The inline definition (1-based; 0: none) whose body holds `span`: the innermost.
    pub fn inline_of(&self, span: Span) -> u32 {
        self.inline_bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| b.file == span.file && b.start <= span.start && span.end <= b.end)
            .min_by_key(|(_, b)| b.end - b.start)
            .map_or(0, |(i, _)| i as u32 + 1)
    }

    /// Whether `span` starts an inline definition's body (a block that is an expansion).
    pub fn is_inline_body(&self, span: Span) -> bool {
        self.inline_bodies
            .iter()
            .any(|b| b.file == span.file && b.start == span.start)
    }

    pub fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    pub fn warn(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, msg));
    }

    // ----- scopes -----

    pub fn begin_proc(&mut self) {
        self.locals.clear();
        self.block_names.clear();
        self.scopes = vec![HashMap::new()];
        self.in_proc = true;
    }

    pub fn end_proc(&mut self) -> Vec<Var> {
        self.scopes.clear();
        self.in_proc = false;
        self.in_trace = false;
        std::mem::take(&mut self.locals)
    }

    /// The name by which remote references (`P:name`) know local `idx`: spin prefixes a
    /// local declared in a block nested in the body with the block's scope (`_1_2_x`) and
    /// leaves the body's own locals and the parameters as written.
    pub fn remote_name(&self, idx: usize) -> String {
        match self.block_names.get(&idx) {
            Some(n) => n.clone(),
            None => self
                .locals
                .get(idx)
                .map(|v| v.name.clone())
                .unwrap_or_default(),
        }
    }

    pub fn push_scope(&mut self) {
        if self.in_proc {
            self.scopes.push(HashMap::new());
        }
    }

    pub fn pop_scope(&mut self) {
        if self.in_proc && self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    fn lookup_local(&self, name: &str) -> Option<usize> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    // ----- declarations -----

    /// Numbers every mtype name of the model as spin 6.5.2 does, before any declaration
    /// reads one: each (sub)type counts on its own, and the names of one declaration take
    /// the next values from its last name to its first (`mtype = { a, b }; mtype = { c }`
    /// makes b 1, a 2 and c 3; `mtype:s = { x, y }` makes y 1 and x 2 as well).
    pub fn number_mtypes<'a>(&mut self, decls: impl Iterator<Item = &'a ast::MtypeDecl>) {
        let mut counts: HashMap<Option<String>, i64> = HashMap::new();
        for d in decls {
            let mut fresh: Vec<&str> = Vec::new();
            for (n, _) in &d.names {
                if !self.mtype_values.contains_key(n) && !fresh.contains(&n.as_str()) {
                    fresh.push(n);
                }
            }
            let count = counts.entry(d.subtype.clone()).or_insert(0);
            let k = fresh.len() as i64;
            for (i, n) in fresh.into_iter().enumerate() {
                self.mtype_values
                    .insert(n.to_string(), *count + k - i as i64);
            }
            *count += k;
        }
    }

    pub fn add_mtypes(&mut self, d: &ast::MtypeDecl) {
        for (n, sp) in &d.names {
            if self.mtypes.iter().any(|(m, _, _)| m == n) {
                continue;
            }
            if self.global_names.contains_key(n) {
                self.error(*sp, format!("mtype name {n} conflicts with a variable"));
                continue;
            }
            let v = self
                .mtype_values
                .get(n)
                .copied()
                .unwrap_or(self.mtypes.len() as i64 + 1);
            if v > 255 {
                self.error(*sp, "too many mtype elements (max 255)");
            }
            self.mtypes.push((n.clone(), v, d.subtype.clone()));
        }
    }

    pub fn mtype(&self, name: &str) -> Option<(i64, Option<String>)> {
        self.mtypes
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, s)| (*v, s.clone()))
    }

    pub fn add_typedef(&mut self, t: &ast::Typedef) {
        let mut fields: Vec<Var> = Vec::new();
        for d in &t.fields {
            for v in self.declare_vars(d, false) {
                if fields.iter().any(|f| f.name == v.name) {
                    self.error(v.span, format!("redeclaration of field '{}'", v.name));
                }
                fields.push(v);
            }
        }
        self.typedefs.push(TypeDef {
            name: t.name.clone(),
            fields,
            span: t.span,
        });
    }

    fn type_of(&mut self, ty: &TypeName, span: Span, bits: Option<(i64, Span)>) -> Type {
        match ty {
            TypeName::Bit => Type::Bit,
            TypeName::Bool => Type::Bool,
            TypeName::Byte => Type::Byte,
            TypeName::Pid => Type::Pid,
            TypeName::Short => Type::Short,
            TypeName::Int => Type::Int,
            TypeName::Chan => Type::Chan,
            TypeName::Unsigned => match bits {
                Some((b, _)) if (1..=32).contains(&b) => Type::Unsigned { bits: b as u32 },
                Some((0, sp)) => {
                    self.error(sp, "unsigned without width-field");
                    Type::Unsigned { bits: 1 }
                }
                Some((_, sp)) => {
                    self.error(sp, "invalid width-field for unsigned (1..32)");
                    Type::Unsigned { bits: 32 }
                }
                None => {
                    self.error(span, "unsigned without width-field");
                    Type::Unsigned { bits: 1 }
                }
            },
            TypeName::Mtype(sub) => {
                if let Some(s) = sub {
                    if !self
                        .mtypes
                        .iter()
                        .any(|(_, _, st)| st.as_deref() == Some(s))
                    {
                        self.error(span, format!("unknown mtype subtype '{s}'"));
                    }
                }
                Type::Mtype {
                    subtype: sub.clone(),
                }
            }
            TypeName::Named(n) => match self.typedefs.iter().position(|t| &t.name == n) {
                Some(index) => Type::Struct {
                    name: n.clone(),
                    index,
                },
                None => {
                    self.error(span, format!("unknown type {n}"));
                    Type::Int
                }
            },
        }
    }

    /// Evaluates a constant expression (array sizes, `active [n]`, capacities).
    pub fn const_eval(&mut self, e: &Expr) -> Option<i64> {
        match &e.kind {
            ExprKind::Const(v) => Some(*v),
            ExprKind::Var(v) if v.index.is_none() && v.field.is_none() => {
                if let Some((val, _)) = self.mtype(&v.name) {
                    return Some(val);
                }
                // spin accepts `byte a[N]` for an initialised scalar N, with a warning.
                if let Some(&g) = self.global_names.get(&v.name) {
                    if let VarInit::Expr(LExpr::Const(c)) = &self.globals[g].init {
                        let c = *c;
                        self.warn(
                            v.span,
                            format!("'{}' in array bound evaluated as {c}", v.name),
                        );
                        return Some(c);
                    }
                }
                self.error(v.span, format!("'{}' is not a constant", v.name));
                None
            }
            ExprKind::Unary(ast::UnOp::Neg, a) => self.const_eval(a).map(|x| x.wrapping_neg()),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.const_eval(a)?, self.const_eval(b)?);
                use ast::BinOp::*;
                Some(match op {
                    Add => x.wrapping_add(y),
                    Sub => x.wrapping_sub(y),
                    Mul => x.wrapping_mul(y),
                    Div | Mod if y == 0 => {
                        self.error(e.span, "division by zero in constant expression");
                        return None;
                    }
                    Div => x.wrapping_div(y),
                    Mod => x.wrapping_rem(y),
                    _ => {
                        self.error(e.span, "expected a constant expression");
                        return None;
                    }
                })
            }
            _ => {
                self.error(e.span, "expected a constant expression");
                None
            }
        }
    }

    /// Resolves the variables of one declaration (not yet added to any scope).
    pub fn declare_vars(&mut self, d: &ast::Decl, late: bool) -> Vec<Var> {
        let mut out = Vec::new();
        for v in &d.vars {
            let ty = self.type_of(&d.ty, d.ty_span, v.bits);
            if v.bits.is_some() && d.ty != TypeName::Unsigned {
                self.error(
                    v.span,
                    format!("width-field only allowed for unsigned ({})", v.name),
                );
            }
            let array = match &v.array {
                Some(e) => match self.const_eval(e) {
                    Some(n) if (1..=65535).contains(&n) => Some(n as u32),
                    Some(_) => {
                        self.error(e.span, format!("bad array size for '{}'", v.name));
                        Some(1)
                    }
                    None => Some(1),
                },
                None => None,
            };
            let init = match &v.init {
                None => VarInit::Zero,
                // spin ignores a scalar initialiser of a record: every field takes its
                // typedef's default (resolved all the same, for its errors).
                Some(ast::Init::Expr(e)) if matches!(ty, Type::Struct { .. }) => {
                    let _ = self.expr(e);
                    VarInit::Zero
                }
                // `chan c = q[1]` is an alias: the id is copied, no channel is created.
                Some(ast::Init::Expr(e)) => VarInit::Expr(self.expr(e)),
                Some(ast::Init::List(list)) => {
                    if array.is_none() {
                        self.error(v.span, format!("{} must be an array", v.name));
                    }
                    let vals: Vec<LExpr> = list.iter().map(|e| self.expr(e)).collect();
                    if let Some(n) = array {
                        if vals.len() > n as usize {
                            self.error(v.span, format!("too many initializers for '{}'", v.name));
                        }
                    }
                    VarInit::List(vals)
                }
                Some(ast::Init::Chan(c)) => {
                    if ty != Type::Chan {
                        self.error(c.span, format!("'{}' is not a chan", v.name));
                    }
                    VarInit::Chan(self.chan_type(c))
                }
            };
            out.push(Var {
                name: v.name.clone(),
                ty,
                array,
                init,
                vis: d.vis,
                span: v.span,
                late,
            });
        }
        out
    }

    fn chan_type(&mut self, c: &ast::ChanInit) -> ChanType {
        let capacity = match self.const_eval(&c.capacity) {
            Some(n) if (0..=255).contains(&n) => n as u32,
            Some(_) => {
                self.error(c.capacity.span, "channel capacity must be 0..255");
                0
            }
            None => 0,
        };
        let fields = c
            .fields
            .iter()
            .map(|(t, sp)| self.type_of(t, *sp, Some((32, *sp))))
            .collect();
        ChanType { capacity, fields }
    }

    pub fn add_global(&mut self, v: Var) {
        if self.global_names.contains_key(&v.name) || self.mtype(&v.name).is_some() {
            self.error(v.span, format!("redeclaration of '{}'", v.name));
            return;
        }
        if is_predefined(&v.name) {
            self.error(v.span, format!("'{}' is a predefined variable", v.name));
            return;
        }
        self.global_names.insert(v.name.clone(), self.globals.len());
        self.globals.push(v);
    }

    /// Adds a local to the current scope; returns its index.
    pub fn add_local(&mut self, v: Var) -> usize {
        if self.lookup_local(&v.name).is_some() || self.mtype(&v.name).is_some() {
            self.error(v.span, format!("redeclaration of '{}'", v.name));
        }
        if is_predefined(&v.name) {
            self.error(v.span, format!("'{}' is a predefined variable", v.name));
        }
        let idx = self.locals.len();
        if let Some(s) = self.scopes.last_mut() {
            s.insert(v.name.clone(), idx);
        }
        self.locals.push(v);
        idx
    }

    // ----- references -----

    fn var_decl(&self, slot: Slot) -> Option<&Var> {
        match slot {
            Slot::Global(i) => self.globals.get(i),
            Slot::Local(i) => self.locals.get(i),
            _ => None,
        }
    }

    /// Resolves a variable reference; `write` marks assignment targets.
    pub fn var(&mut self, v: &VarRef, write: bool) -> LVar {
        let slot = match v.name.as_str() {
            "_pid" => Slot::Pid,
            "_nr_pr" => Slot::NrPr,
            "_last" => {
                self.uses_last = true;
                Slot::Last
            }
            "_" => Slot::Underscore,
            "_priority" => {
                self.uses_priority = true;
                Slot::Priority
            }
            n => match self.lookup_local(n) {
                Some(i) => Slot::Local(i),
                None => match self.global_names.get(n) {
                    Some(&g) => Slot::Global(g),
                    None => {
                        self.error(v.span, format!("undeclared variable: {n}"));
                        Slot::Underscore
                    }
                },
            },
        };
        if write {
            match slot {
                Slot::Pid | Slot::NrPr | Slot::Last => {
                    self.error(v.span, format!("invalid assignment to {}", v.name))
                }
                _ => {}
            }
        } else if slot == Slot::Underscore && v.name == "_" && !self.in_trace {
            // (A trace's send compares no variable: `_` there is a wildcard, as spin reads it.)
            self.error(v.span, "'_' is write-only");
        }
        let index = v.index.as_ref().map(|e| Box::new(self.expr(e)));
        let decl = self.var_decl(slot).cloned();
        if let Some(d) = &decl {
            // ltl formulas are not checked yet and spin does not type them either.
            if index.is_some() && d.array.is_none() && !self.in_ltl {
                self.error(v.span, format!("'{}' is not an array", v.name));
            }
        }
        let mut fields = Vec::new();
        let mut cur_ty = decl.map(|d| d.ty);
        let mut f = v.field.as_deref();
        let mut owner = v.name.clone();
        while let Some(fr) = f {
            match cur_ty.clone() {
                Some(Type::Struct { index: ti, .. }) => {
                    let td = self.typedefs.get(ti).cloned();
                    match td.and_then(|t| {
                        t.fields
                            .iter()
                            .position(|x| x.name == fr.name)
                            .map(|p| (p, t.fields[p].clone()))
                    }) {
                        Some((pos, fv)) => {
                            let idx = fr.index.as_ref().map(|e| Box::new(self.expr(e)));
                            fields.push((pos, fr.name.clone(), idx));
                            cur_ty = Some(fv.ty);
                        }
                        None => {
                            self.error(
                                fr.span,
                                format!("no field '{}' defined in structure '{owner}'", fr.name),
                            );
                            cur_ty = None;
                        }
                    }
                }
                Some(_) => {
                    self.error(
                        fr.span,
                        format!("no field '{}' defined in structure '{owner}'", fr.name),
                    );
                    cur_ty = None;
                }
                None => {}
            }
            owner = fr.name.clone();
            f = fr.field.as_deref();
        }
        LVar {
            slot,
            name: v.name.clone(),
            index,
            fields,
        }
    }

    pub fn var_type(&self, v: &LVar) -> Option<Type> {
        let d = self.var_decl(v.slot)?;
        let mut ty = d.ty.clone();
        for (pos, _, _) in &v.fields {
            if let Type::Struct { index, .. } = ty {
                ty = self.typedefs.get(index)?.fields.get(*pos)?.ty.clone();
            }
        }
        Some(ty)
    }

    /// The declared message layout of a channel variable, when statically known.
    pub fn chan_fields(&self, v: &LVar) -> Option<usize> {
        let d = self.var_decl(v.slot)?;
        if !v.fields.is_empty() {
            return None;
        }
        match &d.init {
            VarInit::Chan(c) => Some(c.fields.len()),
            _ => None,
        }
    }

    pub fn expr(&mut self, e: &Expr) -> LExpr {
        match &e.kind {
            ExprKind::Const(v) => LExpr::Const(*v),
            ExprKind::Var(v) => {
                if v.index.is_none() && v.field.is_none() {
                    if let Some((val, _)) = self.mtype(&v.name) {
                        if self.lookup_local(&v.name).is_none() {
                            return LExpr::Mtype(v.name.clone(), val);
                        }
                    }
                }
                LExpr::Var(self.var(v, false))
            }
            ExprKind::Unary(op, a) => LExpr::Unary(*op, Box::new(self.expr(a))),
            ExprKind::Binary(op, a, b) => {
                LExpr::Binary(*op, Box::new(self.expr(a)), Box::new(self.expr(b)))
            }
            ExprKind::Cond(c, a, b) => LExpr::Cond(
                Box::new(self.expr(c)),
                Box::new(self.expr(a)),
                Box::new(self.expr(b)),
            ),
            ExprKind::Run {
                proc,
                proc_span,
                args,
                priority,
            } => {
                if !self.in_proc {
                    self.error(e.span, "used 'run' outside proctype");
                }
                let largs: Vec<LExpr> = args.iter().map(|a| self.expr(a)).collect();
                if priority.is_some() {
                    self.uses_priority = true;
                }
                match self.procs.iter().position(|p| &p.name == proc) {
                    Some(i) => {
                        let n = self.procs[i].params;
                        if largs.len() > n {
                            self.error(
                                *proc_span,
                                format!("too many arguments in run {proc}(...): {proc} takes {n}"),
                            );
                        } else if largs.len() < n {
                            self.error(
                                *proc_span,
                                format!("too few arguments in run {proc}(...): {proc} takes {n}"),
                            );
                        }
                        LExpr::Run {
                            proc: i,
                            name: proc.clone(),
                            args: largs,
                            priority: *priority,
                        }
                    }
                    None => {
                        self.error(*proc_span, format!("proctype {proc} not found"));
                        LExpr::Const(0)
                    }
                }
            }
            ExprKind::Len(v) => LExpr::Len(self.var(v, false)),
            ExprKind::Probe(p, v) => LExpr::Probe(*p, self.var(v, false)),
            ExprKind::Poll { chan, args, random } => {
                let chan = self.var(chan, false);
                let args = args.iter().map(|a| self.recv_arg(a)).collect();
                LExpr::Poll {
                    chan,
                    args,
                    random: *random,
                }
            }
            ExprKind::Enabled(a) => LExpr::Enabled(Box::new(self.expr(a))),
            ExprKind::GetPriority(a) => {
                self.uses_priority = true;
                LExpr::GetPriority(Box::new(self.expr(a)))
            }
            ExprKind::PcValue(a) => {
                if !self.in_never {
                    self.diags.push(
                        Diagnostic::error(e.span, "pc_value() is not supported outside never claims")
                            .with_note("it returns pan's internal state numbers, which git rmc's stable location ids cannot reproduce"),
                    );
                }
                LExpr::PcValue(Box::new(self.expr(a)))
            }
            ExprKind::Timeout => LExpr::Timeout,
            ExprKind::Np => LExpr::Np,
            ExprKind::RemoteLabel { proc, index, label } => {
                let p = self.procs.iter().position(|p| &p.name == proc);
                let index = index.as_ref().map(|i| Box::new(self.expr(i)));
                match p {
                    Some(p) => {
                        if !self.procs[p].labels.is_empty()
                            && !self.procs[p].labels.iter().any(|l| l == label)
                        {
                            self.error(e.span, format!("unknown label '{label}'"));
                        }
                        LExpr::RemoteLabel {
                            proc: p,
                            name: proc.clone(),
                            index,
                            label: label.clone(),
                        }
                    }
                    None => {
                        self.error(e.span, format!("proctype {proc} not found"));
                        LExpr::Const(0)
                    }
                }
            }
            ExprKind::RemoteVar { proc, index, var } => {
                let p = self.procs.iter().position(|p| &p.name == proc);
                let index = index.as_ref().map(|i| Box::new(self.expr(i)));
                let var_index = var.index.as_ref().map(|i| Box::new(self.expr(i)));
                match p {
                    Some(p) => {
                        let local = self.procs[p]
                            .locals
                            .iter()
                            .find(|(n, _)| n == &var.name)
                            .map(|(_, i)| *i);
                        let local = match local {
                            Some(l) => l,
                            None => {
                                self.error(
                                    var.span,
                                    format!("{proc} has no local variable {}", var.name),
                                );
                                0
                            }
                        };
                        LExpr::RemoteVar {
                            proc: p,
                            name: proc.clone(),
                            index,
                            local,
                            var: var.name.clone(),
                            var_index,
                        }
                    }
                    None => {
                        self.error(e.span, format!("proctype {proc} not found"));
                        LExpr::Const(0)
                    }
                }
            }
        }
    }

    pub fn recv_arg(&mut self, a: &RecvArg) -> LRecvArg {
        match a {
            RecvArg::Var(v) => {
                if v.index.is_none() && v.field.is_none() && self.lookup_local(&v.name).is_none() {
                    if let Some((val, _)) = self.mtype(&v.name) {
                        return LRecvArg::Const(LExpr::Mtype(v.name.clone(), val));
                    }
                }
                LRecvArg::Var(self.var(v, true))
            }
            RecvArg::Eval(e) => LRecvArg::Eval(self.expr(e)),
            RecvArg::Const(e) => LRecvArg::Const(self.expr(e)),
        }
    }

    /// spin: `'x' is type 'f' but 'b' is type 'g'` for assignments across named mtypes, to
    /// a variable or an array element; spin does not check a typedef field (`m.f = b`).
    pub fn check_mtype_assign(&mut self, target: &LVar, value: &LExpr, span: Span) {
        if !target.fields.is_empty() {
            return;
        }
        let Some(Type::Mtype { subtype: Some(ts) }) = self.var_type(target) else {
            return;
        };
        if let LExpr::Mtype(n, _) = value {
            if let Some((_, Some(vs))) = self.mtype(n) {
                if vs != ts {
                    self.error(
                        span,
                        format!("'{}' is type '{ts}' but '{n}' is type '{vs}'", target.name),
                    );
                }
            }
        }
    }

    /// Rejects a channel used as a number (`c + 1`, `c < 2`).
    pub fn check_no_chan_arith(&mut self, e: &LExpr, span: Span) {
        if let LExpr::Binary(op, a, b) = e {
            use ast::BinOp::*;
            if !matches!(op, Eq | Ne | And | Or) {
                for x in [a, b] {
                    if let LExpr::Var(v) = x.as_ref() {
                        if self.var_type(v) == Some(Type::Chan) && v.fields.is_empty() {
                            self.error(span, "invalid use of chan name in arithmetic");
                        }
                    }
                }
            }
            self.check_no_chan_arith(a, span);
            self.check_no_chan_arith(b, span);
        }
    }
}

impl Default for Resolver {
    fn default() -> Self {
        Self::new()
    }
}

pub fn is_predefined(name: &str) -> bool {
    matches!(name, "_pid" | "_nr_pr" | "_last" | "_" | "_priority")
}
