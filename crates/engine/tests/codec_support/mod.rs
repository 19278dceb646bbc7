//! proptest strategies for the codec tests: valid scenarios (every input
//! variant, every config shape, guides) and valid links.
#![allow(dead_code)]

use offsetlab_engine::{
    AcknowledgementMode, Acks, Assignor, AutoOffsetReset, CheckpointWrites, ClusterConfig, CommitMode,
    Condition, Config, ConsumerId, DeliverySettings, ErrorPolicy, GroupConfig, GroupProtocol, Guide, Input,
    IsolationLevel, KeylessStrategy, Link, LinkScenario, Metric, Outcome, PositionModel, ProducerConfig,
    RemoteAssignor, ResetSpec, SCENARIO_TICKS_MAX, Scenario, ShareAutoOffsetReset, TimedInput, Topic,
    TransactionsConfig, limits,
};
use proptest::prelude::*;

/// Any text, control characters, quotes, backslashes and astral characters included.
pub fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..max).prop_map(String::from_iter)
}

pub fn consumer() -> impl Strategy<Value = ConsumerId> {
    prop_oneof![1u32..5, 1u32..=u32::MAX].prop_map(ConsumerId)
}

pub fn commit() -> impl Strategy<Value = CommitMode> {
    prop_oneof![
        Just(CommitMode::After),
        Just(CommitMode::Before),
        Just(CommitMode::EachRecord),
        (1..=limits::AUTO_COMMIT_INTERVAL_TICKS_MAX)
            .prop_map(|interval_ticks| CommitMode::Auto { interval_ticks }),
    ]
}

pub fn position() -> impl Strategy<Value = PositionModel> {
    prop_oneof![
        Just(PositionModel::Group),
        (any::<bool>(), 0..=limits::CHECKPOINT_WRITE_TICKS_MAX).prop_map(|(atomic, write_ticks)| {
            PositionModel::Consumer {
                writes: if atomic { CheckpointWrites::Atomic } else { CheckpointWrites::InPlace },
                write_ticks,
            }
        }),
    ]
}

/// Every error policy, in its ranges.
pub fn error_policy() -> impl Strategy<Value = ErrorPolicy> {
    use limits::*;
    prop_oneof![
        Just(ErrorPolicy::Skip),
        (0..=RETRY_BACKOFF_TICKS_MAX).prop_map(|backoff_ticks| ErrorPolicy::RetryForever { backoff_ticks }),
        (0..=RETRIES_MAX, 0..=RETRY_BACKOFF_TICKS_MAX)
            .prop_map(|(retries, backoff_ticks)| ErrorPolicy::RetryThenDeadLetter { retries, backoff_ticks }),
        (1..=RETRY_TOPICS_MAX, 1..=RETRY_BACKOFF_TICKS_MAX)
            .prop_map(|(levels, delay_ticks)| ErrorPolicy::RetryTopics { levels, delay_ticks }),
    ]
}

pub fn assignor() -> impl Strategy<Value = Assignor> {
    prop::sample::select(vec![
        Assignor::Range,
        Assignor::RoundRobin,
        Assignor::Sticky,
        Assignor::CooperativeSticky,
    ])
}

pub fn reset() -> impl Strategy<Value = ResetSpec> {
    prop_oneof![
        Just(ResetSpec::Earliest),
        Just(ResetSpec::Latest),
        (proptest::option::of(any::<u32>()), any::<u64>())
            .prop_map(|(partition, offset)| ResetSpec::Offset { partition, offset }),
        any::<i64>().prop_map(|by| ResetSpec::ShiftBy { by }),
    ]
}

/// Every `Input` variant (each of [`Input::NAMES`] equally often), with any
/// values of the fields' types: the codec checks types, the simulation
/// checks ranges when the input is applied.
pub fn input() -> impl Strategy<Value = Input> {
    let fields = (
        any::<u32>(),
        any::<bool>(),
        any::<u8>(),
        consumer(),
        (commit(), reset(), position(), assignor()),
        (any::<u64>(), prop::collection::vec(consumer(), 0..4), error_policy()),
    );
    (prop::sample::select(Input::NAMES), fields).prop_map(
        |(name, (n, on, share, c, (commit, reset, position, assignor), (offset, cs, policy)))| match name {
            "send" => Input::Send { count: n },
            "send-poison" => Input::SendPoison {},
            "send-failing" => Input::SendFailing { failures: n, after_effect: on },
            "fix-handler" => Input::FixHandler { group: None },
            "replay-dead-letters" => Input::ReplayDeadLetters { group: None },
            "error-policy" => Input::ErrorPolicy { group: None, error_policy: policy },
            "keep-sending" => Input::KeepSending { per_tick: n },
            "use-keys" => Input::UseKeys { on },
            "key-count" => Input::KeyCount { keys: n },
            "hot-key" => Input::HotKey { share_percent: share },
            "pause" => Input::Pause { consumer: c },
            "resume" => Input::Resume { consumer: c },
            "crash" => Input::Crash { consumer: c },
            "stop" => Input::Stop { consumer: c },
            "start" => Input::Start { consumer: c },
            "add-consumer" => Input::AddConsumer { group: None },
            "remove-consumer" => Input::RemoveConsumer { consumer: c },
            "records-per-poll" => Input::RecordsPerPoll { group: None, records: n },
            "handle-per-tick" => Input::HandlePerTick { group: None, records: n },
            "commit" => Input::Commit { group: None, commit },
            "idempotent" => Input::Idempotent { group: None, on },
            "reset-offsets" => Input::ResetOffsets { group: None, reset },
            "restart-from" => Input::RestartFrom { group: None, reset },
            "position-store" => Input::PositionStore { group: None, position },
            "peek" => Input::Peek { advancing: on },
            "load-checkpoint" => Input::LoadCheckpoint { consumer: c, partition: n, offset },
            "add-partitions" => Input::AddPartitions { count: n },
            "kill-before-commit" => Input::KillBeforeCommit { consumer: c },
            "rolling-update" => Input::RollingUpdate { group: None, consumers: cs },
            "duplicate-instance" => Input::DuplicateInstance { consumer: c },
            "stall" => Input::Stall { consumer: c, ticks: offset },
            "crash-broker" => Input::CrashBroker { broker: n },
            "restart-broker" => Input::RestartBroker { broker: n },
            "lose-next-ack" => Input::LoseNextAck { partition: n },
            "lose-next-request" => Input::LoseNextRequest { partition: n },
            "slow-follower" => Input::SlowFollower { broker: n, fetch_per_tick: offset },
            "assignor" => Input::Assignor { group: None, assignor },
            other => panic!("codec_support::input makes no {other}: give it an arm"),
        },
    )
}

/// `config.cluster`, valid.
pub fn cluster() -> impl Strategy<Value = ClusterConfig> {
    use limits::*;
    (
        1..=BROKERS_MAX,
        any::<u32>(),
        any::<u32>(),
        1..=CLUSTER_TIMEOUT_TICKS_MAX,
        0..=CLUSTER_TIMEOUT_TICKS_MAX,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(brokers, rf, isr, lag, session, unclean_leader_election, eligible_leader_replicas)| {
                let replication_factor = 1 + rf % brokers;
                ClusterConfig {
                    brokers,
                    replication_factor,
                    min_insync_replicas: 1 + isr % replication_factor,
                    replica_lag_time_max_ticks: lag,
                    broker_session_timeout_ticks: session,
                    unclean_leader_election,
                    eligible_leader_replicas,
                }
            },
        )
}

/// `config.producer.delivery`, valid: idempotence only where Kafka allows it.
pub fn delivery() -> impl Strategy<Value = DeliverySettings> {
    use limits::*;
    (
        (
            prop::sample::select(Acks::ALL.to_vec()),
            proptest::option::of(any::<bool>()),
            1..=PRODUCER_MAX_IN_FLIGHT_MAX,
            0..=PRODUCER_TIMEOUT_TICKS_MAX / 2,
            1..=PRODUCER_BATCH_RECORDS_MAX,
            any::<u32>(),
        ),
        (
            1..=CLUSTER_TIMEOUT_TICKS_MAX,
            proptest::option::of(1..=PRODUCER_TIMEOUT_TICKS_MAX),
            0..=PRODUCER_TIMEOUT_TICKS_MAX,
            0..=PRODUCER_TIMEOUT_TICKS_MAX,
            1..=PRODUCER_BUFFER_RECORDS_MAX,
        ),
    )
        .prop_map(
            |(
                (acks, idempotence, in_flight, linger_ticks, batch_records, retries),
                (
                    request_timeout_ticks,
                    delivery_timeout,
                    retry_backoff_ticks,
                    retry_backoff_max_ticks,
                    buffer_records,
                ),
            )| {
                let enable_idempotence = idempotence.filter(|&on| !on || (retries > 0 && acks == Acks::All));
                // More than 5 requests in flight only with idempotence set off.
                let max_in_flight =
                    if enable_idempotence == Some(false) { in_flight } else { 1 + (in_flight - 1) % 5 };
                DeliverySettings {
                    acks,
                    enable_idempotence,
                    max_in_flight,
                    linger_ticks,
                    batch_records,
                    retries,
                    request_timeout_ticks,
                    // At least linger + request timeout (at most 6,000,000 here).
                    delivery_timeout_ticks: delivery_timeout
                        .map(|t| t.max(linger_ticks + request_timeout_ticks)),
                    retry_backoff_ticks,
                    retry_backoff_max_ticks,
                    buffer_records,
                }
            },
        )
}

/// `config.transactions`, valid for a group that commits after each batch.
pub fn transactions() -> impl Strategy<Value = TransactionsConfig> {
    use limits::*;
    (1..=TRANSACTION_TIMEOUT_TICKS_MAX, any::<bool>(), 1..=DOWNSTREAM_PER_TICK_MAX, any::<bool>()).prop_map(
        |(transaction_timeout_ticks, committed, downstream_per_tick, named)| TransactionsConfig {
            group: named.then(|| "demo".to_string()),
            transaction_timeout_ticks,
            isolation_level: if committed {
                IsolationLevel::ReadCommitted
            } else {
                IsolationLevel::ReadUncommitted
            },
            downstream_per_tick,
        },
    )
}

/// A config that passes `Config::validate`.
pub fn config() -> impl Strategy<Value = Config> {
    use limits::*;
    let producer = (
        any::<bool>(),
        1..=KEYS_MAX,
        0u8..=100,
        0..=SEND_RATE_MAX,
        prop_oneof![
            (1..=STICKY_BATCH_RECORDS_MAX)
                .prop_map(|batch_records| KeylessStrategy::Sticky { batch_records }),
            Just(KeylessStrategy::RoundRobin),
        ],
    )
        .prop_map(|(use_keys, key_count, hot_key_share_percent, send_per_tick, keyless)| {
            ProducerConfig {
                use_keys,
                key_count,
                hot_key_share_percent,
                send_per_tick,
                keyless,
                delivery: None,
            }
        });
    let group = (
        (0..=CONSUMERS_MAX, 1..=RECORDS_PER_POLL_MAX, 1..=HANDLE_PER_TICK_MAX, commit(), any::<bool>()),
        (1..=SESSION_TIMEOUT_TICKS_MAX, 0..=SESSION_TIMEOUT_TICKS_MAX, assignor(), position(), any::<bool>()),
        (
            prop_oneof![
                Just(GroupProtocol::Classic),
                Just(GroupProtocol::Consumer),
                Just(GroupProtocol::Share)
            ],
            prop_oneof![Just(RemoteAssignor::Uniform), Just(RemoteAssignor::Range)],
            any::<bool>(),
            1..=SESSION_TIMEOUT_TICKS_MAX,
            1..=SESSION_TIMEOUT_TICKS_MAX,
        ),
        (
            1..=SESSION_TIMEOUT_TICKS_MAX,
            2u8..=10,
            100u32..=4000,
            prop_oneof![Just(ShareAutoOffsetReset::Latest), Just(ShareAutoOffsetReset::Earliest)],
            prop_oneof![Just(AcknowledgementMode::Implicit), Just(AcknowledgementMode::Explicit)],
            prop_oneof![
                Just(AutoOffsetReset::Earliest),
                Just(AutoOffsetReset::Latest),
                Just(AutoOffsetReset::None),
                (0..=1_000u64).prop_map(AutoOffsetReset::ByDuration),
            ],
            0..=SESSION_TIMEOUT_TICKS_MAX,
            prop::option::of(1..=SCENARIO_TICKS_MAX),
            prop::option::of(1..=SCENARIO_TICKS_MAX),
        ),
    )
        .prop_map(
            |(
                (consumers, records_per_poll, handle_per_tick, commit, idempotent),
                (session_timeout_ticks, shutdown_deadline_ticks, assignor, position, bridge),
                (protocol, remote_assignor, static_members, heartbeat, max_poll_interval_ticks),
                (
                    lock_duration_ticks,
                    delivery_count_limit,
                    max_record_locks,
                    share_auto_offset_reset,
                    acknowledgement_mode,
                    auto_offset_reset,
                    initial_rebalance_delay_ticks,
                    offsets_retention_ticks,
                    metadata_max_age_ticks,
                ),
            )| GroupConfig {
                name: String::new(),
                consumers,
                records_per_poll,
                handle_per_tick,
                commit,
                idempotent,
                session_timeout_ticks,
                shutdown_deadline_ticks,
                assignor,
                // A share group has neither consumer-side positions nor static members.
                position: if protocol == GroupProtocol::Share { PositionModel::Group } else { position },
                bridge,
                protocol,
                remote_assignor,
                static_members: static_members && protocol != GroupProtocol::Share,
                heartbeat_interval_ticks: heartbeat.min(session_timeout_ticks),
                max_poll_interval_ticks,
                lock_duration_ticks,
                delivery_count_limit,
                max_record_locks,
                share_auto_offset_reset,
                acknowledgement_mode,
                auto_offset_reset,
                initial_rebalance_delay_ticks,
                offsets_retention_ticks,
                metadata_max_age_ticks,
                error_policy: ErrorPolicy::Skip,
                dead_letter_topic: None,
                dead_letter_copy_record: false,
            },
        );
    // Issue 40's policy, in its ranges (a share group keeps the default), and
    // a share group's dead-letter topic (KIP-1191), named as Kafka allows.
    let dead_letter_topic =
        proptest::option::of(proptest::string::string_regex("dlq\\.[A-Za-z0-9._-]{1,30}").expect("a regex"));
    let group =
        (group, error_policy(), dead_letter_topic, any::<bool>()).prop_map(|(mut g, policy, dlq, copy)| {
            if g.protocol == GroupProtocol::Share {
                g.dead_letter_copy_record = copy && dlq.is_some();
                g.dead_letter_topic = dlq;
            } else {
                g.error_policy = policy;
            }
            g
        });
    (
        (any::<u64>(), 1..=PARTITIONS_MAX, 1..=RETENTION_RECORDS_MAX, producer),
        prop::collection::vec(group, 1..=3),
        (
            proptest::option::of(cluster()),
            proptest::option::of(delivery()),
            proptest::option::of(transactions()),
        ),
    )
        .prop_map(
            |((seed, partitions, retention, producer), groups, (cluster, delivery, transactions))| {
                let mut groups: Vec<GroupConfig> = groups
                    .into_iter()
                    .enumerate()
                    .map(|(i, g)| GroupConfig {
                        name: if i == 0 { "demo".into() } else { format!("g-{i}") },
                        ..g
                    })
                    .collect();
                if cluster.is_some() {
                    // Share groups run on the single-broker model.
                    for g in groups.iter_mut().filter(|g| g.protocol == GroupProtocol::Share) {
                        g.protocol = GroupProtocol::Consumer;
                    }
                }
                if transactions.is_some() {
                    // The transactional group commits after each batch, in the group's offsets.
                    let g = &mut groups[0];
                    g.commit = CommitMode::After;
                    g.position = PositionModel::Group;
                    g.bridge = false;
                    if g.protocol == GroupProtocol::Share {
                        g.protocol = GroupProtocol::Classic;
                    }
                }
                // A group no longer a share group has no dead-letter topic of KIP-1191's.
                for g in groups.iter_mut().filter(|g| g.protocol != GroupProtocol::Share) {
                    g.dead_letter_topic = None;
                    g.dead_letter_copy_record = false;
                }
                Config {
                    seed,
                    partitions,
                    // Partitions × retention is bounded too.
                    retention_records: retention.min(RETAINED_RECORDS_MAX / u64::from(partitions)),
                    producer: ProducerConfig { delivery, ..producer },
                    groups,
                    cluster,
                    transactions,
                }
            },
        )
}

pub fn metric() -> impl Strategy<Value = Metric> {
    prop::sample::select(Metric::ALL.to_vec())
}

/// A guide that passes `Guide::validate`.
pub fn guide() -> impl Strategy<Value = Guide> {
    let condition = (metric(), proptest::option::of(any::<u64>()), proptest::option::of(any::<u64>()));
    (
        prop::sample::select(Topic::ALL.to_vec()),
        text(12).prop_map(|s| format!("s{s}")),
        prop::collection::vec(text(12), 0..=offsetlab_engine::GUIDE_STEPS_MAX),
        (metric(), 1..=u64::MAX, proptest::option::of(any::<u64>())),
        prop::collection::vec(condition, 0..offsetlab_engine::OUTCOME_CONDITIONS_MAX),
        // Braces only around placeholders, which validation checks ({n}, {one|many}).
        text(12).prop_map(|s| format!("{{n}}{}", s.replace(['{', '}'], ""))),
    )
        .prop_map(|(topic, story, steps, (metric, at_least, at_most), rest, says)| {
            let mut when = vec![Condition { metric, group: None, at_least: Some(at_least), at_most }];
            when.extend(rest.into_iter().map(|(metric, at_least, at_most)| Condition {
                group: None,
                metric,
                at_least,
                // Each condition has a bound.
                at_most: if at_least.is_none() && at_most.is_none() { Some(0) } else { at_most },
            }));
            Guide { topic, story, steps, outcome: Outcome { when, says } }
        })
}

/// A scenario that passes `Scenario::validate`: inputs of every kind at
/// non-decreasing ticks before the end, learner inputs only with guide steps.
pub fn scenario(inputs_max: usize) -> impl Strategy<Value = Scenario> {
    (
        (text(16), text(24), text(24)),
        config(),
        prop_oneof![1u64..200, 1..=SCENARIO_TICKS_MAX],
        prop::collection::vec((any::<u64>(), input(), any::<bool>()), 0..inputs_max),
        proptest::option::of(guide()),
    )
        .prop_map(|((name, summary, watch), config, ticks, inputs, guide)| {
            let learners = guide.as_ref().is_some_and(|g| !g.steps.is_empty());
            let mut ticks_of: Vec<u64> = inputs.iter().map(|(t, _, _)| t % ticks).collect();
            ticks_of.sort_unstable();
            let timeline = ticks_of
                .into_iter()
                .zip(inputs)
                .map(|(tick, (_, input, learner))| TimedInput { tick, input, learner: learner && learners })
                .collect();
            Scenario { name, summary, watch, config, ticks, timeline, guide }
        })
}

pub fn builtin_name() -> impl Strategy<Value = String> {
    prop::sample::select(
        offsetlab_engine::BUILTINS.iter().map(|(name, _)| name.to_string()).collect::<Vec<_>>(),
    )
}

/// A link that reads back: a built-in or a small inline scenario, inputs in
/// tick order at or before its tick.
pub fn link() -> impl Strategy<Value = Link> {
    let scenario = prop_oneof![
        3 => (builtin_name(), any::<bool>()).prop_map(|(name, guided)| LinkScenario::Builtin { name, guided }),
        1 => scenario(6).prop_map(|s| LinkScenario::Inline(Box::new(s))),
    ];
    (
        scenario,
        any::<u64>(),
        prop_oneof![0u64..500, 0..=SCENARIO_TICKS_MAX],
        prop::collection::vec((any::<u64>(), input()), 0..12),
    )
        .prop_map(|(scenario, seed, tick, inputs)| {
            let mut ticks: Vec<u64> = inputs.iter().map(|(t, _)| t % (tick + 1)).collect();
            ticks.sort_unstable();
            let inputs = ticks.into_iter().zip(inputs).map(|(t, (_, input))| (t, input)).collect();
            Link { scenario, seed, tick, inputs }
        })
}
