//! The LTL translator against spin 6.5.2: `translate` must print exactly what `spin -f` prints,
//! and reject exactly what it rejects.
//!
//! `tests/ltl/formulas.txt` lists the formulas: hand-written ones that exercise every rewrite
//! rule, reduction and lexical case, the formulas of the conformance models (as spin prints
//! them, negated as spin negates them for a claim), and random formulas from the seeded
//! generator below. `tests/ltl/spin_f.txt` holds spin's output for each (written by
//! `tests/ltl/refresh.sh`), so the comparison runs without spin; when `spin` is on the PATH the
//! formulas are also compared live. The default tests take every hand-written and model formula
//! and a quarter of the random ones; the ignored ones take all, and
//! `GIT_RMC_SEED=<n> cargo test --test ltl -- --ignored fresh_random` compares fresh random
//! formulas live.

use std::path::PathBuf;
use std::process::Command;

use git_rmc::ltl::{never_claim_for_ltl, translate};

/// The random section's seed and size (changing them needs `refresh.sh`).
const SEED: u64 = 40;
const RANDOM_COUNT: usize = 1100;
const RANDOM_HEADER: &str =
    "# random: written by tests/ltl.rs (random_formulas_are_listed); do not edit below";

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ltl")
        .join(name)
}

/// One formula and what spin printed: `Some(text)` on success, `None` when it rejected it.
struct Entry {
    formula: String,
    expected: Option<String>,
    random: bool,
}

fn recorded() -> Vec<Entry> {
    let text = std::fs::read_to_string(data("spin_f.txt")).expect("tests/ltl/spin_f.txt");
    let mut entries: Vec<Entry> = Vec::new();
    let mut random = false;
    for line in text.split_inclusive('\n') {
        if let Some(f) = line.strip_prefix("@@ formula ") {
            entries.push(Entry {
                formula: f.strip_suffix('\n').unwrap_or(f).to_string(),
                expected: Some(String::new()),
                random,
            });
        } else if line.starts_with("@@ rejected") {
            entries.last_mut().expect("an entry").expected = None;
        } else if line.starts_with("@@ random") {
            random = true;
        } else if line.starts_with("#") && entries.is_empty() {
            continue;
        } else if let Some(Entry {
            expected: Some(out),
            ..
        }) = entries.last_mut()
        {
            out.push_str(line);
        }
    }
    entries
}

/// The formulas of `formulas.txt`, in order, with whether they are in the random section.
fn listed() -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(data("formulas.txt")).expect("tests/ltl/formulas.txt");
    let mut random = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line == RANDOM_HEADER {
            random = true;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push((line.to_string(), random));
    }
    out
}

/// What the translator's result says, in the form spin's is recorded.
fn ours(formula: &str) -> Option<String> {
    translate(formula).ok()
}

fn describe(out: &Option<String>) -> String {
    match out {
        Some(s) => s.clone(),
        None => "(rejected)\n".into(),
    }
}

/// Compares each formula's translation with `expected(formula)`; fails listing the first
/// differences.
fn compare<'a>(formulas: impl Iterator<Item = (&'a str, Option<String>)>) {
    let mut failures = Vec::new();
    let mut n = 0;
    for (f, want) in formulas {
        n += 1;
        let got = ours(f);
        if got != want {
            failures.push(format!(
                "formula {f:?}\n--- translate\n{}--- spin -f\n{}",
                describe(&got),
                describe(&want)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} formulas differ from spin; the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn ci_subset(entries: &[Entry]) -> impl Iterator<Item = &Entry> {
    let mut k = 0;
    entries.iter().filter(move |e| {
        if !e.random {
            return true;
        }
        k += 1;
        k % 4 == 1
    })
}

/// spin 6.5.2 when it is on the PATH.
fn spin() -> Option<&'static str> {
    let out = Command::new("spin").arg("-V").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .contains("6.5.2")
        .then_some("spin")
}

fn spin_f(spin: &str, formula: &str) -> Option<String> {
    let out = Command::new(spin)
        .arg("-f")
        .arg(formula)
        .output()
        .expect("run spin");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn recorded_file_covers_the_formula_list() {
    let rec: Vec<(String, bool)> = recorded()
        .into_iter()
        .map(|e| (e.formula, e.random))
        .collect();
    assert_eq!(
        rec,
        listed(),
        "tests/ltl/spin_f.txt is stale: run tests/ltl/refresh.sh"
    );
    assert!(rec.len() >= 1000, "only {} formulas", rec.len());
}

#[test]
fn random_formulas_are_listed() {
    let want = random_formulas(SEED, RANDOM_COUNT);
    if std::env::var_os("GIT_RMC_LTL_WRITE").is_some() {
        let path = data("formulas.txt");
        let text = std::fs::read_to_string(&path).expect("formulas.txt");
        let head = text.split(RANDOM_HEADER).next().unwrap_or("");
        let body: String = want.iter().map(|f| format!("{f}\n")).collect();
        std::fs::write(&path, format!("{head}{RANDOM_HEADER}\n{body}"))
            .expect("write formulas.txt");
        return;
    }
    let have: Vec<String> = listed()
        .into_iter()
        .filter(|(_, r)| *r)
        .map(|(f, _)| f)
        .collect();
    assert_eq!(
        have, want,
        "the random section of formulas.txt is stale: run tests/ltl/refresh.sh"
    );
}

#[test]
fn matches_recorded_spin_output() {
    let entries = recorded();
    compare(ci_subset(&entries).map(|e| (e.formula.as_str(), e.expected.clone())));
}

#[test]
fn matches_live_spin() {
    let Some(spin) = spin() else {
        eprintln!("spin 6.5.2 is not on the PATH: live comparison skipped");
        return;
    };
    let entries = recorded();
    compare(ci_subset(&entries).map(|e| (e.formula.as_str(), spin_f(spin, &e.formula))));
}

#[test]
#[ignore = "every recorded formula (about a minute)"]
fn matches_recorded_spin_output_all() {
    let entries = recorded();
    compare(
        entries
            .iter()
            .map(|e| (e.formula.as_str(), e.expected.clone())),
    );
}

#[test]
#[ignore = "every recorded formula against spin itself"]
fn matches_live_spin_all() {
    let spin = spin().expect("spin 6.5.2 on the PATH");
    let entries = recorded();
    compare(
        entries
            .iter()
            .map(|e| (e.formula.as_str(), spin_f(spin, &e.formula))),
    );
}

/// `GIT_RMC_SEED=<n>` (default 1) and `GIT_RMC_COUNT=<n>` (default 200) fresh formulas.
#[test]
#[ignore = "fresh random formulas against spin itself"]
fn fresh_random_formulas_match_live_spin() {
    let spin = spin().expect("spin 6.5.2 on the PATH");
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let formulas = random_formulas(env("GIT_RMC_SEED", 1), env("GIT_RMC_COUNT", 200) as usize);
    compare(formulas.iter().map(|f| (f.as_str(), spin_f(spin, f))));
}

/// The conformance models with `ltl` formulas (a directory is copied whole for its includes),
/// and a model of our own with `W`, `->`, remote references and an unnamed formula.
const MODELS: &[&str] = &[
    "ltl_formulas.pml",
    "ltl_next_as_value.pml",
    "bad/ltl_next_operator.pml",
    "ltl_line_lag/main.pml",
    "leader_election/main.pml",
];

const OWN_MODEL: &str = r#"int x;
proctype P() { done: skip }
active proctype main() { do :: x < 3 -> x++ :: x == 3 -> x = 0 od }
ltl p1 { [](x<3) }
ltl p2 { []<>(x==3) && (x != 2 U x == 1) W (P[0]@done) }
ltl { (x==1) -> <> (x == 2) || !(x>0) && x <= 4 }
ltl p4 { [] (x >= 0 -> (x < 4 V x != 5)) <-> <> [] (x == 0) }
"#;

/// For `ltl name { ... }` spin prints `ltl name: text` and writes the translation of `!(text)`
/// into `_spin_nvr.tmp`; it stops at the first formula its translator rejects.
#[test]
fn model_claims_match_spins_nvr_file() {
    let Some(spin) = spin() else {
        eprintln!("spin 6.5.2 is not on the PATH: model claims not compared");
        return;
    };
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut checked = 0;
    for model in MODELS.iter().map(|m| Some(*m)).chain([None]) {
        let dir = tempfile::tempdir().expect("tempdir");
        let main = match model {
            Some(rel) => {
                let src = models.join(rel);
                let name = src.file_name().expect("a file").to_owned();
                if rel.contains('/') && !rel.starts_with("bad/") {
                    copy_dir(src.parent().expect("a directory"), dir.path());
                } else {
                    std::fs::copy(&src, dir.path().join(&name)).expect("copy model");
                }
                name.to_string_lossy().into_owned()
            }
            None => {
                std::fs::write(dir.path().join("own.pml"), OWN_MODEL).expect("write model");
                "own.pml".to_string()
            }
        };
        let out = Command::new(spin)
            .arg("-a")
            .arg(&main)
            .current_dir(dir.path())
            .output()
            .expect("run spin -a");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let rejected = stdout.contains("tl_spin:");
        let mut ours = String::new();
        let mut failed = false;
        for line in stdout.lines() {
            let Some((name, text)) = line.strip_prefix("ltl ").and_then(|l| l.split_once(": "))
            else {
                continue;
            };
            assert!(!failed, "{main}: spin went on after a rejected formula");
            match never_claim_for_ltl(name, text) {
                Ok(claim) => ours.push_str(&claim),
                Err(_) => failed = true,
            }
            checked += 1;
        }
        assert_eq!(
            failed, rejected,
            "{main}: rejection differs from spin's\n{stdout}"
        );
        let nvr = std::fs::read_to_string(dir.path().join("_spin_nvr.tmp")).unwrap_or_default();
        assert_eq!(ours, nvr, "{main}: claims differ from spin's _spin_nvr.tmp");
    }
    assert!(checked >= 12, "only {checked} formulas");
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).expect("read model directory") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// SplitMix64: small, seeded, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// Propositions as they appear in models' claims.
const EXPRESSIONS: &[&str] = &["(x<3)", "(P[0]@done)", "((x==1)&&(y!=2))", "(len(q)>0)"];
const NAMES: &[&str] = &["p", "q", "r", "s"];

/// Random formulas over 2 to 4 propositions with up to 6 operators of every kind (`X` and
/// `W`, which spin -f rejects, now and then), nested at most 5 deep, with at most one `<->`
/// and that over at most one other operator (with temporal operands on both sides it
/// multiplies the tableau: spin needs minutes for some), and varied spacing and parentheses.
fn random_formulas(seed: u64, count: usize) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let props: Vec<&str> = if rng.chance(10) {
                EXPRESSIONS[..2 + rng.below(3)].to_vec()
            } else {
                NAMES[..2 + rng.below(3)].to_vec()
            };
            let ops = 1 + rng.below(6);
            let mut equivs = 1;
            random_formula(&mut rng, &props, ops, 5, &mut equivs)
        })
        .collect()
}

fn random_formula(
    rng: &mut Rng,
    props: &[&str],
    ops: usize,
    depth: usize,
    equivs: &mut usize,
) -> String {
    if ops == 0 || depth == 1 {
        if rng.chance(5) {
            return rng.pick(&["true", "false"]).to_string();
        }
        return rng.pick(props).to_string();
    }
    if rng.chance(40) {
        let op = if rng.chance(3) {
            "X"
        } else {
            rng.pick(&["[]", "<>", "!"])
        };
        let sep = if rng.chance(50) { "" } else { " " };
        let operand = random_formula(rng, props, ops - 1, depth - 1, equivs);
        return format!("{op}{sep}{}", wrap(rng, operand));
    }
    let mut op = if rng.chance(4) {
        "W"
    } else {
        rng.pick(&["U", "V", "->", "<->", "&&", "||"])
    };
    if op == "<->" {
        if *equivs == 0 || ops > 2 {
            op = rng.pick(&["U", "V", "&&", "||"]);
        } else {
            *equivs -= 1;
        }
    }
    let left_ops = rng.below(ops);
    let l = random_formula(rng, props, left_ops, depth - 1, equivs);
    let r = random_formula(rng, props, ops - 1 - left_ops, depth - 1, equivs);
    let (l, r) = (wrap(rng, l), wrap(rng, r));
    format!("{l} {op} {r}")
}

/// Parenthesises a compound operand, and now and then leaves a simple one bare.
fn wrap(rng: &mut Rng, s: String) -> String {
    let simple = !s.contains(' ');
    if s.len() <= 1
        || (simple && rng.chance(30))
        || (s.starts_with('(') && s.ends_with(')') && simple)
    {
        return s;
    }
    format!("({s})")
}
