//! Rolling update: restart the consumers one by one.

use crate::components::SectionProps;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::Input;
use yew::prelude::*;

#[component]
pub fn Rolling(props: &SectionProps) -> Html {
    let onclick =
        send(&props.on_action, Action::Apply(Input::RollingUpdate { group: None, consumers: vec![] }));
    let rolling = props.state.view.rolling_update.as_ref();
    let status = rolling.map_or_else(
        || "none".to_string(),
        |r| {
            let phase = if r.stopping { "stopping" } else { "rejoining" };
            let mut text = format!("restarting {} ({phase})…", r.current);
            if !r.remaining.is_empty() {
                let rest: Vec<String> = r.remaining.iter().map(ToString::to_string).collect();
                text.push_str(&format!(", then {}", rest.join(", ")));
            }
            text
        },
    );
    html! {
        <div class="ops-block ops-rolling">
            <h3>{ "Rolling update" }</h3>
            <button type="button" data-action="rolling-update" disabled={rolling.is_some()} {onclick}>
                { "Start a rolling update" }
            </button>
            <p>{ "Under way: " }<span data-field="rolling-status">{ status }</span></p>
        </div>
    }
}
