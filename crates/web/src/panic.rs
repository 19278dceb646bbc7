//! A panic must not leave a frozen page that looks alive: the hook says what
//! happened in a banner at the top of the page, with the seed and tick to
//! reproduce it, and logs the same to the console.
//!
//! Two paths lead to the banner:
//! - The hook, installed with [`yew::set_custom_panic_hook`] (which calls
//!   [`std::panic::set_hook`] and stops Yew from replacing the hook with its
//!   default when the app renders). Every build runs it on a panic, the
//!   published page's too (`panic = "abort"` runs the hook before the wasm
//!   traps; docs/page-build.md, "The page's toolchain"), and the banner quotes
//!   the panic's message.
//! - `window.offsetlab_stopped`, which index.html's script calls when a
//!   `WebAssembly.RuntimeError` reaches the window uncaught. After a panic the
//!   hook has already said it all; a trap that is not a panic (an abort,
//!   memory exhausted) runs no hook and has no message, so the banner says
//!   what trapped.

use crate::published;
use std::cell::OnceCell;
use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicBool, Ordering};
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;

/// Set by the first panic. The wasm instance is dead after it (the release
/// build aborts), so the timer stops calling into it ([`crate::frames`]).
static PANICKED: AtomicBool = AtomicBool::new(false);

/// Whether the page has panicked.
#[must_use]
pub fn has_panicked() -> bool {
    PANICKED.load(Ordering::Relaxed)
}

/// The banner's element id (the app creates it; index.html has no part in it).
pub const BANNER_ID: &str = "offsetlab-panic";

/// The name of the function on `window` that index.html's script calls when
/// the wasm has trapped.
pub const STOPPED_NAME: &str = "offsetlab_stopped";

thread_local! {
    /// `window.offsetlab_stopped`, for the page's lifetime (never `forget`).
    static STOPPED_FN: OnceCell<Closure<dyn Fn(JsValue)>> = const { OnceCell::new() };
}

/// Installs the hook (the last call wins) and sets `window.offsetlab_stopped`.
pub fn install() -> Result<(), JsValue> {
    yew::set_custom_panic_hook(Box::new(hook));
    let window = web_sys::window().ok_or("no window")?;
    STOPPED_FN.with(|cell| {
        let function = cell.get_or_init(|| Closure::new(stopped));
        js_sys::Reflect::set(&window, &JsValue::from_str(STOPPED_NAME), function.as_ref()).map(drop)
    })
}

/// What the banner says under a trap that was not a panic, which has no
/// message of its own.
const TRAP_NOTE: &str = "The wasm trapped without a panic (an abort, or memory exhausted), so \
     there is no message beyond the error above. This page's address is a link to the run up to \
     here: open it again to replay the run, or on the page that `cargo xtask serve --dev` serves, \
     whose debug build checks more.";

/// Called with the uncaught `WebAssembly.RuntimeError` (as text) once the wasm
/// has trapped. It reads only plain data ([`published::run`]'s `Cell`) and
/// the DOM: whatever the trap interrupted may still be borrowed.
fn stopped(error: JsValue) {
    if PANICKED.swap(true, Ordering::Relaxed) {
        // The hook has already shown the banner, with the panic's message.
        return;
    }
    let error = error.as_string().unwrap_or_else(|| "WebAssembly.RuntimeError".to_string());
    announce(&format!("{error}\n{TRAP_NOTE}"));
}

fn hook(info: &PanicHookInfo<'_>) {
    PANICKED.store(true, Ordering::Relaxed);
    announce(&info.to_string());
}

/// The console line and the banner, for the run on screen.
fn announce(what: &str) {
    let run = published::run();
    let text = report(what, run);
    web_sys::console::error_1(&js_sys::Error::new(&text).into());
    // Nothing more can be done if the DOM refuses; the console has it.
    let _ = show_banner(&text, run.map(|(seed, _)| seed));
}

/// The banner's text: what happened and how to reproduce it.
#[must_use]
pub fn report(panic: &str, run: Option<(u64, u64)>) -> String {
    let at = match run {
        Some((seed, tick)) => format!(
            "after tick {tick} with seed {seed}. To reproduce, open this page with ?seed={seed} \
             and repeat the same inputs up to tick {tick}"
        ),
        None => "before the first tick was shown".to_string(),
    };
    format!("offsetlab stopped: the simulation panicked {at}. Reload the page to start again.\n\n{panic}")
}

/// Puts the banner at the top of `<body>` (once: later calls leave the first).
pub fn show_banner(text: &str, seed: Option<u64>) -> Result<(), JsValue> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let body = document.body().ok_or("no body")?;
    if document.get_element_by_id(BANNER_ID).is_some() {
        return Ok(());
    }
    let banner = document.create_element("div")?;
    banner.set_id(BANNER_ID);
    banner.set_class_name("panic-banner");
    banner.set_attribute("role", "alert")?;
    let message = document.create_element("pre")?;
    message.set_text_content(Some(text));
    banner.append_child(&message)?;
    if let Some(seed) = seed {
        let link = document.create_element("a")?;
        link.set_attribute("href", &format!("?seed={seed}"))?;
        link.set_text_content(Some(&format!("Start again with seed {seed}")));
        banner.append_child(&link)?;
    }
    body.insert_before(&banner, body.first_child().as_ref())?;
    // Dims the dead page (styles/main.css) while keeping its text selectable.
    body.set_attribute("data-offsetlab-stopped", "")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_report_names_seed_and_tick() {
        let text = report("panicked at src/sim.rs:1:1:\nboom", Some((42, 17)));
        assert!(text.contains("after tick 17 with seed 42"), "{text}");
        assert!(text.contains("?seed=42"), "{text}");
        assert!(text.ends_with("boom"), "{text}");
        assert!(report("boom", None).contains("before the first tick"));
    }

    #[cfg(target_arch = "wasm32")]
    #[test]
    fn a_trap_stops_the_page_with_a_banner_that_names_the_run() {
        PANICKED.store(false, Ordering::Relaxed);
        let config = offsetlab_engine::Config { seed: 1234, ..offsetlab_engine::Config::default() };
        published::publish(std::rc::Rc::new(offsetlab_engine::Sim::new(config).unwrap().view()));
        install().unwrap();
        let window = web_sys::window().unwrap();
        let function: js_sys::Function =
            js_sys::Reflect::get(&window, &JsValue::from_str(STOPPED_NAME)).unwrap().into();
        function.call1(&JsValue::NULL, &JsValue::from_str("RuntimeError: unreachable")).unwrap();
        assert!(has_panicked());
        let document = window.document().unwrap();
        let banner = document.get_element_by_id(BANNER_ID).expect("the banner");
        let text = banner.text_content().unwrap_or_default();
        assert!(text.contains("with seed 1234"), "{text}");
        assert!(text.contains("RuntimeError: unreachable"), "{text}");
        assert!(text.contains("Start again with seed 1234"), "{text}");
        banner.remove();
        let _ = document.body().unwrap().remove_attribute("data-offsetlab-stopped");
        PANICKED.store(false, Ordering::Relaxed);
    }
}
