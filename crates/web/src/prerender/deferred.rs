//! A part of the page below the first screen, made live a frame after the
//! rest while its prerendered copy stands in.

use wasm_bindgen::JsCast as _;
use wasm_bindgen::closure::Closure;
use yew::prelude::*;

use super::{ROOT_ID, STANDING_IN};

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct DeferredProps {
    /// A selector for the one element `children` render at their top, unique
    /// on the page (`.stage > .settings`): it finds the part's prerendered copy.
    pub copy: AttrValue,
    /// What the part shows is there (the built-ins it lists have loaded):
    /// until then its copy stands in, however idle the browser.
    #[prop_or(true)]
    pub ready: bool,
    pub children: Html,
}

/// Renders `children`, which render one element at their top, as they are
/// (no wrapper: a grid's `.stage > .settings` still matches). When the page
/// has a prerendered copy of the part, the app's first render puts a clone of
/// it here, inert, instead of rendering the children, and renders them once
/// the browser is idle after a frame (and the part is `ready`): the first render, which the first usable
/// control waits for, then
/// builds less and calls fewer of the wasm's functions for the first time
/// (each is compiled on its first call), and nothing on screen moves. Without
/// a copy (component tests, a build without the prerender) the children
/// render at once; natively (the prerender itself) they always do.
#[component]
pub fn Deferred(props: &DeferredProps) -> Html {
    // Cloned once: the prerendered root is gone after the first render.
    let standing_in = use_memo((), |()| copy_of(&props.copy));
    let live = use_state(|| standing_in.is_none());
    {
        let live = live.clone();
        let pending = standing_in.is_some() && !*live;
        use_effect_with(props.ready, move |&ready| {
            if pending && ready {
                after_next_frame(move || live.set(true));
            }
        });
    }
    if !*live {
        if let Some(copy) = standing_in.as_ref() {
            return Html::VRef(copy.clone());
        }
    }
    props.children.clone()
}

/// A clone of the prerendered copy matching `selector`, marked as standing in
/// and inert (a click on it would do nothing), or `None` natively and on a
/// page without one. A clone, not the copy itself: the copy stays on screen
/// until the live app replaces all of it, and Yew may let the browser paint
/// between the first render and that replace (see `prerender::Live`).
fn copy_of(selector: &str) -> Option<web_sys::Node> {
    if !cfg!(target_arch = "wasm32") {
        return None;
    }
    let document = web_sys::window()?.document()?;
    let copy = document.query_selector(&format!("#{ROOT_ID} {selector}")).ok()??;
    let clone: web_sys::Element = copy.clone_node_with_deep(true).ok()?.dyn_into().ok()?;
    let _ = clone.set_attribute(STANDING_IN, "");
    let _ = clone.set_attribute("inert", "");
    // Laid out only once on screen, at the copy's own height meanwhile (so
    // nothing moves): the frame that shows the live app first, and its first
    // usable control, does not lay out what is below the first screen. (The
    // copy is on screen and laid out: measuring it costs no layout.)
    // Whole pixels: formatting an f64 would add float formatting to the wasm.
    let height = copy.get_bounding_client_rect().height().ceil();
    if height >= 1.0 && height <= f64::from(u32::MAX) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // In range, checked above.
        let px = height as u32;
        let style = clone.get_attribute("style").map(|s| format!("{s};")).unwrap_or_default();
        let lazy = format!("{style}content-visibility:auto;contain-intrinsic-size:auto {px}px");
        let _ = clone.set_attribute("style", &lazy);
    }
    Some(clone.into())
}

/// Runs `then` once the browser is idle after the next frame: that frame
/// paints the first render (with the copy in place), and the parts then
/// render one per idle period, between frames and clicks, so the first usable
/// control does not wait behind them.
pub(crate) fn after_next_frame(then: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return then() };
    let idle = Closure::once_into_js(then);
    let first = {
        let window = window.clone();
        Closure::once_into_js(move || {
            if window.request_idle_callback(idle.unchecked_ref()).is_err() {
                web_sys::console::error_1(&"offsetlab: cannot render a deferred part".into());
            }
        })
    };
    if window.request_animation_frame(first.unchecked_ref()).is_err() {
        web_sys::console::error_1(&"offsetlab: cannot render a deferred part".into());
    }
}
