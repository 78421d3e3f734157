//! Rendering of engine results for people and machines: compiler-style diagnostics, the
//! `show` listing, the `verify` result, the impact analysis, the `history` report (text,
//! Markdown, HTML) and SARIF for code-scanning services. Never computes anything the engine
//! could.

pub mod diagnostics;
pub mod diff;
pub mod history;
pub mod sarif;
pub mod show;
pub mod verdict;
pub mod verify;
