//! A prediction the reader makes before the reveal: one of the quiz's two
//! questions, asked in the chapter it belongs to.

use crate::components::send;
use crate::components::show_simulation;
use crate::state::Action;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PredictionProps {
    /// Index into [`QUESTIONS`].
    pub question: usize,
    /// The choice made, if any.
    pub answer: Option<usize>,
    pub on_action: Callback<Action>,
}

struct Question {
    text: &'static str,
    choices: &'static [&'static str],
    correct: usize,
    /// Why the right answer is right.
    why: &'static str,
    /// The built-in scenario "Show me" loads.
    scenario: &'static str,
}

const QUESTIONS: [Question; 2] = [
    Question {
        text: "A topic has six partitions. A group has eight consumers. How many consumers can \
               actively consume at the same time?",
        choices: &["8", "6", "4", "It depends on the traffic"],
        correct: 1,
        why: "Six. A partition has one owner per group, so six partitions keep at most six \
              consumers busy; the other two sit idle as spares until a member leaves.",
        scenario: "spare-consumers",
    },
    Question {
        text: "Records A1 and B1 land in different partitions, with A1 written first. In what \
               order will the group process them?",
        // The choices say what, never why: the reason is the reveal's.
        choices: &["A1 then B1", "B1 then A1", "Either order"],
        correct: 2,
        why: "Either order. Each partition has its own owner working at its own pace, and order \
              is only kept within a partition. If A1 and B1 must be handled in order, give them \
              the same key so they share a partition.",
        scenario: "no-keys-reorder",
    },
];

#[component]
pub fn Prediction(props: &PredictionProps) -> Html {
    let q = props.question;
    let Some(question) = QUESTIONS.get(q) else { return html! {} };
    let answer = props.answer;
    let prompt_id = format!("quiz-q{q}");
    let scenario = question.scenario;
    let show_me = props.on_action.reform(move |_: MouseEvent| {
        show_simulation();
        Action::Load(crate::components::builtin(scenario).expect("a built-in scenario"))
    });
    html! {
        <div class="question" data-question={q.to_string()}>
            <p class="eyebrow">{ "Predict first" }</p>
            <p class="question-text" id={prompt_id.clone()}>{ question.text }</p>
            <div class="choices" role="group" aria-labelledby={prompt_id}>
                { for question.choices.iter().enumerate().map(|(c, choice)| {
                    let chosen = answer == Some(c);
                    // Once answered, the right choice is shown as right, in words as well as colour.
                    let verdict = answer.map(|_| if c == question.correct { "right" } else if chosen { "wrong" } else { "other" });
                    let onclick = send(&props.on_action, Action::Answer { question: q, choice: c });
                    html! {
                        <button type="button" data-choice={c.to_string()} key={c} data-verdict={verdict}
                            aria-pressed={if chosen { "true" } else { "false" }} {onclick}>
                            { *choice }
                            if verdict == Some("right") {
                                <span class="choice-mark">{ " ✓ the right answer" }</span>
                            }
                        </button>
                    }
                }) }
            </div>
            <div class="feedback" data-field="feedback" aria-live="polite">
                if let Some(c) = answer {
                    if c == question.correct {
                        <p><strong class="verdict correct">{ "Correct. " }</strong>{ question.why }</p>
                    } else {
                        <p><strong class="verdict wrong">{ "Not quite. " }</strong>{ question.why }</p>
                    }
                }
            </div>
            if answer.is_some() {
                <button type="button" data-action="show-me" onclick={show_me}
                    aria-label={format!("Show me: load the {scenario} scenario")}>
                    { "Show me" }
                </button>
            }
        </div>
    }
}
