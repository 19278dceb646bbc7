//! offsetlab's page: the engine's simulation drawn with Yew.
//!
//! - [`state`]: the one `Reducible` state, which owns the engine's `Sim`.
//! - [`components`]: one component per file; they render and dispatch.
//! - [`frames`], [`seed`]: the clock (animation frames) and the `?seed=` in the URL.
//! - [`published`], [`panic`], [`js_api`]: what the page shares with the
//!   browser outside Yew (panic banner, `window.offsetlab_view()`).
//! - [`prerender`]: the first render written into `index.html` at build time,
//!   and the live app that replaces it.
//! - [`builtins`]: the built-in scenarios the wasm does not carry, fetched.
//!
//! [`start`] is the page's entry point (called by the binary trunk builds).

pub mod below;
pub mod builtins;
pub mod components;
pub mod frames;
pub mod js_api;
pub mod panic;
pub mod prerender;
pub mod published;
pub mod seed;
pub mod state;

pub use components::{App, AppProps};
use yew::AttrValue;

/// Starts the page: installs the panic hook and `window.offsetlab_view`,
/// fetches the built-ins first when the URL's link names one the wasm does
/// not carry ([`builtins`]), reads the URL — a shared run's link (`?h=…&s=…&seed=…&in=…`), a plain
/// `?seed=N`, `embed=1` for an iframe — and renders [`App`] into its root at
/// the end of `<body>`, in place of the copy prerendered at build time
/// ([`prerender::Live`]).
/// The app then keeps the URL a link to what is on screen.
pub fn start() {
    if let Err(e) = panic::install() {
        web_sys::console::error_2(&"offsetlab: cannot set window.offsetlab_stopped:".into(), &e);
    }
    if let Err(e) = js_api::install() {
        web_sys::console::error_2(&"offsetlab: cannot set window.offsetlab_view:".into(), &e);
    }
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    if builtins::needed_by(&search) {
        // A link to a built-in the wasm does not carry: its first render needs the file.
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = builtins::load().await {
                // The link then names a scenario that did not load, and says so.
                web_sys::console::error_1(&format!("offsetlab: {e}").into());
            }
            mount(&search);
        });
    } else {
        mount(&search);
    }
}

/// Reads the URL's link (`search`) and renders the app.
fn mount(search: &str) {
    let embed = search.trim_start_matches('?').split('&').any(|pair| pair == "embed=1");
    if embed {
        if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
            let _ = root.class_list().add_1("embedded");
        }
    }
    let choice = seed::from_location_or_random();
    let props = AppProps {
        seed: Some(choice.seed),
        notice: choice.notice.map(AttrValue::from),
        detached: false,
        link: Some(AttrValue::from(search)),
        embed,
        tape_shown: prerender::tape_cells_shown(),
    };
    match prerender::live_root() {
        Ok(root) => yew::Renderer::<prerender::Live>::with_root_and_props(root, props).render(),
        Err(e) => {
            web_sys::console::error_2(&"offsetlab: cannot make the app's root:".into(), &e);
            yew::Renderer::<prerender::Live>::with_props(props).render()
        }
    };
}

// The unit tests run in headless Chromium too (`cargo test --target wasm32-unknown-unknown`).
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
