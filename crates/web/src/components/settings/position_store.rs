//! "Where the position lives": the group's committed offsets (Kafka) or each
//! consumer's own offset store (booblik), written atomically or in place.

use crate::components::SectionProps;
use crate::components::class_list;
use crate::state::Action;
use offsetlab_engine::{CheckpointWrites, Input, PositionModel};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Checkpoint write times the select offers, in ticks.
pub const WRITE_TICKS_CHOICES: std::ops::RangeInclusive<u64> = 0..=3;
pub const WRITE_TICKS_DEFAULT: u64 = 1;

/// The radio's value for a model: `group`, `atomic` or `in-place`.
#[must_use]
pub fn position_value(position: PositionModel) -> &'static str {
    match position {
        PositionModel::Group => "group",
        PositionModel::Consumer { writes: CheckpointWrites::Atomic, .. } => "atomic",
        PositionModel::Consumer { writes: CheckpointWrites::InPlace, .. } => "in-place",
    }
}

/// The model a radio stands for, with the write time chosen.
#[must_use]
pub fn position_model(value: &str, write_ticks: u64) -> Option<PositionModel> {
    Some(match value {
        "group" => PositionModel::Group,
        "atomic" => PositionModel::Consumer { writes: CheckpointWrites::Atomic, write_ticks },
        "in-place" => PositionModel::Consumer { writes: CheckpointWrites::InPlace, write_ticks },
        _ => return None,
    })
}

fn tick_label(n: u64) -> String {
    if n == 1 { "1 tick".into() } else { format!("{n} ticks") }
}

#[component]
pub fn PositionStore(props: &SectionProps) -> Html {
    let position = props.state.view.settings.position;
    // The write time picked while the group keeps the positions: used when a store is chosen.
    let picked_ticks = use_state(|| WRITE_TICKS_DEFAULT);
    let write_ticks = match position {
        PositionModel::Consumer { write_ticks, .. } => write_ticks,
        PositionModel::Group => *picked_ticks,
    };
    let in_store = matches!(position, PositionModel::Consumer { .. });
    let current = position_value(position);

    let radio = |value: &'static str, label: &'static str, help: &'static str| {
        let onchange = props.on_action.reform(move |_: Event| {
            let position = position_model(value, write_ticks).expect("the radios' values are known");
            Action::Apply(Input::PositionStore { group: None, position })
        });
        html! {
            <label class="radio">
                <input type="radio" name="position" {value} checked={current == value} {onchange} />
                <span>{ label }<small>{ help }</small></span>
            </label>
        }
    };
    let on_ticks = {
        let on_action = props.on_action.clone();
        let picked_ticks = picked_ticks.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let Ok(n) = select.value().parse::<u64>() else { return };
            picked_ticks.set(n);
            if let PositionModel::Consumer { writes, .. } = position {
                on_action.emit(Action::Apply(Input::PositionStore {
                    group: None,
                    position: PositionModel::Consumer { writes, write_ticks: n },
                }));
            }
        })
    };
    // A scenario may write slower than the list offers: show its time too.
    let choices: Vec<u64> = WRITE_TICKS_CHOICES
        .chain((!WRITE_TICKS_CHOICES.contains(&write_ticks)).then_some(write_ticks))
        .collect();

    html! {
        <fieldset class="setting position-store" data-field="position">
            <legend>{ "Where the position lives" }</legend>
            { radio("group", "The group (Kafka)",
                "the group's committed offsets, kept on the broker") }
            { radio("atomic", "Each consumer's file, atomic",
                "checkpointed after the batch: temp file, fsync, rename; a crash leaves the old or the new") }
            { radio("in-place", "Each consumer's file, in place",
                "a crash mid-write leaves a half-saved number (1234 → 12), and the consumer silently replays from there") }
            <label class={class_list(&[Some("setting-inline"), (!in_store).then_some("is-disabled")])}>
                <span>{ "A checkpoint write takes" }</span>
                <select data-field="write-ticks" onchange={on_ticks} disabled={!in_store}>
                    { for choices.into_iter().map(|n| html! {
                        <option key={n} value={n.to_string()} selected={n == write_ticks}>{ tick_label(n) }</option>
                    }) }
                </select>
            </label>
            <p class="setting-help">
                { "In a consumer's file, as in a small log system without consumer groups: each consumer \
                   checkpoints its position into its own file after handling the batch, and reads it back \
                   when it starts." }
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
    fn the_radios_name_the_three_models() {
        for value in ["group", "atomic", "in-place"] {
            let model = position_model(value, 2).expect("known");
            assert_eq!(position_value(model), value);
        }
        assert_eq!(
            position_model("in-place", 3),
            Some(PositionModel::Consumer { writes: CheckpointWrites::InPlace, write_ticks: 3 })
        );
        assert_eq!(position_model("elsewhere", 1), None);
    }
}
