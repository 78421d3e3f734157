//! LTL to never claim, exactly as spin 6.5.2 translates (`spin -f`), so that the automaton a
//! model is checked against has spin's states and edges in spin's order and the product has
//! pan's state counts.
//!
//! The phases are spin's: [`lex`] and [`parse`] read the formula, simplifying as they build
//! ([`rewrite`]: negations pushed inward, spin's algebraic rules); [`canon`] keeps `&&`/`||`
//! trees in canonical order; [`tableau`] builds the generalised Büchi automaton of Gerth, Peled,
//! Vardi and Wolper and labels its acceptance classes; [`buchi`] degeneralises and reduces it;
//! [`emit`] prints it. All phases share one arena of formula nodes ([`terms`]) and one cache of
//! canonical forms, whose order of use shapes the output, so the phases run in spin's order.
//! The behaviour follows the Debian build of spin 6.5.2: no `X` (it is built without `NXT`),
//! spin's optimisations on (no `NO_OPT`), uncluttering on (no `-X`).
//!
//! # Claims of a model's `ltl` formulas
//! For `ltl name { body }` (unnamed formulas are `ltl_0`, `ltl_1`, ... in source order), spin
//! prints the parsed body with its Promela printer, shows it as `ltl name: text`, translates
//! `!(` + text + `)` and writes the claim into `_spin_nvr.tmp`, which it then parses as a
//! `never` claim; the claims follow each other there in source order, each exactly
//! [`never_claim_for_ltl`]`(name, text)`. A formula the translator rejects stops spin. The text
//! is built as follows (observed with spin 6.5.2):
//! - a temporal or boolean operator has each operand in parentheses, one space around a
//!   binary operator and after a unary one: `[] (a)`, `<> (a)`, `! (a)`, `X (a)`, `(a) U (b)`,
//!   `(a) V (b)`, `(a) && (b)`, `(a) || (b)`, `(a) <-> (b)`;
//! - `a -> b` (and `a implies b`) is printed `(! (a)) || (b)`; `a W b` is printed
//!   `([] (a)) || ((a) U (b))`; the keywords `always`, `eventually`, `until`,
//!   `stronguntil`, `weakuntil`, `release`, `equivalent` are printed as `[]`, `<>`, `U`, `U`,
//!   `W` (so as above), `V`, `<->`;
//! - any other expression is printed as spin prints Promela expressions: a binary operator
//!   parenthesised without spaces, `(x<3)`, `((x+1)>(2*x))`; a negative constant `-(1)`;
//!   `true`/`false` as `1`/`0`; names, `len(q)`, `P[0]:x`, mtype names as written; a remote
//!   label `(P@done)`, `(P[0]@done)`.
//!
//! So `ltl p1 { [](x<3) }` prints `ltl p1: [] ((x<3))` and its claim starts
//! `never p1 {    /* !([] ((x<3))) */`; `ltl { b -> <> c }` prints `ltl ltl_0: (! (b)) || (<> (c))`.
//!
//! # Limits
//! Formulas longer than 65,536 bytes, or with more than 10,000 nested factors, are rejected
//! (spin takes them); a translation stops at 25 million formula nodes (spin needs minutes
//! for formulas that come near). Translation runs on a
//! thread of its own with a large stack, so deep formulas cannot overflow the caller's.

mod buchi;
mod canon;
mod emit;
mod equal;
mod error;
mod lex;
mod parse;
mod rewrite;
mod tableau;
mod terms;

pub use error::LtlError;

use buchi::Automaton;
use emit::Output;
use error::Res;
use tableau::Tableau;
use terms::Terms;

/// Longest formula accepted, in bytes.
const MAX_FORMULA: usize = 65_536;
/// Stack of the translating thread: the phases recurse over formula trees.
const STACK: usize = 256 << 20;

/// What `spin -f formula` prints on standard output when it succeeds: the never claim (with
/// spin's rare notes, such as `warning: node ... not found`, where spin prints them).
pub fn translate(formula: &str) -> Result<String, LtlError> {
    run(None, formula.to_string()).map(|out| out.stdout)
}

/// The never claim spin writes into `_spin_nvr.tmp` for `ltl name { ... }`, given the
/// formula's text as spin prints it (`ltl name: text`; see the module documentation): the
/// translation of `!(text)`, starting `never name {    /* !(text) */`.
pub fn never_claim_for_ltl(name: &str, formula_text: &str) -> Result<String, LtlError> {
    run(Some(name.to_string()), format!("!({formula_text})")).map(|out| out.claim)
}

fn run(claim_name: Option<String>, formula: String) -> Result<Output, LtlError> {
    let worker = std::thread::Builder::new()
        .name("ltl".into())
        .stack_size(STACK)
        .spawn(move || translate_here(claim_name.as_deref().unwrap_or(""), &formula));
    match worker {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err(LtlError::Internal("the translator panicked".into()))),
        Err(e) => Err(LtlError::Internal(format!(
            "cannot start the translator thread: {e}"
        ))),
    }
}

fn translate_here(claim_name: &str, formula: &str) -> Res<Output> {
    // spin reads the formula as a C string and turns tabs and newlines into spaces.
    let formula = formula
        .split('\0')
        .next()
        .unwrap_or("")
        .replace(['\t', '\n'], " ");
    if formula.is_empty() {
        return Err(LtlError::Empty);
    }
    if formula.len() > MAX_FORMULA {
        return Err(LtlError::TooLarge(format!("more than {MAX_FORMULA} bytes")));
    }
    if !lex::balanced(formula.as_bytes()) {
        return Err(LtlError::Unbalanced);
    }
    let mut terms = Terms::new();
    let parsed = parse::parse(&mut terms, formula.as_bytes())?;
    let mut tableau = Tableau::build(&mut terms, parsed)?;
    let mut automaton = Automaton::from_tableau(&mut terms, &mut tableau)?;
    let init = automaton.reduce(&mut terms)?;

    let mut out = Output::default();
    for w in &tableau.warnings {
        out.note(w);
    }
    emit::header(&mut out, claim_name, &formula);
    for n in &automaton.notes {
        out.note(n);
    }
    emit::body(&mut terms, &mut automaton, init, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests;
