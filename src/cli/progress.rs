//! The progress of a long check: on a terminal a line redrawn in place (states, matched,
//! depth, states/s, memory), shown after the first second; elsewhere (CI logs, a pipe) a
//! plain line on standard error every ten seconds. `--progress auto|always|never` decides.
//! Ticked from the search's progress callback rather than by a thread of its own: a second
//! thread would reserve address space that `ulimit -v` counts.

use std::io::IsTerminal;
use std::time::Duration;

use crate::explore::Stats;

/// `--progress`: when a long check shows how far it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProgressChoice {
    /// A live line on a terminal, a plain line every ten seconds elsewhere; nothing with
    /// --quiet.
    Auto,
    /// As auto, with --quiet too.
    Always,
    /// Never.
    Never,
}

static CHOICE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Sets the choice for every bar made from now on.
pub fn set_choice(c: ProgressChoice) {
    let v = match c {
        ProgressChoice::Auto => 0,
        ProgressChoice::Always => 1,
        ProgressChoice::Never => 2,
    };
    CHOICE.store(v, std::sync::atomic::Ordering::Relaxed);
}

/// How often a plain progress line is printed where there is no terminal.
const PLAIN_EVERY: Duration = Duration::from_secs(10);
/// How long a check runs before any progress is shown.
const QUIET_START: Duration = Duration::from_secs(1);
/// Replaces both, in milliseconds (for tests, which cannot wait ten seconds).
const ENV_EVERY: &str = "GIT_RMC_PROGRESS_EVERY_MS";

pub struct Bar {
    bar: Option<indicatif::ProgressBar>,
    tty: bool,
    /// Show anything at all.
    on: bool,
    /// When the last plain line was printed (the search's elapsed time).
    last_plain: Duration,
    /// Nothing before this; then plain lines this far apart.
    start: Duration,
    every: Duration,
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
        let on = match CHOICE.load(std::sync::atomic::Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => !super::quiet(),
        };
        let custom = std::env::var(ENV_EVERY)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map(Duration::from_millis);
        Bar {
            bar: None,
            tty: std::io::stderr().is_terminal(),
            on,
            last_plain: Duration::ZERO,
            start: custom.unwrap_or(QUIET_START),
            every: custom.unwrap_or(PLAIN_EVERY),
            prefix: String::new(),
        }
    }

    pub fn update(&mut self, s: &Stats) {
        if !self.on || s.elapsed < self.start {
            return;
        }
        if !self.tty {
            if s.elapsed >= self.last_plain + self.every {
                self.last_plain = s.elapsed;
                eprintln!("git rmc: {}", self.figures(s));
            }
            return;
        }
        let msg = self.figures(s);
        let b = self
            .bar
            .get_or_insert_with(indicatif::ProgressBar::new_spinner);
        b.tick();
        b.set_message(msg);
    }

    fn figures(&self, s: &Stats) -> String {
        let rate = s.states_stored as f64 / s.elapsed.as_secs_f64().max(1e-9);
        format!(
            "{}{} stored, {} matched, depth {}, {} states/s, {:.0} MB, {:.0} s",
            self.prefix,
            short(s.states_stored as f64),
            short(s.states_matched as f64),
            short(s.depth_reached as f64),
            short(rate),
            s.peak_memory_bytes as f64 / 1048576.0,
            s.elapsed.as_secs_f64()
        )
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        self.last_plain = Duration::ZERO;
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
