//! Shareable links: the query format, its errors, and that reading never
//! panics and gives back what was written.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::codec::QUERY_BYTES_MAX;
use offsetlab_engine::{
    CheckpointWrites, CommitMode, ConsumerId, ErrorPolicy, Input, Link, LinkError, LinkScenario,
    PositionModel, ResetSpec, builtin,
};

fn crash_link() -> Link {
    Link {
        scenario: LinkScenario::Builtin { name: "crash-commit-after".into(), guided: true },
        seed: 4,
        tick: 120,
        inputs: vec![(3, Input::Crash { consumer: ConsumerId(1) }), (5, Input::Send { count: 10 })],
    }
}

/// The module documentation's example, exactly.
#[test]
fn the_documented_example() {
    let query = crash_link().to_query();
    assert_eq!(query, "h=399unkatl8t5u&s=crash-commit-after&g=1&seed=4&t=120&in=3.crash.c1_2.send.10");
    assert_eq!(Link::parse_query(&query).unwrap(), crash_link());
    assert_eq!(
        Link::parse_query(&format!("?{query}&embed=1")).unwrap(),
        crash_link(),
        "'?' and unknown parameters"
    );
}

/// Each input variant's arguments, in the JSON's field order.
#[test]
fn every_input_has_a_short_form() {
    let c = ConsumerId(2);
    let cases = [
        (Input::Send { count: 10 }, "send.10"),
        (Input::SendPoison {}, "send-poison"),
        (Input::KeepSending { per_tick: 3 }, "keep-sending.3"),
        (Input::UseKeys { on: false }, "use-keys.0"),
        (Input::KeyCount { keys: 24 }, "key-count.24"),
        (Input::HotKey { share_percent: 80 }, "hot-key.80"),
        (Input::Pause { consumer: c }, "pause.c2"),
        (Input::Resume { consumer: c }, "resume.c2"),
        (Input::Crash { consumer: c }, "crash.c2"),
        (Input::Stop { consumer: c }, "stop.c2"),
        (Input::Start { consumer: c }, "start.c2"),
        (Input::AddConsumer { group: None }, "add-consumer"),
        (Input::RemoveConsumer { consumer: c }, "remove-consumer.c2"),
        (Input::RecordsPerPoll { group: None, records: 5 }, "records-per-poll.5"),
        (Input::HandlePerTick { group: None, records: 2 }, "handle-per-tick.2"),
        (Input::Commit { group: None, commit: CommitMode::EachRecord }, "commit.each-record"),
        (Input::Commit { group: None, commit: CommitMode::Auto { interval_ticks: 5 } }, "commit.auto5"),
        (Input::Idempotent { group: None, on: true }, "idempotent.1"),
        (Input::ResetOffsets { group: None, reset: ResetSpec::Earliest }, "reset-offsets.earliest"),
        (
            Input::ResetOffsets { group: None, reset: ResetSpec::Offset { partition: None, offset: 120 } },
            "reset-offsets.o120",
        ),
        (
            Input::RestartFrom { group: None, reset: ResetSpec::Offset { partition: Some(2), offset: 120 } },
            "restart-from.o120p2",
        ),
        (Input::RestartFrom { group: None, reset: ResetSpec::ShiftBy { by: -5 } }, "restart-from.s-5"),
        (Input::PositionStore { group: None, position: PositionModel::Group }, "position-store.group"),
        (
            Input::PositionStore {
                group: None,
                position: PositionModel::Consumer { writes: CheckpointWrites::InPlace, write_ticks: 3 },
            },
            "position-store.consumer-in-place-3",
        ),
        (Input::Peek { advancing: true }, "peek.1"),
        (Input::LoadCheckpoint { consumer: c, partition: 1, offset: 1234 }, "load-checkpoint.c2.1.1234"),
        (Input::AddPartitions { count: 3 }, "add-partitions.3"),
        (Input::KillBeforeCommit { consumer: c }, "kill-before-commit.c2"),
        (Input::DuplicateInstance { consumer: c }, "duplicate-instance.c2"),
        (Input::Stall { consumer: c, ticks: 4 }, "stall.c2.4"),
        (Input::CrashBroker { broker: 2 }, "crash-broker.2"),
        (Input::RestartBroker { broker: 2 }, "restart-broker.2"),
        (Input::LoseNextAck { partition: 1 }, "lose-next-ack.1"),
        (Input::LoseNextRequest { partition: 0 }, "lose-next-request.0"),
        (Input::SlowFollower { broker: 3, fetch_per_tick: 0 }, "slow-follower.3.0"),
        (Input::SendFailing { failures: 3, after_effect: true }, "send-failing.3.1"),
        (Input::FixHandler { group: None }, "fix-handler"),
        (Input::ErrorPolicy { group: None, error_policy: ErrorPolicy::Skip }, "error-policy.skip"),
        (
            Input::ErrorPolicy { group: None, error_policy: ErrorPolicy::RetryForever { backoff_ticks: 2 } },
            "error-policy.forever2",
        ),
        (
            Input::ErrorPolicy {
                group: Some("audit".into()),
                error_policy: ErrorPolicy::RetryThenDeadLetter { retries: 3, backoff_ticks: 1 },
            },
            "error-policy.dlt3b1.%40audit",
        ),
        (
            Input::ErrorPolicy {
                group: None,
                error_policy: ErrorPolicy::RetryTopics { levels: 2, delay_ticks: 5 },
            },
            "error-policy.topics2d5",
        ),
        (Input::ReplayDeadLetters { group: Some("audit".into()) }, "replay-dead-letters.%40audit"),
        (Input::RollingUpdate { group: None, consumers: vec![] }, "rolling-update"),
        (Input::RollingUpdate { group: None, consumers: vec![ConsumerId(1), c] }, "rolling-update.c1+c2"),
        (
            Input::Assignor { group: None, assignor: offsetlab_engine::Assignor::CooperativeSticky },
            "assignor.cooperative-sticky",
        ),
    ];
    let named: std::collections::BTreeSet<&str> = cases.iter().map(|(input, _)| input.name()).collect();
    let missing: Vec<&&str> = Input::NAMES.iter().filter(|name| !named.contains(**name)).collect();
    assert!(missing.is_empty(), "inputs without a case here: {missing:?}");
    for (input, short) in cases {
        let link = Link { inputs: vec![(7, input.clone())], ..crash_link() };
        let query = link.to_query();
        assert!(query.ends_with(&format!("&in=7.{short}")), "{query}");
        assert_eq!(Link::parse_query(&query).unwrap(), link, "{short}");
    }
    // A form decoder may have turned the `+` into a space.
    let query = Link {
        inputs: vec![(
            0,
            Input::RollingUpdate { group: None, consumers: vec![ConsumerId(1), ConsumerId(2)] },
        )],
        ..crash_link()
    }
    .to_query();
    let spaced = query.replace('+', "%20");
    assert_eq!(
        Link::parse_query(&spaced),
        Err(LinkError::Changed("checksum mismatch")),
        "the checksum covers the decoded text"
    );
}

#[test]
fn hand_written_links_need_no_checksum() {
    let link = Link::parse_query("?scenario=keys-keep-order&seed=3").unwrap();
    assert_eq!(
        link,
        Link {
            scenario: LinkScenario::Builtin { name: "keys-keep-order".into(), guided: false },
            seed: 3,
            tick: 0,
            inputs: vec![]
        }
    );
    // No seed: the scenario's own.
    let link = Link::parse_query("s=crash-commit-before&g=1&t=9").unwrap();
    assert_eq!(link.seed, builtin("crash-commit-before").unwrap().config.seed);
    assert_eq!(
        (link.tick, &link.scenario),
        (9, &LinkScenario::Builtin { name: "crash-commit-before".into(), guided: true })
    );
}

#[test]
fn inline_scenarios_travel_as_base64url_json() {
    let mut scenario = builtin("crash-commit-after").unwrap();
    scenario.name = "mine & yours?".into();
    let link = Link { scenario: LinkScenario::Inline(Box::new(scenario)), seed: 9, tick: 0, inputs: vec![] };
    let query = link.to_query();
    assert!(query.contains("&j=") && !query.contains("&s="), "{query}");
    assert!(
        query.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~+=&%".contains(&b)),
        "URL-safe: {query}"
    );
    assert_eq!(Link::parse_query(&query).unwrap(), link);
}

/// Each broken link, and exactly what the reader says.
#[test]
fn bad_links_get_an_exact_message() {
    let good = crash_link().to_query();
    let cases: Vec<(String, String)> = vec![
        (good.replace("t=120", "t=121"), "the link was changed or cut short (checksum mismatch)".into()),
        (good[..good.len() - 3].to_string(), "the link was changed or cut short (checksum mismatch)".into()),
        (good.replace("h=", "x="), "the link was changed or cut short (no checksum h=)".into()),
        ("s=x&seed=1".into(), "unknown scenario \"x\"".into()),
        ("seed=1".into(), "the link names no scenario (s= or j=)".into()),
        ("s=default&seed=four".into(), "seed: not a number".into()),
        ("s=default&seed=-1".into(), "seed: not a number".into()),
        ("s=default&t=10000001".into(), "t: not a number from 0 to 10000000".into()),
        ("s=default&g=yes".into(), "g: expected 1 or 0, with s=".into()),
        ("s=default&s=default".into(), "s: given twice".into()),
        ("s=default&scenario=default".into(), "s: given twice".into()),
        ("s=default&seed=%zz".into(), "seed: bad percent-encoding (or not ASCII)".into()),
        ("j=!!&h=1".into(), "the link was changed or cut short (checksum mismatch)".into()),
        (format!("s={}", "a".repeat(QUERY_BYTES_MAX)), "the link is longer than 64 KiB".to_string()),
    ];
    for (query, expected) in &cases {
        let error = Link::parse_query(query).expect_err(query);
        assert_eq!(error.to_string(), *expected, "{query}");
    }
}

/// Bad inputs and contents behind a valid checksum: the reader names the input.
#[test]
fn bad_inputs_are_named() {
    let cases = [
        ("3.crash.c99x", "input 1 (\"crash.c99x\"): consumer: a consumer is named c1, c2, …; got \"c99x\""),
        (
            "0.send.1_2.fly",
            "input 2 (\"fly\"): unknown input \"fly\"; the inputs are send, send-poison, send-failing, fix-handler, replay-dead-letters, error-policy, keep-sending, use-keys, key-count, hot-key, pause, resume, crash, stop, start, add-consumer, remove-consumer, records-per-poll, handle-per-tick, commit, idempotent, reset-offsets, restart-from, position-store, peek, load-checkpoint, add-partitions, kill-before-commit, rolling-update, assignor, duplicate-instance, stall, crash-broker, restart-broker, lose-next-ack, lose-next-request, slow-follower",
        ),
        ("0.send", "input 1 (\"send\"): missing field `count`"),
        ("0.send.1.2", "input 1 (\"send.1.2\"): send takes 1 argument(s), got 2"),
        ("0.send.x", "input 1 (\"send.x\"): count: expected a number, got \"x\""),
        (
            "0.send.99999999999",
            "input 1 (\"send.99999999999\"): count: invalid value: integer `99999999999`, expected an integer from 0 to 4294967295",
        ),
        ("x.send.1", "input 1 (\"x.send.1\"): the tick delta \"x\" is not a number"),
        ("100.send.1_21.send.1", "input 2 (\"send.1\"): its tick 121 is after the link's tick t=120"),
        ("0.use-keys.2", "input 1 (\"use-keys.2\"): on: expected 1 or 0, got \"2\""),
        (
            "0.restart-from.o",
            "input 1 (\"restart-from.o\"): reset: expected earliest, latest, o<offset>, o<offset>p<partition> or s<shift>, got \"o\"",
        ),
        (
            "0.commit.auto",
            "input 1 (\"commit.auto\"): commit: expected after, before, each-record or auto<interval ticks>, got \"auto\"",
        ),
        (
            "0.position-store.consumer-torn-1",
            "input 1 (\"position-store.consumer-torn-1\"): position.writes: unknown variant `torn`, expected `atomic` or `in-place`",
        ),
        (
            "0.assignor.fair",
            "input 1 (\"assignor.fair\"): assignor: unknown variant `fair`, expected one of `range`, `roundrobin`, `sticky`, `cooperative-sticky`",
        ),
    ];
    for (inputs, expected) in cases {
        let query = sign(&format!("s=crash-commit-after&seed=4&t=120&in={inputs}"));
        let error = Link::parse_query(&query).expect_err(&query);
        assert_eq!(error.to_string(), expected, "{query}");
    }
    let j = sign("j=e30&seed=1");
    assert_eq!(Link::parse_query(&j).unwrap_err().to_string(), "j: missing field `name` (line 1, column 2)");
}

/// The query with its checksum in front: a link whose content is wrong but
/// whose checksum is right, as a buggy writer would make it.
fn sign(query: &str) -> String {
    // FNV-1a 64 over `name=value&` in the link's parameter order, as documented.
    let order = ["s", "g", "j", "seed", "t", "in"];
    let pairs: Vec<(&str, &str)> = query.split('&').map(|p| p.split_once('=').unwrap()).collect();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for name in order {
        if let Some((_, value)) = pairs.iter().find(|(n, _)| *n == name) {
            for b in format!("{name}={value}&").bytes() {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    let mut digits = Vec::new();
    while {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(hash % 36) as usize]);
        hash /= 36;
        hash > 0
    } {}
    digits.reverse();
    format!("h={}&{query}", String::from_utf8(digits).unwrap())
}

#[test]
fn limits_hold() {
    let many = vec!["0.stop.c1"; 5000].join("_");
    let link = Link::parse_query(&sign(&format!("s=default&t=0&in={many}"))).unwrap();
    assert_eq!(link.inputs.len(), 5000);
    let huge_delta = sign("s=default&t=10000000&in=18446744073709551615.add-consumer");
    assert!(Link::parse_query(&huge_delta).unwrap_err().to_string().contains("after the link's tick"));
}

#[cfg(not(target_arch = "wasm32"))]
mod codec_support;

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::codec_support;
    use offsetlab_engine::Link;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Link → query → Link is the identity.
        #[test]
        fn links_round_trip(link in codec_support::link()) {
            let query = link.to_query();
            prop_assert_eq!(Link::parse_query(&query).unwrap(), link);
        }

        /// Random text never panics the reader.
        #[test]
        fn random_text_never_panics(text in "(\\?|)([a-z]{0,5}=[a-z0-9._+%~-]{0,12}&?){0,6}", other in any::<String>()) {
            let _ = Link::parse_query(&text);
            let _ = Link::parse_query(&other);
        }

        /// A changed link is refused, or reads as the same link (an extra `&`,
        /// an unknown parameter): never as a different one, never a panic.
        #[test]
        fn changed_links_are_refused(
            link in codec_support::link(),
            at in any::<prop::sample::Index>(),
            change in 0u8..4,
            c in prop_oneof![Just('&'), Just('='), Just('.'), Just('_'), Just('%'), any::<char>()],
        ) {
            let query = link.to_query();
            let mut chars: Vec<char> = query.chars().collect();
            let i = at.index(chars.len());
            match change {
                0 => { chars.remove(i); }
                1 => chars.insert(i, c),
                2 => chars[i] = c,
                _ => chars.truncate(i),
            }
            let changed: String = chars.into_iter().collect();
            if changed != query {
                if let Ok(read) = Link::parse_query(&changed) {
                    prop_assert_eq!(read, link, "{} read as another link", changed);
                }
            }
        }

        /// Every cut of a link is refused: the checksum comes first.
        #[test]
        fn cut_links_are_refused(link in codec_support::link(), at in any::<prop::sample::Index>()) {
            let query = link.to_query();
            let cut = &query[..at.index(query.len())];
            prop_assert!(Link::parse_query(cut).is_err(), "{}", cut);
        }
    }
}
