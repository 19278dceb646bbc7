//! The parts of Java's behaviour that decide Kafka's assignments: how
//! `String.compareTo` orders member ids and topics, and the order in which a
//! `java.util.HashMap<String, _>` hands its keys back.
//!
//! The sticky assignors walk their members in `HashMap` iteration order, and
//! that order decides which members may keep one partition more than the
//! others. It is deterministic: `String.hashCode` is specified, and
//! `HashMap` (OpenJDK 8 and later) places a key by the spread hash in a
//! power-of-two table that doubles past a 0.75 load factor, keeps colliding
//! keys in insertion order, and turns a bucket of more than eight keys into
//! a red-black tree once the table has 64 buckets. [`hash_map_order`]
//! replays exactly those rules, trees included.

use std::cmp::Ordering;

/// `String.compareTo`: UTF-16 code units, lexicographically, then length.
/// It differs from Rust's `str` order only for text above U+FFFF versus
/// U+E000–U+FFFF.
pub fn compare(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// `String.hashCode`: `s[0]·31^(n-1) + … + s[n-1]` over UTF-16 code units, in wrapping 32-bit arithmetic.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| h.wrapping_mul(31).wrapping_add(i32::from(unit)))
}

/// `HashMap.hash`: the key's hash with its high half folded into the low half.
fn spread(h: i32) -> i32 {
    h ^ ((h as u32) >> 16) as i32
}

const INITIAL_CAPACITY: usize = 16;
const TREEIFY_THRESHOLD: usize = 8;
const UNTREEIFY_THRESHOLD: usize = 6;
const MIN_TREEIFY_CAPACITY: usize = 64;

/// The order in which `new HashMap<String, _>()` iterates its keys after
/// `put(keys[0])`, `put(keys[1])`, …, as indices into `keys`. A repeated key
/// keeps its first place.
pub fn hash_map_order(keys: &[&str]) -> Vec<usize> {
    let mut map = JavaHashMap::new(keys);
    for i in 0..keys.len() {
        map.put(i);
    }
    map.iteration_order()
}

/// One entry: `HashMap.Node`, with `TreeNode`'s links (used while its bin is a tree).
#[derive(Debug, Clone, Copy)]
struct Node {
    hash: i32,
    next: Option<usize>,
    prev: Option<usize>,
    parent: Option<usize>,
    left: Option<usize>,
    right: Option<usize>,
    red: bool,
}

#[derive(Debug)]
struct JavaHashMap<'a> {
    keys: &'a [&'a str],
    /// Node `i` holds `keys[i]` (nodes that are never put stay unlinked).
    nodes: Vec<Node>,
    table: Vec<Option<usize>>,
    /// Whether each bin is a tree of `TreeNode`s.
    tree: Vec<bool>,
    size: usize,
    threshold: usize,
}

impl<'a> JavaHashMap<'a> {
    fn new(keys: &'a [&'a str]) -> Self {
        let nodes = keys
            .iter()
            .map(|k| Node {
                hash: spread(string_hash(k)),
                next: None,
                prev: None,
                parent: None,
                left: None,
                right: None,
                red: false,
            })
            .collect();
        JavaHashMap { keys, nodes, table: Vec::new(), tree: Vec::new(), size: 0, threshold: 0 }
    }

    fn index(&self, hash: i32) -> usize {
        (hash as u32 as usize) & (self.table.len() - 1)
    }

    /// `HashMap.putVal` for a key (by index) that may already be present.
    fn put(&mut self, x: usize) {
        if self.table.is_empty() {
            self.resize();
        }
        let hash = self.nodes[x].hash;
        let i = self.index(hash);
        match self.table[i] {
            None => self.table[i] = Some(x),
            Some(first) => {
                if self.same_key(first, x) {
                    return;
                }
                if self.tree[i] {
                    if !self.put_tree_val(i, first, x) {
                        return;
                    }
                } else {
                    let mut p = first;
                    let mut bin_count = 0;
                    loop {
                        match self.nodes[p].next {
                            None => {
                                self.nodes[p].next = Some(x);
                                if bin_count >= TREEIFY_THRESHOLD - 1 {
                                    self.treeify_bin(hash);
                                }
                                break;
                            }
                            Some(e) => {
                                if self.same_key(e, x) {
                                    return;
                                }
                                p = e;
                            }
                        }
                        bin_count += 1;
                    }
                }
            }
        }
        self.size += 1;
        if self.size > self.threshold {
            self.resize();
        }
    }

    fn same_key(&self, a: usize, b: usize) -> bool {
        self.nodes[a].hash == self.nodes[b].hash && self.keys[a] == self.keys[b]
    }

    /// `HashMap.resize`: double the table, splitting each bin into a low and a high half in order.
    fn resize(&mut self) {
        let old_cap = self.table.len();
        let (new_cap, new_thr) =
            if old_cap == 0 { (INITIAL_CAPACITY, 12) } else { (old_cap * 2, self.threshold * 2) };
        self.threshold = new_thr;
        let old_table = std::mem::replace(&mut self.table, vec![None; new_cap]);
        let old_tree = std::mem::replace(&mut self.tree, vec![false; new_cap]);
        for (j, head) in old_table.into_iter().enumerate() {
            let Some(e) = head else { continue };
            if self.nodes[e].next.is_none() {
                let i = self.index(self.nodes[e].hash);
                self.table[i] = Some(e);
            } else if old_tree[j] {
                self.split(e, j, old_cap);
            } else {
                let (lo, hi) = self.partition_bin(e, old_cap);
                self.table[j] = lo.first().copied();
                self.table[j + old_cap] = hi.first().copied();
            }
        }
    }

    /// The nodes of a bin in `next` order, split by the hash bit `bit`; each half relinked in order.
    fn partition_bin(&mut self, head: usize, bit: usize) -> (Vec<usize>, Vec<usize>) {
        let mut lo = Vec::new();
        let mut hi = Vec::new();
        let mut e = Some(head);
        while let Some(n) = e {
            e = self.nodes[n].next;
            if (self.nodes[n].hash as u32 as usize) & bit == 0 {
                lo.push(n);
            } else {
                hi.push(n);
            }
        }
        self.link(&lo);
        self.link(&hi);
        (lo, hi)
    }

    /// Chains `nodes` through `next` and `prev`, in order.
    fn link(&mut self, nodes: &[usize]) {
        for (k, &n) in nodes.iter().enumerate() {
            self.nodes[n].prev = if k == 0 { None } else { Some(nodes[k - 1]) };
            self.nodes[n].next = nodes.get(k + 1).copied();
        }
    }

    /// `TreeNode.split` during a resize.
    fn split(&mut self, head: usize, index: usize, bit: usize) {
        let (lo, hi) = self.partition_bin(head, bit);
        for (half, at, other_empty) in [(&lo, index, hi.is_empty()), (&hi, index + bit, lo.is_empty())] {
            let Some(&first) = half.first() else { continue };
            self.table[at] = Some(first);
            if half.len() <= UNTREEIFY_THRESHOLD {
                self.tree[at] = false;
            } else {
                self.tree[at] = true;
                // A bin that moved whole keeps its tree (its root is still first).
                if !other_empty {
                    self.treeify(at);
                }
            }
        }
    }

    /// `HashMap.treeifyBin`: a small table grows instead.
    fn treeify_bin(&mut self, hash: i32) {
        if self.table.len() < MIN_TREEIFY_CAPACITY {
            self.resize();
        } else {
            let i = self.index(hash);
            // replacementTreeNode: the same order, now doubly linked.
            let mut bin = Vec::new();
            let mut e = self.table[i];
            while let Some(n) = e {
                bin.push(n);
                e = self.nodes[n].next;
            }
            self.link(&bin);
            self.tree[i] = true;
            self.treeify(i);
        }
    }

    /// `TreeNode.treeify`: insert the bin's nodes in `next` order, then move the root to the front.
    fn treeify(&mut self, bin: usize) {
        let mut root: Option<usize> = None;
        let mut x = self.table[bin];
        while let Some(n) = x {
            x = self.nodes[n].next;
            self.nodes[n].left = None;
            self.nodes[n].right = None;
            match root {
                None => {
                    self.nodes[n].parent = None;
                    self.nodes[n].red = false;
                    root = Some(n);
                }
                Some(r) => {
                    let mut p = r;
                    loop {
                        let dir = self.direction(n, p);
                        let child = if dir.is_le() { self.nodes[p].left } else { self.nodes[p].right };
                        match child {
                            Some(c) => p = c,
                            None => {
                                self.nodes[n].parent = Some(p);
                                if dir.is_le() {
                                    self.nodes[p].left = Some(n);
                                } else {
                                    self.nodes[p].right = Some(n);
                                }
                                root = Some(self.balance_insertion(r, n));
                                break;
                            }
                        }
                    }
                }
            }
        }
        if let Some(r) = root {
            self.move_root_to_front(r);
        }
    }

    /// Where key `x` goes relative to tree node `p`: by hash, then `compareTo`.
    /// Distinct strings never compare equal, so `tieBreakOrder` is never reached.
    fn direction(&self, x: usize, p: usize) -> Ordering {
        self.nodes[x].hash.cmp(&self.nodes[p].hash).then_with(|| compare(self.keys[x], self.keys[p]))
    }

    /// `TreeNode.putTreeVal`; false when the key was already there.
    fn put_tree_val(&mut self, bin: usize, root: usize, x: usize) -> bool {
        let mut p = root;
        loop {
            if self.same_key(p, x) {
                return false;
            }
            let dir = self.direction(x, p);
            let child = if dir.is_le() { self.nodes[p].left } else { self.nodes[p].right };
            match child {
                Some(c) => p = c,
                None => {
                    let xpn = self.nodes[p].next;
                    self.nodes[x] = Node {
                        next: xpn,
                        prev: Some(p),
                        parent: Some(p),
                        left: None,
                        right: None,
                        ..self.nodes[x]
                    };
                    if dir.is_le() {
                        self.nodes[p].left = Some(x);
                    } else {
                        self.nodes[p].right = Some(x);
                    }
                    self.nodes[p].next = Some(x);
                    if let Some(n) = xpn {
                        self.nodes[n].prev = Some(x);
                    }
                    let root = self.balance_insertion(root, x);
                    debug_assert_eq!(self.index(self.nodes[root].hash), bin);
                    self.move_root_to_front(root);
                    return true;
                }
            }
        }
    }

    /// `TreeNode.moveRootToFront`.
    fn move_root_to_front(&mut self, root: usize) {
        let index = self.index(self.nodes[root].hash);
        let first = self.table[index];
        if first == Some(root) {
            return;
        }
        self.table[index] = Some(root);
        let rp = self.nodes[root].prev;
        let rn = self.nodes[root].next;
        if let Some(n) = rn {
            self.nodes[n].prev = rp;
        }
        if let Some(p) = rp {
            self.nodes[p].next = rn;
        }
        if let Some(f) = first {
            self.nodes[f].prev = Some(root);
        }
        self.nodes[root].next = first;
        self.nodes[root].prev = None;
    }

    fn is_red(&self, n: Option<usize>) -> bool {
        n.is_some_and(|n| self.nodes[n].red)
    }

    /// `TreeNode.balanceInsertion`; returns the new root.
    fn balance_insertion(&mut self, mut root: usize, mut x: usize) -> usize {
        self.nodes[x].red = true;
        loop {
            let Some(mut xp) = self.nodes[x].parent else {
                self.nodes[x].red = false;
                return x;
            };
            if !self.nodes[xp].red {
                return root;
            }
            let Some(mut xpp) = self.nodes[xp].parent else { return root };
            let xppl = self.nodes[xpp].left;
            if Some(xp) == xppl {
                let xppr = self.nodes[xpp].right;
                if self.is_red(xppr) {
                    self.nodes[xppr.expect("red uncle")].red = false;
                    self.nodes[xp].red = false;
                    self.nodes[xpp].red = true;
                    x = xpp;
                } else {
                    let mut xpp_opt = Some(xpp);
                    let mut xp_opt = Some(xp);
                    if Some(x) == self.nodes[xp].right {
                        x = xp;
                        root = self.rotate_left(root, x);
                        xp_opt = self.nodes[x].parent;
                        xpp_opt = xp_opt.and_then(|p| self.nodes[p].parent);
                    }
                    if let Some(p) = xp_opt {
                        xp = p;
                        self.nodes[xp].red = false;
                        if let Some(pp) = xpp_opt {
                            xpp = pp;
                            self.nodes[xpp].red = true;
                            root = self.rotate_right(root, xpp);
                        }
                    }
                }
            } else if self.is_red(xppl) {
                self.nodes[xppl.expect("red uncle")].red = false;
                self.nodes[xp].red = false;
                self.nodes[xpp].red = true;
                x = xpp;
            } else {
                let mut xpp_opt = Some(xpp);
                let mut xp_opt = Some(xp);
                if Some(x) == self.nodes[xp].left {
                    x = xp;
                    root = self.rotate_right(root, x);
                    xp_opt = self.nodes[x].parent;
                    xpp_opt = xp_opt.and_then(|p| self.nodes[p].parent);
                }
                if let Some(p) = xp_opt {
                    xp = p;
                    self.nodes[xp].red = false;
                    if let Some(pp) = xpp_opt {
                        xpp = pp;
                        self.nodes[xpp].red = true;
                        root = self.rotate_left(root, xpp);
                    }
                }
            }
        }
    }

    /// `TreeNode.rotateLeft`.
    fn rotate_left(&mut self, mut root: usize, p: usize) -> usize {
        let Some(r) = self.nodes[p].right else { return root };
        let rl = self.nodes[r].left;
        self.nodes[p].right = rl;
        if let Some(rl) = rl {
            self.nodes[rl].parent = Some(p);
        }
        let pp = self.nodes[p].parent;
        self.nodes[r].parent = pp;
        match pp {
            None => {
                root = r;
                self.nodes[r].red = false;
            }
            Some(pp) if self.nodes[pp].left == Some(p) => self.nodes[pp].left = Some(r),
            Some(pp) => self.nodes[pp].right = Some(r),
        }
        self.nodes[r].left = Some(p);
        self.nodes[p].parent = Some(r);
        root
    }

    /// `TreeNode.rotateRight`.
    fn rotate_right(&mut self, mut root: usize, p: usize) -> usize {
        let Some(l) = self.nodes[p].left else { return root };
        let lr = self.nodes[l].right;
        self.nodes[p].left = lr;
        if let Some(lr) = lr {
            self.nodes[lr].parent = Some(p);
        }
        let pp = self.nodes[p].parent;
        self.nodes[l].parent = pp;
        match pp {
            None => {
                root = l;
                self.nodes[l].red = false;
            }
            Some(pp) if self.nodes[pp].right == Some(p) => self.nodes[pp].right = Some(l),
            Some(pp) => self.nodes[pp].left = Some(l),
        }
        self.nodes[l].right = Some(p);
        self.nodes[p].parent = Some(l);
        root
    }

    /// Iteration: bins in index order, each bin along `next`.
    fn iteration_order(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.size);
        for head in &self.table {
            let mut e = *head;
            while let Some(n) = e {
                order.push(n);
                e = self.nodes[n].next;
            }
        }
        order
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    /// Orders printed by Kafka 4.4.0's own `TimelineHashMap` (server-common)
    /// after each `put(id)`, `put(id)` (a member's two records) and one
    /// `remove`.
    #[test]
    fn timeline_hash_order_matches_kafkas_timeline_hash_map() {
        let ids = [
            "aQ3vZk1cTmyb2XrLpQ9w0A",
            "Zx81LmN0qRsTuVwXyZ0123",
            "c1-5f0e4b2a-9d3c-4e1f-8a7b-6c5d4e3f2a1b",
            "c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            "member-7",
            "m8",
            "x9y8z7",
            "QWERTYUIOPASDFGHJKLZXC",
            "0000000000000000000000",
            "zzzzzzzzzzzzzzzzzzzzzz",
        ];
        let expected = [
            "aQ3vZk1cTmyb2XrLpQ9w0A",
            "aQ3vZk1cTmyb2XrLpQ9w0A,Zx81LmN0qRsTuVwXyZ0123",
            "c1-5f0e4b2a-9d3c-4e1f-8a7b-6c5d4e3f2a1b,aQ3vZk1cTmyb2XrLpQ9w0A,Zx81LmN0qRsTuVwXyZ0123",
            "c1-5f0e4b2a-9d3c-4e1f-8a7b-6c5d4e3f2a1b,aQ3vZk1cTmyb2XrLpQ9w0A,Zx81LmN0qRsTuVwXyZ0123,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            "c1-5f0e4b2a-9d3c-4e1f-8a7b-6c5d4e3f2a1b,aQ3vZk1cTmyb2XrLpQ9w0A,Zx81LmN0qRsTuVwXyZ0123,member-7,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            "c1-5f0e4b2a-9d3c-4e1f-8a7b-6c5d4e3f2a1b,aQ3vZk1cTmyb2XrLpQ9w0A,Zx81LmN0qRsTuVwXyZ0123,member-7,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,m8",
            "c1-5f0e4b2a-9d3c-4e1f-8a7b-6c5d4e3f2a1b,aQ3vZk1cTmyb2XrLpQ9w0A,x9y8z7,Zx81LmN0qRsTuVwXyZ0123,member-7,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,m8",
            "aQ3vZk1cTmyb2XrLpQ9w0A,x9y8z7,Zx81LmN0qRsTuVwXyZ0123,member-7,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,m8",
            "aQ3vZk1cTmyb2XrLpQ9w0A,QWERTYUIOPASDFGHJKLZXC,x9y8z7,Zx81LmN0qRsTuVwXyZ0123,member-7,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,m8",
            "aQ3vZk1cTmyb2XrLpQ9w0A,QWERTYUIOPASDFGHJKLZXC,x9y8z7,Zx81LmN0qRsTuVwXyZ0123,0000000000000000000000,member-7,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,m8",
            "aQ3vZk1cTmyb2XrLpQ9w0A,QWERTYUIOPASDFGHJKLZXC,x9y8z7,Zx81LmN0qRsTuVwXyZ0123,0000000000000000000000,member-7,c2-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,zzzzzzzzzzzzzzzzzzzzzz,m8",
        ];
        let mut map = TimelineHashOrder::default();
        let mut seen = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            map.join(id);
            seen.push(map.order().collect::<Vec<_>>().join(","));
            if i == 6 {
                map.remove(ids[2]);
                seen.push(map.order().collect::<Vec<_>>().join(","));
            }
        }
        assert_eq!(seen, expected);
    }

    #[test]
    fn string_hash_is_javas() {
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("Aa"), string_hash("BB"));
        assert_eq!(string_hash("consumer1") as u32, 3_873_962_747);
        // Above U+FFFF: two UTF-16 code units (0xD83D, 0xDE00).
        assert_eq!(string_hash("😀"), 0xD83D * 31 + 0xDE00);
    }

    #[test]
    fn compare_is_utf16_order() {
        assert_eq!(compare("consumer-10", "consumer-2"), Ordering::Less);
        assert_eq!(compare("a", "ab"), Ordering::Less);
        // U+FF5E sorts after U+1F600 in Rust (code points) but before it in Java (0xFF5E > 0xD83D).
        assert_eq!("\u{ff5e}".cmp("😀"), Ordering::Less);
        assert_eq!(compare("\u{ff5e}", "😀"), Ordering::Greater);
    }

    #[test]
    fn small_maps_iterate_by_bucket() {
        // consumer1..consumer4 land in buckets 12, 11, 10, 9 of 16.
        let keys = ["consumer1", "consumer2", "consumer3", "consumer4"];
        assert_eq!(hash_map_order(&keys), vec![3, 2, 1, 0]);
    }

    #[test]
    fn a_crowded_bucket_becomes_a_tree() {
        // 60 distinct keys grow the table to 128 buckets; then 20 keys with one hash
        // ("Aa" and "BB" hash alike) fill one bucket, which turns into a red-black tree
        // at its ninth key and iterates root first. Expected: OpenJDK 17's HashMap.
        let fillers: Vec<String> = (0..60).map(|i| format!("k{i}")).collect();
        let crowd = "BBBBAaBBAa BBAaAaAaBB AaBBAaBBBB AaBBAaBBAa BBBBBBAaAa AaAaAaAaBB AaAaBBAaBB \
                     AaAaBBAaAa AaAaBBBBBB BBAaAaAaAa AaBBAaAaBB BBAaAaBBBB BBBBBBBBAa AaBBBBAaBB \
                     BBAaBBBBAa AaAaAaAaAa BBAaBBAaBB BBBBBBAaBB AaAaBBBBAa AaBBBBAaAa";
        let keys: Vec<&str> = fillers.iter().map(String::as_str).chain(crowd.split_whitespace()).collect();
        let java = "31 30 33 32 35 34 37 36 39 38 63 60 71 74 76 61 62 79 69 73 64 72 77 65 75 66 78 67 68 70 \
                    0 1 40 2 3 42 4 41 5 44 6 43 7 46 8 45 9 48 47 49 51 50 53 52 11 55 10 54 13 57 12 56 15 59 \
                    14 58 17 16 19 18 20 22 21 24 23 26 25 28 27 29";
        let expected: Vec<usize> = java.split_whitespace().map(|i| i.parse().unwrap()).collect();
        assert_eq!(hash_map_order(&keys), expected);
    }
}

/// The iteration order of the group coordinator's map of a consumer group's
/// members: a `TimelineHashMap`, whose `BaseHashTable` is not `HashMap`.
/// Kafka's target assignment builder fills the assignor's `HashMap` in this
/// order (then the member the heartbeat adds), and that fill order decides
/// which of two member ids in one `HashMap` bucket the uniform assignor sees
/// first.
///
/// The table: a power of two of slots from 2, doubled when a put (a replace
/// too) would take it over 3/4 full counting one more key; a key's slot is the
/// top bits of its `hashCode()` times a Fibonacci constant; keys sharing a
/// slot kept in the order they came; iteration slot by slot, each slot's keys
/// from the last to the first. A member's join writes two records (its
/// metadata, then its assignment), so it is two puts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TimelineHashOrder {
    slots: Vec<Vec<String>>,
    size: usize,
}

impl Default for TimelineHashOrder {
    fn default() -> Self {
        TimelineHashOrder { slots: vec![Vec::new(); 2], size: 0 }
    }
}

impl TimelineHashOrder {
    /// `BaseHashTable.findSlot`.
    fn slot(key: &str, slots: usize) -> usize {
        let log2 = 32 - (slots as u32).leading_zeros();
        let shift = 65 - log2;
        let product = i64::from(string_hash(key)).wrapping_mul(-7_046_029_254_386_353_131);
        ((product as u64) >> shift) as usize
    }

    /// `baseAddOrReplace`: the table grows before it looks for the key.
    fn put(&mut self, key: &str) {
        // Integer form of `(size + 1) * 0.75 > slots`.
        if (self.size + 1) * 3 > self.slots.len() * 4 {
            let old = std::mem::take(&mut self.slots);
            self.slots = vec![Vec::new(); old.len() * 2];
            for key in old.into_iter().flatten() {
                let at = Self::slot(&key, self.slots.len());
                self.slots[at].push(key);
            }
        }
        let at = Self::slot(key, self.slots.len());
        if !self.slots[at].iter().any(|k| k == key) {
            self.slots[at].push(key.to_string());
            self.size += 1;
        }
    }

    /// A member joins: its metadata record adds it, its assignment record replaces it.
    pub(crate) fn join(&mut self, key: &str) {
        self.put(key);
        self.put(key);
    }

    pub(crate) fn remove(&mut self, key: &str) {
        let at = Self::slot(key, self.slots.len());
        if let Some(i) = self.slots[at].iter().position(|k| k == key) {
            self.slots[at].remove(i);
            self.size -= 1;
        }
    }

    /// The keys in iteration order.
    pub(crate) fn order(&self) -> impl Iterator<Item = &str> {
        self.slots.iter().flat_map(|slot| slot.iter().rev().map(String::as_str))
    }
}
