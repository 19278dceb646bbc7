//! Eager and cooperative rebalancing with Kafka's assignors inside the group.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

use common::events_of;
use offsetlab_engine::GroupConfig;
use offsetlab_engine::{Assignor, Config, ConsumerId, Event, Input, Sim};

/// A rebalance's assignment: client id, partitions.
type Assignment = Vec<(ConsumerId, Vec<u32>)>;

#[test]
fn cooperative_stops_only_what_moves() {
    let (eager, eager_events) = events_of("scale-out-eager");
    let (cooperative, cooperative_events) = events_of("scale-out-cooperative");
    let e = eager.metrics();
    let c = cooperative.metrics();
    assert!(e.partition_ticks_stopped > 0, "{e:?}");
    assert!(
        c.partition_ticks_stopped < e.partition_ticks_stopped,
        "cooperative {} vs eager {}",
        c.partition_ticks_stopped,
        e.partition_ticks_stopped
    );
    for m in [&e, &c] {
        assert_eq!((m.never_processed, m.out_of_key_order), (0, 0), "{m:?}");
        assert_eq!(m.active_consumers, 5, "{m:?}");
        assert_eq!(m.total_lag, 0, "{m:?}");
    }
    // Eager: one rebalance after the crash and the join. Cooperative: two (the hand-over).
    let completed = |events: &[Event]| {
        events.iter().filter(|e| matches!(e, Event::RebalanceCompleted { tick, .. } if *tick > 31)).count()
    };
    assert_eq!(completed(&eager_events), 1);
    assert_eq!(completed(&cooperative_events), 2);
    // Both end balanced: five live consumers, six partitions.
    for sim in [&eager, &cooperative] {
        let view = sim.view();
        let mut live: Vec<usize> =
            view.consumers.iter().filter(|c| c.id != ConsumerId(3)).map(|c| c.partitions.len()).collect();
        live.sort_unstable();
        assert_eq!(live, vec![1, 1, 1, 1, 2], "{:?}", view.consumers);
    }
}

#[test]
fn the_first_cooperative_round_holds_back_what_changes_owner() {
    let (_, events) = events_of("scale-out-cooperative");
    let rounds: Vec<(u32, Assignment)> = events
        .iter()
        .filter_map(|e| match e {
            Event::RebalanceCompleted { tick, generation, assignment, .. } if *tick > 31 => {
                Some((*generation, assignment.clone()))
            }
            _ => None,
        })
        .collect();
    let first: usize = rounds[0].1.iter().map(|(_, p)| p.len()).sum();
    let second: usize = rounds[1].1.iter().map(|(_, p)| p.len()).sum();
    assert!(first < 6, "moving partitions are held back: {rounds:?}");
    assert_eq!(second, 6, "and handed over in the second: {rounds:?}");
    // What a live member keeps in the first round, it still has in the second.
    for (consumer, kept) in &rounds[0].1 {
        let after = &rounds[1].1.iter().find(|(c, _)| c == consumer).expect("still a member").1;
        assert!(kept.iter().all(|p| after.contains(p)), "{consumer}: {kept:?} → {after:?}");
    }
}

#[test]
fn every_assignor_runs_the_group() {
    for assignor in [Assignor::Range, Assignor::RoundRobin, Assignor::Sticky, Assignor::CooperativeSticky] {
        let mut sim = Sim::new(Config {
            partitions: 5,
            groups: vec![GroupConfig { consumers: 3, assignor, ..GroupConfig::default() }],
            ..Config::default()
        })
        .unwrap();
        sim.handle_input(Input::KeepSending { per_tick: 2 }).unwrap();
        sim.handle_tick(20);
        sim.handle_input(Input::Crash { consumer: ConsumerId(2) }).unwrap();
        sim.handle_tick(60);
        sim.handle_input(Input::KeepSending { per_tick: 0 }).unwrap();
        sim.handle_tick(120);
        sim.check_invariants();
        let m = sim.metrics();
        assert_eq!(m.active_consumers, 2, "{assignor:?}: {m:?}");
        assert_eq!(m.never_processed, 0, "{assignor:?}");
        assert_eq!(m.total_lag, 0, "{assignor:?}: {m:?}");
    }
}

#[test]
fn the_assignor_can_change_between_rebalances() {
    let mut sim = Sim::new(Config {
        partitions: 4,
        groups: vec![GroupConfig { consumers: 2, ..GroupConfig::default() }],
        ..Config::default()
    })
    .unwrap();
    assert!(
        sim.handle_input(Input::Assignor { group: None, assignor: Assignor::CooperativeSticky }).is_err(),
        "refused while the first rebalance is in progress"
    );
    sim.handle_tick(1);
    sim.handle_input(Input::Assignor { group: None, assignor: Assignor::CooperativeSticky }).unwrap();
    assert_eq!(sim.view().settings.assignor, Assignor::CooperativeSticky);
    sim.handle_input(Input::AddConsumer { group: None }).unwrap();
    sim.handle_tick(20);
    sim.check_invariants();
    let events: Vec<Event> = std::iter::from_fn(|| sim.poll_event()).collect();
    let rounds =
        events.iter().filter(|e| matches!(e, Event::RebalanceCompleted { tick, .. } if *tick > 1)).count();
    assert_eq!(rounds, 2, "cooperative: a first round and a hand-over");
}

/// Kafka's classic consumer fails `commitSync()` with RebalanceInProgressException
/// between its JoinGroup and the SyncGroup's answer: in the cooperative scale-out,
/// the members that keep consuming while c3's session holds the rebalance up have
/// their commits refused, and nothing is written for them.
#[test]
fn commits_are_refused_while_a_member_rejoins() {
    let scenario = offsetlab_engine::builtin("scale-out-cooperative").unwrap();
    let group = &scenario.config.groups[0];
    // After the join phase, a poll reads its answer and the next the SyncGroup's:
    // two batches at most.
    let sync_ticks = 2 * u64::from(group.records_per_poll.div_ceil(group.handle_per_tick)) + 1;
    let mut events = Vec::new();
    let sim = scenario.run_observed(None, None, |e| events.push(e)).unwrap();
    let mut rebalancing = false;
    let mut completed_at = None;
    let mut refused = 0;
    let mut committed = std::collections::BTreeMap::new();
    for event in &events {
        match event {
            Event::RebalanceStarted { .. } => rebalancing = true,
            Event::RebalanceCompleted { tick, .. } => {
                rebalancing = false;
                completed_at = Some(*tick);
            }
            Event::CommitRefused { consumer, offsets, tick } => {
                let syncing = completed_at.is_some_and(|at| *tick <= at + sync_ticks);
                assert!(rebalancing || syncing, "{consumer} refused outside a rebalance at t{tick}");
                assert!(!offsets.is_empty());
                refused += 1;
            }
            Event::Committed { offsets, .. } => {
                for &(p, o) in offsets {
                    committed.insert(p, o);
                }
            }
            _ => {}
        }
    }
    assert!(refused > 0, "the members commit during the rebalance and are refused");
    // Only the commits that went through are the group's offsets.
    for (&p, &o) in &committed {
        assert_eq!(sim.committed(p), Some(o), "P{p}");
    }
}
