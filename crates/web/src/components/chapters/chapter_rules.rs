//! The rules a chapter states, each with a "Show me" that loads the scenario
//! showing it. Static: it renders once.

use super::{CHAPTERS, RULES};
use crate::state::Action;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ChapterRulesProps {
    /// Index into [`CHAPTERS`].
    pub index: usize,
    pub on_action: Callback<Action>,
}

#[component]
pub fn ChapterRules(props: &ChapterRulesProps) -> Html {
    let Some(chapter) = CHAPTERS.get(props.index) else { return html! {} };
    html! {
        <>
            { for chapter.rules.iter().map(|&r| {
                let rule = &RULES[r];
                let n = r + 1;
                let name = rule.scenario;
                let onclick = props.on_action.reform(move |_: MouseEvent| {
                    crate::components::show_simulation();
                    Action::Load(crate::components::builtin(name).expect("a built-in scenario"))
                });
                html! {
                    <aside class="rule" key={n} data-rule={n.to_string()}>
                        <h3><span class="rule-number">{ format!("Rule {n} · ") }</span>{ rule.title }</h3>
                        <p>
                            { rule.text }{ " " }
                            <button type="button" class="inline" data-action="rule-show-me" {onclick}
                                aria-label={format!("Show me rule {n}: load the {name} scenario")}>
                                { "Show me" }
                            </button>
                        </p>
                    </aside>
                }
            }) }
        </>
    }
}
