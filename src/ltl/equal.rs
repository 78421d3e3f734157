//! When spin holds two formulas equal: the structural test with its fallback that treats
//! `&&`/`||` trees as sets of operands, the exact-shape test of the cache, and the searches for
//! a formula among the operands of a conjunction or disjunction.
//!
//! These are spin's notions, quirks included (an absent formula equals `true`; the set test
//! splits only the right spine of one side), because every merge decision rests on them.

use super::terms::{NodeId, Op, Terms};

/// Where `anywhere` looks for a formula.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Among {
    /// The operands of a conjunction (or the formula itself).
    Term,
    /// Every conjunct of the searched formula among the operands of a conjunction.
    Conjuncts,
    /// The operands of a disjunction.
    Disjuncts,
}

impl Terms {
    fn sym_differs(&self, a: NodeId, b: NodeId) -> bool {
        matches!((self.sym(a), self.sym(b)), (Some(x), Some(y)) if x != y)
    }

    /// Equal structurally, or as sets of `&&`/`||` operands; an absent formula equals `true`.
    pub(super) fn isequal(&self, a: Option<NodeId>, b: Option<NodeId>) -> bool {
        match (a, b) {
            (None, None) => true,
            (None, Some(x)) | (Some(x), None) => self.op(x) == Op::True,
            (Some(a), Some(b)) => {
                if self.op(a) != self.op(b) || self.sym_differs(a, b) {
                    return false;
                }
                if self.isequal(self.lft(a), self.lft(b)) && self.isequal(self.rgt(a), self.rgt(b))
                {
                    return true;
                }
                self.sameform(Some(a), Some(b))
            }
        }
    }

    fn sameform(&self, a: Option<NodeId>, b: Option<NodeId>) -> bool {
        let (a, b) = match (a, b) {
            (None, None) => return true,
            (Some(a), Some(b)) => (a, b),
            _ => return false,
        };
        if self.op(a) != self.op(b) || self.sym_differs(a, b) {
            return false;
        }
        match self.op(a) {
            Op::True | Op::False => true,
            Op::Pred => self.sym(a) == self.sym(b),
            Op::Not | Op::CExpr => self.sameform(self.lft(a), self.lft(b)),
            Op::Until | Op::Release => {
                self.sameform(self.lft(a), self.lft(b)) && self.sameform(self.rgt(a), self.rgt(b))
            }
            Op::And | Op::Or => {
                let op = self.op(a);
                self.all_operands_in(op, Some(a), Some(b))
                    && self.all_operands_in(op, Some(b), Some(a))
            }
            // spin stops with "cannot happen" here; these never reach a comparison.
            Op::Implies | Op::Equiv | Op::Dropped => false,
        }
    }

    /// Every operand on the right spine of `from` occurs somewhere in the `op` tree `within`.
    fn all_operands_in(&self, op: Op, from: Option<NodeId>, within: Option<NodeId>) -> bool {
        let mut from = from;
        loop {
            let Some(f) = from else { return true };
            if self.op(f) != op {
                return self.operand_in(op, Some(f), within);
            }
            if !self.operand_in(op, self.lft(f), within) {
                return false;
            }
            from = self.rgt(f);
        }
    }

    /// `x` has the same form as `within` or as a node of its `op` tree.
    fn operand_in(&self, op: Op, x: Option<NodeId>, within: Option<NodeId>) -> bool {
        let Some(x) = x else { return true };
        let Some(within) = within else { return false };
        if self.sameform(Some(x), Some(within)) {
            return true;
        }
        if self.op(within) != op {
            return false;
        }
        self.operand_in(op, Some(x), self.lft(within))
            || self.operand_in(op, Some(x), self.rgt(within))
    }

    /// The same shape exactly (the cache's test).
    pub(super) fn ismatch(&self, a: Option<NodeId>, b: Option<NodeId>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                self.op(a) == self.op(b)
                    && !self.sym_differs(a, b)
                    && self.ismatch(self.lft(a), self.lft(b))
                    && self.ismatch(self.rgt(a), self.rgt(b))
            }
            _ => false,
        }
    }

    /// `srch` occurs in `within` as `among` says.
    pub(super) fn anywhere(&self, among: Among, srch: NodeId, within: Option<NodeId>) -> bool {
        let Some(within) = within else { return false };
        match among {
            Among::Conjuncts => self.all_conjuncts_in(srch, within),
            Among::Disjuncts => self.any_disjunct(srch, within),
            Among::Term => self.any_conjunct(srch, within),
        }
    }

    fn any_conjunct(&self, srch: NodeId, within: NodeId) -> bool {
        if self.op(within) == Op::And {
            return self.lft(within).is_some_and(|l| self.any_conjunct(srch, l))
                || self.rgt(within).is_some_and(|r| self.any_conjunct(srch, r));
        }
        self.isequal(Some(within), Some(srch))
    }

    fn all_conjuncts_in(&self, srch: NodeId, within: NodeId) -> bool {
        if self.op(srch) == Op::And {
            // spin's any_and dereferences both operands of a conjunction.
            return self
                .lft(srch)
                .is_some_and(|l| self.all_conjuncts_in(l, within))
                && self
                    .rgt(srch)
                    .is_some_and(|r| self.all_conjuncts_in(r, within));
        }
        self.any_conjunct(srch, within)
    }

    fn any_disjunct(&self, srch: NodeId, within: NodeId) -> bool {
        if self.op(within) == Op::Or {
            return self.lft(within).is_some_and(|l| self.any_disjunct(srch, l))
                || self.rgt(within).is_some_and(|r| self.any_disjunct(srch, r));
        }
        self.isequal(Some(within), Some(srch))
    }
}
