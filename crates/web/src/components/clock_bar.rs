//! The clock: play, pause, one tick forward, speed, start again, the seed.

use crate::components::SectionProps;
use crate::components::class_list;
use crate::components::send;
use crate::state::{Action, SPEEDS};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// How the page names Kafka's group states: `PreparingRebalance` reads as "rebalancing".
#[must_use]
pub fn group_state_label(state: &str) -> &str {
    match state {
        "PreparingRebalance" => "rebalancing",
        other => other,
    }
}

/// "1 tick/s", "4 ticks/s".
fn speed_label(speed: u32) -> String {
    if speed == 1 { "1 tick/s".to_string() } else { format!("{speed} ticks/s") }
}

#[component]
pub fn ClockBar(props: &SectionProps) -> Html {
    let state = &props.state;
    let view = &state.view;
    let playing = state.playing;

    let on_play = send(&props.on_action, Action::SetPlaying(!playing));
    let on_step = send(&props.on_action, Action::Step);
    let on_restart = send(&props.on_action, Action::Restart);
    let on_speed = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(speed) = select.value().parse::<u32>() {
                on_action.emit(Action::SetSpeed(speed));
            }
        })
    };
    let group_state = group_state_label(&view.group_state);
    let rebalancing = view.group_state == "PreparingRebalance";

    html! {
        <section class="clock_bar" aria-label="Clock">
            <div class="clock-controls">
                <button type="button" class="clock-play" data-action="play" onclick={on_play}>
                    <span aria-hidden="true" class="clock-icon">{ if playing { "❚❚" } else { "▶" } }</span>
                    { if playing { "Pause" } else { "Play" } }
                </button>
                <button type="button" data-action="step" onclick={on_step}
                    title="Advance one tick (pauses the clock)">
                    { "Step" }<span class="wide-word">{ " one tick" }</span>
                </button>
                <label class="clock-speed">
                    <span>{ "Speed" }</span>
                    <select data-field="speed" onchange={on_speed}>
                        { for SPEEDS.iter().map(|&speed| html! {
                            <option key={speed} value={speed.to_string()} selected={speed == state.ui.speed}>
                                { speed_label(speed) }
                            </option>
                        }) }
                    </select>
                </label>
                <button type="button" data-action="restart" onclick={on_restart} aria-label="Start again"
                    title="Start this scenario again from tick 0 with the same seed">
                    <span aria-hidden="true">{ "↺" }<span class="wide-word">{ " Start again" }</span></span>
                </button>
            </div>
            <p class="clock-info">
                <span data-field="tick" class="clock-tick">{ format!("tick {}", view.tick) }</span>
                <span data-field="clock" class={class_list(&[Some("clock-state"), playing.then_some("is-playing")])}>
                    { if playing { "playing" } else { "paused" } }
                </span>
                <span class={class_list(&[Some("clock-group"), rebalancing.then_some("is-rebalancing")])}>
                    { "group " }<span data-field="group-state">{ group_state.to_string() }</span>
                </span>
                <span class="clock-scenario">
                    { "scenario " }<span data-field="scenario">{ state.scenario.name.clone() }</span>
                </span>
                <span data-field="seed" class="clock-seed">{ format!("seed {}", state.seed) }</span>
            </p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn labels() {
        assert_eq!(group_state_label("PreparingRebalance"), "rebalancing");
        assert_eq!(group_state_label("Stable"), "Stable");
        assert_eq!(speed_label(1), "1 tick/s");
        assert_eq!(speed_label(60), "60 ticks/s");
    }
}
