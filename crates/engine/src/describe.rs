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
//!
//! `--members` and `--state` ([`describe_members`], [`describe_state`]) follow
//! Kafka 4.4.0's `ConsumerGroupCommand` (read from its bytecode and checked by
//! running it): the members view lists members in the broker's order, which
//! is its hash map's; we list them by member id.

use crate::broker::GroupState;
use crate::config::GroupProtocol;
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
    describe_offsets(sim, g, false)
}

/// `kafka-consumer-groups --describe --group NAME [--verbose]` for group `g`;
/// `--verbose` adds each commit's LEADER-EPOCH (0: the partitions' leaders
/// have never changed here).
///
/// # Panics
/// If there is no group `g`.
#[must_use]
pub fn describe_offsets(sim: &Sim, g: usize, verbose: bool) -> String {
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

    let mut out = state_warning(group, coordinator.state());
    if rows.is_empty() {
        // Kafka prints no table for a group with no rows.
        return out;
    }
    let group_w = group.len().max(15);
    let topic_w = TOPIC.len().max(15);
    let consumer_w = rows.iter().map(|r| r.consumer_id.len()).max().unwrap_or(0).max(15);
    let host_w = rows.iter().map(|r| r.host.len()).max().unwrap_or(0).max(15);
    let line = |out: &mut String, cells: [&str; 10]| {
        let _ = write!(out, "{:<group_w$} {:<topic_w$} {:<10} ", cells[0], cells[1], cells[2]);
        if verbose {
            let _ = write!(out, "{:<15} ", cells[3]);
        }
        let _ = writeln!(
            out,
            "{:<15} {:<15} {:<15} {:<consumer_w$} {:<host_w$} {}",
            cells[4], cells[5], cells[6], cells[7], cells[8], cells[9]
        );
    };
    line(
        &mut out,
        [
            "GROUP",
            "TOPIC",
            "PARTITION",
            "LEADER-EPOCH",
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
        let leader_epoch = if row.current.is_some() { "0" } else { MISSING };
        line(
            &mut out,
            [
                group,
                TOPIC,
                &row.partition.to_string(),
                leader_epoch,
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

/// What Kafka prints to stderr before a group's table: its state's warning
/// and the blank line that starts the table.
fn state_warning(group: &str, state: GroupState) -> String {
    match state {
        GroupState::Empty => format!("Consumer group '{group}' has no active members.\n\n"),
        GroupState::PreparingRebalance | GroupState::Assigning | GroupState::Reconciling => {
            format!("Warning: Consumer group '{group}' is rebalancing.\n\n")
        }
        GroupState::Stable => String::new(),
    }
}

/// Kafka's `getAssignmentString` for the one topic: `orders:0,1,2`, `-` when empty.
fn assignment_string(partitions: &[u32]) -> String {
    if partitions.is_empty() {
        return MISSING.to_string();
    }
    let mut sorted = partitions.to_vec();
    sorted.sort_unstable();
    let list: Vec<String> = sorted.iter().map(u32::to_string).collect();
    format!("{TOPIC}:{}", list.join(","))
}

/// The coordinator as `--state` shows it: the one broker.
const COORDINATOR: &str = "localhost:9092  (1)";

/// `kafka-consumer-groups --describe --group NAME --members [--verbose]` for
/// group `g`: the warning for its state, then the table. Every line ends in
/// the padding Kafka leaves (`#PARTITIONS` padded to 15 and a space; with
/// `--verbose`, the target assignment padded to 20).
///
/// # Panics
/// If there is no group `g`.
#[must_use]
pub fn describe_members(sim: &Sim, g: usize, verbose: bool) -> String {
    let coordinator = sim.coordinator(g);
    let consumer_protocol = sim.group_setup(g).0.protocol == GroupProtocol::Consumer;
    let mut members: Vec<_> = coordinator.members().iter().collect();
    members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
    let rows: Vec<MemberRow> = members
        .iter()
        .map(|m| MemberRow {
            member_id: m.member_id.clone(),
            instance_id: m.instance_id.clone(),
            host: m.host.clone(),
            client_id: m.consumer.to_string(),
            assignment: m.assignment.clone(),
            epochs: consumer_protocol.then(|| (m.member_epoch, coordinator.target_epoch(), m.target.clone())),
        })
        .collect();
    members_table(sim.group_name(g), coordinator.state(), &rows, verbose)
}

/// One member as `--members` prints it.
struct MemberRow {
    member_id: String,
    instance_id: Option<String>,
    host: String,
    client_id: String,
    assignment: Vec<u32>,
    /// Consumer protocol: its epoch, the group's target epoch, its target.
    epochs: Option<(i32, u32, Vec<u32>)>,
}

fn members_table(group: &str, state: GroupState, members: &[MemberRow], verbose: bool) -> String {
    let rows: Vec<[String; 9]> = members
        .iter()
        .map(|m| {
            let (epoch, target_epoch, target) = match &m.epochs {
                Some((e, t, target)) => (e.to_string(), t.to_string(), assignment_string(target)),
                None => (MISSING.to_string(), MISSING.to_string(), MISSING.to_string()),
            };
            [
                m.member_id.clone(),
                m.instance_id.clone().unwrap_or_default(),
                m.host.clone(),
                m.client_id.clone(),
                m.assignment.len().to_string(),
                epoch,
                assignment_string(&m.assignment),
                target_epoch,
                target,
            ]
        })
        .collect();
    let width = |i: usize, min: usize| rows.iter().map(|r| r[i].len()).max().unwrap_or(0).max(min);
    let (group_w, consumer_w, instance_w, host_w, client_w) =
        (group.len().max(15), width(0, 15), width(1, 17), width(2, 15), width(3, 15));
    let (current_w, target_w) = (width(6, 20), width(8, 20));
    let with_instance = rows.iter().any(|r| !r[1].is_empty());
    let mut out = state_warning(group, state);
    // GROUP, then the row's cells.
    let line = |out: &mut String, first: &str, cells: [&str; 9]| {
        let _ = write!(out, "{first:<group_w$} {:<consumer_w$} ", cells[0]);
        if with_instance {
            let _ = write!(out, "{:<instance_w$} ", cells[1]);
        }
        let _ = write!(out, "{:<host_w$} {:<client_w$} {:<15} ", cells[2], cells[3], cells[4]);
        if verbose {
            let _ = write!(
                out,
                "{:<15} {:<current_w$} {:<15} {:<target_w$}",
                cells[5], cells[6], cells[7], cells[8]
            );
        }
        out.push('\n');
    };
    line(
        &mut out,
        "GROUP",
        [
            "CONSUMER-ID",
            "GROUP-INSTANCE-ID",
            "HOST",
            "CLIENT-ID",
            "#PARTITIONS",
            "CURRENT-EPOCH",
            "CURRENT-ASSIGNMENT",
            "TARGET-EPOCH",
            "TARGET-ASSIGNMENT",
        ],
    );
    for row in &rows {
        line(&mut out, group, std::array::from_fn(|i| row[i].as_str()));
    }
    out
}

/// `kafka-consumer-groups --describe --group NAME --state [--verbose]` for group `g`.
///
/// # Panics
/// If there is no group `g`.
#[must_use]
pub fn describe_state(sim: &Sim, g: usize, verbose: bool) -> String {
    let coordinator = sim.coordinator(g);
    let (config, settings) = sim.group_setup(g);
    let consumer_protocol = config.protocol == GroupProtocol::Consumer;
    let strategy = match (consumer_protocol, coordinator.state()) {
        (true, _) => config.remote_assignor.name(),
        // An empty classic group has chosen no protocol.
        (false, GroupState::Empty) => MISSING,
        (false, _) => settings.assignor.strategy().name(),
    };
    let epochs = consumer_protocol.then(|| (coordinator.group_epoch(), coordinator.target_epoch()));
    let members = coordinator.members().len();
    state_table(sim.group_name(g), coordinator.state(), strategy, members, epochs, verbose)
}

fn state_table(
    group: &str,
    state: GroupState,
    strategy: &str,
    members: usize,
    epochs: Option<(u32, u32)>,
    verbose: bool,
) -> String {
    let (group_w, coordinator_w) = (group.len().max(15), COORDINATOR.len().max(25));
    let mut out = state_warning(group, state);
    let name = state.name();
    if verbose {
        let (group_epoch, target_epoch) = epochs
            .map_or((MISSING.to_string(), MISSING.to_string()), |(g, t)| (g.to_string(), t.to_string()));
        let _ = writeln!(
            out,
            "{:<group_w$} {:<coordinator_w$} {:<20} {:<20} {:<15} {:<25} #MEMBERS",
            "GROUP",
            "COORDINATOR (ID)",
            "ASSIGNMENT-STRATEGY",
            "STATE",
            "GROUP-EPOCH",
            "TARGET-ASSIGNMENT-EPOCH",
        );
        let _ = writeln!(
            out,
            "{group:<group_w$} {COORDINATOR:<coordinator_w$} {strategy:<20} {name:<20} {group_epoch:<15} {target_epoch:<25} {members}"
        );
    } else {
        let _ = writeln!(
            out,
            "{:<group_w$} {:<coordinator_w$} {:<20} {:<20} #MEMBERS",
            "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE"
        );
        let _ = writeln!(
            out,
            "{group:<group_w$} {COORDINATOR:<coordinator_w$} {strategy:<20} {name:<20} {members}"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn example() -> Vec<MemberRow> {
        let member = |id: &str, client: &str, host: &str, partitions: Vec<u32>| MemberRow {
            member_id: id.into(),
            instance_id: None,
            host: host.into(),
            client_id: client.into(),
            assignment: partitions.clone(),
            epochs: Some((5, 5, partitions)),
        };
        vec![
            member("AAAAAAAAAAAAAAAAAAAAAA", "c1", "/10.0.0.11", vec![0, 1]),
            member("BBBBBBBBBBBBBBBBBBBBBB", "c2", "/10.0.0.12", vec![2]),
        ]
    }

    /// The text Kafka 4.4.0's own `ConsumerGroupCommand` printed for this group
    /// (without its leading blank line), trailing spaces and all.
    #[test]
    fn members_match_kafka_byte_for_byte() {
        let rows = example();
        assert_eq!(
            members_table("demo", GroupState::Stable, &rows, false),
            concat!(
                "GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS     \n",
                "demo            AAAAAAAAAAAAAAAAAAAAAA /10.0.0.11      c1              2               \n",
                "demo            BBBBBBBBBBBBBBBBBBBBBB /10.0.0.12      c2              1               \n",
            )
        );
        assert_eq!(
            members_table("demo", GroupState::Stable, &rows, true),
            concat!(
                "GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   \n",
                "demo            AAAAAAAAAAAAAAAAAAAAAA /10.0.0.11      c1              2               5               orders:0,1           5               orders:0,1          \n",
                "demo            BBBBBBBBBBBBBBBBBBBBBB /10.0.0.12      c2              1               5               orders:2             5               orders:2            \n",
            )
        );
        assert_eq!(
            members_table("demo", GroupState::Empty, &[], false),
            concat!(
                "Consumer group 'demo' has no active members.\n\n",
                "GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n",
            )
        );
    }

    #[test]
    fn state_matches_kafka_byte_for_byte() {
        assert_eq!(
            state_table("demo", GroupState::Stable, "uniform", 2, Some((5, 5)), false),
            concat!(
                "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS\n",
                "demo            localhost:9092  (1)       uniform              Stable               2\n",
            )
        );
        assert_eq!(
            state_table("demo", GroupState::Stable, "uniform", 2, Some((5, 5)), true),
            concat!(
                "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS\n",
                "demo            localhost:9092  (1)       uniform              Stable               5               5                         2\n",
            )
        );
    }

    #[test]
    fn an_instance_id_adds_its_column() {
        let mut rows = example();
        rows[0].instance_id = Some("inst-1".into());
        let table = members_table("demo", GroupState::Reconciling, &rows, false);
        assert_eq!(
            table,
            concat!(
                "Warning: Consumer group 'demo' is rebalancing.\n\n",
                "GROUP           CONSUMER-ID            GROUP-INSTANCE-ID HOST            CLIENT-ID       #PARTITIONS     \n",
                "demo            AAAAAAAAAAAAAAAAAAAAAA inst-1            /10.0.0.11      c1              2               \n",
                "demo            BBBBBBBBBBBBBBBBBBBBBB                   /10.0.0.12      c2              1               \n",
            )
        );
    }
}
