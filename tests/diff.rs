//! The impact analysis (DESIGN.md 5.3) on each kind of change: which old locations become
//! dangerous and why, what is paired, when the layout changes, and what changes only the
//! initial state. Statements are compared after preprocessing, inline expansion and name
//! resolution, so a rename, a comment or a moved line is not a change.

mod common;

use common::rmc::version;
use git_rmc::rmc::{self, StableIds};

struct Diff {
    /// (proctype, the old location's statements, reason) per dangerous location.
    dangerous: Vec<(String, Vec<String>, String)>,
    layout: Option<String>,
    notes: Vec<String>,
    new_locations: usize,
    deleted: usize,
    /// Per dangerous location whose change is confined to indices of resized arrays: its
    /// statements and each index's bound.
    indexed: Vec<(String, Vec<i64>)>,
}

fn diff(old: &str, new: &str) -> Diff {
    let mut o = version(old).expect("old version loads").program;
    let n = version(new).expect("new version loads").program;
    let ids = StableIds::identity(&o);
    ids.apply(&mut o).expect("identity ids");
    let imp = rmc::analyze(&o, &n, ids.next_free);
    let dangerous = imp
        .dangerous
        .values()
        .map(|d| {
            let stmts = o
                .procs
                .iter()
                .find_map(|p| p.automaton.location(d.old))
                .map(|l| l.edges.iter().map(|e| e.text.clone()).collect())
                .unwrap_or_default();
            (d.proc.clone(), stmts, d.reason.clone())
        })
        .collect();
    let statements = |id: u32| -> String {
        o.procs
            .iter()
            .find_map(|p| p.automaton.location(git_rmc::program::LocId(id)))
            .map(|l| l.edges.iter().map(|e| e.text.clone()).collect::<Vec<_>>())
            .unwrap_or_default()
            .join(" | ")
    };
    let indexed = imp
        .indexed
        .iter()
        .map(|(&id, b)| (statements(id), b.iter().map(|x| x.1).collect()))
        .collect();
    Diff {
        indexed,
        dangerous,
        layout: imp.layout_change,
        notes: imp.notes,
        new_locations: imp.new_locations,
        deleted: imp.deleted,
    }
}

/// The statements of the dangerous locations, for compact assertions.
fn dangerous(d: &Diff) -> Vec<String> {
    d.dangerous.iter().map(|(_, s, _)| s.join(" | ")).collect()
}

const BASE: &str = "byte x, y;
active proctype P() {
    x = 1;
    do
    :: x < 5 -> x++
    :: x >= 5 -> break
    od;
    assert(x == 5)
}
active proctype Q() { y = 1; y = 2 }
";

#[test]
fn nothing_changed_nothing_dangerous() {
    let d = diff(BASE, BASE);
    assert!(d.dangerous.is_empty());
    assert_eq!((d.layout, d.new_locations, d.deleted), (None, 0, 0));
}

#[test]
fn a_statement_a_guard_and_a_constant() {
    let d = diff(BASE, &BASE.replace("y = 2", "y = 3"));
    assert_eq!(dangerous(&d), ["y = 2"]);
    assert!(
        d.dangerous[0].2.contains("`y = 2` became `y = 3`"),
        "{:?}",
        d.dangerous
    );
    let d = diff(BASE, &BASE.replace("x < 5 ->", "x <= 5 ->"));
    assert_eq!(dangerous(&d), ["x < 5 | x >= 5"]);
    let d = diff(BASE, &BASE.replace("x = 1;", "x = 2;"));
    assert_eq!(dangerous(&d), ["x = 1"]);
}

#[test]
fn a_define_and_an_mtype_are_compared_by_value() {
    let old = "#define N 5\nbyte x; active proctype P() { do :: x < N -> x++ :: else -> break od }";
    let d = diff(old, &old.replace("N 5", "N 6"));
    assert_eq!(dangerous(&d), ["x < 5 | else"]);
    // The same text, another value: the order of mtype names decides their values.
    let old = "mtype = { a, b }; mtype m; active proctype P() { m = a; m = b }";
    let d = diff(old, &old.replace("{ a, b }", "{ b, a }"));
    assert_eq!(dangerous(&d), ["m = a", "m = b"]);
    // A value that moves to another name: the statement keeps its text.
    let old = "mtype = { a, b }; mtype m; active proctype P() { m = a }";
    let d = diff(old, &old.replace("{ a, b }", "{ b, a }"));
    assert_eq!(dangerous(&d), ["m = a"]);
    assert!(
        d.dangerous[0].2.contains("now means something else"),
        "{:?}",
        d.dangerous
    );
}

#[test]
fn an_inline_body_changes_where_it_is_expanded() {
    let old = "inline bump(v) { v = v + 1 }
byte x, y; active proctype P() { bump(x); y = 1 } active proctype Q() { bump(y) }";
    let d = diff(old, &old.replace("v = v + 1", "v = v + 2"));
    assert_eq!(dangerous(&d), ["x = x + 1", "y = y + 1"]);
}

#[test]
fn renames_keep_everything_declarations_change_the_layout() {
    let d = diff(BASE, &common::rmc::replace_word(BASE, "x", "count"));
    assert!(d.dangerous.is_empty(), "{:?}", d.dangerous);
    assert_eq!(d.layout, None);
    // A local and a typedef field renamed.
    let old = "typedef R { byte f }; R r; active proctype P() { byte l; l = 1; r.f = l }";
    let new = "typedef R { byte g }; R r; active proctype P() { byte m; m = 1; r.g = m }";
    let d = diff(old, new);
    assert!(
        d.dangerous.is_empty() && d.layout.is_none(),
        "{:?}",
        d.dangerous
    );
    // Another type: the layout changes (nothing can be reused) and it says which.
    let d = diff(BASE, &BASE.replace("byte x, y;", "short x; byte y;"));
    assert!(
        d.layout.as_deref().is_some_and(|l| l.contains("'x'")),
        "{:?}",
        d.layout
    );
    // Two declarations of one width swapped: the layout stays, every statement that reads
    // them now reads the other slot.
    let d = diff(BASE, &BASE.replace("byte x, y;", "byte y, x;"));
    assert_eq!(d.layout, None);
    assert!(d.dangerous.len() >= 5, "{:?}", d.dangerous);
}

#[test]
fn initial_values_and_process_counts_change_only_the_initial_state() {
    let d = diff(BASE, &BASE.replace("byte x, y;", "byte x = 3, y;"));
    assert!(d.dangerous.is_empty());
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("initial value of global 'x'")),
        "{:?}",
        d.notes
    );
    let d = diff(
        BASE,
        &BASE.replace("active proctype Q", "active [2] proctype Q"),
    );
    assert!(d.dangerous.is_empty());
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("active [2] instead of [1]")),
        "{:?}",
        d.notes
    );
}

#[test]
fn what_a_run_creates_is_part_of_the_run() {
    let old = "byte x; proctype W(byte k) { byte v = 2; x = k + v }
init { run W(1); x == 3 }";
    let d = diff(old, &old.replace("run W(1)", "run W(2)"));
    assert_eq!(dangerous(&d), ["run W(1)"]);
    // W's initial value changes what `run W` creates.
    let d = diff(old, &old.replace("byte v = 2", "byte v = 3"));
    assert_eq!(dangerous(&d), ["run W(1)"]);
    // A statement inserted at the top of W: W starts elsewhere.
    let d = diff(old, &old.replace("byte v = 2; x", "byte v = 2; x = 0; x"));
    assert_eq!(dangerous(&d), ["run W(1)"]);
}

#[test]
fn provided_and_priority_govern_every_location_of_a_proctype() {
    let old = "byte x; active proctype P() priority 2 { x = 1; x = 2 }
active proctype Q() { x = 3 }";
    let d = diff(old, &old.replace("priority 2", "priority 3"));
    // (The last, empty one is the terminal location, after the process ended.)
    assert_eq!(dangerous(&d), ["x = 1", "x = 2", "-end-", ""]);
    let d = diff(
        old,
        &old.replace("proctype Q()", "proctype Q() provided (x > 0)"),
    );
    assert_eq!(dangerous(&d), ["x = 3", "-end-", ""]);
}

#[test]
fn labels_end_progress_goto_targets_and_remote_references() {
    let old = "byte x; active proctype P() { x = 1; L1: x = 2; L2: x == 3; x = 4 }
active proctype Q() { P[0]@L1 -> x = 3 }";
    // An end label changes what a valid end state is.
    let d = diff(old, &old.replace("L2: x == 3", "end: x == 3"));
    assert_eq!(dangerous(&d), ["x == 3"]);
    let d = diff(old, &old.replace("L2: x == 3", "progress: x == 3"));
    assert_eq!(dangerous(&d), ["x == 3"]);
    // A goto that leads elsewhere.
    let old_g =
        "byte x; active proctype P() { x = 1; if :: goto A :: skip fi; A: x = 2; B: x = 3 }";
    let d = diff(old_g, &old_g.replace("goto A", "goto B"));
    assert_eq!(dangerous(&d), ["goto A | 1"]);
    assert!(
        d.dangerous[0].2.contains("`goto A` became `goto B`"),
        "{:?}",
        d.dangerous
    );
    // The label a remote reference reads moves: the reference is dangerous.
    let moved = old
        .replace("L1: x = 2", "x = 2")
        .replace("L2: x == 3", "L1: x == 3");
    let d = diff(old, &moved);
    assert!(
        dangerous(&d).contains(&"P[0]@L1".to_string()),
        "{:?}",
        d.dangerous
    );
}

#[test]
fn unless_escapes_are_part_of_every_location_they_guard() {
    let old = "byte x; active proctype P() { { x = 1; x = 2 } unless { x > 5 } }";
    let d = diff(old, &old.replace("x > 5", "x > 6"));
    assert_eq!(dangerous(&d), ["x > 5 | x = 1", "x > 5 | x = 2"]);
}

#[test]
fn moved_lines_and_comments_change_nothing() {
    // A statement inserted at the top of a proctype makes nothing else dangerous.
    let d = diff(BASE, &BASE.replace("    x = 1;", "    y = 7;\n    x = 1;"));
    assert!(d.dangerous.is_empty(), "{:?}", d.dangerous);
    assert_eq!(d.new_locations, 1);
    assert!(d
        .notes
        .iter()
        .any(|n| n.contains("P starts at another location")));
    // A comment line above an assertion.
    let d = diff(
        BASE,
        &BASE.replace("    assert", "    /* checked */\n    assert"),
    );
    assert!(
        d.dangerous.is_empty() && d.new_locations == 0,
        "{:?}",
        d.dangerous
    );
}

#[test]
fn proctypes_added_removed_and_renamed() {
    let added = format!("{BASE}active proctype R() {{ x = 9 }}\n");
    let d = diff(BASE, &added);
    assert!(d.dangerous.is_empty(), "{:?}", d.dangerous);
    assert_eq!(d.new_locations, 3);
    let d = diff(&added, BASE);
    assert_eq!(dangerous(&d), ["x = 9", "-end-", ""]);
    assert!(d.dangerous[0].2.contains("proctype R was removed"));
    let d = diff(BASE, &BASE.replace("proctype Q", "proctype Q2"));
    assert_eq!(d.deleted, 4);
    assert_eq!(d.new_locations, 4);
}

/// Where the map between the two layouts does not run, the layout change says what it
/// cannot carry and why, rather than the first declaration that differs by place (a
/// channel added before a variable made that variable read as added).
#[test]
fn declaration_changes_the_map_cannot_carry_say_why() {
    let base = "chan a = [1] of { byte }; chan b = [2] of { int };
proctype P() {
    chan c = [2] of { byte };
    byte i;
    do
    :: i < 3 -> c!i; i++
    :: c?_ -> a!i
    :: i >= 3 -> break
    od
}
init { run P(); b!1 }
";
    let cases: [(String, &[&str]); 7] = [
        // Carried: a process creates its local channels with itself.
        (
            base.replace("    byte i;", "    chan d = [1] of { byte };\n    byte i;"),
            &[
                "'P:d' added",
                "proctype P's processes create 1 channel more",
            ],
        ),
        (
            base.replace("    chan c = [2] of { byte };\n", "")
                .replace("c!i", "b!i")
                .replace("c?_", "b?_"),
            &[
                "local 'P:c' removed",
                "proctype P's processes create 1 channel fewer",
            ],
        ),
        // Not carried: a kept variable that creates a channel in one version only.
        (
            base.replace("    chan c = [2] of { byte };", "    chan c;"),
            &[
                "local 'P:c' creates channels in one version only",
                "creation order",
            ],
        ),
        (
            base.replace(
                "    chan c = [2] of { byte };",
                "    chan c[2] = [3] of { byte };",
            )
            .replace("c!i", "c[0]!i")
            .replace("c?_", "c[1]?_"),
            &["local 'P:c' declared as", "creation order"],
        ),
        // Carried: an array of channels resized (its elements pair by place).
        (
            base.replace(
                "    chan c = [2] of { byte };",
                "    chan c[2] = [2] of { byte };",
            )
            .replace("c!i", "c[0]!i")
            .replace("c?_", "c[1]?_"),
            &[
                "local 'P:c' declared as chan [2] instead of chan",
                "proctype P's processes create 1 channel more",
            ],
        ),
        // Carried: channels renumbered where handles sit in messages or in records
        // (renumbered with them).
        (
            base.replace("chan a = [1] of { byte };", "chan a = [1] of { chan };")
                .replace("chan b = [2] of { int };", "")
                .replace("a!i", "a!c")
                .replace("b!1", "skip"),
            &[
                "channel 'a' declared as [1] of {chan}",
                "channel 'b' removed",
            ],
        ),
        (
            base.replace(
                "chan b = [2] of { int };",
                "chan b = [2] of { int }; chan d = [1] of { bit };
typedef Reply { chan h; byte n };",
            ),
            &["global 'd' added"],
        ),
    ];
    for (new, says) in cases {
        let d = diff(base, &new);
        let layout = d.layout.clone().unwrap_or_default();
        for s in says {
            assert!(layout.contains(s), "{s:?} not in {layout:?}\n{new}");
        }
    }
    // Not carried: a record's field that holds a channel in one version and data in the
    // other, where channels are renumbered.
    let old = "typedef R { chan h; byte n }; R r; chan a = [1] of { byte };
active proctype P() { r.n = 1; a!r.n }
";
    let new = old
        .replace("chan h;", "byte h;")
        .replace("chan a", "chan d = [1] of { bit }; chan a");
    let layout = diff(old, &new).layout.unwrap_or_default();
    assert!(
        layout.contains("holds a channel in one version and data in the other"),
        "{layout}"
    );
}

/// A variable retyped whose values read the same (a scalar, an array of as many): its reads
/// are the same statements, and so is a write of a constant both types hold, a negative
/// one included; a write of anything else, or of a constant one type cannot hold, is
/// dangerous.
#[test]
fn a_retyped_variable_is_dangerous_where_a_write_may_differ() {
    let old = "short x; byte y;
active proctype P() {
    do
    :: x > 3 -> x = 0
    :: x < 0 -> x = -1
    :: y == 1 -> x = 70000
    :: y == 2 -> x = 255
    :: y == 3 -> x = y
    :: y < 3 -> y++
    od
}
";
    let stmts = |ty: &str| {
        let mut d = dangerous(&diff(old, &old.replace("short x;", &format!("{ty} x;"))));
        d.sort();
        d
    };
    // Each option's guard and its write are locations of their own: only writes appear.
    assert_eq!(stmts("int"), ["x = 70000", "x = y"]);
    assert_eq!(stmts("byte"), ["x = -1", "x = 70000", "x = y"]);
}

/// A global array and a process that names it by constant indices and by a variable.
const ARRAY_P: &str = "byte a[3]; byte i;
active proctype P() {
    do
    :: a[0] < 2 -> a[0]++
    :: a[2] == 1 -> a[1] = a[0]
    :: i < 2 -> i++
    :: a[i] == 0 -> a[i] = 1
    od
}
";

/// An array of scalars resized: an element both versions have, named by a constant index,
/// is the same element, kept as it was, so a statement that reads or writes only such
/// elements is the same statement; an index that is not a constant, or an element one
/// version lacks, makes it dangerous. Not where the elements' type changed too.
#[test]
fn a_resized_array_is_the_same_where_a_constant_index_names_an_element_both_have() {
    let old = &format!("{ARRAY_P}active proctype Q() {{ a[2] == 1 -> i = 0 }}\n");
    let stmts = |decl: &str| {
        let mut d = dangerous(&diff(old, &old.replace("byte a[3];", decl)));
        d.sort();
        d
    };
    // (The guard and the statement after it are locations of their own.)
    assert_eq!(
        stmts("byte a[4];"),
        ["a[0] < 2 | a[2] == 1 | i < 2 | a[i] == 0", "a[i] = 1"]
    );
    // Shrunk to 2: a[2] is gone.
    assert_eq!(
        stmts("byte a[2];"),
        [
            "a[0] < 2 | a[2] == 1 | i < 2 | a[i] == 0",
            "a[2] == 1",
            "a[i] = 1"
        ]
    );
    // Retyped as well: every access.
    assert_eq!(stmts("short a[4];").len(), 5, "{:?}", stmts("short a[4];"));
}

/// The dangerous locations whose change is only which elements of a resized array they
/// may reach carry each index with the elements both versions have: a process there whose
/// indices lie below moves as recorded. Not a `d_step` (its statements may change an index
/// before it is used), nor a statement that also names an added variable.
#[test]
fn a_location_that_only_indexes_a_resized_array_keeps_its_indices_and_bounds() {
    let old = &format!(
        "{ARRAY_P}active proctype Q() {{ a[2] == 1 -> i = 0; d_step {{ i++; a[i] = 2 }} }}\n"
    );
    let indexed = |new: &str| {
        let mut d = diff(old, new).indexed;
        d.sort();
        d
    };
    let grown = old.replace("byte a[3];", "byte a[4];");
    assert_eq!(
        indexed(&grown),
        [
            (
                "a[0] < 2 | a[2] == 1 | i < 2 | a[i] == 0".to_string(),
                vec![3, 3, 3]
            ),
            ("a[i] = 1".to_string(), vec![3]),
        ]
    );
    assert_eq!(
        dangerous(&diff(old, &grown)).len(),
        3,
        "the d_step is dangerous too"
    );
    // Shrunk: a[2] is past the new length; its index says so in every state.
    assert_eq!(
        indexed(&old.replace("byte a[3];", "byte a[2];")),
        [
            (
                "a[0] < 2 | a[2] == 1 | i < 2 | a[i] == 0".to_string(),
                vec![2, 2, 2]
            ),
            ("a[2] == 1".to_string(), vec![2]),
            ("a[i] = 1".to_string(), vec![2]),
        ]
    );
    // With an added variable read by the access: dangerous for that too.
    let written = grown
        .replace("byte i;", "byte i; byte b;")
        .replace("a[i] = 1", "a[i] = b");
    assert_eq!(
        indexed(&written),
        [(
            "a[0] < 2 | a[2] == 1 | i < 2 | a[i] == 0".to_string(),
            vec![3, 3, 3]
        )]
    );
    // A local array resized (and a global one): its process's accesses carry their
    // indices; another process's remote read of it does not (it stays dangerous outright).
    let local = "byte g[2];
active proctype P() {
    byte b[2]; byte i;
    do
    :: i < 1 -> i++
    :: b[i] == 0 -> b[i] = 1
    od
}
active proctype Q() { P[0]:b[1] == g[1] }
";
    let grown = local
        .replace("byte b[2];", "byte b[3];")
        .replace("byte g[2];", "byte g[3];");
    let mut got = diff(local, &grown).indexed;
    got.sort();
    assert_eq!(
        got,
        [
            ("b[i] = 1".to_string(), vec![2]),
            ("i < 1 | b[i] == 0".to_string(), vec![2]),
        ]
    );
    assert_eq!(dangerous(&diff(local, &grown)).len(), 3);
}
