//! Outcome-to-exit-code policy, in one place: 0 success, 1 a check found a violation that
//! fails it, 2 a usage, configuration, git or model error, 3 incomplete, 4 an internal error
//! (a bug to report), 5 the cache or another file could not be read or written (the
//! machine's trouble: a full disk, a permission). Library errors keep their own types and
//! are sorted into kinds here, at the edge.

use crate::explore::Verdict;

/// What a command ended with, when it ended normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// A model or usage error, already reported to the user.
    ModelError,
    /// A check found a violation that fails it.
    Violation,
    /// A limit cut the search and no violation was found.
    Incomplete,
}

/// Who can fix an error, which decides its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The command line.
    Usage,
    /// `.rmc.toml` or the user's settings.
    Config,
    /// A model that does not load.
    Model,
    /// The repository (not one, an unknown revision).
    Git,
    /// The cache or another file: could not be read or written.
    CacheIo,
    /// A broken invariant of git rmc itself.
    Internal,
}

impl ErrorKind {
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Usage | ErrorKind::Config | ErrorKind::Model | ErrorKind::Git => 2,
            ErrorKind::Internal => 4,
            ErrorKind::CacheIo => 5,
        }
    }
}

/// A broken invariant of git rmc itself (a trail that does not replay, say): not the user's
/// fault, and never reported as a model error.
#[derive(Debug, thiserror::Error)]
#[error(
    "internal error: {0}\nthis is a bug in git rmc; please report it with the model that shows it"
)]
pub struct InternalError(pub String);

/// The kind of an error, from the first error of its chain whose type says.
pub fn kind_of(e: &anyhow::Error) -> ErrorKind {
    use crate::rmc::check::CheckError;
    for cause in e.chain() {
        if cause.downcast_ref::<InternalError>().is_some() {
            return ErrorKind::Internal;
        }
        if let Some(c) = cause.downcast_ref::<CheckError>() {
            return match c {
                CheckError::Internal(_) => ErrorKind::Internal,
                CheckError::Layout(_) => ErrorKind::Model,
            };
        }
        if cause.downcast_ref::<crate::cache::CacheError>().is_some()
            || cause.downcast_ref::<std::io::Error>().is_some()
        {
            return ErrorKind::CacheIo;
        }
        if cause.downcast_ref::<crate::config::ConfigError>().is_some() {
            return ErrorKind::Config;
        }
        if cause.downcast_ref::<crate::git::GitError>().is_some() {
            return ErrorKind::Git;
        }
    }
    ErrorKind::Usage
}

/// A check's result as the command takes it: a broken invariant of the engine is an
/// internal error, a model it cannot lay out a model error.
pub fn checked(
    r: Result<crate::rmc::check::Checked, crate::rmc::check::CheckError>,
) -> anyhow::Result<crate::rmc::check::Checked> {
    r.map_err(|e| match e {
        crate::rmc::check::CheckError::Internal(why) => InternalError(why).into(),
        other => anyhow::Error::from(other),
    })
}

/// The outcome of one check's verdict; `fails` says whether its violations fail it (not
/// when `fail_on = "new"` and none is new).
pub fn of_verdict(v: Verdict, fails: bool) -> Outcome {
    match v {
        Verdict::Pass => Outcome::Ok,
        Verdict::Fail if fails => Outcome::Violation,
        Verdict::Fail => Outcome::Ok,
        Verdict::Incomplete => Outcome::Incomplete,
    }
}

/// The outcome of a model's verdict at a commit: one that does not load is a model error,
/// one that is not there passes.
pub fn of_model(v: crate::report::verify::ModelVerdict, fails: bool) -> Outcome {
    use crate::report::verify::ModelVerdict as M;
    match v {
        M::Error => Outcome::ModelError,
        M::Fail if fails => Outcome::Violation,
        M::Incomplete => Outcome::Incomplete,
        M::Pass | M::Fail | M::Absent => Outcome::Ok,
    }
}

/// The outcome of several: an error beats a failure, which beats an incomplete search.
pub fn worst(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
    let rank = |o: &Outcome| match o {
        Outcome::ModelError => 3,
        Outcome::Violation => 2,
        Outcome::Incomplete => 1,
        Outcome::Ok => 0,
    };
    outcomes
        .into_iter()
        .max_by_key(|o| rank(o))
        .unwrap_or(Outcome::Ok)
}

pub fn exit_code(r: anyhow::Result<Outcome>) -> i32 {
    match r {
        Ok(Outcome::Ok) => 0,
        Ok(Outcome::ModelError) => 2,
        Ok(Outcome::Violation) => 1,
        Ok(Outcome::Incomplete) => 3,
        Err(e) => {
            eprintln!("error: {e:#}");
            kind_of(&e).exit_code()
        }
    }
}
