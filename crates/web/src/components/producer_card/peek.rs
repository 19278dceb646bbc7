//! booblik's `partitionFor(null)`: asking where the next keyless record goes
//! moves the round-robin counter; a fixed peek only looks.

use crate::components::class_list;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{Input, PeekView, ProducerView};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PeekProps {
    pub producer: ProducerView,
    pub on_action: Callback<Action>,
}

/// What the last peek answered, in words.
#[must_use]
pub fn peek_answer(peek: &PeekView) -> String {
    if peek.advanced {
        format!("partitionFor(null) said P{} and moved the counter (tick {})", peek.partition, peek.tick)
    } else {
        format!("fixed peek said P{} (tick {})", peek.partition, peek.tick)
    }
}

#[component]
pub fn Peek(props: &PeekProps) -> Html {
    let producer = &props.producer;
    let peek = |advancing: bool| send(&props.on_action, Action::Apply(Input::Peek { advancing }));
    html! {
        <fieldset class="producer-peek" data-field="peek">
            <legend><code>{ "partitionFor(null)" }</code></legend>
            <div class="producer-row">
                <button type="button" data-action="peek-advancing" onclick={peek(true)}
                    title="The small log system's partitionFor(null): answers, and advances the round-robin counter">
                    { "partitionFor(null)" }
                </button>
                <button type="button" data-action="peek-fixed" onclick={peek(false)}
                    title="A peek that only looks: the counter stays">
                    { "Peek (fixed)" }
                </button>
            </div>
            <p class="producer-status">
                { "next keyless record → " }
                <span data-field="next-keyless">{ format!("P{}", producer.next_keyless_partition) }</span>
            </p>
            if let Some(last) = producer.last_peek.as_ref() {
                <p class={class_list(&[Some("peek-answer"), last.advanced.then_some("is-advancing")])}
                    data-field="last-peek">
                    { peek_answer(last) }
                </p>
            }
            <p class="producer-help">
                { if producer.use_keys {
                    "Only keyless records use the counter: turn Use keys off to see a peek make the next send skip a partition."
                } else {
                    "Keyless records go round the partitions: asking partitionFor(null) first makes the next send skip one."
                } }
            </p>
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_answer_says_whether_the_counter_moved() {
        let moved = PeekView { tick: 3, partition: 2, advanced: true };
        assert_eq!(peek_answer(&moved), "partitionFor(null) said P2 and moved the counter (tick 3)");
        let fixed = PeekView { tick: 4, partition: 1, advanced: false };
        assert_eq!(peek_answer(&fixed), "fixed peek said P1 (tick 4)");
    }
}
