//! One sort for the simulation's own code: sim.rs and describe.rs call it,
//! the rest of the engine uses the standard sorts. It gives the order the
//! standard stable sort gives (tested below), so either may be used.
//!
//! Why it exists: it was written to keep the standard sorts, instantiated per
//! element type and per comparator, out of a page size budget that has since
//! grown (400,000 bytes gzip of wasm + js). One small merge sort over indices
//! with a `dyn` comparator; only the thin wrappers and the permutation are
//! generic. `map_from` builds a `BTreeMap` by insertion, as `collect()` would,
//! without its sort.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The permutation that sorts `len` items: `order[i]` is the index of the
/// item that goes to `i`. Stable: equal items keep their order.
fn sorted_order(len: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut buffer = vec![0; len];
    let mut width = 1;
    while width < len {
        let mut start = 0;
        while start < len {
            let middle = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut left, mut right) = (start, middle);
            for slot in &mut buffer[start..end] {
                // Take from the right only when strictly less: that keeps it stable.
                let take_right = right < end && (left >= middle || less(order[right], order[left]));
                if take_right {
                    *slot = order[right];
                    right += 1;
                } else {
                    *slot = order[left];
                    left += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut order, &mut buffer);
        width *= 2;
    }
    order
}

/// Puts `v[order[i]]` at `i`, following each cycle of the permutation with swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    assert_eq!(v.len(), order.len());
    for start in 0..v.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start || from == at {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

/// `v.sort_by(compare)`: the same order.
pub(crate) fn sort_by<T>(v: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    let order = sorted_order(v.len(), &mut |a, b| compare(&v[a], &v[b]) == Ordering::Less);
    permute(v, order);
}

/// `v.sort()`.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// `iter.collect::<BTreeMap<_, _>>()`, without sorting first.
pub(crate) fn map_from<K: Ord, V>(iter: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    for (k, v) in iter {
        map.insert(k, v);
    }
    map
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    /// Against the standard stable sort, on keys with many repeats (stability shows).
    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in (0..70).chain([255, 256, 257, 1000]) {
            let items: Vec<(u32, usize)> = (0..len)
                .map(|i| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ((state % 7) as u32, i)
                })
                .collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std = items.clone();
            std.sort_by_key(|a| a.0);
            assert_eq!(ours, std, "len {len}");
            let mut whole = items.clone();
            sort(&mut whole);
            let mut expected = items;
            expected.sort();
            assert_eq!(whole, expected);
        }
        let map = map_from([(3, 'c'), (1, 'a'), (2, 'b'), (1, 'z')]);
        assert_eq!(map.into_iter().collect::<Vec<_>>(), [(1, 'z'), (2, 'b'), (3, 'c')]);
    }
}
