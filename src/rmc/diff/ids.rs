//! Stable location ids: the table that gives each location of a program the id it keeps from
//! version to version. The lowering numbers locations by position; a recording run keeps
//! those numbers, and every later version takes the ids the impact analysis carries over
//! (paired locations keep the old id, new ones get fresh ids that were never used before).

use std::collections::HashMap;

use crate::program::{LocId, Program};

/// From positional ids (as `program::build` numbers them) to stable ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StableIds {
    /// (positional id, stable id), sorted by positional id.
    pub pairs: Vec<(u32, u32)>,
    /// The first id never given to any location of this model's history.
    pub next_free: u32,
}

impl StableIds {
    /// The table of a first version: every location keeps its positional id.
    pub fn identity(p: &Program) -> StableIds {
        let mut pairs: Vec<(u32, u32)> = p.location_ids().map(|l| (l.0, l.0)).collect();
        pairs.sort_unstable();
        let next_free = pairs.iter().map(|&(_, s)| s + 1).max().unwrap_or(0);
        StableIds { pairs, next_free }
    }

    pub fn get(&self, positional: LocId) -> Option<LocId> {
        self.pairs
            .binary_search_by_key(&positional.0, |&(p, _)| p)
            .ok()
            .map(|i| LocId(self.pairs[i].1))
    }

    /// Gives a program (numbered by position) its stable ids. Fails when the table does not
    /// cover the program (it was made for other sources).
    pub fn apply(&self, p: &mut Program) -> Result<(), MissingId> {
        let map: HashMap<u32, u32> = self.pairs.iter().copied().collect();
        if let Some(l) = p.location_ids().find(|l| !map.contains_key(&l.0)) {
            return Err(MissingId(l.0));
        }
        p.remap_locations(&|l| LocId(map.get(&l.0).copied().unwrap_or(l.0)));
        Ok(())
    }
}

/// Gives `p`, a program of the same sources as `from` with other never claims (the claim
/// of a search for non-progress cycles in place of the model's own), the stable ids of
/// `from`: each process type's locations take those of the same-named one in `from`, by
/// position (both are lowered from the same text), and the never claims ids no location of
/// `from` has. False (and `p` unchanged) where a process type of `p` has no counterpart of
/// the same shape in `from`.
pub fn adopt_system_ids(p: &mut Program, from: &Program) -> bool {
    use crate::program::ProcKind;
    let mut next = from.location_ids().map(|l| l.0 + 1).max().unwrap_or(0);
    let mut map = HashMap::new();
    for proc in &p.procs {
        let locs = &proc.automaton.locations;
        if proc.kind == ProcKind::Never {
            for l in locs {
                map.insert(l.id.0, next);
                next += 1;
            }
            continue;
        }
        let Some(twin) = from
            .procs
            .iter()
            .find(|q| q.name == proc.name && q.kind == proc.kind)
            .map(|q| &q.automaton.locations)
            .filter(|q| q.len() == locs.len())
        else {
            return false;
        };
        for (l, t) in locs.iter().zip(twin) {
            map.insert(l.id.0, t.id.0);
        }
    }
    p.remap_locations(&|l| LocId(map.get(&l.0).copied().unwrap_or(l.0)));
    true
}

/// A location the table has no stable id for.
#[derive(Debug, thiserror::Error)]
#[error("the stable-id table has no entry for location {0}")]
pub struct MissingId(pub u32);
