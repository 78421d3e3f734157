//! Why a formula has no never claim: the errors of the translator, each a formula that
//! `spin -f` rejects too (its messages are echoed, not copied byte for byte).

/// A formula the translator (like spin's) does not turn into a never claim.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LtlError {
    /// spin prints its usage text for an empty formula.
    #[error("empty formula")]
    Empty,
    /// The formula's parentheses do not pair up (spin counts them before parsing).
    #[error("parentheses not balanced")]
    Unbalanced,
    /// A lexical or syntax error at byte `offset` of the formula (spin's caret column).
    #[error("{message}{}{} (at byte {offset})", saw.as_ref().map_or(String::new(), |s| format!(", saw '{s}'")), hint(saw.as_deref()))]
    Syntax {
        message: String,
        /// The token spin names in its message, if any ("predicate", "end of formula", `X`...).
        saw: Option<String>,
        offset: usize,
    },
    /// A name inside a parenthesised predicate is 512 characters or longer.
    #[error("name '{0}' in ltl formula too long")]
    NameTooLong(String),
    /// A state of the tableau is labelled by 63 or more until-formulas.
    #[error("too many Untils")]
    TooManyUntils,
    /// The formula is beyond the sizes this translator accepts (spin may still translate it).
    #[error("formula too large: {0}")]
    TooLarge(String),
    /// A state spin's code would reach only by a fault of its own (it then stops too).
    #[error("internal error in the ltl translator: {0}")]
    Internal(String),
}

fn hint(saw: Option<&str>) -> &'static str {
    match saw {
        Some("X") => " (the next-time operator X is not supported, as in spin built without NXT)",
        Some("W") => {
            " (spin -f has no W; in a model, `a W b` is written `([] (a)) || ((a) U (b))`)"
        }
        _ => "",
    }
}

pub(super) type Res<T> = Result<T, LtlError>;

/// The internal error for a tree that lacks a child spin would dereference.
pub(super) fn missing(what: &str) -> LtlError {
    LtlError::Internal(format!("missing {what}"))
}
