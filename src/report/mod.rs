//! Rendering of engine results for people and machines: compiler-style diagnostics, the
//! `show` listing, the `verify` result, the impact analysis, the `history` report (text,
//! Markdown, HTML) and SARIF for code-scanning services. Never computes anything the engine
//! could.

pub(crate) mod diagnostics;
pub(crate) mod diff;
pub mod history;
pub(crate) mod sarif;
pub(crate) mod show;
pub mod verdict;
pub mod verify;
