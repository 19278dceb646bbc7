//! A group's consumers: a card each, or, past [`CARDS_ALL_MAX`], one line
//! each in a box of bounded height that scrolls and holds only the lines in
//! view (at most [`ROWS_DRAWN_MAX`]): 64 consumers cost the page what a
//! dozen lines do.

use super::REBALANCE_RECENT_TICKS;
use super::consumer_card::ConsumerCard;
use super::consumer_row::ConsumerRow;
use crate::components::scroll_window::{ScrollWindow, use_scroll_window};
use crate::state::Action;
use offsetlab_engine::{CheckpointWrites, ConsumerId, ConsumerView, RebalanceView};
use yew::prelude::*;

/// Up to this many consumers each has its full card.
pub const CARDS_ALL_MAX: usize = 12;
/// Lines drawn at once past [`CARDS_ALL_MAX`], however tall the box.
pub const ROWS_DRAWN_MAX: u32 = 20;
/// A line's height (group.css `.consumer-row`) with its gap, before one is measured, in px.
const ROW_ESTIMATE_PX: f64 = 40.0;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ConsumerListProps {
    pub consumers: Vec<ConsumerView>,
    /// The group's last rebalance while it is recent (moved partitions are
    /// highlighted on the cards); `None` otherwise.
    #[prop_or_default]
    pub recent: Option<RebalanceView>,
    /// The group's tick, to tell whether `recent` still is.
    #[prop_or_default]
    pub tick: u64,
    #[prop_or_default]
    pub store: Option<CheckpointWrites>,
    /// The group is a share group.
    #[prop_or_default]
    pub share: bool,
    pub label: AttrValue,
    /// The consumer the explanation's step shown names.
    #[prop_or_default]
    pub explained: Option<ConsumerId>,
    pub on_action: Callback<Action>,
}

#[component]
pub fn ConsumerList(props: &ConsumerListProps) -> Html {
    let count = props.consumers.len();
    let rows = u32::try_from(count).expect("consumers are bounded");
    let window = use_scroll_window(rows, ROW_ESTIMATE_PX, ROWS_DRAWN_MAX);
    let store = props.store;
    if count <= CARDS_ALL_MAX {
        let recent =
            props.recent.as_ref().filter(|r| props.tick.saturating_sub(r.tick) < REBALANCE_RECENT_TICKS);
        let arrived_for = |id: ConsumerId| -> Vec<u32> {
            recent
                .map(|r| r.moved.iter().filter(|m| m.to == Some(id)).map(|m| m.partition).collect())
                .unwrap_or_default()
        };
        let left_for = |id: ConsumerId| -> Vec<(u32, Option<ConsumerId>)> {
            recent
                .map(|r| r.moved.iter().filter(|m| m.from == Some(id)).map(|m| (m.partition, m.to)).collect())
                .unwrap_or_default()
        };
        return html! {
            <ul class="consumer-cards" aria-label={props.label.clone()}>
                { for props.consumers.iter().map(|c| html! {
                    <ConsumerCard key={c.id.to_string()} consumer={c.clone()} arrived={arrived_for(c.id)}
                        left={left_for(c.id)} {store} share={props.share} explained={props.explained == Some(c.id)}
                        on_action={props.on_action.clone()} />
                }) }
            </ul>
        };
    }
    let drawn = window.rows.start as usize..window.rows.end as usize;
    let lines: Html = props.consumers[drawn]
        .iter()
        .map(|c| {
            html! {
                <ConsumerRow key={c.id.to_string()} consumer={c.clone()} store={store.is_some()}
                    on_action={props.on_action.clone()} />
            }
        })
        .collect();
    let ScrollWindow { node, onscroll, before_px, after_px, .. } = window;
    html! {
        <ul class="consumer-rows" ref={node} {onscroll} aria-label={format!("{}: {count}, scrollable", props.label)}>
            <li class="rows-spacer" aria-hidden="true" style={ScrollWindow::spacer_style(before_px)} />
            { lines }
            <li class="rows-spacer" aria-hidden="true" style={ScrollWindow::spacer_style(after_px)} />
        </ul>
    }
}
