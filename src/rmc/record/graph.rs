//! The recorded state graph (DESIGN.md 5.4): per recorded state (a slot), its canonical
//! vector, the events its expansion produced, its footprint and its shape. A replay walks
//! these instead of executing; the record keeps them in its `GRPH` section. The codecs that
//! write and read them are in `codec`, the names of edges in `names` (both re-exported
//! here).
//!
//! A vector is kept as its difference from a base: the vector of a slot a few before it
//! (states stored one after the other differ in a few bytes), or, every `CHAIN` slots, a
//! reference vector (the record's initial state). A later record copies them verbatim, and
//! keeps the vectors of dropped slots until it renumbers the graph, so that every base stays. Events name edges through a table of (stable location, edge index there), so that
//! renumbered code keeps them, and states by slot.

use crate::explore::budget::Held;
use crate::rmc::record::blob::Blob;
use crate::rmc::record::spans::Spans;

pub use super::codec::*;
pub use super::names::*;

/// No slot, no edge.
pub const NONE: u32 = u32::MAX;

/// A recorded state's shape: its canonical vector's length and its records' tags.
pub type Shape = (u32, Vec<u8>);

/// A state graph as a record keeps it. A slot's events and vector are spans of `events` and
/// `vectors`, in any order (a graph just built holds them as they came; a file, in slot
/// order).
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// The vector every state's is the XOR with.
    pub reference: Vec<u8>,
    /// Footprints: sorted stable location ids.
    pub foots: Vec<Vec<u32>>,
    /// Shapes: (canonical length, the tags of its records in order).
    pub shapes: Vec<Shape>,
    /// Edges events name: (stable location, edge index there).
    pub edges: Vec<(u32, u32)>,
    /// Per slot: its footprint, its shape, where its events are (start, length) and where
    /// its vector is (start, length).
    pub foot: Vec<u32>,
    pub shape: Vec<u32>,
    pub ev: Spans,
    pub events: Blob,
    pub vec: Spans,
    pub vectors: Blob,
    /// Per fingerprint of the record (its `STAT` order): the state's slot (NONE: none).
    pub slot_of: Vec<u32>,
    /// The record file the graph was read from (or was built on, its spans there kept):
    /// a record written beside it may refer to those bytes instead of copying them.
    pub origin: Option<Origin>,
}

/// The record file a graph's bytes came from: where it is, its checksum, and how much of
/// the graph it holds. A slot whose events (or vector) span lies inside the first `events`
/// (`vectors`) bytes has the same span there as in the origin's graph, so a record written
/// on it names only the slots that differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub path: std::path::PathBuf,
    pub checksum: u64,
    pub events: u64,
    pub vectors: u64,
    pub slots: u32,
    /// How many base records the origin itself stands on.
    pub depth: u32,
    /// The origin record's fingerprints: a record written on it names which it keeps.
    pub fingerprints: std::sync::Arc<Vec<crate::explore::Fingerprint>>,
}

impl Origin {
    /// Whether a span (`at`, `n`) of slot `slot` is the origin's own span of that slot.
    pub fn holds(&self, slot: usize, (at, n): (u64, u32), of_vectors: bool) -> bool {
        let len = if of_vectors {
            self.vectors
        } else {
            self.events
        };
        n > 0 && slot < self.slots as usize && at + n as u64 <= len
    }
}

/// Two graphs are equal when their tables and every slot's events and vector are, wherever
/// the bytes lie.
impl PartialEq for Graph {
    fn eq(&self, o: &Graph) -> bool {
        fn span(b: &Blob, (at, n): (u64, u32)) -> Option<&[u8]> {
            b.get(at, n)
        }
        self.reference == o.reference
            && self.foots == o.foots
            && self.shapes == o.shapes
            && self.edges == o.edges
            && self.foot == o.foot
            && self.shape == o.shape
            && self.slot_of == o.slot_of
            && self.ev.len() == o.ev.len()
            && self.vec.len() == o.vec.len()
            && (0..self.ev.len()).all(|s| {
                span(&self.events, self.ev.at(s)) == span(&o.events, o.ev.at(s))
                    && span(&self.vectors, self.vec.at(s)) == span(&o.vectors, o.vec.at(s))
            })
    }
}

/// The work of `count` recorded states whose events take `bytes`, in recorded states of
/// average work (`all` states, `all_bytes` of events): a state that passes a long atomic run
/// costs its search that many more steps. On the sample's elevator, the 15 % of its states
/// a change inside the controller's atomic runs meets carry 75 % of its atomic steps.
pub fn work_in_states(count: u64, bytes: u64, all: u64, all_bytes: u64) -> f64 {
    if all == 0 || all_bytes == 0 {
        return count as f64;
    }
    bytes as f64 * all as f64 / all_bytes as f64
}

impl Graph {
    /// Heap bytes held (for the memory budget of a run that reuses it).
    pub fn memory(&self) -> u64 {
        self.reference.held()
            + self.foots.held()
            + self.foots.iter().map(|f| f.held()).sum::<u64>()
            + self.shapes.held()
            + self.shapes.iter().map(|s| s.1.held()).sum::<u64>()
            + self.edges.held()
            + self.foot.held()
            + self.shape.held()
            + self.ev.held()
            + self.events.held()
            + self.vec.held()
            + self.vectors.held()
            + self.slot_of.held()
    }

    pub fn len(&self) -> usize {
        self.foot.len()
    }

    pub fn is_empty(&self) -> bool {
        self.foot.is_empty()
    }

    /// The bytes of a slot's events: each of its transitions and each atomic step it passes
    /// is an event, so its work in a search, in proportion (`work_in_states`).
    pub fn event_bytes(&self, slot: u32) -> u64 {
        u64::from(self.ev.at(slot as usize).1)
    }

    /// A slot's events (none for a span `validate` would refuse).
    pub fn events_of(&self, slot: u32) -> &[u8] {
        let (at, n) = self.ev.at(slot as usize);
        self.events.get(at, n).unwrap_or_default()
    }

    pub fn vector_of(&self, slot: u32) -> &[u8] {
        let (at, n) = self.vec.at(slot as usize);
        self.vectors.get(at, n).unwrap_or_default()
    }

    /// The canonical vector of `slot` (`chain` is scratch). False: the graph is corrupt.
    pub fn decode_vector(
        &self,
        slot: u32,
        chain: &mut Vec<(u32, usize)>,
        out: &mut Vec<u8>,
    ) -> bool {
        self.decode_vector_from(slot, None, chain, out)
    }

    /// `decode_vector`, from `known` (a slot's vector decoded before) when the chain of
    /// `slot` passes through it.
    pub fn decode_vector_from(
        &self,
        slot: u32,
        known: Option<(u32, &[u8])>,
        chain: &mut Vec<(u32, usize)>,
        out: &mut Vec<u8>,
    ) -> bool {
        decode_chain_from(
            &self.reference,
            slot,
            known,
            |s| ((s as usize) < self.len()).then(|| self.vector_of(s)),
            chain,
            out,
        )
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
        if !self
            .ev
            .iter()
            .all(|(at, n)| self.events.get(at, n).is_some())
            || !self
                .vec
                .iter()
                .all(|(at, n)| self.vectors.get(at, n).is_some())
        {
            return Err("graph range out of bounds".into());
        }
        // Every vector's chain of bases ends at the reference within the bound a reader
        // follows (a vector that is not kept has none: nothing may be based on it).
        let mut depth = vec![0u8; n];
        for s in 0..n {
            let r = self.vector_of(s as u32);
            if r.is_empty() {
                depth[s] = u8::MAX;
                continue;
            }
            let Some((back, _)) = vector_back(r) else {
                return Err("graph vector malformed".into());
            };
            if back == 0 {
                continue;
            }
            let base = s.checked_sub(back as usize).map(|b| depth[b]);
            match base {
                Some(d) if (d as usize) + 1 < MAX_CHAIN => depth[s] = d + 1,
                _ => return Err("graph vector chain broken".into()),
            }
        }
        Ok(())
    }
}

/// Decodes slots' vectors one after another, each from the one decoded before when its
/// chain of bases passes there: slots taken in about the order they were written (a vector
/// is a delta on one written shortly before it) cost a delta or two each, not a chain.
#[derive(Debug, Default)]
pub struct SeqDecoder {
    slot: Option<u32>,
    last: Vec<u8>,
    cur: Vec<u8>,
    chain: Vec<(u32, usize)>,
}

impl SeqDecoder {
    /// The canonical vector of `slot` in `g` (None: the graph is corrupt), held until the
    /// next call.
    pub fn decode(&mut self, g: &Graph, slot: u32) -> Option<&[u8]> {
        if self.slot != Some(slot) {
            let known = self.slot.map(|k| (k, &self.last[..]));
            if !g.decode_vector_from(slot, known, &mut self.chain, &mut self.cur) {
                self.slot = None;
                return None;
            }
            std::mem::swap(&mut self.cur, &mut self.last);
            self.slot = Some(slot);
        }
        Some(&self.last)
    }
}
