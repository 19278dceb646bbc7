//! The `kafka-consumer-groups --describe --group demo` output, as the terminal
//! shows it (`kafka-share-groups` for a share group).

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct DescribeTableProps {
    /// The engine's `describe` text.
    pub text: AttrValue,
    /// The group is a share group.
    pub share: bool,
}

/// What the Copy button last achieved, for its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Copied {
    Not,
    Yes,
    Failed,
}

#[component]
pub fn DescribeTable(props: &DescribeTableProps) -> Html {
    let copied = use_state(|| Copied::Not);
    let tool = if props.share { "kafka-share-groups" } else { "kafka-consumer-groups" };
    let command = format!("{tool} --bootstrap-server localhost:9092 --describe --group demo");
    let on_copy = {
        let copied = copied.clone();
        let text = format!("$ {command}\n{}", props.text);
        Callback::from(move |_: MouseEvent| {
            let copied = copied.clone();
            let Some(clipboard) = web_sys::window().map(|w| w.navigator().clipboard()) else {
                copied.set(Copied::Failed);
                return;
            };
            let promise = clipboard.write_text(&text);
            // The browser answers later (and may refuse without a user gesture or permission).
            wasm_bindgen_futures::spawn_local(async move {
                let done = wasm_bindgen_futures::JsFuture::from(promise).await;
                copied.set(if done.is_ok() { Copied::Yes } else { Copied::Failed });
            });
        })
    };
    let label = match *copied {
        Copied::Not => "Copy",
        Copied::Yes => "Copied",
        Copied::Failed => "Copy failed: select the text instead",
    };
    html! {
        <section class="describe" aria-labelledby="describe-heading">
            <h3 id="describe-heading">{ "The same state, as an operator sees it" }</h3>
            <p class="section-lead">
                { "Kafka's own tool, live. CURRENT-OFFSET is the last commit, not where the consumer \
                   reads: it moves in steps and shows '-' until the first commit." }
            </p>
            <button type="button" class="copy" data-action="copy-describe" onclick={on_copy}
                aria-label="Copy the command and its output">{ label }</button>
            <pre class="terminal" tabindex="0" aria-label={format!("Output of {command}")}>
                <span class="prompt">{ format!("$ {command}\n") }</span>
                { props.text.clone() }
            </pre>
        </section>
    }
}
