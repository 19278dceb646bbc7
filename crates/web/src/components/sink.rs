//! What the application did, in order, and the counters.

use crate::components::class_list;
use crate::components::scroll_window::use_items_in_view;
use crate::components::{Counters, SectionProps};
use crate::state::{Action, Asked};
use offsetlab_engine::HandledRecord;
use wasm_bindgen::JsCast as _;
use yew::prelude::*;

/// Chips the strip holds at most: the newest handled records. Of those it draws only as many
/// as its width can show (the rest would be clipped at its left end).
pub const STRIP_CHIPS: usize = 48;

/// The screen-reader sentence of one chip.
fn chip_label(r: &HandledRecord) -> String {
    let mut label = format!(
        "user-{}, P{} offset {}, record {}, handled by {} at tick {}",
        r.subject, r.partition, r.offset, r.record_id, r.consumer, r.tick
    );
    // Where it came from: the producer (a second copy, a retried batch
    // overtaken) or the consumer side (a replay).
    match (r.duplicate, r.from_producer) {
        (true, true) => label.push_str(", dup: the producer wrote it twice"),
        (true, false) => label.push_str(", dup: handled before"),
        _ => {}
    }
    if r.out_of_key_order {
        label.push_str(", ");
        label.push_str(&overtaken(r));
        if r.from_producer {
            label.push_str(" (the producer reordered it)");
        }
    }
    if !r.effect {
        label.push_str(", no effect (idempotent)");
    }
    label
}

/// What an out-of-key-order record came after: "out of key order: handled after
/// user-3's later record P2·7".
fn overtaken(r: &HandledRecord) -> String {
    match r.overtaken_by {
        Some(at) => format!(
            "out of key order: handled after user-{}'s later record P{}·{}",
            r.subject, at.partition, at.offset
        ),
        None => "out of key order".to_owned(),
    }
}

#[component]
pub fn Sink(props: &SectionProps) -> Html {
    let view = &props.state.view;
    let recent = &view.recent;
    let strip = use_items_in_view(!recent.is_empty());
    let chips = strip.items.map_or(STRIP_CHIPS, |fit| STRIP_CHIPS.min(fit as usize));
    let shown = &recent[recent.len().saturating_sub(chips)..];
    // Each delivery's place in the whole run: a stable key while chips slide left.
    let first_seq = view.metrics.delivered.saturating_sub(shown.len() as u64);
    // An anomaly's chip explains its record (a button: Enter and Space click it too).
    let onclick = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(button) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest("button.chip-why").ok().flatten())
            else {
                return;
            };
            let read = |name| button.get_attribute(name).and_then(|v| v.parse::<u64>().ok());
            let partition = read("data-partition").and_then(|p| u32::try_from(p).ok());
            if let (Some(partition), Some(offset)) = (partition, read("data-offset")) {
                let asked = Asked::Record { group: Some(0), partition, offset };
                on_action.emit(Action::Explain(Some(asked)));
            }
        })
    };
    html! {
        <section class="sink panel" aria-labelledby="sink-heading">
            <div class="sink-head">
                <h2 id="sink-heading">{ "What the application did, in order" }</h2>
                <p class="sink-legend">
                    <span class="legend-chip duplicate" aria-hidden="true"></span>{ "dashed = duplicate" }
                    { " · " }
                    <span class="legend-chip out-of-order" aria-hidden="true"></span>{ "filled = out of key order" }
                    { " · " }
                    <span class="legend-chip no-effect" aria-hidden="true"></span>{ "faded = no effect (idempotent)" }
                </p>
                <details class="counter-help">
                    <summary>{ "What the counters count" }</summary>
                    <dl>
                        <dt>{ "Delivered" }</dt>
                        <dd>{ "Every record handed to the application, repeats included." }</dd>
                        <dt>{ "Duplicates" }</dt>
                        <dd>{ "Deliveries of a record the application had already handled." }</dd>
                        <dt>{ "Effects" }</dt>
                        <dd>{ "Deliveries that changed something. An idempotent application ignores repeats." }</dd>
                        <dt>{ "Never processed" }</dt>
                        <dd>{ "Records the group moved past (by a commit, a reset or retention) that nobody handled." }</dd>
                        <dt>{ "Out of key order" }</dt>
                        <dd>{ "Records of a user handled for the first time after a later record of the same user." }</dd>
                        <dt>{ "Total lag" }</dt>
                        <dd>{ "Log end minus committed offset, summed over the partitions; a partition with no commit yet counts from its log start." }</dd>
                        <dt>{ "Active consumers" }</dt>
                        <dd>{ "Live members that own at least one partition." }</dd>
                        <dt>{ "Generation" }</dt>
                        <dd>{ "How many times the group has completed a rebalance." }</dd>
                        { producer_help(props.state.cluster.is_some()) }
                    </dl>
                </details>
            </div>
            <Counters metrics={view.metrics.clone()} producer={props.state.cluster.is_some()}
                on_action={props.on_action.clone()} />
            <ol class="sink-strip" data-field="sink-strip" ref={strip.node} {onclick}
                aria-label={format!("The last {} records the application handled, newest first", shown.len())}>
                // Newest first, drawn right to left: a chip that does not fit wraps onto a
                // hidden second line, so the oldest one shown is whole, never cut at the left.
                { for shown.iter().enumerate().rev().map(|(i, r)| {
                    let class = class_list(&[Some("chip"), r.duplicate.then_some("duplicate"), r.out_of_key_order.then_some("out-of-order"), (!r.effect).then_some("no-effect"), r.from_producer.then_some("from-producer")]);
                    let label = chip_label(r);
                    let text = format!("u{}\nP{}·{}", r.subject, r.partition, r.offset);
                    // An anomaly's chip is a button: it opens the record's explanation.
                    // (One click handler on the strip reads which.)
                    let anomalous = r.duplicate || r.out_of_key_order;
                    let content = if anomalous {
                        html! {
                            <button type="button" class="chip-why" data-partition={r.partition.to_string()}
                                data-offset={r.offset.to_string()}
                                aria-label={format!("Why? Explain P{} offset {}", r.partition, r.offset)}>
                                { text }
                            </button>
                        }
                    } else {
                        html! { { text } }
                    };
                    html! {
                        <li key={first_seq + i as u64} {class} data-record-id={r.record_id.to_string()}
                            title={label.clone()} aria-label={label}
                            style={format!("--chip-key: var(--key-{})", r.subject % 12)}>
                            { content }
                        </li>
                    }
                }) }
            </ol>
            // The newest overtaking in words, not only a filled chip: which record came first.
            if let Some((r, at)) = shown.iter().rev().find_map(|r| r.overtaken_by.map(|at| (r, at))) {
                <p class="sink-note" data-field="overtaken">
                    { format!("Out of key order: user-{}'s record P{}·{} was handled after P{}·{}, a record of user-{} sent later.",
                        r.subject, r.partition, r.offset, at.partition, at.offset, r.subject) }
                </p>
            }
            if shown.is_empty() {
                <p class="sink-empty">{ "Nothing handled yet: send records, and the consumers' work appears here." }</p>
            }
        </section>
    }
}

/// What the producer's counters count, with a cluster.
#[cfg(feature = "cluster")]
fn producer_help(cluster: bool) -> Html {
    if !cluster {
        return Html::default();
    }
    html! {
        <>
            <dt>{ "Acknowledged then lost" }</dt>
            <dd>{ "Records the producer was told were written that a leader election later cut off the log." }</dd>
            <dt>{ "Written twice by the producer" }</dt>
            <dd>{ "Records appended a second time: a retry after a lost acknowledgement, without idempotence." }</dd>
            <dt>{ "Reordered by the producer" }</dt>
            <dd>{ "Records appended after a record the producer sent later: a retried batch overtaken by the next." }</dd>
            <dt>{ "Writes refused" }</dt>
            <dd>{ "Produce requests the leader refused with NOT_ENOUGH_REPLICAS: acks=all with the ISR below min.insync.replicas." }</dd>
            <dt>{ "From the producer" }</dt>
            <dd>{ "The duplicates and out-of-key-order records above that the producer made; the rest are the consumer side's replays." }</dd>
        </>
    }
}

#[cfg(not(feature = "cluster"))]
fn producer_help(_: bool) -> Html {
    Html::default()
}
