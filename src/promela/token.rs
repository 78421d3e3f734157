//! Promela tokens as spin's lexer classifies them: keywords, names, constants, strings and
//! punctuators, each with the byte range it occupies in the preprocessed text.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kw {
    Active,
    Assert,
    Atomic,
    Bit,
    Bool,
    Break,
    Byte,
    CCode,
    CDecl,
    CExpr,
    CState,
    CTrack,
    DProctype,
    Do,
    Chan,
    Else,
    Empty,
    Enabled,
    Eval,
    Fi,
    For,
    Full,
    GetPriority,
    Goto,
    Hidden,
    If,
    Init,
    Inline,
    Int,
    Len,
    Local,
    Ltl,
    Mtype,
    Nempty,
    Never,
    Nfull,
    Notrace,
    Np,
    Od,
    Of,
    PcValue,
    Pid,
    Printf,
    Printm,
    Priority,
    Proctype,
    Provided,
    Return,
    Run,
    DStep,
    Select,
    SetPriority,
    Short,
    Timeout,
    Trace,
    Show,
    Typedef,
    Unless,
    Unsigned,
    Xr,
    Xs,
}

/// Spin's keyword table (`true`, `false` and `skip` are constants, not keywords).
pub const KEYWORDS: &[(&str, Kw)] = &[
    ("active", Kw::Active),
    ("assert", Kw::Assert),
    ("atomic", Kw::Atomic),
    ("bit", Kw::Bit),
    ("bool", Kw::Bool),
    ("break", Kw::Break),
    ("byte", Kw::Byte),
    ("c_code", Kw::CCode),
    ("c_decl", Kw::CDecl),
    ("c_expr", Kw::CExpr),
    ("c_state", Kw::CState),
    ("c_track", Kw::CTrack),
    ("D_proctype", Kw::DProctype),
    ("do", Kw::Do),
    ("chan", Kw::Chan),
    ("else", Kw::Else),
    ("empty", Kw::Empty),
    ("enabled", Kw::Enabled),
    ("eval", Kw::Eval),
    ("fi", Kw::Fi),
    ("for", Kw::For),
    ("full", Kw::Full),
    ("get_priority", Kw::GetPriority),
    ("goto", Kw::Goto),
    ("hidden", Kw::Hidden),
    ("if", Kw::If),
    ("init", Kw::Init),
    ("inline", Kw::Inline),
    ("int", Kw::Int),
    ("len", Kw::Len),
    ("local", Kw::Local),
    ("ltl", Kw::Ltl),
    ("mtype", Kw::Mtype),
    ("nempty", Kw::Nempty),
    ("never", Kw::Never),
    ("nfull", Kw::Nfull),
    ("notrace", Kw::Notrace),
    ("np_", Kw::Np),
    ("od", Kw::Od),
    ("of", Kw::Of),
    ("pc_value", Kw::PcValue),
    ("pid", Kw::Pid),
    ("printf", Kw::Printf),
    ("printm", Kw::Printm),
    ("priority", Kw::Priority),
    ("proctype", Kw::Proctype),
    ("provided", Kw::Provided),
    ("return", Kw::Return),
    ("run", Kw::Run),
    ("d_step", Kw::DStep),
    ("select", Kw::Select),
    ("set_priority", Kw::SetPriority),
    ("short", Kw::Short),
    ("timeout", Kw::Timeout),
    ("trace", Kw::Trace),
    ("show", Kw::Show),
    ("typedef", Kw::Typedef),
    ("unless", Kw::Unless),
    ("unsigned", Kw::Unsigned),
    ("xr", Kw::Xr),
    ("xs", Kw::Xs),
];

impl Kw {
    pub fn lookup(s: &str) -> Option<Kw> {
        KEYWORDS.iter().find(|(k, _)| *k == s).map(|(_, kw)| *kw)
    }

    pub fn as_str(self) -> &'static str {
        KEYWORDS
            .iter()
            .find(|(_, kw)| *kw == self)
            .map(|(k, _)| *k)
            .unwrap_or("?")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum P {
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Semi,
    Arrow,
    Sep,
    Colon,
    Comma,
    Dot,
    DotDot,
    At,
    Assign,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Incr,
    Decr,
    Amp,
    Pipe,
    Caret,
    Tilde,
    AndAnd,
    OrOr,
    /// `!`: send, or logical negation in expressions (one token in spin).
    Bang,
    /// `!!`: sorted send.
    BangBang,
    /// `?`: receive.
    Quest,
    /// `??`: random receive.
    QuestQuest,
    // LTL-only operators (lexed inside `ltl { }`).
    Always,
    Eventually,
    Implies,
    Equiv,
    LtlAnd,
    LtlOr,
}

impl P {
    pub fn as_str(self) -> &'static str {
        use P::*;
        match self {
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            Semi => ";",
            Arrow => "->",
            Sep => "::",
            Colon => ":",
            Comma => ",",
            Dot => ".",
            DotDot => "..",
            At => "@",
            Assign => "=",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Shl => "<<",
            Shr => ">>",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Incr => "++",
            Decr => "--",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            Tilde => "~",
            AndAnd => "&&",
            OrOr => "||",
            Bang => "!",
            BangBang => "!!",
            Quest => "?",
            QuestQuest => "??",
            Always => "[]",
            Eventually => "<>",
            Implies => "->",
            Equiv => "<->",
            LtlAnd => "/\\",
            LtlOr => "\\/",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Name(String),
    /// A number or character constant (`'a'`), already evaluated as spin does (C `int`).
    Const(i64),
    /// `true`, `false`, `skip`: constants spelled as words.
    WordConst(&'static str, i64),
    /// A string literal with its quotes.
    Str(String),
    Kw(Kw),
    P(P),
    /// A character spin's lexer passes through and its grammar never accepts.
    Other(char),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Name(n) => write!(f, "`{n}`"),
            Tok::Const(v) => write!(f, "`{v}`"),
            Tok::WordConst(w, _) => write!(f, "`{w}`"),
            Tok::Str(s) => write!(f, "string {s}"),
            Tok::Kw(k) => write!(f, "`{}`", k.as_str()),
            Tok::P(p) => write!(f, "`{}`", p.as_str()),
            Tok::Other(c) => write!(f, "`{c}`"),
            Tok::Eof => write!(f, "end of file"),
        }
    }
}

/// A token and where it lies in the preprocessed text (byte offsets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub start: u32,
    pub end: u32,
    /// A newline separates this token from the previous one (spin's implied semicolons).
    pub newline_before: bool,
    /// Synthesised by the lexer rules (implied `;`), not present in the text.
    pub implied: bool,
    /// For the first token of an expanded inline body: the byte range of the call's name.
    /// Spin reads an inline's text only once the parser has taken the call, so while this
    /// token is the parser's look-ahead, spin's lexer still stands at the call.
    pub call: Option<(u32, u32)>,
    /// Read from an inline's body at a call (spin replays the body past its lexer's
    /// look-ahead rules, so `select` there takes the grammar's loop form).
    pub from_inline: bool,
}

impl Token {
    pub fn is(&self, p: P) -> bool {
        self.tok == Tok::P(p)
    }

    pub fn is_kw(&self, k: Kw) -> bool {
        self.tok == Tok::Kw(k)
    }
}
