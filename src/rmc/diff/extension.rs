//! How a new state layout maps onto an old one: variables kept, retyped (their values
//! carried over where the new type holds them), removed or added, arrays resized, proctypes
//! added or removed (the others keep their processes, whatever their place in the table),
//! global channels whose declaration changed, added, removed or declared in another order
//! (channel numbers renumbered), local channels retyped, added, removed or declared in
//! another order (channel numbers renumbered state by state), typedefs' fields; and the
//! maps between the two layouts' canonical vectors that let a run meet recorded states
//! through their projection.

use crate::explore::layout::{Layout, Scalar, Shape, VarLayout, CHAN_TAG};
use crate::program::types::{ChanType, Type, Var, VarInit};
use crate::program::Program;

/// A new layout that maps onto an old one: every old variable is kept (the same bytes),
/// converted (a retyped scalar, or the elements of a resized or retyped array of scalars)
/// or dropped (removed, or an array's elements past its new length); every new variable
/// not kept or converted is added (plain data: no channel, no record). Proctypes pair by
/// name; global channels by the global that declares them (their capacity and message type
/// may change). See `docs/regression.md`, "Across declaration changes", for why a run may
/// meet recorded states through this map.
///
/// In short: every statement that names an added or dropped variable, writes a converted
/// one or reads one whose values do not all read the same (`read_kept`) is dangerous (the
/// labels compare such variables as different slots), a `run` of a
/// proctype whose locals changed makes a different process, and every operation that may
/// reach a changed channel is dangerous (`chan_alias`); every other statement leaves those
/// variables and channels as they are and reads of them only values both versions hold
/// alike. A new state therefore
/// has the sub-state-space of the old state it projects to (its kept bytes, its converted
/// values in the old types, the dropped bytes zero: `project`), and a run looks states up
/// by that projection. Old states that differ only in dropped bytes are one state of the
/// new version: with drops, the record's states are looked up by their key (`key_of_old`,
/// the vector with the dropped bytes zeroed), never by their own fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    /// Per old global: its index among the new globals (`DROPPED`: removed).
    pub globals: Vec<usize>,
    /// Per old global: the number statements compare it by (its new index when kept as it
    /// was; a number no new global has when converted or dropped, so that every statement
    /// naming it is dangerous).
    pub compare_globals: Vec<usize>,
    /// Per old global: the number reads of it compare by. A variable whose values carry
    /// over unchanged (a retyped scalar, or an array of the same length whose elements are
    /// retyped: `read_kept`) is read as it was; only writes of it (which the other type
    /// truncates otherwise) are dangerous. Else as `compare_globals`.
    pub read_globals: Vec<usize>,
    /// Per old global whose reads are kept (`read_globals`): its scalar type in the old and
    /// the new version. A constant that both hold, written to it, leaves the value a mapped
    /// state reads in both, so such a write compares as a read does (`Retyped::holds`).
    pub retyped_globals: Vec<Option<Retyped>>,
    /// Per old global that is an array of scalars resized, its elements' type the same:
    /// the elements both versions have (the shorter length). Such an element named by a
    /// constant index is the same element in both, kept as it was, so an access of it
    /// compares as the variable kept would (`Names::global_element`).
    pub resized_globals: Vec<Option<u32>>,
    /// The old globals area's pieces, each mapped to the new area.
    pub from: Vec<Piece>,
    /// Bytes of the old globals area (from `globals_at` to the old `records_at`).
    pub old_globals_size: u32,
    /// Where the globals area starts (the same in both), and where the records start in the
    /// new canonical vector.
    pub globals_at: u32,
    pub records_at: u32,
    /// Per new proctype (by tag), how its locals map.
    pub procs: Vec<ProcExtension>,
    /// Per old proctype (by tag): its tag in the new layout (None: removed).
    pub old_tags: Vec<Option<u8>>,
    /// Per channel type of the new layout (by tag), and of the old one: its record's bytes
    /// and the other layout's tag for the same type.
    pub chans: Vec<ChanMap>,
    pub old_chans: Vec<ChanMap>,
    /// Per channel type of the new layout, and of the old one: the offsets within a message
    /// of the handles it holds (`ChanLayout::handle_offsets`), renumbered as channel
    /// variables' are.
    pub msg_handles: Vec<Vec<u32>>,
    pub old_msg_handles: Vec<Vec<u32>>,
    /// The global channels' records: they open the records area of every state (created
    /// with the globals, before any process, and never removed). In the new order, then
    /// the removed ones; each knows where its record lies in both versions, so that
    /// channels declared in another order map too. A channel added has no old record, one
    /// removed no new one.
    pub prefix: Vec<GlobalChan>,
    /// The entries of `prefix` that have an old record, in the old order.
    pub old_order: Vec<usize>,
    /// Bytes of the global channels' records in the old vector, and in the new one.
    pub old_prefix_size: u32,
    pub new_prefix_size: u32,
    /// How channel handles (the values of channel variables: creation numbers) map when
    /// global channels were added, removed or reordered (None: they keep their numbers).
    pub handles: Option<std::sync::Arc<HandleMap>>,
    /// A proctype's processes create other channels than they did (a local channel added
    /// or removed: `ProcExtension::creation`): every channel created after one of them has
    /// another number, which depends on the processes a state holds, so handles are mapped
    /// state by state (`handle_table`).
    pub local_chans: bool,
    /// Bytes of a process record before its locals (tag, stable location, priority), in the
    /// canonical vector.
    pub proc_head: u32,
    /// The added variables' names (`P:x` for a local of proctype P).
    pub added: Vec<String>,
    /// The other declaration changes, described (retyped, removed, resized, proctypes,
    /// channels).
    pub changed: Vec<String>,
    /// The old globals that declare global channels whose declaration changed.
    pub changed_globals: Vec<usize>,
    /// The local channel declarations whose type changed and is mapped (see `ChanMap`), as
    /// (proctype, local) in the old program and in the new one.
    pub changed_locals: Vec<((usize, usize), (usize, usize))>,
    /// Some old bytes are dropped: recorded states are met by key (`key_of_old`).
    pub drops: bool,
    /// The spans of the new globals area that no old byte fills (offset, bytes).
    pub fresh_globals: Vec<(u32, u32)>,
}

/// An old global or local with no place in the new layout.
pub const DROPPED: usize = usize::MAX;

/// The numbers converted and dropped variables are compared by start here (far above any
/// real index, and within the 32 bits a label writes).
const FRESH_COMPARE: usize = 1 << 31;

/// Where a run of old bytes goes in the new layout (offsets within the variables' area).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// `len` bytes kept as they were.
    Copy { old_at: u32, new_at: u32, len: u32 },
    /// A scalar whose type changed: its value, where the other type holds it.
    Convert {
        old_at: u32,
        new_at: u32,
        old: Scalar,
        new: Scalar,
    },
    /// `len` old bytes the new layout has no place for.
    Drop { old_at: u32, len: u32 },
    /// A channel variable's handle (one byte), renumbered (`Extension::handles`).
    Handle { old_at: u32, new_at: u32 },
}

impl Piece {
    /// The new bytes it fills (offset, length), if any.
    fn new_span(&self) -> Option<(u32, u32)> {
        match *self {
            Piece::Copy { new_at, len, .. } => Some((new_at, len)),
            Piece::Convert { new_at, new, .. } => Some((new_at, new.width as u32)),
            Piece::Handle { new_at, .. } => Some((new_at, 1)),
            Piece::Drop { .. } => None,
        }
    }
}

/// A value of type `from` as type `to` (None: `to` cannot hold it).
#[inline]
/// Whether `to` holds every value `convert` reads as `from` (its range is an interval, so
/// its ends suffice).
fn holds_all(from: Scalar, to: Scalar) -> bool {
    let (lo, hi) = match (from.signed, from.bits) {
        (true, 16) => (i16::MIN as i32, i16::MAX as i32),
        (false, b) if b < 32 => (0, (1i32 << b) - 1),
        _ => (i32::MIN, i32::MAX),
    };
    let holds = |v: i32| (to.signed || v >= 0) && to.truncate(v) == v;
    holds(lo) && holds(hi)
}

fn convert(from: Scalar, to: Scalar, bytes: &[u8], at: usize) -> Option<i32> {
    let end = at + from.width as usize;
    bytes.get(at..end)?;
    let v = from.read(bytes, at);
    ((to.signed || v >= 0) && to.truncate(v) == v).then_some(v)
}

/// A channel type of one layout: its record's bytes, and the tag of the same type in the
/// other layout (None: that one has no such type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChanMap {
    pub size: u32,
    pub other: Option<u8>,
    /// Capacity and bytes per message.
    pub capacity: u32,
    pub msg: u32,
    /// The type of one local channel declaration whose type changed, paired with its other
    /// type (`other`): its records' contents travel with a state as a changed global
    /// channel's do.
    pub changed: bool,
}

/// One global channel's record in the old and in the new layout: its tag, capacity and bytes
/// per message (None: the channel was added, or removed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalChan {
    pub old: Option<(u8, u32, u32)>,
    pub new: Option<(u8, u32, u32)>,
    /// Its declaration changed: its operations are dangerous, and its contents travel with a
    /// state as added variables do.
    pub changed: bool,
    /// Where its record starts among the global channels' records, in the old vector and in
    /// the new one (0 where it has none).
    pub old_at: u32,
    pub new_at: u32,
}

impl GlobalChan {
    fn old_size(&self) -> usize {
        self.old.map_or(0, |o| 2 + (o.1 * o.2) as usize)
    }

    fn new_size(&self) -> usize {
        self.new.map_or(0, |n| 2 + (n.1 * n.2) as usize)
    }
}

/// Channel handles across global channels added, removed or reordered: a global channel's
/// handle is its place among them, and every channel a process creates comes after them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandleMap {
    /// Per old handle, the new one (none: a removed channel's), and the inverse.
    fwd: HandleTable,
    back: HandleTable,
}

/// Channel handles of one version as the other version numbers them (none: a channel the
/// other version does not have). Handle 0 (no channel) is 0 in both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandleTable([u16; 256]);

const NO_HANDLE: u16 = u16::MAX;

impl HandleTable {
    fn none() -> HandleTable {
        let mut t = HandleTable([NO_HANDLE; 256]);
        t.0[0] = 0;
        t
    }

    fn identity() -> HandleTable {
        let mut t = HandleTable::none();
        for (h, to) in t.0.iter_mut().enumerate() {
            *to = h as u16;
        }
        t
    }

    #[inline]
    fn get(&self, h: u8) -> Option<u8> {
        let to = self.0[h as usize];
        (to != NO_HANDLE).then_some(to as u8)
    }

    /// Handle `from` is `to` in the other version (handles past 255 do not exist).
    fn set(&mut self, from: usize, to: usize) {
        if let (Some(slot), Ok(to)) = (self.0.get_mut(from), u8::try_from(to)) {
            *slot = u16::from(to);
        }
    }
}

impl HandleMap {
    /// The map for old global channels that are the new ones of `pairs` (old index to new
    /// index, None: removed), `old_n` old and `new_n` new global channels. None when every
    /// handle keeps its number.
    fn new(pairs: &[Option<usize>], old_n: usize, new_n: usize) -> Option<HandleMap> {
        let (mut fwd, mut back) = (HandleTable::none(), HandleTable::none());
        for (k, to) in pairs.iter().enumerate() {
            if let Some(j) = to {
                let (h, g) = (u8::try_from(k + 1).ok()?, u8::try_from(j + 1).ok()?);
                fwd.set(h as usize, g as usize);
                back.set(g as usize, h as usize);
            }
        }
        for h in (old_n + 1)..256 {
            let g = h - old_n + new_n;
            if g < 256 {
                fwd.set(h, g);
                back.set(g, h);
            }
        }
        (fwd != HandleTable::identity()).then_some(HandleMap { fwd, back })
    }
}

/// How a proctype's locals map from the old layout to the new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcExtension {
    /// Its tag in the old layout (None: an added proctype, whose processes have no image).
    pub old_tag: Option<u8>,
    /// Per old local: its index among the new locals (`DROPPED`: removed), and the number
    /// statements compare it by (as `Extension::compare_globals`).
    pub locals: Vec<usize>,
    pub compare: Vec<usize>,
    /// Per old local: the number reads of it compare by (as `Extension::read_globals`).
    pub read: Vec<usize>,
    /// Per old local, as `Extension::retyped_globals` and `resized_globals`.
    pub retyped: Vec<Option<Retyped>>,
    pub resized: Vec<Option<u32>>,
    /// The old locals' pieces.
    pub from: Vec<Piece>,
    /// Bytes of the new locals, and of the old ones.
    pub size: u32,
    pub old_size: u32,
    /// A local channel declaration of it changed its type (`Extension::changed_locals`).
    pub chans_changed: bool,
    /// The channels its processes create, where local channel declarations were added or
    /// removed (None: the same ones).
    pub creation: Option<Creation>,
    /// The spans of its new locals that no old byte fills (offset, bytes): what `extras`
    /// takes from a parent's process.
    pub fresh: Vec<(u32, u32)>,
}

/// The channels a process creates with itself (its local channel declarations, in order,
/// an array's element by element), across local channel declarations added or removed. A
/// process's record is followed by the records of these channels in both versions (they
/// are created with it, before anything else moves), so they are told apart by place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Creation {
    /// Per channel a new process creates: which of the old process's it is (None: added).
    pub new: Vec<Option<u8>>,
    /// Per channel an old process creates: which of the new process's it is (None:
    /// removed), and its record's tag and bytes in the old layout.
    pub old: Vec<Option<u8>>,
    pub old_recs: Vec<(u8, u32)>,
}

/// Channels a process may create with itself where some were added or removed (the
/// records of one are gathered on the stack).
const MAX_CREATED: usize = 32;

/// The type index a channel record's tag carries.
fn chan_type(tag: u8) -> usize {
    (tag & !CHAN_TAG) as usize
}

impl Extension {
    /// Whether a state's image may hold other channels, or other contents in one, than the
    /// state: a global channel added, removed or whose declaration changed, a local
    /// channel's declaration changed, or local channels added or removed.
    pub fn changes_channels(&self) -> bool {
        !self.changed_globals.is_empty()
            || !self.changed_locals.is_empty()
            || self.local_chans
            || self
                .prefix
                .iter()
                .any(|c| c.old.is_none() || c.new.is_none())
    }

    /// Whether channel handles are renumbered (global channels added, removed or reordered,
    /// or local channels added or removed): then a statement that treats a handle as a
    /// number is dangerous.
    pub fn renumbers_handles(&self) -> bool {
        self.handles.is_some() || self.local_chans
    }

    /// The handles of state `v` (a canonical vector of the new layout when `new`, else of
    /// the old one) as the other version numbers them: the global channels' by the static
    /// map, then every record's in creation order, a process's own channels paired by its
    /// proctype's `Creation`. None: a record does not fit, or a process's channels are not
    /// where they must be.
    fn handle_table(&self, v: &[u8], new: bool) -> Option<HandleTable> {
        let static_map = self
            .handles
            .as_deref()
            .map(|m| if new { &m.back } else { &m.fwd });
        let mut t = static_map.cloned().unwrap_or_else(HandleTable::identity);
        let with = |f: fn(&GlobalChan) -> bool| self.prefix.iter().filter(|c| f(c)).count();
        let (news, olds) = (with(|c| c.new.is_some()), with(|c| c.old.is_some()));
        let (mine, theirs, at) = match new {
            true => (
                news,
                olds,
                (self.records_at + self.new_prefix_size) as usize,
            ),
            false => (
                olds,
                news,
                (self.globals_at + self.old_globals_size + self.old_prefix_size) as usize,
            ),
        };
        // Handles past the global channels' are numbered from the records.
        for h in (mine + 1)..256 {
            t.0[h] = NO_HANDLE;
        }
        let (mut h, mut o) = (mine + 1, theirs + 1);
        let mut recs = self.records(v, at, new);
        let mut made: [std::ops::Range<usize>; MAX_CREATED] = Default::default();
        while let Some(rec) = recs.next() {
            match rec? {
                Rec::Chan(_) => {
                    t.set(h, o);
                    (h, o) = (h + 1, o + 1);
                }
                Rec::Proc { tag, .. } => {
                    let Some(c) = &self.procs.get(tag as usize)?.creation else {
                        continue;
                    };
                    let (own, other) = match new {
                        true => (&c.new, c.old.len()),
                        false => (&c.old, c.new.len()),
                    };
                    recs.own_chans(own.len(), &mut made)?;
                    for (i, pair) in own.iter().enumerate() {
                        if let Some(j) = pair {
                            t.set(h + i, o + *j as usize);
                        }
                    }
                    (h, o) = (h + own.len(), o + other);
                }
            }
        }
        // (A handle past every channel the state holds, one that outlived its channel,
        // has no image: which channel it was, and so its number in the other version, the
        // state does not tell.)
        Some(t)
    }

    /// The map of handles for state `v` (see `handle_table`): the static one, or one made
    /// for the state in `buf`. None: `v` does not fit (it has no image).
    fn handles_for<'a>(
        &'a self,
        v: &[u8],
        new: bool,
        buf: &'a mut Option<HandleTable>,
    ) -> Option<Option<&'a HandleTable>> {
        if self.local_chans {
            *buf = Some(self.handle_table(v, new)?);
            return Some(buf.as_ref());
        }
        let m = self.handles.as_deref();
        Some(m.map(|m| if new { &m.back } else { &m.fwd }))
    }

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

    /// Where `tag` (of the new layout, or the old one) is the type of a local channel
    /// declaration that changed: its map in this layout and in the other.
    fn changed_type(&self, tag: u8, new: bool) -> Option<(ChanMap, ChanMap)> {
        let (this, that) = if new {
            (&self.chans, &self.old_chans)
        } else {
            (&self.old_chans, &self.chans)
        };
        let c = *this.get(chan_type(tag))?;
        if !c.changed {
            return None;
        }
        Some((c, *that.get(c.other? as usize)?))
    }

    /// The tag the other layout gives the channel type whose tag is `tag` in this one (the
    /// new layout, or the old one).
    fn other_tag(&self, tag: u8, new: bool) -> Option<u8> {
        let table = if new { &self.chans } else { &self.old_chans };
        Some(table.get(chan_type(tag))?.other? | CHAN_TAG)
    }

    /// Where the channel handles lie in a record of a channel whose tag is `tag` (of the new
    /// layout when `new`, else of the old one), from the record's start: the fields of type
    /// chan of each message slot (a slot past the channel's length is zero, which every
    /// table keeps). Nothing where handles keep their numbers.
    fn handle_spots(&self, tag: u8, new: bool) -> impl Iterator<Item = usize> + '_ {
        let (table, offsets) = if new {
            (&self.chans, &self.msg_handles)
        } else {
            (&self.old_chans, &self.old_msg_handles)
        };
        let t = chan_type(tag);
        let (cap, msg) = table
            .get(t)
            .map_or((0, 0), |c| (c.capacity as usize, c.msg as usize));
        let offsets: &[u32] = match offsets.get(t) {
            Some(o) if self.renumbers_handles() => o,
            _ => &[],
        };
        (0..cap).flat_map(move |k| offsets.iter().map(move |&o| 2 + k * msg + o as usize))
    }

    /// The handles in the messages of channel record `rec` (of the new layout when `new`,
    /// else of the old one), renumbered by `handles` in place (None: one the other version
    /// has no channel for).
    fn renumber_messages(
        &self,
        rec: &mut [u8],
        new: bool,
        handles: Option<&HandleTable>,
    ) -> Option<()> {
        let tag = *rec.first()?;
        for at in self.handle_spots(tag, new) {
            let b = rec.get_mut(at)?;
            *b = handles?.get(*b)?;
        }
        Some(())
    }

    /// Whether every handle in the messages of channel record `rec` (as `renumber_messages`)
    /// has a number in the other version.
    fn messages_map(&self, rec: &[u8], new: bool, handles: Option<&HandleTable>) -> Option<()> {
        let tag = *rec.first()?;
        for at in self.handle_spots(tag, new) {
            handles?.get(*rec.get(at)?)?;
        }
        Some(())
    }

    /// What changed: "global 'g' added", "global 'x' retyped (byte to int)", "channel 'c'
    /// declared as [2] of {…} instead of [0] of {…}", joined.
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
            parts.push("declarations moved or a local channel's declaration changed".into());
        }
        parts.join("; ")
    }

    /// The old version's canonical vector of the state whose new canonical vector is
    /// `canon`, with any dropped bytes zero (false: `canon` is not one of the new layout's,
    /// holds a value an old type cannot hold, a process of an added proctype or a channel
    /// of a type the old layout does not have: it has no image).
    pub fn project(&self, canon: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_project(canon, out).is_some()
    }

    fn try_project(&self, canon: &[u8], out: &mut Vec<u8>) -> Option<()> {
        out.clear();
        let (g, r) = (self.globals_at as usize, self.records_at as usize);
        out.extend_from_slice(canon.get(..g)?);
        let mut table = None;
        let handles = self.handles_for(canon, true, &mut table)?;
        project_area(canon, g, &self.from, self.old_globals_size, handles, out)?;
        let new_record = |c: &GlobalChan| {
            let at = r + c.new_at as usize;
            let rec = canon.get(at..at + c.new_size())?;
            (rec.first() == c.new.map(|n| n.0).as_ref()).then_some(rec)
        };
        // (An added channel's record is the new state's own, but it must be one; a paired
        // one's is checked where it is read, below.)
        for c in self.prefix.iter().filter(|c| c.old.is_none()) {
            new_record(c)?;
        }
        for &i in &self.old_order {
            let c = &self.prefix[i];
            let o = c.old?;
            match c.new {
                Some(_) if !c.changed => {
                    let start = out.len();
                    out.push(o.0);
                    out.extend_from_slice(new_record(c)?.get(1..)?);
                    self.renumber_messages(&mut out[start..], false, handles)?;
                }
                Some(n) => {
                    out.push(o.0);
                    let rec = new_record(c)?;
                    project_contents(rec, (n.1, n.2), (o.1, o.2, c.old_size() as u32), out)?;
                }
                // A removed channel projects empty (its contents dropped).
                None => {
                    out.push(o.0);
                    out.resize(out.len() + c.old_size() - 1, 0);
                }
            }
        }
        let at = r + self.new_prefix_size as usize;
        let mut recs = self.records(canon, at, true);
        let mut made: [std::ops::Range<usize>; MAX_CREATED] = Default::default();
        while let Some(rec) = recs.next() {
            match rec? {
                Rec::Chan(x) => self.project_chan(&canon[x], handles, out)?,
                Rec::Proc { tag, head, locals } => {
                    let p = &self.procs[tag as usize];
                    out.push(p.old_tag?);
                    out.extend_from_slice(&canon[head.start + 1..head.end]);
                    project_area(canon, locals.start, &p.from, p.old_size, handles, out)?;
                    let Some(c) = &p.creation else {
                        continue;
                    };
                    // Its own channels in the old order: the kept ones projected, a removed
                    // one empty (its contents dropped, as a removed global channel's), an
                    // added one left out.
                    let mine = recs.own_chans(c.new.len(), &mut made)?;
                    for (pair, &(tag, size)) in c.old.iter().zip(&c.old_recs) {
                        match pair {
                            Some(i) => {
                                let rec = &canon[mine.get(*i as usize)?.clone()];
                                self.project_chan(rec, handles, out)?
                            }
                            None => {
                                out.push(tag);
                                out.resize(out.len() + (size as usize).checked_sub(1)?, 0);
                            }
                        }
                    }
                }
            }
        }
        Some(())
    }

    /// A channel record of the new layout (`rec`) as the old layout writes it, appended,
    /// the handles its messages hold renumbered by `handles`.
    fn project_chan(
        &self,
        rec: &[u8],
        handles: Option<&HandleTable>,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        match self.changed_type(*rec.first()?, true) {
            Some((n, o)) => {
                out.push(self.other_tag(rec[0], true)?);
                project_contents(rec, (n.capacity, n.msg), (o.capacity, o.msg, o.size), out)
            }
            None => {
                let start = out.len();
                self.retag(rec, true, out)?;
                self.renumber_messages(&mut out[start..], false, handles)
            }
        }
    }

    /// The key a recorded state (old canonical vector `old`) is met by when the map drops
    /// bytes: its vector with the dropped bytes zero, which is what `project` gives every
    /// new state it stands for. False: it has no image in the new layout (a process of a
    /// removed proctype, a channel of a type the new layout lacks, a value a new type
    /// cannot hold, or bytes that do not fit).
    pub fn key_of_old(&self, old: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_key_of_old(old, out).is_some()
    }

    fn try_key_of_old(&self, old: &[u8], out: &mut Vec<u8>) -> Option<()> {
        out.clear();
        out.extend_from_slice(old);
        let g = self.globals_at as usize;
        let mut table = None;
        let handles = self.handles_for(old, false, &mut table)?;
        let blank = |old: &[u8], out: &mut [u8], start: usize, from: &[Piece]| -> Option<()> {
            for p in from {
                match *p {
                    Piece::Drop { old_at, len } => {
                        let o = start + old_at as usize;
                        out.get_mut(o..o + len as usize)?.fill(0);
                    }
                    Piece::Convert {
                        old_at,
                        old: s,
                        new,
                        ..
                    } => {
                        convert(s, new, old, start + old_at as usize)?;
                    }
                    Piece::Handle { old_at, .. } => {
                        handles?.get(*old.get(start + old_at as usize)?)?;
                    }
                    Piece::Copy { .. } => {}
                }
            }
            Some(())
        };
        blank(old, out, g, &self.from)?;
        let base = g + self.old_globals_size as usize;
        for c in &self.prefix {
            let at = base + c.old_at as usize;
            match (c.old, c.new) {
                // A removed channel: its contents are dropped.
                (Some(_), None) => out.get_mut(at + 1..at + c.old_size())?.fill(0),
                (Some(_), Some(_)) if !c.changed => {
                    self.messages_map(old.get(at..at + c.old_size())?, false, handles)?
                }
                _ => {}
            }
        }
        let at = base + self.old_prefix_size as usize;
        let mut recs = self.records(old, at, false);
        let mut made: [std::ops::Range<usize>; MAX_CREATED] = Default::default();
        while let Some(rec) = recs.next() {
            match rec? {
                Rec::Chan(x) => self.old_chan_maps(&old[x], handles)?,
                Rec::Proc { tag, locals, .. } => {
                    let p = &self.procs[tag as usize];
                    blank(old, out, locals.start, &p.from)?;
                    let Some(c) = &p.creation else {
                        continue;
                    };
                    // Its own channels: a removed one's contents dropped.
                    let mine = recs.own_chans(c.old.len(), &mut made)?;
                    for (x, pair) in mine.iter().zip(&c.old) {
                        match pair {
                            Some(_) => self.old_chan_maps(&old[x.clone()], handles)?,
                            None => out.get_mut(x.start + 1..x.end)?.fill(0),
                        }
                    }
                }
            }
        }
        Some(())
    }

    /// Whether an old channel record (kept, not removed) has an image: its type is the new
    /// layout's too, and the handles its messages hold (where its declaration is kept) have
    /// new numbers.
    fn old_chan_maps(&self, rec: &[u8], handles: Option<&HandleTable>) -> Option<()> {
        let tag = *rec.first()?;
        self.other_tag(tag, false)?;
        if self.changed_type(tag, false).is_none() {
            self.messages_map(rec, false, handles)?;
        }
        Some(())
    }

    /// The records (processes and channels, in creation order) of the canonical vector `v`
    /// from `at`, in the new layout (`new`) or in the old one; a process record's tag is
    /// the new layout's either way. A record that does not fit (an unknown tag, a removed
    /// proctype's, bytes past the end) is `None`, and the walk ends there.
    fn records<'a>(&'a self, v: &'a [u8], at: usize, new: bool) -> Records<'a> {
        Records {
            ext: self,
            v,
            at,
            new,
        }
    }

    /// The new canonical vector of a successor that a step touching neither the added,
    /// converted or dropped variables nor the changed channels leads to from `parent` (a
    /// new canonical vector), given the successor's old canonical vector `old`: the kept
    /// variables' bytes and the converted values come from `old`, the added ones and the
    /// changed channels from `parent` (a process keeps its pid, so its added locals are
    /// those of the parent's process with the same pid). False when they do not fit: a
    /// process of a proctype that gained locals that the parent does not have (its creation
    /// is dangerous, so a replayed step never makes one), a value a new type cannot hold,
    /// or vectors of another layout.
    pub fn embed(&self, old: &[u8], parent: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_embed(old, parent, out).is_some()
    }

    /// What `embed` takes from a parent (new canonical vector `canon`): the added
    /// variables' bytes, the changed channels' records, and each process's tag (the bytes
    /// the old vector fills zeroed). Two parents with the same extras give every successor
    /// the same new vector.
    pub fn extras(&self, canon: &[u8], out: &mut Vec<u8>) -> bool {
        self.try_extras(canon, out).is_some()
    }

    fn try_extras(&self, canon: &[u8], out: &mut Vec<u8>) -> Option<()> {
        out.clear();
        let (g, r) = (self.globals_at as usize, self.records_at as usize);
        // (Only the bytes no old byte fills: the others are the successor's own.)
        let fresh = |out: &mut Vec<u8>, start: usize, spans: &[(u32, u32)]| {
            for &(off, len) in spans {
                let o = start + off as usize;
                crate::explore::small_copy::extend(out, canon.get(o..o + len as usize)?);
            }
            Some(())
        };
        canon.get(g..r)?;
        fresh(out, g, &self.fresh_globals)?;
        for c in self.prefix.iter().filter(|c| c.new.is_some()) {
            let at = r + c.new_at as usize;
            if c.changed || c.old.is_none() {
                out.extend_from_slice(canon.get(at..at + c.new_size())?);
            }
        }
        let at = r + self.new_prefix_size as usize;
        let mut recs = self.records(canon, at, true);
        let mut made: [std::ops::Range<usize>; MAX_CREATED] = Default::default();
        while let Some(rec) = recs.next() {
            let (tag, locals) = match rec? {
                Rec::Chan(x) => {
                    if self.changed_type(canon[x.start], true).is_some() {
                        out.extend_from_slice(&canon[x]);
                    }
                    continue;
                }
                Rec::Proc { tag, locals, .. } => (tag, locals),
            };
            out.push(tag);
            let p = &self.procs[tag as usize];
            fresh(out, locals.start, &p.fresh)?;
            // The channels it created that the old version's process does not: the
            // parent's, as its added variables are.
            if let Some(c) = &p.creation {
                let mine = recs.own_chans(c.new.len(), &mut made)?;
                for (x, pair) in mine.iter().zip(&c.new) {
                    if pair.is_none() || self.changed_type(canon[x.start], true).is_some() {
                        out.extend_from_slice(&canon[x.clone()]);
                    }
                }
            }
        }
        Some(())
    }

    fn try_embed(&self, old: &[u8], parent: &[u8], out: &mut Vec<u8>) -> Option<()> {
        out.clear();
        let mut table = None;
        let handles = self.handles_for(old, false, &mut table)?;
        self.embed_into(
            old,
            parent,
            &mut Bytes {
                old,
                parent,
                handles,
                out,
            },
        )
    }

    /// How `embed` builds new vectors from old ones of the shape of `old` (the same length
    /// and records) with the extras of `parent`: copies over a template, which
    /// `EmbedPlan::apply` makes far faster than `embed` walks the records. None: they do
    /// not fit (as `embed`).
    pub fn embed_plan(&self, old: &[u8], parent: &[u8]) -> Option<EmbedPlan> {
        // (The handles' map is a function of the old vector's records: of the shape.)
        let mut table = None;
        let map = self.handles_for(old, false, &mut table)?.cloned();
        let mut plan = PlanBuilder {
            parent,
            old_len: old.len(),
            plan: EmbedPlan {
                old_len: old.len(),
                map,
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
        // Over the parent's bytes of an area, the old variables' bytes and values.
        fn overlay(
            out: &mut impl Emit,
            start: usize,
            from: &[Piece],
            old_start: usize,
        ) -> Option<()> {
            for p in from {
                match *p {
                    Piece::Copy {
                        old_at,
                        new_at,
                        len,
                    } => {
                        let o = old_start + old_at as usize;
                        out.overwrite(start + new_at as usize, o..o + len as usize)?;
                    }
                    Piece::Convert {
                        old_at,
                        new_at,
                        old,
                        new,
                    } => {
                        out.convert(
                            start + new_at as usize,
                            old_start + old_at as usize,
                            old,
                            new,
                        )?;
                    }
                    Piece::Handle { old_at, new_at } => {
                        out.handle(start + new_at as usize, old_start + old_at as usize)?;
                    }
                    Piece::Drop { .. } => {}
                }
            }
            Some(())
        }
        out.parent(g..r)?;
        overlay(out, g, &self.from, g)?;
        let base = g + self.old_globals_size as usize;
        // The global channels, in the new order: a changed one is the parent's, the others
        // the successor's.
        for c in &self.prefix {
            let (at, from) = (base + c.old_at as usize, r + c.new_at as usize);
            let mine = old.get(at..at + c.old_size())?;
            let theirs = parent.get(from..from + c.new_size())?;
            if c.old.is_some_and(|o| mine[0] != o.0) || c.new.is_some_and(|n| theirs[0] != n.0) {
                return None;
            }
            match c.new {
                // Changed or added: the parent's (no step that leaves it alone changes it).
                Some(_) if c.changed || c.old.is_none() => out.parent(from..from + c.new_size())?,
                Some(n) => {
                    let start = out.len();
                    out.byte(n.0);
                    out.old(at + 1..at + c.old_size())?;
                    for k in self.handle_spots(n.0, true) {
                        out.handle(start + k, at + k)?;
                    }
                }
                None => {}
            }
        }
        let at = base + self.old_prefix_size as usize;
        let from = r + self.new_prefix_size as usize;
        // The parent's process records, met in pid order as the successor's are (None: the
        // parent's vector does not fit).
        let mut parents = self
            .records(parent, from, true)
            .filter_map(|rec| match rec {
                Some(Rec::Proc { tag, locals, .. }) => Some(Some((tag, locals))),
                Some(Rec::Chan(_)) => None,
                None => Some(None),
            });
        // The parent's records of channels whose declaration changed, in creation order: a
        // step that leaves them alone neither creates one (a `run` or a declaration that
        // would is dangerous) nor changes one, and a process that ends takes the last ones
        // with it, so the successor's are the first of them.
        let mut changed = self
            .records(parent, from, true)
            .filter_map(|rec| match rec {
                Some(Rec::Chan(x)) if self.changed_type(parent[x.start], true).is_some() => {
                    Some(Some(x))
                }
                Some(_) => None,
                None => Some(None),
            });
        // A channel record of the old successor, in the new layout: a changed one is the
        // parent's, any other the successor's.
        fn chan(
            ext: &Extension,
            (old, parent): (&[u8], &[u8]),
            x: std::ops::Range<usize>,
            changed: &mut impl Iterator<Item = Option<std::ops::Range<usize>>>,
            out: &mut impl Emit,
        ) -> Option<()> {
            let tag = ext.other_tag(old[x.start], false)?;
            if ext.changed_type(old[x.start], false).is_some() {
                let theirs = changed.next()??;
                if tag != parent[theirs.start] {
                    return None;
                }
                return out.parent(theirs);
            }
            let start = out.len();
            out.byte(tag);
            out.old(x.start + 1..x.end)?;
            for k in ext.handle_spots(tag, true) {
                out.handle(start + k, x.start + k)?;
            }
            Some(())
        }
        let mut recs = self.records(old, at, false);
        let mut made: [std::ops::Range<usize>; MAX_CREATED] = Default::default();
        let mut theirs: [std::ops::Range<usize>; MAX_CREATED] = Default::default();
        while let Some(rec) = recs.next() {
            match rec? {
                Rec::Chan(x) => chan(self, (old, parent), x, &mut changed, out)?,
                Rec::Proc { tag, head, locals } => {
                    out.byte(tag);
                    out.old(head.start + 1..head.end)?;
                    let p = &self.procs[tag as usize];
                    let start = out.len();
                    // (The parent's record of the same pid is passed even when not needed,
                    // to keep the two walks in step.)
                    let mate = match parents.next() {
                        Some(Some((t, l))) if t == tag => Some(l),
                        _ => None,
                    };
                    match &mate {
                        _ if !p.grew() => out.zeros(p.size as usize),
                        Some(l) => out.parent(l.clone())?,
                        None => return None,
                    }
                    overlay(out, start, &p.from, locals.start)?;
                    let Some(c) = &p.creation else {
                        continue;
                    };
                    // Its own channels in the new order: a kept one the successor's, an
                    // added one the parent's process's (no step that leaves it alone
                    // touches it), a removed one gone.
                    let mine = recs.own_chans(c.old.len(), &mut made)?;
                    let added = c.new.iter().any(Option::is_none);
                    let parents_own = match (&mate, added) {
                        (Some(l), true) => self
                            .records(parent, l.end, true)
                            .own_chans(c.new.len(), &mut theirs)?,
                        (None, true) => return None,
                        (_, false) => &[],
                    };
                    for (i, pair) in c.new.iter().enumerate() {
                        match pair {
                            Some(j) => {
                                let x = mine.get(*j as usize)?.clone();
                                chan(self, (old, parent), x, &mut changed, out)?;
                            }
                            None => out.parent(parents_own.get(i)?.clone())?,
                        }
                    }
                }
            }
        }
        Some(())
    }
}

/// The contents of a channel record `rec` of a changed declaration (capacity and bytes per
/// message `new`) as the old declaration holds them (capacity, bytes per message and record
/// bytes `old`), appended after the tag: contents that fit the old declaration are kept (a
/// buffered channel's states are found again), others project to an empty channel: its
/// contents are the new state's own, as added variables are.
fn project_contents(
    rec: &[u8],
    new: (u32, u32),
    old: (u32, u32, u32),
    out: &mut Vec<u8>,
) -> Option<()> {
    let len = u32::from(*rec.get(1)?);
    let keep = old.1 == new.1 && len <= old.0;
    let bytes = if keep { (len * new.1) as usize } else { 0 };
    out.push(if keep { rec[1] } else { 0 });
    out.extend_from_slice(rec.get(2..2 + bytes)?);
    out.resize(out.len() + (old.2 as usize).checked_sub(2 + bytes)?, 0);
    Some(())
}

/// The old area of `from`'s pieces (`size` bytes, dropped bytes zero) from the new area
/// that starts at `start` in `canon`, appended to `out` (None: a value an old type cannot
/// hold, or bytes past the end).
fn project_area(
    canon: &[u8],
    start: usize,
    from: &[Piece],
    size: u32,
    handles: Option<&HandleTable>,
    out: &mut Vec<u8>,
) -> Option<()> {
    let base = out.len();
    out.resize(base + size as usize, 0);
    for p in from {
        match *p {
            Piece::Copy {
                old_at,
                new_at,
                len,
            } => {
                let n = start + new_at as usize;
                let o = base + old_at as usize;
                let src = canon.get(n..n + len as usize)?;
                out.get_mut(o..o + len as usize)?.copy_from_slice(src);
            }
            Piece::Convert {
                old_at,
                new_at,
                old,
                new,
            } => {
                let v = convert(new, old, canon, start + new_at as usize)?;
                let o = base + old_at as usize;
                out.get(o..o + old.width as usize)?;
                old.write(out, o, v);
            }
            Piece::Handle { old_at, new_at } => {
                let h = handles?.get(*canon.get(start + new_at as usize)?)?;
                *out.get_mut(base + old_at as usize)? = h;
            }
            Piece::Drop { .. } => {}
        }
    }
    Some(())
}

/// Where `Extension::embed_into` tells what a new vector is made of, in order: bytes of the
/// old vector or of the parent appended, constant bytes, and old bytes (or values) written
/// over what was appended (None: a range out of bounds, or a value that does not fit).
trait Emit {
    fn len(&self) -> usize;
    fn old(&mut self, r: std::ops::Range<usize>) -> Option<()>;
    fn parent(&mut self, r: std::ops::Range<usize>) -> Option<()>;
    fn byte(&mut self, b: u8);
    fn zeros(&mut self, n: usize);
    fn overwrite(&mut self, at: usize, r: std::ops::Range<usize>) -> Option<()>;
    fn convert(&mut self, at: usize, src: usize, old: Scalar, new: Scalar) -> Option<()>;
    /// The old vector's channel handle at `src`, renumbered, written at `at`.
    fn handle(&mut self, at: usize, src: usize) -> Option<()>;
}

/// `Emit` into the new vector's bytes.
struct Bytes<'a> {
    old: &'a [u8],
    parent: &'a [u8],
    handles: Option<&'a HandleTable>,
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
    fn convert(&mut self, at: usize, src: usize, old: Scalar, new: Scalar) -> Option<()> {
        let v = convert(old, new, self.old, src)?;
        self.out.get(at..at + new.width as usize)?;
        new.write(self.out, at, v);
        Some(())
    }
    fn handle(&mut self, at: usize, src: usize) -> Option<()> {
        let h = self.handles?.get(*self.old.get(src)?)?;
        *self.out.get_mut(at)? = h;
        Some(())
    }
}

/// What `embed` does for old vectors of one shape and one parent's extras: what does not
/// depend on the old vector (the parent's bytes, tags, zeros), and the old vector's bytes
/// and converted values written over it.
#[derive(Clone, Debug, Default)]
pub struct EmbedPlan {
    template: Vec<u8>,
    /// (where in the new vector, where in the old one, bytes).
    copies: Vec<(u32, u32, u32)>,
    /// (where in the new vector, where in the old one, old type, new type).
    converts: Vec<(u32, u32, Scalar, Scalar)>,
    /// (where in the new vector, where in the old one) of channel handles, and their map.
    handles: Vec<(u32, u32)>,
    map: Option<HandleTable>,
    old_len: usize,
}

impl EmbedPlan {
    /// Whether `apply` succeeds on every vector of the plan's length: no value converted
    /// to a type that may not hold it, no channel handle renumbered (a handle the map does
    /// not know fails).
    pub fn total(&self) -> bool {
        self.handles.is_empty() && self.converts.iter().all(|&(_, _, o, n)| holds_all(o, n))
    }

    /// The new vector of `old` (of the plan's shape) into `out`. False: `old` is not of the
    /// plan's length, or holds a value a new type cannot hold.
    pub fn apply(&self, old: &[u8], out: &mut Vec<u8>) -> bool {
        if old.len() != self.old_len {
            return false;
        }
        out.clear();
        out.extend_from_slice(&self.template);
        for &(at, src, n) in &self.copies {
            let (at, src, n) = (at as usize, src as usize, n as usize);
            crate::explore::small_copy::copy(&mut out[at..at + n], &old[src..src + n]);
        }
        for &(at, src, o, n) in &self.converts {
            match convert(o, n, old, src as usize) {
                Some(v) => {
                    n.write(out, at as usize, v);
                }
                None => return false,
            }
        }
        for &(at, src) in &self.handles {
            match self.map.as_ref().and_then(|m| m.get(old[src as usize])) {
                Some(h) => out[at as usize] = h,
                None => return false,
            }
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
    fn convert(&mut self, at: usize, src: usize, old: Scalar, new: Scalar) -> Option<()> {
        (at + new.width as usize <= self.len() && src + old.width as usize <= self.old_len)
            .then_some(())?;
        self.plan.converts.push((at as u32, src as u32, old, new));
        Some(())
    }
    fn handle(&mut self, at: usize, src: usize) -> Option<()> {
        (at < self.len() && src < self.old_len).then_some(())?;
        self.plan.handles.push((at as u32, src as u32));
        Some(())
    }
}

impl ProcExtension {
    /// Whether its processes differ across the map beyond where their bytes are: fresh,
    /// converted or dropped locals, or an added proctype. A `run` of it makes another
    /// process than the old version's, so every `run` of it is dangerous.
    pub fn changed(&self) -> bool {
        self.old_tag.is_none()
            || self.chans_changed
            || self.grew()
            || self.from.iter().any(|p| !matches!(p, Piece::Copy { .. }))
    }

    /// Whether the proctype's new locals hold bytes the old ones do not fill (added
    /// variables, an array's added elements).
    fn grew(&self) -> bool {
        !self.fresh.is_empty()
    }
}

/// The spans of an area of `size` bytes that none of `from`'s pieces fill (offset, bytes).
fn fresh_spans(from: &[Piece], size: u32) -> Vec<(u32, u32)> {
    let mut filled: Vec<(u32, u32)> = from.iter().filter_map(Piece::new_span).collect();
    filled.sort_unstable();
    let (mut out, mut at) = (Vec::new(), 0u32);
    for (off, len) in filled {
        if off > at {
            out.push((at, off - at));
        }
        at = at.max(off + len);
    }
    if at < size {
        out.push((at, size - at));
    }
    out
}

/// One record of a canonical vector, as byte ranges.
enum Rec {
    Chan(std::ops::Range<usize>),
    Proc {
        /// The new layout's tag of its proctype.
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

impl Records<'_> {
    /// The next `n` records, which must be channels' (those a process just walked created
    /// with itself: `Creation`), gathered into `out`.
    fn own_chans<'o>(
        &mut self,
        n: usize,
        out: &'o mut [std::ops::Range<usize>; MAX_CREATED],
    ) -> Option<&'o [std::ops::Range<usize>]> {
        for slot in out.get_mut(..n)? {
            match self.next()?? {
                Rec::Chan(x) => *slot = x,
                Rec::Proc { .. } => return None,
            }
        }
        out.get(..n)
    }
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
            let tag = if self.new {
                Some(tag)
            } else {
                self.ext.old_tags.get(tag as usize).copied().flatten()
            };
            tag.and_then(|tag| {
                let p = self.ext.procs.get(tag as usize)?;
                let size = if self.new { p.size } else { p.old_size };
                let l = at + self.ext.proc_head as usize;
                let end = l + size as usize;
                (end <= self.v.len()).then_some((
                    end,
                    Rec::Proc {
                        tag,
                        head: at..l,
                        locals: l..end,
                    },
                ))
            })
        };
        Some(rec.map(|(end, r)| {
            self.at = end;
            r
        }))
    }
}

/// A local channel declaration whose type changed: (proctype, local) in the old and the new
/// program, its two types and its name (`P:c`).
struct RetypedLocal {
    old: (usize, usize),
    new: (usize, usize),
    types: (ChanType, ChanType),
    name: String,
}

/// The type of every channel declaration of a program, once per declaration (a global, a
/// local, a typedef field, a channel a statement creates), wherever it is.
fn chan_sites(p: &Program) -> Vec<ChanType> {
    fn decl(v: &Var, out: &mut Vec<ChanType>) {
        if let VarInit::Chan(ct) = &v.init {
            out.push(ct.clone());
        }
    }
    let mut out = Vec::new();
    p.globals.iter().for_each(|v| decl(v, &mut out));
    p.typedefs
        .iter()
        .flat_map(|t| &t.fields)
        .for_each(|v| decl(v, &mut out));
    for q in &p.procs {
        q.locals.iter().for_each(|v| decl(v, &mut out));
        for l in &q.automaton.locations {
            for e in &l.edges {
                if let crate::program::expr::LStmt::ChanInit(_, ct) = &e.stmt {
                    out.push(ct.clone());
                }
            }
        }
    }
    out
}

/// What pairing the declarations found beyond kept variables.
#[derive(Default)]
struct Delta {
    added: Vec<String>,
    changed: Vec<String>,
    drops: bool,
    /// The next number a converted or dropped variable is compared by.
    fresh: usize,
}

impl Delta {
    fn fresh(&mut self) -> usize {
        self.fresh += 1;
        FRESH_COMPARE + self.fresh
    }
}

/// Per old variable: its new index, the numbers writes and reads of it are compared by,
/// and its pieces.
struct Pairing {
    index: Vec<usize>,
    compare: Vec<usize>,
    read: Vec<usize>,
    retyped: Vec<Option<Retyped>>,
    resized: Vec<Option<u32>>,
    from: Vec<Piece>,
}

/// The elements both versions of an array of scalars have (the shorter length), when it was
/// resized and its elements' type is the same.
fn resized_kept(ov: &Var, ol: &VarLayout, nv: &Var, nl: &VarLayout) -> Option<u32> {
    let (a, b) = (plain_scalars(ov, ol)?, plain_scalars(nv, nl)?);
    a.first()?;
    match (&ol.shape, &nl.shape, ov.array, nv.array) {
        (Shape::Array { .. }, Shape::Array { .. }, Some(n), Some(m))
            if n != m && a.iter().chain(&b).all(|x| x.1 == a[0].1) =>
        {
            Some(n.min(m))
        }
        _ => None,
    }
}

/// A variable retyped whose reads are kept (`read_kept`): the scalar type of its elements
/// in the old and the new version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retyped {
    pub old: Scalar,
    pub new: Scalar,
}

impl Retyped {
    /// Whether a store of `c` leaves `c` in both types: then a state and its image hold
    /// the same value after it, as they did before any write that keeps them apart.
    pub fn holds(&self, c: i64) -> bool {
        i32::try_from(c).is_ok_and(|v| self.old.truncate(v) == v && self.new.truncate(v) == v)
    }

    fn of(ov: &Var, ol: &VarLayout, nv: &Var, nl: &VarLayout) -> Option<Retyped> {
        if !read_kept(ov, ol, nv, nl) {
            return None;
        }
        let (a, b) = (plain_scalars(ov, ol)?, plain_scalars(nv, nl)?);
        // (An array's elements are of one type.)
        Some(Retyped {
            old: a.first()?.1,
            new: b.first()?.1,
        })
    }
}

/// A variable retyped whose every value reads the same in both versions wherever a state
/// maps: plain data of the same length (a scalar, or an array of as many scalars), so that
/// each element converts to its own element (`Piece::Convert` carries a value over only
/// where the other type holds it, unchanged). An array resized is not: an index past one
/// length and within the other reads in one version and faults in the other.
fn read_kept(ov: &Var, ol: &VarLayout, nv: &Var, nl: &VarLayout) -> bool {
    ov.array == nv.array
        && matches!(
            (plain_scalars(ov, ol), plain_scalars(nv, nl)),
            (Some(a), Some(b)) if a.len() == b.len()
        )
}

/// A declared type as Promela writes it.
fn type_text(v: &Var) -> String {
    let t = match &v.ty {
        Type::Bit => "bit".to_string(),
        Type::Bool => "bool".into(),
        Type::Byte => "byte".into(),
        Type::Short => "short".into(),
        Type::Int => "int".into(),
        Type::Unsigned { bits } => format!("unsigned : {bits}"),
        Type::Chan => "chan".into(),
        Type::Mtype { subtype } => subtype
            .as_ref()
            .map_or("mtype".into(), |s| format!("mtype:{s}")),
        Type::Pid => "pid".into(),
        Type::Struct { name, .. } => name.clone(),
    };
    match v.array {
        Some(n) => format!("{t} [{n}]"),
        None => t,
    }
}

/// The scalars of a variable of plain data (a scalar, or an array of scalars), with their
/// offsets from its start; None for a channel, a record or an array of records.
fn plain_scalars(v: &Var, l: &VarLayout) -> Option<Vec<(u32, Scalar)>> {
    if matches!(v.ty, Type::Chan | Type::Struct { .. }) {
        return None;
    }
    match &l.shape {
        Shape::Scalar(_) => {}
        Shape::Array { elem, .. } if matches!(**elem, Shape::Scalar(_)) => {}
        _ => return None,
    }
    let mut sc = Vec::new();
    l.shape.scalars(0, &mut sc);
    Some(sc)
}

/// A global channel variable (or array of them), not a record: one that may be added or
/// removed (its channels are added or removed with it).
fn plain_chan(owner: &str, v: &Var) -> bool {
    owner.is_empty() && matches!(v.ty, Type::Chan)
}

/// A local channel variable whose addition or removal the map carries: one whose channels
/// are created with its process (`Creation`), or one that creates none. Not a late
/// declaration that creates channels: they are created where it stands, after whatever
/// the process created before.
fn local_chan(owner: &str, v: &Var) -> bool {
    !owner.is_empty()
        && matches!(v.ty, Type::Chan)
        && (!v.late || !matches!(v.init, VarInit::Chan(_)))
}

/// Where `v` and `w` are the same array of channels (or a channel variable and such an
/// array) but for its length: the elements both have. The same channel type, or neither
/// creating channels; a local one created with its process, as `local_chan` says.
fn chans_resized(owner: &str, v: &Var, w: &Var) -> Option<u32> {
    let same_init = match (&v.init, &w.init) {
        (VarInit::Chan(a), VarInit::Chan(b)) => a == b,
        (VarInit::Zero, VarInit::Zero) => true,
        _ => false,
    };
    let carried = |x: &Var| plain_chan(owner, x) || local_chan(owner, x);
    (matches!((&v.ty, &w.ty), (Type::Chan, Type::Chan))
        && v.array != w.array
        && same_init
        && carried(v)
        && carried(w))
    .then(|| v.array.unwrap_or(1).min(w.array.unwrap_or(1)))
}

/// The channels a process of a proctype with locals `locals` creates with itself, in order:
/// (local, element, type).
fn created_with(locals: &[Var]) -> Vec<(usize, u32, &ChanType)> {
    let mut out = Vec::new();
    for (k, v) in locals.iter().enumerate() {
        if let (VarInit::Chan(ct), false) = (&v.init, v.late) {
            out.extend((0..v.array.unwrap_or(1)).map(|e| (k, e, ct)));
        }
    }
    out
}

/// How the channels a proctype's processes create with themselves pair across versions
/// (`index`: per old local, its new index or `DROPPED`; `a`: the old layout), in any order
/// (declarations reordered: each record moves to its place). None: the same ones, in the
/// same order. Refused where a kept variable creates channels in one version only.
fn creation(
    (op, np): (&crate::program::Proc, &crate::program::Proc),
    index: &[usize],
    a: &Layout,
) -> Result<Option<Creation>, String> {
    let (olds, news) = (created_with(&op.locals), created_with(&np.locals));
    let mut c = Creation {
        new: vec![None; news.len()],
        old: vec![None; olds.len()],
        old_recs: Vec::with_capacity(olds.len()),
    };
    for (k, &(ok, e, oct)) in olds.iter().enumerate() {
        let t = a
            .chans
            .iter()
            .position(|x| &x.source == oct)
            .ok_or_else(|| "a channel type the layout lacks".to_string())?;
        let size = a.chans[t].record_size() as u32;
        c.old_recs.push(((t as u8) | CHAN_TAG, size));
        let Some(&nk) = index.get(ok).filter(|&&j| j != DROPPED) else {
            continue;
        };
        // (An element past a resized array's new length is removed.)
        if let Some(i) = news.iter().position(|&(j, f, _)| j == nk && f == e) {
            c.old[k] = Some(i as u8);
            c.new[i] = Some(k as u8);
        }
    }
    // A kept variable that creates channels in one version only.
    let creates = |list: &[(usize, u32, &ChanType)], var: usize| list.iter().any(|x| x.0 == var);
    for (ok, &nk) in index.iter().enumerate() {
        if nk != DROPPED && creates(&olds, ok) != creates(&news, nk) {
            return Err(format!(
                "local '{}:{}' creates channels in one version only{CREATION_ORDER}",
                np.name, op.locals[ok].name
            ));
        }
    }
    if olds.len() > MAX_CREATED || news.len() > MAX_CREATED {
        return Err(format!(
            "proctype {}: more than {MAX_CREATED} local channels{CREATION_ORDER}",
            np.name
        ));
    }
    let same =
        olds.len() == news.len() && c.new.iter().enumerate().all(|(i, p)| *p == Some(i as u8));
    Ok((!same).then_some(c))
}

/// The scalars of a shape with the path that names each in it (`[2]`, `.f`, `[1].g.h`) and
/// its offset from `base`.
fn named_scalars(shape: &Shape, path: &str, base: u32, out: &mut Vec<(String, u32, Scalar)>) {
    match shape {
        Shape::Scalar(s) => out.push((path.to_string(), base, *s)),
        Shape::Array { elem, len, stride } => {
            for i in 0..*len {
                named_scalars(elem, &format!("{path}[{i}]"), base + i * stride, out);
            }
        }
        Shape::Record { fields, names } => {
            for ((o, f), n) in fields.iter().zip(names) {
                named_scalars(f, &format!("{path}.{n}"), base + o, out);
            }
        }
    }
}

/// Per old scalar of a variable whose shape changed (offset, type): the new scalar it is
/// (offset, type), if any. Plain data pairs by position (a scalar with an array's first
/// element, an array's elements by index); a record or an array of records by the path of
/// each scalar (a typedef's field by its name), so a field added, removed or retyped
/// leaves the others where they were.
fn scalar_pairs(ov: &Var, ol: &VarLayout, nv: &Var, nl: &VarLayout) -> ScalarPairs {
    if let (Some(so), Some(sn)) = (plain_scalars(ov, ol), plain_scalars(nv, nl)) {
        return so
            .iter()
            .enumerate()
            .map(|(e, &x)| (x, sn.get(e).copied()))
            .collect();
    }
    let (mut so, mut sn) = (Vec::new(), Vec::new());
    named_scalars(&ol.shape, "", 0, &mut so);
    named_scalars(&nl.shape, "", 0, &mut sn);
    let by_path: std::collections::HashMap<&str, (u32, Scalar)> =
        sn.iter().map(|(p, o, s)| (p.as_str(), (*o, *s))).collect();
    so.iter()
        .map(|(p, o, s)| ((*o, *s), by_path.get(p.as_str()).copied()))
        .collect()
}

type ScalarPairs = Vec<((u32, Scalar), Option<(u32, Scalar)>)>;

/// Why channels a process or a record creates are not mapped when they change.
const CREATION_ORDER: &str = ": channels are numbered in creation order, so every channel \
     created after these would be another channel, and the map does not pair these";

/// Pairs old variables with new ones by name (the same visibility, neither hidden): the
/// same scalars are kept, data of another type or length is converted scalar by scalar
/// (`scalar_pairs`: an array's elements past the new length, a record's removed fields
/// dropped), an old variable without a new one is dropped (not a channel); the new ones
/// left over are added (their names go to `d.added`, after `owner`) and must create no
/// channel (`creates_chan`). None: something else changed (a channel retyped, a channel
/// removed or added, visibility).
fn pair_vars(
    old: (&[Var], &[VarLayout]),
    new: (&[Var], &[VarLayout]),
    owner: &str,
    programs: (&Program, &Program),
    d: &mut Delta,
) -> Result<Pairing, String> {
    let (old_chan, new_chan) = (
        |v: &Var| creates_chan(programs.0, v, 0),
        |v: &Var| creates_chan(programs.1, v, 0),
    );
    // (A record's fields by name too: the same scalars under other names are other data.)
    let all_scalars = |v: &VarLayout| {
        let mut sc = Vec::new();
        named_scalars(&v.shape, "", 0, &mut sc);
        sc
    };
    let mut p = Pairing {
        index: Vec::new(),
        compare: Vec::new(),
        read: Vec::new(),
        retyped: Vec::new(),
        resized: Vec::new(),
        from: Vec::new(),
    };
    let what = if owner.is_empty() { "global" } else { "local" };
    let mut taken = vec![false; new.0.len()];
    for (k, v) in old.0.iter().enumerate() {
        let ol = old
            .1
            .get(k)
            .ok_or_else(|| "the old layout lacks a variable".to_string())?;
        if ol.hidden {
            return Err(format!(
                "{what} '{owner}{}' is hidden (its value is not in the state)",
                v.name
            ));
        }
        // By name; else, renamed: the new variable in its place, of the same shape, whose
        // name the old version does not have (a rename keeps every state's meaning).
        let by_name = (0..new.0.len()).find(|&j| !taken[j] && new.0[j].name == v.name);
        let renamed = || {
            let w = new.0.get(k)?;
            let nl = new.1.get(k)?;
            (!taken[k]
                && !old.0.iter().any(|o| o.name == w.name)
                && w.vis == v.vis
                && w.ty == v.ty
                && w.array == v.array
                && !nl.hidden
                && all_scalars(ol) == all_scalars(nl))
            .then_some(k)
        };
        let Some(j) = by_name.or_else(renamed) else {
            // Removed: its bytes are dropped. (A channel's record goes too: only a global
            // channel's, which `layout_extension` takes out of the channels.)
            let carried = plain_chan(owner, v) || local_chan(owner, v);
            if (matches!(v.ty, Type::Chan) || old_chan(v)) && !carried {
                return Err(format!(
                    "{what} '{owner}{}' removed, and with it the channels it creates{}",
                    v.name, CREATION_ORDER
                ));
            }
            p.index.push(DROPPED);
            let n = d.fresh();
            p.compare.push(n);
            p.read.push(n);
            p.retyped.push(None);
            p.resized.push(None);
            p.from.push(Piece::Drop {
                old_at: ol.offset,
                len: ol.shape.size(),
            });
            d.drops = true;
            d.changed
                .push(format!("{what} '{owner}{}' removed", v.name));
            continue;
        };
        let (w, nl) = (
            &new.0[j],
            new.1
                .get(j)
                .ok_or_else(|| "the new layout lacks a variable".to_string())?,
        );
        if nl.hidden {
            return Err(format!(
                "{what} '{owner}{}' is hidden now (its value is not in the state)",
                w.name
            ));
        }
        if v.vis != w.vis {
            return Err(format!("{what} '{owner}{}' changed its visibility", w.name));
        }
        if matches!(v.ty, Type::Chan) != matches!(w.ty, Type::Chan) {
            return Err(format!(
                "{what} '{owner}{}' is a channel in one version and data in the other",
                w.name
            ));
        }
        taken[j] = true;
        p.index.push(j);
        if all_scalars(ol) == all_scalars(nl) {
            p.compare.push(j);
            p.read.push(j);
            p.retyped.push(None);
            p.resized.push(None);
            p.from.push(Piece::Copy {
                old_at: ol.offset,
                new_at: nl.offset,
                len: nl.shape.size(),
            });
            continue;
        }
        if let Some(kept) = chans_resized(owner, v, w) {
            // An array of channels resized: the elements both have keep their handles
            // (renumbered as every kept channel variable's), the others are dropped or
            // fresh, and every statement naming it is dangerous. Its channels pair element
            // by element (global ones by their place in it, a process's by `Creation`).
            let n = d.fresh();
            p.compare.push(n);
            p.read.push(n);
            p.retyped.push(None);
            p.resized.push(None);
            let old_len = v.array.unwrap_or(1);
            for e in 0..old_len {
                p.from.push(match e < kept {
                    true => Piece::Copy {
                        old_at: ol.offset + e,
                        new_at: nl.offset + e,
                        len: 1,
                    },
                    false => {
                        d.drops = true;
                        Piece::Drop {
                            old_at: ol.offset + e,
                            len: 1,
                        }
                    }
                });
            }
            d.changed.push(format!(
                "{what} '{owner}{}' declared as {} instead of {}",
                v.name,
                type_text(w),
                type_text(v)
            ));
            continue;
        }
        if matches!(v.ty, Type::Chan) || old_chan(v) || new_chan(w) {
            return Err(format!(
                "{what} '{owner}{}' declared as {} instead of {}, which changes the channels it \
                 creates{}",
                w.name,
                type_text(w),
                type_text(v),
                CREATION_ORDER
            ));
        }
        let n = d.fresh();
        p.compare.push(n);
        let retyped = Retyped::of(v, ol, w, nl);
        p.read.push(if retyped.is_some() { j } else { n });
        p.retyped.push(retyped);
        p.resized.push(resized_kept(v, ol, w, nl));
        for ((off, s), to) in scalar_pairs(v, ol, w, nl) {
            let old_at = ol.offset + off;
            p.from.push(match to {
                Some((noff, ns)) if ns == s => Piece::Copy {
                    old_at,
                    new_at: nl.offset + noff,
                    len: s.width as u32,
                },
                Some((noff, ns)) => Piece::Convert {
                    old_at,
                    new_at: nl.offset + noff,
                    old: s,
                    new: ns,
                },
                None => {
                    d.drops = true;
                    Piece::Drop {
                        old_at,
                        len: s.width as u32,
                    }
                }
            });
        }
        d.changed.push(match (&v.ty, &w.ty) {
            (Type::Struct { name: a, .. }, Type::Struct { name: b, .. })
                if a == b && v.array == w.array =>
            {
                format!(
                    "{what} '{owner}{}' of type {b} whose fields changed",
                    v.name
                )
            }
            _ => format!(
                "{what} '{owner}{}' declared as {} instead of {}",
                v.name,
                type_text(w),
                type_text(v)
            ),
        });
    }
    for (j, w) in new.0.iter().enumerate() {
        if taken[j] {
            continue;
        }
        let carried = plain_chan(owner, w) || local_chan(owner, w);
        if (matches!(w.ty, Type::Chan) || new_chan(w)) && !carried {
            return Err(format!(
                "{what} '{owner}{}' added, and with it the channels it creates{}",
                w.name, CREATION_ORDER
            ));
        }
        if new.1.get(j).is_none_or(|l| l.hidden) {
            return Err(format!(
                "{what} '{owner}{}' added hidden (its value is not in the state)",
                w.name
            ));
        }
        d.added.push(format!("{owner}{}", w.name));
    }
    Ok(p)
}

/// How `new`'s layout maps onto `old`'s (see `Extension`); `NoMap::Same` when the layouts
/// are the same and no channel changed its number, `NoMap::Refused` (with the reason) when
/// something changed that the map does not carry.
pub fn layout_extension(old: &Program, new: &Program) -> Result<Extension, NoMap> {
    let refuse = |why: String| Err(NoMap::Refused(why));
    let (Ok(a), Ok(b)) = (Layout::new(old), Layout::new(new)) else {
        return refuse("a version's state layout cannot be built".into());
    };
    // Proctypes pair by name (and kind).
    let old_tags: Vec<Option<u8>> = old
        .procs
        .iter()
        .map(|op| {
            new.procs
                .iter()
                .position(|np| np.name == op.name && np.kind == op.kind)
                .and_then(|t| u8::try_from(t).ok())
        })
        .collect();
    let moved = old.procs.len() != new.procs.len()
        || old_tags
            .iter()
            .enumerate()
            .any(|(i, t)| *t != u8::try_from(i).ok());
    if a.hash == b.hash && !moved && !chans_reordered(old, new) {
        return Err(NoMap::Same);
    }
    if a.hidden_size != 0 || b.hidden_size != 0 {
        return refuse("the model has hidden variables, whose values are not in the state".into());
    }
    if a.last_at != b.last_at || a.globals_at != b.globals_at {
        return refuse("the model's use of _last changed".into());
    }
    if a.uses_priority != b.uses_priority {
        return refuse("the model's use of priorities changed".into());
    }
    if typedef_chans(old) != typedef_chans(new) {
        return refuse(format!(
            "a typedef's channel fields changed{CREATION_ORDER}"
        ));
    }
    let mut d = Delta::default();
    let mut globals = pair_vars(
        (&old.globals, &a.globals),
        (&new.globals, &b.globals),
        "",
        (old, new),
        &mut d,
    )
    .map_err(NoMap::Refused)?;
    let mut procs = Vec::with_capacity(new.procs.len());
    let mut retyped: Vec<RetypedLocal> = Vec::new();
    for (t, (np, y)) in new.procs.iter().zip(&b.procs).enumerate() {
        let Some(i) = old_tags.iter().position(|&o| o.map(usize::from) == Some(t)) else {
            d.changed.push(format!("proctype {} added", np.name));
            procs.push(ProcExtension {
                old_tag: None,
                locals: Vec::new(),
                compare: Vec::new(),
                read: Vec::new(),
                retyped: Vec::new(),
                resized: Vec::new(),
                from: Vec::new(),
                size: y.locals_size,
                old_size: 0,
                chans_changed: false,
                creation: None,
                fresh: Vec::new(),
            });
            continue;
        };
        let (op, x) = (&old.procs[i], &a.procs[i]);
        // A canonical vector names a process's location by its stable id in four bytes
        // whatever the layout's location width (`Machine::canonical`), so a proctype that
        // grew past 255 locations (or shrank below) keeps its records; only a priority
        // field gained or lost moves them.
        if x.header - a.loc_width != y.header - b.loc_width {
            return refuse(format!(
                "proctype {}: its process header changed (a priority field)",
                np.name
            ));
        }
        let p = pair_vars(
            (&op.locals, &x.locals),
            (&np.locals, &y.locals),
            &format!("{}:", np.name),
            (old, new),
            &mut d,
        )
        .map_err(NoMap::Refused)?;
        let Ok(old_tag) = u8::try_from(i) else {
            return refuse("more than 255 proctypes".into());
        };
        let creation = creation((op, np), &p.index, &a).map_err(NoMap::Refused)?;
        if let Some(c) = &creation {
            let (added, removed) = (
                c.new.iter().filter(|x| x.is_none()).count(),
                c.old.iter().filter(|x| x.is_none()).count(),
            );
            let n = |k: usize| if k == 1 { "channel" } else { "channels" };
            let mut what = Vec::new();
            if added > 0 {
                what.push(format!("{added} {} more", n(added)));
            }
            if removed > 0 {
                what.push(format!("{removed} {} fewer", n(removed)));
            }
            if what.is_empty() {
                what.push("their channels in another order".into());
            }
            d.changed.push(format!(
                "proctype {}'s processes create {}",
                np.name,
                what.join(" and ")
            ));
        }
        for (k, ov) in op.locals.iter().enumerate() {
            let Some(nv) = p.index.get(k).and_then(|&j| Some((j, np.locals.get(j)?))) else {
                continue;
            };
            if let (VarInit::Chan(co), VarInit::Chan(cn)) = (&ov.init, &nv.1.init) {
                if co != cn {
                    retyped.push(RetypedLocal {
                        old: (i, k),
                        new: (t, nv.0),
                        types: (co.clone(), cn.clone()),
                        name: format!("{}:{}", np.name, nv.1.name),
                    });
                }
            }
        }
        procs.push(ProcExtension {
            old_tag: Some(old_tag),
            locals: p.index,
            compare: p.compare,
            read: p.read,
            retyped: p.retyped,
            resized: p.resized,
            from: p.from,
            size: y.locals_size,
            old_size: x.locals_size,
            chans_changed: false,
            creation,
            fresh: Vec::new(),
        });
    }
    for (op, t) in old.procs.iter().zip(&old_tags) {
        if t.is_none() {
            d.changed.push(format!("proctype {} removed", op.name));
        }
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
                capacity: c.capacity,
                msg: c.msg_size,
                changed: false,
            })
            .collect()
    };
    let (mut chans, mut old_chans) = (table(&b, &a), table(&a, &b));
    let msg_handles = |x: &Layout| -> Vec<Vec<u32>> {
        x.chans.iter().map(|c| c.handle_offsets.clone()).collect()
    };
    // A local channel declaration whose type changed pairs its two types, where each is
    // the type of no other channel in either version: its records are then known by their
    // tag alone.
    let (old_sites, new_sites) = (chan_sites(old), chan_sites(new));
    let mut changed_locals = Vec::new();
    for r in &retyped {
        let (co, cn) = &r.types;
        let sole = |sites: &[ChanType], t: &ChanType| sites.iter().filter(|&c| c == t).count() == 1;
        let absent = |sites: &[ChanType], t: &ChanType| !sites.contains(t);
        let (Some(to), Some(tn)) = (
            a.chans.iter().position(|c| &c.source == co),
            b.chans.iter().position(|c| &c.source == cn),
        ) else {
            continue;
        };
        if !(sole(&old_sites, co)
            && sole(&new_sites, cn)
            && absent(&new_sites, co)
            && absent(&old_sites, cn))
        {
            continue;
        }
        let (Ok(to8), Ok(tn8)) = (u8::try_from(to), u8::try_from(tn)) else {
            continue;
        };
        old_chans[to].other = Some(tn8);
        old_chans[to].changed = true;
        chans[tn].other = Some(to8);
        chans[tn].changed = true;
        if let Some(p) = procs.get_mut(r.new.0) {
            p.chans_changed = true;
        }
        changed_locals.push((r.old, r.new));
        d.changed.push(format!(
            "local channel '{}' declared as {cn} instead of {co}",
            r.name
        ));
    }
    let (olds, news) = (global_chans(old), global_chans(new));
    // Global channels pair by the global that declares them (the same one, or a renamed
    // one) and their place in it; the others were removed or added.
    let ordinal = |list: &[(usize, ChanType)], k: usize| {
        list[..k].iter().filter(|(o, _)| *o == list[k].0).count()
    };
    let pairs: Vec<Option<usize>> = (0..olds.len())
        .map(|k| {
            let owner = *globals.index.get(olds[k].0)?;
            (0..news.len()).find(|&j| news[j].0 == owner && ordinal(&news, j) == ordinal(&olds, k))
        })
        .collect();
    let paired: Vec<usize> = pairs.iter().flatten().copied().collect();
    if paired.windows(2).any(|w| w[0] >= w[1]) {
        // Each keeps its record and its contents; its number (its place among them) is
        // another, which the handle map renumbers as for channels added or removed.
        d.changed
            .push("global channels declared in another order".into());
    }
    let handles = HandleMap::new(&pairs, olds.len(), news.len()).map(std::sync::Arc::new);
    let local_chans = procs.iter().any(|p| p.creation.is_some());
    if handles.is_some() || local_chans {
        let in_messages = |l: &Layout| l.chans.iter().any(|c| !c.handle_offsets.is_empty());
        if local_chans && (in_messages(&a) || in_messages(&b)) {
            return refuse(
                "local channels were added or removed, which renumbers the channels processes \
                 create, and channel numbers may sit in messages (a field of type chan): a \
                 message can hold the number of a channel whose process has ended, whose \
                 number in the other version the state does not tell"
                    .into(),
            );
        }
        let retyped = || {
            refuse(
                "channels were added, removed or reordered, which renumbers channels, and a \
                 record's field holds a channel in one version and data in the other"
                    .into(),
            )
        };
        let (ho, hn) = (
            area_handles(old, &old.globals, &a.globals),
            area_handles(new, &new.globals, &b.globals),
        );
        if !handle_pieces(&mut globals.from, &ho, &hn) {
            return retyped();
        }
        for (t, p) in procs.iter_mut().enumerate() {
            if let (Some(i), Some(np), Some(nl)) = (p.old_tag, new.procs.get(t), b.procs.get(t)) {
                let i = i as usize;
                let ho = area_handles(old, &old.procs[i].locals, &a.procs[i].locals);
                let hn = area_handles(new, &np.locals, &nl.locals);
                if !handle_pieces(&mut p.from, &ho, &hn) {
                    return retyped();
                }
            }
        }
    }
    let record = |l: &Layout, ct: &ChanType| {
        let t = l.chans.iter().position(|c| &c.source == ct)?;
        let c = &l.chans[t];
        Some((t as u8 | CHAN_TAG, c.capacity, c.msg_size))
    };
    let unpaired = || NoMap::Refused("the two versions' global channels do not pair".into());
    // Where each old channel's record starts among the old vector's global channel records.
    let mut old_at = Vec::with_capacity(olds.len());
    let mut old_prefix_size = 0u32;
    for (_, oc) in &olds {
        old_at.push(old_prefix_size);
        let (_, cap, msg) = record(&a, oc).ok_or_else(unpaired)?;
        old_prefix_size += 2 + cap * msg;
    }
    // In the new order: a new channel paired with an old one, or added; then the removed.
    let mut prefix = Vec::with_capacity(olds.len().max(news.len()));
    let mut changed_globals: Vec<usize> = Vec::new();
    let mut new_prefix_size = 0u32;
    for (j, (nj, nc)) in news.iter().enumerate() {
        let new_rec = record(&b, nc).ok_or_else(unpaired)?;
        let c = match pairs.iter().position(|&p| p == Some(j)) {
            None => {
                d.changed
                    .push(format!("channel '{}' added", new.globals[*nj].name));
                GlobalChan {
                    old: None,
                    new: Some(new_rec),
                    changed: false,
                    old_at: 0,
                    new_at: new_prefix_size,
                }
            }
            Some(k) => {
                let (i, oc) = &olds[k];
                let c = GlobalChan {
                    old: Some(record(&a, oc).ok_or_else(unpaired)?),
                    new: Some(new_rec),
                    changed: oc != nc,
                    old_at: old_at[k],
                    new_at: new_prefix_size,
                };
                if c.changed && !changed_globals.contains(i) {
                    changed_globals.push(*i);
                    d.changed.push(format!(
                        "channel '{}' declared as {nc} instead of {oc}",
                        new.globals[*nj].name
                    ));
                }
                c
            }
        };
        new_prefix_size += c.new_size() as u32;
        prefix.push(c);
    }
    for (k, (i, oc)) in olds.iter().enumerate() {
        if pairs[k].is_none() {
            d.drops = true;
            d.changed
                .push(format!("channel '{}' removed", old.globals[*i].name));
            prefix.push(GlobalChan {
                old: Some(record(&a, oc).ok_or_else(unpaired)?),
                new: None,
                changed: false,
                old_at: old_at[k],
                new_at: new_prefix_size,
            });
        }
    }
    // (The pieces are final: channel variables' bytes are handles now.)
    for p in &mut procs {
        p.fresh = fresh_spans(&p.from, p.size);
    }
    let fresh_globals = fresh_spans(&globals.from, b.records_at - b.globals_at);
    let mut old_order: Vec<usize> = (0..prefix.len())
        .filter(|&e| prefix[e].old.is_some())
        .collect();
    old_order.sort_by_key(|&e| prefix[e].old_at);
    Ok(Extension {
        globals: globals.index,
        compare_globals: globals.compare,
        read_globals: globals.read,
        retyped_globals: globals.retyped,
        resized_globals: globals.resized,
        from: globals.from,
        old_globals_size: a.records_at - a.globals_at,
        globals_at: b.globals_at,
        records_at: b.records_at,
        procs,
        old_tags,
        chans,
        old_chans,
        msg_handles: msg_handles(&b),
        old_msg_handles: msg_handles(&a),
        prefix,
        old_order,
        old_prefix_size,
        new_prefix_size,
        handles,
        local_chans,
        proc_head: b.procs.first().map_or(0, |p| p.header + 4 - b.loc_width),
        added: d.added,
        changed: d.changed,
        changed_globals,
        changed_locals,
        drops: d.drops,
        fresh_globals,
    })
}

/// Why two versions' states are not mapped onto each other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoMap {
    /// The layouts are the same: states need no map.
    Same,
    /// The layouts differ in a way the map does not carry (said why).
    Refused(String),
}

/// Whether the same global channels are declared in another order: the layout may be the
/// same (channels of one type swapped), but every channel variable's number names another
/// channel, which the map renumbers.
fn chans_reordered(old: &Program, new: &Program) -> bool {
    let owners = |p: &Program| -> Vec<String> {
        global_chans(p)
            .iter()
            .map(|(o, _)| p.globals[*o].name.clone())
            .collect()
    };
    let (a, b) = (owners(old), owners(new));
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    a != b && sorted(&a) == sorted(&b)
}

/// Where the handles of an area lie (its variables `vars` of program `p`, laid out as
/// `lay`): a channel variable's bytes, a record's fields of type chan. Sorted.
fn area_handles(p: &Program, vars: &[Var], lay: &[VarLayout]) -> Vec<u32> {
    let mut out = Vec::new();
    for (v, l) in vars.iter().zip(lay) {
        crate::explore::layout::handles_in_shape(p, &v.ty, &l.shape, l.offset, &mut out);
    }
    out.sort_unstable();
    out
}

/// The handles an area's pieces copy (`old` and `new`: where the area's handles lie in
/// each version, `area_handles`) are renumbered, not copied: each such byte becomes a
/// `Piece::Handle`. False where a handle of one version is data in the other (a record's
/// field of type chan retyped), which has no sound image.
fn handle_pieces(from: &mut Vec<Piece>, old: &[u32], new: &[u32]) -> bool {
    let within = |spots: &[u32], at: u32, len: u32| -> Vec<u32> {
        let lo = spots.partition_point(|&s| s < at);
        spots[lo..]
            .iter()
            .copied()
            .take_while(|&s| s < at + len)
            .collect()
    };
    let mut out = Vec::with_capacity(from.len());
    for piece in from.drain(..) {
        match piece {
            Piece::Copy {
                old_at,
                new_at,
                len,
            } => {
                let here = within(old, old_at, len);
                let there: Vec<u32> = within(new, new_at, len)
                    .into_iter()
                    .map(|s| s - new_at + old_at)
                    .collect();
                if here != there {
                    return false;
                }
                let mut start = old_at;
                for s in here {
                    if s > start {
                        out.push(Piece::Copy {
                            old_at: start,
                            new_at: new_at + (start - old_at),
                            len: s - start,
                        });
                    }
                    out.push(Piece::Handle {
                        old_at: s,
                        new_at: new_at + (s - old_at),
                    });
                    start = s + 1;
                }
                if old_at + len > start {
                    out.push(Piece::Copy {
                        old_at: start,
                        new_at: new_at + (start - old_at),
                        len: old_at + len - start,
                    });
                }
            }
            Piece::Convert {
                old_at,
                new_at,
                old: o,
                new: n,
            } => {
                if !within(old, old_at, o.width as u32).is_empty()
                    || !within(new, new_at, n.width as u32).is_empty()
                {
                    return false;
                }
                out.push(piece);
            }
            other => out.push(other),
        }
    }
    *from = out;
    true
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

/// The channel types typedef fields declare, with their typedef and field names: a
/// typedef is shared by every variable of its type, so these must not change (its other
/// fields may: `scalar_pairs`).
fn typedef_chans(p: &Program) -> Vec<(&str, &str, &ChanType)> {
    p.typedefs
        .iter()
        .flat_map(|t| t.fields.iter().map(move |f| (t, f)))
        .filter_map(|(t, f)| match &f.init {
            VarInit::Chan(ct) => Some((t.name.as_str(), f.name.as_str(), ct)),
            _ => None,
        })
        .collect()
}

/// Whether a variable creates channels: a channel, or a record with one among its fields
/// (`depth` guards against a typedef that names itself).
fn creates_chan(p: &Program, v: &Var, depth: u32) -> bool {
    match (&v.init, &v.ty) {
        (VarInit::Chan(_), _) | (_, Type::Chan) => true,
        (_, Type::Struct { index, .. }) => p.typedefs.get(*index).is_some_and(|td| {
            depth > 16 || td.fields.iter().any(|f| creates_chan(p, f, depth + 1))
        }),
        _ => false,
    }
}
