//! The `git-rmc` binary: exit codes, text and JSON output of `show` and `verify`.

use assert_cmd::Command;

/// The `git-rmc` binary under test.
fn bin() -> Command {
    Command::cargo_bin("git-rmc").expect("binary")
}

fn models() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models")
}

#[test]
fn show_accepts_a_model_and_lists_its_automaton() {
    let out = bin()
        .args(["show"])
        .arg(models().join("peterson_mutex.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("proctype P  active 2  — 7 locations, 7 edges"),
        "{text}"
    );
}

#[test]
fn show_json_has_locations_and_edges() {
    let out = bin()
        .args(["show", "--format", "json"])
        .arg(models().join("peterson_mutex.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let procs = doc["proctypes"].as_array().expect("proctypes");
    assert_eq!(procs.len(), 2);
    assert_eq!(procs[0]["name"], "P");
    assert_eq!(procs[0]["active"], 2);
    assert_eq!(procs[0]["locations"].as_array().map(|l| l.len()), Some(7));
}

#[test]
fn show_reports_errors_with_file_line_col_and_exit_2() {
    let out = bin()
        .args(["show"])
        .arg(models().join("bad/undeclared_var.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("undeclared variable: y"), "{err}");
    assert!(err.contains("undeclared_var.pml:5:6"), "{err}");
}

#[test]
fn show_defines_reach_the_preprocessor() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = dir.path().join("m.pml");
    std::fs::write(&m, "byte a[N];\nactive proctype P() { a[N-1] = 1 }\n").expect("write");
    let ok = bin()
        .args(["show", "-DN=4"])
        .arg(&m)
        .output()
        .expect("runs");
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("byte a[4]"));
    let missing = bin().args(["show"]).arg(&m).output().expect("runs");
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn show_missing_file_is_a_usage_error() {
    let out = bin()
        .args(["show", "no/such/model.pml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

fn verify(args: &[&str], model: &str) -> (Option<i32>, String) {
    let out = bin()
        .arg("verify")
        .args(args)
        .arg(models().join(model))
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn verify_passes_a_correct_model_with_spins_figures() {
    let (code, text) = verify(&[], "peterson_mutex.pml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("       38 states, stored"), "{text}");
    assert!(text.contains("       27 states, matched"), "{text}");
    assert!(
        text.contains("       65 transitions (= stored+matched)"),
        "{text}"
    );
    assert!(text.contains("depth reached 23, errors: 0"), "{text}");
    assert!(text.contains("verdict: pass"), "{text}");
}

#[test]
fn verify_reports_a_violation_with_a_trail_and_exits_1() {
    let (code, text) = verify(&["--format", "json"], "broken_mutex.pml");
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["verdict"], "fail");
    assert_eq!(doc["complete"], true);
    assert_eq!(doc["stats"]["states_stored"], 360);
    assert_eq!(doc["stats"]["states_matched"], 625);
    let v = &doc["violations"].as_array().expect("violations")[0];
    assert_eq!(v["kind"], "assertion");
    assert!(
        v["location"]
            .as_str()
            .is_some_and(|l| l.ends_with(":13:2") || l.contains("broken_mutex.pml:13:")),
        "{v}"
    );
    let trail = v["trail"].as_array().expect("trail");
    assert!(!trail.is_empty());
    assert_eq!(trail[0]["step"], 1);
    // The short trail is no longer than the depth-first one.
    let (_, short) = verify(&["--format", "json", "--short-trails"], "broken_mutex.pml");
    let sdoc: serde_json::Value = serde_json::from_str(&short).expect("json");
    let slen = sdoc["violations"][0]["trail"].as_array().map(|t| t.len());
    assert!(slen.is_some_and(|n| n <= trail.len()), "{slen:?}");
}

#[test]
fn verify_cut_by_a_limit_is_incomplete_and_exits_3() {
    let (code, text) = verify(
        &["--max-states", "10", "--format", "json"],
        "peterson_mutex.pml",
    );
    assert_eq!(code, Some(3), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["verdict"], "incomplete");
    assert_eq!(doc["complete"], false);
    assert_eq!(doc["limit"], "states");
    let (code, text) = verify(&["--max-depth", "5"], "peterson_mutex.pml");
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("INCOMPLETE"), "{text}");
}

#[test]
fn verify_options_silence_kinds() {
    let (code, _) = verify(&[], "buffer_full_deadlock.pml");
    assert_eq!(code, Some(1));
    let (code, text) = verify(&["--no-end-states"], "buffer_full_deadlock.pml");
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = verify(&["--no-assertions"], "broken_mutex.pml");
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn verify_names_claims_it_does_not_check() {
    let (code, text) = verify(&["--format", "json"], "ltl_formulas.pml");
    assert_eq!(code, Some(0), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let claims = doc["claims_not_checked"].as_array().expect("claims");
    assert_eq!(claims.len(), 3, "{claims:?}");
}

#[test]
fn verify_rejects_a_bad_model_with_exit_2() {
    assert!(models().join("bad/undeclared_var.pml").exists());
    let (code, _) = verify(&[], "bad/undeclared_var.pml");
    assert_eq!(code, Some(2));
    let out = bin()
        .args(["verify", "no/such/model.pml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn verify_warns_where_pan_would_refuse_the_model() {
    let out = bin()
        .arg("verify")
        .arg(models().join("self_loop_spinner.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unconditional self-loop"), "{err}");
    assert!(err.contains("self_loop_spinner.pml:9:"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("        7 states, stored"), "{text}");
}

#[test]
fn show_reports_errors_after_a_broken_if_in_the_same_body() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("m.pml");
    std::fs::write(
        &path,
        "byte x;\nactive proctype P() {\n  x = 1 +;\n  x = 2;\n  if :: x == ) -> skip fi;\n  x = * 3;\n  x = 4\n}\nactive proctype Q() { x = / 2 }\n",
    )
    .expect("write");
    let out = bin().arg("show").arg(&path).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for at in ["m.pml:3:10", "m.pml:5:14", "m.pml:6:7", "m.pml:9:27"] {
        assert!(err.contains(at), "no error at {at}:\n{err}");
    }
}
