//! The cache: records and results stored and read back, atomic writes, corrupt results as
//! misses, gc and clear, the format version, the location rules and the lock.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::*;

const A: &str = "0123456789abcdef";
const B: &str = "fedcba9876543210";
const C1: &str = "3f2a1bc0000000000000000000000000000000aa";
const C2: &str = "3f2a1bc0000000000000000000000000000000bb";
const C3: &str = "9900000000000000000000000000000000000000";

/// A fresh cache in a temporary folder (kept alive by the returned guard).
fn fresh() -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let (cache, note) = open(&dir.path().join(".rmc"));
    assert_eq!(note, None);
    (dir, cache)
}

/// Opens with a few seconds' patience: a lock released by `drop` can stay held for a moment
/// by a child that another test thread is spawning (a forked child shares the lock's open
/// file until it execs), so an immediate retry may fail although nothing here holds it.
fn open(root: &Path) -> (Cache, Option<String>) {
    match Cache::open(root, Duration::from_secs(10)) {
        Ok(c) => c,
        Err(e) => panic!("open {}: {e}", root.display()),
    }
}

fn ok<T>(r: Result<T, CacheError>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if let Ok(rel) = p.strip_prefix(base) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn records_are_stored_by_model_and_hash() {
    let (_dir, cache) = fresh();
    assert!(!cache.has_record("elevator", A));
    assert_eq!(ok(cache.get_record("elevator", A)), None);
    assert_eq!(ok(cache.put_record("elevator", A, b"first")), 5);
    assert_eq!(ok(cache.put_record("models/Door.pml", A, b"door")), 4);
    assert!(cache.has_record("elevator", A));
    assert!(!cache.has_record("elevator", B));
    assert_eq!(
        ok(cache.get_record("elevator", A)).as_deref(),
        Some(&b"first"[..])
    );
    // A second put replaces the first.
    ok(cache.put_record("elevator", A, b"second"));
    assert_eq!(
        ok(cache.get_record("elevator", A)).as_deref(),
        Some(&b"second"[..])
    );
    assert_eq!(
        cache.record_path("elevator", A),
        cache
            .root()
            .join("records/elevator")
            .join(format!("{A}.rec"))
    );
    assert_eq!(
        files(cache.root()),
        [
            "VERSION".to_string(),
            "lock".into(),
            format!("records/elevator/{A}.rec"),
            format!("records/models%2F%44oor.pml/{A}.rec"),
        ]
    );
    assert_eq!(
        fs::read_to_string(cache.root().join("VERSION")).ok(),
        Some(format!("{FORMAT}\n"))
    );
}

#[test]
fn bad_hashes_and_commits_are_refused_and_stay_inside_the_cache() {
    let (_dir, cache) = fresh();
    assert!(matches!(
        cache.put_record("m", "../../x", b""),
        Err(CacheError::BadHash(_))
    ));
    assert!(!cache.has_record("m", "../../x"));
    assert!(cache
        .record_path("../..", "../../x")
        .starts_with(cache.root().join("records")));
    assert!(matches!(
        cache.put_result("HEAD", "m", &json!(1)),
        Err(CacheError::BadCommit(_))
    ));
    assert!(matches!(
        cache.results(&C1.to_uppercase()),
        Err(CacheError::BadCommit(_))
    ));
}

#[test]
fn results_are_kept_per_commit_and_model() {
    let (_dir, cache) = fresh();
    assert_eq!(ok(cache.get_result(C1, "elevator")), None);
    ok(cache.put_result(C1, "elevator", &json!({"verdict": "pass"})));
    ok(cache.put_result(C1, "door", &json!({"verdict": "fail"})));
    ok(cache.put_result(C2, "elevator", &json!(3)));
    ok(cache.put_result(C1, "elevator", &json!({"verdict": "fail"})));
    assert_eq!(
        ok(cache.get_result(C1, "elevator")),
        Some(json!({"verdict": "fail"}))
    );
    let all = ok(cache.results(C1));
    assert_eq!(all.keys().collect::<Vec<_>>(), ["door", "elevator"]);
    assert_eq!(ok(cache.get_result(C2, "door")), None);
    assert!(cache
        .root()
        .join("results/3f")
        .join(format!("{C1}.json"))
        .is_file());
}

#[test]
fn a_corrupt_results_file_is_a_miss_and_is_removed() {
    let (_dir, cache) = fresh();
    ok(cache.put_result(C1, "elevator", &json!(1)));
    let path = cache.root().join("results/3f").join(format!("{C1}.json"));
    for junk in [&b"{\"elevator\": 1"[..], b"[1, 2]", b"\xff\xfe"] {
        ok(fs::write(&path, junk).map_err(|e| CacheError::io("write", &path, e)));
        assert_eq!(ok(cache.get_result(C1, "elevator")), None);
        assert!(!path.exists());
        ok(fs::write(&path, junk).map_err(|e| CacheError::io("write", &path, e)));
        assert!(ok(cache.results(C1)).is_empty());
        // And writing over it starts afresh.
        ok(fs::write(&path, junk).map_err(|e| CacheError::io("write", &path, e)));
        ok(cache.put_result(C1, "door", &json!(2)));
        assert_eq!(ok(cache.get_result(C1, "door")), Some(json!(2)));
        assert_eq!(ok(cache.get_result(C1, "elevator")), None);
    }
}

#[test]
fn writes_leave_no_temporary_files_even_when_they_fail() {
    let (_dir, cache) = fresh();
    for i in 0..5 {
        ok(cache.put_record("m", A, &vec![i; 1000]));
        ok(cache.put_result(C1, &format!("m{i}"), &json!(i)));
    }
    assert!(files(cache.root()).iter().all(|f| !f.contains(".tmp-")));
    // The rename fails (a folder is in the way): the temporary file goes, the folder stays.
    let target = cache.record_path("m", B);
    ok(fs::create_dir_all(target.join("x")).map_err(|e| CacheError::io("mkdir", &target, e)));
    assert!(cache.put_record("m", B, b"data").is_err());
    assert!(target.join("x").is_dir());
    let names: Vec<String> = fs::read_dir(cache.root().join("records/m"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !atomic::is_temp(n)), "{names:?}");
}

#[test]
fn ls_lists_records_per_model_and_counts_commits() {
    let (_dir, cache) = fresh();
    assert_eq!(ok(cache.ls()), Listing::default());
    ok(cache.put_record("models/lift.pml", A, b"12345"));
    ok(cache.put_record("models/lift.pml", B, b"1"));
    ok(cache.put_record("door", A, b"123"));
    ok(cache.put_result(C1, "door", &json!(1)));
    ok(cache.put_result(C2, "door", &json!(1)));
    // A crashed write's leftover is not a record.
    let leftover = cache.root().join("records/door/.x.rec.tmp-1-1");
    ok(fs::write(&leftover, b"part").map_err(|e| CacheError::io("write", &leftover, e)));
    let l = ok(cache.ls());
    let models: Vec<(&str, Vec<(&str, u64)>)> = l
        .models
        .iter()
        .map(|m| {
            let mut r: Vec<(&str, u64)> = m
                .records
                .iter()
                .map(|r| (r.hash.as_str(), r.bytes))
                .collect();
            r.sort();
            (m.model.as_str(), r)
        })
        .collect();
    assert_eq!(
        models,
        [
            ("door", vec![(A, 3)]),
            ("models/lift.pml", vec![(A, 5), (B, 1)])
        ]
    );
    assert!(l.models[0].records[0].modified.is_some());
    assert_eq!(l.record_bytes(), 9);
    assert_eq!(l.commits, 2);
    assert!(l.results_bytes > 0);
}

#[test]
fn gc_keeps_exactly_what_is_asked() {
    let (_dir, cache) = fresh();
    ok(cache.put_record("lift", A, b"aaaa"));
    ok(cache.put_record("lift", B, b"bb"));
    ok(cache.put_record("door", A, b"c"));
    ok(cache.put_record("door", B, b"ddd"));
    for c in [C1, C2, C3] {
        ok(cache.put_result(c, "lift", &json!(1)));
    }
    // A crashed run's temporary file goes too.
    let leftover = cache.root().join("records/lift/.x.rec.tmp-1-1");
    ok(fs::write(&leftover, b"part").map_err(|e| CacheError::io("write", &leftover, e)));
    let results_bytes = ok(cache.ls()).results_bytes;
    let c3_bytes = cache
        .root()
        .join("results/99")
        .join(format!("{C3}.json"))
        .metadata()
        .map_or(0, |m| m.len());

    let keep: HashSet<(String, String)> = [("lift".to_string(), B.to_string())].into();
    let keep_commits: HashSet<String> = [C1.to_string(), C2.to_string()].into();
    let freed = ok(cache.gc(&keep, &keep_commits));
    // lift/A (4), door/A (1), door/B (3), the leftover (4) and C3's results.
    assert_eq!(freed.files, 5);
    assert_eq!(freed.bytes, 4 + 1 + 3 + 4 + c3_bytes);

    let l = ok(cache.ls());
    assert_eq!(l.models.len(), 1);
    assert_eq!(l.models[0].model, "lift");
    assert_eq!(
        l.models[0]
            .records
            .iter()
            .map(|r| r.hash.as_str())
            .collect::<Vec<_>>(),
        [B]
    );
    assert_eq!(l.commits, 2);
    assert_eq!(l.results_bytes, results_bytes - c3_bytes);
    // Emptied folders go with their files.
    assert!(!cache.root().join("records/door").exists());
    assert!(!cache.root().join("results/99").exists());
    assert_eq!(ok(cache.get_result(C1, "lift")), Some(json!(1)));
    // Nothing more to free.
    assert_eq!(ok(cache.gc(&keep, &keep_commits)), Freed::default());
}

#[test]
fn clear_deletes_everything_but_the_lock_and_version() {
    let (dir, cache) = fresh();
    ok(cache.put_record("lift", A, b"aaaa"));
    ok(cache.put_record("door", B, b"bb"));
    ok(cache.put_result(C1, "lift", &json!(1)));
    let results = ok(cache.ls()).results_bytes;
    // Files the layout does not name are not the cache's to delete.
    let notes = cache.root().join("notes.txt");
    ok(fs::write(&notes, b"mine").map_err(|e| CacheError::io("write", &notes, e)));
    let freed = ok(cache.clear());
    assert_eq!(
        freed,
        Freed {
            files: 3,
            bytes: 6 + results
        }
    );
    assert_eq!(files(cache.root()), ["VERSION", "lock", "notes.txt"]);
    // Still usable.
    ok(cache.put_record("lift", A, b"x"));
    drop(cache);
    drop(dir);
}

#[test]
fn a_cache_of_another_format_is_rebuilt_with_a_note() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let root = dir.path().join("cache");
    {
        let (cache, _) = open(&root);
        ok(cache.put_record("lift", A, b"old"));
        ok(cache.put_result(C1, "lift", &json!(1)));
    }
    for (version, says) in [
        ("0\n", "cache format 0"),
        ("banana", "an unreadable VERSION"),
    ] {
        let v = root.join("VERSION");
        ok(fs::write(&v, version).map_err(|e| CacheError::io("write", &v, e)));
        let (cache, note) = open(&root);
        let note = note.unwrap_or_default();
        assert!(note.contains(says), "{note}");
        assert!(note.contains("rebuilt"), "{note}");
        assert!(!cache.has_record("lift", A));
        assert_eq!(ok(cache.get_result(C1, "lift")), None);
        assert_eq!(fs::read_to_string(&v).ok(), Some(format!("{FORMAT}\n")));
        // Put something back for the next round.
        ok(cache.put_record("lift", A, b"old"));
    }
    // The current format opens without a note and keeps its records.
    let (cache, note) = open(&root);
    assert_eq!(note, None);
    assert!(cache.has_record("lift", A));
}

#[test]
fn a_folder_that_is_not_a_cache_is_left_alone() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let results = dir.path().join("results");
    ok(fs::create_dir_all(&results).map_err(|e| CacheError::io("mkdir", &results, e)));
    let mine = results.join("mine.txt");
    ok(fs::write(&mine, b"keep me").map_err(|e| CacheError::io("write", &mine, e)));
    match Cache::open(dir.path(), Duration::ZERO) {
        Err(e @ CacheError::NotACache { .. }) => {
            assert!(e.to_string().contains("not a git rmc cache"), "{e}")
        }
        other => panic!("expected NotACache, got {other:?}"),
    }
    assert!(mine.is_file());
    assert!(!dir.path().join("lock").exists());
    // A folder with only a lock (a run that crashed before writing VERSION) is new.
    let other = tempfile::tempdir().expect("temporary folder");
    let lock = other.path().join("lock");
    ok(fs::write(&lock, b"").map_err(|e| CacheError::io("write", &lock, e)));
    let (_cache, note) = open(other.path());
    assert_eq!(note, None);
}

#[test]
fn location_prefers_the_environment_then_the_config() {
    let wt = Path::new("/repo");
    let at = |configured: Option<&str>, env: Option<&str>| {
        location_from(wt, configured.map(Path::new), env.map(OsStr::new))
    };
    assert_eq!(at(None, None), PathBuf::from("/repo/.rmc"));
    assert_eq!(
        at(Some("build/rmc"), None),
        PathBuf::from("/repo/build/rmc")
    );
    assert_eq!(
        at(Some("/var/cache/rmc"), None),
        PathBuf::from("/var/cache/rmc")
    );
    assert_eq!(at(Some("build/rmc"), Some("x")), PathBuf::from("/repo/x"));
    assert_eq!(at(None, Some("/tmp/c")), PathBuf::from("/tmp/c"));
    // Empty values are unset, never the work tree root itself.
    assert_eq!(at(Some("build"), Some("")), PathBuf::from("/repo/build"));
    assert_eq!(at(Some(""), None), PathBuf::from("/repo/.rmc"));
}

#[test]
fn a_second_open_waits_for_the_lock_then_fails_or_gets_it() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let root = dir.path().join(".rmc");
    let (first, _) = open(&root);

    // While the first holds it, a second open waits its time and fails, naming the holder.
    let r = root.clone();
    let start = Instant::now();
    let failed = std::thread::spawn(move || Cache::open(&r, Duration::from_millis(150)).err())
        .join()
        .expect("thread");
    let waited = start.elapsed();
    match failed {
        Some(e @ CacheError::Busy { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("another git rmc run"), "{msg}");
            assert!(
                msg.contains(&format!("(pid {})", std::process::id())),
                "{msg}"
            );
        }
        other => panic!("expected Busy, got {other:?}"),
    }
    assert!(waited >= Duration::from_millis(150), "{waited:?}");

    // A second open that may wait long enough gets the lock once the first is dropped.
    let r = root.clone();
    let start = Instant::now();
    let waiter = std::thread::spawn(move || {
        Cache::open(&r, Duration::from_secs(20))
            .map(|(c, _)| (c, start.elapsed()))
            .map_err(|e| e.to_string())
    });
    std::thread::sleep(Duration::from_millis(100));
    drop(first);
    match waiter.join().expect("thread") {
        Ok((second, waited)) => {
            assert!(waited >= Duration::from_millis(100), "{waited:?}");
            // It holds the lock now: a third cannot get it.
            assert!(matches!(
                Cache::open(&root, Duration::ZERO),
                Err(CacheError::Busy { .. })
            ));
            drop(second);
            open(&root);
        }
        Err(e) => panic!("the waiting open failed: {e}"),
    }
}

#[test]
fn threads_sharing_a_cache_lose_no_results() {
    let (_dir, cache) = fresh();
    std::thread::scope(|s| {
        for t in 0..4 {
            let cache = &cache;
            s.spawn(move || {
                for i in 0..10 {
                    ok(cache.put_result(C1, &format!("m{t}-{i}"), &json!(i)));
                }
            });
        }
    });
    assert_eq!(ok(cache.results(C1)).len(), 40);
}
