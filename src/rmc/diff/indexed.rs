//! Locations dangerous only because they index an array resized: each index expression
//! with the number of elements both versions have. An element below that number is kept
//! by the map (the same element in a state and in its image), so a process there whose
//! every such index lies below it reads and writes what it did in the old version, and
//! its moves are as recorded (`Replay::guards_hold`).

use crate::program::expr::{LExpr, LRecvArg, LStmt, LVar, Slot};
use crate::program::Location;
use crate::rmc::diff::extension::{Extension, DROPPED};

/// An index into a resized array, and the elements both versions have.
pub type IndexBound = (LExpr, i64);

/// The arrays of one proctype's code that were resized (their elements' type the same):
/// new global index or new local index, with the elements both versions have.
pub struct Resized {
    globals: Vec<(usize, u32)>,
    locals: Vec<(usize, u32)>,
}

impl Resized {
    /// The resized arrays new proctype `proc`'s code may name.
    pub fn new(e: &Extension, proc: usize) -> Self {
        let kept = |index: &[usize], resized: &[Option<u32>]| -> Vec<(usize, u32)> {
            resized
                .iter()
                .zip(index)
                .filter_map(|(r, &j)| Some((j, (*r)?)))
                .filter(|&(j, _)| j != DROPPED)
                .collect()
        };
        Resized {
            globals: kept(&e.globals, &e.resized_globals),
            locals: e
                .procs
                .get(proc)
                .map_or_else(Vec::new, |p| kept(&p.locals, &p.resized)),
        }
    }

    /// Whether there is any.
    pub fn any(&self) -> bool {
        !self.globals.is_empty() || !self.locals.is_empty()
    }

    fn bound(&self, v: &LVar) -> Option<u32> {
        let (list, i) = match v.slot {
            Slot::Global(i) => (&self.globals, i),
            Slot::Local(i) => (&self.locals, i),
            _ => return None,
        };
        list.iter().find(|x| x.0 == i).map(|x| x.1)
    }
}

/// The accesses of resized arrays the statements of new location `l` make, each index with
/// its bound. None where the state before the move cannot tell the index: inside a
/// `d_step` (its statements may change it), or a received element whose index is not a
/// constant (the receive may write the index first); and where a statement reads another
/// process's local (`P[0]:a[i]`).
pub fn index_bounds(l: &Location, r: &Resized) -> Option<Vec<IndexBound>> {
    let mut out = Vec::new();
    for e in &l.edges {
        stmt(&e.stmt, r, &mut out)?;
    }
    Some(out)
}

fn stmt(s: &LStmt, r: &Resized, out: &mut Vec<IndexBound>) -> Option<()> {
    let before = out.len();
    let push = |v: &LVar, out: &mut Vec<IndexBound>| {
        if let Some(n) = r.bound(v) {
            // (An array named without an index is its first element.)
            let ix = v.index.as_deref().cloned().unwrap_or(LExpr::Const(0));
            out.push((ix, i64::from(n)));
        }
    };
    let mut remote = false;
    s.each_expr(&mut |x| match x {
        LExpr::Var(v) | LExpr::Len(v) => push(v, out),
        LExpr::RemoteVar { .. } => remote = true,
        _ => {}
    });
    // Another process's local, which may be an array resized, is compared by its number
    // alone: its index is not judged here.
    if remote {
        return None;
    }
    match s {
        LStmt::Assign(v, _) => push(v, out),
        LStmt::Recv { args, .. } => {
            for a in args {
                if let LRecvArg::Var(v) = a {
                    let constant = v
                        .index
                        .as_deref()
                        .is_none_or(|i| matches!(i, LExpr::Const(_)));
                    if r.bound(v).is_some() && !constant {
                        return None;
                    }
                    push(v, out);
                }
            }
        }
        LStmt::DStep(d) => {
            let mut inner = Vec::new();
            for l in &d.auto.locations {
                for e in &l.edges {
                    stmt(&e.stmt, r, &mut inner)?;
                }
            }
            if !inner.is_empty() || out.len() > before {
                return None;
            }
        }
        _ => {}
    }
    Some(())
}
