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

use super::json::{self, Kind, Value, Writer};
use super::quoted;
use super::scenario::{INPUT, INPUTS, Ty, check, read_input, write_input};
use crate::input::Input;
use crate::scenario::{SCENARIO_TICKS_MAX, Scenario, TIMELINE_INPUTS_MAX, builtin};
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
                values[2] = Some(base64url_encode(scenario.to_json_compact().as_bytes()));
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
                percent_encode(&mut query, value);
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
                Err(_) => {
                    return Err(LinkError::Invalid(format!("unknown scenario {}", quoted(&clip(&name)))));
                }
            },
            (None, Some(encoded)) => {
                // `to_json_compact` writes ASCII: anything else is not a link's.
                let text: String = base64url_decode(&encoded)
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
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, value) in KEYS.iter().zip(values) {
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
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

// ---------------------------------------------------------------- inputs
//
// An input's arguments are its JSON fields in [`INPUTS`] order, each as one
// token. Writing goes input → JSON (the scenario codec) → tokens; reading
// goes tokens → JSON → the scenario codec's check and reader. Arguments that
// are objects (a reset, a commit mode, a position store) are written short,
// by [`SHORT`].

type Short = (&'static str, &'static str, &'static str, Option<(char, &'static str)>);

/// Object arguments with fields, as one token: the variant, its token prefix,
/// its first field, and the separator before its optional second field.
/// Variants without fields are written as their name (`earliest`, `after`).
const SHORT: &[Short] = &[
    ("offset", "o", "offset", Some(('p', "partition"))),
    ("shift-by", "s", "by", None),
    ("auto", "auto", "interval_ticks", None),
    ("consumer", "consumer-", "writes", Some(('-', "write_ticks"))),
];

/// What an object argument may be, by its enum's tag: for error messages.
const FORMS: &[(&str, &str)] = &[
    ("to", "earliest, latest, o<offset>, o<offset>p<partition> or s<shift>"),
    ("mode", "after, before, each-record or auto<interval ticks>"),
    ("store", "group or consumer-<atomic|in-place>-<write ticks>"),
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
        let mut w = Writer::new(false);
        write_input(&mut w, "", input);
        let json = json::parse(&w.finish()).expect("the codec's own JSON reads back");
        // `.name.arg.arg`: the tag first, then the fields in the schema's order
        // (absent ones are defaults: an empty list, only ever last).
        let name = token(&json, "do");
        out.push('.');
        out.push_str(&name);
        let fields = INPUTS.iter().find(|(n, _)| *n == name).map_or(&[][..], |(_, f)| f);
        for field in fields {
            let arg = token(&json, field.0);
            if !arg.is_empty() {
                out.push('.');
                out.push_str(&arg);
            }
        }
        previous = *tick;
    }
    out
}

/// Member `key` of an object as one token; empty when absent.
fn token(object: &Value, key: &str) -> String {
    match &object.kind {
        Kind::Object(members) => {
            members.iter().find(|m| m.key == key).map_or(String::new(), |m| token_of(&m.value))
        }
        _ => String::new(),
    }
}

/// A value as one token: a number, a name, `1`/`0`, `c1+c2`, or a short object.
fn token_of(value: &Value) -> String {
    match &value.kind {
        Kind::Bool(b) => if *b { "1" } else { "0" }.into(),
        Kind::UInt(n) => n.to_string(),
        Kind::Int(n) => n.to_string(),
        Kind::String(s) => s.clone(),
        Kind::Array(items) => {
            let mut out = String::new();
            for item in items {
                if !out.is_empty() {
                    out.push('+');
                }
                out.push_str(&token_of(item));
            }
            out
        }
        Kind::Object(inner) => {
            // The tag is the first member; the rest by `SHORT`.
            let tag = token(value, &inner[0].key);
            match SHORT.iter().find(|(name, ..)| *name == tag) {
                None => tag,
                Some((_, prefix, first, second)) => {
                    let mut out = prefix.to_string();
                    out.push_str(&token(value, first));
                    if let Some((separator, second)) = second {
                        let arg = token(value, second);
                        if !arg.is_empty() {
                            out.push(*separator);
                            out.push_str(&arg);
                        }
                    }
                    out
                }
            }
        }
        Kind::Null => String::new(),
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

/// `name.arg.arg` → the input's JSON → the scenario codec's check and reader.
fn input_of(text: &str) -> Result<Input, String> {
    let mut parts = text.split('.');
    let name = parts.next().unwrap_or_default();
    let Some((name, fields)) = INPUTS.iter().find(|(n, _)| *n == name) else {
        let mut names = String::new();
        for (n, _) in INPUTS {
            names.push_str(if names.is_empty() { "" } else { ", " });
            names.push_str(n);
        }
        return Err(format!("unknown input {}; the inputs are {names}", quoted(&clip(name))));
    };
    let args: Vec<&str> = parts.collect();
    if args.len() > fields.len() {
        let given = args.len();
        return Err(format!("{name} takes {} argument(s), got {given}", fields.len()));
    }
    let mut w = Writer::new(false);
    w.open("", '{');
    w.str("do", name);
    for (field, arg) in fields.iter().zip(args) {
        write_arg(&mut w, field.0, field.1, arg).map_err(|message| format!("{}: {message}", field.0))?;
    }
    w.close('}');
    let json = json::parse(&w.finish()).map_err(|e| e.message)?;
    check(&json, INPUT)
        .map_err(|e| if e.path.is_empty() { e.message } else { format!("{}: {}", e.path, e.message) })?;
    Ok(read_input(&json))
}

/// One argument's token as JSON member `key` of type `ty`.
fn write_arg(w: &mut Writer, key: &str, ty: Ty, arg: &str) -> Result<(), String> {
    let bad = |expected: &str| Err(format!("expected {expected}, got {}", quoted(&clip(arg))));
    match ty {
        Ty::Bool if arg == "1" || arg == "0" => w.flag(key, arg == "1"),
        Ty::Bool => return bad("1 or 0"),
        Ty::Uint(_) => match digits(arg) {
            Some(n) => w.uint(key, n),
            None => return bad("a number"),
        },
        Ty::Int => match digits(arg.strip_prefix('-').unwrap_or(arg)) {
            Some(n) if !arg.starts_with('-') => match i64::try_from(n) {
                Ok(n) => w.int(key, n),
                Err(_) => return bad("a 64-bit integer"),
            },
            Some(n) => match 0i64.checked_sub_unsigned(n) {
                Some(n) => w.int(key, n),
                None => return bad("a 64-bit integer"),
            },
            None => return bad("a number"),
        },
        Ty::List(item) => {
            w.open(key, '[');
            // `+` may have become a space on the way (form decoding).
            for part in arg.split(['+', ' ']) {
                write_arg(w, "", *item, part)?;
            }
            w.close(']');
        }
        Ty::Tagged(tag, variants) => {
            // A variant without fields by its name, or one with fields by its `SHORT` form.
            let plain = variants.iter().find(|(name, fields)| fields.is_empty() && *name == arg);
            let short = SHORT.iter().find(|(name, prefix, ..)| {
                arg.starts_with(prefix) && variants.iter().any(|(n, _)| n == name)
            });
            w.open(key, '{');
            let written = match (plain, short) {
                (Some((name, _)), _) => {
                    w.str(tag, name);
                    Ok(())
                }
                (None, Some((name, prefix, first, second))) => {
                    w.str(tag, name);
                    let rest = &arg[prefix.len()..];
                    let (rest, tail) = match second.and_then(|(separator, field)| {
                        rest.rsplit_once(separator).map(|(rest, tail)| (rest, (field, tail)))
                    }) {
                        Some((rest, tail)) => (rest, Some(tail)),
                        None => (rest, None),
                    };
                    // The fields' types, from the schema.
                    let fields = variants.iter().find(|(n, _)| n == name).map_or(&[][..], |(_, f)| f);
                    [Some((*first, rest)), tail].into_iter().flatten().try_for_each(|(field, text)| {
                        match fields.iter().find(|f| f.0 == field) {
                            Some(f) => write_arg(w, field, f.1, text),
                            None => Ok(()),
                        }
                    })
                }
                (None, None) => Err(String::new()),
            };
            if written.is_err() {
                return bad(FORMS.iter().find(|(t, _)| *t == tag).map_or("", |(_, forms)| forms));
            }
            w.close('}');
        }
        // Names, consumers, text: as they are; the scenario codec checks them.
        _ => w.str(key, arg),
    }
    Ok(())
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

/// `%XX` decoded; `None` for a bad escape or one that is not ASCII.
fn percent_decode(text: &str) -> Option<String> {
    // Escapes may only stand for ASCII characters (links are ASCII); the text
    // between them is copied as it is, so the result is UTF-8 without a check.
    let mut parts = text.split('%');
    let mut out = String::from(parts.next().unwrap_or_default());
    for part in parts {
        let hex = part.get(..2).filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))?;
        let code = u8::from_str_radix(hex, 16).ok().filter(u8::is_ascii)?;
        out.push(char::from(code));
        out.push_str(&part[2..]);
    }
    Some(out)
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
        percent_encode(&mut out, "a b&c=+");
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
