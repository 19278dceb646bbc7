//! Consumer group demo: one card per consumer (one line each past a dozen),
//! the generation, rebalances.

mod consumer_card;
mod consumer_list;
mod consumer_row;
mod group_column;
mod handler_failures;

use crate::components::SectionProps;
use crate::components::class_list;
use crate::components::clock_bar::group_state_label;
use crate::components::send;
use crate::state::Action;
use consumer_list::ConsumerList;
use group_column::GroupColumn;
use handler_failures::HandlerFailures;
pub use handler_failures::policy_text;
use offsetlab_engine::{
    GroupProtocol, GroupView, Input, PartitionMove, PositionModel, RebalanceView, limits,
};
use yew::prelude::*;

/// For this many ticks after a rebalance, moved partitions are highlighted
/// on their new owner and noted on the card that lost them.
pub const REBALANCE_RECENT_TICKS: u64 = 6;

/// "P2 moved c1 → c2", "P0 assigned to c1", "P1 released by c3".
#[must_use]
pub fn move_text(m: &PartitionMove) -> String {
    match (m.from, m.to) {
        (Some(from), Some(to)) => format!("P{} moved {from} → {to}", m.partition),
        (None, Some(to)) => format!("P{} assigned to {to}", m.partition),
        (Some(from), None) => format!("P{} released by {from}", m.partition),
        (None, None) => format!("P{} has no owner", m.partition),
    }
}

/// Moves the rebalance line names; the rest are counted (256 partitions
/// assigned at once would fill the column).
pub const MOVES_NAMED_MAX: usize = 12;

/// What the group's epoch is called: the classic generation, or the
/// consumer protocol's group epoch (the number follows).
#[must_use]
pub fn epoch_label(group: Option<&GroupView>) -> &'static str {
    match group.map(|g| g.protocol) {
        Some(GroupProtocol::Consumer | GroupProtocol::Share) => "Group epoch ",
        _ => "Generation ",
    }
}

/// What that number is, as the label's tooltip says it.
#[must_use]
pub fn epoch_help(group: Option<&GroupView>) -> &'static str {
    match group.map(|g| g.protocol) {
        Some(GroupProtocol::Consumer | GroupProtocol::Share) => {
            "Group epoch: goes up by one at each join or leave; the coordinator then computes a new \
             target assignment, and each member's own epoch catches up with it"
        }
        _ => {
            "Generation: goes up by one each time a rebalance completes, that is each time the \
             group's partitions are handed out anew"
        }
    }
}

/// "Generation 3 (tick 14): P2 moved c1 → c2."
#[must_use]
pub fn rebalance_text(r: &RebalanceView) -> String {
    if r.moved.is_empty() {
        return format!("Generation {} (tick {}): no partition changed owner.", r.generation, r.tick);
    }
    let moves: Vec<String> = r.moved.iter().take(MOVES_NAMED_MAX).map(move_text).collect();
    let more = r.moved.len().saturating_sub(MOVES_NAMED_MAX);
    let rest = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("Generation {} (tick {}): {}{rest}.", r.generation, r.tick, moves.join(", "))
}

#[component]
pub fn Group(props: &SectionProps) -> Html {
    let view = &props.state.view;
    let rebalancing = view.group_state == "PreparingRebalance";
    // A crashed member holds the rebalance up until the last session runs out.
    let held_until = view.consumers.iter().filter_map(|c| c.session_expires_at).max();
    let recent =
        view.last_rebalance.as_ref().filter(|r| view.tick.saturating_sub(r.tick) < REBALANCE_RECENT_TICKS);
    let on_add = send(&props.on_action, Action::Apply(Input::AddConsumer { group: None }));
    // The first group's cards here; every further group has a column of its own.
    let first = view.groups.first().map_or("demo", |g| g.name.as_str());
    let mine: Vec<_> = view.consumers.iter().filter(|c| c.group == first).cloned().collect();
    let full = mine.len() >= limits::CONSUMERS_MAX as usize;
    let others = view.groups.get(1..).unwrap_or_default();
    let store = match view.settings.position {
        PositionModel::Group => None,
        PositionModel::Consumer { writes, .. } => Some(writes),
    };

    html! {
        <section class={class_list(&[Some("group panel"), (!others.is_empty()).then_some("has-groups"),
            matches!(state_explained(&props.state), Some(offsetlab_engine::Part::Group { group: 0 })).then_some("explained")])}
            aria-labelledby="group-heading">
            <header class="group-head">
                <h2 id="group-heading">{ "Consumer group: " }<code>{ first.to_string() }</code></h2>
                <p class="group-meta">
                    <span class="group-generation" title={epoch_help(view.groups.first())} tabindex="0">
                        { epoch_label(view.groups.first()) }<span data-field="generation">{ view.generation }</span>
                    </span>
                    <span class={class_list(&[Some("group-state-badge"), rebalancing.then_some("is-rebalancing")])}>
                        { group_state_label(&view.group_state).to_string() }
                    </span>
                </p>
            </header>
            if rebalancing {
                <p class="rebalance-banner" data-field="rebalance-banner">
                    { "Rebalancing: members finish their batch and rejoin" }
                    if let Some(tick) = held_until {
                        { format!("; a crashed member holds it up until its session times out at tick {tick}") }
                    }
                    { "." }
                </p>
            }
            if let Some(r) = view.last_rebalance.as_ref() {
                <p class={class_list(&[Some("rebalance-line"), recent.is_some().then_some("is-recent")])}
                    data-field="last-rebalance">
                    { rebalance_text(r) }
                </p>
            }
            // Before the cards: in an experiment about a failing handler, its fix is in view.
            { handler_failures(view, &props.on_action) }
            <ConsumerList consumers={mine} recent={view.last_rebalance.clone()} tick={view.tick} {store}
                share={view.groups.first().is_some_and(|g| g.protocol == GroupProtocol::Share)}
                label="Consumers" on_action={props.on_action.clone()}
                explained={match state_explained(&props.state) {
                    Some(offsetlab_engine::Part::Consumer { consumer }) => Some(consumer),
                    _ => None,
                }} />
            <div class="group-foot">
                <button type="button" data-action="add-consumer" onclick={on_add} disabled={full}>
                    { "Add consumer" }
                </button>
                <p class="group-hint">{ "Pause, crash or stop each one on its card." }</p>
            </div>
            if !others.is_empty() {
                <div class="other-groups">
                    { for others.iter().zip(1u32..).map(|(g, index)| html! {
                        <GroupColumn key={g.name.clone()} group={g.clone()} {index}
                            consumers={view.consumers.iter().filter(|c| c.group == g.name).cloned().collect::<Vec<_>>()}
                            on_action={props.on_action.clone()} />
                    }) }
                </div>
            }
        </section>
    }
}

/// The first group's error policy and its fix and replay, once the run can fail a record.
fn handler_failures(view: &offsetlab_engine::View, on_action: &Callback<Action>) -> Html {
    let Some(group) = view.groups.first().filter(|g| g.protocol != GroupProtocol::Share) else {
        return Html::default();
    };
    let policy = view.settings.error_policy;
    let failed = view.metrics.failed > 0;
    if policy.is_default() && !failed {
        return Html::default();
    }
    let dead_letters: u64 = view
        .letter_topics
        .iter()
        .filter(|t| t.topic == offsetlab_engine::LetterTopicId::DeadLetter)
        .flat_map(|t| t.partitions.iter().map(|p| p.log_end))
        .sum();
    html! {
        <HandlerFailures {policy} fixed={group.handler_fixed} {dead_letters}
            replaying={group.replay.is_some()} {failed} on_action={on_action.clone()} />
    }
}

/// The part the explanation's step shown names, if any.
fn state_explained(state: &crate::state::AppState) -> Option<offsetlab_engine::Part> {
    state.explaining.as_ref().and_then(|e| e.highlighted())
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use offsetlab_engine::ConsumerId;

    #[test]
    fn rebalance_lines_name_every_move() {
        let r = RebalanceView {
            tick: 14,
            generation: 3,
            moved: vec![
                PartitionMove { partition: 2, from: Some(ConsumerId(1)), to: Some(ConsumerId(2)) },
                PartitionMove { partition: 0, from: None, to: Some(ConsumerId(3)) },
            ],
        };
        assert_eq!(rebalance_text(&r), "Generation 3 (tick 14): P2 moved c1 → c2, P0 assigned to c3.");
        let r = RebalanceView { tick: 5, generation: 2, moved: vec![] };
        assert_eq!(rebalance_text(&r), "Generation 2 (tick 5): no partition changed owner.");
        let moved = (0..256)
            .map(|p| PartitionMove { partition: p, from: None, to: Some(ConsumerId(p % 64 + 1)) })
            .collect();
        let text = rebalance_text(&RebalanceView { tick: 1, generation: 1, moved });
        assert!(text.ends_with("P11 assigned to c12 and 244 more."), "{text}");
    }
}
