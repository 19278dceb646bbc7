//! Commit cost: committing every record, every batch or on a timer, side by
//! side as commit traffic against what a crash replays (same traffic, same crash).

use crate::state::Action;
use offsetlab_engine::{CommitCost, builtin};
use std::rc::Rc;
use yew::prelude::*;

/// The comparison is computed once: the table renders once.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CommitCostProps {
    /// Until the built-ins it runs have loaded, why not.
    pub rows: Result<Rc<Vec<CommitCost>>, Rc<str>>,
    pub on_action: Callback<Action>,
}

#[component]
pub fn CommitCostTable(props: &CommitCostProps) -> Html {
    html! {
        <div class="ops-block ops-commit-cost">
            <h3>{ "Commit cost" }</h3>
            <p class="ops-help">
                { "The same traffic and the same crash of c1 at tick 40, three ways of committing: \
                   fewer commit requests buy a wider replay window." }
            </p>
            if let Ok(rows) = &props.rows {
            <table data-field="commit-cost">
                <thead>
                    <tr><th scope="col">{ "Commit" }</th><th scope="col">{ "Commit requests" }</th>
                        <th scope="col">{ "Replayed after the crash" }</th><th scope="col">{ "Run it" }</th></tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|row| {
                        let name = row.scenario;
                        let onclick = props.on_action.reform(move |_: MouseEvent| {
                            Action::Load(Rc::new(builtin(name).expect("a built-in scenario")))
                        });
                        html! {
                            <tr key={name}>
                                <th scope="row">{ row.label }</th>
                                <td>{ row.commit_requests }</td>
                                <td>{ row.replayed }</td>
                                <td><button type="button" data-scenario-run={name} {onclick}
                                    aria-label={format!("Set up {name}")}>{ "Set up" }</button></td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            } else if let Err(why) = &props.rows {
                <p class="ops-help" data-field="commit-cost-waiting">{ why.to_string() }</p>
            }
        </div>
    }
}
