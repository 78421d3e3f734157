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
fn help_keeps_each_example_on_its_own_line_and_each_summary_short() {
    // Help text is written with examples in columns; a reflowed paragraph would run them
    // together into one line.
    let top = bin().arg("--help").output().expect("runs");
    let top = String::from_utf8_lossy(&top.stdout).to_string();
    let commands = [
        "show",
        "verify",
        "diff",
        "check",
        "history",
        "init",
        "cache",
        "demo",
        "install-man",
    ];
    for c in commands {
        let line = top
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{c} ")))
            .unwrap_or_else(|| panic!("{c} is listed\n{top}"));
        assert!(line.len() <= 100, "{c}'s summary fits a line: {line}");
        let out = bin().args([c, "--help"]).output().expect("runs");
        assert!(out.status.success(), "{c} --help");
        let help = String::from_utf8_lossy(&out.stdout).to_string();
        let examples: Vec<&str> = help
            .lines()
            .filter(|l| l.starts_with("  git rmc "))
            .collect();
        assert!(!examples.is_empty(), "{c} --help shows examples\n{help}");
        for l in examples {
            assert_eq!(
                l.matches("git rmc ").count(),
                1,
                "{c}: one example a line: {l}"
            );
        }
        assert!(
            // (Options' own help is clap's to lay out.)
            help.lines()
                .all(|l| l.len() <= 100 || l.starts_with(char::is_whitespace)),
            "{c} --help: its paragraphs are wrapped\n{help}"
        );
    }
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
fn a_trail_through_a_timeout_inside_an_atomic_sequence_replays() {
    // The violation's trail takes the inner `timeout` in the pass the first one enabled;
    // the replay that describes it stopped there with an internal error (exit 4).
    let (code, text) = verify(&["--format", "json"], "atomic_timeout_trail.pml");
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["stats"]["states_stored"], 14);
    assert_eq!(doc["stats"]["states_matched"], 32);
    assert_eq!(doc["stats"]["transitions"], 46);
    let v = &doc["violations"].as_array().expect("violations")[0];
    assert_eq!(v["kind"], "assertion");
    assert!(!v["trail"].as_array().expect("trail").is_empty());
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
fn verify_checks_safety_and_then_each_claim_on_its_own() {
    let (code, text) = verify(&["--format", "json"], "ltl_formulas.pml");
    assert_eq!(code, Some(0), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    // The safety properties alone (pan -DSAFETY -DNOCLAIM -c0): 16/1/17, depth 15.
    assert!(doc["claim"].is_null(), "{text}");
    assert_eq!(doc["stats"]["states_stored"], 16, "{text}");
    assert_eq!(doc["stats"]["states_matched"], 1, "{text}");
    assert_eq!(doc["stats"]["depth_reached"], 15, "{text}");
    assert_eq!(doc["claims_not_checked"], serde_json::json!([]), "{text}");
    assert_eq!(doc["overall_verdict"], "pass", "{text}");
    // Then each claim as pan -a -c0 -N NAME: stored, visited again, matched, transitions,
    // depth; the system's moves read from the graph the safety check recorded.
    let want = [
        ("ltl bounded", 16, 0, 1, 17, 31),
        ("ltl returns", 24, 8, 10, 42, 31),
        ("ltl mixed", 27, 0, 8, 35, 33),
    ];
    let claims = doc["claims"].as_array().expect("claims");
    assert_eq!(claims.len(), want.len(), "{text}");
    for (c, (name, stored, again, matched, transitions, depth)) in claims.iter().zip(want) {
        assert_eq!(c["name"], name, "{c}");
        assert_eq!(c["verdict"], "pass", "{c}");
        assert_eq!(c["acceptance"], true, "{c}");
        assert_eq!(c["over_graph"], true, "{c}");
        assert_eq!(c["stats"]["states_stored"], stored, "{c}");
        assert_eq!(c["stats"]["states_revisited"], again, "{c}");
        assert_eq!(c["stats"]["states_matched"], matched, "{c}");
        assert_eq!(c["stats"]["transitions"], transitions, "{c}");
        assert_eq!(c["stats"]["depth_reached"], depth, "{c}");
    }
    // The formula as spin prints it (`ltl bounded: [] ((x<=3))`).
    assert_eq!(claims[0]["formula"], "[] ((x<=3))", "{text}");
    let (_, text) = verify(&[], "ltl_formulas.pml");
    assert!(
        text.contains("overall (safety and 3 claims): pass\n"),
        "{text}"
    );
    // -N: pan's one claim (the first, bounded: pan -c0, 16 stored, 1 matched, depth 31).
    // A claim was checked: the pass is not "safety only", and names the claims left.
    let (code, text) = verify(&["-N", "bounded", "--format", "json"], "ltl_formulas.pml");
    assert_eq!(code, Some(0), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["claim"], "ltl bounded", "{text}");
    let left = doc["claims_not_checked"].as_array().expect("claims");
    assert_eq!(left, &["ltl returns", "ltl mixed"], "{left:?}");
    assert_eq!(doc["stats"]["states_stored"], 16, "{text}");
    assert_eq!(doc["stats"]["states_matched"], 1, "{text}");
    assert_eq!(doc["stats"]["depth_reached"], 31, "{text}");
    let (_, text) = verify(&["-N", "bounded"], "ltl_formulas.pml");
    assert!(
        text.contains("verdict: pass (ltl returns, ltl mixed not checked)"),
        "{text}"
    );
    assert!(
        text.contains("not checked yet (one claim is checked at a time): ltl returns"),
        "{text}"
    );
}

#[test]
fn verify_claim_picks_the_claim_as_pan_n_does() {
    // pan -c0 -N NAME and pan -a -c0 -N NAME on ltl_formulas.pml: stored, visited again,
    // matched, transitions, depth.
    let cases = [
        ("returns", false, 24, 0, 4, 28, 31),
        ("returns", true, 24, 8, 10, 42, 31),
        ("mixed", false, 27, 0, 8, 35, 33),
        ("mixed", true, 27, 0, 8, 35, 33),
    ];
    for (name, a, stored, again, matched, transitions, depth) in cases {
        let mut args = vec!["-N", name, "--format", "json"];
        if a {
            args.push("-a");
        }
        let (code, text) = verify(&args, "ltl_formulas.pml");
        assert_eq!(code, Some(0), "{name} {a}: {text}");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(doc["claim"], format!("ltl {name}"), "{text}");
        let st = &doc["stats"];
        assert_eq!(st["states_stored"], stored, "{name} {a}: {text}");
        assert_eq!(
            st["states_revisited"].as_u64().unwrap_or(0),
            again,
            "{name} {a}"
        );
        assert_eq!(st["states_matched"], matched, "{name} {a}: {text}");
        assert_eq!(st["transitions"], transitions, "{name} {a}: {text}");
        assert_eq!(st["depth_reached"], depth, "{name} {a}: {text}");
        let left = doc["claims_not_checked"].as_array().expect("claims").len();
        assert_eq!(left, 2, "{text}");
    }
    // A name the model does not have is a usage error that names those it has.
    let out = bin()
        .args(["verify", "-N", "nope"])
        .arg(models().join("ltl_formulas.pml"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("it has bounded, returns, mixed"), "{err}");
}

#[test]
fn verify_l_finds_non_progress_cycles_with_pans_figures() {
    // spin -a; gcc -DNOREDUCE -DNP; ./pan -l -c0 (and -c1): stored, visited again, matched,
    // transitions, cycles found.
    let cases = [
        ("claims/np_cycle.pml", 18, 8, 17, 43, 1),
        ("claims/np_none.pml", 15, 7, 12, 34, 0),
        ("claims/np_terminating.pml", 3, 1, 1, 5, 0),
    ];
    for (model, stored, again, matched, transitions, cycles) in cases {
        let (code, text) = verify(&["-l", "--format", "json"], model);
        let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            code,
            Some(if cycles > 0 { 1 } else { 0 }),
            "{model}: {text}"
        );
        let st = &doc["stats"];
        assert_eq!(st["states_stored"], stored, "{model}: {text}");
        assert_eq!(st["states_revisited"], again, "{model}: {text}");
        assert_eq!(st["states_matched"], matched, "{model}: {text}");
        assert_eq!(st["transitions"], transitions, "{model}: {text}");
        let v = doc["violations"].as_array().expect("violations");
        assert_eq!(v.len(), cycles, "{model}: {text}");
        for v in v {
            assert_eq!(v["kind"], "non-progress-cycle", "{text}");
            assert_eq!(v["message"], "non-progress cycle", "{text}");
        }
    }
    // pan -l (-c1): 10 stored (15 visited), the cycle at depth 2.
    let (_, text) = verify(&["-l", "--max-errors", "1"], "claims/np_cycle.pml");
    assert!(text.contains("10 states, stored (15 visited)"), "{text}");
    assert!(text.contains("<<<<<START OF CYCLE>>>>>"), "{text}");
    assert!(text.contains("non-progress cycles, as pan -l"), "{text}");
}

#[test]
fn verify_fair_checks_each_claim_with_weak_fairness() {
    // research m7: A and B overwrite x; []<>(x == 2) fails on the run that starves B (pan -a:
    // 5 stored (7 visited), a cycle) and holds with weak fairness (pan -a -f: 5/8/13).
    let (code, text) = verify(&["--format", "json"], "claims/research_m7.pml");
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["claims"][0]["fair"], false, "{text}");
    // The safety check passes and the claim fails: the model fails, and the JSON says so
    // beside the safety check's own verdict.
    assert_eq!(doc["verdict"], "pass", "{text}");
    assert_eq!(doc["overall_verdict"], "fail", "{text}");
    let (code, text) = verify(&["--fair", "--format", "json"], "claims/research_m7.pml");
    assert_eq!(code, Some(0), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let c = &doc["claims"][0];
    assert_eq!(c["name"], "ltl p", "{text}");
    assert_eq!(c["acceptance"], true, "{text}");
    assert_eq!(c["fair"], true, "{text}");
    assert_eq!(c["verdict"], "pass", "{text}");
    assert_eq!(c["stats"]["states_stored"], 5, "{text}");
    assert_eq!(c["stats"]["states_matched"], 8, "{text}");
    assert_eq!(c["stats"]["transitions"], 13, "{text}");
    // The safety check beside it has no fairness to speak of.
    assert!(doc.get("fair").is_none(), "{text}");
    let (_, text) = verify(&["--fair"], "claims/research_m7.pml");
    assert!(
        text.contains("acceptance cycles with weak fairness, as pan -a -f -c0"),
        "{text}"
    );
    // -N NAME -a -f as pan -a -f -N NAME: m6-f2's fair cycle, pan's first error 3 (6
    // visited)/5/11 with the cycle at depth 4.
    let (code, text) = verify(
        &[
            "-N",
            "p",
            "-a",
            "--fair",
            "--max-errors",
            "1",
            "--format",
            "json",
        ],
        "claims/research_m6-f2.pml",
    );
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["fair"], true, "{text}");
    assert_eq!(doc["stats"]["states_stored"], 3, "{text}");
    assert_eq!(doc["stats"]["states_revisited"], 3, "{text}");
    assert_eq!(doc["stats"]["transitions"], 11, "{text}");
    assert_eq!(doc["violations"][0]["kind"], "acceptance-cycle", "{text}");
    // -l -f as pan -l -f: fair_progress's non-progress cycles all starve A.
    let (code, text) = verify(
        &["-l", "--fair", "--format", "json"],
        "claims/fair_progress.pml",
    );
    assert_eq!(code, Some(0), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["fair"], true, "{text}");
    assert_eq!(doc["stats"]["states_stored"], 192, "{text}");
    assert_eq!(doc["stats"]["transitions"], 1193, "{text}");
    let (code, _) = verify(&["-l", "--format", "json"], "claims/fair_progress.pml");
    assert_eq!(code, Some(1));
    // Past pan's limit on processes the search stops: the text says why it has no trail.
    let (code, text) = verify(&["--fair"], "claims/fair_six.pml");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("[too-many-processes]"), "{text}");
    assert!(
        text.contains("(no trail: the search stopped where the process limit was passed)"),
        "{text}"
    );
}

#[test]
fn verify_fair_without_a_cycle_search_is_a_usage_error() {
    // pan: "error: -f requires the use of -a or -l".
    let out = bin()
        .args(["verify", "--fair"])
        .arg(models().join("peterson_mutex.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--fair: weak fairness applies to a search for cycles"),
        "{err}"
    );
    // Accept labels without a claim: -f needs -a, as pan's.
    let out = bin()
        .args(["verify", "--fair"])
        .arg(models().join("claims/no_claim/accept_no_claim.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("-a for the acceptance cycles"), "{err}");
    let out = bin()
        .args(["verify", "--fair", "-N", "p"])
        .arg(models().join("claims/research_m7.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn verify_a_f_without_a_claim_searches_the_accept_labels_with_weak_fairness() {
    // pan -a -f built without a claim: A's accept loop starves B, which is enabled all
    // along, so -a finds the cycle (9 stored, 18 visited) and -a -f does not (9, 22).
    let model = "claims/no_claim/fair_solo_unfair.pml";
    let (code, text) = verify(&["-a", "--format", "json"], model);
    assert_eq!(code, Some(1), "{text}");
    let (code, text) = verify(&["-a", "--fair", "--format", "json"], model);
    assert_eq!(code, Some(0), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["fair"], true, "{text}");
    assert_eq!(doc["stats"]["states_stored"], 9, "{text}");
    assert_eq!(doc["stats"]["states_revisited"], 13, "{text}");
    assert_eq!(doc["stats"]["transitions"], 31, "{text}");
    let (_, text) = verify(&["-a", "--fair"], model);
    assert!(
        text.contains("accept labels with weak fairness, without a never claim, as pan -a -f"),
        "{text}"
    );
}

#[test]
fn verify_a_without_a_claim_searches_the_accept_labels() {
    // pan -a built without a claim: x = 1, then blocked at an accept label.
    let out = bin()
        .args(["verify", "-a"])
        .arg(models().join("claims/no_claim/accept_stutter.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("acceptance cycles through the processes' accept labels"),
        "{text}"
    );
    assert!(text.contains("accept stutter [acceptance-cycle]"), "{text}");
    assert!(
        text.contains("State-vector 20 byte, depth reached 1, errors: 1"),
        "{text}"
    );
    // Without accept labels pan ignores -a, and so does git rmc: a safety check.
    let out = bin()
        .args(["verify", "-a"])
        .arg(models().join("claims/no_claim/no_accept_labels.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no accept labels are defined"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[invalid-end-state]"), "{text}");
    assert!(text.contains("for safety"), "{text}");
    // Not in a regression check.
    let out = bin()
        .args(["verify", "-a", "--record", "x.rec"])
        .arg(models().join("claims/no_claim/accept_stutter.pml"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// Without -a, a model without claims whose processes have accept labels gets its safety
/// check (x = 1, then blocked at the label: an invalid end state) and then the search for
/// cycles through the labels that `spin -search` adds (pan -a: 2 states, an accept
/// stutter), named `accept labels` among the claims.
#[test]
fn verify_checks_safety_and_then_the_accept_labels_of_a_model_without_claims() {
    let (code, text) = verify(&["--format", "json"], "claims/no_claim/accept_stutter.pml");
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["violations"][0]["kind"], "invalid-end-state", "{doc}");
    let c = &doc["claims"][0];
    assert_eq!(c["name"], "accept labels", "{doc}");
    assert_eq!(c["acceptance"], true, "{doc}");
    assert_eq!(c["stats"]["states_stored"], 2, "{doc}");
    assert_eq!(c["violations"][0]["kind"], "acceptance-cycle", "{doc}");
    assert_eq!(c["violations"][0]["message"], "accept stutter", "{doc}");
    assert_eq!(doc["overall_verdict"], "fail", "{doc}");
}

#[test]
fn verify_a_reports_an_acceptance_cycle_with_where_it_starts() {
    // pan -a -c0 on m4: 6 states stored (8 visited), 6 matched, a cycle at depth 6.
    let (code, text) = verify(
        &["-a", "-N", "p", "--format", "json"],
        "claims/research_m4.pml",
    );
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["claim"], "ltl p", "{text}");
    assert_eq!(doc["acceptance"], true, "{text}");
    assert_eq!(doc["stats"]["states_stored"], 6, "{text}");
    assert_eq!(doc["stats"]["states_revisited"], 2, "{text}");
    assert_eq!(doc["stats"]["transitions"], 14, "{text}");
    let v = &doc["violations"][0];
    assert_eq!(v["kind"], "acceptance-cycle", "{text}");
    assert_eq!(v["cycle_start"], 7, "{text}");
    let (_, text) = verify(&["-a", "-N", "p"], "claims/research_m4.pml");
    assert!(text.contains("6 states, stored (8 visited)"), "{text}");
    assert!(text.contains("<<<<<START OF CYCLE>>>>>"), "{text}");
    // Without -a the formula holds for safety (pan without -a: 6/5/11).
    let (code, text) = verify(&["-N", "p"], "claims/research_m4.pml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("        5 states, matched"), "{text}");
    // Without -N the claim is checked with its acceptance cycles after the safety check,
    // and fails the whole.
    let (code, text) = verify(&["--format", "json"], "claims/research_m4.pml");
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["verdict"], "pass", "{text}");
    let c = &doc["claims"][0];
    assert_eq!(c["verdict"], "fail", "{text}");
    assert_eq!(c["stats"]["states_stored"], 6, "{text}");
    assert_eq!(c["stats"]["states_revisited"], 2, "{text}");
    assert_eq!(c["violations"][0]["cycle_start"], 7, "{text}");
    let (_, text) = verify(&[], "claims/research_m4.pml");
    assert!(
        text.contains("overall (safety and 1 claim): FAIL (ltl p)"),
        "{text}"
    );
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

/// A model whose state space needs far more memory than the tests allow it.
const BIG: &str = "int a, b;
active proctype P() {
end:
    do
    :: a < 4000 -> a++
    :: b < 4000 -> b++
    od
}
";

fn write_model(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write model");
    p
}

#[test]
fn verify_stops_cleanly_under_an_address_space_limit() {
    // `ulimit -v` as CI and containers set it: the check must stop at its memory limit
    // (exit 3, "limit": "memory"), never abort on a failed allocation.
    let dir = tempfile::tempdir().expect("tempdir");
    let model = write_model(dir.path(), "big.pml", BIG);
    let exe = assert_cmd::cargo::cargo_bin("git-rmc");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 400000 && exec \"$0\" verify --format json \"$1\"")
        .arg(&exe)
        .arg(&model)
        .env_remove("GIT_RMC_MEMORY_LIMIT")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["verdict"], "incomplete");
    assert_eq!(doc["complete"], false);
    assert_eq!(doc["limit"], "memory");
    assert!(
        doc["stats"]["states_stored"].as_u64() > Some(100_000),
        "{doc}"
    );
}

/// A check that stopped at its memory limit (exit 3), its peak within `limit` bytes; its
/// JSON document.
fn cut_at_memory(out: &std::process::Output, limit: u64) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(3));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["limit"], "memory");
    assert!(
        doc["stats"]["peak_memory_bytes"].as_u64() <= Some(limit),
        "{doc}"
    );
    doc
}

#[test]
fn a_recording_run_cut_by_its_memory_limit_writes_no_record() {
    // The recorder may ride on a second thread: the run must still stop at the limit, with
    // the figures within it, and leave no record behind.
    let dir = tempfile::tempdir().expect("tempdir");
    let model = write_model(dir.path(), "big.pml", BIG);
    let rec = dir.path().join("big.rec");
    let out = bin()
        .args([
            "verify",
            "--memory-limit",
            "16M",
            "--format",
            "json",
            "--record",
        ])
        .arg(&rec)
        .arg(&model)
        .output()
        .expect("runs");
    let doc = cut_at_memory(&out, 16 << 20);
    assert!(
        doc["stats"]["states_stored"].as_u64() > Some(10_000),
        "{doc}"
    );
    assert!(!rec.exists(), "a cut run wrote a record");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no record written"));
}

#[test]
fn a_record_that_would_not_fit_the_memory_limit_is_not_kept_and_the_verdict_stands() {
    // The search's visited set is gone when the record is assembled, but the record's events
    // and vectors, held compressed while the search ran, are decompressed and compressed
    // again: on the sample's elevator (long atomic runs, many events a state) that needs
    // more than the search held. At the smallest limit the search completes within, the
    // check passes and says why it keeps no record (it used to assemble it past the limit,
    // and under `ulimit -v` abort); with room, the record is written.
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-repo/versions/16-fix-stairs-trip-count/model.pml");
    let dir = tempfile::tempdir().expect("tempdir");
    let rec = dir.path().join("e.rec");
    let run = |limit: Option<u64>| {
        let mut c = bin();
        c.args(["verify", "--format", "json", "--record"]).arg(&rec);
        if let Some(l) = limit {
            c.arg("--memory-limit").arg(l.to_string());
        }
        let out = c.arg(&model).output().expect("runs");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        (out, doc)
    };
    let (out, whole) = run(None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(rec.exists());
    std::fs::remove_file(&rec).expect("remove the record");
    let peak = whole["stats"]["peak_memory_bytes"].as_u64().expect("peak");
    let states = whole["stats"]["states_stored"].as_u64();
    let (out, doc) = run(Some(peak));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(doc["verdict"], "pass", "{doc}");
    assert_eq!(doc["stats"]["states_stored"].as_u64(), states, "{doc}");
    assert!(doc["record"].is_null(), "{doc}");
    assert!(
        !rec.exists(),
        "a record assembled past the limit was written"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no record written") && err.contains("past the memory limit"),
        "{err}"
    );
    let (out, doc) = run(Some(2 * peak));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(doc["record"]["states"].as_u64(), states, "{doc}");
    assert!(rec.exists());
}

/// A model `m.pml` of `text` in `dir`, checked with `--record m.rec`: the model, the record
/// and the check's JSON document.
fn recorded_base(
    dir: &std::path::Path,
    text: &str,
) -> (std::path::PathBuf, std::path::PathBuf, serde_json::Value) {
    let model = write_model(dir, "m.pml", text);
    let base = dir.join("m.rec");
    let out = bin()
        .args(["verify", "--format", "json", "--record"])
        .arg(&base)
        .arg(&model)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc = serde_json::from_slice(&out.stdout).expect("json");
    (model, base, doc)
}

#[test]
fn the_record_a_run_reuses_counts_against_its_memory_limit() {
    // A run that reads a reused record's states holds them while it searches: a limit that
    // a check without them fits under, but not with them, must cut the run rather than let
    // the process grow past the limit. A full check never reads them, and fits.
    let dir = tempfile::tempdir().expect("tempdir");
    let text = BIG.replace("4000", "1000");
    let (model, base, first) = recorded_base(dir.path(), &text);
    let json = |out: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let alone = first["stats"]["peak_memory_bytes"].as_u64().expect("peak");
    let states = first["stats"]["states_stored"].as_u64();
    // The record's bytes on disk are fewer than it holds in memory (its graph alone has
    // every state's events and vector, as on disk).
    let record = std::fs::metadata(&base).expect("record").len();
    assert!(record > 8 << 20, "a record of {record} bytes");
    let limit = alone + record / 2;
    let run = |reuse: bool, alg: &str, model: &std::path::Path| {
        let mut c = bin();
        c.args(["verify", "--format", "json", "--algorithm", alg])
            .arg("--memory-limit")
            .arg(limit.to_string());
        if reuse {
            c.arg("--reuse").arg(&base);
        }
        c.arg(model).output().expect("runs")
    };
    let out = run(false, "full", &model);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(json(&out)["stats"]["states_stored"].as_u64(), states);
    // A full check reads the record's head alone (its violations, to tell new from fixed).
    let out = run(true, "full", &model);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc = json(&out);
    assert_eq!(doc["algorithm"], "full", "{doc}");
    assert_eq!(doc["stats"]["states_stored"].as_u64(), states, "{doc}");
    assert!(
        doc["stats"]["peak_memory_bytes"].as_u64() <= Some(limit),
        "{doc}"
    );
    // Pruning reads the states and, the loop's statement changed, executes every state
    // anew beside them: cut.
    let changed = write_model(
        dir.path(),
        "changed.pml",
        &text.replacen("b < 1000 -> b++", "b < 1000 -> b++; skip", 1),
    );
    let doc = cut_at_memory(&run(true, "prune", &changed), limit);
    assert_eq!(doc["algorithm"], "prune", "{doc}");
    assert!(doc["stats"]["states_stored"].as_u64() < states, "{doc}");
}

#[test]
fn a_reusing_run_cut_by_its_memory_limit_writes_no_record() {
    // A pruning or replaying run keeps its sets and graph on a second thread, whose memory
    // reaches the search late: the run must still stop at the limit and leave no record.
    let dir = tempfile::tempdir().expect("tempdir");
    let text = BIG.replace("4000", "300");
    let (_, base, _) = recorded_base(dir.path(), &text);
    // (The new version has a fifth more states than the recorded one, which the run executes
    // and stores as it goes: its memory grows well past the record it holds. A change that
    // leaves most states as recorded is walked, and hardly grows.)
    let next = write_model(dir.path(), "n.pml", &text.replacen("b < 300", "b < 360", 1));
    for alg in ["prune", "replay"] {
        let rec = dir.path().join(format!("n-{alg}.rec"));
        let run = |limit: Option<u64>| {
            let mut c = bin();
            c.args(["verify", "--format", "json", "--algorithm", alg, "--reuse"])
                .arg(&base)
                .arg("--record")
                .arg(&rec);
            if let Some(l) = limit {
                c.arg("--memory-limit").arg(l.to_string());
            }
            c.arg(&next).output().expect("runs")
        };
        // Four fifths of what the whole run takes: more than the record it reuses holds
        // (which counts against the limit too), less than the run needs.
        let out = run(None);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let whole: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let limit = whole["stats"]["peak_memory_bytes"].as_u64().expect("peak") / 5 * 4;
        std::fs::remove_file(&rec).expect("remove the record");
        let doc = cut_at_memory(&run(Some(limit)), limit);
        // (It ran: the cut is the search's, not the record load's.)
        assert!(
            doc["stats"]["states_stored"].as_u64() > Some(1_000),
            "{doc}"
        );
        assert_eq!(doc["algorithm"], alg, "{doc}");
        assert!(!rec.exists(), "{alg}: a cut run wrote a record");
    }
}

#[test]
fn memory_limit_auto_follows_the_environment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = write_model(dir.path(), "big.pml", BIG);
    let out = bin()
        .args(["verify", "--format", "json"])
        .arg(&model)
        .env("GIT_RMC_MEMORY_LIMIT", "16M")
        .output()
        .expect("runs");
    cut_at_memory(&out, 16 << 20);
    // An explicit size wins over the environment.
    let out = bin()
        .args(["verify", "--memory-limit", "8M", "--format", "json"])
        .arg(&model)
        .env("GIT_RMC_MEMORY_LIMIT", "1G")
        .output()
        .expect("runs");
    cut_at_memory(&out, 8 << 20);
    // A bad value is a usage error.
    let out = bin()
        .args(["verify"])
        .arg(&model)
        .env("GIT_RMC_MEMORY_LIMIT", "lots")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn short_trails_keep_the_checks_definition_of_an_invalid_end_state() {
    // With -q a final state is invalid only while a channel holds a message: the shortest
    // trail must end where the message is still in the channel.
    let (code, text) = verify(
        &["--empty-channels", "--short-trails", "--format", "json"],
        "empty_channels_end_states.pml",
    );
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let v = &doc["violations"][0];
    assert_eq!(v["kind"], "invalid-end-state");
    let trail = v["trail"].as_array().expect("trail");
    assert!(trail.iter().any(|s| s["statement"] == "c!1"), "{v}");
    assert_eq!(doc["stats"]["states_stored"], 7);
}

#[test]
fn short_trails_reach_an_error_reported_before_a_fault() {
    // The assertion fails inside a d_step that then blocks (pan reports both): its shortest
    // trail takes `y = y + 2` (2 steps to y == 2, 4 in all), not the search's `y++` twice (6).
    let dir = tempfile::tempdir().expect("tempdir");
    let model = write_model(
        dir.path(),
        "flagged.pml",
        "byte x, y;
         active proctype counter() {
             do :: y < 3 -> y++ :: y < 3 -> y = y + 2 :: y >= 3 -> break od }
         active proctype p() { y == 2; d_step { x = 1; assert(x == 0); x == 2 } }",
    );
    let out = bin()
        .args(["verify", "--short-trails", "--format", "json"])
        .arg(&model)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let trails: Vec<(&str, usize)> = doc["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            let n = v["trail"].as_array().map_or(0, Vec::len);
            (v["kind"].as_str().unwrap_or_default(), n)
        })
        .collect();
    assert_eq!(trails, [("assertion", 4), ("d_step-blocked", 4)], "{doc}");
}

#[test]
fn trails_are_kept_for_the_first_violations_of_each_kind() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Four distinct assertions fail; with --max-trails 2 two keep a trail.
    let model = write_model(
        dir.path(),
        "four.pml",
        "byte x; active proctype P() { if :: x = 1 :: x = 2 :: x = 3 :: x = 4 fi;
         if :: x == 1 -> assert(false) :: x == 2 -> assert(false)
            :: x == 3 -> assert(false) :: x == 4 -> assert(false) fi }",
    );
    let out = bin()
        .args(["verify", "--max-trails", "2", "--format", "json"])
        .arg(&model)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let vs = doc["violations"].as_array().expect("violations");
    assert_eq!(vs.len(), 4);
    assert_eq!(vs.iter().filter(|v| v.get("trail").is_some()).count(), 2);
    let out = bin()
        .args(["verify", "--max-trails", "0", "--format", "json"])
        .arg(&model)
        .output()
        .expect("runs");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let vs = doc["violations"].as_array().expect("violations");
    assert!(vs.iter().all(|v| v.get("trail").is_none()));
}

#[test]
fn a_fatal_error_ends_the_search_and_is_named() {
    let (code, text) = verify(&["--format", "json"], "enabled_self.pml");
    assert_eq!(code, Some(1), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(doc["verdict"], "fail");
    assert_eq!(doc["stopped_by"], "enabled-self");
    assert_eq!(doc["complete"], false);
    assert_eq!(doc["stats"]["states_stored"], 4);
}

#[test]
fn verify_says_when_pan_would_need_a_larger_vectorsz() {
    let (code, text) = verify(&[], "big_state_vector.pml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("-DVECTORSZ=N, N > 1124"), "{text}");
}

const V1: &str = "byte x, y;
active proctype P() { do :: x < 5 -> x++ :: x == 5 -> break od; assert(x == 5) }
active proctype Q() { y = 1; y = 2; assert(y == 2) }
";

fn run_json(args: &[&str], paths: &[&std::path::Path]) -> (Option<i32>, serde_json::Value, String) {
    let out = bin().args(args).args(paths).output().expect("runs");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (
        out.status.code(),
        doc,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn verify_records_then_prunes_with_the_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let v1 = write_model(dir.path(), "v1.pml", V1);
    let v2 = write_model(
        dir.path(),
        "v2.pml",
        &V1.replace("y = 2; assert", "y = 3; assert"),
    );
    let r1 = dir.path().join("v1.rec");
    let r2 = dir.path().join("v2.rec");
    let out = bin()
        .arg("verify")
        .arg(&v1)
        .arg("--record")
        .arg(&r1)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("record: "));
    // The new version, pruned: the assertion now fails; nothing of P's part is explored
    // again.
    let (code, doc, _) = run_json(
        &[
            "verify",
            "--format",
            "json",
            "--algorithm",
            "prune",
            "--reuse",
        ],
        &[&r1, &v2, std::path::Path::new("--record"), &r2],
    );
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["algorithm"], "prune");
    assert_eq!(doc["dangerous_locations"], 1);
    assert_eq!(doc["violations"][0]["kind"], "assertion");
    assert_eq!(doc["violations"][0]["new"], true);
    assert!(doc["base"].as_str().is_some_and(|b| b.len() == 16), "{doc}");
    // Back to the first version with the second's record (which holds the states
    // reachable in the second version, graph included): replayed where the change is not,
    // the assertion is fixed.
    let (code, doc, _) = run_json(
        &[
            "verify",
            "--format",
            "json",
            "--algorithm",
            "replay",
            "--reuse",
        ],
        &[&r2, &v1],
    );
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["mode"], "incremental");
    assert_eq!(doc["algorithm"], "replay");
    assert!(doc["stats"]["states_walked"].as_u64() > Some(0), "{doc}");
    assert_eq!(doc["fixed"][0]["kind"], "assertion");
    assert!(doc["fixed"][0]["location"]
        .as_str()
        .is_some_and(|l| l.contains("v2.pml:3")));
    // The same check with --algorithm full explores everything, with the same verdict.
    let (code, doc, _) = run_json(
        &[
            "verify",
            "--format",
            "json",
            "--algorithm",
            "full",
            "--reuse",
        ],
        &[&r2, &v1],
    );
    assert_eq!((code, doc["mode"].as_str()), (Some(0), Some("full")));
    assert_eq!(doc["stats"]["states_pruned"], 0);
}

#[test]
fn a_record_that_cannot_be_used_costs_a_full_check_never_a_verdict() {
    let dir = tempfile::tempdir().expect("tempdir");
    let v1 = write_model(dir.path(), "v1.pml", V1);
    let v2 = write_model(
        dir.path(),
        "v2.pml",
        &V1.replace("y = 2; assert", "y = 3; assert"),
    );
    let rec = dir.path().join("v1.rec");
    bin()
        .arg("verify")
        .arg(&v1)
        .arg("--record")
        .arg(&rec)
        .assert()
        .success();
    let good = std::fs::read(&rec).expect("record");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", good[..good.len() / 2].to_vec()),
        ("corrupt", {
            let mut b = good.clone();
            let k = b.len() / 2;
            b[k] ^= 0x55;
            b
        }),
        ("not a git rmc record", b"hello".to_vec()),
        ("format", {
            let mut b = good.clone();
            b[8] = 99;
            b
        }),
    ];
    for (why, bytes) in cases {
        let bad = dir.path().join("bad.rec");
        std::fs::write(&bad, &bytes).expect("write");
        let (code, doc, err) = run_json(&["verify", "--format", "json", "--reuse"], &[&bad, &v2]);
        assert_eq!(code, Some(1), "{why}: {err}");
        assert_eq!(doc["violations"][0]["kind"], "assertion", "{why}");
        assert_eq!(doc["mode"], "full", "{why}");
        assert!(
            err.contains("not reused") && err.contains(why),
            "{why}: {err}"
        );
        assert_eq!(
            err.lines().filter(|l| l.starts_with("warning")).count(),
            1,
            "{err}"
        );
    }
    // A record made with other checks is not used for pruning, and says so.
    let (code, doc, err) = run_json(
        &["verify", "--format", "json", "--no-end-states", "--reuse"],
        &[&rec, &v2],
    );
    assert_eq!(code, Some(1));
    assert_eq!(doc["mode"], "full");
    assert!(err.contains("other checks"), "{err}");
}

#[test]
fn diff_prints_dangerous_locations_from_files_and_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let v1 = write_model(dir.path(), "v1.pml", V1);
    let v2 = write_model(
        dir.path(),
        "v2.pml",
        &V1.replace("y = 2; assert", "y = 3; assert"),
    );
    let out = bin().arg("diff").arg(&v1).arg(&v2).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("dangerous: Q at"), "{text}");
    assert!(text.contains("v1.pml:3:"), "{text}");
    assert!(
        text.contains("  - y = 2") && text.contains("  + y = 3"),
        "{text}"
    );
    assert!(text.contains("1 dangerous, 0 new, 0 deleted"), "{text}");
    let rec = dir.path().join("v1.rec");
    bin()
        .arg("verify")
        .arg(&v1)
        .arg("--record")
        .arg(&rec)
        .assert()
        .success();
    let (code, doc, _) = run_json(&["diff", "--format", "json"], &[&rec, &v2]);
    assert_eq!(code, Some(0));
    assert_eq!(doc["locations_dangerous"], 1);
    assert_eq!(doc["dangerous"][0]["proctype"], "Q");
    assert_eq!(doc["layout_change"], serde_json::Value::Null);
    let v3 = write_model(
        dir.path(),
        "v3.pml",
        &V1.replace("byte x, y;", "short x; byte y;"),
    );
    let (_, doc, _) = run_json(&["diff", "--format", "json"], &[&v1, &v3]);
    assert!(
        doc["layout_change"]
            .as_str()
            .is_some_and(|l| l.contains("'x'")),
        "{doc}"
    );
}

#[test]
fn a_comment_line_moves_a_reported_violation_to_its_new_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = V1.replace("y = 2; assert", "y = 3; assert");
    let v1 = write_model(dir.path(), "v1.pml", &bad);
    let v2 = write_model(dir.path(), "v2.pml", &format!("/* a comment */\n{bad}"));
    let rec = dir.path().join("v1.rec");
    bin()
        .arg("verify")
        .arg(&v1)
        .arg("--record")
        .arg(&rec)
        .output()
        .expect("runs");
    let (code, doc, _) = run_json(&["verify", "--format", "json", "--reuse"], &[&rec, &v2]);
    assert_eq!(code, Some(1));
    assert_eq!(doc["dangerous_locations"], 0);
    assert_eq!(doc["mode"], "incremental");
    let v = &doc["violations"][0];
    assert!(
        v["location"]
            .as_str()
            .is_some_and(|l| l.contains("v2.pml:4:")),
        "{v}"
    );
    assert_eq!(v["new"], false);
    // Reported again from the record, with a trail that replays to it.
    assert!(v["trail"].as_array().is_some_and(|t| !t.is_empty()), "{v}");
}

/// `git rmc install-man`'s pages in `dir`, by file name.
fn man_pages(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn install_man_writes_a_page_per_command_that_man_can_format() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("share/man/man1");
    let out = bin()
        .args(["install-man", "--dir"])
        .arg(&dir)
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!("to {}", dir.display())),
        "it says where: {said}"
    );
    let names = man_pages(&dir);
    for page in [
        "git-rmc.1",
        "git-rmc-check.1",
        "git-rmc-history.1",
        "git-rmc-verify.1",
        "git-rmc-cache.1",
        "git-rmc-cache-gc.1",
        "git-rmc-install-man.1",
    ] {
        assert!(names.iter().any(|n| n == page), "{page} in {names:?}");
    }
    assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    // The pages hold the commands' options and their help, as roff.
    let check = read("git-rmc-check.1");
    assert!(check.starts_with(".ie \\n(.g .ds Aq"), "{check:.200}");
    assert!(check.contains(".TH git-rmc-check 1"), "{check:.400}");
    for option in ["\\-\\-audit", "\\-\\-worktree", "\\-\\-all"] {
        assert!(check.contains(option), "{option} in git-rmc-check.1");
    }
    let top = read("git-rmc.1");
    assert!(top.contains("git\\-rmc\\-history(1)"), "{top}");
    assert!(top.contains("\\-\\-color"), "{top}");

    // man formats a page from its file, whatever the machine's man setup (where there is a
    // man at all).
    let formatted = std::process::Command::new("man")
        .arg("-l")
        .arg(dir.join("git-rmc-check.1"))
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .env("LC_ALL", "C")
        .output();
    let Ok(m) = formatted else {
        eprintln!("no man on PATH: the pages were not formatted");
        return;
    };
    let text = String::from_utf8_lossy(&m.stdout);
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    assert!(text.contains("git rmc check"), "{text}");
    assert!(text.contains("--audit"), "{text}");

    // And git finds the page: `git rmc --help` is `man git-rmc` to git.
    let exe = assert_cmd::cargo::cargo_bin("git-rmc");
    let mut path = vec![exe.parent().map(|p| p.to_path_buf()).unwrap_or_default()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let help = std::process::Command::new("git")
        .args(["rmc", "--help"])
        .env("PATH", std::env::join_paths(path).expect("PATH"))
        .env("HOME", tmp.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("MANPATH", tmp.path().join("share/man"))
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("LC_ALL", "C")
        .output();
    let Ok(help) = help else {
        eprintln!("no git on PATH: git rmc --help was not tried");
        return;
    };
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.status.success(),
        "{}",
        String::from_utf8_lossy(&help.stderr)
    );
    assert!(
        text.contains("git-rmc - Regression model checking"),
        "{text}"
    );
}

#[test]
fn install_man_writes_to_the_users_own_pages_by_default() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let out = bin()
        .arg("install-man")
        .env("HOME", &home)
        .env_remove("XDG_DATA_HOME")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let dir = home.join(".local/share/man/man1");
    assert!(man_pages(&dir).iter().any(|n| n == "git-rmc.1"));
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(said.contains(&dir.display().to_string()), "{said}");

    let xdg = tmp.path().join("data");
    let out = bin()
        .args(["--quiet", "install-man"])
        .env("HOME", &home)
        .env("XDG_DATA_HOME", &xdg)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "--quiet says nothing");
    assert!(man_pages(&xdg.join("man/man1"))
        .iter()
        .any(|n| n == "git-rmc-install-man.1"));

    // Where man is told to search the folder (MANPATH), the command says so; `-h` and
    // `help` print help as before, with the new command listed.
    let out = bin()
        .arg("install-man")
        .env("HOME", &home)
        .env_remove("XDG_DATA_HOME")
        .env("MANPATH", home.join(".local/share/man"))
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    if said.contains("could not ask `manpath`") {
        eprintln!("no manpath on PATH: {said}");
    } else {
        assert!(said.contains("man searches"), "{said}");
    }
    for args in [&["-h"][..], &["help"], &["help", "install-man"]] {
        let out = bin().args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("install-man"),
            "{args:?}"
        );
    }
}
