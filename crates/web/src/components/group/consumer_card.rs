//! One consumer's card: its state, partitions, batch in flight, loop step and buttons.

use crate::components::class_list;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{
    CheckpointWrites, ConsumerId, ConsumerState, ConsumerView, InFlightRecord, Input, LoopStep,
};
use yew::prelude::*;

/// In-flight records drawn as chips; the rest are counted.
pub const IN_FLIGHT_SHOWN: usize = 12;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ConsumerCardProps {
    pub consumer: ConsumerView,
    /// Partitions this consumer received in the last rebalance (while it is recent).
    #[prop_or_default]
    pub arrived: Vec<u32>,
    /// Partitions it lost in the last rebalance, and to whom (while it is recent).
    #[prop_or_default]
    pub left: Vec<(u32, Option<ConsumerId>)>,
    /// booblik: the consumer keeps its own position, written this way; `None`: the group does.
    #[prop_or_default]
    pub store: Option<CheckpointWrites>,
    /// Its group is a share group: Pause stalls the application (a share consumer has no pause()).
    #[prop_or_default]
    pub share: bool,
    /// Named by the explanation's step shown.
    #[prop_or_default]
    pub explained: bool,
    pub on_action: Callback<Action>,
}

/// The loop step as the card says it: booblik's consumer checkpoints where Kafka's commits.
#[must_use]
pub fn step_label(step: LoopStep, store: bool) -> &'static str {
    match step {
        LoopStep::Idle => "idle",
        LoopStep::Poll => "poll",
        LoopStep::Handle => "handle",
        LoopStep::Commit if store => "checkpoint",
        LoopStep::Commit => "commit",
    }
}

/// "P0 500, P1 320": a partition → offset list as booblik's `/stats` names it.
#[must_use]
pub fn offsets_text(offsets: &[(u32, u64)]) -> String {
    offsets.iter().map(|(p, o)| format!("P{p} {o}")).collect::<Vec<_>>().join(", ")
}

/// "crashed at tick T while …": where its loop was.
fn crashed_while(step: LoopStep) -> &'static str {
    match step {
        LoopStep::Idle => "while idle",
        LoopStep::Poll => "while polling",
        LoopStep::Handle => "while handling its batch",
        LoopStep::Commit => "at the end of its batch",
    }
}

/// What the card offers in each state: always all of them, so tests and
/// keyboard users find the same buttons for the same state.
#[must_use]
pub fn actions_for(state: ConsumerState) -> &'static [&'static str] {
    match state {
        ConsumerState::Running => &["pause", "crash", "stop"],
        ConsumerState::Paused => &["resume", "crash", "stop"],
        ConsumerState::Stopping { .. } => &["crash"],
        ConsumerState::Crashed | ConsumerState::Stopped => &["start", "remove"],
    }
}

pub fn action_input(action: &str, consumer: ConsumerId) -> Input {
    match action {
        "pause" => Input::Pause { consumer },
        "resume" => Input::Resume { consumer },
        "crash" => Input::Crash { consumer },
        "stop" => Input::Stop { consumer },
        "start" => Input::Start { consumer },
        _ => Input::RemoveConsumer { consumer },
    }
}

pub fn action_label(action: &str) -> &'static str {
    match action {
        "pause" => "Pause",
        "resume" => "Resume",
        "crash" => "Crash",
        "stop" => "Stop",
        "start" => "Start",
        _ => "Remove",
    }
}

pub fn action_title(action: &str) -> &'static str {
    match action {
        "pause" => "pause(): stay in the group, fetch nothing new",
        "resume" => "resume(): fetch again",
        "crash" => "The process dies silently: no commit, no LeaveGroup",
        "stop" => "close(): finish the batch, commit, leave the group",
        "start" => "Start again with a new member id: it joins the group",
        _ => "Remove this card",
    }
}

/// "P1·7 u3": partition, offset and subject of one record in flight.
fn in_flight_chip(r: &InFlightRecord) -> Html {
    let style = format!("--chip-key: var(--key-{})", r.subject % 12);
    let title = format!(
        "partition {}, offset {}, key user-{}, record {}",
        r.partition, r.offset, r.subject, r.record_id
    );
    html! {
        <li class="flight-chip" {style} {title} key={r.record_id}>
            { format!("P{}·{} u{}", r.partition, r.offset, r.subject) }
        </li>
    }
}

#[component]
pub fn ConsumerCard(props: &ConsumerCardProps) -> Html {
    let c = &props.consumer;
    let id = c.id.to_string();
    let crashed = c.state == ConsumerState::Crashed;
    let state_text = if c.idle_spare { "idle spare" } else { c.state.label() };
    let class = class_list(&[
        Some("consumer-card"),
        Some(&format!("is-{}", c.state.label())),
        c.idle_spare.then_some("is-spare"),
        (!props.arrived.is_empty()).then_some("has-arrivals"),
        props.explained.then_some("explained"),
    ]);
    let buttons = actions_for(c.state).iter().map(|&action| {
        let input = action_input(action, c.id);
        let onclick = send(&props.on_action, Action::Apply(input));
        let class = class_list(&[Some("card-action"), (action == "crash").then_some("danger")]);
        html! {
            <button type="button" key={action} {class} data-action={action} {onclick}
                title={action_title(action)}
                aria-label={format!("{} {id}", action_label(action))}>
                { action_label(action) }
            </button>
        }
    });
    let shown = c.in_flight.len().min(IN_FLIGHT_SHOWN);
    // The view lists the batch's first records; the count is the whole batch.
    let more = c.in_flight_count as usize - shown;

    html! {
        <li {class} data-consumer={id.clone()}>
            <div class="card-head">
                <span class="consumer-name">{ id.clone() }</span>
                <span class="state-badge">
                    <span class="state-dot" aria-hidden="true">
                        { if crashed { "✕" } else if c.idle_spare { "○" } else { "●" } }
                    </span>
                    <span data-field="state">{ state_text }</span>
                </span>
            </div>
            if c.idle_spare {
                <p class="card-note spare-note">{ "idle spare: more consumers than partitions" }</p>
            }
            <div class="card-row">
                <span class="card-label">{ "Partitions" }</span>
                <ul class="partition-chips" data-field="partitions">
                    { for c.partitions.iter().map(|&p| {
                        let arrived = props.arrived.contains(&p);
                        html! {
                            <li key={p} class={class_list(&[Some("partition-chip"), crashed.then_some("held"), arrived.then_some("arrived")])}>
                                { format!("P{p}") }
                                if arrived { <span class="visually-hidden">{ " (just arrived)" }</span> }
                            </li>
                        }
                    }) }
                    if c.partitions.is_empty() {
                        <li class="partition-none">{ "none" }</li>
                    }
                </ul>
            </div>
            // The session running down while no heartbeat comes (crashed or
            // frozen): when it runs out the coordinator removes the member.
            if let (Some(t), Some(tick)) = (c.session_timer, c.session_expires_at) {
                <p class={classes!("card-note", "session-timer", (crashed && !c.partitions.is_empty()).then_some("held-note"),
                        (t.left_ticks * 4 <= t.session_timeout_ticks).then_some("is-late"))}
                    data-field="session-timer" tabindex="0"
                    title="session.timeout: how long the coordinator waits for a heartbeat before it removes the member and rebalances">
                    { session_timer_text(t, tick, crashed && !c.partitions.is_empty()) }
                </p>
            }
            if let Some(m) = &c.reconciliation {
                <p class="card-stats member-epoch" data-field="member-epoch">
                    <span title="Member epoch: the group epoch this member's assignment has caught up with" tabindex="0">
                        { format!("epoch {}", m.member_epoch) }
                    </span>
                    <span data-field="member-state">{ m.state }</span>
                </p>
            }
            if let Some(t) = &c.transaction {
                <p class={classes!("card-stats", "txn-producer", t.fenced.then_some("is-fenced"))} data-field="txn-producer"
                    tabindex="0"
                    title={format!("transactional.id {}, the name its producer keeps across restarts; its producer \
                        epoch, which goes up each time an instance takes that id, so that an older one is refused; \
                        and whether a newer instance fenced it", t.transactional_id)}>
                    <span>{ t.transactional_id.clone() }</span>
                    <span>{ t.epoch.map_or_else(|| "no epoch".to_string(), |e| format!("epoch {e}")) }</span>
                    <span data-field={if t.fenced { "fenced" } else { "client-state" }}>{ t.client_state() }</span>
                    // A fenced producer's id belongs to the instance that fenced it: the
                    // coordinator's state is that newer epoch's transaction, not this one's.
                    <span data-field="coordinator-state"
                        title={format!("The transaction coordinator's TransactionState for {}{}", t.transactional_id,
                            if t.fenced { ", which a newer instance now holds at a higher epoch: its transaction, not this one's" } else { "" })}>
                        { format!("coordinator{}: {}", if t.fenced { " (newer epoch)" } else { "" }, t.coordinator_state) }
                    </span>
                </p>
            }
            if !props.left.is_empty() {
                <p class="card-note left-note" data-field="left">
                    { "left: " }
                    { props.left.iter().map(|(p, to)| match to {
                        Some(to) => format!("P{p} → {to}"),
                        None => format!("P{p} → no owner"),
                    }).collect::<Vec<_>>().join(", ") }
                </p>
            }
            if !c.in_flight.is_empty() {
                <div class="card-row">
                    <span class="card-label">{ format!("In flight ({})", c.in_flight_count) }</span>
                    <ul class="flight-chips" data-field="in-flight">
                        { for c.in_flight[..shown].iter().map(in_flight_chip) }
                        if more > 0 {
                            <li class="flight-more">{ format!("+{more}") }</li>
                        }
                    </ul>
                </div>
            }
            // The poll timer once half of max.poll.interval is gone: a batch that
            // outlasts it makes the client leave the group by itself.
            if let Some(t) = c.poll_timer.filter(|t| t.since_poll_ticks * 2 >= t.max_poll_interval_ticks) {
                <p class={classes!("card-note", "poll-timer", (t.since_poll_ticks * 4 >= t.max_poll_interval_ticks * 3).then_some("is-late"))}
                    data-field="poll-timer" tabindex="0"
                    title="max.poll.interval: the longest the application may take between two poll() calls. \
                        When it runs out, the client leaves the group by itself and its next commit fails.">
                    { poll_timer_text(t) }
                </p>
            }
            if let Some(why) = c.out_of_group {
                <p class="card-note left-group-note" data-field="left-group">
                    { format!("out of the group ({why}): it finishes its batch, but its commit will fail") }
                </p>
            }
            <p class="card-stats">
                <span>{ "handled " }<span data-field="handled">{ c.handled }</span></span>
                if !crashed {
                    <span>{ "loop: " }<span data-field="step">{ step_label(c.step, props.store.is_some()) }</span></span>
                }
                if let Some(left) = c.auto_commit_in_ticks {
                    <span data-field="auto-commit" tabindex="0"
                        title="auto.commit.interval: poll() commits what earlier polls returned when this runs out; a classic member also commits just before each JoinGroup">
                        { format!("auto-commit in {left}") }
                    </span>
                }
            </p>
            if props.store.is_some() || !c.resumed_from.is_empty() {
                <p class="card-stats store-stats">
                    if !c.resumed_from.is_empty() {
                        <span data-field="resumed-from" title="where this incarnation started each partition from">
                            { format!("resumedFrom {}", offsets_text(&c.resumed_from)) }
                        </span>
                    }
                    if props.store.is_some() {
                        <span data-field="stored" title="what its offset store (its file) holds">
                            { if c.stored.is_empty() {
                                "stored: nothing yet".to_string()
                            } else {
                                format!("stored {}", offsets_text(&c.stored))
                            } }
                        </span>
                    }
                </p>
            }
            if c.writing_checkpoint {
                <p class={class_list(&[Some("card-note"), Some("checkpoint-note"), (props.store == Some(CheckpointWrites::InPlace)).then_some("is-risky")])}
                    data-field="writing-checkpoint">
                    { "writing checkpoint…" }
                    if props.store == Some(CheckpointWrites::InPlace) {
                        { " a crash now tears it" }
                    }
                </p>
            }
            if let (true, Some(at)) = (crashed, c.crashed_at) {
                <p class="card-note crash-note" data-field="crashed">
                    { format!("crashed at tick {at} {}", crashed_while(c.crashed_during.unwrap_or(LoopStep::Idle))) }
                </p>
            }
            if c.state == ConsumerState::Paused {
                <p class="card-note">{ if props.share {
                    "stalled: holds its records and handles nothing; its heartbeats go on"
                } else {
                    "paused: stays in the group and fetches nothing"
                } }</p>
            }
            if matches!(c.state, ConsumerState::Stopping { .. }) {
                <p class="card-note">{ "stopping: finishes its batch, commits, then leaves" }</p>
            }
            <div class="card-actions">
                { for buttons }
            </div>
        </li>
    }
}

/// "session: 3 of 12 ticks left (session.timeout): P0, P1 held until tick 40".
fn session_timer_text(t: offsetlab_engine::SessionTimerView, until: u64, holds: bool) -> String {
    let timer = format!(
        "session: {} of {} tick{} left (session.timeout)",
        t.left_ticks,
        t.session_timeout_ticks,
        if t.session_timeout_ticks == 1 { "" } else { "s" }
    );
    if holds {
        format!("{timer}: its partitions are held until tick {until}, nobody reads them meanwhile")
    } else {
        format!("{timer}: no heartbeat comes")
    }
}

/// "poll timer: 4 of 12 ticks left" (max.poll.interval).
fn poll_timer_text(t: offsetlab_engine::PollTimerView) -> String {
    let left = t.max_poll_interval_ticks.saturating_sub(t.since_poll_ticks);
    format!(
        "poll timer: {left} of {} tick{} left (max.poll.interval)",
        t.max_poll_interval_ticks,
        if t.max_poll_interval_ticks == 1 { "" } else { "s" }
    )
}
