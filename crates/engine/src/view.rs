//! The plain-data picture of the simulation that shells render.

use crate::bridge::BridgePartitionView;
use crate::config::{CommitMode, PositionModel};
use crate::event::Tick;
use crate::input::ConsumerId;
use serde::Serialize;

// Plain data the parts give out, shown as they are.
pub use crate::app::{HandledRecord, LedgerEntry, RecordAt};
pub use crate::broker::RebalanceView;
pub use crate::client::producer::PeekView;
pub use crate::client::{CheckpointView, ConsumerState, LoopStep};
pub use crate::observe::{Finding, FindingKind, LagSample};

/// Everything the page draws, at one tick. The fields about one group
/// (generation, state, settings, metrics, the partitions' committed offsets
/// and owners, the sink) are the first group's; `groups` has every group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct View {
    pub tick: Tick,
    pub seed: u64,
    pub generation: u32,
    /// Kafka's group state name: `Stable`, `PreparingRebalance` or `Empty`.
    pub group_state: String,
    pub settings: SettingsView,
    pub producer: ProducerView,
    pub partitions: Vec<PartitionView>,
    pub consumers: Vec<ConsumerView>,
    pub metrics: Metrics,
    /// The last handled records, oldest first (bounded).
    pub recent: Vec<HandledRecord>,
    pub restart_pending: bool,
    pub events_dropped: u64,
    /// The last completed rebalance: which partitions changed owner.
    pub last_rebalance: Option<RebalanceView>,
    /// The bridge target topic, when an application bridges.
    pub bridge: Option<Vec<BridgePartitionView>>,
    /// What the last partition growth moved.
    pub last_expansion: Option<ExpansionView>,
    /// A rolling update under way.
    pub rolling_update: Option<RollingView>,
    /// Every group reading the topic, in config order.
    pub groups: Vec<GroupView>,
    /// `orders.DLT` and the retry topics, when a group's policy writes to
    /// them or they hold letters (issue 40).
    pub letter_topics: Vec<LetterTopicView>,
    /// Each share group's dead-letter topic (KIP-1191), once the broker wrote to it.
    pub share_dead_letter_topics: Vec<ShareDeadLetterTopicView>,
}

/// One consumer group, as the page's group column and the CLI show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupView {
    pub name: String,
    pub generation: u32,
    /// Kafka's group state name.
    pub state: String,
    pub settings: SettingsView,
    pub metrics: Metrics,
    /// Per partition: the group's committed offset (its marker on the tape).
    pub committed: Vec<Option<u64>>,
    /// Per partition: log end − the position held (`None` before the first commit).
    pub lag: Vec<Option<u64>>,
    /// Its consumers, in card order.
    pub consumers: Vec<ConsumerId>,
    pub restart_pending: bool,
    pub protocol: crate::config::GroupProtocol,
    /// Consumer protocol: the group epoch and the target assignment's epoch (0 for classic).
    pub group_epoch: u32,
    pub target_epoch: u32,
    pub remote_assignor: crate::config::RemoteAssignor,
    /// Per partition: ticks its handler retried a record in place, and the
    /// record it is failing on now (issue 40).
    pub stuck: Vec<crate::observe::StuckPartition>,
    /// `fix-handler` was applied: the handler succeeds on every record.
    pub handler_fixed: bool,
    /// The dead-letter replay job's committed offsets per `orders.DLT`
    /// partition (group `<name>-dlt-replay`), once started.
    pub replay: Option<Vec<u64>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsView {
    pub records_per_poll: u32,
    pub handle_per_tick: u32,
    pub commit: CommitMode,
    pub idempotent: bool,
    pub session_timeout_ticks: u64,
    /// `max.poll.interval.ms`: the client's poll timer.
    pub max_poll_interval_ticks: u64,
    /// `auto.offset.reset`: where a partition without a committed offset starts.
    pub auto_offset_reset: crate::config::AutoOffsetReset,
    /// `group.initial.rebalance.delay.ms` (0: none).
    pub initial_rebalance_delay_ticks: u64,
    /// `offsets.retention.minutes`, when the scenario sets it.
    pub offsets_retention_ticks: Option<u64>,
    /// `metadata.max.age.ms` of a classic group's consumers, when the scenario sets it.
    pub metadata_max_age_ticks: Option<u64>,
    pub retention_records: u64,
    /// Where positions live: the group (Kafka) or each consumer's own store.
    pub position: PositionModel,
    pub assignor: crate::config::Assignor,
    pub bridge: bool,
    /// What the application's code does when its handler fails (issue 40).
    pub error_policy: crate::config::ErrorPolicy,
}

/// A dead-letter or retry topic, for its tape (issue 40).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LetterTopicView {
    pub topic: crate::letters::LetterTopicId,
    /// `orders.DLT`, `orders-retry-1`, …
    pub name: String,
    pub partitions: Vec<crate::letters::LetterPartitionView>,
}

/// A share group's dead-letter topic (KIP-1191), for its tape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShareDeadLetterTopicView {
    /// The share group's index.
    pub group: u32,
    /// The share group's name (`__dlq.errors.group`).
    pub group_name: String,
    /// `errors.deadletterqueue.topic.name`: `dlq.orders`, …
    pub name: String,
    /// `errors.deadletterqueue.copy.record.enable`.
    pub copy_record: bool,
    pub partitions: Vec<crate::letters::LetterPartitionView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProducerView {
    pub use_keys: bool,
    pub key_count: u32,
    pub hot_key_share_percent: u8,
    pub send_per_tick: u32,
    /// Where the next keyless record would go (a peek that moves nothing).
    pub next_keyless_partition: u32,
    pub last_peek: Option<PeekView>,
}

/// One tape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionView {
    pub partition: u32,
    pub log_start: u64,
    /// The leader's log end: with a cluster, records from the high watermark
    /// on are written but not yet readable.
    pub log_end: u64,
    /// The group's committed offset (the dashed line); `None` before the first commit.
    pub committed: Option<u64>,
    /// The position held for the partition: the committed offset, or
    /// (consumer-side stores) its owner's stored checkpoint.
    pub held: Option<u64>,
    /// The high watermark (the log end without a cluster) − the position
    /// held: the committed offset, as the CLI computes it (consumer-side
    /// stores: the owner's stored checkpoint).
    pub lag: Option<u64>,
    /// The member that owns it in the current generation (maybe a crashed one).
    pub owner: Option<ConsumerId>,
    pub owner_alive: bool,
    /// The owner's fetch position (the cursor).
    pub position: Option<u64>,
    /// Ticks since the oldest record the group has not moved past was produced.
    pub oldest_unprocessed_age: u64,
}

/// One consumer card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsumerView {
    pub id: ConsumerId,
    /// Its group's name.
    pub group: String,
    pub member_id: Option<String>,
    pub state: ConsumerState,
    /// In the group, stable, and given no partition: more consumers than partitions.
    pub idle_spare: bool,
    /// Its partitions; for a crashed consumer, those its dead member still holds.
    pub partitions: Vec<u32>,
    /// The first records of its in-flight batch (at most [`crate::IN_FLIGHT_SHOWN_MAX`]).
    pub in_flight: Vec<InFlightRecord>,
    /// How many records its in-flight batch holds.
    pub in_flight_count: u32,
    pub handled: u64,
    pub step: LoopStep,
    /// When the session of its member runs out, while no heartbeat comes
    /// (a crashed or stalled process).
    pub session_expires_at: Option<Tick>,
    /// That session running down, as the card draws it.
    pub session_timer: Option<SessionTimerView>,
    /// With auto-commit: ticks until `poll()` next commits on the timer
    /// (`auto.commit.interval.ms`), once its timer has started.
    pub auto_commit_in_ticks: Option<u64>,
    pub crashed_at: Option<Tick>,
    /// Where its loop was when it crashed.
    pub crashed_during: Option<LoopStep>,
    /// Consumer-side store: where this incarnation resumed each partition (`resumedFrom`).
    pub resumed_from: Vec<(u32, u64)>,
    /// Consumer-side store: what it holds, per partition.
    pub stored: Vec<(u32, u64)>,
    /// Consumer-side store: a checkpoint write is under way.
    pub writing_checkpoint: bool,
    /// `group.instance.id`: a static member.
    pub instance_id: Option<String>,
    /// Consumer protocol: how the coordinator sees its member.
    pub reconciliation: Option<MemberView>,
    /// Its application's transactional producer, in the transactional group
    /// (`config.transactions`).
    pub transaction: Option<TxnProducerView>,
    /// The poll timer while the member works through a batch in its group:
    /// how long since its last `poll()`, against `max.poll.interval`.
    pub poll_timer: Option<PollTimerView>,
    /// Out of its group with a batch in hand, and why (`poll timeout`, or
    /// `fenced` for a KIP-848 member whose session ran out), until it joins
    /// again: it finishes its batch, and its commit will fail.
    pub out_of_group: Option<&'static str>,
}

/// A member's session as the coordinator sees it while no heartbeat
/// arrives (`session.timeout.ms`): when it runs out, the member is removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SessionTimerView {
    pub left_ticks: u64,
    pub session_timeout_ticks: u64,
}

/// A member's poll timer (`max.poll.interval.ms`), as its card draws it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PollTimerView {
    pub since_poll_ticks: u64,
    pub max_poll_interval_ticks: u64,
}

/// A consumer-protocol member as its coordinator holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemberView {
    /// -2 for a static member that left for a while.
    pub member_epoch: i32,
    /// `STABLE`, `UNREVOKED_PARTITIONS` or `UNRELEASED_PARTITIONS`.
    pub state: &'static str,
    /// What the coordinator has assigned it so far.
    pub assignment: Vec<u32>,
    /// Partitions it must revoke before it moves on.
    pub revoking: Vec<u32>,
    /// Its share of the target assignment.
    pub target: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct InFlightRecord {
    pub partition: u32,
    pub offset: u64,
    pub record_id: u64,
    pub subject: u32,
}

/// One record on a tape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RecordView {
    pub offset: u64,
    pub record_id: u64,
    pub subject: u32,
    pub keyed: bool,
    pub produced_tick: Tick,
    pub handled: u32,
    pub lost: bool,
    pub in_flight: bool,
    /// Every handler fails on it.
    pub poison: bool,
    /// Share group: the record's state at the share-partition, while it is
    /// in the in-flight window.
    pub share: Option<ShareRecordView>,
}

/// An in-flight record of a share-partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShareRecordView {
    /// `available`, `acquired`, `acknowledged` or `archived`.
    pub state: &'static str,
    /// Who holds it, while acquired.
    pub holder: Option<ConsumerId>,
    /// The tick its acquisition lock runs out, while acquired.
    pub lock_until: Option<Tick>,
    /// Times it was delivered.
    pub delivery_count: u8,
}

/// The counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Metrics {
    pub produced: u64,
    /// Records handed to the application (every delivery, duplicates included).
    pub delivered: u64,
    /// Deliveries of a record the application had handled before.
    pub duplicates: u64,
    pub distinct_handled: u64,
    /// Effects that took place: deliveries, less duplicates the idempotent application dropped.
    pub effects: u64,
    /// Records the group moved past, or retention deleted, that no consumer handled.
    pub never_processed: u64,
    /// The part of `never_processed` that retention deleted.
    pub lost_to_retention: u64,
    /// Records handled for the first time after a later record of the same subject.
    pub out_of_key_order: u64,
    /// Sum of log end − committed; a partition with no commit counts from its log start.
    pub total_lag: u64,
    /// The highest total lag sampled so far (once a tick).
    pub peak_total_lag: u64,
    /// Live members that own at least one partition.
    pub active_consumers: u32,
    pub generation: u32,
    /// Commit requests (Kafka) or checkpoint writes (consumer-side stores).
    pub commit_requests: u64,
    /// Checkpoints a crash tore mid-write (in-place writes).
    pub torn_checkpoints: u64,
    /// Records the application wrote to the bridge target topic (none of them with a key).
    pub bridged: u64,
    /// `partitionFor(null)` calls that moved the round-robin counter.
    pub advancing_peeks: u64,
    /// Money paid twice: payouts whose operation had taken effect before (cents).
    pub double_paid_cents: u64,
    /// Partition-ticks no consumer worked because a rebalance was in progress.
    pub partition_ticks_stopped: u64,
    /// Static members that came back within their session and took their own place.
    pub static_rejoins: u64,
    /// Commits that failed with `CommitFailedException`: the member had
    /// left its group (its poll timer ran out), so what it handled was not
    /// committed and is read again.
    pub commit_failed: u64,
    /// Members whose client left the group by itself because more than
    /// `max.poll.interval` passed between two polls.
    pub members_left_poll_timeout: u64,
    /// Records an `auto.offset.reset` (latest, by_duration) started the
    /// group past, unhandled: the part of never processed the reset chose.
    pub skipped_by_reset: u64,
    /// Share group: records archived (delivered up to the delivery count limit, or rejected).
    pub archived: u64,
    /// Share group: acquisitions of a record that had been delivered before.
    pub redelivered: u64,
    /// Deliveries the application's handler failed on (poison records).
    pub failed: u64,
    /// Records the producer was told were written (acks=1 on the leader's
    /// append, acks=all once the high watermark passed them) that a leader
    /// election later cut off the log. The topic's, not a group's.
    pub acked_lost: u64,
    /// Records the producer wrote a second time: appended while the same
    /// record id was already in the partition's log (a retry after a lost
    /// acknowledgement, without idempotence). The topic's.
    pub producer_duplicates: u64,
    /// Records appended after a record of the same partition the producer
    /// sent later (a retried batch overtaken by the ones behind it; copies
    /// are counted as duplicates, not here). The topic's.
    pub producer_reordered: u64,
    /// Produce requests the leader refused with `NOT_ENOUGH_REPLICAS`
    /// (acks=all with the ISR below `min.insync.replicas`). The topic's.
    pub writes_refused: u64,
    /// Of `duplicates`: deliveries of a producer's second copy (the group
    /// read that offset once; the producer wrote the record twice). The rest
    /// are the consumer side's (replays after a crash, a reset, a rebalance).
    pub duplicates_from_producer: u64,
    /// Of `out_of_key_order`: records the producer wrote after a later-sent one.
    pub out_of_key_order_from_producer: u64,
    /// Results of the transactional application the downstream consumer of
    /// payouts received (`config.transactions`). The topic's, not a group's.
    pub downstream_delivered: u64,
    /// Of those, results of a record received before (another copy at
    /// another offset): what exactly-once processing must keep at 0.
    pub downstream_duplicates: u64,
    /// Results the downstream consumer received whose transaction was
    /// aborted (read_uncommitted reads them; read_committed never).
    pub aborted_seen: u64,
    /// Writes and offset commits of a fenced producer the brokers refused
    /// (a zombie instance after a newer one with its transactional.id started).
    pub fenced_writes: u64,
    /// Failed records the error policy skipped (`skip`): never processed.
    pub skipped_by_handler: u64,
    /// Failed records written to the dead-letter topic.
    pub dead_lettered: u64,
    /// Failed records written to a retry topic.
    pub sent_to_retry: u64,
    /// Dead letters the replay job applied under their effect key.
    pub replayed: u64,
    /// Replayed records whose effect a failed attempt had made already, made again.
    pub double_applied_on_replay: u64,
    /// Payouts made by attempts that then failed.
    pub partial_effects: u64,
    /// Partition-ticks a handler retried a record in place: no progress, records waiting.
    pub stuck_partition_ticks: u64,
}

/// The effect of restarting one partition from an offset (see [`crate::Sim::restart_preview`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RestartPreview {
    /// The offset after clamping to the log.
    pub offset: u64,
    /// Handled records between the offset and the committed offset: they come back.
    pub replay: u64,
    /// Unhandled records between the committed offset and the offset: nobody will handle them.
    pub skip: u64,
}

/// One entry of `/stats`, per consumer and partition (consumer-side stores).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerStats {
    pub consumer: ConsumerId,
    pub partition: u32,
    /// The next offset it will read (its live position); `None` while it does not own the partition.
    pub position: Option<u64>,
    /// Where this incarnation started the partition from.
    pub resumed_from: Option<u64>,
    /// Records of this partition it handled (all incarnations).
    pub handled: u64,
    /// What its offset store holds for the partition now.
    pub stored: Option<u64>,
    pub last_checkpoint_tick: Option<Tick>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum SplitStatus {
    /// The position held equals the records written.
    Equal,
    /// Behind by at most one batch: work in flight.
    WithinOneBatch { behind: u64 },
    /// Behind by more than a batch: the consumer is lagging.
    Behind { behind: u64 },
    /// Nobody holds the partition.
    NoHolder,
}

/// One partition's line of the split check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionSplit {
    pub partition: u32,
    /// Records written to the partition (its log end).
    pub written: u64,
    pub holder: Option<ConsumerId>,
    /// The position held for it: the group's committed offset (Kafka) or the
    /// holder's stored checkpoint (consumer-side stores).
    pub position: Option<u64>,
    pub status: SplitStatus,
}

/// The split check (seed 000): every record reaches a consumer, and each
/// partition's written records equal the position its consumer holds.
/// Resuming up to one batch behind the last known position is legal under
/// at-least-once; resuming further back, or never processing a record, is a
/// violation, listed with record ids.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SplitCheck {
    pub partitions: Vec<PartitionSplit>,
    /// Legal replays and violations, oldest first, then never-processed records.
    pub findings: Vec<Finding>,
    pub violations: u64,
    pub legal_replays: u64,
    /// Findings dropped past the bound.
    pub findings_dropped: u64,
}

impl SplitCheck {
    #[must_use]
    pub fn passed(&self) -> bool {
        self.violations == 0
    }
}

/// What the last partition growth moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpansionView {
    pub tick: Tick,
    pub from: u32,
    pub to: u32,
    /// `(subject, old partition, new partition)` of every key that now maps elsewhere.
    pub moved: Vec<(u32, u32, u32)>,
}

/// Where a rolling update is, for the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RollingView {
    /// The consumer being restarted now.
    pub current: ConsumerId,
    /// `true` while it is stopping, `false` while it rejoins.
    pub stopping: bool,
    pub remaining: Vec<ConsumerId>,
}

/// A member's transactional producer, for `offsetlab run` and its card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TxnProducerView {
    pub consumer: ConsumerId,
    pub transactional_id: String,
    pub producer_id: Option<u64>,
    /// The epoch this producer has (a newer instance's may be higher).
    pub epoch: Option<u32>,
    pub in_transaction: bool,
    pub fenced: bool,
    pub running: bool,
    /// What the transaction coordinator holds for the transactional id, in
    /// Kafka's `TransactionState` words (`Ongoing`, `CompleteAbort`, …) as
    /// `kafka-transactions --describe` prints them: after a crash the
    /// producer's own state stops, the coordinator's goes on (the timeout
    /// aborts an open transaction).
    pub coordinator_state: &'static str,
}

impl TxnProducerView {
    /// The producer's own state in a word: `fenced`, `stopped` (its process
    /// is not running), `in a transaction` or `ready`.
    #[must_use]
    pub fn client_state(&self) -> &'static str {
        if self.fenced {
            "fenced"
        } else if !self.running {
            "stopped"
        } else if self.in_transaction {
            "in a transaction"
        } else {
            "ready"
        }
    }
}

/// Exactly-once processing: the output topic payouts, the members'
/// producers, the downstream consumer's counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TransactionsView {
    pub group: String,
    pub isolation_level: crate::config::IsolationLevel,
    pub payouts: Vec<crate::broker::payouts::PayoutPartitionView>,
    pub producers: Vec<TxnProducerView>,
    pub downstream_delivered: u64,
    pub downstream_duplicates: u64,
    pub aborted_seen: u64,
    pub fenced_writes: u64,
    pub committed_transactions: u64,
    pub aborted_transactions: u64,
}

/// The brokers and each partition's replicas (`Sim::cluster_view`): what the
/// page's broker strip and the tapes' replica lines draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterView {
    pub brokers: Vec<BrokerView>,
    /// In partition order.
    pub partitions: Vec<ReplicaSetView>,
    pub replication_factor: u32,
    pub min_insync_replicas: u32,
    pub unclean_leader_election: bool,
    /// The producer's `acks`.
    pub acks: crate::delivery::Acks,
    /// `enable.idempotence` as the producer runs it (Kafka's default resolved).
    pub idempotence: bool,
    /// `max.in.flight.requests.per.connection`.
    pub max_in_flight: u32,
    /// Records sent and not yet acknowledged or failed (the accumulator's buffer).
    pub buffered_records: u64,
}

/// One broker (node id from 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokerView {
    pub id: u32,
    /// Its process runs.
    pub alive: bool,
    /// The controller fenced it (its session timed out) and it has not registered again.
    pub fenced: bool,
    /// The partitions it leads, in order.
    pub leader_of: Vec<u32>,
}

/// One partition's replicas, as `kafka-topics --describe` and the leader see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplicaSetView {
    pub partition: u32,
    pub leader: Option<u32>,
    pub leader_epoch: u32,
    /// Consumers read below it; acks=all answers once it passes the append.
    pub high_watermark: u64,
    /// In the partition's replica order.
    pub replicas: Vec<ReplicaView>,
}

/// One replica of a partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplicaView {
    pub broker: u32,
    /// The replica's log end offset: what it holds.
    pub log_end: u64,
    pub in_isr: bool,
    /// In the eligible leader replicas (KIP-966).
    pub in_elr: bool,
}
