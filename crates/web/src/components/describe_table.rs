//! The `kafka-consumer-groups --describe --group demo` output, as the terminal shows it.

use yew::prelude::*;

/// The command whose output the table is.
pub const COMMAND: &str = "kafka-consumer-groups --bootstrap-server localhost:9092 --describe --group demo";

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct DescribeTableProps {
    /// The engine's `describe` text.
    pub text: AttrValue,
}

#[component]
pub fn DescribeTable(props: &DescribeTableProps) -> Html {
    html! {
        <section class="describe" aria-labelledby="describe-heading">
            <p class="eyebrow">{ "Under the hood" }</p>
            <h2 id="describe-heading">{ "The same state, as an operator sees it" }</h2>
            <p class="section-lead">
                { "Live output of Kafka's own tool for the simulation above. CURRENT-OFFSET is the \
                   offset the group last committed, not where the consumer is reading: it moves in \
                   steps, lags behind the cursor while a batch is in progress, and shows '-' until \
                   the first commit." }
            </p>
            <pre class="terminal" tabindex="0" aria-label="Output of kafka-consumer-groups --describe --group demo">
                <span class="prompt">{ format!("$ {COMMAND}\n") }</span>
                { props.text.clone() }
            </pre>
        </section>
    }
}
