//! The scenario fuzzer: no scenario file and no link may panic the engine.
//!
//! Every run generates the same cases from [`BASE_SEED`]: scenario files as
//! JSON text (configs inside, at and past the limits, with every section:
//! brokers, the delivery path, transactions, classic, consumer-protocol and
//! share groups; timelines with every input variant of [`Input::NAMES`] and
//! extreme values; malformed files), and link query strings
//! (real links of built-ins and inline scenarios, then changed). A file that
//! parses is run, and its split check, view, describe text and invariants are
//! read; a link that reads is replayed. Refusals are fine; a panic is not.
//!
//! A failure names the case's seed and carries its whole input. Rerun one case:
//!
//! ```text
//! FUZZ_SEED=0x… cargo test -p offsetlab-engine --test fuzz -- --include-ignored --nocapture
//! ```
//!
//! `FUZZ_CASES=N` runs N cases instead of the default (a longer hunt);
//! `FUZZ_SLOW=1` prints the cases that take over 100 ms.
#![cfg(not(target_arch = "wasm32"))]

use offsetlab_engine::{
    AcknowledgementMode, Acks, Assignor, AutoOffsetReset, BUILTINS, CheckpointWrites, ClusterConfig,
    CommitMode, Config, ConsumerId, DeliverySettings, ErrorPolicy, GroupConfig, GroupProtocol, History,
    Input, IsolationLevel, JournalEntry, KeylessStrategy, Link, LinkScenario, PositionModel, ProducerConfig,
    RemoteAssignor, ResetSpec, SCENARIO_TICKS_MAX, Scenario, ScenarioError, ShareAutoOffsetReset, Sim,
    TransactionsConfig, describe, limits,
};
use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// Every run generates the same cases: a failure seen once is seen again.
const BASE_SEED: u64 = 0x0ff5_e71a_b5ee_d001;
/// Scenario files per run (the brief: at least 10,000).
const SCENARIO_CASES: u64 = 10_000;
/// Links per run.
const LINK_CASES: u64 = 10_000;
/// Ticks a fuzzed scenario runs: enough for starts, a rebalance, a crash
/// and its session timeout; few enough that 10,000 runs stay fast.
const RUN_TICKS: u64 = 40;
/// A replayed link shows at most this tick; higher ones are read, not replayed
/// (replaying 10,000,000 ticks is the slow regression test below, not fuzzing).
const LINK_REPLAY_TICKS_MAX: u64 = 120;
/// The name of a scenario file the generator wrote whole (not a built-in changed).
const GENERATED: &str = "fuzz";
/// Distinct panics one run collects before it stops and reports them.
const FAILURES_MAX: usize = 8;

// ---------------------------------------------------------------- generator

/// A seeded generator of values, biased towards edges.
struct Gen {
    rng: Pcg64Mcg,
    /// Checkpoints loaded past the log end: the route to known panic (a) in
    /// sim.rs. Without, a loaded checkpoint is offset 0, never past the log end.
    past_log_end: bool,
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of case `i` of the run (scenario and link cases draw apart).
fn case_seed(kind: u64, i: u64) -> u64 {
    splitmix64(BASE_SEED ^ kind.wrapping_mul(0xa076_1d64_78bd_642f) ^ i)
}

impl Gen {
    fn new(seed: u64, past_log_end: bool) -> Gen {
        let a = splitmix64(seed);
        let state = (u128::from(a) << 64) | u128::from(splitmix64(a));
        Gen { rng: Pcg64Mcg::new(state | 1), past_log_end }
    }

    /// Uniform-ish in `0..n` (the modulo bias does not matter for fuzzing).
    fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0);
        self.rng.next_u64() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }

    /// A `u64` for a field bounded by `min..=max`: mostly small, often an
    /// edge (the bounds and one past them), sometimes the type's extremes.
    fn num(&mut self, min: u64, max: u64, type_max: u64) -> u64 {
        match self.below(20) {
            0..=9 => min + self.below(max.saturating_sub(min).clamp(1, 8) + 1),
            10 => min,
            11 => max,
            12 => min.saturating_sub(1),
            13 => max.saturating_add(1).min(type_max),
            14 => type_max,
            15 => type_max.saturating_sub(1),
            16 => 0,
            17 => self.rng.next_u64() % type_max.saturating_add(1).max(1),
            _ => min + self.below(max.saturating_sub(min).saturating_add(1).max(1)),
        }
    }

    fn num32(&mut self, min: u32, max: u32) -> u32 {
        u32::try_from(self.num(u64::from(min), u64::from(max), u64::from(u32::MAX)))
            .expect("at most u32::MAX")
    }

    /// A count of records to send: every record costs work each tick it is
    /// held, so mostly small; the limit itself rarely (a send of 100,000 per
    /// tick for 40 ticks takes minutes in a debug build), past it often (refused).
    fn costly32(&mut self, min: u32, max: u32) -> u32 {
        match self.below(200) {
            0 => max,
            1..=3 => max.saturating_add(1),
            4 => u32::MAX,
            5..=8 => 1_000,
            _ => min + self.below(12) as u32,
        }
    }

    fn consumer(&mut self, consumers: u32) -> ConsumerId {
        match self.below(12) {
            // Names that exist, and one or two past the cards there are.
            0..=9 => ConsumerId(1 + self.below(u64::from(consumers) + 2) as u32),
            10 => ConsumerId(limits::CONSUMERS_MAX + 1),
            _ => ConsumerId(u32::MAX),
        }
    }

    fn commit(&mut self) -> CommitMode {
        match self.below(4) {
            0 => CommitMode::After,
            1 => CommitMode::Before,
            2 => CommitMode::EachRecord,
            _ => CommitMode::Auto {
                interval_ticks: self.num(1, limits::AUTO_COMMIT_INTERVAL_TICKS_MAX, u64::MAX),
            },
        }
    }

    fn position(&mut self) -> PositionModel {
        if self.chance(40) {
            PositionModel::Group
        } else {
            PositionModel::Consumer {
                writes: if self.chance(50) { CheckpointWrites::Atomic } else { CheckpointWrites::InPlace },
                write_ticks: self.num(0, limits::CHECKPOINT_WRITE_TICKS_MAX, u64::MAX),
            }
        }
    }

    fn assignor(&mut self) -> Assignor {
        self.pick(&[Assignor::Range, Assignor::RoundRobin, Assignor::Sticky, Assignor::CooperativeSticky])
    }

    fn offset(&mut self) -> u64 {
        self.pick(&[0, 1, 2, 5, 30, 1_000, 100_000, 10_000_000, u64::MAX / 2, u64::MAX - 1, u64::MAX])
    }

    fn checkpoint_offset(&mut self) -> u64 {
        if self.past_log_end { self.offset() } else { 0 }
    }

    fn reset(&mut self, partitions: u32) -> ResetSpec {
        match self.below(4) {
            0 => ResetSpec::Earliest,
            1 => ResetSpec::Latest,
            2 => ResetSpec::Offset {
                partition: match self.below(4) {
                    0 => None,
                    1 => Some(u32::MAX),
                    _ => Some(self.below(u64::from(partitions) + 2) as u32),
                },
                offset: self.offset(),
            },
            _ => ResetSpec::ShiftBy {
                by: self.pick(&[i64::MIN, i64::MIN + 1, -1_000_000, -5, -1, 0, 1, 5, 1_000_000, i64::MAX]),
            },
        }
    }

    /// A broker id: mostly one a cluster may have (a smaller cluster refuses
    /// the higher ones), sometimes one no cluster has.
    fn broker(&mut self) -> u32 {
        match self.below(10) {
            0..=7 => 1 + self.below(u64::from(limits::BROKERS_MAX)) as u32,
            8 => self.pick(&[0, limits::BROKERS_MAX + 1]),
            _ => u32::MAX,
        }
    }

    /// A partition of the topic, one or two past its last, or none that can exist.
    fn partition(&mut self, partitions: u32) -> u32 {
        match self.below(6) {
            0 => u32::MAX,
            _ => self.below(u64::from(partitions) + 2) as u32,
        }
    }

    /// One input of any variant: each of [`Input::NAMES`] equally often.
    fn input(&mut self, consumers: u32, partitions: u32) -> Input {
        let name = self.pick(Input::NAMES);
        let mut input = self.input_of(name, consumers, partitions);
        // One input in five that concerns a group names one: the first, another, or none that exists.
        if self.chance(20) {
            let name = self.pick(&["demo", "g-1", "g-7", "nope"]).to_string();
            match &mut input {
                Input::AddConsumer { group }
                | Input::RecordsPerPoll { group, .. }
                | Input::HandlePerTick { group, .. }
                | Input::Commit { group, .. }
                | Input::Idempotent { group, .. }
                | Input::ResetOffsets { group, .. }
                | Input::RestartFrom { group, .. }
                | Input::PositionStore { group, .. }
                | Input::RollingUpdate { group, .. }
                | Input::Assignor { group, .. }
                | Input::ErrorPolicy { group, .. }
                | Input::FixHandler { group }
                | Input::ReplayDeadLetters { group } => *group = Some(name),
                _ => {}
            }
        }
        input
    }

    /// An input of the variant `name` (one of [`Input::NAMES`]), with values
    /// at and past its limits.
    fn input_of(&mut self, name: &str, consumers: u32, partitions: u32) -> Input {
        let c = self.consumer(consumers);
        match name {
            "send" => Input::Send { count: self.costly32(1, limits::SEND_COUNT_MAX) },
            "send-poison" => Input::SendPoison {},
            "send-failing" => Input::SendFailing {
                failures: self.num32(1, limits::FAILING_ATTEMPTS_MAX),
                after_effect: self.chance(50),
            },
            "fix-handler" => Input::FixHandler { group: None },
            "replay-dead-letters" => Input::ReplayDeadLetters { group: None },
            "error-policy" => Input::ErrorPolicy { group: None, error_policy: self.error_policy() },
            "keep-sending" => Input::KeepSending { per_tick: self.costly32(0, limits::SEND_RATE_MAX) },
            "use-keys" => Input::UseKeys { on: self.chance(50) },
            "key-count" => Input::KeyCount { keys: self.num32(1, limits::KEYS_MAX) },
            "hot-key" => {
                Input::HotKey { share_percent: u8::try_from(self.num(0, 100, 255)).expect("at most u8::MAX") }
            }
            "pause" => Input::Pause { consumer: c },
            "resume" => Input::Resume { consumer: c },
            "crash" => Input::Crash { consumer: c },
            "stop" => Input::Stop { consumer: c },
            "start" => Input::Start { consumer: c },
            "add-consumer" => Input::AddConsumer { group: None },
            "remove-consumer" => Input::RemoveConsumer { consumer: c },
            "records-per-poll" => {
                Input::RecordsPerPoll { group: None, records: self.num32(1, limits::RECORDS_PER_POLL_MAX) }
            }
            "handle-per-tick" => {
                Input::HandlePerTick { group: None, records: self.num32(1, limits::HANDLE_PER_TICK_MAX) }
            }
            "commit" => Input::Commit { group: None, commit: self.commit() },
            "idempotent" => Input::Idempotent { group: None, on: self.chance(50) },
            "reset-offsets" => Input::ResetOffsets { group: None, reset: self.reset(partitions) },
            "restart-from" => Input::RestartFrom { group: None, reset: self.reset(partitions) },
            "position-store" => Input::PositionStore { group: None, position: self.position() },
            "peek" => Input::Peek { advancing: self.chance(50) },
            "load-checkpoint" => Input::LoadCheckpoint {
                consumer: c,
                partition: self.partition(partitions),
                offset: self.checkpoint_offset(),
            },
            "add-partitions" => Input::AddPartitions { count: self.num32(1, limits::PARTITIONS_MAX) },
            "kill-before-commit" => Input::KillBeforeCommit { consumer: c },
            "rolling-update" => Input::RollingUpdate {
                group: None,
                consumers: (0..self.below(4)).map(|_| self.consumer(consumers)).collect(),
            },
            "duplicate-instance" => Input::DuplicateInstance { consumer: c },
            "stall" => Input::Stall { consumer: c, ticks: self.num(1, limits::STALL_TICKS_MAX, u64::MAX) },
            "crash-broker" => Input::CrashBroker { broker: self.broker() },
            "restart-broker" => Input::RestartBroker { broker: self.broker() },
            "lose-next-ack" => Input::LoseNextAck { partition: self.partition(partitions) },
            "lose-next-request" => Input::LoseNextRequest { partition: self.partition(partitions) },
            "slow-follower" => Input::SlowFollower {
                broker: self.broker(),
                fetch_per_tick: self.num(0, limits::APPEND_RECORDS_MAX, u64::MAX),
            },
            "assignor" => Input::Assignor { group: None, assignor: self.assignor() },
            other => panic!("the generator makes no input {other}: give it an arm in Gen::input_of"),
        }
    }

    /// Group `i` of a config (`demo`, `g-1`, …; sometimes a name that is refused).
    fn group(&mut self, i: usize) -> GroupConfig {
        use limits::*;
        let name = match (i, self.below(40)) {
            (_, 0) => "bad name".to_string(),
            (_, 1) => String::new(),
            (0, _) => "demo".to_string(),
            (i, _) => format!("g-{i}"),
        };
        GroupConfig {
            name,
            consumers: match self.below(100) {
                0..=2 => CONSUMERS_MAX,
                3..=9 => 0,
                _ => 1 + self.below(4) as u32,
            },
            records_per_poll: self.num32(1, RECORDS_PER_POLL_MAX),
            handle_per_tick: self.num32(1, HANDLE_PER_TICK_MAX),
            commit: self.commit(),
            idempotent: self.chance(50),
            session_timeout_ticks: self.num(1, SESSION_TIMEOUT_TICKS_MAX, u64::MAX),
            shutdown_deadline_ticks: self.num(0, SESSION_TIMEOUT_TICKS_MAX, u64::MAX),
            assignor: self.assignor(),
            position: self.position(),
            bridge: self.chance(30),
            protocol: match self.below(10) {
                0..=3 => GroupProtocol::Consumer,
                4..=5 => GroupProtocol::Share,
                _ => GroupProtocol::Classic,
            },
            remote_assignor: if self.chance(50) { RemoteAssignor::Uniform } else { RemoteAssignor::Range },
            static_members: self.chance(30),
            heartbeat_interval_ticks: self.num(1, 5, u64::MAX),
            max_poll_interval_ticks: self.num(1, SESSION_TIMEOUT_TICKS_MAX, u64::MAX),
            lock_duration_ticks: self.num(1, SESSION_TIMEOUT_TICKS_MAX, u64::MAX),
            delivery_count_limit: u8::try_from(self.num(2, 10, 255)).expect("at most u8::MAX"),
            max_record_locks: self.num32(100, 4000),
            share_auto_offset_reset: if self.chance(50) {
                ShareAutoOffsetReset::Latest
            } else {
                ShareAutoOffsetReset::Earliest
            },
            acknowledgement_mode: if self.chance(50) {
                AcknowledgementMode::Implicit
            } else {
                AcknowledgementMode::Explicit
            },
            auto_offset_reset: match self.below(4) {
                0 => AutoOffsetReset::Earliest,
                1 => AutoOffsetReset::Latest,
                2 => AutoOffsetReset::None,
                _ => AutoOffsetReset::ByDuration(self.num(0, 200, u64::MAX)),
            },
            initial_rebalance_delay_ticks: if self.chance(70) { 0 } else { self.num(0, 30, u64::MAX) },
            offsets_retention_ticks: self.chance(30).then(|| self.num(1, 100, u64::MAX)),
            metadata_max_age_ticks: self.chance(30).then(|| self.num(1, 60, u64::MAX)),
            error_policy: self.error_policy(),
            // KIP-1191's topic, valid and as Kafka refuses it (a classic or
            // consumer group refuses any).
            dead_letter_topic: match self.below(8) {
                0 | 1 => Some("dlq.orders".to_string()),
                2 => Some("__dlq".to_string()),
                3 => Some("orders.DLT".to_string()),
                4 => Some("dlq.".to_string()),
                _ => None,
            },
            dead_letter_copy_record: self.chance(30),
        }
    }

    /// Issue 40's error policies, with values at and past their limits.
    fn error_policy(&mut self) -> ErrorPolicy {
        use limits::*;
        match self.below(5) {
            0 | 1 => ErrorPolicy::Skip,
            2 => ErrorPolicy::RetryForever { backoff_ticks: self.num(0, 3, u64::MAX) },
            3 => ErrorPolicy::RetryThenDeadLetter {
                retries: self.num32(0, RETRIES_MAX),
                backoff_ticks: self.num(0, 3, u64::MAX),
            },
            _ => ErrorPolicy::RetryTopics {
                levels: self.num32(1, RETRY_TOPICS_MAX),
                delay_ticks: self.num(1, 5, u64::MAX),
            },
        }
    }

    /// `config.cluster`: brokers, replication and its timeouts.
    fn cluster(&mut self) -> ClusterConfig {
        use limits::*;
        let brokers = self.num32(1, BROKERS_MAX);
        let replication_factor = self.num32(1, brokers.clamp(1, BROKERS_MAX));
        ClusterConfig {
            brokers,
            replication_factor,
            min_insync_replicas: self.num32(1, replication_factor.clamp(1, BROKERS_MAX)),
            replica_lag_time_max_ticks: self.num(1, CLUSTER_TIMEOUT_TICKS_MAX, u64::MAX),
            broker_session_timeout_ticks: self.num(0, CLUSTER_TIMEOUT_TICKS_MAX, u64::MAX),
            unclean_leader_election: self.chance(30),
            eligible_leader_replicas: self.chance(70),
        }
    }

    /// `config.producer.delivery`: acks, idempotence, batching, retries and timeouts.
    fn delivery(&mut self) -> DeliverySettings {
        use limits::*;
        DeliverySettings {
            acks: self.pick(&Acks::ALL),
            enable_idempotence: self.pick(&[None, None, Some(true), Some(false)]),
            max_in_flight: self.num32(1, PRODUCER_MAX_IN_FLIGHT_MAX),
            linger_ticks: self.num(0, PRODUCER_TIMEOUT_TICKS_MAX, u64::MAX),
            batch_records: self.num32(1, PRODUCER_BATCH_RECORDS_MAX),
            retries: match self.below(4) {
                0 => 0,
                1 => i32::MAX as u32,
                2 => u32::MAX,
                _ => 1 + self.below(3) as u32,
            },
            request_timeout_ticks: self.num(1, PRODUCER_TIMEOUT_TICKS_MAX, u64::MAX),
            delivery_timeout_ticks: self
                .chance(30)
                .then(|| self.num(1, PRODUCER_TIMEOUT_TICKS_MAX, u64::MAX)),
            retry_backoff_ticks: self.num(0, PRODUCER_TIMEOUT_TICKS_MAX, u64::MAX),
            retry_backoff_max_ticks: self.num(0, PRODUCER_TIMEOUT_TICKS_MAX, u64::MAX),
            buffer_records: self.num32(1, PRODUCER_BUFFER_RECORDS_MAX),
        }
    }

    /// A config: every field within its limits, often at them; `bad` of the
    /// time one field past them.
    fn config(&mut self, bad: bool) -> Config {
        use limits::*;
        // The largest groups and topics cost the most per tick: a few percent of the cases.
        let partitions = match self.below(100) {
            0..=1 => PARTITIONS_MAX,
            2..=4 => 1 + self.below(u64::from(PARTITIONS_MAX)) as u32,
            _ => 1 + self.below(6) as u32,
        };
        let retention_records = match self.below(8) {
            0 => RETAINED_RECORDS_MAX / u64::from(partitions),
            1 => 1,
            2 => 1 + self.below(20),
            3 => RETENTION_RECORDS_MAX.min(RETAINED_RECORDS_MAX / u64::from(partitions)),
            _ => 10_000.min(RETAINED_RECORDS_MAX / u64::from(partitions)),
        };
        let keyless = if self.chance(50) {
            KeylessStrategy::RoundRobin
        } else {
            KeylessStrategy::Sticky { batch_records: self.num32(1, STICKY_BATCH_RECORDS_MAX) }
        };
        let groups = match self.below(10) {
            0 => 1 + self.below(limits::GROUPS_MAX as u64) as usize,
            1..=2 => 2,
            _ => 1,
        };
        let groups = (0..groups).map(|i| self.group(i)).collect();
        let mut config = Config {
            seed: self.rng.next_u64(),
            partitions,
            retention_records,
            producer: ProducerConfig {
                use_keys: self.chance(50),
                key_count: self.num32(1, KEYS_MAX),
                hot_key_share_percent: u8::try_from(self.num(0, 100, 255)).expect("a u8"),
                send_per_tick: self.costly32(0, SEND_RATE_MAX),
                keyless,
                // The delivery path, with or without brokers: a third of the configs.
                delivery: self.chance(30).then(|| self.delivery()),
            },
            groups,
            cluster: self.chance(25).then(|| self.cluster()),
            transactions: self.chance(15).then(|| TransactionsConfig {
                group: None,
                transaction_timeout_ticks: self.num(1, TRANSACTION_TIMEOUT_TICKS_MAX, u64::MAX),
                isolation_level: if self.chance(50) {
                    IsolationLevel::ReadCommitted
                } else {
                    IsolationLevel::ReadUncommitted
                },
                downstream_per_tick: self.num32(1, DOWNSTREAM_PER_TICK_MAX),
            }),
        };
        // Every partition's replicas fetch every tick: a cluster over hundreds of
        // partitions costs a hundred times a small one's, so it comes one time in five.
        if config.cluster.is_some() && config.partitions > 6 && !self.chance(20) {
            config.partitions = 1 + self.below(6) as u32;
        }
        // `num` strays past the limits on its own; a good config is brought back inside.
        if !bad {
            clamp_config(&mut config);
            // Share groups run on the single-broker model: the cluster goes, or they become
            // consumer-protocol groups.
            if config.cluster.is_some() && config.groups.iter().any(|g| g.protocol == GroupProtocol::Share) {
                if self.chance(50) {
                    config.cluster = None;
                } else {
                    for g in &mut config.groups {
                        if g.protocol == GroupProtocol::Share {
                            g.protocol = GroupProtocol::Consumer;
                        }
                    }
                }
            }
            if let Some(t) = &mut config.transactions {
                // The transactional group commits after each batch, in the group's offsets.
                t.transaction_timeout_ticks =
                    t.transaction_timeout_ticks.clamp(1, TRANSACTION_TIMEOUT_TICKS_MAX);
                t.downstream_per_tick = t.downstream_per_tick.clamp(1, DOWNSTREAM_PER_TICK_MAX);
                let g = &mut config.groups[0];
                g.commit = CommitMode::After;
                g.position = PositionModel::Group;
                g.bridge = false;
                if g.protocol == GroupProtocol::Share {
                    config.transactions = None;
                }
            }
        } else {
            match self.below(11) {
                0 => config.partitions = self.pick(&[0, PARTITIONS_MAX + 1, u32::MAX]),
                1 => config.retention_records = self.pick(&[0, RETENTION_RECORDS_MAX + 1, u64::MAX]),
                2 => config.groups[0].consumers = self.pick(&[CONSUMERS_MAX + 1, u32::MAX]),
                3 => config.groups[0].records_per_poll = 0,
                4 => config.groups[0].session_timeout_ticks = 0,
                5 => config.producer.key_count = 0,
                // Past the cluster's limits, or inconsistent with them.
                6 => {
                    let brokers = self.pick(&[0, BROKERS_MAX + 1, u32::MAX]);
                    config.cluster = Some(ClusterConfig { brokers, ..self.cluster() });
                }
                7 => {
                    let c = self.cluster();
                    let (replication_factor, min_insync_replicas) = if self.chance(50) {
                        (c.brokers.saturating_add(1), 1)
                    } else {
                        (c.replication_factor, c.replication_factor.saturating_add(1))
                    };
                    config.cluster = Some(ClusterConfig { replication_factor, min_insync_replicas, ..c });
                }
                // Past the delivery path's limits, or settings Kafka refuses together.
                8 => {
                    let mut d = self.delivery();
                    match self.below(4) {
                        0 => d.batch_records = self.pick(&[0, PRODUCER_BATCH_RECORDS_MAX + 1]),
                        1 => d.max_in_flight = self.pick(&[0, PRODUCER_MAX_IN_FLIGHT_MAX + 1]),
                        2 => (d.enable_idempotence, d.acks) = (Some(true), Acks::One),
                        _ => {
                            (d.linger_ticks, d.request_timeout_ticks, d.delivery_timeout_ticks) =
                                (5, 30, Some(34))
                        }
                    }
                    config.producer.delivery = Some(d);
                }
                // A share group on brokers (refused), or transactions past their limits.
                9 => {
                    config.groups[0].protocol = GroupProtocol::Share;
                    config.cluster = Some(self.cluster());
                }
                _ => {
                    let t = config.transactions.get_or_insert_with(TransactionsConfig::default);
                    t.transaction_timeout_ticks = self.pick(&[0, TRANSACTION_TIMEOUT_TICKS_MAX + 1]);
                }
            }
        }
        config
    }

    /// A timeline of `count` inputs at nondecreasing ticks before `ticks`.
    fn timeline(&mut self, count: u64, ticks: u64, consumers: u32, partitions: u32) -> Vec<(u64, Input)> {
        let mut tick = 0;
        let mut timeline = Vec::new();
        for _ in 0..count {
            if self.chance(40) {
                tick = (tick + self.below(8)).min(ticks.saturating_sub(1));
            }
            let input = self.input(consumers, partitions);
            timeline.push((tick, input));
        }
        timeline
    }
}

/// Brings every field of `config` within its limit.
fn clamp_config(c: &mut Config) {
    use limits::*;
    c.partitions = c.partitions.clamp(1, PARTITIONS_MAX);
    c.retention_records = c
        .retention_records
        .clamp(1, RETENTION_RECORDS_MAX.min(RETAINED_RECORDS_MAX / u64::from(c.partitions)));
    for (i, g) in c.groups.iter_mut().enumerate() {
        if g.name.is_empty() || g.name.contains(' ') {
            g.name = if i == 0 { "demo".into() } else { format!("g-{i}") };
        }
        g.consumers = g.consumers.min(CONSUMERS_MAX);
        g.records_per_poll = g.records_per_poll.clamp(1, RECORDS_PER_POLL_MAX);
        g.handle_per_tick = g.handle_per_tick.clamp(1, HANDLE_PER_TICK_MAX);
        if let CommitMode::Auto { interval_ticks } = &mut g.commit {
            *interval_ticks = (*interval_ticks).clamp(1, AUTO_COMMIT_INTERVAL_TICKS_MAX);
        }
        g.session_timeout_ticks = g.session_timeout_ticks.clamp(1, SESSION_TIMEOUT_TICKS_MAX);
        g.shutdown_deadline_ticks = g.shutdown_deadline_ticks.min(SESSION_TIMEOUT_TICKS_MAX);
        if let PositionModel::Consumer { write_ticks, .. } = &mut g.position {
            *write_ticks = (*write_ticks).min(CHECKPOINT_WRITE_TICKS_MAX);
        }
        g.heartbeat_interval_ticks = g.heartbeat_interval_ticks.clamp(1, SESSION_TIMEOUT_TICKS_MAX);
        if g.protocol != GroupProtocol::Classic {
            // Consumer-protocol and share members heartbeat within their session.
            g.heartbeat_interval_ticks = g.heartbeat_interval_ticks.min(g.session_timeout_ticks);
        }
        g.max_poll_interval_ticks = g.max_poll_interval_ticks.clamp(1, SESSION_TIMEOUT_TICKS_MAX);
        g.lock_duration_ticks = g.lock_duration_ticks.clamp(1, SESSION_TIMEOUT_TICKS_MAX);
        g.delivery_count_limit = g.delivery_count_limit.clamp(2, 10);
        g.max_record_locks = g.max_record_locks.clamp(100, 4000);
        g.initial_rebalance_delay_ticks = g.initial_rebalance_delay_ticks.min(SESSION_TIMEOUT_TICKS_MAX);
        if let Some(ticks) = &mut g.offsets_retention_ticks {
            *ticks = (*ticks).clamp(1, SCENARIO_TICKS_MAX);
        }
        if let Some(ticks) = &mut g.metadata_max_age_ticks {
            *ticks = (*ticks).clamp(1, SCENARIO_TICKS_MAX);
        }
        g.error_policy = match g.error_policy {
            ErrorPolicy::Skip => ErrorPolicy::Skip,
            ErrorPolicy::RetryForever { backoff_ticks } => {
                ErrorPolicy::RetryForever { backoff_ticks: backoff_ticks.min(RETRY_BACKOFF_TICKS_MAX) }
            }
            ErrorPolicy::RetryThenDeadLetter { retries, backoff_ticks } => ErrorPolicy::RetryThenDeadLetter {
                retries: retries.min(RETRIES_MAX),
                backoff_ticks: backoff_ticks.min(RETRY_BACKOFF_TICKS_MAX),
            },
            ErrorPolicy::RetryTopics { levels, delay_ticks } => ErrorPolicy::RetryTopics {
                levels: levels.clamp(1, RETRY_TOPICS_MAX),
                delay_ticks: delay_ticks.clamp(1, RETRY_BACKOFF_TICKS_MAX),
            },
        };
        if let AutoOffsetReset::ByDuration(ticks) = &mut g.auto_offset_reset {
            *ticks = (*ticks).min(SCENARIO_TICKS_MAX);
        }
        if g.protocol == GroupProtocol::Share {
            g.error_policy = ErrorPolicy::Skip;
            if g.dead_letter_topic.as_deref().is_some_and(|name| !name.starts_with("dlq.") || name == "dlq.")
            {
                g.dead_letter_topic = Some("dlq.orders".to_string());
            }
        } else {
            g.dead_letter_topic = None;
        }
        if g.dead_letter_topic.is_none() {
            g.dead_letter_copy_record = false;
        }
        if g.protocol == GroupProtocol::Share {
            // KIP-932: no group.instance.id, and the progress lives on the broker.
            g.static_members = false;
            g.position = PositionModel::Group;
        }
    }
    if let Some(cluster) = &mut c.cluster {
        cluster.brokers = cluster.brokers.clamp(1, BROKERS_MAX);
        cluster.replication_factor = cluster.replication_factor.clamp(1, cluster.brokers);
        cluster.min_insync_replicas = cluster.min_insync_replicas.clamp(1, cluster.replication_factor);
        cluster.replica_lag_time_max_ticks =
            cluster.replica_lag_time_max_ticks.clamp(1, CLUSTER_TIMEOUT_TICKS_MAX);
        cluster.broker_session_timeout_ticks =
            cluster.broker_session_timeout_ticks.min(CLUSTER_TIMEOUT_TICKS_MAX);
    }
    if let Some(d) = &mut c.producer.delivery {
        // Kafka refuses idempotence with retries 0 or acks other than all, and more
        // than 5 requests in flight unless idempotence is off.
        if d.enable_idempotence == Some(true) && (d.retries == 0 || d.acks != Acks::All) {
            d.enable_idempotence = None;
        }
        let in_flight_max = if d.enable_idempotence == Some(false) { PRODUCER_MAX_IN_FLIGHT_MAX } else { 5 };
        d.max_in_flight = d.max_in_flight.clamp(1, in_flight_max);
        d.batch_records = d.batch_records.clamp(1, PRODUCER_BATCH_RECORDS_MAX);
        d.buffer_records = d.buffer_records.clamp(1, PRODUCER_BUFFER_RECORDS_MAX);
        d.linger_ticks = d.linger_ticks.min(PRODUCER_TIMEOUT_TICKS_MAX);
        // The replication model's bound on the acks=all wait, below the producer's own.
        d.request_timeout_ticks = d.request_timeout_ticks.clamp(1, CLUSTER_TIMEOUT_TICKS_MAX);
        d.retry_backoff_ticks = d.retry_backoff_ticks.min(PRODUCER_TIMEOUT_TICKS_MAX);
        d.retry_backoff_max_ticks = d.retry_backoff_max_ticks.min(PRODUCER_TIMEOUT_TICKS_MAX);
        // delivery.timeout.ms is at least linger.ms + request.timeout.ms.
        let floor = d.linger_ticks + d.request_timeout_ticks;
        d.delivery_timeout_ticks = d
            .delivery_timeout_ticks
            .map(|t| t.clamp(1, PRODUCER_TIMEOUT_TICKS_MAX).max(floor))
            .filter(|&t| t <= PRODUCER_TIMEOUT_TICKS_MAX);
    }
    let p = &mut c.producer;
    p.key_count = p.key_count.clamp(1, KEYS_MAX);
    p.hot_key_share_percent = p.hot_key_share_percent.min(100);
    // Past the limit, off (clamped to it, a run would send 100,000 records every tick).
    if p.send_per_tick > SEND_RATE_MAX {
        p.send_per_tick = 0;
    }
    if let KeylessStrategy::Sticky { batch_records } = &mut p.keyless {
        *batch_records = (*batch_records).clamp(1, STICKY_BATCH_RECORDS_MAX);
    }
}

// ---------------------------------------------------------------- scenario files

/// One scenario file: JSON text, and how many ticks to run it.
struct Case {
    text: String,
    ticks: u64,
}

fn input_json(input: &Input) -> Value {
    serde_json::to_value(input).expect("an input serializes")
}

fn scenario_case(g: &mut Gen) -> Case {
    let kind = g.below(100);
    // A built-in, changed: guides, learner inputs and real timelines.
    let mut file: Value = if kind < 15 {
        let (_, json) = g.pick(BUILTINS);
        serde_json::from_str(json).expect("a built-in is JSON")
    } else {
        json!({ "name": GENERATED })
    };
    let bad_config = g.chance(8);
    let mut config = g.config(bad_config);
    let consumers: u32 = config.groups.iter().fold(0u32, |n, g| n.saturating_add(g.consumers));
    let partitions = config.partitions;
    let own_config = kind >= 15 || g.chance(50);
    let ticks = match g.below(20) {
        0 => SCENARIO_TICKS_MAX,
        1 => 1,
        _ => RUN_TICKS,
    };
    file["ticks"] = json!(ticks);
    let count = if g.chance(5) { 100 } else { g.below(16) };
    let mut timeline = g.timeline(count, ticks.min(RUN_TICKS), consumers, partitions);
    if g.chance(5) && ticks >= RUN_TICKS {
        // booblik's offset store, by design: a position loaded from a consumer's
        // store, the store moved to the group, commits. Random timelines seldom
        // line these up; this is where known panic (a) lives.
        let c = g.consumer(consumers);
        let (p, offset) = (g.below(u64::from(partitions.max(1))) as u32, g.checkpoint_offset());
        let commit = g.commit();
        let recipe = [
            (0, Input::PositionStore { group: None, position: g.position() }),
            (0, Input::Stop { consumer: c }),
            (1, Input::LoadCheckpoint { consumer: c, partition: p, offset }),
            (5, Input::Start { consumer: c }),
            (10, Input::PositionStore { group: None, position: PositionModel::Group }),
            (11, Input::Commit { group: None, commit }),
            (20, Input::Stop { consumer: c }),
        ];
        timeline.extend(recipe);
        timeline.sort_by_key(|(tick, _)| *tick);
    }
    // Records cost work every tick they are held: a case that sends thousands
    // per tick runs a few ticks only, so the extremes stay in and the run stays fast.
    // On the delivery path a record costs more: a debug build sweeps the
    // producer's whole buffer at every send, so there a hundred a tick is heavy,
    // and a heavy case keeps a small buffer (100,000 sends into a buffer of
    // 100,000 took minutes).
    let (rate, count) = if config.producer.delivery.is_some() { (100, 1_000) } else { (1_000, 10_000) };
    let heavy = config.producer.send_per_tick > rate
        || timeline.iter().any(|(_, input)| match input {
            Input::KeepSending { per_tick } => (rate + 1..=limits::SEND_RATE_MAX).contains(per_tick),
            Input::Send { count: n } => (count + 1..=limits::SEND_COUNT_MAX).contains(n),
            _ => false,
        });
    if let Some(delivery) = config.producer.delivery.as_mut().filter(|_| heavy) {
        delivery.buffer_records = delivery.buffer_records.min(1_000);
    }
    if own_config {
        file["config"] = serde_json::to_value(&config).expect("a config serializes");
    }
    let timeline: Vec<Value> = timeline
        .into_iter()
        .map(|(tick, input)| json!({ "tick": tick, "input": input_json(&input) }))
        .collect();
    if kind < 15 && g.chance(50) {
        // Keep the built-in's own timeline in front when its ticks allow.
        if let Some(own) = file["timeline"].as_array_mut() {
            own.retain(|t| t["tick"].as_u64().is_some_and(|t| t < RUN_TICKS));
            own.extend(timeline);
        }
    } else {
        file["timeline"] = Value::Array(timeline);
    }
    // Malformed files: shapes, types and values the codec or validation refuses.
    if g.chance(15) {
        malform(g, &mut file);
    }
    let mut text = if g.chance(50) {
        serde_json::to_string(&file).expect("JSON")
    } else {
        serde_json::to_string_pretty(&file).expect("JSON")
    };
    if g.chance(3) {
        corrupt_text(g, &mut text);
    }
    Case { text, ticks: if heavy { 3 } else { RUN_TICKS } }
}

/// One change that makes the file wrong in shape, type or range.
fn malform(g: &mut Gen, file: &mut Value) {
    let numbers = [
        json!(-1),
        json!(1.5),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e300),
        json!("3"),
        json!(null),
        json!(true),
        json!([]),
        json!({}),
    ];
    let value = g.pick(&numbers);
    let config_fields = [
        "seed",
        "partitions",
        "retention_records",
        "consumers",
        "records_per_poll",
        "handle_per_tick",
        "session_timeout_ticks",
        "shutdown_deadline_ticks",
        "idempotent",
        "assignor",
        "commit",
        "position",
        "producer",
        "bridge",
        "unknown",
    ];
    match g.below(9) {
        0 => file["config"][g.pick(&config_fields)] = value,
        1 => file["ticks"] = g.pick(&[json!(SCENARIO_TICKS_MAX + 1), json!(u64::MAX), json!(0), value]),
        2 => {
            if let Some(object) = file.as_object_mut() {
                object.remove("name");
            }
        }
        3 => file["extra"] = json!(1),
        4 | 5 => {
            // One input's field of the wrong type, missing, or an unknown input.
            if let Some(item) = file["timeline"].as_array_mut().and_then(|t| t.first_mut()) {
                match g.below(5) {
                    0 => item["input"]["do"] = json!("fly"),
                    1 => item["tick"] = value,
                    2 => item["learner"] = json!(true),
                    3 => {
                        item["input"]["consumer"] = g.pick(&[json!("c0"), json!("c01"), json!("x"), json!(1)])
                    }
                    _ => item["input"]["extra"] = value,
                }
            }
        }
        6 => {
            // Ticks out of order, or at the end.
            if let Some(timeline) = file["timeline"].as_array_mut() {
                timeline.push(json!({ "tick": u64::MAX, "input": { "do": "add-consumer" } }));
                timeline.push(json!({ "tick": 0, "input": { "do": "add-consumer" } }));
            }
        }
        7 => file["config"]["producer"]["keyless"] = json!({ "strategy": "sticky", "batch_records": 0 }),
        _ => file["guide"] = g.pick(&[json!({}), json!({ "topic": "nope" }), json!(null), value]),
    }
}

/// Text-level damage: a cut, a flipped byte, a duplicated span.
fn corrupt_text(g: &mut Gen, text: &mut String) {
    let mut bytes = std::mem::take(text).into_bytes();
    let at = g.below(bytes.len() as u64 + 1) as usize;
    match g.below(3) {
        0 => bytes.truncate(at),
        1 => {
            if let Some(b) = bytes.get_mut(at) {
                *b ^= 1 << g.below(8);
            }
        }
        _ => {
            let end = (at + g.below(40) as usize).min(bytes.len());
            let span = bytes[at..end].to_vec();
            bytes.splice(at..at, span);
        }
    }
    *text = String::from_utf8_lossy(&bytes).into_owned();
}

/// What became of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Refused by `Scenario::parse` (syntax, shape, ranges).
    Rejected,
    /// Parsed; a timeline input was refused when its tick came.
    Refused,
    /// Parsed and ran to the end.
    Ran,
}

/// Reads everything a page or the command reads of a simulation.
fn read_all(sim: &Sim) {
    sim.check_invariants();
    let _ = sim.split_check();
    let view = sim.view();
    let _ = describe(sim);
    let _ = sim.metrics();
    let _ = sim.stats();
    let _ = sim.ledger();
    let _ = sim.bridge_partitions();
    let partitions = u32::try_from(view.partitions.len()).expect("at most 256 partitions");
    // One past the last partition too: a page may ask about one that is gone.
    for p in 0..=partitions {
        let _ = sim.records(p, 0, 5);
        let _ = sim.records(p, u64::MAX, u32::MAX);
        let _ = sim.bridge_records(p, u64::MAX - 1, 3);
        let _ = sim.restart_preview(p, u64::MAX);
        let _ = sim.lag_history(p);
        // Known panic (c): `committed` indexes without a check. Its own
        // regression test below; called here it would end every case.
        if p < partitions {
            let _ = sim.committed(p);
        }
    }
}

/// Parses and runs one file; panics are the caller's to catch. The names of
/// the inputs the simulation took from a generated timeline go to `accepted`.
fn run_case(case: &Case, g: &mut Gen, accepted: &mut BTreeSet<&'static str>) -> Outcome {
    let Ok(scenario) = Scenario::parse(&case.text) else { return Outcome::Rejected };
    let ticks = case.ticks.min(scenario.ticks);
    let outcome = match scenario.run(None, Some(ticks)) {
        Ok(sim) => {
            read_all(&sim);
            Outcome::Ran
        }
        Err(ScenarioError::Refused { .. }) => Outcome::Refused,
        Err(e) => panic!("a parsed scenario runs or refuses an input, got: {e}"),
    };
    // The timeline again, refused inputs skipped, checking after every tick:
    // what comes after a refusal is fuzzed too.
    let mut sim = Sim::new(scenario.config.clone()).expect("a parsed config is valid");
    let mut next = 0;
    for tick in 0..ticks {
        while let Some(timed) = scenario.timeline.get(next).filter(|t| t.tick == tick) {
            if sim.handle_input(timed.input.clone()).is_ok() && scenario.name == GENERATED {
                accepted.insert(timed.input.name());
            }
            next += 1;
        }
        sim.handle_tick(tick + 1);
        sim.check_invariants();
        while sim.poll_event().is_some() {}
    }
    read_all(&sim);
    // Time travel over one case in eight: steps, a seek back, a fork, the export.
    if g.chance(12) {
        let mut history = History::new(scenario.clone(), g.rng.next_u64()).expect("a parsed scenario starts");
        for _ in 0..ticks {
            assert!(history.step(), "below the tick limit a step is taken");
            while history.poll_event().is_some() {}
        }
        history.seek(ticks / 2);
        let consumers: u32 = scenario.config.groups.iter().fold(0u32, |n, g| n.saturating_add(g.consumers));
        let input = g.input(consumers, scenario.config.partitions);
        let _ = history.handle_input(input);
        for _ in 0..5 {
            history.step();
        }
        while history.poll_event().is_some() {}
        let exported = history.to_scenario().to_json();
        Scenario::parse(&exported).expect("an export reads back");
    }
    outcome
}

thread_local! {
    /// Set while this thread runs fuzz cases: their panics are caught and
    /// reported with their case, so the hook stays quiet (printing and
    /// resolving a backtrace per panic made a run hundreds of times slower)
    /// and keeps the panic's place for the report.
    static QUIET: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Installs, once, a hook that is quiet on fuzzing threads and the default elsewhere.
fn quiet_panics_while_fuzzing() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let quiet = QUIET.with(|q| {
                let mut q = q.borrow_mut();
                q.as_mut().map(|place| *place = info.location().map(ToString::to_string).unwrap_or_default())
            });
            if quiet.is_none() {
                default(info);
            }
        }));
    });
}

/// Runs `f` with this thread's panics quiet; a panic comes back as its message and place.
fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    quiet_panics_while_fuzzing();
    QUIET.with(|q| *q.borrow_mut() = Some(String::new()));
    let result = catch_unwind(AssertUnwindSafe(f));
    let place = QUIET.with(|q| q.borrow_mut().take()).unwrap_or_default();
    result.map_err(|payload| format!("{} (at {place})", panic_message(payload.as_ref())))
}

/// The panic's message, when it is text.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_else(|| "(a panic without a message)".into())
}

/// `FUZZ_SEED`, decimal or `0x` hex: rerun that one case.
fn seed_from_env() -> Option<u64> {
    let text = std::env::var("FUZZ_SEED").ok()?;
    let text = text.trim();
    let seed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(seed.unwrap_or_else(|_| panic!("FUZZ_SEED={text} is not a u64")))
}

fn cases_from_env(default: u64) -> u64 {
    std::env::var("FUZZ_CASES").ok().map_or(default, |n| n.parse().expect("FUZZ_CASES is a number"))
}

/// One failing case: its seed, the panic, and the whole input.
struct Failure {
    seed: u64,
    message: String,
    input: String,
    /// Other cases that panicked the same way.
    repeats: u64,
}

fn report(name: &str, failures: &[Failure]) -> String {
    let mut out = format!("{} case(s) panicked:\n", failures.len());
    for f in failures {
        out.push_str(&format!(
            "\n--- seed {:#018x}: {} ({} more case(s) the same way)\nrerun: FUZZ_SEED={:#x} cargo test -p offsetlab-engine --test fuzz {name} -- --include-ignored --nocapture\n{}\n",
            f.seed, f.message, f.repeats, f.seed, f.input
        ));
    }
    out
}

/// Runs the scenario cases; returns the failures (distinct messages), the
/// outcome counts and the names of the generated inputs the simulation took.
fn fuzz_scenarios(past_log_end: bool) -> (Vec<Failure>, [u64; 3], BTreeSet<&'static str>) {
    let seeds: Vec<u64> = match seed_from_env() {
        Some(seed) => vec![seed],
        None => (0..cases_from_env(SCENARIO_CASES)).map(|i| case_seed(1, i)).collect(),
    };
    let mut failures: Vec<Failure> = Vec::new();
    let mut counts = [0u64; 3];
    let mut accepted = BTreeSet::new();
    for &seed in &seeds {
        let mut g = Gen::new(seed, past_log_end);
        let case = scenario_case(&mut g);
        if seeds.len() == 1 {
            println!("case {seed:#x}:\n{}", case.text);
        }
        let case_started = Instant::now();
        let result = catch(|| run_case(&case, &mut g, &mut accepted));
        if std::env::var("FUZZ_SLOW").is_ok() && case_started.elapsed().as_millis() > 100 {
            println!("slow {seed:#x}: {:?} {}", case_started.elapsed(), case.text.replace(['\n', ' '], ""));
        }
        match result {
            Ok(outcome) => counts[outcome as usize] += 1,
            Err(message) => {
                // One example of each panic: the same bug found twice says nothing new.
                match failures.iter_mut().find(|f| same_panic(&f.message, &message)) {
                    Some(f) => f.repeats += 1,
                    None => failures.push(Failure { seed, message, input: case.text, repeats: 0 }),
                }
                if failures.len() >= FAILURES_MAX {
                    break;
                }
            }
        }
    }
    (failures, counts, accepted)
}

/// Two panic messages from the same assert: equal but for their numbers.
fn same_panic(a: &str, b: &str) -> bool {
    let shape = |s: &str| s.chars().filter(|c| !c.is_ascii_digit()).collect::<String>();
    shape(a) == shape(b)
}

/// Every input variant and route, checkpoints past the log end included.
#[test]
fn scenario_files_never_panic() {
    let started = Instant::now();
    let (failures, counts, accepted) = fuzz_scenarios(true);
    println!("{counts:?} (rejected, refused, ran) in {:?}", started.elapsed());
    assert!(failures.is_empty(), "{}", report("scenario_files_never_panic", &failures));
    if seed_from_env().is_none() && cases_from_env(SCENARIO_CASES) == SCENARIO_CASES {
        // A variant always refused reaches none of the code behind it. Without the
        // `cluster` feature the broker and fault inputs are refused, as they should be.
        let needs_cluster =
            ["crash-broker", "restart-broker", "lose-next-ack", "lose-next-request", "slow-follower"];
        let never: Vec<&str> = Input::NAMES
            .iter()
            .copied()
            .filter(|name| {
                !accepted.contains(name) && (cfg!(feature = "cluster") || !needs_cluster.contains(name))
            })
            .collect();
        assert!(never.is_empty(), "generated inputs the simulation never took: {never:?}");
    }
}

/// The files the generator writes have every input variant, every config
/// section (the cluster, the delivery path, transactions) and group protocol,
/// and every form of the tagged fields; each also in a file the engine reads.
/// A built-in's own config and timeline are not counted: only what the
/// generator made.
#[test]
fn the_generator_covers_every_input_variant() {
    let mut made = BTreeSet::new();
    let mut read = BTreeSet::new();
    for i in 0..2_000 {
        let mut g = Gen::new(case_seed(1, i), true);
        let case = scenario_case(&mut g);
        let Ok(file) = serde_json::from_str::<Value>(&case.text) else { continue };
        if file["name"] != GENERATED {
            continue;
        }
        let mut seen = BTreeSet::new();
        for item in file["timeline"].as_array().into_iter().flatten() {
            let input = &item["input"];
            seen.insert(format!("input:{}", input["do"].as_str().unwrap_or_default()));
            for key in ["reset", "commit", "position"] {
                if let Some(tag) = ["to", "mode", "store"].iter().find_map(|t| input[key][t].as_str()) {
                    seen.insert(format!("{key}:{tag}"));
                }
            }
        }
        let config = &file["config"];
        for (section, value) in [
            ("cluster", &config["cluster"]),
            ("delivery", &config["producer"]["delivery"]),
            ("transactions", &config["transactions"]),
        ] {
            if value.is_object() {
                seen.insert(format!("section:{section}"));
            }
        }
        for group in config["groups"].as_array().into_iter().flatten() {
            if let Some(protocol) = group["protocol"].as_str() {
                seen.insert(format!("group:{protocol}"));
            }
        }
        if Scenario::parse(&case.text).is_ok() {
            read.extend(seen.iter().cloned());
        }
        made.extend(seen);
    }
    let forms = [
        "reset:earliest",
        "reset:latest",
        "reset:offset",
        "reset:shift-by",
        "commit:after",
        "commit:before",
        "commit:each-record",
        "commit:auto",
        "position:group",
        "position:consumer",
        "group:classic",
        "group:consumer",
        "group:share",
    ];
    let sections = ["section:cluster", "section:delivery", "section:transactions"];
    let wanted = Input::NAMES.iter().map(|name| format!("input:{name}")).chain(forms.map(String::from));
    for name in wanted.chain(sections.map(String::from)) {
        assert!(made.contains(&name), "the generator never makes {name}: {made:?}");
        // A build without the feature refuses the section when it reads it.
        let feature = match name.as_str() {
            "section:cluster" | "section:delivery" => Some(cfg!(feature = "cluster")),
            "section:transactions" => Some(cfg!(feature = "transactions")),
            _ => None,
        };
        assert!(
            feature == Some(false) || read.contains(&name),
            "no generated file the engine reads has {name}: {read:?}"
        );
    }
}

// ---------------------------------------------------------------- links

/// The checksum `to_query` puts in `h=`: FNV-1a 64 over `name=value&` in the
/// link's parameter order, base36 (as codec/link.rs documents). Re-signing a
/// changed link lets it past the checksum, into the readers behind it.
fn sign(query: &str) -> String {
    let pairs: Vec<(&str, &str)> =
        query.split('&').filter_map(|p| p.split_once('=')).filter(|(k, _)| *k != "h").collect();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for name in ["s", "g", "j", "seed", "t", "in"] {
        if let Some((_, value)) = pairs.iter().find(|(n, _)| *n == name) {
            // The checksum covers the decoded text; fuzzed values decode as they are or not at all.
            for b in format!("{name}={value}&").bytes() {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    let mut digits = Vec::new();
    for _ in 0..16 {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(hash % 36) as usize]);
        hash /= 36;
        if hash == 0 {
            break;
        }
    }
    digits.reverse();
    let rest: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("h={}&{}", String::from_utf8(digits).expect("ASCII"), rest.join("&"))
}

/// A real link: a built-in or an inline scenario, random inputs in tick order.
fn real_link(g: &mut Gen) -> Link {
    let tick = match g.below(10) {
        0 => SCENARIO_TICKS_MAX,
        1 => 0,
        _ => g.below(LINK_REPLAY_TICKS_MAX),
    };
    let scenario = if g.chance(85) {
        LinkScenario::Builtin { name: g.pick(BUILTINS).0.to_string(), guided: g.chance(50) }
    } else {
        let config = g.config(false);
        let mut scenario = offsetlab_engine::builtin("default").expect("built-in");
        scenario.config = config;
        scenario.guide = None;
        scenario.timeline.clear();
        LinkScenario::Inline(Box::new(scenario))
    };
    let mut inputs = Vec::new();
    let mut at = 0;
    for _ in 0..g.below(12) {
        at = (at + g.below(10)).min(tick);
        let input = g.input(4, 4);
        inputs.push((at, input));
    }
    Link { scenario, seed: g.rng.next_u64(), tick, inputs }
}

/// A real link's query, then changed: bytes flipped, cut, parameters
/// duplicated, dropped or swapped, ticks pushed to the limit; often re-signed.
fn link_case(g: &mut Gen) -> String {
    let mut query = real_link(g).to_query();
    for _ in 0..g.below(4) {
        let mut params: Vec<String> = query.split('&').map(str::to_string).collect();
        match g.below(8) {
            0 => {
                let i = g.below(params.len() as u64) as usize;
                params.push(params[i].clone());
            }
            1 => {
                let i = g.below(params.len() as u64) as usize;
                params.remove(i);
            }
            2 => {
                let (i, j) = (g.below(params.len() as u64) as usize, g.below(params.len() as u64) as usize);
                params.swap(i, j);
            }
            3 => params.retain(|p| !p.starts_with("t=")),
            4 => {
                params.retain(|p| !p.starts_with("t="));
                params.push(
                    g.pick(&["t=10000000", "t=10000001", "t=18446744073709551615", "t=-1", "t="]).into(),
                );
            }
            5 => {
                params.push(g.pick(&["in=0.send.1", "in=", "in=_", "in=0.", "j=", "g=1", "s=", "%zz"]).into())
            }
            _ => {}
        }
        query = params.join("&");
        let mut bytes = std::mem::take(&mut query).into_bytes();
        if !bytes.is_empty() && g.chance(50) {
            let at = g.below(bytes.len() as u64) as usize;
            match g.below(4) {
                0 => bytes[at] ^= 1 << g.below(8),
                1 => bytes.truncate(at),
                2 => bytes[at] = g.pick(b"&=._%+-0c9"),
                _ => bytes.insert(at, g.pick(b"&=._%+-0c9")),
            }
        }
        query = String::from_utf8_lossy(&bytes).into_owned();
    }
    if g.chance(60) { sign(&query) } else { query }
}

/// Reads a link; replays it when it reads and shows a tick a test can reach.
fn run_link(query: &str, g: &mut Gen) -> bool {
    let Ok(link) = Link::parse_query(query) else { return false };
    let Ok((scenario, guided)) = link.scenario.resolve() else { return false };
    let scenario = if guided { scenario.guided() } else { scenario };
    if link.tick > LINK_REPLAY_TICKS_MAX {
        return false;
    }
    let journal: Vec<JournalEntry> = link.inputs.into_iter().map(JournalEntry::from).collect();
    let Ok(mut history) = History::replay(scenario, link.seed, journal, link.tick) else { return false };
    read_all(history.sim());
    for _ in 0..3 {
        history.step();
    }
    history.seek(g.below(link.tick + 1));
    while history.poll_event().is_some() {}
    read_all(history.sim());
    true
}

fn fuzz_links(past_log_end: bool) -> (Vec<Failure>, u64) {
    let seeds: Vec<u64> = match seed_from_env() {
        Some(seed) => vec![seed],
        None => (0..cases_from_env(LINK_CASES)).map(|i| case_seed(2, i)).collect(),
    };
    let mut failures: Vec<Failure> = Vec::new();
    let mut replayed = 0;
    for &seed in &seeds {
        let mut g = Gen::new(seed, past_log_end);
        let query = link_case(&mut g);
        if seeds.len() == 1 {
            println!("link {seed:#x}: {query}");
        }
        match catch(|| run_link(&query, &mut g)) {
            Ok(ran) => replayed += u64::from(ran),
            Err(message) => {
                match failures.iter_mut().find(|f| same_panic(&f.message, &message)) {
                    Some(f) => f.repeats += 1,
                    None => failures.push(Failure { seed, message, input: query, repeats: 0 }),
                }
                if failures.len() >= FAILURES_MAX {
                    break;
                }
            }
        }
    }
    (failures, replayed)
}

#[test]
fn links_never_panic() {
    let started = Instant::now();
    let (failures, replayed) = fuzz_links(true);
    println!("{replayed} links replayed in {:?}", started.elapsed());
    assert!(failures.is_empty(), "{}", report("links_never_panic", &failures));
    if seed_from_env().is_none() && cases_from_env(LINK_CASES) == LINK_CASES {
        assert!(replayed >= LINK_CASES / 20, "too few links get past the reader: {replayed}");
    }
}

// ---------------------------------------------------------------- known panics

/// Parses `json` and runs it to its end, as `offsetlab run --scenario` does.
fn run_file(json: &str) -> Result<Sim, ScenarioError> {
    Scenario::parse(json).expect("the repro parses").run(None, None)
}

/// Known panic (a): c1 resumes from a checkpoint past the log end (booblik's
/// store read from disk), the store moves to the group, and c1's next commit
/// writes that position as the group's committed offset: `set_committed`
/// asserts `committed ≤ log end`. The input should be refused, or the
/// position clamped (Kafka resets an out-of-range fetch position).
#[test]
fn known_a_checkpoint_past_the_log_end_committed_to_the_group() {
    let repro = r#"{
      "name": "checkpoint-past-log-end",
      "config": { "partitions": 1, "consumers": 1, "commit": { "mode": "auto", "interval_ticks": 1 },
                  "position": { "store": "consumer", "writes": "atomic", "write_ticks": 0 } },
      "ticks": 20,
      "timeline": [
        { "tick": 0, "input": { "do": "stop", "consumer": "c1" } },
        { "tick": 0, "input": { "do": "load-checkpoint", "consumer": "c1", "partition": 0, "offset": 100 } },
        { "tick": 5, "input": { "do": "start", "consumer": "c1" } },
        { "tick": 10, "input": { "do": "position-store", "position": { "store": "group" } } },
        { "tick": 12, "input": { "do": "stop", "consumer": "c1" } }
      ]
    }"#;
    let outcome = catch(|| run_file(repro).map(|sim| sim.check_invariants()));
    assert!(outcome.is_ok(), "no panic: {outcome:?}");
}

/// Known panic (a) as the invariants proptest shrank it: a checkpoint one
/// past an empty partition's end, then the group store, then an auto-commit.
#[test]
fn known_a_shrunk_by_the_invariants_proptest() {
    let config = Config {
        seed: 0,
        partitions: 2,
        groups: vec![GroupConfig {
            consumers: 2,
            records_per_poll: 1,
            commit: CommitMode::Auto { interval_ticks: 1 },
            session_timeout_ticks: 1,
            shutdown_deadline_ticks: 3,
            position: PositionModel::Consumer { writes: CheckpointWrites::InPlace, write_ticks: 0 },
            ..GroupConfig::default()
        }],
        ..Config::default()
    };
    let outcome = catch(|| {
        let mut sim = Sim::new(config).expect("valid");
        let load = Input::LoadCheckpoint { consumer: ConsumerId(2), partition: 1, offset: 1 };
        sim.handle_input(load).expect("accepted");
        sim.handle_tick(1);
        sim.handle_input(Input::PositionStore { group: None, position: PositionModel::Group })
            .expect("accepted");
        sim.handle_tick(60);
        sim.check_invariants();
    });
    assert!(outcome.is_ok(), "no panic: {outcome:?}");
}

/// Known panic (c): `Sim::committed` indexes its vector without a check; a
/// partition that does not exist should read `None`, as `records`,
/// `restart_preview` and `lag_history` do.
#[test]
fn known_c_committed_of_a_partition_that_does_not_exist() {
    let sim = Sim::new(Config { partitions: 3, ..Config::default() }).expect("valid");
    assert_eq!(catch(|| sim.committed(3)), Ok(None));
    assert_eq!(catch(|| sim.committed(u32::MAX)), Ok(None));
}

/// Was panic (b), fixed in history.rs: a link may show the last tick a run
/// has, `t=10000000`; stepping from there asserted. It is refused now, and
/// `can_step` tells the page to stop its clock.
#[test]
fn known_b_stepping_at_the_tick_limit_is_refused() {
    // The cheapest simulation to replay ten million ticks of: one partition, nobody in the group.
    let scenario = json!({ "name": "idle", "config": { "partitions": 1, "consumers": 0 }, "ticks": 1 });
    let link = Link {
        scenario: LinkScenario::Inline(Box::new(Scenario::parse(&scenario.to_string()).expect("parses"))),
        seed: 1,
        tick: SCENARIO_TICKS_MAX,
        inputs: vec![],
    };
    let query = link.to_query();
    assert!(query.contains("&t=10000000"), "{query}");
    let link = Link::parse_query(&query).expect("a link at the limit reads");
    let (scenario, _) = link.scenario.resolve().expect("inline");
    let mut history = History::replay(scenario, link.seed, vec![], link.tick).expect("replays");
    assert_eq!(history.now(), SCENARIO_TICKS_MAX);
    assert!(!history.can_step());
    assert_eq!(catch(|| history.step()), Ok(false), "refused, not a panic");
    assert_eq!(history.now(), SCENARIO_TICKS_MAX, "nothing moved");
    assert!(history.handle_input(Input::Send { count: 1 }).is_ok(), "inputs still apply at the last tick");
    history.seek(0);
    assert!(history.can_step(), "in the past there is a future to step through");
    assert!(history.step());
}
