//! How a recorded graph names edges across versions: by (stable location, edge index
//! there), so that renumbered code keeps them; the table a run builds as it records
//! (`EdgeTable`), and the map back to a machine's edges (`edge_map`).

use crate::explore::machine::{EdgeNo, Machine};

use super::graph::NONE;

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
    pub fn of(&mut self, m: &impl StableNames, no: EdgeNo) -> u32 {
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

/// The stable names a graph is written in: an edge as (stable id of its location, its index
/// there), a location (proctype, index) by its stable id. A `Machine` has them; `Names` is
/// a copy of them that another thread can hold.
pub trait StableNames {
    fn edge_at(&self, no: EdgeNo) -> (u32, u32);
    fn loc_id(&self, proc: usize, loc: u32) -> u32;
}

impl StableNames for Machine<'_> {
    fn edge_at(&self, no: EdgeNo) -> (u32, u32) {
        Machine::edge_at(self, no)
    }
    fn loc_id(&self, proc: usize, loc: u32) -> u32 {
        self.prog.procs[proc].automaton.locations[loc as usize].id.0
    }
}

/// A machine's stable names, copied out of it.
pub struct Names {
    edges: Vec<(u32, u32)>,
    locs: Vec<Vec<u32>>,
}

impl Names {
    pub fn of(m: &Machine) -> Names {
        Names {
            edges: (0..m.edges.len() as EdgeNo)
                .map(|no| m.edge_at(no))
                .collect(),
            locs: m
                .prog
                .procs
                .iter()
                .map(|p| p.automaton.locations.iter().map(|l| l.id.0).collect())
                .collect(),
        }
    }
}

impl StableNames for Names {
    fn edge_at(&self, no: EdgeNo) -> (u32, u32) {
        self.edges.get(no as usize).copied().unwrap_or((NONE, NONE))
    }
    fn loc_id(&self, proc: usize, loc: u32) -> u32 {
        self.locs
            .get(proc)
            .and_then(|l| l.get(loc as usize))
            .copied()
            .unwrap_or(NONE)
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
