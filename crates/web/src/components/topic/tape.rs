//! One partition's tape: its owner and lag, the window of record cells, the
//! committed offset (booblik: the owner's stored checkpoint), the owner's
//! position and the log end.
//!
//! Only the window's cells are in the DOM (at most `TAPE_CELLS`), and of those
//! only the ones in the tape's view. Clicks and
//! arrow keys are handled once on the cell row, not per cell; only one cell
//! per tape is in the tab order (left and right arrows move between them, up
//! and down to the next tape's).

use super::cell::TapeCell;
use crate::components::class_list;
use crate::components::scroll_window::{columns_that_fit, use_columns_in_view};
use crate::state::{Action, Asked, TapeScroll};
use offsetlab_engine::{Part, PartitionView};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

/// Cells are placed on the strip by their offset less a base that moves in
/// steps of this many offsets: between steps a sliding window only moves the
/// strip (a transform), so the cells already drawn are neither
/// restyled nor painted again; each step re-places the window's cells once.
/// A step this long is rare (once per 4,096 records of a partition) and keeps
/// the strip's coordinates small (4,096 cells are about 180,000 px, far inside
/// the range of layout's fixed-point units, about 33 million px).
const STRIP_STEP_CELLS: u64 = 4096;
/// Of the cells a tape's box is wide enough for, those its labels take: "+N
/// older" before the cells and "end N" after them, each at most a cell wide (styles/topic.css).
const SHOWN_LABEL_CELLS: u32 = 2;

/// The cells a tape's box shows, of the `fit` cells it is wide enough for: its labels take the rest.
fn cells_shown(fit: u32) -> u64 {
    u64::from(fit.saturating_sub(SHOWN_LABEL_CELLS))
}

/// The cells the box of the first tape in `root` shows, measured as a tape measures its own
/// box after it renders: `None` without a tape, or when its box does not scroll sideways (or
/// is not laid out, e.g. hidden).
#[must_use]
pub fn tape_cells_shown(root: &Element) -> Option<u64> {
    let row = root.query_selector(".tape-scroll").ok()??;
    columns_that_fit(&row).map(cells_shown)
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct TapeProps {
    pub tape: crate::state::Tape,
    /// The partition's view (owner, lag, offsets); `None` only if the view lacks it.
    pub partition: Option<PartitionView>,
    /// The selected record's offset, if it is on this partition.
    pub selected: Option<u64>,
    /// booblik: the consumers keep their own positions; the dashed line is the
    /// owner's stored checkpoint, `stored`, instead of the group's committed offset.
    #[prop_or_default]
    pub store: bool,
    #[prop_or_default]
    pub stored: Option<u64>,
    /// With more than one group: each group's committed offset, in config
    /// order (the first group's too), drawn as a named marker. Empty with one group.
    #[prop_or_default]
    pub groups: Vec<GroupMarker>,
    /// With a cluster: the partition's replicas, ISR and high watermark (the
    /// tape then ends at the high watermark, where consumers stop).
    #[prop_or_default]
    pub replicas: Option<offsetlab_engine::ReplicaSetView>,
    /// The part the explanation's step shown names, when it is on this tape.
    #[prop_or_default]
    pub explained: Option<Part>,
    /// The first group's handler is retrying a record of this partition in place.
    #[prop_or_default]
    pub stuck: Option<StuckMark>,
    pub on_action: Callback<Action>,
}

/// A stuck partition: the record its handler keeps failing on (issue 40).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StuckMark {
    pub offset: u64,
    /// Attempts so far.
    pub attempts: u32,
    /// Ticks the partition has been stuck, in all.
    pub ticks: u64,
}

/// "stuck at 4 · attempt 7 · 6 ticks": what the mark on the tape's head says.
#[must_use]
pub fn stuck_text(m: &StuckMark) -> String {
    let ticks = if m.ticks == 1 { "1 tick".to_string() } else { format!("{} ticks", m.ticks) };
    format!("stuck at {} · attempt {} · {ticks}", m.offset, m.attempts)
}

/// One group's committed offset on a tape.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupMarker {
    pub name: String,
    pub committed: Option<u64>,
    /// The group's lag on this partition (`None` before its first commit).
    pub lag: Option<u64>,
}

#[component]
pub fn PartitionTape(props: &TapeProps) -> Html {
    let tape = &props.tape;
    let p = tape.partition;
    let view = props.partition.as_ref();
    let explained_record = match props.explained {
        Some(Part::Record { partition, offset }) if partition == p => Some(offset),
        _ => None,
    };
    let explained_commit = matches!(props.explained, Some(Part::Commit { partition, .. }) if partition == p);
    let shown = tape.records.len() as u64;
    let end = tape.from + shown;
    // The strip's origin, and how far it is slid left to show the window from `tape.from`.
    let base = tape.from - tape.from % STRIP_STEP_CELLS;
    let slid = tape.from - base;
    // Where on the strip (in cells from its origin) an offset inside the window,
    // or at its end, is drawn.
    let slot = |offset: u64| (tape.from..=end).contains(&offset).then(|| offset - base);

    let owner = match view.and_then(|v| v.owner.map(|o| (o, v.owner_alive))) {
        Some((owner, true)) => owner.to_string(),
        Some((owner, false)) => format!("{owner} (crashed)"),
        None => "—".to_owned(),
    };
    let lag_text = |lag: Option<u64>| lag.map_or_else(|| "–".to_owned(), |l| l.to_string());
    let lag = if props.groups.is_empty() {
        format!("lag {}", lag_text(view.and_then(|v| v.lag)))
    } else {
        // Every group's own lag: one log, as many positions as groups.
        let each: Vec<String> =
            props.groups.iter().map(|m| format!("{} {}", m.name, lag_text(m.lag))).collect();
        format!("lag {}", each.join(" · "))
    };
    // With several groups the owner shown is the first group's: say whose.
    let owner = match props.groups.first() {
        Some(first) => format!("{}: {owner}", first.name),
        None => owner,
    };
    let committed = if props.store { props.stored } else { view.and_then(|v| v.committed) };
    let position = view.and_then(|v| v.position);
    let log_end = view.map_or(end, |v| v.log_end);

    // The one cell in the tab order: the selected one, else the next to read, else the first.
    let tab_stop = props
        .selected
        .filter(|o| (tape.from..end).contains(o))
        .or_else(|| position.filter(|o| (tape.from..end).contains(o)))
        .unwrap_or(tape.from);

    // A record the group handled twice or moved past unhandled: selecting it opens its explanation too.
    let anomalous: Vec<u64> =
        tape.records.iter().filter(|r| r.lost || r.handled > 1).map(|r| r.offset).collect();
    let onclick = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(offset) = cell_offset(e.target()) {
                on_action.emit(Action::Select(Some((p, offset))));
                if anomalous.contains(&offset) {
                    let asked = Asked::Record { group: Some(0), partition: p, offset };
                    on_action.emit(Action::Explain(Some(asked)));
                }
            }
        })
    };
    let onkeydown = Callback::from(move |e: KeyboardEvent| {
        let Some(cell) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        if !cell.has_attribute("data-offset") {
            return;
        }
        let next = match e.key().as_str() {
            "ArrowRight" => cell.next_element_sibling(),
            "ArrowLeft" => cell.previous_element_sibling(),
            "Home" => {
                cell.parent_element().and_then(|row| row.query_selector("button:first-of-type").ok()?)
            }
            "End" => cell.parent_element().and_then(|row| row.query_selector("button:last-of-type").ok()?),
            // The neighbouring tape's cell in the tab order (windowed tapes draw one more either side).
            "ArrowDown" | "ArrowUp" => {
                let tape = cell.closest(".tape").ok().flatten();
                let next = if e.key() == "ArrowDown" {
                    tape.and_then(|t| t.next_element_sibling())
                } else {
                    tape.and_then(|t| t.previous_element_sibling())
                };
                next.and_then(|t| t.query_selector("button[data-offset][tabindex=\"0\"]").ok()?)
            }
            _ => return,
        };
        e.prevent_default();
        if let Some(next) = next.filter(|n| n.has_attribute("data-offset")) {
            if let Ok(next) = next.dyn_into::<HtmlElement>() {
                let _ = next.focus();
            }
        }
    });
    // Only the cells in the tape's box, one more either side, and the tab stop and the selected
    // one wherever they are (a tape's window is wider than most screens show).
    let in_view = use_columns_in_view(u32::try_from(shown).expect("a tape's window is bounded"));
    // The box's width, in cells, tells the state where a following window starts, so that the
    // cursor, the committed offset and the log end are in the box and not past its right edge.
    {
        let on_action = props.on_action.clone();
        use_effect_with(in_view.fit, move |fit| {
            if let Some(fit) = *fit {
                on_action.emit(Action::TapeShown(cells_shown(fit)));
            }
        });
    }
    // A window move starts the box at the window's first cell again.
    let scroll = |scroll: TapeScroll| {
        let on_action = props.on_action.clone();
        let node = in_view.node.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(row) = node.cast::<Element>() {
                row.set_scroll_left(0);
            }
            on_action.emit(Action::ScrollTape { partition: p, scroll });
        })
    };
    let following = tape.following && !in_view.scrolled;

    // Collected into one keyed list of its own: `{ for … }` would splice the
    // cells in among the (unkeyed) markers, and Yew would then diff them by
    // position, rebuilding every cell whenever the window slides.
    let high_watermark = props.replicas.as_ref().map(|r| r.high_watermark);
    let failing = props.stuck.map(|m| m.offset);
    let drawn = |r: &&offsetlab_engine::RecordView| {
        in_view.columns.as_ref().is_none_or(|columns| {
            let index = u32::try_from(r.offset - tape.from).expect("a tape's window is bounded");
            columns.contains(&index)
                || r.offset == tab_stop
                || props.selected == Some(r.offset)
                || explained_record == Some(r.offset)
                || failing == Some(r.offset)
        })
    };
    let cells: Html = tape
        .records
        .iter()
        .filter(drawn)
        .map(|r| {
            html! {
                <TapeCell key={r.offset} record={*r} at={r.offset - base}
                    selected={props.selected == Some(r.offset)} tab_stop={r.offset == tab_stop}
                    explained={explained_record == Some(r.offset)} failing={failing == Some(r.offset)}
                    above_high_watermark={high_watermark.is_some_and(|hw| r.offset >= hw)} />
            }
        })
        .collect();
    let named = !props.groups.is_empty() && !props.store;
    let committed_marker =
        committed.filter(|_| !named).and_then(|c| slot(c).map(|i| (c, i))).map(|(c, i)| {
            let (class, marker, text) = if props.store {
                ("marker committed stored", "stored", format!("{owner}'s stored checkpoint {c}"))
            } else {
                ("marker committed", "committed", format!("committed {c}"))
            };
            let class = if explained_commit { format!("{class} explained") } else { class.to_string() };
            html! {
                <span {class} data-marker={marker} style={format!("left:calc({i} * var(--cell))")}>
                    <span class="visually-hidden">{ text }</span>
                </span>
            }
        });
    // One marker per group, labelled with the group's name (not colour alone);
    // the first group's is the dashed line the single-group page draws.
    let group_markers: Html = if named {
        props
            .groups
            .iter()
            .enumerate()
            .filter_map(|(g, m)| m.committed.and_then(|c| slot(c).map(|i| (g, m, c, i))))
            .map(|(g, m, c, i)| {
                html! {
                    <span key={m.name.clone()} class={class_list(&[Some("marker committed group-marker"), (g > 0).then_some("other-group")])}
                        data-marker="committed" data-group={m.name.clone()} style={format!("left:calc({i} * var(--cell)); --g:{g}")}>
                        <span class="group-marker-name" aria-hidden="true">{ m.name.clone() }</span>
                        <span class="visually-hidden">{ format!("{} committed {c}", m.name) }</span>
                    </span>
                }
            })
            .collect()
    } else {
        Html::default()
    };
    let position_marker = position.and_then(|o| slot(o).map(|i| (o, i))).map(|(o, i)| {
        html! {
            <span class="marker position" data-marker="position" style={format!("left:calc({i} * var(--cell))")}>
                <span class="visually-hidden">{ format!("{owner} reads next at offset {o}") }</span>
            </span>
        }
    });
    #[cfg(feature = "cluster")]
    let replicas = props.replicas.as_ref().map(replica_line).unwrap_or_default();
    #[cfg(not(feature = "cluster"))]
    let replicas = Html::default();
    // The high watermark on the strip, named: consumers read only the records before it.
    let high_watermark_marker = high_watermark.and_then(|hw| slot(hw).map(|i| (hw, i))).map(|(hw, i)| {
        html! {
            <span class="marker high-watermark" data-marker="high-watermark" style={format!("left:calc({i} * var(--cell))")}>
                <span class="high-watermark-label">{ format!("HW {hw}") }</span>
            </span>
        }
    });
    html! {
        <div class={class_list(&[Some("tape"), props.stuck.is_some().then_some("is-stuck")])} data-partition={p.to_string()}
            role="group" aria-label={format!("Partition {p}")}>
            <div class="tape-head">
                <span class="tape-label">{ format!("P{p}") }</span>
                <span class="visually-hidden">{ "owner" }</span>
                <span class={class_list(&[Some("tape-owner"), view.is_some_and(|v| v.owner.is_some() && !v.owner_alive).then_some("crashed")])}
                    data-field="owner">{ owner.clone() }</span>
                <span class="tape-lag" data-field="lag">{ lag }</span>
                <span class="tape-nav">
                    <button type="button" data-action="older" disabled={tape.hidden_before == 0}
                        aria-label={format!("Show older records of P{p}")} onclick={scroll(TapeScroll::Older)}>
                        { "‹" }<span class="wide-word">{ " Older" }</span>
                    </button>
                    <button type="button" data-action="newer" disabled={tape.newer_than_shown == 0}
                        aria-label={format!("Show newer records of P{p}")} onclick={scroll(TapeScroll::Newer)}>
                        <span class="wide-word">{ "Newer " }</span>{ "›" }
                    </button>
                    if !following {
                        <button type="button" data-action="follow"
                            aria-label={format!("Follow the newest records of P{p}: its cursor, committed offset and log end")}
                            onclick={scroll(TapeScroll::Follow)}>
                            { "Follow ›" }
                        </button>
                    }
                </span>
            </div>
            { replicas }
            <div class={class_list(&[Some("tape-scroll"), named.then_some("has-group-markers")])}
                style={named.then(|| format!("--groups:{}", props.groups.len()))}
                ref={in_view.node.clone()} onscroll={in_view.onscroll.clone()}>
                <div class="tape-track">
                    // One cell wide at most ("+14" over "older"; "+9" on a phone, where every
                    // cell's width counts): the labels' share of the box is SHOWN_LABEL_CELLS.
                    <span class="tape-more older" data-field="older-count">
                        if tape.hidden_before > 0 {
                            { format!("+{}", tape.hidden_before) }<span class="wide-word">{ " older" }</span>
                        }
                    </span>
                    // Plain properties, not custom ones: a custom property would be
                    // inherited, and each tick would restyle every cell.
                    <div class="cells" style={format!("width:calc({shown} * var(--cell))")} data-columns={shown.to_string()}
                        {onclick} {onkeydown}>
                        <div class="cells-strip" style={format!("transform:translateX(calc({slid} * var(--cell) * -1))")}>
                            { cells }
                            // Always one node each (an empty one when out of the window): Yew
                            // diffs unkeyed children from the end, so a child that comes and
                            // goes would make it rebuild the cells before it.
                            { committed_marker.unwrap_or_default() }
                            { position_marker.unwrap_or_default() }
                            { high_watermark_marker.unwrap_or_default() }
                            <span class="group-markers">{ group_markers }</span>
                        </div>
                    </div>
                    if tape.hidden_after > 0 {
                        <span class="tape-more newer" data-field="newer-count">
                            { format!("+{} newer", tape.hidden_after) }
                        </span>
                    }
                    <span class="log-end" data-marker="log-end">
                        <span class="log-end-label">{ format!("end {log_end}") }</span>
                    </span>
                </div>
            </div>
            if let Some(m) = props.stuck {
                <p class="tape-stuck" data-field="stuck" data-stuck-offset={m.offset.to_string()}
                    title={format!("The handler keeps failing on offset {}: the application retries it in place, \
                        and nothing behind it on P{p} is handled meanwhile", m.offset)}>
                    { stuck_text(&m) }
                </p>
            }
        </div>
    }
}

/// What the replicas line's words mean.
#[cfg(feature = "cluster")]
const REPLICAS_TITLE: &str = "High watermark (HW): the offset below which every in-sync replica holds the records; \
     consumers read only below it. ISR, the in-sync replicas: the leader and the followers caught up with it, \
     which acks=all waits for. ELR, eligible leader replicas: out of the ISR, but still holding every \
     acknowledged record, so safe to elect.";

/// The partition's replicas in a line: each broker's replica with what it
/// holds and whether it is in the ISR, in words (never colour alone), and the
/// records the leader has above the high watermark, which no consumer reads yet.
#[cfg(feature = "cluster")]
fn replica_line(r: &offsetlab_engine::ReplicaSetView) -> Html {
    let leader_end = r.replicas.iter().find(|x| Some(x.broker) == r.leader).map(|x| x.log_end);
    let above = leader_end.map_or(0, |end| end.saturating_sub(r.high_watermark));
    html! {
        // Its title defines the line's terms where a run with brokers first shows them, before
        // chapter 8 does; one tab stop per partition, so the keyboard reaches it too.
        <p class="replicas" data-field="replicas" tabindex="0" title={REPLICAS_TITLE}>
            <span class="replica-hw" data-field="high-watermark">{ format!("high watermark {}", r.high_watermark) }</span>
            { " " }
            if r.leader.is_none() {
                <span class="replica-offline" data-field="offline">{ "no leader: offline" }</span>
                { " " }
            }
            { for r.replicas.iter().map(|x| {
                let leader = r.leader == Some(x.broker);
                let tag = if x.in_isr { "ISR" } else if x.in_elr { "ELR" } else { "out of ISR" };
                // Spaces between the parts: a screen reader reads the line as one text.
                html! {
                    <>
                        <span class={class_list(&[Some("replica"), leader.then_some("leader"), (!x.in_isr).then_some("out")])}
                            data-broker={x.broker.to_string()}>
                            { format!("broker {}{} holds {} ", x.broker, if leader { " (leader)" } else { "" }, x.log_end) }
                            <span class="replica-tag">{ tag }</span>
                        </span>
                        { " " }
                    </>
                }
            }) }
            if above > 0 {
                <span class="replica-above" data-field="above-high-watermark">
                    { format!("{above} above the high watermark, not readable yet") }
                </span>
            }
        </p>
    }
}

/// The offset of the cell an event happened on (or inside).
fn cell_offset(target: Option<web_sys::EventTarget>) -> Option<u64> {
    let element = target?.dyn_into::<Element>().ok()?;
    let cell = element.closest("button[data-offset]").ok()??;
    cell.get_attribute("data-offset")?.parse().ok()
}
