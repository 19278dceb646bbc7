//! The dead-letter topic `orders.DLT` and the retry topics `orders-retry-N`
//! (issue 40): a tape per partition that holds letters, under the orders
//! tapes, drawn only once a letter is written (a run that never fails a
//! record shows nothing of them). Each letter is a button that shows its
//! source record on the orders tape (its `kafka_dlt-original-partition` and
//! `-offset` headers); the newest letters' headers are a table under them.

use crate::components::shown::use_shown;
use crate::state::{Action, LetterTape, Run};
use offsetlab_engine::{LetterRecordView, LetterTopicId, LetterTopicView};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Letters whose headers the table under the tapes spells out, newest first.
pub const HEADERS_SHOWN_MAX: usize = 4;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct LetterTapesProps {
    pub run: Run,
    /// The view's letter topics that hold a letter (the caller leaves out the empty ones).
    pub topics: Vec<LetterTopicView>,
    pub on_action: Callback<Action>,
}

/// "P1@3": a record's partition and offset on orders.
#[must_use]
pub fn source_text(l: &LetterRecordView) -> String {
    format!("P{}@{}", l.letter.source_partition, l.letter.source_offset)
}

/// A letter's headers in words, as its button's name and title say them.
#[must_use]
pub fn letter_words(name: &str, l: &LetterRecordView) -> String {
    let attempts = match l.letter.attempts {
        1 => "1 attempt".to_string(),
        n => format!("{n} attempts"),
    };
    let due = match l.letter.due_tick {
        due if due > l.letter.written_tick => format!(", retried at tick {due}"),
        _ => String::new(),
    };
    format!(
        "{name} P{} offset {}: the record from orders P{} offset {}, after {attempts}; cause: {}; written at tick {}{due}",
        l.partition,
        l.offset,
        l.letter.source_partition,
        l.letter.source_offset,
        l.letter.cause,
        l.letter.written_tick,
    )
}

/// What a topic is for, after its name.
fn topic_role(topic: LetterTopicId) -> &'static str {
    match topic {
        LetterTopicId::DeadLetter => {
            "dead-letter topic: records the application gave up on, kept for a fix and a replay"
        }
        LetterTopicId::Retry { .. } => {
            "retry topic: failed records wait here for a later attempt, while orders flows on"
        }
    }
}

#[component]
pub fn LetterTapes(props: &LetterTapesProps) -> Html {
    let node = use_node_ref();
    let tapes =
        use_shown(node.clone(), &props.run, props.topics.clone(), |run| run.letter_tapes(&props.topics));
    let show_source = |l: &LetterRecordView| {
        let on_action = props.on_action.clone();
        let (partition, offset) = (l.letter.source_partition, l.letter.source_offset);
        Callback::from(move |_: MouseEvent| {
            on_action.emit(Action::ShowSource { partition, offset });
            focus_source_later(partition, offset);
        })
    };
    let topics = props.topics.iter().map(|t| {
        let mine: Vec<&LetterTape> = tapes.iter().filter(|tape| tape.topic == t.topic).collect();
        let total: u64 = t.partitions.iter().map(|p| p.log_end - p.log_start).sum();
        let slug = match t.topic {
            LetterTopicId::DeadLetter => "dlt".to_string(),
            LetterTopicId::Retry { level } => format!("retry-{level}"),
        };
        // The newest letters of the topic, whichever partition, for the headers table.
        let mut newest: Vec<&LetterRecordView> = mine.iter().flat_map(|tape| tape.records.iter()).collect();
        newest.sort_by_key(|l| std::cmp::Reverse((l.letter.written_tick, l.partition, l.offset)));
        newest.truncate(HEADERS_SHOWN_MAX);
        let retry = matches!(t.topic, LetterTopicId::Retry { .. });
        html! {
            <div key={slug.clone()} class={format!("letter-topic letter-{slug}")} data-letter-topic={t.name.clone()}
                role="group" aria-label={format!("Topic {}", t.name)}>
                <h3 class="letter-title">
                    <span class="topic-name">{ t.name.clone() }</span>
                    <span class="letter-count" data-field="letter-count">
                        { format!(" · {total} {}", if total == 1 { "record" } else { "records" }) }
                    </span>
                    <span class="topic-sub">{ format!(" · {}", topic_role(t.topic)) }</span>
                </h3>
                { for mine.iter().map(|tape| html! {
                    <div key={tape.partition} class="letter-tape" data-letter-partition={tape.partition.to_string()}>
                        <span class="tape-label">{ format!("P{}", tape.partition) }</span>
                        <ol class="letter-cells" aria-label={format!("{} P{}: {} letters", t.name, tape.partition, tape.records.len())}>
                            if tape.hidden_before > 0 {
                                <li class="far-more">{ format!("+{} older", tape.hidden_before) }</li>
                            }
                            { for tape.records.iter().map(|l| {
                                let words = letter_words(&t.name, l);
                                // The accessible name starts with what the button shows.
                                let shown = format!("{} ← {} ×{}", l.offset, source_text(l), l.letter.attempts);
                                html! {
                                    <li key={l.offset}>
                                        <button type="button" class="letter-cell" data-letter-offset={l.offset.to_string()}
                                            data-source={source_text(l)}
                                            aria-label={format!("{shown}: {words}. Show the source record")} title={words}
                                            onclick={show_source(l)}>
                                            <span class="letter-offset">{ l.offset }</span>
                                            { " " }
                                            <span class="letter-source">{ format!("← {}", source_text(l)) }</span>
                                            { " " }
                                            <span class="letter-attempts">{ format!("×{}", l.letter.attempts) }</span>
                                        </button>
                                    </li>
                                }
                            }) }
                        </ol>
                        <span class="letter-end">{ format!("end {}", tape.log_end) }</span>
                    </div>
                }) }
                <table class="letter-headers" data-field="letter-headers">
                    <caption>{ if newest.len() > 1 { "The newest letters' headers" } else { "The letter's headers" } }</caption>
                    <thead>
                        <tr>
                            <th scope="col">{ "Letter" }</th>
                            <th scope="col" title="kafka_dlt-original-partition and -offset">{ "Source" }</th>
                            <th scope="col" title="retry_topic-attempts">{ "Attempts" }</th>
                            <th scope="col" title="kafka_dlt-exception-message">{ "Cause" }</th>
                            if retry {
                                <th scope="col" title="retry_topic-backoff-timestamp">{ "Retried at" }</th>
                            }
                        </tr>
                    </thead>
                    <tbody>
                        { for newest.iter().map(|l| html! {
                            <tr key={format!("{}-{}", l.partition, l.offset)}>
                                <th scope="row">{ format!("P{}, offset {}", l.partition, l.offset) }</th>
                                <td>
                                    <button type="button" class="letter-source-link" data-source={source_text(l)}
                                        aria-label={format!("Show the source record, orders {}", source_text(l))}
                                        onclick={show_source(l)}>
                                        { format!("orders {}", source_text(l)) }
                                    </button>
                                </td>
                                <td data-field="letter-attempts">{ l.letter.attempts }</td>
                                <td class="letter-cause">{ l.letter.cause }</td>
                                if retry {
                                    <td>{ format!("tick {}", l.letter.due_tick) }</td>
                                }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        }
    });
    html! {
        <div class="letter-topics" data-field="letter-topics" ref={node}>
            { for topics }
        </div>
    }
}

/// Once the page has drawn the source's tape at it, the focus goes to the
/// source cell (keyboard users land where they asked to go) and it scrolls into view.
pub(super) fn focus_source_later(partition: u32, offset: u64) {
    let Some(window) = web_sys::window() else { return };
    let focus = wasm_bindgen::closure::Closure::once_into_js(move || {
        let cell = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| {
                d.query_selector(&format!(
                    ".topic .tape[data-partition=\"{partition}\"] [data-offset=\"{offset}\"]"
                ))
                .ok()
                .flatten()
            })
            .and_then(|c| c.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(cell) = cell {
            let _ = cell.focus();
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
            cell.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
    // A little after the render the action causes (Yew renders on its own schedule).
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(focus.unchecked_ref(), 50);
}
