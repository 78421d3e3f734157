//! The syntax tree of a Promela model, as written (after preprocessing and inline expansion),
//! with a span on every node. Names are unresolved strings; `program` resolves them.

use super::source::Span;

#[derive(Clone, Debug, Default)]
pub struct Model {
    pub units: Vec<Unit>,
    /// (proctype, label) pairs named by remote references `P@label`.
    pub remote_labels: Vec<(String, String)>,
}

#[derive(Clone, Debug)]
pub enum Unit {
    Decl(Decl),
    Mtype(MtypeDecl),
    Typedef(Typedef),
    Proctype(Proctype),
    Init(Proctype),
    Never(Claim),
    /// A `trace` or `notrace` assertion (SPIN's event trace).
    Trace(TraceDecl),
    Ltl(Ltl),
    /// Inline definitions are expanded at their calls; kept for display only.
    Inline(InlineInfo),
}

#[derive(Clone, Debug)]
pub struct InlineInfo {
    pub name: String,
    pub params: Vec<String>,
    pub span: Span,
    /// The body, braces included: a label written there belongs to this inline.
    pub body: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Default,
    Hidden,
    Show,
    Local,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeName {
    Bit,
    Bool,
    Byte,
    Pid,
    Short,
    Int,
    Unsigned,
    Chan,
    /// `mtype` or `mtype:name`.
    Mtype(Option<String>),
    /// A `typedef` name.
    Named(String),
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub vis: Visibility,
    pub ty: TypeName,
    pub ty_span: Span,
    pub vars: Vec<VarDecl>,
    pub span: Span,
    /// Spin's block-scope prefix where the declaration stands (`_1_2_`: the second `{` at
    /// depth 2 inside the first at depth 1, counted over the whole model as spin's lexer
    /// counts them). A local declared in a block nested in a proctype's body is known to
    /// remote references by this prefix and its name (`P:_1_2_x`).
    pub scope: String,
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub name: String,
    pub span: Span,
    /// Array size expression (a constant expression, or a name spin evaluates).
    pub array: Option<Expr>,
    /// `unsigned x : n`.
    pub bits: Option<(i64, Span)>,
    pub init: Option<Init>,
    /// Where spin's lexer is when this declarator is reduced: the line pan gives the
    /// assignment a late declaration becomes.
    pub after: Span,
}

#[derive(Clone, Debug)]
pub enum Init {
    Expr(Expr),
    /// `= { c1, c2, … }` for arrays.
    List(Vec<Expr>),
    Chan(ChanInit),
}

#[derive(Clone, Debug)]
pub struct ChanInit {
    pub capacity: Expr,
    pub fields: Vec<(TypeName, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct MtypeDecl {
    /// `mtype:name = { … }`.
    pub subtype: Option<String>,
    pub names: Vec<(String, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Typedef {
    pub name: String,
    pub span: Span,
    pub fields: Vec<Decl>,
}

#[derive(Clone, Debug)]
pub struct Proctype {
    pub name: String,
    pub name_span: Span,
    /// `active [n]`: the expression for n (`active` alone is 1).
    pub active: Option<Expr>,
    pub d_proctype: bool,
    pub params: Vec<Decl>,
    pub priority: Option<(i64, Span)>,
    pub provided: Option<Expr>,
    pub body: Sequence,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Claim {
    pub name: Option<String>,
    pub body: Sequence,
    pub span: Span,
}

/// `trace { … }` or `notrace { … }`: an automaton over the model's channel events.
#[derive(Clone, Debug)]
pub struct TraceDecl {
    /// `notrace`: the sequence of events it describes must never happen.
    pub negated: bool,
    pub body: Sequence,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Ltl {
    pub name: Option<String>,
    pub formula: Expr,
    pub span: Span,
}

/// A `{ … }` body or option: statements with their labels.
#[derive(Clone, Debug, Default)]
pub struct Sequence {
    pub steps: Vec<Step>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Step {
    pub labels: Vec<(String, Span)>,
    pub kind: StepKind,
    pub span: Span,
}

// Steps are built once per statement while parsing; boxing them would cost more than the
// size difference.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum StepKind {
    Decl(Decl),
    /// `xr`/`xs` channel assertions.
    Xu {
        send: bool,
        chans: Vec<VarRef>,
    },
    Stmt(Stmt),
    Unless(Box<Stmt>, Box<Stmt>),
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Expr(Expr),
    Assign(VarRef, Expr),
    Incr(VarRef),
    Decr(VarRef),
    Send {
        chan: VarRef,
        args: Vec<Expr>,
        sorted: bool,
    },
    Recv {
        chan: VarRef,
        args: Vec<RecvArg>,
        random: bool,
        /// `?<…>` leaves the message in the channel.
        copy: bool,
    },
    /// Options, and the position spin's lexer has reached when the `fi` is reduced (the
    /// line pan gives the point after the `fi`).
    If(Vec<Sequence>, Span),
    Do(Vec<Sequence>, Span),
    Break,
    Goto(String, Span),
    Else,
    Atomic(Sequence),
    DStep(Sequence),
    Block(Sequence),
    Assert(Expr),
    Printf(String, Vec<Expr>),
    Printm(Expr),
    SetPriority(Expr, Expr),
    ForRange {
        var: VarRef,
        from: Expr,
        to: Expr,
        body: Sequence,
    },
    ForIn {
        var: VarRef,
        array: VarRef,
        body: Sequence,
    },
    Select {
        var: VarRef,
        from: Expr,
        to: Expr,
        /// Written in the model's text, where spin's lexer may expand it (not inside an
        /// inline body).
        lexed: bool,
    },
    /// A label with no statement after it (`L: }`), which spin reads as `skip`.
    Skip,
}

#[derive(Clone, Debug)]
pub enum RecvArg {
    Var(VarRef),
    Eval(Expr),
    Const(Expr),
}

#[derive(Clone, Debug)]
pub struct VarRef {
    pub name: String,
    pub span: Span,
    pub index: Option<Box<Expr>>,
    pub field: Option<Box<VarRef>>,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    // LTL
    Until,
    WeakUntil,
    Release,
    Implies,
    Equiv,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            And => "&&",
            Or => "||",
            Until => "U",
            WeakUntil => "W",
            Release => "V",
            Implies => "->",
            Equiv => "<->",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
    // LTL
    Always,
    Eventually,
    Next,
}

impl UnOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
            UnOp::Always => "[]",
            UnOp::Eventually => "<>",
            UnOp::Next => "X",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChanProbe {
    Full,
    Nfull,
    Empty,
    Nempty,
}

impl ChanProbe {
    pub fn as_str(self) -> &'static str {
        match self {
            ChanProbe::Full => "full",
            ChanProbe::Nfull => "nfull",
            ChanProbe::Empty => "empty",
            ChanProbe::Nempty => "nempty",
        }
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Const(i64),
    /// A name: a variable, an mtype constant or a `#define`d-away constant; resolved later.
    Var(VarRef),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Run {
        proc: String,
        proc_span: Span,
        args: Vec<Expr>,
        priority: Option<i64>,
    },
    Len(VarRef),
    Probe(ChanProbe, VarRef),
    Poll {
        chan: VarRef,
        args: Vec<RecvArg>,
        random: bool,
    },
    Enabled(Box<Expr>),
    GetPriority(Box<Expr>),
    PcValue(Box<Expr>),
    Timeout,
    Np,
    RemoteLabel {
        proc: String,
        index: Option<Box<Expr>>,
        label: String,
    },
    RemoteVar {
        proc: String,
        index: Option<Box<Expr>>,
        var: VarRef,
    },
}
