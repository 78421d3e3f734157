//! Replay against full checks (DESIGN.md 5.4, 5.5): on mutants of the project's models and
//! along chains of mutants (each replay reusing the record the previous one wrote), a replay
//! gives exactly a full check's figures, violations, verdicts and trails; `auto` gives a
//! full check's verdicts; and on a cyclic model, replay executes a small part of what
//! pruning executes.

mod common;

use common::rmc::{
    chains_of_ten, change_declaration, check, check_on, check_tuned, check_with, corpus_files,
    corpus_records, dead_variable_removed, each_recorded_pair, gain_variables, limited, mutate,
    resize_channel, retype_local_channel, seed_models, sweep_seed, version, with_dead_variable,
    without_dead_variable, write_beside, Checked, Rng, DECLARATION_KINDS, DECLARATION_KIND_NAMES,
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
    assert_eq!(
        got.executed, full.executed,
        "{name}: edges executed (unreached code)\n{text}"
    );
}

/// A replay of `text` against `base`, compared with a full check; returns the replay.
fn replay_against_full(name: &str, base: &Record, text: &str) -> Option<Checked> {
    replay_and_full(name, base, text).map(|(r, _)| r)
}

/// Options under which a replay across a declaration change walks through the map where
/// statements meet recorded states (the check that the graph holds left out).
fn walking() -> Options {
    Options {
        compare_across_map: false,
        ..limited()
    }
}

/// A replay of `text` against `base`, compared with a full check; returns both. Across a
/// declaration change whose statements meet recorded states, the replay returned is the
/// one that walks through the map (`walking`), and the one that first asks whether the
/// recorded graph holds is compared with the full check too.
fn replay_and_full(name: &str, base: &Record, text: &str) -> Option<(Checked, Checked)> {
    let v = version(text)?;
    let rep = check_with(&v, Some(base), Algorithm::Replay, &walking());
    let full = check(&v, Some(base), Algorithm::Full);
    if full.record.is_none() {
        // A limit or a fatal error: the figures are those of a cut search either way.
        assert_eq!(rep.verdict, full.verdict, "{name}: verdicts differ\n{text}");
        return None;
    }
    assert_same(name, text, &rep, &full);
    let mut reps = vec![(name.to_string(), &rep)];
    let kept;
    if rep.reason.contains("through their projection") {
        kept = check(&v, Some(base), Algorithm::Replay);
        assert_same(&format!("{name} (graph compared)"), text, &kept, &full);
        reps.push((format!("{name} (graph compared)"), &kept));
    }
    for (name, rep) in reps {
        if let (true, Some(a), Some(b)) = (rep.unchanged, &rep.record, &full.record) {
            // The old record under the new sources: it must hold what a recording run does.
            same_states_and_sets(&name, a, b);
        }
    }
    let auto = check(&v, Some(base), Algorithm::Auto);
    assert_eq!(auto.violations, full.violations, "{name}: auto\n{text}");
    assert_eq!(auto.verdict, full.verdict, "{name}: auto verdict\n{text}");
    Some((rep, full))
}

/// `replay_and_full` of a version that completes, the replay's reason naming `because`.
fn replayed_because(what: &str, base: &Record, text: &str, because: &str) -> (Checked, Checked) {
    let (rep, full) = replay_and_full(what, base, text).expect("completes");
    assert!(rep.reason.contains(because), "{what}: {}", rep.reason);
    (rep, full)
}

/// `text` gaining variables (`gain_variables`), the gained global toggled somewhere when
/// `k` is even (and the version says so), and another change when `k % 3 == 1`.
fn gained_version(text: &str, rng: &mut Rng, k: usize) -> Option<(String, bool)> {
    let mut m = gain_variables(text, rng, k)?;
    let mut toggles = false;
    if k.is_multiple_of(2) {
        if let Some(x) = use_gained(&m, rng) {
            m = x;
            toggles = true;
        }
    }
    if k % 3 == 1 {
        m = mutate(&m, rng)?;
    }
    Some((m, toggles))
}

/// Versions made by `make` (a version of the model's text, and whether it is marked) of
/// every seed model, `per_model` tries each, replayed against the seed's record and compared
/// with a full check; the records of those replayed through the projection hold a recording
/// run's states and sets. Returns (compared, replayed through the projection, of those
/// walked something, of those marked, kept the recorded graph with its vectors mapped).
fn projected_sweep(
    rng: &mut Rng,
    per_model: usize,
    label: &str,
    mut make: impl FnMut(&str, &mut Rng, usize) -> Option<(String, bool)>,
) -> (usize, usize, usize, usize, usize) {
    let (mut compared, mut projected, mut walked, mut marked, mut kept) = (0, 0, 0, 0, 0);
    for (name, text) in seed_models(20_000) {
        let Some(v) = version(&text) else { continue };
        let Some(base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        for k in 0..per_model {
            let Some((m, mark)) = make(&text, rng, k) else {
                continue;
            };
            let what = format!("{name} {label} #{k}");
            let Some((rep, full)) = replay_and_full(&what, &base, &m) else {
                continue;
            };
            compared += 1;
            kept += usize::from(rep.unchanged);
            if rep.algorithm == Algorithm::Replay && rep.reason.contains("projection") {
                projected += 1;
                marked += usize::from(mark);
                walked += usize::from(rep.stats.states_walked > 0);
                if let (Some(a), Some(b)) = (&rep.record, &full.record) {
                    same_states_and_sets(&what, a, b);
                }
            }
        }
    }
    eprintln!("{label}: {kept} of {compared} kept the recorded graph (its vectors mapped)");
    (compared, projected, walked, marked, kept)
}

/// One step of a chain: `next` replayed against `record` and compared with a full check;
/// the replay's record (holding a recording run's states and sets) is the next one's base.
fn replayed_step(what: &str, record: &Record, next: &str, _steps: usize) -> Option<Record> {
    let (rep, full) = replay_and_full(what, record, next)?;
    let r = rep.record.clone()?;
    if let Some(b) = &full.record {
        same_states_and_sets(what, &r, b);
    }
    Some(r)
}

/// Two records hold the same states, each with the same reachable locations.
fn same_states_and_sets(name: &str, got: &Record, full: &Record) {
    assert_eq!(got.fingerprints, full.fingerprints, "{name}: states");
    // Element ids are numbered as met: compare the locations as sets.
    let set = |r: &Record, fp: git_rmc::explore::Fingerprint| {
        git_rmc::rmc::check::set_locations(r, fp).map(|mut v| {
            v.sort_unstable_by_key(|l| l.0);
            v
        })
    };
    for fp in full.fingerprints.iter() {
        assert_eq!(
            set(got, *fp),
            set(full, *fp),
            "{name}: the set of state {fp:032x}"
        );
    }
}

/// `text` (which gained variables named `rmc_gained_…`) with a statement that toggles one
/// of them after a random statement of a proctype that can see it: the added variables are
/// then read and written, and their values tell states apart.
fn use_gained(text: &str, rng: &mut Rng) -> Option<String> {
    let ls: Vec<&str> = text.lines().collect();
    let global = ls.iter().find(|l| l.contains("rmc_gained_global"))?;
    let var = if global.contains('[') {
        "rmc_gained_global[1] = !rmc_gained_global[1];"
    } else {
        "rmc_gained_global = 1 - rmc_gained_global;"
    };
    let first_body = ls
        .iter()
        .position(|l| l.contains("proctype") || l.starts_with("init"))?;
    let spots: Vec<usize> = (first_body..ls.len())
        .filter(|&i| ls[i].trim_end().ends_with(';') && !ls[i].contains("rmc_gained"))
        .collect();
    if spots.is_empty() {
        return None;
    }
    let at = spots[rng.below(spots.len())];
    let mut out: Vec<String> = ls.iter().map(|s| s.to_string()).collect();
    out.insert(at + 1, var.to_string());
    Some(out.join("\n") + "\n")
}

/// Mutants of every seed model (at most `max_states` states), each replayed against the
/// seed's record and compared with a full check: (compared, replayed, walked something,
/// found the state graph unchanged).
fn sweep(per_seed: usize, seed: u64, max_states: u64) -> (usize, usize, usize, usize) {
    let mut rng = Rng(seed);
    let (mut compared, mut replayed, mut walked_any, mut unchanged) = (0, 0, 0, 0);
    // The base is read from its file, and every replay's record is written beside it (on
    // it, where it keeps most of it) and read back, as the cache does; every fourth is
    // replayed back to the base's version, through its base, and compared again.
    let dir = tempfile::tempdir().expect("temp dir");
    let (base_path, next_path) = (dir.path().join("base.rec"), dir.path().join("next.rec"));
    for (name, text) in seed_models(max_states) {
        let Some(v) = version(&text) else { continue };
        let Some(base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        write_beside(&base, &base_path);
        let base = Record::read(&base_path).expect("the base reads from its file");
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
                    walked_any += usize::from(r.stats.states_walked > 0 && !r.unchanged);
                    unchanged += usize::from(r.unchanged);
                }
                if let Some(rec) = &r.record {
                    write_beside(rec, &next_path);
                    let back = Record::read(&next_path).expect("reads through its base");
                    assert!(&back == rec, "{name}: the record read back differs\n{m}");
                    if compared % 4 == 0 {
                        replay_against_full(&name, &back, &text);
                    }
                }
            }
        }
    }
    (compared, replayed, walked_any, unchanged)
}

#[test]
fn replays_equal_full_checks_on_mutants() {
    let (compared, replayed, walked_any, unchanged) = sweep(25, 0x5eed_0101, 20_000);
    eprintln!(
        "{compared} mutants compared, {replayed} replayed, {walked_any} walked something, \
         {unchanged} found the graph unchanged"
    );
    assert!(compared >= 200, "only {compared} mutants compared");
    assert!(walked_any >= compared / 4, "replay walked on {walked_any}");
    assert!(unchanged > 0, "no mutant left the state graph unchanged");
}

#[test]
#[ignore = "thousands of mutants: run with --ignored"]
fn replays_equal_full_checks_on_thousands_of_mutants() {
    let (compared, replayed, walked_any, unchanged) = sweep(300, sweep_seed(0x5eed_0104), 100_000);
    eprintln!(
        "{compared} mutants compared, {replayed} replayed, {walked_any} walked something, \
         {unchanged} found the graph unchanged"
    );
    assert!(compared >= 3000, "only {compared} mutants compared");
}

#[test]
fn what_rides_beside_the_search_is_what_rides_inline() {
    // On a machine with a second core, a recording run's recorder and the state graph of a
    // run that reuses a record are built on a second thread: the records (graph, sets and
    // figures) must be those of the same run made inline, for a recording run and for every
    // algorithm reusing a record.
    let mut rng = Rng(0x5eed_0107);
    let (mut compared, mut with_graph) = (0, 0);
    for (name, text) in seed_models(20_000) {
        let Some(v) = version(&text) else { continue };
        let opts = limited();
        let inline = check_on(&v, None, Algorithm::Full, &opts, Some(false));
        let beside = check_on(&v, None, Algorithm::Full, &opts, Some(true));
        let (Some(a), Some(b)) = (&inline.record, &beside.record) else {
            continue;
        };
        assert!(a.to_bytes() == b.to_bytes(), "{name}: recording run");
        for _ in 0..12 {
            let Some(m) = mutate(&text, &mut rng) else {
                continue;
            };
            let Some(mv) = version(&m) else { continue };
            // (The last: a pruning run that gives up looking states up at the first miss.)
            for (alg, eager) in [
                (Algorithm::Prune, false),
                (Algorithm::Replay, false),
                (Algorithm::Full, false),
                (Algorithm::Prune, true),
            ] {
                let tune = |r: &mut git_rmc::rmc::check::Reuse| {
                    if let (git_rmc::rmc::check::Reuse::Prune(p), true) = (r, eager) {
                        p.give_up_after = 1;
                    }
                };
                let inline = check_tuned(&mv, Some(a), alg, &opts, Some(false), tune);
                let beside = check_tuned(&mv, Some(a), alg, &opts, Some(true), tune);
                assert_eq!(
                    inline.stats.spin_figures(),
                    beside.stats.spin_figures(),
                    "{name} {alg:?}\n{m}"
                );
                assert_eq!(inline.violations, beside.violations, "{name} {alg:?}");
                match (&inline.record, &beside.record) {
                    (Some(x), Some(y)) => {
                        assert!(x.to_bytes() == y.to_bytes(), "{name} {alg:?}\n{m}");
                        with_graph += usize::from(x.graph.is_some());
                    }
                    (None, None) => {}
                    _ => panic!("{name} {alg:?}: one run wrote a record, the other not"),
                }
                compared += 1;
            }
        }
    }
    eprintln!("{compared} runs compared, {with_graph} records with a graph");
    assert!(compared >= 200, "only {compared} runs compared");
    assert!(with_graph >= compared * 3 / 4, "{with_graph} graphs");
}

#[test]
fn chains_of_replays_reuse_each_others_records() {
    let mut rng = Rng(0x5eed_0102);
    let (chains, on_base) = chains_of_ten(
        &mut rng,
        60,
        |current, _, rng| mutate(current, rng),
        |what, record, next, steps| {
            // Alternate the algorithms, so that replay builds on pruning's records and
            // the reverse.
            let alg = [Algorithm::Replay, Algorithm::Auto, Algorithm::Prune][steps % 3];
            let nv = version(next)?;
            let got = check(&nv, Some(record), alg);
            let full = check(&nv, Some(record), Algorithm::Full);
            let r = got.record.clone()?;
            full.record.as_ref()?;
            if got.algorithm == Algorithm::Replay {
                assert_same(what, next, &got, &full);
            } else {
                assert_eq!(got.violations, full.violations, "{what}\n{next}");
                assert_eq!(got.verdict, full.verdict, "{what}");
            }
            Some(r)
        },
    );
    assert!(chains >= 5, "only {chains} chains of 10 mutants");
    // Most records stand on the one they reuse (the others change most states, or the
    // layout, or go deeper than a reader goes); each was read back through its bases.
    assert!(on_base >= 20, "{on_base} records written on their base");
}

/// A replay of `new` against a recording run of `old`, compared with a full check.
fn pair(name: &str, old: &str, new: &str) -> Checked {
    let (base, _) = recorded(old, &limited());
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

/// A replay's groups of moves taken from the record, and executed.
fn groups(got: &Checked) -> (u64, u64) {
    (got.stats.groups_replayed, got.stats.groups_executed)
}

/// A recorded state whose footprint meets the change is executed, but only the processes
/// the change can reach: the others' moves are taken from the record. Each case here is one
/// where taking a process's moves from the record would be wrong unless its footprint,
/// its location, a rendezvous or what its statements read keeps it executed, and the
/// figures would then differ from a full check's.
#[test]
fn one_process_is_replayed_while_another_is_executed() {
    // A process's own location changes (what it writes): the other's moves are replayed.
    let old = "byte x, y;
active proctype P() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }
active proctype Q() { do :: y < 3 -> y++ :: y == 3 -> y = 0 od }
";
    let got = pair(
        "own location",
        old,
        &old.replace("y == 3 -> y = 0", "y == 3 -> y = 1"),
    );
    let (replayed, executed) = groups(&got);
    assert!(replayed >= executed && executed > 0, "{:?}", got.stats);

    // A location passed inside another process's atomic sequence changes: that process's
    // group passed it (its footprint has it), the other's is replayed.
    let old = "byte x, y;
active proctype P() { do :: atomic { x < 3 -> x++; y = y } :: x == 3 -> x = 0 od }
active proctype Q() { do :: y < 2 -> y++ :: y == 2 -> y = 0 od }
";
    let got = pair("atomic pass", old, &old.replace("y = y }", "y = 0 }"));
    assert!(groups(&got).0 > 0, "{:?}", got.stats);

    // A rendezvous receive changes what it takes: the sender's group met a rendezvous, so
    // it is executed wherever the receiver's location is dangerous.
    let old = "chan c = [0] of { byte };
byte x;
active proctype S() { do :: c ! 1 -> x = (x + 1) % 3 :: x = (x + 2) % 3 od }
active proctype R() { byte v; do :: c ? 1 -> v = 1 - v od }
";
    pair("rendezvous", old, &old.replace("c ? 1 ->", "c ? 2 ->"));

    // Two senders' rendezvous offers fail in one pass of a recording run, which tells them
    // as one offer, in the second sender's group: the first's group is recorded empty. A
    // receive moved to where the receiver sits makes its send succeed: the first sender
    // must be executed, not skipped as a process with nothing recorded (a public model's
    // mutant found this).
    let old = "mtype = { p, v };
chan S = [0] of { mtype };
byte x;
proctype Watch() { x <= 3 }
proctype Sem() { byte n = 3; do :: n > 0 -> S ? p; n-- :: n == 0 -> S ? v; n++ od }
proctype Client() { do :: S ! p; x++; x--; S ! v od }
init { run Watch(); run Sem(); run Client(); run Client() }
";
    let got = pair(
        "offers told as one",
        old,
        &old.replace("S ? p; n--", "S ? p; S ? p; n--"),
    );
    assert!(groups(&got).0 > 0, "{:?}", got.stats);

    // enabled() reads another process's code: a process whose statements read it is
    // executed wherever a state is.
    let old = "byte x;
active proctype P() { do :: enabled(1) -> x = (x + 1) % 4 :: x == 3 -> x = 0 od }
active proctype Q() { byte z; do :: z < 2 -> z++ :: z == 2 -> z = 0 od }
";
    pair("enabled", old, &old.replace("z < 2 ->", "z < 1 ->"));

    // The first pass may now move nothing where it moved before: the second pass, with
    // timeout true, is executed, not taken from the record.
    let old = "byte x, y;
active proctype P() { do :: x < 2 -> x++ :: timeout -> x = 0 od }
active proctype Q() { do :: x == 2 -> y = 1 - y od }
";
    pair("timeout", old, &old.replace("x == 2 -> y", "x == 3 -> y"));
    // And the other way round: a process that could not move now can.
    let old2 = old.replace("x == 2 -> y", "x == 3 -> y");
    pair("timeout gone", &old2, old);

    // A process created by a move of a replayed-or-not group: its initial location is in
    // the creator's footprint.
    let old = "byte x, n;
proctype C() { x = (x + 1) % 3 }
active proctype P() { do :: n < 2 -> n++; run C() :: n == 2 && _nr_pr == 2 -> n = 0 od }
active proctype Q() { do :: x > 0 -> x-- od }
";
    pair(
        "created",
        old,
        &old.replace("x = (x + 1) % 3", "x = (x + 2) % 3"),
    );
}

#[test]
fn a_process_whose_changed_condition_keeps_its_value_moves_as_recorded() {
    // P's loop condition now differs where x == 2 and y == 1 only: elsewhere every move
    // is as recorded, although P sits at the dangerous location in every state, and the
    // state is walked whole.
    let old = "byte x, y;
active proctype P() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }
active proctype Q() { do :: y < 3 -> y++ :: y == 3 -> y = 0 od }
";
    let got = pair(
        "condition",
        old,
        &old.replace("x < 3 -> x++", "x < 3 && (x != 2 || y != 1) -> x++"),
    );
    let s = &got.stats;
    assert!(
        s.frontier_states > 0 && s.states_walked >= 8 * s.frontier_states,
        "{s:?}"
    );
    // With four P's, in nearly every state one sits at the condition, but in most of them
    // none of the moves change: those are walked (their conditions read). Auto knows what
    // such a state costs, and replays.
    let old = "byte y;
active [4] proctype P() { byte x; do :: x < 2 -> x++ :: x == 2 -> x = 0 od }
active proctype Q() { do :: y < 1 -> y++ :: y == 1 -> y = 0 od }
";
    let (base, _) = recorded(old, &limited());
    let new = old.replace("x < 2 -> x++", "x < 2 && (x != 1 || y != 1) -> x++");
    let got = replay_against_full("four at the condition", &base, &new).expect("complete");
    let auto = check(
        &version(&new).expect("parses"),
        Some(&base),
        Algorithm::Auto,
    );
    assert_eq!(auto.algorithm, Algorithm::Replay, "{}", auto.reason);
    assert_eq!(groups(&auto), groups(&got), "{:?}", auto.stats);
    let s = &got.stats;
    assert!(s.states_walked >= 2 * s.states_executed, "{s:?}");

    // A condition that faults (an index out of range) in one version is executed there.
    let old = "byte a[3], x;
active proctype P() { do :: a[x] == 0 -> x = (x + 1) % 4 :: x == 3 -> x = 0 od }
active proctype Q() { do :: a[0] < 2 -> a[0]++ :: a[0] == 2 -> a[0] = 0 od }
";
    pair(
        "faulting condition",
        old,
        &old.replace("a[x] == 0 ->", "a[x] < 1 ->"),
    );
    pair(
        "condition that now faults",
        old,
        &old.replace("a[x] == 0 ->", "a[x % 4] == 0 ->"),
    );

    // Inside an atomic run the process passes its location again in other states: its
    // moves are executed.
    let old = "byte x, y;
active proctype P() { do :: atomic { x < 3 -> x++; x < 2 -> x++ } :: x >= 2 -> x = 0 od }
active proctype Q() { do :: y < 3 -> y++ :: y == 3 -> y = 0 od }
";
    pair("atomic", old, &old.replace("x < 2 -> x++", "x < 1 -> x++"));

    // The same condition, now entering an atomic sequence: the edge's structure changed,
    // not its value, and the moves differ (no state stored between the two steps).
    let old = "byte x, y;
active proctype P() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }
active proctype Q() { do :: y < 3 -> y++ :: y == 3 -> y = 0 od }
";
    pair(
        "condition made atomic",
        old,
        &old.replace("x < 3 -> x++", "atomic { x < 3 -> x++ }"),
    );

    // An else beside the changed condition keeps its value with it.
    let old = "byte x, y;
active proctype P() { do :: if :: x < 2 -> x++ :: else -> x = 0 fi od }
active proctype Q() { do :: y < 3 -> y++ :: y == 3 -> y = 0 od }
";
    let got = pair(
        "else",
        old,
        &old.replace("x < 2 -> x++", "x < 2 && y != 3 -> x++"),
    );
    let s = &got.stats;
    assert!(
        s.frontier_states > 0 && s.states_walked >= 8 * s.frontier_states,
        "{s:?}"
    );
}

#[test]
fn dead_code_that_widens_pans_state_field_changes_the_state_vector_without_a_walk() {
    // A never executable option takes Count from 16 to 18 states: pan's `_p` grows from 5
    // to 6 bits and its State-vector from 20 to 24 bytes (spin 6.5.2), while every state
    // and move stays as recorded.
    let old = include_str!("models/state_field_width.pml");
    let new = old.replace(
        ":: x < y -> x = x + 1",
        ":: x < y -> x = x + 1\n\t:: false -> x = 7",
    );
    assert_ne!(new, old);
    let base = check(&version(old).expect("loads"), None, Algorithm::Full);
    assert_eq!(base.stats.state_vector_bytes, 20);
    let record = base.record.expect("record");
    let v = version(&new).expect("loads");
    let auto = check(&v, Some(&record), Algorithm::Auto);
    let full = check(&v, Some(&record), Algorithm::Full);
    assert!(auto.unchanged, "{}", auto.reason);
    assert_eq!(full.stats.state_vector_bytes, 24);
    assert_same("dead code", &new, &auto, &full);
}

#[test]
fn a_buffered_send_is_replayed_like_any_move() {
    // Without rendezvous channels, a send's outcome is a function of the state: the
    // sender's moves are taken from the record while the receiver's change is executed.
    let old = "chan c = [1] of { byte };
byte x;
active proctype S() { do :: c ! x od }
active proctype R() { byte v; do :: c ? v -> x = (v + 1) % 3 od }
";
    let got = pair("buffered", old, &old.replace("(v + 1) % 3", "(v + 2) % 3"));
    assert!(got.stats.groups_replayed > 0, "{:?}", got.stats);
    // A rendezvous channel anywhere in the model keeps every sender executed.
    let rv = format!("chan d = [0] of {{ byte }};\n{old}");
    let got = pair(
        "buffered beside a rendezvous channel",
        &rv,
        &rv.replace("(v + 1) % 3", "(v + 2) % 3"),
    );
    assert_eq!(got.stats.groups_replayed, 0, "{:?}", got.stats);
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
fn a_record_read_from_its_file_is_the_record_written_and_replays_the_same() {
    // Large enough to be mapped rather than read (over a megabyte compressed), as a record
    // of a real model is.
    let opts = Options {
        max_states: Some(2_000_000),
        ..limited()
    };
    let ring = RING.replace("% 3", "% 9");
    let v = version(&ring).expect("ring parses");
    let record = check_with(&v, None, Algorithm::Full, &opts)
        .record
        .expect("ring record");
    let bytes = record.to_bytes();
    assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ring.rec");
    std::fs::write(&path, &bytes).expect("write");
    let read = Record::read(&path).expect("the record reads from its file");
    assert_eq!(read, record);
    assert_eq!(read.to_bytes(), bytes, "written again byte for byte");
    assert_eq!(
        Record::from_bytes(&bytes).expect("reads from bytes"),
        record
    );
    // A replay from it, and the record that replay writes (the old graph's bytes shared,
    // the new ones after them), equal a full check's and read back.
    let new = ring.replace("phase = 7;", "phase = 9;");
    let nv = version(&new).expect("mutant parses");
    let replay = check_with(&nv, Some(&read), Algorithm::Replay, &opts);
    let full = check_with(&nv, Some(&read), Algorithm::Full, &opts);
    assert_same("ring from its file", &new, &replay, &full);
    assert!(replay.stats.states_walked > 0, "{:?}", replay.stats);
    let next = replay.record.expect("replay record");
    let again = Record::from_bytes(&next.to_bytes()).expect("the replay's record reads back");
    assert_eq!(again, next);
    // A truncated file is refused with the reason, not mapped past its end.
    std::fs::write(&path, &bytes[..bytes.len() - 100]).expect("write");
    let err = Record::read(&path).expect_err("truncated");
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn a_replays_record_is_written_on_its_base_and_read_back_through_it() {
    let opts = Options {
        max_states: Some(2_000_000),
        ..limited()
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let base_path = dir.path().join("base.rec");
    let v = version(RING).expect("ring parses");
    let record = check_with(&v, None, Algorithm::Full, &opts)
        .record
        .expect("ring record");
    let whole = write_beside(&record, &base_path);
    assert_eq!(
        Record::base_of(&base_path).expect("reads"),
        None,
        "a recording stands alone"
    );
    let base = Record::read(&base_path).expect("base reads");

    // A change that leaves every state where it was: the next record names the few states
    // whose events changed, and stands on the base for the rest.
    let new = RING.replace("phase = 7;", "phase = 9;");
    let nv = version(&new).expect("mutant parses");
    let replay = check_with(&nv, Some(&base), Algorithm::Replay, &opts);
    let next = replay.record.clone().expect("replay record");
    let next_path = dir.path().join("next.rec");
    let written = write_beside(&next, &next_path);
    assert_eq!(
        Record::base_of(&next_path).expect("reads"),
        Some("base.rec".to_string())
    );
    assert!(written * 2 < whole, "{written} bytes on a base of {whole}");
    // Written without a target beside its base, the same record stands alone, and is the
    // same record.
    let alone = Record::from_bytes(&next.to_bytes()).expect("reads alone");
    let read = Record::read(&next_path).expect("reads through its base");
    assert!(
        read == next && alone == next,
        "the record read back differs"
    );

    // Replays from it equal full checks, and so do those from a record two bases deep.
    let third = new.replace("phase = 3;", "phase = 4;");
    let tv = version(&third).expect("mutant parses");
    let r3 = check_with(&tv, Some(&read), Algorithm::Replay, &opts);
    let f3 = check_with(&tv, Some(&read), Algorithm::Full, &opts);
    assert_same("from an overlay", &third, &r3, &f3);
    assert!(r3.stats.states_walked > 0, "{:?}", r3.stats);
    let third_path = dir.path().join("third.rec");
    write_beside(r3.record.as_ref().expect("record"), &third_path);
    assert_eq!(
        Record::base_of(&third_path).expect("reads"),
        Some("next.rec".to_string())
    );
    let deep = Record::read(&third_path).expect("reads through two bases");
    assert!(&deep == r3.record.as_ref().expect("record"));
    let back = RING.to_string();
    let bv = version(&back).expect("parses");
    assert_same(
        "two bases deep",
        &back,
        &check_with(&bv, Some(&deep), Algorithm::Replay, &opts),
        &check_with(&bv, Some(&deep), Algorithm::Full, &opts),
    );

    // A base replaced by another file, or gone, makes the record unusable, with the
    // reason; never another graph.
    let other = check_with(&nv, None, Algorithm::Full, &opts)
        .record
        .expect("record");
    std::fs::write(&base_path, other.to_bytes()).expect("write");
    let err = Record::read(&next_path).expect_err("the base changed");
    assert!(
        err.to_string()
            .contains("its base record base.rec has changed"),
        "{err}"
    );
    let other_bytes = other.to_bytes();
    std::fs::write(&base_path, &other_bytes[..other_bytes.len() / 2]).expect("write");
    let err = Record::read(&next_path).expect_err("the base is cut short");
    assert!(
        err.to_string()
            .contains("its base record base.rec is unusable (the record is truncated)"),
        "{err}"
    );
    std::fs::remove_file(&base_path).expect("remove");
    let err = Record::read(&third_path).expect_err("the base's base is gone");
    assert!(
        err.to_string()
            .contains("its base record base.rec is missing"),
        "{err}"
    );
    // A record written on a base, read without knowing its folder, says so.
    let bytes = std::fs::read(&next_path).expect("read");
    let err = Record::from_bytes(&bytes).expect_err("no folder");
    assert!(
        err.to_string().contains("written on base record base.rec"),
        "{err}"
    );
}

#[test]
fn a_record_that_keeps_little_of_its_base_is_written_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base_path = dir.path().join("base.rec");
    let v = version(RING).expect("ring parses");
    let record = check_with(&v, None, Algorithm::Full, &limited())
        .record
        .expect("ring record");
    write_beside(&record, &base_path);
    let base = Record::read(&base_path).expect("base reads");
    // Every token move changes: no recorded state keeps its events.
    let new = RING.replace(
        "count[i] = (count[i] + 1) % 3",
        "count[i] = (count[i] + 2) % 3",
    );
    let nv = version(&new).expect("mutant parses");
    let got = check_with(&nv, Some(&base), Algorithm::Replay, &limited());
    let path = dir.path().join("next.rec");
    write_beside(got.record.as_ref().expect("record"), &path);
    assert_eq!(Record::base_of(&path).expect("reads"), None);
    assert!(&Record::read(&path).expect("reads") == got.record.as_ref().expect("record"));
    // Written at the base's own path, a record never stands on itself.
    write_beside(&base, &base_path);
    assert_eq!(Record::base_of(&base_path).expect("reads"), None);
    assert!(Record::read(&base_path).expect("reads") == base);
}

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

    // The guard every node waits at changes its words, keeping its value: most states
    // have a node there, but none of their moves change. Auto finds the state graph
    // unchanged: the states at the change show it by the guard's value there (as a replay
    // would take those nodes' moves from the record), nothing is walked, and almost
    // nothing is executed.
    let same = RING.replace("tok[i] > 0 ->", "tok[i] >= 1 ->");
    let sv = version(&same).expect("mutant parses");
    let auto = check_with(&sv, Some(&record), Algorithm::Auto, &opts);
    let full = check_with(&sv, Some(&record), Algorithm::Full, &opts);
    assert!(auto.unchanged, "{}", auto.reason);
    assert!(
        auto.by_conditions * 100 >= auto.stats.states_executed * 99,
        "{} of {} states at the change shown by their conditions",
        auto.by_conditions,
        auto.stats.states_executed
    );
    assert!(
        auto.reason.contains("the state graph is unchanged"),
        "{}",
        auto.reason
    );
    assert_same("same ring", &same, &auto, &full);
    let (a, b) = (auto.record.as_ref(), full.record.as_ref());
    same_states_and_sets("same ring", a.expect("record"), b.expect("record"));

    // Every statement of the monitor changes its words (not its effect): the monitor
    // moves in every state, so prune and replay would both execute every recorded state
    // and the monitor's moves in it, each at more than a full check pays for it. Auto runs
    // a full check, says why, and writes its record.
    let busy = RING.replace("phase = ", "phase = (phase & 0) + ");
    let bv = version(&busy).expect("mutant parses");
    let replay = check_with(&bv, Some(&record), Algorithm::Replay, &opts);
    assert!(
        replay.stats.frontier_states * 10 >= stored * 8,
        "replay executed {} recorded states of {stored}",
        replay.stats.frontier_states
    );
    let auto = check_with(&bv, Some(&record), Algorithm::Auto, &opts);
    let full = check_with(&bv, Some(&record), Algorithm::Full, &opts);
    auto_ran_full_check(
        "busy ring",
        &busy,
        &auto,
        &full,
        "auto: a full check, predicted cheaper",
    );
}

/// The record of a recording run of `text`, and the states it stored.
fn recorded(text: &str, opts: &Options) -> (Record, u64) {
    let base = check_with(&version(text).expect("parses"), None, Algorithm::Full, opts);
    let stored = base.stats.states_stored;
    (base.record.expect("record"), stored)
}

/// A change that leaves the recorded state graph as it was (an assertion that holds
/// wherever it is reached, a value written in other words) is checked by executing the
/// recorded states at the change in both versions and comparing their expansions: nothing
/// is walked, and the figures, the unreached code and the record are a full check's. An
/// assertion that now fails somewhere, or a value that differs, makes the comparison stop
/// and the replay walk as before.
#[test]
fn a_change_that_leaves_the_state_graph_as_it_was_walks_nothing() {
    let opts = Options {
        max_states: Some(2_000_000),
        ..limited()
    };
    let old = RING.replace("phase = 15;", "phase = 15; assert(phase > 14);");
    let (record, stored) = recorded(&old, &opts);
    let run = |text: &str, alg: Algorithm, record: &Record| {
        let v = version(text).expect("mutant parses");
        (
            check_with(&v, Some(record), alg, &opts),
            check_with(&v, Some(record), Algorithm::Full, &opts),
        )
    };

    // The assertion in other words, and a value written in other words: the monitor is at
    // the changed statement in one state in seventeen, and those states are all executed.
    for (name, new) in [
        ("assertion", old.replace("phase > 14", "phase >= 15")),
        (
            "same value",
            old.replace("phase = 7;", "phase = phase + 1;"),
        ),
    ] {
        for alg in [Algorithm::Replay, Algorithm::Auto] {
            let (got, full) = run(&new, alg, &record);
            assert!(got.unchanged, "{name}, {alg:?}: {}", got.reason);
            assert_eq!(got.algorithm, Algorithm::Replay, "{name}");
            assert!(
                got.reason.contains("the state graph is unchanged"),
                "{name}: {}",
                got.reason
            );
            assert_same(name, &new, &got, &full);
            let (a, b) = (got.record.as_ref().expect("record"), full.record.as_ref());
            same_states_and_sets(name, a, b.expect("record"));
            assert_eq!(a.meta.figures, b.expect("record").meta.figures, "{name}");
            let s = &got.stats;
            assert_eq!(s.states_stored, stored, "{name}");
            assert!(
                s.states_executed > 0 && s.states_executed * 10 < stored,
                "{name}: executed {} of {stored}",
                s.states_executed
            );
            assert_eq!(s.states_walked + s.states_executed, stored, "{name}");
            assert_eq!((s.states_reused, s.states_dropped), (stored, 0), "{name}");
            // Not conditions: every state at the change is executed in both versions.
            assert_eq!(got.by_conditions, 0, "{name}");
        }
    }

    // The record written without a search serves the next version: a change that moves
    // states, replayed against it, walks and equals a full check.
    let same = old.replace("phase > 14", "phase >= 15");
    let (got, _) = run(&same, Algorithm::Replay, &record);
    let carried = got.record.expect("record");
    let next = same.replace("phase = 7;", "phase = 17;");
    let (walked, full) = run(&next, Algorithm::Replay, &carried);
    assert!(!walked.unchanged, "{}", walked.reason);
    assert_same("after a carried record", &next, &walked, &full);
    assert!(walked.stats.states_walked > 0);
    same_states_and_sets(
        "after a carried record",
        walked.record.as_ref().expect("record"),
        full.record.as_ref().expect("record"),
    );

    // A state limit the whole search reaches: no shortcut, the check stops there as a full
    // one does.
    let tight = Options {
        max_states: Some(stored),
        ..opts.clone()
    };
    let cut = check_with(
        &version(&same).expect("parses"),
        Some(&record),
        Algorithm::Replay,
        &tight,
    );
    assert!(!cut.unchanged, "{}", cut.reason);
    assert_eq!(cut.verdict, git_rmc::explore::Verdict::Incomplete);

    // An assertion that fails where the monitor reaches it, and a value that differs: the
    // graph changed, the replay walks, and finds what a full check finds.
    for (name, new) in [
        ("failing assertion", old.replace("phase > 14", "phase > 15")),
        (
            "other value",
            old.replace("phase = 7;", "phase = phase + 2;"),
        ),
    ] {
        let (got, full) = run(&new, Algorithm::Replay, &record);
        assert!(!got.unchanged, "{name}: {}", got.reason);
        assert_same(name, &new, &got, &full);
        assert!(got.stats.states_walked > 0, "{name}");
    }
    let (failing, _) = run(
        &old.replace("phase > 14", "phase > 15"),
        Algorithm::Auto,
        &record,
    );
    assert_eq!(failing.verdict, git_rmc::explore::Verdict::Fail);
}

/// A model that fails three ways: two assertions and a process left blocked.
const FAILING: &str = "byte x, y;
chan c = [2] of { byte };
active proctype P() {
	do
	:: x < 5 -> x++; c!x
	:: x == 3 -> assert(y != 2)
	:: x == 4 -> assert(y != 3)
	:: c?y
	:: x == 5 -> break
	od
}
active proctype Q() { c?_; y = 2 }
";

/// A failing version whose state graph is the record's finds the record's violations again
/// along the trails the record kept (the depth-first search's own): nothing walked, and the
/// violations, their messages (the new version's words), trails and figures are a full
/// check's, as is the record it writes, which serves the next version the same way. A
/// record without trails (written before they were kept) replays as before.
#[test]
fn a_failing_version_whose_state_graph_is_unchanged_finds_its_violations_by_their_trails() {
    let opts = limited();
    let (record, stored) = recorded(FAILING, &opts);
    assert!(record.violations.len() >= 4, "{:?}", record.violations);
    assert_eq!(record.trails.len(), record.violations.len());
    let run = |text: &str, alg: Algorithm, record: &Record, opts: &Options| {
        let v = version(text).expect("mutant parses");
        (
            check_with(&v, Some(record), alg, opts),
            check_with(&v, Some(record), Algorithm::Full, opts),
        )
    };
    let words = FAILING.replace("y != 2", "!(y == 2)");
    let gained = FAILING.replace("byte x, y;", "byte x, y;\nint gained = 7;");
    let mut carried = None;
    for (name, new) in [
        ("assertion in other words", &words),
        ("global added", &gained),
    ] {
        for alg in [Algorithm::Replay, Algorithm::Auto] {
            let (got, full) = run(new, alg, &record, &opts);
            assert!(got.unchanged, "{name}, {alg:?}: {}", got.reason);
            assert_eq!(got.verdict, git_rmc::explore::Verdict::Fail, "{name}");
            assert_same(name, new, &got, &full);
            assert_eq!(got.stats.states_stored, stored, "{name}");
            let (a, b) = (got.record.as_ref().expect("record"), full.record.as_ref());
            let b = b.expect("record");
            assert_eq!(a.violations, b.violations, "{name}");
            assert_eq!(a.trails, b.trails, "{name}");
            carried = got.record;
        }
    }
    assert!(
        words.contains("!(y == 2)") && FAILING.contains("assert(y != 2)"),
        "the mutant changes the assertion's words"
    );

    // The record written without a search serves the next version the same way.
    let next = gained.replace("y != 3", "!(y == 3)");
    let (got, full) = run(&next, Algorithm::Auto, &carried.expect("record"), &opts);
    assert!(got.unchanged, "{}", got.reason);
    assert_same("after a carried record", &next, &got, &full);

    // Fewer trails wanted than the record has: kept as a full check keeps them.
    let one = Options {
        max_trails: 1,
        ..opts.clone()
    };
    let (got, full) = run(&words, Algorithm::Replay, &record, &one);
    assert!(got.unchanged, "{}", got.reason);
    assert_same("one trail per kind", &words, &got, &full);
    assert!(
        got.trails.iter().any(|(_, t)| t.is_empty()),
        "{:?}",
        got.trails
    );

    // A limit of errors the search reaches: the search runs, and stops there.
    let few = Options {
        max_errors: Some(2),
        ..opts.clone()
    };
    let (got, full) = run(&words, Algorithm::Replay, &record, &few);
    assert!(!got.unchanged, "{}", got.reason);
    assert_eq!(got.violations, full.violations);

    // A record without trails: the replay walks, as before.
    let mut old = record.clone();
    old.trails.clear();
    let (got, full) = run(&words, Algorithm::Replay, &old, &opts);
    assert!(!got.unchanged, "{}", got.reason);
    assert!(got.stats.states_walked > 0);
    assert_same("no trails kept", &words, &got, &full);
}

/// More distinct violations of a kind than get trails (125 invalid end states, 12 failed
/// assertions, 10 trails each): the record keeps the trails it has and what makes the
/// others again (their pids and places), so a version whose state graph is the record's
/// finds them all without a walk, across a comment and across a layout change alike, with
/// a full check's messages, figures and record. A check that wants more trails than the
/// record has searches.
#[test]
fn violations_reported_without_trails_are_found_again_when_the_graph_is_unchanged() {
    let text = "byte go;
active [3] proctype Stuck() {
	if
	:: true -> go == 1
	:: true -> go == 2
	:: true -> go == 3
	:: true -> go == 4
	:: true -> go == 5
	fi
}
active proctype Checks() {
	if
	:: assert(go == 1) :: assert(go == 2) :: assert(go == 3) :: assert(go == 4)
	:: assert(go == 5) :: assert(go == 6) :: assert(go == 7) :: assert(go == 8)
	:: assert(go == 9) :: assert(go == 10) :: assert(go == 11) :: assert(go == 12)
	fi
}
";
    let opts = limited();
    let (record, stored) = recorded(text, &opts);
    let kinds = end_states_and_assertions(&record);
    assert_eq!(kinds, (125, 12), "{:?}", record.violations.len());
    let without = record.trails.iter().filter(|t| t.is_none()).count();
    assert_eq!(record.trails.len(), record.violations.len());
    assert_eq!(without, 137 - 20, "trails kept for 10 of each kind");
    // Written and read back: the same trails, the missing ones missing.
    let back = Record::from_bytes(&record.to_bytes()).expect("reads back");
    assert_eq!(back.trails, record.trails);
    assert_eq!(back.violations, record.violations);
    let commented = text.replace("byte go;", "byte go; /* the gate */");
    let added = format!("proctype Idle() {{ skip }}\n{text}");
    let retyped = text.replace("byte go;", "int go;");
    for (name, new) in [
        ("a comment", &commented),
        ("a proctype added", &added),
        ("the gate retyped", &retyped),
    ] {
        let v = version(new).expect("parses");
        for alg in [Algorithm::Replay, Algorithm::Auto] {
            let got = check_with(&v, Some(&back), alg, &opts);
            let full = check_with(&v, Some(&back), Algorithm::Full, &opts);
            assert!(got.unchanged, "{name}, {alg:?}: {}", got.reason);
            assert_same(name, new, &got, &full);
            assert_eq!(got.stats.states_stored, stored, "{name}");
            assert_eq!(got.trails, full.trails, "{name}");
            let (a, b) = (got.record.expect("record"), full.record.expect("record"));
            assert_eq!(a.violations, b.violations, "{name}");
            assert_eq!(a.trails, b.trails, "{name}");
        }
    }
    // More trails wanted than the record kept: the check searches for them.
    let more = Options {
        max_trails: 20,
        ..opts.clone()
    };
    let v = version(&commented).expect("parses");
    let got = check_with(&v, Some(&back), Algorithm::Replay, &more);
    let full = check_with(&v, Some(&back), Algorithm::Full, &more);
    assert!(!got.unchanged, "{}", got.reason);
    assert_same("20 trails", &commented, &got, &full);
    assert_eq!(got.trails, full.trails);

    // A kind whose message holds values the record does not keep (an index out of range):
    // past its trails, the check walks.
    let faults = "byte a[2]; byte i;
active proctype F() {
	if
	:: a[i + 2] = 1 :: a[i + 3] = 1 :: a[i + 4] = 1 :: a[i + 5] = 1
	:: a[i + 6] = 1 :: a[i + 7] = 1 :: a[i + 8] = 1 :: a[i + 9] = 1
	:: a[i + 10] = 1 :: a[i + 11] = 1 :: a[i + 12] = 1 :: a[i + 13] = 1
	fi
}
";
    let (record, _) = recorded(faults, &opts);
    assert!(
        record.trails.iter().filter(|t| t.is_none()).count() >= 2,
        "{:?}",
        record.violations
    );
    let commented = faults.replace("byte i;", "byte i; /* the index */");
    let v = version(&commented).expect("parses");
    let got = check_with(&v, Some(&record), Algorithm::Replay, &opts);
    let full = check_with(&v, Some(&record), Algorithm::Full, &opts);
    assert!(!got.unchanged, "{}", got.reason);
    assert_same("index faults", &commented, &got, &full);
}

/// The invalid end states and assertion violations a record holds.
fn end_states_and_assertions(r: &Record) -> (usize, usize) {
    let n = |k: &str| r.violations.iter().filter(|v| v.kind == k).count();
    (n("invalid-end-state"), n("assertion"))
}

/// A version whose layout only gained (a global with its own initial value, a channel,
/// a proctype nobody runs) and whose statements are all as they were: its search is the
/// record's, each state met as its image, so the check takes the record's figures and graph
/// with its vectors mapped, walks nothing, and writes the record a recording run would.
#[test]
fn a_layout_that_only_gains_keeps_the_recorded_graph_without_a_walk() {
    let opts = Options {
        max_states: Some(2_000_000),
        ..limited()
    };
    let (record, stored) = recorded(RING, &opts);
    let gained = RING
        .replace(
            "byte phase;",
            "byte phase;\nshort rmc_gained = -3;\nchan rmc_c = [2] of { byte };",
        )
        .replace(
            "init {",
            "proctype Idle() { byte z = 4; z++; rmc_gained = z }\ninit {",
        );
    let run = |text: &str, alg: Algorithm, record: &Record| {
        let v = version(text).expect("version parses");
        (
            check_with(&v, Some(record), alg, &opts),
            check_with(&v, Some(record), Algorithm::Full, &opts),
        )
    };
    let mut mapped = None;
    for alg in [Algorithm::Replay, Algorithm::Auto] {
        let (got, full) = run(&gained, alg, &record);
        assert!(got.unchanged, "{alg:?}: {}", got.reason);
        assert!(got.reason.contains("its vectors mapped"), "{}", got.reason);
        assert_same("gained", &gained, &got, &full);
        let (a, b) = (got.record.as_ref().expect("record"), full.record.as_ref());
        let b = b.expect("record");
        same_states_and_sets("gained", a, b);
        assert_eq!(a.meta.figures, b.meta.figures);
        assert_eq!(a.meta.layout_hash, b.meta.layout_hash);
        let s = &got.stats;
        assert_eq!(
            (s.states_stored, s.states_walked, s.states_executed),
            (stored, stored, 0)
        );
        // The new layout is wider: pan's vector and this tool's are the new version's.
        assert!(s.vector_bytes > record.meta.figures["vector_bytes"].as_u64().unwrap_or(0));
        mapped = got.record;
    }
    let mapped = mapped.expect("record");

    // The record written without a walk serves the next version: a statement change replays
    // against it and equals a full check, and so does a version that starts using the
    // gained global.
    for (name, next) in [
        (
            "after a mapped record",
            gained.replace("phase = 7;", "phase = 17;"),
        ),
        (
            "using the gained global",
            gained.replace("phase = 7;", "phase = 7; rmc_gained = 1;"),
        ),
    ] {
        let (walked, full) = run(&next, Algorithm::Replay, &mapped);
        assert!(!walked.unchanged, "{name}: {}", walked.reason);
        assert_same(name, &next, &walked, &full);
        assert!(walked.stats.states_walked > 0, "{name}");
        same_states_and_sets(
            name,
            walked.record.as_ref().expect("record"),
            full.record.as_ref().expect("record"),
        );
    }

    // A gained global that a statement writes, or a gained proctype that is run: the graph
    // is not the record's, and the check walks (through the projection) or runs in full.
    for (name, next) in [
        (
            "written",
            gained.replace("phase = 7;", "phase = 7; rmc_gained = 2;"),
        ),
        (
            "run",
            gained.replace("run Mon() }", "run Mon(); run Idle() }"),
        ),
    ] {
        let (got, full) = run(&next, Algorithm::Auto, &record);
        assert!(!got.unchanged, "{name}: {}", got.reason);
        assert_same(name, &next, &got, &full);
    }

    // Every seed model gaining an unused global, an unused local or both (its processes
    // are the same): wherever the graph is kept, its record is a recording run's.
    let mut rng = Rng(0x5eed_0b31);
    let (mut compared, mut kept) = (0, 0);
    for (name, text) in seed_models(20_000) {
        let Some(v) = version(&text) else { continue };
        let Some(base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        for k in [1, 2, 3] {
            let Some(m) = gain_variables(&text, &mut rng, k) else {
                continue;
            };
            let what = format!("{name} gained #{k}");
            let Some((rep, full)) = replay_and_full(&what, &base, &m) else {
                continue;
            };
            compared += 1;
            if rep.unchanged {
                kept += 1;
                assert_eq!(rep.stats.states_executed, 0, "{what}");
                let (a, b) = (rep.record.as_ref(), full.record.as_ref());
                assert_eq!(
                    a.expect("record").meta.figures,
                    b.expect("record").meta.figures,
                    "{what}"
                );
            }
        }
    }
    eprintln!("{compared} versions gaining variables compared, {kept} kept the recorded graph");
    assert!(compared >= 30, "only {compared} compared");
    assert!(
        kept * 3 >= compared,
        "only {kept} of {compared} kept the graph"
    );
}

/// Auto ran a full check, not an incremental one, for the reason starting with `why`: its
/// figures, violations, trails and record are the full check's.
fn auto_ran_full_check(name: &str, text: &str, auto: &Checked, full: &Checked, why: &str) {
    assert_eq!(auto.algorithm, Algorithm::Full, "{name}: {}", auto.reason);
    assert!(!auto.incremental, "{name}");
    assert!(auto.reason.starts_with(why), "{name}: {}", auto.reason);
    assert_same(name, text, auto, full);
    assert_eq!(auto.record, full.record, "{name}: records differ");
}

/// What auto's random walks count (`probe::sample`), on one-process models whose walks are
/// fixed: states inside an atomic sequence are not counted, the state where the process
/// blocks inside one is (the search stores it), a faulting step ends a walk, and a state the
/// record holds is met but not new.
#[test]
fn random_walks_count_the_states_a_search_would_store() {
    let sample = |text: &str, recorded: bool| {
        let v = version(text).expect("parses");
        let m = git_rmc::explore::machine::Machine::new(&v.program).expect("machine");
        git_rmc::rmc::run::probe::sample(&m, 2, 100, |_| recorded).expect("initial state")
    };
    let steps =
        "byte x;\nactive proctype P() {\n\tatomic { x = 1; x = 2 };\n\tx = 3;\n\tx = 4\n}\n";
    let full = check(&version(steps).expect("parses"), None, Algorithm::Full);
    // Every stored state but the initial one, on each of the two walks.
    let per_walk = full.stats.states_stored - 1;
    assert!(per_walk >= 3, "{per_walk}");
    let s = sample(steps, false);
    assert_eq!((s.met, s.new), (2 * per_walk, 2 * per_walk));
    let s = sample(steps, true);
    assert_eq!((s.met, s.new), (2 * per_walk, 0));
    assert_eq!(s.new_share(), 0.0);

    // Blocked after `x = 1`: that state is stored, and nothing moves from it.
    let blocked = "byte x;\nactive proctype P() {\n\tatomic { x = 1; x == 2; x = 3 }\n}\n";
    let s = sample(blocked, false);
    assert_eq!((s.met, s.new), (2, 2));

    // The first step faults (an index out of range): the walk ends there.
    let fault =
        "byte a[2];\nbyte i = 2;\nactive proctype P() {\n\tatomic { a[i] = 1; i = 0 };\n\ti = 1\n}\n";
    let s = sample(fault, false);
    assert_eq!((s.met, s.new), (0, 0));
}

/// The test ring with a global the monitor sets at the start of every pass. `gen = 1`
/// becoming `gen = 2` makes every state after the monitor's first move new, although few
/// recorded states meet the change (the monitor is at the changed statement in one state in
/// seventeen): the record predicts a cheap replay, and the replay stores every state anew.
/// Random walks through the new version see it first, and auto runs a full check.
#[test]
fn auto_runs_a_full_check_when_random_walks_meet_mostly_new_states() {
    let opts = Options {
        max_states: Some(2_000_000),
        ..limited()
    };
    let old = RING
        .replace("byte phase;", "byte phase;\nbyte gen;")
        .replace(":: phase = 1;", ":: gen = 1; phase = 1;");
    let (record, stored) = recorded(&old, &opts);
    assert!(
        stored >= git_rmc::rmc::check::PROBE_MIN_RECORDED,
        "{stored} states"
    );

    let new = old.replace("gen = 1;", "gen = 2;");
    let nv = version(&new).expect("mutant parses");
    let replay = check_with(&nv, Some(&record), Algorithm::Replay, &opts);
    let full = check_with(&nv, Some(&record), Algorithm::Full, &opts);
    assert_same("gen ring", &new, &replay, &full);
    assert!(
        replay.stats.states_executed * 10 >= replay.stats.states_stored * 9,
        "the replay executed {} of {}",
        replay.stats.states_executed,
        replay.stats.states_stored
    );
    let auto = check_with(&nv, Some(&record), Algorithm::Auto, &opts);
    auto_ran_full_check(
        "gen ring, auto",
        &new,
        &auto,
        &full,
        "auto: a full check, predicted cheaper: random walks through the new",
    );

    // The same values in other words: the walks meet no new state, and auto replays.
    let same = old.replace("gen = 1;", "gen = gen * 0 + 1;");
    let sv = version(&same).expect("parses");
    let auto = check_with(&sv, Some(&record), Algorithm::Auto, &opts);
    let full = check_with(&sv, Some(&record), Algorithm::Full, &opts);
    assert_eq!(auto.algorithm, Algorithm::Replay, "{}", auto.reason);
    assert_same("gen ring, same values", &same, &auto, &full);
    assert!(
        auto.stats.states_executed * 5 < auto.stats.states_stored,
        "executed {} of {}",
        auto.stats.states_executed,
        auto.stats.states_stored
    );

    // Across a layout change (a global added beside), states are looked for by their
    // projection: new values still make a full check, the same values a replay.
    for (text, full_check) in [(&new, true), (&same, false)] {
        let text = text.replace("byte gen;", "byte gen;\nbyte beside;");
        let v = version(&text).expect("parses");
        let auto = check_with(&v, Some(&record), Algorithm::Auto, &opts);
        let full = check_with(&v, Some(&record), Algorithm::Full, &opts);
        if full_check {
            auto_ran_full_check(
                "gen ring beside a layout change, auto",
                &text,
                &auto,
                &full,
                "auto: a full check, predicted cheaper: random walks through the new",
            );
        } else {
            assert_eq!(auto.algorithm, Algorithm::Replay, "{}", auto.reason);
            assert!(auto.reason.contains("'beside' added"), "{}", auto.reason);
            assert_same("gen ring beside a layout change", &text, &auto, &full);
        }
    }
}

/// Mutants of every seed model that gain a global, a local or both (the global toggled by a
/// statement added somewhere, every other time; another change, every third time),
/// replayed against the seed's record: each recorded successor is built in the new layout
/// from its recorded vector and the added variables of the state replayed. The replay gives
/// a full check's figures, violations and trails, and its record holds a recording run's
/// states with their sets. Then chains of ten versions, each gaining a global and replayed
/// against the record the previous replay wrote.
#[test]
fn replays_across_a_layout_that_gains_variables_equal_full_checks() {
    let mut rng = Rng(0x5eed_0a21);
    let (compared, projected, walked, toggled, _) =
        projected_sweep(&mut rng, 8, "+vars", |text, rng, k| {
            gained_version(text, rng, k)
        });
    eprintln!(
        "{compared} mutants gaining variables compared, {projected} replayed through the \
         projection ({toggled} toggling the gained global), {walked} walked something"
    );
    assert!(compared >= 100, "only {compared} compared");
    assert!(
        projected * 2 >= compared,
        "{projected} of {compared} projected"
    );
    assert!(toggled >= 30, "only {toggled} toggled the gained global");
    assert!(
        walked * 2 >= projected,
        "{walked} of {projected} walked something"
    );
    let mut gained = 0;
    let (chains, _) = chains_of_ten(
        &mut rng,
        40,
        |current, steps, rng| {
            let lines: Vec<&str> = current.lines().collect();
            let at = (0..lines.len())
                .find(|&i| lines[i].contains("proctype") || lines[i].starts_with("init"))?;
            let mut ls: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            gained += 1;
            ls.insert(
                rng.below(at + 1),
                format!("byte rmc_chain_{gained} = {};", gained % 3),
            );
            let next = ls.join("\n") + "\n";
            if steps % 2 == 1 {
                return Some(mutate(&next, rng).unwrap_or(next));
            }
            Some(next)
        },
        replayed_step,
    );
    assert!(chains >= 5, "only {chains} chains of 10 versions");
}

/// The next version of a chain mixing declaration changes with statement changes: a
/// declaration changed, a statement mutated, or the dead variable added or removed.
fn mixed_step(current: &str, steps: usize, rng: &mut Rng) -> Option<String> {
    match (steps + rng.below(3)) % 3 {
        0 => {
            let kind = rng.below(DECLARATION_KINDS);
            change_declaration(current, rng, kind)
        }
        1 => mutate(current, rng),
        _ if current.contains("rmc_dead") => Some(without_dead_variable(current)),
        _ => with_dead_variable(current, rng),
    }
}

/// Declaration mutants of every seed model (a variable retyped wider or narrower, an array
/// resized, a proctype added, globals reordered, a channel's field retyped, an mtype name
/// added, a global or a local channel added; another change every third time), replayed
/// against the seed's record through the map between the two layouts: a full check's
/// figures, violations and trails, and a recording run's states and sets in the record.
/// Then versions that remove a variable statements wrote and none read (and so drop its
/// bytes: several recorded states stand for one new state), replayed against the record of
/// the version that had it, and the same for a proctype, a global channel and a local
/// channel removed. Then chains of ten versions mixing all of these with statement mutants.
#[test]
fn replays_across_declaration_changes_equal_full_checks() {
    let mut rng = Rng(0x5eed_0d3c);
    let mut by_kind = [(0usize, 0usize); DECLARATION_KINDS];
    let (compared, projected, walked, _, kept) = projected_sweep(
        &mut rng,
        2 * DECLARATION_KINDS,
        "declaration",
        |text, rng, k| {
            let m = change_declaration(text, rng, k)?;
            let m = if k % 3 == 1 { mutate(&m, rng)? } else { m };
            let kind = k % DECLARATION_KINDS;
            // (Counted when the version loads; `projected_sweep` counts the rest.)
            if version(&m).is_some() {
                by_kind[kind].0 += 1;
            }
            Some((m, false))
        },
    );
    eprintln!(
        "{compared} declaration mutants compared, {projected} replayed through the map, \
         {walked} walked something"
    );
    for (k, (n, _)) in by_kind.iter().enumerate() {
        eprintln!("  {}: {n}", DECLARATION_KIND_NAMES[k]);
    }
    assert!(compared >= 150, "only {compared} compared");
    // Nine in ten run through the map, replayed or keeping the graph (376 of 388 when this
    // was written; a constant written to a retyped variable both types hold moved 11 from
    // the first to the second; with local channels added, 287 + 355 of 665), and the replay
    // through the map is exercised on a third.
    assert!(
        (projected + kept) * 10 >= compared * 9,
        "{projected} of {compared} replayed through the map, {kept} kept the graph"
    );
    assert!(
        projected * 3 >= compared,
        "{projected} of {compared} replayed through the map"
    );
    assert!(walked * 2 >= projected, "{walked} of {projected} walked");
    // A declaration that no statement names (retyped, resized, added) changes nothing
    // reachable: the recorded graph is kept, its vectors mapped (and equal a full check's).
    assert!(
        kept * 5 >= compared,
        "only {kept} of {compared} kept the graph"
    );
    // Removed variables: the record is the version's that had it.
    let (mut removed, mut removed_projected, mut removed_kept) = (0, 0, 0);
    each_recorded_pair(&mut rng, 3, dead_variable_removed, |what, base, gone| {
        let what = format!("{what} variable removed");
        let Some((rep, full)) = replay_and_full(&what, base, gone) else {
            return;
        };
        removed += 1;
        removed_kept += usize::from(rep.unchanged);
        if rep.algorithm == Algorithm::Replay && rep.reason.contains("removed") {
            removed_projected += 1;
            if let (Some(a), Some(b)) = (&rep.record, &full.record) {
                same_states_and_sets(&what, a, b);
            }
        }
    });
    // A proctype removed (one added before the others, so that the others' tags move
    // back), a global channel removed (one added before the others, so that their numbers
    // move back), a local channel removed (so that the channels its processes create after
    // it, and every later channel, are numbered one less): each against the record of the
    // version that had it.
    let procs_removed = removed_again(&mut rng, 3, 2, "proctype RmcAdded removed");
    eprintln!("{procs_removed} proctype removals replayed through the map");
    let chans_removed = removed_again(&mut rng, 9, 2, "channel 'rmc_c' removed");
    eprintln!("{chans_removed} global channel removals replayed through the map");
    let locals_removed = removed_again(&mut rng, 10, 4, "fewer");
    eprintln!("{locals_removed} local channel removals replayed through the map");
    assert!(
        locals_removed >= 30,
        "only {locals_removed} local channel removals replayed"
    );
    assert!(
        chans_removed >= 30,
        "only {chans_removed} channel removals replayed"
    );
    assert!(
        procs_removed >= 40,
        "only {procs_removed} proctype removals replayed"
    );
    eprintln!(
        "{removed} removals compared, {removed_projected} replayed through the map, \
         {removed_kept} of them keeping the recorded graph"
    );

    assert!(removed >= 60, "only {removed} removals compared");
    assert!(
        removed_projected * 3 >= removed * 2,
        "{removed_projected} of {removed} removals replayed"
    );
    let (chains, _) = chains_of_ten(&mut rng, 40, mixed_step, replayed_step);
    assert!(chains >= 8, "only {chains} chains of 10 versions");
}

/// Versions of every seed model with a declaration of `kind` (`change_declaration`, each
/// of `per_model` rounds) recorded, checked without it again (and, the second round,
/// with a statement mutated): replays equal to full checks. Returns how many replayed
/// through the map with a reason that `says`.
fn removed_again(rng: &mut Rng, kind: usize, per_model: usize, says: &str) -> usize {
    let mut replayed = 0;
    let make = |text: &str, rng: &mut Rng, k: usize| {
        let with = change_declaration(text, rng, kind + k * DECLARATION_KINDS)?;
        let gone = match k {
            1 => mutate(text, rng).unwrap_or_else(|| text.to_string()),
            _ => text.to_string(),
        };
        Some((with, gone))
    };
    each_recorded_pair(rng, per_model, make, |what, base, gone| {
        let what = format!("{what} removed again");
        if let Some((rep, _)) = replay_and_full(&what, base, gone) {
            replayed +=
                usize::from(rep.algorithm == Algorithm::Replay && rep.reason.contains(says));
        }
    });
    replayed
}

/// A typedef's fields added, retyped or reordered: every variable of that type maps field
/// by field (by name), and replay equals a full check.
#[test]
fn replays_across_typedef_changes_equal_full_checks() {
    let mut rng = Rng(0x5eed_7d3f);
    let (mut compared, mut mapped) = (0, 0);
    for (name, text) in seed_models(20_000) {
        if !text.contains("typedef") {
            continue;
        }
        let Some(v) = version(&text) else { continue };
        let Some(base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        let mut versions: Vec<String> = [8, 8 + DECLARATION_KINDS]
            .into_iter()
            .filter_map(|k| change_declaration(&text, &mut rng, k))
            .collect();
        // Two fields of a typedef swap places (the same bytes, other names).
        if let Some(t) = text
            .lines()
            .find(|l| l.starts_with("typedef") && l.contains(';'))
        {
            let open = t.find('{').map_or(0, |i| i + 1);
            let close = t.rfind('}').unwrap_or(t.len());
            let fields: Vec<&str> = t[open..close].split(';').map(str::trim).collect();
            if fields.len() >= 2 {
                let (head, tail) = (&t[..open], &t[close..]);
                let swapped = format!("{head} {}; {} {tail}", fields[1], fields[0]);
                versions.push(text.replacen(t, &swapped, 1));
            }
        }
        for m in versions {
            let what = format!("{name} typedef changed");
            if let Some((rep, _)) = replay_and_full(&what, &base, &m) {
                compared += 1;
                mapped += usize::from(
                    rep.algorithm == Algorithm::Replay && rep.reason.contains("fields changed"),
                );
            }
        }
    }
    eprintln!("{compared} typedef changes compared, {mapped} replayed through the map");
    assert!(compared >= 8, "only {compared} compared");
    assert!(mapped >= 4, "only {mapped} replayed through the map");
}

#[test]
#[ignore = "thousands of declaration mutants: run with --ignored"]
fn replays_across_thousands_of_declaration_changes_equal_full_checks() {
    let mut rng = Rng(sweep_seed(0x5eed_0d3d));
    let (compared, projected, _, _, _) = projected_sweep(
        &mut rng,
        20 * DECLARATION_KINDS,
        "declaration",
        |text, rng, k| {
            let m = change_declaration(text, rng, k)?;
            let m = if k % 3 == 1 { mutate(&m, rng)? } else { m };
            Some((m, false))
        },
    );
    eprintln!("{compared} declaration mutants compared, {projected} replayed through the map");
    assert!(compared >= 1500, "only {compared} compared");
    let (chains, _) = chains_of_ten(&mut rng, 400, mixed_step, replayed_step);
    assert!(chains >= 30, "only {chains} chains of 10 versions");
}

/// Mutants of every seed model whose global channel changes capacity (rendezvous to
/// buffered, one slot more or less; another change every third time), replayed against the
/// seed's record: the operations that may reach the channel are dangerous, and its
/// contents travel with each state as added variables do. The replay gives a full check's
/// figures, violations and trails, and its record a recording run's states and sets. Then
/// chains of ten versions, each resizing a channel, replayed against the previous record.
#[test]
fn replays_across_a_changed_channel_capacity_equal_full_checks() {
    let mut rng = Rng(0x5eed_0c4a);
    let (compared, projected, walked, _, _) =
        projected_sweep(&mut rng, 6, "resized", |text, rng, k| {
            let m = resize_channel(text, rng, k)?;
            let m = if k % 3 == 1 { mutate(&m, rng)? } else { m };
            Some((m, false))
        });
    eprintln!(
        "{compared} mutants resizing a channel compared, {projected} replayed through the \
         projection, {walked} walked something"
    );
    assert!(compared >= 60, "only {compared} compared");
    assert!(
        projected * 3 >= compared * 2,
        "{projected} of {compared} projected"
    );
    assert!(
        walked * 3 >= projected,
        "{walked} of {projected} walked something"
    );
    let (chains, _) = chains_of_ten(
        &mut rng,
        40,
        |current, steps, rng| {
            let next = resize_channel(current, rng, steps)?;
            if steps % 3 == 2 {
                return Some(mutate(&next, rng).unwrap_or(next));
            }
            Some(next)
        },
        replayed_step,
    );
    assert!(chains >= 3, "only {chains} chains of 10 versions");
}

/// Models whose processes declare channels of their own: a reply channel sent to a server
/// in a message, a buffer a process fills and drains, an array of channels and one a
/// process hands to another it runs.
const LOCAL_CHANNEL_MODELS: [&str; 3] = [
    "mtype = { req, ack };
chan server = [2] of { mtype, chan };
byte served;
proctype Client(byte id) {
    chan reply = [1] of { mtype };
    byte n;
    do
    :: n < 2 -> server!req, reply; reply?ack; n++
    :: n == 2 -> break
    od
}
active proctype Server() {
    chan r;
end: do
    :: server?req, r -> r!ack; served++
    od
}
init { atomic { run Client(1); run Client(2) } }
",
    "byte total;
proctype Stage(byte k) {
    chan buf = [2] of { byte };
    byte i, x;
    do
    :: i < 3 -> buf!i; i++
    :: buf?x -> total = total + x
    :: i == 3 && empty(buf) -> break
    od;
    assert(total < 10)
}
active proctype Watch() {
    do
    :: total > 4 -> total = 0
    :: total == 2 -> break
    od
}
init { run Stage(1); run Stage(2) }
",
    "byte got;
proctype Echo(chan d) {
    bit b;
end: do
    :: d?b -> got = (got + b + 1) % 5
    od
}
proctype P() {
    chan c[2] = [0] of { bit };
    chan d = [1] of { bit };
    run Echo(d);
    do
    :: d!1
    :: got > 2 -> break
    :: c[0]!0
    od
}
active proctype Q() { byte y; do :: y < 3 -> y++ :: y >= 3 -> break od }
init { run P() }
",
];

/// A local channel declaration retyped (capacity up or down, a field wider), alone or with
/// a statement changed: the operations that may reach its channels are dangerous (through
/// the copies of its id too), a `run` of its proctype is, and its contents travel with each
/// state as a changed global channel's do. The replay gives a full check's figures,
/// violations and trails, and the record it writes serves the next version: chains of ten
/// versions mixing retyped local channels and changed statements.
#[test]
fn replays_across_a_retyped_local_channel_equal_full_checks() {
    let mut rng = Rng(sweep_seed(0x10ca_1c4a));
    let (mut compared, mut mapped, mut walked) = (0, 0, 0);
    for (mi, text) in LOCAL_CHANNEL_MODELS.iter().enumerate() {
        let (base, _) = recorded(text, &limited());
        for k in 0..16 {
            let Some(m) = retype_local_channel(text, &mut rng, k) else {
                continue;
            };
            let m = if k % 4 == 3 {
                mutate(&m, &mut rng).unwrap_or(m)
            } else {
                m
            };
            let what = format!("local channel model {mi} #{k}");
            let Some((rep, _)) = replay_and_full(&what, &base, &m) else {
                continue;
            };
            compared += 1;
            if rep.reason.contains("local channel '") {
                mapped += 1;
                walked += usize::from(rep.stats.states_walked > 0);
            }
            let v = version(&m).expect("loads");
            let prune = check(&v, Some(&base), Algorithm::Prune);
            let full = check(&v, Some(&base), Algorithm::Full);
            assert_eq!(prune.violations, full.violations, "{what}: prune\n{m}");
            assert_eq!(prune.verdict, full.verdict, "{what}: prune verdict\n{m}");
        }
        // A chain of ten versions, each replayed on the record of the one before.
        let (mut record, mut current, mut steps) = (base, text.to_string(), 0);
        for k in 0..60 {
            if steps == 10 {
                break;
            }
            let next = match k % 2 {
                0 => retype_local_channel(&current, &mut rng, k / 2),
                _ => mutate(&current, &mut rng),
            };
            let Some(next) = next else { continue };
            let what = format!("local channel model {mi}, chain step {steps}");
            if let Some(r) = replayed_step(&what, &record, &next, steps) {
                record = r;
                current = next;
                steps += 1;
            }
        }
        assert_eq!(steps, 10, "model {mi}: a chain of ten versions");
    }
    eprintln!(
        "{compared} retyped local channels compared, {mapped} mapped, {walked} of them walked \
         something"
    );
    assert!(compared >= 30, "only {compared} compared");
    assert!(mapped * 2 >= compared, "{mapped} of {compared} mapped");
    assert!(
        walked * 2 >= mapped,
        "{walked} of {mapped} walked something"
    );
}

/// A channel whose id travels: passed to a process by `run`, copied into a variable, sent
/// in a message and received into another. When its capacity changes, every operation
/// through any of those names is dangerous, the operations on the other channel are not,
/// and replay and pruning equal a full check.
#[test]
fn operations_through_a_copied_channel_id_are_dangerous_when_its_capacity_changes() {
    let v1 = "chan work = [0] of { byte };
chan other = [1] of { byte };
chan handoff = [1] of { chan };
byte got, seen;
proctype Producer(chan out) {
	byte i;
	do
	:: i < 3 -> out!i; i++
	:: i == 3 -> break
	od
}
proctype Relay() {
	chan c;
	handoff?c;
	c?got
}
active proctype Side() {
	byte n;
	do
	:: n < 4 -> other!n; other?seen; n++
	:: n == 4 -> break
	od
}
init {
	chan w = work;
	handoff!w;
	run Relay();
	run Producer(work);
	w?got;
	w?got;
	assert(len(work) == 0)
}
";
    let (base, _) = recorded(v1, &limited());
    for cap in ["1", "2", "3"] {
        let text = v1.replace("chan work = [0]", &format!("chan work = [{cap}]"));
        let v = version(&text).expect("loads");
        let impact = git_rmc::rmc::analyze(&base_program(v1), &v.program, base.ids.next_free);
        let reasons: Vec<(String, String)> = impact
            .dangerous
            .values()
            .map(|d| (d.proc.clone(), d.reason.clone()))
            .collect();
        let by = |p: &str| reasons.iter().filter(|(q, _)| q == p).count();
        // `out!i` in Producer, `c?got` in Relay, the two `w?got` and the `len` in init.
        assert_eq!(by("Producer"), 1, "{reasons:?}");
        assert_eq!(by("Relay"), 1, "{reasons:?}");
        assert_eq!(by(":init:"), 3, "{reasons:?}");
        assert_eq!(by("Side"), 0, "{reasons:?}");
        let (rep, _) = replay_and_full(&format!("work [{cap}]"), &base, &text).expect("complete");
        assert!(rep.reason.contains("channel 'work'"), "{}", rep.reason);
        assert!(rep.stats.states_walked > 0, "{}", rep.reason);
        let prune = check(&v, Some(&base), Algorithm::Prune);
        let full = check(&v, Some(&base), Algorithm::Full);
        assert_eq!(prune.violations, full.violations, "work [{cap}]");
        assert_eq!(prune.verdict, full.verdict, "work [{cap}]");
    }
}

/// The program of a model, numbered as a recording run numbers it.
fn base_program(text: &str) -> git_rmc::program::Program {
    version(text).expect("loads").program
}

/// A cyclic model gains a global that one statement of one process toggles: the replay
/// walks the recorded graph for both values of the new global and executes only the states
/// at the changed statement and what they lead to first; its figures are a full check's.
#[test]
fn a_cyclic_model_that_gains_a_global_is_replayed_through_the_projection() {
    let v1 = "byte x; byte y; byte z; chan c = [1] of { byte };
active proctype A() { do :: x < 10 -> x++ :: x == 10 -> x = 0 od }
active proctype B() { do :: y < 10 -> y++ :: y == 10 -> y = 0 od }
active proctype C() { do :: z < 10 -> z++ :: z == 10 -> z = 0 od }
active proctype D() { do :: c!1 :: c?_ od }
";
    let (base, _) = recorded(v1, &limited());
    let v2 = v1
        .replace("byte x; byte y;", "byte x; bool flip; byte y;")
        .replace("y == 10 -> y = 0", "y == 10 -> flip = !flip; y = 0");
    let (rep, full) = replay_and_full("cyclic +flip", &base, &v2).expect("complete");
    assert_eq!(rep.algorithm, Algorithm::Replay, "{}", rep.reason);
    assert!(rep.reason.contains("'flip'"), "{}", rep.reason);
    let stored = rep.stats.states_stored;
    assert!(stored >= 10_000, "{stored} states");
    assert!(
        rep.stats.states_executed * 10 < stored,
        "replay executed {} of {stored}",
        rep.stats.states_executed
    );
    // Recorded states at the changed statement are executed (the frontier), for both
    // values of the new global.
    let frontier = rep.stats.frontier_states;
    assert!(
        frontier > 0 && frontier <= rep.stats.states_executed,
        "{frontier} recorded states executed"
    );
    // Of those, A's, C's and D's moves come from the record (B's are at the change; D's
    // sends are on a buffered channel, a function of the state): three groups replayed
    // for each executed.
    let (replayed, executed) = groups(&rep);
    assert!(
        executed > 0 && replayed == 3 * executed,
        "groups replayed {replayed}, executed {executed}"
    );
    same_states_and_sets(
        "cyclic +flip",
        rep.record.as_ref().expect("a record"),
        full.record.as_ref().expect("a record"),
    );
    let auto = check(&version(&v2).expect("parses"), Some(&base), Algorithm::Auto);
    assert_eq!(auto.algorithm, Algorithm::Replay, "{}", auto.reason);
}

/// A global retyped, wider and narrower: its values carry over where the other type holds
/// them, so the statements that only read it are the same statements; the ones that write
/// it a value the other type may truncate are dangerous, and only they: not a constant both
/// types hold (`x = 0`), which leaves a state and its image the same value. Narrower, the
/// recorded states whose value the new type cannot hold have no image (and the new
/// version's wrap-around is executed): replay equals a full check either way.
#[test]
fn a_retyped_variable_is_dangerous_where_it_is_written_not_where_it_is_read() {
    let v1 = "short x; byte y; byte z;
active proctype W() { do :: x < 300 -> skip; skip; skip; x++ :: x >= 300 -> x = 256; x = 0 od }
active proctype R() { do :: x > 100 -> y = (y + 1) % 4 :: x <= 100 -> y = 0 od }
active proctype S() { do :: z < 5 && x != 7 -> z++ :: z == 5 -> z = 0 od }
";
    let (base, _) = recorded(v1, &limited());
    // `x++`; and `x = 256` where the new type cannot hold 256. Not `x = 0`, nor the three
    // guards that read it.
    for (ty, dangerous) in [("int", 1), ("byte", 2)] {
        let v2 = v1.replace("short x;", &format!("{ty} x;"));
        let what = format!("x retyped {ty}");
        let full = replayed_through_the_map(&what, &base, &v2, dangerous);
        assert!(
            full.stats.states_stored >= 10_000,
            "{what}: {:?}",
            full.stats
        );
    }
}

/// Across a declaration change whose statements meet recorded states, an incremental check
/// first asks whether the recorded graph holds, executing those states in both versions:
/// `x` retyped wider, whose writes stay in both types' range, keeps the graph (its vectors
/// mapped, the states at the change counted executed, nothing walked); narrowed to a byte
/// (256 no longer fits), the graph changes and the replay walks through the map. Each
/// equals a full check.
#[test]
fn a_declaration_change_whose_statements_keep_their_effect_keeps_the_graph() {
    let v1 = "short x; byte y;
active proctype W() {
	byte t;
	do
	:: x < 300 -> t = 1; t = 2; t = 3; t = 4; t = 5; t = 6; t = 7; t = 8; t = 0; x++
	:: x >= 300 -> x = 256; x = 0
	od
}
active proctype R() { do :: x > 100 -> y = (y + 1) % 4 :: x <= 100 -> y = 0 od }
";
    let (base, stored) = recorded(v1, &limited());
    assert_eq!(stored, 39_636);
    for (ty, keeps) in [("int", true), ("byte", false)] {
        let v2 = v1.replace("short x;", &format!("{ty} x;"));
        let what = format!("x retyped {ty}");
        let v = version(&v2).expect("loads");
        let full = check(&v, Some(&base), Algorithm::Full);
        let rep = check(&v, Some(&base), Algorithm::Replay);
        assert_same(&what, &v2, &rep, &full);
        assert_eq!(rep.unchanged, keeps, "{what}: {}", rep.reason);
        if keeps {
            assert!(
                rep.reason.contains("expand as they did"),
                "{what}: {}",
                rep.reason
            );
            // The states with W at `x++`: 300 values of `x` times R's 12.
            let executed = rep.stats.states_executed;
            assert_eq!(executed, 3_600, "{what}");
            assert_eq!(rep.stats.states_walked, stored - executed, "{what}");
            same_states_and_sets(
                &what,
                rep.record.as_ref().expect("a record"),
                full.record.as_ref().expect("a record"),
            );
        } else {
            assert!(
                rep.reason.contains("through their projection"),
                "{what}: {}",
                rep.reason
            );
        }
    }
}

/// `text` replayed against `base` through the map between their layouts, with `dangerous`
/// dangerous locations, executing under half of the states, equal to a full check (the
/// record's states and sets too). Returns the full check.
fn replayed_through_the_map(what: &str, base: &Record, text: &str, dangerous: usize) -> Checked {
    replayed_through_the_map_with(what, base, text, dangerous).0
}

/// As `replayed_through_the_map`, with the replay too.
fn replayed_through_the_map_with(
    what: &str,
    base: &Record,
    text: &str,
    dangerous: usize,
) -> (Checked, Checked) {
    let (rep, full) = replayed_because(what, base, text, "through their projection");
    assert_eq!(rep.algorithm, Algorithm::Replay, "{what}: {}", rep.reason);
    assert_eq!(rep.dangerous, dangerous, "{what}: {}", rep.reason);
    assert!(
        rep.stats.states_executed * 2 < full.stats.states_stored,
        "{what}: executed {} of {}",
        rep.stats.states_executed,
        full.stats.states_stored
    );
    same_states_and_sets(
        what,
        rep.record.as_ref().expect("a record"),
        full.record.as_ref().expect("a record"),
    );
    (full, rep)
}

/// An array resized, grown and shrunk: the statements that name only elements both versions
/// have by constant indices are the same statements; the one that indexes it by a variable
/// is dangerous (an index past one length and within the other reads in one version and
/// faults in the other: shrunk, the new version faults where the old one wrote). Replay
/// equals a full check either way; a process at that statement whose index lies below
/// both lengths moves as recorded (grown: every time; shrunk to 2: at `i == 1`, not at
/// `i == 2`).
#[test]
fn a_resized_array_is_dangerous_where_an_index_may_reach_past_either_length() {
    let v1 = "byte a[3]; byte i;
active proctype P() { do :: a[0] < 5 -> a[0]++ :: a[0] == 5 -> a[0] = 0 od }
active proctype Q() { do :: a[1] < 7 -> skip; a[1]++ :: a[1] == 7 -> a[1] = 0 od }
active proctype R() { do :: i < 2 -> i++; a[i] = a[0] :: i == 2 -> i = 0 od }
";
    let (base, stored) = recorded(v1, &limited());
    assert_eq!(stored, 16_704);
    // Groups replayed and executed: grown, every executed state's three processes' moves
    // come from the record.
    for (len, states, errors, moves) in [(4, 16_704, 0, (12_528, 0)), (2, 1_872, 1, (1_524, 348))] {
        let v2 = v1.replace("byte a[3];", &format!("byte a[{len}];"));
        let what = format!("a resized to {len}");
        // `a[i] = a[0]` alone.
        let (full, rep) = replayed_through_the_map_with(&what, &base, &v2, 1);
        assert_eq!(full.stats.states_stored, states, "{what}");
        assert_eq!(full.violations.len(), errors, "{what}");
        assert_eq!(groups(&rep), moves, "{what}");
        if len == 4 {
            assert_eq!(moves.0, 3 * rep.stats.states_executed, "{what}");
        }
    }
}

/// Local channels added, removed or declared in another order: a process creates its
/// channels with itself, so one declared in a proctype renumbers every channel created
/// after it, state by state (how many such processes a state holds, and where). A replay
/// meets recorded states through that renumbering: the workers' channels, the spawner's,
/// init's, before and after the processes that change, with an assertion violated at the
/// end. Each replay equals a full check (figures, violations, trails, and a recording
/// run's states and sets), in both directions.
#[test]
fn local_channels_added_or_removed_renumber_the_channels_created_after_them() {
    let v1 = "byte done;
proctype Worker(byte id) {
	chan reply = [1] of { byte };
	chan scratch = [2] of { byte };
	byte v;
	scratch!id;
	scratch?v;
	reply!v;
	reply?v;
	done++
}
proctype Spawner() {
	byte n;
	chan mine = [1] of { byte };
	do
	:: n < 2 -> run Worker(n); n++
	:: n >= 2 -> mine!n; break
	od
}
init {
	chan first = [2] of { byte };
	run Spawner();
	first!1;
	run Worker(7);
	first?_;
	(done == 3);
	assert(done < 3)
}
";
    let (base, stored) = recorded(v1, &limited());
    let versions = [
        (
            "a channel array added first in Worker",
            v1.replace(
                "\tchan reply = [1] of { byte };",
                "\tchan extra[2] = [1] of { bit };\n\tchan reply = [1] of { byte };",
            ),
            "2 channels more",
        ),
        (
            "a channel added after Worker's own",
            v1.replace("\tbyte v;", "\tchan late = [0] of { byte };\n\tbyte v;"),
            "1 channel more",
        ),
        (
            "Worker's channels declared in the other order",
            v1.replace(
                "\tchan reply = [1] of { byte };\n\tchan scratch = [2] of { byte };",
                "\tchan scratch = [2] of { byte };\n\tchan reply = [1] of { byte };",
            ),
            "create their channels in another order",
        ),
        (
            "Worker's scratch channel removed",
            v1.replace("\tchan scratch = [2] of { byte };\n", "")
                .replace("\tscratch!id;\n\tscratch?v;\n", "\tv = id;\n"),
            "1 channel fewer",
        ),
        (
            "Spawner's channel removed",
            v1.replace("\tchan mine = [1] of { byte };\n", "")
                .replace("mine!n; break", "break"),
            "1 channel fewer",
        ),
    ];
    assert_eq!(stored, 7_870);
    for (k, (what, v2, change)) in versions.iter().enumerate() {
        let (back, _) = recorded(v2, &limited());
        let undone = format!("{what}, undone");
        if k < 3 {
            // Nothing but the three `run Worker` (whose processes differ) is dangerous.
            let full = replayed_through_the_map(what, &base, v2, 3);
            assert_eq!(full.violations.len(), 1, "{what}");
            replayed_through_the_map(&undone, &back, v1, 3);
        } else {
            // The statements on the removed channel too (replaced: 2 locations more, and
            // 1 back).
            let both: [(&str, &Record, &str, usize); 2] =
                [(what, &base, v2, 5), (&undone, &back, v1, 4)];
            for (what, base, text, dangerous) in both {
                let (rep, full) = replayed_because(what, base, text, "through their projection");
                assert_eq!(rep.dangerous, dangerous, "{what}: {}", rep.reason);
                assert!(rep.stats.states_walked > 0, "{what}");
                assert_eq!(full.violations.len(), 1, "{what}");
            }
        }
        let rep = check(&version(v2).expect("loads"), Some(&base), Algorithm::Replay);
        assert!(rep.reason.contains(change), "{what}: {}", rep.reason);
    }
}

/// Channels passed in messages (a reply channel sent with each request): where global
/// channels are added or removed, every channel created after them is renumbered, and so is
/// each handle a message holds. Sending or receiving a handle is dangerous (a handle used as
/// a value); a state whose request channel holds handles is walked with them renumbered.
/// Each replay, both ways, equals a full check. Where a process's own channels change,
/// nothing maps.
#[test]
fn handles_in_messages_are_renumbered_with_the_channels() {
    let v1 = "chan req = [2] of { chan, byte };
byte served;
proctype Client(byte id) {
	chan reply = [1] of { byte };
	byte r;
	req!reply, id;
	reply?r;
	assert(r != 4)
}
proctype Server() {
	chan c;
	byte x;
	do
	:: req?c, x -> c!x + 1; served++
	:: served == 3 -> break
	od
}
init {
	atomic { run Server(); run Client(1); run Client(2); run Client(3) }
}
";
    let (base, stored) = recorded(v1, &limited());
    let versions = [
        (
            "a global channel added before the requests",
            v1.replace("chan req", "chan log = [1] of { byte };\nchan req"),
            "global 'log' added",
            390,
        ),
        (
            "the global channel declared after another one",
            v1.replace("byte served;", "byte served;\nchan log = [1] of { byte };"),
            "global 'log' added",
            390,
        ),
    ];
    assert_eq!(stored, 834);
    // A channel added where a process creates its own: the handle a message holds may be
    // that of a channel whose process has ended, whose number in the other version the
    // state does not tell, so nothing maps.
    let spare = v1.replace(
        "\tchan reply = [1] of { byte };",
        "\tchan spare = [1] of { bit };\n\tchan reply = [1] of { byte };",
    );
    let rep = check(
        &version(&spare).expect("loads"),
        Some(&base),
        Algorithm::Replay,
    );
    assert_eq!(rep.algorithm, Algorithm::Full, "{}", rep.reason);
    assert!(
        rep.reason.contains("a channel whose process has ended"),
        "{}",
        rep.reason
    );
    for (what, v2, change, walked) in versions {
        let (back, _) = recorded(&v2, &limited());
        let undone = format!("{what}, undone");
        let both: [(&str, &Record, &str); 2] = [(what, &base, &v2), (&undone, &back, v1)];
        for (what, base, text) in both {
            let (rep, full) = replayed_because(what, base, text, "through their projection");
            // (Sending and receiving a handle, and the four `run`s, whose processes'
            // channels are numbered otherwise.)
            assert_eq!(rep.dangerous, 6, "{what}: {}", rep.reason);
            assert_eq!(rep.stats.states_walked, walked, "{what}");
            assert_eq!(full.violations.len(), 1, "{what}");
            same_states_and_sets(
                what,
                rep.record.as_ref().expect("a record"),
                full.record.as_ref().expect("a record"),
            );
        }
        let rep = check(
            &version(&v2).expect("loads"),
            Some(&base),
            Algorithm::Replay,
        );
        assert!(rep.reason.contains(change), "{what}: {}", rep.reason);
    }
}

/// Channels held in records (a typedef's field of type chan), in variables and in
/// messages: where global channels are added or removed, each is renumbered in place, and
/// a statement that names such a record is dangerous; a receive through a channel variable
/// that always names its own channel of bytes (`reply?got`) is not. Each replay, both ways,
/// equals a full check, and walks the states where the clients wait with their requests
/// made and the server has not started serving.
#[test]
fn handles_in_records_are_renumbered_with_the_channels() {
    let v1 = "typedef Req { byte arg; chan reply };
chan req = [2] of { Req };
Req last;
proctype Client(byte id) {
	chan reply = [1] of { byte };
	Req r;
	byte got, w;
	r.arg = id;
	r.reply = reply;
	do
	:: w < 2 -> w++
	:: w == 2 -> break
	od;
	req!r;
	reply?got;
	assert(got != 4)
}
proctype Server() {
	Req q;
	byte k;
	do
	:: k < 3 -> k++
	:: k == 3 -> break
	od;
	do
	:: req?q -> q.reply!q.arg + 1; last.reply = q.reply
	:: timeout -> break
	od
}
init {
	atomic { run Server(); run Client(1); run Client(2); run Client(3) }
}
";
    let (base, stored) = recorded(v1, &limited());
    assert_eq!(stored, 9_744);
    for (what, v2) in [
        (
            "a global channel added first",
            v1.replace("chan req", "chan log = [1] of { byte };\nchan req"),
        ),
        (
            "a global channel added after",
            v1.replace("Req last;", "Req last;\nchan log = [1] of { byte };"),
        ),
    ] {
        let (back, _) = recorded(&v2, &limited());
        let undone = format!("{what}, undone");
        let both: [(&str, &Record, &str); 2] = [(what, &base, &v2), (&undone, &back, v1)];
        for (what, base, text) in both {
            let (rep, full) = replayed_because(what, base, text, "through their projection");
            assert_eq!(full.violations.len(), 1, "{what}");
            // (A record's handle left as it was would make every state that holds one new:
            // 4 walked.)
            assert_eq!(rep.stats.states_walked, 1_619, "{what}: {}", rep.reason);
            same_states_and_sets(
                what,
                rep.record.as_ref().expect("a record"),
                full.record.as_ref().expect("a record"),
            );
        }
    }
}

/// With `-q` a valid end state needs every channel empty. A channel added (that P writes
/// first, in new code) or removed (that P wrote first) changes what the states below hold,
/// so a recorded end state reached by walking may be judged otherwise: the replay executes
/// every recorded state without moves, and finds the invalid end state the channel left
/// (added), and none (removed), as full checks do. Pruning cannot run there.
#[test]
fn end_states_are_judged_anew_with_empty_channels_across_channels_added_or_removed() {
    let v1 = "chan a = [1] of { byte };
active proctype P() {
	byte i;
	do
	:: i < 3 -> a!i; a?_; i++
	:: i == 3 -> break
	od
}
active proctype Q() {
	byte n;
	do
	:: n < 4 -> n++
	:: n == 4 -> break
	od
}
";
    let v2 = v1
        .replace("chan a", "chan b = [1] of { byte };\nchan a")
        .replace("\tbyte i;\n", "\tbyte i;\n\tb!9;\n");
    let q = Options {
        empty_channels: true,
        ..limited()
    };
    let (base, _) = recorded(v1, &q);
    let (back, _) = recorded(&v2, &q);
    for (what, base, text, violations) in [
        ("b added", &base, v2.as_str(), 1),
        ("b removed", &back, v1, 0),
    ] {
        let v = version(text).expect("loads");
        let rep = check_with(&v, Some(base), Algorithm::Replay, &q);
        let full = check_with(&v, Some(base), Algorithm::Full, &q);
        assert!(
            rep.reason.contains("through their projection"),
            "{what}: {}",
            rep.reason
        );
        assert_same(what, text, &rep, &full);
        assert_eq!(full.violations.len(), violations, "{what}");
        assert!(rep.stats.states_walked > 0, "{what}");
        same_states_and_sets(
            what,
            rep.record.as_ref().expect("a record"),
            full.record.as_ref().expect("a record"),
        );
        let prune = check_with(&v, Some(base), Algorithm::Prune, &q);
        assert_eq!(prune.algorithm, Algorithm::Full, "{what}: {}", prune.reason);
        assert!(prune.reason.contains("(-q)"), "{what}: {}", prune.reason);
        let auto = check_with(&v, Some(base), Algorithm::Auto, &q);
        assert_eq!(auto.violations.len(), violations, "{what}: {}", auto.reason);
    }
}

/// Every kind of declaration change on every seed model, checked with `-q` (a valid end
/// state needs every channel empty): the replay equals a full check field by field, and
/// where it ran through the map, its record holds a recording run's states and sets.
#[test]
fn replays_across_declaration_changes_with_empty_channels_equal_full_checks() {
    let mut rng = Rng(0x5eed_e0c4);
    let q = Options {
        empty_channels: true,
        ..limited()
    };
    let (mut compared, mut projected) = (0usize, 0usize);
    for (name, text) in seed_models(20_000) {
        let Some(v) = version(&text) else { continue };
        let Some(record) = check_with(&v, None, Algorithm::Full, &q).record else {
            continue;
        };
        for (k, kind) in DECLARATION_KIND_NAMES.iter().enumerate() {
            let Some(m) = change_declaration(&text, &mut rng, k) else {
                continue;
            };
            let Some(nv) = version(&m) else { continue };
            let what = format!("{name}: {kind}");
            let walk = Options {
                compare_across_map: false,
                ..q.clone()
            };
            let rep = check_with(&nv, Some(&record), Algorithm::Replay, &walk);
            let full = check_with(&nv, Some(&record), Algorithm::Full, &q);
            if full.record.is_none() {
                continue;
            }
            assert_same(&what, &m, &rep, &full);
            let kept = check_with(&nv, Some(&record), Algorithm::Replay, &q);
            assert_same(&format!("{what} (graph compared)"), &m, &kept, &full);
            if let (true, Some(a), Some(b)) = (kept.unchanged, &kept.record, &full.record) {
                same_states_and_sets(&what, a, b);
            }
            compared += 1;
            if rep.algorithm == Algorithm::Replay && rep.reason.contains("through their projection")
            {
                projected += 1;
                same_states_and_sets(
                    &what,
                    rep.record.as_ref().expect("a record"),
                    full.record.as_ref().expect("a record"),
                );
            }
        }
    }
    eprintln!(
        "{compared} declaration mutants compared with -q, {projected} replayed through the map"
    );
    assert!(compared >= 100, "only {compared} compared");
    assert!(
        projected * 4 >= compared,
        "{projected} of {compared} replayed through the map"
    );
}

/// Arrays of channels resized, a global one and a process's: the elements both versions
/// have pair by place, the others are added or removed, every channel created after them is
/// renumbered (state by state for a process's), and every statement naming the array is
/// dangerous. Each replay, both ways, equals a full check.
#[test]
fn arrays_of_channels_resized_pair_their_elements_by_place() {
    let v1 = "chan g[2] = [1] of { byte };
proctype P(byte i) {
	chan c[2] = [1] of { byte };
	byte x;
	do
	:: c[0]!i -> c[0]?x
	:: g[i % 2]!i
	:: g[i % 2]?x
	:: x < 2 -> x++
	:: x >= 2 -> break
	od
}
init {
	chan mine = [1] of { byte };
	run P(0);
	mine!1;
	run P(1);
	mine?_
}
";
    let (base, stored) = recorded(v1, &limited());
    assert_eq!(stored, 845);
    for (what, from, to, says) in [
        ("g grown", "chan g[2]", "chan g[3]", "channel 'g' added"),
        ("c grown", "chan c[2]", "chan c[3]", "create 1 channel more"),
        (
            "c shrunk",
            "chan c[2]",
            "chan c[1]",
            "create 1 channel fewer",
        ),
    ] {
        let v2 = v1.replace(from, to);
        let (rep, full) = replayed_because(what, &base, &v2, "through their projection");
        assert!(rep.reason.contains(says), "{what}: {}", rep.reason);
        assert!(rep.stats.states_walked > 0, "{what}: {}", rep.reason);
        assert_eq!(full.stats.states_stored, stored, "{what}");
        let (back, _) = recorded(&v2, &limited());
        let undone = format!("{what}, undone");
        let (rep, _) = replayed_because(&undone, &back, v1, "through their projection");
        assert!(rep.stats.states_walked > 0, "{undone}: {}", rep.reason);
    }
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
            let ev =
                git_rmc::rmc::record::graph::decode_event(b, slot, &mut at, &mut blocked, Some)
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
                Event::Group { .. } => "group",
                Event::End(End::Group) => "end of a replayed group",
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
/// and pruned against a full check; chains of them too. Run with `--ignored`
/// (`GIT_RMC_SEED=N` tries other mutants).
#[test]
#[ignore = "needs GIT_RMC_CORPUS: a folder of Promela models"]
fn replays_equal_full_checks_on_a_corpus() {
    let Some(dir) = std::env::var_os("GIT_RMC_CORPUS") else {
        return;
    };
    let files = corpus_files(std::path::Path::new(&dir));
    let mut rng = Rng(sweep_seed(0x5eed_0103));
    let (mut compared, mut walked, mut unchanged) = (0, 0, 0);
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
            let what = format!("{name} #{step}");
            let Some((r, full)) = replay_and_full(&what, &record, &m) else {
                continue;
            };
            // Pruning on the same record reports what the full check reports.
            if let Some(v) = version(&m) {
                let pr = check(&v, Some(&record), Algorithm::Prune);
                assert_eq!(pr.violations, full.violations, "{what}: prune\n{m}");
                assert_eq!(pr.verdict, full.verdict, "{what}: prune verdict\n{m}");
            }
            compared += 1;
            walked += usize::from(r.stats.states_walked > 0 && !r.unchanged);
            unchanged += usize::from(r.unchanged);
            // Every third mutant builds on the last: a chain.
            if step % 3 == 0 {
                if let Some(next) = r.record {
                    record = next;
                    current = m;
                }
            }
        }
    }
    eprintln!(
        "{compared} corpus mutants compared, {walked} walked something, {unchanged} found \
         the graph unchanged"
    );
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

/// Checks, at every state a search stores, that its canonical vector projects onto the old
/// layout and that embedding the projection again, with the state itself as the parent,
/// gives the vector back (by `embed`, and by a plan made for its shape).
struct RoundTrip<'a> {
    ext: &'a git_rmc::rmc::diff::extension::Extension,
    canon: Vec<u8>,
    old: Vec<u8>,
    back: Vec<u8>,
    checked: usize,
}

impl git_rmc::explore::Rider for RoundTrip<'_> {
    fn stored(
        &mut self,
        m: &git_rmc::explore::Machine,
        _id: u32,
        st: Option<&git_rmc::explore::state::State>,
        _key: Option<u32>,
    ) -> git_rmc::explore::Visit {
        if let Some(st) = st {
            m.canonical(st, &mut self.canon);
            assert!(self.ext.project(&self.canon, &mut self.old), "projects");
            assert!(
                self.ext.embed(&self.old, &self.canon, &mut self.back),
                "embeds"
            );
            assert_eq!(self.back, self.canon, "the embedding of the projection");
            // The plan made for the projection's shape embeds it the same way.
            let plan = self.ext.embed_plan(&self.old, &self.canon).expect("a plan");
            assert!(plan.apply(&self.old, &mut self.back), "applies");
            assert_eq!(
                self.back, self.canon,
                "the plan's embedding of the projection"
            );
            self.checked += 1;
        }
        git_rmc::explore::Visit::Expand
    }
}

/// For versions of the seed models that gain variables or resize a global channel, every
/// reachable state's vector is the embedding of its projection (the replay builds
/// successors that way).
#[test]
fn a_state_is_the_embedding_of_its_projection() {
    let mut rng = Rng(0x5eed_0a22);
    let (mut models, mut states, mut resized) = (0, 0, 0);
    for (_, text) in seed_models(20_000) {
        let Some(v) = version(&text) else { continue };
        for k in 0..6 {
            let m = if k < 4 {
                gain_variables(&text, &mut rng, k)
                    .and_then(|m| use_gained(&m, &mut rng).or(Some(m)))
            } else {
                resize_channel(&text, &mut rng, k)
            };
            let Some(m) = m else {
                continue;
            };
            let Some(nv) = version(&m) else { continue };
            let Ok(ext) = git_rmc::rmc::diff::extension::layout_extension(&v.program, &nv.program)
            else {
                continue;
            };
            let Ok(mach) = git_rmc::explore::Machine::new(&nv.program) else {
                continue;
            };
            let mut rt = RoundTrip {
                ext: &ext,
                canon: Vec::new(),
                old: Vec::new(),
                back: Vec::new(),
                checked: 0,
            };
            git_rmc::explore::search(&mach, &limited(), &mut rt, &mut |_| {});
            models += 1;
            states += rt.checked;
            resized += usize::from(k >= 4);
        }
    }
    eprintln!("{models} versions ({resized} resizing a channel), {states} states round-tripped");
    assert!(
        models >= 100 && states >= 10_000 && resized >= 40,
        "{models} versions ({resized} resizing a channel), {states} states"
    );
}

/// Versions of every model under `$GIT_RMC_CORPUS` that gain a global, a local or both (the
/// global toggled somewhere every other time, another change every third time), replayed
/// through the projection and compared with a full check. Run with `--ignored`.
#[test]
#[ignore = "needs GIT_RMC_CORPUS: a folder of Promela models"]
fn replays_through_gained_variables_equal_full_checks_on_a_corpus() {
    let Some(dir) = std::env::var_os("GIT_RMC_CORPUS") else {
        return;
    };
    let mut rng = Rng(sweep_seed(0x5eed_0a23));
    let (mut compared, mut projected, mut walked) = (0, 0, 0);
    for (name, text, base) in corpus_records(std::path::Path::new(&dir)) {
        for k in 1..7 {
            let Some((m, _)) = gained_version(&text, &mut rng, k) else {
                continue;
            };
            let what = format!("{name} +vars #{k}");
            let Some((rep, full)) = replay_and_full(&what, &base, &m) else {
                continue;
            };
            compared += 1;
            if rep.reason.contains("projection") {
                projected += 1;
                walked += usize::from(rep.stats.states_walked > 0);
                if let (Some(a), Some(b)) = (&rep.record, &full.record) {
                    same_states_and_sets(&what, a, b);
                }
            }
        }
    }
    eprintln!(
        "{compared} corpus versions gaining variables compared, {projected} replayed through \
         the projection, {walked} walked something"
    );
}

/// Versions of every model under `$GIT_RMC_CORPUS` whose global channel changes capacity
/// (and, every third time, another change): replay through the projection equals a full
/// check, and so do pruning's verdicts. Run with `--ignored`.
#[test]
#[ignore = "needs GIT_RMC_CORPUS: a folder of Promela models"]
fn replays_across_a_changed_channel_capacity_equal_full_checks_on_a_corpus() {
    let Some(dir) = std::env::var_os("GIT_RMC_CORPUS") else {
        return;
    };
    let mut rng = Rng(sweep_seed(0x5eed_0c4c));
    let (mut compared, mut projected) = (0, 0);
    for (name, text, base) in corpus_records(std::path::Path::new(&dir)) {
        for k in 0..6 {
            let Some(mut m) = resize_channel(&text, &mut rng, k) else {
                break;
            };
            if k % 3 == 1 {
                match mutate(&m, &mut rng) {
                    Some(x) => m = x,
                    None => continue,
                }
            }
            let what = format!("{name} resized #{k}");
            let Some((rep, full)) = replay_and_full(&what, &base, &m) else {
                continue;
            };
            compared += 1;
            if rep.algorithm == Algorithm::Replay && rep.reason.contains("projection") {
                projected += 1;
                if let (Some(a), Some(b)) = (&rep.record, &full.record) {
                    same_states_and_sets(&what, a, b);
                }
            }
            let v = version(&m).expect("it loaded for the replay");
            let prune = check(&v, Some(&base), Algorithm::Prune);
            assert_eq!(prune.violations, full.violations, "{what}: pruning");
            assert_eq!(prune.verdict, full.verdict, "{what}: pruning verdict");
        }
    }
    eprintln!("{compared} corpus versions resizing a channel compared, {projected} projected");
}

#[test]
fn proctypes_that_swap_places_are_checked_in_full() {
    // A process record names its proctype by position, and the layout's hash sees only each
    // position's kind and locals: two proctypes swapped keep it, yet every recorded state
    // holding one of their processes means the other one now. (Found by the corpus sweep:
    // the record a replay took whole held the old states.)
    let old = "byte x = 2, y = 3;
proctype A() { x = x + 1 }
proctype B() { x = x - 1; y = y + x }
init { atomic { run A(); run B() } }
";
    let new = old
        .replace("proctype A() { x = x + 1 }\n", "")
        .replace("init {", "proctype A() { x = x + 1 }\ninit {");
    let (base, _) = recorded(old, &limited());
    let v = version(&new).expect("new");
    // (With the base: the stable ids the chain carries are part of every state's encoding.)
    let full = check(&v, Some(&base), Algorithm::Full);
    for alg in [Algorithm::Auto, Algorithm::Replay, Algorithm::Prune] {
        let c = check(&v, Some(&base), alg);
        assert_eq!(c.algorithm, Algorithm::Full, "{alg:?}: {}", c.reason);
        assert!(c.reason.contains("moved from position"), "{}", c.reason);
        assert_eq!(c.stats.states_stored, full.stats.states_stored);
        let (a, b) = (
            c.record.expect("record"),
            full.record.as_ref().expect("record"),
        );
        assert_eq!(
            a.fingerprints, b.fingerprints,
            "{alg:?}: the record's states"
        );
    }
}

/// A model whose first proctype has `long` assignments before `x = 1` and `tail` after it:
/// past 255 locations a process's location takes two bytes in the search's vectors.
fn long_model(long: usize, tail: usize, extra: &str) -> String {
    let step = "\tt = 1 - t;\n";
    format!(
        "byte t, x;\n{extra}\nactive proctype Long()\n{{\n{}\tx = 1;\n{}\tx = 2\n}}\n\n\
         active proctype Other()\n{{\n\tbyte k;\n\tdo\n\t:: k < 3 -> k++\n\t:: k > 0 -> k--\n\
         \t:: x == 2 -> break\n\tod;\n\tassert(t == 0)\n}}\n",
        step.repeat(long),
        step.repeat(tail)
    )
}

#[test]
fn a_proctype_that_grows_past_255_locations_keeps_its_recorded_states() {
    // Canonical vectors name locations by stable id in four bytes, whatever the width
    // of the search's location field: a version whose proctype crosses 255 locations in
    // either direction, beside a declaration change, is mapped and walked like any other.
    let cases = [
        // (old, new): the width grows, shrinks, and grows with a statement changed.
        (long_model(200, 20, ""), long_model(200, 80, "byte added;")),
        (long_model(200, 80, "byte gone;"), long_model(200, 20, "")),
        (
            long_model(200, 21, "short w;"),
            long_model(200, 81, "int w;").replace("x = 2\n", "x = 2;\n\tt = 0\n"),
        ),
    ];
    for (i, (old, new)) in cases.iter().enumerate() {
        let (base, _) = recorded(old, &limited());
        let what = format!("location width case {i}");
        let (rep, full) = replayed_because(&what, &base, new, "through their projection");
        assert!(rep.stats.states_walked >= 2000, "{what}: {:?}", rep.stats);
        assert_eq!(rep.violations, full.violations, "{what}");
        let v = version(new).expect("loads");
        let prune = check(&v, Some(&base), Algorithm::Prune);
        assert_eq!(prune.violations, full.violations, "{what}: prune");
        assert_eq!(prune.verdict, full.verdict, "{what}: prune verdict");
    }
    // The failing version: `t` is 1 at the end after an odd number of toggles.
    let (base, _) = recorded(&cases[0].0, &limited());
    let (_, full) = replay_and_full("odd toggles", &base, &long_model(200, 81, "byte added;"))
        .expect("completes");
    assert_eq!(full.violations.len(), 1, "{:?}", full.violations);
}

/// Clients and servers over global channels handed to them by `init`: every process holds
/// channel numbers in its locals.
const GLOBAL_CHANNELS: &str = "mtype = { req, ack };
chan c1 = [1] of { mtype, byte };
chan c2 = [2] of { mtype, byte };
chan c3 = [1] of { mtype, byte };
byte done;

proctype Server(chan in, out)
{
\tbyte v;
end:\tdo
\t:: in?req(v) -> out!ack(v + 1)
\tod
}

proctype Client(chan to, from; byte id)
{
\tbyte r;
\tto!req(id);
\tfrom?ack(r);
\tassert(r > id);
\tdone++
}

init {
\tatomic {
\t\trun Server(c1, c2);
\t\trun Server(c3, c2);
\t\trun Client(c1, c2, 1);
\t\trun Client(c3, c2, 2);
\t\trun Client(c1, c2, 3)
\t}
}
";

#[test]
fn global_channels_declared_in_another_order_keep_their_recorded_states() {
    // A channel's number is its place among the global channels: declared in another
    // order, each keeps its record and contents, and the numbers every channel variable
    // holds are renumbered. Replay and prune across such a version (alone, beside a
    // channel added, beside a changed statement) equal full checks.
    let decl = "chan c1 = [1] of { mtype, byte };\nchan c2 = [2] of { mtype, byte };\nchan c3 = [1] of { mtype, byte };\n";
    let swapped = "chan c2 = [2] of { mtype, byte };\nchan c3 = [1] of { mtype, byte };\nchan c1 = [1] of { mtype, byte };\n";
    let rotated = "chan c2 = [2] of { mtype, byte };\nchan c1 = [1] of { mtype, byte };\nchan c3 = [1] of { mtype, byte };\n";
    let versions = [
        GLOBAL_CHANNELS.replace(decl, swapped),
        GLOBAL_CHANNELS.replace(decl, rotated),
        GLOBAL_CHANNELS.replace(decl, &format!("{rotated}chan c4 = [1] of {{ byte }};\n")),
        GLOBAL_CHANNELS
            .replace(decl, swapped)
            .replace("out!ack(v + 1)", "out!ack(v + (v & 1))"),
        // Two channels of one type swapped: the layout is the same (a state's bytes mean
        // what they meant), and the statements that name them change; from `init`'s `run`s
        // on, every state is new.
        GLOBAL_CHANNELS.replace(
            decl,
            &decl
                .replace("c1 =", "cx =")
                .replace("c3 =", "c1 =")
                .replace("cx =", "c3 ="),
        ),
    ];
    let (base, _) = recorded(GLOBAL_CHANNELS, &limited());
    for (i, new) in versions.iter().enumerate() {
        assert_ne!(new, GLOBAL_CHANNELS);
        let what = format!("global channels version {i}");
        let (rep, full) = replayed_because(&what, &base, new, "declared in another order");
        assert!(rep.stats.states_walked > 0, "{what}: {:?}", rep.stats);
        let v = version(new).expect("loads");
        let prune = check(&v, Some(&base), Algorithm::Prune);
        assert_eq!(prune.violations, full.violations, "{what}: prune");
        assert_eq!(prune.verdict, full.verdict, "{what}: prune verdict");
        if i == 3 {
            assert_eq!(
                full.verdict.as_str(),
                "fail",
                "{what}: the changed reply fails"
            );
        }
        // The record written serves the next version: back to the first order.
        let next = replayed_step(
            &what,
            rep.record.as_ref().expect("record"),
            GLOBAL_CHANNELS,
            1,
        );
        assert!(next.is_some(), "{what}: back to the first order");
    }
}

/// The record of `three_counters(40)` (270k states), written as `big.rec` in a new
/// folder: the record, its states, the folder and the file's length.
fn big_record(opts: &Options) -> (Record, u64, tempfile::TempDir, u64) {
    let big = version(&common::three_counters(40)).expect("loads");
    let recorded = check_with(&big, None, Algorithm::Full, opts);
    let record = recorded.record.expect("complete");
    let dir = tempfile::tempdir().expect("temp dir");
    let len = write_beside(&record, &dir.path().join("big.rec"));
    (record, recorded.stats.states_stored, dir, len)
}

/// Auto's first look at a new version runs before the record's states are read, and when
/// it completes it is the check: a full check's figures and record, and the recorded
/// states never read (on the public MESI history, a 597k-state version of a 27.4M-state
/// record took 11 to 13 s where its full check takes 1.1). A full check asked for never
/// reads them either. A version as large as the recorded one stops the look, and then the
/// states are read and the version replayed; where auto's random walks then meet mostly
/// states the record lacks, the fingerprints they are looked up in are read, and the state
/// graph never is (it costs several times as much to read), since a full check runs.
#[test]
fn a_small_new_version_is_checked_before_the_record_s_states_are_read() {
    use git_rmc::rmc::check::{self, Base, Plan, Reuse};
    let opts = Options::default();
    let (record, stored, dir, _) = big_record(&opts);
    let path = dir.path().join("big.rec");
    let lazy = || {
        let file = std::fs::File::open(&path).expect("opens");
        let base = Base::lazy(&path, &file).expect("the head reads");
        assert!(!base.has_states());
        assert_eq!(base.states(), stored);
        base
    };
    // The plan of `v` on a base read without its states, and the base after it.
    let plan_on_lazy = |v: &common::rmc::Version, alg| {
        let mut base = lazy();
        let plan = check::plan(v.program.clone(), Some(&mut base), &opts, alg);
        (plan, base)
    };

    let small = version(&common::three_counters(10)).expect("loads");
    let full = check_with(&small, None, Algorithm::Full, &opts);
    assert!(
        full.stats.states_stored * check::SMALL_SHARE < stored,
        "{} of {stored}",
        full.stats.states_stored
    );
    let (plan, base) = plan_on_lazy(&small, Algorithm::Auto);
    assert!(!base.has_states(), "{}", plan.reason);
    assert!(
        plan.reason.contains("the new version being small"),
        "{}",
        plan.reason
    );
    assert!(matches!(plan.reuse, Reuse::Ran(_)) && !plan.incremental());
    assert_eq!(plan.algorithm, Algorithm::Full);
    // The record a plan's run writes is the full check's.
    let written_as_full =
        |plan: &Plan, mut run: check::Run, base, v: &common::rmc::Version, full| {
            let m = git_rmc::explore::Machine::new(&plan.program).expect("layout");
            let rec = check::record(
                &m,
                &plan.ids,
                &mut run,
                Some(base),
                v.sources.clone(),
                &opts,
            )
            .expect("a record");
            let want: Record = Option::expect(full, "a record");
            assert_eq!(rec.fingerprints, want.fingerprints);
            assert_eq!((rec.sets, rec.set_of), (want.sets, want.set_of));
            assert_eq!(rec.meta.figures, want.meta.figures);
            assert_eq!(rec.graph, want.graph);
        };
    let m = git_rmc::explore::Machine::new(&plan.program).expect("layout");
    let run = check::run(&m, plan.reuse, Some(&base), &opts, &mut |_| {});
    assert_eq!(run.outcome.stats.spin_figures(), full.stats.spin_figures());
    written_as_full(
        &Plan {
            reuse: Reuse::Nothing,
            ..plan
        },
        run,
        &base,
        &small,
        full.record,
    );

    // A full check asked for reads no recorded state.
    let (plan, base) = plan_on_lazy(&small, Algorithm::Full);
    assert!(!base.has_states() && matches!(plan.reuse, Reuse::Nothing));

    // A version past the look's first share but within `LOOK_AHEAD` times it, whose states
    // are all recorded (two bounds lowered: a replay would walk them): the plan is made
    // beside the look, and the look, which completes, is the check whatever that plan, so
    // that which check runs never depends on which finished first.
    let text = common::three_counters(40)
        .replace("a < 40", "a < 8")
        .replace("b < 40", "b < 8");
    let within = version(&text).expect("loads");
    let full = check_with(&within, None, Algorithm::Full, &opts);
    let n = full.stats.states_stored;
    assert!(
        n * check::SMALL_SHARE > stored && n * check::SMALL_SHARE <= stored * check::LOOK_AHEAD,
        "{n} of {stored}"
    );
    let (plan, base) = plan_on_lazy(&within, Algorithm::Auto);
    assert!(
        plan.reason.contains("the new version being small"),
        "{}",
        plan.reason
    );
    let Reuse::Ran(run) = plan.reuse else {
        panic!("the look was not the check: {}", plan.reason)
    };
    assert!(run.outcome.complete());
    assert_eq!(run.outcome.stats.spin_figures(), full.stats.spin_figures());
    written_as_full(
        &Plan {
            reuse: Reuse::Nothing,
            ..plan
        },
        *run,
        &base,
        &within,
        full.record,
    );

    // A statement changed in the large version: the look stops, the states are read, and
    // auto replays, as it does from a record read whole.
    let text = common::three_counters(40).replace("c < 40 -> c++", "c < 40 -> c = c + 1");
    let changed = version(&text).expect("loads");
    let (plan, base) = plan_on_lazy(&changed, Algorithm::Auto);
    assert!(base.has_states(), "{}", plan.reason);
    assert_eq!(base.states(), stored);
    let whole = check_with(&changed, Some(&record), Algorithm::Auto, &opts);
    assert_eq!(
        (plan.algorithm, plan.reason.as_str()),
        (whole.algorithm, whole.reason.as_str())
    );
    assert!(plan.incremental());

    // Every state of this version is new (`a` from 200, which no recorded state holds), and
    // it has more than an eighth of the recorded states: the walks decide beside the look,
    // and the graph is not read. The look went on as the full check from where it stood:
    // the plan holds its run, which is that check.
    let text = common::three_counters(40)
        .replace("byte a, b, c;", "byte a = 200, b, c;")
        .replace("a < 40", "a < 250");
    let new = version(&text).expect("loads");
    let (plan, base) = plan_on_lazy(&new, Algorithm::Auto);
    assert_eq!(plan.algorithm, Algorithm::Full, "{}", plan.reason);
    assert!(plan.reason.contains("random walks"), "{}", plan.reason);
    let Reuse::Ran(run) = plan.reuse else {
        panic!("the look was not the check: {}", plan.reason)
    };
    let full = check_with(&new, None, Algorithm::Full, &opts);
    assert!(full.stats.states_stored * check::SMALL_SHARE > stored * check::LOOK_AHEAD);
    assert_eq!(run.outcome.stats.spin_figures(), full.stats.spin_figures());
    assert!(run.outcome.complete());
    let plan = Plan {
        reuse: Reuse::Nothing,
        ..plan
    };
    written_as_full(&plan, *run, &base, &new, full.record);
    assert!(
        base.has_fingerprints() && !base.has_states(),
        "{}",
        plan.reason
    );
    let p = plan.predicted.expect("a prediction");
    assert_eq!(p.walk_states, p.walk_new, "{p:?}");
    assert!(p.walk_states.is_some_and(|n| n >= 64), "{p:?}");
    let whole = check_with(&new, Some(&record), Algorithm::Auto, &opts);
    assert_eq!(
        (whole.algorithm, whole.reason.as_str()),
        (plan.algorithm, plan.reason.as_str())
    );
}

/// A large record's head (what a check decides by before it reads any state) is read alone,
/// checked by the sum written after it (`HSUM`): a byte of its states changed leaves the
/// head readable and is told when the states are read, a byte of the head changed is told
/// at once. A record written on a base record checks its base's head the same way, and the
/// base by its trailer.
#[test]
fn a_large_record_s_head_is_read_alone_and_checked_by_its_own_sum() {
    use git_rmc::rmc::check::Base;
    let opts = Options::default();
    let (_, stored, dir, len) = big_record(&opts);
    let path = dir.path().join("big.rec");
    assert!(
        len >= git_rmc::rmc::record::HEAD_ALONE_FROM,
        "{len} bytes: read whole, not by its head"
    );
    let lazy = |p: &std::path::Path| {
        let file = std::fs::File::open(p).expect("opens");
        Base::lazy(p, &file)
    };
    let base = lazy(&path).expect("the head reads");
    assert_eq!(base.states(), stored);
    let whole = Record::read(&path).expect("reads whole");
    assert!(
        base.record.meta == whole.meta
            && base.record.sources == whole.sources
            && base.record.ids == whole.ids
            && base.record.violations == whole.violations
            && base.record.sets == whole.sets,
        "the head read alone differs from the whole file's"
    );

    let bytes = std::fs::read(&path).expect("reads");
    let flipped = |at: usize| {
        let mut b = bytes.clone();
        b[at] ^= 0x5a;
        let p = dir.path().join(format!("flipped-{at}.rec"));
        std::fs::write(&p, &b).expect("written");
        p
    };
    // A byte of the state graph (the file's last section).
    let p = flipped(bytes.len() - 100);
    let mut base = lazy(&p).expect("the head still reads");
    assert_eq!(base.states(), stored);
    let err = base.read_states().expect_err("the states do not read");
    assert!(err.to_string().contains("checksum"), "{err}");
    // Another record written over the file between its head and its states: refused, the
    // head of one never joined to the states of the other.
    let copy = dir.path().join("copy.rec");
    std::fs::copy(&path, &copy).expect("copied");
    let mut base = lazy(&copy).expect("the head reads");
    let other = version(&common::three_counters(10)).expect("loads");
    let other = check_with(&other, None, Algorithm::Full, &opts)
        .record
        .expect("a record");
    std::fs::write(&copy, other.to_bytes()).expect("written in place");
    let err = base.read_states().expect_err("another record's states");
    assert!(
        err.to_string().contains("changed while it was read"),
        "{err}"
    );
    // A byte of META, the first section.
    let sections = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let err = lazy(&flipped(16 + sections * 28 + 3))
        .err()
        .expect("the head does not read");
    assert!(err.to_string().contains("checksum"), "{err}");

    // Written on the base: the changed statements' states have other events.
    let text = common::three_counters(40)
        .replace("c < 40 -> c++", "c < 40 -> c = c + 1")
        .replace("b < 40 -> b++", "b < 40 -> b = b + 1");
    let changed = version(&text).expect("loads");
    let next = check_with(&changed, Some(&whole), Algorithm::Replay, &opts)
        .record
        .expect("complete");
    let next_path = dir.path().join("next.rec");
    let len = write_beside(&next, &next_path);
    assert_eq!(
        Record::base_of(&next_path).expect("reads"),
        Some("big.rec".to_string())
    );
    assert!(
        len >= git_rmc::rmc::record::HEAD_ALONE_FROM,
        "{len} bytes: read whole, not by its head"
    );
    let mut base = lazy(&next_path).expect("the head reads through its base");
    assert_eq!(base.states(), stored);
    base.read_states()
        .expect("the states read through the base");
    assert!(base.record == next, "the record read back differs");
    // The base rewritten: the record no longer stands on it, and says so from its head.
    std::fs::write(&path, &bytes[..bytes.len() - 1]).expect("written");
    let err = lazy(&next_path).err().expect("the base changed");
    assert!(err.to_string().contains("big.rec"), "{err}");
}

/// Across a declaration change, a walked state is known by its recorded slot and the added
/// bytes of the state it is reached from (`rmc::run::map_keys`), as a walk in one layout
/// knows it by slot. Where the added variable is written, one recorded state stands for
/// new states with different values of it, each under a key of its own: a key that named
/// the slot alone would merge them and the figures would differ from the full check's.
#[test]
fn states_walked_through_a_map_are_known_by_slot_and_added_bytes() {
    let v1 = "mtype = { elect, leader };
chan ring[5] = [2] of { mtype, byte };
byte leaders;
proctype Node(chan in, out; byte id) {
	byte v;
	out!elect(id);
end:	do
	:: in?elect(v) ->
		if
		:: v > id -> out!elect(v)
		:: v < id -> skip
		:: v == id -> leaders++; assert(leaders == 1); out!leader(id)
		fi
	:: in?leader(v) ->
		if
		:: v != id -> out!leader(v)
		:: else -> skip
		fi;
		break
	od
}
init {
	byte k;
	atomic {
		do
		:: k < 5 -> run Node(ring[k], ring[(k + 1) % 5], (k * 2) % 5 + 1); k++
		:: k == 5 -> break
		od
	}
}
";
    let (base, stored) = recorded(v1, &limited());
    // (spin -o1 -o2 -o3 -a; gcc -DNOREDUCE -DSAFETY -DNOCLAIM: 2165 states.)
    assert_eq!(stored, 2165, "the record's states");
    let added = v1.replace("byte leaders;", "byte leaders;\nshort extra;");
    let forward = ":: v != id -> out!leader(v)";
    for (what, text, stored) in [
        (
            "an added global nothing reads, beside a changed statement",
            added.replace(forward, ":: v != id -> out!leader(v); skip"),
            2317,
        ),
        (
            "an added global that the changed statement sets to one of two values",
            added.replace(
                forward,
                ":: v != id -> out!leader(v); if :: extra = 1 :: extra = 2 fi",
            ),
            2493,
        ),
    ] {
        let (rep, full) = replayed_because(what, &base, &text, "global 'extra' added");
        let (r, f) = (&rep.stats, &full.stats);
        assert_eq!(f.states_stored, stored, "{what}: {f:?}");
        assert!(r.states_walked >= 1800, "{what}: {r:?}");
        assert!(r.states_executed > 0, "{what}: {r:?}");
        // The next record is written on the old graph: a state walked as recorded keeps its
        // slot and its recorded events (its vector alone is new, in the new layout).
        let (old, new) = (
            base.graph.as_ref().expect("the base's graph"),
            rep.record
                .as_ref()
                .and_then(|x| x.graph.as_ref())
                .expect("the replay's graph"),
        );
        let kept = (0..old.len() as u32)
            .filter(|&s| {
                let e = old.events_of(s);
                (s as usize) < new.len() && !e.is_empty() && new.events_of(s) == e
            })
            .count() as u64;
        // (With the global set to one of two values, a few walked states step to a state
        // met with the other value first: their events are written anew.)
        let floor = match stored {
            2317 => r.states_walked,
            _ => r.states_walked * 99 / 100,
        };
        assert!(
            kept >= floor,
            "{what}: {kept} states keep their events, {r:?}"
        );
        assert!(
            (0..new.len() as u32)
                .all(|s| new.events_of(s).is_empty() || !new.vector_of(s).is_empty()),
            "{what}: every live slot has a vector"
        );
    }
}

/// Auto weighs the recorded states a run would execute by their work: a change inside a long
/// atomic run meets the states that pass it, each many steps, while the states walked pass
/// none. Replay's and pruning's predictions count those states at their recorded events'
/// weight (on the sample's elevator, the 15 % of the states such a change meets carry 75 %
/// of the atomic steps).
#[test]
fn states_at_a_change_inside_long_atomic_runs_weigh_their_steps() {
    use git_rmc::rmc::check::{self, Base};
    const HEAVY: &str = "byte a, b, t;
active proctype light() {
    do
    :: a < 30 -> a++
    :: a >= 30 -> break
    od
}
active proctype heavy() {
    do
    :: b < 1 -> atomic { t = 1; t = 2; t = 3; t = 4; t = 5; t = 6; t = 7; t = 8; t = 9; t = 0; b++ }
    :: b >= 1 -> break
    od
}
";
    let opts = Options::default();
    let (record, stored) = recorded(HEAVY, &opts);
    let changed = version(&HEAVY.replace("t = 5;", "t = 50;")).expect("parses");
    let mut base = Base::from_record(record).expect("the base program rebuilds");
    let plan = check::plan(
        changed.program.clone(),
        Some(&mut base),
        &opts,
        Algorithm::Replay,
    );
    let p = plan.predicted.expect("a prediction");
    let (executed, work) = (
        p.replay_executed.expect("replay predicted"),
        p.replay_work.expect("its work"),
    );
    let walked = p.replay_walked.expect("replay predicted");
    assert_eq!(walked + executed, stored, "{p:?}");
    assert!(executed > 0 && walked > 0, "{p:?}");
    // Each executed state passes the eleven steps of the run; a walked one moves once.
    assert!(work >= 2.0 * executed as f64, "{p:?}");
    assert!(work < stored as f64, "{p:?}");
    // Pruning also executes the states at the guard before the run (they reach the change
    // without passing it): as many as replay's, each one step.
    let prune = p.prune_work.expect("pruning's work, from the graph");
    assert_eq!(p.prune_executed, 2 * executed, "{p:?}");
    assert!(prune >= 1.5 * p.prune_executed as f64, "{p:?}");
    assert!(prune > work, "{p:?}");
    assert!(prune < stored as f64, "{p:?}");
}
