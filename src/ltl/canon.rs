//! The canonical form of formulas: `&&`/`||` chains re-associated to the right, their operands
//! sorted by key with duplicates, constants and absorbed operands dropped, and a cache of past
//! results that later equal formulas are answered from.
//!
//! The sort is spin's insertion into a chain, which can leave a chain nested inside another when
//! a new operand sorts before an element but after the rest of the chain's key; the printed
//! order of conjuncts depends on it, so the insertion is reproduced step for step. The cache
//! answers a formula with the first entry it is equal to (in `isequal`'s loose sense), newest
//! first, so the order in which formulas are canonicalised matters too.

use super::equal::Among;
use super::error::{missing, Res};
use super::terms::{CacheEntry, NodeId, Op, Terms};

/// Where a new operand goes in the chain being built: the chain itself, or the right operand
/// of one of its links.
#[derive(Clone, Copy)]
enum Slot {
    Root,
    RightOf(NodeId),
}

impl Terms {
    /// Right-associates and canonicalises (spin's `rewrite`).
    pub(super) fn rewrite(&mut self, n: NodeId) -> Res<NodeId> {
        let linked = self.right_linked(Some(n));
        Ok(self.canonical(linked)?.unwrap_or(n))
    }

    /// Rotates `(a op b) op c` to `a op (b op c)` for `&&` and `||`, in place, throughout the
    /// tree; returns the new root. A caller that keeps the old root sees a subtree of it.
    pub(super) fn right_linked(&mut self, n: Option<NodeId>) -> Option<NodeId> {
        let mut n = n?;
        let op = self.op(n);
        if op == Op::And || op == Op::Or {
            while let Some(l) = self.lft(n).filter(|&l| self.op(l) == op) {
                self.set_lft(n, self.rgt(l));
                self.set_rgt(l, Some(n));
                n = l;
            }
        }
        let l = self.right_linked(self.lft(n));
        self.set_lft(n, l);
        let r = self.right_linked(self.rgt(n));
        self.set_rgt(n, r);
        Some(n)
    }

    /// Canonicalises bottom-up (right operand first), answering from the cache where it can.
    fn canonical(&mut self, n: Option<NodeId>) -> Res<Option<NodeId>> {
        let Some(n) = n else { return Ok(None) };
        if let Some(m) = self.in_cache(n)? {
            return Ok(Some(m));
        }
        let r = self.canonical(self.rgt(n))?;
        self.set_rgt(n, r);
        let l = self.canonical(self.lft(n))?;
        self.set_lft(n, l);
        self.cached(n).map(Some)
    }

    fn in_cache(&mut self, n: NodeId) -> Res<Option<NodeId>> {
        let hit = self
            .cache
            .iter()
            .rev()
            .copied()
            .find(|d| self.isequal(Some(d.before), Some(n)));
        match hit {
            None => Ok(None),
            Some(d) if d.same && self.ismatch(Some(n), Some(d.before)) => Ok(Some(n)),
            Some(d) => self.dup(Some(d.after)),
        }
    }

    fn cached(&mut self, n: NodeId) -> Res<NodeId> {
        if let Some(m) = self.in_cache(n)? {
            return Ok(m);
        }
        let before = self.dup1(n)?;
        let mut after = self.canonical_list(n)?;
        let same = self.ismatch(Some(before), Some(after));
        if same {
            after = before;
        }
        self.cache.push(CacheEntry {
            before,
            after,
            same,
        });
        self.dup1(after)
    }

    /// spin's `Canonical`: a `&&` or `||` tree becomes a sorted chain of its distinct operands,
    /// without constants that do not matter and without operands another operand absorbs
    /// (`a && (a || b)` is `a`, `a || (a && b)` is `a`).
    fn canonical_list(&mut self, n: NodeId) -> Res<NodeId> {
        let tok = self.op(n);
        if tok != Op::And && tok != Op::Or {
            return Ok(n);
        }
        let (unit, zero, absorbs) = if tok == Op::And {
            (Op::True, Op::False, Among::Disjuncts)
        } else {
            (Op::False, Op::True, Among::Conjuncts)
        };
        let mut can = None;
        self.add_operands(tok, Some(n), &mut can)?;
        let mut dflt = None;

        // The unit is dropped (the walk stops there, as spin's does); the zero decides.
        let mut m = can;
        while let Some(mm) = m {
            let k1 = self.element(tok, mm)?;
            if self.op(k1) == unit {
                self.drop_element(tok, mm);
                dflt = Some(unit);
            } else if self.op(k1) == zero {
                return self.leaf(zero);
            }
            m = self.next_element(tok, mm);
        }

        // Duplicates and absorbed operands; a walk ends at the first dropped element it meets.
        let mut m = can;
        while let Some(mm) = m {
            let mut p = can;
            while let Some(pp) = p {
                if pp != mm && self.op(pp) != Op::Dropped && self.op(mm) != Op::Dropped {
                    let k1 = self.element(tok, mm)?;
                    let k2 = self.element(tok, pp)?;
                    if self.isequal(Some(k1), Some(k2)) || self.anywhere(absorbs, k1, Some(k2)) {
                        self.drop_element(tok, pp);
                    }
                }
                p = self.next_element(tok, pp);
            }
            m = self.next_element(tok, mm);
        }

        // Unlink the dropped elements; a link left without its right operand becomes its left.
        let mut m = can;
        let mut prev: Option<NodeId> = None;
        while let Some(mm) = m {
            if self.op(mm) == Op::Dropped {
                let k2 = self.rgt(mm);
                match prev {
                    None => {
                        can = can.and_then(|c| self.rgt(c));
                        m = can;
                    }
                    Some(pv) => {
                        self.set_rgt(pv, k2);
                        m = k2;
                        if k2.is_none()
                            && self.lft(pv).is_some()
                            && matches!(self.op(pv), Op::And | Op::Or)
                        {
                            let k1 = self.l(pv)?;
                            self.overwrite(pv, k1);
                        }
                    }
                }
                continue;
            }
            prev = m;
            m = self.rgt(mm);
        }

        match (can, dflt) {
            (Some(c), _) => Ok(c),
            (None, Some(op)) => self.leaf(op),
            (None, None) => Err(missing("operand after canonical ordering")),
        }
    }

    /// The operand a chain position holds: the left operand of a link, or the last element.
    fn element(&self, tok: Op, m: NodeId) -> Res<NodeId> {
        if self.op(m) == tok {
            self.l(m)
        } else {
            Ok(m)
        }
    }

    fn next_element(&self, tok: Op, m: NodeId) -> Option<NodeId> {
        if self.op(m) == tok {
            self.rgt(m)
        } else {
            None
        }
    }

    fn drop_element(&mut self, tok: Op, m: NodeId) {
        if self.op(m) != tok {
            self.set_rgt(m, None);
        }
        self.set_op(m, Op::Dropped);
    }

    /// Inserts copies of the operands of the `tok` tree `n` (right before left) into `can`.
    fn add_operands(&mut self, tok: Op, n: Option<NodeId>, can: &mut Option<NodeId>) -> Res<()> {
        let Some(n) = n else { return Ok(()) };
        if self.op(n) == tok {
            self.add_operands(tok, self.rgt(n), can)?;
            return self.add_operands(tok, self.lft(n), can);
        }
        let new = self.dup1(n)?;
        let Some(head) = *can else {
            *can = Some(new);
            return Ok(());
        };
        let s = self.key(Some(new)).unwrap_or_default();
        let slot = if self.op(head) != tok {
            Slot::Root
        } else {
            let mut prev = None;
            let mut m = head;
            let mut found = None;
            while self.op(m) == tok {
                let Some(next) = self.rgt(m) else { break };
                let cmp = match self.key(self.lft(m)) {
                    Some(t) => s.as_bytes().cmp(t.as_bytes()),
                    None => std::cmp::Ordering::Equal,
                };
                match cmp {
                    std::cmp::Ordering::Equal => return Ok(()),
                    std::cmp::Ordering::Less => match prev {
                        None => {
                            *can = Some(self.binary(tok, new, head)?);
                            return Ok(());
                        }
                        Some(pv) => {
                            found = Some(Slot::RightOf(pv));
                            break;
                        }
                    },
                    std::cmp::Ordering::Greater => {}
                }
                prev = Some(m);
                m = next;
            }
            match (found, prev) {
                (Some(slot), _) => slot,
                (None, Some(pv)) => Slot::RightOf(pv),
                (None, None) => return Err(missing("link in an operand chain")),
            }
        };
        let at = match slot {
            Slot::Root => Some(head),
            Slot::RightOf(pv) => self.rgt(pv),
        };
        let at = at.ok_or_else(|| missing("operand in an operand chain"))?;
        let t = self.key(Some(at)).unwrap_or_default();
        let link = match s.as_bytes().cmp(t.as_bytes()) {
            std::cmp::Ordering::Equal => return Ok(()),
            std::cmp::Ordering::Less => self.binary(tok, new, at)?,
            std::cmp::Ordering::Greater => self.binary(tok, at, new)?,
        };
        match slot {
            Slot::Root => *can = Some(link),
            Slot::RightOf(pv) => self.set_rgt(pv, Some(link)),
        }
        Ok(())
    }
}
