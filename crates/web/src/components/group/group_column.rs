//! Another group on the same topic: its name, generation and state, its
//! consumers' cards, and its own counters. Rule 1 of seed 003: two groups
//! read the same data independently.

use super::consumer_list::ConsumerList;
use super::{epoch_help, epoch_label};
use crate::components::clock_bar::group_state_label;
use crate::components::send;
use crate::state::{Action, Asked};
use offsetlab_engine::{Anomaly, ConsumerView, GroupView, Input, PositionModel, limits};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct GroupColumnProps {
    pub group: GroupView,
    /// Its place among the run's groups: what its counters' explanations ask for.
    pub index: u32,
    pub consumers: Vec<ConsumerView>,
    pub on_action: Callback<Action>,
}

#[component]
pub fn GroupColumn(props: &GroupColumnProps) -> Html {
    let g = &props.group;
    let m = &g.metrics;
    let heading = format!("group-heading-{}", g.name);
    let on_add = send(&props.on_action, Action::Apply(Input::AddConsumer { group: Some(g.name.clone()) }));
    let full = props.consumers.len() >= limits::CONSUMERS_MAX as usize;
    let store = match g.settings.position {
        PositionModel::Group => None,
        PositionModel::Consumer { writes, .. } => Some(writes),
    };
    // A raised anomaly counter is a button that explains its records, as the first group's are.
    let counter = |label: &'static str, field: &'static str, value: u64, anomaly: Option<Anomaly>| {
        let why = anomaly.filter(|_| value > 0).map(|anomaly| {
            let asked = Action::Explain(Some(Asked::Counter { group: props.index, anomaly }));
            html! {
                <button type="button" class="counter-why" data-explain-counter={field.replace('_', "-")}
                    data-group={g.name.clone()}
                    aria-label={format!("{label} in group {}: {value}. Explain why", g.name)}
                    title="Why? Explain these records" onclick={send(&props.on_action, asked)}>
                    { value }
                </button>
            }
        });
        html! {
            <div class={if why.is_some() { "group-counter raised" } else { "group-counter" }}>
                <dt>{ label }</dt>
                <dd data-field={field}>{ why.unwrap_or_else(|| html! { { value } }) }</dd>
            </div>
        }
    };
    html! {
        <section class="group-column" data-group={g.name.clone()} aria-labelledby={heading.clone()}>
            <header class="group-head">
                <h3 id={heading}>{ "Consumer group: " }<code>{ g.name.clone() }</code></h3>
                <p class="group-meta">
                    <span class="group-generation" title={epoch_help(Some(g))} tabindex="0">
                        { epoch_label(Some(g)) }<span data-field="generation">{ g.generation }</span>
                    </span>
                    <span class="group-state-badge">{ group_state_label(&g.state).to_string() }</span>
                </p>
            </header>
            <dl class="group-counters" aria-label={format!("Counters of group {}", g.name)}>
                { counter("Delivered", "delivered", m.delivered, None) }
                { counter("Duplicates", "duplicates", m.duplicates, Some(Anomaly::Duplicates)) }
                { counter("Never processed", "never_processed", m.never_processed, Some(Anomaly::NeverProcessed)) }
                { counter("Total lag", "total_lag", m.total_lag, None) }
            </dl>
            <ConsumerList consumers={props.consumers.clone()} {store}
                share={g.protocol == offsetlab_engine::GroupProtocol::Share}
                label={format!("Consumers of group {}", g.name)} on_action={props.on_action.clone()} />
            <div class="group-foot">
                <button type="button" data-action="add-consumer" data-group={g.name.clone()} onclick={on_add}
                    disabled={full}>
                    { format!("Add consumer to {}", g.name) }
                </button>
            </div>
        </section>
    }
}
