//! Share groups (KIP-932): partitions shared by many members, records
//! acquired under a lock and acknowledged one by one, delivery counts and the
//! archive, and what crashes, stalls and clean shutdowns do to held records.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

use common::{advance, events_of, input};
use offsetlab_engine::{
    AcknowledgementMode, Config, ConsumerId, Event, GroupConfig, GroupProtocol, Input, ShareAutoOffsetReset,
    Sim,
};
use std::collections::{BTreeMap, BTreeSet};

const C1: ConsumerId = ConsumerId(1);

fn share_group(consumers: u32) -> GroupConfig {
    GroupConfig {
        consumers,
        protocol: GroupProtocol::Share,
        share_auto_offset_reset: ShareAutoOffsetReset::Earliest,
        ..GroupConfig::default()
    }
}

fn sim(group: GroupConfig, partitions: u32) -> Sim {
    Sim::new(Config { partitions, groups: vec![group], ..Config::default() }).expect("valid config")
}

/// Every acquisition: (consumer, partition, offset, delivery count), in order.
fn acquisitions(events: &[Event]) -> Vec<(ConsumerId, u32, u64, u8)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Acquired { consumer, partition, records, .. } => {
                Some(records.iter().map(move |&(o, d)| (*consumer, *partition, o, d)))
            }
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn eight_consumers_on_three_partitions_all_handle_records() {
    let (sim, events) = events_of("share-group-busy");
    let m = sim.metrics();
    assert_eq!((m.active_consumers, m.duplicates, m.archived), (8, 0, 0), "{m:?}");
    assert!(m.out_of_key_order >= 1, "no ordering guarantee: {m:?}");
    let view = sim.view();
    assert_eq!(view.consumers.len(), 8);
    for c in &view.consumers {
        assert!(c.handled > 0, "{} handled nothing", c.id);
    }
    // Each partition is read by ceil(8 / 3) = 3 members at once.
    let mut readers: BTreeMap<u32, BTreeSet<ConsumerId>> = BTreeMap::new();
    for (c, p, _, _) in acquisitions(&events) {
        readers.entry(p).or_default().insert(c);
    }
    assert_eq!(readers.values().map(BTreeSet::len).collect::<Vec<_>>(), [3, 3, 3], "{readers:?}");
    // Every record the group took is acquired once and acknowledged once.
    let acquired = acquisitions(&events);
    assert!(acquired.iter().all(|&(.., d)| d == 1));
    assert_eq!(acquired.len() as u64, m.delivered);
}

#[test]
fn a_poison_record_is_delivered_up_to_the_limit_then_archived() {
    let (sim, events) = events_of("share-poison-record");
    let poison = events
        .iter()
        .find_map(|e| match e {
            Event::Produced { partition, offset, poison: true, .. } => Some((*partition, *offset)),
            _ => None,
        })
        .expect("a poison record was sent");
    let deliveries: Vec<(ConsumerId, u8)> = acquisitions(&events)
        .into_iter()
        .filter(|&(_, p, o, _)| (p, o) == poison)
        .map(|(c, _, _, d)| (c, d))
        .collect();
    assert_eq!(deliveries.iter().map(|&(_, d)| d).collect::<Vec<_>>(), [1, 2, 3, 4, 5], "{deliveries:?}");
    let holders: BTreeSet<ConsumerId> = deliveries.iter().map(|&(c, _)| c).collect();
    assert!(holders.len() >= 2, "released records go to whoever acquires next: {holders:?}");
    let archived_by_release = events.iter().any(|e| {
        matches!(e, Event::Acknowledged(ack)
            if ack.kind == "release" && ack.partition == poison.0 && ack.archived.contains(&poison.1))
    });
    assert!(archived_by_release, "the fifth release archives it");
    let m = sim.metrics();
    assert_eq!((m.archived, m.failed, m.never_processed, m.duplicates), (1, 5, 1, 0), "{m:?}");
    assert_eq!(m.total_lag, 0, "the rest flowed past it");
    let view = sim.view();
    assert!(view.groups[0].committed[poison.0 as usize].is_some_and(|start| start > poison.1));
}

#[test]
fn a_stalled_consumers_records_go_to_others_when_their_locks_expire() {
    let (sim, events) = events_of("share-lock-timeout");
    let expired: Vec<(u32, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::LockExpired { consumer, partition, offset, archived: false, .. } if *consumer == C1 => {
                Some((*partition, *offset))
            }
            _ => None,
        })
        .collect();
    assert!(!expired.is_empty(), "c1's locks ran out while it stalled");
    let again: Vec<_> = acquisitions(&events)
        .into_iter()
        .filter(|&(c, p, o, d)| c != C1 && d == 2 && expired.contains(&(p, o)))
        .collect();
    assert_eq!(again.len(), expired.len(), "each expired record went to another member: {again:?}");
    // c1's late acknowledgements: the other member accepted those records
    // and the start offset moved past them, so Kafka ignores them.
    let late: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Acknowledged(ack) if ack.consumer == C1 => Some(ack.offsets.clone()),
            _ => None,
        })
        .flatten()
        .filter(|o| expired.iter().any(|e| e.1 == *o))
        .collect();
    assert_eq!(late.len(), expired.len(), "c1 acknowledges what it handled late: {late:?}");
    let m = sim.metrics();
    assert_eq!(m.redelivered, expired.len() as u64, "{m:?}");
    assert_eq!(m.duplicates, expired.len() as u64, "c1 handled its stale copies too: {m:?}");
}

#[test]
fn a_crash_gives_the_records_back_at_once_and_a_clean_stop_hands_back_none() {
    let mut group = share_group(2);
    group.records_per_poll = 5;
    let mut s = sim(group, 1);
    input(&mut s, Input::Send { count: 40 });
    advance(&mut s, 3);
    let held = s.view().consumers[0].in_flight_count;
    assert!(held > 0, "c1 holds records");
    let events = input(&mut s, Input::Crash { consumer: C1 });
    let released: usize = events
        .iter()
        .map(|e| match e {
            Event::Released { consumer, offsets, .. } if *consumer == C1 => offsets.len(),
            _ => 0,
        })
        .sum();
    // Its connection closed with the process: the broker gives back what it
    // held, handled or not, since its acknowledgements were never sent.
    assert!(released >= held as usize, "released {released}, held {held}");
    let events = advance(&mut s, 30);
    assert!(acquisitions(&events).iter().any(|&(c, .., d)| c == ConsumerId(2) && d == 2), "c2 gets them");
    // A clean stop finishes its batch and commits its acknowledgements first.
    input(&mut s, Input::Send { count: 10 });
    advance(&mut s, 2);
    let events = input(&mut s, Input::Stop { consumer: ConsumerId(2) });
    let events = [events, advance(&mut s, 30)].concat();
    assert!(!events.iter().any(|e| matches!(e, Event::Released { .. })), "nothing left to give back");
    assert!(events.iter().any(|e| matches!(e, Event::Left { .. })));
}

#[test]
fn implicit_acknowledgement_accepts_what_the_handler_failed_on() {
    let mut s = sim(share_group(1), 1);
    input(&mut s, Input::Send { count: 2 });
    input(&mut s, Input::SendPoison {});
    input(&mut s, Input::Send { count: 2 });
    let events = advance(&mut s, 20);
    let m = s.metrics();
    // The next poll accepts it like the rest: delivered once, gone for good.
    assert_eq!((m.failed, m.archived, m.redelivered, m.never_processed), (1, 0, 0, 1), "{m:?}");
    assert!(
        events.iter().any(
            |e| matches!(e, Event::Acknowledged(ack) if ack.kind == "accept" && ack.offsets.contains(&2))
        )
    );
}

#[test]
fn explicit_mode_poison_is_archived_at_the_configured_limit() {
    let mut group = share_group(1);
    group.acknowledgement_mode = AcknowledgementMode::Explicit;
    group.delivery_count_limit = 3;
    let mut s = sim(group, 1);
    input(&mut s, Input::SendPoison {});
    input(&mut s, Input::Send { count: 3 });
    let events = advance(&mut s, 30);
    let counts: Vec<u8> =
        acquisitions(&events).into_iter().filter(|&(_, _, o, _)| o == 0).map(|a| a.3).collect();
    assert_eq!(counts, [1, 2, 3]);
    assert_eq!((s.metrics().archived, s.metrics().distinct_handled), (1, 3));
}

#[test]
fn latest_skips_what_was_sent_before_the_first_read() {
    let mut group = share_group(1);
    group.share_auto_offset_reset = ShareAutoOffsetReset::Latest;
    group.consumers = 0;
    let mut s = sim(group, 1);
    input(&mut s, Input::Send { count: 5 });
    input(&mut s, Input::AddConsumer { group: None });
    advance(&mut s, 2);
    input(&mut s, Input::Send { count: 3 });
    advance(&mut s, 10);
    assert_eq!(s.metrics().delivered, 3, "the first five were before the share-partition existed");
}

#[test]
fn offsets_and_assignor_inputs_are_refused_for_a_share_group() {
    let mut s = sim(share_group(1), 1);
    let refused =
        s.handle_input(Input::ResetOffsets { group: None, reset: offsetlab_engine::ResetSpec::Earliest });
    assert_eq!(
        refused.expect_err("refused").to_string(),
        "demo is a share group: reset-offsets does not apply (its records are acknowledged one by one, not committed as offsets)"
    );
    let bad =
        Config { groups: vec![GroupConfig { static_members: true, ..share_group(1) }], ..Config::default() };
    assert!(Sim::new(bad).expect_err("refused").to_string().contains("no static members"));
}

#[test]
fn new_members_take_their_share_without_a_barrier() {
    let mut s = sim(share_group(1), 2);
    input(&mut s, Input::Send { count: 20 });
    advance(&mut s, 3);
    let mut events = input(&mut s, Input::AddConsumer { group: None });
    events.extend(input(&mut s, Input::AddConsumer { group: None }));
    events.extend(advance(&mut s, 10));
    let m = s.metrics();
    assert_eq!((m.active_consumers, m.partition_ticks_stopped, m.duplicates), (3, 0, 0), "{m:?}");
    // Epoch 2 with the first member, 3 once its share state was initialised, then one per join.
    assert!(events.iter().any(|e| matches!(e, Event::GroupEpochBumped { group_epoch: 5, .. })));
}

#[test]
fn partitions_added_to_a_read_topic_start_at_offset_0_whatever_the_reset() {
    let mut group = share_group(1);
    group.share_auto_offset_reset = ShareAutoOffsetReset::Latest;
    let mut s = sim(group, 1);
    advance(&mut s, 2);
    input(&mut s, Input::AddPartitions { count: 1 });
    // Sent to the new partition before any member reads it: still delivered.
    for _ in 0..6 {
        input(&mut s, Input::Send { count: 1 });
    }
    advance(&mut s, 20);
    let produced_to_new = s.view().partitions[1].log_end;
    assert!(produced_to_new > 0, "some records went to the new partition");
    assert_eq!(s.metrics().delivered, 6, "{:?}", s.metrics());
    assert!(
        offsetlab_engine::describe_offsets(&s, 0, false)
            .contains("demo            orders          1          ")
    );
}

/// KIP-1191 (Kafka 4.4): the record a share group archives goes to its
/// dead-letter topic, written by the broker: the source partition modulo the
/// topic's partitions, the six `__dlq.errors.*` headers as
/// `ProduceRequestHandler.headers` writes them, and a copy of the key and
/// value only with `errors.deadletterqueue.copy.record.enable`.
#[test]
fn an_archived_record_goes_to_the_share_groups_dead_letter_topic() {
    let (sim, _) = events_of("share-dlq");
    let scenario = offsetlab_engine::builtin("share-dlq").expect("built-in");
    if let Err(failing) = scenario.guide.as_ref().expect("a guide").outcome.evaluate(&sim) {
        panic!("share-dlq: outcome not reproduced: {failing}");
    }
    let m = sim.metrics();
    assert_eq!((m.archived, m.dead_lettered), (1, 1), "{m:?}");
    let [letter] = sim.share_dead_letters(0).try_into().expect("one dead letter");
    let poison: Vec<_> = (0..2)
        .flat_map(|p| sim.records_of(0, p, 0, u32::MAX).into_iter().filter(|r| r.poison).map(move |r| (p, r)))
        .collect();
    let [(p, record)] = poison.try_into().expect("one poison record");
    assert_eq!((letter.partition, letter.offset), (p % 2, 0), "the source partition modulo the DLQ's");
    let l = letter.letter;
    assert_eq!((l.source_partition, l.source_offset), (p, record.offset));
    assert_eq!(l.cause, offsetlab_engine::ShareDlqCause::DeliveryCountExceeded);
    let copied = l.copied.expect("copy.record.enable copies key and value");
    assert_eq!(
        (copied.record_id, copied.subject, copied.keyed),
        (record.record_id, record.subject, record.keyed)
    );
    let headers = l.headers(sim.group_name(0));
    let expected = [
        ("__dlq.errors.topic", "orders".to_string()),
        ("__dlq.errors.partition", p.to_string()),
        ("__dlq.errors.offset", record.offset.to_string()),
        ("__dlq.errors.group", "demo".to_string()),
        ("__dlq.errors.delivery.count", "5".to_string()),
        ("__dlq.errors.message", "Offset delivery count exceeded the threshold.".to_string()),
    ];
    assert_eq!(headers, expected);
}

/// Without a dead-letter topic nothing is written; without
/// copy.record.enable the letter has headers only; Kafka's rules for the
/// topic's name are refused, and so is the config outside a share group.
#[test]
fn a_share_dead_letter_is_headers_only_by_default_and_none_without_a_topic() {
    let group = GroupConfig { acknowledgement_mode: AcknowledgementMode::Explicit, ..share_group(1) };
    let mut config = Config { groups: vec![group], ..Config::default() };
    let mut sim = Sim::new(config.clone()).expect("valid");
    input(&mut sim, Input::SendPoison {});
    advance(&mut sim, 60);
    assert_eq!(sim.metrics().archived, 1);
    assert!(sim.share_dead_letters(0).is_empty(), "no topic, no letter");
    assert_eq!(sim.metrics().dead_lettered, 0);
    config.groups[0].dead_letter_topic = Some("dlq.orders".into());
    let mut sim = Sim::new(config.clone()).expect("valid");
    input(&mut sim, Input::SendPoison {});
    advance(&mut sim, 60);
    let [letter] = sim.share_dead_letters(0).try_into().expect("one dead letter");
    assert_eq!(letter.letter.copied, None, "headers only by default");
    // Kafka's refusals of the topic's name, and a classic group has no such config.
    for bad in ["__dlq", "orders.DLT", "dlq.", "dlq.a b"] {
        config.groups[0].dead_letter_topic = Some(bad.into());
        let e = Sim::new(config.clone()).expect_err(bad);
        assert!(e.to_string().contains("dead_letter_topic"), "{bad}: {e}");
    }
    config.groups[0].dead_letter_topic = Some("dlq.orders".into());
    config.groups[0].protocol = offsetlab_engine::GroupProtocol::Classic;
    let e = Sim::new(config).expect_err("classic");
    assert!(e.to_string().contains("share group"), "{e}");
}

/// KIP-1191: the archived poison record's explanation ends with the broker's
/// write to the group's dead-letter topic: where the letter is, the delivery
/// count and the message its headers carry.
#[test]
fn the_archived_records_explanation_names_its_dead_letter() {
    let (sim, _) = events_of("share-dlq");
    let [letter] = sim.share_dead_letters(0).try_into().expect("one dead letter");
    let (p, o) = (letter.letter.source_partition, letter.letter.source_offset);
    let explanations = offsetlab_engine::explain_record(&sim, Some(0), p, o);
    let archived = explanations
        .iter()
        .find(|e| e.cause == "archived after its last delivery")
        .unwrap_or_else(|| panic!("the archive explained: {explanations:?}"));
    let last = archived.steps.last().expect("steps");
    assert_eq!(last.tick, letter.letter.written_tick);
    assert_eq!(last.part, offsetlab_engine::Part::Group { group: 0 });
    assert_eq!(
        last.text,
        format!(
            "the broker wrote it to dlq.orders P{}@{} (__dlq.errors.partition {p}, __dlq.errors.offset {o}, \
             __dlq.errors.delivery.count 5, __dlq.errors.message \"Offset delivery count exceeded the threshold.\") \
             with a copy of its key and value",
            letter.partition, letter.offset
        )
    );
}
