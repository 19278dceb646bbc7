//! The dead-letter topic `orders.DLT` and the retry topics `orders-retry-N`
//! (issue 40): a tape per partition that holds letters, under the orders
//! tapes, drawn only once a letter is written (a run that never fails a
//! record shows nothing of them). Each letter is a button that shows its
//! source record on the orders tape (its `kafka_dlt-original-partition` and
//! `-offset` headers); the newest letters' headers are a table under them.

use super::letter_cell::{LetterCell, Source, SourceLink};
use crate::components::shown::use_shown;
use crate::state::{Action, LetterTape, Run};
use offsetlab_engine::{LetterRecordView, LetterTopicId, LetterTopicView};
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

/// The letter's source on orders, as its `kafka_dlt-original-*` headers name it.
fn source(l: &LetterRecordView) -> Source {
    Source { partition: l.letter.source_partition, offset: l.letter.source_offset }
}

/// A letter's headers in words, as its button's name and title say them.
#[must_use]
fn letter_words(name: &str, l: &LetterRecordView) -> String {
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
                            { for tape.records.iter().map(|l| html! {
                                <LetterCell key={l.offset} offset={l.offset} source={source(l)} count={l.letter.attempts}
                                    words={letter_words(&t.name, l)} on_action={props.on_action.clone()} />
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
                                <td><SourceLink source={source(l)} on_action={props.on_action.clone()} /></td>
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
