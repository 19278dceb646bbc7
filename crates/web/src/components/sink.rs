//! What the application did, in order, and the counters.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Sink(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="sink" aria-label="What the application did"></section> }
}
