//! The diff between two versions of a model (DESIGN.md 5.3, 5.6): each location's label
//! (`label`), the stable ids carried from the old version to the new (`ids`), the impact
//! analysis that marks the dangerous locations (`impact`), how a new state layout extends
//! an old one (`extension`), which accesses of a resized array a location makes
//! (`indexed`) and which channel operations may reach a changed global
//! channel (`chan_alias`).
//!
//! **Invariant:** reads two `Program`s and a record's ids; never searches.

pub(crate) mod chan_alias;
pub mod extension;
pub(crate) mod ids;
pub(crate) mod impact;
pub(crate) mod indexed;
pub(crate) mod label;
