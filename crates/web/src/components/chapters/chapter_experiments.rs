//! A chapter's experiments inline: the featured ones in full (what they show,
//! what to watch, "Try it" / "Watch it"), the others as a line of links that
//! load them, as the index's do; the one running is drawn in full wherever it
//! is (its story and live check are with the simulation).

use super::{CHAPTERS, summary, title};
use crate::components::builtin;
use crate::components::class_list;
use crate::state::Action;
use offsetlab_engine::Scenario;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ChapterExperimentsProps {
    /// Index into [`CHAPTERS`].
    pub index: usize,
    /// The scenario running now.
    pub running: AttrValue,
    /// Which of the chapter's experiments to draw.
    #[prop_or(Part::All)]
    pub part: Part,
    pub on_action: Callback<Action>,
}

/// A chapter's experiments may be drawn in two places: the featured ones
/// beside the text, the others under a short text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    All,
    Featured,
    More,
}

/// What to do by hand, or what else to know, for some experiments.
fn notes(name: &str) -> Html {
    match name {
        "crash-commit-after" => html! {
            <details class="experiment-notes">
                <summary>{ "Do it by hand" }</summary>
                <p>{ "By hand, from the starting point: keep “Commit” on After and press Send 10; \
                      pause, Step until c1 has a batch in flight; crash c1 and press Play. Once its \
                      session times out, c2 takes over from the last commit: Duplicates rises, \
                      Never processed stays 0. Then try “Commit: Before” and compare." }</p>
            </details>
        },
        "crash-commit-before" => html! {
            <div class="experiment-notes">
                <p>{ "The commit has already moved the group past the batch, so whatever c1 had \
                      not handled is skipped: at-most-once." }</p>
            </div>
        },
        "idempotent-absorbs-duplicates" => html! {
            <div class="experiment-notes">
                <p>{ "Kafka's transactions give exactly-once when a consumer reads from Kafka and \
                      writes back to Kafka. They do not reach a database or an email provider \
                      behind your handler: a unique constraint on the record's id does." }</p>
            </div>
        },
        _ => html! {},
    }
}

/// A link's click: load the experiment and bring the simulation into view
/// instead of following the link to the chapter's card.
pub fn load_and_show(on_action: &Callback<Action>, scenario: &Rc<Scenario>) -> Callback<MouseEvent> {
    let on_action = on_action.clone();
    let scenario = scenario.clone();
    Callback::from(move |e: MouseEvent| {
        e.prevent_default();
        on_action.emit(Action::Load(scenario.clone()));
        crate::components::show_simulation();
    })
}

/// Start the experiment and bring the simulation into view.
fn start(
    on_action: &Callback<Action>,
    action: fn(Rc<Scenario>) -> Action,
    scenario: &Rc<Scenario>,
) -> Callback<MouseEvent> {
    let on_action = on_action.clone();
    let scenario = scenario.clone();
    Callback::from(move |_: MouseEvent| {
        on_action.emit(action(scenario.clone()));
        crate::components::show_simulation();
    })
}

#[component]
pub fn ChapterExperiments(props: &ChapterExperimentsProps) -> Html {
    let Some(chapter) = CHAPTERS.get(props.index) else { return html! {} };
    let scenarios = |names: &'static [&'static str]| -> Vec<Rc<Scenario>> {
        names.iter().filter_map(|name| builtin(name)).collect()
    };
    let block = |scenario: &Rc<Scenario>, featured: bool| -> Html {
        let name = scenario.name.clone();
        let running = name == props.running.as_str();
        let has_steps = scenario.guide.as_ref().is_some_and(|g| !g.steps.is_empty());
        let heading = title(&name).map_or_else(|| name.clone(), str::to_string);
        let class = class_list(&[
            Some("experiment"),
            Some(if featured { "featured" } else { "more" }),
            running.then_some("running"),
        ]);
        html! {
            <li {class} key={name.clone()} id={format!("x-{name}")} aria-current={running.then_some("true")}>
                <div class="experiment-head">
                    <h3>{ heading }</h3>
                    <p class="experiment-name">
                        if running {
                            <span class="running-now">{ "running now" }</span>
                        }
                        <code>{ &name }</code>
                    </p>
                </div>
                <p class="summary">
                    { summary(scenario) }{ " " }
                    <strong>{ "Watch: " }</strong>{ &scenario.watch }
                </p>
                { notes(&name) }
                <div class="experiment-actions">
                    if has_steps {
                        <button type="button" class="primary" data-try={name.clone()}
                            onclick={start(&props.on_action, Action::Guide, scenario)}
                            aria-label={format!("Try it yourself: {name}")}>
                            { "Try it" }
                        </button>
                    }
                    <button type="button" data-scenario={name.clone()}
                        onclick={start(&props.on_action, Action::Load, scenario)}
                        aria-label={format!("Watch it: {name}")}>
                        { "Watch it" }
                    </button>
                    // Its story, its live check and the evidence are in one place, next to the
                    // simulation: the link opens the explanation of the anomaly it is about.
                    if running {
                        <a class="watch-it" href="#explanation"
                            onclick={crate::components::send(&props.on_action, Action::ExplainOutcome)}>
                            { "Running: its story, check and why are with the simulation ↑" }
                        </a>
                    }
                </div>
            </li>
        }
    };
    let featured = if props.part == Part::More { Vec::new() } else { scenarios(chapter.featured) };
    let more = if props.part == Part::Featured { Vec::new() } else { scenarios(chapter.more) };
    if featured.is_empty() && more.is_empty() {
        return html! {};
    }
    // The others stay one link each until one runs: a newcomer reads the featured
    // pair, and the rest cost a line instead of a card each (the index lists them too).
    let (running_more, links): (Vec<_>, Vec<_>) = more.iter().partition(|s| s.name == props.running.as_str());
    html! {
        <div class="chapter-experiments">
            if !featured.is_empty() {
                <ul class="experiment-list">
                    { for featured.iter().map(|s| block(s, true)) }
                </ul>
            }
            if !more.is_empty() {
                <div class="more-experiments">
                    <h3 class="more-heading">{ "More in this chapter" }</h3>
                    if !links.is_empty() {
                        <ul class="more-links">
                            { for links.iter().map(|s| more_link(s, &props.on_action)) }
                        </ul>
                    }
                </div>
                if !running_more.is_empty() {
                    <ul class="experiment-list more">
                        { for running_more.iter().map(|s| block(s, false)) }
                    </ul>
                }
            }
        </div>
    }
}

/// One of the chapter's other experiments as a link: a click loads it, and its
/// card replaces the link (the link holds the card's id so that the jump lands there).
fn more_link(scenario: &Rc<Scenario>, on_action: &Callback<Action>) -> Html {
    let name = scenario.name.clone();
    let onclick = load_and_show(on_action, scenario);
    html! {
        <li key={name.clone()} id={format!("x-{name}")}>
            <a href={format!("#x-{name}")} data-jump={name.clone()} {onclick}
                title={summary(scenario)}>
                { title(&name).map_or_else(|| name.clone(), str::to_string) }
            </a>
        </li>
    }
}
