//! `GitError`: what can go wrong when the git layer reads a repository, worded for the user
//! who typed the revision or ran the command in the wrong folder.

use std::path::PathBuf;

use super::CommitId;

/// An error of the git layer. git2's own errors become `Git` with libgit2's message, so that
/// no other module needs to know git2's types.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    #[error("not a git repository: {}", .0.display())]
    NotARepository(PathBuf),
    #[error("unknown revision `{0}`")]
    UnknownRevision(String),
    #[error("ambiguous revision `{0}`: more than one object starts with it")]
    AmbiguousRevision(String),
    #[error("revision `{0}` does not name a commit")]
    NotACommit(String),
    #[error("bad range `{spec}`: {reason}")]
    BadRange { spec: String, reason: &'static str },
    #[error("`{0}` is not a full commit id (40 hex digits)")]
    BadCommitId(String),
    #[error("empty repository (no commits yet)")]
    EmptyRepository,
    #[error(
        "commit {0} is missing from this shallow clone (`git fetch --unshallow` fetches the rest of the history)"
    )]
    MissingFromShallow(CommitId),
    #[error("no commit {0} in this repository")]
    UnknownCommit(CommitId),
    #[error("git: {0}")]
    Git(String),
}

impl From<git2::Error> for GitError {
    fn from(e: git2::Error) -> GitError {
        // Display of git2::Error appends libgit2's class and code numbers, which tell a user
        // nothing; the message alone reads like git's own.
        GitError::Git(e.message().to_string())
    }
}
