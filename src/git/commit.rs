//! The values the git layer hands out: commit ids and what a commit says about itself.
//! Plain data with no tie to an open repository, so callers can keep them anywhere.

use std::fmt;
use std::str::FromStr;

use super::GitError;

/// A commit id (40 hex digits). Display gives the full hex, `short()` the first 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommitId(git2::Oid);

impl CommitId {
    /// The first 7 hex digits, as `git log --oneline` shows in small repositories.
    pub fn short(&self) -> String {
        let mut hex = self.hex();
        hex.truncate(7);
        hex
    }

    /// All 40 hex digits.
    pub fn hex(&self) -> String {
        self.0.to_string()
    }

    pub(crate) fn oid(self) -> git2::Oid {
        self.0
    }
}

impl From<git2::Oid> for CommitId {
    fn from(oid: git2::Oid) -> CommitId {
        CommitId(oid)
    }
}

impl fmt::Display for CommitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for CommitId {
    type Err = GitError;

    /// Only a full id: git2 would pad a short prefix with zeros into some other id, and
    /// abbreviations need a repository to resolve (`Repo::resolve`).
    fn from_str(s: &str) -> Result<CommitId, GitError> {
        if s.len() != 40 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(GitError::BadCommitId(s.to_string()));
        }
        git2::Oid::from_str(s)
            .map(CommitId)
            .map_err(|_| GitError::BadCommitId(s.to_string()))
    }
}

impl serde::Serialize for CommitId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> serde::Deserialize<'de> for CommitId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CommitId, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// What a commit says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: CommitId,
    /// First parent first. Empty for a root commit and for a shallow clone's boundary.
    pub parents: Vec<CommitId>,
    /// The subject as `git log --format=%s` shows it: the first paragraph of the message on
    /// one line (for the usual one-line subject, the first line).
    pub subject: String,
    pub message: String,
    /// "Name <email>".
    pub author: String,
    /// Committer time, seconds since the epoch.
    pub time: i64,
}
