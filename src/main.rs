//! The `git-rmc` binary: parse arguments, run, exit with the code the CLI decided.

use clap::Parser;

fn main() {
    let cli = git_rmc::cli::Cli::parse();
    std::process::exit(git_rmc::cli::run(cli));
}
