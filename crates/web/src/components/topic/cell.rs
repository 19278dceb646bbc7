//! One record's cell on a tape. A component of its own, so that a cell whose
//! record, place and focus are unchanged is not rendered again at each tick:
//! only the cells that are new or changed cost anything.

use crate::components::class_list;
use offsetlab_engine::RecordView;
use yew::prelude::*;

/// The number of key hues in main.css (`--key-0` … `--key-11`).
const KEY_HUES: u32 = 12;

#[derive(Debug, Clone, Copy, PartialEq, Properties)]
pub struct TapeCellProps {
    pub record: RecordView,
    /// Cells from the strip's origin.
    pub at: u64,
    pub selected: bool,
    /// The one cell of its tape in the tab order.
    pub tab_stop: bool,
    /// At or past the partition's high watermark: written on the leader, not
    /// yet on every in-sync replica, so no consumer reads it yet.
    #[prop_or_default]
    pub above_high_watermark: bool,
    /// Named by the explanation's step shown.
    #[prop_or_default]
    pub explained: bool,
    /// The record a stuck partition's handler keeps failing on.
    #[prop_or_default]
    pub failing: bool,
}

/// One record: a button with its offset and key label, coloured by subject,
/// drawn `at` cells from the strip's origin (by `left`, not a custom property,
/// which its children would inherit and be restyled for).
/// Its accessible name starts with what it shows ("7 u3 ×2"), then says it in words.
#[component]
pub fn TapeCell(props: &TapeCellProps) -> Html {
    let TapeCellProps { record, at, selected, tab_stop, above_high_watermark, explained, failing } = *props;
    let r = &record;
    let hue = r.subject % KEY_HUES;
    let key = if r.keyed { format!("u{}", r.subject) } else { format!("·u{}", r.subject) };
    let times = (r.handled > 1).then(|| format!("×{}", r.handled));
    let mut label = format!("{} {key}", r.offset);
    if let Some(times) = &times {
        label.push(' ');
        label.push_str(times);
    }
    if r.keyed {
        label.push_str(&format!(": offset {}, key user-{}", r.offset, r.subject));
    } else {
        label.push_str(&format!(": offset {}, no key (user-{})", r.offset, r.subject));
    }
    match r.handled {
        0 => {}
        1 => label.push_str(", handled"),
        n => label.push_str(&format!(", handled {n} times")),
    }
    if r.in_flight {
        label.push_str(", in a consumer's batch");
    }
    if r.lost {
        label.push_str(", never processed");
    }
    if r.poison {
        label.push_str(", poison: every handler fails on it");
    }
    if failing {
        label.push_str(", failing: its handler retries it in place, its partition waits");
    }
    if r.lost || r.handled > 1 {
        label.push_str("; press to see why");
    }
    if above_high_watermark {
        label.push_str(", above the high watermark: not readable yet");
    }
    // A share group's in-flight record: its holder and delivery count on the cell.
    let share = r.share.map(|s| {
        match (s.holder, s.lock_until) {
            (Some(holder), Some(until)) => label.push_str(&format!(
                ", acquired by {holder} until tick {until}, delivery {}",
                s.delivery_count
            )),
            _ => label.push_str(&format!(", {} after {} deliveries", s.state, s.delivery_count)),
        }
        let mark = match s.holder {
            Some(holder) => format!("{holder}·{}", s.delivery_count),
            None => format!("{}", s.delivery_count),
        };
        (s.state, mark)
    });
    let class = class_list(&[
        Some("cell"),
        Some(&format!("k{hue}")),
        (!r.keyed).then_some("keyless"),
        (r.handled > 0).then_some("handled"),
        (r.handled > 1).then_some("again"),
        r.in_flight.then_some("in-flight"),
        r.lost.then_some("lost"),
        r.poison.then_some("poison"),
        share.as_ref().map(|(state, _)| *state),
        selected.then_some("selected"),
        above_high_watermark.then_some("above-hw"),
        explained.then_some("explained"),
        failing.then_some("failing"),
    ]);
    html! {
        <button type="button" {class} data-offset={r.offset.to_string()} style={format!("left:calc({at} * var(--cell))")}
            aria-label={label.clone()} title={label} tabindex={if tab_stop { "0" } else { "-1" }}
            aria-current={selected.then_some("true")}>
            // The spaces separate the parts in the text a screen reader reads (the
            // cell's flex layout ignores them), so the name contains "7 u3".
            { r.offset }{ " " }
            <span class="cell-key">{ key }</span>
            if let Some(times) = times {
                { " " }<span class="cell-times">{ times }</span>
            }
            if let Some((_, mark)) = share {
                { " " }<span class="cell-share">{ mark }</span>
            }
        </button>
    }
}
