//! The product with a never claim against spin: every model of `tests/models/claims/
//! manifest.json` (the research models of the claims note, models written for the product,
//! and the conformance models that have claims) is checked with its first claim, as
//! `git rmc verify` checks it, and its figures (states stored and matched, transitions,
//! atomic steps, depth reached, pan's state vector) and kinds of violation must be pan's
//! (`gcc -DNOREDUCE`, `./pan -c0`), and with acceptance cycles pan -a's (states visited
//! too, with -c0 and stopping at the first error, where the cycle starts at pan's depth);
//! the same against spin live when it is installed; every trail replays to its violation
//! (an acceptance cycle's comes back to the state where its cycle starts).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use git_rmc::explore::{explore, Machine, Options, Outcome};
use git_rmc::program::ProcKind;
use git_rmc::{DiskProvider, PpOptions};

fn claims_dir() -> PathBuf {
    common::models_dir().join("claims")
}

/// Loads a model with its ltl formulas' claims and checks it with its first claim, as
/// `verify` does; hands the machine and the outcome to `f`.
fn with_product<T>(path: &Path, f: impl FnOnce(&Machine, &Outcome) -> T) -> T {
    with_product_opts(path, &Options::default(), f)
}

/// `with_product` with the search's options.
fn with_product_opts<T>(path: &Path, opts: &Options, f: impl FnOnce(&Machine, &Outcome) -> T) -> T {
    let loaded = git_rmc::load_with_claims(path, &DiskProvider, &PpOptions::default());
    let program = loaded
        .program
        .as_ref()
        .unwrap_or_else(|| panic!("{} does not load", path.display()));
    let claim = program
        .procs
        .iter()
        .position(|p| p.kind == ProcKind::Never)
        .expect("a claim");
    let m = Machine::with_claim(program, claim).expect("layout");
    let out = explore(&m, opts, &mut |_| {});
    f(&m, &out)
}

fn figures(out: &Outcome) -> [u64; 6] {
    let s = &out.stats;
    [
        s.states_stored,
        s.states_matched,
        s.transitions,
        s.atomic_steps,
        s.depth_reached,
        s.state_vector_bytes,
    ]
}

fn entries() -> Vec<serde_json::Value> {
    common::manifest("claims/manifest.json")
}

#[test]
fn figures_and_violations_match_the_manifest() {
    let mut failures = Vec::new();
    let entries = entries();
    assert!(entries.len() >= 20, "the manifest lists the claim models");
    // pan's state vector (its claim process first, the acceptance bytes in the header) is
    // estimated as for a safety check, where a few models differ by a word.
    let mut vectors_off = Vec::new();
    for e in &entries {
        let rel = e["model"].as_str().expect("model name");
        let want = [
            "states_stored",
            "states_matched",
            "transitions",
            "atomic_steps",
            "depth_reached",
            "state_vector",
        ]
        .map(|k| e[k].as_u64().unwrap_or(u64::MAX));
        with_product(&claims_dir().join(rel), |m, out| {
            assert!(out.limit.is_none(), "{rel}: no limit cut the search");
            if figures(out)[..5] != want[..5] {
                failures.push(format!("{rel}: ours {:?}, pan {want:?}", figures(out)));
            } else if figures(out)[5] != want[5] {
                vectors_off.push(format!("{rel}: ours {:?}, pan {want:?}", figures(out)));
            }
            let claim = m.claim.as_ref().map(|c| m.prog.procs[c.proc].name.as_str());
            if claim != e["claim"].as_str() {
                failures.push(format!("{rel}: claim {claim:?}, pan {}", e["claim"]));
            }
            let ours: BTreeSet<&str> = out.violations.iter().map(|v| v.kind.as_str()).collect();
            let pan: BTreeSet<&str> = e["violations"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v["kind"].as_str())
                .collect();
            if ours != pan {
                failures.push(format!("{rel}: kinds ours {ours:?}, pan {pan:?}"));
            }
            for v in &out.violations {
                if !m.reproduces(&out.initial, v, &Options::default()) {
                    failures.push(format!(
                        "{rel}: the trail of {:?} does not reach it",
                        v.kind
                    ));
                }
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(vectors_off.len() <= 1, "{}", vectors_off.join("\n"));
}

#[test]
fn figures_match_pan_live() {
    if !common::spin_installed() {
        eprintln!("spin is not installed: live comparison skipped");
        return;
    }
    let mut failures = Vec::new();
    for e in entries() {
        let rel = e["model"].as_str().expect("model name");
        let path = claims_dir().join(rel);
        let Some((pan, _)) = common::pan_figures(&path, &["-DNOREDUCE"], &["-c0", "-m1000000"])
        else {
            failures.push(format!("{rel}: pan gave no figures"));
            continue;
        };
        with_product(&path, |_, out| {
            let ours = figures(out);
            if ours[..5] != pan[..5] {
                failures.push(format!("{rel}: ours {ours:?}, pan {pan:?}"));
            }
            if (pan[5] == 0) != out.violations.is_empty() {
                failures.push(format!(
                    "{rel}: pan {} errors, ours {} violations",
                    pan[5],
                    out.violations.len()
                ));
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_safety_formula_fails_as_the_claims_assertion_with_a_trail_through_both() {
    with_product(&claims_dir().join("research_m1.pml"), |m, out| {
        let v = &out.violations[0];
        assert_eq!(v.kind.as_str(), "assertion");
        assert_eq!(v.message, "assertion violated (!(!(x < 3)))");
        let trail = v.trail.as_ref().expect("a trail");
        // The claim moves first, then the system and the claim take turns; the claim's
        // atomic `(c) -> assert(...)` is its last two steps.
        let claim = git_rmc::explore::claim::CLAIM_PID;
        let pids: Vec<u8> = trail.iter().map(|s| s.pid).collect();
        assert_eq!(pids.len(), 14);
        assert!(pids[..12].chunks(2).all(|p| p == [claim, 0]), "{pids:?}");
        assert_eq!(&pids[12..], [claim, claim]);
        assert_eq!(m.prog.procs[m.edge_proc(v.edge.expect("edge"))].name, "p1");
    });
}

#[test]
fn a_claim_at_its_closing_brace_is_a_violation() {
    with_product(&claims_dir().join("research_m5.pml"), |m, out| {
        assert_eq!(out.violations.len(), 1);
        let v = &out.violations[0];
        assert_eq!(v.kind.as_str(), "claim-end");
        assert_eq!(v.message, "end state in claim reached");
        assert_eq!(v.trail.as_ref().map(Vec::len), Some(9));
        assert!(m.reproduces(&out.initial, v, &Options::default()));
    });
}

#[test]
fn stopping_at_the_first_error_gives_pans_default_figures() {
    // pan without -c0 stops at its first error: m1 7/0/7 (depth 13, 1 atomic step), m5
    // 5/0/5 (depth 9).
    for (rel, want) in [
        ("research_m1.pml", [7, 0, 7, 1, 13]),
        ("research_m5.pml", [5, 0, 5, 0, 9]),
    ] {
        let loaded = git_rmc::load_with_claims(
            &claims_dir().join(rel),
            &DiskProvider,
            &PpOptions::default(),
        );
        let program = loaded.program.expect("loads");
        let claim = program
            .procs
            .iter()
            .position(|p| p.kind == ProcKind::Never)
            .expect("a claim");
        let m = Machine::with_claim(&program, claim).expect("layout");
        let opts = Options {
            max_errors: Some(1),
            ..Options::default()
        };
        let out = explore(&m, &opts, &mut |_| {});
        assert_eq!(figures(&out)[..5], want, "{rel}");
    }
}

#[test]
fn without_a_claim_the_machine_ignores_the_claims() {
    // The plain machine is the safety check of before (pan -DNOCLAIM): m1 without its claim.
    let loaded = git_rmc::load_with_claims(
        &claims_dir().join("research_m1.pml"),
        &DiskProvider,
        &PpOptions::default(),
    );
    let program = loaded.program.expect("loads");
    let m = Machine::new(&program).expect("layout");
    let out = explore(&m, &Options::default(), &mut |_| {});
    assert_eq!(figures(&out)[..5], [8, 1, 9, 0, 7]);
    assert!(out.violations.is_empty());
}

fn acceptance() -> Options {
    Options {
        acceptance: true,
        ..Options::default()
    }
}

/// pan -a's figures: stored, visited, matched, transitions, atomic steps, depth reached.
fn figures_a(out: &Outcome) -> [u64; 6] {
    let s = &out.stats;
    [
        s.states_stored,
        s.states_stored + s.states_revisited,
        s.states_matched,
        s.transitions,
        s.atomic_steps,
        s.depth_reached,
    ]
}

fn kinds(out: &Outcome) -> BTreeSet<&'static str> {
    out.violations.iter().map(|v| v.kind.as_str()).collect()
}

#[test]
fn acceptance_figures_and_violations_match_the_manifest() {
    let mut failures = Vec::new();
    let entries = entries();
    assert!(entries.len() >= 22, "the manifest lists the claim models");
    for e in &entries {
        let rel = e["model"].as_str().expect("model name");
        let a = &e["acceptance"];
        let want = [
            "states_stored",
            "states_visited",
            "states_matched",
            "transitions",
            "atomic_steps",
            "depth_reached",
        ]
        .map(|k| a[k].as_u64().unwrap_or(u64::MAX));
        with_product_opts(&claims_dir().join(rel), &acceptance(), |m, out| {
            assert!(out.limit.is_none(), "{rel}: no limit cut the search");
            if figures_a(out) != want {
                failures.push(format!("{rel}: ours {:?}, pan -a {want:?}", figures_a(out)));
            }
            let pan: BTreeSet<&str> = a["violations"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v["kind"].as_str())
                .collect();
            if kinds(out) != pan {
                failures.push(format!("{rel}: kinds ours {:?}, pan {pan:?}", kinds(out)));
            }
            for v in &out.violations {
                if !m.reproduces(&out.initial, v, &acceptance()) {
                    failures.push(format!(
                        "{rel}: the trail of {:?} does not reach it",
                        v.kind
                    ));
                }
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn acceptance_stopping_at_the_first_error_gives_pans_default_figures_and_cycle_start() {
    // pan -a without -c0 stops at its first error; the depth it names for an acceptance
    // cycle is where the cycle starts, which our trail marks.
    let mut failures = Vec::new();
    let opts = Options {
        max_errors: Some(1),
        ..acceptance()
    };
    for e in entries() {
        let rel = e["model"].as_str().expect("model name");
        let first = &e["acceptance"]["first_error"];
        let want = [
            "states_stored",
            "states_visited",
            "states_matched",
            "transitions",
            "depth_reached",
        ]
        .map(|k| first[k].as_u64().unwrap_or(u64::MAX));
        with_product_opts(&claims_dir().join(rel), &opts, |_, out| {
            let f = figures_a(out);
            let ours = [f[0], f[1], f[2], f[3], f[5]];
            if ours != want {
                failures.push(format!("{rel}: ours {ours:?}, pan -a {want:?}"));
            }
            // pan's depth counts a rendezvous as two steps.
            let cycle = out.violations.iter().find_map(|v| {
                let k = v.cycle?;
                let steps = v.trail.as_ref()?;
                Some(
                    steps[..k]
                        .iter()
                        .map(|s| 1 + u64::from(s.rv.is_some()))
                        .sum::<u64>(),
                )
            });
            if cycle != first["cycle_depth"].as_u64() {
                failures.push(format!(
                    "{rel}: cycle starts after step {cycle:?}, pan at depth {}",
                    first["cycle_depth"]
                ));
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn acceptance_figures_match_pan_live() {
    if !common::spin_installed() {
        eprintln!("spin is not installed: live comparison skipped");
        return;
    }
    let mut failures = Vec::new();
    for e in entries() {
        let rel = e["model"].as_str().expect("model name");
        let path = claims_dir().join(rel);
        let Some((pan, text)) =
            common::pan_figures(&path, &["-DNOREDUCE"], &["-a", "-c0", "-m1000000"])
        else {
            failures.push(format!("{rel}: pan gave no figures"));
            continue;
        };
        // "N states, stored (M visited)"
        let visited = text
            .lines()
            .find(|l| l.contains("states, stored"))
            .and_then(|l| l.split('(').nth(1))
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(pan[0]);
        let want = [pan[0], visited, pan[1], pan[2], pan[3], pan[4]];
        with_product_opts(&path, &acceptance(), |_, out| {
            if figures_a(out) != want {
                failures.push(format!("{rel}: ours {:?}, pan -a {want:?}", figures_a(out)));
            }
            if (pan[5] == 0) != out.violations.is_empty() {
                failures.push(format!(
                    "{rel}: pan {} errors, ours {} violations",
                    pan[5],
                    out.violations.len()
                ));
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_acceptance_cycle_trail_marks_where_the_cycle_starts() {
    // m4: x = 1; x = 2, then the process ends and the claim stutters in accept_S4.
    with_product_opts(
        &claims_dir().join("research_m4.pml"),
        &acceptance(),
        |m, out| {
            let v = out
                .violations
                .iter()
                .find(|v| v.kind.as_str() == "acceptance-cycle")
                .expect("a cycle");
            assert_eq!(v.cycle, Some(6));
            let trail = v.trail.as_ref().expect("a trail");
            assert_eq!(trail.len(), 8);
            // After the system ended, the claim stutters around its accepting state.
            let claim = git_rmc::explore::claim::CLAIM_PID;
            assert!(trail[6..].iter().all(|s| s.pid == claim));
            assert!(m.reproduces(&out.initial, v, &acceptance()));
            // A trail that does not come back to its start is not a cycle.
            let mut broken = v.clone();
            broken.cycle = Some(5);
            assert!(!m.reproduces(&out.initial, &broken, &acceptance()));
        },
    );
}
