//! The key counters in one line, for screens where the counters sit far below
//! the tapes: drawn only there (narrow screens, the embed), where the page's
//! style keeps it at the bottom of the view while the stage is on screen. A
//! copy for the eyes: screen readers read the counters themselves.

use crate::components::counters::{anomaly_of, counters};
use crate::components::send;
use crate::state::{Action, Asked};
use offsetlab_engine::Metrics;
use yew::prelude::*;

/// The counters the line shows, by `data-counter` key: what seed 003's
/// experiments watch.
const SUMMARY: [&str; 5] = ["delivered", "duplicates", "never-processed", "out-of-key-order", "total-lag"];

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CounterSummaryProps {
    pub metrics: Metrics,
    /// A tap on a raised anomaly counter explains it (the counters above are the keyboard's way).
    pub on_action: Callback<Action>,
}

#[component]
pub fn CounterSummary(props: &CounterSummaryProps) -> Html {
    let all = counters(&props.metrics);
    html! {
        <dl class="counter-summary" aria-hidden="true" data-field="counter-summary">
            { for SUMMARY.iter().filter_map(|key| all.iter().find(|c| c.key == *key)).map(|c| html! {
                <div class={if c.alarm && c.value > 0 { "summary-item raised" } else { "summary-item" }}>
                    <dt>{ c.label }</dt>
                    if let Some(anomaly) = anomaly_of(c.key).filter(|_| c.alarm && c.value > 0) {
                        <dd data-summary={c.key} class="summary-why"
                            onclick={send(&props.on_action, Action::Explain(Some(Asked::Counter { group: 0, anomaly })))}>
                            { c.value }
                        </dd>
                    } else {
                        <dd data-summary={c.key}>{ c.value }</dd>
                    }
                </div>
            }) }
        </dl>
    }
}
