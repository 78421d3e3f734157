//! Macro definitions: parsing `#define` operands (also for `-D` and the predefined macros),
//! redefinition rules, and the dynamic builtins (`__FILE__`, `__LINE__`, ...).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::super::diag::Diagnostic;
use super::super::source::Span;
use super::lexer::{lex_all, Kind, Token};
use super::Pp;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Builtin {
    File,
    Line,
    Counter,
    IncludeLevel,
    BaseFile,
    Date,
    Time,
    Timestamp,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    Object,
    /// A variadic macro's last parameter is the variadic one (`__VA_ARGS__` or GNU `name...`).
    Function {
        params: Vec<Rc<str>>,
        variadic: bool,
    },
    Builtin(Builtin),
}

/// One element of a replacement list, parameters resolved when the macro is defined.
#[derive(Clone, Debug)]
pub(super) enum Part {
    Tok(Token),
    /// A parameter; the token is its occurrence (its spacing is kept).
    Param(usize, Token),
    /// `#param`; the token is the `#`.
    Stringize(usize, Token),
    /// `##` joining the parts before and after it.
    Paste(Token),
}

impl Part {
    fn token(&self) -> &Token {
        match self {
            Part::Tok(t) | Part::Param(_, t) | Part::Stringize(_, t) | Part::Paste(t) => t,
        }
    }

    /// What identifies a part apart from its token, for comparing definitions.
    fn key(&self) -> (u8, usize) {
        match self {
            Part::Tok(_) => (0, 0),
            Part::Param(i, _) => (1, *i),
            Part::Stringize(i, _) => (2, *i),
            Part::Paste(_) => (3, 0),
        }
    }
}

pub(super) struct Macro {
    pub name: Rc<str>,
    /// The name in the `#define` line (empty at offset 0 of the main file for predefined ones).
    pub def: Span,
    pub shape: Shape,
    pub body: Vec<Part>,
}

impl Macro {
    pub fn is_builtin(&self) -> bool {
        matches!(self.shape, Shape::Builtin(_))
    }

    /// C99 6.10.3p2: a redefinition must match in parameters, spelling and whitespace.
    fn same_as(&self, other: &Macro) -> bool {
        self.shape == other.shape
            && self.body.len() == other.body.len()
            && self.body.iter().zip(&other.body).all(|(a, b)| {
                let (x, y) = (a.token(), b.token());
                a.key() == b.key() && x.text == y.text && x.space == y.space
            })
    }
}

pub(super) fn define_builtins(pp: &mut Pp) {
    let builtins = [
        ("__FILE__", Builtin::File),
        ("__LINE__", Builtin::Line),
        ("__COUNTER__", Builtin::Counter),
        ("__INCLUDE_LEVEL__", Builtin::IncludeLevel),
        ("__BASE_FILE__", Builtin::BaseFile),
        ("__DATE__", Builtin::Date),
        ("__TIME__", Builtin::Time),
        ("__TIMESTAMP__", Builtin::Timestamp),
    ];
    for (name, b) in builtins {
        let m = Macro {
            name: Rc::from(name),
            def: Span::new(pp.main, 0, 0),
            shape: Shape::Builtin(b),
            body: Vec::new(),
        };
        pp.macros.insert(m.name.clone(), Rc::new(m));
    }
}

pub(super) fn point_after(t: &Token) -> Span {
    Span::new(t.span.file, t.span.end as usize, t.span.end as usize)
}

/// Parses the operands of `#define` (`dir` is the word `define`, for positions).
fn parse_define(dir: &Token, toks: &[Token], diags: &mut Vec<Diagnostic>) -> Option<Macro> {
    let mut fail = |span, msg: String| diags.push(Diagnostic::error(span, msg));
    let Some(name) = toks.first() else {
        fail(
            point_after(dir),
            "no macro name given in #define directive".into(),
        );
        return None;
    };
    if name.kind != Kind::Ident {
        fail(name.span, "macro names must be identifiers".into());
        return None;
    }
    if &*name.text == "defined" {
        fail(
            name.span,
            "\"defined\" cannot be used as a macro name".into(),
        );
        return None;
    }
    let mut rest = toks.get(1..).unwrap_or(&[]);
    let mut shape = Shape::Object;
    if let Some(open) = rest.first().filter(|t| t.is("(") && !t.space) {
        let (params, variadic, used) = parse_params(open, rest.get(1..).unwrap_or(&[]), diags)?;
        rest = rest.get(1 + used..).unwrap_or(&[]);
        shape = Shape::Function { params, variadic };
    } else if let Some(first) = rest.first().filter(|t| !t.space) {
        let msg = "ISO C99 requires whitespace after the macro name";
        diags.push(Diagnostic::warning(first.span, msg));
    }
    let body = parse_body(&shape, rest, diags)?;
    Some(Macro {
        name: name.text.clone(),
        def: name.span,
        shape,
        body,
    })
}

/// The parameter list after `(`: names, variadic, tokens used (through `)`).
fn parse_params(
    open: &Token,
    toks: &[Token],
    diags: &mut Vec<Diagnostic>,
) -> Option<(Vec<Rc<str>>, bool, usize)> {
    let eol = point_after(toks.last().unwrap_or(open));
    let mut fail = |span, msg: String| {
        diags.push(Diagnostic::error(span, msg));
        None
    };
    let mut params: Vec<Rc<str>> = Vec::new();
    let mut seen: HashSet<Rc<str>> = HashSet::new();
    let mut i = 0;
    loop {
        let Some(t) = toks.get(i) else {
            return fail(eol, "expected parameter name before end of line".into());
        };
        let variadic_name = t.is("...").then(|| Rc::from("__VA_ARGS__"));
        if variadic_name.is_none() && t.kind != Kind::Ident {
            if t.is(")") && params.is_empty() {
                return Some((params, false, i + 1));
            }
            return fail(
                t.span,
                format!("expected parameter name, found \"{}\"", t.text),
            );
        }
        if !seen.insert(t.text.clone()) {
            return fail(t.span, format!("duplicate macro parameter \"{}\"", t.text));
        }
        params.push(variadic_name.clone().unwrap_or_else(|| t.text.clone()));
        // After `...` (C99) or `name...` (GNU) only `)` may follow.
        let dots = variadic_name.is_some() || toks.get(i + 1).is_some_and(|n| n.is("..."));
        i += if variadic_name.is_some() {
            1
        } else {
            1 + usize::from(dots)
        };
        match toks.get(i) {
            Some(n) if n.is(")") => return Some((params, dots, i + 1)),
            Some(n) if n.is(",") && !dots => i += 1,
            Some(n) if dots => return fail(n.span, "expected ')' after \"...\"".into()),
            None if dots => return fail(eol, "expected ')' after \"...\"".into()),
            Some(n) => return fail(n.span, format!("expected ',' or ')', found \"{}\"", n.text)),
            None => return fail(eol, "expected ')' before end of line".into()),
        }
    }
}

/// The replacement list: `#` and `##` checked, parameters resolved.
fn parse_body(shape: &Shape, toks: &[Token], diags: &mut Vec<Diagnostic>) -> Option<Vec<Part>> {
    let (params, function, variadic) = match shape {
        Shape::Function { params, variadic } => (params.as_slice(), true, *variadic),
        _ => (&[][..], false, false),
    };
    // A map, not a search: a definition may have very many parameters.
    let index: HashMap<&str, usize> = params.iter().enumerate().map(|(i, p)| (&**p, i)).collect();
    let param_of = |t: &Token| {
        index
            .get(&*t.text)
            .copied()
            .filter(|_| t.kind == Kind::Ident)
    };
    let mut body: Vec<Part> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while let Some(t) = toks.get(i) {
        i += 1;
        let mut t = t.clone();
        t.bol = false;
        t.space &= !body.is_empty();
        if function && t.is_hash() {
            let Some(idx) = toks.get(i).and_then(param_of) else {
                let msg = "'#' is not followed by a macro parameter";
                diags.push(Diagnostic::error(t.span, msg));
                return None;
            };
            i += 1;
            body.push(Part::Stringize(idx, t));
        } else if t.is_paste() && !matches!(body.last(), Some(Part::Paste(_))) {
            if body.is_empty() || i == toks.len() {
                let msg = "'##' cannot appear at either end of a macro expansion";
                diags.push(Diagnostic::error(t.span, msg));
                return None;
            }
            body.push(Part::Paste(t));
        } else if let Some(idx) = param_of(&t) {
            body.push(Part::Param(idx, t));
        } else {
            if &*t.text == "__VA_ARGS__" && !variadic {
                let msg = "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro";
                diags.push(Diagnostic::warning(t.span, msg));
            }
            body.push(Part::Tok(t));
        }
    }
    Some(body)
}

/// Appends `s` with `"` and `\\` escaped, as inside a string literal.
pub(super) fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
}

/// `s` as a string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    escape_into(&mut out, s);
    out.push('"');
    out
}

impl Pp<'_> {
    /// Defines a macro from `NAME BODY` text (predefined macros and `-D` options, which
    /// have no place in a file: their spans are the start of the main file).
    pub(super) fn define_text(&mut self, text: &str, option: Option<&str>) {
        let nowhere = Span::new(self.main, 0, 0);
        let mut diags = Vec::new();
        let mut toks = lex_all(self.main, text, &mut diags);
        for t in &mut toks {
            t.span = nowhere;
            t.exact = false;
        }
        let dir = Token::synthetic(Kind::Ident, "define", nowhere);
        let m = parse_define(&dir, &toks, &mut diags);
        for mut d in diags {
            d.span = nowhere;
            if let Some(o) = option {
                d = d.with_note(format!("in option -D{o}"));
            }
            self.diags.push(d);
        }
        if let Some(m) = m {
            self.install(m);
        }
    }

    pub(super) fn do_define(&mut self, dir: &Token, args: &[Token]) {
        if let Some(m) = parse_define(dir, args, &mut self.diags) {
            self.install(m);
        }
    }

    fn install(&mut self, m: Macro) {
        if let Some(old) = self.macros.get(&m.name) {
            if old.is_builtin() || !old.same_as(&m) {
                let mut d = Diagnostic::warning(m.def, format!("\"{}\" redefined", m.name));
                if old.def.end > old.def.start {
                    d = d.with_label(old.def, "this is the location of the previous definition");
                }
                self.diags.push(d);
            }
        }
        self.macros.insert(m.name.clone(), Rc::new(m));
    }

    /// The value of a dynamic builtin macro used at `name`.
    pub(super) fn builtin(&mut self, b: Builtin, name: &Token) -> Token {
        let current = self.stack.last();
        let (kind, text) = match b {
            Builtin::File => (
                Kind::Str,
                quote(current.map_or("", |f| f.presumed.as_str())),
            ),
            Builtin::Line => {
                // The line of the token itself; for a macro body token, of the outermost
                // invocation's name (what gcc gives).
                let line = self.files.line(name.span) as i64;
                let delta = current
                    .filter(|f| f.id == name.span.file)
                    .map_or(0, |f| f.line_delta);
                (Kind::Number, (line + delta).max(0).to_string())
            }
            Builtin::Counter => {
                self.counter += 1;
                (Kind::Number, (self.counter - 1).to_string())
            }
            Builtin::IncludeLevel => (Kind::Number, self.stack.len().saturating_sub(1).to_string()),
            Builtin::BaseFile => (Kind::Str, quote(&self.base_name)),
            // Fixed instead of the clock: the same model must always give the same output.
            Builtin::Date => (Kind::Str, "\"Jan  1 1970\"".to_string()),
            Builtin::Time => (Kind::Str, "\"00:00:00\"".to_string()),
            Builtin::Timestamp => (Kind::Str, "\"Thu Jan  1 00:00:00 1970\"".to_string()),
        };
        Token {
            kind,
            text: Rc::from(text),
            no_expand: false,
            exact: false,
            seq: self.next_seq(1),
            ..name.clone()
        }
    }
}
