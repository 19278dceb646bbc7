//! The buttons: the timer, one step, and a few engine inputs.

use offsetlab_engine::{ConsumerId, Input};
use yew::prelude::*;

/// Records "Send 10" sends.
pub const SEND_COUNT: u32 = 10;
/// Records per tick while "Keep sending" is on.
pub const KEEP_SENDING_PER_TICK: u32 = 1;
/// The consumer "Crash c1" crashes.
pub const CRASH_TARGET: ConsumerId = ConsumerId(1);

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ControlsProps {
    /// Whether the timer runs.
    pub playing: bool,
    /// Whether the producer keeps sending every tick.
    pub keep_sending: bool,
    /// An input for the engine.
    pub on_input: Callback<Input>,
    /// Advance one tick.
    pub on_step: Callback<()>,
    /// Start or stop the timer.
    pub on_toggle_play: Callback<()>,
}

#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let input = |input: Input| props.on_input.reform(move |_: MouseEvent| input.clone());
    let toggle_play = props.on_toggle_play.reform(|_: MouseEvent| ());
    let step = props.on_step.reform(|_: MouseEvent| ());
    let per_tick = if props.keep_sending { 0 } else { KEEP_SENDING_PER_TICK };
    let (play_label, play_hint) = if props.playing {
        ("Pause", "Stop the clock")
    } else {
        ("Play", "Start the clock: one tick every 250 ms")
    };
    html! {
        <section class="controls" aria-labelledby="controls-heading">
            <h2 id="controls-heading" class="visually-hidden">{ "Controls" }</h2>
            <div class="control-group" role="group" aria-label="Clock">
                <button type="button" data-action="play" title={play_hint} onclick={toggle_play}>
                    { play_label }
                </button>
                <button type="button" data-action="step" title="Advance the simulation by one tick" onclick={step}>
                    { "Step one tick" }
                </button>
            </div>
            <div class="control-group" role="group" aria-label="Producer orders-api">
                <button
                    type="button"
                    data-action="send"
                    title="The producer sends 10 records now"
                    onclick={input(Input::Send { count: SEND_COUNT })}
                >
                    { format!("Send {SEND_COUNT}") }
                </button>
                <button
                    type="button"
                    data-action="keep-sending"
                    aria-pressed={if props.keep_sending { "true" } else { "false" }}
                    title="The producer sends one record every tick while this is on"
                    onclick={input(Input::KeepSending { per_tick })}
                >
                    { "Keep sending" }
                </button>
            </div>
            <div class="control-group" role="group" aria-label="Consumers">
                <button
                    type="button"
                    data-action="crash"
                    title="c1's process dies: no commit, no leave; the group notices when its session times out"
                    onclick={input(Input::Crash { consumer: CRASH_TARGET })}
                >
                    { format!("Crash {CRASH_TARGET}") }
                </button>
            </div>
        </section>
    }
}
