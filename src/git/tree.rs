//! Files of a commit's tree: the front end's `FileProvider` over a commit, and the list of
//! a commit's files. Reads objects only, never the work tree, so a model is checked as it
//! was committed whatever is on disk.

use std::io;
use std::path::{Component, Path, PathBuf};

use git2::{FileMode, ObjectType, Tree, TreeWalkMode, TreeWalkResult};

use super::{CommitId, GitError, Repo};
use crate::promela::source::{normalize, FileProvider};

/// How many symbolic links one read may pass through before it is taken for a loop (the
/// limit Linux puts on path resolution).
const MAX_LINKS: usize = 40;

/// A commit's files, read through the front end's `FileProvider`. Paths are relative to the
/// repository root; `.` and `..` are taken lexically, and a path that leaves the tree is not
/// found.
pub struct TreeFiles<'r> {
    repo: &'r Repo,
    commit: CommitId,
    tree: Tree<'r>,
}

impl Repo {
    /// Reads files of a commit's tree, never the work tree.
    pub fn tree_files(&self, id: CommitId) -> Result<TreeFiles<'_>, GitError> {
        let tree = self.find_commit(id)?.tree()?;
        Ok(TreeFiles {
            repo: self,
            commit: id,
            tree,
        })
    }

    /// Every file path in the commit's tree (blobs, recursively, symbolic links included,
    /// submodules not), relative to the repository root, with `/` separators, in git's
    /// order.
    pub fn list_files(&self, id: CommitId) -> Result<Vec<PathBuf>, GitError> {
        let tree = self.find_commit(id)?.tree()?;
        let mut files = Vec::new();
        tree.walk(TreeWalkMode::PreOrder, |folder, entry| {
            if entry.kind() == Some(ObjectType::Blob) {
                // `folder` is "" or ends with "/", as git writes tree paths.
                let name = String::from_utf8_lossy(entry.name_bytes());
                files.push(PathBuf::from(format!("{folder}{name}")));
            }
            TreeWalkResult::Ok
        })?;
        Ok(files)
    }
}

impl TreeFiles<'_> {
    /// The commit these files are read from.
    #[cfg(test)]
    pub fn commit(&self) -> CommitId {
        self.commit
    }

    /// The bytes of the file at `path`, following symbolic links that stay inside the tree.
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        let mut parts = components(path)
            .ok_or_else(|| self.not_found(path, "not a path inside the repository"))?;
        let mut links = 0;
        'restart: loop {
            let mut tree = self.tree.clone();
            for (i, name) in parts.iter().enumerate() {
                let last = i + 1 == parts.len();
                let (mode, id) = match tree.get_name(name) {
                    Some(entry) => (entry.filemode(), entry.id()),
                    None => return Err(self.not_found(path, "no such file")),
                };
                if mode == i32::from(FileMode::Tree) {
                    if last {
                        return Err(self.not_found(path, "a folder, not a file"));
                    }
                    tree = self.repo.git.find_tree(id).map_err(io_error)?;
                } else if mode == i32::from(FileMode::Link) {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(io::Error::other(format!(
                            "{}: too many levels of symbolic links",
                            path.display()
                        )));
                    }
                    let target = self.blob(id)?;
                    // A link's target is relative to the folder holding the link; what
                    // is left of the path goes on from wherever it leads.
                    let mut next = PathBuf::from_iter(&parts[..i]);
                    next.push(String::from_utf8_lossy(&target).as_ref());
                    next.extend(&parts[i + 1..]);
                    parts = components(&next)
                        .ok_or_else(|| self.not_found(path, "a link that leaves the tree"))?;
                    continue 'restart;
                } else if mode == i32::from(FileMode::Commit) {
                    return Err(self.not_found(
                        path,
                        "in a submodule, whose files are not in this repository",
                    ));
                } else if last {
                    return self.blob(id);
                } else {
                    return Err(self.not_found(path, "no such file"));
                }
            }
            // Only an empty path gets here: the root is a folder.
            return Err(self.not_found(path, "a folder, not a file"));
        }
    }

    fn blob(&self, id: git2::Oid) -> io::Result<Vec<u8>> {
        let blob = self.repo.git.find_blob(id).map_err(io_error)?;
        Ok(blob.content().to_vec())
    }

    fn not_found(&self, path: &Path, why: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "{} in commit {}: {why}",
                path.display(),
                self.commit.short()
            ),
        )
    }
}

impl FileProvider for TreeFiles<'_> {
    /// Reads as `DiskProvider` does (text that is not UTF-8 is read lossily), from the tree.
    fn read(&self, path: &Path) -> io::Result<String> {
        let bytes = self.read_bytes(path)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// The names of a path relative to the repository root, after lexical normalisation; None
/// for a path that is absolute, leaves the root, or is not UTF-8 (git tree names we look
/// up are bytes, but every path the front end builds comes from UTF-8 text).
fn components(path: &Path) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for c in normalize(path).components() {
        match c {
            Component::Normal(name) => out.push(name.to_str()?.to_string()),
            _ => return None,
        }
    }
    Some(out)
}

/// Whatever goes wrong inside a tree we already hold (an object missing from a broken
/// repository) is an error of its own: as NotFound the front end would report a bad include.
fn io_error(e: git2::Error) -> io::Error {
    io::Error::other(format!("git: {}", e.message()))
}
