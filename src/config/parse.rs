//! Reads `.rmc.toml` into a `Config`, checking every key and value against what the file may
//! hold. Works on toml_edit's document rather than serde derive because the document keeps
//! a span for every key and value, dotted keys (`checks.end_states = false`) and inline tables
//! included, so every error can name its line and column and the table it is in.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use toml_edit::{ImDocument, Item, TableLike, Value};

use super::error::{line_column, ConfigError, ConfigErrorKind as Kind};
use super::memory::{self, MemoryLimit, Size};
use super::user::{Choice, UserConfig};
use super::{
    default_name, Algorithm, CacheSettings, Checks, ClaimSet, Config, FailOn, Limits, ModelConfig,
};

const TOP: &str = "the top level";
const MODEL: &str = "[[model]]";
const CHECKS: &str = "[model.checks]";
const LIMITS: &str = "[model.limits]";
const CACHE: &str = "[cache]";

const TOP_KEYS: &[&str] = &["fail_on", "cache_dir", "cache", "model"];
const CACHE_KEYS: &[&str] = &["max_size"];
const USER_KEYS: &[&str] = &["memory", "color", "progress", "cache"];
const MODEL_KEYS: &[&str] = &[
    "name",
    "entry",
    "defines",
    "include",
    "algorithm",
    "checks",
    "limits",
];
const CHECK_KEYS: &[&str] = &[
    "end_states",
    "assertions",
    "empty_channels",
    "max_trails",
    "claims",
    "fair",
    "non_progress",
];
const LIMIT_KEYS: &[&str] = &["max_depth", "max_states", "max_errors", "memory"];

pub(super) fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
    let p = Parser { text, origin };
    let doc = p.document()?;
    p.config(doc.as_table())
}

/// The user's settings file (`UserConfig`), checked as strictly as `.rmc.toml`.
pub(super) fn parse_user(text: &str, origin: &str) -> Result<UserConfig, ConfigError> {
    let p = Parser { text, origin };
    let doc = p.document()?;
    p.user(doc.as_table())
}

/// toml_edit's messages span lines ("invalid string\nexpected `\"`"); ours are one line.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

struct Parser<'a> {
    text: &'a str,
    origin: &'a str,
}

/// One key of a table and its value, with the span to blame for a bad value.
struct Field<'t> {
    name: &'t str,
    item: &'t Item,
    /// The value's span, else the key's, else the table's header.
    span: Range<usize>,
}

impl Parser<'_> {
    fn document(&self) -> Result<ImDocument<&str>, ConfigError> {
        ImDocument::parse(self.text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            self.error(span, Kind::Syntax(one_line(e.message())))
        })
    }

    fn error(&self, span: Range<usize>, kind: Kind) -> ConfigError {
        let (line, column) = line_column(self.text, span.start);
        ConfigError {
            origin: self.origin.to_string(),
            line,
            column,
            span,
            kind: Box::new(kind),
        }
    }

    /// The first line of `span`: a table's span runs to its last key, but an error about
    /// the table points at its header.
    fn first_line(&self, span: Range<usize>) -> Range<usize> {
        let end = self
            .text
            .get(span.clone())
            .and_then(|s| s.find('\n'))
            .map_or(span.end, |i| span.start + i);
        span.start..end
    }

    fn config(&self, root: &dyn TableLike) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        for f in self.fields(root, TOP, TOP_KEYS, &(0..0))? {
            match f.name {
                "fail_on" => config.fail_on = self.choice(&f, &FailOn::ALL, |c| c.as_str())?,
                "cache_dir" => {
                    let dir = self.string(&f)?;
                    if dir.is_empty() {
                        return Err(self.error(f.span, Kind::Empty { key: f.name.into() }));
                    }
                    config.cache_dir = Some(PathBuf::from(dir));
                }
                "model" => config.models = self.models(&f)?,
                "cache" => config.cache = self.cache(&f)?,
                // `fields` admits only the keys matched above.
                _ => {}
            }
        }
        Ok(config)
    }

    fn user(&self, root: &dyn TableLike) -> Result<UserConfig, ConfigError> {
        let mut user = UserConfig::default();
        for f in self.fields(root, TOP, USER_KEYS, &(0..0))? {
            match f.name {
                "memory" => user.memory = Some(self.memory(&f)?),
                "color" => user.color = Some(self.choice(&f, &Choice::ALL, |c| c.as_str())?),
                "progress" => user.progress = Some(self.choice(&f, &Choice::ALL, |c| c.as_str())?),
                "cache" => user.cache = self.cache(&f)?,
                // `fields` admits only the keys matched above.
                _ => {}
            }
        }
        Ok(user)
    }

    fn cache(&self, f: &Field) -> Result<CacheSettings, ConfigError> {
        let (table, header) = self.table(f)?;
        let mut cache = CacheSettings::default();
        // `fields` admits only `max_size`.
        for f in self.fields(table, CACHE, CACHE_KEYS, &header)? {
            cache.max_size = Some(self.size(&f)?);
        }
        Ok(cache)
    }

    /// A size such as `"2G"`, or a number of bytes.
    fn size(&self, f: &Field) -> Result<Size, ConfigError> {
        if f.item.is_integer() {
            let n = self.count(f)?;
            return Ok(Size {
                bytes: n,
                text: n.to_string(),
            });
        }
        let s = f
            .item
            .as_str()
            .ok_or_else(|| self.wrong_type(f, "a size such as \"2G\""))?;
        Size::parse(s).map_err(|err| {
            self.error(
                f.span.clone(),
                Kind::BadSize {
                    key: f.name.into(),
                    err,
                },
            )
        })
    }

    /// Every key of `table`, refusing those not in `allowed`. `header` is blamed when a key
    /// has no span of its own (toml_edit gives every parsed key one; this is a fallback).
    fn fields<'t>(
        &self,
        table: &'t dyn TableLike,
        table_name: &'static str,
        allowed: &'static [&'static str],
        header: &Range<usize>,
    ) -> Result<Vec<Field<'t>>, ConfigError> {
        let mut out = Vec::new();
        for (name, _) in table.iter() {
            let Some((key, item)) = table.get_key_value(name) else {
                continue;
            };
            let key_span = key.span().unwrap_or_else(|| header.clone());
            if !allowed.contains(&name) {
                return Err(self.error(
                    key_span,
                    Kind::UnknownKey {
                        key: name.to_string(),
                        table: table_name,
                        expected: allowed,
                    },
                ));
            }
            let span = item.span().unwrap_or(key_span);
            out.push(Field { name, item, span });
        }
        Ok(out)
    }

    fn wrong_type(&self, f: &Field, expected: &'static str) -> ConfigError {
        self.error(
            f.span.clone(),
            Kind::WrongType {
                key: f.name.into(),
                expected,
                found: found(f.item),
            },
        )
    }

    fn string<'t>(&self, f: &Field<'t>) -> Result<&'t str, ConfigError> {
        f.item
            .as_str()
            .ok_or_else(|| self.wrong_type(f, "a string"))
    }

    fn boolean(&self, f: &Field) -> Result<bool, ConfigError> {
        f.item
            .as_bool()
            .ok_or_else(|| self.wrong_type(f, "true or false"))
    }

    fn count(&self, f: &Field) -> Result<u64, ConfigError> {
        let n = f
            .item
            .as_integer()
            .ok_or_else(|| self.wrong_type(f, "a whole number"))?;
        u64::try_from(n).map_err(|_| {
            self.error(
                f.span.clone(),
                Kind::Negative {
                    key: f.name.into(),
                    value: n,
                },
            )
        })
    }

    /// One of the words `all` spells with `word`.
    fn choice<T: Copy>(
        &self,
        f: &Field,
        all: &[T],
        word: impl Fn(T) -> &'static str,
    ) -> Result<T, ConfigError> {
        let s = self.string(f)?;
        all.iter().copied().find(|&c| word(c) == s).ok_or_else(|| {
            self.error(
                f.span.clone(),
                Kind::NotAllowed {
                    key: f.name.into(),
                    value: s.into(),
                    allowed: all.iter().map(|&c| word(c)).collect(),
                },
            )
        })
    }

    /// An array of strings, each with its span; a bad element is named `key[i]`.
    fn strings<'t>(&self, f: &Field<'t>) -> Result<Vec<(&'t str, Range<usize>)>, ConfigError> {
        let Some(array) = f.item.as_array() else {
            return Err(self.wrong_type(f, "an array of strings"));
        };
        let mut out = Vec::new();
        for (i, v) in array.iter().enumerate() {
            let span = v.span().unwrap_or_else(|| f.span.clone());
            match v.as_str() {
                Some(s) => out.push((s, span)),
                None => {
                    return Err(self.error(
                        span,
                        Kind::WrongType {
                            key: format!("{}[{i}]", f.name),
                            expected: "a string",
                            found: value_kind(v),
                        },
                    ))
                }
            }
        }
        Ok(out)
    }

    /// A sub-table (`[model.checks]`, `checks = { … }` or dotted keys) and its header span.
    fn table<'t>(&self, f: &Field<'t>) -> Result<(&'t dyn TableLike, Range<usize>), ConfigError> {
        let table = f
            .item
            .as_table_like()
            .ok_or_else(|| self.wrong_type(f, "a table"))?;
        Ok((table, self.first_line(f.span.clone())))
    }

    /// The `[[model]]` tables, also when written as an array of inline tables.
    fn models(&self, f: &Field) -> Result<Vec<ModelConfig>, ConfigError> {
        const EXPECTED: &str = "an array of tables (one [[model]] per model)";
        let mut tables: Vec<(&dyn TableLike, Range<usize>)> = Vec::new();
        match f.item {
            Item::ArrayOfTables(array) => {
                for t in array.iter() {
                    let span = t.span().unwrap_or_else(|| f.span.clone());
                    tables.push((t, self.first_line(span)));
                }
            }
            Item::Value(Value::Array(array)) => {
                for v in array.iter() {
                    let span = v.span().unwrap_or_else(|| f.span.clone());
                    match v {
                        Value::InlineTable(t) => tables.push((t, self.first_line(span))),
                        _ => return Err(self.wrong_type(f, EXPECTED)),
                    }
                }
            }
            _ => return Err(self.wrong_type(f, EXPECTED)),
        }
        let mut models = Vec::new();
        // Each name with the line that first used it, for the duplicate error.
        let mut names: BTreeMap<String, usize> = BTreeMap::new();
        for (table, header) in tables {
            let (model, name_span) = self.model(table, header)?;
            let line = line_column(self.text, name_span.start).0;
            if let Some(&first_line) = names.get(&model.name) {
                return Err(self.error(
                    name_span,
                    Kind::DuplicateName {
                        name: model.name,
                        first_line,
                    },
                ));
            }
            names.insert(model.name.clone(), line);
            models.push(model);
        }
        Ok(models)
    }

    /// One model, and the span that gave it its name (its `name`, else its header).
    fn model(
        &self,
        table: &dyn TableLike,
        header: Range<usize>,
    ) -> Result<(ModelConfig, Range<usize>), ConfigError> {
        let mut model = ModelConfig::new(PathBuf::new());
        let mut name = None;
        let mut entry = None;
        for f in self.fields(table, MODEL, MODEL_KEYS, &header)? {
            match f.name {
                "name" => {
                    let s = self.string(&f)?;
                    if s.trim().is_empty() {
                        return Err(self.error(f.span, Kind::Empty { key: f.name.into() }));
                    }
                    name = Some((s.to_string(), f.span));
                }
                "entry" => {
                    let raw = self.string(&f)?;
                    let path = self.repo_path(f.name, raw, &f.span)?;
                    if path.as_os_str().is_empty() {
                        return Err(self.error(
                            f.span,
                            Kind::NoFile {
                                key: f.name.into(),
                                path: raw.into(),
                            },
                        ));
                    }
                    entry = Some(path);
                }
                "defines" => {
                    for (d, span) in self.strings(&f)? {
                        if !is_define(d) {
                            return Err(self.error(
                                span,
                                Kind::BadDefine {
                                    key: f.name.into(),
                                    value: d.into(),
                                },
                            ));
                        }
                        model.defines.push(d.to_string());
                    }
                }
                "include" => {
                    for (dir, span) in self.strings(&f)? {
                        let path = self.repo_path(f.name, dir, &span)?;
                        // "." (the repository root) normalises to nothing; keep it a path.
                        model.include.push(if path.as_os_str().is_empty() {
                            PathBuf::from(".")
                        } else {
                            path
                        });
                    }
                }
                "algorithm" => {
                    model.algorithm = self.choice(&f, &Algorithm::ALL, |a| a.as_str())?
                }
                "checks" => model.checks = self.checks(&f)?,
                "limits" => model.limits = self.limits(&f)?,
                // `fields` admits only the keys matched above.
                _ => {}
            }
        }
        let Some(entry) = entry else {
            return Err(self.error(
                header,
                Kind::MissingKey {
                    key: "entry",
                    table: MODEL,
                    why: "the model's main file, relative to the repository root",
                },
            ));
        };
        let (name, name_span) = name.unwrap_or_else(|| (default_name(&entry), header));
        model.name = name;
        model.entry = entry;
        Ok((model, name_span))
    }

    fn checks(&self, f: &Field) -> Result<Checks, ConfigError> {
        let (table, header) = self.table(f)?;
        let mut checks = Checks::default();
        for f in self.fields(table, CHECKS, CHECK_KEYS, &header)? {
            match f.name {
                "end_states" => checks.end_states = self.boolean(&f)?,
                "assertions" => checks.assertions = self.boolean(&f)?,
                "empty_channels" => checks.empty_channels = self.boolean(&f)?,
                "fair" => checks.fair = self.boolean(&f)?,
                "non_progress" => checks.non_progress = self.boolean(&f)?,
                "claims" => checks.claims = self.claims(&f)?,
                "max_trails" => {
                    let n = self.count(&f)?;
                    // Only a 32-bit machine can refuse; saturating is what a trail cap means.
                    checks.max_trails = usize::try_from(n).unwrap_or(usize::MAX);
                }
                // `fields` admits only the keys matched above.
                _ => {}
            }
        }
        Ok(checks)
    }

    /// `claims = "all"`, `"none"`, or an array of claim names.
    fn claims(&self, f: &Field) -> Result<ClaimSet, ConfigError> {
        if f.item.as_array().is_some() {
            let names = self.strings(f)?;
            return Ok(ClaimSet::Named(
                names.into_iter().map(|(n, _)| n.to_string()).collect(),
            ));
        }
        let Some(s) = f.item.as_str() else {
            return Err(self.wrong_type(f, "\"all\", \"none\" or an array of claim names"));
        };
        match s {
            "all" => Ok(ClaimSet::All),
            "none" => Ok(ClaimSet::None),
            _ => Err(self.error(
                f.span.clone(),
                Kind::NotAllowed {
                    key: f.name.into(),
                    value: s.into(),
                    allowed: vec!["all", "none"],
                },
            )),
        }
    }

    fn limits(&self, f: &Field) -> Result<Limits, ConfigError> {
        let (table, header) = self.table(f)?;
        let mut limits = Limits::default();
        for f in self.fields(table, LIMITS, LIMIT_KEYS, &header)? {
            match f.name {
                "max_depth" => limits.max_depth = Some(self.count(&f)?),
                "max_states" => limits.max_states = Some(self.count(&f)?),
                // pan's -c0: no limit on errors.
                "max_errors" => limits.max_errors = Some(self.count(&f)?).filter(|&n| n > 0),
                "memory" => limits.memory = self.memory(&f)?,
                // `fields` admits only the keys matched above.
                _ => {}
            }
        }
        Ok(limits)
    }

    /// `"auto"`, a size such as `"4G"`, or a number of bytes.
    fn memory(&self, f: &Field) -> Result<MemoryLimit, ConfigError> {
        if f.item.is_integer() {
            return self.count(f).map(MemoryLimit::Bytes);
        }
        let s = f
            .item
            .as_str()
            .ok_or_else(|| self.wrong_type(f, "\"auto\" or a size such as \"4G\""))?;
        memory::parse_limit(s).map_err(|err| {
            self.error(
                f.span.clone(),
                Kind::BadSize {
                    key: f.name.into(),
                    err,
                },
            )
        })
    }

    /// A path relative to the repository root, normalised: `.` dropped, `..` resolved, and
    /// refused when absolute or when it climbs out of the repository.
    fn repo_path(&self, key: &str, raw: &str, span: &Range<usize>) -> Result<PathBuf, ConfigError> {
        let fail = |kind| Err(self.error(span.clone(), kind));
        if raw.is_empty() {
            return fail(Kind::Empty { key: key.into() });
        }
        let path = Path::new(raw);
        if path.has_root() {
            return fail(Kind::Absolute {
                key: key.into(),
                path: raw.into(),
            });
        }
        let mut out = PathBuf::new();
        for c in path.components() {
            match c {
                Component::Prefix(_) | Component::RootDir => {
                    return fail(Kind::Absolute {
                        key: key.into(),
                        path: raw.into(),
                    })
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() {
                        return fail(Kind::Escapes {
                            key: key.into(),
                            path: raw.into(),
                        });
                    }
                }
                Component::Normal(n) => out.push(n),
            }
        }
        Ok(out)
    }
}

/// `NAME` or `NAME=VALUE` with a C identifier for NAME, as `cpp -D` takes it.
fn is_define(d: &str) -> bool {
    let name = d.split_once('=').map_or(d, |(n, _)| n);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What an item is, for "must be X, not Y".
fn found(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(v) => value_kind(v),
    }
}

fn value_kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date-time",
        Value::Array(_) => "an array",
        Value::InlineTable(_) => "a table",
    }
}
