//! One consumer on one line, for groups too big for cards: its name, state,
//! partitions, handled count, loop step and the buttons its card has.

use super::consumer_card::{action_input, action_label, action_title, actions_for, step_label};
use crate::components::class_list;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{ConsumerState, ConsumerView};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ConsumerRowProps {
    pub consumer: ConsumerView,
    /// booblik: the consumer keeps its own position (its loop checkpoints).
    #[prop_or_default]
    pub store: bool,
    pub on_action: Callback<Action>,
}

#[component]
pub fn ConsumerRow(props: &ConsumerRowProps) -> Html {
    let c = &props.consumer;
    let id = c.id.to_string();
    let crashed = c.state == ConsumerState::Crashed;
    let state_text = if c.idle_spare { "idle spare" } else { c.state.label() };
    let partitions = if c.partitions.is_empty() {
        "none".to_owned()
    } else {
        c.partitions.iter().map(|p| format!("P{p}")).collect::<Vec<_>>().join(" ")
    };
    let buttons: Html = actions_for(c.state)
        .iter()
        .map(|&action| {
            let onclick = send(&props.on_action, Action::Apply(action_input(action, c.id)));
            let class = class_list(&[Some("card-action"), (action == "crash").then_some("danger")]);
            html! {
                <button type="button" key={action} {class} data-action={action} {onclick}
                    title={action_title(action)} aria-label={format!("{} {id}", action_label(action))}>
                    { action_label(action) }
                </button>
            }
        })
        .collect();
    html! {
        <li class={class_list(&[Some("consumer-row"), Some(&format!("is-{}", c.state.label())), c.idle_spare.then_some("is-spare")])}
            data-consumer={id.clone()}>
            <span class="consumer-name">{ id.clone() }</span>
            <span class="row-state" data-field="state">{ state_text }</span>
            <span class="row-partitions" data-field="partitions" title={partitions.clone()}>{ partitions }</span>
            <span class="row-stats">
                { "handled " }<span data-field="handled">{ c.handled }</span>
                if !crashed {
                    { " · " }<span data-field="step">{ step_label(c.step, props.store) }</span>
                }
            </span>
            <span class="row-actions">{ buttons }</span>
        </li>
    }
}
