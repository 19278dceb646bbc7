//! The output topic payouts of an exactly-once application: its tapes with
//! committed, open and aborted results and the control markers, where a
//! read_committed reader stops (the last stable offset), and what the
//! downstream reader received. Each member's producer is on its card.

use crate::state::Payouts;
use offsetlab_engine::{Fate, PayoutRecordView};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PayoutsProps {
    pub payouts: Rc<Payouts>,
}

/// A cell: its class, its text, and what it says when pointed at.
fn cell(record: &PayoutRecordView, last_stable: u64) -> (&'static str, String, String, u64) {
    match *record {
        PayoutRecordView::Result { offset, source_record_id, fate } => {
            let (class, state) = match fate {
                Fate::Committed => ("far-cell payout is-committed", "committed"),
                Fate::Open => ("far-cell payout is-open", "in an open transaction"),
                Fate::Aborted => ("far-cell payout is-aborted", "aborted: read_committed never gets it"),
            };
            let unstable = if offset >= last_stable { ", past the last stable offset" } else { "" };
            (
                class,
                format!("#{source_record_id}"),
                format!(
                    "payouts offset {offset}: the result of orders record {source_record_id}, {state}{unstable}"
                ),
                offset,
            )
        }
        PayoutRecordView::Marker { offset, commit } => (
            if commit { "far-cell payout-marker is-commit" } else { "far-cell payout-marker is-abort" },
            if commit { "COMMIT" } else { "ABORT" }.to_string(),
            format!("payouts offset {offset}: a control marker; it takes an offset and is never delivered"),
            offset,
        ),
    }
}

#[component]
pub fn PayoutsTopic(props: &PayoutsProps) -> Html {
    let payouts = &props.payouts;
    let view = &payouts.view;
    let isolation = view.isolation_level.label();
    html! {
        <section class="payouts panel" aria-labelledby="payouts-heading" data-field="payouts">
            <h2 id="payouts-heading">{ "Topic " }<code>{ "payouts" }</code>{ " (transactional output)" }</h2>
            <p class="booblik-help">
                { format!("Group {} writes one result per orders record here and commits its offsets in the \
                           same transaction. Each cell: the payouts offset and the orders record it came from. \
                           Struck through: aborted. Dashed: in a transaction still open. A downstream reader \
                           with {isolation} reads it. Under each partition, “stable” is its ", view.group) }
                <dfn>{ "last stable offset" }</dfn>
                { ": below it every transaction has ended, and a read_committed reader stops there." }
            </p>
            <div class="far-tapes">
                { for payouts.tapes.iter().map(|tape| html! {
                    <div key={tape.partition} class="far-tape" data-payouts-partition={tape.partition.to_string()}>
                        <span class="far-label">
                            { format!("P{}", tape.partition) }
                            <small data-field="lso">{ format!("stable {}", tape.last_stable_offset) }</small>
                        </span>
                        <ol class="far-cells" aria-label={format!("payouts P{}, last stable offset {}, log end {}",
                                tape.partition, tape.last_stable_offset, tape.log_end)}>
                            if tape.hidden_before > 0 {
                                <li class="far-more">{ format!("… {} older", tape.hidden_before) }</li>
                            }
                            { for tape.records.iter().map(|r| {
                                let (class, text, title, offset) = cell(r, tape.last_stable_offset);
                                html! {
                                    <li key={offset} class={class} data-payouts-offset={offset.to_string()} {title}>
                                        <span class="far-offset">{ offset }</span>
                                        <span class="payout-text">{ text }</span>
                                    </li>
                                }
                            }) }
                            if tape.records.is_empty() {
                                <li class="far-more">{ "empty" }</li>
                            }
                        </ol>
                    </div>
                }) }
            </div>
            <dl class="payout-counters">
                <div data-field="downstream-delivered"><dt>{ "Read downstream" }</dt><dd>{ view.downstream_delivered }</dd></div>
                <div data-field="downstream-duplicates" class={classes!((view.downstream_duplicates > 0).then_some("is-alarm"))}>
                    <dt>{ "Read twice" }</dt><dd>{ view.downstream_duplicates }</dd>
                </div>
                <div data-field="aborted-seen" class={classes!((view.aborted_seen > 0).then_some("is-alarm"))}>
                    <dt>{ "Aborted read" }</dt><dd>{ view.aborted_seen }</dd>
                </div>
                <div data-field="fenced-writes"><dt>{ "Fenced writes" }</dt><dd>{ view.fenced_writes }</dd></div>
                <div data-field="transactions"><dt>{ "Committed / aborted" }</dt>
                    <dd>{ format!("{} / {}", view.committed_transactions, view.aborted_transactions) }</dd></div>
            </dl>
        </section>
    }
}
