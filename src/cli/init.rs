//! `git rmc init`: a commented `.rmc.toml` listing the repository's model files, `.rmc/` in
//! git's exclude file, and with --hook the pre-push hook.

use std::path::Path;

use clap::Args;

use super::error::Outcome;
use super::walk::{At, Session};
use crate::config::{self, Config};

/// The pre-push hook `--hook` installs.
pub const HOOK: &str = include_str!("../../hooks/pre-push");

/// Set up git rmc in this repository: .rmc.toml, the cache's exclude line, the hook
///
/// Writes a commented .rmc.toml listing the Promela models found: *.pml, *.prom and *.pr
/// files with a process to run (an active proctype or init). Files other models #include
/// are listed once, through their entry file; files of declarations or inlines only are
/// left out, each named with the reason. An existing .rmc.toml is kept. Adds .rmc/ (the
/// cache) to git's exclude file; with --hook, installs the pre-push hook that checks what
/// is pushed.
///
///   git rmc init
///   git rmc init --hook
#[derive(Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct InitArgs {
    /// Also install the pre-push hook (where `git rev-parse --git-path hooks` says, so that
    /// core.hooksPath is honoured).
    #[arg(long)]
    pub hook: bool,
    /// Replace a different pre-push hook already there (only the hook is replaced).
    #[arg(long, requires = "hook")]
    pub force: bool,
}

pub fn cmd_init(args: &InitArgs) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let s = Session::open(&cwd)?;
    let cfg = s.root.join(config::FILE_NAME);
    if cfg.exists() {
        say(&format!("kept the existing {}", config::FILE_NAME));
    } else {
        let (entries, left_out) = s.entries(At::WorkTree)?;
        crate::cache::write_atomic(&cfg, Config::template(&entries).as_bytes())?;
        say(&format!(
            "wrote {} with {} model{}{}",
            config::FILE_NAME,
            entries.len(),
            if entries.len() == 1 { "" } else { "s" },
            if entries.is_empty() {
                String::new()
            } else {
                format!(
                    ": {}",
                    entries
                        .iter()
                        .map(|e| e.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ));
        for (f, why) in &left_out {
            say(&format!("left out {}: {why}", f.display()));
        }
    }
    exclude(&s.repo.exclude_file())?;
    if args.hook {
        let dir = s.repo.hooks_dir()?;
        let path = dir.join("pre-push");
        match std::fs::read_to_string(&path) {
            Ok(t) if t == HOOK => say(&format!("the pre-push hook is installed: {}", path.display())),
            Ok(_) if !args.force => anyhow::bail!(
                "{} is another pre-push hook: not replaced (git rmc init --hook --force replaces it)",
                path.display()
            ),
            _ => {
                std::fs::create_dir_all(&dir)?;
                crate::cache::write_atomic(&path, HOOK.as_bytes())?;
                make_executable(&path)?;
                say(&format!("installed the pre-push hook: {}", path.display()));
            }
        }
    }
    Ok(Outcome::Ok)
}

fn say(s: &str) {
    if !super::quiet() {
        eprintln!("{s}");
    }
}

/// Adds `.rmc/` to the exclude file unless a line already names it.
fn exclude(path: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    if text
        .lines()
        .any(|l| matches!(l.trim(), ".rmc/" | ".rmc" | "/.rmc/" | "/.rmc"))
    {
        return Ok(());
    }
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    let mut new = text;
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str("# git rmc's cache\n.rmc/\n");
    crate::cache::write_atomic(path, new.as_bytes())?;
    say(&format!("added .rmc/ to {}", path.display()));
    Ok(())
}

#[cfg(unix)]
fn make_executable(p: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> std::io::Result<()> {
    Ok(())
}
