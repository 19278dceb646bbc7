//! The selected record and what restarting the group from it would do
//! (the engine's restart preview), with the button that does it.

use crate::state::{Action, Selection};
use offsetlab_engine::{Input, ResetSpec};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PreviewProps {
    pub selection: Rc<Selection>,
    pub restart_pending: bool,
    pub on_action: Callback<Action>,
    pub on_close: Callback<()>,
}

#[component]
pub fn Preview(props: &PreviewProps) -> Html {
    let s = &props.selection;
    let (partition, offset) = (s.partition, s.offset);
    let r = &s.record;
    let key = if r.keyed { format!("user-{}", r.subject) } else { format!("user-{} (no key)", r.subject) };
    let mut title = format!(
        "P{partition} offset {offset} · {key} · handled {} · produced at tick {}",
        plural(u64::from(r.handled), "time", "times"),
        r.produced_tick
    );
    if r.lost {
        title.push_str(" · never processed");
    }
    let preview = &s.preview;
    let effect = match (preview.replay, preview.skip) {
        (0, 0) => "nothing replays and nothing is skipped".to_owned(),
        (replay, 0) => format!("{} delivered again", records_will_be(replay)),
        (0, skip) => format!("{} skipped (never processed)", records_will_be(skip)),
        (replay, skip) => format!(
            "{} delivered again; {} skipped (never processed)",
            records_will_be(replay),
            records_will_be(skip)
        ),
    };
    let pending = props.restart_pending;
    let restart = {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| {
            // aria-disabled rather than disabled: the button keeps the focus.
            if pending {
                return;
            }
            on_action.emit(Action::Apply(Input::RestartFrom {
                group: None,
                reset: ResetSpec::Offset { partition: Some(partition), offset },
            }));
        })
    };
    let close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <div class="restart-preview" data-field="restart-preview" role="region"
            aria-label={format!("Record P{partition} offset {offset}")}>
            <p class="preview-record" data-field="selected-record">{ title }</p>
            <p class="preview-effect" data-field="preview-effect">
                { format!("Restart the group from here: {effect}.") }
            </p>
            <p class="preview-note">
                { format!(
                    "This stops every consumer, waits for the group to empty (Kafka refuses a reset while \
                     members are active), sets P{partition}'s committed offset to {} and starts the consumers again.",
                    preview.offset
                ) }
            </p>
            <div class="preview-actions">
                <button type="button" class="primary" data-action="restart-here" onclick={restart}
                    aria-disabled={pending.then_some("true")}>
                    { "Restart from here" }
                </button>
                <button type="button" data-action="close-preview" onclick={close}
                    aria-label="Close the record details (Escape)">
                    { "Close" }
                </button>
            </div>
        </div>
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 { format!("{n} {one}") } else { format!("{n} {many}") }
}

fn records_will_be(n: u64) -> String {
    if n == 1 { "1 record will be".to_owned() } else { format!("{n} records will be") }
}
