//! The regression engine against full checks (DESIGN.md 5.2): on mutants of the project's
//! models, a pruning run reports exactly the violations and the verdict of a full check of
//! the new version; along chains of mutants, each reusing the record the previous run wrote,
//! the accumulated record holds, for every state of the new version, the set a recording run
//! of that version stores for it.

mod common;

use std::collections::BTreeSet;

use common::rmc::{check, mutate, seed_models, version, Rng};
use git_rmc::rmc::check::Algorithm;
use git_rmc::rmc::elements::Element;
use git_rmc::rmc::Record;

/// A record's sets by fingerprint, as sets of elements.
fn sets_by_fingerprint(r: &Record) -> std::collections::HashMap<u128, BTreeSet<Element>> {
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
    Some((inc.record?, inc.stats.states_pruned))
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
    let (compared, pruned) = sweep(400, 0x5eed_0003, 100_000);
    eprintln!("{compared} mutants compared, {pruned} with states pruned");
    assert!(compared >= 3000, "only {compared} mutants compared");
}

#[test]
fn records_accumulate_along_chains_of_mutants() {
    let mut rng = Rng(0x5eed_0002);
    let mut chains = 0;
    for (name, text) in seed_models(5_000).into_iter().step_by(3) {
        let Some(v) = version(&text) else { continue };
        let Some(mut record) = check(&v, None, Algorithm::Full).record else {
            continue;
        };
        let mut current = text.clone();
        let mut steps = 0;
        let mut tries = 0;
        while steps < 10 && tries < 60 {
            tries += 1;
            let Some(next) = mutate(&current, &mut rng) else {
                continue;
            };
            let Some(nv) = version(&next) else { continue };
            let inc = check(&nv, Some(&record), Algorithm::Prune);
            let full = check(&nv, Some(&record), Algorithm::Full);
            let (Some(ir), Some(fr)) = (inc.record, full.record) else {
                continue;
            };
            assert_eq!(
                inc.violations, full.violations,
                "{name} step {steps}:\n{next}"
            );
            assert_eq!(inc.verdict, full.verdict, "{name} step {steps}");
            // Every state of the new version has the set a recording run gives it.
            let acc = sets_by_fingerprint(&ir);
            for (fp, set) in sets_by_fingerprint(&fr) {
                assert_eq!(
                    acc.get(&fp),
                    Some(&set),
                    "{name} step {steps}: the accumulated record differs for a state\n{next}"
                );
            }
            record = ir;
            current = next;
            steps += 1;
        }
        if steps == 10 {
            chains += 1;
        }
    }
    assert!(chains >= 5, "only {chains} chains of 10 mutants");
}
