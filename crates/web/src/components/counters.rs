//! The counters: what the application saw, and the group's shape.

use offsetlab_engine::Metrics;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CountersProps {
    pub metrics: Metrics,
}

/// `(key for tests and styling, label, value)` of each counter, in display order.
#[must_use]
pub fn counters(m: &Metrics) -> [(&'static str, &'static str, u64); 7] {
    [
        ("delivered", "Delivered", m.delivered),
        ("duplicates", "Duplicates", m.duplicates),
        ("never-processed", "Never processed", m.never_processed),
        ("out-of-key-order", "Out of key order", m.out_of_key_order),
        ("total-lag", "Total lag", m.total_lag),
        ("active-consumers", "Active consumers", u64::from(m.active_consumers)),
        ("generation", "Generation", u64::from(m.generation)),
    ]
}

#[component]
pub fn Counters(props: &CountersProps) -> Html {
    html! {
        <section class="counters" aria-labelledby="counters-heading">
            <h2 id="counters-heading">{ "Counters" }</h2>
            <dl>
                { for counters(&props.metrics).into_iter().map(|(key, label, value)| html! {
                    <div class="counter" key={key}>
                        <dt>{ label }</dt>
                        <dd data-counter={key}>{ value }</dd>
                    </div>
                }) }
            </dl>
        </section>
    }
}
