//! What rides along the one search of a check that reuses or writes a record (DESIGN.md
//! 5.2, 5.4): the rider that answers the search (`recorder`: prune a state, hand it a
//! recorded expansion), the bookkeeping beside it (`book`: reachable sets and the state
//! graph), kept on a second thread through `book_pipe` and `pipe`; which recorded states and
//! moves a replay takes from the record (`replay`); the recorded states a pruning run
//! carries across a layout change (`carry`); recorded states by the key a declaration change
//! that drops bytes meets them by (`keys`), and the states met through such a map by slot
//! and extras (`map_keys`); whether a change left the recorded graph as it
//! was (`unchanged`); auto's random walks through the new version (`probe`); and a never
//! claim's product whose system moves come from the safety check's graph
//! (`product_replay`).
//!
//! **Invariant:** no second search loop: everything here plugs into `explore::search`
//! through its `Rider`, or walks a record without searching.

pub(crate) mod book;
pub(crate) mod book_pipe;
pub(crate) mod carry;
pub(crate) mod keys;
pub(crate) mod map_keys;
pub(crate) mod map_vectors;
pub(crate) mod pipe;
pub mod probe;
pub mod product_replay;
pub(crate) mod recorder;
pub(crate) mod replay;
pub(crate) mod unchanged;
pub(crate) mod unchanged_layout;
