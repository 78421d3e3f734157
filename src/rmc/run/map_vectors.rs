//! Walked states' new vectors across a declaration change, made where the book is (on its
//! thread, when it has one). The search's thread names a walked state by its (slot, extras)
//! pair (`run::map_keys`) and needs nothing else of it; the next record needs its vector in
//! the new layout, its tags and its fingerprint, which cost the search's thread a decode, an
//! embedding and a hash per walked state. So the search hands the book the pair (and each
//! extras id's parent vector once, as it interns it), and the book makes them here, with the
//! same embedding the search would have used (`Embedder`): the record is the same byte for
//! byte. Only pairs whose embedding cannot fail are handed over (`EmbedPlan::total`): where
//! a value may not fit its new type, the search's thread embeds the state itself, as a
//! state whose image is undefined must stop the walk there.

use std::collections::HashMap;
use std::sync::Arc;

use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use crate::explore::machine::Machine;
use crate::explore::state::State;
use crate::explore::Fingerprint;
use crate::rmc::diff::extension::Extension;
use crate::rmc::record::graph::Graph;
use crate::rmc::run::map_keys::Embedder;

/// What the book needs to make a walked state's vector from its pair.
pub struct MapVectors {
    graph: Arc<Graph>,
    ext: Extension,
    /// Per extras id, the parent vector the search interned it with, in order.
    parents: Vec<Vec<u8>>,
    emb: Embedder,
    /// Per (recorded shape, extras id): the new vector's tags (a function of the pair), and
    /// the pair asked for last with its tags' index.
    tags: HashMap<(u32, u32), usize, Xxh3DefaultBuilder>,
    tag_list: Vec<Vec<u8>>,
    last: Option<((u32, u32), usize)>,
    state: State,
    held: u64,
}

impl MapVectors {
    pub fn new(graph: Arc<Graph>, ext: Extension) -> MapVectors {
        MapVectors {
            graph,
            ext,
            parents: Vec::new(),
            emb: Embedder::default(),
            tags: HashMap::default(),
            tag_list: Vec::new(),
            last: None,
            state: State::default(),
            held: 0,
        }
    }

    /// Heap bytes held (the parents and tags; the graph is the replay's).
    pub fn memory(&self) -> u64 {
        self.held
    }

    /// The recorded events of `slot` (a walked state's, written again with some targets
    /// renamed: `GraphBuilder::rewrite_top`).
    pub fn events_of(&self, slot: u32) -> &[u8] {
        self.graph.events_of(slot)
    }

    /// The next extras id's parent vector. False: out of order.
    pub fn parent(&mut self, ctx: u32, canon: &[u8]) -> bool {
        if ctx as usize != self.parents.len() {
            return false;
        }
        self.held += canon.len() as u64 + 24;
        self.parents.push(canon.to_vec());
        true
    }

    /// The new canonical vector, tags and fingerprint of the state (`slot`, `ctx`) names
    /// (None: the record does not embed, which the search ruled out).
    pub fn make(
        &mut self,
        m: &Machine,
        slot: u32,
        ctx: u32,
    ) -> Option<(&[u8], &[u8], Fingerprint)> {
        let shape = *self.graph.shape.get(slot as usize)?;
        let parent = self.parents.get(ctx as usize)?;
        let canon = self.emb.embed(&self.graph, &self.ext, parent, slot, ctx)?;
        let i = match self.last {
            Some((p, i)) if p == (shape, ctx) => i,
            _ => {
                let i = match self.tags.get(&(shape, ctx)) {
                    Some(&i) => i,
                    None => {
                        if !m.from_canonical(canon, &mut self.state) {
                            return None;
                        }
                        let mut t = Vec::new();
                        self.state.tags(&mut t);
                        self.held += t.len() as u64 + 48;
                        self.tag_list.push(t);
                        self.tags.insert((shape, ctx), self.tag_list.len() - 1);
                        self.tag_list.len() - 1
                    }
                };
                self.last = Some(((shape, ctx), i));
                i
            }
        };
        let fp = crate::explore::store::fingerprint(m.layout.hash, canon);
        Some((canon, &self.tag_list[i], fp))
    }
}
