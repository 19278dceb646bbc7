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

use super::{COORDINATOR, Column, End, MISSING, TOPIC, Table, assignment_string, by_member_id};
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
    let mut table = Table::new(&[
        Column::fixed("GROUP", group.len().max(15)),
        Column::fixed("TOPIC", 15),
        Column::fixed("PARTITION", 10),
        Column::fixed("LEADER-EPOCH", 13).shown(verbose),
        Column::fixed("START-OFFSET", 13),
        Column::fixed("LAG", 0),
    ]);
    for p in 0..sim.partition_count() {
        let persisted = sim.share_partition(g, p).and_then(|sp| sp.persisted());
        let (epoch, start, lag) = match persisted {
            Some((start, done)) => {
                let lag = sim.log_end(p).saturating_sub(start).saturating_sub(done);
                ("0", start.to_string(), lag.to_string())
            }
            None => (MISSING, MISSING.to_string(), MISSING.to_string()),
        };
        table.row(&[group, TOPIC, &p.to_string(), epoch, &start, &lag]);
    }
    let mut out = String::new();
    table.write(&mut out, End::Plain);
    out
}

/// `--members [--verbose]`: by consumer id; an empty group prints only its notice.
pub(super) fn members(sim: &Sim, g: usize, verbose: bool) -> String {
    let group = sim.group_name(g);
    let coordinator = sim.coordinator(g);
    let members = by_member_id(coordinator.members());
    if members.is_empty() {
        return no_active_members(group);
    }
    let mut table = Table::new(&[
        Column::fixed("GROUP", group.len().max(15)),
        Column::fit("CONSUMER-ID", 15),
        Column::fit("HOST", 15),
        Column::fit("CLIENT-ID", 15),
        Column::fixed("#PARTITIONS", 12),
        Column::fixed("MEMBER-EPOCH", 13).shown(verbose),
        Column::fixed("ASSIGNMENT", 0),
    ]);
    for m in members {
        // `kafka-share-groups` leaves an empty assignment empty (not `-`).
        let assignment =
            if m.assignment.is_empty() { String::new() } else { assignment_string(&m.assignment) };
        table.row(&[
            group,
            &m.member_id,
            &m.host,
            &m.consumer.to_string(),
            &m.assignment.len().to_string(),
            &m.member_epoch.to_string(),
            &assignment,
        ]);
    }
    let mut out = String::new();
    table.write(&mut out, End::Plain);
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
    let mut table = Table::new(&[
        Column::fixed("GROUP", group.len().max(15)),
        Column::fixed("COORDINATOR (ID)", 25),
        Column::fixed("STATE", 15),
        Column::fixed("GROUP-EPOCH", 12).shown(verbose),
        Column::fixed("ASSIGNMENT-EPOCH", 17).shown(verbose),
        Column::fixed("#MEMBERS", 0),
    ]);
    table.row(&[
        group,
        COORDINATOR,
        coordinator.state().name(),
        &coordinator.group_epoch().to_string(),
        &coordinator.target_epoch().to_string(),
        &coordinator.members().len().to_string(),
    ]);
    table.write(&mut out, End::Plain);
    out
}
