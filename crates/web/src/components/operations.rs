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
use commit_cost::commit_cost_table;
use fault::fault;
use growth::growth;
use lag_chart::lag_chart;
use ledger::ledger;
use rebalancing::rebalancing;
use rolling::rolling;
use yew::prelude::*;

/// Cents as dollars: `1234` → `"$12.34"`.
#[must_use]
pub fn dollars(cents: u64) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

pub fn operations(props: &SectionProps) -> Html {
    html! {
        <section class="operations panel" aria-labelledby="operations-heading">
            <h2 id="operations-heading">{ "Operations" }</h2>
            <p class="operations-lead">
                { "Running the payout stream: what lag hides, what a rebalance stops, what growing the \
                   topic moves, and what a consumer killed at the wrong moment pays twice." }
            </p>
            { lag_chart(props) }
            { commit_cost_table(props) }
            <div class="operations-grid">
                { rebalancing(props) }
                { growth(props) }
                { rolling(props) }
                { fault(props) }
            </div>
            { ledger(props) }
        </section>
    }
}
