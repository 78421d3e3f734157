//! Shared helpers of the integration tests: the model manifests, spin when installed, and
//! a reader of `pan -d` dumps.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use git_rmc::promela::preprocess::PpOptions;
use git_rmc::promela::source::DiskProvider;

pub fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models")
}

pub fn load(path: &Path) -> git_rmc::Loaded {
    git_rmc::load(path, &DiskProvider, &PpOptions::default())
}

pub fn manifest(rel: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(models_dir().join(rel)).expect("manifest readable");
    serde_json::from_str(&text).expect("manifest is JSON")
}

pub fn spin_installed() -> bool {
    Command::new("spin")
        .arg("-V")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// One proctype's automaton as pan prints it: edge count, location count, and per edge the
/// line of its source state and whether it keeps atomic control (pan's `A` flag). pan names
/// the main file even for lines of included files, so only lines are compared.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PanProc {
    pub locations: usize,
    pub edges: usize,
    pub lines: Vec<(usize, bool)>,
}

/// The name both sides give a model's event trace (`trace` or `notrace`).
pub const TRACE: &str = ":trace:";

/// Parses `./pan -d` output into proctype name → automaton (`init` is `:init:`, an event
/// trace `TRACE`).
pub fn parse_pan_d(text: &str) -> BTreeMap<String, PanProc> {
    let mut out: BTreeMap<String, PanProc> = BTreeMap::new();
    let mut cur: Option<String> = None;
    let mut locs: BTreeMap<String, std::collections::BTreeSet<u32>> = BTreeMap::new();
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("proctype ") {
            cur = Some(n.trim().to_string());
        } else if line.trim() == "init" {
            cur = Some(":init:".into());
        } else if let Some(n) = line.strip_prefix("claim ") {
            cur = Some(n.trim().to_string());
        } else if line.starts_with("trace") || line.starts_with("notrace") {
            // spin 6.5.2 labels a trace "notrace assertion" and a notrace "trace
            // assertion": a model has one at most, named alike on both sides.
            cur = Some(TRACE.to_string());
        } else if line.starts_with("\tstate") {
            let Some(name) = &cur else { continue };
            let f: Vec<&str> = line.split_whitespace().collect();
            // state N -(tr T)-> state M [id ..] ... file:line => text
            let src: u32 = f[1].parse().unwrap_or(0);
            let dst: u32 = f
                .iter()
                .position(|w| w.ends_with(")->"))
                .and_then(|i| f.get(i + 2))
                .and_then(|w| w.parse().ok())
                .unwrap_or(0);
            let loc = f
                .iter()
                .take_while(|w| **w != "=>")
                .last()
                .copied()
                .unwrap_or("");
            let ln = loc.rsplit_once(':').map(|(_, l)| l).unwrap_or("0");
            let atomic = f
                .iter()
                .any(|w| w.len() == 7 && w.starts_with("[A") && w.ends_with(']'));
            let p = out.entry(name.clone()).or_default();
            p.edges += 1;
            p.lines.push((ln.parse().unwrap_or(0), atomic));
            let set = locs.entry(name.clone()).or_default();
            set.insert(src);
            set.insert(dst);
        }
    }
    for (n, s) in locs {
        if let Some(p) = out.get_mut(&n) {
            p.locations = s.len();
            p.lines.sort();
        }
    }
    out
}

/// Our automaton in the same terms.
pub fn our_procs(loaded: &git_rmc::Loaded) -> BTreeMap<String, PanProc> {
    let mut out = BTreeMap::new();
    let Some(p) = &loaded.program else {
        return out;
    };
    for pr in &p.procs {
        let mut lines = Vec::new();
        for l in &pr.automaton.locations {
            for e in &l.edges {
                let dstep = matches!(e.stmt, git_rmc::program::LStmt::DStep(_));
                lines.push((loaded.files.spin_line(l.span), e.atomic && !dstep));
            }
        }
        lines.sort();
        let name = match pr.kind.is_trace() {
            true => TRACE.to_string(),
            false => pr.name.clone(),
        };
        out.insert(
            name,
            PanProc {
                locations: pr.automaton.locations.len(),
                edges: pr.automaton.edge_count(),
                lines,
            },
        );
    }
    out
}

/// Runs `spin -o1 -o2 -o3 -a` and `./pan -d` on a model in a scratch folder holding a copy
/// of the model's folder. Returns (spin accepted, pan -d output if it ran).
pub fn spin_pan_d(model: &Path) -> (bool, Option<String>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let src_dir = model.parent().expect("model has a folder");
    copy_dir(src_dir, dir.path());
    let name = model.file_name().expect("file name");
    let spin = Command::new("spin")
        .args(["-o1", "-o2", "-o3", "-a"])
        .arg(name)
        .current_dir(dir.path())
        .output()
        .expect("spin runs");
    if !spin.status.success() {
        return (false, None);
    }
    let gcc = Command::new("gcc")
        .args(["-O0", "-DNOREDUCE", "-DSAFETY", "-w", "-o", "pan", "pan.c"])
        .current_dir(dir.path())
        .output()
        .expect("gcc runs");
    if !gcc.status.success() {
        return (true, None);
    }
    let pan = Command::new("./pan")
        .arg("-d")
        .current_dir(dir.path())
        .output()
        .expect("pan runs");
    (
        true,
        Some(String::from_utf8_lossy(&pan.stdout).into_owned()),
    )
}

/// `spin -a` exit status only (fast: no compile).
pub fn spin_accepts(model: &Path) -> bool {
    let dir = tempfile::tempdir().expect("tempdir");
    let src_dir = model.parent().expect("model has a folder");
    copy_dir(src_dir, dir.path());
    let name = model.file_name().expect("file name");
    Command::new("spin")
        .arg("-a")
        .arg(name)
        .current_dir(dir.path())
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let p = entry.path();
        let dest = to.join(entry.file_name());
        if p.is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
            copy_dir(&p, &dest);
        } else if p.extension().is_some_and(|e| e != "txt" && e != "json") {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

/// spin's search figures for a model in the conformance configuration (`-DNOCLAIM`, and
/// `-DVECTORSZ=N` when given): (stored, matched, transitions, atomic steps, depth reached,
/// errors). None when spin or pan fails or the depth limit cut the search.
pub fn spin_figures(model: &Path, vectorsz: Option<u64>) -> Option<[u64; 6]> {
    let vsz = vectorsz.map(|n| format!("-DVECTORSZ={n}"));
    let mut gcc = vec!["-DNOREDUCE", "-DSAFETY", "-DNOCLAIM"];
    gcc.extend(vsz.as_deref());
    pan_figures(model, &gcc, &["-c0", "-n", "-m1000000"]).map(|(f, _)| f)
}

/// spin's search figures for a model compiled with `gcc -O0 -w <gcc>` and run as
/// `./pan <pan>`: (stored, matched, transitions, atomic steps, depth reached, errors), and
/// pan's output. None when spin or pan fails or the depth limit cut the search.
pub fn pan_figures(model: &Path, gcc: &[&str], pan: &[&str]) -> Option<([u64; 6], String)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let src_dir = model.parent().expect("model has a folder");
    copy_dir(src_dir, dir.path());
    let name = model.file_name().expect("file name");
    let ok = |c: &mut Command| {
        c.current_dir(dir.path())
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    ok(Command::new("spin")
        .args(["-o1", "-o2", "-o3", "-a"])
        .arg(name))?;
    ok(Command::new("gcc")
        .args(["-O0", "-w", "-o", "pan", "pan.c"])
        .args(gcc))?;
    let out = Command::new("./pan")
        .args(pan)
        .current_dir(dir.path())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains("max search depth too small") {
        return None;
    }
    let before = |what: &str| -> Option<u64> {
        text.lines()
            .find(|l| l.contains(what))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|w| w.parse::<f64>().ok())
            .map(|f| f as u64)
    };
    let after = |what: &str| -> Option<u64> {
        let l = text.lines().find(|l| l.contains(what))?;
        let rest = &l[l.find(what)? + what.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    Some((
        [
            before("states, stored")?,
            before("states, matched")?,
            // (`= visited+matched` with -a)
            before("transitions (=")?,
            before("atomic steps")?,
            after("depth reached")?,
            after("errors:")?,
        ],
        text.to_string(),
    ))
}

pub mod rmc;

/// Three counters that count up to `bound` in any interleaving: (bound + 1)^3 states, more
/// than a small memory limit holds at 40 (270,643 stored).
pub fn three_counters(bound: u32) -> String {
    format!(
        "byte a, b, c;
active proctype P() {{
\tdo
\t:: a < {bound} -> a++
\t:: b < {bound} -> b++
\t:: c < {bound} -> c++
\t:: else -> break
\tod
}}
"
    )
}
