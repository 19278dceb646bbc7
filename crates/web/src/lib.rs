//! offsetlab's page: the engine's simulation drawn with Yew.
//!
//! - [`state`]: the one `Reducible` state, which owns the engine's `Sim`.
//! - [`components`]: one component per file; they render and dispatch.
//! - [`frames`], [`seed`]: the clock (animation frames) and the `?seed=` in the URL.
//! - [`published`], [`panic`], [`js_api`]: what the page shares with the
//!   browser outside Yew (panic banner, `window.offsetlab_view()`).
//!
//! [`start`] is the page's entry point (called by the binary trunk builds).

pub mod components;
pub mod frames;
pub mod js_api;
pub mod panic;
pub mod published;
pub mod seed;
pub mod state;

pub use components::{App, AppProps};
use yew::AttrValue;

/// Starts the page: installs the panic hook and `window.offsetlab_view`,
/// picks the seed (`?seed=N`, else a random one, written back into the URL so
/// the link reproduces the run) and renders [`App`] into `<body>`.
pub fn start() {
    panic::install();
    if let Err(e) = js_api::install() {
        web_sys::console::error_2(&"offsetlab: cannot set window.offsetlab_view:".into(), &e);
    }
    let choice = seed::from_location_or_random();
    if let Err(e) = seed::write_to_location(choice.seed) {
        web_sys::console::error_2(&"offsetlab: cannot write the seed into the URL:".into(), &e);
    }
    let props =
        AppProps { seed: Some(choice.seed), notice: choice.notice.map(AttrValue::from), detached: false };
    yew::Renderer::<App>::with_props(props).render();
}

// The unit tests run in headless Chromium too (`cargo test --target wasm32-unknown-unknown`).
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
