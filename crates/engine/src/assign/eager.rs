//! Kafka's `RangeAssignor` and `RoundRobinAssignor`, without racks or static
//! members: neither looks at what members owned before.

use super::java;
use super::{Tp, Universe};

/// Members sorted as Kafka sorts member ids (`String.compareTo`), as indices.
fn sorted_members(members: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by(|&a, &b| java::compare(members[a], members[b]));
    order
}

/// `RangeAssignor`: per topic, members sorted; `P / C` consecutive
/// partitions each, the first `P % C` members one more.
pub(super) fn range(universe: &Universe, members: &[&str]) -> Vec<Vec<Tp>> {
    let mut assignment = vec![Vec::new(); members.len()];
    let sorted = sorted_members(members);
    let count = sorted.len() as u32;
    if count == 0 {
        return assignment;
    }
    for (topic, partitions) in universe.topics() {
        let per_member = partitions / count;
        let extra = partitions % count;
        for (i, &m) in (0u32..).zip(&sorted) {
            let start = per_member * i + i.min(extra);
            let length = per_member + u32::from(i < extra);
            assignment[m].extend((start..start + length).map(|p| (topic, p)));
        }
    }
    assignment
}

/// `RoundRobinAssignor`: every partition, by topic then partition, to the
/// sorted members in turn (every member subscribes to every topic, so none
/// is skipped).
pub(super) fn round_robin(universe: &Universe, members: &[&str]) -> Vec<Vec<Tp>> {
    let mut assignment = vec![Vec::new(); members.len()];
    let sorted = sorted_members(members);
    if sorted.is_empty() {
        return assignment;
    }
    for (tp, &m) in universe.all().zip(sorted.iter().cycle()) {
        assignment[m].push(tp);
    }
    assignment
}
