//! `kafka-consumer-groups --describe --group NAME`, character for character.
//!
//! Kafka's `ConsumerGroupCommand.printOffsets`: GROUP, TOPIC, CONSUMER-ID and
//! HOST are `max(15, longest value)` wide, PARTITION 10, the offsets and LAG
//! 15, CLIENT-ID unpadded; one space between columns. Members with partitions
//! come first, most partitions first, each member's partitions ascending;
//! then partitions with a committed offset but no owner, with `-` for the
//! member columns. Members with no partition get no row. A group that is
//! rebalancing or empty gets the warning Kafka prints (to stderr) first.
//!
//! Kafka breaks ties between members with equally many partitions by the
//! broker's member order, which is effectively arbitrary; we use the member id.

use crate::broker::GroupState;
use crate::sim::Sim;
use std::fmt::Write as _;

const TOPIC: &str = "orders";
const MISSING: &str = "-";

struct Row {
    partition: u32,
    current: Option<u64>,
    log_end: u64,
    consumer_id: String,
    host: String,
    client_id: String,
}

/// The terminal output of `kafka-consumer-groups --describe --group NAME`
/// for the first group (stderr's warning, then stdout's table), without
/// Kafka's leading blank line.
#[must_use]
pub fn describe(sim: &Sim) -> String {
    describe_group(sim, 0)
}

/// The same for group `g` (see [`Sim::group_count`]).
///
/// # Panics
/// If there is no group `g`.
#[must_use]
pub fn describe_group(sim: &Sim, g: usize) -> String {
    let group = sim.group_name(g);
    let coordinator = sim.coordinator(g);
    let mut members: Vec<_> = coordinator.members().iter().filter(|m| !m.assignment.is_empty()).collect();
    members.sort_by(|a, b| {
        b.assignment.len().cmp(&a.assignment.len()).then_with(|| a.member_id.cmp(&b.member_id))
    });
    let mut rows = Vec::new();
    let mut owned = vec![false; sim.partition_count() as usize];
    for member in members {
        let mut partitions = member.assignment.clone();
        partitions.sort_unstable();
        for p in partitions {
            owned[p as usize] = true;
            rows.push(Row {
                partition: p,
                current: sim.committed_in(g, p),
                log_end: sim.log_end(p),
                consumer_id: member.member_id.clone(),
                host: member.host.clone(),
                client_id: member.consumer.to_string(),
            });
        }
    }
    for p in 0..sim.partition_count() {
        if !owned[p as usize] && sim.committed_in(g, p).is_some() {
            rows.push(Row {
                partition: p,
                current: sim.committed_in(g, p),
                log_end: sim.log_end(p),
                consumer_id: MISSING.into(),
                host: MISSING.into(),
                client_id: MISSING.into(),
            });
        }
    }

    let mut out = String::new();
    match coordinator.state() {
        GroupState::Empty => {
            let _ = writeln!(out, "Consumer group '{group}' has no active members.\n");
        }
        GroupState::PreparingRebalance | GroupState::Assigning | GroupState::Reconciling => {
            let _ = writeln!(out, "Warning: Consumer group '{group}' is rebalancing.\n");
        }
        GroupState::Stable => {}
    }
    if rows.is_empty() {
        // Kafka prints no table for a group with no rows.
        return out;
    }
    let group_w = group.len().max(15);
    let topic_w = TOPIC.len().max(15);
    let consumer_w = rows.iter().map(|r| r.consumer_id.len()).max().unwrap_or(0).max(15);
    let host_w = rows.iter().map(|r| r.host.len()).max().unwrap_or(0).max(15);
    let line = |out: &mut String, cells: [&str; 9]| {
        let _ = writeln!(
            out,
            "{:<group_w$} {:<topic_w$} {:<10} {:<15} {:<15} {:<15} {:<consumer_w$} {:<host_w$} {}",
            cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8]
        );
    };
    line(
        &mut out,
        [
            "GROUP",
            "TOPIC",
            "PARTITION",
            "CURRENT-OFFSET",
            "LOG-END-OFFSET",
            "LAG",
            "CONSUMER-ID",
            "HOST",
            "CLIENT-ID",
        ],
    );
    for row in &rows {
        let current = row.current.map_or(MISSING.to_string(), |o| o.to_string());
        let lag = row.current.map_or(MISSING.to_string(), |o| (row.log_end - o).to_string());
        line(
            &mut out,
            [
                group,
                TOPIC,
                &row.partition.to_string(),
                &current,
                &row.log_end.to_string(),
                &lag,
                &row.consumer_id,
                &row.host,
                &row.client_id,
            ],
        );
    }
    out
}
