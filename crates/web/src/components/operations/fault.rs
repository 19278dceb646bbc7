//! The fault: kill a consumer after its ledger commit, before its offset commit.

use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{ConsumerId, Input};
use yew::prelude::*;

/// The consumers that can be killed: it renders again only when they change.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct FaultProps {
    /// The running consumers, in card order.
    pub running: Vec<ConsumerId>,
    pub on_action: Callback<Action>,
}

#[component]
pub fn Fault(props: &FaultProps) -> Html {
    html! {
        <div class="ops-block ops-fault">
            <h3>{ "Fault" }</h3>
            <p class="ops-help">
                { "The payouts are in the ledger, the offset is not committed: the next owner pays them again." }
            </p>
            <div class="ops-kill-buttons">
                { for props.running.iter().map(|&consumer| {
                    let onclick = send(&props.on_action, Action::Apply(Input::KillBeforeCommit { consumer }));
                    html! {
                        <button type="button" key={consumer.0} data-action="kill-before-commit"
                            data-consumer={consumer.to_string()} {onclick}>
                            { format!("Kill {consumer} after the ledger commit") }
                        </button>
                    }
                }) }
            </div>
        </div>
    }
}
