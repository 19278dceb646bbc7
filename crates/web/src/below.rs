//! The parts of the page below the first screen, as one set of renderers
//! ([`Parts`]) the app calls once it has them.
//!
//! The page's build splits its wasm at [`load`] (the `split` feature, on in
//! `index.html`; the prerender hook cuts the module, see docs/page-build.md):
//! the renderers, and every function only they reach (the explainer's
//! chapters, the experiment index, the fine print, the simulation's
//! explanation, guide and announcer, its `--describe` table and timeline, and
//! the panels under it: settings, offset storage, operations and sharing),
//! are a second wasm that the page fetches once it is usable. The first usable
//! control then waits for the download of the first screen's code alone.
//! Until the parts arrive their prerendered copies stand in (`Deferred`); a
//! build without the feature (tests, the prerender, `trunk serve` without it)
//! has them from the start.

use crate::components::chapters::{ChapterSection, ChapterSectionProps, ExperimentIndexProps};
use crate::components::{
    Announcer, Booblik, DescribeTable, DescribeTableProps, ExperimentIndex, ExplanationPanel, FinePrint,
    Guide, Operations, Settings, Share, Timeline,
};
use crate::state::{Action, AppState, Panel};
use std::rc::Rc;
use yew::prelude::*;

/// The renderers of the parts below the first screen. There is one set, so
/// any two are equal (the app's state holds it once it has arrived).
#[derive(Clone, Copy)]
pub struct Parts {
    /// The simulation's explanation, with its guide and announcer (`#explanation`).
    pub explanation: fn(&AppState, &Callback<Action>) -> Html,
    /// The `--describe` table (`#describe`).
    pub describe: fn(DescribeTableProps) -> Html,
    /// The timeline (`#simulation > .timeline`).
    pub timeline: fn(&AppState, &Callback<Action>) -> Html,
    /// One chapter of the explainer.
    pub chapter: fn(ChapterSectionProps) -> Html,
    /// The experiment index (`#experiments`).
    pub index: fn(ExperimentIndexProps) -> Html,
    /// The fine print (`#fine-print`).
    pub fine_print: fn() -> Html,
    /// What an open panel under the simulation shows.
    pub panel: fn(Panel, &AppState, &Callback<Action>) -> Html,
}

impl PartialEq for Parts {
    fn eq(&self, _: &Parts) -> bool {
        true
    }
}

impl std::fmt::Debug for Parts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Parts")
    }
}

/// The parts, when the build has them from the start (it is not split).
#[must_use]
pub fn at_start() -> Option<Parts> {
    if cfg!(all(feature = "split", target_arch = "wasm32")) { None } else { Some(parts()) }
}

/// How many times [`load`] fetches the second wasm before it gives up, and
/// how long it waits before each try after the first, in ms.
pub const LOAD_RETRY_DELAYS_MS: [i32; 2] = [500, 2_000];

/// The parts, once their wasm has loaded (at once when the build is not
/// split), or why it did not, after a try and [`LOAD_RETRY_DELAYS_MS`]'s.
pub async fn load() -> Result<Parts, Rc<str>> {
    #[cfg(all(feature = "split", target_arch = "wasm32"))]
    {
        let mut tried = split_parts().await;
        for delay_ms in LOAD_RETRY_DELAYS_MS {
            if tried.is_ok() {
                break;
            }
            sleep(delay_ms).await;
            tried = split_parts().await;
        }
        // The helpers' error says only that it failed; the browser's console has why.
        tried.map_err(|_| {
            Rc::from(format!("its wasm could not be fetched after {} tries", LOAD_RETRY_DELAYS_MS.len() + 1))
        })
    }
    #[cfg(not(all(feature = "split", target_arch = "wasm32")))]
    {
        Ok(parts())
    }
}

/// The split point: this function, and what only it reaches, is the second
/// wasm. A failed fetch is an error, not a panic (`fallible`), and is not
/// remembered: the next call fetches again.
#[cfg(all(feature = "split", target_arch = "wasm32"))]
#[wasm_split_helpers::wasm_split(below, fallible)]
fn split_parts() -> Result<Parts, wasm_split_helpers::SplitLoaderError> {
    Ok(parts())
}

/// Resolves after `ms` (the browser's timer).
#[cfg(all(feature = "split", target_arch = "wasm32"))]
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

fn parts() -> Parts {
    Parts { explanation, describe, timeline, chapter, index, fine_print, panel }
}

fn explanation(state: &AppState, on_action: &Callback<Action>) -> Html {
    html! {
        <div class="explain" id="explanation">
            <ExplanationPanel explaining={state.explaining.clone()} tick={state.tick()}
                on_action={on_action.clone()} />
            <Guide state={state.clone()} on_action={on_action.clone()} />
            <Announcer state={state.clone()} on_action={on_action.clone()} />
        </div>
    }
}

fn describe(props: DescribeTableProps) -> Html {
    html! { <DescribeTable ..props /> }
}

fn timeline(state: &AppState, on_action: &Callback<Action>) -> Html {
    html! { <Timeline state={state.clone()} on_action={on_action.clone()} /> }
}

fn chapter(props: ChapterSectionProps) -> Html {
    html! { <ChapterSection ..props /> }
}

fn index(props: ExperimentIndexProps) -> Html {
    html! { <ExperimentIndex ..props /> }
}

fn fine_print() -> Html {
    html! { <FinePrint /> }
}

fn panel(panel: Panel, state: &AppState, on_action: &Callback<Action>) -> Html {
    let (state, on_action) = (state.clone(), on_action.clone());
    match panel {
        Panel::Settings => html! { <Settings {state} {on_action} /> },
        Panel::OffsetStorage => html! { <Booblik {state} {on_action} /> },
        Panel::Operations => html! { <Operations {state} {on_action} /> },
        Panel::Share => html! { <Share {state} {on_action} /> },
    }
}
