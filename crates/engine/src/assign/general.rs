//! Kafka's `GeneralAssignmentBuilder`, the sticky assignors' path when the
//! members do not all subscribe to the same topics (without racks): keep
//! what each member owned of the topics it still subscribes to, give every
//! other partition to the member with the fewest partitions that
//! subscribes to it, then move partitions one at a time from members with
//! more to members with fewer until no move makes the group more even
//! (`balance`, `performReassignments`), preferring to send a partition back
//! to an owner of an earlier generation, and undoing the moves when they
//! do not lower the balance score.
//!
//! Which partition moves can depend on the iteration order of a
//! `HashSet<TopicPartition>` (`PartitionMovements`), replayed by
//! [`PartitionSet`].

use super::sticky::{Claims, Outcome};
use super::{DEFAULT_GENERATION, Joined, Tp, Universe, java};
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn build(
    universe: &Universe,
    members: &[Joined],
    subscription_order: &[usize],
    claims: Claims,
) -> Outcome {
    let mut builder = Builder::new(universe, members, subscription_order, claims);
    builder.run();
    let mut transferring = vec![false; universe.total_partitions()];
    for tp in builder.transferring() {
        transferring[universe.flat(tp)] = true;
    }
    Outcome { assignment: builder.assignment, transferring }
}

struct Builder<'a> {
    members: &'a [Joined<'a>],
    /// Partition counts by topic index.
    counts: Vec<u32>,
    /// Where a topic's partitions start in flat partition indices.
    offsets: Vec<usize>,
    /// `topic2AllPotentialConsumers`: the members subscribing to each topic.
    potential: Vec<Vec<usize>>,
    /// `consumer2AllPotentialTopics`: each member's subscribed topics (that exist).
    topics_of: Vec<Vec<u32>>,
    /// Each member's partitions if it got all of its topics'.
    max_size: Vec<usize>,
    /// `currentAssignment`.
    assignment: Vec<Vec<Tp>>,
    /// Whether a member is in `currentAssignment` (fixed ones leave it during `balance`).
    present: Vec<bool>,
    /// `currentPartitionConsumer`, by flat partition index.
    owner: Vec<Option<usize>>,
    /// Member ranks in `String.compareTo` order, and the member of each rank.
    rank: Vec<usize>,
    by_rank: Vec<usize>,
    /// `sortedCurrentSubscriptions`: (partition count, rank), fewest first, then by member id.
    sorted: BTreeSet<(usize, usize)>,
    /// `sortedAllPartitions`: by the number of members subscribing to the topic, topic, partition.
    sorted_all: Vec<Tp>,
    /// `prevAssignment`: partition -> (member, generation) for owners of earlier generations.
    prev: BTreeMap<Tp, (usize, i32)>,
    revocation_required: bool,
    movements: Movements,
    subscription_order: &'a [usize],
    max_generation: i32,
}

impl<'a> Builder<'a> {
    fn new(
        universe: &Universe,
        members: &'a [Joined<'a>],
        subscription_order: &'a [usize],
        claims: Claims,
    ) -> Self {
        let n = members.len();
        let counts: Vec<u32> = universe.topics().map(|(_, c)| c).collect();
        let mut offsets = Vec::with_capacity(counts.len());
        let mut total = 0;
        for &c in &counts {
            offsets.push(total);
            total += c as usize;
        }
        let mut potential = vec![Vec::new(); counts.len()];
        let mut topics_of = vec![Vec::new(); n];
        for &m in subscription_order {
            for (t, _) in universe.topics() {
                if members[m].subscribed[t as usize] {
                    potential[t as usize].push(m);
                    topics_of[m].push(t);
                }
            }
        }
        let max_size =
            topics_of.iter().map(|ts| ts.iter().map(|&t| counts[t as usize] as usize).sum()).collect();
        let mut ids: Vec<usize> = (0..n).collect();
        crate::order::sort_stable_by(&mut ids, |&a, &b| java::compare(members[a].id, members[b].id));
        let mut rank = vec![0; n];
        for (r, &m) in ids.iter().enumerate() {
            rank[m] = r;
        }
        let mut sorted_all: Vec<Tp> = universe.all().collect();
        crate::order::sort_stable_by_key(&mut sorted_all, |&(t, p)| (potential[t as usize].len(), t, p));
        let mut builder = Builder {
            members,
            counts,
            offsets,
            potential,
            topics_of,
            max_size,
            assignment: claims.owned,
            present: vec![true; n],
            owner: vec![None; total],
            rank,
            by_rank: ids,
            sorted: BTreeSet::new(),
            sorted_all,
            prev: BTreeMap::new(),
            revocation_required: false,
            movements: Movements {
                topic_hashes: universe.topics.iter().map(|&(t, _)| java::string_hash(t)).collect(),
                ..Movements::default()
            },
            subscription_order,
            max_generation: claims.max_generation,
        };
        for m in 0..n {
            for i in 0..builder.assignment[m].len() {
                let at = builder.flat(builder.assignment[m][i]);
                builder.owner[at] = Some(m);
            }
        }
        builder
    }

    fn flat(&self, (t, p): Tp) -> usize {
        self.offsets[t as usize] + p as usize
    }

    fn size(&self, m: usize) -> usize {
        self.assignment[m].len()
    }

    fn subscribes(&self, m: usize, topic: u32) -> bool {
        self.members[m].subscribed[topic as usize]
    }

    fn run(&mut self) {
        self.prepopulate();
        // assignOwnedPartitions: drop what a member no longer subscribes to.
        let mut assigned = BTreeSet::new();
        for m in 0..self.members.len() {
            let mut mine = std::mem::take(&mut self.assignment[m]);
            mine.retain(|&tp| {
                let keep = self.subscribes(m, tp.0);
                if keep {
                    assigned.insert(tp);
                } else {
                    self.revocation_required = true;
                }
                keep
            });
            self.assignment[m] = mine;
        }
        for at in 0..self.owner.len() {
            self.owner[at] = None;
        }
        for m in 0..self.members.len() {
            for i in 0..self.assignment[m].len() {
                let at = self.flat(self.assignment[m][i]);
                self.owner[at] = Some(m);
            }
        }
        let unassigned: Vec<Tp> =
            self.sorted_all.iter().copied().filter(|tp| !assigned.contains(tp)).collect();
        for m in 0..self.members.len() {
            self.sorted.insert((self.size(m), self.rank[m]));
        }
        self.balance(unassigned);
    }

    /// `prepopulateCurrentAssignments`: owners from generations before the latest.
    fn prepopulate(&mut self) {
        for &m in self.subscription_order {
            let member = &self.members[m];
            let earlier = if member.has_generation {
                member.generation < self.max_generation
            } else {
                self.max_generation > DEFAULT_GENERATION
            };
            if !earlier {
                continue;
            }
            for &tp in &member.claims {
                match self.prev.get(&tp) {
                    Some(&(_, generation)) if member.generation <= generation => {}
                    _ => {
                        self.prev.insert(tp, (m, member.generation));
                    }
                }
            }
        }
    }

    fn first(&self) -> Option<usize> {
        self.sorted.first().map(|&(_, r)| self.by_rank[r])
    }

    fn last(&self) -> Option<usize> {
        self.sorted.last().map(|&(_, r)| self.by_rank[r])
    }

    /// Gives `tp` to `m`, keeping `sortedCurrentSubscriptions` in order.
    fn add(&mut self, m: usize, tp: Tp) {
        self.sorted.remove(&(self.size(m), self.rank[m]));
        self.assignment[m].push(tp);
        let at = self.flat(tp);
        self.owner[at] = Some(m);
        self.sorted.insert((self.size(m), self.rank[m]));
    }

    fn balance(&mut self, mut unassigned: Vec<Tp>) {
        let initializing = self.last().is_none_or(|m| self.assignment[m].is_empty());
        // maybeAssign: each unassigned partition to the member with the fewest that subscribes to it.
        for &tp in &unassigned {
            let taker = self.sorted.iter().map(|&(_, r)| self.by_rank[r]).find(|&m| self.subscribes(m, tp.0));
            if let Some(m) = taker {
                self.add(m, tp);
            }
        }
        // Topics with fewer than two subscribers, and members that cannot change, stay as they are.
        let fixed_topic: Vec<bool> = self.potential.iter().map(|c| c.len() < 2).collect();
        self.sorted_all.retain(|tp| !fixed_topic[tp.0 as usize]);
        unassigned.retain(|tp| !fixed_topic[tp.0 as usize]);
        let mut fixed = Vec::new();
        for m in 0..self.members.len() {
            let can_move = self.size(m) < self.max_size[m]
                || self.assignment[m].iter().any(|tp| !fixed_topic[tp.0 as usize]);
            if !can_move {
                self.sorted.remove(&(self.size(m), self.rank[m]));
                self.present[m] = false;
                fixed.push(m);
            }
        }
        let pre_assignment = self.assignment.clone();
        let pre_owner = self.owner.clone();
        let pre_score = self.score(&pre_assignment);
        if !self.revocation_required {
            self.perform(&unassigned);
        }
        let sorted_all = std::mem::take(&mut self.sorted_all);
        let performed = self.perform(&sorted_all);
        self.sorted_all = sorted_all;
        if !initializing && performed && self.score(&self.assignment) >= pre_score {
            self.assignment = pre_assignment;
            self.owner = pre_owner;
        }
        for m in fixed {
            self.present[m] = true;
        }
    }

    /// `getBalanceScore` over the members in `currentAssignment`.
    fn score(&self, assignment: &[Vec<Tp>]) -> usize {
        let sizes: Vec<usize> =
            (0..assignment.len()).filter(|&m| self.present[m]).map(|m| assignment[m].len()).collect();
        let mut score = 0;
        for (i, a) in sizes.iter().enumerate() {
            score += sizes[i + 1..].iter().map(|b| a.abs_diff(*b)).sum::<usize>();
        }
        score
    }

    /// `isBalanced`: the counts differ by at most one, or no member could
    /// take a partition of its topics from a member with two more.
    fn is_balanced(&self) -> bool {
        let (Some(first), Some(last)) = (self.first(), self.last()) else { return true };
        if self.size(first) + 1 >= self.size(last) {
            return true;
        }
        for &(count, r) in &self.sorted {
            let m = self.by_rank[r];
            if count == self.max_size[m] {
                continue;
            }
            for &t in &self.topics_of[m] {
                for p in 0..self.counts[t as usize] {
                    match self.owner[self.flat((t, p))] {
                        Some(other) if other != m && self.present[other] && count + 1 < self.size(other) => {
                            return false;
                        }
                        _ => {}
                    }
                }
            }
        }
        true
    }

    /// `performReassignments`: whether any partition moved.
    fn perform(&mut self, partitions: &[Tp]) -> bool {
        let mut performed = false;
        loop {
            let mut modified = false;
            for &tp in partitions {
                if self.is_balanced() {
                    break;
                }
                let Some(consumer) = self.owner[self.flat(tp)] else { continue };
                if let Some(&(previous, _)) = self.prev.get(&tp) {
                    // Kafka would fail on an owner that is not in currentAssignment; it stays.
                    if self.present[previous] && self.size(consumer) > self.size(previous) + 1 {
                        self.reassign_to(tp, previous);
                        performed = true;
                        modified = true;
                        continue;
                    }
                }
                let any_smaller = self.potential[tp.0 as usize]
                    .iter()
                    .any(|&other| self.present[other] && self.size(consumer) > self.size(other) + 1);
                if any_smaller {
                    // reassignPartition: to the member with the fewest that subscribes.
                    let taker =
                        self.sorted.iter().map(|&(_, r)| self.by_rank[r]).find(|&m| self.subscribes(m, tp.0));
                    if let Some(taker) = taker {
                        self.reassign_to(tp, taker);
                        performed = true;
                        modified = true;
                    }
                }
            }
            if !modified {
                return performed;
            }
        }
    }

    fn reassign_to(&mut self, tp: Tp, new: usize) {
        let Some(consumer) = self.owner[self.flat(tp)] else { return };
        let moved = self.movements.actual_partition_to_move(tp, consumer, new);
        self.process_movement(moved, new);
    }

    /// `processPartitionMovement`.
    fn process_movement(&mut self, tp: Tp, new: usize) {
        let Some(old) = self.owner[self.flat(tp)] else { return };
        self.sorted.remove(&(self.size(old), self.rank[old]));
        self.sorted.remove(&(self.size(new), self.rank[new]));
        self.movements.move_partition(tp, old, new);
        if let Some(at) = self.assignment[old].iter().position(|&o| o == tp) {
            self.assignment[old].remove(at);
        }
        self.assignment[new].push(tp);
        let at = self.flat(tp);
        self.owner[at] = Some(new);
        if self.present[new] {
            self.sorted.insert((self.size(new), self.rank[new]));
        }
        if self.present[old] {
            self.sorted.insert((self.size(old), self.rank[old]));
        }
    }

    /// `CooperativeStickyAssignor.computePartitionsTransferringOwnership`:
    /// partitions a member gets that it did not own and that another member
    /// owned and loses.
    fn transferring(&self) -> BTreeSet<Tp> {
        let mut added = BTreeSet::new();
        let mut revoked = BTreeSet::new();
        for (m, member) in self.members.iter().enumerate() {
            let owned: BTreeSet<Tp> = crate::order::btree_set(member.claims.iter().copied());
            let assigned: BTreeSet<Tp> = crate::order::btree_set(self.assignment[m].iter().copied());
            added.extend(assigned.difference(&owned).copied());
            revoked.extend(owned.difference(&assigned).copied());
        }
        added.intersection(&revoked).copied().collect()
    }
}

/// `PartitionMovements`: for every partition moved so far, where it started
/// and where it is, also grouped by topic and (from, to) pair.
#[derive(Debug, Default)]
struct Movements {
    /// `String.hashCode` of each topic's name.
    topic_hashes: Vec<i32>,
    by_partition: BTreeMap<Tp, (usize, usize)>,
    by_topic: BTreeMap<u32, BTreeMap<(usize, usize), PartitionSet>>,
    insertions: u64,
}

impl Movements {
    fn remove_record(&mut self, tp: Tp) -> Option<(usize, usize)> {
        let pair = self.by_partition.remove(&tp)?;
        if let Some(topic) = self.by_topic.get_mut(&tp.0) {
            if let Some(set) = topic.get_mut(&pair) {
                set.remove(tp);
                if set.is_empty() {
                    topic.remove(&pair);
                }
            }
            if topic.is_empty() {
                self.by_topic.remove(&tp.0);
            }
        }
        Some(pair)
    }

    fn add_record(&mut self, tp: Tp, pair: (usize, usize)) {
        self.by_partition.insert(tp, pair);
        self.insertions += 1;
        let hash = spread_hash(self.topic_hashes[tp.0 as usize], tp.1);
        self.by_topic.entry(tp.0).or_default().entry(pair).or_default().insert(tp, hash, self.insertions);
    }

    fn move_partition(&mut self, tp: Tp, old: usize, new: usize) {
        match self.remove_record(tp) {
            Some((from, _)) => {
                if from != new {
                    self.add_record(tp, (from, new));
                }
            }
            None => self.add_record(tp, (old, new)),
        }
    }

    /// `getTheActualPartitionToBeMoved`: rather than move `tp` from `old` to
    /// `new`, move back one that went the other way on this topic.
    fn actual_partition_to_move(&self, tp: Tp, mut old: usize, new: usize) -> Tp {
        let Some(topic) = self.by_topic.get(&tp.0) else { return tp };
        if let Some(&(from, _)) = self.by_partition.get(&tp) {
            old = from;
        }
        topic.get(&(new, old)).and_then(PartitionSet::first).unwrap_or(tp)
    }
}

/// A `java.util.HashSet<TopicPartition>` of one topic's partitions, as far
/// as its first element goes: iteration is by bucket (the spread
/// `TopicPartition.hashCode` in a table that doubles past 0.75 full and
/// never shrinks), then by insertion within a bucket.
#[derive(Debug)]
struct PartitionSet {
    /// (partition, spread hash, insertion number).
    entries: Vec<(Tp, u32, u64)>,
    capacity: usize,
}

impl Default for PartitionSet {
    fn default() -> Self {
        PartitionSet { entries: Vec::new(), capacity: 16 }
    }
}

impl PartitionSet {
    fn insert(&mut self, tp: Tp, hash: u32, insertion: u64) {
        if self.entries.iter().any(|e| e.0 == tp) {
            return;
        }
        let mask = self.capacity - 1;
        let bin = self.entries.iter().filter(|e| e.1 as usize & mask == hash as usize & mask).count();
        self.entries.push((tp, hash, insertion));
        // treeifyBin grows a table under 64 buckets instead of making a tree.
        if bin >= 8 && self.capacity < 64 {
            self.capacity *= 2;
        }
        if self.entries.len() > self.capacity * 3 / 4 {
            self.capacity *= 2;
        }
    }

    fn remove(&mut self, tp: Tp) {
        self.entries.retain(|e| e.0 != tp);
    }

    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn first(&self) -> Option<Tp> {
        let mask = self.capacity - 1;
        self.entries.iter().min_by_key(|e| (e.1 as usize & mask, e.2)).map(|e| e.0)
    }
}

/// `HashMap.hash` of a `TopicPartition`: `31 · (31 + partition) + topic.hashCode()`, spread.
fn spread_hash(topic_hash: i32, partition: u32) -> u32 {
    let h = 31i32.wrapping_mul(31i32.wrapping_add(partition as i32)).wrapping_add(topic_hash);
    (h ^ ((h as u32) >> 16) as i32) as u32
}
