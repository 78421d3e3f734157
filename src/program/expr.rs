//! Lowered statements and expressions: names resolved to variable slots, constants folded,
//! `skip`/`true` as constants, `x++` as `x = x + 1`. Rendered back to Promela-like text for
//! display and for the label of a location (impact analysis compares these).

use std::fmt;

use crate::promela::ast::{BinOp, ChanProbe, UnOp};

use super::types::ChanType;

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    Global(usize),
    Local(usize),
    /// Predefined: `_pid`, `_nr_pr`, `_last`, `_` (write-only), `_priority`.
    Pid,
    NrPr,
    Last,
    Underscore,
    Priority,
}

/// A resolved variable reference: slot, optional index, then a path of record fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LVar {
    pub slot: Slot,
    pub name: String,
    pub index: Option<Box<LExpr>>,
    /// Record fields: (field index, field name, optional index).
    pub fields: Vec<(usize, String, Option<Box<LExpr>>)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LExpr {
    Const(i64),
    /// An mtype constant (kept by name for display).
    Mtype(String, i64),
    Var(LVar),
    Unary(UnOp, Box<LExpr>),
    Binary(BinOp, Box<LExpr>, Box<LExpr>),
    Cond(Box<LExpr>, Box<LExpr>, Box<LExpr>),
    Run {
        proc: usize,
        name: String,
        args: Vec<LExpr>,
        priority: Option<i64>,
    },
    Len(LVar),
    Probe(ChanProbe, LVar),
    Poll {
        chan: LVar,
        args: Vec<LRecvArg>,
        random: bool,
    },
    Enabled(Box<LExpr>),
    GetPriority(Box<LExpr>),
    PcValue(Box<LExpr>),
    Timeout,
    Np,
    RemoteLabel {
        proc: usize,
        name: String,
        index: Option<Box<LExpr>>,
        label: String,
    },
    RemoteVar {
        proc: usize,
        name: String,
        index: Option<Box<LExpr>>,
        local: usize,
        var: String,
        var_index: Option<Box<LExpr>>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LRecvArg {
    Var(LVar),
    Eval(LExpr),
    Const(LExpr),
}

#[derive(Clone, Debug)]
pub enum LStmt {
    /// An expression statement: executable iff non-zero (`skip` is `Expr(Const(1))`).
    Expr(LExpr),
    Assign(LVar, LExpr),
    Send {
        chan: LVar,
        args: Vec<LExpr>,
        sorted: bool,
    },
    Recv {
        chan: LVar,
        args: Vec<LRecvArg>,
        random: bool,
        copy: bool,
    },
    Else,
    /// A `goto`/`break` that pan keeps as a step of its own: a no-op move.
    Goto(String),
    Assert(LExpr),
    Printf(String, Vec<LExpr>),
    Printm(LExpr),
    SetPriority(LExpr, LExpr),
    /// A `d_step`: one transition executing a whole sub-automaton.
    DStep(Box<super::dcode::DStep>),
    /// A channel variable declared after the first statement (spin rejects an initialised
    /// one; kept for completeness of the lowering).
    ChanInit(LVar, ChanType),
    /// The process ends (pan's `-end-`).
    End,
}

impl fmt::Display for LVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(i) = &self.index {
            write!(f, "[{i}]")?;
        }
        for (_, n, i) in &self.fields {
            write!(f, ".{n}")?;
            if let Some(i) = i {
                write!(f, "[{i}]")?;
            }
        }
        Ok(())
    }
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl fmt::Display for LRecvArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LRecvArg::Var(v) => write!(f, "{v}"),
            LRecvArg::Eval(e) => write!(f, "eval({e})"),
            LRecvArg::Const(e) => write!(f, "{e}"),
        }
    }
}

impl fmt::Display for LExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LExpr::Const(v) => write!(f, "{v}"),
            LExpr::Mtype(n, _) => write!(f, "{n}"),
            LExpr::Var(v) => write!(f, "{v}"),
            LExpr::Unary(op, e) => write!(f, "{}{}", op.as_str(), Paren(e)),
            LExpr::Binary(op, a, b) => write!(f, "{} {} {}", Paren(a), op.as_str(), Paren(b)),
            LExpr::Cond(c, a, b) => write!(f, "({c} -> {a} : {b})"),
            LExpr::Run {
                name,
                args,
                priority,
                ..
            } => {
                write!(f, "run {name}({})", join(args))?;
                if let Some(p) = priority {
                    write!(f, " priority {p}")?;
                }
                Ok(())
            }
            LExpr::Len(v) => write!(f, "len({v})"),
            LExpr::Probe(p, v) => write!(f, "{}({v})", p.as_str()),
            LExpr::Poll { chan, args, random } => {
                write!(
                    f,
                    "{chan}{}[{}]",
                    if *random { "??" } else { "?" },
                    join(args)
                )
            }
            LExpr::Enabled(e) => write!(f, "enabled({e})"),
            LExpr::GetPriority(e) => write!(f, "get_priority({e})"),
            LExpr::PcValue(e) => write!(f, "pc_value({e})"),
            LExpr::Timeout => write!(f, "timeout"),
            LExpr::Np => write!(f, "np_"),
            LExpr::RemoteLabel {
                name, index, label, ..
            } => match index {
                Some(i) => write!(f, "{name}[{i}]@{label}"),
                None => write!(f, "{name}@{label}"),
            },
            LExpr::RemoteVar {
                name,
                index,
                var,
                var_index,
                ..
            } => {
                match index {
                    Some(i) => write!(f, "{name}[{i}]:{var}")?,
                    None => write!(f, "{name}:{var}")?,
                }
                if let Some(i) = var_index {
                    write!(f, "[{i}]")?;
                }
                Ok(())
            }
        }
    }
}

/// Parenthesises compound operands so the rendering is unambiguous.
struct Paren<'a>(&'a LExpr);

impl fmt::Display for Paren<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            LExpr::Binary(..) | LExpr::Unary(..) => write!(f, "({})", self.0),
            e => write!(f, "{e}"),
        }
    }
}

impl fmt::Display for LStmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LStmt::Expr(e) => write!(f, "{e}"),
            LStmt::Assign(v, e) => write!(f, "{v} = {e}"),
            LStmt::Send { chan, args, sorted } => {
                write!(
                    f,
                    "{chan}{}{}",
                    if *sorted { "!!" } else { "!" },
                    join(args)
                )
            }
            LStmt::Recv {
                chan,
                args,
                random,
                copy,
            } => {
                let op = if *random { "??" } else { "?" };
                if *copy {
                    write!(f, "{chan}{op}<{}>", join(args))
                } else {
                    write!(f, "{chan}{op}{}", join(args))
                }
            }
            LStmt::Else => write!(f, "else"),
            LStmt::Goto(l) => write!(f, "goto {l}"),
            LStmt::Assert(e) => write!(f, "assert({e})"),
            LStmt::Printf(s, args) => {
                if args.is_empty() {
                    write!(f, "printf({s})")
                } else {
                    write!(f, "printf({s},{})", join(args))
                }
            }
            LStmt::Printm(e) => write!(f, "printm({e})"),
            LStmt::SetPriority(a, b) => write!(f, "set_priority({a},{b})"),
            LStmt::DStep(a) => write!(f, "d_step {{ {} edges }}", a.auto.edge_count()),
            LStmt::ChanInit(v, c) => write!(f, "{v} = [{}] of {{…}}", c.capacity),
            LStmt::End => write!(f, "-end-"),
        }
    }
}

// Walks over what a statement holds, for analyses that look for one kind of expression
// (remote labels, channel operations) without spelling out every variant each time.

impl LVar {
    /// Calls `f` on the expressions of its index and its fields' indices, depth first.
    pub fn each<F: FnMut(&LExpr)>(&self, f: &mut F) {
        if let Some(i) = &self.index {
            i.each(f);
        }
        for (_, _, i) in &self.fields {
            if let Some(i) = i {
                i.each(f);
            }
        }
    }
}

impl LRecvArg {
    /// Calls `f` on every expression the argument holds, depth first.
    pub fn each<F: FnMut(&LExpr)>(&self, f: &mut F) {
        match self {
            LRecvArg::Var(v) => v.each(f),
            LRecvArg::Eval(e) | LRecvArg::Const(e) => e.each(f),
        }
    }
}

impl LExpr {
    /// Calls `f` on this expression and on every expression inside it (operands, indices,
    /// arguments), depth first.
    pub fn each<F: FnMut(&LExpr)>(&self, f: &mut F) {
        f(self);
        match self {
            LExpr::Var(v) | LExpr::Len(v) | LExpr::Probe(_, v) => v.each(f),
            LExpr::Unary(_, a) | LExpr::Enabled(a) | LExpr::GetPriority(a) | LExpr::PcValue(a) => {
                a.each(f)
            }
            LExpr::Binary(_, a, b) => {
                a.each(f);
                b.each(f);
            }
            LExpr::Cond(c, a, b) => {
                c.each(f);
                a.each(f);
                b.each(f);
            }
            LExpr::Run { args, .. } => args.iter().for_each(|a| a.each(f)),
            LExpr::Poll { chan, args, .. } => {
                chan.each(f);
                args.iter().for_each(|a| a.each(f));
            }
            LExpr::RemoteLabel { index, .. } => {
                if let Some(i) = index {
                    i.each(f);
                }
            }
            LExpr::RemoteVar {
                index, var_index, ..
            } => {
                for i in [index, var_index].into_iter().flatten() {
                    i.each(f);
                }
            }
            LExpr::Const(_) | LExpr::Mtype(..) | LExpr::Timeout | LExpr::Np => {}
        }
    }
}

impl LStmt {
    /// Calls `f` on every expression the statement holds (a `d_step`'s statements
    /// included), sub-expressions too, depth first.
    pub fn each_expr<F: FnMut(&LExpr)>(&self, f: &mut F) {
        match self {
            LStmt::Expr(e) | LStmt::Assert(e) | LStmt::Printm(e) => e.each(f),
            LStmt::Assign(v, e) => {
                v.each(f);
                e.each(f);
            }
            LStmt::Send { chan, args, .. } => {
                chan.each(f);
                args.iter().for_each(|a| a.each(f));
            }
            LStmt::Recv { chan, args, .. } => {
                chan.each(f);
                args.iter().for_each(|a| a.each(f));
            }
            LStmt::Printf(_, args) => args.iter().for_each(|a| a.each(f)),
            LStmt::SetPriority(a, b) => {
                a.each(f);
                b.each(f);
            }
            LStmt::DStep(a) => {
                for l in &a.auto.locations {
                    for e in &l.edges {
                        e.stmt.each_expr(f);
                    }
                }
            }
            LStmt::ChanInit(v, _) => v.each(f),
            LStmt::Else | LStmt::Goto(_) | LStmt::End => {}
        }
    }
}
