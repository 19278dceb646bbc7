//! The scenario format ⇄ [`json::Value`], by hand. This is the one reader of
//! scenario JSON: `Scenario::parse` (the CLI, user files), the page's import,
//! and the inline scenarios of links all go through it. It replaced serde's
//! derives because those cost the page about 43 KB gzip, which its size
//! budget does not have.
//!
//! It keeps the format serde defined: field and variant names (snake_case
//! fields, kebab-case variants, snake_case metrics), internally tagged enums
//! (`"do"`, `"to"`, `"mode"`, `"store"`, `"strategy"`), defaults for absent
//! fields, `null` as absent for `Option` fields, unknown and duplicate fields
//! refused, and the same fields left out when printing (`guide` when none,
//! `learner` when false, empty `steps`, absent bounds and partitions).
//! One difference: a variant without fields (`{"do": "add-consumer"}`) refuses
//! other fields too, where serde let them pass.
//!
//! Errors carry the field path (`timeline[1].input.consumer`) and the offset
//! of the offending value, or of the object a required field is missing from.

use super::json::{Error, Kind, Member, Value};
use crate::config::{Assignor, CheckpointWrites, CommitMode, Config, PositionModel, ProducerConfig};
use crate::guide::{Condition, Guide, Metric, Outcome, Topic};
use crate::input::{ConsumerId, Input, ResetSpec};
use crate::partitioner::KeylessStrategy;
use crate::scenario::{Scenario, TimedInput};

type R<T> = Result<T, Error>;

/// A tagged enum's variants: the JSON name and its fields, in printing order.
pub(crate) type Variants = [(&'static str, &'static [&'static str])];

/// `Input`'s variants (tag `"do"`). Links write an input's arguments in this order.
pub(crate) const INPUTS: &Variants = &[
    ("send", &["count"]),
    ("keep-sending", &["per_tick"]),
    ("use-keys", &["on"]),
    ("key-count", &["keys"]),
    ("hot-key", &["share_percent"]),
    ("pause", &["consumer"]),
    ("resume", &["consumer"]),
    ("crash", &["consumer"]),
    ("stop", &["consumer"]),
    ("start", &["consumer"]),
    ("add-consumer", &[]),
    ("remove-consumer", &["consumer"]),
    ("records-per-poll", &["records"]),
    ("handle-per-tick", &["records"]),
    ("commit", &["commit"]),
    ("idempotent", &["on"]),
    ("reset-offsets", &["reset"]),
    ("restart-from", &["reset"]),
    ("position-store", &["position"]),
    ("peek", &["advancing"]),
    ("load-checkpoint", &["consumer", "partition", "offset"]),
    ("add-partitions", &["count"]),
    ("kill-before-commit", &["consumer"]),
    ("rolling-update", &["consumers"]),
    ("assignor", &["assignor"]),
];
/// The most fields an `Input` variant has.
const INPUT_FIELDS_MAX: usize = 3;

const RESETS: &Variants =
    &[("earliest", &[]), ("latest", &[]), ("offset", &["partition", "offset"]), ("shift-by", &["by"])];
const COMMITS: &Variants =
    &[("after", &[]), ("before", &[]), ("each-record", &[]), ("auto", &["interval_ticks"])];
const POSITIONS: &Variants = &[("group", &[]), ("consumer", &["writes", "write_ticks"])];
const KEYLESS: &Variants = &[("sticky", &["batch_records"]), ("round-robin", &[])];

const SCENARIO_FIELDS: &[&str] = &["name", "summary", "watch", "config", "ticks", "timeline", "guide"];
const TIMED_FIELDS: &[&str] = &["tick", "input", "learner"];
const CONFIG_FIELDS: &[&str] = &[
    "seed",
    "partitions",
    "retention_records",
    "consumers",
    "records_per_poll",
    "handle_per_tick",
    "commit",
    "idempotent",
    "session_timeout_ticks",
    "shutdown_deadline_ticks",
    "assignor",
    "producer",
    "position",
    "bridge",
];
const PRODUCER_FIELDS: &[&str] =
    &["use_keys", "key_count", "hot_key_share_percent", "send_per_tick", "keyless"];
const GUIDE_FIELDS: &[&str] = &["topic", "story", "steps", "outcome"];
const OUTCOME_FIELDS: &[&str] = &["when", "says"];
const CONDITION_FIELDS: &[&str] = &["metric", "at_least", "at_most"];

const ASSIGNORS: &[Assignor] =
    &[Assignor::Range, Assignor::RoundRobin, Assignor::Sticky, Assignor::CooperativeSticky];
const WRITES: &[CheckpointWrites] = &[CheckpointWrites::Atomic, CheckpointWrites::InPlace];
const TOPICS: &[Topic] = &Topic::ALL;

fn assignor_name(a: Assignor) -> &'static str {
    match a {
        Assignor::Range => "range",
        Assignor::RoundRobin => "roundrobin",
        Assignor::Sticky => "sticky",
        Assignor::CooperativeSticky => "cooperative-sticky",
    }
}

fn writes_name(w: CheckpointWrites) -> &'static str {
    match w {
        CheckpointWrites::Atomic => "atomic",
        CheckpointWrites::InPlace => "in-place",
    }
}

fn topic_name(t: Topic) -> &'static str {
    match t {
        Topic::KeysAndOrder => "keys-and-order",
        Topic::DeliveryGuarantees => "delivery-guarantees",
        Topic::Rebalances => "rebalances",
        Topic::OffsetStorage => "offset-storage",
        Topic::Operations => "operations",
    }
}

// ---------------------------------------------------------------- reading

/// What a value is, for "invalid type: …, expected …".
fn found(v: &Value) -> String {
    match &v.kind {
        Kind::Null => "null".into(),
        Kind::Bool(b) => format!("boolean `{b}`"),
        Kind::UInt(n) => format!("integer `{n}`"),
        Kind::Int(n) => format!("integer `{n}`"),
        Kind::String(s) => format!("string {s:?}"),
        Kind::Array(_) => "array".into(),
        Kind::Object(_) => "object".into(),
    }
}

fn wrong_type(v: &Value, expected: &str) -> Error {
    Error::new(v.at, format!("invalid type: {}, expected {expected}", found(v)))
}

/// `` `a`, `b`, `c` `` for messages.
fn listing(names: &mut dyn Iterator<Item = &str>) -> String {
    names.map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

fn string(v: &Value) -> R<String> {
    match &v.kind {
        Kind::String(s) => Ok(s.clone()),
        _ => Err(wrong_type(v, "a string")),
    }
}

fn boolean(v: &Value) -> R<bool> {
    match v.kind {
        Kind::Bool(b) => Ok(b),
        _ => Err(wrong_type(v, "a boolean")),
    }
}

/// An integer in `0..=max`.
fn unsigned(v: &Value, max: u64) -> R<u64> {
    let expected = if max == u64::MAX {
        "a non-negative integer".to_string()
    } else {
        format!("an integer from 0 to {max}")
    };
    match v.kind {
        Kind::UInt(n) if n <= max => Ok(n),
        Kind::UInt(_) | Kind::Int(_) => {
            Err(Error::new(v.at, format!("invalid value: {}, expected {expected}", found(v))))
        }
        _ => Err(wrong_type(v, &expected)),
    }
}

fn u64_(v: &Value) -> R<u64> {
    unsigned(v, u64::MAX)
}

fn u32_(v: &Value) -> R<u32> {
    unsigned(v, u32::MAX.into()).map(|n| u32::try_from(n).expect("checked against u32::MAX"))
}

fn u8_(v: &Value) -> R<u8> {
    unsigned(v, u8::MAX.into()).map(|n| u8::try_from(n).expect("checked against u8::MAX"))
}

fn i64_(v: &Value) -> R<i64> {
    match v.kind {
        Kind::Int(n) => Ok(n),
        Kind::UInt(n) => i64::try_from(n).map_err(|_| {
            Error::new(
                v.at,
                format!("invalid value: {}, expected an integer from {} to {}", found(v), i64::MIN, i64::MAX),
            )
        }),
        _ => Err(wrong_type(v, "an integer")),
    }
}

fn consumer(v: &Value) -> R<ConsumerId> {
    let Kind::String(name) = &v.kind else { return Err(wrong_type(v, "a consumer name (c1, c2, …)")) };
    name.parse().map_err(|message| Error::new(v.at, message))
}

fn array(v: &Value) -> R<&[Value]> {
    match &v.kind {
        Kind::Array(items) => Ok(items),
        _ => Err(wrong_type(v, "an array")),
    }
}

fn list<T>(v: &Value, read: fn(&Value) -> R<T>) -> R<Vec<T>> {
    array(v)?.iter().enumerate().map(|(i, item)| read(item).map_err(|e| e.in_element(i))).collect()
}

fn consumers(v: &Value) -> R<Vec<ConsumerId>> {
    list(v, consumer)
}

fn strings(v: &Value) -> R<Vec<String>> {
    list(v, string)
}

/// Sorts an object's members into `slots` by `names` (`skip` is the enum tag,
/// read by the caller). Unknown and repeated fields are refused.
fn fields<'a>(v: &'a Value, names: &[&str], skip: Option<&str>, slots: &mut [Option<&'a Value>]) -> R<()> {
    debug_assert!(slots.len() >= names.len(), "a slot per field");
    let Kind::Object(members) = &v.kind else { return Err(wrong_type(v, "an object")) };
    for Member { key, at, value } in members {
        if Some(key.as_str()) == skip {
            continue;
        }
        let Some(i) = names.iter().position(|n| n == key) else {
            let expected = match names {
                [] => "there are no fields".to_string(),
                [one] => format!("expected `{one}`"),
                _ => format!("expected one of {}", listing(&mut names.iter().copied())),
            };
            return Err(Error::new(*at, format!("unknown field `{key}`, {expected}")).in_field(key));
        };
        if slots[i].replace(value).is_some() {
            return Err(Error::new(*at, format!("duplicate field `{key}`")).in_field(key));
        }
    }
    Ok(())
}

/// A field that must be there.
fn required<'a, T>(object: &Value, slot: Option<&'a Value>, key: &str, read: fn(&'a Value) -> R<T>) -> R<T> {
    let value = slot.ok_or_else(|| Error::new(object.at, format!("missing field `{key}`")))?;
    read(value).map_err(|e| e.in_field(key))
}

/// A field that may be absent (its default applies then).
fn optional<'a, T>(slot: Option<&'a Value>, key: &str, read: fn(&'a Value) -> R<T>) -> R<Option<T>> {
    slot.map(|value| read(value).map_err(|e| e.in_field(key))).transpose()
}

/// An `Option` field: absent or `null` is `None`.
fn nullable<'a, T>(slot: Option<&'a Value>, key: &str, read: fn(&'a Value) -> R<T>) -> R<Option<T>> {
    optional(slot.filter(|v| v.kind != Kind::Null), key, read)
}

/// An internally tagged enum: checks the tag and the variant's fields, and
/// returns the variant's name.
fn tagged<'a>(
    v: &'a Value,
    tag: &str,
    variants: &Variants,
    slots: &mut [Option<&'a Value>],
) -> R<&'static str> {
    let Kind::Object(members) = &v.kind else { return Err(wrong_type(v, "an object")) };
    let mut tags = members.iter().filter(|m| m.key == tag);
    let Some(tag_member) = tags.next() else {
        return Err(Error::new(v.at, format!("missing field `{tag}`")));
    };
    if let Some(again) = tags.next() {
        return Err(Error::new(again.at, format!("duplicate field `{tag}`")).in_field(tag));
    }
    let name = string(&tag_member.value).map_err(|e| e.in_field(tag))?;
    let Some((name, names)) = variants.iter().find(|(n, _)| *n == name) else {
        let expected = listing(&mut variants.iter().map(|(n, _)| *n));
        let message = format!("unknown variant `{name}`, expected one of {expected}");
        return Err(Error::new(tag_member.value.at, message).in_field(tag));
    };
    fields(v, names, Some(tag), slots)?;
    Ok(name)
}

/// A variant the tables list but the match does not build: a bug, reported rather than panicking.
fn unbuilt(v: &Value, name: &str) -> Error {
    Error::new(v.at, format!("variant `{name}` is listed but not read"))
}

/// A string naming one of `all` (by `name_of`).
fn plain<T: Copy>(v: &Value, all: &[T], name_of: fn(T) -> &'static str) -> R<T> {
    let name = string(v)?;
    all.iter().copied().find(|&x| name_of(x) == name).ok_or_else(|| {
        let expected = listing(&mut all.iter().map(|&x| name_of(x)));
        Error::new(v.at, format!("unknown variant `{name}`, expected one of {expected}"))
    })
}

fn assignor(v: &Value) -> R<Assignor> {
    plain(v, ASSIGNORS, assignor_name)
}

fn writes(v: &Value) -> R<CheckpointWrites> {
    plain(v, WRITES, writes_name)
}

fn topic(v: &Value) -> R<Topic> {
    plain(v, TOPICS, topic_name)
}

fn metric(v: &Value) -> R<Metric> {
    plain(v, &Metric::ALL, Metric::name)
}

/// Reads a scenario (not yet validated: `Scenario::parse` does that).
pub(crate) fn scenario(v: &Value) -> R<Scenario> {
    let mut f = [None; 7];
    fields(v, SCENARIO_FIELDS, None, &mut f)?;
    Ok(Scenario {
        name: required(v, f[0], "name", string)?,
        summary: optional(f[1], "summary", string)?.unwrap_or_default(),
        watch: optional(f[2], "watch", string)?.unwrap_or_default(),
        config: optional(f[3], "config", config)?.unwrap_or_default(),
        ticks: optional(f[4], "ticks", u64_)?.unwrap_or(crate::scenario::TICKS_DEFAULT),
        timeline: optional(f[5], "timeline", timeline)?.unwrap_or_default(),
        guide: nullable(f[6], "guide", guide)?,
    })
}

fn timeline(v: &Value) -> R<Vec<TimedInput>> {
    list(v, timed)
}

fn timed(v: &Value) -> R<TimedInput> {
    let mut f = [None; 3];
    fields(v, TIMED_FIELDS, None, &mut f)?;
    Ok(TimedInput {
        tick: required(v, f[0], "tick", u64_)?,
        input: required(v, f[1], "input", input)?,
        learner: optional(f[2], "learner", boolean)?.unwrap_or(false),
    })
}

fn config(v: &Value) -> R<Config> {
    let mut f = [None; 14];
    fields(v, CONFIG_FIELDS, None, &mut f)?;
    let d = Config::default();
    Ok(Config {
        seed: optional(f[0], "seed", u64_)?.unwrap_or(d.seed),
        partitions: optional(f[1], "partitions", u32_)?.unwrap_or(d.partitions),
        retention_records: optional(f[2], "retention_records", u64_)?.unwrap_or(d.retention_records),
        consumers: optional(f[3], "consumers", u32_)?.unwrap_or(d.consumers),
        records_per_poll: optional(f[4], "records_per_poll", u32_)?.unwrap_or(d.records_per_poll),
        handle_per_tick: optional(f[5], "handle_per_tick", u32_)?.unwrap_or(d.handle_per_tick),
        commit: optional(f[6], "commit", commit)?.unwrap_or(d.commit),
        idempotent: optional(f[7], "idempotent", boolean)?.unwrap_or(d.idempotent),
        session_timeout_ticks: optional(f[8], "session_timeout_ticks", u64_)?
            .unwrap_or(d.session_timeout_ticks),
        shutdown_deadline_ticks: optional(f[9], "shutdown_deadline_ticks", u64_)?
            .unwrap_or(d.shutdown_deadline_ticks),
        assignor: optional(f[10], "assignor", assignor)?.unwrap_or(d.assignor),
        producer: optional(f[11], "producer", producer)?.unwrap_or(d.producer),
        position: optional(f[12], "position", position)?.unwrap_or(d.position),
        bridge: optional(f[13], "bridge", boolean)?.unwrap_or(d.bridge),
    })
}

fn producer(v: &Value) -> R<ProducerConfig> {
    let mut f = [None; 5];
    fields(v, PRODUCER_FIELDS, None, &mut f)?;
    let d = ProducerConfig::default();
    Ok(ProducerConfig {
        use_keys: optional(f[0], "use_keys", boolean)?.unwrap_or(d.use_keys),
        key_count: optional(f[1], "key_count", u32_)?.unwrap_or(d.key_count),
        hot_key_share_percent: optional(f[2], "hot_key_share_percent", u8_)?
            .unwrap_or(d.hot_key_share_percent),
        send_per_tick: optional(f[3], "send_per_tick", u32_)?.unwrap_or(d.send_per_tick),
        keyless: optional(f[4], "keyless", keyless)?.unwrap_or(d.keyless),
    })
}

fn keyless(v: &Value) -> R<KeylessStrategy> {
    let mut f = [None; 1];
    match tagged(v, "strategy", KEYLESS, &mut f)? {
        "sticky" => Ok(KeylessStrategy::Sticky { batch_records: required(v, f[0], "batch_records", u32_)? }),
        "round-robin" => Ok(KeylessStrategy::RoundRobin),
        other => Err(unbuilt(v, other)),
    }
}

pub(crate) fn commit(v: &Value) -> R<CommitMode> {
    let mut f = [None; 1];
    match tagged(v, "mode", COMMITS, &mut f)? {
        "after" => Ok(CommitMode::After),
        "before" => Ok(CommitMode::Before),
        "each-record" => Ok(CommitMode::EachRecord),
        "auto" => Ok(CommitMode::Auto { interval_ticks: required(v, f[0], "interval_ticks", u64_)? }),
        other => Err(unbuilt(v, other)),
    }
}

fn position(v: &Value) -> R<PositionModel> {
    let mut f = [None; 2];
    match tagged(v, "store", POSITIONS, &mut f)? {
        "group" => Ok(PositionModel::Group),
        "consumer" => Ok(PositionModel::Consumer {
            writes: required(v, f[0], "writes", writes)?,
            write_ticks: required(v, f[1], "write_ticks", u64_)?,
        }),
        other => Err(unbuilt(v, other)),
    }
}

fn reset(v: &Value) -> R<ResetSpec> {
    let mut f = [None; 2];
    match tagged(v, "to", RESETS, &mut f)? {
        "earliest" => Ok(ResetSpec::Earliest),
        "latest" => Ok(ResetSpec::Latest),
        "offset" => Ok(ResetSpec::Offset {
            partition: nullable(f[0], "partition", u32_)?,
            offset: required(v, f[1], "offset", u64_)?,
        }),
        "shift-by" => Ok(ResetSpec::ShiftBy { by: required(v, f[0], "by", i64_)? }),
        other => Err(unbuilt(v, other)),
    }
}

/// Reads one input (`{"do": "crash", "consumer": "c1"}`).
pub(crate) fn input(v: &Value) -> R<Input> {
    let mut f = [None; INPUT_FIELDS_MAX];
    let name = tagged(v, "do", INPUTS, &mut f)?;
    let who = |slot: Option<&Value>| required(v, slot, "consumer", consumer);
    Ok(match name {
        "send" => Input::Send { count: required(v, f[0], "count", u32_)? },
        "keep-sending" => Input::KeepSending { per_tick: required(v, f[0], "per_tick", u32_)? },
        "use-keys" => Input::UseKeys { on: required(v, f[0], "on", boolean)? },
        "key-count" => Input::KeyCount { keys: required(v, f[0], "keys", u32_)? },
        "hot-key" => Input::HotKey { share_percent: required(v, f[0], "share_percent", u8_)? },
        "pause" => Input::Pause { consumer: who(f[0])? },
        "resume" => Input::Resume { consumer: who(f[0])? },
        "crash" => Input::Crash { consumer: who(f[0])? },
        "stop" => Input::Stop { consumer: who(f[0])? },
        "start" => Input::Start { consumer: who(f[0])? },
        "add-consumer" => Input::AddConsumer,
        "remove-consumer" => Input::RemoveConsumer { consumer: who(f[0])? },
        "records-per-poll" => Input::RecordsPerPoll { records: required(v, f[0], "records", u32_)? },
        "handle-per-tick" => Input::HandlePerTick { records: required(v, f[0], "records", u32_)? },
        "commit" => Input::Commit { commit: required(v, f[0], "commit", commit)? },
        "idempotent" => Input::Idempotent { on: required(v, f[0], "on", boolean)? },
        "reset-offsets" => Input::ResetOffsets { reset: required(v, f[0], "reset", reset)? },
        "restart-from" => Input::RestartFrom { reset: required(v, f[0], "reset", reset)? },
        "position-store" => Input::PositionStore { position: required(v, f[0], "position", position)? },
        "peek" => Input::Peek { advancing: required(v, f[0], "advancing", boolean)? },
        "load-checkpoint" => Input::LoadCheckpoint {
            consumer: who(f[0])?,
            partition: required(v, f[1], "partition", u32_)?,
            offset: required(v, f[2], "offset", u64_)?,
        },
        "add-partitions" => Input::AddPartitions { count: required(v, f[0], "count", u32_)? },
        "kill-before-commit" => Input::KillBeforeCommit { consumer: who(f[0])? },
        "rolling-update" => {
            Input::RollingUpdate { consumers: optional(f[0], "consumers", consumers)?.unwrap_or_default() }
        }
        "assignor" => Input::Assignor { assignor: required(v, f[0], "assignor", assignor)? },
        other => return Err(unbuilt(v, other)),
    })
}

fn guide(v: &Value) -> R<Guide> {
    let mut f = [None; 4];
    fields(v, GUIDE_FIELDS, None, &mut f)?;
    Ok(Guide {
        topic: required(v, f[0], "topic", topic)?,
        story: required(v, f[1], "story", string)?,
        steps: optional(f[2], "steps", strings)?.unwrap_or_default(),
        outcome: required(v, f[3], "outcome", outcome)?,
    })
}

fn outcome(v: &Value) -> R<Outcome> {
    let mut f = [None; 2];
    fields(v, OUTCOME_FIELDS, None, &mut f)?;
    Ok(Outcome { when: required(v, f[0], "when", conditions)?, says: required(v, f[1], "says", string)? })
}

fn conditions(v: &Value) -> R<Vec<Condition>> {
    list(v, condition)
}

fn condition(v: &Value) -> R<Condition> {
    let mut f = [None; 3];
    fields(v, CONDITION_FIELDS, None, &mut f)?;
    Ok(Condition {
        metric: required(v, f[0], "metric", metric)?,
        at_least: nullable(f[1], "at_least", u64_)?,
        at_most: nullable(f[2], "at_most", u64_)?,
    })
}

// ---------------------------------------------------------------- writing

fn text(s: &str) -> Value {
    Value::new(Kind::String(s.to_string()))
}

fn uint(n: impl Into<u64>) -> Value {
    Value::new(Kind::UInt(n.into()))
}

fn int(n: i64) -> Value {
    Value::new(if n < 0 { Kind::Int(n) } else { Kind::UInt(n.unsigned_abs()) })
}

fn flag(b: bool) -> Value {
    Value::new(Kind::Bool(b))
}

fn object(members: Vec<(&str, Value)>) -> Value {
    Value::new(Kind::Object(
        members.into_iter().map(|(key, value)| Member { key: key.to_string(), at: 0, value }).collect(),
    ))
}

/// `{tag: name, fields…}`: an internally tagged enum's variant.
pub(crate) fn variant<'a>(tag: &'a str, name: &str, mut fields: Vec<(&'a str, Value)>) -> Value {
    fields.insert(0, (tag, text(name)));
    object(fields)
}

fn items<T>(all: &[T], write: fn(&T) -> Value) -> Value {
    Value::new(Kind::Array(all.iter().map(write).collect()))
}

pub(crate) fn scenario_value(s: &Scenario) -> Value {
    let mut members = vec![
        ("name", text(&s.name)),
        ("summary", text(&s.summary)),
        ("watch", text(&s.watch)),
        ("config", config_value(&s.config)),
        ("ticks", uint(s.ticks)),
        ("timeline", items(&s.timeline, timed_value)),
    ];
    if let Some(g) = &s.guide {
        members.push(("guide", guide_value(g)));
    }
    object(members)
}

fn timed_value(t: &TimedInput) -> Value {
    let mut members = vec![("tick", uint(t.tick)), ("input", input_value(&t.input))];
    if t.learner {
        members.push(("learner", flag(true)));
    }
    object(members)
}

fn config_value(c: &Config) -> Value {
    let p = &c.producer;
    let keyless = match p.keyless {
        KeylessStrategy::Sticky { batch_records } => {
            variant("strategy", "sticky", vec![("batch_records", uint(batch_records))])
        }
        KeylessStrategy::RoundRobin => variant("strategy", "round-robin", vec![]),
    };
    let producer = object(vec![
        ("use_keys", flag(p.use_keys)),
        ("key_count", uint(p.key_count)),
        ("hot_key_share_percent", uint(p.hot_key_share_percent)),
        ("send_per_tick", uint(p.send_per_tick)),
        ("keyless", keyless),
    ]);
    object(vec![
        ("seed", uint(c.seed)),
        ("partitions", uint(c.partitions)),
        ("retention_records", uint(c.retention_records)),
        ("consumers", uint(c.consumers)),
        ("records_per_poll", uint(c.records_per_poll)),
        ("handle_per_tick", uint(c.handle_per_tick)),
        ("commit", commit_value(c.commit)),
        ("idempotent", flag(c.idempotent)),
        ("session_timeout_ticks", uint(c.session_timeout_ticks)),
        ("shutdown_deadline_ticks", uint(c.shutdown_deadline_ticks)),
        ("assignor", text(assignor_name(c.assignor))),
        ("producer", producer),
        ("position", position_value(c.position)),
        ("bridge", flag(c.bridge)),
    ])
}

fn commit_value(c: CommitMode) -> Value {
    match c {
        CommitMode::After => variant("mode", "after", vec![]),
        CommitMode::Before => variant("mode", "before", vec![]),
        CommitMode::EachRecord => variant("mode", "each-record", vec![]),
        CommitMode::Auto { interval_ticks } => {
            variant("mode", "auto", vec![("interval_ticks", uint(interval_ticks))])
        }
    }
}

fn position_value(p: PositionModel) -> Value {
    match p {
        PositionModel::Group => variant("store", "group", vec![]),
        PositionModel::Consumer { writes, write_ticks } => variant(
            "store",
            "consumer",
            vec![("writes", text(writes_name(writes))), ("write_ticks", uint(write_ticks))],
        ),
    }
}

fn reset_value(r: ResetSpec) -> Value {
    match r {
        ResetSpec::Earliest => variant("to", "earliest", vec![]),
        ResetSpec::Latest => variant("to", "latest", vec![]),
        ResetSpec::Offset { partition, offset } => {
            let mut fields = Vec::new();
            if let Some(p) = partition {
                fields.push(("partition", uint(p)));
            }
            fields.push(("offset", uint(offset)));
            variant("to", "offset", fields)
        }
        ResetSpec::ShiftBy { by } => variant("to", "shift-by", vec![("by", int(by))]),
    }
}

/// One input as `{"do": …, fields…}`, fields in [`INPUTS`] order.
pub(crate) fn input_value(input: &Input) -> Value {
    let id = |c: &ConsumerId| text(&c.to_string());
    let (name, fields): (&str, Vec<(&str, Value)>) = match input {
        Input::Send { count } => ("send", vec![("count", uint(*count))]),
        Input::KeepSending { per_tick } => ("keep-sending", vec![("per_tick", uint(*per_tick))]),
        Input::UseKeys { on } => ("use-keys", vec![("on", flag(*on))]),
        Input::KeyCount { keys } => ("key-count", vec![("keys", uint(*keys))]),
        Input::HotKey { share_percent } => ("hot-key", vec![("share_percent", uint(*share_percent))]),
        Input::Pause { consumer } => ("pause", vec![("consumer", id(consumer))]),
        Input::Resume { consumer } => ("resume", vec![("consumer", id(consumer))]),
        Input::Crash { consumer } => ("crash", vec![("consumer", id(consumer))]),
        Input::Stop { consumer } => ("stop", vec![("consumer", id(consumer))]),
        Input::Start { consumer } => ("start", vec![("consumer", id(consumer))]),
        Input::AddConsumer => ("add-consumer", vec![]),
        Input::RemoveConsumer { consumer } => ("remove-consumer", vec![("consumer", id(consumer))]),
        Input::RecordsPerPoll { records } => ("records-per-poll", vec![("records", uint(*records))]),
        Input::HandlePerTick { records } => ("handle-per-tick", vec![("records", uint(*records))]),
        Input::Commit { commit } => ("commit", vec![("commit", commit_value(*commit))]),
        Input::Idempotent { on } => ("idempotent", vec![("on", flag(*on))]),
        Input::ResetOffsets { reset } => ("reset-offsets", vec![("reset", reset_value(*reset))]),
        Input::RestartFrom { reset } => ("restart-from", vec![("reset", reset_value(*reset))]),
        Input::PositionStore { position } => {
            ("position-store", vec![("position", position_value(*position))])
        }
        Input::Peek { advancing } => ("peek", vec![("advancing", flag(*advancing))]),
        Input::LoadCheckpoint { consumer, partition, offset } => (
            "load-checkpoint",
            vec![("consumer", id(consumer)), ("partition", uint(*partition)), ("offset", uint(*offset))],
        ),
        Input::AddPartitions { count } => ("add-partitions", vec![("count", uint(*count))]),
        Input::KillBeforeCommit { consumer } => ("kill-before-commit", vec![("consumer", id(consumer))]),
        Input::RollingUpdate { consumers } => ("rolling-update", vec![("consumers", items(consumers, id))]),
        Input::Assignor { assignor } => ("assignor", vec![("assignor", text(assignor_name(*assignor)))]),
    };
    variant("do", name, fields)
}

fn guide_value(g: &Guide) -> Value {
    let mut members = vec![("topic", text(topic_name(g.topic))), ("story", text(&g.story))];
    if !g.steps.is_empty() {
        members.push(("steps", items(&g.steps, |s| text(s))));
    }
    let when = items(&g.outcome.when, |c| {
        let mut members = vec![("metric", text(c.metric.name()))];
        if let Some(n) = c.at_least {
            members.push(("at_least", uint(n)));
        }
        if let Some(n) = c.at_most {
            members.push(("at_most", uint(n)));
        }
        object(members)
    });
    members.push(("outcome", object(vec![("when", when), ("says", text(&g.outcome.says))])));
    object(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The tables and the name functions agree, and every name reads back.
    #[test]
    fn every_name_reads_back() {
        for &a in ASSIGNORS {
            assert_eq!(assignor(&text(assignor_name(a))).unwrap(), a);
        }
        for &w in WRITES {
            assert_eq!(writes(&text(writes_name(w))).unwrap(), w);
        }
        for &t in TOPICS {
            assert_eq!(topic(&text(topic_name(t))).unwrap(), t);
        }
        for m in Metric::ALL {
            assert_eq!(metric(&text(m.name())).unwrap(), m);
        }
        let fields = INPUTS.iter().map(|(_, f)| f.len()).max().unwrap();
        assert_eq!(fields, INPUT_FIELDS_MAX);
    }
}
