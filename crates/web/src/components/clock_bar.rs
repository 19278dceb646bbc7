//! The clock: play, pause, one tick forward, speed, start again, the seed.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn ClockBar(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="clock_bar" aria-label="Clock"></section> }
}
