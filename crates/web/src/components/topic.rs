//! Topic orders: one virtualised tape per partition, the selected record's
//! restart preview and the legend.
//!
//! Past [`TAPES_ALL_MAX`] partitions the tapes are windowed as well: a box of
//! bounded height that scrolls, holding only the tapes in view (at most
//! [`TAPES_DRAWN_MAX`]), so 256 partitions cost the page what a dozen do.

mod cell;
mod legend;
mod letter_cell;
mod letter_tapes;
mod preview;
mod share_letter_tapes;
mod tape;

use crate::components::SectionProps;
use crate::components::scroll_window::{ScrollWindow, use_scroll_window};
use crate::state::Action;
use legend::Legend;
use letter_tapes::LetterTapes;
use offsetlab_engine::PositionModel;
use preview::Preview;
use share_letter_tapes::ShareLetterTapes;
pub use tape::tape_cells_shown;
use tape::{GroupMarker, PartitionTape, StuckMark};
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

/// Up to this many partitions every tape is drawn, in the page's own flow.
pub const TAPES_ALL_MAX: usize = 12;
/// Tapes drawn at once past [`TAPES_ALL_MAX`], however tall the box.
pub const TAPES_DRAWN_MAX: u32 = 12;
/// A tape's height with its gap before the first one is measured, in px.
const TAPE_ROW_ESTIMATE_PX: f64 = 92.0;

#[component]
pub fn Topic(props: &SectionProps) -> Html {
    let section = use_node_ref();
    let state = &props.state;
    let selected = state.selected.clone();

    // Escape anywhere in the section closes the record details and puts the
    // focus back on the record's cell.
    let close = {
        let on_action = props.on_action.clone();
        let section = section.clone();
        let target = selected.as_ref().map(|s| (s.partition, s.offset));
        Callback::from(move |()| {
            on_action.emit(Action::Select(None));
            let Some((partition, offset)) = target else { return };
            let cell = section.cast::<web_sys::Element>().and_then(|root| {
                root.query_selector(&format!("[data-partition=\"{partition}\"] [data-offset=\"{offset}\"]"))
                    .ok()
                    .flatten()
            });
            if let Some(cell) = cell.and_then(|c| c.dyn_into::<HtmlElement>().ok()) {
                let _ = cell.focus();
            }
        })
    };
    let onkeydown = {
        let close = close.clone();
        let open = selected.is_some();
        Callback::from(move |e: KeyboardEvent| {
            if open && e.key() == "Escape" {
                e.prevent_default();
                close.emit(());
            }
        })
    };

    // booblik: the position held is the owner's stored checkpoint, as the split check reads it.
    let store = matches!(state.view.settings.position, PositionModel::Consumer { .. });
    let windowed = state.tapes.len() > TAPES_ALL_MAX;
    let rows = u32::try_from(state.tapes.len()).expect("partitions are bounded");
    let window = use_scroll_window(rows, TAPE_ROW_ESTIMATE_PX, TAPES_DRAWN_MAX);
    let drawn =
        if windowed { window.rows.start as usize..window.rows.end as usize } else { 0..state.tapes.len() };
    let highlighted = state.explaining.as_ref().and_then(|e| e.highlighted());
    let tapes = state.tapes[drawn].iter().map(|tape| {
        let explained = highlighted.filter(|part| match part {
            offsetlab_engine::Part::Record { partition, .. }
            | offsetlab_engine::Part::Commit { partition, .. } => *partition == tape.partition,
            _ => false,
        });
        let partition = state.view.partitions.get(tape.partition as usize).cloned();
        let selected = selected.as_ref().filter(|s| s.partition == tape.partition).map(|s| s.offset);
        let stored =
            state.split.partitions.iter().find(|s| s.partition == tape.partition).and_then(|s| s.position);
        // With more than one group, every group's committed offset is a marker, named.
        let groups: Vec<GroupMarker> = if state.view.groups.len() > 1 {
            state
                .view
                .groups
                .iter()
                .map(|g| GroupMarker {
                    name: g.name.clone(),
                    committed: g.committed.get(tape.partition as usize).copied().flatten(),
                    lag: g.lag.get(tape.partition as usize).copied().flatten(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let replicas =
            state.cluster.as_ref().and_then(|c| c.partitions.get(tape.partition as usize)).cloned();
        let stuck = stuck_mark(&state.view, tape.partition);
        html! {
            <PartitionTape key={tape.partition} tape={tape.clone()} {partition} {selected} {store} {stored}
                {groups} {replicas} {explained} {stuck} on_action={props.on_action.clone()} />
        }
    });
    let letters = &state.view.letter_topics;
    let share_letters = &state.view.share_dead_letter_topics;
    // One keyed list of its own, between the spacers (see tape.rs on keyed lists).
    let tapes: Html = tapes.collect();
    let tapes = if windowed {
        let range = format!("{}-{}", window.rows.start, window.rows.end);
        let ScrollWindow { node, onscroll, before_px, after_px, .. } = window;
        html! {
            <div class="tapes is-windowed" ref={node} {onscroll} data-field="tapes" data-drawn={range}
                role="region" aria-label={format!("Tapes of {rows} partitions, scrollable")}>
                <div class="tapes-spacer" aria-hidden="true" style={ScrollWindow::spacer_style(before_px)} />
                { tapes }
                <div class="tapes-spacer" aria-hidden="true" style={ScrollWindow::spacer_style(after_px)} />
            </div>
        }
    } else {
        html! { <div class="tapes" data-field="tapes">{ tapes }</div> }
    };
    html! {
        <section class={crate::components::class_list(&[Some("topic panel"),
            (highlighted == Some(offsetlab_engine::Part::Topic) && state.cluster.is_none()).then_some("explained")])}
            aria-labelledby="topic-title" ref={section} {onkeydown}>
            <h2 id="topic-title">
                { "Topic: " }<span class="topic-name">{ "orders" }</span>
                <span class="topic-sub">{ " · each cell is a record: its offset and its key" }</span>
            </h2>
            { brokers(state, &props.on_action) }
            { tapes }
            // Said once when a partition gets stuck or moves on, not at every attempt.
            <p class="visually-hidden" role="status" data-field="stuck-announce">{ stuck_announcement(&state.view) }</p>
            if letters.iter().any(|t| t.partitions.iter().any(|p| p.log_end > 0)) {
                <LetterTapes run={state.run.clone()}
                    topics={letters.iter().filter(|t| t.partitions.iter().any(|p| p.log_end > 0)).cloned().collect::<Vec<_>>()}
                    on_action={props.on_action.clone()} />
            }
            if share_letters.iter().any(|t| t.partitions.iter().any(|p| p.log_end > 0)) {
                <ShareLetterTapes run={state.run.clone()}
                    topics={share_letters.iter().filter(|t| t.partitions.iter().any(|p| p.log_end > 0)).cloned().collect::<Vec<_>>()}
                    on_action={props.on_action.clone()} />
            }
            if state.view.restart_pending {
                <p class="restart-pending" data-field="restart-pending">
                    { "restart in progress: waiting for the group to empty" }
                </p>
            }
            if let Some(selection) = selected {
                <Preview {selection} restart_pending={state.view.restart_pending}
                    on_action={props.on_action.clone()} on_close={close} />
            } else {
                <p class="topic-hint">{ "Click any record to see what restarting from it would do." }</p>
            }
            <Legend {store} />
        </section>
    }
}

/// The first group's partition `p`, while its handler retries a record in place (issue 40).
fn stuck_mark(view: &offsetlab_engine::View, p: u32) -> Option<StuckMark> {
    let stuck = view.groups.first()?.stuck.get(p as usize)?;
    let failing = stuck.failing?;
    Some(StuckMark { offset: failing.offset, attempts: failing.attempts, ticks: stuck.ticks })
}

/// The stuck partitions in a sentence for screen readers: it changes only when
/// a partition gets stuck on a record or moves past it.
#[must_use]
pub fn stuck_announcement(view: &offsetlab_engine::View) -> String {
    let stuck: Vec<String> = (0..u32::try_from(view.partitions.len()).unwrap_or(u32::MAX))
        .filter_map(|p| stuck_mark(view, p).map(|m| format!("partition {p} is stuck on offset {}", m.offset)))
        .collect();
    if stuck.is_empty() { String::new() } else { format!("The handler keeps failing: {}.", stuck.join(", ")) }
}

/// The broker strip and the delivery settings, with a cluster.
#[cfg(feature = "cluster")]
fn brokers(state: &crate::state::AppState, on_action: &Callback<Action>) -> Html {
    let Some(cluster) = state.cluster.clone() else { return Html::default() };
    let idempotence_setting = state.scenario.config.producer.delivery.and_then(|d| d.enable_idempotence);
    let explained =
        state.explaining.as_ref().and_then(|e| e.highlighted()) == Some(offsetlab_engine::Part::Topic);
    let acked_lost = state.view.metrics.acked_lost;
    html! { <crate::components::Brokers {cluster} {idempotence_setting} {explained} {acked_lost} on_action={on_action.clone()} /> }
}

#[cfg(not(feature = "cluster"))]
fn brokers(_: &crate::state::AppState, _: &Callback<Action>) -> Html {
    Html::default()
}
