//! `kafka-topics --describe` for the running cluster, live in its chapter, or
//! what to load to see it.

use crate::components::shown::use_shown;
use crate::state::Run;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct TopicDescribeProps {
    /// The run it describes (computed from while the output is on screen).
    pub run: Run,
}

#[component]
pub fn TopicDescribe(props: &TopicDescribeProps) -> Html {
    let node = use_node_ref();
    let text = use_shown(node.clone(), &props.run, (), Run::topic_describe);
    match text.as_ref() {
        Some(text) => html! {
            // The command is the terminal's first line, as the group's describe table has it: it
            // scrolls with the output instead of wrapping on a phone.
            <figure class="describe describe-topic" ref={node}>
                <pre class="terminal" tabindex="0" aria-label="kafka-topics --describe output">
                    <span class="prompt">{ "$ kafka-topics --bootstrap-server localhost:9092 --describe --topic orders\n" }</span>
                    <span data-field="describe-topic">{ text.to_string() }</span>
                </pre>
            </figure>
        },
        None => html! {
            <p class="describe-topic-none" ref={node}>
                { "Load one of this chapter's experiments to see kafka-topics --describe here." }
            </p>
        },
    }
}
