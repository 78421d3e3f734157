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

/// A `BaseOf` for records that stand on nothing.
fn no_base(_: &Path) -> Option<String> {
    None
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
    let freed = ok(cache.gc(&keep, &keep_commits, &no_base, Duration::ZERO));
    assert_eq!(freed.store, StoreSweep::None);
    let freed = freed.local;
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
    assert_eq!(
        ok(cache.gc(&keep, &keep_commits, &no_base, Duration::ZERO)).local,
        Freed::default()
    );
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

/// Two clones' caches sharing one store, in a temporary folder.
struct Clones {
    _dir: tempfile::TempDir,
    store: PathBuf,
    a: Cache,
    b: Cache,
}

fn with_store(root: &Path, store: &Path) -> Cache {
    let (mut cache, _) = open(root);
    ok(cache.use_store(store, Duration::from_secs(10)));
    cache
}

fn clones() -> Clones {
    let dir = tempfile::tempdir().expect("temporary folder");
    let store = dir.path().join("store");
    let a = with_store(&dir.path().join("a/.rmc"), &store);
    let b = with_store(&dir.path().join("b/.rmc"), &store);
    Clones {
        _dir: dir,
        store,
        a,
        b,
    }
}

#[test]
fn records_go_to_the_store_and_every_clone_reads_them() {
    let c = clones();
    ok(c.a.put_record("lift", A, b"from a"));
    let shared = c.store.join(format!("v{STORE_FORMAT}/records/{A}.rec"));
    assert!(shared.is_file());
    assert!(
        !c.a.root().join("records").exists(),
        "nothing in .rmc/records"
    );
    // Keyed by content alone: another clone, whatever it calls the model, finds it.
    assert!(c.b.has_record("lift", A));
    assert!(c.b.has_record("elevator", A));
    assert_eq!(c.b.record_path("elevator", A), shared);
    assert_eq!(
        ok(c.b.get_record("elevator", A)).as_deref(),
        Some(&b"from a"[..])
    );
    // The writer is told where it writes, so a record can stand on a base beside it.
    let told = std::cell::RefCell::new(PathBuf::new());
    ok(c.b.put_record_with("lift", B, |target, w| {
        *told.borrow_mut() = target.to_path_buf();
        w.write_all(b"b")?;
        Ok(1)
    }));
    assert_eq!(
        *told.borrow(),
        c.store.join(format!("v{STORE_FORMAT}/records/{B}.rec"))
    );
    assert!(c.a.records_used() > 0 && c.b.records_used() > 0);
}

#[test]
fn a_record_in_the_cache_from_before_the_store_is_still_read() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let root = dir.path().join(".rmc");
    {
        let (cache, _) = open(&root);
        ok(cache.put_record("lift", A, b"old"));
    }
    let cache = with_store(&root, &dir.path().join("store"));
    assert!(cache.has_record("lift", A));
    assert_eq!(
        cache.record_path("lift", A),
        root.join(format!("records/lift/{A}.rec"))
    );
    assert_eq!(
        ok(cache.get_record("lift", A)).as_deref(),
        Some(&b"old"[..])
    );
    // A new one goes to the store.
    ok(cache.put_record("lift", B, b"new"));
    assert!(cache
        .record_path("lift", B)
        .starts_with(dir.path().join("store")));
}

#[test]
fn a_store_that_refuses_a_record_leaves_it_in_the_cache_with_a_note() {
    let c = clones();
    // The records folder replaced by a file: nothing can be written there.
    let records = c.store.join(format!("v{STORE_FORMAT}/records"));
    ok(fs::remove_dir_all(&records).map_err(|e| CacheError::io("rm", &records, e)));
    ok(fs::write(&records, b"in the way").map_err(|e| CacheError::io("write", &records, e)));
    assert_eq!(ok(c.a.put_record("lift", A, b"kept")), 4);
    assert!(c.a.root().join(format!("records/lift/{A}.rec")).is_file());
    assert!(c.a.has_record("lift", A));
    let notes = c.a.take_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("kept in"), "{notes:?}");
    // A store folder that cannot be made at all is refused at once.
    let mut plain = open(&c._dir.path().join("c/.rmc")).0;
    assert!(plain.use_store(&records.join("x"), Duration::ZERO).is_err());
    assert_eq!(plain.store_dir(), None);
}

#[test]
fn opening_removes_the_temporary_files_of_dead_writers_only() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let root = dir.path().join(".rmc");
    let store = dir.path().join("store");
    drop(with_store(&root, &store));
    // A writer that is gone (a child that exited), and one that is alive (this process).
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("true runs");
    let dead = child.id();
    child.wait().expect("true ends");
    let live = std::process::id();
    let shared = store.join(format!("v{STORE_FORMAT}/records"));
    let local = root.join("records/lift");
    ok(fs::create_dir_all(&local).map_err(|e| CacheError::io("mkdir", &local, e)));
    let name = |pid: u32| format!(".{A}.rec.tmp-{pid}-0");
    for (dir, pid) in [
        (&shared, dead),
        (&shared, live),
        (&local, dead),
        (&local, live),
    ] {
        let p = dir.join(name(pid));
        ok(fs::write(&p, b"part").map_err(|e| CacheError::io("write", &p, e)));
    }
    let _cache = with_store(&root, &store);
    if atomic::alive(dead).is_some() {
        assert!(
            !shared.join(name(dead)).exists(),
            "a dead writer's file goes"
        );
    }
    assert!(
        shared.join(name(live)).exists(),
        "a live writer's file stays"
    );
    // In .rmc/ no writer can be alive while this run holds the lock.
    assert!(!local.join(name(dead)).exists());
    assert!(!local.join(name(live)).exists());
}

/// A `BaseOf` from a table: record hash → the hash it stands on.
fn bases<'a>(table: &'a [(&'a str, &'a str)]) -> impl Fn(&Path) -> Option<String> + 'a {
    move |p: &Path| {
        let name = p.file_name()?.to_str()?;
        table
            .iter()
            .find(|(h, _)| name == format!("{h}.rec"))
            .map(|(_, b)| format!("{b}.rec"))
    }
}

/// Sets a record's last use to `secs` after the epoch.
fn used_at(path: &Path, secs: u64) {
    let f = fs::File::options().write(true).open(path).expect("open");
    f.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(secs))
        .expect("set mtime");
}

const D: &str = "dddddddddddddddd";
const E: &str = "eeeeeeeeeeeeeeee";

#[test]
fn the_budget_drops_the_least_recently_used_that_no_clone_needs() {
    let c = clones();
    for (h, t) in [(A, 1), (B, 2), (D, 3), (E, 4)] {
        ok(c.a.put_record("m", h, &[0; 100]));
        used_at(&c.a.record_path("m", h), t);
    }
    // E stands on D; clone b's branch tips need B.
    let table = [(E, D)];
    let base_of = bases(&table);
    let b_needs: Needs = [("m".to_string(), B.to_string())].into();
    ok(c.b.register(&b_needs, &base_of));
    // b's run ends; its clone (and so its registration) stays.
    let b_root = c.b.root().to_path_buf();
    drop(c.b);
    let a_needs: Needs = [("m".to_string(), E.to_string())].into();
    // Under the budget: nothing goes.
    let e = ok(c.a.enforce_budget(400, &a_needs, &base_of, Duration::ZERO));
    assert_eq!((e.dropped.files, e.kept), (0, 400));
    // 150 bytes: A goes (the least recently used); B (b's), D (E's base) and E stay.
    let e = ok(c.a.enforce_budget(150, &a_needs, &base_of, Duration::ZERO));
    assert_eq!(
        e.dropped,
        Freed {
            files: 1,
            bytes: 100
        }
    );
    assert_eq!(e.kept, 300);
    assert!(!e.store_busy);
    assert!(!c.a.has_record("m", A));
    for h in [B, D, E] {
        assert!(c.a.has_record("m", h), "{h}");
    }
    // Once clone b is gone, its registration protects nothing.
    ok(fs::remove_dir_all(&b_root).map_err(|e| CacheError::io("rm", &b_root, e)));
    let e = ok(c.a.enforce_budget(150, &a_needs, &base_of, Duration::ZERO));
    assert_eq!(e.dropped.files, 1);
    assert!(!c.a.has_record("m", B));
    assert!(c.a.has_record("m", D) && c.a.has_record("m", E));
}

#[test]
fn nothing_in_the_store_is_deleted_while_another_run_uses_it() {
    let c = clones();
    ok(c.a.put_record("m", A, &[0; 100]));
    ok(c.a.put_record("m", B, &[0; 100]));
    let none = Needs::new();
    // b holds the store open (shared): a cannot have it alone.
    let e =
        ok(c.a.enforce_budget(0, &none, &no_base, Duration::from_millis(50)));
    assert!(e.store_busy);
    assert_eq!(e.dropped.files, 0);
    let swept =
        ok(c.a.gc(&none, &HashSet::new(), &no_base, Duration::from_millis(50)));
    assert_eq!(swept.store, StoreSweep::Busy);
    assert_eq!(
        ok(c.a.clear_store(Duration::from_millis(50))),
        StoreSweep::Busy
    );
    assert!(c.a.has_record("m", A) && c.a.has_record("m", B));
    // And a is still using the store (its lock shared again).
    ok(c.a.put_record("m", D, b"d"));
    drop(c.b);
    let e =
        ok(c.a.enforce_budget(0, &none, &no_base, Duration::from_secs(10)));
    assert_eq!(e.dropped.files, 3);
}

#[test]
fn gc_in_the_store_keeps_what_any_clone_needs_and_the_bases() {
    let c = clones();
    for h in [A, B, D, E] {
        ok(c.a.put_record("m", h, b"xx"));
    }
    let table = [(E, D)];
    let base_of = bases(&table);
    ok(c.b.register(&[("m".to_string(), B.to_string())].into(), &base_of));
    let b_root = c.b.root().to_path_buf();
    drop(c.b);
    let keep: Needs = [("m".to_string(), E.to_string())].into();
    let swept =
        ok(c.a.gc(&keep, &HashSet::new(), &base_of, Duration::from_secs(10)));
    assert_eq!(swept.store, StoreSweep::Freed(Freed { files: 1, bytes: 2 }));
    assert!(!c.a.has_record("m", A));
    for h in [B, D, E] {
        assert!(c.a.has_record("m", h), "{h}");
    }
    let l = ok(c.a.ls());
    assert_eq!(l.store_bytes(), 6);
    let st = l.store.expect("a store");
    assert_eq!(st.records.len(), 3);
    assert_eq!(st.clones, 1, "b registered, a not yet");
    let _ = b_root;
    // clear_store empties it.
    assert_eq!(
        ok(c.a.clear_store(Duration::from_secs(10))),
        StoreSweep::Freed(Freed { files: 3, bytes: 6 })
    );
    assert!(!c.a.has_record("m", E));
}
