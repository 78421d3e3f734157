//! Revisions, ranges, walks and ancestry, checked against known graphs and against
//! `git rev-list` on generated ones.

use super::{git, rev_list, Fixture, Node, EPOCH};
use crate::git::{CommitId, GitError};

#[test]
fn linear_history_and_commit_info() {
    let f = Fixture::new();
    let ids = f.linear(3);
    let repo = f.repo();
    assert_eq!(repo.head().unwrap(), Some(ids[2]));
    assert_eq!(repo.all().unwrap(), ids);
    assert_eq!(repo.first_parents(ids[2]).unwrap(), vec![ids[1], ids[0]]);

    let info = repo.commit(ids[1]).unwrap();
    assert_eq!(info.id, ids[1]);
    assert_eq!(info.parents, vec![ids[0]]);
    assert_eq!(info.subject, "commit 1");
    assert_eq!(info.message, "commit 1");
    assert_eq!(info.author, "Ada Tester <ada@example.com>");
    assert_eq!(info.time, EPOCH + 60);
}

/// Fixed names, emails and times make the same tree give the same id on every run; a
/// change to the fixture shows up here first.
#[test]
fn commit_ids_are_stable() {
    let f = Fixture::new();
    let id = f.commit("commit 0", &[], &[("f0.txt", "x\n")]);
    assert_eq!(id.hex(), git(&f.root(), &["rev-parse", &id.hex()]));
    assert_eq!(id.hex(), "eb3c640f710311da2e52b91adfa64bae0d2a24c3");
}

#[test]
fn a_root_commit_has_no_parents() {
    let f = Fixture::new();
    let ids = f.linear(1);
    let repo = f.repo();
    assert_eq!(repo.commit(ids[0]).unwrap().parents, vec![]);
    assert_eq!(repo.first_parents(ids[0]).unwrap(), vec![]);
    assert_eq!(repo.all().unwrap(), ids);
}

/// git's subject (`%s`) is the first paragraph on one line; the message keeps everything.
#[test]
fn subject_is_the_first_paragraph() {
    let f = Fixture::new();
    let id = f.commit("Fix the lift\nand the door\n\nLonger text.\n", &[], &[]);
    let info = f.repo().commit(id).unwrap();
    assert_eq!(info.subject, "Fix the lift and the door");
    assert_eq!(info.message, "Fix the lift\nand the door\n\nLonger text.\n");
    f.branch("main", id);
    assert_eq!(info.subject, git(&f.root(), &["log", "-1", "--format=%s"]));
}

#[test]
fn a_merge_lists_its_first_parent_first() {
    let f = Fixture::new();
    let a = f.commit("a", &[], &[("m.pml", "1")]);
    let b = f.commit("b", &[a], &[("m.pml", "2")]);
    let side = f.commit("side", &[a], &[("m.pml", "3")]);
    let merge = f.commit("merge", &[b, side], &[("m.pml", "4")]);
    f.branch("main", merge);
    let repo = f.repo();
    assert_eq!(repo.commit(merge).unwrap().parents, vec![b, side]);
    assert_eq!(repo.first_parents(merge).unwrap(), vec![b, a]);
    assert_eq!(
        repo.all().unwrap(),
        rev_list(&f.root(), &["--topo-order", "--reverse", "HEAD"])
    );
    // git shows the merged side right after the merge, so oldest first it comes before b.
    assert_eq!(repo.all().unwrap(), vec![a, b, side, merge]);
}

#[test]
fn detached_head() {
    let f = Fixture::new();
    let ids = f.linear(3);
    f.detach(ids[1]);
    let repo = f.repo();
    assert_eq!(repo.head().unwrap(), Some(ids[1]));
    assert_eq!(repo.resolve("HEAD").unwrap(), ids[1]);
    assert_eq!(repo.all().unwrap(), vec![ids[0], ids[1]]);
    assert_eq!(repo.branch_tips().unwrap(), sorted(&[ids[1], ids[2]]));
}

#[test]
fn revisions_git_understands() {
    let f = Fixture::new();
    let ids = f.linear(4);
    f.branch("feature", ids[1]);
    let target = f.git.find_object(ids[2].oid(), None).unwrap();
    let sig =
        git2::Signature::new("Ada Tester", "ada@example.com", &git2::Time::new(EPOCH, 0)).unwrap();
    f.git.tag("v1", &target, &sig, "release", false).unwrap();
    f.git.tag_lightweight("light", &target, false).unwrap();
    let repo = f.repo();
    assert_eq!(repo.resolve("HEAD~3").unwrap(), ids[0]);
    assert_eq!(repo.resolve("main^").unwrap(), ids[2]);
    assert_eq!(repo.resolve("feature").unwrap(), ids[1]);
    assert_eq!(repo.resolve("v1").unwrap(), ids[2]);
    assert_eq!(repo.resolve("light").unwrap(), ids[2]);
    assert_eq!(repo.resolve(&ids[0].short()).unwrap(), ids[0]);
    assert_eq!(repo.resolve(&ids[0].hex()).unwrap(), ids[0]);
}

#[test]
fn revision_errors_name_the_revision() {
    let f = Fixture::new();
    f.linear(2);
    let repo = f.repo();
    let unknown = repo.resolve("nosuchbranch").unwrap_err();
    assert_eq!(unknown, GitError::UnknownRevision("nosuchbranch".into()));
    assert_eq!(unknown.to_string(), "unknown revision `nosuchbranch`");
    assert_eq!(
        repo.resolve("HEAD~5").unwrap_err(),
        GitError::UnknownRevision("HEAD~5".into())
    );
    assert_eq!(
        repo.resolve("HEAD^{tree}").unwrap_err().to_string(),
        "revision `HEAD^{tree}` does not name a commit"
    );
    assert_eq!(
        repo.resolve("a..b").unwrap_err(),
        GitError::UnknownRevision("a..b".into())
    );
}

#[test]
fn an_empty_repository_says_so() {
    let f = Fixture::new();
    let repo = f.repo();
    assert_eq!(repo.head().unwrap(), None);
    assert_eq!(repo.all().unwrap_err(), GitError::EmptyRepository);
    assert_eq!(repo.resolve("HEAD").unwrap_err(), GitError::EmptyRepository);
    assert_eq!(
        repo.range("HEAD~1..HEAD").unwrap_err(),
        GitError::EmptyRepository
    );
    assert_eq!(
        GitError::EmptyRepository.to_string(),
        "empty repository (no commits yet)"
    );
    assert_eq!(repo.branch_tips().unwrap(), vec![]);
}

#[test]
fn ranges() {
    let f = Fixture::new();
    let ids = f.linear(5);
    let repo = f.repo();
    let a = ids[1].hex();
    assert_eq!(repo.range(&format!("{a}..HEAD~1")).unwrap(), ids[2..4]);
    assert_eq!(repo.range(&format!("{a}..")).unwrap(), ids[2..]);
    assert_eq!(repo.range("..HEAD~3").unwrap(), vec![]);
    assert_eq!(repo.range("HEAD~2").unwrap(), vec![ids[2]]);
    assert_eq!(repo.range("HEAD..HEAD~2").unwrap(), vec![]);
    assert_eq!(
        repo.range("HEAD~1..nope").unwrap_err(),
        GitError::UnknownRevision("nope".into())
    );
    for bad in ["A...B", "..", "a..b..c"] {
        let e = repo.range(bad).unwrap_err();
        assert!(matches!(e, GitError::BadRange { .. }), "{bad}: {e:?}");
        assert!(
            e.to_string().starts_with(&format!("bad range `{bad}`: ")),
            "{e}"
        );
    }
}

#[test]
fn ancestry() {
    let f = Fixture::new();
    let a = f.commit("a", &[], &[]);
    let b = f.commit("b", &[a], &[]);
    let c = f.commit("c", &[a], &[]);
    let repo = f.repo();
    assert!(repo.is_ancestor(a, a).unwrap());
    assert!(repo.is_ancestor(a, b).unwrap());
    assert!(!repo.is_ancestor(b, a).unwrap());
    assert!(!repo.is_ancestor(b, c).unwrap());
}

/// The pre-push hook's questions: what a new branch brings that no remote has, and the
/// newest commit it shares with them.
#[test]
fn commits_not_on_remotes_and_the_newest_common_commit() {
    let f = Fixture::new();
    let ids = f.linear(3);
    let [a, b, c] = [ids[0], ids[1], ids[2]];
    f.set_ref("refs/remotes/origin/main", b);
    f.set_ref("refs/remotes/upstream/old", a);
    f.git
        .reference_symbolic(
            "refs/remotes/origin/HEAD",
            "refs/remotes/origin/main",
            true,
            "test",
        )
        .unwrap();
    let d = f.commit("d", &[c], &[]);
    let e = f.commit("e", &[d], &[]);
    f.branch("feature", e);
    let repo = f.repo();
    let remotes = repo.remote_tracking_tips().unwrap();
    assert_eq!(remotes, sorted(&[a, b]));
    assert_eq!(repo.commits_not_in(e, &remotes).unwrap(), vec![c, d, e]);
    assert_eq!(
        repo.commits_not_in(e, &remotes).unwrap(),
        rev_list(
            &f.root(),
            &["--topo-order", "--reverse", "feature", "--not", "--remotes"]
        )
    );
    assert_eq!(repo.commits_not_in(e, &[]).unwrap(), vec![a, b, c, d, e]);
    assert_eq!(repo.commits_not_in(b, &remotes).unwrap(), vec![]);
    assert_eq!(repo.newest_common(e, &remotes).unwrap(), Some(b));
    assert_eq!(repo.newest_common(b, &remotes).unwrap(), Some(b));
    assert_eq!(repo.newest_common(e, &[]).unwrap(), None);

    // A remote branch that forked after b: the fork point c is newer than b.
    let x = f.commit("x", &[c], &[]);
    assert_eq!(repo.newest_common(e, &[b, x]).unwrap(), Some(c));

    // Unrelated history (another root) shares nothing.
    let other = f.commit("other root", &[], &[]);
    assert_eq!(repo.newest_common(e, &[other]).unwrap(), None);
    assert_eq!(repo.commits_not_in(other, &remotes).unwrap(), vec![other]);
}

/// Crossing histories have two merge bases that are no ancestor of each other; the one
/// committed later wins.
#[test]
fn newest_common_over_crossed_histories() {
    let f = Fixture::new();
    let root = f.commit("root", &[], &[]);
    let p = f.commit("p", &[root], &[]);
    let q = f.commit("q", &[root], &[]);
    let tip = f.commit("tip", &[p, q], &[]);
    let remote = f.commit("remote", &[q, p], &[]);
    assert_eq!(f.repo().newest_common(tip, &[remote]).unwrap(), Some(q));
}

#[test]
fn tips_of_branches_and_remote_tracking_refs() {
    let f = Fixture::new();
    let ids = f.linear(2);
    let side = f.commit("side", &[ids[0]], &[]);
    f.branch("side", side);
    f.set_ref("refs/remotes/origin/main", ids[0]);
    f.set_ref("refs/tags/t", ids[1]);
    let repo = f.repo();
    assert_eq!(repo.branch_tips().unwrap(), sorted(&[ids[1], side]));
    assert_eq!(repo.remote_tracking_tips().unwrap(), vec![ids[0]]);
}

/// A detached HEAD in another worktree is on no branch, and garbage collection must keep
/// what it needs all the same.
#[test]
fn branch_tips_include_other_worktrees_heads() {
    let f = Fixture::new();
    let ids = f.linear(3);
    let wt = f.dir.path().join("wt");
    git(
        &f.root(),
        &[
            "worktree",
            "add",
            "--detach",
            wt.to_str().unwrap(),
            &ids[0].hex(),
        ],
    );
    let tips = sorted(&[ids[0], ids[2]]);
    assert_eq!(f.repo().branch_tips().unwrap(), tips);
    let from_worktree = crate::git::Repo::open(&wt).unwrap();
    assert_eq!(from_worktree.head().unwrap(), Some(ids[0]));
    assert_eq!(from_worktree.branch_tips().unwrap(), tips);
}

#[test]
fn commit_ids_parse_and_print() {
    let f = Fixture::new();
    let id = f.linear(1)[0];
    let hex = id.hex();
    assert_eq!(hex.len(), 40);
    assert_eq!(id.to_string(), hex);
    assert_eq!(id.short(), hex[..7]);
    assert_eq!(hex.parse::<CommitId>().unwrap(), id);
    assert_eq!(hex.to_uppercase().parse::<CommitId>().unwrap(), id);
    for bad in [
        &hex[..7],
        "",
        &format!("{}g", &hex[..39]),
        &format!("{hex}0"),
    ] {
        assert_eq!(
            bad.parse::<CommitId>().unwrap_err(),
            GitError::BadCommitId(bad.to_string())
        );
    }
    let json = serde_json::to_string(&id).unwrap();
    assert_eq!(json, format!("\"{hex}\""));
    assert_eq!(serde_json::from_str::<CommitId>(&json).unwrap(), id);
    assert!(serde_json::from_str::<CommitId>("\"abc\"").is_err());
}

#[test]
fn unknown_and_shallow_missing_commits() {
    let f = Fixture::new();
    f.linear(1);
    let nowhere: CommitId = "1234567890123456789012345678901234567890".parse().unwrap();
    let e = f.repo().commit(nowhere).unwrap_err();
    assert_eq!(e, GitError::UnknownCommit(nowhere));
    assert_eq!(
        e.to_string(),
        "no commit 1234567890123456789012345678901234567890 in this repository"
    );
}

/// A clone with `--depth 2`: HEAD's history is two commits, the walk and the first-parent
/// chain stop at the boundary without an error, and older commits are reported missing.
#[test]
fn shallow_clone() {
    let f = Fixture::new();
    let ids = f.linear(4);
    let clone = f.dir.path().join("shallow");
    let url = format!("file://{}", f.root().display());
    git(
        f.dir.path(),
        &[
            "clone",
            "--quiet",
            "--depth",
            "2",
            &url,
            clone.to_str().unwrap(),
        ],
    );
    let repo = crate::git::Repo::open(&clone).unwrap();
    assert!(repo.is_shallow());
    assert!(!f.repo().is_shallow());
    assert_eq!(repo.head().unwrap(), Some(ids[3]));
    assert_eq!(repo.first_parents(ids[3]).unwrap(), vec![ids[2]]);
    assert_eq!(repo.first_parents(ids[2]).unwrap(), vec![]);
    assert_eq!(repo.all().unwrap(), vec![ids[2], ids[3]]);
    assert_eq!(
        repo.all().unwrap(),
        rev_list(&clone, &["--topo-order", "--reverse", "HEAD"])
    );
    // git shows the boundary without parents (the clone grafts them away); so do we.
    let boundary = repo.commit(ids[2]).unwrap();
    assert_eq!(boundary.subject, "commit 2");
    assert_eq!(boundary.parents, vec![]);
    assert_eq!(
        git(&clone, &["log", "-1", "--format=%P", &ids[2].hex()]),
        ""
    );
    let missing = repo.commit(ids[1]).unwrap_err();
    assert_eq!(missing, GitError::MissingFromShallow(ids[1]));
    assert!(missing.to_string().contains("shallow clone"), "{missing}");
    assert!(repo.resolve("HEAD~3").is_err());
    assert_eq!(repo.range("HEAD~1..HEAD").unwrap(), vec![ids[3]]);
}

/// `all`, `range` and `commits_not_in` give exactly `git rev-list --topo-order --reverse`
/// on generated histories with merges, octopus merges, equal commit times and clocks that
/// went backwards.
#[test]
fn walks_match_git_rev_list() {
    for seed in 1..=4u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let f = Fixture::new();
        let mut ids: Vec<CommitId> = Vec::new();
        let mut has_child = Vec::new();
        for i in 0..40usize {
            let mut parents = Vec::new();
            if i > 0 {
                parents.push(i - 1 - rng.below(i.min(6)));
                if rng.below(4) == 0 {
                    parents.push(rng.below(i));
                }
                if rng.below(12) == 0 {
                    parents.push(rng.below(i));
                }
            }
            let mut seen = std::collections::HashSet::new();
            parents.retain(|p| seen.insert(*p));
            for &p in &parents {
                has_child[p] = true;
            }
            let time = EPOCH + 60 * (i as i64 / 3) - 60 * rng.below(3) as i64;
            let parent_ids: Vec<_> = parents.iter().map(|&p| ids[p]).collect();
            let file = format!("{i}");
            let nodes = [("n", Node::Text(&file))];
            ids.push(f.commit_at(time, &format!("c{i}"), &parent_ids, &nodes));
            has_child.push(false);
        }
        // HEAD merges every tip so that its history is the whole graph.
        let tips: Vec<_> = (0..ids.len())
            .filter(|&i| !has_child[i])
            .map(|i| ids[i])
            .collect();
        let head = f.commit_at(EPOCH, "head", &tips, &[]);
        f.branch("main", head);
        let root = f.root();
        // git walks differently with a commit-graph file (as `git gc` writes); the order it
        // prints must not change, and ours must match either way.
        if seed % 2 == 0 {
            git(&root, &["commit-graph", "write", "--reachable"]);
        }
        let repo = f.repo();
        let topo = ["--topo-order", "--reverse"];
        assert_eq!(
            repo.all().unwrap(),
            rev_list(&root, &[&topo[..], &["HEAD"]].concat())
        );
        for _ in 0..6 {
            // From the older half to the newer one, so that most ranges hold many commits.
            let half = ids.len() / 2;
            let (a, b, c) = (
                ids[rng.below(half)].hex(),
                ids[half + rng.below(half)].hex(),
                ids[rng.below(ids.len())].hex(),
            );
            let spec = format!("{a}..{b}");
            assert_eq!(
                repo.range(&spec).unwrap(),
                rev_list(&root, &[&topo[..], &[&spec]].concat()),
                "seed {seed}, {spec}"
            );
            let (tip, not) = (b.parse().unwrap(), [a.parse().unwrap(), c.parse().unwrap()]);
            assert_eq!(
                repo.commits_not_in(tip, &not).unwrap(),
                rev_list(&root, &[&topo[..], &[&b, "--not", &a, &c]].concat()),
                "seed {seed}, {b} --not {a} {c}"
            );
        }
    }
}

fn sorted(ids: &[CommitId]) -> Vec<CommitId> {
    let mut v = ids.to_vec();
    v.sort();
    v
}

/// A small deterministic generator (xorshift), so the generated histories are the same
/// on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
