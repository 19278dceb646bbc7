//! The built-in scenarios the page's wasm does not carry: all but the
//! starting point (the engine's `builtin-texts` feature is off in the page).
//! The build writes them beside the page as one JSON file, a list of
//! `[name, scenario JSON]` pairs (`crates/prerender`), and names it in
//! `<meta name="offsetlab-builtins">`. The page fetches it once it is usable
//! and gives it to the engine (`offsetlab_engine::provide_builtins`); the
//! parts that show built-ins (the chapters' experiments, the index, the
//! commit-cost table) wait for it. A link to one of them needs it before its
//! first render: index.html's first script starts that fetch with the page's
//! own requests, and [`load`] takes it over.

use js_sys::{Promise, Reflect};
use std::cell::Cell;
use wasm_bindgen::{JsCast as _, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The `<meta>` whose `content` is the file's address, relative to the page.
pub const META_NAME: &str = "offsetlab-builtins";

/// What index.html's `<meta>` holds until the build names the file (the
/// prerender hook replaces it with the file's name, which carries a hash of
/// its content so that a new build is never read with an old file).
pub const PLACEHOLDER: &str = "offsetlab-builtins.json";

/// The property of `window` that index.html's first script sets to the fetch
/// it started early (a link to a built-in), a `Promise` of its `Response`.
pub const EARLY: &str = "offsetlab_builtins";

thread_local! {
    /// A fetch was started: the page asks once.
    static ASKED: Cell<bool> = const { Cell::new(false) };
}

/// Whether the page at `query` (its URL's search) needs the file before its
/// first render: the link names a built-in this build neither carries nor
/// was given.
#[must_use]
pub fn needed_by(query: &str) -> bool {
    query.trim_start_matches('?').split('&').filter_map(|pair| pair.split_once('=')).any(|(key, name)| {
        matches!(key, "s" | "scenario")
            && matches!(
                offsetlab_engine::builtin(name),
                Err(offsetlab_engine::ScenarioError::BuiltinNotLoaded(_))
            )
    })
}

/// Fetches the file (or takes over the fetch index.html started) and gives
/// its built-ins to the engine: how many it gave. Once per page: a second
/// call gives none.
///
/// # Errors
/// What went wrong, naming the file: no such `<meta>`, the network, an HTTP
/// status, a file that is not the list of pairs, a pair the engine refused.
pub async fn load() -> Result<usize, String> {
    if ASKED.with(|asked| asked.replace(true)) || offsetlab_engine::builtins_loaded() {
        return Ok(0);
    }
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let url = document
        .query_selector(&format!("meta[name={META_NAME}]"))
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"))
        .filter(|url| url != PLACEHOLDER)
        .ok_or("the page names no file of built-in scenarios (the build writes it)")?;
    let early = Reflect::get(&window, &EARLY.into()).ok().and_then(|p| p.dyn_into::<Promise>().ok());
    let _ = Reflect::delete_property(&window, &EARLY.into());
    let fetch = early.unwrap_or_else(|| window.fetch_with_str(&url));
    let failed = |e: JsValue| {
        format!("{url}: {}", e.as_string().unwrap_or_else(|| String::from(js_sys::Error::from(e).message())))
    };
    let response: web_sys::Response = JsFuture::from(fetch)
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(|_| format!("{url}: not a response"))?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(failed)?)
        .await
        .map_err(failed)?
        .as_string()
        .unwrap_or_default();
    // serde_json, which the scenario reader links already (a JsValue reader would add its own).
    let mut pairs: Vec<(String, String)> =
        serde_json::from_str(&text).map_err(|e| format!("{url}: not a list of [name, JSON] pairs: {e}"))?;
    // The file holds every built-in of the build's full feature set: a page built
    // with fewer features (`--no-default-features`) takes its own.
    pairs.retain(|(name, _)| {
        offsetlab_engine::BUILTIN_NAMES.contains(&name.as_str())
            && !offsetlab_engine::BUILTINS.iter().any(|(carried, _)| carried == name)
    });
    offsetlab_engine::provide_builtins(pairs).map_err(|e| format!("{url}: {e}"))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    /// The tests' builds carry every built-in: no link needs the file.
    #[test]
    fn a_build_with_every_built_in_needs_no_file() {
        assert!(offsetlab_engine::builtins_loaded());
        assert!(!needed_by("?s=crash-commit-after&seed=3"));
        assert!(!needed_by("?scenario=no-such"));
        assert!(!needed_by(""));
    }
}
