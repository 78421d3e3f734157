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
    with_product_loaded(path, git_rmc::load_with_claims, opts, f)
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
fn successors_built_ahead_change_nothing_in_products() {
    // As for safety (tests/verify.rs): forced on from the first state, the product's
    // system turns build ahead, and every figure, violation and trail stays as it was, in
    // the plain product, with -a (the nested search) and with -a -f (which does not build
    // ahead).
    let mut failures = Vec::new();
    for e in entries() {
        let rel = e["model"].as_str().expect("model name");
        for base in [
            Options::default(),
            acceptance(),
            Options {
                fair: true,
                ..acceptance()
            },
        ] {
            let ahead = Options {
                look_ahead_from: 0,
                ..base.clone()
            };
            let shown = |o: &Outcome| format!("{:?} {:?}", figures(o), o.violations);
            let plain = with_product_opts(&claims_dir().join(rel), &base, |_, o| shown(o));
            let built = with_product_opts(&claims_dir().join(rel), &ahead, |_, o| shown(o));
            if plain != built {
                failures.push(format!("{rel} ({base:?}): {plain} / {built}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Against spin live, when it is installed: `check` for each model of `entries` (in folder
/// `dir`), which notes what differs in `failures`.
fn each_live(
    entries: Vec<serde_json::Value>,
    dir: &Path,
    mut check: impl FnMut(&str, &Path, &mut Vec<String>),
) {
    if !common::spin_installed() {
        eprintln!("spin is not installed: live comparison skipped");
        return;
    }
    let mut failures = Vec::new();
    for e in entries {
        let rel = e["model"].as_str().expect("model name");
        check(rel, &dir.join(rel), &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn figures_match_pan_live() {
    each_live(entries(), &claims_dir(), |rel, path, failures| {
        let Some((pan, _)) = common::pan_figures(path, &["-DNOREDUCE"], &["-c0", "-m1000000"])
        else {
            failures.push(format!("{rel}: pan gave no figures"));
            return;
        };
        with_product(path, |_, out| {
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
    });
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

/// Our kinds of violation against pan's, and every trail replayed to its violation.
fn kinds_and_trails(
    rel: &str,
    m: &Machine,
    out: &Outcome,
    pan: &BTreeSet<&str>,
    failures: &mut Vec<String>,
) {
    if &kinds(out) != pan {
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
            kinds_and_trails(rel, m, out, &pan, &mut failures);
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

/// pan -a -c0's figures for a model, live (`figures_a`'s order), and its error count.
/// pan's visited count from its figures (stored, matched, transitions, ...): its transitions
/// are visited plus matched, exactly, where the "(M visited)" it prints is rounded once large
/// ("4.0596e+06 visited").
fn pan_visited(pan: &[u64]) -> u64 {
    pan[2] - pan[1]
}

fn pan_a_live(path: &Path) -> Option<([u64; 6], u64)> {
    let (pan, _) = common::pan_figures(path, &["-DNOREDUCE"], &["-a", "-c0", "-m1000000"])?;
    Some((
        [pan[0], pan_visited(&pan), pan[1], pan[2], pan[3], pan[4]],
        pan[5],
    ))
}

/// Our figures and whether we found violations against pan -a's.
fn against_pan_a(
    rel: &str,
    out: &Outcome,
    want: [u64; 6],
    errors: u64,
    failures: &mut Vec<String>,
) {
    if figures_a(out) != want {
        failures.push(format!("{rel}: ours {:?}, pan -a {want:?}", figures_a(out)));
    }
    if (errors == 0) != out.violations.is_empty() {
        failures.push(format!("{rel}: pan {errors} errors, ours {:?}", kinds(out)));
    }
}

#[test]
fn acceptance_figures_match_pan_live() {
    each_live(entries(), &claims_dir(), |rel, path, failures| {
        let Some((want, errors)) = pan_a_live(path) else {
            return failures.push(format!("{rel}: pan gave no figures"));
        };
        with_product_opts(path, &acceptance(), |_, out| {
            against_pan_a(rel, out, want, errors, failures);
        });
    });
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

/// Weak fairness (pan -a -f): the acceptance search with pan's counter rules.
fn fair() -> Options {
    Options {
        fair: true,
        ..acceptance()
    }
}

/// The fairness figures of a manifest section: stored, visited, matched, transitions,
/// atomic steps, depth reached.
fn want_a(section: &serde_json::Value) -> [u64; 6] {
    [
        "states_stored",
        "states_visited",
        "states_matched",
        "transitions",
        "atomic_steps",
        "depth_reached",
    ]
    .map(|k| section[k].as_u64().unwrap_or(u64::MAX))
}

fn kinds_of(section: &serde_json::Value) -> BTreeSet<&str> {
    section["violations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["kind"].as_str())
        .collect()
}

/// Checks every manifest entry's `section` (pan's -c0 figures, its first error's figures and
/// cycle depth) with `opts`, loading models with `load`.
fn check_sections(
    entries: &[serde_json::Value],
    section: &str,
    opts: &Options,
    load: Loader,
) -> Vec<String> {
    let mut failures = Vec::new();
    let first = Options {
        max_errors: Some(1),
        ..opts.clone()
    };
    for e in entries {
        let rel = e["model"].as_str().expect("model name");
        let s = &e[section];
        assert!(s.is_object(), "{rel}: no {section} figures in the manifest");
        with_product_loaded(&claims_dir().join(rel), load, opts, |m, out| {
            assert!(out.limit.is_none(), "{rel}: no limit cut the search");
            if figures_a(out) != want_a(s) {
                failures.push(format!(
                    "{rel}: ours {:?}, pan {} {:?}",
                    figures_a(out),
                    s["command"],
                    want_a(s)
                ));
            }
            if (s["errors"].as_u64() == Some(0)) != out.violations.is_empty() {
                failures.push(format!(
                    "{rel}: pan {} errors, ours {:?}",
                    s["errors"],
                    kinds(out)
                ));
            }
            if kinds(out) != kinds_of(s) {
                failures.push(format!(
                    "{rel}: kinds ours {:?}, pan {:?}",
                    kinds(out),
                    kinds_of(s)
                ));
            }
            for v in &out.violations {
                if !m.reproduces(&out.initial, v, opts) {
                    failures.push(format!(
                        "{rel}: the trail of {:?} does not reach it",
                        v.kind
                    ));
                }
            }
        });
        let f = &s["first_error"];
        with_product_loaded(&claims_dir().join(rel), load, &first, |_, out| {
            let a = figures_a(out);
            let ours = [a[0], a[1], a[2], a[3], a[5]];
            let want = [
                "states_stored",
                "states_visited",
                "states_matched",
                "transitions",
                "depth_reached",
            ]
            .map(|k| f[k].as_u64().unwrap_or(u64::MAX));
            if ours != want {
                failures.push(format!("{rel}: first error ours {ours:?}, pan {want:?}"));
            }
            let depth = out.violations.iter().find_map(|v| v.cycle_depth);
            if depth != f["cycle_depth"].as_u64() {
                failures.push(format!(
                    "{rel}: the cycle starts at depth {depth:?}, pan {}",
                    f["cycle_depth"]
                ));
            }
        });
    }
    failures
}

type Loader = fn(&Path, &dyn git_rmc::FileProvider, &PpOptions) -> git_rmc::Loaded;

/// `with_product_opts` with the model loaded by `load` (with its claims, or with the
/// non-progress claim).
fn with_product_loaded<T>(
    path: &Path,
    load: Loader,
    opts: &Options,
    f: impl FnOnce(&Machine, &Outcome) -> T,
) -> T {
    let loaded = load(path, &DiskProvider, &PpOptions::default());
    let program = loaded
        .program
        .as_ref()
        .unwrap_or_else(|| panic!("{} does not load", path.display()));
    // (A model without a claim is searched as pan -a built without one.)
    let m = match program.procs.iter().position(|p| p.kind == ProcKind::Never) {
        Some(claim) => Machine::with_claim(program, claim),
        None => Machine::new(program),
    }
    .expect("layout");
    let out = explore(&m, opts, &mut |_| {});
    f(&m, &out)
}

#[test]
fn fair_figures_and_violations_match_the_manifest() {
    // ./pan -a -f -c0 and ./pan -a -f (its first error, where the cycle starts) for every
    // claim model: states stored and visited, matched, transitions, atomic steps, depth.
    let entries = entries();
    assert!(
        entries.len() >= 35,
        "the manifest lists the fairness models"
    );
    let failures = check_sections(&entries, "fair", &fair(), git_rmc::load_with_claims);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fair_non_progress_figures_match_the_manifest() {
    // ./pan -l -c0 and ./pan -l -f -c0 (built with -DNP), and their first errors.
    let entries = common::manifest("claims/non_progress.json");
    assert_eq!(entries.len(), 8);
    let np = acceptance();
    let load: Loader = git_rmc::load_for_non_progress;
    let mut failures = check_sections(&entries, "non_progress", &np, load);
    failures.extend(check_sections(&entries, "fair", &fair(), load));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fairness_rejects_only_unfair_cycles() {
    // Cycles that starve a process that is enabled all along: found with -a, not with
    // -a -f (research m7 5/8/13, fair_three 6/16/22, fair_blocked_forever 5(6)/7/13 with a
    // process that never moves, fair_rendezvous 9(20)/22/42); a fair cycle is found with
    // both (research m6-f2: -a -f 5(9)/16/25, depth 7).
    for rel in [
        "research_m7.pml",
        "fair_three.pml",
        "fair_blocked_forever.pml",
        "fair_rendezvous.pml",
    ] {
        let path = claims_dir().join(rel);
        with_product_opts(&path, &acceptance(), |_, out| {
            assert!(
                kinds(out).contains("acceptance-cycle"),
                "{rel}: -a finds a cycle"
            );
        });
        with_product_opts(&path, &fair(), |_, out| {
            assert!(out.violations.is_empty(), "{rel}: -a -f finds none");
        });
    }
    with_product_opts(&claims_dir().join("research_m7.pml"), &fair(), |_, out| {
        assert_eq!(figures_a(out), [5, 5, 8, 13, 0, 5]);
    });
    with_product_opts(
        &claims_dir().join("research_m6-f2.pml"),
        &fair(),
        |m, out| {
            assert_eq!(figures_a(out), [5, 9, 16, 25, 0, 7]);
            let v = &out.violations[0];
            assert_eq!(v.kind.as_str(), "acceptance-cycle");
            assert!(m.reproduces(&out.initial, v, &fair()));
        },
    );
}

#[test]
fn fairness_takes_at_most_six_processes_with_the_claim() {
    // pan -f: "too many processes -- current max is 6 procs (-DNFAIR=2)", the claim counted,
    // at the start (six processes) or when a `run` makes the seventh; five are checked.
    for (rel, depth) in [("fair_six.pml", 0), ("fair_run_limit.pml", 2)] {
        with_product_opts(&claims_dir().join(rel), &fair(), |_, out| {
            assert_eq!(out.violations.len(), 1, "{rel}");
            let v = &out.violations[0];
            assert_eq!(v.kind.as_str(), "too-many-processes", "{rel}");
            assert!(v.message.contains("at most 6"), "{rel}: {}", v.message);
            assert_eq!(
                out.stopped_by.map(|k| k.as_str()),
                Some("too-many-processes")
            );
            assert!(out.stats.depth_reached >= depth, "{rel}");
        });
        // Without -f the search goes on.
        with_product_opts(&claims_dir().join(rel), &acceptance(), |_, out| {
            assert!(out.stopped_by.is_none(), "{rel}");
        });
    }
    with_product_opts(&claims_dir().join("fair_five.pml"), &fair(), |_, out| {
        assert!(out.stopped_by.is_none());
        assert_eq!(figures_a(out), [10, 10, 56, 66, 0, 9]);
    });
}

#[test]
fn fair_figures_match_pan_live() {
    if !common::spin_installed() {
        eprintln!("spin is not installed: live comparison skipped");
        return;
    }
    let mut failures = Vec::new();
    let runs: Vec<(String, Loader, &[&str], Vec<&str>)> = entries()
        .iter()
        .map(|e| {
            let rel = e["model"].as_str().expect("model name").to_string();
            let load: Loader = git_rmc::load_with_claims;
            (rel, load, &["-DNOREDUCE"][..], vec!["-a", "-f"])
        })
        .chain(
            common::manifest("claims/non_progress.json")
                .iter()
                .map(|e| {
                    let rel = e["model"].as_str().expect("model name").to_string();
                    let load: Loader = git_rmc::load_for_non_progress;
                    (rel, load, &["-DNOREDUCE", "-DNP"][..], vec!["-l", "-f"])
                })
                .collect::<Vec<_>>(),
        )
        .collect();
    for (rel, load, gcc, mode) in runs {
        let path = claims_dir().join(&rel);
        for first in [false, true] {
            let mut args = mode.clone();
            args.extend(if first {
                vec!["-m1000000"]
            } else {
                vec!["-c0", "-m1000000"]
            });
            let Some((pan, text)) = common::pan_figures(&path, gcc, &args) else {
                failures.push(format!("{rel}: pan gave no figures"));
                continue;
            };
            let want = [pan[0], pan_visited(&pan), pan[1], pan[2], pan[3], pan[4]];
            let opts = Options {
                max_errors: first.then_some(1),
                ..fair()
            };
            with_product_loaded(&path, load, &opts, |_, out| {
                if figures_a(out) != want {
                    failures.push(format!(
                        "{rel} {args:?}: ours {:?}, pan {want:?}",
                        figures_a(out)
                    ));
                }
                if (pan[5] == 0) != out.violations.is_empty() {
                    failures.push(format!(
                        "{rel} {args:?}: pan {} errors, ours {} violations",
                        pan[5],
                        out.violations.len()
                    ));
                }
                let depth = text
                    .lines()
                    .find_map(|l| l.split("cycle (at depth ").nth(1))
                    .and_then(|r| r.trim_end_matches(')').parse::<u64>().ok());
                let ours = out.violations.iter().find_map(|v| v.cycle_depth);
                if first && depth.is_some() && depth != ours {
                    failures.push(format!("{rel}: cycle at depth {ours:?}, pan {depth:?}"));
                }
            });
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A claim's atomic run that repeats a state (a formula without temporal operators under
/// spin -o3) is a non-terminating atomic sequence, as a process's is: the search stops there
/// instead of descending without end (pan runs to its depth limit).
#[test]
fn a_claims_atomic_loop_is_a_non_terminating_atomic_sequence() {
    let path = claims_dir().join("claim_atomic_loop.pml");
    with_product_opts(&path, &acceptance(), |_, out| {
        let kinds: Vec<&str> = out.violations.iter().map(|v| v.kind.as_str()).collect();
        assert_eq!(kinds, ["assertion", "non-terminating-atomic"]);
        assert_eq!(out.stats.states_stored, 1);
        assert_eq!(out.stats.depth_reached, 4);
        assert!(out.complete());
    });
}

/// pan's state vector with a claim and no global variables: 20 bytes (the claim right after
/// the 8-byte header), as `./pan -a` prints it.
#[test]
fn a_claim_without_globals_has_pans_vector_size() {
    let path = claims_dir().join("claim_no_globals.pml");
    with_product_opts(&path, &acceptance(), |_, out| {
        assert_eq!(out.stats.state_vector_bytes, 20);
        assert_eq!(out.stats.depth_reached, 5);
        let kinds: Vec<&str> = out.violations.iter().map(|v| v.kind.as_str()).collect();
        assert_eq!(kinds, ["acceptance-cycle"]);
    });
}

/// A state a stutter reached that asks for `timeout` keeps pan's stack bit (pan leaves it by
/// `goto Up`, not `Done`): the figures are pan's (`./pan -a -c0`), and the cycle pan then
/// reports through that bit, which no run of the product has, is not reported.
#[test]
fn a_timeout_request_keeps_pans_stack_bit_without_a_false_cycle() {
    let path = claims_dir().join("timeout_request_stack_bit.pml");
    with_product_opts(&path, &acceptance(), |_, out| {
        assert_eq!(figures_a(out), [3, 4, 0, 4, 0, 2]);
        assert!(out.violations.is_empty(), "{:?}", kinds(out));
        assert!(out.complete());
    });
}

/// A state the nested search stored first (a stutter seed's) is a new visit when the first
/// search reaches it, as in pan: explored, visited grows and stored does not.
#[test]
fn a_state_the_nested_search_stored_first_is_explored_by_the_first() {
    let path = claims_dir().join("stutter_seed_stored_first.pml");
    with_product_opts(&path, &acceptance(), |_, out| {
        assert_eq!(figures_a(out), [2, 3, 2, 5, 0, 2]);
        assert_eq!(kinds(out), BTreeSet::from(["acceptance-cycle"]));
    });
}

/// Where pan's `nShadow` ends below zero (the nested search met the first one's stack more
/// often than it visited states again), pan prints its `nstates` as stored, without visited.
#[test]
fn a_shadow_count_below_zero_prints_pans_stored_states() {
    let path = claims_dir().join("shadow_below_zero.pml");
    with_product_opts(&path, &acceptance(), |_, out| {
        assert_eq!(figures_a(out), [4, 4, 6, 10, 0, 5]);
        assert_eq!(kinds(out), BTreeSet::from(["acceptance-cycle"]));
    });
}

fn no_claim_entries() -> Vec<serde_json::Value> {
    common::manifest("claims/no_claim/manifest.json")
}

/// Loads a model without claims and checks it as `verify -a` does: pan -a built without a
/// never claim (acceptance cycles through the processes' accept labels).
fn with_no_claim<T>(rel: &str, opts: &Options, f: impl FnOnce(&Machine, &Outcome) -> T) -> T {
    let path = claims_dir().join("no_claim").join(rel);
    let loaded = git_rmc::load_with_claims(&path, &DiskProvider, &PpOptions::default());
    let program = loaded.program.as_ref().expect("the model loads");
    assert!(
        program.procs.iter().all(|p| p.kind != ProcKind::Never),
        "{rel}: no claim"
    );
    let m = Machine::new(program).expect("layout");
    let out = explore(&m, opts, &mut |_| {});
    f(&m, &out)
}

/// pan -a without a never claim: every state outside atomic sequences stored, accepting
/// where a process is at an accept label, accept stutter where nothing moves from such a
/// state, invalid end states not checked; pan's figures, vector size (its acceptance
/// counters kept) and, stopping at the first error, the depth where the cycle starts.
#[test]
fn acceptance_without_a_claim_has_pans_figures() {
    let mut failures = Vec::new();
    let entries = no_claim_entries();
    assert!(entries.len() >= 7, "the no-claim manifest lists its models");
    for e in &entries {
        let rel = e["model"].as_str().expect("model name");
        let want = [
            "states_stored",
            "states_visited",
            "states_matched",
            "transitions",
            "atomic_steps",
            "depth_reached",
        ]
        .map(|k| e[k].as_u64().unwrap_or(u64::MAX));
        with_no_claim(rel, &acceptance(), |m, out| {
            assert!(out.complete(), "{rel}: complete");
            if figures_a(out) != want {
                failures.push(format!("{rel}: ours {:?}, pan -a {want:?}", figures_a(out)));
            }
            if Some(out.stats.state_vector_bytes) != e["state_vector"].as_u64() {
                failures.push(format!(
                    "{rel}: vector {} bytes, pan {}",
                    out.stats.state_vector_bytes, e["state_vector"]
                ));
            }
            let pan: BTreeSet<&str> = e["kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str())
                .collect();
            kinds_and_trails(rel, m, out, &pan, &mut failures);
        });
        let first = &e["first_error"];
        let want = [
            "states_stored",
            "states_visited",
            "states_matched",
            "transitions",
            "depth_reached",
        ]
        .map(|k| first[k].as_u64().unwrap_or(u64::MAX));
        let opts = Options {
            max_errors: Some(1),
            ..acceptance()
        };
        with_no_claim(rel, &opts, |_, out| {
            let f = figures_a(out);
            let ours = [f[0], f[1], f[2], f[3], f[5]];
            if ours != want {
                failures.push(format!("{rel}: first error ours {ours:?}, pan -a {want:?}"));
            }
            let depth = out.violations.iter().find_map(|v| v.cycle_depth);
            if depth != first["cycle_depth"].as_u64() {
                failures.push(format!(
                    "{rel}: cycle at depth {depth:?}, pan {}",
                    first["cycle_depth"]
                ));
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The no-claim models' entries with a section of `pan -a -f` figures, named by their path
/// under the claims folder (weak fairness over the processes alone: pan numbers them from 0,
/// with no claim before them, and its default move is a program turn again).
fn no_claim_fair_entries() -> Vec<serde_json::Value> {
    no_claim_entries()
        .into_iter()
        .filter(|e| e["fair"].is_object())
        .map(|mut e| {
            let rel = format!("no_claim/{}", e["model"].as_str().expect("model name"));
            e["model"] = rel.into();
            e
        })
        .collect()
}

#[test]
fn fair_acceptance_without_a_claim_has_pans_figures() {
    // ./pan -a -f -c0 and ./pan -a -f (its first error) built without a never claim: stored
    // and visited, matched, transitions, atomic steps, depth, the kinds found.
    let entries = no_claim_fair_entries();
    assert!(
        entries.len() >= 14,
        "the no-claim manifest has fairness figures"
    );
    let failures = check_sections(&entries, "fair", &fair(), git_rmc::load_with_claims);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fair_acceptance_without_a_claim_matches_pan_live() {
    each_live(
        no_claim_fair_entries(),
        &claims_dir(),
        |rel, path, failures| {
            let Some((pan, _)) =
                common::pan_figures(path, &["-DNOREDUCE"], &["-a", "-f", "-c0", "-m1000000"])
            else {
                return failures.push(format!("{rel}: pan gave no figures"));
            };
            let want = [pan[0], pan_visited(&pan), pan[1], pan[2], pan[3], pan[4]];
            with_product_loaded(path, git_rmc::load_with_claims, &fair(), |_, out| {
                against_pan_a(rel, out, want, pan[5], failures);
            });
        },
    );
}

#[test]
fn acceptance_without_a_claim_matches_pan_live() {
    let dir = claims_dir().join("no_claim");
    each_live(no_claim_entries(), &dir, |rel, path, failures| {
        let Some((want, errors)) = pan_a_live(path) else {
            return failures.push(format!("{rel}: pan gave no figures"));
        };
        with_no_claim(rel, &acceptance(), |_, out| {
            against_pan_a(rel, out, want, errors, failures);
        });
    });
}

/// A depth limit cuts the path and the rest of the search goes on, as pan's -m: the fair
/// cycle pan finds below a stutter that descends to the limit is found, with pan's figures
/// (no timeout or stutter on the last level). Without a limit pan descends for ever there
/// (./pan -a -f -c0 -m1000000: depth 999,999, 999,997 stored); the search stops where the
/// descent starts to repeat itself, and ends with the same cycle.
#[test]
fn a_depth_limit_leaves_the_rest_of_a_fair_search_to_run() {
    let path = claims_dir().join("fair_depth_cut.pml");
    let opts = Options {
        max_depth: Some(20),
        ..fair()
    };
    with_product_opts(&path, &opts, |_, out| {
        assert_eq!(figures_a(out), [17, 21, 21, 42, 0, 19]);
        assert_eq!(kinds(out), BTreeSet::from(["acceptance-cycle"]));
        assert_eq!(out.limit, Some(git_rmc::explore::Limit::Depth));
    });
    with_product_opts(&path, &fair(), |_, out| {
        assert_eq!(figures_a(out), [4, 8, 12, 20, 0, 7]);
        assert_eq!(kinds(out), BTreeSet::from(["acceptance-cycle"]));
        assert_eq!(out.limit, None);
    });
}

/// `_nr_pr` counts the never claim, as pan counts it: one process and the claim make 2, so
/// the process moves and the formula holds (./pan -a -c0: 3 stored, 6 visited, 1 matched,
/// 7 transitions, depth 4); counting 1, it would block and the claim would accept.
#[test]
fn nr_pr_counts_the_claim() {
    let path = claims_dir().join("nr_pr_counts_the_claim.pml");
    with_product_opts(&path, &acceptance(), |_, out| {
        assert_eq!(figures_a(out), [3, 6, 1, 7, 0, 4]);
        assert!(out.violations.is_empty(), "{:?}", kinds(out));
    });
}

/// A claim's figures, violations and trails as a check reports them, for comparison.
fn claim_result(c: &git_rmc::rmc::check::Checked) -> String {
    let s = &c.stats;
    let mut out = format!(
        "{:?} revisited {} verdict {:?} limit {:?} stopped {:?}\n",
        s.spin_figures(),
        s.states_revisited,
        c.verdict,
        c.limit,
        c.stopped_by
    );
    for f in &c.found {
        let steps: Vec<String> = f
            .trail
            .iter()
            .flat_map(|t| &t.shown)
            .map(|s| format!("{}:{}:{}", s.pid, s.statement, s.at.start))
            .collect();
        out += &format!(
            "{:?} {} {:?} {:?} {:?} {}\n",
            f.kind,
            f.message,
            f.key,
            f.cycle_start,
            f.cycle_depth,
            steps.join(" ")
        );
    }
    out
}

/// Every claim of every claim model, its product searched over the state graph its safety
/// check recorded (the system's moves read, the claim's executed), with and without
/// acceptance cycles, with weak fairness, and the search for non-progress cycles (with and
/// without weak fairness): the figures, violations, trails and verdict of the claim's own
/// search, field by field. The models the record cannot stand for (an atomic run a timeout
/// move begins, priorities, traces, `_nr_pr`, `provided` under weak fairness, another
/// number of claims than the non-progress search's one) are counted and searched as before.
/// Models with accept labels in proctypes (in atomic runs, reached by a rendezvous, in
/// processes that `run` creates or that end) are served: their products over the graph are
/// counted apart.
#[test]
fn a_claims_product_over_the_recorded_safety_graph_is_its_own_search() {
    use git_rmc::rmc::check::{self, Algorithm, ClaimChoice, Request};
    let (mut replayed, mut searched, mut accepting, mut fair_over) = (0, 0, 0, 0);
    let mut np_over = 0;
    let mut failures = Vec::new();
    // Besides the claim models, models whose system turns the claim's `timeout` decides:
    // a timeout move, one that meets a rendezvous, `timeout` inside an atomic run, and an
    // atomic run that a timeout move begins (searched: the record followed it without
    // `timeout`).
    let dir = tempfile::tempdir().expect("temp dir");
    let extra = [
        (
            "timeout_resets.pml",
            "byte x;\nactive proctype P() { do :: x < 3 -> x++ :: timeout -> x = 0 od }\n\
             ltl p { []<> (x == 0) }\nltl q { [] (x <= 2) }\n",
        ),
        (
            "timeout_rendezvous.pml",
            "chan c = [0] of { byte };\nbyte n;\n\
             active proctype A() { do :: c!1 :: timeout -> n++; if :: n > 2 -> break :: else fi od }\n\
             active proctype B() { byte v; do :: c?v -> v = 0 :: n > 1 -> break od }\n\
             ltl r { <> (n > 2) }\nltl s { [] (n < 2) }\n",
        ),
        (
            "timeout_inside_atomic.pml",
            "byte x, y;\nactive proctype P() { do :: atomic { x < 2 -> x++; timeout -> y = 1 } \
             :: x == 2 -> x = 0 od }\nactive proctype Q() { y == 1 -> y = 0 }\n\
             ltl t { []<> (y == 0) }\n",
        ),
        (
            "timeout_begins_atomic.pml",
            "byte x, y;\nactive proctype P() { do :: x < 2 -> x++ \
             :: atomic { timeout -> x = 0; y++ } :: y > 2 -> break od }\n\
             ltl u { [] (y < 5) }\nltl w { []<> (x == 0) }\n",
        ),
    ];
    // And the models without a claim, whose search for non-progress cycles reads the graph
    // of a safety check with no claim (its layout's proctype table has no never claim).
    let mut models: Vec<PathBuf> = entries()
        .iter()
        .map(|e| claims_dir().join(e["model"].as_str().expect("model name")))
        .chain(no_claim_entries().iter().map(|e| {
            claims_dir()
                .join("no_claim")
                .join(e["model"].as_str().expect("model name"))
        }))
        .collect();
    for (name, text) in extra {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write model");
        models.push(path);
    }
    for path in models {
        let rel = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let pp = PpOptions::default();
        let loaded = git_rmc::load_with_claims(&path, &DiskProvider, &pp);
        let Some(program) = loaded.program.clone() else {
            continue;
        };
        let request = |program: git_rmc::program::Program,
                       opts: &Options,
                       algorithm: Option<Algorithm>,
                       claim: ClaimChoice| Request {
            program,
            sources: check::sources_of(&path, &loaded.files, &pp),
            opts: opts.clone(),
            algorithm,
            base: None,
            short_trails: false,
            window: None,
            claim,
        };
        let opts = Options::default();
        let safety = check::check(
            request(
                program.clone(),
                &opts,
                Some(Algorithm::Full),
                ClaimChoice::Safety,
            ),
            &mut |_| {},
        )
        .expect("the safety check runs");
        let Some(record) = safety.record.as_ref() else {
            continue;
        };
        let labels =
            safety.program.procs.iter().any(|p| {
                p.kind != ProcKind::Never && p.automaton.locations.iter().any(|l| l.accept)
            });
        let claims: Vec<String> = safety
            .program
            .procs
            .iter()
            .filter(|p| p.kind == ProcKind::Never && p.locals.is_empty())
            .map(|p| p.name.clone())
            .collect();
        let modes = [(false, false), (true, false), (true, true)];
        let mut jobs: Vec<_> = claims
            .into_iter()
            .flat_map(|n| modes.map(|m| (safety.program.clone(), n.clone(), m)))
            .collect();
        // The search for non-progress cycles (pan -l): its claim in place of the model's,
        // the model's locations with the safety check's ids.
        if let Some(mut np) = git_rmc::load_for_non_progress(&path, &DiskProvider, &pp).program {
            assert!(
                git_rmc::rmc::adopt_system_ids(&mut np, &safety.program),
                "{rel}: the non-progress program's processes are the model's"
            );
            let name = git_rmc::explore::claim::NP_CLAIM.to_string();
            jobs.extend(modes[1..].iter().map(|&m| (np.clone(), name.clone(), m)));
        }
        for (program, name, (acceptance, fair)) in jobs {
            {
                let opts = Options {
                    acceptance,
                    fair,
                    ..Options::default()
                };
                let req = || {
                    request(
                        program.clone(),
                        &opts,
                        None,
                        ClaimChoice::Named(name.clone()),
                    )
                };
                let over = check::check_claim_over(&req(), record, &safety.program, &mut |_| {});
                let Some(over) = over else {
                    searched += 1;
                    continue;
                };
                replayed += 1;
                accepting += usize::from(labels && acceptance);
                fair_over += usize::from(fair);
                np_over += usize::from(name == git_rmc::explore::claim::NP_CLAIM);
                let over = match over {
                    Ok(over) => over,
                    Err(e) => {
                        failures.push(format!(
                            "{rel} never {name} (-a {acceptance}, -f {fair}): {e}"
                        ));
                        continue;
                    }
                };
                let own = check::check(req(), &mut |_| {}).expect("the product search runs");
                let (a, b) = (claim_result(&over), claim_result(&own));
                if a != b {
                    failures.push(format!(
                        "{rel} never {name} (-a {acceptance}, -f {fair}):\nover the graph:\n{a}\
                         searched:\n{b}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{replayed} products over a graph ({accepting} with -a through accept labels in \
         proctypes, {fair_over} with -a -f, {np_over} non-progress searches), {searched} \
         searched"
    );
    assert!(
        fair_over >= 50 && np_over >= 50,
        "{fair_over} with -f, {np_over} non-progress searches over a graph"
    );
    assert!(
        replayed >= 30,
        "{replayed} products over a graph, {searched} searched"
    );
    assert!(
        accepting >= 8,
        "{accepting} products with -a over the graph of models with accept labels in proctypes"
    );
}

/// A `d_step` that runs processes creates as many as its body runs, which its one edge
/// does not say: the processes at accept labels cannot be followed through it, so the
/// claims of such a model are searched (`acceptors::followable`); `run` as a statement
/// can.
#[test]
fn accept_labels_are_followed_unless_a_d_step_runs_processes() {
    use git_rmc::explore::search::acceptors::followable;
    let load = |text: &str| {
        let provider = git_rmc::promela::source::MemoryProvider::new().with("m.pml", text);
        git_rmc::load_with_claims(Path::new("m.pml"), &provider, &PpOptions::default())
            .program
            .expect("the model loads")
    };
    let spawns = "byte k;\nproctype W() { accept: k++ }\n\
                  init { byte i; do :: i < 2 -> atomic { run W(); i++ } :: i == 2 -> break od }\n\
                  ltl w { <> (k == 0) }\n";
    assert!(followable(&load(spawns)));
    let in_dstep = spawns.replace("atomic", "d_step");
    assert!(!followable(&load(&in_dstep)));
}

/// The search for cycles through the processes' accept labels without a claim (pan -a built
/// without one, what `check` runs for a model without claims), over the state graph the
/// model's safety check recorded: the figures, violations, trails and verdict of its own
/// search, field by field, on every model without claims and every claim model whose
/// processes have accept labels (the claims left out).
#[test]
fn the_accept_labels_search_over_the_recorded_safety_graph_is_its_own_search() {
    use git_rmc::rmc::check::{self, Algorithm, ClaimChoice, Request};
    let mut failures = Vec::new();
    let (mut replayed, mut searched, mut fair_over) = (0, 0, 0);
    // Besides the models: one where pan -a -f's nested search meets the first search's
    // stack with the counter at 0 again and again (pan descends to its depth limit: 9,999
    // levels with -m10000), and one whose seeds hold a process inside an atomic sequence,
    // which a state inside a recorded atomic run may equal (pan compares every state with
    // the seed; the search over the graph gives up there and the model is searched).
    let dir = tempfile::tempdir().expect("temp dir");
    let extra = [
        (
            "fair_runaway.pml",
            "byte x;\nactive proctype A() { do :: x != 2 -> accept: x = 1 od }\n\
             active proctype B() { do :: x = 3 od }\n",
        ),
        (
            "seed_mid_atomic.pml",
            "byte x, y;\nactive [2] proctype A() { accept: do \
             :: atomic { x == 0 -> x = 1; y == 1 -> x = 0 } od }\n\
             active [2] proctype B() { do :: x == 1 -> y = 1 - y od }\n",
        ),
    ];
    let mut extras = Vec::new();
    for (name, text) in extra {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write model");
        extras.push(path);
    }
    let models = no_claim_entries()
        .iter()
        .map(|e| {
            claims_dir()
                .join("no_claim")
                .join(e["model"].as_str().expect("model"))
        })
        .chain(
            entries()
                .iter()
                .map(|e| claims_dir().join(e["model"].as_str().expect("model"))),
        )
        .chain(extras)
        .collect::<Vec<_>>();
    for path in models {
        let rel = path.display().to_string();
        let pp = PpOptions::default();
        let loaded = git_rmc::load_with_claims(&path, &DiskProvider, &pp);
        let Some(program) = loaded.program.clone() else {
            continue;
        };
        let labels = program
            .procs
            .iter()
            .any(|p| p.kind != ProcKind::Never && p.automaton.locations.iter().any(|l| l.accept));
        if !labels {
            continue;
        }
        let request = |program: git_rmc::program::Program, acceptance, fair, algorithm| Request {
            program,
            sources: check::sources_of(&path, &loaded.files, &pp),
            opts: Options {
                acceptance,
                fair,
                ..Options::default()
            },
            algorithm,
            base: None,
            short_trails: false,
            window: None,
            claim: ClaimChoice::Safety,
        };
        let safety = check::check(
            request(program, false, false, Some(Algorithm::Full)),
            &mut |_| {},
        )
        .expect("the safety check runs");
        let Some(record) = safety.record.as_ref() else {
            continue;
        };
        for fair in [false, true] {
            let req = || request(safety.program.clone(), true, fair, None);
            let Some(over) = check::check_claim_over(&req(), record, &safety.program, &mut |_| {})
            else {
                searched += 1;
                continue;
            };
            replayed += 1;
            fair_over += usize::from(fair);
            let own = check::check(req(), &mut |_| {}).expect("the search runs");
            let a = match over {
                Ok(over) => claim_result(&over),
                Err(e) => format!("{e}\n"),
            };
            let b = claim_result(&own);
            if a != b {
                failures.push(format!(
                    "{rel} (-f {fair}):\nover the graph:\n{a}searched:\n{b}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{replayed} accept label searches over a graph ({fair_over} with -f), {searched} searched"
    );
    assert!(
        replayed >= 30 && fair_over >= 15,
        "{replayed} over a graph ({fair_over} with -f), {searched} searched"
    );
}

/// A claim model's version loaded with its claims, as `check` loads it.
fn claim_version(text: &str) -> Option<(git_rmc::program::Program, git_rmc::rmc::record::Sources)> {
    let provider = git_rmc::promela::source::MemoryProvider::new().with("m.pml", text);
    let pp = PpOptions::default();
    let loaded = git_rmc::load_with_claims(Path::new("m.pml"), &provider, &pp);
    let program = loaded.program?;
    let sources = git_rmc::rmc::check::sources_of(Path::new("m.pml"), &loaded.files, &pp);
    Some((program, sources))
}

/// A version's program for the search for non-progress cycles, its processes with the ids
/// of `ids_from` (the same version's safety check's program).
fn non_progress_version(
    text: &str,
    ids_from: &git_rmc::program::Program,
) -> Option<git_rmc::program::Program> {
    let provider = git_rmc::promela::source::MemoryProvider::new().with("m.pml", text);
    let pp = PpOptions::default();
    let mut p = git_rmc::load_for_non_progress(Path::new("m.pml"), &provider, &pp).program?;
    git_rmc::rmc::adopt_system_ids(&mut p, ids_from).then_some(p)
}

/// Claims across changes of the model (the formula kept): chains of mutants of the claim
/// models, each version's safety check incremental on the record of the one before, and
/// each claim's product over the record it writes against the claim's own search of that
/// version, field by field, with acceptance cycles (as `check` checks claims), and under
/// weak fairness (`--fair`). Returns the checks compared (those under weak fairness apart)
/// and the versions.
fn claims_over_mutant_chains(seed: u64, chains_per_model: usize) -> (usize, usize, usize) {
    use common::rmc::{mutate, Rng};
    use git_rmc::rmc::check::{self, Algorithm, Base, ClaimChoice, Request};
    let mut rng = Rng(seed);
    let (mut compared, mut fair_compared, mut versions) = (0, 0, 0);
    let mut failures = Vec::new();
    let opts = Options {
        max_states: Some(200_000),
        ..Options::default()
    };
    let claim_opts = Options {
        acceptance: true,
        ..opts.clone()
    };
    let models = entries()
        .iter()
        .map(|e| e["model"].as_str().expect("model name").to_string())
        .chain(
            no_claim_entries()
                .iter()
                .map(|e| format!("no_claim/{}", e["model"].as_str().expect("model name"))),
        )
        .collect::<Vec<_>>();
    for rel in &models {
        let Ok(text) = std::fs::read_to_string(claims_dir().join(rel)) else {
            continue;
        };
        for _ in 0..chains_per_model {
            let mut current = text.clone();
            let mut record = None;
            for step in 0..10 {
                let next = match step {
                    0 => Some(current.clone()),
                    _ => (0..20).find_map(|_| mutate(&current, &mut rng)),
                };
                let Some(next) = next else { break };
                let Some((program, sources)) = claim_version(&next) else {
                    continue;
                };
                let base = record.take().and_then(|r| Base::from_record(r).ok());
                let safety = match check::check(
                    Request {
                        program,
                        sources: sources.clone(),
                        opts: opts.clone(),
                        algorithm: Some(Algorithm::Auto),
                        base,
                        short_trails: false,
                        window: None,
                        claim: ClaimChoice::Safety,
                    },
                    &mut |_| {},
                ) {
                    Ok(c) => c,
                    Err(_) => continue,
                };
                let Some(rec) = safety.record.as_ref() else {
                    continue;
                };
                versions += 1;
                current = next;
                // Each claim, and where processes have accept labels the search for cycles
                // through them alone (`ClaimChoice::Safety` with -a).
                let labels = safety.program.procs.iter().any(|p| {
                    p.kind != ProcKind::Never && p.automaton.locations.iter().any(|l| l.accept)
                });
                let mut choices: Vec<_> = safety
                    .program
                    .procs
                    .iter()
                    .filter(|p| p.kind == ProcKind::Never && p.locals.is_empty())
                    .map(|p| (safety.program.clone(), ClaimChoice::Named(p.name.clone())))
                    .chain(labels.then(|| (safety.program.clone(), ClaimChoice::Safety)))
                    .collect();
                // And the search for non-progress cycles, its program with this version's ids.
                if let Some(np) = non_progress_version(&current, &safety.program) {
                    let np_claim = git_rmc::explore::claim::NP_CLAIM.to_string();
                    choices.push((np, ClaimChoice::Named(np_claim)));
                }
                let each = choices
                    .into_iter()
                    .flat_map(|c| [(c.clone(), false), (c, true)]);
                for ((program, choice), fair) in each {
                    let name = match &choice {
                        ClaimChoice::Named(n) => format!("{n} (-f {fair})"),
                        _ => format!("(accept labels) (-f {fair})"),
                    };
                    let req = || Request {
                        program: program.clone(),
                        sources: sources.clone(),
                        opts: Options {
                            fair,
                            ..claim_opts.clone()
                        },
                        algorithm: None,
                        base: None,
                        short_trails: false,
                        window: None,
                        claim: choice.clone(),
                    };
                    let Some(over) =
                        check::check_claim_over(&req(), rec, &safety.program, &mut |_| {})
                    else {
                        continue;
                    };
                    let own = check::check(req(), &mut |_| {}).expect("the product search runs");
                    compared += 1;
                    fair_compared += usize::from(fair);
                    let over = match over {
                        Ok(c) => c,
                        Err(e) => {
                            failures.push(format!(
                                "{rel} step {step} never {}: {e}\n{current}\nsearched:\n{}",
                                name,
                                claim_result(&own)
                            ));
                            continue;
                        }
                    };
                    let (a, b) = (claim_result(&over), claim_result(&own));
                    if a != b {
                        failures.push(format!(
                            "{rel} step {step} never {}:\n{current}\nover the graph:\n{a}searched:\n{b}",
                            name
                        ));
                    }
                }
                record = safety.record;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    (compared, fair_compared, versions)
}

/// Claims across changes, in CI: a chain of ten versions per claim model.
#[test]
fn claims_over_the_graph_of_changed_versions_equal_their_own_search() {
    let (compared, fair, versions) = claims_over_mutant_chains(0x5eed_c1a1, 2);
    eprintln!("{compared} claims over the graph of {versions} versions ({fair} with --fair)");
    assert!(
        compared >= 300 && fair >= 150,
        "{compared} claims compared over {versions} versions ({fair} with --fair)"
    );
}

/// The same over thousands of claim checks.
#[test]
#[ignore]
fn claims_over_the_graph_of_changed_versions_equal_their_own_search_long() {
    let seed = common::rmc::sweep_seed(0xc1a1_5eed);
    let (compared, fair, versions) = claims_over_mutant_chains(seed, 16);
    eprintln!("{compared} claims over the graph of {versions} versions ({fair} with --fair)");
    assert!(
        compared >= 2_000 && fair >= 1_000,
        "{compared} claims compared over {versions} versions ({fair} with --fair)"
    );
}
