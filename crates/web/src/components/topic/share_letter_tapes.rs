//! A share group's dead-letter topic (KIP-1191, `errors.deadletterqueue.topic.name`,
//! `dlq.orders` in the share-dlq built-in): a tape per partition that holds
//! letters, under the orders tapes beside `orders.DLT`'s, drawn only once the
//! broker wrote a letter. Each letter is a button that shows its source record
//! on the orders tape (its `__dlq.errors.partition` and `__dlq.errors.offset`
//! headers); the newest letters' headers are a table under them.

use super::letter_cell::{LetterCell, Source, SourceLink};
use super::letter_tapes::HEADERS_SHOWN_MAX;
use crate::components::shown::use_shown;
use crate::state::{Action, Run, ShareLetterTape};
use offsetlab_engine::{ShareDeadLetterTopicView, ShareDeadLetterView, subject_key};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ShareLetterTapesProps {
    pub run: Run,
    /// The view's share dead-letter topics that hold a letter (the caller leaves out the empty ones).
    pub topics: Vec<ShareDeadLetterTopicView>,
    pub on_action: Callback<Action>,
}

/// The letter's source on orders, as its `__dlq.errors.partition` and `__dlq.errors.offset` headers name it.
fn source(l: &ShareDeadLetterView) -> Source {
    Source { partition: l.letter.source_partition, offset: l.letter.source_offset }
}

/// The letter's key and value: copied (copy.record.enable) or null.
#[must_use]
fn copied_words(l: &ShareDeadLetterView) -> String {
    match l.letter.copied {
        Some(c) if c.keyed => format!("key {} and value #{} copied", subject_key(c.subject), c.record_id),
        Some(c) => format!("value #{} copied, key null", c.record_id),
        None => "key and value not copied".to_string(),
    }
}

/// A letter's headers in words, as its button's name and title say them.
#[must_use]
fn share_letter_words(topic: &ShareDeadLetterTopicView, l: &ShareDeadLetterView) -> String {
    let deliveries = match l.letter.delivery_count {
        1 => "1 delivery".to_string(),
        n => format!("{n} deliveries"),
    };
    format!(
        "{} P{} offset {}: the record from orders P{} offset {} (__dlq.errors.partition {}, __dlq.errors.offset {}) \
         that share group {} archived after {deliveries} (__dlq.errors.delivery.count {}); \
         __dlq.errors.message \"{}\"; {}; written by the broker at tick {}",
        topic.name,
        l.partition,
        l.offset,
        l.letter.source_partition,
        l.letter.source_offset,
        l.letter.source_partition,
        l.letter.source_offset,
        topic.group_name,
        l.letter.delivery_count,
        l.letter.cause.message(),
        copied_words(l),
        l.letter.written_tick,
    )
}

#[component]
pub fn ShareLetterTapes(props: &ShareLetterTapesProps) -> Html {
    let node = use_node_ref();
    let tapes = use_shown(node.clone(), &props.run, props.topics.clone(), |run| {
        run.share_letter_tapes(&props.topics)
    });
    let topics = props.topics.iter().map(|t| {
        let mine: Vec<&ShareLetterTape> = tapes.iter().filter(|tape| tape.group == t.group).collect();
        let total: u64 = t.partitions.iter().map(|p| p.log_end - p.log_start).sum();
        // The newest letters of the topic, whichever partition, for the headers table.
        let mut newest: Vec<&ShareDeadLetterView> = mine.iter().flat_map(|tape| tape.records.iter()).collect();
        newest.sort_by_key(|l| std::cmp::Reverse((l.letter.written_tick, l.partition, l.offset)));
        newest.truncate(HEADERS_SHOWN_MAX);
        html! {
            <div key={t.group} class="letter-topic letter-share-dlq" data-letter-topic={t.name.clone()}
                data-group={t.group_name.clone()} role="group" aria-label={format!("Topic {}", t.name)}>
                <h3 class="letter-title">
                    <span class="topic-name">{ t.name.clone() }</span>
                    <span class="letter-count" data-field="letter-count">
                        { format!(" · {total} {}", if total == 1 { "record" } else { "records" }) }
                    </span>
                    <span class="topic-sub">
                        { format!(" · share group {}'s dead-letter queue: the broker writes each record it archives here", t.group_name) }
                    </span>
                </h3>
                { for mine.iter().map(|tape| html! {
                    <div key={tape.partition} class="letter-tape" data-letter-partition={tape.partition.to_string()}>
                        <span class="tape-label">{ format!("P{}", tape.partition) }</span>
                        <ol class="letter-cells" aria-label={format!("{} P{}: {} letters", t.name, tape.partition, tape.records.len())}>
                            if tape.hidden_before > 0 {
                                <li class="far-more">{ format!("+{} older", tape.hidden_before) }</li>
                            }
                            { for tape.records.iter().map(|l| html! {
                                <LetterCell key={l.offset} offset={l.offset} source={source(l)}
                                    count={u32::from(l.letter.delivery_count)}
                                    words={share_letter_words(t, l)} on_action={props.on_action.clone()} />
                            }) }
                        </ol>
                        <span class="letter-end">{ format!("end {}", tape.log_end) }</span>
                    </div>
                }) }
                // Five columns are wider than a phone: the table scrolls in its own box.
                <div class="letter-headers-box" role="region" tabindex="0"
                    aria-label={format!("{}'s headers, scrollable", t.name)}>
                <table class="letter-headers" data-field="letter-headers">
                    <caption>{ if newest.len() > 1 { "The newest letters' headers" } else { "The letter's headers" } }</caption>
                    <thead>
                        <tr>
                            <th scope="col">{ "Letter" }</th>
                            <th scope="col" title="__dlq.errors.topic, __dlq.errors.partition and __dlq.errors.offset">{ "Source" }</th>
                            <th scope="col" title="__dlq.errors.delivery.count">{ "Delivery count" }</th>
                            <th scope="col" title="__dlq.errors.message">{ "Message" }</th>
                            <th scope="col" title="errors.deadletterqueue.copy.record.enable">{ "Key and value" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for newest.iter().map(|l| html! {
                            <tr key={format!("{}-{}", l.partition, l.offset)}>
                                <th scope="row">{ format!("P{}, offset {}", l.partition, l.offset) }</th>
                                <td><SourceLink source={source(l)} on_action={props.on_action.clone()} /></td>
                                <td data-field="letter-delivery-count">{ l.letter.delivery_count }</td>
                                <td class="letter-cause">{ l.letter.cause.message() }</td>
                                <td data-field="letter-copied">{ copied_words(l) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                </div>
            </div>
        }
    });
    html! {
        <div class="letter-topics" data-field="share-letter-topics" ref={node}>
            { for topics }
        </div>
    }
}
