//! The algebra spin applies before the tableau: negation pushed down to the predicates, the
//! simplification of each binary operator as the parser builds it (`p U p = p`,
//! `(p U q) && (r U q) = (p && r) U q`, `->` and `<->` expanded, ...), and the two merges made on
//! the whole formula (`[]p && []q = [](p && q)`, `<>p || <>q = <>(p || q)`).
//!
//! The rules and their order are spin's (tl_parse.c, tl_rewrt.c, tl_trans.c); several reuse
//! the nodes they are given, which the arena makes visible to every holder of those nodes.

use super::error::Res;
use super::terms::{NodeId, Op, Terms};

impl Terms {
    /// `!n`, with the negation pushed down (spin's `Not`).
    pub(super) fn not(&mut self, n: NodeId) -> Res<NodeId> {
        let neg = self.node(Op::Not, Some(n), None)?;
        self.negate(neg)
    }

    /// Pushes the negation at the `!` node `n` inward, reusing its nodes, and canonicalises.
    pub(super) fn negate(&mut self, n: NodeId) -> Res<NodeId> {
        let inner = self.l(n)?;
        let dual = match self.op(inner) {
            Op::True | Op::False => {
                let flipped = if self.op(inner) == Op::True {
                    Op::False
                } else {
                    Op::True
                };
                self.set_op(n, flipped);
                self.set_lft(n, None);
                return self.rewrite(n);
            }
            Op::Not => {
                let m = self.l(inner)?;
                return self.rewrite(m);
            }
            Op::Release => Op::Until,
            Op::Until => Op::Release,
            Op::And => Op::Or,
            Op::Or => Op::And,
            _ => return self.rewrite(n),
        };
        // !(a op b) = !a dual !b: `n` becomes the dual, the operand node becomes `!a`.
        self.set_op(n, dual);
        let b = self.r(inner)?;
        self.set_rgt(inner, None);
        let nb = self.not(b)?;
        self.set_rgt(n, Some(nb));
        self.set_op(inner, Op::Not);
        let na = self.negate(inner)?;
        self.set_lft(n, Some(na));
        self.rewrite(n)
    }

    /// Simplifies the binary node the parser has just built (spin's `bin_simpler`).
    pub(super) fn simplify_binary(&mut self, ptr: NodeId) -> Res<NodeId> {
        let op = self.op(ptr);
        if !op.is_binary() {
            return Ok(ptr);
        }
        let (l, r) = (self.l(ptr)?, self.r(ptr)?);
        let (lo, ro) = (self.op(l), self.op(r));
        let eq = |t: &Terms, a: Option<NodeId>, b: Option<NodeId>| t.isequal(a, b);
        match op {
            Op::Until => {
                if ro == Op::True || ro == Op::False || lo == Op::False {
                    return Ok(r);
                }
                if eq(self, Some(l), Some(r)) {
                    return Ok(r); // p U p = p
                }
                if lo == Op::Until && eq(self, self.lft(l), Some(r)) {
                    self.set_lft(ptr, self.rgt(l)); // (p U q) U p = q U p
                    return Ok(ptr);
                }
                if ro == Op::Until && self.op_of(self.lft(r)) == Some(Op::True) {
                    return Ok(r); // p U <>q = <>q
                }
                Ok(ptr)
            }
            Op::Release => {
                if ro == Op::False || ro == Op::True || lo == Op::True {
                    return Ok(r);
                }
                if eq(self, Some(l), Some(r)) {
                    return Ok(r); // p V p = p
                }
                if lo == Op::False && ro == Op::Release {
                    self.set_rgt(ptr, self.rgt(r)); // false V (p V q) = false V q
                    return Ok(ptr);
                }
                if ro == Op::Release && self.op_of(self.lft(r)) == Some(Op::False) {
                    let f = self.leaf(Op::False)?; // p V []q = []q
                    self.set_lft(ptr, Some(f));
                    self.set_rgt(ptr, self.rgt(r));
                    return Ok(ptr);
                }
                Ok(ptr)
            }
            Op::Implies => {
                if eq(self, Some(l), Some(r)) {
                    return self.leaf(Op::True);
                }
                let nl = self.not(l)?;
                let or = self.binary(Op::Or, nl, r)?;
                self.rewrite(or)
            }
            Op::Equiv => {
                if eq(self, Some(l), Some(r)) {
                    return self.leaf(Op::True);
                }
                let (dl, dr) = (self.dup1(l)?, self.dup1(r)?);
                let both = self.binary(Op::And, dl, dr)?;
                let a = self.rewrite(both)?;
                // gcc evaluates the two negations, arguments of one call, right to left.
                let nr = self.not(r)?;
                let nl = self.not(l)?;
                let neither = self.binary(Op::And, nl, nr)?;
                let b = self.rewrite(neither)?;
                let or = self.binary(Op::Or, a, b)?;
                self.rewrite(or)
            }
            Op::And => self.simplify_and(ptr, l, r),
            Op::Or => self.simplify_or(ptr, l, r),
            _ => Ok(ptr),
        }
    }

    fn simplify_and(&mut self, ptr: NodeId, l: NodeId, r: NodeId) -> Res<NodeId> {
        let (lo, ro) = (self.op(l), self.op(r));
        let (ll, lr, rl, rr) = (self.lft(l), self.rgt(l), self.lft(r), self.rgt(r));
        if ro == Op::Until && self.isequal(rr, Some(l)) {
            return Ok(l); // p && (q U p) = p
        }
        if lo == Op::Until && self.isequal(lr, Some(r)) {
            return Ok(r);
        }
        if ro == Op::Release && self.isequal(rr, Some(l)) {
            return Ok(r); // p && (q V p) = q V p
        }
        if lo == Op::Release && self.isequal(lr, Some(r)) {
            return Ok(l);
        }
        if ro == Op::Until && lo == Op::Until && self.isequal(rr, lr) {
            // (p U q) && (r U q) = (p && r) U q
            let and = self.node(Op::And, ll, rl)?;
            return self.node(Op::Until, Some(and), lr);
        }
        if ro == Op::Release && lo == Op::Release && self.isequal(rl, ll) {
            // (p V q) && (p V r) = p V (q && r)
            let and = self.node(Op::And, lr, rr)?;
            return self.node(Op::Release, rl, Some(and));
        }
        if self.isequal(Some(l), Some(r)) || ro == Op::False || lo == Op::True {
            return Ok(r);
        }
        if ro == Op::True || lo == Op::False {
            return Ok(l);
        }
        if ro == Op::Until && lo == Op::Release && self.isequal(lr, rr) {
            return Ok(l); // (p V q) && (r U q) = p V q
        }
        Ok(ptr)
    }

    fn simplify_or(&mut self, ptr: NodeId, l: NodeId, r: NodeId) -> Res<NodeId> {
        let (lo, ro) = (self.op(l), self.op(r));
        let (ll, lr, rl, rr) = (self.lft(l), self.rgt(l), self.lft(r), self.rgt(r));
        if ro == Op::Until && self.isequal(rr, Some(l)) {
            return Ok(r); // p || (q U p) = q U p
        }
        if ro == Op::Release && self.isequal(rr, Some(l)) {
            return Ok(l); // p || (q V p) = p
        }
        if ro == Op::Until && lo == Op::Until && self.isequal(rl, ll) {
            // (p U q) || (p U r) = p U (q || r)
            let or = self.node(Op::Or, lr, rr)?;
            return self.node(Op::Until, rl, Some(or));
        }
        if self.isequal(Some(l), Some(r)) || ro == Op::False || lo == Op::True {
            return Ok(l);
        }
        if ro == Op::True || lo == Op::False {
            return Ok(r);
        }
        if ro == Op::Release && lo == Op::Release && self.isequal(lr, rr) {
            // (p V q) || (r V q) = (p || r) V q
            let or = self.node(Op::Or, ll, rl)?;
            return self.node(Op::Release, Some(or), rr);
        }
        if ro == Op::Until && lo == Op::Release && self.isequal(lr, rr) {
            return Ok(r); // (p V q) || (r U q) = r U q
        }
        Ok(ptr)
    }

    /// Merges `[]p && []q` into `[](p && q)` and `<>p || <>q` into `<>(p || q)`, bottom-up, in
    /// place (spin's `twocases`, run once on the parsed formula).
    pub(super) fn merge_twins(&mut self, p: Option<NodeId>) -> Res<Option<NodeId>> {
        let Some(p) = p else { return Ok(None) };
        match self.op(p) {
            Op::And | Op::Or | Op::Until | Op::Release => {
                let l = self.merge_twins(self.lft(p))?;
                self.set_lft(p, l);
                let r = self.merge_twins(self.rgt(p))?;
                self.set_rgt(p, r);
            }
            Op::Not => {
                let l = self.merge_twins(self.lft(p))?;
                self.set_lft(p, l);
            }
            _ => {}
        }
        let op = self.op(p);
        let (outer, unit, inner) = match op {
            Op::And => (Op::Release, Op::False, Op::And),
            Op::Or => (Op::Until, Op::True, Op::Or),
            _ => return Ok(Some(p)),
        };
        let (l, r) = (self.l(p)?, self.r(p)?);
        let twins = self.op(l) == outer
            && self.op_of(self.lft(l)) == Some(unit)
            && self.op(r) == outer
            && self.op_of(self.lft(r)) == Some(unit);
        if !twins {
            return Ok(Some(p));
        }
        let both = self.node(inner, self.rgt(l), self.rgt(r))?;
        let u = self.leaf(unit)?;
        self.node(outer, Some(u), Some(both)).map(Some)
    }
}
