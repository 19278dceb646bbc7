//! Reading pinned versions out of Cargo.lock, package.json, Trunk.toml and a pom.xml, without parsers
//! for the whole formats: each lookup is a small, well-defined shape.

/// The version of package `name` in a Cargo.lock (the first `[[package]]` of that name).
pub fn lock_version(lock: &str, name: &str) -> Option<String> {
    let mut in_package = false;
    let mut current_name: Option<String> = None;
    for line in lock.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[[package]]";
            current_name = None;
        } else if in_package {
            if let Some(value) = toml_value(line, "name") {
                current_name = Some(value);
            } else if current_name.as_deref() == Some(name) {
                if let Some(value) = toml_value(line, "version") {
                    return Some(value);
                }
            }
        }
    }
    None
}

/// The string value of top-level-looking `key = "value"` lines of a TOML file (first match).
pub fn toml_string(toml: &str, key: &str) -> Option<String> {
    toml.lines().find_map(|line| toml_value(line.trim(), key))
}

fn toml_value(line: &str, key: &str) -> Option<String> {
    let rest = line.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    rest.split_once('"').map(|(value, _)| value.to_owned())
}

/// The string value of the first `"key": "value"` pair in a JSON text.
pub fn json_string(json: &str, key: &str) -> Option<String> {
    let quoted = format!("\"{key}\"");
    json.match_indices(&quoted).find_map(|(at, _)| {
        let rest = json[at + quoted.len()..].trim_start().strip_prefix(':')?.trim_start();
        let rest = rest.strip_prefix('"')?;
        rest.split_once('"').map(|(value, _)| value.to_owned())
    })
}

/// The text of the first `<element>text</element>` in an XML text, trimmed: a pom's
/// `<kafka.version>4.4.0</kafka.version>` property.
pub fn xml_text(xml: &str, element: &str) -> Option<String> {
    let open = format!("<{element}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{element}>"))?;
    Some(xml[start..start + end].trim().to_owned())
}

/// Whether `version` is an exact `MAJOR.MINOR.PATCH` (no range operators, no pre-release).
pub fn is_exact(version: &str) -> bool {
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "wasm-bindgen-test"
version = "0.3.80"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = [
 "wasm-bindgen",
]

[[package]]
name = "wasm-bindgen"
version = "0.2.130"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;

    #[test]
    fn finds_the_locked_version_of_a_package() {
        assert_eq!(lock_version(LOCK, "wasm-bindgen").as_deref(), Some("0.2.130"));
        assert_eq!(lock_version(LOCK, "wasm-bindgen-test").as_deref(), Some("0.3.80"));
        assert_eq!(lock_version(LOCK, "yew"), None);
    }

    #[test]
    fn reads_toml_strings() {
        let toml = "[tools]\nwasm_opt = \"version_132\"\nwasm_opt_params = \"x\"\n";
        assert_eq!(toml_string(toml, "wasm_opt").as_deref(), Some("version_132"));
        assert_eq!(toml_string(toml, "sass"), None);
    }

    #[test]
    fn reads_json_strings_by_key_not_by_mention() {
        let json = r#"{ "description": "wasm-opt from \"binaryen\" here",
            "devDependencies": { "binaryen" : "132.0.0" } }"#;
        assert_eq!(json_string(json, "binaryen").as_deref(), Some("132.0.0"));
        assert_eq!(json_string(json, "missing"), None);
    }

    #[test]
    fn reads_xml_text() {
        let pom = "<properties>\n  <kafka.version>4.4.0</kafka.version>\n</properties>";
        assert_eq!(xml_text(pom, "kafka.version").as_deref(), Some("4.4.0"));
        assert_eq!(xml_text(pom, "scala.version"), None);
    }

    #[test]
    fn exact_versions_only() {
        assert!(is_exact("132.0.0"));
        assert!(!is_exact("^132.0.0"));
        assert!(!is_exact("132.0"));
        assert!(!is_exact("132.0.0-nightly.1"));
    }
}
