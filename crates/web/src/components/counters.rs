//! The counters: what the application saw, and the group's shape.

use crate::components::class_list;
use offsetlab_engine::Metrics;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CountersProps {
    pub metrics: Metrics,
    /// The run has a producer delivery path: its counters too, and where the
    /// duplicates and the reorderings came from.
    #[prop_or_default]
    pub producer: bool,
}

/// One counter as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    /// `data-counter` (tests and styling).
    pub key: &'static str,
    pub label: &'static str,
    pub value: u64,
    /// A rise is a sign of trouble: the value flashes when it changes.
    pub alarm: bool,
}

/// Every counter, in display order.
#[must_use]
pub fn counters(m: &Metrics) -> [Counter; 8] {
    let c = |key, label, value, alarm| Counter { key, label, value, alarm };
    [
        c("delivered", "Delivered", m.delivered, false),
        c("duplicates", "Duplicates", m.duplicates, true),
        c("effects", "Effects", m.effects, false),
        c("never-processed", "Never processed", m.never_processed, true),
        c("out-of-key-order", "Out of key order", m.out_of_key_order, true),
        c("total-lag", "Total lag", m.total_lag, false),
        c("active-consumers", "Active consumers", u64::from(m.active_consumers), false),
        c("generation", "Generation", u64::from(m.generation), false),
    ]
}

/// The producer's counters, in display order: what happened before any
/// consumer read, and which of the application's duplicates and reorderings
/// the producer made (the rest are the consumer side's).
#[cfg(feature = "cluster")]
#[must_use]
pub fn producer_counters(m: &Metrics) -> [Counter; 6] {
    let c = |key, label, value| Counter { key, label, value, alarm: true };
    [
        c("acked-lost", "Acknowledged then lost", m.acked_lost),
        c("producer-duplicates", "Written twice by the producer", m.producer_duplicates),
        c("producer-reordered", "Reordered by the producer", m.producer_reordered),
        c("writes-refused", "Writes refused (NotEnoughReplicas)", m.writes_refused),
        c("duplicates-from-producer", "Duplicates from the producer", m.duplicates_from_producer),
        c(
            "out-of-order-from-producer",
            "Out of key order from the producer",
            m.out_of_key_order_from_producer,
        ),
    ]
}

#[component]
pub fn Counters(props: &CountersProps) -> Html {
    #[cfg(feature = "cluster")]
    let producer = if props.producer {
        html! {
            <dl class="counters producer-counters" aria-label="The producer">
                { for producer_counters(&props.metrics).into_iter().map(counter) }
            </dl>
        }
    } else {
        Html::default()
    };
    #[cfg(not(feature = "cluster"))]
    let producer = Html::default();
    html! {
        <>
        <dl class="counters">
            { for counters(&props.metrics).into_iter().map(counter) }
        </dl>
        { producer }
        </>
    }
}

fn counter(c: Counter) -> Html {
    let raised = c.alarm && c.value > 0;
    // Keyed by the value, an alarm counter's number is a new node
    // whenever it changes, so its CSS flash plays again.
    let number = if raised {
        html! { { for std::iter::once(html! {
            <span key={c.value.to_string()} class="flash">{ c.value }</span>
        }) } }
    } else {
        html! { { c.value } }
    };
    html! {
        <div class={class_list(&[Some("counter"), raised.then_some("raised")])} key={c.key}>
            <dt>{ c.label }</dt>
            <dd data-counter={c.key}>{ number }</dd>
        </div>
    }
}
