//! How messages quote what the user wrote: one helper for every module that words an error.

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
