//! spin's lexer for temporal formulas: operators, keywords, and predicates (a lowercase name, or
//! a parenthesised or braced text that contains no temporal operator), read from a cursor with
//! spin's exact look-ahead.
//!
//! The cursor reproduces spin's character reader: bytes are read as signed characters, so any
//! non-ASCII byte ends a token stream the way the end of the formula does, and reading past the
//! end still advances the cursor (the parser's final "nothing left" test depends on it).

use std::rc::Rc;

use super::error::{LtlError, Res};

/// Longest text spin keeps of a parenthesised predicate (its token buffer is 2048 bytes).
const PREDICATE_MAX: usize = 2047;
/// A name inside a parenthesised predicate must be shorter than this.
const NAME_MAX: usize = 512;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Token {
    Always,
    Eventually,
    Until,
    Release,
    And,
    Or,
    Implies,
    Equiv,
    Not,
    True,
    False,
    CExpr,
    Pred(Rc<str>),
    /// The end of the formula (or a non-ASCII byte).
    End,
    /// Any other character, which no rule of the grammar accepts.
    Char(u8),
}

impl Token {
    /// How spin names the token in an error message.
    pub(super) fn describe(&self) -> String {
        match self {
            Token::Always => "[]".into(),
            Token::Eventually => "<>".into(),
            Token::Until => "U".into(),
            Token::Release => "V".into(),
            Token::And => "&&".into(),
            Token::Or => "||".into(),
            Token::Implies => "->".into(),
            Token::Equiv => "<->".into(),
            Token::Not => "!".into(),
            Token::True => "true".into(),
            Token::False => "false".into(),
            Token::CExpr => "c_expr".into(),
            Token::Pred(_) => "predicate".into(),
            Token::End => "end of formula".into(),
            Token::Char(c) => (*c as char).to_string(),
        }
    }
}

/// A character as spin's `char` holds it: -1 past the end, negative for non-ASCII bytes.
type Ch = i32;
const EOF: Ch = -1;

fn is_lower(c: Ch) -> bool {
    (b'a' as Ch..=b'z' as Ch).contains(&c)
}

fn is_alnum(c: Ch) -> bool {
    (0..128).contains(&c) && (c as u8).is_ascii_alphanumeric()
}

fn is_alnum_(c: Ch) -> bool {
    is_alnum(c) || c == b'_' as Ch
}

fn ch(b: u8) -> Ch {
    b as Ch
}

pub(super) struct Lexer<'a> {
    src: &'a [u8],
    /// spin's `cnt`: may run past the end by the reads made there.
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer { src, pos: 0 }
    }

    /// Byte offset of the cursor, as spin's caret shows it.
    pub(super) fn offset(&self) -> usize {
        self.pos
    }

    fn getc(&mut self) -> Ch {
        let c = self.src.get(self.pos).map_or(EOF, |&b| b as i8 as Ch);
        self.pos += 1;
        c
    }

    fn ungetc(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    fn peek(&self, k: usize) -> Ch {
        self.src.get(self.pos + k).map_or(EOF, |&b| b as i8 as Ch)
    }

    /// True when nothing is left to read (spin's test after the formula is parsed).
    pub(super) fn at_end(&mut self) -> bool {
        self.getc() == EOF
    }

    fn error(&self, message: &str, saw: Option<Ch>) -> LtlError {
        LtlError::Syntax {
            message: message.to_string(),
            saw: saw
                .filter(|&c| c > 0)
                .map(|c| (c as u8 as char).to_string()),
            offset: self.pos,
        }
    }

    pub(super) fn next_token(&mut self) -> Res<Token> {
        let c = loop {
            let c = self.getc();
            if c <= 0 {
                return Ok(Token::End);
            }
            if c != ch(b' ') {
                break c;
            }
        };
        if (c == ch(b'{') || c == ch(b'(')) && self.is_predicate(c)? {
            return Ok(Token::Pred(self.read_upto_closing(c)));
        }
        if c == ch(b'}') {
            return Err(self.error("unexpected '}'", None));
        }
        if is_lower(c) {
            let word = self.word(c);
            return Ok(match word.as_str() {
                "true" => Token::True,
                "false" => Token::False,
                "always" => Token::Always,
                "eventually" => Token::Eventually,
                "until" => Token::Until,
                "c_expr" => Token::CExpr,
                "not" => Token::Not,
                _ => Token::Pred(word.into()),
            });
        }
        if c == ch(b'<') {
            let c = self.getc();
            if c == ch(b'>') {
                return Ok(Token::Eventually);
            }
            if c != ch(b'-') {
                self.ungetc();
                return Err(self.error("expected '<>' or '<->'", None));
            }
            if self.getc() == ch(b'>') {
                return Ok(Token::Equiv);
            }
            self.ungetc();
            return Err(self.error("expected '<->'", None));
        }
        let pair = |second: u8, tok: Token| (second, tok);
        let (second, tok) = match c as u8 {
            b'/' => pair(b'\\', Token::And),
            b'\\' => pair(b'/', Token::Or),
            b'&' => pair(b'&', Token::And),
            b'|' => pair(b'|', Token::Or),
            b'[' => pair(b']', Token::Always),
            b'-' => pair(b'>', Token::Implies),
            b'!' => return Ok(Token::Not),
            b'U' => return Ok(Token::Until),
            b'V' => return Ok(Token::Release),
            other => return Ok(Token::Char(other)),
        };
        let d = self.getc();
        if d == ch(second) {
            return Ok(tok);
        }
        self.ungetc();
        Err(self.error(&format!("expected '{}'", second as char), Some(d)))
    }

    /// A lowercase name: letters, digits and underscores.
    fn word(&mut self, first: Ch) -> String {
        let mut text = vec![first as u8];
        let mut c = self.getc();
        while c != EOF && is_alnum_(c) {
            text.push(c as u8);
            c = self.getc();
        }
        self.ungetc();
        String::from_utf8_lossy(&text).into_owned()
    }

    /// Looks ahead (the opening `(` or `{` read) for a temporal operator or keyword before the
    /// matching close: without one, the bracketed text is a predicate.
    fn is_predicate(&self, open: Ch) -> Res<bool> {
        let close = if open == ch(b'{') { ch(b'}') } else { ch(b')') };
        let mut i = 0;
        let mut nesting = 0;
        let mut prev = open;
        let mut c = self.peek(i);
        i += 1;
        while (c != close || nesting > 0) && c != EOF && i < PREDICATE_MAX {
            if is_lower(c) || c == ch(b'_') {
                let mut name = vec![c as u8];
                while name.len() < NAME_MAX {
                    let d = self.peek(i);
                    if !is_alnum_(d) {
                        break;
                    }
                    name.push(d as u8);
                    i += 1;
                }
                c = 0;
                if name.len() >= NAME_MAX {
                    name.truncate(NAME_MAX - 1);
                    return Err(LtlError::NameTooLong(
                        String::from_utf8_lossy(&name).into_owned(),
                    ));
                }
                if matches!(
                    name.as_slice(),
                    b"always" | b"equivalent" | b"eventually" | b"until" | b"next" | b"c_expr"
                ) {
                    return Ok(false);
                }
            } else {
                let nxt = self.peek(i);
                let lone_letter = (c == ch(b'U') || c == ch(b'V') || c == ch(b'X'))
                    && !is_alnum_(prev)
                    && (nxt == EOF || !is_alnum_(nxt));
                let operator = (c == ch(b'<') && (nxt == ch(b'>') || nxt == ch(b'-')))
                    || (c == ch(b'-') && nxt == ch(b'>'))
                    || (c == ch(b'[') && nxt == ch(b']'));
                if lone_letter || operator {
                    return Ok(false);
                }
            }
            if c == open {
                nesting += 1;
            }
            if c == close {
                nesting -= 1;
            }
            prev = c;
            c = self.peek(i);
            i += 1;
        }
        Ok(true)
    }

    /// The predicate's text up to the matching close, which is consumed.
    fn read_upto_closing(&mut self, open: Ch) -> Rc<str> {
        let close = if open == ch(b'{') { ch(b'}') } else { ch(b')') };
        let mut text = Vec::new();
        let mut nesting = 0;
        let mut c = self.getc();
        while (c != close || nesting > 0) && c != EOF && text.len() < PREDICATE_MAX {
            text.push(c as u8);
            if c == open {
                nesting += 1;
            }
            if c == close {
                nesting -= 1;
            }
            c = self.getc();
        }
        String::from_utf8_lossy(&text).into()
    }
}

/// spin's first check: as many `(` as `)`, not counting a bracket quoted as `"("` or `'('`.
pub(super) fn balanced(src: &[u8]) -> bool {
    let at = |i: usize| src.get(i).copied().unwrap_or(0);
    let mut depth = 0i64;
    for (i, &b) in src.iter().enumerate() {
        if b != b'(' && b != b')' {
            continue;
        }
        let quoted = i > 0
            && ((at(i - 1) == b'"' && at(i + 1) == b'"')
                || (at(i - 1) == b'\'' && at(i + 1) == b'\''));
        if quoted {
            continue;
        }
        depth += if b == b'(' { 1 } else { -1 };
    }
    depth == 0
}
