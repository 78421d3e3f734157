//! The cache's lock: an exclusive advisory lock on `<root>/lock`, held for as long as its
//! file is open, so that a pre-push hook and a manual run on one repository take turns. The
//! lock file also holds the holder's pid, only to name it to a waiting run.
//!
//! The record store's lock (`store`) is taken shared by every run that uses the store, for
//! as long as it runs, and exclusive only to delete records: so that gc never deletes a
//! record another run may be reading or standing a new record on, while runs in different
//! clones never wait for each other.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use super::CacheError;

/// The first pause between attempts; pauses double up to `MAX_PAUSE`, so a short wait
/// notices a release quickly and a long one does not spin.
const FIRST_PAUSE: Duration = Duration::from_millis(10);
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// Takes the lock on `path`, waiting up to `wait` while another process (or another
/// `Cache` in this one) holds it. The returned file holds the lock until it is dropped.
pub(super) fn acquire(path: &Path, root: &Path, wait: Duration) -> Result<File, CacheError> {
    let lock_err = |err| CacheError::Lock {
        path: path.to_path_buf(),
        err,
    };
    let file = open(path).map_err(lock_err)?;
    match take(&file, Mode::Exclusive, wait).map_err(lock_err)? {
        Ok(()) => {}
        Err(waited) => {
            return Err(CacheError::Busy {
                root: root.to_path_buf(),
                holder: holder(&file),
                waited,
            })
        }
    }
    note_holder(&file);
    Ok(file)
}

/// How a lock is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// With other shared holders; keeps an exclusive holder out.
    Shared,
    /// Alone.
    Exclusive,
}

/// Opens (creating) a lock file.
pub(super) fn open(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// Takes `file`'s lock in `mode`, waiting up to `wait`: `Ok(Err(waited))` when it could
/// not be had in time. The file must not hold a lock already.
pub(super) fn take(
    file: &File,
    mode: Mode,
    wait: Duration,
) -> std::io::Result<Result<(), Duration>> {
    let start = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        let tried = match mode {
            Mode::Shared => file.try_lock_shared(),
            Mode::Exclusive => file.try_lock(),
        };
        match tried {
            Ok(()) => return Ok(Ok(())),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(err)) => return Err(err),
        }
        let waited = start.elapsed();
        if waited >= wait {
            return Ok(Err(waited));
        }
        std::thread::sleep(pause.min(wait - waited));
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// Writes this process's pid into a lock file it holds alone, for a waiting run to name.
pub(super) fn note_holder(mut file: &File) {
    // Only informative: a failure to record the pid does not make the lock less held.
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| write!(file, "{}", std::process::id()));
}

/// The pid the holder wrote, when it could be read.
pub(super) fn holder(mut file: &File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}
