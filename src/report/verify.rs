//! The result of one check as a document (the JSON of DESIGN.md section 7) and as SPIN-style
//! text: verdict, figures, violations with readable trails, statements never reached.

use serde::{Deserialize, Serialize};

use super::verdict::LimitSources;
use crate::explore::{Stats, Verdict, ViolationKind};
use crate::promela::source::SourceFiles;
use crate::rmc::check::Checked;
use crate::rmc::record::RecViolation;

/// A model's verdict: a check's (pass, fail, incomplete), or why there is none at a commit
/// (the model does not load there, or is not there). Decides the exit status
/// (`cli/error.rs`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ModelVerdict {
    #[default]
    Pass,
    Fail,
    Incomplete,
    Error,
    Absent,
}

impl ModelVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            ModelVerdict::Pass => "pass",
            ModelVerdict::Fail => "fail",
            ModelVerdict::Incomplete => "incomplete",
            ModelVerdict::Error => "error",
            ModelVerdict::Absent => "absent",
        }
    }

    pub fn from_name(s: &str) -> Option<ModelVerdict> {
        [
            ModelVerdict::Pass,
            ModelVerdict::Fail,
            ModelVerdict::Incomplete,
            ModelVerdict::Error,
            ModelVerdict::Absent,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }

    /// Whether a search ran (its figures mean something).
    pub fn ran(self) -> bool {
        matches!(
            self,
            ModelVerdict::Pass | ModelVerdict::Fail | ModelVerdict::Incomplete
        )
    }
}

impl From<Verdict> for ModelVerdict {
    fn from(v: Verdict) -> Self {
        match v {
            Verdict::Pass => ModelVerdict::Pass,
            Verdict::Fail => ModelVerdict::Fail,
            Verdict::Incomplete => ModelVerdict::Incomplete,
        }
    }
}

/// The document of one check (the JSON of `verify`). Every field has a default, so that a
/// result of a model that did not load, or one stored by an older git rmc, reads back.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
#[serde(default)]
pub struct CheckDoc {
    pub model: String,
    /// "full" or "incremental" (something was pruned or reused from the base).
    pub mode: String,
    /// The base's model hash (the record reused), when there is one.
    pub base: Option<String>,
    /// The algorithm that ran ("full" or "prune") and why.
    pub algorithm: String,
    pub algorithm_reason: String,
    /// What the choice between prune and replay predicted (regression checks with a base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<crate::rmc::check::Predicted>,
    pub verdict: ModelVerdict,
    /// `verify` of a model with claims: the safety check's verdict and every claim's
    /// together (`verdict` is the safety check's; `claims` holds each claim's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overall_verdict: Option<ModelVerdict>,
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// The limit that cut the search: its value, where it came from, how to raise it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_detail: Option<super::verdict::LimitDoc>,
    /// The fatal error that ended the whole search (as pan ends it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    pub stats: Stats,
    pub dangerous_locations: u64,
    pub claims_not_checked: Vec<String>,
    /// The never claim checked with the system (pan's `never claim + (name)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// Acceptance cycles of the product with `claim` (without one: through the processes'
    /// accept labels) were looked for (pan -a).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub acceptance: bool,
    /// ... with weak fairness (pan -f).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fair: bool,
    pub xr_xs_not_checked: bool,
    /// pan's state vector would exceed its default VECTORSZ (1,024 bytes): spin needs
    /// `-DVECTORSZ=N` with N above this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spin_needs_vectorsz_above: Option<u64>,
    pub violations: Vec<ViolationDoc>,
    /// The base's violations that are gone.
    pub fixed: Vec<FixedDoc>,
    pub unreached: Vec<UnreachedDoc>,
    /// The record this check wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordDoc>,
    /// Each claim checked on its own beside this safety check (`verify` without `-N`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<ClaimDoc>,
}

/// One claim's product search (pan -a -N NAME): its verdict, figures and violations.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct ClaimDoc {
    /// `ltl NAME` or `never NAME`.
    pub name: String,
    /// An `ltl` formula's text, as spin prints it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    pub verdict: ModelVerdict,
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    pub acceptance: bool,
    /// The cycles were looked for with weak fairness (pan -a -f).
    #[serde(default)]
    pub fair: bool,
    pub stats: Stats,
    pub violations: Vec<ViolationDoc>,
    /// Not searched again: the base's check of the same claim, which passed, is this one's,
    /// the change having left the state graph as it was (`cli::claims::carried`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reused: bool,
    /// The product search took the system's moves from the state graph this version's
    /// safety check recorded, executing the claim alone (`rmc::check::check_claim_over`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_graph: bool,
}

impl ClaimDoc {
    /// The claim's part of the product check's document `doc`; `formula`, its text.
    pub fn of(doc: &CheckDoc, formula: Option<String>) -> ClaimDoc {
        ClaimDoc {
            name: doc.claim.clone().unwrap_or_default(),
            formula,
            verdict: doc.verdict,
            complete: doc.complete,
            limit: doc.limit.clone(),
            acceptance: doc.acceptance,
            fair: doc.fair,
            stats: doc.stats.clone(),
            violations: doc.violations.clone(),
            reused: false,
            over_graph: false,
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct FixedDoc {
    pub kind: String,
    /// Where it was, in the base version.
    pub location: String,
    pub message: String,
}

/// One model's result at one commit: what `check --format json` prints per model and what
/// the cache keeps. The check's document, and what the walk over commits adds: the content
/// hash and limits it was made under, its violations by identity (`keys`, one per
/// `violations`, in order), how it was reused, and the audit.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
#[serde(default)]
pub struct ModelResult {
    #[serde(flatten)]
    pub doc: CheckDoc,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// Verdict `error`: the first diagnostic, on one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// The limits in force, as settings (a result a limit cut is reused while they stay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<String>,
    /// Which claims were checked, and how (a result is reused only under the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims_key: Option<String>,
    /// What a claim's product search depends on beyond the state graph and the formula
    /// (`cli::claims::product_context`), for a later check to carry a passed claim over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_context: Option<String>,
    pub keys: Vec<RecViolation>,
    pub new_violations: usize,
    pub elapsed_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_commit: Option<String>,
    /// Mode `reused`: the commit whose result this is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<String>,
    /// The states of the record the check wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_states: Option<u64>,
    /// `--audit`: what a full check of the same commit said, and how long it took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<String>,
    /// The full check's time: its base record read, its search and its record made, and
    /// the model's claims as this check searched them (whole, under --audit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_ms: Option<u64>,
}

/// What `check --format json` prints: per commit, oldest first, each model's result.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct CheckReport {
    pub commits: Vec<CommitResults>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct CommitResults {
    /// The full hex id (`worktree` for uncommitted files).
    pub commit: String,
    pub subject: String,
    pub models: Vec<ModelResult>,
    /// The configuration did not load at this commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ModelResult {
    /// A model that did not load at a commit, or is not there.
    pub fn without_check(
        model: &str,
        entry: &str,
        verdict: ModelVerdict,
        error: Option<String>,
    ) -> Self {
        ModelResult {
            doc: CheckDoc {
                model: model.to_string(),
                verdict,
                ..CheckDoc::default()
            },
            entry: Some(entry.to_string()),
            error,
            ..ModelResult::default()
        }
    }

    /// Marks each violation new unless `versus` has it (by identity), and returns and keeps
    /// their count.
    pub fn mark_new(&mut self, versus: &[RecViolation]) -> usize {
        let flags = crate::rmc::check::new_against(&self.keys, versus);
        // The keys are the safety check's violations', then each claim's, in order.
        let claims = self
            .doc
            .claims
            .iter_mut()
            .flat_map(|c| c.violations.iter_mut());
        for (v, n) in self.doc.violations.iter_mut().chain(claims).zip(&flags) {
            v.new = *n;
        }
        self.new_violations = flags.iter().filter(|&&n| n).count();
        self.new_violations
    }

    /// This result taken for a version of the same content: new against `base` (every
    /// violation, without one), and the base's violations it lacks fixed, located as the base
    /// reported them.
    pub fn against(mut self, base: Option<&ModelResult>) -> ModelResult {
        let versus = base.map(|b| b.keys.clone()).unwrap_or_default();
        self.mark_new(&versus);
        self.doc.fixed = match base {
            None => Vec::new(),
            Some(b) => b
                .keys
                .iter()
                .zip(
                    b.doc
                        .violations
                        .iter()
                        .map(Some)
                        .chain(std::iter::repeat(None)),
                )
                .filter(|(k, _)| !self.keys.iter().any(|x| crate::rmc::check::same(x, k)))
                .map(|(k, d)| FixedDoc {
                    kind: k.kind.clone(),
                    // Where it was: the blocked processes' locations of an invalid end
                    // state, else the violating statement's.
                    location: match d {
                        Some(d) if !d.blocked_at.is_empty() => d.blocked_at.join(", "),
                        Some(d) => d.location.clone(),
                        None => String::new(),
                    },
                    message: k.message.clone(),
                })
                .collect(),
        };
        self
    }

    /// The model's verdict: its safety check's, and a pass only when every claim checked
    /// passed too (a failed claim fails it, a cut one leaves it incomplete).
    pub fn verdict(&self) -> ModelVerdict {
        let v = self.doc.verdict;
        if v != ModelVerdict::Pass && v != ModelVerdict::Incomplete {
            return v;
        }
        let claims = self.doc.claims.iter().map(|c| c.verdict);
        if std::iter::once(v)
            .chain(claims.clone())
            .any(|c| c == ModelVerdict::Fail)
        {
            ModelVerdict::Fail
        } else if std::iter::once(v)
            .chain(claims)
            .any(|c| c == ModelVerdict::Incomplete)
        {
            ModelVerdict::Incomplete
        } else {
            v
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct RecordDoc {
    pub path: String,
    pub bytes: u64,
    pub states: u64,
    pub bytes_per_state: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct ViolationDoc {
    pub kind: String,
    pub location: String,
    pub message: String,
    pub new: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<String>,
    /// Where each of those processes is (`file:line:col`), for telling where an invalid end
    /// state was once it is fixed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_at: Vec<String>,
    /// Absent beyond the first `--max-trails` violations of a kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trail: Option<Vec<StepDoc>>,
    /// An acceptance cycle: the step of the trail where the cycle starts (the trail ends
    /// in the state before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle_start: Option<usize>,
    /// An acceptance cycle: pan's depth of the state where it starts (its "acceptance cycle
    /// (at depth N)"; weak fairness's default moves are no trail steps but count there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle_depth: Option<u64>,
    /// Steps of the trail left out of `trail` after its first half (text output of very
    /// long trails only; the JSON keeps every step).
    #[serde(skip)]
    pub elided: usize,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct StepDoc {
    pub step: usize,
    pub proc: String,
    pub pid: crate::explore::Pid,
    pub location: String,
    pub statement: String,
    pub changed: serde_json::Map<String, serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct UnreachedDoc {
    pub proc: String,
    pub location: String,
    pub statement: String,
}

/// pan's default limit on its state vector.
const PAN_VECTORSZ: u64 = 1024;

/// How many steps of a trail the text output shows at most (half from each end).
pub const TEXT_TRAIL_STEPS: usize = 200;

/// The `file:line:col` of spans, each formatted once.
struct Places<'a> {
    files: &'a SourceFiles,
    memo: std::cell::RefCell<std::collections::HashMap<crate::promela::source::Span, String>>,
}

impl<'a> Places<'a> {
    fn new(files: &'a SourceFiles) -> Places<'a> {
        Places {
            files,
            memo: Default::default(),
        }
    }

    fn at(&self, span: crate::promela::source::Span) -> String {
        self.memo
            .borrow_mut()
            .entry(span)
            .or_insert_with(|| self.files.location(span))
            .clone()
    }
}

/// The document of a finished check, as the JSON and the text show it: `checked` rendered
/// with `files` (its sources) and `limits` (where each limit came from, to say which one cut
/// an incomplete search). Nothing is computed here that the check did not decide.
pub fn document(
    model: &str,
    checked: &Checked,
    files: &SourceFiles,
    limits: &LimitSources,
) -> CheckDoc {
    // A model with 10^5 violations names the same few places in each: each is formatted
    // once.
    let places = Places::new(files);
    let violations = checked
        .found
        .iter()
        .map(|f| ViolationDoc {
            kind: f.kind.as_str().to_string(),
            location: places.at(f.at),
            message: f.message.clone(),
            new: f.new,
            locations: f
                .blocked
                .iter()
                .map(|b| match f.kind {
                    // The trace is no process: it has no pid.
                    ViolationKind::TraceIncomplete => {
                        format!("{} at {}", b.proc, places.at(b.at))
                    }
                    _ => format!("{}({}) at {}", b.proc, b.pid, places.at(b.at)),
                })
                .collect(),
            blocked_at: f.blocked.iter().map(|b| places.at(b.at)).collect(),
            cycle_start: f.cycle_start,
            cycle_depth: f.cycle_depth,
            elided: f
                .trail
                .as_ref()
                .map_or(0, |t| t.steps.saturating_sub(t.shown.len())),
            trail: f.trail.as_ref().map(|t| {
                t.shown
                    .iter()
                    .map(|s| StepDoc {
                        step: s.step,
                        proc: s.proc.clone(),
                        pid: s.pid,
                        location: places.at(s.at),
                        statement: s.statement.clone(),
                        changed: s
                            .changed
                            .iter()
                            .map(|(n, v)| (n.clone(), serde_json::Value::from(*v)))
                            .collect(),
                        output: s.output.clone(),
                    })
                    .collect()
            }),
        })
        .collect();
    let unreached = checked
        .unreached
        .iter()
        .map(|u| UnreachedDoc {
            proc: u.proc.clone(),
            location: places.at(u.at),
            statement: u.statement.clone(),
        })
        .collect();
    let fixed = checked
        .fixed
        .iter()
        .map(|g| FixedDoc {
            kind: g.key.kind.clone(),
            location: g.locations.join(", "),
            message: g.key.message.clone(),
        })
        .collect();
    CheckDoc {
        model: model.to_string(),
        mode: checked.mode.as_str().into(),
        base: checked.base_hash.clone(),
        algorithm: checked.algorithm.as_str().into(),
        algorithm_reason: checked.reason.clone(),
        predicted: checked.predicted,
        verdict: checked.verdict.into(),
        overall_verdict: None,
        complete: checked.complete(),
        limit: checked.limit.map(|(l, _)| l.as_str().to_string()),
        limit_detail: checked
            .limit
            .and_then(|(l, value)| limits.detail(l.as_str(), value)),
        stopped_by: checked.stopped_by.map(|k| k.as_str().to_string()),
        stats: checked.stats.clone(),
        dangerous_locations: checked.dangerous,
        claims_not_checked: checked.claims_not_checked.clone(),
        claim: checked.claim.clone(),
        acceptance: checked.acceptance,
        fair: (checked.claim.is_some() || checked.acceptance) && checked.fair,
        xr_xs_not_checked: checked.xr_xs_not_checked,
        spin_needs_vectorsz_above: (checked.stats.state_vector_bytes >= PAN_VECTORSZ)
            .then_some(checked.stats.state_vector_bytes),
        violations,
        fixed,
        unreached,
        record: None,
        claims: Vec::new(),
    }
}

/// The verdict of the safety check and every claim of `doc.claims` together: a fail where
/// any failed, else incomplete where any search was cut, else the safety check's.
pub fn overall_verdict(doc: &CheckDoc) -> ModelVerdict {
    let all = || std::iter::once(doc.verdict).chain(doc.claims.iter().map(|c| c.verdict));
    if all().any(|v| v == ModelVerdict::Fail) {
        ModelVerdict::Fail
    } else if all().any(|v| v == ModelVerdict::Incomplete) {
        ModelVerdict::Incomplete
    } else {
        doc.verdict
    }
}

/// The last line of a `verify` that checked the safety properties and each claim on its own
/// (`doc.claims`): one verdict for them all.
pub fn overall(doc: &CheckDoc) -> String {
    let mut failed: Vec<String> = Vec::new();
    let mut cut: Vec<String> = Vec::new();
    let mut note = |name: &str, v: ModelVerdict| match v {
        ModelVerdict::Fail => failed.push(name.to_string()),
        ModelVerdict::Incomplete => cut.push(name.to_string()),
        _ => {}
    };
    note("safety", doc.verdict);
    for c in &doc.claims {
        note(&c.name, c.verdict);
    }
    let all = format!(
        "safety and {} claim{}",
        doc.claims.len(),
        if doc.claims.len() == 1 { "" } else { "s" }
    );
    let words = match (failed.is_empty(), cut.is_empty()) {
        (false, _) => format!("FAIL ({})", failed.join(", ")),
        (true, false) => format!("INCOMPLETE ({})", cut.join(", ")),
        (true, true) => super::verdict::verdict_words_beside("pass", &doc.claims_not_checked, true),
    };
    format!("overall ({all}): {words}\n")
}

/// A violation's trail as text, each line starting with `indent`. A trail longer than
/// `window` steps shows its first and last `window / 2` (the JSON keeps every step); a
/// trail already cut when it was replayed says how many steps it left out.
pub fn trail_text(v: &ViolationDoc, indent: &str, window: Option<usize>) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let Some(trail) = &v.trail else {
        // A search stopped by too many processes has none to keep (a replay of the path
        // has no limit on processes, so none would end there).
        let why = match v.kind.as_str() {
            "too-many-processes" => "the search stopped where the process limit was passed",
            _ => "only the first trails of each kind are kept; see max_trails",
        };
        let _ = writeln!(o, "{indent}(no trail: {why})");
        return o;
    };
    let total = trail.len() + v.elided;
    let _ = writeln!(o, "{indent}trail ({total} steps):");
    let half = window.map_or(usize::MAX, |w| w.div_ceil(2).max(1));
    let shown =
        |k: usize| trail.len() <= half.saturating_mul(2) || k < half || k >= trail.len() - half;
    let mut next = 1;
    for (k, s) in trail.iter().enumerate() {
        if !shown(k) {
            continue;
        }
        if s.step > next {
            let _ = writeln!(
                o,
                "{indent}... {} steps not shown (--format json gives the whole trail) ...",
                s.step - next
            );
        }
        next = s.step + 1;
        if v.cycle_start == Some(s.step) {
            let _ = writeln!(o, "{indent}       <<<<<START OF CYCLE>>>>>");
        }
        let changed: Vec<String> = s.changed.iter().map(|(k, v)| format!("{k}={v}")).collect();
        // A never claim's step carries no pid of the system's.
        let pid = match s.pid {
            crate::explore::claim::CLAIM_PID => "claim".to_string(),
            p => p.to_string(),
        };
        let _ = write!(
            o,
            "{indent}{:>5}  {}({pid}) {}  {}",
            s.step, s.proc, s.location, s.statement
        );
        if !changed.is_empty() {
            let _ = write!(o, "   [{}]", changed.join(", "));
        }
        let _ = writeln!(o);
        if let Some(out) = &s.output {
            for line in out.lines() {
                let _ = writeln!(o, "{indent}       | {line}");
            }
        }
    }
    o
}

/// SPIN-style text of a check.
pub fn text(doc: &CheckDoc, elapsed_s: f64) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    match &doc.claim {
        Some(c) if c.starts_with("non-progress") && doc.fair => writeln!(
            o,
            "git rmc verify: {} (full state space search for non-progress cycles with weak \
             fairness, as pan -l -f -c0 built with -DNP)",
            doc.model
        ),
        Some(c) if c.starts_with("non-progress") => writeln!(
            o,
            "git rmc verify: {} (full state space search for non-progress cycles, as pan -l -c0 \
             built with -DNP)",
            doc.model
        ),
        Some(c) if doc.acceptance && doc.fair => writeln!(
            o,
            "git rmc verify: {} (full state space search with the claim of {c}, acceptance \
             cycles with weak fairness, as pan -a -f -c0)",
            doc.model
        ),
        Some(c) if doc.acceptance => writeln!(
            o,
            "git rmc verify: {} (full state space search with the claim of {c}, acceptance \
             cycles included, as pan -a -c0)",
            doc.model
        ),
        Some(c) => writeln!(
            o,
            "git rmc verify: {} (full state space search with the claim of {c}, as pan -c0 \
             without -a)",
            doc.model
        ),
        None if doc.acceptance && doc.fair => writeln!(
            o,
            "git rmc verify: {} (full state space search for acceptance cycles through the \
             processes' accept labels with weak fairness, without a never claim, as pan -a -f \
             -c0)",
            doc.model
        ),
        None if doc.acceptance => writeln!(
            o,
            "git rmc verify: {} (full state space search for acceptance cycles through the \
             processes' accept labels, without a never claim, as pan -a -c0)",
            doc.model
        ),
        None => writeln!(
            o,
            "git rmc verify: {} (full state space search for safety, as pan -DSAFETY -DNOCLAIM)",
            doc.model
        ),
    }
    .ok();
    if !doc.claims_not_checked.is_empty() {
        let what = match doc.claim {
            Some(_) => "(one claim is checked at a time)",
            None => "(safety only)",
        };
        let _ = writeln!(
            o,
            "note: not checked yet {what}: {}",
            doc.claims_not_checked.join(", ")
        );
    }
    if doc.xr_xs_not_checked {
        let _ = writeln!(o, "note: xr/xs channel assertions are not checked");
    }
    if let Some(b) = &doc.base {
        let _ = writeln!(
            o,
            "base {b}: {} ({}); {} states executed, {} walked, {} pruned",
            doc.algorithm,
            doc.algorithm_reason,
            doc.stats.states_executed,
            doc.stats.states_walked,
            doc.stats.states_pruned
        );
    } else if !doc.algorithm_reason.is_empty() {
        let _ = writeln!(o, "{}", doc.algorithm_reason);
    }
    if let Some(n) = doc.spin_needs_vectorsz_above {
        let _ = writeln!(
            o,
            "note: pan's state vector reaches about {n} bytes: spin's pan stops at once unless \
             pan.c is compiled with -DVECTORSZ=N, N > {n} (git rmc has no such limit)"
        );
    }
    let groups = super::verdict::group(doc.violations.iter().map(Into::into));
    for (i, g) in groups.iter().enumerate() {
        let v = &doc.violations[g.members[0]];
        let _ = writeln!(o);
        let since = match (&doc.base, v.new) {
            (None, _) => "",
            (Some(_), true) => " (new)",
            (Some(_), false) => " (also in the base)",
        };
        let note = if g.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", g.note)
        };
        let _ = writeln!(
            o,
            "violation {}: {} [{}] at {}{since}{note}",
            i + 1,
            v.message,
            v.kind,
            v.location
        );
        for l in &v.locations {
            let _ = writeln!(o, "  blocked: {l}");
        }
        o.push_str(&trail_text(v, "  ", None));
    }
    for f in &doc.fixed {
        let _ = writeln!(
            o,
            "\nfixed since the base: {} [{}] (was at {})",
            f.message, f.kind, f.location
        );
    }
    let s = &doc.stats;
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "State-vector {} byte, depth reached {}, errors: {}",
        s.state_vector_bytes,
        s.depth_reached,
        doc.violations.len()
    );
    if s.states_revisited > 0 {
        // pan -a: the nested search's visits too.
        let _ = writeln!(
            o,
            "{:>9} states, stored ({} visited)",
            s.states_stored,
            s.states_stored + s.states_revisited
        );
    } else {
        let _ = writeln!(o, "{:>9} states, stored", s.states_stored);
    }
    let _ = writeln!(o, "{:>9} states, matched", s.states_matched);
    let sum = match s.states_revisited {
        0 => "stored+matched",
        _ => "visited+matched",
    };
    let _ = writeln!(o, "{:>9} transitions (= {sum})", s.transitions);
    let _ = writeln!(o, "{:>9} atomic steps", s.atomic_steps);
    if doc.base.is_some() {
        let _ = writeln!(
            o,
            "{:>9} states pruned (not explored: recorded)",
            s.states_pruned
        );
        let _ = writeln!(
            o,
            "{:>9} states walked (successors from the record), {} recorded states executed \
             at the frontier",
            s.states_walked, s.frontier_states
        );
        if s.groups_replayed + s.groups_executed > 0 {
            let _ = writeln!(
                o,
                "{:>9} processes' moves replayed in the states executed, {} executed",
                s.groups_replayed, s.groups_executed
            );
        }
        let _ = match doc.mode.as_str() {
            "full" => writeln!(o, "{:>9} states executed", s.states_executed),
            _ => writeln!(
                o,
                "{:>9} states executed; record: {} states reused, {} dropped",
                s.states_executed, s.states_reused, s.states_dropped
            ),
        };
    }
    let rate = if elapsed_s > 0.0 {
        s.states_stored as f64 / elapsed_s
    } else {
        0.0
    };
    let _ = writeln!(
        o,
        "memory {:.3} MB, elapsed {:.2} s, {:.0} states/s",
        s.peak_memory_bytes as f64 / 1048576.0,
        elapsed_s,
        rate
    );
    if let Some(r) = &doc.record {
        let _ = writeln!(
            o,
            "record: {} ({} states, {} bytes, {:.1} bytes per state)",
            r.path, r.states, r.bytes, r.bytes_per_state
        );
    }
    let mut last_proc = "";
    for u in &doc.unreached {
        if u.proc != last_proc {
            let _ = writeln!(o, "unreached in proctype {}", u.proc);
            last_proc = &u.proc;
        }
        let _ = writeln!(o, "\t{}, \"{}\"", u.location, u.statement);
    }
    let _ = writeln!(o);
    if let Some(k) = &doc.stopped_by {
        let _ = writeln!(
            o,
            "the search was ended by a fatal error ({k}), as pan ends it: the figures are those at that point"
        );
    }
    let why = |l: Option<&str>| match &doc.limit_detail {
        Some(d) => d.sentence(),
        None => format!("the {} limit cut the search", l.unwrap_or("a")),
    };
    match (doc.verdict.as_str(), doc.limit.as_deref()) {
        ("pass", _) => {
            let _ = writeln!(
                o,
                "verdict: {}",
                super::verdict::verdict_words_beside(
                    "pass",
                    &doc.claims_not_checked,
                    doc.claim.is_some()
                )
            );
        }
        ("fail", None) => {
            let _ = writeln!(o, "verdict: FAIL ({} violations)", doc.violations.len());
        }
        ("fail", Some(l)) => {
            let _ = writeln!(
                o,
                "verdict: FAIL ({} violations; incomplete: {})",
                doc.violations.len(),
                why(Some(l))
            );
        }
        (_, l) => {
            let _ = writeln!(o, "verdict: INCOMPLETE ({}; this is not a pass)", why(l));
        }
    }
    o
}
