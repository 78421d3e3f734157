//! Outcome-to-exit-code policy, in one place: 0 success, 1 a check found a violation,
//! 2 usage, configuration or model error, 3 incomplete.

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

pub fn exit_code(r: anyhow::Result<Outcome>) -> i32 {
    match r {
        Ok(Outcome::Ok) => 0,
        Ok(Outcome::ModelError) => 2,
        Ok(Outcome::Violation) => 1,
        Ok(Outcome::Incomplete) => 3,
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    }
}
