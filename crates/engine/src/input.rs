//! Everything a user (or a scenario timeline) can do to the simulation.

use crate::config::{CommitMode, PositionModel};
use serde::{Serialize, Serializer};
use std::fmt;

/// A consumer's client id, `c1`, `c2`, …: its card on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConsumerId(pub u32);

impl fmt::Display for ConsumerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c{}", self.0)
    }
}

impl std::str::FromStr for ConsumerId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.strip_prefix('c')
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|&n| n >= 1 && !s[1..].starts_with('0'))
            .map(ConsumerId)
            .ok_or_else(|| format!("a consumer is named c1, c2, …; got {}", crate::quote::quoted(s)))
    }
}

impl Serialize for ConsumerId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Kafka's `--reset-offsets` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "to", rename_all = "kebab-case")]
pub enum ResetSpec {
    /// `--to-earliest`: every partition to its log start.
    Earliest,
    /// `--to-latest`: every partition to its log end.
    Latest,
    /// `--to-offset N` on one partition (`--topic orders:P`), or on all when
    /// `partition` is absent. Out-of-range offsets are clamped to the log, as Kafka does.
    Offset {
        #[serde(skip_serializing_if = "Option::is_none")]
        partition: Option<u32>,
        offset: u64,
    },
    /// `--shift-by N` from the committed offset, clamped to the log.
    ShiftBy { by: i64 },
}

/// One input. Applied at the simulation's current tick, before the next step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "do", rename_all = "kebab-case")]
pub enum Input {
    /// Send `count` records now.
    Send {
        count: u32,
    },
    /// Send one poison record: every application's handler fails on it, at
    /// every delivery.
    SendPoison {},
    /// Send one record whose handler fails at its first `failures` attempts
    /// in each group, then succeeds (a downstream that is down for a while).
    /// `after_effect`: each failing attempt has made its payout before it
    /// fails (the step after the ledger write throws): partly succeeded.
    SendFailing {
        failures: u32,
        after_effect: bool,
    },
    /// The group's handler is fixed: from now on it succeeds on every record.
    FixHandler {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
    },
    /// The group's replay job reads the dead-letter topic from its start and
    /// applies each of the group's records under its original effect key.
    ReplayDeadLetters {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
    },
    /// The group's application takes another error policy from now on
    /// (a redeploy with another error handler): the next failure follows it.
    ErrorPolicy {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        error_policy: crate::config::ErrorPolicy,
    },
    /// Keep sending `per_tick` records every tick (0 stops).
    KeepSending {
        per_tick: u32,
    },
    UseKeys {
        on: bool,
    },
    KeyCount {
        keys: u32,
    },
    HotKey {
        share_percent: u8,
    },
    /// `consumer.pause()`: stays in the group, fetches nothing new.
    Pause {
        consumer: ConsumerId,
    },
    Resume {
        consumer: ConsumerId,
    },
    /// The process dies silently: no commit, no leave; the coordinator notices
    /// when the session times out.
    Crash {
        consumer: ConsumerId,
    },
    /// A clean shutdown: finish the batch, commit, leave the group.
    Stop {
        consumer: ConsumerId,
    },
    /// Start a stopped or crashed consumer again (a new member id).
    Start {
        consumer: ConsumerId,
    },
    /// A new consumer joins `group` (the first group when left out).
    AddConsumer {
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
    },
    /// Stop the consumer if it runs, then remove its card.
    RemoveConsumer {
        consumer: ConsumerId,
    },
    RecordsPerPoll {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        records: u32,
    },
    HandlePerTick {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        records: u32,
    },
    Commit {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        commit: CommitMode,
    },
    Idempotent {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        on: bool,
    },
    /// `kafka-consumer-groups --reset-offsets --execute`: refused while the group has members.
    ResetOffsets {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        reset: ResetSpec,
    },
    /// The whole operator flow: stop every consumer, wait for the group to be
    /// empty, reset, start them again.
    RestartFrom {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        reset: ResetSpec,
    },
    /// Where positions live from now on (checkpoints and resumes after this).
    PositionStore {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        position: PositionModel,
    },
    /// Ask which partition the next keyless record would go to. booblik's
    /// `partitionFor(null)` advances the round-robin counter (`advancing`), so
    /// the next send skips a partition; a fixed peek does not.
    Peek {
        advancing: bool,
    },
    /// What a consumer's offset store held when the process started (booblik's
    /// store read from disk): it resumes `partition` from `offset` when it gets it,
    /// even if the topic has not reached that offset yet.
    LoadCheckpoint {
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
    },
    /// `kafka-topics --alter --partitions`: add `count` partitions while the group runs.
    AddPartitions {
        count: u32,
    },
    /// The fault from seed 004: the consumer dies after its batch's effects are
    /// persisted (the ledger commit) and before it commits the offset.
    KillBeforeCommit {
        consumer: ConsumerId,
    },
    /// Restart the consumers one by one (all running ones when the list is
    /// empty): each stops fetching, finishes its batch within the shutdown
    /// deadline, commits and leaves, then starts again once the group settles.
    RollingUpdate {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        consumers: Vec<ConsumerId>,
    },
    /// A second process starts with `consumer`'s `group.instance.id`, on a
    /// new card: the classic coordinator fences the older one
    /// (`FENCED_INSTANCE_ID`), the consumer protocol refuses the newer one
    /// while the older has not left (`UNRELEASED_INSTANCE_ID`).
    DuplicateInstance {
        consumer: ConsumerId,
    },
    /// The consumer's process freezes for `ticks` (a long GC pause, a stuck
    /// call): no heartbeats, no handling, no commits. It then goes on where it
    /// was, and learns only at its next request whether its group replaced it.
    Stall {
        consumer: ConsumerId,
        ticks: u64,
    },
    /// A broker's process stops (needs a cluster): it stops answering and
    /// fetching at once; the controller fences it when its session runs out
    /// and elects new leaders for what it led.
    CrashBroker {
        broker: u32,
    },
    /// A crashed broker's process starts again; it registers once the
    /// controller has fenced its previous incarnation.
    RestartBroker {
        broker: u32,
    },
    /// The next acknowledgement from partition P's leader is lost (needs the
    /// delivery path): the batch is written, the producer does not hear it.
    LoseNextAck {
        partition: u32,
    },
    /// The next produce request to partition P is lost before the broker
    /// (needs the delivery path): nothing of it is written.
    LoseNextRequest {
        partition: u32,
    },
    /// A follower on `broker` copies at most `fetch_per_tick` records a tick
    /// (0: it stops fetching and falls out of the ISR after the lag time), in
    /// whole record batches and at least one, as Kafka's fetch returns them.
    SlowFollower {
        broker: u32,
        fetch_per_tick: u64,
    },
    /// The assignor (and so the protocol) for the next rebalances; refused during one.
    Assignor {
        /// The group it applies to (the first group when left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        assignor: crate::config::Assignor,
    },
}

impl Input {
    /// Every input's name in the scenario format (its `"do"` tag), one per
    /// variant in the enum's order: what [`Input::name`] returns. Generators
    /// and checks that must cover every input go through this list; a unit
    /// test below keeps it equal to the variants.
    pub const NAMES: &[&str] = &[
        "send",
        "send-poison",
        "send-failing",
        "fix-handler",
        "replay-dead-letters",
        "error-policy",
        "keep-sending",
        "use-keys",
        "key-count",
        "hot-key",
        "pause",
        "resume",
        "crash",
        "stop",
        "start",
        "add-consumer",
        "remove-consumer",
        "records-per-poll",
        "handle-per-tick",
        "commit",
        "idempotent",
        "reset-offsets",
        "restart-from",
        "position-store",
        "peek",
        "load-checkpoint",
        "add-partitions",
        "kill-before-commit",
        "rolling-update",
        "duplicate-instance",
        "stall",
        "crash-broker",
        "restart-broker",
        "lose-next-ack",
        "lose-next-request",
        "slow-follower",
        "assignor",
    ];

    /// The input's name in the scenario format: its `"do"` tag.
    #[must_use]
    pub fn name(&self) -> &'static str {
        // No `_` arm: a new variant does not compile until it is named here.
        match self {
            Input::Send { .. } => "send",
            Input::SendPoison {} => "send-poison",
            Input::SendFailing { .. } => "send-failing",
            Input::FixHandler { .. } => "fix-handler",
            Input::ReplayDeadLetters { .. } => "replay-dead-letters",
            Input::ErrorPolicy { .. } => "error-policy",
            Input::KeepSending { .. } => "keep-sending",
            Input::UseKeys { .. } => "use-keys",
            Input::KeyCount { .. } => "key-count",
            Input::HotKey { .. } => "hot-key",
            Input::Pause { .. } => "pause",
            Input::Resume { .. } => "resume",
            Input::Crash { .. } => "crash",
            Input::Stop { .. } => "stop",
            Input::Start { .. } => "start",
            Input::AddConsumer { .. } => "add-consumer",
            Input::RemoveConsumer { .. } => "remove-consumer",
            Input::RecordsPerPoll { .. } => "records-per-poll",
            Input::HandlePerTick { .. } => "handle-per-tick",
            Input::Commit { .. } => "commit",
            Input::Idempotent { .. } => "idempotent",
            Input::ResetOffsets { .. } => "reset-offsets",
            Input::RestartFrom { .. } => "restart-from",
            Input::PositionStore { .. } => "position-store",
            Input::Peek { .. } => "peek",
            Input::LoadCheckpoint { .. } => "load-checkpoint",
            Input::AddPartitions { .. } => "add-partitions",
            Input::KillBeforeCommit { .. } => "kill-before-commit",
            Input::RollingUpdate { .. } => "rolling-update",
            Input::DuplicateInstance { .. } => "duplicate-instance",
            Input::Stall { .. } => "stall",
            Input::CrashBroker { .. } => "crash-broker",
            Input::RestartBroker { .. } => "restart-broker",
            Input::LoseNextAck { .. } => "lose-next-ack",
            Input::LoseNextRequest { .. } => "lose-next-request",
            Input::SlowFollower { .. } => "slow-follower",
            Input::Assignor { .. } => "assignor",
        }
    }
}

/// Why an input was refused. Nothing changed.
#[derive(Clone, PartialEq, Eq)]
pub enum InputError {
    NoSuchConsumer(ConsumerId),
    /// The input does not apply to the consumer in its current state.
    WrongState {
        consumer: ConsumerId,
        state: &'static str,
        wanted: &'static str,
    },
    OutOfRange {
        field: &'static str,
        message: String,
    },
    /// Kafka refuses a reset unless the group is Empty.
    GroupNotInactive {
        group: String,
        state: &'static str,
    },
    NoSuchGroup(String),
    NotInGroup {
        consumer: ConsumerId,
        group: String,
    },
    NoCommittedOffset {
        partition: u32,
    },
    NoSuchPartition {
        partition: u32,
    },
    TooManyConsumers,
    RestartPending,
    /// The input waits for the group to be stable.
    RebalanceInProgress,
    /// The consumer has no `group.instance.id` (its group's members are dynamic).
    NotStatic {
        consumer: ConsumerId,
    },
    /// A share group has no committed offsets, client-side assignor or
    /// consumer-side positions: the input names a classic or consumer group's setting.
    /// The group's application commits its offsets in its transactions
    /// (`config.transactions`): the input would take that away.
    Transactional {
        group: String,
        input: &'static str,
    },
    ShareGroup {
        group: String,
        input: &'static str,
    },
    /// `replay-dead-letters` before `fix-handler`: the replay would fail again.
    HandlerNotFixed {
        group: String,
    },
    /// A cluster or delivery input where the config has none.
    NoCluster {
        input: &'static str,
    },
    NoSuchBroker {
        broker: u32,
    },
    /// The broker is not in the state the input needs (`wanted`).
    BrokerState {
        broker: u32,
        wanted: &'static str,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::NoSuchConsumer(c) => write!(f, "no consumer named {c}"),
            InputError::WrongState { consumer, state, wanted } => {
                write!(f, "{consumer} is {state}; this needs it {wanted}")
            }
            InputError::OutOfRange { field, message } => write!(f, "{field}: {message}"),
            InputError::GroupNotInactive { group, state } => write!(
                f,
                "Error: Assignments can only be reset if the group '{group}' is inactive, but the current state is {state}."
            ),
            InputError::NoSuchGroup(name) => {
                write!(f, "no group named {}", crate::quote::quoted(name))
            }
            InputError::NotInGroup { consumer, group } => write!(f, "{consumer} is not in group {group}"),
            InputError::NoCommittedOffset { partition } => write!(
                f,
                "Cannot shift offset for partition orders-{partition} since there is no current committed offset"
            ),
            InputError::NoSuchPartition { partition } => {
                write!(f, "topic orders has no partition {partition}")
            }
            InputError::TooManyConsumers => {
                write!(f, "a group holds at most {} consumers", crate::limits::CONSUMERS_MAX)
            }
            InputError::RestartPending => write!(f, "a restart or rolling update is already in progress"),
            InputError::HandlerNotFixed { group } => write!(
                f,
                "{group}'s handler still fails: fix it first (fix-handler), or the replay dead-letters them again"
            ),
            InputError::RebalanceInProgress => {
                write!(f, "the group is rebalancing: try again once it is stable")
            }
            InputError::NotStatic { consumer } => write!(
                f,
                "{consumer} has no group.instance.id: its group's members are dynamic (static_members is off)"
            ),
            InputError::Transactional { group, input } => write!(
                f,
                "{group} commits its offsets inside its transactions (config.transactions): {input} does not apply"
            ),
            InputError::ShareGroup { group, input } => write!(
                f,
                "{group} is a share group: {input} does not apply (its records are acknowledged one by one, not committed as offsets)"
            ),
            InputError::NoCluster { input } => write!(
                f,
                "{input} needs the producer's delivery path: give config.cluster or config.producer.delivery"
            ),
            InputError::NoSuchBroker { broker } => write!(f, "no broker {broker}"),
            InputError::BrokerState { broker, wanted } => write!(f, "broker {broker} is not {wanted}"),
        }
    }
}

impl std::error::Error for InputError {}

/// `Debug` is the message: an `expect` or a failed test shows the sentence,
/// and the page carries no derived formatting for the error's strings.
impl std::fmt::Debug for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    /// The input of the variant after `input`'s, in the enum's order (`None`
    /// after the last). No `_` arm: a new variant does not compile until it
    /// has an arm here, and it is reached from the first only once an arm
    /// returns it, so [`one_of_each`] makes it too.
    fn next(input: &Input) -> Option<Input> {
        let c = ConsumerId(1);
        let group = Some("g-1".to_string());
        Some(match input {
            Input::Send { .. } => Input::SendPoison {},
            Input::SendPoison {} => Input::SendFailing { failures: 2, after_effect: true },
            Input::SendFailing { .. } => Input::FixHandler { group: group.clone() },
            Input::FixHandler { .. } => Input::ReplayDeadLetters { group: group.clone() },
            Input::ReplayDeadLetters { .. } => Input::ErrorPolicy {
                group: group.clone(),
                error_policy: crate::config::ErrorPolicy::RetryTopics { levels: 2, delay_ticks: 3 },
            },
            Input::ErrorPolicy { .. } => Input::KeepSending { per_tick: 2 },
            Input::KeepSending { .. } => Input::UseKeys { on: false },
            Input::UseKeys { .. } => Input::KeyCount { keys: 3 },
            Input::KeyCount { .. } => Input::HotKey { share_percent: 50 },
            Input::HotKey { .. } => Input::Pause { consumer: c },
            Input::Pause { .. } => Input::Resume { consumer: c },
            Input::Resume { .. } => Input::Crash { consumer: c },
            Input::Crash { .. } => Input::Stop { consumer: c },
            Input::Stop { .. } => Input::Start { consumer: c },
            Input::Start { .. } => Input::AddConsumer { group },
            Input::AddConsumer { .. } => Input::RemoveConsumer { consumer: c },
            Input::RemoveConsumer { .. } => Input::RecordsPerPoll { group, records: 4 },
            Input::RecordsPerPoll { .. } => Input::HandlePerTick { group, records: 2 },
            Input::HandlePerTick { .. } => Input::Commit { group, commit: CommitMode::Before },
            Input::Commit { .. } => Input::Idempotent { group, on: true },
            Input::Idempotent { .. } => Input::ResetOffsets { group, reset: ResetSpec::Earliest },
            Input::ResetOffsets { .. } => Input::RestartFrom { group, reset: ResetSpec::ShiftBy { by: -2 } },
            Input::RestartFrom { .. } => Input::PositionStore { group, position: PositionModel::Group },
            Input::PositionStore { .. } => Input::Peek { advancing: true },
            Input::Peek { .. } => Input::LoadCheckpoint { consumer: c, partition: 0, offset: 7 },
            Input::LoadCheckpoint { .. } => Input::AddPartitions { count: 1 },
            Input::AddPartitions { .. } => Input::KillBeforeCommit { consumer: c },
            Input::KillBeforeCommit { .. } => Input::RollingUpdate { group, consumers: vec![c] },
            Input::RollingUpdate { .. } => Input::DuplicateInstance { consumer: c },
            Input::DuplicateInstance { .. } => Input::Stall { consumer: c, ticks: 3 },
            Input::Stall { .. } => Input::CrashBroker { broker: 1 },
            Input::CrashBroker { .. } => Input::RestartBroker { broker: 1 },
            Input::RestartBroker { .. } => Input::LoseNextAck { partition: 0 },
            Input::LoseNextAck { .. } => Input::LoseNextRequest { partition: 0 },
            Input::LoseNextRequest { .. } => Input::SlowFollower { broker: 2, fetch_per_tick: 0 },
            Input::SlowFollower { .. } => {
                Input::Assignor { group, assignor: crate::config::Assignor::CooperativeSticky }
            }
            Input::Assignor { .. } => return None,
        })
    }

    /// One input of each variant, in the enum's order.
    fn one_of_each() -> Vec<Input> {
        let mut all = vec![Input::Send { count: 1 }];
        while let Some(input) = next(all.last().expect("one at least")) {
            assert!(all.len() <= Input::NAMES.len(), "next() goes round in a loop: {all:?}");
            all.push(input);
        }
        all
    }

    /// `name()` is the scenario format's `"do"`, and `NAMES` lists exactly
    /// the names of the variants, once each, in the enum's order.
    #[test]
    fn every_variant_is_named_as_the_scenario_format_tags_it() {
        let all = one_of_each();
        for input in &all {
            let json = serde_json::to_value(input).expect("an input serializes");
            assert_eq!(json["do"].as_str(), Some(input.name()), "{input:?}");
        }
        let names: Vec<&str> = all.iter().map(Input::name).collect();
        assert_eq!(names, Input::NAMES, "NAMES is one name per variant, in the enum's order");
    }
}
