//! `.rmc.toml`, the repository's settings: which models `git rmc check` checks, with which
//! preprocessor options, checks and limits, which violations fail a check, and where the
//! cache lives and how large it may grow. Owns the settings' types and defaults, parsing with
//! errors that point at a line and column (`parse`), the commented file `git rmc init`
//! writes (`template`), and the user's own settings file (`user`), whose defaults
//! `.rmc.toml` overrides.
//!
//! **Invariant:** takes text and returns values; never reads files, knows nothing of git
//! (the caller reads `.rmc.toml` from the work tree or a commit and names it in `origin`),
//! and prints nothing.
//!
//! ```toml
//! fail_on = "new"              # or "any"
//! cache_dir = ".rmc"           # relative to the work tree root
//!
//! [cache]
//! max_size = "2G"              # records kept, least recently used dropped past it
//!
//! [[model]]
//! name = "elevator"            # default: the entry's file stem
//! entry = "models/elevator.pml"
//! defines = ["FLOORS=3"]       # cpp -D
//! include = ["models/include"] # cpp -I
//! algorithm = "auto"           # auto | prune | replay | full
//! [model.checks]               # end_states, assertions, empty_channels, max_trails,
//!                              # claims ("all", "none" or names), fair, non_progress
//! [model.limits]               # max_depth, max_states, max_errors, memory
//! ```

mod error;
pub(crate) mod memory;
mod parse;
mod template;
pub(crate) mod user;

use std::fmt;
use std::path::{Path, PathBuf};

pub use error::ConfigError;
pub use memory::{MemoryLimit, Size};
pub use user::{Choice, UserConfig};

use crate::explore;

/// The file's name at the repository root.
pub const FILE_NAME: &str = ".rmc.toml";

/// Everything `.rmc.toml` says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub fail_on: FailOn,
    /// As written: relative paths are relative to the work tree root (see
    /// `cache::location`, which also applies `GIT_RMC_CACHE_DIR`).
    pub cache_dir: Option<PathBuf>,
    /// `[cache]`.
    pub cache: CacheSettings,
    /// In the file's order; names are unique.
    pub models: Vec<ModelConfig>,
}

/// `[cache]`, in `.rmc.toml` or the user's settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheSettings {
    /// How many bytes of records the cache (and the store) keeps: past it, after a run, the
    /// least recently used records that no branch tip needs are dropped. `None`: not set
    /// here (the user's setting, else `DEFAULT_MAX_SIZE`).
    pub max_size: Option<Size>,
}

/// The size budget of records when neither `.rmc.toml` nor the user's settings set one.
pub const DEFAULT_MAX_SIZE: &str = "2G";

/// Which violations make a check fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Only violations not present at the base commit.
    #[default]
    New,
    /// Every violation.
    Any,
}

/// One model to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// Unique within the file: the model's name in output and its key in the cache.
    pub name: String,
    /// The main file, relative to the repository root, normalised (no `.` or `..`).
    pub entry: PathBuf,
    /// `NAME` or `NAME=VALUE`, as `cpp -D`.
    pub defines: Vec<String>,
    /// Folders relative to the repository root, normalised, as `cpp -I`.
    pub include: Vec<PathBuf>,
    pub algorithm: Algorithm,
    pub checks: Checks,
    pub limits: Limits,
}

/// How a check reuses the base commit's record (DESIGN.md 5.5): the engine's enum.
pub use crate::rmc::check::Algorithm;

/// Which of a model's never claims and `ltl` formulas a check checks, each on its own after
/// the safety properties (as `spin -search -ltl NAME`, acceptance cycles included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ClaimSet {
    /// Every one (the default: a model's claims are its properties).
    #[default]
    All,
    /// None: the safety properties alone.
    None,
    /// Those named (a never claim's or a formula's name).
    Named(Vec<String>),
}

impl ClaimSet {
    /// Whether the claim named `name` is checked.
    pub fn includes(&self, name: &str) -> bool {
        match self {
            ClaimSet::All => true,
            ClaimSet::None => false,
            ClaimSet::Named(v) => v.iter().any(|n| n == name),
        }
    }
}

/// What a check reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checks {
    /// Invalid end states (pan without `-E`).
    pub end_states: bool,
    /// Assertion violations (pan without `-A`).
    pub assertions: bool,
    /// A valid end state also needs every channel empty (pan `-q`).
    pub empty_channels: bool,
    /// Trails built and kept per kind of violation.
    pub max_trails: usize,
    /// The claims checked after the safety properties.
    pub claims: ClaimSet,
    /// Weak fairness in the search for acceptance (and non-progress) cycles (pan -f).
    pub fair: bool,
    /// Non-progress cycles looked for too, with spin's np_ claim (pan -l).
    pub non_progress: bool,
}

/// Where a check stops; a search a limit cuts is incomplete.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub max_depth: Option<u64>,
    pub max_states: Option<u64>,
    /// `max_errors = 0` in the file means no limit and is `None` here.
    pub max_errors: Option<u64>,
    pub memory: MemoryLimit,
}

impl Default for Checks {
    fn default() -> Self {
        Checks {
            end_states: true,
            assertions: true,
            empty_channels: false,
            max_trails: explore::outcome::DEFAULT_MAX_TRAILS,
            claims: ClaimSet::All,
            fair: false,
            non_progress: false,
        }
    }
}

impl Config {
    /// Parses the text of a `.rmc.toml`; `origin` names it in errors (a path, or
    /// ".rmc.toml at 3f2a1bc").
    pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
        parse::parse(text, origin)
    }

    /// The commented file `git rmc init` writes: one `[[model]]` per entry (relative paths),
    /// every option shown commented out with its default and a one-line explanation. Parses
    /// back to the same models; entries whose file stems clash get a `name` that tells them
    /// apart.
    pub fn template(entries: &[PathBuf]) -> String {
        template::template(entries)
    }

    /// One model with every default: what a repository without `.rmc.toml` checks.
    pub fn single(entry: &Path) -> Config {
        Config {
            models: vec![ModelConfig::new(entry.to_path_buf())],
            ..Config::default()
        }
    }
}

impl ModelConfig {
    /// A model with every default, named after its entry's file stem.
    pub fn new(entry: PathBuf) -> ModelConfig {
        ModelConfig {
            name: default_name(&entry),
            entry,
            defines: Vec::new(),
            include: Vec::new(),
            algorithm: Algorithm::default(),
            checks: Checks::default(),
            limits: Limits::default(),
        }
    }

    /// The explorer's options for this model. `memory_limit` is `limits.memory` resolved to
    /// bytes by the caller (`auto` depends on the machine, see `cli::memory::resolve`).
    pub fn search_options(&self, memory_limit: Option<u64>) -> explore::Options {
        explore::Options {
            end_states: self.checks.end_states,
            assertions: self.checks.assertions,
            empty_channels: self.checks.empty_channels,
            max_depth: self.limits.max_depth,
            max_states: self.limits.max_states,
            max_errors: self.limits.max_errors,
            memory_limit,
            max_trails: self.checks.max_trails,
            acceptance: false,
            // Weak fairness applies to the claims' searches for cycles (acceptance on).
            fair: self.checks.fair,
            ..explore::Options::default()
        }
    }
}

/// The entry's file stem (`models/elevator.pml` → `elevator`), or the whole path when it has
/// none.
fn default_name(entry: &Path) -> String {
    entry
        .file_stem()
        .unwrap_or(entry.as_os_str())
        .to_string_lossy()
        .into_owned()
}

impl FailOn {
    pub const ALL: [FailOn; 2] = [FailOn::New, FailOn::Any];

    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::New => "new",
            FailOn::Any => "any",
        }
    }
}

impl fmt::Display for FailOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;
