//! The engine's one stable sort.
//!
//! `slice::sort_by` is generic over the element and the comparator, so each
//! call site carries its own copy of the sort (about 4 KB of wasm each, and
//! the page has a size budget). Here the sort runs once, on positions, through
//! a comparator object, and the elements are then moved into place: the same
//! result as `sort_by` (ties keep their order), with one copy of the sort.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// `iter.collect::<BTreeMap<_, _>>()` without its bulk build, which first
/// sorts the items with the stable sort (one more copy of it per key type):
/// inserted one by one, the last value of a key wins, as it does there.
pub(crate) fn btree_map<K: Ord, V>(iter: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(iter);
    map
}

/// `iter.collect::<BTreeSet<_>>()`, inserted one by one (see [`btree_map`]).
pub(crate) fn btree_set<T: Ord>(iter: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(iter);
    set
}

/// Sorts `items` by `cmp`, stably: what `items.sort_by(cmp)` gives.
pub(crate) fn sort_stable_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let order = stable_order(items.len(), &|a, b| cmp(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts partition numbers or broker ids ascending: what `items.sort_unstable()`
/// gives (equal numbers are alike, so stability is moot), through the one sort
/// instead of a copy of the standard library's unstable sort.
pub(crate) fn sort_ids(items: &mut [u32]) {
    sort_stable_by(items, Ord::cmp);
}

/// Sorts `items` by `key`, stably: what `items.sort_by_key(key)` gives.
pub(crate) fn sort_stable_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_stable_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The positions `0..n` sorted stably by `cmp`.
fn stable_order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Rearranges `items` so that position `i` holds what was at `order[i]`,
/// following each cycle of the permutation once (a position is marked done
/// by pointing it at itself).
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    assert_eq!(order.len(), items.len(), "one position per item");
    for start in 0..items.len() {
        let mut i = start;
        while order[i] != i {
            let source = order[i];
            order[i] = i;
            if source == start {
                break;
            }
            items.swap(i, source);
            i = source;
        }
    }
    debug_assert!(order.iter().enumerate().all(|(i, &o)| i == o), "every position placed");
}

// proptest is a native dev-dependency.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard library's stable sort, ties included.
        #[test]
        fn same_as_sort_by(items in proptest::collection::vec((0u8..4, any::<u16>()), 0..64)) {
            let mut ours = items.clone();
            let mut std_sorted = items;
            sort_stable_by_key(&mut ours, |&(k, _)| k);
            std_sorted.sort_by_key(|&(k, _)| k);
            prop_assert_eq!(ours, std_sorted);
        }
    }
}
