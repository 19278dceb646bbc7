//! Partition assignors, exactly as Kafka's Java client implements them:
//! `RangeAssignor`, `RoundRobinAssignor`, `StickyAssignor` and
//! `CooperativeStickyAssignor` (checked against Kafka 4.4.0's, called
//! directly, on generated groups: `conformance/`), without racks. Members
//! may subscribe to different topics (the sticky assignors then take their
//! general path), be static (`group.instance.id`, which orders range and
//! round-robin), and claim what they owned in a given generation.
//!
//! [`assign`] computes the assignment of a group whose members all
//! subscribe to every topic, [`assign_members`] that of any group, and
//! [`cooperative_first_round`] / [`cooperative_first_round_of`] the first
//! of cooperative-sticky's rebalances. All are deterministic: where Kafka's
//! result depends on the iteration order of a Java `HashMap` or `HashSet`
//! (which members may keep one partition more than the others, which
//! partition moves back), that order is replayed (`java.rs`, `general.rs`).

mod eager;
#[cfg(feature = "uneven-subscriptions")]
mod general;
mod java;
mod simple;
mod sticky;
mod uniform;

pub(crate) use java::TimelineHashOrder;
pub use simple::{ShareMember, simple};
pub use uniform::{TargetMember, UniformError, uniform};

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

/// Kafka's `RangeAssignor` for one topic: members sorted by member id as
/// plain strings; each gets `P / C` consecutive partitions and the first
/// `P % C` members one more. Members beyond the partition count get none.
///
/// `members` must be distinct, in the assignor's order: sorted by member id,
/// except that static members come first, by instance id (the caller sorts).
/// Returns every member, in order, with its partitions ascending.
#[must_use]
pub fn range<'a>(members: &[&'a str], partitions: u32) -> Vec<(&'a str, Vec<u32>)> {
    assert!(all_distinct(members), "members distinct");
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

/// Whether no id repeats. Groups are small (the CLI takes at most 1,000
/// members): a pairwise check, with no set type of its own in the page.
fn all_distinct(ids: &[&str]) -> bool {
    (0..ids.len()).all(|i| !ids[..i].contains(&ids[i]))
}

/// The order both range assignors take members in: Kafka's client
/// `RangeAssignor` and the group coordinator's (`group.remote.assignor=range`,
/// its `sortMemberIds`): static members first, by instance id, then the
/// dynamic ones by member id, all compared as plain strings.
///
/// `members` are `(member id, instance id)`, ids distinct.
#[must_use]
pub fn range_order<'a>(members: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Vec<&'a str> {
    let mut statics: Vec<(&str, &str)> = Vec::new();
    let mut dynamics: Vec<&str> = Vec::new();
    for (member_id, instance_id) in members {
        match instance_id {
            Some(instance) => statics.push((instance, member_id)),
            None => dynamics.push(member_id),
        }
    }
    // Through the engine's one sort (ids are distinct: stability is moot).
    crate::order::sort_stable_by(&mut statics, Ord::cmp);
    crate::order::sort_stable_by(&mut dynamics, Ord::cmp);
    statics.into_iter().map(|(_, id)| id).chain(dynamics).collect()
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
            crate::quote::quoted(&self.0)
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

/// One member of a group as its JoinGroup request describes it to the
/// leader's assignor (`ConsumerPartitionAssignor.Subscription`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Member {
    /// The member id the coordinator gave it (`c1-<uuid>` in Kafka).
    pub id: String,
    /// `group.instance.id`, for a static member. Range and round-robin put
    /// static members first, ordered by it; the sticky assignors ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_instance_id: Option<String>,
    /// The topics it subscribes to. Topics the group's metadata lacks are
    /// ignored, except that the sticky assignors compare subscriptions as given.
    pub topics: BTreeSet<String>,
    /// What it owned (topic → partitions): the sticky assignor's user data,
    /// cooperative-sticky's owned partitions. Partitions of topics no longer
    /// in the metadata are dropped, as in Kafka. Range and round-robin ignore it.
    #[serde(default)]
    pub owned: BTreeMap<String, Vec<u32>>,
    /// The generation it owned them in (none for a member that never had an
    /// assignment). Where two members claim a partition, the later
    /// generation keeps it; in one generation, neither does. With uneven
    /// subscriptions the sticky assignor also prefers a partition's owner of
    /// an earlier generation when the current owner has more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i32>,
}

/// `AbstractStickyAssignor.DEFAULT_GENERATION`.
const DEFAULT_GENERATION: i32 = -1;

/// How many rebalances [`assign_members`] lets cooperative-sticky take to
/// settle (Kafka has no such limit; every case seen settles in two).
const COOPERATIVE_ROUNDS_MAX: usize = 16;

/// A topic partition: (index of the topic in Kafka's topic order, partition).
/// Deriving `Ord` gives Kafka's order of topic partitions: by topic, then partition.
type Tp = (u32, u32);

/// The group's topics that some member subscribes to and the metadata has
/// (`partitionsPerTopic`), sorted as Kafka sorts topic names (`String.compareTo`).
#[derive(Debug)]
struct Universe<'a> {
    topics: Vec<(&'a str, u32)>,
}

/// A member as the assignors see it, its subscription and claims in [`Universe`] terms.
#[derive(Debug, Clone)]
struct Joined<'a> {
    id: &'a str,
    instance: Option<&'a str>,
    /// The subscription as given, in order (the sticky assignor compares these).
    topics: Vec<&'a str>,
    /// Per universe topic: whether it subscribes.
    subscribed: Vec<bool>,
    /// Owned partitions that still exist, in the order given.
    claims: Vec<Tp>,
    /// `MemberData.generation`, `DEFAULT_GENERATION` when absent.
    generation: i32,
    has_generation: bool,
    /// Whether it claimed partitions the assignors drop (of topics no member
    /// subscribes to or the metadata lacks): it revokes them after the round.
    dropped: bool,
}

impl<'a> Universe<'a> {
    fn new(topics: &'a TopicPartitions, members: &[Member]) -> Self {
        let mut topics: Vec<(&str, u32)> = topics
            .iter()
            .filter(|&(t, &p)| p > 0 && members.iter().any(|m| m.topics.contains(t)))
            .map(|(t, &p)| (t.as_str(), p))
            .collect();
        crate::order::sort_stable_by(&mut topics, |a, b| java::compare(a.0, b.0));
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

    /// A topic partition's place in [`Universe::all`]'s order, from 0: the
    /// index of tables with an entry per partition.
    fn flat(&self, (topic, partition): Tp) -> usize {
        self.topics[..topic as usize].iter().map(|&(_, p)| p as usize).sum::<usize>() + partition as usize
    }

    fn topic_index(&self, name: &str) -> Option<u32> {
        self.topics.iter().position(|&(t, _)| t == name).map(|i| i as u32)
    }

    fn name(&self, topic: u32) -> &'a str {
        self.topics[topic as usize].0
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

    fn join<'m>(&self, member: &'m Member) -> Joined<'m> {
        let claims = self.claims(Some(&member.owned));
        Joined {
            dropped: claims.len() < member.owned.values().map(Vec::len).sum::<usize>(),
            id: &member.id,
            instance: member.group_instance_id.as_deref(),
            topics: member.topics.iter().map(String::as_str).collect(),
            subscribed: self.topics.iter().map(|&(t, _)| member.topics.contains(t)).collect(),
            claims,
            generation: member.generation.unwrap_or(DEFAULT_GENERATION),
            has_generation: member.generation.is_some(),
        }
    }

    /// Plain data: every member, every topic of `all_topics`, partitions ascending.
    fn to_assignment(
        &self,
        all_topics: &TopicPartitions,
        members: &[&str],
        plan: Vec<Vec<Tp>>,
    ) -> Assignment {
        crate::order::btree_map(members.iter().zip(plan).map(|(&member, tps)| {
            let mut topics: BTreeMap<String, Vec<u32>> =
                crate::order::btree_map(all_topics.keys().map(|t| (t.clone(), Vec::new())));
            for (t, p) in tps {
                topics.entry(self.name(t).to_string()).or_default().push(p);
            }
            topics.values_mut().for_each(|ps| crate::order::sort_ids(ps));
            (member.to_string(), topics)
        }))
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
/// For [`Strategy::CooperativeSticky`] this is where its rebalances end
/// (see [`assign_members`]).
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
    assign_members(strategy, &everyone(members, topics, previous), topics)
}

/// Members subscribing to every topic, owning what `previous` gives them, all of one generation.
fn everyone(members: &[String], topics: &TopicPartitions, previous: &Assignment) -> Vec<Member> {
    let all: BTreeSet<String> = crate::order::btree_set(topics.keys().cloned());
    members
        .iter()
        .map(|id| Member {
            id: id.clone(),
            group_instance_id: None,
            topics: all.clone(),
            owned: previous.get(id).cloned().unwrap_or_default(),
            generation: Some(1),
        })
        .collect()
}

/// The assignment Kafka's assignor `strategy` computes for `members`, each
/// with its own subscription, group instance id, owned partitions and
/// generation, given the topics the metadata has.
///
/// `members` are in the order the group coordinator lists them (the
/// JoinGroup order, which is the insertion order of the leader's
/// `HashMap` of subscriptions): where Kafka's result depends on that map's
/// iteration order, it is replayed.
///
/// For [`Strategy::CooperativeSticky`] this is where its rebalances end.
/// The first hands out the sticky assignment without the partitions that
/// change owner ([`cooperative_first_round_of`]); their owners revoke them
/// and everyone rejoins, owning what the first round gave them, in one new
/// generation; the next rebalance runs the same algorithm on that, and so
/// on until a rebalance takes nothing from anyone (a member that loses a
/// partition, even of a deleted topic, rejoins). That is usually the
/// sticky assignment after two rebalances, but not always: the second
/// round hands the revoked partitions out again round-robin, among members
/// whose counts the first round changed, and may place them differently.
///
/// # Panics
///
/// If `members` repeats a member id.
#[must_use]
pub fn assign_members(strategy: Strategy, members: &[Member], topics: &TopicPartitions) -> Assignment {
    let names: Vec<&str> = members.iter().map(|m| m.id.as_str()).collect();
    assert!(all_distinct(&names), "member ids are distinct");
    let universe = Universe::new(topics, members);
    let joined: Vec<Joined> = members.iter().map(|m| universe.join(m)).collect();
    let plan = plan(strategy, &universe, joined);
    universe.to_assignment(topics, &names, plan)
}

/// The partitions `strategy` gives each of `members` (indexed alike); for
/// cooperative-sticky, where its rebalances end (see [`assign_members`]).
fn plan(strategy: Strategy, universe: &Universe, joined: Vec<Joined>) -> Vec<Vec<Tp>> {
    match strategy {
        Strategy::Range => eager::range(universe, &joined),
        Strategy::RoundRobin => eager::round_robin(universe, &joined),
        Strategy::Sticky => sticky::assign(universe, &joined).assignment,
        Strategy::CooperativeSticky => {
            let mut round = joined;
            let mut generation = round.iter().map(|m| m.generation).max().unwrap_or(DEFAULT_GENERATION);
            let mut rounds = 0;
            loop {
                let outcome = sticky::assign(universe, &round);
                let first_round = outcome.without_transferring(universe);
                rounds += 1;
                // A member that lost something it owned revokes it and rejoins.
                let revoked = round
                    .iter()
                    .zip(&first_round)
                    .any(|(m, got)| m.dropped || m.claims.iter().any(|tp| !got.contains(tp)));
                if !revoked || rounds == COOPERATIVE_ROUNDS_MAX {
                    break first_round;
                }
                // Everyone rejoins in the generation the round created, owning what it got.
                generation = generation.max(0) + 1;
                for (member, owned) in round.iter_mut().zip(first_round) {
                    member.claims = owned;
                    member.generation = generation;
                    member.has_generation = true;
                    member.dropped = false;
                }
            }
        }
    }
}

/// [`assign`] for a group whose members all subscribe to one topic of
/// `partitions` partitions, in index form: `owned[m]` is what `members[m]`
/// owned in the previous generation (all of one generation), and the result
/// gives each member's partitions, ascending, in `members` order. The same
/// assignment as [`assign`] of `{topic: partitions}` with those members and
/// `{member: {topic: owned}}`, without building the maps of names (what the
/// group coordinator asks of its members' assignors).
///
/// # Panics
///
/// If `members` repeats a member id, or `owned` is not one list per member.
#[must_use]
pub(crate) fn assign_topic(
    strategy: Strategy,
    topic: &str,
    partitions: u32,
    members: &[&str],
    owned: &[Vec<u32>],
) -> Vec<Vec<u32>> {
    assert!(all_distinct(members), "member ids are distinct");
    assert_eq!(members.len(), owned.len(), "one owned list per member");
    // As `Universe::new`: the topic counts if it has partitions and some member subscribes.
    let topics = if partitions > 0 && !members.is_empty() { vec![(topic, partitions)] } else { Vec::new() };
    let universe = Universe { topics };
    // As `Universe::join` of a member subscribing to the topic, in generation 1.
    let joined = members
        .iter()
        .zip(owned)
        .map(|(&id, owned)| {
            let claims: Vec<Tp> = if universe.topics.is_empty() {
                Vec::new()
            } else {
                owned.iter().filter(|&&p| p < partitions).map(|&p| (0, p)).collect()
            };
            Joined {
                dropped: claims.len() < owned.len(),
                id,
                instance: None,
                topics: vec![topic],
                subscribed: vec![true; universe.topics.len()],
                claims,
                generation: 1,
                has_generation: true,
            }
        })
        .collect();
    plan(strategy, &universe, joined)
        .into_iter()
        .map(|tps| {
            let mut partitions: Vec<u32> = tps.into_iter().map(|(_, p)| p).collect();
            crate::order::sort_ids(&mut partitions);
            partitions
        })
        .collect()
}

/// Cooperative-sticky's first rebalance for `members`: the sticky
/// assignment without `partitionsTransferringOwnership`, the partitions
/// that change owner, which their owners must revoke first.
///
/// # Panics
///
/// If `members` repeats a member id.
#[must_use]
pub fn cooperative_first_round_of(members: &[Member], topics: &TopicPartitions) -> Assignment {
    let names: Vec<&str> = members.iter().map(|m| m.id.as_str()).collect();
    assert!(all_distinct(&names), "member ids are distinct");
    let universe = Universe::new(topics, members);
    let joined: Vec<Joined> = members.iter().map(|m| universe.join(m)).collect();
    let outcome = sticky::assign(&universe, &joined);
    universe.to_assignment(topics, &names, outcome.without_transferring(&universe))
}

/// [`cooperative_first_round`] in [`assign_topic`]'s index form: `target[m]`
/// and `owned[m]` are what `members[m]` gets and owned, all of one topic of
/// `partitions` partitions; each member keeps the partitions of its target
/// that no other member owned and that only it claimed.
///
/// # Panics
///
/// If `owned` is not one list per `target` list.
#[must_use]
pub(crate) fn cooperative_first_round_topic(
    target: &[Vec<u32>],
    owned: &[Vec<u32>],
    partitions: u32,
) -> Vec<Vec<u32>> {
    assert_eq!(target.len(), owned.len(), "one owned list per member");
    // By partition: (claims, the last claimant).
    let mut claims: Vec<(usize, usize)> = vec![(0, 0); partitions as usize];
    for (m, partitions) in owned.iter().enumerate() {
        for &p in partitions {
            if let Some(claim) = claims.get_mut(p as usize) {
                *claim = (claim.0 + 1, m);
            }
        }
    }
    target
        .iter()
        .enumerate()
        .map(|(m, partitions)| {
            let kept = |&&p: &&u32| match claims.get(p as usize) {
                None | Some((0, _)) => true,
                Some(&(count, owner)) => count == 1 && owner == m,
            };
            partitions.iter().filter(kept).copied().collect()
        })
        .collect()
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
    let mut claims: litemap::LiteMap<(&str, u32), (usize, &str)> = litemap::LiteMap::new();
    for (member, topics) in previous.iter().filter(|(m, _)| target.contains_key(*m)) {
        for (topic, partitions) in topics {
            for &p in partitions {
                let entry = claims.entry((topic.as_str(), p)).or_insert((0, member.as_str()));
                entry.0 += 1;
                entry.1 = member.as_str();
            }
        }
    }
    crate::order::btree_map(target.iter().map(|(member, topics)| {
        let kept = crate::order::btree_map(topics.iter().map(|(topic, partitions)| {
            let stays = partitions
                .iter()
                .copied()
                .filter(|&p| match claims.get(&(topic.as_str(), p)) {
                    None => true,
                    Some(&(count, owner)) => count == 1 && owner == member,
                })
                .collect();
            (topic.clone(), stays)
        }));
        (member.clone(), kept)
    }))
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

    /// The index form gives what the maps of names give, for every strategy,
    /// and so does the cooperative first round, whatever the members owned
    /// (overlaps, partitions past the count, members that owned nothing).
    #[test]
    fn one_topic_index_form_matches_the_maps() {
        const TOPIC: &str = "orders";
        let ids = ["c3-x", "c1-b", "c10-a", "c2-y", "c4-z"];
        let mut seed = 7u64;
        let mut next = move |bound: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % bound
        };
        for case in 0..400 {
            let count = 1 + case % ids.len();
            let members: Vec<&str> = ids[..count].to_vec();
            let partitions = u32::try_from(next(9)).unwrap();
            let owned: Vec<Vec<u32>> = members
                .iter()
                .map(|_| (0..next(4)).map(|_| u32::try_from(next(11)).unwrap()).collect())
                .collect();
            let names: Vec<String> = members.iter().map(|m| (*m).to_string()).collect();
            let topics: TopicPartitions = crate::order::btree_map([(TOPIC.to_string(), partitions)]);
            let previous: Assignment = crate::order::btree_map(
                names
                    .iter()
                    .zip(&owned)
                    .map(|(m, o)| (m.clone(), crate::order::btree_map([(TOPIC.to_string(), o.clone())]))),
            );
            let of_maps = |result: &Assignment| -> Vec<Vec<u32>> {
                names.iter().map(|m| result[m][TOPIC].clone()).collect()
            };
            for strategy in Strategy::ALL {
                let expected = of_maps(&assign(strategy, &names, &topics, &previous));
                let got = assign_topic(strategy, TOPIC, partitions, &members, &owned);
                assert_eq!(got, expected, "{strategy} case {case}: {owned:?}, {partitions} partitions");
            }
            let target = assign(Strategy::Sticky, &names, &topics, &previous);
            let expected = of_maps(&cooperative_first_round(&target, &previous));
            let got = cooperative_first_round_topic(&of_maps(&target), &owned, partitions);
            assert_eq!(got, expected, "first round, case {case}: {owned:?}, {partitions} partitions");
        }
    }
}
