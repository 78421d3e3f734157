//! A model's claims checked each on its own after its safety properties, as `spin -search
//! -ltl NAME` checks them: one product search per never claim or `ltl` formula, acceptance
//! cycles included (`./pan -a -N NAME`). Shared by `verify` and the git commands.

use crate::explore::Options;
use crate::program::{ProcKind, Program};
use crate::report::verdict::LimitSources;
use crate::report::verify::{CheckDoc, ClaimDoc};
use crate::rmc::check::{ClaimChoice, Request};
use crate::rmc::record::RecViolation;
use crate::rmc::record::Sources;

/// One claim a check checks: its name and, for an `ltl` formula, the formula's text.
pub struct Claim {
    pub name: String,
    pub formula: Option<String>,
    /// No never claim: the processes' accept labels alone (`accept_labels`).
    pub labels: bool,
}

/// The name `claims` in `.rmc.toml` gives the search for acceptance cycles through the
/// processes' accept labels of a model without never claims or `ltl` formulas (no claim
/// of such a model can have it).
pub const ACCEPT_LABELS: &str = "accept";

impl Claim {
    /// How reports name it: `ltl p1`, `never watch`, `accept labels`.
    pub fn label(&self) -> String {
        match self.formula {
            _ if self.labels => "accept labels".to_string(),
            Some(_) => format!("ltl {}", self.name),
            None => format!("never {}", self.name),
        }
    }
}

/// A model without never claims whose processes have accept labels: `spin -search` runs
/// its pan with -a (SPIN's `final_fiddle`), which looks for cycles through those labels,
/// an accepting state where nothing moves included. A check does the same, after the
/// safety properties, as a claim of its own (`claims` names it `ACCEPT_LABELS`).
pub fn accept_labels(program: &Program) -> Option<Claim> {
    let never = program.procs.iter().any(|p| p.kind == ProcKind::Never);
    let labels = program
        .procs
        .iter()
        .any(|p| p.automaton.locations.iter().any(|l| l.accept));
    (!never && labels).then(|| Claim {
        name: ACCEPT_LABELS.to_string(),
        formula: None,
        labels: true,
    })
}

/// The claims of `program` (loaded with its formulas' claims) that `wanted` names: its never
/// claims (the front end rejects one with variables of its own, as spin does).
pub fn checkable(program: &Program, wanted: impl Fn(&str) -> bool) -> Vec<Claim> {
    program
        .procs
        .iter()
        .filter(|p| p.kind == ProcKind::Never && wanted(&p.name))
        .map(|p| Claim {
            name: p.name.clone(),
            formula: program
                .ltl
                .iter()
                .find(|l| l.name == p.name)
                .map(|l| l.text.clone()),
            labels: false,
        })
        .collect()
}

/// One claim's check: its section of the report, its summary for the model's `claims`, and
/// its violations' identities (kinds named after the claim, so that they never match the
/// safety check's or another claim's).
pub struct ClaimCheck {
    pub doc: CheckDoc,
    pub summary: ClaimDoc,
    pub keys: Vec<RecViolation>,
    pub verdict: crate::explore::Verdict,
}

/// What every claim's check shares.
pub struct Context<'a> {
    pub program: &'a Program,
    pub sources: &'a Sources,
    /// The safety check's options (acceptance cycles are added here).
    pub opts: &'a Options,
    pub window: Option<usize>,
    /// The model's name in the reports, its files, and where its limits came from.
    pub name: &'a str,
    pub files: &'a crate::promela::source::SourceFiles,
    pub limits: &'a LimitSources,
    /// This version's safety check's record: a claim's product takes the system's moves
    /// from its state graph where it can (`rmc::check::check_claim_over`).
    pub over: Option<Over<'a>>,
}

/// A record a claim's product may read, and what it was made from.
#[derive(Clone, Copy)]
pub struct Over<'a> {
    /// The claims' program with the record's stable ids.
    pub program: &'a Program,
    pub record: &'a crate::rmc::record::Record,
    /// The program the record was made from: `program`, or the model with its own claims
    /// where `program` has the claim of the search for non-progress cycles.
    pub system: &'a Program,
}

impl<'a> Over<'a> {
    /// The safety check's record of `program`, for that program's claims.
    pub fn of(program: &'a Program, record: &'a crate::rmc::record::Record) -> Over<'a> {
        Over {
            program,
            record,
            system: program,
        }
    }
}

/// Checks `claim` with its own product search, acceptance cycles included.
pub fn check_one(
    cx: &Context,
    claim: &Claim,
    bar: &mut super::progress::Bar,
) -> anyhow::Result<ClaimCheck> {
    let request = Request {
        program: cx.program.clone(),
        sources: cx.sources.clone(),
        opts: Options {
            acceptance: true,
            ..cx.opts.clone()
        },
        algorithm: None,
        base: None,
        short_trails: false,
        window: cx.window,
        // The accept labels' search is the system's alone with -a (pan -a without a claim).
        claim: match claim.labels {
            true => ClaimChoice::Safety,
            false => ClaimChoice::Named(claim.name.clone()),
        },
    };
    let over = cx.over.and_then(|o| {
        let request = Request {
            program: o.program.clone(),
            sources: request.sources.clone(),
            opts: request.opts.clone(),
            algorithm: None,
            base: None,
            short_trails: false,
            window: request.window,
            claim: request.claim.clone(),
        };
        crate::rmc::check::check_claim_over(&request, o.record, o.system, &mut |s| bar.update(s))
    });
    let over_graph = over.is_some();
    let c = match over {
        Some(c) => super::error::checked(c)?,
        None => super::error::checked(crate::rmc::check::check(request, &mut |s| bar.update(s)))?,
    };
    bar.finish();
    let doc = crate::report::verify::document(cx.name, &c, cx.files, cx.limits);
    let label = claim.label();
    let keys = c
        .keys()
        .into_iter()
        .map(|k| RecViolation {
            kind: format!("{label}: {}", k.kind),
            ..k
        })
        .collect();
    Ok(ClaimCheck {
        summary: ClaimDoc {
            // (The other claims' documents name them, a search without a claim does not.)
            name: match claim.labels {
                true => label,
                false => doc.claim.clone().unwrap_or_default(),
            },
            over_graph,
            ..ClaimDoc::of(&doc, claim.formula.clone())
        },
        doc,
        keys,
        verdict: c.verdict,
    })
}

/// What a claim's product search depends on besides the system's state graph and the
/// claim's own text: whether the model uses `timeout` (pan's ETIM: a blocked system asks the
/// claim to move again) and whether a proctype has accept or progress labels (accepting
/// states without the claim's say). A change can alter these and leave the graph as it was.
pub fn product_context(program: &Program) -> String {
    let timeout = program.uses_timeout();
    let (mut accept, mut progress) = (false, false);
    for p in program.procs.iter().filter(|p| p.kind != ProcKind::Never) {
        for l in &p.automaton.locations {
            accept |= l.accept;
            progress |= l.progress;
        }
    }
    format!("timeout={timeout} accept={accept} progress={progress}")
}

/// The base's check of `claim`, carried over to this version without a search, when that is
/// sound: the safety check found the base's state graph unchanged (this version's reachable
/// states, their successors and their order are the base's), the claim is the same `ltl`
/// formula over them (no remote label reference, whose label may have moved), nothing
/// else the product depends on changed (`product_context`, with no accept or progress
/// labels in proctypes, whose places the graph does not show), and the base's check
/// passed, complete. Its figures and verdict are then this version's; a failed check is
/// run again, since its trails name places that may have moved. `shift`: the graph is
/// the base's (None: it is not), and how the product's largest vectors move with it
/// (pan's, git rmc's: nothing in the same layout; across a layout change that kept the
/// graph, the same amount for every state, `unchanged_layout::claim_shift`).
pub fn carried(
    shift: Option<(i64, i64)>,
    base: Option<&crate::report::verify::ModelResult>,
    context: &str,
    claims_key: &str,
    claim: &Claim,
) -> Option<ClaimDoc> {
    let formula = claim.formula.as_deref()?;
    let base = base?;
    let label = claim.label();
    let ok = shift.is_some()
        && !formula.contains('@')
        && context.ends_with("accept=false progress=false")
        && base.claim_context.as_deref() == Some(context)
        && base.claims_key.as_deref() == Some(claims_key);
    let c = base.doc.claims.iter().find(|c| c.name == label)?;
    (ok && c.formula.as_deref() == Some(formula)
        && c.verdict == crate::report::verify::ModelVerdict::Pass
        && c.complete
        && c.violations.is_empty())
    .then(|| {
        let (pan, own) = shift.unwrap_or_default();
        let mut stats = c.stats.clone();
        stats.state_vector_bytes = stats.state_vector_bytes.checked_add_signed(pan)?;
        stats.vector_bytes = stats.vector_bytes.checked_add_signed(own)?;
        Some(ClaimDoc {
            reused: true,
            over_graph: false,
            stats,
            ..c.clone()
        })
    })
    .flatten()
}
