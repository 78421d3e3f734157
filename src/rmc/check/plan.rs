//! The plan of a check (DESIGN.md 5.2-5.5): the impact analysis, the stable ids, and which
//! of prune, replay (or the unchanged graph) and a full check runs, with the reason and what
//! auto predicted. Decided before anything is searched.

use crate::explore::machine::Machine;
use crate::explore::{AtLimit, Options, Stats};
use crate::program::Program;
use crate::rmc::diff::extension::Extension;
use crate::rmc::diff::ids::StableIds;
use crate::rmc::diff::impact::{analyze, Impact};
use crate::rmc::record::elements::Element;
use crate::rmc::record::graph::{Graph, NONE};
use crate::rmc::run::recorder::{Known, Prunable, Prune};
use crate::rmc::run::replay::Replay;
use crate::rmc::run::unchanged::Unchanged;
use std::sync::atomic::{AtomicBool, Ordering};

use super::base::{checks_of, prunable, Base};
use super::cost::*;
use super::Algorithm;

/// What a run reuses of the old version.
pub enum Reuse {
    Nothing,
    Prune(Box<Prune>),
    Replay(Box<Replay>),
    /// The change leaves the recorded graph as it was: the check is the record's.
    Unchanged(Box<crate::rmc::run::unchanged::Unchanged>),
    /// Auto's first look at the new version completed: it was a full check, and this is
    /// its run (`first_look`).
    Ran(Box<super::execute::Run>),
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
        !matches!(self.reuse, Reuse::Nothing | Reuse::Ran(_))
    }
}

/// Plans the check of `program` (numbered by position, as built) against `base`, whose
/// state graph it takes (to replay it, or to carry it into the next record). The steps, in
/// order: nothing to reuse; why the record cannot be reused at all; what pruning and a
/// replay would execute; a full check where either would execute most recorded states; the
/// unchanged graph; auto's random walks; replay or prune.
pub fn plan(program: Program, base: Option<&mut Base>, opts: &Options, want: Algorithm) -> Plan {
    plan_with(program, base, opts, want, &mut |_| {})
}

/// `plan`, telling `progress` how auto's first look goes (`first_look`): when the plan is a
/// full check, that look goes on as the check, and the plan holds its run.
pub fn plan_with(
    mut program: Program,
    base: Option<&mut Base>,
    opts: &Options,
    want: Algorithm,
    progress: &mut dyn FnMut(&Stats),
) -> Plan {
    let Some(base) = base else {
        return recording_plan(program);
    };
    let impact = analyze(&base.program, &program, base.record.ids.next_free);
    let ids = impact.ids.clone();
    // The table was just made from this very program, so every location has an id.
    let _ = ids.apply(&mut program);
    let extension = layout_extension(base, &program, &impact);
    let ends_change =
        opts.empty_channels && extension.as_ref().is_some_and(Extension::changes_channels);
    let cx = Context {
        ends_change,
        program,
        ids,
        impact,
        want,
        extension,
        old_hash: base.record.meta.layout_hash,
        states: base.states(),
        dangerous: String::new(),
        keys: None,
    };
    if let Some(reason) = why_not_incremental(base, &cx, opts) {
        return cx.full(reason, None);
    }
    if looks_first(&cx, opts) {
        return first_look(cx, base, opts, progress);
    }
    decide(cx, base, opts, None)
}

/// The plan from what the record says of its states: prune, a replay, the unchanged graph,
/// or a full check.
/// `called_off`: set when auto's first look turned out to be the check while this was being
/// made (the plan is then not wanted, and it stops at its next step).
fn decide(
    mut cx: Context,
    base: &mut Base,
    opts: &Options,
    called_off: Option<&AtomicBool>,
) -> Plan {
    let want = cx.want;
    let off = || called_off.is_some_and(|c| c.load(Ordering::Relaxed));
    let off_reason = || "auto's first look was the check".to_string();
    // (Only now: what the record says of its states is what the rest decides by. Their
    // fingerprints first: the probe and the prediction of pruning need no more, and when
    // the probe decides a full check, the graph, which costs several times as much to read,
    // is never read.)
    let unread =
        |e: super::base::BaseError| format!("the record's states do not read ({e}): a full check");
    if off() {
        return cx.full(off_reason(), None);
    }
    if let Err(e) = base.read_fingerprints() {
        return cx.full(unread(e), None);
    }
    cx.dangerous = format!(
        "{} dangerous location{} of {}",
        cx.impact.dangerous.len(),
        if cx.impact.dangerous.len() == 1 {
            ""
        } else {
            "s"
        },
        // (A claim's locations are never dangerous to the safety check: not counted.)
        base.program
            .procs
            .iter()
            .filter(|p| p.kind != crate::program::ProcKind::Never)
            .map(|p| p.automaton.locations.len())
            .sum::<usize>()
    );
    let (meets_danger, mut predicted) = predict_prune(base, &cx.impact);
    predicted.projected = cx.extension.is_some();
    // (Where nothing executed changed, the graph is likely unchanged, which the probe
    // cannot tell: it is read first. A state the walks meet that the record lacks is one
    // more reason the graph changed, so a full check the probe decides here is the one it
    // would decide after.)
    if !(cx.impact.dangerous.is_empty() && unchanged_may_hold(&cx)) {
        if let Some(reason) = probe_says_new(base, &cx, &mut predicted) {
            return cx.full(reason, Some(predicted));
        }
    }
    if off() {
        return cx.full(off_reason(), None);
    }
    if let Err(e) = base.read_states() {
        return cx.full(unread(e), Some(predicted));
    }
    let graph = base.record.graph.take();
    predicted.prune_work = graph
        .as_ref()
        .and_then(|g| prune_work(base, g, &meets_danger));
    // Across a change that drops bytes, recorded states are met by key, which their vectors
    // give.
    let by_key = cx.extension.as_ref().is_some_and(|e| e.drops);
    if by_key && graph.is_none() {
        let reason = format!(
            "a full check: the state layout changed ({}), so several recorded states stand \
             for one new state and are met by their vectors, and the record has no state \
             graph to read them from (a pruning run wrote it)",
            cx.impact.layout_change.clone().unwrap_or_default()
        );
        return cx.full(reason, None);
    }
    if by_key {
        predicted.map_cost = Some(cx.states as f64 * KEY_COST);
    }
    if off() {
        return cx.full(off_reason(), None);
    }
    let no_replay = why_no_replay(graph.is_some(), opts);
    let replay = match (&no_replay, graph) {
        (None, Some(g)) if want != Algorithm::Prune => {
            Ok(predict_replay(base, &cx, g, &mut predicted))
        }
        (_, g) => Err(g),
    };
    if let Some(reason) = full_is_cheaper(&cx, &replay, &predicted) {
        return cx.full(reason, Some(predicted));
    }
    if off() {
        return cx.full(off_reason(), None);
    }
    // (Before keying the record: the unchanged graph needs no keys.)
    let replay = match replay {
        Ok(rp) if unchanged_may_hold(&cx) && mapped_check_pays(&cx, &predicted, opts) => {
            match unchanged_graph(base, &cx, rp, opts) {
                Ok((u, reason)) => {
                    return cx.plan(Reuse::Unchanged(u), Algorithm::Replay, reason, predicted)
                }
                Err(rp) => Ok(*rp),
            }
        }
        other => other,
    };
    let mut replay = replay;
    if by_key {
        let g = match &replay {
            Ok(rp) => Some(&*rp.graph),
            Err(g) => g.as_ref(),
        };
        match g.and_then(|g| keys(g, &cx)) {
            Some(k) => cx.keys = Some(std::sync::Arc::new(k)),
            None => {
                return cx.full(
                    "the record's state graph cannot be read: a full check".into(),
                    Some(predicted),
                )
            }
        }
        if let Ok(rp) = replay.as_mut() {
            rp.keys = cx.keys.clone();
        }
    }
    if predicted.walk_states.is_none() {
        if let Some(reason) = probe_says_new(base, &cx, &mut predicted) {
            return cx.full(reason, Some(predicted));
        }
    }
    // Across a layout change, a pruning run writes no state graph (its pruned states'
    // recorded vectors are the old layout's), and the next commit that changes a
    // declaration would then have nothing to map: a full check. A replay writes one, and
    // its walk costs a fraction of that full check.
    let prune_graphless =
        cx.extension.is_some() && replay_cost(&predicted) < FULL_SHARE * cx.states as f64;
    match replay {
        Ok(rp)
            if want == Algorithm::Replay
                || replay_cost(&predicted) < prune_cost(&predicted)
                || (want == Algorithm::Auto && prune_graphless) =>
        {
            let reason = replay_reason(&cx, &predicted);
            cx.plan(
                Reuse::Replay(Box::new(rp)),
                Algorithm::Replay,
                reason,
                predicted,
            )
        }
        other => {
            let graph = match other {
                Ok(rp) => Some(rp.into_graph()),
                Err(g) => g,
            };
            prune_plan(base, cx, graph, meets_danger, predicted, no_replay)
        }
    }
}

/// What the planning steps share.
struct Context {
    program: Program,
    ids: StableIds,
    impact: Impact,
    want: Algorithm,
    /// The layout only gained variables or changed global channels: states are met through
    /// their projection onto the record's layout.
    extension: Option<Extension>,
    /// The record's layout hash (which seeds its fingerprints).
    old_hash: u64,
    /// Recorded states.
    states: u64,
    /// `N dangerous locations of M`, for the reasons.
    dangerous: String,
    /// Across a change that drops bytes: the recorded states by key.
    keys: Option<std::sync::Arc<crate::rmc::run::keys::Keys>>,
    /// A valid end state needs every channel empty (`-q`), and the map changes the
    /// channels a state holds: a recorded end state's verdict may not stand.
    ends_change: bool,
}

impl Context {
    fn plan(self, reuse: Reuse, algorithm: Algorithm, reason: String, p: Predicted) -> Plan {
        Plan {
            program: self.program,
            ids: self.ids,
            impact: Some(self.impact),
            reuse,
            algorithm,
            reason,
            predicted: Some(p),
        }
    }

    fn full(self, reason: String, predicted: Option<Predicted>) -> Plan {
        Plan {
            program: self.program,
            ids: self.ids,
            impact: Some(self.impact),
            reuse: Reuse::Nothing,
            algorithm: Algorithm::Full,
            reason,
            predicted,
        }
    }
}

/// No record: a recording run.
fn recording_plan(program: Program) -> Plan {
    let ids = StableIds::identity(&program);
    Plan {
        program,
        ids,
        impact: None,
        reuse: Reuse::Nothing,
        algorithm: Algorithm::Full,
        reason: "no record to reuse: a recording run".into(),
        predicted: None,
    }
}

/// A layout that only gains variables or changes global channels: states are looked up by
/// their projection onto the record's layout (whose hash must be the old program's, to seed
/// its fingerprints).
fn layout_extension(base: &Base, program: &Program, impact: &Impact) -> Option<Extension> {
    let layout = crate::explore::layout::Layout::new(program)
        .map(|l| l.hash)
        .ok();
    let old_hash = base.record.meta.layout_hash;
    impact
        .extension
        .clone()
        // (With the same layout, only a map that renumbers channels has work to do: global
        // channels of one type declared in another order.)
        .filter(|e| layout != Some(old_hash) || e.renumbers_handles())
        .filter(|_| {
            crate::explore::layout::Layout::new(&base.program).is_ok_and(|l| l.hash == old_hash)
        })
}

/// The record's states by key (None: a vector could not be read).
fn keys(g: &Graph, cx: &Context) -> Option<crate::rmc::run::keys::Keys> {
    let ext = cx.extension.as_ref()?;
    crate::rmc::run::keys::Keys::build(g, ext, cx.old_hash)
}

/// Whether auto takes a first look at the new version (`first_look`). Not where nothing the
/// search executes changed (a change of names, comments, layout of the text): the recorded
/// graph is the new one, which the check reads and executes nothing.
fn looks_first(cx: &Context, opts: &Options) -> bool {
    let nothing_executed_changed = cx.impact.dangerous.is_empty() && unchanged_may_hold(cx);
    let budget = cx.states / SMALL_SHARE;
    cx.want == Algorithm::Auto
        && cx.states >= SMALL_FROM
        && !nothing_executed_changed
        && opts.max_states.is_none_or(|n| budget > 0 && n > 0)
}

/// Auto's first look at the new version (`SMALL_FROM`), before the record's states are
/// read: a full check (recording) of up to `LOOK_AHEAD` times a `SMALL_SHARE`th of the
/// recorded states. When it completes within that, it is the check: reading the record
/// would have cost more than all of it (reading a recorded state costs about a tenth of
/// executing one). From a `SMALL_SHARE`th on, the plan is made (`decide`) on a thread of
/// its own while the look goes on (asking every `LOOK_POLL` states whether it is made):
/// when the plan is a full check, the look goes on as that check from where it stands
/// (nothing searched twice, the plan's cost hidden behind it where a second core is free);
/// anything else drops the look once it has reached its end unfinished. Which check runs
/// depends on the version and the record only, never on which thread finished first: the
/// look is the check exactly when the version has at most its share of states or the plan
/// is a full check.
fn first_look(
    cx: Context,
    base: &mut Base,
    opts: &Options,
    progress: &mut dyn FnMut(&Stats),
) -> Plan {
    // (Within a limit on states the check has: a version that completes under both is
    // checked whole, and a look that stops at the check's own limit is that check.)
    let share = cx.states / SMALL_SHARE;
    let ahead = share
        .saturating_mul(LOOK_AHEAD)
        .min(opts.max_states.unwrap_or(u64::MAX));
    let own_limit = opts.max_states.is_some_and(|n| n <= ahead);
    let program = cx.program.clone();
    let Ok(m) = Machine::new(&program) else {
        return decide(cx, base, opts, None);
    };
    let look = Options {
        max_states: Some(share.min(ahead)),
        ..opts.clone()
    };
    let (states, held) = (cx.states, base.record.memory());
    // (What a plan is made of, should the look lose its context: never expected.)
    let (ids, impact) = (cx.ids.clone(), cx.impact.clone());
    let called_off = AtomicBool::new(false);
    let called_off = &called_off;
    let mut pending = Some((Box::new(cx), base));
    let plan = std::thread::scope(|scope| {
        let mut decider = None;
        // The plan, and the bytes the base holds once it is made.
        let mut made: Option<(Plan, u64)> = None;
        // It was told to go on as the full check the plan is.
        let mut went_on = false;
        let mut at_limit = |st: &Stats| {
            let n = st.states_stored;
            if decider.is_none() && made.is_none() && n < ahead {
                if let Some((cx, base)) = pending.take() {
                    decider = Some(scope.spawn(move || {
                        let plan = decide(*cx, &mut *base, opts, Some(called_off));
                        (plan, base.record.memory())
                    }));
                }
            }
            if decider
                .as_ref()
                .is_some_and(|d| d.is_finished() || n >= ahead)
            {
                made = decider.take().and_then(|d| d.join().ok());
            }
            match &made {
                Some((plan, now_held)) if matches!(plan.reuse, Reuse::Nothing) => {
                    went_on = true;
                    AtLimit::GoOn {
                        max_states: opts.max_states,
                        held: now_held.saturating_sub(held),
                    }
                }
                _ if n < ahead => AtLimit::GoOn {
                    max_states: Some((n + LOOK_POLL).min(ahead)),
                    held: 0,
                },
                _ => AtLimit::Stop,
            }
        };
        let run = super::execute::first_look(&m, held, &look, progress, &mut at_limit);
        // A version of at most `ahead` states is checked whole by the look whatever the
        // plan: a plan still being made is called off (and waited for: it holds the base).
        let n = run.outcome.stats.states_stored;
        let small = run.outcome.complete() && n <= ahead;
        if let Some(d) = decider.take() {
            called_off.store(small, Ordering::Relaxed);
            made = d.join().ok();
        }
        let cx_plan = match (made, pending) {
            (Some((plan, _)), _) => plan,
            (None, Some((cx, base))) if !small => decide(*cx, base, opts, None),
            (None, Some((cx, _))) => cx.full(String::new(), None),
            (None, None) => return None,
        };
        Some(if small {
            let reason = format!(
                "auto: a full check, the new version being small: its {n} states are at \
                 most 1/{} of the {states} recorded, and checking them cost less than \
                 reading the record would have",
                SMALL_SHARE / LOOK_AHEAD
            );
            Plan {
                reuse: Reuse::Ran(Box::new(run)),
                algorithm: Algorithm::Full,
                reason,
                predicted: Some(Predicted {
                    new_states: Some(n),
                    ..Predicted::default()
                }),
                ..cx_plan
            }
        } else if matches!(cx_plan.reuse, Reuse::Nothing) && (went_on || own_limit) {
            // It went on as the full check the plan is (or stopped at the check's own
            // limit, with the check's options: that check).
            Plan {
                reuse: Reuse::Ran(Box::new(run)),
                ..cx_plan
            }
        } else {
            cx_plan
        })
    });
    plan.unwrap_or_else(|| Plan {
        program,
        ids,
        impact: Some(impact),
        reuse: Reuse::Nothing,
        algorithm: Algorithm::Full,
        reason: "auto's first look lost its plan: a full check".into(),
        predicted: None,
    })
}

/// Why nothing of the record can be reused, if so.
fn why_not_incremental(base: &Base, cx: &Context, opts: &Options) -> Option<String> {
    let layout = crate::explore::layout::Layout::new(&cx.program)
        .map(|l| l.hash)
        .ok();
    let traced = |p: &crate::program::Program| p.procs.iter().any(|p| p.kind.is_trace());
    if cx.want == Algorithm::Full {
        Some("--algorithm full".to_string())
    } else if traced(&cx.program) || traced(&base.program) {
        // A trace moves on channel events, which neither the recorded footprints nor the
        // impact analysis see: a changed trace could change any state.
        Some(
            "the model has an event trace (trace or notrace): its moves are not in the \
             record, so nothing is reused"
                .into(),
        )
    } else if !prunable(&cx.program) {
        Some(
            "the model has hidden variables: its successors are not a function of the stored \
             state, so nothing is pruned"
                .into(),
        )
    } else if !base.record.meta.prunable {
        Some("the record's model had hidden variables".into())
    } else if base.record.meta.checks != checks_of(opts) {
        Some("the record was made with other checks (end states, assertions, -q)".into())
    } else if layout != Some(base.record.meta.layout_hash) && cx.extension.is_none() {
        Some(format!(
            "the state layout changed ({}): no recorded state can be reused",
            cx.impact
                .layout_change
                .clone()
                .unwrap_or_else(|| "declarations".into())
        ))
    } else if cx.extension.is_some() {
        // Proctypes pair by name across the map.
        None
    } else {
        moved_proctype(&base.program, &cx.program).map(|moved| {
            format!(
                "{moved}: a process record names its proctype by position, so no recorded \
                 state can be reused"
            )
        })
    }
}

/// Whether each of the record's sets meets the change, and what pruning would execute: the
/// recorded states whose set meets it.
fn predict_prune(base: &Base, impact: &Impact) -> (Vec<bool>, Predicted) {
    let r = &base.record;
    // Per element, then per set by its element ids: a record with 10^5 distinct violations
    // has as many elements, which the sets name again and again.
    let dangerous: Vec<bool> = r
        .elements
        .iter()
        .map(|e| e.locations().iter().any(|l| impact.is_dangerous(*l)))
        .collect();
    let meets_danger: Vec<bool> = r
        .sets
        .iter()
        .map(|s| {
            s.iter()
                .any(|&e| dangerous.get(e as usize).copied().unwrap_or(true))
        })
        .collect();
    let prune_executed = r
        .set_of
        .iter()
        .filter(|&&s| meets_danger[s as usize])
        .count() as u64;
    // The violations below states pruning would skip: each is reported from a pruned state
    // and its trail completed there (`trails::complete_trails`).
    let mut carried = vec![false; r.elements.len()];
    for (s, set) in r.sets.iter().enumerate() {
        if !meets_danger[s] {
            for &e in set {
                if let Some(c) = carried.get_mut(e as usize) {
                    *c = r.elements[e as usize].is_violation();
                }
            }
        }
    }
    let predicted = Predicted {
        prune_executed,
        prune_carried: Some(carried.iter().filter(|&&c| c).count() as u64),
        ..Predicted::default()
    };
    (meets_danger, predicted)
}

/// The record's sets, each as its elements (what a pruning run reports from a pruned state).
fn element_sets(base: &Base) -> Vec<Vec<Element>> {
    let r = &base.record;
    r.sets
        .iter()
        .map(|s| s.iter().map(|&e| r.elements[e as usize].clone()).collect())
        .collect()
}

/// Why replay cannot run, if so: it needs the graph and a search without a depth limit (a
/// cut at the limit depends on the depth a state is reached at, which a record does not
/// keep).
fn why_no_replay(has_graph: bool, opts: &Options) -> Option<String> {
    if !has_graph {
        Some("the record has no state graph (an older record, or one a pruning run wrote)".into())
    } else if opts.max_depth.is_some() {
        Some("a depth limit (-m) is set".into())
    } else {
        None
    }
}

/// The replay of the record's graph, and what it would walk and execute.
fn predict_replay(base: &Base, cx: &Context, g: Graph, predicted: &mut Predicted) -> Replay {
    let r = &base.record;
    let impact = &cx.impact;
    let mut rp = Replay::new(g, r.fingerprints.clone(), |l| impact.is_dangerous(l));
    rp.project = cx.extension.clone().map(|e| (e, cx.old_hash));
    rp.ends_execute = cx.ends_change;
    if rp.project.is_none() {
        rp.guards = impact.guards.clone();
    } else {
        rp.indexed = impact.indexed.clone();
    }
    let grouped = !cx.program.uses_priority;
    // Auto runs a full check when pruning, and a replay executing none of its executed
    // states' moves, would each cost most of one: then the groups need no reading. The
    // full check's bar with no new state (new states only lower it), and the executed
    // states weighed by their work, as `replay_cost` weighs them.
    let bar = FULL_MARGIN * FULL_SHARE * r.fingerprints.len() as f64;
    let (walk, idle) = if cx.extension.is_some() {
        (PROJECTED_WALK_COST, PROJECTED_IDLE_COST)
    } else {
        (WALK_COST, IDLE_COST)
    };
    let prune_too = cx.want == Algorithm::Auto && prune_cost(predicted) >= bar;
    // (An executed state costs at least the lesser of an idle one and one whose moves are
    // all replayed: `replay_cost`.)
    let least = idle.min(MIXED_COST);
    let enough = |walked: u64, work: f64| prune_too && walked as f64 * walk + work * least >= bar;
    let m = Machine::new(&cx.program).ok();
    let p = rp.predict(m.as_ref(), grouped, enough);
    predicted.replay_walked = Some(p.walked);
    predicted.replay_executed = Some(p.executed);
    predicted.replay_moves_executed = Some(p.moves);
    predicted.replay_idle = Some(p.idle);
    predicted.replay_work = Some(p.work);
    rp
}

/// The work of the recorded states pruning would execute (those whose set meets the change),
/// in recorded states of average work (`work_in_states`), where the graph has every state.
fn prune_work(base: &Base, g: &Graph, meets_danger: &[bool]) -> Option<f64> {
    let r = &base.record;
    if g.slot_of.len() != r.set_of.len() {
        return None;
    }
    let (mut n, mut bytes, mut all, mut all_bytes) = (0u64, 0u64, 0u64, 0u64);
    for (&set, &slot) in r.set_of.iter().zip(g.slot_of.iter()) {
        if slot == NONE {
            continue;
        }
        let b = g.event_bytes(slot);
        all += 1;
        all_bytes += b;
        if meets_danger.get(set as usize).copied().unwrap_or(true) {
            n += 1;
            bytes += b;
        }
    }
    Some(crate::rmc::record::graph::work_in_states(
        n, bytes, all, all_bytes,
    ))
}

/// Auto's full check when prune and replay would each execute most recorded states: a state
/// an incremental run executes costs more than one a recording run does (its lookup in the
/// record answers the search, so it is made on the search's thread; a recording run looks
/// nothing up), and a full check writes as good a record. (Without a graph to carry across
/// a layout change, `prune_plan` says so itself.)
fn full_is_cheaper(
    cx: &Context,
    replay: &Result<Replay, Option<Graph>>,
    predicted: &Predicted,
) -> Option<String> {
    let states = cx.states;
    let cheapest = match replay {
        Ok(_) => Some(replay_cost(predicted).min(prune_cost(predicted))),
        Err(Some(_)) if cx.extension.is_none() => Some(prune_cost(predicted)),
        Err(_) => None,
    }
    .map(|c| c + predicted.map_cost.unwrap_or(0.0));
    let new = walked_new_share(predicted);
    if cx.want != Algorithm::Auto
        || states == 0
        || !cheapest.is_some_and(|c| against_full(c, states, new) >= FULL_MARGIN)
    {
        return None;
    }
    Some(format!(
        "auto: a full check, predicted cheaper (pruning would execute {} of the {states} \
         recorded states{}{}{}); {}",
        predicted.prune_executed,
        match (predicted.replay_walked, predicted.replay_executed) {
            (Some(w), Some(x)) => format!(", replay walk {w} and execute {x}"),
            _ => String::new(),
        },
        match predicted.map_cost {
            Some(_) => ", after reading every recorded vector to meet states by key",
            None => "",
        },
        match new > 0.0 {
            true => format!(
                ", and {:.0} % of the new version's states new, as the walks met them",
                new * 100.0
            ),
            false => String::new(),
        },
        cx.dangerous
    ))
}

/// A change that leaves the recorded graph as it was (an assertion that holds wherever it
/// is reached, a value written where it is already): the states at the change are shown to
/// expand as recorded, and nothing is walked. (Replay is on offer only for auto and replay.)
fn unchanged_graph(
    base: &mut Base,
    cx: &Context,
    rp: Replay,
    opts: &Options,
) -> Result<(Box<Unchanged>, String), Box<Replay>> {
    let (old, new, r) = (&base.program, &cx.program, &base.record);
    let mut u = match &cx.extension {
        None => crate::rmc::run::unchanged::carry(old, new, r, rp, opts)?,
        Some(_) => crate::rmc::run::unchanged_layout::carry(old, new, r, rp, opts)?,
    };
    u.adopt(&mut base.record);
    let how = match &cx.extension {
        None if u.checked == 0 => "no recorded state meets the change, so the record's figures \
                                   and state graph stand"
            .to_string(),
        None => format!(
            "the {} recorded states the change meets expand as they did ({} by the values of \
             their changed conditions, the others executed in both versions and compared), so \
             the record's figures and state graph stand",
            u.checked, u.by_conditions
        ),
        Some(_) if u.checked == 0 => format!(
            "no recorded state meets the change and every recorded step leads to its \
             target's image in the new layout ({}), so the record's figures and state graph \
             stand, its vectors mapped",
            cx.impact.layout_change.clone().unwrap_or_default()
        ),
        Some(_) => format!(
            "every recorded step leads to its target's image in the new layout ({}), and \
             the {} recorded states the change meets expand as they did (executed in both \
             versions, each new successor the image of the old one), so the record's figures \
             and state graph stand, its vectors mapped",
            cx.impact.layout_change.clone().unwrap_or_default(),
            u.checked
        ),
    };
    let reason = format!(
        "{}the state graph is unchanged: {how} (nothing walked); {}",
        if cx.want == Algorithm::Auto {
            "auto: "
        } else {
            "replay: "
        },
        cx.dangerous
    );
    Ok((Box::new(u), reason))
}

/// Whether the change may leave the recorded graph as it was: nothing changed the initial
/// state alone (in one layout or across a map).
fn unchanged_may_hold(cx: &Context) -> bool {
    cx.impact.notes.is_empty()
}

/// Across a layout change, whether checking that the recorded graph holds costs less than
/// the replay it may save: it maps every recorded state (about a quarter of a full check's
/// state each: the ring_election N=9 bench model's 724k states in 0.44 s, against 1.3 to
/// 2 s for a full check) and executes each state the change meets twice, once in each
/// version, where a replay walks every state through the map and executes those once.
/// Measured: with 1 state of 724k met (ring_election, a global retyped wider) the check
/// took 0.88 s where the replay took 1.05; with 52,488 of 219,796 (the bench's rendezvous
/// pipeline, the same change), 0.49 s where the replay took 0.45: tried up to a tenth. In
/// one layout the check maps nothing.
fn mapped_check_pays(cx: &Context, predicted: &Predicted, opts: &Options) -> bool {
    match (&cx.extension, predicted.replay_executed) {
        (None, _) => true,
        (Some(_), _) if cx.impact.dangerous.is_empty() => true,
        (Some(_), _) if !opts.compare_across_map => false,
        (Some(_), Some(meets)) => meets.saturating_mul(10) <= cx.states,
        (Some(_), None) => false,
    }
}

/// Auto's random walks through the new version (`probe`): prune and replay store the states
/// the record lacks at more than a full check's cost, and the record cannot tell how many
/// there will be. A full check when nearly every state they meet is new. Across a layout
/// change a state is looked for by its projection, as the run would meet it; not where
/// the map drops bytes (the record is then met by keys, which the walks do not make).
fn probe_says_new(base: &Base, cx: &Context, predicted: &mut Predicted) -> Option<String> {
    let drops = cx.extension.as_ref().is_some_and(|e| e.drops);
    if cx.want != Algorithm::Auto || drops || cx.states < PROBE_MIN_RECORDED {
        return None;
    }
    let fps = &base.record.fingerprints;
    let projected = std::cell::RefCell::new(Vec::new());
    let w = Machine::new(&cx.program).ok().and_then(|m| {
        crate::rmc::run::probe::sample(&m, PROBE_WALKS, PROBE_STEPS, |canon| {
            let fp = match &cx.extension {
                None => crate::explore::store::fingerprint(m.layout.hash, canon),
                Some(ext) => {
                    let mut old = projected.borrow_mut();
                    if !ext.project(canon, &mut old) {
                        return false;
                    }
                    crate::explore::store::fingerprint(cx.old_hash, &old)
                }
            };
            fps.binary_search(&fp).is_ok()
        })
    })?;
    predicted.walk_states = Some(w.met);
    predicted.walk_new = Some(w.new);
    let bar = probe_new_share(cx.extension.is_some());
    (w.met >= PROBE_MIN_MET && w.new_share() >= bar).then(|| {
        format!(
            "auto: a full check, predicted cheaper: random walks through the new version met \
             {} states, {} of them not in the record (past {:.0} % new, pruning or a replay \
             would store more states anew than walking the others saves); {}",
            w.met,
            w.new,
            bar * 100.0,
            cx.dangerous
        )
    })
}

/// Across a layout that changed that way, states are met through their projection.
fn projected(cx: &Context) -> String {
    cx.extension
        .as_ref()
        .map(|e| {
            format!(
                "; the state layout changed ({}): recorded states are met through their \
                 projection",
                e.describe()
            )
        })
        .unwrap_or_default()
}

/// Why a replay runs.
fn replay_reason(cx: &Context, predicted: &Predicted) -> String {
    let (dangerous, projected, states) = (&cx.dangerous, projected(cx), cx.states);
    if cx.want == Algorithm::Replay {
        format!("replay: {dangerous}{projected}")
    } else if replay_cost(predicted) >= prune_cost(predicted) {
        format!(
            "auto: replay, which writes the state graph that pruning across a changed layout \
             cannot ({} walked, {} executed; pruning would execute {} of {states}); \
             {dangerous}{projected}",
            predicted.replay_walked.unwrap_or(0),
            predicted.replay_executed.unwrap_or(0),
            predicted.prune_executed
        )
    } else {
        let carried = match predicted.prune_carried {
            Some(n) if n > 0 => format!(" and complete the trails of {n} violations below it"),
            _ => String::new(),
        };
        format!(
            "auto: replay predicted cheaper ({} walked, {} executed; pruning would execute \
             {}{carried}); {dangerous}{projected}",
            predicted.replay_walked.unwrap_or(0),
            predicted.replay_executed.unwrap_or(0),
            predicted.prune_executed
        )
    }
}

/// A pruning run, or a full check where pruning would not write a whole record with a graph.
fn prune_plan(
    base: &Base,
    cx: Context,
    graph: Option<Graph>,
    meets_danger: Vec<bool>,
    predicted: Predicted,
    no_replay: Option<String>,
) -> Plan {
    let (want, states) = (cx.want, cx.states);
    let dangerous = cx.dangerous.clone();
    // (Who says that pruning does not run across this layout change.)
    let who = match want {
        Algorithm::Auto => "auto: ",
        Algorithm::Replay => "neither replay nor pruning can run: ",
        _ => "pruning cannot run: ",
    };
    // Below a pruned state, an end state's verdict is the record's; with -q it reads every
    // channel, and the map changes which a state holds or what one holds.
    if let (true, Some(e)) = (cx.ends_change, &cx.extension) {
        let reason = format!(
            "{who}a full check: a valid end state needs every channel empty (-q), and the \
             state layout changed its channels ({}), so an end state below a pruned state may \
             be judged otherwise; {dangerous}",
            e.describe()
        );
        return cx.full(reason, Some(predicted));
    }
    // A pruned state keeps its recorded slot, vector and events: not across a layout change
    // (the vectors would be the old layout's). There the old graph serves to carry what lies
    // below the pruned states into the new layout (`carry`).
    let (graph, across) = match cx.extension {
        Some(_) => (None, graph),
        None => (graph, None),
    };
    // Without it, the record written would lack the pruned states' parts of the state space,
    // and a later run could prune into what it lacks.
    if let (Some(e), None) = (&cx.extension, &across) {
        let reason = format!(
            "{who}a full check: the state layout changed ({}) and the record has no state \
             graph from which to carry the pruned parts of the state space into the new \
             layout; {dangerous}",
            e.describe()
        );
        return cx.full(reason, Some(predicted));
    }
    // Without a graph, a pruning run writes none either (its pruned states' parts of the
    // state space are not walked), and every later commit is left with pruning. When pruning
    // would execute most of the states' work anyway, a full check costs about the same and
    // writes the graph that replay needs.
    let prune_work = predicted
        .prune_work
        .unwrap_or(predicted.prune_executed as f64);
    if want == Algorithm::Auto && graph.is_none() && prune_work * 2.0 >= states as f64 {
        let reason = format!(
            "auto: a full check, which writes the state graph {} (pruning would execute {} of \
             its {states} states{}); {dangerous}",
            if cx.extension.is_some() {
                "that a changed layout cannot reuse"
            } else {
                "the record lacks"
            },
            predicted.prune_executed,
            match predicted.prune_work {
                Some(w) if w.round() as u64 != predicted.prune_executed =>
                    format!(", which do the work of {:.0} states of average work", w),
                _ => String::new(),
            }
        );
        return cx.full(reason, Some(predicted));
    }
    let reason = match (want, no_replay.as_deref()) {
        (Algorithm::Replay, Some(why)) => {
            format!("replay cannot run ({why}): pruning; {dangerous}")
        }
        (Algorithm::Auto, None) => format!(
            "auto: pruning predicted cheaper (it executes {}; replay would walk {} and execute \
             {}); {dangerous}",
            predicted.prune_executed,
            predicted.replay_walked.unwrap_or(0),
            predicted.replay_executed.unwrap_or(0)
        ),
        (Algorithm::Auto, Some(why)) => {
            format!("auto: pruning, replay cannot run ({why}); {dangerous}")
        }
        _ => format!("pruning: {dangerous}"),
    };
    let reason = format!("{reason}{}", projected(&cx));
    let r = &base.record;
    let mut known = Known::new(
        r.fingerprints.clone(),
        r.set_of.clone(),
        graph.as_ref().or(across.as_ref()),
    );
    known.keys = cx.keys.clone();
    let prune = Prune {
        prunable: Prunable::new(&known, &meets_danger),
        known: std::sync::Arc::new(known),
        sets: std::sync::Arc::new(element_sets(base)),
        meets_danger,
        graph,
        across,
        project: cx.extension.clone().map(|e| (e, cx.old_hash)),
        give_up_after: crate::rmc::run::recorder::GIVE_UP_AFTER,
    };
    cx.plan(
        Reuse::Prune(Box::new(prune)),
        Algorithm::Prune,
        reason,
        predicted,
    )
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
