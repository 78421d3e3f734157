//! git rmc: regression model checking for Promela models kept in git.
//!
//! The pipeline: `promela` preprocesses, lexes and parses a model into an AST with spans;
//! `program` resolves names, checks types and lowers each proctype to an automaton with
//! location ids unique across the model. The explorer, the regression engine and the git
//! layer build on these (see ARCHITECTURE.md). `config` reads `.rmc.toml` and `cache` owns
//! `.rmc/`; `cli` and `report` sit on top and are the only modules that talk to a terminal.

pub mod cache;
pub mod cli;
pub mod config;
pub mod explore;
pub mod git;
pub mod ltl;
pub mod program;
pub mod promela;
pub mod report;
pub mod rmc;

use std::path::Path;

use promela::diag::Diagnostic;
use promela::preprocess::PpOptions;
use promela::source::{FileProvider, SourceFiles};

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
