//! The simulation's configuration: everything fixed at start, validated with
//! errors that name the field.

use crate::limits;
use crate::partitioner::KeylessStrategy;
use serde::{Deserialize, Serialize};
use std::fmt;

pub(crate) mod delivery;
pub(crate) mod replication;

pub(crate) use delivery::DeliveryConfig;
pub(crate) use replication::ReplicationConfig;

/// When the consumer loop commits its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "mode", rename_all = "kebab-case")]
pub enum CommitMode {
    /// poll → handle the batch → commit: at-least-once.
    After,
    /// poll → commit → handle: at-most-once.
    Before,
    /// poll → for each record: handle, commit its offset. The smallest replay
    /// window after a crash, one commit request per record.
    EachRecord,
    /// `enable.auto.commit=true`: every `interval_ticks`, the next `poll()`
    /// commits the positions of the records earlier polls returned.
    Auto { interval_ticks: u64 },
}

impl CommitMode {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            CommitMode::After => "after",
            CommitMode::Before => "before",
            CommitMode::Auto { .. } => "auto",
            CommitMode::EachRecord => "each-record",
        }
    }
}

/// Where a consumer's position lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(tag = "store", rename_all = "kebab-case")]
pub enum PositionModel {
    /// Kafka's: the group's committed offsets, kept by the coordinator.
    #[default]
    Group,
    /// booblik's: each consumer checkpoints its position into its own offset
    /// store (a file on its volume) after the batch is handled, and reads it
    /// back when it starts. A write takes `write_ticks`.
    Consumer { writes: CheckpointWrites, write_ticks: u64 },
}

/// How a consumer's offset store writes a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckpointWrites {
    /// Temp file, write, fsync, atomic rename: a crash leaves the old or the new position.
    Atomic,
    /// Truncate and write the file itself: a crash mid-write leaves a prefix of
    /// the new digits (`1234` cut to `12`), which the naive reader takes as a position.
    InPlace,
}

/// The partition assignor the group uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Assignor {
    /// Kafka's `RangeAssignor`, eager.
    #[default]
    Range,
    /// `RoundRobinAssignor`, eager.
    #[serde(rename = "roundrobin")]
    RoundRobin,
    /// `StickyAssignor`, eager: balanced, moving as few partitions as it can,
    /// but every member still stops during the rebalance.
    Sticky,
    /// `CooperativeStickyAssignor`: members keep consuming what they keep;
    /// only partitions that change owner stop, handed over in a second rebalance.
    CooperativeSticky,
}

impl Assignor {
    /// The variant's name as the event trace records it (`RoundRobin`).
    #[must_use]
    pub fn variant_name(self) -> &'static str {
        match self {
            Assignor::Range => "Range",
            Assignor::RoundRobin => "RoundRobin",
            Assignor::Sticky => "Sticky",
            Assignor::CooperativeSticky => "CooperativeSticky",
        }
    }

    #[must_use]
    pub fn strategy(self) -> crate::assign::Strategy {
        match self {
            Assignor::Range => crate::assign::Strategy::Range,
            Assignor::RoundRobin => crate::assign::Strategy::RoundRobin,
            Assignor::Sticky => crate::assign::Strategy::Sticky,
            Assignor::CooperativeSticky => crate::assign::Strategy::CooperativeSticky,
        }
    }

    /// The cooperative rebalance protocol (only cooperative-sticky here).
    #[must_use]
    pub fn cooperative(self) -> bool {
        self == Assignor::CooperativeSticky
    }
}

/// The rebalance protocol a group's members speak (`group.protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupProtocol {
    /// The classic protocol (JoinGroup, SyncGroup): the group leader runs the
    /// client-side assignor, eager or cooperative, behind a group-wide barrier.
    #[default]
    Classic,
    /// Kafka 4's consumer protocol (KIP-848, `group.protocol=consumer`): the
    /// coordinator computes a target assignment with its own assignor and each
    /// member reconciles to it through heartbeats, with no barrier.
    Consumer,
    /// A share group (KIP-932, Kafka 4.2+): many members read one partition at
    /// once; records are acquired under a lock and acknowledged one by one
    /// (`kafka-share-groups`, the `simple` assignor).
    Share,
}

impl GroupProtocol {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            GroupProtocol::Classic => "classic",
            GroupProtocol::Consumer => "consumer",
            GroupProtocol::Share => "share",
        }
    }
}

/// The coordinator's assignor for a consumer-protocol group (`group.remote.assignor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RemoteAssignor {
    /// `uniform`, Kafka's default: balanced and sticky.
    #[default]
    Uniform,
    /// `range`: contiguous ranges in member order (static members first, by instance id).
    Range,
}

impl RemoteAssignor {
    /// Every assignor modelled.
    pub const ALL: [RemoteAssignor; 2] = [RemoteAssignor::Uniform, RemoteAssignor::Range];

    /// The name Kafka gives it, as `--describe --state` prints it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RemoteAssignor::Uniform => "uniform",
            RemoteAssignor::Range => "range",
        }
    }
}

/// What the application's code does when its handler throws (issue 40): the
/// application's policy, not Kafka's. Spring Kafka's names in brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(tag = "policy", rename_all = "kebab-case")]
pub enum ErrorPolicy {
    /// Log the failure and move on: the record is committed past, never
    /// processed (a hand-written loop's `catch`).
    #[default]
    Skip,
    /// Try the record again in place, forever (a hand-written loop that
    /// retries inside the handler): the partition stops at it, and once the
    /// retries outlast `max.poll.interval` the member leaves its group and
    /// the partition moves on to fail at its next owner.
    RetryForever {
        /// Ticks between two attempts (at least one attempt a tick).
        backoff_ticks: u64,
    },
    /// `retries` attempts again in place, `backoff_ticks` apart, then the
    /// record goes to the dead-letter topic and is committed past
    /// (`DefaultErrorHandler` with a `DeadLetterPublishingRecoverer`).
    RetryThenDeadLetter { retries: u32, backoff_ticks: u64 },
    /// Non-blocking retries (`@RetryableTopic`): the record goes to
    /// `orders-retry-1`, …, `orders-retry-<levels>`, each handled
    /// `delay_ticks × 2^(level−1)` after it was written, then to the
    /// dead-letter topic; the main partition flows on meanwhile.
    RetryTopics { levels: u32, delay_ticks: u64 },
}

impl ErrorPolicy {
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == ErrorPolicy::Skip
    }

    /// Its name in the scenario format (the `"policy"` tag).
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            ErrorPolicy::Skip => "skip",
            ErrorPolicy::RetryForever { .. } => "retry-forever",
            ErrorPolicy::RetryThenDeadLetter { .. } => "retry-then-dead-letter",
            ErrorPolicy::RetryTopics { .. } => "retry-topics",
        }
    }

    /// The delay of retry topic `level` (1-based): doubling per level.
    #[must_use]
    pub fn retry_delay(self, level: u32) -> u64 {
        match self {
            ErrorPolicy::RetryTopics { delay_ticks, .. } => {
                delay_ticks.saturating_mul(1 << level.saturating_sub(1).min(16))
            }
            _ => 0,
        }
    }
}

/// An error policy's numbers in their ranges ([`limits::RETRY_TOPICS_MAX`] levels at most).
/// The broker's default `errors.deadletterqueue.topic.name.prefix`: a share
/// group's dead-letter topic must start with it (KIP-1191).
pub const DEAD_LETTER_TOPIC_PREFIX: &str = "dlq.";

/// A share group's dead-letter queue settings, refused as Kafka 4.4.0
/// refuses them: the group config's `__` rule (`GroupConfig`), the broker's
/// prefix (`ProduceRequestHandler.validateDlqTopic`), and a topic name's
/// length and characters (`Topic.validate`). A classic or consumer group
/// has no such config: its application's `error_policy` writes `orders.DLT`.
fn check_dead_letter_topic(group: &GroupConfig) -> Result<(), ConfigError> {
    let refuse = |field: &'static str, message: String| Err(ConfigError { field, message });
    if group.protocol != GroupProtocol::Share {
        if group.dead_letter_topic.is_some() {
            return refuse("dead_letter_topic", "errors.deadletterqueue.topic.name is a share group's config (KIP-1191): a classic or consumer group's application dead-letters through error_policy".into());
        }
        if group.dead_letter_copy_record {
            return refuse(
                "dead_letter_copy_record",
                "errors.deadletterqueue.copy.record.enable is a share group's config (KIP-1191)".into(),
            );
        }
        return Ok(());
    }
    let Some(name) = &group.dead_letter_topic else {
        if group.dead_letter_copy_record {
            return refuse(
                "dead_letter_copy_record",
                "copying records needs a dead-letter topic (dead_letter_topic)".into(),
            );
        }
        return Ok(());
    };
    if name.starts_with("__") {
        return refuse("dead_letter_topic", "DLQ topic name must not start with '__'".into());
    }
    if !name.starts_with(DEAD_LETTER_TOPIC_PREFIX) || name.len() == DEAD_LETTER_TOPIC_PREFIX.len() {
        return refuse(
            "dead_letter_topic",
            format!(
                "the DLQ topic name must start with the prefix {DEAD_LETTER_TOPIC_PREFIX} (errors.deadletterqueue.topic.name.prefix) and go on"
            ),
        );
    }
    if name.len() > limits::TOPIC_NAME_MAX
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return refuse(
            "dead_letter_topic",
            format!(
                "a topic name is 1 to {} of ASCII letters, digits, '.', '_' and '-'",
                limits::TOPIC_NAME_MAX
            ),
        );
    }
    Ok(())
}

pub(crate) fn check_error_policy(policy: ErrorPolicy) -> Result<(), ConfigError> {
    use limits::*;
    match policy {
        ErrorPolicy::Skip => Ok(()),
        ErrorPolicy::RetryForever { backoff_ticks } => {
            check_range("error_policy.backoff_ticks", backoff_ticks, 0, RETRY_BACKOFF_TICKS_MAX)
        }
        ErrorPolicy::RetryThenDeadLetter { retries, backoff_ticks } => {
            check_range("error_policy.retries", retries, 0, RETRIES_MAX)?;
            check_range("error_policy.backoff_ticks", backoff_ticks, 0, RETRY_BACKOFF_TICKS_MAX)
        }
        ErrorPolicy::RetryTopics { levels, delay_ticks } => {
            check_range("error_policy.levels", levels, 1, RETRY_TOPICS_MAX)?;
            check_range("error_policy.delay_ticks", delay_ticks, 1, RETRY_BACKOFF_TICKS_MAX)
        }
    }
}

/// Where a consumer starts a partition its group has no committed offset
/// for, or whose position retention deleted (`auto.offset.reset`).
/// Kafka's default is `latest`; a scenario that leaves it out means
/// `earliest`, as every scenario did before the model had the setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AutoOffsetReset {
    /// The log start offset.
    #[default]
    Earliest,
    /// The log end (the high watermark with a cluster): records written
    /// before are never read by this group.
    Latest,
    /// No reset: `poll()` throws `NoOffsetForPartitionException` and the
    /// application stops.
    None,
    /// KIP-1106: the first record produced at most this many ticks ago
    /// (the log end when there is none).
    ByDuration(u64),
}

impl AutoOffsetReset {
    /// Kafka's name for the policy, without its duration.
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            AutoOffsetReset::Earliest => "earliest",
            AutoOffsetReset::Latest => "latest",
            AutoOffsetReset::None => "none",
            AutoOffsetReset::ByDuration(_) => "by_duration",
        }
    }

    /// Kafka's name for it (`by_duration:…` with the duration in ticks here).
    #[must_use]
    pub fn name(self) -> String {
        match self {
            AutoOffsetReset::ByDuration(ticks) => format!("by_duration:{ticks} ticks"),
            other => other.kind().into(),
        }
    }
}

/// Where a share group starts a partition it reads for the first time
/// (`share.auto.offset.reset`, a group config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShareAutoOffsetReset {
    /// Kafka's default: the log end offset when the share-partition is first
    /// read; records sent before then are never delivered.
    #[default]
    Latest,
    /// The log start offset.
    Earliest,
}

/// How a share consumer acknowledges (`share.acknowledgement.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AcknowledgementMode {
    /// Kafka's default: the next `poll()` (or `commitSync()`) accepts every
    /// record the last one returned, whatever the handler did with it.
    #[default]
    Implicit,
    /// The application acknowledges each record: accept when handled,
    /// release when its handler failed (delivered again, archived at the
    /// delivery count limit).
    Explicit,
}

/// Everything fixed when a simulation starts: the topic, the producer's
/// starting settings, and the groups that read the topic. Inputs change the
/// live settings later (records per poll, commit mode, …), never this.
///
/// In JSON every field may be left out (it then takes its value from
/// `Config::default()`), and a config may give one group's settings at the
/// top level (`consumers`, `commit`, …: the single group `demo`, the form
/// every scenario had before there were groups) or `groups`, not both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Config {
    /// Seeds every random choice (keyless partitions, keys, member ids).
    pub seed: u64,
    /// Partitions of topic `orders`.
    pub partitions: u32,
    /// Records kept per partition; older ones are deleted and the log start advances.
    pub retention_records: u64,
    pub producer: ProducerConfig,
    /// The consumer groups reading the topic, 1 to [`limits::GROUPS_MAX`].
    pub groups: Vec<GroupConfig>,
    /// Brokers and replication. `None` (left out of the JSON): one broker,
    /// no replication, as every scenario before there were brokers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterConfig>,
    /// Exactly-once processing into the output topic `payouts`. `None` (left
    /// out of the JSON): no application writes to Kafka.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transactions: Option<TransactionsConfig>,
}

/// A config as JSON has it: the topic's fields, and either one group's
/// fields at the top level or `groups`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(remote = "Self", default, deny_unknown_fields)]
pub(crate) struct ConfigFile {
    seed: Option<u64>,
    partitions: Option<u32>,
    retention_records: Option<u64>,
    producer: Option<ProducerConfig>,
    groups: Option<Vec<GroupConfig>>,
    #[cfg_attr(not(feature = "cluster"), serde(deserialize_with = "refuse_without_cluster"))]
    cluster: Option<ClusterConfig>,
    #[cfg_attr(not(feature = "transactions"), serde(deserialize_with = "refuse_without_transactions"))]
    transactions: Option<TransactionsConfig>,
    consumers: Option<u32>,
    records_per_poll: Option<u32>,
    handle_per_tick: Option<u32>,
    commit: Option<CommitMode>,
    idempotent: Option<bool>,
    session_timeout_ticks: Option<u64>,
    shutdown_deadline_ticks: Option<u64>,
    assignor: Option<Assignor>,
    position: Option<PositionModel>,
    bridge: Option<bool>,
    protocol: Option<GroupProtocol>,
    remote_assignor: Option<RemoteAssignor>,
    static_members: Option<bool>,
    heartbeat_interval_ticks: Option<u64>,
    #[serde(alias = "rebalance_timeout_ticks")]
    max_poll_interval_ticks: Option<u64>,
    lock_duration_ticks: Option<u64>,
    delivery_count_limit: Option<u8>,
    max_record_locks: Option<u32>,
    share_auto_offset_reset: Option<ShareAutoOffsetReset>,
    acknowledgement_mode: Option<AcknowledgementMode>,
    auto_offset_reset: Option<AutoOffsetReset>,
    initial_rebalance_delay_ticks: Option<u64>,
    offsets_retention_ticks: Option<u64>,
    metadata_max_age_ticks: Option<u64>,
    error_policy: Option<ErrorPolicy>,
    dead_letter_topic: Option<String>,
    dead_letter_copy_record: Option<bool>,
}

impl TryFrom<ConfigFile> for Config {
    type Error = String;

    fn try_from(file: ConfigFile) -> Result<Config, String> {
        let defaults = Config::default();
        let top_level_group = file.consumers.is_some()
            || file.records_per_poll.is_some()
            || file.handle_per_tick.is_some()
            || file.commit.is_some()
            || file.idempotent.is_some()
            || file.session_timeout_ticks.is_some()
            || file.shutdown_deadline_ticks.is_some()
            || file.assignor.is_some()
            || file.position.is_some()
            || file.bridge.is_some()
            || file.protocol.is_some()
            || file.remote_assignor.is_some()
            || file.static_members.is_some()
            || file.heartbeat_interval_ticks.is_some()
            || file.max_poll_interval_ticks.is_some()
            || file.lock_duration_ticks.is_some()
            || file.delivery_count_limit.is_some()
            || file.max_record_locks.is_some()
            || file.share_auto_offset_reset.is_some()
            || file.acknowledgement_mode.is_some()
            || file.auto_offset_reset.is_some()
            || file.initial_rebalance_delay_ticks.is_some()
            || file.offsets_retention_ticks.is_some()
            || file.metadata_max_age_ticks.is_some()
            || file.error_policy.is_some()
            || file.dead_letter_topic.is_some()
            || file.dead_letter_copy_record.is_some();
        let groups = match file.groups {
            Some(_) if top_level_group => {
                return Err(GROUPS_AND_TOP_LEVEL.into());
            }
            Some(groups) => groups,
            None => {
                let d = GroupConfig::default();
                vec![GroupConfig {
                    name: d.name,
                    consumers: file.consumers.unwrap_or(d.consumers),
                    records_per_poll: file.records_per_poll.unwrap_or(d.records_per_poll),
                    handle_per_tick: file.handle_per_tick.unwrap_or(d.handle_per_tick),
                    commit: file.commit.unwrap_or(d.commit),
                    idempotent: file.idempotent.unwrap_or(d.idempotent),
                    session_timeout_ticks: file.session_timeout_ticks.unwrap_or(d.session_timeout_ticks),
                    shutdown_deadline_ticks: file
                        .shutdown_deadline_ticks
                        .unwrap_or(d.shutdown_deadline_ticks),
                    assignor: file.assignor.unwrap_or(d.assignor),
                    position: file.position.unwrap_or(d.position),
                    bridge: file.bridge.unwrap_or(d.bridge),
                    protocol: file.protocol.unwrap_or(d.protocol),
                    remote_assignor: file.remote_assignor.unwrap_or(d.remote_assignor),
                    static_members: file.static_members.unwrap_or(d.static_members),
                    heartbeat_interval_ticks: file
                        .heartbeat_interval_ticks
                        .unwrap_or(d.heartbeat_interval_ticks),
                    max_poll_interval_ticks: file
                        .max_poll_interval_ticks
                        .unwrap_or(d.max_poll_interval_ticks),
                    lock_duration_ticks: file.lock_duration_ticks.unwrap_or(d.lock_duration_ticks),
                    delivery_count_limit: file.delivery_count_limit.unwrap_or(d.delivery_count_limit),
                    max_record_locks: file.max_record_locks.unwrap_or(d.max_record_locks),
                    share_auto_offset_reset: file
                        .share_auto_offset_reset
                        .unwrap_or(d.share_auto_offset_reset),
                    acknowledgement_mode: file.acknowledgement_mode.unwrap_or(d.acknowledgement_mode),
                    auto_offset_reset: file.auto_offset_reset.unwrap_or(d.auto_offset_reset),
                    initial_rebalance_delay_ticks: file
                        .initial_rebalance_delay_ticks
                        .unwrap_or(d.initial_rebalance_delay_ticks),
                    offsets_retention_ticks: file.offsets_retention_ticks,
                    metadata_max_age_ticks: file.metadata_max_age_ticks,
                    error_policy: file.error_policy.unwrap_or(d.error_policy),
                    dead_letter_topic: file.dead_letter_topic,
                    dead_letter_copy_record: file
                        .dead_letter_copy_record
                        .unwrap_or(d.dead_letter_copy_record),
                }]
            }
        };
        Ok(Config {
            seed: file.seed.unwrap_or(defaults.seed),
            partitions: file.partitions.unwrap_or(defaults.partitions),
            retention_records: file.retention_records.unwrap_or(defaults.retention_records),
            producer: file.producer.unwrap_or(defaults.producer),
            groups,
            cluster: file.cluster,
            transactions: file.transactions,
        })
    }
}

impl<'de> Deserialize<'de> for Config {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Config, D::Error> {
        let file = <ConfigFile as Deserialize>::deserialize(d)?;
        Config::try_from(file).map_err(serde::de::Error::custom)
    }
}

/// A config with both `groups` and a group's settings at the top level.
pub(crate) const GROUPS_AND_TOP_LEVEL: &str =
    "give the group settings (consumers, commit, …) inside groups, or leave groups out";

/// What a build without the `cluster` feature (the page's) says of
/// `config.cluster` and `config.producer.delivery`, read or built.
#[cfg(not(feature = "cluster"))]
pub(crate) const NO_CLUSTER: &str = "this build has no brokers or producer delivery path (the page leaves \
                                      them out for its size budget): run the scenario with `offsetlab run`";

/// What a build without the `transactions` feature says of `config.transactions`.
#[cfg(not(feature = "transactions"))]
pub(crate) const NO_TRANSACTIONS: &str = "this build has no transactions (the page leaves them out for its \
                                           size budget): run the scenario with `offsetlab run`";

/// Reads a `transactions` section in a build without the `transactions`
/// feature: refused with [`NO_TRANSACTIONS`].
#[cfg(not(feature = "transactions"))]
fn refuse_without_transactions<'de, D: serde::Deserializer<'de>, T>(d: D) -> Result<Option<T>, D::Error> {
    serde::de::IgnoredAny::deserialize(d)?;
    Err(serde::de::Error::custom(NO_TRANSACTIONS))
}

/// Reads a `cluster` or `delivery` section in a build without the `cluster`
/// feature: refused with [`NO_CLUSTER`], so that the section's own reader is
/// not in the page.
#[cfg(not(feature = "cluster"))]
fn refuse_without_cluster<'de, D: serde::Deserializer<'de>, T>(d: D) -> Result<Option<T>, D::Error> {
    serde::de::IgnoredAny::deserialize(d)?;
    Err(serde::de::Error::custom(NO_CLUSTER))
}

/// The producer `orders-api`. In JSON, absent fields take their default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", default, deny_unknown_fields)]
pub struct ProducerConfig {
    /// Send the record's subject (`user-N`) as its Kafka key.
    pub use_keys: bool,
    /// Subjects `user-0`…`user-(K-1)`.
    pub key_count: u32,
    /// Share of traffic (percent) that goes to `user-0`; 0 = none hot.
    pub hot_key_share_percent: u8,
    /// Records sent every tick ("Keep sending"); 0 = off.
    pub send_per_tick: u32,
    pub keyless: KeylessStrategy,
    /// The delivery path: batches, acks, retries, idempotence. `None` (left
    /// out of the JSON): every send is appended at once, as every scenario
    /// before there was a delivery path.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(not(feature = "cluster"), serde(deserialize_with = "refuse_without_cluster"))]
    pub delivery: Option<DeliverySettings>,
}

impl Default for ProducerConfig {
    fn default() -> Self {
        Self {
            use_keys: true,
            key_count: 6,
            hot_key_share_percent: 0,
            send_per_tick: 0,
            keyless: KeylessStrategy::default(),
            delivery: None,
        }
    }
}

/// A consumer's `isolation.level`: what a read of a transactional topic returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IsolationLevel {
    /// Everything below the high watermark, aborted records too (Kafka's
    /// consumer default).
    ReadUncommitted,
    /// Below the last stable offset, without aborted records (what
    /// exactly-once pipelines set).
    #[default]
    ReadCommitted,
}

impl IsolationLevel {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "read_uncommitted",
            IsolationLevel::ReadCommitted => "read_committed",
        }
    }
}

/// Exactly-once processing (`config.transactions`): the application of
/// `group` reads `orders` and, for each record, writes one result to the
/// output topic `payouts` (as many partitions as `orders`, the record's key
/// choosing one) with a transactional producer whose `transactional.id` is
/// the group's name and the member's (`demo-c1`, or `demo-inst-1` for a
/// static member), and commits the consumed offsets inside the transaction
/// at the end of each batch. A downstream consumer reads `payouts` with
/// `isolation_level`. In JSON, absent fields take their default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", default, deny_unknown_fields)]
pub struct TransactionsConfig {
    /// The group whose application is transactional (the first group when left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// `transaction.timeout.ms` in ticks (Kafka's default 60,000 ms): the
    /// coordinator aborts a transaction still open this long after it began.
    pub transaction_timeout_ticks: u64,
    /// The downstream consumer's `isolation.level`.
    pub isolation_level: IsolationLevel,
    /// Records the downstream consumer reads a tick.
    pub downstream_per_tick: u32,
}

impl Default for TransactionsConfig {
    fn default() -> Self {
        TransactionsConfig {
            group: None,
            transaction_timeout_ticks: 60,
            isolation_level: IsolationLevel::ReadCommitted,
            downstream_per_tick: 10,
        }
    }
}

impl TransactionsConfig {
    /// The transactional group's index among `groups`, if it names one.
    #[must_use]
    pub fn group_index(&self, groups: &[GroupConfig]) -> Option<usize> {
        match &self.group {
            None => Some(0),
            Some(name) => groups.iter().position(|g| &g.name == name),
        }
    }

    /// Refuses a bad value, or a group that cannot commit in a transaction,
    /// with an error naming the field.
    #[cfg_attr(not(feature = "transactions"), allow(dead_code))]
    pub(crate) fn validate(&self, groups: &[GroupConfig]) -> Result<(), ConfigError> {
        check_range(
            "transactions.transaction_timeout_ticks",
            self.transaction_timeout_ticks,
            1,
            limits::TRANSACTION_TIMEOUT_TICKS_MAX,
        )?;
        check_range(
            "transactions.downstream_per_tick",
            self.downstream_per_tick,
            1,
            limits::DOWNSTREAM_PER_TICK_MAX,
        )?;
        let refuse = |message: String| Err(ConfigError { field: "transactions.group", message });
        let Some(g) = self.group_index(groups) else {
            return refuse(format!(
                "no group is named {}",
                crate::quote::quoted(self.group.as_deref().unwrap_or_default())
            ));
        };
        let group = &groups[g];
        if group.protocol == GroupProtocol::Share {
            return refuse("a share group has no offsets to commit in a transaction".into());
        }
        if group.position != PositionModel::Group {
            return refuse("offsets committed in a transaction are the group's: leave position out".into());
        }
        if group.commit != CommitMode::After {
            return refuse(format!(
                "the transaction commits the offsets at the end of each batch: commit must be after, not {}",
                group.commit.label()
            ));
        }
        if group.bridge {
            return refuse("the application writes to payouts, not to the bridge: leave bridge out".into());
        }
        Ok(())
    }
}

/// The cluster (`config.cluster`): brokers, the topic's replication factor
/// and the replication settings, with Kafka's names in ticks. In JSON, absent
/// fields take their default (Kafka 4.4.0's, milliseconds read as ticks of a
/// second: replica lag 30, broker session 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", default, deny_unknown_fields)]
pub struct ClusterConfig {
    /// Brokers, node ids 1 to `brokers` (1 to [`limits::BROKERS_MAX`]).
    pub brokers: u32,
    /// Replicas per partition, 1 to `brokers`.
    pub replication_factor: u32,
    /// `min.insync.replicas`, 1 to `replication_factor`.
    pub min_insync_replicas: u32,
    /// `replica.lag.time.max.ms`, in ticks.
    pub replica_lag_time_max_ticks: u64,
    /// `broker.session.timeout.ms`, in ticks: a crashed broker is fenced
    /// (and loses its leaderships) this long after it crashed.
    pub broker_session_timeout_ticks: u64,
    /// `unclean.leader.election.enable`.
    pub unclean_leader_election: bool,
    /// `eligible.leader.replicas.version=1` (KIP-966; on in a new Kafka 4.4.0 cluster).
    pub eligible_leader_replicas: bool,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            brokers: 3,
            replication_factor: 3,
            min_insync_replicas: 1,
            replica_lag_time_max_ticks: 30,
            broker_session_timeout_ticks: 9,
            unclean_leader_election: false,
            eligible_leader_replicas: true,
        }
    }
}

/// The producer's delivery settings (`config.producer.delivery`), with
/// Kafka's names in ticks. In JSON, absent fields take their default:
/// Kafka 4.4.0's, milliseconds read as ticks of a second (request timeout
/// 30, delivery timeout 120, linger 5 ms and backoffs of 100 ms to 1 s as
/// 0 and 1 tick), batches of 4 records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", default, deny_unknown_fields)]
pub struct DeliverySettings {
    pub acks: crate::delivery::Acks,
    /// `enable.idempotence`: left out, Kafka's default (on unless acks is
    /// not all or retries is 0); set true with either of those is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_idempotence: Option<bool>,
    /// `max.in.flight.requests.per.connection`.
    pub max_in_flight: u32,
    /// `linger.ms`.
    pub linger_ticks: u64,
    /// `batch.size`, in records.
    pub batch_records: u32,
    pub retries: u32,
    /// `request.timeout.ms`: the client's, and the acks=all wait the leader allows.
    pub request_timeout_ticks: u64,
    /// `delivery.timeout.ms`; left out, 120 raised to linger + request timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_timeout_ticks: Option<u64>,
    /// `retry.backoff.ms`.
    pub retry_backoff_ticks: u64,
    /// `retry.backoff.max.ms`.
    pub retry_backoff_max_ticks: u64,
    /// `buffer.memory`, in records.
    pub buffer_records: u32,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        DeliverySettings {
            acks: crate::delivery::Acks::All,
            enable_idempotence: None,
            max_in_flight: 5,
            linger_ticks: 0,
            batch_records: 4,
            retries: i32::MAX as u32,
            request_timeout_ticks: 30,
            delivery_timeout_ticks: None,
            retry_backoff_ticks: 1,
            retry_backoff_max_ticks: 1,
            buffer_records: 10_000,
        }
    }
}

impl DeliverySettings {
    pub(crate) fn delivery_config(&self) -> DeliveryConfig {
        DeliveryConfig {
            acks: self.acks,
            enable_idempotence: self.enable_idempotence,
            max_in_flight: self.max_in_flight,
            retries: self.retries,
            batch_records: self.batch_records,
            linger_ticks: self.linger_ticks,
            request_timeout_ticks: self.request_timeout_ticks,
            delivery_timeout_ticks: self.delivery_timeout_ticks,
            retry_backoff_ticks: self.retry_backoff_ticks,
            retry_backoff_max_ticks: self.retry_backoff_max_ticks,
            buffer_records: self.buffer_records,
        }
    }
}

impl Config {
    /// The replication model's config: the cluster's, or one broker with
    /// replication factor 1 when none is given (what `--describe topic`
    /// shows then).
    pub(crate) fn replication_config(&self) -> ReplicationConfig {
        let c = self.cluster.unwrap_or(ClusterConfig {
            brokers: 1,
            replication_factor: 1,
            eligible_leader_replicas: false,
            ..ClusterConfig::default()
        });
        let request_timeout_ticks = self.producer.delivery.unwrap_or_default().request_timeout_ticks;
        ReplicationConfig {
            brokers: c.brokers,
            partitions: self.partitions,
            replication_factor: c.replication_factor,
            min_insync_replicas: c.min_insync_replicas,
            replica_lag_time_max_ticks: c.replica_lag_time_max_ticks,
            broker_session_timeout_ticks: c.broker_session_timeout_ticks,
            request_timeout_ticks,
            unclean_leader_election: c.unclean_leader_election,
            eligible_leader_replicas: c.eligible_leader_replicas,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            seed: 1,
            partitions: 3,
            retention_records: 10_000,
            producer: ProducerConfig::default(),
            groups: vec![GroupConfig::default()],
            cluster: None,
            transactions: None,
        }
    }
}

/// The group `demo`: two consumers, three records a poll, one handled a
/// tick, commit after handling.
impl Default for GroupConfig {
    fn default() -> Self {
        GroupConfig {
            name: "demo".to_string(),
            consumers: 2,
            records_per_poll: 3,
            handle_per_tick: 1,
            commit: CommitMode::After,
            idempotent: false,
            session_timeout_ticks: 10,
            shutdown_deadline_ticks: 30,
            assignor: Assignor::Range,
            position: PositionModel::Group,
            bridge: false,
            protocol: GroupProtocol::Classic,
            remote_assignor: RemoteAssignor::Uniform,
            static_members: false,
            heartbeat_interval_ticks: 1,
            max_poll_interval_ticks: 60,
            lock_duration_ticks: 20,
            delivery_count_limit: 5,
            max_record_locks: 2000,
            share_auto_offset_reset: ShareAutoOffsetReset::Latest,
            acknowledgement_mode: AcknowledgementMode::Implicit,
            auto_offset_reset: AutoOffsetReset::Earliest,
            initial_rebalance_delay_ticks: 0,
            offsets_retention_ticks: None,
            metadata_max_age_ticks: None,
            error_policy: ErrorPolicy::Skip,
            dead_letter_topic: None,
            dead_letter_copy_record: false,
        }
    }
}

/// A config value out of its range: names the field, the value and the range.
#[derive(Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.message.strip_prefix('[') {
            // A group's field: `config.groups[1].consumers: …`.
            Some(rest) => write!(f, "config.{}[{rest}", self.field),
            None => write!(f, "config.{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

pub(crate) fn check_range<T: PartialOrd + fmt::Display + Copy>(
    field: &'static str,
    value: T,
    min: T,
    max: T,
) -> Result<(), ConfigError> {
    if value < min || value > max {
        return Err(ConfigError { field, message: format!("must be between {min} and {max}, got {value}") });
    }
    Ok(())
}

pub(crate) fn check_commit_mode(field: &'static str, mode: CommitMode) -> Result<(), ConfigError> {
    if let CommitMode::Auto { interval_ticks } = mode {
        check_range(field, interval_ticks, 1, limits::AUTO_COMMIT_INTERVAL_TICKS_MAX)?;
    }
    Ok(())
}

pub(crate) fn check_position_model(field: &'static str, position: PositionModel) -> Result<(), ConfigError> {
    if let PositionModel::Consumer { write_ticks, .. } = position {
        check_range(field, write_ticks, 0, limits::CHECKPOINT_WRITE_TICKS_MAX)?;
    }
    Ok(())
}

impl Config {
    /// Checks every field against its limit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        use limits::*;
        check_range("partitions", self.partitions, 1, PARTITIONS_MAX)?;
        check_range("retention_records", self.retention_records, 1, RETENTION_RECORDS_MAX)?;
        if u64::from(self.partitions) * self.retention_records > RETAINED_RECORDS_MAX {
            return Err(ConfigError {
                field: "retention_records",
                message: format!(
                    "partitions × retention_records must be at most {RETAINED_RECORDS_MAX}, got {} × {}",
                    self.partitions, self.retention_records
                ),
            });
        }
        if self.groups.is_empty() || self.groups.len() > GROUPS_MAX {
            return Err(ConfigError {
                field: "groups",
                message: format!("1 to {GROUPS_MAX} groups, got {}", self.groups.len()),
            });
        }
        for (i, group) in self.groups.iter().enumerate() {
            if self.groups[..i].iter().any(|g| g.name == group.name) {
                return Err(ConfigError {
                    field: "groups",
                    message: format!(
                        "[{i}].name: two groups are named {}",
                        crate::quote::quoted(&group.name)
                    ),
                });
            }
        }
        let p = &self.producer;
        check_range("producer.key_count", p.key_count, 1, KEYS_MAX)?;
        check_range("producer.hot_key_share_percent", p.hot_key_share_percent, 0, 100)?;
        check_range("producer.send_per_tick", p.send_per_tick, 0, SEND_RATE_MAX)?;
        if let KeylessStrategy::Sticky { batch_records } = p.keyless {
            check_range("producer.keyless.batch_records", batch_records, 1, STICKY_BATCH_RECORDS_MAX)?;
        }
        let many = self.groups.len() > 1;
        for (i, group) in self.groups.iter().enumerate() {
            group.validate(many.then_some(i))?;
        }
        // Without the `cluster` feature the reader refuses both sections, and the `Sim` refuses
        // a config built with them: their checks would only weigh on the page.
        #[cfg(feature = "cluster")]
        if let Some(delivery) = &p.delivery {
            delivery.delivery_config().validate()?;
        }
        #[cfg(feature = "transactions")]
        if let Some(transactions) = &self.transactions {
            transactions.validate(&self.groups)?;
        }
        #[cfg(feature = "cluster")]
        if self.cluster.is_some() {
            self.replication_config().validate()?;
            if self.groups.iter().any(|g| g.protocol == GroupProtocol::Share) {
                // A share-partition's window does not follow a truncated log.
                return Err(ConfigError {
                    field: "cluster",
                    message: "share groups run on the single-broker model: leave cluster out".into(),
                });
            }
        }
        Ok(())
    }
}

/// `Debug` is the message: an `expect` or a failed test shows the sentence,
/// and the page carries no derived formatting for the error's strings.
impl std::fmt::Debug for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// One consumer group as a scenario starts it: its name, its members, and the
/// application behind it. [`GroupSettings`] is the part the page toggles live.
/// In JSON (`config.groups[i]`) every field defaults as the group `demo`
/// has it, its name too: two groups left unnamed are refused as two `demo`s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", default, deny_unknown_fields)]
pub struct GroupConfig {
    /// `group.id`: what `--describe --group NAME` names.
    pub name: String,
    /// Members joining at tick 0.
    pub consumers: u32,
    pub records_per_poll: u32,
    pub handle_per_tick: u32,
    pub commit: CommitMode,
    /// The application drops duplicates (a unique constraint on the record id).
    pub idempotent: bool,
    pub session_timeout_ticks: u64,
    pub shutdown_deadline_ticks: u64,
    pub assignor: Assignor,
    /// Where positions live: the group's committed offsets, or each consumer's own store.
    pub position: PositionModel,
    /// The application writes each handled record to the bridge target topic,
    /// without its key.
    pub bridge: bool,
    /// `group.protocol`: classic (the client-side `assignor`) or consumer (the
    /// coordinator's `remote_assignor`).
    pub protocol: GroupProtocol,
    /// `group.remote.assignor`, for the consumer protocol.
    pub remote_assignor: RemoteAssignor,
    /// Every consumer has a `group.instance.id` (`inst-N` for card `cN`):
    /// static membership (KIP-345).
    pub static_members: bool,
    /// Consumer protocol: ticks between a member's heartbeats
    /// (`group.consumer.heartbeat.interval.ms`).
    pub heartbeat_interval_ticks: u64,
    /// `max.poll.interval.ms`: the longest a member may go between two
    /// `poll()` calls. Past it the client leaves its group by itself (the
    /// classic heartbeat thread's LeaveGroup, the KIP-848 client's leave
    /// heartbeat): its batch goes on, its commits fail, it joins again as a
    /// new member at its next poll. A consumer-protocol group also sends it
    /// as the rebalance timeout: a member that does not revoke within it is
    /// fenced. Read from `rebalance_timeout_ticks` too, its name before.
    #[serde(alias = "rebalance_timeout_ticks")]
    pub max_poll_interval_ticks: u64,
    /// Share group: how long an acquired record stays with its member before
    /// it is given back (`group.share.record.lock.duration.ms`, 30 s in Kafka).
    pub lock_duration_ticks: u64,
    /// Share group: deliveries of a record before it is archived
    /// (`group.share.delivery.count.limit`, 2 to 10, Kafka's default 5).
    pub delivery_count_limit: u8,
    /// Share group: in-flight records per partition
    /// (`group.share.partition.max.record.locks`, 100 to 4000, default 2000).
    pub max_record_locks: u32,
    /// Share group: `share.auto.offset.reset`.
    pub share_auto_offset_reset: ShareAutoOffsetReset,
    /// Share group: `share.acknowledgement.mode` of its consumers.
    pub acknowledgement_mode: AcknowledgementMode,
    /// Classic and consumer groups: `auto.offset.reset` of its consumers.
    pub auto_offset_reset: AutoOffsetReset,
    /// Classic groups: `group.initial.rebalance.delay.ms`, how long an empty
    /// group's first rebalance waits for more members (Kafka's default is
    /// 3 s; left out of a scenario, 0: no wait, as before the setting).
    pub initial_rebalance_delay_ticks: u64,
    /// `offsets.retention.minutes`: how long a group's committed offsets
    /// outlive its last member (a broker setting in Kafka, 7 days by
    /// default). Left out, they never expire, as before the setting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offsets_retention_ticks: Option<u64>,
    /// Classic groups: `metadata.max.age.ms` of its consumers, how often the
    /// group leader's client refreshes the topic's metadata, so how long
    /// partitions added to the topic go unnoticed (and unassigned) until it
    /// does (Kafka's default is 5 minutes). Left out, the leader sees them at
    /// once, as before the setting. A consumer-protocol group's coordinator
    /// sees them itself, at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_max_age_ticks: Option<u64>,
    /// Classic and consumer groups: what the application's code does when
    /// its handler throws on a record (a poison record, or one that fails
    /// its first attempts). Left out, `skip`: it logs and moves on, as the
    /// model's applications did before the setting.
    #[serde(skip_serializing_if = "ErrorPolicy::is_default")]
    pub error_policy: ErrorPolicy,
    /// Share groups: `errors.deadletterqueue.topic.name` (KIP-1191, a group
    /// config): the topic the broker writes the records it archives to.
    /// Left out, none (Kafka's blank default). It must start with `dlq.`,
    /// the broker's default `errors.deadletterqueue.topic.name.prefix`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dead_letter_topic: Option<String>,
    /// Share groups: `errors.deadletterqueue.copy.record.enable`: the dead
    /// letter carries the original's key and value (Kafka's default, false:
    /// its headers only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dead_letter_copy_record: bool,
}

/// A group's settings that inputs change while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GroupSettings {
    pub records_per_poll: u32,
    pub handle_per_tick: u32,
    pub commit: CommitMode,
    pub idempotent: bool,
    pub assignor: Assignor,
    pub position: PositionModel,
    /// The application's error policy (issue 40); `error-policy` changes it.
    pub error_policy: ErrorPolicy,
}

impl GroupSettings {
    /// Whether the group's committed offsets are written (Kafka), rather than
    /// each consumer's own store.
    #[must_use]
    pub fn group_commits(&self) -> bool {
        matches!(self.position, PositionModel::Group)
    }
}

impl GroupConfig {
    #[must_use]
    pub fn settings(&self) -> GroupSettings {
        GroupSettings {
            records_per_poll: self.records_per_poll,
            handle_per_tick: self.handle_per_tick,
            commit: self.commit,
            idempotent: self.idempotent,
            assignor: self.assignor,
            position: self.position,
            error_policy: self.error_policy,
        }
    }

    /// The group `demo`'s defaults, named `name`.
    #[must_use]
    pub fn named(name: &str) -> GroupConfig {
        GroupConfig { name: name.to_string(), ..GroupConfig::default() }
    }

    /// `index` is its place in `groups`: with more than one group, errors
    /// name it (`config.groups[1].consumers`); a single group's are named as
    /// they were before there were groups (`config.consumers`).
    pub(crate) fn validate(&self, index: Option<usize>) -> Result<(), ConfigError> {
        use limits::*;
        let at = |e: ConfigError| match index {
            None => e,
            Some(i) => ConfigError { field: "groups", message: format!("[{i}].{}: {}", e.field, e.message) },
        };
        if self.name.is_empty()
            || self.name.len() > GROUP_NAME_BYTES_MAX
            || !self.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(at(ConfigError {
                field: "name",
                message: format!(
                    "a group name is 1 to {GROUP_NAME_BYTES_MAX} ASCII letters, digits or '-', got {}",
                    crate::quote::quoted(&self.name)
                ),
            }));
        }
        check_range("consumers", self.consumers, 0, CONSUMERS_MAX).map_err(at)?;
        check_range("records_per_poll", self.records_per_poll, 1, RECORDS_PER_POLL_MAX).map_err(at)?;
        check_range("handle_per_tick", self.handle_per_tick, 1, HANDLE_PER_TICK_MAX).map_err(at)?;
        check_commit_mode("commit.interval_ticks", self.commit).map_err(at)?;
        check_range("session_timeout_ticks", self.session_timeout_ticks, 1, SESSION_TIMEOUT_TICKS_MAX)
            .map_err(at)?;
        check_range("shutdown_deadline_ticks", self.shutdown_deadline_ticks, 0, SESSION_TIMEOUT_TICKS_MAX)
            .map_err(at)?;
        check_position_model("position.write_ticks", self.position).map_err(at)?;
        check_range("heartbeat_interval_ticks", self.heartbeat_interval_ticks, 1, SESSION_TIMEOUT_TICKS_MAX)
            .map_err(at)?;
        // Only consumer-protocol members heartbeat on their own schedule; the
        // classic heartbeat thread is not modelled (a live member never misses one).
        if self.protocol == GroupProtocol::Consumer
            && self.heartbeat_interval_ticks > self.session_timeout_ticks
        {
            return Err(at(ConfigError {
                field: "heartbeat_interval_ticks",
                message:
                    "a consumer-protocol member heartbeats within its session: at most session_timeout_ticks"
                        .into(),
            }));
        }
        check_range("max_poll_interval_ticks", self.max_poll_interval_ticks, 1, SESSION_TIMEOUT_TICKS_MAX)
            .map_err(at)?;
        // Kafka's allowed ranges for the group overrides.
        check_range("lock_duration_ticks", self.lock_duration_ticks, 1, SESSION_TIMEOUT_TICKS_MAX)
            .map_err(at)?;
        check_range("delivery_count_limit", self.delivery_count_limit, 2, 10).map_err(at)?;
        check_range("max_record_locks", self.max_record_locks, 100, 4000).map_err(at)?;
        check_range(
            "initial_rebalance_delay_ticks",
            self.initial_rebalance_delay_ticks,
            0,
            SESSION_TIMEOUT_TICKS_MAX,
        )
        .map_err(at)?;
        if let Some(ticks) = self.offsets_retention_ticks {
            check_range("offsets_retention_ticks", ticks, 1, crate::SCENARIO_TICKS_MAX).map_err(at)?;
        }
        if let Some(ticks) = self.metadata_max_age_ticks {
            check_range("metadata_max_age_ticks", ticks, 1, crate::SCENARIO_TICKS_MAX).map_err(at)?;
        }
        check_error_policy(self.error_policy).map_err(at)?;
        if self.protocol == GroupProtocol::Share && !self.error_policy.is_default() {
            return Err(at(ConfigError {
                field: "error_policy",
                message: "a share group's failures are counted by its delivery count (group.share.delivery.count.limit): error_policy is for classic and consumer groups".into(),
            }));
        }
        check_dead_letter_topic(self).map_err(at)?;
        if let AutoOffsetReset::ByDuration(ticks) = self.auto_offset_reset {
            check_range("auto_offset_reset.by_duration", ticks, 0, crate::SCENARIO_TICKS_MAX).map_err(at)?;
        }
        if self.protocol == GroupProtocol::Share {
            let refuse =
                |field: &'static str, message: &str| Err(at(ConfigError { field, message: message.into() }));
            if self.static_members {
                return refuse(
                    "static_members",
                    "a share group has no static members: KIP-932 has no group.instance.id",
                );
            }
            if self.position != PositionModel::Group {
                return refuse(
                    "position",
                    "a share group's progress lives on the broker (its share-partitions): the position is group",
                );
            }
            if self.heartbeat_interval_ticks > self.session_timeout_ticks {
                return refuse(
                    "heartbeat_interval_ticks",
                    "a share group's member heartbeats within its session: at most session_timeout_ticks",
                );
            }
        }
        Ok(())
    }
}
