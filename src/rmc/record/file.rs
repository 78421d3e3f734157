//! The record of one check: everything the next check of a later version needs, in one
//! versioned, checksummed binary file laid out as sections behind a table of contents
//! (readers skip sections they do not know, so later sections such as the state graph do
//! not break them).
//!
//! ```text
//! magic "GITRMCR\n" | format u32 | sections u32
//! | per section: tag [u8;4], offset u64, len u64, raw u64 | section bytes ... | xxh3-64 of
//! everything before it
//! ```
//!
//! A section of 64 KiB or more is stored compressed with zstd when that saves a tenth of it
//! (`raw` is then its length decompressed, else 0): the state graph's vectors and events
//! and the fingerprints are most of a record and compress about threefold, which is what
//! keeps a user's cache of records small. A compressed section is decompressed into memory
//! of its own when a reader asks for it; the others stay in the file's mapping.
//!
//! Sections: `META` (JSON: semantics version, model, options, layout hash, figures, edges
//! executed),
//! `SRCS` (every source file read, so a later diff needs nothing else), `IDS ` (the
//! stable-id table), `ELEM` (elements), `SETS` (interned sets), `STAT` (fingerprints, sorted:
//! whole, or on the base record as which of its fingerprints are kept and which added; and
//! each state's set), `VIOL` (JSON: the violations found), optionally `TRLS` (JSON: each
//! violation's trail as the search took it, when a whole search found them; an empty one
//! for a violation reported without a trail, whose index `NOTR` lists: JSON, written only
//! when there is one, so that an older reader takes such a trail for one that leads
//! nowhere, and searches), and optionally the state
//! graph (DESIGN.md 5.4: records without it are used by pruning only), whole in `GRPH` or
//! written on a base record in `BASE` and `GOVL` (`graph_file`). Integers are
//! little-endian.
//!
//! The sections a check reads before it decides anything (all but `STAT` and the graph)
//! come first, then `HSUM`: the count of states (u32) and the xxh3-64 of every byte before
//! `HSUM`. A check reads that much of the file alone, checked by that sum
//! (`Record::head_from_file`), and the rest, checked whole, only when it needs the states:
//! at 10^7 states the file is hundreds of megabytes the check may never need. (A record
//! written before `HSUM` is checked whole either way.)

use crate::explore::budget::Held;
use crate::explore::Fingerprint;
use bytes::Bytes;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::explore::ViolationKind;

use crate::rmc::diff::ids::StableIds;
use crate::rmc::record::blob::Blob;
use crate::rmc::record::elements::Element;
use crate::rmc::record::graph::Graph;
use crate::rmc::record::graph_file;
use crate::rmc::record::spans::Spans;

pub(super) const MAGIC: &[u8; 8] = b"GITRMCR\n";
/// The file format. Bumped when the layout of a section changes.
pub const FORMAT: u32 = 3;
/// The oldest format this version reads: format 2 kept fingerprints of 128 bits.
const OLDEST_FORMAT: u32 = 2;
/// Bytes of one table-of-contents entry: tag, offset, length, length decompressed.
pub(super) const ENTRY: usize = 28;
/// The entries of a table of contents (`ENTRY` bytes each): tag, offset, length, length
/// decompressed.
pub(super) fn toc_entries(toc: &[u8]) -> impl Iterator<Item = ([u8; 4], u64, u64, u64)> + '_ {
    toc.chunks_exact(ENTRY).map(|e| {
        let u = |i: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&e[i..i + 8]);
            u64::from_le_bytes(x)
        };
        ([e[0], e[1], e[2], e[3]], u(4), u(12), u(20))
    })
}

/// Bytes of the `HSUM` section: the count of states, and the sum of the bytes before it.
const HSUM_LEN: usize = 12;
/// Sections shorter than this are stored as they are: compressing them saves little.
const COMPRESS_FROM: u64 = 1 << 16;
/// zstd's level for sections. Level 3 (its default) writes records 4 % smaller, but its
/// larger windows held a recording run's peak 34 % higher against 13 % at level 1 (the
/// sample's record of 739k states).
const LEVEL: i32 = 1;
/// How many records deep a record's graph may stand on bases (each one a file to read at
/// load): the writer writes a whole graph rather than go deeper.
pub const MAX_BASES: u32 = 4;
/// git rmc's semantics version: bumped by every change that can alter states, counts,
/// verdicts or location numbering, so that no record made by another meaning is reused.
pub const SEMANTICS: u32 = 6;

/// The options that change what a check checks: a record made with others is not reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    pub end_states: bool,
    pub assertions: bool,
    pub empty_channels: bool,
}

/// The model as checked: every file the front end read, the main file, and the
/// preprocessor options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Sources {
    pub main: String,
    pub files: Vec<(String, String)>,
    pub defines: Vec<String>,
    pub include_dirs: Vec<String>,
}

impl Sources {
    /// The model's content hash: every file read (names and text), the defines and include
    /// folders, the checks and git rmc's semantics version, as 16 hex digits. Two checks with
    /// the same hash have the same result.
    pub fn content_hash(&self, checks: &Checks) -> String {
        use std::hash::Hasher;
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        let mut put = |b: &[u8]| {
            h.write(&(b.len() as u64).to_le_bytes());
            h.write(b);
        };
        put(b"git-rmc model");
        put(&SEMANTICS.to_le_bytes());
        put(self.main.as_bytes());
        for (n, t) in &self.files {
            put(n.as_bytes());
            put(t.as_bytes());
        }
        for d in &self.defines {
            put(d.as_bytes());
        }
        for d in &self.include_dirs {
            put(d.as_bytes());
        }
        put(&[
            u8::from(checks.end_states),
            u8::from(checks.assertions),
            u8::from(checks.empty_channels),
        ]);
        format!("{:016x}", h.finish())
    }
}

/// A violation as recorded: its kind, its element (by stable locations), and its message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecViolation {
    pub kind: String,
    /// Stable locations: the violating edge's source location, or the blocked processes'.
    pub at: Vec<u32>,
    /// The edge's index at its location (edge-based kinds).
    pub edge: Option<u32>,
    pub message: String,
    /// The pids it names: the process whose step violated (edge-based kinds), or the
    /// blocked processes, as `at` lists their locations. With them a violation reported
    /// without a trail is made again without one (`run::unchanged`). Empty in records
    /// written before they were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pids: Vec<u8>,
}

/// A step of a violation's trail as a record keeps it: the process that moved, its edge by
/// stable location and index there, and a rendezvous partner's (pid, stable location,
/// index), so that a later version with renumbered code follows the same trail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecStep(pub u8, pub u32, pub u32, pub Option<(u8, u32, u32)>);

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub semantics: u32,
    pub checks: Checks,
    pub layout_hash: u64,
    /// The run's figures (states stored, matched, ...) as the JSON of a check names them.
    pub figures: serde_json::Value,
    /// Whether the model's successors are a function of its stored state (no `hidden`
    /// variables): only then can a record prune.
    pub prunable: bool,
    /// The edges the run executed, as (stable location, index there), sorted: every edge
    /// of the version's search when nothing was pruned (the unreached-code report of a check
    /// that finds the state graph unchanged reads them).
    #[serde(default)]
    pub executed: Vec<(u32, u32)>,
}

/// Everything a record holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub meta: Meta,
    pub sources: Sources,
    pub ids: StableIds,
    pub elements: Vec<Element>,
    /// Interned sets, as sorted indices into `elements`.
    pub sets: Vec<Vec<u32>>,
    /// Fingerprints of the recorded states, sorted and distinct (shared with the indexes a
    /// reusing run builds over them).
    pub fingerprints: Arc<Vec<Fingerprint>>,
    /// Each state's set.
    pub set_of: Vec<u32>,
    pub violations: Vec<RecViolation>,
    /// Each violation's trail, in order, as the depth-first search took it (None: it was
    /// reported without one, past the limit of trails of its kind): kept only when every
    /// violation was found by a whole search (no state pruned), else empty. A later version
    /// whose state graph is this one's finds the same violations by the same trails, and
    /// makes the others again from what `RecViolation` keeps (`run::unchanged`).
    pub trails: Vec<Option<Vec<RecStep>>>,
    /// The state graph, when the run that wrote the record kept one.
    pub graph: Option<Graph>,
}

/// Why a record cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read {path}: {err}")]
    Io { path: String, err: std::io::Error },
    #[error("not a git rmc record")]
    NotARecord,
    #[error("record format {0} (this git rmc reads formats {OLDEST_FORMAT} to {FORMAT})")]
    Format(u32),
    #[error("record made by another git rmc semantics version ({0}, this one is {SEMANTICS})")]
    Semantics(u32),
    #[error("the record is truncated")]
    Truncated,
    #[error("the record is corrupt (checksum mismatch)")]
    Checksum,
    #[error("the record is corrupt ({0})")]
    Corrupt(String),
    /// The record is written on a base record that cannot be read as it was.
    #[error("{0}")]
    Base(String),
}

/// A piece of a section: bytes made for the file, or bytes the record holds already.
pub(super) enum Part<'a> {
    Own(Vec<u8>),
    Ref(&'a [u8]),
    /// The (start, length) spans of a buffer, one after the other.
    Spans(&'a Blob, &'a Spans),
    /// The same, a list made for the file.
    OwnSpans(&'a Blob, Vec<(u64, u32)>),
    /// Fingerprints' bytes `DROPPED..keep` each (`put_fingerprints`), made as they are
    /// written: a file's largest section need not be held whole beside the record.
    Kept(&'a [Fingerprint], usize),
    /// Numbers, four bytes each.
    U32s(&'a [u32]),
}

impl Part<'_> {
    fn len(&self) -> u64 {
        match self {
            Part::Own(v) => v.len() as u64,
            Part::Ref(b) => b.len() as u64,
            Part::Spans(_, spans) => spans.iter().map(|s| s.1 as u64).sum(),
            Part::OwnSpans(_, spans) => spans.iter().map(|s| s.1 as u64).sum(),
            Part::Kept(fps, keep) => (fps.len() * (keep - DROPPED)) as u64,
            Part::U32s(v) => v.len() as u64 * 4,
        }
    }

    /// Hands the part's bytes to `put`, spans gathered a megabyte at a time.
    fn put(&self, put: &mut impl FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()> {
        match self {
            Part::Own(v) => put(v),
            Part::Ref(b) => put(b),
            Part::OwnSpans(src, spans) => gather(src, spans.iter().copied(), put),
            Part::Spans(src, spans) => gather(src, spans.iter(), put),
            Part::Kept(fps, keep) => {
                let mut buf = Vec::with_capacity(1 << 20);
                for chunk in fps.chunks((1 << 20) / 16) {
                    buf.clear();
                    put_kept(chunk, *keep, &mut buf);
                    put(&buf)?;
                }
                Ok(())
            }
            Part::U32s(v) => {
                let mut buf = Vec::with_capacity(1 << 20);
                for chunk in v.chunks((1 << 20) / 4) {
                    buf.clear();
                    for x in chunk {
                        buf.extend_from_slice(&x.to_le_bytes());
                    }
                    put(&buf)?;
                }
                Ok(())
            }
        }
    }
}

/// Hands the bytes of `spans` of `src` to `put`, gathered a megabyte at a time.
fn gather(
    src: &Blob,
    spans: impl Iterator<Item = (u64, u32)>,
    put: &mut impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 20);
    for (at, len) in spans {
        let b = src
            .get(at, len)
            .ok_or_else(|| std::io::Error::other("a graph span out of bounds"))?;
        buf.extend_from_slice(b);
        if buf.len() >= 1 << 20 {
            put(&buf)?;
            buf.clear();
        }
    }
    put(&buf)
}

/// A section's parts compressed (None: zstd refused to start, and the section is stored as
/// it is). Two workers, always: the search is over when a record is written, and with a
/// fixed count the bytes do not depend on the machine.
fn compress(parts: &[Part]) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Write;
    let Ok(mut z) = zstd::stream::write::Encoder::new(Vec::new(), LEVEL) else {
        return Ok(None);
    };
    // (A zstd built without workers compresses on this thread: the same format, other
    // bytes; the build this crate names has them.)
    let _ = z.multithread(2);
    // A frame that decompresses to other bytes is told by its own checksum, not left to
    // the readers of the section.
    z.include_checksum(true)?;
    for p in parts {
        p.put(&mut |b: &[u8]| z.write_all(b))?;
    }
    z.finish().map(Some)
}

/// A compressed section's bytes, `raw` long decompressed; the memory is reserved first, so a
/// corrupt length is an error, not an abort.
fn decompress(z: &[u8], raw: u64) -> Result<Bytes, RecordError> {
    let corrupt = |what: String| RecordError::Corrupt(format!("a compressed section {what}"));
    let n = usize::try_from(raw).map_err(|_| corrupt("is too long".into()))?;
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| corrupt(format!("needs {raw} bytes of memory")))?;
    let mut d = zstd::bulk::Decompressor::new().map_err(|e| corrupt(e.to_string()))?;
    let got = d
        .decompress_to_buffer(z, &mut out)
        .map_err(|e| corrupt(format!("does not decompress ({e})")))?;
    if got != n {
        return Err(corrupt(format!("holds {got} bytes, not {raw}")));
    }
    Ok(Bytes::from(out))
}

/// How many leading bytes of `n` sorted fingerprints their buckets imply: one per 256-fold
/// of states, so that a bucket holds about one state or more.
fn implied_bytes(n: usize) -> u32 {
    match n {
        0..256 => 0,
        256..65_536 => 1,
        65_536..16_777_216 => 2,
        _ => 3,
    }
}

/// Bytes at the low end of a fingerprint that are zero (`Fingerprint::kept`), not written.
const DROPPED: usize = (crate::explore::store::FINGERPRINT_DROPPED_BITS / 8) as usize;

/// Sorted fingerprints, their leading bytes told by buckets: a byte saying how many
/// (`k`), the count of fingerprints in each of the 256^k buckets as varints, then each
/// fingerprint's other 16 - k bytes, little-endian, less the `DROPPED` low ones that are
/// zero. Fingerprints are uniform, so this is as short as they can be written (2 bytes a
/// state less from 65,536 states on); zstd cannot find those bytes itself.
fn put_fingerprints(fps: &[Fingerprint], out: &mut Vec<u8>) {
    let keep = fingerprints_head(fps, out);
    out.reserve(fps.len() * (keep - DROPPED));
    put_kept(fps, keep, out);
}

/// Each fingerprint's written bytes (`DROPPED..keep`), appended to `out`.
fn put_kept(fps: &[Fingerprint], keep: usize, out: &mut Vec<u8>) {
    for f in fps {
        out.extend_from_slice(&f.0.to_le_bytes()[DROPPED..keep]);
    }
}

/// What `put_fingerprints` writes before the fingerprints' own bytes (`k` and the
/// buckets); returns where each fingerprint's written bytes end (`keep`).
fn fingerprints_head(fps: &[Fingerprint], out: &mut Vec<u8>) -> usize {
    let k = implied_bytes(fps.len());
    out.push(k as u8);
    if k > 0 {
        let mut at = 0;
        for bucket in 0..1usize << (8 * k) {
            let start = at;
            while at < fps.len() && fps[at].top(8 * k) == bucket {
                at += 1;
            }
            crate::rmc::record::codec::put_varint(out, (at - start) as u64);
        }
    }
    16 - k as usize
}

/// A `STAT` section's fingerprints: whole, or as which of its base record's it keeps and
/// those it adds (a record written on a base, whose states are mostly the base's). The
/// first two codes are those of format 2, whose fingerprints kept 128 bits: they read back
/// with their low bits dropped (`Fingerprint::kept`), as this version would have made them.
const STAT_WHOLE_128: u8 = 0;
const STAT_ON_BASE_128: u8 = 1;
const STAT_WHOLE: u8 = 2;
const STAT_ON_BASE: u8 = 3;

/// Sorted fingerprints `fps` against the base's sorted `base`: the base's count, a bit per
/// base fingerprint kept, then the added ones as `put_fingerprints` writes them.
fn put_fingerprints_on(fps: &[Fingerprint], base: &[Fingerprint], out: &mut Vec<u8>) {
    out.extend_from_slice(&(base.len() as u32).to_le_bytes());
    let mut bits = vec![0u8; base.len().div_ceil(8)];
    let mut added = Vec::new();
    let mut i = 0;
    for &f in fps {
        while i < base.len() && base[i] < f {
            i += 1;
        }
        match base.get(i) {
            Some(&b) if b == f => bits[i / 8] |= 1 << (i % 8),
            _ => added.push(f),
        }
    }
    out.extend_from_slice(&bits);
    out.extend_from_slice(&(added.len() as u32).to_le_bytes());
    put_fingerprints(&added, out);
}

/// `n` fingerprints written by `put_fingerprints_on` against `base`.
fn get_fingerprints_on(
    r: &mut R,
    n: usize,
    base: &[Fingerprint],
    wide: bool,
) -> Result<Vec<Fingerprint>, RecordError> {
    let corrupt = |what: &str| RecordError::Corrupt(format!("STAT: {what}"));
    if r.u32()? as usize != base.len() {
        return Err(corrupt("not the base's fingerprints"));
    }
    let bits = r.bytes(base.len().div_ceil(8))?;
    let kept = base
        .iter()
        .enumerate()
        .filter(|(i, _)| bits[i / 8] & (1 << (i % 8)) != 0)
        .map(|(_, &f)| f);
    let k = r.count(9)?;
    let added = get_fingerprints(r, k, wide)?;
    let mut out = Vec::with_capacity(n);
    let mut added = added.into_iter().peekable();
    for f in kept {
        while let Some(a) = added.next_if(|&a| a < f) {
            out.push(a);
        }
        out.push(f);
    }
    out.extend(added);
    if out.len() != n {
        return Err(corrupt("fingerprint count"));
    }
    Ok(out)
}

/// `n` fingerprints written by `put_fingerprints` (`wide`: by format 2, whole).
fn get_fingerprints(r: &mut R, n: usize, wide: bool) -> Result<Vec<Fingerprint>, RecordError> {
    let corrupt = || RecordError::Corrupt("STAT: fingerprint buckets".into());
    let k = r.bytes(1)?[0] as u32;
    if k != implied_bytes(n) {
        return Err(corrupt());
    }
    let mut tops = Vec::with_capacity(n);
    if k > 0 {
        for bucket in 0..1u128 << (8 * k) {
            let mut at = r.at;
            let count = crate::rmc::record::codec::get_varint(r.b, &mut at).ok_or_else(corrupt)?;
            r.at = at;
            if count > (n - tops.len()) as u64 {
                return Err(corrupt());
            }
            tops.extend(std::iter::repeat_n(bucket << (128 - 8 * k), count as usize));
        }
        if tops.len() != n {
            return Err(corrupt());
        }
    }
    let from = if wide { 0 } else { DROPPED };
    let keep = 16 - k as usize;
    let each = keep - from;
    let low = r.bytes(n.checked_mul(each).ok_or(RecordError::Truncated)?)?;
    let fps: Vec<Fingerprint> = low
        .chunks_exact(each)
        .enumerate()
        .map(|(i, c)| {
            let mut a = [0u8; 16];
            a[from..keep].copy_from_slice(c);
            Fingerprint(tops.get(i).copied().unwrap_or(0) | u128::from_le_bytes(a)).kept()
        })
        .collect();
    // (Format 2's fingerprints could meet once their low bits are dropped: never seen, and
    // refused rather than merged.)
    if wide && fps.windows(2).any(|w| w[0] >= w[1]) {
        return Err(corrupt());
    }
    Ok(fps)
}

pub(super) struct W(pub(super) Vec<u8>);

impl W {
    pub(super) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn blob(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    pub(super) fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

pub(super) struct R<'a> {
    pub(super) b: &'a [u8],
    pub(super) at: usize,
}

impl<'a> R<'a> {
    pub(super) fn bytes(&mut self, n: usize) -> Result<&'a [u8], RecordError> {
        let end = self.at.checked_add(n).ok_or(RecordError::Truncated)?;
        let s = self.b.get(self.at..end).ok_or(RecordError::Truncated)?;
        self.at = end;
        Ok(s)
    }
    pub(super) fn u32(&mut self) -> Result<u32, RecordError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(super) fn u64(&mut self) -> Result<u64, RecordError> {
        let b = self.bytes(8)?;
        let mut a = [0; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    pub(super) fn str(&mut self) -> Result<String, RecordError> {
        let n = self.u32()? as usize;
        let b = self.bytes(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| RecordError::Corrupt("text".into()))
    }
    pub(super) fn blob(&mut self) -> Result<&'a [u8], RecordError> {
        let n = usize::try_from(self.u64()?).map_err(|_| RecordError::Truncated)?;
        self.bytes(n)
    }
    pub(super) fn count(&mut self, each: usize) -> Result<usize, RecordError> {
        let n = self.u32()? as usize;
        // A count that cannot fit in what is left is corruption, not an allocation.
        if n.saturating_mul(each.max(1)) > self.b.len() - self.at {
            return Err(RecordError::Truncated);
        }
        Ok(n)
    }
}

fn kind_code(k: ViolationKind) -> u8 {
    ViolationKind::ALL.iter().position(|&x| x == k).unwrap_or(0) as u8
}

impl Record {
    /// Heap bytes held (for the memory budget of a run that keeps it): its states, sets and
    /// graph; its sources and violations are small beside them.
    pub fn memory(&self) -> u64 {
        self.fingerprints.held()
            + self.set_of.held()
            + self.sets.held()
            + self.sets.iter().map(|s| s.held()).sum::<u64>()
            + self.elements.held()
            + self.graph.as_ref().map_or(0, |g| g.memory())
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing to memory cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    /// Writes the file to `out` as it goes (the big parts of the state graph straight from
    /// memory, the checksum computed along) and returns the bytes written. The file stands
    /// alone.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> std::io::Result<u64> {
        self.write_on(out, None)
    }

    /// `write_to` for a file at `target`, the state graph written on the record it was read
    /// from when that one lies in the same folder and is worth standing on
    /// (`graph_file::base_for`): then only the states whose events or vector differ from
    /// the base's are written, and the file needs its base to be read.
    pub fn write_beside(
        &self,
        target: &Path,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<u64> {
        let on = self
            .graph
            .as_ref()
            .and_then(|g| graph_file::base_for(g, target));
        self.write_on(out, on)
    }

    /// The name of the base record a record file is written on, if it is one (read from
    /// its table of contents only: cache gc keeps the bases of the records it keeps).
    pub fn base_of(path: &Path) -> Result<Option<String>, RecordError> {
        graph_file::base_of(path)
    }

    fn write_on(
        &self,
        out: &mut dyn std::io::Write,
        on: Option<&crate::rmc::record::graph::Origin>,
    ) -> std::io::Result<u64> {
        let mut sections: Vec<([u8; 4], Vec<Part>)> = Vec::new();
        let meta = serde_json::to_vec(&self.meta).unwrap_or_default();
        sections.push((*b"META", vec![Part::Own(meta)]));
        let mut w = W(Vec::new());
        w.str(&self.sources.main);
        w.u32(self.sources.defines.len() as u32);
        for d in &self.sources.defines {
            w.str(d);
        }
        w.u32(self.sources.include_dirs.len() as u32);
        for d in &self.sources.include_dirs {
            w.str(d);
        }
        w.u32(self.sources.files.len() as u32);
        for (n, t) in &self.sources.files {
            w.str(n);
            w.str(t);
        }
        sections.push((*b"SRCS", vec![Part::Own(w.0)]));
        let mut w = W(Vec::new());
        w.u32(self.ids.next_free);
        w.u32(self.ids.pairs.len() as u32);
        for &(p, s) in &self.ids.pairs {
            w.u32(p);
            w.u32(s);
        }
        sections.push((*b"IDS ", vec![Part::Own(w.0)]));
        let mut w = W(Vec::new());
        w.u32(self.elements.len() as u32);
        for e in &self.elements {
            match e {
                Element::Location(l) => {
                    w.0.push(0);
                    w.u32(*l);
                }
                Element::Violation { kind, at, edge } => {
                    w.0.push(1);
                    w.0.push(kind_code(*kind));
                    w.u32(*at);
                    w.u32(*edge);
                }
                Element::End(ls) => {
                    w.0.push(2);
                    w.u32(ls.len() as u32);
                    for l in ls {
                        w.u32(*l);
                    }
                }
            }
        }
        sections.push((*b"ELEM", vec![Part::Own(w.0)]));
        let mut w = W(Vec::new());
        w.u32(self.sets.len() as u32);
        for s in &self.sets {
            w.u32(s.len() as u32);
            for e in s {
                w.u32(*e);
            }
        }
        sections.push((*b"SETS", vec![Part::Own(w.0)]));
        let viol = serde_json::to_vec(&self.violations).unwrap_or_default();
        sections.push((*b"VIOL", vec![Part::Own(viol)]));
        if !self.trails.is_empty() {
            let none: Vec<RecStep> = Vec::new();
            let kept: Vec<&Vec<RecStep>> = self
                .trails
                .iter()
                .map(|t| t.as_ref().unwrap_or(&none))
                .collect();
            let trails = serde_json::to_vec(&kept).unwrap_or_default();
            sections.push((*b"TRLS", vec![Part::Own(trails)]));
            let without: Vec<usize> = (0..self.trails.len())
                .filter(|&i| self.trails[i].is_none())
                .collect();
            if !without.is_empty() {
                let without = serde_json::to_vec(&without).unwrap_or_default();
                sections.push((*b"NOTR", vec![Part::Own(without)]));
            }
        }
        if let (Some(_), Some(o)) = (&self.graph, on) {
            sections.push((*b"BASE", vec![Part::Own(graph_file::base_section(o))]));
        }
        // (Its bytes are written below, when the sum of those before it is known.)
        sections.push((*b"HSUM", vec![Part::Own(vec![0; HSUM_LEN])]));
        let mut w = W(Vec::new());
        w.u32(self.fingerprints.len() as u32);
        let mut stat = Vec::with_capacity(3);
        match on {
            Some(o) => {
                w.0.push(STAT_ON_BASE);
                put_fingerprints_on(&self.fingerprints, &o.fingerprints, &mut w.0);
                stat.push(Part::Own(w.0));
            }
            None => {
                w.0.push(STAT_WHOLE);
                let keep = fingerprints_head(&self.fingerprints, &mut w.0);
                stat.push(Part::Own(w.0));
                stat.push(Part::Kept(&self.fingerprints, keep));
            }
        }
        stat.push(Part::U32s(&self.set_of));
        sections.push((*b"STAT", stat));
        if let Some(g) = &self.graph {
            match on {
                Some(o) => sections.push((*b"GOVL", graph_file::parts(g, Some(o)))),
                None => sections.push((*b"GRPH", graph_file::parts(g, None))),
            }
        }

        // The large sections compressed first: the table of contents, written first, holds
        // their lengths.
        let mut packed: Vec<Option<(Vec<u8>, u64)>> = Vec::with_capacity(sections.len());
        for (tag, parts) in &sections {
            let len: u64 = parts.iter().map(|p| p.len()).sum();
            // BASE is read from the file alone (`graph_file::base_of`), never compressed.
            let z = match len >= COMPRESS_FROM && tag != b"BASE" && tag != b"HSUM" {
                true => compress(parts)?.filter(|z| (z.len() as u64) < len - len / 10),
                false => None,
            };
            packed.push(z.map(|z| (z, len)));
        }
        let header = 8 + 4 + 4 + sections.len() * ENTRY;
        let mut head = Vec::with_capacity(header);
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&FORMAT.to_le_bytes());
        head.extend_from_slice(&(sections.len() as u32).to_le_bytes());
        let mut offset = header as u64;
        for ((tag, parts), z) in sections.iter().zip(&packed) {
            let (len, raw) = match z {
                Some((z, raw)) => (z.len() as u64, *raw),
                None => (parts.iter().map(|p| p.len()).sum(), 0),
            };
            head.extend_from_slice(tag);
            head.extend_from_slice(&offset.to_le_bytes());
            head.extend_from_slice(&len.to_le_bytes());
            head.extend_from_slice(&raw.to_le_bytes());
            offset += len;
        }
        let mut sum = xxhash_rust::xxh3::Xxh3::new();
        // The sum of the bytes before `HSUM`, while they are written.
        let mut before = Some(xxhash_rust::xxh3::Xxh3::new());
        sum.update(&head);
        if let Some(b) = before.as_mut() {
            b.update(&head);
        }
        out.write_all(&head)?;
        for ((tag, parts), z) in sections.iter().zip(&packed) {
            if tag == b"HSUM" {
                let mut h = Vec::with_capacity(HSUM_LEN);
                h.extend_from_slice(&(self.fingerprints.len() as u32).to_le_bytes());
                let b = before.take().map_or(0, |b| b.digest());
                h.extend_from_slice(&b.to_le_bytes());
                sum.update(&h);
                out.write_all(&h)?;
                continue;
            }
            let mut put = |b: &[u8]| -> std::io::Result<()> {
                sum.update(b);
                if let Some(s) = before.as_mut() {
                    s.update(b);
                }
                out.write_all(b)
            };
            match z {
                Some((z, _)) => put(z)?,
                None => {
                    for p in parts {
                        p.put(&mut put)?;
                    }
                }
            }
        }
        out.write_all(&sum.digest().to_le_bytes())?;
        Ok(offset + 8)
    }

    /// Reads a record's bytes, checking magic, format, checksum and semantics version (the
    /// state graph's bytes copied out of `b`).
    pub fn from_bytes(b: &[u8]) -> Result<Record, RecordError> {
        Record::parse(&Bytes::copy_from_slice(b), None, true)
    }

    /// `from_bytes`, the state graph's bytes shared with `b` instead of copied.
    pub fn from_shared(b: Bytes) -> Result<Record, RecordError> {
        Record::parse(&b, None, true)
    }

    /// `with_states` false: the states (fingerprints, sets, graph) are left out, and no base
    /// is read.
    fn parse(b: &Bytes, path: Option<&Path>, with_states: bool) -> Result<Record, RecordError> {
        Record::parse_at(b, path, with_states, MAX_BASES)
    }

    /// `parse`, for a record that may stand on `bases_left` more base records.
    fn parse_at(
        b: &Bytes,
        path: Option<&Path>,
        with_states: bool,
        bases_left: u32,
    ) -> Result<Record, RecordError> {
        let (toc, checksum) = checked(b)?;
        Record::from_toc(&toc, checksum, path, with_states, bases_left)
    }

    /// `parse_at`, from the sections of a checked file.
    fn from_toc(
        toc: &Toc,
        checksum: u64,
        path: Option<&Path>,
        with_states: bool,
        bases_left: u32,
    ) -> Result<Record, RecordError> {
        let mut r = Record::head_of(toc)?;
        if with_states {
            let s = states_of(toc, checksum, path, bases_left, r.sets.len())?;
            (r.fingerprints, r.set_of, r.graph) = (s.fingerprints, s.set_of, s.graph);
        }
        Ok(r)
    }

    /// What a record holds before its states: `from_toc` without them.
    fn head_of(toc: &Toc) -> Result<Record, RecordError> {
        let get = |tag: &[u8; 4]| required(toc, tag);
        let (meta, sources, ids) = identity_of(toc)?;
        let elem = get(b"ELEM")?;
        let mut r = R { b: &elem, at: 0 };
        let mut elements = Vec::new();
        for _ in 0..r.count(5)? {
            let tag = r.bytes(1)?[0];
            elements.push(match tag {
                0 => Element::Location(r.u32()?),
                1 => {
                    let k = r.bytes(1)?[0] as usize;
                    let kind = *ViolationKind::ALL
                        .get(k)
                        .ok_or_else(|| RecordError::Corrupt("violation kind".into()))?;
                    Element::Violation {
                        kind,
                        at: r.u32()?,
                        edge: r.u32()?,
                    }
                }
                2 => {
                    let mut ls = Vec::new();
                    for _ in 0..r.count(4)? {
                        ls.push(r.u32()?);
                    }
                    Element::End(ls)
                }
                _ => return Err(RecordError::Corrupt("element".into())),
            });
        }
        let sets_section = get(b"SETS")?;
        let mut r = R {
            b: &sets_section,
            at: 0,
        };
        let mut sets = Vec::new();
        for _ in 0..r.count(4)? {
            let n = r.count(4)?;
            let mut s = Vec::with_capacity(n);
            for _ in 0..n {
                let e = r.u32()?;
                if e as usize >= elements.len() {
                    return Err(RecordError::Corrupt("set element".into()));
                }
                s.push(e);
            }
            sets.push(s);
        }
        let violations: Vec<RecViolation> = serde_json::from_slice(&get(b"VIOL")?)
            .map_err(|e| RecordError::Corrupt(format!("VIOL: {e}")))?;
        // (A record from before trails were kept has none: it serves as one without.)
        let trails: Vec<Vec<RecStep>> = match section(toc, b"TRLS")? {
            Some(t) => serde_json::from_slice(&t)
                .map_err(|e| RecordError::Corrupt(format!("TRLS: {e}")))?,
            None => Vec::new(),
        };
        let without: Vec<usize> = match section(toc, b"NOTR")? {
            Some(t) => serde_json::from_slice(&t)
                .map_err(|e| RecordError::Corrupt(format!("NOTR: {e}")))?,
            None => Vec::new(),
        };
        let mut trails: Vec<Option<Vec<RecStep>>> = trails.into_iter().map(Some).collect();
        for i in without {
            match trails.get_mut(i) {
                Some(t) if t.as_ref().is_some_and(Vec::is_empty) => *t = None,
                _ => {
                    return Err(RecordError::Corrupt(
                        "NOTR: not a violation with an empty trail".into(),
                    ))
                }
            }
        }
        if !trails.is_empty() && trails.len() != violations.len() {
            return Err(RecordError::Corrupt(
                "TRLS: not one trail per violation".into(),
            ));
        }
        Ok(Record {
            meta,
            sources,
            ids,
            elements,
            sets,
            fingerprints: Arc::new(Vec::new()),
            set_of: Vec::new(),
            violations,
            trails,
            graph: None,
        })
    }

    /// Reads the fingerprints and sets of the record in `file` (at `path`) into this one,
    /// its head, read before (`head_from_file`): the head is not parsed again (with 10^5
    /// violations, parsing it costs more than the states). The file must be the one the
    /// head came from: the same model, sources and ids, and as many states. Returns what
    /// `read_graph` reads the graph from.
    pub fn read_fingerprints_from(
        &mut self,
        file: &std::fs::File,
        path: &Path,
        states: u64,
    ) -> Result<PartialStates, RecordError> {
        let b = mapped(file)?;
        let (toc, checksum) = checked(&b)?;
        let (meta, sources, ids) = identity_of(&toc)?;
        if meta != self.meta || sources != self.sources || ids != self.ids {
            return Err(RecordError::Corrupt(
                "the record changed while it was read".into(),
            ));
        }
        let mut s = partial_states_of(toc, checksum, Some(path), MAX_BASES, self.sets.len())?;
        if s.fingerprints.len() as u64 != states {
            return Err(RecordError::Corrupt(
                "the record changed while it was read".into(),
            ));
        }
        // (The sets are the record's from here: `read_graph` reads the graph alone.)
        (self.fingerprints, self.set_of) = (s.fingerprints.clone(), std::mem::take(&mut s.set_of));
        Ok(s)
    }

    /// The graph of the states `read_fingerprints_from` read.
    pub fn read_graph(&mut self, partial: PartialStates) -> Result<(), RecordError> {
        let s = partial.finish()?;
        self.graph = s.graph;
        Ok(())
    }

    pub fn read(path: &Path) -> Result<Record, RecordError> {
        Record::read_at(path, true)
    }

    /// The record at `path` without its states (no fingerprints, sets or graph, and no base
    /// read): the model and its ids, what an impact analysis needs, read in a fraction of the
    /// time at 10^7 states.
    pub fn read_without_states(path: &Path) -> Result<Record, RecordError> {
        Record::read_at(path, false)
    }

    fn read_at(path: &Path, with_states: bool) -> Result<Record, RecordError> {
        let io = |err| RecordError::Io {
            path: path.display().to_string(),
            err,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let b = mapped(&file).map_err(|e| match e {
            RecordError::Io { err, .. } => io(err),
            e => e,
        })?;
        Record::parse(&b, Some(path), with_states)
    }

    /// The record in `file` without its states (`read_without_states`), and how many states
    /// it holds: what a check decides before it reads them (at 10^7 states, reading them
    /// costs seconds and gigabytes). Only the count's bytes of the states are decompressed;
    /// the base records it stands on (found beside it) must be there and whole.
    pub fn head_from_file(file: &std::fs::File, path: &Path) -> Result<(Record, u64), RecordError> {
        if let Some((toc, count)) = head_part(file)? {
            // (The file's checksum names it to records written on it: not needed here.)
            let head = Record::from_toc(&toc, 0, None, false, MAX_BASES)?;
            let (mut on, mut at, mut left) =
                (section(&toc, b"BASE")?, path.to_path_buf(), MAX_BASES);
            while let Some(s) = on {
                let (btoc, bpath) = graph_file::base_head(&s, &at, left)?;
                (on, at, left) = (section(&btoc, b"BASE")?, bpath, left - 1);
            }
            return Ok((head, count));
        }
        let b = mapped(file)?;
        let (toc, checksum) = checked(&b)?;
        let head = Record::from_toc(&toc, checksum, None, false, MAX_BASES)?;
        let (mut on, mut at, mut left) = (section(&toc, b"BASE")?, path.to_path_buf(), MAX_BASES);
        while let Some(s) = on {
            let (_, btoc, _, bpath) = graph_file::base_toc(&s, Some(&at), left)?;
            (on, at, left) = (section(&btoc, b"BASE")?, bpath, left - 1);
        }
        let count = match toc.iter().find(|(t, _)| t == b"STAT") {
            None => return Err(RecordError::Corrupt("no STAT section".into())),
            Some((_, s)) if s.raw == 0 => s.bytes.get(..4).map(<[u8]>::to_vec),
            Some((_, s)) => {
                let mut first = [0u8; 4];
                zstd::stream::read::Decoder::new(&s.bytes[..])
                    .and_then(|mut d| std::io::Read::read_exact(&mut d, &mut first))
                    .ok()
                    .map(|()| first.to_vec())
            }
        };
        let count = count
            .and_then(|c| c.try_into().ok().map(u32::from_le_bytes))
            .ok_or_else(|| RecordError::Corrupt("STAT: no count of states".into()))?;
        Ok((head, u64::from(count)))
    }

    // Writing is the cache's (`Cache::put_record` with `to_bytes`): the only writer under
    // .rmc/, and atomically.
}

/// A section the record must have.
fn required(toc: &Toc, tag: &[u8; 4]) -> Result<Bytes, RecordError> {
    section(toc, tag)?.ok_or_else(|| {
        RecordError::Corrupt(format!(
            "no {} section",
            String::from_utf8_lossy(tag).trim()
        ))
    })
}

/// What names a record's version: its `META` (of this git rmc's semantics), sources and
/// stable ids.
fn identity_of(toc: &Toc) -> Result<(Meta, Sources, StableIds), RecordError> {
    let get = |tag: &[u8; 4]| required(toc, tag);
    let meta: Meta = serde_json::from_slice(&get(b"META")?)
        .map_err(|e| RecordError::Corrupt(format!("META: {e}")))?;
    if meta.semantics != SEMANTICS {
        return Err(RecordError::Semantics(meta.semantics));
    }
    let srcs = get(b"SRCS")?;
    let mut r = R { b: &srcs, at: 0 };
    let main = r.str()?;
    let mut defines = Vec::new();
    for _ in 0..r.count(4)? {
        defines.push(r.str()?);
    }
    let mut include_dirs = Vec::new();
    for _ in 0..r.count(4)? {
        include_dirs.push(r.str()?);
    }
    let mut files = Vec::new();
    for _ in 0..r.count(8)? {
        let n = r.str()?;
        let t = r.str()?;
        files.push((n, t));
    }
    let sources = Sources {
        main,
        files,
        defines,
        include_dirs,
    };
    let ids_section = get(b"IDS ")?;
    let mut r = R {
        b: &ids_section,
        at: 0,
    };
    let next_free = r.u32()?;
    let mut pairs = Vec::new();
    for _ in 0..r.count(8)? {
        pairs.push((r.u32()?, r.u32()?));
    }
    let ids = StableIds { pairs, next_free };
    Ok((meta, sources, ids))
}

/// The number of sets a record's `SETS` holds (what its states' sets are checked against),
/// without reading them.
fn sets_count(toc: &Toc) -> Result<usize, RecordError> {
    let sets = required(toc, b"SETS")?;
    R { b: &sets, at: 0 }.count(4)
}

/// A record's states: its fingerprints, each state's set and its state graph.
struct States {
    fingerprints: Arc<Vec<Fingerprint>>,
    set_of: Vec<u32>,
    graph: Option<Graph>,
}

/// A record's states read as far as their fingerprints and sets (what a lookup by
/// fingerprint and a prediction of pruning need), its graph and the graphs of the bases it
/// stands on left in their files until `finish`: reading a graph costs several times what
/// the fingerprints do, and a check that decides on them alone to run in full never needs it.
pub struct PartialStates {
    toc: Toc,
    checksum: u64,
    path: Option<PathBuf>,
    fingerprints: Arc<Vec<Fingerprint>>,
    set_of: Vec<u32>,
    /// The base record the graph stands on, read as far, and its reference.
    base: Option<(Box<PartialStates>, graph_file::BaseRef)>,
    /// The graph's section, being read on a second thread (`graph_file::read_ahead`).
    ahead: Option<graph_file::Ahead>,
}

/// The states of the record whose sections are `toc` (`STAT`, the base it stands on, the
/// graph), each state's set checked against its `sets` sets.
fn states_of(
    toc: &Toc,
    checksum: u64,
    path: Option<&Path>,
    bases_left: u32,
    sets: usize,
) -> Result<States, RecordError> {
    partial_states_of(toc.clone(), checksum, path, bases_left, sets)?.finish()
}

/// `states_of` as far as the fingerprints and sets (`PartialStates`).
fn partial_states_of(
    toc: Toc,
    checksum: u64,
    path: Option<&Path>,
    bases_left: u32,
    sets: usize,
) -> Result<PartialStates, RecordError> {
    let ahead = graph_file::read_ahead(&toc);
    let stat = required(&toc, b"STAT")?;
    let mut r = R { b: &stat, at: 0 };
    let n = r.count(4)?;
    let (on_base, wide) = match r.bytes(1)?[0] {
        STAT_WHOLE => (false, false),
        STAT_ON_BASE => (true, false),
        STAT_WHOLE_128 => (false, true),
        STAT_ON_BASE_128 => (true, true),
        _ => return Err(RecordError::Corrupt("STAT: mode".into())),
    };
    // The base record its graph (and maybe its fingerprints) stand on.
    let base = match section(&toc, b"BASE")? {
        Some(s) => {
            let (bref, btoc, bsum, bpath) = graph_file::base_toc(&s, path, bases_left)?;
            // (Only its states: what this record's stand on.)
            let base = identity_of(&btoc)
                .and_then(|_| {
                    let sets = sets_count(&btoc)?;
                    let mut b = partial_states_of(btoc, bsum, Some(&bpath), bases_left - 1, sets)?;
                    // (A base's sets are checked, not kept: its graph is what stands.)
                    b.set_of = Vec::new();
                    Ok(b)
                })
                .map_err(|e| graph_file::base_error(&bref, e))?;
            Some((Box::new(base), bref))
        }
        None if on_base => {
            return Err(RecordError::Corrupt(
                "STAT: on a base it does not name".into(),
            ))
        }
        None => None,
    };
    let fingerprints = match &base {
        Some((base, _)) if on_base => get_fingerprints_on(&mut r, n, &base.fingerprints, wide)?,
        _ => get_fingerprints(&mut r, n, wide)?,
    };
    let ids_bytes = r.bytes(n * 4)?;
    let set_of: Vec<u32> = ids_bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if set_of.iter().any(|&s| s as usize >= sets) {
        return Err(RecordError::Corrupt("state set".into()));
    }
    if fingerprints.len() != n || fingerprints.windows(2).any(|w| w[0] >= w[1]) {
        return Err(RecordError::Corrupt("fingerprints out of order".into()));
    }
    Ok(PartialStates {
        toc,
        checksum,
        path: path.map(Path::to_path_buf),
        fingerprints: Arc::new(fingerprints),
        set_of,
        base,
        ahead,
    })
}

impl PartialStates {
    /// The states with their graph, read on the bases' graphs.
    fn finish(self) -> Result<States, RecordError> {
        let base_graph = match self.base {
            Some((base, bref)) => {
                let g = base
                    .finish()
                    .map_err(|e| graph_file::base_error(&bref, e))?
                    .graph;
                graph_file::base_fits(&bref, g.as_ref())?;
                g
            }
            None => None,
        };
        let graph = graph_file::read(
            &self.toc,
            self.path.as_deref(),
            self.checksum,
            base_graph.as_ref(),
            &self.fingerprints,
            self.ahead,
        )?;
        if let Some(g) = &graph {
            g.validate(self.fingerprints.len())
                .map_err(|e| RecordError::Corrupt(format!("GRPH: {e}")))?;
        }
        Ok(States {
            fingerprints: self.fingerprints,
            set_of: self.set_of,
            graph,
        })
    }
}

/// A section as the file stores it: its bytes (a view of the file's), and its length
/// decompressed (0: stored as it is). (A clone is a view of the same bytes.)
#[derive(Clone)]
pub(super) struct Stored {
    bytes: Bytes,
    raw: u64,
}

/// A record's sections by tag.
pub(super) type Toc = Vec<([u8; 4], Stored)>;

/// A file's bytes, mapped where the system allows (a short file is read: its diagnosis,
/// truncated or not a record, comes from the bytes, and there is nothing to save).
pub(super) fn mapped(file: &std::fs::File) -> Result<Bytes, RecordError> {
    let io = |err| RecordError::Io {
        path: "the record".into(),
        err,
    };
    let len = file.metadata().map_err(io)?.len();
    if len >= 1 << 20 {
        // SAFETY: the mapping is read-only, and git rmc never writes a record in place:
        // the cache and `--record` write a temporary file and rename it over the old one,
        // whose pages stay as they were for as long as they are mapped. Only another
        // program truncating or rewriting the file in place, while this run reads it,
        // could change them.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(file) } {
            return Ok(Bytes::from_owner(map));
        }
    }
    let mut b = Vec::new();
    // (From the start: a file read once already, its head, is read again for its states.)
    std::io::Seek::seek(&mut &*file, std::io::SeekFrom::Start(0)).map_err(io)?;
    std::io::Read::read_to_end(&mut &*file, &mut b).map_err(io)?;
    Ok(Bytes::from(b))
}

/// Files shorter than this are read and checked whole even for their head: reading them
/// costs little, and a fault anywhere in them is told at once.
pub const HEAD_ALONE_FROM: u64 = 1 << 18;

/// The sections of a record file before its `HSUM` and the count of states, read alone and
/// checked by the sum `HSUM` holds. None where the whole file is read instead: a small file
/// (it costs nothing), one written before `HSUM`, and one whose beginning does not check
/// (the whole file's diagnosis is the one to give).
pub(super) fn head_part(file: &std::fs::File) -> Result<Option<(Toc, u64)>, RecordError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |err| RecordError::Io {
        path: "the record".into(),
        err,
    };
    let len = file.metadata().map_err(io)?.len();
    if len < HEAD_ALONE_FROM {
        return Ok(None);
    }
    let mut f = file;
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut h = [0u8; 16];
    if f.read_exact(&mut h).is_err() || &h[..8] != MAGIC {
        return Ok(None);
    }
    let format = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
    let sections = u32::from_le_bytes([h[12], h[13], h[14], h[15]]) as u64;
    let toc_len = sections.saturating_mul(ENTRY as u64);
    if !(OLDEST_FORMAT..=FORMAT).contains(&format) || toc_len.saturating_add(24) > len {
        return Ok(None);
    }
    let mut toc = vec![0u8; toc_len as usize];
    if f.read_exact(&mut toc).is_err() {
        return Ok(None);
    }
    let entries: Vec<_> = toc_entries(&toc).collect();
    let Some(&(_, at, n, raw)) = entries.iter().find(|e| &e.0 == b"HSUM") else {
        return Ok(None);
    };
    let end = at.saturating_add(n);
    if n != HSUM_LEN as u64 || raw != 0 || end.saturating_add(8) > len {
        return Ok(None);
    }
    let mut b: Vec<u8> = Vec::new();
    if b.try_reserve_exact(end as usize).is_err() {
        return Ok(None);
    }
    b.resize(end as usize, 0);
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    if f.read_exact(&mut b).is_err() {
        return Ok(None);
    }
    let at = at as usize;
    let word = |i: usize, k: usize| {
        b[i..i + k]
            .iter()
            .rev()
            .fold(0u64, |x, &y| x << 8 | y as u64)
    };
    if xxhash_rust::xxh3::xxh3_64(&b[..at]) != word(at + 4, 8) {
        return Ok(None);
    }
    let count = word(at, 4);
    let b = Bytes::from(b);
    let toc = entries
        .iter()
        .filter(|e| e.1.saturating_add(e.2) <= at as u64)
        .map(|&(tag, o, l, raw)| {
            let bytes = b.slice(o as usize..(o + l) as usize);
            (tag, Stored { bytes, raw })
        })
        .collect();
    Ok(Some((toc, count)))
}

/// The record of a file's bytes, checked (magic, format, length, checksum): its sections
/// by tag, and its checksum.
pub(super) fn checked(b: &Bytes) -> Result<(Toc, u64), RecordError> {
    if b.len() < 16 || &b[..8] != MAGIC {
        return Err(if b.len() < 8 && MAGIC.starts_with(b) {
            RecordError::Truncated
        } else {
            RecordError::NotARecord
        });
    }
    let format = u32::from_le_bytes([b[8], b[9], b[10], b[11]]);
    if !(OLDEST_FORMAT..=FORMAT).contains(&format) {
        return Err(RecordError::Format(format));
    }
    if b.len() < 24 {
        return Err(RecordError::Truncated);
    }
    // The table of contents says how long the file must be: shorter is truncated (a
    // more useful diagnosis than the checksum's).
    let sections = u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as usize;
    let toc_end = sections.saturating_mul(ENTRY).saturating_add(16);
    if toc_end > b.len() {
        return Err(RecordError::Truncated);
    }
    let end = toc_entries(&b[16..toc_end])
        .map(|(_, off, len, _)| off.saturating_add(len))
        .max()
        .unwrap_or(0);
    if end.saturating_add(8) > b.len() as u64 {
        return Err(RecordError::Truncated);
    }
    let (body, sum) = b.split_at(b.len() - 8);
    let mut s = [0u8; 8];
    s.copy_from_slice(sum);
    if xxhash_rust::xxh3::xxh3_64(body) != u64::from_le_bytes(s) {
        return Err(RecordError::Checksum);
    }
    if toc_end > body.len() {
        return Err(RecordError::Truncated);
    }
    let mut toc = Vec::with_capacity(sections);
    for (tag, off, len, raw) in toc_entries(&body[16..toc_end]) {
        let end = off.checked_add(len).ok_or(RecordError::Truncated)?;
        if end > body.len() as u64 {
            return Err(RecordError::Truncated);
        }
        toc.push((
            tag,
            Stored {
                bytes: b.slice(off as usize..end as usize),
                raw,
            },
        ));
    }
    Ok((toc, u64::from_le_bytes(s)))
}

/// The length of section `tag` decompressed, if the record has it.
pub(super) fn section_len(toc: &[([u8; 4], Stored)], tag: &[u8; 4]) -> Option<u64> {
    let (_, s) = toc.iter().find(|(t, _)| t == tag)?;
    Some(match s.raw {
        0 => s.bytes.len() as u64,
        n => n,
    })
}

/// The bytes of the section `tag` (None: the record has none), decompressed when stored
/// compressed: only the sections a reader asks for are (a `diff` of a record never
/// decompresses its state graph).
pub(super) fn section(
    toc: &[([u8; 4], Stored)],
    tag: &[u8; 4],
) -> Result<Option<Bytes>, RecordError> {
    match toc.iter().find(|(t, _)| t == tag) {
        None => Ok(None),
        Some((_, s)) if s.raw == 0 => Ok(Some(s.bytes.clone())),
        Some((_, s)) => decompress(&s.bytes, s.raw).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` sorted distinct fingerprints, spread as hashes are.
    fn sorted(n: u64, seed: u64) -> Vec<Fingerprint> {
        let mut v: Vec<Fingerprint> = (0..n)
            .map(|i| {
                Fingerprint(xxhash_rust::xxh3::xxh3_128_with_seed(
                    &i.to_le_bytes(),
                    seed,
                ))
                .kept()
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn fingerprints_read_back_at_every_bucket_width() {
        for n in [0, 1, 255, 256, 257, 65_535, 65_536, 70_000] {
            let fps = sorted(n, 1);
            let mut out = Vec::new();
            put_fingerprints(&fps, &mut out);
            let implied = implied_bytes(fps.len()) as usize;
            let buckets = if implied == 0 { 0 } else { 1 << (8 * implied) };
            // A varint a bucket (one or two bytes here), then the bytes not implied.
            let heads = out.len() - fps.len() * (16 - implied - DROPPED) - 1;
            assert!((buckets..=2 * buckets).contains(&heads), "{n}: {heads}");
            let mut r = R { b: &out, at: 0 };
            assert_eq!(
                get_fingerprints(&mut r, fps.len(), false).unwrap(),
                fps,
                "{n}"
            );
            assert_eq!(r.at, out.len());
        }
    }

    #[test]
    fn fingerprints_on_a_base_keep_a_bit_each_and_add_the_rest() {
        let base = sorted(70_000, 1);
        // Every third base fingerprint dropped, 1,000 new ones.
        let mut fps: Vec<Fingerprint> = base.iter().step_by(3).copied().collect();
        fps.extend(sorted(1_000, 2));
        fps.sort();
        let mut out = Vec::new();
        put_fingerprints_on(&fps, &base, &mut out);
        assert!(out.len() < 70_000 / 8 + 1_000 * 16 + 300, "{}", out.len());
        let mut r = R { b: &out, at: 0 };
        assert_eq!(
            get_fingerprints_on(&mut r, fps.len(), &base, false).unwrap(),
            fps
        );
        // Against another base, or with another count, it is corrupt, not a wrong list.
        let mut r = R { b: &out, at: 0 };
        assert!(get_fingerprints_on(&mut r, fps.len(), &base[1..], false).is_err());
        let mut r = R { b: &out, at: 0 };
        assert!(get_fingerprints_on(&mut r, fps.len() + 1, &base, false).is_err());
    }

    #[test]
    fn bucket_counts_that_overflow_the_count_are_corrupt() {
        let fps = sorted(300, 3);
        let mut out = Vec::new();
        put_fingerprints(&fps, &mut out);
        // The first bucket claims every state.
        out[1] = 0x80;
        out.insert(2, 0x7f);
        let mut r = R { b: &out, at: 0 };
        assert!(get_fingerprints(&mut r, fps.len(), false).is_err());
    }
}
