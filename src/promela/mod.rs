//! The Promela front end: preprocessing, lexing and parsing into an AST with spans, and
//! diagnostics. It reads files only through `source::FileProvider` and knows nothing of git.

pub mod ast;
pub mod diag;
pub(crate) mod inlines;
pub(crate) mod lexer;
pub(crate) mod parser;
pub mod preprocess;
pub(crate) mod semis;
pub mod source;
pub(crate) mod token;

use std::path::Path;

use diag::Diagnostic;
use preprocess::{PpOptions, Preprocessed};
use source::{FileProvider, LineLag, SourceFiles, Span};

/// A parsed model with everything needed to report on it.
pub struct Parsed {
    pub model: Option<ast::Model>,
    pub files: SourceFiles,
    pub diags: Vec<Diagnostic>,
    pub pp: Preprocessed,
}

/// Preprocesses, lexes, expands inlines and parses `main`. `model` is `None` when any error
/// was found; `diags` holds every error and warning.
pub fn parse_file(main: &Path, provider: &dyn FileProvider, opts: &PpOptions) -> Parsed {
    let mut files = SourceFiles::default();
    let (pp, mut diags) = preprocess::preprocess(main, provider, opts, &mut files);
    if diag::has_errors(&diags) {
        return Parsed {
            model: None,
            files,
            diags,
            pp,
        };
    }
    let span_of = |a: u32, b: u32| -> Span { pp.map.span(a as usize, b as usize) };
    let with_macro_notes = |d: Diagnostic, offset: u32| -> Diagnostic {
        let mut d = d;
        for (name, def) in pp.map.expansions(offset as usize) {
            d = d.with_label(def, format!("in expansion of macro `{name}`"));
        }
        d
    };
    let (raw, lex_errors) = lexer::lex(&pp.text);
    files.lags = ltl_line_lags(&pp.text, &raw, &pp.markers, &span_of);
    for e in lex_errors {
        let d = Diagnostic::error(span_of(e.start, e.end), e.message);
        diags.push(with_macro_notes(d, e.start));
    }
    let (expanded, inline_defs, inline_errors) = inlines::expand(raw);
    for e in inline_errors {
        let d = Diagnostic::error(span_of(e.start, e.end), e.message);
        diags.push(with_macro_notes(d, e.start));
    }
    let toks = semis::apply(expanded);
    let mut parser = parser::Parser::new(toks, &span_of);
    let mut model = parser.parse_model();
    for (i, offset) in std::mem::take(&mut parser.offsets) {
        if let Some(d) = parser.diags.get_mut(i) {
            *d = with_macro_notes(d.clone(), offset);
        }
    }
    diags.append(&mut parser.diags);
    for d in inline_defs {
        let body = match (d.body.first(), d.body.last()) {
            (Some(a), Some(b)) => span_of(a.start, b.end),
            _ => Span::default(),
        };
        model.units.push(ast::Unit::Inline(ast::InlineInfo {
            name: d.name,
            params: d.params,
            span: span_of(d.name_start, d.name_end),
            body,
        }));
    }
    let ok = !diag::has_errors(&diags);
    Parsed {
        model: ok.then_some(model),
        files,
        diags,
        pp,
    }
}

/// The `never` claims in `text` (the claims spin writes into `_spin_nvr.tmp` for a model's
/// `ltl` formulas), parsed after `model` (its proctypes, typedefs and mtypes known) as a
/// file of that name added to `files`, so that their spans name it. Anything else in the
/// text is ignored.
pub fn parse_claims(
    text: &str,
    model: &ast::Model,
    files: &mut SourceFiles,
) -> (Vec<ast::Claim>, Vec<Diagnostic>) {
    let name = Path::new("_spin_nvr.tmp");
    let provider = source::MemoryProvider::new().with(name, text);
    let (pp, mut diags) = preprocess::preprocess(name, &provider, &PpOptions::default(), files);
    if diag::has_errors(&diags) {
        return (Vec::new(), diags);
    }
    let span_of = |a: u32, b: u32| -> Span { pp.map.span(a as usize, b as usize) };
    let (raw, lex_errors) = lexer::lex(&pp.text);
    for e in lex_errors {
        diags.push(Diagnostic::error(span_of(e.start, e.end), e.message));
    }
    let (expanded, _, _) = inlines::expand(raw);
    let toks = semis::apply(expanded);
    let mut parser = parser::Parser::new(toks, &span_of).knowing(model);
    let parsed = parser.parse_model();
    diags.append(&mut parser.diags);
    let claims = parsed
        .units
        .into_iter()
        .filter_map(|u| match u {
            ast::Unit::Never(c) => Some(c),
            _ => None,
        })
        .collect();
    (claims, diags)
}

/// Whether `main` has a process to run once preprocessed (an `active` proctype or `init`):
/// what makes a file a model rather than declarations and inlines that models include.
/// `Err` holds the first preprocessor error when the file cannot be read that far.
pub fn has_process(
    main: &Path,
    provider: &dyn FileProvider,
    opts: &PpOptions,
) -> Result<bool, String> {
    let mut files = SourceFiles::default();
    let (pp, diags) = preprocess::preprocess(main, provider, opts, &mut files);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(d.short(&files));
    }
    let (raw, _) = lexer::lex(&pp.text);
    Ok(raw
        .iter()
        .any(|t| t.is_kw(token::Kw::Active) || t.is_kw(token::Kw::Init)))
}

/// Where spin's line numbers fall behind the text because of `ltl` formulas. Spin sets an
/// `ltl` formula aside to parse it last: it copies the text from the keyword to the `}` that
/// closes the formula without counting its line breaks. Every line after it is numbered that
/// many lines too low, until gcc's output sets spin's counter again with a line marker
/// (`markers`). The stretches are returned in the files they come from.
fn ltl_line_lags(
    text: &str,
    raw: &[token::Token],
    markers: &[u32],
    span_of: &dyn Fn(u32, u32) -> Span,
) -> Vec<LineLag> {
    // (offset after the formula's `}`, line breaks lost)
    let mut losses: Vec<(u32, u32)> = Vec::new();
    let mut depth = 0usize;
    for t in raw {
        match t.tok {
            token::Tok::P(token::P::LBrace) => depth += 1,
            token::Tok::P(token::P::RBrace) => depth = depth.saturating_sub(1),
            token::Tok::Kw(token::Kw::Ltl) if depth == 0 => {
                let mut open = 0i64;
                let mut lost = 0u32;
                let mut end = None;
                for (i, b) in text.bytes().enumerate().skip(t.end as usize) {
                    match b {
                        b'{' => open += 1,
                        b'}' => {
                            open -= 1;
                            if open == 0 {
                                end = Some(i as u32 + 1);
                                break;
                            }
                        }
                        b'\n' => lost += 1,
                        _ => {}
                    }
                }
                if let (Some(end), true) = (end, lost > 0) {
                    losses.push((end, lost));
                }
            }
            _ => {}
        }
    }
    let mut out: Vec<LineLag> = Vec::new();
    if losses.is_empty() {
        return out;
    }
    // Losses and markers (which reset the lag) in text order; a marker written right after
    // a formula's `}` follows it.
    let mut events: Vec<(u32, bool, u32)> = losses.iter().map(|&(at, n)| (at, false, n)).collect();
    events.extend(markers.iter().map(|&m| (m, true, 0)));
    events.sort_unstable();
    let (mut ei, mut lag) = (0usize, 0u32);
    for t in raw {
        while let Some(&(_, marker, lost)) = events.get(ei).filter(|e| e.0 <= t.start) {
            lag = if marker { 0 } else { lag + lost };
            ei += 1;
        }
        if lag == 0 || t.tok == token::Tok::Eof {
            continue;
        }
        let sp = span_of(t.start, t.end);
        match out.last_mut() {
            Some(l) if l.file == sp.file && l.lag == lag && l.start <= sp.start => {
                l.end = l.end.max(sp.end.max(sp.start + 1));
            }
            _ => out.push(LineLag {
                file: sp.file,
                start: sp.start,
                end: sp.end.max(sp.start + 1),
                lag,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use source::MemoryProvider;

    /// The line spin gives the first occurrence of `what` in the main file of `text`.
    fn spin_line_of(text: &str, what: &str) -> usize {
        let provider = MemoryProvider::new().with("m.pml", text);
        let parsed = parse_file(Path::new("m.pml"), &provider, &PpOptions::default());
        assert!(parsed.model.is_some(), "{:?}", parsed.diags);
        let at = text.find(what).expect("text present");
        parsed
            .files
            .spin_line(Span::new(source::FileId(0), at, at + what.len()))
    }

    #[test]
    fn ltl_line_breaks_are_not_counted_until_a_line_marker() {
        let text = "byte x;\nltl p {\n  [] (x < 3)\n}\nltl q\n{ <> (x == 1) }\nactive proctype P() {\n  x = 1\n}\n";
        assert_eq!(spin_line_of(text, "x = 1"), 8 - 3);
        assert_eq!(spin_line_of(text, "byte x"), 1);
        let text = "byte x;\nltl p {\n  [] (x < 3)\n}\n\n\n\n\n\n\n\n\nactive proctype P() {\n  x = 1\n}\n";
        assert_eq!(spin_line_of(text, "x = 1"), 14);
        let text =
            "byte x;\nltl p {\n  [] (x < 3)\n}\n\n\n\n\n\n\n\nactive proctype P() {\n  x = 1\n}\n";
        assert_eq!(spin_line_of(text, "x = 1"), 13 - 2);
    }
}
