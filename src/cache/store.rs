//! The user-level record store: records by content hash alone, in one folder that every
//! clone and linked worktree of the user shares (by default the platform's cache folder), so
//! that a model checked in one clone is not checked from nothing in another. The work
//! tree's `.rmc/` keeps its results and points at records here by their hash.
//!
//! ```text
//! <store>/v1/lock              shared by every run using the store; exclusive to delete
//! <store>/v1/records/<hash>.rec
//! <store>/v1/clones/<id>.json  one per .rmc/ using the store: its path and the records its
//!                              branch tips need, so that gc in one clone spares another's
//! ```
//!
//! Keyed by the content hash alone, not by the model's name in `.rmc.toml`: the hash already
//! covers everything a check depends on (every file read, by path and text, the defines and
//! include folders, the checks and the semantics version), so two clones (or a renamed
//! model) with the same content share its record; and a record written on a base
//! (`Record::write_beside`) finds its base in the same folder whatever the models are
//! called. A different content under the same hash (a 64-bit collision) would cost a check,
//! not a verdict: a record is only ever a base, whose impact analysis compares the programs.
//!
//! Runs in different clones write concurrently: records are written to a temporary file and
//! renamed, so a reader sees a whole record or none. Deleting (gc, the size budget) needs the
//! lock exclusive, that is, no other run using the store, so no record is deleted under a
//! run that reads it or is writing a record on it.
//!
//! **Invariant:** deletes only what its layout names (`v1/records`, `v1/clones`, temporary
//! files), so a store folder set to a folder holding other files never loses them.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::lock::{self, Mode};
use super::{atomic, names, CacheError, RECORD_EXT};

/// The store's layout, in the name of its folder (`v1`): a store of another format sits
/// beside it rather than being cleared, so two versions of git rmc on one machine do not
/// take turns deleting each other's records.
pub const FORMAT: u32 = 1;
const RECORDS: &str = "records";
const CLONES: &str = "clones";
const LOCK: &str = "lock";

/// An open store; its lock is held shared until it is dropped.
#[derive(Debug)]
pub(super) struct Store {
    /// `<store>/v<FORMAT>`.
    dir: PathBuf,
    lock: File,
}

impl Store {
    /// Opens (creating) the store under `root` and takes its lock shared, waiting up to
    /// `wait` for a gc in another run. Temporary files whose writer is gone are removed.
    pub(super) fn open(root: &Path, wait: Duration) -> Result<Store, CacheError> {
        let dir = root.join(format!("v{FORMAT}"));
        for d in [dir.join(RECORDS), dir.join(CLONES)] {
            fs::create_dir_all(&d).map_err(|err| CacheError::io("cannot create", &d, err))?;
        }
        let path = dir.join(LOCK);
        let lock_err = |err| CacheError::Lock {
            path: path.clone(),
            err,
        };
        let lock = lock::open(&path).map_err(lock_err)?;
        if let Err(waited) = lock::take(&lock, Mode::Shared, wait).map_err(lock_err)? {
            return Err(CacheError::Busy {
                root: dir,
                holder: lock::holder(&lock),
                waited,
            });
        }
        let store = Store { dir, lock };
        store.sweep_temp(false);
        Ok(store)
    }

    /// The store's folder (`<store>/v1`).
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    pub(super) fn records(&self) -> PathBuf {
        self.dir.join(RECORDS)
    }

    /// Where the record of content `hash` is or would be (`hash` checked by the caller).
    pub(super) fn record(&self, hash: &str) -> PathBuf {
        self.records().join(format!("{hash}{RECORD_EXT}"))
    }

    /// Runs `f` with the store to this run alone (its lock exclusive), when no other run
    /// uses it within `wait`; `None` when one does. The lock is shared again afterwards.
    pub(super) fn alone<T>(
        &self,
        wait: Duration,
        f: impl FnOnce() -> Result<T, CacheError>,
    ) -> Result<Option<T>, CacheError> {
        let lock_err = |err| CacheError::Lock {
            path: self.dir.join(LOCK),
            err,
        };
        self.lock.unlock().map_err(lock_err)?;
        let got = lock::take(&self.lock, Mode::Exclusive, wait);
        let out = match got {
            Ok(Ok(())) => {
                lock::note_holder(&self.lock);
                // Alone: every temporary file is a leftover.
                self.sweep_temp(true);
                let out = f();
                self.lock.unlock().map_err(lock_err)?;
                Some(out)
            }
            Ok(Err(_)) => None,
            Err(err) => {
                let _ = self.lock.lock_shared();
                return Err(lock_err(err));
            }
        };
        // Waits only for a gc in another run, which is short.
        self.lock.lock_shared().map_err(lock_err)?;
        out.transpose()
    }

    /// Registers the cache at `cache_root` as a user of the store that needs `needs` (its
    /// branch tips' records, with the bases they stand on).
    pub(super) fn register(
        &self,
        cache_root: &Path,
        needs: &BTreeSet<String>,
    ) -> Result<(), CacheError> {
        let cache = fs::canonicalize(cache_root).unwrap_or_else(|_| cache_root.to_path_buf());
        let path = self.clone_file(&cache);
        let text = serde_json::json!({
            "cache": cache.to_string_lossy(),
            "needs": needs,
        });
        let mut bytes = serde_json::to_vec_pretty(&text).map_err(|err| CacheError::Encode {
            path: path.clone(),
            err,
        })?;
        bytes.push(b'\n');
        atomic::write_atomic(&path, &bytes)
            .map_err(|err| CacheError::io("cannot write", &path, err))?;
        Ok(())
    }

    /// The records that the other caches registered here still need, and how many caches
    /// use the store (this one included when registered). A registration whose cache folder
    /// is gone (a deleted clone) counts for nothing, and is removed when `remove_dead`.
    pub(super) fn pinned(
        &self,
        cache_root: &Path,
        remove_dead: bool,
    ) -> Result<(BTreeSet<String>, usize), CacheError> {
        let cache = fs::canonicalize(cache_root).unwrap_or_else(|_| cache_root.to_path_buf());
        let own = self.clone_file(&cache);
        let mut pins = BTreeSet::new();
        let mut users = 0;
        let dir = self.dir.join(CLONES);
        let read = match fs::read_dir(&dir) {
            Ok(r) => r,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok((pins, 0)),
            Err(err) => return Err(CacheError::io("cannot list", &dir, err)),
        };
        for e in read.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if atomic::is_temp(&name) || !name.ends_with(".json") {
                continue;
            }
            let reg: Option<serde_json::Value> = fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok());
            let folder = reg.as_ref().and_then(|r| r["cache"].as_str());
            // A cache is alive while its VERSION is there: a deleted clone's is not.
            let alive = folder.is_some_and(|f| Path::new(f).join(super::VERSION).is_file());
            if !alive {
                if remove_dead {
                    let _ = fs::remove_file(&path);
                }
                continue;
            }
            users += 1;
            if path == own {
                continue;
            }
            if let Some(needs) = reg.as_ref().and_then(|r| r["needs"].as_array()) {
                pins.extend(
                    needs
                        .iter()
                        .filter_map(|h| h.as_str())
                        .filter(|h| names::is_hash(h))
                        .map(str::to_string),
                );
            }
        }
        Ok((pins, users))
    }

    /// The registration file of a cache folder: named by a hash of its path.
    fn clone_file(&self, cache: &Path) -> PathBuf {
        let id = xxhash_rust::xxh3::xxh3_64(cache.to_string_lossy().as_bytes());
        self.dir.join(CLONES).join(format!("{id:016x}.json"))
    }

    /// Removes temporary files in the store's folders: those whose writer is gone, or every
    /// one when `all` (the store to this run alone, so no writer is alive). Best effort: a
    /// file that cannot be removed now is tried again next time.
    fn sweep_temp(&self, all: bool) {
        for dir in [self.dir.clone(), self.records(), self.dir.join(CLONES)] {
            let Ok(read) = fs::read_dir(&dir) else {
                continue;
            };
            for e in read.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let path = e.path();
                let is_file = e.file_type().is_ok_and(|t| t.is_file());
                if is_file && atomic::is_temp(&name) && (all || atomic::is_stale(&path, &name)) {
                    let _ = fs::remove_file(&path);
                }
            }
        }
    }
}
