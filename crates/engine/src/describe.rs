//! `kafka-consumer-groups --describe --group NAME`, character for character
//! (a share group's is `kafka-share-groups --describe`: `share`).
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

mod share;

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
    if sim.group_setup(g).0.protocol == GroupProtocol::Share {
        return share::offsets(sim, g, verbose);
    }
    let group = sim.group_name(g);
    let coordinator = sim.coordinator(g);
    let mut members: Vec<_> = coordinator.members().iter().filter(|m| !m.assignment.is_empty()).collect();
    crate::order::sort_stable_by(&mut members, |a, b| {
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
        for (i, width) in [(0, group_w), (1, topic_w), (2, 10)] {
            cell(out, cells[i], width);
        }
        if verbose {
            cell(out, cells[3], 15);
        }
        for (i, width) in [(4, 15), (5, 15), (6, 15), (7, consumer_w), (8, host_w)] {
            cell(out, cells[i], width);
        }
        out.push_str(cells[9]);
        out.push('\n');
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

/// Java's `%-Ns`: `text` left-justified in `width` characters (every value
/// here is ASCII, so bytes are characters).
fn pad(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(text.len())));
}

/// `%-Ns ` : the padded value and the space before the next column.
fn cell(out: &mut String, text: &str, width: usize) {
    pad(out, text, width);
    out.push(' ');
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
    if sim.group_setup(g).0.protocol == GroupProtocol::Share {
        return share::members(sim, g, verbose);
    }
    let coordinator = sim.coordinator(g);
    let consumer_protocol = sim.group_setup(g).0.protocol == GroupProtocol::Consumer;
    let mut ids: Vec<&str> = coordinator.members().iter().map(|m| m.member_id.as_str()).collect();
    ids.sort_unstable();
    let rows: Vec<MemberRow> = ids
        .into_iter()
        .filter_map(|id| coordinator.member(id))
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
    // The assignment strings and epochs, as the verbose columns print them.
    let texts: Vec<[String; 4]> = members
        .iter()
        .map(|m| match &m.epochs {
            Some((e, t, target)) => {
                [e.to_string(), assignment_string(&m.assignment), t.to_string(), assignment_string(target)]
            }
            None => [MISSING.into(), assignment_string(&m.assignment), MISSING.into(), MISSING.into()],
        })
        .collect();
    let widest =
        |len: &dyn Fn(usize) -> usize, min: usize| (0..members.len()).map(len).max().unwrap_or(0).max(min);
    let instance = |i: usize| members[i].instance_id.as_deref().unwrap_or("");
    let consumer_w = widest(&|i| members[i].member_id.len(), 15);
    let instance_w = widest(&|i| instance(i).len(), 17);
    let host_w = widest(&|i| members[i].host.len(), 15);
    let client_w = widest(&|i| members[i].client_id.len(), 15);
    let current_w = widest(&|i| texts[i][1].len(), 20);
    let target_w = widest(&|i| texts[i][3].len(), 20);
    let with_instance = members.iter().any(|m| m.instance_id.as_deref().is_some_and(|id| !id.is_empty()));
    let mut out = state_warning(group, state);
    // GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS, each
    // padded and followed by a space; verbose: the epochs and assignments.
    let mut line = |cells: [&str; 10]| {
        cell(&mut out, cells[0], group.len().max(15));
        cell(&mut out, cells[1], consumer_w);
        if with_instance {
            cell(&mut out, cells[2], instance_w);
        }
        cell(&mut out, cells[3], host_w);
        cell(&mut out, cells[4], client_w);
        cell(&mut out, cells[5], 15);
        if verbose {
            cell(&mut out, cells[6], 15);
            cell(&mut out, cells[7], current_w);
            cell(&mut out, cells[8], 15);
            pad(&mut out, cells[9], target_w);
        }
        out.push('\n');
    };
    line([
        "GROUP",
        "CONSUMER-ID",
        "GROUP-INSTANCE-ID",
        "HOST",
        "CLIENT-ID",
        "#PARTITIONS",
        "CURRENT-EPOCH",
        "CURRENT-ASSIGNMENT",
        "TARGET-EPOCH",
        "TARGET-ASSIGNMENT",
    ]);
    for (i, (m, [epoch, current, target_epoch, target])) in members.iter().zip(&texts).enumerate() {
        let count = m.assignment.len().to_string();
        line([
            group,
            &m.member_id,
            instance(i),
            &m.host,
            &m.client_id,
            &count,
            epoch,
            current,
            target_epoch,
            target,
        ]);
    }
    out
}

/// `kafka-consumer-groups --describe --group NAME --state [--verbose]` for group `g`.
///
/// # Panics
/// If there is no group `g`.
#[must_use]
pub fn describe_state(sim: &Sim, g: usize, verbose: bool) -> String {
    if sim.group_setup(g).0.protocol == GroupProtocol::Share {
        return share::state(sim, g, verbose);
    }
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
    let (group_epoch, target_epoch) =
        epochs.map_or((MISSING.to_string(), MISSING.to_string()), |(g, t)| (g.to_string(), t.to_string()));
    let members = members.to_string();
    let line = |out: &mut String, cells: [&str; 7]| {
        for (i, width) in [(0, group_w), (1, coordinator_w), (2, 20), (3, 20)] {
            cell(out, cells[i], width);
        }
        if verbose {
            cell(out, cells[4], 15);
            cell(out, cells[5], 25);
        }
        out.push_str(cells[6]);
        out.push('\n');
    };
    line(
        &mut out,
        [
            "GROUP",
            "COORDINATOR (ID)",
            "ASSIGNMENT-STRATEGY",
            "STATE",
            "GROUP-EPOCH",
            "TARGET-ASSIGNMENT-EPOCH",
            "#MEMBERS",
        ],
    );
    line(&mut out, [group, COORDINATOR, strategy, name, &group_epoch, &target_epoch, &members]);
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
