//! The `.rmc.toml` that `git rmc init` writes: the models it found, each with every option
//! shown commented out at its default and explained in a line, so the file documents itself.
//! The defaults shown are read from the types' `Default`s, so the text cannot drift from
//! what an absent key means.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::{default_name, Algorithm, Checks, FailOn, Limits, MemoryLimit};

const HEADER: &str = "\
# git rmc settings: which models `git rmc check` checks, and how.
# Every option is shown commented out with its default; uncomment a line to change it.
";

const NO_MODELS: &str = "
# No model was found. Add one [[model]] per model to check, for example:
# [[model]]
# entry = \"models/example.pml\"
";

/// Where the explanations start, so that they line up.
const COLUMN: usize = 30;

pub(super) fn template(entries: &[PathBuf]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    let fail_on = FailOn::default().as_str();
    line(
        &mut out,
        &format!("# fail_on = {}", quote(fail_on)),
        "which violations fail a check: \"new\" (not at the base commit) or \"any\"",
    );
    line(
        &mut out,
        "# cache_dir = \".rmc\"",
        "where the cache lives, from the work tree root (GIT_RMC_CACHE_DIR wins)",
    );
    out.push('\n');
    line(
        &mut out,
        "# [cache]",
        "the records kept for later checks (in a store your clones share)",
    );
    line(
        &mut out,
        &format!("# max_size = {}", quote(super::DEFAULT_MAX_SIZE)),
        "past it, the least recently used that no branch tip needs go",
    );
    if entries.is_empty() {
        out.push_str(NO_MODELS);
        return out;
    }
    for (entry, name) in entries.iter().zip(unique_names(entries)) {
        model(&mut out, entry, &name);
    }
    out
}

fn model(out: &mut String, entry: &Path, name: &str) {
    let checks = Checks::default();
    let limits = Limits::default();
    out.push_str("\n[[model]]\n");
    line(
        out,
        &format!("entry = {}", quote(&slash_path(entry))),
        "the main file, relative to the repository root",
    );
    let why_name = "the model's name in output and in the cache (default: the entry's stem)";
    if name == default_name(entry) {
        line(out, &format!("# name = {}", quote(name)), why_name);
    } else {
        // Another entry has the same stem: the default would clash, so the name is set.
        line(out, &format!("name = {}", quote(name)), why_name);
    }
    line(
        out,
        "# defines = []",
        "preprocessor macros, like cpp -D: [\"FLOORS=3\", \"DEBUG\"]",
    );
    line(
        out,
        "# include = []",
        "#include folders, like cpp -I, relative to the repository root",
    );
    line(
        out,
        &format!("# algorithm = {}", quote(Algorithm::default().as_str())),
        "reuse of the last check: \"auto\" (the cheapest), \"prune\", \"replay\" or \"full\"",
    );

    out.push('\n');
    line(out, "# [model.checks]", "what a check reports");
    line(
        out,
        &format!("# end_states = {}", checks.end_states),
        "invalid end states (pan without -E)",
    );
    line(
        out,
        &format!("# assertions = {}", checks.assertions),
        "assertion violations (pan without -A)",
    );
    line(
        out,
        &format!("# empty_channels = {}", checks.empty_channels),
        "a valid end state also needs every channel empty (pan -q)",
    );
    line(
        out,
        &format!("# max_trails = {}", checks.max_trails),
        "trails built and kept per kind of violation",
    );
    line(
        out,
        "# claims = \"all\"",
        "never claims and ltl formulas checked, each on its own: \"all\", \"none\" or [names] \
         (\"accept\": accept labels without a claim)",
    );
    line(
        out,
        &format!("# fair = {}", checks.fair),
        "weak fairness in the search for acceptance cycles (pan -a -f)",
    );
    line(
        out,
        &format!("# non_progress = {}", checks.non_progress),
        "also look for non-progress cycles with spin's np_ claim (pan -l)",
    );

    out.push('\n');
    line(
        out,
        "# [model.limits]",
        "a search a limit cuts is incomplete; no limits but memory by default",
    );
    // These two have no default (no limit); the values shown are examples.
    debug_assert!(limits.max_depth.is_none() && limits.max_states.is_none());
    line(
        out,
        "# max_depth = 100000",
        "explore no deeper than this (pan -m); default: no limit",
    );
    line(
        out,
        "# max_states = 10000000",
        "stop after storing this many states; default: no limit",
    );
    line(
        out,
        &format!("# max_errors = {}", limits.max_errors.unwrap_or(0)),
        "stop after this many distinct violations (pan -c); 0: no limit",
    );
    let memory = match limits.memory {
        MemoryLimit::Auto => "auto".to_string(),
        MemoryLimit::Bytes(n) => n.to_string(),
    };
    line(
        out,
        &format!("# memory = {}", quote(&memory)),
        "\"auto\" (80% of what the machine allows) or a size such as \"4G\"",
    );
}

/// `text`, then the explanation as a comment from `COLUMN` on.
fn line(out: &mut String, text: &str, why: &str) {
    let pad = COLUMN.saturating_sub(text.chars().count()).max(1);
    out.push_str(text);
    out.push_str(&" ".repeat(pad));
    out.push_str("# ");
    out.push_str(why);
    out.push('\n');
}

/// A TOML string literal, escaped by toml_edit.
fn quote(s: &str) -> String {
    toml_edit::Value::from(s).to_string()
}

/// The path with `/` between components, as `.rmc.toml` is shared across platforms.
fn slash_path(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Each entry's default name, except where two entries share a stem: those get their path
/// without extension (or, failing that, the path itself, then a number) so that the file
/// parses without a duplicate-name error.
fn unique_names(entries: &[PathBuf]) -> Vec<String> {
    let defaults: Vec<String> = entries.iter().map(|e| default_name(e)).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for d in &defaults {
        *count.entry(d).or_default() += 1;
    }
    let mut taken: HashSet<String> = defaults
        .iter()
        .filter(|d| count[d.as_str()] == 1)
        .cloned()
        .collect();
    let mut names = Vec::new();
    for (entry, default) in entries.iter().zip(&defaults) {
        if count[default.as_str()] == 1 {
            names.push(default.clone());
            continue;
        }
        let path = slash_path(entry);
        let stemless = slash_path(&entry.with_extension(""));
        let name = [stemless, path.clone()]
            .into_iter()
            .chain((2..).map(|i| format!("{path}-{i}")))
            .find(|n| !taken.contains(n))
            .unwrap_or_default();
        taken.insert(name.clone());
        names.push(name);
    }
    names
}
