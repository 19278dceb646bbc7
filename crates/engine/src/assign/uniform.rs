//! The group coordinator's `uniform` assignor (KIP-848, `group.remote.assignor`,
//! Kafka's default for consumer groups), for a group whose members all
//! subscribe to the one same topic: Kafka's `UniformHomogeneousAssignmentBuilder`.
//!
//! Every member gets ⌊P/M⌋ partitions and P mod M of them one more. Walking
//! the members in the coordinator's order, each is offered the next extra
//! partition while any are left, and keeps what it owns up to its quota (the
//! rest is revoked). A member that did not fill its extra slot passes the extra
//! on to the members after it, as long as they are more than the extras still
//! to give, so the extras stay with members that already hold them. Then the
//! partitions nobody owns, ascending, followed by the revoked ones in the order
//! they were revoked, fill the members still under quota, in the same order.
//!
//! Two Java iteration orders decide the result, and both are replayed: the
//! members come in the iteration order of the coordinator's `HashMap` keyed by
//! member id (filled in the order given, [`super::java::hash_map_order`]), and a
//! member over its quota keeps the first of its partitions in the iteration
//! order of the `HashSet` that holds them (built from them in the order given,
//! [`int_hash_set_order`]).
//!
//! This is Kafka 4.4.0's builder (checked against it on generated groups,
//! `conformance/`); earlier releases handed the extras to the first members
//! in order whatever they owned.

use super::java;

/// One member of a consumer group, as the coordinator's assignor sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetMember {
    /// Its member id (in Kafka a random UUID the client makes, in base64).
    pub id: String,
    /// What its current target assignment holds, in the order its set was
    /// filled (`new HashSet<>(partitions)`).
    pub owned: Vec<u32>,
}

/// Why [`uniform`] cannot give Kafka's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UniformError {
    /// Member ids repeat.
    RepeatedMember(String),
    /// A partition is owned twice (by one member, or by two): a target
    /// assignment never holds that.
    OwnedTwice(u32),
    /// An owned partition the topic does not have.
    NoSuchPartition(u32),
    /// A member's partitions crowd one bucket of its `HashSet` until Java turns
    /// the bucket into a red-black tree; that order is not replayed.
    TreeBin,
}

impl std::fmt::Display for UniformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UniformError::RepeatedMember(id) => write!(f, "member {id:?} is listed twice"),
            UniformError::OwnedTwice(p) => write!(
                f,
                "partition {p} is owned twice; the coordinator's target assignment gives each partition one owner"
            ),
            UniformError::NoSuchPartition(p) => {
                write!(f, "partition {p} is owned but the topic does not have it")
            }
            UniformError::TreeBin => f.write_str(
                "nine owned partitions of one member fall in one bucket of Java's HashSet, which then \
                 becomes a tree: that order is not modelled",
            ),
        }
    }
}

const SET_CAPACITY_MIN: usize = 16;
const TREEIFY_BIN: usize = 9;
const TREEIFY_CAPACITY_MIN: usize = 64;

/// The order in which `new HashSet<Integer>(values)` iterates, `values` being
/// distinct and added in the order given; `None` if a bin of it became a tree.
///
/// The set is sized for its values (`max(n / 0.75 + 1, 16)`, rounded up to a
/// power of two), so it only grows when a ninth value lands in one bin of a
/// table under 64 buckets (once per such value); colliding values keep their
/// insertion order through every doubling.
#[must_use]
pub fn int_hash_set_order(values: &[u32]) -> Option<Vec<u32>> {
    // `(int) (n / .75f) + 1`, as Java computes it in float.
    let wanted = ((values.len() as f32 / 0.75_f32) as usize + 1).max(SET_CAPACITY_MIN);
    let mut capacity = wanted.next_power_of_two();
    let bucket = |v: u32, capacity: usize| {
        // `Integer.hashCode` is the value; `HashMap.hash` folds the high half in.
        let h = v ^ (v >> 16);
        h as usize & (capacity - 1)
    };
    let mut bins = vec![0usize; capacity];
    for (i, &v) in values.iter().enumerate() {
        let b = bucket(v, capacity);
        bins[b] += 1;
        if bins[b] >= TREEIFY_BIN {
            if capacity >= TREEIFY_CAPACITY_MIN {
                return None;
            }
            capacity *= 2;
            bins = vec![0; capacity];
            // One doubling per crowded insertion (`treeifyBin` resizes once): values that
            // still share a bin go on sharing it, and the next one in it doubles again.
            for &w in &values[..=i] {
                bins[bucket(w, capacity)] += 1;
            }
        }
    }
    // Java walks the table bin by bin, each bin's values in insertion order.
    let order = (0..capacity)
        .flat_map(|b| values.iter().copied().filter(move |&v| bucket(v, capacity) == b))
        .collect();
    Some(order)
}

/// The uniform assignor's target assignment for `members` (in the order the
/// coordinator's map was filled) on a topic of `partitions` partitions: each
/// member's partitions, ascending, in the order of `members`.
///
/// # Errors
///
/// [`UniformError`]: an input the coordinator never builds, or a Java order
/// this does not replay.
pub fn uniform(members: &[TargetMember], partitions: u32) -> Result<Vec<Vec<u32>>, UniformError> {
    let mut owner = vec![false; partitions as usize];
    for m in members {
        for &p in &m.owned {
            let Some(slot) = owner.get_mut(p as usize) else {
                return Err(UniformError::NoSuchPartition(p));
            };
            if std::mem::replace(slot, true) {
                return Err(UniformError::OwnedTwice(p));
            }
        }
    }
    let ids: Vec<&str> = members.iter().map(|m| m.id.as_str()).collect();
    // A group holds at most a few hundred members: pairwise is cheap.
    if let Some(i) = (0..ids.len()).find(|&i| ids[..i].contains(&ids[i])) {
        return Err(UniformError::RepeatedMember(ids[i].to_string()));
    }
    let mut target: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
    if members.is_empty() {
        return Ok(target);
    }
    let order = java::hash_map_order(&ids);
    // Nobody's, ascending; then what members over quota give back, as they give it.
    let mut unassigned: Vec<u32> = (0..partitions).filter(|&p| !owner[p as usize]).collect();
    let count = members.len() as u32;
    let minimum = partitions / count;
    let mut extra = partitions % count;
    let mut unfilled: Vec<(usize, u32)> = Vec::new();
    for (index, &m) in order.iter().enumerate() {
        let mut quota = minimum;
        let mut has_extra = false;
        if extra > 0 {
            quota += 1;
            has_extra = true;
        }
        let owned = &members[m].owned;
        if owned.len() as u32 <= quota {
            target[m].extend_from_slice(owned);
            quota -= owned.len() as u32;
        } else {
            let iterated = int_hash_set_order(owned).ok_or(UniformError::TreeBin)?;
            let (kept, revoked) = iterated.split_at(quota as usize);
            target[m].extend_from_slice(kept);
            unassigned.extend_from_slice(revoked);
            quota = 0;
        }
        // Short of its extra: pass it on while the members left (this one too)
        // outnumber the extras left, so one that already holds it may keep it.
        let members_left = count - index as u32;
        if quota > 0 && has_extra && members_left > extra {
            quota -= 1;
            has_extra = false;
        }
        if quota > 0 {
            unfilled.push((m, quota));
        }
        if has_extra {
            extra -= 1;
        }
    }
    assert_eq!(extra, 0, "the last members take the extras left");
    let mut next = unassigned.iter();
    for (m, quota) in unfilled {
        target[m].extend(next.by_ref().take(quota as usize));
    }
    assert!(next.next().is_none(), "the quotas add up to the partitions");
    for t in &mut target {
        crate::order::sort_ids(t);
    }
    assert_eq!(target.iter().map(Vec::len).sum::<usize>(), partitions as usize);
    let spread = target.iter().map(Vec::len);
    let (low, high) = (spread.clone().min().unwrap_or(0), spread.max().unwrap_or(0));
    assert!(high - low <= 1, "balanced: {low}..{high}");
    Ok(target)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn member(id: &str, owned: &[u32]) -> TargetMember {
        TargetMember { id: id.to_string(), owned: owned.to_vec() }
    }

    #[test]
    fn small_sets_iterate_by_value_and_collisions_by_insertion() {
        assert_eq!(int_hash_set_order(&[5, 1, 3]), Some(vec![1, 3, 5]));
        // 17 and 1 share bucket 1 of 16: insertion order between them.
        assert_eq!(int_hash_set_order(&[17, 2, 1]), Some(vec![17, 1, 2]));
        assert_eq!(int_hash_set_order(&[1, 17, 2]), Some(vec![1, 17, 2]));
        // Nine values in bucket 0 of 16: the table doubles to 32, splitting them 5 and 4.
        let nine: Vec<u32> = (0..9).map(|i| i * 16).collect();
        let order = int_hash_set_order(&nine).unwrap();
        assert_eq!(order, vec![0, 32, 64, 96, 128, 16, 48, 80, 112]);
        // Multiples of 64 stay in bucket 0: the 9th doubles the table to 32, the 10th to 64,
        // and the 11th makes the bin a tree.
        let ten: Vec<u32> = (0..10).map(|i| i * 64).collect();
        assert_eq!(int_hash_set_order(&ten), Some(ten.clone()));
        let eleven: Vec<u32> = (0..11).map(|i| i * 64).collect();
        assert_eq!(int_hash_set_order(&eleven), None);
    }

    #[test]
    fn quotas_fill_in_member_order_keeping_what_fits() {
        // Fresh group: 7 partitions over 3 members. Nobody holds an extra, so each passes it on
        // until the last, who must take it: 2-2-3 in map order.
        let fresh = [member("a", &[]), member("b", &[]), member("c", &[])];
        let got = uniform(&fresh, 7).unwrap();
        let order = java::hash_map_order(&["a", "b", "c"]);
        assert_eq!(order, vec![0, 1, 2]);
        assert_eq!(got, vec![vec![0, 1], vec![2, 3], vec![4, 5, 6]]);
        // A newcomer: the others keep what fits their quotas and it gets the rest.
        let grown = [member("a", &[0, 1, 2]), member("b", &[3, 4]), member("c", &[5, 6]), member("d", &[])];
        let got = uniform(&grown, 7).unwrap();
        assert_eq!(got, vec![vec![0, 1], vec![3, 4], vec![5, 6], vec![2]]);
    }

    #[test]
    fn the_extra_partition_stays_with_a_member_that_holds_it() {
        // 5 over 2: one member holds 3. "a" comes first but holds 2, so it passes the extra on.
        let members = [member("a", &[0, 1]), member("b", &[4, 2, 3])];
        assert_eq!(uniform(&members, 5).unwrap(), vec![vec![0, 1], vec![2, 3, 4]]);
        // 5 over 3, two extras: "a" holds 1 and passes its extra on (three members left for two
        // extras); "b" holds 1 but must keep its extra (two left for two); "c" takes the last
        // one, keeping 2 and 3 (its set's order) and giving back 4, which fills "b".
        let members = [member("a", &[0]), member("b", &[1]), member("c", &[4, 2, 3])];
        assert_eq!(uniform(&members, 5).unwrap(), vec![vec![0], vec![1, 4], vec![2, 3]]);
    }

    #[test]
    fn refuses_what_the_coordinator_never_builds() {
        assert_eq!(uniform(&[member("a", &[1]), member("b", &[1])], 3), Err(UniformError::OwnedTwice(1)));
        assert_eq!(uniform(&[member("a", &[3])], 3), Err(UniformError::NoSuchPartition(3)));
        assert_eq!(
            uniform(&[member("a", &[]), member("a", &[])], 3),
            Err(UniformError::RepeatedMember("a".into()))
        );
        assert_eq!(uniform(&[], 3), Ok(vec![]));
    }
}
