//! Seed 000's mechanisms: booblik's offset store, torn and atomic
//! checkpoints, resumedFrom, the split check, key erasure, partitionFor(null).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

use common::events_of;
use offsetlab_engine::{ConsumerId, Event, FindingKind, Input, Scenario, Sim, builtin};

fn run(name: &str) -> Sim {
    let sim = builtin(name).expect("built-in").run(None, None).expect("runs");
    sim.check_invariants();
    sim
}

const C1: ConsumerId = ConsumerId(1);

/// The scenario was named after seed 000's system, whose name the page no
/// longer shows: a link with the old name still opens it, under the new one.
#[test]
fn the_checkpoint_scenario_opens_by_its_old_name_too() {
    let old = builtin("booblik-checkpoint").expect("the old name still loads");
    assert_eq!(old.name, "consumer-checkpoint");
    assert_eq!(old, builtin("consumer-checkpoint").unwrap());
    assert!(builtin("booblik-nothing").is_err());
}

#[test]
fn booblik_checkpoint_resumes_one_batch_back_legally() {
    let sim = run("consumer-checkpoint");
    let m = sim.metrics();
    assert!(m.duplicates > 0 && m.duplicates <= 5, "at most one batch replays: {m:?}");
    assert_eq!(m.never_processed, 0);
    let check = sim.split_check();
    assert!(check.passed(), "{check:#?}");
    assert_eq!(check.legal_replays, 1, "{check:#?}");
    let c1 = sim.view().consumers.into_iter().find(|c| c.id == C1).unwrap();
    assert_eq!(c1.resumed_from.len(), 1, "resumedFrom shows on the card: {c1:?}");
    let stats = sim.stats();
    let entry = stats.iter().find(|s| s.consumer == C1).expect("c1 in /stats");
    assert_eq!(entry.resumed_from, Some(c1.resumed_from[0].1));
    // Everything drained: the position each consumer holds equals the records written.
    for p in &check.partitions {
        assert_eq!(p.position, Some(p.written), "{p:?}");
    }
    let json = serde_json::to_value(entry).unwrap();
    for key in ["consumer", "partition", "position", "resumedFrom", "handled", "lastCheckpointTick"] {
        assert!(json.get(key).is_some(), "/stats has {key}: {json}");
    }
}

#[test]
fn a_torn_in_place_write_replays_far_back_and_the_check_flags_it() {
    let (_, events) = events_of("torn-checkpoint");
    let torn = events
        .iter()
        .find_map(|e| match e {
            Event::CheckpointTorn { intended, stored, .. } => Some((*intended, *stored)),
            _ => None,
        })
        .expect("the crash tore the write");
    assert_eq!(torn.0, 600);
    assert!(torn.1 < 100, "a prefix of 600's digits: {torn:?}");
    let sim = run("torn-checkpoint");
    let m = sim.metrics();
    assert_eq!(m.torn_checkpoints, 1);
    assert!(m.duplicates >= 500, "hundreds replay silently: {m:?}");
    let check = sim.split_check();
    assert!(!check.passed());
    let violation =
        check.findings.iter().find(|f| f.kind == FindingKind::ResumedTooFarBack).expect("flagged");
    assert_eq!(violation.consumer, Some(C1));
    assert!(!violation.record_ids.is_empty() && violation.more > 0, "{violation:?}");
}

#[test]
fn an_atomic_write_never_tears() {
    let (_, events) = events_of("atomic-checkpoint");
    assert!(events.iter().any(|e| matches!(e, Event::CheckpointAbandoned { consumer: C1, .. })));
    assert!(!events.iter().any(|e| matches!(e, Event::CheckpointTorn { .. })));
    let resumed = events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::ResumedFrom { consumer: C1, offset, last_known, .. } => Some((*offset, *last_known)),
            _ => None,
        })
        .expect("c1 resumed");
    assert_eq!(resumed, (500, 600), "the old position stands; one batch replays");
    let sim = run("atomic-checkpoint");
    let check = sim.split_check();
    assert!(check.passed(), "{check:#?}");
    assert_eq!(check.legal_replays, 1);
    assert_eq!(sim.metrics().duplicates, 100);
}

#[test]
fn the_bridge_keeps_partitions_and_erases_keys() {
    let sim = run("key-erasure-bridge");
    let m = sim.metrics();
    assert!(m.bridged >= 40, "{m:?}");
    let far = sim.view().bridge.expect("a booblik topic");
    let total: u64 = far.iter().map(|p| p.log_end - p.log_start).sum();
    assert_eq!(total, m.bridged);
    for p in &far {
        for record in sim.bridge_records(p.partition, p.log_start, 1_000) {
            assert_eq!(record.key, None, "booblik's wire format has no key");
            // It sits on the partition its source record had.
            let source = (0..3)
                .find_map(|q| {
                    sim.records(q, 0, 10_000)
                        .into_iter()
                        .find(|r| r.record_id == record.source_record_id)
                        .map(|_| q)
                })
                .expect("source record");
            assert_eq!(source, p.partition);
        }
    }
}

#[test]
fn partition_for_null_makes_the_next_send_skip() {
    let (_, events) = events_of("partition-for-null");
    let sent: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::Produced { partition, .. } => Some(*partition),
            _ => None,
        })
        .collect();
    assert_eq!(sent, vec![0, 2, 1, 0, 2, 1], "every peek consumed a partition");
    // A fixed peek leaves the counter alone.
    let mut text = builtin("partition-for-null").unwrap().to_json();
    text = text.replace("\"advancing\": true", "\"advancing\": false");
    let fixed = Scenario::parse(&text).unwrap();
    let mut sim = fixed.run(None, Some(1)).unwrap();
    let produced: Vec<u32> = std::iter::from_fn(|| sim.poll_event())
        .filter_map(|e| match e {
            Event::Produced { partition, .. } => Some(partition),
            _ => None,
        })
        .collect();
    assert!(produced.is_empty(), "a headless run drains its events");
    let view = sim.view();
    let per_partition: Vec<u64> = view.partitions.iter().map(|p| p.log_end).collect();
    assert_eq!(per_partition, vec![2, 2, 2]);
    assert_eq!(sim.metrics().advancing_peeks, 0);
    assert_eq!(run("partition-for-null").metrics().advancing_peeks, 6);
}

#[test]
fn switching_the_position_store_is_an_input() {
    let mut sim = Sim::new(offsetlab_engine::Config::default()).unwrap();
    let position = offsetlab_engine::PositionModel::Consumer {
        writes: offsetlab_engine::CheckpointWrites::InPlace,
        write_ticks: 1,
    };
    sim.handle_input(Input::PositionStore { group: None, position }).unwrap();
    assert_eq!(sim.view().settings.position, position);
    let bad = offsetlab_engine::PositionModel::Consumer {
        writes: offsetlab_engine::CheckpointWrites::Atomic,
        write_ticks: 1_000,
    };
    assert!(sim.handle_input(Input::PositionStore { group: None, position: bad }).is_err());
}
