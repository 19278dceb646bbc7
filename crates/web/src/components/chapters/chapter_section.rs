//! One chapter: its text, rules, prediction, experiments and live output.

#[cfg(feature = "cluster")]
use super::TopicDescribe;
use super::{CHAPTERS, ChapterExperiments, ChapterRules, ChapterText, Live, Part, Prediction};
use crate::components::PollLoop;
use crate::state::{Action, AppState};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ChapterSectionProps {
    /// Index into [`CHAPTERS`].
    pub index: usize,
    /// The running scenario's name (its experiment card says so).
    pub running: AttrValue,
    /// The reader's answer to the chapter's question, if it has one.
    #[prop_or_default]
    pub answer: Option<usize>,
    /// The state, for a chapter whose live output follows the run (the poll
    /// loop, the topic's describe); `None` for the others, which then render
    /// again only when what they draw changes, not at every tick.
    #[prop_or_default]
    pub state: Option<AppState>,
    pub on_action: Callback<Action>,
}

#[component]
pub fn ChapterSection(props: &ChapterSectionProps) -> Html {
    let i = props.index;
    let Some(chapter) = CHAPTERS.get(i) else { return html! {} };
    let on_action = &props.on_action;
    let split = chapter.more_under_text && !chapter.more.is_empty();
    let live = chapter.live.map(|live| match (live, props.state.as_ref()) {
        // The table itself sits with the simulation, where its numbers move.
        (Live::Describe, _) => html! {
            <p class="describe-pointer">
                { "The operator's view of the same group, " }<code>{ "kafka-consumer-groups --describe" }</code>
                { ", is live " }<a href="#describe">{ "under the simulation" }</a>
                { ": CURRENT-OFFSET is the group's last commit, LAG the records after it." }
            </p>
        },
        (Live::PollLoop, Some(state)) => html! { <PollLoop state={state.clone()} on_action={on_action.clone()} /> },
        #[cfg(feature = "cluster")]
        (Live::DescribeTopic, Some(state)) => html! { <TopicDescribe run={state.run.clone()} /> },
        _ => html! {},
    });
    html! {
        <section class="chapter" id={chapter.id} aria-labelledby={format!("{}-heading", chapter.id)}>
            <div class="chapter-story">
                <ChapterText index={i} />
                if !chapter.rules_beside {
                    <ChapterRules index={i} on_action={on_action.clone()} />
                }
                { for live }
                // A chapter without live output has room under its text for the
                // experiments it does not feature: the two columns end level.
                if split {
                    <ChapterExperiments index={i} running={props.running.clone()}
                        part={Part::More} on_action={on_action.clone()} />
                }
            </div>
            <div class="chapter-side">
            if chapter.rules_beside {
                <ChapterRules index={i} on_action={on_action.clone()} />
            }
            // Predict first, then try it.
            if let Some(q) = chapter.question {
                <Prediction question={q} answer={props.answer} on_action={on_action.clone()} />
            }
            <ChapterExperiments index={i} running={props.running.clone()}
                part={if split { Part::Featured } else { Part::All }}
                on_action={on_action.clone()} />
            </div>
        </section>
    }
}
