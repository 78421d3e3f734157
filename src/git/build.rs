//! Building a repository from snapshots: a new repository in a folder and one commit per
//! snapshot, with fixed author, committer and dates. The one place this module writes to a
//! repository, for `git rmc demo`.

use std::path::{Path, PathBuf};

use super::{CommitId, GitError};

/// One commit to make: the complete set of files (path, text), its message and its date
/// (seconds since the epoch, UTC).
pub struct Snapshot {
    pub files: Vec<(PathBuf, String)>,
    pub message: String,
    pub time: i64,
}

/// Creates a repository in `dir` (which must not hold one) whose history is `snapshots`,
/// oldest first, on branch `main`; the work tree holds the last snapshot. Returns the
/// commits.
pub fn build(
    dir: &Path,
    snapshots: &[Snapshot],
    author: (&str, &str),
) -> Result<Vec<CommitId>, GitError> {
    let mut opts = git2::RepositoryInitOptions::new();
    opts.initial_head("main");
    let repo = git2::Repository::init_opts(dir, &opts)?;
    let mut parent: Option<git2::Oid> = None;
    let mut out = Vec::new();
    for s in snapshots {
        let mut index = repo.index()?;
        index.clear()?;
        for (p, text) in &s.files {
            let full = dir.join(p);
            if let Some(d) = full.parent() {
                std::fs::create_dir_all(d).map_err(|e| GitError::Git(e.to_string()))?;
            }
            std::fs::write(&full, text).map_err(|e| GitError::Git(e.to_string()))?;
            index.add_path(p)?;
        }
        // Files of the previous snapshot that this one does not have.
        if let Some(pid) = parent {
            let old = repo.find_commit(pid)?.tree()?;
            old.walk(git2::TreeWalkMode::PreOrder, |folder, e| {
                let p = PathBuf::from(format!("{folder}{}", e.name().unwrap_or("")));
                if e.kind() == Some(git2::ObjectType::Blob) && !s.files.iter().any(|(f, _)| f == &p)
                {
                    let _ = std::fs::remove_file(dir.join(&p));
                }
                git2::TreeWalkResult::Ok
            })?;
        }
        let tree = repo.find_tree(index.write_tree()?)?;
        index.write()?;
        let sig = git2::Signature::new(author.0, author.1, &git2::Time::new(s.time, 0))?;
        let parents: Vec<git2::Commit> = parent
            .iter()
            .filter_map(|p| repo.find_commit(*p).ok())
            .collect();
        let refs: Vec<&git2::Commit> = parents.iter().collect();
        let id = repo.commit(Some("HEAD"), &sig, &sig, &s.message, &tree, &refs)?;
        parent = Some(id);
        out.push(CommitId::from(id));
    }
    Ok(out)
}
