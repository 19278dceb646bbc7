//! What the model leaves out, and which Kafka defaults it follows.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn FinePrint(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="fine_print" aria-label="Fine print"></section> }
}
