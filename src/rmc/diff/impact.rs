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
use crate::program::expr::{LExpr, LStmt, LVar};
use crate::program::{LocId, Location, Proc, Program};

use crate::rmc::diff::chan_alias::ChanAlias;
use crate::rmc::diff::extension::{layout_extension, Extension, NoMap, Retyped};
use crate::rmc::diff::ids::StableIds;
use crate::rmc::diff::indexed::{index_bounds, IndexBound, Resized};
use crate::rmc::diff::label::{Canon, Names, Parts};

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
    /// The dangerous locations whose change is confined to conditions (`guard_change`): per
    /// stable id, each changed edge's index and its condition in the old and new version.
    /// Where both conditions have the same value, a process there moves as recorded.
    pub guards: BTreeMap<u32, Vec<GuardChange>>,
    /// Across a map, the dangerous locations whose change is confined to accesses of
    /// resized arrays: per stable id, each index with the elements both versions have.
    /// Where every index lies below its bound, a process there moves as recorded.
    pub indexed: BTreeMap<u32, Vec<IndexBound>>,
}

/// The two versions with their locations paired (old location id to new, and new to its
/// stable id).
struct Pairs<'a> {
    old: &'a Program,
    new: &'a Program,
    o2n: &'a HashMap<u32, u32>,
    map: &'a HashMap<u32, u32>,
}

impl Pairs<'_> {
    /// Marks dangerous every old location not yet so for which `judge` gives a reason,
    /// shown the location and the new one paired with it.
    fn mark(
        &self,
        dangerous: &mut BTreeMap<u32, Danger>,
        judge: impl Fn(&Proc, &Location, Option<(&Proc, &Location)>) -> Option<String>,
    ) {
        for op in &self.old.procs {
            let np = self.new.procs.iter().find(|p| p.name == op.name);
            for ol in &op.automaton.locations {
                if dangerous.contains_key(&ol.id.0) {
                    continue;
                }
                let n = self.o2n.get(&ol.id.0).copied();
                let paired = np
                    .zip(n)
                    .and_then(|(np, n)| Some((np, np.automaton.location(LocId(n))?)));
                if let Some(reason) = judge(op, ol, paired) {
                    dangerous.insert(
                        ol.id.0,
                        Danger {
                            proc: op.name.clone(),
                            old: ol.id,
                            new: n.map(|n| LocId(self.map[&n])),
                            reason,
                        },
                    );
                }
            }
        }
    }
}

/// The message fields that hold channel handles, in either version: (fields of the
/// message, index of the field), for every channel type with a field of type chan.
fn handle_fields(progs: [&Program; 2]) -> HandleFields {
    let mut out = HandleFields::new();
    for p in progs {
        // (A layout that does not build maps nothing: the fields are then not needed.)
        let Ok(l) = Layout::new(p) else { continue };
        for c in &l.chans {
            let n = c.source.fields.len();
            for (i, f) in c.source.fields.iter().enumerate() {
                if holds_handle(p, f) {
                    out.insert((n, i));
                }
            }
        }
    }
    out
}

type HandleFields = std::collections::BTreeSet<(usize, usize)>;

/// Channel variables that always hold the channel their declaration creates (initialised
/// with one, written by no statement): an operation through one reaches a channel of its
/// declared type, whose messages tell whether they hold handles. Globals by index, locals
/// by (proctype, index).
struct FixedChans {
    globals: HashMap<usize, crate::program::types::ChanType>,
    locals: HashMap<(String, usize), crate::program::types::ChanType>,
}

impl FixedChans {
    fn of(p: &Program) -> FixedChans {
        use crate::program::expr::{LRecvArg, Slot};
        use crate::program::types::VarInit;
        let init = |v: &crate::program::types::Var| match &v.init {
            VarInit::Chan(ct) => Some(ct.clone()),
            _ => None,
        };
        let mut globals: HashMap<_, _> = (p.globals.iter().enumerate())
            .filter_map(|(i, v)| Some((i, init(v)?)))
            .collect();
        let mut locals: HashMap<_, _> = (p.procs.iter())
            .flat_map(|pr| {
                (pr.locals.iter().enumerate())
                    .filter_map(|(i, v)| Some(((pr.name.clone(), i), init(v)?)))
            })
            .collect();
        fn writes(stmt: &LStmt, f: &mut dyn FnMut(&LVar)) {
            match stmt {
                LStmt::Assign(v, _) | LStmt::ChanInit(v, _) => f(v),
                LStmt::Recv { args, .. } => args.iter().for_each(|a| {
                    if let LRecvArg::Var(v) = a {
                        f(v)
                    }
                }),
                LStmt::DStep(d) => (d.auto.locations.iter())
                    .flat_map(|l| &l.edges)
                    .for_each(|e| writes(&e.stmt, f)),
                _ => {}
            }
        }
        for pr in &p.procs {
            for e in pr.automaton.locations.iter().flat_map(|l| &l.edges) {
                writes(&e.stmt, &mut |v| match v.slot {
                    Slot::Global(i) => {
                        globals.remove(&i);
                    }
                    Slot::Local(i) => {
                        locals.remove(&(pr.name.clone(), i));
                    }
                    _ => {}
                });
            }
        }
        FixedChans { globals, locals }
    }

    /// The type of the channel `chan` (an operand in `proc`) names, where that is known.
    fn type_of(&self, proc: &Proc, chan: &LVar) -> Option<&crate::program::types::ChanType> {
        use crate::program::expr::Slot;
        if !chan.fields.is_empty() {
            return None;
        }
        match chan.slot {
            Slot::Global(i) => self.globals.get(&i),
            Slot::Local(i) => self.locals.get(&(proc.name.clone(), i)),
            _ => None,
        }
    }
}

/// Whether a value of type `ty` holds a channel handle: a channel, or a record with a field
/// that does.
fn holds_handle(p: &Program, ty: &crate::program::types::Type) -> bool {
    use crate::program::types::Type;
    match ty {
        Type::Chan => true,
        Type::Struct { index, .. } => p
            .typedefs
            .get(*index)
            .is_some_and(|td| td.fields.iter().any(|f| holds_handle(p, &f.ty))),
        _ => false,
    }
}

/// Whether a statement of `proc` uses a channel handle otherwise than to name the channel
/// it operates on: as a value (an expression, an argument, a message field, a `run`'s
/// argument) or written into a channel variable; any statement that names a record holding
/// a channel (a typedef's field of type chan) does. A message field that may hold a handle
/// (by the channel's type where its operand always names one of it, `fixed`; else by
/// `fields`, the fields of that arity that hold handles in any channel type) is such a use
/// unless it is received into `_`: the map renumbers the handle in the message, not what
/// it was sent from or is received into, nor what a constant there is compared with.
fn uses_handle(
    prog: &Program,
    proc: &Proc,
    stmt: &LStmt,
    (fields, fixed): (&HandleFields, &FixedChans),
) -> bool {
    use crate::program::expr::{LRecvArg, Slot};
    let handle_at = |chan: &LVar, n: usize, i: usize| match fixed.type_of(proc, chan) {
        Some(ct) => ct.fields.get(i).is_some_and(|t| holds_handle(prog, t)),
        None => fields.contains(&(n, i)),
    };
    let at_handle = |chan: &LVar, args: &[LRecvArg]| {
        args.iter().enumerate().any(|(i, a)| {
            handle_at(chan, args.len(), i)
                && !matches!(a, LRecvArg::Var(v) if v.slot == Slot::Underscore)
        })
    };
    let chan_var = |v: &LVar| {
        let var = match v.slot {
            Slot::Global(i) => prog.globals.get(i),
            Slot::Local(i) => proc.locals.get(i),
            _ => None,
        };
        var.is_some_and(|x| holds_handle(prog, &x.ty))
    };
    let in_expr = |e: &LExpr| {
        let mut found = false;
        e.each(&mut |x| match x {
            LExpr::Var(v) => found |= chan_var(v),
            LExpr::RemoteVar { proc, local, .. } => {
                found |= prog
                    .procs
                    .get(*proc)
                    .and_then(|p| p.locals.get(*local))
                    .is_none_or(|x| holds_handle(prog, &x.ty));
            }
            LExpr::Poll { chan, args, .. } => found |= at_handle(chan, args),
            _ => {}
        });
        found
    };
    match stmt {
        LStmt::Assign(v, e) => {
            chan_var(v) || in_expr(e) || {
                let mut found = false;
                v.each(&mut |x| found |= in_expr(x));
                found
            }
        }
        LStmt::Recv { chan, args, .. } => {
            at_handle(chan, args)
                || args.iter().any(|a| match a {
                    LRecvArg::Var(v) => chan_var(v),
                    LRecvArg::Eval(e) | LRecvArg::Const(e) => in_expr(e),
                })
        }
        LStmt::Send { chan, args, .. }
            if (0..args.len()).any(|i| handle_at(chan, args.len(), i)) =>
        {
            true
        }
        LStmt::DStep(a) => a.auto.locations.iter().any(|l| {
            l.edges
                .iter()
                .any(|e| uses_handle(prog, proc, &e.stmt, (fields, fixed)))
        }),
        LStmt::ChanInit(..) => false,
        _ => {
            let mut found = false;
            stmt.each_expr(&mut |x| found |= in_expr(x));
            found
        }
    }
}

/// One edge whose condition changed and nothing else: (edge index, old, new).
pub type GuardChange = (usize, LExpr, LExpr);

impl Impact {
    pub fn is_dangerous(&self, stable: u32) -> bool {
        self.dangerous.contains_key(&stable)
    }
}

/// Per variable, the numbers its writes and its reads are compared by, its types where it
/// was retyped with its reads kept, and the elements both versions have where it is an
/// array resized (`Extension::read_globals`, `retyped_globals`, `resized_globals`).
#[derive(Default)]
struct Compare {
    write: Vec<usize>,
    read: Vec<usize>,
    retyped: Vec<Option<Retyped>>,
    resized: Vec<Option<u32>>,
    /// Per variable, its index in the new version (`DROPPED`: removed).
    index: Vec<usize>,
}

impl Compare {
    fn new_index(&self, i: usize) -> Option<usize> {
        self.index
            .get(i)
            .copied()
            .filter(|&j| j != crate::rmc::diff::extension::DROPPED)
    }
}

/// The number variable `i` is compared by where read (`read`) or written: its own index
/// where the side numbers its variables as they are.
fn numbered(c: Option<&Compare>, read: bool, i: usize) -> usize {
    c.and_then(|c| if read { &c.read } else { &c.write }.get(i).copied())
        .unwrap_or(i)
}

/// The number variable `i` is compared by where constant `v` is written to it: as a read
/// where both its types hold `v` (`Retyped::holds`), else as a write.
fn numbered_const(c: Option<&Compare>, i: usize, v: i64) -> usize {
    let holds = c
        .and_then(|c| c.retyped.get(i).copied().flatten())
        .is_some_and(|t| t.holds(v));
    numbered(c, holds, i)
}

/// The number element `k` of array `i` is compared by, where the array was resized and
/// both versions have that element (the new index, as if the array were kept).
fn numbered_element(c: Option<&Compare>, i: usize, k: i64) -> Option<usize> {
    let c = c?;
    let n = c.resized.get(i).copied().flatten()?;
    // (A resized array is compared under a number of its own: a kept variable's is its new
    // index.)
    (0..i64::from(n))
        .contains(&k)
        .then(|| c.new_index(i))
        .flatten()
}

/// One side of the comparison: a program, how its targets map to stable ids, and where its
/// labels are.
struct Side<'a> {
    prog: &'a Program,
    /// Positional → stable ids (None: the program's ids are stable already).
    map: Option<&'a HashMap<u32, u32>>,
    labels: HashMap<(usize, String), LocId>,
    /// Per global, and per proctype per local: the number it is compared by (the new
    /// version's, for an old version whose layout the new one extends), written and read.
    globals: Option<Compare>,
    locals: Option<Vec<Compare>>,
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

    /// An old version compared with a new one whose layout maps onto it: its variables
    /// are numbered as the new version numbers them, converted and dropped ones apart.
    fn with_globals(mut self, ext: Option<&Extension>) -> Self {
        self.globals = ext.map(|e| Compare {
            write: e.compare_globals.clone(),
            read: e.read_globals.clone(),
            retyped: e.retyped_globals.clone(),
            resized: e.resized_globals.clone(),
            index: e.globals.clone(),
        });
        self.locals = ext.map(|e| {
            e.old_tags
                .iter()
                .map(|t| {
                    t.and_then(|t| e.procs.get(t as usize))
                        .map_or_else(Default::default, |p| Compare {
                            write: p.compare.clone(),
                            read: p.read.clone(),
                            retyped: p.retyped.clone(),
                            resized: p.resized.clone(),
                            index: p.locals.clone(),
                        })
                })
                .collect()
        });
        self
    }

    /// As `with_globals`, with every resized array compared as if it were kept: a label
    /// that is then the new one differs only in which elements it may reach.
    fn with_resized_kept(mut self, ext: Option<&Extension>) -> Self {
        self = self.with_globals(ext);
        let keep = |c: &mut Compare| {
            for i in 0..c.resized.len() {
                if let (Some(_), Some(j)) = (c.resized[i], c.new_index(i)) {
                    for v in [&mut c.write, &mut c.read] {
                        if let Some(x) = v.get_mut(i) {
                            *x = j;
                        }
                    }
                }
            }
        };
        if let Some(c) = self.globals.as_mut() {
            keep(c);
        }
        for c in self.locals.iter_mut().flatten() {
            keep(c);
        }
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
        numbered(self.globals.as_ref(), false, i)
    }

    fn local(&self, proc: usize, i: usize) -> usize {
        numbered(self.locals.as_ref().and_then(|l| l.get(proc)), false, i)
    }

    fn global_read(&self, i: usize) -> usize {
        numbered(self.globals.as_ref(), true, i)
    }

    fn local_read(&self, proc: usize, i: usize) -> usize {
        numbered(self.locals.as_ref().and_then(|l| l.get(proc)), true, i)
    }

    fn global_const(&self, i: usize, v: i64) -> usize {
        numbered_const(self.globals.as_ref(), i, v)
    }

    fn local_const(&self, proc: usize, i: usize, v: i64) -> usize {
        numbered_const(self.locals.as_ref().and_then(|l| l.get(proc)), i, v)
    }

    fn global_element(&self, i: usize, k: i64) -> Option<usize> {
        numbered_element(self.globals.as_ref(), i, k)
    }

    fn local_element(&self, proc: usize, i: usize, k: i64) -> Option<usize> {
        numbered_element(self.locals.as_ref().and_then(|l| l.get(proc)), i, k)
    }
}

/// Compares an old version (its locations carrying stable ids, `next_free` the first unused
/// id) with a new one (numbered by position, as `program::build` leaves it).
pub fn analyze(old: &Program, new: &Program, next_free: u32) -> Impact {
    let (extension, refused) = match layout_extension(old, new) {
        Ok(e) => (Some(e), None),
        Err(NoMap::Refused(why)) => (None, Some(why)),
        Err(NoMap::Same) => (None, None),
    };
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
    let mut guards = BTreeMap::new();
    // Locations dangerous only by the resized arrays they index, with their indices:
    // settled once every other reason a location may be dangerous has been looked for.
    let mut pending_indexed = BTreeMap::new();
    let kept_side = extension
        .as_ref()
        .filter(|e| {
            let any = |r: &[Option<u32>]| r.iter().any(Option::is_some);
            any(&e.resized_globals) || e.procs.iter().any(|p| any(&p.resized))
        })
        .map(|e| Side::new(old, None).with_resized_kept(Some(e)));
    let mut deleted = 0;
    for op in &old.procs {
        let at = new.procs.iter().position(|p| p.name == op.name);
        let np = at.map(|i| &new.procs[i]);
        let resized = match (extension.as_ref(), at) {
            (Some(e), Some(i)) => Some(Resized::new(e, i)).filter(Resized::any),
            _ => None,
        };
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
                if let Some(g) = guard_change(&a, &b, ol, nl) {
                    guards.insert(ol.id.0, g);
                }
                let d = danger(reason, Some(LocId(map[&n])));
                let bounds = resized.as_ref().zip(kept_side.as_ref()).and_then(|(r, k)| {
                    let kept = k.parts(op, ol);
                    difference(&kept, &b, ol, nl)
                        .is_none()
                        .then(|| index_bounds(nl, r))?
                });
                match bounds {
                    Some(b) if !b.is_empty() => {
                        pending_indexed.insert(ol.id.0, (d, b));
                    }
                    _ => {
                        dangerous.insert(ol.id.0, d);
                    }
                }
            }
        }
    }
    let pairs = Pairs {
        old,
        new,
        o2n: &o2n,
        map: &map,
    };
    // Across a changed channel declaration, every operation that may reach the channel.
    if let Some(e) = extension
        .as_ref()
        .filter(|e| !e.changed_globals.is_empty() || !e.changed_locals.is_empty())
    {
        let renamed: Vec<usize> = e.changed_globals.iter().map(|&g| e.globals[g]).collect();
        let (old_locals, new_locals): (Vec<_>, Vec<_>) = e.changed_locals.iter().copied().unzip();
        let (ao, an) = (
            ChanAlias::new(old, &e.changed_globals, &old_locals),
            ChanAlias::new(new, &renamed, &new_locals),
        );
        pairs.mark(&mut dangerous, |op, ol, paired| {
            ao.touches(op, ol).or_else(|| {
                let (np, nl) = paired?;
                an.touches(np, nl)
            })
        });
    }
    // Across the map, a `run` of a proctype whose processes it changes makes another
    // process: every location that may run one is dangerous (whatever its label says:
    // renamed locals keep a `run`'s label).
    if let Some(e) = extension.as_ref() {
        let changed: Vec<&str> = new
            .procs
            .iter()
            .zip(&e.procs)
            .filter(|(_, p)| p.changed())
            .map(|(np, _)| np.name.as_str())
            .collect();
        if !changed.is_empty() {
            for op in &old.procs {
                for ol in &op.automaton.locations {
                    if dangerous.contains_key(&ol.id.0) {
                        continue;
                    }
                    let mut runs = None;
                    for edge in &ol.edges {
                        edge.stmt.each_expr(&mut |x| {
                            if let LExpr::Run { name, .. } = x {
                                if changed.contains(&name.as_str()) {
                                    runs = Some(name.clone());
                                }
                            }
                        });
                    }
                    if let Some(name) = runs {
                        dangerous.insert(
                            ol.id.0,
                            Danger {
                                proc: op.name.clone(),
                                old: ol.id,
                                new: o2n.get(&ol.id.0).map(|n| LocId(map[n])),
                                reason: format!(
                                    "runs {name}, whose processes the declaration change alters"
                                ),
                            },
                        );
                    }
                }
            }
        }
    }
    // Across renumbered channel handles, a statement that treats a handle as a number (or
    // moves one between variables, or writes one from elsewhere) is dangerous: only channel
    // operations are blind to the numbering.
    if extension.as_ref().is_some_and(|e| e.renumbers_handles()) {
        let fields = handle_fields([old, new]);
        let (fixed_old, fixed_new) = (FixedChans::of(old), FixedChans::of(new));
        pairs.mark(&mut dangerous, |op, ol, paired| {
            let uses = |p: &Program, pr: &Proc, l: &Location, fixed: &FixedChans| {
                (l.edges.iter()).any(|e| uses_handle(p, pr, &e.stmt, (&fields, fixed)))
            };
            let new_uses = |(np, nl)| uses(new, np, nl, &fixed_new);
            (uses(old, op, ol, &fixed_old) || paired.is_some_and(new_uses)).then(|| {
                "uses a channel's number, which channels added, removed or reordered \
                 change"
                    .into()
            })
        });
    }
    // A location that indexes a resized array is dangerous; when nothing else makes it
    // so, a process there whose indices stay below their bounds moves as recorded.
    let mut indexed = BTreeMap::new();
    for (id, (d, b)) in pending_indexed {
        if let std::collections::btree_map::Entry::Vacant(v) = dangerous.entry(id) {
            v.insert(d);
            indexed.insert(id, b);
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
    // A claim's locations are never part of the system's states (a claim is searched on its
    // own, with the system, after the safety check): a changed formula changes no state the
    // record holds.
    let claim_locations: std::collections::HashSet<u32> = old
        .procs
        .iter()
        .filter(|p| p.kind == crate::program::ProcKind::Never)
        .flat_map(|p| p.automaton.locations.iter().map(|l| l.id.0))
        .collect();
    dangerous.retain(|id, _| !claim_locations.contains(id));
    Impact {
        ids,
        paired: o2n.len(),
        new_locations,
        deleted,
        layout_change: match &extension {
            Some(e) => Some(e.describe()),
            // What the map could not carry, where it says; else the first declaration
            // that differs.
            None => refused.or_else(|| layout_change(old, new)),
        },
        notes: initial_notes(old, new, &map, extension.as_ref()),
        extension,
        dangerous,
        guards,
        indexed,
    }
}

/// The changed edges of a paired location, when all that changed are conditions: the same
/// flags, context, edges and targets, and every edge that differs a condition in both
/// versions (`plain`: it reads the state only, faults aside). Then whether a process there
/// moves as recorded is the value of those conditions in its state.
fn guard_change(a: &Parts, b: &Parts, ol: &Location, nl: &Location) -> Option<Vec<GuardChange>> {
    if a.flags != b.flags
        || a.context != b.context
        || a.edges.len() != b.edges.len()
        || ol.edges.len() != a.edges.len()
        || nl.edges.len() != b.edges.len()
    {
        return None;
    }
    // (An edge's bytes hold its atomic and escape structure too: only the statements may
    // differ.)
    if structure(ol) != structure(nl) {
        return None;
    }
    let mut out = Vec::new();
    for (k, (x, y)) in a.edges.iter().zip(&b.edges).enumerate() {
        if x.1 != y.1 {
            return None;
        }
        if x.0 == y.0 {
            continue;
        }
        match (&ol.edges[k].stmt, &nl.edges[k].stmt) {
            (LStmt::Expr(o), LStmt::Expr(n)) if plain(o) && plain(n) => {
                out.push((k, o.clone(), n.clone()));
            }
            _ => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Per edge: whether it keeps control in an atomic sequence, whether it is an escape, and
/// which of the location's escape groups it belongs to (numbered in order of appearance).
fn structure(l: &Location) -> Vec<(bool, bool, usize)> {
    let mut groups = Vec::new();
    l.edges
        .iter()
        .map(|e| {
            let g = if e.escape_group == 0 {
                0
            } else if let Some(i) = groups.iter().position(|&x| x == e.escape_group) {
                i + 1
            } else {
                groups.push(e.escape_group);
                groups.len()
            };
            (e.atomic, e.escape, g)
        })
        .collect()
}

/// An expression whose value is a function of the state and the process evaluating it:
/// constants, variables (by slot), arithmetic and logic, `len`. Not `timeout`, `enabled`,
/// remote references, channel polls or anything that reads other processes' code.
fn plain(e: &LExpr) -> bool {
    let var = |v: &crate::program::expr::LVar| {
        v.index.as_deref().is_none_or(plain)
            && v.fields
                .iter()
                .all(|(_, _, i)| i.as_deref().is_none_or(plain))
    };
    match e {
        LExpr::Const(_) | LExpr::Mtype(..) => true,
        LExpr::Var(v) | LExpr::Len(v) => var(v),
        LExpr::Unary(op, a) => {
            use crate::promela::ast::UnOp;
            matches!(op, UnOp::Neg | UnOp::Not | UnOp::BitNot) && plain(a)
        }
        LExpr::Binary(_, a, b) => plain(a) && plain(b),
        LExpr::Cond(c, a, b) => plain(c) && plain(a) && plain(b),
        _ => false,
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

/// The remote labels (`P[i]@L`) a statement reads: (proctype, label).
fn remote_labels_stmt(s: &LStmt, out: &mut Vec<(usize, String)>) {
    s.each_expr(&mut |e| {
        if let LExpr::RemoteLabel { proc, label, .. } = e {
            out.push((*proc, label.clone()));
        }
    });
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
        // A changed channel's new declaration is the layout change itself, reported there.
        if ext.is_some_and(|e| e.changed_globals.contains(&i)) {
            continue;
        }
        // So is a retyped or resized variable's.
        if ext.is_some_and(|e| e.compare_globals.get(i) != Some(&j)) {
            continue;
        }
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
