//! The history as one self-contained HTML page: inline style, an inline SVG chart of time and
//! states explored per commit, the table of commits, and each violation with its trail in a
//! `<details>` element. No script, font, image or style sheet is fetched, so the page can be
//! mailed, attached to a CI run or opened from disk. The markup is also well-formed XML (every
//! tag closed, attributes quoted, text escaped), so tools can read it as such.
//!
//! The page is made for a browser to open at once: trails are cut as the text output cuts
//! them (the JSON keeps every step), so that a history whose trails run to 100,000 steps
//! weighs hundreds of kilobytes rather than tens of megabytes, and it fits a window 1280
//! pixels wide (cells wrap, notes go under their row).

use std::fmt::Write;

use super::cells::{
    claim_columns, claim_verdict, date, duration, fate, grouped, grouped_lives, mode, plural, ran,
    speedup, verdict_text,
};
use super::{chart, CommitRow, HistoryDoc, ModelCell, ViolationLife};
use crate::report::verify::{StepDoc, TEXT_TRAIL_STEPS};

/// The page's style: light and dark, the table's figures aligned on their digits, and every
/// column able to give way so that the page fits a window 1280 pixels wide (long words in
/// subjects, notes and trails break anywhere; notes go under their row). It holds no `<` or
/// `&`, so it is also valid as XML character data.
const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --head: #f6f8fa; --fail: #cf222e; --pass: #1a7f37; --incomplete: #9a6700; --error: #8250df;
  --fail-bg: #ffebe9; --incomplete-bg: #fff8c5; --error-bg: #fbefff;
  --bar: #54aeff; --bar-incomplete: #d4a72c; --time: #1f2328; --bg: #ffffff; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --head: #151b23;
    --fail: #ff7b72; --pass: #3fb950; --incomplete: #d29922; --error: #bc8cff;
    --fail-bg: #3c1618; --incomplete-bg: #3a2d0b; --error-bg: #2c1a42;
    --bar: #1f6feb; --bar-incomplete: #bb8009; --time: #e6edf3; --bg: #0d1117; } }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  color: var(--fg); background: var(--bg); margin: 2em auto; max-width: 100em; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid var(--line); }
code, pre, .hash, table.trail td { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas,
  monospace; font-size: 0.92em; }
.summary, .note, footer, .date { color: var(--muted); }
h1, .summary, summary, td.subject, td.notes, table.trail td, pre { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid var(--line); padding: 0.25em 0.5em; vertical-align: top;
  text-align: left; }
th { background: var(--head); }
th.n, td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.subject { min-width: 12em; }
td.model { overflow-wrap: break-word; }
.date { font-size: 0.85em; white-space: nowrap; }
tr.notes td { border-top-style: dotted; padding-left: 1.5em; }
.v { font-weight: 600; white-space: nowrap; }
td.fail { background: var(--fail-bg); }
td.incomplete { background: var(--incomplete-bg); }
td.error { background: var(--error-bg); }
.v-fail, .still, .new { color: var(--fail); }
.v-pass, .fixed { color: var(--pass); }
.v-incomplete { color: var(--incomplete); }
.v-error { color: var(--error); }
.v-absent { color: var(--muted); font-weight: normal; }
details.violation { border: 1px solid var(--line); border-radius: 6px; margin: 0.6em 0;
  padding: 0.4em 0.8em; }
details.violation summary { cursor: pointer; }
.kind { font-weight: 600; }
.life { color: var(--muted); }
table.trail td:first-child { text-align: right; font-variant-numeric: tabular-nums; }
table.trail td.gap { font-family: inherit; text-align: center; color: var(--muted); }
pre.output { margin: 0.3em 0 0; white-space: pre-wrap; }
svg text { fill: var(--fg); font-size: 11px; }
svg .axis, svg .grid { stroke: var(--line); }
svg .bar { fill: var(--bar); }
svg .bar.fail { fill: var(--fail); }
svg .bar.incomplete { fill: var(--bar-incomplete); }
svg .bar.error { fill: var(--error); }
svg .time { stroke: var(--time); fill: none; stroke-width: 1.5; pointer-events: none; }
svg .point { fill: var(--time); stroke: var(--bg); stroke-width: 1.5; }
svg text.hash { font-size: 11px; }
svg text.hash.fail { fill: var(--fail); font-weight: 600; }
svg text.hash.incomplete { fill: var(--incomplete); font-weight: 600; }
svg text.hash.error { fill: var(--error); font-weight: 600; }
svg text.label, svg text.hash.absent { fill: var(--muted); }
"#;

pub fn html(d: &HistoryDoc) -> String {
    let mut o = String::new();
    o.push_str("<!DOCTYPE html>\n");
    o.push_str("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\" xml:lang=\"en\">\n");
    o.push_str("<head>\n<meta charset=\"utf-8\"/>\n");
    o.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    let _ = writeln!(o, "<title>git rmc history: {}</title>", esc(&d.repository));
    let _ = writeln!(o, "<style>{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(
        o,
        "<h1>git rmc history: {}</h1>\n<p class=\"summary\">{}</p>",
        esc(&d.repository),
        esc(&summary(d))
    );

    o.push_str("<section id=\"chart\">\n<h2>Time and states explored</h2>\n");
    o.push_str("<div class=\"scroll\">\n");
    o.push_str(&chart::svg(d));
    o.push_str("</div>\n</section>\n");

    o.push_str("<section id=\"commits\">\n<h2>Commits</h2>\n<div class=\"scroll\">\n");
    commits(&mut o, d);
    o.push_str("</div>\n</section>\n");

    o.push_str("<section id=\"violations\">\n<h2>Violations</h2>\n");
    if d.violations.is_empty() {
        o.push_str("<p class=\"note\">No violations.</p>\n");
    }
    for g in grouped_lives(d) {
        violation(&mut o, d, &d.violations[g.members[0]], &g.note);
    }
    o.push_str("</section>\n");
    o.push_str("<footer><p>Written by git rmc.</p></footer>\n</body>\n</html>\n");
    o
}

fn summary(d: &HistoryDoc) -> String {
    let mut s = format!(
        "{}; models: {}",
        plural(d.commits.len(), "commit"),
        if d.models.is_empty() {
            "none".to_string()
        } else {
            d.models.join(", ")
        }
    );
    if let (Some(first), Some(last)) = (d.commits.first(), d.commits.last()) {
        let _ = write!(
            s,
            "; from {} ({}) to {} ({})",
            first.short,
            date(first.time),
            last.short,
            date(last.time)
        );
    }
    let still = d.violations.iter().filter(|v| v.fixed_in.is_none()).count();
    let _ = write!(
        s,
        "; {}, {still} still present.",
        plural(d.violations.len(), "violation")
    );
    s
}

fn commits(o: &mut String, d: &HistoryDoc) {
    let several = d.models.len() > 1;
    o.push_str("<table class=\"commits\">\n<thead><tr><th>commit, date (UTC)</th><th>subject</th>");
    if several {
        o.push_str("<th>model</th>");
    }
    o.push_str("<th>verdict</th>");
    // A column per claim where a model checks several (`claim_columns`), after the verdict.
    let claims = claim_columns(d);
    for c in &claims {
        let _ = write!(o, "<th>{}</th>", esc(c));
    }
    o.push_str("<th>mode</th>");
    for h in [
        "explored",
        "stored",
        "reused",
        "full check",
        "time",
        "speed-up",
    ] {
        let _ = write!(o, "<th class=\"n\">{h}</th>");
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    // The columns a model's row has after the commit's own two.
    let columns = if several { 9 } else { 8 } + claims.len();
    for c in &d.commits {
        let notes: Vec<String> = c.models.iter().map(notes).collect();
        let rows = c.models.len().max(1) + notes.iter().filter(|n| !n.is_empty()).count();
        let _ = write!(o, "<tr id=\"{}\">", anchor(c));
        // The commit's own cells span its models' rows and their notes.
        let rowspan = if rows > 1 {
            format!(" rowspan=\"{rows}\"")
        } else {
            String::new()
        };
        let _ = write!(
            o,
            "<td{rowspan}><code class=\"hash\" title=\"{}\">{}</code>\
             <div class=\"date\">{}</div></td><td{rowspan} class=\"subject\">{}</td>",
            esc(&c.commit),
            esc(&c.short),
            esc(&date(c.time)),
            esc(&c.subject)
        );
        if c.models.is_empty() {
            let _ = writeln!(
                o,
                "<td colspan=\"{columns}\" class=\"note\">not checked</td></tr>"
            );
        }
        for (i, (m, notes)) in c.models.iter().zip(&notes).enumerate() {
            if i > 0 {
                o.push_str("<tr>");
            }
            if several {
                let _ = write!(o, "<td class=\"model\">{}</td>", path(&m.model));
            }
            cell(o, m, &claims);
            o.push_str("</tr>\n");
            // Notes (a diagnostic, the violations found) go under the row, across its
            // columns, so that a long one widens nothing.
            if !notes.is_empty() {
                let _ = writeln!(
                    o,
                    "<tr class=\"notes\"><td colspan=\"{columns}\" class=\"notes\">{notes}</td></tr>"
                );
            }
        }
    }
    o.push_str("</tbody>\n</table>\n");
}

/// The verdict, each claim column's verdict, the mode and figures of one model at one commit.
fn cell(o: &mut String, m: &ModelCell, claims: &[String]) {
    let class = verdict_class(m.verdict.as_str());
    let _ = write!(
        o,
        "<td class=\"verdict {class}\"><span class=\"v v-{class}\">{}</span></td>",
        esc(&verdict_text(m))
    );
    for c in claims {
        match m.claims.iter().find(|x| &x.claim == c).filter(|_| ran(m)) {
            Some(x) => {
                let class = verdict_class(x.verdict.as_str());
                let _ = write!(
                    o,
                    "<td class=\"verdict {class}\"><span class=\"v v-{class}\">{}</span></td>",
                    esc(&claim_verdict(m, c))
                );
            }
            None => o.push_str("<td>-</td>"),
        }
    }
    if ran(m) {
        let _ = write!(o, "<td>{}</td>", esc(&mode(m)));
        let full = m.full_states.map(grouped).unwrap_or_default();
        for n in [
            grouped(m.states_explored),
            grouped(m.states_stored),
            grouped(m.states_reused),
            full,
            duration(m.elapsed_ms),
            speedup(m.speedup),
        ] {
            let _ = write!(o, "<td class=\"n\">{}</td>", esc(&n));
        }
    } else {
        // Not searched: no figures, whatever zeros the cell holds.
        o.push_str("<td></td>");
        for _ in 0..6 {
            o.push_str("<td class=\"n\"></td>");
        }
    }
}

/// The class of a verdict in the table and the chart; one the page does not know is
/// "other", so that nothing a document holds becomes a class name.
pub(super) fn verdict_class(verdict: &str) -> &str {
    match verdict {
        v @ ("pass" | "fail" | "incomplete" | "error" | "absent") => v,
        _ => "other",
    }
}

/// What the table says under a model's row: the diagnostic of a model that does not load,
/// the violations found new there, and how many are still present; empty when none.
fn notes(m: &ModelCell) -> String {
    let mut o = String::new();
    if let Some(e) = &m.error {
        let _ = write!(o, "<div class=\"v-error\">{}</div>", esc(e));
    }
    if let Some(l) = &m.limit {
        let _ = write!(
            o,
            "<div class=\"v-incomplete\">incomplete: {}</div>",
            esc(l)
        );
    }
    for v in m.violations.iter().filter(|v| v.status == "new") {
        let _ = write!(
            o,
            "<div><span class=\"new\">new</span> {} at <code>{}</code>: {}</div>",
            esc(&v.kind),
            path(&v.location),
            esc(&v.message)
        );
    }
    let still = m.violations.iter().filter(|v| v.status != "new").count();
    if still > 0 {
        let _ = write!(o, "<div>{still} still present</div>");
    }
    o
}

/// A path, escaped, with a line-break opportunity after each `/`, so that a long one wraps
/// between its folders rather than anywhere.
fn path(p: &str) -> String {
    esc(p).replace('/', "/<wbr/>")
}

/// One violation with its trail; `note` says how many it stands for (`3 orderings of P`).
fn violation(o: &mut String, d: &HistoryDoc, v: &ViolationLife, note: &str) {
    let note = if note.is_empty() {
        String::new()
    } else {
        format!(" ({})", esc(note))
    };
    let model = if d.models.len() > 1 {
        format!("{}: ", esc(&v.model))
    } else {
        String::new()
    };
    let (fate_class, fate_text) = match &v.fixed_in {
        Some(c) => ("fixed", format!("fixed in {}", commit_link(d, c))),
        None => ("still", esc(&fate(v))),
    };
    let _ = writeln!(
        o,
        "<details class=\"violation\">\n<summary><span class=\"kind\">{}</span> {} at \
         <code>{}</code>{note} <span class=\"life\">({model}first seen in {}, \
         <span class=\"{fate_class}\">{fate_text}</span>)</span></summary>",
        esc(&v.kind),
        esc(&v.message),
        esc(&v.location),
        commit_link(d, &v.first_seen),
    );
    match &v.trail {
        None => o.push_str(
            "<p class=\"note\">No trail was kept for this violation (see --max-trails).</p>\n",
        ),
        Some(steps) => trail(o, &v.first_seen, steps),
    }
    o.push_str("</details>\n");
}

/// A trail, cut as the text output cuts it: a trail longer than `TEXT_TRAIL_STEPS` shows its
/// first and last halves of that, and says how many steps are left out between them and
/// where the whole trail is (the JSON keeps every step). A trail of 100,000 steps in full
/// would weigh tens of megabytes, more than a browser opens in comfort.
fn trail(o: &mut String, first_seen: &str, steps: &[StepDoc]) {
    let total = steps.last().map_or(0, |s| s.step);
    let head = TEXT_TRAIL_STEPS / 2;
    let tail = TEXT_TRAIL_STEPS - head;
    let shown: Vec<&StepDoc> = if steps.len() > TEXT_TRAIL_STEPS {
        steps[..head]
            .iter()
            .chain(&steps[steps.len() - tail..])
            .collect()
    } else {
        steps.iter().collect()
    };
    let _ = write!(
        o,
        "<p class=\"note\">Trail at {}: {}.",
        esc(first_seen),
        plural_steps(total)
    );
    if shown.len() < steps.len() {
        let _ = write!(
            o,
            " Its first {head} and last {tail} are shown here; <code>{JSON}</code> gives them all."
        );
    }
    o.push_str("</p>\n");
    o.push_str(
        "<table class=\"trail\">\n<thead><tr><th class=\"n\">step</th><th>process</th>\
         <th>location</th><th>statement</th><th>changed</th></tr></thead>\n<tbody>\n",
    );
    let mut next = 1;
    for s in shown {
        // Steps left out (here, or by a window the trail was replayed with): say how many.
        if s.step > next {
            let _ = writeln!(
                o,
                "<tr><td colspan=\"5\" class=\"gap\">… {} left out \
                 (<code>{JSON}</code> gives the whole trail) …</td></tr>",
                plural_steps(s.step - next)
            );
        }
        next = s.step + 1;
        let changed: Vec<String> = s.changed.iter().map(|(k, v)| format!("{k}={v}")).collect();
        // Plain cells (the style sets the columns' fonts): a trail has hundreds of rows.
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}({})</td><td>{}</td><td>{}",
            s.step,
            esc(&s.proc),
            s.pid,
            esc(&s.location),
            esc(&s.statement)
        );
        if let Some(out) = &s.output {
            let _ = write!(o, "<pre class=\"output\">{}</pre>", esc(out));
        }
        let _ = writeln!(o, "</td><td>{}</td></tr>", esc(&changed.join(", ")));
    }
    o.push_str("</tbody>\n</table>\n");
}

/// The command whose output holds every step of every trail.
const JSON: &str = "git rmc history --format json";

/// `1 step`, `123,051 steps`.
fn plural_steps(n: usize) -> String {
    let count = grouped(n as u64);
    if n == 1 {
        format!("{count} step")
    } else {
        format!("{count} steps")
    }
}

/// The id of a commit's first row, for links from the violations.
fn anchor(c: &CommitRow) -> String {
    format!("commit-{}", esc(&c.commit))
}

/// A short commit as code, linked to its row when the table has it.
fn commit_link(d: &HistoryDoc, short: &str) -> String {
    match d.commits.iter().find(|c| c.short == short) {
        Some(c) => format!("<a href=\"#{}\"><code>{}</code></a>", anchor(c), esc(short)),
        None => format!("<code>{}</code>", esc(short)),
    }
}

/// Text for element content and attribute values alike: the five characters XML reserves as
/// references, and the control characters that XML 1.0 forbids (and HTML reports as errors) as
/// U+FFFD, so that no subject or message can end an element, an attribute or the document.
/// Line breaks and tabs stay: they are whitespace to both.
pub(super) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
