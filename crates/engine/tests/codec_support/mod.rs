//! proptest strategies for the codec tests: valid scenarios (every input
//! variant, every config shape, guides) and valid links.
#![allow(dead_code)]

use offsetlab_engine::{
    AcknowledgementMode, Assignor, CheckpointWrites, CommitMode, Condition, Config, ConsumerId, GroupConfig,
    GroupProtocol, Guide, Input, KeylessStrategy, Link, LinkScenario, Metric, Outcome, PositionModel,
    ProducerConfig, RemoteAssignor, ResetSpec, SCENARIO_TICKS_MAX, Scenario, ShareAutoOffsetReset,
    TimedInput, Topic, limits,
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

/// Every `Input` variant, with any values of the fields' types: the codec
/// checks types, the simulation checks ranges when the input is applied.
pub fn input() -> impl Strategy<Value = Input> {
    let fields = (
        any::<u32>(),
        any::<bool>(),
        any::<u8>(),
        consumer(),
        (commit(), reset(), position(), assignor()),
        (any::<u64>(), prop::collection::vec(consumer(), 0..4)),
    );
    (0usize..27, fields).prop_map(
        |(variant, (n, on, share, c, (commit, reset, position, assignor), (offset, cs)))| match variant {
            0 => Input::Send { count: n },
            1 => Input::KeepSending { per_tick: n },
            2 => Input::UseKeys { on },
            3 => Input::KeyCount { keys: n },
            4 => Input::HotKey { share_percent: share },
            5 => Input::Pause { consumer: c },
            6 => Input::Resume { consumer: c },
            7 => Input::Crash { consumer: c },
            8 => Input::Stop { consumer: c },
            9 => Input::Start { consumer: c },
            10 => Input::AddConsumer { group: None },
            11 => Input::RemoveConsumer { consumer: c },
            12 => Input::RecordsPerPoll { group: None, records: n },
            13 => Input::HandlePerTick { group: None, records: n },
            14 => Input::Commit { group: None, commit },
            15 => Input::Idempotent { group: None, on },
            16 => Input::ResetOffsets { group: None, reset },
            17 => Input::RestartFrom { group: None, reset },
            18 => Input::PositionStore { group: None, position },
            19 => Input::Peek { advancing: on },
            20 => Input::LoadCheckpoint { consumer: c, partition: n, offset },
            21 => Input::AddPartitions { count: n },
            22 => Input::KillBeforeCommit { consumer: c },
            23 => Input::RollingUpdate { group: None, consumers: cs },
            24 => Input::DuplicateInstance { consumer: c },
            25 => Input::Stall { consumer: c, ticks: offset },
            _ => Input::Assignor { group: None, assignor },
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
            },
        );
    (
        (any::<u64>(), 1..=PARTITIONS_MAX, 1..=RETENTION_RECORDS_MAX, producer),
        prop::collection::vec(group, 1..=3),
    )
        .prop_map(|((seed, partitions, retention, producer), groups)| Config {
            seed,
            partitions,
            // Partitions × retention is bounded too.
            retention_records: retention.min(RETAINED_RECORDS_MAX / u64::from(partitions)),
            producer,
            groups: groups
                .into_iter()
                .enumerate()
                .map(|(i, g)| GroupConfig {
                    name: if i == 0 { "demo".into() } else { format!("g-{i}") },
                    ..g
                })
                .collect(),
            cluster: None,
            transactions: None,
        })
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
