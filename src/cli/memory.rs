//! The memory limit of a check: `--memory-limit auto|SIZE`. `auto` is 80 % of the least of
//! the memory the machine has available now, what the process's cgroup still allows, and the
//! address space left under `ulimit -v`; `GIT_RMC_MEMORY_LIMIT` (a size) replaces `auto`,
//! and else `memory` in the user's settings (`user`).
//! Read from /proc and /sys on Linux; elsewhere `auto` falls back to no limit it can see.
//! Sizes are parsed in `config::memory`, which `.rmc.toml` shares; re-exported here.

use std::path::Path;

pub use crate::config::memory::{parse_limit, parse_size, MemoryLimit};

/// The limit in bytes, and where it came from (for the output).
pub fn resolve(limit: MemoryLimit) -> Result<(Option<u64>, String), String> {
    match limit {
        MemoryLimit::Bytes(n) => Ok((Some(n), "--memory-limit".into())),
        MemoryLimit::Auto => {
            if let Ok(v) = std::env::var("GIT_RMC_MEMORY_LIMIT") {
                let n = parse_size(&v).map_err(|e| format!("GIT_RMC_MEMORY_LIMIT: {e}"))?;
                return Ok((Some(n), "GIT_RMC_MEMORY_LIMIT".into()));
            }
            if let Some((n, origin)) = super::user::memory() {
                return Ok((Some(n), origin));
            }
            let avail = available();
            Ok((avail.map(|a| a / 5 * 4), "auto: 80% of available".into()))
        }
    }
}

/// The least of: the machine's available memory, the cgroup's room, the address space left.
fn available() -> Option<u64> {
    [meminfo_available(), cgroup_room(), address_space_room()]
        .into_iter()
        .flatten()
        .min()
}

fn read(p: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

/// `MemAvailable` of /proc/meminfo.
fn meminfo_available() -> Option<u64> {
    let text = read("/proc/meminfo")?;
    kib_field(&text, "MemAvailable:")
}

/// A `Name:   1234 kB` field in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

/// What the process's memory cgroup still allows: its limit minus its current use (v2:
/// `memory.max`/`memory.current`; v1: `memory.limit_in_bytes`/`memory.usage_in_bytes`).
fn cgroup_room() -> Option<u64> {
    let cg = read("/proc/self/cgroup").unwrap_or_default();
    let mut candidates = Vec::new();
    for line in cg.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, ctrl, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if ctrl.is_empty() {
            candidates.push((
                Path::new("/sys/fs/cgroup").join(path),
                "memory.max",
                "memory.current",
            ));
            candidates.push((
                Path::new("/sys/fs/cgroup").to_path_buf(),
                "memory.max",
                "memory.current",
            ));
        } else if ctrl.split(',').any(|c| c == "memory") {
            for base in [
                Path::new("/sys/fs/cgroup/memory").join(path),
                Path::new("/sys/fs/cgroup/memory").to_path_buf(),
            ] {
                candidates.push((base, "memory.limit_in_bytes", "memory.usage_in_bytes"));
            }
        }
    }
    for (dir, max, cur) in candidates {
        let Some(limit) = read(dir.join(max)) else {
            continue;
        };
        let limit = limit.trim();
        if limit == "max" {
            return None;
        }
        let Ok(limit) = limit.parse::<u64>() else {
            continue;
        };
        // cgroup v1 says "no limit" with a huge number.
        if limit >= 1 << 60 {
            return None;
        }
        let used = read(dir.join(cur))
            .and_then(|u| u.trim().parse::<u64>().ok())
            .unwrap_or(0);
        return Some(limit.saturating_sub(used));
    }
    None
}

/// The soft address-space limit (`ulimit -v`) minus the address space in use now.
fn address_space_room() -> Option<u64> {
    let limits = read("/proc/self/limits")?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..]
        .split_whitespace()
        .next()?;
    let soft: u64 = soft.parse().ok()?;
    let status = read("/proc/self/status").unwrap_or_default();
    let used = kib_field(&status, "VmSize:").unwrap_or(0);
    Some(soft.saturating_sub(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_fields_are_read_in_kib() {
        let text = "MemTotal:       24000 kB\nMemAvailable:    1000 kB\n";
        assert_eq!(kib_field(text, "MemAvailable:"), Some(1_024_000));
        assert_eq!(kib_field(text, "Nope:"), None);
    }

    #[test]
    fn auto_sees_some_memory_on_linux() {
        if Path::new("/proc/meminfo").exists() {
            assert!(available().is_some_and(|a| a > 0));
        }
    }
}
