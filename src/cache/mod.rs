//! The `.rmc/` directory and the user-level record store: records by content hash, the
//! per-commit results index, the locks that let concurrent runs take turns, gc and the size
//! budget. The only code that writes there.
//!
//! ```text
//! <root>/VERSION                              the layout's format number (FORMAT)
//! <root>/lock                                 locked by the open Cache; holds its pid
//! <root>/records/<model>/<content-hash>.rec   Record::write_to of one check, when there is
//!                                             no store (GIT_RMC_STORE=none), or written
//!                                             before there was one
//! <root>/results/<ab>/<abcdef…>.json          per commit: {"<model>": <result>, …}
//! <store>/v1/records/<content-hash>.rec       records, shared by the user's clones (`store`)
//! ```
//!
//! `<model>` is the caller's model key escaped into a portable file name (`names`); hashes
//! are lowercase hex from the caller (`Sources::content_hash`), commits 40 (or 64) hex
//! digits. Every file is written atomically (`atomic`), so a crash leaves the old file or the
//! new one, plus at worst a temporary file named after its writer's pid, which the next
//! open removes once that writer is gone (gc and clear sweep them too).
//!
//! With a store, `.rmc/` is the work tree's index of results (and its lock): a record is
//! read from the store, else from `.rmc/records/` (a cache from before the store), and
//! written where it is, else to the store; a store that cannot be written falls back to
//! `.rmc/records/` (with a note). Reading a record refreshes its modification time, which
//! the size budget (`enforce_budget`, `budget`) takes for its last use.
//!
//! **Invariant:** knows nothing of git, Promela or the search: records and results are
//! opaque bytes and JSON values; parsing them and warning about bad ones is the caller's.
//! **Invariant:** prints nothing; a note for the user (a rebuilt cache) is returned.
//! **Invariant:** deletes only what the layout names (`records/`, `results/`, its own
//! temporary files), so a cache directory set to a folder holding other files never loses
//! them.
//! **Invariant:** a record in the store is deleted only while no other run uses the store
//! (`Store::alone`), and never one a registered clone's branch tips need or a kept record
//! stands on; which record stands on which is the caller's to say (`BaseOf`), so the cache
//! stays blind to what records hold.

mod atomic;
mod budget;
mod lock;
mod names;
mod results;
mod store;
mod sweep;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde_json::Value;

pub use atomic::{write_atomic, write_atomic_with};
pub use store::FORMAT as STORE_FORMAT;
use sweep::record_hash;
pub use sweep::{CommitResults, Freed, Listing, ModelRecords, RecordInfo, StoreListing};

/// The name of the record a record file stands on (`Record::base_of`), if any: given by the
/// caller, which knows what records hold.
pub type BaseOf<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// What the records a run's clone needs are: (model key, content hash) pairs, as the
/// results index names them.
pub type Needs = HashSet<(String, String)>;

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
    /// The user-level record store, when one is used (`use_store`).
    store: Option<store::Store>,
    /// Records read or written since the cache was opened: a run that used none has no
    /// budget to enforce.
    used: AtomicU64,
    /// Notes for the user (a record the store could not take), for the caller to print.
    notes: Mutex<Vec<String>>,
}

/// What `enforce_budget` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Eviction {
    /// The records deleted.
    pub dropped: Freed,
    /// The bytes of the records left (in `.rmc/` and the store).
    pub kept: u64,
    /// Another run was using the store, so none of its records could be deleted.
    pub store_busy: bool,
}

/// What `gc` or `clear` did in the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreSweep {
    /// No store in use.
    None,
    /// Another run was using the store: nothing was deleted there.
    Busy,
    Freed(Freed),
}

/// What `gc` deleted: in `.rmc/`, and in the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swept {
    pub local: Freed,
    pub store: StoreSweep,
    /// The records left, in `.rmc/` and the store.
    pub kept: usize,
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
            store: None,
            used: AtomicU64::new(0),
            notes: Mutex::new(Vec::new()),
        };
        match cache.check_version() {
            Ok(note) => {
                // The lock is held: no run is writing here, so every temporary file is a
                // leftover of one that died (kill -9, a crash). Best effort: one that cannot
                // be removed now is tried again next time.
                let _ = sweep::sweep_temp_tree(&cache.root, &|_, _| true);
                Ok((cache, note))
            }
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

    /// Keeps records in the user-level store under `dir` (created when missing) from now
    /// on, taking its lock shared (waiting up to `wait` for a gc in another run). On an error
    /// the cache keeps its records in `.rmc/records/`, as without a store; the caller says
    /// why.
    pub fn use_store(&mut self, dir: &Path, wait: Duration) -> Result<(), CacheError> {
        self.store = Some(store::Store::open(dir, wait)?);
        Ok(())
    }

    /// The store's folder (`<store>/v1`), when one is in use.
    pub fn store_dir(&self) -> Option<&Path> {
        self.store.as_ref().map(|s| s.dir())
    }

    /// Where the record of `model` with content hash `hash` is: in the store, else in
    /// `.rmc/records/`; or, when there is none, where it would be written (the store when
    /// one is in use).
    pub fn record_path(&self, model: &str, hash: &str) -> PathBuf {
        let local = self.local_record(model, hash);
        match &self.store {
            Some(s) if names::is_hash(hash) => {
                let shared = s.record(hash);
                if !shared.is_file() && local.is_file() {
                    local
                } else {
                    shared
                }
            }
            _ => local,
        }
    }

    /// Where the record is or would be in `.rmc/records/`.
    fn local_record(&self, model: &str, hash: &str) -> PathBuf {
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
        self.put_record_with(model, hash, |_, w| {
            w.write_all(bytes)?;
            Ok(bytes.len() as u64)
        })
    }

    /// As `put_record`, the file written by `write` as it goes, told the path it is written
    /// to (`|target, w| record.write_beside(target, w)`: a record stands on a base only in
    /// the same folder). Written where `record_path` says; when that is the store and the
    /// store refuses it (full, or no longer writable), written to `.rmc/records/` instead,
    /// with a note (`take_notes`).
    pub fn put_record_with(
        &self,
        model: &str,
        hash: &str,
        write: impl Fn(&Path, &mut dyn std::io::Write) -> std::io::Result<u64>,
    ) -> Result<u64, CacheError> {
        check_hash(hash)?;
        let path = self.record_path(model, hash);
        let put = |path: &Path| -> Result<u64, CacheError> {
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir).map_err(|err| CacheError::io("cannot create", dir, err))?;
            }
            write_atomic_with(path, |w| write(path, w))
                .map_err(|err| CacheError::io("cannot write", path, err))
        };
        let written = match put(&path) {
            Err(e) if self.in_store(&path) => {
                let local = self.local_record(model, hash);
                let n = put(&local)?;
                self.note(format!(
                    "the record of {model} ({hash}) is kept in {} ({e})",
                    self.root.join(RECORDS).display()
                ));
                n
            }
            other => other?,
        };
        self.used.fetch_add(1, Ordering::Relaxed);
        Ok(written)
    }

    fn in_store(&self, path: &Path) -> bool {
        self.store
            .as_ref()
            .is_some_and(|s| path.starts_with(s.records()))
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
    /// read a gigabyte into memory; records are replaced by rename, never rewritten). Its
    /// modification time is set to now: the size budget drops the least recently used.
    pub fn open_record(&self, model: &str, hash: &str) -> Result<Option<fs::File>, CacheError> {
        check_hash(hash)?;
        let path = self.record_path(model, hash);
        match fs::File::open(&path) {
            Ok(f) => {
                // Only a hint for the budget: a file system that refuses it costs nothing.
                // (Where a read-only handle may not set it, Windows, a handle that may.)
                let now = SystemTime::now();
                if f.set_modified(now).is_err() {
                    let _ = fs::OpenOptions::new()
                        .append(true)
                        .open(&path)
                        .and_then(|w| w.set_modified(now));
                }
                self.used.fetch_add(1, Ordering::Relaxed);
                Ok(Some(f))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(err) => Err(CacheError::io("cannot read", &path, err)),
        }
    }

    /// Records read or written since the cache was opened.
    pub fn records_used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    fn note(&self, text: String) {
        self.notes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(text);
    }

    /// The notes for the user gathered so far (each once), for the caller to print.
    pub fn take_notes(&self) -> Vec<String> {
        let mut notes = std::mem::take(
            &mut *self
                .notes
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        notes.dedup();
        notes
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

    /// Every commit's results: (commit, model key → result).
    pub fn all_results(&self) -> Result<Vec<CommitResults>, CacheError> {
        sweep::all_results(&self.root)
    }

    /// Everything stored: per model its records in `.rmc/` (hash, bytes on disk, last use),
    /// the records in the store, and the commits with results.
    pub fn ls(&self) -> Result<Listing, CacheError> {
        let mut l = sweep::ls(&self.root)?;
        if let Some(s) = &self.store {
            let (_, clones) = s.pinned(&self.root, false)?;
            l.store = Some(StoreListing {
                dir: s.dir().to_path_buf(),
                records: sweep::flat_records(&s.records())?,
                clones,
            });
        }
        Ok(l)
    }

    /// Tells the store which records this clone's branch tips need (`needs`, with the bases
    /// they stand on, which `base_of` names), so that gc and the budget in another clone keep
    /// them. Nothing without a store.
    pub fn register(&self, needs: &Needs, base_of: BaseOf) -> Result<(), CacheError> {
        let Some(s) = &self.store else {
            return Ok(());
        };
        let mut hashes: BTreeSet<String> = needs.iter().map(|(_, h)| h.clone()).collect();
        let mut todo: Vec<String> = hashes.iter().cloned().collect();
        while let Some(h) = todo.pop() {
            if let Some(b) = base_of(&s.record(&h)).and_then(|n| record_hash(&n)) {
                if hashes.insert(b.clone()) {
                    todo.push(b);
                }
            }
        }
        s.register(&self.root, &hashes)
    }

    /// Deletes every record that `keep` does not name (nor a registered clone's branch
    /// tips, in the store), except the bases kept records stand on (`base_of`); every
    /// results file whose commit is not in `keep_commits`; and anything else under
    /// `records/` and `results/` this module did not write (temporary files of crashed
    /// runs). In the store only while no other run uses it (waiting up to `wait`).
    pub fn gc(
        &self,
        keep: &Needs,
        keep_commits: &HashSet<String>,
        base_of: BaseOf,
        wait: Duration,
    ) -> Result<Swept, CacheError> {
        // The local bases of kept records are kept: a record in `.rmc/` stands on one beside
        // it.
        let mut keep = keep.clone();
        let mut todo: Vec<(String, String)> = keep.iter().cloned().collect();
        while let Some((m, h)) = todo.pop() {
            let path = self.local_record(&m, &h);
            if let Some(b) = base_of(&path).and_then(|n| record_hash(&n)) {
                if keep.insert((m.clone(), b.clone())) {
                    todo.push((m, b));
                }
            }
        }
        let local = sweep::gc(&self.root, &keep, keep_commits)?;
        let store = match &self.store {
            None => StoreSweep::None,
            Some(s) => {
                let done = s.alone(wait, || {
                    let (pins, _) = s.pinned(&self.root, true)?;
                    let mut hashes: BTreeSet<String> =
                        keep.iter().map(|(_, h)| h.clone()).chain(pins).collect();
                    let mut todo: Vec<String> = hashes.iter().cloned().collect();
                    while let Some(h) = todo.pop() {
                        if let Some(b) = base_of(&s.record(&h)).and_then(|n| record_hash(&n)) {
                            if hashes.insert(b.clone()) {
                                todo.push(b);
                            }
                        }
                    }
                    sweep::gc_flat(&s.records(), &hashes)
                })?;
                match done {
                    Some(f) => StoreSweep::Freed(f),
                    None => StoreSweep::Busy,
                }
            }
        };
        let mut kept = sweep::ls(&self.root)?
            .models
            .iter()
            .map(|m| m.records.len())
            .sum();
        if let Some(s) = &self.store {
            kept += sweep::flat_records(&s.records())?.len();
        }
        Ok(Swept { local, store, kept })
    }

    /// Deletes records, least recently used first, until those in `.rmc/` and the store
    /// together weigh at most `max` bytes: never one `needs` names (nor a registered clone's
    /// branch tips, in the store), nor the base a kept record stands on (`base_of`). The
    /// store's records only while no other run uses it (waiting up to `wait`).
    pub fn enforce_budget(
        &self,
        max: u64,
        needs: &Needs,
        base_of: BaseOf,
        wait: Duration,
    ) -> Result<Eviction, CacheError> {
        let local = sweep::ls(&self.root)?;
        let mut files: Vec<(RecordInfo, bool)> = Vec::new();
        for m in &local.models {
            for r in &m.records {
                let needed = needs.contains(&(m.model.clone(), r.hash.clone()));
                files.push((r.clone(), needed));
            }
        }
        let shared = match &self.store {
            Some(s) => sweep::flat_records(&s.records())?,
            None => Vec::new(),
        };
        let total: u64 = files.iter().map(|(r, _)| r.bytes).sum::<u64>()
            + shared.iter().map(|r| r.bytes).sum::<u64>();
        if total <= max {
            return Ok(Eviction {
                kept: total,
                ..Eviction::default()
            });
        }
        let needed_hashes: HashSet<&str> = needs.iter().map(|(_, h)| h.as_str()).collect();
        let plan_and_drop = |pins: &BTreeSet<String>, store_free: bool| {
            let mut all = files.clone();
            for r in &shared {
                let needed = needed_hashes.contains(r.hash.as_str()) || pins.contains(&r.hash);
                all.push((r.clone(), needed));
            }
            let index: HashMap<&Path, usize> = all
                .iter()
                .enumerate()
                .map(|(i, (r, _))| (r.path.as_path(), i))
                .collect();
            let items: Vec<budget::Item> = all
                .iter()
                .map(|(r, needed)| {
                    let base = base_of(&r.path).map(|name| r.path.with_file_name(name));
                    let base_index = base.as_deref().and_then(|b| index.get(b).copied());
                    budget::Item {
                        bytes: r.bytes,
                        used: r.modified,
                        needed: *needed,
                        droppable: store_free || !self.in_store(&r.path),
                        base: base_index,
                        orphan: base.is_some() && base_index.is_none(),
                    }
                })
                .collect();
            let mut out = Eviction {
                kept: total,
                store_busy: !store_free,
                ..Eviction::default()
            };
            for i in budget::plan(&items, max) {
                let r = &all[i].0;
                // Gone already, or held open where that forbids deleting (Windows): it stays
                // for the next run.
                if fs::remove_file(&r.path).is_ok() {
                    out.dropped.files += 1;
                    out.dropped.bytes += r.bytes;
                    out.kept -= r.bytes;
                }
            }
            Ok(out)
        };
        match &self.store {
            None => plan_and_drop(&BTreeSet::new(), true),
            Some(s) => {
                let (pins, _) = s.pinned(&self.root, false)?;
                match s.alone(wait, || {
                    let (pins, _) = s.pinned(&self.root, true)?;
                    plan_and_drop(&pins, true)
                })? {
                    Some(out) => Ok(out),
                    // Another run uses the store: only `.rmc/`'s records may go now.
                    None => plan_and_drop(&pins, false),
                }
            }
        }
    }

    /// Deletes every record and result in `.rmc/` (the store's records: `clear_store`).
    /// The lock and VERSION stay.
    pub fn clear(&self) -> Result<Freed, CacheError> {
        sweep::clear(&self.root)
    }

    /// Deletes every record in the store (every clone's: it is a cache), while no other run
    /// uses it (waiting up to `wait`).
    pub fn clear_store(&self, wait: Duration) -> Result<StoreSweep, CacheError> {
        let Some(s) = &self.store else {
            return Ok(StoreSweep::None);
        };
        Ok(
            match s.alone(wait, || sweep::gc_flat(&s.records(), &BTreeSet::new()))? {
                Some(f) => StoreSweep::Freed(f),
                None => StoreSweep::Busy,
            },
        )
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
