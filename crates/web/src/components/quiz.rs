//! The quiz: two predictions, feedback, and show me.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Quiz(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="quiz" aria-label="Test yourself"></section> }
}
