//! `git rmc show`: what will be checked in one model file.

use clap::{Args, ValueEnum};

use super::error::Outcome;
use crate::report;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Show what will be checked in a model, as git rmc reads it
///
/// Globals with their types and widths, channels, mtypes, typedefs, and per proctype its
/// active count, parameters, locals and automaton (location ids, labels, outgoing statements
/// with their target and file:line). Never claims and ltl formulas are listed and marked
/// "not checked yet".
///
///   git rmc show model.pml
///   git rmc show model.pml -D N=3 --format json
///
/// Exit status: 0 when the model is accepted, 2 with diagnostics on any error.
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ShowArgs {
    #[command(flatten)]
    pub model: super::ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_show(args: &ShowArgs) -> anyhow::Result<Outcome> {
    let Some((loaded, program)) = super::load_model(&args.model)? else {
        return Ok(Outcome::ModelError);
    };
    let doc = report::show::document(
        &args.model.file.display().to_string(),
        &program,
        &loaded.files,
    );
    match args.format {
        Format::Text => super::out(&report::show::text(&doc))?,
        Format::Json => super::out(&(serde_json::to_string_pretty(&doc)? + "\n"))?,
    }
    Ok(Outcome::Ok)
}
