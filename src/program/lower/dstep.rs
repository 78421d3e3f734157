//! A `d_step` body's guard and code, read off its elements the way spin's `dstep.c` reads
//! its own: the guard from the first statement (`putcode`, `CollectGuards`), the code with
//! each option's first statement falling through to the next option of its selection.

use std::collections::{HashMap, HashSet};

use super::{Choice, ElId, ElKind, Lowerer};
use crate::program::dcode::{DFail, DOp, Pc};
use crate::program::LStmt;

impl Lowerer<'_> {
    /// pan's guard of a d_step starting at `entry`: a condition, send or receive is its own
    /// guard; an `if` or `do` is guarded by its options'; a `{}` by its first statement's;
    /// anything else is always enabled.
    pub(super) fn dstep_guard(&self, entry: ElId) -> Option<Vec<LStmt>> {
        let e = self.skip_dots(entry);
        let el = &self.els[e];
        match (&el.kind, el.choice) {
            (ElKind::Header(opts), Some(_)) => {
                let mut atoms = Vec::new();
                if self.collect_guards(opts, &mut atoms, 0) || atoms.is_empty() {
                    None
                } else {
                    Some(atoms)
                }
            }
            (ElKind::Header(opts), None) => match opts.first() {
                Some(&inner) if inner != e => self.dstep_guard(inner),
                _ => None,
            },
            (ElKind::Stmt(s @ (LStmt::Expr(_) | LStmt::Send { .. } | LStmt::Recv { .. })), _) => {
                Some(vec![s.clone()])
            }
            _ => None,
        }
    }

    /// spin's `CollectGuards` over a selection's options: conditions, sends and receives
    /// guard; an inner `if` (alone or first in a `{}`) adds its options'; an inner `do`,
    /// an assignment or any other statement adds nothing. True where an `else` makes the
    /// guard always hold.
    fn collect_guards(&self, opts: &[ElId], atoms: &mut Vec<LStmt>, depth: usize) -> bool {
        let mut always = false;
        for &o in opts {
            let el = &self.els[o];
            let inner_if = |h: ElId| match (&self.els[h].kind, self.els[h].choice) {
                (ElKind::Header(opts), Some(Choice::If)) => Some(opts),
                _ => None,
            };
            let nested = match (&el.kind, el.choice) {
                (ElKind::Header(_), Some(Choice::If)) => inner_if(o),
                (ElKind::Header(first), None) => first.first().and_then(|&f| inner_if(f)),
                _ => None,
            };
            match (&el.kind, nested) {
                (_, Some(inner)) if depth < 64 => {
                    always |= self.collect_guards(inner, atoms, depth + 1);
                }
                (ElKind::Stmt(LStmt::Else), _) => always = true,
                (
                    ElKind::Stmt(s @ (LStmt::Expr(_) | LStmt::Send { .. } | LStmt::Recv { .. })),
                    _,
                ) => atoms.push(s.clone()),
                _ => {}
            }
        }
        always
    }

    /// The code of a d_step starting at `entry`: one operation per element reached, the
    /// entry's at 0.
    pub(super) fn dstep_code(&mut self, entry: ElId) -> Vec<DOp> {
        let mut order = vec![entry];
        let mut pc: HashMap<ElId, Pc> = HashMap::from([(entry, 0)]);
        // Where each option's first statement goes when it blocks.
        let mut fail: HashMap<ElId, ElId> = HashMap::new();
        let mut last_option: HashSet<ElId> = HashSet::new();
        let mut i = 0;
        while i < order.len() {
            let e = order[i];
            i += 1;
            let next: Vec<ElId> = match &self.els[e].kind {
                ElKind::Header(opts) => {
                    let opts = opts.clone();
                    if self.els[e].choice.is_some() {
                        for w in opts.windows(2) {
                            fail.insert(w[0], w[1]);
                        }
                        last_option.extend(opts.last());
                    }
                    opts
                }
                ElKind::Goto(..) | ElKind::Break(_) => self.jump_target(e).into_iter().collect(),
                ElKind::End | ElKind::Terminal => Vec::new(),
                _ => self.els[e].next.into_iter().collect(),
            };
            for n in next {
                pc.entry(n).or_insert_with(|| {
                    order.push(n);
                    order.len() as Pc - 1
                });
            }
        }
        let at = |e: Option<ElId>| e.and_then(|e| pc.get(&e).copied());
        let end = order.len() as Pc;
        let mut code: Vec<DOp> = order
            .iter()
            .map(|&e| {
                let el = &self.els[e];
                let jump = |t: Option<ElId>| at(t).map_or(DOp::End, DOp::Jump);
                match &el.kind {
                    ElKind::Stmt(stmt) => DOp::Stmt {
                        stmt: Box::new(stmt.clone()),
                        next: at(el.next).unwrap_or(end),
                        fail: match fail.get(&e) {
                            Some(&o) => DFail::Option(at(Some(o)).unwrap_or(end)),
                            None if last_option.contains(&e) => DFail::Selection,
                            None => DFail::Sequence,
                        },
                    },
                    ElKind::Header(opts) => match opts.first() {
                        Some(&o) => jump(Some(o)),
                        None => DOp::NoOption,
                    },
                    ElKind::Break(x) => jump(Some(*x)),
                    ElKind::Goto(..) => jump(self.labels.resolve(e).or(el.next)),
                    ElKind::Dot | ElKind::DoExit => jump(el.next),
                    ElKind::End | ElKind::Terminal => DOp::End,
                }
            })
            .collect();
        code.push(DOp::End);
        code
    }
}
