//! The version a check builds on (its record and the program rebuilt from the sources the
//! record holds), and what a check records of the version it checks: its sources and its
//! checks.

use std::path::{Path, PathBuf};

use crate::explore::Options;
use crate::program::Program;
use crate::promela::preprocess::PpOptions;
use crate::promela::source::{MemoryProvider, SourceFiles};
use crate::rmc::record::{Checks, Record, Sources};

/// The version a check builds on: its record, its program (with stable ids) and the
/// sources it was read from (to show where its violations were).
pub struct Base {
    pub record: Record,
    pub program: Program,
    pub files: SourceFiles,
    /// A base read without its states (`Base::lazy`): where they are, until a plan needs
    /// them (`Base::read_states`). A full check never does.
    pub(crate) unread: Option<Unread>,
    /// The states' fingerprints and sets read, their graph not yet
    /// (`Base::read_fingerprints`).
    pub(crate) partial: Option<crate::rmc::record::PartialStates>,
}

/// The states of a base's record, not read yet.
pub(crate) struct Unread {
    file: std::fs::File,
    path: PathBuf,
    states: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum BaseError {
    #[error("the record's model no longer loads with this git rmc ({0})")]
    Reload(String),
    #[error(transparent)]
    Ids(#[from] crate::rmc::diff::ids::MissingId),
    #[error(transparent)]
    Record(#[from] crate::rmc::record::RecordError),
}

impl Base {
    /// Reads the record in `file` (at `path`) and rebuilds its version, the record's states
    /// (fingerprints, sets of states, graph) left in the file until `read_states`: the
    /// model, its ids and its violations are read, and the number of its states. The one way
    /// a base is loaded, from a file the user names (`verify --reuse`) or from the cache.
    pub fn lazy(path: &Path, file: &std::fs::File) -> Result<Base, BaseError> {
        let (head, states) = Record::head_from_file(file, path)?;
        let mut base = Base::from_record(head)?;
        let file = file.try_clone().map_err(|err| {
            BaseError::Record(crate::rmc::record::RecordError::Io {
                path: path.display().to_string(),
                err,
            })
        })?;
        base.unread = Some(Unread {
            file,
            path: path.to_path_buf(),
            states,
        });
        Ok(base)
    }

    /// The number of states the record holds, read or not.
    pub fn states(&self) -> u64 {
        match &self.unread {
            Some(u) => u.states,
            None => self.record.fingerprints.len() as u64,
        }
    }

    /// Whether the record's states are in memory, their graph included.
    pub fn has_states(&self) -> bool {
        self.unread.is_none() && self.partial.is_none()
    }

    /// Whether the record's fingerprints and sets are in memory.
    pub fn has_fingerprints(&self) -> bool {
        self.unread.is_none()
    }

    /// Reads the record's states, where `lazy` left them (the head read then is not read
    /// again). The record read must be the one whose head was read: same model, same ids,
    /// as many states.
    pub fn read_states(&mut self) -> Result<(), BaseError> {
        self.read_fingerprints()?;
        if let Some(p) = self.partial.take() {
            self.record.read_graph(p)?;
        }
        Ok(())
    }

    /// Reads the record's fingerprints and sets, not its graph (`read_states` reads the
    /// rest): what a lookup of states by fingerprint needs.
    pub fn read_fingerprints(&mut self) -> Result<(), BaseError> {
        let Some(u) = self.unread.take() else {
            return Ok(());
        };
        self.partial = Some(
            self.record
                .read_fingerprints_from(&u.file, &u.path, u.states)?,
        );
        Ok(())
    }

    /// Rebuilds the recorded version's program from the sources the record holds.
    pub fn from_record(record: Record) -> Result<Base, BaseError> {
        let mut provider = MemoryProvider::new();
        for (n, t) in &record.sources.files {
            provider = provider.with(n.clone(), t.clone());
        }
        let opts = PpOptions {
            defines: record.sources.defines.clone(),
            include_dirs: record
                .sources
                .include_dirs
                .iter()
                .map(PathBuf::from)
                .collect(),
        };
        // The recorded version was checked with its `ltl` formulas' claims, unless none was
        // checked: its layout (which the record's fingerprints are seeded with) says which.
        let main = Path::new(&record.sources.main);
        let hash = |l: &crate::Loaded| {
            l.program
                .as_ref()
                .and_then(|p| crate::explore::layout::Layout::new(p).ok())
                .map(|l| l.hash)
        };
        let with_claims = crate::load_with_claims(main, &provider, &opts);
        let loaded = match hash(&with_claims) == Some(record.meta.layout_hash) {
            true => with_claims,
            false => crate::load(main, &provider, &opts),
        };
        let Some(mut program) = loaded.program else {
            let first = loaded
                .diags
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_default();
            return Err(BaseError::Reload(first));
        };
        record.ids.apply(&mut program)?;
        Ok(Base {
            record,
            program,
            files: loaded.files,
            unread: None,
            partial: None,
        })
    }
}

/// The sources of a model as loaded, for its record.
pub fn sources_of(main: &Path, files: &SourceFiles, opts: &PpOptions) -> Sources {
    Sources {
        main: main.display().to_string(),
        files: files
            .files
            .iter()
            .map(|f| (f.name.clone(), f.text.clone()))
            .collect(),
        defines: opts.defines.clone(),
        include_dirs: opts
            .include_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
    }
}

pub fn checks_of(o: &Options) -> Checks {
    Checks {
        end_states: o.end_states,
        assertions: o.assertions,
        empty_channels: o.empty_channels,
    }
}

/// Whether a model's successors are a function of its stored state: pan's `hidden`
/// variables travel with the search path instead.
pub(super) fn prunable(p: &Program) -> bool {
    !p.globals
        .iter()
        .any(|v| v.vis == crate::promela::ast::Visibility::Hidden)
}
