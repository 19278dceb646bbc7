//! A panic must not leave a frozen page that looks alive: the hook says what
//! happened in a banner at the top of the page, with the seed and tick to
//! reproduce it, and logs the same to the console.
//!
//! Installed with [`yew::set_custom_panic_hook`] (which calls
//! [`std::panic::set_hook`] and stops Yew from replacing the hook with its
//! default when the app renders). In the release build (`panic = "abort"`) the
//! hook still runs before the wasm traps.

use crate::published;
use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicBool, Ordering};
use wasm_bindgen::JsValue;

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

/// Installs the hook; the last call wins.
pub fn install() {
    yew::set_custom_panic_hook(Box::new(hook));
}

fn hook(info: &PanicHookInfo<'_>) {
    PANICKED.store(true, Ordering::Relaxed);
    let text = report(&info.to_string(), published::run());
    web_sys::console::error_1(&js_sys::Error::new(&text).into());
    // Nothing more can be done if the DOM refuses; the console has it.
    let _ = show_banner(&text, published::run().map(|(seed, _)| seed));
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
}
