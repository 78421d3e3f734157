//! `git rmc verify`: a full safety check of one model file with SPIN's meaning and figures.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use clap::Args;

use super::error::Outcome;
use super::show::Format;
use crate::explore::{self, Machine, Options};
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
    /// Stop when the search uses more memory than this (e.g. 512M, 4G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_limit: Option<u64>,
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

fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_uppercase() {
                'K' => 1u64 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                'B' => 1,
                _ => return Err(format!("unknown size unit '{c}' (use K, M, G or T)")),
            };
            (&s[..i], m)
        }
        _ => (s, 1),
    };
    num.trim()
        .parse::<u64>()
        .map(|n| n.saturating_mul(mult))
        .map_err(|_| format!("'{s}' is not a size (e.g. 512M, 4G)"))
}

pub fn cmd_verify(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let Some((loaded, program)) = super::load_model(&args.model)? else {
        return Ok(Outcome::ModelError);
    };
    let color = std::io::stderr().is_terminal();
    report::diagnostics::emit(&loaded.files, &program.pan_refusals(), color);
    let machine = Machine::new(&program)?;
    let eopts = Options {
        end_states: !args.no_end_states,
        assertions: !args.no_assertions,
        empty_channels: args.empty_channels,
        max_depth: args.max_depth,
        max_states: args.max_states,
        max_errors: args.max_errors,
        memory_limit: args.memory_limit,
    };
    let started = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let tty = std::io::stderr().is_terminal();
    let mut progress = |s: &explore::Stats| {
        if !tty || s.elapsed < Duration::from_secs(1) {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
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
        let shorter = explore::shortest::shortest_trails(&machine, &out);
        for (v, t) in out.violations.iter_mut().zip(shorter) {
            if let Some(t) = t {
                if t.len() < v.trail.len() {
                    v.trail = t;
                }
            }
        }
    }
    let mut trails = Vec::new();
    for v in &out.violations {
        trails.push(machine.replay(&out.initial, &v.trail)?);
    }
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
    Ok(if !out.violations.is_empty() {
        Outcome::Violation
    } else if out.complete() {
        Outcome::Ok
    } else {
        Outcome::Incomplete
    })
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn short_counts() {
        assert_eq!(super::short(999.0), "999");
        assert_eq!(super::short(12_049.0), "12.0k");
        assert_eq!(super::short(2_175_041.0), "2.175M");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("M").is_err());
    }
}
