//! booblik's `/stats`: one JSON object per consumer and partition, as the
//! endpoint serves it (camelCase keys).

use offsetlab_engine::ConsumerStats;
use std::fmt::Write as _;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StatsProps {
    pub stats: Rc<Vec<ConsumerStats>>,
    /// The consumers keep their own positions (booblik's store).
    pub store: bool,
}

fn json_number(value: Option<u64>) -> String {
    value.map_or_else(|| "null".to_string(), |n| n.to_string())
}

/// One entry as `ConsumerStats` serializes it, on one line.
#[must_use]
pub fn stats_entry_json(s: &ConsumerStats) -> String {
    format!(
        r#"{{"consumer":"{}","partition":{},"position":{},"resumedFrom":{},"handled":{},"stored":{},"lastCheckpointTick":{}}}"#,
        s.consumer,
        s.partition,
        json_number(s.position),
        json_number(s.resumed_from),
        s.handled,
        json_number(s.stored),
        json_number(s.last_checkpoint_tick),
    )
}

/// The whole response: a JSON array, one entry per line.
#[must_use]
pub fn stats_json(stats: &[ConsumerStats]) -> String {
    if stats.is_empty() {
        return "[]".to_string();
    }
    let mut out = String::from("[\n");
    for (i, s) in stats.iter().enumerate() {
        let comma = if i + 1 < stats.len() { "," } else { "" };
        let _ = writeln!(out, "  {}{comma}", stats_entry_json(s));
    }
    out.push(']');
    out
}

#[component]
pub fn StatsPanel(props: &StatsProps) -> Html {
    html! {
        <div class="booblik-box stats-panel">
            <h3><code>{ "GET /stats" }</code></h3>
            <p class="booblik-help">
                { "Per consumer and partition: position (the next offset it reads), resumedFrom (where this \
                   incarnation started), stored (what its file holds) and when it last checkpointed." }
                if !props.store {
                    { " With the group keeping positions, stored stays null." }
                }
            </p>
            <pre class="terminal stats-json" data-field="stats" tabindex="0" aria-label="The /stats response">
                { stats_json(&props.stats) }
            </pre>
        </div>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use offsetlab_engine::ConsumerId;

    #[test]
    fn entries_read_as_the_endpoint_serves_them() {
        let entry = ConsumerStats {
            consumer: ConsumerId(1),
            partition: 0,
            position: Some(12),
            resumed_from: None,
            handled: 12,
            stored: Some(12),
            last_checkpoint_tick: Some(40),
        };
        assert_eq!(
            stats_entry_json(&entry),
            r#"{"consumer":"c1","partition":0,"position":12,"resumedFrom":null,"handled":12,"stored":12,"lastCheckpointTick":40}"#
        );
        let two = stats_json(&[entry.clone(), ConsumerStats { partition: 1, ..entry }]);
        assert_eq!(two.lines().count(), 4);
        assert!(two.starts_with("[\n  {") && two.ends_with("}\n]"));
        assert_eq!(stats_json(&[]), "[]");
    }
}
