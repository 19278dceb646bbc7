//! Shareable links: a scenario (a built-in by name, or inline), a seed, a
//! tick, and the inputs the user made, as a short URL query string:
//!
//! ```text
//! h=399unkatl8t5u&s=crash-commit-after&g=1&seed=4&t=120&in=3.crash.c1_2.send.10
//! ```
//!
//! - `h`: a checksum (FNV-1a 64, base36) over the other parameters, so a link
//!   that was edited or cut short is refused instead of replaying something
//!   else. It comes first: a link cut anywhere keeps a checksum that no longer
//!   matches. Required with `in` or `j`; hand-written links without inputs
//!   (`?scenario=keys-keep-order&seed=3`) need none.
//! - `s` a built-in's name (`scenario` is accepted too), `g=1` its guided run;
//!   or `j`, an inline scenario: its compact JSON in base64url.
//! - `seed`, `t` (the tick the link shows; absent: 0).
//! - `in`: inputs separated by `_`, each `delta.name.args`: the ticks since
//!   the previous input (the first counts from 0), the input's JSON name, and
//!   its fields in the order of the JSON, separated by `.`: consumers as `c1`,
//!   booleans as `1`/`0`, lists of consumers joined with `+`, a reset as one
//!   token (`earliest`, `latest`, `o120`, `o120p2` for partition 2, `s-5`),
//!   a commit mode as `after`, `before`, `each-record` or `auto5`, a position
//!   store as `group` or `consumer-atomic-3` / `consumer-in-place-3`; the
//!   group an input names, when it names one, last as `@name`
//!   (`2.add-consumer.@audit`).
//!
//! Inputs reuse the scenario format: an input is written to its JSON object
//! (serde) and its fields become the tokens; the tokens become that object
//! again and are read by the same `Deserialize` that reads scenario files, so
//! the two formats cannot drift apart. `INPUTS` only says each field's kind
//! of token. base64url and percent-encoding come from their crates.
//!
//! Reading never panics and is bounded: the query is at most
//! [`QUERY_BYTES_MAX`] bytes, at most [`TIMELINE_INPUTS_MAX`] inputs, ticks at
//! most [`SCENARIO_TICKS_MAX`].

use super::builtins::builtin;
use super::quoted;
use crate::input::Input;
use crate::limits::{SCENARIO_TICKS_MAX, TIMELINE_INPUTS_MAX};
use crate::scenario::{Scenario, ScenarioError};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use serde_json::{Map, Value};
use std::fmt;

/// Bytes a link's query may have. Browsers and servers cope with 64 KiB; an
/// inline scenario of about 48 KiB of compact JSON fits.
pub const QUERY_BYTES_MAX: usize = 64 * 1024;
// The error message says the bound.
const _: () = assert!(QUERY_BYTES_MAX == 65_536);

/// Characters of the user's text an error quotes.
const QUOTED_CHARS_MAX: usize = 60;

/// What a link reproduces: a scenario, a seed, the inputs made so far, and
/// the tick to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub scenario: LinkScenario,
    pub seed: u64,
    /// The tick the link shows; every input's tick is at most this.
    pub tick: u64,
    /// The user's inputs and the tick each was made at, in tick order.
    pub inputs: Vec<(u64, Input)>,
}

/// The scenario a link starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkScenario {
    /// A built-in by name; `guided` leaves out the learner's inputs ([`Scenario::guided`]).
    Builtin { name: String, guided: bool },
    /// A scenario carried in the link itself (`j=`).
    Inline(Box<Scenario>),
}

impl LinkScenario {
    /// The scenario itself, and whether the link shows its guided run. A
    /// built-in's name was checked when the link was read.
    pub fn resolve(self) -> Result<(Scenario, bool), LinkError> {
        match self {
            LinkScenario::Builtin { name, guided } => {
                builtin(&name).map(|s| (s, guided)).map_err(|e| LinkError::Invalid(e.to_string()))
            }
            LinkScenario::Inline(scenario) => Ok((*scenario, false)),
        }
    }
}

/// Why a link cannot be read.
#[derive(Clone, PartialEq, Eq)]
pub enum LinkError {
    /// The checksum does not match, or is missing where it is required: the
    /// link was edited or cut short. Says which.
    Changed(&'static str),
    /// Neither `s` (`scenario`) nor `j`: nothing to load.
    NoScenario,
    /// Anything else, naming the parameter or the input: `seed: not a number`,
    /// `unknown scenario "x"`, `input 3 ("crash.c99x"): consumer: …`.
    Invalid(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Changed(why) => write!(f, "the link was changed or cut short ({why})"),
            LinkError::NoScenario => f.write_str("the link names no scenario (s= or j=)"),
            LinkError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for LinkError {}

/// `Debug` is the message: an `expect` or a failed test shows the sentence,
/// and the page carries no derived formatting for the error's strings.
impl std::fmt::Debug for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// The parameters a link has, in the order `to_query` writes them and the
/// checksum reads them; then the checksum itself.
const KEYS: [&str; 7] = ["s", "g", "j", "seed", "t", "in", "h"];

impl Link {
    /// The query string (no leading `?`), checksum first. The page checks its
    /// length against [`QUERY_BYTES_MAX`] (a long inline scenario may not fit).
    ///
    /// # Panics
    /// If the inputs are not in tick order or one is after [`Link::tick`]: the
    /// link would not read back. The page records inputs as they happen, in order.
    #[must_use]
    pub fn to_query(&self) -> String {
        let mut values: [Option<String>; 6] = Default::default();
        match &self.scenario {
            LinkScenario::Builtin { name, guided } => {
                values[0] = Some(name.clone());
                values[1] = guided.then(|| "1".into());
            }
            LinkScenario::Inline(scenario) => {
                values[2] = Some(URL_SAFE_NO_PAD.encode(scenario.to_json_compact()));
            }
        }
        values[3] = Some(self.seed.to_string());
        values[4] = Some(self.tick.to_string());
        if !self.inputs.is_empty() {
            values[5] = Some(inputs_text(&self.inputs, self.tick));
        }
        // The checksum goes first: any cut then leaves it present and wrong.
        let mut query = format!("h={}", checksum(&values));
        for (name, value) in KEYS.iter().zip(&values) {
            if let Some(value) = value {
                query.push('&');
                query.push_str(name);
                query.push('=');
                query.extend(utf8_percent_encode(value, QUERY_VALUE));
            }
        }
        query
    }

    /// Reads a query string, with or without the leading `?`. Unknown
    /// parameters are ignored (the page adds its own, like `embed=1`).
    pub fn parse_query(query: &str) -> Result<Link, LinkError> {
        if query.len() > QUERY_BYTES_MAX {
            return Err(LinkError::Invalid("the link is longer than 64 KiB".into()));
        }
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut values: [Option<String>; 7] = Default::default();
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = percent_decode(key).unwrap_or_default();
            let key = if key == "scenario" { "s" } else { &key };
            let Some(i) = KEYS.iter().position(|k| *k == key) else { continue };
            let value =
                percent_decode(value).ok_or_else(|| bad(key, "bad percent-encoding (or not ASCII)"))?;
            if values[i].replace(value).is_some() {
                return Err(bad(key, "given twice"));
            }
        }
        let [s, g, j, seed, t, inputs, h] = values;
        let covered = [s, g, j, seed, t, inputs];
        match h {
            Some(h) if h != checksum(&covered) => return Err(LinkError::Changed("checksum mismatch")),
            None if covered[2].is_some() || covered[5].is_some() => {
                return Err(LinkError::Changed("no checksum h="));
            }
            _ => {}
        }
        let [s, g, j, seed, t, inputs] = covered;
        let guided = match g.as_deref() {
            None | Some("0") => false,
            Some("1") if j.is_none() => true,
            Some(_) => return Err(bad("g", "expected 1 or 0, with s=")),
        };
        let scenario = match (s, j) {
            (Some(name), None) => match builtin(&name) {
                Ok(_) => LinkScenario::Builtin { name, guided },
                Err(ScenarioError::UnknownBuiltin(_)) => {
                    return Err(LinkError::Invalid(format!("unknown scenario {}", quoted(&clip(&name)))));
                }
                // Not loaded yet (the page, before its fetch), or a given text that does not read.
                Err(e) => return Err(LinkError::Invalid(e.to_string())),
            },
            (None, Some(encoded)) => {
                // `to_json_compact` writes ASCII: anything else is not a link's.
                let text: String = URL_SAFE_NO_PAD
                    .decode(&encoded)
                    .ok()
                    .filter(|b| b.is_ascii())
                    .ok_or_else(|| bad("j", "not base64url of ASCII JSON"))?
                    .into_iter()
                    .map(char::from)
                    .collect();
                let scenario = Scenario::parse(&text).map_err(|e| bad("j", &e.to_string()))?;
                LinkScenario::Inline(Box::new(scenario))
            }
            (Some(_), Some(_)) => return Err(bad("j", "give s= or j=, not both")),
            (None, None) => return Err(LinkError::NoScenario),
        };
        let seed = match seed {
            Some(text) => digits(&text).ok_or_else(|| bad("seed", "not a number"))?,
            None => match &scenario {
                LinkScenario::Builtin { name, .. } => builtin(name).map_or(0, |b| b.config.seed),
                LinkScenario::Inline(s) => s.config.seed,
            },
        };
        // The message says the bound.
        const _: () = assert!(SCENARIO_TICKS_MAX == 10_000_000);
        let tick = match t {
            Some(text) => digits(&text)
                .filter(|t| *t <= SCENARIO_TICKS_MAX)
                .ok_or_else(|| bad("t", "not a number from 0 to 10000000"))?,
            None => 0,
        };
        let inputs = match inputs {
            Some(text) if !text.is_empty() => read_inputs(&text, tick).map_err(LinkError::Invalid)?,
            _ => Vec::new(),
        };
        Ok(Link { scenario, seed, tick, inputs })
    }
}

/// `{what}: {message}`.
fn bad(what: &str, message: &str) -> LinkError {
    LinkError::Invalid(format!("{what}: {message}"))
}

/// At most [`QUOTED_CHARS_MAX`] characters of `text`, for an error message.
fn clip(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS_MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// FNV-1a 64 over `name=value&` of each present parameter, in base36. Over the
/// decoded values, so a browser re-encoding the query does not break it.
fn checksum(values: &[Option<String>; 6]) -> String {
    let present = KEYS.iter().zip(values).filter_map(|(name, value)| Some((name, value.as_ref()?)));
    let mut hash = super::fnv1a_64(
        present.flat_map(|(name, value)| name.bytes().chain(*b"=").chain(value.bytes()).chain(*b"&")),
    );
    let mut digits = Vec::new();
    loop {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(hash % 36) as usize]);
        hash /= 36;
        if hash == 0 {
            break;
        }
    }
    digits.iter().rev().map(|&d| d as char).collect()
}

/// A decimal `u64`: 1 to 20 ASCII digits, nothing else (no sign, no spaces).
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

// ---------------------------------------------------------------- inputs
//
// An input's arguments are its JSON fields in [`INPUTS`] order, each as one
// token. Writing goes input → JSON (serde) → tokens; reading goes tokens →
// JSON → the scenario format's `Deserialize`. Arguments that are objects (a
// reset, a commit mode, a position store) are written short, by [`Tagged`].

/// What one argument's token stands for in the input's JSON.
#[derive(Debug, Clone, Copy)]
enum Arg {
    /// `1` or `0`.
    Bool,
    /// A non-negative integer (its type's range is serde's to check).
    Uint,
    /// An integer, `-` allowed.
    Int,
    /// A string as it is: a consumer, an assignor, a checkpoint's writes.
    Text,
    /// Consumers joined with `+`.
    Consumers,
    /// An internally tagged object in one token.
    Tagged(&'static Tagged),
}

/// An internally tagged enum as one token: its tag, the variants without
/// fields (written as their name), and the others by [`Short`].
#[derive(Debug)]
struct Tagged {
    tag: &'static str,
    plain: &'static [&'static str],
    short: &'static [Short],
    /// What the token may be, for error messages.
    forms: &'static str,
}

/// A variant with fields as one token: its name, its token prefix, its first
/// field, and the separator before its optional second field.
#[derive(Debug)]
struct Short {
    name: &'static str,
    prefix: &'static str,
    first: (&'static str, Arg),
    second: Option<(char, &'static str, Arg)>,
}

const RESET: Arg = Arg::Tagged(&Tagged {
    tag: "to",
    plain: &["earliest", "latest"],
    short: &[
        Short {
            name: "offset",
            prefix: "o",
            first: ("offset", Arg::Uint),
            second: Some(('p', "partition", Arg::Uint)),
        },
        Short { name: "shift-by", prefix: "s", first: ("by", Arg::Int), second: None },
    ],
    forms: "earliest, latest, o<offset>, o<offset>p<partition> or s<shift>",
});
const COMMIT: Arg = Arg::Tagged(&Tagged {
    tag: "mode",
    plain: &["after", "before", "each-record"],
    short: &[Short { name: "auto", prefix: "auto", first: ("interval_ticks", Arg::Uint), second: None }],
    forms: "after, before, each-record or auto<interval ticks>",
});
const POLICY: Arg = Arg::Tagged(&Tagged {
    tag: "policy",
    plain: &["skip"],
    short: &[
        Short { name: "retry-forever", prefix: "forever", first: ("backoff_ticks", Arg::Uint), second: None },
        Short {
            name: "retry-then-dead-letter",
            prefix: "dlt",
            first: ("retries", Arg::Uint),
            second: Some(('b', "backoff_ticks", Arg::Uint)),
        },
        Short {
            name: "retry-topics",
            prefix: "topics",
            first: ("levels", Arg::Uint),
            second: Some(('d', "delay_ticks", Arg::Uint)),
        },
    ],
    forms: "skip, forever<backoff ticks>, dlt<retries>b<backoff ticks>, dlt<retries> or topics<levels>d<delay ticks>",
});
const POSITION: Arg = Arg::Tagged(&Tagged {
    tag: "store",
    plain: &["group"],
    short: &[Short {
        name: "consumer",
        prefix: "consumer-",
        first: ("writes", Arg::Text),
        second: Some(('-', "write_ticks", Arg::Uint)),
    }],
    forms: "group or consumer-<atomic|in-place>-<write ticks>",
});
const CONSUMER: (&str, Arg) = ("consumer", Arg::Text);

/// Each input's JSON name (tag `"do"`) and its fields, in the order of the
/// JSON: the order of a link's arguments.
const INPUTS: &[(&str, &[(&str, Arg)])] = &[
    ("send", &[("count", Arg::Uint)]),
    ("send-poison", &[]),
    ("send-failing", &[("failures", Arg::Uint), ("after_effect", Arg::Bool)]),
    ("fix-handler", &[]),
    ("replay-dead-letters", &[]),
    ("error-policy", &[("error_policy", POLICY)]),
    ("keep-sending", &[("per_tick", Arg::Uint)]),
    ("use-keys", &[("on", Arg::Bool)]),
    ("key-count", &[("keys", Arg::Uint)]),
    ("hot-key", &[("share_percent", Arg::Uint)]),
    ("pause", &[CONSUMER]),
    ("resume", &[CONSUMER]),
    ("crash", &[CONSUMER]),
    ("stop", &[CONSUMER]),
    ("start", &[CONSUMER]),
    ("add-consumer", &[]),
    ("remove-consumer", &[CONSUMER]),
    ("records-per-poll", &[("records", Arg::Uint)]),
    ("handle-per-tick", &[("records", Arg::Uint)]),
    ("commit", &[("commit", COMMIT)]),
    ("idempotent", &[("on", Arg::Bool)]),
    ("reset-offsets", &[("reset", RESET)]),
    ("restart-from", &[("reset", RESET)]),
    ("position-store", &[("position", POSITION)]),
    ("peek", &[("advancing", Arg::Bool)]),
    ("load-checkpoint", &[CONSUMER, ("partition", Arg::Uint), ("offset", Arg::Uint)]),
    ("add-partitions", &[("count", Arg::Uint)]),
    ("kill-before-commit", &[CONSUMER]),
    ("rolling-update", &[("consumers", Arg::Consumers)]),
    ("assignor", &[("assignor", Arg::Text)]),
    ("duplicate-instance", &[CONSUMER]),
    ("stall", &[CONSUMER, ("ticks", Arg::Uint)]),
    ("crash-broker", &[("broker", Arg::Uint)]),
    ("restart-broker", &[("broker", Arg::Uint)]),
    ("lose-next-ack", &[("partition", Arg::Uint)]),
    ("lose-next-request", &[("partition", Arg::Uint)]),
    ("slow-follower", &[("broker", Arg::Uint), ("fetch_per_tick", Arg::Uint)]),
];

fn inputs_text(inputs: &[(u64, Input)], last: u64) -> String {
    let mut out = String::new();
    let mut previous = 0;
    for (tick, input) in inputs {
        assert!(
            *tick >= previous && *tick <= last,
            "a link's inputs are in tick order, at or before its tick"
        );
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(&(tick - previous).to_string());
        let json = super::to_value(input);
        // `.name.arg.arg`: the tag first, then the fields in the format's order
        // (absent ones are defaults: an empty list, only ever last).
        let name = json.get("do").and_then(Value::as_str).unwrap_or_default();
        out.push('.');
        out.push_str(name);
        let fields = INPUTS.iter().find(|(n, _)| *n == name).map_or(&[][..], |(_, f)| f);
        for (field, arg) in fields {
            let token = json.get(field).map_or(String::new(), |value| token_of(value, *arg));
            if !token.is_empty() {
                out.push('.');
                out.push_str(&token);
            }
        }
        if let Some(group) = json.get("group").and_then(Value::as_str) {
            // Group names have no `.`, `_` or `@` (config validation): one token.
            out.push_str(".@");
            out.push_str(group);
        }
        previous = *tick;
    }
    out
}

/// A value as one token: a number, a name, `1`/`0`, `c1+c2`, or a short object.
fn token_of(value: &Value, arg: Arg) -> String {
    match (value, arg) {
        (Value::Bool(b), _) => if *b { "1" } else { "0" }.into(),
        (Value::Number(n), _) => n.to_string(),
        (Value::String(s), _) => s.clone(),
        (Value::Array(items), _) => {
            let tokens: Vec<String> = items.iter().map(|item| token_of(item, Arg::Text)).collect();
            tokens.join("+")
        }
        (Value::Object(members), Arg::Tagged(tagged)) => {
            let name = members.get(tagged.tag).and_then(Value::as_str).unwrap_or_default();
            match tagged.short.iter().find(|short| short.name == name) {
                None => name.to_string(),
                Some(short) => {
                    let field = |key: &str, arg| members.get(key).map_or(String::new(), |v| token_of(v, arg));
                    let mut out = short.prefix.to_string();
                    out.push_str(&field(short.first.0, short.first.1));
                    if let Some((separator, key, arg)) = short.second {
                        let token = field(key, arg);
                        if !token.is_empty() {
                            out.push(separator);
                            out.push_str(&token);
                        }
                    }
                    out
                }
            }
        }
        (Value::Object(_) | Value::Null, _) => String::new(),
    }
}

fn read_inputs(text: &str, last: u64) -> Result<Vec<(u64, Input)>, String> {
    let count = text.split('_').count();
    if count > TIMELINE_INPUTS_MAX {
        return Err(format!("in: at most {TIMELINE_INPUTS_MAX} inputs, got {count}"));
    }
    let mut inputs = Vec::with_capacity(count);
    let mut tick: u64 = 0;
    for (i, item) in text.split('_').enumerate() {
        let (delta, rest) = item.split_once('.').unwrap_or((item, ""));
        let read = match digits(delta) {
            None => Err(format!("the tick delta {} is not a number", quoted(&clip(delta)))),
            // `last` is at most SCENARIO_TICKS_MAX: saturating cannot hide a tick that fits.
            Some(delta) if tick.saturating_add(delta) > last => {
                Err(format!("its tick {} is after the link's tick t={last}", tick.saturating_add(delta)))
            }
            Some(delta) => {
                tick += delta;
                input_of(rest)
            }
        };
        let quoted = if digits(delta).is_some() { rest } else { item };
        match read {
            Ok(input) => inputs.push((tick, input)),
            Err(message) => {
                return Err(format!("input {} ({}): {message}", i + 1, super::quoted(&clip(quoted))));
            }
        }
    }
    Ok(inputs)
}

/// `name.arg.arg` → the input's JSON → the scenario format's reader.
fn input_of(text: &str) -> Result<Input, String> {
    let mut parts = text.split('.');
    let name = parts.next().unwrap_or_default();
    let Some((name, fields)) = INPUTS.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = INPUTS.iter().map(|(n, _)| *n).collect();
        return Err(format!("unknown input {}; the inputs are {}", quoted(&clip(name)), names.join(", ")));
    };
    let mut args: Vec<&str> = parts.collect();
    let group = args.last().and_then(|last| last.strip_prefix('@')).map(str::to_string);
    if group.is_some() {
        args.pop();
    }
    if args.len() > fields.len() {
        let given = args.len();
        return Err(format!("{name} takes {} argument(s), got {given}", fields.len()));
    }
    let mut json = Map::new();
    json.insert("do".into(), Value::String((*name).into()));
    for ((field, arg), text) in fields.iter().zip(args) {
        let value = value_of(*arg, text).map_err(|message| format!("{field}: {message}"))?;
        json.insert((*field).into(), value);
    }
    if let Some(group) = group {
        json.insert("group".into(), Value::String(group));
    }
    super::read_value(Value::Object(json))
        .map_err(|(path, message)| if path.is_empty() { message } else { format!("{path}: {message}") })
}

/// One argument's token as the JSON value it stands for.
fn value_of(arg: Arg, text: &str) -> Result<Value, String> {
    let bad = |expected: &str| format!("expected {expected}, got {}", quoted(&clip(text)));
    match arg {
        Arg::Bool if text == "1" || text == "0" => Ok(Value::Bool(text == "1")),
        Arg::Bool => Err(bad("1 or 0")),
        Arg::Uint => digits(text).map(Value::from).ok_or_else(|| bad("a number")),
        Arg::Int => match (text.strip_prefix('-'), digits(text.strip_prefix('-').unwrap_or(text))) {
            (None, Some(n)) => i64::try_from(n).map(Value::from).map_err(|_| bad("a 64-bit integer")),
            (Some(_), Some(n)) => {
                0i64.checked_sub_unsigned(n).map(Value::from).ok_or_else(|| bad("a 64-bit integer"))
            }
            (_, None) => Err(bad("a number")),
        },
        // `+` may have become a space on the way (form decoding).
        Arg::Consumers => Ok(Value::Array(text.split(['+', ' ']).map(|c| Value::String(c.into())).collect())),
        Arg::Tagged(tagged) => tagged_of(tagged, text).ok_or_else(|| bad(tagged.forms)),
        // Names, consumers: as they are; the format's reader checks them.
        Arg::Text => Ok(Value::String(text.into())),
    }
}

/// A short token (`o120p2`, `auto5`, `group`) as its tagged object.
fn tagged_of(tagged: &Tagged, text: &str) -> Option<Value> {
    let mut object = Map::new();
    if let Some(name) = tagged.plain.iter().find(|name| **name == text) {
        object.insert(tagged.tag.into(), Value::String((*name).into()));
        return Some(Value::Object(object));
    }
    let short = tagged.short.iter().find(|short| text.starts_with(short.prefix))?;
    object.insert(tagged.tag.into(), Value::String(short.name.into()));
    let rest = &text[short.prefix.len()..];
    let (rest, tail) = match short.second {
        Some((separator, key, arg)) => match rest.rsplit_once(separator) {
            Some((rest, tail)) => (rest, Some((key, arg, tail))),
            None => (rest, None),
        },
        None => (rest, None),
    };
    for (key, arg, text) in [Some((short.first.0, short.first.1, rest)), tail].into_iter().flatten() {
        object.insert(key.into(), value_of(arg, text).ok()?);
    }
    Some(Value::Object(object))
}

// ---------------------------------------------------------------- encodings

/// Bytes a query value escapes: all but RFC 3986's unreserved characters and
/// `+`, which joins consumers.
const QUERY_VALUE: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'+');

/// `%XX` decoded; `None` for a bad escape or one that is not ASCII. Stricter
/// than `percent_decode_str`, which keeps a bad escape as it is: links are
/// ASCII, and a broken one is refused rather than read as something else.
fn percent_decode(text: &str) -> Option<String> {
    for part in text.split('%').skip(1) {
        let hex = part.get(..2).filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))?;
        u8::from_str_radix(hex, 16).ok().filter(u8::is_ascii)?;
    }
    // Every escape is ASCII and the rest is the text's own: UTF-8.
    percent_decode_str(text).decode_utf8().ok().map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Every input has its entry: a link with one it lacks is written and then refused.
    #[test]
    fn every_input_has_its_fields_listed() {
        let mut listed: Vec<&str> = INPUTS.iter().map(|(name, _)| *name).collect();
        let mut names = Input::NAMES.to_vec();
        listed.sort_unstable();
        names.sort_unstable();
        assert_eq!(listed, names);
    }

    #[test]
    fn base64url_as_links_use_it() {
        let data: Vec<u8> = (0..=255).collect();
        for len in 0..40 {
            let encoded = URL_SAFE_NO_PAD.encode(&data[..len]);
            assert_eq!(utf8_percent_encode(&encoded, QUERY_VALUE).to_string(), encoded, "URL-safe as it is");
            assert_eq!(URL_SAFE_NO_PAD.decode(&encoded).ok().as_deref(), Some(&data[..len]), "{len}");
        }
        assert_eq!(URL_SAFE_NO_PAD.encode(b"hello?"), "aGVsbG8_");
        assert!(URL_SAFE_NO_PAD.decode("a").is_err());
        assert!(URL_SAFE_NO_PAD.decode("aGV=").is_err());
    }

    #[test]
    fn percent_codec() {
        let out = utf8_percent_encode("a b&c=+", QUERY_VALUE).to_string();
        assert_eq!(out, "a%20b%26c%3D+");
        assert_eq!(percent_decode(&out).as_deref(), Some("a b&c=+"));
        assert_eq!(percent_decode("é%41").as_deref(), Some("éA"), "unescaped text as it is");
        assert_eq!(percent_decode("%"), None);
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%+1"), None);
        assert_eq!(percent_decode("%C3%A9"), None, "escapes stand for ASCII only");
    }

    #[test]
    fn numbers_are_strict() {
        assert_eq!(digits("18446744073709551615"), Some(u64::MAX));
        assert_eq!(digits("18446744073709551616"), None);
        assert_eq!(digits("+4"), None);
        assert_eq!(digits(""), None);
    }
}
