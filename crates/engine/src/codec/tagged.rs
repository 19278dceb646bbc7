//! The internally tagged enums of the scenario format: `Input` (`"do"`),
//! `ResetSpec` (`"to"`), `CommitMode` (`"mode"`), `PositionModel`
//! (`"store"`), `KeylessStrategy` (`"strategy"`) and `ErrorPolicy` (`"policy"`).
//!
//! Why not serde's `#[serde(tag = …)]` for reading: it buffers the object and
//! reads the variant from the buffer, out of serde_path_to_error's sight, so
//! an error inside (`"consumer": "c0"`) would only name `timeline[1].input`.
//! Here the object is buffered as a `serde_json::Value` (duplicate keys
//! refused, as serde's derive refuses them), its tag taken out, and the rest
//! read as the externally tagged `{variant: {fields}}` of a derived mirror
//! (`#[serde(remote)]`), with a path tracker of its own. An error inside
//! carries that inner path in its message (see `super::nested`), which the
//! outer reader joins onto its own. Fieldless variants are empty struct
//! variants in the mirrors, so they refuse other fields too.
//!
//! Writing keeps serde's derived internally tagged `Serialize`.
//!
//! The format's structs (`Scenario`, `TimedInput`, `Config`,
//! `ProducerConfig`, `Guide`, `Outcome`, `Condition`) are objects only:
//! serde's derived `Deserialize` for a struct also reads an array of its
//! fields in order (`"config": [1]` as a seed of 1), which the format never
//! had. They derive with `#[serde(remote = "Self")]`, and the trait impls
//! here forward to those derived functions, reading through [`ObjectOnly`].

use super::nested;
use crate::config::{
    Assignor, CheckpointWrites, ClusterConfig, CommitMode, ConfigFile, DeliverySettings, ErrorPolicy,
    GroupConfig, PositionModel, ProducerConfig, TransactionsConfig,
};
use crate::guide::{Condition, Guide, Outcome};
use crate::input::{ConsumerId, Input, ResetSpec};
use crate::partitioner::KeylessStrategy;
use crate::scenario::{Scenario, TimedInput};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor,
};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::fmt;

/// Values one tagged object may hold, nested ones included. An input needs
/// under 10 (a rolling update, one per consumer named); the bound keeps the
/// buffer small whatever the text (a 16 MiB array of `0,` would otherwise
/// take some 256 MiB as values).
const BUFFERED_VALUES_MAX: usize = 4096;

/// Reads a JSON value with every object's keys checked for repeats, taking
/// one from `left` (at most `BUFFERED_VALUES_MAX`) for each value.
#[derive(Clone, Copy)]
struct Unique<'a> {
    left: &'a Cell<usize>,
}

impl Unique<'_> {
    fn take<E: de::Error>(self) -> Result<(), E> {
        match self.left.get().checked_sub(1) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(E::custom(format_args!("more than {BUFFERED_VALUES_MAX} values in one object"))),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.take()?;
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.take()?;
        Ok(v.into())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.take()?;
        Ok(v.into())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.take()?;
        // Kept, so that the field's own type refuses it with its name.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.take()?;
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.take()?;
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.take()?;
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.take()?;
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.take()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.take()?;
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if members.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            let value = map.next_value_seed(self)?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

/// Reads an object tagged by `tag` through `read`, the derived mirror's
/// reader of `{variant: {fields}}`.
fn tagged<'de, D, T>(
    d: D,
    tag: &'static str,
    read: impl FnOnce(serde_path_to_error::Deserializer<'_, '_, Value>) -> Result<T, serde_json::Error>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    // Only the buffering and the mirror's read are generic: the rest is one
    // copy for every tagged type (each copy is some 4 KB of wasm).
    let left = Cell::new(BUFFERED_VALUES_MAX);
    let value = Unique { left: &left }.deserialize(d)?;
    let external = untag(value, tag).map_err(de::Error::custom)?;
    let mut track = serde_path_to_error::Track::new();
    let result = read(serde_path_to_error::Deserializer::new(external, &mut track));
    result.map_err(|e| de::Error::custom(inner_error(track, &e, tag)))
}

/// `{tag: name, fields…}` as the mirror reads it, `{name: {fields…}}`, or
/// the message refusing it.
fn untag(value: Value, tag: &'static str) -> Result<Value, String> {
    let Value::Object(mut members) = value else {
        let refused: serde_json::Error = de::Error::invalid_type(unexpected(&value), &"an object");
        return Err(super::plain(&refused.to_string()));
    };
    let name = match members.remove(tag) {
        None => {
            let missing: serde_json::Error = de::Error::missing_field(tag);
            return Err(missing.to_string());
        }
        Some(Value::String(name)) => name,
        Some(other) => {
            let message = String::deserialize(other).err().map_or_else(String::new, |e| e.to_string());
            return Err(nested(tag, &super::plain(&message)));
        }
    };
    let mut external = Map::new();
    external.insert(name, Value::Object(members));
    Ok(Value::Object(external))
}

/// What serde calls a JSON value in `invalid type: …` messages.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(n), _) => Unexpected::Unsigned(n),
            (None, Some(n)) => Unexpected::Signed(n),
            _ => Unexpected::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// The message for an error inside a tagged object, with its inner path.
fn inner_error(track: serde_path_to_error::Track, e: &serde_json::Error, tag: &'static str) -> String {
    let (path, message) = super::split(super::path_text(&track.path()), &e.to_string());
    // A variant name that is unknown is the tag's fault.
    let path = if path.is_empty() && message.starts_with("unknown variant") { tag.to_string() } else { path };
    nested(&path, &message)
}

#[derive(serde::Deserialize)]
#[serde(remote = "Input", rename_all = "kebab-case", deny_unknown_fields)]
enum InputDef {
    Send {
        count: u32,
    },
    KeepSending {
        per_tick: u32,
    },
    UseKeys {
        on: bool,
    },
    KeyCount {
        keys: u32,
    },
    HotKey {
        share_percent: u8,
    },
    SendPoison {},
    SendFailing {
        failures: u32,
        #[serde(default)]
        after_effect: bool,
    },
    FixHandler {
        #[serde(default)]
        group: Option<String>,
    },
    ReplayDeadLetters {
        #[serde(default)]
        group: Option<String>,
    },
    ErrorPolicy {
        #[serde(default)]
        group: Option<String>,
        error_policy: ErrorPolicy,
    },
    Pause {
        consumer: ConsumerId,
    },
    Resume {
        consumer: ConsumerId,
    },
    Crash {
        consumer: ConsumerId,
    },
    Stop {
        consumer: ConsumerId,
    },
    Start {
        consumer: ConsumerId,
    },
    AddConsumer {
        #[serde(default)]
        group: Option<String>,
    },
    RemoveConsumer {
        consumer: ConsumerId,
    },
    DuplicateInstance {
        consumer: ConsumerId,
    },
    Stall {
        consumer: ConsumerId,
        ticks: u64,
    },
    RecordsPerPoll {
        #[serde(default)]
        group: Option<String>,
        records: u32,
    },
    HandlePerTick {
        #[serde(default)]
        group: Option<String>,
        records: u32,
    },
    Commit {
        #[serde(default)]
        group: Option<String>,
        commit: CommitMode,
    },
    Idempotent {
        #[serde(default)]
        group: Option<String>,
        on: bool,
    },
    ResetOffsets {
        #[serde(default)]
        group: Option<String>,
        reset: ResetSpec,
    },
    RestartFrom {
        #[serde(default)]
        group: Option<String>,
        reset: ResetSpec,
    },
    PositionStore {
        #[serde(default)]
        group: Option<String>,
        position: PositionModel,
    },
    Peek {
        advancing: bool,
    },
    LoadCheckpoint {
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
    },
    AddPartitions {
        count: u32,
    },
    KillBeforeCommit {
        consumer: ConsumerId,
    },
    RollingUpdate {
        #[serde(default)]
        group: Option<String>,
        #[serde(default)]
        consumers: Vec<ConsumerId>,
    },
    Assignor {
        #[serde(default)]
        group: Option<String>,
        assignor: Assignor,
    },
    CrashBroker {
        broker: u32,
    },
    RestartBroker {
        broker: u32,
    },
    LoseNextAck {
        partition: u32,
    },
    LoseNextRequest {
        partition: u32,
    },
    SlowFollower {
        broker: u32,
        fetch_per_tick: u64,
    },
}

#[derive(serde::Deserialize)]
#[serde(remote = "ResetSpec", rename_all = "kebab-case", deny_unknown_fields)]
enum ResetSpecDef {
    Earliest {},
    Latest {},
    Offset { partition: Option<u32>, offset: u64 },
    ShiftBy { by: i64 },
}

#[derive(serde::Deserialize)]
#[serde(remote = "CommitMode", rename_all = "kebab-case", deny_unknown_fields)]
enum CommitModeDef {
    After {},
    Before {},
    EachRecord {},
    Auto { interval_ticks: u64 },
}

#[derive(serde::Deserialize)]
#[serde(remote = "PositionModel", rename_all = "kebab-case", deny_unknown_fields)]
enum PositionModelDef {
    Group {},
    Consumer { writes: CheckpointWrites, write_ticks: u64 },
}

#[derive(serde::Deserialize)]
#[serde(remote = "ErrorPolicy", rename_all = "kebab-case", deny_unknown_fields)]
enum ErrorPolicyDef {
    Skip {},
    RetryForever {
        #[serde(default)]
        backoff_ticks: u64,
    },
    RetryThenDeadLetter {
        retries: u32,
        #[serde(default)]
        backoff_ticks: u64,
    },
    RetryTopics {
        levels: u32,
        delay_ticks: u64,
    },
}

#[derive(serde::Deserialize)]
#[serde(remote = "KeylessStrategy", rename_all = "kebab-case", deny_unknown_fields)]
enum KeylessStrategyDef {
    Sticky { batch_records: u32 },
    RoundRobin {},
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Input, D::Error> {
        tagged(d, "do", |d| InputDef::deserialize(d))
    }
}

impl<'de> Deserialize<'de> for ResetSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ResetSpec, D::Error> {
        tagged(d, "to", |d| ResetSpecDef::deserialize(d))
    }
}

impl<'de> Deserialize<'de> for CommitMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CommitMode, D::Error> {
        tagged(d, "mode", |d| CommitModeDef::deserialize(d))
    }
}

impl<'de> Deserialize<'de> for PositionModel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PositionModel, D::Error> {
        tagged(d, "store", |d| PositionModelDef::deserialize(d))
    }
}

impl<'de> Deserialize<'de> for ErrorPolicy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ErrorPolicy, D::Error> {
        tagged(d, "policy", |d| ErrorPolicyDef::deserialize(d))
    }
}

impl<'de> Deserialize<'de> for KeylessStrategy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeylessStrategy, D::Error> {
        tagged(d, "strategy", |d| KeylessStrategyDef::deserialize(d))
    }
}

/// A consumer's name, `c1`, `c2`, …, as a string.
impl<'de> Deserialize<'de> for ConsumerId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ConsumerId, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = ConsumerId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a consumer name (c1, c2, …)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ConsumerId, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Name)
    }
}

/// A deserializer that reads whatever is asked of it as a map: a derived
/// struct asks `deserialize_struct`, which serde_json would also satisfy
/// with an array.
struct ObjectOnly<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// `Serialize` and `Deserialize` for structs derived with `remote = "Self"`.
macro_rules! objects {
    ($($ty:ident),* $(,)?) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                // The derived function (inherent, so it is found first).
                $ty::serialize(self, serializer)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                $ty::deserialize(ObjectOnly(d))
            }
        }
    )*};
}

objects!(
    Scenario,
    TimedInput,
    ConfigFile,
    GroupConfig,
    ProducerConfig,
    ClusterConfig,
    DeliverySettings,
    TransactionsConfig,
    Guide,
    Outcome,
    Condition
);
