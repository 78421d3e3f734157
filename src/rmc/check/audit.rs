//! `--audit`: a check beside a full check of the same version with the same base. Verdicts
//! and violations (by identity) must agree, and for a full run or a replay every SPIN
//! figure; where a limit cut either search, what the cut one found must be found by the
//! complete one.

use super::identity::new_against;
use super::{Algorithm, Checked, Mode};

/// What the audit makes of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Audit {
    Agrees,
    /// Nothing that could differ: a limit cut a search.
    NotCompared(String),
    /// A bug: the check that ran is not what a full check says.
    Differs(String),
}

/// `ran` against `full`, a full check of the same version.
pub fn audit(ran: &Checked, full: &Checked) -> Audit {
    if !(ran.complete() && full.complete()) {
        return audit_cut(ran, full);
    }
    let (a, b) = (ran.keys(), full.keys());
    let same_set = a.len() == b.len() && new_against(&a, &b).iter().all(|&n| !n);
    if ran.verdict != full.verdict {
        return Audit::Differs(format!(
            "verdict {} but a full check says {}",
            ran.verdict.as_str(),
            full.verdict.as_str()
        ));
    }
    if !same_set {
        return Audit::Differs(format!(
            "{} violations but a full check finds {} (or others)",
            a.len(),
            b.len()
        ));
    }
    // A replay's figures are a full check's, exactly, as a full run's are.
    if ran.mode == Mode::Full || ran.algorithm == Algorithm::Replay {
        let fig = crate::explore::Stats::spin_figures;
        if fig(&ran.stats) != fig(&full.stats) {
            return Audit::Differs(format!(
                "figures {:?} but a full check gives {:?}",
                fig(&ran.stats),
                fig(&full.stats)
            ));
        }
    }
    Audit::Agrees
}

/// The audit of two checks at least one of which a limit cut. Where a search stops depends
/// on what it holds (an incremental run also holds its base record, so a memory limit cuts
/// it sooner), so a cut run's figures and violations are a part of a full check's, not
/// equal to them, and its verdict is never a pass. What it found must still be found by a
/// search that saw everything: each of its violations, by identity.
fn audit_cut(ran: &Checked, full: &Checked) -> Audit {
    let cut = |c: &Checked| c.limit.map_or("a", |(l, _)| l.as_str()).to_string();
    let (part, whole, which) = match (ran.complete(), full.complete()) {
        (false, false) => {
            return Audit::NotCompared(format!(
                "not compared: a limit cut both this check ({}) and the full check ({})",
                cut(ran),
                cut(full)
            ))
        }
        (false, true) => (ran, full, "this check"),
        _ => (full, ran, "the full check"),
    };
    let part_keys: Vec<_> = part.found.iter().map(|f| f.key.clone()).collect();
    let unknown = new_against(&part_keys, &whole.keys());
    if let Some(f) = part
        .found
        .iter()
        .zip(&unknown)
        .find(|(_, &n)| n)
        .map(|(f, _)| f)
    {
        return Audit::Differs(format!(
            "{which}, cut by its {} limit, found a {} violation ({}) that a complete search \
             does not find",
            cut(part),
            f.kind.as_str(),
            f.message
        ));
    }
    Audit::NotCompared(format!(
        "not compared: {which} was cut by its {} limit (what it found, a complete search \
         finds too)",
        cut(part)
    ))
}
