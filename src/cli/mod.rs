//! The command line: argument parsing (clap), one file per command, and the single place that
//! maps outcomes to exit codes (`error.rs`). Glue only: the engine computes, `report` renders.

pub(crate) mod cache;
pub(crate) mod check;
pub(crate) mod claims;
pub(crate) mod demo;
pub(crate) mod diff;
pub(crate) mod error;
pub(crate) mod history;
pub(crate) mod init;
pub(crate) mod man;
pub(crate) mod memory;
pub(crate) mod progress;
pub(crate) mod show;
pub(crate) mod user;
pub(crate) mod verify;
pub(crate) mod walk;

use clap::{Parser, Subcommand};

/// Regression model checking for Promela models kept in git
///
/// git rmc reads Promela models exactly as SPIN 6.5.2 does (with a built-in C preprocessor)
/// and lowers each proctype to the automaton pan would run. Checking commands follow.
#[derive(Parser, Debug)]
#[command(
    name = "git-rmc",
    bin_name = "git rmc",
    version,
    about,
    long_about,
    verbatim_doc_comment
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// When to colour the output (NO_COLOR in the environment means never, for auto).
    /// Default: `color` in the user's settings, else auto.
    #[arg(long, global = true, value_enum)]
    pub color: Option<ColorChoice>,
    /// Print only what fails and errors.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Say more about what is reused and why.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    /// When to show the progress of long checks: auto (a live line on a terminal, a plain
    /// line on standard error every ten seconds elsewhere, as in CI logs), always (also
    /// with --quiet), never. Default: `progress` in the user's settings, else auto.
    #[arg(long, global = true, value_enum)]
    pub progress: Option<progress::ProgressChoice>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

static COLOR: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether diagnostics and tables use colour: --color, else NO_COLOR, else a terminal.
pub fn color() -> bool {
    use std::io::IsTerminal;
    match COLOR.load(std::sync::atomic::Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal(),
    }
}

pub fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

pub fn verbose() -> bool {
    VERBOSE.load(std::sync::atomic::Ordering::Relaxed)
}

/// Paths given on the command line (relative to `cwd`) as paths relative to the work tree
/// root, normalised.
pub fn relative_paths(
    root: &std::path::Path,
    cwd: &std::path::Path,
    paths: &[std::path::PathBuf],
) -> Vec<std::path::PathBuf> {
    paths
        .iter()
        .map(|p| {
            let abs = if p.is_absolute() {
                p.clone()
            } else {
                cwd.join(p)
            };
            let abs = crate::promela::source::normalize(&abs);
            let root = crate::promela::source::normalize(root);
            abs.strip_prefix(&root)
                .map(|r| r.to_path_buf())
                .unwrap_or(abs)
        })
        .collect()
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Show(show::ShowArgs),
    Verify(verify::VerifyArgs),
    Diff(diff::DiffArgs),
    Check(check::CheckArgs),
    History(history::HistoryArgs),
    Init(init::InitArgs),
    Cache(cache::CacheArgs),
    Demo(demo::DemoArgs),
    InstallMan(man::InstallManArgs),
}

/// The model a command reads, with the preprocessor options spin passes to cpp.
#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    /// The Promela model (the main file; includes are read relative to it).
    pub file: std::path::PathBuf,
    /// Define a preprocessor macro, as `cpp -D` (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Add a folder to the #include search path, as `cpp -I`.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<std::path::PathBuf>,
}

impl ModelArgs {
    /// The preprocessor options of these arguments.
    pub fn pp(&self) -> crate::promela::preprocess::PpOptions {
        crate::promela::preprocess::PpOptions {
            defines: self.defines.clone(),
            include_dirs: self.include.clone(),
        }
    }
}

/// `--algorithm`, on the engine's enum (one enum for the configuration, the command line
/// and the engine).
impl clap::ValueEnum for crate::rmc::check::Algorithm {
    fn value_variants<'a>() -> &'a [Self] {
        &crate::rmc::check::Algorithm::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()).help(self.describe()))
    }
}

/// Reads a model from disk with `-D`/`-I` options and prints its diagnostics. Returns the
/// loaded model, or None (after the diagnostics) when it has errors.
pub fn load_model(
    args: &ModelArgs,
) -> anyhow::Result<Option<(crate::Loaded, crate::program::Program)>> {
    load_model_as(args, crate::load)
}

/// `load_model` with the never claims of the model's `ltl` formulas added (`verify`, which
/// checks the first claim).
pub fn load_model_with_claims(
    args: &ModelArgs,
) -> anyhow::Result<Option<(crate::Loaded, crate::program::Program)>> {
    load_model_as(args, crate::load_with_claims)
}

/// `load_model` with the claim of a search for non-progress cycles added (`verify -l`).
pub fn load_model_for_non_progress(
    args: &ModelArgs,
) -> anyhow::Result<Option<(crate::Loaded, crate::program::Program)>> {
    load_model_as(args, crate::load_for_non_progress)
}

type Loader = fn(
    &std::path::Path,
    &dyn crate::promela::source::FileProvider,
    &crate::PpOptions,
) -> crate::Loaded;

fn load_model_as(
    args: &ModelArgs,
    load: Loader,
) -> anyhow::Result<Option<(crate::Loaded, crate::program::Program)>> {
    use std::io::IsTerminal;
    if !args.file.exists() {
        anyhow::bail!("{}: no such file", args.file.display());
    }
    let mut loaded = load(
        &args.file,
        &crate::promela::source::DiskProvider,
        &args.pp(),
    );
    let color = std::io::stderr().is_terminal();
    crate::report::diagnostics::emit(&loaded.files, &loaded.diags, color);
    Ok(loaded.program.take().map(|p| (loaded, p)))
}

/// Writes a command's output to stdout. A reader that went away (`| head`) is not an error.
pub fn out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Runs the parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    // A flag given wins over the user's settings, which win over auto.
    let user = match user::load() {
        Ok(u) => u,
        Err(e) => return error::exit_code(Err(e)),
    };
    let color = cli.color.unwrap_or(match user.color {
        Some(crate::config::Choice::Always) => ColorChoice::Always,
        Some(crate::config::Choice::Never) => ColorChoice::Never,
        _ => ColorChoice::Auto,
    });
    let c = match color {
        ColorChoice::Auto => 0,
        ColorChoice::Always => 1,
        ColorChoice::Never => 2,
    };
    COLOR.store(c, std::sync::atomic::Ordering::Relaxed);
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    VERBOSE.store(cli.verbose, std::sync::atomic::Ordering::Relaxed);
    progress::set_choice(cli.progress.unwrap_or(match user.progress {
        Some(crate::config::Choice::Always) => progress::ProgressChoice::Always,
        Some(crate::config::Choice::Never) => progress::ProgressChoice::Never,
        _ => progress::ProgressChoice::Auto,
    }));
    match cli.command {
        Command::Show(args) => error::exit_code(show::cmd_show(&args)),
        Command::Verify(args) => error::exit_code(verify::cmd_verify(&args)),
        Command::Diff(args) => error::exit_code(diff::cmd_diff(&args)),
        Command::Check(args) => error::exit_code(check::cmd_check(&args)),
        Command::History(args) => error::exit_code(history::cmd_history(&args)),
        Command::Init(args) => error::exit_code(init::cmd_init(&args)),
        Command::Demo(args) => error::exit_code(demo::cmd_demo(&args)),
        Command::Cache(args) => error::exit_code(cache::cmd_cache(&args)),
        Command::InstallMan(args) => error::exit_code(man::cmd_install_man(&args)),
    }
}
