//! The recorded state graph (DESIGN.md 5.4): per recorded state (a slot), its canonical
//! vector, the events its expansion produced, its footprint and its shape; and the codecs
//! that write and read them. A replay walks these instead of executing; the record keeps them
//! in its `GRPH` section.
//!
//! Vectors are kept each on its own (so that a later record copies them verbatim): the XOR
//! with a reference vector (the record's initial state), as runs of zero bytes and of literal
//! bytes. Events name edges through a table of (stable location, edge index there), so that
//! renumbered code keeps them, and states by slot.

use crate::explore::event::{End, Event, To};
use crate::explore::exec::Flag;
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::trail::TrailStep;
use crate::explore::ViolationKind;

/// No slot, no edge.
pub const NONE: u32 = u32::MAX;

/// A state graph as a record keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    /// The vector every state's is the XOR with.
    pub reference: Vec<u8>,
    /// Footprints: sorted stable location ids.
    pub foots: Vec<Vec<u32>>,
    /// Shapes: (canonical length, the tags of its records in order).
    pub shapes: Vec<(u32, Vec<u8>)>,
    /// Edges events name: (stable location, edge index there).
    pub edges: Vec<(u32, u32)>,
    /// Per slot: its footprint, its shape, where its events are (start, length) and where
    /// its vector is (start, length).
    pub foot: Vec<u32>,
    pub shape: Vec<u32>,
    pub ev: Vec<(u64, u32)>,
    pub events: Vec<u8>,
    pub vec: Vec<(u64, u32)>,
    pub vectors: Vec<u8>,
    /// Per fingerprint of the record (its `STAT` order): the state's slot (NONE: none).
    pub slot_of: Vec<u32>,
}

impl Graph {
    pub fn len(&self) -> usize {
        self.foot.len()
    }

    pub fn is_empty(&self) -> bool {
        self.foot.is_empty()
    }

    pub fn events_of(&self, slot: u32) -> &[u8] {
        let (at, n) = self.ev[slot as usize];
        &self.events[at as usize..at as usize + n as usize]
    }

    pub fn vector_of(&self, slot: u32) -> &[u8] {
        let (at, n) = self.vec[slot as usize];
        &self.vectors[at as usize..at as usize + n as usize]
    }

    /// Checks that every index points inside its table, so that a replay never reads out of
    /// bounds (a corrupt record is refused at load, not met mid-run).
    pub fn validate(&self, states: usize) -> Result<(), String> {
        let n = self.len();
        if self.shape.len() != n || self.ev.len() != n || self.vec.len() != n {
            return Err("graph tables of different lengths".into());
        }
        if self.slot_of.len() != states {
            return Err("graph slots do not match the states".into());
        }
        if self.foot.iter().any(|&f| f as usize >= self.foots.len())
            || self.shape.iter().any(|&s| s as usize >= self.shapes.len())
            || self.slot_of.iter().any(|&s| s != NONE && s as usize >= n)
        {
            return Err("graph index out of range".into());
        }
        let fits = |&(at, len): &(u64, u32), total: usize| {
            at.checked_add(len as u64)
                .is_some_and(|e| e <= total as u64)
        };
        if !self.ev.iter().all(|r| fits(r, self.events.len()))
            || !self.vec.iter().all(|r| fits(r, self.vectors.len()))
        {
            return Err("graph range out of bounds".into());
        }
        Ok(())
    }
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`; None past the end or beyond 64 bits.
pub fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let x = *b.get(*at)?;
        *at += 1;
        v |= ((x & 0x7f) as u64) << shift;
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Appends `canon` encoded against `reference`: its length, then per eight bytes of their
/// XOR a mask of the bytes that are not zero, and those bytes (`scratch` holds the XOR).
pub fn encode_vector(reference: &[u8], canon: &[u8], scratch: &mut Vec<u8>, out: &mut Vec<u8>) {
    put_varint(out, canon.len() as u64);
    let n = canon.len();
    let r = reference.len().min(n);
    scratch.clear();
    scratch.resize(n.div_ceil(8) * 8, 0);
    for ((x, a), b) in scratch[..r]
        .iter_mut()
        .zip(&canon[..r])
        .zip(&reference[..r])
    {
        *x = a ^ b;
    }
    scratch[r..n].copy_from_slice(&canon[r..]);
    out.reserve(n + n / 8 + 1);
    for chunk in scratch.chunks_exact(8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        // The high bit of each byte that is not zero, gathered into one byte.
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let high = (((w & LOW7) + LOW7) | w) & !LOW7;
        let mask = ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
        out.push(mask);
        match mask {
            0 => {}
            0xff => out.extend_from_slice(chunk),
            _ => out.extend(chunk.iter().copied().filter(|&x| x != 0)),
        }
    }
}

/// Decodes what `encode_vector` wrote into `out`. False: the bytes are malformed.
pub fn decode_vector(reference: &[u8], b: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    let mut at = 0;
    let Some(n) = get_varint(b, &mut at) else {
        return false;
    };
    if n > 1 << 24 {
        return false;
    }
    let n = n as usize;
    out.reserve(n);
    let r = |i: usize| reference.get(i).copied().unwrap_or(0);
    while out.len() < n {
        let Some(&mask) = b.get(at) else {
            return false;
        };
        at += 1;
        let take = (n - out.len()).min(8);
        if take < 8 && mask >> take != 0 {
            return false;
        }
        for k in 0..take {
            let i = out.len();
            if mask >> k & 1 == 1 {
                let Some(&x) = b.get(at) else {
                    return false;
                };
                if x == 0 {
                    return false;
                }
                at += 1;
                out.push(x ^ r(i));
            } else {
                out.push(r(i));
            }
        }
    }
    at == b.len()
}

// Event tags: the low three bits say what it is; the others, what follows.
const T_OFFER: u8 = 0;
const T_STEP: u8 = 1;
const T_FAULT: u8 = 2;
const T_LEAVE: u8 = 3;
const T_INVALID: u8 = 4;
const T_STORED: u8 = 5;
const B_RV: u8 = 0x08;
const B_FLAG: u8 = 0x10;
const B_EXECUTED: u8 = 0x10;
const TO_SHIFT: u8 = 5;

fn flag_code(f: Flag) -> u8 {
    match f {
        Flag::Assertion => 0,
        Flag::SendFields => 1,
        Flag::RecvFields => 2,
        Flag::SendTooMany => 3,
        Flag::PollRendezvous => 4,
        Flag::DProctype => 5,
    }
}

fn flag_of(c: u8) -> Option<Flag> {
    Some(match c {
        0 => Flag::Assertion,
        1 => Flag::SendFields,
        2 => Flag::RecvFields,
        3 => Flag::SendTooMany,
        4 => Flag::PollRendezvous,
        5 => Flag::DProctype,
        _ => return None,
    })
}

fn kind_code(k: ViolationKind) -> u8 {
    ViolationKind::ALL.iter().position(|&x| x == k).unwrap_or(0) as u8
}

/// A slot as written in the events of slot `own`: the zigzag difference (successors are
/// often the next slots), so that most take one or two bytes.
fn put_slot(out: &mut Vec<u8>, own: u32, slot: u32) {
    let d = slot as i64 - own as i64;
    put_varint(out, ((d << 1) ^ (d >> 63)) as u64);
}

fn get_slot(b: &[u8], at: &mut usize, own: u32) -> Option<u32> {
    let z = get_varint(b, at)?;
    let d = (z >> 1) as i64 ^ -((z & 1) as i64);
    u32::try_from(own as i64 + d).ok()
}

/// Appends one event of slot `own`'s expansion. `edge` gives an edge's index in the graph's
/// edge table; `blocked` holds (pid, stable location) of an invalid end state's processes.
pub fn encode_event(
    out: &mut Vec<u8>,
    own: u32,
    ev: &Event,
    blocked: &[(u32, u32)],
    mut edge: impl FnMut(EdgeNo) -> u32,
) {
    let mut step = |out: &mut Vec<u8>, s: &TrailStep| {
        out.push(s.pid);
        put_varint(out, edge(s.edge) as u64);
        if let Some((q, e)) = s.rv {
            out.push(q);
            put_varint(out, edge(e) as u64);
        }
    };
    match ev {
        Event::Offer => out.push(T_OFFER),
        Event::Step { step: s, flag, to } => {
            let (to_code, slot) = match to {
                To::State(id) => (0, Some(*id)),
                To::Atomic => (1, None),
                To::Repeat => (2, None),
            };
            let mut tag = T_STEP | to_code << TO_SHIFT;
            if s.rv.is_some() {
                tag |= B_RV;
            }
            if flag.is_some() {
                tag |= B_FLAG;
            }
            out.push(tag);
            step(out, s);
            if let Some(f) = flag {
                out.push(flag_code(*f));
            }
            if let Some(slot) = slot {
                put_slot(out, own, slot);
            }
        }
        Event::Fault {
            step: s,
            kind,
            executed,
        } => {
            let mut tag = T_FAULT;
            if s.rv.is_some() {
                tag |= B_RV;
            }
            if *executed {
                tag |= B_EXECUTED;
            }
            out.push(tag);
            step(out, s);
            out.push(kind_code(*kind));
        }
        Event::End(End::Leave) => out.push(T_LEAVE),
        Event::End(End::Invalid) => {
            out.push(T_INVALID);
            put_varint(out, blocked.len() as u64);
            for &(pid, loc) in blocked {
                put_varint(out, pid as u64);
                put_varint(out, loc as u64);
            }
        }
        Event::End(End::Stored(slot)) => {
            out.push(T_STORED);
            put_slot(out, own, *slot);
        }
    }
}

/// Reads one event of slot `own` at `*at`. `edge` maps an edge-table index to an edge
/// (None: there is none); blocked processes go to `blocked` as (pid, stable location).
/// None: malformed.
pub fn decode_event(
    b: &[u8],
    own: u32,
    at: &mut usize,
    blocked: &mut Vec<(u32, u32)>,
    mut edge: impl FnMut(u32) -> Option<EdgeNo>,
) -> Option<Event> {
    let tag = *b.get(*at)?;
    *at += 1;
    let mut step = |at: &mut usize, rv: bool| -> Option<TrailStep> {
        let pid = *b.get(*at)?;
        *at += 1;
        let e = edge(u32::try_from(get_varint(b, at)?).ok()?)?;
        let rv = if rv {
            let q = *b.get(*at)?;
            *at += 1;
            Some((q, edge(u32::try_from(get_varint(b, at)?).ok()?)?))
        } else {
            None
        };
        Some(TrailStep { pid, edge: e, rv })
    };
    let slot = |at: &mut usize| get_slot(b, at, own);
    Some(match tag & 7 {
        T_OFFER => Event::Offer,
        T_STEP => {
            let s = step(at, tag & B_RV != 0)?;
            let flag = if tag & B_FLAG != 0 {
                let c = *b.get(*at)?;
                *at += 1;
                Some(flag_of(c)?)
            } else {
                None
            };
            let to = match tag >> TO_SHIFT {
                0 => To::State(slot(at)?),
                1 => To::Atomic,
                2 => To::Repeat,
                _ => return None,
            };
            Event::Step { step: s, flag, to }
        }
        T_FAULT => {
            let s = step(at, tag & B_RV != 0)?;
            let k = *b.get(*at)?;
            *at += 1;
            Event::Fault {
                step: s,
                kind: *ViolationKind::ALL.get(k as usize)?,
                executed: tag & B_EXECUTED != 0,
            }
        }
        T_LEAVE => Event::End(End::Leave),
        T_INVALID => {
            blocked.clear();
            let n = get_varint(b, at)?;
            if n > 256 {
                return None;
            }
            for _ in 0..n {
                let pid = u32::try_from(get_varint(b, at)?).ok()?;
                let loc = u32::try_from(get_varint(b, at)?).ok()?;
                blocked.push((pid, loc));
            }
            Event::End(End::Invalid)
        }
        T_STORED => Event::End(End::Stored(slot(at)?)),
        _ => return None,
    })
}

/// The edge-table of a graph being written: edges interned by (stable location, index),
/// with a fast path per edge number of the machine that writes.
#[derive(Default)]
pub struct EdgeTable {
    pub list: Vec<(u32, u32)>,
    index: std::collections::HashMap<(u32, u32), u32>,
    by_no: Vec<u32>,
}

impl EdgeTable {
    /// A table that starts as `list` (so that recorded indices keep their meaning).
    pub fn from_list(list: &[(u32, u32)]) -> EdgeTable {
        let mut t = EdgeTable::default();
        for &e in list {
            // A duplicate would be a corrupt table: it keeps its first index.
            let n = t.list.len() as u32;
            t.index.entry(e).or_insert(n);
            t.list.push(e);
        }
        t
    }

    pub fn id(&mut self, e: (u32, u32)) -> u32 {
        let n = self.list.len() as u32;
        *self.index.entry(e).or_insert_with(|| {
            self.list.push(e);
            n
        })
    }

    /// The table index of the machine's edge `no`.
    #[inline]
    pub fn of(&mut self, m: &Machine, no: EdgeNo) -> u32 {
        if let Some(&x) = self.by_no.get(no as usize) {
            if x != NONE {
                return x;
            }
        }
        let x = self.id(m.edge_at(no));
        if self.by_no.len() <= no as usize {
            self.by_no.resize(no as usize + 1, NONE);
        }
        self.by_no[no as usize] = x;
        x
    }
}

/// The machine's edge for each of a graph's edge-table entries (NONE where the location no
/// longer exists or has fewer edges).
pub fn edge_map(m: &Machine, edges: &[(u32, u32)]) -> Vec<EdgeNo> {
    edges
        .iter()
        .map(|&(loc, k)| match m.locate_id(crate::program::LocId(loc)) {
            Some((p, li)) => {
                let n = m.prog.procs[p].automaton.locations[li as usize].edges.len();
                if (k as usize) < n {
                    m.edge_no(p, li, k as usize)
                } else {
                    NONE
                }
            }
            None => NONE,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_against_any_reference() {
        let reference = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let cases: [&[u8]; 6] = [
            &[],
            &[1, 2, 3, 4, 5, 6, 7, 8],
            &[1, 2, 9, 4, 5, 6, 7, 8],
            &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1],
            &[1, 2, 3],
            &[9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9],
        ];
        for c in cases {
            let mut enc = Vec::new();
            encode_vector(&reference, c, &mut Vec::new(), &mut enc);
            let mut out = Vec::new();
            assert!(decode_vector(&reference, &enc, &mut out), "{c:?}");
            assert_eq!(out, c);
        }
        // The same vector as the reference costs its length and one mask.
        let mut enc = Vec::new();
        encode_vector(&reference, &reference, &mut Vec::new(), &mut enc);
        assert_eq!(enc, [8, 0]);
        // Garbage is refused, never a panic.
        let mut out = Vec::new();
        assert!(!decode_vector(&reference, &[5, 0, 9, 1], &mut out));
        assert!(!decode_vector(&reference, &[0xff; 12], &mut out));
    }

    #[test]
    fn every_event_kind_round_trips() {
        let s = TrailStep {
            pid: 2,
            edge: 7,
            rv: None,
        };
        let rv = TrailStep {
            pid: 1,
            edge: 3,
            rv: Some((4, 300)),
        };
        let events = [
            Event::Offer,
            Event::Step {
                step: s,
                flag: None,
                to: To::State(123_456),
            },
            Event::Step {
                step: rv,
                flag: Some(Flag::Assertion),
                to: To::Atomic,
            },
            Event::Step {
                step: s,
                flag: Some(Flag::DProctype),
                to: To::Repeat,
            },
            Event::Fault {
                step: rv,
                kind: ViolationKind::RendezvousInDStep,
                executed: true,
            },
            Event::Fault {
                step: s,
                kind: ViolationKind::PollRendezvous,
                executed: false,
            },
            Event::End(End::Leave),
            Event::End(End::Invalid),
            Event::End(End::Stored(9)),
        ];
        let blocked = [(0u32, 17u32), (3, 400)];
        let mut b = Vec::new();
        for e in &events {
            encode_event(&mut b, 5, e, &blocked, |no| no + 1);
        }
        let mut at = 0;
        let mut got_blocked = Vec::new();
        for e in &events {
            let d = decode_event(&b, 5, &mut at, &mut got_blocked, |i| Some(i - 1));
            assert_eq!(d.as_ref(), Some(e));
        }
        assert_eq!(at, b.len());
        assert_eq!(got_blocked, blocked);
        // Truncated bytes are refused.
        for cut in 0..b.len() {
            let mut at = 0;
            let mut n = 0;
            while decode_event(&b[..cut], 5, &mut at, &mut got_blocked, Some).is_some() {
                n += 1;
            }
            assert!(n < events.len());
        }
    }
}
