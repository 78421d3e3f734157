//! The command line: argument parsing (clap), one file per command, and the single place that
//! maps outcomes to exit codes (`error.rs`). Glue only: the engine computes, `report` renders.

pub mod error;
pub mod show;
pub mod verify;

use clap::{Parser, Subcommand};

/// Regression model checking for Promela models kept in git.
///
/// git rmc reads Promela models exactly as SPIN 6.5.2 does (with a built-in C preprocessor)
/// and lowers each proctype to the automaton pan would run. Checking commands follow.
#[derive(Parser, Debug)]
#[command(name = "git-rmc", bin_name = "git rmc", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Show(show::ShowArgs),
    Verify(verify::VerifyArgs),
}

/// Runs the parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Show(args) => error::exit_code(show::cmd_show(&args)),
        Command::Verify(args) => error::exit_code(verify::cmd_verify(&args)),
    }
}
