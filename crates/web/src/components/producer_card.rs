//! The producer orders-api: send, keep sending, keys, key count, hot key.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn ProducerCard(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="producer_card" aria-label="Producer orders-api"></section> }
}
