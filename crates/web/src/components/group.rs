//! Consumer group demo: one card per consumer, the generation, rebalances.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Group(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="group" aria-label="Consumer group demo"></section> }
}
