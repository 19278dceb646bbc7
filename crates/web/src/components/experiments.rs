//! The built-in scenarios as one-click experiments.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Experiments(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="experiments" aria-label="Experiments"></section> }
}
