//! The git layer, the only module that uses git2: opening a repository, resolving
//! revisions and ranges, walking history in git's order, and reading a commit's files for
//! the front end. It knows nothing of Promela beyond the `FileProvider` it implements, and
//! writes to a repository only in `build` (a new repository from snapshots, for `demo`).

pub(crate) mod build;
mod commit;
mod error;
mod history;
mod repo;
mod tree;

pub use commit::{CommitId, CommitInfo};
pub use error::GitError;
pub use repo::Repo;
pub use tree::TreeFiles;

#[cfg(test)]
mod tests;
