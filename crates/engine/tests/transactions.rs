//! Exactly-once processing (`config.transactions`): the four built-ins'
//! outcomes and what lies under them (the last stable offset, the markers,
//! the fencing, the timeout), the refusals, and the property that a
//! read_committed reader never sees a result twice.

#![cfg(feature = "transactions")]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::{
    Config, ConsumerId, Event, Fate, Input, InputError, IsolationLevel, Metrics, PayoutRecordView, Sim,
    TransactionsConfig, builtin,
};

mod common;

/// Runs a built-in tick by tick (the invariants checked after each) with its events.
fn run(name: &str) -> (Sim, Metrics, Vec<Event>) {
    let (sim, events) = common::events_of(name);
    let metrics = sim.metrics();
    (sim, metrics, events)
}

fn eos_config(seed: u64) -> Config {
    let mut config: Config = serde_json::from_str(
        r#"{ "partitions": 2, "consumers": 2, "records_per_poll": 4, "handle_per_tick": 1,
             "session_timeout_ticks": 10, "producer": { "key_count": 8 },
             "transactions": { "transaction_timeout_ticks": 15 } }"#,
    )
    .expect("a valid config");
    config.seed = seed;
    config
}

fn c(n: u32) -> ConsumerId {
    ConsumerId(n)
}

#[test]
fn a_crash_mid_transaction_is_aborted_and_redone_and_read_committed_sees_each_result_once() {
    let (sim, m, events) = run("eos-read-process-write");
    assert_eq!(m.produced, 12);
    assert_eq!(m.downstream_delivered, 12, "{m:?}");
    assert_eq!(m.downstream_duplicates, 0);
    assert_eq!(m.aborted_seen, 0, "read_committed never receives an aborted result");
    // The application handled c1's records twice (outside Kafka): the group's duplicates.
    assert!(m.duplicates >= 1);
    // c1's open transaction was aborted by its timeout, with ABORT markers.
    let timed_out = events.iter().find_map(|e| match e {
        Event::TxnAborted { tick, transactional_id, reason: "timed out" }
            if transactional_id == "demo-c1" =>
        {
            Some(*tick)
        }
        _ => None,
    });
    let timed_out = timed_out.expect("the coordinator aborts the dead producer's transaction");
    assert!(timed_out > 2 + 15, "only once the timeout passed: at {timed_out}");
    assert!(events.iter().any(|e| matches!(e, Event::MarkerWritten { commit: false, .. })));
    // Payouts keeps the aborted results, marked, beside the committed copies and the markers.
    let records: Vec<PayoutRecordView> = (0..2).flat_map(|p| sim.payout_records(p, 0, 100)).collect();
    let aborted =
        records.iter().filter(|r| matches!(r, PayoutRecordView::Result { fate: Fate::Aborted, .. })).count();
    let committed = records
        .iter()
        .filter(|r| matches!(r, PayoutRecordView::Result { fate: Fate::Committed, .. }))
        .count();
    let open =
        records.iter().filter(|r| matches!(r, PayoutRecordView::Result { fate: Fate::Open, .. })).count();
    assert_eq!((aborted, committed, open), (2, 12, 0), "{records:?}");
    let t = sim.transactions_view().expect("transactions");
    for p in &t.payouts {
        assert_eq!(p.last_stable_offset, p.log_end, "everything is decided at the end");
    }
    // The crashed c1's producer stopped in its transaction; the coordinator went on and aborted it.
    let c1 = t.producers.iter().find(|p| p.transactional_id == "demo-c1").expect("c1's producer");
    assert_eq!((c1.client_state(), c1.coordinator_state), ("stopped", "CompleteAbort"), "{c1:?}");
    let c2 = t.producers.iter().find(|p| p.transactional_id == "demo-c2").expect("c2's producer");
    assert_eq!((c2.client_state(), c2.coordinator_state), ("ready", "CompleteCommit"), "{c2:?}");
}

#[test]
fn an_open_transaction_holds_the_last_stable_offset_back_and_read_committed_waits_there() {
    let scenario = builtin("eos-read-process-write").expect("built-in");
    let mut sim = Sim::new(scenario.config.clone()).expect("valid");
    sim.handle_input(Input::Send { count: 12 }).expect("send");
    sim.handle_tick(3);
    sim.handle_input(Input::Crash { consumer: c(1) }).expect("crash");
    sim.handle_tick(16);
    let t = sim.transactions_view().expect("transactions");
    let held: Vec<_> = t.payouts.iter().filter(|p| p.last_stable_offset < p.log_end).collect();
    assert!(!held.is_empty(), "c1's open transaction holds a partition's LSO back: {:?}", t.payouts);
    let before = sim.metrics().downstream_delivered;
    sim.handle_tick(40);
    let after = sim.metrics().downstream_delivered;
    assert!(after > before, "once the transaction is aborted, the committed results behind it are read");
    assert_eq!(after, 12);
}

#[test]
fn read_uncommitted_receives_the_aborted_results_and_so_duplicates() {
    let (_, m, _) = run("eos-read-uncommitted");
    assert!(m.aborted_seen >= 1, "{m:?}");
    assert!(m.downstream_duplicates >= 1);
    assert_eq!(m.downstream_delivered, 12 + m.downstream_duplicates);
}

#[test]
fn a_zombie_is_fenced_by_its_replacement_and_its_write_is_refused() {
    let (sim, m, events) = run("eos-zombie-fenced");
    assert!(m.fenced_writes >= 1, "{m:?}");
    assert_eq!(m.downstream_duplicates, 0);
    assert_eq!(m.downstream_delivered, 12);
    let init_epochs: Vec<(ConsumerId, u32)> = events
        .iter()
        .filter_map(|e| match e {
            Event::TxnInitialized { consumer, transactional_id, epoch, .. }
                if transactional_id == "demo-inst-1" =>
            {
                Some((*consumer, *epoch))
            }
            _ => None,
        })
        .collect();
    assert_eq!(init_epochs.len(), 2, "c1 then its replacement c3: {init_epochs:?}");
    assert_eq!(init_epochs[0].0, c(1));
    assert_eq!(init_epochs[1].0, c(3));
    assert!(init_epochs[1].1 > init_epochs[0].1, "the replacement's epoch is newer");
    assert!(events.iter().any(|e| matches!(
        e,
        Event::TxnAborted { reason: "fenced by a new instance", transactional_id, .. } if transactional_id == "demo-inst-1"
    )));
    let woke = events
        .iter()
        .position(|e| matches!(e, Event::Woke { consumer, replaced: true, .. } if *consumer == c(1)));
    let fenced = events.iter().position(|e| {
        matches!(
            e,
            Event::WriteFenced { consumer, error: "INVALID_PRODUCER_EPOCH", .. } if *consumer == c(1)
        )
    });
    assert!(woke.expect("c1 wakes") < fenced.expect("c1's write is refused"));
    let t = sim.transactions_view().expect("transactions");
    let zombie = t.producers.iter().find(|p| p.consumer == c(1)).expect("c1's producer");
    assert!(zombie.fenced && !zombie.running);
}

#[test]
fn without_the_replacement_the_zombie_writes_into_its_open_transaction_which_the_timeout_aborts() {
    let scenario = builtin("eos-zombie-fenced").expect("built-in");
    let guided = scenario.guided().run(None, None).expect("runs");
    let m = guided.metrics();
    assert_eq!(m.fenced_writes, 0, "nobody bumped its epoch");
    assert_eq!(m.downstream_duplicates, 0, "its transaction never commits");
    assert_eq!(m.downstream_delivered, 12);
}

#[test]
fn the_external_ledger_pays_twice_while_payouts_stays_exactly_once() {
    let (_, m, _) = run("eos-external-effect");
    assert!(m.double_paid_cents > 0, "{m:?}");
    assert_eq!(m.downstream_duplicates, 0);
    // The same run with an idempotent ledger (a unique constraint on the operation id).
    let mut config = builtin("eos-external-effect").expect("built-in").config;
    config.groups[0].idempotent = true;
    let mut sim = Sim::new(config).expect("valid");
    sim.handle_input(Input::Send { count: 12 }).expect("send");
    sim.handle_tick(3);
    sim.handle_input(Input::Crash { consumer: c(1) }).expect("crash");
    sim.handle_tick(80);
    let m = sim.metrics();
    assert_eq!((m.double_paid_cents, m.downstream_duplicates, m.downstream_delivered), (0, 0, 12));
}

#[test]
fn a_member_rejoining_a_rebalance_still_commits_its_transaction() {
    // Cooperative: c2 freezes, its session runs out, and the rebalance finds c1
    // in the middle of a batch. Kafka refuses a plain commit then
    // (RebalanceInProgressException), not a transactional one: the generation
    // has not moved yet (`ClassicGroup.validateOffsetCommit`).
    let mut config = eos_config(0);
    config.groups[0].assignor = offsetlab_engine::Assignor::CooperativeSticky;
    config.groups[0].static_members = true;
    let mut sim = Sim::new(config).expect("valid");
    sim.handle_input(Input::KeepSending { per_tick: 1 }).expect("send");
    sim.handle_tick(7);
    while sim.poll_event().is_some() {} // the first generation's rebalance
    sim.handle_input(Input::Stall { consumer: c(2), ticks: 25 }).expect("stall");
    let mut events = common::advance(&mut sim, 53);
    sim.handle_input(Input::KeepSending { per_tick: 0 }).expect("stop");
    events.extend(common::advance(&mut sim, 100));
    let rebalance = events
        .iter()
        .position(|e| matches!(e, Event::RebalanceStarted { .. }))
        .expect("c2's session runs out");
    let completed = rebalance
        + events[rebalance..]
            .iter()
            .position(|e| matches!(e, Event::RebalanceCompleted { .. }))
            .expect("completes");
    assert!(
        events[rebalance..completed]
            .iter()
            .any(|e| matches!(e, Event::TxnCommitted { consumer, .. } if *consumer == c(1))),
        "c1 commits its transaction while the group rebalances"
    );
    assert!(!events.iter().any(|e| matches!(
        e,
        Event::CommitRefused { .. } | Event::TxnAborted { reason: "the offset commit was refused", .. }
    )));
    let m = sim.metrics();
    assert_eq!((m.downstream_delivered, m.downstream_duplicates), (m.produced, 0), "{m:?}");
}

#[test]
fn configs_that_cannot_commit_in_a_transaction_are_refused_with_the_field() {
    let cases = [
        (r#""commit": {"mode": "before"}"#, "commit must be after, not before"),
        (r#""protocol": "share""#, "share group"),
        (r#""bridge": true"#, "bridge"),
        (r#""position": {"store": "consumer", "writes": "atomic", "write_ticks": 0}"#, "position"),
    ];
    for (group, wanted) in cases {
        let text = format!(r#"{{ {group}, "transactions": {{}} }}"#);
        let config: Config = serde_json::from_str(&text).expect("reads");
        let error = Sim::new(config).expect_err("refused").to_string();
        assert!(error.contains("transactions.group") && error.contains(wanted), "{group}: {error}");
    }
    let config: Config = serde_json::from_str(r#"{ "transactions": { "group": "nope" } }"#).expect("reads");
    let error = Sim::new(config).expect_err("refused").to_string();
    assert!(error.contains("no group is named"), "{error}");
    let config: Config =
        serde_json::from_str(r#"{ "transactions": { "transaction_timeout_ticks": 0 } }"#).expect("reads");
    let error = Sim::new(config).expect_err("refused").to_string();
    assert!(error.contains("transactions.transaction_timeout_ticks"), "{error}");
    let error = serde_json::from_str::<Config>(r#"{ "transactions": { "isolation_level": "dirty" } }"#)
        .expect_err("refused")
        .to_string();
    assert!(error.contains("read_committed"), "{error}");
}

#[test]
fn inputs_that_take_the_offsets_out_of_the_transaction_are_refused() {
    let mut sim = Sim::new(eos_config(1)).expect("valid");
    let error = sim
        .handle_input(Input::Commit { group: None, commit: offsetlab_engine::CommitMode::Before })
        .expect_err("refused");
    assert!(matches!(error, InputError::Transactional { .. }), "{error}");
    assert!(error.to_string().contains("inside its transactions"), "{error}");
    let error = sim
        .handle_input(Input::PositionStore { group: None, position: offsetlab_engine::PositionModel::Group })
        .expect_err("refused");
    assert!(matches!(error, InputError::Transactional { .. }));
}

#[test]
fn a_short_stall_keeps_the_member_and_a_long_one_makes_a_zombie_that_rejoins() {
    // A plain group: no transactions.
    let config: Config = serde_json::from_str(
        r#"{ "seed": 3, "partitions": 2, "consumers": 2, "records_per_poll": 4, "session_timeout_ticks": 10 }"#,
    )
    .expect("valid");
    let mut short = Sim::new(config.clone()).expect("valid");
    short.handle_input(Input::Send { count: 12 }).expect("send");
    short.handle_tick(3);
    short.handle_input(Input::Stall { consumer: c(1), ticks: 5 }).expect("stall");
    let error = short.handle_input(Input::Stall { consumer: c(1), ticks: 5 }).expect_err("already stalled");
    assert!(matches!(error, InputError::WrongState { .. }));
    short.handle_tick(40);
    short.check_invariants();
    let m = short.metrics();
    assert_eq!((m.generation, m.duplicates, m.distinct_handled), (1, 0, 12), "{m:?}");

    let mut long = Sim::new(config).expect("valid");
    long.handle_input(Input::Send { count: 12 }).expect("send");
    long.handle_tick(3);
    long.handle_input(Input::Stall { consumer: c(1), ticks: 20 }).expect("stall");
    long.handle_tick(60);
    long.check_invariants();
    let mut woke_replaced = false;
    let mut fenced = false;
    while let Some(e) = long.poll_event() {
        match e {
            Event::Woke { replaced, .. } => woke_replaced = replaced,
            Event::Fenced { error: "UNKNOWN_MEMBER_ID", .. } => fenced = true,
            _ => {}
        }
    }
    assert!(woke_replaced && fenced, "its session ran out while it was frozen");
    let m = long.metrics();
    assert!(m.duplicates >= 1, "the zombie handled records its group had given to c2: {m:?}");
    assert_eq!(m.distinct_handled, 12);
    assert_eq!(m.active_consumers, 2, "it rejoined as a new member");
    assert!(long.handle_input(Input::Stall { consumer: c(1), ticks: 0 }).is_err(), "0 ticks is refused");
}

#[test]
fn the_same_seed_and_inputs_give_the_same_trace() {
    let a = builtin("eos-zombie-fenced").expect("built-in").run(None, None).expect("runs");
    let b = builtin("eos-zombie-fenced").expect("built-in").run(None, None).expect("runs");
    assert_eq!(a.trace_hash(), b.trace_hash());
}

/// Whatever crashes, stalls, duplicate instances, restarts and rebalances
/// happen, a read_committed reader receives each record's result at most
/// once, and, once the run settles with every member back, exactly once.
#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn fault() -> impl Strategy<Value = (u64, u32, u8)> {
        (1u64..40, 1u32..4, 0u8..6)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: std::env::var("EOS_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(96), failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn read_committed_never_sees_a_result_twice(
            seed in 0u64..10_000,
            static_members in any::<bool>(),
            cooperative in any::<bool>(),
            faults in prop::collection::vec(fault(), 0..6),
        ) {
            let mut config = eos_config(seed);
            config.groups[0].static_members = static_members;
            if cooperative {
                config.groups[0].assignor = offsetlab_engine::Assignor::CooperativeSticky;
            }
            config.transactions = Some(TransactionsConfig {
                isolation_level: IsolationLevel::ReadCommitted,
                ..config.transactions.clone().expect("set")
            });
            let mut sim = Sim::new(config).expect("valid");
            sim.handle_input(Input::KeepSending { per_tick: 1 }).expect("send");
            let mut faults = faults;
            faults.sort_by_key(|f| f.0);
            for (tick, consumer, kind) in faults {
                sim.handle_tick(tick.max(sim.now()));
                let consumer = c(consumer);
                // Refused inputs (a consumer in the wrong state) change nothing.
                let _ = sim.handle_input(match kind {
                    0 => Input::Crash { consumer },
                    1 => Input::Stall { consumer, ticks: 25 },
                    2 => Input::DuplicateInstance { consumer },
                    3 => Input::AddConsumer { group: None },
                    4 => Input::KillBeforeCommit { consumer },
                    _ => Input::Stop { consumer },
                });
                sim.check_invariants();
                prop_assert_eq!(sim.metrics().downstream_duplicates, 0, "seed {}", seed);
            }
            sim.handle_tick(60);
            sim.handle_input(Input::KeepSending { per_tick: 0 }).expect("stop sending");
            // Every stall is over by then (the last starts before 40, for 25 ticks).
            sim.handle_tick(70);
            // Everyone who is down comes back, then the run settles. A last
            // member joins too: its rebalance hands out any partition a fenced
            // member had revoked in a cooperative first round and could not
            // hand on (it stays unowned until the next rebalance, as in Kafka).
            for n in 1..8 {
                let _ = sim.handle_input(Input::Start { consumer: c(n) });
            }
            sim.handle_tick(80);
            let _ = sim.handle_input(Input::AddConsumer { group: None });
            sim.handle_tick(400);
            sim.check_invariants();
            let m = sim.metrics();
            prop_assert_eq!(m.downstream_duplicates, 0, "seed {}", seed);
            prop_assert_eq!(m.aborted_seen, 0, "seed {}", seed);
            prop_assert_eq!(m.downstream_delivered, m.produced, "seed {}: every result once: {:?}", seed, m);
        }
    }
}

#[test]
fn past_the_coordinators_transactional_ids_a_new_member_cannot_initialise_and_stops_at_its_first_write() {
    let mut sim = Sim::new(eos_config(9)).expect("valid");
    let mut refused = None;
    // Each new dynamic member brings a new transactional id (demo-c3, demo-c4, …).
    for _ in 0..70 {
        sim.handle_input(Input::AddConsumer { group: None }).expect("room for one more");
        let events: Vec<Event> = std::iter::from_fn(|| sim.poll_event()).collect();
        if let Some(Event::TxnInitRefused { consumer, error, .. }) =
            events.iter().find(|e| matches!(e, Event::TxnInitRefused { .. }))
        {
            refused = Some((*consumer, *error));
            break;
        }
        let newest = sim.view().consumers.last().expect("a card").id;
        sim.handle_input(Input::Crash { consumer: newest }).expect("crash");
        sim.handle_input(Input::RemoveConsumer { consumer: newest }).expect("remove");
        sim.handle_tick(sim.now() + 1);
        sim.check_invariants();
    }
    let (consumer, error) = refused.expect("the coordinator's limit is reached");
    assert_eq!(error, "the model's limit of transactional ids");
    // It is the only member left: it gets every partition.
    sim.handle_input(Input::Crash { consumer: c(1) }).expect("crash c1");
    sim.handle_input(Input::Crash { consumer: c(2) }).expect("crash c2");
    sim.handle_input(Input::Send { count: 40 }).expect("send");
    sim.handle_tick(sim.now() + 80);
    sim.check_invariants();
    let card = sim.view().consumers.into_iter().find(|c| c.id == consumer).expect("its card");
    assert_eq!(card.state, offsetlab_engine::ConsumerState::Crashed, "it stopped at its first write");
    let m = sim.metrics();
    assert_eq!(m.fenced_writes, 0, "not a fence");
    assert_eq!(m.downstream_duplicates, 0);
}
