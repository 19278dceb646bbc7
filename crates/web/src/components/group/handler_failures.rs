//! The group's failing handler (issue 40): its error policy in words, and the
//! two inputs that end a failure, fix the handler and replay the dead letters,
//! each enabled only when it applies. Drawn once the run can fail a record
//! (a policy other than skip, or a failure so far): the default run shows nothing.

use crate::components::send;
use crate::state::Action;
use offsetlab_engine::{ErrorPolicy, Input};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct HandlerFailuresProps {
    pub policy: ErrorPolicy,
    /// `fix-handler` was applied.
    pub fixed: bool,
    /// Records of this group on `orders.DLT`, in all.
    pub dead_letters: u64,
    /// The replay job has started.
    pub replaying: bool,
    /// The handler failed on a record at least once.
    pub failed: bool,
    pub on_action: Callback<Action>,
}

/// A tick count in words.
fn ticks(n: u64) -> String {
    if n == 1 { "1 tick".to_string() } else { format!("{n} ticks") }
}

/// The policy in plain words, with its numbers.
#[must_use]
pub fn policy_text(policy: ErrorPolicy) -> String {
    match policy {
        ErrorPolicy::Skip => "skip: log the failure and commit past the record".to_string(),
        ErrorPolicy::RetryForever { backoff_ticks } => {
            format!("retry forever, {} apart: the partition waits", ticks(backoff_ticks.max(1)))
        }
        ErrorPolicy::RetryThenDeadLetter { retries: 0, .. } => "no retry: straight to orders.DLT".to_string(),
        ErrorPolicy::RetryThenDeadLetter { retries, backoff_ticks } => format!(
            "retry {retries} {} ({} apart), then orders.DLT",
            if retries == 1 { "time" } else { "times" },
            ticks(backoff_ticks.max(1))
        ),
        ErrorPolicy::RetryTopics { levels, delay_ticks } => {
            let topics: Vec<String> = (1..=levels).map(|l| format!("orders-retry-{l}")).collect();
            format!(
                "retry topics ({}, first after {}), then orders.DLT",
                topics.join(", "),
                ticks(delay_ticks)
            )
        }
    }
}

#[component]
pub fn HandlerFailures(props: &HandlerFailuresProps) -> Html {
    let fix = send(&props.on_action, Action::Apply(Input::FixHandler { group: None }));
    let replay = send(&props.on_action, Action::Apply(Input::ReplayDeadLetters { group: None }));
    let can_replay = props.fixed && props.dead_letters > 0 && !props.replaying;
    let replay_why = if props.replaying {
        "The replay job has read orders.DLT from its start"
    } else if props.dead_letters == 0 {
        "Nothing on orders.DLT to replay"
    } else if !props.fixed {
        "Fix the handler first: a replay now would fail again"
    } else {
        "Read orders.DLT from its start and apply each record under its original effect key"
    };
    html! {
        <div class="handler-failures" data-field="handler-failures">
            <p class="handler-policy">
                <span class="handler-policy-label">{ "On a failure: " }</span>
                <span data-field="error-policy">{ policy_text(props.policy) }</span>
                if props.fixed {
                    <span class="handler-fixed" data-field="handler-fixed">{ " · handler fixed" }</span>
                }
            </p>
            <div class="handler-actions">
                <button type="button" data-action="fix-handler" onclick={fix} disabled={props.fixed || !props.failed}
                    title={if props.fixed { "Fixed: the handler succeeds on every record" } else { "Deploy the fix: from now on the handler succeeds on every record" }}>
                    { "Fix the handler" }
                </button>
                <button type="button" data-action="replay-dead-letters" onclick={replay} disabled={!can_replay}
                    title={replay_why}>
                    { "Replay dead letters" }
                </button>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn each_policy_in_words() {
        assert_eq!(policy_text(ErrorPolicy::Skip), "skip: log the failure and commit past the record");
        assert_eq!(
            policy_text(ErrorPolicy::RetryForever { backoff_ticks: 0 }),
            "retry forever, 1 tick apart: the partition waits"
        );
        assert_eq!(
            policy_text(ErrorPolicy::RetryThenDeadLetter { retries: 2, backoff_ticks: 2 }),
            "retry 2 times (2 ticks apart), then orders.DLT"
        );
        assert_eq!(
            policy_text(ErrorPolicy::RetryThenDeadLetter { retries: 0, backoff_ticks: 0 }),
            "no retry: straight to orders.DLT"
        );
        assert_eq!(
            policy_text(ErrorPolicy::RetryTopics { levels: 2, delay_ticks: 4 }),
            "retry topics (orders-retry-1, orders-retry-2, first after 4 ticks), then orders.DLT"
        );
    }
}
