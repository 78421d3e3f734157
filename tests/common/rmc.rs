//! Helpers for regression checks in tests: a model version from text, one check of it with or
//! without a base record (the record round-trips through its bytes), and mutations that keep
//! most models well-formed.

use std::collections::BTreeSet;
use std::path::Path;

use git_rmc::explore::{Machine, Options, Stats, Verdict};
use git_rmc::program::Program;
use git_rmc::promela::preprocess::PpOptions;
use git_rmc::promela::source::MemoryProvider;
use git_rmc::rmc::check::{self, Algorithm};
use git_rmc::rmc::record::Sources;
use git_rmc::rmc::{Base, Record};

/// One version of a model, loaded from text.
#[derive(Clone)]
pub struct Version {
    pub program: Program,
    pub sources: Sources,
    pub text: String,
}

pub fn version(text: &str) -> Option<Version> {
    let provider = MemoryProvider::new().with("m.pml", text);
    let opts = PpOptions::default();
    let loaded = git_rmc::load(Path::new("m.pml"), &provider, &opts);
    let program = loaded.program?;
    Some(Version {
        sources: check::sources_of(Path::new("m.pml"), &loaded.files, &opts),
        program,
        text: text.to_string(),
    })
}

/// A violation as kind, stable locations and edge index.
pub type Found = (String, Vec<u32>, Option<u32>);

pub struct Checked {
    pub record: Option<Record>,
    pub violations: BTreeSet<Found>,
    pub verdict: Verdict,
    pub stats: Stats,
    pub incremental: bool,
    pub reason: String,
    pub dangerous: usize,
    /// The algorithm that ran.
    pub algorithm: Algorithm,
    /// Each violation's kind and trail, in the order reported.
    pub trails: Vec<(String, Vec<git_rmc::explore::trail::TrailStep>)>,
    /// Per edge: whether the search executed it (the unreached-code report).
    pub executed: Vec<bool>,
    /// The change left the recorded state graph as it was (nothing searched or walked).
    pub unchanged: bool,
    /// Then, the states at the change whose changed conditions' values showed it (the
    /// others were executed in both versions and compared).
    pub by_conditions: u64,
}

/// Checks a version, reusing `base` when given, with `opts`. Every trail (those of
/// violations reported again from pruned states included) must replay to its violation.
pub fn check_with(v: &Version, base: Option<&Record>, alg: Algorithm, opts: &Options) -> Checked {
    check_on(v, base, alg, opts, None)
}

/// `check_with`, the state graph built on a second thread (`Some(true)`), inline
/// (`Some(false)`) or as the machine allows (`None`).
pub fn check_on(
    v: &Version,
    base: Option<&Record>,
    alg: Algorithm,
    opts: &Options,
    thread: Option<bool>,
) -> Checked {
    check_tuned(v, base, alg, opts, thread, |_| {})
}

/// `check_on`, with what the plan reuses adjusted by `tune` before the run (a pruning run
/// that gives up looking states up early, say).
pub fn check_tuned(
    v: &Version,
    base: Option<&Record>,
    alg: Algorithm,
    opts: &Options,
    thread: Option<bool>,
    tune: impl FnOnce(&mut check::Reuse),
) -> Checked {
    let mut base = base.map(|r| {
        // A record read from its file is used as read (the record written next may stand
        // on it); another round-trips through its bytes first.
        let from_file = r.graph.as_ref().is_some_and(|g| g.origin.is_some());
        let again = if from_file {
            r.clone()
        } else {
            let bytes = r.to_bytes();
            // (Its graph's bytes shared with the buffer, as a record read from a file has
            // them.)
            let again = Record::from_shared(bytes.into()).expect("a record reads back");
            assert_eq!(&again, r, "a record round-trips through its bytes");
            again
        };
        Base::from_record(again).expect("the base program rebuilds")
    });
    let plan = check::plan(v.program.clone(), base.as_mut(), opts, alg);
    let reason = plan.reason.clone();
    let dangerous = plan.impact.as_ref().map_or(0, |i| i.dangerous.len());
    let algorithm = plan.algorithm;
    let incremental = plan.incremental();
    let check::Plan {
        program,
        ids,
        mut reuse,
        ..
    } = plan;
    tune(&mut reuse);
    let (unchanged, by_conditions) = match &reuse {
        check::Reuse::Unchanged(u) => (true, u.by_conditions),
        _ => (false, 0),
    };
    let m = Machine::new(&program).expect("layout");
    let mut run = match thread {
        Some(t) => check::run_on(&m, reuse, base.as_ref(), opts, &mut |_| {}, t),
        None => check::run(&m, reuse, base.as_ref(), opts, &mut |_| {}),
    };
    assert_eq!(
        run.fell_back, None,
        "the recorded graph did not fit\n{}",
        v.text
    );
    check::complete_trails(&m, &mut run.outcome, opts).expect("pruned violations are found again");
    for x in &run.outcome.violations {
        assert!(
            m.reproduces(&run.outcome.initial, x, opts),
            "the trail of {:?} ({}) does not reach it (incremental: {incremental})\n{}",
            x.kind,
            x.message,
            v.text
        );
    }
    let violations = run
        .outcome
        .violations
        .iter()
        .map(|x| {
            let r = check::rec_violation(&m, x);
            (r.kind, r.at, r.edge)
        })
        .collect();
    let record = check::record(&m, &ids, &mut run, base.as_ref(), v.sources.clone(), opts);
    let trails = run
        .outcome
        .violations
        .iter()
        .map(|x| {
            (
                x.kind.as_str().to_string(),
                x.trail.clone().unwrap_or_default(),
            )
        })
        .collect();
    Checked {
        record,
        violations,
        verdict: run.outcome.verdict(),
        stats: run.outcome.stats.clone(),
        incremental,
        reason,
        dangerous,
        algorithm,
        trails,
        executed: run.outcome.executed.clone(),
        unchanged,
        by_conditions,
    }
}

pub fn check(v: &Version, base: Option<&Record>, alg: Algorithm) -> Checked {
    check_with(v, base, alg, &limited())
}

/// Options for tests: the defaults, with a state limit so that no mutant runs away, and
/// successors built ahead from the first state (as large searches build them), so that every
/// recording, pruning and replaying run of the sweeps goes through that path too.
pub fn limited() -> Options {
    Options {
        max_states: Some(200_000),
        look_ahead_from: 0,
        ..Options::default()
    }
}

/// A small deterministic random source.
pub struct Rng(pub u64);

/// The seed of a long (`--ignored`) sweep: `default`, or, with `GIT_RMC_SEED=N`, another
/// one derived from it, so that a sweep can be run again on mutants it has not tried.
pub fn sweep_seed(default: u64) -> u64 {
    match std::env::var("GIT_RMC_SEED") {
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) => default ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            Err(_) => panic!("GIT_RMC_SEED must be a number, not {v:?}"),
        },
        Err(_) => default,
    }
}

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One semantic mutation: a constant, a comparison or arithmetic operator, a statement
/// deleted, duplicated or swapped with the next, a statement added inside an atomic or
/// d_step, a process added or removed, a declaration changed, a variable renamed, an initial
/// value changed. Returns None when the chosen mutation does not apply.
pub fn mutate(src: &str, rng: &mut Rng) -> Option<String> {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return None;
    }
    let body: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let t = lines[i].trim();
            !t.is_empty() && !t.starts_with("/*") && !t.starts_with('*') && !t.starts_with("//")
        })
        .collect();
    if body.is_empty() {
        return None;
    }
    let i = body[rng.below(body.len())];
    let op = rng.below(11);
    let l = lines[i].clone();
    match op {
        0 => {
            // A constant.
            let k = l.find(|c: char| c.is_ascii_digit())?;
            let d = (l.as_bytes()[k] - b'0' + 1 + rng.below(3) as u8) % 10;
            lines[i].replace_range(k..k + 1, &d.to_string());
        }
        1 => {
            // An operator.
            let pairs = [
                ("<=", "<"),
                (">=", ">"),
                ("==", "!="),
                ("!=", "=="),
                ("&&", "||"),
                ("||", "&&"),
                (" < ", " <= "),
                (" > ", " >= "),
                (" + ", " - "),
                (" - ", " + "),
            ];
            let (a, b) = pairs.iter().find(|(a, _)| l.contains(a))?;
            lines[i] = l.replacen(a, b, 1);
        }
        2 => {
            if !l.trim_end().ends_with(';') {
                return None;
            }
            lines.remove(i);
        }
        3 => {
            if !l.trim_end().ends_with(';') {
                return None;
            }
            lines.insert(i, l);
        }
        4 => {
            let j = *body.iter().find(|&&j| j > i)?;
            lines.swap(i, j);
        }
        5 => {
            // A statement added inside an atomic or d_step.
            let k = l.find("atomic {").or_else(|| l.find("d_step {"))?;
            let at = l[k..].find('{')? + k + 1;
            let extra = if rng.below(2) == 0 {
                " skip;"
            } else {
                " _nr_pr > 0;"
            };
            lines[i].insert_str(at, extra);
        }
        6 => {
            // A process added or removed.
            if let Some(k) = l.find("active proctype") {
                lines[i].replace_range(k..k + 15, "active [2] proctype");
            } else if let Some(k) = l.find("active [") {
                let end = l[k..].find(']')? + k + 1;
                lines[i].replace_range(k..end, "active");
            } else {
                return None;
            }
        }
        7 => {
            // A declaration's type.
            let pairs = [
                ("byte ", "short "),
                ("short ", "int "),
                ("int ", "byte "),
                ("bit ", "byte "),
            ];
            let (a, b) = pairs.iter().find(|(a, _)| l.trim_start().starts_with(a))?;
            lines[i] = l.replacen(a, b, 1);
        }
        8 => {
            // A rename of a declared name everywhere.
            let t = l.trim_start();
            let decl = ["byte ", "short ", "int ", "bit ", "bool "]
                .iter()
                .find(|d| t.starts_with(*d))?;
            let name: String = t[decl.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                return None;
            }
            let renamed = format!("{name}_r");
            return Some(replace_word(src, &name, &renamed));
        }
        9 => {
            // An initial value.
            let t = l.trim_start();
            if !["byte ", "short ", "int ", "bit ", "bool "]
                .iter()
                .any(|d| t.starts_with(d))
            {
                return None;
            }
            if let Some(k) = l.find('=') {
                let end = l[k..].find([';', ',']).map_or(l.len(), |e| e + k);
                lines[i].replace_range(k..end, "= 1");
            } else {
                let end = l.find(';')?;
                lines[i].insert_str(end, " = 1");
            }
        }
        _ => {
            // A guard made stronger.
            let k = l.find(":: ")?;
            lines[i].insert_str(k + 3, "_nr_pr < 3 && ");
        }
    }
    Some(lines.join("\n") + "\n")
}

/// Replaces whole-word occurrences of `from`.
pub fn replace_word(src: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < src.len() {
        if src[i..].starts_with(from)
            && (i == 0 || !word(b[i - 1]))
            && b.get(i + from.len()).is_none_or(|&c| !word(c))
        {
            out.push_str(to);
            i += from.len();
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The project's single-file conformance models that spin checks, with their state counts.
/// A model with an event trace is left out: a check of its versions never reuses a record
/// (`a_model_with_an_event_trace_is_checked_in_full` shows it), so its mutants would
/// exercise no pruning or replay.
pub fn seed_models(max_states: u64) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in super::manifest("manifest.json") {
        let rel = e["model"].as_str().unwrap_or_default().to_string();
        if rel.contains('/')
            || e["spin_accepts"].as_bool() != Some(true)
            || e["unsupported"].as_bool() == Some(true)
            || e["oracle_unusable"].as_bool() == Some(true)
            || e["states_stored"].as_u64().unwrap_or(u64::MAX) > max_states
        {
            continue;
        }
        let traced = super::load(&super::models_dir().join(&rel))
            .program
            .is_some_and(|p| p.procs.iter().any(|p| p.kind.is_trace()));
        if traced {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(super::models_dir().join(&rel)) {
            out.push((rel, text));
        }
    }
    out
}

/// The Promela files under `dir` (`.pml`, `.prom`, `.pr`), sorted.
pub fn corpus_files(dir: &Path) -> Vec<std::path::PathBuf> {
    fn walk(d: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p
                .extension()
                .is_some_and(|x| x == "pml" || x == "prom" || x == "pr")
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
}

/// The models under `dir` that load and whose full check completes, one at a time: (name,
/// text, record).
pub fn corpus_records(dir: &Path) -> impl Iterator<Item = (String, String, Record)> {
    corpus_files(dir).into_iter().filter_map(|f| {
        let text = std::fs::read_to_string(&f).ok()?;
        let record = check(&version(&text)?, None, Algorithm::Full).record?;
        Some((f.display().to_string(), text, record))
    })
}

/// `text` with a global declared before a random top-level declaration (`k` even) and a
/// local first in a random proctype (`k` not a multiple of 4), both plain data: a layout
/// that only gains variables. None when there is nowhere to put them.
pub fn gain_variables(text: &str, rng: &mut Rng, k: usize) -> Option<String> {
    let mut ls: Vec<String> = text.lines().map(str::to_string).collect();
    let decls: Vec<usize> = (0..ls.len())
        .filter(|&i| {
            [
                "byte ", "int ", "bool ", "bit ", "short ", "mtype ", "chan ",
            ]
            .iter()
            .any(|d| ls[i].starts_with(d))
        })
        .collect();
    let heads: Vec<usize> = (0..ls.len())
        .filter(|&i| ls[i].contains("proctype") && ls[i].trim_end().ends_with('{'))
        .collect();
    let local =
        (!k.is_multiple_of(4) && !heads.is_empty()).then(|| heads[rng.below(heads.len())] + 1);
    let global = (k.is_multiple_of(2) && !decls.is_empty()).then(|| decls[rng.below(decls.len())]);
    let mut at: Vec<(usize, String)> = Vec::new();
    if let Some(i) = local {
        at.push((i, format!("byte rmc_gained_local = {};", k % 7)));
    }
    if let Some(i) = global {
        let decl = match k % 3 {
            0 => format!("short rmc_gained_global = {};", k % 5),
            1 => "bool rmc_gained_global[3];".to_string(),
            _ => "byte rmc_gained_global;".to_string(),
        };
        at.push((i, decl));
    }
    // Both places are taken first and filled from the bottom up, so that each index still
    // points where it was taken.
    at.sort_by_key(|a| std::cmp::Reverse(a.0));
    let changed = !at.is_empty();
    for (i, line) in at {
        ls.insert(i, line);
    }
    changed.then(|| ls.join("\n") + "\n")
}

/// `text` with the capacity of one global channel declared with a number changed (a
/// rendezvous channel becomes buffered, a buffered one grows or, when `k` is odd, shrinks by
/// one): a layout whose global channels changed. None when no global channel has a
/// numeric capacity.
pub fn resize_channel(text: &str, rng: &mut Rng, k: usize) -> Option<String> {
    let mut ls: Vec<String> = text.lines().map(str::to_string).collect();
    let capacity = |l: &str| -> Option<(usize, usize, u32)> {
        if !l.starts_with("chan ") {
            return None;
        }
        let open = l.find("= [")? + 3;
        let close = open + l[open..].find(']')?;
        let n = l[open..close].trim().parse().ok()?;
        Some((open, close, n))
    };
    let spots: Vec<usize> = (0..ls.len())
        .filter(|&i| capacity(&ls[i]).is_some())
        .collect();
    if spots.is_empty() {
        return None;
    }
    let i = spots[rng.below(spots.len())];
    let (open, close, n) = capacity(&ls[i])?;
    let m = if n > 0 && k % 2 == 1 { n - 1 } else { n + 1 };
    ls[i] = format!("{}{m}{}", &ls[i][..open], &ls[i][close..]);
    Some(ls.join("\n") + "\n")
}

/// `text` with one local channel declaration (an indented `chan x = [N] of {...}`) retyped:
/// by `k % 3`, its capacity one more, one less (a rendezvous one becomes buffered), or its
/// first `byte` or `bit` field one size wider. None when no local channel declaration can be
/// changed that way.
pub fn retype_local_channel(text: &str, rng: &mut Rng, k: usize) -> Option<String> {
    let mut ls: Vec<String> = text.lines().map(str::to_string).collect();
    let local = |l: &str| l.starts_with(char::is_whitespace) && l.trim_start().starts_with("chan ");
    let spots: Vec<usize> = (0..ls.len())
        .filter(|&i| local(&ls[i]) && ls[i].contains("] of {"))
        .collect();
    if spots.is_empty() {
        return None;
    }
    let i = spots[rng.below(spots.len())];
    let l = &ls[i];
    let open = l.find("= [")? + 3;
    let close = open + l[open..].find(']')?;
    let n: u32 = l[open..close].trim().parse().ok()?;
    ls[i] = match k % 3 {
        0 => format!("{}{}{}", &l[..open], n + 1, &l[close..]),
        1 if n > 0 => format!("{}{}{}", &l[..open], n - 1, &l[close..]),
        1 => format!("{}1{}", &l[..open], &l[close..]),
        _ if l.contains("of { bit") => l.replacen("of { bit", "of { byte", 1),
        _ if l.contains("of { byte") => l.replacen("of { byte", "of { short", 1),
        _ => return None,
    };
    Some(ls.join("\n") + "\n")
}

/// Writes `r` at `path` beside the record it was built on (on it, where it keeps most of
/// it), as the cache does, and returns the file's size.
pub fn write_beside(r: &Record, path: &Path) -> u64 {
    let mut out = Vec::new();
    r.write_beside(path, &mut out).expect("written");
    std::fs::write(path, &out).expect("written");
    out.len() as u64
}

/// Chains of versions of every other seed model (at most 5,000 states), each checked
/// against the record the previous step wrote: `next` makes a version from the current one
/// (given the steps so far), `step` checks it against the record (with a name for messages)
/// and returns the record it wrote (None: not a step; `max_tries` versions at most per
/// chain). Returns how many chains reached ten steps, and how many records of the chains
/// were written on their base.
pub fn chains_of_ten(
    rng: &mut Rng,
    max_tries: usize,
    mut next: impl FnMut(&str, usize, &mut Rng) -> Option<String>,
    mut step: impl FnMut(&str, &Record, &str, usize) -> Option<Record>,
) -> (usize, usize) {
    let mut chains = 0;
    // Every record of a chain goes through a file in one folder, each written beside the
    // one it was built on (`Record::write_beside`), as the cache writes them: the chain's
    // graphs stand on their bases, and each is read back through them.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut files = 0usize;
    let mut through_file = |r: Record| -> Record {
        files += 1;
        let path = dir.path().join(format!("{files}.rec"));
        write_beside(&r, &path);
        let back = Record::read(&path).expect("the record reads back through its bases");
        assert!(
            back == r,
            "{}: the record read back differs",
            path.display()
        );
        back
    };
    for (name, text) in seed_models(5_000).into_iter().step_by(2) {
        let Some(v) = version(&text) else { continue };
        let Some(mut record) = check(&v, None, Algorithm::Full)
            .record
            .map(&mut through_file)
        else {
            continue;
        };
        let mut current = text.clone();
        let (mut steps, mut tries) = (0, 0);
        while steps < 10 && tries < max_tries {
            tries += 1;
            let Some(version) = next(&current, steps, rng) else {
                continue;
            };
            let what = format!("{name} chain step {steps}");
            if let Some(r) = step(&what, &record, &version, steps) {
                record = through_file(r);
                current = version;
                steps += 1;
            }
        }
        chains += usize::from(steps == 10);
    }
    // Records stood on their bases, never deeper than a reader goes.
    let (mut overlays, mut deepest) = (0, 0);
    for i in 1..=files {
        let mut path = dir.path().join(format!("{i}.rec"));
        let mut depth = 0;
        while let Some(base) = Record::base_of(&path).expect("a record's base reads") {
            depth += 1;
            path = dir.path().join(base);
        }
        overlays += usize::from(depth > 0);
        deepest = deepest.max(depth);
    }
    eprintln!(
        "{files} records in chains, {overlays} written on a base, {deepest} bases deep at most"
    );
    assert!(
        deepest <= git_rmc::rmc::record::MAX_BASES,
        "{deepest} bases deep"
    );
    (chains, overlays)
}

/// The kinds of declaration change `change_declaration` makes, by `k % DECLARATION_KINDS`.
pub const DECLARATION_KINDS: usize = 11;

/// What `change_declaration` did, by kind.
pub const DECLARATION_KIND_NAMES: [&str; DECLARATION_KINDS] = [
    "retyped wider",
    "retyped narrower",
    "array resized",
    "proctype added",
    "globals reordered (variables or channels)",
    "channel field retyped",
    "mtype name added",
    "variable removed",
    "typedef field added or retyped",
    "global channel added",
    "local channel added",
];

/// The type keyword a declaration line starts with (after indentation), and where it is.
fn declared_type(l: &str) -> Option<(usize, &'static str)> {
    let t = l.trim_start();
    let at = l.len() - t.len();
    ["byte ", "short ", "int ", "bool ", "bit ", "pid "]
        .into_iter()
        .find(|k| t.starts_with(k))
        .map(|k| (at, k.trim_end()))
}

/// `text` with one declaration changed, as real commits change them: kind `k %
/// DECLARATION_KINDS` (see `DECLARATION_KIND_NAMES`) at a random place. A variable
/// removed is one the version declares and no statement names; `with_dead_variable` makes
/// such versions.
pub fn change_declaration(text: &str, rng: &mut Rng, k: usize) -> Option<String> {
    let mut ls: Vec<String> = text.lines().map(str::to_string).collect();
    let pick = |ls: &[String], rng: &mut Rng, f: &dyn Fn(&str) -> bool| -> Option<usize> {
        let spots: Vec<usize> = (0..ls.len()).filter(|&i| f(&ls[i])).collect();
        (!spots.is_empty()).then(|| spots[rng.below(spots.len())])
    };
    let first_proc = |ls: &[String]| {
        (0..ls.len()).find(|&i| {
            let t = ls[i].trim_start();
            t.starts_with("proctype") || t.starts_with("active") || t.starts_with("init")
        })
    };
    match k % DECLARATION_KINDS {
        0 | 1 => {
            let wider = k.is_multiple_of(DECLARATION_KINDS);
            let i = pick(&ls, rng, &|l: &str| {
                declared_type(l).is_some_and(|(_, t)| {
                    if wider {
                        t != "int"
                    } else {
                        t == "int" || t == "short"
                    }
                })
            })?;
            let (at, t) = declared_type(&ls[i])?;
            let to = match (t, wider) {
                ("bool" | "bit", _) => "byte",
                ("byte" | "pid", true) => {
                    if k.is_multiple_of(2) {
                        "int"
                    } else {
                        "short"
                    }
                }
                ("short", true) => "int",
                ("int", false) => "short",
                _ => "byte",
            };
            ls[i].replace_range(at..at + t.len(), to);
        }
        2 => {
            // An array of data or, every other round where there is one, an array of
            // channels (`chan c[2] = [...] of {...}`: the brackets before the `=`).
            let chan_array = |l: &str| {
                let t = l.trim_start();
                t.starts_with("chan ")
                    && t.find('=')
                        .is_some_and(|eq| t[..eq].contains('[') && t[..eq].contains(']'))
            };
            let chans = (k / DECLARATION_KINDS) % 2 == 1 && ls.iter().any(|l| chan_array(l));
            let i = pick(&ls, rng, &|l: &str| match chans {
                true => chan_array(l),
                false => declared_type(l).is_some() && l.contains('[') && !l.contains("chan"),
            })?;
            let open = ls[i].find('[')? + 1;
            let close = open + ls[i][open..].find(']')?;
            let n: usize = ls[i][open..close].trim().parse().ok()?;
            let m = if n > 1 && k % 2 == 1 { n - 1 } else { n + 1 };
            ls[i].replace_range(open..close, &m.to_string());
        }
        3 => {
            let at = first_proc(&ls)?;
            let body = if k.is_multiple_of(2) {
                "proctype RmcAdded() { byte rmc_l; rmc_l++ }"
            } else {
                "proctype RmcAdded(byte p) { skip }"
            };
            ls.insert(rng.below(at + 1).max(first_global_end(&ls)), body.into());
        }
        4 => {
            // Two variables, or (every other round of kinds, where there are two) two
            // channels: a channel's number is its place among the global channels.
            let globals_end = first_proc(&ls)?;
            let chan = |l: &str| l.starts_with("chan ") && !l.contains(',');
            let chans = ls[..globals_end].iter().filter(|l| chan(l)).count();
            let which: &dyn Fn(&str) -> bool = if chans >= 2 && (k / DECLARATION_KINDS) % 2 == 1 {
                &chan
            } else {
                &|l: &str| declared_type(l).is_some_and(|(at, _)| at == 0)
            };
            let i = pick(&ls[..globals_end], rng, which)?;
            let j = (i + 1..globals_end).find(|&j| which(&ls[j]))?;
            ls.swap(i, j);
        }
        5 => {
            let i = pick(&ls, rng, &|l: &str| {
                l.trim_start().starts_with("chan ")
                    && (l.contains("of { byte") || l.contains("of { bit") || l.contains("of {byte"))
            })?;
            let l = &ls[i];
            ls[i] = if l.contains("of { bit") {
                l.replacen("of { bit", "of { byte", 1)
            } else {
                l.replacen("of { byte", "of { short", 1)
                    .replacen("of {byte", "of {short", 1)
            };
        }
        6 => {
            let i = pick(&ls, rng, &|l: &str| {
                l.trim_start().starts_with("mtype") && l.contains('{') && l.contains('=')
            })?;
            let open = ls[i].find('{')? + 1;
            let name = format!(" rmc_name{},", k % 3);
            if k.is_multiple_of(2) {
                ls[i].insert_str(open, &name);
            } else {
                let close = ls[i].rfind('}')?;
                ls[i].insert_str(close, &format!(", rmc_name{} ", k % 3));
            }
        }
        8 => {
            // A typedef gains a field first, or its first byte field becomes a short.
            let i = pick(&ls, rng, &|l: &str| {
                l.trim_start().starts_with("typedef") && l.contains('{')
            })?;
            // (The variant by the round, not by `k`'s parity: `k` of one kind is always
            // even or always odd.)
            if (k / DECLARATION_KINDS).is_multiple_of(2) {
                let open = ls[i].find('{')? + 1;
                ls[i].insert_str(open, " byte rmc_f;");
            } else {
                let end = (i..ls.len()).find(|&j| ls[j].contains('}'))?;
                let (j, at) = (i..=end).find_map(|j| {
                    let l = &ls[j];
                    let from = if j == i { l.find('{')? } else { 0 };
                    l[from..].find("byte ").map(|a| (j, from + a))
                })?;
                ls[j].replace_range(at..at + 4, "short");
            }
        }
        9 => {
            // A global channel no statement names, declared before another global channel
            // (whose number, and every later channel's, moves up) or, without one, after
            // the leading declarations.
            let chans: Vec<usize> = (0..first_proc(&ls)?)
                .filter(|&i| ls[i].starts_with("chan "))
                .collect();
            let at = match chans.is_empty() {
                true => first_global_end(&ls),
                false => chans[rng.below(chans.len())],
            };
            let decl = if (k / DECLARATION_KINDS).is_multiple_of(2) {
                "chan rmc_c = [1] of { byte };"
            } else {
                "chan rmc_c[2] = [0] of { bit };"
            };
            ls.insert(at, decl.into());
        }
        10 => {
            // A local channel declared first in a proctype's body (its processes create it
            // before their other channels, whose numbers, and every later channel's, move
            // up) or, every other two rounds, after the first local channel declaration
            // there is: every other round used at once (a message sent and received, new
            // locations the replay executes), else an array of channels no statement names.
            // (A version whose later declarations the statements make late may not load.)
            let decl = if (k / DECLARATION_KINDS).is_multiple_of(2) {
                "chan rmc_lc[2] = [0] of { bit };"
            } else {
                "chan rmc_lc = [1] of { byte }; rmc_lc!1; rmc_lc?_;"
            };
            let after_chan = (k / DECLARATION_KINDS) % 4 >= 2;
            let local_chan = |l: &str| {
                l.starts_with(char::is_whitespace)
                    && l.trim_start().starts_with("chan ")
                    && l.contains("] of {")
                    && l.trim_end().ends_with(';')
            };
            match (0..ls.len()).find(|&i| local_chan(&ls[i])) {
                Some(i) if after_chan => ls.insert(i + 1, format!("\t{decl}")),
                _ => {
                    let i = pick(&ls, rng, &|l: &str| {
                        let t = l.trim_start();
                        t.starts_with("proctype")
                            || t.starts_with("active")
                            || t.starts_with("init")
                    })?;
                    // The body's brace: on the header's line after its parameters, or on a
                    // line after it.
                    let from = ls[i].find(')').map_or(0, |c| c + 1);
                    let (j, open) = match ls[i][from..].find('{') {
                        Some(o) => (i, from + o + 1),
                        None => {
                            let j = (i + 1..ls.len()).find(|&j| ls[j].contains('{'))?;
                            (j, ls[j].find('{')? + 1)
                        }
                    };
                    // Where the body goes on past the brace's line, after its leading
                    // declarations (statements before them would make them late).
                    let declaration = |l: &str| {
                        let t = l.trim_start();
                        [
                            "byte ", "short ", "int ", "bool ", "bit ", "chan ", "pid ", "mtype ",
                        ]
                        .iter()
                        .any(|k| t.starts_with(k))
                    };
                    match ls[j][open..].trim().is_empty() {
                        true => {
                            let at = (j + 1..ls.len())
                                .find(|&x| !declaration(&ls[x]))
                                .unwrap_or(ls.len());
                            ls.insert(at, format!("\t{decl}"));
                        }
                        false => ls[j].insert_str(open, &format!(" {decl} ")),
                    }
                }
            }
        }
        _ => {
            // A global no statement names: its declaration goes.
            let globals_end = first_proc(&ls)?;
            let i = pick(&ls[..globals_end], rng, &|l: &str| {
                declared_type(l).is_some_and(|(at, _)| at == 0) && !l.contains(',')
            })?;
            let name: String = ls[i]
                .split_whitespace()
                .nth(1)?
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let named = ls.iter().enumerate().any(|(j, l)| {
                j != i
                    && l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == name)
            });
            if named {
                return None;
            }
            ls.remove(i);
        }
    }
    Some(ls.join("\n") + "\n")
}

/// Where the leading `#define`s and `mtype` lists end (a proctype inserted before them
/// would not see them).
fn first_global_end(ls: &[String]) -> usize {
    ls.iter()
        .rposition(|l| l.starts_with("#define") || l.trim_start().starts_with("mtype"))
        .map_or(0, |i| i + 1)
        .min(
            (0..ls.len())
                .find(|&i| {
                    let t = ls[i].trim_start();
                    t.starts_with("proctype") || t.starts_with("active") || t.starts_with("init")
                })
                .unwrap_or(ls.len()),
        )
}

/// `text` with a global `rmc_dead` that statements write and none reads: declared before
/// the first proctype and counted modulo 3 after some statements (lines that end a
/// statement with `;`). None when no line fits.
pub fn with_dead_variable(text: &str, rng: &mut Rng) -> Option<String> {
    let mut ls: Vec<String> = text.lines().map(str::to_string).collect();
    let at = (0..ls.len()).find(|&i| {
        let t = ls[i].trim_start();
        t.starts_with("proctype") || t.starts_with("active") || t.starts_with("init")
    })?;
    let spots: Vec<usize> = (at..ls.len())
        .filter(|&i| {
            let t = ls[i].trim();
            t.ends_with(';')
                && (t.contains("++") || t.contains(" = ") || t.contains("--"))
                && declared_type(&ls[i]).is_none()
                && !t.starts_with("chan")
                && !t.starts_with("#")
        })
        .collect();
    if spots.is_empty() {
        return None;
    }
    let n = 1 + rng.below(spots.len().min(3));
    let mut chosen: Vec<usize> = (0..n).map(|_| spots[rng.below(spots.len())]).collect();
    chosen.sort_unstable();
    chosen.dedup();
    for &i in &chosen {
        ls[i].push_str(" rmc_dead = (rmc_dead + 1) % 3;");
    }
    ls.insert(at, "byte rmc_dead;".into());
    Some(ls.join("\n") + "\n")
}

/// `with_dead`'s text (`with_dead_variable`'s) without the dead variable: its declaration
/// and every write of it gone (the base text, whatever else changed since).
pub fn without_dead_variable(with_dead: &str) -> String {
    let mut out = String::new();
    for l in with_dead.lines() {
        if l == "byte rmc_dead;" {
            continue;
        }
        out.push_str(&l.replace(" rmc_dead = (rmc_dead + 1) % 3;", ""));
        out.push('\n');
    }
    out
}

/// Pairs of versions that `make` derives from every seed model (at most 20,000 states),
/// `per_model` tries each (`k` numbers them): each second version is handed to `each` with
/// the record of the first, as a commit is checked against its parent's record (a variable
/// or proctype removed, against the version that had it). `each` gets a name for messages.
pub fn each_recorded_pair(
    rng: &mut Rng,
    per_model: usize,
    mut make: impl FnMut(&str, &mut Rng, usize) -> Option<(String, String)>,
    mut each: impl FnMut(&str, &Record, &str),
) {
    for (name, text) in seed_models(20_000) {
        for k in 0..per_model {
            let Some((first, second)) = make(&text, rng, k) else {
                continue;
            };
            let Some(v) = version(&first) else { continue };
            let Some(base) = check(&v, None, Algorithm::Full).record else {
                continue;
            };
            each(&format!("{name} #{k}"), &base, &second);
        }
    }
}

/// A seed's text with the dead variable (`with_dead_variable`) and without it again (and,
/// when `k == 2`, another change): the pair of a commit that removes a written, never-read
/// global.
pub fn dead_variable_removed(text: &str, rng: &mut Rng, k: usize) -> Option<(String, String)> {
    let dead = with_dead_variable(text, rng)?;
    let gone = without_dead_variable(&dead);
    let gone = if k == 2 {
        mutate(&gone, rng).unwrap_or(gone)
    } else {
        gone
    };
    Some((dead, gone))
}
