//! `git rmc install-man`: the manual pages, rendered from the command definitions by
//! clap_mangen (the same text as `-h` and `--help`), written where `man` looks for them, so
//! that `git rmc --help`, which git turns into `man git-rmc`, finds a page. Glue only: the
//! pages are clap's, the folder the user's.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, CommandFactory};

use super::error::Outcome;

/// Install the manual pages, so that git rmc --help finds one
///
/// git turns `git rmc --help` into `man git-rmc`, which finds nothing until a page is
/// installed. This writes git-rmc.1 and a page per command (git-rmc-check.1,
/// git-rmc-history.1, ...), rendered from the definitions `-h` prints, into a folder `man`
/// searches, and says whether it does. `git rmc -h` and `git rmc <command> --help` work
/// without any page.
///
///   git rmc install-man                        into ~/.local/share/man/man1
///   git rmc install-man --dir /usr/local/share/man/man1
///
/// The default folder is $XDG_DATA_HOME/man/man1 when XDG_DATA_HOME is set, else
/// ~/.local/share/man/man1; man searches it when ~/.local/bin is on PATH, or when MANPATH
/// names it.
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct InstallManArgs {
    /// The folder to write the pages into (a `man1` folder of man's search path).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn cmd_install_man(args: &InstallManArgs) -> anyhow::Result<Outcome> {
    let dir = match &args.dir {
        Some(d) => d.clone(),
        None => default_dir()?,
    };
    let pages = pages().context("cannot render the manual pages")?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, text) in &pages {
        let path = dir.join(name);
        crate::cache::write_atomic(&path, text)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if super::quiet() {
        return Ok(Outcome::Ok);
    }
    eprintln!(
        "wrote {} manual pages to {}: {}",
        pages.len(),
        dir.display(),
        pages
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    // man reads section 1 from the `man1` folder of each folder of its search path.
    let root = match dir.file_name() {
        Some(n) if n == "man1" => dir.parent().unwrap_or(&dir).to_path_buf(),
        _ => {
            eprintln!(
                "note: man finds section 1 pages in a folder named man1 (under a folder of \
                 its search path): `man git-rmc` will not find these where they are"
            );
            return Ok(Outcome::Ok);
        }
    };
    let add = format!("  export MANPATH=\"{}:$MANPATH\"", root.display());
    match searched(&root) {
        Some(true) => eprintln!(
            "man searches {}: `git rmc --help` and `man git-rmc` show them",
            root.display()
        ),
        Some(false) => eprintln!(
            "man does not search {} (it is not in `manpath`); add it, in your shell's \
             profile for instance:\n{add}",
            root.display()
        ),
        None => eprintln!(
            "could not ask `manpath` whether man searches {}; if `man git-rmc` finds no \
             page, add it:\n{add}",
            root.display()
        ),
    }
    Ok(Outcome::Ok)
}

/// Every page: the command's (`git-rmc.1`) and each subcommand's, nested ones too
/// (`git-rmc-cache-gc.1`), as (file name, roff text). No page for `help`, which only prints
/// the others' help.
pub fn pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    // Building gives every subcommand its full name (`git-rmc-check`, `git rmc check`).
    cmd.build();
    let mut out = Vec::new();
    collect(&cmd, &mut out)?;
    Ok(out)
}

fn collect(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone())
        .source(format!("git-rmc {}", env!("CARGO_PKG_VERSION")))
        .manual("git rmc");
    let mut text = Vec::new();
    man.render(&mut text)?;
    out.push((man.get_filename(), text));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, out)?;
    }
    Ok(())
}

/// `$XDG_DATA_HOME/man/man1`, else `~/.local/share/man/man1`: the user's own pages, which
/// man-db searches when `~/.local/bin` is on PATH (it maps each `<prefix>/bin` on PATH to
/// `<prefix>/share/man`).
fn default_dir() -> anyhow::Result<PathBuf> {
    let xdg = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from);
    if let Some(x) = xdg.filter(|x| x.is_absolute()) {
        return Ok(x.join("man").join("man1"));
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".local/share/man/man1")),
        None => anyhow::bail!("HOME is not set: name the folder with --dir"),
    }
}

/// Whether `man` searches `root`, by `manpath`'s list; None when there is no `manpath` to ask.
fn searched(root: &Path) -> Option<bool> {
    let out = std::process::Command::new("manpath")
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let same = |p: &Path| match (std::fs::canonicalize(p), std::fs::canonicalize(root)) {
        (Ok(a), Ok(b)) => a == b,
        _ => p == root,
    };
    let list = String::from_utf8_lossy(&out.stdout);
    Some(std::env::split_paths(list.trim()).any(|p| same(&p)))
}
