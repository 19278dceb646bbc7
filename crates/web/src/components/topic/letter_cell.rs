//! One letter on a letter topic's tape (`orders.DLT`, a retry topic, a share
//! group's dead-letter topic): its offset, its source on orders and its
//! count of attempts or deliveries, a button that shows the source record.
//! The two letter tapes (`letter_tapes`, `share_letter_tapes`) differ in
//! their headers and words, not in the cell.

use crate::state::Action;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A letter's source record on orders, as its headers name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub partition: u32,
    pub offset: u64,
}

impl Source {
    /// "P1@3": the record's partition and offset on orders.
    #[must_use]
    pub fn text(self) -> String {
        format!("P{}@{}", self.partition, self.offset)
    }

    /// Shows the source on its tape and then moves the focus to it.
    fn on_click(self, on_action: &Callback<Action>) -> Callback<MouseEvent> {
        let on_action = on_action.clone();
        Callback::from(move |_: MouseEvent| {
            on_action.emit(Action::ShowSource { partition: self.partition, offset: self.offset });
            focus_source_later(self.partition, self.offset);
        })
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct LetterCellProps {
    /// The letter's offset on its own topic.
    pub offset: u64,
    pub source: Source,
    /// Attempts (`retry_topic-attempts`) or deliveries (`__dlq.errors.delivery.count`).
    pub count: u32,
    /// The letter's headers in words: the button's title and the end of its name.
    pub words: AttrValue,
    pub on_action: Callback<Action>,
}

#[component]
pub fn LetterCell(props: &LetterCellProps) -> Html {
    let source = props.source.text();
    // The accessible name starts with what the button shows.
    let shown = format!("{} ← {source} ×{}", props.offset, props.count);
    html! {
        <li>
            <button type="button" class="letter-cell" data-letter-offset={props.offset.to_string()}
                data-source={source.clone()}
                aria-label={format!("{shown}: {}. Show the source record", props.words)} title={props.words.clone()}
                onclick={props.source.on_click(&props.on_action)}>
                <span class="letter-offset">{ props.offset }</span>
                { " " }
                <span class="letter-source">{ format!("← {source}") }</span>
                { " " }
                <span class="letter-attempts">{ format!("×{}", props.count) }</span>
            </button>
        </li>
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SourceLinkProps {
    pub source: Source,
    pub on_action: Callback<Action>,
}

/// The source column of a letter topic's headers table: a button to the record on orders.
#[component]
pub fn SourceLink(props: &SourceLinkProps) -> Html {
    let source = props.source.text();
    html! {
        <button type="button" class="letter-source-link" data-source={source.clone()}
            aria-label={format!("Show the source record, orders {source}")}
            onclick={props.source.on_click(&props.on_action)}>
            { format!("orders {source}") }
        </button>
    }
}

/// Once the page has drawn the source's tape at it, the focus goes to the
/// source cell (keyboard users land where they asked to go) and it scrolls into view.
fn focus_source_later(partition: u32, offset: u64) {
    let Some(window) = web_sys::window() else { return };
    let focus = wasm_bindgen::closure::Closure::once_into_js(move || {
        let cell = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| {
                d.query_selector(&format!(
                    ".topic .tape[data-partition=\"{partition}\"] [data-offset=\"{offset}\"]"
                ))
                .ok()
                .flatten()
            })
            .and_then(|c| c.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(cell) = cell {
            let _ = cell.focus();
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
            cell.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
    // A little after the render the action causes (Yew renders on its own schedule).
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(focus.unchecked_ref(), 50);
}
