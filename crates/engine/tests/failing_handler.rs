//! Issue 40: a handler that fails, the application's error policies, the
//! dead-letter and retry topics, and the replay. Each built-in's counters.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

use common::{events_of, input};
use offsetlab_engine::{Config, ErrorPolicy, Event, Input, InputError, LetterTopicId, Sim, builtin};

fn outcome_reproduced(name: &str, sim: &Sim) {
    let scenario = builtin(name).expect("built-in");
    let guide = scenario.guide.as_ref().expect("a guide");
    if let Err(failing) = guide.outcome.evaluate(sim) {
        panic!("{name}: outcome not reproduced: {failing}");
    }
}

#[test]
fn poison_under_retry_forever_blocks_its_partition_alone() {
    let (sim, events) = events_of("poison-blocks-partition");
    outcome_reproduced("poison-blocks-partition", &sim);
    let m = sim.metrics();
    let view = sim.view();
    let stuck: Vec<u64> = view.groups[0].stuck.iter().map(|s| s.ticks).collect();
    assert_eq!(stuck.iter().filter(|&&t| t > 0).count(), 1, "one partition stuck: {stuck:?}");
    assert_eq!(stuck.iter().sum::<u64>(), m.stuck_partition_ticks);
    let p = stuck.iter().position(|&t| t > 0).unwrap();
    let failing = view.groups[0].stuck[p].failing.expect("still failing on it");
    assert!(failing.attempts >= 2, "{failing:?}");
    assert!(m.members_left_poll_timeout >= 1, "{m:?}");
    assert_eq!(m.skipped_by_handler, 0);
    assert_eq!(m.dead_lettered, 0);
    // Its lag grows alone while the partition that flowed is drained up to the storm.
    assert!(view.partitions[p].lag.unwrap_or(0) > 20, "{:?}", view.partitions[p]);
    assert!(events.iter().any(|e| matches!(e, Event::RetryingInPlace { .. })));
}

#[test]
fn a_skipped_poison_record_is_never_seen_again() {
    let (sim, events) = events_of("poison-skipped");
    outcome_reproduced("poison-skipped", &sim);
    let m = sim.metrics();
    assert_eq!((m.skipped_by_handler, m.failed, m.never_processed), (1, 1, 1), "{m:?}");
    assert_eq!(m.stuck_partition_ticks, 0);
    let failures = events.iter().filter(|e| matches!(e, Event::HandlerFailed { .. })).count();
    assert_eq!(failures, 1, "never retried");
    assert_eq!(m.distinct_handled, m.produced - 1);
}

#[test]
fn a_dead_lettered_poison_record_waits_on_the_dlt_and_nothing_is_lost() {
    let (sim, events) = events_of("poison-dead-lettered");
    outcome_reproduced("poison-dead-lettered", &sim);
    let m = sim.metrics();
    assert_eq!((m.dead_lettered, m.failed, m.never_processed), (1, 3, 0), "{m:?}");
    assert_eq!(m.distinct_handled, m.produced - 1, "the partition flowed on");
    assert_eq!(m.total_lag, 0);
    let (partition, offset, record_id) = events
        .iter()
        .find_map(|e| match e {
            Event::DeadLettered { partition, offset, record_id, attempts: 3, .. } => {
                Some((*partition, *offset, *record_id))
            }
            _ => None,
        })
        .expect("written after three attempts");
    let letters = sim.letter_records(LetterTopicId::DeadLetter, partition, 0, 10);
    assert_eq!(letters.len(), 1);
    let letter = letters[0].letter;
    assert_eq!(
        (letter.source_partition, letter.source_offset, letter.record_id),
        (partition, offset, record_id)
    );
    assert!(letter.keyed, "keyed as the original");
    assert!(m.stuck_partition_ticks >= 2, "the retries' backoff held the partition");
}

#[test]
fn a_retry_topic_lets_a_later_record_of_the_key_overtake() {
    let (sim, events) = events_of("retry-topic-reorders");
    outcome_reproduced("retry-topic-reorders", &sim);
    let m = sim.metrics();
    assert_eq!((m.sent_to_retry, m.dead_lettered, m.never_processed), (1, 0, 0), "{m:?}");
    assert!(m.out_of_key_order >= 1, "{m:?}");
    assert_eq!(m.stuck_partition_ticks, 0, "non-blocking");
    let sent = events.iter().find_map(|e| match e {
        Event::SentToRetryTopic { record_id, due_tick, level: 1, .. } => Some((*record_id, *due_tick)),
        _ => None,
    });
    let (record_id, due_tick) = sent.expect("written to orders-retry-1");
    let late = events.iter().find_map(|e| match e {
        Event::Handled { record_id: id, out_of_key_order: true, tick, .. } if *id == record_id => Some(*tick),
        _ => None,
    });
    assert_eq!(late, Some(due_tick), "handled from the retry topic when due, out of key order");
}

#[test]
fn the_idempotent_ledger_absorbs_the_replay_of_what_partly_succeeded() {
    let (sim, events) = events_of("dead-letter-replay-idempotent");
    outcome_reproduced("dead-letter-replay-idempotent", &sim);
    let m = sim.metrics();
    assert_eq!(
        (m.dead_lettered, m.replayed, m.partial_effects, m.double_applied_on_replay),
        (2, 2, 1, 0),
        "{m:?}"
    );
    assert_eq!(m.double_paid_cents, 0);
    let replays: Vec<bool> = events
        .iter()
        .filter_map(|e| match e {
            Event::Replayed { effect, .. } => Some(*effect),
            _ => None,
        })
        .collect();
    assert_eq!(replays.iter().filter(|e| **e).count(), 1, "one payout made now, one dropped: {replays:?}");
    assert_eq!(sim.replay_positions(0).map(|p| p.iter().sum::<u64>()), Some(2));
}

#[test]
fn without_idempotence_the_replay_pays_twice() {
    let (sim, _) = events_of("dead-letter-replay-not-idempotent");
    outcome_reproduced("dead-letter-replay-not-idempotent", &sim);
    let m = sim.metrics();
    assert_eq!(
        (m.dead_lettered, m.replayed, m.partial_effects, m.double_applied_on_replay),
        (2, 2, 1, 1),
        "{m:?}"
    );
    assert!(m.double_paid_cents > 0);
}

fn sim_with(policy: ErrorPolicy) -> Sim {
    let mut config = Config::default();
    config.groups[0].error_policy = policy;
    Sim::new(config).expect("valid")
}

#[test]
fn the_replay_waits_for_the_fix() {
    let mut sim = sim_with(ErrorPolicy::RetryThenDeadLetter { retries: 0, backoff_ticks: 0 });
    let refused = sim.handle_input(Input::ReplayDeadLetters { group: None }).unwrap_err();
    assert!(matches!(refused, InputError::HandlerNotFixed { .. }), "{refused}");
    input(&mut sim, Input::FixHandler { group: None });
    input(&mut sim, Input::ReplayDeadLetters { group: None });
}

#[test]
fn a_transient_failure_succeeds_after_its_failures_in_place() {
    let mut sim = sim_with(ErrorPolicy::RetryThenDeadLetter { retries: 5, backoff_ticks: 0 });
    input(&mut sim, Input::SendFailing { failures: 2, after_effect: false });
    common::advance(&mut sim, 20);
    let m = sim.metrics();
    assert_eq!((m.failed, m.dead_lettered, m.distinct_handled, m.never_processed), (2, 0, 1, 0), "{m:?}");
    assert_eq!(m.stuck_partition_ticks, 2);
}

#[test]
fn after_the_last_retry_topic_the_record_is_dead_lettered() {
    let mut sim = sim_with(ErrorPolicy::RetryTopics { levels: 2, delay_ticks: 2 });
    input(&mut sim, Input::SendPoison {});
    common::advance(&mut sim, 30);
    let m = sim.metrics();
    assert_eq!((m.failed, m.sent_to_retry, m.dead_lettered, m.never_processed), (3, 2, 1, 0), "{m:?}");
}

#[test]
fn a_share_group_refuses_an_error_policy() {
    let mut config = Config::default();
    config.groups[0].protocol = offsetlab_engine::GroupProtocol::Share;
    config.groups[0].error_policy = ErrorPolicy::RetryForever { backoff_ticks: 0 };
    let e = Sim::new(config).unwrap_err();
    assert!(e.to_string().contains("error_policy"), "{e}");
}

/// `error-policy` mid-run: a partition stuck under retry-forever flows on
/// once the redeployed application dead-letters (the record written once,
/// nothing lost), and the setting is the new policy.
#[test]
fn a_new_error_policy_unsticks_a_partition() {
    let mut sim = sim_with(ErrorPolicy::RetryForever { backoff_ticks: 0 });
    input(&mut sim, Input::SendPoison {});
    common::advance(&mut sim, 10);
    let before = sim.metrics();
    assert!(before.stuck_partition_ticks >= 5, "{before:?}");
    assert_eq!(before.dead_lettered, 0);
    let policy = ErrorPolicy::RetryThenDeadLetter { retries: 0, backoff_ticks: 0 };
    input(&mut sim, Input::ErrorPolicy { group: None, error_policy: policy });
    assert_eq!(sim.view().groups[0].settings.error_policy, policy);
    input(&mut sim, Input::Send { count: 4 });
    common::advance(&mut sim, 10);
    let m = sim.metrics();
    assert_eq!((m.dead_lettered, m.never_processed, m.total_lag), (1, 0, 0), "{m:?}");
    assert_eq!(m.stuck_partition_ticks, before.stuck_partition_ticks, "its next attempt dead-letters it");
    assert!(sim.view().groups[0].stuck.iter().all(|s| s.failing.is_none()));
    assert!(sim.view().letter_topics.iter().any(|t| t.topic == LetterTopicId::DeadLetter));
}

/// Letters waiting on a retry topic when the policy changes to one without
/// retry topics are still read: a failure there goes to the dead-letter
/// topic, a success is handled, and nothing stays parked.
#[test]
fn letters_on_a_retry_topic_are_drained_after_the_policy_changes() {
    let mut sim = sim_with(ErrorPolicy::Skip);
    // Retry topics made by the redeploy: none at the start.
    assert!(sim.view().letter_topics.is_empty());
    let policy = ErrorPolicy::RetryTopics { levels: 2, delay_ticks: 5 };
    input(&mut sim, Input::ErrorPolicy { group: None, error_policy: policy });
    let names: Vec<String> = sim.view().letter_topics.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, ["orders.DLT", "orders-retry-1", "orders-retry-2"]);
    input(&mut sim, Input::SendPoison {});
    input(&mut sim, Input::SendFailing { failures: 1, after_effect: false });
    common::advance(&mut sim, 2);
    assert_eq!(sim.metrics().sent_to_retry, 2, "{:?}", sim.metrics());
    input(&mut sim, Input::ErrorPolicy { group: None, error_policy: ErrorPolicy::Skip });
    common::advance(&mut sim, 20);
    let m = sim.metrics();
    assert_eq!((m.sent_to_retry, m.dead_lettered, m.never_processed), (2, 1, 0), "{m:?}");
    assert_eq!(m.distinct_handled, m.produced - 1, "the transient one handled from orders-retry-1");
}

#[test]
fn an_error_policy_input_is_refused_out_of_range_and_for_a_share_group() {
    let mut sim = sim_with(ErrorPolicy::Skip);
    let e = sim
        .handle_input(Input::ErrorPolicy {
            group: None,
            error_policy: ErrorPolicy::RetryTopics { levels: 0, delay_ticks: 1 },
        })
        .unwrap_err();
    assert!(e.to_string().contains("error_policy.levels"), "{e}");
    assert_eq!(sim.view().groups[0].settings.error_policy, ErrorPolicy::Skip, "nothing changed");
    let mut config = Config::default();
    config.groups[0].protocol = offsetlab_engine::GroupProtocol::Share;
    let mut share = Sim::new(config).expect("valid");
    let e =
        share.handle_input(Input::ErrorPolicy { group: None, error_policy: ErrorPolicy::Skip }).unwrap_err();
    assert!(matches!(e, InputError::ShareGroup { .. }), "{e}");
}

/// Retry-forever: the member stuck on the poison record leaves on its poll
/// timeout with records it handled before it in the same batch uncommitted;
/// its commit fails and the partition's next owner reads them again, then
/// sticks on the record in turn. Those duplicates need no chain of their
/// own: the poll timeout's names the leave and the failed commit.
#[test]
fn a_stuck_members_leave_explains_the_next_owners_duplicates() {
    let mut config = Config { partitions: 1, ..Config::default() };
    config.groups[0].consumers = 2;
    config.groups[0].records_per_poll = 5;
    config.groups[0].commit = offsetlab_engine::CommitMode::After;
    config.groups[0].max_poll_interval_ticks = 10;
    config.groups[0].error_policy = ErrorPolicy::RetryForever { backoff_ticks: 1 };
    let mut sim = Sim::new(config).expect("valid");
    input(&mut sim, Input::Send { count: 2 });
    input(&mut sim, Input::SendPoison {});
    common::advance(&mut sim, 60);
    let m = sim.metrics();
    assert!(m.members_left_poll_timeout >= 2, "{m:?}");
    assert_eq!(m.duplicates, 2, "{m:?}");
    let report = offsetlab_engine::report(&sim, 0, offsetlab_engine::Anomaly::Duplicates);
    assert_eq!(report.unexplained, 0);
    assert_eq!(report.explanations.len(), 2);
    for e in &report.explanations {
        let sentence = e.sentence();
        assert!(e.cause.contains("poll timeout"), "{}: {sentence}", e.cause);
        assert!(sentence.contains("more than max.poll.interval"), "{sentence}");
        assert!(sentence.contains("handled it again"), "{sentence}");
    }
}

/// A record skipped by the handler is explained as that (its failure, the
/// policy, the commit past it), not as a commit that ran ahead.
#[test]
fn a_skipped_record_is_explained_by_its_failure_and_the_policy() {
    let (sim, _) = events_of("poison-skipped");
    let report = offsetlab_engine::report(&sim, 0, offsetlab_engine::Anomaly::NeverProcessed);
    let [e] = report.explanations.as_slice() else { panic!("{report:?}") };
    assert_eq!(e.cause, "the handler failed and the error policy skipped it");
    let sentence = e.sentence();
    assert!(sentence.contains("handler failed on P2@10 (poison record)"), "{sentence}");
    assert!(sentence.contains("the error policy skip logged it and moved on"), "{sentence}");
    assert!(sentence.contains("committed P2 up to 12, past it"), "{sentence}");
}

/// A retry topic's reordering names the retry topic, the later record and
/// the retry consumer; a replay that pays twice is an anomaly of its own.
#[test]
fn a_retry_topics_reordering_and_a_double_payout_are_explained() {
    let (sim, _) = events_of("retry-topic-reorders");
    let report = offsetlab_engine::report(&sim, 0, offsetlab_engine::Anomaly::OutOfKeyOrder);
    let [e] = report.explanations.as_slice() else { panic!("{report:?}") };
    let sentence = e.sentence();
    assert!(sentence.contains("went to orders-retry-1 after its handler failed"), "{sentence}");
    assert!(sentence.contains("handled the later record of the same key"), "{sentence}");
    assert!(sentence.contains("the retry consumer handled"), "{sentence}");
    let (sim, _) = events_of("dead-letter-replay-not-idempotent");
    let report = offsetlab_engine::report(&sim, 0, offsetlab_engine::Anomaly::DoubleAppliedOnReplay);
    assert_eq!(report.counted, 1);
    let [e] = report.explanations.as_slice() else { panic!("{report:?}") };
    let sentence = e.sentence();
    assert!(sentence.contains("after making its payout"), "{sentence}");
    assert!(sentence.contains("to orders.DLT"), "{sentence}");
    assert!(sentence.contains("the handler was fixed"), "{sentence}");
    assert!(sentence.ends_with("so its payout was made twice"), "{sentence}");
    assert!(offsetlab_engine::Anomaly::DoubleAppliedOnReplay.standard_name().is_none(), "no Jepsen name");
}
