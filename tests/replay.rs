//! Replay against full checks (DESIGN.md 5.4, 5.5): on mutants of the project's models and
//! along chains of mutants (each replay reusing the record the previous one wrote), a replay
//! gives exactly a full check's figures, violations, verdicts and trails; `auto` gives a
//! full check's verdicts; and on a cyclic model, replay executes a small part of what
//! pruning executes.

mod common;

use common::rmc::{
    check, check_with, corpus_files, limited, mutate, seed_models, version, Checked, Rng,
};
use git_rmc::explore::Options;
use git_rmc::rmc::check::Algorithm;
use git_rmc::rmc::Record;

/// Every SPIN figure, the violations, the verdict and the trails of two checks are equal.
fn assert_same(name: &str, text: &str, got: &Checked, full: &Checked) {
    let (a, b) = (&got.stats, &full.stats);
    // SPIN's figures, and this tool's own vector size and largest component.
    let figures = |s: &git_rmc::explore::Stats| (s.spin_figures(), s.vector_bytes, s.largest_scc);
    assert_eq!(
        figures(a),
        figures(b),
        "{name}: figures differ ({:?}: {})\n([stored, matched, transitions, atomic, depth, \
         pan vector, sccs], vector, largest scc)\n--- model ---\n{text}",
        got.algorithm,
        got.reason
    );
    assert_eq!(
        got.violations, full.violations,
        "{name}: violations\n{text}"
    );
    assert_eq!(got.verdict, full.verdict, "{name}: verdict\n{text}");
    assert_eq!(got.trails, full.trails, "{name}: trails\n{text}");
}

/// A replay of `text` against `base`, compared with a full check; returns the replay.
fn replay_against_full(name: &str, base: &Record, text: &str) -> Option<Checked> {
    let v = version(text)?;
    let rep = check(&v, Some(base), Algorithm::Replay);
    let full = check(&v, Some(base), Algorithm::Full);
    if full.record.is_none() {
        // A limit or a fatal error: the figures are those of a cut search either way.
        assert_eq!(rep.verdict, full.verdict, "{name}: verdicts differ\n{text}");
        return None;
    }
    assert_same(name, text, &rep, &full);
    let auto = check(&v, Some(base), Algorithm::Auto);
    assert_eq!(auto.violations, full.violations, "{name}: auto\n{text}");
    assert_eq!(auto.verdict, full.verdict, "{name}: auto verdict\n{text}");
    Some(rep)
}

/// Mutants of every seed model (at most `max_states` states), each replayed against the
/// seed's record and compared with a full check: (compared, replayed, walked something).
fn sweep(per_seed: usize, seed: u64, max_states: u64) -> (usize, usize, usize) {
    let mut rng = Rng(seed);
    let (mut compared, mut replayed, mut walked_any) = (0, 0, 0);
    for (name, text) in seed_models(max_states) {
        let Some(v) = version(&text) else { continue };
        let Some(base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        assert!(
            base.graph.is_some(),
            "{name}: a recording run keeps the graph"
        );
        // The unchanged model replays entirely from the record.
        if let Some(same) = replay_against_full(&name, &base, &text) {
            if same.algorithm == Algorithm::Replay {
                assert_eq!(same.stats.states_executed, 0, "{name}: unchanged model");
            }
        }
        for _ in 0..per_seed {
            let Some(m) = mutate(&text, &mut rng) else {
                continue;
            };
            if let Some(r) = replay_against_full(&name, &base, &m) {
                compared += 1;
                if r.algorithm == Algorithm::Replay {
                    replayed += 1;
                    walked_any += usize::from(r.stats.states_walked > 0);
                }
            }
        }
    }
    (compared, replayed, walked_any)
}

#[test]
fn replays_equal_full_checks_on_mutants() {
    let (compared, replayed, walked_any) = sweep(25, 0x5eed_0101, 20_000);
    eprintln!("{compared} mutants compared, {replayed} replayed, {walked_any} walked something");
    assert!(compared >= 200, "only {compared} mutants compared");
    assert!(walked_any >= compared / 4, "replay walked on {walked_any}");
}

#[test]
#[ignore = "thousands of mutants: run with --ignored"]
fn replays_equal_full_checks_on_thousands_of_mutants() {
    let (compared, replayed, walked_any) = sweep(300, 0x5eed_0104, 100_000);
    eprintln!("{compared} mutants compared, {replayed} replayed, {walked_any} walked something");
    assert!(compared >= 3000, "only {compared} mutants compared");
}

#[test]
fn chains_of_replays_reuse_each_others_records() {
    let mut rng = Rng(0x5eed_0102);
    let mut chains = 0;
    for (name, text) in seed_models(5_000).into_iter().step_by(2) {
        let Some(v) = version(&text) else { continue };
        let Some(mut record) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        let mut current = text.clone();
        let (mut steps, mut tries) = (0, 0);
        while steps < 10 && tries < 60 {
            tries += 1;
            let Some(next) = mutate(&current, &mut rng) else {
                continue;
            };
            // Alternate the algorithms, so that replay builds on pruning's records and
            // the reverse.
            let alg = [Algorithm::Replay, Algorithm::Auto, Algorithm::Prune][steps % 3];
            let Some(nv) = version(&next) else { continue };
            let got = check(&nv, Some(&record), alg);
            let full = check(&nv, Some(&record), Algorithm::Full);
            let Some(r) = got.record.clone() else {
                continue;
            };
            if full.record.is_none() {
                continue;
            }
            if got.algorithm == Algorithm::Replay {
                assert_same(&format!("{name} step {steps}"), &next, &got, &full);
            } else {
                assert_eq!(
                    got.violations, full.violations,
                    "{name} step {steps}\n{next}"
                );
                assert_eq!(got.verdict, full.verdict, "{name} step {steps}");
            }
            record = r;
            current = next;
            steps += 1;
        }
        if steps == 10 {
            chains += 1;
        }
    }
    assert!(chains >= 5, "only {chains} chains of 10 mutants");
}

/// A replay of `new` against a recording run of `old`, compared with a full check.
fn pair(name: &str, old: &str, new: &str) -> Checked {
    let base = check(&version(old).expect("old parses"), None, Algorithm::Full)
        .record
        .expect("old record");
    let got = replay_against_full(name, &base, new).expect("a complete check");
    assert_eq!(got.algorithm, Algorithm::Replay, "{name}: {}", got.reason);
    got
}

#[test]
fn a_priority_change_of_a_proctype_that_is_run() {
    let old = "byte x;
proctype P() priority 2 { x = _priority }
init { run P(); x == 2; x = 0 }
";
    let new = old.replace("priority 2", "priority 3");
    let got = pair("priority", old, &new);
    assert!(got.stats.states_executed > 0);
}

#[test]
fn an_edit_inside_an_atomic_sequence_reached_by_a_rendezvous_hand_off() {
    let old = "chan c = [0] of { byte };
byte x, y;
active proctype S() { do :: c ! 1 -> x = (x + 1) % 3 od }
active proctype R() { do :: atomic { c ? y -> y = y + 1; x = x + y } ; x = x % 3 od }
";
    // The same effect by other words: every state stays, the location is dangerous.
    let new = old.replace("y = y + 1", "y = 1 + y");
    let got = pair("hand-off", old, &new);
    assert!(got.stats.states_walked > 0, "{:?}", got.stats);
}

#[test]
fn a_failed_offer_at_the_deepest_level() {
    let old = "chan c = [0] of { byte };
byte n;
active proctype S() { do :: n < 3 -> n++ :: c ! 1 :: n == 3 -> break od }
active proctype T() { n < 2; n = n }
";
    let new = old.replace("n = n", "n = n + 0");
    pair("offer", old, &new);
    let new2 = old.replace("n < 2", "n < 1");
    pair("offer guard", old, &new2);
}

/// A cyclic model: a ring of processes passing tokens forever and a monitor stepping
/// through sixteen phases, every state reachable from every other once all run (one strongly
/// connected component).
const RING: &str = "#define N 4
byte tok[N];
byte count[N];
byte phase;
proctype Node(byte i) {
	do
	:: tok[i] > 0 -> tok[i]--; tok[(i + 1) % N]++; count[i] = (count[i] + 1) % 3
	od
}
proctype Mon() {
	do
	:: phase = 1; phase = 2; phase = 3; phase = 4; phase = 5; phase = 6; phase = 7;
	   phase = 8; phase = 9; phase = 10; phase = 11; phase = 12; phase = 13; phase = 14;
	   phase = 15; phase = 0
	od
}
init {
	atomic { tok[0] = 2; run Node(0); run Node(1); run Node(2); run Node(3); run Mon() }
}
";

#[test]
fn on_a_cyclic_model_replay_executes_a_small_part_of_what_pruning_does() {
    let opts = Options {
        max_states: Some(2_000_000),
        ..limited()
    };
    let v = version(RING).expect("ring parses");
    let base = check_with(&v, None, Algorithm::Full, &opts);
    let record = base.record.expect("ring record");
    let stored = base.stats.states_stored;
    assert!(stored >= 10_000, "{stored} states");
    // One component holds (nearly) everything: the initial states before the processes
    // run are outside it.
    assert!(
        base.stats.largest_scc * 100 >= stored * 99,
        "{} of {stored} in the largest component",
        base.stats.largest_scc
    );
    // One statement changes its words, not its effect: the same states, one dangerous
    // location.
    let new = RING.replace("phase = 7;", "phase = phase + 1;");
    let nv = version(&new).expect("mutant parses");
    let prune = check_with(&nv, Some(&record), Algorithm::Prune, &opts);
    let replay = check_with(&nv, Some(&record), Algorithm::Replay, &opts);
    let full = check_with(&nv, Some(&record), Algorithm::Full, &opts);
    assert_same("ring", &new, &replay, &full);
    assert_eq!(prune.verdict, full.verdict);
    assert!(
        prune.stats.states_executed * 100 >= prune.stats.states_stored * 99,
        "pruning executed {} of {}",
        prune.stats.states_executed,
        prune.stats.states_stored
    );
    assert!(
        replay.stats.states_executed * 10 < replay.stats.states_stored,
        "replay executed {} of {}",
        replay.stats.states_executed,
        replay.stats.states_stored
    );
    let auto = check_with(&nv, Some(&record), Algorithm::Auto, &opts);
    assert_eq!(auto.algorithm, Algorithm::Replay, "{}", auto.reason);
}

#[test]
fn a_record_without_a_graph_is_pruned_and_says_why() {
    let text = "byte x; active proctype P() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }\n";
    let v = version(text).expect("parses");
    let mut record = check(&v, None, Algorithm::Full).record.expect("record");
    record.graph = None;
    let new = text.replace("x = 0", "x = 1");
    let nv = version(&new).expect("parses");
    let got = check(&nv, Some(&record), Algorithm::Replay);
    assert_eq!(got.algorithm, Algorithm::Prune);
    assert!(got.reason.contains("no state graph"), "{}", got.reason);
    // A depth limit rules replay out too.
    let record = check(&v, None, Algorithm::Full).record.expect("record");
    let opts = Options {
        max_depth: Some(1000),
        ..limited()
    };
    let got = check_with(&nv, Some(&record), Algorithm::Replay, &opts);
    assert_eq!(got.algorithm, Algorithm::Prune);
    assert!(got.reason.contains("depth limit"), "{}", got.reason);
}

/// The kinds of event a recorded expansion holds, counted over a record's whole graph.
fn event_kinds(r: &Record) -> std::collections::BTreeMap<&'static str, usize> {
    use git_rmc::explore::event::{End, Event, To};
    let g = r.graph.as_ref().expect("a graph");
    let mut out = std::collections::BTreeMap::new();
    let mut blocked = Vec::new();
    for slot in 0..g.len() as u32 {
        let b = g.events_of(slot);
        let mut at = 0;
        while at < b.len() {
            let ev = git_rmc::rmc::graph::decode_event(b, slot, &mut at, &mut blocked, Some)
                .expect("events decode");
            let kind = match ev {
                Event::Offer => "offer",
                Event::Step { flag: Some(_), .. } => "flagged step",
                Event::Step {
                    to: To::State(_), ..
                } => "step",
                Event::Step { to: To::Atomic, .. } => "atomic step",
                Event::Step { to: To::Repeat, .. } => "non-terminating",
                Event::Fault { executed: true, .. } => "fault",
                Event::Fault {
                    executed: false, ..
                } => "report",
                Event::End(End::Leave) => "leave",
                Event::End(End::Invalid) => "invalid end",
                Event::End(End::Stored(_)) => "blocked in atomic",
            };
            *out.entry(kind).or_insert(0) += 1;
        }
    }
    out
}

#[test]
fn every_kind_of_event_is_recorded_and_replayed() {
    let models = [
        (
            "offer",
            "chan c = [0] of { byte }; byte x;
active proctype S() { c ! 1; x = 1 }
active proctype R() { x == 0; c ? x }
",
        ),
        ("step", "byte x; active proctype P() { x = 1; x = 2 }\n"),
        (
            "atomic step",
            "byte x; active proctype P() { atomic { x = 1; x = 2 }; x = 3 }\n",
        ),
        (
            "non-terminating",
            "byte x; active proctype P() { atomic { do :: x = 1 - x od } }\n",
        ),
        (
            "fault",
            "byte a[2]; byte i; active proctype P() { do :: i < 3 -> a[i] = 1; i++ :: else -> break od }\n",
        ),
        (
            "report",
            "chan c = [0] of { byte }; byte x;
active proctype P() { do :: c?[5] -> x = 1 :: x < 2 -> x++ :: x == 2 -> break od }
",
        ),
        (
            "flagged step",
            "byte x; active proctype P() { x = 1; assert(x == 2); x = 3 }\n",
        ),
        (
            "invalid end",
            "byte x; active proctype P() { x = 1; x == 2 }\n",
        ),
        (
            "blocked in atomic",
            "byte x; active proctype P() { atomic { x = 1; x == 2; x = 3 } }
active proctype Q() { x = 2 }
",
        ),
    ];
    for (kind, text) in models {
        let v = version(text).unwrap_or_else(|| panic!("{kind}: model parses"));
        let record = check(&v, None, Algorithm::Full)
            .record
            .unwrap_or_else(|| panic!("{kind}: a record"));
        let kinds = event_kinds(&record);
        assert!(kinds.contains_key(kind), "{kind}: {kinds:?}");
        // The unchanged model replays from the record alone, exactly as a full check.
        let rep = check(&v, Some(&record), Algorithm::Replay);
        let full = check(&v, Some(&record), Algorithm::Full);
        assert_same(kind, text, &rep, &full);
        assert_eq!(rep.algorithm, Algorithm::Replay, "{kind}: {}", rep.reason);
        assert_eq!(rep.stats.states_executed, 0, "{kind}: {:?}", rep.stats);
        assert_eq!(rep.stats.states_walked, full.stats.states_stored, "{kind}");
        // The record the replay writes holds the same graph.
        let again = rep.record.expect("replay record");
        assert_eq!(again.graph, record.graph, "{kind}: the graph as traversed");
    }
}

/// Mutants of every model under `$GIT_RMC_CORPUS` (a folder of public models, say), replayed
/// against a full check; chains of them too. Run with `--ignored`.
#[test]
#[ignore = "needs GIT_RMC_CORPUS: a folder of Promela models"]
fn replays_equal_full_checks_on_a_corpus() {
    let Some(dir) = std::env::var_os("GIT_RMC_CORPUS") else {
        return;
    };
    let files = corpus_files(std::path::Path::new(&dir));
    let mut rng = Rng(0x5eed_0103);
    let (mut compared, mut walked) = (0, 0);
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let name = f.display().to_string();
        let Some(v) = version(&text) else { continue };
        let Some(mut record) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        let mut current = text.clone();
        for step in 0..30 {
            let Some(m) = mutate(&current, &mut rng) else {
                continue;
            };
            let Some(r) = replay_against_full(&format!("{name} #{step}"), &record, &m) else {
                continue;
            };
            compared += 1;
            walked += usize::from(r.stats.states_walked > 0);
            // Every third mutant builds on the last: a chain.
            if step % 3 == 0 {
                if let Some(next) = r.record {
                    record = next;
                    current = m;
                }
            }
        }
    }
    eprintln!("{compared} corpus mutants compared, {walked} walked something");
}

#[test]
fn records_stay_exact_when_most_states_die_and_come_back() {
    // One token instead of two: most recorded states are unreachable (dropped, and the
    // graph renumbered), then the original again from that record, then an edit.
    let v0 = version(RING).expect("ring");
    let opts = Options {
        max_states: Some(2_000_000),
        ..limited()
    };
    let mut record = check_with(&v0, None, Algorithm::Full, &opts)
        .record
        .expect("record");
    let one = RING.replace("tok[0] = 2", "tok[0] = 1");
    let edit = RING.replace("phase = 7;", "phase = phase + 1;");
    for (step, text) in [&one, RING, &edit, &one, &edit].into_iter().enumerate() {
        let v = version(text).expect("parses");
        let rep = check_with(&v, Some(&record), Algorithm::Replay, &opts);
        let full = check_with(&v, Some(&record), Algorithm::Full, &opts);
        assert_same(&format!("ring step {step}"), text, &rep, &full);
        let next = rep.record.expect("replay record");
        assert_eq!(
            next.fingerprints.len() as u64,
            full.stats.states_stored,
            "step {step}: the record holds exactly the reachable states"
        );
        // Dead slots (unreachable states) stay while they are the minority.
        let slots = next.graph.as_ref().map_or(0, |g| g.len() as u64);
        assert!(
            slots >= full.stats.states_stored && slots <= 2 * full.stats.states_stored,
            "step {step}: {slots} slots for {} states",
            full.stats.states_stored
        );
        record = next;
    }
}
