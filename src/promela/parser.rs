//! Recursive-descent parser for SPIN 6 Promela, following spin's grammar (`spin.y`): the same
//! precedences, the same places where a name must already be a typedef, proctype or mtype
//! constant, and the same rejections (`!full(q)`, an unparenthesised `->` conditional). Embedded
//! C, `trace` and `return` get a "not supported" diagnostic instead of a parse error.
//!
//! One file, as `spin.y` is one grammar: declarations, statements and expressions call each
//! other at every level, and the parser's state (the known typedefs, proctypes and mtypes,
//! the ltl mode, the scope numbering) is shared by all of them.

use std::collections::HashSet;

use super::ast::*;
use super::diag::Diagnostic;
use super::source::Span;
use super::token::{Kw, Tok, Token, P};

pub struct Parser<'a> {
    toks: Vec<Token>,
    pos: usize,
    span_of: &'a dyn Fn(u32, u32) -> Span,
    pub diags: Vec<Diagnostic>,
    /// (index into `diags`, offset in the preprocessed text) for diagnostics at a token, so
    /// that the caller can say which macro expansion the token came from.
    pub offsets: Vec<(usize, u32)>,
    remote_labels: Vec<(String, String)>,
    typedefs: HashSet<String>,
    proctypes: HashSet<String>,
    mtypes: HashSet<String>,
    /// Inside an `ltl { }` formula: LTL operators are allowed.
    in_ltl: bool,
    /// Guards against stack overflow on absurdly nested input.
    depth: usize,
    /// Spin's block scopes: (first token index, prefix) at every `{` and `}`, in order.
    scopes: Vec<(usize, String)>,
}

const MAX_DEPTH: usize = 400;

/// Marker for "an error was reported; recover".
#[derive(Debug)]
pub struct Failed;
type PResult<T> = Result<T, Failed>;

fn is_type_kw(k: Kw) -> bool {
    matches!(
        k,
        Kw::Bit
            | Kw::Bool
            | Kw::Byte
            | Kw::Short
            | Kw::Int
            | Kw::Unsigned
            | Kw::Chan
            | Kw::Mtype
            | Kw::Pid
    )
}

impl<'a> Parser<'a> {
    /// Makes the names `model` declares known, as they are when its own units are parsed
    /// (for text parsed after it: the never claims of its `ltl` formulas).
    pub fn knowing(mut self, model: &crate::promela::ast::Model) -> Self {
        use crate::promela::ast::Unit;
        for u in &model.units {
            match u {
                Unit::Proctype(p) | Unit::Init(p) => {
                    self.proctypes.insert(p.name.clone());
                }
                Unit::Typedef(t) => {
                    self.typedefs.insert(t.name.clone());
                }
                Unit::Mtype(m) => self.mtypes.extend(m.names.iter().map(|(n, _)| n.clone())),
                _ => {}
            }
        }
        self
    }

    pub fn new(toks: Vec<Token>, span_of: &'a dyn Fn(u32, u32) -> Span) -> Self {
        Parser {
            toks,
            pos: 0,
            span_of,
            diags: Vec::new(),
            offsets: Vec::new(),
            remote_labels: Vec::new(),
            typedefs: HashSet::new(),
            proctypes: HashSet::new(),
            mtypes: HashSet::new(),
            in_ltl: false,
            depth: 0,
            scopes: Vec::new(),
        }
        .with_scopes()
    }

    /// Numbers the block scopes as spin's lexer does: each `{` counts at its depth over the
    /// whole model (after inline expansion, so an inline's body counts at every call), except
    /// inside `ltl` formulas, whose braces spin reads in another mode. A depth's count is
    /// never reset, so a name's prefix says where in the model its block stands.
    fn with_scopes(mut self) -> Self {
        let mut seq: Vec<u32> = Vec::new();
        let mut level = 0usize;
        let mut ltl: Option<usize> = None;
        let mut after_ltl_kw = false;
        for (i, t) in self.toks.iter().enumerate() {
            if let Some(d) = ltl.as_mut() {
                if t.is(P::LBrace) {
                    *d += 1;
                } else if t.is(P::RBrace) {
                    *d -= 1;
                    if *d == 0 {
                        ltl = None;
                    }
                }
                continue;
            }
            if t.is_kw(Kw::Ltl) {
                after_ltl_kw = true;
                continue;
            }
            if t.is(P::LBrace) {
                if after_ltl_kw {
                    after_ltl_kw = false;
                    ltl = Some(1);
                    continue;
                }
                if seq.len() <= level {
                    seq.resize(level + 1, 0);
                }
                seq[level] += 1;
                level += 1;
            } else if t.is(P::RBrace) {
                level = level.saturating_sub(1);
            } else {
                continue;
            }
            let mut prefix = String::from("_");
            for n in &seq[..level] {
                prefix.push_str(&n.to_string());
                prefix.push('_');
            }
            self.scopes.push((i + 1, prefix));
        }
        self
    }

    /// Spin's block-scope prefix at token `pos`.
    fn scope_at(&self, pos: usize) -> String {
        let i = self.scopes.partition_point(|(at, _)| *at <= pos);
        match i.checked_sub(1) {
            Some(i) => self.scopes[i].1.clone(),
            None => "_".into(),
        }
    }

    // ----- token access -----

    fn tok(&self) -> &Token {
        let i = self.pos.min(self.toks.len().saturating_sub(1));
        &self.toks[i]
    }

    fn peek_tok(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len().saturating_sub(1));
        &self.toks[i].tok
    }

    fn at(&self, p: P) -> bool {
        self.tok().is(p)
    }

    fn at_kw(&self, k: Kw) -> bool {
        self.tok().is_kw(k)
    }

    fn bump(&mut self) -> Token {
        let t = self.tok().clone();
        if self.pos < self.toks.len().saturating_sub(1) {
            self.pos += 1;
        }
        t
    }

    fn span(&self, t: &Token) -> Span {
        (self.span_of)(t.start, t.end)
    }

    /// Where spin's lexer stands once the parser has its next token: after a separator it
    /// has already read the token that follows it (its `yylex` looks one token ahead).
    /// When that token begins an inline's body, the lexer is still at the call's name.
    fn lookahead_span(&self) -> Span {
        let t = if self.at(P::Semi) || self.at(P::Arrow) {
            &self.toks[(self.pos + 1).min(self.toks.len() - 1)]
        } else {
            self.tok()
        };
        match t.call {
            Some((start, end)) => (self.span_of)(start, end),
            None => self.span(t),
        }
    }

    fn cur_span(&self) -> Span {
        self.span(self.tok())
    }

    /// Span from token `start_pos` through the last consumed token.
    fn span_from(&self, start_pos: usize) -> Span {
        let a = &self.toks[start_pos.min(self.toks.len() - 1)];
        let last = self
            .pos
            .saturating_sub(1)
            .max(start_pos)
            .min(self.toks.len() - 1);
        let b = &self.toks[last];
        (self.span_of)(a.start, b.end.max(a.start))
    }

    fn error_here(&mut self, msg: impl Into<String>) -> Failed {
        let sp = self.cur_span();
        self.diags.push(Diagnostic::error(sp, msg));
        self.offsets.push((self.diags.len() - 1, self.tok().start));
        Failed
    }

    fn expected(&mut self, what: &str) -> Failed {
        let saw = self.describe_current();
        self.error_here(format!("syntax error: expected {what}, saw {saw}"))
    }

    fn describe_current(&self) -> String {
        let t = self.tok();
        if t.implied {
            "an implied `;` (end of line)".to_string()
        } else {
            t.tok.to_string()
        }
    }

    fn expect(&mut self, p: P) -> PResult<Token> {
        if self.at(p) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("`{}`", p.as_str())))
        }
    }

    fn expect_kw(&mut self, k: Kw) -> PResult<Token> {
        if self.at_kw(k) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("`{}`", k.as_str())))
        }
    }

    fn expect_name(&mut self, what: &str) -> PResult<(String, Span)> {
        if let Tok::Name(n) = &self.tok().tok {
            let n = n.clone();
            let t = self.bump();
            Ok((n, self.span(&t)))
        } else {
            Err(self.expected(what))
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here("nesting too deep"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn unsupported(&mut self, what: &str, why: &str) -> Failed {
        let sp = self.cur_span();
        self.diags.push(
            Diagnostic::error(sp, format!("{what} is not supported")).with_note(why.to_string()),
        );
        self.offsets.push((self.diags.len() - 1, self.tok().start));
        Failed
    }

    /// Skips a `[ … ]` and/or `{ … }` group after an embedded-C keyword.
    fn skip_c_block(&mut self) {
        self.bump();
        while matches!(self.tok().tok, Tok::Str(_)) {
            self.bump();
        }
        for (o, c) in [(P::LBracket, P::RBracket), (P::LBrace, P::RBrace)] {
            if self.at(o) {
                let mut depth = 0usize;
                loop {
                    let t = self.bump();
                    if t.is(o) {
                        depth += 1;
                    } else if t.is(c) {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    } else if t.tok == Tok::Eof {
                        return;
                    }
                }
            }
        }
    }

    // ----- units -----

    pub fn parse_model(&mut self) -> Model {
        let mut model = Model::default();
        loop {
            let before = self.pos;
            match &self.tok().tok {
                Tok::Eof => break,
                Tok::P(P::Semi) | Tok::P(P::Arrow) => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            match self.unit() {
                Ok(Some(u)) => model.units.push(u),
                Ok(None) => {}
                Err(Failed) => self.recover_unit(before),
            }
        }
        model.remote_labels = std::mem::take(&mut self.remote_labels);
        model
    }

    /// Skips to the next token that can start a unit at brace depth 0.
    fn recover_unit(&mut self, before: usize) {
        if self.pos == before {
            self.bump();
        }
        let mut depth = 0i64;
        loop {
            let t = &self.tok().tok;
            match t {
                Tok::Eof => return,
                Tok::P(P::LBrace) => depth += 1,
                Tok::P(P::RBrace) => {
                    depth -= 1;
                    if depth <= 0 {
                        self.bump();
                        if depth < 0 {
                            continue;
                        }
                        return;
                    }
                }
                Tok::Kw(
                    Kw::Proctype
                    | Kw::Active
                    | Kw::Init
                    | Kw::Never
                    | Kw::Trace
                    | Kw::Notrace
                    | Kw::Typedef
                    | Kw::Ltl
                    | Kw::DProctype,
                ) if depth <= 0 => return,
                _ => {}
            }
            self.bump();
        }
    }

    fn unit(&mut self) -> PResult<Option<Unit>> {
        let t = self.tok().clone();
        match &t.tok {
            Tok::Kw(Kw::Active | Kw::Proctype | Kw::DProctype) => {
                Ok(Some(Unit::Proctype(self.proctype()?)))
            }
            Tok::Kw(Kw::Init) => {
                let start = self.pos;
                let kw = self.bump();
                let priority = self.opt_priority()?;
                let body = self.body()?;
                Ok(Some(Unit::Init(Proctype {
                    name: ":init:".into(),
                    name_span: self.span(&kw),
                    active: None,
                    d_proctype: false,
                    params: Vec::new(),
                    priority,
                    provided: None,
                    body,
                    span: self.span_from(start),
                })))
            }
            Tok::Kw(Kw::Never) => {
                let start = self.pos;
                self.bump();
                let name = match &self.tok().tok {
                    Tok::Name(n) => {
                        let n = n.clone();
                        self.bump();
                        Some(n)
                    }
                    _ => None,
                };
                let body = self.body()?;
                Ok(Some(Unit::Never(Claim {
                    name,
                    body,
                    span: self.span_from(start),
                })))
            }
            Tok::Kw(kw @ (Kw::Trace | Kw::Notrace)) => {
                let start = self.pos;
                let negated = *kw == Kw::Notrace;
                self.bump();
                let body = self.body()?;
                Ok(Some(Unit::Trace(TraceDecl {
                    negated,
                    body,
                    span: self.span_from(start),
                })))
            }
            Tok::Kw(Kw::Ltl) => Ok(Some(Unit::Ltl(self.ltl()?))),
            Tok::Kw(Kw::Typedef) => Ok(Some(Unit::Typedef(self.typedef()?))),
            Tok::Kw(Kw::CCode | Kw::CDecl | Kw::CState | Kw::CTrack | Kw::CExpr) => {
                let err = self.unsupported(
                    &format!(
                        "embedded C (`{}`)",
                        self.tok().tok.to_string().trim_matches('`')
                    ),
                    "git rmc interprets models itself and cannot run C code",
                );
                self.skip_c_block();
                Err(err)
            }
            Tok::Kw(Kw::Inline) => {
                // Definitions are removed before parsing; one left here is malformed.
                Err(self.expected("a declaration, proctype, init, never or ltl"))
            }
            _ if self.starts_decl() => {
                let start = self.pos;
                match self.one_decl(true)? {
                    DeclOrMtype::Decl(d) => Ok(Some(Unit::Decl(d))),
                    DeclOrMtype::Mtype(mut m) => {
                        m.span = self.span_from(start);
                        Ok(Some(Unit::Mtype(m)))
                    }
                }
            }
            _ => Err(self.expected("a declaration, proctype, init, never or ltl")),
        }
    }

    fn opt_priority(&mut self) -> PResult<Option<(i64, Span)>> {
        if !self.at_kw(Kw::Priority) {
            return Ok(None);
        }
        self.bump();
        match self.tok().tok {
            Tok::Const(v) | Tok::WordConst(_, v) => {
                let t = self.bump();
                Ok(Some((v, self.span(&t))))
            }
            _ => Err(self.expected("a constant priority")),
        }
    }

    fn proctype(&mut self) -> PResult<Proctype> {
        let start = self.pos;
        let mut active = None;
        if self.at_kw(Kw::Active) {
            let a = self.bump();
            if let Some(n) = self.opt_index()? {
                active = Some(*n);
            } else {
                active = Some(Expr {
                    kind: ExprKind::Const(1),
                    span: self.span(&a),
                });
            }
        }
        let d_proctype = self.at_kw(Kw::DProctype);
        if !(self.at_kw(Kw::Proctype) || d_proctype) {
            return Err(self.expected("`proctype`"));
        }
        self.bump();
        let (name, name_span) = match &self.tok().tok {
            Tok::Name(n) if self.proctypes.contains(n) => {
                let n = n.clone();
                return Err(self.error_here(format!("proctype {n} redeclared")));
            }
            _ => self.expect_name("a proctype name")?,
        };
        self.proctypes.insert(name.clone());
        self.expect(P::LParen)?;
        let mut params = Vec::new();
        while !self.at(P::RParen) {
            if !self.starts_decl() {
                return Err(self.expected("a parameter declaration or `)`"));
            }
            match self.one_decl(false)? {
                DeclOrMtype::Decl(d) => {
                    if d.vars.iter().any(|v| v.init.is_some()) {
                        self.diags
                            .push(Diagnostic::error(d.span, "initializer in parameter list"));
                    }
                    params.push(d)
                }
                DeclOrMtype::Mtype(m) => {
                    self.diags.push(Diagnostic::error(
                        m.span,
                        "mtype declaration must be global",
                    ));
                }
            }
            if self.at(P::Semi) || self.at(P::Arrow) {
                self.bump();
            } else if !self.at(P::RParen) {
                return Err(self.expected("`;` or `)`"));
            }
        }
        self.expect(P::RParen)?;
        let priority = self.opt_priority()?;
        let provided = if self.at_kw(Kw::Provided) {
            self.bump();
            self.expect(P::LParen)?;
            let e = self.full_expr()?;
            self.expect(P::RParen)?;
            Some(e)
        } else {
            None
        };
        let body = self.body()?;
        Ok(Proctype {
            name,
            name_span,
            active,
            d_proctype,
            params,
            priority,
            provided,
            body,
            span: self.span_from(start),
        })
    }

    fn ltl(&mut self) -> PResult<Ltl> {
        let start = self.pos;
        self.bump();
        let name = match &self.tok().tok {
            Tok::Name(n) => {
                let n = n.clone();
                self.bump();
                Some(n)
            }
            _ => None,
        };
        self.expect(P::LBrace)?;
        self.in_ltl = true;
        let f = self.full_expr();
        self.in_ltl = false;
        let formula = f?;
        if let Some(sp) = next_as_formula(&formula, true) {
            // spin 6.5.2's LTL translator is built without the next operator (it is not
            // stutter-invariant): `spin -a` refuses it where it stands for a formula. As
            // an operand of arithmetic or a comparison spin's parser folds it into a
            // constant before the translator sees it, and accepts the model.
            self.diags.push(Diagnostic::error(
                sp,
                "the next operator `X` is not accepted by spin's LTL translator (spin: \
                 \"tl_spin: expected predicate, saw 'X'\"); rewrite the formula without it",
            ));
            return Err(Failed);
        }
        if self.at(P::Semi) {
            self.bump();
        }
        self.expect(P::RBrace)?;
        Ok(Ltl {
            name,
            formula,
            span: self.span_from(start),
        })
    }

    fn typedef(&mut self) -> PResult<Typedef> {
        let start = self.pos;
        self.bump();
        let (name, _) = self.expect_name("a type name")?;
        self.expect(P::LBrace)?;
        let mut fields = Vec::new();
        loop {
            if !self.starts_decl() {
                return Err(self.expected("a field declaration"));
            }
            match self.one_decl(false)? {
                DeclOrMtype::Decl(d) => fields.push(d),
                DeclOrMtype::Mtype(m) => self.diags.push(Diagnostic::error(
                    m.span,
                    "mtype declaration must be global",
                )),
            }
            while self.at(P::Semi) || self.at(P::Arrow) {
                self.bump();
            }
            if self.at(P::RBrace) {
                break;
            }
        }
        self.expect(P::RBrace)?;
        self.typedefs.insert(name.clone());
        Ok(Typedef {
            name,
            span: self.span_from(start),
            fields,
        })
    }

    // ----- declarations -----

    fn starts_decl(&self) -> bool {
        match &self.tok().tok {
            Tok::Kw(Kw::Hidden | Kw::Show | Kw::Local) => true,
            Tok::Kw(k) => is_type_kw(*k),
            Tok::Name(n) => self.typedefs.contains(n),
            _ => false,
        }
    }

    fn one_decl(&mut self, global: bool) -> PResult<DeclOrMtype> {
        let start = self.pos;
        let vis = match self.tok().tok {
            Tok::Kw(Kw::Hidden) => {
                self.bump();
                Visibility::Hidden
            }
            Tok::Kw(Kw::Show) => {
                self.bump();
                Visibility::Show
            }
            Tok::Kw(Kw::Local) => {
                self.bump();
                Visibility::Local
            }
            _ => Visibility::Default,
        };
        let ty_tok = self.bump();
        let ty_span = self.span(&ty_tok);
        let ty = match &ty_tok.tok {
            Tok::Kw(Kw::Bit) => TypeName::Bit,
            Tok::Kw(Kw::Bool) => TypeName::Bool,
            Tok::Kw(Kw::Byte) => TypeName::Byte,
            Tok::Kw(Kw::Pid) => TypeName::Pid,
            Tok::Kw(Kw::Short) => TypeName::Short,
            Tok::Kw(Kw::Int) => TypeName::Int,
            Tok::Kw(Kw::Unsigned) => TypeName::Unsigned,
            Tok::Kw(Kw::Chan) => TypeName::Chan,
            Tok::Kw(Kw::Mtype) => {
                // mtype declarations: `mtype = {…}`, `mtype {…}`, `mtype : n = {…}`.
                if self.at(P::Assign) || self.at(P::LBrace) {
                    return self.mtype_decl(start, None, global);
                }
                if self.at(P::Colon) {
                    self.bump();
                    let (sub, _) = self.expect_name("an mtype name")?;
                    if self.at(P::Assign) || self.at(P::LBrace) {
                        return self.mtype_decl(start, Some(sub), global);
                    }
                    TypeName::Mtype(Some(sub))
                } else {
                    TypeName::Mtype(None)
                }
            }
            Tok::Name(n) if self.typedefs.contains(n) => TypeName::Named(n.clone()),
            _ => {
                self.pos -= 1;
                return Err(self.expected("a type"));
            }
        };
        let mut vars = Vec::new();
        loop {
            vars.push(self.ivar(&ty)?);
            if self.at(P::Comma) {
                self.bump();
                continue;
            }
            break;
        }
        Ok(DeclOrMtype::Decl(Decl {
            vis,
            ty,
            ty_span,
            vars,
            span: self.span_from(start),
            scope: self.scope_at(start),
        }))
    }

    fn mtype_decl(
        &mut self,
        start: usize,
        subtype: Option<String>,
        global: bool,
    ) -> PResult<DeclOrMtype> {
        if self.at(P::Assign) {
            self.bump();
        }
        self.expect(P::LBrace)?;
        let mut names = Vec::new();
        while !self.at(P::RBrace) {
            if self.at(P::Comma) {
                self.bump();
                continue;
            }
            match &self.tok().tok {
                Tok::Name(n) if !self.mtypes.contains(n) => {
                    let n = n.clone();
                    let t = self.bump();
                    self.mtypes.insert(n.clone());
                    names.push((n, self.span(&t)));
                }
                Tok::Name(_) => {
                    self.bump();
                }
                _ => return Err(self.expected("an mtype name")),
            }
        }
        self.expect(P::RBrace)?;
        let span = self.span_from(start);
        if !global {
            self.diags
                .push(Diagnostic::error(span, "mtype declaration must be global"));
        }
        Ok(DeclOrMtype::Mtype(MtypeDecl {
            subtype,
            names,
            span,
        }))
    }

    fn ivar(&mut self, ty: &TypeName) -> PResult<VarDecl> {
        let (name, span) = match &self.tok().tok {
            Tok::Name(n) if self.mtypes.contains(n) => {
                let n = n.clone();
                return Err(self.error_here(format!(
                    "syntax error: `{n}` is an mtype constant, expected a variable name"
                )));
            }
            Tok::Name(n) if self.proctypes.contains(n) => {
                let n = n.clone();
                return Err(self.error_here(format!(
                    "syntax error: `{n}` is a proctype name, expected a variable name"
                )));
            }
            _ => self.expect_name("a variable name")?,
        };
        let mut v = VarDecl {
            name,
            span,
            array: None,
            bits: None,
            init: None,
            after: span,
        };
        if self.at(P::Colon) {
            self.bump();
            match self.tok().tok {
                Tok::Const(b) => {
                    let t = self.bump();
                    v.bits = Some((b, self.span(&t)));
                }
                _ => return Err(self.expected("a bit width")),
            }
        } else if let Some(n) = self.opt_index()? {
            v.array = Some(*n);
        }
        if self.at(P::Assign) {
            self.bump();
            if self.at(P::LBrace) {
                self.bump();
                let mut list = Vec::new();
                loop {
                    list.push(self.expr()?);
                    if self.at(P::Comma) {
                        self.bump();
                        continue;
                    }
                    break;
                }
                self.expect(P::RBrace)?;
                v.init = Some(Init::List(list));
            } else if self.at(P::LBracket) && *ty == TypeName::Chan {
                v.init = Some(Init::Chan(self.chan_init()?));
            } else {
                v.init = Some(Init::Expr(self.full_expr()?));
            }
        }
        v.after = self.lookahead_span();
        Ok(v)
    }

    fn chan_init(&mut self) -> PResult<ChanInit> {
        let start = self.pos;
        self.expect(P::LBracket)?;
        let capacity = self.expr()?;
        self.expect(P::RBracket)?;
        self.expect_kw(Kw::Of)?;
        self.expect(P::LBrace)?;
        let mut fields = Vec::new();
        loop {
            let t = self.bump();
            let sp = self.span(&t);
            let ty = match &t.tok {
                Tok::Kw(Kw::Bit) => TypeName::Bit,
                Tok::Kw(Kw::Bool) => TypeName::Bool,
                Tok::Kw(Kw::Byte) => TypeName::Byte,
                Tok::Kw(Kw::Pid) => TypeName::Pid,
                Tok::Kw(Kw::Short) => TypeName::Short,
                Tok::Kw(Kw::Int) => TypeName::Int,
                Tok::Kw(Kw::Chan) => TypeName::Chan,
                Tok::Kw(Kw::Unsigned) => {
                    self.diags.push(Diagnostic::error(
                        sp,
                        "unsigned cannot be used as mesg type",
                    ));
                    TypeName::Unsigned
                }
                Tok::Kw(Kw::Mtype) => {
                    if self.at(P::Colon) {
                        self.bump();
                        let (n, _) = self.expect_name("an mtype name")?;
                        TypeName::Mtype(Some(n))
                    } else {
                        TypeName::Mtype(None)
                    }
                }
                Tok::Name(n) if self.typedefs.contains(n) => TypeName::Named(n.clone()),
                _ => {
                    self.pos -= 1;
                    return Err(self.expected("a message field type"));
                }
            };
            fields.push((ty, sp));
            if self.at(P::Comma) {
                self.bump();
                continue;
            }
            break;
        }
        self.expect(P::RBrace)?;
        Ok(ChanInit {
            capacity,
            fields,
            span: self.span_from(start),
        })
    }

    // ----- sequences and statements -----

    fn body(&mut self) -> PResult<Sequence> {
        let start = self.pos;
        self.expect(P::LBrace)?;
        let seq = self.sequence();
        let mut seq = self.closed(seq, |p| p.at(P::RBrace))?;
        self.expect(P::RBrace)?;
        seq.span = self.span_from(start);
        Ok(seq)
    }

    /// After a part that failed (and reported its error), takes its closing token when it
    /// is there, so that parsing goes on after the enclosing statement rather than skipping
    /// the rest of the body.
    fn closed<T>(&mut self, part: PResult<T>, at_close: impl Fn(&Self) -> bool) -> PResult<T> {
        if part.is_err() && at_close(self) {
            self.bump();
        }
        part
    }

    fn at_seq_end(&self) -> bool {
        matches!(
            self.tok().tok,
            Tok::P(P::RBrace) | Tok::P(P::Sep) | Tok::Kw(Kw::Fi) | Tok::Kw(Kw::Od) | Tok::Eof
        )
    }

    fn at_unit_start(&self) -> bool {
        matches!(
            self.tok().tok,
            Tok::Kw(
                Kw::Proctype
                    | Kw::Init
                    | Kw::Never
                    | Kw::Trace
                    | Kw::Notrace
                    | Kw::Active
                    | Kw::Typedef
                    | Kw::DProctype
            )
        )
    }

    fn is_sep(&self) -> bool {
        self.at(P::Semi) || self.at(P::Arrow)
    }

    /// `step (sep+ step)* sep?`, recovering from errors at statement level.
    fn sequence(&mut self) -> PResult<Sequence> {
        let start = self.pos;
        let mut steps = Vec::new();
        let mut failed = false;
        if self.is_sep() {
            // spin: "syntax error statement separator"
            return Err(self.expected("a statement"));
        }
        loop {
            let before = self.pos;
            if self.at_unit_start() {
                if !failed {
                    self.expected("`}`");
                }
                return Err(Failed);
            }
            match self.step() {
                Ok(s) => steps.push(s),
                Err(Failed) => {
                    failed = true;
                    self.recover_stmt();
                }
            }
            if self.is_sep() {
                while self.is_sep() {
                    self.bump();
                }
                if self.at_seq_end() {
                    break;
                }
                continue;
            }
            if self.at_seq_end() {
                break;
            }
            if !failed {
                self.expected("`;` or `->` between statements");
                failed = true;
            }
            self.recover_stmt();
            if self.at_seq_end() || self.pos == before {
                break;
            }
        }
        if failed {
            return Err(Failed);
        }
        Ok(Sequence {
            steps,
            span: self.span_from(start),
        })
    }

    /// Skips to the next separator or sequence end at this nesting level.
    fn recover_stmt(&mut self) {
        let mut depth = 0i64;
        loop {
            match &self.tok().tok {
                Tok::Eof => return,
                Tok::P(P::LBrace) | Tok::Kw(Kw::If) | Tok::Kw(Kw::Do) => depth += 1,
                Tok::P(P::RBrace) | Tok::Kw(Kw::Fi) | Tok::Kw(Kw::Od) => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                }
                Tok::P(P::Semi) | Tok::P(P::Arrow) | Tok::P(P::Sep) if depth == 0 => return,
                Tok::Kw(Kw::Proctype | Kw::Init | Kw::Never | Kw::Active | Kw::Typedef) => return,
                _ => {}
            }
            self.bump();
        }
    }

    fn step(&mut self) -> PResult<Step> {
        let start = self.pos;
        if self.starts_decl() {
            return match self.one_decl(false)? {
                DeclOrMtype::Decl(d) => Ok(Step {
                    labels: Vec::new(),
                    span: d.span,
                    kind: StepKind::Decl(d),
                }),
                DeclOrMtype::Mtype(m) => Ok(Step {
                    labels: Vec::new(),
                    span: m.span,
                    kind: StepKind::Stmt(Stmt {
                        kind: StmtKind::Skip,
                        span: m.span,
                    }),
                }),
            };
        }
        if self.at_kw(Kw::Xr) || self.at_kw(Kw::Xs) {
            let send = self.at_kw(Kw::Xs);
            self.bump();
            let mut chans = vec![self.varref()?];
            while self.at(P::Comma) {
                self.bump();
                chans.push(self.varref()?);
            }
            return Ok(Step {
                labels: Vec::new(),
                kind: StepKind::Xu { send, chans },
                span: self.span_from(start),
            });
        }
        // Labels: `L: stmt`, several allowed.
        let mut labels = Vec::new();
        while let (Tok::Name(n), Tok::P(P::Colon)) = (&self.tok().tok, self.peek_tok(1)) {
            if self.proctypes.contains(n) {
                break; // `P:var` remote reference
            }
            let n = n.clone();
            let t = self.bump();
            labels.push((n, self.span(&t)));
            self.bump();
            if self.starts_decl() {
                return Err(self.error_here("label preceding declaration"));
            }
            if self.at_kw(Kw::Xr) || self.at_kw(Kw::Xs) {
                return Err(self.error_here("label preceding xr/xs claim"));
            }
        }
        if !labels.is_empty() && !self.starts_stmt() {
            let sp = self.lookahead_span();
            return Ok(Step {
                labels,
                kind: StepKind::Stmt(Stmt {
                    kind: StmtKind::Skip,
                    span: sp,
                }),
                span: self.span_from(start),
            });
        }
        let stmt = self.stmt()?;
        let kind = if self.at_kw(Kw::Unless) {
            self.bump();
            let esc = self.stmt()?;
            StepKind::Unless(Box::new(stmt), Box::new(esc))
        } else {
            StepKind::Stmt(stmt)
        };
        Ok(Step {
            labels,
            kind,
            span: self.span_from(start),
        })
    }

    fn starts_stmt(&self) -> bool {
        !matches!(
            self.tok().tok,
            Tok::P(P::RBrace | P::Semi | P::Arrow | P::Sep | P::RParen | P::RBracket)
                | Tok::Kw(Kw::Fi | Kw::Od | Kw::Unless)
                | Tok::Eof
        )
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let start = self.pos;
        let kind = match self.tok().tok.clone() {
            Tok::Kw(Kw::If) => {
                self.bump();
                let opts = self.options();
                let opts = self.closed(opts, |p| p.at_kw(Kw::Fi))?;
                self.expect_kw(Kw::Fi)?;
                StmtKind::If(opts, self.lookahead_span())
            }
            Tok::Kw(Kw::Do) => {
                self.bump();
                let opts = self.options();
                let opts = self.closed(opts, |p| p.at_kw(Kw::Od))?;
                self.expect_kw(Kw::Od)?;
                StmtKind::Do(opts, self.lookahead_span())
            }
            Tok::Kw(Kw::Break) => {
                self.bump();
                StmtKind::Break
            }
            Tok::Kw(Kw::Goto) => {
                self.bump();
                let (l, sp) = self.expect_name("a label name")?;
                StmtKind::Goto(l, sp)
            }
            Tok::Kw(Kw::Else) => {
                self.bump();
                StmtKind::Else
            }
            Tok::Kw(Kw::Atomic) => {
                self.bump();
                StmtKind::Atomic(self.body()?)
            }
            Tok::Kw(Kw::DStep) => {
                self.bump();
                StmtKind::DStep(self.body()?)
            }
            Tok::P(P::LBrace) => StmtKind::Block(self.body()?),
            Tok::Kw(Kw::Assert) => {
                self.bump();
                StmtKind::Assert(self.full_expr()?)
            }
            Tok::Kw(Kw::Printf) => {
                self.bump();
                self.expect(P::LParen)?;
                let fmt = match &self.tok().tok {
                    Tok::Str(s) => s.clone(),
                    _ => return Err(self.expected("a format string")),
                };
                self.bump();
                let mut args = Vec::new();
                while self.at(P::Comma) {
                    self.bump();
                    args.push(self.expr()?);
                }
                self.expect(P::RParen)?;
                StmtKind::Printf(fmt, args)
            }
            Tok::Kw(Kw::Printm) => {
                self.bump();
                self.expect(P::LParen)?;
                let e = self.expr()?;
                self.expect(P::RParen)?;
                StmtKind::Printm(e)
            }
            Tok::Kw(Kw::SetPriority) => {
                self.bump();
                self.expect(P::LParen)?;
                let a = self.expr()?;
                self.expect(P::Comma)?;
                let b = self.expr()?;
                self.expect(P::RParen)?;
                StmtKind::SetPriority(a, b)
            }
            Tok::Kw(Kw::For) => self.for_stmt()?,
            Tok::Kw(Kw::Select) => {
                let lexed = !self.tok().from_inline;
                self.bump();
                self.expect(P::LParen)?;
                let var = self.varref()?;
                self.expect(P::Colon)?;
                let from = self.expr()?;
                self.expect(P::DotDot)?;
                let to = self.expr()?;
                self.expect(P::RParen)?;
                StmtKind::Select {
                    var,
                    from,
                    to,
                    lexed,
                }
            }
            Tok::Kw(Kw::CCode | Kw::CExpr | Kw::CDecl | Kw::CState | Kw::CTrack) => {
                let err = self.unsupported(
                    &format!("embedded C ({})", self.tok().tok),
                    "git rmc interprets models itself and cannot run C code",
                );
                self.skip_c_block();
                return Err(err);
            }
            Tok::Kw(Kw::Return) => return Err(self.unsupported(
                "`return`",
                "inline functions with return values are not part of SPIN's documented language",
            )),
            // spin's lexer makes an mtype name a constant: `red = 1` is a syntax error.
            Tok::Name(ref n) if !self.proctypes.contains(n) && !self.mtypes.contains(n) => {
                self.name_stmt()?
            }
            _ => StmtKind::Expr(self.full_expr()?),
        };
        Ok(Stmt {
            kind,
            span: self.span_from(start),
        })
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect(P::LParen)?;
        let var = self.varref()?;
        let kind_in = matches!(&self.tok().tok, Tok::Name(n) if n == "in");
        let r = if kind_in {
            self.bump();
            let array = self.varref()?;
            self.expect(P::RParen)?;
            (None, Some(array))
        } else {
            self.expect(P::Colon)?;
            let from = self.expr()?;
            self.expect(P::DotDot)?;
            let to = self.expr()?;
            self.expect(P::RParen)?;
            (Some((from, to)), None)
        };
        if self.at(P::Semi) {
            self.bump();
        }
        let body = self.body()?;
        Ok(match r {
            (Some((from, to)), _) => StmtKind::ForRange {
                var,
                from,
                to,
                body,
            },
            (None, Some(array)) => StmtKind::ForIn { var, array, body },
            _ => unreachable!("for has a range or an array"),
        })
    }

    /// A statement starting with a name: assignment, `++`/`--`, send, receive, or an
    /// expression (re-parsed from the start).
    fn name_stmt(&mut self) -> PResult<StmtKind> {
        let start = self.pos;
        let var = self.varref()?;
        match self.tok().tok {
            Tok::P(P::Assign) => {
                self.bump();
                Ok(StmtKind::Assign(var, self.full_expr()?))
            }
            Tok::P(P::Incr) => {
                self.bump();
                Ok(StmtKind::Incr(var))
            }
            Tok::P(P::Decr) => {
                self.bump();
                Ok(StmtKind::Decr(var))
            }
            Tok::P(P::Bang) | Tok::P(P::BangBang) => {
                let sorted = self.at(P::BangBang);
                self.bump();
                let args = self.send_args()?;
                Ok(StmtKind::Send {
                    chan: var,
                    args,
                    sorted,
                })
            }
            Tok::P(P::Quest) | Tok::P(P::QuestQuest)
                if !matches!(self.peek_tok(1), Tok::P(P::LBracket)) =>
            {
                let random = self.at(P::QuestQuest);
                self.bump();
                let copy = self.at(P::Lt);
                if copy {
                    self.bump();
                }
                let args = self.recv_args()?;
                if copy {
                    self.expect(P::Gt)?;
                }
                Ok(StmtKind::Recv {
                    chan: var,
                    args,
                    random,
                    copy,
                })
            }
            _ => {
                self.pos = start;
                Ok(StmtKind::Expr(self.full_expr()?))
            }
        }
    }

    fn send_args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = vec![self.expr()?];
        if self.at(P::LParen) {
            // `q!a(b, c)`: the first field, then the rest in parentheses.
            self.bump();
            args.push(self.expr()?);
            while self.at(P::Comma) {
                self.bump();
                args.push(self.expr()?);
            }
            self.expect(P::RParen)?;
            return Ok(args);
        }
        while self.at(P::Comma) {
            self.bump();
            args.push(self.expr()?);
        }
        Ok(args)
    }

    fn recv_args(&mut self) -> PResult<Vec<RecvArg>> {
        let mut args = Vec::new();
        self.recv_arg_list(&mut args)?;
        Ok(args)
    }

    fn recv_arg_list(&mut self, args: &mut Vec<RecvArg>) -> PResult<()> {
        self.enter()?;
        let r = (|| {
            if self.at(P::LParen) {
                self.bump();
                self.recv_arg_list(args)?;
                self.expect(P::RParen)?;
                return Ok(());
            }
            loop {
                args.push(self.recv_arg()?);
                if self.at(P::LParen) {
                    self.bump();
                    self.recv_arg_list(args)?;
                    self.expect(P::RParen)?;
                    return Ok(());
                }
                if self.at(P::Comma) {
                    self.bump();
                    continue;
                }
                return Ok(());
            }
        })();
        self.leave();
        r
    }

    fn recv_arg(&mut self) -> PResult<RecvArg> {
        let t = self.tok().clone();
        match t.tok {
            Tok::Kw(Kw::Eval) => {
                self.bump();
                self.expect(P::LParen)?;
                let e = self.expr()?;
                self.expect(P::RParen)?;
                Ok(RecvArg::Eval(e))
            }
            Tok::Const(v) | Tok::WordConst(_, v) => {
                self.bump();
                Ok(RecvArg::Const(Expr {
                    kind: ExprKind::Const(v),
                    span: self.span(&t),
                }))
            }
            Tok::P(P::Minus) => {
                self.bump();
                match self.tok().tok {
                    Tok::Const(v) => {
                        let c = self.bump();
                        Ok(RecvArg::Const(Expr {
                            kind: ExprKind::Const(-v),
                            span: self.span(&t).to(self.span(&c)),
                        }))
                    }
                    _ => Err(self.expected("a constant")),
                }
            }
            Tok::Name(_) => Ok(RecvArg::Var(self.varref()?)),
            _ => Err(self.expected("a variable, constant or eval() in a receive")),
        }
    }

    fn options(&mut self) -> PResult<Vec<Sequence>> {
        let mut opts = Vec::new();
        if !self.at(P::Sep) {
            return Err(self.expected("`::`"));
        }
        let mut failed = false;
        while self.at(P::Sep) {
            self.bump();
            match self.sequence() {
                Ok(s) => opts.push(s),
                Err(Failed) => failed = true,
            }
        }
        if failed {
            return Err(Failed);
        }
        Ok(opts)
    }

    // ----- expressions -----

    /// An optional `[ expr ]` (array size, index, `active [n]`, process index).
    fn opt_index(&mut self) -> PResult<Option<Box<Expr>>> {
        if !self.at(P::LBracket) {
            return Ok(None);
        }
        self.bump();
        let e = self.expr()?;
        self.expect(P::RBracket)?;
        Ok(Some(Box::new(e)))
    }

    fn varref(&mut self) -> PResult<VarRef> {
        self.enter()?;
        let r = self.varref_inner();
        self.leave();
        r
    }

    fn varref_inner(&mut self) -> PResult<VarRef> {
        let (name, span) = self.expect_name("a variable name")?;
        let mut v = VarRef {
            name,
            span,
            index: None,
            field: None,
        };
        v.index = self.opt_index()?;
        if self.at(P::Dot) {
            self.bump();
            v.field = Some(Box::new(self.varref()?));
        }
        Ok(v)
    }

    /// `full_expr`: an expression, where channel probes may stand alone or be combined by
    /// `&&`/`||` but not negated or computed with (spin's `Expr` vs `expr`).
    pub fn full_expr(&mut self) -> PResult<Expr> {
        let e = self.expr()?;
        self.check_probes(&e, true);
        Ok(e)
    }

    fn check_probes(&mut self, e: &Expr, allowed: bool) {
        match &e.kind {
            ExprKind::Probe(p, _) if !allowed => {
                self.diags.push(Diagnostic::error(
                    e.span,
                    format!(
                        "syntax error: `{}` cannot be negated or used in arithmetic (spin allows only && and || on channel probes)",
                        p.as_str()
                    ),
                ));
            }
            ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => {
                self.check_probes(a, allowed);
                self.check_probes(b, allowed);
            }
            ExprKind::Binary(_, a, b) => {
                self.check_probes(a, false);
                self.check_probes(b, false);
            }
            ExprKind::Unary(_, a)
            | ExprKind::Enabled(a)
            | ExprKind::GetPriority(a)
            | ExprKind::PcValue(a) => self.check_probes(a, false),
            ExprKind::Cond(a, b, c) => {
                self.check_probes(a, false);
                self.check_probes(b, false);
                self.check_probes(c, false);
            }
            _ => {}
        }
    }

    pub fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.binary(0);
        self.leave();
        r
    }

    /// Binary operators by spin's precedence, lowest first.
    fn binop_at(&self, level: usize) -> Option<BinOp> {
        let t = &self.tok().tok;
        let ltl = self.in_ltl;
        match (level, t) {
            (0, Tok::P(P::Implies)) if ltl => Some(BinOp::Implies),
            (0, Tok::P(P::Equiv)) if ltl => Some(BinOp::Equiv),
            (0, Tok::Name(n)) if ltl && n == "implies" => Some(BinOp::Implies),
            (0, Tok::Name(n)) if ltl && n == "equivalent" => Some(BinOp::Equiv),
            (1, Tok::P(P::OrOr)) => Some(BinOp::Or),
            (1, Tok::P(P::LtlOr)) if ltl => Some(BinOp::Or),
            (2, Tok::P(P::AndAnd)) => Some(BinOp::And),
            (2, Tok::P(P::LtlAnd)) if ltl => Some(BinOp::And),
            (3, Tok::Name(n)) if ltl => match n.as_str() {
                "U" | "until" | "stronguntil" => Some(BinOp::Until),
                "W" | "weakuntil" => Some(BinOp::WeakUntil),
                "V" | "release" => Some(BinOp::Release),
                _ => None,
            },
            (4, Tok::P(P::Pipe)) => Some(BinOp::BitOr),
            (5, Tok::P(P::Caret)) => Some(BinOp::BitXor),
            (6, Tok::P(P::Amp)) => Some(BinOp::BitAnd),
            (7, Tok::P(P::Eq)) => Some(BinOp::Eq),
            (7, Tok::P(P::Ne)) => Some(BinOp::Ne),
            (8, Tok::P(P::Lt)) => Some(BinOp::Lt),
            (8, Tok::P(P::Le)) => Some(BinOp::Le),
            (8, Tok::P(P::Gt)) => Some(BinOp::Gt),
            (8, Tok::P(P::Ge)) => Some(BinOp::Ge),
            (9, Tok::P(P::Shl)) => Some(BinOp::Shl),
            (9, Tok::P(P::Shr)) => Some(BinOp::Shr),
            (10, Tok::P(P::Plus)) => Some(BinOp::Add),
            (10, Tok::P(P::Minus)) => Some(BinOp::Sub),
            (11, Tok::P(P::Star)) => Some(BinOp::Mul),
            (11, Tok::P(P::Slash)) => Some(BinOp::Div),
            (11, Tok::P(P::Percent)) => Some(BinOp::Mod),
            _ => None,
        }
    }

    fn binary(&mut self, level: usize) -> PResult<Expr> {
        if level > 11 {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        while let Some(op) = self.binop_at(level) {
            self.bump();
            let rhs = self.binary(level + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let t = self.tok().clone();
        let sp = self.span(&t);
        let op = match &t.tok {
            Tok::P(P::Minus) => Some(UnOp::Neg),
            Tok::P(P::Bang) => Some(UnOp::Not),
            Tok::P(P::Tilde) => Some(UnOp::BitNot),
            Tok::P(P::Always) if self.in_ltl => Some(UnOp::Always),
            Tok::P(P::Eventually) if self.in_ltl => Some(UnOp::Eventually),
            Tok::Name(n) if self.in_ltl => match n.as_str() {
                "X" | "next" => Some(UnOp::Next),
                "always" => Some(UnOp::Always),
                "eventually" => Some(UnOp::Eventually),
                _ => None,
            },
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let e = self.unary()?;
            if op == UnOp::Not {
                if let ExprKind::Probe(p, _) = e.kind {
                    return Err(self.probe_negated(sp, p));
                }
            }
            let span = sp.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                span,
            });
        }
        self.primary()
    }

    fn probe_negated(&mut self, sp: Span, p: ChanProbe) -> Failed {
        self.diags.push(Diagnostic::error(
            sp,
            format!(
                "syntax error: `!{}(…)` is not allowed in Promela; use `{}` instead",
                p.as_str(),
                match p {
                    ChanProbe::Full => "nfull",
                    ChanProbe::Nfull => "full",
                    ChanProbe::Empty => "nempty",
                    ChanProbe::Nempty => "empty",
                }
            ),
        ));
        Failed
    }

    fn paren_expr(&mut self) -> PResult<Expr> {
        self.expect(P::LParen)?;
        let e = self.expr()?;
        self.expect(P::RParen)?;
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let t = self.tok().clone();
        let sp = self.span(&t);
        let kind = match &t.tok {
            Tok::Const(v) | Tok::WordConst(_, v) => {
                self.bump();
                ExprKind::Const(*v)
            }
            Tok::P(P::LParen) => {
                self.bump();
                let e = self.expr()?;
                if self.at(P::Arrow) && !self.in_ltl {
                    self.bump();
                    let a = self.expr()?;
                    self.expect(P::Colon)?;
                    let b = self.expr()?;
                    self.expect(P::RParen)?;
                    ExprKind::Cond(Box::new(e), Box::new(a), Box::new(b))
                } else {
                    self.expect(P::RParen)?;
                    // Parentheses allow probes again (spin: `l_par Expr r_par`).
                    return Ok(Expr {
                        kind: e.kind,
                        span: self.span_from(start),
                    });
                }
            }
            Tok::Kw(Kw::Run) => {
                self.bump();
                let (proc, proc_span) = self.expect_name("a proctype name after `run`")?;
                self.expect(P::LParen)?;
                let mut args = Vec::new();
                if !self.at(P::RParen) {
                    args.push(self.expr()?);
                    while self.at(P::Comma) {
                        self.bump();
                        args.push(self.expr()?);
                    }
                }
                self.expect(P::RParen)?;
                let priority = self.opt_priority()?.map(|p| p.0);
                ExprKind::Run {
                    proc,
                    proc_span,
                    args,
                    priority,
                }
            }
            Tok::Kw(Kw::Len) => {
                self.bump();
                self.expect(P::LParen)?;
                let v = self.varref()?;
                self.expect(P::RParen)?;
                ExprKind::Len(v)
            }
            Tok::Kw(k @ (Kw::Full | Kw::Nfull | Kw::Empty | Kw::Nempty)) => {
                let p = match k {
                    Kw::Full => ChanProbe::Full,
                    Kw::Nfull => ChanProbe::Nfull,
                    Kw::Empty => ChanProbe::Empty,
                    _ => ChanProbe::Nempty,
                };
                self.bump();
                self.expect(P::LParen)?;
                let v = self.varref()?;
                self.expect(P::RParen)?;
                ExprKind::Probe(p, v)
            }
            Tok::Kw(Kw::Enabled) => {
                self.bump();
                ExprKind::Enabled(Box::new(self.paren_expr()?))
            }
            Tok::Kw(Kw::GetPriority) => {
                self.bump();
                ExprKind::GetPriority(Box::new(self.paren_expr()?))
            }
            Tok::Kw(Kw::PcValue) => {
                self.bump();
                ExprKind::PcValue(Box::new(self.paren_expr()?))
            }
            Tok::Kw(Kw::Timeout) => {
                self.bump();
                ExprKind::Timeout
            }
            Tok::Kw(Kw::Np) => {
                self.bump();
                ExprKind::Np
            }
            Tok::Kw(Kw::CExpr) => {
                let err = self.unsupported(
                    "embedded C (`c_expr`)",
                    "git rmc interprets models itself and cannot run C code",
                );
                self.skip_c_block();
                return Err(err);
            }
            Tok::Name(n) if self.proctypes.contains(n) => self.remote_ref()?,
            // spin reads an ltl formula once the whole model is read, so it may name a
            // proctype declared further down.
            Tok::Name(_) if self.in_ltl && self.names_remote() => self.remote_ref()?,
            Tok::Name(_) => {
                let v = self.varref()?;
                if (self.at(P::Quest) || self.at(P::QuestQuest))
                    && matches!(self.peek_tok(1), Tok::P(P::LBracket))
                {
                    let random = self.at(P::QuestQuest);
                    self.bump();
                    self.bump();
                    let args = self.recv_args()?;
                    self.expect(P::RBracket)?;
                    ExprKind::Poll {
                        chan: v,
                        args,
                        random,
                    }
                } else {
                    ExprKind::Var(v)
                }
            }
            Tok::Str(_) => return Err(self.expected("an expression (strings only go in printf)")),
            _ => return Err(self.expected("an expression")),
        };
        Ok(Expr {
            kind,
            span: self.span_from(start).to(sp),
        })
    }

    /// Whether the name at hand starts a remote reference: `@` or `:` follows it, or its
    /// index.
    fn names_remote(&self) -> bool {
        let mut k = 1;
        if matches!(self.peek_tok(k), Tok::P(P::LBracket)) {
            let mut depth = 0usize;
            loop {
                match self.peek_tok(k) {
                    Tok::P(P::LBracket) => depth += 1,
                    Tok::P(P::RBracket) => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Eof => return false,
                    _ => {}
                }
                k += 1;
            }
            k += 1;
        }
        matches!(self.peek_tok(k), Tok::P(P::At) | Tok::P(P::Colon))
    }

    /// `P[i]@label`, `P[i]:var`, `P@label`, `P:var`.
    fn remote_ref(&mut self) -> PResult<ExprKind> {
        let (proc, _) = self.expect_name("a proctype name")?;
        let index = self.opt_index()?;
        if self.at(P::At) {
            self.bump();
            let (label, _) = self.expect_name("a label name")?;
            self.remote_labels.push((proc.clone(), label.clone()));
            Ok(ExprKind::RemoteLabel { proc, index, label })
        } else if self.at(P::Colon) {
            self.bump();
            // pfld: a name with an optional index
            let (name, span) = self.expect_name("a variable name")?;
            let mut var = VarRef {
                name,
                span,
                index: None,
                field: None,
            };
            var.index = self.opt_index()?;
            Ok(ExprKind::RemoteVar { proc, index, var })
        } else {
            Err(self.expected(&format!(
                "`@label` or `:variable` after proctype name `{proc}`"
            )))
        }
    }
}

enum DeclOrMtype {
    Decl(Decl),
    Mtype(MtypeDecl),
}

/// Where `X` stands for a formula in an ltl formula (`formula`: `e` is in a formula's
/// position), which spin refuses; `X` under arithmetic or a comparison is a value to spin.
fn next_as_formula(e: &Expr, formula: bool) -> Option<Span> {
    match &e.kind {
        ExprKind::Unary(UnOp::Next, a) => {
            if formula {
                Some(e.span)
            } else {
                next_as_formula(a, false)
            }
        }
        ExprKind::Unary(op, a) => next_as_formula(
            a,
            formula && matches!(op, UnOp::Not | UnOp::Always | UnOp::Eventually),
        ),
        ExprKind::Binary(op, a, b) => {
            let logical = matches!(
                op,
                BinOp::And
                    | BinOp::Or
                    | BinOp::Implies
                    | BinOp::Equiv
                    | BinOp::Until
                    | BinOp::WeakUntil
                    | BinOp::Release
            );
            next_as_formula(a, formula && logical)
                .or_else(|| next_as_formula(b, formula && logical))
        }
        _ => None,
    }
}
