//! One check of one version, with or without a record of an earlier one (DESIGN.md 5.2): the
//! plan (impact analysis, stable ids, whether pruning is sound and why not), the run (the one
//! search with the recording rider, pruning where a recorded set misses the dangerous
//! locations), the trails of violations reported again from pruned states (the path so far,
//! then a breadth-first path through the unchanged sub-state-space), the comparison with the
//! base (new and fixed violations) and the next record, which accumulates: the old records
//! that stay valid plus the fresh ones.

use crate::explore::Fingerprint;
use std::path::{Path, PathBuf};

use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::property::Key;
use crate::explore::search::search;
use crate::explore::{Options, Outcome, Stats, ViolationKind};
use crate::program::{LocId, Program};
use crate::promela::preprocess::PpOptions;
use crate::promela::source::{MemoryProvider, SourceFiles};

use crate::rmc::diff::ids::StableIds;
use crate::rmc::diff::impact::{analyze, Impact};
use crate::rmc::record::elements::Element;
use crate::rmc::record::{Checks, Meta, RecViolation, Record, Sources, SEMANTICS};
use crate::rmc::run::recorder::{Known, Prunable, Prune, Recorder};
use crate::rmc::run::replay::Replay;

/// Which algorithm a check uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Skip every state whose recorded reachable set misses the change.
    Prune,
    /// Walk the recorded state graph, executing only the states whose footprint meets the
    /// change (DESIGN.md 5.4).
    Replay,
    /// Explore everything (still writing a record).
    Full,
    /// Whichever of prune, replay and a full check is predicted cheapest (DESIGN.md 5.5).
    Auto,
}

impl Algorithm {
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Prune => "prune",
            Algorithm::Replay => "replay",
            Algorithm::Full => "full",
            Algorithm::Auto => "auto",
        }
    }
}

/// The relative cost of walking one recorded state against executing one: measured by the
/// `rmc` bench (a walked transition costs a few lookups, an executed one the interpreter).
pub const WALK_COST: f64 = 0.25;

/// What a recorded state a replay executes costs, beside the moves it executes, against a
/// state a full check executes: it is loaded from the record, its other processes' moves
/// are walked, and all of them are recorded on the search's thread. Measured (callgrind,
/// the `rmc` bench's ring N=9 and the test ring's busiest mutant): 0.9 to 1.0, with the
/// moves executed a third and a seventh of the state's.
pub const MIXED_COST: f64 = 0.9;

/// What a recorded state at the change costs when every process's moves in it come from
/// the record (the change is a condition that keeps its value there): it is loaded, the
/// condition evaluated, and the state walked whole. Measured (ring N=9 from the command
/// line, `>` to `>=` and `<` to `<=`: 628k such states and 96k walked, replay 0.70 s
/// against 1.6 s for a full check and 0.37 s for a replay walking every state): 1.04 us
/// against 2.2 us for a full check's state, about half.
pub const IDLE_COST: f64 = 0.5;

/// The share of the recorded states (walks weighed by `WALK_COST`) beyond which auto runs a
/// full check: a state executed in an incremental run costs about 1.5 times one of a plain
/// check, in a recording run 1.2 to 1.3 times (the `rmc` bench), so past 0.8 the full check
/// is cheaper.
pub const FULL_SHARE: f64 = 0.8;

/// What auto's choice among prune, replay and a full check predicted (in recorded states).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Predicted {
    /// States a pruning run would execute (recorded states whose set meets the change).
    pub prune_executed: u64,
    /// States a replay would walk and execute (None: replay cannot run).
    pub replay_walked: Option<u64>,
    pub replay_executed: Option<u64>,
    /// Of the states a replay would execute, the processes' moves it would execute,
    /// counted in states (the others' come from the record).
    #[serde(default)]
    pub replay_moves_executed: Option<f64>,
    /// Of the states a replay would execute, those none of whose moves it would execute.
    #[serde(default)]
    pub replay_idle: Option<f64>,
    /// Before choosing prune or a replay: the states random walks through the new version
    /// met, and those of them the record lacks (`probe`).
    #[serde(default)]
    pub walk_states: Option<u64>,
    #[serde(default)]
    pub walk_new: Option<u64>,
}

/// Records smaller than this are reused without a probe: a full check of them costs little
/// anyway.
pub const PROBE_MIN_RECORDED: u64 = 1 << 14;

/// Random walks auto takes before it chooses prune or a replay (`probe`): how many, and how
/// long; and the fewest states they must meet for their share to decide anything.
pub const PROBE_WALKS: u32 = 16;
pub const PROBE_STEPS: u32 = 256;
pub const PROBE_MIN_MET: u64 = 64;

/// The share of new states among those the walks meet at or beyond which auto runs a full
/// check rather than prune or a replay: their new state costs about a fifth more than a full
/// check's, and what a replay walks a quarter of an executed state (`WALK_COST`), so one
/// that must store nine new states in ten gains nothing.
pub const PROBE_NEW_SHARE: f64 = 0.9;

/// What a run reuses of the old version.
pub enum Reuse {
    Nothing,
    Prune(Box<Prune>),
    Replay(Box<Replay>),
    /// The change leaves the recorded graph as it was: the check is the record's.
    Unchanged(Box<crate::rmc::run::unchanged::Unchanged>),
}

/// The version a check builds on: its record, its program (with stable ids) and the
/// sources it was read from (to show where its violations were).
pub struct Base {
    pub record: Record,
    pub program: Program,
    pub files: SourceFiles,
}

#[derive(Debug, thiserror::Error)]
pub enum BaseError {
    #[error("the record's model no longer loads with this git rmc ({0})")]
    Reload(String),
    #[error(transparent)]
    Ids(#[from] crate::rmc::diff::ids::MissingId),
}

impl Base {
    /// Rebuilds the recorded version's program from the sources the record holds.
    pub fn from_record(record: Record) -> Result<Base, BaseError> {
        let mut provider = MemoryProvider::new();
        for (n, t) in &record.sources.files {
            provider = provider.with(n.clone(), t.clone());
        }
        let opts = PpOptions {
            defines: record.sources.defines.clone(),
            include_dirs: record
                .sources
                .include_dirs
                .iter()
                .map(PathBuf::from)
                .collect(),
        };
        let loaded = crate::load(Path::new(&record.sources.main), &provider, &opts);
        let Some(mut program) = loaded.program else {
            let first = loaded
                .diags
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_default();
            return Err(BaseError::Reload(first));
        };
        record.ids.apply(&mut program)?;
        Ok(Base {
            record,
            program,
            files: loaded.files,
        })
    }
}

/// The sources of a model as loaded, for its record.
pub fn sources_of(main: &Path, files: &SourceFiles, opts: &PpOptions) -> Sources {
    Sources {
        main: main.display().to_string(),
        files: files
            .files
            .iter()
            .map(|f| (f.name.clone(), f.text.clone()))
            .collect(),
        defines: opts.defines.clone(),
        include_dirs: opts
            .include_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
    }
}

pub fn checks_of(o: &Options) -> Checks {
    Checks {
        end_states: o.end_states,
        assertions: o.assertions,
        empty_channels: o.empty_channels,
    }
}

/// What a check will do, decided before it runs.
pub struct Plan {
    /// The program to check, with its stable ids.
    pub program: Program,
    pub ids: StableIds,
    pub impact: Option<Impact>,
    /// What the run reuses.
    pub reuse: Reuse,
    /// The algorithm that runs: prune, replay or full.
    pub algorithm: Algorithm,
    /// Why the algorithm is what it is.
    pub reason: String,
    pub predicted: Option<Predicted>,
}

impl Plan {
    pub fn incremental(&self) -> bool {
        !matches!(self.reuse, Reuse::Nothing)
    }
}

/// Whether a model's successors are a function of its stored state: pan's `hidden`
/// variables travel with the search path instead.
fn prunable(p: &Program) -> bool {
    !p.globals
        .iter()
        .any(|v| v.vis == crate::promela::ast::Visibility::Hidden)
}

/// Plans the check of `program` (numbered by position, as built) against `base`, whose
/// state graph it takes (to replay it, or to carry it into the next record).
pub fn plan(
    mut program: Program,
    base: Option<&mut Base>,
    opts: &Options,
    want: Algorithm,
) -> Plan {
    let checks = checks_of(opts);
    let Some(base) = base else {
        let ids = StableIds::identity(&program);
        return Plan {
            program,
            ids,
            impact: None,
            reuse: Reuse::Nothing,
            algorithm: Algorithm::Full,
            reason: "no record to reuse: a recording run".into(),
            predicted: None,
        };
    };
    let impact = analyze(&base.program, &program, base.record.ids.next_free);
    let ids = impact.ids.clone();
    // The table was just made from this very program, so every location has an id.
    let _ = ids.apply(&mut program);
    let layout = crate::explore::layout::Layout::new(&program)
        .map(|l| l.hash)
        .ok();
    // A layout that only gains variables or changes global channels: states are looked up by
    // their projection onto the record's layout (whose hash must be the old program's, to seed
    // its fingerprints).
    let old_hash = base.record.meta.layout_hash;
    let extension = impact
        .extension
        .clone()
        .filter(|_| layout != Some(old_hash))
        // With -q a valid end state needs every channel empty: what a changed channel holds
        // then matters beyond its own operations.
        .filter(|e| e.changed_globals.is_empty() || !opts.empty_channels)
        .filter(|_| {
            crate::explore::layout::Layout::new(&base.program).is_ok_and(|l| l.hash == old_hash)
        });
    let why_not = if want == Algorithm::Full {
        Some("--algorithm full".to_string())
    } else if !prunable(&program) {
        Some(
            "the model has hidden variables: its successors are not a function of the stored \
             state, so nothing is pruned"
                .into(),
        )
    } else if !base.record.meta.prunable {
        Some("the record's model had hidden variables".into())
    } else if base.record.meta.checks != checks {
        Some("the record was made with other checks (end states, assertions, -q)".into())
    } else if layout != Some(base.record.meta.layout_hash) && extension.is_none() {
        Some(format!(
            "the state layout changed ({}): no recorded state can be reused",
            impact
                .layout_change
                .clone()
                .unwrap_or_else(|| "declarations".into())
        ))
    } else {
        moved_proctype(&base.program, &program).map(|moved| {
            format!(
                "{moved}: a process record names its proctype by position, so no recorded \
                 state can be reused"
            )
        })
    };
    let full = |program, ids, impact, reason, predicted| Plan {
        program,
        ids,
        impact: Some(impact),
        reuse: Reuse::Nothing,
        algorithm: Algorithm::Full,
        reason,
        predicted,
    };
    if let Some(reason) = why_not {
        return full(program, ids, impact, reason, None);
    }
    let graph = base.record.graph.take();
    let r = &base.record;
    let sets: Vec<Vec<Element>> = r
        .sets
        .iter()
        .map(|s| s.iter().map(|&e| r.elements[e as usize].clone()).collect())
        .collect();
    let meets_danger: Vec<bool> = sets
        .iter()
        .map(|s| {
            s.iter()
                .any(|e| e.locations().iter().any(|l| impact.is_dangerous(*l)))
        })
        .collect();
    let prune_executed = r
        .set_of
        .iter()
        .filter(|&&s| meets_danger[s as usize])
        .count() as u64;
    let dangerous = format!(
        "{} dangerous location{} of {}",
        impact.dangerous.len(),
        if impact.dangerous.len() == 1 { "" } else { "s" },
        base.program.location_ids().count()
    );
    // Replay needs the graph and a search without a depth limit (a cut at the limit
    // depends on the depth a state is reached at, which a record does not keep).
    let no_replay: Option<String> = if graph.is_none() {
        Some("the record has no state graph (an older record, or one a pruning run wrote)".into())
    } else if opts.max_depth.is_some() {
        Some("a depth limit (-m) is set".into())
    } else {
        None
    };
    let mut predicted = Predicted {
        prune_executed,
        ..Predicted::default()
    };
    let replay = match (&no_replay, graph) {
        (None, Some(g)) if want != Algorithm::Prune => {
            let mut rp = Replay::new(g, r.fingerprints.clone(), |l| impact.is_dangerous(l));
            rp.project = extension.clone().map(|e| (e, old_hash));
            if rp.project.is_none() {
                rp.guards = impact.guards.clone();
            }
            let grouped = !program.uses_priority;
            // Auto runs a full check when pruning, and a replay executing none of its
            // executed states' moves, would each cost most of one: then the groups need no
            // reading.
            let bar = FULL_SHARE * r.fingerprints.len() as f64;
            let prune_too = want == Algorithm::Auto && prune_executed as f64 >= bar;
            let enough = |walked: u64, executed: u64| {
                prune_too && walked as f64 * WALK_COST + executed as f64 * IDLE_COST >= bar
            };
            let m = Machine::new(&program).ok();
            let p = rp.predict(m.as_ref(), grouped, enough);
            predicted.replay_walked = Some(p.walked);
            predicted.replay_executed = Some(p.executed);
            predicted.replay_moves_executed = Some(p.moves);
            predicted.replay_idle = Some(p.idle);
            Ok(rp)
        }
        (_, g) => Err(g),
    };
    let replay_cost = |p: &Predicted| {
        let executed = p.replay_executed.unwrap_or(0) as f64;
        let moves = p.replay_moves_executed.unwrap_or(executed);
        let idle = p.replay_idle.unwrap_or(0.0).min(executed);
        p.replay_walked.unwrap_or(0) as f64 * WALK_COST
            + idle * IDLE_COST
            + (executed - idle) * MIXED_COST
            + moves * (1.0 - MIXED_COST)
    };
    // Across a layout that changed that way, states are met through their projection.
    let projected = extension.as_ref().map(|e| {
        format!(
            "; the state layout changed ({}): recorded states are met through their projection",
            e.describe()
        )
    });
    let projected = projected.as_deref().unwrap_or("");
    // Across a layout change, a pruning run writes no state graph (its pruned states'
    // recorded vectors are the old layout's): when it would execute most states anyway, a
    // replay, which writes one, is worth its walk.
    let states = r.fingerprints.len() as u64;
    let prune_graphless = extension.is_some() && predicted.prune_executed * 2 >= states;
    // A state an incremental run executes costs more than one a recording run does (its
    // lookup in the record answers the search, so it is made on the search's thread; a
    // recording run looks nothing up): when either would execute most recorded states
    // anyway, a full check is cheaper and writes as good a record.
    // (Without a graph to carry, the rule below says so itself.)
    let cheapest = match &replay {
        Ok(_) => Some(replay_cost(&predicted).min(predicted.prune_executed as f64)),
        Err(Some(_)) if extension.is_none() => Some(predicted.prune_executed as f64),
        Err(_) => None,
    };
    if want == Algorithm::Auto
        && states > 0
        && cheapest.is_some_and(|c| c >= FULL_SHARE * states as f64)
    {
        let reason = format!(
            "auto: a full check, predicted cheaper (pruning would execute {} of the {states} \
             recorded states{}); {dangerous}",
            predicted.prune_executed,
            match (predicted.replay_walked, predicted.replay_executed) {
                (Some(w), Some(x)) => format!(", replay walk {w} and execute {x}"),
                _ => String::new(),
            }
        );
        return full(program, ids, impact, reason, Some(predicted));
    }
    // A change that leaves the recorded graph as it was (an assertion that holds wherever
    // it is reached, a value written where it is already): the states at the change are
    // executed in both versions and compared, and nothing is walked. (Replay is on offer
    // only for auto and replay.)
    let replay = match replay {
        Ok(rp) if extension.is_none() && impact.notes.is_empty() => {
            match crate::rmc::run::unchanged::carry(&base.program, &program, r, rp, opts) {
                Ok(mut u) => {
                    u.adopt(&mut base.record);
                    let reason = format!(
                        "{}the state graph is unchanged: the {} recorded states the change \
                         meets expand as they did ({} by the values of their changed \
                         conditions, the others executed in both versions and compared), so \
                         the record's figures and state graph stand (nothing walked); \
                         {dangerous}",
                        if want == Algorithm::Auto {
                            "auto: "
                        } else {
                            "replay: "
                        },
                        u.checked,
                        u.by_conditions
                    );
                    return Plan {
                        program,
                        ids,
                        impact: Some(impact),
                        reuse: Reuse::Unchanged(Box::new(u)),
                        algorithm: Algorithm::Replay,
                        reason,
                        predicted: Some(predicted),
                    };
                }
                Err(rp) => Ok(*rp),
            }
        }
        other => other,
    };
    // Prune and replay store the states the record lacks at more than a full check's cost,
    // and the record cannot tell how many there will be: random walks through the new
    // version estimate it (`probe`). Not across a layout change (states would be met through
    // their projection).
    if want == Algorithm::Auto && extension.is_none() && states >= PROBE_MIN_RECORDED {
        let fps = &r.fingerprints;
        let walked = Machine::new(&program).ok().and_then(|m| {
            crate::rmc::run::probe::sample(&m, PROBE_WALKS, PROBE_STEPS, |fp| {
                fps.binary_search(&fp).is_ok()
            })
        });
        if let Some(w) = walked {
            predicted.walk_states = Some(w.met);
            predicted.walk_new = Some(w.new);
            if w.met >= PROBE_MIN_MET && w.new_share() >= PROBE_NEW_SHARE {
                let reason = format!(
                    "auto: a full check, predicted cheaper: random walks through the new \
                     version met {} states, {} of them not in the record (pruning or a replay \
                     would store nearly every state anew); {dangerous}",
                    w.met, w.new
                );
                return full(program, ids, impact, reason, Some(predicted));
            }
        }
    }
    let (reuse, algorithm, reason) = match replay {
        Ok(rp)
            if want == Algorithm::Replay
                || replay_cost(&predicted) < predicted.prune_executed as f64
                || (want == Algorithm::Auto && prune_graphless) =>
        {
            let reason = if want == Algorithm::Replay {
                format!("replay: {dangerous}{projected}")
            } else if replay_cost(&predicted) >= predicted.prune_executed as f64 {
                format!(
                    "auto: replay, which writes the state graph that pruning across a changed \
                     layout cannot ({} walked, {} executed; pruning would execute {} of {states}); \
                     {dangerous}{projected}",
                    predicted.replay_walked.unwrap_or(0),
                    predicted.replay_executed.unwrap_or(0),
                    predicted.prune_executed
                )
            } else {
                format!(
                    "auto: replay predicted cheaper ({} walked, {} executed; pruning would \
                     execute {}); {dangerous}{projected}",
                    predicted.replay_walked.unwrap_or(0),
                    predicted.replay_executed.unwrap_or(0),
                    predicted.prune_executed
                )
            };
            let mut rp = rp;
            rp.ready();
            (Reuse::Replay(Box::new(rp)), Algorithm::Replay, reason)
        }
        other => {
            let graph = match other {
                Ok(rp) => Some(rp.graph),
                Err(g) => g,
            };
            // A pruned state keeps its recorded slot, vector and events: not across a layout
            // change (the vectors would be the old layout's). There the old graph serves to
            // carry what lies below the pruned states into the new layout (`carry`).
            let (graph, across) = match extension {
                Some(_) => (None, graph),
                None => (graph, None),
            };
            // Without it, the record written would lack the pruned states' parts of the
            // state space, and a later run could prune into what it lacks.
            if let (Some(e), None) = (&extension, &across) {
                let reason = format!(
                    "{}a full check: the state layout changed ({}) and the record has no state \
                     graph from which to carry the pruned parts of the state space into the \
                     new layout; {dangerous}",
                    match want {
                        Algorithm::Auto => "auto: ",
                        Algorithm::Replay => "neither replay nor pruning can run: ",
                        _ => "pruning cannot run: ",
                    },
                    e.describe()
                );
                return full(program, ids, impact, reason, Some(predicted));
            }
            // Without a graph, a pruning run writes none either (its pruned states' parts of
            // the state space are not walked), and every later commit is left with pruning.
            // When pruning would execute most states anyway, a full check costs about the
            // same and writes the graph that replay needs.
            if want == Algorithm::Auto && graph.is_none() && predicted.prune_executed * 2 >= states
            {
                let reason = format!(
                    "auto: a full check, which writes the state graph {} (pruning would \
                     execute {} of its {states} states); {dangerous}",
                    if extension.is_some() {
                        "that a changed layout cannot reuse"
                    } else {
                        "the record lacks"
                    },
                    predicted.prune_executed
                );
                return full(program, ids, impact, reason, Some(predicted));
            }
            let reason = match (want, no_replay.as_deref()) {
                (Algorithm::Replay, Some(why)) => {
                    format!("replay cannot run ({why}): pruning; {dangerous}")
                }
                (Algorithm::Auto, None) => format!(
                    "auto: pruning predicted cheaper (it executes {}; replay would walk {} \
                     and execute {}); {dangerous}",
                    predicted.prune_executed,
                    predicted.replay_walked.unwrap_or(0),
                    predicted.replay_executed.unwrap_or(0)
                ),
                (Algorithm::Auto, Some(why)) => {
                    format!("auto: pruning, replay cannot run ({why}); {dangerous}")
                }
                _ => format!("pruning: {dangerous}"),
            };
            let reason = format!("{reason}{projected}");
            let known = Known::new(
                r.fingerprints.clone(),
                r.set_of.clone(),
                graph.as_ref().or(across.as_ref()),
            );
            let prune = Prune {
                prunable: Prunable::new(&known, &meets_danger),
                known: std::sync::Arc::new(known),
                sets: std::sync::Arc::new(sets),
                meets_danger,
                graph,
                across,
                project: extension.map(|e| (e, old_hash)),
                give_up_after: crate::rmc::run::recorder::GIVE_UP_AFTER,
            };
            (Reuse::Prune(Box::new(prune)), Algorithm::Prune, reason)
        }
    };
    Plan {
        program,
        ids,
        impact: Some(impact),
        reuse,
        algorithm,
        reason,
        predicted: Some(predicted),
    }
}

/// A proctype both versions have, at another position (the layout's hash, which sees each
/// position's kind and locals, does not tell two swapped proctypes apart).
fn moved_proctype(old: &Program, new: &Program) -> Option<String> {
    new.procs.iter().enumerate().find_map(|(i, p)| {
        let j = old.procs.iter().position(|q| q.name == p.name)?;
        (j != i).then(|| {
            format!(
                "proctype {} moved from position {} to {}",
                p.name,
                j + 1,
                i + 1
            )
        })
    })
}

/// A finished run.
pub struct Run {
    pub outcome: Outcome,
    pub recorder: Recorder,
    /// The replay met a record that did not fit the model, or the worker keeping the book
    /// failed, and a full check ran instead (never expected: a bug, said so rather than
    /// hidden).
    pub fell_back: Option<String>,
    /// The change left the recorded graph as it was: the record's parts, for the next one.
    pub unchanged: Option<Box<crate::rmc::run::unchanged::Unchanged>>,
}

impl Run {
    /// The run of a version whose state graph is the record's: its figures, no search.
    fn unchanged(mut u: crate::rmc::run::unchanged::Unchanged) -> Run {
        let outcome = Outcome {
            stats: u.stats.clone(),
            violations: Vec::new(),
            limit: None,
            stopped_by: None,
            executed: std::mem::take(&mut u.executed),
            initial: std::mem::take(&mut u.initial),
        };
        Run {
            outcome,
            recorder: Recorder::new(None, None),
            fell_back: None,
            unchanged: Some(Box::new(u)),
        }
    }
}

impl Reuse {
    /// Heap bytes held beside the base record's own (those of a record taken whole are
    /// counted by the check that takes it: `unchanged`).
    pub fn memory(&self) -> u64 {
        match self {
            Reuse::Nothing | Reuse::Unchanged(_) => 0,
            Reuse::Prune(p) => p.memory(),
            Reuse::Replay(r) => r.memory(),
        }
    }
}

/// Runs the planned check on `m` (built from `plan.program`). `base`: the base the plan was
/// made from, which stays in memory while the check runs (its record counts against the
/// memory limit, with what the plan made of it).
pub fn run(
    m: &Machine,
    reuse: Reuse,
    base: Option<&Base>,
    opts: &Options,
    progress: &mut dyn FnMut(&Stats),
) -> Run {
    run_on(m, reuse, base, opts, progress, second_core())
}

/// `run`, with what rides along on a second thread or not (`thread`); the outcome and the
/// record are the same either way.
pub fn run_on(
    m: &Machine,
    reuse: Reuse,
    base: Option<&Base>,
    opts: &Options,
    progress: &mut dyn FnMut(&Stats),
    thread: bool,
) -> Run {
    let held = base.map_or(0, |b| b.record.memory()) + reuse.memory();
    let (prune, replay) = match reuse {
        Reuse::Unchanged(u) => return Run::unchanged(*u),
        Reuse::Nothing => (None, None),
        Reuse::Prune(p) => (Some(*p), None),
        Reuse::Replay(r) => (None, Some(*r)),
    };
    let replaying = replay.is_some();
    let (mut outcome, recorder) = if prune.is_none() && !replaying {
        recording(m, opts, progress, thread, held)
    } else {
        let mut recorder = Recorder::new(prune, replay);
        recorder.held = held;
        let (outcome, kept) = search_recording(m, opts, &mut recorder, progress, thread);
        if !kept {
            let (outcome, recorder) = recording(m, opts, progress, false, held);
            return Run {
                outcome,
                recorder,
                fell_back: Some(
                    "the worker keeping the record beside the search failed: a full check \
                     ran"
                    .into(),
                ),
                unchanged: None,
            };
        }
        (outcome, recorder)
    };
    if replaying && outcome.limit == Some(crate::explore::Limit::Internal) {
        let (outcome, recorder) = recording(m, opts, progress, thread, held);
        return Run {
            outcome,
            recorder,
            fell_back: Some(
                "the recorded state graph did not fit the new version: a full check ran".into(),
            ),
            unchanged: None,
        };
    }
    outcome.stats.states_reused = outcome.stats.states_walked + outcome.stats.states_pruned;
    outcome.stats.frontier_states += recorder.frontier;
    if let Some(r) = recorder.replay.as_ref() {
        outcome.stats.groups_replayed = r.groups_replayed;
        outcome.stats.groups_executed = r.groups_executed;
    }
    Run {
        outcome,
        recorder,
        fell_back: None,
        unchanged: None,
    }
}

/// Whether what rides along is done on a second thread beside the search: when the machine
/// has a second core to run it. The outcome and the record are the same either way.
fn second_core() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
}

/// A recording run (no record reused). With `thread`, its book rides on a second thread
/// (`search_recording`); should that fail, the run is made again inline. `held`: bytes held
/// beside it, which count against its memory limit.
fn recording(
    m: &Machine,
    opts: &Options,
    progress: &mut dyn FnMut(&Stats),
    thread: bool,
    held: u64,
) -> (Outcome, Recorder) {
    let mut recorder = Recorder::new(None, None);
    recorder.held = held;
    let (outcome, kept) = search_recording(m, opts, &mut recorder, progress, thread);
    if kept {
        return (outcome, recorder);
    }
    let mut recorder = Recorder::new(None, None);
    recorder.held = held;
    let outcome = search(m, opts, &mut recorder, progress);
    (outcome, recorder)
}

/// The search with `recorder` riding along; with `thread`, its book (sets and state graph)
/// is kept on a worker thread (`book_pipe`) and put back into the recorder afterwards.
/// Whether the book was kept: not if the worker failed (a panic, no thread).
fn search_recording(
    m: &Machine,
    opts: &Options,
    recorder: &mut Recorder,
    progress: &mut dyn FnMut(&Stats),
    thread: bool,
) -> (Outcome, bool) {
    if !thread {
        return (search(m, opts, recorder, progress), true);
    }
    let book = std::mem::take(&mut recorder.book);
    let (mut outcome, kept) = crate::rmc::run::book_pipe::beside(m, book, |pipe| {
        recorder.pipe = Some(pipe);
        let outcome = search(m, opts, recorder, progress);
        (outcome, recorder.pipe.take())
    });
    let Some(book) = kept else {
        return (outcome, false);
    };
    // The book may have run out of memory after the search last looked: the run then
    // stopped at its memory limit, as it would have inline (no record).
    if book.oom && outcome.limit.is_none() {
        outcome.limit = Some(crate::explore::Limit::Memory);
    }
    recorder.book = book;
    (outcome, true)
}

/// A trail reported from a pruned state could not be completed: the recorded sub-state-space
/// did not hold the violation. A bug, never the model's fault.
#[derive(Debug, thiserror::Error)]
#[error("the recorded {kind} violation was not found again below the pruned state")]
pub struct LostViolation {
    pub kind: &'static str,
}

/// Completes the violations reported from pruned states: the rest of each trail is a
/// breadth-first path from the pruned state through its unchanged sub-state-space, and the
/// message and blocked processes are those found there.
pub fn complete_trails(
    m: &Machine,
    out: &mut Outcome,
    opts: &Options,
) -> Result<(), LostViolation> {
    let pending: Vec<usize> = (0..out.violations.len())
        .filter(|&i| out.violations[i].via.is_some())
        .collect();
    // One search per pruned state, for all the violations reported from it.
    let mut done = vec![false; out.violations.len()];
    for &i in &pending {
        if done[i] {
            continue;
        }
        let via = out.violations[i].via.clone().unwrap_or_default();
        let group: Vec<usize> = pending
            .iter()
            .copied()
            .filter(|&j| !done[j] && out.violations[j].via.as_deref() == Some(&via[..]))
            .collect();
        let targets: Vec<Option<Key>> =
            group.iter().map(|&j| Key::of(&out.violations[j])).collect();
        let found = crate::explore::shortest::find(m, &via, &targets, opts, None);
        for (&j, f) in group.iter().zip(found) {
            let v = &mut out.violations[j];
            let Some(f) = f else {
                return Err(LostViolation {
                    kind: v.kind.as_str(),
                });
            };
            if let Some(t) = &mut v.trail {
                t.extend_from_slice(&f.steps);
            }
            v.message = f.message;
            if v.kind == ViolationKind::InvalidEndState {
                v.blocked = f.blocked;
            }
            v.pid = f.steps.last().map(|s| s.rv.map_or(s.pid, |(q, _)| q));
            v.via = None;
            done[j] = true;
        }
    }
    Ok(())
}

/// A violation as the record and the base comparison know it.
pub fn rec_violation(m: &Machine, v: &crate::explore::Violation) -> RecViolation {
    let (at, edge) = match v.edge {
        Some(e) if (e as usize) < m.edges.len() => {
            let (l, k) = m.edge_at(e);
            (vec![l], Some(k))
        }
        _ => (
            v.blocked
                .iter()
                .map(|b| {
                    m.prog.procs[b.proc].automaton.locations[b.loc.0 as usize]
                        .id
                        .0
                })
                .collect(),
            None,
        ),
    };
    RecViolation {
        kind: v.kind.as_str().to_string(),
        at,
        edge,
        message: v.message.clone(),
    }
}

/// How the violations compare with the base's: per violation whether it is new (not in the
/// base by kind and stable location), and the base's violations that are gone.
pub fn compare(current: &[RecViolation], base: Option<&Record>) -> (Vec<bool>, Vec<RecViolation>) {
    let Some(base) = base else {
        return (vec![true; current.len()], Vec::new());
    };
    let same =
        |a: &RecViolation, b: &RecViolation| a.kind == b.kind && a.at == b.at && a.edge == b.edge;
    let new = current
        .iter()
        .map(|v| !base.violations.iter().any(|b| same(v, b)))
        .collect();
    let fixed = base
        .violations
        .iter()
        .filter(|b| !current.iter().any(|v| same(v, b)))
        .cloned()
        .collect();
    (new, fixed)
}

/// The record a complete run leaves: every state it stored with its set (fresh for
/// explored states, the old one for pruned states), plus the old records whose set misses
/// the dangerous locations (still valid although this run did not reach them). None when
/// the run was cut by a limit or ended by a fatal error.
pub fn record(
    m: &Machine,
    ids: &StableIds,
    run: &mut Run,
    base: Option<&Base>,
    sources: Sources,
    opts: &Options,
) -> Option<Record> {
    if !run.outcome.complete() {
        return None;
    }
    if let Some(u) = run.unchanged.take() {
        // The old record under the new sources and ids: its states, sets and graph hold.
        let u = *u;
        return Some(Record {
            meta: Meta {
                semantics: SEMANTICS,
                checks: checks_of(opts),
                layout_hash: m.layout.hash,
                figures: u.figures,
                prunable: prunable(m.prog),
                executed: u.executed_stable,
            },
            sources,
            ids: ids.clone(),
            elements: u.elements,
            sets: u.sets,
            fingerprints: u.fingerprints,
            set_of: u.set_of,
            violations: Vec::new(),
            graph: Some(u.graph),
        });
    }
    let mut builder = std::mem::take(&mut run.recorder.book.graph);
    let rec = &run.recorder;
    let (Some(fps), Some(sets_of)) = (&rec.book.fingerprints, &rec.book.set_of) else {
        return None;
    };
    // (fingerprint, set, slot in the new graph)
    let mut states: Vec<(Fingerprint, u32, u32)> = fps
        .iter()
        .zip(sets_of.iter())
        .enumerate()
        .map(|(i, (f, s))| (f, s, builder.slot(i as u32)))
        .collect();
    sort_by_fingerprint(&mut states);
    let mut table = Table::new(rec.book.elements.list.clone(), rec.book.sets.sets.clone());
    let old_graph = rec.prune().and_then(|p| p.graph.as_ref());
    let mut carried = 0u64;
    // With the old graph, the old states a pruning run did not reach but that are still
    // reachable are known: those below its pruned states (carried, in their slots). The
    // others are dropped, as a replay drops what it does not reach. Without it, every old
    // state whose set misses the change is kept.
    if let Some(g) = old_graph {
        let mut todo: Vec<u32> = builder.verbatim_slots().to_vec();
        let mut blocked = Vec::new();
        while let Some(s) = todo.pop() {
            let b = g.events_of(s);
            let mut at = 0;
            while at < b.len() {
                let Some(ev) =
                    crate::rmc::record::graph::decode_event(b, s, &mut at, &mut blocked, Some)
                else {
                    builder.broken = true;
                    break;
                };
                let Some(leaf) = ev.target() else {
                    continue;
                };
                if (leaf as usize) < g.len() && !builder.is_live(leaf) {
                    builder.carry(leaf);
                    todo.push(leaf);
                }
            }
        }
    }
    // (Not when the layout changed: the record's fingerprints are of its own layout.)
    if let (Some(base), Some(prune)) = (base, rec.prune().filter(|p| p.project.is_none())) {
        // Accumulate: old states this run did not reach whose set is still valid. Both
        // lists are sorted by fingerprint: one merge, no lookups.
        let r = &base.record;
        // Per old set: its id here (NONE until met).
        let mut translated = vec![crate::rmc::record::graph::NONE; r.sets.len()];
        let mut kept = Vec::new();
        let mut i = 0;
        for (k, &fp) in r.fingerprints.iter().enumerate() {
            let old = r.set_of[k];
            while i < states.len() && states[i].0 < fp {
                i += 1;
            }
            if prune.meets_danger[old as usize] || states.get(i).is_some_and(|s| s.0 == fp) {
                continue;
            }
            let slot = match old_graph {
                Some(g) => {
                    let o = g.slot_of[k];
                    if o == crate::rmc::record::graph::NONE || !builder.is_live(o) {
                        continue;
                    }
                    o
                }
                None => crate::rmc::record::graph::NONE,
            };
            let Some(known) = table.adopt(r, old, &mut translated) else {
                continue;
            };
            kept.push((fp, known, slot));
            carried += 1;
        }
        states = merge(states, kept);
    }
    // Across a layout change: the recorded states below the pruned ones, re-keyed.
    let mut met = rec.old_states_met_bits().map(<[u64]>::to_vec);
    if let (Some(base), Some(prune), Some(c)) = (base, rec.prune(), rec.carry.as_ref()) {
        if let (Some((ext, _)), Some(g)) = (&prune.project, &prune.across) {
            let r = &base.record;
            let mut position = vec![crate::rmc::record::graph::NONE; g.len()];
            for (k, &slot) in g.slot_of.iter().enumerate() {
                if let Some(p) = position.get_mut(slot as usize) {
                    *p = k as u32;
                }
            }
            let mut translated = vec![crate::rmc::record::graph::NONE; r.sets.len()];
            let mut kept = Vec::new();
            let complete = c.states(ext, g, m.layout.hash, |fp, slot| {
                let k = position[slot as usize] as usize;
                if let Some(set) = r
                    .set_of
                    .get(k)
                    .and_then(|&old| table.adopt(r, old, &mut translated))
                {
                    kept.push((fp, set, crate::rmc::record::graph::NONE));
                    if let Some(w) = met.as_mut().and_then(|b| b.get_mut(k / 64)) {
                        *w |= 1 << (k % 64);
                    }
                }
            });
            // (Never expected: what a pruned state stands for is carried exactly.)
            debug_assert!(complete, "a pruned part of the state space was not carried");
            sort_by_fingerprint(&mut kept);
            kept.dedup_by_key(|s| s.0);
            // A state the search stored keeps its own set.
            let mut i = 0;
            kept.retain(|s| {
                while i < states.len() && states[i].0 < s.0 {
                    i += 1;
                }
                states.get(i).is_none_or(|t| t.0 != s.0)
            });
            carried += kept.len() as u64;
            states = merge(states, kept);
        }
    }
    states.dedup_by_key(|s| s.0);
    let slot_of: Vec<u32> = states.iter().map(|s| s.2).collect();
    if let Some(base) = base {
        // Across a layout change, the old states met through their projection; else both
        // lists are sorted: one merge.
        let (mut j, mut still) = (0, 0u64);
        if let Some(met) = &met {
            still = met.iter().map(|w| w.count_ones() as u64).sum();
        } else {
            for fp in base.record.fingerprints.iter() {
                while j < states.len() && states[j].0 < *fp {
                    j += 1;
                }
                still += u64::from(states.get(j).is_some_and(|s| s.0 == *fp));
            }
        }
        let st = &mut run.outcome.stats;
        st.states_dropped = base.record.fingerprints.len() as u64 - still;
        st.states_reused = st.states_walked + st.states_pruned + carried;
    }
    // The old graph's bytes go in front of the new ones (moved, not copied).
    builder.join(run.recorder.take_old_graph());
    let graph = builder.finish(slot_of);
    // SPIN's figures only: a record's bytes depend on the model and the checks, never on
    // the machine (time, memory).
    let s = &run.outcome.stats;
    let figures = serde_json::json!({
        "states_stored": s.states_stored,
        "states_matched": s.states_matched,
        "transitions": s.transitions,
        "atomic_steps": s.atomic_steps,
        "depth_reached": s.depth_reached,
        "state_vector_bytes": s.state_vector_bytes,
        "vector_bytes": s.vector_bytes,
        "states_pruned": s.states_pruned,
        "sccs": s.sccs,
        "largest_scc": s.largest_scc,
    });
    Some(Record {
        meta: Meta {
            semantics: SEMANTICS,
            checks: checks_of(opts),
            layout_hash: m.layout.hash,
            figures,
            prunable: prunable(m.prog),
            executed: executed_stable(m, &run.outcome.executed),
        },
        sources,
        ids: ids.clone(),
        elements: table.elements,
        sets: table.sets,
        fingerprints: std::sync::Arc::new(states.iter().map(|s| s.0).collect()),
        set_of: states.iter().map(|s| s.1).collect(),
        graph,
        violations: run
            .outcome
            .violations
            .iter()
            .map(|v| rec_violation(m, v))
            .collect(),
    })
}

/// The edges marked executed, as (stable location, index there), sorted.
fn executed_stable(m: &Machine, executed: &[bool]) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = executed
        .iter()
        .enumerate()
        .filter(|(_, &x)| x)
        .map(|(no, _)| m.edge_at(no as EdgeNo))
        .collect();
    v.sort_unstable();
    v
}

/// Sorts by fingerprint: one bucket pass on the top 16 bits (fingerprints are uniformly
/// distributed), then each small bucket.
fn sort_by_fingerprint(v: &mut Vec<(Fingerprint, u32, u32)>) {
    if v.len() < 1 << 12 {
        v.sort_unstable_by_key(|s| s.0);
        return;
    }
    let bucket = |s: &(Fingerprint, u32, u32)| s.0.top(16);
    let mut counts = vec![0usize; (1 << 16) + 1];
    for s in v.iter() {
        counts[bucket(s) + 1] += 1;
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let mut out = vec![(Fingerprint::default(), 0u32, 0u32); v.len()];
    let mut at = counts.clone();
    for s in v.iter() {
        let b = bucket(s);
        out[at[b]] = *s;
        at[b] += 1;
    }
    for w in counts.windows(2) {
        out[w[0]..w[1]].sort_unstable_by_key(|s| s.0);
    }
    *v = out;
}

/// The elements and sets of a record being written, which old records' sets are adopted
/// into.
struct Table {
    elements: Vec<Element>,
    sets: Vec<Vec<u32>>,
    index: std::collections::HashMap<Element, u32>,
    set_index: std::collections::HashMap<Vec<u32>, u32>,
}

impl Table {
    fn new(elements: Vec<Element>, sets: Vec<Vec<u32>>) -> Table {
        Table {
            index: elements
                .iter()
                .enumerate()
                .map(|(i, e)| (e.clone(), i as u32))
                .collect(),
            set_index: sets
                .iter()
                .enumerate()
                .map(|(i, s)| (s.clone(), i as u32))
                .collect(),
            elements,
            sets,
        }
    }

    /// The id here of set `old` of record `r` (`translated` remembers, per old set, its id
    /// here: NONE until adopted). None: `r` has no such set.
    fn adopt(&mut self, r: &Record, old: u32, translated: &mut [u32]) -> Option<u32> {
        let known = translated.get_mut(old as usize)?;
        if *known == crate::rmc::record::graph::NONE {
            let mut s: Vec<u32> = r
                .sets
                .get(old as usize)?
                .iter()
                .map(|&e| {
                    let el = &r.elements[e as usize];
                    *self.index.entry(el.clone()).or_insert_with(|| {
                        self.elements.push(el.clone());
                        self.elements.len() as u32 - 1
                    })
                })
                .collect();
            s.sort_unstable();
            let sets = &mut self.sets;
            *known = *self.set_index.entry(s.clone()).or_insert_with(|| {
                sets.push(s);
                sets.len() as u32 - 1
            });
        }
        Some(*known)
    }
}

/// Two lists sorted by fingerprint, as one.
fn merge(
    a: Vec<(Fingerprint, u32, u32)>,
    b: Vec<(Fingerprint, u32, u32)>,
) -> Vec<(Fingerprint, u32, u32)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].0 <= b[j].0 {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The stable location ids a record's set holds for a state (for tests and tools).
pub fn set_locations(r: &Record, fp: Fingerprint) -> Option<Vec<LocId>> {
    let i = r.fingerprints.binary_search(&fp).ok()?;
    let set = &r.sets[r.set_of[i] as usize];
    Some(
        set.iter()
            .filter_map(|&e| match &r.elements[e as usize] {
                Element::Location(l) => Some(LocId(*l)),
                _ => None,
            })
            .collect(),
    )
}
