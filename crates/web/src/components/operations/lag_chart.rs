//! Lag that tells the truth: per partition its lag, the age of its oldest
//! unprocessed record, and a sparkline of lag over the recent ticks.

use crate::components::SectionProps;
use offsetlab_engine::{HISTORY_SAMPLES_MAX, LagSample};
use yew::prelude::*;

const WIDTH: f64 = 120.0;
const HEIGHT: f64 = 24.0;

/// The sparkline's points, scaled to `max` (the largest lag on the chart).
fn points(samples: &[LagSample], max: u64) -> String {
    let step = WIDTH / (HISTORY_SAMPLES_MAX.max(2) - 1) as f64;
    let max = max.max(1) as f64;
    samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!("{:.1},{:.1}", i as f64 * step, HEIGHT - 1.0 - s.lag as f64 * (HEIGHT - 2.0) / max)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[component]
pub fn LagChart(props: &SectionProps) -> Html {
    let state = &props.state;
    let view = &state.view;
    let max = state.lag_history.iter().flatten().map(|s| s.lag).max().unwrap_or(0);
    let hottest = view
        .partitions
        .iter()
        .filter(|p| p.oldest_unprocessed_age > 0)
        .max_by_key(|p| (p.oldest_unprocessed_age, std::cmp::Reverse(p.partition)))
        .map(|p| p.partition);
    html! {
        <div class="ops-block ops-lag">
            <h3>{ "Lag that tells the truth" }</h3>
            <p class="ops-help">
                { "Lag counts records; the age of the oldest unprocessed record says how late the payouts are. \
                   A hot account's partition can show small lag and a large age." }
            </p>
            <ul class="ops-lag-rows" data-field="lag-chart">
                { for view.partitions.iter().map(|p| {
                    let n = p.partition;
                    let hot = hottest == Some(n);
                    let samples = state.lag_history.get(n as usize).map(Vec::as_slice).unwrap_or_default();
                    let lag = p.lag.map_or_else(|| "—".to_string(), |l| l.to_string());
                    html! {
                        <li key={n} class={classes!("ops-lag-row", hot.then_some("hottest"))} data-partition-lag={n.to_string()}>
                            <span class="ops-lag-text">
                                { format!("P{n} lag {lag} · oldest unprocessed {} ticks", p.oldest_unprocessed_age) }
                                if hot { <strong class="ops-hot-tag">{ " · hottest" }</strong> }
                            </span>
                            <svg class="ops-spark" viewBox={format!("0 0 {WIDTH} {HEIGHT}")} preserveAspectRatio="none"
                                aria-hidden="true" focusable="false">
                                <polyline points={points(samples, max)} />
                            </svg>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
