//! The counters: what the application saw, and the group's shape.

use crate::components::{class_list, send};
use crate::state::{Action, Asked};
use offsetlab_engine::{Anomaly, Metric, Metrics};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CountersProps {
    pub metrics: Metrics,
    /// The run has a producer delivery path: its counters too, and where the
    /// duplicates and the reorderings came from.
    #[prop_or_default]
    pub producer: bool,
    /// A raised anomaly counter is a button that explains its records.
    pub on_action: Callback<Action>,
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
    // The engine's labels: the outcome check and the command say the same words.
    let c = |key, metric: Metric, value, alarm| Counter { key, label: metric.label(), value, alarm };
    [
        c("delivered", Metric::Delivered, m.delivered, false),
        c("duplicates", Metric::Duplicates, m.duplicates, true),
        c("effects", Metric::Effects, m.effects, false),
        c("never-processed", Metric::NeverProcessed, m.never_processed, true),
        c("out-of-key-order", Metric::OutOfKeyOrder, m.out_of_key_order, true),
        c("total-lag", Metric::TotalLag, m.total_lag, false),
        c("active-consumers", Metric::ActiveConsumers, u64::from(m.active_consumers), false),
        c("generation", Metric::Generation, u64::from(m.generation), false),
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
        c("acked-lost", Metric::AckedLost.label(), m.acked_lost),
        c("producer-duplicates", Metric::ProducerDuplicates.label(), m.producer_duplicates),
        c("producer-reordered", Metric::ProducerReordered.label(), m.producer_reordered),
        c("writes-refused", Metric::WritesRefused.label(), m.writes_refused),
        c("duplicates-from-producer", "Duplicates from the producer", m.duplicates_from_producer),
        c(
            "out-of-order-from-producer",
            "Out of key order from the producer",
            m.out_of_key_order_from_producer,
        ),
    ]
}

/// The clocks' counters, each once it has happened: the poll timer's pair
/// (members that left the group by themselves, and the commits that failed
/// after), and the records an `auto.offset.reset` jumped over.
#[must_use]
pub fn clock_counters(m: &Metrics) -> Vec<Counter> {
    let c = |key, metric: Metric, value| Counter { key, label: metric.label(), value, alarm: true };
    let mut shown = Vec::new();
    if m.members_left_poll_timeout > 0 || m.commit_failed > 0 {
        shown.push(c(
            "members-left-poll-timeout",
            Metric::MembersLeftPollTimeout,
            m.members_left_poll_timeout,
        ));
        shown.push(c("commit-failed", Metric::CommitFailed, m.commit_failed));
    }
    if m.skipped_by_reset > 0 {
        shown.push(c("skipped-by-reset", Metric::SkippedByReset, m.skipped_by_reset));
    }
    shown
}

/// A failing handler's counters (issue 40), each once it has happened: what
/// the error policy did with the records the handler failed on, how long a
/// partition stood still behind one, and what replaying the dead letters did.
#[must_use]
pub fn failure_counters(m: &Metrics) -> Vec<Counter> {
    let c = |key, metric: Metric, value, alarm| Counter { key, label: metric.label(), value, alarm };
    [
        c("skipped-by-handler", Metric::SkippedByHandler, m.skipped_by_handler, true),
        c("stuck-partition-ticks", Metric::StuckPartitionTicks, m.stuck_partition_ticks, true),
        c("sent-to-retry", Metric::SentToRetry, m.sent_to_retry, false),
        c("dead-lettered", Metric::DeadLettered, m.dead_lettered, false),
        c("partial-effects", Metric::PartialEffects, m.partial_effects, true),
        c("replayed", Metric::Replayed, m.replayed, false),
        c("double-applied-on-replay", Metric::DoubleAppliedOnReplay, m.double_applied_on_replay, true),
    ]
    .into_iter()
    .filter(|c| c.value > 0)
    .collect()
}

#[component]
pub fn Counters(props: &CountersProps) -> Html {
    #[cfg(feature = "cluster")]
    let producer = if props.producer {
        html! {
            <dl class="counters producer-counters" aria-label="The producer">
                { for producer_counters(&props.metrics).into_iter().map(|c| counter(c, &props.on_action)) }
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
            { for counters(&props.metrics).into_iter().map(|c| counter(c, &props.on_action)) }
        </dl>
        if let clocks @ [_, ..] = clock_counters(&props.metrics).as_slice() {
            <dl class="counters clock-counters" aria-label="Kafka's clocks">
                { for clocks.iter().copied().map(|c| counter(c, &props.on_action)) }
            </dl>
        }
        if let failures @ [_, ..] = failure_counters(&props.metrics).as_slice() {
            <dl class="counters failure-counters" aria-label="The failing handler">
                { for failures.iter().copied().map(|c| counter(c, &props.on_action)) }
            </dl>
        }
        { producer }
        </>
    }
}

/// The anomaly a counter counts, by its `data-counter` key, if it is one the engine explains.
#[must_use]
pub fn anomaly_of(key: &str) -> Option<Anomaly> {
    Anomaly::from_counter(&key.replace('-', "_"))
}

fn counter(c: Counter, on_action: &Callback<Action>) -> Html {
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
            <dd data-counter={c.key}>
                if let Some(anomaly) = anomaly_of(c.key).filter(|_| raised) {
                    <button type="button" class="counter-why" data-explain-counter={c.key}
                        aria-label={format!("{}: {}. Explain why", c.label, c.value)}
                        title="Why? Explain these records"
                        onclick={send(on_action, Action::Explain(Some(Asked::Counter { group: 0, anomaly })))}>
                        { number }
                    </button>
                } else {
                    { number }
                }
            </dd>
        </div>
    }
}
