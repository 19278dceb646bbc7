//! The payout ledger: per account, what was paid and what was paid twice.

use super::dollars;
use crate::components::SectionProps;
use crate::components::class_list;
use crate::components::shown::use_shown;
use yew::prelude::*;

/// Accounts listed one by one; the rest are summed.
const ROWS_SHOWN: usize = 12;

#[component]
pub fn Ledger(props: &SectionProps) -> Html {
    let state = &props.state;
    let node = use_node_ref();
    let ledger = use_shown(node.clone(), &state.run, (), |run| run.ledger());
    let ledger = ledger.as_slice();
    let shown = &ledger[..ledger.len().min(ROWS_SHOWN)];
    let rest = &ledger[shown.len()..];
    html! {
        <div class="ops-block ops-ledger" ref={node}>
            <h3>{ "Ledger" }</h3>
            <ul class="ops-ledger-rows" data-field="ledger">
                { for shown.iter().map(|e| html! {
                    <li key={e.account} class={class_list(&[(e.duplicate_effects > 0).then_some("twice")])}>
                        { format!("account {} · balance {} · effects {}", e.account, dollars(e.balance_cents), e.effects) }
                        if e.duplicate_effects > 0 {
                            <strong class="paid-twice">{ format!(" · paid twice ×{}", e.duplicate_effects) }</strong>
                        }
                    </li>
                }) }
                if !rest.is_empty() {
                    <li class="ops-ledger-rest">
                        { format!("and {} more accounts · balance {} · effects {}", rest.len(),
                            dollars(rest.iter().map(|e| e.balance_cents).sum()),
                            rest.iter().map(|e| e.effects).sum::<u64>()) }
                        if rest.iter().any(|e| e.duplicate_effects > 0) {
                            <strong class="paid-twice">{ format!(" · paid twice ×{}",
                                rest.iter().map(|e| e.duplicate_effects).sum::<u64>()) }</strong>
                        }
                    </li>
                }
                if ledger.is_empty() {
                    <li class="ops-ledger-empty">{ "No payouts yet." }</li>
                }
            </ul>
            <p class="ops-total">
                { "Paid twice in total: " }
                <span data-counter="double-paid">{ dollars(state.view.metrics.double_paid_cents) }</span>
            </p>
            <p class="ops-help">
                { "With Idempotent application on, the ledger's unique constraint on the operation id keeps \
                   each payout to one effect." }
            </p>
        </div>
    }
}
