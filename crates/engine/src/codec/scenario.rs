//! The scenario format ⇄ JSON, by hand. This is the one reader of scenario
//! JSON: `Scenario::parse` (the CLI, user files), the page's import, and the
//! inline scenarios and inputs of links all go through it. It replaced serde's
//! derives because those cost the page about 43 KB gzip, which its size
//! budget does not have.
//!
//! Small by design: the format is a table ([`Ty`], [`Field`]) that one
//! function checks a parsed [`Value`] against, with every error message made
//! in one place. Building the typed scenario afterwards cannot fail, so each
//! field costs one short call instead of its own error handling. Writing goes
//! straight to text through [`Writer`], without a value tree.
//!
//! It keeps the format serde defined: field and variant names (snake_case
//! fields, kebab-case variants, snake_case metrics), internally tagged enums
//! (`"do"`, `"to"`, `"mode"`, `"store"`, `"strategy"`), defaults for absent
//! fields, `null` as absent for `Option` fields, unknown and duplicate fields
//! refused, and the same fields left out when writing (`guide` when none,
//! `learner` when false, empty `steps`, absent bounds and partitions).
//! One difference: a variant without fields (`{"do": "add-consumer"}`) refuses
//! other fields too, where serde let them pass.
//!
//! Errors carry the field path (`timeline[1].input.consumer`) and the offset
//! of the offending value, or of the object a required field is missing from.

use super::json::{Error, Kind, Value, Writer};
use crate::config::{Assignor, CheckpointWrites, CommitMode, Config, PositionModel, ProducerConfig};
use crate::guide::{Condition, Guide, Metric, Outcome, Topic};
use crate::input::{ConsumerId, Input, ResetSpec};
use crate::partitioner::KeylessStrategy;
use crate::scenario::{Scenario, TICKS_DEFAULT, TimedInput};

/// What a JSON value must be.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ty {
    Str,
    Bool,
    /// An integer from 0 to this bound (`u8::MAX`, `u32::MAX`, `u64::MAX`).
    Uint(u64),
    /// Any `i64`.
    Int,
    /// A consumer's name: `c1`, `c2`, …
    Consumer,
    List(&'static Ty),
    /// A string naming a variant: the i-th name, `None` past the last.
    Names(fn(usize) -> Option<&'static str>),
    Object(&'static [Field]),
    /// An internally tagged enum: the tag's key, and each variant's name and fields.
    Tagged(&'static str, &'static [(&'static str, &'static [Field])]),
}

/// One field of an object: its name, its type, and whether it may be left out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field(pub(crate) &'static str, pub(crate) Ty, Need);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Required,
    /// Absent means the default; `null` is refused.
    Default,
    /// An `Option`: absent or `null` is `None`.
    Nullable,
}

use Need::{Default as D, Nullable as N, Required as R};

const U8: Ty = Ty::Uint(u8::MAX as u64);
const U32: Ty = Ty::Uint(u32::MAX as u64);
const U64: Ty = Ty::Uint(u64::MAX);

const fn f(name: &'static str, ty: Ty, need: Need) -> Field {
    Field(name, ty, need)
}

const CONSUMER: Field = f("consumer", Ty::Consumer, R);

const RESET: Ty = Ty::Tagged(
    "to",
    &[
        ("earliest", &[]),
        ("latest", &[]),
        ("offset", &[f("partition", U32, N), f("offset", U64, R)]),
        ("shift-by", &[f("by", Ty::Int, R)]),
    ],
);
const COMMIT: Ty = Ty::Tagged(
    "mode",
    &[("after", &[]), ("before", &[]), ("each-record", &[]), ("auto", &[f("interval_ticks", U64, R)])],
);
const WRITES: [&str; 2] = ["atomic", "in-place"];
const POSITION: Ty = Ty::Tagged(
    "store",
    &[
        ("group", &[]),
        ("consumer", &[f("writes", Ty::Names(|i| WRITES.get(i).copied()), R), f("write_ticks", U64, R)]),
    ],
);
const ASSIGNORS: [&str; 4] = ["range", "roundrobin", "sticky", "cooperative-sticky"];
const ASSIGNOR: Ty = Ty::Names(|i| ASSIGNORS.get(i).copied());
const KEYLESS: Ty =
    Ty::Tagged("strategy", &[("sticky", &[f("batch_records", U32, R)]), ("round-robin", &[])]);

/// `Input`'s variants (tag `"do"`) and their fields. Links write an input's
/// arguments in this order.
pub(crate) const INPUTS: &[(&str, &[Field])] = &[
    ("send", &[f("count", U32, R)]),
    ("keep-sending", &[f("per_tick", U32, R)]),
    ("use-keys", &[f("on", Ty::Bool, R)]),
    ("key-count", &[f("keys", U32, R)]),
    ("hot-key", &[f("share_percent", U8, R)]),
    ("pause", &[CONSUMER]),
    ("resume", &[CONSUMER]),
    ("crash", &[CONSUMER]),
    ("stop", &[CONSUMER]),
    ("start", &[CONSUMER]),
    ("add-consumer", &[]),
    ("remove-consumer", &[CONSUMER]),
    ("records-per-poll", &[f("records", U32, R)]),
    ("handle-per-tick", &[f("records", U32, R)]),
    ("commit", &[f("commit", COMMIT, R)]),
    ("idempotent", &[f("on", Ty::Bool, R)]),
    ("reset-offsets", &[f("reset", RESET, R)]),
    ("restart-from", &[f("reset", RESET, R)]),
    ("position-store", &[f("position", POSITION, R)]),
    ("peek", &[f("advancing", Ty::Bool, R)]),
    ("load-checkpoint", &[CONSUMER, f("partition", U32, R), f("offset", U64, R)]),
    ("add-partitions", &[f("count", U32, R)]),
    ("kill-before-commit", &[CONSUMER]),
    ("rolling-update", &[f("consumers", Ty::List(&Ty::Consumer), D)]),
    ("assignor", &[f("assignor", ASSIGNOR, R)]),
];
pub(crate) const INPUT: Ty = Ty::Tagged("do", INPUTS);

const PRODUCER: Ty = Ty::Object(&[
    f("use_keys", Ty::Bool, D),
    f("key_count", U32, D),
    f("hot_key_share_percent", U8, D),
    f("send_per_tick", U32, D),
    f("keyless", KEYLESS, D),
]);
const CONFIG: Ty = Ty::Object(&[
    f("seed", U64, D),
    f("partitions", U32, D),
    f("retention_records", U64, D),
    f("consumers", U32, D),
    f("records_per_poll", U32, D),
    f("handle_per_tick", U32, D),
    f("commit", COMMIT, D),
    f("idempotent", Ty::Bool, D),
    f("session_timeout_ticks", U64, D),
    f("shutdown_deadline_ticks", U64, D),
    f("assignor", ASSIGNOR, D),
    f("producer", PRODUCER, D),
    f("position", POSITION, D),
    f("bridge", Ty::Bool, D),
]);
const TOPICS: [&str; 5] =
    ["keys-and-order", "delivery-guarantees", "rebalances", "offset-storage", "operations"];
const CONDITION: Ty = Ty::Object(&[
    f("metric", Ty::Names(|i| Metric::ALL.get(i).map(|m| m.name())), R),
    f("at_least", U64, N),
    f("at_most", U64, N),
]);
const GUIDE: Ty = Ty::Object(&[
    f("topic", Ty::Names(|i| TOPICS.get(i).copied()), R),
    f("story", Ty::Str, R),
    f("steps", Ty::List(&Ty::Str), D),
    f("outcome", Ty::Object(&[f("when", Ty::List(&CONDITION), R), f("says", Ty::Str, R)]), R),
]);
const TIMED: Ty = Ty::Object(&[f("tick", U64, R), f("input", INPUT, R), f("learner", Ty::Bool, D)]);
const SCENARIO: Ty = Ty::Object(&[
    f("name", Ty::Str, R),
    f("summary", Ty::Str, D),
    f("watch", Ty::Str, D),
    f("config", CONFIG, D),
    f("ticks", U64, D),
    f("timeline", Ty::List(&TIMED), D),
    f("guide", GUIDE, N),
]);

// ---------------------------------------------------------------- checking

/// What a value is, for "invalid type: …, expected …".
fn found(v: &Value) -> String {
    match &v.kind {
        Kind::Null => "null".into(),
        Kind::Bool(b) => format!("boolean `{b}`"),
        Kind::UInt(n) => format!("integer `{n}`"),
        Kind::Int(n) => format!("integer `{n}`"),
        Kind::String(s) => format!("string {}", super::quoted(s)),
        Kind::Array(_) => "array".into(),
        Kind::Object(_) => "object".into(),
    }
}

fn invalid(v: &Value, what: &str, expected: &str) -> Error {
    Error::new(v.at, format!("invalid {what}: {}, expected {expected}", found(v)))
}

/// `` `a`, `b`, `c` ``: the names a message lists.
fn listing(names: &mut dyn Iterator<Item = &'static str>) -> String {
    let mut out = String::new();
    for name in names {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push('`');
        out.push_str(name);
        out.push('`');
    }
    out
}

/// `{what} field `{key}`` at `at` (`missing`, `duplicate`).
fn field_error(at: u32, what: &str, key: &str) -> Error {
    Error::new(at, format!("{what} field `{key}`"))
}

/// An unknown variant name, with the ones there are.
fn unknown_variant(at: u32, name: &str, names: &mut dyn Iterator<Item = &'static str>) -> Error {
    Error::new(at, format!("unknown variant `{name}`, expected one of {}", listing(names)))
}

/// Checks `v` against `ty`: everything the typed reader relies on.
pub(crate) fn check(v: &Value, ty: Ty) -> Result<(), Error> {
    let expected = match (ty, &v.kind) {
        (Ty::Str, Kind::String(_))
        | (Ty::Bool, Kind::Bool(_))
        | (Ty::Int, Kind::Int(_))
        | (Ty::Int, Kind::UInt(0..=0x7fff_ffff_ffff_ffff)) => return Ok(()),
        (Ty::Uint(max), Kind::UInt(n)) if *n <= max => return Ok(()),
        (Ty::Uint(max), Kind::UInt(_) | Kind::Int(_)) => {
            let range = if max == u64::MAX {
                "a non-negative integer".into()
            } else {
                format!("an integer from 0 to {max}")
            };
            return Err(invalid(v, "value", &range));
        }
        (Ty::Int, Kind::UInt(_)) => {
            return Err(invalid(v, "value", &format!("an integer from {} to {}", i64::MIN, i64::MAX)));
        }
        (Ty::Consumer, Kind::String(name)) => {
            return name.parse::<ConsumerId>().map(drop).map_err(|message| Error::new(v.at, message));
        }
        (Ty::List(item), Kind::Array(items)) => {
            for (i, value) in items.iter().enumerate() {
                check(value, *item).map_err(|e| e.in_element(i))?;
            }
            return Ok(());
        }
        (Ty::Names(names), Kind::String(name)) => {
            if (0..).map_while(names).any(|n| n == name) {
                return Ok(());
            }
            return Err(unknown_variant(v.at, name, &mut (0..).map_while(names)));
        }
        (Ty::Object(fields), Kind::Object(_)) => return check_fields(v, fields, ""),
        (Ty::Tagged(tag, variants), Kind::Object(members)) => {
            let mut tags = members.iter().filter(|m| m.key == tag);
            let Some(first) = tags.next() else {
                return Err(field_error(v.at, "missing", tag));
            };
            if let Some(again) = tags.next() {
                return Err(field_error(again.at, "duplicate", tag).in_field(tag));
            }
            let Kind::String(name) = &first.value.kind else {
                return Err(invalid(&first.value, "type", "a string").in_field(tag));
            };
            let Some((_, fields)) = variants.iter().find(|(n, _)| n == name) else {
                let error = unknown_variant(first.value.at, name, &mut variants.iter().map(|(n, _)| *n));
                return Err(error.in_field(tag));
            };
            return check_fields(v, fields, tag);
        }
        (Ty::Consumer, _) => "a consumer name (c1, c2, …)",
        (Ty::Str | Ty::Names(_), _) => "a string",
        (Ty::Bool, _) => "a boolean",
        (Ty::Uint(u64::MAX), _) => "a non-negative integer",
        (Ty::Uint(_) | Ty::Int, _) => "an integer",
        (Ty::List(_), _) => "an array",
        (Ty::Object(_) | Ty::Tagged(..), _) => "an object",
    };
    Err(invalid(v, "type", expected))
}

/// An object's members against `fields` (`tag`, when not empty, is the
/// enum's tag, checked by the caller): no unknown or repeated field, every
/// required one present.
fn check_fields(v: &Value, fields: &[Field], tag: &str) -> Result<(), Error> {
    let Kind::Object(members) = &v.kind else { return Err(invalid(v, "type", "an object")) };
    // One bit per field; no object of the format has more than 32.
    debug_assert!(fields.len() <= 32, "a field mask of 32 bits");
    let mut seen = 0u32;
    for member in members.iter().filter(|m| m.key != tag) {
        let key = &member.key;
        let Some(i) = fields.iter().position(|f| f.0 == key) else {
            let expected = match fields {
                [] => "there are no fields".into(),
                [one] => format!("expected `{}`", one.0),
                _ => format!("expected one of {}", listing(&mut fields.iter().map(|f| f.0))),
            };
            return Err(Error::new(member.at, format!("unknown field `{key}`, {expected}")).in_field(key));
        };
        if seen & 1 << i != 0 {
            return Err(field_error(member.at, "duplicate", key).in_field(key));
        }
        seen |= 1 << i;
        let Field(_, ty, need) = fields[i];
        if !(need == N && member.value.kind == Kind::Null) {
            check(&member.value, ty).map_err(|e| e.in_field(key))?;
        }
    }
    match fields.iter().enumerate().find(|(i, f)| f.2 == R && seen & 1 << i == 0) {
        Some((_, missing)) => Err(field_error(v.at, "missing", missing.0)),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------- reading
//
// After `check`, reading cannot fail: each getter falls back to the field's
// default, which is also what an absent field means.

/// A field's value; `None` when absent or `null`.
fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match &v.kind {
        Kind::Object(members) => {
            members.iter().find(|m| m.key == key).map(|m| &m.value).filter(|v| v.kind != Kind::Null)
        }
        _ => None,
    }
}

fn opt(v: &Value, key: &str) -> Option<u64> {
    match get(v, key)?.kind {
        Kind::UInt(n) => Some(n),
        _ => None,
    }
}

fn num(v: &Value, key: &str, default: u64) -> u64 {
    opt(v, key).unwrap_or(default)
}

/// A `u32` field (checked to fit).
fn n32(v: &Value, key: &str, default: u32) -> u32 {
    opt(v, key).and_then(|n| u32::try_from(n).ok()).unwrap_or(default)
}

fn flag(v: &Value, key: &str, default: bool) -> bool {
    match get(v, key).map(|v| &v.kind) {
        Some(Kind::Bool(b)) => *b,
        _ => default,
    }
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    match get(v, key).map(|v| &v.kind) {
        Some(Kind::String(s)) => s,
        _ => "",
    }
}

fn items<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    match get(v, key).map(|v| &v.kind) {
        Some(Kind::Array(items)) => items,
        _ => &[],
    }
}

fn id(v: &Value) -> ConsumerId {
    match &v.kind {
        Kind::String(s) => s.parse().unwrap_or(ConsumerId(1)),
        _ => ConsumerId(1),
    }
}

/// The index of a `Names` field's value in its list.
fn index(v: &Value, key: &str, names: &[&str]) -> usize {
    let name = text(v, key);
    names.iter().position(|n| *n == name).unwrap_or(0)
}

/// Reads and checks scenario JSON (not yet validated: `Scenario::parse` does that).
pub(crate) fn read_scenario(v: &Value) -> Result<Scenario, Error> {
    check(v, SCENARIO)?;
    let guide = get(v, "guide").map(|g| {
        let o = get(g, "outcome").unwrap_or(g);
        Guide {
            topic: Topic::ALL[index(g, "topic", &TOPICS)],
            story: text(g, "story").into(),
            steps: items(g, "steps").iter().map(|s| text_of(s).into()).collect(),
            outcome: Outcome {
                when: items(o, "when")
                    .iter()
                    .map(|c| Condition {
                        metric: Metric::ALL
                            .into_iter()
                            .find(|m| m.name() == text(c, "metric"))
                            .unwrap_or(Metric::Produced),
                        at_least: opt(c, "at_least"),
                        at_most: opt(c, "at_most"),
                    })
                    .collect(),
                says: text(o, "says").into(),
            },
        }
    });
    Ok(Scenario {
        name: text(v, "name").into(),
        summary: text(v, "summary").into(),
        watch: text(v, "watch").into(),
        config: get(v, "config").map(read_config).unwrap_or_default(),
        ticks: num(v, "ticks", TICKS_DEFAULT),
        timeline: items(v, "timeline")
            .iter()
            .map(|t| TimedInput {
                tick: num(t, "tick", 0),
                input: get(t, "input").map_or(Input::AddConsumer { group: None }, read_input),
                learner: flag(t, "learner", false),
            })
            .collect(),
        guide,
    })
}

fn text_of(v: &Value) -> &str {
    match &v.kind {
        Kind::String(s) => s,
        _ => "",
    }
}

fn read_config(v: &Value) -> Config {
    let d = Config::default();
    let p = get(v, "producer");
    let producer = p.map_or(d.producer.clone(), |p| {
        let d = &d.producer;
        ProducerConfig {
            use_keys: flag(p, "use_keys", d.use_keys),
            key_count: n32(p, "key_count", d.key_count),
            hot_key_share_percent: opt(p, "hot_key_share_percent")
                .and_then(|n| u8::try_from(n).ok())
                .unwrap_or(d.hot_key_share_percent),
            send_per_tick: n32(p, "send_per_tick", d.send_per_tick),
            keyless: get(p, "keyless").map_or(d.keyless, |k| match text(k, "strategy") {
                "round-robin" => KeylessStrategy::RoundRobin,
                _ => KeylessStrategy::Sticky { batch_records: n32(k, "batch_records", 1) },
            }),
        }
    });
    Config {
        seed: num(v, "seed", d.seed),
        partitions: n32(v, "partitions", d.partitions),
        retention_records: num(v, "retention_records", d.retention_records),
        consumers: n32(v, "consumers", d.consumers),
        records_per_poll: n32(v, "records_per_poll", d.records_per_poll),
        handle_per_tick: n32(v, "handle_per_tick", d.handle_per_tick),
        commit: get(v, "commit").map_or(d.commit, read_commit),
        idempotent: flag(v, "idempotent", d.idempotent),
        session_timeout_ticks: num(v, "session_timeout_ticks", d.session_timeout_ticks),
        shutdown_deadline_ticks: num(v, "shutdown_deadline_ticks", d.shutdown_deadline_ticks),
        assignor: get(v, "assignor")
            .map_or(d.assignor, |_| ASSIGNOR_VALUES[index(v, "assignor", &ASSIGNORS)]),
        producer,
        position: get(v, "position").map_or(d.position, read_position),
        bridge: flag(v, "bridge", d.bridge),
    }
}

const ASSIGNOR_VALUES: [Assignor; 4] =
    [Assignor::Range, Assignor::RoundRobin, Assignor::Sticky, Assignor::CooperativeSticky];

fn read_commit(v: &Value) -> CommitMode {
    match text(v, "mode") {
        "before" => CommitMode::Before,
        "each-record" => CommitMode::EachRecord,
        "auto" => CommitMode::Auto { interval_ticks: num(v, "interval_ticks", 1) },
        _ => CommitMode::After,
    }
}

fn read_position(v: &Value) -> PositionModel {
    match text(v, "store") {
        "consumer" => PositionModel::Consumer {
            writes: if text(v, "writes") == WRITES[1] {
                CheckpointWrites::InPlace
            } else {
                CheckpointWrites::Atomic
            },
            write_ticks: num(v, "write_ticks", 0),
        },
        _ => PositionModel::Group,
    }
}

fn read_reset(v: &Value) -> ResetSpec {
    match text(v, "to") {
        "latest" => ResetSpec::Latest,
        "offset" => ResetSpec::Offset {
            partition: opt(v, "partition").and_then(|n| u32::try_from(n).ok()),
            offset: num(v, "offset", 0),
        },
        "shift-by" => ResetSpec::ShiftBy {
            by: match get(v, "by").map(|v| &v.kind) {
                Some(Kind::Int(n)) => *n,
                Some(Kind::UInt(n)) => i64::try_from(*n).unwrap_or(0),
                _ => 0,
            },
        },
        _ => ResetSpec::Earliest,
    }
}

/// Reads an input `check` accepted against [`INPUT`].
pub(crate) fn read_input(v: &Value) -> Input {
    let c = || get(v, "consumer").map_or(ConsumerId(1), id);
    let n = |key| n32(v, key, 0);
    let on = |key| flag(v, key, false);
    let sub = |key| get(v, key).unwrap_or(v);
    match text(v, "do") {
        "send" => Input::Send { count: n("count") },
        "keep-sending" => Input::KeepSending { per_tick: n("per_tick") },
        "use-keys" => Input::UseKeys { on: on("on") },
        "key-count" => Input::KeyCount { keys: n("keys") },
        "hot-key" => Input::HotKey {
            share_percent: opt(v, "share_percent").and_then(|n| u8::try_from(n).ok()).unwrap_or(0),
        },
        "pause" => Input::Pause { consumer: c() },
        "resume" => Input::Resume { consumer: c() },
        "crash" => Input::Crash { consumer: c() },
        "stop" => Input::Stop { consumer: c() },
        "start" => Input::Start { consumer: c() },
        "remove-consumer" => Input::RemoveConsumer { consumer: c() },
        "records-per-poll" => Input::RecordsPerPoll { group: None, records: n("records") },
        "handle-per-tick" => Input::HandlePerTick { group: None, records: n("records") },
        "commit" => Input::Commit { group: None, commit: read_commit(sub("commit")) },
        "idempotent" => Input::Idempotent { group: None, on: on("on") },
        "reset-offsets" => Input::ResetOffsets { group: None, reset: read_reset(sub("reset")) },
        "restart-from" => Input::RestartFrom { group: None, reset: read_reset(sub("reset")) },
        "position-store" => Input::PositionStore { group: None, position: read_position(sub("position")) },
        "peek" => Input::Peek { advancing: on("advancing") },
        "load-checkpoint" => {
            Input::LoadCheckpoint { consumer: c(), partition: n("partition"), offset: num(v, "offset", 0) }
        }
        "add-partitions" => Input::AddPartitions { count: n("count") },
        "kill-before-commit" => Input::KillBeforeCommit { consumer: c() },
        "rolling-update" => {
            Input::RollingUpdate { group: None, consumers: items(v, "consumers").iter().map(id).collect() }
        }
        "assignor" => {
            Input::Assignor { group: None, assignor: ASSIGNOR_VALUES[index(v, "assignor", &ASSIGNORS)] }
        }
        _ => Input::AddConsumer { group: None },
    }
}

// ---------------------------------------------------------------- writing

/// Writes the scenario as the format's JSON.
pub(crate) fn write_scenario(w: &mut Writer, s: &Scenario) {
    w.open("", '{');
    w.str("name", &s.name);
    w.str("summary", &s.summary);
    w.str("watch", &s.watch);
    write_config(w, &s.config);
    w.uint("ticks", s.ticks);
    w.open("timeline", '[');
    for t in &s.timeline {
        w.open("", '{');
        w.uint("tick", t.tick);
        write_input(w, "input", &t.input);
        if t.learner {
            w.flag("learner", true);
        }
        w.close('}');
    }
    w.close(']');
    if let Some(g) = &s.guide {
        w.open("guide", '{');
        w.str("topic", TOPICS[Topic::ALL.iter().position(|t| *t == g.topic).unwrap_or(0)]);
        w.str("story", &g.story);
        if !g.steps.is_empty() {
            w.open("steps", '[');
            for step in &g.steps {
                w.str("", step);
            }
            w.close(']');
        }
        w.open("outcome", '{');
        w.open("when", '[');
        for c in &g.outcome.when {
            w.open("", '{');
            w.str("metric", c.metric.name());
            for (key, bound) in [("at_least", c.at_least), ("at_most", c.at_most)] {
                if let Some(n) = bound {
                    w.uint(key, n);
                }
            }
            w.close('}');
        }
        w.close(']');
        w.str("says", &g.outcome.says);
        w.close('}');
        w.close('}');
    }
    w.close('}');
}

fn write_config(w: &mut Writer, c: &Config) {
    let p = &c.producer;
    w.open("config", '{');
    w.uint("seed", c.seed);
    w.uint("partitions", c.partitions.into());
    w.uint("retention_records", c.retention_records);
    w.uint("consumers", c.consumers.into());
    w.uint("records_per_poll", c.records_per_poll.into());
    w.uint("handle_per_tick", c.handle_per_tick.into());
    write_commit(w, c.commit);
    w.flag("idempotent", c.idempotent);
    w.uint("session_timeout_ticks", c.session_timeout_ticks);
    w.uint("shutdown_deadline_ticks", c.shutdown_deadline_ticks);
    w.str("assignor", assignor_name(c.assignor));
    w.open("producer", '{');
    w.flag("use_keys", p.use_keys);
    w.uint("key_count", p.key_count.into());
    w.uint("hot_key_share_percent", p.hot_key_share_percent.into());
    w.uint("send_per_tick", p.send_per_tick.into());
    w.open("keyless", '{');
    match p.keyless {
        KeylessStrategy::Sticky { batch_records } => {
            w.str("strategy", "sticky");
            w.uint("batch_records", batch_records.into());
        }
        KeylessStrategy::RoundRobin => w.str("strategy", "round-robin"),
    }
    w.close('}');
    w.close('}');
    write_position(w, c.position);
    w.flag("bridge", c.bridge);
    w.close('}');
}

fn assignor_name(a: Assignor) -> &'static str {
    ASSIGNORS[ASSIGNOR_VALUES.iter().position(|x| *x == a).unwrap_or(0)]
}

fn write_commit(w: &mut Writer, c: CommitMode) {
    w.open("commit", '{');
    w.str("mode", c.label());
    if let CommitMode::Auto { interval_ticks } = c {
        w.uint("interval_ticks", interval_ticks);
    }
    w.close('}');
}

fn write_position(w: &mut Writer, p: PositionModel) {
    w.open("position", '{');
    match p {
        PositionModel::Group => w.str("store", "group"),
        PositionModel::Consumer { writes, write_ticks } => {
            w.str("store", "consumer");
            w.str("writes", WRITES[usize::from(writes == CheckpointWrites::InPlace)]);
            w.uint("write_ticks", write_ticks);
        }
    }
    w.close('}');
}

fn write_reset(w: &mut Writer, r: ResetSpec) {
    w.open("reset", '{');
    match r {
        ResetSpec::Earliest => w.str("to", "earliest"),
        ResetSpec::Latest => w.str("to", "latest"),
        ResetSpec::Offset { partition, offset } => {
            w.str("to", "offset");
            if let Some(p) = partition {
                w.uint("partition", p.into());
            }
            w.uint("offset", offset);
        }
        ResetSpec::ShiftBy { by } => {
            w.str("to", "shift-by");
            w.int("by", by);
        }
    }
    w.close('}');
}

/// Writes one input as `{"do": …, fields…}`, fields in [`INPUTS`] order.
pub(crate) fn write_input(w: &mut Writer, key: &str, input: &Input) {
    w.open(key, '{');
    let (name, consumer, count) = match input {
        Input::Send { count } => ("send", None, Some(("count", *count))),
        Input::KeepSending { per_tick } => ("keep-sending", None, Some(("per_tick", *per_tick))),
        Input::KeyCount { keys } => ("key-count", None, Some(("keys", *keys))),
        Input::HotKey { share_percent } => {
            ("hot-key", None, Some(("share_percent", u32::from(*share_percent))))
        }
        Input::RecordsPerPoll { records, .. } => ("records-per-poll", None, Some(("records", *records))),
        Input::HandlePerTick { records, .. } => ("handle-per-tick", None, Some(("records", *records))),
        Input::AddPartitions { count } => ("add-partitions", None, Some(("count", *count))),
        Input::Pause { consumer } => ("pause", Some(consumer), None),
        Input::Resume { consumer } => ("resume", Some(consumer), None),
        Input::Crash { consumer } => ("crash", Some(consumer), None),
        Input::Stop { consumer } => ("stop", Some(consumer), None),
        Input::Start { consumer } => ("start", Some(consumer), None),
        Input::RemoveConsumer { consumer } => ("remove-consumer", Some(consumer), None),
        Input::KillBeforeCommit { consumer } => ("kill-before-commit", Some(consumer), None),
        Input::LoadCheckpoint { consumer, partition, .. } => {
            ("load-checkpoint", Some(consumer), Some(("partition", *partition)))
        }
        Input::UseKeys { .. } => ("use-keys", None, None),
        Input::AddConsumer { .. } => ("add-consumer", None, None),
        Input::Commit { .. } => ("commit", None, None),
        Input::Idempotent { .. } => ("idempotent", None, None),
        Input::ResetOffsets { .. } => ("reset-offsets", None, None),
        Input::RestartFrom { .. } => ("restart-from", None, None),
        Input::PositionStore { .. } => ("position-store", None, None),
        Input::Peek { .. } => ("peek", None, None),
        Input::RollingUpdate { .. } => ("rolling-update", None, None),
        Input::Assignor { .. } => ("assignor", None, None),
    };
    w.str("do", name);
    if let Some(c) = consumer {
        w.str("consumer", &c.to_string());
    }
    if let Some((key, n)) = count {
        w.uint(key, n.into());
    }
    match input {
        Input::UseKeys { on } | Input::Idempotent { on, .. } => w.flag("on", *on),
        Input::Peek { advancing } => w.flag("advancing", *advancing),
        Input::Commit { commit, .. } => write_commit(w, *commit),
        Input::ResetOffsets { reset, .. } | Input::RestartFrom { reset, .. } => write_reset(w, *reset),
        Input::PositionStore { position, .. } => write_position(w, *position),
        Input::LoadCheckpoint { offset, .. } => w.uint("offset", *offset),
        Input::RollingUpdate { consumers, .. } => {
            w.open("consumers", '[');
            for c in consumers {
                w.str("", &c.to_string());
            }
            w.close(']');
        }
        Input::Assignor { assignor, .. } => w.str("assignor", assignor_name(*assignor)),
        _ => {}
    }
    w.close('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The name tables and the typed values line up, in both directions.
    #[test]
    fn names_and_values_line_up() {
        for (i, a) in ASSIGNOR_VALUES.into_iter().enumerate() {
            assert_eq!(assignor_name(a), ASSIGNORS[i]);
        }
        assert_eq!(Topic::ALL.len(), TOPICS.len());
        for c in [
            CommitMode::After,
            CommitMode::Before,
            CommitMode::EachRecord,
            CommitMode::Auto { interval_ticks: 1 },
        ] {
            let Ty::Tagged(_, variants) = COMMIT else { panic!() };
            assert!(variants.iter().any(|(n, _)| *n == c.label()), "{c:?}");
        }
    }
}
