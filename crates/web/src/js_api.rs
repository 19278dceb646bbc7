//! The page's read-only JavaScript hook, for end-to-end tests and, later,
//! documentation that embeds the page:
//!
//! ```js
//! const view = window.offsetlab_view(); // the engine's View at the tick on screen
//! view.tick; view.seed; view.metrics.delivered; view.consumers[0].state;
//! ```
//!
//! It returns the [`offsetlab_engine::View`] last rendered, converted with
//! `serde-wasm-bindgen`'s JSON-compatible serializer (plain objects, `null`
//! for absent values, numbers for integers), or `null` before the first
//! render. Each call builds a fresh object; changing it changes nothing.
//!
//! It is a property of `window` set from Rust at startup, not a wasm-bindgen
//! export, so it does not depend on how the bundler exposes exports (trunk's
//! `window.wasmBindings`) and is there as soon as the app starts. Its one
//! [`Closure`] lives for the page's lifetime in a thread-local: created once,
//! never leaked with `forget`.

use crate::published;
use serde::Serialize as _;
use std::cell::OnceCell;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;

/// The name of the function on `window`.
pub const NAME: &str = "offsetlab_view";

type ViewFn = Closure<dyn Fn() -> Result<JsValue, JsValue>>;

thread_local! {
    static VIEW_FN: OnceCell<ViewFn> = const { OnceCell::new() };
}

/// Sets `window.offsetlab_view`. Calling it again reuses the same closure.
pub fn install() -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    VIEW_FN.with(|cell| {
        let function = cell.get_or_init(|| Closure::new(current_view));
        js_sys::Reflect::set(&window, &JsValue::from_str(NAME), function.as_ref()).map(drop)
    })
}

/// The current view as a JavaScript object, or `null`; throws if it cannot be converted.
pub fn current_view() -> Result<JsValue, JsValue> {
    let Some(view) = published::view() else { return Ok(JsValue::NULL) };
    view.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(JsValue::from)
}
