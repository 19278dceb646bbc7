//! The page's read-only JavaScript hook, for end-to-end tests and, later,
//! documentation that embeds the page:
//!
//! ```js
//! const view = window.offsetlab_view(); // the engine's View at the tick on screen
//! view.tick; view.seed; view.metrics.delivered; view.consumers[0].state;
//! window.offsetlab_memory().wasm_bytes; // the wasm linear memory's size, for the bench
//! ```
//!
//! It returns the [`offsetlab_engine::View`] last rendered, converted with
//! `serde-wasm-bindgen`'s JSON-compatible serializer (plain objects, `null`
//! for absent values, numbers for integers), or `null` before the first
//! render. Each call builds a fresh object; changing it changes nothing.
//!
//! Both are properties of `window` set from Rust at startup, not a wasm-bindgen
//! export, so it does not depend on how the bundler exposes exports (trunk's
//! `window.wasmBindings`) and is there as soon as the app starts. Its one
//! [`Closure`]s live for the page's lifetime in a thread-local: created once,
//! never leaked with `forget`.

use crate::published;
use serde::Serialize as _;
use std::cell::OnceCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// The name of the function on `window`.
pub const NAME: &str = "offsetlab_view";
/// The name of the memory probe on `window`.
pub const MEMORY_NAME: &str = "offsetlab_memory";

type ViewFn = Closure<dyn Fn() -> Result<JsValue, JsValue>>;

thread_local! {
    static VIEW_FN: OnceCell<ViewFn> = const { OnceCell::new() };
    static MEMORY_FN: OnceCell<ViewFn> = const { OnceCell::new() };
}

/// Sets `window.offsetlab_view` and `window.offsetlab_memory`. Calling it
/// again reuses the same closures.
pub fn install() -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    VIEW_FN.with(|cell| {
        let function = cell.get_or_init(|| Closure::new(current_view));
        js_sys::Reflect::set(&window, &JsValue::from_str(NAME), function.as_ref()).map(drop)
    })?;
    MEMORY_FN.with(|cell| {
        let function = cell.get_or_init(|| Closure::new(memory));
        js_sys::Reflect::set(&window, &JsValue::from_str(MEMORY_NAME), function.as_ref()).map(drop)
    })
}

/// `{ wasm_bytes }`: the size of the wasm linear memory (it only grows, so a
/// run whose memory is flat keeps it flat).
pub fn memory() -> Result<JsValue, JsValue> {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().dyn_into()?;
    let bytes = memory.buffer().dyn_into::<js_sys::ArrayBuffer>()?.byte_length();
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &JsValue::from_str("wasm_bytes"), &JsValue::from_f64(f64::from(bytes)))?;
    Ok(out.into())
}

/// The current view as a JavaScript object, or `null`; throws if it cannot be converted.
pub fn current_view() -> Result<JsValue, JsValue> {
    let Some(view) = published::view() else { return Ok(JsValue::NULL) };
    view.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(JsValue::from)
}
