//! Rebalancing: the assignor, the protocol it implies, and what rebalances cost.

use crate::components::SectionProps;
use crate::state::Action;
use offsetlab_engine::{Assignor, Input};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

const ASSIGNORS: [(Assignor, &str, &str); 4] = [
    (Assignor::Range, "range", "Range (eager)"),
    (Assignor::RoundRobin, "roundrobin", "Round robin (eager)"),
    (Assignor::Sticky, "sticky", "Sticky (eager)"),
    (Assignor::CooperativeSticky, "cooperative-sticky", "Cooperative sticky"),
];

#[component]
pub fn Rebalancing(props: &SectionProps) -> Html {
    let view = &props.state.view;
    let current = view.settings.assignor;
    let onchange = props.on_action.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        let value = select.value();
        let assignor = ASSIGNORS.iter().find(|(_, v, _)| *v == value).map_or(Assignor::Range, |a| a.0);
        Action::Apply(Input::Assignor { group: None, assignor })
    });
    let protocol = if current == Assignor::CooperativeSticky {
        "cooperative: only what moves stops"
    } else {
        "eager: every member stops"
    };
    html! {
        <div class="ops-block ops-rebalancing">
            <h3>{ "Rebalancing" }</h3>
            <label class="ops-field">
                <span>{ "Assignor" }</span>
                <select data-field="assignor" {onchange}>
                    { for ASSIGNORS.iter().map(|(a, value, label)| html! {
                        <option value={*value} selected={*a == current}>{ *label }</option>
                    }) }
                </select>
            </label>
            <p class="ops-protocol" data-field="protocol">{ protocol }</p>
            <dl class="ops-counters">
                <div>
                    <dt>{ "Partition-ticks stopped" }</dt>
                    <dd data-counter="partition-ticks-stopped">{ view.metrics.partition_ticks_stopped }</dd>
                </div>
                <div>
                    <dt>{ "Commit requests" }</dt>
                    <dd data-counter="commit-requests">{ view.metrics.commit_requests }</dd>
                </div>
            </dl>
        </div>
    }
}
