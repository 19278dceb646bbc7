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
//!   store as `group` or `consumer-atomic-3` / `consumer-in-place-3`.
//!
//! Inputs reuse the scenario codec: the arguments become the input's JSON
//! object and are read by the same code that reads scenario files, so the
//! two formats cannot drift apart. Hand-written, like the rest of the codec,
//! because the page has a size budget serde does not fit in.
//!
//! Reading never panics and is bounded: the query is at most
//! [`QUERY_BYTES_MAX`] bytes, at most [`TIMELINE_INPUTS_MAX`] inputs, ticks at
//! most [`SCENARIO_TICKS_MAX`].

use super::json::{Kind, Member, Value};
use super::scenario::{INPUTS, input, input_value, variant};
use crate::input::Input;
use crate::scenario::{SCENARIO_TICKS_MAX, Scenario, ScenarioError, TIMELINE_INPUTS_MAX, builtin};
use std::fmt;

/// Bytes a link's query may have. Browsers and servers cope with 64 KiB; an
/// inline scenario of about 48 KiB of compact JSON fits.
pub const QUERY_BYTES_MAX: usize = 64 * 1024;

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

/// Why a link cannot be read. Each names the parameter or the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// The query is longer than [`QUERY_BYTES_MAX`].
    TooLong {
        bytes: usize,
    },
    /// `h` does not match the other parameters.
    ChecksumMismatch,
    /// `in` or `j` without `h`.
    NoChecksum,
    /// Neither `s` (`scenario`) nor `j`.
    NoScenario,
    UnknownScenario(String),
    /// A parameter's value: `seed: not a number`.
    Param {
        name: &'static str,
        message: String,
    },
    /// One of the inputs (counted from 1), its text without the tick delta, and what is wrong.
    Input {
        number: usize,
        text: String,
        message: String,
    },
    /// The inline scenario (`j`) does not read or validate.
    Scenario(ScenarioError),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::TooLong { bytes } => {
                write!(f, "the link is too long: {bytes} bytes, at most {QUERY_BYTES_MAX}")
            }
            LinkError::ChecksumMismatch => write!(f, "the link was changed or cut short (checksum mismatch)"),
            LinkError::NoChecksum => write!(f, "the link was changed or cut short (no checksum h=)"),
            LinkError::NoScenario => write!(f, "the link names no scenario (s= or j=)"),
            LinkError::UnknownScenario(name) => write!(f, "unknown scenario {name:?}"),
            LinkError::Param { name, message } => write!(f, "{name}: {message}"),
            LinkError::Input { number, text, message } => write!(f, "input {number} ({text:?}): {message}"),
            LinkError::Scenario(e) => write!(f, "the link's scenario (j=): {e}"),
        }
    }
}

impl std::error::Error for LinkError {}

/// The parameters a link has, in the order `to_query` writes them and the checksum reads them.
const PARAMS: [&str; 6] = ["s", "g", "j", "seed", "t", "in"];
/// Every parameter a link reads: [`PARAMS`] and the checksum.
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
                values[1] = guided.then(|| "1".to_string());
            }
            LinkScenario::Inline(scenario) => {
                values[2] = Some(base64url_encode(scenario.to_json_compact().as_bytes()))
            }
        }
        values[3] = Some(self.seed.to_string());
        values[4] = Some(self.tick.to_string());
        if !self.inputs.is_empty() {
            values[5] = Some(inputs_text(&self.inputs, self.tick));
        }
        // The checksum goes first: any cut then leaves it present and wrong.
        let mut query = format!("h={}", checksum(&values));
        for (name, value) in PARAMS.iter().zip(&values) {
            if let Some(value) = value {
                query.push('&');
                query.push_str(name);
                query.push('=');
                percent_encode(&mut query, value);
            }
        }
        query
    }

    /// Reads a query string, with or without the leading `?`. Unknown
    /// parameters are ignored (the page adds its own, like `embed=1`).
    pub fn parse_query(query: &str) -> Result<Link, LinkError> {
        if query.len() > QUERY_BYTES_MAX {
            return Err(LinkError::TooLong { bytes: query.len() });
        }
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut values: [Option<String>; 6] = Default::default();
        let mut given_h = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let Some(key) = percent_decode(key) else { continue };
            let key = if key == "scenario" { "s" } else { key.as_str() };
            let Some(i) = KEYS.iter().position(|k| *k == key) else { continue };
            let name = KEYS[i];
            let slot = if i < PARAMS.len() { &mut values[i] } else { &mut given_h };
            let value = percent_decode(value)
                .ok_or_else(|| param(name, "bad percent-encoding or not UTF-8".to_string()))?;
            if slot.replace(value).is_some() {
                return Err(param(name, "given twice".to_string()));
            }
        }
        match given_h {
            Some(h) if h != checksum(&values) => return Err(LinkError::ChecksumMismatch),
            None if values[2].is_some() || values[5].is_some() => return Err(LinkError::NoChecksum),
            _ => {}
        }
        let [s, g, j, seed, t, inputs] = values;
        let (scenario, scenario_seed) = match (s, j) {
            (Some(_), Some(_)) => return Err(param("j", "give s= or j=, not both".to_string())),
            (None, None) => return Err(LinkError::NoScenario),
            (Some(name), None) => {
                let guided = match g.as_deref() {
                    None | Some("0") => false,
                    Some("1") => true,
                    Some(other) => return Err(param("g", format!("expected 1 or 0, got {:?}", clip(other)))),
                };
                let Ok(found) = builtin(&name) else { return Err(LinkError::UnknownScenario(clip(&name))) };
                (LinkScenario::Builtin { name, guided }, found.config.seed)
            }
            (None, Some(encoded)) => {
                if g.is_some() {
                    return Err(param("g", "applies to built-in scenarios (s=) only".to_string()));
                }
                let bytes =
                    base64url_decode(&encoded).ok_or_else(|| param("j", "not base64url".to_string()))?;
                let text = String::from_utf8(bytes).map_err(|_| param("j", "not UTF-8 JSON".to_string()))?;
                let scenario = Scenario::parse(&text).map_err(LinkError::Scenario)?;
                let seed = scenario.config.seed;
                (LinkScenario::Inline(Box::new(scenario)), seed)
            }
        };
        let seed = match seed {
            None => scenario_seed,
            Some(text) => digits(&text).ok_or_else(|| param("seed", "not a number".to_string()))?,
        };
        let tick = match t {
            None => 0,
            Some(text) => digits(&text)
                .filter(|&t| t <= SCENARIO_TICKS_MAX)
                .ok_or_else(|| param("t", format!("not a number from 0 to {SCENARIO_TICKS_MAX}")))?,
        };
        let inputs = match inputs {
            None => Vec::new(),
            Some(text) => read_inputs(&text, tick)?,
        };
        Ok(Link { scenario, seed, tick, inputs })
    }
}

fn param(name: &'static str, message: String) -> LinkError {
    LinkError::Param { name, message }
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
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, value) in PARAMS.iter().zip(values) {
        if let Some(value) = value {
            for &b in name.as_bytes().iter().chain(b"=").chain(value.as_bytes()).chain(b"&") {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
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
    if text.is_empty() || text.len() > 20 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A decimal `i64`: an optional `-`, then digits.
fn signed(text: &str) -> Option<i64> {
    match text.strip_prefix('-') {
        Some(rest) => digits(rest).and_then(|m| 0i64.checked_sub_unsigned(m)),
        None => digits(text).and_then(|n| i64::try_from(n).ok()),
    }
}

// ---------------------------------------------------------------- inputs

fn inputs_text(inputs: &[(u64, Input)], last: u64) -> String {
    let mut out = String::new();
    let mut previous = 0;
    for (tick, input) in inputs {
        assert!(*tick >= previous, "a link's inputs are in tick order: {tick} after {previous}");
        assert!(*tick <= last, "a link's inputs are at or before its tick: {tick} after {last}");
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(&(tick - previous).to_string());
        out.push_str(&input_tokens(input));
        previous = *tick;
    }
    out
}

/// `.name.arg.arg`: the input's JSON, its fields in [`INPUTS`] order.
fn input_tokens(input: &Input) -> String {
    let value = input_value(input);
    let Kind::Object(members) = &value.kind else { unreachable!("an input is written as an object") };
    let (name, fields) = INPUTS
        .iter()
        .find(|(name, _)| matches!(&members[0].value.kind, Kind::String(s) if s == name))
        .expect("an input's tag is listed");
    let mut out = format!(".{name}");
    for field in fields.iter() {
        // Absent: a default (an empty list is written as nothing, only ever last).
        let Some(member) = members.iter().find(|m| m.key == *field) else { continue };
        let token = token(&member.value);
        if !token.is_empty() {
            out.push('.');
            out.push_str(&token);
        }
    }
    out
}

/// One argument as text: numbers, names, `1`/`0`, `c1+c2`, or a tagged
/// object (reset, commit mode, position store) as one token.
fn token(value: &Value) -> String {
    match &value.kind {
        Kind::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        Kind::UInt(n) => n.to_string(),
        Kind::Int(n) => n.to_string(),
        Kind::String(s) => s.clone(),
        Kind::Array(items) => items.iter().map(token).collect::<Vec<_>>().join("+"),
        Kind::Object(members) => {
            let get = |key: &str| members.iter().find(|m| m.key == key).map(|m| token(&m.value));
            let tag = token(&members[0].value);
            match (members[0].key.as_str(), tag.as_str()) {
                ("to", "offset") => {
                    let partition = get("partition").map(|p| format!("p{p}")).unwrap_or_default();
                    format!("o{}{partition}", get("offset").unwrap_or_default())
                }
                ("to", "shift-by") => format!("s{}", get("by").unwrap_or_default()),
                ("mode", "auto") => format!("auto{}", get("interval_ticks").unwrap_or_default()),
                ("store", "consumer") => format!(
                    "consumer-{}-{}",
                    get("writes").unwrap_or_default(),
                    get("write_ticks").unwrap_or_default()
                ),
                _ => tag,
            }
        }
        Kind::Null => String::new(),
    }
}

fn read_inputs(text: &str, last: u64) -> Result<Vec<(u64, Input)>, LinkError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let count = text.split('_').count();
    if count > TIMELINE_INPUTS_MAX {
        return Err(param("in", format!("at most {TIMELINE_INPUTS_MAX} inputs, got {count}")));
    }
    let mut inputs = Vec::with_capacity(count);
    let mut tick: u64 = 0;
    for (i, item) in text.split('_').enumerate() {
        let number = i + 1;
        let (delta, rest) = item.split_once('.').unwrap_or((item, ""));
        let error = |text: &str, message: String| LinkError::Input { number, text: clip(text), message };
        let Some(delta) = digits(delta) else {
            return Err(error(item, format!("the tick delta {:?} is not a number", clip(delta))));
        };
        // `last` is at most SCENARIO_TICKS_MAX, so saturating cannot hide a tick that fits.
        tick = tick.saturating_add(delta);
        if tick > last {
            return Err(error(rest, format!("its tick {tick} is after the link's tick t={last}")));
        }
        let input = read_input(rest).map_err(|message| error(rest, message))?;
        inputs.push((tick, input));
    }
    Ok(inputs)
}

/// `name.arg.arg` → the input's JSON object → the scenario codec's reader.
fn read_input(text: &str) -> Result<Input, String> {
    let mut parts = text.split('.');
    let name = parts.next().unwrap_or_default();
    let Some((name, fields)) = INPUTS.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = INPUTS.iter().map(|(n, _)| *n).collect();
        return Err(format!("unknown input {:?}; the inputs are {}", clip(name), names.join(", ")));
    };
    let args: Vec<&str> = parts.collect();
    if args.len() > fields.len() {
        return Err(format!(
            "{name} takes {} argument(s) ({}), got {}",
            fields.len(),
            fields.join(", "),
            args.len()
        ));
    }
    let mut members = vec![("do", Value::new(Kind::String((*name).to_string())))];
    for (field, arg) in fields.iter().zip(args) {
        let value = arg_value(field, arg).map_err(|message| format!("{field}: {message}"))?;
        members.push((field, value));
    }
    let object = Value::new(Kind::Object(
        members.into_iter().map(|(key, value)| Member { key: key.to_string(), at: 0, value }).collect(),
    ));
    input(&object)
        .map_err(|e| if e.path.is_empty() { e.message } else { format!("{}: {}", e.path, e.message) })
}

/// One argument's text as the JSON value of field `field`.
fn arg_value(field: &str, arg: &str) -> Result<Value, String> {
    let text = |s: &str| Value::new(Kind::String(s.to_string()));
    let number = |s: &str| digits(s).map(|n| Value::new(Kind::UInt(n)));
    let bad = |expected: &str| Err(format!("expected {expected}, got {:?}", clip(arg)));
    match field {
        "on" | "advancing" => match arg {
            "1" => Ok(Value::new(Kind::Bool(true))),
            "0" => Ok(Value::new(Kind::Bool(false))),
            _ => bad("1 or 0"),
        },
        "consumer" | "assignor" => Ok(text(arg)),
        // `+` may have become a space on the way (form decoding).
        "consumers" => Ok(Value::new(Kind::Array(arg.split(['+', ' ']).map(text).collect()))),
        "reset" => {
            let value = match arg {
                "earliest" | "latest" => Some(variant("to", arg, vec![])),
                _ if arg.starts_with('o') => {
                    let (offset, partition) = match arg[1..].split_once('p') {
                        Some((o, p)) => (o, Some(p)),
                        None => (&arg[1..], None),
                    };
                    match (number(offset), partition.map(number)) {
                        (Some(offset), None) => Some(variant("to", "offset", vec![("offset", offset)])),
                        (Some(offset), Some(Some(p))) => {
                            Some(variant("to", "offset", vec![("partition", p), ("offset", offset)]))
                        }
                        _ => None,
                    }
                }
                _ => arg.strip_prefix('s').and_then(signed).map(|by| {
                    let by = Value::new(if by < 0 { Kind::Int(by) } else { Kind::UInt(by.unsigned_abs()) });
                    variant("to", "shift-by", vec![("by", by)])
                }),
            };
            value.map_or_else(|| bad("earliest, latest, o<offset>, o<offset>p<partition> or s<shift>"), Ok)
        }
        "commit" => match arg {
            "after" | "before" | "each-record" => Ok(variant("mode", arg, vec![])),
            _ => match arg.strip_prefix("auto").and_then(number) {
                Some(ticks) => Ok(variant("mode", "auto", vec![("interval_ticks", ticks)])),
                None => bad("after, before, each-record or auto<ticks>"),
            },
        },
        "position" => match arg {
            "group" => Ok(variant("store", "group", vec![])),
            _ => match arg.strip_prefix("consumer-").and_then(|rest| rest.rsplit_once('-')) {
                Some((writes, ticks)) if number(ticks).is_some() => Ok(variant(
                    "store",
                    "consumer",
                    vec![("writes", text(writes)), ("write_ticks", number(ticks).expect("checked"))],
                )),
                _ => bad("group or consumer-<atomic|in-place>-<write ticks>"),
            },
        },
        _ => number(arg).map_or_else(|| bad("a number"), Ok),
    }
}

// ---------------------------------------------------------------- encodings

/// Characters a query value keeps as they are: RFC 3986's unreserved ones, and
/// `+`, which joins consumers.
fn plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+')
}

fn percent_encode(out: &mut String, value: &str) {
    for &b in value.as_bytes() {
        if plain_byte(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        }
    }
}

/// `%XX` decoded; `None` for a bad escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let high = (hex[0] as char).to_digit(16)?;
            let low = (hex[1] as char).to_digit(16)?;
            out.push(u8::try_from(high * 16 + low).expect("two hex digits fit a byte"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url (RFC 4648 §5) without padding: URL-safe as it is.
fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(BASE64URL[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// base64url without padding; `None` for other characters or an impossible length.
fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let sextet = BASE64URL.iter().position(|&a| a == c)?;
            n |= u32::try_from(sextet).expect("below 64") << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push(u8::try_from(n >> (16 - 8 * i) & 255).expect("masked to a byte"));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn base64url_round_trips_every_length() {
        let data: Vec<u8> = (0..=255).collect();
        for len in 0..40 {
            let encoded = base64url_encode(&data[..len]);
            assert!(encoded.bytes().all(plain_byte), "{encoded}");
            assert_eq!(base64url_decode(&encoded).as_deref(), Some(&data[..len]), "{len}");
        }
        assert_eq!(base64url_encode(b"hello?"), "aGVsbG8_");
        assert_eq!(base64url_decode("a"), None);
        assert_eq!(base64url_decode("aGV="), None);
    }

    #[test]
    fn percent_codec() {
        let mut out = String::new();
        percent_encode(&mut out, "a b&c=é+");
        assert_eq!(out, "a%20b%26c%3D%C3%A9+");
        assert_eq!(percent_decode(&out).as_deref(), Some("a b&c=é+"));
        assert_eq!(percent_decode("%"), None);
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%ff"), None, "not UTF-8");
    }

    #[test]
    fn numbers_are_strict() {
        assert_eq!(digits("18446744073709551615"), Some(u64::MAX));
        assert_eq!(digits("18446744073709551616"), None);
        assert_eq!(digits("+4"), None);
        assert_eq!(digits(""), None);
        assert_eq!(signed("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(signed("9223372036854775808"), None);
    }
}
