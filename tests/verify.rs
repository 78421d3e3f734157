//! The checker against spin: every conformance model's figures (states stored and matched,
//! transitions, atomic steps, depth reached) and kinds of violation as the manifest records
//! them, the same against spin live when it is installed, every trail replayed to its
//! violation, and Tarjan's SCC count on models whose state graphs are known.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use git_rmc::explore::{explore, Machine, Options, Outcome};

/// Loads and checks a model, then hands the result to `f`.
fn with_outcome(path: &Path, f: impl FnOnce(&git_rmc::Loaded, &Machine, &Outcome)) {
    let loaded = common::load(path);
    let program = loaded
        .program
        .as_ref()
        .unwrap_or_else(|| panic!("{} does not load", path.display()));
    let m = Machine::new(program).expect("layout");
    let out = explore(&m, &Options::default(), &mut |_| {});
    f(&loaded, &m, &out);
}

fn figures(out: &Outcome) -> [u64; 5] {
    let s = &out.stats;
    [
        s.states_stored,
        s.states_matched,
        s.transitions,
        s.atomic_steps,
        s.depth_reached,
    ]
}

/// The manifest entries whose figures spin can give (accepted, supported, oracle usable).
fn checkable() -> Vec<serde_json::Value> {
    common::manifest("manifest.json")
        .into_iter()
        .filter(|e| {
            e["spin_accepts"].as_bool() == Some(true)
                && e["unsupported"].as_bool() != Some(true)
                && e["oracle_unusable"].as_bool() != Some(true)
        })
        .collect()
}

fn spin_kind(k: &str) -> &str {
    match k {
        "array-index" => "index-out-of-range",
        k => k,
    }
}

#[test]
fn figures_and_violations_match_the_manifest() {
    let mut failures = Vec::new();
    let entries = checkable();
    assert!(entries.len() >= 40, "manifest lists the conformance models");
    for e in &entries {
        let rel = e["model"].as_str().expect("model name");
        let path = common::models_dir().join(rel);
        with_outcome(&path, |loaded, m, out| {
            // A fatal error ends the whole search, as in pan; anything else runs to the end.
            let stopped = out.stopped_by.map(|k| k.as_str());
            if stopped != e["stopped_by"].as_str() {
                failures.push(format!(
                    "{rel}: stopped by {stopped:?}, spin by {:?}",
                    e["stopped_by"].as_str()
                ));
            }
            assert!(out.limit.is_none(), "{rel}: no limit cut the search");
            let want = [
                "states_stored",
                "states_matched",
                "transitions",
                "atomic_steps",
                "depth_reached",
            ]
            .map(|k| e[k].as_u64().unwrap_or(u64::MAX));
            let comparable = e["counts_comparable"].as_bool() != Some(false);
            if comparable && figures(out) != want {
                failures.push(format!("{rel}: ours {:?}, spin {want:?}", figures(out)));
            }
            let ours: BTreeSet<&str> = out.violations.iter().map(|v| v.kind.as_str()).collect();
            let spin: BTreeSet<&str> = e["violations"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v["kind"].as_str())
                        .map(spin_kind)
                        .collect()
                })
                .unwrap_or_default();
            if ours != spin {
                failures.push(format!("{rel}: kinds ours {ours:?}, spin {spin:?}"));
            }
            // Assertion violations, and the errors of an event trace at its events, at
            // spin's lines (the statement of the step, from spin -t).
            for v in e["violations"].as_array().into_iter().flatten() {
                let line = v["line"].as_u64().unwrap_or(0) as usize;
                let kind = v["kind"].as_str().unwrap_or_default();
                let at_edge = [
                    "assertion",
                    "trace-mismatch",
                    "notrace-matched",
                    "trace-nondeterminism",
                ];
                if !at_edge.contains(&kind) || line == 0 {
                    continue;
                }
                let found = out.violations.iter().any(|o| {
                    o.kind.as_str() == kind
                        && o.edge
                            .is_some_and(|x| loaded.files.spin_line(m.edge(x).span) == line)
                });
                if !found {
                    failures.push(format!("{rel}: no {kind} violation at line {line}"));
                }
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn successors_built_ahead_change_nothing() {
    // Large searches build each successor's next sibling before visiting it (the table
    // lookups overlap); forced on every conformance model, every figure, violation and
    // trail is the one of the search that does not.
    let ahead = Options {
        look_ahead_from: 0,
        ..Options::default()
    };
    let mut failures = Vec::new();
    each_checkable_machine(|rel, m| {
        let plain = explore(m, &Options::default(), &mut |_| {});
        let built = explore(m, &ahead, &mut |_| {});
        let shown = |o: &Outcome| format!("{:?} {:?} {:?}", figures(o), o.violations, o.executed);
        if shown(&plain) != shown(&built) {
            failures.push(format!("{rel}: {} / {}", shown(&plain), shown(&built)));
        }
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Calls `f` with the machine of every checkable conformance model that loads.
fn each_checkable_machine(mut f: impl FnMut(&str, &Machine)) {
    for e in checkable() {
        let rel = e["model"].as_str().expect("model name");
        let loaded = common::load(&common::models_dir().join(rel));
        let Some(program) = loaded.program.as_ref() else {
            continue;
        };
        f(rel, &Machine::new(program).expect("layout"));
    }
}

#[test]
fn trace_errors_are_at_pans_depth() {
    // pan reports an error of its event trace at a channel event (require()) one level below
    // the state the step leaves, the depth of the step's own end (a rendezvous counts two
    // levels), and its fatal non-determinism at the state the step leaves. The manifest
    // has pan's depth of its first error (pan:1:), which our first trail of that kind at
    // that line reaches by the same path: the searches go in the same order.
    let mut checked = 0;
    for e in checkable() {
        let rel = e["model"].as_str().expect("model name");
        for v in e["violations"].as_array().into_iter().flatten() {
            let Some(depth) = v["depth"].as_u64() else {
                continue;
            };
            let kind = v["kind"].as_str().unwrap_or_default();
            let line = v["line"].as_u64().unwrap_or(0) as usize;
            with_outcome(&common::models_dir().join(rel), |loaded, m, out| {
                let ours = out
                    .violations
                    .iter()
                    .find(|o| {
                        o.kind.as_str() == kind
                            && o.edge
                                .is_some_and(|x| loaded.files.spin_line(m.edge(x).span) == line)
                    })
                    .unwrap_or_else(|| panic!("{rel}: no {kind} at line {line}"));
                let trail = ours.trail.as_ref().expect("a trail");
                let levels: u64 = trail.iter().map(|s| 1 + u64::from(s.rv.is_some())).sum();
                let pan = match kind {
                    "trace-nondeterminism" => depth + 1,
                    _ => depth,
                };
                assert_eq!(levels, pan, "{rel}: {kind} at line {line}");
            });
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} trace errors compared");
}

#[test]
fn every_trail_reaches_its_violation() {
    // Shortest trails are looked for within as many states as the depth-first search met;
    // a violation the breadth-first search cannot reach within that (a fatal error hundreds
    // of levels deep, where pan stops too) keeps its depth-first trail.
    let (mut checked, mut without_shortest) = (0, 0);
    for e in checkable() {
        let rel = e["model"].as_str().expect("model name");
        with_outcome(&common::models_dir().join(rel), |_, m, out| {
            let opts = Options::default();
            let shortest = git_rmc::explore::shortest::shortest_trails(m, out, &opts);
            for (v, short) in out.violations.iter().zip(shortest) {
                let trail = v
                    .trail
                    .as_ref()
                    .expect("the first violations keep their trails");
                assert!(
                    m.reproduces(&out.initial, v, &opts),
                    "{rel}: the trail of {:?} does not reach it",
                    v.kind
                );
                m.replay(&out.initial, trail)
                    .unwrap_or_else(|e| panic!("{rel}: {e}"));
                let Some(short) = short else {
                    without_shortest += 1;
                    checked += 1;
                    continue;
                };
                assert!(short.len() <= trail.len(), "{rel}: shortest trail longer");
                let mut sv = v.clone();
                sv.trail = Some(short);
                assert!(
                    m.reproduces(&out.initial, &sv, &opts),
                    "{rel}: the shortest trail of {:?} does not reach it",
                    v.kind
                );
                checked += 1;
            }
        });
    }
    assert!(checked >= 8, "only {checked} violations were replayed");
    assert!(
        without_shortest * 20 <= checked,
        "{without_shortest} of {checked} violations found no shortest trail"
    );
}

#[test]
fn figures_match_spin_live() {
    if !common::spin_installed() {
        eprintln!("spin is not installed: live comparison skipped");
        return;
    }
    let mut failures = Vec::new();
    let mut compared = 0;
    for e in checkable() {
        if e["counts_comparable"].as_bool() == Some(false)
            || e["states_stored"].as_u64().unwrap_or(u64::MAX) >= 100_000
        {
            continue;
        }
        let rel = e["model"].as_str().expect("model name");
        let path = common::models_dir().join(rel);
        let Some(spin) = common::spin_figures(&path, e["vectorsz"].as_u64()) else {
            failures.push(format!("{rel}: spin gave no figures"));
            continue;
        };
        with_outcome(&path, |_, _, out| {
            let ours = figures(out);
            if ours[..] != spin[..5] {
                failures.push(format!("{rel}: ours {ours:?}, spin {:?}", &spin[..5]));
            }
            if (spin[5] == 0) != out.violations.is_empty() {
                failures.push(format!(
                    "{rel}: spin {} errors, ours {} violations",
                    spin[5],
                    out.violations.len()
                ));
            }
        });
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 40, "only {compared} models compared");
}

/// The program of a model given as text.
fn program_of(src: &str) -> git_rmc::program::Program {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("m.pml");
    std::fs::write(&path, src).expect("write model");
    common::load(&path).program.expect("model loads")
}

/// Checks a model given as text and hands the result to `f`.
fn explore_text<T>(src: &str, f: impl FnOnce(&Machine, &Outcome) -> T) -> T {
    let program = program_of(src);
    let m = Machine::new(&program).expect("layout");
    let out = explore(&m, &Options::default(), &mut |_| {});
    f(&m, &out)
}

fn run_text(src: &str) -> (u64, u64, u64, u64) {
    explore_text(src, |_, out| {
        let s = &out.stats;
        (s.states_stored, s.states_matched, s.atomic_steps, s.sccs)
    })
}

#[test]
fn tarjan_counts_sccs_of_known_graphs() {
    // A chain of four states: four SCCs.
    assert_eq!(
        run_text("byte x; active proctype P() { x = 1; x = 2 }"),
        (4, 0, 0, 4)
    );
    // One cycle through three states.
    assert_eq!(
        run_text("byte x; active proctype P() { do :: x = (x + 1) % 3 od }"),
        (3, 1, 0, 1)
    );
    // An atomic loop body: its middle state is not stored; the step back to the initial
    // state closes a cycle on the one stored state.
    assert_eq!(
        run_text("byte x; active proctype P() { do :: atomic { x = 1; x = 0 } od }"),
        (1, 1, 1, 1)
    );
    // Five singletons counting up, then two singletons and one 4-state cycle.
    assert_eq!(
        run_text(
            "byte x; active proctype P() {
               do :: x < 2 -> x++ :: x == 2 -> break od;
               do :: x > 0 -> x-- :: x == 0 -> x = 1 od }"
        ),
        (11, 1, 0, 8)
    );
    // Two processes that each loop: the whole graph is one SCC.
    assert_eq!(
        run_text(
            "bit a, b;
             active proctype P() { do :: a = 1 - a od }
             active proctype Q() { do :: b = 1 - b od }"
        ),
        (4, 5, 0, 1)
    );
}

/// Checks a model given as text; returns the kinds of violation found (sorted), after
/// checking that every trail reaches its violation.
fn kinds_of(src: &str) -> Vec<&'static str> {
    explore_text(src, |m, out| {
        for v in &out.violations {
            assert!(
                m.reproduces(&out.initial, v, &Options::default()),
                "trail of {:?}",
                v.kind
            );
        }
        let mut k: Vec<&'static str> = out.violations.iter().map(|v| v.kind.as_str()).collect();
        k.sort();
        k.dedup();
        k
    })
}

#[test]
fn every_kind_of_violation_is_found_with_a_replayable_trail() {
    assert_eq!(
        kinds_of("byte x; active proctype P() { atomic { do :: x = 1 - x od } }"),
        ["non-terminating-atomic"]
    );
    assert_eq!(
        kinds_of("byte x, y; active proctype P() { if :: x = 1 :: x = 0 fi; y = 4 / x }"),
        ["division-by-zero"]
    );
    assert_eq!(
        kinds_of("byte a[3]; byte i; active proctype P() { do :: i < 5 -> a[i] = 1; i++ :: else -> break od }"),
        ["index-out-of-range"]
    );
    assert_eq!(
        kinds_of("byte g; active proctype P() { d_step { g = 1; g == 2; g = 3 } }"),
        ["d_step-blocked"]
    );
    assert_eq!(
        kinds_of("proctype Q() { end: false } init { do :: run Q() od }"),
        ["too-many-processes"]
    );
    assert_eq!(
        kinds_of("chan c; chan d = [1] of { byte }; active proctype P() { c!1 }"),
        ["uninitialised-channel"]
    );
    assert_eq!(
        kinds_of("byte x; active proctype P() { x = 2; assert(x == 1); x == 3 }"),
        ["assertion", "invalid-end-state"]
    );
    // The errors of an event trace.
    assert_eq!(
        kinds_of("chan c = [1] of { byte }; active proctype P() { c!1 } trace { c!2 }"),
        ["trace-mismatch"]
    );
    assert_eq!(
        kinds_of("chan c = [1] of { byte }; active proctype P() { c!1 } notrace { c!1 }"),
        ["notrace-matched"]
    );
    assert_eq!(
        kinds_of(
            "chan c = [1] of { byte }; chan d = [0] of { byte };
             active proctype P() { end: d?_ } active proctype Q() { c!1 }
             trace { c!1; c!2 }"
        ),
        ["trace-incomplete"]
    );
    assert_eq!(
        kinds_of(
            "chan c = [1] of { byte }; byte x; active proctype P() { c!1 }
             trace { if :: c!1 :: c!x fi }"
        ),
        ["trace-nondeterminism"]
    );
}

/// The initial state's canonical encoding and fingerprint of a model given as text.
fn initial_fingerprint(src: &str) -> (Vec<u8>, git_rmc::explore::Fingerprint) {
    let program = program_of(src);
    let m = Machine::new(&program).expect("layout");
    let st = m.initial().expect("initial state");
    let mut bytes = Vec::new();
    m.canonical(&st, &mut bytes);
    (bytes, m.fingerprint(&st))
}

#[test]
fn fingerprints_hold_stable_ids_and_are_seeded_with_the_layout() {
    // Names are not part of the layout: a renamed global, local or field keeps every state.
    let (a_bytes, a) = initial_fingerprint("byte a; byte b; active proctype P() { a = 1 }");
    let (r_bytes, r) = initial_fingerprint("byte x; byte y; active proctype P() { x = 1 }");
    assert_eq!((a_bytes.clone(), a), (r_bytes, r));
    // Declarations of the same width that swap places keep the layout (the statements that
    // read them change instead); the same bytes under another layout do not share a
    // fingerprint.
    let (b_bytes, b) = initial_fingerprint("byte b; byte a; active proctype P() { a = 1 }");
    assert_eq!(a, b);
    let (s_bytes, s) = initial_fingerprint("short a; active proctype P() { a = 1 }");
    assert_eq!(a_bytes, b_bytes);
    assert_eq!(s_bytes, a_bytes, "two bytes and one short encode alike");
    assert_ne!(s, a);
    // Deterministic for the same model.
    assert_eq!(
        initial_fingerprint("byte a; byte b; active proctype P() { a = 1 }").1,
        a
    );
    // The canonical encoding holds the process's location as a u32 stable id.
    let loaded_src = "byte a; active proctype P() { a = 1; a = 2 }";
    let (bytes, _) = initial_fingerprint(loaded_src);
    let program = program_of(loaded_src);
    let id = program.procs[0].automaton.initial.0.to_le_bytes();
    assert!(bytes.windows(4).any(|w| w == id), "{bytes:?} holds {id:?}");
}

/// pan's "State-vector N byte" from a model's stored pan output.
fn pan_state_vector(rel: &str) -> Option<u64> {
    let name = rel.trim_end_matches(".pml").trim_end_matches("/main");
    let txt = std::fs::read_to_string(
        common::models_dir()
            .join("spin")
            .join(format!("{name}.pan.txt")),
    )
    .ok()?;
    let line = txt.lines().find(|l| l.starts_with("State-vector"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn state_vector_bytes_follow_pans_c_layout() {
    // pan's layout (header, globals grouped by C type, 8-byte aligned processes and queues)
    // is reproduced closely enough to say when pan needs -DVECTORSZ; the width of pan's
    // state field is estimated, so a few models differ by a word.
    let (mut same, mut total, mut off) = (0, 0, Vec::new());
    for e in checkable() {
        let rel = e["model"].as_str().expect("model name");
        let Some(pan) = pan_state_vector(rel) else {
            continue;
        };
        with_outcome(&common::models_dir().join(rel), |_, _, out| {
            total += 1;
            if out.stats.state_vector_bytes == pan {
                same += 1;
            } else {
                off.push(format!(
                    "{rel}: pan {pan}, ours {}",
                    out.stats.state_vector_bytes
                ));
            }
        });
    }
    assert!(total >= 40, "{total} models compared");
    assert!(
        same * 100 >= total * 94,
        "{same} of {total} equal:\n{}",
        off.join("\n")
    );
}

/// pan -m: a path that reaches the depth limit ends there and the rest of the search goes
/// on (the search is incomplete); ./pan -c0 -m4 on this model: 9 stored, 4 matched, 13
/// transitions, depth 3.
#[test]
fn a_depth_limit_cuts_paths_and_the_search_goes_on() {
    let src = "byte x, y;\nactive proctype P() { do :: x < 6 -> x++ :: y < 2 -> y++ \
               :: x == 6 && y == 2 -> break od }\n";
    let program = program_of(src);
    let m = Machine::new(&program).expect("layout");
    let opts = Options {
        max_depth: Some(4),
        ..Options::default()
    };
    let out = explore(&m, &opts, &mut |_| {});
    assert_eq!(figures(&out), [9, 4, 13, 0, 3]);
    assert_eq!(out.limit, Some(git_rmc::explore::Limit::Depth));
}

/// A search that stops at a limit on states and is told to go on (`search_paused`, auto's
/// first look becoming the full check) is the search without that limit: the same figures,
/// violations (with their trails) and statements executed, on every conformance model and
/// wherever the limit falls (the first state, inside atomic runs and rendezvous, the last).
#[test]
fn a_search_told_to_go_on_at_its_limit_is_the_search_without_it() {
    use git_rmc::explore::{search_paused, AtLimit, NoRider};
    let described = |out: &Outcome| {
        let violations: Vec<String> = out
            .violations
            .iter()
            .map(|v| format!("{} {:?} {:?} {:?}", v.kind.as_str(), v.edge, v.pid, v.trail))
            .collect();
        let s = &out.stats;
        let figures = (s.spin_figures(), s.vector_bytes, s.sccs, s.largest_scc);
        (
            format!("{figures:?}"),
            violations,
            out.executed.clone(),
            out.stopped_by,
        )
    };
    let mut paused_somewhere = 0;
    each_checkable_machine(|rel, m| {
        let whole = explore(m, &Options::default(), &mut |_| {});
        let n = whole.stats.states_stored;
        if n > 20_000 || whole.limit.is_some() {
            return;
        }
        let mut limits: Vec<u64> = vec![1, 2, n / 3, n / 2, n.saturating_sub(1)];
        limits.retain(|&l| l >= 1 && l < n);
        limits.dedup();
        for limit in limits {
            let opts = Options {
                max_states: Some(limit),
                ..Options::default()
            };
            let mut asked = Vec::new();
            let out = search_paused(m, &opts, &mut NoRider, &mut |_| {}, &mut |s| {
                asked.push(s.states_stored);
                AtLimit::GoOn {
                    max_states: None,
                    held: 0,
                }
            });
            // A fatal error may end the search before the limit.
            let stopped_early = whole.stopped_by.is_some() && asked.is_empty();
            assert!(
                asked == [limit] || stopped_early,
                "{rel} at {limit}: asked at {asked:?}"
            );
            paused_somewhere += asked.len();
            assert!(out.limit.is_none(), "{rel} at {limit}: {:?}", out.limit);
            assert_eq!(described(&out), described(&whole), "{rel} at {limit}");
        }
    });
    assert!(paused_somewhere >= 100, "{paused_somewhere} pauses");
}
