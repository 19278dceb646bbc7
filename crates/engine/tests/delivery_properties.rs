//! Property tests of the delivery path and the cluster: random cluster and
//! producer settings, random crashes, restarts, slow followers and lost
//! requests or acknowledgements; the Sim's invariants after every tick, and
//! the guarantees Kafka's settings promise.
#![cfg(not(target_arch = "wasm32"))]

use offsetlab_engine::{Acks, ClusterConfig, Config, DeliverySettings, Input, ProducerConfig, Sim};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Action {
    Crash(u32),
    Restart(u32),
    Slow(u32, u64),
    LoseAck(u32),
    LoseRequest(u32),
    Send(u32),
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        1 => (1u32..=3).prop_map(Action::Crash),
        1 => (1u32..=3).prop_map(Action::Restart),
        1 => (1u32..=3, prop_oneof![Just(0u64), Just(1), Just(100)]).prop_map(|(b, r)| Action::Slow(b, r)),
        1 => (0u32..2).prop_map(Action::LoseAck),
        1 => (0u32..2).prop_map(Action::LoseRequest),
        2 => (1u32..6).prop_map(Action::Send),
    ]
}

fn config(seed: u64, acks: Acks, idempotence: bool, min_isr: u32, unclean: bool, in_flight: u32) -> Config {
    Config {
        seed,
        partitions: 2,
        producer: ProducerConfig {
            send_per_tick: 1,
            delivery: Some(DeliverySettings {
                acks,
                enable_idempotence: Some(idempotence),
                max_in_flight: in_flight,
                request_timeout_ticks: 5,
                batch_records: 2,
                ..DeliverySettings::default()
            }),
            ..ProducerConfig::default()
        },
        cluster: Some(ClusterConfig {
            brokers: 3,
            replication_factor: 3,
            min_insync_replicas: min_isr,
            replica_lag_time_max_ticks: 6,
            broker_session_timeout_ticks: 3,
            unclean_leader_election: unclean,
            ..ClusterConfig::default()
        }),
        ..Config::default()
    }
}

/// Applies the actions, one every few ticks; with `one_down`, a crash waits
/// until every broker is back (at most one broker down at a time).
fn drive(sim: &mut Sim, actions: &[(u8, Action)], one_down: bool) {
    let mut down: Vec<u32> = Vec::new();
    for (gap, action) in actions {
        let input = match action.clone() {
            Action::Crash(_) if one_down && !down.is_empty() => continue,
            Action::Crash(b) => Input::CrashBroker { broker: b },
            Action::Restart(b) => Input::RestartBroker { broker: b },
            Action::Slow(b, r) => Input::SlowFollower { broker: b, fetch_per_tick: r },
            Action::LoseAck(p) => Input::LoseNextAck { partition: p },
            Action::LoseRequest(p) => Input::LoseNextRequest { partition: p },
            Action::Send(n) => Input::Send { count: n },
        };
        if sim.handle_input(input.clone()).is_ok() {
            match input {
                Input::CrashBroker { broker } => down.push(broker),
                Input::RestartBroker { broker } => down.retain(|&b| b != broker),
                _ => {}
            }
        }
        for _ in 0..*gap {
            let next = sim.now() + 1;
            sim.handle_tick(next);
            sim.check_invariants();
        }
        while sim.poll_event().is_some() {}
    }
    // Everything back and running: the producer settles.
    for b in down {
        sim.handle_input(Input::RestartBroker { broker: b }).unwrap();
    }
    for b in 1..=3 {
        sim.handle_input(Input::SlowFollower { broker: b, fetch_per_tick: 100 }).unwrap();
    }
    let end = sim.now() + 60;
    sim.handle_tick(end);
    sim.check_invariants();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any settings, any faults: the invariants hold after every tick.
    #[test]
    fn the_invariants_hold_under_any_faults(
        seed in 0u64..1000,
        acks in prop_oneof![Just(Acks::Zero), Just(Acks::One), Just(Acks::All)],
        min_isr in 1u32..=3,
        unclean: bool,
        in_flight in 1u32..=5,
        actions in prop::collection::vec((1u8..6, action()), 0..25),
    ) {
        let idempotence = false;
        let mut sim = Sim::new(config(seed, acks, idempotence, min_isr, unclean, in_flight)).unwrap();
        drive(&mut sim, &actions, false);
    }

    /// acks=all, min.insync.replicas=2, clean elections only, at most one
    /// broker down at a time: nothing acknowledged is lost; and with
    /// idempotence nothing is written twice.
    #[test]
    fn acks_all_with_min_isr_2_loses_nothing_acknowledged(
        seed in 0u64..1000,
        idempotence: bool,
        actions in prop::collection::vec((1u8..6, action()), 0..25),
    ) {
        let in_flight = 5;
        let mut sim = Sim::new(config(seed, Acks::All, idempotence, 2, false, in_flight)).unwrap();
        drive(&mut sim, &actions, true);
        let m = sim.metrics();
        prop_assert_eq!(m.acked_lost, 0, "{:?}", m);
        // Without lost requests. Seed 333 found a duplicate that was the
        // model's: a follower had copied half a batch, whose sequence the new
        // leader then did not know; followers copy whole batches now. Seed
        // 300 finds one that is Kafka's rule: every write of the producer to
        // P0 was lost, so the new leader has no state for it and takes its
        // fourth batch as a first write (ProducerAppendInfo accepts any
        // sequence from a producer it has no epoch for); that batch's
        // acknowledgement is lost, the first batch's retry is out of order,
        // the producer bumps its epoch and writes the fourth batch again.
        let lost_request = actions.iter().any(|(_, a)| matches!(a, Action::LoseRequest(_)));
        if idempotence && !lost_request {
            prop_assert_eq!(m.producer_duplicates, 0, "{:?}", m);
        }
    }
}
