//! Rendering of engine results for people and machines: compiler-style diagnostics, the
//! `show` listing and its JSON. Never computes anything the engine could.

pub mod diagnostics;
pub mod diff;
pub mod show;
pub mod verify;
