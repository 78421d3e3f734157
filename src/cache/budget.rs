//! The size budget: which records to delete so that the rest fit, least recently used first,
//! never one that is needed (a branch tip's, in any clone that uses the store) nor the base
//! another kept record stands on. A pure plan over a list, so that it is tested without
//! files; `Cache::enforce_budget` lists the records and deletes what the plan says.

use std::time::SystemTime;

/// One record file as the plan sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Item {
    pub bytes: u64,
    /// When it was last read or written (its modification time, which a read refreshes).
    pub used: Option<SystemTime>,
    /// A branch tip needs it.
    pub needed: bool,
    /// It may be deleted now (a record in a store another run is using may not).
    pub droppable: bool,
    /// The item it stands on (its base, in the same folder), if any.
    pub base: Option<usize>,
    /// It stands on a base that is gone: it cannot be read, so it goes first.
    pub orphan: bool,
}

/// How many base links a chain is followed (a record stands on at most a few; a cycle, which
/// only a damaged folder could hold, stops here).
const MAX_CHAIN: usize = 64;

/// The items to delete, in order, so that the others weigh at most `max` bytes, or as close
/// to it as the needed ones allow: the least recently used first, where a base counts as used
/// when any record standing on it was; a base only after every record standing on it.
pub(super) fn plan(items: &[Item], max: u64) -> Vec<usize> {
    let n = items.len();
    let mut total: u64 = items.iter().map(|i| i.bytes).sum();
    if total <= max {
        return Vec::new();
    }
    // A needed record keeps its base, and that one its own.
    let mut keep: Vec<bool> = items.iter().map(|i| i.needed || !i.droppable).collect();
    let mut used: Vec<Option<SystemTime>> = items
        .iter()
        .map(|i| if i.orphan { None } else { i.used })
        .collect();
    let mut dependents = vec![0usize; n];
    for (i, item) in items.iter().enumerate() {
        if let Some(b) = item.base.filter(|&b| b < n) {
            dependents[b] += 1;
        }
        let mut at = i;
        for _ in 0..MAX_CHAIN {
            let Some(b) = items[at].base.filter(|&b| b < n && b != i) else {
                break;
            };
            if keep[i] {
                keep[b] = true;
            }
            if used[b] < used[i] {
                used[b] = used[i];
            }
            at = b;
        }
    }
    let mut dropped = Vec::new();
    let mut gone = vec![false; n];
    while total > max {
        let next = (0..n)
            .filter(|&i| !gone[i] && !keep[i] && dependents[i] == 0)
            .min_by_key(|&i| (used[i], i));
        let Some(i) = next else {
            break;
        };
        gone[i] = true;
        total -= items[i].bytes;
        dropped.push(i);
        if let Some(b) = items[i].base.filter(|&b| b < n) {
            dependents[b] -= 1;
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn item(bytes: u64, minute: u64) -> Item {
        Item {
            bytes,
            used: Some(UNIX_EPOCH + Duration::from_secs(60 * minute)),
            needed: false,
            droppable: true,
            base: None,
            orphan: false,
        }
    }

    #[test]
    fn under_the_budget_nothing_goes() {
        assert!(plan(&[item(10, 1), item(20, 2)], 30).is_empty());
        assert!(plan(&[], 0).is_empty());
    }

    #[test]
    fn the_least_recently_used_go_first_until_the_rest_fit() {
        let items = [item(10, 3), item(10, 1), item(10, 4), item(10, 2)];
        assert_eq!(plan(&items, 25), [1, 3]);
        assert_eq!(plan(&items, 0), [1, 3, 0, 2]);
    }

    #[test]
    fn needed_records_and_their_bases_stay() {
        // 2 stands on 1, which stands on 0; 2 is needed, so the chain stays.
        let mut items = vec![item(10, 1), item(10, 2), item(10, 3), item(10, 9)];
        items[1].base = Some(0);
        items[2].base = Some(1);
        items[2].needed = true;
        assert_eq!(plan(&items, 0), [3]);
        // A record another run may be reading is not deleted either.
        items[2].needed = false;
        items[3].droppable = false;
        assert_eq!(plan(&items, 10), [2, 1, 0]);
    }

    #[test]
    fn a_base_counts_as_used_when_a_record_on_it_was_and_goes_after_it() {
        // 0 is old but 1, used last, stands on it: 2 goes first, then 1, then 0.
        let mut items = vec![item(10, 1), item(10, 9), item(10, 5)];
        items[1].base = Some(0);
        assert_eq!(plan(&items, 20), [2]);
        assert_eq!(plan(&items, 0), [2, 1, 0]);
    }

    #[test]
    fn a_record_whose_base_is_gone_goes_first() {
        let mut items = vec![item(10, 1), item(10, 9)];
        items[1].orphan = true;
        assert_eq!(plan(&items, 10), [1]);
    }

    #[test]
    fn a_cycle_of_bases_stops_nothing_else() {
        let mut items = vec![item(10, 1), item(10, 2), item(10, 3)];
        items[0].base = Some(1);
        items[1].base = Some(0);
        assert_eq!(plan(&items, 0), [2]);
    }
}
