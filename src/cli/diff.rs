//! `git rmc diff OLD NEW`: the impact analysis between two versions of a model, from files.

use std::path::{Path, PathBuf};

use clap::Args;

use super::error::Outcome;
use super::show::Format;
use crate::report;
use crate::rmc::{self, Base, Record, StableIds};

/// Show which locations of OLD a change makes dangerous
///
/// The statements that differ (after preprocessing, inline expansion and name resolution,
/// so renames, comments and moved lines do not count), deleted code, labels read by remote
/// references that moved. States whose reachable part of the state space misses them are
/// what a later check can skip.
///
/// With two files: OLD is a model file or a record written by `verify --record` (which
/// holds its sources), NEW a model file; -D and -I apply to both model files. Otherwise OLD
/// and NEW are commits, and every model of NEW's configuration (or those named after --)
/// is compared.
///
///   git rmc diff v1.pml v2.pml
///   git rmc diff v1.rec v2.pml --format json
///   git rmc diff HEAD~1 HEAD
///   git rmc diff main feature -- models/mesi.pml
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct DiffArgs {
    /// The old version: a model file, a record (.rec), or a commit.
    pub old: String,
    /// The new version: a model file or a commit.
    pub new: String,
    /// Define a preprocessor macro for both model files, as `cpp -D`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Add a folder to the #include search path of both model files, as `cpp -I`.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// With commits: only the models whose entry file is one of these paths.
    #[arg(last = true, value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
}

fn is_record(p: &Path) -> bool {
    // By its magic only: a record of 10^7 states is gigabytes, read once, by the diff.
    let mut magic = [0u8; 7];
    std::fs::File::open(p)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| &magic == b"GITRMCR")
}

pub fn cmd_diff(args: &DiffArgs) -> anyhow::Result<Outcome> {
    let (old_p, new_p) = (Path::new(&args.old), Path::new(&args.new));
    if !(old_p.is_file() && new_p.is_file()) {
        return diff_commits(args);
    }
    let new_args = super::ModelArgs {
        file: new_p.to_path_buf(),
        defines: args.defines.clone(),
        include: args.include.clone(),
    };
    let old = if is_record(old_p) {
        // The impact analysis reads the model and the ids, not the state graph.
        let rec = Record::read_without_states(old_p)?;
        Base::from_record(rec)?
    } else {
        let old_args = super::ModelArgs {
            file: old_p.to_path_buf(),
            defines: args.defines.clone(),
            include: args.include.clone(),
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
            unread: None,
            partial: None,
        }
    };
    let Some((_, mut program)) = super::load_model(&new_args)? else {
        return Ok(Outcome::ModelError);
    };
    let impact = rmc::analyze(&old.program, &program, old.record.ids.next_free);
    impact.ids.apply(&mut program)?;
    let doc = report::diff::document(
        &args.old,
        &args.new,
        (&old.program, &old.files),
        &program,
        &impact,
    );
    match args.format {
        Format::Text => super::out(&report::diff::text(&doc))?,
        Format::Json => super::out(&(serde_json::to_string_pretty(&doc)? + "\n"))?,
    }
    Ok(Outcome::Ok)
}

/// The impact analysis of every model between two commits.
fn diff_commits(args: &DiffArgs) -> anyhow::Result<Outcome> {
    use super::walk::{At, Session};
    let cwd = std::env::current_dir()?;
    let mut s = Session::open(&cwd)?;
    s.paths = super::relative_paths(&s.root, &cwd, &args.paths);
    let a = s.repo.resolve(&args.old)?;
    let b = s.repo.resolve(&args.new)?;
    let models = s.models(At::Commit(b))?;
    let mut docs: Vec<serde_json::Value> = Vec::new();
    let mut text = String::new();
    let mut failed = 0usize;
    let (ta, tb) = (s.repo.tree_files(a)?, s.repo.tree_files(b)?);
    for m in &models.config.models {
        let pp = crate::promela::preprocess::PpOptions {
            defines: m.defines.clone(),
            include_dirs: m.include.clone(),
        };
        // One model that is absent or does not load at either commit is reported, and the
        // others are compared all the same.
        let mut why = None;
        let mut load = |t: &crate::git::TreeFiles, at: &str| {
            use crate::promela::source::FileProvider;
            if t.read(&m.entry).is_err() {
                why.get_or_insert(format!("{} is not in {at}", m.entry.display()));
                return None;
            }
            let l = crate::load(&m.entry, t, &pp);
            if l.program.is_none() {
                eprint!(
                    "{}",
                    crate::report::diagnostics::render(&l.files, &l.diags, super::color())
                );
                why.get_or_insert(format!("the model does not load at {at}"));
            }
            Some(l)
        };
        let la = load(&ta, &args.old).and_then(|l| Some((l.program?, l.files)));
        let lb = load(&tb, &args.new).and_then(|l| l.program);
        let (Some((mut pa, files_a)), Some(mut pb)) = (la, lb) else {
            failed += 1;
            let why = why.unwrap_or_default();
            eprintln!("error: {}: {why}; not compared", m.name);
            docs.push(serde_json::json!({"model": m.name, "error": why}));
            continue;
        };
        let ids = StableIds::identity(&pa);
        ids.apply(&mut pa)?;
        let impact = rmc::analyze(&pa, &pb, ids.next_free);
        impact.ids.apply(&mut pb)?;
        let doc = report::diff::document(
            &format!("{}:{}", a.short(), m.entry.display()),
            &format!("{}:{}", b.short(), m.entry.display()),
            (&pa, &files_a),
            &pb,
            &impact,
        );
        text.push_str(&report::diff::text(&doc));
        docs.push(serde_json::to_value(&doc)?);
    }
    match args.format {
        Format::Text => super::out(&text)?,
        Format::Json => super::out(&(serde_json::to_string_pretty(&docs)? + "\n"))?,
    }
    Ok(if failed > 0 {
        Outcome::ModelError
    } else {
        Outcome::Ok
    })
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
            executed: Vec::new(),
            prunable: true,
        },
        sources: Default::default(),
        ids,
        elements: Vec::new(),
        sets: Vec::new(),
        fingerprints: Default::default(),
        set_of: Vec::new(),
        violations: Vec::new(),
        trails: Vec::new(),
        graph: None,
    }
}
