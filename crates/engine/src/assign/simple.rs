//! The group coordinator's `simple` assignor of share groups (KIP-932,
//! `group.share.assignors`), for a group whose members all subscribe to the
//! one same topic: Kafka 4.4's `SimpleHomogeneousAssignmentBuilder`.
//!
//! With M members and P partitions, every partition is shared by
//! `ceil(M / P)` members (so with M <= P each has exactly one), and member
//! `i` of the coordinator's order is to hold `ceil(x(i+1)) - ceil(xi)`
//! partitions, `x = sharing * P / M`. The assignment is sticky: a member
//! keeps what it holds up to its quota, a partition keeps its members up to
//! the sharing, and what is left goes round the members still short of their
//! quota, partition by partition.
//!
//! Orders: the members come in the iteration order of the coordinator's
//! `HashMap` keyed by member id ([`super::java::hash_map_order`]). Kafka then
//! iterates hash sets and maps of member indices (ascending, as Java's are for
//! the small integers of a group) and of topic-partitions, whose order hangs
//! on the topic's random id; the model takes partitions ascending, as they
//! come for some topic ids, and says so on the page.

use super::java;

/// One member of a share group, as the assignor sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareMember {
    pub id: String,
    /// Its current assignment.
    pub owned: Vec<u32>,
}

/// Who holds what while the assignment is built: `held[p][i]` is whether
/// member index `i` holds partition `p`. Sets of small integers iterated in
/// ascending order, as Java's `HashSet<Integer>` of a group's indices are.
struct Holdings {
    held: Vec<Vec<bool>>,
    /// Partitions per member index.
    counts: Vec<usize>,
}

impl Holdings {
    fn holders(&self, p: usize) -> usize {
        self.held[p].iter().filter(|&&h| h).count()
    }

    fn set(&mut self, p: usize, i: usize, hold: bool) {
        if self.held[p][i] != hold {
            self.held[p][i] = hold;
            if hold {
                self.counts[i] += 1;
            } else {
                self.counts[i] -= 1;
            }
        }
    }
}

/// The `simple` assignment: for each member, in the order given, its
/// partitions, ascending. Owned partitions past `partitions` are dropped
/// (the topic never shrinks; the coordinator never sends them).
#[must_use]
pub fn simple(members: &[ShareMember], partitions: u32) -> Vec<Vec<u32>> {
    let m = members.len();
    let p = partitions as usize;
    if m == 0 || p == 0 {
        return vec![Vec::new(); m];
    }
    let ids: Vec<&str> = members.iter().map(|x| x.id.as_str()).collect();
    // memberIds: index i is the i-th member in HashMap order.
    let order = java::hash_map_order(&ids);
    let sharing = m.div_ceil(p);
    let precise = (sharing * p) as f64 / m as f64;
    let desired: Vec<usize> =
        (0..m).map(|i| ((precise * (i + 1) as f64).ceil() - (precise * i as f64).ceil()) as usize).collect();
    let mut h = Holdings { held: vec![vec![false; m]; p], counts: vec![0; m] };
    // revokeUnassignablePartitions: everything owned counts at first.
    for (i, &member) in order.iter().enumerate() {
        for &q in members[member].owned.iter().filter(|&&q| q < partitions) {
            h.set(q as usize, i, true);
        }
    }
    let mut unfilled: Vec<bool> = (0..m).map(|i| h.counts[i] < desired[i]).collect();
    // revokeOverfilledMembers: drop the first partitions until at quota.
    for (i, &quota) in desired.iter().enumerate() {
        let mut q = 0;
        while h.counts[i] > quota {
            h.set(q, i, false);
            q += 1;
        }
    }
    // revokeOversharedPartitions: drop the first members until at the sharing.
    for q in 0..p {
        let mut i = 0;
        while h.holders(q) > sharing {
            if h.held[q][i] {
                h.set(q, i, false);
                unfilled[i] = true;
            }
            i += 1;
        }
    }
    assign_remaining(&mut h, &mut unfilled, &desired, sharing);
    let mut result = vec![Vec::new(); m];
    for (i, &member) in order.iter().enumerate() {
        result[member] = (0..partitions).filter(|&q| h.held[q as usize][i]).collect();
    }
    result
}

/// `assignRemainingPartitions`: one iterator over the unfilled members runs
/// across the partitions, starting again from the first while the last pass
/// gave something; a member leaves it at its quota. As in Kafka, a partition's
/// holders are read once, before its own loop.
fn assign_remaining(h: &mut Holdings, unfilled: &mut [bool], desired: &[usize], sharing: usize) {
    let next_from = |unfilled: &[bool], from: usize| (from..unfilled.len()).find(|&i| unfilled[i]);
    if next_from(unfilled, 0).is_none() {
        return;
    }
    let mut cursor = 0usize;
    let mut assigned_this_pass = false;
    for q in 0..h.held.len() {
        let before: Vec<bool> = h.held[q].clone();
        let holders = before.iter().filter(|&&x| x).count();
        if holders < sharing {
            let mut to_make = sharing - holders;
            // Each turn assigns, skips a holder, or restarts the pass; a pass
            // with no assignment ends the loop: bounded by passes × members.
            while to_make > 0 {
                let i = match next_from(unfilled, cursor) {
                    Some(i) => i,
                    None if !assigned_this_pass => break,
                    None => {
                        assigned_this_pass = false;
                        match next_from(unfilled, 0) {
                            Some(i) => i,
                            None => break,
                        }
                    }
                };
                cursor = i + 1;
                if !before[i] {
                    h.set(q, i, true);
                    to_make -= 1;
                    assigned_this_pass = true;
                    if h.counts[i] >= desired[i] {
                        unfilled[i] = false;
                    }
                }
            }
        }
        if next_from(unfilled, 0).is_none() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn members(owned: &[&[u32]]) -> Vec<ShareMember> {
        owned
            .iter()
            .enumerate()
            .map(|(i, o)| ShareMember { id: format!("m{i}"), owned: o.to_vec() })
            .collect()
    }

    fn counts(result: &[Vec<u32>], partitions: u32) -> Vec<usize> {
        (0..partitions).map(|q| result.iter().filter(|r| r.contains(&q)).count()).collect()
    }

    #[test]
    fn fewer_members_than_partitions_share_nothing() {
        let result = simple(&members(&[&[], &[]]), 3);
        assert_eq!(counts(&result, 3), [1, 1, 1], "one member per partition: {result:?}");
        let mut sizes: Vec<usize> = result.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, [1, 2]);
    }

    #[test]
    fn more_members_than_partitions_share_each_partition() {
        let empty: Vec<&[u32]> = vec![&[]; 8];
        let result = simple(&members(&empty), 3);
        // ceil(8/3) = 3 members per partition; every member gets some.
        assert_eq!(counts(&result, 3), [3, 3, 3], "{result:?}");
        assert!(result.iter().all(|r| !r.is_empty()), "{result:?}");
        assert!(result.iter().all(|r| r.len() <= 2), "{result:?}");
    }

    #[test]
    fn members_keep_what_they_hold() {
        // Two members on 4 partitions; a third joins: it takes from the others,
        // who keep the rest of what they held.
        let first = simple(&members(&[&[], &[]]), 4);
        let mut again = members(&[&first[0], &first[1], &[]]);
        again[2].id = "new".into();
        let second = simple(&again, 4);
        assert_eq!(counts(&second, 4), [1, 1, 1, 1], "{second:?}");
        for i in 0..2 {
            assert!(
                second[i].iter().all(|q| first[i].contains(q)),
                "member {i} keeps: {first:?} → {second:?}"
            );
        }
        assert!(!second[2].is_empty());
        // Same input, same answer.
        assert_eq!(simple(&again, 4), second);
    }
}
