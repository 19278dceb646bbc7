//! Windowed lists: a box of bounded height that scrolls through many rows of
//! one height but holds only the rows in view (and a few either side) in the
//! DOM; two spacers stand for the rest, so the scrollbar stays honest.
//!
//! Which rows are in view is the page's own state (where the user scrolled),
//! kept in a hook and read from the box's `scroll` event: nothing about the
//! simulation. The box must be a positioned scroll container whose children
//! are the first spacer, the rows, then the last spacer.

use std::ops::Range;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

/// Rows drawn beyond each edge of the box, so a short scroll or an arrow key
/// lands on a row that is already there.
pub const OVERSCAN_ROWS: u32 = 1;

/// The rows of `rows` to draw when the box, `viewport_px` tall, is scrolled to
/// `scroll_top_px` and each row (with its gap) is `row_px` tall: those in view
/// and [`OVERSCAN_ROWS`] either side, at most `rows_max`.
#[must_use]
pub fn visible_rows(
    scroll_top_px: f64,
    viewport_px: f64,
    row_px: f64,
    rows: u32,
    rows_max: u32,
) -> Range<u32> {
    assert!(rows_max > 0);
    if rows == 0 {
        return 0..0;
    }
    let row_px = row_px.max(1.0);
    // Float to u32 saturates: a negative or NaN scroll reads as row 0.
    let top = (scroll_top_px.max(0.0) / row_px).floor() as u32;
    let in_view = (viewport_px.max(0.0) / row_px).ceil() as u32 + 1;
    let first = top.min(rows - 1).saturating_sub(OVERSCAN_ROWS);
    let count = (in_view + 2 * OVERSCAN_ROWS).min(rows_max);
    let end = first.saturating_add(count).min(rows);
    // Near the end, keep drawing `count` rows: the window never shrinks as it reaches the bottom.
    let first = end.saturating_sub(count).min(first);
    let range = first..end;
    assert!(range.end <= rows && range.len() as u32 <= rows_max);
    range
}

/// Where the window is and the height of one row, as last measured.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Measured {
    scroll_top_px: f64,
    viewport_px: f64,
    row_px: f64,
}

/// What [`use_scroll_window`] gives the list: the box's ref and scroll handler,
/// the rows to draw and the spacers' heights.
#[derive(Debug, Clone)]
pub struct ScrollWindow {
    pub node: NodeRef,
    pub onscroll: Callback<Event>,
    pub rows: Range<u32>,
    pub before_px: f64,
    pub after_px: f64,
}

impl ScrollWindow {
    /// The style of a spacer `px` tall.
    #[must_use]
    pub fn spacer_style(px: f64) -> String {
        // Whole pixels as an integer: formatting an f64 would add float formatting to the wasm.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // Clamped to u32 first.
        let whole = px.round().clamp(0.0, f64::from(u32::MAX)) as u32;
        format!("height:{whole}px")
    }
}

/// A window over `rows` rows, each about `row_estimate_px` tall until a
/// scroll measures them, drawing at most `rows_max`.
#[hook]
pub fn use_scroll_window(rows: u32, row_estimate_px: f64, rows_max: u32) -> ScrollWindow {
    let node = use_node_ref();
    let measured = use_state_eq(|| Measured {
        scroll_top_px: 0.0,
        viewport_px: row_estimate_px * f64::from(rows_max),
        row_px: row_estimate_px,
    });
    let onscroll = {
        let node = node.clone();
        let measured = measured.clone();
        Callback::from(move |_: Event| {
            if let Some(next) = measure(&node, measured.row_px) {
                measured.set(next);
            }
        })
    };
    // A new row count (a scenario loaded, partitions added) re-reads the box once.
    {
        let node = node.clone();
        let measured = measured.clone();
        use_effect_with(rows, move |_| {
            if let Some(next) = measure(&node, measured.row_px) {
                measured.set(next);
            }
        });
    }
    let range = visible_rows(measured.scroll_top_px, measured.viewport_px, measured.row_px, rows, rows_max);
    ScrollWindow {
        node,
        onscroll,
        before_px: f64::from(range.start) * measured.row_px,
        after_px: f64::from(rows - range.end) * measured.row_px,
        rows: range,
    }
}

/// The box's scroll position and height, and the height of its drawn rows
/// (from the first to the last, so gaps count): `None` without the box.
fn measure(node: &NodeRef, row_px: f64) -> Option<Measured> {
    let list = node.cast::<Element>()?;
    let first = list.first_element_child()?.next_element_sibling()?;
    let last = list.last_element_child()?.previous_element_sibling()?;
    let (first, last) = (first.dyn_into::<HtmlElement>().ok()?, last.dyn_into::<HtmlElement>().ok()?);
    let span = f64::from(last.offset_top() - first.offset_top());
    let drawn = list.child_element_count().saturating_sub(2);
    let row_px = match drawn {
        0 => row_px,
        1 => f64::from(first.offset_height()).max(1.0),
        n => (span / f64::from(n - 1)).max(1.0),
    };
    Some(Measured {
        scroll_top_px: f64::from(list.scroll_top()),
        viewport_px: f64::from(list.client_height()),
        row_px,
    })
}

/// How far a sideways box's columns are scrolled past its left edge (negative while they
/// start right of it), how wide the box is, and the width of one column, as last measured.
#[derive(Debug, Clone, Copy, PartialEq)]
struct MeasuredX {
    scroll_left_px: f64,
    viewport_px: f64,
    column_px: f64,
    /// The box's own `scrollLeft` is past its start.
    scrolled: bool,
}

impl MeasuredX {
    /// Whole columns the box is wide enough for.
    fn fit(self) -> u32 {
        // Float to u32 saturates: a NaN width reads as none.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let fit = (self.viewport_px / self.column_px).floor() as u32;
        fit
    }
}

/// Whole columns the sideways box `row` is wide enough for, as [`use_columns_in_view`]
/// measures it (its `fit`): `None` without columns, or when it does not scroll sideways.
#[must_use]
pub fn columns_that_fit(row: &Element) -> Option<u32> {
    measure_row(row).map(MeasuredX::fit)
}

/// What [`use_columns_in_view`] gives a row: the box's ref and scroll handler, and which of
/// its columns to draw (`None`: all of them, until the box is measured or when it does not
/// scroll sideways).
#[derive(Debug, Clone)]
pub struct ColumnsInView {
    pub node: NodeRef,
    pub onscroll: Callback<Event>,
    pub columns: Option<Range<u32>>,
    /// Whole columns the box is wide enough for (`None` until measured, or when
    /// it does not scroll sideways).
    pub fit: Option<u32>,
    /// The box is scrolled sideways past its start: the reader moved it.
    pub scrolled: bool,
}

/// The sideways twin of [`use_scroll_window`] for one row of `columns` columns of one width,
/// in a box that scrolls sideways and holds an element `[data-columns]` (their count) as wide
/// as the columns: the columns in view and [`OVERSCAN_ROWS`] either side. The box is measured when
/// it scrolls, when it changes size (a `ResizeObserver`) and when its first columns arrive,
/// never at each tick: a measure right after the page changed would force a layout each frame.
#[hook]
pub fn use_columns_in_view(columns: u32) -> ColumnsInView {
    let node = use_node_ref();
    let measured = use_state_eq(|| None::<MeasuredX>);
    let onscroll = {
        let node = node.clone();
        let measured = measured.clone();
        Callback::from(move |_: Event| measured.set(measure_x(&node).or(*measured)))
    };
    {
        let node = node.clone();
        let measured = measured.clone();
        // Again once the row has columns: an empty row has no width to measure them by.
        use_effect_with(columns > 0, move |_| {
            let observer = observe_size(&node, measured, measure_x);
            move || {
                if let Some((observer, _closure)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    let fit = (*measured).map(MeasuredX::fit);
    let scrolled = (*measured).is_some_and(|m| m.scrolled);
    let columns = (*measured)
        .map(|m| visible_rows(m.scroll_left_px, m.viewport_px, m.column_px, columns, columns.max(1)));
    ColumnsInView { node, onscroll, columns, fit, scrolled }
}

/// How many items a row that clips sideways can show, and the row's ref: `None` (show them
/// all) until it is measured, or when it does not clip.
#[derive(Debug, Clone)]
pub struct ItemsInView {
    pub node: NodeRef,
    pub items: Option<u32>,
}

/// For a row of items that clips what overflows sideways (the sink's strip, its newest items at
/// the right end): how many items could show, counted by the width of the row over the items'
/// CSS `min-width`, so never fewer than fit. Measured when the row changes size and when its
/// first item arrives, never at each tick.
#[hook]
pub fn use_items_in_view(has_items: bool) -> ItemsInView {
    let node = use_node_ref();
    let measured = use_state_eq(|| None::<u32>);
    {
        let node = node.clone();
        let measured = measured.clone();
        // Again once the row has items: their min-width is read from one of them.
        use_effect_with(has_items, move |_| {
            let observer = observe_size(&node, measured, items_that_fit);
            move || {
                if let Some((observer, _closure)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    ItemsInView { node, items: *measured }
}

/// The row's width over its first item's `min-width`, plus two for the parts of items at
/// either edge: `None` without the row or an item, or when the row does not clip sideways.
fn items_that_fit(node: &NodeRef) -> Option<u32> {
    let row = node.cast::<Element>()?;
    if !matches!(computed(&row, "overflow-x")?.as_str(), "hidden" | "clip" | "scroll" | "auto") {
        return None;
    }
    let min_width = computed(&row.first_element_child()?, "min-width")?;
    // "51.2px": the whole pixels are enough, and rounding down counts more items, not fewer.
    let whole_px: u32 = min_width.split(['.', 'p']).next()?.parse().ok().filter(|px| *px > 0)?;
    let width_px = u32::try_from(row.client_width()).ok()?;
    Some(width_px / whole_px + 2)
}

/// An element's computed value of a CSS `property`.
fn computed(element: &Element, property: &str) -> Option<String> {
    web_sys::window()?.get_computed_style(element).ok()??.get_property_value(property).ok()
}

/// Measures the box now and whenever it changes size; the observer lives until disconnected,
/// and its closure as long as the returned value.
fn observe_size<T: PartialEq + 'static>(
    node: &NodeRef,
    measured: UseStateHandle<Option<T>>,
    measure: fn(&NodeRef) -> Option<T>,
) -> Option<(web_sys::ResizeObserver, wasm_bindgen::closure::Closure<dyn FnMut()>)> {
    let target = node.cast::<Element>()?;
    let closure = {
        let node = node.clone();
        let measured = measured.clone();
        wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            if let Some(next) = measure(&node) {
                measured.set(Some(next));
            }
        })
    };
    let observer = web_sys::ResizeObserver::new(closure.as_ref().unchecked_ref()).ok()?;
    // A new observer reports the box's size once at the start: that is the first measure.
    observer.observe(&target);
    Some((observer, closure))
}

/// The box's sideways scroll position and width, and one column's width (the width of its
/// `[data-columns]` element over their count): `None` without the box or columns, or when the
/// box does not scroll sideways.
fn measure_x(node: &NodeRef) -> Option<MeasuredX> {
    measure_row(&node.cast::<Element>()?)
}

/// [`measure_x`] of the box itself.
fn measure_row(row: &Element) -> Option<MeasuredX> {
    // A box that does not scroll sideways (no stylesheet) shows every column.
    if !matches!(computed(row, "overflow-x")?.as_str(), "scroll" | "auto") {
        return None;
    }
    let track = row.query_selector("[data-columns]").ok()??;
    let count: u32 = track.get_attribute("data-columns")?.parse().ok().filter(|n| *n > 0)?;
    let column_px = f64::from(track.client_width()) / f64::from(count);
    // How far the columns' start is scrolled past the box's inner left edge: whatever sits
    // before them in the box (a tape's "+N older") is not a column.
    let inner_left_px = row.get_bounding_client_rect().left() + f64::from(row.client_left());
    (column_px >= 1.0).then(|| MeasuredX {
        scroll_left_px: inner_left_px - track.get_bounding_client_rect().left(),
        viewport_px: f64::from(row.client_width()),
        column_px,
        scrolled: row.scroll_left() > 1,
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn draws_what_is_in_view_and_a_few_more_bounded() {
        // 100 px rows, a 400 px box at the top: 5 rows in view (one partly), 1 more either side.
        assert_eq!(visible_rows(0.0, 400.0, 100.0, 256, 24), 0..7);
        assert_eq!(visible_rows(1_000.0, 400.0, 100.0, 256, 24), 9..16);
        // At the bottom the window keeps its size and ends at the last row.
        assert_eq!(visible_rows(25_200.0, 400.0, 100.0, 256, 24), 249..256);
        assert_eq!(visible_rows(1e9, 400.0, 100.0, 256, 24), 249..256);
        // A huge box still draws at most the bound.
        assert_eq!(visible_rows(0.0, 1e6, 100.0, 256, 24), 0..24);
        // Fewer rows than the window: all of them.
        assert_eq!(visible_rows(0.0, 400.0, 100.0, 3, 24), 0..3);
        assert_eq!(visible_rows(f64::NAN, f64::NAN, 0.0, 10, 4), 0..3);
        assert_eq!(visible_rows(0.0, 400.0, 100.0, 0, 24), 0..0);
    }
}
