//! The aria-live region and the feed of what happened.

use crate::components::SectionProps;
use crate::state::ANNOUNCEMENTS_KEPT;
use yew::prelude::*;

#[component]
pub fn Announcer(props: &SectionProps) -> Html {
    let announcements = &props.state.announcements;
    // Keyed by id: a sentence repeated word for word is still a new node, so it is read again.
    let newest = announcements.back().map(|a| {
        html! { { for std::iter::once(html! { <span key={a.id}>{ a.text.clone() }</span> }) } }
    });
    html! {
        <section class="announcer panel" aria-labelledby="announcer-heading">
            <div class="announcer-now">
                <span class="announcer-label" aria-hidden="true">{ "Latest" }</span>
                <p class="announcer-latest" data-field="announcer" aria-live="polite" aria-atomic="true">
                    { for newest }
                </p>
            </div>
            <div class="announcer-log">
                <h2 id="announcer-heading">{ "What happened" }</h2>
                if announcements.is_empty() {
                    <p class="announcer-empty">
                        { "Crashes, rebalances and resets are reported here as they happen." }
                    </p>
                } else {
                    // Whole, newest first: at most ANNOUNCEMENTS_KEPT entries.
                    <ol class="announcer-feed" aria-labelledby="announcer-heading">
                        { for announcements.iter().rev().take(ANNOUNCEMENTS_KEPT).map(|a| html! {
                            <li key={a.id}>
                                <span class="announcer-tick">{ format!("tick {}", a.tick) }</span>
                                { " " }
                                { a.text.clone() }
                            </li>
                        }) }
                    </ol>
                }
            </div>
        </section>
    }
}
