//! Opening a repository and the places git keeps things in it: the work tree, the common
//! directory shared by linked worktrees, the hooks folder and the exclude file. Reads
//! configuration, never writes anything.

use std::path::{Path, PathBuf};

use git2::{ErrorCode, Repository, RepositoryOpenFlags};

use super::GitError;

/// An open git repository (a work tree's, a linked worktree's or a bare one).
pub struct Repo {
    pub(super) git: Repository,
}

impl Repo {
    /// The repository containing `start` (a folder), as `git rev-parse` finds it: searching
    /// upwards, honouring the variables git honours (`GIT_CEILING_DIRECTORIES`,
    /// `GIT_WORK_TREE`...). `GIT_DIR`, which git sets for hooks and for `git --git-dir`,
    /// takes precedence over `start`, as it does for git.
    pub fn discover(start: &Path) -> Result<Repo, GitError> {
        let opened = if std::env::var_os("GIT_DIR").is_some() {
            Repository::open_from_env()
        } else {
            // FROM_ENV makes libgit2 read the environment as git does; without GIT_DIR it
            // searches upwards from `start`.
            Repository::open_ext(
                start,
                RepositoryOpenFlags::FROM_ENV,
                std::iter::empty::<&std::ffi::OsStr>(),
            )
        };
        opened.map(Repo::from).map_err(|e| not_found(e, start))
    }

    #[cfg(test)]
    /// The repository at `path` exactly (a work tree root, a `.git` folder or a bare
    /// repository), without searching upwards or reading the environment.
    pub fn open(path: &Path) -> Result<Repo, GitError> {
        Repository::open(path)
            .map(Repo::from)
            .map_err(|e| not_found(e, path))
    }

    /// The work tree root (None for a bare repository).
    pub fn workdir(&self) -> Option<PathBuf> {
        self.git.workdir().map(tidy)
    }

    /// This work tree's git directory (`.git`, or `.git/worktrees/NAME` for a linked
    /// worktree), as `git rev-parse --git-dir`.
    pub fn git_dir(&self) -> PathBuf {
        tidy(self.git.path())
    }

    /// As `git rev-parse --git-common-dir`: the main repository's `.git`, even from a linked
    /// worktree.
    pub fn common_dir(&self) -> PathBuf {
        tidy(self.git.commondir())
    }

    /// As `git rev-parse --git-path hooks`: `core.hooksPath` when set (with `~/` expanded;
    /// a relative value is relative to the work tree root, where git runs hooks, or to the
    /// git directory of a bare repository), else the common directory's `hooks`.
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        let config = self.git.config()?;
        match config.get_path("core.hooksPath") {
            Ok(p) if p.is_absolute() => Ok(p),
            Ok(p) => {
                let base = self.workdir().unwrap_or_else(|| self.git_dir());
                Ok(base.join(p))
            }
            Err(e) if e.code() == ErrorCode::NotFound => Ok(self.common_dir().join("hooks")),
            Err(e) => Err(e.into()),
        }
    }

    /// `<common dir>/info/exclude`, the repository's own ignore file (shared by worktrees).
    pub fn exclude_file(&self) -> PathBuf {
        self.common_dir().join("info").join("exclude")
    }

    /// Whether this is a shallow clone (older history is missing).
    pub fn is_shallow(&self) -> bool {
        self.git.is_shallow()
    }
}

impl From<Repository> for Repo {
    fn from(git: Repository) -> Repo {
        Repo { git }
    }
}

/// libgit2 says NotFound when no repository is there; anything else (a corrupt config, no
/// permission) keeps its own message.
fn not_found(e: git2::Error, path: &Path) -> GitError {
    if e.code() == ErrorCode::NotFound {
        GitError::NotARepository(path.to_path_buf())
    } else {
        e.into()
    }
}

/// libgit2 gives folders with a trailing `/`; rebuilding from the components drops it so
/// the path displays and joins like any other.
fn tidy(p: &Path) -> PathBuf {
    p.components().collect()
}
