//! Macro expansion: the context stack with painted-blue tokens (C99 6.10.3.4), looking
//! for `(`, collecting and counting arguments, substitution with `#` and `##` (and GNU
//! comma elision), argument pre-expansion, `defined` in `#if`, and recording each
//! expansion for the source map.

use std::rc::Rc;

use super::super::diag::Diagnostic;
use super::super::source::Span;
use super::lexer::{single_token, Kind, Token};
use super::macros::{escape_into, point_after, Macro, Part, Shape};
use super::map::Expansion;
use super::Pp;

/// The tokens of one macro expansion being rescanned.
pub(super) struct Context {
    toks: Vec<Token>,
    pos: usize,
    /// The macro expanded (disabled while this context is on the stack); `None` for an
    /// argument or directive line being expanded on its own.
    macro_name: Option<Rc<str>>,
}

/// Where a raw token came from, so it can be given back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum From {
    File,
    Context,
}

/// A function-like macro call (or object-like use) being substituted.
struct Invocation {
    name: Token,
    /// Name through closing parenthesis: the span of every body token.
    span: Span,
    args: Vec<Vec<Token>>,
    /// The variadic argument was left out entirely (GNU comma elision applies).
    va_omitted: bool,
    exp: u32,
}

impl Invocation {
    fn arg(&self, i: usize) -> &[Token] {
        self.args.get(i).map_or(&[], Vec::as_slice)
    }

    /// A replacement-list token as it appears in this expansion.
    fn body_token(&self, t: &Token) -> Token {
        Token {
            span: self.span,
            exp: Some(self.exp),
            bol: false,
            no_expand: false,
            exact: false,
            ..t.clone()
        }
    }
}

impl Pp<'_> {
    fn push_context(&mut self, toks: Vec<Token>, macro_name: Option<Rc<str>>) {
        if let Some(n) = &macro_name {
            *self.disabled.entry(n.clone()).or_default() += 1;
        }
        self.ctx.push(Context {
            toks,
            pos: 0,
            macro_name,
        });
    }

    fn pop_context(&mut self) {
        if let Some(Context {
            macro_name: Some(n),
            ..
        }) = self.ctx.pop()
        {
            if let Some(c) = self.disabled.get_mut(&n) {
                *c = c.saturating_sub(1);
                if *c == 0 {
                    self.disabled.remove(&n);
                }
            }
        }
    }

    /// The next unexpanded token: from the innermost context with tokens left, else (with
    /// no barrier) from the file. With a barrier, `None` at the end of context `barrier`.
    /// A name of a macro being expanded is painted so it never expands (C99 6.10.3.4p2).
    fn next_raw(&mut self, barrier: Option<usize>) -> Option<(Token, From)> {
        loop {
            let depth = self.ctx.len();
            match self.ctx.last_mut() {
                Some(c) if c.pos < c.toks.len() => {
                    let mut t = c.toks.get(c.pos)?.clone();
                    c.pos += 1;
                    if t.kind == Kind::Ident && self.disabled.contains_key(&t.text) {
                        t.no_expand = true;
                    }
                    return Some((t, From::Context));
                }
                Some(_) if barrier == Some(depth - 1) => return None,
                Some(_) => self.pop_context(),
                None if barrier.is_some() => return None,
                None => return self.next_file_token().map(|t| (t, From::File)),
            }
        }
    }

    fn unread(&mut self, t: Token, from: From) {
        match (from, self.ctx.last_mut()) {
            (From::Context, Some(c)) => c.pos = c.pos.saturating_sub(1),
            _ => self.lookahead.push(t),
        }
    }

    /// The next fully macro-expanded token (see `next_raw` for `barrier`). A token read
    /// straight from the file at top level with whitespace before it first writes the line
    /// breaks owed (one that touches the previous token stays on its line, as in gcc).
    pub(super) fn next_expanded(&mut self, barrier: Option<usize>) -> Option<Token> {
        loop {
            let (tok, from) = self.next_raw(barrier)?;
            if from == From::File && barrier.is_none() {
                if tok.space && self.out.pending_newlines > 0 {
                    if !self.out.flush_newlines() {
                        self.fail(Diagnostic::error(tok.span, "preprocessed output too large"));
                    }
                    self.line_start = None;
                }
                if self.out.at_line_start() && self.line_start.is_none() {
                    self.line_start = Some(tok.span);
                }
            }
            if tok.kind != Kind::Ident || tok.no_expand || self.fatal {
                return Some(tok);
            }
            if self.in_if && &*tok.text == "defined" {
                return Some(self.defined_operator(tok, barrier));
            }
            let Some(m) = self.macros.get(&tok.text).cloned() else {
                return Some(tok);
            };
            if !self.enter_macro(&m, &tok, barrier) {
                return Some(tok);
            }
        }
    }

    /// Expands `toks` on their own (a macro argument or a directive line).
    pub(super) fn expand_isolated(&mut self, toks: Vec<Token>) -> Vec<Token> {
        if self.arg_depth >= self.limits.max_arg_nesting {
            let at = toks.first().map_or(Span::new(self.main, 0, 0), |t| t.span);
            self.fail(Diagnostic::error(at, "macro invocations nested too deeply"));
            return toks;
        }
        self.arg_depth += 1;
        let barrier = self.ctx.len();
        self.push_context(toks, None);
        let mut out = Vec::new();
        while let Some(t) = self.next_expanded(Some(barrier)) {
            out.push(t);
        }
        while self.ctx.len() > barrier {
            self.pop_context();
        }
        self.arg_depth -= 1;
        out
    }

    /// Pushes the expansion of `m` invoked by `name`; false when it is not an invocation
    /// (function-like name without `(`) or the invocation is wrong (already reported).
    fn enter_macro(&mut self, m: &Rc<Macro>, name: &Token, barrier: Option<usize>) -> bool {
        if !self.add_work(1, name.span) {
            return false;
        }
        let (args, end, va_omitted) = match &m.shape {
            Shape::Builtin(b) => {
                let t = self.builtin(*b, name);
                self.push_context(vec![t], None);
                return true;
            }
            Shape::Object => (Vec::new(), name.span, false),
            Shape::Function { params, variadic } => {
                // A directive between the name and `(` ends the search, as in gcc.
                let directives = self.directives;
                match self.next_raw(barrier) {
                    Some((t, _)) if t.is("(") && self.directives == directives => {}
                    Some((t, from)) => {
                        self.unread(t, from);
                        return false;
                    }
                    None => return false,
                }
                let Some((mut args, close)) = self.collect_args(m, name, barrier) else {
                    return false;
                };
                let Some(omitted) = self.check_arity(m, &close, &mut args, params.len(), *variadic)
                else {
                    return false;
                };
                (args, close.span, omitted)
            }
        };
        let exp = self.record_expansion(m, name);
        let inv = Invocation {
            name: name.clone(),
            span: name.span.to(end),
            args,
            va_omitted,
            exp,
        };
        let toks = self.substitute(m, &inv);
        if self.add_work(toks.len() as u64, inv.span) {
            self.push_context(toks, Some(m.name.clone()));
        }
        true
    }

    /// Counts expansion work; false (and a fatal error) past the limit, which is what
    /// stops exponential macro bombs.
    fn add_work(&mut self, n: u64, at: Span) -> bool {
        self.work = self.work.saturating_add(n);
        if self.work > self.limits.max_expansion_tokens {
            let msg = format!(
                "macro expansion too large (more than {} tokens)",
                self.limits.max_expansion_tokens
            );
            self.fail(Diagnostic::error(at, msg));
        }
        !self.fatal
    }

    /// The arguments after `(` up to the matching `)`, split at top-level commas (the
    /// variadic argument keeps its commas); also the `)`.
    fn collect_args(
        &mut self,
        m: &Macro,
        name: &Token,
        barrier: Option<usize>,
    ) -> Option<(Vec<Vec<Token>>, Token)> {
        let (nparams, variadic) = match &m.shape {
            Shape::Function { params, variadic } => (params.len(), *variadic),
            _ => (0, false),
        };
        let mut args: Vec<Vec<Token>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            let Some((t, _)) = self.next_raw(barrier) else {
                if !self.fatal {
                    let msg = format!("unterminated argument list invoking macro \"{}\"", m.name);
                    self.error(name.span, msg);
                }
                return None;
            };
            if t.is(")") && depth == 0 {
                return Some((args, t));
            }
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                depth -= 1;
            } else if t.is(",") && depth == 0 && !(variadic && args.len() == nparams) {
                args.push(Vec::new());
                continue;
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
        }
    }

    /// Checks the argument count (gcc's messages); `Some(va_omitted)` when acceptable.
    fn check_arity(
        &mut self,
        m: &Macro,
        close: &Token,
        args: &mut Vec<Vec<Token>>,
        n: usize,
        variadic: bool,
    ) -> Option<bool> {
        if n == 0 && args.len() == 1 && args.iter().all(Vec::is_empty) {
            args.clear();
        }
        let given = args.len();
        let msg = if given < n && variadic && given + 1 == n {
            // GNU: the variadic argument may be left out entirely.
            args.push(Vec::new());
            return Some(true);
        } else if given < n {
            format!(
                "macro \"{}\" requires {n} arguments, but only {given} given",
                m.name
            )
        } else if given > n {
            format!(
                "macro \"{}\" passed {given} arguments, but takes just {n}",
                m.name
            )
        } else {
            return Some(false);
        };
        let mut d = Diagnostic::error(close.span, msg);
        if m.def.end > m.def.start {
            d = d.with_label(m.def, format!("macro \"{}\" defined here", m.name));
        }
        self.diags.push(d);
        None
    }

    fn record_expansion(&mut self, m: &Macro, name: &Token) -> u32 {
        let next = self.names.len() as u32;
        let id = *self.names.entry(m.name.clone()).or_insert(next);
        let exps = &mut self.out.map.expansions;
        exps.push(Expansion {
            name: id,
            def: m.def,
            parent: name.exp,
        });
        (exps.len() - 1) as u32
    }

    /// The replacement list of `m` with arguments substituted, `#` and `##` applied.
    fn substitute(&mut self, m: &Macro, inv: &Invocation) -> Vec<Token> {
        let mut expanded: Vec<Option<Vec<Token>>> = vec![None; inv.args.len()];
        let mut out: Vec<Token> = Vec::with_capacity(m.body.len());
        let mut i = 0;
        while let Some(part) = m.body.get(i) {
            let before_paste = matches!(m.body.get(i + 1), Some(Part::Paste(_)));
            match part {
                Part::Tok(t) => out.push(inv.body_token(t)),
                Part::Stringize(idx, hash) => out.push(self.stringize(inv.arg(*idx), hash, inv)),
                Part::Param(idx, at) => {
                    // Operands of `##` are used as written, others fully expanded first.
                    let toks = if before_paste {
                        inv.arg(*idx).to_vec()
                    } else {
                        match expanded.get_mut(*idx) {
                            Some(Some(done)) => done.clone(),
                            Some(slot) => slot
                                .insert(self.expand_isolated(inv.arg(*idx).to_vec()))
                                .clone(),
                            None => Vec::new(),
                        }
                    };
                    if toks.is_empty() {
                        // Also marks where an empty argument's leading space goes.
                        let mut p = Token::synthetic(Kind::Placemarker, "", inv.span);
                        p.space = at.space;
                        out.push(p);
                    }
                    let start = out.len();
                    out.extend(toks);
                    if let Some(first) = out.get_mut(start) {
                        first.space = at.space;
                    }
                }
                Part::Paste(op) => {
                    i += 1;
                    self.paste_part(&mut out, m, i, op, inv);
                }
            }
            i += 1;
        }
        // gcc keeps the space before an empty argument: it goes to the next token.
        let mut carry = false;
        for t in out.iter_mut() {
            if t.kind == Kind::Placemarker {
                carry |= t.space;
            } else {
                t.space |= std::mem::take(&mut carry);
            }
        }
        out.retain(|t| t.kind != Kind::Placemarker);
        // Tokens of the replacement list touch each other; arguments keep their own numbers.
        let base = self.next_seq(out.len());
        for (i, t) in out.iter_mut().enumerate() {
            if t.exp == Some(inv.exp) {
                t.seq = base.wrapping_add(i as u32);
            }
        }
        if let Some(first) = out.first_mut() {
            first.space = inv.name.space;
        }
        out
    }

    /// Applies the `##` before part `rhs` to the last token of `out`.
    fn paste_part(
        &mut self,
        out: &mut Vec<Token>,
        m: &Macro,
        rhs: usize,
        op: &Token,
        inv: &Invocation,
    ) {
        let Some(part) = m.body.get(rhs) else {
            return;
        };
        let (nparams, variadic) = match &m.shape {
            Shape::Function { params, variadic } => (params.len(), *variadic),
            _ => (0, false),
        };
        // GNU `, ## __VA_ARGS__`: the comma goes when the variadic argument was left out
        // (or is empty and the only parameter); otherwise `##` does nothing.
        let after_comma =
            rhs >= 2 && matches!(m.body.get(rhs - 2), Some(Part::Tok(t)) if t.is(","));
        if let Part::Param(idx, _) = part {
            if variadic && after_comma && *idx + 1 == nparams {
                let va = inv.arg(*idx);
                if va.is_empty() && (inv.va_omitted || nparams == 1) {
                    out.pop();
                }
                out.extend(va.iter().cloned());
                return;
            }
        }
        let rhs_toks = match part {
            Part::Tok(t) | Part::Paste(t) => vec![inv.body_token(t)],
            Part::Param(idx, _) => inv.arg(*idx).to_vec(),
            Part::Stringize(idx, hash) => vec![self.stringize(inv.arg(*idx), hash, inv)],
        };
        let mut rest = rhs_toks.into_iter();
        let Some(mut first) = rest.next() else {
            return; // x ## placemarker is x
        };
        match out.pop() {
            Some(lhs) if lhs.kind != Kind::Placemarker => self.paste(out, lhs, first, op, inv),
            lhs => {
                first.space = lhs.is_some_and(|l| l.space);
                out.push(first);
            }
        }
        out.extend(rest);
    }

    /// `lhs ## rhs`: one token, or both with gcc's error when they do not form one.
    fn paste(
        &mut self,
        out: &mut Vec<Token>,
        lhs: Token,
        rhs: Token,
        op: &Token,
        inv: &Invocation,
    ) {
        let text = format!("{}{}", lhs.text, rhs.text);
        match single_token(&text) {
            Some(kind) => out.push(Token {
                kind,
                text: Rc::from(text),
                ..inv.body_token(&lhs)
            }),
            None => {
                let msg = format!(
                    "pasting \"{}\" and \"{}\" does not give a valid preprocessing token",
                    lhs.text, rhs.text
                );
                let name = &inv.name.text;
                let d = Diagnostic::error(lhs.span, msg)
                    .with_label(op.span, format!("in definition of macro \"{name}\""));
                self.diags.push(d);
                out.push(lhs);
                out.push(rhs);
            }
        }
    }

    /// `#arg`: the argument's spelling as a string literal, whitespace runs as one space.
    fn stringize(&mut self, arg: &[Token], hash: &Token, inv: &Invocation) -> Token {
        let mut s = String::from("\"");
        for (i, t) in arg.iter().enumerate() {
            if i > 0 && t.space {
                s.push(' ');
            }
            let literal = matches!(t.kind, Kind::Str | Kind::Char)
                || (t.kind == Kind::Other && t.text.contains(['"', '\'']));
            if literal {
                escape_into(&mut s, &t.text);
            } else {
                s.push_str(&t.text);
            }
        }
        // An odd run of final backslashes would escape the closing quote: gcc drops one.
        if (s.len() - s.trim_end_matches('\\').len()) % 2 == 1 {
            s.pop();
            self.warning(inv.span, "invalid string literal, ignoring final '\\'");
        }
        s.push('"');
        Token {
            kind: Kind::Str,
            text: Rc::from(s),
            space: hash.space,
            ..inv.body_token(hash)
        }
    }

    /// `defined X` / `defined(X)` in an `#if` line, read without expanding the operand.
    fn defined_operator(&mut self, op: Token, barrier: Option<usize>) -> Token {
        let next = self.next_raw(barrier).map(|x| x.0);
        let paren = next.as_ref().is_some_and(|t| t.is("("));
        let operand = if paren {
            self.next_raw(barrier).map(|x| x.0)
        } else {
            next
        };
        let value = match operand {
            Some(id) if id.kind == Kind::Ident => {
                if paren && !self.next_raw(barrier).is_some_and(|(t, _)| t.is(")")) {
                    self.error(point_after(&id), "missing ')' after \"defined\"");
                }
                self.macros.contains_key(&id.text)
            }
            other => {
                let at = other.map_or(point_after(&op), |t| t.span);
                self.error(at, "operator \"defined\" requires an identifier");
                false
            }
        };
        Token {
            kind: Kind::Number,
            text: Rc::from(if value { "1" } else { "0" }),
            no_expand: false,
            exact: false,
            ..op
        }
    }
}
