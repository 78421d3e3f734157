//! Tests of the git layer on temporary repositories built with git2, with fixed names,
//! emails and times so that commit ids are the same on every run. Where git's own answer is
//! the specification (walk order, paths), the test asks the `git` command and compares.

mod history;
mod places;
mod tree;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use git2::{Oid, Repository, RepositoryInitOptions, Signature, Time};
use tempfile::TempDir;

use super::{CommitId, Repo};

/// The committer time of a fixture's first commit; each further commit is a minute later
/// unless a test sets the time.
const EPOCH: i64 = 1_700_000_000;

/// One entry of a tree to commit.
#[derive(Clone, Copy)]
pub(super) enum Node<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
    Link(&'a str),
    Submodule(CommitId),
}

/// A repository in a temporary folder, written through git2 (never through a work tree).
pub(super) struct Fixture {
    pub dir: TempDir,
    pub git: Repository,
    clock: Cell<i64>,
}

impl Fixture {
    /// An empty repository whose unborn HEAD is `main`, in `<tmp>/repo`.
    pub fn new() -> Fixture {
        let dir = TempDir::new().unwrap();
        let mut opts = RepositoryInitOptions::new();
        opts.initial_head("main");
        let git = Repository::init_opts(dir.path().join("repo"), &opts).unwrap();
        Fixture {
            dir,
            git,
            clock: Cell::new(EPOCH),
        }
    }

    /// The work tree root.
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    pub fn repo(&self) -> Repo {
        Repo::open(&self.root()).unwrap()
    }

    /// A commit of text files with the given parents; no ref moves.
    pub fn commit(&self, message: &str, parents: &[CommitId], files: &[(&str, &str)]) -> CommitId {
        let nodes: Vec<_> = files.iter().map(|&(p, t)| (p, Node::Text(t))).collect();
        self.commit_nodes(message, parents, &nodes)
    }

    /// A commit of any tree entries, one minute after the previous commit.
    pub fn commit_nodes(
        &self,
        message: &str,
        parents: &[CommitId],
        nodes: &[(&str, Node)],
    ) -> CommitId {
        let time = self.clock.get();
        self.clock.set(time + 60);
        self.commit_at(time, message, parents, nodes)
    }

    /// A commit with a given committer and author time.
    pub fn commit_at(
        &self,
        time: i64,
        message: &str,
        parents: &[CommitId],
        nodes: &[(&str, Node)],
    ) -> CommitId {
        let sig = Signature::new("Ada Tester", "ada@example.com", &Time::new(time, 0)).unwrap();
        let tree = self.git.find_tree(self.tree(nodes)).unwrap();
        let parents: Vec<_> = parents
            .iter()
            .map(|p| self.git.find_commit(p.oid()).unwrap())
            .collect();
        let parents: Vec<_> = parents.iter().collect();
        let id = self
            .git
            .commit(None, &sig, &sig, message, &tree, &parents)
            .unwrap();
        id.into()
    }

    /// A linear history of `n` commits on `main` (each adding a file), HEAD on `main`.
    pub fn linear(&self, n: usize) -> Vec<CommitId> {
        let mut ids: Vec<CommitId> = Vec::new();
        for i in 0..n {
            let name = format!("f{i}.txt");
            let parents: Vec<_> = ids.last().copied().into_iter().collect();
            ids.push(self.commit(&format!("commit {i}"), &parents, &[(&name, "x\n")]));
        }
        if let Some(&tip) = ids.last() {
            self.branch("main", tip);
        }
        ids
    }

    /// Creates or moves a ref (a full name) to a commit.
    pub fn set_ref(&self, name: &str, id: CommitId) {
        self.git.reference(name, id.oid(), true, "test").unwrap();
    }

    pub fn branch(&self, name: &str, id: CommitId) {
        self.set_ref(&format!("refs/heads/{name}"), id);
    }

    pub fn detach(&self, id: CommitId) {
        self.git.set_head_detached(id.oid()).unwrap();
    }

    /// Writes a tree of the given entries (paths with `/`), subfolders included.
    fn tree(&self, nodes: &[(&str, Node)]) -> Oid {
        let mut builder = self.git.treebuilder(None).unwrap();
        let mut folders: BTreeMap<&str, Vec<(&str, Node)>> = BTreeMap::new();
        for &(path, node) in nodes {
            if let Some((folder, rest)) = path.split_once('/') {
                folders.entry(folder).or_default().push((rest, node));
                continue;
            }
            let (id, mode) = match node {
                Node::Text(t) => (self.git.blob(t.as_bytes()).unwrap(), 0o100644),
                Node::Bytes(b) => (self.git.blob(b).unwrap(), 0o100644),
                Node::Link(target) => (self.git.blob(target.as_bytes()).unwrap(), 0o120000),
                Node::Submodule(c) => (c.oid(), 0o160000),
            };
            builder.insert(path, id, mode).unwrap();
        }
        for (folder, inner) in folders {
            builder.insert(folder, self.tree(&inner), 0o040000).unwrap();
        }
        builder.write().unwrap()
    }
}

/// Runs `git` in `dir` and returns its output without the final newline. Variables that
/// point git at some other repository (set when the tests run inside a git hook) are
/// removed; the user's configuration stays, as it does for libgit2 in the same process.
pub(super) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_COMMON_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .env_remove("GIT_CEILING_DIRECTORIES")
        .output()
        .expect("the git command runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

/// `git rev-list` with the given arguments, as commit ids.
pub(super) fn rev_list(dir: &Path, args: &[&str]) -> Vec<CommitId> {
    let mut all = vec!["rev-list"];
    all.extend(args);
    git(dir, &all).lines().map(|l| l.parse().unwrap()).collect()
}
