//! One check of one version, with or without a record of an earlier one (DESIGN.md 5): the
//! front door of the regression engine. `check` sequences the phases: `plan` (impact
//! analysis, stable ids, which algorithm and why, with auto's `cost` model), `execute` (the
//! one search with what rides along), `trails` (the rest of the trails of violations
//! reported from pruned states), `identity` (new and fixed violations against the base) and
//! `assemble` (the next record). `base` holds the version a check builds on.

mod assemble;
mod audit;
mod base;
mod cost;
mod execute;
mod found;
mod identity;
mod plan;
mod trails;

use crate::explore::{Limit, Machine, Options, Stats, Verdict, ViolationKind};
use crate::program::Program;
use crate::rmc::record::{RecViolation, Record, Sources};

pub use found::{BlockedAt, Found, Gone, Step, Trail, Unreached};

pub use assemble::{record, set_locations};
pub use audit::{audit, Audit};
pub use base::{checks_of, sources_of, Base, BaseError};
pub use cost::*;
pub use execute::{run, run_on, Run};
pub use identity::{gone_from, new_against, new_in, rec_violation, same};
pub use plan::{plan, plan_with, Plan, Reuse};
pub use trails::{complete_trails, LostViolation};

/// Which algorithm a check uses: the one enum that the configuration (`algorithm` in
/// `.rmc.toml`), the command line (`--algorithm`) and the engine share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Algorithm {
    /// Whichever of prune, replay and a full check is predicted cheapest (DESIGN.md 5.5).
    #[default]
    Auto,
    /// Skip every state whose recorded reachable set misses the change.
    Prune,
    /// Walk the recorded state graph, executing only the states whose footprint meets the
    /// change (DESIGN.md 5.4).
    Replay,
    /// Explore everything (still writing a record).
    Full,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Auto,
        Algorithm::Prune,
        Algorithm::Replay,
        Algorithm::Full,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Prune => "prune",
            Algorithm::Replay => "replay",
            Algorithm::Full => "full",
        }
    }

    /// What it does, in a line (the command line's help).
    pub fn describe(self) -> &'static str {
        match self {
            Algorithm::Auto => "whichever of prune, replay and a full check the record predicts cheapest",
            Algorithm::Prune => "skip every state whose recorded reachable set misses the change",
            Algorithm::Replay => {
                "walk the recorded state graph; execute only states whose expansion meets the change"
            }
            Algorithm::Full => "explore every state again (still writing a record)",
        }
    }
}

/// One check to make: a version of a model, the options, and the base whose record it may
/// reuse.
pub struct Request {
    /// The version to check, numbered by position as built (the plan gives it stable ids).
    pub program: Program,
    /// What it was read from: kept in the record it writes.
    pub sources: Sources,
    pub opts: Options,
    /// None: a plain check that reuses and writes no record. Some: a regression check with
    /// this algorithm, which writes the record the next check builds on.
    pub algorithm: Option<Algorithm>,
    pub base: Option<Base>,
    /// Replace each trail by a shortest one to the same violation (a breadth-first search).
    pub short_trails: bool,
    /// Describe at most this many steps of each trail, half from each end (the text
    /// output's view); None: every step.
    pub window: Option<usize>,
    /// Which never claim a full check runs with (a regression check runs none yet).
    pub claim: ClaimChoice,
}

/// The never claim a full check runs the system with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ClaimChoice {
    /// The model's first (pan's default), if it has one.
    #[default]
    First,
    /// The one of this name (pan's `-N`; an `ltl` formula's claim has the formula's name).
    Named(String),
    /// None: the safety properties alone (pan's `-DNOCLAIM`).
    Safety,
}

/// Whether a check reused its base's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Everything explored (no base, or one that could not be used: the reason says why).
    Full,
    /// The base's record was used to skip what the change cannot affect.
    Incremental,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Incremental => "incremental",
        }
    }
}

/// What one check found, typed: the figures, the verdict, each violation with its trail and
/// whether it is new against the base, the base's violations that are gone, how the check
/// ran and why, and the record to write. Rendering it (`report`) computes nothing.
pub struct Checked {
    /// The version checked, with its stable ids.
    pub program: Program,
    pub stats: Stats,
    pub verdict: Verdict,
    /// The limit that cut the search, and its value.
    pub limit: Option<(Limit, Option<u64>)>,
    /// The fatal error that ended the whole search, as pan ends it.
    pub stopped_by: Option<ViolationKind>,
    pub found: Vec<Found>,
    /// The base's violations this check no longer finds.
    pub fixed: Vec<Gone>,
    /// Statements no search reached (never claims' excepted).
    pub unreached: Vec<Unreached>,
    /// The model's claims, which a safety check does not check (`ltl p`, `never q`).
    pub claims_not_checked: Vec<String>,
    /// The never claim the search ran in lockstep with (`ltl name` or `never name`).
    pub claim: Option<String>,
    /// Acceptance cycles were looked for (pan -a).
    pub acceptance: bool,
    /// With weak fairness (pan -f).
    pub fair: bool,
    pub xr_xs_not_checked: bool,
    pub mode: Mode,
    pub algorithm: Algorithm,
    pub reason: String,
    pub predicted: Option<Predicted>,
    pub dangerous: u64,
    /// The base record's content hash.
    pub base_hash: Option<String>,
    /// The record a complete regression check leaves.
    pub record: Option<Record>,
    /// Why a complete check leaves no record (`assemble::fits`).
    pub no_record: Option<String>,
    /// The change left the base's state graph as it was (`run::unchanged`), in the same
    /// layout: this version's search is the base's, state for state, successor for
    /// successor, vector for vector (so a product with a claim is the base's too; across a
    /// layout change its vectors, and pan's figures of them, are not).
    pub graph_unchanged: bool,
    /// Across a layout change that kept the base's state graph, its vectors mapped: per
    /// never claim or `ltl` formula (by name), how its product's largest vectors move
    /// (pan's State-vector, git rmc's vector bytes), where they move by the same amount for
    /// every state (`unchanged_layout::claim_shift`). A product with such a claim is the
    /// base's, its vectors shifted by that much.
    pub claim_shifts: Vec<(String, (i64, i64))>,
}

impl Checked {
    pub fn complete(&self) -> bool {
        self.limit.is_none() && self.stopped_by.is_none()
    }

    /// The violations by identity, one per `found`, in order.
    pub fn keys(&self) -> Vec<RecViolation> {
        self.found.iter().map(|f| f.key.clone()).collect()
    }
}

/// A check that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The model cannot be laid out as states (too large a vector, say): the model's.
    #[error(transparent)]
    Layout(#[from] crate::explore::layout::LayoutError),
    /// A broken invariant of the engine (a trail that does not replay, a violation lost
    /// below a pruned state): a bug, never the model's fault.
    #[error("{0}")]
    Internal(String),
}

/// The proctype index of the never claim `choice` picks in `program`, if it can be checked
/// (a claim with variables of its own, which the front end rejects as spin does, never is:
/// the claim is not a process here).
fn claim_index(program: &Program, choice: &ClaimChoice) -> Option<usize> {
    program
        .procs
        .iter()
        .position(|p| {
            p.kind == crate::program::ProcKind::Never
                && match choice {
                    ClaimChoice::First => true,
                    ClaimChoice::Named(n) => &p.name == n,
                    ClaimChoice::Safety => false,
                }
        })
        .filter(|&c| program.procs[c].locals.is_empty())
}

/// Checks the never claim `req.claim` names (`ClaimChoice::Named`, a plain check) with the
/// system's moves taken from `safety`, the record of this very version's safety check, made
/// from `system` (`req.program` itself, or the model with other never claims: the search
/// for non-progress cycles; `req.program` has `system`'s stable ids): the product
/// search executes the claim alone (`run::product_replay`), and its figures, violations and
/// trails are those of the claim's own search. None where the record cannot stand for the
/// system (the caller then checks the claim with `check`).
pub fn check_claim_over(
    req: &Request,
    safety: &Record,
    system: &Program,
    progress: &mut dyn FnMut(&Stats),
) -> Option<Result<Checked, CheckError>> {
    let m = match &req.claim {
        _ if req.algorithm.is_some() => return None,
        ClaimChoice::Named(_) => {
            Machine::with_claim(&req.program, claim_index(&req.program, &req.claim)?)
        }
        // -a without a claim: cycles through the processes' accept labels.
        ClaimChoice::Safety if req.opts.acceptance => Machine::new(&req.program),
        _ => return None,
    };
    let m = match m {
        Ok(m) => m,
        Err(e) => return Some(Err(e.into())),
    };
    let mut rider =
        crate::rmc::run::product_replay::ProductReplay::new(&m, system, safety, &req.opts)?;
    let mut out = crate::explore::search::search(&m, &req.opts, &mut rider, progress);
    if rider.gave_up() {
        return None;
    }
    if crate::explore::search::Rider::failed(&rider) {
        return Some(Err(CheckError::Internal(
            "the safety check's state graph did not fit its own version while a claim's \
             product read it"
                .into(),
        )));
    }
    let found = match found::resolve(&m, &mut out, req, None) {
        Ok(f) => f,
        Err(e) => return Some(Err(e)),
    };
    let run = found::Ran::alone(
        Mode::Incremental,
        Algorithm::Replay,
        "the system's moves from this version's recorded state graph, the claim's executed".into(),
    );
    Some(Ok(found::checked(
        &m,
        out,
        found,
        Vec::new(),
        run,
        &req.opts,
    )))
}

/// Checks one version, the one way every command does: plans (with the base, if any), runs
/// the search, completes and replays the trails, compares the violations with the base's,
/// and assembles the next record. `progress` is called now and then while the search runs.
pub fn check(mut req: Request, progress: &mut dyn FnMut(&Stats)) -> Result<Checked, CheckError> {
    let Some(want) = req.algorithm else {
        // A full check runs the product with the first never claim (pan's default); a
        // regression check does not check claims yet.
        let claim = claim_index(&req.program, &req.claim);
        if let (ClaimChoice::Named(n), None) = (&req.claim, claim) {
            return Err(CheckError::Internal(format!(
                "no never claim or ltl formula named '{n}' that can be checked"
            )));
        }
        let m = match claim {
            Some(c) => Machine::with_claim(&req.program, c)?,
            None => Machine::new(&req.program)?,
        };
        let mut out = crate::explore::explore(&m, &req.opts, progress);
        let found = found::resolve(&m, &mut out, &req, None)?;
        let fixed = Vec::new();
        let run = found::Ran::alone(Mode::Full, Algorithm::Full, String::new());
        return Ok(found::checked(&m, out, found, fixed, run, &req.opts));
    };
    if req.opts.acceptance {
        // The riders of a regression check ride the safety search only.
        return Err(CheckError::Internal(
            "a regression check does not look for acceptance or non-progress cycles".into(),
        ));
    }
    let base_hash = req
        .base
        .as_ref()
        .map(|b| b.record.sources.content_hash(&b.record.meta.checks));
    let plan = plan::plan_with(
        req.program.clone(),
        req.base.as_mut(),
        &req.opts,
        want,
        &mut *progress,
    );
    let dangerous = plan.impact.as_ref().map_or(0, |i| i.dangerous.len() as u64);
    let mut mode = if plan.incremental() {
        Mode::Incremental
    } else {
        Mode::Full
    };
    let (mut algorithm, mut reason, predicted) =
        (plan.algorithm, plan.reason.clone(), plan.predicted);
    let plan::Plan {
        program,
        ids,
        reuse,
        ..
    } = plan;
    let m = Machine::new(&program)?;
    let mut ran = execute::run(&m, reuse, req.base.as_ref(), &req.opts, progress);
    let graph_unchanged =
        ran.unchanged.as_ref().is_some_and(|u| !u.mapped) && ran.fell_back.is_none();
    let claim_shifts = match (&ran.unchanged, &req.base, &ran.fell_back) {
        (Some(u), Some(b), None) if u.mapped => program
            .procs
            .iter()
            .filter(|p| p.kind == crate::program::ProcKind::Never)
            .filter_map(|p| {
                let shift = crate::rmc::run::unchanged_layout::claim_shift(
                    &b.program,
                    &program,
                    &p.name,
                    &u.shape_pairs,
                )?;
                Some((p.name.clone(), shift))
            })
            .collect(),
        _ => Vec::new(),
    };
    if let Some(why) = &ran.fell_back {
        mode = Mode::Full;
        algorithm = Algorithm::Full;
        reason = why.clone();
    }
    trails::complete_trails(&m, &mut ran.outcome, &req.opts)
        .map_err(|e| CheckError::Internal(e.to_string()))?;
    let no_record = assemble::fits(&ran).err();
    let record = match no_record {
        None => assemble::record(
            &m,
            &ids,
            &mut ran,
            req.base.as_ref(),
            req.sources.clone(),
            &req.opts,
        ),
        Some(_) => None,
    };
    let mut out = ran.outcome;
    let found = found::resolve(&m, &mut out, &req, req.base.as_ref().map(|b| &b.record))?;
    let fixed = match (&record, &req.base) {
        (Some(rec), Some(b)) => found::gone(&rec.violations, b),
        _ => Vec::new(),
    };
    let run = found::Ran {
        mode,
        algorithm,
        reason,
        predicted,
        dangerous,
        base_hash,
        record,
        no_record,
        graph_unchanged,
        claim_shifts,
    };
    Ok(found::checked(&m, out, found, fixed, run, &req.opts))
}
