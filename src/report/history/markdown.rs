//! The history as GitHub-flavoured Markdown (a pull request's comment, a job summary): a
//! heading, a table of commits and a table of violations, every piece of user text escaped so
//! that it reads as written and cannot break a table or open an HTML tag.

use std::fmt::Write;

use super::cells::{
    claim_columns, claim_verdict, duration, fate, grouped, grouped_lives, mode, one_line, plural,
    ran, speedup, verdict_label, verdict_text,
};
use super::{HistoryDoc, ModelCell};

pub fn markdown(d: &HistoryDoc) -> String {
    let several = d.models.len() > 1;
    let mut o = String::new();
    let _ = writeln!(o, "## git rmc history: {}\n", md(&d.repository));
    let still = d.violations.iter().filter(|v| v.fixed_in.is_none()).count();
    let _ = writeln!(
        o,
        "{}, {}; {}, {still} still present.\n",
        plural(d.commits.len(), "commit"),
        plural(d.models.len(), "model"),
        plural(d.violations.len(), "violation")
    );

    let mut head = vec!["commit", "subject"];
    let mut rule = vec![":--", ":--"];
    if several {
        head.push("model");
        rule.push(":--");
    }
    // A column per claim where a model checks several (`claim_columns`), after the verdict.
    let claims = claim_columns(d);
    head.push("verdict");
    rule.push(":--");
    head.extend(claims.iter().map(String::as_str));
    rule.extend(claims.iter().map(|_| ":--"));
    head.extend([
        "mode", "explored", "stored", "reused", "time", "speed-up", "notes",
    ]);
    rule.extend([":--", "--:", "--:", "--:", "--:", "--:", ":--"]);
    row(&mut o, head.iter().map(|s| s.to_string()));
    row(&mut o, rule.iter().map(|s| s.to_string()));
    for c in &d.commits {
        let commit = hash(&c.short);
        let subject = md(&c.subject);
        if c.models.is_empty() {
            let mut cells = vec![commit, subject];
            cells.resize(head.len(), String::new());
            cells[if several { 3 } else { 2 }] = "not checked".to_string();
            row(&mut o, cells);
            continue;
        }
        for (i, m) in c.models.iter().enumerate() {
            // Later rows of a commit are its other models: the commit heads the first only.
            let mut cells = if i == 0 {
                vec![commit.clone(), subject.clone()]
            } else {
                vec![String::new(), String::new()]
            };
            if several {
                cells.push(md(&m.model));
            }
            let mut figures = figures(m).into_iter();
            cells.extend(figures.next());
            cells.extend(claims.iter().map(|c| {
                let v = claim_verdict(m, c);
                match (ran(m), v.as_str()) {
                    (false, _) => String::new(),
                    (true, "FAIL" | "INCOMPLETE") => format!("**{v}**"),
                    (true, _) => md(&v),
                }
            }));
            cells.extend(figures);
            row(&mut o, cells);
        }
    }

    if d.violations.is_empty() {
        let _ = writeln!(o, "\nNo violations.");
        return o;
    }
    let _ = writeln!(o, "\n### Violations\n");
    let mut head = vec![];
    if several {
        head.push("model");
    }
    head.extend(["kind", "location", "message", "first seen", "fixed"]);
    row(&mut o, head.iter().map(|s| s.to_string()));
    row(&mut o, head.iter().map(|_| ":--".to_string()));
    for g in grouped_lives(d) {
        let v = &d.violations[g.members[0]];
        let mut cells = vec![];
        if several {
            cells.push(md(&v.model));
        }
        let message = if g.note.is_empty() {
            md(&v.message)
        } else {
            format!("{} ({})", md(&v.message), md(&g.note))
        };
        cells.extend([
            md(&v.kind),
            md(&v.location),
            message,
            hash(&v.first_seen),
            match &v.fixed_in {
                Some(c) => format!("fixed in {}", hash(c)),
                None => md(&fate(v)),
            },
        ]);
        row(&mut o, cells);
    }
    o
}

/// Verdict, mode, figures and notes of one cell. Figures are exact here: a rendered table has
/// room for every digit.
fn figures(m: &ModelCell) -> Vec<String> {
    let verdict = match m.verdict.as_str() {
        "fail" | "incomplete" | "error" => format!("**{}**", verdict_label(m.verdict.as_str())),
        _ => md(&verdict_text(m)),
    };
    let notes = match (&m.error, &m.limit) {
        (Some(e), _) => md(e),
        (None, Some(l)) => format!("incomplete: {}; {}", md(l), notes(m)),
        (None, None) => notes(m),
    };
    if !ran(m) {
        let mut cells = vec![String::new(); 8];
        cells[0] = verdict;
        cells[7] = notes;
        return cells;
    }
    vec![
        verdict,
        md(&mode(m)),
        grouped(m.states_explored),
        grouped(m.states_stored),
        grouped(m.states_reused),
        duration(m.elapsed_ms),
        speedup(m.speedup),
        notes,
    ]
}

/// The violations a cell found: the new ones by name, the ones carried from before counted.
fn notes(m: &ModelCell) -> String {
    let mut parts: Vec<String> = m
        .violations
        .iter()
        .filter(|v| v.status == "new")
        .map(|v| format!("new {} at {}", md(&v.kind), md(&v.location)))
        .collect();
    let still = m.violations.iter().filter(|v| v.status != "new").count();
    if still > 0 {
        parts.push(format!("{still} still present"));
    }
    parts.join("; ")
}

fn row(o: &mut String, cells: impl IntoIterator<Item = String>) {
    let cells: Vec<String> = cells.into_iter().collect();
    let _ = writeln!(o, "| {} |", cells.join(" | "));
}

/// A commit id as code; anything but hex digits (which the command never gives) as text.
fn hash(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit()) {
        format!("`{s}`")
    } else {
        md(s)
    }
}

/// User text escaped for a table cell: on one line, with a backslash before each character
/// that Markdown or GitHub would read as markup (`|` ends a cell, `<` opens an HTML tag, `*`,
/// `_`, `` ` ``, `~`, `[` format or link, `&` starts an entity).
fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).chars() {
        if matches!(
            c,
            '\\' | '|' | '<' | '>' | '*' | '_' | '`' | '~' | '[' | ']' | '&'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
