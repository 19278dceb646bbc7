//! The timeline under the tapes: drag back to any tick reached, step one tick
//! back or forward, return to the present. The engine's `History` replays the
//! past exactly; an input at a past tick forks the timeline.

use crate::components::SectionProps;
use crate::components::class_list;
use crate::state::Action;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Input marks drawn on the track; the newest are kept past this.
const MARKS_MAX: usize = 200;

#[component]
pub fn Timeline(props: &SectionProps) -> Html {
    let state = &props.state;
    let tick = state.view.tick;
    let head = state.head;
    let past = tick < head;
    let on_action = &props.on_action;
    let on_input = on_action.reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::Seek(input.value().parse().unwrap_or(0))
    });
    let button =
        |action: &'static str, label: &'static str, title: &'static str, disabled: bool, a: Action| {
            html! {
                <button type="button" data-action={action} {title} {disabled}
                    onclick={on_action.reform(move |_: MouseEvent| a.clone())}>{ label }</button>
            }
        };
    let span = head.max(1) as f64;
    let skip = state.input_ticks.len().saturating_sub(MARKS_MAX);
    html! {
        <section class={class_list(&[Some("timeline"), past.then_some("is-past")])} aria-label="Timeline">
            <div class="timeline-track">
                <input type="range" data-field="timeline" min="0" max={head.to_string()}
                    value={tick.to_string()} aria-label="Show tick"
                    aria-valuetext={format!("tick {tick} of {head}")} oninput={on_input} />
                <div class="timeline-marks" aria-hidden="true">
                    { for state.input_ticks.iter().skip(skip).map(|&t| html! {
                        <span class="timeline-mark" style={format!("left:{}%", (t as f64 * 100.0 / span) as u32)}></span>
                    }) }
                </div>
            </div>
            <div class="timeline-controls">
                { button("step-back", "◀ Tick back", "Show the tick before (pauses)", tick == 0, Action::StepBack) }
                <span data-field="timeline-position">{ format!("tick {tick} of {head}") }</span>
                { button("step-forward", "Tick forward ▶", "Show the next tick (pauses)", false, Action::Step) }
                { button("to-now", "Back to now", "Show the furthest tick reached", !past, Action::Seek(head)) }
            </div>
            if past {
                <p class="timeline-note" data-field="timeline-note">
                    { "You are looking at the past. Play replays what happened next; any input here changes the \
                       past and discards everything after tick " }{ tick }{ "." }
                </p>
            }
        </section>
    }
}
