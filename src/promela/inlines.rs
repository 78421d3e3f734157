//! `inline` definitions and their expansion. Spin substitutes an inline's body text at each call
//! (`f(a, b)` becomes `{ body }` with every name that is a formal parameter replaced by the
//! argument's text), before parsing, so this works on tokens. Definitions must precede calls;
//! a cycle is an error, as in spin.

use super::token::{Tok, Token, P};

/// An `inline` definition as written.
#[derive(Clone, Debug)]
pub struct InlineDef {
    pub name: String,
    pub params: Vec<String>,
    /// The body, braces included.
    pub body: Vec<Token>,
    /// Byte range of the name in the preprocessed text.
    pub name_start: u32,
    pub name_end: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineError {
    pub start: u32,
    pub end: u32,
    pub message: String,
}

/// Spin's limit on nested inline calls (MAXINL).
const MAX_NESTING: usize = 16;
/// A bound on the expanded token count, so that a model cannot make us allocate without end.
const MAX_TOKENS: usize = 20_000_000;

/// Removes inline definitions from `tokens` and expands every call. Returns the expanded
/// stream, the definitions (for display), and errors.
pub fn expand(tokens: Vec<Token>) -> (Vec<Token>, Vec<InlineDef>, Vec<InlineError>) {
    let mut ex = Expander {
        defs: Vec::new(),
        errors: Vec::new(),
        active: Vec::new(),
        out_len: 0,
    };
    let mut out = Vec::with_capacity(tokens.len());
    ex.run(&tokens, &mut out, true);
    (out, ex.defs, ex.errors)
}

struct Expander {
    defs: Vec<InlineDef>,
    errors: Vec<InlineError>,
    active: Vec<String>,
    out_len: usize,
}

/// Index just past the group that opens at `open` (`(` or `{`), or `None` when unbalanced.
fn matching(tokens: &[Token], open: usize, o: P, c: P) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        if t.is(o) {
            depth += 1;
        } else if t.is(c) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i + 1);
            }
        } else if t.tok == Tok::Eof {
            return None;
        }
    }
    None
}

impl Expander {
    fn error(&mut self, t: &Token, message: String) {
        self.errors.push(InlineError {
            start: t.start,
            end: t.end,
            message,
        });
    }

    fn run(&mut self, tokens: &[Token], out: &mut Vec<Token>, top: bool) {
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            if top && t.is_kw(super::token::Kw::Inline) {
                i = self.definition(tokens, i);
                continue;
            }
            if let Tok::Name(name) = &t.tok {
                if tokens.get(i + 1).is_some_and(|n| n.is(P::LParen)) {
                    if let Some(def) = self.defs.iter().position(|d| &d.name == name) {
                        i = self.call(tokens, i, def, out);
                        continue;
                    }
                }
            }
            if self.out_len >= MAX_TOKENS {
                if self.errors.iter().all(|e| !e.message.contains("too large")) {
                    self.error(t, "model too large after inline expansion".into());
                }
                return;
            }
            self.out_len += 1;
            out.push(t.clone());
            i += 1;
        }
    }

    /// `inline name ( params ) { body }` starting at `i`; returns the index after it.
    fn definition(&mut self, tokens: &[Token], i: usize) -> usize {
        let kw = &tokens[i];
        let Some(name_tok) = tokens.get(i + 1) else {
            return i + 1;
        };
        let Tok::Name(name) = &name_tok.tok else {
            self.error(
                name_tok,
                format!("expected a name after `inline`, saw {}", name_tok.tok),
            );
            return i + 1;
        };
        if !tokens.get(i + 2).is_some_and(|t| t.is(P::LParen)) {
            let t = tokens.get(i + 2).unwrap_or(name_tok);
            self.error(t, format!("expected `(` after `inline {name}`"));
            return i + 2;
        }
        let Some(close) = matching(tokens, i + 2, P::LParen, P::RParen) else {
            self.error(kw, format!("unterminated parameter list of inline {name}"));
            return tokens.len().saturating_sub(1);
        };
        let mut params = Vec::new();
        for t in &tokens[i + 3..close - 1] {
            match &t.tok {
                Tok::Name(p) => params.push(p.clone()),
                Tok::P(P::Comma) => {}
                other => self.error(t, format!("bad parameter to inline {name}: {other}")),
            }
        }
        if !tokens.get(close).is_some_and(|t| t.is(P::LBrace)) {
            let t = tokens.get(close).unwrap_or(kw);
            self.error(t, format!("bad inline: {name}: expected `{{`"));
            return close;
        }
        let Some(end) = matching(tokens, close, P::LBrace, P::RBrace) else {
            self.error(kw, format!("unterminated body of inline {name}"));
            return tokens.len().saturating_sub(1);
        };
        if self.defs.iter().any(|d| &d.name == name) {
            self.error(name_tok, format!("inline {name} redefined"));
        }
        self.defs.push(InlineDef {
            name: name.clone(),
            params,
            body: tokens[close..end].to_vec(),
            name_start: name_tok.start,
            name_end: name_tok.end,
        });
        end
    }

    /// A call `name ( args )` at `i` of definition `def`; expands it into `out`.
    fn call(&mut self, tokens: &[Token], i: usize, def: usize, out: &mut Vec<Token>) -> usize {
        let call = &tokens[i];
        let name = self.defs[def].name.clone();
        let Some(close) = matching(tokens, i + 1, P::LParen, P::RParen) else {
            self.error(call, format!("unterminated argument list of inline {name}"));
            return tokens.len().saturating_sub(1);
        };
        let mut args: Vec<Vec<Token>> = vec![Vec::new()];
        let mut depth = 0usize;
        for t in &tokens[i + 2..close - 1] {
            match t.tok {
                Tok::P(P::Comma) if depth == 0 => args.push(Vec::new()),
                Tok::P(P::LParen) | Tok::P(P::LBracket) => {
                    depth += 1;
                    if let Some(a) = args.last_mut() {
                        a.push(t.clone());
                    }
                }
                Tok::P(P::RParen) | Tok::P(P::RBracket) => {
                    depth = depth.saturating_sub(1);
                    if let Some(a) = args.last_mut() {
                        a.push(t.clone());
                    }
                }
                _ => {
                    if let Some(a) = args.last_mut() {
                        a.push(t.clone());
                    }
                }
            }
        }
        if args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if args.len() != self.defs[def].params.len() {
            self.error(
                call,
                format!(
                    "wrong number of arguments on call of inline '{name}': {} given, {} expected",
                    args.len(),
                    self.defs[def].params.len()
                ),
            );
            return close;
        }
        if self.active.contains(&name) {
            self.error(call, format!("cyclic inline attempt on: {name}"));
            return close;
        }
        if self.active.len() >= MAX_NESTING {
            self.error(call, "inlines nested too deeply".into());
            return close;
        }
        let params = self.defs[def].params.clone();
        let call_newline = call.newline_before;
        let mut body = Vec::with_capacity(self.defs[def].body.len());
        for (k, t) in self.defs[def].body.iter().enumerate() {
            let formal = match &t.tok {
                Tok::Name(n) => params.iter().position(|p| p == n),
                _ => None,
            };
            match formal {
                Some(p) => {
                    // spin re-reads the argument text inside the body, so its tokens sit at
                    // the parameter's place (lines in pan are the inline's lines).
                    for (j, a) in args[p].iter().enumerate() {
                        let mut a = a.clone();
                        a.from_inline = true;
                        a.newline_before = j == 0 && t.newline_before;
                        a.start = t.start;
                        a.end = t.end;
                        body.push(a);
                    }
                }
                None => {
                    let mut t = t.clone();
                    t.from_inline = true;
                    if k == 0 {
                        // The body takes the call's place: a line break before the call
                        // still ends the previous statement, while the one spin's inline
                        // text starts with does not (it resets its last token there).
                        t.newline_before = call_newline;
                        // As the parser's look-ahead it stands for the call.
                        t.call = Some((call.start, call.end));
                    }
                    body.push(t);
                }
            }
        }
        // Labels keep their names: each expansion is a `{ }` block of its own, and spin's
        // block scopes decide which label a `goto` reaches (see `program::lower`).
        self.active.push(name);
        self.run(&body, out, false);
        self.active.pop();
        close
    }
}
