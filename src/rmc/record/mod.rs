//! What a check leaves for the next one (DESIGN.md 5.1, 5.4, 6): the record file and its
//! sections (`file`), the coverage elements its sets are made of (`elements`), the recorded
//! state graph and its codecs (`graph`), the graph a run builds (`graph_build`) and the
//! graph's sections in a file, whole or on a base (`graph_file`), the bytes they live in
//! (`blob`) and, while a run builds the graph, compressed (`spill`) with their places
//! (`spans`) and each slot's footprint, shape and liveness (`slot_table`), and the index that finds a fingerprint among a record's (`fpindex`).
//!
//! **Invariant:** a record's bytes depend on the model and the checks only, never on the
//! machine or the time; every file is versioned and checksummed, and one that does not
//! read is refused with the reason, never half used.

pub(crate) mod blob;
pub(crate) mod codec;
pub mod elements;
mod file;
pub(crate) mod fpindex;
pub mod graph;
pub(crate) mod graph_build;
pub(crate) mod graph_file;
pub(crate) mod names;
pub(crate) mod slot_table;
pub(crate) mod spans;
pub(crate) mod spill;

pub use file::*;
