//! The tableau: the generalised Büchi automaton of Gerth, Peled, Vardi and Wolper (PSTV'95),
//! built as spin builds it, and the acceptance labels of its nodes.
//!
//! A node holds the formulas still to expand (`new`), those it satisfies (`old`) and those its
//! successors must satisfy (`next`). Nodes are expanded depth first from a stack; a finished
//! node whose `old` and `next` have the same canonical keys as a kept node is merged into it.
//! spin names nodes `S<n>` in order of creation (merged ones included) and keeps them newest
//! first; edges are recorded as incoming names and turned into outgoing lists at the end. Each
//! `U` subformula then gets an acceptance class (its number, counting `U`s in prefix order):
//! nodes that promise it are red, nodes that fulfil it green.

use std::rc::Rc;

use super::equal::Among;
use super::error::{missing, LtlError, Res};
use super::terms::{NodeId, Op, Terms};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct GraphId(usize);

/// Most acceptance labels of one kind spin's node record has room for.
const MAX_RED: usize = 63;

pub(super) struct Graph {
    pub(super) name: Rc<str>,
    /// Names of the predecessors, in spin's list order.
    incoming: Vec<Rc<str>>,
    /// Names of the successors, most recently added first.
    pub(super) outgoing: Vec<Rc<str>>,
    old_key: Option<String>,
    next_key: Option<String>,
    new: Option<NodeId>,
    /// After the node is finished: its satisfied formulas as one canonical conjunction.
    pub(super) old: Option<NodeId>,
    /// After the node is finished: the list of its satisfied formulas as expanded.
    other: Option<NodeId>,
    next: Option<NodeId>,
    /// Acceptance classes the node promises (red) and fulfils (green), as spin stores them (a
    /// byte each).
    pub(super) red: Vec<u8>,
    pub(super) green: Vec<u8>,
}

pub(super) struct Tableau {
    graphs: Vec<Graph>,
    /// The kept nodes, newest first (spin's `Nodes_Set`).
    pub(super) kept: Vec<GraphId>,
    /// Merged node names and the node each was merged into, oldest first.
    mapped: Vec<(Rc<str>, GraphId)>,
    stack: Vec<GraphId>,
    state_cnt: usize,
    /// Number of `U` subformulas met so far (spin's `Red_cnt`).
    red_cnt: i32,
    /// The last acceptance class that labels some node red (spin's `Max_Red`).
    pub(super) max_red: i32,
    /// How many labels were given (spin's `Lab_cnt`).
    pub(super) labels: i32,
    /// Lines spin prints on its standard output while building (names it cannot find).
    pub(super) warnings: Vec<String>,
}

impl Tableau {
    pub(super) fn graph(&self, g: GraphId) -> &Graph {
        &self.graphs[g.0]
    }

    fn graph_mut(&mut self, g: GraphId) -> &mut Graph {
        &mut self.graphs[g.0]
    }

    /// The node named `name`, or the node it was merged into.
    pub(super) fn find(&mut self, name: &str) -> Option<GraphId> {
        let kept = self.kept.iter().find(|&&g| &*self.graphs[g.0].name == name);
        let found = kept.copied().or_else(|| {
            self.mapped
                .iter()
                .rev()
                .find(|(from, _)| &**from == name)
                .map(|&(_, to)| to)
        });
        if found.is_none() {
            self.warnings
                .push(format!("warning: node {name} not found\n"));
        }
        found
    }

    /// Builds the tableau of `formula` and labels it.
    pub(super) fn build(t: &mut Terms, formula: NodeId) -> Res<Tableau> {
        let mut tab = Tableau {
            graphs: Vec::new(),
            kept: Vec::new(),
            mapped: Vec::new(),
            stack: Vec::new(),
            state_cnt: 0,
            red_cnt: 0,
            max_red: 0,
            labels: 0,
            warnings: Vec::new(),
        };
        let p = t.merge_twins(Some(formula))?.unwrap_or(formula);
        let op = t.dup1(p)?;
        let init: Rc<str> = "init".into();
        tab.new_graph(t, None, vec![init], Some(p), None, None)?;
        while let Some(g) = tab.stack.pop() {
            tab.expand(t, g)?;
        }
        tab.add_init(p);
        let whole = t.flatten(Some(op))?;
        tab.liveness(t, whole)?;
        Ok(tab)
    }

    /// spin's `ng`: a new node (named `S<n>` unless `name` is given), pushed on the stack.
    fn new_graph(
        &mut self,
        t: &mut Terms,
        name: Option<Rc<str>>,
        incoming: Vec<Rc<str>>,
        new: Option<NodeId>,
        old: Option<NodeId>,
        next: Option<NodeId>,
    ) -> Res<()> {
        let name = name.unwrap_or_else(|| {
            let n = format!("S{}", self.state_cnt);
            self.state_cnt += 1;
            n.into()
        });
        let incoming = distinct_reversed(&incoming);
        let new = match new {
            Some(n) => t.flatten(Some(n))?,
            None => None,
        };
        let old = t.duplicate_list(old)?;
        let next = match next {
            Some(n) => t.flatten(Some(n))?,
            None => None,
        };
        let id = GraphId(self.graphs.len());
        self.graphs.push(Graph {
            name,
            incoming,
            outgoing: Vec::new(),
            old_key: None,
            next_key: None,
            new,
            old,
            other: None,
            next,
            red: Vec::new(),
            green: Vec::new(),
        });
        self.stack.push(id);
        Ok(())
    }

    /// One step of the expansion of `g` (spin's `expand_g`).
    fn expand(&mut self, t: &mut Terms, g: GraphId) -> Res<()> {
        let Some(head) = self.graph(g).new else {
            if self.merge_if_known(t, g)? {
                return Ok(());
            }
            if let Some(next) = self.graph(g).next {
                let from = self.graph(g).name.clone();
                self.new_graph(t, None, vec![from], Some(next), None, None)?;
            }
            return Ok(());
        };

        if t.op(head) == Op::And {
            // Split the conjunction: its left operand, then its right, then the rest.
            let (l, r) = (t.l(head)?, t.r(head)?);
            if let Some(rest) = t.nxt(head) {
                let end = t.last_in_list(r);
                t.set_nxt(end, Some(rest));
            }
            let end = t.last_in_list(l);
            t.set_nxt(end, Some(r));
            self.graph_mut(g).new = Some(l);
            self.stack.push(g);
            return Ok(());
        }

        let now = head;
        let rest = t.nxt(now);
        self.graph_mut(g).new = rest;
        t.set_nxt(now, None);

        // `now` joins `old` unless it is true or already there; spin's test skips the last
        // element of `old`.
        let mut known = false;
        if t.op(now) != Op::True {
            match self.graph(g).old {
                Some(first) => {
                    let mut n1 = first;
                    while let Some(after) = t.nxt(n1) {
                        if t.isequal(Some(now), Some(n1)) {
                            known = true;
                            break;
                        }
                        n1 = after;
                    }
                    if !known {
                        t.set_nxt(n1, Some(now));
                    }
                }
                None => self.graph_mut(g).old = Some(now),
            }
        }

        let new = self.graph(g).new;
        let next = self.graph(g).next;
        match t.op(now) {
            Op::False | Op::True | Op::Pred | Op::Not | Op::CExpr => {
                self.stack.push(g);
            }
            Op::Release => {
                // p V q: either q and p now, or q now and p V q next.
                let (l, r) = (t.l(now)?, t.r(now)?);
                if t.nxt(r).is_some() || t.nxt(l).is_some() {
                    return Err(missing("operand outside any list"));
                }
                t.set_nxt(r, new);
                let nx = if known { now } else { t.shallow(now)? };
                t.set_nxt(nx, next);
                let r_copy = t.shallow(r)?;
                t.set_nxt(l, Some(r_copy));
                t.set_nxt(r_copy, new);
                let both = t.flatten(Some(l))?;
                self.graph_mut(g).new = both;
                self.stack.push(g);
                let (incoming, old) = (self.graph(g).incoming.clone(), self.graph(g).old);
                self.new_graph(t, None, incoming, Some(r), old, Some(nx))?;
            }
            Op::Until | Op::Or => {
                // p U q: p now and p U q next, or q now. p || q: p now, or q now.
                let (l, r) = (t.l(now)?, t.r(now)?);
                if t.nxt(r).is_some() || t.nxt(l).is_some() {
                    return Err(missing("operand outside any list"));
                }
                let nx = if t.op(now) == Op::Until {
                    let nx = if known { now } else { t.shallow(now)? };
                    t.set_nxt(nx, next);
                    Some(nx)
                } else {
                    next
                };
                t.set_nxt(r, new);
                t.set_nxt(l, new);
                let (incoming, old) = (self.graph(g).incoming.clone(), self.graph(g).old);
                self.new_graph(t, None, incoming, Some(l), old, nx)?;
                let other = t.flatten(Some(r))?;
                self.graph_mut(g).new = other;
                self.stack.push(g);
            }
            Op::And | Op::Implies | Op::Equiv | Op::Dropped => {
                return Err(missing("expandable formula"));
            }
        }
        Ok(())
    }

    /// spin's `not_new`: a finished node equal to a kept one (same keys for `old` and `next`)
    /// is merged into it; otherwise it is kept.
    fn merge_if_known(&mut self, t: &mut Terms, g: GraphId) -> Res<bool> {
        let raw_old = self.graph(g).old;
        let old = t.flatten(raw_old)?;
        let next = t.flatten(self.graph(g).next)?;
        {
            let gr = self.graph_mut(g);
            gr.other = raw_old;
            gr.old = old;
        }
        let old_key = t.key(old);
        let next_key = t.key(next);
        {
            let gr = self.graph_mut(g);
            gr.old_key = old_key;
            gr.next_key = next_key;
        }
        let same = self.kept.iter().copied().find(|&q| {
            let (a, b) = (self.graph(q), self.graph(g));
            a.old_key == b.old_key && a.next_key == b.next_key
        });
        let Some(q1) = same else {
            self.kept.insert(0, g);
            return Ok(false);
        };
        if !self.graph(g).incoming.is_empty() {
            let merged = concat_names(&self.graph(g).incoming, &self.graph(q1).incoming);
            self.graph_mut(q1).incoming = merged;
        }
        for n2 in t.list(self.graph(g).other) {
            let there = t
                .list(self.graph(q1).other)
                .into_iter()
                .any(|n1| t.isequal(Some(n1), Some(n2)));
            if !there {
                let n3 = t.dup1(n2)?;
                t.set_nxt(n3, self.graph(q1).other);
                self.graph_mut(q1).other = Some(n3);
            }
        }
        let name = self.graph(g).name.clone();
        self.mapped.push((name, q1));
        Ok(true)
    }

    /// spin's `fixinit`: the node `init`, whose `old` is the formula, and the successor lists.
    fn add_init(&mut self, formula: NodeId) {
        let id = GraphId(self.graphs.len());
        self.graphs.push(Graph {
            name: "init".into(),
            incoming: Vec::new(),
            outgoing: Vec::new(),
            old_key: None,
            next_key: None,
            new: None,
            old: Some(formula),
            other: Some(formula),
            next: None,
            red: Vec::new(),
            green: Vec::new(),
        });
        self.kept.insert(0, id);
        for g in self.kept.clone() {
            let to = self.graph(g).name.clone();
            for from in std::mem::take(&mut self.graph_mut(g).incoming) {
                if let Some(p) = self.find(&from) {
                    self.graph_mut(p).outgoing.insert(0, to.clone());
                }
            }
        }
    }

    /// Labels the nodes for each `U` subformula of `n`, in prefix order (spin's `liveness`).
    fn liveness(&mut self, t: &mut Terms, n: Option<NodeId>) -> Res<()> {
        let Some(n) = n else { return Ok(()) };
        match t.op(n) {
            Op::Until => {
                self.red_cnt += 1;
                self.mark_red(t, n)?;
                self.mark_green(t, t.rgt(n))?;
                self.liveness(t, t.lft(n))?;
                self.liveness(t, t.rgt(n))
            }
            Op::Release | Op::Or | Op::And => {
                self.liveness(t, t.lft(n))?;
                self.liveness(t, t.rgt(n))
            }
            _ => Ok(()),
        }
    }

    /// Nodes that satisfy `n` (or, for `n = a U b`, `b`, and so on down) fulfil the current
    /// class.
    fn mark_green(&mut self, t: &mut Terms, n: Option<NodeId>) -> Res<()> {
        let Some(n) = n else { return Ok(()) };
        let mut n = t.right_linked(Some(n)).unwrap_or(n);
        loop {
            for g in self.kept.clone() {
                if !self.graph(g).outgoing.is_empty()
                    && self.has_clause(t, Among::Conjuncts, g, n)?
                {
                    let class = self.red_cnt as u8;
                    self.graph_mut(g).green.push(class);
                    self.labels += 1;
                }
            }
            if t.op(n) != Op::Until {
                return Ok(());
            }
            n = t.r(n)?;
        }
    }

    /// Nodes that hold the `U` formula `n` promise the current class.
    fn mark_red(&mut self, t: &mut Terms, n: NodeId) -> Res<()> {
        let n = t.right_linked(Some(n)).unwrap_or(n);
        for g in self.kept.clone() {
            if !self.graph(g).outgoing.is_empty() && self.has_clause(t, Among::Term, g, n)? {
                if self.graph(g).red.len() >= MAX_RED {
                    return Err(LtlError::TooManyUntils);
                }
                let class = self.red_cnt as u8;
                self.graph_mut(g).red.push(class);
                self.labels += 1;
                self.max_red = self.red_cnt;
            }
        }
        Ok(())
    }

    /// The node's expanded formulas contain `n` (all conjuncts of it, or one disjunct).
    fn has_clause(&mut self, t: &mut Terms, among: Among, g: GraphId, n: NodeId) -> Res<bool> {
        match t.op(n) {
            Op::And => {
                let (l, r) = (t.l(n)?, t.r(n)?);
                Ok(self.has_clause(t, among, g, l)? && self.has_clause(t, among, g, r)?)
            }
            Op::Or => {
                let (l, r) = (t.l(n)?, t.r(n)?);
                Ok(self.has_clause(t, among, g, l)? || self.has_clause(t, among, g, r)?)
            }
            _ => {
                for q in t.list(self.graph(g).other) {
                    // spin re-associates each formula in place and keeps its old root.
                    let qq = t.right_linked(Some(q));
                    if t.anywhere(among, n, qq) {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
        }
    }
}

/// spin's `dupSlist`: the distinct names, last first.
fn distinct_reversed(names: &[Rc<str>]) -> Vec<Rc<str>> {
    let mut out: Vec<Rc<str>> = Vec::new();
    for n in names {
        if !out.iter().any(|o| o == n) {
            out.insert(0, n.clone());
        }
    }
    out
}

/// spin's `catSlist(a, b)`: `b` without the names in `a`, joined to `a` (after it, unless
/// what is left of `b` is one name, which goes first).
fn concat_names(a: &[Rc<str>], b: &[Rc<str>]) -> Vec<Rc<str>> {
    let b: Vec<Rc<str>> = b.iter().filter(|n| !a.contains(n)).cloned().collect();
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a.to_vec();
    }
    if b.len() == 1 {
        let mut out = b;
        out.extend(a.iter().cloned());
        return out;
    }
    let mut out = a.to_vec();
    out.extend(b);
    out
}

impl Terms {
    /// The conjunction of the list at `head`, canonicalised (spin's `flatten`): copies, so the
    /// list is left as it is.
    pub(super) fn flatten(&mut self, head: Option<NodeId>) -> Res<Option<NodeId>> {
        let mut z: Option<NodeId> = None;
        for q in self.list(head) {
            let r = self.dup1(q)?;
            z = Some(match z {
                Some(z) => self.binary(Op::And, r, z)?,
                None => r,
            });
        }
        match z {
            Some(z) => self.rewrite(z).map(Some),
            None => Ok(None),
        }
    }

    /// A copy of each formula of the list at `head`, linked in the same order.
    pub(super) fn duplicate_list(&mut self, head: Option<NodeId>) -> Res<Option<NodeId>> {
        let mut first = None;
        let mut last: Option<NodeId> = None;
        for n in self.list(head) {
            let d = self.dup1(n)?;
            match last {
                Some(l) => self.set_nxt(l, Some(d)),
                None => first = Some(d),
            }
            last = Some(d);
        }
        Ok(first)
    }
}
