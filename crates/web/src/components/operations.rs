//! Operating the payout stream: lag with its oldest unprocessed age,
//! rebalancing protocols, topic growth, rolling updates, the kill between the
//! ledger commit and the offset commit, and the ledger it leaves.

mod commit_cost;
mod fault;
mod growth;
mod lag_chart;
mod ledger;
mod rebalancing;
mod rolling;

use crate::components::SectionProps;
use commit_cost::CommitCostTable;
use fault::Fault;
use growth::Growth;
use lag_chart::LagChart;
use ledger::Ledger;
use offsetlab_engine::{ConsumerId, ConsumerState};
use rebalancing::Rebalancing;
use rolling::Rolling;
use yew::prelude::*;

/// Cents as dollars: `1234` → `"$12.34"`.
#[must_use]
pub fn dollars(cents: u64) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

#[component]
pub fn Operations(props: &SectionProps) -> Html {
    let view = &props.state.view;
    let running: Vec<ConsumerId> =
        view.consumers.iter().filter(|c| c.state == ConsumerState::Running).map(|c| c.id).collect();
    html! {
        <section class="operations panel" aria-labelledby="operations-heading">
            <h2 id="operations-heading">{ "Operations" }</h2>
            <p class="operations-lead">
                { "Running the payout stream: what lag hides, what a rebalance stops, what growing the \
                   topic moves, and what a consumer killed at the wrong moment pays twice." }
            </p>
            <LagChart ..props.clone() />
            <CommitCostTable rows={props.state.commit_cost()} on_action={props.on_action.clone()} />
            <div class="operations-grid">
                <Rebalancing ..props.clone() />
                <Growth expansion={view.last_expansion.clone()} on_action={props.on_action.clone()} />
                <Rolling ..props.clone() />
                <Fault {running} on_action={props.on_action.clone()} />
            </div>
            <Ledger ..props.clone() />
        </section>
    }
}
