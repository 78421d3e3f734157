//! The explorer: an explicit-state safety check of a program with pan's semantics and figures.
//! `layout` places variables, processes and channels in a state vector; `eval` and `exec`
//! interpret expressions and statements; `succ` generates successors in pan's order; `store`
//! is the exact visited set; `search` is the iterative DFS with Tarjan's SCC bookkeeping
//! (`event` is what a rider records of an expansion and hands back to replay it);
//! `trace` moves an event trace (`trace`/`notrace`) on channel events; `trail` replays and
//! describes counter-examples.
//!
//! Architecture invariant: the explorer reads only `program` (never the AST) and knows nothing
//! of git or the terminal; states hold stable location ids, so their canonical bytes and
//! fingerprints do not change when unrelated code is edited.

pub(crate) mod budget;
pub(crate) mod chunked;
pub mod claim;
pub(crate) mod code;
pub(crate) mod eval;
pub mod event;
pub(crate) mod exec;
pub(crate) mod layout;
pub mod machine;
pub(crate) mod outcome;
pub(crate) mod pages;
pub(crate) mod pan_size;
pub(crate) mod property;
pub mod search;
pub mod shortest;
pub(crate) mod small_copy;
pub mod state;
pub(crate) mod store;
pub(crate) mod succ;
pub mod trace;
pub mod trail;

/// The program of a model given as text, for the explorer's unit tests.
#[cfg(test)]
pub(crate) fn test_program(model: &str) -> crate::program::Program {
    let parsed = crate::promela::parse_file(
        std::path::Path::new("m.pml"),
        &crate::promela::source::MemoryProvider::new().with("m.pml", model),
        &Default::default(),
    );
    let (p, diags) = crate::program::build(&parsed.model.expect("parses"));
    p.unwrap_or_else(|| panic!("builds: {diags:?}"))
}

pub use machine::{LocIndex, Machine};
pub use outcome::{
    Blocked, Limit, Options, Outcome, Pid, Stats, Verdict, Violation, ViolationKind,
};
pub use search::{explore, search, search_paused, AtLimit, NoRider, Rider, Visit};
pub use store::Fingerprint;
pub use trail::{Replayed, TrailStep, TrailView};
