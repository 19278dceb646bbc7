//! Record keys from the command line and from a keys file, as text or hex.

use crate::Failure;
use std::io::Read as _;
use std::path::Path;

/// One key: as the user wrote it, and the bytes Kafka hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub shown: String,
    pub bytes: Vec<u8>,
}

impl Key {
    fn new(text: &str, hex: bool) -> Result<Key, String> {
        let bytes = if hex { parse_hex(text)? } else { text.as_bytes().to_vec() };
        Ok(Key { shown: text.to_string(), bytes })
    }
}

/// The keys: `args` first, then the lines of `file` (empty lines skipped).
pub fn collect(args: &[String], file: Option<&Path>, hex: bool) -> Result<Vec<Key>, Failure> {
    if args.is_empty() && file.is_none() {
        return Err(Failure::new("no keys: give KEY arguments or --keys-file FILE"));
    }
    let mut keys = Vec::with_capacity(args.len());
    for (i, arg) in args.iter().enumerate() {
        let key = Key::new(arg, hex).map_err(|e| Failure::new(format!("key argument {}: {e}", i + 1)))?;
        keys.push(key);
    }
    if let Some(path) = file {
        let text = read_text(path)?;
        for (i, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            let key = Key::new(line, hex)
                .map_err(|e| Failure::new(format!("{}, line {}: {e}", path.display(), i + 1)))?;
            keys.push(key);
        }
    }
    Ok(keys)
}

/// A UTF-8 text file, or standard input for `-`.
fn read_text(path: &Path) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    let read = if path == Path::new("-") {
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    read.map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Failure::new(format!("{}: not UTF-8 text (invalid byte at offset {at})", path.display()))
    })
}

/// Hex digits, two per byte, no prefix or separators; `""` is the empty key.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    if let Some((i, c)) = text.chars().enumerate().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(format!("invalid hex key {text:?}: {c:?} at position {} is not a hex digit", i + 1));
    }
    if text.len() % 2 != 0 {
        return Err(format!(
            "invalid hex key {text:?}: odd number of hex digits ({}); each byte is two digits",
            text.len()
        ));
    }
    // All ASCII hex digits here, so every pair is a valid byte.
    Ok(text.as_bytes().chunks_exact(2).map(|pair| (hex_value(pair[0]) << 4) | hex_value(pair[1])).collect())
}

fn hex_value(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        _ => digit - b'A' + 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_decodes_both_cases() {
        assert_eq!(parse_hex("666F6f626172").unwrap(), b"foobar");
        assert_eq!(parse_hex("").unwrap(), b"");
        assert_eq!(parse_hex("00ff").unwrap(), vec![0, 255]);
    }

    #[test]
    fn hex_errors_name_the_problem() {
        assert!(parse_hex("abc").unwrap_err().contains("odd number"));
        assert!(parse_hex("zz").unwrap_err().contains("'z' at position 1"));
        assert!(parse_hex("0x12").unwrap_err().contains("'x' at position 2"));
        assert!(parse_hex("é1").unwrap_err().contains("'é' at position 1"));
    }
}
