//! git rmc against spin, side by side in one run (`cargo bench`; not part of CI).
//!
//! For each bench model: git rmc's `verify` end to end (parse, lower, search), and spin in
//! the conformance configuration (`spin -o1 -o2 -o3 -a`, `gcc -O2 -DNOREDUCE -DSAFETY
//! -DNOCLAIM`, `./pan -c0 -n -m<depth>`) and in spin's default configuration (`spin -a`,
//! `gcc -O2 -DSAFETY -DNOCLAIM`, the same pan run). Every time is the median of 5 wall-clock
//! runs; spin's generation, compilation and search are separate columns. States/second is
//! states stored over search time; memory per state is the visited set (vectors and hash
//! table) over states stored, for pan its "actual memory usage for states" plus its hash
//! table.
//!
//! A second table measures what violations cost: a model that reaches one invalid end state
//! 10^4 times on paths 10^5 deep, against its own `--no-end-states` run (the cost of
//! checking and reporting must not grow with occurrences times depth), and a model with
//! 10^5 distinct invalid end states, whose peak memory must stay bounded (trails are kept
//! for the first few of each kind).
//!
//! A third table measures claims: an `ltl` formula's product search with acceptance cycles
//! (`verify -N NAME -a`, as `./pan -a -c0 -N NAME` built with `-DNOREDUCE`), states visited
//! per second of search against pan's (its own elapsed time), beside the safety rate; and
//! the same product with the system's moves read from the state graph the model's safety
//! check recorded, as `check` checks a claim (`graph s`: that search's own time, the
//! median of the runs; `rec s`: the recording safety check it reads, which `check` runs
//! anyway).
//!
//! `cargo bench -- NAME` runs only the models whose name contains NAME.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

struct Model {
    name: &'static str,
    file: &'static str,
    defines: &'static [&'static str],
}

const MODELS: &[Model] = &[
    Model {
        name: "philosophers N=4",
        file: "philosophers.pml",
        defines: &["N=4"],
    },
    Model {
        name: "ring_election N=7",
        file: "ring_election.pml",
        defines: &["N=7"],
    },
    Model {
        name: "rendezvous_pipeline N=8 M=5",
        file: "rendezvous_pipeline.pml",
        defines: &["N=8", "M=5"],
    },
    Model {
        name: "filter_lock N=3",
        file: "filter_lock.pml",
        defines: &["N=3"],
    },
    Model {
        name: "philosophers N=5",
        file: "philosophers.pml",
        defines: &["N=5"],
    },
    Model {
        name: "rendezvous_pipeline N=8 M=8",
        file: "rendezvous_pipeline.pml",
        defines: &["N=8", "M=8"],
    },
    Model {
        name: "ring_election N=9",
        file: "ring_election.pml",
        defines: &["N=9"],
    },
    Model {
        name: "philosophers N=6",
        file: "philosophers.pml",
        defines: &["N=6"],
    },
    Model {
        name: "filter_lock N=4",
        file: "filter_lock.pml",
        defines: &["N=4"],
    },
];

const RUNS: usize = 5;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn timed(cmd: &mut Command) -> (Duration, std::process::Output) {
    let t = Instant::now();
    let out = cmd.output().expect("command runs");
    (t.elapsed(), out)
}

struct Ours {
    states: u64,
    depth: u64,
    time: Duration,
    search_ms: f64,
    store_bytes: u64,
}

fn ours(bin: &Path, model: &Path, defines: &[&str]) -> Ours {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..RUNS {
        let mut c = Command::new(bin);
        c.args(["verify", "--format", "json"]);
        for d in defines {
            c.arg("-D").arg(d);
        }
        c.arg(model);
        let (t, out) = timed(&mut c);
        times.push(t);
        last = Some(out);
    }
    let out = last.expect("ran");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verify prints JSON");
    let s = &doc["stats"];
    Ours {
        states: s["states_stored"].as_u64().unwrap_or(0),
        depth: s["depth_reached"].as_u64().unwrap_or(0),
        time: median(times),
        search_ms: s["elapsed_ms"].as_f64().unwrap_or(0.0),
        store_bytes: s["store_bytes"].as_u64().unwrap_or(0),
    }
}

struct Spin {
    states: u64,
    generate: Duration,
    compile: Duration,
    run: Duration,
    memory: f64,
}

/// Runs spin's pipeline in `dir` (which holds the model): `spin_flags` for generation,
/// `cc_flags` for gcc.
fn spin(
    dir: &Path,
    file: &str,
    defines: &[&str],
    spin_flags: &[&str],
    cc_flags: &[&str],
    depth: u64,
) -> Option<Spin> {
    let mut gens = Vec::new();
    let mut ccs = Vec::new();
    let mut runs = Vec::new();
    let mut text = String::new();
    for _ in 0..RUNS {
        let mut c = Command::new("spin");
        for d in defines {
            c.arg(format!("-D{d}"));
        }
        c.args(spin_flags).arg(file).current_dir(dir);
        let (t, out) = timed(&mut c);
        if !out.status.success() {
            return None;
        }
        gens.push(t);
        let mut c = Command::new("gcc");
        c.arg("-O2")
            .args(cc_flags)
            .args(["-w", "-o", "pan", "pan.c"])
            .current_dir(dir);
        let (t, out) = timed(&mut c);
        if !out.status.success() {
            return None;
        }
        ccs.push(t);
        let mut c = Command::new("./pan");
        c.args(["-c0", "-n", &format!("-m{}", depth * 2 + 10_000)])
            .current_dir(dir);
        let (t, out) = timed(&mut c);
        runs.push(t);
        text = String::from_utf8_lossy(&out.stdout).into_owned();
    }
    let before = |what: &str| -> Option<f64> {
        text.lines()
            .find(|l| l.contains(what))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|w| w.parse::<f64>().ok())
    };
    let states = before("states, stored")? as u64;
    let memory = (before("actual memory usage for states").unwrap_or(0.0)
        + before("memory used for hash table").unwrap_or(0.0))
        * 1048576.0;
    Some(Spin {
        states,
        generate: median(gens),
        compile: median(ccs),
        run: median(runs),
        memory,
    })
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// The median wall time of `verify` (text output, as a user runs it) with `extra`
/// arguments, and the JSON of one more run.
fn verify_timed(
    bin: &Path,
    model: &Path,
    defines: &[&str],
    extra: &[&str],
) -> (Duration, serde_json::Value) {
    let cmd = |json: bool| {
        let mut c = Command::new(bin);
        c.arg("verify").args(extra);
        if json {
            c.args(["--format", "json"]);
        }
        for d in defines {
            c.arg("-D").arg(d);
        }
        c.arg(model);
        c
    };
    let times = (0..RUNS).map(|_| timed(&mut cmd(false)).0).collect();
    let out = cmd(true).output().expect("verify runs");
    (
        median(times),
        serde_json::from_slice(&out.stdout).unwrap_or_default(),
    )
}

/// What violations cost (issue: a violation reached again must cost a lookup).
fn violation_rows(bin: &Path, models: &Path, filter: Option<&str>) {
    let rows: &[(&str, &str, &[&str])] = &[
        (
            "same deadlock x10^4, 1.5*10^5 deep",
            "same_deadlock_deep.pml",
            &["LIMIT=50000", "EVERY=5"],
        ),
        (
            "10^5 deadlock states (64 distinct)",
            "many_deadlocks.pml",
            &["N=3", "V=11"],
        ),
        ("10^5 distinct deadlocks", "distinct_deadlocks.pml", &[]),
    ];
    println!();
    println!(
        "{:<36} {:>9} {:>11} {:>9} {:>9} {:>6} {:>9} {:>9}",
        "violations", "states", "violations", "rmc s", "-E s", "ratio", "peak MB", "-E MB"
    );
    for (name, file, defines) in rows {
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let path = models.join(file);
        let (t, doc) = verify_timed(bin, &path, defines, &[]);
        let (te, doce) = verify_timed(bin, &path, defines, &["--no-end-states"]);
        let mb = |d: &serde_json::Value| {
            d["stats"]["peak_memory_bytes"].as_f64().unwrap_or(0.0) / 1048576.0
        };
        println!(
            "{:<36} {:>9} {:>11} {:>9.3} {:>9.3} {:>6.2} {:>9.1} {:>9.1}",
            name,
            doc["stats"]["states_stored"],
            doc["violations"].as_array().map_or(0, |v| v.len()),
            secs(t),
            secs(te),
            secs(t) / secs(te).max(1e-9),
            mb(&doc),
            mb(&doce),
        );
    }
    println!("ratio = time with end states checked over time with --no-end-states (target <= 1.5)");
}

/// Claims: (name, file, defines, formula).
const CLAIM_MODELS: &[(&str, &str, &[&str], &str)] = &[
    (
        "ltl philosophers N=5 [](seated<N)",
        "philosophers_ltl.pml",
        &["N=5"],
        "seated",
    ),
    (
        "ltl philosophers N=5 []<>fed (fails)",
        "philosophers_ltl.pml",
        &["N=5"],
        "fed",
    ),
    (
        "ltl filter_lock N=3 mutex",
        "filter_lock_ltl.pml",
        &["N=3"],
        "mutex",
    ),
    (
        "ltl philosophers N=6 []<>fed (fails)",
        "philosophers_ltl.pml",
        &["N=6"],
        "fed",
    ),
    (
        "ltl filter_lock N=4 mutex",
        "filter_lock_ltl.pml",
        &["N=4"],
        "mutex",
    ),
];

/// A number pan prints before `what` ("258065 states, stored (316197 visited)": the
/// visited count when `inner`).
fn pan_number(text: &str, what: &str, inner: bool) -> Option<f64> {
    let l = text.lines().find(|l| l.contains(what))?;
    let w = match inner {
        true => l.split('(').nth(1)?.split_whitespace().next()?,
        false => l.split_whitespace().next()?,
    };
    w.parse().ok()
}

/// The product of `claim` over the state graph the safety check of the model at `path`
/// recorded: (the recording safety check's time, the product search's own time, states
/// visited), the median search time of `RUNS`; `fair`: with weak fairness. None: the graph
/// cannot stand for the system.
fn over_graph(
    path: &Path,
    defines: &[&str],
    claim: &str,
    fair: bool,
) -> Option<(Duration, Duration, u64)> {
    use git_rmc::rmc::check::{self, Algorithm, ClaimChoice, Request};
    let pp = git_rmc::PpOptions {
        defines: defines.iter().map(|d| d.to_string()).collect(),
        include_dirs: Vec::new(),
    };
    let loaded = git_rmc::load_with_claims(path, &git_rmc::DiskProvider, &pp);
    let program = loaded.program?;
    let sources = check::sources_of(path, &loaded.files, &pp);
    let request = |program, algorithm, claim, acceptance| Request {
        program,
        sources: sources.clone(),
        opts: git_rmc::Options {
            acceptance,
            fair: fair && acceptance,
            ..git_rmc::Options::default()
        },
        algorithm,
        base: None,
        short_trails: false,
        window: None,
        claim,
    };
    let t = Instant::now();
    let safety = check::check(
        request(program, Some(Algorithm::Full), ClaimChoice::Safety, false),
        &mut |_| {},
    )
    .ok()?;
    let recording = t.elapsed();
    let record = safety.record.as_ref()?;
    let mut times = Vec::new();
    let mut visited = 0;
    for _ in 0..RUNS {
        let req = request(
            safety.program.clone(),
            None,
            ClaimChoice::Named(claim.to_string()),
            true,
        );
        let c = check::check_claim_over(&req, record, &safety.program, &mut |_| {})?.ok()?;
        visited = c.stats.states_stored + c.stats.states_revisited;
        times.push(c.stats.elapsed);
    }
    Some((recording, median(times), visited))
}

/// The claims table: git rmc's product search against pan -a (and with weak fairness
/// against pan -a -f), states visited per second.
fn claim_rows(bin: &Path, models: &Path, filter: Option<&str>, spin_ok: bool) {
    println!();
    println!(
        "{:<34} {:>9} {:>9} {:>9} {:>8} {:>8} {:>10} {:>10} {:>6} {:>8} {:>8} {:>6}",
        "claims (-a, acceptance cycles)",
        "visited",
        "pan vis",
        "cycles",
        "rmc s",
        "pan s",
        "rmc vis/s",
        "pan vis/s",
        "ratio",
        "rec s",
        "graph s",
        "ratio"
    );
    let each = CLAIM_MODELS.iter().flat_map(|m| [(m, false), (m, true)]);
    for ((name, file, defines, claim), fair) in each {
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let name = format!("{name}{}", if fair { " -f" } else { "" });
        let path = models.join(file);
        let mut times = Vec::new();
        let mut doc = serde_json::Value::Null;
        for _ in 0..RUNS {
            let mut c = Command::new(bin);
            c.args(["verify", "--format", "json", "-a", "-N", claim]);
            if fair {
                c.arg("--fair");
            }
            for d in *defines {
                c.arg("-D").arg(d);
            }
            let out = c.arg(&path).output().expect("verify runs");
            doc = serde_json::from_slice(&out.stdout).unwrap_or_default();
            times.push(Duration::from_secs_f64(
                doc["stats"]["elapsed_ms"].as_f64().unwrap_or(0.0) / 1000.0,
            ));
        }
        let s = &doc["stats"];
        let visited =
            s["states_stored"].as_u64().unwrap_or(0) + s["states_revisited"].as_u64().unwrap_or(0);
        let cycles = doc["violations"].as_array().map_or(0, |v| v.len());
        let too_many = doc["violations"]
            .as_array()
            .is_some_and(|v| v.iter().any(|x| x["kind"] == "too-many-processes"));
        if too_many {
            // (pan -f stops there too.)
            println!("{name:<34} more processes than weak fairness takes (pan -f: 6)");
            continue;
        }
        let rmc = median(times);
        let rmc_rate = visited as f64 / secs(rmc).max(1e-6);
        if !spin_ok {
            println!(
                "{name:<34} {visited:>9} {:>9} {cycles:>9} {:>8.3}",
                "-",
                secs(rmc)
            );
            continue;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::copy(&path, dir.path().join(file)).expect("copy model");
        let mut gen = Command::new("spin");
        for d in *defines {
            gen.arg(format!("-D{d}"));
        }
        let ok = gen
            .args(["-o1", "-o2", "-o3", "-a", file])
            .current_dir(dir.path())
            .output()
            .is_ok_and(|o| o.status.success())
            && Command::new("gcc")
                .args(["-O2", "-DNOREDUCE", "-w", "-o", "pan", "pan.c"])
                .current_dir(dir.path())
                .output()
                .is_ok_and(|o| o.status.success());
        if !ok {
            println!("{name:<34} spin failed");
            continue;
        }
        let depth = s["depth_reached"].as_u64().unwrap_or(0);
        let mut pan_times = Vec::new();
        let mut text = String::new();
        for _ in 0..RUNS {
            let mut pan = Command::new("./pan");
            if fair {
                pan.arg("-f");
            }
            let out = pan
                .args([
                    "-a",
                    "-c0",
                    "-N",
                    claim,
                    &format!("-m{}", depth * 2 + 10_000),
                ])
                .current_dir(dir.path())
                .output()
                .expect("pan runs");
            text = String::from_utf8_lossy(&out.stdout).into_owned();
            let t = text
                .lines()
                .find(|l| l.contains("elapsed time"))
                .and_then(|l| l.split_whitespace().nth(3))
                .and_then(|w| w.parse::<f64>().ok())
                .unwrap_or(0.0);
            pan_times.push(Duration::from_secs_f64(t));
        }
        let pan = median(pan_times);
        // pan prints a large visited count rounded ("4.0596e+06 visited"); its transitions
        // are visited plus matched, exactly.
        let exact = pan_number(&text, "transitions (=", false)
            .zip(pan_number(&text, "states, matched", false))
            .map(|(t, m)| t - m);
        let pan_visited = exact
            .or_else(|| pan_number(&text, "states, stored (", true))
            .or_else(|| pan_number(&text, "states, stored", false))
            .unwrap_or(0.0);
        let pan_rate = pan_visited / secs(pan).max(1e-3);
        let graph = match over_graph(&path, defines, claim, fair) {
            Some((rec, g, v)) if v == visited => {
                let rate = v as f64 / secs(g).max(1e-6);
                format!(
                    "{:>8.3} {:>8.3} {:>6.2}",
                    secs(rec),
                    secs(g),
                    rate / pan_rate.max(1e-9)
                )
            }
            Some((_, _, v)) => format!("DISAGREEMENT: {v} visited over the graph"),
            None => format!("{:>8} {:>8} {:>6}", "-", "-", "-"),
        };
        println!(
            "{name:<34} {visited:>9} {pan_visited:>9} {cycles:>9} {:>8.3} {:>8.3} {rmc_rate:>10.0} {pan_rate:>10.0} {:>6.2} {graph}",
            secs(rmc),
            secs(pan),
            rmc_rate / pan_rate.max(1e-9),
        );
    }
    println!(
        "visited = states stored plus visited again by the nested search (pan's \"visited\");"
    );
    println!("cycles = distinct violations git rmc reports; times are each search's own (pan: its");
    println!("elapsed time, -m<2*depth>); ratio = git rmc visited/s over pan's (target >= 1);");
    println!("-f: with weak fairness, against pan -a -f.");
    println!("rec s = the recording safety check `check` runs; graph s = the claim's product over");
    println!("its recorded graph (system moves read, the claim's executed), ratio against pan's.");
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_git-rmc"));
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/models");
    let spin_ok = Command::new("spin")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !spin_ok {
        eprintln!("spin is not installed (apt-get install -y spin): only git rmc is timed");
    }
    println!("git rmc vs spin 6.5.2, median of {RUNS} wall-clock runs each; times in seconds");
    println!("conformance: spin -o1 -o2 -o3 -a; gcc -O2 -DNOREDUCE -DSAFETY -DNOCLAIM; ./pan -c0 -n -m<2*depth>");
    println!("default:     spin -a; gcc -O2 -DSAFETY -DNOCLAIM; ./pan -c0 -n -m<2*depth>");
    println!();
    println!(
        "{:<28} {:>9} {:>9} {:>7} {:>7} {:>9} {:>9} {:>6} {:>6} {:>6} {:>7} {:>7} {:>6} {:>6} | {:>9} {:>6} {:>6} {:>7} {:>7}",
        "model",
        "states",
        "spin st",
        "rmc s",
        "pan s",
        "rmc st/s",
        "pan st/s",
        "ratio",
        "gen s",
        "cc s",
        "rmc e2e",
        "spin e2e",
        "B/st",
        "pan B",
        "dflt st",
        "gen s",
        "cc s",
        "pan s",
        "e2e"
    );
    for m in MODELS {
        if filter
            .as_ref()
            .is_some_and(|f| !m.name.contains(f.as_str()))
        {
            continue;
        }
        let path = models.join(m.file);
        let o = ours(&bin, &path, m.defines);
        let rmc_rate = o.states as f64 / (o.search_ms / 1000.0).max(1e-6);
        let per_state = o.store_bytes as f64 / o.states.max(1) as f64;
        if !spin_ok {
            println!(
                "{:<28} {:>9} {:>9} {:>7.3} {:>7} {:>9.0}",
                m.name,
                o.states,
                "-",
                secs(o.time),
                "-",
                rmc_rate
            );
            continue;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::copy(&path, dir.path().join(m.file)).expect("copy model");
        let conf = spin(
            dir.path(),
            m.file,
            m.defines,
            &["-o1", "-o2", "-o3", "-a"],
            &["-DNOREDUCE", "-DSAFETY", "-DNOCLAIM"],
            o.depth,
        );
        let dflt = spin(
            dir.path(),
            m.file,
            m.defines,
            &["-a"],
            &["-DSAFETY", "-DNOCLAIM"],
            o.depth,
        );
        let Some(c) = conf else {
            println!("{:<28} spin failed", m.name);
            continue;
        };
        let pan_rate = c.states as f64 / secs(c.run).max(1e-6);
        let spin_e2e = secs(c.generate + c.compile + c.run);
        print!(
            "{:<28} {:>9} {:>9} {:>7.3} {:>7.3} {:>9.0} {:>9.0} {:>6.2} {:>6.2} {:>6.2} {:>7.3} {:>7.3} {:>6.0} {:>6.0} |",
            m.name,
            o.states,
            c.states,
            secs(o.time),
            secs(c.run),
            rmc_rate,
            pan_rate,
            rmc_rate / pan_rate,
            secs(c.generate),
            secs(c.compile),
            secs(o.time),
            spin_e2e,
            per_state,
            c.memory / c.states.max(1) as f64,
        );
        match dflt {
            Some(d) => println!(
                " {:>9} {:>6.2} {:>6.2} {:>7.3} {:>7.3}",
                d.states,
                secs(d.generate),
                secs(d.compile),
                secs(d.run),
                secs(d.generate + d.compile + d.run)
            ),
            None => println!(" spin failed"),
        }
    }
    println!();
    println!("ratio = git rmc states/s over pan states/s (equal state counts in the conformance");
    println!(
        "configuration); e2e = wall clock from model to verdict (spin: generate + compile + run);"
    );
    println!("B/st = bytes of visited set per stored state (pan B: its states + hash table).");
    violation_rows(&bin, &models, filter.as_deref());
    claim_rows(&bin, &models, filter.as_deref(), spin_ok);
}
