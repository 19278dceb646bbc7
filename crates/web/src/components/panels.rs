//! The panels a first visit does not need (consumer settings, offset
//! storage, operations, sharing), behind a row of disclosure buttons under the
//! simulation: one open at most, none at first. A closed panel is not
//! rendered at all, so it costs nothing per tick. What an open panel shows is
//! one of the parts below the first screen (`crate::below`): until they have
//! loaded, it says so.

use crate::components::class_list;
use crate::components::{SectionProps, send};
use crate::state::{Action, Panel};
use yew::prelude::*;

#[component]
pub fn Panels(props: &SectionProps) -> Html {
    let open = props.state.ui.panel;
    let state = &props.state;
    let on_action = &props.on_action;
    html! {
        <div class="panels">
            <div class="panel-tabs" role="group" aria-label="More of the simulation">
                { for Panel::ALL.into_iter().map(|panel| {
                    let is_open = open == Some(panel);
                    let next = (!is_open).then_some(panel);
                    html! {
                        <button type="button" key={panel.slug()} data-panel={panel.slug()}
                            class={class_list(&[Some("panel-tab"), is_open.then_some("is-open")])}
                            aria-expanded={is_open.to_string()} aria-controls={format!("panel-{}", panel.slug())}
                            onclick={send(on_action, Action::ShowPanel(next))}>
                            { panel.title() }
                        </button>
                    }
                }) }
            </div>
            if let Some(panel) = open {
                <div class="panel-body" id={format!("panel-{}", panel.slug())} data-open-panel={panel.slug()}>
                    if let Some(parts) = state.ui.parts {
                        { (parts.panel)(panel, state, on_action) }
                    } else {
                        <p class="panel-loading" data-field="panel-loading">
                            { if state.ui.parts_failed.is_some() {
                                "This panel could not load: reload the page."
                            } else {
                                "Loading this panel…"
                            } }
                        </p>
                    }
                </div>
            }
        </div>
    }
}
