//! Partition assignors, exactly as Kafka's Java client implements them:
//! `RangeAssignor`, `RoundRobinAssignor`, `StickyAssignor` and
//! `CooperativeStickyAssignor` (Kafka 3.8 and later, when each member's owned
//! partitions are kept lowest partition number first), for a group whose
//! members all subscribe to every topic, without racks or static members.
//!
//! [`assign`] computes a group's assignment from plain data and
//! [`cooperative_first_round`] the first of cooperative-sticky's two
//! rebalances. Both are deterministic: where Kafka's result depends on the
//! iteration order of a Java `HashMap` (which members may keep one partition
//! more than the others), that order is replayed exactly (`java.rs`).

mod eager;
mod java;
mod sticky;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

/// Kafka's `RangeAssignor` for one topic: members sorted by member id as
/// plain strings; each gets `P / C` consecutive partitions and the first
/// `P % C` members one more. Members beyond the partition count get none.
///
/// `members` must be sorted and distinct. Returns every member, in order, with
/// its partitions ascending.
#[must_use]
pub fn range<'a>(members: &[&'a str], partitions: u32) -> Vec<(&'a str, Vec<u32>)> {
    assert!(members.windows(2).all(|w| w[0] < w[1]), "members sorted and distinct");
    let count = members.len() as u32;
    if count == 0 {
        return Vec::new();
    }
    let per_member = partitions / count;
    let extra = partitions % count;
    members
        .iter()
        .enumerate()
        .map(|(i, &member)| {
            let i = i as u32;
            let start = per_member * i + i.min(extra);
            let length = per_member + u32::from(i < extra);
            (member, (start..start + length).collect())
        })
        .collect()
}

/// One of Kafka's four client-side assignors, by its `partition.assignment.strategy` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// `RangeAssignor` (`range`): per topic, consecutive partitions to the sorted members.
    Range,
    /// `RoundRobinAssignor` (`roundrobin`): all partitions, in turn, to the sorted members.
    #[serde(rename = "roundrobin")]
    RoundRobin,
    /// `StickyAssignor` (`sticky`): balanced, keeping owned partitions; eager rebalances.
    Sticky,
    /// `CooperativeStickyAssignor` (`cooperative-sticky`): the sticky algorithm over two
    /// rebalances, the first holding back what changes owner (see [`assign`] and
    /// [`cooperative_first_round`]).
    CooperativeSticky,
}

impl Strategy {
    /// Every strategy, in Kafka's documentation order.
    pub const ALL: [Strategy; 4] =
        [Strategy::Range, Strategy::RoundRobin, Strategy::Sticky, Strategy::CooperativeSticky];

    /// The assignor's name (`ConsumerPartitionAssignor.name()`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Range => "range",
            Strategy::RoundRobin => "roundrobin",
            Strategy::Sticky => "sticky",
            Strategy::CooperativeSticky => "cooperative-sticky",
        }
    }

    /// Whether the assignor keeps what members owned before (sticky and cooperative-sticky).
    #[must_use]
    pub fn is_sticky(self) -> bool {
        matches!(self, Strategy::Sticky | Strategy::CooperativeSticky)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Strategy::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownStrategy(pub String);

impl fmt::Display for UnknownStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown strategy {}; expected range, roundrobin, sticky or cooperative-sticky",
            crate::codec::quoted(&self.0)
        )
    }
}

impl std::error::Error for UnknownStrategy {}

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    fn from_str(s: &str) -> Result<Strategy, UnknownStrategy> {
        Strategy::ALL.into_iter().find(|st| st.name() == s).ok_or_else(|| UnknownStrategy(s.to_string()))
    }
}

/// Topics and their partition counts: topic → partitions.
pub type TopicPartitions = BTreeMap<String, u32>;

/// Member → topic → partitions. What [`assign`] returns lists every member
/// and, for each, every topic (an empty list when it gets none), partitions
/// ascending. As an input (`previous`), missing members and topics mean
/// "owned nothing".
pub type Assignment = BTreeMap<String, BTreeMap<String, Vec<u32>>>;

/// A topic partition: (index of the topic in Kafka's topic order, partition).
/// Deriving `Ord` gives Kafka's order of topic partitions: by topic, then partition.
type Tp = (u32, u32);

/// The group's topics, sorted as Kafka sorts topic names (`String.compareTo`).
#[derive(Debug)]
struct Universe<'a> {
    topics: Vec<(&'a str, u32)>,
}

impl<'a> Universe<'a> {
    fn new(topics: &'a TopicPartitions) -> Self {
        let mut topics: Vec<(&str, u32)> = topics.iter().map(|(t, &p)| (t.as_str(), p)).collect();
        topics.sort_by(|a, b| java::compare(a.0, b.0));
        Universe { topics }
    }

    /// (topic index, partition count), in topic order.
    fn topics(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0u32..).zip(self.topics.iter().map(|&(_, p)| p))
    }

    /// Every topic partition, by topic then partition.
    fn all(&self) -> impl Iterator<Item = Tp> + '_ {
        self.topics().flat_map(|(t, count)| (0..count).map(move |p| (t, p)))
    }

    fn total_partitions(&self) -> usize {
        self.topics.iter().map(|&(_, p)| p as usize).sum()
    }

    fn topic_index(&self, name: &str) -> Option<u32> {
        self.topics.iter().position(|&(t, _)| t == name).map(|i| i as u32)
    }

    /// The partitions a member reports as owned that still exist (Kafka drops
    /// topics the group no longer has; a partition number beyond the count
    /// cannot occur in Kafka, where partitions are never removed, and is
    /// dropped too).
    fn claims(&self, owned: Option<&BTreeMap<String, Vec<u32>>>) -> Vec<Tp> {
        let mut claims = Vec::new();
        for (topic, partitions) in owned.into_iter().flatten() {
            let Some(t) = self.topic_index(topic) else { continue };
            let count = self.topics[t as usize].1;
            claims.extend(partitions.iter().filter(|&&p| p < count).map(|&p| (t, p)));
        }
        claims
    }

    /// Plain data: every member, every topic, partitions ascending.
    fn to_assignment(&self, members: &[&str], plan: Vec<Vec<Tp>>) -> Assignment {
        members
            .iter()
            .zip(plan)
            .map(|(&member, tps)| {
                let mut topics: BTreeMap<String, Vec<u32>> =
                    self.topics.iter().map(|&(t, _)| (t.to_string(), Vec::new())).collect();
                for (t, p) in tps {
                    topics.get_mut(self.topics[t as usize].0).expect("a known topic").push(p);
                }
                topics.values_mut().for_each(|ps| ps.sort_unstable());
                (member.to_string(), topics)
            })
            .collect()
    }
}

/// The assignment Kafka's assignor `strategy` computes for a group whose
/// `members` all subscribe to every topic in `topics`.
///
/// `members` are in the order the group coordinator lists them (the
/// JoinGroup order); only the sticky assignors can depend on it, and only
/// for member ids whose hashes collide in Java's `HashMap`. `previous` is
/// what each member owned in the previous generation (the sticky assignors'
/// user data, or cooperative-sticky's owned partitions); range and
/// round-robin ignore it, as do the sticky assignors for members that left.
/// A partition two members claim is kept by neither, as in Kafka.
///
/// For [`Strategy::CooperativeSticky`] this is where its two rebalances
/// end. The first hands out the sticky assignment without the partitions
/// that change owner ([`cooperative_first_round`] of the
/// [`Strategy::Sticky`] assignment); their owners revoke them and rejoin,
/// and the second runs the same algorithm on what each member then owns.
/// That usually ends at the sticky assignment, but not always: the second
/// round hands the revoked partitions out again round-robin, among members
/// whose counts the first round changed, and may place them differently.
/// The second round revokes nothing, so there is no third.
///
/// # Panics
///
/// If `members` repeats a member id.
#[must_use]
pub fn assign(
    strategy: Strategy,
    members: &[String],
    topics: &TopicPartitions,
    previous: &Assignment,
) -> Assignment {
    let names: Vec<&str> = members.iter().map(String::as_str).collect();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), names.len(), "member ids are distinct");
    let universe = Universe::new(topics);
    let plan = match strategy {
        Strategy::Range => eager::range(&universe, &names),
        Strategy::RoundRobin => eager::round_robin(&universe, &names),
        Strategy::Sticky => {
            let claims: Vec<Vec<Tp>> = names.iter().map(|m| universe.claims(previous.get(*m))).collect();
            sticky::constrained(&universe, &names, &claims).assignment
        }
        Strategy::CooperativeSticky => {
            let claims: Vec<Vec<Tp>> = names.iter().map(|m| universe.claims(previous.get(*m))).collect();
            let target = sticky::constrained(&universe, &names, &claims);
            // First rebalance: Kafka's adjustAssignment leaves out partitionsTransferringOwnership.
            let first_round: Vec<Vec<Tp>> = target
                .assignment
                .iter()
                .map(|tps| tps.iter().copied().filter(|tp| !target.transferring.contains_key(tp)).collect())
                .collect();
            if cfg!(debug_assertions) {
                assert_eq!(
                    cooperative_first_round(
                        &universe.to_assignment(&names, target.assignment.clone()),
                        previous
                    ),
                    universe.to_assignment(&names, first_round.clone()),
                    "cooperative_first_round is the target without partitionsTransferringOwnership"
                );
            }
            // Second rebalance: the members own the first round and nobody owns the rest.
            let second = sticky::constrained(&universe, &names, &first_round);
            debug_assert!(second.transferring.is_empty(), "the second rebalance revokes nothing");
            second.assignment
        }
    };
    universe.to_assignment(&names, plan)
}

/// Cooperative-sticky's first rebalance: the `target` assignment without
/// the partitions that change owner, which their owners must revoke first
/// (the members then rejoin, and the second rebalance hands them out).
///
/// A partition changes owner when a member of `target` other than the one
/// that gets it owned it in `previous`, or when several members claimed it
/// (Kafka takes it from every claimant). Partitions of members that left
/// are free at once. With `target` = [`assign`]`(Strategy::Sticky, …)` for
/// the same `previous` (what the leader's `CooperativeStickyAssignor`
/// computes first), this is exactly what Kafka sends: the sticky assignment
/// without `partitionsTransferringOwnership`. Every member and topic of
/// `target` stays in the result.
#[must_use]
pub fn cooperative_first_round(target: &Assignment, previous: &Assignment) -> Assignment {
    // (topic, partition) -> (claims by current members, the last claimant).
    let mut claims: BTreeMap<(&str, u32), (usize, &str)> = BTreeMap::new();
    for (member, topics) in previous.iter().filter(|(m, _)| target.contains_key(*m)) {
        for (topic, partitions) in topics {
            for &p in partitions {
                let entry = claims.entry((topic.as_str(), p)).or_insert((0, member.as_str()));
                entry.0 += 1;
                entry.1 = member.as_str();
            }
        }
    }
    target
        .iter()
        .map(|(member, topics)| {
            let kept = topics
                .iter()
                .map(|(topic, partitions)| {
                    let stays = partitions
                        .iter()
                        .copied()
                        .filter(|&p| match claims.get(&(topic.as_str(), p)) {
                            None => true,
                            Some(&(count, owner)) => count == 1 && owner == member,
                        })
                        .collect();
                    (topic.clone(), stays)
                })
                .collect();
            (member.clone(), kept)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn kafka_range_example() {
        // Kafka's RangeAssignor javadoc: C0, C1; t0 with 3 partitions → C0: [0, 1], C1: [2].
        assert_eq!(range(&["C0", "C1"], 3), vec![("C0", vec![0, 1]), ("C1", vec![2])]);
    }

    #[test]
    fn spares_get_nothing() {
        let got = range(&["a", "b", "c", "d"], 2);
        assert_eq!(got, vec![("a", vec![0]), ("b", vec![1]), ("c", vec![]), ("d", vec![])]);
    }

    #[test]
    fn every_partition_exactly_once() {
        for members in 1..=9u32 {
            let names: Vec<String> = (0..members).map(|i| format!("m{i}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            for partitions in 0..=13 {
                let mut all: Vec<u32> = range(&refs, partitions).into_iter().flat_map(|(_, p)| p).collect();
                all.sort_unstable();
                assert_eq!(all, (0..partitions).collect::<Vec<_>>());
            }
        }
    }
}
