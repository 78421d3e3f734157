//! What a search is asked (`Options`) and what it returns (`Outcome`): SPIN's figures, the
//! distinct violations with their trails, the limit that cut the search or the fatal error
//! that ended it. Plain data; rendering lives in `report`.

use std::time::Duration;

use serde::Serialize;

use super::machine::EdgeNo;
use super::trail::TrailStep;

/// What the user asked for (pan's run-time options).
#[derive(Clone, Debug)]
pub struct Options {
    /// Report invalid end states (pan without `-E`).
    pub end_states: bool,
    /// Report assertion violations and index errors (pan without `-A`).
    pub assertions: bool,
    /// A valid end state also needs every channel empty (pan `-q`).
    pub empty_channels: bool,
    pub max_depth: Option<u64>,
    pub max_states: Option<u64>,
    pub max_errors: Option<u64>,
    /// Bytes the search may hold (states, path, trails, bookkeeping).
    pub memory_limit: Option<u64>,
    /// Trails are built and kept for the first this many violations of each kind.
    pub max_trails: usize,
    /// Look for acceptance cycles of the product with the never claim (pan -a).
    pub acceptance: bool,
    /// With `acceptance`: only weakly fair cycles count (pan -f), where every process that
    /// is enabled all along the cycle moves in it.
    pub fair: bool,
    /// Successors are built one ahead once the visited set's table is this many bytes (see
    /// `LOOK_AHEAD_FROM`); the figures never depend on it.
    pub look_ahead_from: usize,
    /// Across a declaration change whose statements meet recorded states, an incremental
    /// check first asks whether the recorded graph holds (`rmc::run::unchanged_layout`:
    /// those states executed in both versions) before it replays through the map; the
    /// figures never depend on it (off, the replay runs: tests exercise it so).
    pub compare_across_map: bool,
}

/// The table size from which successors are built ahead: a smaller table stays in the
/// cache, where a lookup costs less than building ahead adds (a successor built again after
/// a visit that stored a state, and a second hash). Measured on the bench models: 11 %
/// faster with an 80 MB table, 6 % slower with a 5 MB one.
pub const LOOK_AHEAD_FROM: usize = 10 << 20;

/// Trails kept per kind of violation unless the user says otherwise.
pub const DEFAULT_MAX_TRAILS: usize = 10;

impl Default for Options {
    fn default() -> Self {
        Options {
            end_states: true,
            assertions: true,
            empty_channels: false,
            max_depth: None,
            max_states: None,
            max_errors: None,
            memory_limit: None,
            max_trails: DEFAULT_MAX_TRAILS,
            acceptance: false,
            fair: false,
            look_ahead_from: LOOK_AHEAD_FROM,
            compare_across_map: true,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct Stats {
    pub states_stored: u64,
    pub states_matched: u64,
    pub transitions: u64,
    pub atomic_steps: u64,
    pub depth_reached: u64,
    /// The largest state vector in pan's C layout (what pan prints as "State-vector").
    pub state_vector_bytes: u64,
    /// The largest state vector in git rmc's own encoding.
    pub vector_bytes: u64,
    /// States a regression check did not explore (always 0 in a full check).
    pub states_pruned: u64,
    /// States the nested search of an acceptance-cycle check visited again (pan's
    /// nShadow: its "(N visited)" is stored plus these); transitions count them.
    #[serde(default)]
    pub states_revisited: u64,
    /// Stored states whose successors the interpreter computed (stored, less walked and
    /// pruned).
    #[serde(default)]
    pub states_executed: u64,
    /// Stored states whose successors a replay took from the record (nothing executed).
    #[serde(default)]
    pub states_walked: u64,
    /// Recorded states a replay executed because their expansion meets the change.
    #[serde(default)]
    pub frontier_states: u64,
    /// Recorded states the next record keeps unchanged (walked, pruned, or below a pruned
    /// state), and those it drops (no longer reachable, or invalidated by the change), by an
    /// incremental check; a full check reuses none and counts none.
    #[serde(default)]
    pub states_reused: u64,
    #[serde(default)]
    pub states_dropped: u64,
    /// In the recorded states a replay executed: the processes whose moves it took from the
    /// record (or knew to have none), and those whose moves it executed.
    #[serde(default)]
    pub groups_replayed: u64,
    #[serde(default)]
    pub groups_executed: u64,
    /// Strongly connected components of the stored state graph.
    pub sccs: u64,
    /// States in the largest of them.
    pub largest_scc: u64,
    /// Time spent searching.
    #[serde(
        rename = "elapsed_ms",
        serialize_with = "millis",
        deserialize_with = "from_millis"
    )]
    pub elapsed: Duration,
    pub peak_memory_bytes: u64,
    /// Bytes of the visited set (state vectors and hash table), comparable with pan's memory
    /// for states plus its hash table.
    pub store_bytes: u64,
}

impl Stats {
    /// SPIN's figures, the ones a replay must give exactly as a full check does: states
    /// stored and matched, transitions, atomic steps, depth reached, pan's state vector, SCCs.
    pub fn spin_figures(&self) -> [u64; 7] {
        [
            self.states_stored,
            self.states_matched,
            self.transitions,
            self.atomic_steps,
            self.depth_reached,
            self.state_vector_bytes,
            self.sccs,
        ]
    }
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

fn from_millis<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let ms = <u64 as serde::Deserialize>::deserialize(d)?;
    Ok(Duration::from_millis(ms))
}

/// The kinds of violation, with the names the JSON and the README use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ViolationKind {
    Assertion,
    InvalidEndState,
    IndexOutOfRange,
    DivisionByZero,
    #[serde(rename = "d_step-blocked")]
    DStepBlocked,
    TooManyProcesses,
    TooManyChannels,
    NonTerminatingAtomic,
    UninitialisedChannel,
    MessageFields,
    SendTooManyValues,
    PollRendezvous,
    CopyReceiveRendezvous,
    #[serde(rename = "rendezvous-in-d_step")]
    RendezvousInDStep,
    PriorityOutOfRange,
    EnabledSelf,
    #[serde(rename = "d_proctype-nondeterminism")]
    DProctypeNondeterminism,
    Unsupported,
    ReceiveTooManyFields,
    /// The never claim reached its closing brace (pan: "end state in claim reached").
    ClaimEnd,
    /// An accepting cycle of the product with the never claim (pan -a).
    AcceptanceCycle,
    /// A cycle on which no process passes a progress label (pan -l).
    NonProgressCycle,
    /// A channel event the `trace` has no transition for (pan: "event_trace error (no
    /// matching event)").
    TraceMismatch,
    /// The events of the `notrace` all happened (pan: "event_trace error (all events
    /// matched)").
    NotraceMatched,
    /// The system ended with the trace neither at its end nor at an `end` label (pan:
    /// "event_trace not completed", an invalid end state).
    TraceIncomplete,
    /// Two transitions of the trace match one event (pan: "non-determinism in
    /// event-trace").
    TraceNondeterminism,
}

impl ViolationKind {
    /// In the order of their codes in records: a new kind goes last.
    pub const ALL: [ViolationKind; 26] = [
        ViolationKind::Assertion,
        ViolationKind::InvalidEndState,
        ViolationKind::IndexOutOfRange,
        ViolationKind::DivisionByZero,
        ViolationKind::DStepBlocked,
        ViolationKind::TooManyProcesses,
        ViolationKind::TooManyChannels,
        ViolationKind::NonTerminatingAtomic,
        ViolationKind::UninitialisedChannel,
        ViolationKind::MessageFields,
        ViolationKind::SendTooManyValues,
        ViolationKind::PollRendezvous,
        ViolationKind::CopyReceiveRendezvous,
        ViolationKind::RendezvousInDStep,
        ViolationKind::PriorityOutOfRange,
        ViolationKind::EnabledSelf,
        ViolationKind::DProctypeNondeterminism,
        ViolationKind::Unsupported,
        ViolationKind::ReceiveTooManyFields,
        ViolationKind::ClaimEnd,
        ViolationKind::AcceptanceCycle,
        ViolationKind::NonProgressCycle,
        ViolationKind::TraceMismatch,
        ViolationKind::NotraceMatched,
        ViolationKind::TraceIncomplete,
        ViolationKind::TraceNondeterminism,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::Assertion => "assertion",
            ViolationKind::InvalidEndState => "invalid-end-state",
            ViolationKind::IndexOutOfRange => "index-out-of-range",
            ViolationKind::DivisionByZero => "division-by-zero",
            ViolationKind::DStepBlocked => "d_step-blocked",
            ViolationKind::TooManyProcesses => "too-many-processes",
            ViolationKind::TooManyChannels => "too-many-channels",
            ViolationKind::NonTerminatingAtomic => "non-terminating-atomic",
            ViolationKind::UninitialisedChannel => "uninitialised-channel",
            ViolationKind::MessageFields => "message-fields",
            ViolationKind::SendTooManyValues => "send-too-many-values",
            ViolationKind::PollRendezvous => "poll-rendezvous",
            ViolationKind::CopyReceiveRendezvous => "copy-receive-rendezvous",
            ViolationKind::RendezvousInDStep => "rendezvous-in-d_step",
            ViolationKind::PriorityOutOfRange => "priority-out-of-range",
            ViolationKind::EnabledSelf => "enabled-self",
            ViolationKind::DProctypeNondeterminism => "d_proctype-nondeterminism",
            ViolationKind::Unsupported => "unsupported",
            ViolationKind::ReceiveTooManyFields => "receive-too-many-fields",
            ViolationKind::ClaimEnd => "claim-end",
            ViolationKind::AcceptanceCycle => "acceptance-cycle",
            ViolationKind::NonProgressCycle => "non-progress-cycle",
            ViolationKind::TraceMismatch => "trace-mismatch",
            ViolationKind::NotraceMatched => "notrace-matched",
            ViolationKind::TraceIncomplete => "trace-incomplete",
            ViolationKind::TraceNondeterminism => "trace-nondeterminism",
        }
    }

    pub fn from_name(s: &str) -> Option<ViolationKind> {
        ViolationKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Errors pan raises as fatal: they end the whole search, whatever `-c` says.
    pub fn is_fatal(self) -> bool {
        matches!(
            self,
            ViolationKind::TooManyProcesses
                | ViolationKind::TooManyChannels
                | ViolationKind::DStepBlocked
                | ViolationKind::RendezvousInDStep
                | ViolationKind::PriorityOutOfRange
                | ViolationKind::EnabledSelf
                | ViolationKind::ReceiveTooManyFields
                | ViolationKind::TraceNondeterminism
        )
    }
}

/// A process's id, as pan numbers them: 0 to 254 (the 256th process is an error that ends
/// the search). One byte in states, events and records; an index where it picks a process.
pub type Pid = u8;

/// A process an end state leaves where it cannot end: its pid, its proctype (an index into
/// the program's proctypes) and the location it sits at (an index into that proctype's
/// automaton, not a stable id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Blocked {
    pub pid: Pid,
    pub proc: usize,
    pub loc: super::machine::LocIndex,
}

/// One distinct violation, with the steps from the initial state that reach it when its trail
/// was kept (the first `max_trails` of each kind).
#[derive(Clone, Debug)]
pub struct Violation {
    pub kind: ViolationKind,
    /// The edge whose step violated (none for invalid end states).
    pub edge: Option<EdgeNo>,
    pub pid: Option<Pid>,
    pub message: String,
    /// Invalid end states: (pid, proctype, location index) of each process not at a valid
    /// end, in pid order.
    pub blocked: Vec<Blocked>,
    pub trail: Option<Vec<TrailStep>>,
    /// A violation reported again from a pruned state's record: its trail so far ends in
    /// that state (this vector), and the rest is still to be found from there.
    pub via: Option<Vec<u8>>,
    /// An acceptance cycle: how many steps of the trail lead to the state where the cycle
    /// starts (the trail ends in that state again).
    pub cycle: Option<usize>,
    /// An acceptance cycle: pan's depth of the state where it starts (its "acceptance cycle
    /// (at depth N)"), which counts a rendezvous as two steps and weak fairness's default
    /// moves, which are no steps of the trail.
    pub cycle_depth: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    Depth,
    States,
    Memory,
    Errors,
    /// The search could not go on (a rider met a record that contradicts itself): a bug,
    /// never a verdict.
    Internal,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Depth => "depth",
            Limit::States => "states",
            Limit::Memory => "memory",
            Limit::Errors => "errors",
            Limit::Internal => "internal",
        }
    }
}

pub struct Outcome {
    pub stats: Stats,
    pub violations: Vec<Violation>,
    /// The limit that cut the search, if any (the run is then incomplete).
    pub limit: Option<Limit>,
    /// The fatal error that ended the whole search, as pan ends it.
    pub stopped_by: Option<ViolationKind>,
    /// Per edge number: whether the edge was ever executed.
    pub executed: Vec<bool>,
    /// The initial state, from which trails replay.
    pub initial: Vec<u8>,
}

impl Outcome {
    /// The search saw every reachable state (no limit cut it, no fatal error ended it).
    pub fn complete(&self) -> bool {
        self.limit.is_none() && self.stopped_by.is_none()
    }

    /// The verdict of the check, decided here once: `fail` when a violation was found,
    /// `pass` when the search was complete, `incomplete` otherwise.
    pub fn verdict(&self) -> Verdict {
        if !self.violations.is_empty() {
            Verdict::Fail
        } else if self.complete() {
            Verdict::Pass
        } else {
            Verdict::Incomplete
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    Incomplete,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Incomplete => "incomplete",
        }
    }
}
