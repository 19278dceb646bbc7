//! The scenario format's JSON, and shareable links.
//!
//! One reader for every scenario JSON: `Scenario::parse` (the CLI, user
//! files, the page's import), the built-ins, and the inline scenarios and
//! inputs of links. [`read`] reads the types from the text with serde's
//! derived `Deserialize`, through serde_path_to_error, and adds what
//! serde_json alone does not give: the field path of an error (an error
//! inside a tagged enum carries its inner path, see `tagged`), serde's words
//! for people ([`plain`]), and a bound on the text's nesting and size in
//! values, checked before serde reads anything. The line and column are
//! serde_json's, where it stopped reading; the error is the first in the
//! text's order. Repeated keys are refused: serde's derive refuses a
//! struct's repeated field, and `tagged` any repeated key in a tagged object.
//!
//! - `tagged`: the `Deserialize` of the internally tagged enums (`"do"`,
//!   `"to"`, `"mode"`, `"store"`, `"strategy"`), read so that an error inside
//!   one still names its field, and of the structs as objects only.
//! - `builtins`: the built-in scenarios read by name (`builtin`, `builtins`).
//! - `link`: [`Link`], the query string of a shareable link.

pub(crate) mod builtins;
pub mod link;
pub(crate) mod tagged;

pub use crate::quote::quoted;
pub use link::{Link, LinkError, LinkScenario, QUERY_BYTES_MAX};

/// FNV-1a 64 of `bytes`: a link's checksum (`h=`), and the name the page's
/// build gives the built-ins' file. Not for security: a change, not an attack.
#[must_use]
pub fn fnv1a_64(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes
        .into_iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

use crate::limits::SCENARIO_BYTES_MAX;
use crate::scenario::{Scenario, ScenarioError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::{Path, Segment};
use std::fmt::Write as _;

/// Arrays and objects nested in each other, at most. A scenario needs 5.
/// serde_json's own recursion limit (128) bounds the stack; this bound is the
/// format's, checked before serde reads anything, so the error can say so.
pub const DEPTH_MAX: usize = 32;

/// Values a document may hold, nested ones included: a scenario of
/// `TIMELINE_INPUTS_MAX` inputs needs under 10 each. Bounds what reading
/// builds whatever the text (a 16 MiB array of `"",` would otherwise be
/// some 5.6 million strings).
const VALUES_MAX: usize = 16 * crate::limits::TIMELINE_INPUTS_MAX;

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

/// The format's entry points for a scenario: the CLI, user files, the
/// page's import and links read with [`Scenario::parse`], the built-ins too.
impl Scenario {
    /// Parses and validates scenario JSON.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > SCENARIO_BYTES_MAX {
            return Err(ScenarioError::Invalid {
                field: "file".into(),
                message: format!("larger than {SCENARIO_BYTES_MAX} bytes"),
            });
        }
        let scenario: Scenario = read(text).map_err(|e| ScenarioError::Json {
            path: e.path,
            message: e.message,
            line: e.line,
            column: e.column,
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// The scenario as pretty JSON, two-space indent (what `parse` reads back).
    #[must_use]
    pub fn to_json(&self) -> String {
        write_pretty(self)
    }

    /// The scenario as JSON on one line, no spaces, ASCII only (`\uXXXX`
    /// escapes): for links (`j=`).
    #[must_use]
    pub fn to_json_compact(&self) -> String {
        write_compact_ascii(self)
    }
}

/// Reads one `T` that fills `text` (surrounding whitespace allowed) through
/// its derived `Deserialize`. The caller bounds the text's size.
pub(crate) fn read<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    check_bounds(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let (path, message) = split(path_text(e.path()), &without_position(e.inner()));
        JsonError { path, message, line: e.inner().line(), column: e.inner().column().max(1) }
    })?;
    // Trailing characters after the value.
    de.end().map_err(|e| JsonError {
        path: String::new(),
        message: without_position(&e),
        line: e.line(),
        column: e.column().max(1),
    })?;
    Ok(value)
}

/// Reads a `T` from a JSON value (links build their inputs as one): the
/// field path and the message.
pub(crate) fn read_value<T: DeserializeOwned>(value: Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| split(path_text(e.path()), &e.inner().to_string()))
}

/// Pretty JSON, two-space indent, UTF-8 as it is.
pub(crate) fn write_pretty<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("the scenario types serialize to JSON (no maps, no floats)")
}

/// The JSON value of `value`: what `serde_json::to_value` gives for the
/// scenario types (no maps, no floats), made from the pretty form and read
/// back, so that the page carries one serializer per type instead of a
/// second one for values.
pub(crate) fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::from_str(&write_pretty(value)).expect("the scenario types' JSON reads back as a value")
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

/// The message a tagged enum raises for an error at `path` inside it.
fn nested(path: &str, message: &str) -> String {
    format!("{NESTED}{path}{NESTED}{message}")
}

/// Refuses nesting deeper than `DEPTH_MAX`, and more than `VALUES_MAX`
/// values, with the path to and the position of the bracket or comma that
/// goes too far. A scan of brackets and commas outside strings (a document
/// holds at most one value more than its commas and opening brackets);
/// anything else is left to serde_json.
fn check_bounds(text: &str) -> Result<(), JsonError> {
    enum Frame {
        /// The index of the element being read.
        Array(usize),
        /// The last key read.
        Object(String),
    }
    let refuse = |stack: &[Frame], at: usize, message: String| {
        let mut path = String::new();
        for frame in stack {
            match frame {
                Frame::Array(index) => path.push_str(&format!("[{index}]")),
                Frame::Object(key) => join(&mut path, key),
            }
        }
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
        Err(JsonError { path, message, line, column })
    };
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    let mut values = 1;
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
                    return refuse(&stack, i, format!("nested deeper than {DEPTH_MAX} levels"));
                }
                stack.push(if open == b'[' { Frame::Array(0) } else { Frame::Object(String::new()) });
                key_next = open == b'{';
                values += 1;
            }
            b']' | b'}' => {
                stack.pop();
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Array(index)) => *index += 1,
                    Some(Frame::Object(_)) => key_next = true,
                    None => {}
                }
                values += 1;
            }
            _ => {}
        }
        if values > VALUES_MAX {
            return refuse(&stack, i, format!("more than {VALUES_MAX} values in the document"));
        }
        i += 1;
    }
    Ok(())
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
        assert!(check_bounds(&deep(DEPTH_MAX)).is_ok());
        let error = check_bounds(&deep(DEPTH_MAX + 1)).unwrap_err();
        assert_eq!((error.path, error.line, error.column), ("[0]".repeat(DEPTH_MAX), 1, DEPTH_MAX + 1));
        let in_strings = format!("{{\"a\\\"[\": \"{}\", \"b\": [1, {{\"c\": 2}}]}}", "[{".repeat(100));
        assert!(check_bounds(&in_strings).is_ok());
        let text = format!("{{\"x\": 1,\n \"é\": [0, {}]}}", deep(DEPTH_MAX));
        let error = check_bounds(&text).unwrap_err();
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

    /// A document holds at most `VALUES_MAX` values, counted before serde
    /// reads it: the error names the element that goes past the bound.
    #[test]
    fn values_are_bounded() {
        let many = |n: usize| format!("{{\"steps\": [{}0]}}", "0,".repeat(n));
        // The object, the array, and its elements.
        assert!(check_bounds(&many(VALUES_MAX - 3)).is_ok());
        let error = check_bounds(&many(VALUES_MAX - 2)).unwrap_err();
        assert_eq!(error.message, "more than 1600000 values in the document");
        assert_eq!(error.path, format!("steps[{}]", VALUES_MAX - 2));
        assert_eq!((error.line, error.column), (1, 11 + 2 * (VALUES_MAX - 3) + 2));
        let in_strings = format!("{{\"name\": \"{}\"}}", ",[{".repeat(VALUES_MAX));
        assert!(check_bounds(&in_strings).is_ok());
    }

    /// A tagged object holds a bounded number of values, whatever the text:
    /// serde's derive buffers it.
    #[test]
    fn tagged_objects_are_bounded() {
        let many = format!("{{\"do\": \"send\", \"count\": 1, \"x\": [{}0]}}", "0,".repeat(5000));
        let error = read::<Input>(&many).unwrap_err();
        // The object, its tag, `count`, `x`, and `x`'s first 4092 elements.
        assert_eq!(
            (error.path.as_str(), error.message.as_str()),
            ("x[4092]", "more than 4096 values in one object")
        );
        assert_eq!(read::<Input>(r#"{"count": 1, "do": "send"}"#).unwrap(), Input::Send { count: 1 });
    }
}
