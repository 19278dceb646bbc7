//! The `kafka-consumer-groups --describe --group demo` output, as the terminal
//! shows it (`kafka-share-groups` for a share group), with the tool's three
//! views (offsets, `--members`, `--state`) and `--verbose` to choose from.

use offsetlab_engine::DescribeView;
use yew::prelude::*;

use crate::components::shown::use_shown;
use crate::state::{Action, Run};

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct DescribeTableProps {
    /// The run it describes (computed from while the table is on screen).
    pub run: Run,
    /// The group is a share group.
    pub share: bool,
    /// The view shown, and `--verbose`.
    pub view: (DescribeView, bool),
    pub on_action: Callback<Action>,
}

/// What the Copy button last achieved, for its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Copied {
    Not,
    Yes,
    Failed,
}

/// The views: their buttons' labels, their `data-view` names and their flags
/// on the command line.
const VIEWS: [(DescribeView, &str, &str, &str); 3] = [
    (DescribeView::Offsets, "Offsets", "offsets", ""),
    (DescribeView::Members, "Members", "members", " --members"),
    (DescribeView::State, "State", "state", " --state"),
];

#[component]
pub fn DescribeTable(props: &DescribeTableProps) -> Html {
    let copied = use_state(|| Copied::Not);
    let (view, verbose) = props.view;
    let node = use_node_ref();
    let text = use_shown(node.clone(), &props.run, props.view, |run| run.describe(view, verbose));
    let tool = if props.share { "kafka-share-groups" } else { "kafka-consumer-groups" };
    let flag = VIEWS.iter().find(|v| v.0 == view).map_or("", |v| v.3);
    let command = format!(
        "{tool} --bootstrap-server localhost:9092 --describe --group demo{flag}{}",
        if verbose { " --verbose" } else { "" }
    );
    let on_copy = {
        let copied = copied.clone();
        let text = format!("$ {command}\n{text}");
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
    let on_verbose = props.on_action.reform(move |_: Event| Action::Describe(view, !verbose));
    html! {
        <section class="describe panel" id="describe" aria-labelledby="describe-heading" ref={node}>
            <h2 id="describe-heading">{ "The same state, as an operator sees it" }</h2>
            <p class="section-lead">
                { "Kafka's own tool, live. CURRENT-OFFSET is the last commit, not where the consumer \
                   reads: it moves in steps and shows '-' until the first commit. Members and State \
                   show the group's " }
                <dfn>{ "epochs" }</dfn>
                { " (numbers the coordinator raises at each rebalance, so a stale member can be told \
                   apart); with --verbose, each member's target beside what it owns." }
            </p>
            <div class="describe-views" role="group" aria-label="Which view of the group">
                { for VIEWS.iter().map(|&(v, name, id, _)| {
                    let onclick = props.on_action.reform(move |_: MouseEvent| Action::Describe(v, verbose));
                    html! {
                        <button type="button" aria-pressed={(v == view).to_string()}
                            data-view={id} {onclick}>{ name }</button>
                    }
                }) }
                <label><input type="checkbox" checked={verbose} onchange={on_verbose} />{ " --verbose" }</label>
                <button type="button" class="copy" data-action="copy-describe" onclick={on_copy}
                    aria-label="Copy the command and its output">{ label }</button>
            </div>
            <pre class="terminal" tabindex="0" aria-label={format!("Output of {command}")}>
                <span class="prompt">{ format!("$ {command}\n") }</span>
                { text.to_string() }
            </pre>
        </section>
    }
}
