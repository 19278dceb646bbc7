//! Kafka 4's consumer protocol (KIP-848) and static membership (KIP-345):
//! epochs, reconciliation without a barrier, fencing, and static members
//! that come back without a rebalance.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

use common::{advance, events_of, input};
use offsetlab_engine::{
    Config, ConsumerId, ConsumerState, Event, GroupConfig, GroupProtocol, Input, Reconciled, Sim,
};
use std::collections::BTreeMap;

const C1: ConsumerId = ConsumerId(1);
const C2: ConsumerId = ConsumerId(2);

fn sim(group: GroupConfig, partitions: u32) -> Sim {
    Sim::new(Config { partitions, groups: vec![group], ..Config::default() }).expect("valid config")
}

fn consumer_group(consumers: u32) -> GroupConfig {
    GroupConfig { consumers, protocol: GroupProtocol::Consumer, ..GroupConfig::default() }
}

#[test]
fn the_consumer_protocol_scale_out_stops_the_fewest_partitions() {
    let stopped = |name: &str| events_of(name).0.metrics().partition_ticks_stopped;
    let (eager, cooperative, consumer) = (
        stopped("scale-out-eager"),
        stopped("scale-out-cooperative"),
        stopped("consumer-protocol-scale-out"),
    );
    assert!(
        consumer < cooperative && cooperative < eager,
        "eager {eager}, cooperative {cooperative}, consumer {consumer}"
    );
    let (sim, events) = events_of("consumer-protocol-scale-out");
    let m = sim.metrics();
    assert_eq!(
        (m.never_processed, m.out_of_key_order, m.total_lag, m.active_consumers),
        (0, 0, 0, 5),
        "{m:?}"
    );
    // No classic rebalance ever runs: only group epochs and reconciliation.
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::RebalanceStarted { .. } | Event::RebalanceCompleted { .. }))
    );
    let epochs: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::GroupEpochBumped { group_epoch, .. } => Some(*group_epoch),
            _ => None,
        })
        .collect();
    // Three joins at tick 0 (Kafka 4.4.0 takes a new group to epoch 2 with
    // its first member), three at tick 31, and c3's session expiry.
    assert_eq!(epochs, (2..=8).collect::<Vec<_>>());
}

/// A partition changes hands only after its old owner has revoked it: the
/// new owner's assignment that adds it comes after a reconciliation of the
/// old owner that no longer holds it (nor is revoking it), or after the old
/// owner's session expired.
#[test]
fn a_partition_moves_only_once_its_owner_let_go() {
    let (_, events) = events_of("consumer-protocol-scale-out");
    let mut holder: BTreeMap<u32, ConsumerId> = BTreeMap::new();
    let mut held: BTreeMap<ConsumerId, Vec<u32>> = BTreeMap::new();
    for event in &events {
        match event {
            Event::Reconciled(reconciled) => {
                let Reconciled { consumer, assignment, revoking, .. } = &**reconciled;
                for &p in assignment {
                    if let Some(owner) = holder.get(&p).filter(|o| *o != consumer) {
                        panic!("P{p} given to {consumer} while {owner} holds it: {event:?}");
                    }
                }
                for &p in held.get(consumer).into_iter().flatten() {
                    if !assignment.contains(&p) && !revoking.contains(&p) {
                        holder.remove(&p);
                    }
                }
                for &p in assignment.iter().chain(revoking) {
                    holder.insert(p, *consumer);
                }
                held.insert(*consumer, assignment.iter().chain(revoking).copied().collect());
            }
            Event::SessionExpired { consumer, .. } => {
                holder.retain(|_, owner| owner != consumer);
                held.remove(consumer);
            }
            _ => {}
        }
    }
    assert_eq!(holder.len(), 6, "every partition ends with one holder: {holder:?}");
}

#[test]
fn the_group_goes_through_kafkas_states() {
    let mut s = sim(consumer_group(0), 4);
    assert_eq!(s.view().group_state, "Empty");
    input(&mut s, Input::AddConsumer { group: None });
    assert_eq!(s.view().group_state, "Stable", "a lone member gets everything at once");
    input(&mut s, Input::AddConsumer { group: None });
    let view = s.view();
    assert_eq!(view.group_state, "Reconciling", "c1 still owns what c2 is to get");
    let c2 = view.consumers.iter().find(|c| c.id == C2).and_then(|c| c.reconciliation.clone()).unwrap();
    assert_eq!((c2.member_epoch, c2.state, c2.assignment.len()), (3, "UNRELEASED_PARTITIONS", 0));
    assert_eq!(c2.target.len(), 2);
    advance(&mut s, 4);
    let view = s.view();
    assert_eq!(view.group_state, "Stable");
    assert_eq!((view.groups[0].group_epoch, view.groups[0].target_epoch), (3, 3));
    for c in &view.consumers {
        let member = c.reconciliation.clone().expect("consumer-protocol member");
        assert_eq!((member.member_epoch, member.state, member.assignment.len()), (3, "STABLE", 2), "{c:?}");
        assert_eq!(c.partitions, member.assignment, "the client holds what the coordinator assigned");
    }
}

/// The KIP-848 client's poll timer: max.poll.interval is also the rebalance
/// timeout the coordinator gives a member to revoke, but the client's timer
/// started at its last poll, before it was asked to revoke, so it runs out
/// first: the client leaves by itself (a leave heartbeat) and joins again at
/// its next poll, keeping its member id, instead of being fenced.
#[test]
fn a_member_stuck_past_max_poll_interval_leaves_by_itself_and_rejoins() {
    // c1 polls 400 records and handles one a tick: it cannot revoke for 400 ticks.
    let group = GroupConfig { records_per_poll: 400, max_poll_interval_ticks: 8, ..consumer_group(1) };
    let mut s = sim(group, 2);
    input(&mut s, Input::Send { count: 800 });
    advance(&mut s, 3);
    input(&mut s, Input::AddConsumer { group: None });
    let events = advance(&mut s, 12);
    assert!(!events.iter().any(|e| matches!(e, Event::Fenced { .. })), "{events:?}");
    let left: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::MemberLeft { .. })).collect();
    let [Event::MemberLeft { consumer: C1, member_id, reason, since_poll_ticks, .. }] = left.as_slice()
    else {
        panic!("{left:?}")
    };
    assert_eq!(*reason, "consumer poll timeout has expired");
    assert_eq!(*since_poll_ticks, 9, "more than max.poll.interval (8) since its last poll");
    // It finishes nothing of its 400 records within the run: still out of the group, its
    // partitions went to c2, which reads them from the start.
    let view = s.view();
    assert_eq!(view.group_state, "Stable");
    let c2 = view.consumers.iter().find(|c| c.id != C1).unwrap();
    assert_eq!(c2.partitions.len(), 2, "{view:?}");
    assert_eq!(s.metrics().members_left_poll_timeout, 1);
    // Once its batch is done, its commit fails and it joins again with the same member id.
    let events = advance(&mut s, 400);
    assert!(events.iter().any(|e| matches!(e, Event::CommitFailed { consumer: C1, .. })), "no failed commit");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Rejoined { consumer: C1, member_id: m, .. } if m == member_id)),
        "a KIP-848 member keeps its member id"
    );
    assert!(s.metrics().duplicates > 0, "what c1 handled after leaving, c2 handled too");
}

#[test]
fn a_crashed_static_member_cannot_rejoin_until_its_session_ends() {
    let group = GroupConfig { static_members: true, session_timeout_ticks: 6, ..consumer_group(2) };
    let mut s = sim(group, 4);
    advance(&mut s, 4);
    input(&mut s, Input::Crash { consumer: C1 });
    // Its process restarts at once: the coordinator still holds inst-1 for the dead member.
    let events = input(&mut s, Input::Start { consumer: C1 });
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Fenced { consumer: C1, error: "UNRELEASED_INSTANCE_ID", .. })),
        "{events:?}"
    );
    assert_eq!(s.view().consumers[0].state, ConsumerState::Crashed, "the refusal is fatal");
    advance(&mut s, 7);
    // After the session timeout the instance id is free again.
    let events = input(&mut s, Input::Start { consumer: C1 });
    assert!(!events.iter().any(|e| matches!(e, Event::Fenced { .. })), "{events:?}");
    advance(&mut s, 4);
    assert_eq!(s.view().group_state, "Stable");
}

#[test]
fn a_static_member_that_shuts_down_comes_back_to_its_own_partitions() {
    for protocol in [GroupProtocol::Classic, GroupProtocol::Consumer] {
        let group = GroupConfig {
            static_members: true,
            session_timeout_ticks: 20,
            protocol,
            ..GroupConfig::default()
        };
        let mut s = sim(group, 4);
        input(&mut s, Input::KeepSending { per_tick: 2 });
        advance(&mut s, 6);
        let before = s.view();
        let c1_partitions = before.consumers[0].partitions.clone();
        let epoch = before.generation;
        input(&mut s, Input::Stop { consumer: C1 });
        let events = advance(&mut s, 5);
        assert!(events.iter().any(|e| matches!(e, Event::Left { consumer: C1, .. })), "{protocol:?}");
        let events = [input(&mut s, Input::Start { consumer: C1 }), advance(&mut s, 5)].concat();
        assert!(
            events.iter().any(|e| matches!(e, Event::StaticMemberReplaced(r) if r.consumer == C1 && r.assignment == c1_partitions)),
            "{protocol:?}: {events:?}"
        );
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Event::RebalanceStarted { .. } | Event::GroupEpochBumped { .. }))
        );
        let after = s.view();
        assert_eq!(after.generation, epoch, "{protocol:?}: no rebalance");
        assert_eq!(after.consumers[0].partitions, c1_partitions, "{protocol:?}");
        assert_eq!(after.consumers[0].instance_id.as_deref(), Some("inst-1"));
        assert_eq!(s.metrics().duplicates, 0, "{protocol:?}");
    }
}

/// In the classic protocol a second process with a live member's instance id
/// takes its place, and the first is fenced (`FENCED_INSTANCE_ID`).
#[test]
fn a_classic_static_member_replaced_while_alive_is_fenced() {
    let group = GroupConfig { static_members: true, ..GroupConfig::default() };
    let mut s = sim(group, 4);
    advance(&mut s, 4);
    let events = input(&mut s, Input::DuplicateInstance { consumer: C1 });
    assert!(
        events.iter().any(|e| matches!(e, Event::Fenced { consumer: C1, error: "FENCED_INSTANCE_ID", .. })),
        "{events:?}"
    );
    let view = s.view();
    let twin = view.consumers.iter().find(|c| c.id == ConsumerId(3)).expect("the second process");
    assert_eq!(twin.instance_id.as_deref(), Some("inst-1"));
    assert_eq!(twin.partitions, vec![0, 1], "it took c1's place and partitions");
    assert_eq!(view.generation, 1, "no rebalance");
}

/// In the consumer protocol the second process is the one refused.
#[test]
fn a_consumer_protocol_duplicate_instance_is_refused() {
    let group = GroupConfig { static_members: true, ..consumer_group(2) };
    let mut s = sim(group, 4);
    advance(&mut s, 4);
    let events = input(&mut s, Input::DuplicateInstance { consumer: C1 });
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::Fenced { consumer: ConsumerId(3), error: "UNRELEASED_INSTANCE_ID", .. }
        )),
        "{events:?}"
    );
    let view = s.view();
    assert_eq!(view.consumers[0].state, ConsumerState::Running, "the first keeps running");
    assert_eq!(view.consumers[0].partitions.len(), 2);
}

#[test]
fn the_static_rolling_update_never_rebalances() {
    let (sim, events) = events_of("static-rolling-update");
    let m = sim.metrics();
    assert_eq!((m.generation, m.static_rejoins, m.duplicates, m.never_processed), (1, 3, 0, 0), "{m:?}");
    let rebalances = events.iter().filter(|e| matches!(e, Event::RebalanceStarted { .. })).count();
    assert_eq!(rebalances, 1, "only the first, as the group forms");
    // The same update with dynamic members: a rebalance per leave and per join.
    let (dynamic, _) = events_of("rolling-update");
    assert!(dynamic.metrics().generation >= 4);
}
