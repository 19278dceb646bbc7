//! Property tests: thousands of random input sequences, every invariant checked after every step.
#![cfg(not(target_arch = "wasm32"))]

use offsetlab_engine::{
    Acks, CheckpointWrites, ClusterConfig, CommitMode, Config, ConsumerId, DeliverySettings, Event, Input,
    KeylessStrategy, PositionModel, ProducerConfig, ResetSpec, Sim, limits,
};
use offsetlab_engine::{Anomaly, GroupConfig};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn commit_mode() -> impl Strategy<Value = CommitMode> {
    prop_oneof![
        Just(CommitMode::After),
        Just(CommitMode::Before),
        Just(CommitMode::EachRecord),
        (1u64..6).prop_map(|interval_ticks| CommitMode::Auto { interval_ticks }),
    ]
}

/// A commit mode an input asks for: intervals at and past their limits too (refused).
fn any_commit_mode() -> impl Strategy<Value = CommitMode> {
    prop_oneof![
        4 => commit_mode(),
        1 => prop::sample::select(vec![0, limits::AUTO_COMMIT_INTERVAL_TICKS_MAX, u64::MAX])
            .prop_map(|interval_ticks| CommitMode::Auto { interval_ticks }),
    ]
}

/// A position store an input asks for: write times at and past their limit too.
fn any_position() -> impl Strategy<Value = PositionModel> {
    prop_oneof![
        4 => position(),
        1 => (any::<bool>(), prop::sample::select(vec![limits::CHECKPOINT_WRITE_TICKS_MAX, limits::CHECKPOINT_WRITE_TICKS_MAX + 1, u64::MAX]))
            .prop_map(|(atomic, write_ticks)| PositionModel::Consumer {
                writes: if atomic { CheckpointWrites::Atomic } else { CheckpointWrites::InPlace },
                write_ticks,
            }),
    ]
}

fn position() -> impl Strategy<Value = PositionModel> {
    prop_oneof![
        2 => Just(PositionModel::Group),
        1 => (any::<bool>(), 0u64..3).prop_map(|(atomic, write_ticks)| PositionModel::Consumer {
            writes: if atomic { CheckpointWrites::Atomic } else { CheckpointWrites::InPlace },
            write_ticks,
        }),
    ]
}

fn reset() -> impl Strategy<Value = ResetSpec> {
    prop_oneof![
        Just(ResetSpec::Earliest),
        Just(ResetSpec::Latest),
        (proptest::option::of(prop_oneof![4 => 0u32..6, 1 => Just(u32::MAX)]), offset())
            .prop_map(|(partition, offset)| ResetSpec::Offset { partition, offset }),
        prop_oneof![4 => -10i64..10, 1 => prop::sample::select(vec![i64::MIN, i64::MIN + 1, i64::MAX])]
            .prop_map(|by| ResetSpec::ShiftBy { by }),
    ]
}

/// An offset: mostly within a small log, sometimes far past any log end.
fn offset() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 0u64..40, 1 => prop::sample::select(vec![1_000_000, u64::MAX - 1, u64::MAX])]
}

/// A value for a field bounded by `min..=max`: mostly small, sometimes the
/// bounds, one past them (refused) or the type's largest.
fn bounded(min: u32, small: u32, max: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => min..=small,
        1 => prop::sample::select(vec![min, max, max.saturating_add(1), u32::MAX, min.saturating_sub(1)]),
    ]
}

/// A config: one group of any protocol, and in a share of the cases brokers
/// and the producer's delivery path (what the broker and fault inputs need).
fn config() -> impl Strategy<Value = Config> {
    (single_broker_config(), brokers()).prop_map(|(mut config, (cluster, delivery))| {
        // Share groups run on the single-broker model (config validation).
        if config.groups[0].protocol != offsetlab_engine::GroupProtocol::Share {
            config.cluster = cluster;
        }
        config.producer.delivery = delivery;
        config
    })
}

/// `config.cluster` and `config.producer.delivery`: neither in half the
/// cases, else a cluster, a delivery path or both, small and quick to react
/// (short lag and session timeouts, few retries) so that faults play out.
fn brokers() -> impl Strategy<Value = (Option<ClusterConfig>, Option<DeliverySettings>)> {
    let cluster = (1u32..=3, 1u32..=3, 1u32..=3, 1u64..10, 0u64..6, any::<bool>(), any::<bool>()).prop_map(
        |(brokers, replication_factor, min_insync_replicas, lag, session, unclean, elr)| {
            let replication_factor = replication_factor.min(brokers);
            ClusterConfig {
                brokers,
                replication_factor,
                min_insync_replicas: min_insync_replicas.min(replication_factor),
                replica_lag_time_max_ticks: lag,
                broker_session_timeout_ticks: session,
                unclean_leader_election: unclean,
                eligible_leader_replicas: elr,
            }
        },
    );
    let delivery = (
        0usize..3,
        proptest::option::of(any::<bool>()),
        1u32..=5,
        0u64..3,
        1u32..6,
        prop_oneof![Just(0u32), 1u32..3, Just(i32::MAX as u32)],
        1u64..10,
    )
        .prop_map(
            |(
                acks,
                idempotence,
                max_in_flight,
                linger_ticks,
                batch_records,
                retries,
                request_timeout_ticks,
            )| {
                let acks = Acks::ALL[acks];
                // Kafka refuses idempotence set on with retries 0 or acks other than all.
                let enable_idempotence = idempotence.filter(|&on| !on || (retries > 0 && acks == Acks::All));
                DeliverySettings {
                    acks,
                    enable_idempotence,
                    max_in_flight,
                    linger_ticks,
                    batch_records,
                    retries,
                    request_timeout_ticks,
                    ..DeliverySettings::default()
                }
            },
        );
    prop_oneof![
        3 => Just((None, None)),
        1 => (cluster.clone(), delivery.clone()).prop_map(|(c, d)| (Some(c), Some(d))),
        1 => cluster.prop_map(|c| (Some(c), None)),
        1 => delivery.prop_map(|d| (None, Some(d))),
    ]
}

/// A config without brokers or a delivery path.
fn single_broker_config() -> impl Strategy<Value = Config> {
    (
        any::<u64>(),
        1u32..7,
        0u32..6,
        1u32..6,
        1u32..3,
        commit_mode(),
        any::<bool>(),
        1u64..8,
        prop_oneof![Just(10_000u64), 3u64..40],
        (any::<bool>(), 1u32..8, prop_oneof![Just(0u8), 0u8..90], any::<bool>(), 1u32..5),
        (position(), any::<bool>(), 0u8..8),
    )
        .prop_map(
            |(
                seed,
                partitions,
                consumers,
                records_per_poll,
                handle_per_tick,
                commit,
                idempotent,
                session_timeout_ticks,
                retention_records,
                (use_keys, key_count, hot, round_robin, batch),
                (position, bridge, assignor),
            )| Config {
                seed,
                partitions,
                retention_records,
                groups: vec![GroupConfig {
                    name: "demo".into(),
                    consumers,
                    records_per_poll,
                    handle_per_tick,
                    commit,
                    idempotent,
                    session_timeout_ticks,
                    shutdown_deadline_ticks: 3,
                    // 7 is a share group, whose progress lives on the broker.
                    position: if assignor == 7 { PositionModel::Group } else { position },
                    bridge,
                    assignor: [
                        offsetlab_engine::Assignor::Range,
                        offsetlab_engine::Assignor::RoundRobin,
                        offsetlab_engine::Assignor::Sticky,
                        offsetlab_engine::Assignor::CooperativeSticky,
                    ][usize::from(assignor % 4)],
                    // 4 to 6: Kafka 4's consumer protocol, with either server-side assignor.
                    protocol: match assignor {
                        7 => offsetlab_engine::GroupProtocol::Share,
                        4..=6 => offsetlab_engine::GroupProtocol::Consumer,
                        _ => offsetlab_engine::GroupProtocol::Classic,
                    },
                    remote_assignor: if assignor == 5 {
                        offsetlab_engine::RemoteAssignor::Range
                    } else {
                        offsetlab_engine::RemoteAssignor::Uniform
                    },
                    static_members: seed % 3 == 0 && assignor != 7,
                    heartbeat_interval_ticks: 1 + seed % session_timeout_ticks.min(4),
                    max_poll_interval_ticks: 20,
                    // Short locks and limits, so that expiry and archiving happen.
                    lock_duration_ticks: 2 + seed % 9,
                    delivery_count_limit: 2 + (seed % 4) as u8,
                    max_record_locks: 100,
                    share_auto_offset_reset: if seed % 2 == 0 {
                        offsetlab_engine::ShareAutoOffsetReset::Earliest
                    } else {
                        offsetlab_engine::ShareAutoOffsetReset::Latest
                    },
                    acknowledgement_mode: if seed % 5 < 2 {
                        offsetlab_engine::AcknowledgementMode::Explicit
                    } else {
                        offsetlab_engine::AcknowledgementMode::Implicit
                    },
                    auto_offset_reset: match seed % 7 {
                        0 => offsetlab_engine::AutoOffsetReset::Latest,
                        1 => offsetlab_engine::AutoOffsetReset::None,
                        2 => offsetlab_engine::AutoOffsetReset::ByDuration(seed % 20),
                        _ => offsetlab_engine::AutoOffsetReset::Earliest,
                    },
                    initial_rebalance_delay_ticks: seed % 4,
                    offsets_retention_ticks: (seed % 3 == 0).then_some(1 + seed % 9),
                    metadata_max_age_ticks: (seed % 4 == 1).then_some(1 + seed % 13),
                    // Issue 40: each policy, with short retries, delays and poll timers.
                    error_policy: match seed % 9 {
                        _ if assignor == 7 => offsetlab_engine::ErrorPolicy::Skip,
                        1 => offsetlab_engine::ErrorPolicy::RetryForever { backoff_ticks: seed % 3 },
                        2 | 3 => offsetlab_engine::ErrorPolicy::RetryThenDeadLetter {
                            retries: (seed % 3) as u32,
                            backoff_ticks: seed % 2,
                        },
                        4 | 5 => offsetlab_engine::ErrorPolicy::RetryTopics {
                            levels: 1 + (seed % 2) as u32,
                            delay_ticks: 1 + seed % 4,
                        },
                        _ => offsetlab_engine::ErrorPolicy::Skip,
                    },
                    // KIP-1191: half the share groups have a dead-letter topic, some copying records.
                    dead_letter_topic: (assignor == 7 && seed % 2 == 0).then(|| "dlq.orders".to_string()),
                    dead_letter_copy_record: assignor == 7 && seed % 4 == 0,
                }],
                producer: ProducerConfig {
                    use_keys,
                    key_count,
                    hot_key_share_percent: hot,
                    send_per_tick: 0,
                    keyless: if round_robin {
                        KeylessStrategy::RoundRobin
                    } else {
                        KeylessStrategy::Sticky { batch_records: batch }
                    },
                    delivery: None,
                },
                cluster: None,
                // Exactly-once into payouts, where the group can commit in transactions.
                transactions: (seed % 4 == 1
                    && commit == offsetlab_engine::CommitMode::After
                    && position == PositionModel::Group
                    && !bridge
                    && assignor != 7)
                    .then(|| offsetlab_engine::TransactionsConfig {
                        transaction_timeout_ticks: 5 + seed % 20,
                        isolation_level: if seed % 8 == 1 {
                            offsetlab_engine::IsolationLevel::ReadUncommitted
                        } else {
                            offsetlab_engine::IsolationLevel::ReadCommitted
                        },
                        ..offsetlab_engine::TransactionsConfig::default()
                    }),
            },
        )
}

/// An error policy, in its ranges and one past each edge (refused).
fn error_policy() -> impl Strategy<Value = offsetlab_engine::ErrorPolicy> {
    use offsetlab_engine::ErrorPolicy;
    prop_oneof![
        Just(ErrorPolicy::Skip),
        prop_oneof![4 => 0u64..4, 1 => Just(limits::RETRY_BACKOFF_TICKS_MAX + 1)]
            .prop_map(|backoff_ticks| ErrorPolicy::RetryForever { backoff_ticks }),
        (prop_oneof![4 => 0u32..4, 1 => Just(limits::RETRIES_MAX + 1)], 0u64..3)
            .prop_map(|(retries, backoff_ticks)| ErrorPolicy::RetryThenDeadLetter { retries, backoff_ticks }),
        (prop_oneof![4 => 1u32..=3, 1 => Just(0), 1 => Just(limits::RETRY_TOPICS_MAX + 1)], 1u64..4)
            .prop_map(|(levels, delay_ticks)| ErrorPolicy::RetryTopics { levels, delay_ticks }),
    ]
}

/// Every `Input` variant (each is named below; see `every_variant_is_generated`),
/// with values at and past their limits. Record counts stay small past the
/// limits' edges: a send of 100,000 is refused only above it, and at it would
/// make each case slow without reaching new code.
fn input() -> impl Strategy<Value = Input> {
    input_with(false)
}

/// [`input`], and with `past_log_end` checkpoints loaded far past any log end
/// too. Without it a loaded checkpoint is offset 0, never past the log end:
/// past it, sim.rs panics (`set_committed`, known panic (a) in fuzz.rs) once
/// the store moves to the group and the consumer commits. Until sim.rs's
/// redesign fixes that, only the ignored test below takes that route.
fn input_with(past_log_end: bool) -> impl Strategy<Value = Input> {
    let checkpoint_offset = if past_log_end { offset().boxed() } else { Just(0).boxed() };
    // Names that exist and some that do not (u32::MAX never does).
    let consumer = prop_oneof![8 => 1u32..6, 1 => Just(u32::MAX)].prop_map(ConsumerId);
    prop_oneof![
        4 => prop_oneof![6 => 1u32..12, 1 => prop::sample::select(vec![0, limits::SEND_COUNT_MAX + 1, u32::MAX])]
            .prop_map(|count| Input::Send { count }),
        1 => prop_oneof![6 => 0u32..4, 1 => prop::sample::select(vec![limits::SEND_RATE_MAX + 1, u32::MAX])]
            .prop_map(|per_tick| Input::KeepSending { per_tick }),
        1 => Just(Input::SendPoison {}),
        1 => (prop_oneof![4 => 1u32..4, 1 => prop::sample::select(vec![0, limits::FAILING_ATTEMPTS_MAX + 1])], any::<bool>())
            .prop_map(|(failures, after_effect)| Input::SendFailing { failures, after_effect }),
        1 => Just(Input::FixHandler { group: None }),
        1 => Just(Input::ReplayDeadLetters { group: None }),
        1 => error_policy().prop_map(|error_policy| Input::ErrorPolicy { group: None, error_policy }),
        1 => any::<bool>().prop_map(|on| Input::UseKeys { on }),
        1 => bounded(1, 8, limits::KEYS_MAX).prop_map(|keys| Input::KeyCount { keys }),
        1 => prop_oneof![4 => 0u8..=100, 1 => Just(u8::MAX), 1 => Just(101)]
            .prop_map(|share_percent| Input::HotKey { share_percent }),
        2 => consumer.clone().prop_map(|consumer| Input::Pause { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Resume { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Crash { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Stop { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Start { consumer }),
        1 => Just(Input::AddConsumer { group: None }),
        1 => consumer.clone().prop_map(|consumer| Input::RemoveConsumer { consumer }),
        1 => consumer.clone().prop_map(|consumer| Input::DuplicateInstance { consumer }),
        1 => (consumer.clone(), prop_oneof![4 => 1u64..40, 1 => Just(0), 1 => Just(limits::STALL_TICKS_MAX + 1)])
            .prop_map(|(consumer, ticks)| Input::Stall { consumer, ticks }),
        1 => bounded(1, 6, limits::RECORDS_PER_POLL_MAX).prop_map(|records| Input::RecordsPerPoll { group: None, records }),
        1 => bounded(1, 4, limits::HANDLE_PER_TICK_MAX).prop_map(|records| Input::HandlePerTick { group: None, records }),
        1 => any_commit_mode().prop_map(|commit| Input::Commit { group: None, commit }),
        1 => any::<bool>().prop_map(|on| Input::Idempotent { group: None, on }),
        1 => reset().prop_map(|reset| Input::ResetOffsets { group: None, reset }),
        1 => reset().prop_map(|reset| Input::RestartFrom { group: None, reset }),
        1 => any_position().prop_map(|position| Input::PositionStore { group: None, position }),
        1 => any::<bool>().prop_map(|advancing| Input::Peek { advancing }),
        1 => bounded(1, 2, limits::PARTITIONS_MAX).prop_map(|count| Input::AddPartitions { count }),
        1 => consumer.clone().prop_map(|consumer| Input::KillBeforeCommit { consumer }),
        1 => (consumer.clone(), prop_oneof![4 => 0u32..6, 1 => Just(u32::MAX)], checkpoint_offset)
            .prop_map(|(consumer, partition, offset)| Input::LoadCheckpoint { consumer, partition, offset }),
        1 => prop::collection::vec(consumer.clone(), 0..4).prop_map(|consumers| Input::RollingUpdate { group: None, consumers }),
        // Brokers and produce faults: refused without config.cluster or config.producer.delivery.
        1 => broker().prop_map(|broker| Input::CrashBroker { broker }),
        1 => broker().prop_map(|broker| Input::RestartBroker { broker }),
        1 => prop_oneof![6 => 0u32..6, 1 => Just(u32::MAX)].prop_map(|partition| Input::LoseNextAck { partition }),
        1 => prop_oneof![6 => 0u32..6, 1 => Just(u32::MAX)].prop_map(|partition| Input::LoseNextRequest { partition }),
        1 => (broker(), prop_oneof![4 => 0u64..4, 1 => Just(limits::APPEND_RECORDS_MAX + 1)])
            .prop_map(|(broker, fetch_per_tick)| Input::SlowFollower { broker, fetch_per_tick }),
        1 => (0usize..4).prop_map(|i| Input::Assignor {
            group: None,
            assignor: [
                offsetlab_engine::Assignor::Range,
                offsetlab_engine::Assignor::RoundRobin,
                offsetlab_engine::Assignor::Sticky,
                offsetlab_engine::Assignor::CooperativeSticky,
            ][i],
        }),
    ]
}

/// A broker id: those of a cluster of up to 3 and one past, or none that can exist.
fn broker() -> impl Strategy<Value = u32> {
    prop_oneof![8 => 1u32..=4, 1 => Just(0), 1 => Just(u32::MAX)]
}

/// Share groups have no committed offsets or consumer-side positions.
/// A record the handler fails on. Under the `skip` policy the application
/// commits past it: never processed by design (`skipped_by_handler`), so the
/// properties that nothing is lost but to retention cannot hold with it and
/// leave these inputs out. Every other policy retries the record in place or
/// parks it on a retry topic or orders.DLT, which loses nothing: with them the
/// inputs stay in.
fn failing(input: &Input) -> bool {
    matches!(input, Input::SendPoison {} | Input::SendFailing { .. })
}

/// The group as a classic group if it is a share group, without the share
/// group's dead-letter topic (KIP-1191), which a classic group refuses.
fn classic_if_share(group: &mut GroupConfig) {
    if group.protocol == offsetlab_engine::GroupProtocol::Share {
        group.protocol = offsetlab_engine::GroupProtocol::Classic;
        group.dead_letter_topic = None;
        group.dead_letter_copy_record = false;
    }
}

/// Runs the sequence, checking invariants after every input and tick.
fn run(config: &Config, steps: &[(u8, Input)]) -> Sim {
    run_seeing(config, steps, |_| {})
}

/// [`run`], showing `seen` every event as it comes.
fn run_seeing(config: &Config, steps: &[(u8, Input)], mut seen: impl FnMut(&Event)) -> Sim {
    let mut sim = Sim::new(config.clone()).expect("valid");
    let mut next_offset: BTreeMap<u32, u64> = BTreeMap::new();
    let mut keyed_home: BTreeMap<u32, u32> = BTreeMap::new();
    let mut generation_owner: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
    let mut drain = |sim: &mut Sim| {
        while let Some(event) = sim.poll_event() {
            seen(&event);
            match event {
                Event::Produced { partition, offset, subject, keyed, .. } => {
                    let expected = next_offset.entry(partition).or_insert(0);
                    assert_eq!(offset, *expected, "offsets in partition {partition} increase by one");
                    *expected += 1;
                    if keyed {
                        let home = *keyed_home.entry(subject).or_insert(partition);
                        assert_eq!(home, partition, "user-{subject} stays on one partition");
                    }
                }
                // A keyed record's partition is fixed only while the partition count is.
                Event::PartitionsAdded { .. } => keyed_home.clear(),
                // A new leader's shorter log: the offsets past its end are written again.
                #[cfg(feature = "cluster")]
                Event::LeaderElected(elected) => {
                    if let Some(end) = elected.truncated_to {
                        let expected = next_offset.entry(elected.partition).or_insert(0);
                        *expected = (*expected).min(end);
                    }
                }
                // A deleted group starts its generations again.
                Event::GroupDeleted { group, .. } => generation_owner.retain(|&(g, _), _| g != group),
                Event::RebalanceCompleted { group, generation, assignment, .. } => {
                    let mut owned: Vec<u32> = assignment.iter().flat_map(|(_, p)| p.clone()).collect();
                    owned.sort_unstable();
                    let before = owned.len();
                    owned.dedup();
                    assert_eq!(before, owned.len(), "one owner per partition in generation {generation}");
                    assert!(
                        generation_owner.insert((group, generation), owned).is_none(),
                        "generations are new"
                    );
                }
                _ => {}
            }
        }
    };
    for (ticks, input) in steps {
        let _ = sim.handle_input(input.clone());
        sim.check_invariants();
        drain(&mut sim);
        sim.handle_tick(sim.now() + u64::from(*ticks));
        sim.check_invariants();
        drain(&mut sim);
    }
    // Let everything settle: resume the paused, run until quiet.
    sim.handle_tick(sim.now() + 50);
    sim.check_invariants();
    drain(&mut sim);
    sim
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_for_any_inputs(config in config(), steps in prop::collection::vec((0u8..5, input()), 0..40)) {
        run(&config, &steps);
    }

    #[test]
    fn invariants_hold_for_any_inputs_and_checkpoints_past_the_log_end(
        config in config(),
        steps in prop::collection::vec((0u8..5, input_with(true)), 0..40),
    ) {
        run(&config, &steps);
    }

    #[test]
    fn commit_after_loses_nothing_but_to_retention(
        config in config(),
        steps in prop::collection::vec((0u8..5, input()), 0..40),
    ) {
        let mut config = config;
        config.groups[0].commit = CommitMode::After;
        // A share group archives what it delivered too often: not this property's.
        classic_if_share(&mut config.groups[0]);
        // Nor is a reset that starts past records (latest, by_duration), as the
        // reset inputs are not: skipped_by_reset counts those.
        config.groups[0].auto_offset_reset = offsetlab_engine::AutoOffsetReset::Earliest;
        let skips = config.groups[0].error_policy == offsetlab_engine::ErrorPolicy::Skip;
        let steps: Vec<_> = steps
            .into_iter()
            .filter(|(_, i)| !matches!(i, Input::Commit { .. } | Input::ResetOffsets { .. } | Input::RestartFrom { .. } | Input::ErrorPolicy { .. }))
            .filter(|(_, i)| !(skips && failing(i)))
            .collect();
        let sim = run(&config, &steps);
        let m = sim.metrics();
        prop_assert_eq!(m.never_processed, m.lost_to_retention, "{:?}", m);
    }

    #[test]
    fn consumer_stores_lose_nothing_but_to_retention(
        config in config(),
        writes_atomic in any::<bool>(),
        steps in prop::collection::vec((0u8..5, input()), 0..40),
    ) {
        let writes = if writes_atomic { CheckpointWrites::Atomic } else { CheckpointWrites::InPlace };
        let mut config = config;
        config.groups[0].position = PositionModel::Consumer { writes, write_ticks: 1 };
        config.transactions = None;
        classic_if_share(&mut config.groups[0]);
        let skips = config.groups[0].error_policy == offsetlab_engine::ErrorPolicy::Skip;
        let steps: Vec<_> = steps
            .into_iter()
            .filter(|(_, i)| !matches!(i, Input::PositionStore { .. } | Input::ResetOffsets { .. } | Input::RestartFrom { .. } | Input::ErrorPolicy { .. }))
            .filter(|(_, i)| !(skips && failing(i)))
            .collect();
        let sim = run(&config, &steps);
        let m = sim.metrics();
        prop_assert_eq!(m.never_processed, m.lost_to_retention, "{:?}", m);
        if writes_atomic {
            prop_assert_eq!(m.torn_checkpoints, 0);
        }
        // The split check's findings are about what happened, never a panic.
        let check = sim.split_check();
        prop_assert_eq!(check.partitions.len(), sim.view().partitions.len());
    }

    #[test]
    fn idempotence_makes_effects_equal_distinct_records(
        config in config(),
        steps in prop::collection::vec((0u8..5, input()), 0..40),
    ) {
        let mut config = config;
        config.groups[0].idempotent = true;
        // An effect made by an attempt that then failed is no handled delivery's.
        let steps: Vec<_> = steps
            .into_iter()
            .filter(|(_, i)| !matches!(i, Input::Idempotent { .. } | Input::SendFailing { after_effect: true, .. }))
            .collect();
        let sim = run(&config, &steps);
        let m = sim.metrics();
        prop_assert_eq!(m.effects, m.distinct_handled, "{:?}", m);
    }

    /// Every counted anomaly has an explanation: a chain from a cause to
    /// the record (its steps in tick order, ending where the record was
    /// handled or passed), and the explained records are those the events
    /// (duplicates, out of key order) and the marks (never processed) count.
    #[test]
    fn every_counted_anomaly_is_explained(
        config in config(),
        steps in prop::collection::vec((0u8..5, input()), 0..40),
    ) {
        let mut handled: Vec<(ConsumerId, u32, u64, bool, bool)> = Vec::new();
        let mut removed = Vec::new();
        let mut double_applied: Vec<(u32, u32, u64)> = Vec::new();
        let sim = run_seeing(&config, &steps, |e| match e {
            Event::Handled { consumer, partition, offset, duplicate, out_of_key_order, .. } => {
                handled.push((*consumer, *partition, *offset, *duplicate, *out_of_key_order));
            }
            Event::Removed { consumer, .. } => removed.push(*consumer),
            Event::Replayed { group, partition, source_offset, double_applied: true, .. } => {
                double_applied.push((*group, *partition, *source_offset));
            }
            _ => {}
        });
        for g in 0..sim.group_count() {
            // A removed consumer's group is no longer known; with one group it is that one.
            let mut members = sim.consumers_of(g);
            if sim.group_count() == 1 {
                members.extend(removed.iter().copied());
            }
            for anomaly in Anomaly::ALL {
                let report = offsetlab_engine::report(&sim, g, anomaly);
                // Never processed records retention deleted since are gone with their marks,
                // and so are a producer's copies and reorderings (an election's cut too).
                let deleted: u64 = sim.view().partitions.iter().map(|p| p.log_start).sum();
                let retention = match anomaly {
                    Anomaly::NeverProcessed => deleted,
                    Anomaly::ProducerDuplicates | Anomaly::ProducerReordered => report.counted,
                    _ if report.events_forgotten > 0 => report.counted,
                    _ => 0,
                };
                let explained: u64 = report.causes.iter().map(|(_, n)| n).sum();
                prop_assert_eq!(explained + report.unexplained, report.counted, "{:?} in group {}", anomaly, g);
                // The first ones are listed; an explanation may cover several records.
                let listed: u64 = report.explanations.iter().map(|e| e.records).sum();
                prop_assert!(report.explanations.len() <= offsetlab_engine::EXPLANATIONS_MAX);
                if report.explanations.len() < offsetlab_engine::EXPLANATIONS_MAX {
                    prop_assert_eq!(listed, explained, "{:?}: every one listed", anomaly);
                }
                prop_assert!(report.unexplained <= retention, "{:?}: {} unexplained", anomaly, report.unexplained);
                for e in &report.explanations {
                    let (first, last) = (e.steps.first().expect("a step"), e.steps.last().expect("a step"));
                    prop_assert!(first.tick <= last.tick, "{}", e.sentence());
                    prop_assert!(e.steps.windows(2).all(|w| w[0].tick <= w[1].tick), "{}", e.sentence());
                }
                // Runs (one line, one entry) cover the explanations in their order, each run one
                // partition's consecutive offsets of one anomaly and one cause.
                let mut at = 0;
                for run in offsetlab_engine::runs(&report.explanations) {
                    prop_assert!(std::ptr::eq(&run[0], &report.explanations[at]), "runs in order");
                    at += run.len();
                    prop_assert!(
                        run.windows(2).all(|w| (w[0].partition, w[0].cause, w[0].anomaly) == (w[1].partition, w[1].cause, w[1].anomaly)
                            && w[1].offset == w[0].offset + w[0].records.max(1)),
                        "{}",
                        offsetlab_engine::run_sentence(run)
                    );
                }
                prop_assert_eq!(at, report.explanations.len(), "every explanation in a run");
                let mut explained: Vec<(u32, u64)> = report.explanations.iter().map(|e| (e.partition, e.offset)).collect();
                explained.sort_unstable();
                if !anomaly.of_a_group() {
                    continue; // the topic's: no group's events count them
                }
                let mut counted: Vec<(u32, u64)> = match anomaly {
                    Anomaly::Duplicates => handled.iter().filter(|h| h.3 && members.contains(&h.0)).map(|h| (h.1, h.2)).collect(),
                    Anomaly::OutOfKeyOrder => handled.iter().filter(|h| h.4 && members.contains(&h.0)).map(|h| (h.1, h.2)).collect(),
                    Anomaly::NeverProcessed => (0..sim.view().partitions.len() as u32)
                        .flat_map(|p| sim.records_of(g, p, 0, u32::MAX).into_iter().filter(|r| r.lost).map(move |r| (p, r.offset)))
                        .collect(),
                    Anomaly::DoubleAppliedOnReplay => double_applied.iter().filter(|d| d.0 as usize == g).map(|d| (d.1, d.2)).collect(),
                    _ => unreachable!("a group's anomaly"),
                };
                counted.sort_unstable();
                if report.explanations.len() < offsetlab_engine::EXPLANATIONS_MAX {
                    prop_assert_eq!(explained, counted, "{:?} in group {}", anomaly, g);
                }
            }
        }
    }

    #[test]
    fn the_same_seed_and_inputs_give_the_same_trace(
        config in config(),
        steps in prop::collection::vec((0u8..5, input()), 0..30),
    ) {
        let a = run(&config, &steps);
        let b = run(&config, &steps);
        prop_assert_eq!(a.trace_hash(), b.trace_hash());
        prop_assert_eq!(a.view(), b.view());
    }
}

/// The strategy makes every `Input` variant: a variant it never makes is never checked.
#[test]
fn every_variant_is_generated() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = input_with(true);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..5_000 {
        let input = strategy.new_tree(&mut runner).expect("a value").current();
        let json = serde_json::to_value(&input).expect("an input serializes");
        seen.insert(json["do"].as_str().expect("tagged").to_string());
    }
    let all = Input::NAMES;
    let missing: Vec<_> = all.iter().filter(|n| !seen.contains(**n)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    assert_eq!(seen.len(), all.len(), "a variant this test does not name: {seen:?}");
}

/// The configs have every section and group protocol, and each is valid:
/// the brokers' inputs need a cluster or a delivery path to be taken at all.
#[test]
fn every_config_section_is_generated() {
    use offsetlab_engine::GroupProtocol;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = config();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..2_000 {
        let config = strategy.new_tree(&mut runner).expect("a value").current();
        config.validate().unwrap_or_else(|e| panic!("{e}: {config:?}"));
        seen.extend(config.cluster.map(|_| "cluster"));
        seen.extend(config.producer.delivery.map(|_| "delivery"));
        seen.extend(config.transactions.as_ref().map(|_| "transactions"));
        seen.insert(match config.groups[0].protocol {
            GroupProtocol::Classic => "classic",
            GroupProtocol::Consumer => "consumer",
            GroupProtocol::Share => "share",
        });
        seen.extend(config.groups[0].dead_letter_topic.as_ref().map(|_| "share-dlq"));
        seen.extend(config.groups[0].dead_letter_copy_record.then_some("share-dlq-copy"));
    }
    let all = [
        "cluster",
        "delivery",
        "transactions",
        "classic",
        "consumer",
        "share",
        "share-dlq",
        "share-dlq-copy",
    ];
    let missing: Vec<_> = all.iter().filter(|n| !seen.contains(**n)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
