//! The `git rmc history` report: the document the command builds (one row per commit, one
//! cell per model checked there, and each violation's life from the commit that introduced
//! it to the one that fixed it) and its renderings as a terminal table, Markdown and one
//! self-contained HTML page. The JSON is the document itself, serialized by the command.
//!
//! Rendering only: the command computes every figure, speed-up and violation's life; nothing
//! here reads git, the cache or a model.

mod cells;
mod chart;
mod html;
mod markdown;
mod text;

#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::report::verify::StepDoc;

pub use html::html;
pub use markdown::markdown;
pub use text::text;

#[derive(Serialize, Debug)]
pub struct HistoryDoc {
    /// The repository's display name (its folder's name).
    pub repository: String,
    /// Model names, in the configuration's order.
    pub models: Vec<String>,
    /// Oldest first.
    pub commits: Vec<CommitRow>,
    pub violations: Vec<ViolationLife>,
}

#[derive(Serialize, Debug)]
pub struct CommitRow {
    /// The full hex id.
    pub commit: String,
    /// The first 7 hex digits.
    pub short: String,
    pub subject: String,
    /// Committer time, seconds since the epoch (UTC).
    pub time: i64,
    /// One per model of `HistoryDoc::models` checked at this commit.
    pub models: Vec<ModelCell>,
}

#[derive(Serialize, Debug)]
pub struct ModelCell {
    pub model: String,
    /// "pass", "fail", "incomplete", "error" (the model does not load) or "absent".
    pub verdict: crate::report::verify::ModelVerdict,
    /// "full", "incremental" or "reused" (the content is unchanged: the result was reused).
    pub mode: String,
    /// "full", "prune", "replay", or "" when nothing ran.
    pub algorithm: String,
    pub states_stored: u64,
    /// States the interpreter executed (stored, less those pruned or replayed).
    pub states_explored: u64,
    /// States whose successors came from the record (pruned or replayed).
    pub states_reused: u64,
    pub elapsed_ms: u64,
    /// The states a full check of this commit stores, when known.
    pub full_states: Option<u64>,
    /// A full check's time over this run's, when known.
    pub speedup: Option<f64>,
    pub violations: Vec<ViolationRef>,
    /// Verdict "error": the first diagnostic, on one line.
    pub error: Option<String>,
    /// The model's claims (never claims, ltl formulas) this check did not check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims_not_checked: Vec<String>,
    /// What failed, when claims were checked and one did: `safety` (the safety check had
    /// violations) and each failed claim (`ltl p`), for the verdict cell.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// A search a limit cut: which limit, its value and origin, and how to raise it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// Each claim checked, with its own verdict (a column each in the renderings, where a
    /// model has several).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<ClaimCell>,
}

/// One claim's verdict at one commit.
#[derive(Serialize, Debug, Clone)]
pub struct ClaimCell {
    /// `ltl NAME` or `never NAME`.
    pub claim: String,
    pub verdict: crate::report::verify::ModelVerdict,
}

#[derive(Serialize, Debug)]
pub struct ViolationRef {
    pub kind: String,
    pub location: String,
    pub message: String,
    /// "new" or "still".
    pub status: String,
}

#[derive(Serialize, Debug)]
pub struct ViolationLife {
    pub model: String,
    pub kind: String,
    pub location: String,
    pub message: String,
    /// The short commit where it first appeared.
    pub first_seen: String,
    /// The short commit where it disappeared, if it did.
    pub fixed_in: Option<String>,
    /// An invalid end state's blocked processes (`Name(pid) at file:line:col`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<String>,
    /// The trail from the commit that introduced it.
    pub trail: Option<Vec<StepDoc>>,
    /// What identifies it from commit to commit (kind and stable locations); not shown.
    #[serde(skip)]
    pub key: Option<String>,
}
