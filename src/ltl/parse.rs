//! spin's grammar for temporal formulas, building terms as it goes.
//!
//! Two binary levels, both left-associative: `U` and `V` bind tighter than `&&`, `||`, `->` and
//! `<->`, which all share one level (so `p || q && r` is `(p || q) && r`). Unary operators (`!`,
//! `[]`, `<>`, `c_expr`) apply to one factor. Each binary node is simplified as soon as it is
//! built, `!` is pushed inward at once, and `[]`/`<>` become `false V`/`true U` with spin's
//! shortcuts (`[][]p = []p`, `<>(p U q) = <>q`, ...). Like spin, the parser stops at the first
//! token that continues no rule and then only asks that nothing be left to read, so `p q`
//! is the formula `p`. `X` is rejected, as by the Debian build of spin (made without `NXT`).

use super::error::{LtlError, Res};
use super::lex::{Lexer, Token};
use super::terms::{NodeId, Op, Terms};

/// Deepest nesting of factors (parentheses and unary operators) accepted.
const MAX_NESTING: usize = 10_000;

pub(super) fn parse(terms: &mut Terms, src: &[u8]) -> Res<NodeId> {
    let mut p = Parser {
        lex: Lexer::new(src),
        tok: Token::End,
        terms,
        depth: 0,
    };
    let n = p.formula()?;
    if !p.lex.at_end() {
        return Err(p.error("syntax error"));
    }
    Ok(n)
}

struct Parser<'a, 't> {
    lex: Lexer<'a>,
    /// The look-ahead token (spin's `tl_yychar`).
    tok: Token,
    terms: &'t mut Terms,
    depth: usize,
}

impl Parser<'_, '_> {
    fn advance(&mut self) -> Res<()> {
        self.tok = self.lex.next_token()?;
        Ok(())
    }

    fn error(&self, message: &str) -> LtlError {
        LtlError::Syntax {
            message: message.to_string(),
            saw: Some(self.tok.describe()),
            offset: self.lex.offset(),
        }
    }

    fn formula(&mut self) -> Res<NodeId> {
        self.advance()?;
        self.boolean_level()
    }

    /// `&&`, `||`, `->` and `<->`, left to right.
    fn boolean_level(&mut self) -> Res<NodeId> {
        let mut ptr = self.temporal_level()?;
        loop {
            let op = match self.tok {
                Token::Or => Op::Or,
                Token::And => Op::And,
                Token::Implies => Op::Implies,
                Token::Equiv => Op::Equiv,
                _ => return Ok(ptr),
            };
            self.advance()?;
            let rhs = self.temporal_level()?;
            let n = self.terms.binary(op, ptr, rhs)?;
            ptr = self.terms.simplify_binary(n)?;
        }
    }

    /// `U` and `V`, left to right.
    fn temporal_level(&mut self) -> Res<NodeId> {
        let mut ptr = self.factor()?;
        loop {
            let op = match self.tok {
                Token::Until => Op::Until,
                Token::Release => Op::Release,
                _ => return Ok(ptr),
            };
            self.advance()?;
            let rhs = self.factor()?;
            let n = self.terms.binary(op, ptr, rhs)?;
            ptr = self.terms.simplify_binary(n)?;
        }
    }

    fn factor(&mut self) -> Res<NodeId> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(LtlError::TooLarge(format!(
                "more than {MAX_NESTING} nested parentheses and unary operators"
            )));
        }
        let r = self.factor_inner();
        self.depth -= 1;
        r
    }

    fn factor_inner(&mut self) -> Res<NodeId> {
        let t = &mut *self.terms;
        match self.tok.clone() {
            Token::Char(b'(') => {
                let ptr = self.formula()?;
                if self.tok != Token::Char(b')') {
                    return Err(self.error("expected ')'"));
                }
                self.advance()?;
                Ok(ptr)
            }
            Token::Not => {
                let not = t.node(Op::Not, None, None)?;
                self.advance()?;
                let operand = self.factor()?;
                self.terms.set_lft(not, Some(operand));
                self.terms.negate(not)
            }
            Token::Always => {
                self.advance()?;
                let mut ptr = self.factor()?;
                let t = &mut *self.terms;
                match t.op(ptr) {
                    Op::True | Op::False => return Ok(ptr), // [] false = false
                    Op::Release => {
                        if t.op_of(t.lft(ptr)) == Some(Op::False) {
                            return Ok(ptr); // [][]p = []p
                        }
                        ptr = t.r(ptr)?; // [](p V q) = []q
                    }
                    _ => {}
                }
                let f = t.leaf(Op::False)?;
                t.binary(Op::Release, f, ptr)
            }
            Token::Eventually => {
                self.advance()?;
                let mut ptr = self.factor()?;
                let t = &mut *self.terms;
                match t.op(ptr) {
                    Op::True | Op::False => return Ok(ptr), // <> true = true
                    Op::Until => {
                        if t.op_of(t.lft(ptr)) == Some(Op::True) {
                            return Ok(ptr); // <><>p = <>p
                        }
                        ptr = t.r(ptr)?; // <>(p U q) = <>q
                    }
                    _ => {}
                }
                let tr = t.leaf(Op::True)?;
                t.binary(Op::Until, tr, ptr)
            }
            Token::CExpr => {
                self.advance()?;
                let ptr = self.factor()?;
                if self.terms.op(ptr) != Op::Pred {
                    return Err(self.error("expected {...} after c_expr"));
                }
                self.terms.node(Op::CExpr, Some(ptr), None)
            }
            Token::Pred(name) => {
                let n = t.predicate(name)?;
                self.advance()?;
                Ok(n)
            }
            Token::True | Token::False => {
                let n = t.leaf(if self.tok == Token::True {
                    Op::True
                } else {
                    Op::False
                })?;
                self.advance()?;
                Ok(n)
            }
            _ => Err(self.error("expected predicate")),
        }
    }
}
