//! Every experiment, one line each, grouped by chapter and filterable: a line
//! jumps to the experiment in its chapter and loads it there.

use super::{CHAPTERS, summary, title};
use crate::components::builtin;
use crate::state::Action;
use offsetlab_engine::Scenario;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ExperimentIndexProps {
    /// The filter as typed.
    pub filter: AttrValue,
    pub running: AttrValue,
    pub on_action: Callback<Action>,
}

/// The filter's longest accepted input: longer text is cut (it cannot match more).
pub const FILTER_CHARS_MAX: usize = 64;

/// Whether an experiment matches: every word of the filter appears, in any
/// case, in its title, name, summary or chapter title.
#[must_use]
pub fn matches(filter: &str, haystack: &str) -> bool {
    let haystack = haystack.to_ascii_lowercase();
    filter.split_whitespace().all(|word| haystack.contains(&word.to_ascii_lowercase()))
}

fn haystack(scenario: &Scenario, chapter: &str) -> String {
    format!("{} {} {} {chapter}", title(&scenario.name).unwrap_or_default(), scenario.name, summary(scenario))
}

#[component]
pub fn ExperimentIndex(props: &ExperimentIndexProps) -> Html {
    let filter = props.filter.as_str();
    let on_input = props.on_action.reform(|e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        let mut text = input.value();
        if let Some((cut, _)) = text.char_indices().nth(FILTER_CHARS_MAX) {
            text.truncate(cut);
        }
        Action::FilterIndex(Rc::from(text))
    });
    let mut shown = 0_usize;
    let mut total = 0_usize;
    let groups: Vec<Html> = CHAPTERS
        .iter()
        .map(|chapter| {
            let lines: Vec<Html> = chapter
                .featured
                .iter()
                .chain(chapter.more)
                .filter_map(|name| builtin(name))
                .filter(|scenario| {
                    total += 1;
                    matches(filter, &haystack(scenario, chapter.title))
                })
                .map(|scenario| {
                    shown += 1;
                    let name = scenario.name.clone();
                    let running = name == props.running.as_str();
                    let onclick = super::chapter_experiments::load_and_show(&props.on_action, &scenario);
                    html! {
                        <li key={name.clone()} title={name.clone()} aria-current={running.then_some("true")}>
                            <a href={format!("#x-{name}")} data-jump={name.clone()} {onclick}>
                                { title(&name).map_or_else(|| name.clone(), str::to_string) }
                            </a>
                            { " " }<code>{ &name }</code>
                        </li>
                    }
                })
                .collect();
            if lines.is_empty() {
                return html! {};
            }
            html! {
                <section class="index-group" key={chapter.id} data-chapter={chapter.id}>
                    <h3><a href={format!("#{}", chapter.id)}>{ chapter.title }</a></h3>
                    <ul>{ for lines }</ul>
                </section>
            }
        })
        .collect();
    html! {
        <section class="experiment-index" id="experiments" aria-labelledby="experiments-heading">
            <h2 id="experiments-heading">{ "All experiments" }</h2>
            <div class="index-bar">
            <p class="section-lead">
                { "Each starts at tick 0 with its own seed: the same run every time. A line opens it \
                   in its chapter." }
            </p>
            <label class="index-filter">
                <span>{ "Filter" }</span>
                <input type="search" data-field="index-filter" value={props.filter.clone()}
                    placeholder="crash, lag, keys …" oninput={on_input}
                    maxlength={FILTER_CHARS_MAX.to_string()} />
            </label>
            <p class="index-count" data-field="index-count" aria-live="polite">
                { if shown == total { format!("{total} experiments") } else { format!("{shown} of {total} experiments") } }
            </p>
            </div>
            <div class="index-groups">{ for groups }</div>
            if shown == 0 {
                <p class="index-empty">{ format!("No experiment matches “{filter}”.") }</p>
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::matches;

    #[test]
    fn every_word_must_appear_in_any_case() {
        assert!(matches("", "anything"));
        assert!(matches("CRASH commit", "Crash after handling, before committing"));
        assert!(!matches("crash lag", "Crash after handling, before committing"));
        assert!(matches("  ", "x"));
    }
}
