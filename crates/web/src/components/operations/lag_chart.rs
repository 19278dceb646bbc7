//! Lag that tells the truth: per partition its lag, the age of its oldest
//! unprocessed record, and sparklines of both over the recent ticks.
//!
//! Past a dozen partitions the rows are windowed as the tapes are: a box of
//! bounded height that scrolls and holds only the rows in view, so 256
//! partitions do not draw 512 sparklines a tick.

use crate::components::SectionProps;
use crate::components::class_list;
use crate::components::scroll_window::{ScrollWindow, use_scroll_window};
use crate::components::shown::use_shown;
use offsetlab_engine::{HISTORY_SAMPLES_MAX, LagSample};
use yew::prelude::*;

/// The sparkline's viewBox, in tenths of the drawn size (120 × 24) so that
/// every point is a whole number: no float formatting in the page.
const WIDTH: u64 = 1200;
const HEIGHT: u64 = 240;
/// Up to this many partitions every row is drawn, in the page's own flow.
pub const ROWS_ALL_MAX: usize = 12;
/// Rows drawn at once past [`ROWS_ALL_MAX`], however tall the box.
pub const ROWS_DRAWN_MAX: u32 = 12;
/// A row's height with its gap before one is measured, in px.
const ROW_ESTIMATE_PX: f64 = 30.0;

/// The sparkline's points for `value` of each sample, scaled to `max` (the
/// largest value on the chart).
fn points(samples: &[LagSample], value: fn(&LagSample) -> u64, max: u64) -> String {
    let last = (HISTORY_SAMPLES_MAX.max(2) - 1) as u64;
    let max = max.max(1);
    let mut out = String::new();
    for (i, s) in samples.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let x = (i as u64 * WIDTH + last / 2) / last;
        // 10 (one drawn unit) from the bottom up to 10 from the top.
        let y = HEIGHT - 10 - (value(s).min(max) * (HEIGHT - 20) + max / 2) / max;
        out.push_str(&x.to_string());
        out.push(',');
        out.push_str(&y.to_string());
    }
    out
}

#[component]
pub fn LagChart(props: &SectionProps) -> Html {
    let state = &props.state;
    let view = &state.view;
    let node = use_node_ref();
    let lag_history = use_shown(node.clone(), &state.run, (), |run| run.lag_history());
    let lag_of = |s: &LagSample| s.lag;
    let age_of = |s: &LagSample| s.oldest_unprocessed_age;
    let max_lag = lag_history.iter().flatten().map(lag_of).max().unwrap_or(0);
    let max_age = lag_history.iter().flatten().map(age_of).max().unwrap_or(0);
    let hottest = view
        .partitions
        .iter()
        .filter(|p| p.oldest_unprocessed_age > 0)
        .max_by_key(|p| (p.oldest_unprocessed_age, std::cmp::Reverse(p.partition)))
        .map(|p| p.partition);
    let windowed = view.partitions.len() > ROWS_ALL_MAX;
    let rows = u32::try_from(view.partitions.len()).expect("partitions are bounded");
    let window = use_scroll_window(rows, ROW_ESTIMATE_PX, ROWS_DRAWN_MAX);
    let drawn = if windowed {
        window.rows.start as usize..window.rows.end as usize
    } else {
        0..view.partitions.len()
    };
    // One keyed list of its own, between the spacers.
    let lines: Html = view.partitions[drawn]
        .iter()
        .map(|p| {
            let n = p.partition;
            let hot = hottest == Some(n);
            let samples = lag_history.get(n as usize).map(Vec::as_slice).unwrap_or_default();
            let lag = p.lag.map_or_else(|| "—".to_string(), |l| l.to_string());
            html! {
                <li key={n} class={class_list(&[Some("ops-lag-row"), hot.then_some("hottest")])} data-partition-lag={n.to_string()}>
                    <span class="ops-lag-text">
                        { format!("P{n} lag {lag} · oldest unprocessed {} ticks", p.oldest_unprocessed_age) }
                        if hot { <strong class="ops-hot-tag">{ " · hottest" }</strong> }
                    </span>
                    <svg class="ops-spark" viewBox="0 0 1200 240" preserveAspectRatio="none"
                        aria-hidden="true" focusable="false">
                        <polyline class="lag" points={points(samples, lag_of, max_lag)} />
                        <polyline class="age" points={points(samples, age_of, max_age)} />
                    </svg>
                </li>
            }
        })
        .collect();
    html! {
        <div class="ops-block ops-lag" ref={node}>
            <h3>{ "Lag that tells the truth" }</h3>
            <p class="ops-help">{ "Solid: lag. Dotted: age of the oldest unprocessed record." }</p>
            <p class="ops-help">
                { "Lag counts records; the age of the oldest unprocessed record says how late the payouts are. \
                   A hot account's partition can show small lag and a large age." }
            </p>
            if let (true, Some(p)) = (windowed, hottest.and_then(|n| view.partitions.get(n as usize))) {
                <p class="ops-help" data-field="hottest">
                    { format!("Hottest: P{}, oldest unprocessed {} ticks.", p.partition, p.oldest_unprocessed_age) }
                </p>
            }
            if windowed {
                <ul class="ops-lag-rows is-windowed" data-field="lag-chart" ref={window.node} onscroll={window.onscroll}
                    aria-label={format!("Lag of {rows} partitions, scrollable")}>
                    <li class="rows-spacer" aria-hidden="true" style={ScrollWindow::spacer_style(window.before_px)} />
                    { lines }
                    <li class="rows-spacer" aria-hidden="true" style={ScrollWindow::spacer_style(window.after_px)} />
                </ul>
            } else {
                <ul class="ops-lag-rows" data-field="lag-chart">{ lines }</ul>
            }
        </div>
    }
}
