//! Another group on the same topic: its name, generation and state, its
//! consumers' cards, and its own counters. Rule 1 of seed 003: two groups
//! read the same data independently.

use super::consumer_list::ConsumerList;
use super::{epoch_help, epoch_label};
use crate::components::clock_bar::group_state_label;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{ConsumerView, GroupView, Input, PositionModel, limits};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct GroupColumnProps {
    pub group: GroupView,
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
    let counter = |label: &'static str, field: &'static str, value: u64| {
        html! {
            <div class="group-counter">
                <dt>{ label }</dt>
                <dd data-field={field}>{ value }</dd>
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
                { counter("Delivered", "delivered", m.delivered) }
                { counter("Duplicates", "duplicates", m.duplicates) }
                { counter("Never processed", "never_processed", m.never_processed) }
                { counter("Total lag", "total_lag", m.total_lag) }
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
