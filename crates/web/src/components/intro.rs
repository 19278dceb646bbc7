//! The page's title and the lead: what a log is and what to try first.

use yew::prelude::*;

#[component]
pub fn Intro() -> Html {
    html! {
        <header class="intro">
            <h1>{ "offsetlab" }</h1>
            <p class="tagline">{ "A Kafka topic and one consumer group, simulated tick by tick in your browser." }</p>
            <div class="lead">
                <p>
                    { "Producers append records to the end of partition tapes. Every consumer group \
                       keeps its own place in each tape, and reading a record removes nothing, so \
                       another group can read the same records later." }
                </p>
                <p>
                    { "Time moves in ticks: on each tick, every running consumer handles a record \
                       from the batch its last poll() returned." }
                </p>
                <p class="try-this">
                    <strong>{ "Try this first: " }</strong>
                    { "send 10 records, crash c1 while it is halfway through a batch, and watch the \
                       Duplicates counter once c2 takes over its partitions." }
                </p>
            </div>
            <a class="skip-to-experiments" href="#experiments">{ "Skip to the experiments" }</a>
        </header>
    }
}
