//! Auto's cost model (DESIGN.md 5.5): what a walked, an executed and an idle recorded
//! state cost against a full check's state, the share past which a full check is cheaper,
//! and what the prediction of a check holds. The constants are measured by the `rmc` bench.

/// The relative cost of walking one recorded state against executing one: measured by the
/// `rmc` bench (a walked transition costs a few lookups, an executed one the interpreter).
pub const WALK_COST: f64 = 0.25;

/// What walking one recorded state costs across a declaration change, against executing
/// one: it is known by key (`run::map_keys`), but its new vector and fingerprint are made
/// for the next record and its events recorded anew. Measured by the `rmc` bench
/// (`--declarations`; replays that executed nothing) when walked states were still built
/// and stored: 0.57 (rendezvous_pipeline), 0.66 (elevator), 0.82 (ring_election); by key,
/// ring_election N=9 from the command line (720k states walked, 64k executed) 0.57; the
/// sample's 9bfa606 and c2321d5 (a register retyped, a channel's capacity changed: 241k and
/// 108k walked, the executed states counted at their work) 0.55 to 0.6. (It was 0.7 while
/// executed states counted one each: a replay through a map on a model whose states pass
/// long atomic runs, the elevator with a global removed, cost 1.15 times a full check, since
/// the 15 % of the states it executed carried 75 % of the atomic steps.) Since walked states
/// keep their recorded events and the book makes their vectors (`run::map_vectors`), the
/// ring's walk through the map costs about 0.3 of a full check's state (search 365 ms
/// against 270 in one layout and 1,060 for a full check); at 0.4 here the `rmc` bench's
/// `--declarations` run gained on the rendezvous pipeline (0.93 -> 1.21) but replayed
/// filter_lock's version without the removed global (59k states against a record of
/// 206k) at 0.34 of a full check, where the prediction, made of the record, cannot see
/// that the version shrank: left at 0.6 until it can.
pub const PROJECTED_WALK_COST: f64 = 0.6;

/// What keying one recorded state costs against executing one, across a declaration change
/// that drops bytes: its vector decoded (from the one before, in slot order) and hashed.
/// Measured on the sample's 'Drop door_closing': 192 ms for 813k recorded states, against
/// 3.03 s for a full check of 739k.
pub const KEY_COST: f64 = 0.06;

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

/// What an idle recorded state (`IDLE_COST`) costs across a declaration change: its moves'
/// successors are built through the map as a walked state's are, so a projected walk, and
/// what loading it and reading its indices add (`IDLE_COST` over `WALK_COST`). With 0.5
/// here, auto replayed the sample's elevator 04 with an array indexed by a variable
/// resized (94k states walked, 56k executed, 5k of them idle), at 1.06 times a full
/// check's CPU time (median of seven interleaved runs); at 0.95 it runs the full check.
/// (Measured with a projected walk at 0.7: kept at 0.95.)
pub const PROJECTED_IDLE_COST: f64 = 0.95;

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
    /// The work of the recorded states a replay, and pruning, would execute, in recorded
    /// states of average work (their recorded events weighed: a state at a change inside
    /// long atomic runs passes many steps), where the record's graph tells it.
    #[serde(default)]
    pub replay_work: Option<f64>,
    #[serde(default)]
    pub prune_work: Option<f64>,
    /// Before choosing prune or a replay: the states random walks through the new version
    /// met, and those of them the record lacks (`probe`).
    #[serde(default)]
    pub walk_states: Option<u64>,
    #[serde(default)]
    pub walk_new: Option<u64>,
    /// The new version's states, when auto's first look counted them all (`SMALL_SHARE`):
    /// a full check ran, and nothing else was predicted.
    #[serde(default)]
    pub new_states: Option<u64>,
    /// Across a declaration change that drops bytes: what meeting recorded states by key
    /// costs (every recorded vector decoded and hashed), in full-check states.
    #[serde(default)]
    pub map_cost: Option<f64>,
    /// Recorded states are met through the map between two layouts: a walked state is
    /// built anew (`PROJECTED_WALK_COST`).
    #[serde(default)]
    pub projected: bool,
    /// The distinct violations below the states a pruning run would skip, each reported
    /// from one of them with its trail completed there.
    #[serde(default)]
    pub prune_carried: Option<u64>,
}

/// Auto's first look at a new version, for a record of `SMALL_FROM` states or more, before
/// its states are read: a recording full check, alone up to a `SMALL_SHARE`th of the
/// recorded states (then beside the plan, `LOOK_AHEAD`). Reading a recorded state costs
/// about a tenth of executing one (on the public MESI history, a 27.4-million-state record
/// read in 5 to 6 s, a full check of 597k states 1.0 s), so the look alone costs at most a
/// third of the read it precedes, and one that completes is the check (on a record of
/// 59,151 states, planning took 15 ms where the full check of a 544-state version took 4).
pub const SMALL_FROM: u64 = 1 << 14;
pub const SMALL_SHARE: u64 = 32;

/// Auto's first look goes on up to this many times its share (`SMALL_SHARE`) while the
/// plan is made beside it, asking every `LOOK_POLL` states whether the plan is made, and a
/// version it checks whole within that is checked by it: a plan that is a full check then
/// costs little beside that check (on the bench's philosophers, a version of 164,833 states
/// against a record of 1,013,857, the plan takes 0.22 to 0.33 s of a 1.0 s check), and a
/// version cut to a few recorded states is not replayed (the sample's e8a4e5e, 15,290
/// states of 171,928). Four times, not more: on two cores the look's recording slows the
/// plan it runs beside, which a replay pays (ring_election N=9 with a global retyped:
/// about 4 %).
pub const LOOK_AHEAD: u64 = 4;
pub const LOOK_POLL: u64 = 1 << 10;

/// Records smaller than this are reused without a probe: a full check of them costs little
/// anyway.
pub const PROBE_MIN_RECORDED: u64 = 1 << 14;

/// Random walks auto takes before it chooses prune or a replay (`probe`): how many, and how
/// long; and the fewest states they must meet for their share to decide anything.
pub const PROBE_WALKS: u32 = 16;
pub const PROBE_STEPS: u32 = 256;
pub const PROBE_MIN_MET: u64 = 64;

/// What a state the record lacks costs an incremental run, against a state of a full
/// check (both recording): it is executed, looked up in the record and stored, about a fifth
/// more (the `rmc` bench).
pub const NEW_STATE_COST: f64 = 1.2;

/// The share of new states among those the walks meet at or beyond which auto runs a full
/// check rather than prune or a replay: where a share `s` of the new version's states are
/// new and the rest walked at `walk` (`WALK_COST`, or `PROJECTED_WALK_COST` across a
/// declaration change), the run costs `s * NEW_STATE_COST + (1 - s) * walk` of a full
/// check, which passes 1 at `(1 - walk) / (NEW_STATE_COST - walk)`: 0.79 for a walk, 0.6 for
/// a projected one. (On the public MESI history, a commit that added locals made every
/// state new; the walks, which start where the versions agree, met 76 % new states, and its
/// replay took 4.5 s against 2.5 s for a full check.)
pub fn probe_new_share(projected: bool) -> f64 {
    let walk = match projected {
        true => PROJECTED_WALK_COST,
        false => WALK_COST,
    };
    (1.0 - walk) / (NEW_STATE_COST - walk)
}

/// The share of the new version's states that are new, where auto's walks met enough states
/// to tell (else none are counted new).
pub fn walked_new_share(p: &Predicted) -> f64 {
    match (p.walk_states, p.walk_new) {
        (Some(met), Some(new)) if met >= PROBE_MIN_MET => new as f64 / met as f64,
        _ => 0.0,
    }
}

/// What an incremental run costs against a full check of the new version, where its cheapest
/// algorithm costs `cost` full-check states over the `recorded` states and a share `new` of
/// the new version's states are new: from `FULL_MARGIN` on, auto runs the full check. The
/// new version keeps some number K of the recorded states, which the record cannot tell (a
/// fix that cuts a bug's behaviour leaves a fraction of them reachable); taking the kept
/// states to cost what the recorded states do on average, the run costs `K * cost /
/// recorded` for them (executed states weighed up by `FULL_SHARE`, as a state an incremental
/// run executes costs more than a recording run's) and `NEW_STATE_COST` for each of the new
/// version's `K / (1 - new)` states that is new, and the full check `K / (1 - new)`: K
/// cancels. With no new states this is the bar `FULL_SHARE` of the recorded states; with
/// every kept state walked, it is about the walks' own bar (`probe_new_share`). Measured on
/// the sample's 416a7de (a fix that cuts its base's 460k states to 255k, 45 % of them new as
/// the walks saw it, replay predicted at 0.66 of the recorded states): 0.99, and its replay
/// took 1.15 times the full check (medians of four), where the recorded states alone said
/// 0.82.
pub fn against_full(cost: f64, recorded: u64, new: f64) -> f64 {
    if recorded == 0 {
        return f64::INFINITY;
    }
    (1.0 - new) * cost / (FULL_SHARE * recorded as f64) + new * NEW_STATE_COST
}

/// Auto runs a full check when the incremental run is predicted to cost this share of it or
/// more (`against_full`): a full check chosen where the run would have cost this share
/// costs at most 1/0.95 = 1.05 times that run, while an incremental run chosen near the bar
/// costs what the prediction missed, which is more where a change cuts or adds states: the
/// sample's 416a7de was predicted at 0.99 and its replay took 1.15 times the full check, the
/// elevator 04's `>=` to `>` mutant at line 87 was predicted at 0.98 and its pruning took
/// 1.13 to 1.8 times. Not lower: the sample's c2321d5 (a channel's capacity changed, 12 %
/// new as the walks saw it) is predicted at 0.94 and its replay takes 0.7 of the full check.
pub const FULL_MARGIN: f64 = 0.95;

/// What completing one carried violation's trail costs a pruning run (a breadth-first
/// search below its pruned state, its message and blocked processes), in full-check states.
/// Measured by the `rmc` bench on distinct_deadlocks (10^5 distinct invalid end states):
/// pruning that executed 22,764 states took 1.5 s against 0.82 s for a full check of
/// 110,592, about 11 us per carried violation against 7.4 us per full-check state.
pub const TRAIL_COST: f64 = 1.5;

/// The cost of the pruning run a prediction describes, in full-check states.
pub fn prune_cost(p: &Predicted) -> f64 {
    p.prune_work.unwrap_or(p.prune_executed as f64)
        + p.prune_carried.unwrap_or(0) as f64 * TRAIL_COST
}

/// The cost of the replay a prediction describes, in full-check states.
pub fn replay_cost(p: &Predicted) -> f64 {
    let executed = p.replay_executed.unwrap_or(0) as f64;
    let moves = p.replay_moves_executed.unwrap_or(executed);
    let idle = p.replay_idle.unwrap_or(0.0).min(executed);
    let (walk, idle_cost) = if p.projected {
        (PROJECTED_WALK_COST, PROJECTED_IDLE_COST)
    } else {
        (WALK_COST, IDLE_COST)
    };
    // The executed states' terms count states of average work; a walked state costs its
    // reading, about the same whatever it recorded.
    let weight = match p.replay_work {
        Some(w) if executed > 0.0 => w / executed,
        _ => 1.0,
    };
    p.replay_walked.unwrap_or(0) as f64 * walk
        + weight * (idle * idle_cost + (executed - idle) * MIXED_COST + moves * (1.0 - MIXED_COST))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At the bar, storing the new states and walking the others costs what a full check
    /// does; a projected walk costs more, so fewer new states tip it.
    #[test]
    fn the_walks_bar_is_where_an_incremental_run_costs_a_full_check() {
        for (projected, walk, bar) in [
            (false, WALK_COST, 0.789),
            (true, PROJECTED_WALK_COST, 0.667),
        ] {
            let s = probe_new_share(projected);
            assert!((s - bar).abs() < 1e-3, "{s}");
            assert!((s * NEW_STATE_COST + (1.0 - s) * walk - 1.0).abs() < 1e-9);
        }
    }

    /// Without new states the bar is `FULL_SHARE` of the recorded states; new states move
    /// it down, and a version of new states alone is a full check whatever the rest costs.
    #[test]
    fn new_states_lower_the_bar_of_a_full_check() {
        let m = 1000;
        assert!(against_full(0.79 * m as f64, m, 0.0) < 1.0);
        assert!(against_full(0.81 * m as f64, m, 0.0) >= 1.0);
        // The sample's 416a7de: replay at 0.68 of the record, 45 % new.
        assert!(against_full(0.68 * m as f64, m, 0.45) >= 1.0);
        assert!(against_full(0.68 * m as f64, m, 0.2) < 1.0);
        assert!(against_full(0.0, m, 0.9) >= 1.0);
        assert!(against_full(0.0, 0, 0.0).is_infinite());
    }

    /// A replay's and pruning's executed states cost their work (`replay_work`,
    /// `prune_work`), not their count; walked states cost their count.
    #[test]
    fn executed_states_cost_their_work() {
        let light = Predicted {
            replay_walked: Some(100),
            replay_executed: Some(10),
            replay_moves_executed: Some(10.0),
            ..Predicted::default()
        };
        let heavy = Predicted {
            replay_work: Some(50.0),
            ..light
        };
        assert!((replay_cost(&light) - (100.0 * WALK_COST + 10.0)).abs() < 1e-9);
        assert!((replay_cost(&heavy) - (100.0 * WALK_COST + 50.0)).abs() < 1e-9);
        let prune = Predicted {
            prune_executed: 10,
            prune_work: Some(50.0),
            ..Predicted::default()
        };
        assert_eq!(prune_cost(&prune), 50.0);
        assert_eq!(
            prune_cost(&Predicted {
                prune_work: None,
                ..prune
            }),
            10.0
        );
    }
}
