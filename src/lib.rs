//! git rmc: regression model checking for Promela models kept in git.
//!
//! The pipeline: `promela` preprocesses, lexes and parses a model into an AST with spans;
//! `program` resolves names, checks types and lowers each proctype to an automaton with
//! location ids unique across the model. The explorer, the regression engine and the git
//! layer build on these (see ARCHITECTURE.md). `config` reads `.rmc.toml` and `cache` owns
//! `.rmc/`; `cli` and `report` sit on top and are the only modules that talk to a terminal.

pub mod cache;
pub mod cli;
pub(crate) mod config;
pub mod explore;
pub(crate) mod git;
pub mod ltl;
pub mod program;
pub mod promela;
pub mod report;
pub mod rmc;

use std::path::Path;

/// A search's options (checks and limits), figures and verdict.
pub use explore::{Options, Stats, Verdict};
/// Where a model's files are read from (disk, memory; a git tree in the binary), and the
/// preprocessor's options (`-D`, `-I`).
pub use promela::preprocess::PpOptions;
pub use promela::source::{DiskProvider, FileProvider, MemoryProvider, SourceFiles};
/// One check of one version of a model, the engine's front door: a `Request` (the program,
/// the options, a `Base` to reuse and the `Algorithm`) becomes a `Checked` (figures, verdict,
/// violations with trails, new and fixed against the base, the record to write).
pub use rmc::check::{check, Algorithm, Base, CheckError, Checked, Mode, Request};
/// What a check leaves for the next: the record file.
pub use rmc::{Record, RecordError};

use promela::diag::Diagnostic;

/// A model read and checked by the front end.
pub struct Loaded {
    pub program: Option<program::Program>,
    pub files: SourceFiles,
    pub diags: Vec<Diagnostic>,
}

/// Reads, parses and lowers a model. `program` is `None` when any error was found.
pub fn load(main: &Path, provider: &dyn FileProvider, opts: &PpOptions) -> Loaded {
    let parsed = promela::parse_file(main, provider, opts);
    let mut diags = parsed.diags;
    let program = match &parsed.model {
        Some(m) => {
            let (p, mut d) = program::build(m);
            diags.append(&mut d);
            p
        }
        None => None,
    };
    Loaded {
        program,
        files: parsed.files,
        diags,
    }
}
