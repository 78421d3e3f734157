//! Coverage elements and interned sets of them (DESIGN.md 5.1). An element is a location by
//! stable id, or a violation: an edge-based one as (kind, stable location, edge index there),
//! an invalid end state as the stable locations of its blocked processes in pid order. Sets
//! are interned: many states share one, and a state keeps only its set's id.

use std::collections::HashMap;

use crate::explore::ViolationKind;

/// A coverage element.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Element {
    Location(u32),
    Violation {
        kind: ViolationKind,
        at: u32,
        edge: u32,
    },
    End(Vec<u32>),
}

impl Element {
    /// The stable locations the element names.
    pub fn locations(&self) -> &[u32] {
        match self {
            Element::Location(l) => std::slice::from_ref(l),
            Element::Violation { at, .. } => std::slice::from_ref(at),
            Element::End(ls) => ls,
        }
    }

    pub fn is_violation(&self) -> bool {
        !matches!(self, Element::Location(_))
    }
}

/// Elements numbered in order of first appearance (dense ids for bitsets).
#[derive(Clone, Debug, Default)]
pub struct ElementTable {
    pub list: Vec<Element>,
    index: HashMap<Element, u32>,
    /// Fast path for locations: stable id → element id (u32::MAX: none yet).
    locs: Vec<u32>,
}

impl ElementTable {
    pub fn id(&mut self, e: &Element) -> u32 {
        if let Element::Location(l) = e {
            if let Some(&x) = self.locs.get(*l as usize) {
                if x != u32::MAX {
                    return x;
                }
            }
        }
        if let Some(&x) = self.index.get(e) {
            return x;
        }
        let x = self.list.len() as u32;
        self.list.push(e.clone());
        self.index.insert(e.clone(), x);
        if let Element::Location(l) = e {
            let l = *l as usize;
            if self.locs.len() <= l {
                self.locs.resize(l + 1, u32::MAX);
            }
            self.locs[l] = x;
        }
        x
    }

    /// The element id of a location, interning it when new.
    #[inline]
    pub fn location(&mut self, stable: u32) -> u32 {
        match self.locs.get(stable as usize) {
            Some(&x) if x != u32::MAX => x,
            _ => self.id(&Element::Location(stable)),
        }
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Interned sets of element ids, each kept sorted.
#[derive(Clone, Debug, Default)]
pub struct SetTable {
    pub sets: Vec<Vec<u32>>,
    index: HashMap<Vec<u32>, u32>,
}

impl SetTable {
    /// The id of a sorted set of element ids.
    pub fn intern(&mut self, set: &[u32]) -> u32 {
        if let Some(&x) = self.index.get(set) {
            return x;
        }
        let x = self.sets.len() as u32;
        self.sets.push(set.to_vec());
        self.index.insert(set.to_vec(), x);
        x
    }

    pub fn get(&self, id: u32) -> &[u32] {
        &self.sets[id as usize]
    }

    pub fn len(&self) -> usize {
        self.sets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// Bytes held (for the memory budget's sake, roughly).
    pub fn memory(&self) -> u64 {
        self.sets.iter().map(|s| SetTable::held(s.len())).sum()
    }

    /// Bytes one set of `n` elements holds here (its list and its index key).
    pub fn held(n: usize) -> u64 {
        2 * (n as u64 * 4 + 48)
    }
}
