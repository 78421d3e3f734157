//! Looking over and emptying the cache: `ls` (what is stored), `gc` (keep only what is
//! asked), `clear`, and the sweep of temporary files that dead runs left. Only the folders
//! the layout names are ever walked or deleted, so a cache pointed at a folder that holds
//! other files never loses them.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::{self, DirEntry};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use super::{atomic, names, results, CacheError, RECORDS};

/// Everything stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// By model key; models without records in `.rmc/` are left out.
    pub models: Vec<ModelRecords>,
    /// The store's records, when one is in use.
    pub store: Option<StoreListing>,
    /// Commits with a results file.
    pub commits: usize,
    /// Bytes of the results files.
    pub results_bytes: u64,
}

/// A commit (its id) and its results file: model key → result.
pub type CommitResults = (String, BTreeMap<String, Value>);

/// The records in the user-level store (every clone's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreListing {
    /// `<store>/v1`.
    pub dir: PathBuf,
    /// Newest first.
    pub records: Vec<RecordInfo>,
    /// The clones (their caches) registered as using the store, whose folders still exist.
    pub clones: usize,
}

/// One model's records, newest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRecords {
    pub model: String,
    pub records: Vec<RecordInfo>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordInfo {
    pub hash: String,
    /// The file.
    pub path: PathBuf,
    /// Bytes on disk.
    pub bytes: u64,
    /// When it was last written or read (a read refreshes it); `None` where the file
    /// system does not say.
    pub modified: Option<SystemTime>,
}

/// What a `gc` or `clear` deleted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Freed {
    pub files: u64,
    pub bytes: u64,
}

impl Listing {
    /// Bytes of every record in `.rmc/`.
    pub fn record_bytes(&self) -> u64 {
        self.models
            .iter()
            .flat_map(|m| &m.records)
            .map(|r| r.bytes)
            .sum()
    }

    /// Bytes of every record in the store.
    pub fn store_bytes(&self) -> u64 {
        self.store
            .iter()
            .flat_map(|s| &s.records)
            .map(|r| r.bytes)
            .sum()
    }
}

pub(super) fn ls(root: &Path) -> Result<Listing, CacheError> {
    let mut listing = Listing::default();
    for model_dir in entries(&root.join(RECORDS))? {
        let Some(model) = file_name(&model_dir).and_then(|n| names::decode(&n)) else {
            continue;
        };
        if !is_dir(&model_dir) {
            continue;
        }
        let records = flat_records(&model_dir.path())?;
        if records.is_empty() {
            continue;
        }
        listing.models.push(ModelRecords { model, records });
    }
    listing.models.sort_by(|a, b| a.model.cmp(&b.model));
    for prefix in entries(&root.join(results::DIR))? {
        let Some(prefix_name) = file_name(&prefix) else {
            continue;
        };
        if !is_dir(&prefix) {
            continue;
        }
        for file in entries(&prefix.path())? {
            let is_results = file_name(&file)
                .and_then(|n| results::commit_of(&prefix_name, &n))
                .is_some();
            let meta = file
                .metadata()
                .map_err(|err| CacheError::io("cannot read", &file.path(), err))?;
            if is_results && meta.is_file() {
                listing.commits += 1;
                listing.results_bytes += meta.len();
            }
        }
    }
    Ok(listing)
}

/// The records in one folder, newest first.
pub(super) fn flat_records(dir: &Path) -> Result<Vec<RecordInfo>, CacheError> {
    let mut records = Vec::new();
    for file in entries(dir)? {
        let Some(hash) = file_name(&file).and_then(|n| record_hash(&n)) else {
            continue;
        };
        // DirEntry::metadata does not follow symbolic links: only real files count.
        let meta = match file.metadata() {
            Ok(m) => m,
            // Deleted since it was listed (a gc in another run's store): not there.
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(err) => return Err(CacheError::io("cannot read", &file.path(), err)),
        };
        if meta.is_file() {
            records.push(RecordInfo {
                hash,
                path: file.path(),
                bytes: meta.len(),
                modified: meta.modified().ok(),
            });
        }
    }
    records.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.hash.cmp(&b.hash)));
    Ok(records)
}

/// Every results file's commit and contents (a corrupt one is left out).
pub(super) fn all_results(root: &Path) -> Result<Vec<CommitResults>, CacheError> {
    let mut out = Vec::new();
    for prefix in entries(&root.join(results::DIR))? {
        let Some(prefix_name) = file_name(&prefix).filter(|_| is_dir(&prefix)) else {
            continue;
        };
        for file in entries(&prefix.path())? {
            let Some(commit) = file_name(&file).and_then(|n| results::commit_of(&prefix_name, &n))
            else {
                continue;
            };
            if is_file(&file) {
                out.push((commit, results::read(&file.path())?));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Deletes every record in a flat folder (the store's) whose hash `keep` lacks, and every
/// other file there but the temporary files of live writers.
pub(super) fn gc_flat(dir: &Path, keep: &BTreeSet<String>) -> Result<Freed, CacheError> {
    let mut freed = Freed::default();
    for file in entries(dir)? {
        let name = file_name(&file);
        let kept = is_file(&file)
            && name
                .as_deref()
                .and_then(record_hash)
                .is_some_and(|h| keep.contains(&h));
        let writing = name
            .as_deref()
            .is_some_and(|n| atomic::is_temp(n) && !atomic::is_stale(&file.path(), n));
        if !kept && !writing {
            remove(&file.path(), &mut freed)?;
        }
    }
    Ok(freed)
}

/// Removes the temporary files under `root`'s own folders (the root itself, `records/`
/// and `results/`, each a level or two deep) for which `stale(path, name)` says so.
pub(super) fn sweep_temp_tree(
    root: &Path,
    stale: &dyn Fn(&Path, &str) -> bool,
) -> Result<Freed, CacheError> {
    let mut freed = Freed::default();
    let mut dirs = vec![root.to_path_buf()];
    for top in [root.join(RECORDS), root.join(results::DIR)] {
        dirs.push(top.clone());
        for e in entries(&top)? {
            if is_dir(&e) {
                dirs.push(e.path());
            }
        }
    }
    for dir in dirs {
        for e in entries(&dir)? {
            let Some(name) = file_name(&e) else {
                continue;
            };
            if atomic::is_temp(&name) && is_file(&e) && stale(&e.path(), &name) {
                remove(&e.path(), &mut freed)?;
            }
        }
    }
    Ok(freed)
}

pub(super) fn gc(
    root: &Path,
    keep: &HashSet<(String, String)>,
    keep_commits: &HashSet<String>,
) -> Result<Freed, CacheError> {
    let mut freed = Freed::default();
    for model_dir in entries(&root.join(RECORDS))? {
        let model = file_name(&model_dir).and_then(|n| names::decode(&n));
        let (Some(model), true) = (model, is_dir(&model_dir)) else {
            // Not a folder this module made: records/ is the cache's, so it goes.
            remove(&model_dir.path(), &mut freed)?;
            continue;
        };
        for file in entries(&model_dir.path())? {
            let kept = is_file(&file)
                && file_name(&file)
                    .and_then(|n| record_hash(&n))
                    .is_some_and(|hash| keep.contains(&(model.clone(), hash)));
            if !kept {
                remove(&file.path(), &mut freed)?;
            }
        }
        remove_if_empty(&model_dir.path());
    }
    for prefix in entries(&root.join(results::DIR))? {
        let Some(prefix_name) = file_name(&prefix).filter(|_| is_dir(&prefix)) else {
            remove(&prefix.path(), &mut freed)?;
            continue;
        };
        for file in entries(&prefix.path())? {
            let kept = is_file(&file)
                && file_name(&file)
                    .and_then(|n| results::commit_of(&prefix_name, &n))
                    .is_some_and(|c| keep_commits.contains(&c));
            if !kept {
                remove(&file.path(), &mut freed)?;
            }
        }
        remove_if_empty(&prefix.path());
    }
    sweep_temp(root, &mut freed)?;
    Ok(freed)
}

pub(super) fn clear(root: &Path) -> Result<Freed, CacheError> {
    let mut freed = Freed::default();
    remove(&root.join(RECORDS), &mut freed)?;
    remove(&root.join(results::DIR), &mut freed)?;
    sweep_temp(root, &mut freed)?;
    Ok(freed)
}

/// Whether the root holds anything of a cache's besides its lock: records, results or a
/// temporary file.
pub(super) fn has_content(root: &Path) -> Result<bool, CacheError> {
    Ok(entries(root)?.iter().any(|e| {
        file_name(e).is_some_and(|n| n == RECORDS || n == results::DIR || atomic::is_temp(&n))
    }))
}

/// Temporary files at the root (a VERSION being written when a run crashed). Those in the
/// record and results folders are swept with them. The lock is held, so no writer is alive.
fn sweep_temp(root: &Path, freed: &mut Freed) -> Result<(), CacheError> {
    for e in entries(root)? {
        if file_name(&e).is_some_and(|n| atomic::is_temp(&n)) && is_file(&e) {
            remove(&e.path(), freed)?;
        }
    }
    Ok(())
}

/// The hash a record file's name holds.
pub(super) fn record_hash(file_name: &str) -> Option<String> {
    let hash = file_name.strip_suffix(super::RECORD_EXT)?;
    names::is_hash(hash).then(|| hash.to_string())
}

/// A folder's entries; a missing folder has none.
fn entries(dir: &Path) -> Result<Vec<DirEntry>, CacheError> {
    let read = match fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(CacheError::io("cannot list", dir, err)),
    };
    read.map(|e| e.map_err(|err| CacheError::io("cannot list", dir, err)))
        .collect()
}

fn file_name(e: &DirEntry) -> Option<String> {
    e.file_name().to_str().map(str::to_string)
}

/// Without following symbolic links: a link is removed, never what it points to.
fn is_dir(e: &DirEntry) -> bool {
    e.file_type().is_ok_and(|t| t.is_dir())
}

fn is_file(e: &DirEntry) -> bool {
    e.file_type().is_ok_and(|t| t.is_file())
}

/// Deletes a file, link or folder tree, counting every file in `freed`. Absent is fine.
fn remove(path: &Path, freed: &mut Freed) -> Result<(), CacheError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(CacheError::io("cannot read", path, err)),
    };
    if meta.is_dir() {
        for e in entries(path)? {
            remove(&e.path(), freed)?;
        }
        match fs::remove_dir(path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(err) => return Err(CacheError::io("cannot delete", path, err)),
        }
        return Ok(());
    }
    match fs::remove_file(path) {
        Ok(()) => {
            freed.files += 1;
            freed.bytes += meta.len();
            Ok(())
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(err) => Err(CacheError::io("cannot delete", path, err)),
    }
}

/// Removes a folder gc has emptied; one that still holds something stays.
fn remove_if_empty(dir: &Path) {
    let _ = fs::remove_dir(dir);
}
