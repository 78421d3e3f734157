//! The HTML page's chart as inline SVG: per commit, oldest on the left, a bar of the states
//! explored (left axis) and a point of the time taken (right axis, joined by a line), labelled
//! with the short hash; commits where a model fails have a red bar and label. Each commit's
//! group has a tooltip (`<title>`) with its figures, so the chart needs no script.

use std::fmt::Write;

use super::cells::{compact, duration, one_line, ran};
use super::html::esc;
use super::HistoryDoc;

/// Horizontal room per commit: a 7-character hash in 11-pixel monospace and some air.
const STEP: f64 = 64.0;
/// The plot's least width, so that a history of one or two commits is not a sliver.
const MIN_PLOT: f64 = 360.0;
const PLOT_H: f64 = 200.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 72.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 36.0;

/// What the chart shows of one commit: the sums over its models that were searched.
struct Point {
    explored: u64,
    /// None when no model was searched there (absent, or does not load): a gap in the line.
    ms: Option<u64>,
    fails: bool,
}

pub fn svg(d: &HistoryDoc) -> String {
    let points: Vec<Point> = d
        .commits
        .iter()
        .map(|c| {
            let searched: Vec<_> = c.models.iter().filter(|m| ran(m)).collect();
            Point {
                explored: searched
                    .iter()
                    .fold(0u64, |a, m| a.saturating_add(m.states_explored)),
                ms: (!searched.is_empty()).then(|| {
                    searched
                        .iter()
                        .fold(0u64, |a, m| a.saturating_add(m.elapsed_ms))
                }),
                fails: c.models.iter().any(|m| m.verdict == "fail"),
            }
        })
        .collect();
    let n = points.len().max(1) as f64;
    let plot_w = (n * STEP).max(MIN_PLOT);
    let step = plot_w / n;
    let width = LEFT + plot_w + RIGHT;
    let height = TOP + PLOT_H + BOTTOM;
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

    // The legend along the top: a swatch and its words per series, and the failing colour.
    o.push_str("<g class=\"legend\">");
    let swatch = |o: &mut String, class: &str, x: f64| {
        let (x, y) = (num(x), num(TOP - 26.0));
        element(
            o,
            "rect",
            &[
                ("class", class),
                ("x", &x),
                ("y", &y),
                ("width", "12"),
                ("height", "12"),
            ],
            None,
        );
    };
    let words = |o: &mut String, x: f64, text: &str| {
        element(
            o,
            "text",
            &[("x", &num(x)), ("y", &num(TOP - 16.0))],
            Some(text),
        );
    };
    swatch(&mut o, "bar", LEFT);
    words(&mut o, LEFT + 18.0, "states explored");
    let y = num(TOP - 20.0);
    let (x1, x2) = (num(LEFT + 130.0), num(LEFT + 154.0));
    element(
        &mut o,
        "line",
        &[
            ("class", "time"),
            ("x1", &x1),
            ("y1", &y),
            ("x2", &x2),
            ("y2", &y),
        ],
        None,
    );
    let cx = num(LEFT + 142.0);
    element(
        &mut o,
        "circle",
        &[("class", "point"), ("cx", &cx), ("cy", &y), ("r", "3.5")],
        None,
    );
    words(&mut o, LEFT + 160.0, "time");
    swatch(&mut o, "bar fail", LEFT + 210.0);
    words(&mut o, LEFT + 228.0, "a model fails");
    o.push_str("</g>\n");

    // Both axes have the same ticks, so one grid serves both: states on the left, time on
    // the right.
    let right = LEFT + plot_w;
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
        let fail = if p.fails { " fail" } else { "" };
        let verdicts: Vec<String> = c
            .models
            .iter()
            .map(|m| format!("{} {}", one_line(&m.model), m.verdict))
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
        let _ = write!(o, "<g class=\"commit{fail}\">");
        element(&mut o, "title", &[], Some(&tip));
        let h = states_axis.h(p.explored);
        let (bx, by) = (num(x(i) - step * 0.25), num(bottom - h));
        let (bw, bh) = (num(step * 0.5), num(h));
        let class = format!("bar{fail}");
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
                &[("class", "point"), ("cx", &cx), ("cy", &cy), ("r", "3.5")],
                None,
            );
        }
        let class = format!("hash{fail}");
        let (tx, ty) = (num(x(i)), num(bottom + 16.0));
        let attrs = [
            ("class", class.as_str()),
            ("x", &tx),
            ("y", &ty),
            ("text-anchor", "middle"),
        ];
        element(&mut o, "text", &attrs, Some(&one_line(&c.short)));
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
