//! `git rmc verify`: a full safety check of one model file with SPIN's meaning and figures.

use std::io::IsTerminal;
use std::time::Instant;

use clap::Args;

use super::error::Outcome;
use super::show::Format;
use std::path::PathBuf;

use crate::explore::{self, Options};
use crate::report;
use crate::rmc::check::{Algorithm, Base, ClaimChoice, Request};

/// Check one model file for safety, as spin's pan does (no git needed)
///
/// Explores every reachable state and reports every assertion violation, invalid end state
/// (deadlock), array index out of range, division by zero, blocking d_step, too many
/// processes, non-terminating atomic sequence and error of a trace or notrace (its events,
/// as pan checks them), each once, with a trail. Figures (states
/// stored and matched, transitions, atomic steps, depth) are SPIN's, as
/// `spin -o1 -o2 -o3 -a; gcc -DNOREDUCE -DSAFETY -DNOCLAIM; ./pan -c0` prints them.
///
/// A model with never claims or ltl formulas gets its safety check and then one product
/// search per claim, acceptance cycles included (as ./pan -a -N NAME for each): the claim and
/// the system move in lockstep (the claim first), a claim that reaches its closing brace is
/// a violation (claim-end), a safety formula fails as the claim's assertion, invalid end
/// states are not checked, and an acceptance cycle's trail marks where its cycle starts.
/// Figures are pan's for each product (gcc -DNOREDUCE; ./pan -a -c0: states stored and
/// visited). The verdict is a pass only when every search passes. -N NAME checks that one
/// claim alone, as pan -N NAME (without -a: ./pan -c0). A model without claims whose
/// processes have accept labels gets its safety check and then a search for acceptance
/// cycles through them (as spin -search adds -a for them: ./pan -a), named "accept labels";
/// with -a that search alone runs. spin's .trail files are not written; trails are printed
/// (and in the JSON) instead.
///
/// With --record FILE the check also writes its record; a later check of a changed version
/// with --reuse FILE skips every state the change cannot affect (regression model checking)
/// and reports exactly the violations a full check reports:
///
///   git rmc verify v1.pml --record v1.rec
///   git rmc verify v2.pml --reuse v1.rec --record v2.rec
///
/// Exit status: 0 no violation and the search was complete; 1 a violation was found; 2 a
/// usage or model error; 3 a limit cut the search and no violation was found (never a pass);
/// 4 an internal error (a bug: please report it).
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub model: super::ModelArgs,
    /// Do not report invalid end states (pan -E).
    #[arg(long)]
    pub no_end_states: bool,
    /// With -N: look for acceptance cycles of the product with that claim (pan -a): pan's
    /// nested depth-first search, its figures included. (Without -N every claim is checked
    /// with its acceptance cycles.) A model without never claims or ltl formulas: acceptance
    /// cycles through the processes' accept labels alone, an accepting state where nothing
    /// moves (accept stutter) included; invalid end states are then not checked (as pan -a).
    /// (Without -a they are looked for after the safety check.)
    #[arg(short = 'a', long)]
    pub acceptance: bool,
    /// Look for non-progress cycles (pan -l, built with -DNP): runs on which no process
    /// passes a progress label; the model's own claims are left out, as pan leaves them.
    #[arg(short = 'l', long, conflicts_with_all = ["claim", "acceptance"])]
    pub non_progress: bool,
    /// Weak fairness (pan -f) in the search for acceptance cycles (each claim's, or -a
    /// with -N) or for non-progress cycles (-l): only cycles on which every process that
    /// stays enabled moves count. pan's counter rules, its figures included (./pan -a -f,
    /// ./pan -l -f, ./pan -a -f for accept labels without a claim); as in pan, at most 6
    /// processes (the claim counted). As pan, it needs a search for cycles: with no claim,
    /// it needs -a or -l.
    #[arg(short = 'f', long)]
    pub fair: bool,
    /// Check only the never claim or ltl formula named NAME, with the system (pan -N NAME).
    #[arg(short = 'N', long, value_name = "NAME")]
    pub claim: Option<String>,
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
    /// Replace each trail by a shortest one to the same violation (a breadth-first search;
    /// not with a never claim, whose product it does not search: the trails stay).
    #[arg(long)]
    pub short_trails: bool,
    /// Write the record of this check to FILE (a recording run): what a later check of a
    /// changed version needs to skip the unchanged part of the state space. The file stands
    /// alone (the cache of `git rmc check` writes a record on the one it reused instead).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Reuse the record of an earlier version: a pruning run does not explore a state whose
    /// recorded reachable set misses the locations the change makes dangerous (its recorded
    /// violations are reported again); a replay walks the recorded state graph and executes
    /// only the states whose expansion meets them. A record that cannot be used (corrupt,
    /// another version of git rmc, other checks) is reported and a full check runs.
    #[arg(long, value_name = "FILE")]
    pub reuse: Option<PathBuf>,
    /// With --reuse: auto (default: whichever of prune, replay and a full check the record
    /// predicts cheapest), prune, replay, or check everything again (full); all write
    /// --record.
    #[arg(long, value_enum)]
    pub algorithm: Option<Algorithm>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_verify(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let load = match args.non_progress {
        true => super::load_model_for_non_progress,
        false => super::load_model_with_claims,
    };
    let Some((loaded, program)) = load(&args.model)? else {
        return Ok(Outcome::ModelError);
    };
    if args.non_progress && (args.record.is_some() || args.reuse.is_some()) {
        anyhow::bail!(
            "--non-progress: a regression check (--record, --reuse) does not check claims yet"
        );
    }
    let color = std::io::stderr().is_terminal();
    report::diagnostics::emit(&loaded.files, &program.pan_refusals(), color);
    let has_claim = program
        .procs
        .iter()
        .any(|p| p.kind == crate::program::ProcKind::Never);
    if let Some(name) = &args.claim {
        // A name that is no claim of the model, a claim git rmc cannot check, or one a
        // regression check would skip is refused before anything runs.
        let claims: Vec<&crate::program::Proc> = program
            .procs
            .iter()
            .filter(|p| p.kind == crate::program::ProcKind::Never)
            .collect();
        if !claims.iter().any(|p| &p.name == name) {
            let names: Vec<&str> = claims.iter().map(|p| p.name.as_str()).collect();
            anyhow::bail!(
                "--claim {name}: the model has no never claim or ltl formula of that name ({})",
                match names.is_empty() {
                    true => "it has none".to_string(),
                    false => format!("it has {}", names.join(", ")),
                }
            );
        }
        if args.record.is_some() || args.reuse.is_some() {
            anyhow::bail!(
                "--claim: a regression check (--record, --reuse) does not check claims yet"
            );
        }
    }
    let accept_labels = program.procs.iter().any(|p| {
        p.kind != crate::program::ProcKind::Never && p.automaton.locations.iter().any(|l| l.accept)
    });
    if args.fair && !has_claim && !args.non_progress && !args.acceptance {
        // pan: "error: -f requires the use of -a or -l".
        anyhow::bail!(
            "--fair: weak fairness applies to a search for cycles, and the model has no never \
             claim or ltl formula (give one, -a for the acceptance cycles of its accept \
             labels, or -l for non-progress cycles)"
        );
    }
    if args.fair && args.claim.is_some() && !args.acceptance {
        anyhow::bail!("--fair with -N: add -a, weak fairness applies to acceptance cycles");
    }
    if args.acceptance && !has_claim && (args.record.is_some() || args.reuse.is_some()) {
        anyhow::bail!(
            "--acceptance without a never claim or ltl formula: a regression check (--record, \
             --reuse) does not look for acceptance cycles yet"
        );
    }
    let (memory_limit, memory_origin) =
        super::memory::resolve(args.memory_limit).map_err(anyhow::Error::msg)?;
    use crate::report::verdict::{LimitSource, LimitSources};
    let limits = LimitSources {
        depth: LimitSource::new("--max-depth", "to go further, give a larger --max-depth"),
        states: LimitSource::new("--max-states", "to go further, give a larger --max-states"),
        errors: LimitSource::new("--max-errors", "to go further, give a larger --max-errors"),
        memory: LimitSource::new(
            memory_origin,
            "to go further, give a larger --memory-limit SIZE (or GIT_RMC_MEMORY_LIMIT=SIZE) \
             on a machine that has it",
        ),
    };
    let eopts = Options {
        end_states: !args.no_end_states,
        assertions: !args.no_assertions,
        empty_channels: args.empty_channels,
        max_depth: args.max_depth,
        max_states: args.max_states,
        max_errors: args.max_errors,
        memory_limit,
        max_trails: args.max_trails,
        acceptance: args.acceptance || args.non_progress,
        fair: args.fair,
        ..Options::default()
    };
    let started = Instant::now();
    let base = args.reuse.as_deref().and_then(|path| {
        // A record that cannot be used costs time, never a verdict. Its states are read
        // when the plan needs them (a full check never does), as `check` reads its records.
        let lazy = std::fs::File::open(path)
            .map_err(|e| {
                crate::rmc::check::BaseError::Record(crate::rmc::record::RecordError::Io {
                    path: path.display().to_string(),
                    err: e,
                })
            })
            .and_then(|f| Base::lazy(path, &f));
        match lazy {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!(
                    "warning: {}: not reused ({e}); running a full check",
                    path.display()
                );
                None
            }
        }
    });
    let regression = args.record.is_some() || args.reuse.is_some();
    let algorithm = match (regression, args.algorithm) {
        (false, None) => None,
        (_, a) => Some(a.unwrap_or(Algorithm::Auto)),
    };
    let name = args.model.file.display().to_string();
    let sources = crate::rmc::check::sources_of(&args.model.file, &loaded.files, &args.model.pp());
    // Without -N, a full check of a model with claims checks its safety properties and then
    // each claim on its own, acceptance cycles included (as `spin -search -ltl NAME`, one
    // product search per claim); -N checks the one claim, as pan -N does.
    // A model without claims whose processes have accept labels gets their cycles looked
    // for after its safety properties (`spin -search` adds -a for them), unless -a asked
    // for that search alone.
    let each: Vec<super::claims::Claim> = match (&args.claim, algorithm) {
        (None, None) if !args.non_progress => {
            let mut each = super::claims::checkable(&program, |_| true);
            if !args.acceptance {
                each.extend(super::claims::accept_labels(&program));
            }
            each
        }
        _ => Vec::new(),
    };
    let claim = match &args.claim {
        None if args.non_progress => {
            ClaimChoice::Named(crate::explore::claim::NP_CLAIM.to_string())
        }
        Some(n) => ClaimChoice::Named(n.clone()),
        None if !each.is_empty() => ClaimChoice::Safety,
        None => ClaimChoice::First,
    };
    let window = (args.format == Format::Text).then_some(report::verify::TEXT_TRAIL_STEPS);
    let claim_program = (!each.is_empty()).then(|| program.clone());
    // The safety check ahead of the claims looks for no cycles (each claim's search does),
    // nor does a regression check (it checks no claim).
    let mut ropts = eopts.clone();
    ropts.acceptance &= !matches!(claim, ClaimChoice::Safety) && algorithm.is_none();
    if ropts.acceptance && !has_claim && !args.non_progress && !accept_labels {
        eprintln!(
            "warning: no accept labels are defined, so option -a has no effect (ignored), as \
             pan says: a safety check runs"
        );
        ropts.acceptance = false;
    }
    // A safety check ahead of claims records its state graph (in memory) where a claim's
    // product can read the system's moves from it: each claim then executes itself alone.
    // Should recording hit the memory limit, the plain check runs instead (a recording run
    // holds more), and the claims are searched.
    let graph_for_claims = algorithm.is_none()
        && !each.is_empty()
        && crate::explore::Machine::new(&program)
            .is_ok_and(|m| crate::rmc::run::product_replay::may_serve(&m, &eopts));
    let request = |program, algorithm| Request {
        program,
        sources: sources.clone(),
        opts: ropts.clone(),
        algorithm,
        base: None,
        short_trails: args.short_trails,
        window,
        claim: claim.clone(),
    };
    let mut bar = super::progress::Bar::new();
    let mut checked = match graph_for_claims {
        true => {
            let mut c = super::error::checked(crate::rmc::check::check(
                request(program.clone(), Some(Algorithm::Full)),
                &mut |s| bar.update(s),
            ))?;
            // (It is the full check a plain one is, its record kept for the claims.)
            c.reason.clear();
            c
        }
        false => {
            let mut r = request(program, algorithm);
            r.base = base;
            super::error::checked(crate::rmc::check::check(r, &mut |s| bar.update(s)))?
        }
    };
    let cut_recording = graph_for_claims
        && checked
            .limit
            .is_some_and(|(l, _)| l == crate::explore::Limit::Memory);
    if let (true, Some(program)) = (cut_recording, &claim_program) {
        checked = super::error::checked(crate::rmc::check::check(
            request(program.clone(), None),
            &mut |s| bar.update(s),
        ))?;
    }
    bar.finish();
    let mut doc = report::verify::document(&name, &checked, &loaded.files, &limits);
    let mut outcome = super::error::of_verdict(checked.verdict, true);
    let mut claim_docs = Vec::new();
    if let Some(prog) = &claim_program {
        let cx = super::claims::Context {
            program: prog,
            sources: &sources,
            opts: &eopts,
            window,
            name: &name,
            files: &loaded.files,
            limits: &limits,
            over: checked
                .record
                .as_ref()
                .filter(|_| graph_for_claims && checked.complete())
                .map(|r| super::claims::Over::of(&checked.program, r)),
        };
        for claim in &each {
            let mut bar = super::progress::Bar::new();
            let c = super::claims::check_one(&cx, claim, &mut bar)?;
            outcome = super::error::worst([outcome, super::error::of_verdict(c.verdict, true)]);
            doc.claims.push(c.summary);
            doc.claims_not_checked.retain(|n| n != &claim.label());
            claim_docs.push(c.doc);
        }
        // Every section names only the claims no search checked (those git rmc cannot).
        for d in &mut claim_docs {
            d.claims_not_checked = doc.claims_not_checked.clone();
        }
        doc.overall_verdict = Some(report::verify::overall_verdict(&doc));
    }
    if let (Some(path), Some(_), Algorithm::Full) =
        (&args.reuse, &checked.base_hash, checked.algorithm)
    {
        // Not when auto chose a full check from its prediction (the summary says why): only
        // when the record could not be reused.
        if args.algorithm != Some(Algorithm::Full) && checked.predicted.is_none() {
            eprintln!(
                "warning: {}: not used for pruning ({})",
                path.display(),
                checked.reason
            );
        }
    }
    if let Some(path) = &args.record {
        match &checked.record {
            Some(r) => {
                let bytes =
                    crate::cache::write_atomic_with(path, |w| r.write_to(w)).map_err(|e| {
                        anyhow::anyhow!("cannot write the record {}: {e}", path.display())
                    })?;
                let states = r.fingerprints.len() as u64;
                doc.record = Some(report::verify::RecordDoc {
                    path: path.display().to_string(),
                    bytes,
                    states,
                    bytes_per_state: bytes as f64 / states.max(1) as f64,
                });
            }
            None => eprintln!(
                "warning: no record written to {}: {}",
                path.display(),
                checked
                    .no_record
                    .as_deref()
                    .unwrap_or("the search did not see every state")
            ),
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    match args.format {
        Format::Text => {
            let mut text = report::verify::text(&doc, elapsed);
            for d in &claim_docs {
                text.push_str(&report::verify::text(d, elapsed));
            }
            if !claim_docs.is_empty() {
                text.push_str(&report::verify::overall(&doc));
            }
            super::out(&text)?
        }
        Format::Json => super::out(&(serde_json::to_string_pretty(&doc)? + "\n"))?,
    }
    Ok(outcome)
}
