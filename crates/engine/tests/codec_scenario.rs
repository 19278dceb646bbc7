//! The scenario codec (serde): every built-in reads as built, printing
//! and reading back gives the same scenario, and bad input gets an exact
//! message with the field path, line and column.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::{BUILTINS, Input, Scenario, ScenarioError, builtin};

#[test]
fn every_builtin_reads_as_built_and_prints_back() {
    for (name, text) in BUILTINS {
        let parsed = Scenario::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parsed, builtin(name).unwrap(), "{name}");
        assert_eq!(Scenario::parse(&parsed.to_json()).unwrap(), parsed, "{name}: pretty");
        let compact = parsed.to_json_compact();
        assert!(!compact.contains('\n') && compact.is_ascii(), "{name}: one line, ASCII");
        assert_eq!(Scenario::parse(&compact).unwrap(), parsed, "{name}: compact");
    }
}

/// The printed form: the fields' declaration order, defaults written out,
/// empty and absent optional fields left out.
#[test]
fn prints_every_field_in_order() {
    let text = r#"{"name": "p", "ticks": 5, "timeline": [
        {"tick": 1, "input": {"do": "reset-offsets", "reset": {"to": "offset", "offset": 7}}, "learner": true},
        {"tick": 2, "input": {"do": "rolling-update"}}],
        "guide": {"topic": "operations", "story": "s", "steps": ["do it"],
                  "outcome": {"when": [{"metric": "duplicates", "at_least": 1, "at_most": null}], "says": "{n}"}}}"#;
    let scenario = Scenario::parse(text).unwrap();
    assert_eq!(scenario.timeline[1].input, Input::RollingUpdate { group: None, consumers: Vec::new() });
    let expected = concat!(
        r#"{"name":"p","summary":"","watch":"","config":{"seed":1,"partitions":3,"retention_records":10000,"#,
        r#""producer":{"use_keys":true,"key_count":6,"hot_key_share_percent":0,"send_per_tick":0,"#,
        r#""keyless":{"strategy":"sticky","batch_records":4}},"groups":[{"name":"demo","consumers":2,"#,
        r#""records_per_poll":3,"handle_per_tick":1,"commit":{"mode":"after"},"idempotent":false,"#,
        r#""session_timeout_ticks":10,"shutdown_deadline_ticks":30,"assignor":"range","position":{"store":"group"},"#,
        r#""bridge":false,"protocol":"classic","remote_assignor":"uniform","static_members":false,"#,
        r#""heartbeat_interval_ticks":1,"max_poll_interval_ticks":60,"lock_duration_ticks":20,"delivery_count_limit":5,"#,
        r#""max_record_locks":2000,"share_auto_offset_reset":"latest","acknowledgement_mode":"implicit","auto_offset_reset":"earliest","initial_rebalance_delay_ticks":0}]},"#,
        r#""ticks":5,"timeline":[{"tick":1,"input":{"do":"reset-offsets","#,
        r#""reset":{"to":"offset","offset":7}},"learner":true},{"tick":2,"input":{"do":"rolling-update","consumers":[]}}],"#,
        r#""guide":{"topic":"operations","story":"s","steps":["do it"],"outcome":{"when":[{"metric":"duplicates","#,
        r#""at_least":1}],"says":"{n}"}}}"#
    );
    assert_eq!(scenario.to_json_compact(), expected);
    let pretty = scenario.to_json();
    assert!(pretty.starts_with("{\n  \"name\": \"p\",\n  \"summary\": \"\",\n  \"watch\": \"\",\n  \"config\": {\n    \"seed\": 1,"), "{pretty}");
    let no_guide = Scenario { guide: None, timeline: Vec::new(), ..scenario };
    assert!(!no_guide.to_json().contains("guide"), "no guide, no field");
    assert!(no_guide.to_json().contains("\"timeline\": []"));
}

/// `null` is `None` for optional fields, as serde read it.
#[test]
fn null_is_absent_for_optional_fields() {
    let a = Scenario::parse(r#"{"name": "x", "guide": null}"#).unwrap();
    assert_eq!(a.guide, None);
}

/// Each bad input, and exactly what the parser says about it.
#[test]
fn bad_input_gets_an_exact_message() {
    let cases: &[(&str, &str)] = &[
        // Unknown fields, with what is expected.
        (
            r#"{"name": "x", "bogus": 1}"#,
            r#"bogus: unknown field `bogus`, expected one of `name`, `summary`, `watch`, `config`, `ticks`, `timeline`, `guide` (line 1, column 21)"#,
        ),
        (
            r#"{"name": "x", "config": {"producer": {"keys": 4}}}"#,
            r#"config.producer.keys: unknown field `keys`, expected one of `use_keys`, `key_count`, `hot_key_share_percent`, `send_per_tick`, `keyless`, `delivery` (line 1, column 44)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "send", "count": 1, "extra": 2}}]}"#,
            r#"timeline[0].input.extra: unknown field `extra`, expected `count` (line 1, column 87)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "add-consumer", "extra": 2}}]}"#,
            r#"timeline[0].input.extra: unknown field `extra`, expected `group` (line 1, column 83)"#,
        ),
        // Wrong types and values.
        (
            r#"{"name": "x", "ticks": "5"}"#,
            r#"ticks: invalid type: string "5", expected a non-negative integer (line 1, column 26)"#,
        ),
        (
            r#"{"name": "x", "ticks": -5}"#,
            r#"ticks: invalid value: integer `-5`, expected a non-negative integer (line 1, column 25)"#,
        ),
        (
            r#"{"name": "x", "config": {"producer": {"hot_key_share_percent": 300}}}"#,
            r#"config.producer.hot_key_share_percent: invalid value: integer `300`, expected an integer from 0 to 255 (line 1, column 66)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "use-keys", "on": 1}}]}"#,
            r#"timeline[0].input.on: invalid type: integer `1`, expected a boolean (line 1, column 76)"#,
        ),
        (
            r#"{"name": "x", "timeline": {}}"#,
            r#"timeline: invalid type: object, expected an array (line 1, column 26)"#,
        ),
        (
            r#"{"name": "x", "config": {"commit": "after"}}"#,
            r#"config.commit: invalid type: string "after", expected an object (line 1, column 43)"#,
        ),
        (
            r#"{"name": "x", "config": null}"#,
            r#"config: invalid type: null, expected an object (line 1, column 28)"#,
        ),
        (r#"[]"#, r#"invalid type: array, expected an object (line 1, column 1)"#),
        // An object's fields as an array, which serde's derived structs would read.
        (
            r#"{"name": "x", "config": [1]}"#,
            r#"config: invalid type: array, expected an object (line 1, column 24)"#,
        ),
        (
            r#"{"name": "x", "timeline": [[0, {"do": "send", "count": 1}]]}"#,
            r#"timeline[0]: invalid type: array, expected an object (line 1, column 27)"#,
        ),
        (
            r#"{"name": "x", "ticks": 18446744073709551616}"#,
            r#"ticks: invalid type: floating point `1.8446744073709552e+19`, expected a non-negative integer (line 1, column 43)"#,
        ),
        (
            "{\"name\": \"x\", \"timeline\": [{\"tick\": 0, \"input\": {\"do\": \"send\", \"count\": 1}},\n                {\"tick\": 1, \"input\": {\"do\": \"crash\", \"consumer\": \"c0\"}}]}",
            r#"timeline[1].input.consumer: a consumer is named c1, c2, …; got "c0" (line 2, column 71)"#,
        ),
        // Consumer names.
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "rolling-update", "consumers": ["c1", "c01"]}}]}"#,
            r#"timeline[0].input.consumers[1]: a consumer is named c1, c2, …; got "c01" (line 1, column 101)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "crash", "consumer": 1}}]}"#,
            r#"timeline[0].input.consumer: invalid type: integer `1`, expected a consumer name (c1, c2, …) (line 1, column 79)"#,
        ),
        (
            r#"{"name": "x", "ticks": 1.5}"#,
            r#"ticks: invalid type: floating point `1.5`, expected a non-negative integer (line 1, column 26)"#,
        ),
        // Floats: serde_json reads them, the integer fields refuse them.
        (
            "{\"name\": \"x\",\n \"config\": {\"producer\": {\"keyless\": {\"strategy\": \"sticky\", \"batch_records\": 4e0}}}}",
            r#"config.producer.keyless.batch_records: invalid type: floating point `4.0`, expected an integer from 0 to 4294967295 (line 2, column 81)"#,
        ),
        (r#"{"name": "x"} x"#, r#"trailing characters (line 1, column 15)"#),
        // Syntax.
        (r#"{"name": "x"} {}"#, r#"trailing characters (line 1, column 15)"#),
        (r#"{"name": "x",}"#, r#"trailing comma (line 1, column 14)"#),
        (r#"{"name": "x""#, r#"EOF while parsing an object (line 1, column 12)"#),
        (r#""#, r#"EOF while parsing a value (line 1, column 1)"#),
        ("{\n  \"name\": \"x\",\n  \"ticks\": ,\n}\n", r#"ticks: expected value (line 3, column 12)"#),
        ("{\"name\": \"\\ud800\"}", r#"name: unexpected end of hex escape (line 1, column 17)"#),
        (
            r#"{"name": "x", "config": {"assignor": "fair"}}"#,
            r#"config.assignor: unknown variant `fair`, expected one of `range`, `roundrobin`, `sticky`, `cooperative-sticky` (line 1, column 43)"#,
        ),
        // Unknown variants.
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "reset-offsets", "reset": {"to": "middle"}}}]}"#,
            r#"timeline[0].input.reset.to: unknown variant `middle`, expected one of `earliest`, `latest`, `offset`, `shift-by` (line 1, column 99)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "fly"}}]}"#,
            r#"timeline[0].input.do: unknown variant `fly`, expected one of `send`, `keep-sending`, `use-keys`, `key-count`, `hot-key`, `send-poison`, `send-failing`, `fix-handler`, `replay-dead-letters`, `error-policy`, `pause`, `resume`, `crash`, `stop`, `start`, `add-consumer`, `remove-consumer`, `duplicate-instance`, `stall`, `records-per-poll`, `handle-per-tick`, `commit`, `idempotent`, `reset-offsets`, `restart-from`, `position-store`, `peek`, `load-checkpoint`, `add-partitions`, `kill-before-commit`, `rolling-update`, `assignor`, `crash-broker`, `restart-broker`, `lose-next-ack`, `lose-next-request`, `slow-follower` (line 1, column 62)"#,
        ),
        (
            r#"{"name": "x", "config": {"commit": {"mode": "sometimes"}}}"#,
            r#"config.commit.mode: unknown variant `sometimes`, expected one of `after`, `before`, `each-record`, `auto` (line 1, column 57)"#,
        ),
        (
            r#"{"name": "x", "config": {"position": {"store": "disk"}}}"#,
            r#"config.position.store: unknown variant `disk`, expected `group` or `consumer` (line 1, column 55)"#,
        ),
        (
            r#"{"name": "x", "config": {"producer": {"keyless": {"strategy": "random"}}}}"#,
            r#"config.producer.keyless.strategy: unknown variant `random`, expected `sticky` or `round-robin` (line 1, column 72)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": 5}}]}"#,
            r#"timeline[0].input.do: invalid type: integer `5`, expected a string (line 1, column 58)"#,
        ),
        (
            r#"{"name": "x", "guide": {"topic": "keys", "story": "s", "outcome": {"when": [], "says": "x"}}}"#,
            r#"guide.topic: unknown variant `keys`, expected one of `keys-and-order`, `delivery-guarantees`, `rebalances`, `offset-storage`, `operations`, `kafka4-groups`, `written`, `exactly-once`, `clocks` (line 1, column 39)"#,
        ),
        (r#"{"summary": "x"}"#, r#"missing field `name` (line 1, column 16)"#),
        // Missing and repeated fields.
        (
            r#"{"name": "x", "timeline": [{"input": {"do": "send", "count": 1}}]}"#,
            r#"timeline[0]: missing field `tick` (line 1, column 64)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"count": 1}}]}"#,
            r#"timeline[0].input: missing field `do` (line 1, column 61)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "send"}}]}"#,
            r#"timeline[0].input: missing field `count` (line 1, column 63)"#,
        ),
        (
            r#"{"name": "x", "config": {"position": {"store": "consumer", "writes": "atomic"}}}"#,
            r#"config.position: missing field `write_ticks` (line 1, column 79)"#,
        ),
        (
            r#"{"name": "x", "guide": {"topic": "rebalances", "story": "s"}}"#,
            r#"guide: missing field `outcome` (line 1, column 60)"#,
        ),
        (r#"{"name": "x", "name": "y"}"#, r#"duplicate field `name` (line 1, column 20)"#),
        (
            r#"{"name": "x", "config": {"seed": 1, "seed": 2}}"#,
            r#"config: duplicate field `seed` (line 1, column 42)"#,
        ),
        (
            r#"{"name": "x", "timeline": [{"tick": 0, "input": {"do": "send", "do": "send", "count": 1}}]}"#,
            r#"timeline[0].input: duplicate field `do` (line 1, column 67)"#,
        ),
        // Checked after reading: the shape of a valid scenario.
        (
            r#"{"name": "x", "config": {"partitions": 0}}"#,
            "config.partitions: must be between 1 and 256, got 0",
        ),
        (
            r#"{"name": "x", "ticks": 5, "timeline": [{"tick": 5, "input": {"do": "add-consumer"}}]}"#,
            "timeline[0].tick: tick 5 is not before the scenario's end at tick 5",
        ),
        // Groups: one form or the other, named, unique, within the limit.
        (
            r#"{"name": "x", "config": {"consumers": 3, "groups": [{"name": "a"}]}}"#,
            "config: give the group settings (consumers, commit, …) inside groups, or leave groups out (line 1, column 68)",
        ),
        (
            r#"{"name": "x", "config": {"groups": [{"consumers": 3}, {"consumers": 1}]}}"#,
            r#"config.groups[1].name: two groups are named "demo""#,
        ),
        (
            r#"{"name": "x", "config": {"groups": [{"name": "a"}, {"name": "a"}]}}"#,
            r#"config.groups[1].name: two groups are named "a""#,
        ),
        (
            r#"{"name": "x", "config": {"groups": [{"name": "a"}, {"name": "b", "consumers": 65}]}}"#,
            "config.groups[1].consumers: must be between 0 and 64, got 65",
        ),
        (
            r#"{"name": "x", "config": {"groups": [{"name": "a b"}]}}"#,
            r#"config.name: a group name is 1 to 64 ASCII letters, digits or '-', got "a b""#,
        ),
        (r#"{"name": "x", "config": {"groups": []}}"#, "config.groups: 1 to 8 groups, got 0"),
    ];
    for (text, expected) in cases {
        let error = Scenario::parse(text).expect_err(text);
        assert_eq!(error.to_string(), *expected, "{text}");
    }
}

/// The error is the first in the text's order, whatever comes after it.
#[test]
fn the_first_mistake_in_the_text_is_the_one_named() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"name": "x", "zzz": 1, "aaa": 2}"#,
            r#"zzz: unknown field `zzz`, expected one of `name`, `summary`, `watch`, `config`, `ticks`, `timeline`, `guide` (line 1, column 19)"#,
        ),
        (
            r#"{"ticks": "5", "name": 5}"#,
            r#"ticks: invalid type: string "5", expected a non-negative integer (line 1, column 13)"#,
        ),
        (
            r#"{"bogus": 1, "name": "x",}"#,
            r#"bogus: unknown field `bogus`, expected one of `name`, `summary`, `watch`, `config`, `ticks`, `timeline`, `guide` (line 1, column 8)"#,
        ),
        (
            r#"{"name": 5, "name": "x"}"#,
            r#"name: invalid type: integer `5`, expected a string (line 1, column 10)"#,
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(Scenario::parse(text).expect_err(text).to_string(), *expected, "{text}");
    }
}

/// A scenario written over lines, as people write one, with one mistake
/// put in its config or its second input.
fn written(config: &str, input: &str) -> String {
    format!(
        r#"{{
  "name": "t",
  "config": {{
    {config}
  }},
  "timeline": [
    {{ "tick": 0, "input": {{ "do": "send", "count": 1 }} }},
    {{ "tick": 1, "input": {input} }}
  ]
}}"#
    )
}

/// A mistake put in [`written`]: the config's text and the second input's,
/// then the field path, the message, and the line and column the reader gives.
type Mistake<'a> = (&'a str, &'a str, &'a str, &'a str, (usize, usize));

/// Each kind of mistake, and what the reader says of it: the field path,
/// serde's message, and the line and column where serde_json stopped (an
/// error inside a tagged object, or raised once a value was read whole,
/// where its enclosing object ends).
#[test]
fn errors_name_the_field_and_the_place() {
    const SEND: &str = r#"{ "do": "send", "count": 1 }"#;
    let cases: &[Mistake] = &[
        // An unknown field: where its key ends.
        (
            r#""seed": 1, "sede": 2"#,
            SEND,
            "config.sede",
            "unknown field `sede`, expected one of `seed`, `partitions`, `retention_records`, `producer`, \
             `groups`, `cluster`, `transactions`, `consumers`, `records_per_poll`, `handle_per_tick`, `commit`, \
             `idempotent`, `session_timeout_ticks`, `shutdown_deadline_ticks`, `assignor`, `position`, `bridge`, \
             `protocol`, `remote_assignor`, `static_members`, `heartbeat_interval_ticks`, \
             `max_poll_interval_ticks`, `rebalance_timeout_ticks`, `lock_duration_ticks`, `delivery_count_limit`, `max_record_locks`, \
             `share_auto_offset_reset`, `acknowledgement_mode`, `auto_offset_reset`, \
             `initial_rebalance_delay_ticks`, `offsets_retention_ticks`, `metadata_max_age_ticks`, `error_policy`, \
             `dead_letter_topic`, `dead_letter_copy_record`",
            (4, 21),
        ),
        (
            r#""seed": 1"#,
            r#"{ "do": "send", "count": 1, "extra": true }"#,
            "timeline[1].input.extra",
            "unknown field `extra`, expected `count`",
            (8, 71),
        ),
        // A missing field.
        (
            r#""seed": 1"#,
            r#"{ "do": "stall", "consumer": "c1" }"#,
            "timeline[1].input",
            "missing field `ticks`",
            (8, 63),
        ),
        (
            r#""position": { "store": "consumer", "writes": "atomic" }"#,
            SEND,
            "config.position",
            "missing field `write_ticks`",
            (5, 3),
        ),
        // An unknown variant of each tagged enum.
        (
            r#""seed": 1"#,
            r#"{ "do": "explode" }"#,
            "timeline[1].input.do",
            "unknown variant `explode`, expected one of `send`, `keep-sending`, `use-keys`, `key-count`, \
             `hot-key`, `send-poison`, `send-failing`, `fix-handler`, `replay-dead-letters`, `error-policy`, `pause`, `resume`, `crash`, `stop`, `start`, `add-consumer`, \
             `remove-consumer`, `duplicate-instance`, `stall`, `records-per-poll`, `handle-per-tick`, `commit`, \
             `idempotent`, `reset-offsets`, `restart-from`, `position-store`, `peek`, `load-checkpoint`, \
             `add-partitions`, `kill-before-commit`, `rolling-update`, `assignor`, `crash-broker`, \
             `restart-broker`, `lose-next-ack`, `lose-next-request`, `slow-follower`",
            (8, 47),
        ),
        (
            r#""seed": 1"#,
            r#"{ "do": "reset-offsets", "reset": { "to": "middle" } }"#,
            "timeline[1].input.reset.to",
            "unknown variant `middle`, expected one of `earliest`, `latest`, `offset`, `shift-by`",
            (8, 82),
        ),
        (
            r#""commit": { "mode": "sometimes" }"#,
            SEND,
            "config.commit.mode",
            "unknown variant `sometimes`, expected one of `after`, `before`, `each-record`, `auto`",
            (5, 3),
        ),
        (
            r#""position": { "store": "disk" }"#,
            SEND,
            "config.position.store",
            "unknown variant `disk`, expected `group` or `consumer`",
            (5, 3),
        ),
        (
            r#""producer": { "keyless": { "strategy": "random" } }"#,
            SEND,
            "config.producer.keyless.strategy",
            "unknown variant `random`, expected `sticky` or `round-robin`",
            (4, 55),
        ),
        // A wrong type: after the value, or before the bracket of an object or array
        // (serde_json stops before it; inside a tagged object, where that ends).
        (
            r#""partitions": "3""#,
            SEND,
            "config.partitions",
            r#"invalid type: string "3", expected an integer from 0 to 4294967295"#,
            (4, 21),
        ),
        (
            r#""groups": { "name": "a" }"#,
            SEND,
            "config.groups",
            "invalid type: object, expected an array",
            (4, 14),
        ),
        (
            r#""seed": 1"#,
            r#"{ "do": "send", "count": -1 }"#,
            "timeline[1].input.count",
            "invalid value: integer `-1`, expected an integer from 0 to 4294967295",
            (8, 57),
        ),
        // A repeated key: where the second one ends.
        (r#""seed": 1, "seed": 2"#, SEND, "config", "duplicate field `seed`", (4, 21)),
        (
            r#""seed": 1"#,
            r#"{ "do": "send", "count": 1, "count": 2 }"#,
            "timeline[1].input",
            "duplicate field `count`",
            (8, 61),
        ),
        // Nesting deeper than DEPTH_MAX, found before serde reads: at the
        // bracket that goes too deep (the 33rd level).
        (
            &format!(r#""seed": {}{}"#, "[".repeat(40), "]".repeat(40)),
            SEND,
            &format!("config.seed{}", "[0]".repeat(30)),
            "nested deeper than 32 levels",
            (4, 43),
        ),
        // Config's own check, once the config is read.
        (
            r#""consumers": 3, "groups": [{ "name": "a" }]"#,
            SEND,
            "config",
            "give the group settings (consumers, commit, …) inside groups, or leave groups out",
            (5, 3),
        ),
    ];
    for (config, input, path, message, place) in cases {
        let text = written(config, input);
        let error = Scenario::parse(&text).expect_err(&text);
        let ScenarioError::Json { path: p, message: m, line, column } = error else {
            panic!("a JSON error: {error}\n{text}")
        };
        assert_eq!((p.as_str(), m.as_str(), (line, column)), (*path, *message, *place), "{text}");
    }
    assert!(Scenario::parse(&written(r#""seed": 1"#, SEND)).is_ok(), "the text without a mistake reads");
}

/// Too deep: the path goes down to where the limit was hit.
#[test]
fn nesting_is_bounded() {
    let text = format!("{{\"name\": \"x\", \"timeline\": {}{}}}", "[".repeat(40), "]".repeat(40));
    let ScenarioError::Json { path, message, line, column } = Scenario::parse(&text).unwrap_err() else {
        panic!("a JSON error")
    };
    assert_eq!(message, "nested deeper than 32 levels");
    assert_eq!(path, format!("timeline{}", "[0]".repeat(31)));
    assert_eq!((line, column), (1, 58));
}

#[test]
fn escapes_read_and_print_back() {
    let scenario =
        Scenario::parse(r#"{"name": "\"q\" \\ \/ \b\f\n\r\t \u0001 \u00e9 \ud83d\ude00 é😀"}"#).unwrap();
    assert_eq!(scenario.name, "\"q\" \\ / \u{8}\u{c}\n\r\t \u{1} é 😀 é😀");
    assert!(scenario.to_json().contains(r#""name": "\"q\" \\ / \b\f\n\r\t \u0001 é 😀 é😀","#));
    assert_eq!(Scenario::parse(&scenario.to_json()).unwrap(), scenario);
}

#[cfg(not(target_arch = "wasm32"))]
mod codec_support;

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::codec_support;
    use offsetlab_engine::Scenario;
    use proptest::prelude::*;

    /// The strategies make every input variant and every config section and
    /// group protocol: what they never make is never round-tripped.
    #[test]
    fn every_input_and_config_section_is_generated() {
        use offsetlab_engine::{GroupProtocol, Input};
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..2_000 {
            seen.insert(codec_support::input().new_tree(&mut runner).expect("a value").current().name());
        }
        for _ in 0..500 {
            let config = codec_support::config().new_tree(&mut runner).expect("a value").current();
            config.validate().unwrap_or_else(|e| panic!("{e}: {config:?}"));
            seen.extend(config.cluster.map(|_| "cluster"));
            seen.extend(config.producer.delivery.map(|_| "delivery"));
            seen.extend(config.transactions.as_ref().map(|_| "transactions"));
            for g in &config.groups {
                seen.insert(match g.protocol {
                    GroupProtocol::Classic => "classic",
                    GroupProtocol::Consumer => "consumer",
                    GroupProtocol::Share => "share",
                });
                seen.extend(g.dead_letter_topic.as_ref().map(|_| "share-dlq"));
                seen.extend(g.dead_letter_copy_record.then_some("share-dlq-copy"));
            }
        }
        let sections = [
            "cluster",
            "delivery",
            "transactions",
            "classic",
            "consumer",
            "share",
            "share-dlq",
            "share-dlq-copy",
        ];
        let missing: Vec<&str> =
            Input::NAMES.iter().chain(&sections).copied().filter(|name| !seen.contains(name)).collect();
        assert!(missing.is_empty(), "never generated: {missing:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Any valid scenario (every input variant, config shape and guide)
        /// prints to JSON that reads back as the same scenario, pretty or compact.
        #[test]
        fn scenarios_round_trip(scenario in codec_support::scenario(30)) {
            scenario.validate().unwrap();
            prop_assert_eq!(&Scenario::parse(&scenario.to_json()).unwrap(), &scenario);
            prop_assert_eq!(&Scenario::parse(&scenario.to_json_compact()).unwrap(), &scenario);
        }

        /// Whatever the text, reading it returns (no panic), and an error points inside the text.
        #[test]
        fn any_text_reads_or_fails_cleanly(text in "[\\[\\]{}\":,0-9a-z .eE+\\\\-]{0,80}") {
            if let Err(offsetlab_engine::ScenarioError::Json { line, column, .. }) = Scenario::parse(&text) {
                prop_assert!(line == 1 && column >= 1 && column <= text.chars().count() + 1);
            }
        }

        /// Cutting a valid scenario's JSON anywhere gives an error, not a panic.
        #[test]
        fn cut_json_fails_cleanly(scenario in codec_support::scenario(4), cut in any::<prop::sample::Index>()) {
            let text = scenario.to_json();
            let mut at = cut.index(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            prop_assert!(Scenario::parse(&text[..at]).is_err());
        }
    }
}

/// `max_poll_interval_ticks` was `rebalance_timeout_ticks` before the classic
/// groups had a poll timer: files and links that name it keep their meaning,
/// at the top level and in `groups`, and are written back under the new name.
#[test]
fn rebalance_timeout_ticks_is_read_as_max_poll_interval_ticks() {
    for config in [
        r#"{ "rebalance_timeout_ticks": 17 }"#,
        r#"{ "groups": [ { "name": "demo", "rebalance_timeout_ticks": 17 } ] }"#,
    ] {
        let text = format!(r#"{{ "name": "old", "config": {config} }}"#);
        let scenario = Scenario::parse(&text).unwrap_or_else(|e| panic!("{config}: {e}"));
        assert_eq!(scenario.config.groups[0].max_poll_interval_ticks, 17, "{config}");
        let written = scenario.to_json_compact();
        assert!(written.contains(r#""max_poll_interval_ticks":17"#), "{written}");
        assert!(!written.contains("rebalance_timeout_ticks"), "{written}");
    }
}
