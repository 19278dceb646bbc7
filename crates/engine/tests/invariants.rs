//! Property tests: thousands of random input sequences, every invariant checked after every step.
#![cfg(not(target_arch = "wasm32"))]

use offsetlab_engine::GroupConfig;
use offsetlab_engine::{
    CheckpointWrites, CommitMode, Config, ConsumerId, Event, Input, KeylessStrategy, PositionModel,
    ProducerConfig, ResetSpec, Sim,
};
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
        (proptest::option::of(0u32..6), 0u64..40)
            .prop_map(|(partition, offset)| ResetSpec::Offset { partition, offset }),
        (-10i64..10).prop_map(|by| ResetSpec::ShiftBy { by }),
    ]
}

fn config() -> impl Strategy<Value = Config> {
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
        (position(), any::<bool>(), 0u8..4),
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
                    position,
                    bridge,
                    assignor: [
                        offsetlab_engine::Assignor::Range,
                        offsetlab_engine::Assignor::RoundRobin,
                        offsetlab_engine::Assignor::Sticky,
                        offsetlab_engine::Assignor::CooperativeSticky,
                    ][usize::from(assignor)],
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
                },
            },
        )
}

fn input() -> impl Strategy<Value = Input> {
    let consumer = (1u32..6).prop_map(ConsumerId);
    prop_oneof![
        4 => (1u32..12).prop_map(|count| Input::Send { count }),
        1 => (0u32..4).prop_map(|per_tick| Input::KeepSending { per_tick }),
        1 => any::<bool>().prop_map(|on| Input::UseKeys { on }),
        1 => (1u32..8).prop_map(|keys| Input::KeyCount { keys }),
        2 => consumer.clone().prop_map(|consumer| Input::Pause { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Resume { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Crash { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Stop { consumer }),
        2 => consumer.clone().prop_map(|consumer| Input::Start { consumer }),
        1 => Just(Input::AddConsumer { group: None }),
        1 => consumer.prop_map(|consumer| Input::RemoveConsumer { consumer }),
        1 => (1u32..6).prop_map(|records| Input::RecordsPerPoll { group: None, records }),
        1 => commit_mode().prop_map(|commit| Input::Commit { group: None, commit }),
        1 => any::<bool>().prop_map(|on| Input::Idempotent { group: None, on }),
        1 => reset().prop_map(|reset| Input::ResetOffsets { group: None, reset }),
        1 => reset().prop_map(|reset| Input::RestartFrom { group: None, reset }),
        1 => position().prop_map(|position| Input::PositionStore { group: None, position }),
        1 => any::<bool>().prop_map(|advancing| Input::Peek { advancing }),
        1 => (1u32..3).prop_map(|count| Input::AddPartitions { count }),
        1 => (1u32..6).prop_map(|n| Input::KillBeforeCommit { consumer: ConsumerId(n) }),
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

/// Runs the sequence, checking invariants after every input and tick.
fn run(config: &Config, steps: &[(u8, Input)]) -> Sim {
    let mut sim = Sim::new(config.clone()).expect("valid");
    let mut next_offset: BTreeMap<u32, u64> = BTreeMap::new();
    let mut keyed_home: BTreeMap<u32, u32> = BTreeMap::new();
    let mut generation_owner: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut drain = |sim: &mut Sim| {
        while let Some(event) = sim.poll_event() {
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
                Event::RebalanceCompleted { generation, assignment, .. } => {
                    let mut owned: Vec<u32> = assignment.iter().flat_map(|(_, p)| p.clone()).collect();
                    owned.sort_unstable();
                    let before = owned.len();
                    owned.dedup();
                    assert_eq!(before, owned.len(), "one owner per partition in generation {generation}");
                    assert!(generation_owner.insert(generation, owned).is_none(), "generations are new");
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
    fn commit_after_loses_nothing_but_to_retention(
        config in config(),
        steps in prop::collection::vec((0u8..5, input()), 0..40),
    ) {
        let mut config = config;
        config.groups[0].commit = CommitMode::After;
        let steps: Vec<_> = steps
            .into_iter()
            .filter(|(_, i)| !matches!(i, Input::Commit { .. } | Input::ResetOffsets { .. } | Input::RestartFrom { .. }))
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
        let steps: Vec<_> = steps
            .into_iter()
            .filter(|(_, i)| !matches!(i, Input::PositionStore { .. } | Input::ResetOffsets { .. } | Input::RestartFrom { .. }))
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
        let steps: Vec<_> = steps.into_iter().filter(|(_, i)| !matches!(i, Input::Idempotent { .. })).collect();
        let sim = run(&config, &steps);
        let m = sim.metrics();
        prop_assert_eq!(m.effects, m.distinct_handled, "{:?}", m);
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
