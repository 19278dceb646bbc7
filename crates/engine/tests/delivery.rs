//! The producer's delivery path and the cluster (issue 14): each new
//! built-in's outcome, the paired one's opposite, and the faults' inputs.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::{Config, Event, Input, InputError, Metrics, Sim, builtin};

/// Runs a built-in; its outcome check holds, and when the learner has a
/// step, the guided run without it does not reach the outcome.
fn run(name: &str) -> (Sim, Metrics) {
    let scenario = builtin(name).expect("built-in");
    let mut sim = scenario.run(None, None).expect("runs");
    sim.check_invariants();
    let guide = scenario.guide.as_ref().expect("a guide");
    assert!(guide.outcome.check(&sim).is_some(), "{name}: the full run reaches the outcome");
    if scenario.timeline.iter().any(|t| t.learner) {
        let guided = scenario.guided().run(None, None).expect("runs");
        guided.check_invariants();
        assert!(guide.outcome.check(&guided).is_none(), "{name}: without the learner's step, no outcome");
    }
    while sim.poll_event().is_some() {}
    let metrics = sim.metrics();
    (sim, metrics)
}

#[test]
fn acks_1_loses_acknowledged_records_when_the_leader_crashes() {
    let (_, m) = run("acks1-leader-crash");
    assert!(m.acked_lost >= 1, "{m:?}");
    assert_eq!(m.writes_refused, 0);
}

#[test]
fn acks_all_with_min_isr_2_survives_the_same_crash() {
    let (sim, m) = run("acks-all-survives");
    assert_eq!(m.acked_lost, 0, "{m:?}");
    assert_eq!(m.producer_duplicates, 0);
    // Every record sent reached the application, once.
    assert_eq!(m.delivered, m.produced, "{m:?}");
    assert_eq!(m.duplicates, 0);
    let _ = sim;
}

#[test]
fn a_retry_without_idempotence_writes_the_batch_twice() {
    let (_, m) = run("retry-without-idempotence");
    assert!(m.producer_duplicates >= 1, "{m:?}");
    // The consumer read each offset once: the duplicates are the producer's.
    assert_eq!(m.duplicates, m.duplicates_from_producer, "{m:?}");
    assert!(m.duplicates >= 1);
}

#[test]
fn the_idempotent_producer_writes_the_same_retry_once() {
    let (_, m) = run("idempotent-producer");
    assert_eq!(m.producer_duplicates, 0, "{m:?}");
    assert_eq!(m.duplicates, 0);
    assert_eq!(m.delivered, m.produced);
}

#[test]
fn five_in_flight_without_idempotence_reorder_a_retried_batch() {
    let (_, m) = run("inflight-reorders");
    assert!(m.producer_reordered >= 1, "{m:?}");
    assert_eq!(m.producer_duplicates, 0, "a lost request wrote nothing");
}

#[test]
fn an_unclean_election_loses_acknowledged_records() {
    let (_, m) = run("unclean-election");
    assert!(m.acked_lost >= 1, "{m:?}");
}

#[test]
fn cluster_inputs_are_refused_without_a_cluster() {
    let mut sim = Sim::new(Config::default()).unwrap();
    for input in [
        Input::CrashBroker { broker: 1 },
        Input::RestartBroker { broker: 1 },
        Input::LoseNextAck { partition: 0 },
        Input::LoseNextRequest { partition: 0 },
        Input::SlowFollower { broker: 1, fetch_per_tick: 0 },
    ] {
        assert!(matches!(sim.handle_input(input), Err(InputError::NoCluster { .. })));
    }
}

fn cluster_sim() -> Sim {
    let config: Config = serde_json::from_str(
        r#"{"partitions": 2, "consumers": 1, "cluster": {"brokers": 3, "replication_factor": 2},
            "producer": {"delivery": {"acks": "all", "linger_ticks": 0}}}"#,
    )
    .unwrap();
    Sim::new(config).unwrap()
}

#[test]
fn broker_inputs_check_the_broker_and_its_state() {
    let mut sim = cluster_sim();
    assert!(matches!(
        sim.handle_input(Input::CrashBroker { broker: 4 }),
        Err(InputError::NoSuchBroker { .. })
    ));
    assert!(matches!(
        sim.handle_input(Input::RestartBroker { broker: 1 }),
        Err(InputError::BrokerState { .. })
    ));
    sim.handle_input(Input::CrashBroker { broker: 1 }).unwrap();
    assert!(matches!(
        sim.handle_input(Input::CrashBroker { broker: 1 }),
        Err(InputError::BrokerState { .. })
    ));
    assert!(matches!(
        sim.handle_input(Input::LoseNextAck { partition: 2 }),
        Err(InputError::NoSuchPartition { partition: 2 })
    ));
    assert!(
        sim.handle_input(Input::AddPartitions { count: 1 }).is_err(),
        "the cluster's partitions are fixed"
    );
}

#[test]
fn a_leader_crash_elects_a_new_leader_and_records_keep_flowing() {
    let mut sim = cluster_sim();
    sim.handle_input(Input::KeepSending { per_tick: 1 }).unwrap();
    sim.handle_tick(10);
    sim.handle_input(Input::CrashBroker { broker: 1 }).unwrap();
    sim.handle_tick(60);
    sim.handle_input(Input::RestartBroker { broker: 1 }).unwrap();
    sim.handle_tick(120);
    sim.check_invariants();
    let mut elected = 0;
    let mut crashed = 0;
    while let Some(event) = sim.poll_event() {
        match event {
            Event::LeaderElected(leader_elected) => {
                assert_eq!(leader_elected.kind, "clean");
                elected += 1;
            }
            Event::BrokerCrashed { broker, .. } => {
                assert_eq!(broker, 1);
                crashed += 1;
            }
            _ => {}
        }
    }
    assert_eq!(crashed, 1);
    assert!(elected >= 1, "broker 1 led P0: a new leader was elected");
    let m = sim.metrics();
    assert_eq!(m.acked_lost, 0, "acks=all, clean elections");
    assert_eq!(m.producer_duplicates, 0, "idempotent by default");
    assert!(m.delivered > 100, "{m:?}");
}

#[test]
fn unknown_and_bad_cluster_fields_are_refused_with_their_name() {
    let unknown = serde_json::from_str::<Config>(r#"{"cluster": {"brokerz": 3}}"#).unwrap_err();
    assert!(unknown.to_string().contains("brokerz"), "{unknown}");
    let config: Config =
        serde_json::from_str(r#"{"cluster": {"brokers": 2, "replication_factor": 3}}"#).unwrap();
    let bad = Sim::new(config).unwrap_err();
    assert_eq!(bad.field, "cluster.replication_factor");
    let config: Config =
        serde_json::from_str(r#"{"producer": {"delivery": {"acks": "1", "enable_idempotence": true}}}"#)
            .unwrap();
    assert_eq!(Sim::new(config).unwrap_err().field, "producer.delivery.acks");
}

#[test]
fn the_cluster_view_follows_a_crash_an_election_and_the_high_watermark() {
    let plain = Sim::new(Config::default()).unwrap();
    assert!(plain.cluster_view().is_none(), "no delivery path, no cluster view");

    let mut sim = cluster_sim();
    let before = sim.cluster_view().expect("a cluster");
    assert_eq!(before.brokers.iter().map(|b| b.id).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!((before.replication_factor, before.min_insync_replicas), (2, 1));
    assert_eq!(before.acks, offsetlab_engine::Acks::All);
    assert!(before.idempotence, "Kafka's default with acks=all");
    for r in &before.partitions {
        assert_eq!(r.replicas.len(), 2);
        assert!(r.replicas.iter().all(|x| x.in_isr), "every replica starts in the ISR");
        let leader = r.leader.expect("a leader");
        let leads = &before.brokers[leader as usize - 1].leader_of;
        assert!(leads.contains(&r.partition), "broker {leader} lists P{}", r.partition);
    }

    sim.handle_input(Input::KeepSending { per_tick: 2 }).unwrap();
    sim.handle_tick(10);
    let p0_leader = sim.cluster_view().unwrap().partitions[0].leader.unwrap();
    sim.handle_input(Input::CrashBroker { broker: p0_leader }).unwrap();
    sim.handle_tick(40);
    let after = sim.cluster_view().unwrap();
    let down = &after.brokers[p0_leader as usize - 1];
    assert!(!down.alive && down.fenced && down.leader_of.is_empty(), "{down:?}");
    let p0 = &after.partitions[0];
    assert!(p0.leader.is_some_and(|l| l != p0_leader), "P0 has a new leader: {p0:?}");
    assert!(p0.leader_epoch > before.partitions[0].leader_epoch);
    let isr: Vec<u32> = p0.replicas.iter().filter(|r| r.in_isr).map(|r| r.broker).collect();
    assert_eq!(isr, [p0.leader.unwrap()], "the crashed replica left the ISR");
    // Consumers read below the high watermark: the view's log end is the leader's.
    let view = sim.view();
    for r in &after.partitions {
        let leader_end = r.replicas.iter().find(|x| Some(x.broker) == r.leader).unwrap().log_end;
        assert!(r.high_watermark <= leader_end);
        assert_eq!(view.partitions[r.partition as usize].log_end, r.high_watermark, "P{}", r.partition);
    }
}

/// The log says what the brokers did: slow followers, a crash and the
/// election that cut acknowledged records off, each in a sentence.
#[test]
fn broker_crashes_and_elections_are_announced() {
    let scenario = builtin("acks1-leader-crash").expect("built-in");
    let ticks = scenario.ticks;
    let seed = scenario.config.seed;
    let mut history = offsetlab_engine::History::new(scenario, seed).expect("valid");
    let mut said = Vec::new();
    for _ in 0..ticks {
        history.step();
        said.extend(std::iter::from_fn(|| history.poll_event()).filter_map(|e| e.announcement()));
    }
    let has = |needle: &str| said.iter().any(|s| s.contains(needle));
    assert!(has("crashed: the partitions it led need a new leader"), "{said:#?}");
    assert!(has("Broker 2's replicas stopped fetching"), "the slow followers, in words: {said:#?}");
    assert!(said.iter().any(|s| s.starts_with("A clean election (from the ISR) made broker ")), "{said:#?}");
    assert!(has("acknowledged."), "the election's loss is said: {said:#?}");
}

/// Retention counts the records on the leader's log: with one record
/// retained and followers that have not copied yet, it moves the log start
/// past the high watermark (five sent, the log starts at 4, the high
/// watermark is 0). An empty group's reset and its describe table must not
/// panic there.
fn retention_past_the_high_watermark() -> Sim {
    let config: Config = serde_json::from_str(
        r#"{"partitions": 1, "retention_records": 1, "consumers": 0,
            "cluster": {"brokers": 3, "replication_factor": 3}}"#,
    )
    .unwrap();
    let mut sim = Sim::new(config).unwrap();
    sim.handle_input(Input::Send { count: 5 }).unwrap();
    sim.handle_tick(1);
    sim.check_invariants();
    let p0 = &sim.view().partitions[0];
    assert_eq!((p0.log_start, p0.log_end), (4, 5));
    assert_eq!(sim.cluster_view().unwrap().partitions[0].high_watermark, 0, "the followers have not copied");
    sim
}

/// Found by the fuzzer (`min > max` in `reset_offsets`'s clamp, for an
/// offset; `--to-latest` committed the high watermark, below the log start):
/// the target goes to the log start, the first offset there is.
#[test]
fn a_reset_while_retention_is_past_the_high_watermark_goes_to_the_log_start() {
    use offsetlab_engine::ResetSpec;
    for reset in [ResetSpec::Offset { partition: None, offset: 0 }, ResetSpec::Latest] {
        let mut sim = retention_past_the_high_watermark();
        sim.handle_input(Input::ResetOffsets { group: None, reset }).unwrap();
        sim.check_invariants();
        assert_eq!(sim.committed(0), Some(4), "{reset:?}");
    }
}

/// Found by the fuzzer (a subtraction overflow in the describe table): a
/// committed offset past the high watermark shows a lag of 0, as the view does.
#[test]
fn describe_shows_no_lag_for_a_committed_offset_past_the_high_watermark() {
    let mut sim = retention_past_the_high_watermark();
    sim.handle_input(Input::ResetOffsets { group: None, reset: offsetlab_engine::ResetSpec::Latest })
        .unwrap();
    let text = offsetlab_engine::describe(&sim);
    let row = text.lines().find(|l| l.starts_with("demo ")).unwrap_or_else(|| panic!("{text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[3..6], ["4", "0", "0"], "CURRENT-OFFSET, LOG-END-OFFSET, LAG: {text}");
    assert_eq!(sim.view().partitions[0].lag, Some(0));
}
