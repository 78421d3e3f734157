//! Regression checking against full checks, measured side by side in one run (`cargo bench
//! --bench rmc`; not part of CI).
//!
//! Per model: a plain full check, the recording run (the same check that also writes its
//! record, state graph included; both timed twice, the faster run kept) and their ratio, the
//! record's bytes per state and its load time, the share of states in the largest strongly
//! connected component. Then per single-statement mutant (one guard, operator or constant
//! changed in one proctype; declarations untouched): full, prune, replay and auto runs with the original's record,
//! each end to end (record load and parse, impact analysis, search, trails, record write;
//! `full` is `--algorithm full`, which records too), the states each executed, their time
//! ratios, and the cost of an executed and of a walked transition. The ratios are printed
//! twice: against `full` (the comparison: what the user would run instead of auto)
//! and against the mutant's plain check, which writes no record (the stricter one). Full,
//! plain and auto are timed twice and the faster run is kept (the host is noisy). Every
//! incremental run's violations and verdict are compared with the full run's, and a replay's
//! figures too; a difference is printed as DISAGREEMENT.
//!
//! `cargo bench --bench rmc -- NAME` runs only the models whose name contains NAME. With
//! `GIT_RMC_CORPUS=DIR`, every model under DIR (public models nobody here wrote, say) whose
//! plain check stores 10^5 to 3x10^6 states is measured too, after the bench's own.
//!
//! Every run that reads a record starts cold where the host lets the bench drop the page
//! cache (root on Linux: `/proc/sys/vm/drop_caches`), as a first check after a reboot or of
//! a record another run wrote long ago would; the header says whether it could. `to walk`
//! is the time from the start of a replay to its search's start (the record read and
//! mapped, the model loaded, the impact analysis and the plan made): what it costs before
//! the first recorded state is walked.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use git_rmc::explore::{Machine, Options};
use git_rmc::promela::preprocess::PpOptions;
use git_rmc::promela::source::MemoryProvider;
use git_rmc::rmc::check::{self, Algorithm};
use git_rmc::rmc::{Base, Record};

struct Model {
    name: String,
    /// Files by name, the entry first.
    files: Vec<(String, String)>,
    defines: Vec<String>,
    /// Fewer states stored by a plain check leave the model out.
    min_states: u64,
}

fn load(
    m: &Model,
    entry_text: &str,
) -> Option<(
    git_rmc::program::Program,
    check::Plan,
    git_rmc::rmc::record::Sources,
)> {
    let mut p = MemoryProvider::new();
    p = p.with(m.files[0].0.clone(), entry_text.to_string());
    for (n, t) in &m.files[1..] {
        p = p.with(n.clone(), t.clone());
    }
    let opts = PpOptions {
        defines: m.defines.clone(),
        include_dirs: Vec::new(),
    };
    let loaded = git_rmc::load(Path::new(&m.files[0].0), &p, &opts);
    let program = loaded.program?;
    let sources = check::sources_of(Path::new(&m.files[0].0), &loaded.files, &opts);
    let plan = check::plan(program.clone(), None, &Options::default(), Algorithm::Full);
    Some((program, plan, sources))
}

/// (states stored, violations, verdict, record, elapsed, figures, the algorithm that ran)
struct Checked {
    stored: u64,
    violations: Vec<(String, Vec<u32>, Option<u32>)>,
    verdict: &'static str,
    record: Option<Record>,
    time: Duration,
    largest_scc: u64,
    stats: git_rmc::explore::Stats,
    algorithm: Algorithm,
    /// A replay that found the state graph unchanged (nothing walked).
    unchanged: bool,
    /// From the start to the search's start: record read, model loaded, plan made.
    to_search: Duration,
    /// Auto's random walks through the new version: states met, and those the record
    /// lacks (`probe`).
    probe: Option<(u64, u64)>,
    /// Why the algorithm that ran was chosen.
    reason: String,
}

/// A check of `text` (the entry file's text), with a base record when given (a pruning
/// run), recording when `record` is set; the plain check is neither.
fn run(
    m: &Model,
    text: &str,
    base: Option<&Path>,
    record: bool,
    alg: Algorithm,
) -> Option<Checked> {
    if base.is_some() {
        drop_page_cache();
    }
    let t = Instant::now();
    let opts = bench_options();
    // (As a check reads its base: the states when the plan needs them.)
    let mut base = base.map(|p| {
        let file = std::fs::File::open(p).expect("record opens");
        Base::lazy(p, &file).expect("base")
    });
    let (program, _, sources) = load(m, text)?;
    if !record && base.is_none() {
        let mach = Machine::new(&program).ok()?;
        let out = git_rmc::explore::explore(&mach, &opts, &mut |_| {});
        return Some(Checked {
            stored: out.stats.states_stored,
            violations: Vec::new(),
            verdict: out.verdict().as_str(),
            record: None,
            time: t.elapsed(),
            largest_scc: out.stats.largest_scc,
            stats: out.stats.clone(),
            algorithm: Algorithm::Full,
            unchanged: false,
            to_search: Duration::ZERO,
            probe: None,
            reason: String::new(),
        })
        .filter(|_| out.complete());
    }
    let plan = check::plan(program, base.as_mut(), &opts, alg);
    let algorithm = plan.algorithm;
    let reason = plan.reason.clone();
    let probe = plan
        .predicted
        .and_then(|p| Some((p.walk_states?, p.walk_new?)));
    let check::Plan {
        program,
        ids,
        reuse,
        ..
    } = plan;
    let unchanged = matches!(reuse, check::Reuse::Unchanged(_));
    let mach = Machine::new(&program).ok()?;
    let to_search = t.elapsed();
    let mut r = check::run(&mach, reuse, base.as_ref(), &opts, &mut |_| {});
    assert!(r.fell_back.is_none(), "the recorded graph fits");
    check::complete_trails(&mach, &mut r.outcome, &opts).expect("trails complete");
    for v in &r.outcome.violations {
        assert!(
            mach.reproduces(&r.outcome.initial, v, &opts),
            "trail replays"
        );
    }
    let rec = check::record(&mach, &ids, &mut r, base.as_ref(), sources, &opts);
    if let Some(rec) = &rec {
        let tmp = std::env::temp_dir().join(format!("git-rmc-bench-{}.rec", std::process::id()));
        // Beside the base, as the cache writes it: on the base where it keeps most of it.
        git_rmc::cache::write_atomic_with(&tmp, |w| rec.write_beside(&tmp, w))
            .expect("record writes");
        let _ = std::fs::remove_file(&tmp);
    }
    let mut violations: Vec<_> = r
        .outcome
        .violations
        .iter()
        .map(|v| {
            let x = check::rec_violation(&mach, v);
            (x.kind, x.at, x.edge)
        })
        .collect();
    violations.sort();
    let s = &r.outcome.stats;
    Some(Checked {
        stored: s.states_stored,
        violations,
        verdict: r.outcome.verdict().as_str(),
        record: rec,
        time: t.elapsed(),
        largest_scc: s.largest_scc,
        stats: s.clone(),
        algorithm,
        unchanged,
        to_search,
        probe,
        reason,
    })
}

/// Single-statement mutants: in lines inside proctype bodies, one operator flipped or one
/// constant changed; mutants whose state layout changes (declarations) are left out.
fn mutants(text: &str, want: usize) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut in_body = false;
    let flips = [
        (" < ", " <= "),
        (" <= ", " < "),
        (" > ", " >= "),
        (" >= ", " > "),
        (" == ", " != "),
        (" != ", " == "),
        ("+ 1", "+ 2"),
        ("- 1", "- 2"),
        ("&&", "||"),
    ];
    let mut candidates = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.contains("proctype") || t.starts_with("init") {
            in_body = true;
            continue;
        }
        let decl = [
            "byte ", "short ", "int ", "bit ", "bool ", "chan ", "mtype ", "#",
        ]
        .iter()
        .any(|d| t.starts_with(d));
        if !in_body || decl || t.starts_with("/*") || t.starts_with('*') {
            continue;
        }
        for (a, b) in flips {
            if l.contains(a) {
                candidates.push((
                    i,
                    l.replacen(a, b, 1),
                    format!("line {}: '{}' -> '{}'", i + 1, a.trim(), b.trim()),
                ));
            }
        }
    }
    // Spread over the model: every k-th candidate.
    let step = (candidates.len() / want.max(1)).max(1);
    for (i, new_line, what) in candidates.into_iter().step_by(step).take(want) {
        let mut ls: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        ls[i] = new_line;
        out.push((what, ls.join("\n") + "\n"));
    }
    out
}

/// Declaration mutants, as real commits make them: a global scalar retyped (wider), a
/// global array resized, a proctype added before the others, a local channel added, a
/// global that statements write
/// and none read added beside another change (a layout change with a dangerous location),
/// and that global removed again (checked against the record of the version that had it:
/// see `main`). (what, text) each; a kind the model offers no place for is left out.
fn declaration_mutants(text: &str) -> Vec<(String, String)> {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let first_proc = lines.iter().position(|l| {
        let t = l.trim_start();
        t.starts_with("proctype") || t.starts_with("active") || t.starts_with("init")
    });
    let mut out = Vec::new();
    let join = |ls: &[String]| ls.join("\n") + "\n";
    let Some(first) = first_proc else {
        return out;
    };
    let global = |l: &str, kinds: &[&str]| kinds.iter().any(|k| l.starts_with(k));
    if let Some(i) = (0..first).find(|&i| global(&lines[i], &["byte ", "short "])) {
        let mut ls = lines.clone();
        ls[i] = ls[i]
            .replacen("byte ", "int ", 1)
            .replacen("short ", "int ", 1);
        out.push(("retyped wider".to_string(), join(&ls)));
    }
    if let Some(i) = (0..first).find(|&i| {
        global(&lines[i], &["byte ", "short ", "int ", "bool ", "bit "]) && lines[i].contains('[')
    }) {
        let mut ls = lines.clone();
        if let (Some(a), Some(b)) = (ls[i].find('['), ls[i].find(']')) {
            let inner = ls[i][a + 1..b].to_string();
            ls[i].replace_range(a + 1..b, &format!("{inner} + 1"));
            out.push(("array resized".to_string(), join(&ls)));
        }
    }
    let mut ls = lines.clone();
    ls.insert(first, "proctype BenchAdded(byte p) { p > 0 }".to_string());
    out.push(("proctype added".to_string(), join(&ls)));
    // A local channel no statement names, first in the first proctype's body: every channel
    // its processes and later ones create is numbered one more.
    let header = (first..lines.len()).find(|&i| {
        let t = lines[i].trim_start();
        t.starts_with("proctype") || t.starts_with("active")
    });
    // (The body's brace: on the header's line after its parameters, or on a line after it.)
    let brace = header.and_then(|i| {
        let from = lines[i].find(')').map_or(0, |c| c + 1);
        match lines[i][from..].find('{') {
            Some(o) => Some((i, from + o + 1)),
            None => (i + 1..lines.len())
                .find(|&j| lines[j].contains('{'))
                .and_then(|j| Some((j, lines[j].find('{')? + 1))),
        }
    });
    if let Some((j, at)) = brace {
        let mut ls = lines.clone();
        ls[j].insert_str(at, " chan bench_lc = [1] of { byte }; ");
        out.push(("local channel added".to_string(), join(&ls)));
    }
    if let Some(dead) = with_dead_global(&lines, first) {
        out.push(("global added and written".to_string(), dead));
    }
    out
}

/// `lines` with a global `bench_dead` that the first statement line of a body (one that ends
/// with `;` and assigns) also writes, modulo 3; None when no line fits.
fn with_dead_global(lines: &[String], first: usize) -> Option<String> {
    let mut ls = lines.to_vec();
    let i = (first..ls.len()).find(|&i| {
        let t = ls[i].trim();
        t.ends_with(';')
            && (t.contains("++") || t.contains(" = "))
            && !["byte ", "short ", "int ", "bool ", "bit ", "chan ", "mtype"]
                .iter()
                .any(|k| t.starts_with(k))
    })?;
    ls[i].push_str(" bench_dead = (bench_dead + 1) % 3;");
    ls.insert(first, "byte bench_dead;".to_string());
    Some(ls.join("\n") + "\n")
}

fn models() -> Vec<Model> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bench = |name: &str, file: &str, defines: &[&str]| Model {
        name: name.to_string(),
        files: vec![(
            file.to_string(),
            std::fs::read_to_string(root.join("benches/models").join(file)).expect("bench model"),
        )],
        defines: defines.iter().map(|d| d.to_string()).collect(),
        min_states: 0,
    };
    let mut v = vec![
        bench("ring_election N=9", "ring_election.pml", &["N=9"]),
        bench(
            "rendezvous_pipeline 8/8",
            "rendezvous_pipeline.pml",
            &["N=8", "M=8"],
        ),
        bench("philosophers N=5 (cyclic)", "philosophers.pml", &["N=5"]),
        bench("filter_lock N=3 (cyclic)", "filter_lock.pml", &["N=3"]),
        // Violations must cost an incremental run no more than a full one: 103,823 distinct
        // invalid end states, and mutants that move them.
        bench(
            "distinct_deadlocks (10^5 violations)",
            "distinct_deadlocks.pml",
            &[],
        ),
    ];
    for ver in [
        "04-door-acks-name-the-move",
        "12-park-when-idle",
        "16-fix-stairs-trip-count",
    ] {
        let dir = root.join("sample-repo/versions").join(ver);
        v.extend(with_siblings(
            format!("elevator {ver}"),
            &dir.join("model.pml"),
        ));
    }
    // Public models, measured where they are large enough for the targets to speak of them.
    if let Some(dir) = std::env::var_os("GIT_RMC_CORPUS") {
        let mut files = Vec::new();
        corpus_files(Path::new(&dir), &mut files);
        files.sort();
        for f in files {
            let name = f.strip_prefix(&dir).unwrap_or(&f).display().to_string();
            v.extend(with_siblings(name, &f).map(|m| Model {
                min_states: 100_000,
                ..m
            }));
        }
    }
    v
}

/// The model whose entry file is `entry`, with the other files of its folder (which it may
/// include) by name.
fn with_siblings(name: String, entry: &Path) -> Option<Model> {
    let mut files = vec![(
        entry.file_name()?.to_string_lossy().into_owned(),
        std::fs::read_to_string(entry).ok()?,
    )];
    for e in std::fs::read_dir(entry.parent()?).ok()?.flatten() {
        let p = e.path();
        if p != entry && p.is_file() {
            let n = e.file_name().to_string_lossy().into_owned();
            files.push((n, std::fs::read_to_string(&p).unwrap_or_default()));
        }
    }
    Some(Model {
        name,
        files,
        defines: Vec::new(),
        min_states: 0,
    })
}

fn corpus_files(d: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            corpus_files(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "pml" || x == "prom" || x == "pr")
        {
            out.push(p);
        }
    }
}

/// Drops the host's page cache, so that the next record read is cold; false where the host
/// does not let the bench.
fn drop_page_cache() -> bool {
    // Dirty pages first: they cannot be dropped.
    let _ = std::process::Command::new("sync").status();
    std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    // `--declarations`: only the declaration mutants (a quicker run).
    let only_declarations = std::env::args().any(|a| a == "--declarations");
    let mut ratios_acyclic = Vec::new();
    let mut ratios_cyclic = Vec::new();
    let mut walk_costs = Vec::new();
    let mut peak_ratios = Vec::new();
    let mut same_graph = 0usize;
    let mut plain_acyclic = Vec::new();
    let mut plain_cyclic = Vec::new();
    let mut prune_acyclic = Vec::new();
    // What pruning by the paper's criterion cannot beat: full states over the states whose
    // recorded set meets the change, or that are new (each of which it must execute).
    let mut prune_bound = Vec::new();
    let mut all_rows = Vec::new();
    // What no implementation of replay could beat: full states over the states it must
    // execute (recorded ones whose expansion meets the change, and new ones), and over the
    // new ones alone (an executed recorded state costing nothing).
    let mut bound_executed = Vec::new();
    let mut bound_new = Vec::new();
    let mut ratios_kept = Vec::new();
    let mut to_walk = Vec::new();
    // Declaration mutants: (incremental, full / auto time) each.
    let mut declarations: Vec<(bool, f64)> = Vec::new();
    println!("regression checking vs full checks; times end to end in seconds (library calls)");
    println!(
        "records read {}",
        if drop_page_cache() {
            "cold (the page cache is dropped before every run that reads one)"
        } else {
            "warm (this host does not let the bench drop the page cache)"
        }
    );
    println!();
    println!(
        "{:<34} {:>9} {:>6} {:>7} {:>7} {:>6} {:>8} {:>8} {:>7}",
        "model", "states", "SCC%", "full s", "rec s", "rec/f", "B/state", "load s", "peak r/f"
    );
    for m in models() {
        if filter
            .as_ref()
            .is_some_and(|f| !m.name.contains(f.as_str()))
        {
            continue;
        }
        let text = m.files[0].1.clone();
        let Some(plain) = best(|| run(&m, &text, None, false, Algorithm::Full)) else {
            println!("{:<34} does not load, or its check is cut", m.name);
            continue;
        };
        if plain.stored < m.min_states {
            continue;
        }
        let Some(rec) = best(|| run(&m, &text, None, true, Algorithm::Full)) else {
            continue;
        };
        let record = rec.record.as_ref().expect("complete run");
        let path =
            std::env::temp_dir().join(format!("git-rmc-bench-base-{}.rec", std::process::id()));
        let bytes = git_rmc::cache::write_atomic_with(&path, |w| record.write_to(w))
            .expect("record writes");
        drop_page_cache();
        let t = Instant::now();
        let back = Record::read(&path).expect("record reads");
        let load = t.elapsed();
        let scc = plain.largest_scc as f64 / plain.stored.max(1) as f64;
        // What the recording search holds at its peak over what the plain one does (issue
        // 38 item 2: at most 1.5).
        let peak = rec.stats.peak_memory_bytes as f64 / plain.stats.peak_memory_bytes.max(1) as f64;
        peak_ratios.push(peak);
        println!(
            "{:<34} {:>9} {:>5.0}% {:>7.3} {:>7.3} {:>6.2} {:>8.1} {:>8.4} {:>7.2}",
            m.name,
            plain.stored,
            scc * 100.0,
            plain.time.as_secs_f64(),
            rec.time.as_secs_f64(),
            rec.time.as_secs_f64() / plain.time.as_secs_f64().max(1e-9),
            bytes as f64 / back.fingerprints.len().max(1) as f64,
            load.as_secs_f64(),
            peak
        );
        let statement_mutants = if only_declarations {
            Vec::new()
        } else {
            mutants(&text, 8)
        };
        for (what, mutant) in statement_mutants {
            // The mutant's plain check, its `--algorithm full` run (for the violations by
            // stable location and the figures), and prune, replay and auto with the
            // original's record; plain, full and auto twice, the faster kept.
            let Some(plain_m) = best(|| run(&m, &mutant, None, false, Algorithm::Full)) else {
                println!("    {what:<34} (left out: over the bench's state limit)");
                continue;
            };
            let (Some(full), Some(prune), Some(replay), Some(auto)) = (
                best(|| run(&m, &mutant, Some(&path), true, Algorithm::Full)),
                run(&m, &mutant, Some(&path), true, Algorithm::Prune),
                run(&m, &mutant, Some(&path), true, Algorithm::Replay),
                best(|| run(&m, &mutant, Some(&path), true, Algorithm::Auto)),
            ) else {
                continue;
            };
            let same = |c: &Checked| {
                c.violations == full.violations
                    && c.verdict == full.verdict
                    && (c.algorithm != Algorithm::Replay
                        || c.stats.spin_figures() == full.stats.spin_figures())
            };
            let agree = same(&prune) && same(&replay) && same(&auto);
            let secs = |c: &Checked| c.time.as_secs_f64().max(1e-9);
            let ratio = secs(&full) / secs(&auto);
            let ratio_plain = secs(&plain_m) / secs(&auto);
            let ratio_prune = secs(&full) / secs(&prune);
            // ns per executed transition: the plain check's. Per walked transition: what a
            // replay that executed under a tenth of its states spent beyond them and the
            // time to its search's start, per transition out of a walked state (elsewhere
            // the executed states' own cost, which differs from a full check's, would swamp
            // it).
            let per_state = plain_m.stats.transitions as f64 / plain_m.stored.max(1) as f64;
            let exec_ns = secs(&plain_m) * 1e9 / plain_m.stats.transitions.max(1) as f64;
            let walked = replay.stats.states_walked;
            let walk_ns = (replay.stats.states_executed * 10 < replay.stats.states_stored
                && walked >= 1000
                && !replay.unchanged)
                .then(|| {
                    ((secs(&replay) - replay.to_search.as_secs_f64()) * 1e9
                        - replay.stats.states_executed as f64 * per_state * exec_ns)
                        / (walked as f64 * per_state)
                });
            let new = replay.stats.states_executed - replay.stats.frontier_states;
            // In the recorded states the replay executed: the share of processes whose
            // moves it executed (the others' came from the record).
            let groups = replay.stats.groups_replayed + replay.stats.groups_executed;
            let grp = 100.0 * replay.stats.groups_executed as f64 / groups.max(1) as f64;
            println!(
                "    {:<34} full {:>8} st {:>6.3}s (plain {:>6.3}s) | prune ex {:>8} {:>6.3}s | \
                 replay ex {:>8} (new {:>7}, procs ex {:>3.0}%) {:>6.3}s (to walk {:>5.3}s) | auto {:<6} {:>6.3}s \
                 x{:<5.2} (plain x{:<5.2}, probe new {:>4}) | ns/tr exec {:>5.0} walk {:>5} {}",
                what,
                full.stored,
                secs(&full),
                secs(&plain_m),
                prune.stats.states_executed,
                secs(&prune),
                replay.stats.states_executed,
                new,
                grp,
                secs(&replay),
                replay.to_search.as_secs_f64(),
                if auto.unchanged {
                    "same"
                } else {
                    auto.algorithm.as_str()
                },
                secs(&auto),
                ratio,
                ratio_plain,
                auto.probe.map_or("-".to_string(), |(met, new)| format!(
                    "{:.0}%",
                    100.0 * new as f64 / met.max(1) as f64
                )),
                exec_ns,
                walk_ns.map_or("-".to_string(), |w| format!("{w:.0}")),
                if agree { "" } else { "DISAGREEMENT" }
            );
            if plain.stored >= 100_000 {
                bound_executed
                    .push(full.stored as f64 / replay.stats.states_executed.max(1) as f64);
                bound_new.push(full.stored as f64 / new.max(1) as f64);
                // Where the new version's states are mostly recorded ones (at most a fifth
                // new), which is where an incremental check can pay off at all.
                if new * 5 <= full.stored {
                    ratios_kept.push(ratio);
                }
                if scc >= 0.5 {
                    ratios_cyclic.push(ratio);
                    plain_cyclic.push(ratio_plain);
                } else {
                    ratios_acyclic.push(ratio);
                    plain_acyclic.push(ratio_plain);
                    prune_acyclic.push(ratio_prune);
                    prune_bound
                        .push(full.stored as f64 / prune.stats.states_executed.max(1) as f64);
                }
            }
            all_rows.push(ratio);
            walk_costs.extend(walk_ns);
            if plain.stored >= 100_000 {
                to_walk.push(replay.to_search.as_secs_f64());
            }
            same_graph += usize::from(auto.unchanged);
        }
        // Declaration mutants against the original's record; then the dead global removed,
        // against the record of the version that had it.
        let mut decl = declaration_mutants(&text);
        let dead_base = decl
            .iter()
            .find(|(w, _)| w == "global added and written")
            .map(|(_, t)| t.clone());
        let dead_path =
            std::env::temp_dir().join(format!("git-rmc-bench-dead-{}.rec", std::process::id()));
        let dead_record = dead_base.as_ref().and_then(|t| {
            let r = run(&m, t, None, true, Algorithm::Full)?;
            let rec = r.record.as_ref()?;
            git_rmc::cache::write_atomic_with(&dead_path, |w| rec.write_to(w)).ok()
        });
        if dead_record.is_some() {
            if let Some(t) = &dead_base {
                let gone = t
                    .lines()
                    .filter(|l| *l != "byte bench_dead;")
                    .map(|l| l.replace(" bench_dead = (bench_dead + 1) % 3;", ""))
                    .collect::<Vec<_>>()
                    .join("\n")
                    + "\n";
                decl.push(("global removed (record: with it)".to_string(), gone));
            }
        }
        for (what, mutant) in decl {
            let base = if what.starts_with("global removed") {
                &dead_path
            } else {
                &path
            };
            let (Some(full), Some(auto)) = (
                best(|| run(&m, &mutant, Some(base), true, Algorithm::Full)),
                best(|| run(&m, &mutant, Some(base), true, Algorithm::Auto)),
            ) else {
                println!("    {what:<34} (left out: does not load or is cut)");
                continue;
            };
            let agree = auto.violations == full.violations
                && auto.verdict == full.verdict
                && (auto.algorithm != Algorithm::Replay
                    || auto.stats.spin_figures() == full.stats.spin_figures());
            let ratio = full.time.as_secs_f64() / auto.time.as_secs_f64().max(1e-9);
            let incremental = auto.algorithm != Algorithm::Full;
            println!(
                "    decl: {:<28} full {:>8} st {:>6.3}s | auto {:<6} {:>6.3}s x{:<5.2} ex {:>8} | {} {}",
                what,
                full.stored,
                full.time.as_secs_f64(),
                auto.algorithm.as_str(),
                auto.time.as_secs_f64(),
                ratio,
                auto.stats.states_executed,
                auto.reason.chars().take(90).collect::<String>(),
                if agree { "" } else { "DISAGREEMENT" }
            );
            declarations.push((incremental, ratio));
        }
        let _ = std::fs::remove_file(&dead_path);
        let _ = std::fs::remove_file(&path);
    }
    println!();
    let dist = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(|a, b| a.total_cmp(b));
        let q = |p: f64| {
            s.get(((s.len() as f64 - 1.0) * p) as usize)
                .copied()
                .unwrap_or(f64::NAN)
        };
        format!(
            "n={} min {:.2} q1 {:.2} median {:.2} q3 {:.2} max {:.2}",
            s.len(),
            q(0.0),
            q(0.25),
            q(0.5),
            q(0.75),
            q(1.0)
        )
    };
    println!("full = `--algorithm full` (records too); plain = a check that writes no record");
    println!(
        "probe new: the share of the states auto's random walks met that the record lacks \
         (a full check from 79 %, 67 % across a declaration change), beside the replay's new \
         states"
    );
    println!(
        "auto `same`: a replay that found the state graph unchanged and walked nothing \
         ({same_graph} of {} mutants)",
        all_rows.len()
    );
    println!(
        "full / auto time, models >= 10^5 states, largest SCC < 50%:  {}",
        dist(&ratios_acyclic)
    );
    println!(
        "full / auto time, models >= 10^5 states, largest SCC >= 50%: {}",
        dist(&ratios_cyclic)
    );
    let mut big = ratios_acyclic.clone();
    big.extend_from_slice(&ratios_cyclic);
    println!(
        "full / auto time, models >= 10^5 states:                   {}",
        dist(&big)
    );
    println!("full / auto time, every mutant: {}", dist(&all_rows));
    println!(
        "full / auto time, models >= 10^5 states, mutants with at most 20% new states: {}",
        dist(&ratios_kept)
    );
    println!(
        "plain / auto time, models >= 10^5 states, largest SCC < 50%:  {}",
        dist(&plain_acyclic)
    );
    println!(
        "plain / auto time, models >= 10^5 states, largest SCC >= 50%: {}",
        dist(&plain_cyclic)
    );
    println!(
        "full / prune time, models >= 10^5 states, largest SCC < 50%:  {}",
        dist(&prune_acyclic)
    );
    println!(
        "bound, acyclic: full states / states pruning executes (the paper's criterion): {}",
        dist(&prune_bound)
    );
    println!(
        "bound, models >= 10^5 states: full states / states replay executes: {}",
        dist(&bound_executed)
    );
    println!(
        "bound, models >= 10^5 states: full states / new states:             {}",
        dist(&bound_new)
    );
    println!(
        "ns per walked transition (estimated, replays executing under 10 % of their states): {}",
        dist(&walk_costs)
    );
    println!(
        "recording run's peak memory over a plain check's: {}",
        dist(&peak_ratios)
    );
    println!(
        "replay's time to its search's start (s), models >= 10^5 states: {}",
        dist(&to_walk)
    );
    let incremental = declarations.iter().filter(|d| d.0).count();
    println!(
        "declaration mutants: {incremental} of {} run incrementally; full / auto time: {}",
        declarations.len(),
        dist(&declarations.iter().map(|d| d.1).collect::<Vec<_>>())
    );
    println!(
        "targets: median full / auto >= 5 and, acyclic, full / prune >= 3 on models >= 10^5 \
         states; recording <= 1.3x a plain check"
    );
}

/// The faster of two runs of `f` (None if either fails).
fn best(mut f: impl FnMut() -> Option<Checked>) -> Option<Checked> {
    let a = f()?;
    let b = f()?;
    Some(if b.time < a.time { b } else { a })
}

/// Mutants whose state space explodes are left out: a check cut by this limit is not
/// compared (every run here would pay for it in full).
fn bench_options() -> Options {
    Options {
        max_states: Some(3_000_000),
        ..Options::default()
    }
}
