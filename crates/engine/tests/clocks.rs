//! The clocks behind most real duplicates: the client's poll timer
//! (`max.poll.interval.ms`) in classic and consumer-protocol groups, and what
//! Kafka does when it runs out — the member leaves by itself, its commit fails
//! with `CommitFailedException`, and its batch is read again.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

use common::{advance, events_of, input};
use offsetlab_engine::{
    AutoOffsetReset, Config, ConsumerId, Event, GroupConfig, Input, RebalanceReason, Sim,
};

const C1: ConsumerId = ConsumerId(1);
const C2: ConsumerId = ConsumerId(2);

fn sim(group: GroupConfig, partitions: u32) -> Sim {
    Sim::new(Config { partitions, groups: vec![group], ..Config::default() }).expect("valid config")
}

/// One key only: every record goes to the same partition.
fn one_key(group: GroupConfig, partitions: u32) -> Sim {
    let mut config = Config { partitions, groups: vec![group], ..Config::default() };
    config.producer.use_keys = true;
    config.producer.key_count = 1;
    Sim::new(config).expect("valid config")
}

/// Built-in `name`'s final counters with its group's config changed by `change`.
fn metrics_with(name: &str, change: impl FnOnce(&mut GroupConfig)) -> offsetlab_engine::Metrics {
    let mut scenario = offsetlab_engine::builtin(name).expect("built-in");
    change(&mut scenario.config.groups[0]);
    scenario.run(None, None).expect("runs").metrics()
}

/// Two classic members, one partition each; a poll returns up to 20 records
/// and the handler takes a tick each; max.poll.interval is 12 ticks.
fn slow_group(static_members: bool) -> Sim {
    let group = GroupConfig {
        consumers: 2,
        records_per_poll: 20,
        handle_per_tick: 1,
        max_poll_interval_ticks: 12,
        static_members,
        ..GroupConfig::default()
    };
    one_key(group, 2)
}

/// The partition that holds the records, and the member that owns it.
fn loaded(s: &Sim) -> (u32, ConsumerId, u64) {
    let view = s.view();
    let p = view.partitions.iter().max_by_key(|p| p.log_end).expect("partitions");
    let owner = view.consumers.iter().find(|c| c.partitions.contains(&p.partition)).expect("an owner").id;
    (p.partition, owner, p.log_end)
}

#[test]
fn a_classic_member_whose_batch_outlasts_max_poll_interval_leaves_and_its_commit_fails() {
    let mut s = slow_group(false);
    advance(&mut s, 2);
    // 15 records on one partition: its owner's batch takes 15 ticks.
    input(&mut s, Input::Send { count: 15 });
    let (p, slow, end) = loaded(&s);
    assert_eq!(end, 15);
    let other = if slow == C1 { C2 } else { C1 };
    let events = advance(&mut s, 30);
    let owner = |e: &Event| match e {
        Event::MemberLeft { consumer, .. }
        | Event::CommitFailed { consumer, .. }
        | Event::Rejoined { consumer, .. } => Some(*consumer),
        _ => None,
    };
    // c1 leaves by itself, Kafka's words, more than 12 ticks after its poll.
    let left = events.iter().position(|e| matches!(e, Event::MemberLeft { .. })).expect("c1 left");
    let Event::MemberLeft { consumer, reason, since_poll_ticks, tick, .. } = &events[left] else {
        unreachable!()
    };
    assert_eq!((*consumer, *reason, *since_poll_ticks), (slow, "consumer poll timeout has expired", 13));
    // A dynamic member sends LeaveGroup: the group rebalances at once, without it.
    assert!(
        events[left..].iter().any(|e| matches!(
            e,
            Event::RebalanceStarted { reason: RebalanceReason::MemberLeft, tick: t, .. } if t == tick
        )),
        "a rebalance at once"
    );
    let completed = events[left..]
        .iter()
        .find_map(|e| match e {
            Event::RebalanceCompleted { assignment, .. } => Some(assignment.clone()),
            _ => None,
        })
        .expect("the rebalance completes");
    assert_eq!(completed, vec![(other, vec![0, 1])], "the other member takes both partitions");
    // The slow member's application finishes the batch; its commit fails and writes nothing.
    let failed = events
        .iter()
        .find_map(|e| match e {
            Event::CommitFailed { consumer, offsets, reason, .. } if *consumer == slow => {
                Some((offsets.clone(), *reason))
            }
            _ => None,
        })
        .expect("its commit failed");
    assert_eq!(failed.0, vec![(p, end)], "it would have committed its whole batch");
    assert!(failed.1.contains("not part of an active group"), "{}", failed.1);
    assert!(
        !events.iter().any(|e| matches!(e, Event::Committed { consumer, .. } if *consumer == slow)),
        "nothing written for it"
    );
    // Then it joins again as a new member, its partition lost.
    let rejoined = events.iter().find_map(|e| match e {
        Event::Rejoined { consumer, member_id, lost, .. } if *consumer == slow => {
            Some((member_id.clone(), lost.clone()))
        }
        _ => None,
    });
    let (member_id, lost) = rejoined.expect("it rejoined");
    assert_eq!(*lost, [p]);
    let first = events.iter().find_map(|e| match e {
        Event::MemberLeft { member_id, .. } => Some(member_id.clone()),
        _ => None,
    });
    assert_ne!(Some(member_id), first, "a classic member comes back with a new member id");
    // Its events come in Kafka's order: leave, failed commit, rejoin.
    let order: Vec<&str> = events
        .iter()
        .filter(|e| owner(e) == Some(slow))
        .map(|e| match e {
            Event::MemberLeft { .. } => "left",
            Event::CommitFailed { .. } => "commit failed",
            _ => "rejoined",
        })
        .collect();
    assert_eq!(order[..3], ["left", "commit failed", "rejoined"]);
    let m = s.metrics();
    // The other member then reads the same 15 records from the last commit, and its batch
    // outlasts the interval too: the same story once more within the 30 ticks.
    assert_eq!((m.members_left_poll_timeout, m.commit_failed), (2, 2), "{m:?}");
    assert_eq!(m.commit_requests, 0, "nothing of the 15 records was ever committed");
    assert!(m.duplicates >= 1, "c2 handled again what c1 handled: {m:?}");
}

#[test]
fn a_member_that_keeps_polling_never_leaves() {
    // The same group with batches that fit: 10 records per poll, 10 ticks each.
    let group = GroupConfig {
        consumers: 2,
        records_per_poll: 10,
        handle_per_tick: 1,
        max_poll_interval_ticks: 12,
        ..GroupConfig::default()
    };
    let mut s = sim(group, 2);
    input(&mut s, Input::Send { count: 200 });
    let events = advance(&mut s, 150);
    assert!(!events.iter().any(|e| matches!(e, Event::MemberLeft { .. } | Event::CommitFailed { .. })));
    // Idle members and paused ones poll too: an empty loop never runs out.
    input(&mut s, Input::Pause { consumer: C1 });
    let events = advance(&mut s, 100);
    assert!(!events.iter().any(|e| matches!(e, Event::MemberLeft { .. })), "{events:?}");
    assert_eq!(s.metrics().duplicates, 0);
}

#[test]
fn a_static_member_sends_no_leave_and_takes_its_place_back() {
    let mut s = slow_group(true);
    advance(&mut s, 2);
    input(&mut s, Input::Send { count: 15 });
    let (_, slow, _) = loaded(&s);
    let events = advance(&mut s, 30);
    let left = events
        .iter()
        .position(|e| matches!(e, Event::MemberLeft { consumer, .. } if *consumer == slow))
        .expect("left");
    // No LeaveGroup from a static member: no rebalance when its timer runs out.
    let Event::MemberLeft { tick, .. } = &events[left] else { unreachable!() };
    assert!(
        !events.iter().any(|e| matches!(e, Event::RebalanceStarted { tick: t, .. } if t == tick)),
        "{events:?}"
    );
    // Its commit still fails (its generation was reset), and it rejoins as inst-1.
    assert!(events.iter().any(|e| matches!(e, Event::CommitFailed { consumer, .. } if *consumer == slow)));
    let instance = format!("inst-{}-", slow.0);
    assert!(
        events.iter().any(
            |e| matches!(e, Event::Rejoined { consumer, member_id, .. } if *consumer == slow && member_id.starts_with(&instance))
        ),
        "{events:?}"
    );
    s.check_invariants();
}

#[test]
fn the_built_ins_tell_the_two_stories() {
    let (sim, events) = events_of("slow-handler-poll-timeout");
    let m = sim.metrics();
    assert!(m.members_left_poll_timeout >= 1 && m.commit_failed >= 1 && m.duplicates >= 1, "{m:?}");
    assert!(events.iter().any(|e| matches!(e, Event::MemberLeft { .. })));
    // The storm: every member leaves in turn, the generation climbs, and nothing is committed.
    let (sim, events) = events_of("rebalance-storm");
    let m = sim.metrics();
    assert!(m.generation >= 6 && m.members_left_poll_timeout >= 3, "{m:?}");
    let leavers: std::collections::BTreeSet<ConsumerId> = events
        .iter()
        .filter_map(|e| match e {
            Event::MemberLeft { consumer, .. } => Some(*consumer),
            _ => None,
        })
        .collect();
    assert_eq!(leavers.len(), 3, "every member in turn: {leavers:?}");
    assert_eq!(m.total_lag, m.produced, "no commit ever landed: {m:?}");
    // The fix the guide names: fewer records per poll.
    let mut fixed = offsetlab_engine::builtin("rebalance-storm").unwrap();
    fixed.config.groups[0].records_per_poll = 10;
    let sim = fixed.run(None, None).unwrap();
    let m = sim.metrics();
    assert_eq!((m.generation, m.members_left_poll_timeout, m.duplicates), (1, 0, 0), "{m:?}");
}

/// A classic zombie, frozen past its session, wakes and commits the record it handles: the
/// coordinator no longer knows its member id and refuses it (`UNKNOWN_MEMBER_ID`), so the
/// group's offset never goes back to where the zombie was.
#[test]
fn a_classic_zombies_commit_is_refused_and_the_offset_never_goes_back() {
    let (sim, events) = events_of("zombie-commit-refused");
    let failed: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::CommitFailed { consumer: C1, offsets, reason, .. } => Some((offsets.clone(), *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].1.starts_with("UNKNOWN_MEMBER_ID"), "{failed:?}");
    let zombie_offset = failed[0].0[0].1;
    // Every commit the group accepted moved its offset forward.
    let mut committed = std::collections::BTreeMap::new();
    for e in &events {
        if let Event::Committed { offsets, .. } = e {
            for &(p, o) in offsets {
                let before = committed.insert(p, o).unwrap_or(0);
                assert!(o >= before, "P{p} went back from {before} to {o}");
            }
        }
    }
    assert!(committed[&0] > zombie_offset, "c2 had committed past the zombie: {committed:?}");
    let m = sim.metrics();
    assert_eq!((m.commit_failed, m.duplicates), (1, 1), "only the record it handled on waking: {m:?}");
}

/// A consumer-protocol member frozen past its session is fenced by the coordinator (the
/// group epoch goes up); on waking its heartbeat is answered `UNKNOWN_MEMBER_ID`, its
/// application finishes the batch it holds, its commit fails, and at its next poll it joins
/// again with its member id.
#[test]
fn a_stalled_kip848_member_is_fenced_when_its_session_runs_out() {
    let (sim, events) = events_of("kip848-stalled-member-fenced");
    let at = |pred: &dyn Fn(&Event) -> bool| events.iter().position(pred).expect("happened");
    let expired = at(&|e| matches!(e, Event::SessionExpired { consumer: C1, .. }));
    let bumped =
        at(&|e| matches!(e, Event::GroupEpochBumped { reason: RebalanceReason::SessionExpired, .. }));
    let fenced = at(&|e| matches!(e, Event::Fenced { consumer: C1, error: "UNKNOWN_MEMBER_ID", .. }));
    let failed = at(&|e| matches!(e, Event::CommitFailed { consumer: C1, .. }));
    let rejoined = at(&|e| matches!(e, Event::Rejoined { consumer: C1, .. }));
    assert!(bumped < fenced && expired < fenced && fenced < failed && failed < rejoined, "{events:?}");
    let (Event::Fenced { member_id: before, .. }, Event::Rejoined { member_id: after, .. }) =
        (&events[fenced], &events[rejoined])
    else {
        unreachable!()
    };
    assert_eq!(before, after, "a KIP-848 member keeps its member id");
    let m = sim.metrics();
    assert!(m.commit_failed == 1 && m.duplicates >= 1, "{m:?}");
    assert_eq!(m.total_lag, 0, "the group caught up in the end");
}

/// `auto.offset.reset` for a group with no committed offset: `latest` starts at the log end
/// and skips what was written before (counted, and part of never processed), `earliest` reads
/// it all, `by_duration` starts at the first record produced within the duration.
#[test]
fn auto_offset_reset_decides_where_a_new_group_starts() {
    let (sim, events) = events_of("new-group-latest-skips");
    let m = sim.metrics();
    assert_eq!((m.produced, m.skipped_by_reset, m.never_processed, m.delivered), (42, 30, 30, 12), "{m:?}");
    let skipped: u64 = events
        .iter()
        .filter_map(|e| match e {
            Event::ResetPosition { policy: "latest", skipped, .. } => Some(*skipped),
            _ => None,
        })
        .sum();
    assert_eq!(skipped, 30, "each partition's start says what it skipped");
    let with = |reset| metrics_with("new-group-latest-skips", |g| g.auto_offset_reset = reset);
    let m = with(AutoOffsetReset::Earliest);
    assert_eq!((m.skipped_by_reset, m.never_processed, m.delivered), (0, 0, 42), "{m:?}");
    // Sent at tick 0: produced more than 4 ticks before the group starts at tick 6.
    let m = with(AutoOffsetReset::ByDuration(4));
    assert_eq!((m.skipped_by_reset, m.delivered), (30, 12), "{m:?}");
    let m = with(AutoOffsetReset::ByDuration(100));
    assert_eq!((m.skipped_by_reset, m.delivered), (0, 42), "{m:?}");
}

/// `auto.offset.reset=none` refuses to guess: every consumer's poll throws
/// `NoOffsetForPartitionException` and its application stops, until an operator sets the
/// offsets with the group empty; restarted, the consumers read from there.
#[test]
fn auto_offset_reset_none_stops_the_consumers_until_an_operator_sets_offsets() {
    let mut scenario = offsetlab_engine::builtin("new-group-latest-skips").unwrap();
    scenario.config.groups[0].auto_offset_reset = AutoOffsetReset::None;
    let mut events = Vec::new();
    let mut s = scenario.run_observed(None, Some(10), |e| events.push(e)).unwrap();
    let thrown: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::NoOffset { consumer, error, .. } => Some((*consumer, *error)),
            _ => None,
        })
        .collect();
    assert_eq!(thrown, vec![(C1, "NoOffsetForPartitionException"), (C2, "NoOffsetForPartitionException")]);
    assert_eq!(s.metrics().delivered, 0);
    // The sessions run out, the group is empty: the operator resets it to the earliest offsets.
    advance(&mut s, 12);
    input(&mut s, Input::ResetOffsets { group: None, reset: offsetlab_engine::ResetSpec::Earliest });
    input(&mut s, Input::Start { consumer: C1 });
    input(&mut s, Input::Start { consumer: C2 });
    advance(&mut s, 40);
    let m = s.metrics();
    assert_eq!((m.delivered, m.never_processed, m.total_lag), (42, 0, 0), "{m:?}");
}

/// `group.initial.rebalance.delay.ms`: members started a few ticks apart into an empty classic
/// group make one generation when its first rebalance waits for them, one per join when it
/// does not (0, as a scenario that leaves it out).
#[test]
fn the_initial_rebalance_delay_gathers_members_started_apart_into_one_generation() {
    let generations = |delay: u64| {
        let group =
            GroupConfig { consumers: 0, initial_rebalance_delay_ticks: delay, ..GroupConfig::default() };
        let mut s = sim(group, 3);
        let mut events = Vec::new();
        for _ in 0..3 {
            events.extend(input(&mut s, Input::AddConsumer { group: None }));
            events.extend(advance(&mut s, 2));
        }
        events.extend(advance(&mut s, 20));
        let completed: Vec<(u64, u32)> = events
            .iter()
            .filter_map(|e| match e {
                Event::RebalanceCompleted { tick, generation, .. } => Some((*tick, *generation)),
                _ => None,
            })
            .collect();
        (completed, s.metrics().generation)
    };
    let (without, generation) = generations(0);
    assert_eq!(generation, 3, "one generation per join: {without:?}");
    // With a delay of 3 ticks, extended while members join, within the rebalance timeout.
    let (with, generation) = generations(3);
    assert_eq!(generation, 1, "{with:?}");
    let [(tick, 1)] = with.as_slice() else { panic!("{with:?}") };
    assert!(*tick >= 4 + 3, "the last join at tick 4, then a delay: {with:?}");
}

/// `offsets.retention`: a group without members for longer loses its committed offsets;
/// restarted, `latest` skips what arrived while it was down and `earliest` handles
/// everything again. Left out, the offsets never expire.
#[test]
fn an_empty_groups_offsets_expire_and_the_reset_decides_what_happens() {
    let (sim, events) = events_of("offsets-expired");
    let expired: Vec<(u64, usize)> = events
        .iter()
        .filter_map(|e| match e {
            Event::OffsetsExpired { tick, offsets, .. } => Some((*tick, offsets.len())),
            _ => None,
        })
        .collect();
    let [(tick, 3)] = expired.as_slice() else { panic!("{expired:?}") };
    assert_eq!(*tick, 37, "20 ticks after the group became empty at tick 17");
    // No offset left: the coordinator deletes the group, and the restarted
    // consumers create it anew, at generation 1 (it was at 2 before).
    let deleted: Vec<u64> =
        events.iter().filter(|e| matches!(e, Event::GroupDeleted { .. })).map(Event::tick).collect();
    assert_eq!(deleted, [37], "{deleted:?}");
    let generations: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::RebalanceCompleted { generation, .. } => Some(*generation),
            _ => None,
        })
        .collect();
    assert_eq!(generations.first(), Some(&1), "{generations:?}");
    assert_eq!(generations.last(), Some(&1), "a new group starts at generation 1: {generations:?}");
    assert_eq!(sim.metrics().generation, 1);
    let m = sim.metrics();
    assert_eq!((m.skipped_by_reset, m.duplicates, m.delivered), (12, 0, 24), "{m:?}");
    let with = |retention, reset| {
        metrics_with("offsets-expired", |g| {
            g.offsets_retention_ticks = retention;
            g.auto_offset_reset = reset;
        })
    };
    let m = with(Some(20), AutoOffsetReset::Earliest);
    assert_eq!((m.skipped_by_reset, m.duplicates, m.delivered), (0, 18, 54), "earliest replays: {m:?}");
    let m = with(None, AutoOffsetReset::Latest);
    assert_eq!((m.skipped_by_reset, m.duplicates, m.delivered), (0, 0, 36), "kept offsets resume: {m:?}");
}

#[test]
fn partitions_added_wait_for_the_leaders_metadata_refresh_and_latest_skips_what_came_before() {
    let (sim, events) = events_of("partitions-added-latest-skips");
    let rebalances: Vec<(u64, RebalanceReason)> = events
        .iter()
        .filter_map(|e| match e {
            Event::RebalanceStarted { tick, reason, .. } => Some((*tick, *reason)),
            _ => None,
        })
        .collect();
    // The partition comes at tick 8; the leader's client, which fetched the
    // metadata at its first tick, refreshes it 30 ticks later and rejoins.
    assert_eq!(rebalances[1..], [(31, RebalanceReason::PartitionsAdded)], "{rebalances:?}");
    let skipped: Vec<(u32, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::ResetPosition { partition, skipped, .. } if *skipped > 0 => Some((*partition, *skipped)),
            _ => None,
        })
        .collect();
    assert_eq!(skipped, [(3, 10)], "P3's records written before the refresh");
    let m = sim.metrics();
    assert_eq!((m.skipped_by_reset, m.never_processed), (10, 10), "{m:?}");

    let with = |age, reset| {
        metrics_with("partitions-added-latest-skips", |g| {
            g.metadata_max_age_ticks = age;
            g.auto_offset_reset = reset;
        })
    };
    let m = with(Some(30), AutoOffsetReset::Earliest);
    assert_eq!((m.skipped_by_reset, m.never_processed), (0, 0), "earliest reads P3 from its start: {m:?}");
    let m = with(None, AutoOffsetReset::Latest);
    assert!(m.skipped_by_reset < 3, "the leader seeing P3 at once leaves almost no window: {m:?}");
}

#[test]
fn a_consumer_protocol_group_sees_added_partitions_at_once_whatever_its_metadata_age() {
    let m = metrics_with("partitions-added-latest-skips", |g| {
        g.protocol = offsetlab_engine::GroupProtocol::Consumer
    });
    assert!(m.skipped_by_reset < 3, "the coordinator's own metadata: {m:?}");
}

#[test]
fn a_rebalance_before_the_leaders_refresh_assigns_only_the_partitions_its_metadata_knows() {
    let mut scenario = offsetlab_engine::builtin("partitions-added-latest-skips").unwrap();
    scenario.timeline.push(offsetlab_engine::TimedInput {
        tick: 12,
        input: Input::AddConsumer { group: None },
        learner: false,
    });
    scenario.timeline.sort_by_key(|t| t.tick);
    let mut sim = scenario.run(None, Some(0)).unwrap();
    let mut generations = Vec::new();
    for tick in 0..scenario.ticks {
        for t in scenario.timeline.iter().filter(|t| t.tick == tick) {
            sim.handle_input(t.input.clone()).unwrap();
        }
        sim.handle_tick(tick + 1);
        sim.check_invariants();
        while let Some(e) = sim.poll_event() {
            if let Event::RebalanceCompleted { tick, assignment, .. } = e {
                let owned: Vec<u32> = assignment.into_iter().flat_map(|(_, p)| p).collect();
                generations.push((tick, owned));
            }
        }
    }
    let [_, (at, third), (refresh, all)] = generations.as_slice() else { panic!("{generations:?}") };
    assert!(*at >= 12 && !third.contains(&3), "c3's generation leaves P3 out: {generations:?}");
    assert!(*refresh >= 31 && all.contains(&3), "the refresh brings it in: {generations:?}");
}

/// Runs built-in `name` to `tick` with its whole timeline, and returns the
/// `kafka-consumer-groups --describe` text then.
fn describe_at(name: &str, tick: u64) -> String {
    let scenario = offsetlab_engine::builtin(name).unwrap();
    let sim = scenario.run(None, Some(tick)).unwrap();
    offsetlab_engine::describe(&sim)
}

#[test]
fn describe_says_what_kafkas_tool_says_at_each_moment_of_the_clocks() {
    // Auto-commit: before the first timer commit, no committed offset, so no
    // current offset and no lag ("-"), while the members own their partitions.
    let early = describe_at("commit-on-timer", 3);
    let rows: Vec<Vec<&str>> =
        early.lines().skip(1).filter(|l| !l.is_empty()).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 3, "{early}");
    for row in &rows {
        assert_eq!((row[3], row[5]), ("-", "-"), "CURRENT-OFFSET and LAG before any commit: {early}");
        assert!(row[6].starts_with('c'), "an owner: {early}");
    }
    // Everyone stopped: Kafka prints the warning, then the committed offsets
    // with no consumer.
    let empty = describe_at("offsets-expired", 30);
    assert!(empty.starts_with("Consumer group 'demo' has no active members.\n\n"), "{empty}");
    let rows: Vec<&str> = empty.lines().skip(3).collect();
    assert_eq!(rows.len(), 3, "{empty}");
    assert!(rows.iter().all(|r| r.split_whitespace().skip(6).all(|c| c == "-")), "no consumer: {empty}");
    // Once the offsets expired, Kafka deletes the empty group: its tool then
    // fails to find it (KIP-1043's GROUP_ID_NOT_FOUND).
    let expired = describe_at("offsets-expired", 40);
    assert_eq!(
        expired,
        "Error: Executing consumer group command failed due to \
         org.apache.kafka.common.errors.GroupIdNotFoundException: Group demo not found.\n",
        "{expired}"
    );
}
