//! The consumer loop, the group protocol and resets, one rule at a time.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::GroupConfig;
use offsetlab_engine::{
    CommitMode, Config, ConsumerId, ConsumerState, Event, Input, InputError, KeylessStrategy, LoopStep,
    ResetSpec, Sim,
};

const C1: ConsumerId = ConsumerId(1);
const C2: ConsumerId = ConsumerId(2);

fn sim(config: Config) -> Sim {
    Sim::new(config).expect("valid config")
}

fn advance(sim: &mut Sim, ticks: u64) -> Vec<Event> {
    sim.handle_tick(sim.now() + ticks);
    sim.check_invariants();
    std::iter::from_fn(|| sim.poll_event()).collect()
}

fn input(sim: &mut Sim, input: Input) {
    sim.handle_input(input).unwrap_or_else(|e| panic!("refused: {e}"));
}

fn consumer(sim: &Sim, id: ConsumerId) -> offsetlab_engine::ConsumerView {
    sim.view().consumers.into_iter().find(|c| c.id == id).expect("consumer exists")
}

#[test]
fn the_first_rebalance_gives_range_assignment() {
    let mut s = sim(Config {
        partitions: 5,
        groups: vec![GroupConfig { consumers: 2, ..GroupConfig::default() }],
        ..Config::default()
    });
    let events = advance(&mut s, 1);
    let completed = events
        .iter()
        .find_map(|e| match e {
            Event::RebalanceCompleted { generation, assignment, .. } => {
                Some((*generation, assignment.clone()))
            }
            _ => None,
        })
        .expect("a rebalance completes");
    assert_eq!(completed, (1, vec![(C1, vec![0, 1, 2]), (C2, vec![3, 4])]));
    assert_eq!(s.metrics().active_consumers, 2);
}

#[test]
fn keyed_records_follow_murmur2() {
    let mut s = sim(Config { partitions: 7, ..Config::default() });
    input(&mut s, Input::Send { count: 200 });
    let mut produced = 0;
    while let Some(e) = s.poll_event() {
        if let Event::Produced { partition, subject, keyed, .. } = e {
            assert!(keyed);
            let key = offsetlab_engine::subject_key(subject);
            assert_eq!(partition, offsetlab_engine::partition_for_key(key.as_bytes(), 7), "{key}");
            produced += 1;
        }
    }
    assert_eq!(produced, 200);
}

#[test]
fn a_batch_is_polled_handled_one_per_tick_then_committed() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig { consumers: 1, records_per_poll: 3, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1); // join
    input(&mut s, Input::Send { count: 5 });
    let events = advance(&mut s, 1);
    assert!(events.iter().any(|e| matches!(e, Event::Fetched { from: 0, to: 3, .. })), "{events:?}");
    assert_eq!(consumer(&s, C1).step, LoopStep::Handle);
    assert_eq!(s.committed(0), None, "commit-after: nothing committed mid-batch");
    advance(&mut s, 2);
    assert_eq!(s.committed(0), Some(3), "committed after the third record");
    assert_eq!(consumer(&s, C1).step, LoopStep::Commit);
    advance(&mut s, 2);
    assert_eq!(s.committed(0), Some(5));
    assert_eq!(s.metrics().delivered, 5);
    assert_eq!(s.metrics().total_lag, 0);
}

#[test]
fn commit_before_commits_when_the_batch_arrives() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig {
            consumers: 1,
            records_per_poll: 4,
            commit: CommitMode::Before,
            ..GroupConfig::default()
        }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 4 });
    advance(&mut s, 1);
    assert_eq!(s.committed(0), Some(4), "committed before handling");
    assert_eq!(s.metrics().delivered, 1);
    input(&mut s, Input::Crash { consumer: C1 });
    advance(&mut s, 1);
    assert_eq!(s.metrics().never_processed, 3, "three fetched, committed, never handled");
}

#[test]
fn auto_commit_commits_on_the_next_poll_after_the_interval() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig {
            consumers: 1,
            records_per_poll: 2,
            commit: CommitMode::Auto { interval_ticks: 5 },
            ..GroupConfig::default()
        }],
        ..Config::default()
    });
    // Kafka reschedules the auto-commit at onJoinComplete: the first one of a
    // generation comes a whole interval after the assignment.
    let assigned_at = advance(&mut s, 1)
        .iter()
        .find_map(|e| matches!(e, Event::RebalanceCompleted { .. }).then(|| e.tick()))
        .expect("the first generation completes at once");
    input(&mut s, Input::Send { count: 20 });
    let mut first_commit = None;
    for _ in 0..12 {
        for e in advance(&mut s, 1) {
            if let (Event::Committed { tick, .. }, None) = (&e, first_commit) {
                first_commit = Some(*tick);
            }
        }
    }
    let first_commit = first_commit.expect("auto-committed");
    assert_eq!(first_commit, assigned_at + 5, "one interval after the assignment, at that tick's poll");
    // Positions of records earlier polls returned.
    let committed = s.committed(0).expect("auto-committed");
    assert!(committed >= 4 && committed % 2 == 0, "a batch boundary that was handled: {committed}");
    assert!(committed <= s.metrics().delivered, "auto-commit never passes unhandled records here");
}

#[test]
fn a_crashed_member_keeps_its_partitions_until_the_session_times_out() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 2, session_timeout_ticks: 6, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Crash { consumer: C1 });
    let events = advance(&mut s, 5);
    assert!(!events.iter().any(|e| matches!(e, Event::RebalanceStarted { .. })), "nobody noticed yet");
    let view = s.view();
    assert_eq!(view.partitions[0].owner, Some(C1));
    assert!(!view.partitions[0].owner_alive);
    assert_eq!(consumer(&s, C1).partitions, vec![0], "the crashed card still shows its partition");
    let events = advance(&mut s, 1);
    assert!(events.iter().any(|e| matches!(e, Event::SessionExpired { consumer: C1, .. })));
    let assignment = events.iter().find_map(|e| match e {
        Event::RebalanceCompleted { assignment, generation, .. } => Some((*generation, assignment.clone())),
        _ => None,
    });
    assert_eq!(assignment, Some((2, vec![(C2, vec![0, 1])])));
    let moved = s.view().last_rebalance.expect("a rebalance happened").moved;
    assert_eq!(moved, vec![offsetlab_engine::PartitionMove { partition: 0, from: Some(C1), to: Some(C2) }]);
}

#[test]
fn a_crash_remembers_where_the_loop_was() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig { consumers: 1, records_per_poll: 4, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 4 });
    advance(&mut s, 2);
    input(&mut s, Input::Crash { consumer: C1 });
    let c1 = consumer(&s, C1);
    assert_eq!(
        (c1.state, c1.crashed_during, c1.crashed_at),
        (ConsumerState::Crashed, Some(LoopStep::Handle), Some(3))
    );
}

#[test]
fn a_rebalance_waits_for_members_to_finish_their_batch() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 1, records_per_poll: 4, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 8 });
    advance(&mut s, 1); // c1 polls 4 and handles 1
    input(&mut s, Input::AddConsumer { group: None });
    let events = advance(&mut s, 2);
    assert!(!events.iter().any(|e| matches!(e, Event::RebalanceCompleted { .. })), "c1 still has a batch");
    assert_eq!(s.view().group_state, "PreparingRebalance");
    let events = advance(&mut s, 1);
    // c1 handled its last record, committed and rejoined; the rebalance completes.
    assert!(events.iter().any(|e| matches!(e, Event::Committed { consumer: C1, .. })));
    assert!(events.iter().any(|e| matches!(e, Event::RebalanceCompleted { generation: 2, .. })));
    assert_eq!(s.metrics().duplicates, 0, "a clean rebalance replays nothing");
}

#[test]
fn a_rebalance_waits_for_a_crashed_member_to_expire() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 2, session_timeout_ticks: 8, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Crash { consumer: C1 });
    advance(&mut s, 2);
    // Restarting c1 before its old session expires: the new member waits for the old one.
    input(&mut s, Input::Start { consumer: C1 });
    advance(&mut s, 3);
    assert_eq!(s.view().group_state, "PreparingRebalance");
    let events = advance(&mut s, 4);
    assert!(events.iter().any(|e| matches!(e, Event::SessionExpired { consumer: C1, .. })));
    assert!(events.iter().any(|e| matches!(e, Event::RebalanceCompleted { .. })));
    assert_eq!(s.view().group_state, "Stable");
    assert_eq!(s.metrics().active_consumers, 2);
}

#[test]
fn stop_finishes_the_batch_commits_and_leaves() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 2, records_per_poll: 3, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 12 });
    advance(&mut s, 1);
    input(&mut s, Input::Stop { consumer: C1 });
    assert!(matches!(consumer(&s, C1).state, ConsumerState::Stopping { .. }));
    let events = advance(&mut s, 2);
    assert!(events.iter().any(|e| matches!(e, Event::Left { consumer: C1, .. })));
    assert_eq!(consumer(&s, C1).state, ConsumerState::Stopped);
    advance(&mut s, 40);
    let m = s.metrics();
    assert_eq!((m.duplicates, m.never_processed, m.distinct_handled), (0, 0, 12), "{m:?}");
}

#[test]
fn pause_fetches_nothing_and_keeps_the_partitions() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 2, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Pause { consumer: C1 });
    input(&mut s, Input::Send { count: 30 });
    advance(&mut s, 20);
    let view = s.view();
    assert_eq!(consumer(&s, C1).handled, 0);
    assert_eq!(view.partitions[0].owner, Some(C1));
    assert!(view.partitions[0].log_end > 0);
    assert!(s.metrics().total_lag >= view.partitions[0].log_end);
    input(&mut s, Input::Resume { consumer: C1 });
    advance(&mut s, 40);
    assert_eq!(s.metrics().total_lag, 0);
    assert_eq!(s.metrics().generation, 1, "pause does not rebalance");
}

#[test]
fn reset_is_refused_while_the_group_has_members() {
    let mut s = sim(Config::default());
    advance(&mut s, 1);
    let err = s.handle_input(Input::ResetOffsets { group: None, reset: ResetSpec::Earliest }).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Error: Assignments can only be reset if the group 'demo' is inactive, but the current state is Stable."
    );
    assert_eq!(err, InputError::GroupNotInactive { group: "demo".into(), state: "Stable" });
}

#[test]
fn reset_modes_on_an_empty_group() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 1, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 20 });
    advance(&mut s, 60);
    input(&mut s, Input::Stop { consumer: C1 });
    advance(&mut s, 2);
    assert_eq!(s.view().group_state, "Empty");
    let ends: Vec<u64> = s.view().partitions.iter().map(|p| p.log_end).collect();
    let err = s.handle_input(Input::ResetOffsets {
        group: None,
        reset: ResetSpec::Offset { partition: Some(9), offset: 0 },
    });
    assert_eq!(err, Err(InputError::NoSuchPartition { partition: 9 }));
    input(&mut s, Input::ResetOffsets { group: None, reset: ResetSpec::ShiftBy { by: -3 } });
    assert_eq!(s.committed(0), Some(ends[0] - 3));
    input(
        &mut s,
        Input::ResetOffsets { group: None, reset: ResetSpec::Offset { partition: Some(1), offset: 999 } },
    );
    assert_eq!(s.committed(1), Some(ends[1]), "clamped to the log end");
    input(&mut s, Input::ResetOffsets { group: None, reset: ResetSpec::Earliest });
    assert_eq!((s.committed(0), s.committed(1)), (Some(0), Some(0)));
    input(&mut s, Input::Start { consumer: C1 });
    advance(&mut s, 60);
    assert_eq!(s.metrics().duplicates, 20, "everything replays once");
    assert_eq!(s.metrics().never_processed, 0);
}

#[test]
fn reset_to_latest_skips_records_nobody_handled() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig { consumers: 1, ..GroupConfig::default() }],
        ..Config::default()
    });
    input(&mut s, Input::Stop { consumer: C1 });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 7 });
    input(&mut s, Input::ResetOffsets { group: None, reset: ResetSpec::Latest });
    assert_eq!(s.metrics().never_processed, 7);
    input(&mut s, Input::ResetOffsets { group: None, reset: ResetSpec::Earliest });
    assert_eq!(s.metrics().never_processed, 0, "back in the group's future");
}

#[test]
fn shift_by_needs_a_committed_offset() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig { consumers: 0, ..GroupConfig::default() }],
        ..Config::default()
    });
    let err =
        s.handle_input(Input::ResetOffsets { group: None, reset: ResetSpec::ShiftBy { by: 1 } }).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Cannot shift offset for partition orders-0 since there is no current committed offset"
    );
}

#[test]
fn restart_from_stops_resets_and_starts_again() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 2, ..GroupConfig::default() }],
        ..Config::default()
    });
    input(&mut s, Input::Send { count: 10 });
    advance(&mut s, 30);
    assert_eq!(s.metrics().delivered, 10);
    input(&mut s, Input::RestartFrom { group: None, reset: ResetSpec::Earliest });
    assert!(s.view().restart_pending);
    advance(&mut s, 40);
    assert!(!s.view().restart_pending);
    let m = s.metrics();
    assert_eq!((m.delivered, m.duplicates), (20, 10), "{m:?}");
    assert!(s.view().consumers.iter().all(|c| c.state == ConsumerState::Running));
}

#[test]
fn retention_moves_the_log_start_and_counts_what_nobody_read() {
    let mut s = sim(Config {
        partitions: 1,
        retention_records: 10,
        groups: vec![GroupConfig { consumers: 1, ..GroupConfig::default() }],
        ..Config::default()
    });
    input(&mut s, Input::Pause { consumer: C1 });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 25 });
    let view = s.view();
    assert_eq!((view.partitions[0].log_start, view.partitions[0].log_end), (15, 25));
    assert_eq!(s.metrics().never_processed, 15);
    assert_eq!(s.metrics().lost_to_retention, 15);
    input(&mut s, Input::Resume { consumer: C1 });
    let events = advance(&mut s, 30);
    assert!(events.iter().any(|e| matches!(e, Event::PositionReset { from: 0, to: 15, .. })), "earliest");
    assert_eq!(s.metrics().distinct_handled, 10);
}

#[test]
fn memory_stays_bounded_under_endless_sending() {
    let mut s = sim(Config {
        partitions: 4,
        retention_records: 50,
        groups: vec![GroupConfig { consumers: 2, ..GroupConfig::default() }],
        ..Config::default()
    });
    input(&mut s, Input::KeepSending { per_tick: 20 });
    for _ in 0..50 {
        advance(&mut s, 20);
    }
    let view = s.view();
    for p in &view.partitions {
        assert!(p.log_end - p.log_start <= 50);
    }
    assert!(view.recent.len() <= offsetlab_engine::limits::SINK_RECENT_MAX);
    assert!(s.metrics().produced == 20_000);
}

#[test]
fn the_event_queue_is_bounded() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig { consumers: 0, ..GroupConfig::default() }],
        ..Config::default()
    });
    for _ in 0..3 {
        input(&mut s, Input::Send { count: 50_000 });
    }
    // 150,000 produced plus one retention event per send, less the queue's bound.
    let emitted = 150_000 + 3;
    assert_eq!(s.events_dropped(), emitted - offsetlab_engine::limits::EVENTS_QUEUED_MAX as u64);
    let mut queued = 0;
    while s.poll_event().is_some() {
        queued += 1;
    }
    assert_eq!(queued, offsetlab_engine::limits::EVENTS_QUEUED_MAX);
}

#[test]
fn sticky_keyless_records_fill_batches() {
    let mut s = sim(Config {
        partitions: 4,
        producer: offsetlab_engine::ProducerConfig {
            use_keys: false,
            keyless: KeylessStrategy::Sticky { batch_records: 5 },
            ..Default::default()
        },
        groups: vec![GroupConfig { consumers: 0, ..GroupConfig::default() }],
        ..Config::default()
    });
    input(&mut s, Input::Send { count: 40 });
    let partitions: Vec<u32> = std::iter::from_fn(|| s.poll_event())
        .filter_map(|e| match e {
            Event::Produced { partition, .. } => Some(partition),
            _ => None,
        })
        .collect();
    for batch in partitions.chunks(5) {
        assert!(batch.iter().all(|&p| p == batch[0]), "{partitions:?}");
    }
}

#[test]
fn hot_key_takes_its_share() {
    let mut s = sim(Config {
        partitions: 6,
        producer: offsetlab_engine::ProducerConfig {
            key_count: 20,
            hot_key_share_percent: 50,
            ..Default::default()
        },
        groups: vec![GroupConfig { consumers: 0, ..GroupConfig::default() }],
        ..Config::default()
    });
    input(&mut s, Input::Send { count: 10_000 });
    let hot = std::iter::from_fn(|| s.poll_event())
        .filter(|e| matches!(e, Event::Produced { subject: 0, .. }))
        .count();
    assert!((4_700..5_300).contains(&hot), "user-0 takes about half: {hot}");
}

#[test]
fn refused_inputs_change_nothing_and_say_why() {
    let mut s = sim(Config::default());
    let before = s.trace_hash();
    let cases = [
        (Input::Pause { consumer: ConsumerId(9) }, "no consumer named c9"),
        (Input::Resume { consumer: C1 }, "c1 is running; this needs it paused"),
        (Input::Send { count: 0 }, "count: must be between 1 and 100000, got 0"),
        (Input::RecordsPerPoll { group: None, records: 0 }, "records: must be between 1 and 10000, got 0"),
        (Input::Start { consumer: C1 }, "c1 is running; this needs it stopped or crashed"),
    ];
    for (input, message) in cases {
        assert_eq!(s.handle_input(input).unwrap_err().to_string(), message);
    }
    assert_eq!(s.trace_hash(), before);
}

#[test]
fn restart_preview_counts_replays_and_skips() {
    let mut s = sim(Config {
        partitions: 1,
        groups: vec![GroupConfig { consumers: 1, records_per_poll: 10, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 10 });
    advance(&mut s, 12);
    assert_eq!(s.committed(0), Some(10));
    input(&mut s, Input::Pause { consumer: C1 });
    input(&mut s, Input::Send { count: 5 });
    let back = s.restart_preview(0, 4).expect("partition 0");
    assert_eq!((back.offset, back.replay, back.skip), (4, 6, 0));
    let ahead = s.restart_preview(0, 13).expect("partition 0");
    assert_eq!((ahead.replay, ahead.skip), (0, 3));
    assert_eq!(s.restart_preview(0, 99).map(|p| p.offset), Some(15), "clamped to the log end");
    assert_eq!(s.restart_preview(3, 0), None);
}

#[test]
fn notable_events_are_announced() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 2, session_timeout_ticks: 2, ..GroupConfig::default() }],
        ..Config::default()
    });
    advance(&mut s, 1);
    input(&mut s, Input::Crash { consumer: C1 });
    let mut said: Vec<String> =
        std::iter::from_fn(|| s.poll_event()).filter_map(|e| e.announcement()).collect();
    s.handle_tick(s.now() + 3);
    said.extend(std::iter::from_fn(|| s.poll_event()).filter_map(|e| e.announcement()));
    assert_eq!(
        said,
        vec![
            "c1 crashed with 0 records in flight; its partitions wait for the session timeout.",
            "c1's session timed out; the coordinator removed it from the group.",
            "Rebalance started (a session expired): members finish their batches and rejoin.",
            "Generation 2: c2 P0 P1.",
        ]
    );
}

/// Seed 003, rule 1: two groups read the same data independently. A crash
/// and a reset in one group change nothing in the other.
#[test]
fn two_groups_read_the_same_log_independently() {
    let config = Config {
        groups: vec![GroupConfig::named("demo"), GroupConfig { consumers: 1, ..GroupConfig::named("audit") }],
        ..Config::default()
    };
    let mut s = sim(config);
    advance(&mut s, 1);
    input(&mut s, Input::Send { count: 30 });
    // c1 is mid-batch: it handled records it has not committed.
    advance(&mut s, 2);
    assert!(s.view().consumers[0].handled > 0 && s.committed(0).is_none_or(|o| o == 0));
    input(&mut s, Input::Crash { consumer: ConsumerId(1) });
    advance(&mut s, 60);
    let (demo, audit) = (s.metrics_of(0), s.metrics_of(1));
    assert_eq!(audit.delivered, 30, "audit handles every record once");
    assert_eq!(audit.duplicates, 0, "demo's crash replays nothing in audit");
    assert!(demo.duplicates > 0, "demo's crash replays records in demo");
    assert_eq!(demo.distinct_handled, 30);
    assert_eq!(s.view().groups.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(), vec!["demo", "audit"]);
    // Consumer names are unique across groups: audit's consumer is c3.
    assert_eq!(s.consumers_of(1), vec![ConsumerId(3)]);
    // A reset needs the group inactive, and names it.
    let refused = s
        .handle_input(Input::ResetOffsets { group: Some("audit".into()), reset: ResetSpec::Earliest })
        .unwrap_err();
    assert!(refused.to_string().contains("the group 'audit' is inactive"), "{refused}");
    input(&mut s, Input::Stop { consumer: ConsumerId(3) });
    advance(&mut s, 40);
    input(&mut s, Input::ResetOffsets { group: Some("audit".into()), reset: ResetSpec::Earliest });
    assert_eq!(s.committed_in(1, 0), Some(0));
    assert!(s.committed_in(0, 0).is_some_and(|o| o > 0) || s.view().partitions[0].log_end == 0);
    assert!(
        offsetlab_engine::describe_group(&s, 1).contains("Consumer group 'audit' has no active members.")
    );
    // An unknown group is refused by name.
    let unknown = s.handle_input(Input::AddConsumer { group: Some("nope".into()) }).unwrap_err();
    assert_eq!(unknown.to_string(), r#"no group named "nope""#);
    s.check_invariants();
}
