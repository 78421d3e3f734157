//! Promela types and variables as pan stores them: widths, signedness, arrays, records, and
//! channel message layouts.

use serde::Serialize;

use crate::promela::ast::Visibility;
use crate::promela::source::Span;

use super::expr::LExpr;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Type {
    Bit,
    Bool,
    Byte,
    Short,
    Int,
    Unsigned { bits: u32 },
    Chan,
    Mtype { subtype: Option<String> },
    Pid,
    Struct { name: String, index: usize },
}

impl Type {
    /// Width in bits of one scalar of this type (records: not a scalar).
    pub fn bits(&self) -> u32 {
        match self {
            Type::Bit | Type::Bool => 1,
            Type::Byte | Type::Mtype { .. } | Type::Pid | Type::Chan => 8,
            Type::Short => 16,
            Type::Int => 32,
            Type::Unsigned { bits } => *bits,
            Type::Struct { .. } => 0,
        }
    }

    pub fn signed(&self) -> bool {
        matches!(self, Type::Short | Type::Int)
    }

    pub fn name(&self) -> String {
        match self {
            Type::Bit => "bit".into(),
            Type::Bool => "bool".into(),
            Type::Byte => "byte".into(),
            Type::Short => "short".into(),
            Type::Int => "int".into(),
            Type::Unsigned { bits } => format!("unsigned:{bits}"),
            Type::Chan => "chan".into(),
            Type::Mtype { subtype: None } => "mtype".into(),
            Type::Mtype { subtype: Some(s) } => format!("mtype:{s}"),
            Type::Pid => "pid".into(),
            Type::Struct { name, .. } => name.clone(),
        }
    }
}

/// How a variable starts.
#[derive(Clone, Debug)]
pub enum VarInit {
    /// All zero.
    Zero,
    /// One value (for arrays: every element, as spin does).
    Expr(LExpr),
    /// Array initialiser list `{a, b, c}`; missing elements are zero.
    List(Vec<LExpr>),
    /// A channel created with the variable.
    Chan(ChanType),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChanType {
    pub capacity: u32,
    pub fields: Vec<Type>,
}

/// `[2] of {mtype, byte}`, as declared.
impl std::fmt::Display for ChanType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fields: Vec<String> = self.fields.iter().map(Type::name).collect();
        write!(f, "[{}] of {{{}}}", self.capacity, fields.join(", "))
    }
}

#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    /// Number of elements for arrays.
    pub array: Option<u32>,
    pub init: VarInit,
    pub vis: Visibility,
    pub span: Span,
    /// Declared after the first statement: initialised by a statement, not at creation.
    pub late: bool,
}

impl Var {
    pub fn describe(&self) -> String {
        let mut s = self.ty.name();
        if let Some(n) = self.array {
            s.push_str(&format!("[{n}]"));
        }
        s
    }
}

#[derive(Clone, Debug)]
pub struct TypeDef {
    pub name: String,
    pub fields: Vec<Var>,
    pub span: Span,
}
