//! The HTML history report at the size of a real project's history: 65 commits of four
//! models, violations whose trails run past 100,000 steps, incomplete checks and a model
//! that does not load. The page must stay small enough for a browser to open (at most 2 MB;
//! the trails are cut as the text output cuts them, the JSON keeps them whole), and, with
//! Chromium installed (`apt-get install -y chromium`), it is opened in a real headless
//! browser: `cargo test --test html_report -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;

use git_rmc::report::history::ViolationRef;
use git_rmc::report::history::{html, CommitRow, HistoryDoc, ModelCell, ViolationLife};
use git_rmc::report::verify::ModelVerdict;
use git_rmc::report::verify::StepDoc;

/// The most a history page may weigh and still open quickly in a browser.
const MAX_PAGE_BYTES: usize = 2 * 1024 * 1024;

const MODELS: [&str; 4] = [
    "models/elevator.pml",
    "models/door_controller.pml",
    "protocols/two_phase_commit.pml",
    "protocols/sliding_window/sender_receiver.pml",
];

/// A trail of `n` steps over three processes, each step changing a variable or two, with
/// some `printf` output, ending at `location`.
fn trail(n: usize, location: &str) -> Vec<StepDoc> {
    (1..=n)
        .map(|step| {
            let pid = step % 3;
            let mut changed = serde_json::Map::new();
            changed.insert(format!("counter[{pid}]"), serde_json::json!(step % 251));
            if step % 4 == 0 {
                changed.insert("turn".to_string(), serde_json::json!(pid));
            }
            StepDoc {
                step,
                proc: ["Car", "Door", "Controller"][pid].to_string(),
                pid: pid as git_rmc::explore::Pid,
                location: if step == n {
                    location.to_string()
                } else {
                    format!("{}:{}:{}", MODELS[0], 20 + step % 90, 1 + step % 17)
                },
                statement: format!("counter[_pid] = (counter[_pid] + {}) % 251", step % 7),
                changed,
                output: (step % 50 == 0).then(|| format!("step {step}: floor {}\n", step % 9)),
            }
        })
        .collect()
}

/// A 40-digit commit id, different for every `i`.
fn commit_id(i: usize) -> String {
    let x = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("{x:016x}{:016x}{:08x}", x.rotate_left(17), i)
}

/// The playground's history, as `git rmc history` builds it.
fn playground() -> HistoryDoc {
    let mut commits = Vec::new();
    let mut violations = Vec::new();
    for i in 0..65 {
        let commit = commit_id(i);
        let short = commit[..7].to_string();
        let subject = match i % 5 {
            0 => format!("Refactor the controller's request queue, step {i}"),
            1 => format!(
                "Let the door re-open while the car is stopped between floors when a passenger \
                 presses the button again, and document why (step {i})"
            ),
            2 => "Fix a typo".to_string(),
            3 => format!("Bump the sliding window to {} frames", 2 + i % 6),
            _ => format!("Merge branch 'feature/priority-{i}' into main"),
        };
        let mut models = Vec::new();
        for (k, model) in MODELS.iter().enumerate() {
            let stored = 40_000 + 137_000 * (k as u64 + 1) + 911 * i as u64;
            let mut cell = ModelCell {
                model: model.to_string(),
                verdict: ModelVerdict::Pass,
                mode: if i == 0 { "full" } else { "incremental" }.to_string(),
                algorithm: ["full", "prune", "replay"][if i == 0 { 0 } else { 1 + (i + k) % 2 }]
                    .to_string(),
                states_stored: stored,
                states_explored: if i == 0 {
                    stored
                } else {
                    stored / (2 + i as u64 % 7)
                },
                states_reused: if i == 0 {
                    0
                } else {
                    stored - stored / (2 + i as u64 % 7)
                },
                elapsed_ms: 800 + 97 * (i as u64 % 13) * (k as u64 + 1) * 30,
                full_states: Some(stored),
                speedup: (i > 0).then_some(1.0 + (i % 9) as f64 * 0.7),
                violations: Vec::new(),
                error: None,
                claims_not_checked: Vec::new(),
                failed: Vec::new(),
                limit: None,
                claims: Vec::new(),
            };
            if k == 3 && i < 4 {
                cell = ModelCell {
                    verdict: ModelVerdict::Absent,
                    mode: String::new(),
                    algorithm: String::new(),
                    full_states: None,
                    speedup: None,
                    ..cell
                };
            } else if k == 2 && i % 9 == 4 {
                cell.verdict = ModelVerdict::Incomplete;
            } else if k == 1 && (i == 30 || i == 31) {
                cell.verdict = ModelVerdict::Error;
                cell.algorithm = String::new();
                cell.error = Some(format!(
                    "{model}:57:12: syntax error: expected ';' or '}}' after the statement, \
                     found 'od' (the do loop opened at {model}:41:5 is never closed)"
                ));
            } else if k == 0 && (10..22).contains(&i) || k == 2 && (40..47).contains(&i) {
                cell.verdict = ModelVerdict::Fail;
                let first = if k == 0 { 10 } else { 40 };
                let location = format!("{model}:{}:9", 100 + k);
                cell.violations.push(ViolationRef {
                    kind: "assertion".to_string(),
                    location: location.clone(),
                    message: "assertion violated (!(door_open && moving))".to_string(),
                    status: if i == first { "new" } else { "still" }.to_string(),
                });
                if i == first {
                    // A violation whose trail is longer than any page should hold.
                    violations.push(ViolationLife {
                        model: model.to_string(),
                        kind: "assertion".to_string(),
                        location: location.clone(),
                        message: "assertion violated (!(door_open && moving))".to_string(),
                        first_seen: short.clone(),
                        fixed_in: Some(commit_id(if k == 0 { 22 } else { 47 })[..7].to_string()),
                        trail: Some(trail(123_051 - 20_000 * k, &location)),
                        locations: Vec::new(),
                        key: None,
                    });
                }
            }
            models.push(cell);
        }
        // Every fifth commit finds a deadlock in the sliding window that the next one fixes,
        // with a trail of a few hundred to a few thousand steps.
        if i % 5 == 3 && i > 3 {
            let cell = &mut models[3];
            let location = format!("{}:{}:5", MODELS[3], 60 + i);
            cell.verdict = ModelVerdict::Fail;
            cell.violations.push(ViolationRef {
                kind: "invalid-end-state".to_string(),
                location: location.clone(),
                message: "invalid end state (Sender(1) at 61:5, Receiver(2) at 88:9)".to_string(),
                status: "new".to_string(),
            });
            violations.push(ViolationLife {
                model: MODELS[3].to_string(),
                kind: "invalid-end-state".to_string(),
                location: location.clone(),
                message: "invalid end state (Sender(1) at 61:5, Receiver(2) at 88:9)".to_string(),
                first_seen: short.clone(),
                fixed_in: (i < 60).then(|| commit_id(i + 1)[..7].to_string()),
                trail: (i % 10 != 8).then(|| trail(150 + 300 * i, &location)),
                locations: Vec::new(),
                key: None,
            });
        }
        commits.push(CommitRow {
            commit,
            short,
            subject,
            time: 1_700_000_000 + 3600 * i as i64,
            models,
        });
    }
    HistoryDoc {
        repository: "playground".to_string(),
        models: MODELS.iter().map(|m| m.to_string()).collect(),
        commits,
        violations,
    }
}

#[test]
fn a_playground_sized_history_fits_in_two_megabytes() {
    let doc = playground();
    let longest = doc
        .violations
        .iter()
        .filter_map(|v| v.trail.as_ref().map(Vec::len))
        .max();
    assert_eq!(longest, Some(123_051));
    let page = html(&doc);
    eprintln!("the playground's page: {} bytes", page.len());
    assert!(
        page.len() <= MAX_PAGE_BYTES,
        "{} bytes, more than {MAX_PAGE_BYTES}",
        page.len()
    );
    // Every violation is there, its trail cut to its ends with a pointer to the JSON.
    assert_eq!(
        page.matches("<details class=\"violation\"").count(),
        doc.violations.len()
    );
    assert!(
        page.contains("123,051 steps"),
        "the whole trail's length is given"
    );
    assert!(page.contains("git rmc history --format json"));
}

/// Chromium from the distribution's packages (or the browser `GIT_RMC_CHROMIUM` names).
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GIT_RMC_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `args` with a fresh profile, at a 1280-pixel window, and returns
/// its standard output; None when it does not finish in two minutes.
fn run_chromium(browser: &Path, scratch: &Path, args: &[String]) -> Option<String> {
    let profile = scratch.join(format!("profile-{}", args.len()));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--run-all-compositor-stages-before-draw",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let start = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < std::time::Duration::from_secs(120) => {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    reader.join().ok()
}

/// The script the test adds to its copy of a page (the page itself runs none): it reads the
/// laid-out page, opens the first violation's trail, and writes what it measured into the
/// document as JSON, which `--dump-dom` then prints.
const PROBE: &str = r#"<script>
(function () {
  var r = {}, de = document.documentElement;
  try {
  r.innerWidth = window.innerWidth;
  r.clientWidth = de.clientWidth;
  r.scrollWidth = de.scrollWidth;
  r.overflowing = [];
  document.querySelectorAll('.scroll').forEach(function (d) {
    if (d.scrollWidth > d.clientWidth) { r.overflowing.push(d.parentNode.id); }
  });
  var svg = document.querySelector('svg.chart'), box = svg.getBoundingClientRect();
  r.chartWidth = box.width; r.chartHeight = box.height; r.chartRight = box.right;
  var bars = svg.querySelectorAll('g.commit rect');
  r.bars = bars.length; r.barsDrawn = 0;
  bars.forEach(function (b) { if (b.getBoundingClientRect().height > 0) { r.barsDrawn++; } });
  r.colours = {};
  svg.querySelectorAll('g.legend rect').forEach(function (s) {
    r.colours[s.getAttribute('class')] = getComputedStyle(s).fill;
  });
  r.incompleteBars = svg.querySelectorAll('g.commit rect.incomplete').length;
  var d = document.querySelector('details.violation table.trail').closest('details');
  var t = d.querySelector('table.trail');
  r.trailShownClosed = t.checkVisibility();
  r.closedHeight = d.getBoundingClientRect().height;
  d.open = true;
  r.trailShownOpen = t.checkVisibility();
  r.openHeight = d.getBoundingClientRect().height;
  var tb = t.getBoundingClientRect();
  r.trailRows = t.querySelectorAll('tbody tr').length;
  r.trailHeight = tb.height; r.trailRight = tb.right;
  var gap = t.querySelector('td.gap');
  r.gap = gap ? gap.textContent : null;
  r.scrollWidthOpen = de.scrollWidth;
  // For the second screenshot, the open trail at the top (a screenshot does not scroll).
  if (location.hash === '#trail') {
    ['chart', 'commits'].forEach(function (id) {
      document.getElementById(id).style.display = 'none';
    });
  }
  } catch (e) { r.error = String(e); }
  var out = document.createElement('pre');
  out.id = 'probe'; out.style.display = 'none'; out.textContent = JSON.stringify(r);
  document.body.appendChild(out);
})();
</script>"#;

/// Opens `page` in Chromium at a 1280-pixel window: what the probe measured, and two
/// screenshots beside the page for a person to look at (`<name>.png`, the top of the page,
/// and `<name>.trail.png`, the first trail open).
fn measure(browser: &Path, scratch: &Path, name: &str, page: &str) -> serde_json::Value {
    let probed = page.replacen("</body>", &format!("{PROBE}\n</body>"), 1);
    let file = scratch.join(format!("{name}.html"));
    std::fs::write(scratch.join(format!("{name}.page.html")), page).expect("write the page");
    std::fs::write(&file, &probed).expect("write the probed page");
    let url = format!("file://{}", file.display());
    let dom = run_chromium(
        browser,
        scratch,
        &[
            "--window-size=1280,900".to_string(),
            "--dump-dom".to_string(),
            url.clone(),
        ],
    )
    .unwrap_or_else(|| panic!("chromium did not finish on {name}"));
    let json = dom
        .split("<pre id=\"probe\" style=\"display: none;\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("the probe did not run on {name}: {dom:.2000}"));
    let json = json.replace("&quot;", "\"").replace("&amp;", "&");
    let probe: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let shot = scratch.join(format!("{name}.png"));
    for (png, at) in [
        (&shot, url.clone()),
        (&shot.with_extension("trail.png"), url + "#trail"),
    ] {
        let _ = run_chromium(
            browser,
            scratch,
            &[
                "--window-size=1280,1600".to_string(),
                format!("--screenshot={}", png.display()),
                at,
            ],
        );
    }
    eprintln!("{name}: {probe}\n  screenshots: {}", shot.display());
    probe
}

/// What every history page must show in a 1280-pixel window: no horizontal scrolling of the
/// page nor of its boxes (so no column is hidden), the chart drawn with a bar per commit, and
/// a trail that opens.
fn check_layout(name: &str, p: &serde_json::Value, commits: usize) {
    let n = |k: &str| {
        p[k].as_f64()
            .unwrap_or_else(|| panic!("{name}: no {k} in {p}"))
    };
    assert_eq!(n("innerWidth"), 1280.0, "{name}: measured at 1280 pixels");
    assert!(
        n("scrollWidth") <= 1280.0,
        "{name}: the page scrolls sideways: {p}"
    );
    assert!(n("scrollWidth") <= n("clientWidth"), "{name}: {p}");
    assert!(
        n("scrollWidthOpen") <= n("clientWidth"),
        "{name}: an open trail widens the page: {p}"
    );
    assert_eq!(
        p["overflowing"],
        serde_json::json!([]),
        "{name}: a box scrolls sideways: {p}"
    );
    assert!(
        n("chartWidth") > 400.0 && n("chartHeight") > 200.0,
        "{name}: {p}"
    );
    assert!(n("chartRight") <= n("clientWidth"), "{name}: {p}");
    assert_eq!(n("bars") as usize, commits, "{name}: a bar per commit");
    assert!(n("barsDrawn") >= 1.0, "{name}: {p}");
    // Trails start closed, and one opens to show its table.
    assert_eq!(p["trailShownClosed"], false, "{name}: {p}");
    assert_eq!(p["trailShownOpen"], true, "{name}: {p}");
    assert!(
        n("openHeight") > n("closedHeight") + n("trailHeight") - 1.0,
        "{name}: {p}"
    );
    assert!(
        n("trailRows") >= 1.0 && n("trailHeight") > 20.0,
        "{name}: {p}"
    );
    assert!(n("trailRight") <= n("clientWidth"), "{name}: {p}");
    // Four colours for four kinds of commit, none of them another's.
    let colours: Vec<&str> = ["bar", "bar fail", "bar incomplete", "bar error"]
        .iter()
        .map(|c| {
            p["colours"][c]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: no {c} swatch: {p}"))
        })
        .collect();
    for (i, a) in colours.iter().enumerate() {
        assert!(!colours[i + 1..].contains(a), "{name}: {colours:?}");
    }
}

#[test]
#[ignore = "opens the page in Chromium (apt-get install -y chromium)"]
fn the_html_report_opens_in_chromium_at_1280_pixels() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on PATH (apt-get install -y chromium)");
        return;
    };
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html_report");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch folder");

    // The playground's history: 65 commits, trails of 100,000 steps and more.
    let doc = playground();
    let page = html(&doc);
    assert!(page.len() <= MAX_PAGE_BYTES, "{} bytes", page.len());
    let p = measure(&browser, &scratch, "playground", &page);
    check_layout("playground", &p, doc.commits.len());
    assert!(p["incompleteBars"].as_u64() > Some(0), "{p}");
    assert_eq!(
        p["trailRows"].as_u64(),
        Some(201),
        "200 steps and the gap: {p}"
    );
    let gap = p["gap"].as_str().unwrap_or_default();
    assert!(gap.contains("122,851 steps left out"), "{gap}");

    // The sample repository's own report, made by the binary.
    let repo = scratch.join("sample");
    let bin = env!("CARGO_BIN_EXE_git-rmc");
    // (Without the user's record store: records of these commits made by another run
    // would make every commit a reuse, with no states explored to draw.)
    let built = Command::new(bin)
        .env("GIT_RMC_STORE", "none")
        .args(["--quiet", "demo"])
        .arg(&repo)
        .output()
        .expect("git rmc demo runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let report = Command::new(bin)
        .env("GIT_RMC_STORE", "none")
        .args(["history", "--format", "html", "-o", "report.html"])
        .current_dir(&repo)
        .output()
        .expect("git rmc history runs");
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let page = std::fs::read_to_string(repo.join("report.html")).expect("the report");
    assert!(page.len() <= MAX_PAGE_BYTES, "{} bytes", page.len());
    let commits = page.matches("<g class=\"commit").count();
    let p = measure(&browser, &scratch, "sample", &page);
    check_layout("sample", &p, commits);
}
