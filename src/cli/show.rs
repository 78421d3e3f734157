//! `git rmc show`: what will be checked in one model file.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::error::Outcome;
use crate::report;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Show what will be checked in a model: globals with their types and widths, channels,
/// mtypes, typedefs, and per proctype its active count, parameters, locals and automaton
/// (location ids, labels, outgoing statements with their target and file:line). Never
/// claims and ltl formulas are listed and marked "not checked yet".
///
/// Exit status: 0 when the model is accepted, 2 with diagnostics on any error.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The Promela model (the main file; includes are read relative to it).
    pub file: PathBuf,
    /// Define a preprocessor macro, as `cpp -D` (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Add a folder to the #include search path, as `cpp -I`.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_show(args: &ShowArgs) -> anyhow::Result<Outcome> {
    let Some((loaded, program)) = super::load_model(&args.file, &args.defines, &args.include)?
    else {
        return Ok(Outcome::ModelError);
    };
    let doc = report::show::document(&args.file.display().to_string(), &program, &loaded.files);
    match args.format {
        Format::Text => super::out(&report::show::text(&doc))?,
        Format::Json => super::out(&(serde_json::to_string_pretty(&doc)? + "\n"))?,
    }
    Ok(Outcome::Ok)
}
