//! The checks' violations as a SARIF 2.1.0 log, the format code-scanning services read: one
//! run of the `git rmc` tool, a rule per kind of violation that occurs, and a result per
//! violation with its location, a fingerprint that survives a re-run, and its trail as a code
//! flow. Rendering only: the checks are done, and nothing here reads a file.

use std::fmt::Write;

use serde_json::{json, Map, Value};

use crate::explore::ViolationKind;
use crate::report::verify::{CheckDoc, StepDoc, ViolationDoc};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The key of our fingerprint in `partialFingerprints`; the version changes if what goes into
/// it does, so that services do not match old alerts with new ones by accident.
const FINGERPRINT: &str = "rmcViolation/v1";

/// The log of `runs`, each a commit (full hex) with the checks of its models.
pub fn sarif(runs: &[(String, Vec<CheckDoc>)], tool_version: &str) -> Value {
    let mut kinds: Vec<&str> = runs
        .iter()
        .flat_map(|(_, docs)| docs.iter())
        .flat_map(|d| all_violations(d).map(|v| v.kind.as_str()))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let rules: Vec<Value> = kinds.iter().map(|k| rule(k)).collect();

    let mut results = Vec::new();
    for (commit, docs) in runs {
        for doc in docs {
            for v in all_violations(doc) {
                // `kinds` holds every kind that occurs, so the search always finds it.
                let index = kinds.binary_search(&v.kind.as_str()).unwrap_or(0);
                results.push(result(commit, doc, v, index));
            }
        }
    }

    // What the results do not show: a pass that did not check the model's claims, and a
    // search a limit cut (its results are a part of the violations).
    let mut notes = Vec::new();
    for (commit, docs) in runs {
        for doc in docs {
            let short = &commit[..commit.len().min(7)];
            let words = match (doc.verdict.as_str(), &doc.limit_detail) {
                ("pass", _) if !doc.claims_not_checked.is_empty() => {
                    super::verdict::verdict_words_beside(
                        "pass",
                        &doc.claims_not_checked,
                        doc.claim.is_some(),
                    )
                }
                (_, Some(l)) if !doc.complete => format!("incomplete: {}", l.sentence()),
                _ => continue,
            };
            notes.push(json!({
                "level": "warning",
                "message": { "text": format!("{} at {short}: {words}", doc.model) },
                "properties": { "commit": commit, "model": doc.model },
            }));
        }
    }

    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "git rmc",
                    "version": tool_version,
                    "rules": rules,
                }
            },
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notes,
            }],
            // Our columns count characters, as `SourceFiles::location` gives them, not the
            // UTF-16 code units that SARIF assumes by default.
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// A check's violations: its safety properties', then each claim's.
fn all_violations(doc: &CheckDoc) -> impl Iterator<Item = &ViolationDoc> {
    doc.violations
        .iter()
        .chain(doc.claims.iter().flat_map(|c| c.violations.iter()))
}

/// A rule with the descriptions and help that code-scanning services show beside an alert
/// (GitHub's requires all three).
fn rule(kind: &str) -> Value {
    let short = describe(kind);
    json!({
        "id": kind,
        "shortDescription": { "text": short },
        "fullDescription": {
            "text": format!(
                "{short}. git rmc found it by exploring every state of the Promela model that \
                 its initial state can reach, as SPIN's pan does."
            )
        },
        "help": {
            "text": format!(
                "The result's code flow is a trail: the steps, process by process, from the \
                 initial state to the {kind} violation, with the values each step changed. \
                 `git rmc verify` on the model prints the same trail."
            )
        },
        "defaultConfiguration": { "level": "error" },
        "properties": {
            "tags": ["promela", "model-checking"],
            // Every violation comes with a trail that replays to it: no false alarms.
            "precision": "very-high",
        },
    })
}

/// What a kind of violation means, for the rule's description. Known kinds go through
/// `ViolationKind`, so that a new kind fails to compile here until it is described.
fn describe(kind: &str) -> String {
    let Some(k) = ViolationKind::from_name(kind) else {
        return format!("Promela model check: {kind}");
    };
    match k {
        ViolationKind::Assertion => "An assert statement can be violated",
        ViolationKind::InvalidEndState => {
            "The system can stop with a process outside a valid end state (a deadlock)"
        }
        ViolationKind::IndexOutOfRange => "An array index can fall outside its array",
        ViolationKind::DivisionByZero => "A division or remainder by zero can happen",
        ViolationKind::DStepBlocked => "A d_step sequence blocks once its guard let it start",
        ViolationKind::TooManyProcesses => "More than 255 processes can be running at once",
        ViolationKind::TooManyChannels => "More than 255 channels can exist at once",
        ViolationKind::NonTerminatingAtomic => {
            "An atomic sequence or d_step can run forever (a state repeats inside it)"
        }
        ViolationKind::UninitialisedChannel => "A channel can be used before it is initialised",
        ViolationKind::MessageFields => {
            "A send or receive can have a different number of fields than the channel's messages"
        }
        ViolationKind::SendTooManyValues => {
            "A send can give more values than the channel's messages have fields"
        }
        ViolationKind::PollRendezvous => {
            "A rendezvous channel can be polled (it holds no messages, so the poll is false)"
        }
        ViolationKind::CopyReceiveRendezvous => {
            "A copying receive (?<>) on a rendezvous channel can never execute"
        }
        ViolationKind::RendezvousInDStep => {
            "A rendezvous can happen inside a d_step after its first statement"
        }
        ViolationKind::PriorityOutOfRange => "set_priority can be given a priority outside 1..255",
        ViolationKind::EnabledSelf => "enabled() can be asked of the running process",
        ViolationKind::DProctypeNondeterminism => {
            "A D_proctype can have more than one executable option"
        }
        ViolationKind::Unsupported => "The model uses something git rmc does not support",
        ViolationKind::ReceiveTooManyFields => {
            "A receive or poll can name more fields than the channel's messages have"
        }
        ViolationKind::ClaimEnd => "The never claim can reach its end (the property is violated)",
        ViolationKind::AcceptanceCycle => {
            "The never claim can accept infinitely often (the property is violated)"
        }
        ViolationKind::NonProgressCycle => {
            "The system can run forever without passing a progress label"
        }
        ViolationKind::TraceMismatch => {
            "A send or receive the trace assertion watches can happen where the trace has no \
             transition for it"
        }
        ViolationKind::NotraceMatched => {
            "The sequence of sends and receives a notrace assertion forbids can happen"
        }
        ViolationKind::TraceIncomplete => {
            "The system can end with the trace assertion neither at its end nor at an end label"
        }
        ViolationKind::TraceNondeterminism => {
            "Two transitions of the trace assertion can match one send or receive"
        }
    }
    .to_string()
}

fn result(commit: &str, doc: &CheckDoc, v: &ViolationDoc, rule_index: usize) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), json!(v.kind));
    r.insert("ruleIndex".into(), json!(rule_index));
    r.insert("level".into(), json!("error"));
    r.insert("message".into(), json!({ "text": v.message }));
    if let Some(p) = physical(&v.location) {
        r.insert("locations".into(), json!([{ "physicalLocation": p }]));
    }
    // Kind and location, not the message: messages hold values that a change elsewhere in the
    // model can alter without making it another violation.
    r.insert(
        "partialFingerprints".into(),
        json!({ FINGERPRINT: format!("{}:{}", v.kind, v.location) }),
    );
    // Only a check against a base knows what is new; without one, SARIF's own field stays out.
    if doc.base.is_some() {
        let state = if v.new { "new" } else { "unchanged" };
        r.insert("baselineState".into(), json!(state));
    }
    // Invalid end states: where each blocked process stopped ("P(1) at file:line:col").
    let related: Vec<Value> = v
        .locations
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let (who, at) = l.rsplit_once(" at ").unwrap_or((l.as_str(), ""));
            let mut loc = Map::new();
            loc.insert("id".into(), json!(i));
            if let Some(p) = physical(at) {
                loc.insert("physicalLocation".into(), p);
            }
            loc.insert("message".into(), json!({ "text": who }));
            Value::Object(loc)
        })
        .collect();
    if !related.is_empty() {
        r.insert("relatedLocations".into(), json!(related));
    }
    if let Some(trail) = &v.trail {
        let steps: Vec<Value> = trail.iter().map(step).collect();
        r.insert(
            "codeFlows".into(),
            json!([{ "threadFlows": [{ "locations": steps }] }]),
        );
    }
    r.insert(
        "properties".into(),
        json!({ "new": v.new, "commit": commit, "model": doc.model }),
    );
    Value::Object(r)
}

/// One step of a trail as a thread-flow location: where it is, what ran (its process and
/// statement), and the variables it changed as the flow's state.
fn step(s: &StepDoc) -> Value {
    let mut location = Map::new();
    if let Some(p) = physical(&s.location) {
        location.insert("physicalLocation".into(), p);
    }
    location.insert(
        "message".into(),
        json!({ "text": format!("{}({}): {}", s.proc, s.pid, s.statement) }),
    );
    let mut t = Map::new();
    t.insert("location".into(), Value::Object(location));
    t.insert("executionOrder".into(), json!(s.step));
    if !s.changed.is_empty() {
        let state: Map<String, Value> = s
            .changed
            .iter()
            .map(|(k, v)| (k.clone(), json!({ "text": v.to_string() })))
            .collect();
        t.insert("state".into(), Value::Object(state));
    }
    if let Some(out) = &s.output {
        t.insert("properties".into(), json!({ "output": out }));
    }
    Value::Object(t)
}

/// `physicalLocation` of a `path:line:col`: the artifact, and the region when the line and
/// column parse. A location with no file (empty, or the front end's `<unknown>`) has none.
fn physical(location: &str) -> Option<Value> {
    if location.is_empty() || location == "<unknown>" {
        return None;
    }
    let (path, region) = match split_location(location) {
        Some((path, line, col)) => (path, Some(json!({ "startLine": line, "startColumn": col }))),
        None => (location, None),
    };
    let mut p = Map::new();
    p.insert("artifactLocation".into(), artifact(path));
    if let Some(r) = region {
        p.insert("region".into(), r);
    }
    Some(Value::Object(p))
}

/// `path:line:col` split from the right, since a path may hold colons; line and column are
/// 1-based, as SARIF's are.
fn split_location(s: &str) -> Option<(&str, u64, u64)> {
    let (rest, col) = s.rsplit_once(':')?;
    let (path, line) = rest.rsplit_once(':')?;
    let line: u64 = line.parse().ok()?;
    let col: u64 = col.parse().ok()?;
    (!path.is_empty() && line >= 1 && col >= 1).then_some((path, line, col))
}

/// The artifact of a path: relative paths (the models' paths in the repository) against the
/// source root, absolute ones as `file:` URIs.
fn artifact(path: &str) -> Value {
    if path.starts_with('/') {
        json!({ "uri": format!("file://{}", uri_path(path)) })
    } else {
        json!({ "uri": uri_path(path), "uriBaseId": "%SRCROOT%" })
    }
}

/// A path as a URI path: every byte but unreserved characters and `/` percent-encoded, so that
/// spaces, `#`, `?`, `%` and non-ASCII names survive, and a colon in a relative path cannot be
/// read as a scheme.
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Stats;
    use crate::report::verify::{ModelVerdict, StepDoc};

    fn check(model: &str, base: Option<&str>, violations: Vec<ViolationDoc>) -> CheckDoc {
        CheckDoc {
            model: model.to_string(),
            mode: if base.is_some() {
                "incremental"
            } else {
                "full"
            }
            .into(),
            base: base.map(str::to_string),
            algorithm: "full".into(),
            algorithm_reason: String::new(),
            predicted: None,
            verdict: if violations.is_empty() {
                ModelVerdict::Pass
            } else {
                ModelVerdict::Fail
            },
            overall_verdict: None,
            complete: true,
            limit: None,
            limit_detail: None,
            stopped_by: None,
            stats: Stats::default(),
            dangerous_locations: 0,
            claims_not_checked: Vec::new(),
            claim: None,
            acceptance: false,
            fair: false,
            xr_xs_not_checked: false,
            spin_needs_vectorsz_above: None,
            violations,
            fixed: Vec::new(),
            unreached: Vec::new(),
            record: None,
            claims: Vec::new(),
        }
    }

    fn violation(kind: &'static str, location: &str, new: bool) -> ViolationDoc {
        ViolationDoc {
            kind: kind.to_string(),
            location: location.to_string(),
            message: format!("{kind} here"),
            new,
            locations: Vec::new(),
            blocked_at: Vec::new(),
            trail: None,
            cycle_start: None,
            cycle_depth: None,
            elided: 0,
        }
    }

    fn step(step: usize, proc: &str, location: &str, statement: &str) -> StepDoc {
        StepDoc {
            step,
            proc: proc.to_string(),
            pid: (step % 2) as crate::explore::Pid,
            location: location.to_string(),
            statement: statement.to_string(),
            changed: serde_json::Map::new(),
            output: None,
        }
    }

    /// Two commits: the first with an assertion (with a trail) in one model and nothing in
    /// another; the second, checked against a base, with the same assertion and a new
    /// deadlock.
    fn log() -> Value {
        let mut assertion = violation("assertion", "models/lift.pml:42:5", true);
        let mut s1 = step(1, "Door", "models/lift.pml:17:3", "door = open");
        s1.changed.insert("door".to_string(), json!(1));
        s1.output = Some("opening\n".to_string());
        let s2 = step(2, "Car", "models/lift.pml:42:5", "assert(door == closed)");
        assertion.trail = Some(vec![s1, s2]);
        let mut deadlock = violation("invalid-end-state", "dir:with:colons/m.pml:9:1", true);
        deadlock.locations = vec![
            "Car(0) at dir:with:colons/m.pml:9:1".to_string(),
            "Door(1) at dir:with:colons/m.pml:20:7".to_string(),
        ];
        let runs = vec![
            (
                "a".repeat(40),
                vec![
                    check("models/lift.pml", None, vec![assertion]),
                    check("models/other.pml", None, vec![]),
                ],
            ),
            (
                "b".repeat(40),
                vec![check(
                    "models/lift.pml",
                    Some("0123abcd"),
                    vec![
                        violation("assertion", "models/lift.pml:42:5", false),
                        deadlock,
                    ],
                )],
            ),
        ];
        sarif(&runs, "0.1.0")
    }

    #[test]
    fn the_log_is_sarif_2_1_0_with_a_rule_per_kind_that_occurs() {
        let log = log();
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(log["$schema"], SCHEMA);
        let runs = log["runs"].as_array().map_or(0, Vec::len);
        assert_eq!(runs, 1);
        let driver = &log["runs"][0]["tool"]["driver"];
        assert_eq!(driver["name"], "git rmc");
        assert_eq!(driver["version"], "0.1.0");
        let ids: Vec<&str> = driver["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["id"].as_str())
            .collect();
        assert_eq!(ids, ["assertion", "invalid-end-state"]);
        assert_eq!(
            driver["rules"][1]["shortDescription"]["text"],
            "The system can stop with a process outside a valid end state (a deadlock)"
        );
        assert_eq!(driver["rules"][0]["defaultConfiguration"]["level"], "error");
    }

    #[test]
    fn each_violation_is_a_result_at_its_place() {
        let log = log();
        let results = log["runs"][0]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(results.len(), 3, "one per violation of every check");
        let r = &results[0];
        assert_eq!(r["ruleId"], "assertion");
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        assert_eq!(r["message"]["text"], "assertion here");
        let p = &r["locations"][0]["physicalLocation"];
        assert_eq!(p["artifactLocation"]["uri"], "models/lift.pml");
        assert_eq!(p["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(p["region"]["startLine"], 42);
        assert_eq!(p["region"]["startColumn"], 5);
        assert_eq!(r["properties"]["commit"], "a".repeat(40));
        assert_eq!(r["properties"]["new"], true);
        assert_eq!(r["properties"]["model"], "models/lift.pml");
        assert!(r.get("baselineState").is_none(), "no base, no baseline");

        // The same violation at the next commit: the same fingerprint, and not new.
        let again = &results[1];
        assert_eq!(again["partialFingerprints"], r["partialFingerprints"]);
        assert_eq!(
            r["partialFingerprints"][FINGERPRINT],
            "assertion:models/lift.pml:42:5"
        );
        assert_eq!(again["properties"]["new"], false);
        assert_eq!(again["baselineState"], "unchanged");
        assert_eq!(again["properties"]["commit"], "b".repeat(40));

        // A path with colons parses from the right, and is escaped so it is not a scheme.
        let d = &results[2];
        assert_eq!(d["ruleIndex"], 1);
        assert_eq!(d["baselineState"], "new");
        let p = &d["locations"][0]["physicalLocation"];
        assert_eq!(p["artifactLocation"]["uri"], "dir%3Awith%3Acolons/m.pml");
        assert_eq!(p["region"]["startLine"], 9);
        assert_eq!(p["region"]["startColumn"], 1);
        let related = &d["relatedLocations"];
        assert_eq!(related[1]["message"]["text"], "Door(1)");
        assert_eq!(related[1]["physicalLocation"]["region"]["startColumn"], 7);
    }

    #[test]
    fn a_trail_is_a_code_flow() {
        let log = log();
        let r = &log["runs"][0]["results"][0];
        let flows = r["codeFlows"].as_array().map_or(0, Vec::len);
        assert_eq!(flows, 1);
        let steps = &r["codeFlows"][0]["threadFlows"][0]["locations"];
        assert_eq!(steps.as_array().map_or(0, Vec::len), 2);
        let first = &steps[0];
        assert_eq!(first["executionOrder"], 1);
        assert_eq!(first["location"]["message"]["text"], "Door(1): door = open");
        let p = &first["location"]["physicalLocation"];
        assert_eq!(p["artifactLocation"]["uri"], "models/lift.pml");
        assert_eq!(p["region"]["startLine"], 17);
        assert_eq!(p["region"]["startColumn"], 3);
        assert_eq!(first["state"]["door"]["text"], "1");
        assert_eq!(first["properties"]["output"], "opening\n");
        assert_eq!(
            steps[1]["location"]["message"]["text"],
            "Car(0): assert(door == closed)"
        );
        // Violations without a trail have no flow.
        assert!(log["runs"][0]["results"][2].get("codeFlows").is_none());
    }

    #[test]
    fn locations_parse_from_the_right_or_get_no_region() {
        assert_eq!(split_location("a.pml:3:4"), Some(("a.pml", 3, 4)));
        assert_eq!(split_location("C:/m/a.pml:3:4"), Some(("C:/m/a.pml", 3, 4)));
        assert_eq!(split_location("a.pml:3"), None);
        assert_eq!(split_location(":3:4"), None);
        assert_eq!(split_location("a.pml:0:4"), None);
        assert_eq!(split_location("a.pml:x:4"), None);

        let p = physical("odd place").unwrap_or_default();
        assert_eq!(p["artifactLocation"]["uri"], "odd%20place");
        assert!(p.get("region").is_none());
        assert_eq!(physical("<unknown>"), None);
        assert_eq!(physical(""), None);
        let abs = physical("/srv/ü #1.pml:2:3").unwrap_or_default();
        assert_eq!(
            abs["artifactLocation"]["uri"],
            "file:///srv/%C3%BC%20%231.pml"
        );
        assert!(abs["artifactLocation"].get("uriBaseId").is_none());
    }

    #[test]
    fn no_violations_is_an_empty_run_with_no_rules() {
        let log = sarif(
            &[("c".repeat(40), vec![check("m.pml", None, vec![])])],
            "1.2.3",
        );
        assert_eq!(log["runs"][0]["results"], json!([]));
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"], json!([]));
    }
}
