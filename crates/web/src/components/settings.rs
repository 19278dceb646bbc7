//! Records per poll, commit mode, idempotent application, restart from an offset.

use crate::components::SectionProps;
use yew::prelude::*;

#[component]
pub fn Settings(props: &SectionProps) -> Html {
    let _ = props;
    html! { <section class="settings" aria-label="Consumer settings"></section> }
}
