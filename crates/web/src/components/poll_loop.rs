//! The poll loop in code, with the line each consumer is on.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn PollLoop(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="poll_loop" aria-label="The poll loop"></section> }
}
