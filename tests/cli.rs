//! The `git-rmc` binary: exit codes, text and JSON output of `show`.

use assert_cmd::Command;

fn models() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models")
}

#[test]
fn show_accepts_a_model_and_lists_its_automaton() {
    let out = Command::cargo_bin("git-rmc")
        .expect("binary")
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
    let out = Command::cargo_bin("git-rmc")
        .expect("binary")
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
    let out = Command::cargo_bin("git-rmc")
        .expect("binary")
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
    let ok = Command::cargo_bin("git-rmc")
        .expect("binary")
        .args(["show", "-DN=4"])
        .arg(&m)
        .output()
        .expect("runs");
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("byte a[4]"));
    let missing = Command::cargo_bin("git-rmc")
        .expect("binary")
        .args(["show"])
        .arg(&m)
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn show_missing_file_is_a_usage_error() {
    let out = Command::cargo_bin("git-rmc")
        .expect("binary")
        .args(["show", "no/such/model.pml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}
