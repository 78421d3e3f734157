//! `git rmc check`, `history`, `diff`, `init`, `cache` and the pre-push hook in temporary
//! git repositories built by the tests (fixed authors and dates, so commit ids are stable):
//! ranges, root commits, merges, a detached HEAD, a deleted model, a model that does not
//! parse, a renamed model file, a change only in an included file, a define changed in the
//! configuration, a corrupt record, two runs at once, a shallow clone, a linked worktree,
//! core.hooksPath, and the hook with each kind of pre-push line.
//!
//! Runs keep their records in `.rmc/` (`GIT_RMC_STORE=none`) and read no user settings
//! (`GIT_RMC_CONFIG=none`), except the tests of the user-level store and settings at the
//! end, which point HOME and the XDG folders at a temporary folder (`Home`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temporary repository driven through the git command.
struct Repo {
    dir: tempfile::TempDir,
    time: u64,
}

const MODEL: &str = "byte x, y;
active proctype P() { do :: x < 4 -> x++ :: x == 4 -> break od; assert(x == 4) }
active proctype Q() { y = 1; y = 2; assert(y == 2) }
";

/// MODEL with the assertion in Q failing (the states Q reaches after it are unchanged, so
/// a pruning run skips them).
fn broken() -> String {
    MODEL.replace("assert(y == 2)", "assert(y == 3)")
}

impl Repo {
    fn new() -> Repo {
        let r = Repo {
            dir: tempfile::tempdir().expect("tempdir"),
            time: 1_700_000_000,
        };
        r.git(&["init", "-q", "-b", "main"]);
        r
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git(&self, args: &[&str]) -> String {
        git_in(self.path(), args, self.time)
    }

    fn write(&self, name: &str, text: &str) {
        let p = self.path().join(name);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }

    /// Commits everything in the work tree; returns the commit id.
    fn commit(&mut self, msg: &str) -> String {
        self.time += 60;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    fn rmc(&self, args: &[&str]) -> Output {
        rmc_in(self.path(), args)
    }

    /// How a diagnostic shown once for several commits names them ("at commits a, b").
    fn at_commits(&self, revs: &[&str]) -> String {
        let shorts: Vec<String> = revs
            .iter()
            .map(|c| self.git(&["rev-parse", "--short=7", c]).trim().to_string())
            .collect();
        format!("at commits {}", shorts.join(", "))
    }

    /// `git rmc check --format json ARGS`: (exit code, per commit the first model's result).
    fn check(&self, args: &[&str]) -> (Option<i32>, Vec<serde_json::Value>, String) {
        let mut a = vec!["check", "--format", "json"];
        a.extend_from_slice(args);
        check_results(self.rmc(&a))
    }
}

/// The output of `git rmc check --format json`: (exit code, per commit the first model's
/// result, standard error).
fn check_results(out: Output) -> (Option<i32>, Vec<serde_json::Value>, String) {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let results = doc["commits"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["models"][0].clone())
        .collect();
    (
        out.status.code(),
        results,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn git_in(dir: &Path, args: &[&str], time: u64) -> String {
    let date = format!("{time} +0000");
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn rmc_in(dir: &Path, args: &[&str]) -> Output {
    rmc_with_store(dir, args, "none".as_ref())
}

/// `rmc_in` with the user's record store at `store` (`none`: no store).
fn rmc_with_store(dir: &Path, args: &[&str], store: &std::ffi::OsStr) -> Output {
    Command::new(assert_cmd::cargo::cargo_bin("git-rmc"))
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_RMC_CACHE_DIR")
        .env("GIT_RMC_MEMORY_LIMIT", "2G")
        .env("GIT_RMC_STORE", store)
        .env("GIT_RMC_CONFIG", "none")
        .output()
        .expect("git-rmc runs")
}

#[test]
fn the_first_commit_records_and_the_next_ones_reuse() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    let root = r.commit("first");
    r.write("README", "docs\n");
    r.commit("docs only");
    r.write("model.pml", &broken());
    r.commit("break Q");
    r.write("model.pml", MODEL);
    r.commit("fix Q");
    let (code, res, err) = r.check(&["--all"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("only model file"), "{err}");
    assert_eq!(res.len(), 4);
    // The root commit: a full check that records.
    assert_eq!(res[0]["mode"], "full");
    assert_eq!(res[0]["verdict"], "pass");
    // Nothing changed in the model: the result is reused at once.
    assert_eq!(res[1]["mode"], "reused");
    // The break: pruned or replayed against its parent's record (auto chooses), the
    // violation is new.
    assert_eq!(res[2]["mode"], "incremental");
    assert_eq!(res[2]["verdict"], "fail");
    assert_eq!(res[2]["violations"][0]["new"], true);
    let st = &res[2]["stats"];
    let reused = match res[2]["algorithm"].as_str() {
        Some("prune") => st["states_pruned"].as_u64(),
        Some("replay") => st["states_walked"].as_u64(),
        other => panic!("algorithm {other:?}: {}", res[2]),
    };
    assert!(reused > Some(0), "{}", res[2]);
    assert!(res[2]["predicted"]["prune_executed"].is_u64(), "{}", res[2]);
    // The fix: the violation is reported fixed.
    assert_eq!(res[3]["verdict"], "pass");
    assert_eq!(res[3]["fixed"][0]["kind"], "assertion");
    // A single commit and a range; already checked commits come from the cache.
    let (code, res, _) = r.check(&[&root]);
    assert_eq!((code, res.len()), (Some(0), 1));
    let (code, res, _) = r.check(&["HEAD~2..HEAD"]);
    assert_eq!((code, res.len()), (Some(0), 2));
    // The exit status is the newest commit's: HEAD~1 fails with a new violation.
    let (code, _, _) = r.check(&["HEAD~1"]);
    assert_eq!(code, Some(1));
    let text = r.rmc(&["check", "HEAD~1"]);
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(
        out.contains("FAIL") && out.contains("new: assertion violated"),
        "{out}"
    );
}

/// A commit that restores content checked further back (a revert, a fix that brings back an
/// older version) takes that check's result, with new and fixed violations told against its
/// own base exactly as a check against that base tells them.
#[test]
fn a_revert_to_content_checked_before_reuses_that_result() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    let root = r.commit("first");
    r.write("model.pml", &broken());
    let broke = r.commit("break Q");
    r.write("model.pml", MODEL);
    let revert = r.commit("revert: fix Q");
    r.write("model.pml", &broken());
    r.commit("revert the revert");
    let (code, res, err) = r.check(&["--all"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(res.len(), 4);
    // The revert: the root's result, its violation of the break fixed.
    assert_eq!(res[2]["mode"], "reused", "{}", res[2]);
    assert_eq!(res[2]["reused_from"], root.as_str());
    assert_eq!(res[2]["base_commit"], broke.as_str());
    assert_eq!(res[2]["verdict"], "pass");
    assert_eq!(res[2]["new_violations"], 0);
    assert_eq!(res[2]["fixed"][0]["kind"], "assertion", "{}", res[2]);
    // Broken again: the break's result, its violation new against the revert.
    assert_eq!(res[3]["mode"], "reused", "{}", res[3]);
    assert_eq!(res[3]["reused_from"], broke.as_str());
    assert_eq!(res[3]["base_commit"], revert.as_str());
    assert_eq!(res[3]["violations"][0]["new"], true, "{}", res[3]);
    assert_eq!(res[3]["new_violations"], 1);
    assert_eq!(res[3]["fixed"], serde_json::json!([]));
    let text = r.rmc(&["check", "HEAD~1"]);
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(
        out.contains(&format!("same content as {}", &root[..7])) && out.contains("fixed:"),
        "{out}"
    );
    // Each commit checked against its parent's record (--audit reuses no result): the same
    // verdicts, new violations and fixed ones, located alike.
    std::fs::remove_dir_all(r.path().join(".rmc")).expect("clear the cache");
    let (code_full, full, err) = r.check(&["--all", "--audit"]);
    assert_eq!(code_full, code, "{err}");
    for (a, b) in res.iter().zip(&full) {
        assert_eq!(a["verdict"], b["verdict"], "{a}\n{b}");
        assert_eq!(a["new_violations"], b["new_violations"], "{a}\n{b}");
        let news = |x: &serde_json::Value| -> Vec<serde_json::Value> {
            x["violations"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| serde_json::json!([v["kind"], v["location"], v["new"]]))
                .collect()
        };
        assert_eq!(news(a), news(b), "{a}\n{b}");
        let fixed = |x: &serde_json::Value| -> Vec<serde_json::Value> {
            x["fixed"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| serde_json::json!([f["kind"], f["location"], f["message"]]))
                .collect()
        };
        assert_eq!(fixed(a), fixed(b), "{a}\n{b}");
    }
}

/// A commit that adds a process (a new proctype placed before the others, run from `init`)
/// changes nearly every state: the map between the layouts pairs the other proctypes by
/// name, and auto sees that pruning or a replay would execute nearly every recorded state,
/// so it runs a full check and says why; the next commit reuses its record.
#[test]
fn a_commit_that_adds_a_process_is_checked_in_full_and_says_why() {
    let mut r = Repo::new();
    let v1 = "byte x;
proctype A() { do :: x < 5 -> x++ :: x == 5 -> break od }
init { run A() }
";
    r.write("m.pml", v1);
    r.commit("first");
    let v2 = v1
        .replace("init { run A() }", "init { run A(); run B() }")
        .replace(
            "proctype A()",
            "proctype B() { byte y; do :: y < 3 -> y++ :: y == 3 -> break od }\nproctype A()",
        );
    r.write("m.pml", &v2);
    r.commit("add B");
    r.write(
        "m.pml",
        &v2.replace("y < 3", "y < 4").replace("y == 3", "y == 4"),
    );
    r.commit("longer B");
    let (code, res, err) = r.check(&["--all", "--audit"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res[1]["mode"], "full", "{}", res[1]);
    let reason = res[1]["algorithm_reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("auto: a full check, predicted cheaper")
            && reason.contains("1 dangerous location"),
        "{reason}"
    );
    assert_eq!(res[2]["mode"], "incremental", "{}", res[2]);
    for c in &res {
        assert_eq!(c["audit"], "agrees with a full check", "{c}");
    }
}

/// `--audit` beside checks that a memory limit cut: where a search stops depends on what it
/// holds (a replay also holds its base record and what it made of it), so the two cut
/// runs' figures differ without either being wrong. The audit says it could not compare
/// them, instead of calling the difference a bug (exit 4, "internal error").
#[test]
fn the_audit_of_checks_a_memory_limit_cut_does_not_call_them_a_bug() {
    let mut r = Repo::new();
    r.write("m.pml", &common::three_counters(12));
    r.commit("8k states");
    r.write("m.pml", &common::three_counters(40));
    r.commit("270k states");
    let out = Command::new(assert_cmd::cargo::cargo_bin("git-rmc"))
        .args(["check", "--all", "--audit", "--algorithm", "replay"])
        .args(["--format", "json"])
        .current_dir(r.path())
        .env_remove("GIT_DIR")
        .env_remove("GIT_RMC_CACHE_DIR")
        .env("GIT_RMC_MEMORY_LIMIT", "16M")
        .env("GIT_RMC_STORE", "none")
        .env("GIT_RMC_CONFIG", "none")
        .output()
        .expect("git-rmc runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(!err.contains("internal error"), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let first = &doc["commits"][0]["models"][0];
    assert_eq!(first["verdict"], "pass", "{first}");
    assert_eq!(first["audit"], "agrees with a full check", "{first}");
    let cut = &doc["commits"][1]["models"][0];
    assert_eq!(cut["verdict"], "incomplete", "{cut}");
    assert_eq!(cut["limit"], "memory", "{cut}");
    assert_eq!(
        cut["audit"],
        "not compared: a limit cut both this check (memory) and the full check (memory)",
        "{cut}"
    );
}

/// A commit that declares a new global between two others (every later global moves in the
/// state vector) is still checked incrementally, with the verdict and violations of a full
/// check (`--audit`): `auto` replays the parent's state graph, building each recorded
/// successor in the new layout, and `prune` prunes through the projection onto the parent's
/// layout.
#[test]
fn a_commit_that_gains_a_global_is_checked_incrementally_through_a_projection() {
    let mut r = Repo::new();
    let v1 = "byte a; byte b;
active proctype P() {
    if
    :: a = 1; do :: b < 50 -> b++ :: b == 50 -> break od
    :: a = 2; do :: b < 50 -> b++ :: b == 50 -> break od; assert(b == 50)
    fi
}
active proctype Q() { byte i; do :: i < 20 -> i++ :: i == 20 -> break od }
";
    r.write("m.pml", v1);
    r.commit("first");
    r.write(
        "m.pml",
        &v1.replace("byte a; byte b;", "byte a; byte g = 7; byte b;")
            .replace("assert(b == 50)", "g++; assert(g == 7)"),
    );
    r.commit("gain g");
    for (alg, counter) in [("auto", "states_walked"), ("prune", "states_pruned")] {
        r.rmc(&["cache", "clear"]);
        let (code, res, err) = r.check(&["--all", "--audit", "--algorithm", alg]);
        assert_eq!(code, Some(1), "{err}");
        assert_eq!(res[1]["mode"], "incremental", "{}", res[1]);
        let want = if alg == "auto" { "replay" } else { "prune" };
        assert_eq!(res[1]["algorithm"], want, "{}", res[1]);
        let reason = res[1]["algorithm_reason"].as_str().unwrap_or_default();
        assert!(reason.contains("global 'g' added"), "{reason}");
        let stats = &res[1]["stats"];
        assert!(stats[counter].as_u64() > Some(0), "{}", res[1]);
        if alg == "auto" {
            // Only what meets the changed statement (and the new states) is executed.
            let (executed, stored) = (
                stats["states_executed"].as_u64(),
                stats["states_stored"].as_u64(),
            );
            assert!(
                executed.zip(stored).is_some_and(|(e, s)| e * 10 < s),
                "{}",
                res[1]
            );
            assert_eq!(stats["states_dropped"], 0, "{}", res[1]);
        }
        assert_eq!(res[1]["verdict"], "fail");
        assert_eq!(res[1]["violations"][0]["kind"], "assertion");
        assert_eq!(res[1]["violations"][0]["new"], true);
        assert_eq!(res[1]["audit"], "agrees with a full check", "{}", res[1]);
    }
    let out = r.rmc(&["diff", "HEAD~1", "HEAD"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("global 'g' added"), "{text}");
}

#[test]
fn fail_on_new_passes_a_known_violation_and_any_fails_it() {
    let mut r = Repo::new();
    r.write("model.pml", &broken());
    r.commit("broken from the start");
    r.write("other.txt", "x");
    r.write("model.pml", &format!("{}\n/* comment */\n", broken()));
    r.commit("a comment");
    let (code, res, _) = r.check(&["--all"]);
    // The second commit still has the violation, not a new one.
    assert_eq!(res[1]["violations"][0]["new"], false, "{}", res[1]);
    assert_eq!(code, Some(0));
    let (code, _, _) = r.check(&["--fail-on", "any"]);
    assert_eq!(code, Some(1));
}

#[test]
fn merges_detached_heads_deleted_and_broken_models() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    r.git(&["checkout", "-q", "-b", "side"]);
    r.write(
        "model.pml",
        &MODEL
            .replace("x < 4", "x < 3")
            .replace("x == 4", "x == 3")
            .replace("assert(x == 4)", "assert(x == 3)"),
    );
    r.commit("side change");
    r.git(&["checkout", "-q", "main"]);
    r.write("notes.txt", "n");
    let main_change = r.commit("main change");
    r.time += 60;
    r.git(&["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
    let (code, res, err) = r.check(&["--all"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res.len(), 4);
    // The merge reuses its first parent's record (main's side did not change the model).
    assert_eq!(res[3]["mode"], "incremental", "{}", res[3]);
    assert_eq!(
        res[3]["base_commit"],
        r.git(&["rev-parse", "HEAD~1"]).trim()
    );
    // A detached HEAD.
    r.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let (code, res, _) = r.check(&[]);
    assert_eq!((code, res.len()), (Some(0), 1));
    r.git(&["checkout", "-q", "main"]);
    let merge = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    // A commit that does not parse, then one without the model, then a good one again.
    r.write("model.pml", "active proctype P() { x = }");
    r.commit("broken syntax");
    std::fs::remove_file(r.path().join("model.pml")).expect("rm");
    r.write("other.pml.txt", "");
    r.commit("model removed");
    r.write("model.pml", MODEL);
    r.commit("model back");
    let (code, res, err) = r.check(&["HEAD~3..HEAD", "--", "model.pml"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res[0]["verdict"], "error");
    assert!(
        res[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("model.pml:1:")),
        "{}",
        res[0]
    );
    assert_eq!(res[1]["verdict"], "absent");
    // The good commit's base is the last good result, the merge's (skipping the commits
    // that did not parse or had no model); its content is the first commit's, whose result
    // it takes (from the nearest commit that has it).
    assert_eq!(res[2]["mode"], "reused", "{}", res[2]);
    assert_eq!(res[2]["reused_from"], main_change.as_str());
    assert_eq!(res[2]["base_commit"], merge.as_str());
    // Content never checked before is checked against that base.
    r.write("model.pml", &MODEL.replace("y = 1", "y = 0"));
    r.commit("model changed");
    let (code, res, err) = r.check(&["HEAD"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res[0]["mode"], "incremental", "{}", res[0]);
    assert_eq!(
        res[0]["base_commit"],
        r.git(&["rev-parse", "HEAD~1"]).trim()
    );
    // The exit status of a model that does not parse at the newest commit is 2.
    r.write("model.pml", "active proctype P() { x = }");
    r.commit("broken again");
    let (code, _, _) = r.check(&["--", "model.pml"]);
    assert_eq!(code, Some(2));
}

#[test]
fn renames_includes_defines_and_corrupt_records() {
    let mut r = Repo::new();
    let cfg = "[[model]]\nname = \"m\"\nentry = \"models/a.pml\"\ndefines = [\"N=4\"]\n";
    let model = "#include \"bound.h\"\nbyte x;\nactive proctype P() { do :: x < LIMIT -> x++ :: x >= LIMIT -> break od; assert(x <= N) }\n";
    r.write(".rmc.toml", cfg);
    r.write("models/a.pml", model);
    r.write("models/bound.h", "#define LIMIT 4\n");
    r.commit("first");
    // A change only in the included file.
    r.write("models/bound.h", "#define LIMIT 5\n");
    r.commit("raise the limit");
    // A define changed in the configuration.
    r.write(".rmc.toml", &cfg.replace("N=4", "N=5"));
    r.commit("N=5");
    // The model file renamed (its name in the configuration stays).
    r.git(&["mv", "models/a.pml", "models/b.pml"]);
    r.write(
        ".rmc.toml",
        &cfg.replace("N=4", "N=5").replace("a.pml", "b.pml"),
    );
    r.commit("rename");
    let (code, res, err) = r.check(&["--all"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        res[1]["verdict"], "fail",
        "the include's change is seen: {}",
        res[1]
    );
    assert_eq!(
        res[2]["verdict"], "pass",
        "the define's change is seen: {}",
        res[2]
    );
    // The rename keeps the records: nothing is dangerous, so the state graph is the
    // record's, and its figures are taken with nothing executed.
    assert_eq!(res[3]["mode"], "incremental", "{}", res[3]);
    assert_eq!(res[3]["stats"]["states_executed"], 0, "{}", res[3]);
    assert_eq!(
        res[3]["stats"]["states_stored"], res[2]["stats"]["states_stored"],
        "{}",
        res[3]
    );
    // A corrupt record costs a full check, never the verdict.
    for e in walk(&r.path().join(".rmc/records")) {
        std::fs::write(&e, b"garbage").expect("corrupt");
    }
    r.write("models/b.pml", &model.replace("x <= N", "x <= N - 1"));
    r.commit("tighten");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("not reused"), "{err}");
    assert_eq!(res[0]["verdict"], "fail");
    assert_eq!(res[0]["mode"], "full");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn two_runs_at_once_share_the_cache_safely() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    r.write("model.pml", &broken());
    r.commit("second");
    let exe = assert_cmd::cargo::cargo_bin("git-rmc");
    let spawn = || {
        Command::new(&exe)
            .args(["check", "--all", "--format", "json"])
            .current_dir(r.path())
            .env("GIT_RMC_MEMORY_LIMIT", "1G")
            .env("GIT_RMC_STORE", "none")
            .env("GIT_RMC_CONFIG", "none")
            .output()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join(), b.join())
    });
    for o in [a, b] {
        let o = o.expect("thread").expect("runs");
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let (code, res, _) = r.check(&["--all"]);
    assert_eq!(code, Some(1));
    assert_eq!(res[1]["verdict"], "fail");
}

#[test]
fn shallow_clones_and_linked_worktrees() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    r.write("model.pml", &broken());
    r.commit("second");
    r.write("model.pml", MODEL);
    r.commit("third");
    let clone = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", r.path().display());
    git_in(
        clone.path(),
        &["clone", "-q", "--depth", "1", &url, "c"],
        r.time,
    );
    let c = clone.path().join("c");
    let out = rmc_in(&c, &["check", "--all"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shallow"));
    // A linked worktree.
    let wt = clone.path().join("wt");
    r.git(&[
        "worktree",
        "add",
        "-q",
        wt.to_str().expect("utf8"),
        "HEAD~1",
    ]);
    let out = rmc_in(&wt, &["check"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The uncommitted work tree against HEAD's record.
    std::fs::write(wt.join("model.pml"), MODEL).expect("write");
    let out = rmc_in(&wt, &["check", "--worktree", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["commits"][0]["models"][0]["mode"], "incremental");
}

#[test]
fn init_writes_the_config_the_exclude_and_the_hook() {
    let mut r = Repo::new();
    r.write(
        "models/main.pml",
        "#include \"part.pml\"\nactive proctype P() { skip }\n",
    );
    r.write("models/part.pml", "byte shared;\n");
    r.write("other.prom", "active proctype Q() { skip }\n");
    r.commit("models");
    let out = r.rmc(&["init"]);
    assert_eq!(out.status.code(), Some(0));
    let cfg = std::fs::read_to_string(r.path().join(".rmc.toml")).expect("config");
    assert!(cfg.contains("entry = \"models/main.pml\""), "{cfg}");
    assert!(cfg.contains("entry = \"other.prom\""), "{cfg}");
    assert!(
        !cfg.contains("part.pml"),
        "an included file is not an entry: {cfg}"
    );
    let exclude = std::fs::read_to_string(r.path().join(".git/info/exclude")).expect("exclude");
    assert!(exclude.contains(".rmc/"));
    // An existing config is kept; the exclude line is not repeated.
    std::fs::write(r.path().join(".rmc.toml"), "fail_on = \"any\"\n").expect("write");
    r.rmc(&["init"]);
    assert_eq!(
        std::fs::read_to_string(r.path().join(".rmc.toml")).expect("config"),
        "fail_on = \"any\"\n"
    );
    let exclude = std::fs::read_to_string(r.path().join(".git/info/exclude")).expect("exclude");
    assert_eq!(exclude.matches(".rmc/").count(), 1);
    // The hook goes where core.hooksPath says; another hook is kept unless --force.
    r.git(&["config", "core.hooksPath", "my-hooks"]);
    let out = r.rmc(&["init", "--hook"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(r.path().join("my-hooks/pre-push").exists());
    std::fs::write(r.path().join("my-hooks/pre-push"), "#!/bin/sh\nexit 0\n").expect("write");
    let out = r.rmc(&["init", "--hook"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    let out = r.rmc(&["init", "--hook", "--force"]);
    assert_eq!(out.status.code(), Some(0));
    let hook = std::fs::read_to_string(r.path().join("my-hooks/pre-push")).expect("hook");
    assert!(hook.contains("git-rmc check"));
}

/// Runs the pre-push hook as git would: `remote url` arguments and lines on stdin, with
/// git-rmc on PATH (or not).
fn run_hook(r: &Repo, lines: &str, with_rmc: bool) -> (Option<i32>, String) {
    use std::io::Write;
    let hook = r.path().join(".git/hooks/pre-push");
    let bin_dir = assert_cmd::cargo::cargo_bin("git-rmc")
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = if with_rmc {
        format!("{}:/usr/bin:/bin:/usr/local/bin", bin_dir.display())
    } else {
        "/usr/bin:/bin".to_string()
    };
    let mut child = Command::new("sh")
        .arg(&hook)
        .args(["origin", "file:///dev/null"])
        .current_dir(r.path())
        .env("PATH", path)
        .env("GIT_RMC_MEMORY_LIMIT", "1G")
        .env("GIT_RMC_STORE", "none")
        .env("GIT_RMC_CONFIG", "none")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hook runs");
    // As git does, a hook that exits before reading its input is not an error.
    if let Err(e) = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(lines.as_bytes())
    {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write lines: {e}");
    }
    let out = child.wait_with_output().expect("hook ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_pre_push_hook_judges_each_pushed_tip() {
    let zero = "0000000000000000000000000000000000000000";
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    let base = r.commit("first");
    r.rmc(&["init", "--hook"]);
    r.write("model.pml", &broken());
    let bad = r.commit("break");
    r.write("model.pml", MODEL);
    let good = r.commit("fix");
    // An update whose tip passes: pushed (the broken commit between is only reported).
    let (code, err) = run_hook(
        &r,
        &format!("refs/heads/main {good} refs/heads/main {base}\n"),
        true,
    );
    assert_eq!(code, Some(0), "{err}");
    // An update whose tip has a new violation: refused, with how to bypass.
    let (code, err) = run_hook(
        &r,
        &format!("refs/heads/main {bad} refs/heads/main {base}\n"),
        true,
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("not pushing refs/heads/main") && err.contains("--no-verify"),
        "{err}"
    );
    // A new branch: every violation of its tip is new.
    let (code, err) = run_hook(
        &r,
        &format!("refs/heads/topic {bad} refs/heads/topic {zero}\n"),
        true,
    );
    assert_eq!(code, Some(1), "{err}");
    // A deletion pushes nothing.
    let (code, err) = run_hook(
        &r,
        &format!("(delete) {zero} refs/heads/old {base}\n"),
        true,
    );
    assert_eq!(code, Some(0), "{err}");
    // Several refs: one bad tip refuses the push.
    let lines = format!(
        "refs/heads/main {good} refs/heads/main {base}\nrefs/heads/x {bad} refs/heads/x {base}\n"
    );
    let (code, _) = run_hook(&r, &lines, true);
    assert_eq!(code, Some(1));
    // Without git-rmc on PATH the hook says so.
    let (code, err) = run_hook(
        &r,
        &format!("refs/heads/main {good} refs/heads/main {base}\n"),
        false,
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("not on PATH"), "{err}");
}

#[test]
fn history_and_diff_between_commits() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    r.write("model.pml", &broken());
    r.commit("break");
    r.write("model.pml", MODEL);
    r.commit("fix");
    let out = r.rmc(&["history", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["commits"].as_array().map(|c| c.len()), Some(3));
    // The fix restores the first commit's content: its result is that one's, and a result
    // taken from the cache has no speed-up (it took no check).
    let fix = &doc["commits"][2]["models"][0];
    assert_eq!(fix["mode"], "reused", "{fix}");
    assert!(fix["speedup"].is_null(), "{fix}");
    assert!(
        doc["commits"][1]["models"][0]["speedup"].is_number(),
        "{doc}"
    );
    let v = &doc["violations"][0];
    assert_eq!(v["kind"], "assertion");
    assert_eq!(
        v["first_seen"],
        r.git(&["rev-parse", "--short=7", "HEAD~1"]).trim()
    );
    assert_eq!(
        v["fixed_in"],
        r.git(&["rev-parse", "--short=7", "HEAD"]).trim()
    );
    for f in ["text", "markdown", "html"] {
        let out = r.rmc(&["history", "--format", f]);
        assert_eq!(out.status.code(), Some(0), "{f}");
        assert!(!out.stdout.is_empty(), "{f}");
    }
    let out = r.rmc(&["diff", "HEAD~2", "HEAD~1"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("- assert(y == 2)") && text.contains("+ assert(y == 3)"),
        "{text}"
    );
    // The cache: listed, collected for the branch tips, cleared.
    let out = r.rmc(&["cache", "ls"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("record"));
    let out = r.rmc(&["cache", "gc"]);
    assert_eq!(out.status.code(), Some(0));
    let out = r.rmc(&["cache", "clear"]);
    assert_eq!(out.status.code(), Some(0));
    let (code, res, _) = r.check(&[]);
    assert_eq!((code, res[0]["mode"].as_str()), (Some(0), Some("full")));
}

#[test]
fn outside_a_repository_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = rmc_in(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a git repository"));
}

#[test]
fn the_sample_history_checks_incrementally_and_agrees_with_full_checks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("sample");
    let out = rmc_in(dir.path(), &["demo", repo.to_str().expect("utf8")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("violations:"), "{report}");
    // With auto, the declaration changes (a variable retyped, a variable removed, a
    // proctype added, an array resized, a channel added: the last five commits) are
    // incremental. (Auto runs
    // a full check of five earlier commits: four predicted cheaper, one of them a fix that
    // cuts its parent's states to 55 %, 45 % of them new, and one whose version has under
    // an eighth of its parent's states, which auto's first look checks whole.)
    let rows: Vec<&str> = report
        .lines()
        .filter(|l| l.contains(" pass ") || l.contains(" FAIL "))
        .collect();
    assert_eq!(rows.len(), 23, "{report}");
    assert!(rows[0].contains(" full "), "{report}");
    // The fix that cuts its parent's states to 55 %, 45 % of them new: the full check.
    assert!(
        rows[15].contains("416a7de") && rows[15].contains(" full "),
        "{report}"
    );
    for row in &rows[18..] {
        assert!(row.contains(" incremental "), "{row}\n{report}");
    }
    // Every commit again, each with a full check beside it (exit 4 on any disagreement):
    // by pruning, then by replay, each reusing the records the other wrote.
    for alg in ["prune", "replay"] {
        audit_history(&repo, alg);
    }
}

/// The demo keeps its records in the sample repository's own cache, away from the user's
/// record store: a second demo on the same machine would otherwise find every version's
/// record there and show no first check at all.
#[test]
fn the_demo_keeps_its_records_away_from_the_users_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("store");
    let repo = dir.path().join("sample");
    let out = rmc_with_store(
        dir.path(),
        &["demo", repo.to_str().expect("utf8")],
        store.as_os_str(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stdout(&out);
    let first = report
        .lines()
        .find(|l| l.contains(" pass ") || l.contains(" FAIL "))
        .unwrap_or_default();
    assert!(first.contains(" full "), "{report}");
    fn records(d: &Path) -> usize {
        std::fs::read_dir(d).map_or(0, |it| {
            it.flatten()
                .map(|e| match e.path() {
                    p if p.is_dir() => records(&p),
                    p => usize::from(p.extension().is_some_and(|x| x == "rec")),
                })
                .sum()
        })
    }
    assert_eq!(records(&store), 0, "the demo wrote records to the store");
    assert!(records(&repo.join(".rmc")) > 0, "the demo kept no records");
}

/// Another clone checks a failing commit whose record (not whose result) the user's store
/// holds: the version is the record's, so its state graph is, and the check finds the
/// violations along the trails the record kept, with a full check's figures and trails
/// (where it pruned at the root before, and reported one state stored and shortest trails).
#[test]
fn a_clone_checks_a_failing_commit_from_its_stored_record_as_a_full_check_would() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("store");
    let mut r = Repo::new();
    r.write("model.pml", &broken());
    r.commit("broken");
    let args = ["check", "--format", "json", "HEAD"];
    let (code, first, err) = check_results(rmc_with_store(r.path(), &args, store.as_os_str()));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(first[0]["mode"], "full", "{}", first[0]);
    let clone = dir.path().join("clone");
    git_in(
        dir.path(),
        &["clone", "-q", r.path().to_str().expect("utf8"), "clone"],
        r.time,
    );
    let (code, again, err) = check_results(rmc_with_store(&clone, &args, store.as_os_str()));
    assert_eq!(code, Some(1), "{err}");
    let (a, b) = (&first[0], &again[0]);
    assert_eq!(b["mode"], "incremental", "{b}");
    let why = b["algorithm_reason"].as_str().unwrap_or_default();
    assert!(why.contains("the state graph is unchanged"), "{why}");
    for k in [
        "states_stored",
        "states_matched",
        "transitions",
        "depth_reached",
        "state_vector_bytes",
    ] {
        assert_eq!(a["stats"][k], b["stats"][k], "{k}: {a}\n{b}");
    }
    assert_eq!(
        b["stats"]["states_walked"], a["stats"]["states_stored"],
        "{b}"
    );
    let found = |x: &serde_json::Value| -> Vec<serde_json::Value> {
        x["violations"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| serde_json::json!([v["kind"], v["location"], v["message"], v["trail"]]))
            .collect()
    };
    assert_eq!(found(a).len(), 1, "{a}");
    assert_eq!(found(a), found(b));
}

fn audit_history(repo: &Path, alg: &str) {
    let out = rmc_in(
        repo,
        &[
            "check",
            "--all",
            "--audit",
            "--algorithm",
            alg,
            "--format",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let commits = doc["commits"].as_array().expect("commits");
    assert!(commits.len() >= 12);
    let (mut walked, mut unchanged) = (0, 0);
    for (i, c) in commits.iter().enumerate() {
        let m = &c["models"][0];
        assert_eq!(
            m["audit"], "agrees with a full check",
            "{alg}: {}",
            c["subject"]
        );
        if i == 0 {
            continue;
        }
        // After the first commit every check reuses its parent's record; but a pruning run
        // across a layout change writes no state graph, and the next commit that changes a
        // declaration then has nothing to map through (auto replays there instead).
        let after_graphless = alg == "prune"
            && m["algorithm_reason"]
                .as_str()
                .is_some_and(|r| r.contains("the record has no state graph from which"));
        if !after_graphless {
            assert_eq!(m["mode"], "incremental", "{}: {m}", c["subject"]);
        }
        if alg == "replay" {
            walked += m["stats"]["states_walked"].as_u64().unwrap_or(0);
        }
        // A check that executed nothing (the recorded graph kept) is timed alone, not with
        // the audit's full check beside it: it costs less than that full check.
        let (executed, stored) = (&m["stats"]["states_executed"], &m["stats"]["states_stored"]);
        if executed == 0 && stored.as_u64() > Some(100_000) {
            unchanged += 1;
            let (own, full) = (m["elapsed_ms"].as_u64(), m["full_ms"].as_u64());
            assert!(
                own.zip(full).is_some_and(|(o, f)| o < f),
                "{}: {own:?} ms against a full check's {full:?}",
                c["subject"]
            );
        }
    }
    if alg == "replay" {
        assert!(walked > 0, "nothing was replayed");
        assert!(unchanged > 0, "no commit kept its recorded graph");
    }
    // The commit that changes a channel's capacity (09), the one that gains a global (18) and
    // those that change declarations (19 to 23) are incremental through the map onto their
    // parent's layout with replay (those that only declare, retype a variable written
    // only constants, or resize an array only code no recorded state reaches names, keep
    // the recorded graph); with
    // pruning, those whose parent was pruned across a layout change are not (above).
    let mapped: &[&str] = if alg == "replay" {
        &[
            "Buffer the door acknowledgements",
            "Door: reopen",
            "Door: door_closing is",
            "Drop door_closing",
            "Add the maintenance process",
            "Maintenance: log every floor",
            "Declare the machine-room key switch channel",
        ]
    } else {
        &["Buffer the door acknowledgements", "Door: reopen"]
    };
    for &subject in mapped {
        let c = commits
            .iter()
            .find(|c| {
                c["subject"]
                    .as_str()
                    .is_some_and(|s| s.starts_with(subject))
            })
            .unwrap_or_else(|| panic!("the commit '{subject}…'"));
        let m = &c["models"][0];
        assert_eq!(m["mode"], "incremental", "{m}");
        assert_eq!(m["algorithm"], alg, "{m}");
        let reason = m["algorithm_reason"].as_str().unwrap_or("");
        // A declaration no statement names yet (a global and a proctype nobody runs, a
        // channel nobody uses), a variable retyped that statements read and write only
        // constants both types hold (`door_closing`, bool to byte), or an array resized
        // that only the maintenance process names, whose code no recorded state reaches:
        // the recorded graph is kept, its vectors mapped.
        let kept = alg == "replay"
            && (subject.starts_with("Add the maintenance")
                || subject.starts_with("Declare the machine-room")
                || subject.starts_with("Door: door_closing")
                || subject.starts_with("Maintenance: log every floor"));
        if kept {
            assert!(reason.contains("its vectors mapped"), "{m}");
            assert_eq!(m["stats"]["states_executed"], 0, "{m}");
        } else {
            assert!(reason.contains("projection"), "{m}");
        }
        if alg == "replay" {
            assert!(m["stats"]["states_walked"].as_u64() > Some(0), "{m}");
        }
    }
}

/// The record file of a check's result (its `hash`), in the cache.
fn record_of(r: &Repo, result: &serde_json::Value) -> PathBuf {
    let hash = result["hash"].as_str().expect("a hash");
    walk(&r.path().join(".rmc/records"))
        .into_iter()
        .find(|p| p.file_name().and_then(|n| n.to_str()) == Some(&format!("{hash}.rec")))
        .expect("the record is cached")
}

#[test]
fn a_record_written_on_its_base_keeps_it_through_gc_and_without_it_costs_a_full_check() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    // Conditions that keep their values: every state stays, its events too.
    r.write("model.pml", &MODEL.replace("x < 4 -> x++", "x <= 3 -> x++"));
    r.commit("reword P's guard");
    let (code, res, err) = r.check(&["--all", "--algorithm", "replay"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res[1]["algorithm"], "replay", "{}", res[1]);
    let (first, second) = (record_of(&r, &res[0]), record_of(&r, &res[1]));
    let base = git_rmc::rmc::Record::base_of(&second).expect("the record reads");
    assert_eq!(
        base.as_deref(),
        first.file_name().and_then(|n| n.to_str()),
        "the second record stands on the first"
    );
    let listed = String::from_utf8_lossy(&r.rmc(&["cache", "ls"]).stdout).into_owned();
    let first_hash = res[0]["hash"].as_str().expect("hash");
    assert!(listed.contains(&format!("on {first_hash}")), "{listed}");
    // gc keeps what the tip needs: its record, and the base that record stands on.
    let out = r.rmc(&["cache", "gc"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(first.is_file() && second.is_file(), "gc kept the base");
    // The next commit reuses the record through its base, and agrees with a full check.
    r.write(
        "model.pml",
        &MODEL.replace("x == 4 -> break", "x >= 4 -> break"),
    );
    r.commit("reword the exit");
    let (code, res, err) = r.check(&["--audit", "--algorithm", "replay"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res[0]["mode"], "incremental", "{}", res[0]);
    assert!(
        res[0]["stats"]["states_walked"].as_u64() > Some(0),
        "{}",
        res[0]
    );
    assert_eq!(res[0]["audit"], "agrees with a full check", "{}", res[0]);
    // Without its base, a record is refused with the reason, and the check is a full one
    // with the same verdict.
    std::fs::remove_file(&first).expect("remove the base");
    // The impact analysis needs no state graph: a record without its base still diffs.
    let out = r.rmc(&["diff", &second.display().to_string(), "model.pml"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("locations paired"));
    r.write("model.pml", &broken());
    r.commit("break Q");
    let (code, res, err) = r.check(&["--algorithm", "replay"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is missing"), "{err}");
    assert_eq!(
        (res[0]["mode"].as_str(), res[0]["verdict"].as_str()),
        (Some("full"), Some("fail"))
    );
}

// ----- What a new user meets first (issue 36) -----

/// Three identical processes that each stop at one of two labels: 8 invalid end states,
/// which are 4 as a person counts them (the same locations as a multiset).
const SYMMETRIC: &str = "active [3] proctype P() {
	if
	:: true -> a: false
	:: true -> b: false
	fi
}
";

/// A model with an ltl formula that passes its safety check.
const WITH_LTL: &str = "byte x;
ltl small { [] (x <= 2) }
active proctype P() { x = 1; x = 2 }
";

/// A check's `stats` without what the search held in memory and how long it took: the
/// figures of the search itself, the same however the system's moves were had (executed,
/// or read from a recorded graph).
fn search_figures(s: &serde_json::Value) -> serde_json::Value {
    let mut s = s.clone();
    if let Some(o) = s.as_object_mut() {
        for k in ["peak_memory_bytes", "store_bytes", "elapsed_ms"] {
            o.remove(k);
        }
    }
    s
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn init_leaves_out_files_with_no_process_to_run_and_says_why() {
    let mut r = Repo::new();
    r.write(
        "models/mutex.pml",
        "#include \"common.pml\"\nactive proctype P() { bump(x) }\n",
    );
    r.write("models/common.pml", "byte x;\n");
    // Declarations and inlines that models include with -I, not through a path init sees.
    r.write(
        "models/lib.pml",
        "typedef T { byte f };\ninline bump(v) { v++ }\n",
    );
    r.write("models/solo.pml", "init { skip }\n");
    r.commit("models");
    let out = r.rmc(&["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cfg = std::fs::read_to_string(r.path().join(".rmc.toml")).expect("config");
    assert!(cfg.contains("entry = \"models/mutex.pml\""), "{cfg}");
    assert!(cfg.contains("entry = \"models/solo.pml\""), "{cfg}");
    assert!(!cfg.contains("lib.pml"), "{cfg}");
    assert!(!cfg.contains("common.pml"), "{cfg}");
    let err = stderr(&out);
    assert!(
        err.contains("left out models/lib.pml: no process to run"),
        "{err}"
    );
    assert!(
        err.contains("left out models/common.pml: included by another model file"),
        "{err}"
    );
}

/// A model without claims whose processes have accept labels: `spin -search` runs its pan
/// with -a, and `check` looks for its acceptance cycles too, as a claim of its own named
/// `accept labels` (pan -a -c0's figures: 2 states stored, 3 visited, 1 matched, 4
/// transitions; one acceptance cycle, at the label's loop), over the state graph the
/// safety check recorded. With `claims = "none"` it is left out, and the pass says so.
#[test]
fn accept_labels_without_a_claim_are_checked_for_cycles() {
    let mut r = Repo::new();
    r.write(
        "model.pml",
        "byte x;\nactive proctype P() { accept: do :: x = 1 - x od }\n",
    );
    r.rmc(&["init"]);
    let cfg = std::fs::read_to_string(r.path().join(".rmc.toml")).expect("config");
    r.commit("first");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(res[0]["verdict"], "fail", "{}", res[0]);
    // The safety check alone passes.
    assert!(
        res[0]["violations"]
            .as_array()
            .is_some_and(|v| v.is_empty()),
        "{}",
        res[0]
    );
    assert_eq!(res[0]["claims_not_checked"], serde_json::json!([]));
    let c = &res[0]["claims"][0];
    assert_eq!(c["name"], "accept labels", "{c}");
    assert_eq!(c["acceptance"], true, "{c}");
    // The system's moves read from the state graph the safety check recorded.
    assert_eq!(c["over_graph"], true, "{c}");
    let s = &c["stats"];
    assert_eq!(
        [
            &s["states_stored"],
            &s["states_revisited"],
            &s["states_matched"],
            &s["transitions"]
        ],
        [2, 1, 1, 4].map(serde_json::Value::from).each_ref(),
        "{c}"
    );
    let kinds: Vec<&str> = c["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .filter_map(|v| v["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["acceptance-cycle"], "{c}");
    assert_eq!(c["violations"][0]["location"], "model.pml:2:37", "{c}");
    let text = stdout(&r.rmc(&["check"]));
    assert!(text.contains("claim accept labels: fail"), "{text}");
    r.write(
        ".rmc.toml",
        &format!("{cfg}\n[model.checks]\nclaims = \"none\"\n"),
    );
    r.commit("no claims");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        res[0]["claims_not_checked"][0], "accept labels",
        "{}",
        res[0]
    );
    let text = stdout(&r.rmc(&["check"]));
    assert!(
        text.contains("pass (safety only: accept labels not checked)"),
        "{text}"
    );
}

/// With `claims = "none"`, a model's formulas are not checked, and every output says so.
#[test]
fn a_pass_that_did_not_check_the_claims_says_so_everywhere() {
    let mut r = Repo::new();
    r.write("model.pml", WITH_LTL);
    r.rmc(&["init", "--hook"]);
    let cfg = std::fs::read_to_string(r.path().join(".rmc.toml")).expect("config");
    r.write(
        ".rmc.toml",
        &format!("{cfg}\n[model.checks]\nclaims = \"none\"\n"),
    );
    let base = r.commit("first");
    r.write("model.pml", &WITH_LTL.replace("x = 2", "x = 2; x = 1"));
    let tip = r.commit("second");
    let words = "pass (safety only: ltl small not checked)";
    let out = r.rmc(&["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(words), "{}", stdout(&out));
    let (_, res, _) = r.check(&[]);
    assert_eq!(res[0]["claims_not_checked"][0], "ltl small", "{}", res[0]);
    let out = r.rmc(&["check", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sarif");
    let note = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert!(
        note["message"]["text"]
            .as_str()
            .is_some_and(|t| t.ends_with(words)),
        "{log}"
    );
    for f in ["text", "markdown", "html"] {
        let out = r.rmc(&["history", "--format", f]);
        assert!(stdout(&out).contains(words), "{f}: {}", stdout(&out));
    }
    let (code, err) = run_hook(
        &r,
        &format!("refs/heads/main {tip} refs/heads/main {base}\n"),
        true,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(words), "{err}");
}

/// By default a model's claims are its properties: `check` checks the safety properties and
/// then each `ltl` formula on its own (acceptance cycles included), reports each claim's
/// verdict and violations (text, JSON, SARIF, history), and fails the model, and the hook,
/// when a claim fails anew; a claim that fails as it did at the base is known.
#[test]
fn check_checks_every_claim_and_a_failed_claim_fails_the_model() {
    let model = "byte x;
ltl bounded { [] (x <= 3) }
ltl reaches { []<> (x == 3) }
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> x = 1
  od
}
";
    let mut r = Repo::new();
    r.write("model.pml", model);
    r.rmc(&["init", "--hook"]);
    let base = r.commit("first");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    let claims = res[0]["claims"].as_array().expect("claims");
    let names: Vec<&str> = claims.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["ltl bounded", "ltl reaches"], "{}", res[0]);
    for c in claims {
        assert_eq!(c["verdict"], "pass", "{c}");
        assert_eq!(c["acceptance"], true, "{c}");
    }
    // pan -a -N reaches: 10 states stored, each visited twice by the nested search.
    assert!(
        claims[1]["stats"]["states_stored"].as_u64() > Some(0),
        "{}",
        claims[1]
    );
    assert_eq!(
        res[0]["claims_not_checked"],
        serde_json::json!([]),
        "{}",
        res[0]
    );
    // A cycle 0 -> 1 -> 2 -> 0 that never reaches 3: `reaches` fails, `bounded` holds.
    r.write(
        "model.pml",
        &model.replace(
            ":: x == 3 -> x = 1",
            ":: x == 3 -> x = 1\n  :: x == 2 -> x = 0",
        ),
    );
    let tip = r.commit("a shortcut");
    let out = r.rmc(&["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("FAIL"), "{text}");
    assert!(
        text.contains("claim ltl bounded: [] ((x<=3)): pass"),
        "{text}"
    );
    assert!(
        text.contains("claim ltl reaches: [] (<> ((x==3))): fail"),
        "{text}"
    );
    assert!(
        text.contains("new: acceptance cycle [acceptance-cycle] at model.pml:"),
        "{text}"
    );
    assert!(text.contains("<<<<<START OF CYCLE>>>>>"), "{text}");
    let (_, res, _) = r.check(&[]);
    assert_eq!(res[0]["verdict"], "fail", "{}", res[0]);
    assert_eq!(res[0]["new_violations"], 1, "{}", res[0]);
    let reaches = &res[0]["claims"][1];
    assert_eq!(reaches["verdict"], "fail", "{reaches}");
    assert_eq!(
        reaches["violations"][0]["kind"], "acceptance-cycle",
        "{reaches}"
    );
    assert_eq!(reaches["violations"][0]["new"], true, "{reaches}");
    let out = r.rmc(&["check", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sarif");
    let rules: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|x| x["ruleId"].as_str())
        .collect();
    assert_eq!(rules, ["acceptance-cycle"], "{log}");
    let out = r.rmc(&["history", "--format", "text"]);
    let h = stdout(&out);
    assert!(h.contains("FAIL (ltl reaches)"), "{h}");
    assert!(
        h.contains("[ltl reaches: acceptance-cycle] at model.pml:"),
        "{h}"
    );
    // Two claims: a column each, and each claim's verdict per commit in the JSON.
    let head = h.lines().nth(1).unwrap_or_default();
    assert!(
        head.contains("verdict") && head.contains("ltl bounded") && head.contains("ltl reaches"),
        "{h}"
    );
    let out = r.rmc(&["history", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("history json");
    let last = &doc["commits"]
        .as_array()
        .expect("commits")
        .last()
        .expect("a commit")["models"][0];
    assert_eq!(
        last["claims"],
        serde_json::json!([
            {"claim": "ltl bounded", "verdict": "pass"},
            {"claim": "ltl reaches", "verdict": "fail"}
        ]),
        "{last}"
    );
    let (code, err) = run_hook(
        &r,
        &format!("refs/heads/main {tip} refs/heads/main {base}\n"),
        true,
    );
    assert_eq!(code, Some(1), "{err}");
    // The cycle is still there after a change elsewhere: known, not new.
    r.write(
        "model.pml",
        &format!(
            "byte unused;\n{}",
            std::fs::read_to_string(r.path().join("model.pml")).expect("model")
        ),
    );
    r.commit("unrelated");
    let out = r.rmc(&["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("fail (known)"), "{text}");
    assert!(text.contains("still present: acceptance cycle"), "{text}");
    // Only the claims named in .rmc.toml are checked; the others are named as not checked.
    let cfg = std::fs::read_to_string(r.path().join(".rmc.toml")).expect("config");
    r.write(
        ".rmc.toml",
        &format!("{cfg}\n[model.checks]\nclaims = [\"bounded\"]\n"),
    );
    r.commit("only bounded");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        res[0]["claims"].as_array().map(Vec::len),
        Some(1),
        "{}",
        res[0]
    );
    assert_eq!(
        res[0]["claims_not_checked"],
        serde_json::json!(["ltl reaches"]),
        "{}",
        res[0]
    );
    assert_eq!(res[0]["verdict"], "pass", "{}", res[0]);
}

/// A counter with a safety formula and a liveness formula, both of which hold.
const TWO_FORMULAS: &str = "byte x;
ltl bounded { [] (x <= 3) }
ltl reaches { []<> (x == 3) }
active proctype P() {
  do
  :: x < 3 -> x = x + 1
  :: x == 3 -> x = 1
  od
}
";

/// A repository whose first commit holds `model` (configured by `init`), checked: the
/// repository and that check's results.
fn checked_repo(model: &str) -> (Repo, Vec<serde_json::Value>) {
    let mut r = Repo::new();
    r.write("model.pml", model);
    r.rmc(&["init"]);
    r.commit("first");
    let (code, first, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    (r, first)
}

/// Claims that are not carried over (the first commit's, a changed behaviour's) take the
/// system's moves from the state graph the commit's safety check recorded, and report what
/// their own product search reports (`--audit` searches): figures, verdicts, violations.
#[test]
fn claims_read_the_system_from_the_recorded_state_graph_as_their_search_would() {
    let model = TWO_FORMULAS.replace("x == 3 -> x = 1", "x == 3 -> x = 0");
    let (mut r, first) = checked_repo(&model);
    r.write(
        "model.pml",
        &model.replace("x < 3 -> x = x + 1", "x < 2 -> x = x + 1"),
    );
    r.commit("stop at two");
    let (code, second, err) = r.check(&[]);
    assert_eq!(code, Some(1), "{err}");
    let (_, audited, err) = r.check(&["--audit"]);
    assert!(!audited.is_empty(), "{err}");
    for (res, name) in [(&first[0], "first"), (&second[0], "second")] {
        let claims = res["claims"].as_array().expect("claims");
        assert_eq!(claims.len(), 2, "{name}: {res}");
        for c in claims {
            assert_eq!(c["over_graph"], true, "{name}: {c}");
        }
    }
    let claims = |x: &serde_json::Value| -> Vec<serde_json::Value> {
        x["claims"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let s = &c["stats"];
                serde_json::json!([
                    c["name"],
                    c["verdict"],
                    s["states_stored"],
                    s["states_revisited"],
                    s["states_matched"],
                    s["transitions"],
                    s["depth_reached"],
                    s["state_vector_bytes"],
                    c["violations"]
                ])
            })
            .collect()
    };
    let audited = &audited[0];
    assert!(
        audited["claims"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|c| c["over_graph"].is_null()),
        "{audited}"
    );
    assert_eq!(claims(&second[0]), claims(audited));
    // The second version fails its liveness formula: x never reaches 3 again.
    assert_eq!(second[0]["verdict"], "fail", "{}", second[0]);
}

/// A change that leaves the state graph as it was carries the base's passed claims over
/// without a product search, with the figures a search gives (`--audit` searches again);
/// one that adds `timeout` anywhere (pan's ETIM changes the product) does not; across a
/// declaration change that keeps the graph, they carry over where every state's vector
/// moves by the same amount.
#[test]
fn passed_claims_carry_over_when_the_state_graph_is_unchanged() {
    let model = TWO_FORMULAS;
    let (mut r, first) = checked_repo(model);
    r.write("model.pml", &model.replace("x = x + 1", "x = x + 2 - 1"));
    r.commit("same graph");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    let why = res[0]["algorithm_reason"].as_str().unwrap_or_default();
    assert!(why.contains("the state graph is unchanged"), "{why}");
    let claims = res[0]["claims"].as_array().expect("claims");
    assert_eq!(claims.len(), 2, "{}", res[0]);
    for (c, before) in claims
        .iter()
        .zip(first[0]["claims"].as_array().expect("claims"))
    {
        assert_eq!(c["reused"], true, "{c}");
        assert_eq!(c["verdict"], "pass", "{c}");
        assert_eq!(c["stats"], before["stats"], "{c}");
    }
    let text = stdout(&r.rmc(&["check"]));
    assert!(
        text.contains(
            "claim ltl reaches: [] (<> ((x==3))): pass (reused: the state graph is unchanged)"
        ),
        "{text}"
    );
    // The figures are those a product search of this version gives (what the search held
    // in memory and how long it took are the first check's own: it read the system's moves
    // from the recorded graph, where the audit searches).
    let (code, audited, err) = r.check(&["--audit"]);
    assert_eq!(code, Some(0), "{err}");
    for (c, a) in claims
        .iter()
        .zip(audited[0]["claims"].as_array().expect("claims"))
    {
        assert_eq!(a.get("reused"), None, "{a}");
        assert_eq!(
            search_figures(&c["stats"]),
            search_figures(&a["stats"]),
            "{a}"
        );
    }
    // An unreachable `timeout` leaves the graph as it was, not the product.
    r.write(
        "model.pml",
        &model.replace("x = x + 1", "x = x + 2 - 1").replace(
            "  :: x == 3 -> x = 1\n",
            "  :: x == 3 -> x = 1\n  :: x == 9 -> timeout\n",
        ),
    );
    r.commit("timeout");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    let why = res[0]["algorithm_reason"].as_str().unwrap_or_default();
    assert!(why.contains("the state graph is unchanged"), "{why}");
    assert_eq!(
        res[0]["claim_context"],
        "timeout=true accept=false progress=false"
    );
    for c in res[0]["claims"].as_array().expect("claims") {
        assert_eq!(c.get("reused"), None, "{c}");
    }
    // A global nobody names: the graph is kept with its vectors mapped to the new layout,
    // and every state's vector grows by the same 16 bytes, so the claims carry over with
    // their products' vectors grown as much: the figures a product search gives.
    let (mut r, _) = checked_repo(model);
    r.write(
        "model.pml",
        &model.replace("byte x;", "byte x;\nint unused[4];"),
    );
    r.commit("a declaration");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    let why = res[0]["algorithm_reason"].as_str().unwrap_or_default();
    assert!(why.contains("its vectors mapped"), "{why}");
    let claims = res[0]["claims"].as_array().expect("claims");
    assert_eq!(claims.len(), 2, "{}", res[0]);
    let (code, audited, err) = r.check(&["--audit"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        audited[0]["audit"], "agrees with a full check",
        "{}",
        audited[0]
    );
    let searched = audited[0]["claims"].as_array().expect("claims");
    for ((c, a), before) in claims
        .iter()
        .zip(searched)
        .zip(first[0]["claims"].as_array().expect("claims"))
    {
        assert_eq!(c["reused"], true, "{c}");
        assert_eq!(a.get("reused"), None, "{a}");
        assert_eq!(c["verdict"], "pass", "{c}");
        assert_eq!(
            search_figures(&c["stats"]),
            search_figures(&a["stats"]),
            "{c}\n{a}"
        );
        assert_eq!(
            c["stats"]["state_vector_bytes"].as_u64(),
            before["stats"]["state_vector_bytes"]
                .as_u64()
                .map(|b| b + 16),
            "{c}"
        );
    }
    // A local added to a process that ends (and leaves the vector, being the last one): a
    // state's vector grows only while that process lives, and a product's largest vector
    // is not the graph's to tell, so the claim is searched again.
    let ends = "byte x;
ltl bounded { [] (x <= 4) }
active proctype Q() {
  do
  :: x < 3 -> x = x + 1
  :: x >= 3 -> x = 1
  od
}
active proctype P() { int a; x < 3 -> x++ }
";
    let (mut r, first) = checked_repo(ends);
    r.write("model.pml", &ends.replace("int a;", "int a; int b[3];"));
    r.commit("a local");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    let why = res[0]["algorithm_reason"].as_str().unwrap_or_default();
    assert!(why.contains("its vectors mapped"), "{why}");
    let (code, audited, err) = r.check(&["--audit"]);
    assert_eq!(code, Some(0), "{err}");
    let (c, a) = (&res[0]["claims"][0], &audited[0]["claims"][0]);
    assert_eq!(c.get("reused"), None, "{c}");
    assert_eq!(c["over_graph"], true, "{c}");
    assert_eq!(
        search_figures(&c["stats"]),
        search_figures(&a["stats"]),
        "{c}\n{a}"
    );
    assert_eq!(
        c["stats"]["states_stored"], first[0]["claims"][0]["stats"]["states_stored"],
        "{c}"
    );
    assert!(
        c["stats"]["state_vector_bytes"].as_u64()
            > first[0]["claims"][0]["stats"]["state_vector_bytes"].as_u64(),
        "{c}"
    );
}

/// A formula changed only inside an index names another proposition: the claim is searched
/// again, never carried over, and fails as a full check finds.
#[test]
fn a_formula_changed_inside_an_index_is_searched_again() {
    let model = "byte a[2];
ltl held { [] (a[0] <= 3) }
active proctype P() {
  do
  :: a[0] < 3 -> a[0]++
  :: a[1] < 5 -> a[1]++
  :: a[0] == 3 -> break
  od
}
";
    let (mut r, first) = checked_repo(model);
    assert_eq!(first[0]["claims"][0]["verdict"], "pass", "{}", first[0]);
    r.write(
        "model.pml",
        &model.replace("[] (a[0] <= 3)", "[] (a[1] <= 3)"),
    );
    r.commit("formula");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(1), "{err}");
    let c = &res[0]["claims"][0];
    assert_eq!(c["formula"], "[] ((a[1]<=3))", "{c}");
    assert_eq!(c["verdict"], "fail", "{c}");
    assert_eq!(c.get("reused"), None, "{c}");
}

/// A changed `ltl` formula changes no state of the system: the safety check keeps the
/// recorded graph with nothing dangerous, the changed claim is searched again and the other
/// one carried over.
#[test]
fn a_changed_formula_leaves_the_safety_record_and_the_other_claims_as_they_were() {
    let model = TWO_FORMULAS;
    let (mut r, _) = checked_repo(model);
    r.write("model.pml", &model.replace("(x <= 3)", "(x <= 4)"));
    r.commit("formula");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    let m = &res[0];
    assert_eq!(m["mode"], "incremental", "{m}");
    assert_eq!(m["dangerous_locations"], 0, "{m}");
    let why = m["algorithm_reason"].as_str().unwrap_or_default();
    assert!(why.contains("the state graph is unchanged"), "{why}");
    let reused: Vec<_> = m["claims"]
        .as_array()
        .expect("claims")
        .iter()
        .map(|c| (c["name"].clone(), c.get("reused").cloned()))
        .collect();
    assert_eq!(
        reused,
        vec![
            (serde_json::json!("ltl bounded"), None),
            (
                serde_json::json!("ltl reaches"),
                Some(serde_json::json!(true))
            ),
        ],
        "{m}"
    );
    // -v says why: the reason auto gave, under the model's line (not without -v).
    let text = stdout(&r.rmc(&["check", "-v"]));
    assert!(
        text.contains("      why: auto: the state graph is unchanged"),
        "{text}"
    );
    let text = stdout(&r.rmc(&["check"]));
    assert!(!text.contains("why:"), "{text}");
    // The safety figures and the carried claim's are those full searches give.
    let (code, audited, err) = r.check(&["--audit"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(audited[0]["audit"], "agrees with a full check");
    for (c, a) in m["claims"]
        .as_array()
        .expect("claims")
        .iter()
        .zip(audited[0]["claims"].as_array().expect("claims"))
    {
        for k in [
            "states_stored",
            "states_matched",
            "states_revisited",
            "transitions",
            "depth_reached",
            "state_vector_bytes",
        ] {
            assert_eq!(c["stats"][k], a["stats"][k], "{k}: {a}");
        }
    }
}

/// `fair = true` in .rmc.toml checks the claims under weak fairness (pan -a -f): A and B
/// overwrite x for ever, and []<>(x == 2) fails only on the run that starves B.
#[test]
fn fair_in_the_configuration_checks_claims_under_weak_fairness() {
    let model = "byte x;
active proctype A() { do :: x = 1 od }
active proctype B() { do :: x = 2 od }
ltl p { []<> (x == 2) }
";
    let mut r = Repo::new();
    r.write("model.pml", model);
    r.write(".rmc.toml", "[[model]]\nentry = \"model.pml\"\n");
    r.commit("unfair");
    let (code, res, _) = r.check(&[]);
    assert_eq!(code, Some(1), "{}", res[0]);
    assert_eq!(
        res[0]["claims"][0]["violations"][0]["kind"],
        "acceptance-cycle"
    );
    r.write(
        ".rmc.toml",
        "[[model]]\nentry = \"model.pml\"\n[model.checks]\nfair = true\n",
    );
    r.commit("fair");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    let claim = &res[0]["claims"][0];
    assert_eq!(claim["verdict"], "pass", "{claim}");
    assert_eq!(claim["fair"], true, "{claim}");
    // pan -a -f: 5 states stored, 8 matched, 13 transitions.
    assert_eq!(claim["stats"]["states_stored"], 5, "{claim}");
    assert_eq!(claim["stats"]["states_matched"], 8, "{claim}");
    assert_eq!(claim["stats"]["transitions"], 13, "{claim}");
}

#[test]
fn an_incomplete_check_says_why_and_is_not_run_again_until_asked() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.write(
        ".rmc.toml",
        "[[model]]\nentry = \"model.pml\"\n[model.limits]\nmax_states = 20\n",
    );
    r.commit("first");
    let out = r.rmc(&["check"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("INCOMPLETE full: 20 states"), "{text}");
    assert!(
        text.contains("the max_states 20 (.rmc.toml) cut the search")
            && text.contains("raise max_states under [model.limits] in .rmc.toml"),
        "{text}"
    );
    let (code, res, _) = r.check(&[]);
    assert_eq!(code, Some(3));
    assert_eq!(res[0]["limit_detail"]["value"], "20", "{}", res[0]);
    assert_eq!(res[0]["limit_detail"]["origin"], ".rmc.toml", "{}", res[0]);
    // The second check reuses the cut result: the text says how to run it again.
    let out = r.rmc(&["check"]);
    assert_eq!(out.status.code(), Some(3));
    let text = stdout(&out);
    assert!(
        text.contains("already checked") && text.contains("--retry-incomplete"),
        "{text}"
    );
    // A commit that changes no file of the model reuses it too.
    r.write("README", "docs\n");
    r.commit("docs");
    let (code, res, _) = r.check(&[]);
    assert_eq!(code, Some(3));
    assert_eq!(res[0]["mode"], "reused", "{}", res[0]);
    assert_eq!(res[0]["stats"]["states_stored"], 20);
    // Asked to, it runs again.
    let (code, res, _) = r.check(&["--retry-incomplete"]);
    assert_eq!(code, Some(3));
    assert_eq!(res[0]["mode"], "full", "{}", res[0]);
    // Other limits: it runs again, and completes.
    r.write(
        ".rmc.toml",
        "[[model]]\nentry = \"model.pml\"\n[model.limits]\nmax_states = 100000\n",
    );
    r.commit("raise the limit");
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res[0]["complete"], true, "{}", res[0]);
    assert_ne!(res[0]["mode"], "reused", "{}", res[0]);
}

#[test]
fn a_pruning_run_prints_what_it_explored_pruned_and_recorded() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    r.write("model.pml", &broken());
    r.commit("break Q");
    let (code, res, err) = r.check(&["--all", "--algorithm", "prune"]);
    assert_eq!(code, Some(1), "{err}");
    let st = &res[1]["stats"];
    let (stored, pruned) = (
        st["states_stored"].as_u64().unwrap_or(0),
        st["states_pruned"].as_u64().unwrap_or(0),
    );
    let total = res[1]["record_states"].as_u64().unwrap_or(0);
    assert!(pruned > 0 && total > stored, "{}", res[1]);
    // The line of a pruning run, at a new commit.
    r.write("model.pml", &broken().replace("y = 1; ", "y = 1; y = 1; "));
    r.commit("again");
    let out = r.rmc(&["check", "--algorithm", "prune"]);
    let text = stdout(&out);
    let (_, res, _) = r.check(&[]);
    let st = &res[0]["stats"];
    let n = |k: &str| st[k].as_u64().unwrap_or(0);
    let explored = n("states_stored") - n("states_pruned");
    let line = format!(
        "incremental (prune): {explored} states explored, {} pruned, {} in the record",
        n("states_pruned"),
        res[0]["record_states"]
    );
    assert!(text.contains(&line), "{line}\n{text}");
}

#[test]
fn symmetric_violations_are_grouped_and_new_ones_show_their_trails() {
    let mut r = Repo::new();
    r.write("model.pml", SYMMETRIC);
    r.commit("first");
    let (code, res, _) = r.check(&[]);
    assert_eq!(code, Some(1));
    // The JSON keeps one entry per blocked tuple.
    assert_eq!(res[0]["violations"].as_array().map(|v| v.len()), Some(8));
    let out = r.rmc(&["check"]);
    let text = stdout(&out);
    assert_eq!(text.matches("new: invalid end state").count(), 4, "{text}");
    assert_eq!(text.matches("(3 orderings of P)").count(), 2, "{text}");
    // Each new one with its trail (its steps, as verify prints them).
    assert_eq!(text.matches("trail (").count(), 4, "{text}");
    assert!(text.contains("P(2) model.pml:3:"), "{text}");
    let out = r.rmc(&["check", "--trail", "none"]);
    assert!(!stdout(&out).contains("trail ("));
    let out = r.rmc(&["history"]);
    let text = stdout(&out);
    assert_eq!(text.matches("(3 orderings of P)").count(), 2, "{text}");
}

#[test]
fn the_hook_judges_the_tips_and_reports_the_commits_between() {
    let mut r = Repo::new();
    r.write("a.pml", MODEL);
    r.write("b.pml", MODEL);
    r.write(
        ".rmc.toml",
        "[[model]]\nentry = \"a.pml\"\n[[model]]\nentry = \"b.pml\"\n",
    );
    let base = r.commit("two models");
    r.rmc(&["init", "--hook"]);
    r.write("b.pml", "active proctype Q() { x = }\n");
    r.commit("break b");
    // The newest commit drops the broken model from the configuration.
    r.write(".rmc.toml", "[[model]]\nentry = \"a.pml\"\n");
    let tip = r.commit("drop b");
    let out = r.rmc(&["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (code, err) = run_hook(
        &r,
        &format!("refs/heads/main {tip} refs/heads/main {base}\n"),
        true,
    );
    assert_eq!(code, Some(0), "the tip passes: {err}");
    assert!(err.contains("does not load"), "{err}");
    // The range's exit status is the tip's too.
    let out = r.rmc(&["check", &format!("{base}..{tip}")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn one_model_that_does_not_load_leaves_the_others_checked_and_diffed() {
    let mut r = Repo::new();
    r.write("a.pml", MODEL);
    r.write("b.pml", "active proctype Q() { x = }\n");
    r.write(
        ".rmc.toml",
        "[[model]]\nentry = \"a.pml\"\n[[model]]\nentry = \"b.pml\"\n",
    );
    r.commit("b broken");
    r.write("README", "one\n");
    r.commit("docs");
    r.write("README", "two\n");
    r.commit("docs again");
    r.write("a.pml", &broken());
    r.write("b.pml", MODEL);
    r.commit("fix b, break a");
    let out = r.rmc(&["diff", "HEAD~1", "HEAD"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("+ assert(y == 3)"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("b: the model does not load at HEAD~1"),
        "{}",
        stderr(&out)
    );
    // The same diagnostic at three commits is printed once, with the three.
    let out = r.rmc(&["check", "--all"]);
    let err = stderr(&out);
    assert_eq!(err.matches("┌─ b.pml:1:27").count(), 1, "{err}");
    assert!(
        err.contains(&r.at_commits(&["HEAD~3", "HEAD~2", "HEAD~1"])),
        "{err}"
    );
}

#[test]
fn progress_is_printed_as_plain_lines_without_a_terminal() {
    let mut r = Repo::new();
    r.write(
        "model.pml",
        "byte a, b, c;\nactive proctype P() { do :: a < 100 -> a++ :: b < 100 -> b++ :: c < 30 -> c++ od }\n",
    );
    r.commit("first");
    let run = |args: &[&str]| {
        Command::new(assert_cmd::cargo::cargo_bin("git-rmc"))
            .args(args)
            .current_dir(r.path())
            .env_remove("GIT_RMC_CACHE_DIR")
            .env("GIT_RMC_MEMORY_LIMIT", "2G")
            .env("GIT_RMC_STORE", "none")
            .env("GIT_RMC_CONFIG", "none")
            .env("GIT_RMC_PROGRESS_EVERY_MS", "0")
            .output()
            .expect("runs")
    };
    let out = run(&["check", "--algorithm", "full"]);
    let err = stderr(&out);
    assert!(
        err.lines()
            .any(|l| l.starts_with("git rmc: ") && l.contains("states/s") && l.contains("model:")),
        "{err}"
    );
    let out = run(&["verify", "--progress", "never", "model.pml"]);
    assert!(!stderr(&out).contains("states/s"), "{}", stderr(&out));
    let out = run(&["verify", "-q", "model.pml"]);
    assert!(!stderr(&out).contains("states/s"), "{}", stderr(&out));
    let out = run(&["verify", "-q", "--progress", "always", "model.pml"]);
    assert!(stderr(&out).contains("states/s"), "{}", stderr(&out));
}

/// A user's home for the tests of the user-level record store and settings: HOME and the
/// XDG folders in a temporary folder, so that the real ones are never read or written.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// `<cache folder>/git-rmc/v1`: the store's folder.
    fn store(&self) -> PathBuf {
        self.dir.path().join("cache/git-rmc/v1")
    }

    /// The store's record files.
    fn records(&self) -> Vec<PathBuf> {
        walk(&self.store().join("records"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rec"))
            .collect()
    }

    /// Writes the user's settings file.
    fn settings(&self, text: &str) -> PathBuf {
        let p = self.dir.path().join("config/git-rmc/config.toml");
        std::fs::create_dir_all(p.parent().expect("folder")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    }

    /// git rmc in `dir` as this user, with `env` on top.
    fn rmc(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let home = self.dir.path();
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("git-rmc"));
        c.args(args)
            .current_dir(dir)
            .env_remove("GIT_DIR")
            .env_remove("GIT_RMC_CACHE_DIR")
            .env_remove("GIT_RMC_STORE")
            .env_remove("GIT_RMC_CONFIG")
            .env_remove("GIT_RMC_MEMORY_LIMIT")
            .env("HOME", home)
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_CONFIG_HOME", home.join("config"));
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("git-rmc runs")
    }

    /// `git rmc check --format json ARGS` in `dir`: (exit code, per commit the first
    /// model's result, standard error).
    fn check(&self, dir: &Path, args: &[&str]) -> (Option<i32>, Vec<serde_json::Value>, String) {
        let mut a = vec!["check", "--format", "json"];
        a.extend_from_slice(args);
        check_results(self.rmc(dir, &a, &[("GIT_RMC_MEMORY_LIMIT", "2G")]))
    }
}

/// Four versions of MODEL: the root, a reworded guard, a broken assertion, its fix.
fn four_versions(r: &mut Repo) {
    r.write("model.pml", MODEL);
    r.commit("first");
    r.write("model.pml", &MODEL.replace("x < 4 -> x++", "x <= 3 -> x++"));
    r.commit("reword P's guard");
    r.write("model.pml", &broken());
    r.commit("break Q");
    r.write(
        "model.pml",
        &MODEL.replace("x == 4 -> break", "x >= 4 -> break"),
    );
    r.commit("fix Q, reword the exit");
}

/// A check killed with kill -9 leaves its record's temporary file (named after its pid);
/// the next run removes it, once its writer is gone, and never a live writer's.
#[test]
fn a_killed_runs_temporary_file_is_removed_by_the_next_run() {
    let home = Home::new();
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    let (code, res, err) = home.check(r.path(), &[]);
    assert_eq!(code, Some(0), "{err}");
    let hash = res[0]["hash"].as_str().expect("a hash");
    // A writer that stands for the killed run: alive for now.
    let mut writer = Command::new("sleep")
        .arg("600")
        .spawn()
        .expect("sleep runs");
    let pid = writer.id();
    let records = home.store().join("records");
    let in_store = records.join(format!(".{hash}.rec.tmp-{pid}-0"));
    std::fs::write(&in_store, vec![0u8; 1 << 20]).expect("write");
    // In .rmc/, where a writer holds the cache's lock, any temporary file is a leftover.
    let results = r.path().join(".rmc/results");
    let prefix = walk(&results)[0].parent().expect("a folder").to_path_buf();
    let in_cache = prefix.join(format!(".x.json.tmp-{pid}-3"));
    std::fs::write(&in_cache, b"{").expect("write");
    let out = home.rmc(r.path(), &["check"], &[("GIT_RMC_MEMORY_LIMIT", "2G")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(in_store.is_file(), "a live writer's file stays");
    assert!(!in_cache.exists(), "the cache's leftover goes");
    writer.kill().expect("kill -9");
    writer.wait().expect("it ends");
    let out = home.rmc(r.path(), &["cache", "ls"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !in_store.exists(),
        "a dead writer's file goes at the next run"
    );
    assert!(
        walk(&records)
            .iter()
            .all(|p| !p.to_string_lossy().contains(".tmp-")),
        "{:?}",
        walk(&records)
    );
}

/// Past `max_size`, a run drops the least recently used records that no branch tip needs
/// (and keeps the bases of those it keeps), saying so in one line; `cache ls` names each
/// record's commits and prints sizes in human units; the user's settings give the budget
/// where `.rmc.toml` does not.
#[test]
fn the_cache_keeps_its_records_within_the_size_budget() {
    let home = Home::new();
    let mut r = Repo::new();
    four_versions(&mut r);
    // No budget to speak of: everything that no branch tip needs goes.
    home.settings("[cache]\nmax_size = \"1\"\n");
    // Full checks: each record stands alone.
    let (code, res, err) = home.check(r.path(), &["--all", "--algorithm", "full"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("cache: dropped 3 least recently used record(s)"),
        "{err}"
    );
    assert!(
        err.contains("the 1 budget (max_size under [cache] in"),
        "{err}"
    );
    assert!(
        err.contains("config.toml"),
        "the budget is the user's: {err}"
    );
    let name = |p: &PathBuf| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let tip = res[3]["hash"].as_str().expect("hash").to_string();
    let left: Vec<String> = home.records().iter().filter_map(name).collect();
    assert_eq!(left, std::slice::from_ref(&tip), "the tip's record stays");
    // A replay writes the next record on the tip's; the budget keeps the base it stands on.
    r.write(
        "model.pml",
        &MODEL
            .replace("x == 4 -> break", "x >= 4 -> break")
            .replace("x < 4 -> x++", "x <= 3 -> x++"),
    );
    r.commit("reword P's guard again");
    let (code, res, err) = home.check(r.path(), &["--algorithm", "replay"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(res[0]["mode"], "incremental", "{}", res[0]);
    let newest = res[0]["hash"].as_str().expect("hash").to_string();
    let base = git_rmc::rmc::Record::base_of(&home.store().join(format!("records/{newest}.rec")))
        .expect("reads");
    assert_eq!(
        base,
        Some(format!("{tip}.rec")),
        "it stands on the tip's record"
    );
    let mut left: Vec<String> = home.records().iter().filter_map(name).collect();
    left.sort();
    let mut both = vec![tip.clone(), newest.clone()];
    both.sort();
    assert_eq!(left, both);
    assert!(err.contains("over the 1 budget"), "{err}");
    assert!(
        err.contains("the rest are what the branch tips need"),
        "{err}"
    );
    let res = [res[0].clone()];
    // cache ls: the record's commit and a human size.
    let out = home.rmc(r.path(), &["cache", "ls"], &[]);
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{listed}");
    let head = r
        .git(&["rev-parse", "--short=7", "HEAD"])
        .trim()
        .to_string();
    let new_hash = res[0]["hash"].as_str().expect("hash");
    let line = listed
        .lines()
        .find(|l| l.contains(new_hash))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(line.contains(&format!("at {head}")), "{listed}");
    assert!(line.contains(&format!("on {tip}")), "{listed}");
    assert!(line.contains(" kB") || line.contains(" B "), "{listed}");
    assert!(listed.contains("store: "), "{listed}");
    assert!(listed.contains("budget 1 ("), "{listed}");
    // .rmc.toml's budget wins over the user's: 10M keeps everything.
    r.write(
        ".rmc.toml",
        "[cache]\nmax_size = \"10M\"\n\n[[model]]\nentry = \"model.pml\"\n",
    );
    r.commit("a budget for the repository");
    r.write("model.pml", &broken());
    r.commit("break Q again");
    let (code, _, err) = home.check(r.path(), &["--all"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(!err.contains("cache: dropped"), "{err}");
    let out = home.rmc(r.path(), &["cache", "ls"], &[]);
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        listed.contains("budget 10M (max_size under [cache] in .rmc.toml)"),
        "{listed}"
    );
}

/// A second clone of a repository checks nothing from scratch: the first clone's records,
/// in the user-level store, serve it, with the same verdicts and the same violations new;
/// gc in one clone keeps what the other needs; `GIT_RMC_STORE=none` keeps records in
/// `.rmc/` as before.
#[test]
fn a_second_clone_reuses_the_first_clones_records() {
    let home = Home::new();
    let mut r = Repo::new();
    four_versions(&mut r);
    let (code, first, err) = home.check(r.path(), &["--all"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(first[0]["mode"], "full");
    let records = home.records();
    assert!(!records.is_empty());
    assert!(
        !r.path().join(".rmc/records").exists(),
        "records are in the store, results in .rmc/"
    );
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", r.path().display());
    git_in(clones.path(), &["clone", "-q", &url, "b"], r.time);
    let b = clones.path().join("b");
    let (code, second, err) = home.check(&b, &["--all"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(second.len(), first.len());
    for (x, y) in first.iter().zip(&second) {
        assert_eq!(y["hash"], x["hash"]);
        assert_eq!(y["verdict"], x["verdict"], "{y}");
        assert_eq!(y["new_violations"], x["new_violations"], "{y}");
        assert_eq!(y["fixed"], x["fixed"], "{y}");
        let news = |r: &serde_json::Value| -> Vec<serde_json::Value> {
            r["violations"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v["new"].clone())
                .collect()
        };
        assert_eq!(news(y), news(x), "{y}");
        // Nothing checked from scratch, nothing executed: the record of this very content
        // was the base.
        assert_eq!(y["mode"], "incremental", "{y}");
        assert_eq!(y["stats"]["states_executed"], 0, "{y}");
        assert_eq!(y["base"], y["hash"], "{y}");
    }
    // The violation's trail is there as in the first clone.
    assert_eq!(
        second[2]["violations"][0]["trail"],
        first[2]["violations"][0]["trail"]
    );
    assert_eq!(home.records(), records, "no record written twice");
    // gc in the first clone keeps what the second clone's tip needs, and says where.
    r.write("model.pml", MODEL);
    r.commit("back to the first version");
    let (code, _, err) = home.check(r.path(), &[]);
    assert_eq!(code, Some(0), "{err}");
    let out = home.rmc(r.path(), &["cache", "gc"], &[]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("from the store at"), "{said}");
    let tip_b = format!("{}.rec", second[3]["hash"].as_str().expect("hash"));
    assert!(
        home.records()
            .iter()
            .any(|p| p.file_name().is_some_and(|n| n == tip_b.as_str())),
        "the second clone's tip keeps its record"
    );
    // Without a store, records stay in .rmc/ as before.
    let c = clones.path().join("c");
    git_in(clones.path(), &["clone", "-q", &url, "c"], r.time);
    let out = home.rmc(&c, &["check"], &[("GIT_RMC_STORE", "none")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!walk(&c.join(".rmc/records")).is_empty());
    // A store folder that cannot be made: a warning, and the check goes on in .rmc/.
    let blocked = clones.path().join("blocked");
    std::fs::write(&blocked, b"a file").expect("write");
    let d = clones.path().join("d");
    git_in(clones.path(), &["clone", "-q", &url, "d"], r.time);
    let store = blocked.join("store");
    let out = home.rmc(
        &d,
        &["check"],
        &[("GIT_RMC_STORE", store.to_str().expect("utf8"))],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: cannot use the record store"),
        "{err}"
    );
    assert!(!walk(&d.join(".rmc/records")).is_empty());
}

/// The user's settings give defaults that flags and `.rmc.toml` override; a bad key is an
/// error naming the file, line and column.
#[test]
fn the_users_settings_are_defaults_and_a_bad_one_names_its_place() {
    let home = Home::new();
    let mut r = Repo::new();
    r.write("m.pml", &common::three_counters(40));
    r.commit("270k states");
    let settings = home.settings("memory = \"16M\"\nprogress = \"never\"\ncolor = \"never\"\n");
    let out = home.rmc(r.path(), &["check", "--format", "json"], &[]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(3),
        "the user's memory limit cuts it: {err}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let m = &doc["commits"][0]["models"][0];
    assert_eq!(m["limit"], "memory", "{m}");
    assert!(
        m.to_string().contains(&settings.display().to_string()),
        "the limit names the settings file: {m}"
    );
    // GIT_RMC_MEMORY_LIMIT wins over the user's settings.
    let out = home.rmc(
        r.path(),
        &["check", "--retry-incomplete"],
        &[("GIT_RMC_MEMORY_LIMIT", "2G")],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A key the file may not hold.
    home.settings("memory = \"8G\"\n\n[cache]\nmax_size = \"1G\"\nkeep_days = 3\n");
    let out = home.rmc(r.path(), &["check"], &[]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}:5:1: unknown key 'keep_days' in [cache]",
            settings.display()
        )),
        "{err}"
    );
    // GIT_RMC_CONFIG=none reads no settings.
    let out = home.rmc(r.path(), &["check"], &[("GIT_RMC_CONFIG", "none")]);
    assert_eq!(out.status.code(), Some(0));
}

/// Two clones checking the same history at once write the same records into the store
/// (each a temporary file renamed into place): both finish with the right verdicts, and a
/// third clone reuses what they wrote.
#[test]
fn two_clones_checking_at_once_share_the_store_safely() {
    let home = Home::new();
    let mut r = Repo::new();
    four_versions(&mut r);
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", r.path().display());
    for name in ["a", "b", "c"] {
        git_in(clones.path(), &["clone", "-q", &url, name], r.time);
    }
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| home.check(&clones.path().join("a"), &["--all"]));
        let b = s.spawn(|| home.check(&clones.path().join("b"), &["--all"]));
        (a.join().expect("thread"), b.join().expect("thread"))
    });
    for (code, res, err) in [&a, &b] {
        assert_eq!(*code, Some(0), "{err}");
        let verdicts: Vec<&str> = res.iter().filter_map(|r| r["verdict"].as_str()).collect();
        assert_eq!(verdicts, ["pass", "pass", "fail", "pass"], "{err}");
    }
    assert!(
        walk(&home.store().join("records"))
            .iter()
            .all(|p| !p.to_string_lossy().contains(".tmp-")),
        "no temporary file left"
    );
    let (code, res, err) = home.check(&clones.path().join("c"), &["--all"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("not reused"), "every record reads: {err}");
    for (x, y) in a.1.iter().zip(&res) {
        assert_eq!(y["verdict"], x["verdict"]);
        assert_eq!(y["new_violations"], x["new_violations"]);
        assert_eq!(y["stats"]["states_executed"], 0, "{y}");
    }
}

/// A cache that cannot be written is the machine's trouble, not the model's: exit 5, with
/// what could not be done, never 2.
#[test]
fn a_cache_that_cannot_be_written_is_not_a_model_error() {
    let mut r = Repo::new();
    r.write("model.pml", MODEL);
    r.commit("first");
    let blocker = r.path().join("not-a-folder");
    std::fs::write(&blocker, "a file where the cache should go\n").expect("write");
    let out = Command::new(assert_cmd::cargo::cargo_bin("git-rmc"))
        .args(["check"])
        .current_dir(r.path())
        .env("GIT_RMC_CACHE_DIR", &blocker)
        .env("GIT_RMC_STORE", "none")
        .env("GIT_RMC_CONFIG", "none")
        .env("GIT_RMC_MEMORY_LIMIT", "2G")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot use the cache"),
        "{}",
        stderr(&out)
    );
}

/// `non_progress = true`: after the safety check and the model's formula, the search for
/// non-progress cycles (pan -l, spin's claim of `-DNP` in place of the model's) reads the
/// state graph the safety check recorded, with pan -l -c0's figures (10 states stored, 13
/// visited, 7 matched, 20 transitions, depth 9) and its non-progress cycle; and again on the
/// next version, whose safety check reuses the record. (Its claim takes the place of the
/// model's one formula in the layout's table of process types; a model with another number
/// of claims has its search run.)
#[test]
fn the_non_progress_search_reads_the_recorded_graph() {
    let mut r = Repo::new();
    r.write(
        "model.pml",
        "byte x;\nactive proctype P() { do :: x = 1 - x :: x == 0 -> progress: x = 2 od }\n\
         ltl small { [] (x < 3) }\n",
    );
    r.rmc(&["init"]);
    let cfg = std::fs::read_to_string(r.path().join(".rmc.toml")).expect("config");
    r.write(
        ".rmc.toml",
        &format!("{cfg}\n[model.checks]\nnon_progress = true\n"),
    );
    r.commit("first");
    let figures = |c: &serde_json::Value| {
        let s = &c["stats"];
        [
            "states_stored",
            "states_revisited",
            "states_matched",
            "transitions",
            "depth_reached",
        ]
        .map(|k| s[k].as_u64().unwrap_or(u64::MAX))
    };
    let kinds = |c: &serde_json::Value| -> Vec<String> {
        c["violations"]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|x| x["kind"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (code, res, err) = r.check(&[]);
    assert_eq!(code, Some(1), "{err}");
    // (x = 1 - x takes 2 to 255: the formula fails.)
    assert_eq!(res[0]["claims"][0]["name"], "ltl small", "{}", res[0]);
    let c = &res[0]["claims"][1];
    assert_eq!(c["name"], "non-progress (np_)", "{c}");
    assert_eq!(c["over_graph"], true, "{c}");
    assert_eq!(figures(c), [10, 3, 7, 20, 9], "{c}");
    assert_eq!(kinds(c), ["non-progress-cycle"], "{c}");
    // The next version: x goes back from 2 to 0 too (pan -l -c0: 12 stored, 16 visited,
    // 13 matched, 29 transitions, depth 11).
    r.write(
        "model.pml",
        "byte x;\nactive proctype P() { do :: x = 1 - x :: x == 0 -> progress: x = 2 \
         :: x == 2 -> x = 0 od }\nltl small { [] (x < 3) }\n",
    );
    r.commit("second");
    let (code, res, err) = r.check(&["HEAD~1..HEAD"]);
    // (Both violations are the base's too: none is new.)
    assert_eq!(code, Some(0), "{err}");
    let c = &res[0]["claims"][1];
    assert_eq!(c["verdict"], "fail", "{c}");
    assert_eq!(c["over_graph"], true, "{c}");
    assert_eq!(kinds(c), ["non-progress-cycle"], "{c}");
    assert_eq!(figures(c), [12, 4, 13, 29, 11], "{c}");
    // The same system with no claim, then with two: the safety check's graph has no never
    // claim in its proctype table, or two, where the non-progress search has its one; it
    // reads the graph all the same (pan -l -c0 is as above: its claim replaces the model's).
    let two = "ltl small { [] (x < 3) }\nltl other { <> (x == 2) }\n";
    for (step, claims) in ["", two].into_iter().enumerate() {
        r.write(
            "model.pml",
            &format!(
                "byte x;\nactive proctype P() {{ do :: x = 1 - x :: x == 0 -> progress: x = 2 \
                 :: x == 2 -> x = 0 od }}\n{claims}"
            ),
        );
        r.commit(&format!("claims {step}"));
        let (_, res, err) = r.check(&["HEAD~1..HEAD"]);
        let np = res[0]["claims"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["name"] == "non-progress (np_)"))
            .unwrap_or_else(|| panic!("no non-progress search: {err}\n{}", res[0]));
        assert_eq!(np["over_graph"], true, "{np}");
        assert_eq!(kinds(np), ["non-progress-cycle"], "{np}");
        assert_eq!(figures(np), [12, 4, 13, 29, 11], "{np}");
        assert_eq!(
            res[0]["claims"].as_array().map(Vec::len),
            Some(step * 2 + 1)
        );
    }
}

/// A model that loads with a warning (an `ltl` formula with a temporal operator where a
/// value is expected, which spin checks as `(333==0)`): `check` shows it once, with the
/// commits it holds at, and checks the claim as spin does.
#[test]
fn a_warning_of_a_model_that_loads_is_shown_once_with_its_commits() {
    let mut r = Repo::new();
    r.write(
        "m.pml",
        "bool b;\nactive proctype p() { do :: b = !b od }\nltl q { [] b == 0 }\n",
    );
    r.commit("one");
    r.write("README", "docs\n");
    r.commit("docs");
    let (_, results, err) = r.check(&["--all"]);
    assert_eq!(results.len(), 2, "{err}");
    assert!(
        results.iter().all(|m| m["verdict"] == "fail"),
        "{results:?}"
    );
    assert_eq!(
        err.matches("warning: ltl q: '[]' stands where").count(),
        1,
        "{err}"
    );
    assert!(err.contains("`(333==0)`"), "{err}");
    assert!(err.contains(&r.at_commits(&["HEAD~1", "HEAD"])), "{err}");
    // The claim checked is spin's: the never claim of !(333==0) fails at once.
    let claims = results[0]["claims"].as_array().expect("claims");
    assert_eq!(claims.len(), 1, "{}", results[0]);
    assert_eq!(claims[0]["formula"], "(333==0)", "{}", claims[0]);
    assert_eq!(claims[0]["verdict"], "fail", "{}", claims[0]);
}
