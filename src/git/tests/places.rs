//! Finding a repository and the places git keeps things, from the main work tree, a
//! subfolder, a linked worktree and a bare repository, compared with `git rev-parse`.

use std::path::{Path, PathBuf};

use super::{git, Fixture};
use crate::git::{GitError, Repo};

/// A path that exists, as the file system names it, so that paths reached by different
/// routes compare equal.
fn real(p: &Path) -> PathBuf {
    p.canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `git rev-parse <args>` run in `dir`, as an absolute path (git answers relative to
/// `dir` when it can).
fn rev_parse_path(dir: &Path, args: &[&str]) -> PathBuf {
    let mut all = vec!["rev-parse"];
    all.extend(args);
    real(&dir.join(git(dir, &all)))
}

fn set_hooks_path(f: &Fixture, value: &str) {
    f.git
        .config()
        .unwrap()
        .set_str("core.hooksPath", value)
        .unwrap();
}

#[test]
fn discover_from_a_subfolder() {
    // git exports GIT_DIR to hooks, and discover rightly follows it then: run inside a hook,
    // this test would find that hook's repository instead of the fixture.
    if std::env::var_os("GIT_DIR").is_some() {
        return;
    }
    let f = Fixture::new();
    f.linear(1);
    let deep = f.root().join("models").join("inc");
    std::fs::create_dir_all(&deep).unwrap();
    let repo = Repo::discover(&deep).unwrap();
    assert_eq!(real(&repo.workdir().unwrap()), real(&f.root()));
    assert_eq!(real(&repo.common_dir()), real(&f.root().join(".git")));
    assert_eq!(real(&repo.git_dir()), real(&f.root().join(".git")));
    assert_eq!(
        real(&repo.common_dir()),
        rev_parse_path(&deep, &["--git-common-dir"])
    );
    assert!(!repo.is_shallow());
}

#[test]
fn not_a_repository() {
    let outside = tempfile::TempDir::new().unwrap();
    let e = Repo::open(outside.path()).err().unwrap();
    assert_eq!(e, GitError::NotARepository(outside.path().to_path_buf()));
    assert_eq!(
        e.to_string(),
        format!("not a git repository: {}", outside.path().display())
    );
    if std::env::var_os("GIT_DIR").is_none() {
        let e = Repo::discover(outside.path()).err().unwrap();
        assert_eq!(e, GitError::NotARepository(outside.path().to_path_buf()));
    }
}

#[test]
fn default_places() {
    let f = Fixture::new();
    f.linear(1);
    let repo = f.repo();
    let dot_git = real(&f.root().join(".git"));
    assert_eq!(real(&repo.workdir().unwrap()), real(&f.root()));
    assert_eq!(
        real(&repo.exclude_file()),
        dot_git.join("info").join("exclude")
    );
    // The path need not exist (a fresh repository from git2 has no hooks folder).
    assert_eq!(repo.hooks_dir().unwrap(), repo.common_dir().join("hooks"));
    assert_eq!(real(&repo.common_dir()), dot_git);
}

/// From a linked worktree the common directory, the exclude file and the default hooks
/// folder are the main repository's; the git directory is the worktree's own.
#[test]
fn linked_worktree() {
    let f = Fixture::new();
    f.linear(2);
    let wt = f.dir.path().join("wt");
    git(
        &f.root(),
        &["worktree", "add", "-q", "-b", "other", wt.to_str().unwrap()],
    );
    let repo = Repo::open(&wt).unwrap();
    let dot_git = real(&f.root().join(".git"));
    assert_eq!(real(&repo.workdir().unwrap()), real(&wt));
    assert_eq!(real(&repo.common_dir()), dot_git);
    assert_eq!(
        real(&repo.common_dir()),
        rev_parse_path(&wt, &["--git-common-dir"])
    );
    assert_eq!(real(&repo.git_dir()), dot_git.join("worktrees").join("wt"));
    assert_eq!(real(&repo.git_dir()), rev_parse_path(&wt, &["--git-dir"]));
    assert_eq!(
        real(&repo.exclude_file()),
        dot_git.join("info").join("exclude")
    );
    std::fs::create_dir_all(dot_git.join("hooks")).unwrap();
    assert_eq!(real(&repo.hooks_dir().unwrap()), dot_git.join("hooks"));
    assert_eq!(
        real(&repo.hooks_dir().unwrap()),
        rev_parse_path(&wt, &["--git-path", "hooks"])
    );
    if std::env::var_os("GIT_DIR").is_none() {
        let found = Repo::discover(&wt).unwrap();
        assert_eq!(real(&found.common_dir()), dot_git);
    }
}

/// A relative core.hooksPath is relative to the root of the work tree the command runs
/// in (git runs hooks there), from the main work tree and from a linked one alike.
#[test]
fn relative_hooks_path() {
    let f = Fixture::new();
    f.linear(1);
    set_hooks_path(&f, "tools/hooks");
    let wt = f.dir.path().join("wt");
    git(
        &f.root(),
        &["worktree", "add", "-q", "--detach", wt.to_str().unwrap()],
    );
    for root in [f.root(), wt] {
        std::fs::create_dir_all(root.join("tools/hooks")).unwrap();
        let sub = root.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let repo = Repo::open(&root).unwrap();
        let hooks = real(&repo.hooks_dir().unwrap());
        assert_eq!(hooks, real(&root.join("tools/hooks")));
        assert_eq!(hooks, rev_parse_path(&root, &["--git-path", "hooks"]));
        assert_eq!(hooks, rev_parse_path(&sub, &["--git-path", "hooks"]));
    }
}

#[test]
fn absolute_hooks_path() {
    let f = Fixture::new();
    f.linear(1);
    let elsewhere = f.dir.path().join("shared-hooks");
    std::fs::create_dir_all(&elsewhere).unwrap();
    set_hooks_path(&f, elsewhere.to_str().unwrap());
    let repo = f.repo();
    assert_eq!(repo.hooks_dir().unwrap(), elsewhere);
    assert_eq!(
        real(&repo.hooks_dir().unwrap()),
        rev_parse_path(&f.root(), &["--git-path", "hooks"])
    );
}

/// `~/` stands for the home folder, as git expands it; compared with git's own answer
/// because both read the same HOME.
#[test]
fn hooks_path_in_the_home_folder() {
    let f = Fixture::new();
    f.linear(1);
    set_hooks_path(&f, "~/git-rmc-test-hooks");
    let ours = f.repo().hooks_dir().unwrap();
    let theirs = git(&f.root(), &["rev-parse", "--git-path", "hooks"]);
    assert_eq!(ours, PathBuf::from(theirs));
    assert!(
        ours.is_absolute() && ours.ends_with("git-rmc-test-hooks"),
        "{}",
        ours.display()
    );
}

#[test]
fn bare_repository() {
    let f = Fixture::new();
    let ids = f.linear(2);
    let bare = f.dir.path().join("bare.git");
    git(
        f.dir.path(),
        &[
            "clone",
            "-q",
            "--bare",
            f.root().to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    git(&bare, &["config", "core.hooksPath", "my-hooks"]);
    std::fs::create_dir_all(bare.join("my-hooks")).unwrap();
    let repo = Repo::open(&bare).unwrap();
    assert_eq!(repo.workdir(), None);
    assert_eq!(real(&repo.common_dir()), real(&bare));
    assert_eq!(repo.head().unwrap(), Some(ids[1]));
    let hooks = real(&repo.hooks_dir().unwrap());
    assert_eq!(hooks, real(&bare.join("my-hooks")));
    assert_eq!(hooks, rev_parse_path(&bare, &["--git-path", "hooks"]));
}
