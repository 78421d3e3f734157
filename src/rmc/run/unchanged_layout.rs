//! The unchanged-graph check (`run::unchanged`) across a changed layout (`Extension`: a
//! declaration added, removed, retyped or resized, a proctype or global channel added or
//! removed): when every recorded state the change meets (its footprint reaches a dangerous
//! location) expands from its image in the new version as it did in the old, each new
//! successor the image of the old one, the new version's search is the old one's, each
//! recorded state met as its image under the map (`Extension::embed`), so its figures are
//! the record's (pan's vector sizes aside) and its record is the old graph with each vector
//! re-encoded in the new layout. A replay would walk every state to write that record;
//! this reads each state's events once, to check that every recorded step leads to the
//! image of its recorded target, executes the states the change meets in both versions,
//! and writes the images.
//!
//! Why the images are the new version's states: the new initial state is the image of the
//! old one (checked), an undangerous statement from an image moves to the image of its
//! recorded successor (the argument replay across a layout change rests on, `Extension`),
//! and the states the change meets are shown to by executing them (a retyped variable whose
//! writes stay within both types, an array resized whose indices stay within both lengths).
//! Every recorded step is checked to land on the one image its target was given (two
//! parents that lent different added bytes would split a state in two), and images are
//! told apart by their fingerprints (two states that differed only in dropped bytes would
//! be one): either way the graph is not the old one, and the replay runs instead.

use crate::rmc::record::spans::Spans;
use std::collections::HashMap;
use std::time::Instant;

use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use crate::explore::machine::Machine;
use crate::explore::state::State;
use crate::explore::store::fingerprint;
use crate::explore::{Fingerprint, Options};
use crate::program::Program;
use crate::rmc::diff::extension::{EmbedPlan, Extension};
use crate::rmc::record::blob::Blob;
use crate::rmc::record::graph::{
    encode_vector, for_each_event, Graph, SeqDecoder, Shape, CHAIN, NONE,
};
use crate::rmc::record::Record;
use crate::rmc::run::replay::Replay;
use crate::rmc::run::unchanged::{eligible, executed_edges, Comparer, Unchanged};

/// The recorded states' vectors back to back, by slot (an unreached slot has none).
struct Vectors {
    bytes: Vec<u8>,
    at: Vec<(usize, usize)>,
}

impl Vectors {
    fn get(&self, slot: u32) -> Option<&[u8]> {
        let &(at, n) = self.at.get(slot as usize)?;
        (n > 0).then(|| &self.bytes[at..at + n])
    }
}

/// What the map makes of the record: its graph with vectors in the new layout, and the
/// states in the order of their new fingerprints (each one's set moved along).
struct Mapped {
    reference: Vec<u8>,
    vectors: Vec<u8>,
    vec: Spans,
    shapes: Vec<(u32, Vec<u8>)>,
    shape: Vec<u32>,
    fingerprints: Vec<Fingerprint>,
    slot_of: Vec<u32>,
    set_of: Vec<u32>,
    vector_bytes: u64,
    pan_vector_bytes: u64,
    /// Each (old shape, new shape) pair of a recorded state and its image, once.
    pairs: Vec<(u32, u32)>,
    /// The recorded states the change meets, executed in both versions and compared.
    checked: u64,
}

/// The check of `new` against the record `r` of `old` when the layout changed (the replay's
/// `project`) and no location is dangerous: the record's figures and graph, its vectors
/// mapped. Else the replay, to run as usual.
pub fn carry(
    old: &Program,
    new: &Program,
    r: &Record,
    rp: Replay,
    opts: &Options,
) -> Result<Unchanged, Box<Replay>> {
    let started = Instant::now();
    let found = (|| {
        let (ext, _) = rp.project.as_ref()?;
        let mut stats = eligible(r, &rp.graph, opts)?;
        let (mo, mn) = (Machine::new(old).ok()?, Machine::new(new).ok()?);
        let meets = |s: u32| !rp.replayable(s);
        let mapped = map((&mo, &mn), r, &rp.graph, ext, &meets, opts)?;
        let executed = executed_edges(&mn, &r.meta.executed)?;
        let initial = mn.initial().ok()?.v;
        let violations = super::unchanged::recorded_violations(&mn, r, &initial, opts)?;
        stats.vector_bytes = mapped.vector_bytes;
        stats.state_vector_bytes = mapped.pan_vector_bytes;
        Some((stats, mapped, executed, initial, violations))
    })();
    let Some((mut stats, m, executed, initial, violations)) = found else {
        return Err(Box::new(rp));
    };
    let g = rp.into_graph();
    let shape_pairs = m
        .pairs
        .iter()
        .filter_map(|&(o, n)| {
            Some((
                g.shapes.get(o as usize)?.clone(),
                m.shapes.get(n as usize)?.clone(),
            ))
        })
        .collect();
    let graph = Graph {
        reference: m.reference,
        foots: g.foots,
        shapes: m.shapes,
        edges: g.edges,
        foot: g.foot,
        shape: m.shape,
        ev: g.ev,
        events: g.events,
        vec: m.vec,
        vectors: Blob::from_vec(m.vectors),
        slot_of: m.slot_of,
        // Every vector is new: the record written stands on no other.
        origin: None,
    };
    let pan = stats.state_vector_bytes;
    let mut figures = r.meta.figures.clone();
    if let Some(f) = figures.as_object_mut() {
        f.insert("state_vector_bytes".into(), pan.into());
        f.insert("vector_bytes".into(), stats.vector_bytes.into());
    }
    // Every state's successors came from the record but those of the states the change
    // meets (as `unchanged` counts them).
    let checked = m.checked;
    stats.states_executed = checked;
    stats.frontier_states = checked;
    stats.states_walked = stats.states_stored - checked;
    stats.states_reused = stats.states_stored;
    stats.peak_memory_bytes = r.memory() + graph.memory();
    stats.elapsed = started.elapsed();
    Ok(Unchanged {
        checked,
        by_conditions: 0,
        mapped: true,
        shape_pairs,
        stats,
        executed,
        executed_stable: r.meta.executed.clone(),
        initial,
        violations,
        figures,
        graph,
        fingerprints: std::sync::Arc::new(m.fingerprints),
        set_of: m.set_of,
        sets: Vec::new(),
        elements: Vec::new(),
    })
}

/// The record's states mapped by `ext` from `mo`'s layout to `mn`'s, every recorded step
/// checked to land on its target's image, and every state the change `meets` executed from
/// its image in the new version and from itself in the old, each new successor the image of
/// the old one (`Comparer::same_expansion`); None at the first state or step that does not
/// map or expands otherwise, or when the vectors would pass the memory limit.
fn map(
    (mo, mn): (&Machine, &Machine),
    r: &Record,
    g: &Graph,
    ext: &Extension,
    meets: &dyn Fn(u32) -> bool,
    opts: &Options,
) -> Option<Mapped> {
    let n = g.len();
    let (old_init, new_init) = (initial_canon(mo)?, initial_canon(mn)?);
    let mut comparer = Comparer::default();
    if !expand_alike_early((mo, mn), g, ext, meets, &new_init, &mut comparer, opts) {
        return None;
    }
    let live = live_slots(g)?;
    let old = old_vectors(g, &live)?;
    // The old vectors, their images and the slots' tables, beside the record.
    let held = r.memory() + g.memory() + 3 * old.bytes.len() as u64 + 48 * n as u64;
    if opts.memory_limit.is_some_and(|m| held > m) {
        return None;
    }
    let init_fp = fingerprint(r.meta.layout_hash, &old_init);
    let init_at = r.fingerprints.binary_search(&init_fp).ok()?;
    let init = *g.slot_of.get(init_at)?;
    if old.get(init)? != &old_init[..] {
        return None;
    }
    // Images, from the initial state along the recorded steps. An image is a function of
    // the old vector and its parent's extras (`Extension::extras`), and how it is made, of
    // the old vector's shape and those extras (`EmbedPlan`): each slot keeps the plan its
    // image came from, and a step from a parent with the same extras needs no new look.
    let mut maps = Maps::default();
    let mut new = Vectors {
        bytes: Vec::with_capacity(old.bytes.len() + old.bytes.len() / 4),
        at: vec![(0, 0); n],
    };
    let mut plan_of = vec![NONE; n];
    let mut image = Vec::new();
    let p = maps.plan(ext, g, init, &old_init, &new_init)?;
    if !maps.plans[p as usize].0.apply(&old_init, &mut image) || image != new_init {
        return None;
    }
    put(&mut new, init, &new_init);
    plan_of[init as usize] = p;
    let (mut todo, mut targets, mut blocked) = (vec![init], Vec::new(), Vec::new());
    let mut reached = 1usize;
    let (mut so, mut sn) = (State::default(), State::default());
    let mut checked = 0u64;
    while let Some(s) = todo.pop() {
        // (As it is met: a change that moves some state's successors is found before the
        // rest of the record is mapped for nothing.)
        if meets(s) {
            if !mo.from_canonical(old.get(s)?, &mut so) || !mn.from_canonical(new.get(s)?, &mut sn)
            {
                return None;
            }
            if !comparer.same_expansion(mo, mn, (&so, &sn), Some(ext), opts) {
                return None;
            }
            checked += 1;
        }
        targets.clear();
        for_each_event(g.events_of(s), s, &mut blocked, |ev, _| {
            targets.extend(ev.target());
        })?;
        let extras = maps.extras_of(ext, new.get(s)?)?;
        // (Pushed last first, they are taken first first, as the recording search took
        // them, and the slots keep its order: the old vectors, the events and the images
        // are then read and written nearly in sequence. Pushed first first, the map took
        // 1.8 times as long on the ring_election N=9 bench model.)
        for &k in targets.iter().rev() {
            // (Most targets were reached before, by the same plan: the old vector, a cache
            // miss in a table of the whole record, is read only where it is needed.)
            let p = maps.plan_for(ext, g, k, || old.get(k), extras, new.get(s)?)?;
            if plan_of.get(k as usize) == Some(&p) {
                continue;
            }
            let old_k = old.get(k)?;
            if !maps.plans[p as usize].0.apply(old_k, &mut image) {
                return None;
            }
            match new.get(k) {
                Some(known) if known == &image[..] => {}
                Some(_) => return None,
                None => {
                    put(&mut new, k, &image);
                    plan_of[k as usize] = p;
                    reached += 1;
                    todo.push(k);
                }
            }
        }
    }
    if reached != live.iter().filter(|&&l| l).count() {
        return None;
    }
    let mut mapped = encode(mn, r, g, &live, &new, &plan_of, &mut maps)?;
    mapped.checked = checked;
    Some(mapped)
}

/// How many of the states the change meets `expand_alike_early` looks at.
const EARLY: usize = 1 << 10;

/// Whether the first `EARLY` recorded states the change `meets` (in slot order) seem to
/// expand as they did, each executed from the image it would have under the initial
/// state's extras: most changes that meet states change what some of them do, and this
/// finds one before the record is mapped (the map took 0.3 s on the ring_election N=9
/// bench model, where a changed statement reached late was found 0.1 s later than a replay
/// would start). Only a guess where a state's image takes other extras (the map checks
/// each state with its own image): false gives up a graph that might have held.
#[allow(clippy::too_many_arguments)]
fn expand_alike_early(
    (mo, mn): (&Machine, &Machine),
    g: &Graph,
    ext: &Extension,
    meets: &dyn Fn(u32) -> bool,
    new_init: &[u8],
    comparer: &mut Comparer,
    opts: &Options,
) -> bool {
    let mut slots: Vec<u32> = g.slot_of.iter().copied().filter(|&s| meets(s)).collect();
    slots.sort_unstable();
    slots.truncate(EARLY);
    let (mut dec, mut image) = (SeqDecoder::default(), Vec::new());
    let (mut so, mut sn) = (State::default(), State::default());
    for s in slots {
        let Some(old) = dec.decode(g, s) else {
            return false;
        };
        if !ext.embed(old, new_init, &mut image) {
            // (Not made this way: the map decides.)
            continue;
        }
        if !mo.from_canonical(old, &mut so) || !mn.from_canonical(&image, &mut sn) {
            return false;
        }
        if !comparer.same_expansion(mo, mn, (&so, &sn), Some(ext), opts) {
            return false;
        }
    }
    true
}

/// Extras and embedding plans met so far, interned.
#[derive(Default)]
struct Maps {
    extras: HashMap<Vec<u8>, u32, Xxh3DefaultBuilder>,
    buf: Vec<u8>,
    /// Per (old shape, extras): its plan.
    by_key: HashMap<(u32, u32), u32, Xxh3DefaultBuilder>,
    /// The last (old shape, extras) asked for, and its plan: most steps from a state lead
    /// to states of the same shape.
    last: Option<((u32, u32), u32)>,
    /// Each plan, and the shape and vector length (hidden globals left out) of its images
    /// once known.
    plans: Vec<(EmbedPlan, Option<(u32, u64)>)>,
}

impl Maps {
    /// The id of a new vector's extras.
    fn extras_of(&mut self, ext: &Extension, canon: &[u8]) -> Option<u32> {
        if !ext.extras(canon, &mut self.buf) {
            return None;
        }
        let next = self.extras.len() as u32;
        Some(match self.extras.get(&self.buf) {
            Some(&x) => x,
            None => {
                self.extras.insert(self.buf.clone(), next);
                next
            }
        })
    }

    /// The plan for slot `k` (its old vector `old_k`, read only for a plan not made yet)
    /// under a parent (`parent`, its extras `extras`).
    fn plan_for<'a>(
        &mut self,
        ext: &Extension,
        g: &Graph,
        k: u32,
        old_k: impl FnOnce() -> Option<&'a [u8]>,
        extras: u32,
        parent: &[u8],
    ) -> Option<u32> {
        let key = (*g.shape.get(k as usize)?, extras);
        if let Some((last, p)) = self.last {
            if last == key {
                return Some(p);
            }
        }
        let p = match self.by_key.get(&key) {
            Some(&p) => p,
            None => {
                let p = self.plans.len() as u32;
                self.plans.push((ext.embed_plan(old_k()?, parent)?, None));
                self.by_key.insert(key, p);
                p
            }
        };
        self.last = Some((key, p));
        Some(p)
    }

    /// `plan_for` where the parent's extras are yet to be interned.
    fn plan(
        &mut self,
        ext: &Extension,
        g: &Graph,
        k: u32,
        old_k: &[u8],
        parent: &[u8],
    ) -> Option<u32> {
        let extras = self.extras_of(ext, parent)?;
        self.plan_for(ext, g, k, || Some(old_k), extras, parent)
    }
}

/// Per slot: whether a recorded state is there (slots of states dropped before stay, without
/// a state).
fn live_slots(g: &Graph) -> Option<Vec<bool>> {
    let mut live = vec![false; g.len()];
    for &s in &g.slot_of {
        *live.get_mut(s as usize)? = true;
    }
    Some(live)
}

/// The canonical vector of a machine's initial state.
fn initial_canon(m: &Machine) -> Option<Vec<u8>> {
    let mut c = Vec::new();
    m.canonical(&m.initial().ok()?, &mut c);
    Some(c)
}

/// Every live slot's old canonical vector, decoded in slot order (each on the one before).
fn old_vectors(g: &Graph, live: &[bool]) -> Option<Vectors> {
    let mut out = Vectors {
        bytes: Vec::new(),
        at: vec![(0, 0); g.len()],
    };
    let mut dec = SeqDecoder::default();
    for s in (0..g.len() as u32).filter(|&s| live[s as usize]) {
        let canon = dec.decode(g, s).filter(|c| !c.is_empty())?;
        put(&mut out, s, canon);
    }
    Some(out)
}

fn put(v: &mut Vectors, slot: u32, canon: &[u8]) {
    v.at[slot as usize] = (v.bytes.len(), canon.len());
    v.bytes.extend_from_slice(canon);
}

/// The graph's vector tables for the images `new` (each on the live slot before it, a chain
/// of at most `CHAIN`, as a recording run writes them), their shapes and pan's sizes, and
/// the states in the order of their fingerprints in `mn`'s layout.
fn encode(
    mn: &Machine,
    r: &Record,
    g: &Graph,
    live: &[bool],
    new: &Vectors,
    plan_of: &[u32],
    maps: &mut Maps,
) -> Option<Mapped> {
    let n = g.len();
    let first = live.iter().position(|&l| l)? as u32;
    let reference = new.get(first)?.to_vec();
    let (mut vectors, mut scratch, mut tags) = (Vec::new(), Vec::new(), Vec::new());
    let mut vec = Spans::default();
    let mut shape = vec![0u32; n];
    let mut shapes: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut shape_ids: HashMap<(u32, Vec<u8>), u32> = HashMap::new();
    let mut fp_of_slot = vec![Fingerprint::default(); n];
    let mut st = State::default();
    let (mut prev, mut chain) = (None::<u32>, 0u32);
    let mut vector_bytes = 0u64;
    let hidden = mn.layout.hidden_size as u64;
    for s in 0..n as u32 {
        let at = vectors.len();
        let Some(canon) = new.get(s) else {
            vec.push((at as u64, 0))?;
            continue;
        };
        let back = match prev {
            Some(p) if chain + 1 < CHAIN => s - p,
            _ => 0,
        };
        let base = match back {
            0 => &reference[..],
            _ => new.get(s - back)?,
        };
        encode_vector(back, base, canon, &mut scratch, &mut vectors);
        chain = if back == 0 { 0 } else { chain + 1 };
        prev = Some(s);
        vec.push((at as u64, (vectors.len() - at) as u32))?;
        // An image's shape is its plan's (the old shape's, with the parent's extras).
        let plan = &mut maps.plans.get_mut(*plan_of.get(s as usize)? as usize)?.1;
        let (sh, len) = match *plan {
            Some(known) => known,
            None => {
                if !mn.from_canonical(canon, &mut st) {
                    return None;
                }
                st.tags(&mut tags);
                let key = (canon.len() as u32, std::mem::take(&mut tags));
                let sh = match shape_ids.get(&key) {
                    Some(&x) => x,
                    None => {
                        let x = shapes.len() as u32;
                        shapes.push(key.clone());
                        shape_ids.insert(key, x);
                        x
                    }
                };
                *plan = Some((sh, (st.v.len() as u64).saturating_sub(hidden)));
                (sh, (st.v.len() as u64).saturating_sub(hidden))
            }
        };
        shape[s as usize] = sh;
        vector_bytes = vector_bytes.max(len);
        fp_of_slot[s as usize] = fingerprint(mn.layout.hash, canon);
    }
    let mut pan_vector_bytes = 0;
    for (_, t) in &shapes {
        pan_vector_bytes = pan_vector_bytes.max(mn.pan_of_tags(t)?);
    }
    // Every image came from a plan for its old shape, which gave it its new shape.
    let mut pairs: Vec<(u32, u32)> = maps
        .by_key
        .iter()
        .filter_map(|(&(old_shape, _), &p)| Some((old_shape, maps.plans.get(p as usize)?.1?.0)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    // (fingerprint, slot, set), in the new fingerprints' order.
    let mut states: Vec<(Fingerprint, u32, u32)> = g
        .slot_of
        .iter()
        .zip(&r.set_of)
        .map(|(&s, &set)| (fp_of_slot[s as usize], s, set))
        .collect();
    if states.len() != r.set_of.len() || states.iter().any(|x| x.1 == NONE) {
        return None;
    }
    states.sort_unstable_by_key(|x| x.0);
    if states.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    Some(Mapped {
        reference,
        vectors,
        vec,
        shapes,
        shape,
        fingerprints: states.iter().map(|x| x.0).collect(),
        slot_of: states.iter().map(|x| x.1).collect(),
        set_of: states.iter().map(|x| x.2).collect(),
        vector_bytes,
        pan_vector_bytes,
        pairs,
        checked: 0,
    })
}

/// How a claim's product figures move across the map, when the graph is kept with its
/// vectors mapped: (pan's State-vector, git rmc's vector bytes) of the new version less the
/// old one's, when that difference is the same for every recorded state (`pairs`: the
/// shapes of the recorded states and of their images, `Unchanged::shape_pairs`), as the
/// claim's product machine in each version lays a state out. The product visits states of
/// the safety graph, each with the claim's location beside it, so its largest vectors then
/// move by exactly that much; None when the difference varies (a proctype's locals
/// changed, say: it grows with the processes of that proctype) or the claim is not in
/// both versions.
pub fn claim_shift(
    old: &Program,
    new: &Program,
    claim: &str,
    pairs: &[(Shape, Shape)],
) -> Option<(i64, i64)> {
    let index = |p: &Program| {
        p.procs.iter().position(|q| {
            q.kind == crate::program::ProcKind::Never && q.name == claim && q.locals.is_empty()
        })
    };
    let mo = Machine::with_claim(old, index(old)?).ok()?;
    let mn = Machine::with_claim(new, index(new)?).ok()?;
    // git rmc's vector of a product state, as the figures count it (hidden globals left
    // out).
    let len = |m: &Machine, (canon, tags): &Shape| {
        m.vector_len_of(*canon as u64, tags) as i64 - m.layout.hidden_size as i64
    };
    let mut shift = None;
    for (o, n) in pairs {
        let pan = mn.pan_of_tags(&n.1)? as i64 - mo.pan_of_tags(&o.1)? as i64;
        let d = (pan, len(&mn, n) - len(&mo, o));
        match shift {
            None => shift = Some(d),
            Some(s) if s == d => {}
            Some(_) => return None,
        }
    }
    shift
}
