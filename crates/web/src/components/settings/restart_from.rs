//! "Restart from an offset": the operator's stop, reset, start in one button.

use crate::components::SectionProps;
use crate::components::class_list;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{Input, ResetSpec};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The reset the form describes (UI state until the button is pressed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestartMode {
    Earliest,
    Latest,
    Offset,
}

impl RestartMode {
    const ALL: [RestartMode; 3] = [RestartMode::Earliest, RestartMode::Latest, RestartMode::Offset];

    fn value(self) -> &'static str {
        match self {
            RestartMode::Earliest => "earliest",
            RestartMode::Latest => "latest",
            RestartMode::Offset => "offset",
        }
    }

    fn label(self) -> &'static str {
        match self {
            RestartMode::Earliest => "earliest",
            RestartMode::Latest => "latest",
            RestartMode::Offset => "an offset",
        }
    }

    fn parse(value: &str) -> Option<RestartMode> {
        RestartMode::ALL.into_iter().find(|m| m.value() == value)
    }
}

/// The engine's reset for the form's values.
#[must_use]
pub fn reset_spec(mode: RestartMode, partition: Option<u32>, offset: u64) -> ResetSpec {
    match mode {
        RestartMode::Earliest => ResetSpec::Earliest,
        RestartMode::Latest => ResetSpec::Latest,
        RestartMode::Offset => ResetSpec::Offset { partition, offset },
    }
}

/// What pressing the button will do, in words.
fn plan(mode: RestartMode, partition: Option<u32>, offset: u64) -> String {
    let target = match partition {
        Some(p) => format!("P{p}"),
        None => "every partition".to_string(),
    };
    match mode {
        RestartMode::Earliest => {
            "Every partition goes back to its log start: everything still retained is handled again.".into()
        }
        RestartMode::Latest => {
            "Every partition jumps to its log end: records not yet handled are skipped.".into()
        }
        RestartMode::Offset => format!("{target} goes to offset {offset} (clamped to the log)."),
    }
}

#[component]
pub fn RestartFrom(props: &SectionProps) -> Html {
    let view = &props.state.view;
    let mode = use_state(|| RestartMode::Earliest);
    let partition = use_state(|| None::<u32>);
    let offset = use_state(|| 0_u64);
    // A partition chosen in a scenario with more partitions than this one reads as "all".
    let chosen_partition = partition.filter(|p| (*p as usize) < view.partitions.len());

    let on_mode = {
        let mode = mode.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(m) = RestartMode::parse(&select.value()) {
                mode.set(m);
            }
        })
    };
    let on_partition = {
        let partition = partition.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            partition.set(select.value().parse::<u32>().ok());
        })
    };
    let on_offset = {
        let offset = offset.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(n) = input.value().trim().parse::<u64>() {
                offset.set(n);
            }
        })
    };
    let on_restart = {
        let reset = reset_spec(*mode, chosen_partition, *offset);
        send(&props.on_action, Action::Apply(Input::RestartFrom { group: None, reset }))
    };
    let offset_mode = *mode == RestartMode::Offset;

    html! {
        <fieldset class="setting restart-from">
            <legend>{ "Restart from an offset" }</legend>
            <div class="restart-fields">
                <label class="setting-inline">
                    <span>{ "Reset to" }</span>
                    <select data-field="restart-mode" onchange={on_mode}>
                        { for RestartMode::ALL.into_iter().map(|m| html! {
                            <option key={m.value()} value={m.value()} selected={m == *mode}>{ m.label() }</option>
                        }) }
                    </select>
                </label>
                <label class={class_list(&[Some("setting-inline"), (!offset_mode).then_some("is-disabled")])}>
                    <span>{ "Partition" }</span>
                    <select data-field="restart-partition" onchange={on_partition} disabled={!offset_mode}>
                        <option value="" selected={chosen_partition.is_none()}>{ "all partitions" }</option>
                        { for view.partitions.iter().map(|p| html! {
                            <option key={p.partition} value={p.partition.to_string()}
                                selected={chosen_partition == Some(p.partition)}>
                                { format!("P{}", p.partition) }
                            </option>
                        }) }
                    </select>
                </label>
                <label class={class_list(&[Some("setting-inline"), (!offset_mode).then_some("is-disabled")])}>
                    <span>{ "Offset" }</span>
                    <input type="number" data-field="restart-offset" inputmode="numeric" min="0"
                        value={offset.to_string()} disabled={!offset_mode} onchange={on_offset} />
                </label>
            </div>
            <p class="setting-help">{ plan(*mode, chosen_partition, *offset) }</p>
            <button type="button" data-action="restart-from" onclick={on_restart}
                disabled={view.restart_pending}>
                { "Stop, reset and start again" }
            </button>
            <p class="setting-help">{ "Or click any record on a tape." }</p>
            if view.restart_pending {
                <p class="restart-pending" data-field="restart-pending">
                    { "Restart in progress: every consumer finishes its batch and stops; once the group \
                       is empty the offsets are reset and they start again." }
                </p>
            }
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_form_maps_to_kafkas_reset_modes() {
        assert_eq!(reset_spec(RestartMode::Earliest, Some(1), 4), ResetSpec::Earliest);
        assert_eq!(reset_spec(RestartMode::Latest, None, 0), ResetSpec::Latest);
        assert_eq!(
            reset_spec(RestartMode::Offset, Some(2), 7),
            ResetSpec::Offset { partition: Some(2), offset: 7 }
        );
        for m in RestartMode::ALL {
            assert_eq!(RestartMode::parse(m.value()), Some(m));
        }
    }
}
