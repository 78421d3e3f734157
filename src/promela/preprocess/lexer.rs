//! Translation phases 1–3 for one file: line splicing, comments, and pp-tokens carrying their
//! original byte spans; also the token recogniser reused to check pastes and output spacing.

use std::rc::Rc;

use super::super::diag::Diagnostic;
use super::super::source::{FileId, Span};

/// The kinds of preprocessing token C99 distinguishes (plus two internal ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
    /// A character that fits no other class, or an unterminated literal (rest of its line).
    Other,
    /// `<file>` right after `#include`.
    Header,
    /// The empty operand of `##` (C99 6.10.3.3); never reaches the output.
    Placemarker,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub kind: Kind,
    pub text: Rc<str>,
    /// For text from a file (or a macro argument) its place; for a macro body token the
    /// outermost invocation.
    pub span: Span,
    /// The macro expansion this token was produced by (index into the source map's table).
    pub exp: Option<u32>,
    /// Whitespace, a comment or a line break came before it.
    pub space: bool,
    /// First token of a line: only such a `#` starts a directive.
    pub bol: bool,
    /// "Painted blue": named a macro while that macro was being expanded, so never expands.
    pub no_expand: bool,
    /// `span` covers exactly `text`, so offsets inside the token map one to one.
    pub exact: bool,
    /// Position in its source list (a file, or one macro's replacement list): tokens with
    /// consecutive numbers touched there, so gcc would not separate them (0: unnumbered).
    pub seq: u32,
}

impl Token {
    pub fn synthetic(kind: Kind, text: &str, span: Span) -> Token {
        Token {
            kind,
            text: Rc::from(text),
            span,
            exp: None,
            space: false,
            bol: false,
            no_expand: false,
            exact: false,
            seq: 0,
        }
    }

    /// Whether this is the punctuator `p`.
    pub fn is(&self, p: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == p
    }

    pub fn is_hash(&self) -> bool {
        self.is("#") || self.is("%:")
    }

    pub fn is_paste(&self) -> bool {
        self.is("##") || self.is("%:%:")
    }
}

/// What the lexer hands out: a token, the end of a logical line, or the end of the file.
pub(super) enum Lexed {
    Tok(Token),
    Newline,
    Eof,
}

/// C99 punctuators (with digraphs), longest first so that the first match is maximal munch.
const PUNCTS: [&str; 48] = [
    "%:%:", "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%", "%>", "%:", "[", "]",
    "(", ")", "{", "}", ".", "&", "*", "+", "-", "~", "!", "/", "%", "<", ">", "^", "|",
];
const PUNCT1: &[u8] = b"?:;=,#";

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

fn is_ident_char(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

/// Recognises the token starting at `s[i]` (not whitespace, not a comment): its kind, its end,
/// and whether it is a string or character literal missing its closing quote (then it runs to
/// the end of the line and is `Other`, as gcc does).
pub(super) fn scan(s: &str, i: usize) -> (Kind, usize, bool) {
    let b = s.as_bytes();
    let Some(&c) = b.get(i) else {
        return (Kind::Other, i, false);
    };
    if is_ident_start(c) {
        let end = i + b[i..].iter().take_while(|&&c| is_ident_char(c)).count();
        let prefix = matches!(&s[i..end], "L" | "u" | "U" | "u8");
        match b.get(end) {
            Some(&q @ b'"') if prefix => return quoted(b, end, q),
            Some(&q @ b'\'') if prefix && &s[i..end] != "u8" => return quoted(b, end, q),
            _ => return (Kind::Ident, end, false),
        }
    }
    if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
        return (Kind::Number, number_end(b, i), false);
    }
    if c == b'"' || c == b'\'' {
        return quoted(b, i, c);
    }
    if let Some(p) = PUNCTS.iter().find(|p| s[i..].starts_with(*p)) {
        return (Kind::Punct, i + p.len(), false);
    }
    if PUNCT1.contains(&c) {
        return (Kind::Punct, i + 1, false);
    }
    let len = s
        .get(i..)
        .and_then(|r| r.chars().next())
        .map_or(1, char::len_utf8);
    (Kind::Other, i + len, false)
}

/// pp-number: a digit (or `.` digit) followed by digits, letters, `_`, `.`, and signs after
/// an exponent letter.
fn number_end(b: &[u8], start: usize) -> usize {
    let mut j = start + 1;
    while let Some(&c) = b.get(j) {
        let sign = (c == b'+' || c == b'-') && matches!(b[j - 1], b'e' | b'E' | b'p' | b'P');
        if sign || is_ident_char(c) || c == b'.' {
            j += 1;
        } else {
            break;
        }
    }
    j
}

/// A literal whose opening quote `q` is at `open`.
fn quoted(b: &[u8], open: usize, q: u8) -> (Kind, usize, bool) {
    let kind = if q == b'"' { Kind::Str } else { Kind::Char };
    let mut j = open + 1;
    while let Some(&c) = b.get(j) {
        match c {
            b'\\' => j += 2,
            b'\n' => break,
            _ if c == q => return (kind, j + 1, false),
            _ => j += 1,
        }
    }
    let eol = b[open..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| open + p);
    (Kind::Other, eol, true)
}

/// The kind of `s` when it is exactly one pp-token (a paste result must be), else `None`.
pub(super) fn single_token(s: &str) -> Option<Kind> {
    let first = *s.as_bytes().first()?;
    if first.is_ascii_whitespace() || s.starts_with("//") || s.starts_with("/*") {
        return None;
    }
    match scan(s, 0) {
        (kind, end, false) if end == s.len() => Some(kind),
        _ => None,
    }
}

/// Whether `b`, printed after `a` where the two did not touch in one source list (a macro
/// boundary), needs a space: gcc's `cpp_avoid_paste` table, because spin lexes gcc's output
/// (so Promela's `::` and `..` come apart exactly where gcc would part them), and any other
/// pair that would lex as one C token.
pub(super) fn needs_space(a: &Token, b: &Token) -> bool {
    let c = if b.kind == Kind::Punct {
        b.text.bytes().next()
    } else {
        None
    };
    let with_eq = [
        "=", "!", ">", "<", "+", "-", "*", "/", "%", "&", "|", "^", ">>", "<<",
    ];
    let gcc = match (a.kind, &*a.text) {
        (Kind::Punct, t) if c == Some(b'=') && with_eq.contains(&t) => true,
        (Kind::Punct, ">") => c == Some(b'>'),
        (Kind::Punct, "<") => matches!(c, Some(b'<' | b'%' | b':')),
        (Kind::Punct, "+") => c == Some(b'+'),
        (Kind::Punct, "-") => matches!(c, Some(b'-' | b'>')),
        (Kind::Punct, "/") => matches!(c, Some(b'/' | b'*')),
        (Kind::Punct, "%") => matches!(c, Some(b':' | b'%')),
        (Kind::Punct, "&") => c == Some(b'&'),
        (Kind::Punct, "|") => c == Some(b'|'),
        (Kind::Punct, ":") => matches!(c, Some(b':' | b'>')),
        (Kind::Punct, "->") => c == Some(b'*'),
        (Kind::Punct, ".") => matches!(c, Some(b'.' | b'%')) || b.kind == Kind::Number,
        (Kind::Punct, "#" | "%:") => matches!(c, Some(b'#' | b'%')),
        (Kind::Ident, _) => matches!(b.kind, Kind::Ident | Kind::Number | Kind::Char | Kind::Str),
        (Kind::Number, _) => {
            matches!(b.kind, Kind::Number | Kind::Ident | Kind::Char)
                || matches!(c, Some(b'.' | b'+' | b'-'))
        }
        (Kind::Other, t) => t.starts_with('\\') && b.kind == Kind::Ident,
        _ => false,
    };
    gcc || lexes_as_one(&a.text, &b.text)
}

/// Whether `a` directly followed by `b` would lex differently (a longer first token, or
/// the start of a comment).
fn lexes_as_one(a: &str, b: &str) -> bool {
    let Some(&b0) = b.as_bytes().first() else {
        return false;
    };
    if a.is_empty() {
        return false;
    }
    if a.ends_with('/') && (b0 == b'/' || b0 == b'*') {
        return true;
    }
    let mut joined = String::with_capacity(a.len() + 12);
    joined.push_str(a);
    joined.extend(b.chars().take(3));
    scan(&joined, 0).1 > a.len()
}

/// One file after line splicing, handing out tokens with spans into the original text.
pub(super) struct Lexer {
    file: FileId,
    text: String,
    /// (offset in `text` where a backslash-newline was removed, bytes removed up to there).
    splices: Vec<(usize, usize)>,
    pos: usize,
    bol: bool,
    carry_space: bool,
    comment_newlines: u32,
}

impl Lexer {
    pub fn new(file: FileId, raw: &str, diags: &mut Vec<Diagnostic>) -> Lexer {
        let b = raw.as_bytes();
        let mut text = String::with_capacity(raw.len());
        let mut splices = Vec::new();
        let (mut copied, mut removed, mut i) = (0, 0, 0);
        while let Some(off) = raw.get(i..).and_then(|r| r.find('\\')) {
            let bs = i + off;
            let mut j = bs + 1;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            let spaced = j > bs + 1;
            if b.get(j) == Some(&b'\r') {
                j += 1;
            }
            if b.get(j) != Some(&b'\n') {
                i = bs + 1;
                continue;
            }
            if spaced {
                let span = Span::new(file, bs, bs + 1);
                diags.push(Diagnostic::warning(
                    span,
                    "backslash and newline separated by space",
                ));
            }
            text.push_str(&raw[copied..bs]);
            removed += j + 1 - bs;
            splices.push((text.len(), removed));
            copied = j + 1;
            i = j + 1;
        }
        text.push_str(&raw[copied..]);
        Lexer {
            file,
            text,
            splices,
            pos: 0,
            bol: true,
            carry_space: false,
            comment_newlines: 0,
        }
    }

    /// The original offset of spliced offset `clean`; a token's end must not move past a
    /// splice that follows it, its start must.
    fn orig(&self, clean: usize, is_end: bool) -> usize {
        let n = self
            .splices
            .partition_point(|&(p, _)| if is_end { p < clean } else { p <= clean });
        clean
            + n.checked_sub(1)
                .and_then(|k| self.splices.get(k))
                .map_or(0, |s| s.1)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, self.orig(start, false), self.orig(end, true))
    }

    /// Newlines swallowed by block comments since the last call (the output keeps them).
    pub fn take_comment_newlines(&mut self) -> u32 {
        std::mem::take(&mut self.comment_newlines)
    }

    /// Skips whitespace and comments on the current line; true when there was any.
    fn skip_blank(&mut self, diags: &mut Vec<Diagnostic>) -> bool {
        let mut seen = std::mem::take(&mut self.carry_space);
        loop {
            let b = self.text.as_bytes();
            let p = self.pos;
            match (b.get(p), b.get(p + 1)) {
                (Some(b' ' | b'\t' | b'\r' | 0x0b | 0x0c), _) => self.pos += 1,
                (Some(b'/'), Some(b'*')) => match self.text[p + 2..].find("*/") {
                    Some(k) => {
                        let body = &self.text[p + 2..p + 2 + k];
                        self.comment_newlines += body.matches('\n').count() as u32;
                        self.pos = p + 4 + k;
                    }
                    None => {
                        let span = self.span(p, p + 2);
                        diags.push(Diagnostic::error(span, "unterminated comment"));
                        self.comment_newlines += self.text[p..].matches('\n').count() as u32;
                        self.pos = self.text.len();
                    }
                },
                (Some(b'/'), Some(b'/')) => {
                    self.pos = self.text[p..].find('\n').map_or(self.text.len(), |k| p + k);
                }
                _ => return seen,
            }
            seen = true;
        }
    }

    /// The next token; `quiet` (in skipped groups) suppresses warnings about literals.
    pub fn next(&mut self, quiet: bool, diags: &mut Vec<Diagnostic>) -> Lexed {
        let space = self.skip_blank(diags);
        let start = self.pos;
        let Some(&c) = self.text.as_bytes().get(start) else {
            return Lexed::Eof;
        };
        if c == b'\n' {
            self.pos += 1;
            self.bol = true;
            return Lexed::Newline;
        }
        let (mut kind, end, unterminated) = scan(&self.text, start);
        let end = end.clamp(start + 1, self.text.len());
        let span = self.span(start, end);
        if unterminated {
            kind = Kind::Other;
            if !quiet {
                let lit = &self.text[start..end];
                let q = lit.chars().find(|&c| c == '"' || c == '\'').unwrap_or('"');
                let msg = format!("missing terminating {q} character");
                diags.push(Diagnostic::warning(span, msg));
            }
        }
        let text = &self.text[start..end];
        let tok = Token {
            kind,
            text: Rc::from(text),
            span,
            exp: None,
            space: space || self.bol,
            bol: self.bol,
            no_expand: false,
            exact: (span.end - span.start) as usize == text.len(),
            seq: 0,
        };
        self.bol = false;
        self.pos = end;
        Lexed::Tok(tok)
    }

    /// After `#include`: a `<...>` header name on this line, lexed as one token.
    pub fn header_name(&mut self, diags: &mut Vec<Diagnostic>) -> Option<Token> {
        let space = self.skip_blank(diags);
        self.carry_space = space;
        let rest = self.text.get(self.pos..)?;
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        if !line.starts_with('<') {
            return None;
        }
        let len = line.find('>')? + 1;
        let (start, end) = (self.pos, self.pos + len);
        let mut tok = Token::synthetic(Kind::Header, &line[..len], self.span(start, end));
        tok.space = std::mem::take(&mut self.carry_space);
        tok.exact = (tok.span.end - tok.span.start) as usize == len;
        self.pos = end;
        Some(tok)
    }
}

/// All tokens of a short text such as a `-D` value; line breaks count as spaces.
pub(super) fn lex_all(file: FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut lexer = Lexer::new(file, text, diags);
    let mut out = Vec::new();
    loop {
        match lexer.next(false, diags) {
            Lexed::Tok(t) => out.push(t),
            Lexed::Newline => lexer.carry_space = true,
            Lexed::Eof => return out,
        }
    }
}
