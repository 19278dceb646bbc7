//! The fault: kill a consumer after its ledger commit, before its offset commit.

use crate::components::SectionProps;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{ConsumerState, Input};
use yew::prelude::*;

#[component]
pub fn Fault(props: &SectionProps) -> Html {
    let view = &props.state.view;
    html! {
        <div class="ops-block ops-fault">
            <h3>{ "Fault" }</h3>
            <p class="ops-help">
                { "The payouts are in the ledger, the offset is not committed: the next owner pays them again." }
            </p>
            <div class="ops-kill-buttons">
                { for view.consumers.iter().filter(|c| c.state == ConsumerState::Running).map(|c| {
                    let consumer = c.id;
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
