//! The codecs of the recorded state graph (DESIGN.md 5.4): varints; a vector as its
//! difference from a base vector, in chains of at most `CHAIN` from a reference; and each
//! kind of event a state's expansion produces (steps with their pid and edge, rendezvous,
//! faults, flags, the stored successor's slot), grouped by the process that moves.

use crate::explore::event::{End, Event, To};
use crate::explore::exec::Flag;
use crate::explore::machine::EdgeNo;
use crate::explore::trail::TrailStep;
use crate::explore::Pid;
use crate::explore::ViolationKind;

use super::graph::NONE;

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`; None past the end or beyond 64 bits.
#[inline]
pub fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    // A plain loop: `step_by` cost as much as the decoding (it is on the replay's hot path).
    let mut v = 0u64;
    let mut shift = 0u32;
    let mut i = *at;
    while shift < 64 {
        let x = *b.get(i)?;
        i += 1;
        v |= ((x & 0x7f) as u64) << shift;
        if x & 0x80 == 0 {
            *at = i;
            return Some(v);
        }
        shift += 7;
    }
    None
}

/// The longest chain of vectors a slot's vector is decoded through (the writer starts a new
/// chain, against the reference, every `CHAIN` slots).
pub const CHAIN: u32 = 16;
/// What a reader follows at most: a longer chain is a corrupt record.
pub(crate) const MAX_CHAIN: usize = 64;

/// Appends `canon` encoded against `base` (shorter bases read as zeros past their end): its
/// length, then runs of the bytes where they differ, each as its length (0 ends the list),
/// the number of equal bytes before it, and the XOR of the run's bytes. Consecutive states of
/// one search differ in a few bytes, so most vectors take a handful of bytes.
pub fn encode_delta(base: &[u8], canon: &[u8], scratch: &mut Vec<u8>, out: &mut Vec<u8>) {
    let n = canon.len();
    put_varint(out, n as u64);
    scratch.clear();
    scratch.extend_from_slice(canon);
    for (x, b) in scratch.iter_mut().zip(base) {
        *x ^= b;
    }
    let mut i = 0;
    let mut last_end = 0;
    while i < n {
        // Equal stretches go by eight bytes at a time, up to the first byte that differs.
        if let Some(w) = scratch
            .get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            let w = u64::from_le_bytes(w);
            if w == 0 {
                i += 8;
                continue;
            }
            i += (w.trailing_zeros() / 8) as usize;
        } else if scratch[i] == 0 {
            i += 1;
            continue;
        }
        // A run: up to the first stretch of three equal bytes (a shorter one costs less
        // inside the run than a new run's header).
        let start = i;
        let mut end = i + 1;
        let mut j = end;
        while j < n {
            if scratch[j] != 0 {
                j += 1;
                end = j;
            } else if j - end >= 2 {
                break;
            } else {
                j += 1;
            }
        }
        put_varint(out, (end - start) as u64);
        put_varint(out, (start - last_end) as u64);
        out.extend_from_slice(&scratch[start..end]);
        last_end = end;
        i = end;
    }
    out.push(0);
}

/// Applies what `encode_delta` wrote to `v`, which holds the base: `v` becomes the encoded
/// vector. False: the bytes are malformed.
pub fn apply_delta(v: &mut Vec<u8>, b: &[u8]) -> bool {
    let mut at = 0;
    let Some(n) = get_varint(b, &mut at) else {
        return false;
    };
    if n > 1 << 24 {
        return false;
    }
    let n = n as usize;
    v.resize(n, 0);
    let mut pos = 0usize;
    loop {
        let Some(len) = get_varint(b, &mut at) else {
            return false;
        };
        if len == 0 {
            return at == b.len();
        }
        let Some(skip) = get_varint(b, &mut at) else {
            return false;
        };
        let (len, skip) = (len as usize, skip as usize);
        let Some(start) = pos.checked_add(skip).filter(|&x| x <= n) else {
            return false;
        };
        if len > n - start || len > b.len() - at {
            return false;
        }
        for (x, d) in v[start..start + len].iter_mut().zip(&b[at..at + len]) {
            *x ^= d;
        }
        at += len;
        pos = start + len;
    }
}

/// A slot's vector record: how many slots back its base is (0: the reference), then its
/// delta against that base.
pub fn encode_vector(
    back: u32,
    base: &[u8],
    canon: &[u8],
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    put_varint(out, back as u64);
    encode_delta(base, canon, scratch, out);
}

/// How many slots back the base of a vector record is, and where its delta starts.
pub(crate) fn vector_back(b: &[u8]) -> Option<(u32, usize)> {
    let mut at = 0;
    let back = get_varint(b, &mut at)?;
    Some((u32::try_from(back).ok()?, at))
}

/// Decodes the vector of `slot` into `out`, following its chain of bases through
/// `record_of` (a slot's vector record). False: the records are malformed.
pub fn decode_chain<'a>(
    reference: &[u8],
    slot: u32,
    record_of: impl Fn(u32) -> Option<&'a [u8]>,
    chain: &mut Vec<(u32, usize)>,
    out: &mut Vec<u8>,
) -> bool {
    decode_chain_from(reference, slot, None, record_of, chain, out)
}

/// `decode_chain`, starting from `known` (a slot and its vector, decoded before) when the
/// chain passes through it.
pub fn decode_chain_from<'a>(
    reference: &[u8],
    slot: u32,
    known: Option<(u32, &[u8])>,
    record_of: impl Fn(u32) -> Option<&'a [u8]>,
    chain: &mut Vec<(u32, usize)>,
    out: &mut Vec<u8>,
) -> bool {
    chain.clear();
    let mut s = slot;
    let mut base = reference;
    loop {
        if let Some((k, v)) = known {
            if k == s {
                base = v;
                break;
            }
        }
        let Some((back, at)) = record_of(s).and_then(vector_back) else {
            return false;
        };
        chain.push((s, at));
        if back == 0 {
            break;
        }
        if back > s || chain.len() >= MAX_CHAIN {
            return false;
        }
        s -= back;
    }
    out.clear();
    out.extend_from_slice(base);
    for &(s, at) in chain.iter().rev() {
        let Some(b) = record_of(s) else {
            return false;
        };
        if !apply_delta(out, &b[at..]) {
            return false;
        }
    }
    true
}

// Event tags: the low three bits say what it is; the others, what follows.
const T_OFFER: u8 = 0;
const T_STEP: u8 = 1;
const T_FAULT: u8 = 2;
const T_LEAVE: u8 = 3;
const T_INVALID: u8 = 4;
const T_STORED: u8 = 5;
/// A group's marker: its pid, footprint id and the length of its events in bytes (`B_RV`:
/// it meets a rendezvous).
const T_GROUP: u8 = 6;
const B_RV: u8 = 0x08;
const B_FLAG: u8 = 0x10;
const B_EXECUTED: u8 = 0x10;
/// A fault event's flag byte follows its kind.
const B_FAULT_FLAG: u8 = 0x20;
const TO_SHIFT: u8 = 5;

fn flag_code(f: Flag) -> u8 {
    match f {
        Flag::Assertion => 0,
        Flag::SendFields => 1,
        Flag::RecvFields => 2,
        Flag::SendTooMany => 3,
        Flag::PollRendezvous => 4,
        Flag::DProctype => 5,
        Flag::TraceMismatch { rv: false } => 6,
        Flag::TraceMismatch { rv: true } => 7,
        Flag::NotraceMatched { rv: false } => 8,
        Flag::NotraceMatched { rv: true } => 9,
        Flag::PollThenAssertion => 10,
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
        6 => Flag::TraceMismatch { rv: false },
        7 => Flag::TraceMismatch { rv: true },
        8 => Flag::NotraceMatched { rv: false },
        9 => Flag::NotraceMatched { rv: true },
        10 => Flag::PollThenAssertion,
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
            flag,
        } => {
            let mut tag = T_FAULT;
            if s.rv.is_some() {
                tag |= B_RV;
            }
            if *executed {
                tag |= B_EXECUTED;
            }
            if flag.is_some() {
                tag |= B_FAULT_FLAG;
            }
            out.push(tag);
            step(out, s);
            out.push(kind_code(*kind));
            if let Some(f) = flag {
                out.push(flag_code(*f));
            }
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
        // Markers are written by `encode_events` (they need their group's length), and a
        // replay's end of a group is never recorded.
        Event::Group { .. } | Event::End(End::Group) => {}
    }
}

/// Whether an event meets a rendezvous (its partner's location decides it).
fn meets_rendezvous(ev: &Event) -> bool {
    match ev {
        Event::Offer => true,
        Event::Step { step, .. } | Event::Fault { step, .. } => step.rv.is_some(),
        _ => false,
    }
}

/// Appends the events of slot `own`'s expansion (edges as table indices, blocked processes
/// beside each). A `Group` event opens a group that runs up to the next one or to the
/// state's own end (its last event); a group with events is written as its marker, with
/// its length and whether it meets a rendezvous, then its events; an empty one is not
/// written.
pub fn encode_events<'a>(
    out: &mut Vec<u8>,
    own: u32,
    evs: impl IntoIterator<Item = (Event, &'a [(u32, u32)])>,
) {
    // The open group: where its marker starts, where its events start, whether one met a
    // rendezvous. Its events are written in place after a one-byte length, which a longer
    // group widens when it closes.
    fn close(out: &mut Vec<u8>, open: &mut Option<(usize, usize, bool)>) {
        let Some((marker, body, rv)) = open.take() else {
            return;
        };
        let len = out.len() - body;
        if len == 0 {
            out.truncate(marker);
            return;
        }
        if rv {
            out[marker] |= B_RV;
        }
        if len < 0x80 {
            out[body - 1] = len as u8;
            return;
        }
        let mut v = Vec::with_capacity(4);
        put_varint(&mut v, len as u64);
        out.splice(body - 1..body, v);
    }
    let mut open: Option<(usize, usize, bool)> = None;
    let mut items = evs.into_iter().peekable();
    while let Some((ev, blocked)) = items.next() {
        if let Event::Group { pid, foot, .. } = ev {
            close(out, &mut open);
            if let Some(p) = pid {
                let marker = out.len();
                out.push(T_GROUP);
                out.push(p);
                put_varint(out, foot as u64);
                out.push(0);
                open = Some((marker, out.len(), false));
            }
            continue;
        }
        if items.peek().is_none() {
            // The state's own end is no group's.
            close(out, &mut open);
        }
        if let Some(g) = &mut open {
            g.2 |= meets_rendezvous(&ev);
        }
        encode_event(out, own, &ev, blocked, |x| x);
    }
    close(out, &mut open);
}

/// A group's marker at `at`: (pid, footprint id, meets a rendezvous, where its events
/// start, where they end). None: not a marker, or malformed.
pub fn group_header(b: &[u8], at: usize) -> Option<(u8, u32, bool, usize, usize)> {
    let tag = *b.get(at)?;
    if tag & 7 != T_GROUP {
        return None;
    }
    let pid = *b.get(at + 1)?;
    let mut i = at + 2;
    let foot = u32::try_from(get_varint(b, &mut i)?).ok()?;
    let len = usize::try_from(get_varint(b, &mut i)?).ok()?;
    let end = i.checked_add(len).filter(|&e| e <= b.len())?;
    Some((pid, foot, tag & B_RV != 0, i, end))
}

/// Calls `f` on every event of slot `own`'s recorded expansion `b`, as `encode_events`
/// takes them: a group's end that is not the state's own end comes as a `Group` event
/// without a pid. None: malformed.
pub fn for_each_event(
    b: &[u8],
    own: u32,
    blocked: &mut Vec<(u32, u32)>,
    mut f: impl FnMut(Event, &[(u32, u32)]),
) -> Option<()> {
    let mut at = 0;
    let mut group_end = None;
    while at < b.len() {
        if group_end == Some(at) {
            group_end = None;
            if group_header(b, at).is_none() {
                f(
                    Event::Group {
                        pid: None,
                        foot: NONE,
                        rv: false,
                        at: NONE,
                    },
                    &[],
                );
            }
        }
        if let Some((_, _, _, _, end)) = group_header(b, at) {
            group_end = Some(end);
        }
        let ev = decode_event(b, own, &mut at, blocked, Some)?;
        f(ev, blocked);
    }
    Some(())
}

/// A step without a rendezvous or a flag.
#[inline]
fn plain_step(pid: Pid, edge: EdgeNo, to: To) -> Option<Event> {
    Some(Event::Step {
        step: TrailStep {
            pid,
            edge,
            rv: None,
        },
        flag: None,
        to,
    })
}

/// Reads one event of slot `own` at `*at`. `edge` maps an edge-table index to an edge
/// (None: there is none); blocked processes go to `blocked` as (pid, stable location).
/// None: malformed.
///
/// The common events are read inline, so that the event is made where the caller uses
/// it (returned through memory from a call, its fields were stored piecewise and read back
/// whole, a stall on every walked transition); the others out of line.
#[inline(always)]
pub fn decode_event(
    b: &[u8],
    own: u32,
    at: &mut usize,
    blocked: &mut Vec<(u32, u32)>,
    mut edge: impl FnMut(u32) -> Option<EdgeNo>,
) -> Option<Event> {
    let tag = *b.get(*at)?;
    // The common events first: a plain step to a stored state (edge in a byte) or inside an
    // atomic sequence (edge in a byte), and the end of an expansion.
    const ATOMIC_STEP: u8 = T_STEP | 1 << TO_SHIFT;
    match tag {
        T_STEP => {
            if let Some(&[pid, e, z0]) = b.get(*at + 1..*at + 4) {
                if e < 0x80 {
                    let mut p = *at + 3;
                    let z = if z0 < 0x80 {
                        p += 1;
                        z0 as u64
                    } else {
                        get_varint(b, &mut p)?
                    };
                    let d = (z >> 1) as i64 ^ -((z & 1) as i64);
                    let slot = u32::try_from(own as i64 + d).ok()?;
                    *at = p;
                    return plain_step(pid, edge(e as u32)?, To::State(slot));
                }
            }
        }
        ATOMIC_STEP => {
            if let Some(&[pid, e]) = b.get(*at + 1..*at + 3) {
                if e < 0x80 {
                    *at += 3;
                    return plain_step(pid, edge(e as u32)?, To::Atomic);
                }
            }
        }
        T_LEAVE => {
            *at += 1;
            return Some(Event::End(End::Leave));
        }
        _ => {}
    }
    decode_other(b, own, at, blocked, edge)
}

/// `decode_event` for every event but the common ones (which it may be given too).
#[inline(never)]
fn decode_other(
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
            let flag = if tag & B_FAULT_FLAG != 0 {
                let c = *b.get(*at)?;
                *at += 1;
                Some(flag_of(c)?)
            } else {
                None
            };
            Event::Fault {
                step: s,
                kind: *ViolationKind::ALL.get(k as usize)?,
                executed: tag & B_EXECUTED != 0,
                flag,
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
        T_GROUP => {
            // The marker only: its events follow, read as any others.
            let (pid, foot, rv, start, _) = group_header(b, *at - 1)?;
            *at = start;
            Event::Group {
                pid: Some(pid),
                foot,
                rv,
                at: NONE,
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rmc::record::blob::Blob;
    use crate::rmc::record::graph::Graph;
    use crate::rmc::record::spans::Spans;

    #[test]
    fn vectors_round_trip_against_any_base() {
        let base = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let cases: [&[u8]; 7] = [
            &[],
            &[1, 2, 3, 4, 5, 6, 7, 8],
            &[1, 2, 9, 4, 5, 6, 7, 8],
            &[1, 9, 3, 9, 5, 6, 7, 9],
            &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1],
            &[1, 2, 3],
            &[9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9],
        ];
        for c in cases {
            let mut enc = Vec::new();
            encode_delta(&base, c, &mut Vec::new(), &mut enc);
            let mut out = base.to_vec();
            assert!(apply_delta(&mut out, &enc), "{c:?}");
            assert_eq!(out, c);
        }
        // The same vector as its base costs its length and the end of the list; one byte
        // changed, a run of one.
        let mut enc = Vec::new();
        encode_delta(&base, &base, &mut Vec::new(), &mut enc);
        assert_eq!(enc, [8, 0]);
        enc.clear();
        encode_delta(&base, &[1, 2, 9, 4, 5, 6, 7, 8], &mut Vec::new(), &mut enc);
        assert_eq!(enc, [8, 1, 2, 3 ^ 9, 0]);
        // Garbage is refused, never a panic.
        let mut out = base.to_vec();
        assert!(!apply_delta(&mut out, &[5, 1, 9]));
        assert!(!apply_delta(&mut out, &[5, 1, 5, 1, 0]));
        assert!(!apply_delta(&mut out, &[0xff; 12]));
    }

    #[test]
    fn vectors_decode_through_their_chain_of_bases() {
        let reference = vec![0u8; 6];
        let states: Vec<Vec<u8>> = (0..40u8).map(|i| vec![i, i / 2, 3, 0, i % 5, 1]).collect();
        let mut records: Vec<Vec<u8>> = Vec::new();
        for (k, st) in states.iter().enumerate() {
            let mut r = Vec::new();
            let back = if (k as u32).is_multiple_of(CHAIN) {
                0
            } else {
                1
            };
            let base = if back == 0 {
                &reference
            } else {
                &states[k - 1]
            };
            encode_vector(back, base, st, &mut Vec::new(), &mut r);
            records.push(r);
        }
        let mut out = Vec::new();
        for (k, st) in states.iter().enumerate() {
            let ok = decode_chain(
                &reference,
                k as u32,
                |s| records.get(s as usize).map(|r| &r[..]),
                &mut Vec::new(),
                &mut out,
            );
            assert!(ok);
            assert_eq!(&out, st);
        }
        // A base past the first slot, or a chain longer than a reader follows, is refused.
        let mut bad = Vec::new();
        encode_vector(5, &reference, &states[0], &mut Vec::new(), &mut bad);
        let chain = |s: u32| {
            Some(if s == 0 {
                &bad[..]
            } else {
                &records[s as usize][..]
            })
        };
        assert!(!decode_chain(
            &reference,
            0,
            chain,
            &mut Vec::new(),
            &mut out
        ));
        let mut loops = Vec::new();
        encode_vector(1, &reference, &states[0], &mut Vec::new(), &mut loops);
        let all_back = |_| Some(&loops[..]);
        assert!(!decode_chain(
            &reference,
            100,
            all_back,
            &mut Vec::new(),
            &mut out
        ));
    }

    #[test]
    fn a_graph_whose_vector_chains_are_broken_is_refused() {
        // Three slots: the first against the reference, the others based on the first.
        let reference = vec![1u8, 2, 3];
        let mut vectors = Vec::new();
        let mut vec = Vec::new();
        for (back, base, v) in [
            (0, &reference[..], &[1u8, 2, 4][..]),
            (1, &[1u8, 2, 4][..], &[1u8, 5, 4][..]),
            (2, &[1u8, 2, 4][..], &[9u8, 2, 3][..]),
        ] {
            let at = vectors.len() as u64;
            encode_vector(back, base, v, &mut Vec::new(), &mut vectors);
            vec.push((at, (vectors.len() as u64 - at) as u32));
        }
        let g = Graph {
            reference,
            foots: vec![vec![]],
            shapes: vec![(3, vec![])],
            foot: vec![0; 3],
            shape: vec![0; 3],
            ev: Spans::from_slice(&[(0, 0); 3]).expect("memory"),
            vec: Spans::from_slice(&vec).expect("memory"),
            vectors: Blob::from_vec(vectors.clone()),
            slot_of: vec![0, 1, 2],
            ..Graph::default()
        };
        assert_eq!(g.validate(3), Ok(()));
        let mut out = Vec::new();
        assert!(g.decode_vector(1, &mut Vec::new(), &mut out));
        assert_eq!(out, [1, 5, 4]);
        assert!(g.decode_vector(2, &mut Vec::new(), &mut out));
        assert_eq!(out, [9, 2, 3]);
        // A base that is not kept, or one past the first slot, is refused at load.
        let mut dropped = g.clone();
        dropped.vec.set(0, (vec[0].0, 0));
        assert!(dropped.validate(3).is_err());
        let mut before_first = g.clone();
        vectors[0] = 7;
        before_first.vectors = Blob::from_vec(vectors);
        assert!(before_first.validate(3).is_err());
    }

    #[test]
    fn groups_round_trip_with_their_lengths_and_rendezvous() {
        let step = |pid: Pid, edge: u32, rv: Option<(u8, u32)>| Event::Step {
            step: TrailStep { pid, edge, rv },
            flag: None,
            to: To::State(7),
        };
        let group = |pid: Option<Pid>, foot: u32| Event::Group {
            pid,
            foot,
            rv: false,
            at: NONE,
        };
        // Process 3: one step; 2: none (dropped); 1: many (a length past one byte) with a
        // rendezvous; then the second pass's step and the end.
        let mut evs = vec![group(Some(3), 4), step(3, 1, None), group(Some(2), 5)];
        evs.push(group(Some(1), 6));
        for k in 0..60 {
            evs.push(step(1, 300 + k, None));
        }
        evs.push(step(1, 2, Some((0, 9))));
        evs.push(group(None, NONE));
        evs.push(step(0, 3, None));
        evs.push(Event::End(End::Leave));
        let mut b = Vec::new();
        encode_events(&mut b, 5, evs.iter().map(|&e| (e, &[][..])));
        let (pid, foot, rv, start, end) = group_header(&b, 0).expect("first group");
        assert_eq!((pid, foot, rv), (3, 4, false));
        let (pid, foot, rv, start2, end2) = group_header(&b, end).expect("second group");
        assert_eq!((pid, foot, rv), (1, 6, true));
        assert!(end2 - start2 >= 0x80, "{}", end2 - start2);
        assert!(start < end && group_header(&b, end2).is_none());
        // Read back: the empty group is gone, the end of the last group comes as a marker
        // without a pid before the second pass.
        let mut got = Vec::new();
        let mut blocked = Vec::new();
        for_each_event(&b, 5, &mut blocked, |e, _| got.push(e)).expect("decodes");
        let mut want: Vec<Event> = evs
            .iter()
            .copied()
            .filter(|e| !matches!(e, Event::Group { pid: Some(2), .. }))
            .collect();
        for e in want.iter_mut() {
            if let Event::Group {
                rv, pid: Some(1), ..
            } = e
            {
                *rv = true;
            }
        }
        assert_eq!(got, want);
        // Encoding what was read gives the same bytes.
        let mut again = Vec::new();
        encode_events(&mut again, 5, got.iter().map(|&e| (e, &[][..])));
        assert_eq!(again, b);
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
                flag: None,
            },
            Event::Fault {
                step: s,
                kind: ViolationKind::PollRendezvous,
                executed: false,
                flag: None,
            },
            Event::Fault {
                step: s,
                kind: ViolationKind::DStepBlocked,
                executed: true,
                flag: Some(Flag::Assertion),
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
