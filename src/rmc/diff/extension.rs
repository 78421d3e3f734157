//! How a new state layout extends an old one (added globals and locals, global channels
//! whose declaration changed), and the maps between the two layouts' canonical vectors that
//! let a run meet recorded states through their projection.

use crate::explore::layout::{Layout, VarLayout, CHAN_TAG};
use crate::program::types::{ChanType, Type, Var, VarInit};
use crate::program::Program;

/// A new layout that differs from an old one only by variables it adds (globals or locals
/// of a proctype: scalars or arrays of them, no channel, no record) and by the declarations
/// of global channels (capacity, message type), the others keeping their names and types.
///
/// Every statement that reads or writes an added variable is new, a `run` of a proctype that
/// gained a local makes a different process, and every operation that may reach a changed
/// channel is dangerous (`chan_alias`); every other statement leaves the added variables and
/// the changed channels as they are and does not depend on them. A new state therefore has
/// the sub-state-space of the old state it projects to (its bytes without the added
/// variables, its changed channels' contents kept where they fit the old declaration), and a
/// run looks states up by that projection.
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
    /// Per channel type of the new layout (by tag), and of the old one: its record's bytes
    /// and the other layout's tag for the same type.
    pub chans: Vec<ChanMap>,
    pub old_chans: Vec<ChanMap>,
    /// The global channels' records, in order: they open the records area of every state
    /// (created with the globals, before any process, and never removed).
    pub prefix: Vec<GlobalChan>,
    /// Bytes of a process record before its locals (tag, stable location, priority), in the
    /// canonical vector.
    pub proc_head: u32,
    /// The added variables' names (`P:x` for a local of proctype P).
    pub added: Vec<String>,
    /// The global channels whose declaration changed, described, and the old globals that
    /// declare them.
    pub changed: Vec<String>,
    pub changed_globals: Vec<usize>,
}

/// A channel type of one layout: its record's bytes, and the tag of the same type in the
/// other layout (None: that one has no such type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChanMap {
    pub size: u32,
    pub other: Option<u8>,
}

/// One global channel's record in the old and in the new layout: its tag, capacity and bytes
/// per message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalChan {
    pub old: (u8, u32, u32),
    pub new: (u8, u32, u32),
    /// Its declaration changed: its operations are dangerous, and its contents travel with a
    /// state as added variables do.
    pub changed: bool,
}

impl GlobalChan {
    fn old_size(&self) -> usize {
        2 + (self.old.1 * self.old.2) as usize
    }

    fn new_size(&self) -> usize {
        2 + (self.new.1 * self.new.2) as usize
    }
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

/// The type index a channel record's tag carries.
fn chan_type(tag: u8) -> usize {
    (tag & !CHAN_TAG) as usize
}

impl Extension {
    /// The bytes of the record of a channel whose tag is `tag`, in the new layout or the old
    /// one (None: a type it does not know).
    fn chan_size(&self, tag: u8, new: bool) -> Option<usize> {
        let table = if new { &self.chans } else { &self.old_chans };
        table.get(chan_type(tag)).map(|c| c.size as usize)
    }

    /// Appends a channel record of one layout (`new`, or the old one) as the other layout
    /// writes it: the same bytes under that layout's tag for the same type (None: it has
    /// none).
    fn retag(&self, rec: &[u8], new: bool, out: &mut Vec<u8>) -> Option<()> {
        out.push(self.other_tag(*rec.first()?, new)?);
        out.extend_from_slice(&rec[1..]);
        Some(())
    }

    /// The tag the other layout gives the channel type whose tag is `tag` in this one (the
    /// new layout, or the old one).
    fn other_tag(&self, tag: u8, new: bool) -> Option<u8> {
        let table = if new { &self.chans } else { &self.old_chans };
        Some(table.get(chan_type(tag))?.other? | CHAN_TAG)
    }

    /// What changed: "global 'g' added", "channel 'c' declared as [2] of {…} instead of
    /// [0] of {…}", joined.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.added.is_empty() {
            let names: Vec<String> = self.added.iter().map(|n| format!("'{n}'")).collect();
            let what = if self.added.iter().all(|n| !n.contains(':')) {
                "global"
            } else {
                "variable"
            };
            let s = if names.len() == 1 { "" } else { "s" };
            parts.push(format!("{what}{s} {} added", names.join(", ")));
        }
        parts.extend(self.changed.iter().cloned());
        if parts.is_empty() {
            parts.push("a local channel's declaration changed".into());
        }
        parts.join("; ")
    }

    /// The old version's canonical vector of the state whose new canonical vector is
    /// `canon` (false: `canon` is not one of the new layout's, or holds a channel of a type
    /// the old layout does not have).
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
        let mut at = r;
        for c in &self.prefix {
            let rec = canon.get(at..at + c.new_size())?;
            if rec[0] != c.new.0 {
                return None;
            }
            out.push(c.old.0);
            if !c.changed {
                out.extend_from_slice(&rec[1..]);
            } else {
                // Contents that fit the old declaration are kept (a buffered channel's
                // states are found again), others project to an empty channel: its contents
                // are the new state's own, as added variables are.
                let len = rec[1] as u32;
                let keep = c.old.2 == c.new.2 && len <= c.old.1;
                let bytes = if keep { (len * c.new.2) as usize } else { 0 };
                out.push(if keep { rec[1] } else { 0 });
                out.extend_from_slice(rec.get(2..2 + bytes)?);
                out.resize(out.len() + c.old_size() - 2 - bytes, 0);
            }
            at += c.new_size();
        }
        for rec in self.records(canon, at, true) {
            match rec? {
                Rec::Chan(x) => self.retag(&canon[x], true, out)?,
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

    /// The new canonical vector of a successor that a step touching neither the added
    /// variables nor the changed channels leads to from `parent` (a new canonical vector),
    /// given the successor's old canonical vector `old`: the old variables' bytes come from
    /// `old`, the added ones and the changed channels from `parent` (a process keeps its pid,
    /// so its added locals are those of the parent's process with the same pid). False when
    /// they do not fit: a process of a proctype that gained locals that the parent does not
    /// have (its creation is dangerous, so a replayed step never makes one), or vectors of
    /// another layout.
    pub fn embed(&self, old: &[u8], parent: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_embed(old, parent, out).is_some()
    }

    /// What `embed` takes from a parent (new canonical vector `canon`): the added
    /// variables' bytes, the changed channels' records, and each process's tag (the old
    /// variables' bytes zeroed). Two parents with the same extras give every successor the
    /// same new vector.
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
        let mut at = r;
        for c in &self.prefix {
            let end = at + c.new_size();
            if c.changed {
                out.extend_from_slice(canon.get(at..end)?);
            }
            at = end;
        }
        for rec in self.records(canon, at, true) {
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
        self.embed_into(old, parent, &mut Bytes { old, parent, out })
    }

    /// How `embed` builds new vectors from old ones of the shape of `old` (the same length
    /// and records) with the extras of `parent`: copies over a template, which
    /// `EmbedPlan::apply` makes far faster than `embed` walks the records. None: they do
    /// not fit (as `embed`).
    pub fn embed_plan(&self, old: &[u8], parent: &[u8]) -> Option<EmbedPlan> {
        let mut plan = PlanBuilder {
            parent,
            old_len: old.len(),
            plan: EmbedPlan {
                old_len: old.len(),
                ..EmbedPlan::default()
            },
        };
        self.embed_into(old, parent, &mut plan)?;
        Some(plan.plan)
    }

    /// `embed`, told to `out`. What it does depends only on the old vector's shape (its
    /// length and its records' tags) and on the parent.
    fn embed_into(&self, old: &[u8], parent: &[u8], out: &mut impl Emit) -> Option<()> {
        let (g, r) = (self.globals_at as usize, self.records_at as usize);
        out.old(0..g)?;
        // Over the parent's bytes of an area, the old variables' bytes, in order.
        fn overlay(
            out: &mut impl Emit,
            start: usize,
            from: &[(u32, u32)],
            at: &mut usize,
        ) -> Option<()> {
            for &(off, size) in from {
                let (o, s) = (start + off as usize, size as usize);
                out.overwrite(o, *at..*at + s)?;
                *at += s;
            }
            Some(())
        }
        out.parent(g..r)?;
        let mut at = g;
        overlay(out, g, &self.from, &mut at)?;
        // The global channels: a changed one is the parent's, the others the successor's.
        let mut from = r;
        for c in &self.prefix {
            let mine = old.get(at..at + c.old_size())?;
            let theirs = parent.get(from..from + c.new_size())?;
            if mine[0] != c.old.0 || theirs[0] != c.new.0 {
                return None;
            }
            if c.changed {
                out.parent(from..from + c.new_size())?;
            } else {
                out.byte(c.new.0);
                out.old(at + 1..at + c.old_size())?;
            }
            at += c.old_size();
            from += c.new_size();
        }
        // The parent's process records, met in pid order as the successor's are (None: the
        // parent's vector does not fit).
        let mut parents = self
            .records(parent, from, true)
            .filter_map(|rec| match rec {
                Some(Rec::Proc { tag, locals, .. }) => Some(Some((tag, locals))),
                Some(Rec::Chan(_)) => None,
                None => Some(None),
            });
        for rec in self.records(old, at, false) {
            match rec? {
                Rec::Chan(x) => {
                    out.byte(self.other_tag(old[x.start], false)?);
                    out.old(x.start + 1..x.end)?;
                }
                Rec::Proc { tag, head, locals } => {
                    out.old(head)?;
                    let p = &self.procs[tag as usize];
                    let start = out.len();
                    // (The parent's record of the same pid is passed even when not needed,
                    // to keep the two walks in step.)
                    match parents.next() {
                        _ if !p.grew() => out.zeros(p.size as usize),
                        Some(Some((t, l))) if t == tag => out.parent(l)?,
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

/// Where `Extension::embed_into` tells what a new vector is made of, in order: bytes of the
/// old vector or of the parent appended, constant bytes, and old bytes written over what
/// was appended (None: a range out of bounds).
trait Emit {
    fn len(&self) -> usize;
    fn old(&mut self, r: std::ops::Range<usize>) -> Option<()>;
    fn parent(&mut self, r: std::ops::Range<usize>) -> Option<()>;
    fn byte(&mut self, b: u8);
    fn zeros(&mut self, n: usize);
    fn overwrite(&mut self, at: usize, r: std::ops::Range<usize>) -> Option<()>;
}

/// `Emit` into the new vector's bytes.
struct Bytes<'a> {
    old: &'a [u8],
    parent: &'a [u8],
    out: &'a mut Vec<u8>,
}

impl Emit for Bytes<'_> {
    fn len(&self) -> usize {
        self.out.len()
    }
    fn old(&mut self, r: std::ops::Range<usize>) -> Option<()> {
        self.out.extend_from_slice(self.old.get(r)?);
        Some(())
    }
    fn parent(&mut self, r: std::ops::Range<usize>) -> Option<()> {
        self.out.extend_from_slice(self.parent.get(r)?);
        Some(())
    }
    fn byte(&mut self, b: u8) {
        self.out.push(b);
    }
    fn zeros(&mut self, n: usize) {
        self.out.resize(self.out.len() + n, 0);
    }
    fn overwrite(&mut self, at: usize, r: std::ops::Range<usize>) -> Option<()> {
        let n = r.len();
        let src = self.old.get(r)?;
        self.out.get_mut(at..at + n)?.copy_from_slice(src);
        Some(())
    }
}

/// What `embed` does for old vectors of one shape and one parent's extras: what does not
/// depend on the old vector (the parent's bytes, tags, zeros), and the old vector's bytes
/// copied over it.
#[derive(Clone, Debug, Default)]
pub struct EmbedPlan {
    template: Vec<u8>,
    /// (where in the new vector, where in the old one, bytes).
    copies: Vec<(u32, u32, u32)>,
    old_len: usize,
}

impl EmbedPlan {
    /// The new vector of `old` (of the plan's shape) into `out`. False: `old` is not of the
    /// plan's length.
    pub fn apply(&self, old: &[u8], out: &mut Vec<u8>) -> bool {
        if old.len() != self.old_len {
            return false;
        }
        out.clear();
        out.extend_from_slice(&self.template);
        for &(at, src, n) in &self.copies {
            let (at, src, n) = (at as usize, src as usize, n as usize);
            out[at..at + n].copy_from_slice(&old[src..src + n]);
        }
        true
    }
}

/// `Emit` into a plan: the parent's bytes go to the template, the old vector's become
/// copies (checked against its length, so that `apply` stays in bounds).
struct PlanBuilder<'a> {
    parent: &'a [u8],
    old_len: usize,
    plan: EmbedPlan,
}

impl PlanBuilder<'_> {
    /// Adds a copy, merged with the one before when both are contiguous.
    fn copy(&mut self, at: usize, r: std::ops::Range<usize>) -> Option<()> {
        (r.start <= r.end && r.end <= self.old_len).then_some(())?;
        let n = r.len();
        if n == 0 {
            return Some(());
        }
        if let Some(last) = self.plan.copies.last_mut() {
            let (la, ls, ln) = (last.0 as usize, last.1 as usize, last.2 as usize);
            if la + ln == at && ls + ln == r.start {
                last.2 += n as u32;
                return Some(());
            }
        }
        self.plan.copies.push((at as u32, r.start as u32, n as u32));
        Some(())
    }
}

impl Emit for PlanBuilder<'_> {
    fn len(&self) -> usize {
        self.plan.template.len()
    }
    fn old(&mut self, r: std::ops::Range<usize>) -> Option<()> {
        let at = self.len();
        self.copy(at, r.clone())?;
        self.zeros(r.len());
        Some(())
    }
    fn parent(&mut self, r: std::ops::Range<usize>) -> Option<()> {
        self.plan.template.extend_from_slice(self.parent.get(r)?);
        Some(())
    }
    fn byte(&mut self, b: u8) {
        self.plan.template.push(b);
    }
    fn zeros(&mut self, n: usize) {
        let len = self.len() + n;
        self.plan.template.resize(len, 0);
    }
    fn overwrite(&mut self, at: usize, r: std::ops::Range<usize>) -> Option<()> {
        (at + r.len() <= self.len()).then_some(())?;
        self.copy(at, r)
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
        let rec = if tag & CHAN_TAG != 0 {
            self.ext
                .chan_size(tag, self.new)
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
        || old.procs.len() != new.procs.len()
        || typedef_chans(old) != typedef_chans(new)
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
    // Channel types pair by what they are; global channels by their owner.
    let table = |x: &Layout, y: &Layout| -> Vec<ChanMap> {
        x.chans
            .iter()
            .map(|c| ChanMap {
                size: c.record_size() as u32,
                other: y
                    .chans
                    .iter()
                    .position(|d| d.source == c.source)
                    .map(|t| t as u8),
            })
            .collect()
    };
    let (chans, old_chans) = (table(&b, &a), table(&a, &b));
    let (olds, news) = (global_chans(old), global_chans(new));
    if olds.len() != news.len() {
        return None;
    }
    let record = |l: &Layout, ct: &ChanType| {
        let t = l.chans.iter().position(|c| &c.source == ct)?;
        let c = &l.chans[t];
        Some((t as u8 | CHAN_TAG, c.capacity, c.msg_size))
    };
    let mut prefix = Vec::with_capacity(olds.len());
    let mut changed = Vec::new();
    let mut changed_globals: Vec<usize> = Vec::new();
    for ((i, oc), (j, nc)) in olds.iter().zip(&news) {
        if globals.get(*i) != Some(j) {
            return None;
        }
        let c = GlobalChan {
            old: record(&a, oc)?,
            new: record(&b, nc)?,
            changed: oc != nc,
        };
        if c.changed && !changed_globals.contains(i) {
            changed_globals.push(*i);
            changed.push(format!(
                "channel '{}' declared as {nc} instead of {oc}",
                new.globals[*j].name
            ));
        }
        prefix.push(c);
    }
    if added.is_empty() && changed.is_empty() && a.chans == b.chans {
        return None;
    }
    Some(Extension {
        globals,
        from,
        globals_at: b.globals_at,
        records_at: b.records_at,
        procs,
        chans,
        old_chans,
        prefix,
        proc_head: b.procs.first().map_or(0, |p| p.header + 4 - b.loc_width),
        added,
        changed,
        changed_globals,
    })
}

/// The channels the globals create, in order (the records that open every state's records
/// area), each with the global that owns it.
fn global_chans(p: &Program) -> Vec<(usize, ChanType)> {
    fn creates(p: &Program, v: &Var, owner: usize, out: &mut Vec<(usize, ChanType)>) {
        let n = v.array.unwrap_or(1);
        match (&v.init, &v.ty) {
            (VarInit::Chan(ct), _) => {
                out.extend(std::iter::repeat_n((owner, ct.clone()), n as usize));
            }
            (VarInit::Zero, Type::Struct { index, .. }) => {
                let Some(td) = p.typedefs.get(*index) else {
                    return;
                };
                for _ in 0..n {
                    for f in &td.fields {
                        creates(p, f, owner, out);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (i, v) in p.globals.iter().enumerate() {
        creates(p, v, i, &mut out);
    }
    out
}

/// The channel types typedef fields declare: a typedef is shared by every variable of its
/// type, so these must not change.
fn typedef_chans(p: &Program) -> Vec<Option<&ChanType>> {
    p.typedefs
        .iter()
        .flat_map(|t| &t.fields)
        .map(|f| match &f.init {
            VarInit::Chan(ct) => Some(ct),
            _ => None,
        })
        .collect()
}
