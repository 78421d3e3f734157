//! The history report's three renderings of small documents: the terminal table's rows, the
//! Markdown's escaping, and the HTML page read back as XML (well formed, one chart point per
//! commit, the table, a trail, and user text that stays text).

use quick_xml::events::Event;
use quick_xml::Reader;

use super::cells::{compact, date, duration, speedup};
use super::*;
use crate::report::verify::{ModelVerdict, TEXT_TRAIL_STEPS};

fn cell(verdict: &str, mode: &str, algorithm: &str, figures: [u64; 4]) -> ModelCell {
    let [stored, explored, pruned, ms] = figures;
    ModelCell {
        model: "models/elevator.pml".to_string(),
        verdict: ModelVerdict::from_name(verdict).unwrap_or_default(),
        mode: mode.to_string(),
        algorithm: algorithm.to_string(),
        states_stored: stored,
        states_explored: explored,
        states_reused: pruned,
        elapsed_ms: ms,
        full_states: Some(stored),
        speedup: None,
        violations: Vec::new(),
        error: None,
        claims_not_checked: Vec::new(),
        failed: Vec::new(),
        limit: None,
        claims: Vec::new(),
    }
}

fn commit(n: u8, subject: &str, time: i64, models: Vec<ModelCell>) -> CommitRow {
    let commit: String = std::iter::repeat_n(char::from(b'a' + n), 40).collect();
    CommitRow {
        short: commit[..7].to_string(),
        commit,
        subject: subject.to_string(),
        time,
        models,
    }
}

fn step(
    step: usize,
    proc: &str,
    pid: crate::explore::Pid,
    location: &str,
    statement: &str,
) -> StepDoc {
    StepDoc {
        step,
        proc: proc.to_string(),
        pid,
        location: location.to_string(),
        statement: statement.to_string(),
        changed: serde_json::Map::new(),
        output: None,
    }
}

/// Three commits of one model: a first full check, an incremental one that finds a new
/// assertion violation, and one that fixes it (with a subject full of markup).
fn one_model() -> HistoryDoc {
    let mut failing = cell("fail", "incremental", "prune", [1300, 400, 900, 5]);
    failing.speedup = Some(2.6);
    failing.violations.push(ViolationRef {
        kind: "assertion".to_string(),
        location: "models/elevator.pml:42:5".to_string(),
        message: "assertion violated (door == closed)".to_string(),
        status: "new".to_string(),
    });
    let mut fixed = cell(
        "pass",
        "incremental",
        "prune",
        [25_000, 12_345, 12_655, 1500],
    );
    fixed.speedup = Some(1.94);
    let mut first = step(1, "Door", 1, "models/elevator.pml:17:3", "door = open");
    first
        .changed
        .insert("door".to_string(), serde_json::json!(1));
    let mut second = step(
        2,
        "Car",
        0,
        "models/elevator.pml:42:5",
        "assert(door == closed)",
    );
    second.output = Some("moving <up>\n".to_string());
    HistoryDoc {
        repository: "lift".to_string(),
        models: vec!["models/elevator.pml".to_string()],
        commits: vec![
            commit(
                0,
                "Add the elevator model",
                1_700_000_000,
                vec![cell("pass", "full", "full", [1234, 1234, 0, 12])],
            ),
            commit(
                1,
                "Let the door open while moving",
                1_700_000_600,
                vec![failing],
            ),
            commit(
                2,
                "Close the door first <script>&\"",
                1_700_001_200,
                vec![fixed],
            ),
        ],
        violations: vec![ViolationLife {
            model: "models/elevator.pml".to_string(),
            kind: "assertion".to_string(),
            location: "models/elevator.pml:42:5".to_string(),
            message: "assertion violated (door == closed)".to_string(),
            first_seen: "bbbbbbb".to_string(),
            fixed_in: Some("ccccccc".to_string()),
            trail: Some(vec![first, second]),
            locations: Vec::new(),
            key: None,
        }],
    }
}

/// Two models over two commits: one that does not load, one absent, a reused result, and a
/// violation that is still there.
fn two_models() -> HistoryDoc {
    let a = |c: ModelCell| ModelCell {
        model: "a.pml".to_string(),
        ..c
    };
    let b = |c: ModelCell| ModelCell {
        model: "b.pml".to_string(),
        ..c
    };
    let mut broken = cell("error", "full", "", [0, 0, 0, 0]);
    broken.error = Some("b.pml:3:1: syntax error\nnear 'od'".to_string());
    let mut failing = cell("fail", "full", "full", [80, 80, 0, 2]);
    failing.violations.push(ViolationRef {
        kind: "invalid-end-state".to_string(),
        location: "a.pml:9:1".to_string(),
        message: "invalid end state".to_string(),
        status: "new".to_string(),
    });
    let mut still = cell("fail", "reused", "", [80, 0, 0, 0]);
    still.violations.push(ViolationRef {
        kind: "invalid-end-state".to_string(),
        location: "a.pml:9:1".to_string(),
        message: "invalid end state".to_string(),
        status: "still".to_string(),
    });
    HistoryDoc {
        repository: "two".to_string(),
        models: vec!["a.pml".to_string(), "b.pml".to_string()],
        commits: vec![
            commit(3, "Start", 0, vec![a(failing), b(broken)]),
            commit(
                4,
                "Touch the README only",
                60,
                vec![a(still), b(cell("absent", "", "", [0, 0, 0, 0]))],
            ),
        ],
        violations: vec![ViolationLife {
            model: "a.pml".to_string(),
            kind: "invalid-end-state".to_string(),
            location: "a.pml:9:1".to_string(),
            message: "invalid end state".to_string(),
            first_seen: "ddddddd".to_string(),
            fixed_in: None,
            trail: None,
            locations: Vec::new(),
            key: None,
        }],
    }
}

#[test]
fn the_text_table_has_a_row_per_commit_and_the_violations_life() {
    let expected = "\
lift: 3 commits, 1 model
commit   subject                    verdict  mode         explored  stored  reused    time  speed-up
aaaaaaa  Add the elevator model     pass     full             1234    1234       0   12 ms
bbbbbbb  Let the door open while …  FAIL     incremental       400    1300     900    5 ms      2.6x
ccccccc  Close the door first <sc…  pass     incremental     12.3k   25.0k   12.7k  1.50 s      1.9x

violations:
  assertion violated (door == closed) [assertion] at models/elevator.pml:42:5
    first seen in bbbbbbb, fixed in ccccccc
";
    assert_eq!(text(&one_model(), false), expected);
}

#[test]
fn several_models_get_a_column_and_an_error_its_diagnostic() {
    let expected = "\
two: 2 commits, 2 models
commit   subject                model  verdict  mode    explored  stored  reused  time  speed-up
ddddddd  Start                  a.pml  FAIL     full          80      80       0  2 ms
                                b.pml  error
         error: b.pml:3:1: syntax error near 'od'
eeeeeee  Touch the README only  a.pml  FAIL     reused         0      80       0  0 ms
                                b.pml  absent

violations:
  invalid end state [invalid-end-state] at a.pml:9:1
    a.pml: first seen in ddddddd, still present
";
    assert_eq!(text(&two_models(), false), expected);
}

#[test]
fn long_subjects_are_cut_to_the_width_and_colour_is_only_asked_for() {
    let mut d = one_model();
    d.commits[0].subject = "word ".repeat(40);
    let plain = text(&d, false);
    for line in plain.lines().take(5) {
        assert!(
            line.chars().count() <= 100,
            "{line:?} is wider than 100 columns"
        );
    }
    assert!(
        plain.contains("aaaaaaa  word word word word word…  pass"),
        "{plain}"
    );
    assert!(!plain.contains('\x1b'));

    let coloured = text(&d, true);
    assert!(
        coloured.contains("\x1b[1;31mFAIL\x1b[0m     incremental"),
        "{coloured}"
    );
    assert!(
        coloured.contains("\x1b[32mfixed in ccccccc\x1b[0m"),
        "{coloured}"
    );
}

#[test]
fn a_subject_cannot_send_escape_sequences_or_break_rows() {
    let mut d = one_model();
    d.commits[0].subject = "evil\x1b[2J\nsecond line".to_string();
    let t = text(&d, false);
    assert!(!t.contains('\x1b'));
    assert!(t.contains("aaaaaaa  evil [2J second line"), "{t}");
}

#[test]
fn markdown_escapes_table_breaking_text() {
    let mut d = one_model();
    d.commits[0].subject = "a | b <img src=x> *bold* `code` [link](x)".to_string();
    let m = markdown(&d);
    assert!(
        m.contains("| `aaaaaaa` | a \\| b \\<img src=x\\> \\*bold\\* \\`code\\` \\[link\\](x) | pass | full | 1,234 | 1,234 | 0 | 12 ms |  |  |"),
        "{m}"
    );
    assert!(m.contains("| `bbbbbbb` | Let the door open while moving | **FAIL** | incremental (prune) | 400 | 1,300 | 900 | 5 ms | 2.6x | new assertion at models/elevator.pml:42:5 |"), "{m}");
    assert!(m.contains("Close the door first \\<script\\>\\&\""), "{m}");
    assert!(m.contains("| assertion | models/elevator.pml:42:5 | assertion violated (door == closed) | `bbbbbbb` | fixed in `ccccccc` |"), "{m}");
    // Every row of the commits table has the header's number of cells.
    let cells = |l: &str| l.replace("\\|", "").matches('|').count();
    let rows: Vec<&str> = m.lines().filter(|l| l.starts_with("| ")).take(5).collect();
    assert!(rows.iter().all(|r| cells(r) == cells(rows[0])), "{rows:#?}");
}

#[test]
fn markdown_of_several_models_names_them_and_counts_old_violations() {
    let m = markdown(&two_models());
    assert!(m.contains("| `ddddddd` | Start | a.pml | **FAIL** | full | 80 | 80 | 0 | 2 ms |  | new invalid-end-state at a.pml:9:1 |"), "{m}");
    assert!(
        m.contains(
            "|  |  | b.pml | **error** |  |  |  |  |  |  | b.pml:3:1: syntax error near 'od' |"
        ),
        "{m}"
    );
    assert!(
        m.contains("| a.pml | **FAIL** | reused | 0 | 80 | 0 | 0 ms |  | 1 still present |"),
        "{m}"
    );
    assert!(m.contains("| a.pml | invalid-end-state | a.pml:9:1 | invalid end state | `ddddddd` | still present |"), "{m}");
}

/// An element of the page as read back by an XML parser.
#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
    /// The text of the element and its descendants, references resolved.
    text: String,
}

impl Node {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_whitespace().any(|w| w == class))
    }

    fn all<'a>(&'a self, name: &str, out: &mut Vec<&'a Node>) {
        if self.name == name {
            out.push(self);
        }
        for c in &self.children {
            c.all(name, out);
        }
    }

    fn find(&self, name: &str) -> Vec<&Node> {
        let mut out = Vec::new();
        self.all(name, &mut out);
        out
    }
}

/// Parses `page` as XML, failing on anything that is not well formed (quick-xml checks that
/// end tags match; this checks that every element is closed, that references are XML's own,
/// and that there is one root).
fn parse_xml(page: &str) -> Node {
    let mut reader = Reader::from_str(page);
    let mut stack = vec![Node::default()];
    let start = |e: &quick_xml::events::BytesStart| Node {
        name: e.name().as_ref().to_string(),
        attrs: e
            .attributes()
            .map(|a| {
                let a = a.unwrap_or_else(|err| panic!("bad attribute: {err}"));
                let v = a
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .unwrap_or_else(|err| panic!("bad attribute value: {err}"));
                (a.key.as_ref().to_string(), v.into_owned())
            })
            .collect(),
        ..Node::default()
    };
    let close = |stack: &mut Vec<Node>| {
        let node = stack.pop().unwrap_or_default();
        let parent = stack.last_mut().unwrap_or_else(|| panic!("unbalanced"));
        parent.text.push_str(&node.text);
        parent.children.push(node);
    };
    loop {
        let event = reader
            .read_event()
            .unwrap_or_else(|e| panic!("not well formed at {}: {e}", reader.buffer_position()));
        match event {
            Event::Start(e) => stack.push(start(&e)),
            Event::Empty(e) => {
                stack.push(start(&e));
                close(&mut stack);
            }
            Event::End(_) => close(&mut stack),
            Event::Text(t) => {
                let s = t.xml10_content();
                assert!(!s.contains('&'), "unescaped & in {s:?}");
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&s);
                }
            }
            Event::GeneralRef(r) => {
                let c = match r.resolve_char_ref() {
                    Ok(Some(c)) => c,
                    _ => match &*r {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => panic!("&{other}; is not an XML entity"),
                    },
                };
                if let Some(top) = stack.last_mut() {
                    top.text.push(c);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(stack.len(), 1, "elements left open");
    let mut doc = stack.pop().unwrap_or_default();
    assert_eq!(doc.children.len(), 1, "one root element");
    doc.children.pop().unwrap_or_default()
}

#[test]
fn the_html_page_is_well_formed_xml_with_chart_table_and_trail() {
    let d = one_model();
    let page = html(&d);
    assert!(page.starts_with("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\""));
    let root = parse_xml(&page);
    assert_eq!(root.name, "html");

    // Self-contained: nothing fetched, nothing run.
    for tag in ["script", "link", "img", "iframe", "object"] {
        assert!(root.find(tag).is_empty(), "a <{tag}> element");
    }
    assert!(!page.contains("src=") && !page.contains("url("));

    let svgs = root.find("svg");
    assert_eq!(svgs.len(), 1);
    let svg = svgs[0];
    assert_eq!(svg.attr("xmlns"), Some("http://www.w3.org/2000/svg"));
    let groups: Vec<&Node> = svg
        .find("g")
        .into_iter()
        .filter(|g| g.has_class("commit"))
        .collect();
    assert_eq!(groups.len(), 3, "one group per commit");
    let labels: Vec<String> = groups
        .iter()
        .map(|g| {
            assert_eq!(g.find("rect").len(), 1, "one bar");
            assert_eq!(g.find("circle").len(), 1, "one time point");
            g.find("text")[0].text.clone()
        })
        .collect();
    assert_eq!(labels, ["aaaaaaa", "bbbbbbb", "ccccccc"], "oldest first");
    let failing: Vec<bool> = groups.iter().map(|g| g.has_class("fail")).collect();
    assert_eq!(failing, [false, true, false]);
    // The tallest bar is the commit that explored the most.
    let heights: Vec<f64> = groups
        .iter()
        .map(|g| {
            g.find("rect")[0]
                .attr("height")
                .and_then(|h| h.parse().ok())
                .unwrap_or(-1.0)
        })
        .collect();
    assert!(
        heights[2] > heights[0] && heights[0] > heights[1],
        "{heights:?}"
    );

    let table = root
        .find("table")
        .into_iter()
        .find(|t| t.has_class("commits"))
        .unwrap_or_else(|| panic!("no commits table"));
    let all: Vec<&Node> = table.find("tbody")[0].find("tr");
    let (notes, rows): (Vec<&Node>, Vec<&Node>) = all.iter().partition(|r| r.has_class("notes"));
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0].attr("id"),
        Some(format!("commit-{}", "a".repeat(40)).as_str())
    );
    let cells: Vec<&str> = rows[1].find("td").iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        cells,
        [
            "bbbbbbb2023-11-14 22:23",
            "Let the door open while moving",
            "FAIL",
            "incremental (prune)",
            "400",
            "1,300",
            "900",
            "1,300",
            "5 ms",
            "2.6x",
        ]
    );
    // The failing commit's cells span its row and the notes under it, which name the
    // violation it found.
    assert_eq!(rows[1].find("td")[0].attr("rowspan"), Some("2"));
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].find("td")[0].attr("colspan"), Some("8"));
    assert_eq!(
        notes[0].text,
        "new assertion at models/elevator.pml:42:5: assertion violated (door == closed)"
    );
    assert!(all[2].has_class("notes"), "the notes follow their row");
    // The subject's markup is text, read back as written.
    assert_eq!(
        rows[2].find("td")[1].text,
        "Close the door first <script>&\""
    );

    let details = root.find("details");
    assert_eq!(details.len(), 1);
    let summary = &details[0].find("summary")[0].text;
    assert!(
        summary.contains("assertion violated (door == closed)"),
        "{summary}"
    );
    assert!(
        summary.contains("first seen in bbbbbbb, fixed in ccccccc"),
        "{summary}"
    );
    let steps: Vec<Vec<String>> = details[0].find("tbody")[0]
        .find("tr")
        .iter()
        .map(|r| r.find("td").iter().map(|c| c.text.clone()).collect())
        .collect();
    assert_eq!(
        steps[0],
        [
            "1",
            "Door(1)",
            "models/elevator.pml:17:3",
            "door = open",
            "door=1"
        ]
    );
    assert_eq!(steps[1][3], "assert(door == closed)moving <up>\n");
}

#[test]
fn the_html_page_survives_hostile_text_and_missing_figures() {
    let mut d = two_models();
    d.repository = "a<b & 'c'".to_string();
    d.commits[0].subject = "\u{1}</td></tr><script>alert(1)</script>\"'".to_string();
    d.violations[0].message = "x < y && z > \"w\"".to_string();
    let page = html(&d);
    let root = parse_xml(&page);
    assert!(root.find("script").is_empty());
    assert!(!page.contains("<script"));
    assert_eq!(root.find("title")[0].text, "git rmc history: a<b & 'c'");

    let svg = root.find("svg");
    let groups: Vec<&Node> = svg[0]
        .find("g")
        .into_iter()
        .filter(|g| g.has_class("commit"))
        .collect();
    assert_eq!(groups.len(), 2);
    // Both commits searched a.pml, so both have a time point; both have a failing model.
    assert!(groups
        .iter()
        .all(|g| g.find("circle").len() == 1 && g.has_class("fail")));

    // Two commits of two models: four rows, the commit's cells spanning its two.
    let table = root
        .find("table")
        .into_iter()
        .find(|t| t.has_class("commits"));
    let rows = table.map(|t| t.find("tr")).unwrap_or_default();
    assert_eq!(
        rows.len(),
        8,
        "a header, four rows and the notes under three of them"
    );
    assert_eq!(rows[1].find("td")[0].attr("rowspan"), Some("4"));
    assert_eq!(
        rows[1].find("td")[1].text,
        "\u{FFFD}</td></tr><script>alert(1)</script>\"'"
    );
    let error = rows[3].find("td");
    assert_eq!(error[0].text, "b.pml");
    assert_eq!(error[1].text, "error");
    assert!(error[1].has_class("error"));
    assert_eq!(
        error[2].text, "",
        "no figures for a model that does not load"
    );
    assert!(rows[4].has_class("notes"));
    assert!(rows[4].text.starts_with("b.pml:3:1: syntax error"));
    assert_eq!(rows[6].text, "1 still present");
    assert_eq!(rows[7].find("td")[1].text, "absent");

    let details = root.find("details");
    assert!(details[0].text.contains("x < y && z > \"w\""));
    assert!(details[0].text.contains("still present"));
    assert!(details[0].text.contains("No trail was kept"));
}

#[test]
fn a_commit_with_nothing_searched_is_a_gap_in_the_time_line() {
    let mut d = one_model();
    d.commits[1].models[0] = cell("error", "full", "", [0, 0, 0, 0]);
    let root = parse_xml(&html(&d));
    let svg = &root.find("svg")[0];
    let groups: Vec<&Node> = svg
        .find("g")
        .into_iter()
        .filter(|g| g.has_class("commit"))
        .collect();
    let points: Vec<usize> = groups.iter().map(|g| g.find("circle").len()).collect();
    assert_eq!(points, [1, 0, 1]);
    let line = svg
        .find("path")
        .iter()
        .find_map(|p| p.attr("d").map(str::to_string));
    // Two separate pieces: the pen lifts over the commit with no figures.
    assert_eq!(line.map(|d| d.matches('M').count()), Some(2));
}

#[test]
fn figures_read_as_people_write_them() {
    assert_eq!(compact(9999), "9999");
    assert_eq!(compact(10_000), "10.0k");
    assert_eq!(compact(99_960), "100k");
    assert_eq!(compact(123_456), "123k");
    assert_eq!(compact(999_700), "1.0M");
    assert_eq!(compact(1_234_567), "1.2M");
    assert_eq!(compact(u64::MAX), "18.4E");
    assert_eq!(duration(999), "999 ms");
    assert_eq!(duration(1500), "1.50 s");
    assert_eq!(duration(125_000), "2m05s");
    assert_eq!(speedup(Some(2.64)), "2.6x");
    assert_eq!(speedup(Some(250.0)), "250x");
    assert_eq!(speedup(Some(f64::NAN)), "");
    assert_eq!(date(0), "1970-01-01 00:00");
    assert_eq!(date(-1), "1969-12-31 23:59");
    assert_eq!(date(951_782_400), "2000-02-29 00:00");
    assert_eq!(date(1_700_000_000), "2023-11-14 22:13");
    assert_eq!(date(i64::MAX), format!("@{}", i64::MAX));
}

#[test]
fn an_empty_history_renders_everywhere() {
    let d = HistoryDoc {
        repository: "empty".to_string(),
        models: Vec::new(),
        commits: Vec::new(),
        violations: Vec::new(),
    };
    assert_eq!(
        text(&d, true),
        "empty: 0 commits, 0 models\n\
         commit  subject  verdict  mode  explored  stored  reused  time  speed-up\n\
         \n\
         no violations\n"
    );
    assert!(markdown(&d).ends_with("\nNo violations.\n"));
    let root = parse_xml(&html(&d));
    assert_eq!(root.find("svg").len(), 1);
    assert!(root.find("svg")[0]
        .find("g")
        .iter()
        .all(|g| !g.has_class("commit")));
}

/// The rows of the first trail's table, as their cells' text.
fn trail_rows(root: &Node) -> Vec<Vec<String>> {
    root.find("table")
        .into_iter()
        .find(|t| t.has_class("trail"))
        .map(|t| {
            t.find("tbody")[0]
                .find("tr")
                .iter()
                .map(|r| r.find("td").iter().map(|c| c.text.clone()).collect())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_long_trail_is_cut_to_its_ends_as_the_text_output_cuts_it() {
    let mut d = one_model();
    let long: Vec<StepDoc> = (1..=1000)
        .map(|i| step(i, "Car", 0, "models/elevator.pml:30:1", "floor++"))
        .collect();
    d.violations[0].trail = Some(long);
    let root = parse_xml(&html(&d));
    let rows = trail_rows(&root);
    assert_eq!(
        rows.len(),
        201,
        "the first 100 steps, the gap, the last 100"
    );
    let numbers: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(numbers[..2], ["1", "2"]);
    assert_eq!(numbers[99], "100");
    assert_eq!(
        numbers[100],
        "… 800 steps left out (git rmc history --format json gives the whole trail) …"
    );
    assert_eq!(numbers[101], "901");
    assert_eq!(numbers[200], "1000");
    let note = &root.find("details")[0].find("p")[0].text;
    assert_eq!(
        note,
        "Trail at bbbbbbb: 1,000 steps. Its first 100 and last 100 are shown here; \
         git rmc history --format json gives them all."
    );

    // A trail of the cut's length is shown whole.
    let whole: Vec<StepDoc> = (1..=TEXT_TRAIL_STEPS)
        .map(|i| step(i, "Car", 0, "models/elevator.pml:30:1", "floor++"))
        .collect();
    d.violations[0].trail = Some(whole);
    let root = parse_xml(&html(&d));
    assert_eq!(trail_rows(&root).len(), TEXT_TRAIL_STEPS);
    assert_eq!(
        root.find("details")[0].find("p")[0].text,
        "Trail at bbbbbbb: 200 steps."
    );
}

/// The colour the page's style gives `property` of `selector` (one of a rule's selectors),
/// through the light scheme's custom properties.
fn colour(style: &str, selector: &str, property: &str) -> String {
    let rule = style
        .split('}')
        .find_map(|r| {
            let (sel, body) = r.split_once('{')?;
            sel.split(',')
                .any(|s| s.trim() == selector)
                .then(|| body.to_string())
        })
        .unwrap_or_else(|| panic!("no rule for {selector}"));
    let value = rule
        .split(';')
        .find_map(|d| d.trim().strip_prefix(&format!("{property}:")))
        .map(str::trim)
        .unwrap_or_else(|| panic!("{selector} sets no {property}"));
    match value.strip_prefix("var(").and_then(|v| v.strip_suffix(')')) {
        Some(var) => style
            .split([';', '{'])
            .find_map(|d| d.trim().strip_prefix(&format!("{var}:")))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("{var} is not defined")),
        None => value.to_string(),
    }
}

#[test]
fn an_incomplete_check_has_its_own_colour_in_the_table_and_the_chart() {
    let mut d = one_model();
    d.commits[2].models[0].verdict = ModelVerdict::Incomplete;
    let page = html(&d);
    let root = parse_xml(&page);
    let svg = &root.find("svg")[0];
    let groups: Vec<&Node> = svg
        .find("g")
        .into_iter()
        .filter(|g| g.has_class("commit"))
        .collect();
    let classes: Vec<Option<&str>> = groups.iter().map(|g| g.attr("class")).collect();
    assert_eq!(
        classes,
        [
            Some("commit"),
            Some("commit fail"),
            Some("commit incomplete")
        ]
    );
    assert!(groups[2].find("rect")[0].has_class("incomplete"));
    assert!(groups[2].find("text")[0].has_class("incomplete"));

    // The legend names each colour a bar can take.
    let legend = svg
        .find("g")
        .into_iter()
        .find(|g| g.has_class("legend"))
        .unwrap_or_else(|| panic!("no legend"));
    let swatches: Vec<&str> = legend
        .find("rect")
        .iter()
        .filter_map(|r| r.attr("class"))
        .collect();
    assert_eq!(swatches, ["bar", "bar fail", "bar incomplete", "bar error"]);
    assert!(
        legend.text.contains("a check is incomplete"),
        "{}",
        legend.text
    );
    assert!(legend.text.contains("time"));

    // The verdict's cell in the table is marked, and every colour is its own.
    let verdicts: Vec<&Node> = root
        .find("td")
        .into_iter()
        .filter(|c| c.has_class("verdict"))
        .collect();
    assert!(verdicts[2].has_class("incomplete"));
    assert_eq!(verdicts[2].text, "INCOMPLETE");
    let style = &root.find("style")[0].text;
    let bars: Vec<String> = [
        "svg .bar",
        "svg .bar.fail",
        "svg .bar.incomplete",
        "svg .bar.error",
    ]
    .iter()
    .map(|s| colour(style, s, "fill"))
    .collect();
    let words: Vec<String> = [
        ".v-pass",
        ".v-fail",
        ".v-incomplete",
        ".v-error",
        ".v-absent",
    ]
    .iter()
    .map(|s| colour(style, s, "color"))
    .chain([colour(style, "td.incomplete", "background")])
    .collect();
    for set in [&bars, &words] {
        for (i, c) in set.iter().enumerate() {
            assert!(!set[i + 1..].contains(c), "{set:?}");
        }
    }
}

#[test]
fn the_chart_of_a_long_history_fits_a_1280_pixel_window() {
    let width = |d: &HistoryDoc| -> (f64, Vec<bool>) {
        let root = parse_xml(&html(d));
        let svg = &root.find("svg")[0];
        let on_end = svg
            .find("g")
            .into_iter()
            .filter(|g| g.has_class("commit"))
            .map(|g| g.find("text")[0].attr("transform").is_some())
            .collect();
        let w = svg
            .attr("width")
            .and_then(|w| w.parse().ok())
            .unwrap_or(0.0);
        (w, on_end)
    };
    let mut d = one_model();
    let (w, on_end) = width(&d);
    assert_eq!(w, 616.0, "a short history has room");
    assert_eq!(on_end, [false; 3], "its labels are written across");

    let template = d.commits.pop().unwrap_or_else(|| panic!("a commit"));
    let grown = |n: usize| {
        let mut commits = Vec::new();
        for i in 0..n {
            let mut c = commit(0, &template.subject, template.time, Vec::new());
            c.short = format!("{i:07x}");
            c.commit = format!("{i:040x}");
            c.models = vec![cell("pass", "incremental", "replay", [100, 50, 50, 5])];
            commits.push(c);
        }
        HistoryDoc {
            commits,
            ..one_model()
        }
    };
    // The playground's 65 commits: inside the window, labels on end.
    let (w, on_end) = width(&grown(65));
    assert!(w <= 1200.0, "{w}");
    assert!(on_end.iter().all(|&e| e));
    // Beyond about 70 commits the chart keeps 16 pixels a commit and scrolls in its box.
    let (w, _) = width(&grown(200));
    assert_eq!(w, 64.0 + 16.0 * 200.0 + 72.0);
}

/// Two commits of a model with two ltl formulas: `p` fails at the second.
fn two_claims() -> HistoryDoc {
    let claims = |p: &str, q: &str| {
        vec![
            ClaimCell {
                claim: "ltl p".into(),
                verdict: ModelVerdict::from_name(p).unwrap_or_default(),
            },
            ClaimCell {
                claim: "ltl q".into(),
                verdict: ModelVerdict::from_name(q).unwrap_or_default(),
            },
        ]
    };
    let first = ModelCell {
        claims: claims("pass", "pass"),
        ..cell("pass", "full", "full", [120, 120, 0, 40])
    };
    let second = ModelCell {
        claims: claims("fail", "pass"),
        failed: vec!["ltl p".into()],
        ..cell("fail", "full", "full", [130, 130, 0, 45])
    };
    HistoryDoc {
        repository: "claims".into(),
        models: vec!["models/elevator.pml".into()],
        commits: vec![
            commit(0, "two formulas", 1_700_000_000, vec![first]),
            commit(1, "p broken", 1_700_000_100, vec![second]),
        ],
        violations: Vec::new(),
    }
}

#[test]
fn a_model_with_several_claims_gets_a_column_per_claim() {
    let d = two_claims();
    let t = text(&d, false);
    let lines: Vec<&str> = t.lines().collect();
    let head: Vec<&str> = lines[1]
        .split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(
        head[..5],
        ["commit", "subject", "verdict", "ltl p", "ltl q"],
        "{t}"
    );
    let row = |i: usize| -> Vec<&str> {
        lines[i]
            .split("  ")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    };
    assert_eq!(row(2)[2..5], ["pass", "pass", "pass"], "{t}");
    assert_eq!(row(3)[2..5], ["FAIL (ltl p)", "FAIL", "pass"], "{t}");

    let m = markdown(&d);
    assert!(
        m.contains("| commit | subject | verdict | ltl p | ltl q | mode |"),
        "{m}"
    );
    assert!(m.contains("| **FAIL** | **FAIL** | pass | full |"), "{m}");

    let root = parse_xml(&html(&d));
    let heads: Vec<String> = root.find("th").iter().map(|h| h.text.clone()).collect();
    let at = heads
        .iter()
        .position(|h| h == "verdict")
        .expect("a verdict column");
    assert_eq!(heads[at + 1..at + 3], ["ltl p", "ltl q"]);
    let rows: Vec<Vec<String>> = root
        .find("tbody")
        .iter()
        .take(1)
        .flat_map(|b| b.find("tr"))
        .map(|r| r.find("td").iter().map(|c| c.text.clone()).collect())
        .collect();
    assert_eq!(rows[1][2..5], ["FAIL (ltl p)", "FAIL", "pass"], "{rows:?}");

    // One claim: its verdict says which failed; no columns.
    let mut one = two_claims();
    for c in &mut one.commits {
        c.models[0].claims.truncate(1);
    }
    assert!(!text(&one, false)
        .lines()
        .nth(1)
        .unwrap_or("")
        .contains("ltl p"));
}
