//! What a check found, resolved from the machine's numbering to the model's: each violation
//! with the statement and processes it names (spans in the sources), its trail replayed
//! through the interpreter (a trail that does not reach its violation is a bug, never the
//! model's fault), its identity and whether it is new against the base; the base's
//! violations that are gone; the statements never reached. The reports render these as
//! they are.

use crate::explore::{Limit, Machine, Options, Outcome, Pid, Verdict, ViolationKind};
use crate::program::ProcKind;
use crate::promela::source::Span;
use crate::rmc::record::{RecViolation, Record};

use super::base::Base;
use super::identity::{gone_from, new_in, rec_violation};
use super::{Algorithm, CheckError, Checked, Mode, Predicted, Request};

/// One distinct violation.
#[derive(Clone, Debug)]
pub struct Found {
    pub kind: ViolationKind,
    pub message: String,
    /// The violating statement, or for an invalid end state the first blocked process's
    /// location.
    pub at: Span,
    /// An invalid end state's processes not at a valid end, in pid order.
    pub blocked: Vec<BlockedAt>,
    /// None beyond the first `max_trails` violations of a kind.
    pub trail: Option<Trail>,
    /// An acceptance cycle: the number of the trail's step where the cycle starts (as
    /// `Step::step` numbers them; the trail ends in the state before that step).
    pub cycle_start: Option<usize>,
    /// An acceptance cycle: pan's depth of the state where it starts ("acceptance cycle (at
    /// depth N)"), weak fairness's default moves included.
    pub cycle_depth: Option<u64>,
    /// What identifies it from version to version.
    pub key: RecViolation,
    /// Not in the base (every violation is new without one).
    pub new: bool,
}

#[derive(Clone, Debug)]
pub struct BlockedAt {
    pub proc: String,
    pub pid: Pid,
    pub at: Span,
}

/// A trail as replayed: every step, or the first and last of them (`Request::window`).
#[derive(Clone, Debug)]
pub struct Trail {
    /// Steps in the whole trail (the halves of a rendezvous count one each).
    pub steps: usize,
    pub shown: Vec<Step>,
}

#[derive(Clone, Debug)]
pub struct Step {
    /// Its place in the whole trail, from 1.
    pub step: usize,
    pub proc: String,
    pub pid: Pid,
    pub at: Span,
    pub statement: String,
    /// (name, new value) of every variable the step changed.
    pub changed: Vec<(String, i64)>,
    /// What a `printf` in this step printed.
    pub output: Option<String>,
}

/// A violation of the base this check no longer finds, where it was in the base's sources.
#[derive(Clone, Debug)]
pub struct Gone {
    pub key: RecViolation,
    /// `file:line:col`, one per location (the blocked processes' of an invalid end state).
    pub locations: Vec<String>,
}

/// A statement no search reached.
#[derive(Clone, Debug)]
pub struct Unreached {
    pub proc: String,
    pub at: Span,
    pub statement: String,
}

/// How a check ran, for `Checked`.
pub(super) struct Ran {
    pub mode: Mode,
    pub algorithm: Algorithm,
    pub reason: String,
    pub predicted: Option<Predicted>,
    pub dangerous: u64,
    pub base_hash: Option<String>,
    pub record: Option<Record>,
    pub no_record: Option<String>,
    pub graph_unchanged: bool,
    pub claim_shifts: Vec<(String, (i64, i64))>,
}

impl Ran {
    /// A run that reused no base and writes no record.
    pub(super) fn alone(mode: Mode, algorithm: Algorithm, reason: String) -> Ran {
        Ran {
            mode,
            algorithm,
            reason,
            predicted: None,
            dangerous: 0,
            base_hash: None,
            record: None,
            no_record: None,
            graph_unchanged: false,
            claim_shifts: Vec::new(),
        }
    }
}

/// The violations of `out`, resolved: shortened where asked, replayed, and compared with
/// `base`'s by identity.
pub(super) fn resolve(
    m: &Machine,
    out: &mut Outcome,
    req: &Request,
    base: Option<&Record>,
) -> Result<Vec<Found>, CheckError> {
    if req.short_trails {
        let shorter = crate::explore::shortest::shortest_trails(m, out, &req.opts);
        for (v, t) in out.violations.iter_mut().zip(shorter) {
            if let (Some(t), Some(old)) = (t, &mut v.trail) {
                if t.len() < old.len() {
                    *old = t;
                }
            }
        }
    }
    let keys: Vec<RecViolation> = out.violations.iter().map(|v| rec_violation(m, v)).collect();
    let new = new_in(&keys, base);
    let mut found = Vec::with_capacity(out.violations.len());
    for ((v, key), new) in out.violations.iter().zip(keys).zip(new) {
        let trail = match &v.trail {
            None => None,
            Some(_) => {
                let r = m
                    .replay_violation(&out.initial, v, &req.opts, req.window)
                    .map_err(|e| {
                        CheckError::Internal(format!(
                            "the trail of a {} violation ({}) does not reach it when replayed \
                             ({e})",
                            v.kind.as_str(),
                            v.message
                        ))
                    })?;
                Some(Trail {
                    steps: r.steps,
                    shown: r
                        .views
                        .iter()
                        .map(|s| Step {
                            step: s.step,
                            proc: m.prog.procs[m.edge_proc(s.edge)].name.clone(),
                            pid: s.pid,
                            at: m.edge(s.edge).span,
                            statement: m.edge(s.edge).text.clone(),
                            changed: s.changed.clone(),
                            output: s.output.clone(),
                        })
                        .collect(),
                })
            }
        };
        let blocked: Vec<BlockedAt> = v
            .blocked
            .iter()
            .map(|b| {
                let p = &m.prog.procs[b.proc];
                BlockedAt {
                    proc: p.name.clone(),
                    pid: b.pid,
                    at: p.automaton.locations[b.loc.0 as usize].span,
                }
            })
            .collect();
        let at = match v.edge {
            Some(e) => m.edge(e).span,
            None => blocked.first().map(|b| b.at).unwrap_or_default(),
        };
        let cycle_start = match (v.cycle, &v.trail) {
            (Some(k), Some(t)) => Some(
                t.iter()
                    .take(k)
                    .map(|s| 1 + usize::from(s.rv.is_some()))
                    .sum::<usize>()
                    + 1,
            ),
            _ => None,
        };
        found.push(Found {
            cycle_start,
            cycle_depth: v.cycle_depth,
            kind: v.kind,
            message: v.message.clone(),
            at,
            blocked,
            trail,
            key,
            new,
        });
    }
    Ok(found)
}

/// The base's violations that `current` lacks, located in the base's sources: the
/// violating statement, or the blocked locations of an invalid end state.
pub(super) fn gone(current: &[RecViolation], base: &Base) -> Vec<Gone> {
    gone_from(current, &base.record.violations)
        .into_iter()
        .map(|key| {
            let locations = key
                .at
                .iter()
                .filter_map(|&l| {
                    base.program.procs.iter().find_map(|p| {
                        let loc = p.automaton.location(crate::program::LocId(l))?;
                        let span = match key.edge {
                            Some(k) => loc.edges.get(k as usize).map_or(loc.span, |e| e.span),
                            None => loc.span,
                        };
                        Some(base.files.location(span))
                    })
                })
                .collect();
            Gone {
                key: key.clone(),
                locations,
            }
        })
        .collect()
}

/// The check's result, from its outcome and what was resolved of it.
pub(super) fn checked(
    m: &Machine,
    out: Outcome,
    found: Vec<Found>,
    fixed: Vec<Gone>,
    run: Ran,
    opts: &Options,
) -> Checked {
    let verdict = if !found.is_empty() {
        Verdict::Fail
    } else if out.complete() {
        Verdict::Pass
    } else {
        Verdict::Incomplete
    };
    let limit = out.limit.map(|l| {
        let value = match l {
            Limit::Depth => opts.max_depth,
            Limit::States => opts.max_states,
            Limit::Errors => opts.max_errors,
            Limit::Memory => opts.memory_limit,
            Limit::Internal => None,
        };
        (l, value)
    });
    let mut unreached = Vec::new();
    for (no, &done) in out.executed.iter().enumerate() {
        if done {
            continue;
        }
        let e = m.edge(no as u32);
        let p = &m.prog.procs[m.edge_proc(no as u32)];
        if p.kind == ProcKind::Never {
            continue;
        }
        unreached.push(Unreached {
            proc: p.name.clone(),
            at: e.span,
            statement: e.text.clone(),
        });
    }
    // The claim the search ran is checked; an ltl formula whose claim was added to the
    // model (`load_with_claims`) is that claim.
    let checked = m.claim.as_ref().map(|c| c.proc);
    let never = |name: &str| {
        m.prog
            .procs
            .iter()
            .any(|p| p.kind == ProcKind::Never && p.name == name)
    };
    let claim = checked.map(|c| {
        let name = &m.prog.procs[c].name;
        match m.prog.ltl.iter().any(|l| &l.name == name) {
            _ if name == crate::explore::claim::NP_CLAIM => "non-progress (np_)".to_string(),
            true => format!("ltl {name}"),
            false => format!("never {name}"),
        }
    });
    let claims_not_checked = m
        .prog
        .procs
        .iter()
        .enumerate()
        .filter(|&(i, p)| p.kind == ProcKind::Never && Some(i) != checked)
        .map(|(_, p)| match m.prog.ltl.iter().any(|l| l.name == p.name) {
            true => format!("ltl {}", p.name),
            false => format!("never {}", p.name),
        })
        .chain(
            m.prog
                .ltl
                .iter()
                .filter(|l| !never(&l.name))
                .map(|l| format!("ltl {}", l.name)),
        )
        .collect();
    Checked {
        program: m.prog.clone(),
        stats: out.stats,
        verdict,
        limit,
        stopped_by: out.stopped_by,
        found,
        fixed,
        unreached,
        claims_not_checked,
        claim,
        acceptance: opts.acceptance,
        fair: opts.acceptance && opts.fair,
        xr_xs_not_checked: m.prog.has_xr_xs,
        mode: run.mode,
        algorithm: run.algorithm,
        reason: run.reason,
        predicted: run.predicted,
        dangerous: run.dangerous,
        base_hash: run.base_hash,
        record: run.record,
        no_record: run.no_record,
        graph_unchanged: run.graph_unchanged,
        claim_shifts: run.claim_shifts,
    }
}
