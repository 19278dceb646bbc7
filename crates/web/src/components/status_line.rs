//! The status line: refused inputs and notices, announced politely.

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StatusLineProps {
    /// The message to show; the region stays in the page (empty) without one,
    /// so screen readers announce the next message.
    #[prop_or_default]
    pub message: Option<AttrValue>,
}

#[component]
pub fn StatusLine(props: &StatusLineProps) -> Html {
    html! {
        <p class="status" role="status" aria-live="polite" aria-atomic="true">
            { props.message.clone().unwrap_or_default() }
        </p>
    }
}
