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

/// `kafka-consumer-groups --describe --group NAME` text, with a view and
/// `--verbose` chosen: what the CLI's `--describe` and the page's tabs show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DescribeView {
    /// The default view (`--offsets`).
    #[default]
    Offsets,
    /// `--members`.
    Members,
    /// `--state`.
    State,
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

/// Group `g`'s `view`, with or without `--verbose`.
///
/// # Panics
/// If there is no group `g`.
#[must_use]
pub fn describe_view(sim: &Sim, g: usize, view: DescribeView, verbose: bool) -> String {
    match view {
        DescribeView::Offsets => describe_offsets(sim, g, verbose),
        DescribeView::Members => describe_members(sim, g, verbose),
        DescribeView::State => describe_state(sim, g, verbose),
    }
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
    if !sim.group_exists(g) {
        return not_found(sim.group_name(g));
    }
    let group = sim.group_name(g);
    let coordinator = sim.coordinator(g);
    let mut members: Vec<_> = coordinator.members().iter().filter(|m| !m.assignment.is_empty()).collect();
    crate::order::sort_stable_by(&mut members, |a, b| {
        b.assignment.len().cmp(&a.assignment.len()).then_with(|| a.member_id.cmp(&b.member_id))
    });
    let mut table = Table::new(&[
        Column::fixed("GROUP", group.len().max(15)),
        Column::fixed("TOPIC", 15),
        Column::fixed("PARTITION", 10),
        Column::fixed("LEADER-EPOCH", 15).shown(verbose),
        Column::fixed("CURRENT-OFFSET", 15),
        Column::fixed("LOG-END-OFFSET", 15),
        Column::fixed("LAG", 15),
        Column::fit("CONSUMER-ID", 15),
        Column::fit("HOST", 15),
        Column::fixed("CLIENT-ID", 0),
    ]);
    let mut row = |p: u32, member: Option<&crate::broker::coordinator::Member>| {
        let current = sim.committed_in(g, p);
        // LOG-END-OFFSET is listOffsets(latest): the high watermark.
        let log_end = sim.high_watermark(p);
        let text = |o: Option<u64>| o.map_or(MISSING.to_string(), |o| o.to_string());
        let client = member.map_or(MISSING.to_string(), |m| m.consumer.to_string());
        table.row(&[
            group,
            TOPIC,
            &p.to_string(),
            if current.is_some() { "0" } else { MISSING },
            &text(current),
            &log_end.to_string(),
            // A committed offset past the high watermark (retention moved the log
            // start past it) is no lag, as the view and the counters have it.
            &text(current.map(|o| log_end.saturating_sub(o))),
            member.map_or(MISSING, |m| &m.member_id),
            member.map_or(MISSING, |m| &m.host),
            &client,
        ]);
    };
    let mut owned = vec![false; sim.partition_count() as usize];
    for member in members {
        let mut partitions = member.assignment.clone();
        crate::order::sort_ids(&mut partitions);
        for p in partitions {
            owned[p as usize] = true;
            row(p, Some(member));
        }
    }
    for p in 0..sim.partition_count() {
        if !owned[p as usize] && sim.committed_in(g, p).is_some() {
            row(p, None);
        }
    }
    let mut out = state_warning(group, coordinator.state());
    // Kafka prints no table for a group with no rows.
    if !table.is_empty() {
        table.write(&mut out, End::Plain);
    }
    out
}

/// What Kafka 4.4's tool prints for a group the broker does not know:
/// `DescribeGroups` answers `GROUP_ID_NOT_FOUND` (KIP-1043), the Admin
/// client fails with `GroupIdNotFoundException`, and the command prints the
/// failure (then its stack trace, to stderr, left out here).
fn not_found(group: &str) -> String {
    format!(
        "Error: Executing consumer group command failed due to \
         org.apache.kafka.common.errors.GroupIdNotFoundException: Group {group} not found.\n"
    )
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

/// A table as Kafka's commands print it: each shown column `%-Ns ` (the
/// value left-justified in its width, then a space), the last one as [`End`]
/// says. One writer for every describe view keeps their layout rules in one
/// place (and one copy of the code in the page).
pub(crate) struct Table {
    columns: Vec<Column>,
    /// The rows' cells, row after row, one per column (hidden ones too).
    cells: Vec<String>,
}

/// One column: its header, its width and whether it is shown.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    header: &'static str,
    /// Java's `%-Ns` N, or the least width when `fit`.
    width: usize,
    /// Kafka sizes it to its longest value, at least `width`.
    fit: bool,
    shown: bool,
}

impl Column {
    pub(crate) const fn fixed(header: &'static str, width: usize) -> Column {
        Column { header, width, fit: false, shown: true }
    }

    pub(crate) const fn fit(header: &'static str, width: usize) -> Column {
        Column { header, width, fit: true, shown: true }
    }

    pub(crate) const fn shown(self, shown: bool) -> Column {
        Column { shown, ..self }
    }
}

/// How a table's last shown column ends its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// The value alone.
    Plain,
    /// Padded to its width.
    Padded,
    /// Padded, and the space a next column would follow.
    Spaced,
}

impl Table {
    pub(crate) fn new(columns: &[Column]) -> Table {
        Table { columns: columns.to_vec(), cells: Vec::new() }
    }

    /// Adds a row: one cell per column, hidden columns included.
    pub(crate) fn row(&mut self, cells: &[&str]) {
        assert_eq!(cells.len(), self.columns.len());
        self.cells.extend(cells.iter().map(|&cell| String::from(cell)));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The header line, then each row.
    pub(crate) fn write(&self, out: &mut String, end: End) {
        let n = self.columns.len();
        let widths: Vec<usize> = (0..n)
            .map(|i| {
                let column = self.columns[i];
                let longest = if column.fit {
                    self.cells.iter().skip(i).step_by(n).map(String::len).max()
                } else {
                    None
                };
                longest.unwrap_or(0).max(column.width)
            })
            .collect();
        let last = (0..n).rev().find(|&i| self.columns[i].shown).unwrap_or(0);
        let headers: Vec<&str> = self.columns.iter().map(|c| c.header).collect();
        let mut line = |cells: &[&str]| {
            for i in (0..=last).filter(|&i| self.columns[i].shown) {
                let text = cells[i];
                out.push_str(text);
                if i < last || end != End::Plain {
                    // Java's `%-Ns`: every value here is ASCII, so bytes are characters.
                    out.extend(std::iter::repeat_n(' ', widths[i].saturating_sub(text.len())));
                }
                if i < last || end == End::Spaced {
                    out.push(' ');
                }
            }
            out.push('\n');
        };
        line(&headers);
        for row in self.cells.chunks(n) {
            let cells: Vec<&str> = row.iter().map(String::as_str).collect();
            line(&cells);
        }
    }
}

/// Kafka's `getAssignmentString` for the one topic: `orders:0,1,2`, `-` when empty.
fn assignment_string(partitions: &[u32]) -> String {
    if partitions.is_empty() {
        return MISSING.to_string();
    }
    let mut sorted = partitions.to_vec();
    crate::order::sort_ids(&mut sorted);
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
    if !sim.group_exists(g) {
        return not_found(sim.group_name(g));
    }
    let coordinator = sim.coordinator(g);
    let consumer_protocol = sim.group_setup(g).0.protocol == GroupProtocol::Consumer;
    let rows: Vec<MemberRow> = by_member_id(coordinator.members())
        .into_iter()
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

/// Members by member id (unique), through the engine's one sort.
fn by_member_id(members: &[crate::broker::coordinator::Member]) -> Vec<&crate::broker::coordinator::Member> {
    let mut sorted: Vec<_> = members.iter().collect();
    crate::order::sort_stable_by(&mut sorted, |a, b| a.member_id.cmp(&b.member_id));
    sorted
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
    let with_instance = members.iter().any(|m| m.instance_id.as_deref().is_some_and(|id| !id.is_empty()));
    // GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS; verbose: the epochs and assignments.
    let mut table = Table::new(&[
        Column::fixed("GROUP", group.len().max(15)),
        Column::fit("CONSUMER-ID", 15),
        Column::fit("GROUP-INSTANCE-ID", 17).shown(with_instance),
        Column::fit("HOST", 15),
        Column::fit("CLIENT-ID", 15),
        Column::fixed("#PARTITIONS", 15),
        Column::fixed("CURRENT-EPOCH", 15).shown(verbose),
        Column::fit("CURRENT-ASSIGNMENT", 20).shown(verbose),
        Column::fixed("TARGET-EPOCH", 15).shown(verbose),
        Column::fit("TARGET-ASSIGNMENT", 20).shown(verbose),
    ]);
    for m in members {
        let (epoch, target_epoch, target) = match &m.epochs {
            Some((e, t, target)) => (e.to_string(), t.to_string(), assignment_string(target)),
            None => (MISSING.into(), MISSING.into(), MISSING.into()),
        };
        table.row(&[
            group,
            &m.member_id,
            m.instance_id.as_deref().unwrap_or(""),
            &m.host,
            &m.client_id,
            &m.assignment.len().to_string(),
            &epoch,
            &assignment_string(&m.assignment),
            &target_epoch,
            &target,
        ]);
    }
    let mut out = state_warning(group, state);
    table.write(&mut out, if verbose { End::Padded } else { End::Spaced });
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
    if !sim.group_exists(g) {
        return not_found(sim.group_name(g));
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
    let (group_epoch, target_epoch) =
        epochs.map_or((MISSING.to_string(), MISSING.to_string()), |(g, t)| (g.to_string(), t.to_string()));
    let mut table = Table::new(&[
        Column::fixed("GROUP", group.len().max(15)),
        Column::fixed("COORDINATOR (ID)", 25),
        Column::fixed("ASSIGNMENT-STRATEGY", 20),
        Column::fixed("STATE", 20),
        Column::fixed("GROUP-EPOCH", 15).shown(verbose),
        Column::fixed("TARGET-ASSIGNMENT-EPOCH", 25).shown(verbose),
        Column::fixed("#MEMBERS", 0),
    ]);
    table.row(&[
        group,
        COORDINATOR,
        strategy,
        state.name(),
        &group_epoch,
        &target_epoch,
        &members.to_string(),
    ]);
    let mut out = state_warning(group, state);
    table.write(&mut out, End::Plain);
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
