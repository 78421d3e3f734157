//! The run of a planned check: the one search, with the recorder riding along (pruning,
//! replaying), its book on a second thread where the machine has one, and a full check in
//! its place when a record does not fit (said so, never hidden).

use crate::explore::machine::Machine;
use crate::explore::search::{search_paused, AtLimit};
use crate::explore::{Options, Outcome, Stats};
use crate::rmc::run::recorder::Recorder;

use super::base::Base;
use super::plan::Reuse;

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
            violations: std::mem::take(&mut u.violations),
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
            Reuse::Nothing | Reuse::Unchanged(_) | Reuse::Ran(_) => 0,
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
    let base_held = base.map_or(0, |b| b.record.memory());
    let held = base_held + reuse.memory();
    let (prune, replay) = match reuse {
        Reuse::Unchanged(u) => return Run::unchanged(*u),
        Reuse::Ran(run) => return *run,
        Reuse::Nothing => (None, None),
        Reuse::Prune(p) => (Some(*p), None),
        Reuse::Replay(r) => (None, Some(*r)),
    };
    let replaying = replay.is_some();
    let stop = &mut |_: &Stats| AtLimit::Stop;
    let (mut outcome, recorder) = if prune.is_none() && !replaying {
        recording(m, opts, progress, thread, held, stop)
    } else {
        let mut recorder = Recorder::new(prune, replay);
        // (A replay's lookups are built as the recorder is made: counted from there.)
        recorder.held = base_held + recorder.reused_memory();
        let (outcome, kept) = search_recording(m, opts, &mut recorder, progress, thread, stop);
        if !kept {
            let (outcome, recorder) = recording(m, opts, progress, false, held, stop);
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
        let (outcome, recorder) = recording(m, opts, progress, thread, held, stop);
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

/// Auto's first look at a new version (`plan::first_look`): a recording full check that asks
/// `at_limit` what to do when it reaches `opts.max_states`, and goes on as the full check
/// it is when told to. `held`: bytes held beside it, which count against its memory limit.
pub fn first_look(
    m: &Machine,
    held: u64,
    opts: &Options,
    progress: &mut dyn FnMut(&Stats),
    at_limit: &mut dyn FnMut(&Stats) -> AtLimit,
) -> Run {
    let (outcome, recorder) = recording(m, opts, progress, second_core(), held, at_limit);
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
    at_limit: &mut dyn FnMut(&Stats) -> AtLimit,
) -> (Outcome, Recorder) {
    let mut recorder = Recorder::new(None, None);
    recorder.held = held;
    let (outcome, kept) = search_recording(m, opts, &mut recorder, progress, thread, at_limit);
    if kept {
        return (outcome, recorder);
    }
    let mut recorder = Recorder::new(None, None);
    recorder.held = held;
    let outcome = search_paused(m, opts, &mut recorder, progress, at_limit);
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
    at_limit: &mut dyn FnMut(&Stats) -> AtLimit,
) -> (Outcome, bool) {
    if !thread {
        return (search_paused(m, opts, recorder, progress, at_limit), true);
    }
    let book = std::mem::take(&mut recorder.book);
    let (mut outcome, kept) = crate::rmc::run::book_pipe::beside(m, book, |pipe| {
        recorder.pipe = Some(pipe);
        let outcome = search_paused(m, opts, recorder, progress, at_limit);
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
