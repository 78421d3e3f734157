//! The history as a terminal table in the manner of cargo and git: a row per commit and model
//! with its verdict, mode, figures, time and speed-up, then each violation with the commit
//! that introduced it and the one that fixed it.

use std::fmt::Write;

use super::cells::{
    claim_columns, claim_verdict, compact, duration, fate, grouped_lives, one_line, plural, ran,
    speedup, truncate, verdict_text,
};
use super::{HistoryDoc, ModelCell};

/// The width the table aims at: the subject takes what the other columns leave of it.
const WIDTH: usize = 100;
/// Narrower than this, a subject says too little to be worth the wrap it saves.
const MIN_SUBJECT: usize = 16;
const GAP: &str = "  ";

#[derive(Clone, Copy, PartialEq)]
enum Align {
    Left,
    Right,
}

struct Row {
    cells: Vec<String>,
    /// The cell's verdict, to colour its column.
    verdict: String,
    /// A model that does not load: its diagnostic, printed under the row; a search a limit
    /// cut: which limit, printed there too.
    error: Option<String>,
}

/// The table, then the violations. `color` adds ANSI colours to verdicts and to whether each
/// violation is fixed; the caller decides it (a terminal, no `NO_COLOR`).
pub fn text(d: &HistoryDoc, color: bool) -> String {
    let several = d.models.len() > 1;
    let mut columns = vec![("commit", Align::Left), ("subject", Align::Left)];
    if several {
        columns.push(("model", Align::Left));
    }
    let verdict_col = columns.len();
    // A column per claim where a model checks several (`claim_columns`), after the verdict.
    let claims = claim_columns(d);
    columns.push(("verdict", Align::Left));
    columns.extend(claims.iter().map(|c| (c.as_str(), Align::Left)));
    columns.extend([
        ("mode", Align::Left),
        ("explored", Align::Right),
        ("stored", Align::Right),
        ("reused", Align::Right),
        ("time", Align::Right),
        ("speed-up", Align::Right),
    ]);

    let mut rows = Vec::new();
    for c in &d.commits {
        let subject = one_line(&c.subject);
        if c.models.is_empty() {
            let mut cells = vec![c.short.clone(), subject];
            cells.resize(columns.len(), String::new());
            cells[verdict_col] = "-".to_string();
            rows.push(Row {
                cells,
                verdict: String::new(),
                error: None,
            });
            continue;
        }
        for (i, m) in c.models.iter().enumerate() {
            // The commit and its subject head its first row only: the rows under it are the
            // same commit's other models.
            let (short, subject) = if i == 0 {
                (c.short.clone(), subject.clone())
            } else {
                (String::new(), String::new())
            };
            let mut cells = vec![short, subject];
            if several {
                cells.push(one_line(&m.model));
            }
            let [verdict, rest @ ..] = figures(m);
            cells.push(verdict);
            cells.extend(claims.iter().map(|c| match ran(m) {
                true => claim_verdict(m, c),
                false => String::new(),
            }));
            cells.extend(rest);
            rows.push(Row {
                cells,
                verdict: m.verdict.as_str().to_string(),
                error: m
                    .error
                    .as_deref()
                    .map(|e| format!("error: {}", one_line(e)))
                    .or_else(|| {
                        m.limit
                            .as_deref()
                            .map(|l| format!("incomplete: {}", one_line(l)))
                    }),
            });
        }
    }

    let mut widths: Vec<usize> = columns.iter().map(|(t, _)| t.len()).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(&r.cells) {
            *w = (*w).max(c.chars().count());
        }
    }
    let others: usize = widths
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 1)
        .map(|(_, w)| w + GAP.len())
        .sum();
    widths[1] = WIDTH.saturating_sub(others).max(MIN_SUBJECT).min(widths[1]);
    for r in &mut rows {
        r.cells[1] = truncate(&r.cells[1], widths[1]);
    }

    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {}, {}",
        one_line(&d.repository),
        plural(d.commits.len(), "commit"),
        plural(d.models.len(), "model")
    );
    let titles: Vec<String> = columns.iter().map(|(t, _)| t.to_string()).collect();
    line(&mut o, &titles, &columns, &widths, None);
    for r in &rows {
        let paint = (color && !r.verdict.is_empty()).then_some((verdict_col, r.verdict.as_str()));
        line(&mut o, &r.cells, &columns, &widths, paint);
        if let Some(e) = &r.error {
            let _ = writeln!(o, "{}{e}", " ".repeat(widths[0] + GAP.len()));
        }
    }

    let _ = writeln!(o);
    if d.violations.is_empty() {
        let _ = writeln!(o, "no violations");
        return o;
    }
    let _ = writeln!(o, "violations:");
    for g in grouped_lives(d) {
        let v = &d.violations[g.members[0]];
        let note = if g.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", g.note)
        };
        let _ = writeln!(
            o,
            "  {} [{}] at {}{note}",
            one_line(&v.message),
            one_line(&v.kind),
            one_line(&v.location)
        );
        let model = if several {
            format!("{}: ", one_line(&v.model))
        } else {
            String::new()
        };
        let fate = match (color, v.fixed_in.is_some()) {
            (false, _) => fate(v),
            (true, true) => paint("32", &fate(v)),
            (true, false) => paint("31", &fate(v)),
        };
        let _ = writeln!(o, "    {model}first seen in {}, {fate}", v.first_seen);
    }
    o
}

/// The verdict, mode and figures of one cell. A model that was not searched shows its verdict
/// alone: its zeros are not figures.
fn figures(m: &ModelCell) -> [String; 7] {
    let verdict = verdict_text(m);
    if !ran(m) {
        let mut cells: [String; 7] = Default::default();
        cells[0] = verdict;
        return cells;
    }
    [
        verdict,
        m.mode.clone(),
        compact(m.states_explored),
        compact(m.states_stored),
        compact(m.states_reused),
        duration(m.elapsed_ms),
        speedup(m.speedup),
    ]
}

/// One row, padded to the columns' widths; `paint_verdict` colours one column's verdict. The padding
/// goes outside the colour codes, which take no room on the screen.
fn line(
    o: &mut String,
    cells: &[String],
    columns: &[(&str, Align)],
    widths: &[usize],
    paint_verdict: Option<(usize, &str)>,
) {
    let mut s = String::new();
    for (i, ((cell, (_, align)), w)) in cells.iter().zip(columns).zip(widths).enumerate() {
        if i > 0 {
            s.push_str(GAP);
        }
        let pad = " ".repeat(w.saturating_sub(cell.chars().count()));
        let shown = match paint_verdict {
            Some((col, verdict)) if col == i => paint(colour(verdict), cell),
            _ => cell.clone(),
        };
        match align {
            Align::Left => {
                s.push_str(&shown);
                s.push_str(&pad);
            }
            Align::Right => {
                s.push_str(&pad);
                s.push_str(&shown);
            }
        }
    }
    let _ = writeln!(o, "{}", s.trim_end());
}

/// The SGR code of a verdict: red for failures, yellow for incomplete runs (not a pass), green
/// for passes, magenta for models that do not load, dim for absent ones.
fn colour(verdict: &str) -> &'static str {
    match verdict {
        "fail" => "1;31",
        "incomplete" => "1;33",
        "pass" => "32",
        "error" => "35",
        _ => "2",
    }
}

fn paint(code: &str, s: &str) -> String {
    format!("\x1b[{code}m{s}\x1b[0m")
}
