//! A minimal JSON value and parser, and a writer: just what the scenario
//! format needs. Hand-written (no serde) because the page's wasm has a hard
//! size budget and serde's generated deserializers for the scenario types cost
//! about 43 KB gzip there.
//!
//! The format has no floats: a number with a fraction or an exponent is
//! refused when it is read, with its path and position. Integers are `u64`,
//! or `i64` when negative. Objects keep their keys in order (duplicates are
//! kept too; the scenario decoder refuses them with the field's name).
//!
//! Bounds: the text is at most [`SCENARIO_BYTES_MAX`] bytes, nesting at most
//! [`DEPTH_MAX`] levels, and one text holds at most [`VALUES_MAX`] values, so
//! neither the stack nor the memory a parse takes depends on the input beyond
//! those limits.

use crate::scenario::SCENARIO_BYTES_MAX;
use std::fmt::Write as _;

/// Arrays and objects nested in each other, at most. A scenario needs 5.
pub const DEPTH_MAX: usize = 32;
/// Values one text may hold. A full timeline (100,000 inputs of at most 8
/// values each) fits; a 16 MiB text of `0,0,0,…` does not, so the parsed
/// tree stays under about 40 MiB whatever the input.
pub const VALUES_MAX: usize = 1 << 20;

/// A JSON value and where it starts in the text it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub kind: Kind,
    /// Byte offset of the value's first character in the parsed text: errors point there.
    pub at: u32,
}

/// The kinds of JSON value the scenario format has: no floats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool(bool),
    /// A non-negative integer.
    UInt(u64),
    /// A negative integer (non-negative ones are always [`Kind::UInt`]).
    Int(i64),
    String(String),
    Array(Vec<Value>),
    /// Members in the order of the text.
    Object(Vec<Member>),
}

/// One `"key": value` of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub key: String,
    /// Byte offset of the key's opening quote: an unknown field points there.
    pub at: u32,
    pub value: Value,
}

/// What is wrong, where: the field path (`timeline[1].input.consumer`, empty
/// for the top level), the message, and the byte offset in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub path: String,
    pub message: String,
    pub at: u32,
}

impl Error {
    #[must_use]
    pub fn new(at: u32, message: String) -> Error {
        Error { path: String::new(), message, at }
    }

    /// The same error one level up: inside field `key`. Paths are built while
    /// an error travels up, so a parse that succeeds pays nothing for them.
    #[must_use]
    pub fn in_field(self, key: &str) -> Error {
        self.within(key, false)
    }

    /// The same error one level up: inside array element `index`.
    #[must_use]
    pub fn in_element(self, index: usize) -> Error {
        self.within(&index.to_string(), true)
    }

    fn within(mut self, segment: &str, index: bool) -> Error {
        let mut path = String::new();
        if index {
            path.push('[');
        }
        path.push_str(segment);
        if index {
            path.push(']');
        }
        if !(self.path.is_empty() || self.path.starts_with('[')) {
            path.push('.');
        }
        path.push_str(&self.path);
        self.path = path;
        self
    }

    /// Line and column (both from 1; the column counts characters) of the
    /// error's offset in `text`, the text that was parsed.
    #[must_use]
    pub fn line_column(&self, text: &str) -> (usize, usize) {
        let mut end = (self.at as usize).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let (mut line, mut column) = (1, 1);
        for &b in &text.as_bytes()[..end] {
            if b == b'\n' {
                (line, column) = (line + 1, 1);
            } else if b & 0xC0 != 0x80 {
                // A character starts here (not a UTF-8 continuation byte).
                column += 1;
            }
        }
        (line, column)
    }
}

/// Reads one JSON value that fills `text` (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Value, Error> {
    if text.len() > SCENARIO_BYTES_MAX {
        return Err(Error::new(0, format!("the text is larger than {SCENARIO_BYTES_MAX} bytes")));
    }
    let mut parser = Parser { text, bytes: text.as_bytes(), pos: 0, values: 0 };
    parser.skip_whitespace();
    let value = parser.value(0)?;
    parser.skip_whitespace();
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("trailing characters after the JSON value"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Values read so far, against [`VALUES_MAX`].
    values: usize,
}

impl Parser<'_> {
    fn at(&self) -> u32 {
        // The text is at most SCENARIO_BYTES_MAX (16 MiB), checked before parsing.
        u32::try_from(self.pos).expect("offsets fit u32: the text is at most 16 MiB")
    }

    fn error(&self, message: &str) -> Error {
        Error::new(self.at(), message.to_string())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Consumes `literal` (`true`, `false`, `null`) or fails.
    fn literal(&mut self, literal: &str, kind: Kind) -> Result<Kind, Error> {
        if self.bytes[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            Ok(kind)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        self.values += 1;
        if self.values > VALUES_MAX {
            return Err(self.error(&format!("more than {VALUES_MAX} values")));
        }
        let at = self.at();
        let kind = match self.peek() {
            None => return Err(self.error("unexpected end of the text: expected a value")),
            Some(b'n') => self.literal("null", Kind::Null)?,
            Some(b't') => self.literal("true", Kind::Bool(true))?,
            Some(b'f') => self.literal("false", Kind::Bool(false))?,
            Some(b'"') => Kind::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(open @ (b'[' | b'{')) => {
                if depth >= DEPTH_MAX {
                    return Err(self.error(&format!("nested deeper than {DEPTH_MAX} levels")));
                }
                self.pos += 1;
                self.container(depth + 1, if open == b'[' { b']' } else { b'}' })?
            }
            Some(_) => return Err(self.error("expected a value")),
        };
        Ok(Value { kind, at })
    }

    /// After `[` or `{`: elements, or members, up to `close`.
    fn container(&mut self, depth: usize, close: u8) -> Result<Kind, Error> {
        let object = close == b'}';
        let (mut items, mut members) = (Vec::new(), Vec::new());
        let (unclosed, unexpected, trailing) = if object {
            (
                "unexpected end of the text inside an object",
                "expected `,` or `}`",
                "trailing comma before `}`",
            )
        } else {
            ("unexpected end of the text inside an array", "expected `,` or `]`", "trailing comma before `]`")
        };
        self.skip_whitespace();
        while self.peek() != Some(close) {
            self.skip_whitespace();
            if object {
                let at = self.at();
                match self.peek() {
                    Some(b'"') => {}
                    None => return Err(self.error(unclosed)),
                    Some(_) => return Err(self.error("expected a key in double quotes")),
                }
                let key = self.string()?;
                self.skip_whitespace();
                if self.peek() != Some(b':') {
                    return Err(self.error("expected `:` after the key").in_field(&key));
                }
                self.pos += 1;
                self.skip_whitespace();
                let value = self.value(depth).map_err(|e| e.in_field(&key))?;
                members.push(Member { key, at, value });
            } else {
                let item = self.value(depth).map_err(|e| e.in_element(items.len()))?;
                items.push(item);
            }
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.peek() == Some(close) {
                        return Err(self.error(trailing));
                    }
                }
                Some(c) if c == close => {}
                None => return Err(self.error(unclosed)),
                Some(_) => return Err(self.error(unexpected)),
            }
        }
        self.pos += 1;
        Ok(if object { Kind::Object(members) } else { Kind::Array(items) })
    }

    /// At `"`: the string's text, escapes decoded.
    fn string(&mut self) -> Result<String, Error> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.pos += 1;
        let mut out = String::new();
        loop {
            // Copy the run of plain characters up to the next quote, backslash or control character.
            let start = self.pos;
            while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\' && b >= 0x20) {
                self.pos += 1;
            }
            // A run starts and stops at ASCII bytes of the text: char boundaries.
            out.push_str(&self.text[start..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = self.escape()?;
                    out.push(c);
                }
                None => return Err(self.error("unexpected end of the text inside a string")),
                Some(_) => {
                    return Err(self.error("control character (U+0000 to U+001F) in a string: escape it"));
                }
            }
        }
    }

    /// After `\`: the escaped character.
    fn escape(&mut self) -> Result<char, Error> {
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                return self.unicode_escape();
            }
            _ => return Err(self.error("invalid escape: use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX")),
        };
        self.pos += 1;
        Ok(c)
    }

    /// After `\u`: one character, from a surrogate pair when it takes two escapes.
    fn unicode_escape(&mut self) -> Result<char, Error> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.bytes[self.pos..].starts_with(b"\\u") {
                    return Err(self.error("a high surrogate \\uD800-\\uDBFF must be followed by a low one"));
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error("a high surrogate \\uD800-\\uDBFF must be followed by a low one"));
                }
                0x1_0000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("a low surrogate \\uDC00-\\uDFFF without a high one")),
            _ => first,
        };
        Ok(char::from_u32(code).expect("a scalar value: surrogates are handled above"))
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let digits = self.bytes.get(self.pos..self.pos + 4).unwrap_or_default();
        let mut code = 0;
        for &b in digits {
            let digit = (b as char).to_digit(16).ok_or_else(|| self.error("\\u needs four hex digits"))?;
            code = code * 16 + digit;
        }
        if digits.len() < 4 {
            return Err(self.error("\\u needs four hex digits"));
        }
        self.pos += 4;
        Ok(code)
    }

    /// At `-` or a digit: an integer. Fractions and exponents are refused.
    fn number(&mut self) -> Result<Kind, Error> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')) {
            self.pos += 1;
        }
        // The scan stops at an ASCII byte: a char boundary.
        let text = &self.text[start..self.pos];
        let digits = text.strip_prefix('-').unwrap_or(text);
        let message = if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            "is not an integer: scenario numbers have no fraction or exponent"
        } else if digits.is_empty()
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || (digits.len() > 1 && digits.starts_with('0'))
        {
            "is not a JSON number"
        } else if let Ok(n) = digits.parse::<u64>() {
            // Down to -2^63, whose magnitude is one more than i64::MAX.
            return match (text.len() > digits.len(), n) {
                (false, _) | (true, 0) => Ok(Kind::UInt(n)),
                (true, _) => 0i64
                    .checked_sub_unsigned(n)
                    .map(Kind::Int)
                    .ok_or_else(|| self.number_error(start, text, "is out of range for a 64-bit integer")),
            };
        } else {
            "is out of range for a 64-bit integer"
        };
        Err(self.number_error(start, text, message))
    }

    fn number_error(&self, start: usize, text: &str, message: &str) -> Error {
        let at = u32::try_from(start).expect("offsets fit u32: the text is at most 16 MiB");
        Error::new(at, format!("`{text}` {message}"))
    }
}

/// Writes JSON text straight from the caller's data (no value tree): pretty,
/// with a two-space indent and one member or element per line, or compact,
/// on one line without spaces and in ASCII (`\uXXXX` escapes), so that it
/// travels in a link as it is. Keys are given with each value; an empty key
/// means an array element (or the top-level value).
#[derive(Debug)]
pub struct Writer {
    out: String,
    pretty: bool,
    /// Open arrays and objects.
    depth: usize,
    /// Nothing written yet in the innermost open array or object.
    empty: bool,
}

impl Writer {
    #[must_use]
    pub fn new(pretty: bool) -> Writer {
        Writer { out: String::new(), pretty, depth: 0, empty: true }
    }

    /// The separator, the line break and the key before a value.
    fn next(&mut self, key: &str) {
        if self.depth > 0 {
            if !self.empty {
                self.out.push(',');
            }
            self.newline();
        }
        self.empty = false;
        if !key.is_empty() {
            write_string(&mut self.out, key, !self.pretty);
            self.out.push_str(if self.pretty { ": " } else { ":" });
        }
    }

    fn newline(&mut self) {
        if self.pretty {
            self.out.push('\n');
            for _ in 0..self.depth {
                self.out.push_str("  ");
            }
        }
    }

    /// Opens an object (`{`) or an array (`[`).
    pub fn open(&mut self, key: &str, bracket: char) {
        self.next(key);
        self.out.push(bracket);
        self.depth += 1;
        self.empty = true;
    }

    /// Closes the innermost object (`}`) or array (`]`).
    pub fn close(&mut self, bracket: char) {
        assert!(self.depth > 0, "close matches an open");
        self.depth -= 1;
        if !self.empty {
            self.newline();
        }
        self.out.push(bracket);
        self.empty = false;
    }

    pub fn str(&mut self, key: &str, value: &str) {
        self.next(key);
        write_string(&mut self.out, value, !self.pretty);
    }

    pub fn uint(&mut self, key: &str, value: u64) {
        self.next(key);
        write!(self.out, "{value}").expect("writing to a String");
    }

    pub fn int(&mut self, key: &str, value: i64) {
        self.next(key);
        write!(self.out, "{value}").expect("writing to a String");
    }

    pub fn flag(&mut self, key: &str, value: bool) {
        self.next(key);
        self.out.push_str(if value { "true" } else { "false" });
    }

    /// The text, once every array and object is closed.
    #[must_use]
    pub fn finish(self) -> String {
        assert_eq!(self.depth, 0, "every open is closed");
        self.out
    }
}

/// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, … or
/// `\u00XX`; everything else as it is (UTF-8), or, when `ascii`, as `\uXXXX`.
fn write_string(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    let mut units = [0u16; 2];
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ascii && !c.is_ascii()) => {
                // One `\uXXXX` per UTF-16 unit: a surrogate pair beyond U+FFFF.
                for unit in c.encode_utf16(&mut units) {
                    write!(out, "\\u{unit:04x}").expect("writing to a String");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn error_of(text: &str) -> (String, String, (usize, usize)) {
        let e = parse(text).unwrap_err();
        let position = e.line_column(text);
        (e.path, e.message, position)
    }

    #[test]
    fn reads_every_kind_and_keeps_key_order() {
        let v = parse(" {\"b\": [1, -2, true, false, null], \"a\": \"x\\u00e9\\ud83d\\ude00\\n\"} ").unwrap();
        let Kind::Object(members) = &v.kind else { panic!("an object: {v:?}") };
        assert_eq!(members.iter().map(|m| m.key.as_str()).collect::<Vec<_>>(), ["b", "a"]);
        let Kind::Array(items) = &members[0].value.kind else { panic!() };
        let kinds: Vec<&Kind> = items.iter().map(|i| &i.kind).collect();
        assert_eq!(
            kinds,
            [&Kind::UInt(1), &Kind::Int(-2), &Kind::Bool(true), &Kind::Bool(false), &Kind::Null]
        );
        assert_eq!(members[1].value.kind, Kind::String("xé😀\n".into()));
        assert_eq!(members[1].at, 35, "the key's opening quote");
    }

    #[test]
    fn integers_at_their_limits() {
        assert_eq!(parse("18446744073709551615").unwrap().kind, Kind::UInt(u64::MAX));
        assert_eq!(parse("-9223372036854775808").unwrap().kind, Kind::Int(i64::MIN));
        assert_eq!(parse("-0").unwrap().kind, Kind::UInt(0));
        assert_eq!(
            error_of("18446744073709551616").1,
            "`18446744073709551616` is out of range for a 64-bit integer"
        );
        assert_eq!(
            error_of("-9223372036854775809").1,
            "`-9223372036854775809` is out of range for a 64-bit integer"
        );
        assert_eq!(error_of("[1, 012]"), ("[1]".into(), "`012` is not a JSON number".into(), (1, 5)));
        assert_eq!(error_of("-"), (String::new(), "`-` is not a JSON number".into(), (1, 1)));
        assert_eq!(error_of("1-2").1, "`1-2` is not a JSON number");
    }

    #[test]
    fn floats_are_refused_where_they_start() {
        assert_eq!(
            error_of("{\"a\": {\"b\": [0, 1.5]}}"),
            (
                "a.b[1]".into(),
                "`1.5` is not an integer: scenario numbers have no fraction or exponent".into(),
                (1, 17)
            )
        );
        assert_eq!(
            error_of("1e3").1,
            "`1e3` is not an integer: scenario numbers have no fraction or exponent"
        );
    }

    #[test]
    fn string_errors() {
        assert_eq!(
            error_of("\"\\ud800\"").1,
            "a high surrogate \\uD800-\\uDBFF must be followed by a low one"
        );
        assert_eq!(
            error_of("\"\\ud800\\u0041\"").1,
            "a high surrogate \\uD800-\\uDBFF must be followed by a low one"
        );
        assert_eq!(error_of("\"\\udc00\"").1, "a low surrogate \\uDC00-\\uDFFF without a high one");
        assert_eq!(error_of("\"\\u12\"").1, "\\u needs four hex digits");
        assert_eq!(error_of("\"\\q\"").1, "invalid escape: use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
        assert_eq!(error_of("\"a\tb\"").1, "control character (U+0000 to U+001F) in a string: escape it");
        assert_eq!(error_of("\"abc").1, "unexpected end of the text inside a string");
    }

    #[test]
    fn syntax_errors_name_the_place() {
        assert_eq!(
            error_of("{\n  \"name\": \"x\",\n  \"ticks\": ,\n}\n"),
            ("ticks".into(), "expected a value".into(), (3, 12))
        );
        assert_eq!(error_of("{\"a\": 1,}"), (String::new(), "trailing comma before `}`".into(), (1, 9)));
        assert_eq!(error_of("[1,]").1, "trailing comma before `]`");
        assert_eq!(error_of("{\"a\" 1}"), ("a".into(), "expected `:` after the key".into(), (1, 6)));
        assert_eq!(
            error_of("{\"a\": 1"),
            (String::new(), "unexpected end of the text inside an object".into(), (1, 8))
        );
        assert_eq!(error_of("{a: 1}").1, "expected a key in double quotes");
        assert_eq!(error_of("[1 2]").1, "expected `,` or `]`");
        assert_eq!(
            error_of("{} x"),
            (String::new(), "trailing characters after the JSON value".into(), (1, 4))
        );
        assert_eq!(error_of("").1, "unexpected end of the text: expected a value");
        assert_eq!(error_of("nul").1, "expected a value");
        assert_eq!(error_of("é").2, (1, 1));
        assert_eq!(error_of("\"é\" x").2, (1, 5), "columns count characters");
    }

    #[test]
    fn depth_is_bounded() {
        let ok = format!("{}{}", "[".repeat(DEPTH_MAX), "]".repeat(DEPTH_MAX));
        assert!(parse(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(DEPTH_MAX + 1), "]".repeat(DEPTH_MAX + 1));
        let (path, message, _) = error_of(&deep);
        assert_eq!(message, format!("nested deeper than {DEPTH_MAX} levels"));
        assert_eq!(path, "[0]".repeat(DEPTH_MAX));
    }

    #[test]
    fn values_and_bytes_are_bounded() {
        let many = format!("[{}0]", "0,".repeat(VALUES_MAX));
        assert_eq!(error_of(&many).1, format!("more than {VALUES_MAX} values"));
        let huge = " ".repeat(SCENARIO_BYTES_MAX + 1);
        assert_eq!(error_of(&huge).1, format!("the text is larger than {SCENARIO_BYTES_MAX} bytes"));
    }

    #[test]
    fn writes_pretty_and_compact() {
        let write = |pretty| {
            let mut w = Writer::new(pretty);
            w.open("", '{');
            w.open("a", '[');
            w.uint("", 1);
            w.open("", '{');
            w.int("b", -3);
            w.close('}');
            w.open("", '[');
            w.close(']');
            w.open("", '{');
            w.close('}');
            w.close(']');
            w.str("s", "q\"\\\u{1}\té");
            w.flag("t", true);
            w.close('}');
            w.finish()
        };
        let compact = write(false);
        assert_eq!(compact, "{\"a\":[1,{\"b\":-3},[],{}],\"s\":\"q\\\"\\\\\\u0001\\t\\u00e9\",\"t\":true}");
        assert_eq!(
            write(true),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": -3\n    },\n    [],\n    {}\n  ],\n  \"s\": \"q\\\"\\\\\\u0001\\té\",\n  \"t\": true\n}"
        );
        assert!(parse(&compact).is_ok());
        assert!(parse(&write(true)).is_ok());
        // Compact is ASCII: beyond U+FFFF as a surrogate pair.
        let mut w = Writer::new(false);
        w.str("", "😀");
        assert_eq!(w.finish(), "\"\\ud83d\\ude00\"");
    }
}
