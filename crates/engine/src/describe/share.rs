//! `kafka-share-groups --describe --group NAME [--members | --state]
//! [--verbose]`, as Kafka 4.4.0's `ShareGroupCommand` prints it (read from
//! its bytecode): every row is written as `"\n" + row` and a blank line ends
//! the group's block, so the text here is newline-terminated rows without the
//! leading blank line. An empty group's notice goes to stderr first.
//!
//! START-OFFSET is what the share coordinator holds, which trails the
//! broker's live start offset by one write; LAG is the high watermark less
//! that start offset less the records done at or past it then. A partition
//! the coordinator has never written shows `-` for both.

use super::TOPIC;
use super::{COORDINATOR, MISSING, assignment_string, cell};
use crate::broker::GroupState;
use crate::sim::Sim;

fn no_active_members(group: &str) -> String {
    format!("Share group '{group}' has no active members.\n\n")
}

/// The offsets view (the default, `--offsets`).
pub(super) fn offsets(sim: &Sim, g: usize, verbose: bool) -> String {
    let group = sim.group_name(g);
    let coordinator = sim.coordinator(g);
    if coordinator.group_epoch() == 0 {
        // Never subscribed: the share coordinator knows no partition of it.
        return format!("Share group '{group}' has no offset information.\n");
    }
    let (group_w, topic_w) = (group.len().max(15), TOPIC.len().max(15));
    let mut out = String::new();
    let mut line = |cells: [&str; 6]| {
        cell(&mut out, cells[0], group_w);
        cell(&mut out, cells[1], topic_w);
        cell(&mut out, cells[2], 10);
        if verbose {
            cell(&mut out, cells[3], 13);
        }
        cell(&mut out, cells[4], 13);
        out.push_str(cells[5]);
        out.push('\n');
    };
    line(["GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "START-OFFSET", "LAG"]);
    for p in 0..sim.partition_count() {
        let persisted = sim.share_partition(g, p).and_then(|sp| sp.persisted());
        let (epoch, start, lag) = match persisted {
            Some((start, done)) => {
                let lag = sim.log_end(p).saturating_sub(start).saturating_sub(done);
                ("0", start.to_string(), lag.to_string())
            }
            None => (MISSING, MISSING.to_string(), MISSING.to_string()),
        };
        line([group, TOPIC, &p.to_string(), epoch, &start, &lag]);
    }
    out
}

/// `--members [--verbose]`: by consumer id; an empty group prints only its notice.
pub(super) fn members(sim: &Sim, g: usize, verbose: bool) -> String {
    let group = sim.group_name(g);
    let coordinator = sim.coordinator(g);
    let mut members: Vec<_> = coordinator.members().iter().collect();
    members.sort_unstable_by(|a, b| a.member_id.cmp(&b.member_id));
    if members.is_empty() {
        return no_active_members(group);
    }
    let widest = |len: &dyn Fn(&crate::broker::coordinator::Member) -> usize| {
        members.iter().map(|m| len(m)).max().unwrap_or(0).max(15)
    };
    let consumer_w = widest(&|m| m.member_id.len());
    let host_w = widest(&|m| m.host.len());
    let client_w = widest(&|m| m.consumer.to_string().len());
    let group_w = group.len().max(15);
    let mut out = String::new();
    let mut line = |cells: [&str; 7]| {
        cell(&mut out, cells[0], group_w);
        cell(&mut out, cells[1], consumer_w);
        cell(&mut out, cells[2], host_w);
        cell(&mut out, cells[3], client_w);
        cell(&mut out, cells[4], 12);
        if verbose {
            cell(&mut out, cells[5], 13);
        }
        out.push_str(cells[6]);
        out.push('\n');
    };
    line(["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "MEMBER-EPOCH", "ASSIGNMENT"]);
    for m in members {
        // `kafka-share-groups` leaves an empty assignment empty (not `-`).
        let assignment =
            if m.assignment.is_empty() { String::new() } else { assignment_string(&m.assignment) };
        line([
            group,
            &m.member_id,
            &m.host,
            &m.consumer.to_string(),
            &m.assignment.len().to_string(),
            &m.member_epoch.to_string(),
            &assignment,
        ]);
    }
    out
}

/// `--state [--verbose]`: Empty or Stable (an empty group's notice first).
pub(super) fn state(sim: &Sim, g: usize, verbose: bool) -> String {
    let group = sim.group_name(g);
    let coordinator = sim.coordinator(g);
    let mut out = match coordinator.state() {
        GroupState::Empty => no_active_members(group),
        _ => String::new(),
    };
    let (group_w, coordinator_w) = (group.len().max(15), COORDINATOR.len().max(25));
    let mut line = |cells: [&str; 6]| {
        cell(&mut out, cells[0], group_w);
        cell(&mut out, cells[1], coordinator_w);
        cell(&mut out, cells[2], 15);
        if verbose {
            cell(&mut out, cells[3], 12);
            cell(&mut out, cells[4], 17);
        }
        out.push_str(cells[5]);
        out.push('\n');
    };
    line(["GROUP", "COORDINATOR (ID)", "STATE", "GROUP-EPOCH", "ASSIGNMENT-EPOCH", "#MEMBERS"]);
    line([
        group,
        COORDINATOR,
        coordinator.state().name(),
        &coordinator.group_epoch().to_string(),
        &coordinator.target_epoch().to_string(),
        &coordinator.members().len().to_string(),
    ]);
    out
}
