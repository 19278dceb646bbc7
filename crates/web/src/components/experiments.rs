//! One card per built-in scenario: what it shows, what to watch, and a button
//! that sets it up.

use crate::components::class_list;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{Scenario, Topic, builtins};
use std::rc::Rc;
use yew::prelude::*;

/// The experiments list: which scenario is running.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ExperimentsProps {
    pub running: AttrValue,
    pub on_action: Callback<Action>,
}

/// The scenario the page starts from; not an experiment of its own.
const STARTING_POINT: &str = "default";
/// The experiment the intro and the rules point to.
const CRASH_AFTER: &str = "crash-commit-after";

/// A card's title for the scenarios the page knows; others show their name.
fn title(name: &str) -> Option<&'static str> {
    Some(match name {
        "keys-keep-order" => "keys keep each user's records in order",
        "no-keys-reorder" => "without keys, a user's records overtake each other",
        "spare-consumers" => "more consumers than partitions",
        CRASH_AFTER => "crash after handling, before committing",
        "crash-commit-before" => "commit first, then crash",
        "idempotent-absorbs-duplicates" => "an idempotent application",
        "busy-group" => "a busy group",
        _ => return None,
    })
}

/// The summary without an "Experiment N: " prefix (the card's title says it).
fn summary(scenario: &Scenario) -> String {
    let s = scenario.summary.as_str();
    let rest = match s.split_once(": ") {
        Some((head, rest)) if head.starts_with("Experiment ") => rest,
        _ => s,
    };
    // ASCII only: the summaries are English, and Unicode case tables would cost ~14 KB of wasm.
    let mut out = rest.to_string();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}

/// What to do by hand, or what else to know, for some experiments.
fn notes(name: &str) -> Html {
    match name {
        CRASH_AFTER => html! {
            <div class="experiment-notes">
                <p>{ "To do it by hand, from the starting point:" }</p>
                <ol>
                    <li>{ "Keep “Commit” on After and press Send 10." }</li>
                    <li>{ "Pause the clock, then Step until c1 has a batch in flight." }</li>
                    <li>{ "Crash c1 and press Play." }</li>
                    <li>{ "Nothing moves on c1's partitions until its session times out. Then c2 \
                           takes them over from the last commit: Duplicates rises, Never processed stays 0." }</li>
                </ol>
                <p>{ "Then do the same with “Commit: Before” and compare (experiment 5)." }</p>
            </div>
        },
        "crash-commit-before" => html! {
            <div class="experiment-notes">
                <p>{ "By hand: the steps of experiment 4 with “Commit: Before”. The commit has \
                      already moved the group past the batch, so whatever c1 had not handled is \
                      skipped: at-most-once." }</p>
            </div>
        },
        "idempotent-absorbs-duplicates" => html! {
            <div class="experiment-notes">
                <p>{ "The practical answer: assume delivery can repeat, and make handling a record \
                      twice harmless, for instance with a unique constraint on its id." }</p>
                <p>{ "Kafka's transactions give exactly-once processing when a consumer reads from \
                      Kafka and writes back to Kafka. They do not reach a database or an email \
                      provider behind your handler: that part is still yours to design." }</p>
            </div>
        },
        _ => html! {},
    }
}

/// The list: it renders again only when the running scenario changes (the
/// built-ins are read then).
#[component]
pub fn Experiments(props: &ExperimentsProps) -> Html {
    let scenarios: Vec<Rc<Scenario>> =
        builtins().into_iter().filter(|s| s.name != STARTING_POINT).map(Rc::new).collect();
    let running = props.running.as_str();
    // Numbered in listing order, so "Experiment 4" is the same one everywhere the page names it.
    html! {
        <section class="experiments" id="experiments" aria-labelledby="experiments-heading">
            <h2 id="experiments-heading">{ "Experiments" }</h2>
            <p class="section-lead">
                { "Each one sets the simulation above up from tick 0 with its own seed, so every run \
                   of it plays out the same way. “Try it” leaves the decisive step to you and tells \
                   you when you reproduced the effect; “Watch it” plays the whole script." }
            </p>
            { for Topic::ALL.into_iter().map(|topic| {
                let cards: Vec<Html> = scenarios
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.guide.as_ref().map(|g| g.topic) == Some(topic))
                    .map(|(i, scenario)| card(i + 1, scenario, running, &props.on_action))
                    .collect();
                html! {
                    <section class="experiment-topic" data-topic={topic_slug(topic)}>
                        <h3>{ topic.title() }</h3>
                        <ul class="experiment-list">{ for cards }</ul>
                    </section>
                }
            }) }
        </section>
    }
}

/// The topic's name in the scenario format (`keys-and-order`).
fn topic_slug(topic: Topic) -> &'static str {
    match topic {
        Topic::KeysAndOrder => "keys-and-order",
        Topic::DeliveryGuarantees => "delivery-guarantees",
        Topic::Rebalances => "rebalances",
        Topic::OffsetStorage => "offset-storage",
        Topic::Operations => "operations",
    }
}

fn card(n: usize, scenario: &Rc<Scenario>, running: &str, on_action: &Callback<Action>) -> Html {
    let name = scenario.name.clone();
    let is_running = name == running;
    let heading = match title(&name) {
        Some(title) => format!("Experiment {n}: {title}"),
        None => format!("Experiment {n}: {name}"),
    };
    let has_steps = scenario.guide.as_ref().is_some_and(|g| !g.steps.is_empty());
    let class = class_list(&[
        Some("experiment"),
        Some("panel"),
        (name == CRASH_AFTER).then_some("featured"),
        is_running.then_some("running"),
    ]);
    html! {
        <li {class} key={name.clone()} aria-current={is_running.then_some("true")}>
            <h4>{ heading }</h4>
            <p class="experiment-name">
                <code>{ &name }</code>
                if is_running {
                    <span class="running-now">{ "running now" }</span>
                }
            </p>
            <p class="summary">{ summary(scenario) }</p>
            <p class="watch"><strong>{ "What to watch: " }</strong>{ &scenario.watch }</p>
            { notes(&name) }
            if is_running {
                <a class="watch-it" href="#simulation">{ "See it in the simulation ↑" }</a>
            }
            <div class="experiment-actions">
                if has_steps {
                    <button type="button" class="primary" data-try={name.clone()}
                        onclick={send(on_action, Action::Guide(scenario.clone()))}
                        aria-label={format!("Try experiment {n} yourself: {name}")}>
                        { "Try it" }
                    </button>
                }
                <button type="button" data-scenario={name.clone()}
                    onclick={send(on_action, Action::Load(scenario.clone()))}
                    aria-label={format!("Watch experiment {n} play out: {name}")}>
                    { if has_steps { "Watch it" } else { "Set up" } }
                </button>
            </div>
        </li>
    }
}
