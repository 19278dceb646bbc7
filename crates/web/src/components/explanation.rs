//! Why an anomaly happened: the engine's chain of events for the record or
//! the counter the reader asked about, in sentences, each step a button
//! that shows the run at its tick with the part it names highlighted. A
//! counter's records are grouped by cause. Drawn in the simulation's
//! explanation place, above the running experiment's guide.

use crate::components::send;
use crate::state::{Action, Asked, Explaining};
use offsetlab_engine::{Explanation, Metric, Part, run_head, run_records, runs};
use std::rc::Rc;
use wasm_bindgen::JsCast as _;
use yew::prelude::*;

/// A counter's explanations drawn per cause; the rest are counted.
const PER_CAUSE_SHOWN: usize = 8;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ExplanationProps {
    pub explaining: Option<Rc<Explaining>>,
    /// The tick on screen.
    pub tick: u64,
    pub on_action: Callback<Action>,
}

/// What the explanation is about, as its heading says it.
fn title(e: &Explaining) -> String {
    match e.asked {
        Asked::Record { partition, offset, .. } => match e.explanations.first() {
            Some(first) => format!("Why P{partition}@{offset} was {}", first.anomaly.words()),
            None => format!("P{partition}@{offset}: nothing to explain"),
        },
        Asked::Counter { anomaly, .. } => {
            let label = Metric::named(anomaly.counter()).map_or(anomaly.words(), Metric::label);
            let counted = e.report.as_ref().map_or(0, |r| r.counted);
            match &e.other_group {
                Some(group) => format!("Why {label} in group {group} is {counted}"),
                None => format!("Why {label} is {counted}"),
            }
        }
    }
}

/// The step's part as `data-part` (tests): `consumer:c1`, `record:1@17`, `commit:1@18`, `group:0`, `producer`, `topic`.
fn part_key(part: Part) -> String {
    match part {
        Part::Consumer { consumer } => format!("consumer:{consumer}"),
        Part::Group { group } => format!("group:{group}"),
        Part::Record { partition, offset } => format!("record:{partition}@{offset}"),
        Part::Commit { partition, offset } => format!("commit:{partition}@{offset}"),
        Part::Producer => "producer".into(),
        Part::Topic => "topic".into(),
    }
}

/// Where the step's part is on the page, in words.
fn part_words(part: Part) -> String {
    match part {
        Part::Consumer { consumer } => consumer.to_string(),
        Part::Group { group } => format!("group {group}"),
        Part::Record { partition, offset } => format!("P{partition}@{offset}"),
        Part::Commit { partition, offset } => format!("commit P{partition}→{offset}"),
        Part::Producer => "producer".into(),
        Part::Topic => "brokers".into(),
    }
}

fn chain(x: &Explanation, shown: Option<(u64, Part)>, on_action: &Callback<Action>) -> Html {
    html! {
        <ol class="explain-steps">
            { for x.steps.iter().map(|s| {
                let current = shown == Some((s.tick, s.part));
                html! {
                    <li>
                        <button type="button" class="explain-step" data-step-tick={s.tick.to_string()} data-part={part_key(s.part)}
                            aria-current={current.then_some("step")}
                            title={format!("Show tick {} and highlight {}", s.tick, part_words(s.part))}
                            onclick={send(on_action, Action::ShowStep { tick: s.tick, part: s.part })}>
                            <span class="explain-tick">{ format!("tick {}", s.tick) }</span>
                            { " " }
                            <span class="explain-text">{ &s.text }</span>
                        </button>
                    </li>
                }
            }) }
        </ol>
    }
}

#[component]
pub fn ExplanationPanel(props: &ExplanationProps) -> Html {
    let node = use_node_ref();
    // Opened by the reader: the focus moves to it (a screen reader reads its heading).
    {
        let node = node.clone();
        let key = props.explaining.as_ref().map(|e| (e.asked, e.tick, e.by_reader));
        use_effect_with(key, move |key| {
            if let (Some((_, _, true)), Some(section)) = (key, node.cast::<web_sys::HtmlElement>()) {
                let _ = section.focus();
                // Its top clear of the sticky clock bar (its scroll-margin).
                section.scroll_into_view_with_bool(true);
            }
        });
    }
    // A step shown: its highlighted part is brought into view if it is not (the focus stays on the
    // step). When that took the steps out of view (a narrow screen), a button leads back to them.
    let steps_away = use_state_eq(|| false);
    {
        let step = props.explaining.as_ref().and_then(|e| e.step);
        let node = node.clone();
        let steps_away = steps_away.clone();
        use_effect_with(step, move |step| {
            steps_away.set(false);
            if step.is_some() {
                let part = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.query_selector("#simulation .explained").ok().flatten());
                if let Some(part) = part {
                    let options = web_sys::ScrollIntoViewOptions::new();
                    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
                    part.scroll_into_view_with_scroll_into_view_options(&options);
                }
                let height = web_sys::window().and_then(|w| w.inner_height().ok()?.as_f64()).unwrap_or(0.0);
                if let Some(section) = node.cast::<web_sys::Element>() {
                    let rect = section.get_bounding_client_rect();
                    steps_away.set(rect.top() > height || rect.bottom() < 0.0);
                }
            }
        });
    }
    // While the button shows, scrolling the steps back into view by hand hides it.
    {
        let node = node.clone();
        let steps_away = steps_away.clone();
        use_effect_with(*steps_away, move |away| {
            let listener = away.then(|| {
                let closure = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
                    let height =
                        web_sys::window().and_then(|w| w.inner_height().ok()?.as_f64()).unwrap_or(0.0);
                    if let Some(section) = node.cast::<web_sys::Element>() {
                        let rect = section.get_bounding_client_rect();
                        if rect.top() < height && rect.bottom() > 0.0 {
                            steps_away.set(false);
                        }
                    }
                });
                if let Some(window) = web_sys::window() {
                    let _ =
                        window.add_event_listener_with_callback("scroll", closure.as_ref().unchecked_ref());
                }
                closure
            });
            move || {
                if let (Some(closure), Some(window)) = (listener, web_sys::window()) {
                    let _ = window
                        .remove_event_listener_with_callback("scroll", closure.as_ref().unchecked_ref());
                }
            }
        });
    }
    let live = props.explaining.as_ref().map(|e| title(e)).unwrap_or_default();
    let Some(e) = props.explaining.as_ref() else {
        return html! { <p class="visually-hidden" aria-live="polite" data-field="explanation-live"></p> };
    };
    let on_action = &props.on_action;
    let standard = e
        .explanations
        .first()
        .map(|x| x.anomaly)
        .or(match e.asked {
            Asked::Counter { anomaly, .. } => Some(anomaly),
            Asked::Record { .. } => None,
        })
        .and_then(|a| a.standard_name());
    let body = match &e.report {
        Some(report) => {
            // Records whose chains read the same (one crash replays a batch) are one entry.
            let runs = runs(&report.explanations);
            let causes = report.causes.iter().map(|(cause, n)| {
                let of_cause: Vec<&[Explanation]> = runs.iter().copied().filter(|run| run[0].cause == *cause).collect();
                let shown: u64 =
                    of_cause.iter().take(PER_CAUSE_SHOWN).flat_map(|run| run.iter()).map(|x| x.records).sum();
                let more = n.saturating_sub(shown);
                html! {
                    <li class="explain-cause" key={*cause}>
                        // ASCII only: str::to_uppercase brings Unicode tables of several KB into the page.
                        <h3>{ format!("{}{}: {n} record{}", cause.get(..1).unwrap_or_default().to_ascii_uppercase(),
                            cause.get(1..).unwrap_or_default(), if *n == 1 { "" } else { "s" }) }</h3>
                        <ul class="explain-records">
                            { for of_cause.iter().take(PER_CAUSE_SHOWN).enumerate().map(|(i, run)| html! {
                                <li>
                                    <details open={i == 0}>
                                        <summary>{ run_head(run) }</summary>
                                        if let [first, _, ..] = run {
                                            <p class="explain-run-note">{ format!(
                                                "P{}@{}'s chain; the other {} records' chains differ only in their ticks.",
                                                first.partition, first.offset, run_records(run) - first.records.max(1)) }</p>
                                        }
                                        { chain(&run[0], e.step, on_action) }
                                    </details>
                                </li>
                            }) }
                        </ul>
                        if more > 0 {
                            <p class="explain-more">{ format!("and {more} more of this cause") }</p>
                        }
                    </li>
                }
            });
            html! {
                <>
                    if report.counted == 0 {
                        <p>{ "Nothing counted yet: play on until the counter rises, then ask again." }</p>
                    }
                    <ul class="explain-causes" data-field="explain-causes">{ for causes }</ul>
                    if report.unexplained > 0 {
                        <p class="explain-more">{ format!("{} counted record{} older than the run's memory of events: not explained.",
                            report.unexplained, if report.unexplained == 1 { " is" } else { "s are" }) }</p>
                    }
                </>
            }
        }
        None if e.explanations.is_empty() => html! {
            <p>{ "The engine counts no anomaly at this record as of this tick." }</p>
        },
        None => html! {
            { for e.explanations.iter().map(|x| html! {
                <div class="explain-record">
                    if e.explanations.len() > 1 {
                        <h3>{ x.head() }</h3>
                    }
                    { chain(x, e.step, on_action) }
                </div>
            }) }
        },
    };
    let onkeydown = {
        let on_action = on_action.clone();
        Callback::from(move |k: KeyboardEvent| {
            // Escape closes it unless a details' summary or a step has something of its own to do.
            let in_field = k.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).is_some();
            if k.key() == "Escape" && !in_field {
                k.prevent_default();
                on_action.emit(Action::Explain(None));
            }
        })
    };
    // On a narrow screen the step's part is far above the steps: a way back down to them.
    let to_steps = {
        let node = node.clone();
        let steps_away = steps_away.clone();
        Callback::from(move |_: MouseEvent| {
            steps_away.set(false);
            let Some(section) = node.cast::<web_sys::Element>() else { return };
            let current = section
                .query_selector("button.explain-step[aria-current]")
                .ok()
                .flatten()
                .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(button) = current {
                let _ = button.focus();
                button.scroll_into_view_with_bool(false);
            }
        })
    };
    html! {
        <>
        <p class="visually-hidden" aria-live="polite" data-field="explanation-live">{ live }</p>
        if e.step.is_some() && *steps_away {
            <button type="button" class="explain-return" data-action="to-explanation" onclick={to_steps}>
                { "↓ Back to the steps" }
            </button>
        }
        <section class="explanation panel" data-field="explanation" ref={node} tabindex="-1"
            aria-labelledby="explanation-heading" {onkeydown}>
            <div class="explanation-head">
                <h2 id="explanation-heading">{ title(e) }</h2>
                <button type="button" class="explanation-close" data-action="close-explanation"
                    aria-label="Close the explanation" onclick={send(on_action, Action::Explain(None))}>
                    { "Close ×" }
                </button>
            </div>
            <p class="explanation-when">
                { format!("As of tick {}. ", e.tick) }
                { "Each step is a button: it shows the run at that tick and highlights what it names." }
            </p>
            if let Some(name) = standard {
                <p class="explanation-standard">
                    { "Jepsen's Kafka checker calls this " }<code>{ name.name }</code>{ ": " }{ name.definition }{ "." }
                </p>
            }
            if e.step.is_some() && props.tick != e.tick {
                <p class="explanation-back">
                    <button type="button" class="primary" data-action="back-from-step"
                        onclick={send(on_action, Action::BackFromStep)}>
                        { format!("Back to tick {}, where you were", e.tick) }
                    </button>
                    <span class="explanation-showing">{ format!(" Showing tick {}.", props.tick) }</span>
                </p>
            }
            { body }
        </section>
        </>
    }
}
