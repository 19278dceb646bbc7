//! Kafka's `AbstractStickyAssignor` when every member subscribes to the same
//! topics: `allSubscriptionsEqual` (which previously owned partitions count)
//! and `ConstrainedAssignmentBuilder` (keep owned partitions up to the quota,
//! then hand out the rest round-robin), without racks.

use super::java;
use super::{Tp, Universe};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// What the builder decided.
#[derive(Debug)]
pub(super) struct Outcome {
    /// Each member's partitions (indexed like `members`), in the order Kafka adds them.
    pub assignment: Vec<Vec<Tp>>,
    /// `partitionsTransferringOwnership`: partitions given to a member other
    /// than the one that owned them, or claimed by several members. The
    /// cooperative assignor leaves them out of the first round.
    pub transferring: BTreeMap<Tp, usize>,
}

/// Runs the assignor. `members` are in the coordinator's order (the order
/// their JoinGroup subscriptions arrive in, which is the insertion order of
/// Kafka's `subscriptions` map); `claims[m]` lists the partitions member `m`
/// reports as owned, already limited to existing partitions, in its order.
pub(super) fn constrained(universe: &Universe, members: &[&str], claims: &[Vec<Tp>]) -> Outcome {
    let n = members.len();
    let mut assignment = vec![Vec::new(); n];
    let mut transferring = BTreeMap::new();
    if n == 0 {
        return Outcome { assignment, transferring };
    }

    // ConsumerCoordinator.onLeaderElected: `subscriptions` is a HashMap filled in JoinGroup order.
    let subscription_order = java::hash_map_order(members);

    // allSubscriptionsEqual: walk `subscriptions`, filling `consumerToOwnedPartitions` (another
    // HashMap). Every member here is of the same generation, so a partition claimed twice is
    // taken from both claimants.
    let mut owned: Vec<Vec<Tp>> = vec![Vec::new(); n];
    let mut multiple_owners: BTreeSet<Tp> = BTreeSet::new();
    let mut previous_owner: BTreeMap<Tp, usize> = BTreeMap::new();
    for &m in &subscription_order {
        for &tp in &claims[m] {
            match previous_owner.insert(tp, m) {
                None => owned[m].push(tp),
                Some(other) => {
                    multiple_owners.insert(tp);
                    if let Some(at) = owned[other].iter().position(|&o| o == tp) {
                        owned[other].remove(at);
                    }
                }
            }
        }
    }
    let owned_keys: Vec<&str> = subscription_order.iter().map(|&m| members[m]).collect();
    let owned_order: Vec<usize> =
        java::hash_map_order(&owned_keys).into_iter().map(|k| subscription_order[k]).collect();

    // ConstrainedAssignmentBuilder.
    let total = universe.total_partitions();
    let min_quota = total / n;
    let max_quota = total.div_ceil(n);
    let expected_over_min = total % n;
    let mut current_over_min = 0;
    let mut revoked: BTreeSet<Tp> = BTreeSet::new();
    let mut under_min: Vec<usize> = Vec::new();
    let mut exactly_min: VecDeque<usize> = VecDeque::new();
    let mut assigned: BTreeSet<Tp> = BTreeSet::new();

    // assignOwnedPartitions: owned partitions sorted by partition, then topic.
    for &c in &owned_order {
        let mut mine = owned[c].clone();
        mine.sort_by_key(|&(topic, partition)| (partition, topic));
        mine.retain(|tp| !multiple_owners.contains(tp));
        let keep = if mine.len() < min_quota {
            under_min.push(c);
            mine.len()
        } else if mine.len() >= max_quota && current_over_min < expected_over_min {
            current_over_min += 1;
            if current_over_min == expected_over_min {
                exactly_min.clear();
            }
            max_quota
        } else {
            if current_over_min < expected_over_min {
                exactly_min.push_back(c);
            }
            min_quota
        };
        assignment[c].extend_from_slice(&mine[..keep]);
        assigned.extend(&mine[..keep]);
        revoked.extend(&mine[keep..]);
    }

    // Partitions nobody kept, by topic then partition.
    let unassigned: Vec<Tp> = universe.all().filter(|tp| !assigned.contains(tp)).collect();
    let by_name = |a: &usize, b: &usize| java::compare(members[*a], members[*b]);
    under_min.sort_by(by_name);
    exactly_min.make_contiguous().sort_by(by_name);

    // assignRoundRobin: cycle through the members under the minimum quota (a
    // LinkedList iterator that restarts when exhausted); once none is left,
    // take members at the minimum from the front of their queue.
    let mut cursor = 0;
    for tp in unassigned {
        let consumer = if cursor < under_min.len() {
            cursor += 1;
            under_min[cursor - 1]
        } else if under_min.is_empty() {
            exactly_min.pop_front().expect("Kafka: No more unfilled consumers to be assigned")
        } else {
            cursor = 1;
            under_min[0]
        };
        assignment[consumer].push(tp);
        if revoked.contains(&tp) || multiple_owners.contains(&tp) {
            transferring.insert(tp, consumer);
        }
        let count = assignment[consumer].len();
        if count == min_quota {
            cursor -= 1;
            under_min.remove(cursor);
            exactly_min.push_back(consumer);
        } else if count == max_quota {
            current_over_min += 1;
        }
    }
    debug_assert!(
        under_min.is_empty()
            || (current_over_min == expected_over_min
                && under_min.iter().all(|&c| assignment[c].len() == min_quota)),
        "verifyUnfilledMembers: every member reaches the minimum quota"
    );
    Outcome { assignment, transferring }
}
