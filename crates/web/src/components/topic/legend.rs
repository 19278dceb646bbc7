//! What the marks on the tapes mean.

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct LegendProps {
    /// booblik: the dashed line is the owner's stored checkpoint.
    pub store: bool,
}

#[component]
pub fn Legend(props: &LegendProps) -> Html {
    html! {
        <div class="tape-legend">
            <ul aria-label="Legend">
                <li><span class="swatch swatch-cursor" aria-hidden="true"></span>{ "cursor: the consumer's position" }</li>
                <li><span class="swatch swatch-committed" aria-hidden="true"></span>
                    { if props.store { "dashed: the owner's stored checkpoint (its file)" } else { "dashed: the committed offset" } }
                </li>
                <li><span class="swatch swatch-in-flight" aria-hidden="true">{ "…" }</span>{ "in flight: in a consumer's batch, not handled yet" }</li>
                <li><span class="swatch swatch-handled" aria-hidden="true">{ "✓" }</span>{ "handled" }</li>
                <li><span class="swatch swatch-lost" aria-hidden="true">{ "✗" }</span>{ "hatched, struck: never processed (the group moved past it)" }</li>
                <li><span class="swatch swatch-times" aria-hidden="true">{ "×2" }</span>{ "delivered twice" }</li>
                <li><span class="swatch swatch-key" aria-hidden="true">{ "u3" }</span>{ "colour and label: the key, user-3" }</li>
                <li><span class="swatch swatch-keyless" aria-hidden="true">{ "·u3" }</span>{ "dotted: sent without a key (coloured by user)" }</li>
            </ul>
            <p class="tape-keys">{ "On a tape, arrow keys move between records; Enter shows what restarting from one would do." }</p>
        </div>
    }
}
