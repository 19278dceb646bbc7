//! Hand-written codecs for the scenario format and for shareable links.
//!
//! Why by hand: the page (crates/web) must read and write the same scenario
//! JSON as the CLI and put links in the URL, within a hard size budget of
//! 250,000 bytes gzip of wasm + js. serde's derived `Deserialize` for the
//! scenario types, with serde-wasm-bindgen, measured +43 KB gzip there; this
//! codec, links included, measured about half of that. Every byte of it is
//! on the page's budget: prefer tables and one shared path over code per
//! type. It is the only reader of the format: `Scenario::parse` and
//! `Scenario::to_json` use it, and so do links.
//!
//! - `json`: a minimal JSON value (no floats), a bounded parser whose errors
//!   carry the field path and the position, and a writer (pretty, or compact
//!   and ASCII).
//! - `scenario`: the format as a table; checking a JSON value against it,
//!   reading the typed scenario, writing it, with serde's former semantics.
//! - [`link`]: [`Link`], the query string of a shareable link.

pub(crate) mod json;
pub mod link;
pub(crate) mod scenario;

pub use link::{Link, LinkError, LinkScenario, QUERY_BYTES_MAX};

/// `text` in double quotes, with `"` and `\` escaped: how messages quote what
/// the user wrote. Not `{:?}`: `Debug` for `str` brings Unicode tables into
/// the page for no gain here.
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
