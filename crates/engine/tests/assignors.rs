//! Kafka's four client assignors against the examples Kafka documents: the
//! assignors' javadoc and the expected assignments in Kafka's own tests
//! (`RangeAssignorTest`, `RoundRobinAssignorTest`, `AbstractStickyAssignorTest`
//! as of Kafka 3.8, run there for both sticky assignors, and
//! `CooperativeStickyAssignorTest`). Only cases where every member
//! subscribes to every topic, without racks, are taken.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::{Assignment, Strategy, TopicPartitions, assign, cooperative_first_round};

const RANGE: Strategy = Strategy::Range;
const ROUND_ROBIN: Strategy = Strategy::RoundRobin;
const STICKY: Strategy = Strategy::Sticky;
const COOPERATIVE: Strategy = Strategy::CooperativeSticky;

/// `"t0:3 t1:3"`: topics and partition counts.
fn topics(spec: &str) -> TopicPartitions {
    spec.split_whitespace()
        .map(|t| {
            let (name, count) = t.rsplit_once(':').unwrap();
            (name.to_string(), count.parse().unwrap())
        })
        .collect()
}

/// `"C0: t0-0 t0-1; C1: t0-2"` in Kafka's `TopicPartition` notation (`topic-partition`):
/// every member listed, with every topic of `topics` (empty when it has none).
fn assignment(spec: &str, topics: &TopicPartitions) -> Assignment {
    spec.split(';')
        .map(|member| {
            let (name, tps) = member.split_once(':').unwrap();
            let mut owned: std::collections::BTreeMap<String, Vec<u32>> =
                topics.keys().map(|t| (t.clone(), Vec::new())).collect();
            for tp in tps.split_whitespace() {
                let (topic, p) = tp.rsplit_once('-').unwrap();
                owned.entry(topic.to_string()).or_default().push(p.parse().unwrap());
            }
            owned.values_mut().for_each(|ps| ps.sort_unstable());
            (name.trim().to_string(), owned)
        })
        .collect()
}

fn members(list: &str) -> Vec<String> {
    list.split_whitespace().map(str::to_string).collect()
}

fn none() -> Assignment {
    Assignment::new()
}

/// Partitions that stay with the member that owned them.
fn kept(previous: &Assignment, next: &Assignment) -> usize {
    next.iter()
        .map(|(m, topics)| {
            topics
                .iter()
                .map(|(t, ps)| {
                    let before = previous.get(m).and_then(|o| o.get(t));
                    ps.iter().filter(|p| before.is_some_and(|b| b.contains(p))).count()
                })
                .sum::<usize>()
        })
        .sum()
}

// ---------------------------------------------------------------- range

#[test]
fn range_javadoc_example() {
    // RangeAssignor javadoc: C0, C1; t0 and t1 with 3 partitions each.
    let t = topics("t0:3 t1:3");
    let got = assign(RANGE, &members("C0 C1"), &t, &none());
    assert_eq!(got, assignment("C0: t0-0 t0-1 t1-0 t1-1; C1: t0-2 t1-2", &t));
}

#[test]
fn range_two_consumers_one_partition() {
    // RangeAssignorTest.testTwoConsumersOneTopicOnePartition.
    let t = topics("topic1:1");
    let got = assign(RANGE, &members("consumer1 consumer2"), &t, &none());
    assert_eq!(got, assignment("consumer1: topic1-0; consumer2:", &t));
}

#[test]
fn range_one_consumer_multiple_topics() {
    // RangeAssignorTest.testOneConsumerMultipleTopics.
    let t = topics("topic1:1 topic2:2");
    let got = assign(RANGE, &members("consumer1"), &t, &none());
    assert_eq!(got, assignment("consumer1: topic1-0 topic2-0 topic2-1", &t));
}

#[test]
fn range_sorts_member_ids_as_strings() {
    // "consumer-10" < "consumer-2": the first two ranges go to consumer-1 and consumer-10.
    let t = topics("orders:7");
    let got = assign(RANGE, &members("consumer-2 consumer-10 consumer-1"), &t, &none());
    assert_eq!(
        got,
        assignment(
            "consumer-1: orders-0 orders-1 orders-2; consumer-10: orders-3 orders-4; consumer-2: orders-5 orders-6",
            &t
        )
    );
}

#[test]
fn range_ignores_the_previous_assignment() {
    let t = topics("t0:3 t1:3");
    let previous = assignment("C0: t0-2 t1-2; C1: t0-0 t0-1 t1-0 t1-1", &t);
    assert_eq!(
        assign(RANGE, &members("C0 C1"), &t, &previous),
        assign(RANGE, &members("C1 C0"), &t, &none())
    );
}

// ---------------------------------------------------------------- round robin

#[test]
fn round_robin_javadoc_example() {
    // RoundRobinAssignor javadoc: C0, C1; t0 and t1 with 3 partitions each.
    let t = topics("t0:3 t1:3");
    let got = assign(ROUND_ROBIN, &members("C0 C1"), &t, &none());
    assert_eq!(got, assignment("C0: t0-0 t0-2 t1-1; C1: t0-1 t1-0 t1-2", &t));
}

#[test]
fn round_robin_two_dynamic_consumers() {
    // RoundRobinAssignorTest.testTwoDynamicConsumersTwoTopicsSixPartitions.
    let t = topics("topic1:3 topic2:3");
    let got = assign(ROUND_ROBIN, &members("consumer2 consumer1"), &t, &none());
    assert_eq!(
        got,
        assignment("consumer1: topic1-0 topic1-2 topic2-1; consumer2: topic1-1 topic2-0 topic2-2", &t)
    );
}

#[test]
fn round_robin_two_consumers_one_partition() {
    // RoundRobinAssignorTest.testTwoConsumersOneTopicOnePartition.
    let t = topics("topic:1");
    let got = assign(ROUND_ROBIN, &members("consumer1 consumer2"), &t, &none());
    assert_eq!(got, assignment("consumer1: topic-0; consumer2:", &t));
}

// ---------------------------------------------------------------- sticky

/// StickyAssignor javadoc, example 1: three consumers, four topics of two partitions.
fn javadoc_example_1() -> (TopicPartitions, Assignment) {
    let t = topics("t0:2 t1:2 t2:2 t3:2");
    let both = assignment("C0: t0-0 t1-1 t3-0; C1: t0-1 t2-0 t3-1; C2: t1-0 t2-1", &t);
    (t, both)
}

#[test]
fn sticky_javadoc_example_1_fresh_equals_round_robin() {
    // "The assignment with both sticky and round robin assignors will be: C0 [t0p0, t1p1, t3p0],
    // C1 [t0p1, t2p0, t3p1], C2 [t1p0, t2p1]."
    let (t, expected) = javadoc_example_1();
    for strategy in [ROUND_ROBIN, STICKY, COOPERATIVE] {
        assert_eq!(assign(strategy, &members("C0 C1 C2"), &t, &none()), expected, "{strategy}");
    }
}

#[test]
fn sticky_javadoc_example_1_after_c1_leaves() {
    let (t, previous) = javadoc_example_1();
    // Round robin, as the javadoc says: "C0: [t0p0, t1p0, t2p0, t3p0], C2: [t0p1, t1p1, t2p1, t3p1]".
    let round_robin = assign(ROUND_ROBIN, &members("C0 C2"), &t, &previous);
    assert_eq!(round_robin, assignment("C0: t0-0 t1-0 t2-0 t3-0; C2: t0-1 t1-1 t2-1 t3-1", &t));
    assert_eq!(kept(&previous, &round_robin), 3);
    // Sticky keeps all five partitions C0 and C2 owned, as the javadoc says. Where C1's
    // three go differs from its text, which describes the original (KIP-54) algorithm
    // ("C0 [t0p0, t1p1, t3p0, t2p0], C2 [t1p0, t2p1, t0p1, t3p1]"): since Kafka 2.8 the
    // ConstrainedAssignmentBuilder deals the unowned partitions, by topic then partition,
    // round-robin to the members under quota in sorted order: t0p1 to C0 (now full),
    // then t2p0 and t3p1 to C2.
    let sticky = assign(STICKY, &members("C0 C2"), &t, &previous);
    assert_eq!(sticky, assignment("C0: t0-0 t0-1 t1-1 t3-0; C2: t1-0 t2-0 t2-1 t3-1", &t));
    assert_eq!(kept(&previous, &sticky), 5);
    // Nothing changes owner, so cooperative-sticky gets there in one rebalance.
    assert_eq!(cooperative_first_round(&sticky, &previous), sticky);
    assert_eq!(assign(COOPERATIVE, &members("C0 C2"), &t, &previous), sticky);
}

#[test]
fn sticky_one_consumer_one_topic() {
    // AbstractStickyAssignorTest.testOneConsumerOneTopic.
    let t = topics("topic:3");
    for strategy in [STICKY, COOPERATIVE] {
        let got = assign(strategy, &members("consumer"), &t, &none());
        assert_eq!(got, assignment("consumer: topic-0 topic-1 topic-2", &t));
    }
}

#[test]
fn sticky_two_consumers_two_topics_six_partitions() {
    // AbstractStickyAssignorTest.testTwoConsumersTwoTopicsSixPartitions.
    let t = topics("topic1:3 topic2:3");
    let got = assign(STICKY, &members("consumer1 consumer2"), &t, &none());
    assert_eq!(
        got,
        assignment("consumer1: topic1-0 topic1-2 topic2-1; consumer2: topic1-1 topic2-0 topic2-2", &t)
    );
}

#[test]
fn sticky_consumer_owning_min_quota_expected_max_quota() {
    // AbstractStickyAssignorTest.testConsumerOwningMinQuotaExpectedMaxQuota.
    let t = topics("topic1:2 topic2:3");
    let previous = assignment("consumer1: topic1-0 topic2-1; consumer2: topic1-1 topic2-2", &t);
    let expected = assignment("consumer1: topic1-0 topic2-0 topic2-1; consumer2: topic1-1 topic2-2", &t);
    for strategy in [STICKY, COOPERATIVE] {
        assert_eq!(assign(strategy, &members("consumer1 consumer2"), &t, &previous), expected);
    }
    assert_eq!(cooperative_first_round(&expected, &previous), expected, "nothing transfers");
}

#[test]
fn sticky_more_max_quota_owners_than_expected() {
    // AbstractStickyAssignorTest.testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers:
    // consumer1 and consumer2 both own two partitions, but only one of three members may
    // keep two. Kafka walks its HashMap, in which consumer2 (bucket 11) comes before
    // consumer1 (bucket 12): consumer2 keeps both, consumer1 keeps topic1-0 (the lowest
    // partition number) and topic2-0 transfers to consumer3.
    let t = topics("topic1:2 topic2:2");
    let previous = assignment("consumer1: topic1-0 topic2-0; consumer2: topic1-1 topic2-1; consumer3:", &t);
    let m = members("consumer1 consumer2 consumer3");
    let target = assign(STICKY, &m, &t, &previous);
    assert_eq!(
        target,
        assignment("consumer1: topic1-0; consumer2: topic1-1 topic2-1; consumer3: topic2-0", &t)
    );
    // partitionsTransferringOwnership = {topic2-0: consumer3}: the first round leaves it out.
    let first = cooperative_first_round(&target, &previous);
    assert_eq!(first, assignment("consumer1: topic1-0; consumer2: topic1-1 topic2-1; consumer3:", &t));
    assert_eq!(assign(COOPERATIVE, &m, &t, &previous), target);
}

#[test]
fn sticky_all_consumers_under_min_quota() {
    // AbstractStickyAssignorTest.testAllConsumersAreUnderMinQuota.
    let t = topics("topic1:2 topic2:3");
    let previous = assignment("consumer1: topic1-0; consumer2: topic1-1; consumer3:", &t);
    let got = assign(STICKY, &members("consumer1 consumer2 consumer3"), &t, &previous);
    assert_eq!(
        got,
        assignment("consumer1: topic1-0 topic2-1; consumer2: topic1-1 topic2-2; consumer3: topic2-0", &t)
    );
    assert_eq!(cooperative_first_round(&got, &previous), got);
}

#[test]
fn sticky_add_and_remove_a_consumer() {
    // AbstractStickyAssignorTest.testAddRemoveConsumerOneTopic.
    let t = topics("topic:3");
    let first = assign(STICKY, &members("consumer1"), &t, &none());
    assert_eq!(first, assignment("consumer1: topic-0 topic-1 topic-2", &t));

    let added = assign(STICKY, &members("consumer1 consumer2"), &t, &first);
    assert_eq!(added, assignment("consumer1: topic-0 topic-1; consumer2: topic-2", &t));
    // partitionsTransferringOwnership = {topic-2: consumer2}.
    let round_one = cooperative_first_round(&added, &first);
    assert_eq!(round_one, assignment("consumer1: topic-0 topic-1; consumer2:", &t));
    assert_eq!(assign(COOPERATIVE, &members("consumer1 consumer2"), &t, &first), added);

    let removed = assign(STICKY, &members("consumer2"), &t, &added);
    assert_eq!(removed, assignment("consumer2: topic-0 topic-1 topic-2", &t));
    assert_eq!(cooperative_first_round(&removed, &added), removed, "nothing transfers");
}

#[test]
fn sticky_add_and_remove_two_consumers() {
    // AbstractStickyAssignorTest.testAddRemoveTwoConsumersTwoTopics (Kafka 3.8's expectations:
    // owned partitions are kept lowest partition number first, KAFKA-16277).
    let t = topics("topic1:3 topic2:4");
    let two = assign(STICKY, &members("consumer1 consumer2"), &t, &none());
    assert_eq!(
        two,
        assignment(
            "consumer1: topic1-0 topic1-2 topic2-1 topic2-3; consumer2: topic1-1 topic2-0 topic2-2",
            &t
        )
    );

    let four_members = members("consumer1 consumer2 consumer3 consumer4");
    let four = assign(STICKY, &four_members, &t, &two);
    assert_eq!(
        four,
        assignment(
            "consumer1: topic1-0 topic2-1; consumer2: topic2-0 topic1-1; \
             consumer3: topic1-2 topic2-3; consumer4: topic2-2",
            &t
        )
    );
    // partitionsTransferringOwnership = {topic1-2: consumer3, topic2-3: consumer3, topic2-2: consumer4}.
    let round_one = cooperative_first_round(&four, &two);
    assert_eq!(
        round_one,
        assignment("consumer1: topic1-0 topic2-1; consumer2: topic2-0 topic1-1; consumer3:; consumer4:", &t)
    );
    assert_eq!(assign(COOPERATIVE, &four_members, &t, &two), four);

    let back_to_two = assign(STICKY, &members("consumer3 consumer4"), &t, &four);
    assert_eq!(
        back_to_two,
        assignment(
            "consumer3: topic1-2 topic2-3 topic1-0 topic2-1; consumer4: topic2-2 topic1-1 topic2-0",
            &t
        )
    );
}

#[test]
fn sticky_all_consumers_reach_quota() {
    // AbstractStickyAssignorTest.testAllConsumersReachExpectedQuotaAndAreConsideredFilled.
    let t = topics("topic:4");
    let previous = assignment("consumer1: topic-0 topic-1; consumer2: topic-2; consumer3:", &t);
    let got = assign(STICKY, &members("consumer1 consumer2 consumer3"), &t, &previous);
    assert_eq!(got, assignment("consumer1: topic-0 topic-1; consumer2: topic-2; consumer3: topic-3", &t));
}

#[test]
fn sticky_partition_claimed_twice_is_kept_by_neither() {
    // AbstractStickyAssignorTest
    // .testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration.
    let t = topics("topic:3");
    let previous = assignment("consumer1: topic-0 topic-1; consumer2: topic-0 topic-2; consumer3:", &t);
    let m = members("consumer1 consumer2 consumer3");
    let target = assign(STICKY, &m, &t, &previous);
    assert_eq!(target, assignment("consumer1: topic-1; consumer2: topic-2; consumer3: topic-0", &t));
    // CooperativeStickyAssignorTest.testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultiple
    // ConsumersInSameGenerationWithEqualPartitionsPerConsumer: topic-0 waits for both to revoke it.
    let first = cooperative_first_round(&target, &previous);
    assert_eq!(first, assignment("consumer1: topic-1; consumer2: topic-2; consumer3:", &t));
    assert_eq!(assign(COOPERATIVE, &m, &t, &previous), target);
}

#[test]
fn cooperative_partition_claimed_twice_with_unequal_counts() {
    // CooperativeStickyAssignorTest.testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultiple
    // ConsumersInSameGenerationWithUnequalPartitionsPerConsumer.
    let t = topics("topic:4");
    let previous = assignment("consumer1: topic-0 topic-1; consumer2: topic-0 topic-2; consumer3:", &t);
    let m = members("consumer1 consumer2 consumer3");
    let target = assign(STICKY, &m, &t, &previous);
    let first = cooperative_first_round(&target, &previous);
    assert_eq!(first, assignment("consumer1: topic-1 topic-3; consumer2: topic-2; consumer3:", &t));
    // The second rebalance hands topic-0 to consumer3.
    let last = assign(COOPERATIVE, &m, &t, &previous);
    assert_eq!(last, assignment("consumer1: topic-1 topic-3; consumer2: topic-2; consumer3: topic-0", &t));
    assert_eq!(assign(STICKY, &m, &t, &first), last);
}

#[test]
fn cooperative_with_old_version_subscriptions() {
    // CooperativeStickyAssignorTest.testAssignorWithOldVersionSubscriptions.
    let t = topics("topic1:3");
    let previous = assignment("consumer1: topic1-0; consumer2: topic1-1; consumer3:", &t);
    let got = assign(COOPERATIVE, &members("consumer1 consumer2 consumer3"), &t, &previous);
    assert_eq!(got, assignment("consumer1: topic1-0; consumer2: topic1-1; consumer3: topic1-2", &t));
}

#[test]
fn sticky_stickiness_when_the_leader_leaves() {
    // AbstractStickyAssignorTest.testStickiness: four consumers, three partitions; one gets
    // none. When consumer1 leaves, every remaining consumer keeps what it had.
    let t = topics("topic1:3");
    let four = assign(STICKY, &members("consumer1 consumer2 consumer3 consumer4"), &t, &none());
    assert!(four.values().all(|a| a["topic1"].len() <= 1));
    let three = assign(STICKY, &members("consumer2 consumer3 consumer4"), &t, &four);
    for (m, owned) in &three {
        assert_eq!(owned["topic1"].len(), 1, "{m}");
        assert!(four[m]["topic1"].iter().all(|p| owned["topic1"].contains(p)), "{m} kept its partition");
    }
}

#[test]
fn sticky_join_order_matters_only_for_colliding_member_ids() {
    // "Aa" and "BB" have the same String.hashCode, so they share a HashMap bucket and
    // Kafka meets them in JoinGroup order. Both own two partitions; with four partitions
    // and three members only one may keep two: the one that joined first.
    let t = topics("orders:4");
    let previous = assignment("Aa: orders-0 orders-1; BB: orders-2 orders-3; new:", &t);
    let aa_first = assign(STICKY, &members("Aa BB new"), &t, &previous);
    assert_eq!(aa_first, assignment("Aa: orders-0 orders-1; BB: orders-2; new: orders-3", &t));
    let bb_first = assign(STICKY, &members("BB Aa new"), &t, &previous);
    assert_eq!(bb_first, assignment("Aa: orders-0; BB: orders-2 orders-3; new: orders-1", &t));
    // "Ab" and "BB" do not collide: BB's bucket (2112 & 15 = 0) comes first whatever the order.
    let previous = assignment("Ab: orders-0 orders-1; BB: orders-2 orders-3; new:", &t);
    let expected = assignment("Ab: orders-0; BB: orders-2 orders-3; new: orders-1", &t);
    assert_eq!(assign(STICKY, &members("Ab BB new"), &t, &previous), expected);
    assert_eq!(assign(STICKY, &members("BB Ab new"), &t, &previous), expected);
}

#[test]
fn sticky_ignores_departed_members_and_vanished_topics() {
    // A departed member's partitions are free; a topic the group no longer has is dropped
    // (AbstractStickyAssignorTest.testOnlyAssignsPartitionsFromSubscribedTopics).
    let t = topics("topic:2");
    let mut previous = assignment("consumer: topic-0 topic-1; gone: topic-0", &t);
    previous.get_mut("consumer").unwrap().insert("other".to_string(), vec![0, 1]);
    let got = assign(STICKY, &members("consumer"), &t, &previous);
    assert_eq!(got, assignment("consumer: topic-0 topic-1", &t));
}

// ---------------------------------------------------------------- every strategy

#[test]
fn no_topics_and_no_members() {
    // AbstractStickyAssignorTest.testOneConsumerNoTopic, RoundRobinAssignorTest.testOneConsumerNoTopic.
    for strategy in Strategy::ALL {
        let got = assign(strategy, &members("consumer"), &TopicPartitions::new(), &none());
        assert_eq!(got, assignment("consumer:", &TopicPartitions::new()), "{strategy}");
        assert!(assign(strategy, &[], &topics("orders:3"), &none()).is_empty(), "{strategy}");
    }
}

#[test]
fn strategies_have_kafkas_names() {
    let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["range", "roundrobin", "sticky", "cooperative-sticky"]);
    for strategy in Strategy::ALL {
        assert_eq!(strategy.name().parse::<Strategy>(), Ok(strategy));
        assert_eq!(strategy.to_string(), strategy.name());
        assert_eq!(serde_json::to_string(&strategy).unwrap(), format!("\"{}\"", strategy.name()));
        assert_eq!(serde_json::from_str::<Strategy>(&format!("\"{strategy}\"")).unwrap(), strategy);
    }
    let err = "round-robin".parse::<Strategy>().unwrap_err();
    assert!(err.to_string().contains("\"round-robin\""), "{err}");
    assert!(err.to_string().contains("roundrobin"), "{err}");
}

// ------------------------------------------- own subscriptions, static members, generations

/// A member of `assign_members`: `"C1: t0 t1"` subscribes C1 to t0 and t1.
fn member(spec: &str) -> offsetlab_engine::Member {
    let (id, topics) = spec.split_once(':').unwrap();
    offsetlab_engine::Member {
        id: id.trim().to_string(),
        topics: topics.split_whitespace().map(str::to_string).collect(),
        ..offsetlab_engine::Member::default()
    }
}

fn owning(
    mut m: offsetlab_engine::Member,
    topic: &str,
    partitions: &[u32],
    generation: i32,
) -> offsetlab_engine::Member {
    m.owned.insert(topic.to_string(), partitions.to_vec());
    m.generation = Some(generation);
    m
}

#[test]
fn round_robin_javadoc_uneven_subscriptions() {
    // RoundRobinAssignor javadoc: C0 subscribes to t0; C1 to t0, t1; C2 to t0, t1, t2.
    let t = topics("t0:1 t1:2 t2:3");
    let members = [member("C0: t0"), member("C1: t0 t1"), member("C2: t0 t1 t2")];
    let expected = assignment("C0: t0-0; C1: t1-0; C2: t1-1 t2-0 t2-1 t2-2", &t);
    assert_eq!(offsetlab_engine::assign_members(ROUND_ROBIN, &members, &t), expected);
}

#[test]
fn range_per_topic_subscribers_static_members_first() {
    // Range hands each topic to its own subscribers; static members sort first, by instance id.
    let t = topics("t0:3 t1:2");
    let mut b = member("b: t0 t1");
    b.group_instance_id = Some("z".to_string());
    let members = [member("a: t0"), b, member("c: t0 t1")];
    let expected = assignment("a: t0-1; b: t0-0 t1-0; c: t0-2 t1-1", &t);
    assert_eq!(offsetlab_engine::assign_members(RANGE, &members, &t), expected);
    // Round-robin orders members the same way.
    let expected = assignment("a: t0-1; b: t0-0 t1-0; c: t0-2 t1-1", &t);
    assert_eq!(offsetlab_engine::assign_members(ROUND_ROBIN, &members, &t), expected);
}

#[test]
fn sticky_javadoc_uneven_subscriptions() {
    // StickyAssignor javadoc, example 2: C0 on t0; C1 on t0, t1; C2 on t0, t1, t2 (1, 2, 3 partitions).
    let t = topics("t0:1 t1:2 t2:3");
    let members = [member("C0: t0"), member("C1: t0 t1"), member("C2: t0 t1 t2")];
    let first = assignment("C0: t0-0; C1: t1-0 t1-1; C2: t2-0 t2-1 t2-2", &t);
    for strategy in [STICKY, COOPERATIVE] {
        assert_eq!(offsetlab_engine::assign_members(strategy, &members, &t), first, "{strategy}");
    }
    // C0 leaves: the sticky assignor gives t0-0 to C1 and moves nothing else (round-robin would
    // have moved five partitions).
    let members =
        [owning(member("C1: t0 t1"), "t1", &[0, 1], 1), owning(member("C2: t0 t1 t2"), "t2", &[0, 1, 2], 1)];
    let expected = assignment("C1: t0-0 t1-0 t1-1; C2: t2-0 t2-1 t2-2", &t);
    for strategy in [STICKY, COOPERATIVE] {
        assert_eq!(offsetlab_engine::assign_members(strategy, &members, &t), expected, "{strategy}");
    }
}

#[test]
fn the_later_generation_keeps_a_partition_two_members_claim() {
    let t = topics("t0:4");
    let members = [owning(member("a: t0"), "t0", &[0, 1], 5), owning(member("b: t0"), "t0", &[1, 2, 3], 4)];
    // a (generation 5) keeps t0-1; b keeps t0-2 and t0-3.
    let expected = assignment("a: t0-0 t0-1; b: t0-2 t0-3", &t);
    assert_eq!(offsetlab_engine::assign_members(STICKY, &members, &t), expected);
    // In one generation, neither keeps it: a gets it back only by the round-robin.
    let members = [owning(member("a: t0"), "t0", &[0, 1], 4), owning(member("b: t0"), "t0", &[1, 2, 3], 4)];
    let first = offsetlab_engine::cooperative_first_round_of(&members, &t);
    assert_eq!(first, assignment("a: t0-0; b: t0-2 t0-3", &t));
}

#[test]
fn cooperative_settles_when_nothing_is_taken() {
    // b owned a partition of a topic since deleted and one of t1, which it no longer
    // subscribes to: it revokes them, rejoins, and the group settles.
    let t = topics("t0:4 t1:2");
    let mut b = owning(member("b: t0"), "t0", &[0, 1, 2, 3], 3);
    b.owned.insert("gone".to_string(), vec![0]);
    b.owned.insert("t1".to_string(), vec![0]);
    let members = [member("a: t0 t1"), b];
    let first = offsetlab_engine::cooperative_first_round_of(&members, &t);
    let settled = offsetlab_engine::assign_members(COOPERATIVE, &members, &t);
    for (m, topics) in &settled {
        let got: usize = topics.values().map(Vec::len).sum();
        assert_eq!(got, 3, "{m} in {settled:?}");
    }
    // Nothing b kept in the first round moves later.
    for p in &first["b"]["t0"] {
        assert!(settled["b"]["t0"].contains(p), "{first:?} then {settled:?}");
    }
}
