//! Kafka's `RangeAssignor` and `RoundRobinAssignor`, without racks: neither
//! looks at what members owned before. Both order members as
//! `AbstractPartitionAssignor.MemberInfo` does: members with a
//! `group.instance.id` first, by that id, then the others by member id.

use super::java;
use super::{Joined, Tp, Universe};
use std::cmp::Ordering;

/// `MemberInfo.compareTo`: static members (by group instance id) before dynamic ones (by member id).
fn member_info_order(a: &Joined, b: &Joined) -> Ordering {
    match (a.instance, b.instance) {
        (Some(x), Some(y)) => java::compare(x, y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => java::compare(a.id, b.id),
    }
}

/// Members sorted as `MemberInfo` sorts them, as indices. The sort is
/// stable and starts from the coordinator's `HashMap` order, which only
/// matters for two members with one group instance id (which the
/// coordinator does not allow).
fn sorted_members(members: &[Joined], start: &[usize]) -> Vec<usize> {
    let mut order = start.to_vec();
    crate::order::sort_stable_by(&mut order, |&a, &b| member_info_order(&members[a], &members[b]));
    order
}

/// `RangeAssignor`: per topic, its subscribers sorted; `P / C` consecutive
/// partitions each, the first `P % C` subscribers one more.
pub(super) fn range(universe: &Universe, members: &[Joined]) -> Vec<Vec<Tp>> {
    let mut assignment = vec![Vec::new(); members.len()];
    let start: Vec<usize> = java::hash_map_order(&members.iter().map(|m| m.id).collect::<Vec<_>>());
    let sorted = sorted_members(members, &start);
    for (topic, partitions) in universe.topics() {
        let subscribers: Vec<usize> =
            sorted.iter().copied().filter(|&m| members[m].subscribed[topic as usize]).collect();
        let count = subscribers.len() as u32;
        if count == 0 {
            continue;
        }
        let per_member = partitions / count;
        let extra = partitions % count;
        for (i, &m) in (0u32..).zip(&subscribers) {
            let start = per_member * i + i.min(extra);
            let length = per_member + u32::from(i < extra);
            assignment[m].extend((start..start + length).map(|p| (topic, p)));
        }
    }
    assignment
}

/// `RoundRobinAssignor`: every partition, by topic then partition, to the
/// sorted members in turn, skipping members that do not subscribe to its
/// topic (a circular iterator that stays where the last partition went).
pub(super) fn round_robin(universe: &Universe, members: &[Joined]) -> Vec<Vec<Tp>> {
    let mut assignment = vec![Vec::new(); members.len()];
    let start: Vec<usize> = java::hash_map_order(&members.iter().map(|m| m.id).collect::<Vec<_>>());
    let sorted = sorted_members(members, &start);
    if sorted.is_empty() {
        return assignment;
    }
    let mut at = 0;
    for tp in universe.all() {
        // The topic is in the universe, so some member subscribes to it.
        while !members[sorted[at]].subscribed[tp.0 as usize] {
            at = (at + 1) % sorted.len();
        }
        assignment[sorted[at]].push(tp);
        at = (at + 1) % sorted.len();
    }
    assignment
}
