//! Spin's implied semicolons. Its lexer inserts `;` at a newline inside a body when the line
//! ends in a token that can end a statement, after `else` and after `}` when a statement
//! follows, and drops a `;` or `->` that precedes `}`, `->` or `;`. Models rely on all four,
//! so the parser sees the token stream exactly as spin's grammar does.

use super::token::{Kw, Tok, Token, P};

/// Applies spin's semicolon rules to a raw token stream (ending in `Eof`).
pub fn apply(raw: Vec<Token>) -> Vec<Token> {
    let lexed = insert_newline_semis(raw);
    yylex_rules(lexed)
}

fn implied_semi(at: &Token) -> Token {
    Token {
        tok: Tok::P(P::Semi),
        start: at.start,
        end: at.start,
        newline_before: false,
        implied: true,
        call: None,
        from_inline: false,
    }
}

/// Tokens after which a newline ends a statement (spin's `follows_token`).
fn ends_statement(t: &Tok) -> bool {
    matches!(
        t,
        Tok::P(P::RBrace | P::RParen | P::RBracket | P::Incr | P::Decr)
            | Tok::Kw(Kw::Od | Kw::Fi | Kw::Else | Kw::Break | Kw::CCode | Kw::CExpr | Kw::CDecl)
            | Tok::Name(_)
            | Tok::Const(_)
            | Tok::WordConst(..)
    )
}

/// Inserts `;` at newlines inside proctype, init, never, trace and typedef bodies, outside
/// parentheses, after a token that can end a statement.
fn insert_newline_semis(raw: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 4);
    let mut brace = 0usize; // brace depth
    let mut paren = 0usize;
    let mut want_body = false;
    let mut body_depth: Option<usize> = None; // brace depth of the body we are in
    for t in raw {
        let in_seq = body_depth.is_some_and(|d| brace >= d);
        if t.newline_before && in_seq && paren == 0 {
            if let Some(last) = out.last() {
                let last: &Token = last;
                let skip_for_unless = last.is(P::RBrace) && starts_with_u(&t.tok);
                if ends_statement(&last.tok) && !skip_for_unless {
                    out.push(implied_semi(&t));
                }
            }
        }
        match &t.tok {
            Tok::Kw(
                Kw::Proctype
                | Kw::DProctype
                | Kw::Init
                | Kw::Never
                | Kw::Trace
                | Kw::Notrace
                | Kw::Typedef,
            ) if body_depth.is_none() => want_body = true,
            Tok::P(P::LBrace) => {
                brace += 1;
                if want_body && body_depth.is_none() {
                    body_depth = Some(brace);
                    want_body = false;
                }
            }
            Tok::P(P::RBrace) => {
                if body_depth == Some(brace) {
                    body_depth = None;
                }
                brace = brace.saturating_sub(1);
            }
            Tok::P(P::LParen) => paren += 1,
            Tok::P(P::RParen) => paren = paren.saturating_sub(1),
            _ => {}
        }
        out.push(t);
    }
    out
}

fn starts_with_u(t: &Tok) -> bool {
    match t {
        Tok::Name(n) => n.starts_with('u'),
        Tok::Kw(k) => k.as_str().starts_with('u'),
        _ => false,
    }
}

/// The rules of spin's `yylex()` wrapper, as a state machine over the lexed stream.
fn yylex_rules(lexed: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(lexed.len());
    let mut input = lexed.into_iter().peekable();
    let mut last: Option<Tok> = None;
    let mut hold: Option<Token> = None;
    loop {
        let c = if let Some(h) = hold.take() {
            h
        } else {
            let Some(mut c) = input.next() else { break };
            let after_else = last == Some(Tok::Kw(Kw::Else))
                && !matches!(c.tok, Tok::P(P::Semi | P::Arrow) | Tok::Kw(Kw::Fi));
            let after_brace = last == Some(Tok::P(P::RBrace))
                && !matches!(
                    c.tok,
                    Tok::Kw(Kw::Proctype | Kw::Init | Kw::Never | Kw::Fi | Kw::Od | Kw::Unless)
                        | Tok::P(P::Sep | P::RBrace | P::Semi | P::Arrow)
                        | Tok::Eof
                );
            if after_else || after_brace {
                out.push(implied_semi(&c));
                hold = Some(c);
                last = None;
                continue;
            }
            if c.is(P::Semi) || c.is(P::Arrow) {
                if let Some(next) = input.peek() {
                    if matches!(next.tok, Tok::P(P::RBrace | P::Arrow | P::Semi)) {
                        // The first separator is dropped; the next one is taken as is.
                        c = input.next().unwrap_or(c);
                    } else {
                        hold = input.next();
                        last = Some(c.tok.clone());
                        out.push(c);
                        continue;
                    }
                }
            }
            c
        };
        last = Some(c.tok.clone());
        let eof = c.tok == Tok::Eof;
        out.push(c);
        if eof {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::promela::lexer::lex;

    fn render(src: &str) -> String {
        let (toks, _) = lex(src);
        apply(toks)
            .iter()
            .filter(|t| t.tok != Tok::Eof)
            .map(|t| match &t.tok {
                Tok::Name(n) => n.clone(),
                Tok::Const(v) => v.to_string(),
                Tok::WordConst(w, _) => w.to_string(),
                Tok::Str(s) => s.clone(),
                Tok::Kw(k) => k.as_str().to_string(),
                Tok::P(p) => p.as_str().to_string(),
                Tok::Other(c) => c.to_string(),
                Tok::Eof => String::new(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn newline_ends_statement_inside_bodies_only() {
        assert_eq!(
            render("byte x\nbyte y\ninit { x = 1\n y = 2 }"),
            "byte x byte y init { x = 1 ; y = 2 }"
        );
    }

    #[test]
    fn no_semicolon_inside_parentheses_or_after_operators() {
        assert_eq!(
            render("init { x = (a +\n b)\n y = a +\n b }"),
            "init { x = ( a + b ) ; y = a + b }"
        );
    }

    #[test]
    fn semicolon_after_brace_and_else() {
        assert_eq!(
            render("init { atomic { x = 1 } x = 2; if :: else x = 3 fi }"),
            "init { atomic { x = 1 } ; x = 2 ; if :: else ; x = 3 fi }"
        );
    }

    #[test]
    fn separator_before_brace_or_separator_is_dropped() {
        assert_eq!(render("init { x = 1; }"), "init { x = 1 }");
        assert_eq!(render("init { x = 1 ; -> y }"), "init { x = 1 -> y }");
    }

    #[test]
    fn newline_before_unless_keeps_the_block() {
        assert_eq!(
            render("init { { x = 1 }\n unless { y } }"),
            "init { { x = 1 } unless { y } }"
        );
    }
}
