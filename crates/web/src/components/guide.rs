//! The running experiment's guide: the outcome check, live, first (it sits
//! at the first screen's bottom edge), then the learner's steps, the story
//! and what to watch.

use crate::components::class_list;
use crate::components::{SectionProps, send};
use crate::state::Action;
use yew::prelude::*;

#[component]
pub fn Guide(props: &SectionProps) -> Html {
    let state = &props.state;
    let scenario = &state.scenario;
    let Some(guide) = scenario.guide.as_ref() else { return html! {} };
    let guided = state.guided && !guide.steps.is_empty();
    let reproduced = state.outcome.is_some() && state.chosen();
    html! {
        <section class={class_list(&[Some("guide"), Some("panel"), reproduced.then_some("is-reproduced")])}
            data-field="guide" aria-labelledby="guide-heading">
            <p class="guide-topic">
                { guide.topic.title() }{ " · " }
                { if guided { "your turn" } else if guide.steps.is_empty() { "watch" } else { "the scripted run" } }
            </p>
            <h2 id="guide-heading"><code>{ &scenario.name }</code>{ ": " }{ crate::components::chapters::summary(scenario) }</h2>
            // Only an experiment the reader chose is checked: the default run is free play.
            if state.chosen() {
                <p class="guide-outcome" data-field="outcome" data-reproduced={reproduced.to_string()}>
                    if let Some(message) = state.outcome.as_deref() {
                        <strong>{ "✓ Reproduced. " }</strong>{ message }
                    } else {
                        <strong>{ "Not yet. " }</strong>{ state.outcome_pending.as_deref().unwrap_or_default() }
                    }
                </p>
            }
            if guided {
                <ol class="guide-steps" data-field="guide-steps">
                    { for guide.steps.iter().map(|step| html! { <li>{ step }</li> }) }
                </ol>
            }
            <p data-field="guide-story">{ &guide.story }</p>
            <p class="guide-watch"><strong>{ "What to watch: " }</strong>{ &scenario.watch }</p>
            <div class="guide-actions">
                if guided {
                    <button type="button" data-action="show-me-run"
                        onclick={send(&props.on_action, Action::Load(scenario.clone()))}>
                        { "Show me: play the whole script" }
                    </button>
                } else if !guide.steps.is_empty() {
                    <button type="button" data-action="try-it"
                        onclick={send(&props.on_action, Action::Guide(scenario.clone()))}>
                        { "Try it yourself" }
                    </button>
                }
            </div>
        </section>
    }
}
