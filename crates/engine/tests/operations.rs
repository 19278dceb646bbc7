//! Seed 004's operations: the payout ledger and the kill between the ledger
//! commit and the offset commit, lag and oldest-unprocessed age per partition,
//! a hot account, and partition growth.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::GroupConfig;
use offsetlab_engine::{
    Config, ConsumerId, Event, Input, Sim, builtin, partition_for_key, payout_cents, subject_key,
};

fn run(name: &str) -> Sim {
    let sim = builtin(name).expect("built-in").run(None, None).expect("runs");
    sim.check_invariants();
    sim
}

#[test]
fn without_a_unique_constraint_the_kill_pays_twice() {
    let sim = run("payout-double-payout");
    let m = sim.metrics();
    assert!(m.duplicates > 0, "{m:?}");
    assert!(m.double_paid_cents > 0, "the double payout shows in money: {m:?}");
    let ledger = sim.ledger();
    let flagged: u64 = ledger.iter().map(|e| e.duplicate_effects).sum();
    assert_eq!(flagged, m.duplicates, "every duplicate effect is flagged on its account");
    let paid: u64 = ledger.iter().map(|e| e.balance_cents).sum();
    assert!(paid > m.double_paid_cents);
}

#[test]
fn with_the_effect_key_each_payout_takes_effect_once() {
    let sim = run("payout-ledger");
    let m = sim.metrics();
    assert!(m.duplicates > 0, "the batch was delivered again: {m:?}");
    assert_eq!(m.double_paid_cents, 0);
    assert_eq!(m.effects, m.distinct_handled, "one ledger effect per operation");
    assert!(sim.ledger().iter().all(|e| e.duplicate_effects == 0));
    // The ledger's money is the sum of the distinct operations' amounts.
    let paid: u64 = sim.ledger().iter().map(|e| e.balance_cents).sum();
    let expected: u64 = (0..sim.view().partitions.len())
        .flat_map(|p| sim.records(p as u32, 0, 100_000))
        .filter(|r| r.handled > 0)
        .map(|r| payout_cents(r.record_id))
        .sum();
    assert_eq!(paid, expected);
}

#[test]
fn the_kill_fires_at_the_commit_point_only() {
    let mut sim = Sim::new(Config {
        partitions: 1,
        groups: vec![GroupConfig { consumers: 1, records_per_poll: 3, ..GroupConfig::default() }],
        ..Config::default()
    })
    .unwrap();
    sim.handle_tick(1);
    sim.handle_input(Input::Send { count: 3 }).unwrap();
    sim.handle_input(Input::KillBeforeCommit { consumer: ConsumerId(1) }).unwrap();
    sim.handle_tick(2);
    assert_eq!(sim.metrics().delivered, 1, "still handling: the fault waits for the commit");
    sim.handle_tick(4);
    let events: Vec<Event> = std::iter::from_fn(|| sim.poll_event()).collect();
    assert!(events.iter().any(|e| matches!(e, Event::KilledBeforeCommit { tick: 4, .. })));
    assert!(!events.iter().any(|e| matches!(e, Event::Committed { tick: 4, .. })));
    assert_eq!(sim.metrics().delivered, 3, "all three effects happened");
    assert_eq!(sim.committed(0), None, "the commit never ran");
}

#[test]
fn a_hot_account_keeps_its_partition_behind() {
    let sim = run("hot-account");
    let view = sim.view();
    let hot = partition_for_key(subject_key(0).as_bytes(), 6);
    let hot_view = &view.partitions[hot as usize];
    let others_max_lag =
        view.partitions.iter().filter(|p| p.partition != hot).filter_map(|p| p.lag).max().unwrap();
    let hot_lag = hot_view.lag.unwrap();
    assert!(hot_lag > 5 * others_max_lag.max(1), "hot P{hot}: {hot_lag} vs others {others_max_lag}");
    assert!(hot_view.oldest_unprocessed_age > 20, "{hot_view:?}");
    // Six consumers after tick 80, yet the hot partition's lag still grew.
    let history = sim.lag_history(hot);
    assert_eq!(history.len(), offsetlab_engine::HISTORY_SAMPLES_MAX);
    assert_eq!(history.first().unwrap().tick, 160 - 120 + 1);
    let at_growth = history.iter().find(|s| s.tick == 90).expect("tick 90 is kept");
    let last = history.last().unwrap();
    assert!(last.lag > at_growth.lag, "{at_growth:?} → {last:?}");
    assert!(last.oldest_unprocessed_age > at_growth.oldest_unprocessed_age);
    assert_eq!(sim.metrics().active_consumers, 6);
}

#[test]
fn growing_the_topic_moves_keys_and_breaks_their_order() {
    let sim = run("partition-growth");
    let view = sim.view();
    assert_eq!(view.partitions.len(), 4);
    let expansion = view.last_expansion.expect("the topic grew");
    assert_eq!((expansion.from, expansion.to), (3, 4));
    for &(subject, old, new) in &expansion.moved {
        let key = subject_key(subject);
        assert_eq!(partition_for_key(key.as_bytes(), 3), old);
        assert_eq!(partition_for_key(key.as_bytes(), 4), new);
        assert_ne!(old, new);
    }
    assert!(!expansion.moved.is_empty());
    assert!(sim.metrics().out_of_key_order > 0, "{:?}", sim.metrics());
    assert!(view.partitions[3].log_end > 0, "the new partition takes records");
    assert!(view.partitions[3].owner.is_some(), "and the group took it in a rebalance");
    assert!(sim.metrics().generation >= 2);
}

#[test]
fn growth_is_bounded_and_checked() {
    let mut sim = Sim::new(Config { partitions: 250, retention_records: 100, ..Config::default() }).unwrap();
    assert!(sim.handle_input(Input::AddPartitions { count: 7 }).is_err());
    assert!(sim.handle_input(Input::AddPartitions { count: 0 }).is_err());
    sim.handle_input(Input::AddPartitions { count: 6 }).unwrap();
    assert_eq!(sim.view().partitions.len(), 256);
    sim.handle_tick(5);
    sim.check_invariants();
}

#[test]
fn a_rolling_update_restarts_every_consumer_and_each_payout_takes_effect_once() {
    let scenario = builtin("rolling-update").unwrap();
    let mut sim = scenario.run(None, Some(20)).unwrap();
    sim.handle_input(scenario.timeline[1].input.clone()).unwrap();
    let mut events = Vec::new();
    for tick in 21..=scenario.ticks {
        if tick == 101 {
            sim.handle_input(Input::KeepSending { per_tick: 0 }).unwrap();
        }
        sim.handle_tick(tick);
        events.extend(std::iter::from_fn(|| sim.poll_event()));
        sim.check_invariants();
    }
    let left: Vec<ConsumerId> = events
        .iter()
        .filter_map(|e| match e {
            Event::Left { consumer, .. } => Some(*consumer),
            _ => None,
        })
        .collect();
    assert_eq!(left, vec![ConsumerId(1), ConsumerId(2), ConsumerId(3)], "one by one, in order");
    let started = events.iter().filter(|e| matches!(e, Event::Started { .. })).count();
    assert_eq!(started, 3);
    assert!(
        events.iter().any(|e| matches!(e, Event::ShutdownDeadlinePassed { abandoned, .. } if *abandoned > 0)),
        "a batch outlasted the shutdown deadline and was abandoned uncommitted"
    );
    assert!(sim.view().rolling_update.is_none(), "finished");
    let m = sim.metrics();
    assert_eq!(m.effects, m.distinct_handled, "{m:?}");
    assert_eq!(m.double_paid_cents, 0);
    assert_eq!(m.never_processed, 0);
    assert_eq!(m.total_lag, 0, "drained: {m:?}");
    assert_eq!(m.active_consumers, 3);
}

#[test]
fn a_rolling_update_refuses_a_second_one_and_unknown_consumers() {
    let mut sim = Sim::new(Config::default()).unwrap();
    sim.handle_tick(1);
    assert!(sim.handle_input(Input::RollingUpdate { group: None, consumers: vec![ConsumerId(7)] }).is_err());
    sim.handle_input(Input::RollingUpdate { group: None, consumers: vec![] }).unwrap();
    assert!(sim.handle_input(Input::RollingUpdate { group: None, consumers: vec![] }).is_err());
    assert!(sim.view().rolling_update.is_some());
}

#[test]
fn commit_cost_trades_requests_for_the_replay_window() {
    let each_record = run("commit-each-record").metrics();
    let each_batch = run("commit-each-batch").metrics();
    let on_timer = run("commit-on-timer").metrics();
    for m in [&each_record, &each_batch, &on_timer] {
        assert_eq!(m.never_processed, 0, "all three are at-least-once: {m:?}");
        assert_eq!(m.total_lag, 0, "drained: {m:?}");
    }
    assert!(
        each_record.commit_requests > each_batch.commit_requests
            && each_batch.commit_requests > on_timer.commit_requests,
        "requests: {} > {} > {}",
        each_record.commit_requests,
        each_batch.commit_requests,
        on_timer.commit_requests
    );
    assert!(
        each_record.duplicates <= each_batch.duplicates && each_batch.duplicates < on_timer.duplicates,
        "replays: {} ≤ {} < {}",
        each_record.duplicates,
        each_batch.duplicates,
        on_timer.duplicates
    );
    assert_eq!(each_record.duplicates, 0, "a crash between ticks leaves nothing handled uncommitted");
}

#[test]
fn the_commit_cost_comparison_reads_the_three_runs() {
    let rows = offsetlab_engine::commit_cost_comparison().unwrap();
    assert_eq!(
        rows.iter().map(|r| r.scenario).collect::<Vec<_>>(),
        vec!["commit-each-record", "commit-each-batch", "commit-on-timer"]
    );
    for row in &rows {
        let m = run(row.scenario).metrics();
        assert_eq!((row.commit_requests, row.replayed), (m.commit_requests, m.duplicates));
    }
}
