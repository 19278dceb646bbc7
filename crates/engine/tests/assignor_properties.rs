//! Property tests of the assignors: every partition assigned exactly once,
//! balance, stickiness (the sticky assignors keep every owned partition that
//! balance allows), and cooperative-sticky's two rebalances.
#![cfg(not(target_arch = "wasm32"))]

use offsetlab_engine::{Assignment, Strategy as Assignor, TopicPartitions, assign, cooperative_first_round};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Member ids, some of whose Java hashes collide ("Aa" and "BB").
fn member_id() -> impl Strategy<Value = String> {
    prop_oneof!["c[0-9]{1,2}", "consumer-[0-9]{1,3}", "(Aa|BB){1,3}", "[a-zA-Z\u{e9}\u{ff5e}\u{1f600}]{1,2}",]
}

/// Distinct member ids, in a random (JoinGroup) order.
fn members() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(member_id(), 1..14).prop_map(|ids| {
        let mut seen = BTreeSet::new();
        ids.into_iter().filter(|id| seen.insert(id.clone())).collect()
    })
}

fn topics() -> impl Strategy<Value = TopicPartitions> {
    prop::collection::btree_map("[a-z]{1,3}", 0u32..30, 1..4)
}

/// Who owned each partition before: a current member, one that left, or nobody.
/// With `twice`, some partitions are claimed by two members.
fn group(twice: bool) -> impl Strategy<Value = (Vec<String>, TopicPartitions, Assignment)> {
    (members(), topics()).prop_flat_map(move |(members, topics)| {
        let total: usize = topics.values().map(|&p| p as usize).sum();
        let owners = members.len() + 2;
        let second = if twice { prop::option::weighted(0.1, 0..owners).boxed() } else { Just(None).boxed() };
        let claims = prop::collection::vec((prop::option::weighted(0.8, 0..owners), second), total);
        claims.prop_map(move |claims| {
            let owner_name = |i: usize| members.get(i).cloned().unwrap_or_else(|| format!("left-{i}"));
            let mut previous = Assignment::new();
            let partitions = topics.iter().flat_map(|(t, &n)| (0..n).map(move |p| (t.clone(), p)));
            for ((topic, p), (first, second)) in partitions.zip(claims) {
                for owner in [first, second].into_iter().flatten() {
                    previous.entry(owner_name(owner)).or_default().entry(topic.clone()).or_default().push(p);
                }
            }
            (members.clone(), topics.clone(), previous)
        })
    })
}

fn strategy() -> impl Strategy<Value = Assignor> {
    prop::sample::select(Assignor::ALL.to_vec())
}

fn count(assignment: &Assignment, member: &str) -> usize {
    assignment[member].values().map(Vec::len).sum()
}

/// Every member and topic listed, partitions ascending, each partition exactly once.
fn check_valid(assignment: &Assignment, members: &[String], topics: &TopicPartitions) {
    let listed: BTreeSet<&String> = assignment.keys().collect();
    assert_eq!(listed, members.iter().collect::<BTreeSet<_>>());
    let mut seen: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for owned in assignment.values() {
        assert_eq!(owned.keys().collect::<Vec<_>>(), topics.keys().collect::<Vec<_>>());
        for (topic, partitions) in owned {
            assert!(partitions.windows(2).all(|w| w[0] < w[1]), "ascending: {partitions:?}");
            seen.entry(topic).or_default().extend(partitions);
        }
    }
    for (topic, &n) in topics {
        let mut got = seen.remove(topic.as_str()).unwrap_or_default();
        got.sort_unstable();
        assert_eq!(got, (0..n).collect::<Vec<_>>(), "{topic}: every partition exactly once");
    }
}

fn check_balanced(assignment: &Assignment) {
    let counts: Vec<usize> = assignment.keys().map(|m| count(assignment, m)).collect();
    let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
    assert!(max - min <= 1, "balanced within one: {counts:?}");
}

/// (member, topic, partition) triples.
fn triples(a: &Assignment) -> BTreeSet<(String, String, u32)> {
    a.iter()
        .flat_map(|(m, ts)| {
            ts.iter().flat_map(move |(t, ps)| ps.iter().map(move |&p| (m.clone(), t.clone(), p)))
        })
        .collect()
}

/// Previously owned partitions that stay with their owner.
fn kept(previous: &Assignment, next: &Assignment) -> usize {
    triples(next).intersection(&triples(previous)).count()
}

/// The most owned partitions any balanced assignment can leave with their owners
/// (each partition claimed once): every member keeps up to the minimum quota, and
/// `total % members` of those that owned more keep one more.
fn most_keepable(previous: &Assignment, members: &[String], topics: &TopicPartitions) -> usize {
    let total: usize = topics.values().map(|&p| p as usize).sum();
    let (min_quota, extra) = (total / members.len(), total % members.len());
    let owned: Vec<usize> = members
        .iter()
        .map(|m| {
            previous.get(m).map_or(0, |ts| {
                ts.iter()
                    .filter_map(|(t, ps)| topics.get(t).map(|&n| ps.iter().filter(|&&p| p < n).count()))
                    .sum()
            })
        })
        .collect();
    let over = owned.iter().filter(|&&o| o > min_quota).count();
    owned.iter().map(|&o| o.min(min_quota)).sum::<usize>() + if extra > 0 { over.min(extra) } else { 0 }
}

/// Partitions claimed by exactly one current member, with that member.
fn single_owners(previous: &Assignment, members: &[String]) -> BTreeMap<(String, u32), Option<String>> {
    let mut owners: BTreeMap<(String, u32), Option<String>> = BTreeMap::new();
    for (m, ts) in previous.iter().filter(|(m, _)| members.contains(m)) {
        for (t, ps) in ts {
            for &p in ps {
                owners.entry((t.clone(), p)).and_modify(|o| *o = None).or_insert_with(|| Some(m.clone()));
            }
        }
    }
    owners
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_partition_is_assigned_exactly_once((members, topics, previous) in group(true), strategy in strategy()) {
        let got = assign(strategy, &members, &topics, &previous);
        check_valid(&got, &members, &topics);
        prop_assert_eq!(&got, &assign(strategy, &members, &topics, &previous), "deterministic");
    }

    #[test]
    fn range_balances_each_topic((members, topics, _) in group(false)) {
        let got = assign(Assignor::Range, &members, &topics, &Assignment::new());
        for topic in topics.keys() {
            let counts: Vec<usize> = got.values().map(|ts| ts[topic].len()).collect();
            prop_assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1, "{:?}", counts);
        }
    }

    #[test]
    fn range_and_round_robin_ignore_join_order((members, topics, previous) in group(false), seed in any::<u64>()) {
        let mut shuffled = members.clone();
        shuffled.rotate_left((seed % members.len() as u64) as usize);
        shuffled.reverse();
        for strategy in [Assignor::Range, Assignor::RoundRobin] {
            prop_assert_eq!(assign(strategy, &members, &topics, &previous), assign(strategy, &shuffled, &topics, &Assignment::new()));
        }
    }

    #[test]
    fn balanced_within_one((members, topics, previous) in group(true)) {
        for strategy in [Assignor::RoundRobin, Assignor::Sticky, Assignor::CooperativeSticky] {
            check_balanced(&assign(strategy, &members, &topics, &previous));
        }
    }

    #[test]
    fn sticky_keeps_every_owned_partition_balance_allows((members, topics, previous) in group(false)) {
        let got = assign(Assignor::Sticky, &members, &topics, &previous);
        prop_assert_eq!(kept(&previous, &got), most_keepable(&previous, &members, &topics));
    }

    #[test]
    fn a_new_member_takes_only_what_must_move((members, topics, _) in group(false), joiner in member_id()) {
        prop_assume!(!members.contains(&joiner));
        let before = assign(Assignor::Sticky, &members, &topics, &Assignment::new());
        let mut grown = members.clone();
        grown.push(joiner.clone());
        let after = assign(Assignor::Sticky, &grown, &topics, &before);
        let total: usize = topics.values().map(|&p| p as usize).sum();
        // Each old member gives up what it holds beyond its new share, and nothing else moves.
        let moved = total - kept(&before, &after);
        prop_assert_eq!(moved, total - most_keepable(&before, &grown, &topics));
        prop_assert_eq!(moved, count(&after, &joiner), "only the new member gains partitions");
    }

    #[test]
    fn cooperative_first_round_holds_back_what_changes_owner((members, topics, previous) in group(true)) {
        let target = assign(Assignor::Sticky, &members, &topics, &previous);
        let first = cooperative_first_round(&target, &previous);
        let owners = single_owners(&previous, &members);
        let (target_set, first_set) = (triples(&target), triples(&first));
        prop_assert!(first_set.is_subset(&target_set), "the first round is part of the target");
        for (m, t, p) in &target_set {
            let stays = match owners.get(&(t.clone(), *p)) {
                None => true,
                Some(owner) => owner.as_ref() == Some(m),
            };
            prop_assert_eq!(first_set.contains(&(m.clone(), t.clone(), *p)), stays, "{} {}-{}", m, t, p);
        }
        // The second rebalance starts from the first round, revokes nothing, and ends balanced.
        let last = assign(Assignor::CooperativeSticky, &members, &topics, &previous);
        check_valid(&last, &members, &topics);
        check_balanced(&last);
        prop_assert!(first_set.is_subset(&triples(&last)));
        prop_assert_eq!(&last, &assign(Assignor::Sticky, &members, &topics, &first));
        prop_assert_eq!(&cooperative_first_round(&last, &first), &last, "nothing in the second round changes owner");
        prop_assert_eq!(&assign(Assignor::CooperativeSticky, &members, &topics, &last), &last, "settled");
    }
}
