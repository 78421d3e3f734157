//! Regression model checking (DESIGN.md 5): one check of one version of a model, reusing
//! the record of an earlier version where the change cannot matter. The wings read as the
//! pipeline: `diff` (what changed: labels, stable ids, dangerous locations, layout
//! extensions), `record` (what a check leaves for the next: the record file, the state
//! graph), `run` (what rides along the search: recording, pruning, replaying), and `check`,
//! which sequences them: plan, run, complete, compare, assemble the next record.
//!
//! **Invariant:** a library: it takes programs and records and returns results and
//! records; it knows nothing of git, the cache or the terminal.

pub(crate) mod beside;
pub mod check;
pub mod diff;
pub mod record;
pub mod run;

pub use check::{Algorithm, Base, Plan};
pub use diff::ids::{adopt_system_ids, StableIds};
pub use diff::impact::{analyze, Danger, Impact};
pub use record::{Record, RecordError};
