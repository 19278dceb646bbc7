//! The aria-live region and the feed of what happened.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Announcer(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="announcer" aria-label="What happened"></section> }
}
