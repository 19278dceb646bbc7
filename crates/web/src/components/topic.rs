//! Topic orders: one virtualised tape per partition.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Topic(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="topic" aria-label="Topic orders"></section> }
}
