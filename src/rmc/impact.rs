//! Impact analysis: which locations of the old version a change makes dangerous, and the
//! stable ids the new version's locations take (DESIGN.md 5.3).
//!
//! Per proctype present in both versions (by name), two phases pair old and new locations:
//! a simultaneous walk from the initial locations that follows edges whose statements are
//! identical, then a longest-common-subsequence diff of what the walk left (in source order),
//! so that one statement inserted early does not give fresh ids to everything after it.
//! Paired new locations keep the old stable id; the others get ids never used before. Every
//! pair is then judged by its whole label, targets compared by stable id: an old location is
//! dangerous when its label differs, when nothing in the new version pairs with it (deleted
//! code), or when it reads `P@L` and `L`'s location is dangerous.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::explore::layout::{Layout, VarLayout};
use crate::program::expr::{LExpr, LRecvArg, LStmt, LVar};
use crate::program::{LocId, Location, Proc, Program};

use super::ids::StableIds;
use super::label::{Canon, Names, Parts};

/// Why an old location is dangerous.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Danger {
    /// The proctype (old name).
    pub proc: String,
    /// The old location (stable id).
    pub old: LocId,
    /// The new location it was paired with (stable id), if any.
    pub new: Option<LocId>,
    pub reason: String,
}

/// The result of comparing two versions.
#[derive(Clone, Debug)]
pub struct Impact {
    /// Stable ids for the new version's locations.
    pub ids: StableIds,
    /// Dangerous old locations by stable id.
    pub dangerous: BTreeMap<u32, Danger>,
    pub paired: usize,
    pub new_locations: usize,
    pub deleted: usize,
    /// Why the state layout differs (then no record of the old version can be reused,
    /// unless the new layout only adds variables: `extension`).
    pub layout_change: Option<String>,
    /// How the new layout extends the old one, when it only adds variables.
    pub extension: Option<Extension>,
    /// Changes that alter the initial state only (they need no dangerous location: the new
    /// initial state is simply not in the record).
    pub notes: Vec<String>,
}

impl Impact {
    pub fn is_dangerous(&self, stable: u32) -> bool {
        self.dangerous.contains_key(&stable)
    }
}

/// One side of the comparison: a program, how its targets map to stable ids, and where its
/// labels are.
struct Side<'a> {
    prog: &'a Program,
    /// Positional → stable ids (None: the program's ids are stable already).
    map: Option<&'a HashMap<u32, u32>>,
    labels: HashMap<(usize, String), LocId>,
    /// Per global, and per proctype per local: the number it is compared by (the new
    /// version's, for an old version whose layout the new one extends).
    globals: Option<Vec<usize>>,
    locals: Option<Vec<Vec<usize>>>,
}

impl<'a> Side<'a> {
    fn new(prog: &'a Program, map: Option<&'a HashMap<u32, u32>>) -> Self {
        let mut labels = HashMap::new();
        for (i, p) in prog.procs.iter().enumerate() {
            for l in &p.automaton.locations {
                for name in &l.labels {
                    labels.insert((i, name.clone()), l.id);
                }
            }
        }
        Side {
            prog,
            map,
            labels,
            globals: None,
            locals: None,
        }
    }

    fn with_globals(mut self, ext: Option<&Extension>) -> Self {
        self.globals = ext.map(|e| e.globals.clone());
        self.locals = ext.map(|e| e.procs.iter().map(|p| p.locals.clone()).collect());
        self
    }

    fn stable(&self, id: LocId) -> Option<u32> {
        match self.map {
            None => Some(id.0),
            Some(m) => m.get(&id.0).copied(),
        }
    }

    fn parts(&self, p: &Proc, l: &Location) -> Parts {
        Canon::new(self.prog, self).parts(p, l)
    }
}

impl Names for Side<'_> {
    fn target(&self, id: LocId) -> Option<u32> {
        self.stable(id)
    }

    fn remote_label(&self, proc: usize, label: &str) -> Option<u32> {
        let l = self.labels.get(&(proc, label.to_string()))?;
        self.stable(*l)
    }

    fn start(&self, proc: usize) -> Option<u32> {
        self.stable(self.prog.procs.get(proc)?.automaton.initial)
    }

    fn global(&self, i: usize) -> usize {
        self.globals
            .as_ref()
            .and_then(|g| g.get(i).copied())
            .unwrap_or(i)
    }

    fn local(&self, proc: usize, i: usize) -> usize {
        self.locals
            .as_ref()
            .and_then(|l| l.get(proc)?.get(i).copied())
            .unwrap_or(i)
    }
}

/// Compares an old version (its locations carrying stable ids, `next_free` the first unused
/// id) with a new one (numbered by position, as `program::build` leaves it).
pub fn analyze(old: &Program, new: &Program, next_free: u32) -> Impact {
    let extension = layout_extension(old, new);
    let old_side = Side::new(old, None).with_globals(extension.as_ref());
    // Shapes leave every stable id out (targets, labels read remotely, where `run` starts),
    // on both sides alike.
    let empty = HashMap::new();
    let old_shape_side = Side::new(old, Some(&empty)).with_globals(extension.as_ref());
    let shape_side = Side::new(new, Some(&empty));
    // Shapes (labels without targets) of every location.
    let shapes = |side: &Side, p: &Proc| -> HashMap<u32, Parts> {
        p.automaton
            .locations
            .iter()
            .map(|l| (l.id.0, side.parts(p, l)))
            .collect()
    };
    let mut o2n: HashMap<u32, u32> = HashMap::new();
    let mut n2o: HashMap<u32, u32> = HashMap::new();
    for np in &new.procs {
        let Some(op) = old.procs.iter().find(|p| p.name == np.name) else {
            continue;
        };
        let os = shapes(&old_shape_side, op);
        let ns = shapes(&shape_side, np);
        // Phase 1: walk both automata together from the initial locations.
        let mut queue = VecDeque::new();
        let (oi, ni) = (op.automaton.initial.0, np.automaton.initial.0);
        // The initial locations pair when they look alike (a changed guard keeps its place,
        // unless the old one is found unchanged further on); a statement inserted at the
        // top is left to the sequence diff, which pairs what follows it.
        let alike = |o: u32, n: u32| {
            op.automaton
                .location(LocId(o))
                .zip(np.automaton.location(LocId(n)))
                .is_some_and(|(a, b)| kinds(a) == kinds(b))
        };
        let moved = ns.values().any(|n| n.same_shape(&os[&oi]));
        if !o2n.contains_key(&oi)
            && !n2o.contains_key(&ni)
            && (os[&oi].same_shape(&ns[&ni]) || (alike(oi, ni) && !moved))
        {
            o2n.insert(oi, ni);
            n2o.insert(ni, oi);
            queue.push_back((oi, ni));
        }
        while let Some((o, n)) = queue.pop_front() {
            let (Some(ol), Some(nl)) = (
                op.automaton.location(LocId(o)),
                np.automaton.location(LocId(n)),
            ) else {
                continue;
            };
            // Follow the edges whose statements are identical, even from a pair whose labels
            // differ elsewhere.
            let (a, b) = (&os[&o], &ns[&n]);
            for (k, (oe, ne)) in ol.edges.iter().zip(&nl.edges).enumerate() {
                if a.edges[k].0 != b.edges[k].0 {
                    continue;
                }
                let (to, tn) = (oe.target.0, ne.target.0);
                if !o2n.contains_key(&to) && !n2o.contains_key(&tn) {
                    o2n.insert(to, tn);
                    n2o.insert(tn, to);
                    queue.push_back((to, tn));
                }
            }
        }
        // Phase 2: a sequence diff of the locations the walk left, in source order.
        let order = |p: &Proc, taken: &HashMap<u32, u32>| -> Vec<u32> {
            let mut v: Vec<&Location> = p
                .automaton
                .locations
                .iter()
                .filter(|l| !taken.contains_key(&l.id.0))
                .collect();
            v.sort_by_key(|l| (l.span.file, l.span.start, l.id));
            v.into_iter().map(|l| l.id.0).collect()
        };
        let ol = order(op, &o2n);
        let nl = order(np, &n2o);
        let ot: Vec<u64> = ol.iter().map(|i| os[i].shape_hash()).collect();
        let nt: Vec<u64> = nl.iter().map(|i| ns[i].shape_hash()).collect();
        let mut pair = |o: u32, n: u32| {
            if !o2n.contains_key(&o) && !n2o.contains_key(&n) {
                o2n.insert(o, n);
                n2o.insert(n, o);
            }
        };
        for op_ in similar::capture_diff_slices(similar::Algorithm::Myers, &ot, &nt) {
            match op_ {
                similar::DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        let (o, n) = (ol[old_index + k], nl[new_index + k]);
                        if os[&o].same_shape(&ns[&n]) {
                            pair(o, n);
                        }
                    }
                }
                // As many changed locations as they were: each one changed in place (it
                // keeps its id, and is dangerous because its label differs), so that what
                // leads to it still leads to the same id.
                similar::DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } if old_len == new_len => {
                    for k in 0..old_len {
                        pair(ol[old_index + k], nl[new_index + k]);
                    }
                }
                // Otherwise each old location pairs with the next new one of the same kind.
                similar::DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    let mut j = 0;
                    for k in 0..old_len {
                        let o = ol[old_index + k];
                        if let Some(d) = (j..new_len).find(|&d| alike(o, nl[new_index + d])) {
                            pair(o, nl[new_index + d]);
                            j = d + 1;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    // Stable ids for the new version: paired locations keep the old id.
    let mut next = next_free;
    let mut positional: Vec<u32> = new.location_ids().map(|l| l.0).collect();
    positional.sort_unstable();
    let mut map: HashMap<u32, u32> = HashMap::new();
    let mut new_locations = 0;
    for &pos in &positional {
        let stable = match n2o.get(&pos) {
            Some(&o) => o,
            None => {
                new_locations += 1;
                next += 1;
                next - 1
            }
        };
        map.insert(pos, stable);
    }
    let ids = StableIds {
        pairs: positional.iter().map(|p| (*p, map[p])).collect(),
        next_free: next,
    };
    // Judge every old location by its whole label.
    let new_side = Side::new(new, Some(&map));
    let mut dangerous = BTreeMap::new();
    let mut deleted = 0;
    for op in &old.procs {
        let np = new.procs.iter().find(|p| p.name == op.name);
        for ol in &op.automaton.locations {
            let danger = |reason: String, new: Option<LocId>| Danger {
                proc: op.name.clone(),
                old: ol.id,
                new,
                reason,
            };
            let Some(np) = np else {
                deleted += 1;
                dangerous.insert(
                    ol.id.0,
                    danger(format!("proctype {} was removed", op.name), None),
                );
                continue;
            };
            let Some(&n) = o2n.get(&ol.id.0) else {
                deleted += 1;
                dangerous.insert(ol.id.0, danger("deleted".into(), None));
                continue;
            };
            let Some(nl) = np.automaton.location(LocId(n)) else {
                continue;
            };
            let a = old_side.parts(op, ol);
            let b = new_side.parts(np, nl);
            if let Some(reason) = difference(&a, &b, ol, nl) {
                dangerous.insert(ol.id.0, danger(reason, Some(LocId(map[&n]))));
            }
        }
    }
    // A location that reads `P@L` is dangerous when L's location is.
    loop {
        let mut more = Vec::new();
        for op in &old.procs {
            for ol in &op.automaton.locations {
                if dangerous.contains_key(&ol.id.0) {
                    continue;
                }
                let mut refs = Vec::new();
                for e in &ol.edges {
                    remote_labels_stmt(&e.stmt, &mut refs);
                }
                if let Some(&(pi, ref lab)) = refs.iter().find(|(pi, lab)| {
                    old_side
                        .labels
                        .get(&(*pi, lab.clone()))
                        .is_some_and(|l| dangerous.contains_key(&l.0))
                }) {
                    let pname = old.procs.get(pi).map_or("?", |p| p.name.as_str());
                    more.push(Danger {
                        proc: op.name.clone(),
                        old: ol.id,
                        new: o2n.get(&ol.id.0).map(|n| LocId(map[n])),
                        reason: format!("reads {pname}@{lab}, whose location is dangerous"),
                    });
                }
            }
        }
        if more.is_empty() {
            break;
        }
        for d in more {
            dangerous.insert(d.old.0, d);
        }
    }
    Impact {
        ids,
        paired: o2n.len(),
        new_locations,
        deleted,
        layout_change: match &extension {
            Some(e) => Some(format!("{} added", e.describe())),
            None => layout_change(old, new),
        },
        notes: initial_notes(old, new, &map, extension.as_ref()),
        extension,
        dangerous,
    }
}

/// What kinds of statement leave a location, and its flags: locations of one kind are the
/// same place changed, when nothing better pairs them.
fn kinds(l: &Location) -> Vec<u8> {
    let mut k = vec![
        u8::from(l.end)
            | u8::from(l.progress) << 1
            | u8::from(l.atomic) << 2
            | u8::from(l.terminal) << 3,
    ];
    k.extend(l.edges.iter().map(|e| match &e.stmt {
        LStmt::Expr(_) => 1,
        LStmt::Assign(..) => 2,
        LStmt::Send { .. } => 3,
        LStmt::Recv { .. } => 4,
        LStmt::Else => 5,
        LStmt::Goto(_) => 6,
        LStmt::Assert(_) => 7,
        LStmt::Printf(..) | LStmt::Printm(_) => 8,
        LStmt::SetPriority(..) => 9,
        LStmt::DStep(_) => 10,
        LStmt::ChanInit(..) => 11,
        LStmt::End => 12,
    }));
    k
}

/// The first part in which two labels differ, as a one-line reason.
fn difference(a: &Parts, b: &Parts, ol: &Location, nl: &Location) -> Option<String> {
    if a == b {
        return None;
    }
    if a.flags != b.flags {
        return Some("its end/progress/accept label or atomic membership changed".into());
    }
    if a.context != b.context {
        return Some("the proctype's provided clause or priority changed".into());
    }
    if a.edges.len() != b.edges.len() {
        return Some(format!(
            "{} outgoing statements instead of {}",
            b.edges.len(),
            a.edges.len()
        ));
    }
    for (k, (x, y)) in a.edges.iter().zip(&b.edges).enumerate() {
        if x.0 != y.0 {
            let (a, b) = (&ol.edges[k].text, &nl.edges[k].text);
            return Some(if a == b {
                format!("`{a}` now means something else (a variable it names was redeclared elsewhere, or a constant changed)")
            } else {
                format!("statement changed: `{a}` became `{b}`")
            });
        }
        if x.1 != y.1 {
            return Some(format!(
                "`{}` now leads elsewhere (its target location changed)",
                ol.edges[k].text
            ));
        }
    }
    Some("its label changed".into())
}

fn remote_labels_stmt(s: &LStmt, out: &mut Vec<(usize, String)>) {
    match s {
        LStmt::Expr(e) | LStmt::Assert(e) | LStmt::Printm(e) => remote_labels(e, out),
        LStmt::Assign(v, e) => {
            remote_labels_var(v, out);
            remote_labels(e, out);
        }
        LStmt::Send { chan, args, .. } => {
            remote_labels_var(chan, out);
            args.iter().for_each(|a| remote_labels(a, out));
        }
        LStmt::Recv { chan, args, .. } => {
            remote_labels_var(chan, out);
            remote_labels_args(args, out);
        }
        LStmt::Printf(_, args) => args.iter().for_each(|a| remote_labels(a, out)),
        LStmt::SetPriority(a, b) => {
            remote_labels(a, out);
            remote_labels(b, out);
        }
        LStmt::DStep(a) => {
            for l in &a.locations {
                for e in &l.edges {
                    remote_labels_stmt(&e.stmt, out);
                }
            }
        }
        LStmt::ChanInit(v, _) => remote_labels_var(v, out),
        LStmt::Else | LStmt::Goto(_) | LStmt::End => {}
    }
}

fn remote_labels_var(v: &LVar, out: &mut Vec<(usize, String)>) {
    if let Some(i) = &v.index {
        remote_labels(i, out);
    }
    for (_, _, i) in &v.fields {
        if let Some(i) = i {
            remote_labels(i, out);
        }
    }
}

fn remote_labels_args(args: &[LRecvArg], out: &mut Vec<(usize, String)>) {
    for a in args {
        match a {
            LRecvArg::Var(v) => remote_labels_var(v, out),
            LRecvArg::Eval(e) | LRecvArg::Const(e) => remote_labels(e, out),
        }
    }
}

fn remote_labels(e: &LExpr, out: &mut Vec<(usize, String)>) {
    match e {
        LExpr::RemoteLabel {
            proc, index, label, ..
        } => {
            out.push((*proc, label.clone()));
            if let Some(i) = index {
                remote_labels(i, out);
            }
        }
        LExpr::Var(v) | LExpr::Len(v) | LExpr::Probe(_, v) => remote_labels_var(v, out),
        LExpr::Unary(_, a) | LExpr::Enabled(a) | LExpr::GetPriority(a) | LExpr::PcValue(a) => {
            remote_labels(a, out)
        }
        LExpr::Binary(_, a, b) => {
            remote_labels(a, out);
            remote_labels(b, out);
        }
        LExpr::Cond(c, a, b) => {
            remote_labels(c, out);
            remote_labels(a, out);
            remote_labels(b, out);
        }
        LExpr::Run { args, .. } => args.iter().for_each(|a| remote_labels(a, out)),
        LExpr::Poll { chan, args, .. } => {
            remote_labels_var(chan, out);
            remote_labels_args(args, out);
        }
        LExpr::RemoteVar {
            index, var_index, ..
        } => {
            for i in [index, var_index].into_iter().flatten() {
                remote_labels(i, out);
            }
        }
        LExpr::Const(_) | LExpr::Mtype(..) | LExpr::Timeout | LExpr::Np => {}
    }
}

/// A new layout that differs from an old one only by variables it adds, globals or locals of
/// a proctype (scalars or arrays of them: no channel, no record), the others keeping their
/// names and types. Every statement that reads or writes an added variable is new, and a
/// `run` of a proctype that gained a local makes a different process, so their locations are
/// dangerous; every other statement leaves the added variables as they are. A new state
/// therefore has the sub-state-space of the old state it projects to (its bytes without the
/// added variables), and a pruning run looks states up by that projection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    /// Per old global: its index among the new globals.
    pub globals: Vec<usize>,
    /// Per old global, in order: where its bytes are in the new globals area (offset, size).
    pub from: Vec<(u32, u32)>,
    /// Where the globals area starts (the same in both), and where the records start in the
    /// new canonical vector.
    pub globals_at: u32,
    pub records_at: u32,
    /// Per proctype, the same for its locals.
    pub procs: Vec<ProcExtension>,
    /// Bytes of a channel record per channel type, and of a process record before its
    /// locals (tag, stable location, priority), in the canonical vector.
    pub chan_sizes: Vec<u32>,
    pub proc_head: u32,
    /// The added variables' names (`P:x` for a local of proctype P).
    pub added: Vec<String>,
}

/// How a proctype's locals map from the old layout to the new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcExtension {
    /// Per old local: its index among the new locals.
    pub locals: Vec<usize>,
    /// Per old local, in order: where its bytes are among the new locals (offset, size).
    pub from: Vec<(u32, u32)>,
    /// Bytes of the new locals.
    pub size: u32,
}

impl Extension {
    /// The bytes of the record of a channel whose tag is `tag` (None: a type it does not
    /// know).
    fn chan_size(&self, tag: u8) -> Option<usize> {
        let t = (tag & !crate::explore::layout::CHAN_TAG) as usize;
        self.chan_sizes.get(t).map(|&s| s as usize)
    }

    /// "global 'g'", "globals 'g', 'P:x'": what was added.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self.added.iter().map(|n| format!("'{n}'")).collect();
        let what = if self.added.iter().all(|n| !n.contains(':')) {
            "global"
        } else {
            "variable"
        };
        let s = if names.len() == 1 { "" } else { "s" };
        format!("{what}{s} {}", names.join(", "))
    }

    /// The old version's canonical vector of the state whose new canonical vector is
    /// `canon` (false: `canon` is not one of the new layout's).
    pub fn project(&self, canon: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_project(canon, out).is_some()
    }

    fn try_project(&self, canon: &[u8], out: &mut Vec<u8>) -> Option<()> {
        out.clear();
        let (g, r) = (self.globals_at as usize, self.records_at as usize);
        out.extend_from_slice(canon.get(..g)?);
        let copy = |out: &mut Vec<u8>, base: usize, from: &[(u32, u32)]| -> Option<()> {
            for &(off, size) in from {
                let at = base + off as usize;
                out.extend_from_slice(canon.get(at..at + size as usize)?);
            }
            Some(())
        };
        copy(out, g, &self.from)?;
        for rec in self.records(canon, r, true) {
            match rec? {
                Rec::Chan(x) => out.extend_from_slice(&canon[x]),
                Rec::Proc { tag, head, locals } => {
                    out.extend_from_slice(&canon[head]);
                    copy(out, locals.start, &self.procs[tag as usize].from)?;
                }
            }
        }
        Some(())
    }

    /// The records (processes and channels, in creation order) of the canonical vector `v`
    /// from `at`, in the new layout (`new`) or in the old one. A record that does not fit
    /// (an unknown tag, bytes past the end) is `None`, and the walk ends there.
    fn records<'a>(&'a self, v: &'a [u8], at: usize, new: bool) -> Records<'a> {
        Records {
            ext: self,
            v,
            at,
            new,
        }
    }

    /// The new canonical vector of a successor that a step not touching the added variables
    /// leads to from `parent` (a new canonical vector), given the successor's old canonical
    /// vector `old`: the old variables' bytes come from `old`, the added ones from `parent`
    /// (a process keeps its pid, so its added locals are those of the parent's process with
    /// the same pid). False when they do not fit: a process of a proctype that gained locals
    /// that the parent does not have (its creation is dangerous, so a replayed step never
    /// makes one), or vectors of another layout.
    pub fn embed(&self, old: &[u8], parent: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_embed(old, parent, out).is_some()
    }

    /// What `embed` takes from a parent (new canonical vector `canon`): the added
    /// variables' bytes, with each process's tag (the old variables' bytes zeroed). Two
    /// parents with the same extras give every successor the same new vector.
    pub fn extras(&self, canon: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_extras(canon, out).is_some()
    }

    fn try_extras(&self, canon: &[u8], out: &mut Vec<u8>) -> Option<()> {
        out.clear();
        let (g, r) = (self.globals_at as usize, self.records_at as usize);
        let zero = |out: &mut Vec<u8>, start: usize, from: &[(u32, u32)]| {
            for &(off, size) in from {
                let o = start + off as usize;
                out.get_mut(o..o + size as usize)?.fill(0);
            }
            Some(())
        };
        out.extend_from_slice(canon.get(g..r)?);
        zero(out, 0, &self.from)?;
        for rec in self.records(canon, r, true) {
            if let Rec::Proc { tag, locals, .. } = rec? {
                out.push(tag);
                let p = &self.procs[tag as usize];
                if p.grew() {
                    let start = out.len();
                    out.extend_from_slice(&canon[locals]);
                    zero(out, start, &p.from)?;
                }
            }
        }
        Some(())
    }

    fn try_embed(&self, old: &[u8], parent: &[u8], out: &mut Vec<u8>) -> Option<()> {
        out.clear();
        let (g, r) = (self.globals_at as usize, self.records_at as usize);
        out.extend_from_slice(old.get(..g)?);
        // Over the parent's bytes of an area, the old variables' bytes, in order.
        let overlay = |out: &mut Vec<u8>, start: usize, from: &[(u32, u32)], at: &mut usize| {
            for &(off, size) in from {
                let (o, s) = (start + off as usize, size as usize);
                let src = old.get(*at..*at + s)?;
                out.get_mut(o..o + s)?.copy_from_slice(src);
                *at += s;
            }
            Some(())
        };
        out.extend_from_slice(parent.get(g..r)?);
        let mut at = g;
        overlay(out, g, &self.from, &mut at)?;
        // The parent's process records, met in pid order as the successor's are (None: the
        // parent's vector does not fit).
        let mut parents = self.records(parent, r, true).filter_map(|rec| match rec {
            Some(Rec::Proc { tag, locals, .. }) => Some(Some((tag, locals))),
            Some(Rec::Chan(_)) => None,
            None => Some(None),
        });
        for rec in self.records(old, at, false) {
            match rec? {
                Rec::Chan(x) => out.extend_from_slice(&old[x]),
                Rec::Proc { tag, head, locals } => {
                    out.extend_from_slice(&old[head]);
                    let p = &self.procs[tag as usize];
                    let start = out.len();
                    // (The parent's record of the same pid is passed even when not needed,
                    // to keep the two walks in step.)
                    match parents.next() {
                        _ if !p.grew() => out.resize(start + p.size as usize, 0),
                        Some(Some((t, l))) if t == tag => out.extend_from_slice(&parent[l]),
                        _ => return None,
                    }
                    let mut from = locals.start;
                    overlay(out, start, &p.from, &mut from)?;
                }
            }
        }
        Some(())
    }
}

impl ProcExtension {
    /// Whether the proctype gained locals.
    fn grew(&self) -> bool {
        self.from.iter().map(|f| f.1).sum::<u32>() < self.size
    }
}

/// One record of a canonical vector, as byte ranges.
enum Rec {
    Chan(std::ops::Range<usize>),
    Proc {
        tag: u8,
        head: std::ops::Range<usize>,
        locals: std::ops::Range<usize>,
    },
}

/// The walk of `Extension::records`.
struct Records<'a> {
    ext: &'a Extension,
    v: &'a [u8],
    at: usize,
    new: bool,
}

impl Iterator for Records<'_> {
    type Item = Option<Rec>;

    fn next(&mut self) -> Option<Option<Rec>> {
        let at = self.at;
        let tag = *self.v.get(at)?;
        // Whatever happens, a record that does not fit ends the walk.
        self.at = usize::MAX;
        let rec = if tag & crate::explore::layout::CHAN_TAG != 0 {
            self.ext
                .chan_size(tag)
                .map(|size| at + size)
                .filter(|&end| end <= self.v.len())
                .map(|end| (end, Rec::Chan(at..end)))
        } else {
            self.ext.procs.get(tag as usize).and_then(|p| {
                let size = if self.new {
                    p.size
                } else {
                    p.from.iter().map(|f| f.1).sum()
                };
                let l = at + self.ext.proc_head as usize;
                let end = l + size as usize;
                (end <= self.v.len()).then(|| {
                    let head = at..l;
                    (
                        end,
                        Rec::Proc {
                            tag,
                            head,
                            locals: l..end,
                        },
                    )
                })
            })
        };
        Some(rec.map(|(end, r)| {
            self.at = end;
            r
        }))
    }
}

/// Per old variable, its index among the new ones and where its bytes are (offset, size).
type Pairing = (Vec<usize>, Vec<(u32, u32)>);

/// Pairs old variables with new ones by name (same scalars, same visibility); the new ones
/// left over are added (their names go to `added`, after `prefix`) and must be plain data.
/// Returns, per old variable, its new index and where its bytes are. None: a variable was
/// removed or changed type, or a channel or a record was added.
fn pair_vars(
    old: (&[crate::program::types::Var], &[VarLayout]),
    new: (&[crate::program::types::Var], &[VarLayout]),
    prefix: &str,
    added: &mut Vec<String>,
) -> Option<Pairing> {
    use crate::program::types::Type;
    let scalars = |v: &VarLayout| {
        let mut sc = Vec::new();
        v.shape.scalars(0, &mut sc);
        sc.iter()
            .map(|(o, s)| (*o, s.width, s.signed, s.bits))
            .collect::<Vec<_>>()
    };
    let (mut index, mut from) = (Vec::new(), Vec::new());
    let mut taken = vec![false; new.0.len()];
    for (k, v) in old.0.iter().enumerate() {
        let j = new.0.iter().position(|w| w.name == v.name)?;
        let (ol, nl) = (old.1.get(k)?, new.1.get(j)?);
        if taken[j] || scalars(ol) != scalars(nl) || v.vis != new.0[j].vis || ol.hidden != nl.hidden
        {
            return None;
        }
        taken[j] = true;
        index.push(j);
        from.push((nl.offset, nl.shape.size()));
    }
    for (j, w) in new.0.iter().enumerate() {
        if taken[j] {
            continue;
        }
        if matches!(w.ty, Type::Chan | Type::Struct { .. }) || new.1.get(j)?.hidden {
            return None;
        }
        added.push(format!("{prefix}{}", w.name));
    }
    Some((index, from))
}

/// How `new`'s layout extends `old`'s, when it only adds variables (see `Extension`).
pub fn layout_extension(old: &Program, new: &Program) -> Option<Extension> {
    let (a, b) = (Layout::new(old).ok()?, Layout::new(new).ok()?);
    if a.hash == b.hash
        || a.hidden_size != 0
        || b.hidden_size != 0
        || a.last_at != b.last_at
        || a.globals_at != b.globals_at
        || a.uses_priority != b.uses_priority
        || a.chans != b.chans
        || old.procs.len() != new.procs.len()
    {
        return None;
    }
    let mut added = Vec::new();
    let (globals, from) = pair_vars(
        (&old.globals, &a.globals),
        (&new.globals, &b.globals),
        "",
        &mut added,
    )?;
    let mut procs = Vec::with_capacity(new.procs.len());
    for (i, (x, y)) in a.procs.iter().zip(&b.procs).enumerate() {
        let (op, np) = (&old.procs[i], &new.procs[i]);
        if x.header != y.header || op.kind != np.kind || op.name != np.name {
            return None;
        }
        let (locals, from) = pair_vars(
            (&op.locals, &x.locals),
            (&np.locals, &y.locals),
            &format!("{}:", np.name),
            &mut added,
        )?;
        procs.push(ProcExtension {
            locals,
            from,
            size: y.locals_size,
        });
    }
    if added.is_empty() {
        return None;
    }
    Some(Extension {
        globals,
        from,
        globals_at: b.globals_at,
        records_at: b.records_at,
        procs,
        chan_sizes: b.chans.iter().map(|c| c.record_size() as u32).collect(),
        proc_head: b.procs.first().map_or(0, |p| p.header + 4 - b.loc_width),
        added,
    })
}

/// Why two versions' state layouts differ, naming the first declaration that differs.
pub fn layout_change(old: &Program, new: &Program) -> Option<String> {
    let (a, b) = match (Layout::new(old), Layout::new(new)) {
        (Ok(a), Ok(b)) => (a, b),
        _ => return Some("the state layout cannot be built".into()),
    };
    if a.hash == b.hash {
        return None;
    }
    let shape = |v: &VarLayout| {
        let mut sc = Vec::new();
        v.shape.scalars(0, &mut sc);
        (
            v.offset,
            v.hidden,
            sc.iter()
                .map(|(o, s)| (*o, s.width, s.signed, s.bits))
                .collect::<Vec<_>>(),
        )
    };
    let first = |xs: &[VarLayout], ys: &[VarLayout], owner: &str| -> Option<String> {
        for k in 0..xs.len().max(ys.len()) {
            match (xs.get(k), ys.get(k)) {
                (Some(x), Some(y)) if shape(x) == shape(y) => continue,
                (Some(x), Some(y)) => {
                    return Some(format!(
                        "{owner} declaration '{}' changed its type, size or place (now '{}')",
                        x.name, y.name
                    ))
                }
                (Some(x), None) => return Some(format!("{owner} '{}' was removed", x.name)),
                (None, Some(y)) => return Some(format!("{owner} '{}' was added", y.name)),
                (None, None) => {}
            }
        }
        None
    };
    if let Some(m) = first(&a.globals, &b.globals, "global") {
        return Some(m);
    }
    if a.last_at.is_some() != b.last_at.is_some() {
        return Some("the model's use of _last changed".into());
    }
    if a.uses_priority != b.uses_priority {
        return Some("the model's use of priorities changed".into());
    }
    if old.procs.len() != new.procs.len() {
        return Some(format!(
            "{} proctypes instead of {}",
            new.procs.len(),
            old.procs.len()
        ));
    }
    for (i, (x, y)) in a.procs.iter().zip(&b.procs).enumerate() {
        let owner = format!("proctype {}: local", new.procs[i].name);
        if let Some(m) = first(&x.locals, &y.locals, &owner) {
            return Some(m);
        }
        if old.procs[i].kind != new.procs[i].kind {
            return Some(format!("proctype {} changed kind", new.procs[i].name));
        }
    }
    if a.chans != b.chans {
        return Some("the channel types changed".into());
    }
    Some("the state layout changed".into())
}

/// Changes that alter only the initial state: process counts and initial global values.
fn initial_notes(
    old: &Program,
    new: &Program,
    map: &HashMap<u32, u32>,
    ext: Option<&Extension>,
) -> Vec<String> {
    let mut notes = Vec::new();
    for np in &new.procs {
        if let Some(op) = old.procs.iter().find(|p| p.name == np.name) {
            if Some(&op.automaton.initial.0) != map.get(&np.automaton.initial.0) {
                notes.push(format!(
                    "proctype {} starts at another location: the states that create it change",
                    np.name
                ));
            }
            if op.active != np.active {
                notes.push(format!(
                    "active [{}] instead of [{}] for proctype {}: the initial state changed",
                    np.active, op.active, np.name
                ));
            }
        }
    }
    let side_o = Side::new(old, None).with_globals(ext);
    let side_n = Side::new(new, None);
    // Globals pair by place, or by name when the layout only gained some.
    let pairs: Vec<(usize, usize)> = match ext {
        Some(e) => e.globals.iter().copied().enumerate().collect(),
        None => (0..old.globals.len().min(new.globals.len()))
            .map(|k| (k, k))
            .collect(),
    };
    for (i, j) in pairs {
        let (Some(a), Some(b)) = (old.globals.get(i), new.globals.get(j)) else {
            continue;
        };
        let k = j;
        let mut ca = Canon::new(old, &side_o);
        let mut cb = Canon::new(new, &side_n);
        ca.var_decl(a);
        cb.var_decl(b);
        if ca.out != cb.out {
            notes.push(format!(
                "the initial value of global '{}' (declaration {}) changed: the initial state changed",
                b.name,
                k + 1
            ));
        }
    }
    notes
}
