//! The plain-data picture of the simulation that shells render.

use crate::config::{CommitMode, PositionModel};
use crate::event::{PartitionMove, Tick};
use crate::input::ConsumerId;
use crate::sim::{ExpansionView, FarPartitionView, PeekView, RollingView};
use serde::Serialize;

/// Everything the page draws, at one tick.
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
    /// The booblik topic the bridge writes to, when there is a bridge.
    pub far: Option<Vec<FarPartitionView>>,
    /// What the last partition growth moved.
    pub last_expansion: Option<ExpansionView>,
    /// A rolling update under way.
    pub rolling_update: Option<RollingView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RebalanceView {
    pub tick: Tick,
    pub generation: u32,
    pub moved: Vec<PartitionMove>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsView {
    pub records_per_poll: u32,
    pub handle_per_tick: u32,
    pub commit: CommitMode,
    pub idempotent: bool,
    pub session_timeout_ticks: u64,
    pub retention_records: u64,
    /// Where positions live: the group (Kafka) or each consumer's store (booblik).
    pub position: PositionModel,
    pub assignor: crate::config::Assignor,
    pub bridge: bool,
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
    pub log_end: u64,
    /// The group's committed offset (the dashed line); `None` before the first commit.
    pub committed: Option<u64>,
    /// The position held for the partition: the committed offset, or
    /// (booblik) its owner's stored checkpoint.
    pub held: Option<u64>,
    /// Log end − the position held: the committed offset, as the CLI
    /// computes it (booblik: the owner's stored checkpoint).
    pub lag: Option<u64>,
    /// The member that owns it in the current generation (maybe a crashed one).
    pub owner: Option<ConsumerId>,
    pub owner_alive: bool,
    /// The owner's fetch position (the cursor).
    pub position: Option<u64>,
    /// Ticks since the oldest record the group has not moved past was produced.
    pub oldest_unprocessed_age: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsumerState {
    Running,
    Paused,
    Stopping,
    Crashed,
    Stopped,
}

impl ConsumerState {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ConsumerState::Running => "running",
            ConsumerState::Paused => "paused",
            ConsumerState::Stopping => "stopping",
            ConsumerState::Crashed => "crashed",
            ConsumerState::Stopped => "stopped",
        }
    }
}

/// Where the consumer's loop is, for highlighting the poll-loop code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoopStep {
    Idle,
    Poll,
    Handle,
    Commit,
}

/// One consumer card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsumerView {
    pub id: ConsumerId,
    pub member_id: Option<String>,
    pub state: ConsumerState,
    /// In the group, stable, and given no partition: more consumers than partitions.
    pub idle_spare: bool,
    /// Its partitions; for a crashed consumer, those its dead member still holds.
    pub partitions: Vec<u32>,
    pub in_flight: Vec<InFlightRecord>,
    pub handled: u64,
    pub step: LoopStep,
    /// When a crashed incarnation's session runs out.
    pub session_expires_at: Option<Tick>,
    pub crashed_at: Option<Tick>,
    /// Where its loop was when it crashed.
    pub crashed_during: Option<LoopStep>,
    /// booblik: where this incarnation resumed each partition (`resumedFrom`).
    pub resumed_from: Vec<(u32, u64)>,
    /// booblik: what its offset store holds, per partition.
    pub stored: Vec<(u32, u64)>,
    /// booblik: a checkpoint write is under way.
    pub writing_checkpoint: bool,
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
}

/// One entry of "what the application did, in order".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HandledRecord {
    pub tick: Tick,
    pub consumer: ConsumerId,
    pub partition: u32,
    pub offset: u64,
    pub record_id: u64,
    pub subject: u32,
    pub duplicate: bool,
    pub out_of_key_order: bool,
    pub effect: bool,
    pub produced_tick: Tick,
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
    /// Live members that own at least one partition.
    pub active_consumers: u32,
    pub generation: u32,
    /// Commit requests (Kafka) or checkpoint writes (booblik).
    pub commit_requests: u64,
    /// Checkpoints a crash tore mid-write (in-place writes).
    pub torn_checkpoints: u64,
    /// Records the bridge wrote to the booblik topic (none of them with a key).
    pub bridged: u64,
    /// `partitionFor(null)` calls that moved the round-robin counter.
    pub advancing_peeks: u64,
    /// Money paid twice: payouts whose operation had taken effect before (cents).
    pub double_paid_cents: u64,
    /// Partition-ticks no consumer worked because a rebalance was in progress.
    pub partition_ticks_stopped: u64,
}
