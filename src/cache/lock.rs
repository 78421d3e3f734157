//! The cache's lock: an exclusive advisory lock on `<root>/lock`, held for as long as its
//! file is open, so that a pre-push hook and a manual run on one repository take turns. The
//! lock file also holds the holder's pid, only to name it to a waiting run.

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
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(lock_err)?;
    let start = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(err)) => return Err(lock_err(err)),
        }
        let waited = start.elapsed();
        if waited >= wait {
            return Err(CacheError::Busy {
                root: root.to_path_buf(),
                holder: holder(&mut file),
                waited,
            });
        }
        std::thread::sleep(pause.min(wait - waited));
        pause = (pause * 2).min(MAX_PAUSE);
    }
    // Only informative: a failure to record the pid does not make the lock less held.
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| write!(file, "{}", std::process::id()));
    Ok(file)
}

/// The pid the holder wrote, when it could be read.
fn holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}
