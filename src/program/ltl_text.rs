//! An `ltl` formula printed as spin 6.5.2 prints it (`ltl name: text`), the text spin
//! negates and translates into the formula's never claim (see `crate::ltl`'s module
//! documentation for the rules, observed with spin). Reads the AST only.

use crate::promela::ast::{BinOp, ChanProbe, Expr, ExprKind, RecvArg, UnOp, VarRef};

/// The formula's text as spin prints it: temporal and boolean operators with each operand
/// in parentheses, `->` and `W` rewritten, everything else as a Promela expression.
pub fn spin_text(e: &Expr) -> String {
    let mut out = String::new();
    formula(e, &mut out);
    out
}

fn formula(e: &Expr, out: &mut String) {
    let wrap = |x: &Expr, out: &mut String| {
        out.push('(');
        formula(x, out);
        out.push(')');
    };
    match &e.kind {
        ExprKind::Unary(op @ (UnOp::Always | UnOp::Eventually | UnOp::Not | UnOp::Next), a) => {
            out.push_str(op.as_str());
            out.push(' ');
            wrap(a, out);
        }
        ExprKind::Binary(
            op @ (BinOp::And | BinOp::Or | BinOp::Until | BinOp::Release | BinOp::Equiv),
            a,
            b,
        ) => {
            wrap(a, out);
            out.push(' ');
            out.push_str(op.as_str());
            out.push(' ');
            wrap(b, out);
        }
        ExprKind::Binary(BinOp::Implies, a, b) => {
            out.push_str("(! ");
            wrap(a, out);
            out.push_str(") || ");
            wrap(b, out);
        }
        ExprKind::Binary(BinOp::WeakUntil, a, b) => {
            out.push_str("([] ");
            wrap(a, out);
            out.push_str(") || (");
            wrap(a, out);
            out.push_str(" U ");
            wrap(b, out);
            out.push(')');
        }
        _ => expr(e, out),
    }
}

/// A Promela expression as spin's printer writes it: binary operators parenthesised
/// without spaces.
fn expr(e: &Expr, out: &mut String) {
    match &e.kind {
        // spin's parser folds `[]`, `<>` and `X` where a value is expected into the number
        // of its token (`[] b == 0` is printed, and checked, as `(333==0)`).
        ExprKind::Unary(op @ (UnOp::Always | UnOp::Eventually | UnOp::Next), _) => {
            out.push_str(token_number(*op).unwrap_or_default())
        }
        ExprKind::Const(v) if *v < 0 => out.push_str(&format!("-({})", -v)),
        ExprKind::Const(v) => out.push_str(&v.to_string()),
        ExprKind::Var(v) => var(v, out),
        ExprKind::Unary(op, a) => {
            out.push_str(op.as_str());
            out.push('(');
            expr(a, out);
            out.push(')');
        }
        ExprKind::Binary(op, a, b) => {
            out.push('(');
            expr(a, out);
            out.push_str(op.as_str());
            expr(b, out);
            out.push(')');
        }
        ExprKind::Cond(c, a, b) => {
            out.push_str("((");
            expr(c, out);
            out.push_str(") -> (");
            expr(a, out);
            out.push_str(") : (");
            expr(b, out);
            out.push_str("))");
        }
        ExprKind::Len(v) => {
            out.push_str("len(");
            var(v, out);
            out.push(')');
        }
        ExprKind::Probe(k, v) => {
            out.push_str(match k {
                ChanProbe::Full => "full(",
                ChanProbe::Nfull => "nfull(",
                ChanProbe::Empty => "empty(",
                ChanProbe::Nempty => "nempty(",
            });
            var(v, out);
            out.push(')');
        }
        ExprKind::Enabled(a) => {
            out.push_str("enabled(");
            expr(a, out);
            out.push(')');
        }
        ExprKind::PcValue(a) => {
            out.push_str("pc_value(");
            expr(a, out);
            out.push(')');
        }
        ExprKind::GetPriority(a) => {
            out.push_str("get_priority(");
            expr(a, out);
            out.push(')');
        }
        ExprKind::Timeout => out.push_str("timeout"),
        ExprKind::Np => out.push_str("np_"),
        ExprKind::RemoteLabel { proc, index, label } => {
            out.push('(');
            out.push_str(proc);
            if let Some(i) = index {
                out.push('[');
                expr(i, out);
                out.push(']');
            }
            out.push('@');
            out.push_str(label);
            out.push(')');
        }
        ExprKind::RemoteVar {
            proc,
            index,
            var: v,
        } => {
            out.push_str(proc);
            if let Some(i) = index {
                out.push('[');
                expr(i, out);
                out.push(']');
            }
            out.push(':');
            var(v, out);
        }
        // A poll as spin prints it: `c?[a,b]`, `c??[a,b]`, its fields by commas.
        ExprKind::Poll { chan, args, random } => {
            var(chan, out);
            out.push_str(if *random { "??[" } else { "?[" });
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                match a {
                    RecvArg::Var(v) => var(v, out),
                    RecvArg::Eval(e) => {
                        out.push_str("eval(");
                        expr(e, out);
                        out.push(')');
                    }
                    RecvArg::Const(e) => match &e.kind {
                        ExprKind::Const(v) => out.push_str(&v.to_string()),
                        ExprKind::Unary(UnOp::Neg, x) if matches!(x.kind, ExprKind::Const(_)) => {
                            out.push('-');
                            expr(x, out);
                        }
                        _ => expr(e, out),
                    },
                }
            }
            out.push(']');
        }
        // Not an expression a formula can hold (spin rejects it there).
        ExprKind::Run { .. } => out.push('0'),
    }
}

fn var(v: &VarRef, out: &mut String) {
    out.push_str(&v.name);
    if let Some(i) = &v.index {
        out.push('[');
        expr(i, out);
        out.push(']');
    }
    if let Some(f) = &v.field {
        out.push('.');
        var(f, out);
    }
}

/// Where a formula puts a temporal operator where a value is expected (`[] b == 0`, which
/// binds as `([] b) == 0`): what spin 6.5.2 makes of it, for a warning. spin's parser folds
/// such an operator, operand and all, into the number of its token (`expr`), and checks
/// the formula it prints (`ltl q: (333==0)`), not the one written; so does git rmc, and
/// says so.
pub fn folded_temporal(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Unary(UnOp::Always | UnOp::Eventually | UnOp::Not | UnOp::Next, a) => {
            folded_temporal(a)
        }
        ExprKind::Binary(
            BinOp::And
            | BinOp::Or
            | BinOp::Until
            | BinOp::Release
            | BinOp::Equiv
            | BinOp::Implies
            | BinOp::WeakUntil,
            a,
            b,
        ) => folded_temporal(a).or_else(|| folded_temporal(b)),
        ExprKind::Binary(op, a, b) => {
            let (t, number) = folded(a).or_else(|| folded(b))?;
            Some(format!(
                "'{t}' stands where a value is expected (under '{}'): a temporal operator \
                 binds tighter than '{}', and spin 6.5.2 reads it there, operand and all, as \
                 the number {number}; the formula checked is the one spin checks, not the \
                 one written (for a comparison under '{t}', put it in parentheses: \
                 `{t} (b == 0)`)",
                op.as_str(),
                op.as_str()
            ))
        }
        _ => None,
    }
}

/// A unary temporal operator that `expr` folds into a number, in `e`, and that number.
fn folded(e: &Expr) -> Option<(&'static str, &'static str)> {
    match &e.kind {
        ExprKind::Unary(op @ (UnOp::Always | UnOp::Eventually | UnOp::Next), _) => {
            Some((op.as_str(), token_number(*op)?))
        }
        ExprKind::Unary(_, a) => folded(a),
        ExprKind::Binary(_, a, b) => folded(a).or_else(|| folded(b)),
        ExprKind::Cond(a, b, c) => folded(a).or_else(|| folded(b)).or_else(|| folded(c)),
        _ => None,
    }
}

/// The number of a temporal operator's token in spin 6.5.2's parser, which its printer
/// writes where the operator stands for a value.
fn token_number(op: UnOp) -> Option<&'static str> {
    match op {
        UnOp::Always => Some("333"),
        UnOp::Eventually => Some("334"),
        UnOp::Next => Some("338"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(model: &str) -> Vec<String> {
        let p = crate::promela::parse_file(
            std::path::Path::new("m.pml"),
            &crate::promela::source::MemoryProvider::new().with("m.pml", model),
            &Default::default(),
        );
        p.model
            .expect("parses")
            .units
            .iter()
            .filter_map(|u| match u {
                crate::promela::ast::Unit::Ltl(l) => Some(spin_text(&l.formula)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn formulas_print_as_spin_prints_them() {
        // spin 6.5.2's `ltl name: ...` lines for these formulas.
        let got = text_of(
            "byte x; bool up; active proctype P() { x++ }\n\
             ltl bounded { [] (x <= 3) }\n\
             ltl returns { [] (x == 3 -> <> (x == 0)) }\n\
             ltl mixed   { []<> up && (x == 0 U x == 1) || !(<> (x > 5)) }\n\
             mtype { envio }; chan en = [1] of { mtype, int };\n\
             ltl polled  { [] (en?[envio(0)] -> <> en??[envio,_] && !en?[envio(eval(x))]) }\n\
             ltl negative { [] en?[envio(-1)] }\n",
        );
        assert_eq!(
            got,
            [
                "[] ((x<=3))",
                "[] ((! ((x==3))) || (<> ((x==0))))",
                "(([] (<> (up))) && (((x==0)) U ((x==1)))) || (! (<> ((x>5))))",
                "[] ((! (en?[envio,0])) || ((<> (en??[envio,_])) && (! (en?[envio,eval(x)]))))",
                "[] (en?[envio,-1])",
            ]
        );
    }
}
