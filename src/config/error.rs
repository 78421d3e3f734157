//! What can be wrong with a `.rmc.toml`, and where: every error carries the file's name, the
//! line and column (1-based) and the byte span, so the command line can print
//! `file:line:col: message` or a diagnostic with a caret.

use std::ops::Range;

use super::memory::SizeError;

/// A `.rmc.toml` that cannot be used, with the place to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}:{line}:{column}: {kind}")]
pub struct ConfigError {
    /// The file as the caller named it (a path, or ".rmc.toml at 3f2a1bc").
    pub origin: String,
    pub line: usize,
    /// In characters, not bytes.
    pub column: usize,
    /// Bytes of the text the error is about.
    pub span: Range<usize>,
    /// Boxed to keep `Result<_, ConfigError>` small on the success path.
    pub kind: Box<ConfigErrorKind>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigErrorKind {
    #[error("invalid toml: {0}")]
    Syntax(String),
    #[error("unknown key '{key}' in {table} (expected one of: {})", expected.join(", "))]
    UnknownKey {
        key: String,
        table: &'static str,
        expected: &'static [&'static str],
    },
    #[error("missing key '{key}' in {table} ({why})")]
    MissingKey {
        key: &'static str,
        table: &'static str,
        why: &'static str,
    },
    #[error("'{key}' must be {expected}, not {found}")]
    WrongType {
        key: String,
        expected: &'static str,
        found: &'static str,
    },
    #[error("'{key}' cannot be \"{value}\" (expected one of: {})", allowed.join(", "))]
    NotAllowed {
        key: String,
        value: String,
        allowed: Vec<&'static str>,
    },
    #[error("'{key}' must be zero or more, not {value}")]
    Negative { key: String, value: i64 },
    #[error("'{key}' is not a size: {err}")]
    BadSize { key: String, err: SizeError },
    #[error("'{key}' is empty")]
    Empty { key: String },
    #[error("'{key}' must be relative to the repository root, not the absolute path {path}")]
    Absolute { key: String, path: String },
    #[error("'{key}' leaves the repository: {path}")]
    Escapes { key: String, path: String },
    #[error("'{key}' names no file: {path}")]
    NoFile { key: String, path: String },
    #[error("'{value}' in '{key}' is not NAME or NAME=VALUE (a macro name is a C identifier)")]
    BadDefine { key: String, value: String },
    #[error("two models are named '{name}' (the first at line {first_line}); give one of them a different 'name'")]
    DuplicateName { name: String, first_line: usize },
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    // A span never splits a character, but clamp to a boundary anyway rather than panic on
    // a caller's odd offset.
    let offset = (0..=offset)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}
