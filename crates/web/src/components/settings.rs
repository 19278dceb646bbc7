//! Records per poll, commit mode, where the position lives, idempotent
//! application, restart from an offset.

mod position_store;
mod restart_from;

use crate::components::SectionProps;
use crate::components::class_list;
use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{CommitMode, ErrorPolicy, GroupProtocol, Input, PositionModel};
use position_store::PositionStore;
use restart_from::RestartFrom;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Records per poll the select offers.
pub const RECORDS_PER_POLL_CHOICES: std::ops::RangeInclusive<u32> = 1..=10;
/// The auto-commit interval the input allows, and its starting value.
pub const AUTO_INTERVAL_MIN: u64 = 1;
pub const AUTO_INTERVAL_MAX: u64 = 20;
pub const AUTO_INTERVAL_DEFAULT: u64 = 5;
/// The error policies the select offers, each with the numbers it starts
/// with (a scenario file sets others); the option's value is its kind.
pub const ERROR_POLICY_CHOICES: [(&str, ErrorPolicy); 4] = [
    ("skip and commit past it", ErrorPolicy::Skip),
    ("retry forever", ErrorPolicy::RetryForever { backoff_ticks: 1 }),
    ("retry, then orders.DLT", ErrorPolicy::RetryThenDeadLetter { retries: 2, backoff_ticks: 1 }),
    ("retry topics, then orders.DLT", ErrorPolicy::RetryTopics { levels: 2, delay_ticks: 5 }),
];

#[component]
pub fn Settings(props: &SectionProps) -> Html {
    let view = &props.state.view;
    let settings = &view.settings;
    // The interval typed while another mode is on: used when "auto" is chosen.
    let auto_interval = use_state(|| AUTO_INTERVAL_DEFAULT);
    let shown_interval = match settings.commit {
        CommitMode::Auto { interval_ticks } => interval_ticks,
        _ => *auto_interval,
    };
    let is_auto = matches!(settings.commit, CommitMode::Auto { .. });
    // booblik's store: the consumer checkpoints after every batch, whatever the commit mode says.
    let in_store = matches!(settings.position, PositionModel::Consumer { .. });

    let on_records = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(records) = select.value().parse::<u32>() {
                on_action.emit(Action::Apply(Input::RecordsPerPoll { group: None, records }));
            }
        })
    };
    let commit_radio = |value: &'static str, label: Html, mode: CommitMode| {
        let checked = settings.commit.label() == value;
        let onchange = send(&props.on_action, Action::Apply(Input::Commit { group: None, commit: mode }));
        html! {
            <label class="radio">
                <input type="radio" name="commit" {value} {checked} {onchange} disabled={in_store} />
                <span>{ label }</span>
            </label>
        }
    };
    let on_interval = {
        let on_action = props.on_action.clone();
        let auto_interval = auto_interval.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Ok(n) = input.value().trim().parse::<u64>() else { return };
            let n = n.clamp(AUTO_INTERVAL_MIN, AUTO_INTERVAL_MAX);
            input.set_value(&n.to_string());
            auto_interval.set(n);
            if is_auto {
                on_action.emit(Action::Apply(Input::Commit {
                    group: None,
                    commit: CommitMode::Auto { interval_ticks: n },
                }));
            }
        })
    };
    let on_idempotent = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            on_action.emit(Action::Apply(Input::Idempotent { group: None, on: input.checked() }));
        })
    };

    let on_policy = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let chosen = ERROR_POLICY_CHOICES.into_iter().find(|(_, p)| p.kind() == select.value());
            if let Some((_, error_policy)) = chosen {
                on_action.emit(Action::Apply(Input::ErrorPolicy { group: None, error_policy }));
            }
        })
    };

    let protocol = view.groups.first().map_or(GroupProtocol::Classic, |g| g.protocol);
    let on_protocol = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let chosen = [GroupProtocol::Classic, GroupProtocol::Consumer, GroupProtocol::Share]
                .into_iter()
                .find(|p| p.name() == select.value());
            if let Some(protocol) = chosen {
                on_action.emit(Action::Protocol(protocol));
            }
        })
    };
    let mut records_choices: Vec<u32> = RECORDS_PER_POLL_CHOICES.collect();
    if !records_choices.contains(&settings.records_per_poll) {
        records_choices.push(settings.records_per_poll);
    }

    html! {
        <section class="settings panel" aria-labelledby="settings-heading">
            <h2 id="settings-heading">{ "Consumer settings" }</h2>
            <div class="setting">
                <label class="setting-inline">
                    <span>{ "Group protocol" }</span>
                    <select data-field="protocol" onchange={on_protocol}>
                        { for [("classic", "classic"), ("consumer", "consumer (KIP-848)"), ("share", "share group (KIP-932)")]
                            .into_iter().map(|(value, label)| html! {
                                <option {value} selected={protocol.name() == value}>{ label }</option>
                            }) }
                    </select>
                </label>
                <p class="setting-help">
                    { "group.protocol of the group demo: the run starts again from tick 0 with it." }
                </p>
            </div>
            <div class="setting">
                <label class="setting-inline">
                    <span>{ "Records per poll" }</span>
                    <select data-field="records-per-poll" onchange={on_records}>
                        { for records_choices.into_iter().map(|n| html! {
                            <option key={n} value={n.to_string()} selected={n == settings.records_per_poll}>
                                { n }
                            </option>
                        }) }
                    </select>
                </label>
                <p class="setting-help">{ "max.poll.records: how big a batch each poll() returns." }</p>
            </div>
            <div class="setting">
                <p class="setting-inline" data-field="timers">
                    <span>{ "Timers" }</span>
                    { " " }
                    <span>{ timers_text(settings) }</span>
                </p>
                <p class="setting-help">
                    { "When Kafka gives up on a member: no heartbeat for a session, or no poll() for \
                       max.poll.interval (records per poll times the time a record takes must fit in it); \
                       where a partition with no committed offset starts; and, when set, how long an empty \
                       group's first rebalance waits, how long its offsets outlive it, and how often its \
                       leader looks for new partitions. A scenario file sets them." }
                </p>
            </div>
            if protocol != GroupProtocol::Share {
                <div class="setting">
                    <label class="setting-inline">
                        <span>{ "Error policy" }</span>
                        <select data-field="error-policy-select" onchange={on_policy}>
                            { for ERROR_POLICY_CHOICES.into_iter().map(|(label, p)| html! {
                                <option value={p.kind()} selected={p.kind() == settings.error_policy.kind()}>
                                    { label }
                                </option>
                            }) }
                        </select>
                    </label>
                    <p class="setting-help" data-field="error-policy-setting">
                        { "In effect now — " }{ crate::components::policy_text(settings.error_policy) }{ ". " }
                        { "What the application's code does when its handler throws. It is the application's \
                           choice, not a Kafka setting (in Spring Kafka, DefaultErrorHandler, \
                           DeadLetterPublishingRecoverer and @RetryableTopic): a change here is a redeploy, and \
                           the next failure follows it. A scenario file sets other numbers (error_policy)." }
                    </p>
                </div>
            }
            <fieldset class={class_list(&[Some("setting"), Some("commit-modes"), in_store.then_some("is-disabled")])}>
                <legend>{ "Commit" }</legend>
                if in_store {
                    <p class="setting-help store-note" data-field="commit-note">
                        { "Each consumer checkpoints after its batch here: the commit mode does not apply \
                           while consumers keep their own positions." }
                    </p>
                }
                { commit_radio("after", html! { <>{ "After handling" }<small>{ "at-least-once" }</small></> },
                    CommitMode::After) }
                { commit_radio("before", html! { <>{ "Before handling" }<small>{ "at-most-once" }</small></> },
                    CommitMode::Before) }
                { commit_radio("each-record", html! { <>{ "After each record" }<small>{ "a commit request per record" }</small></> },
                    CommitMode::EachRecord) }
                { commit_radio("auto", html! { <>{ "Auto-commit" }<small>{ "inside poll(), on a timer" }</small></> },
                    CommitMode::Auto { interval_ticks: shown_interval }) }
                <label class={class_list(&[Some("setting-inline"), Some("auto-interval"), (!is_auto || in_store).then_some("is-disabled")])}>
                    <span>{ "Auto-commit every" }</span>
                    <input type="number" data-field="auto-interval" inputmode="numeric"
                        min={AUTO_INTERVAL_MIN.to_string()} max={AUTO_INTERVAL_MAX.to_string()}
                        value={shown_interval.to_string()} disabled={!is_auto || in_store}
                        onchange={on_interval} />
                    <span>{ "ticks" }</span>
                </label>
            </fieldset>
            <PositionStore state={props.state.clone()} on_action={props.on_action.clone()} />
            <div class="setting">
                <label class="checkbox">
                    <input type="checkbox" data-field="idempotent" checked={settings.idempotent}
                        onchange={on_idempotent} />
                    <span>{ "Idempotent application" }</span>
                </label>
                <p class="setting-help">
                    { "A unique constraint on the record id: duplicates arrive but take no effect." }
                </p>
            </div>
            <RestartFrom state={props.state.clone()} on_action={props.on_action.clone()} />
        </section>
    }
}

/// The group's timers in Kafka's names: the three every group has, then the
/// ones the scenario sets.
fn timers_text(settings: &offsetlab_engine::SettingsView) -> String {
    let mut parts = vec![
        format!("session.timeout {} ticks", settings.session_timeout_ticks),
        format!("max.poll.interval {} ticks", settings.max_poll_interval_ticks),
        format!("auto.offset.reset {}", settings.auto_offset_reset.name()),
    ];
    if settings.initial_rebalance_delay_ticks > 0 {
        parts.push(format!("group.initial.rebalance.delay {} ticks", settings.initial_rebalance_delay_ticks));
    }
    if let Some(ticks) = settings.offsets_retention_ticks {
        parts.push(format!("offsets.retention {ticks} ticks"));
    }
    if let Some(ticks) = settings.metadata_max_age_ticks {
        parts.push(format!("metadata.max.age {ticks} ticks"));
    }
    parts.join(" · ")
}
