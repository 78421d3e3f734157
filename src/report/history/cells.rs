//! The words and figures a history cell shows, shared by the text, Markdown and HTML
//! renderings so that the three agree: verdict labels, compact and grouped counts, times,
//! speed-ups, dates, and user text flattened to one line.

use super::{ModelCell, ViolationLife};
use crate::report::verify::ModelVerdict;

/// The verdict as the table shows it: failures and incomplete runs in capitals, so they stand
/// out in a column of passes (as `verify` prints them).
pub fn verdict_label(verdict: &str) -> &str {
    match verdict {
        "fail" => "FAIL",
        "incomplete" => "INCOMPLETE",
        v => v,
    }
}

/// The verdict a cell shows: as `verdict_label`, and a pass that did not check the model's
/// claims says so (`pass (safety only: ltl p not checked)`; with many, how many).
pub fn verdict_text(c: &ModelCell) -> String {
    if c.verdict == ModelVerdict::Pass && !c.claims_not_checked.is_empty() {
        let words = crate::report::verdict::verdict_words("pass", &c.claims_not_checked);
        if words.chars().count() <= 44 {
            return words;
        }
        return format!(
            "pass (safety only: {} claims not checked)",
            c.claims_not_checked.len()
        );
    }
    if c.verdict == ModelVerdict::Fail && !c.failed.is_empty() {
        return format!("FAIL ({})", c.failed.join(", "));
    }
    verdict_label(c.verdict.as_str()).to_string()
}

/// The claims that get a column of their own: where some model checked several claims at
/// some commit, every claim checked in the history (in the order first met); otherwise none
/// (a model's one claim shows in its verdict, `FAIL (ltl p)`).
pub fn claim_columns(d: &super::HistoryDoc) -> Vec<String> {
    let cells = || d.commits.iter().flat_map(|c| &c.models);
    if !cells().any(|m| m.claims.len() > 1) {
        return Vec::new();
    }
    let mut names: Vec<String> = Vec::new();
    for c in cells().flat_map(|m| &m.claims) {
        if !names.contains(&c.claim) {
            names.push(c.claim.clone());
        }
    }
    names
}

/// A cell of claim column `claim`: that claim's verdict at this commit, or `-` where the
/// model has no such claim or it was not checked.
pub fn claim_verdict(m: &ModelCell, claim: &str) -> String {
    m.claims
        .iter()
        .find(|c| c.claim == claim)
        .map_or("-".to_string(), |c| {
            verdict_label(c.verdict.as_str()).to_string()
        })
}

/// The violations of a history as people would count them: those of one model, introduced
/// and fixed at the same commits, that repeat by symmetry (see `report::verdict::group`)
/// are one, with a note (`6 orderings of Passenger`).
pub fn grouped_lives(d: &super::HistoryDoc) -> Vec<crate::report::verdict::Group> {
    let keys: Vec<String> = d
        .violations
        .iter()
        .map(|v| {
            format!(
                "{}\u{0}{}\u{0}{:?}\u{0}{}",
                v.model, v.first_seen, v.fixed_in, v.message
            )
        })
        .collect();
    crate::report::verdict::group(d.violations.iter().zip(&keys).map(|(v, k)| {
        crate::report::verdict::Groupable {
            kind: &v.kind,
            message: k,
            location: &v.location,
            locations: &v.locations,
        }
    }))
}

/// The mode, with the algorithm when it says more (`incremental (prune)`).
pub fn mode(c: &ModelCell) -> String {
    if c.algorithm.is_empty() || c.algorithm == c.mode {
        c.mode.clone()
    } else {
        format!("{} ({})", c.mode, c.algorithm)
    }
}

/// Whether the cell's figures mean anything: a model that does not load or is not there was
/// not searched, so its zeros are not results.
pub fn ran(c: &ModelCell) -> bool {
    c.verdict.ran()
}

/// A count in at most five or six characters (`9999`, `12.3k`, `456k`, `1.2M`), for the
/// terminal table and the chart's axis.
pub fn compact(n: u64) -> String {
    if n < 10_000 {
        return n.to_string();
    }
    let mut v = n as f64;
    for unit in ["k", "M", "G", "T", "P", "E"] {
        v /= 1000.0;
        // Decide on the rounded value, so that 99,960 reads 100k and not 100.0k.
        if format!("{v:.1}").len() <= 4 {
            return format!("{v:.1}{unit}");
        }
        if v < 999.5 {
            return format!("{v:.0}{unit}");
        }
    }
    // u64::MAX is 18.4E: the loop has returned.
    n.to_string()
}

/// A count with thousands separators (`1,234,567`), where there is room for every digit.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A duration: milliseconds below a second, then seconds, then minutes and seconds.
pub fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.2} s", ms as f64 / 1000.0)
    } else {
        let s = ms / 1000;
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// A speed-up factor (`4.0x`, `120x`); a check slower than a full one says so (`2.5x
/// slower`); nothing when it is unknown or not a number.
pub fn speedup(s: Option<f64>) -> String {
    match s {
        Some(f) if f.is_finite() && f > 0.0 && f < 0.95 => {
            let slower = 1.0 / f;
            if slower < 99.95 {
                format!("{slower:.1}x slower")
            } else {
                format!("{slower:.0}x slower")
            }
        }
        Some(f) if f.is_finite() && f >= 0.0 => {
            if f < 99.95 {
                format!("{f:.1}x")
            } else {
                format!("{f:.0}x")
            }
        }
        _ => String::new(),
    }
}

/// `1 commit`, `2 commits`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Where a violation's life ended, as the reports word it.
pub fn fate(v: &ViolationLife) -> String {
    match &v.fixed_in {
        Some(c) => format!("fixed in {c}"),
        None => "still present".to_string(),
    }
}

/// User text (subjects, messages, statements) on one line: line breaks, tabs and other
/// control characters become spaces, so a subject can neither break a table's rows nor send
/// escape sequences to the terminal.
pub fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `s` cut to `width` characters, with an ellipsis in the last one when it was cut.
pub fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `YYYY-MM-DD HH:MM` (UTC) of a time in seconds since the epoch; `@seconds` outside the years
/// 0 to 9999, which only a forged commit has (and which would cost `civil` a long walk).
pub fn date(t: i64) -> String {
    if !(-62_167_219_200..253_402_300_800).contains(&t) {
        return format!("@{t}");
    }
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// The Gregorian date (year, month, day) of a day number, 0 being 1970-01-01. Walking the
/// years is a few dozen steps for any commit's date, and plainly right.
fn civil(mut days: i64) -> (i64, i64, i64) {
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let mut y = 1970;
    while days < 0 {
        y -= 1;
        days += if leap(y) { 366 } else { 365 };
    }
    loop {
        let len = if leap(y) { 366 } else { 365 };
        if days < len {
            break;
        }
        days -= len;
        y += 1;
    }
    let feb = if leap(y) { 29 } else { 28 };
    let mut m = 1;
    for len in [31, feb, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] {
        if days < len {
            break;
        }
        days -= len;
        m += 1;
    }
    (y, m, days + 1)
}
