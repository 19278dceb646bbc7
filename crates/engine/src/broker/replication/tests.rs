#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

const ID: &str = "kXkkn1QrTOGrUKh-fE5wRw";

fn cluster(brokers: u32, partitions: u32, rf: u32, min_isr: u32) -> ReplicationConfig {
    ReplicationConfig { min_insync_replicas: min_isr, ..ReplicationConfig::new(brokers, partitions, rf) }
}

/// Runs ticks `from..=to`, checking the invariants after each, and returns the events.
fn run(r: &mut Replication, from: u64, to: u64) -> Vec<ReplicationEvent> {
    for tick in from..=to {
        r.handle_tick(tick);
        r.check();
    }
    drain(r)
}

fn drain(r: &mut Replication) -> Vec<ReplicationEvent> {
    std::iter::from_fn(|| r.poll_event()).collect()
}

fn elections(events: &[ReplicationEvent]) -> Vec<Election> {
    events
        .iter()
        .filter_map(|e| match e {
            ReplicationEvent::Elected(e) => Some(*e),
            _ => None,
        })
        .collect()
}

fn acks(events: &[ReplicationEvent]) -> Vec<AckOutcome> {
    events
        .iter()
        .filter_map(|e| match e {
            ReplicationEvent::Acked(a) => Some(*a),
            _ => None,
        })
        .collect()
}

/// The built-in `acks1-leader-crash`: acks=1 answers on the leader's append;
/// the leader dies before its followers copy the last records, a follower
/// takes over cleanly, and the acknowledged records are gone.
#[test]
fn acks1_leader_crash_loses_acknowledged_records() {
    let mut r = Replication::new(cluster(3, 1, 3, 1)).unwrap();
    assert_eq!(r.handle_append(0, 5, Acks::One, 1).map(|a| a.acknowledged), Ok(true));
    run(&mut r, 2, 3);
    assert_eq!(r.high_watermark(0), 5, "copied at 2, reported at 3");
    let appended = r.handle_append(0, 4, Acks::One, 4).unwrap();
    assert_eq!((appended.base_offset, appended.end_offset, appended.acknowledged), (5, 9, true));
    r.handle_crash(1, 4);
    assert_eq!(r.handle_append(0, 1, Acks::One, 5), Err(ProduceError::NetworkException));
    // The controller fences broker 1 when its session (9 ticks) runs out.
    let events = run(&mut r, 5, 12);
    assert!(elections(&events).is_empty(), "still in its session at 12");
    let events = run(&mut r, 13, 13);
    assert!(events.contains(&ReplicationEvent::Fenced { broker: 1 }));
    let election = elections(&events)[0];
    assert_eq!(
        election,
        Election {
            partition: 0,
            leader: Some(2),
            leader_epoch: 1,
            kind: ElectionKind::Clean,
            truncate_to: Some(5),
            lost: 4,
            lost_below_high_watermark: 0,
            lost_acknowledged: 4,
        }
    );
    assert_eq!(r.isr(0), [2, 3]);
    assert_eq!((r.log_end(0), r.high_watermark(0)), (5, 5));
    // Broker 1 comes back, is cut back, catches up and rejoins the ISR.
    r.handle_restart(1, 20);
    assert_eq!(r.replica_log_end(0, 1), Some(5));
    run(&mut r, 21, 22);
    assert_eq!(r.isr(0), [1, 2, 3], "the leader sends its ISR in ascending ids");
    assert_eq!(r.leader(0), Some(2), "no preferred leader election");
}

/// The built-in `acks-all-survives`: the same crash with acks=all and
/// min.insync.replicas=2 loses nothing acknowledged: the last append was never
/// answered.
#[test]
fn acks_all_with_min_isr_2_survives_the_same_crash() {
    let mut r = Replication::new(cluster(3, 1, 3, 2)).unwrap();
    assert_eq!(r.handle_append(0, 5, Acks::All, 1).map(|a| a.acknowledged), Ok(false));
    assert!(acks(&drain(&mut r)).is_empty(), "waits for the HW");
    let events = run(&mut r, 2, 3);
    assert_eq!(acks(&events), [AckOutcome { partition: 0, base_offset: 0, end_offset: 5, result: Ok(()) }]);
    r.handle_append(0, 4, Acks::All, 4).unwrap();
    r.handle_crash(1, 4);
    assert_eq!(
        acks(&drain(&mut r)),
        [AckOutcome {
            partition: 0,
            base_offset: 5,
            end_offset: 9,
            result: Err(ProduceError::NetworkException)
        }]
    );
    let election = elections(&run(&mut r, 5, 13))[0];
    assert_eq!(
        (election.leader, election.kind, election.truncate_to),
        (Some(2), ElectionKind::Clean, Some(5))
    );
    assert_eq!((election.lost, election.lost_acknowledged, election.lost_below_high_watermark), (4, 0, 0));
}

#[test]
fn acks_all_below_min_isr_is_refused_with_not_enough_replicas() {
    let config = ReplicationConfig { broker_session_timeout_ticks: 0, ..cluster(3, 1, 3, 2) };
    let mut r = Replication::new(config).unwrap();
    r.handle_crash(2, 1);
    assert_eq!(r.isr(0), [1, 3]);
    assert!(r.elr(0).is_empty(), "at min ISR there is no ELR");
    r.handle_crash(3, 1);
    assert_eq!(r.isr(0), [1]);
    assert_eq!(r.elr(0), [3], "the member that left below min ISR");
    assert_eq!(r.handle_append(0, 1, Acks::All, 2), Err(ProduceError::NotEnoughReplicas));
    assert_eq!(r.log_end(0), 0, "refused before the append");
    // acks=1 is taken, but the HW stays: never under min ISR.
    assert!(r.handle_append(0, 3, Acks::One, 2).is_ok());
    run(&mut r, 3, 10);
    assert_eq!((r.log_end(0), r.high_watermark(0)), (3, 0));
}

#[test]
fn an_acks_all_produce_times_out_while_a_dead_follower_holds_the_high_watermark() {
    let config = ReplicationConfig {
        broker_session_timeout_ticks: 100,
        replica_lag_time_max_ticks: 100,
        ..cluster(2, 1, 2, 1)
    };
    let mut r = Replication::new(config).unwrap();
    r.handle_crash(2, 0);
    r.handle_append(0, 1, Acks::All, 1).unwrap();
    assert!(acks(&run(&mut r, 2, 30)).is_empty());
    assert_eq!(
        acks(&run(&mut r, 31, 31)),
        [AckOutcome {
            partition: 0,
            base_offset: 0,
            end_offset: 1,
            result: Err(ProduceError::RequestTimedOut)
        }]
    );
}

#[test]
fn a_follower_down_past_the_lag_time_leaves_the_isr_and_rejoins_after_restart() {
    let config = ReplicationConfig { broker_session_timeout_ticks: 60, ..cluster(3, 1, 3, 1) };
    let mut r = Replication::new(config).unwrap();
    run(&mut r, 0, 1);
    r.handle_crash(3, 1);
    for tick in 2..=44 {
        r.handle_append(0, 1, Acks::One, tick).unwrap();
        r.handle_tick(tick);
        r.check();
    }
    // Last caught up at 1; the leader checks every 15 ticks: 30 − 1 ≤ 30 keeps it.
    assert_eq!(r.isr(0), [1, 2, 3]);
    assert_eq!(r.high_watermark(0), 0, "a dead member of the ISR holds the HW");
    drain(&mut r);
    let events = run(&mut r, 45, 45);
    assert!(events.iter().any(|e| matches!(e, ReplicationEvent::IsrChanged { isr, .. } if *isr == [1, 2])));
    assert_eq!(r.high_watermark(0), 43, "without it the HW moves to broker 2's fetch offset");
    // Fenced at 61 (no ISR to leave), back at 70, in the ISR once it caught up.
    run(&mut r, 46, 69);
    assert!(r.is_fenced(3));
    r.handle_restart(3, 70);
    assert!(!r.is_fenced(3));
    run(&mut r, 71, 71);
    assert_eq!(r.isr(0), [1, 2], "copied at 71, the leader learns it at the next fetch");
    run(&mut r, 72, 72);
    assert_eq!(r.isr(0), [1, 2, 3]);
    assert_eq!(r.replica_log_end(0, 3), Some(r.log_end(0)));
}

#[test]
fn a_slow_follower_leaves_the_isr_and_catches_up() {
    let mut r = Replication::new(cluster(2, 1, 2, 1)).unwrap();
    r.set_fetch_rate(2, 1);
    for tick in 1..=60 {
        // A fetch carries at least one whole batch: one batch a tick against two.
        r.handle_append(0, 3, Acks::One, tick).unwrap();
        r.handle_append(0, 3, Acks::One, tick).unwrap();
        r.handle_tick(tick);
        r.check();
    }
    assert_eq!(r.isr(0), [1], "one batch a tick against two");
    r.set_fetch_rate(2, u64::MAX);
    run(&mut r, 61, 62);
    assert_eq!(r.isr(0), [1, 2]);
    assert_eq!(r.last_caught_up_tick(0, 2), Some(62));
}

#[test]
fn a_follower_copies_whole_batches_so_an_election_never_splits_one() {
    let mut r = Replication::new(cluster(2, 1, 2, 1)).unwrap();
    r.set_fetch_rate(2, 0);
    r.handle_append(0, 2, Acks::One, 1).unwrap();
    r.handle_append(0, 3, Acks::One, 1).unwrap();
    r.handle_append(0, 1, Acks::One, 1).unwrap();
    // At most 1 record a fetch: the first batch (2) all the same, as Kafka returns at least one.
    assert_eq!(r.handle_fetch_step(0, 2, 1, 2), 2);
    assert_eq!(r.replica_log_end(0, 2), Some(2));
    // At most 3: the next batch (3) fits, the one after it would not.
    assert_eq!(r.handle_fetch_step(0, 2, 3, 3), 3);
    assert_eq!(r.replica_log_end(0, 2), Some(5));
    // The leader crashes before broker 2 copies the last batch: the new
    // leader's log ends at a batch, never inside one.
    r.handle_crash(1, 4);
    run(&mut r, 4, 20);
    assert_eq!(r.leader(0), Some(2));
    assert_eq!(r.log_end(0), 5);
}

/// The built-in `unclean-election`: the only live replica is out of sync;
/// with unclean.leader.election.enable it leads and acknowledged records,
/// some of them below the HW, are gone.
#[test]
fn unclean_election_loses_acknowledged_records() {
    let config = ReplicationConfig {
        unclean_leader_election: true,
        broker_session_timeout_ticks: 0,
        ..cluster(2, 1, 2, 1)
    };
    let mut r = Replication::new(config).unwrap();
    r.handle_append(0, 2, Acks::One, 1).unwrap();
    run(&mut r, 2, 3);
    r.set_fetch_rate(2, 0);
    for tick in 4..=50 {
        r.handle_append(0, 1, Acks::One, tick).unwrap();
        r.handle_tick(tick);
    }
    assert_eq!(r.isr(0), [1]);
    let hw = r.high_watermark(0);
    assert!(hw > 2, "min ISR 1: the leader alone moves the HW");
    drain(&mut r);
    r.handle_crash(1, 51);
    let election = elections(&drain(&mut r))[0];
    assert_eq!(
        (election.leader, election.kind, election.truncate_to),
        (Some(2), ElectionKind::Unclean, Some(2))
    );
    assert_eq!(election.lost_below_high_watermark, hw - 2);
    assert!(election.lost_acknowledged >= 1);
    assert_eq!((r.isr(0), r.elr(0), r.high_watermark(0)), (&[2][..], &[][..], 2));
    r.check();
}

/// The same without unclean election: offline (`Leader: none`) until a member
/// of the ISR or the ELR is back — here the last leader, through KIP-966's
/// last known leader, with nothing lost.
#[test]
fn without_unclean_election_the_partition_stays_offline_until_its_last_leader_returns() {
    let config = ReplicationConfig { broker_session_timeout_ticks: 0, ..cluster(2, 1, 2, 1) };
    let mut r = Replication::new(config).unwrap();
    r.set_fetch_rate(2, 0);
    for tick in 1..=45 {
        r.handle_append(0, 1, Acks::One, tick).unwrap();
        r.handle_tick(tick);
    }
    assert_eq!(r.isr(0), [1], "out at the check at 45: 45 − 0 > 30");
    r.handle_crash(1, 46);
    let election = elections(&drain(&mut r))[0];
    assert_eq!((election.leader, election.kind, election.truncate_to), (None, ElectionKind::Offline, None));
    assert_eq!(r.handle_append(0, 1, Acks::One, 47), Err(ProduceError::LeaderNotAvailable));
    assert_eq!(
        r.describe("orders", ID),
        format!(
            "Topic: orders\tTopicId: {ID}\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: min.insync.replicas=1\n\
             \tTopic: orders\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \tElr: 1\tLastKnownElr: 1\n"
        )
    );
    run(&mut r, 47, 60);
    assert_eq!(r.leader(0), None, "broker 2 is out of sync: never elected");
    r.handle_restart(1, 61);
    let election = elections(&drain(&mut r))[0];
    assert_eq!((election.leader, election.kind, election.lost), (Some(1), ElectionKind::LastKnownLeader, 0));
    assert_eq!((r.isr(0), r.elr(0), r.last_known_elr(0)), (&[1][..], &[][..], &[][..]));
}

/// Where ELR changes the outcome: min ISR 2, the ISR down to the leader
/// (a follower fenced, one stuck), then the leader crashes. With ELR the stuck
/// follower — in the ELR since the ISR dropped below 2, and holding everything
/// below the HW, which cannot move under min ISR — leads; without ELR the
/// partition is offline.
#[test]
fn elr_elects_a_stuck_follower_where_kafka_without_it_goes_offline() {
    for elr in [true, false] {
        let config = ReplicationConfig {
            eligible_leader_replicas: elr,
            broker_session_timeout_ticks: 0,
            ..cluster(3, 1, 3, 2)
        };
        let mut r = Replication::new(config).unwrap();
        r.handle_append(0, 4, Acks::All, 1).unwrap();
        run(&mut r, 2, 3);
        r.handle_crash(3, 4);
        r.set_fetch_rate(2, 0);
        for tick in 4..=50 {
            r.handle_append(0, 1, Acks::One, tick).unwrap();
            r.handle_tick(tick);
            r.check();
        }
        assert_eq!(r.isr(0), [1]);
        assert_eq!(r.elr(0), if elr { &[2][..] } else { &[][..] });
        assert_eq!(r.high_watermark(0), 4, "frozen under min ISR");
        drain(&mut r);
        r.handle_crash(1, 51);
        let election = elections(&drain(&mut r))[0];
        if elr {
            assert_eq!((election.leader, election.kind), (Some(2), ElectionKind::Elr));
            assert_eq!((election.truncate_to, election.lost_below_high_watermark), (Some(4), 0));
            assert_eq!((r.isr(0), r.elr(0)), (&[2][..], &[1][..]));
            assert!(r.handle_append(0, 1, Acks::One, 52).is_ok(), "online");
        } else {
            assert_eq!((election.leader, election.kind), (None, ElectionKind::Offline));
            assert_eq!(r.isr(0), [1], "without ELR the ISR keeps its last member");
            assert_eq!(r.handle_append(0, 1, Acks::One, 52), Err(ProduceError::LeaderNotAvailable));
        }
        r.check();
    }
}

#[test]
fn describe_text_of_a_three_broker_cluster() {
    let config = ReplicationConfig { broker_session_timeout_ticks: 0, ..cluster(3, 3, 3, 2) };
    let mut r = Replication::new(config).unwrap();
    assert_eq!(r.replicas(2), [3, 1, 2], "placement: (p + i) % brokers + 1");
    let header = format!(
        "Topic: orders\tTopicId: {ID}\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: min.insync.replicas=2\n"
    );
    assert_eq!(
        r.describe("orders", ID),
        format!(
            "{header}\
             \tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: \n\
             \tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2,3,1\tElr: \tLastKnownElr: \n\
             \tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 3,1,2\tIsr: 3,1,2\tElr: \tLastKnownElr: \n"
        )
    );
    r.handle_crash(1, 1);
    r.handle_crash(2, 1);
    assert_eq!(
        r.describe("orders", ID),
        format!(
            "{header}\
             \tTopic: orders\tPartition: 0\tLeader: 3\tReplicas: 1,2,3\tIsr: 3\tElr: 2\tLastKnownElr: \n\
             \tTopic: orders\tPartition: 1\tLeader: 3\tReplicas: 2,3,1\tIsr: 3\tElr: 2\tLastKnownElr: \n\
             \tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 3,1,2\tIsr: 3\tElr: 2\tLastKnownElr: \n"
        )
    );
    let unclean =
        ReplicationConfig { unclean_leader_election: true, eligible_leader_replicas: false, ..config };
    let r = Replication::new(unclean).unwrap();
    assert!(r.describe("orders", ID).starts_with(&format!(
        "Topic: orders\tTopicId: {ID}\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: min.insync.replicas=2,unclean.leader.election.enable=true\n"
    )));
}

#[test]
fn epochs_count_leader_and_partition_changes() {
    let config = ReplicationConfig { broker_session_timeout_ticks: 0, ..cluster(3, 1, 3, 1) };
    let mut r = Replication::new(config).unwrap();
    assert_eq!((r.leader_epoch(0), r.partition_epoch(0)), (0, 0));
    r.handle_crash(3, 1); // ISR shrink only
    assert_eq!((r.leader_epoch(0), r.partition_epoch(0)), (0, 1));
    r.handle_crash(1, 1); // leader change
    assert_eq!((r.leader(0), r.leader_epoch(0), r.partition_epoch(0)), (Some(2), 1, 2));
}

#[test]
fn a_restart_waits_for_the_controller_to_fence_the_old_session() {
    let mut r = Replication::new(cluster(3, 1, 3, 1)).unwrap();
    r.handle_crash(2, 1);
    r.handle_restart(2, 3);
    assert!(r.is_alive(2) && !r.is_fenced(2));
    assert_eq!(r.handle_fetch_step(0, 2, 10, 4), 0, "not registered yet");
    let events = run(&mut r, 4, 10);
    let fenced = events.iter().position(|e| *e == ReplicationEvent::Fenced { broker: 2 });
    let unfenced = events.iter().position(|e| *e == ReplicationEvent::Unfenced { broker: 2 });
    assert!(fenced.is_some() && fenced < unfenced, "fenced at 10, then registered");
}

#[test]
fn bad_settings_are_refused_naming_the_field() {
    let field = |c: ReplicationConfig| Replication::new(c).unwrap_err().field;
    assert_eq!(field(ReplicationConfig::new(6, 1, 1)), "cluster.brokers");
    assert_eq!(field(ReplicationConfig::new(0, 1, 1)), "cluster.brokers");
    assert_eq!(field(ReplicationConfig::new(3, 0, 1)), "partitions");
    assert_eq!(field(ReplicationConfig::new(3, 1, 4)), "cluster.replication_factor");
    assert_eq!(field(cluster(3, 1, 2, 3)), "cluster.min_insync_replicas");
    assert_eq!(field(cluster(3, 1, 2, 0)), "cluster.min_insync_replicas");
    let lag = ReplicationConfig { replica_lag_time_max_ticks: 0, ..cluster(3, 1, 2, 1) };
    assert_eq!(field(lag), "cluster.replica_lag_time_max_ticks");
}

/// Random sequences of appends, fetch steps, crashes and restarts (proptest
/// is a native dev-dependency).
#[cfg(not(target_arch = "wasm32"))]
mod sequences {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Step {
        Append { partition: u32, records: u64, acks: u8 },
        Fetch { partition: u32, broker: u32, max: u64 },
        Rate { broker: u32, rate: u64 },
        Tick(u64),
        Crash(u32),
        Restart(u32),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0..2u32, 1..4u64, 0..3u8).prop_map(|(partition, records, acks)| Step::Append { partition, records, acks }),
            2 => (0..2u32, 1..6u32, 0..4u64).prop_map(|(partition, broker, max)| Step::Fetch { partition, broker, max }),
            1 => (1..6u32, prop_oneof![Just(0u64), Just(1), Just(u64::MAX)]).prop_map(|(broker, rate)| Step::Rate { broker, rate }),
            4 => (1..8u64).prop_map(Step::Tick),
            1 => (1..6u32).prop_map(Step::Crash),
            1 => (1..6u32).prop_map(Step::Restart),
        ]
    }

    fn config() -> impl Strategy<Value = ReplicationConfig> {
        (1..=5u32, 1..=5u32, 1..=5u32, any::<bool>(), any::<bool>(), 0..6u64, 2..12u64).prop_filter_map(
            "valid",
            |(brokers, rf, min, unclean, elr, session, lag)| {
                let config = ReplicationConfig {
                    brokers,
                    partitions: 2,
                    replication_factor: rf,
                    min_insync_replicas: min,
                    replica_lag_time_max_ticks: lag,
                    broker_session_timeout_ticks: session,
                    request_timeout_ticks: 10,
                    unclean_leader_election: unclean,
                    eligible_leader_replicas: elr,
                };
                config.validate().is_ok().then_some(config)
            },
        )
    }

    proptest! {
        /// Whatever happens, the invariants hold (`check` after every step),
        /// the HW never goes down but by an unclean election's truncation,
        /// and clean elections (ISR, ELR, last known leader) never cut below a
        /// HW the partition reached.
        #[test]
        fn any_sequence_keeps_the_invariants(config in config(), steps in proptest::collection::vec(step(), 0..120)) {
            let mut r = Replication::new(config).unwrap();
            prop_assert_eq!(r.config(), &config);
            let mut now = 0u64;
            let mut hw_reached = [0u64; 2];
            let mut hw = [0u64; 2];
            for step in steps {
                match step {
                    Step::Append { partition, records, acks } => {
                        let acks = [Acks::Zero, Acks::One, Acks::All][acks as usize];
                        let before = r.log_end(partition);
                        match r.handle_append(partition, records, acks, now) {
                            Ok(a) => prop_assert_eq!((a.base_offset, a.end_offset), (before, before + records)),
                            Err(_) => prop_assert_eq!(r.log_end(partition), before),
                        }
                    }
                    Step::Fetch { partition, broker, max } => {
                        if broker <= config.brokers {
                            let copied = r.handle_fetch_step(partition, broker, max, now);
                            // Whole batches within `max`, or the first batch
                            // alone when it is larger (appends here carry at
                            // most 3); `check` asserts every LEO ends a batch.
                            prop_assert!(copied <= max.max(3), "{} copied with at most {}", copied, max);
                        }
                    }
                    Step::Rate { broker, rate } => r.set_fetch_rate(broker, rate),
                    Step::Tick(ticks) => {
                        for _ in 0..ticks {
                            now += 1;
                            r.handle_tick(now);
                        }
                    }
                    Step::Crash(broker) => r.handle_crash(broker, now),
                    Step::Restart(broker) => r.handle_restart(broker, now),
                }
                r.check();
                let mut unclean_cut = [false; 2];
                while let Some(event) = r.poll_event() {
                    if let ReplicationEvent::Elected(e) = event {
                        let p = e.partition as usize;
                        if e.kind == ElectionKind::Unclean {
                            unclean_cut[p] |= e.lost_below_high_watermark > 0;
                        } else {
                            // Clean, ELR and last-known-leader elections lose nothing
                            // consumers could have read.
                            prop_assert_eq!(e.lost_below_high_watermark, 0, "{:?}", e);
                            prop_assert!(e.truncate_to.is_none_or(|t| t >= hw_reached[p]), "{:?} below {}", e, hw_reached[p]);
                        }
                        prop_assert_eq!(e.lost >= e.lost_acknowledged, true);
                    }
                }
                for p in 0..2u32 {
                    let i = p as usize;
                    let now_hw = r.high_watermark(p);
                    prop_assert!(now_hw >= hw[i] || unclean_cut[i], "HW went down from {} to {}", hw[i], now_hw);
                    if unclean_cut[i] {
                        hw_reached[i] = now_hw;
                    }
                    hw[i] = now_hw;
                    hw_reached[i] = hw_reached[i].max(now_hw);
                    prop_assert!(r.log_end(p) >= now_hw);
                }
                prop_assert_eq!(r.events_dropped(), 0);
            }
        }
    }
}
