//! Reading lines from the include stack: directive lines (`#define`, `#include`, the
//! conditionals, `#line`, `#error`, ...), skipped groups, and end of file.

use std::path::{Path, PathBuf};

use super::super::diag::Diagnostic;
use super::super::source::{normalize, Span};
use super::expr;
use super::lexer::{Kind, Lexed, Token};
use super::{io_message, Pp};

/// One open `#if`/`#ifdef`/`#ifndef` group in the current file.
pub(super) struct Cond {
    /// `#` through the directive name, for "unterminated" and "began here".
    span: Span,
    /// The latest directive of the group (gcc names it in "unterminated #else").
    last: &'static str,
    /// The enclosing group is skipped: so is every branch of this one.
    parent_skipping: bool,
    /// A branch has been taken (or the parent skips): later branches are skipped.
    taken: bool,
    saw_else: bool,
    skipping: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Directive {
    Define,
    Undef,
    Include,
    If,
    Ifdef,
    Ifndef,
    Elif,
    Else,
    Endif,
    Line,
    Error,
    Warning,
    Pragma,
    Ident,
}

impl Directive {
    fn from_name(name: &str) -> Option<Directive> {
        Some(match name {
            "define" => Directive::Define,
            "undef" => Directive::Undef,
            "include" => Directive::Include,
            "if" => Directive::If,
            "ifdef" => Directive::Ifdef,
            "ifndef" => Directive::Ifndef,
            "elif" => Directive::Elif,
            "else" => Directive::Else,
            "endif" => Directive::Endif,
            "line" => Directive::Line,
            "error" => Directive::Error,
            "warning" => Directive::Warning,
            "pragma" => Directive::Pragma,
            "ident" | "sccs" => Directive::Ident,
            _ => return None,
        })
    }

    fn is_conditional(self) -> bool {
        use Directive::*;
        matches!(self, If | Ifdef | Ifndef | Elif | Else | Endif)
    }
}

impl Pp<'_> {
    fn skipping(&self) -> bool {
        let cond = self.stack.last().and_then(|f| f.conds.last());
        cond.is_some_and(|c| c.skipping)
    }

    /// The next token of the current file that is program text: directives are carried
    /// out, skipped groups dropped, line breaks owed to the output. `None` at end of file.
    pub(super) fn next_file_token(&mut self) -> Option<Token> {
        loop {
            if let Some(t) = self.lookahead.pop() {
                return Some(t);
            }
            if self.fatal {
                return None;
            }
            let skipping = self.skipping();
            let file = self.stack.last_mut()?;
            let lexed = file.lexer.next(skipping, &mut self.diags);
            self.out.pending_newlines += file.lexer.take_comment_newlines() as usize;
            match lexed {
                Lexed::Eof => return None,
                Lexed::Newline => self.out.pending_newlines += 1,
                Lexed::Tok(t) if t.bol && t.is_hash() => self.directive(t, skipping),
                Lexed::Tok(_) if skipping => {}
                Lexed::Tok(mut t) => {
                    t.seq = self.file_seq();
                    return Some(t);
                }
            }
        }
    }

    /// Leaves the finished current file; false when it was the main file.
    pub(super) fn pop_file(&mut self) -> bool {
        self.out.marker();
        if let Some(file) = self.stack.pop() {
            for c in file.conds.iter().rev() {
                self.error(c.span, format!("unterminated #{}", c.last));
            }
        }
        !self.stack.is_empty()
    }

    /// The tokens of the rest of a directive line (line break consumed and owed).
    fn directive_line(&mut self, quiet: bool) -> Vec<Token> {
        let mut toks: Vec<Token> = Vec::new();
        while let Some(file) = self.stack.last_mut() {
            let lexed = file.lexer.next(quiet, &mut self.diags);
            self.out.pending_newlines += file.lexer.take_comment_newlines() as usize;
            match lexed {
                Lexed::Tok(t) => {
                    let include = toks.is_empty() && t.kind == Kind::Ident && &*t.text == "include";
                    toks.push(t);
                    if include && !quiet {
                        toks.extend(file.lexer.header_name(&mut self.diags));
                    }
                }
                Lexed::Newline => {
                    self.out.pending_newlines += 1;
                    break;
                }
                Lexed::Eof => break,
            }
        }
        toks
    }

    /// Carries out the directive introduced by `hash`.
    fn directive(&mut self, hash: Token, skipping: bool) {
        self.directives += 1;
        let mut toks = self.directive_line(skipping).into_iter();
        let Some(name) = toks.next() else {
            return; // the null directive
        };
        let args: Vec<Token> = toks.collect();
        if name.kind == Kind::Number && !skipping {
            // GNU line marker `# 33 "file"`.
            let mut all = vec![name];
            all.extend(args);
            return self.do_line(hash.span, all, true);
        }
        let dir = (name.kind == Kind::Ident)
            .then(|| Directive::from_name(&name.text))
            .flatten();
        let Some(dir) = dir else {
            if !skipping {
                self.error(
                    name.span,
                    format!("invalid preprocessing directive #{}", name.text),
                );
            }
            return;
        };
        if skipping && !dir.is_conditional() {
            return;
        }
        let span = hash.span.to(name.span);
        match dir {
            Directive::Define => self.do_define(&name, &args),
            Directive::Undef => self.do_undef(&name, &args),
            Directive::Include => self.do_include(&name, args),
            Directive::If | Directive::Ifdef | Directive::Ifndef => {
                self.do_if(dir, span, &name, args)
            }
            Directive::Elif => self.do_elif(&name, args),
            Directive::Else | Directive::Endif => self.do_else_endif(dir, &name, &args),
            Directive::Line => self.do_line(name.span, args, false),
            Directive::Error | Directive::Warning => {
                let mut msg = format!("#{}", name.text);
                for (i, t) in args.iter().enumerate() {
                    msg.push_str(if i == 0 || t.space { " " } else { "" });
                    msg.push_str(&t.text);
                }
                let d = match dir {
                    Directive::Error => Diagnostic::error(name.span, msg),
                    _ => Diagnostic::warning(name.span, msg),
                };
                self.diags.push(d);
            }
            // gcc -E keeps `#pragma` lines, but spin's lexer would reject them: dropped.
            Directive::Pragma => {
                let once = args.len() == 1 && args.first().is_some_and(|t| &*t.text == "once");
                if let (true, Some(file)) = (once, self.stack.last()) {
                    self.once.insert(normalize(&file.path));
                }
            }
            Directive::Ident => {}
        }
    }

    /// Warns about tokens after a directive's operands, as gcc does.
    fn extra_tokens(&mut self, rest: &[Token], name: &Token) {
        if let Some(t) = rest.first() {
            let msg = format!("extra tokens at end of #{} directive", name.text);
            self.warning(t.span, msg);
        }
    }

    /// The macro name operand of `#ifdef`, `#ifndef` and `#undef`, with gcc's complaints.
    fn macro_name_operand<'t>(&mut self, name: &Token, args: &'t [Token]) -> Option<&'t Token> {
        let Some(first) = args.first() else {
            let at = Span::new(
                name.span.file,
                name.span.end as usize,
                name.span.end as usize,
            );
            self.error(
                at,
                format!("no macro name given in #{} directive", name.text),
            );
            return None;
        };
        if first.kind != Kind::Ident {
            self.error(first.span, "macro names must be identifiers");
            return None;
        }
        if &*first.text == "defined" {
            self.error(first.span, "\"defined\" cannot be used as a macro name");
            return None;
        }
        self.extra_tokens(args.get(1..).unwrap_or(&[]), name);
        Some(first)
    }

    fn do_undef(&mut self, name: &Token, args: &[Token]) {
        let Some(target) = self.macro_name_operand(name, args) else {
            return;
        };
        if self
            .macros
            .get(&target.text)
            .is_some_and(|m| m.is_builtin())
        {
            self.warning(target.span, format!("undefining \"{}\"", target.text));
        }
        self.macros.remove(&target.text);
    }

    fn do_if(&mut self, dir: Directive, span: Span, name: &Token, args: Vec<Token>) {
        let parent_skipping = self.skipping();
        let value = match dir {
            _ if parent_skipping => false,
            Directive::If => self.eval_if(name, args),
            _ => match self.macro_name_operand(name, &args) {
                Some(t) => self.macros.contains_key(&t.text) == (dir == Directive::Ifdef),
                None => false,
            },
        };
        let cond = Cond {
            span,
            last: if dir == Directive::If {
                "if"
            } else if dir == Directive::Ifdef {
                "ifdef"
            } else {
                "ifndef"
            },
            parent_skipping,
            taken: value || parent_skipping,
            saw_else: false,
            skipping: !value || parent_skipping,
        };
        if let Some(file) = self.stack.last_mut() {
            file.conds.push(cond);
        }
    }

    fn do_elif(&mut self, name: &Token, args: Vec<Token>) {
        let Some(c) = self.stack.last().and_then(|f| f.conds.last()) else {
            return self.error(name.span, "#elif without #if");
        };
        let (began, saw_else, taken) = (c.span, c.saw_else, c.taken);
        if saw_else {
            let d = Diagnostic::error(name.span, "#elif after #else")
                .with_label(began, "the conditional began here");
            return self.diags.push(d);
        }
        // Once a branch is taken later #elif expressions are not even evaluated.
        let value = !taken && self.eval_if(name, args);
        if let Some(c) = self.stack.last_mut().and_then(|f| f.conds.last_mut()) {
            c.last = "elif";
            c.skipping = !value;
            c.taken |= value;
        }
    }

    fn do_else_endif(&mut self, dir: Directive, name: &Token, args: &[Token]) {
        let is_else = dir == Directive::Else;
        let Some(c) = self.stack.last().and_then(|f| f.conds.last()) else {
            let which = if is_else { "#else" } else { "#endif" };
            return self.error(name.span, format!("{which} without #if"));
        };
        let (began, saw_else, parent_skipping) = (c.span, c.saw_else, c.parent_skipping);
        if !parent_skipping {
            self.extra_tokens(args, name);
        }
        let Some(conds) = self.stack.last_mut().map(|f| &mut f.conds) else {
            return;
        };
        if !is_else {
            conds.pop();
        } else if saw_else {
            let d = Diagnostic::error(name.span, "#else after #else")
                .with_label(began, "the conditional began here");
            self.diags.push(d);
        } else if let Some(c) = conds.last_mut() {
            c.last = "else";
            c.saw_else = true;
            c.skipping = c.taken;
            c.taken = true;
        }
    }

    /// Expands and evaluates an `#if`/`#elif` expression; errors make it false.
    fn eval_if(&mut self, name: &Token, args: Vec<Token>) -> bool {
        let at = Span::new(
            name.span.file,
            name.span.end as usize,
            name.span.end as usize,
        );
        if args.is_empty() {
            self.error(at, format!("#{} with no expression", name.text));
            return false;
        }
        let saved = std::mem::replace(&mut self.in_if, true);
        let toks = self.expand_isolated(args);
        self.in_if = saved;
        match expr::evaluate(&toks, at, &mut self.diags) {
            Ok(v) => v,
            Err(d) => {
                self.diags.push(d);
                false
            }
        }
    }

    fn do_include(&mut self, name: &Token, args: Vec<Token>) {
        let direct = args
            .first()
            .is_some_and(|t| t.kind == Kind::Header || t.kind == Kind::Str);
        let toks = if direct {
            self.extra_tokens(args.get(1..).unwrap_or(&[]), name);
            args
        } else {
            self.expand_isolated(args)
        };
        let Some((file, angled, span)) = include_target(&toks) else {
            let msg = "#include expects \"FILENAME\" or <FILENAME>";
            let at = toks.first().map_or(name.span, |t| t.span);
            return self.error(at, msg);
        };
        if file.is_empty() {
            return self.error(span, "empty filename in #include");
        }
        let depth = self.limits.max_include_depth;
        if self.stack.len() >= depth {
            let msg = format!("#include nested depth {depth} exceeds maximum of {depth}");
            return self.fail(Diagnostic::error(span, msg));
        }
        self.includes += 1;
        if self.includes > self.limits.max_includes {
            return self.fail(Diagnostic::error(span, "too many #include directives"));
        }
        let mut dirs: Vec<PathBuf> = Vec::new();
        if !angled {
            let here = self.stack.last().and_then(|f| f.path.parent());
            dirs.push(here.map_or_else(PathBuf::new, Path::to_path_buf));
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        let mut last_error = None;
        for dir in dirs {
            let path = dir.join(&file);
            match self.open(&path) {
                Ok(true) => return,
                Ok(false) => return, // #pragma once
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => last_error = Some(e),
            }
        }
        let why = last_error.map_or("No such file or directory".to_string(), |e| io_message(&e));
        self.fail(Diagnostic::error(span, format!("{file}: {why}")));
    }

    /// Reads (once per path) and enters an included file; Ok(false) for a `#pragma once`
    /// file already seen.
    fn open(&mut self, path: &Path) -> std::io::Result<bool> {
        let key = normalize(path);
        if self.once.contains(&key) {
            return Ok(false);
        }
        let id = match self.read_cache.get(&key) {
            Some(&id) => id,
            None => {
                let text = self.provider.read(path)?;
                let id = self.files.add(path.display().to_string(), text);
                self.read_cache.insert(key, id);
                id
            }
        };
        let text = self
            .files
            .get(id)
            .map(|f| f.text.clone())
            .unwrap_or_default();
        self.push_file(path.to_path_buf(), id, &text);
        Ok(true)
    }

    /// `#line N "file"` and the line marker `# N "file"`.
    fn do_line(&mut self, at: Span, args: Vec<Token>, marker: bool) {
        let Some(last) = args.last() else {
            return self.error(at, "unexpected end of file after #line");
        };
        // The line after the directive is the one numbered N.
        let end = Span::new(
            last.span.file,
            last.span.end as usize,
            last.span.end as usize,
        );
        let next_line = self.files.line(end) as i64 + 1;
        let toks = if marker {
            args
        } else {
            self.expand_isolated(args)
        };
        let what = if marker { "#" } else { "#line" };
        let number = toks
            .first()
            .filter(|t| t.kind == Kind::Number && t.text.bytes().all(|b| b.is_ascii_digit()));
        let Some(n) = number.and_then(|t| t.text.parse::<i64>().ok()) else {
            let (at, text) = toks
                .first()
                .map_or((end, String::new()), |t| (t.span, t.text.to_string()));
            return self.error(
                at,
                format!("\"{text}\" after {what} is not a positive integer"),
            );
        };
        let presumed = match toks.get(1) {
            None => None,
            Some(t) if t.kind == Kind::Str && t.text.starts_with('"') && t.text.len() >= 2 => {
                Some(unescape(&t.text[1..t.text.len() - 1]))
            }
            Some(t) => {
                return self.error(t.span, format!("\"{}\" is not a valid filename", t.text))
            }
        };
        if !marker {
            self.extra_tokens(
                toks.get(2..).unwrap_or(&[]),
                &Token::synthetic(Kind::Ident, "line", end),
            );
        }
        self.out.marker();
        if let Some(file) = self.stack.last_mut() {
            file.line_delta = n - next_line;
            if let Some(p) = presumed {
                file.presumed = p;
            }
        }
    }
}

/// The file named by (already expanded) `#include` operands: name, `<>` form, span.
fn include_target(toks: &[Token]) -> Option<(String, bool, Span)> {
    let first = toks.first()?;
    let inner = |t: &str| {
        t.get(1..t.len().saturating_sub(1))
            .unwrap_or("")
            .to_string()
    };
    match first.kind {
        Kind::Header => Some((inner(&first.text), true, first.span)),
        Kind::Str if first.text.starts_with('"') => Some((inner(&first.text), false, first.span)),
        _ if first.is("<") => {
            // A computed `<...>`: the spellings of the tokens up to `>`, spaced as written.
            let close = toks.iter().position(|t| t.is(">"))?;
            let mut name = String::new();
            for (i, t) in toks.get(1..close)?.iter().enumerate() {
                if i > 0 && t.space {
                    name.push(' ');
                }
                name.push_str(&t.text);
            }
            let span = toks
                .get(close)
                .map_or(first.span, |c| first.span.to(c.span));
            Some((name, true, span))
        }
        _ => None,
    }
}

/// The simple escapes a `#line` file name may use.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}
