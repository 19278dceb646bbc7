//! The four rules.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Rules(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="rules" aria-label="The four rules"></section> }
}
