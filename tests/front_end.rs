//! The front end against spin: every conformance model is accepted and lowered to pan's
//! automaton (locations, edges, and the source line of every edge as `pan -d` prints them);
//! every malformed model is rejected at the right file:line:col; unsupported constructs get a
//! "not supported" diagnostic. Stored `pan -d` dumps are the oracle; when spin is installed
//! the dumps and the accept/reject verdicts are also taken live.

mod common;

use common::*;

fn good_models() -> Vec<(String, bool)> {
    manifest("manifest.json")
        .iter()
        .map(|m| {
            (
                m["model"].as_str().unwrap_or_default().to_string(),
                m["unsupported"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

fn dump_name(model: &str) -> String {
    let p = std::path::Path::new(model);
    if p.file_name().is_some_and(|f| f == "main.pml") {
        p.parent()
            .map(|d| d.to_string_lossy().to_string())
            .unwrap_or_default()
    } else {
        p.with_extension("").to_string_lossy().to_string()
    }
}

fn compare_with_dump(model: &str, dump: &str) -> Vec<String> {
    let path = models_dir().join(model);
    let loaded = load(&path);
    let mut problems = Vec::new();
    if loaded.program.is_none() {
        let msgs: Vec<String> = loaded
            .diags
            .iter()
            .map(|d| d.short(&loaded.files))
            .collect();
        problems.push(format!("{model}: rejected: {}", msgs.join("; ")));
        return problems;
    }
    let pan = parse_pan_d(dump);
    let ours = our_procs(&loaded);
    let ltl: Vec<String> = loaded
        .program
        .as_ref()
        .map(|p| p.ltl.iter().map(|l| l.name.clone()).collect())
        .unwrap_or_default();
    for (name, theirs) in &pan {
        if ltl.contains(name) {
            continue; // ltl formulas become claims in pan; not lowered yet
        }
        match ours.get(name) {
            None => problems.push(format!("{model}: proctype {name} missing")),
            Some(mine) => {
                if mine.locations != theirs.locations || mine.edges != theirs.edges {
                    problems.push(format!(
                        "{model}: {name}: ours {} locations {} edges, pan {} locations {} edges",
                        mine.locations, mine.edges, theirs.locations, theirs.edges
                    ));
                } else if mine.lines != theirs.lines {
                    problems.push(format!(
                        "{model}: {name}: edge lines differ: ours {:?} pan {:?}",
                        mine.lines, theirs.lines
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn conformance_models_lower_like_pan() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (model, unsupported) in good_models() {
        if unsupported {
            continue;
        }
        let dump_path = models_dir()
            .join("spin")
            .join(format!("{}.pan-d.txt", dump_name(&model)));
        let dump = std::fs::read_to_string(&dump_path)
            .unwrap_or_else(|_| panic!("missing {}", dump_path.display()));
        problems.extend(compare_with_dump(&model, &dump));
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} models checked");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn conformance_models_lower_like_live_pan() {
    if !spin_installed() {
        eprintln!("spin not installed: live comparison skipped");
        return;
    }
    let mut problems = Vec::new();
    for (model, unsupported) in good_models() {
        if unsupported {
            continue;
        }
        let (accepted, dump) = spin_pan_d(&models_dir().join(&model));
        assert!(accepted, "spin rejects {model}");
        if let Some(d) = dump {
            problems.extend(compare_with_dump(&model, &d));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn unsupported_constructs_are_named() {
    let mut seen = 0;
    for (model, unsupported) in good_models() {
        if !unsupported {
            continue;
        }
        seen += 1;
        let loaded = load(&models_dir().join(&model));
        assert!(loaded.program.is_none(), "{model} accepted");
        assert!(
            loaded
                .diags
                .iter()
                .any(|d| d.message.contains("not supported")),
            "{model}: no 'not supported' diagnostic: {:?}",
            loaded
                .diags
                .iter()
                .map(|d| d.short(&loaded.files))
                .collect::<Vec<_>>()
        );
    }
    assert!(seen >= 3);
}

#[test]
fn malformed_models_are_rejected_at_the_right_place() {
    let bad = manifest("bad/manifest.json");
    assert!(bad.len() >= 30);
    let mut problems = Vec::new();
    for m in &bad {
        let model = m["model"].as_str().unwrap_or_default();
        let main = if model.ends_with(".pml") {
            models_dir().join("bad").join(model)
        } else {
            models_dir().join("bad").join(model).join("main.pml")
        };
        let file = m["file"].as_str().unwrap_or_default();
        let line = m["line"].as_u64().unwrap_or(0);
        let col = m["col"].as_u64().unwrap_or(0);
        let fragment = m["fragment"].as_str().unwrap_or_default().to_lowercase();
        let loaded = load(&main);
        if loaded.program.is_some() {
            problems.push(format!("{model}: accepted"));
            continue;
        }
        let errors: Vec<String> = loaded
            .diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.short(&loaded.files))
            .collect();
        let want_loc = format!("{file}:{line}:{col}");
        let hit = errors.iter().any(|e| {
            let (loc, msg) = e.split_once(": error: ").unwrap_or((e, ""));
            loc.ends_with(&want_loc) && msg.to_lowercase().contains(&fragment)
        });
        if !hit {
            problems.push(format!(
                "{model}: want {want_loc} '{fragment}', got {errors:?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {}:\n{}",
        problems.len(),
        bad.len(),
        problems.join("\n")
    );
}

#[test]
fn spin_accepts_exactly_what_we_accept() {
    if !spin_installed() {
        eprintln!("spin not installed: skipped");
        return;
    }
    let mut problems = Vec::new();
    let mut paths = Vec::new();
    for (model, unsupported) in good_models() {
        if !unsupported {
            paths.push(models_dir().join(model));
        }
    }
    for m in manifest("bad/manifest.json") {
        let model = m["model"].as_str().unwrap_or_default();
        paths.push(if model.ends_with(".pml") {
            models_dir().join("bad").join(model)
        } else {
            models_dir().join("bad").join(model).join("main.pml")
        });
    }
    for p in paths {
        let ours = load(&p).program.is_some();
        let theirs = spin_accepts(&p);
        if ours != theirs {
            problems.push(format!("{}: spin {theirs}, git rmc {ours}", p.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn errors_inside_macros_name_the_macro_and_its_definition() {
    let loaded = load(&models_dir().join("bad/macro_bad_body.pml"));
    let d = loaded
        .diags
        .iter()
        .find(|d| d.is_error())
        .expect("an error");
    assert_eq!(
        loaded.files.location(d.span),
        format!(
            "{}:6:2",
            models_dir().join("bad/macro_bad_body.pml").display()
        )
    );
    let label = d
        .labels
        .iter()
        .find(|l| l.message.contains("in expansion of macro `CLEAR`"))
        .expect("macro label");
    assert!(loaded
        .files
        .location(label.span)
        .ends_with("macro_bad_body.pml:2:9"));
}

/// An `ltl` formula with a temporal operator where a value is expected (`[] b == 0`, which
/// binds as `([] b) == 0`): spin 6.5.2 folds the operator, operand and all, into the number
/// of its token and checks the formula it prints (`ltl q: (333==0)`, `[]<> b == 1` as
/// `(333==1)`, `<> b` as 334). git rmc checks what spin checks (the claims' figures are
/// pan's: `tests/models/claims`), and warns at the formula with the parentheses it needs.
#[test]
fn a_temporal_operator_where_a_value_is_expected_is_read_as_spin_reads_it_and_warned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("m.pml");
    let model = "bool b;\nactive proctype p() { do :: b = !b od }\nltl r { [] (b == 0) }\n";
    let with_claims = |p: &std::path::Path| {
        git_rmc::load_with_claims(
            p,
            &git_rmc::promela::source::DiskProvider,
            &Default::default(),
        )
    };
    for (formula, spin_text, number) in [
        ("[] b == 0", "(333==0)", "333"),
        (
            "[]<> b -> <> b == 1",
            "(! ([] (<> (b)))) || ((334==1))",
            "334",
        ),
    ] {
        std::fs::write(&p, format!("{model}ltl q {{ {formula} }}\n")).expect("write");
        let loaded = with_claims(&p);
        let program = loaded.program.as_ref().expect("loads");
        let q = program.ltl.iter().find(|l| l.name == "q").expect("ltl q");
        assert_eq!(q.text, spin_text, "{formula}");
        let warnings: Vec<String> = loaded
            .diags
            .iter()
            .filter(|d| !d.is_error())
            .map(|d| d.short(&loaded.files))
            .collect();
        assert_eq!(warnings.len(), 1, "{formula}: {warnings:?}");
        assert!(
            warnings[0].contains("m.pml:4:1")
                && warnings[0].contains("ltl q: ")
                && warnings[0].contains(&format!("as the number {number}"))
                && warnings[0].contains(&format!("`{spin_text}`")),
            "{formula}: {warnings:?}"
        );
    }
    std::fs::write(&p, model).expect("write");
    let loaded = with_claims(&p);
    assert!(loaded.program.is_some());
    assert!(loaded.diags.is_empty(), "{:?}", loaded.diags.len());
}
