//! Reading a commit's files through `FileProvider`: old versions while the work tree holds
//! something else, include paths as the front end builds them, missing files, text that is
//! not UTF-8, symbolic links and submodules.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::{Fixture, Node};
use crate::git::{CommitId, GitError};
use crate::promela::preprocess::PpOptions;
use crate::promela::source::FileProvider;

const MODEL: &str = "#include \"inc/defs.h\"\nactive proctype p() { byte x = N; assert(x == N) }\n";

fn read(f: &Fixture, id: CommitId, path: &str) -> std::io::Result<String> {
    f.repo().tree_files(id).unwrap().read(Path::new(path))
}

fn assert_not_found(f: &Fixture, id: CommitId, path: &str) {
    match read(f, id, path) {
        Err(e) => assert_eq!(e.kind(), ErrorKind::NotFound, "{path}: {e}"),
        Ok(text) => panic!("{path}: read {text:?}"),
    }
}

/// The model and its include come from the commit asked for: the later commit and the
/// work tree (which holds broken versions, and no include at all) are never read.
#[test]
fn an_old_commit_is_read_from_the_tree_not_the_work_tree() {
    let f = Fixture::new();
    let old = f.commit(
        "v1",
        &[],
        &[
            ("models/m.pml", MODEL),
            ("models/inc/defs.h", "#define N 2\n"),
        ],
    );
    let new = f.commit(
        "v2",
        &[old],
        &[
            ("models/m.pml", "broken in v2 {"),
            ("models/inc/defs.h", "#define N (\n"),
        ],
    );
    f.branch("main", new);
    let models = f.root().join("models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::write(models.join("m.pml"), "broken in the work tree {").unwrap();

    assert_eq!(read(&f, old, "models/m.pml").unwrap(), MODEL);
    assert_eq!(read(&f, old, "models/inc/defs.h").unwrap(), "#define N 2\n");
    assert_eq!(read(&f, new, "models/m.pml").unwrap(), "broken in v2 {");

    let repo = f.repo();
    let files = repo.tree_files(old).unwrap();
    assert_eq!(files.commit(), old);
    let loaded = crate::load(Path::new("models/m.pml"), &files, &PpOptions::default());
    assert!(loaded.diags.is_empty(), "{:?}", loaded.diags);
    assert!(loaded.program.is_some());
    let texts: Vec<_> = loaded.files.files.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, vec![MODEL, "#define N 2\n"]);
}

/// The front end joins the including file's folder with the include name, so `.` and
/// `..` reach the provider.
#[test]
fn include_paths_are_normalised() {
    let f = Fixture::new();
    let id = f.commit(
        "c",
        &[],
        &[("models/m.pml", MODEL), ("models/inc/defs.h", "defs")],
    );
    assert_eq!(read(&f, id, "models/./inc/../inc/defs.h").unwrap(), "defs");
    assert_eq!(read(&f, id, "./models/inc/../m.pml").unwrap(), MODEL);
    assert_eq!(read(&f, id, "models//inc/defs.h").unwrap(), "defs");
}

#[test]
fn missing_files_are_not_found() {
    let f = Fixture::new();
    let id = f.commit("c", &[], &[("models/m.pml", MODEL), ("top.pml", "t")]);
    for path in [
        "models/none.pml",
        "models",
        "",
        ".",
        "../top.pml",
        "models/../../top.pml",
        "/top.pml",
        "models/m.pml/x",
        "Models/m.pml",
    ] {
        assert_not_found(&f, id, path);
    }
    let e = read(&f, id, "models/none.pml").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("models/none.pml in commit {}: no such file", id.short())
    );
}

#[test]
fn text_that_is_not_utf8_is_read_lossily() {
    let f = Fixture::new();
    let id = f.commit_nodes("c", &[], &[("m.pml", Node::Bytes(b"byte x; /* \xff */\n"))]);
    assert_eq!(read(&f, id, "m.pml").unwrap(), "byte x; /* \u{FFFD} */\n");
}

/// Links that stay inside the tree are followed, to files and through folders, relative
/// to the folder holding the link; links that leave the tree, absolute links and
/// submodules are not found; a loop is an error of its own.
#[test]
fn symbolic_links_and_submodules() {
    let f = Fixture::new();
    let sub = f.commit("submodule's commit", &[], &[]);
    let id = f.commit_nodes(
        "c",
        &[],
        &[
            ("models/m.pml", Node::Text(MODEL)),
            ("models/inc/defs.h", Node::Text("defs")),
            ("models/same.pml", Node::Link("m.pml")),
            ("models/again.pml", Node::Link("./same.pml")),
            ("models/lib", Node::Link("inc")),
            ("shared.h", Node::Link("models/inc/defs.h")),
            ("models/up.h", Node::Link("../shared.h")),
            ("models/out.h", Node::Link("../../outside.h")),
            ("models/abs.h", Node::Link("/etc/hostname")),
            ("models/dangling.h", Node::Link("nothing.h")),
            ("loop/a", Node::Link("b")),
            ("loop/b", Node::Link("a")),
            ("vendor", Node::Submodule(sub)),
        ],
    );
    assert_eq!(read(&f, id, "models/same.pml").unwrap(), MODEL);
    assert_eq!(read(&f, id, "models/again.pml").unwrap(), MODEL);
    assert_eq!(read(&f, id, "models/lib/defs.h").unwrap(), "defs");
    assert_eq!(read(&f, id, "models/up.h").unwrap(), "defs");
    for path in [
        "models/out.h",
        "models/abs.h",
        "models/dangling.h",
        "models/lib",
        "vendor",
        "vendor/x.h",
    ] {
        assert_not_found(&f, id, path);
    }
    let e = read(&f, id, "loop/a").unwrap_err();
    assert_ne!(e.kind(), ErrorKind::NotFound);
    assert!(
        e.to_string().contains("too many levels of symbolic links"),
        "{e}"
    );

    let files = f.repo().list_files(id).unwrap();
    let expected: Vec<PathBuf> = [
        "loop/a",
        "loop/b",
        "models/abs.h",
        "models/again.pml",
        "models/dangling.h",
        "models/inc/defs.h",
        "models/lib",
        "models/m.pml",
        "models/out.h",
        "models/same.pml",
        "models/up.h",
        "shared.h",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(files, expected);
}

#[test]
fn list_files_of_nested_folders() {
    let f = Fixture::new();
    let id = f.commit(
        "c",
        &[],
        &[("a/b/c/deep.pml", "1"), ("a/x.pml", "2"), ("top.pml", "3")],
    );
    let files = f.repo().list_files(id).unwrap();
    assert_eq!(
        files,
        ["a/b/c/deep.pml", "a/x.pml", "top.pml"].map(PathBuf::from)
    );
    let empty = f.commit("empty", &[], &[]);
    assert_eq!(f.repo().list_files(empty).unwrap(), Vec::<PathBuf>::new());
}

#[test]
fn an_unknown_commit_has_no_files() {
    let f = Fixture::new();
    f.linear(1);
    let nowhere: CommitId = "00000000000000000000000000000000000000aa".parse().unwrap();
    let repo = f.repo();
    assert_eq!(
        repo.tree_files(nowhere).err(),
        Some(GitError::UnknownCommit(nowhere))
    );
    assert_eq!(
        repo.list_files(nowhere),
        Err(GitError::UnknownCommit(nowhere))
    );
}
