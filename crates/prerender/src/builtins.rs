//! The built-in scenarios the page's wasm does not carry, written beside the
//! page as one file that it fetches (`offsetlab_web::builtins`).

use offsetlab_engine::{BUILTINS, fnv1a_64};
use offsetlab_web::builtins::PLACEHOLDER;
use offsetlab_web::state::SCENARIO;

/// The file's name and content: every built-in but the starting point, as a
/// JSON list of `[name, scenario JSON]` pairs, named by a hash of the content
/// (FNV-1a 64) so that a page is never read with another build's file.
#[must_use]
pub fn file() -> (String, String) {
    let pairs: Vec<(&str, &str)> = BUILTINS.iter().copied().filter(|(name, _)| *name != SCENARIO).collect();
    let content = serde_json::to_string(&pairs).expect("strings serialize");
    let hash = fnv1a_64(content.bytes());
    (format!("builtins-{hash:016x}.json"), content)
}

/// `page` with the file's placeholder name (in its `<meta>`) replaced by `name`.
pub fn name_in(page: &str, name: &str) -> Result<String, String> {
    crate::replace_once(page, PLACEHOLDER, name).map_err(|n| {
        format!("the page has {n} of {PLACEHOLDER}, not one (index.html's <meta name=offsetlab-builtins>)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_holds_every_built_in_but_the_starting_point() {
        let (name, content) = file();
        let pairs: Vec<(String, String)> = serde_json::from_str(&content).unwrap();
        assert_eq!(pairs.len(), BUILTINS.len() - 1);
        for (name, text) in &pairs {
            assert_eq!(offsetlab_engine::Scenario::parse(text).unwrap().name, *name);
        }
        assert!(name.starts_with("builtins-") && name.ends_with(".json"));
        assert_eq!(file().0, name, "the same content, the same name");
        let page = format!("<meta name=offsetlab-builtins content={PLACEHOLDER}>");
        assert_eq!(name_in(&page, &name).unwrap(), format!("<meta name=offsetlab-builtins content={name}>"));
        assert!(name_in("<head></head>", &name).is_err());
    }
}
