//! Compiler-style diagnostics (file:line:col, the source line, a caret) via
//! codespan-reporting, with colour only when the output is a terminal.

use codespan_reporting::diagnostic::{Diagnostic as CsDiag, Label, Severity as CsSev};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::ColorChoice, termcolor::StandardStream};

use crate::promela::diag::{Diagnostic, Severity};
use crate::promela::source::SourceFiles;

fn convert(d: &Diagnostic) -> CsDiag<usize> {
    let sev = match d.severity {
        Severity::Error => CsSev::Error,
        Severity::Warning => CsSev::Warning,
    };
    let mut labels = vec![Label::primary(
        d.span.file.0 as usize,
        d.span.start as usize..d.span.end.max(d.span.start) as usize,
    )];
    for l in &d.labels {
        labels.push(
            Label::secondary(
                l.span.file.0 as usize,
                l.span.start as usize..l.span.end as usize,
            )
            .with_message(l.message.clone()),
        );
    }
    CsDiag::new(sev)
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

/// The diagnostics as text (with ANSI colours when `color`), for callers that print the same
/// diagnostic once for many commits.
pub fn render(files: &SourceFiles, diags: &[Diagnostic], color: bool) -> String {
    use codespan_reporting::term::termcolor::Buffer;
    let mut simple = SimpleFiles::new();
    for f in &files.files {
        simple.add(f.name.clone(), f.text.clone());
    }
    if simple.get(0).is_err() {
        simple.add("<input>".to_string(), String::new());
    }
    let mut buf = if color {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    };
    let config = term::Config::default();
    let mut out = String::new();
    for d in diags {
        let cs = convert(d);
        if term::emit(&mut buf, &config, &simple, &cs).is_err() {
            out.push_str(&d.short(files));
            out.push('\n');
        }
    }
    String::from_utf8_lossy(buf.as_slice()).into_owned() + &out
}

/// Writes diagnostics to standard error.
pub fn emit(files: &SourceFiles, diags: &[Diagnostic], color: bool) {
    let mut simple = SimpleFiles::new();
    for f in &files.files {
        simple.add(f.name.clone(), f.text.clone());
    }
    if simple.get(0).is_err() {
        simple.add("<input>".to_string(), String::new());
    }
    let choice = if color {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    let writer = StandardStream::stderr(choice);
    let config = term::Config::default();
    let mut lock = writer.lock();
    for d in diags {
        let cs = convert(d);
        if term::emit(&mut lock, &config, &simple, &cs).is_err() {
            eprintln!("{}", d.short(files));
        }
    }
}
