//! Checking models at commits, as `check` and `history` walk a history: the configuration
//! of a commit (its `.rmc.toml`, else the work tree's, else its one model file), each model
//! read from the commit's tree, a result reused when the model's content hash is unchanged
//! or was checked further back (a revert), else a check against the record of the nearest
//! first-parent ancestor that has one, and
//! the record and result stored in the cache. Glue between `git`, `config`, `cache` and the
//! engine; nothing here prints but diagnostics of models that do not load.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cache::Cache;
use crate::config::{self, Config, ModelConfig};
use crate::git::{CommitId, Repo};
use crate::promela::preprocess::PpOptions;
use crate::promela::source::FileProvider;
use crate::report::verdict::{LimitSource, LimitSources};
use crate::report::verify::{ModelResult, ModelVerdict};
use crate::rmc::check::{self, Algorithm, Base, ClaimChoice, Request};
use crate::rmc::record::RecViolation;
use anyhow::Context;

/// How long a run waits for another one holding the cache.
const CACHE_WAIT: Duration = Duration::from_secs(120);
/// How far back the search for a base record goes.
const MAX_ANCESTORS: usize = 100_000;
/// The model files `init` and the one-model default look for.
pub const MODEL_EXTENSIONS: [&str; 3] = ["pml", "prom", "pr"];

/// What is checked: a commit, or the files in the work tree (uncommitted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    Commit(CommitId),
    WorkTree,
}

/// A repository, its cache and what the command line asked for.
pub struct Session {
    pub repo: Repo,
    pub root: PathBuf,
    pub cache: Cache,
    /// The records' size budget, enforced when the session ends after a run that read or
    /// wrote records (`cli::cache::after_run`).
    pub budget: super::user::Budget,
    /// `-- PATHS`, relative to the work tree root.
    pub paths: Vec<PathBuf>,
    /// `--algorithm` (overrides the configuration).
    pub algorithm: Option<Algorithm>,
    /// Also run a full check of every commit and compare.
    pub audit: bool,
    /// Run again the checks a limit cut, instead of reusing their results.
    pub retry_incomplete: bool,
    /// Diagnostics of models that do not load, each once, with the commits it applies to
    /// (printed by `print_diagnostics` when the walk is done).
    diagnostics: std::cell::RefCell<Vec<(String, Vec<String>)>>,
}

/// A model file `entries` leaves out, with the reason.
pub type LeftOut = (PathBuf, String);

/// The configuration that applies at a commit, and a note when it was not its own file.
pub struct Models {
    pub config: Config,
    pub note: Option<String>,
}

/// One model checked at one commit: the stored result (what `check --format json` prints
/// for it) and what the command needs to decide its exit status.
pub struct Checked {
    pub model: String,
    /// The result as stored in the cache (its violations new against `--compare-with`,
    /// when given).
    pub result: ModelResult,
    /// Reused without checking anything (unchanged content, or already in the cache).
    pub reused: bool,
    /// Violations that are new (not at the base, or not at `--compare-with`).
    pub new_violations: usize,
    pub elapsed: Duration,
    /// A full check of the same commit disagreed (with --audit): what differed.
    pub audit_failure: Option<String>,
}

/// A run that read or wrote records ends by telling the store which records this clone's
/// branch tips need and by keeping the records within their size budget, still holding the
/// cache's lock (`cli::cache::after_run`).
impl Drop for Session {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            super::cache::after_run(self);
        }
    }
}

impl Session {
    /// Opens the repository containing `cwd` and its cache (taking the cache's lock), with
    /// the user's record store unless it is turned off (`user::store_location`). A store
    /// that cannot be used leaves the records in the cache, with a warning.
    pub fn open(cwd: &Path) -> anyhow::Result<Session> {
        Session::open_with(cwd, true)
    }

    /// `open`; `store`: use the user's record store (else the records stay in the
    /// repository's own cache).
    pub fn open_with(cwd: &Path, store: bool) -> anyhow::Result<Session> {
        let repo = Repo::discover(cwd)?;
        let root = repo
            .workdir()
            .context("a bare repository has no work tree: run git rmc inside a clone")?;
        let configured = std::fs::read_to_string(root.join(config::FILE_NAME))
            .ok()
            .and_then(|t| Config::parse(&t, config::FILE_NAME).ok());
        let cache_dir = configured.as_ref().and_then(|c| c.cache_dir.clone());
        let dir = crate::cache::location(&root, cache_dir.as_deref());
        let (mut cache, note) = Cache::open(&dir, CACHE_WAIT)
            .with_context(|| format!("cannot use the cache at {}", dir.display()))?;
        if let Some(n) = note {
            eprintln!("note: {n}");
        }
        if let Some(store) = super::user::store_location(&root).filter(|_| store) {
            if let Err(e) = cache.use_store(&store, CACHE_WAIT) {
                eprintln!(
                    "warning: cannot use the record store at {} ({e}): records are kept in {} \
                     (set {}=none to say so)",
                    store.display(),
                    dir.display(),
                    super::user::ENV_STORE
                );
            }
        }
        let budget = super::user::budget(configured.and_then(|c| c.cache.max_size));
        Ok(Session {
            repo,
            root,
            cache,
            budget,
            paths: Vec::new(),
            algorithm: None,
            audit: false,
            retry_incomplete: false,
            diagnostics: Default::default(),
        })
    }

    fn read(&self, at: At, path: &Path) -> std::io::Result<String> {
        match at {
            At::Commit(c) => self
                .repo
                .tree_files(c)
                .map_err(std::io::Error::other)?
                .read(path),
            At::WorkTree => std::fs::read_to_string(self.root.join(path)),
        }
    }

    fn files(&self, at: At) -> anyhow::Result<Vec<PathBuf>> {
        match at {
            At::Commit(c) => Ok(self.repo.list_files(c)?),
            At::WorkTree => {
                let mut out = Vec::new();
                walk_dir(&self.root, &self.root, &mut out);
                Ok(out)
            }
        }
    }

    /// The models checked at `at`: its `.rmc.toml`, else the work tree's, else its one model
    /// file; `-- PATHS` restrict them, and a path naming a model file the configuration
    /// does not list is checked with default options.
    pub fn models(&self, at: At) -> anyhow::Result<Models> {
        let name = config::FILE_NAME;
        let (config, _origin, mut note) = match self.read(at, Path::new(name)) {
            Ok(text) => {
                let origin = match at {
                    At::Commit(c) => format!("{name} at {}", c.short()),
                    At::WorkTree => name.to_string(),
                };
                (Config::parse(&text, &origin)?, origin, None)
            }
            Err(_) => match std::fs::read_to_string(self.root.join(name)) {
                Ok(text) => (
                    Config::parse(&text, name)?,
                    name.to_string(),
                    Some(format!("{name} read from the work tree")),
                ),
                Err(_) => {
                    let (found, _) = self.entries(at)?;
                    match (found.as_slice(), self.paths.is_empty()) {
                        (_, false) => (Config::default(), "the command line".into(), None),
                        ([one], true) => (
                            Config::single(one),
                            "the only model file".into(),
                            Some(format!(
                                "no {name}: checking {}, the only model file (git rmc init writes a configuration)",
                                one.display()
                            )),
                        ),
                        ([], true) => anyhow::bail!(
                            "no {name} and no model file (*.pml, *.prom, *.pr) to check"
                        ),
                        (many, true) => anyhow::bail!(
                            "no {name}, and {} model files: run `git rmc init` to list the ones to check, or name them after --",
                            many.len()
                        ),
                    }
                }
            },
        };
        let mut config = config;
        if !self.paths.is_empty() {
            let mut chosen: Vec<ModelConfig> = config
                .models
                .iter()
                .filter(|m| {
                    self.paths
                        .iter()
                        .any(|p| m.entry.starts_with(p) || p == &m.entry)
                })
                .cloned()
                .collect();
            for p in &self.paths {
                let listed = config.models.iter().any(|m| m.entry.starts_with(p));
                if !listed && is_model_file(p) {
                    chosen.push(ModelConfig::new(p.clone()));
                }
            }
            if chosen.is_empty() {
                anyhow::bail!(
                    "no model matches {}",
                    self.paths
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            config.models = chosen;
            note = None;
        }
        Ok(Models { config, note })
    }

    /// The files at `at`: a commit's tree, or the work tree.
    fn provider(&self, at: At) -> anyhow::Result<Files<'_>> {
        Ok(match at {
            At::Commit(c) => Files::Tree(self.repo.tree_files(c)?),
            At::WorkTree => Files::Disk(RootedDisk(self.root.clone())),
        })
    }

    /// The model files at `at` that no other model file includes and that have a process
    /// to run: the entry files. The others are returned with the reason they are not.
    pub fn entries(&self, at: At) -> anyhow::Result<(Vec<PathBuf>, Vec<LeftOut>)> {
        let models: Vec<PathBuf> = self
            .files(at)?
            .into_iter()
            .filter(|p| is_model_file(p))
            .collect();
        let provider = self.provider(at)?;
        let mut left_out = Vec::new();
        let entries = entry_files(&models, &provider);
        for m in &models {
            if !entries.contains(m) {
                left_out.push((m.clone(), "included by another model file".to_string()));
            }
        }
        let mut runnable = Vec::new();
        for e in entries {
            match crate::promela::has_process(&e, &provider, &PpOptions::default()) {
                Ok(true) => runnable.push(e),
                Ok(false) => left_out.push((
                    e,
                    "no process to run (no active proctype or init): declarations or inlines \
                     that models include"
                        .to_string(),
                )),
                // Listed all the same: a check will show the error where it is.
                Err(_) => runnable.push(e),
            }
        }
        left_out.sort();
        Ok((runnable, left_out))
    }

    /// The cache key of a model: its name (so a renamed entry file keeps its records).
    fn key(model: &ModelConfig) -> String {
        model.name.clone()
    }

    /// The stored result of a model at a commit; one that does not read (an older or
    /// corrupt file) is as none.
    fn result_at(&self, c: CommitId, key: &str) -> Option<ModelResult> {
        let v = self.cache.get_result(&c.hex(), key).ok()??;
        serde_json::from_value(v).ok()
    }

    /// The nearest first-parent ancestor of `from` (not `from` itself) with a complete
    /// result for the model: (commit, its stored result).
    fn base_result(&self, from: CommitId, key: &str) -> Option<(CommitId, ModelResult)> {
        let mut c = from;
        for _ in 0..MAX_ANCESTORS {
            let info = self.repo.commit(c).ok()?;
            c = *info.parents.first()?;
            if let Some(r) = self.result_at(c, key) {
                if r.doc.complete && r.hash.is_some() {
                    return Some((c, r));
                }
            }
        }
        None
    }

    /// Whether a stored result of the content at hand serves this check: a complete one
    /// always; one a limit cut while the same limits are in force, unless the command asks
    /// for incomplete checks to run again.
    fn reusable(&self, r: &ModelResult, limits: &str, claims: &str) -> bool {
        r.claims_key.as_deref() == Some(claims)
            && (r.doc.complete || (!self.retry_incomplete && r.limits.as_deref() == Some(limits)))
    }

    /// The nearest first-parent ancestor of `at` (HEAD and its ancestors for the work tree)
    /// whose result is of content `hash` and reusable (see `reusable`): (commit, its stored
    /// result). A complete one counts only when its record is in the cache, for the next
    /// check to build on.
    fn seen_before(
        &self,
        at: At,
        key: &str,
        hash: &str,
        limits: &str,
        claims: &str,
    ) -> Option<(CommitId, ModelResult)> {
        let mut c = match at {
            At::Commit(c) => *self.repo.commit(c).ok()?.parents.first()?,
            At::WorkTree => self.repo.head().ok()??,
        };
        for _ in 0..MAX_ANCESTORS {
            if let Some(r) = self.result_at(c, key) {
                let recorded = !r.doc.complete || self.cache.has_record(key, hash);
                if r.hash.as_deref() == Some(hash) && self.reusable(&r, limits, claims) && recorded
                {
                    return Some((c, r));
                }
            }
            c = *self.repo.commit(c).ok()?.parents.first()?;
        }
        None
    }

    /// The base for a check at `at`: the record of the nearest first-parent ancestor that has
    /// one (for the work tree, HEAD counts too).
    fn base(&self, at: At, key: &str) -> Option<(CommitId, ModelResult)> {
        match at {
            At::Commit(c) => self.base_result(c, key),
            At::WorkTree => {
                let head = self.repo.head().ok()??;
                match self.result_at(head, key) {
                    Some(r) if r.doc.complete && r.hash.is_some() => Some((head, r)),
                    _ => self.base_result(head, key),
                }
            }
        }
    }

    /// The record the cache keeps of content `hash`, as a base; None, after a warning that
    /// says why, when it cannot be used (a bad record costs time, never a verdict).
    fn load_base(&self, key: &str, hash: &str) -> Option<Base> {
        let file = self.cache.open_record(key, hash).ok()??;
        // (Its states are read when the plan needs them: a full check, or auto finding the
        // new version small, never does.)
        match Base::lazy(&self.cache.record_path(key, hash), &file) {
            Ok(b) => Some(b),
            Err(why) => {
                eprintln!(
                    "warning: the cached record of {key} ({hash}) is not reused ({why}); \
                     checking in full"
                );
                None
            }
        }
    }

    /// The record of this very content, when the cache holds one (checked in another clone
    /// or worktree, whose record the store shares, or at a commit whose result is gone):
    /// the cheapest base there is, as nothing in it changed. Not for `--audit` nor a full
    /// check asked for. New and fixed violations are then told against the base commit's
    /// result (`ModelResult::against`), not against this record.
    fn same_content(&self, key: &str, hash: &str, model: &ModelConfig) -> Option<Base> {
        let full = self.algorithm.unwrap_or(model.algorithm) == Algorithm::Full;
        if self.audit || full || !self.cache.has_record(key, hash) {
            return None;
        }
        self.load_base(key, hash)
    }

    fn note_diagnostic(&self, text: String, at: At) {
        let where_ = match at {
            At::Commit(c) => c.short(),
            At::WorkTree => "the work tree".into(),
        };
        let mut seen = self.diagnostics.borrow_mut();
        match seen.iter_mut().find(|(t, _)| *t == text) {
            Some((_, ats)) => {
                if !ats.contains(&where_) {
                    ats.push(where_)
                }
            }
            None => seen.push((text, vec![where_])),
        }
    }

    /// Prints the diagnostics of the models that did not load, each once, with the commits
    /// it applies to.
    pub fn print_diagnostics(&self) {
        for (text, ats) in self.diagnostics.borrow_mut().drain(..) {
            eprint!("{text}");
            let n = ats.len();
            let list = if n > 12 {
                format!("{}, … ({n} in all)", ats[..10].join(", "))
            } else {
                ats.join(", ")
            };
            let word = if n == 1 { "commit" } else { "commits" };
            if ats.iter().any(|a| a == "the work tree") && n == 1 {
                eprintln!("  = in the work tree\n");
            } else {
                eprintln!("  = at {word} {list}\n");
            }
        }
    }

    /// Checks one model at `at`. `compare` names a commit whose violations decide which
    /// ones are new (the pre-push hook's remote tip); otherwise the base's do.
    pub fn check(
        &self,
        at: At,
        model: &ModelConfig,
        compare: Option<CommitId>,
        bar: &mut super::progress::Bar,
    ) -> anyhow::Result<Checked> {
        let started = Instant::now();
        let key = Self::key(model);
        let pp = PpOptions {
            defines: model.defines.clone(),
            include_dirs: model.include.clone(),
        };
        let stored = |r: &ModelResult| -> anyhow::Result<()> {
            if let At::Commit(c) = at {
                self.cache
                    .put_result(&c.hex(), &key, &serde_json::to_value(r)?)?;
            }
            Ok(())
        };
        let done = |result: ModelResult, reused: bool| Checked {
            model: model.name.clone(),
            new_violations: result.new_violations,
            result,
            reused,
            elapsed: started.elapsed(),
            audit_failure: None,
        };
        let entry = model.entry.display().to_string();
        // The model's files, from the commit's tree (never the work tree) or the work tree.
        let provider = self.provider(at)?;
        if provider.read(&model.entry).is_err() {
            let r = ModelResult::without_check(&model.name, &entry, ModelVerdict::Absent, None);
            stored(&r)?;
            return Ok(done(r, false));
        }
        // With the claims of its `ltl` formulas, unless none is checked; a formula that
        // cannot be translated leaves the model's safety check (the formula is then named
        // among the claims not checked, and its diagnostic shown).
        let with_claims = (model.checks.claims != config::ClaimSet::None)
            .then(|| crate::load_with_claims(&model.entry, &provider, &pp));
        // (`shown`: the diagnostics of the load with claims were shown, the plain load's
        // among them.)
        let (loaded, shown) = match with_claims {
            Some(l) if l.program.is_some() => (l, false),
            Some(l) => {
                let plain = crate::load(&model.entry, &provider, &pp);
                if plain.program.is_some() {
                    let text =
                        crate::report::diagnostics::render(&l.files, &l.diags, super::color());
                    self.note_diagnostic(text, at);
                }
                (plain, true)
            }
            None => (crate::load(&model.entry, &provider, &pp), false),
        };
        if loaded.program.is_some() && !shown && !loaded.diags.is_empty() {
            // Warnings of a model that loads (an `ltl` formula spin reads otherwise than it
            // is written, a macro redefined): shown once, with the commits they hold at.
            let text =
                crate::report::diagnostics::render(&loaded.files, &loaded.diags, super::color());
            self.note_diagnostic(text, at);
        }
        let Some(program) = loaded.program else {
            let text =
                crate::report::diagnostics::render(&loaded.files, &loaded.diags, super::color());
            self.note_diagnostic(text, at);
            let first = loaded
                .diags
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.short(&loaded.files))
                .unwrap_or_default();
            let r =
                ModelResult::without_check(&model.name, &entry, ModelVerdict::Error, Some(first));
            stored(&r)?;
            return Ok(done(r, false));
        };
        let (memory, memory_origin) =
            super::memory::resolve(model.limits.memory).map_err(anyhow::Error::msg)?;
        let limits = limit_sources(model, memory_origin);
        let opts = model.search_options(memory);
        let sources = check::sources_of(&model.entry, &loaded.files, &pp);
        let hash = sources.content_hash(&check::checks_of(&opts));
        let compare_keys = compare.map(|c| self.keys_at(c, &key));
        // What is returned (and printed) is new against the commit compared with, when
        // there is one; what is stored is new against the base.
        let versus_compare = |mut r: ModelResult| -> ModelResult {
            if let Some(b) = &compare_keys {
                r.mark_new(b);
            }
            r
        };
        let limits_key = limits_key(model);
        let claims_key = claims_key(model);
        // Already checked at this commit, with the same content (and, for a check a limit
        // cut, the same limits).
        if let At::Commit(c) = at {
            if let Some(r) = self.result_at(c, &key) {
                if r.hash.as_deref() == Some(hash.as_str())
                    && self.reusable(&r, &limits_key, &claims_key)
                    && !self.audit
                {
                    return Ok(done(versus_compare(r), true));
                }
            }
        }
        let base = self.base(at, &key);
        // The content did not change since the base: its result is this commit's.
        if let Some((bc, b)) = &base {
            if b.hash.as_deref() == Some(hash.as_str())
                && b.claims_key.as_deref() == Some(claims_key.as_str())
                && !self.audit
            {
                let mut r = b.clone();
                r.doc.mode = "reused".into();
                r.reused_from = Some(bc.hex());
                r.base_commit = Some(bc.hex());
                // Nothing changed since the base: nothing is new, nothing was fixed.
                let keys = r.keys.clone();
                r.mark_new(&keys);
                r.doc.fixed = Vec::new();
                stored(&r)?;
                return Ok(done(versus_compare(r), true));
            }
        }
        // The same content was checked further back (a revert, a fix that restores a
        // version checked before): that check's result is this one's, with its violations
        // new or fixed against the base as a check against the base tells them, by kind and
        // stable location. (Its record is in the cache under the content hash, for the next
        // check to build on.)
        if !self.audit {
            if let Some((xc, x)) = self.seen_before(at, &key, &hash, &limits_key, &claims_key) {
                let mut r = x.against(base.as_ref().map(|(_, r)| r));
                r.doc.mode = "reused".into();
                r.reused_from = Some(xc.hex());
                r.base_commit = base.as_ref().map(|(bc, _)| bc.hex());
                stored(&r)?;
                // As for a check that runs: new against the commit compared with, if any.
                return Ok(done(versus_compare(r), true));
            }
        }
        let same = self.same_content(&key, &hash, model);
        let same_content = same.is_some();
        let base_rec = same.or_else(|| {
            base.as_ref()
                .and_then(|(_, r)| r.hash.as_deref().and_then(|h| self.load_base(&key, h)))
        });
        let request = Request {
            program: program.clone(),
            sources: sources.clone(),
            opts: opts.clone(),
            algorithm: Some(self.algorithm.unwrap_or(model.algorithm)),
            base: base_rec,
            short_trails: false,
            window: None,
            claim: ClaimChoice::Safety,
        };
        bar.prefix = match at {
            At::Commit(c) => format!("{} {}: ", c.short(), model.name),
            At::WorkTree => format!("work tree {}: ", model.name),
        };
        let checked = super::error::checked(check::check(request, &mut |s| bar.update(s)))?;
        bar.finish();
        let mut r = ModelResult {
            doc: crate::report::verify::document(&entry, &checked, &loaded.files, &limits),
            keys: checked.keys(),
            hash: Some(hash.clone()),
            limits: Some(limits_key),
            claims_key: Some(claims_key.clone()),
            base_commit: base.as_ref().map(|(bc, _)| bc.hex()),
            ..ModelResult::default()
        };
        r.new_violations = r.doc.violations.iter().filter(|v| v.new).count();
        if let (None, Some(why)) = (&checked.record, &checked.no_record) {
            eprintln!(
                "note: {}: no record kept for the next check: {why}",
                model.name
            );
        }
        if let Some(rec) = &checked.record {
            r.record_states = Some(rec.fingerprints.len() as u64);
            // Beside its base in the cache: the graph is written on it (`Record::write_beside`).
            // (A record of this very content is there already.)
            if !same_content {
                self.cache
                    .put_record_with(&key, &hash, |target, w| rec.write_beside(target, w))?;
            }
        }
        if same_content {
            r = r.against(base.as_ref().map(|(_, b)| b));
        }
        // (What the claims below cost is what a full check's claims cost: with --audit they
        // are searched whole, as a full check searches them.)
        let safety_done = started.elapsed();
        // Then each claim on its own (a full product search each, acceptance cycles
        // included); its violations are new unless the base's check of the same claim had
        // them.
        let wanted = |n: &str| model.checks.claims.includes(n);
        let mut each = crate::cli::claims::checkable(&program, wanted);
        if let Some(labels) = crate::cli::claims::accept_labels(&program) {
            // Named among the claims not checked until its search runs, as the others are.
            r.doc.claims_not_checked.push(labels.label());
            if wanted(crate::cli::claims::ACCEPT_LABELS) {
                each.push(labels);
            }
        }
        if !each.is_empty() {
            let cx = crate::cli::claims::Context {
                program: &program,
                sources: &sources,
                opts: &opts,
                window: None,
                name: &entry,
                files: &loaded.files,
                limits: &limits,
                over: checked
                    .record
                    .as_ref()
                    .filter(|_| checked.complete() && !self.audit)
                    .map(|r| crate::cli::claims::Over::of(&checked.program, r)),
            };
            let versus = base
                .as_ref()
                .map(|(_, b)| b.keys.clone())
                .unwrap_or_default();
            let context = crate::cli::claims::product_context(&program);
            // Only against the base whose record the safety check ran on.
            let base_doc = base.as_ref().map(|(_, b)| b).filter(|_| !same_content);
            for claim in &each {
                r.doc.claims_not_checked.retain(|n| n != &claim.label());
                // The product is the base's where the graph is (its vectors shifted by
                // the same amount each, across a layout change that kept it).
                let shift = match checked.graph_unchanged {
                    true => Some((0, 0)),
                    false => checked
                        .claim_shifts
                        .iter()
                        .find(|(n, _)| n == &claim.name)
                        .map(|x| x.1),
                };
                let carried = crate::cli::claims::carried(
                    shift.filter(|_| checked.complete() && !self.audit),
                    base_doc,
                    &context,
                    &claims_key,
                    claim,
                );
                if let Some(doc) = carried {
                    r.doc.claims.push(doc);
                    continue;
                }
                let c = crate::cli::claims::check_one(&cx, claim, bar)?;
                add_claim(&mut r, c, &versus);
            }
            r.claim_context = Some(context);
        }
        // Non-progress cycles (pan -l): spin's np_ claim, with the model's own claims left
        // out, as a claim of its own.
        if model.checks.non_progress {
            let np = crate::load_for_non_progress(&model.entry, &provider, &pp);
            if let Some(np_program) = &np.program {
                // Over the safety check's graph too, where there is one: the claim's program
                // with the safety check's location ids (its processes are the model's).
                let graph = checked
                    .record
                    .as_ref()
                    .filter(|_| checked.complete() && !self.audit);
                let with_ids = graph.and_then(|r| {
                    let mut p = np_program.clone();
                    crate::rmc::adopt_system_ids(&mut p, &checked.program).then_some((p, r))
                });
                let cx = crate::cli::claims::Context {
                    program: np_program,
                    sources: &sources,
                    opts: &opts,
                    window: None,
                    name: &entry,
                    files: &np.files,
                    limits: &limits,
                    over: with_ids.as_ref().map(|(p, r)| crate::cli::claims::Over {
                        program: p,
                        record: r,
                        system: &checked.program,
                    }),
                };
                let claim = crate::cli::claims::Claim {
                    name: crate::explore::claim::NP_CLAIM.to_string(),
                    formula: None,
                    labels: false,
                };
                let versus = base
                    .as_ref()
                    .map(|(_, b)| b.keys.clone())
                    .unwrap_or_default();
                let c = crate::cli::claims::check_one(&cx, &claim, bar)?;
                add_claim(&mut r, c, &versus);
            }
        }
        // The model's verdict is a pass only when its safety check and every claim passed.
        r.doc.verdict = r.verdict();
        // The check's own time, before any audit: what it is compared with and reported as.
        let own = started.elapsed();
        let mut audit_failure = None;
        if self.audit {
            // Timed as the check it stands for: its base record read too (a full check
            // reads it to tell new violations from old).
            let t = Instant::now();
            let full = Request {
                program,
                sources,
                opts,
                algorithm: Some(Algorithm::Full),
                base: base
                    .as_ref()
                    .and_then(|(_, b)| b.hash.as_deref().and_then(|h| self.load_base(&key, h))),
                short_trails: false,
                window: None,
                claim: ClaimChoice::Safety,
            };
            let full = super::error::checked(check::check(full, &mut |_| {}))?;
            // A full check writes its record, as this check did.
            if let Some(rec) = &full.record {
                std::hint::black_box(rec.to_bytes());
            }
            // Its claims: those this check searched, as a full check searches them.
            let claims = own.saturating_sub(safety_done);
            r.full_ms = Some((t.elapsed() + claims).as_millis() as u64);
            r.audit = Some(match check::audit(&checked, &full) {
                check::Audit::Agrees => "agrees with a full check".to_string(),
                check::Audit::NotCompared(why) => why,
                check::Audit::Differs(why) => {
                    audit_failure = Some(why.clone());
                    why
                }
            });
        }
        r.elapsed_ms = own.as_millis() as u64;
        stored(&r)?;
        let mut c = done(versus_compare(r), false);
        c.elapsed = own;
        c.audit_failure = audit_failure;
        Ok(c)
    }

    /// The violations of a model at a commit, as its stored result names them.
    fn keys_at(&self, c: CommitId, key: &str) -> Vec<RecViolation> {
        self.result_at(c, key).map(|r| r.keys).unwrap_or_default()
    }
}

/// A claim's check added to a model's result: its violations new unless `versus` (the
/// base's, claims' included) has them.
fn add_claim(r: &mut ModelResult, mut c: crate::cli::claims::ClaimCheck, versus: &[RecViolation]) {
    let flags = check::new_against(&c.keys, versus);
    for (v, n) in c.summary.violations.iter_mut().zip(&flags) {
        v.new = *n;
    }
    r.new_violations += flags.iter().filter(|&&n| n).count();
    r.keys.extend(c.keys);
    r.doc.claims.push(c.summary);
}

/// Which claims a model's check checks, and how: a result is reused only under the same.
/// (`labels`: a model's accept labels without a claim are a claim of their own; results of
/// checks that left them out are not reused.)
fn claims_key(model: &ModelConfig) -> String {
    let c = &model.checks;
    format!(
        "claims={:?} fair={} non_progress={} labels",
        c.claims, c.fair, c.non_progress
    )
}

/// The limits in force for a model, as settings (`memory=auto`, not the bytes it resolved
/// to, which move with the machine's load): a result a limit cut is reused while they stay.
fn limits_key(model: &ModelConfig) -> String {
    let l = &model.limits;
    let memory = match l.memory {
        config::MemoryLimit::Auto => match std::env::var("GIT_RMC_MEMORY_LIMIT") {
            Ok(v) => format!("env:{v}"),
            Err(_) => match super::user::memory() {
                Some((n, _)) => format!("user:{n}"),
                None => "auto".into(),
            },
        },
        config::MemoryLimit::Bytes(n) => n.to_string(),
    };
    let opt = |v: Option<u64>| v.map_or("none".to_string(), |n| n.to_string());
    format!(
        "max_depth={} max_states={} max_errors={} memory={memory}",
        opt(l.max_depth),
        opt(l.max_states),
        opt(l.max_errors)
    )
}

/// Where a model's limits came from (its `[model.limits]` in `.rmc.toml`, else the defaults)
/// and how to raise each, for the text of a check a limit cut.
fn limit_sources(model: &ModelConfig, memory_origin: String) -> LimitSources {
    let file = config::FILE_NAME;
    let key = |k: &str| {
        LimitSource::new(
            file,
            format!("to go further, raise {k} under [model.limits] in {file} (or remove it)"),
        )
    };
    let memory = match model.limits.memory {
        config::MemoryLimit::Bytes(_) => LimitSource::new(
            file,
            format!(
                "to go further, raise memory under [model.limits] in {file}, on a machine \
                 that has it"
            ),
        ),
        config::MemoryLimit::Auto => LimitSource::new(
            memory_origin,
            format!(
                "to go further, set memory = \"SIZE\" under [model.limits] in {file} (or \
                 GIT_RMC_MEMORY_LIMIT=SIZE) on a machine with more memory"
            ),
        ),
    };
    LimitSources {
        depth: key("max_depth"),
        states: key("max_states"),
        errors: key("max_errors"),
        memory,
    }
}

/// Of `models`, those no other one includes (through the preprocessor, from `provider`).
pub fn entry_files(models: &[PathBuf], provider: &dyn FileProvider) -> Vec<PathBuf> {
    let mut included = std::collections::HashSet::new();
    for m in models {
        let mut files = crate::promela::source::SourceFiles::default();
        let _ =
            crate::promela::preprocess::preprocess(m, provider, &PpOptions::default(), &mut files);
        for f in files.files.iter().skip(1) {
            included.insert(crate::promela::source::normalize(Path::new(&f.name)));
        }
    }
    models
        .iter()
        .filter(|m| !included.contains(&crate::promela::source::normalize(m)))
        .cloned()
        .collect()
}

pub fn is_model_file(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MODEL_EXTENSIONS.contains(&e))
}

/// Files under `dir` relative to `root`, skipping `.git` and the cache.
fn walk_dir(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == ".git" || name == ".rmc" || name == "target" {
            continue;
        }
        if p.is_dir() {
            walk_dir(root, &p, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_path_buf());
        }
    }
    out.sort();
}

/// The work tree's files, by paths relative to its root.
struct RootedDisk(PathBuf);

/// Where a model's files are read from.
enum Files<'r> {
    Tree(crate::git::TreeFiles<'r>),
    Disk(RootedDisk),
}

impl FileProvider for Files<'_> {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        match self {
            Files::Tree(t) => t.read(path),
            Files::Disk(d) => d.read(path),
        }
    }
}

impl FileProvider for RootedDisk {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        crate::promela::source::DiskProvider.read(&self.0.join(path))
    }
}
