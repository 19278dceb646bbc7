//! Auto-commit where Kafka's clients do it: in `poll()` on a timer that starts
//! with the consumer and starts again after each classic rebalance, in a classic
//! member's `onJoinPrepare` before every JoinGroup (eager and cooperative
//! alike, and never at a cooperative revocation), before every reconciliation
//! of a KIP-848 member, and in the `poll()` of a paused consumer.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

use common::{advance, events_of, input};
use offsetlab_engine::{
    Assignor, CommitMode, Config, ConsumerId, Event, GroupConfig, GroupProtocol, Input, Sim,
};

const C1: ConsumerId = ConsumerId(1);
const C2: ConsumerId = ConsumerId(2);

fn sim(group: GroupConfig) -> Sim {
    let mut config = Config { partitions: 4, groups: vec![group], ..Config::default() };
    config.producer.key_count = 32;
    Sim::new(config).expect("valid config")
}

/// One member, auto-commit every 100 ticks (so no timer commit interferes),
/// two records a tick handled, up to 8 per poll: with records sent at 3 a
/// tick, each poll takes a few from every partition.
fn lone_member(assignor: Assignor, protocol: GroupProtocol) -> Sim {
    sim(GroupConfig {
        consumers: 1,
        records_per_poll: 8,
        handle_per_tick: 2,
        assignor,
        protocol,
        commit: CommitMode::Auto { interval_ticks: 100 },
        ..GroupConfig::default()
    })
}

fn commits(events: &[Event], who: ConsumerId) -> Vec<(u64, Vec<(u32, u64)>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Committed { tick, consumer, offsets } if *consumer == who => {
                Some((*tick, offsets.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_cooperative_member_auto_commits_at_its_join_group_not_at_its_revocation() {
    let mut s = lone_member(Assignor::CooperativeSticky, GroupProtocol::Classic);
    input(&mut s, Input::KeepSending { per_tick: 3 });
    advance(&mut s, 20);
    let events = input(&mut s, Input::AddConsumer { group: None });
    let events = [events, advance(&mut s, 40)].concat();
    let started = events
        .iter()
        .find_map(|e| matches!(e, Event::RebalanceStarted { .. }).then(|| e.tick()))
        .expect("c2's join starts a rebalance");
    let first = events
        .iter()
        .find_map(|e| match e {
            Event::RebalanceCompleted { generation, tick, .. } if *generation == 2 => Some(*tick),
            _ => None,
        })
        .expect("the first cooperative generation");
    let c1 = commits(&events, C1);
    // onJoinPrepare: before its JoinGroup, c1 commits every partition it owns.
    let (at, offsets) = c1.first().expect("c1 auto-committed at its JoinGroup");
    assert!((started..=first).contains(at), "the commit comes with the JoinGroup, at {at}");
    assert_eq!(offsets.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [0, 1, 2, 3], "all it owned");
    // The generation takes two partitions from c1; no commit at the revocation:
    // what c1 handled of them since its JoinGroup is read again by c2.
    let revoked: Vec<u32> = match s.view().consumers.iter().find(|c| c.id == C2) {
        Some(c2) => c2.partitions.clone(),
        None => panic!("c2 exists"),
    };
    assert!(!revoked.is_empty(), "c2 was given partitions");
    assert!(
        c1.iter().skip(1).all(|(_, offsets)| offsets.iter().all(|(p, _)| !revoked.contains(p))),
        "c1 never commits a partition it gave up after its JoinGroup: {c1:?}"
    );
    assert!(s.metrics().duplicates >= 1, "records c1 handled after its JoinGroup come back to c2");
}

#[test]
fn an_eager_member_auto_commits_at_its_join_group_and_the_timer_restarts_with_the_generation() {
    let mut s = lone_member(Assignor::Range, GroupProtocol::Classic);
    input(&mut s, Input::KeepSending { per_tick: 2 });
    advance(&mut s, 20);
    let events = [input(&mut s, Input::AddConsumer { group: None }), advance(&mut s, 30)].concat();
    let c1 = commits(&events, C1);
    let completed = events
        .iter()
        .find_map(|e| match e {
            Event::RebalanceCompleted { generation: 2, tick, .. } => Some(*tick),
            _ => None,
        })
        .expect("generation 2");
    let (at, offsets) = c1.first().expect("c1 auto-committed at its JoinGroup");
    assert!(*at <= completed && offsets.len() == 4, "before the generation, all four: {c1:?}");
    // No timer commit for a whole interval after the assignment.
    assert_eq!(c1.len(), 1, "{c1:?}");
    let events = advance(&mut s, 100);
    let next = commits(&events, C1).first().map(|(t, _)| *t).expect("the timer fires");
    assert_eq!(next, completed + 100, "the interval counts from onJoinComplete");
}

#[test]
fn a_kip848_member_auto_commits_before_every_reconciliation() {
    let mut s = sim(GroupConfig {
        consumers: 2,
        records_per_poll: 4,
        handle_per_tick: 1,
        protocol: GroupProtocol::Consumer,
        commit: CommitMode::Auto { interval_ticks: 100 },
        ..GroupConfig::default()
    });
    input(&mut s, Input::KeepSending { per_tick: 2 });
    advance(&mut s, 30);
    // c2 closes: c1's next reconciliation only adds partitions, and still commits first.
    let before = s.view().consumers.iter().find(|c| c.id == C1).expect("c1").partitions.clone();
    assert_eq!(before.len(), 2);
    let events = [input(&mut s, Input::Stop { consumer: C2 }), advance(&mut s, 30)].concat();
    let grown = events
        .iter()
        .position(|e| match e {
            Event::Fetched { consumer, partition, .. } => *consumer == C1 && !before.contains(partition),
            _ => false,
        })
        .expect("c1 fetches from its new partitions");
    let committed = events[..grown].iter().rev().find_map(|e| match e {
        Event::Committed { consumer, offsets, .. } if *consumer == C1 => Some(offsets.clone()),
        _ => None,
    });
    let committed = committed.expect("c1 committed before it reconciled");
    assert_eq!(committed.iter().map(|(p, _)| *p).collect::<Vec<_>>(), before, "what it owned then");
}

#[test]
fn a_paused_consumer_keeps_polling_so_auto_commit_and_the_poll_timer_go_on() {
    let mut s = sim(GroupConfig {
        consumers: 1,
        records_per_poll: 4,
        max_poll_interval_ticks: 10,
        commit: CommitMode::Auto { interval_ticks: 5 },
        ..GroupConfig::default()
    });
    input(&mut s, Input::Send { count: 8 });
    advance(&mut s, 10);
    input(&mut s, Input::Pause { consumer: C1 });
    let events = advance(&mut s, 40);
    let c1 = commits(&events, C1);
    assert!(c1.len() >= 7, "one auto-commit every 5 ticks while paused: {c1:?}");
    assert!(
        !events.iter().any(|e| matches!(e, Event::MemberLeft { .. } | Event::RebalanceStarted { .. })),
        "pause() keeps poll() running: the member never leaves"
    );
    assert_eq!(s.metrics().delivered, 8, "and fetches nothing new");
}

#[test]
fn the_built_in_shows_the_commit_at_join_group() {
    let (sim, events) = events_of("auto-commit-on-rebalance");
    let m = sim.metrics();
    assert!(m.duplicates >= 1, "what c1 handled after its JoinGroup is read again");
    assert_eq!(m.never_processed, 0);
    assert!(events.iter().any(|e| matches!(e, Event::Committed { consumer, .. } if *consumer == C1)));
}
