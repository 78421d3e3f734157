//! `.rmc.toml`: defaults, every error with its place, and the template's round trip.

use std::path::{Path, PathBuf};

use super::*;

fn parse(text: &str) -> Config {
    match Config::parse(text, ".rmc.toml") {
        Ok(c) => c,
        Err(e) => panic!("{text}\nshould parse, but: {e}"),
    }
}

/// The one-line message of the error `text` must give.
fn check_err(text: &str, expected: &str) {
    match Config::parse(text, ".rmc.toml") {
        Ok(c) => panic!("{text}\nshould fail with {expected}, but parsed: {c:?}"),
        Err(e) => assert_eq!(e.to_string(), expected, "for\n{text}"),
    }
}

fn model(entry: &str) -> ModelConfig {
    ModelConfig::new(PathBuf::from(entry))
}

#[test]
fn an_empty_file_is_every_default() {
    assert_eq!(parse(""), Config::default());
    assert_eq!(parse("# nothing yet\n").fail_on, FailOn::New);
}

#[test]
fn a_model_with_only_an_entry_takes_every_default() {
    let c = parse("[[model]]\nentry = \"models/elevator.pml\"\n");
    assert_eq!(c.fail_on, FailOn::New);
    assert_eq!(c.cache_dir, None);
    assert_eq!(c.models, vec![model("models/elevator.pml")]);
    let m = &c.models[0];
    assert_eq!(m.name, "elevator");
    assert_eq!(m.algorithm, Algorithm::Auto);
    assert_eq!(
        m.checks,
        Checks {
            end_states: true,
            assertions: true,
            empty_channels: false,
            max_trails: 10,
            claims: ClaimSet::All,
            fair: false,
            non_progress: false,
        }
    );
    assert_eq!(
        m.limits,
        Limits {
            max_depth: None,
            max_states: None,
            max_errors: None,
            memory: MemoryLimit::Auto
        }
    );
}

#[test]
fn every_option_is_read() {
    let c = parse(
        r#"
fail_on = "any"
cache_dir = "build/rmc"

[[model]]
name = "lift"
entry = "models/elevator.pml"
defines = ["FLOORS=3", "DEBUG"]
include = ["models/include", "."]
algorithm = "replay"

[model.checks]
end_states = false
assertions = false
empty_channels = true
max_trails = 3
claims = ["p1", "p2"]
fair = true
non_progress = true

[model.limits]
max_depth = 100000
max_states = 10000000
max_errors = 5
memory = "4G"

[[model]]
entry = "models/door.pml"
algorithm = "full"
checks.max_trails = 0
limits = { memory = 1024, max_errors = 0 }
"#,
    );
    assert_eq!(c.fail_on, FailOn::Any);
    assert_eq!(c.cache_dir, Some(PathBuf::from("build/rmc")));
    let lift = ModelConfig {
        name: "lift".into(),
        entry: "models/elevator.pml".into(),
        defines: vec!["FLOORS=3".into(), "DEBUG".into()],
        include: vec!["models/include".into(), ".".into()],
        algorithm: Algorithm::Replay,
        checks: Checks {
            end_states: false,
            assertions: false,
            empty_channels: true,
            max_trails: 3,
            claims: ClaimSet::Named(vec!["p1".into(), "p2".into()]),
            fair: true,
            non_progress: true,
        },
        limits: Limits {
            max_depth: Some(100_000),
            max_states: Some(10_000_000),
            max_errors: Some(5),
            memory: MemoryLimit::Bytes(4 << 30),
        },
    };
    let mut door = model("models/door.pml");
    door.algorithm = Algorithm::Full;
    door.checks.max_trails = 0;
    door.limits.memory = MemoryLimit::Bytes(1024);
    assert_eq!(c.models, vec![lift, door]);
}

#[test]
fn claims_are_all_none_or_names() {
    let checks = |v: &str| {
        Config::parse(
            &format!("[[model]]\nentry = \"a.pml\"\n[model.checks]\nclaims = {v}\n"),
            ".rmc.toml",
        )
        .map(|c| c.models[0].checks.claims.clone())
    };
    assert_eq!(checks("\"all\""), Ok(ClaimSet::All));
    assert_eq!(checks("\"none\""), Ok(ClaimSet::None));
    assert_eq!(checks("[]"), Ok(ClaimSet::Named(Vec::new())));
    let e = checks("\"some\"").expect_err("not a choice").to_string();
    assert!(
        e.contains("'claims'") && e.contains("all, none") && e.contains(":4:"),
        "{e}"
    );
    let e = checks("3").expect_err("not a string").to_string();
    assert!(
        e.contains("\"all\", \"none\" or an array of claim names"),
        "{e}"
    );
}

#[test]
fn models_may_be_an_array_of_inline_tables() {
    let c = parse("model = [{ entry = \"a.pml\" }, { entry = \"b/c.pml\", name = \"c\" }]\n");
    let mut c_model = model("b/c.pml");
    c_model.name = "c".into();
    assert_eq!(c.models, vec![model("a.pml"), c_model]);
}

#[test]
fn paths_are_normalised_within_the_repository() {
    let c = parse(
        "[[model]]\nentry = \"./models/../elevator.pml\"\ninclude = [\"inc/./x/\", \"a/..\"]\n",
    );
    assert_eq!(c.models[0].entry, Path::new("elevator.pml"));
    assert_eq!(
        c.models[0].include,
        vec![PathBuf::from("inc/x"), ".".into()]
    );
}

#[test]
fn unknown_keys_are_named_with_their_place_and_the_keys_expected() {
    check_err(
        "fail_on = \"new\"\n\n[[model]]\nentry = \"a.pml\"\n\n[[model]]\nentri = \"b.pml\"\n",
        ".rmc.toml:7:1: unknown key 'entri' in [[model]] (expected one of: name, entry, \
         defines, include, algorithm, checks, limits)",
    );
    check_err(
        "fail-on = \"any\"\n",
        ".rmc.toml:1:1: unknown key 'fail-on' in the top level (expected one of: fail_on, \
         cache_dir, cache, model)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\n[model.checks]\n  deadlocks = true\n",
        ".rmc.toml:4:3: unknown key 'deadlocks' in [model.checks] (expected one of: \
         end_states, assertions, empty_channels, max_trails, claims, fair, non_progress)",
    );
    // Dotted keys and inline tables are checked as strictly as tables.
    check_err(
        "[[model]]\nentry = \"a.pml\"\nlimits.max_dpeth = 3\n",
        ".rmc.toml:3:8: unknown key 'max_dpeth' in [model.limits] (expected one of: \
         max_depth, max_states, max_errors, memory)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\nchecks = { asserts = false }\n",
        ".rmc.toml:3:12: unknown key 'asserts' in [model.checks] (expected one of: \
         end_states, assertions, empty_channels, max_trails, claims, fair, non_progress)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\n[model.extra.deep]\nx = 1\n",
        ".rmc.toml:3:8: unknown key 'extra' in [[model]] (expected one of: name, entry, \
         defines, include, algorithm, checks, limits)",
    );
}

#[test]
fn a_model_needs_an_entry_inside_the_repository() {
    check_err(
        "[[model]]\nentry = \"a.pml\"\n\n[[model]]\nname = \"b\"\n",
        ".rmc.toml:4:1: missing key 'entry' in [[model]] (the model's main file, relative \
         to the repository root)",
    );
    check_err(
        "[[model]]\nentry = \"/abs/a.pml\"\n",
        ".rmc.toml:2:9: 'entry' must be relative to the repository root, not the absolute \
         path /abs/a.pml",
    );
    check_err(
        "[[model]]\nentry = \"models/../../a.pml\"\n",
        ".rmc.toml:2:9: 'entry' leaves the repository: models/../../a.pml",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\ninclude = [\"inc\", \"../shared\"]\n",
        ".rmc.toml:3:19: 'include' leaves the repository: ../shared",
    );
    check_err(
        "[[model]]\nentry = \"\"\n",
        ".rmc.toml:2:9: 'entry' is empty",
    );
    check_err(
        "[[model]]\nentry = \"models/..\"\n",
        ".rmc.toml:2:9: 'entry' names no file: models/..",
    );
}

#[test]
fn two_models_may_not_share_a_name() {
    check_err(
        "[[model]]\nentry = \"a/x.pml\"\n\n[[model]]\nentry = \"b/x.pml\"\n",
        ".rmc.toml:4:1: two models are named 'x' (the first at line 1); give one of them a \
         different 'name'",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\nname = \"m\"\n[[model]]\nentry = \"b.pml\"\nname = \"m\"\n",
        ".rmc.toml:6:8: two models are named 'm' (the first at line 3); give one of them a \
         different 'name'",
    );
    // Telling them apart with a name is enough.
    let c =
        parse("[[model]]\nentry = \"a/x.pml\"\n[[model]]\nentry = \"b/x.pml\"\nname = \"x2\"\n");
    assert_eq!(c.models.len(), 2);
}

#[test]
fn words_outside_their_set_list_the_allowed_ones() {
    check_err(
        "fail_on = \"old\"\n",
        ".rmc.toml:1:11: 'fail_on' cannot be \"old\" (expected one of: new, any)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\nalgorithm = \"fast\"\n",
        ".rmc.toml:3:13: 'algorithm' cannot be \"fast\" (expected one of: auto, prune, \
         replay, full)",
    );
}

#[test]
fn memory_is_auto_or_a_size() {
    check_err(
        "[[model]]\nentry = \"a.pml\"\n[model.limits]\nmemory = \"12Q\"\n",
        ".rmc.toml:4:10: 'memory' is not a size: unknown size unit 'Q' (use K, M, G or T)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\n[model.limits]\nmemory = \"lots\"\n",
        ".rmc.toml:4:10: 'memory' is not a size: 'lots' is not a size (e.g. 512M, 4G, or auto)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\n[model.limits]\nmemory = true\n",
        ".rmc.toml:4:10: 'memory' must be \"auto\" or a size such as \"4G\", not a boolean",
    );
    let c = parse("[[model]]\nentry = \"a.pml\"\nlimits.memory = \"512M\"\n");
    assert_eq!(c.models[0].limits.memory, MemoryLimit::Bytes(512 << 20));
    let c = parse("[[model]]\nentry = \"a.pml\"\nlimits.memory = \"auto\"\n");
    assert_eq!(c.models[0].limits.memory, MemoryLimit::Auto);
}

#[test]
fn values_of_the_wrong_type_say_what_was_expected() {
    check_err(
        "[[model]]\nentry = 3\n",
        ".rmc.toml:2:9: 'entry' must be a string, not an integer",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\n[model.limits]\nmax_depth = \"deep\"\n",
        ".rmc.toml:4:13: 'max_depth' must be a whole number, not a string",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\ncheck.max_trails = 1\n",
        ".rmc.toml:3:1: unknown key 'check' in [[model]] (expected one of: name, entry, \
         defines, include, algorithm, checks, limits)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\nchecks.max_trails = -1\n",
        ".rmc.toml:3:21: 'max_trails' must be zero or more, not -1",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\nchecks.end_states = \"no\"\n",
        ".rmc.toml:3:21: 'end_states' must be true or false, not a string",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\ndefines = [\"A\", 2]\n",
        ".rmc.toml:3:17: 'defines[1]' must be a string, not an integer",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\ndefines = \"A\"\n",
        ".rmc.toml:3:11: 'defines' must be an array of strings, not a string",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\nchecks = 1\n",
        ".rmc.toml:3:10: 'checks' must be a table, not an integer",
    );
    check_err(
        "[model]\nentry = \"a.pml\"\n",
        ".rmc.toml:1:1: 'model' must be an array of tables (one [[model]] per model), not a \
         table",
    );
    check_err(
        "fail_on = 1979-05-27\n",
        ".rmc.toml:1:11: 'fail_on' must be a string, not a date-time",
    );
    check_err("cache_dir = \"\"\n", ".rmc.toml:1:13: 'cache_dir' is empty");
}

#[test]
fn defines_are_cpp_macro_names() {
    check_err(
        "[[model]]\nentry = \"a.pml\"\ndefines = [\"N=3\", \"=3\"]\n",
        ".rmc.toml:3:19: '=3' in 'defines' is not NAME or NAME=VALUE (a macro name is a C \
         identifier)",
    );
    check_err(
        "[[model]]\nentry = \"a.pml\"\ndefines = [\"2N\"]\n",
        ".rmc.toml:3:12: '2N' in 'defines' is not NAME or NAME=VALUE (a macro name is a C \
         identifier)",
    );
    let c = parse("[[model]]\nentry = \"a.pml\"\ndefines = [\"_X\", \"N=(1+2)\", \"E=\"]\n");
    assert_eq!(c.models[0].defines, ["_X", "N=(1+2)", "E="]);
}

#[test]
fn syntax_errors_give_their_line() {
    let e = match Config::parse("fail_on = \"new\"\n[[model]\n", "at 3f2a1bc") {
        Err(e) => e,
        Ok(c) => panic!("parsed: {c:?}"),
    };
    assert_eq!((e.line, e.column), (2, 8));
    assert!(
        e.to_string().starts_with("at 3f2a1bc:2:8: invalid toml: "),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'), "{e}");
    check_err(
        "fail_on = \"new\"\nfail_on = \"any\"\n",
        ".rmc.toml:2:1: invalid toml: duplicate key `fail_on` in document root",
    );
}

#[test]
fn columns_count_characters_and_spans_cover_the_value() {
    let text = "[[model]]\nentry = \"a.pml\" # \u{e9}t\u{e9}\nname = \"\u{e9}\"\n[[model]]\nname = \"\u{e9}\"\nentry = \"b.pml\"\n";
    let e = match Config::parse(text, "x") {
        Err(e) => e,
        Ok(c) => panic!("parsed: {c:?}"),
    };
    assert_eq!((e.line, e.column), (5, 8));
    assert_eq!(&text[e.span.clone()], "\"\u{e9}\"");
    // Two two-byte characters before the value on its line: column 33, not 35.
    check_err(
        "model = [{ name = \"\u{e9}\u{e9}\", entry = 3 }]\n",
        ".rmc.toml:1:33: 'entry' must be a string, not an integer",
    );
}

#[test]
fn max_errors_zero_means_no_limit() {
    let c = parse("[[model]]\nentry = \"a.pml\"\nlimits.max_errors = 0\n");
    assert_eq!(c.models[0].limits.max_errors, None);
}

#[test]
fn the_template_parses_back_to_its_models() {
    let entries: Vec<PathBuf> = [
        "models/elevator.pml",
        "models/a/x.pml",
        "models/b/x.pml",
        "lift.pml",
        "models/quote\"d.pml",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let text = Config::template(&entries);
    let c = parse(&text);
    assert_eq!(c.fail_on, FailOn::New);
    assert_eq!(c.cache_dir, None);
    let names: Vec<&str> = c.models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        ["elevator", "models/a/x", "models/b/x", "lift", "quote\"d"]
    );
    for (m, e) in c.models.iter().zip(&entries) {
        let mut expected = ModelConfig::new(e.clone());
        expected.name = m.name.clone();
        assert_eq!(m, &expected);
    }
    // No entries: a commented example, and nothing to check.
    let empty = Config::template(&[]);
    assert_eq!(parse(&empty), Config::default());
    assert!(empty.contains("# [[model]]"), "{empty}");
}

#[test]
fn the_templates_commented_options_are_valid_and_show_the_defaults() {
    let text = Config::template(&[PathBuf::from("models/elevator.pml")]);
    // Uncomment every option line (`# key = …`, `# [table]`), keep prose comments.
    let uncommented: String = text
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest) if rest.starts_with('[') || rest.split(' ').nth(1) == Some("=") => rest,
            _ => l,
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(uncommented.contains("\nmemory = \"auto\""), "{uncommented}");
    let c = parse(&uncommented);
    let mut expected = Config::single(Path::new("models/elevator.pml"));
    // The two limits without a default show example values.
    expected.models[0].limits.max_depth = Some(100_000);
    expected.models[0].limits.max_states = Some(10_000_000);
    expected.cache_dir = Some(PathBuf::from(".rmc"));
    expected.cache.max_size = Size::parse(DEFAULT_MAX_SIZE).ok();
    assert_eq!(c, expected);
}

#[test]
fn single_is_one_model_with_every_default() {
    let c = Config::single(Path::new("models/elevator.pml"));
    assert_eq!(c.fail_on, FailOn::New);
    assert_eq!(c.models, vec![model("models/elevator.pml")]);
    assert_eq!(c.models[0].name, "elevator");
}

#[test]
fn search_options_carry_the_checks_and_limits() {
    let mut m = model("a.pml");
    m.checks.empty_channels = true;
    m.limits.max_depth = Some(7);
    let o = m.search_options(Some(1 << 20));
    assert!(o.end_states && o.assertions && o.empty_channels);
    assert_eq!(o.max_depth, Some(7));
    assert_eq!(o.max_states, None);
    assert_eq!(o.memory_limit, Some(1 << 20));
    assert_eq!(o.max_trails, 10);
}

#[test]
fn the_cache_table_sets_the_size_budget() {
    let c = parse("[cache]\nmax_size = \"500M\"\n");
    assert_eq!(
        c.cache.max_size,
        Some(Size {
            bytes: 500 << 20,
            text: "500M".into()
        })
    );
    assert_eq!(
        parse("cache.max_size = 1000\n")
            .cache
            .max_size
            .map(|s| s.bytes),
        Some(1000)
    );
    assert_eq!(parse("").cache.max_size, None);
    check_err(
        "[cache]\nmax_size = \"lots\"\n",
        ".rmc.toml:2:12: 'max_size' is not a size: 'lots' is not a size (e.g. 512M, 4G, or auto)",
    );
    check_err(
        "[cache]\nmax-size = \"1G\"\n",
        ".rmc.toml:2:1: unknown key 'max-size' in [cache] (expected one of: max_size)",
    );
    check_err(
        "cache = 3\n",
        ".rmc.toml:1:9: 'cache' must be a table, not an integer",
    );
}

fn user(text: &str) -> Result<UserConfig, String> {
    UserConfig::parse(text, "/home/u/.config/git-rmc/config.toml").map_err(|e| e.to_string())
}

#[test]
fn the_users_settings_are_checked_as_strictly_as_the_repositorys() {
    assert_eq!(user(""), Ok(UserConfig::default()));
    let u = user(
        "memory = \"8G\"\ncolor = \"never\"\nprogress = \"always\"\n[cache]\nmax_size = \"10G\"\n",
    );
    assert_eq!(
        u,
        Ok(UserConfig {
            memory: Some(MemoryLimit::Bytes(8 << 30)),
            color: Some(Choice::Never),
            progress: Some(Choice::Always),
            cache: CacheSettings {
                max_size: Size::parse("10G").ok()
            },
        })
    );
    assert_eq!(
        user("memory = \"auto\"\n").map(|u| u.memory),
        Ok(Some(MemoryLimit::Auto))
    );
    assert_eq!(
        user("colour = \"never\"\n"),
        Err(
            "/home/u/.config/git-rmc/config.toml:1:1: unknown key 'colour' in the top level \
             (expected one of: memory, color, progress, cache)"
                .into()
        )
    );
    assert_eq!(
        user("\n[cache]\n  max_size = \"10G\"\n  keep = 3\n"),
        Err(
            "/home/u/.config/git-rmc/config.toml:4:3: unknown key 'keep' in [cache] \
             (expected one of: max_size)"
                .into()
        )
    );
    assert_eq!(
        user("progress = \"sometimes\"\n"),
        Err(
            "/home/u/.config/git-rmc/config.toml:1:12: 'progress' cannot be \"sometimes\" \
             (expected one of: auto, always, never)"
                .into()
        )
    );
    assert!(user("memory = ").is_err_and(|e| e.contains("config.toml:1:")));
}
