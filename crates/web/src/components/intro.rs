//! The page's title and the lead: what a log is and what to try first.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Intro(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="intro" aria-label="Introduction"></section> }
}
