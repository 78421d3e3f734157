//! The `.rmc/` directory: records by content hash, the per-commit results index, the lock
//! that lets concurrent runs take turns, and gc. The only code that writes there.
//!
//! ```text
//! <root>/VERSION                              the layout's format number (FORMAT)
//! <root>/lock                                 locked by the open Cache; holds its pid
//! <root>/records/<model>/<content-hash>.rec   Record::write_to of one check
//! <root>/results/<ab>/<abcdef…>.json          per commit: {"<model>": <result>, …}
//! ```
//!
//! `<model>` is the caller's model key escaped into a portable file name (`names`); hashes
//! are lowercase hex from the caller (`Sources::content_hash`), commits 40 (or 64) hex
//! digits. Every file is written atomically (`atomic`), so a crash leaves the old file or the
//! new one, plus at worst a temporary file that gc and clear sweep.
//!
//! **Invariant:** knows nothing of git, Promela or the search: records and results are
//! opaque bytes and JSON values; parsing them and warning about bad ones is the caller's.
//! **Invariant:** prints nothing; a note for the user (a rebuilt cache) is returned.
//! **Invariant:** deletes only what the layout names (`records/`, `results/`, its own
//! temporary files), so a cache directory set to a folder holding other files never loses
//! them.

mod atomic;
mod lock;
mod names;
mod results;
mod sweep;

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

pub use atomic::{write_atomic, write_atomic_with};
pub use sweep::{Freed, Listing, ModelRecords, RecordInfo};

/// The layout's format, in `<root>/VERSION`. Bumped when a folder or file format changes;
/// a cache with another number is cleared and rebuilt.
pub const FORMAT: u32 = 1;
/// Overrides `cache_dir` and the default; relative values are relative to the work tree root.
pub const ENV_CACHE_DIR: &str = "GIT_RMC_CACHE_DIR";
/// The cache's folder under the work tree root unless configured.
pub const DEFAULT_DIR: &str = ".rmc";

const VERSION: &str = "VERSION";
const LOCK: &str = "lock";
const RECORDS: &str = "records";
const RECORD_EXT: &str = ".rec";

/// An open, locked cache. The lock is released when it is dropped.
#[derive(Debug)]
pub struct Cache {
    root: PathBuf,
    /// Holds the lock for as long as the cache is open.
    _lock: File,
    /// Serialises the read-modify-write of results files between threads sharing this
    /// cache (the file lock keeps other processes out, not other threads).
    results_lock: Mutex<()>,
}

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error(
        "another git rmc run{} is using the cache at {}; gave up after waiting {:.1}s",
        holder.map(|p| format!(" (pid {p})")).unwrap_or_default(),
        root.display(),
        waited.as_secs_f64()
    )]
    Busy {
        root: PathBuf,
        holder: Option<u32>,
        waited: Duration,
    },
    #[error("cannot lock the cache ({}): {err}", path.display())]
    Lock { path: PathBuf, err: std::io::Error },
    #[error(
        "{} holds files but no VERSION, so it is not a git rmc cache; point {ENV_CACHE_DIR} or \
         cache_dir at a new or empty folder",
        root.display()
    )]
    NotACache { root: PathBuf },
    #[error("{action} {}: {err}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        err: std::io::Error,
    },
    #[error("'{0}' is not a commit id (40 or 64 lowercase hex digits)")]
    BadCommit(String),
    #[error("'{0}' is not a content hash (lowercase hex digits)")]
    BadHash(String),
    #[error("cannot encode the results for {}: {err}", path.display())]
    Encode {
        path: PathBuf,
        err: serde_json::Error,
    },
}

impl CacheError {
    fn io(action: &'static str, path: &Path, err: std::io::Error) -> CacheError {
        CacheError::Io {
            action,
            path: path.to_path_buf(),
            err,
        }
    }
}

impl Cache {
    /// Opens the cache at `root`, creating it when missing, and takes its lock, waiting up
    /// to `wait` for another run to release it. A cache of another format is cleared and
    /// rebuilt; the note returned then says so, for the caller to print.
    pub fn open(root: &Path, wait: Duration) -> Result<(Cache, Option<String>), CacheError> {
        fs::create_dir_all(root).map_err(|err| CacheError::io("cannot create", root, err))?;
        let lock_path = root.join(LOCK);
        let had_lock = lock_path.exists();
        let lock = lock::acquire(&lock_path, root, wait)?;
        let cache = Cache {
            root: root.to_path_buf(),
            _lock: lock,
            results_lock: Mutex::new(()),
        };
        match cache.check_version() {
            Ok(note) => Ok((cache, note)),
            Err(e @ CacheError::NotACache { .. }) => {
                // Leave a folder that is not ours as it was found.
                if !had_lock {
                    let _ = fs::remove_file(&lock_path);
                }
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    /// Clears a cache of another format and writes this one's VERSION.
    fn check_version(&self) -> Result<Option<String>, CacheError> {
        let path = self.root.join(VERSION);
        let found = match fs::read_to_string(&path) {
            Ok(text) => Some(text.trim().to_string()),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(err) => return Err(CacheError::io("cannot read", &path, err)),
        };
        let note = match found {
            Some(v) if v == FORMAT.to_string() => return Ok(None),
            Some(v) => {
                let made_by = match v.parse::<u32>() {
                    Ok(n) => format!("cache format {n}"),
                    Err(_) => "an unreadable VERSION".to_string(),
                };
                let freed = self.clear()?;
                Some(format!(
                    "the cache at {} has {made_by} (this git rmc uses format {FORMAT}): cleared \
                     {} files ({} bytes); it will be rebuilt",
                    self.root.display(),
                    freed.files,
                    freed.bytes
                ))
            }
            // Every cache gets its VERSION before anything else, so one without it but with
            // content was not made here: refuse rather than delete someone's folders.
            None if sweep::has_content(&self.root)? => {
                return Err(CacheError::NotACache {
                    root: self.root.clone(),
                })
            }
            None => None,
        };
        write_atomic(&path, format!("{FORMAT}\n").as_bytes())
            .map_err(|err| CacheError::io("cannot write", &path, err))?;
        Ok(note)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the record of `model` with content hash `hash` is (or would be).
    pub fn record_path(&self, model: &str, hash: &str) -> PathBuf {
        // An invalid hash is escaped like a model key, so the path stays inside the cache;
        // put and get refuse it.
        self.root
            .join(RECORDS)
            .join(names::encode(model))
            .join(format!("{}{RECORD_EXT}", names::encode(hash)))
    }

    pub fn has_record(&self, model: &str, hash: &str) -> bool {
        names::is_hash(hash) && self.record_path(model, hash).is_file()
    }

    /// Stores a record atomically (temporary file, fsync, rename) and returns the bytes
    /// written.
    pub fn put_record(&self, model: &str, hash: &str, bytes: &[u8]) -> Result<u64, CacheError> {
        self.put_record_with(model, hash, |w| {
            w.write_all(bytes)?;
            Ok(bytes.len() as u64)
        })
    }

    /// As `put_record`, the file written by `write` as it goes (`Record::write_to`).
    pub fn put_record_with(
        &self,
        model: &str,
        hash: &str,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<u64>,
    ) -> Result<u64, CacheError> {
        check_hash(hash)?;
        let path = self.record_path(model, hash);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|err| CacheError::io("cannot create", dir, err))?;
        }
        write_atomic_with(&path, write).map_err(|err| CacheError::io("cannot write", &path, err))
    }

    /// The record's bytes, or `None` when there is none. Whether they parse is the
    /// caller's to check (and to warn about).
    pub fn get_record(&self, model: &str, hash: &str) -> Result<Option<Vec<u8>>, CacheError> {
        let Some(mut file) = self.open_record(model, hash)? else {
            return Ok(None);
        };
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut b)
            .map_err(|err| CacheError::io("cannot read", &self.record_path(model, hash), err))?;
        Ok(Some(b))
    }

    /// The record file, opened, or `None` when there is none (a reader maps it rather than
    /// read a gigabyte into memory; records are replaced by rename, never rewritten).
    pub fn open_record(&self, model: &str, hash: &str) -> Result<Option<fs::File>, CacheError> {
        check_hash(hash)?;
        let path = self.record_path(model, hash);
        match fs::File::open(&path) {
            Ok(f) => Ok(Some(f)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(err) => Err(CacheError::io("cannot read", &path, err)),
        }
    }

    /// Sets `model`'s result at `commit`, keeping the other models' (read, modify, write
    /// atomically).
    pub fn put_result(&self, commit: &str, model: &str, value: &Value) -> Result<(), CacheError> {
        check_commit(commit)?;
        let path = results::path(&self.root, commit);
        // A panic elsewhere while holding the guard leaves nothing half-done to protect.
        let _guard = self
            .results_lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut map = results::read(&path)?;
        map.insert(model.to_string(), value.clone());
        results::write(&path, &map)
    }

    /// `model`'s result at `commit`; `None` when absent or when the file is corrupt (it is
    /// then removed).
    pub fn get_result(&self, commit: &str, model: &str) -> Result<Option<Value>, CacheError> {
        Ok(self.results(commit)?.remove(model))
    }

    /// Every model's result at `commit` (empty when none, or when the file is corrupt).
    pub fn results(&self, commit: &str) -> Result<BTreeMap<String, Value>, CacheError> {
        check_commit(commit)?;
        results::read(&results::path(&self.root, commit))
    }

    /// Everything stored: per model its records (hash, bytes on disk, modification time),
    /// and the commits with results.
    pub fn ls(&self) -> Result<Listing, CacheError> {
        sweep::ls(&self.root)
    }

    /// Deletes every record whose (model, hash) is not in `keep`, every results file whose
    /// commit is not in `keep_commits`, and anything else under `records/` and `results/`
    /// this module did not write (temporary files of crashed runs).
    pub fn gc(
        &self,
        keep: &HashSet<(String, String)>,
        keep_commits: &HashSet<String>,
    ) -> Result<Freed, CacheError> {
        sweep::gc(&self.root, keep, keep_commits)
    }

    /// Deletes every record and result; the lock and VERSION stay.
    pub fn clear(&self) -> Result<Freed, CacheError> {
        sweep::clear(&self.root)
    }
}

fn check_hash(hash: &str) -> Result<(), CacheError> {
    if names::is_hash(hash) {
        Ok(())
    } else {
        Err(CacheError::BadHash(hash.to_string()))
    }
}

fn check_commit(commit: &str) -> Result<(), CacheError> {
    if names::is_commit(commit) {
        Ok(())
    } else {
        Err(CacheError::BadCommit(commit.to_string()))
    }
}

/// Where the cache is: `GIT_RMC_CACHE_DIR` when set (relative values are relative to the
/// work tree root), else the configured `cache_dir` (likewise), else `<work tree>/.rmc`.
pub fn location(worktree_root: &Path, configured: Option<&Path>) -> PathBuf {
    location_from(
        worktree_root,
        configured,
        std::env::var_os(ENV_CACHE_DIR).as_deref(),
    )
}

/// `location` with the environment variable's value given, so tests need not set it.
fn location_from(worktree_root: &Path, configured: Option<&Path>, env: Option<&OsStr>) -> PathBuf {
    // An empty value is unset: joining it would put the cache at the work tree root.
    let chosen = env
        .filter(|v| !v.is_empty())
        .map(Path::new)
        .or(configured.filter(|c| !c.as_os_str().is_empty()))
        .unwrap_or(Path::new(DEFAULT_DIR));
    // join keeps an absolute path as it is.
    worktree_root.join(chosen)
}

#[cfg(test)]
mod tests;
