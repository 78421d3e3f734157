//! `#if` expressions: integer constant expressions evaluated in intmax_t/uintmax_t as C99
//! requires (usual arithmetic conversions, short-circuit evaluation), with gcc's messages.
//! The parser keeps explicit stacks instead of recursing, so no nesting depth overflows.

use super::super::diag::Diagnostic;
use super::super::source::Span;
use super::lexer::{Kind, Token};

/// An intmax_t or uintmax_t value (two's complement bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Value {
    bits: u64,
    unsigned: bool,
}

impl Value {
    fn signed(v: i64) -> Value {
        Value {
            bits: v as u64,
            unsigned: false,
        }
    }

    fn truth(b: bool) -> Value {
        Value::signed(i64::from(b))
    }

    fn is_true(self) -> bool {
        self.bits != 0
    }

    fn int(self) -> i64 {
        self.bits as i64
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    Xor,
    BitOr,
    And,
    Or,
}

/// A binary operator and its precedence (higher binds tighter).
fn binary_op(t: &Token) -> Option<(Op, u8)> {
    if t.kind != Kind::Punct {
        return None;
    }
    Some(match &*t.text {
        "*" => (Op::Mul, 10),
        "/" => (Op::Div, 10),
        "%" => (Op::Rem, 10),
        "+" => (Op::Add, 9),
        "-" => (Op::Sub, 9),
        "<<" => (Op::Shl, 8),
        ">>" => (Op::Shr, 8),
        "<" => (Op::Lt, 7),
        ">" => (Op::Gt, 7),
        "<=" => (Op::Le, 7),
        ">=" => (Op::Ge, 7),
        "==" => (Op::Eq, 6),
        "!=" => (Op::Ne, 6),
        "&" => (Op::BitAnd, 5),
        "^" => (Op::Xor, 4),
        "|" => (Op::BitOr, 3),
        "&&" => (Op::And, 2),
        "||" => (Op::Or, 1),
        _ => return None,
    })
}

fn err(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(span, msg)
}

/// An operator waiting on `Parser::ops` for its right operand.
enum Pending {
    Unary(Token),
    /// A binary operator (left operand on the value stack); `skips`: it switched off
    /// evaluation of its right operand (`&&` after 0, `||` after non-0).
    Binary(Op, u8, Token, bool),
    Paren(Token),
    /// `?` seen, the condition on the value stack; `skips` for the middle operand.
    Question(Token, bool),
    /// `:` seen, condition and middle operand on the value stack; `skips` for the last.
    Colon(Token, bool),
    Comma(Token),
}

impl Pending {
    fn token(&self) -> &Token {
        match self {
            Pending::Unary(t)
            | Pending::Binary(_, _, t, _)
            | Pending::Paren(t)
            | Pending::Question(t, _)
            | Pending::Colon(t, _)
            | Pending::Comma(t) => t,
        }
    }

    /// Whether this must be applied before pushing a binary operator of precedence `prec`
    /// (`None`: `,` `:` `)` and the end, which apply everything up to a bracket or `?`).
    fn binds_tighter(&self, prec: Option<u8>) -> bool {
        match (self, prec) {
            (Pending::Unary(_), _) => true,
            (Pending::Binary(_, p, _, _), Some(q)) => *p >= q,
            (Pending::Binary(..) | Pending::Colon(..) | Pending::Comma(_), None) => true,
            _ => false,
        }
    }
}

/// Evaluates the macro-expanded tokens of an `#if` line (`defined` already replaced).
/// `at` is where to report an empty expression; warnings go to `diags`. An operator
/// precedence parser with explicit stacks: no recursion, so any nesting depth is safe.
pub(super) fn evaluate(
    toks: &[Token],
    at: Span,
    diags: &mut Vec<Diagnostic>,
) -> Result<bool, Diagnostic> {
    let mut p = Parser {
        ops: Vec::new(),
        vals: Vec::new(),
        skip: 0,
        diags,
    };
    let mut want_operand = true;
    for t in toks {
        want_operand = if want_operand {
            p.operand(t)?
        } else {
            p.operator(t)?
        };
    }
    if want_operand {
        return Err(match p.ops.last() {
            Some(Pending::Paren(t)) => err(t.span, "missing ')' in expression"),
            Some(op) => no_right_operand(op.token(), op.token()),
            None => err(at, "#if with no expression"),
        });
    }
    p.reduce_while(None)?;
    match p.ops.last() {
        Some(Pending::Paren(t)) => Err(err(t.span, "missing ')' in expression")),
        Some(op) => Err(err(op.token().span, "'?' without following ':'")),
        None => Ok(p.pop()?.is_true()),
    }
}

fn no_right_operand(op: &Token, at: &Token) -> Diagnostic {
    err(
        at.span,
        format!("operator '{}' has no right operand", op.text),
    )
}

/// Tokens that may appear in an `#if` expression at all (gcc rejects others outright).
fn allowed(t: &Token) -> bool {
    match t.kind {
        Kind::Number | Kind::Char | Kind::Ident => true,
        Kind::Punct => {
            binary_op(t).is_some() || ["(", ")", "?", ":", ",", "!", "~"].iter().any(|p| t.is(p))
        }
        _ => false,
    }
}

struct Parser<'d> {
    ops: Vec<Pending>,
    vals: Vec<Value>,
    /// Nesting of operands that are not evaluated (short-circuited): no errors there.
    skip: u32,
    diags: &'d mut Vec<Diagnostic>,
}

impl Parser<'_> {
    fn pop(&mut self) -> Result<Value, Diagnostic> {
        let at = self.ops.last().map_or(Span::default(), |o| o.token().span);
        self.vals
            .pop()
            .ok_or_else(|| err(at, "malformed #if expression"))
    }

    fn top_value(&self) -> Value {
        self.vals.last().copied().unwrap_or(Value::signed(0))
    }

    fn overflow(&mut self, at: Span) {
        if self.skip == 0 {
            let msg = "integer overflow in preprocessor expression";
            self.diags.push(Diagnostic::warning(at, msg));
        }
    }

    /// A token where an operand is expected; returns whether one is still expected.
    fn operand(&mut self, t: &Token) -> Result<bool, Diagnostic> {
        let value = match t.kind {
            Kind::Number => number(t, self.diags)?,
            Kind::Char => char_value(t, self.diags)?,
            // Identifiers left after expansion are not macros: 0.
            Kind::Ident => Value::signed(0),
            Kind::Punct if ["+", "-", "~", "!"].iter().any(|u| t.is(u)) => {
                self.ops.push(Pending::Unary(t.clone()));
                return Ok(true);
            }
            Kind::Punct if t.is("(") => {
                self.ops.push(Pending::Paren(t.clone()));
                return Ok(true);
            }
            _ if !allowed(t) => return Err(invalid(t)),
            _ => {
                return Err(match self.ops.last() {
                    Some(Pending::Paren(_)) if t.is(")") => {
                        err(t.span, "missing expression between '(' and ')'")
                    }
                    None if t.is(")") => err(t.span, "missing '(' in expression"),
                    Some(Pending::Paren(_)) | None => {
                        err(t.span, format!("operator '{}' has no left operand", t.text))
                    }
                    Some(op) => no_right_operand(op.token(), t),
                });
            }
        };
        self.vals.push(value);
        Ok(false)
    }

    /// A token where an operator is expected; returns whether an operand comes next.
    fn operator(&mut self, t: &Token) -> Result<bool, Diagnostic> {
        if let Some((op, prec)) = binary_op(t) {
            self.reduce_while(Some(prec))?;
            let lhs = self.top_value().is_true();
            let skips = (op == Op::And && !lhs) || (op == Op::Or && lhs);
            self.skip += u32::from(skips);
            self.ops.push(Pending::Binary(op, prec, t.clone(), skips));
        } else if t.is("?") {
            self.reduce_while(Some(1))?;
            let skips = !self.top_value().is_true();
            self.skip += u32::from(skips);
            self.ops.push(Pending::Question(t.clone(), skips));
        } else if t.is(":") {
            self.reduce_while(None)?;
            let Some(Pending::Question(_, skipped)) = self.ops.pop() else {
                return Err(err(t.span, "':' without preceding '?'"));
            };
            self.skip -= u32::from(skipped);
            // The condition sits under the middle operand.
            let cond = self.vals.iter().rev().nth(1).is_some_and(|v| v.is_true());
            self.skip += u32::from(cond);
            self.ops.push(Pending::Colon(t.clone(), cond));
        } else if t.is(",") {
            self.reduce_while(None)?;
            self.ops.push(Pending::Comma(t.clone()));
        } else if t.is(")") {
            self.reduce_while(None)?;
            return match self.ops.pop() {
                Some(Pending::Paren(_)) => Ok(false),
                Some(_) => Err(err(t.span, "'?' without following ':'")),
                None => Err(err(t.span, "missing '(' in expression")),
            };
        } else if !allowed(t) {
            return Err(invalid(t));
        } else {
            let msg = format!("missing binary operator before token \"{}\"", t.text);
            return Err(err(t.span, msg));
        }
        Ok(true)
    }

    /// Applies the pending operators that bind tighter than `prec` (see `binds_tighter`).
    fn reduce_while(&mut self, prec: Option<u8>) -> Result<(), Diagnostic> {
        while self.ops.last().is_some_and(|o| o.binds_tighter(prec)) {
            let Some(op) = self.ops.pop() else { break };
            let v = match op {
                Pending::Unary(t) => {
                    let v = self.pop()?;
                    self.unary(&t, v)
                }
                Pending::Binary(op, _, t, skips) => {
                    self.skip -= u32::from(skips);
                    let b = self.pop()?;
                    let a = self.pop()?;
                    self.apply(op, a, b, t.span)?
                }
                Pending::Colon(_, skips) => {
                    self.skip -= u32::from(skips);
                    let (e, t, c) = (self.pop()?, self.pop()?, self.pop()?);
                    let v = if c.is_true() { t } else { e };
                    Value {
                        bits: v.bits,
                        unsigned: t.unsigned || e.unsigned,
                    }
                }
                Pending::Comma(_) => {
                    let b = self.pop()?;
                    self.pop()?;
                    b
                }
                Pending::Paren(_) | Pending::Question(..) => continue,
            };
            self.vals.push(v);
        }
        Ok(())
    }

    fn unary(&mut self, t: &Token, v: Value) -> Value {
        match &*t.text {
            "-" => {
                if !v.unsigned && v.int() == i64::MIN {
                    self.overflow(t.span);
                }
                Value {
                    bits: v.bits.wrapping_neg(),
                    ..v
                }
            }
            "~" => Value { bits: !v.bits, ..v },
            "!" => Value::truth(!v.is_true()),
            _ => v,
        }
    }

    fn apply(&mut self, op: Op, a: Value, b: Value, at: Span) -> Result<Value, Diagnostic> {
        let unsigned = a.unsigned || b.unsigned;
        let arith = |bits: u64| Value { bits, unsigned };
        let (x, y) = (a.int(), b.int());
        Ok(match op {
            Op::Add | Op::Sub | Op::Mul => {
                let (bits, over) = match op {
                    Op::Add => (a.bits.wrapping_add(b.bits), x.checked_add(y).is_none()),
                    Op::Sub => (a.bits.wrapping_sub(b.bits), x.checked_sub(y).is_none()),
                    _ => (a.bits.wrapping_mul(b.bits), x.checked_mul(y).is_none()),
                };
                if over && !unsigned {
                    self.overflow(at);
                }
                arith(bits)
            }
            Op::Div | Op::Rem if b.bits == 0 => {
                if self.skip == 0 {
                    return Err(err(at, "division by zero in #if"));
                }
                arith(0)
            }
            Op::Div | Op::Rem if unsigned => arith(if op == Op::Div {
                a.bits / b.bits
            } else {
                a.bits % b.bits
            }),
            Op::Div | Op::Rem => {
                if x == i64::MIN && y == -1 {
                    self.overflow(at);
                }
                let v = if op == Op::Div {
                    x.wrapping_div(y)
                } else {
                    x.wrapping_rem(y)
                };
                Value::signed(v)
            }
            Op::Shl | Op::Shr => {
                let (v, over) = shift(a, b, op == Op::Shl);
                if over {
                    self.overflow(at);
                }
                v
            }
            Op::Lt | Op::Gt | Op::Le | Op::Ge => {
                let ord = if unsigned {
                    a.bits.cmp(&b.bits)
                } else {
                    x.cmp(&y)
                };
                Value::truth(match op {
                    Op::Lt => ord.is_lt(),
                    Op::Gt => ord.is_gt(),
                    Op::Le => ord.is_le(),
                    _ => ord.is_ge(),
                })
            }
            Op::Eq => Value::truth(a.bits == b.bits),
            Op::Ne => Value::truth(a.bits != b.bits),
            Op::BitAnd => arith(a.bits & b.bits),
            Op::Xor => arith(a.bits ^ b.bits),
            Op::BitOr => arith(a.bits | b.bits),
            Op::And => Value::truth(a.is_true() && b.is_true()),
            Op::Or => Value::truth(a.is_true() || b.is_true()),
        })
    }
}

fn invalid(t: &Token) -> Diagnostic {
    let msg = format!(
        "token \"{}\" is not valid in preprocessor expressions",
        t.text
    );
    err(t.span, msg)
}

/// `a << n` / `a >> n` as gcc evaluates them: the left operand's type, a negative count
/// shifting the other way, counts past the width giving 0 (or -1). Also whether a signed
/// left shift overflowed.
fn shift(a: Value, b: Value, left: bool) -> (Value, bool) {
    let n = if b.unsigned {
        i128::from(b.bits)
    } else {
        i128::from(b.int())
    };
    let (left, n) = if n < 0 { (!left, -n) } else { (left, n) };
    let n = n.min(64) as u32;
    let bits = if left {
        a.bits.checked_shl(n).unwrap_or(0)
    } else if a.unsigned {
        a.bits.checked_shr(n).unwrap_or(0)
    } else {
        (a.int() >> n.min(63)) as u64
    };
    let back = if n >= 64 { 0 } else { (bits as i64) >> n };
    let over = left && !a.unsigned && back != a.int();
    (Value { bits, ..a }, over)
}

/// An integer constant: hex, octal, binary (GNU) or decimal, with C99 suffixes.
fn number(t: &Token, diags: &mut Vec<Diagnostic>) -> Result<Value, Diagnostic> {
    let s = &*t.text;
    let lower = s.to_ascii_lowercase();
    let (radix, start) = match lower.as_bytes() {
        [b'0', b'x', ..] => (16, 2),
        [b'0', b'b', ..] => (2, 2),
        [b'0', ..] => (8, 0),
        _ => (10, 0),
    };
    let body = &lower[start..];
    let len = body
        .bytes()
        .take_while(|b| b.is_ascii_hexdigit() && (radix == 16 || b.is_ascii_digit()))
        .count();
    let (digits, suffix) = body.split_at(len);
    let float = match radix {
        16 => suffix.starts_with(['.', 'p']),
        2 => false,
        _ => suffix.starts_with(['.', 'e']),
    };
    if float {
        return Err(err(t.span, "floating constant in preprocessor expression"));
    }
    let orig_suffix = &s[start + len..];
    let valid = matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu")
        && !orig_suffix.contains("lL")
        && !orig_suffix.contains("Ll");
    if !valid || (digits.is_empty() && start > 0) {
        let shown = if digits.is_empty() && start > 0 {
            &s[1..]
        } else {
            orig_suffix
        };
        return Err(err(
            t.span,
            format!("invalid suffix \"{shown}\" on integer constant"),
        ));
    }
    let mut value: u64 = 0;
    let mut too_large = false;
    for c in digits.chars() {
        let d = c
            .to_digit(radix)
            .ok_or_else(|| err(t.span, format!("invalid digit \"{c}\" in octal constant")))?;
        let next = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)));
        too_large |= next.is_none();
        value = next.unwrap_or(value);
    }
    if too_large {
        diags.push(Diagnostic::warning(
            t.span,
            "integer constant is too large for its type",
        ));
    }
    let mut unsigned = suffix.contains('u');
    if !unsigned && value > i64::MAX as u64 {
        unsigned = true;
        if radix == 10 && !too_large {
            let msg = "integer constant is so large that it is unsigned";
            diags.push(Diagnostic::warning(t.span, msg));
        }
    }
    Ok(Value {
        bits: value,
        unsigned,
    })
}

/// A character constant: plain ones are `char` (signed on x86), several chars combine
/// into an `int` as gcc does.
fn char_value(t: &Token, diags: &mut Vec<Diagnostic>) -> Result<Value, Diagnostic> {
    let s = &*t.text;
    let open = s.find('\'').unwrap_or(0);
    let wide = open > 0;
    let inner = s.get(open + 1..s.len().saturating_sub(1)).unwrap_or("");
    let units = char_units(inner, wide);
    let Some(&last) = units.last() else {
        return Err(err(t.span, "empty character constant"));
    };
    if wide {
        return Ok(Value::signed(i64::from(last as i32)));
    }
    if units.len() == 1 {
        return Ok(Value::signed(i64::from(last as u8 as i8)));
    }
    diags.push(Diagnostic::warning(
        t.span,
        "multi-character character constant",
    ));
    let v = units
        .iter()
        .fold(0i32, |acc, &u| acc.wrapping_shl(8) | (u & 0xff) as i32);
    Ok(Value::signed(i64::from(v)))
}

/// The code units of a character constant's contents, escapes decoded.
fn char_units(inner: &str, wide: bool) -> Vec<u32> {
    let mut out = Vec::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if wide || c.is_ascii() {
                out.push(c as u32);
            } else {
                let mut buf = [0u8; 4];
                out.extend(c.encode_utf8(&mut buf).bytes().map(u32::from));
            }
            continue;
        }
        let Some(e) = chars.next() else { break };
        let simple = match e {
            'n' => Some(10),
            't' => Some(9),
            'r' => Some(13),
            'a' => Some(7),
            'b' => Some(8),
            'f' => Some(12),
            'v' => Some(11),
            'e' | 'E' => Some(27),
            _ => None,
        };
        let value = match e {
            _ if simple.is_some() => simple.unwrap_or(0),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                v
            }
            'x' | 'u' | 'U' => {
                let mut v: u32 = 0;
                while let Some(d) = chars.peek().and_then(|c| c.to_digit(16)) {
                    v = v.wrapping_shl(4) | d;
                    chars.next();
                }
                v
            }
            other => other as u32,
        };
        out.push(value);
    }
    out
}
