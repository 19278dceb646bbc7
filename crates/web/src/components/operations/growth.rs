//! Topic growth: add a partition and see which keys now map elsewhere.

use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{ExpansionView, Input, subject_key};
use yew::prelude::*;

/// What the last growth moved: it renders again only when the topic grows.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct GrowthProps {
    pub expansion: Option<ExpansionView>,
    pub on_action: Callback<Action>,
}

/// Moved keys listed at most.
const MOVED_SHOWN: usize = 8;

#[component]
pub fn Growth(props: &GrowthProps) -> Html {
    let onclick = send(&props.on_action, Action::Apply(Input::AddPartitions { count: 1 }));
    let expansion = props.expansion.as_ref();
    html! {
        <div class="ops-block ops-growth">
            <h3>{ "Topic growth" }</h3>
            <p class="ops-help">
                { "New records of a key go to hash(key) mod partitions: grow the topic and some keys \
                   change partition, so their order across the change is no longer guaranteed." }
            </p>
            <button type="button" data-action="add-partition" {onclick}>{ "Add a partition" }</button>
            if let Some(x) = expansion {
                <p data-field="expansion">
                    { format!("grew from {} to {} at tick {}: {} key{} moved", x.from, x.to, x.tick,
                        x.moved.len(), if x.moved.len() == 1 { "" } else { "s" }) }
                </p>
                <ul class="ops-moved" data-field="moved-keys">
                    { for x.moved.iter().take(MOVED_SHOWN).map(|&(subject, from, to)| html! {
                        <li>{ format!("{} P{from} → P{to}", subject_key(subject)) }</li>
                    }) }
                    if x.moved.len() > MOVED_SHOWN {
                        <li>{ format!("and {} more", x.moved.len() - MOVED_SHOWN) }</li>
                    }
                </ul>
            }
        </div>
    }
}
