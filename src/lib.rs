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

/// Reads a model as `load` does, with the never claim of each `ltl` formula added after the
/// model's own units, as spin adds them for a verification: the claim `ltl` translates
/// exactly as spin does (`never_claim_for_ltl`), parsed as a `never` claim of a file named
/// `_spin_nvr.tmp`. A formula the translator rejects is an error at the formula.
pub fn load_with_claims(main: &Path, provider: &dyn FileProvider, opts: &PpOptions) -> Loaded {
    load_adding(main, provider, opts, false)
}

/// Reads a model as `load` does, with the claim of a search for non-progress cycles added
/// (`explore::claim::NP_CLAIM`, pan's built-in claim of `-DNP`), in the same file as
/// `load_with_claims` adds an `ltl` formula's. The model's own `ltl` formulas are not
/// translated (pan -l leaves the model's claims out).
pub fn load_for_non_progress(main: &Path, provider: &dyn FileProvider, opts: &PpOptions) -> Loaded {
    load_adding(main, provider, opts, true)
}

fn load_adding(
    main: &Path,
    provider: &dyn FileProvider,
    opts: &PpOptions,
    non_progress: bool,
) -> Loaded {
    use promela::ast::Unit;
    let parsed = promela::parse_file(main, provider, opts);
    let mut diags = parsed.diags;
    let mut files = parsed.files;
    let program = match parsed.model {
        Some(mut m) => {
            let mut text = String::new();
            if non_progress {
                text.push_str(explore::claim::NP_CLAIM_TEXT);
            }
            for (k, u) in m.units.iter().enumerate() {
                if non_progress {
                    break;
                }
                let Unit::Ltl(l) = u else { continue };
                let count = m.units[..k]
                    .iter()
                    .filter(|u| matches!(u, Unit::Ltl(_)))
                    .count();
                let name = l.name.clone().unwrap_or_else(|| format!("ltl_{count}"));
                let formula = program::ltl_text::spin_text(&l.formula);
                if let Some(why) = program::ltl_text::folded_temporal(&l.formula) {
                    diags.push(Diagnostic::warning(
                        l.span,
                        format!("ltl {name}: {why}: `{formula}`"),
                    ));
                }
                match ltl::never_claim_for_ltl(&name, &formula) {
                    Ok(c) => text.push_str(&c),
                    Err(e) => {
                        diags.push(Diagnostic::error(l.span, format!("ltl {name}: {e}")));
                    }
                }
            }
            if !text.is_empty() && !promela::diag::has_errors(&diags) {
                let (claims, mut d) = promela::parse_claims(&text, &m, &mut files);
                diags.append(&mut d);
                m.units.extend(claims.into_iter().map(Unit::Never));
            }
            if promela::diag::has_errors(&diags) {
                None
            } else {
                let (p, mut d) = program::build(&m);
                diags.append(&mut d);
                p
            }
        }
        None => None,
    };
    Loaded {
        program,
        files,
        diags,
    }
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
