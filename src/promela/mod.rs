//! The Promela front end: preprocessing, lexing and parsing into an AST with spans, and
//! diagnostics. It reads files only through `source::FileProvider` and knows nothing of git.

pub mod ast;
pub mod diag;
pub mod inlines;
pub mod lexer;
pub mod parser;
pub mod preprocess;
pub mod semis;
pub mod source;
pub mod token;

use std::path::Path;

use diag::Diagnostic;
use preprocess::{PpOptions, Preprocessed};
use source::{FileProvider, SourceFiles, Span};

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
        model.units.push(ast::Unit::Inline(ast::InlineInfo {
            name: d.name,
            params: d.params,
            span: span_of(d.name_start, d.name_end),
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
