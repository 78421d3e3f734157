//! `git rmc diff OLD NEW`: the impact analysis between two versions of a model, from files.

use std::path::{Path, PathBuf};

use clap::Args;

use super::error::Outcome;
use super::show::Format;
use crate::report;
use crate::rmc::{self, Base, Record, StableIds};

/// Show which locations of OLD a change makes dangerous: the statements that differ (after
/// preprocessing, inline expansion and name resolution, so renames, comments and moved
/// lines do not count), deleted code, labels read by remote references that moved. States
/// whose reachable part of the state space misses them are what a later check can skip.
///
/// OLD is a model file or a record written by `verify --record` (which holds its sources);
/// NEW is a model file. -D and -I apply to both model files.
///
///   git rmc diff v1.pml v2.pml
///   git rmc diff v1.rec v2.pml --format json
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The old version: a model file, or a record (.rec).
    pub old: PathBuf,
    #[command(flatten)]
    pub new: super::ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

fn is_record(p: &Path) -> bool {
    std::fs::read(p)
        .map(|b| Record::from_bytes(&b).is_ok() || b.starts_with(b"GITRMCR"))
        .unwrap_or(false)
}

pub fn cmd_diff(args: &DiffArgs) -> anyhow::Result<Outcome> {
    let old = if is_record(&args.old) {
        let rec = Record::read(&args.old)?;
        Base::from_record(rec)?
    } else {
        let old_args = super::ModelArgs {
            file: args.old.clone(),
            defines: args.new.defines.clone(),
            include: args.new.include.clone(),
        };
        let Some((loaded, program)) = super::load_model(&old_args)? else {
            return Ok(Outcome::ModelError);
        };
        let ids = StableIds::identity(&program);
        let mut program = program;
        ids.apply(&mut program)?;
        Base {
            record: placeholder_record(ids),
            program,
            files: loaded.files,
        }
    };
    let Some((loaded, mut program)) = super::load_model(&args.new)? else {
        return Ok(Outcome::ModelError);
    };
    let impact = rmc::analyze(&old.program, &program, old.record.ids.next_free);
    impact.ids.apply(&mut program)?;
    let doc = report::diff::document(
        &args.old.display().to_string(),
        &args.new.file.display().to_string(),
        (&old.program, &old.files),
        &program,
        &impact,
    );
    let _ = loaded;
    match args.format {
        Format::Text => super::out(&report::diff::text(&doc))?,
        Format::Json => super::out(&(serde_json::to_string_pretty(&doc)? + "\n"))?,
    }
    Ok(Outcome::Ok)
}

/// A record that only carries stable ids (a model file as the old version).
fn placeholder_record(ids: StableIds) -> Record {
    Record {
        meta: rmc::record::Meta {
            semantics: rmc::record::SEMANTICS,
            checks: rmc::record::Checks {
                end_states: true,
                assertions: true,
                empty_channels: false,
            },
            layout_hash: 0,
            figures: serde_json::Value::Null,
            prunable: true,
        },
        sources: Default::default(),
        ids,
        elements: Vec::new(),
        sets: Vec::new(),
        fingerprints: Vec::new(),
        set_of: Vec::new(),
        violations: Vec::new(),
    }
}
