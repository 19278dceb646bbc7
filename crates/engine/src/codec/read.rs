//! The scenario format's reader: each type read by hand from a
//! `serde_json::Value`, with the field path kept as it goes.
//!
//! Why by hand: serde's derived visitors, read through serde_path_to_error,
//! are about 20 KB of the page's gzip'd wasm, a twentieth of its budget (the
//! derive writes a visitor per struct and per tagged enum, each wrapped by the
//! path tracker and specialised for every reader it meets). Here one small
//! function reads each type, the leaves (numbers, strings, the plain enums)
//! through serde's own `Deserialize` for a value, so that every message is
//! serde's: `unknown field`, `missing field`, `unknown variant`, `invalid
//! type` come from serde's own constructors, with the same lists in the same
//! order. The derived `Deserialize` impls stay, for whoever reads the types
//! through serde; a test reads thousands of altered scenarios both ways and
//! requires the same value or the same error, path and position.
//!
//! What the derive does and this follows:
//! - An object's members are read in the map's order; the first unknown or
//!   unreadable member is the error; then the first missing required field,
//!   in declaration order.
//! - A tagged object (`"do"`, `"to"`, `"mode"`, `"store"`, `"strategy"`)
//!   reads its tag, then its variant's fields as an object of their own.
//!   serde_json would have buffered such an object whole, so an error inside
//!   one is placed after it ([`Refusal::after`]).

use crate::config::{
    Assignor, ClusterConfig, CommitMode, Config, DeliverySettings, GroupConfig, PositionModel,
    ProducerConfig, TransactionsConfig,
};
use crate::guide::{Condition, Guide, Outcome};
use crate::input::{ConsumerId, Input, ResetSpec};
use crate::partitioner::KeylessStrategy;
use crate::scenario::{Scenario, TimedInput};
use serde::de::{self, DeserializeOwned, Unexpected};
use serde_json::{Map, Value};
use std::fmt;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// Why a value was refused: where, and serde's message in serde's words
/// (`map`, `u32`; [`super::plain`] words them for people).
#[derive(Debug)]
pub(crate) struct Refusal {
    pub path: Vec<Step>,
    /// Set for an error inside a tagged object, or raised once a value was
    /// read whole (`Config`'s own check): the length of the path to the
    /// value it is placed after.
    pub after: Option<usize>,
    pub message: String,
}

pub(crate) type Read<T> = Result<T, Refusal>;

/// The path being read, from the top of the document.
pub(crate) type Path = Vec<Step>;

fn refuse(path: &[Step], message: &dyn fmt::Display) -> Refusal {
    Refusal { path: path.to_vec(), after: None, message: message.to_string() }
}

/// A leaf through serde's own `Deserialize` for a JSON value: numbers,
/// strings, booleans, options of those, consumer names, the plain enums.
fn leaf<T: DeserializeOwned>(value: Value, path: &[Step]) -> Read<T> {
    T::deserialize(value).map_err(|e| refuse(path, &e))
}

/// What serde calls a JSON value in `invalid type: …` messages.
pub(crate) fn unexpected(value: &Value) -> Unexpected<'_> {
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

fn invalid_type(value: &Value, expected: &str, path: &[Step]) -> Refusal {
    let e: serde_json::Error = de::Error::invalid_type(unexpected(value), &expected);
    refuse(path, &e)
}

/// `null` as `None`, anything else through `read`.
fn option<T>(value: Value, path: &mut Path, read: fn(Value, &mut Path) -> Read<T>) -> Read<Option<T>> {
    if value.is_null() { Ok(None) } else { read(value, path).map(Some) }
}

/// An array, each element through `read` at its index.
fn array<T>(value: Value, path: &mut Path, read: fn(Value, &mut Path) -> Read<T>) -> Read<Vec<T>> {
    let Value::Array(items) = value else { return Err(invalid_type(&value, "a sequence", path)) };
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        path.push(Step::Index(index));
        out.push(read(item, path)?);
        path.pop();
    }
    Ok(out)
}

/// An object's members in order, each through `each` with its index in
/// `fields`; a member not in `fields` is refused. Returns the fields present,
/// bit `i` for `fields[i]`.
fn members(
    value: Value,
    fields: &'static [&'static str],
    path: &mut Path,
    mut each: impl FnMut(usize, Value, &mut Path) -> Read<()>,
) -> Read<u64> {
    assert!(fields.len() <= 64, "a field is a bit of the present mask");
    let Value::Object(map) = value else { return Err(invalid_type(&value, "an object", path)) };
    object(map, fields, path, &mut each)
}

fn object(
    map: Map<String, Value>,
    fields: &'static [&'static str],
    path: &mut Path,
    each: &mut dyn FnMut(usize, Value, &mut Path) -> Read<()>,
) -> Read<u64> {
    let mut present = 0u64;
    for (key, value) in map {
        let Some(index) = fields.iter().position(|f| *f == key) else {
            let e: serde_json::Error = de::Error::unknown_field(&key, fields);
            path.push(Step::Key(key));
            return Err(refuse(path, &e));
        };
        path.push(Step::Key(key));
        each(index, value, path)?;
        path.pop();
        present |= 1 << index;
    }
    Ok(present)
}

/// The first of `fields` in `required` (bit `i` for `fields[i]`) not in `present`.
fn require(present: u64, required: u64, fields: &'static [&'static str], path: &[Step]) -> Read<()> {
    match (0..fields.len()).find(|&i| required & !present & (1 << i) != 0) {
        None => Ok(()),
        Some(i) => {
            let e: serde_json::Error = de::Error::missing_field(fields[i]);
            Err(refuse(path, &e))
        }
    }
}

/// A tagged object: its tag's variant among `variants` (an index), and its
/// other members through `read`. Any error inside is placed after the object.
fn tagged<T>(
    value: Value,
    path: &mut Path,
    tag: &'static str,
    variants: &'static [&'static str],
    read: impl FnOnce(usize, Map<String, Value>, &mut Path) -> Read<T>,
) -> Read<T> {
    let depth = path.len();
    let result = (|| {
        let Value::Object(mut map) = value else { return Err(invalid_type(&value, "an object", path)) };
        let name: String = match map.remove(tag) {
            None => {
                let e: serde_json::Error = de::Error::missing_field(tag);
                return Err(refuse(path, &e));
            }
            Some(name) => {
                path.push(Step::Key(tag.to_string()));
                let name: String = leaf(name, path)?;
                path.pop();
                name
            }
        };
        let Some(variant) = variants.iter().position(|v| *v == name) else {
            path.push(Step::Key(tag.to_string()));
            let e: serde_json::Error = de::Error::unknown_variant(&name, variants);
            return Err(refuse(path, &e));
        };
        read(variant, map, path)
    })();
    result.map_err(|mut e| {
        e.after = Some(depth);
        e
    })
}

/// A variant's fields: `fields`, all required but those in `optional`.
fn variant(
    map: Map<String, Value>,
    fields: &'static [&'static str],
    optional: u64,
    path: &mut Path,
    mut each: impl FnMut(usize, Value, &mut Path) -> Read<()>,
) -> Read<()> {
    let present = object(map, fields, path, &mut each)?;
    require(present, !optional & ((1u64 << fields.len()) - 1), fields, path)
}

fn u32_(value: Value, path: &mut Path) -> Read<u32> {
    leaf(value, path)
}
fn u64_(value: Value, path: &mut Path) -> Read<u64> {
    leaf(value, path)
}
fn string(value: Value, path: &mut Path) -> Read<String> {
    leaf(value, path)
}
fn consumer(value: Value, path: &mut Path) -> Read<ConsumerId> {
    leaf(value, path)
}

const SCENARIO: &[&str] = &["name", "summary", "watch", "config", "ticks", "timeline", "guide"];

pub(crate) fn scenario(value: Value, path: &mut Path) -> Read<Scenario> {
    let mut s = Scenario {
        name: String::new(),
        summary: String::new(),
        watch: String::new(),
        config: Config::default(),
        ticks: crate::scenario::TICKS_DEFAULT,
        timeline: Vec::new(),
        guide: None,
    };
    let present = members(value, SCENARIO, path, |i, v, p| {
        match i {
            0 => s.name = leaf(v, p)?,
            1 => s.summary = leaf(v, p)?,
            2 => s.watch = leaf(v, p)?,
            3 => s.config = config(v, p)?,
            4 => s.ticks = leaf(v, p)?,
            5 => s.timeline = array(v, p, timed_input)?,
            _ => s.guide = option(v, p, guide)?,
        }
        Ok(())
    })?;
    require(present, 1, SCENARIO, path)?;
    Ok(s)
}

const TIMED_INPUT: &[&str] = &["tick", "input", "learner"];

fn timed_input(value: Value, path: &mut Path) -> Read<TimedInput> {
    let (mut tick, mut read, mut learner) = (0, None, false);
    let present = members(value, TIMED_INPUT, path, |i, v, p| {
        match i {
            0 => tick = leaf(v, p)?,
            1 => read = Some(input(v, p)?),
            _ => learner = leaf(v, p)?,
        }
        Ok(())
    })?;
    require(present, 0b11, TIMED_INPUT, path)?;
    let input = read.expect("input is required");
    Ok(TimedInput { tick, input, learner })
}

const GUIDE: &[&str] = &["topic", "story", "steps", "outcome"];

fn guide(value: Value, path: &mut Path) -> Read<Guide> {
    let (mut topic, mut story, mut steps, mut outcome) = (None, String::new(), Vec::new(), None);
    let present = members(value, GUIDE, path, |i, v, p| {
        match i {
            0 => topic = Some(leaf(v, p)?),
            1 => story = leaf(v, p)?,
            2 => steps = array(v, p, string)?,
            _ => outcome = Some(outcome_(v, p)?),
        }
        Ok(())
    })?;
    require(present, 0b1011, GUIDE, path)?;
    let (topic, outcome) = (topic.expect("topic is required"), outcome.expect("outcome is required"));
    Ok(Guide { topic, story, steps, outcome })
}

const OUTCOME: &[&str] = &["when", "says"];

fn outcome_(value: Value, path: &mut Path) -> Read<Outcome> {
    let (mut when, mut says) = (Vec::new(), String::new());
    let present = members(value, OUTCOME, path, |i, v, p| {
        match i {
            0 => when = array(v, p, condition)?,
            _ => says = leaf(v, p)?,
        }
        Ok(())
    })?;
    require(present, 0b11, OUTCOME, path)?;
    Ok(Outcome { when, says })
}

const CONDITION: &[&str] = &["metric", "group", "at_least", "at_most"];

fn condition(value: Value, path: &mut Path) -> Read<Condition> {
    let (mut metric, mut group, mut at_least, mut at_most) = (None, None, None, None);
    let present = members(value, CONDITION, path, |i, v, p| {
        match i {
            0 => metric = Some(leaf(v, p)?),
            1 => group = leaf(v, p)?,
            2 => at_least = leaf(v, p)?,
            _ => at_most = leaf(v, p)?,
        }
        Ok(())
    })?;
    require(present, 1, CONDITION, path)?;
    Ok(Condition { metric: metric.expect("metric is required"), group, at_least, at_most })
}

/// The field lists of `config` and of a group, from one list of the group's
/// fields less its name: `config` has its own fields, then those (a single
/// group's settings may sit at the top level), as `ConfigFile` declares them.
macro_rules! config_fields {
    ([$($own:literal),+ $(,)?], [$($group:literal),+ $(,)?]) => {
        const CONFIG: &[&str] = &[$($own,)+ $($group,)+];
        /// `CONFIG`'s fields before the group's.
        const CONFIG_OWN: usize = [$($own),+].len();
        const GROUP: &[&str] = &["name", $($group,)+];
    };
}

config_fields!(
    ["seed", "partitions", "retention_records", "producer", "groups", "cluster", "transactions"],
    [
        "consumers",
        "records_per_poll",
        "handle_per_tick",
        "commit",
        "idempotent",
        "session_timeout_ticks",
        "shutdown_deadline_ticks",
        "assignor",
        "position",
        "bridge",
        "protocol",
        "remote_assignor",
        "static_members",
        "heartbeat_interval_ticks",
        "rebalance_timeout_ticks",
        "lock_duration_ticks",
        "delivery_count_limit",
        "max_record_locks",
        "share_auto_offset_reset",
        "acknowledgement_mode",
    ]
);

pub(crate) fn config(value: Value, path: &mut Path) -> Read<Config> {
    let mut c = Config { groups: Vec::new(), ..Config::default() };
    let (mut groups, mut top, mut top_level_group) = (None, GroupConfig::default(), false);
    members(value, CONFIG, path, |i, v, p| {
        // Every field is optional, `null` as if left out; but a build
        // without a section refuses even its `null`.
        let refused = (i == 5 && !cfg!(feature = "cluster")) || (i == 6 && !cfg!(feature = "transactions"));
        if v.is_null() && !refused {
            return Ok(());
        }
        match i {
            0 => c.seed = leaf(v, p)?,
            1 => c.partitions = leaf(v, p)?,
            2 => c.retention_records = leaf(v, p)?,
            3 => c.producer = producer(v, p)?,
            4 => groups = Some(array(v, p, group)?),
            5 => c.cluster = Some(cluster(v, p)?),
            6 => c.transactions = Some(transactions(v, p)?),
            // The group's fields, less its name.
            _ => {
                top_level_group = true;
                group_field(i - CONFIG_OWN + 1, v, p, &mut top)?;
            }
        }
        Ok(())
    })?;
    c.groups = match groups {
        Some(_) if top_level_group => {
            return Err(Refusal {
                path: path.clone(),
                after: Some(path.len()),
                message: crate::config::GROUPS_AND_TOP_LEVEL.to_string(),
            });
        }
        Some(groups) => groups,
        None => vec![top],
    };
    Ok(c)
}

fn group(value: Value, path: &mut Path) -> Read<GroupConfig> {
    let mut g = GroupConfig::default();
    members(value, GROUP, path, |i, v, p| group_field(i, v, p, &mut g))?;
    Ok(g)
}

/// `GROUP[i]` of `g`.
fn group_field(i: usize, v: Value, p: &mut Path, g: &mut GroupConfig) -> Read<()> {
    match i {
        0 => g.name = leaf(v, p)?,
        1 => g.consumers = leaf(v, p)?,
        2 => g.records_per_poll = leaf(v, p)?,
        3 => g.handle_per_tick = leaf(v, p)?,
        4 => g.commit = commit_mode(v, p)?,
        5 => g.idempotent = leaf(v, p)?,
        6 => g.session_timeout_ticks = leaf(v, p)?,
        7 => g.shutdown_deadline_ticks = leaf(v, p)?,
        8 => g.assignor = leaf(v, p)?,
        9 => g.position = position_model(v, p)?,
        10 => g.bridge = leaf(v, p)?,
        11 => g.protocol = leaf(v, p)?,
        12 => g.remote_assignor = leaf(v, p)?,
        13 => g.static_members = leaf(v, p)?,
        14 => g.heartbeat_interval_ticks = leaf(v, p)?,
        15 => g.rebalance_timeout_ticks = leaf(v, p)?,
        16 => g.lock_duration_ticks = leaf(v, p)?,
        17 => g.delivery_count_limit = leaf(v, p)?,
        18 => g.max_record_locks = leaf(v, p)?,
        19 => g.share_auto_offset_reset = leaf(v, p)?,
        _ => g.acknowledgement_mode = leaf(v, p)?,
    }
    Ok(())
}

const PRODUCER: &[&str] =
    &["use_keys", "key_count", "hot_key_share_percent", "send_per_tick", "keyless", "delivery"];

fn producer(value: Value, path: &mut Path) -> Read<ProducerConfig> {
    let mut c = ProducerConfig::default();
    members(value, PRODUCER, path, |i, v, p| {
        match i {
            0 => c.use_keys = leaf(v, p)?,
            1 => c.key_count = leaf(v, p)?,
            2 => c.hot_key_share_percent = leaf(v, p)?,
            3 => c.send_per_tick = leaf(v, p)?,
            4 => c.keyless = keyless(v, p)?,
            // A build without the delivery path refuses even its `null`.
            _ if !cfg!(feature = "cluster") => c.delivery = Some(delivery(v, p)?),
            _ => c.delivery = option(v, p, delivery)?,
        }
        Ok(())
    })?;
    Ok(c)
}

/// The reader `$reader` of a struct whose absent fields take its `Default`
/// and whose fields are all leaves, and its field names `$names` (the Rust
/// names, as serde's derive has them), in declaration order.
#[cfg(any(feature = "cluster", feature = "transactions"))]
macro_rules! leaf_object {
    ($reader:ident, $names:ident, $ty:ty, [$($field:ident),+ $(,)?]) => {
        const $names: &[&str] = &[$(stringify!($field)),+];

        fn $reader(value: Value, path: &mut Path) -> Read<$ty> {
            let mut c = <$ty>::default();
            members(value, $names, path, |i, v, p| {
                match $names[i] {
                    $(stringify!($field) => c.$field = leaf(v, p)?,)+
                    _ => unreachable!("members gives an index into the names"),
                }
                Ok(())
            })?;
            Ok(c)
        }
    };
}

#[cfg(feature = "cluster")]
leaf_object!(
    cluster,
    CLUSTER,
    ClusterConfig,
    [
        brokers,
        replication_factor,
        min_insync_replicas,
        replica_lag_time_max_ticks,
        broker_session_timeout_ticks,
        unclean_leader_election,
        eligible_leader_replicas,
    ]
);

#[cfg(not(feature = "cluster"))]
fn cluster(_: Value, path: &mut Path) -> Read<ClusterConfig> {
    Err(refuse(path, &crate::config::NO_CLUSTER))
}

#[cfg(feature = "cluster")]
leaf_object!(
    delivery,
    DELIVERY,
    DeliverySettings,
    [
        acks,
        enable_idempotence,
        max_in_flight,
        linger_ticks,
        batch_records,
        retries,
        request_timeout_ticks,
        delivery_timeout_ticks,
        retry_backoff_ticks,
        retry_backoff_max_ticks,
        buffer_records,
    ]
);

#[cfg(not(feature = "cluster"))]
fn delivery(_: Value, path: &mut Path) -> Read<DeliverySettings> {
    Err(refuse(path, &crate::config::NO_CLUSTER))
}

#[cfg(feature = "transactions")]
leaf_object!(
    transactions,
    TRANSACTIONS,
    TransactionsConfig,
    [group, transaction_timeout_ticks, isolation_level, downstream_per_tick]
);

#[cfg(not(feature = "transactions"))]
fn transactions(_: Value, path: &mut Path) -> Read<TransactionsConfig> {
    Err(refuse(path, &crate::config::NO_TRANSACTIONS))
}

const COMMIT_MODE: &[&str] = &["after", "before", "each-record", "auto"];

fn commit_mode(value: Value, path: &mut Path) -> Read<CommitMode> {
    tagged(value, path, "mode", COMMIT_MODE, |variant_index, map, p| {
        let mut interval_ticks = 0;
        let fields: &'static [&'static str] = if variant_index == 3 { &["interval_ticks"] } else { &[] };
        variant(map, fields, 0, p, |_, v, p| {
            interval_ticks = leaf(v, p)?;
            Ok(())
        })?;
        Ok(match variant_index {
            0 => CommitMode::After,
            1 => CommitMode::Before,
            2 => CommitMode::EachRecord,
            _ => CommitMode::Auto { interval_ticks },
        })
    })
}

const POSITION_MODEL: &[&str] = &["group", "consumer"];

fn position_model(value: Value, path: &mut Path) -> Read<PositionModel> {
    tagged(value, path, "store", POSITION_MODEL, |variant_index, map, p| {
        if variant_index == 0 {
            variant(map, &[], 0, p, |_, _, _| Ok(()))?;
            return Ok(PositionModel::Group);
        }
        let (mut writes, mut write_ticks) = (None, 0);
        variant(map, &["writes", "write_ticks"], 0, p, |i, v, p| {
            match i {
                0 => writes = Some(leaf(v, p)?),
                _ => write_ticks = leaf(v, p)?,
            }
            Ok(())
        })?;
        Ok(PositionModel::Consumer { writes: writes.expect("writes is required"), write_ticks })
    })
}

const KEYLESS: &[&str] = &["sticky", "round-robin"];

fn keyless(value: Value, path: &mut Path) -> Read<KeylessStrategy> {
    tagged(value, path, "strategy", KEYLESS, |variant_index, map, p| {
        let mut batch_records = 0;
        let fields: &'static [&'static str] = if variant_index == 0 { &["batch_records"] } else { &[] };
        variant(map, fields, 0, p, |_, v, p| {
            batch_records = leaf(v, p)?;
            Ok(())
        })?;
        Ok(if variant_index == 0 {
            KeylessStrategy::Sticky { batch_records }
        } else {
            KeylessStrategy::RoundRobin
        })
    })
}

const RESET_SPEC: &[&str] = &["earliest", "latest", "offset", "shift-by"];

fn reset_spec(value: Value, path: &mut Path) -> Read<ResetSpec> {
    tagged(value, path, "to", RESET_SPEC, |variant_index, map, p| {
        let (mut partition, mut offset, mut by) = (None, 0, 0);
        let (fields, optional): (&'static [&'static str], u64) = match variant_index {
            2 => (&["partition", "offset"], 1),
            3 => (&["by"], 0),
            _ => (&[], 0),
        };
        variant(map, fields, optional, p, |i, v, p| {
            match (variant_index, i) {
                (2, 0) => partition = leaf(v, p)?,
                (2, _) => offset = leaf(v, p)?,
                _ => by = leaf(v, p)?,
            }
            Ok(())
        })?;
        Ok(match variant_index {
            0 => ResetSpec::Earliest,
            1 => ResetSpec::Latest,
            2 => ResetSpec::Offset { partition, offset },
            _ => ResetSpec::ShiftBy { by },
        })
    })
}

/// The inputs' names, in the order serde's messages list them.
const INPUTS: &[&str] = &[
    "send",
    "keep-sending",
    "use-keys",
    "key-count",
    "hot-key",
    "send-poison",
    "pause",
    "resume",
    "crash",
    "stop",
    "start",
    "add-consumer",
    "remove-consumer",
    "duplicate-instance",
    "stall",
    "records-per-poll",
    "handle-per-tick",
    "commit",
    "idempotent",
    "reset-offsets",
    "restart-from",
    "position-store",
    "peek",
    "load-checkpoint",
    "add-partitions",
    "kill-before-commit",
    "rolling-update",
    "assignor",
    "crash-broker",
    "restart-broker",
    "lose-next-ack",
    "lose-next-request",
    "slow-follower",
];

/// What an input's fields hold, whichever input it is.
#[derive(Default)]
struct InputFields {
    consumer: Option<ConsumerId>,
    group: Option<String>,
    number: u64,
    second: u64,
    on: bool,
    commit: Option<CommitMode>,
    reset: Option<ResetSpec>,
    position: Option<PositionModel>,
    assignor: Option<Assignor>,
    consumers: Vec<ConsumerId>,
}

/// An input's fields (serde's order) and which of them may be left out (bit `i`).
fn input_fields(variant: usize) -> (&'static [&'static str], u64) {
    match INPUTS[variant] {
        "send" | "add-partitions" => (&["count"], 0),
        "keep-sending" => (&["per_tick"], 0),
        "use-keys" => (&["on"], 0),
        "key-count" => (&["keys"], 0),
        "hot-key" => (&["share_percent"], 0),
        "send-poison" => (&[], 0),
        "pause" | "resume" | "crash" | "stop" | "start" | "remove-consumer" | "duplicate-instance"
        | "kill-before-commit" => (&["consumer"], 0),
        "add-consumer" => (&["group"], 1),
        "stall" => (&["consumer", "ticks"], 0),
        "records-per-poll" | "handle-per-tick" => (&["group", "records"], 1),
        "commit" => (&["group", "commit"], 1),
        "idempotent" => (&["group", "on"], 1),
        "reset-offsets" | "restart-from" => (&["group", "reset"], 1),
        "position-store" => (&["group", "position"], 1),
        "peek" => (&["advancing"], 0),
        "load-checkpoint" => (&["consumer", "partition", "offset"], 0),
        "rolling-update" => (&["group", "consumers"], 0b11),
        "assignor" => (&["group", "assignor"], 1),
        "crash-broker" | "restart-broker" => (&["broker"], 0),
        "lose-next-ack" | "lose-next-request" => (&["partition"], 0),
        _ => (&["broker", "fetch_per_tick"], 0),
    }
}

/// One input: `{"do": name, fields…}`.
pub(crate) fn input(value: Value, path: &mut Path) -> Read<Input> {
    tagged(value, path, "do", INPUTS, |variant_index, map, p| {
        let (fields, optional) = input_fields(variant_index);
        let mut f = InputFields::default();
        variant(map, fields, optional, p, |i, v, p| {
            match fields[i] {
                "consumer" => f.consumer = Some(consumer(v, p)?),
                "group" => f.group = leaf(v, p)?,
                "on" | "advancing" => f.on = leaf(v, p)?,
                "share_percent" => f.number = u64::from(leaf::<u8>(v, p)?),
                "ticks" | "offset" | "fetch_per_tick" => f.second = u64_(v, p)?,
                "commit" => f.commit = Some(commit_mode(v, p)?),
                "reset" => f.reset = Some(reset_spec(v, p)?),
                "position" => f.position = Some(position_model(v, p)?),
                "assignor" => f.assignor = Some(leaf(v, p)?),
                "consumers" => f.consumers = array(v, p, consumer)?,
                // `partition` of load-checkpoint is its first number.
                _ => f.number = u64::from(u32_(v, p)?),
            }
            Ok(())
        })?;
        Ok(build_input(INPUTS[variant_index], f))
    })
}

/// The input named `name` from fields already read and complete.
fn build_input(name: &str, f: InputFields) -> Input {
    let n32 = u32::try_from(f.number).expect("read as a u32");
    let consumer = || f.consumer.expect("consumer is required");
    let group = f.group.clone();
    match name {
        "send" => Input::Send { count: n32 },
        "keep-sending" => Input::KeepSending { per_tick: n32 },
        "use-keys" => Input::UseKeys { on: f.on },
        "key-count" => Input::KeyCount { keys: n32 },
        "hot-key" => Input::HotKey { share_percent: u8::try_from(f.number).expect("read as a u8") },
        "send-poison" => Input::SendPoison {},
        "pause" => Input::Pause { consumer: consumer() },
        "resume" => Input::Resume { consumer: consumer() },
        "crash" => Input::Crash { consumer: consumer() },
        "stop" => Input::Stop { consumer: consumer() },
        "start" => Input::Start { consumer: consumer() },
        "add-consumer" => Input::AddConsumer { group },
        "remove-consumer" => Input::RemoveConsumer { consumer: consumer() },
        "duplicate-instance" => Input::DuplicateInstance { consumer: consumer() },
        "stall" => Input::Stall { consumer: consumer(), ticks: f.second },
        "records-per-poll" => Input::RecordsPerPoll { group, records: n32 },
        "handle-per-tick" => Input::HandlePerTick { group, records: n32 },
        "commit" => Input::Commit { group, commit: f.commit.expect("commit is required") },
        "idempotent" => Input::Idempotent { group, on: f.on },
        "reset-offsets" => Input::ResetOffsets { group, reset: f.reset.expect("reset is required") },
        "restart-from" => Input::RestartFrom { group, reset: f.reset.expect("reset is required") },
        "position-store" => {
            Input::PositionStore { group, position: f.position.expect("position is required") }
        }
        "peek" => Input::Peek { advancing: f.on },
        "load-checkpoint" => Input::LoadCheckpoint { consumer: consumer(), partition: n32, offset: f.second },
        "add-partitions" => Input::AddPartitions { count: n32 },
        "kill-before-commit" => Input::KillBeforeCommit { consumer: consumer() },
        "rolling-update" => Input::RollingUpdate { group, consumers: f.consumers },
        "assignor" => Input::Assignor { group, assignor: f.assignor.expect("assignor is required") },
        "crash-broker" => Input::CrashBroker { broker: n32 },
        "restart-broker" => Input::RestartBroker { broker: n32 },
        "lose-next-ack" => Input::LoseNextAck { partition: n32 },
        "lose-next-request" => Input::LoseNextRequest { partition: n32 },
        _ => Input::SlowFollower { broker: n32, fetch_per_tick: f.second },
    }
}

/// A path as messages write it: `timeline[1].input.consumer`, empty at the top.
pub(crate) fn path_text(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Index(index) => out.push_str(&format!("[{index}]")),
            Step::Key(key) => super::join(&mut out, key),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! The readers against serde's derive: every built-in, and each of them
    //! altered at every value (another type, a field left out or added, an
    //! unknown name), read both ways: the same scenario, or the same error
    //! at the same path, line and column.

    use super::super::{read, read_derived};
    use crate::scenario::Scenario;
    use serde_json::{Map, Value, json};

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Values another value is replaced by.
    fn replacements() -> Vec<Value> {
        vec![
            Value::Null,
            json!(true),
            json!(7),
            json!(0),
            json!(-3),
            json!(1.5),
            json!(5_000_000_000u64),
            json!(300),
            json!("x"),
            json!("c1"),
            json!("c0"),
            json!([]),
            json!([1]),
            json!(["c2"]),
            json!({}),
            json!({ "do": "send" }),
            json!({ "do": "nope" }),
            json!({ "to": "offset", "offset": 1 }),
            json!({ "mode": "auto" }),
        ]
    }

    /// Every altered copy of `value`: `at` is the path to the part being altered.
    fn alterations(root: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        let mut paths = Vec::new();
        collect(root, &mut Vec::new(), &mut paths);
        for path in &paths {
            for replacement in replacements() {
                out.push(with(root, path, |v| *v = replacement.clone()));
            }
            let target = get(root, path);
            if let Value::Object(map) = target {
                for key in map.keys() {
                    out.push(with(root, path, |v| {
                        v.as_object_mut().expect("an object").remove(key);
                    }));
                    out.push(with(root, path, |v| {
                        let map = v.as_object_mut().expect("an object");
                        if let Some(Value::String(_)) = map.get(key) {
                            map.insert(key.clone(), json!("nope"));
                        }
                    }));
                }
                out.push(with(root, path, |v| {
                    v.as_object_mut().expect("an object").insert("bogus".into(), json!(1));
                }));
                out.push(with(root, path, |v| {
                    v.as_object_mut().expect("an object").insert("a".into(), json!(null));
                }));
            }
            if let Value::Array(items) = target
                && let Some(first) = items.first()
            {
                let first = first.clone();
                out.push(with(root, path, |v| v.as_array_mut().expect("an array").push(first.clone())));
            }
        }
        out
    }

    #[derive(Clone)]
    enum At {
        Key(String),
        Index(usize),
    }

    fn collect(value: &Value, at: &mut Vec<At>, out: &mut Vec<Vec<At>>) {
        out.push(at.clone());
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    at.push(At::Key(key.clone()));
                    collect(v, at, out);
                    at.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    at.push(At::Index(i));
                    collect(v, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }

    fn get<'a>(value: &'a Value, path: &[At]) -> &'a Value {
        path.iter().fold(value, |v, step| match step {
            At::Key(k) => &v[k.as_str()],
            At::Index(i) => &v[*i],
        })
    }

    fn with(root: &Value, path: &[At], change: impl FnOnce(&mut Value)) -> Value {
        let mut copy = root.clone();
        let mut v = &mut copy;
        for step in path {
            v = match step {
                At::Key(k) => &mut v[k.as_str()],
                At::Index(i) => &mut v[*i],
            };
        }
        change(v);
        copy
    }

    fn agree(text: &str) {
        let ours = read(text, super::scenario);
        let serde = read_derived::<Scenario>(text);
        assert_eq!(ours, serde, "the readers differ on:\n{text}");
    }

    /// Every built-in and every alteration of it, pretty and on one line.
    #[test]
    fn readers_agree_with_serde_derive() {
        let mut cases = 0;
        for (name, text) in crate::BUILTINS {
            agree(text);
            let root: Value = serde_json::from_str(text).expect(name);
            for altered in alterations(&root) {
                agree(&serde_json::to_string_pretty(&altered).expect("json"));
                agree(&serde_json::to_string(&altered).expect("json"));
                cases += 2;
            }
        }
        assert!(cases > 10_000, "{cases} cases");
    }

    /// Sections at the top level, a single group's settings, and a tagged
    /// value inside a tagged value.
    #[test]
    fn readers_agree_on_configs() {
        let config = |c: Value| json!({ "name": "t", "config": c }).to_string();
        let mut texts = vec![
            config(json!({ "consumers": 3, "groups": [{}] })),
            config(json!({ "consumers": null, "groups": [{}] })),
            config(json!({ "commit": null })),
            config(json!({ "groups": [{ "commit": null }] })),
            config(json!({ "cluster": null })),
            config(json!({ "cluster": {} })),
            config(json!({ "cluster": { "brokers": "x" } })),
            config(json!({ "transactions": null })),
            config(json!({ "transactions": { "isolation_level": "dirty" } })),
            config(json!({ "producer": { "delivery": null } })),
            config(json!({ "producer": { "delivery": { "acks": "2" } } })),
            config(json!({ "producer": { "keyless": { "strategy": "sticky" } } })),
            config(json!({ "position": { "store": "consumer", "writes": "torn", "write_ticks": 1 } })),
            config(json!({ "groups": [{ "position": { "store": "group", "x": 1 } }] })),
        ];
        let mut input = Map::new();
        input.insert("do".into(), json!("reset-offsets"));
        input.insert("reset".into(), json!({ "to": "offset", "partition": -1, "offset": 2 }));
        texts.push(json!({ "name": "t", "timeline": [{ "tick": 0, "input": input }] }).to_string());
        for text in texts {
            agree(&text);
        }
    }
}

// proptest is a native dev-dependency.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    //! Scenarios made up from the format's own words, nested at random: the
    //! readers and serde's derive still agree.

    use super::super::{read, read_derived};
    use super::{CONFIG, GROUP, INPUTS, TIMED_INPUT};
    use crate::scenario::Scenario;
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    /// Keys: the format's field names and tags, and one it does not know.
    fn key() -> impl Strategy<Value = String> {
        let mut words: Vec<&str> = CONFIG.iter().chain(GROUP).chain(TIMED_INPUT).copied().collect();
        words.extend([
            "do",
            "to",
            "mode",
            "store",
            "strategy",
            "count",
            "consumer",
            "ticks",
            "reset",
            "offset",
            "partition",
            "writes",
            "write_ticks",
            "batch_records",
            "interval_ticks",
            "by",
            "consumers",
            "on",
            "records",
            "name",
            "guide",
            "topic",
            "story",
            "outcome",
            "when",
            "says",
            "metric",
            "at_least",
            "bogus",
        ]);
        proptest::sample::select(words).prop_map(str::to_string)
    }

    fn leaf() -> impl Strategy<Value = Value> {
        let mut names: Vec<&str> = INPUTS.to_vec();
        names.extend([
            "c1", "c0", "after", "auto", "consumer", "group", "atomic", "offset", "sticky", "lag", "range",
        ]);
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0u64..400).prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-5i64..0).prop_map(Value::from),
            Just(json!(0.5)),
            proptest::sample::select(names).prop_map(Value::from),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((key(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// A scenario's outline with made-up parts where the format has its own.
    fn scenario() -> impl Strategy<Value = Value> {
        (value(), value(), proptest::collection::vec((key(), value()), 0..4), any::<bool>()).prop_map(
            |(config, input, extra, named)| {
                let mut top = Map::new();
                if named {
                    top.insert("name".into(), json!("t"));
                }
                top.insert("config".into(), config);
                top.insert("timeline".into(), json!([{ "tick": 0, "input": input }]));
                top.extend(extra);
                Value::Object(top)
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn readers_agree_on_made_up_scenarios(v in scenario(), pretty in any::<bool>()) {
            let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }
                .expect("json");
            prop_assert_eq!(read(&text, super::scenario), read_derived::<Scenario>(&text), "{}", text);
        }
    }
}
