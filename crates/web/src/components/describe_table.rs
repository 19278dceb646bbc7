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
            <h2 id="describe-heading">{ "What Kafka's CLI shows" }</h2>
            <pre class="terminal" tabindex="0" aria-label="Output of kafka-consumer-groups --describe --group demo">
                <span class="prompt">{ format!("$ {COMMAND}\n") }</span>
                { props.text.clone() }
            </pre>
        </section>
    }
}
