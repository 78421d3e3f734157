//! Outcome-to-exit-code policy, in one place: 0 success, 1 a check found a violation,
//! 2 usage, configuration or model error, 3 incomplete, 4 an internal error (a bug to report).

/// What a command ended with.
#[derive(Debug)]
pub enum Outcome {
    Ok,
    /// A model or usage error, already reported to the user.
    ModelError,
    /// A check found a violation.
    Violation,
    /// A limit cut the search and no violation was found.
    Incomplete,
}

/// A broken invariant of git rmc itself (a trail that does not replay, say): not the user's
/// fault, and never reported as a model error.
#[derive(Debug, thiserror::Error)]
#[error(
    "internal error: {0}\nthis is a bug in git rmc; please report it with the model that shows it"
)]
pub struct InternalError(pub String);

pub fn exit_code(r: anyhow::Result<Outcome>) -> i32 {
    match r {
        Ok(Outcome::Ok) => 0,
        Ok(Outcome::ModelError) => 2,
        Ok(Outcome::Violation) => 1,
        Ok(Outcome::Incomplete) => 3,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<InternalError>().is_some() {
                4
            } else {
                2
            }
        }
    }
}
