//! The page's first render, written into `index.html` at build time, and its
//! hand-over to the live app.
//!
//! `crates/prerender` (a trunk `post_build` hook) renders [`App`] natively
//! with Yew's server renderer, with [`first_render_props`], and puts the HTML
//! in place of [`MARKER`] inside the element [`ROOT_ID`] of the staged
//! `index.html`. The browser paints it as soon as the HTML and CSS arrive,
//! before the wasm has downloaded.
//!
//! The live app does not hydrate that copy: the URL's seed or link, `?embed=1`
//! and a random seed all render differently from the build's fixed first
//! render, and a hydration mismatch would break the page. It mounts fresh
//! into its own root ([`live_root`]), hidden, and [`Live`] shows it and
//! removes the copy in one go after the app's first render. Yew may let the
//! browser paint between the first render and its effects (it yields every
//! 16 ms once no first render is pending): that frame still shows the copy
//! alone, so no frame shows both or neither. Parts below the first screen
//! can wait until the browser is idle ([`Deferred`]): a clone of their copy
//! stands in inside the live app meanwhile.

use crate::components::{App, AppProps};
use yew::prelude::*;

mod deferred;

pub(crate) use deferred::after_next_frame;
pub use deferred::{Deferred, DeferredProps};

/// The id of the element that holds the prerendered copy (see `index.html`).
pub const ROOT_ID: &str = "offsetlab-prerender";

/// What the prerender replaces with the page's HTML (see `index.html`). An
/// element, not a comment, and written as the release build's minifier writes
/// it (no quotes): the minifier removes comments, and the hook reads the
/// minified page.
pub const MARKER: &str = "<template id=offsetlab-prerender-here></template>";

/// The attribute on a part of the prerendered copy that stands in, moved into
/// the live app, until the app renders that part ([`Deferred`]).
pub const STANDING_IN: &str = "data-prerendered";

/// The prerender's seed: fixed, so that a build is reproducible. The live app
/// then runs the URL's seed or a random one; the seed is not in the layout.
pub const SEED: u64 = 1;

/// The id of the element the live app renders into, after the prerendered copy.
pub const LIVE_ID: &str = "offsetlab-live";

/// A new, empty `<div id=LIVE_ID>` at the end of `<body>`, for the live app:
/// hidden while the page shows a prerendered copy, until [`Live`] swaps them.
/// Not `<body>` itself: Yew empties its root when it mounts, a microtask
/// before the first render, and the copy must stay on screen until that
/// render is done. A plain block adds nothing to the layout.
///
/// # Errors
/// When the page has no document or body, or the DOM refuses the element.
pub fn live_root() -> Result<web_sys::Element, wasm_bindgen::JsValue> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let body = document.body().ok_or("no body")?;
    let root = document.create_element("div")?;
    root.set_id(LIVE_ID);
    if document.get_element_by_id(ROOT_ID).is_some() {
        root.set_attribute("hidden", "")?;
    }
    body.append_child(&root)?;
    Ok(root)
}

/// The props the prerender renders [`App`] with: the default scenario, a
/// fixed seed, not playing, the whole page (an embed hides the copy instead,
/// see `index.html`).
#[must_use]
pub fn first_render_props() -> AppProps {
    AppProps { seed: Some(SEED), notice: None, detached: false, link: None, embed: false, tape_shown: None }
}

/// The cells a tape's box shows in the prerendered copy, as a tape of the
/// live app measures its own box once rendered: measured before the first
/// render, the app draws its tapes at their width at once, instead of at the
/// default width and then all over again when they are measured. `None`
/// without a copy, or a hidden one (an embed).
#[must_use]
pub fn tape_cells_shown() -> Option<u64> {
    let copy = web_sys::window()?.document()?.get_element_by_id(ROOT_ID)?;
    crate::components::tape_cells_shown(&copy)
}

/// The live app, mounted once the wasm runs: [`App`] with `props`, and the
/// prerendered copy removed right after the app's first render.
#[component]
pub fn Live(props: &AppProps) -> Html {
    // A parent's effects run after its children's first renders: the whole
    // app is there, hidden, when this swaps it in.
    use_effect_with((), |()| remove_prerendered());
    html! { <App ..props.clone() /> }
}

/// Shows the live app in place of the prerendered copy, in one go (a build
/// without the hook, or a test page, has neither the copy nor the root).
fn remove_prerendered() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    if let Some(copy) = document.get_element_by_id(ROOT_ID) {
        copy.remove();
    }
    if let Some(root) = document.get_element_by_id(LIVE_ID) {
        let _ = root.remove_attribute("hidden");
    }
}
