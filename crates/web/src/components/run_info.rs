//! Which run is on screen: tick, seed, group state, and whether the clock runs.

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct RunInfoProps {
    pub tick: u64,
    pub seed: u64,
    /// Kafka's group state name.
    pub group_state: AttrValue,
    pub playing: bool,
}

#[component]
pub fn RunInfo(props: &RunInfoProps) -> Html {
    html! {
        <p class="run-info">
            <span data-field="tick">{ format!("tick {}", props.tick) }</span>
            <span data-field="seed">{ format!("seed {}", props.seed) }</span>
            <span data-field="group-state">{ format!("group demo: {}", props.group_state) }</span>
            <span data-field="clock">{ if props.playing { "playing" } else { "paused" } }</span>
        </p>
    }
}
