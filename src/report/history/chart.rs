//! The HTML page's chart as inline SVG: per commit, oldest on the left, a bar of the states
//! explored (left axis) and a point of the time taken (right axis, joined by a line), labelled
//! with the short hash. A bar and its label take the colour of the commit's worst verdict
//! (a model fails, a check is incomplete, a model does not load, all pass), and a legend names
//! the colours. Each commit's group has a tooltip (`<title>`) with its figures, so the chart
//! needs no script. The chart fits a window 1280 pixels wide up to about 70 commits (their
//! labels stand on end when they are closer than a hash is wide); a longer history scrolls
//! within its box, never the page.

use std::fmt::Write;

use super::cells::{compact, duration, one_line, ran};
use super::html::{esc, verdict_class};
use super::HistoryDoc;

/// Horizontal room per commit when there is room: a 7-character hash in 11-pixel monospace
/// and some air.
const STEP: f64 = 64.0;
/// The least room per commit: a label on end and a bar beside its neighbours.
const MIN_STEP: f64 = 16.0;
/// The widest plot that keeps the chart inside a 1280-pixel window (with the axes' labels,
/// the page's margins and a scroll bar).
const MAX_PLOT: f64 = 1060.0;
/// The plot's least width, so that a history of one or two commits is not a sliver and the
/// legend has room.
const MIN_PLOT: f64 = 480.0;
/// The widest bar, so that a short history's bars are not slabs.
const MAX_BAR: f64 = 36.0;
const PLOT_H: f64 = 200.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 72.0;
/// Room above the plot: the legend and the axes' names.
const TOP: f64 = 52.0;
/// Room below the plot for labels written across, and for labels on end.
const BOTTOM: f64 = 36.0;
const BOTTOM_ON_END: f64 = 64.0;

/// What the chart shows of one commit: the sums over its models that were searched.
struct Point {
    explored: u64,
    /// None when no model was searched there (absent, or does not load): a gap in the line.
    ms: Option<u64>,
    /// The class of the commit's worst verdict: "fail", "incomplete", "error", "absent"
    /// (no model there), or "" when every model present passes.
    status: &'static str,
}

/// The worst of a commit's verdicts, as a class.
fn status(verdicts: &[&str]) -> &'static str {
    for worst in ["fail", "incomplete", "error"] {
        if verdicts.contains(&worst) {
            return worst;
        }
    }
    if verdicts.iter().all(|v| *v == "absent") {
        return "absent";
    }
    ""
}

pub fn svg(d: &HistoryDoc) -> String {
    let points: Vec<Point> = d
        .commits
        .iter()
        .map(|c| {
            let searched: Vec<_> = c.models.iter().filter(|m| ran(m)).collect();
            let verdicts: Vec<&str> = c
                .models
                .iter()
                .map(|m| verdict_class(m.verdict.as_str()))
                .collect();
            Point {
                explored: searched
                    .iter()
                    .fold(0u64, |a, m| a.saturating_add(m.states_explored)),
                ms: (!searched.is_empty()).then(|| {
                    searched
                        .iter()
                        .fold(0u64, |a, m| a.saturating_add(m.elapsed_ms))
                }),
                status: status(&verdicts),
            }
        })
        .collect();
    let n = points.len().max(1) as f64;
    let step = (MAX_PLOT / n).clamp(MIN_STEP, STEP);
    let plot_w = (n * step).max(MIN_PLOT);
    let step = plot_w / n;
    // A hash is about 46 pixels wide: closer than that, the labels stand on end.
    let on_end = step < 56.0;
    let width = LEFT + plot_w + RIGHT;
    let height = TOP + PLOT_H + if on_end { BOTTOM_ON_END } else { BOTTOM };
    let states_axis = Axis::new(points.iter().map(|p| p.explored).max().unwrap_or(0));
    let time_axis = Axis::new(points.iter().filter_map(|p| p.ms).max().unwrap_or(0));
    let x = |i: usize| LEFT + step * (i as f64 + 0.5);
    let bottom = TOP + PLOT_H;

    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{width:.0}\" \
         height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" \
         aria-label=\"states explored and time per commit, oldest first\">"
    );
    legend(&mut o);

    // The axes' names, over their labels.
    let right = LEFT + plot_w;
    let caption = num(TOP - 10.0);
    element(
        &mut o,
        "text",
        &[
            ("class", "label"),
            ("x", &num(LEFT - 6.0)),
            ("y", &caption),
            ("text-anchor", "end"),
        ],
        Some("states"),
    );
    let xe = num(right + 6.0);
    element(
        &mut o,
        "text",
        &[("class", "label"), ("x", &xe), ("y", &caption)],
        Some("time"),
    );
    o.push('\n');

    // Both axes have the same ticks, so one grid serves both: states on the left, time on
    // the right.
    for k in 0..=TICKS {
        let y = bottom - PLOT_H * k as f64 / TICKS as f64;
        let class = if k == 0 { "axis" } else { "grid" };
        let (x1, x2, yl) = (num(LEFT), num(right), num(y));
        element(
            &mut o,
            "line",
            &[
                ("class", class),
                ("x1", &x1),
                ("y1", &yl),
                ("x2", &x2),
                ("y2", &yl),
            ],
            None,
        );
        let label = num(y + 4.0);
        let states = compact(states_axis.step.saturating_mul(k));
        let (xs, xt) = (num(LEFT - 6.0), num(right + 6.0));
        element(
            &mut o,
            "text",
            &[
                ("class", "label"),
                ("x", &xs),
                ("y", &label),
                ("text-anchor", "end"),
            ],
            Some(&states),
        );
        let time = duration(time_axis.step.saturating_mul(k));
        element(
            &mut o,
            "text",
            &[("class", "label"), ("x", &xt), ("y", &label)],
            Some(&time),
        );
        o.push('\n');
    }

    for (i, (c, p)) in d.commits.iter().zip(&points).enumerate() {
        let status = if p.status.is_empty() {
            String::new()
        } else {
            format!(" {}", p.status)
        };
        let verdicts: Vec<String> = c
            .models
            .iter()
            .map(|m| format!("{} {}", one_line(&m.model), m.verdict.as_str()))
            .collect();
        let mut tip = format!(
            "{} {}\n{}\n{} states explored",
            c.short,
            one_line(&c.subject),
            verdicts.join(", "),
            compact(p.explored)
        );
        if let Some(ms) = p.ms {
            let _ = write!(tip, ", {}", duration(ms));
        }
        let _ = write!(o, "<g class=\"commit{status}\">");
        element(&mut o, "title", &[], Some(&tip));
        let h = states_axis.h(p.explored);
        let bar_w = (step * 0.6).min(MAX_BAR);
        let (bx, by) = (num(x(i) - bar_w / 2.0), num(bottom - h));
        let (bw, bh) = (num(bar_w), num(h));
        let class = format!("bar{status}");
        element(
            &mut o,
            "rect",
            &[
                ("class", &class),
                ("x", &bx),
                ("y", &by),
                ("width", &bw),
                ("height", &bh),
            ],
            None,
        );
        if let Some(ms) = p.ms {
            let (cx, cy) = (num(x(i)), num(time_axis.y(ms, bottom)));
            element(
                &mut o,
                "circle",
                &[("class", "point"), ("cx", &cx), ("cy", &cy), ("r", "3")],
                None,
            );
        }
        let class = format!("hash{status}");
        let label = one_line(&c.short);
        if on_end {
            // Read upwards, ending under the commit's bar.
            let (tx, ty) = (x(i) + 4.0, bottom + 8.0);
            let turn = format!("rotate(-90 {} {})", num(tx), num(ty));
            let attrs = [
                ("class", class.as_str()),
                ("x", &num(tx)),
                ("y", &num(ty)),
                ("text-anchor", "end"),
                ("transform", &turn),
            ];
            element(&mut o, "text", &attrs, Some(&label));
        } else {
            let (tx, ty) = (num(x(i)), num(bottom + 16.0));
            let attrs = [
                ("class", class.as_str()),
                ("x", &tx),
                ("y", &ty),
                ("text-anchor", "middle"),
            ];
            element(&mut o, "text", &attrs, Some(&label));
        }
        o.push_str("</g>\n");
    }

    // The time line over the bars, where it can be seen; it takes no pointer events (see the
    // style), so the bars' tooltips still show through it.
    let mut path = String::new();
    let mut pen_down = false;
    for (i, p) in points.iter().enumerate() {
        match p.ms {
            Some(ms) => {
                let cmd = if pen_down { 'L' } else { 'M' };
                let _ = write!(path, "{cmd}{:.1} {:.1} ", x(i), time_axis.y(ms, bottom));
                pen_down = true;
            }
            // Nothing was searched at this commit: break the line rather than draw a zero.
            None => pen_down = false,
        }
    }
    if !path.is_empty() {
        let _ = writeln!(o, "<path class=\"time\" d=\"{}\"/>", path.trim_end());
    }

    o.push_str("</svg>\n");
    o
}

/// The legend along the top: a swatch per colour a bar can have, and the time line.
fn legend(o: &mut String) {
    o.push_str("<g class=\"legend\">");
    let y = TOP - 44.0;
    let mut x = 8.0;
    for (class, words) in [
        ("bar", "all pass"),
        ("bar fail", "a model fails"),
        ("bar incomplete", "a check is incomplete"),
        ("bar error", "a model does not load"),
    ] {
        let (sx, sy) = (num(x), num(y));
        element(
            o,
            "rect",
            &[
                ("class", class),
                ("x", &sx),
                ("y", &sy),
                ("width", "12"),
                ("height", "12"),
            ],
            None,
        );
        element(
            o,
            "text",
            &[("x", &num(x + 17.0)), ("y", &num(y + 10.0))],
            Some(words),
        );
        // About 6 pixels a character at 11 pixels, and some air.
        x += 17.0 + 6.0 * words.len() as f64 + 16.0;
    }
    let ly = num(y + 6.0);
    let (x1, x2, cx) = (num(x), num(x + 24.0), num(x + 12.0));
    element(
        o,
        "line",
        &[
            ("class", "time"),
            ("x1", &x1),
            ("y1", &ly),
            ("x2", &x2),
            ("y2", &ly),
        ],
        None,
    );
    element(
        o,
        "circle",
        &[("class", "point"), ("cx", &cx), ("cy", &ly), ("r", "3")],
        None,
    );
    element(
        o,
        "text",
        &[("x", &num(x + 30.0)), ("y", &num(y + 10.0))],
        Some("time"),
    );
    o.push_str("</g>\n");
}

/// `<name a="v"…/>`, or the element around `text`; values and text escaped.
fn element(o: &mut String, name: &str, attrs: &[(&str, &str)], text: Option<&str>) {
    o.push('<');
    o.push_str(name);
    for (k, v) in attrs {
        let _ = write!(o, " {k}=\"{}\"", esc(v));
    }
    match text {
        Some(t) => {
            let _ = write!(o, ">{}</{name}>", esc(t));
        }
        None => o.push_str("/>"),
    }
}

/// A coordinate, to a tenth of a pixel.
fn num(v: f64) -> String {
    format!("{v:.1}")
}

/// Grid lines above the zero line.
const TICKS: u64 = 4;

/// A linear axis from 0 to `TICKS` steps of a round size, the least that reaches the data's
/// maximum.
struct Axis {
    step: u64,
}

impl Axis {
    fn new(max: u64) -> Axis {
        Axis {
            step: round_up(max.div_ceil(TICKS).max(1)),
        }
    }

    /// The height of a bar of `v`.
    fn h(&self, v: u64) -> f64 {
        PLOT_H * v as f64 / (self.step as f64 * TICKS as f64)
    }

    /// The y coordinate of `v`, the axis's 0 being at `bottom`.
    fn y(&self, v: u64, bottom: f64) -> f64 {
        bottom - self.h(v)
    }
}

/// The least round number at or above `v`: 1, 2 or 5 times a power of ten, or 25 times one
/// (so that a maximum just over 200 gets an axis to 250 and not to 500).
fn round_up(v: u64) -> u64 {
    let mut p: u64 = 1;
    loop {
        for r in [
            p,
            p.saturating_mul(2),
            p.saturating_mul(25) / 10,
            p.saturating_mul(5),
        ] {
            if r >= v {
                return r;
            }
        }
        if p == u64::MAX {
            return u64::MAX;
        }
        p = p.saturating_mul(10);
    }
}
