//! The scenario format's JSON, and shareable links.
//!
//! One reader for every scenario JSON: `Scenario::parse` (the CLI, user
//! files, the page's import), the built-ins, and the inline scenarios and
//! inputs of links. `read` parses the text into a `serde_json::Value`
//! (repeated keys refused, syntax errors placed by serde_json, the path of a
//! syntax error by serde_path_to_error), then reads the types from the value
//! with the hand-written readers of `read` (see there why), and adds what
//! serde_json alone does not give: the field path of an error, its line and
//! column, and a nesting bound of `DEPTH_MAX`. A value has no positions, so
//! `locate` finds the value an error names in the text again and gives the
//! line and column serde_json would have stopped at reading the text
//! directly.
//!
//! - `read`: the readers, each type's fields in serde's order with serde's messages.
//! - `tagged`: the derived `Deserialize` of the format's types, for whoever
//!   reads them through serde: the internally tagged enums (`"do"`, `"to"`,
//!   `"mode"`, `"store"`, `"strategy"`) read so that an error inside one
//!   still names its field, the structs as objects only.
//! - `link`: [`Link`], the query string of a shareable link.

pub mod link;
pub(crate) mod read;
pub(crate) mod tagged;

pub use link::{Link, LinkError, LinkScenario, QUERY_BYTES_MAX};

use serde::Serialize;
use serde_json::Value;
use serde_path_to_error::{Path, Segment};
use std::fmt::Write as _;

/// Arrays and objects nested in each other, at most. A scenario needs 5.
/// serde_json's own recursion limit (128) bounds the stack; this bound is the
/// format's, checked before serde reads anything, so the error can say so.
pub const DEPTH_MAX: usize = 32;

/// What is wrong, where: the field path (`timeline[1].input.consumer`, empty
/// for the top level), serde's message, and the line and column (from 1)
/// serde_json stopped at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub path: String,
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// Reads one `T` that fills `text` (surrounding whitespace allowed) through
/// `reader`, one of [`read`]'s. The caller bounds the text's size.
pub(crate) fn read<T>(
    text: &str,
    reader: fn(Value, &mut read::Path) -> read::Read<T>,
) -> Result<T, JsonError> {
    check_depth(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let json = parse(&mut de)?;
    let value = reader(json, &mut Vec::new()).map_err(|refusal| {
        let anchor = refusal.after.unwrap_or(refusal.path.len());
        let (line, column) = locate(text, &refusal.path[..anchor], &refusal.message, refusal.after.is_some());
        JsonError { path: read::path_text(&refusal.path), message: plain(&refusal.message), line, column }
    })?;
    end(&mut de)?;
    Ok(value)
}

/// The text as a JSON value, repeated keys refused, syntax errors placed.
fn parse(de: &mut serde_json::Deserializer<serde_json::de::StrRead<'_>>) -> Result<Value, JsonError> {
    let mut track = serde_path_to_error::Track::new();
    tagged::unique_value(serde_path_to_error::Deserializer::new(de, &mut track)).map_err(
        |e: serde_json::Error| {
            let (path, message) = split(path_text(&track.path()), &without_position(&e));
            JsonError { path, message, line: e.line(), column: e.column().max(1) }
        },
    )
}

/// Refuses trailing characters after the value.
fn end(de: &mut serde_json::Deserializer<serde_json::de::StrRead<'_>>) -> Result<(), JsonError> {
    de.end().map_err(|e| JsonError {
        path: String::new(),
        message: without_position(&e),
        line: e.line(),
        column: e.column().max(1),
    })
}

/// [`read`] through serde's derived `Deserialize` impls instead: what the
/// hand-written readers must agree with.
#[cfg(test)]
pub(crate) fn read_derived<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    check_depth(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let json = parse(&mut de)?;
    let value = serde_path_to_error::deserialize(json).map_err(
        |e: serde_path_to_error::Error<serde_json::Error>| {
            let raw = e.inner().to_string();
            let steps: Vec<read::Step> = e
                .path()
                .iter()
                .filter_map(|s| match s {
                    Segment::Seq { index } => Some(read::Step::Index(*index)),
                    Segment::Map { key } => Some(read::Step::Key(key.clone())),
                    Segment::Enum { .. } | Segment::Unknown => None,
                })
                .collect();
            let (line, column) = locate(text, &steps, &raw, raw.starts_with([AFTER, NESTED]));
            let (path, message) = split(path_text(e.path()), &raw);
            JsonError { path, message, line, column }
        },
    )?;
    end(&mut de)?;
    Ok(value)
}

/// Reads a `T` from a JSON value (links build their inputs as one): the
/// field path and the message.
pub(crate) fn read_value<T>(
    value: Value,
    reader: fn(Value, &mut read::Path) -> read::Read<T>,
) -> Result<T, (String, String)> {
    reader(value, &mut Vec::new())
        .map_err(|refusal| (read::path_text(&refusal.path), plain(&refusal.message)))
}

/// Pretty JSON, two-space indent, UTF-8 as it is.
pub(crate) fn write_pretty<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("the scenario types serialize to JSON (no maps, no floats)")
}

/// The JSON value of `value`: what `serde_json::to_value` gives for the
/// scenario types (no maps, no floats), made from the pretty form and read
/// back, so that the page carries one serializer and one value reader instead
/// of a second serializer per type for values.
pub(crate) fn to_value<T: Serialize>(value: &T) -> serde_json::Value {
    let text = write_pretty(value);
    let mut de = serde_json::Deserializer::from_str(&text);
    let mut track = serde_path_to_error::Track::new();
    tagged::unique_value(serde_path_to_error::Deserializer::new(&mut de, &mut track))
        .expect("the scenario types' JSON reads back as a value")
}

/// JSON on one line, no spaces, ASCII only (`\uXXXX` escapes, surrogate pairs
/// beyond U+FFFF), so that it travels in a link as it is. Made from the
/// pretty form, so the page carries one serializer per type: outside strings
/// the whitespace goes, inside them non-ASCII characters are escaped (serde_json
/// escapes the same control characters in both forms).
pub(crate) fn write_compact_ascii<T: Serialize>(value: &T) -> String {
    compact_ascii(&write_pretty(value))
}

fn compact_ascii(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut units = [0u16; 2];
    for c in pretty.chars() {
        if !in_string {
            if !c.is_ascii_whitespace() {
                in_string = c == '"';
                out.push(c);
            }
            continue;
        }
        if c.is_ascii() {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
            out.push(c);
        } else {
            escaped = false;
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

/// serde_json's message without its ` at line L column C`: the error carries those apart.
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).map_or_else(|| text.clone(), str::to_string)
}

/// A path as the messages write it: `timeline[1].input.consumer`, empty at
/// the top level. Enum segments are left out (a variant is not a field), and
/// so are unknown ones (serde_path_to_error's `?`, a key not read yet).
fn path_text(path: &Path) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => join(&mut out, key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// Where serde_json, reading `text` itself, would have stopped at the error
/// `message` raised for the value at `path`: after the key of an unknown
/// field, before the bracket of an object or array of the wrong type, and
/// after the value otherwise (a tagged enum's inner errors: after its object,
/// which serde_json would have buffered whole). Line and column from 1, the
/// column counting bytes, as serde_json's do.
fn locate(text: &str, steps: &[read::Step], message: &str, after: bool) -> (usize, usize) {
    let offset = match scan::find(text, steps) {
        None => text.len(),
        // The enclosing container's end: its whitespace, and its bracket if next.
        Some(span) if after => {
            let b = text.as_bytes();
            let at = scan::ws(b, span.end);
            if steps.is_empty() || !matches!(b.get(at), Some(b'}' | b']')) { at } else { at + 1 }
        }
        Some(span) if message.starts_with("unknown field") => span.key_end.unwrap_or(span.end),
        Some(span)
            if message.starts_with("invalid type: map") || message.starts_with("invalid type: sequence") =>
        {
            span.start
        }
        Some(span) => span.end,
    };
    let before = &text.as_bytes()[..offset];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    (line, (offset - line_start).max(1))
}

/// Finding a value in JSON text already known to be well formed.
mod scan {
    use super::read::Step;

    /// Byte offsets of a value: its key's end (in an object), its start and end.
    pub(super) struct Span {
        pub key_end: Option<usize>,
        pub start: usize,
        pub end: usize,
    }

    /// The value at `steps` from the top of `text`.
    pub(super) fn find(text: &str, steps: &[Step]) -> Option<Span> {
        let b = text.as_bytes();
        let mut at = ws(b, 0);
        let mut key_end = None;
        for step in steps {
            let (open, close) = (b.get(at).copied()?, if b[at] == b'{' { b'}' } else { b']' });
            if open != b'{' && open != b'[' {
                return None;
            }
            at = ws(b, at + 1);
            let mut index = 0;
            loop {
                if b.get(at) == Some(&close) {
                    return None; // not in it
                }
                let found;
                if open == b'{' {
                    let key = string_end(b, at)?;
                    // The format's keys are plain: compared as written
                    // (a key with escapes is an unknown field's, placed at its object).
                    let name = &text[at + 1..key - 1];
                    found = matches!(step, Step::Key(key) if key == name);
                    at = ws(b, key);
                    at = ws(b, at + 1); // the colon
                    if found {
                        key_end = Some(key);
                    }
                } else {
                    found = matches!(step, Step::Index(i) if *i == index);
                }
                if found {
                    break;
                }
                at = ws(b, value_end(b, at)?);
                if b.get(at) == Some(&b',') {
                    at = ws(b, at + 1);
                }
                index += 1;
            }
            if open == b'[' {
                key_end = None;
            }
        }
        Some(Span { key_end, start: at, end: value_end(b, at)? })
    }

    pub(super) fn ws(b: &[u8], mut at: usize) -> usize {
        while b.get(at).is_some_and(|c| c.is_ascii_whitespace()) {
            at += 1;
        }
        at
    }

    /// One past the closing quote of the string at `at`.
    fn string_end(b: &[u8], at: usize) -> Option<usize> {
        let mut i = at + 1;
        while let Some(&c) = b.get(i) {
            match c {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    /// One past the value at `at`.
    fn value_end(b: &[u8], at: usize) -> Option<usize> {
        match b.get(at)? {
            b'"' => string_end(b, at),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut i = at;
                while let Some(&c) = b.get(i) {
                    match c {
                        b'"' => {
                            i = string_end(b, i)?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(i + 1);
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                None
            }
            _ => {
                let mut i = at;
                while b.get(i).is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace()) {
                    i += 1;
                }
                Some(i)
            }
        }
    }
}

/// Appends field `key` to a path.
fn join(path: &mut String, key: &str) {
    if !path.is_empty() && !key.starts_with('[') {
        path.push('.');
    }
    path.push_str(key);
}

/// Marks a message that carries the path inside a tagged enum, where the
/// outer reader's path stops (see `tagged`): `\u{1}path\u{1}message`.
const NESTED: char = '\u{1}';

/// The path and message of an error, with a nested path (from inside a tagged
/// enum) joined onto the outer one.
fn split(mut path: String, message: &str) -> (String, String) {
    let message = message.strip_prefix(AFTER).unwrap_or(message);
    match message.strip_prefix(NESTED).and_then(|rest| rest.split_once(NESTED)) {
        Some((inner, message)) => {
            if !inner.is_empty() {
                join(&mut path, inner);
            }
            (path, message.to_string())
        }
        None => (path, plain(message)),
    }
}

/// serde's words for JSON and Rust types, in the words of the format: the
/// people who write scenarios need not know `u32` or a `map`.
pub(crate) fn plain(message: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("invalid type: map,", "invalid type: object,"),
        ("invalid type: sequence,", "invalid type: array,"),
        ("invalid type: unit value,", "invalid type: null,"),
        (", expected u8", ", expected an integer from 0 to 255"),
        (", expected u32", ", expected an integer from 0 to 4294967295"),
        (", expected u64", ", expected a non-negative integer"),
        (", expected i64", ", expected an integer"),
        (", expected a sequence", ", expected an array"),
    ];
    let mut out = message.to_string();
    for (serde, ours) in WORDS {
        if let Some(at) = out.find(serde) {
            // Only whole words: `u8` is not the start of `u8x`.
            let end = at + serde.len();
            if !out[end..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                out.replace_range(at..end, ours);
            }
        }
    }
    // `expected struct Config`, `expected struct variant …`: an object.
    if let Some(at) = out.find(", expected struct ") {
        out.replace_range(at.., ", expected an object");
    }
    out
}

/// Marks the message of an error raised once a value was read whole (a
/// tagged enum's, `Config`'s own checks): serde_json places those where the
/// enclosing object or array ends, not where the value does.
const AFTER: char = '\u{2}';

/// `message`, marked as raised after its value was read (see [`AFTER`]).
pub(crate) fn after_value(message: &dyn std::fmt::Display) -> String {
    format!("{AFTER}{message}")
}

/// The message a tagged enum raises for an error at `path` inside it.
fn nested(path: &str, message: &str) -> String {
    format!("{NESTED}{path}{NESTED}{message}")
}

/// Refuses nesting deeper than `DEPTH_MAX`, with the path to and the
/// position of the bracket that goes too deep. A scan of brackets outside
/// strings; anything else is left to serde_json.
fn check_depth(text: &str) -> Result<(), JsonError> {
    enum Frame {
        /// The index of the element being read.
        Array(usize),
        /// The last key read.
        Object(String),
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    // In an object, whether the next string is a key.
    let mut key_next = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if key_next {
                    if let Some(Frame::Object(key)) = stack.last_mut() {
                        *key = text.get(start..i.min(bytes.len())).unwrap_or_default().to_string();
                    }
                    key_next = false;
                }
            }
            open @ (b'[' | b'{') => {
                if stack.len() >= DEPTH_MAX {
                    let mut path = String::new();
                    for frame in &stack {
                        match frame {
                            Frame::Array(index) => path.push_str(&format!("[{index}]")),
                            Frame::Object(key) => join(&mut path, key),
                        }
                    }
                    let before = &text[..i];
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
                    let message = format!("nested deeper than {DEPTH_MAX} levels");
                    return Err(JsonError { path, message, line, column });
                }
                stack.push(if open == b'[' { Frame::Array(0) } else { Frame::Object(String::new()) });
                key_next = open == b'{';
            }
            b']' | b'}' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(index)) => *index += 1,
                Some(Frame::Object(_)) => key_next = true,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// `text` in double quotes, with `"` and `\` escaped: how messages quote what
/// the user wrote.
#[must_use]
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Input;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Brackets inside strings, escaped quotes included, do not count.
    #[test]
    fn depth_counts_brackets_outside_strings() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(check_depth(&deep(DEPTH_MAX)).is_ok());
        let error = check_depth(&deep(DEPTH_MAX + 1)).unwrap_err();
        assert_eq!((error.path, error.line, error.column), ("[0]".repeat(DEPTH_MAX), 1, DEPTH_MAX + 1));
        let in_strings = format!("{{\"a\\\"[\": \"{}\", \"b\": [1, {{\"c\": 2}}]}}", "[{".repeat(100));
        assert!(check_depth(&in_strings).is_ok());
        let text = format!("{{\"x\": 1,\n \"é\": [0, {}]}}", deep(DEPTH_MAX));
        let error = check_depth(&text).unwrap_err();
        assert_eq!(error.path, format!("é[1]{}", "[0]".repeat(DEPTH_MAX - 2)));
        assert_eq!((error.line, error.column), (2, 11 + DEPTH_MAX - 2), "columns count characters");
    }

    /// `to_value` gives what serde_json's value serializer gives: for the
    /// built-ins, each whole and each of their inputs.
    #[test]
    fn to_value_is_serde_jsons() {
        for (name, text) in crate::BUILTINS {
            let scenario = crate::Scenario::parse(text).expect(name);
            for timed in &scenario.timeline {
                assert_eq!(to_value(&timed.input), serde_json::to_value(&timed.input).unwrap(), "{name}");
            }
            assert_eq!(to_value(&scenario), serde_json::to_value(&scenario).unwrap(), "{name}");
        }
    }

    #[test]
    fn compact_is_ascii_with_surrogate_pairs() {
        assert_eq!(write_compact_ascii(&"é😀\u{1}\n\"/"), r#""\u00e9\ud83d\ude00\u0001\n\"/""#);
        assert_eq!(write_pretty(&"é"), "\"é\"");
    }

    /// A tagged object holds a bounded number of values, whatever the text,
    /// read through serde's derive (which buffers it); the readers need no
    /// buffer and read the object in place.
    #[test]
    fn tagged_objects_are_bounded() {
        let many = format!("{{\"do\": \"send\", \"count\": 1, \"x\": [{}0]}}", "0,".repeat(5000));
        let error = read_derived::<Input>(&many).unwrap_err();
        assert_eq!(error.message, "more than 4096 values in one object");
        let error = read(&many, read::input).unwrap_err();
        assert_eq!(
            (error.path.as_str(), error.message.as_str()),
            ("x", "unknown field `x`, expected `count`")
        );
        assert_eq!(read(r#"{"count": 1, "do": "send"}"#, read::input).unwrap(), Input::Send { count: 1 });
    }
}
