//! The C preprocessor SPIN runs on every model (`gcc -std=gnu99 -E -x c`), built in so that
//! includes come through a `FileProvider` and every output byte maps back to its origin.
//! This file owns the public API, the state shared by the submodules, the predefined
//! macros and the top-level loop; `lexer` does phases 1–3, `directives` the `#` lines,
//! `macros` definitions, `expand` expansion, `expr` `#if` arithmetic, `map` the output and
//! its source map.
//!
//! Deliberately left out: `_Pragma`, `__VA_OPT__`, raw strings, `#include_next`, `#assert`.

mod directives;
mod expand;
mod expr;
mod lexer;
mod macros;
mod map;

#[cfg(test)]
mod gcc_tests;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::diag::Diagnostic;
use super::source::{FileId, FileProvider, SourceFiles, Span};
use directives::Cond;
use expand::Context;
use lexer::{Lexer, Token};
use macros::Macro;
pub use map::SourceMap;
use map::Writer;

#[derive(Clone, Debug, Default)]
pub struct PpOptions {
    /// As given to -D: "NAME" (defined as 1) or "NAME=VALUE".
    pub defines: Vec<String>,
    /// -I folders, searched in order.
    pub include_dirs: Vec<PathBuf>,
}

#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// The expanded text as spin would receive it from gcc -E (no `# line` markers needed:
    /// the map gives positions). Directive lines and comments leave blank lines/spaces so that
    /// text from the main file keeps its line structure where possible.
    pub text: String,
    pub map: SourceMap,
    /// Offsets of `text` where gcc -E would write a line marker (on entering and leaving a
    /// file, after `#line`, and over runs of 8 or more blank lines), ascending.
    pub markers: Vec<u32>,
}

/// Bounds that keep hostile input from exhausting time, memory or the Rust stack.
#[derive(Clone, Copy, Debug)]
struct Limits {
    max_output: usize,
    /// Total bytes of all files pushed (a file included twice counts twice).
    max_input: usize,
    max_includes: usize,
    /// gcc's default `-fmax-include-depth`.
    max_include_depth: usize,
    /// Tokens created by macro substitution, over the whole run.
    max_expansion_tokens: u64,
    /// Macro invocations nested inside macro arguments (each level recurses).
    max_arg_nesting: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_output: 64 << 20,
            max_input: 256 << 20,
            max_includes: 10_000,
            max_include_depth: 200,
            max_expansion_tokens: 4 << 20,
            max_arg_nesting: 200,
        }
    }
}

/// What gcc 12 on x86_64 Linux predefines in gnu99 mode (from `gcc -dM -E`, including the
/// implicit `stdc-predef.h`), restricted to integer-valued ones a model could test.
const PREDEFINED: &[(&str, &str)] = &[
    ("__STDC__", "1"),
    ("__STDC_VERSION__", "199901L"),
    ("__STDC_HOSTED__", "1"),
    ("__STDC_UTF_16__", "1"),
    ("__STDC_UTF_32__", "1"),
    ("__STDC_IEC_559__", "1"),
    ("__STDC_ISO_10646__", "201706L"),
    ("_STDC_PREDEF_H", "1"),
    ("__GNUC__", "12"),
    ("__GNUC_MINOR__", "2"),
    ("__GNUC_PATCHLEVEL__", "0"),
    ("__GNUC_STDC_INLINE__", "1"),
    ("unix", "1"),
    ("linux", "1"),
    ("__unix", "1"),
    ("__unix__", "1"),
    ("__linux", "1"),
    ("__linux__", "1"),
    ("__gnu_linux__", "1"),
    ("__ELF__", "1"),
    ("__x86_64", "1"),
    ("__x86_64__", "1"),
    ("__amd64", "1"),
    ("__amd64__", "1"),
    ("__LP64__", "1"),
    ("_LP64", "1"),
    ("__CHAR_BIT__", "8"),
    ("__SIZEOF_SHORT__", "2"),
    ("__SIZEOF_INT__", "4"),
    ("__SIZEOF_LONG__", "8"),
    ("__SIZEOF_LONG_LONG__", "8"),
    ("__SIZEOF_POINTER__", "8"),
    ("__SIZEOF_SIZE_T__", "8"),
    ("__SIZEOF_WCHAR_T__", "4"),
    ("__SCHAR_MAX__", "0x7f"),
    ("__SHRT_MAX__", "0x7fff"),
    ("__INT_MAX__", "0x7fffffff"),
    ("__LONG_MAX__", "0x7fffffffffffffffL"),
    ("__LONG_LONG_MAX__", "0x7fffffffffffffffLL"),
    ("__INTMAX_MAX__", "0x7fffffffffffffffL"),
    ("__UINTMAX_MAX__", "0xffffffffffffffffUL"),
    ("__SIZE_MAX__", "0xffffffffffffffffUL"),
    ("__WCHAR_MAX__", "0x7fffffff"),
    ("__INT_WIDTH__", "32"),
    ("__LONG_WIDTH__", "64"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__ORDER_BIG_ENDIAN__", "4321"),
    ("__ORDER_PDP_ENDIAN__", "3412"),
    ("__BYTE_ORDER__", "__ORDER_LITTLE_ENDIAN__"),
];

/// Preprocess `main` (read through `provider`; its name in diagnostics is `main` as given,
/// displayed with `Path::display`). Every file read is added to `files` (the main file first),
/// and its FileId is what spans refer to. Returns the output and the diagnostics (errors and
/// warnings); any error diagnostic means failure but the output is still returned as far as it
/// got. Never panics, never loops forever, on any input.
pub fn preprocess(
    main: &Path,
    provider: &dyn FileProvider,
    opts: &PpOptions,
    files: &mut SourceFiles,
) -> (Preprocessed, Vec<Diagnostic>) {
    preprocess_with(main, provider, opts, files, Limits::default())
}

fn preprocess_with(
    main: &Path,
    provider: &dyn FileProvider,
    opts: &PpOptions,
    files: &mut SourceFiles,
    limits: Limits,
) -> (Preprocessed, Vec<Diagnostic>) {
    let name = main.display().to_string();
    let read = provider.read(main);
    let text = read.as_ref().map_or("", String::as_str);
    let id = files.add(name.clone(), text);
    let mut pp = Pp::new(provider, opts, files, limits, id, name.clone());
    match read {
        Err(e) => {
            let msg = format!("{name}: {}", io_message(&e));
            pp.diags.push(Diagnostic::error(Span::new(id, 0, 0), msg));
        }
        Ok(text) => {
            pp.read_cache.insert(super::source::normalize(main), id);
            pp.predefine();
            pp.push_file(main.to_path_buf(), id, &text);
            pp.run();
        }
    }
    pp.finish()
}

/// gcc's wording for the common failure, the system's for the rest.
fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        _ => e.to_string(),
    }
}

/// One file being read, innermost last on `Pp::stack`.
struct FileState {
    id: FileId,
    /// As opened: quoted includes search its folder first.
    path: PathBuf,
    /// What `__FILE__` gives (changed by `#line`).
    presumed: String,
    /// Presumed minus physical line number (changed by `#line`).
    line_delta: i64,
    lexer: Lexer,
    conds: Vec<Cond>,
}

/// The whole preprocessor state; the submodules add methods.
struct Pp<'a> {
    provider: &'a dyn FileProvider,
    opts: &'a PpOptions,
    files: &'a mut SourceFiles,
    limits: Limits,
    main: FileId,
    base_name: String,
    diags: Vec<Diagnostic>,
    stack: Vec<FileState>,
    macros: HashMap<Rc<str>, Rc<Macro>>,
    /// Macros whose expansion is on the context stack: their names do not expand.
    disabled: HashMap<Rc<str>, u32>,
    ctx: Vec<Context>,
    /// File tokens read ahead (looking for a macro's `(`) and given back.
    lookahead: Vec<Token>,
    out: Writer,
    once: HashSet<PathBuf>,
    /// Files already read, so a header included many times is read and stored once.
    read_cache: HashMap<PathBuf, FileId>,
    /// Interned macro names for the source map.
    names: HashMap<Rc<str>, u32>,
    counter: u64,
    /// The first file token read for the current output line: gcc indents to its column.
    line_start: Option<Span>,
    /// Next free `Token::seq` number.
    seq: u32,
    /// Directives carried out so far (a directive stops the search for a macro's `(`).
    directives: u64,
    work: u64,
    includes: usize,
    input_bytes: usize,
    arg_depth: u32,
    /// Expanding an `#if` line: `defined` is an operator.
    in_if: bool,
    /// Stop: a fatal error (missing include, a limit) happened.
    fatal: bool,
}

impl<'a> Pp<'a> {
    fn new(
        provider: &'a dyn FileProvider,
        opts: &'a PpOptions,
        files: &'a mut SourceFiles,
        limits: Limits,
        main: FileId,
        base_name: String,
    ) -> Pp<'a> {
        Pp {
            provider,
            opts,
            files,
            limits,
            main,
            base_name,
            diags: Vec::new(),
            stack: Vec::new(),
            macros: HashMap::new(),
            disabled: HashMap::new(),
            ctx: Vec::new(),
            lookahead: Vec::new(),
            out: Writer::new(limits.max_output, Span::new(main, 0, 0)),
            once: HashSet::new(),
            read_cache: HashMap::new(),
            names: HashMap::new(),
            counter: 0,
            line_start: None,
            seq: 1,
            directives: 0,
            work: 0,
            includes: 0,
            input_bytes: 0,
            arg_depth: 0,
            in_if: false,
            fatal: false,
        }
    }

    /// Reserves `n` consecutive `Token::seq` numbers for one macro's replacement list, with
    /// a gap on both sides so that different source lists never look adjacent.
    fn next_seq(&mut self, n: usize) -> u32 {
        let first = self.seq.wrapping_add(1).max(1);
        self.seq = first.wrapping_add(n as u32).wrapping_add(1);
        first
    }

    /// The `Token::seq` number of the next token read from a file.
    fn file_seq(&mut self) -> u32 {
        self.seq = self.seq.wrapping_add(1).max(1);
        self.seq
    }

    /// Records a fatal error: processing stops, the output so far is kept.
    fn fail(&mut self, d: Diagnostic) {
        if !self.fatal {
            self.diags.push(d);
        }
        self.fatal = true;
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    fn warning(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, msg));
    }

    /// The predefined and builtin macros, then the `-D` options in order.
    fn predefine(&mut self) {
        macros::define_builtins(self);
        for (name, value) in PREDEFINED {
            self.define_text(&format!("{name} {value}"), None);
        }
        for d in &self.opts.defines {
            let (name, value) = match d.split_once('=') {
                Some((n, v)) => (n, v),
                None => (d.as_str(), "1"),
            };
            let bare = name.split('(').next().unwrap_or("");
            let valid = bare.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
                && bare
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
            if !valid {
                let msg = format!("invalid -D option \"-D{d}\": macro names must be identifiers");
                self.error(Span::new(self.main, 0, 0), msg);
                continue;
            }
            self.define_text(&format!("{name} {value}"), Some(d));
        }
    }

    /// Starts reading a file (main or included) whose text is already in `files`.
    fn push_file(&mut self, path: PathBuf, id: FileId, text: &str) {
        self.input_bytes = self.input_bytes.saturating_add(text.len());
        if self.input_bytes > self.limits.max_input {
            let msg = "input too large (include loop?)";
            self.fail(Diagnostic::error(Span::new(id, 0, 0), msg));
            return;
        }
        let lexer = Lexer::new(id, text, &mut self.diags);
        self.out.marker();
        self.stack.push(FileState {
            id,
            presumed: path.display().to_string(),
            path,
            line_delta: 0,
            lexer,
            conds: Vec::new(),
        });
    }

    /// Expands and writes everything, file by file.
    fn run(&mut self) {
        while !self.fatal {
            match self.next_expanded(None) {
                Some(tok) => {
                    let start = self.line_start.take().filter(|_| self.out.at_line_start());
                    let indent = start.map_or(0, |s| self.column(s));
                    if !self.out.token(&tok, indent) {
                        self.fail(Diagnostic::error(tok.span, "preprocessed output too large"));
                    }
                }
                None => {
                    if !self.pop_file() {
                        break;
                    }
                }
            }
        }
        self.out.flush_newlines();
        self.out.end_line();
    }

    /// 0-based column (in characters) where a span starts.
    fn column(&self, span: Span) -> usize {
        let file = self.files.get(span.file);
        file.map_or(0, |f| f.line_col(span.start as usize).1 - 1)
    }

    fn finish(self) -> (Preprocessed, Vec<Diagnostic>) {
        let mut map = self.out.map;
        let mut names: Vec<(Rc<str>, u32)> = self.names.into_iter().collect();
        names.sort_by_key(|&(_, i)| i);
        map.names = names.into_iter().map(|(n, _)| n.to_string()).collect();
        let text = self.out.text;
        let markers = self.out.markers;
        (Preprocessed { text, map, markers }, self.diags)
    }
}
