//! The results index: one JSON object per commit, model key → the caller's result value, at
//! `results/<first two hex digits>/<commit>.json`. The values are opaque here. A file that
//! does not parse is a cache miss (and is removed), never an error: a bad cache can cost
//! time, not a check.

use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{atomic, CacheError};

pub(super) const DIR: &str = "results";

/// Where a commit's results live (`commit` already checked to be a commit id).
pub(super) fn path(root: &Path, commit: &str) -> PathBuf {
    root.join(DIR)
        .join(&commit[..2])
        .join(format!("{commit}.json"))
}

/// The commit's results; empty when there are none or the file is corrupt.
pub(super) fn read(path: &Path) -> Result<BTreeMap<String, Value>, CacheError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(err) => return Err(CacheError::io("cannot read", path, err)),
    };
    match serde_json::from_slice::<BTreeMap<String, Value>>(&bytes) {
        Ok(map) => Ok(map),
        Err(_) => {
            // Written atomically, so a bad file was damaged from outside; drop it so that
            // the next write starts clean. If it cannot be removed, the next write
            // replaces it anyway.
            let _ = fs::remove_file(path);
            Ok(BTreeMap::new())
        }
    }
}

/// Replaces the commit's results with `map`, atomically.
pub(super) fn write(path: &Path, map: &BTreeMap<String, Value>) -> Result<(), CacheError> {
    let mut bytes = serde_json::to_vec_pretty(map).map_err(|err| CacheError::Encode {
        path: path.to_path_buf(),
        err,
    })?;
    bytes.push(b'\n');
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|err| CacheError::io("cannot create", dir, err))?;
    }
    atomic::write_atomic(path, &bytes).map_err(|err| CacheError::io("cannot write", path, err))?;
    Ok(())
}

/// The commit id a results file's name and folder spell, if they agree.
pub(super) fn commit_of(prefix: &str, file_name: &str) -> Option<String> {
    let commit = file_name.strip_suffix(".json")?;
    (super::names::is_commit(commit) && commit.starts_with(prefix) && prefix.len() == 2)
        .then(|| commit.to_string())
}
