//! Atomic file writes: a temporary file beside the target, written, fsynced, renamed over
//! it, then the folder synced. A reader sees the old file or the new one, never a part; a
//! crash leaves at worst a temporary file, which `is_temp` recognises so that gc and clear
//! can sweep it, and whose name holds its writer's pid, so that the next run can tell a
//! dead writer's leftover (`is_stale`) from a file another run is writing now.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

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

/// The pid of the process that writes (or wrote) a temporary file, from its name
/// (`.<target>.tmp-<pid>-<n>`).
pub(super) fn writer_of(name: &str) -> Option<u32> {
    let (_, tail) = name.rsplit_once(MARK)?;
    tail.split('-').next()?.parse().ok()
}

/// Where the system cannot say whether a pid is alive, a temporary file this old is taken
/// for a dead writer's: writing a record takes seconds, not hours.
pub(super) const STALE_AGE: Duration = Duration::from_secs(12 * 3600);

/// Whether a process is running: `Some` on Linux (`/proc/<pid>`), `None` where the system
/// does not tell. This process is always alive.
pub(super) fn alive(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    let proc = Path::new("/proc");
    (cfg!(target_os = "linux") && proc.join("self").exists())
        .then(|| proc.join(pid.to_string()).exists())
}

/// Whether the temporary file `name` (at `path`) is a leftover that no live process is
/// writing: its writer is dead, or, where that cannot be known, it is older than
/// `STALE_AGE`. A name without a pid counts as its writer's age says.
pub(super) fn is_stale(path: &Path, name: &str) -> bool {
    match writer_of(name).and_then(alive) {
        Some(alive) => !alive,
        None => fs::symlink_metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age >= STALE_AGE),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_name_holds_its_writer() {
        assert_eq!(writer_of(".abc.rec.tmp-4242-7"), Some(4242));
        assert_eq!(writer_of(".VERSION.tmp-17-0"), Some(17));
        assert_eq!(writer_of(".a.tmp-b.tmp-99-1"), Some(99));
        assert_eq!(writer_of(".abc.rec.tmp-x-1"), None);
        assert_eq!(writer_of("abc.rec"), None);
    }

    #[test]
    fn a_dead_writers_file_is_stale_and_a_live_ones_is_not() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let own = format!(".r.rec{MARK}{}-0", std::process::id());
        let own_path = dir.path().join(&own);
        fs::write(&own_path, b"x").expect("write");
        assert!(!is_stale(&own_path, &own), "this process is writing it");
        if alive(1).is_some() {
            // A child that has exited: its pid is free (and not reused this soon).
            let mut child = std::process::Command::new("true")
                .spawn()
                .expect("true runs");
            let pid = child.id();
            child.wait().expect("true ends");
            let name = format!(".r.rec{MARK}{pid}-0");
            let path = dir.path().join(&name);
            fs::write(&path, b"x").expect("write");
            assert!(is_stale(&path, &name));
        }
    }
}
