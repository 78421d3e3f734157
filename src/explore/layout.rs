//! The state layout: where every variable, process and channel lives in a state vector, and
//! the layout hash that seeds fingerprints.
//!
//! A state is `[hidden globals][_last][globals][records…]`. Records are processes and
//! channels in creation order, as pan appends them: a process record is its proctype tag, its
//! location (a packed per-proctype index in the search; the u32 stable id in the canonical
//! encoding that fingerprints use), its priority (when the model uses priorities) and its locals; a
//! channel record is `0x80 | channel type`, its length and its slots. A dying process truncates
//! the vector at its record, which deletes the channels created after it as pan does. Hidden
//! globals are carried along the search path (pan restores them on backtracking) but are not
//! part of the stored, hashed state, which is everything after them. An event trace's
//! location, and a checked never claim's, sit between the globals and the records.

use std::hash::Hasher;

use crate::program::types::{ChanType, Type, Var, VarInit};
use crate::program::{LStmt, Program};
use crate::promela::ast::Visibility;

/// One stored integer: its width in the vector and how values are truncated into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar {
    /// Bytes in the vector: 1, 2 or 4.
    pub width: u8,
    pub signed: bool,
    /// Value bits kept on a store (1 for bit/bool scalars, n for `unsigned : n`).
    pub bits: u8,
}

impl Scalar {
    pub fn of(ty: &Type, in_array: bool) -> Scalar {
        match ty {
            // pan keeps bit and bool array elements as unsigned bytes.
            Type::Bit | Type::Bool if in_array => Scalar::unsigned(8),
            Type::Bit | Type::Bool => Scalar::unsigned(1),
            Type::Byte | Type::Mtype { .. } | Type::Pid | Type::Chan => Scalar::unsigned(8),
            Type::Short => Scalar {
                width: 2,
                signed: true,
                bits: 16,
            },
            Type::Int | Type::Struct { .. } => Scalar {
                width: 4,
                signed: true,
                bits: 32,
            },
            Type::Unsigned { bits } => Scalar::unsigned((*bits).clamp(1, 32) as u8),
        }
    }

    fn unsigned(bits: u8) -> Scalar {
        Scalar {
            width: bits.div_ceil(8),
            signed: false,
            bits,
        }
    }

    /// The value a store of `v` leaves (C's conversion to the declared type).
    #[inline]
    pub fn truncate(self, v: i32) -> i32 {
        match (self.signed, self.bits) {
            (true, 16) => v as i16 as i32,
            (true, _) => v,
            (false, 32) => v,
            (false, b) => v & ((1i32 << b) - 1),
        }
    }

    #[inline(always)]
    pub fn read(self, st: &[u8], at: usize) -> i32 {
        match self.width {
            1 => st[at] as i32,
            2 => {
                let v = u16::from_le_bytes([st[at], st[at + 1]]);
                if self.signed {
                    v as i16 as i32
                } else {
                    v as i32
                }
            }
            _ => i32::from_le_bytes([st[at], st[at + 1], st[at + 2], st[at + 3]]),
        }
    }

    #[inline]
    pub fn write(self, st: &mut [u8], at: usize, v: i32) -> i32 {
        let v = self.truncate(v);
        match self.width {
            1 => st[at] = v as u8,
            2 => st[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes()),
            _ => st[at..at + 4].copy_from_slice(&v.to_le_bytes()),
        }
        v
    }
}

/// The shape of a variable in the vector.
#[derive(Clone, Debug)]
pub enum Shape {
    Scalar(Scalar),
    Array {
        elem: Box<Shape>,
        len: u32,
        stride: u32,
    },
    Record {
        /// (offset within the record, shape) per field, in declaration order.
        fields: Vec<(u32, Shape)>,
        names: Vec<String>,
    },
}

impl Shape {
    pub fn size(&self) -> u32 {
        match self {
            Shape::Scalar(s) => s.width as u32,
            Shape::Array { len, stride, .. } => len * stride,
            Shape::Record { fields, .. } => fields.last().map(|(o, s)| o + s.size()).unwrap_or(0),
        }
    }

    /// Scalars in layout order with their offsets (for displaying and flattening).
    pub fn scalars(&self, base: u32, out: &mut Vec<(u32, Scalar)>) {
        match self {
            Shape::Scalar(s) => out.push((base, *s)),
            Shape::Array { elem, len, stride } => {
                for i in 0..*len {
                    elem.scalars(base + i * stride, out);
                }
            }
            Shape::Record { fields, .. } => {
                for (o, s) in fields {
                    s.scalars(base + o, out);
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct VarLayout {
    pub name: String,
    /// Offset from the start of its area (globals area, hidden area, or process locals).
    pub offset: u32,
    pub shape: Shape,
    pub hidden: bool,
}

/// A channel type: capacity and flattened message fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChanLayout {
    pub capacity: u32,
    pub fields: Vec<Scalar>,
    /// Offset of each field within a message.
    pub field_offsets: Vec<u32>,
    pub msg_size: u32,
    /// Offsets within a message of the channel handles it holds: its fields of type chan,
    /// and its records' fields of type chan (`handles_in_shape`).
    pub handle_offsets: Vec<u32>,
    pub source: ChanType,
}

impl ChanLayout {
    /// Bytes of a channel record: tag, length, slots.
    pub fn record_size(&self) -> usize {
        2 + (self.capacity * self.msg_size) as usize
    }
}

#[derive(Clone, Debug)]
pub struct ProcLayout {
    pub locals: Vec<VarLayout>,
    /// Bytes of the locals.
    pub locals_size: u32,
    /// Bytes of the record header (tag, location, priority).
    pub header: u32,
}

impl ProcLayout {
    pub fn record_size(&self) -> usize {
        (self.header + self.locals_size) as usize
    }
}

#[derive(Clone, Debug)]
pub struct Layout {
    pub hidden_size: u32,
    /// Offset of `_last` (when the model uses it) in the vector.
    pub last_at: Option<u32>,
    /// Offset of the globals area in the vector.
    pub globals_at: u32,
    pub globals: Vec<VarLayout>,
    /// Offset where records start.
    pub records_at: u32,
    /// Offset of the checked never claim's location (`loc_width` bytes just before the
    /// records, a location index of the claim's proctype), when a claim is checked.
    pub claim_at: Option<u32>,
    /// Offset of the event trace's location (4 bytes after the globals: its stable id, so
    /// that the canonical encoding holds stable ids with no translation; pan's
    /// `now._event`), when the model has a `trace` or `notrace`.
    pub trace_at: Option<u32>,
    pub procs: Vec<ProcLayout>,
    pub chans: Vec<ChanLayout>,
    pub uses_priority: bool,
    /// Bytes of a process's location in the search's vectors: a per-proctype location index
    /// (1 byte, or 2 for proctypes with more than 255 locations). The canonical encoding
    /// holds the u32 stable ids instead (`Machine::canonical`).
    pub loc_width: u32,
    /// Hash of the exact ordered canonical layout; seeds fingerprints.
    pub hash: u64,
}

pub const CHAN_TAG: u8 = 0x80;

#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    #[error("the model has {0} proctypes; at most 127 are supported")]
    TooManyProctypes(usize),
    #[error("the model has {0} distinct channel types; at most 127 are supported")]
    TooManyChanTypes(usize),
    #[error("a proctype has {0} locations; at most 65535 are supported")]
    TooManyLocations(usize),
    #[error("channel capacity {0} is larger than 255")]
    ChanTooLarge(u32),
}

impl Layout {
    pub fn new(p: &Program) -> Result<Layout, LayoutError> {
        if p.procs.len() > 127 {
            return Err(LayoutError::TooManyProctypes(p.procs.len()));
        }
        let mut chans: Vec<ChanLayout> = Vec::new();
        let mut hidden = Vec::new();
        let mut globals = Vec::new();
        let (mut hoff, mut goff) = (0u32, 0u32);
        for v in &p.globals {
            let shape = shape_of(p, &v.ty, v.array);
            let size = shape.size();
            let is_hidden = v.vis == Visibility::Hidden;
            let off = if is_hidden { &mut hoff } else { &mut goff };
            let l = VarLayout {
                name: v.name.clone(),
                offset: *off,
                shape,
                hidden: is_hidden,
            };
            *off += size;
            if is_hidden {
                hidden.push(l.clone());
            }
            globals.push(l);
            collect_chan(p, v, &mut chans)?;
        }
        // Typedef fields may create channels (`chan c = [2] of {byte}` in a record).
        for td in &p.typedefs {
            for f in &td.fields {
                collect_chan(p, f, &mut chans)?;
            }
        }
        let mut procs = Vec::new();
        let max_locs = p
            .procs
            .iter()
            .map(|pr| pr.automaton.locations.len())
            .max()
            .unwrap_or(0);
        if max_locs > u16::MAX as usize {
            return Err(LayoutError::TooManyLocations(max_locs));
        }
        let loc_width = if max_locs > 255 { 2 } else { 1 };
        let header = 1 + loc_width + u32::from(p.uses_priority);
        for pr in &p.procs {
            let mut locals = Vec::new();
            let mut off = 0;
            for v in &pr.locals {
                let shape = shape_of(p, &v.ty, v.array);
                let size = shape.size();
                locals.push(VarLayout {
                    name: v.name.clone(),
                    offset: off,
                    shape,
                    hidden: false,
                });
                off += size;
                collect_chan(p, v, &mut chans)?;
            }
            for loc in &pr.automaton.locations {
                for e in &loc.edges {
                    if let LStmt::ChanInit(_, ct) = &e.stmt {
                        chan_index(p, ct, &mut chans)?;
                    }
                }
            }
            procs.push(ProcLayout {
                locals,
                locals_size: off,
                header,
            });
        }
        let last_at = p.uses_last.then_some(hoff);
        let globals_at = hoff + u32::from(p.uses_last);
        let mut records_at = globals_at + goff;
        // The trace's location is part of every state (it is stored and hashed), as pan's
        // `_event` is.
        let trace_at = p.procs.iter().any(|pr| pr.kind.is_trace()).then(|| {
            records_at += 4;
            records_at - 4
        });
        let mut l = Layout {
            hidden_size: hoff,
            last_at,
            globals_at,
            globals,
            records_at,
            claim_at: None,
            trace_at,
            procs,
            chans,
            uses_priority: p.uses_priority,
            loc_width,
            hash: 0,
        };
        l.hash = l.compute_hash(p);
        Ok(l)
    }

    /// The layout of a product with a never claim: the claim's location is stored after the
    /// globals, before the records, so it is part of every stored state.
    pub fn with_claim(p: &Program) -> Result<Layout, LayoutError> {
        let mut l = Layout::new(p)?;
        l.claim_at = Some(l.records_at);
        l.records_at += l.loc_width;
        l.hash = l.compute_hash(p);
        Ok(l)
    }

    /// Absolute offset of a global's area start.
    pub fn global_base(&self, v: &VarLayout) -> u32 {
        if v.hidden {
            v.offset
        } else {
            self.globals_at + v.offset
        }
    }

    /// A hash of the exact ordered layout: every field's offset, width, signedness and owner
    /// (the globals, or the proctype whose tag a process record carries), the proctype table
    /// (each tag's kind and locals), and the `_last` and priority flags. Names are not part
    /// of it: a renamed variable or field keeps every state's meaning, while two declarations
    /// that swap places keep the layout but change every statement that reads them (they
    /// read other slots), which the impact analysis sees.
    fn compute_hash(&self, p: &Program) -> u64 {
        self.hash_of(p, true)
    }

    /// The hash of the system's part of the layout: as `hash`, with the never claims'
    /// entries of the proctype table left out (each other proctype hashed with its tag),
    /// and the location width, which every proctype's size sets. Two programs of the same
    /// model with other never claims (the claim of a search for non-progress cycles in
    /// place of the model's) have equal system hashes: their system states are the same
    /// bytes, which a record of one can stand for in the other's product.
    pub fn system_hash(&self, p: &Program) -> u64 {
        self.hash_of(p, false)
    }

    fn hash_of(&self, p: &Program, claims: bool) -> u64 {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        let mut put = |s: &[u8]| {
            h.write(&(s.len() as u32).to_le_bytes());
            h.write(s);
        };
        put(b"git-rmc layout 2");
        if !claims {
            put(b"system");
            put(&self.loc_width.to_le_bytes());
            put(&self.records_at.to_le_bytes());
        }
        if let Some(c) = self.claim_at {
            put(b"claim");
            put(&c.to_le_bytes());
        }
        if let Some(t) = self.trace_at {
            put(b"trace");
            put(&t.to_le_bytes());
        }
        put(&[
            u8::from(self.last_at.is_some()),
            u8::from(self.uses_priority),
        ]);
        let var = |put: &mut dyn FnMut(&[u8]), owner: &[u8], v: &VarLayout| {
            let mut sc = Vec::new();
            v.shape.scalars(v.offset, &mut sc);
            put(owner);
            put(&[u8::from(v.hidden)]);
            for (o, s) in sc {
                put(&o.to_le_bytes());
                put(&[s.width, u8::from(s.signed), s.bits]);
            }
        };
        for g in &self.globals {
            var(&mut put, b"global", g);
        }
        for (i, pl) in self.procs.iter().enumerate() {
            let kind = match p.procs[i].kind {
                crate::program::ProcKind::Proctype => 0u8,
                crate::program::ProcKind::Init => 1,
                crate::program::ProcKind::Never => 2,
                crate::program::ProcKind::Trace => 3,
                crate::program::ProcKind::Notrace => 4,
            };
            let tag = (i as u32).to_le_bytes();
            if !claims {
                if kind == 2 {
                    continue;
                }
                put(&tag);
            }
            put(&[kind]);
            for v in &pl.locals {
                var(&mut put, &tag, v);
            }
        }
        for c in &self.chans {
            put(&c.capacity.to_le_bytes());
            for f in &c.fields {
                put(&[f.width, u8::from(f.signed), f.bits]);
            }
        }
        h.finish()
    }
}

/// The offsets, from `base`, of the channel handles a value of type `ty` laid out as `shape`
/// holds: a channel variable's bytes, and a record's fields of type chan, element by
/// element.
pub fn handles_in_shape(p: &Program, ty: &Type, shape: &Shape, base: u32, out: &mut Vec<u32>) {
    match shape {
        Shape::Array { elem, len, stride } => {
            for i in 0..*len {
                handles_in_shape(p, ty, elem, base + i * stride, out);
            }
        }
        Shape::Record { fields, .. } => {
            let Type::Struct { index, .. } = ty else {
                return;
            };
            let Some(td) = p.typedefs.get(*index) else {
                return;
            };
            for (f, (o, s)) in td.fields.iter().zip(fields) {
                handles_in_shape(p, &f.ty, s, base + o, out);
            }
        }
        Shape::Scalar(_) => {
            if matches!(ty, Type::Chan) {
                out.push(base);
            }
        }
    }
}

fn shape_of(p: &Program, ty: &Type, array: Option<u32>) -> Shape {
    let one = |in_array: bool| match ty {
        Type::Struct { index, .. } => {
            let mut fields = Vec::new();
            let mut names = Vec::new();
            let mut off = 0;
            if let Some(td) = p.typedefs.get(*index) {
                for f in &td.fields {
                    let s = shape_of(p, &f.ty, f.array);
                    let size = s.size();
                    fields.push((off, s));
                    names.push(f.name.clone());
                    off += size;
                }
            }
            Shape::Record { fields, names }
        }
        t => Shape::Scalar(Scalar::of(t, in_array)),
    };
    match array {
        Some(n) => {
            let elem = one(true);
            let stride = elem.size();
            Shape::Array {
                elem: Box::new(elem),
                len: n,
                stride,
            }
        }
        None => one(false),
    }
}

fn collect_chan(p: &Program, v: &Var, chans: &mut Vec<ChanLayout>) -> Result<(), LayoutError> {
    if let VarInit::Chan(ct) = &v.init {
        chan_index(p, ct, chans)?;
    }
    Ok(())
}

/// The index of a channel type in the table, added when new.
pub fn chan_index(
    p: &Program,
    ct: &ChanType,
    chans: &mut Vec<ChanLayout>,
) -> Result<u8, LayoutError> {
    if let Some(i) = chans.iter().position(|c| &c.source == ct) {
        return Ok(i as u8);
    }
    if ct.capacity > 255 {
        return Err(LayoutError::ChanTooLarge(ct.capacity));
    }
    let mut sc = Vec::new();
    let (mut handle_offsets, mut at) = (Vec::new(), 0);
    for f in &ct.fields {
        let shape = shape_of(p, f, None);
        handles_in_shape(p, f, &shape, at, &mut handle_offsets);
        shape.scalars(at, &mut sc);
        at += shape.size();
    }
    let mut fields = Vec::new();
    let mut field_offsets = Vec::new();
    let mut off = 0;
    for (_, s) in sc {
        field_offsets.push(off);
        off += s.width as u32;
        fields.push(s);
    }
    chans.push(ChanLayout {
        capacity: ct.capacity,
        fields,
        field_offsets,
        msg_size: off,
        handle_offsets,
        source: ct.clone(),
    });
    if chans.len() > 127 {
        return Err(LayoutError::TooManyChanTypes(chans.len()));
    }
    Ok((chans.len() - 1) as u8)
}
