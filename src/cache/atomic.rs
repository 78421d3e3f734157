//! Atomic file writes: a temporary file beside the target, written, fsynced, renamed over
//! it, then the folder synced. A reader sees the old file or the new one, never a part; a
//! crash leaves at worst a temporary file, which `is_temp` recognises so that gc and clear
//! can sweep it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes the temporary files of one process's threads.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// Between the target's name and the writer's pid in a temporary file's name.
const MARK: &str = ".tmp-";

/// Writes `bytes` to `path` atomically and returns the number of bytes written. The folder
/// must exist. On any error the temporary file is removed and `path` is as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<u64> {
    write_atomic_with(path, |w| {
        w.write_all(bytes)?;
        Ok(bytes.len() as u64)
    })
}

/// As `write_atomic`, with the contents written by `write` as it goes (through a buffer);
/// it returns the number of bytes it wrote.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
) -> io::Result<u64> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}{MARK}{}-{n}", std::process::id()));
    let mut guard = Temp {
        path: &tmp,
        keep: false,
    };
    // create_new: never write into a file someone else is writing.
    let f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let mut w = io::BufWriter::with_capacity(1 << 20, f);
    let n = write(&mut w)?;
    let f = w.into_inner().map_err(|e| e.into_error())?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, path)?;
    guard.keep = true;
    // The rename is durable once the folder is synced. Some file systems cannot sync a
    // folder; the data itself is safe either way, so this is not an error.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(n)
}

/// Whether a file name is one of `write_atomic`'s temporary files.
pub(super) fn is_temp(name: &str) -> bool {
    name.starts_with('.') && name.contains(MARK)
}

/// A temporary file that is removed when dropped (on an error or a panic) unless kept.
struct Temp<'a> {
    path: &'a Path,
    keep: bool,
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_file(self.path);
        }
    }
}
