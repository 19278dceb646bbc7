//! `offsetlab assign`, run as a user runs it: Kafka's documented examples,
//! feeding one run's output back as `--previous`, the errors, and an
//! independent check against kafka-python's assignors
//! (`fixtures/kafka_python_assignments.json`).

mod common;

use common::{TempFile, temp_file};

use offsetlab_engine::{Assignment, Strategy, TopicPartitions, assign};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Output};

fn offsetlab<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_offsetlab")).args(args).output().unwrap()
}

/// A command line's words (no word here holds a space).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// The one line a successful command prints, without its newline.
fn stdout_of<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let output = offsetlab(args);
    assert!(
        output.status.success(),
        "offsetlab {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.matches('\n').count(), 1, "one line: {text:?}");
    assert!(text.ends_with('\n'));
    text.trim_end().to_string()
}

/// `stdout_of` for a command line.
fn ok(line: &str) -> String {
    stdout_of(&words(line))
}

fn assignment(line: &str) -> Assignment {
    serde_json::from_str(&ok(line)).unwrap()
}

/// Runs a command that must fail: exit code 2, nothing on stdout, and an
/// `offsetlab: ` message on stderr, which is returned.
fn failure_of<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let output = offsetlab(args);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "offsetlab {args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(stderr.starts_with("offsetlab: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// `failure_of` for a command line.
fn fails(line: &str) -> String {
    failure_of(&words(line))
}

/// `offsetlab assign --batch` on `cases` (JSON Lines): its exit code, its
/// stderr, and each line it printed, parsed.
fn batch(cases: &str) -> (Option<i32>, String, Vec<serde_json::Value>) {
    let file = temp_file("cases.jsonl", cases.as_bytes());
    let output = offsetlab(&["assign", "--batch", file.path()]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let text = String::from_utf8(output.stdout).unwrap();
    let lines = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (output.status.code(), stderr, lines)
}

/// (member, topic, partition) triples.
fn triples(a: &Assignment) -> BTreeSet<(String, String, u32)> {
    a.iter()
        .flat_map(|(m, ts)| {
            ts.iter().flat_map(move |(t, ps)| ps.iter().map(move |&p| (m.clone(), t.clone(), p)))
        })
        .collect()
}

/// Owned partitions that stay with their owner.
fn kept(previous: &Assignment, next: &Assignment) -> usize {
    triples(next).intersection(&triples(previous)).count()
}

// ---------------------------------------------------------------- Kafka's examples

#[test]
fn range_javadoc_example() {
    // RangeAssignor javadoc: C0: [t0p0, t0p1, t1p0, t1p1], C1: [t0p2, t1p2].
    let out = ok("assign --strategy range --members C0,C1 --topic t0:3 --topic t1:3");
    assert_eq!(out, r#"{"C0":{"t0":[0,1],"t1":[0,1]},"C1":{"t0":[2],"t1":[2]}}"#);
}

#[test]
fn round_robin_javadoc_example() {
    // RoundRobinAssignor javadoc: C0: [t0p0, t0p2, t1p1], C1: [t0p1, t1p0, t1p2].
    let out = ok("assign --strategy roundrobin --members C1,C0 --topic t0:3 --topic t1:3");
    assert_eq!(out, r#"{"C0":{"t0":[0,2],"t1":[1]},"C1":{"t0":[1],"t1":[0,2]}}"#);
}

#[test]
fn every_member_and_topic_is_listed_in_sorted_order() {
    let out =
        ok("assign --strategy range --members consumer-2,consumer-10,spare --topic orders:2 --topic audit:1");
    assert_eq!(
        out,
        r#"{"consumer-10":{"audit":[0],"orders":[0]},"consumer-2":{"audit":[],"orders":[1]},"spare":{"audit":[],"orders":[]}}"#
    );
}

#[test]
fn sticky_javadoc_example_through_previous() {
    // StickyAssignor javadoc, example 1: both sticky and round robin give this fresh.
    let four_topics = "--topic t0:2 --topic t1:2 --topic t2:2 --topic t3:2";
    let fresh = ok(&format!("assign --strategy sticky --members C0,C1,C2 {four_topics}"));
    assert_eq!(fresh, ok(&format!("assign --strategy roundrobin --members C0,C1,C2 {four_topics}")));
    assert_eq!(
        fresh,
        r#"{"C0":{"t0":[0],"t1":[1],"t2":[],"t3":[0]},"C1":{"t0":[1],"t1":[],"t2":[0],"t3":[1]},"C2":{"t0":[],"t1":[0],"t2":[1],"t3":[]}}"#
    );
    // C1 leaves. Sticky keeps all five partitions C0 and C2 had (Kafka since 2.8 deals C1's
    // three round-robin: t0p1 to C0, t2p0 and t3p1 to C2); round robin keeps three.
    let previous = temp_file("example1.json", fresh.as_bytes());
    let after = |strategy: &str| {
        ok(&format!(
            "assign --strategy {strategy} --members C0,C2 {four_topics} --previous {}",
            previous.path()
        ))
    };
    assert_eq!(
        after("sticky"),
        r#"{"C0":{"t0":[0,1],"t1":[1],"t2":[],"t3":[0]},"C2":{"t0":[],"t1":[0],"t2":[0,1],"t3":[1]}}"#
    );
    assert_eq!(
        after("roundrobin"),
        r#"{"C0":{"t0":[0],"t1":[0],"t2":[0],"t3":[0]},"C2":{"t0":[1],"t1":[1],"t2":[1],"t3":[1]}}"#
    );
}

#[test]
fn cooperative_sticky_first_round_and_final() {
    // AbstractStickyAssignorTest.testAddRemoveTwoConsumersTwoTopics (Kafka 3.8): two members
    // own topic1 3 + topic2 4; two join. The first rebalance holds back topic1-2, topic2-2
    // and topic2-3 until their owners revoke them; the second hands them over.
    let previous = temp_file(
        "two.json",
        br#"{"consumer1": {"topic1": [0, 2], "topic2": [1, 3]}, "consumer2": {"topic1": [1], "topic2": [0, 2]}}"#,
    );
    let run = |strategy: &str, extra: &str| {
        ok(&format!(
            "assign --strategy {strategy} --members consumer1,consumer2,consumer3,consumer4 \
             --topic topic1:3 --topic topic2:4 --previous {} {extra}",
            previous.path()
        ))
    };
    assert_eq!(
        run("cooperative-sticky", "--first-round"),
        r#"{"consumer1":{"topic1":[0],"topic2":[1]},"consumer2":{"topic1":[1],"topic2":[0]},"consumer3":{"topic1":[],"topic2":[]},"consumer4":{"topic1":[],"topic2":[]}}"#
    );
    let last = run("cooperative-sticky", "");
    assert_eq!(
        last,
        r#"{"consumer1":{"topic1":[0],"topic2":[1]},"consumer2":{"topic1":[1],"topic2":[0]},"consumer3":{"topic1":[2],"topic2":[3]},"consumer4":{"topic1":[],"topic2":[2]}}"#
    );
    assert_eq!(run("sticky", ""), last);
}

#[test]
fn the_second_round_can_differ_from_the_sticky_target() {
    // t1 has 8 partitions, three members: quotas 2 and 3, two members get 3. a owned four and
    // keeps 1, 3, 6; c keeps 0 and 5 and queues for a third; b owned one and takes 4. Of the
    // two left over, 7 (a's) goes to c, the first in the queue, so the first rebalance holds
    // it back until a revokes it. In the second, b and c both hold two and queue in name
    // order, so 7 goes to b. Kafka's CooperativeStickyAssignorTest reaches its final state
    // the same way: assigning again with what the members own after the first round.
    let previous = temp_file(
        "second-round.json",
        br#"{"a": {"t1": [1, 3, 6, 7]}, "b": {"t1": [2]}, "c": {"t1": [0, 5]}}"#,
    );
    let run = |strategy: &str, from: &str, extra: &str| {
        ok(&format!("assign --strategy {strategy} --members a,b,c --topic t1:8 --previous {from} {extra}"))
    };
    assert_eq!(
        run("sticky", previous.path(), ""),
        r#"{"a":{"t1":[1,3,6]},"b":{"t1":[2,4]},"c":{"t1":[0,5,7]}}"#
    );
    let first = run("cooperative-sticky", previous.path(), "--first-round");
    assert_eq!(first, r#"{"a":{"t1":[1,3,6]},"b":{"t1":[2,4]},"c":{"t1":[0,5]}}"#);
    let last = run("cooperative-sticky", previous.path(), "");
    assert_eq!(last, r#"{"a":{"t1":[1,3,6]},"b":{"t1":[2,4,7]},"c":{"t1":[0,5]}}"#);
    // The second round is the sticky assignor run on the first round, and it is settled.
    let after_first = temp_file("after-first.json", first.as_bytes());
    assert_eq!(run("sticky", after_first.path(), ""), last);
    let after_last = temp_file("after-last.json", last.as_bytes());
    assert_eq!(run("cooperative-sticky", after_last.path(), ""), last);
}

#[test]
fn previous_round_trip_moves_the_minimum() {
    // Three members; feed the output back with a fourth: sticky moves only what the new
    // member must take (every old member keeps its new share), round robin moves more.
    let topics = "--topic orders:12 --topic payments:5";
    let first_text = ok(&format!("assign --strategy sticky --members c1,c2,c3 {topics}"));
    let first: Assignment = serde_json::from_str(&first_text).unwrap();
    let previous = temp_file("round-trip.json", first_text.as_bytes());
    let run = |strategy: &str, members: &str, from: &TempFile| {
        assignment(&format!(
            "assign --strategy {strategy} --members {members} {topics} --previous {}",
            from.path()
        ))
    };
    let sticky = run("sticky", "c1,c2,c3,c4", &previous);
    // 17 partitions: 6/6/5 before, 5/4/4/4 after; the old members keep 5 + 4 + 4.
    assert_eq!(kept(&first, &sticky), 13);
    assert_eq!(sticky["c4"].values().map(Vec::len).sum::<usize>(), 17 - 13);
    let counts: Vec<usize> = sticky.values().map(|t| t.values().map(Vec::len).sum()).collect();
    assert_eq!(counts.iter().sum::<usize>(), 17);
    assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1);
    assert!(kept(&first, &run("roundrobin", "c1,c2,c3,c4", &previous)) < 13);
    // Feeding the result back again changes nothing.
    let again = temp_file("round-trip-again.json", serde_json::to_string(&sticky).unwrap().as_bytes());
    assert_eq!(run("sticky", "c4,c3,c2,c1", &again), sticky);
}

// ---------------------------------------------------------------- errors

#[test]
fn an_unknown_strategy_lists_the_four() {
    let err = fails("assign --strategy round-robin --members a --topic t:1");
    assert!(err.contains("range, roundrobin, sticky, cooperative-sticky"), "{err}");
}

#[test]
fn static_members_sort_first_by_instance_id_in_range_and_roundrobin() {
    // c2 has the lower instance id: the Java client puts it first, whatever the member ids say.
    assert_eq!(
        ok("assign --strategy range --members c1=inst-2,c2=inst-1 --topic orders:4"),
        r#"{"c1":{"orders":[2,3]},"c2":{"orders":[0,1]}}"#
    );
    assert_eq!(
        ok("assign --strategy range --members c1,c2 --topic orders:4"),
        r#"{"c1":{"orders":[0,1]},"c2":{"orders":[2,3]}}"#
    );
    // Static members first (c by inst-1, then a by inst-9), then the dynamic ones by member id.
    assert_eq!(
        ok("assign --strategy roundrobin --members a=inst-9,b,c=inst-1 --topic orders:5"),
        r#"{"a":{"orders":[1,4]},"b":{"orders":[2]},"c":{"orders":[0,3]}}"#
    );
    // The same group through --batch, with group_instance_id: the same answer.
    let case = r#"{"id":"s","strategy":"roundrobin","topics":{"orders":5},"members":[{"id":"a","topics":["orders"],"group_instance_id":"inst-9"},{"id":"b","topics":["orders"]},{"id":"c","topics":["orders"],"group_instance_id":"inst-1"}]}"#;
    let (code, stderr, lines) = batch(&format!("{case}\n"));
    assert_eq!(code, Some(0), "{stderr}");
    let line = &lines[0];
    let single: serde_json::Value = serde_json::from_str(&ok(
        "assign --strategy roundrobin --members a=inst-9,b,c=inst-1 --topic orders:5",
    ))
    .unwrap();
    assert_eq!(line["assignment"], single);
    let err = fails("assign --strategy range --members c1=x,c2=x --topic orders:4");
    assert!(err.contains("\"c2\" and \"c1\" both have group.instance.id \"x\""), "{err}");
    let err = fails("assign --strategy range --members c1=,c2 --topic orders:4");
    assert!(err.contains("empty group.instance.id"), "{err}");
}

#[test]
fn the_coordinators_uniform_assignor_keeps_extras_with_their_holders() {
    // A fresh group: each member passes its extra on until the last must take it.
    assert_eq!(
        ok("assign --remote-assignor uniform --members a,b,c --topic orders:7"),
        r#"{"a":{"orders":[0,1]},"b":{"orders":[2,3]},"c":{"orders":[4,5,6]}}"#
    );
    // One newcomer: "a" is over its quota and gives back the last of its set (2), which "d" takes.
    let previous =
        temp_file("previous.json", br#"{"a":{"orders":[2,0,1]},"b":{"orders":[3,4]},"c":{"orders":[5,6]}}"#);
    let grown = stdout_of(&[
        "assign",
        "--remote-assignor",
        "uniform",
        "--members",
        "a,b,c,d",
        "--topic",
        "orders:7",
        "--previous",
        previous.path(),
    ]);
    assert_eq!(
        grown,
        r#"{"a":{"orders":[0,1]},"b":{"orders":[3,4]},"c":{"orders":[5,6]},"d":{"orders":[2]}}"#
    );
    // The same through --batch, with the owned partitions in the same order.
    let case = r#"{"id":"u","remote_assignor":"uniform","topics":{"orders":7},"members":[{"id":"a","topics":["orders"],"owned":{"orders":[2,0,1]}},{"id":"b","topics":["orders"],"owned":{"orders":[3,4]}},{"id":"c","topics":["orders"],"owned":{"orders":[5,6]}},{"id":"d","topics":["orders"]}]}"#;
    let (code, stderr, lines) = batch(&format!("{case}\n"));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(lines[0]["assignment"], serde_json::from_str::<serde_json::Value>(&grown).unwrap());
}

#[test]
fn the_coordinators_range_assignor_puts_static_members_first_by_instance_id() {
    // c (i1) and a (i2) first, by instance id; then b and d by member id; the first 7 % 4 get one more.
    assert_eq!(
        ok("assign --remote-assignor range --members a=i2,b,c=i1,d --topic orders:7"),
        r#"{"a":{"orders":[2,3]},"b":{"orders":[4,5]},"c":{"orders":[0,1]},"d":{"orders":[6]}}"#
    );
    // What members owned makes no difference to it.
    let case = r#"{"id":"r","remote_assignor":"range","topics":{"orders":5},"members":[{"id":"b","topics":["orders"],"owned":{"orders":[0,1,2]}},{"id":"a","topics":["orders"],"group_instance_id":"z"}]}"#;
    let (code, stderr, lines) = batch(&format!("{case}\n"));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        lines[0]["assignment"],
        serde_json::json!({"a": {"orders": [0, 1, 2]}, "b": {"orders": [3, 4]}})
    );
    let err = fails("assign --remote-assignor range --members a --topic orders:3 --topic payments:2");
    assert!(err.contains("--remote-assignor range: give one --topic"), "{err}");
}

#[test]
fn the_uniform_assignor_refuses_what_it_does_not_model() {
    let err = fails("assign --remote-assignor uniform --members a --topic orders:3 --topic payments:2");
    assert!(err.contains("give one --topic"), "{err}");
    let err = fails("assign --remote-assignor uniform --strategy range --members a --topic orders:3");
    assert!(err.contains("cannot be used with"), "{err}");
    let cases = concat!(
        r#"{"id":"both","strategy":"range","remote_assignor":"uniform","topics":{"t":2},"members":[{"id":"a","topics":["t"]}]}"#,
        "\n",
        r#"{"id":"uneven","remote_assignor":"uniform","topics":{"t":2,"u":1},"members":[{"id":"a","topics":["t"]}]}"#,
        "\n",
        r#"{"id":"twice","remote_assignor":"uniform","topics":{"t":2},"members":[{"id":"a","topics":["t"],"owned":{"t":[1]}},{"id":"b","topics":["t"],"owned":{"t":[1]}}]}"#,
        "\n",
        r#"{"id":"neither","topics":{"t":2},"members":[{"id":"a","topics":["t"]}]}"#,
        "\n"
    );
    let (code, stderr, lines) = batch(cases);
    assert_eq!(code, Some(2), "{stderr}");
    let errors: Vec<&str> = lines.iter().map(|l| l["error"].as_str().unwrap()).collect();
    assert!(errors[0].contains("not both"), "{errors:?}");
    assert!(errors[1].contains("one topic"), "{errors:?}");
    assert!(errors[2].contains("partition 1 is owned twice"), "{errors:?}");
    assert!(errors[3].contains("missing field `strategy`"), "{errors:?}");
}

#[test]
fn members_must_be_named_once() {
    let err = fails("assign --strategy range --members a,,b --topic t:1");
    assert!(err.contains("a member id is empty"), "{err}");
    let err = failure_of(&["assign", "--strategy", "range", "--members", "", "--topic", "t:1"]);
    assert!(err.contains("a member id is empty"), "{err}");
    let err = fails("assign --strategy range --members a,b,a --topic t:1");
    assert!(err.contains("member \"a\" is listed twice"), "{err}");
    let many = (0..1001).map(|i| format!("c{i}")).collect::<Vec<_>>().join(",");
    let err = fails(&format!("assign --strategy range --members {many} --topic t:1"));
    assert!(err.contains("at most 1000 members; got 1001"), "{err}");
    let most = (0..1000).map(|i| format!("c{i}")).collect::<Vec<_>>().join(",");
    let out = assignment(&format!("assign --strategy sticky --members {most} --topic t:1000"));
    assert!(out.values().all(|t| t["t"].len() == 1));
}

#[test]
fn topics_are_checked() {
    let err = fails("assign --strategy range --members a --topic orders");
    assert!(err.contains("NAME:N"), "{err}");
    let err = fails("assign --strategy range --members a --topic orders:0");
    assert!(err.contains("1 to 1000 partitions; got 0"), "{err}");
    let err = fails("assign --strategy range --members a --topic orders:1001");
    assert!(err.contains("got 1001"), "{err}");
    let err = fails("assign --strategy range --members a --topic o:1 --topic o:2");
    assert!(err.contains("topic \"o\" is given twice"), "{err}");
    let err = fails("assign --strategy range --members a");
    assert!(err.contains("--topic"), "{err}");
}

#[test]
fn first_round_is_only_for_cooperative_sticky() {
    let err = fails("assign --strategy sticky --members a --topic t:1 --first-round");
    assert!(err.contains("--first-round"), "{err}");
    assert!(err.contains("sticky"), "{err}");
}

fn previous_failure(contents: &[u8]) -> String {
    let file = temp_file("bad.json", contents);
    let err = fails(&format!(
        "assign --strategy sticky --members c1,c2 --topic orders:6 --previous {}",
        file.path()
    ));
    assert!(err.contains(file.path()), "names the file: {err}");
    err
}

#[test]
fn previous_is_validated() {
    let err = previous_failure(b"{\"c1\": {\"orders\": [0, 1]},\n \"c2\": {\"orders\": [2 3]}}");
    assert!(err.contains("line 2 column"), "{err}");
    let err = previous_failure(br#"{"c1": {"orders": [-1]}}"#);
    assert!(err.contains("line 1 column"), "{err}");
    let err = previous_failure(b"[1, 2]");
    assert!(err.contains("line 1 column"), "{err}");
    let err = previous_failure(br#"{"c1": {"orders": [0], "refunds": [0]}}"#);
    assert!(err.contains("member \"c1\" owns topic \"refunds\", which no --topic gives"), "{err}");
    let err = previous_failure(br#"{"c1": {"orders": [0]}, "c2": {"orders": [6]}}"#);
    assert!(
        err.contains("member \"c2\" owns orders partition 6, but orders has 6 partitions (0 to 5)"),
        "{err}"
    );
    let err = previous_failure(br#"{"c1": {"orders": [0, 3, 0]}}"#);
    assert!(err.contains("member \"c1\" lists orders partition 0 twice"), "{err}");
    let err = previous_failure(b"{\"c\xe9\": {}}");
    assert!(err.contains("not UTF-8"), "{err}");
    let err = fails("assign --strategy sticky --members c1 --topic t:1 --previous /nonexistent/prev.json");
    assert!(err.contains("cannot read /nonexistent/prev.json"), "{err}");
}

#[test]
fn previous_may_name_members_that_left_and_partitions_claimed_twice() {
    // Kafka frees a departed member's partitions and takes a partition claimed twice from both
    // (AbstractStickyAssignorTest.testPartitionsTransferringOwnershipIncludeThePartition
    // ClaimedByMultipleConsumersInSameGeneration).
    let file = temp_file(
        "twice.json",
        br#"{"consumer1": {"topic": [0, 1]}, "consumer2": {"topic": [0, 2]}, "gone": {"topic": [2]}}"#,
    );
    let run = |strategy: &str, extra: &str| {
        ok(&format!(
            "assign --strategy {strategy} --members consumer1,consumer2,consumer3 --topic topic:3 --previous {} {extra}",
            file.path()
        ))
    };
    assert_eq!(
        run("sticky", ""),
        r#"{"consumer1":{"topic":[1]},"consumer2":{"topic":[2]},"consumer3":{"topic":[0]}}"#
    );
    assert_eq!(
        run("cooperative-sticky", "--first-round"),
        r#"{"consumer1":{"topic":[1]},"consumer2":{"topic":[2]},"consumer3":{"topic":[]}}"#
    );
}

// ---------------------------------------------------------------- kafka-python

const FIXTURE: &str = include_str!("fixtures/kafka_python_assignments.json");

#[derive(Debug, Deserialize)]
struct Fixture {
    source: String,
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    strategy: Strategy,
    members: Vec<String>,
    topics: TopicPartitions,
    previous: Assignment,
    expected: Assignment,
}

/// Sticky cases where kafka-python's sticky assignor, a port of Kafka's original (KIP-54)
/// algorithm, places partitions differently from Kafka's Java client, which is the reference
/// here. Since Kafka 2.8, when every member subscribes to the same topics, Java uses the
/// ConstrainedAssignmentBuilder, and since 3.8 (KAFKA-16277) it keeps each member's owned
/// partitions lowest partition number first across topics:
/// - KEEPS: a member that must give some up keeps a different subset (kafka-python keeps
///   them topic by topic, as Kafka did before 3.8; Kafka's own
///   AbstractStickyAssignorTest.testAddRemoveTwoConsumersTwoTopics changed that way).
/// - DEALS: the same partitions stay put, but the rest go elsewhere: Java deals them by
///   topic then partition, round-robin to the members under quota in sorted order;
///   kafka-python gives each to the member with the fewest partitions at that moment. The
///   StickyAssignor javadoc's example 1 (C1 leaves) still shows the KIP-54 placement.
///
/// Both keep as many owned partitions as balance allows and are balanced alike (the same
/// number of members at each count); the test checks that for these cases too.
const JAVA_DIFFERS: &[(&str, Difference)] = &[
    ("sticky: javadoc example 1, C1 leaves", Difference::Deals),
    ("sticky: two join two, 3 + 4 partitions", Difference::Keeps),
    ("sticky: three join one, 10 partitions", Difference::Deals),
    ("sticky: seeded change 0", Difference::Keeps),
    ("sticky: seeded change 1", Difference::Keeps),
    ("sticky: seeded change 2", Difference::Deals),
    ("sticky: seeded change 3", Difference::Keeps),
    ("sticky: seeded change 5", Difference::Deals),
    ("sticky: seeded change 6", Difference::Deals),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Difference {
    Keeps,
    Deals,
}

fn fixture() -> Fixture {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    assert!(fixture.source.starts_with("kafka-python "), "the fixture names its source: {}", fixture.source);
    fixture
}

/// How many members hold how many partitions.
fn counts(a: &Assignment) -> BTreeMap<usize, usize> {
    let mut counts = BTreeMap::new();
    for owned in a.values() {
        *counts.entry(owned.values().map(Vec::len).sum()).or_default() += 1;
    }
    counts
}

/// Owned partitions that stay with their owner, as triples.
fn kept_set(previous: &Assignment, next: &Assignment) -> BTreeSet<(String, String, u32)> {
    triples(next).intersection(&triples(previous)).cloned().collect()
}

#[test]
fn the_fixture_covers_every_kafka_python_assignor() {
    let fixture = fixture();
    assert!(fixture.cases.len() >= 50, "{} cases", fixture.cases.len());
    let of = |s: Strategy, with_previous: bool| {
        fixture.cases.iter().filter(|c| c.strategy == s && c.previous.is_empty() != with_previous).count()
    };
    assert!(of(Strategy::Range, false) >= 10);
    assert!(of(Strategy::RoundRobin, false) >= 10);
    assert!(of(Strategy::Sticky, false) >= 5);
    assert!(of(Strategy::Sticky, true) >= 15);
    let names: BTreeSet<&str> = fixture.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), fixture.cases.len(), "case names are unique");
    for (name, _) in JAVA_DIFFERS {
        assert!(names.contains(name), "{name}");
    }
}

#[test]
fn the_engine_agrees_with_kafka_python() {
    let mut wrong = Vec::new();
    for case in fixture().cases {
        let got = assign(case.strategy, &case.members, &case.topics, &case.previous);
        match JAVA_DIFFERS.iter().find(|(name, _)| *name == case.name) {
            None => {
                if got != case.expected {
                    wrong.push(format!(
                        "{}:\n  engine       {got:?}\n  kafka-python {:?}",
                        case.name, case.expected
                    ));
                }
            }
            Some(&(_, difference)) => {
                // Listed as differing: it must still differ, in the listed way, and agree on the rest.
                assert_ne!(got, case.expected, "{} now agrees: take it off JAVA_DIFFERS", case.name);
                assert_eq!(counts(&got), counts(&case.expected), "{}", case.name);
                let (ours, theirs) =
                    (kept_set(&case.previous, &got), kept_set(&case.previous, &case.expected));
                assert_eq!(ours.len(), theirs.len(), "{}: both keep as much", case.name);
                assert_eq!(ours == theirs, difference == Difference::Deals, "{}: {difference:?}", case.name);
            }
        }
    }
    assert!(wrong.is_empty(), "{} cases differ:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn the_command_agrees_with_kafka_python() {
    for case in fixture().cases.iter().filter(|c| !JAVA_DIFFERS.iter().any(|(name, _)| *name == c.name)) {
        let topics: String = case.topics.iter().map(|(t, n)| format!(" --topic {t}:{n}")).collect();
        let mut line =
            format!("assign --strategy {} --members {}{topics}", case.strategy, case.members.join(","));
        let previous =
            temp_file("kafka-python.json", serde_json::to_string(&case.previous).unwrap().as_bytes());
        if !case.previous.is_empty() {
            line += &format!(" --previous {}", previous.path());
        }
        assert_eq!(assignment(&line), case.expected, "{}", case.name);
    }
}

// ---------------------------------------------------------------- --batch

#[test]
fn batch_answers_each_case_by_id_like_the_single_case_form() {
    let cases = concat!(
        r#"{"id":"one","strategy":"sticky","topics":{"t0":3,"t1":3},"members":[{"id":"C0","topics":["t0","t1"]},{"id":"C1","topics":["t0","t1"]},{"id":"C2","topics":["t0","t1"]}]}"#,
        "\n\n",
        r#"{"id":"two","strategy":"roundrobin","topics":{"t0":1,"t1":2,"t2":3},"members":[{"id":"C0","topics":["t0"]},{"id":"C1","topics":["t0","t1"]},{"id":"C2","topics":["t0","t1","t2"],"group_instance_id":"i-9","owned":{"gone":[0]},"generation":2}]}"#,
        "\n"
    );
    let (code, stderr, lines) = batch(cases);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["id"], "one");
    let single: serde_json::Value =
        serde_json::from_str(&ok("assign --strategy sticky --members C0,C1,C2 --topic t0:3 --topic t1:3"))
            .unwrap();
    assert_eq!(lines[0]["assignment"], single);
    // RoundRobinAssignor's javadoc example with uneven subscriptions (C2 now static, sorting first).
    assert_eq!(lines[1]["id"], "two");
    let got: Assignment = serde_json::from_value(lines[1]["assignment"].clone()).unwrap();
    assert_eq!(got["C2"]["t0"], [0]);
    assert_eq!(got["C1"]["t1"], [0]);
    assert_eq!(got["C2"]["t1"], [1]);
    assert_eq!(got["C2"]["t2"], [0, 1, 2]);
}

#[test]
fn batch_names_each_bad_line_and_fails_after_answering_all() {
    let cases = concat!(
        "not json\n",
        r#"{"id":"dup","strategy":"range","topics":{"t0":3},"members":[{"id":"a","topics":["t0"]},{"id":"a","topics":["t0"]}]}"#,
        "\n",
        r#"{"id":"fine","strategy":"range","topics":{"t0":3},"members":[{"id":"a","topics":["t0"]}]}"#,
        "\n",
        r#"{"id":"big","strategy":"sticky","topics":{"t0":3},"members":[{"id":"a","topics":["t0"],"owned":{"t0":[3]}}]}"#,
        "\n",
        r#"{"id":"first","strategy":"sticky","first_round":true,"topics":{"t0":3},"members":[{"id":"a","topics":["t0"]}]}"#,
        "\n",
        r#"{"id":"static","strategy":"range","topics":{"t0":3},"members":[{"id":"a","topics":["t0"],"group_instance_id":"i"},{"id":"b","topics":["t0"],"group_instance_id":"i"}]}"#,
        "\n",
        r#"{"id":"typo","strategy":"range","topics":{"t0":3},"members":[{"id":"a","topic":["t0"]}]}"#,
        "\n",
    );
    let (code, stderr, lines) = batch(cases);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("6 of 7 lines are not cases") && stderr.contains("line 1:"), "{stderr}");
    assert_eq!(lines.len(), 7, "{lines:?}");
    let error = |i: usize| lines[i]["error"].as_str().unwrap().to_string();
    assert_eq!(lines[0]["line"], 1);
    assert!(error(1).contains("line 2: members[1]: member \"a\" is listed twice"), "{}", error(1));
    assert_eq!(lines[1]["id"], "dup");
    assert_eq!(lines[2]["id"], "fine");
    assert!(lines[2]["assignment"].is_object());
    assert!(error(3).contains("owns t0 partition 3, but t0 has 3 partitions"), "{}", error(3));
    assert!(error(4).contains("first_round is cooperative-sticky's"), "{}", error(4));
    assert!(error(5).contains("group_instance_id \"i\" is members[0]'s too"), "{}", error(5));
    assert!(error(6).contains("unknown field `topic`"), "{}", error(6));
}

#[test]
fn batch_excludes_the_single_case_options() {
    let stderr = fails("assign --batch cases.jsonl --strategy range");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    let stderr = fails("assign --batch /nonexistent/cases.jsonl");
    assert!(stderr.contains("cannot read /nonexistent/cases.jsonl"), "{stderr}");
}
