//! The masthead: the title, the one-sentence hook, and the chapters.

use crate::components::CHAPTERS;
use yew::prelude::*;

#[component]
pub fn Intro() -> Html {
    html! {
        <header class="intro">
            <div class="masthead">
                <h1>{ "offsetlab" }</h1>
                <p class="tagline">
                    { "Why do Kafka records come back twice, vanish, or arrive out of order? A topic and \
                       its consumer groups, simulated tick by tick: send records, crash a consumer, watch." }
                </p>
            </div>
            <nav class="chapter-nav" aria-label="Chapters">
                <ol>
                    { for CHAPTERS.iter().map(|c| html! {
                        <li key={c.id}><a href={format!("#{}", c.id)}>{ c.title }</a></li>
                    }) }
                    <li><a href="#experiments">{ "All experiments" }</a></li>
                </ol>
            </nav>
        </header>
    }
}
