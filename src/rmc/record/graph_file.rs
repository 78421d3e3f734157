//! The state graph's sections in a record file: `GRPH`, a whole graph; or `BASE` and
//! `GOVL`, a graph written on a base record (an overlay): the base's name and checksum, and
//! the graph with only the states whose events or vector differ from the base's. A replay
//! that changes a few states of a graph of 10^7 then writes a few megabytes, not the
//! gigabyte its base holds. The base is found beside the record, read through its own base
//! (at most `MAX_BASES` deep), and must be the file it was (its checksum); a record whose
//! base is gone or changed is refused, like a corrupt one, and costs a full check.
//! Integers are little-endian; the slot table's are varints.

use std::path::Path;

use bytes::Bytes;
use std::sync::Arc;

use crate::explore::Fingerprint;

use crate::rmc::record::blob::Blob;
use crate::rmc::record::graph::{get_varint, put_varint, Graph, Origin};
use crate::rmc::record::spans::Spans;
use crate::rmc::record::{
    checked, mapped, section, section_len, Part, RecordError, Toc, ENTRY, MAGIC, MAX_BASES, R, W,
};

/// The layout of the `GRPH` and `GOVL` sections. A record whose graph has another layout is
/// still used, without its graph (pruning only).
/// (3: events grouped by the process that moves, each group with its own footprint.)
const GRAPH_FORMAT: u32 = 3;

/// The base `g` (to be written at `target`) may stand on: its origin when that is a record
/// in the same folder (not `target` itself), not too deep, and still the file it was, and
/// when `g` keeps at least half of its bytes (else the chain would mostly hold bytes no
/// state needs: the whole graph is written, only its states' bytes, which compacts it).
pub(super) fn base_for<'a>(g: &'a Graph, target: &Path) -> Option<&'a Origin> {
    let o = g.origin.as_ref()?;
    let beside = o.path.parent() == target.parent()
        && o.path.file_name().is_some()
        && o.path.file_name() != target.file_name();
    if !beside || o.depth + 1 > MAX_BASES {
        return None;
    }
    let mut kept = 0u64;
    for s in 0..g.len() {
        let (e, v) = (g.ev.at(s), g.vec.at(s));
        if o.holds(s, e, false) {
            kept += e.1 as u64;
        }
        if o.holds(s, v, true) {
            kept += v.1 as u64;
        }
    }
    if kept * 2 < o.events + o.vectors {
        return None;
    }
    // The base as it was read: a file replaced since (a rename over it) is not stood on.
    let trailer = read_trailer(&o.path).ok()?;
    (trailer == o.checksum).then_some(o)
}

/// The `BASE` section of a graph written on `o`.
pub(super) fn base_section(o: &Origin) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.str(&o.path.file_name().unwrap_or_default().to_string_lossy());
    w.u64(o.checksum);
    w.u64(o.events);
    w.u64(o.vectors);
    w.u32(o.slots);
    w.0
}

/// What a `BASE` section says.
pub struct BaseRef {
    name: String,
    checksum: u64,
    events: u64,
    vectors: u64,
    slots: u32,
}

fn read_base_ref(b: &[u8]) -> Result<BaseRef, RecordError> {
    let mut r = R { b, at: 0 };
    let name = r.str()?;
    // Only a file beside the record: a name cannot lead elsewhere.
    if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(RecordError::Corrupt("BASE: name".into()));
    }
    Ok(BaseRef {
        name,
        checksum: r.u64()?,
        events: r.u64()?,
        vectors: r.u64()?,
        slots: r.u32()?,
    })
}

/// The graph section(s) of `g`: whole (`on` none), or written on `on`: per slot, an events
/// or vector length of 0 says "the base's", any other is 1 + the length of the bytes that
/// follow in slot order.
pub(super) fn parts<'a>(g: &'a Graph, on: Option<&Origin>) -> Vec<Part<'a>> {
    let mut w = W(Vec::with_capacity(64 + g.len() * 6));
    w.u32(GRAPH_FORMAT);
    w.blob(&g.reference);
    w.u32(g.foots.len() as u32);
    for f in &g.foots {
        w.u32(f.len() as u32);
        for &l in f {
            w.u32(l);
        }
    }
    w.u32(g.shapes.len() as u32);
    for (len, tags) in &g.shapes {
        w.u32(*len);
        w.u32(tags.len() as u32);
        w.0.extend_from_slice(tags);
    }
    w.u32(g.edges.len() as u32);
    for &(l, k) in &g.edges {
        w.u32(l);
        w.u32(k);
    }
    // Per slot: footprint, shape and the lengths of its events and vector, as varints; the
    // events and vectors follow in slot order, so that their offsets are running sums.
    w.u32(g.len() as u32);
    let mut slots = Vec::with_capacity(g.len() * 5);
    let (mut own_ev, mut own_vec) = (Vec::new(), Vec::new());
    for i in 0..g.len() {
        let (e, v) = match on {
            None => (g.ev.at(i).1 as u64, g.vec.at(i).1 as u64),
            Some(o) => {
                let code = |span: (u64, u32), of_vectors: bool, own: &mut Vec<_>| {
                    if o.holds(i, span, of_vectors) {
                        0
                    } else {
                        own.push(span);
                        span.1 as u64 + 1
                    }
                };
                (
                    code(g.ev.at(i), false, &mut own_ev),
                    code(g.vec.at(i), true, &mut own_vec),
                )
            }
        };
        for x in [g.foot[i] as u64, g.shape[i] as u64, e, v] {
            put_varint(&mut slots, x);
        }
    }
    w.blob(&slots);
    let mut parts = Vec::with_capacity(5);
    if on.is_some() {
        for (spans, bytes) in [(own_ev, &g.events), (own_vec, &g.vectors)] {
            w.u64(spans.iter().map(|e| e.1 as u64).sum());
            parts.push(Part::Own(std::mem::take(&mut w.0)));
            parts.push(Part::OwnSpans(bytes, spans));
        }
    } else {
        // Events and vectors in slot order: as the graph holds them when it is laid out so
        // (a graph just built or read is), else gathered.
        for (spans, bytes) in [(&g.ev, &g.events), (&g.vec, &g.vectors)] {
            let total: u64 = spans.iter().map(|e| e.1 as u64).sum();
            w.u64(total);
            parts.push(Part::Own(std::mem::take(&mut w.0)));
            let mut next = 0u64;
            let in_order = spans.iter().all(|(at, len)| {
                let ok = at == next;
                next += len as u64;
                ok
            }) && next == bytes.len();
            if in_order {
                parts.extend(bytes.parts().map(Part::Ref));
            } else {
                parts.push(Part::Spans(bytes, spans));
            }
        }
    }
    w.u32(g.slot_of.len() as u32);
    for &s in &g.slot_of {
        w.u32(s);
    }
    parts.push(Part::Own(w.0));
    parts
}

/// The graph of a record's sections (`toc`; `checksum`, the file's), none when it has none
/// or one of another layout; `base`, the graph of the record its `BASE` section names
/// (`base_ref`), read by the caller. `path`, the file's, makes the graph's origin, which
/// keeps the record's `fingerprints`.
pub(super) fn read(
    toc: &Toc,
    path: Option<&Path>,
    checksum: u64,
    base: Option<&Graph>,
    fingerprints: &Arc<Vec<Fingerprint>>,
    ahead: Option<Ahead>,
) -> Result<Option<Graph>, RecordError> {
    let early = ahead.and_then(Ahead::join);
    let (graph, depth) = match base {
        Some(base) => {
            let body = match early {
                Some(Early::Body(body)) => body?,
                _ => section(toc, b"GOVL")?,
            };
            let body =
                body.ok_or_else(|| RecordError::Corrupt("a BASE section without GOVL".into()))?;
            let depth = base.origin.as_ref().map_or(0, |o| o.depth + 1);
            (section_graph(&body, Some(base))?, depth)
        }
        None => match early {
            Some(Early::Graph(graph)) => ((*graph)?, 0),
            _ => match section(toc, b"GRPH")? {
                Some(body) => (section_graph(&body, None)?, 0),
                None => (None, 0),
            },
        },
    };
    Ok(graph.map(|mut g| {
        g.origin = path.map(|p| Origin {
            path: p.to_path_buf(),
            checksum,
            events: g.events.len(),
            vectors: g.vectors.len(),
            slots: g.len() as u32,
            depth,
            fingerprints: fingerprints.clone(),
        });
        g
    }))
}

/// A graph section larger than this (decompressed) is not read ahead: a check that decides
/// on the fingerprints alone to run in full would hold it, unused, beside its search.
const AHEAD_MAX: u64 = 1 << 28;

/// A record's graph section read on a second thread while its fingerprints and sets are
/// read on this one (`read_ahead`): the two are independent until the graph is finished,
/// and reading them one after the other left the machine's second core idle through the
/// costliest part of planning an incremental check.
pub(super) struct Ahead(std::thread::JoinHandle<Early>);

/// What was read ahead: a `GRPH` section's graph (it stands on nothing), or a `GOVL`
/// section decompressed (its graph is built on its base's, which `read` has then).
enum Early {
    Graph(Box<Result<Option<Graph>, RecordError>>),
    Body(Result<Option<Bytes>, RecordError>),
}

impl Ahead {
    /// What the thread read; None if it failed (a panic), and the caller reads it itself.
    fn join(self) -> Option<Early> {
        self.0.join().ok()
    }
}

/// Starts reading the graph section of the record whose sections are `toc`, if it has one
/// of at most `AHEAD_MAX` bytes and a thread can be had (else `read` reads it as before).
pub(super) fn read_ahead(toc: &Toc) -> Option<Ahead> {
    let on_base = toc.iter().any(|(t, _)| t == b"BASE");
    let tag = if on_base { b"GOVL" } else { b"GRPH" };
    if section_len(toc, tag).is_none_or(|n| n > AHEAD_MAX) {
        return None;
    }
    let toc = toc.clone();
    let read = move || match on_base {
        true => Early::Body(section(&toc, b"GOVL")),
        false => Early::Graph(Box::new(
            section(&toc, b"GRPH")
                .and_then(|body| body.map_or(Ok(None), |b| section_graph(&b, None))),
        )),
    };
    std::thread::Builder::new()
        .name("git-rmc-read".into())
        .spawn(read)
        .ok()
        .map(Ahead)
}

/// The sections of the base record a `BASE` section (`base`) names, beside the record at
/// `path`, checked to be the file the record was written on; its checksum and its path.
pub(super) fn base_toc(
    base: &[u8],
    path: Option<&Path>,
    bases_left: u32,
) -> Result<(BaseRef, Toc, u64, std::path::PathBuf), RecordError> {
    let b = read_base_ref(base)?;
    let Some(dir) = path.and_then(Path::parent) else {
        return Err(RecordError::Base(format!(
            "the record is written on base record {}, and was read without the folder that holds it",
            b.name
        )));
    };
    if bases_left == 0 {
        return Err(RecordError::Corrupt(format!(
            "more than {MAX_BASES} base records deep"
        )));
    }
    let path = dir.join(&b.name);
    let why = |what: String| RecordError::Base(format!("its base record {} {what}", b.name));
    let file = std::fs::File::open(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => why("is missing".into()),
        _ => why(format!("cannot be read ({e})")),
    })?;
    let bytes = mapped(&file).map_err(|e| why(format!("cannot be read ({e})")))?;
    let (toc, checksum) = checked(&bytes).map_err(|e| why(format!("is unusable ({e})")))?;
    if checksum != b.checksum {
        return Err(why("has changed since the record was written on it".into()));
    }
    Ok((b, toc, checksum, path))
}

/// `base_toc` for a check that reads only the head of the record written on the base: the
/// base's head (`head_part`), its file the one the record was written on by its trailer;
/// the sections, and the path. The whole base is checked when the record's states are read.
pub(super) fn base_head(
    base: &[u8],
    path: &Path,
    bases_left: u32,
) -> Result<(Toc, std::path::PathBuf), RecordError> {
    let b = read_base_ref(base)?;
    let at = path.parent().map(|d| d.join(&b.name));
    let head = at
        .as_ref()
        .and_then(|p| std::fs::File::open(p).ok())
        .and_then(|f| super::file::head_part(&f).ok().flatten());
    match (head, at) {
        (Some((toc, _)), Some(p)) if bases_left > 0 => {
            if read_trailer(&p).ok() != Some(b.checksum) {
                return Err(RecordError::Base(format!(
                    "its base record {} has changed since the record was written on it",
                    b.name
                )));
            }
            Ok((toc, p))
        }
        // (Anything else is told as a whole read of the base tells it.)
        _ => base_toc(base, Some(path), bases_left).map(|(_, toc, _, p)| (toc, p)),
    }
}

/// A base record's error, said of the record written on it.
pub(super) fn base_error(b: &BaseRef, e: RecordError) -> RecordError {
    match e {
        RecordError::Base(m) => RecordError::Base(m),
        e => RecordError::Base(format!("its base record {} is unusable ({e})", b.name)),
    }
}

/// Whether the base's graph `g` is the one the record was written on.
pub(super) fn base_fits(b: &BaseRef, g: Option<&Graph>) -> Result<(), RecordError> {
    let why = |what: &str| RecordError::Base(format!("its base record {} {what}", b.name));
    let g = g.ok_or_else(|| why("has no state graph"))?;
    if g.events.len() != b.events || g.vectors.len() != b.vectors || g.len() != b.slots as usize {
        return Err(why("does not hold the graph the record was written on"));
    }
    Ok(())
}

/// A `GRPH` section's graph, or (with `base`) a `GOVL` section's on that base; None when
/// it has another layout.
fn section_graph(section: &Bytes, base: Option<&Graph>) -> Result<Option<Graph>, RecordError> {
    // A blob is a view of the section's bytes (the file's mapping, or the section
    // decompressed), never a copy.
    let share = |s: &[u8]| match s.is_empty() {
        true => Blob::default(),
        false => Blob::shared(section.slice_ref(s)),
    };
    let mut r = R { b: section, at: 0 };
    if r.u32()? != GRAPH_FORMAT {
        return Ok(None);
    }
    let reference = r.blob()?.to_vec();
    let mut foots = Vec::new();
    for _ in 0..r.count(4)? {
        let n = r.count(4)?;
        let mut f = Vec::with_capacity(n);
        for _ in 0..n {
            f.push(r.u32()?);
        }
        foots.push(f);
    }
    let mut shapes = Vec::new();
    for _ in 0..r.count(8)? {
        let len = r.u32()?;
        let n = r.count(1)?;
        shapes.push((len, r.bytes(n)?.to_vec()));
    }
    let mut edges = Vec::new();
    for _ in 0..r.count(8)? {
        edges.push((r.u32()?, r.u32()?));
    }
    let n = r.count(4)?;
    let slots = r.blob()?;
    let (mut foot, mut shape, mut ev, mut vec) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Spans::default(),
        Spans::default(),
    );
    let no_memory =
        || RecordError::Corrupt("GRPH: its slot table needs more memory than there is".into());
    // Own bytes follow the base's (none without a base).
    let (mut ev_at, mut vec_at) = base.map_or((0, 0), |g| (g.events.len(), g.vectors.len()));
    let corrupt = || RecordError::Corrupt("GRPH: slot table".into());
    let mut at = 0;
    let next = |at: &mut usize| {
        get_varint(slots, at)
            .and_then(|x| u32::try_from(x).ok())
            .ok_or_else(corrupt)
    };
    for i in 0..n {
        foot.push(next(&mut at)?);
        shape.push(next(&mut at)?);
        let (e, v) = (next(&mut at)?, next(&mut at)?);
        for (len, spans, own_at, of_base) in [
            (e, &mut ev, &mut ev_at, base.map(|g| &g.ev)),
            (v, &mut vec, &mut vec_at, base.map(|g| &g.vec)),
        ] {
            let len = match of_base {
                None => len,
                Some(theirs) if len == 0 => {
                    spans
                        .push(theirs.get(i).ok_or_else(corrupt)?)
                        .ok_or_else(no_memory)?;
                    continue;
                }
                Some(_) => len - 1,
            };
            spans.push((*own_at, len)).ok_or_else(no_memory)?;
            *own_at += len as u64;
        }
    }
    let mut events = share(r.blob()?);
    let mut vectors = share(r.blob()?);
    if let Some(g) = base {
        let (mut e, mut v) = (g.events.clone(), g.vectors.clone());
        e.append(events);
        v.append(vectors);
        (events, vectors) = (e, v);
    }
    let k = r.count(4)?;
    let mut slot_of = Vec::with_capacity(k);
    for _ in 0..k {
        slot_of.push(r.u32()?);
    }
    Ok(Some(Graph {
        reference,
        foots,
        shapes,
        edges,
        foot,
        shape,
        ev,
        events,
        vec,
        vectors,
        slot_of,
        origin: None,
    }))
}

/// The last 8 bytes of a file: a record's checksum.
fn read_trailer(path: &Path) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::End(-8))?;
    let mut b = [0u8; 8];
    f.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// The name of the base a record file is written on, from its table of contents and its
/// `BASE` section only (the file is not checked whole).
pub(super) fn base_of(path: &Path) -> Result<Option<String>, RecordError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |err| RecordError::Io {
        path: path.display().to_string(),
        err,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut head = [0u8; 16];
    f.read_exact(&mut head).map_err(io)?;
    if &head[..8] != MAGIC {
        return Err(RecordError::NotARecord);
    }
    let n = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as usize;
    let mut toc = vec![0u8; n.min(1 << 10) * ENTRY];
    f.read_exact(&mut toc).map_err(io)?;
    for (tag, off, len, _) in super::file::toc_entries(&toc) {
        if &tag != b"BASE" {
            continue;
        }
        if len > 1 << 16 {
            return Err(RecordError::Corrupt("BASE: length".into()));
        }
        f.seek(SeekFrom::Start(off)).map_err(io)?;
        let mut b = vec![0u8; len as usize];
        f.read_exact(&mut b).map_err(io)?;
        return Ok(Some(read_base_ref(&b)?.name));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base_ref(name: &str) -> Vec<u8> {
        let mut w = W(Vec::new());
        w.str(name);
        w.u64(1);
        w.u64(2);
        w.u64(3);
        w.u32(4);
        w.0
    }

    #[test]
    fn a_base_is_named_by_a_file_beside_the_record_and_nothing_else() {
        let b = read_base_ref(&base_ref("0123abcd.rec")).expect("a plain name");
        assert_eq!(
            (b.name.as_str(), b.checksum, b.events, b.vectors, b.slots),
            ("0123abcd.rec", 1, 2, 3, 4)
        );
        for bad in [
            "",
            ".",
            "..",
            "../x.rec",
            "a/b.rec",
            "a\\b.rec",
            "/etc/passwd",
        ] {
            assert!(read_base_ref(&base_ref(bad)).is_err(), "{bad:?}");
        }
        assert!(
            read_base_ref(&base_ref("x.rec")[..10]).is_err(),
            "cut short"
        );
    }
}
