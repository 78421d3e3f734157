//! Runs one check for a command and renders it: a plain check, or a regression check that
//! records (and prunes with a base record when one is given). Glue between the engine
//! (`explore`, `rmc`) and `report`, shared by `verify` and `check`.

use std::path::Path;

use super::error::InternalError;
use crate::explore::{self, Machine, Options, Stats, Verdict};
use crate::program::Program;
use crate::promela::source::SourceFiles;
use crate::report::verify::{CheckDoc, FixedDoc};
use crate::rmc::check::{self, Algorithm, Base};
use crate::rmc::record::{Record, Sources};

/// One check to run.
pub struct Job<'a> {
    /// How the model is named in the output.
    pub name: String,
    pub files: &'a SourceFiles,
    pub program: Program,
    pub sources: Sources,
    pub opts: Options,
    /// None: a plain check (no record). Some: a regression check with this algorithm.
    pub algorithm: Option<Algorithm>,
    pub base: Option<Base>,
    pub short_trails: bool,
    /// Text output: describe at most this many steps of a trail.
    pub window: Option<usize>,
    /// Where the limits came from, to say which one cut an incomplete search.
    pub limits: crate::report::verdict::LimitSources,
}

/// A finished check.
pub struct Done {
    pub doc: CheckDoc,
    pub record: Option<Record>,
    pub verdict: Verdict,
    /// Whether a violation is new (not in the base).
    pub any_new: bool,
    /// The violations by kind and stable location, as records name them (one per document
    /// violation, in order), complete search or not.
    pub keys: Vec<crate::rmc::record::RecViolation>,
}

pub fn run(mut job: Job, progress: &mut dyn FnMut(&Stats)) -> anyhow::Result<Done> {
    let Some(alg) = job.algorithm else {
        let m = Machine::new(&job.program)?;
        let mut out = explore::explore(&m, &job.opts, progress);
        return finish(&job, &m, &mut out, None, None);
    };
    let base_hash = job
        .base
        .as_ref()
        .map(|b| b.record.sources.content_hash(&b.record.meta.checks));
    let plan = check::plan(job.program.clone(), job.base.as_mut(), &job.opts, alg);
    let dangerous = plan.impact.as_ref().map_or(0, |i| i.dangerous.len() as u64);
    let mut incremental = plan.incremental();
    let mut reason = plan.reason.clone();
    let mut algorithm = plan.algorithm;
    let predicted = plan.predicted;
    let check::Plan {
        program,
        ids,
        reuse,
        ..
    } = plan;
    let m = Machine::new(&program)?;
    let mut run = check::run(&m, reuse, job.base.as_ref(), &job.opts, progress);
    if let Some(why) = &run.fell_back {
        incremental = false;
        algorithm = Algorithm::Full;
        reason = why.clone();
    }
    check::complete_trails(&m, &mut run.outcome, &job.opts)
        .map_err(|e| InternalError(e.to_string()))?;
    let record = check::record(
        &m,
        &ids,
        &mut run,
        job.base.as_ref(),
        job.sources.clone(),
        &job.opts,
    );
    let mut done = finish(
        &job,
        &m,
        &mut run.outcome,
        record,
        job.base.as_ref().map(|b| &b.record),
    )?;
    // Incremental: the base record was used to skip what the change cannot affect (how
    // much was skipped, the figures say); full when there was none or it could not be used
    // (the reason says why).
    done.doc.mode = if incremental { "incremental" } else { "full" }.into();
    done.doc.base = base_hash;
    done.doc.algorithm = algorithm.as_str().into();
    done.doc.algorithm_reason = reason;
    done.doc.predicted = predicted;
    done.doc.dangerous_locations = dangerous;
    if let Some(b) = &job.base {
        done.doc.fixed = fixed_docs(b, &done);
    }
    Ok(done)
}

/// Trails replayed, the document built, violations compared with the base.
fn finish(
    job: &Job,
    m: &Machine,
    out: &mut explore::Outcome,
    record: Option<Record>,
    base: Option<&Record>,
) -> anyhow::Result<Done> {
    if job.short_trails {
        let shorter = explore::shortest::shortest_trails(m, out, &job.opts);
        for (v, t) in out.violations.iter_mut().zip(shorter) {
            if let (Some(t), Some(old)) = (t, &mut v.trail) {
                if t.len() < old.len() {
                    *old = t;
                }
            }
        }
    }
    let trails = super::verify::replayed_trails(m, out, &job.opts, job.window)?;
    let mut doc = crate::report::verify::document(&job.name, m, job.files, out, &trails);
    doc.limit_detail = out.limit.and_then(|l| {
        let o = &job.opts;
        let value = match l {
            explore::Limit::Depth => o.max_depth,
            explore::Limit::States => o.max_states,
            explore::Limit::Errors => o.max_errors,
            explore::Limit::Memory => o.memory_limit,
            explore::Limit::Internal => None,
        };
        job.limits.detail(l.as_str(), value)
    });
    let current: Vec<_> = out
        .violations
        .iter()
        .map(|v| check::rec_violation(m, v))
        .collect();
    let (new, _) = check::compare(&current, base);
    for (d, n) in doc.violations.iter_mut().zip(&new) {
        d.new = *n;
    }
    Ok(Done {
        verdict: out.verdict(),
        any_new: new.iter().any(|&n| n),
        doc,
        record,
        keys: current,
    })
}

/// The base's violations that this check no longer finds, located in the base's sources.
fn fixed_docs(base: &Base, done: &Done) -> Vec<FixedDoc> {
    let Some(rec) = &done.record else {
        return Vec::new();
    };
    let (_, fixed) = check::compare(&rec.violations, Some(&base.record));
    fixed
        .into_iter()
        .map(|f| {
            // Where it was: the violating statement (as a violation is located), or the
            // blocked locations of an invalid end state.
            let location =
                f.at.iter()
                    .filter_map(|&l| {
                        base.program.procs.iter().find_map(|p| {
                            let loc = p.automaton.location(crate::program::LocId(l))?;
                            let span = match f.edge {
                                Some(k) => loc.edges.get(k as usize).map_or(loc.span, |e| e.span),
                                None => loc.span,
                            };
                            Some(base.files.location(span))
                        })
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
            FixedDoc {
                kind: f.kind,
                location,
                message: f.message,
            }
        })
        .collect()
}

/// Reads a base record from a file: None, after a one-line warning that says why, when it
/// cannot be used (a bad record costs time, never a verdict).
pub fn load_base(path: &Path) -> Option<Base> {
    let warn = |why: String| {
        eprintln!(
            "warning: {}: not reused ({why}); running a full check",
            path.display()
        );
    };
    match Record::read(path) {
        Ok(r) => match Base::from_record(r) {
            Ok(b) => Some(b),
            Err(e) => {
                warn(e.to_string());
                None
            }
        },
        Err(e) => {
            warn(e.to_string());
            None
        }
    }
}
