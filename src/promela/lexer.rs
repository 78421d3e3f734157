//! Turns preprocessed text into raw Promela tokens the way spin's `lex()` does: decimal
//! constants only (`0x10` is `0` then a name, as in spin), character constants, strings that end
//! at the next quote, and LTL operators only inside `ltl { }`. Implied semicolons are added
//! later (`semis`), because they depend on the block structure.

use super::token::{Kw, Tok, Token, P};

/// A lexical error: byte range in the preprocessed text and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub start: u32,
    pub end: u32,
    pub message: String,
}

pub fn lex(text: &str) -> (Vec<Token>, Vec<LexError>) {
    let mut lx = Lexer {
        src: text.as_bytes(),
        text,
        pos: 0,
        out: Vec::new(),
        errors: Vec::new(),
        newline: false,
        ltl_pending: false,
        ltl_depth: 0,
    };
    lx.run();
    let end = text.len() as u32;
    lx.out.push(Token {
        tok: Tok::Eof,
        start: end,
        end,
        newline_before: lx.newline,
        implied: false,
        call: None,
        from_inline: false,
    });
    (lx.out, lx.errors)
}

struct Lexer<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    out: Vec<Token>,
    errors: Vec<LexError>,
    newline: bool,
    /// Saw `ltl`; the next `{` opens an LTL body.
    ltl_pending: bool,
    /// Brace depth inside an LTL body (0 outside).
    ltl_depth: u32,
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.src.get(self.pos + k).copied().unwrap_or(0)
    }

    fn push(&mut self, tok: Tok, start: usize) {
        self.out.push(Token {
            tok,
            start: start as u32,
            end: self.pos as u32,
            newline_before: self.newline,
            implied: false,
            call: None,
            from_inline: false,
        });
        self.newline = false;
    }

    fn error(&mut self, start: usize, end: usize, message: impl Into<String>) {
        self.errors.push(LexError {
            start: start as u32,
            end: end as u32,
            message: message.into(),
        });
    }

    fn run(&mut self) {
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            let start = self.pos;
            match c {
                b'\n' => {
                    self.newline = true;
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | 0x0c | 0x0b => self.pos += 1,
                b'"' => self.string(start),
                b'\'' => self.char_const(start),
                b'0'..=b'9' => self.number(start),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word(start),
                b'#' => {
                    // gcc -E leaves only line markers; anything else reaching spin's lexer
                    // is reported by it as a malformed directive.
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                    self.error(start, self.pos, "malformed preprocessor directive");
                }
                _ => self.punct(start),
            }
        }
    }

    fn string(&mut self, start: usize) {
        self.pos += 1;
        while self.pos < self.src.len() && self.src[self.pos] != b'"' && self.src[self.pos] != b'\n'
        {
            // As spin's lexer: a backslash takes the next character into the string
            // unexamined, so `\"` does not end it.
            if self.src[self.pos] == b'\\' && self.pos + 1 < self.src.len() {
                self.pos += 1;
            }
            self.pos += 1;
        }
        if self.peek(0) != b'"' {
            self.error(
                start,
                self.pos,
                "unterminated string: missing terminating \" character",
            );
            let s = self.text[start..self.pos].to_string() + "\"";
            self.push(Tok::Str(s), start);
            return;
        }
        self.pos += 1;
        let s = self.text[start..self.pos].to_string();
        self.push(Tok::Str(s), start);
    }

    fn char_const(&mut self, start: usize) {
        self.pos += 1;
        let mut c = self.next_char();
        if c == '\\' {
            c = match self.next_char() {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'f' => '\x0c',
                other => other,
            };
        }
        if self.peek(0) != b'\'' {
            self.error(start, self.pos, "character quote missing");
        } else {
            self.pos += 1;
        }
        // spin keeps the character in a C `char` (signed on x86).
        let v = (c as u32 as u8) as i8 as i64;
        self.push(Tok::Const(v), start);
    }

    fn next_char(&mut self) -> char {
        match self.text.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(ch) => {
                self.pos += ch.len_utf8();
                ch
            }
            None => '\0',
        }
    }

    fn number(&mut self, start: usize) {
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let digits = &self.text[start..self.pos];
        // strtol(…, 10) into a long, then cast to int, as spin does.
        let v: i64 = digits.parse::<i64>().unwrap_or(i64::MAX);
        self.push(Tok::Const(v as i32 as i64), start);
    }

    fn word(&mut self, start: usize) {
        while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') {
            self.pos += 1;
        }
        let w = &self.text[start..self.pos];
        let tok = match w {
            "true" => Tok::WordConst("true", 1),
            "false" => Tok::WordConst("false", 0),
            "skip" => Tok::WordConst("skip", 1),
            _ => match Kw::lookup(w) {
                Some(kw) => {
                    if kw == Kw::Ltl {
                        self.ltl_pending = true;
                    }
                    Tok::Kw(kw)
                }
                None => Tok::Name(w.to_string()),
            },
        };
        self.push(tok, start);
    }

    fn punct(&mut self, start: usize) {
        let c = self.src[self.pos];
        let n1 = self.peek(1);
        let n2 = self.peek(2);
        let in_ltl = self.ltl_depth > 0;
        let (p, len) = match c {
            b'-' if in_ltl && n1 == b'>' => (P::Implies, 2),
            b'[' if in_ltl && n1 == b']' => (P::Always, 2),
            b'/' if in_ltl && n1 == b'\\' => (P::LtlAnd, 2),
            b'\\' if in_ltl && n1 == b'/' => (P::LtlOr, 2),
            b'<' if in_ltl && n1 == b'>' => (P::Eventually, 2),
            b'<' if in_ltl && n1 == b'-' && n2 == b'>' => (P::Equiv, 3),
            b'(' => (P::LParen, 1),
            b')' => (P::RParen, 1),
            b'[' => (P::LBracket, 1),
            b']' => (P::RBracket, 1),
            b'{' => (P::LBrace, 1),
            b'}' => (P::RBrace, 1),
            b';' => (P::Semi, 1),
            b',' => (P::Comma, 1),
            b'@' => (P::At, 1),
            // spin's own lexer also knows comments: text that gcc leaves (a stray `*/` after
            // a nested `/*`) is skipped, as spin skips it.
            b'*' if n1 == b'/' => {
                self.pos += 2;
                return;
            }
            b'/' if n1 == b'*' => {
                self.pos += 2;
                while self.pos < self.src.len()
                    && !(self.src[self.pos] == b'*' && self.peek(1) == b'/')
                {
                    if self.src[self.pos] == b'\n' {
                        self.newline = true;
                    }
                    self.pos += 1;
                }
                self.pos = (self.pos + 2).min(self.src.len());
                return;
            }
            b'*' => (P::Star, 1),
            b'/' => (P::Slash, 1),
            b'%' => (P::Percent, 1),
            b'^' => (P::Caret, 1),
            b'~' => (P::Tilde, 1),
            b':' if n1 == b':' => (P::Sep, 2),
            b':' => (P::Colon, 1),
            b'-' if n1 == b'>' => (P::Arrow, 2),
            b'-' if n1 == b'-' => (P::Decr, 2),
            b'-' => (P::Minus, 1),
            b'+' if n1 == b'+' => (P::Incr, 2),
            b'+' => (P::Plus, 1),
            b'<' if n1 == b'<' => (P::Shl, 2),
            b'<' if n1 == b'=' => (P::Le, 2),
            b'<' => (P::Lt, 1),
            b'>' if n1 == b'>' => (P::Shr, 2),
            b'>' if n1 == b'=' => (P::Ge, 2),
            b'>' => (P::Gt, 1),
            b'=' if n1 == b'=' => (P::Eq, 2),
            b'=' => (P::Assign, 1),
            b'!' if n1 == b'=' => (P::Ne, 2),
            b'!' if n1 == b'!' => (P::BangBang, 2),
            b'!' => (P::Bang, 1),
            b'?' if n1 == b'?' => (P::QuestQuest, 2),
            b'?' => (P::Quest, 1),
            b'&' if n1 == b'&' => (P::AndAnd, 2),
            b'&' => (P::Amp, 1),
            b'|' if n1 == b'|' => (P::OrOr, 2),
            b'|' => (P::Pipe, 1),
            b'.' if n1 == b'.' => (P::DotDot, 2),
            b'.' => (P::Dot, 1),
            _ => {
                let ch = self.next_char();
                self.push(Tok::Other(ch), start);
                return;
            }
        };
        self.pos += len;
        match p {
            P::LBrace if self.ltl_pending => {
                self.ltl_pending = false;
                self.ltl_depth = 1;
            }
            P::LBrace if self.ltl_depth > 0 => self.ltl_depth += 1,
            P::RBrace if self.ltl_depth > 0 => self.ltl_depth -= 1,
            _ => {}
        }
        self.push(Tok::P(p), start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).0.into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn operators_follow_spin() {
        assert_eq!(
            toks("a!!b ?? c -> d :: e"),
            vec![
                Tok::Name("a".into()),
                Tok::P(P::BangBang),
                Tok::Name("b".into()),
                Tok::P(P::QuestQuest),
                Tok::Name("c".into()),
                Tok::P(P::Arrow),
                Tok::Name("d".into()),
                Tok::P(P::Sep),
                Tok::Name("e".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn hex_is_not_a_number() {
        assert_eq!(
            toks("0x10"),
            vec![Tok::Const(0), Tok::Name("x10".into()), Tok::Eof]
        );
    }

    #[test]
    fn big_constants_wrap_like_a_c_int() {
        assert_eq!(toks("4294967296"), vec![Tok::Const(0), Tok::Eof]);
        assert_eq!(toks("2147483648"), vec![Tok::Const(-2147483648), Tok::Eof]);
    }

    #[test]
    fn ltl_operators_only_in_ltl_bodies() {
        assert_eq!(
            toks("ltl p { [] (a -> <> b) } x[]"),
            vec![
                Tok::Kw(Kw::Ltl),
                Tok::Name("p".into()),
                Tok::P(P::LBrace),
                Tok::P(P::Always),
                Tok::P(P::LParen),
                Tok::Name("a".into()),
                Tok::P(P::Implies),
                Tok::P(P::Eventually),
                Tok::Name("b".into()),
                Tok::P(P::RParen),
                Tok::P(P::RBrace),
                Tok::Name("x".into()),
                Tok::P(P::LBracket),
                Tok::P(P::RBracket),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn char_constants_and_strings() {
        assert_eq!(
            toks(r#"'a' '\n' "hi %d\n""#),
            vec![
                Tok::Const(97),
                Tok::Const(10),
                Tok::Str(r#""hi %d\n""#.into()),
                Tok::Eof
            ]
        );
        assert_eq!(lex("\"abc").1.len(), 1);
        // A backslash escapes a quote, as in spin's lexer.
        assert_eq!(
            toks(r#"printf("say \"%d\" \\", 1)"#),
            vec![
                Tok::Kw(Kw::Printf),
                Tok::P(P::LParen),
                Tok::Str(r#""say \"%d\" \\""#.into()),
                Tok::P(P::Comma),
                Tok::Const(1),
                Tok::P(P::RParen),
                Tok::Eof
            ]
        );
    }
}
