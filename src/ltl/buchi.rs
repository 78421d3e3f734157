//! The Büchi automaton: the tableau degeneralised by counting acceptance classes, then reduced
//! the way spin reduces it before printing.
//!
//! Degeneralisation keeps one copy of each tableau node per class `k` (`T<k>_S<n>`, the last
//! copy `accept_S<n>`); an edge leaves copy `k` for the copy of the next class its target does
//! not fulfil (spin's Choueka-style counter). Edges to nodes without successors go to
//! `accept_all`. The reductions follow: edges whose condition has a predicate and its negation
//! are dropped, then, until nothing changes, states reachable from `T0_init` have parallel
//! edges merged and equal states merged; last, pairs of states that differ only by pointing to
//! each other are merged. States and edges are kept in spin's list order (newest first); the
//! printer reverses the edges.

use std::rc::Rc;

use super::error::Res;
use super::tableau::{GraphId, Tableau};
use super::terms::{NodeId, Op, Terms};

pub(super) const ACCEPT_ALL: &str = "accept_all";

pub(super) struct Transition {
    pub(super) to: Rc<str>,
    /// `None` is true.
    pub(super) cond: Option<NodeId>,
    pub(super) redundant: bool,
    marked: bool,
}

pub(super) struct State {
    pub(super) name: Rc<str>,
    /// Newest first.
    pub(super) trans: Vec<Transition>,
    pub(super) redundant: bool,
    pub(super) accepting: bool,
    pub(super) reachable: bool,
}

pub(super) struct Automaton {
    /// Newest first (spin's `never` list).
    pub(super) states: Vec<State>,
    pub(super) max_red: i32,
    /// Some reachable edge goes to `accept_all`.
    pub(super) hits_all: bool,
    /// Lines spin prints on its standard output while reducing (redundant states reached).
    pub(super) notes: Vec<String>,
}

fn is_accept(name: &str) -> bool {
    name.starts_with("accept")
}

impl Automaton {
    /// Degeneralises the tableau (spin's `mkbuchi`).
    pub(super) fn from_tableau(t: &mut Terms, tab: &mut Tableau) -> Res<Automaton> {
        let mut a = Automaton {
            states: Vec::new(),
            max_red: tab.max_red,
            hits_all: false,
            notes: Vec::new(),
        };
        for k in 0..=tab.max_red {
            for g in tab.kept.clone() {
                let node = tab.graph(g);
                if node.outgoing.is_empty() {
                    continue;
                }
                let is_init = &*node.name == "init";
                if k != 0 && is_init && tab.max_red != 0 {
                    continue;
                }
                let copy = if k == tab.max_red && !is_init {
                    format!("accept_{}", node.name)
                } else {
                    format!("T{k}_{}", node.name)
                };
                a.add_edges(t, tab, g, k, &copy)?;
            }
        }
        Ok(a)
    }

    /// The edges of copy `count` of node `g` (spin's `fsm_trans`).
    fn add_edges(
        &mut self,
        t: &mut Terms,
        tab: &mut Tableau,
        g: GraphId,
        count: i32,
        from: &str,
    ) -> Res<()> {
        for succ in tab.graph(g).outgoing.clone() {
            let Some(r) = tab.find(&succ) else { continue };
            let to = if tab.graph(r).outgoing.is_empty() {
                ACCEPT_ALL.to_string()
            } else {
                format!("{}_{}", class_prefix(tab, count, r), succ)
            };
            let old = tab.graph(r).old;
            self.add_transition(t, from, old, &to)?;
        }
        Ok(())
    }

    /// spin's `addtrans`: an edge whose condition is the target's formulas with the temporal
    /// ones pruned, canonicalised.
    fn add_transition(
        &mut self,
        t: &mut Terms,
        from: &str,
        cond: Option<NodeId>,
        to: &str,
    ) -> Res<()> {
        let copy = t.dup(cond)?;
        let mut cond = t.prune(copy)?;
        if let Some(c) = cond {
            cond = Some(t.rewrite(c)?);
        }
        let tr = Transition {
            to: to.into(),
            cond,
            redundant: false,
            marked: false,
        };
        if let Some(s) = self.states.iter_mut().find(|s| &*s.name == from) {
            s.trans.insert(0, tr);
            return Ok(());
        }
        self.states.insert(
            0,
            State {
                name: from.into(),
                trans: vec![tr],
                redundant: false,
                accepting: is_accept(from),
                reachable: false,
            },
        );
        Ok(())
    }

    /// The state named `name`; a `T<k>_...` name that is missing falls back to `accept_...`.
    pub(super) fn find(&self, name: &str) -> Option<usize> {
        if let Some(i) = self.states.iter().position(|s| &*s.name == name) {
            return Some(i);
        }
        if name == ACCEPT_ALL || is_accept(name) {
            return None;
        }
        let cut = name.bytes().take(64).position(|b| b == b'_')?;
        self.find(&format!("accept{}", &name[cut..]))
    }

    /// spin's `fsm_print` up to the printing: every reduction, in spin's order. The header is
    /// printed between the first merge of states and the loop (only notes depend on it).
    pub(super) fn reduce(&mut self, t: &mut Terms) -> Res<Option<usize>> {
        self.clutter(t)?;
        if let Some(i) = self.find("T0_init") {
            if self.max_red == 0 {
                self.states[i].accepting = true;
            }
        }
        self.merge_states(t, false);
        let init = self.find("T0_init");
        loop {
            self.clear_reach();
            self.dfs(init);
            self.merge_transitions(t)?;
            if self.merge_states(t, true) == 0 {
                break;
            }
        }
        self.merge_mutual(t);
        self.clear_reach();
        self.dfs(init);
        Ok(init)
    }

    /// Drops edges whose condition is a conjunction of literals with some `p` and `!p`, unless
    /// the edge is its state's only one (then its condition becomes false).
    fn clutter(&mut self, t: &mut Terms) -> Res<()> {
        for s in &mut self.states {
            let only = s.trans.len() == 1;
            for tr in &mut s.trans {
                tr.cond = t.unclutter(tr.cond)?;
                if tr.cond.is_some_and(|c| t.op(c) == Op::False) && !only {
                    tr.redundant = true;
                }
            }
        }
        Ok(())
    }

    fn clear_reach(&mut self) {
        for s in &mut self.states {
            s.reachable = false;
        }
        self.hits_all = false;
    }

    fn dfs(&mut self, from: Option<usize>) {
        let Some(i) = from else { return };
        if self.states[i].reachable {
            return;
        }
        self.states[i].reachable = true;
        if self.states[i].redundant {
            self.notes
                .push(format!("/* redundant state {} */\n", self.states[i].name));
        }
        let targets: Vec<Rc<str>> = self.states[i]
            .trans
            .iter()
            .filter(|tr| !tr.redundant)
            .map(|tr| tr.to.clone())
            .collect();
        for to in targets {
            self.dfs(self.find(&to));
            if &*to == ACCEPT_ALL {
                self.hits_all = true;
            }
        }
    }

    /// Redirects every edge into `from` to `to` and marks `from` redundant.
    fn retarget(&mut self, from: &str, to: &str) {
        let to: Rc<str> = to.into();
        for s in &mut self.states {
            if &*s.name == from {
                s.redundant = true;
            } else {
                for tr in &mut s.trans {
                    if &*tr.to == from {
                        tr.to = to.clone();
                    }
                }
            }
        }
    }

    /// After merging `from` into `to`: with a single acceptance class spin prints accepting
    /// states with a second label `T0_...`, which edges may name too.
    fn retarget_merged(&mut self, from: &str, to: &str) {
        self.retarget(from, to);
        if is_accept(from) && self.max_red == 0 {
            let alias = format!("T0{}", &from["accept".len()..]);
            self.retarget(&alias, to);
        }
    }

    /// In each reachable state, merges two edges to the same target into one whose condition
    /// is the disjunction (spin's `mergetrans`).
    fn merge_transitions(&mut self, t: &mut Terms) -> Res<usize> {
        let mut cnt = 0;
        for s in self.states.iter_mut().filter(|s| s.reachable) {
            for i in 0..s.trans.len() {
                if s.trans[i].redundant {
                    continue;
                }
                let same = (i + 1..s.trans.len())
                    .find(|&j| !s.trans[j].redundant && s.trans[j].to == s.trans[i].to);
                let Some(j) = same else { continue };
                let merged = match (s.trans[i].cond, s.trans[j].cond) {
                    (None, _) | (_, None) => t.leaf(Op::True)?,
                    (Some(a), Some(b)) => t.binary(Op::Or, a, b)?,
                };
                s.trans[j].cond = Some(t.rewrite(merged)?);
                s.trans[i].redundant = true;
                cnt += 1;
            }
        }
        Ok(cnt)
    }

    /// Merges states with the same acceptance and the same edges, to a fixpoint of at most ten
    /// passes; returns the number of passes that merged (spin's `mergestates`).
    fn merge_states(&mut self, t: &Terms, reachable_only: bool) -> usize {
        self.merge_pairs(reachable_only, |a, x, y| a.all_trans_match(t, x, y))
    }

    /// Merges states whose edges differ only in pointing to each other (spin's `buckyballs`).
    fn merge_mutual(&mut self, t: &Terms) {
        self.merge_pairs(true, |a, x, y| a.all_bucky(t, x, y));
    }

    fn merge_pairs(
        &mut self,
        reachable_only: bool,
        mut equal: impl FnMut(&mut Self, usize, usize) -> bool,
    ) -> usize {
        let mut passes = 0;
        loop {
            let mut merged = 0;
            passes += 1;
            for a in 0..self.states.len() {
                if (reachable_only && !self.states[a].reachable) || self.states[a].redundant {
                    continue;
                }
                for b in a + 1..self.states.len() {
                    if (reachable_only && !self.states[b].reachable) || self.states[b].redundant {
                        continue;
                    }
                    if equal(self, a, b) {
                        merged += 1;
                        let (from, to) = self.merge_direction(a, b);
                        let (from, to) =
                            (self.states[from].name.clone(), self.states[to].name.clone());
                        self.retarget_merged(&from, &to);
                        break;
                    }
                }
            }
            if merged == 0 || passes >= 10 {
                return passes - 1;
            }
        }
    }

    /// Which of two equal states goes: the first, unless only it is accepting; then the
    /// second, unless that is `T0_init`, which stays and becomes accepting. (States merged by
    /// `merge_states` have the same acceptance, so the first goes.)
    fn merge_direction(&mut self, a: usize, b: usize) -> (usize, usize) {
        if self.states[a].accepting && !self.states[b].accepting {
            if &*self.states[b].name == "T0_init" {
                self.states[b].accepting = true;
                (a, b)
            } else {
                (b, a)
            }
        } else {
            (a, b)
        }
    }

    fn all_trans_match(&mut self, t: &Terms, a: usize, b: usize) -> bool {
        let result = self.trans_match(t, a, b);
        for tr in &mut self.states[b].trans {
            tr.marked = false;
        }
        result
    }

    fn trans_match(&mut self, t: &Terms, a: usize, b: usize) -> bool {
        if self.states[a].accepting != self.states[b].accepting {
            return false;
        }
        let same = |x: &Transition, y: &Transition| x.to == y.to && t.isequal(x.cond, y.cond);
        for i in 0..self.states[a].trans.len() {
            let s = &self.states[a].trans[i];
            if s.redundant {
                continue;
            }
            let hit = self.states[b]
                .trans
                .iter()
                .position(|y| !y.redundant && same(&self.states[a].trans[i], y));
            let Some(j) = hit else { return false };
            self.states[b].trans[j].marked = true;
        }
        let (sa, sb) = (&self.states[a], &self.states[b]);
        sb.trans
            .iter()
            .filter(|s| !s.redundant && !s.marked)
            .all(|s| sa.trans.iter().any(|y| !y.redundant && same(s, y)))
    }

    fn all_bucky(&mut self, t: &Terms, a: usize, b: usize) -> bool {
        let result = self.bucky_match(t, a, b);
        for tr in &mut self.states[b].trans {
            tr.marked = false;
        }
        result
    }

    /// Every edge of `a` has an edge of `b` with an equal condition that either points back at
    /// `a` while it points at `b`, or goes to `accept_all` as it does; and the other way round.
    /// The marks made on `a`'s edges in the second half stay, as spin leaves them.
    fn bucky_match(&mut self, t: &Terms, a: usize, b: usize) -> bool {
        let (na, nb) = (self.states[a].name.clone(), self.states[b].name.clone());
        let pairs = |s: &Transition, y: &Transition, here: &str, there: &str| {
            t.isequal(s.cond, y.cond)
                && ((&*s.to == there && &*y.to == here) || (s.to == y.to && &*s.to == ACCEPT_ALL))
        };
        for i in 0..self.states[a].trans.len() {
            if self.states[a].trans[i].redundant {
                continue;
            }
            let s = &self.states[a].trans[i];
            let hit = self.states[b]
                .trans
                .iter()
                .position(|y| !y.redundant && pairs(s, y, &na, &nb));
            let Some(j) = hit else { return false };
            self.states[b].trans[j].marked = true;
        }
        for i in 0..self.states[b].trans.len() {
            let s = &self.states[b].trans[i];
            if s.redundant || s.marked {
                continue;
            }
            let hit = self.states[a]
                .trans
                .iter()
                .position(|y| !y.redundant && pairs(s, y, &nb, &na));
            let Some(j) = hit else { return false };
            self.states[a].trans[j].marked = true;
        }
        true
    }
}

/// The class prefix of an edge from copy `count` into node `r` (spin's `set_prefix`).
fn class_prefix(tab: &Tableau, count: i32, r: GraphId) -> String {
    if tab.labels == 0 || tab.max_red == 0 {
        return "accept".into();
    }
    if count >= tab.max_red {
        return "T0".into();
    }
    let incr = choueka(tab, r, count + 1);
    if incr + count >= tab.max_red {
        "accept".into()
    } else {
        format!("T{}", count + incr)
    }
}

/// How many classes from `count` on node `p` lets the counter pass: each it fulfils, or does
/// not promise, up to the first it promises without fulfilling.
fn choueka(tab: &Tableau, p: GraphId, count: i32) -> i32 {
    let g = tab.graph(p);
    let mut incr = 0;
    for j in count..=tab.max_red {
        if g.green.iter().any(|&c| c as i32 == j) {
            incr += 1;
            continue;
        }
        if g.red.iter().any(|&c| c as i32 == j) {
            break;
        }
        incr += 1;
    }
    incr
}

impl Terms {
    /// Drops the temporal parts of an edge condition: a disjunction with one is true, a
    /// conjunction keeps its other operand (spin's `Prune`).
    fn prune(&mut self, p: Option<NodeId>) -> Res<Option<NodeId>> {
        let Some(n) = p else { return Ok(None) };
        match self.op(n) {
            Op::Pred | Op::Not | Op::False | Op::True | Op::CExpr => Ok(Some(n)),
            Op::Or => {
                let l = self.prune(self.lft(n))?;
                self.set_lft(n, l);
                if l.is_none() {
                    return Ok(None);
                }
                let r = self.prune(self.rgt(n))?;
                self.set_rgt(n, r);
                Ok(r.map(|_| n))
            }
            Op::And => {
                let l = self.prune(self.lft(n))?;
                self.set_lft(n, l);
                if l.is_none() {
                    return self.prune(self.rgt(n));
                }
                let r = self.prune(self.rgt(n))?;
                self.set_rgt(n, r);
                if r.is_none() {
                    return Ok(l);
                }
                Ok(Some(n))
            }
            _ => Ok(None),
        }
    }

    /// False for a conjunction of literals that holds some `p` and `!p`; otherwise `n`.
    fn unclutter(&mut self, n: Option<NodeId>) -> Res<Option<NodeId>> {
        let literal = |t: &Terms, x: Option<NodeId>| matches!(t.op_of(x), Some(Op::Pred | Op::Not));
        let mut at = n;
        while let Some(x) = at {
            let ok = if self.rgt(x).is_some() {
                self.op(x) == Op::And && self.lft(x).is_some() && literal(self, self.lft(x))
            } else {
                literal(self, Some(x))
            };
            if !ok {
                return Ok(n);
            }
            at = self.rgt(x);
        }
        let element = |t: &Terms, x: NodeId| {
            if t.rgt(x).is_some() {
                t.lft(x)
            } else {
                Some(x)
            }
        };
        let mut at = n;
        while let Some(x) = at {
            if let Some(v) = element(self, x) {
                let negated = (self.op(v) == Op::Not)
                    .then(|| self.lft(v))
                    .flatten()
                    .filter(|&p| self.op(p) == Op::Pred);
                if let Some(w) = negated {
                    let mut other = n;
                    while let Some(s) = other {
                        if s != x {
                            if let Some(u) = element(self, s) {
                                if self.op(u) == Op::Pred && self.sym(u) == self.sym(w) {
                                    return self.leaf(Op::False).map(Some);
                                }
                            }
                        }
                        other = self.rgt(s);
                    }
                }
            }
            at = self.rgt(x);
        }
        Ok(n)
    }
}
