//! A never claim's product whose system moves come from the recorded state graph of the
//! same version's safety check (DESIGN.md 5.4, docs/regression.md "Claims over the safety
//! check's graph"), or without a claim pan -a's search for cycles through the processes'
//! accept labels over that graph: the `Rider` that hands the product search each system
//! turn's recorded expansion and builds the product states the search enters. The claim's
//! own moves are executed; the system's are read. The product search stays the one search
//! (`explore::search::product`); only its system turn reads.
//!
//! Why the product is the one a search that executes the system makes: the system's moves
//! from a state are a function of the state (no hidden variables), and the safety check's
//! expansion of a state is those moves in the search's order, atomic runs followed inside
//! it, the same order a product's system turn takes them in, since the claim does not move
//! inside an atomic run. A product state is (system state, claim location); its system
//! state is a recorded state because every state the product reaches is reachable by the
//! system alone. The pass with `timeout` true is the claim's to allow: a turn reads the
//! recorded one only when the claim's turn before it allowed `timeout`. What the product
//! adds to a system turn beyond that (the claim counted in `_nr_pr`, `timeout` kept inside
//! an atomic run that a timeout move began) is left out: such models are searched.

use crate::explore::event::{End, Event, To};
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::search::Rider;
use crate::explore::state::State;
use crate::explore::Options;
use crate::program::Program;
use crate::rmc::record::graph::{decode_event, edge_map, group_header, Graph, SeqDecoder, NONE};
use crate::rmc::record::Record;

/// Where the reading of one system turn stands.
#[derive(Clone, Copy, Debug)]
struct Turn {
    slot: u32,
    at: usize,
    /// The end of the group being read (its events lie up to there), if any.
    group_end: Option<usize>,
    /// The first pass's end was told (`Event::Group` without a pid).
    passed: bool,
    /// Where the pass with `timeout` true begins, once `passed`.
    tail_at: usize,
    /// The claim allowed `timeout` in this turn.
    timeout: bool,
}

/// The rider of a claim's product over a recorded system graph.
pub struct ProductReplay<'g> {
    graph: &'g Graph,
    /// The graph's edge table in the product machine's edges.
    edges: Vec<EdgeNo>,
    /// The initial state's slot.
    initial: u32,
    /// Where the claim's location goes in a canonical vector (None: -a without a claim,
    /// whose product states are the system's), and its width.
    claim_at: Option<usize>,
    lw: usize,
    turns: Vec<Turn>,
    decoder: SeqDecoder,
    canon: Vec<u8>,
    blocked: Vec<(u32, u32)>,
    failed: bool,
    /// The record holds a move this rider does not hand over, or the search met what it
    /// cannot follow over the graph (`gave_up`).
    gave_up: bool,
    /// Each group's marker is told as the group begins (weak fairness announces the
    /// processes a turn tries).
    markers: bool,
}

/// Whether a record of the safety check on machine `safety` (no claim) could stand for the
/// system in a claim's product checked with `opts`: what `ProductReplay::new` asks of the
/// model and the options, known before any search (the record's own parts are asked of it
/// then).
pub fn may_serve(safety: &Machine, opts: &Options) -> bool {
    let followable = || crate::explore::search::acceptors::followable(safety.prog);
    // Weak fairness counts the processes each move leaves (followed as accept labels are)
    // and tries every process in turn, which a `provided` clause can skip unrecorded.
    let fair = || followable() && safety.prog.procs.iter().all(|p| p.provided.is_none());
    (!opts.fair || fair())
        && !safety.prog.uses_nr_pr()
        && safety.layout.hidden_size == 0
        && (!safety.system_accepts || followable())
        && !safety.layout.uses_priority
        && safety.trace.is_none()
}

impl<'g> ProductReplay<'g> {
    /// The rider for the product machine `m` (a never claim's) over `record`, the record of
    /// this very version's safety check (its program with the record's stable ids), with
    /// `opts` the claim check's options. None where the record cannot stand for the system:
    /// no whole state graph of every reachable state, another layout, another set of
    /// checks, or a model whose system turn the claim can change (`_nr_pr`, which counts
    /// the claim), whose moves depend on more than the state (hidden variables), or whose
    /// product bookkeeping follows what the record does not say (priorities, an event
    /// trace; accept labels in proctypes and weak fairness's processes are followed
    /// through each turn, `explore::search::acceptors` and `fair_graph`, unless a `d_step`
    /// runs processes or, under weak fairness, a `provided` clause skips one).
    ///
    /// Without a claim (`m` the safety machine, `opts.acceptance`), the product is the
    /// search for cycles through the processes' accept labels (pan -a built without one),
    /// whose states are the system's.
    ///
    /// `system` is the program the record was made from: `m`'s own, or the same model with
    /// other never claims (the search for non-progress cycles, whose claim takes the place
    /// of the model's), whose system layout must then be `m`'s.
    pub fn new(
        m: &Machine,
        system: &Program,
        record: &'g Record,
        opts: &Options,
    ) -> Option<ProductReplay<'g>> {
        let claim = m.claim.as_ref();
        if claim.is_none() && !(opts.acceptance && m.system_accepts) {
            return None;
        }
        let graph = record.graph.as_ref()?;
        let own = Machine::new(m.prog).ok()?;
        // The record's own machine, where its layout is not `m`'s (other never claims).
        let recorded = match record.meta.layout_hash == own.layout.hash {
            true => None,
            false => Some(Machine::new(system).ok()?),
        };
        let safety = recorded.as_ref().unwrap_or(&own);
        let same_system = recorded
            .as_ref()
            .is_none_or(|r| r.layout.system_hash(system) == own.layout.system_hash(m.prog));
        let figure = |k: &str| record.meta.figures.get(k).and_then(|v| v.as_u64());
        let whole = figure("states_pruned") == Some(0)
            && figure("states_stored") == Some(record.fingerprints.len() as u64)
            && graph.slot_of.len() == record.fingerprints.len()
            && graph
                .slot_of
                .iter()
                .all(|&s| s != NONE && (s as usize) < graph.len());
        let plain = may_serve(&own, opts) && m.layout.hidden_size == 0;
        let fits = record.meta.layout_hash == safety.layout.hash
            && same_system
            && record.meta.checks == crate::rmc::check::checks_of(opts)
            && claim.is_none_or(|_| m.layout.claim_at == Some(own.layout.records_at));
        // Product states are keyed slot × claim locations + location, and the search keeps
        // a search id per key: 4 bytes each, within a quarter of the memory limit.
        let locs = claim.map_or(1, |c| m.prog.procs[c.proc].automaton.locations.len() as u64);
        let keys = graph.len() as u64 * locs;
        let small = keys < u64::from(u32::MAX)
            && opts.memory_limit.is_none_or(|limit| keys * 4 <= limit / 4);
        if !(whole && plain && fits && small) {
            return None;
        }
        let initial = safety.initial().ok()?;
        let fp = safety.fingerprint(&initial);
        let at = record.fingerprints.binary_search(&fp).ok()?;
        let initial = *graph.slot_of.get(at)?;
        Some(ProductReplay {
            graph,
            edges: edge_map(m, &graph.edges),
            initial,
            claim_at: claim.map(|_| safety.layout.records_at as usize),
            lw: m.layout.loc_width as usize,
            turns: Vec::new(),
            decoder: SeqDecoder::default(),
            canon: Vec::new(),
            blocked: Vec::new(),
            failed: false,
            gave_up: false,
            markers: opts.fair,
        })
    }

    /// The product met a move of the system this rider does not hand over: an atomic run
    /// begun by a move only `timeout` allowed. The safety check followed that run without
    /// `timeout`, where the product keeps it, so the record may not be the product's
    /// there: the claim is searched instead (`check_claim_over` says None).
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }
}

impl Rider for ProductReplay<'_> {
    fn system_graph(&self) -> Option<u32> {
        Some(self.initial)
    }

    fn open_system(&mut self, slot: u32, timeout: bool) {
        if (slot as usize) >= self.graph.len() {
            self.failed = true;
        }
        self.turns.push(Turn {
            slot,
            at: 0,
            group_end: None,
            passed: false,
            tail_at: 0,
            timeout,
        });
    }

    fn close_system(&mut self) {
        self.turns.pop();
    }

    fn restart_system(&mut self, tail: bool) {
        if let Some(t) = self.turns.last_mut() {
            t.group_end = None;
            match tail && t.passed {
                true => t.at = t.tail_at,
                false => (t.at, t.passed) = (0, false),
            }
        }
    }

    fn skip_run(&mut self) {
        let Some(t) = self.turns.last_mut() else {
            return;
        };
        let b = self.graph.events_of(t.slot);
        let edges = &self.edges;
        // The run's states' events follow the step inline, each up to its end, runs
        // within it nested the same way.
        let mut open = 1usize;
        while open > 0 {
            let ev = decode_event(b, t.slot, &mut t.at, &mut self.blocked, |e| {
                edges.get(e as usize).copied().filter(|&x| x != NONE)
            });
            match ev {
                Some(Event::Step { to: To::Atomic, .. }) => open += 1,
                Some(Event::End(_)) => open -= 1,
                Some(_) => {}
                None => {
                    self.failed = true;
                    return;
                }
            }
        }
    }

    fn skip_group(&mut self) {
        if let Some(t) = self.turns.last_mut() {
            t.at = t.group_end.unwrap_or(t.at);
        }
    }

    fn give_up(&mut self) {
        self.gave_up = true;
    }

    fn system_event(&mut self) -> Option<Event> {
        let t = self.turns.last_mut()?;
        let b = self.graph.events_of(t.slot);
        // The first pass over the processes is written as groups, one per process that
        // did something; what follows the last one (or everything, when none did) is the
        // pass with `timeout` true, and the end.
        loop {
            if !t.passed && t.group_end.is_none_or(|e| e == t.at) {
                match group_header(b, t.at) {
                    Some((pid, _, _, start, end)) => {
                        t.at = start;
                        t.group_end = Some(end);
                        if self.markers {
                            return Some(Event::Group {
                                pid: Some(pid),
                                foot: NONE,
                                rv: false,
                                at: NONE,
                            });
                        }
                        continue;
                    }
                    None => {
                        t.passed = true;
                        t.tail_at = t.at;
                        t.group_end = None;
                        return Some(Event::Group {
                            pid: None,
                            foot: NONE,
                            rv: false,
                            at: NONE,
                        });
                    }
                }
            }
            break;
        }
        let (slot, timeout) = (t.slot, t.timeout && t.passed);
        let edges = &self.edges;
        let ev = decode_event(b, slot, &mut t.at, &mut self.blocked, |e| {
            edges.get(e as usize).copied().filter(|&x| x != NONE)
        });
        if ev.is_none() {
            self.failed = true;
        }
        let atomic = matches!(
            ev,
            Some(Event::Step {
                to: To::Atomic | To::Repeat,
                ..
            }) | Some(Event::End(End::Stored(_)))
        );
        if timeout && atomic {
            self.gave_up = true;
            return None;
        }
        ev
    }

    fn build_product(&mut self, m: &Machine, slot: u32, claim_loc: u32, out: &mut State) -> bool {
        let Some(canon) = self.decoder.decode(self.graph, slot) else {
            self.failed = true;
            return false;
        };
        self.canon.clear();
        match self.claim_at {
            Some(at) => {
                let Some(head) = canon.get(..at) else {
                    self.failed = true;
                    return false;
                };
                self.canon.extend_from_slice(head);
                self.canon
                    .extend_from_slice(&claim_loc.to_le_bytes()[..self.lw]);
                self.canon.extend_from_slice(&canon[at..]);
            }
            None => self.canon.extend_from_slice(canon),
        }
        let ok = m.from_canonical(&self.canon, out);
        self.failed |= !ok;
        ok
    }

    fn failed(&self) -> bool {
        self.failed
    }
}
