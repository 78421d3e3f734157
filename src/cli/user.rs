//! The user-level folders and settings, found with `directories` (on Linux they follow
//! `XDG_CACHE_HOME` and `XDG_CONFIG_HOME`): the record store that the user's clones share
//! (`<cache folder>/git-rmc`, or `GIT_RMC_STORE`), and the user's settings file
//! (`<config folder>/git-rmc/config.toml`, or `GIT_RMC_CONFIG`), whose values are defaults
//! that `.rmc.toml` and flags override: the memory limit, colour, progress and the cache's
//! size budget. Read once per run (`load`); parsing is `config::UserConfig`'s.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::Context;

use crate::config::{self, Size, UserConfig};

/// The record store's folder, or `none` to keep records in the work tree's cache (`.rmc/`)
/// as before there was a store. Relative values are relative to the work tree root.
pub const ENV_STORE: &str = "GIT_RMC_STORE";
/// The user's settings file, or `none` to read none.
pub const ENV_CONFIG: &str = "GIT_RMC_CONFIG";
/// The settings file's name in the platform's configuration folder.
pub const CONFIG_FILE: &str = "config.toml";

static USER: OnceLock<(UserConfig, Option<PathBuf>)> = OnceLock::new();

/// The platform's folders for git rmc, when the system has a home folder.
fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "git-rmc")
}

/// `none` (any case) turns a folder or file off.
fn is_none(v: &str) -> bool {
    v.trim().eq_ignore_ascii_case("none")
}

/// Where the user's settings file is: `GIT_RMC_CONFIG` (`none`: nowhere), else
/// `config.toml` in the platform's configuration folder.
pub fn config_path() -> Option<PathBuf> {
    match std::env::var_os(ENV_CONFIG) {
        Some(v) if !v.is_empty() => {
            if v.to_str().is_some_and(is_none) {
                None
            } else {
                Some(PathBuf::from(v))
            }
        }
        _ => project_dirs().map(|d| d.config_dir().join(CONFIG_FILE)),
    }
}

/// Reads the user's settings file once (a missing file is no settings). An unreadable or
/// invalid file is an error that names it (and the line and column).
pub fn load() -> anyhow::Result<&'static UserConfig> {
    if let Some((u, _)) = USER.get() {
        return Ok(u);
    }
    let path = config_path();
    let user = match &path {
        None => UserConfig::default(),
        Some(p) => match std::fs::read_to_string(p) {
            Ok(text) => UserConfig::parse(&text, &p.display().to_string())?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => UserConfig::default(),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", p.display()));
            }
        },
    };
    Ok(&USER.get_or_init(|| (user, path)).0)
}

/// The user's settings as `load` read them (none before it, or when it failed).
pub fn settings() -> &'static UserConfig {
    static NONE: OnceLock<UserConfig> = OnceLock::new();
    match USER.get() {
        Some((u, _)) => u,
        None => NONE.get_or_init(UserConfig::default),
    }
}

/// The settings file `load` read, to name where a value came from.
fn settings_file() -> String {
    USER.get()
        .and_then(|(_, p)| p.as_ref())
        .map_or_else(|| CONFIG_FILE.to_string(), |p| p.display().to_string())
}

/// Where the record store is, or `None` to keep records in the work tree's cache:
/// `GIT_RMC_STORE` (`none`: no store; relative to the work tree root), else none when
/// `GIT_RMC_CACHE_DIR` is set (a cache folder that CI saves and restores holds its records
/// itself), else the platform's cache folder.
pub fn store_location(worktree_root: &Path) -> Option<PathBuf> {
    store_location_from(
        worktree_root,
        std::env::var_os(ENV_STORE).as_deref(),
        std::env::var_os(crate::cache::ENV_CACHE_DIR).as_deref(),
        project_dirs().map(|d| d.cache_dir().to_path_buf()),
    )
}

/// `store_location` with the environment given, so tests need not set it.
fn store_location_from(
    worktree_root: &Path,
    store: Option<&std::ffi::OsStr>,
    cache_dir: Option<&std::ffi::OsStr>,
    platform: Option<PathBuf>,
) -> Option<PathBuf> {
    match store.filter(|v| !v.is_empty()) {
        Some(v) if v.to_str().is_some_and(is_none) => None,
        Some(v) => Some(worktree_root.join(v)),
        None if cache_dir.is_some_and(|v| !v.is_empty()) => None,
        None => platform,
    }
}

/// The records' size budget and where it was set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub size: Size,
    /// Where it came from: `max_size in .rmc.toml`, in the user's settings, or the default.
    pub origin: String,
}

/// The budget: `[cache] max_size` in the work tree's `.rmc.toml` (`repo`), else in the
/// user's settings, else `DEFAULT_MAX_SIZE`.
pub fn budget(repo: Option<Size>) -> Budget {
    if let Some(size) = repo {
        return Budget {
            size,
            origin: format!("max_size under [cache] in {}", config::FILE_NAME),
        };
    }
    if let Some(size) = settings().cache.max_size.clone() {
        return Budget {
            size,
            origin: format!("max_size under [cache] in {}", settings_file()),
        };
    }
    Budget {
        size: Size::parse(config::DEFAULT_MAX_SIZE).unwrap_or(Size {
            bytes: 2 << 30,
            text: config::DEFAULT_MAX_SIZE.into(),
        }),
        origin: "the default; set max_size under [cache] in .rmc.toml or your settings".into(),
    }
}

/// The memory limit the user's settings give where `.rmc.toml` and the command line leave
/// it at `auto`: (bytes, where it came from), or `None` (auto).
pub fn memory() -> Option<(u64, String)> {
    match settings().memory {
        Some(config::MemoryLimit::Bytes(n)) => Some((n, format!("memory in {}", settings_file()))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_store_is_the_environments_then_none_beside_a_ci_cache_then_the_platforms() {
        let wt = Path::new("/repo");
        let platform = Some(PathBuf::from("/home/u/.cache/git-rmc"));
        let at = |store: Option<&str>, cache: Option<&str>| {
            store_location_from(
                wt,
                store.map(OsStr::new),
                cache.map(OsStr::new),
                platform.clone(),
            )
        };
        assert_eq!(at(None, None), platform);
        assert_eq!(at(Some("/s"), None), Some(PathBuf::from("/s")));
        assert_eq!(at(Some("st"), None), Some(PathBuf::from("/repo/st")));
        assert_eq!(at(Some("none"), None), None);
        assert_eq!(at(Some("None"), None), None);
        // GIT_RMC_CACHE_DIR keeps its records unless a store is named.
        assert_eq!(at(None, Some("/ci/rmc")), None);
        assert_eq!(at(Some("/s"), Some("/ci/rmc")), Some(PathBuf::from("/s")));
        // Empty values are unset.
        assert_eq!(at(Some(""), Some("")), platform);
    }

    #[test]
    fn the_budget_is_the_repositorys_then_the_users_then_the_default() {
        let b = budget(Size::parse("5M").ok());
        assert_eq!((b.size.bytes, b.size.text.as_str()), (5 << 20, "5M"));
        assert!(b.origin.contains(".rmc.toml"), "{}", b.origin);
        let d = budget(None);
        // No settings were loaded in this test process: the default.
        assert_eq!((d.size.bytes, d.size.text.as_str()), (2 << 30, "2G"));
    }
}
