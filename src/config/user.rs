//! The user's own settings: one TOML file in the platform's configuration folder (found by
//! the command line, `cli::user`), whose values are defaults that `.rmc.toml` and flags
//! override.
//!
//! ```toml
//! memory = "8G"        # the memory limit of a check where .rmc.toml sets none (or "auto")
//! color = "never"      # auto | always | never, where --color is not given
//! progress = "never"   # auto | always | never, where --progress is not given
//!
//! [cache]
//! max_size = "10G"     # the records' size budget where .rmc.toml sets none
//! ```
//!
//! Unknown keys and bad values are errors with the file's name, line and column, as in
//! `.rmc.toml` (`parse`).

use super::{CacheSettings, ConfigError, MemoryLimit};

/// What the user's settings file says; `None` where it is silent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserConfig {
    pub memory: Option<MemoryLimit>,
    pub color: Option<Choice>,
    pub progress: Option<Choice>,
    pub cache: CacheSettings,
}

/// `auto`, `always` or `never`: the words of `--color` and `--progress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Auto,
    Always,
    Never,
}

impl Choice {
    pub const ALL: [Choice; 3] = [Choice::Auto, Choice::Always, Choice::Never];

    pub fn as_str(self) -> &'static str {
        match self {
            Choice::Auto => "auto",
            Choice::Always => "always",
            Choice::Never => "never",
        }
    }
}

impl UserConfig {
    /// Parses the text of the user's settings file; `origin` (its path) names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<UserConfig, ConfigError> {
        super::parse::parse_user(text, origin)
    }
}
