//! The masthead: the title, the one-sentence hook, and the chapters.

use crate::components::CHAPTERS;
use yew::prelude::*;

/// What a chapter is about, in a line: its link's tooltip, for titles that
/// name a term before the chapter defines it.
fn gist(id: &str) -> Option<&'static str> {
    Some(match id {
        "log-and-keys" => "Partitions, offsets, and how a key picks a partition",
        "groups" => "How a consumer group shares a topic's partitions among its members",
        "delivery" => "Committing offsets, and what a crash costs before or after a commit",
        "rebalances" => "How a group hands its partitions out again when members come and go",
        "offset-storage" => "Where a consumer's position is kept, and how often to save it",
        "operations" => "Payouts paid twice, lag per partition, rolling updates",
        "kafka4-groups" => "Kafka 4's consumer protocol, static members and share groups",
        "written" => "Replicas, acks and what a leader crash can lose",
        "exactly-once" => "Transactions, and the effects they cannot cover",
        _ => return None,
    })
}

#[component]
pub fn Intro() -> Html {
    html! {
        <header class="intro">
            <div class="masthead">
                <h1>{ "offsetlab" }</h1>
                <p class="tagline">
                    { "Why do Kafka records come back twice, vanish, or arrive out of order? A topic and \
                       its consumer groups, simulated one tick (a step of the clock) at a time: send \
                       records, crash a consumer, watch." }
                </p>
            </div>
            <nav class="chapter-nav" aria-label="Chapters">
                <ol>
                    { for CHAPTERS.iter().map(|c| html! {
                        <li key={c.id}><a href={format!("#{}", c.id)} title={gist(c.id)}>{ c.title }</a></li>
                    }) }
                    <li><a href="#experiments">{ "All experiments" }</a></li>
                </ol>
            </nav>
        </header>
    }
}
