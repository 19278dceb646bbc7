//! The status line: refused inputs and notices, announced politely.

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StatusLineProps {
    /// The message to show; the region stays in the page (empty) without one,
    /// so screen readers announce the next message.
    #[prop_or_default]
    pub message: Option<AttrValue>,
    /// Clears the message.
    #[prop_or_default]
    pub on_dismiss: Callback<()>,
}

#[component]
pub fn StatusLine(props: &StatusLineProps) -> Html {
    html! {
        <div class="status" role="status" aria-live="polite" aria-atomic="true">
            if let Some(message) = props.message.clone() {
                <p>{ message }</p>
                <button type="button" class="dismiss" aria-label="Dismiss the message"
                    onclick={props.on_dismiss.reform(|_: MouseEvent| ())}>{ "×" }</button>
            }
        </div>
    }
}
