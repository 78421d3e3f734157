//! `git rmc verify`: a full safety check of one model file with SPIN's meaning and figures.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use clap::Args;

use super::error::{InternalError, Outcome};
use super::show::Format;
use crate::explore::{self, Machine, Options, Verdict};
use crate::report;

/// Check a model for safety: explore every reachable state and report every assertion
/// violation, invalid end state (deadlock), array index out of range, division by zero,
/// blocking d_step, too many processes and non-terminating atomic sequence, each once, with a
/// trail. Figures (states stored and matched, transitions, atomic steps, depth) are SPIN's,
/// as `spin -o1 -o2 -o3 -a; gcc -DNOREDUCE -DSAFETY -DNOCLAIM; ./pan -c0` prints them.
///
/// Never claims and ltl formulas are not checked yet: the output names them. spin's .trail
/// files are not written; trails are printed (and in the JSON) instead.
///
/// Exit status: 0 no violation and the search was complete; 1 a violation was found; 2 a
/// usage or model error; 3 a limit cut the search and no violation was found (never a pass).
#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub model: super::ModelArgs,
    /// Do not report invalid end states (pan -E).
    #[arg(long)]
    pub no_end_states: bool,
    /// Do not report assertion violations (pan -A). As in pan, this also silences array
    /// index errors (the path still ends at them).
    #[arg(long)]
    pub no_assertions: bool,
    /// A valid end state also needs every channel empty (pan -q).
    #[arg(long)]
    pub empty_channels: bool,
    /// Do not explore beyond this depth (pan -m); a cut search is incomplete.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u64>,
    /// Stop after storing this many states; the search is then incomplete.
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Stop after this many distinct violations (pan -cN); the search is then incomplete.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<u64>,
    /// Stop when the search holds more memory than this: a size (512M, 4G) or `auto`, 80% of
    /// the least of the memory available, the cgroup's room and the address space left under
    /// `ulimit -v`. GIT_RMC_MEMORY_LIMIT=SIZE replaces auto. A run stopped there is
    /// INCOMPLETE (exit 3, or 1 if a violation was found first).
    #[arg(long, value_name = "auto|SIZE", default_value = "auto", value_parser = super::memory::parse_limit)]
    pub memory_limit: super::memory::MemoryLimit,
    /// Build and keep a trail for the first N violations of each kind (0: none). Every
    /// distinct violation is still reported.
    #[arg(long, value_name = "N", default_value_t = explore::outcome::DEFAULT_MAX_TRAILS)]
    pub max_trails: usize,
    /// Replace each trail by a shortest one to the same violation (a breadth-first search).
    #[arg(long)]
    pub short_trails: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// A count in three significant digits with a k/M/G suffix, so the progress line stays short.
fn short(n: f64) -> String {
    match n {
        n if n >= 1e9 => format!("{:.3}G", n / 1e9),
        n if n >= 1e6 => format!("{:.3}M", n / 1e6),
        n if n >= 1e4 => format!("{:.1}k", n / 1e3),
        n => format!("{n:.0}"),
    }
}

pub fn cmd_verify(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let Some((loaded, program)) = super::load_model(&args.model)? else {
        return Ok(Outcome::ModelError);
    };
    let color = std::io::stderr().is_terminal();
    report::diagnostics::emit(&loaded.files, &program.pan_refusals(), color);
    let machine = Machine::new(&program)?;
    let (memory_limit, _) =
        super::memory::resolve(args.memory_limit).map_err(anyhow::Error::msg)?;
    let eopts = Options {
        end_states: !args.no_end_states,
        assertions: !args.no_assertions,
        empty_channels: args.empty_channels,
        max_depth: args.max_depth,
        max_states: args.max_states,
        max_errors: args.max_errors,
        memory_limit,
        max_trails: args.max_trails,
    };
    let started = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let tty = std::io::stderr().is_terminal();
    let mut progress = |s: &explore::Stats| {
        if !tty || s.elapsed < Duration::from_secs(1) {
            return;
        }
        // Ticked from here rather than by a thread of its own: a second thread would
        // reserve address space that `ulimit -v` counts.
        let b = bar.get_or_insert_with(indicatif::ProgressBar::new_spinner);
        b.tick();
        let rate = s.states_stored as f64 / s.elapsed.as_secs_f64().max(1e-9);
        b.set_message(format!(
            "{} stored, {} matched, depth {}, {} states/s, {:.0} MB",
            short(s.states_stored as f64),
            short(s.states_matched as f64),
            short(s.depth_reached as f64),
            short(rate),
            s.peak_memory_bytes as f64 / 1048576.0
        ));
    };
    let mut out = explore::explore(&machine, &eopts, &mut progress);
    if let Some(b) = bar.take() {
        b.finish_and_clear();
    }
    if args.short_trails {
        let shorter = explore::shortest::shortest_trails(&machine, &out, &eopts);
        for (v, t) in out.violations.iter_mut().zip(shorter) {
            if let (Some(t), Some(old)) = (t, &mut v.trail) {
                if t.len() < old.len() {
                    *old = t;
                }
            }
        }
    }
    let window = (args.format == Format::Text).then_some(report::verify::TEXT_TRAIL_STEPS);
    let trails = replayed_trails(&machine, &out, &eopts, window)?;
    let elapsed = started.elapsed().as_secs_f64();
    let doc = report::verify::document(
        &args.model.file.display().to_string(),
        &machine,
        &loaded.files,
        &out,
        &trails,
    );
    match args.format {
        Format::Text => super::out(&report::verify::text(&doc, elapsed))?,
        Format::Json => super::out(&(serde_json::to_string_pretty(&doc)? + "\n"))?,
    }
    Ok(match out.verdict() {
        Verdict::Fail => Outcome::Violation,
        Verdict::Pass => Outcome::Ok,
        Verdict::Incomplete => Outcome::Incomplete,
    })
}

/// Every trail, replayed through the interpreter to its violation before it is printed. A
/// trail that does not reach its violation is a bug of git rmc, never the model's fault.
pub fn replayed_trails(
    m: &Machine,
    out: &explore::Outcome,
    opts: &Options,
    window: Option<usize>,
) -> anyhow::Result<Vec<Option<explore::Replayed>>> {
    let mut trails = Vec::with_capacity(out.violations.len());
    for v in &out.violations {
        if v.trail.is_none() {
            trails.push(None);
            continue;
        }
        let view = m
            .replay_violation(&out.initial, v, opts, window)
            .map_err(|e| {
                InternalError(format!(
                    "the trail of a {} violation ({}) does not reach it when replayed ({e})",
                    v.kind.as_str(),
                    v.message
                ))
            })?;
        trails.push(Some(view));
    }
    Ok(trails)
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
