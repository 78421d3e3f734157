//! The words every human output uses for a check's outcome, so that `verify`, `check`, the
//! hook and the `history` reports say the same thing: the verdict with what it does not
//! cover (claims not checked), the limit that cut an incomplete search and how to raise it,
//! sizes in human units, and violations that repeat by symmetry folded into one line.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use xxhash_rust::xxh3::Xxh3Builder;

use super::verify::ViolationDoc;

/// The verdict as a person should read it: a pass that did not check the model's claims says
/// so (`pass (safety only: ltl p not checked)`), so that it is never taken for one that did.
pub fn verdict_words(verdict: &str, claims_not_checked: &[String]) -> String {
    verdict_words_beside(verdict, claims_not_checked, false)
}

/// `verdict_words` for a check that may have checked one claim beside the safety properties
/// (`claim_checked`): its pass is then not "safety only", but still names the claims left.
pub fn verdict_words_beside(
    verdict: &str,
    claims_not_checked: &[String],
    claim_checked: bool,
) -> String {
    match verdict {
        "pass" if !claims_not_checked.is_empty() => {
            let what = if claim_checked { "" } else { "safety only: " };
            format!("pass ({what}{} not checked)", claims_not_checked.join(", "))
        }
        "fail" => "FAIL".into(),
        "incomplete" => "INCOMPLETE".into(),
        v => v.into(),
    }
}

/// The limit that cut a search: which, its value, where the value came from and how to raise
/// it. Stored with the result (`limit_detail` in the JSON), so that a reused result says why
/// as the run that made it did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitDoc {
    /// `depth`, `states`, `memory` or `errors`.
    pub name: String,
    /// The value in force, as a person reads it (`19.1 GB`, `2000000`).
    pub value: String,
    /// Where it came from (`auto: 80% of available`, `.rmc.toml`, `--max-states`).
    pub origin: String,
    /// How to raise it.
    pub raise: String,
}

impl LimitDoc {
    /// `memory limit 19.1 GB (auto: 80% of available)`.
    pub fn describe(&self) -> String {
        let what = match self.name.as_str() {
            "states" => "max_states",
            "depth" => "max_depth",
            "errors" => "max_errors",
            n => return format!("{n} limit {} ({})", self.value, self.origin),
        };
        format!("{what} {} ({})", self.value, self.origin)
    }

    /// The sentence an incomplete result ends with: what cut it and how to raise it.
    pub fn sentence(&self) -> String {
        format!("the {} cut the search; {}", self.describe(), self.raise)
    }
}

/// Where each limit of a check came from, and how a user raises it: filled by the command
/// that set the limits (flags for `verify`, `.rmc.toml` for `check`), read when one cuts a
/// search.
#[derive(Clone, Debug, Default)]
pub struct LimitSources {
    pub depth: LimitSource,
    pub states: LimitSource,
    pub errors: LimitSource,
    pub memory: LimitSource,
}

#[derive(Clone, Debug, Default)]
pub struct LimitSource {
    pub origin: String,
    pub raise: String,
}

impl LimitSource {
    pub fn new(origin: impl Into<String>, raise: impl Into<String>) -> Self {
        LimitSource {
            origin: origin.into(),
            raise: raise.into(),
        }
    }
}

impl LimitSources {
    /// The description of `limit` (`depth`, `states`, `errors`, `memory`) at `value`.
    pub fn detail(&self, limit: &str, value: Option<u64>) -> Option<LimitDoc> {
        let (src, value) = match limit {
            "depth" => (&self.depth, value?.to_string()),
            "states" => (&self.states, value?.to_string()),
            "errors" => (&self.errors, value?.to_string()),
            "memory" => (&self.memory, human_bytes(value?)),
            _ => return None,
        };
        Some(LimitDoc {
            name: limit.to_string(),
            value,
            origin: src.origin.clone(),
            raise: src.raise.clone(),
        })
    }
}

/// A size in bytes in decimal units with three significant digits (`19.1 GB`, `512 kB`).
pub fn human_bytes(n: u64) -> String {
    if n < 1000 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    for unit in ["kB", "MB", "GB", "TB", "PB", "EB"] {
        v /= 1000.0;
        if v < 999.5 {
            return if v < 9.995 {
                format!("{v:.2} {unit}")
            } else if v < 99.95 {
                format!("{v:.1} {unit}")
            } else {
                format!("{v:.0} {unit}")
            };
        }
    }
    format!("{n} B")
}

/// Violations that say the same thing to a person, shown as one: those of one kind whose text
/// is identical, and invalid end states whose blocked processes sit at the same locations as
/// a multiset per proctype (the same deadlock reached with the processes in another order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The violations in it (indices into the list grouped), the first one shown.
    pub members: Vec<usize>,
    /// What the count means: `6 orderings of Passenger` or `3 times`; empty for one.
    pub note: String,
}

/// A violation as grouping sees it.
pub struct Groupable<'a> {
    pub kind: &'a str,
    pub message: &'a str,
    pub location: &'a str,
    /// An invalid end state's blocked processes: `Name(pid) at file:line:col`.
    pub locations: &'a [String],
}

impl<'a> From<&'a ViolationDoc> for Groupable<'a> {
    fn from(v: &'a ViolationDoc) -> Self {
        Groupable {
            kind: &v.kind,
            message: &v.message,
            location: &v.location,
            locations: &v.locations,
        }
    }
}

/// Groups `items` in the order of their first members.
pub fn group<'a>(items: impl IntoIterator<Item = Groupable<'a>>) -> Vec<Group> {
    // A map, not a scan: a model can have 10^5 distinct violations; one key string per
    // violation, built in a buffer (a new group's key is the only one kept).
    let items = items.into_iter();
    let n = items.size_hint().0;
    let mut index: HashMap<String, usize, Xxh3Builder> =
        HashMap::with_capacity_and_hasher(n, Xxh3Builder::new());
    let mut procs_of: Vec<Vec<&str>> = Vec::with_capacity(n);
    let mut groups: Vec<Group> = Vec::with_capacity(n);
    let (mut key, mut placed) = (String::new(), Vec::new());
    for (i, v) in items.enumerate() {
        symmetric_key(&v, &mut key, &mut placed);
        match index.get(key.as_str()) {
            Some(&g) => groups[g].members.push(i),
            None => {
                index.insert(key.clone(), groups.len());
                procs_of.push(repeated(&placed));
                groups.push(Group {
                    members: vec![i],
                    note: String::new(),
                });
            }
        }
    }
    for (g, procs) in groups.iter_mut().zip(&procs_of) {
        let n = g.members.len();
        if n > 1 {
            g.note = if procs.is_empty() {
                format!("{n} times")
            } else {
                format!("{n} orderings of {}", procs.join(", "))
            };
        }
    }
    groups
}

/// The key two violations share when a person would call them one (in `key`): for blocked
/// processes, their (proctype, location) pairs sorted (in `placed`), the pids left out.
fn symmetric_key<'a>(v: &Groupable<'a>, key: &mut String, placed: &mut Vec<(&'a str, &'a str)>) {
    key.clear();
    placed.clear();
    if v.locations.is_empty() {
        for part in ["E", v.kind, v.message, v.location] {
            key.push_str(part);
            key.push('\u{0}');
        }
        return;
    }
    placed.extend(v.locations.iter().map(|l| {
        let (who, at) = l.split_once(" at ").unwrap_or((l.as_str(), ""));
        (who.split_once('(').map_or(who, |(p, _)| p), at)
    }));
    placed.sort_unstable();
    for part in ["L", v.kind, v.message] {
        key.push_str(part);
        key.push('\u{0}');
    }
    for (p, at) in placed.iter() {
        key.push_str(p);
        key.push('@');
        key.push_str(at);
        key.push('\u{0}');
    }
}

/// The proctypes that occur more than once among sorted (proctype, location) pairs: those
/// whose order can differ.
fn repeated<'a>(placed: &[(&'a str, &str)]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for w in placed.windows(2) {
        if w[0].0 == w[1].0 && !out.contains(&w[0].0) {
            out.push(w[0].0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deadlock(locs: &[&str]) -> (String, Vec<String>) {
        (
            "invalid end state".to_string(),
            locs.iter().map(|s| s.to_string()).collect(),
        )
    }

    fn grouped(vs: &[(String, Vec<String>)]) -> Vec<Group> {
        group(vs.iter().map(|(m, ls)| Groupable {
            kind: "invalid-end-state",
            message: m,
            location: ls.first().map_or("", |s| s.as_str()),
            locations: ls,
        }))
    }

    #[test]
    fn orderings_of_identical_processes_are_one_deadlock() {
        let a = "m.pml:3:4";
        let b = "m.pml:5:4";
        let vs = vec![
            deadlock(&[
                &format!("Passenger(1) at {a}"),
                &format!("Passenger(2) at {b}"),
            ]),
            deadlock(&[
                &format!("Passenger(1) at {b}"),
                &format!("Passenger(2) at {a}"),
            ]),
            deadlock(&[&format!("Passenger(1) at {a}"), &format!("Car(3) at {b}")]),
        ];
        let g = grouped(&vs);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].members, vec![0, 1]);
        assert_eq!(g[0].note, "2 orderings of Passenger");
        assert_eq!(g[1].members, vec![2]);
        assert_eq!(g[1].note, "");
    }

    #[test]
    fn identical_texts_are_counted() {
        let g = group((0..3).map(|_| Groupable {
            kind: "assertion",
            message: "assertion violated (x)",
            location: "m.pml:9:2",
            locations: &[],
        }));
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].note, "3 times");
    }

    #[test]
    fn words() {
        assert_eq!(
            verdict_words("pass", &["ltl p".into(), "never q".into()]),
            "pass (safety only: ltl p, never q not checked)"
        );
        assert_eq!(verdict_words("pass", &[]), "pass");
        assert_eq!(verdict_words("incomplete", &["ltl p".into()]), "INCOMPLETE");
        assert_eq!(human_bytes(19_100_000_000), "19.1 GB");
        assert_eq!(human_bytes(2_000_000_000), "2.00 GB");
        assert_eq!(human_bytes(512_000), "512 kB");
        assert_eq!(human_bytes(999), "999 B");
        let l = LimitDoc {
            name: "memory".into(),
            value: human_bytes(19_100_000_000),
            origin: "auto: 80% of available".into(),
            raise: "--memory-limit SIZE".into(),
        };
        assert_eq!(
            l.describe(),
            "memory limit 19.1 GB (auto: 80% of available)"
        );
    }
}
