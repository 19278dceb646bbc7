//! The four rules the simulation follows, each with a scenario that shows it.

use crate::state::Action;
use std::rc::Rc;
use yew::prelude::*;

/// The rules do not change with the simulation: only where to send actions.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct RulesProps {
    pub on_action: Callback<Action>,
}

struct Rule {
    title: &'static str,
    text: &'static str,
    /// The built-in scenario "Show me" loads.
    scenario: &'static str,
}

const RULES: [Rule; 4] = [
    Rule {
        title: "A partition is an append-only log",
        text: "A producer only ever adds records at the end, and each one gets the next offset. \
               Reading removes nothing: old records leave only when retention deletes them. \
               That is why two groups can read the same records, each at its own pace.",
        scenario: "two-groups",
    },
    Rule {
        title: "Order exists within a partition",
        text: "Offsets order the records of one partition; nothing orders records across \
               partitions. Records with the same key go to the same partition (as long as the \
               partition count stays the same), so if one customer's events must stay in \
               sequence, key them by the customer.",
        scenario: "no-keys-reorder",
    },
    Rule {
        title: "One owner per partition, per group",
        text: "Within a group, each partition belongs to exactly one consumer at a time, which \
               keeps its order intact while it is processed. A group with more consumers than \
               partitions therefore gains idle spares, not throughput.",
        scenario: "spare-consumers",
    },
    Rule {
        title: "Progress is a number the consumer commits",
        text: "The broker does not mark records as done. For each partition the group commits \
               one offset, the next record to read, and lag is the distance from it to the log \
               end. Whether a crash repeats records or skips them depends on when that number \
               is written.",
        scenario: "crash-commit-after",
    },
];

#[component]
pub fn Rules(props: &RulesProps) -> Html {
    html! {
        <section class="rules" id="rules" aria-labelledby="rules-heading">
            <p class="eyebrow">{ "The model" }</p>
            <h2 id="rules-heading">{ "Four rules behind everything above" }</h2>
            <ol class="rule-list">
                { for RULES.iter().enumerate().map(|(i, rule)| {
                    let n = i + 1;
                    let name = rule.scenario;
                    let onclick = props.on_action.reform(move |_: MouseEvent| {
                        Action::Load(Rc::new(offsetlab_engine::builtin(name).expect("a built-in scenario")))
                    });
                    html! {
                        <li class="rule panel" key={n}>
                            <p class="rule-number">{ format!("Rule {n}") }</p>
                            <h3>{ rule.title }</h3>
                            <p>{ rule.text }</p>
                            <p class="rule-foot">
                                <button type="button" data-action="rule-show-me" {onclick}
                                    aria-label={format!("Show me rule {n}: load the {name} scenario")}>
                                    { "Show me" }
                                </button>
                                <span class="rule-scenario">{ "loads " }<code>{ name }</code></span>
                            </p>
                        </li>
                    }
                }) }
            </ol>
        </section>
    }
}
