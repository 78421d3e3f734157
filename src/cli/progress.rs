//! The progress line of a long check on a terminal (states, matched, depth, states/s,
//! memory), shown after the first second. Ticked from the search's progress callback rather
//! than by a thread of its own: a second thread would reserve address space that
//! `ulimit -v` counts.

use std::io::IsTerminal;
use std::time::Duration;

use crate::explore::Stats;

pub struct Bar {
    bar: Option<indicatif::ProgressBar>,
    tty: bool,
    /// Shown before the figures (a commit and model, say).
    pub prefix: String,
}

impl Default for Bar {
    fn default() -> Self {
        Self::new()
    }
}

impl Bar {
    pub fn new() -> Bar {
        Bar {
            bar: None,
            tty: std::io::stderr().is_terminal(),
            prefix: String::new(),
        }
    }

    pub fn update(&mut self, s: &Stats) {
        if !self.tty || s.elapsed < Duration::from_secs(1) {
            return;
        }
        let b = self
            .bar
            .get_or_insert_with(indicatif::ProgressBar::new_spinner);
        b.tick();
        let rate = s.states_stored as f64 / s.elapsed.as_secs_f64().max(1e-9);
        b.set_message(format!(
            "{}{} stored, {} matched, depth {}, {} states/s, {:.0} MB",
            self.prefix,
            short(s.states_stored as f64),
            short(s.states_matched as f64),
            short(s.depth_reached as f64),
            short(rate),
            s.peak_memory_bytes as f64 / 1048576.0
        ));
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// A count in three significant digits with a k/M/G suffix, so the progress line stays short.
pub fn short(n: f64) -> String {
    match n {
        n if n >= 1e9 => format!("{:.3}G", n / 1e9),
        n if n >= 1e6 => format!("{:.3}M", n / 1e6),
        n if n >= 1e4 => format!("{:.1}k", n / 1e3),
        n => format!("{n:.0}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_counts() {
        assert_eq!(super::short(999.0), "999");
        assert_eq!(super::short(12_049.0), "12.0k");
        assert_eq!(super::short(2_175_041.0), "2.175M");
    }
}
