//! The regression engine against full checks (DESIGN.md 5.2): on mutants of the project's
//! models, a pruning run reports exactly the violations and the verdict of a full check of
//! the new version; along chains of mutants, each reusing the record the previous run wrote,
//! the accumulated record holds, for every state of the new version, the set a recording run
//! of that version stores for it.

mod common;

use std::collections::BTreeSet;

use common::rmc::{
    chains_of_ten, change_declaration, check, check_on, check_tuned, corpus_records,
    dead_variable_removed, each_recorded_pair, gain_variables, limited, mutate, resize_channel,
    seed_models, sweep_seed, version, with_dead_variable, without_dead_variable, Checked, Rng,
    DECLARATION_KINDS,
};
use git_rmc::rmc::check::Algorithm;
use git_rmc::rmc::record::elements::Element;
use git_rmc::rmc::Record;

/// A record's sets by fingerprint, as sets of elements.
fn sets_by_fingerprint(
    r: &Record,
) -> std::collections::HashMap<git_rmc::explore::Fingerprint, BTreeSet<Element>> {
    r.fingerprints
        .iter()
        .zip(&r.set_of)
        .map(|(fp, s)| {
            let set = r.sets[*s as usize]
                .iter()
                .map(|&e| r.elements[e as usize].clone())
                .collect();
            (*fp, set)
        })
        .collect()
}

/// Checks one mutant against its base record both ways; returns the pruning run's record
/// and whether anything was pruned.
fn compare(name: &str, base: &Record, text: &str) -> Option<(Record, u64)> {
    let v = version(text)?;
    let inc = check(&v, Some(base), Algorithm::Prune);
    let full = check(&v, Some(base), Algorithm::Full);
    if full.record.is_none() || inc.record.is_none() {
        // A limit or a fatal error: nothing to compare beyond the verdicts' agreement.
        return None;
    }
    assert_eq!(
        inc.violations, full.violations,
        "{name}: pruning run and full check disagree ({})\n--- mutant ---\n{text}",
        inc.reason
    );
    assert_eq!(inc.verdict, full.verdict, "{name}: verdicts differ\n{text}");
    // The record written holds every state of the new version with the set a recording run
    // gives it (across layout changes too: what lies below a pruned state is carried).
    let (ir, fr) = (inc.record?, full.record?);
    assert_holds_every_state(&ir, &fr, &format!("{name} ({})\n{text}", inc.reason));
    Some((ir, inc.stats.states_pruned))
}

/// Asserts that a record (`got`) holds every state of a full check's record (`full`) with
/// the set the full check gives it.
fn assert_holds_every_state(got: &Record, full: &Record, what: &str) {
    let acc = sets_by_fingerprint(got);
    for (fp, set) in sets_by_fingerprint(full) {
        assert_eq!(
            acc.get(&fp),
            Some(&set),
            "{what}: the record differs for a state"
        );
    }
}

/// Mutants of every seed model, each checked by pruning against the seed's record and by a
/// full check; returns (mutants compared, mutants where something was pruned).
fn sweep(per_seed: usize, seed: u64, max_states: u64) -> (usize, usize) {
    let mut rng = Rng(seed);
    let (mut compared, mut pruned_any) = (0, 0);
    for (name, text) in seed_models(max_states) {
        let Some(v) = version(&text) else { continue };
        let Some(base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        for _ in 0..per_seed {
            let Some(m) = mutate(&text, &mut rng) else {
                continue;
            };
            if let Some((_, pruned)) = compare(&name, &base, &m) {
                compared += 1;
                pruned_any += usize::from(pruned > 0);
            }
        }
    }
    (compared, pruned_any)
}

#[test]
fn pruning_runs_report_what_full_checks_report_on_mutants() {
    let (compared, pruned_any) = sweep(40, 0x5eed_0001, 20_000);
    assert!(compared >= 300, "only {compared} mutants compared");
    assert!(
        pruned_any >= compared / 4,
        "pruning happened on {pruned_any} of {compared}"
    );
}

#[test]
#[ignore = "thousands of mutants: run with --ignored"]
fn pruning_runs_report_what_full_checks_report_on_thousands_of_mutants() {
    let (compared, pruned) = sweep(400, sweep_seed(0x5eed_0003), 100_000);
    eprintln!("{compared} mutants compared, {pruned} with states pruned");
    assert!(compared >= 3000, "only {compared} mutants compared");
}

#[test]
fn records_accumulate_along_chains_of_mutants() {
    // Each pruning run reuses the previous step's record: its verdicts are a full check's,
    // and its record holds, for every state of the new version, the set a recording run
    // gives it (also across layout changes: added variables, resized channels).
    let mut rng = Rng(0x5eed_0002);
    let mut projected = 0;
    let (chains, on_base) = chains_of_ten(
        &mut rng,
        60,
        |current, _, rng| mutate(current, rng),
        |what, record, next, _| {
            let nv = version(next)?;
            let inc = check(&nv, Some(record), Algorithm::Prune);
            let full = check(&nv, Some(record), Algorithm::Full);
            let (Some(ir), Some(fr)) = (inc.record, full.record) else {
                return None;
            };
            assert_eq!(inc.violations, full.violations, "{what}:\n{next}");
            assert_eq!(inc.verdict, full.verdict, "{what}");
            projected += usize::from(inc.reason.contains("projection"));
            assert_holds_every_state(&ir, &fr, &format!("{what}\n{next}"));
            Some(ir)
        },
    );
    eprintln!("{chains} chains of ten, {projected} steps across a layout change");
    assert!(chains >= 5, "only {chains} chains of 10 mutants");
    // Pruning runs' records stand on the records they reuse, as replays' do.
    assert!(on_base >= 20, "{on_base} records written on their base");
}

#[test]
fn a_pruning_run_that_stops_looking_states_up_stays_exact() {
    // A pruning run gives up looking stored states up after a run of misses (a change that
    // makes the state space new), then probes one state in 64 and resumes at a hit. Here it
    // gives up after a single miss, so that the switch happens on small models, in both
    // directions: along chains of mutants, each run's violations and verdict are a full
    // check's, its record holds the set a recording run gives each state, and a replay of
    // the next mutant on that record has a full check's figures (every recorded state kept
    // one slot in the graph).
    let mut rng = Rng(0x5eed_0009);
    let opts = limited();
    let (mut steps_done, mut fewer_pruned) = (0, 0);
    let eager = |r: &mut git_rmc::rmc::check::Reuse| {
        if let git_rmc::rmc::check::Reuse::Prune(p) = r {
            p.give_up_after = 1;
        }
    };
    let _ = chains_of_ten(
        &mut rng,
        60,
        |current, _, rng| mutate(current, rng),
        |what, record, next, _| {
            let nv = version(next)?;
            let sparse = check_tuned(&nv, Some(record), Algorithm::Prune, &opts, None, eager);
            let dense = check(&nv, Some(record), Algorithm::Prune);
            let full = check(&nv, Some(record), Algorithm::Full);
            let replay = check(&nv, Some(record), Algorithm::Replay);
            let (Some(sr), Some(fr)) = (sparse.record, full.record) else {
                return None;
            };
            assert_eq!(sparse.violations, full.violations, "{what}:\n{next}");
            assert_eq!(sparse.verdict, full.verdict, "{what}");
            if replay.algorithm == Algorithm::Replay {
                assert_eq!(
                    replay.stats.spin_figures(),
                    full.stats.spin_figures(),
                    "{what}: a replay on a sparse pruning run's record\n{next}"
                );
            }
            assert_holds_every_state(&sr, &fr, &format!("{what}\n{next}"));
            fewer_pruned += usize::from(sparse.stats.states_pruned < dense.stats.states_pruned);
            steps_done += 1;
            Some(sr)
        },
    );
    eprintln!("{steps_done} chain steps, {fewer_pruned} pruning less than looking every state up");
    assert!(steps_done >= 100, "only {steps_done} steps");
    // The switch happened: some runs pruned less than they would have looking every state up.
    assert!(fewer_pruned >= 10, "only {fewer_pruned} runs pruned less");
}

/// The recorded reachable set of the state where process 0 is at the location labelled
/// `label` (in its proctype) and everything else is as in the initial state.
fn set_at(text: &str, label: &str) -> (Vec<u32>, git_rmc::program::Program) {
    use git_rmc::explore::Machine;
    let v = version(text).expect("loads");
    let rec = check(&v, None, Algorithm::Full).record.expect("a record");
    let m = Machine::new(&v.program).expect("layout");
    let mut st = m.initial().expect("initial state");
    let loc = v.program.procs[st.ptype(0)]
        .automaton
        .locations
        .iter()
        .find(|l| l.labels.iter().any(|x| x == label))
        .expect("labelled location");
    st.set_loc(0, m.index_of(loc.id));
    let fp = m.fingerprint(&st);
    let set = git_rmc::rmc::check::set_locations(&rec, fp).expect("the state is recorded");
    (set.iter().map(|l| l.0).collect(), v.program)
}

fn location_of(p: &git_rmc::program::Program, label: &str) -> u32 {
    p.procs
        .iter()
        .flat_map(|pr| &pr.automaton.locations)
        .find(|l| l.labels.iter().any(|x| x == label))
        .map(|l| l.id.0)
        .expect("labelled location")
}

#[test]
fn a_cross_edge_into_a_finished_member_sees_the_whole_component() {
    // The state graph A -> B, B -> C, C -> B, B -> F, F -> C, B -> G, explored in that order:
    // C finishes before G is found, F reaches C by a cross edge, and F must still see G (the
    // paper's stack walk, its Fig. 4 lines 13c-13i, misses it).
    let text = "active proctype P() {
A:  if :: goto B fi;
B:  if
    :: goto C
    :: goto F
    :: goto G
    fi;
C:  if :: goto B fi;
F:  if :: goto C fi;
G:  skip
}
";
    let (f, p) = set_at(text, "F");
    for l in ["B", "C", "F", "G"] {
        assert!(f.contains(&location_of(&p, l)), "F's set misses {l}: {f:?}");
    }
    assert!(
        !f.contains(&location_of(&p, "A")),
        "A is not reachable from F"
    );
    // A sees everything; G sees only itself and what follows it.
    let (g, _) = set_at(text, "G");
    assert!(g.contains(&location_of(&p, "G")) && !g.contains(&location_of(&p, "B")));
}

#[test]
fn locations_passed_inside_an_atomic_sequence_belong_to_where_it_started() {
    // Only the first location of the sequence is ever stored, yet the ones passed inside it
    // are reachable from the state it starts in.
    let text = "byte x, y;
active proctype P() {
S:  atomic { x = 1; M1: y = 2; M2: x = 3 };
E:  x == 3
}
";
    let (s, p) = set_at(text, "S");
    for l in ["S", "M1", "M2", "E"] {
        assert!(s.contains(&location_of(&p, l)), "S's set misses {l}: {s:?}");
    }
}

#[test]
fn a_run_puts_the_new_process_start_in_the_set() {
    let text = "byte x;
proctype W() { W0: x = 2 }
active proctype P() {
R:  run W();
E:  x == 2
}
";
    let (r, p) = set_at(text, "R");
    assert!(r.contains(&location_of(&p, "W0")), "{r:?}");
}

#[test]
fn an_edit_inside_a_d_step_or_an_atomic_sequence_is_never_pruned_away() {
    // The d_step is one edge whose label is its whole body: an edit deep inside it makes
    // its location dangerous, so the state before it is explored again.
    let old = "byte x, y;
active proctype P() { x = 1; d_step { y = 1; if :: x == 1 -> y = 2 :: else -> skip fi }; assert(y == 2) }
active proctype Q() { x = 0 }
";
    let new = old.replace("x == 1 -> y = 2", "x == 1 -> y = 3");
    let base = check(&version(old).expect("loads"), None, Algorithm::Full)
        .record
        .expect("record");
    let v = version(&new).expect("loads");
    let inc = check(&v, Some(&base), Algorithm::Prune);
    let full = check(&v, Some(&base), Algorithm::Full);
    assert!(inc.incremental && inc.dangerous == 1, "{}", inc.reason);
    assert_eq!(inc.violations, full.violations);
    // The assertion now fails on the path through the d_step as well as on the one where
    // Q ran first.
    assert_eq!(inc.violations.len(), 1);
    assert!(full.stats.states_stored > inc.stats.states_stored - inc.stats.states_pruned);
    // Inside an atomic sequence, in a location no stored state holds.
    let old = "byte x, y;
active proctype P() { x = 1; atomic { y = 1; y = y + 1; y = y + 1 }; assert(y == 3) }
active proctype Q() { x = 0 }
";
    let new = old.replace("y = y + 1; y = y + 1", "y = y + 1; y = y + 2");
    let base = check(&version(old).expect("loads"), None, Algorithm::Full)
        .record
        .expect("record");
    let v = version(&new).expect("loads");
    let inc = check(&v, Some(&base), Algorithm::Prune);
    assert_eq!(inc.violations.len(), 1, "{}", inc.reason);
    assert_eq!(
        inc.violations,
        check(&v, Some(&base), Algorithm::Full).violations
    );
}

#[test]
fn hidden_variables_are_never_pruned() {
    // pan's hidden variables travel with the search path: the stored state does not decide
    // the successors, so a record cannot stand for a state's sub-state-space.
    let old = "hidden byte h; byte x;
active proctype P() {
    if :: h = 1 :: skip fi;
    x = 1;
    if :: h == 1 -> assert(false) :: else -> skip fi
}
";
    let new = old.replace("if :: h = 1 :: skip fi", "if :: skip :: h = 1 fi");
    let base = check(&version(old).expect("loads"), None, Algorithm::Full)
        .record
        .expect("record");
    let v = version(&new).expect("loads");
    let inc = check(&v, Some(&base), Algorithm::Prune);
    let full = check(&v, Some(&base), Algorithm::Full);
    assert!(!inc.incremental, "{}", inc.reason);
    assert!(inc.reason.contains("hidden"), "{}", inc.reason);
    assert_eq!(inc.violations, full.violations);
    assert_eq!(inc.verdict, full.verdict);
}

#[test]
fn a_model_with_an_event_trace_is_checked_in_full() {
    // A trace moves on channel events, which no recorded set or footprint shows: a version
    // with a trace, or whose base had one, reuses nothing, whatever the algorithm asked.
    let old = "chan c = [2] of { byte };
active proctype P() { c!1; c!2 }
active proctype Q() { end: do :: c?_ od }
trace { end: do :: c!1; c?1; c!2; c?2 od }
";
    let edits = [
        old.replace("c!1; c!2 }", "c!1; c!1 }"),
        old.replace("trace {", "notrace {"),
        old.replace("trace { end: do :: c!1; c?1; c!2; c?2 od }\n", ""),
    ];
    let base = check(&version(old).expect("loads"), None, Algorithm::Full)
        .record
        .expect("record");
    for new in &edits {
        let v = version(new).expect("loads");
        let full = check(&v, Some(&base), Algorithm::Full);
        for alg in [Algorithm::Prune, Algorithm::Replay, Algorithm::Auto] {
            let inc = check(&v, Some(&base), alg);
            assert!(!inc.incremental, "{alg:?}: {}", inc.reason);
            assert!(inc.reason.contains("event trace"), "{}", inc.reason);
            assert_eq!(inc.violations, full.violations, "{new}");
            assert_eq!(inc.verdict, full.verdict);
            assert_eq!(inc.stats.spin_figures(), full.stats.spin_figures());
        }
    }
}

/// A golden file: compared byte for byte, rewritten when GIT_RMC_BLESS is set (then the
/// record format version or the semantics version must be bumped with it).
fn golden(name: &str, bytes: &[u8]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("GIT_RMC_BLESS").is_some() {
        std::fs::write(&path, bytes).expect("write golden file");
        return;
    }
    let want = std::fs::read(&path).expect("golden file (GIT_RMC_BLESS=1 writes it)");
    assert!(
        want == bytes,
        "{name} changed: a change of the record's bytes or of fingerprints must bump \
         record::FORMAT or record::SEMANTICS, unless it only adds a section older readers \
         skip (then rerun with GIT_RMC_BLESS=1)"
    );
}

const GOLDEN_MODEL: &str = "byte x; chan c = [1] of { byte };
active proctype P() { do :: x < 2 -> c!x; c?x; x++ :: x == 2 -> assert(x < 2); break od }
";

#[test]
fn a_fingerprint_and_a_record_are_pinned() {
    use git_rmc::explore::Machine;
    let v = version(GOLDEN_MODEL).expect("loads");
    let m = Machine::new(&v.program).expect("layout");
    let st = m.initial().expect("initial state");
    let fp = format!("{:032x}\n", m.fingerprint(&st));
    golden("fingerprint.txt", fp.as_bytes());
    let rec = check(&v, None, Algorithm::Full).record.expect("a record");
    assert_eq!(rec.fingerprints.len(), 12);
    assert_eq!(rec.violations.len(), 1);
    golden("record.rec", &rec.to_bytes());
}

/// A model of some 10^4 states: its fingerprints and state graph are sections large
/// enough to be stored compressed.
const COUNTERS: &str = "byte a, b, c;
active proctype A() { do :: a < 30 -> a++ :: a == 30 -> a = 0 od }
active proctype B() { do :: b < 20 -> b++ :: b == 20 -> break od }
active proctype C() { do :: c < 15 -> c++ :: c == 15 -> break od }
";

#[test]
fn a_record_stores_its_large_sections_compressed_and_reads_back_whole() {
    let v = version(COUNTERS).expect("loads");
    let rec = check(&v, None, Algorithm::Full).record.expect("a record");
    let states = rec.fingerprints.len();
    assert_eq!(states, 85_994);
    let bytes = rec.to_bytes();
    // Each state's fingerprint and set alone are 20 bytes uncompressed, its vector and
    // events more.
    let per_state = bytes.len() as f64 / states as f64;
    assert!(per_state < 20.0, "{per_state:.1} bytes per state");
    let back = Record::from_bytes(&bytes).expect("reads back");
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(back.fingerprints, rec.fingerprints);
    assert_eq!(back.set_of, rec.set_of);
    // Reused, it serves a replay like the record in memory.
    let mutant = COUNTERS.replace("c == 15 -> break", "c == 15 -> c = 0");
    let m = version(&mutant).expect("loads");
    let from_file = check(&m, Some(&back), Algorithm::Replay);
    let full = check(&m, None, Algorithm::Full);
    assert!(from_file.incremental, "{}", from_file.reason);
    assert_eq!(from_file.stats.states_stored, full.stats.states_stored);
    assert_eq!(from_file.stats.transitions, full.stats.transitions);
    assert_eq!(from_file.violations, full.violations);
}

#[test]
fn a_compressed_section_that_does_not_decompress_is_refused_not_a_panic() {
    let v = version(COUNTERS).expect("loads");
    let mut bytes = check(&v, None, Algorithm::Full)
        .record
        .expect("a record")
        .to_bytes();
    // Every byte of the last section (the state graph), rewritten with a valid checksum:
    // only decompression can tell.
    let n = bytes.len();
    for b in &mut bytes[n - 600..n - 400] {
        *b ^= 0x5a;
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..n - 8]);
    bytes[n - 8..].copy_from_slice(&sum.to_le_bytes());
    let err = Record::from_bytes(&bytes).map(|_| ()).expect_err("refused");
    assert!(err.to_string().contains("compressed"), "{err}");
    // What needs no states never decompresses the graph: the model still reads (`diff`).
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("r.rec");
    std::fs::write(&path, &bytes).expect("write");
    let model = Record::read_without_states(&path).expect("the model part reads");
    assert!(model.fingerprints.is_empty() && model.graph.is_none());
    assert!(Record::read(&path).is_err());
}

#[test]
fn a_record_from_before_the_state_graph_still_loads_and_prunes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/record-without-graph.rec");
    if std::env::var_os("GIT_RMC_BLESS").is_some() {
        // (A semantics version later: the record as git rmc wrote it before the graph.)
        let mut rec = check(
            &version(GOLDEN_MODEL).expect("loads"),
            None,
            Algorithm::Full,
        )
        .record
        .expect("a record");
        rec.graph = None;
        std::fs::write(&path, rec.to_bytes()).expect("write golden file");
    }
    let old = Record::read(&path).expect("an older record reads");
    assert!(old.graph.is_none());
    let new = check(
        &version(GOLDEN_MODEL).expect("loads"),
        None,
        Algorithm::Full,
    )
    .record
    .expect("a record");
    assert_eq!(old.fingerprints, new.fingerprints);
    assert_eq!(old.set_of, new.set_of);
    // Used by pruning only: a replay falls back to it and says why.
    let mutant = GOLDEN_MODEL.replace("assert(x < 2)", "assert(x < 3)");
    let got = check(
        &version(&mutant).expect("loads"),
        Some(&old),
        Algorithm::Replay,
    );
    assert!(got.incremental);
    assert_eq!(got.algorithm, Algorithm::Prune, "{}", got.reason);
    let full = check(
        &version(&mutant).expect("loads"),
        Some(&old),
        Algorithm::Full,
    );
    assert_eq!(got.violations, full.violations);
    // Auto: pruning would execute every state here (each one reaches the assertion), so a
    // full check runs instead and writes the graph the old record lacks, for the next
    // commit's replay.
    let auto = check(
        &version(&mutant).expect("loads"),
        Some(&old),
        Algorithm::Auto,
    );
    assert_eq!(auto.algorithm, Algorithm::Full, "{}", auto.reason);
    assert!(auto.reason.contains("state graph"), "{}", auto.reason);
    assert_eq!(auto.violations, full.violations);
    assert!(auto.record.expect("a record").graph.is_some());
}

/// A pruning run of `text` against `base` (whose layout `text` extends): it prunes through
/// the projection (its reason names `added`), reports a full check's violations and verdict
/// (failing or not as `fails` says), and carries no state of the old layout into its record.
/// Returns the pruning run and the full check.
fn pruned_through_projection(
    base: &Record,
    text: &str,
    added: &str,
    fails: bool,
) -> (Checked, Checked) {
    let v = version(text).expect("loads");
    let prune = check(&v, Some(base), Algorithm::Prune);
    let full = check(&v, Some(base), Algorithm::Full);
    assert_eq!(prune.algorithm, Algorithm::Prune, "{}", prune.reason);
    assert!(prune.reason.contains(added), "{}", prune.reason);
    assert_eq!(prune.violations, full.violations, "{text}");
    assert_eq!(prune.verdict, full.verdict, "{text}");
    assert_eq!(!full.violations.is_empty(), fails, "{text}");
    assert!(prune.stats.states_stored <= full.stats.states_stored);
    // A graph only when nothing was pruned (every state was executed in the new layout).
    let rec = prune.record.as_ref().expect("a record");
    assert!(rec.graph.is_none() || prune.stats.states_pruned == 0);
    // Every reachable state, and only those: below the pruned states, the recorded ones are
    // carried into the new layout.
    let all = full.record.as_ref().expect("a record");
    assert_eq!(rec.fingerprints, all.fingerprints, "{text}");
    (prune, full)
}

/// The layout gains a global (declared between two others, so that every later global moves)
/// or a local of a proctype: states are looked up by their projection onto the record's
/// layout, and what cannot reach a statement that uses the new variable is pruned.
#[test]
fn a_layout_that_only_gains_variables_is_pruned_by_projection() {
    let v1 = "byte a; byte b;
active proctype P() {
    if
    :: a = 1; do :: b < 5 -> b++ :: b == 5 -> break od
    :: a = 2; do :: b < 5 -> b++ :: b == 5 -> break od; assert(b == 5)
    fi
}
";
    let base = check(&version(v1).expect("loads"), None, Algorithm::Full)
        .record
        .expect("a record");
    let gained = |assertion: &str| {
        v1.replace("byte a; byte b;", "byte a; byte g = 7; byte b;")
            .replace("assert(b == 5)", assertion)
    };
    for (text, fails) in [
        (gained("assert(b == 5)"), false),
        (gained("assert(b == 5 && g == 7)"), false),
        (gained("g++; assert(g == 7)"), true),
        (gained("assert(b == 5); g = b"), false),
    ] {
        let (prune, full) = pruned_through_projection(&base, &text, "'g'", fails);
        // The branch that never reaches the changed statement is pruned, all but its first
        // state (the initial state is new: it holds g).
        assert!(prune.stats.states_pruned > 0, "{text}: {}", prune.reason);
        assert!(prune.stats.states_stored < full.stats.states_stored);
        // Its record has no graph, from which the next change of layout could carry what
        // it prunes: that check is full, and says why.
        let next = text.replace("byte g = 7;", "byte g = 7; byte h;");
        let again = check(
            &version(&next).expect("loads"),
            prune.record.as_ref(),
            Algorithm::Prune,
        );
        assert_eq!(again.algorithm, Algorithm::Full, "{}", again.reason);
        assert!(again.reason.contains("no state graph"), "{}", again.reason);
    }
    // A local gained by a proctype (before the others): the same.
    let v2 = "byte a; byte b;
active proctype P() {
    byte i;
    if
    :: a = 1; do :: i < 5 -> i++ :: i == 5 -> break od
    :: a = 2; do :: i < 5 -> i++ :: i == 5 -> break od; b = i
    fi
}
active proctype Q() { byte k; if :: (b > 0) -> k = b; assert(k == 5) :: (a == 1) -> skip fi }
";
    let base2 = check(&version(v2).expect("loads"), None, Algorithm::Full)
        .record
        .expect("a record");
    let gained = |with: &str| {
        v2.replace("    byte i;", "    byte n = 2; byte i;")
            .replace("b = i", with)
    };
    for (text, fails) in [
        (gained("b = i"), false),
        (gained("n++; b = i + n"), true),
        (
            v2.replace(
                "active proctype Q() { byte k;",
                "active proctype Q() { byte j = 1; byte k;",
            )
            .replace("assert(k == 5)", "assert(k + j == 7)"),
            true,
        ),
    ] {
        let (prune, _) = pruned_through_projection(&base2, &text, "projection", fails);
        assert!(prune.stats.states_pruned > 0, "{text}: {}", prune.reason);
    }
    // Processes started by `run`: a `run` of a proctype that gained a local starts another
    // process, so it is dangerous; what runs before it is pruned.
    let v3 = "byte done;
proctype W(byte id) { byte s; do :: s < 3 -> s++ :: s == 3 -> break od; done++ }
init { byte t; do :: t < 4 -> t++ :: t == 4 -> break od; run W(1); run W(2); (done == 2); assert(done == 2) }
";
    let base3 = check(&version(v3).expect("loads"), None, Algorithm::Full)
        .record
        .expect("a record");
    for (end, fails) in [("done++", false), ("w = s; done = done + w", true)] {
        let text = v3
            .replace("byte s;", "byte w; byte s;")
            .replace("break od; done++", &format!("break od; {end}"));
        let (prune, _) = pruned_through_projection(&base3, &text, "'W:w'", fails);
        // Unless every state reaches the changed end of W.
        assert!(
            fails || prune.stats.states_pruned > 0,
            "{text}: {}",
            prune.reason
        );
    }
    // Removing a global drops its bytes: recorded states are met by key, and what cannot
    // reach a statement that changed is pruned.
    let removed = v1
        .replace("byte a; byte b;", "byte b;")
        .replace("a = 1", "b = 1")
        .replace("a = 2", "b = 2");
    pruned_through_projection(&base, &removed, "global 'a' removed", false);
    // Gaining a global channel maps too (channel numbers renumbered where they move).
    let text = v1.replace(
        "byte a; byte b;",
        "byte a; chan q = [1] of { byte }; byte b;",
    );
    let (prune, _) = pruned_through_projection(&base, &text, "channel 'q' added", false);
    assert!(prune.stats.states_pruned > 0, "{text}: {}", prune.reason);
    // A channel number held in a record field would need renumbering too: a full check.
    let text = format!("typedef R {{ chan c }};\nR r;\n{text}");
    let got = check(
        &version(&text).expect("loads"),
        Some(&base),
        Algorithm::Prune,
    );
    assert_eq!(got.algorithm, Algorithm::Full, "{text}: {}", got.reason);
}

/// Mutants of every seed model that gain a global at a random place among the declarations,
/// or a local in a random proctype (and, half the time, another change): the pruning run
/// reports what a full check reports.
#[test]
fn pruning_runs_agree_with_full_checks_when_variables_are_added() {
    let mut rng = Rng(0x5eed_0a11);
    let reasons = pruned_sweep(&mut rng, 10, |text, rng, k| {
        let m = gain_variables(text, rng, k)?;
        if k % 3 == 1 {
            return mutate(&m, rng);
        }
        Some(m)
    });
    let compared = reasons.len();
    let projected = reasons
        .iter()
        .filter(|(r, _)| r.contains("projection"))
        .count();
    let local = |r: &String| r.contains(":rmc_gained_local'");
    let locals = reasons.iter().filter(|(r, _)| local(r)).count();
    let only_locals = reasons
        .iter()
        .filter(|(r, _)| local(r) && !r.contains("rmc_gained_global"))
        .count();
    eprintln!(
        "{compared} mutants gaining variables compared, {projected} pruned by projection, \
         {locals} gaining a local ({only_locals} only a local)"
    );
    assert!(compared >= 30, "only {compared} compared");
    assert!(
        projected * 2 >= compared,
        "{projected} of {compared} projected"
    );
    assert!(locals >= 10, "only {locals} gained a local");
    assert!(only_locals >= 20, "only {only_locals} gained only a local");
    // Chains: each version gains one more global (and, every other step, another change)
    // and is pruned with the record the previous pruning run wrote.
    let steps = pruned_chains(&mut rng, 8, |current, rng, k| {
        let lines: Vec<&str> = current.lines().collect();
        let at = (0..lines.len())
            .find(|&i| lines[i].starts_with("active") || lines[i].starts_with("proctype"))?;
        let mut ls: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        ls.insert(rng.below(at + 1), format!("byte rmc_gained_{k} = {k};"));
        let next = ls.join("\n") + "\n";
        if k % 2 == 1 {
            return Some(mutate(&next, rng).unwrap_or(next));
        }
        Some(next)
    });
    assert!(steps >= 40, "only {steps} chain steps");
}

/// Declaration mutants of every seed model (retyped, resized, reordered, a proctype added, a
/// channel's field retyped, an mtype name added; another change every third time) pruned
/// through the map between the layouts: what a full check reports, and a record holding
/// every state with a recording run's set. Then a variable that statements wrote and none
/// read removed (several recorded states stand for one new state, met by key), and chains
/// of ten versions mixing declaration and statement changes.
#[test]
fn pruning_runs_agree_with_full_checks_across_declaration_changes() {
    let mut rng = Rng(0x5eed_0d3e);
    let reasons = pruned_sweep(&mut rng, 2 * DECLARATION_KINDS, |text, rng, k| {
        let m = change_declaration(text, rng, k)?;
        if k % 3 == 1 {
            return mutate(&m, rng);
        }
        Some(m)
    });
    let compared = reasons.len();
    let projected = reasons
        .iter()
        .filter(|(r, _)| r.contains("projection"))
        .count();
    let pruned = reasons
        .iter()
        .filter(|(r, p)| r.contains("projection") && *p > 0)
        .count();
    eprintln!(
        "{compared} declaration mutants compared, {projected} pruned through the map, \
         {pruned} pruned something"
    );
    assert!(compared >= 150, "only {compared} compared");
    assert!(
        projected * 2 >= compared,
        "{projected} of {compared} projected"
    );
    assert!(pruned * 3 >= projected, "{pruned} of {projected} pruned");
    // Removed: the base is the record of the version that had the variable.
    let (mut removed, mut removed_pruned) = (0, 0);
    each_recorded_pair(&mut rng, 3, dead_variable_removed, |what, base, gone| {
        if let Some((_, pruned)) = compare(&format!("{what} removed"), base, gone) {
            removed += 1;
            removed_pruned += usize::from(pruned > 0);
        }
    });
    eprintln!("{removed} removals compared, {removed_pruned} pruned something");
    assert!(removed >= 60, "only {removed} removals compared");
    assert!(
        removed_pruned * 3 >= removed,
        "{removed_pruned} of {removed} pruned"
    );
    let steps = pruned_chains(&mut rng, 30, |current, rng, k| {
        // (A chain ends at the first step that makes nothing: try a few kinds.)
        (0..8).find_map(|_| match (k + rng.below(3)) % 3 {
            0 => {
                let kind = rng.below(DECLARATION_KINDS);
                change_declaration(current, rng, kind)
            }
            1 => mutate(current, rng),
            _ if current.contains("rmc_dead") => Some(without_dead_variable(current)),
            _ => with_dead_variable(current, rng),
        })
    });
    assert!(steps >= 100, "only {steps} chain steps");
}

/// Versions made by `make` of every seed model, `per_model` tries each, pruned against the
/// seed's record and compared with a full check: per version compared, the pruning run's
/// reason and how many states it pruned.
fn pruned_sweep(
    rng: &mut Rng,
    per_model: usize,
    mut make: impl FnMut(&str, &mut Rng, usize) -> Option<String>,
) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for (name, text) in seed_models(20_000) {
        let Some(v) = version(&text) else { continue };
        let Some(base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        for k in 0..per_model {
            let Some(m) = make(&text, rng, k) else {
                continue;
            };
            let Some(mv) = version(&m) else { continue };
            let inc = check(&mv, Some(&base), Algorithm::Prune);
            if let Some((_, pruned)) = compare(&format!("{name} #{k}"), &base, &m) {
                out.push((inc.reason, pruned));
            }
        }
    }
    out
}

/// Chains of ten versions of the first `models` seed models, each made by `make` from the
/// last one accepted (with its step number) and pruned with the record the previous pruning
/// run wrote; returns the steps compared.
fn pruned_chains(
    rng: &mut Rng,
    models: usize,
    mut make: impl FnMut(&str, &mut Rng, usize) -> Option<String>,
) -> usize {
    let mut steps = 0;
    for (name, text) in seed_models(20_000).into_iter().take(models) {
        let Some(v) = version(&text) else { continue };
        let Some(mut base) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        let mut current = text.clone();
        for k in 0..10 {
            let Some(next) = make(&current, rng, k) else {
                break;
            };
            if let Some((rec, _)) = compare(&format!("{name} chain step {k}"), &base, &next) {
                base = rec;
                current = next;
                steps += 1;
            }
        }
    }
    steps
}

/// Mutants of every seed model whose global channel changes capacity (and, every third
/// time, another change): pruning through the projection reports what a full check
/// reports. Then chains of versions, each resizing a channel and pruned with the record the
/// previous pruning run wrote.
#[test]
fn pruning_runs_agree_with_full_checks_when_a_channel_changes_capacity() {
    let mut rng = Rng(0x5eed_0c4b);
    let resized = |text: &str, rng: &mut Rng, k: usize| {
        let m = resize_channel(text, rng, k)?;
        if k % 3 == 1 {
            return mutate(&m, rng);
        }
        Some(m)
    };
    let reasons = pruned_sweep(&mut rng, 6, resized);
    let compared = reasons.len();
    let projected = reasons
        .iter()
        .filter(|(r, _)| r.contains("projection"))
        .count();
    let pruned = reasons
        .iter()
        .filter(|(r, p)| r.contains("projection") && *p > 0)
        .count();
    eprintln!(
        "{compared} mutants resizing a channel compared, {projected} pruned by projection, \
         {pruned} pruned something"
    );
    assert!(compared >= 60, "only {compared} compared");
    assert!(
        projected * 3 >= compared * 2,
        "{projected} of {compared} projected"
    );
    assert!(pruned * 4 >= projected, "{pruned} of {projected} pruned");
    let steps = pruned_chains(&mut rng, 12, |current, rng, k| {
        let next = resize_channel(current, rng, k)?;
        if k % 3 == 2 {
            return Some(mutate(&next, rng).unwrap_or(next));
        }
        Some(next)
    });
    assert!(steps >= 30, "only {steps} chain steps");
}

/// Mutants of every model under `$GIT_RMC_CORPUS` (a folder of public models, say) that gain
/// a global, a local or both (and, half the time, another change): pruning through the
/// projection reports what a full check reports. Run with `--ignored`.
#[test]
#[ignore = "needs GIT_RMC_CORPUS: a folder of Promela models"]
fn pruning_through_gained_variables_equals_full_checks_on_a_corpus() {
    let Some(dir) = std::env::var_os("GIT_RMC_CORPUS") else {
        return;
    };
    let mut rng = Rng(sweep_seed(0x5eed_0a12));
    let (mut compared, mut projected) = (0, 0);
    for (name, text, base) in corpus_records(std::path::Path::new(&dir)) {
        for k in 1..7 {
            let Some(mut m) = gain_variables(&text, &mut rng, k) else {
                continue;
            };
            if k % 3 == 0 {
                match mutate(&m, &mut rng) {
                    Some(x) => m = x,
                    None => continue,
                }
            }
            let Some(mv) = version(&m) else { continue };
            let inc = check(&mv, Some(&base), Algorithm::Prune);
            if compare(&format!("{name} +vars #{k}"), &base, &m).is_some() {
                compared += 1;
                projected += usize::from(inc.reason.contains("projection"));
            }
        }
    }
    eprintln!("{compared} corpus mutants gaining variables compared, {projected} projected");
}

/// A run that writes a record and reaches its memory limit stops there, incomplete, with no
/// record: the sets and the state graph it was building stop taking commands when their
/// own memory runs out (the search learns of it a step or a batch later, and the commands
/// already sent would name stored states the book could not add). Limits are swept so
/// that the book, and not the search, runs out first at some of them, on both threads and
/// inline, recording and replaying.
#[test]
fn a_run_whose_book_runs_out_of_memory_stops_cleanly() {
    let small = version(&common::three_counters(12)).expect("loads");
    let base = check(&small, None, Algorithm::Full)
        .record
        .expect("complete");
    let big = version(&common::three_counters(40)).expect("loads");
    let mut cut = 0;
    for thread in [false, true] {
        for (alg, base) in [(Algorithm::Full, None), (Algorithm::Replay, Some(&base))] {
            for mib in (4..=40).step_by(2) {
                let opts = git_rmc::explore::Options {
                    memory_limit: Some(mib << 20),
                    ..Default::default()
                };
                // check_on fails where the worker failed and a full check stood in.
                let c = check_on(&big, base, alg, &opts, Some(thread));
                if c.verdict.as_str() == "incomplete" {
                    assert!(c.stats.states_stored < 270_643, "{mib} MiB");
                    assert!(c.record.is_none(), "{mib} MiB");
                    cut += 1;
                } else {
                    assert_eq!(c.stats.states_stored, 270_643, "{mib} MiB");
                    assert!(c.record.is_some(), "{mib} MiB");
                }
            }
        }
    }
    assert!(cut > 20, "{cut} runs cut");
}
