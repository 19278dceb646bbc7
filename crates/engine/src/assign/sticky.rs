//! Kafka's `AbstractStickyAssignor`: `allSubscriptionsEqual` (which
//! previously owned partitions count, and whether every member subscribes
//! to the same topics), then, when they do, `ConstrainedAssignmentBuilder`
//! (keep owned partitions up to the quota, then hand out the rest
//! round-robin) and otherwise `GeneralAssignmentBuilder` (`general.rs`),
//! without racks.

#[cfg(feature = "uneven-subscriptions")]
use super::general;
use super::java;
use super::{Joined, Tp, Universe};
use std::collections::VecDeque;

/// What the assignor decided.
#[derive(Debug)]
pub(super) struct Outcome {
    /// Each member's partitions (indexed like `members`).
    pub assignment: Vec<Vec<Tp>>,
    /// `partitionsTransferringOwnership`: whether each partition (by
    /// [`Universe::flat`] index) changes owner, which the cooperative
    /// assignor leaves out of the round.
    pub transferring: Vec<bool>,
}

impl Outcome {
    /// `CooperativeStickyAssignor.adjustAssignment`: the assignment without what transfers.
    pub fn without_transferring(&self, universe: &Universe) -> Vec<Vec<Tp>> {
        self.assignment
            .iter()
            .map(|tps| tps.iter().copied().filter(|&tp| !self.transferring[universe.flat(tp)]).collect())
            .collect()
    }
}

/// What `allSubscriptionsEqual` works out from the members' claims.
pub(super) struct Claims {
    /// `consumerToOwnedPartitions`: what each member may keep.
    pub owned: Vec<Vec<Tp>>,
    /// `partitionsWithMultiplePreviousOwners`, by [`Universe::flat`] index.
    pub multiple_owners: Vec<bool>,
    /// `maxGeneration`.
    // Read by the general path only.
    #[cfg_attr(not(feature = "uneven-subscriptions"), allow(dead_code))]
    pub max_generation: i32,
    /// Whether every subscription (as given) is the same.
    pub all_equal: bool,
}

/// `allSubscriptionsEqual`, walking the members in `subscription_order`.
/// Claims are of partitions in `universe` (see [`Universe::claims`]).
fn all_subscriptions_equal(universe: &Universe, members: &[Joined], subscription_order: &[usize]) -> Claims {
    let n = members.len();
    let total = universe.total_partitions();
    let mut all_equal = true;
    let mut subscribed: Option<&[&str]> = None;
    let mut max_generation = super::DEFAULT_GENERATION;
    let mut owned: Vec<Vec<Tp>> = vec![Vec::new(); n];
    let mut multiple_owners = vec![false; total];
    // Each partition's previous owner, by flat index.
    let mut previous_owner: Vec<Option<usize>> = vec![None; total];
    for &m in subscription_order {
        let member = &members[m];
        match subscribed {
            Some(topics) if !topics.is_empty() => all_equal &= topics == member.topics.as_slice(),
            // An empty subscription does not set the topics the others are compared with.
            _ => subscribed = Some(&member.topics),
        }
        max_generation = max_generation.max(member.generation);
        for &tp in &member.claims {
            let at = universe.flat(tp);
            let Some(other) = previous_owner[at] else {
                owned[m].push(tp);
                previous_owner[at] = Some(m);
                continue;
            };
            let other_generation = members[other].generation;
            if member.generation >= other_generation {
                if member.generation == other_generation {
                    multiple_owners[at] = true;
                } else {
                    owned[m].push(tp);
                }
                if let Some(at) = owned[other].iter().position(|&o| o == tp) {
                    owned[other].remove(at);
                }
                previous_owner[at] = Some(m);
            }
        }
    }
    Claims { owned, multiple_owners, max_generation, all_equal }
}

/// Runs the assignor. `members` are in the coordinator's order (the order
/// their JoinGroup subscriptions arrive in, which is the insertion order of
/// Kafka's `subscriptions` map).
pub(super) fn assign(universe: &Universe, members: &[Joined]) -> Outcome {
    if members.is_empty() {
        return Outcome { assignment: Vec::new(), transferring: vec![false; universe.total_partitions()] };
    }
    // ConsumerCoordinator.onLeaderElected: `subscriptions` is a HashMap filled in JoinGroup order.
    let ids: Vec<&str> = members.iter().map(|m| m.id).collect();
    let subscription_order = java::hash_map_order(&ids);
    let claims = all_subscriptions_equal(universe, members, &subscription_order);
    // `consumerToOwnedPartitions`, another HashMap, filled in `subscriptions` order.
    let owned_keys: Vec<&str> = subscription_order.iter().map(|&m| ids[m]).collect();
    let owned_order: Vec<usize> =
        java::hash_map_order(&owned_keys).into_iter().map(|k| subscription_order[k]).collect();
    if claims.all_equal {
        return constrained(universe, &ids, &owned_order, claims);
    }
    #[cfg(feature = "uneven-subscriptions")]
    {
        general::build(universe, members, &subscription_order, claims)
    }
    // The simulation's members all subscribe to its one topic: only `offsetlab assign` (and the
    // conformance harness through it) gives members different subscriptions, and the page is
    // built without the general path to stay within its size budget.
    #[cfg(not(feature = "uneven-subscriptions"))]
    {
        let _ = subscription_order;
        unreachable!("uneven subscriptions need the engine's `uneven-subscriptions` feature")
    }
}

/// `ConstrainedAssignmentBuilder`, the owned partitions walked in `owned_order`.
fn constrained(universe: &Universe, members: &[&str], owned_order: &[usize], claims: Claims) -> Outcome {
    let n = members.len();
    let Claims { owned, multiple_owners, .. } = claims;
    let mut assignment = vec![Vec::new(); n];
    let total = universe.total_partitions();
    // Tables by flat partition index (`Universe::flat`).
    let mut transferring = vec![false; total];
    let min_quota = total / n;
    let max_quota = total.div_ceil(n);
    let expected_over_min = total % n;
    let mut current_over_min = 0;
    // maybeRevokedPartitions: partition -> the member it was taken from.
    let mut revoked: Vec<Option<usize>> = vec![None; total];
    let mut under_min: Vec<usize> = Vec::new();
    let mut exactly_min: VecDeque<usize> = VecDeque::new();
    let mut assigned = vec![false; total];

    // assignOwnedPartitions: owned partitions sorted by partition, then topic.
    for &c in owned_order {
        let mut mine = owned[c].clone();
        crate::order::sort_stable_by_key(&mut mine, |&(topic, partition)| (partition, topic));
        mine.retain(|&tp| !multiple_owners[universe.flat(tp)]);
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
        for &tp in &mine[..keep] {
            assigned[universe.flat(tp)] = true;
        }
        for &tp in &mine[keep..] {
            revoked[universe.flat(tp)] = Some(c);
        }
    }

    // Partitions nobody kept, by topic then partition.
    let unassigned: Vec<Tp> = universe.all().filter(|&tp| !assigned[universe.flat(tp)]).collect();
    let by_name = |a: &usize, b: &usize| java::compare(members[*a], members[*b]);
    crate::order::sort_stable_by(&mut under_min, by_name);
    crate::order::sort_stable_by(exactly_min.make_contiguous(), by_name);

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
        // assignNewPartition: taken from another member, or claimed by several.
        let at = universe.flat(tp);
        if revoked[at].is_some_and(|from| from != consumer) || multiple_owners[at] {
            transferring[at] = true;
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
