//! The never claim as spin prints it: header comment, states from `T0_init` on in list order,
//! edges oldest first, each condition printed as a conjunction of literals and disjunctions
//! with spin's parentheses and spacing, edges into `accept_all` as
//! `atomic { (c) -> assert(!(c)) }`.
//!
//! Printing a condition canonicalises it once more, through the same cache as every other
//! phase, so it must happen in spin's order (each `atomic` condition is printed twice).

use super::buchi::{Automaton, ACCEPT_ALL};
use super::equal::Among;
use super::error::Res;
use super::terms::{NodeId, Op, Terms};

/// What spin writes: the claim (to its output file, or standard output for `spin -f`) and, on
/// standard output only, occasional notes.
#[derive(Default)]
pub(super) struct Output {
    /// Everything in order, as `spin -f` shows it.
    pub(super) stdout: String,
    /// The claim alone, as written into `_spin_nvr.tmp`.
    pub(super) claim: String,
}

impl Output {
    pub(super) fn claim(&mut self, s: &str) {
        self.stdout.push_str(s);
        self.claim.push_str(s);
    }

    pub(super) fn note(&mut self, s: &str) {
        self.stdout.push_str(s);
    }
}

pub(super) fn header(out: &mut Output, claim_name: &str, formula: &str) {
    out.claim(&format!("never {claim_name} {{    /* {formula} */\n"));
}

/// The states, from `T0_init` (index `init`) on, and the closing brace.
pub(super) fn body(
    t: &mut Terms,
    a: &mut Automaton,
    init: Option<usize>,
    out: &mut Output,
) -> Res<()> {
    if init.is_some_and(|i| a.states[i].accepting) {
        out.claim("accept_init:\n");
    }
    if init.is_none() && a.states.is_empty() {
        out.claim("\t0 /* false */;\n");
    } else {
        if let Some(i) = init {
            state(t, a, i, out)?;
        }
        for i in 0..a.states.len() {
            state(t, a, i, out)?;
        }
    }
    if a.hits_all {
        out.claim("accept_all:\n\tskip\n");
    }
    out.claim("}\n");
    Ok(())
}

fn state(t: &mut Terms, a: &mut Automaton, i: usize, out: &mut Output) -> Res<()> {
    let max_red = a.max_red;
    let s = &mut a.states[i];
    if !s.reachable {
        return Ok(());
    }
    s.reachable = false; // printed once
    out.claim(&format!("{}:\n", s.name));
    if let Some(rest) = s.name.strip_prefix("accept") {
        if max_red == 0 {
            out.claim(&format!("T0{rest}:\n"));
        }
    }
    out.claim("\tdo\n");
    let mut printed = 0;
    for tr in s.trans.iter().rev().filter(|tr| !tr.redundant) {
        let mut c = String::new();
        if &*tr.to == ACCEPT_ALL {
            c.push_str("\t:: atomic { (");
            condition(t, tr.cond, &mut c)?;
            c.push_str(") -> assert(!(");
            condition(t, tr.cond, &mut c)?;
            c.push_str(")) }\n");
        } else {
            c.push_str("\t:: (");
            condition(t, tr.cond, &mut c)?;
            c.push_str(&format!(") -> goto {}\n", tr.to));
        }
        out.claim(&c);
        printed += 1;
    }
    if printed == 0 {
        out.claim("\t:: false\n");
    }
    out.claim("\tod;\n");
    Ok(())
}

/// A condition, or `1` for true.
fn condition(t: &mut Terms, cond: Option<NodeId>, out: &mut String) -> Res<()> {
    if print_conjuncts(t, cond, cond, true, out)? {
        out.push('1');
    }
    Ok(())
}

/// spin's `dump_cond`: prints the literals and disjunctions of the conjunction `pp` joined by
/// ` && `; returns whether nothing was printed yet (`first`).
fn print_conjuncts(
    t: &mut Terms,
    pp: Option<NodeId>,
    r: Option<NodeId>,
    first: bool,
    out: &mut String,
) -> Res<bool> {
    let Some(pp) = pp else { return Ok(first) };
    let q = t.dup1(pp)?;
    let q = t.rewrite(q)?;
    let mut first = first;
    match t.op(q) {
        Op::CExpr => {
            if !first {
                out.push_str(" && ");
            }
            out.push_str("c_expr { ");
            print_conjuncts(t, t.lft(q), r, true, out)?;
            out.push_str(" } ");
            return Ok(false);
        }
        Op::Pred | Op::Not | Op::Or | Op::False => {
            if !first {
                out.push_str(" && ");
            }
            formula(t, Some(q), out);
            first = false;
        }
        Op::Release if !t.r(q).is_ok_and(|rq| t.anywhere(Among::Conjuncts, rq, r)) => {
            first = print_conjuncts(t, t.rgt(q), r, first, out)?;
        }
        Op::And => {
            first = print_conjuncts(t, t.lft(q), r, first, out)?;
            first = print_conjuncts(t, t.rgt(q), r, first, out)?;
        }
        _ => {}
    }
    Ok(first)
}

/// spin's `dump`: a formula with every operand parenthesised.
pub(super) fn formula(t: &Terms, n: Option<NodeId>, out: &mut String) {
    let Some(n) = n else { return };
    let binary = |op: &str, out: &mut String| {
        out.push('(');
        formula(t, t.lft(n), out);
        out.push_str(op);
        formula(t, t.rgt(n), out);
        out.push(')');
    };
    match t.op(n) {
        Op::Or => binary(" || ", out),
        Op::And => binary(" && ", out),
        Op::Until => binary(" U ", out),
        Op::Release => binary(" V ", out),
        Op::Not => {
            out.push_str("! (");
            formula(t, t.lft(n), out);
            out.push(')');
        }
        Op::False => out.push_str("false"),
        Op::True => out.push_str("true"),
        Op::Pred => {
            out.push('(');
            out.push_str(t.text(n));
            out.push(')');
        }
        Op::CExpr => {
            out.push_str("c_expr {");
            formula(t, t.lft(n), out);
            out.push('}');
        }
        Op::Dropped => out.push_str(" D "),
        Op::Implies | Op::Equiv => {}
    }
}
