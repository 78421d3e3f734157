//! Regression model checking (DESIGN.md 5): the impact analysis between two versions of a
//! model, the reachable element sets recorded per state, the record file, and pruning runs
//! that reuse a record and accumulate the next one. A library module: it takes programs and
//! records and returns results and records; it knows nothing of git or the terminal.

pub mod blob;
pub mod book;
pub mod book_pipe;
pub mod carry;
pub mod chan_alias;
pub mod check;
pub mod elements;
pub mod extension;
pub mod fpindex;
pub mod graph;
pub mod graph_build;
pub mod graph_file;
pub mod ids;
pub mod impact;
pub mod label;
pub mod pipe;
pub mod probe;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod unchanged;

pub use check::{Algorithm, Base, Plan};
pub use ids::StableIds;
pub use impact::{analyze, Danger, Impact};
pub use record::{Record, RecordError};
