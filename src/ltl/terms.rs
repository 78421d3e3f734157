//! Formula terms: the arena of nodes that every phase reads and rewrites in place, and the
//! string key spin orders and compares subformulas by.
//!
//! spin's translator works on mutable trees whose nodes are linked three ways (left, right, and
//! `nxt` for lists of formulas), and some of its passes update a node that other structures still
//! reference. The automaton it prints depends on those updates, so the arena keeps that model: a
//! node is an index, and a change to a node is seen wherever it is referenced. Nothing is freed;
//! a translation owns one arena.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::rc::Rc;

use super::error::{missing, LtlError, Res};

/// A node of the arena (its index plus one, so that an absent node costs no space).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct NodeId(NonZeroU32);

/// A predicate's text, interned: equal ids are equal texts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Sym(NonZeroU32);

/// What a node is. `[] p` and `<> p` never appear: the parser builds `false V p` and `true U p`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Op {
    True,
    False,
    /// A proposition, identified by its text.
    Pred,
    /// `c_expr` over a predicate.
    CExpr,
    Not,
    And,
    Or,
    Until,
    /// `V`, the dual of `U`.
    Release,
    /// `->` and `<->` live only between the parser and its simplification of them.
    Implies,
    Equiv,
    /// An element that the canonical ordering of a `&&`/`||` list has dropped.
    Dropped,
}

impl Op {
    pub(super) fn is_binary(self) -> bool {
        matches!(
            self,
            Op::And | Op::Or | Op::Until | Op::Release | Op::Implies | Op::Equiv
        )
    }
}

/// 20 bytes: large formulas need millions of nodes.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) op: Op,
    /// The predicate's text; copied along with the node, so only predicates (and nodes a
    /// predicate was copied into) have one.
    pub(super) sym: Option<Sym>,
    pub(super) lft: Option<NodeId>,
    pub(super) rgt: Option<NodeId>,
    /// The next formula when the node heads or sits in a list of formulas.
    pub(super) nxt: Option<NodeId>,
}

/// One remembered canonicalisation: formulas equal to `before` canonicalise to `after`.
#[derive(Clone, Copy, Debug)]
pub(super) struct CacheEntry {
    pub(super) before: NodeId,
    pub(super) after: NodeId,
    /// `after` has the same shape as `before`.
    pub(super) same: bool,
}

/// The most nodes one translation may allocate (500 MB; spin's own translation of a formula
/// that needs 8 million takes half a minute).
const MAX_NODES: usize = 25_000_000;

/// The node arena and the canonicalisation cache of one translation.
pub(super) struct Terms {
    nodes: Vec<Node>,
    names: Vec<Rc<str>>,
    name_ids: HashMap<Rc<str>, Sym>,
    /// Newest last; spin searches it newest first.
    pub(super) cache: Vec<CacheEntry>,
}

impl Terms {
    pub(super) fn new() -> Terms {
        Terms {
            nodes: Vec::new(),
            names: Vec::new(),
            name_ids: HashMap::new(),
            cache: Vec::new(),
        }
    }

    fn push(&mut self, node: Node) -> Res<NodeId> {
        if self.nodes.len() >= MAX_NODES {
            return Err(LtlError::TooLarge(format!(
                "the translation needs more than {MAX_NODES} formula nodes"
            )));
        }
        self.nodes.push(node);
        Ok(NodeId(index_id(self.nodes.len())))
    }

    /// A fresh node.
    pub(super) fn node(&mut self, op: Op, lft: Option<NodeId>, rgt: Option<NodeId>) -> Res<NodeId> {
        self.push(Node {
            op,
            sym: None,
            lft,
            rgt,
            nxt: None,
        })
    }

    pub(super) fn leaf(&mut self, op: Op) -> Res<NodeId> {
        self.node(op, None, None)
    }

    pub(super) fn binary(&mut self, op: Op, lft: NodeId, rgt: NodeId) -> Res<NodeId> {
        self.node(op, Some(lft), Some(rgt))
    }

    pub(super) fn predicate(&mut self, name: Rc<str>) -> Res<NodeId> {
        let sym = match self.name_ids.get(&name) {
            Some(&s) => s,
            None => {
                self.names.push(name.clone());
                let s = Sym(index_id(self.names.len()));
                self.name_ids.insert(name, s);
                s
            }
        };
        self.push(Node {
            op: Op::Pred,
            sym: Some(sym),
            lft: None,
            rgt: None,
            nxt: None,
        })
    }

    pub(super) fn get(&self, n: NodeId) -> &Node {
        &self.nodes[n.0.get() as usize - 1]
    }

    fn get_mut(&mut self, n: NodeId) -> &mut Node {
        &mut self.nodes[n.0.get() as usize - 1]
    }

    pub(super) fn op(&self, n: NodeId) -> Op {
        self.get(n).op
    }

    /// The operator of an optional node; `None` for an absent one.
    pub(super) fn op_of(&self, n: Option<NodeId>) -> Option<Op> {
        n.map(|n| self.op(n))
    }

    pub(super) fn lft(&self, n: NodeId) -> Option<NodeId> {
        self.get(n).lft
    }

    pub(super) fn rgt(&self, n: NodeId) -> Option<NodeId> {
        self.get(n).rgt
    }

    pub(super) fn nxt(&self, n: NodeId) -> Option<NodeId> {
        self.get(n).nxt
    }

    pub(super) fn sym(&self, n: NodeId) -> Option<Sym> {
        self.get(n).sym
    }

    /// The predicate text of `n` ("" for other nodes).
    pub(super) fn text(&self, n: NodeId) -> &str {
        self.get(n)
            .sym
            .map_or("", |s| &self.names[s.0.get() as usize - 1])
    }

    /// The left operand, which a binary or unary node always has.
    pub(super) fn l(&self, n: NodeId) -> Res<NodeId> {
        self.lft(n).ok_or_else(|| missing("left operand"))
    }

    /// The right operand, which a binary node always has.
    pub(super) fn r(&self, n: NodeId) -> Res<NodeId> {
        self.rgt(n).ok_or_else(|| missing("right operand"))
    }

    pub(super) fn set_op(&mut self, n: NodeId, op: Op) {
        self.get_mut(n).op = op;
    }

    pub(super) fn set_lft(&mut self, n: NodeId, v: Option<NodeId>) {
        self.get_mut(n).lft = v;
    }

    pub(super) fn set_rgt(&mut self, n: NodeId, v: Option<NodeId>) {
        self.get_mut(n).rgt = v;
    }

    pub(super) fn set_nxt(&mut self, n: NodeId, v: Option<NodeId>) {
        self.get_mut(n).nxt = v;
    }

    /// Makes `n` a copy of `from` (operator, text and operands; `n` keeps its place in lists).
    pub(super) fn overwrite(&mut self, n: NodeId, from: NodeId) {
        let src = self.get(from).clone();
        let dst = self.get_mut(n);
        dst.op = src.op;
        dst.sym = src.sym;
        dst.lft = src.lft;
        dst.rgt = src.rgt;
    }

    /// A copy of the node alone: it shares the operands and is in no list.
    pub(super) fn shallow(&mut self, n: NodeId) -> Res<NodeId> {
        let mut copy = self.get(n).clone();
        copy.nxt = None;
        self.push(copy)
    }

    /// A deep copy of the tree under `n` (lists hanging off its nodes are not copied).
    pub(super) fn dup(&mut self, n: Option<NodeId>) -> Res<Option<NodeId>> {
        let Some(n) = n else { return Ok(None) };
        let d = self.shallow(n)?;
        let l = self.dup(self.lft(n))?;
        self.set_lft(d, l);
        let r = self.dup(self.rgt(n))?;
        self.set_rgt(d, r);
        Ok(Some(d))
    }

    pub(super) fn dup1(&mut self, n: NodeId) -> Res<NodeId> {
        Ok(self.dup(Some(n))?.unwrap_or(n))
    }

    /// The formulas of the list that starts at `head`, in order.
    pub(super) fn list(&self, head: Option<NodeId>) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut at = head;
        while let Some(n) = at {
            out.push(n);
            at = self.nxt(n);
        }
        out
    }

    /// The last node of the list that starts at `head`.
    pub(super) fn last_in_list(&self, head: NodeId) -> NodeId {
        let mut at = head;
        while let Some(n) = self.nxt(at) {
            at = n;
        }
        at
    }

    /// The key spin sorts `&&`/`||` operands by and identifies tableau nodes by: a predicate's
    /// text, or a prefix dump of the tree (operator first, then the right operand before the
    /// left). `None` stands for an absent formula (true).
    pub(super) fn key(&self, n: Option<NodeId>) -> Option<String> {
        let n = n?;
        let node = self.get(n);
        if node.op == Op::Pred {
            return Some(self.text(n).to_string());
        }
        let mut buf = String::new();
        self.prefix_dump(Some(n), &mut buf);
        Some(buf)
    }

    fn prefix_dump(&self, n: Option<NodeId>, buf: &mut String) {
        let Some(n) = n else { return };
        let node = self.get(n);
        match node.op {
            Op::Pred => buf.push_str(self.text(n)),
            Op::Until | Op::Release | Op::Or | Op::And => {
                buf.push_str(match node.op {
                    Op::Until => "U",
                    Op::Release => "V",
                    Op::Or => "|",
                    _ => "&",
                });
                self.prefix_dump(node.rgt, buf);
                self.prefix_dump(node.lft, buf);
            }
            Op::CExpr => {
                buf.push_str("c_expr {");
                self.prefix_dump(node.lft, buf);
                buf.push('}');
            }
            Op::Not => {
                buf.push('!');
                self.prefix_dump(node.lft, buf);
            }
            Op::True => buf.push('T'),
            Op::False => buf.push('F'),
            Op::Implies | Op::Equiv | Op::Dropped => buf.push('?'),
        }
    }
}

/// The id of the `len`-th element of a table (`len` >= 1, below `MAX_NODES`).
fn index_id(len: usize) -> NonZeroU32 {
    NonZeroU32::new(len as u32).unwrap_or(NonZeroU32::MIN)
}
