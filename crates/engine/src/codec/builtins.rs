//! The built-in scenarios ([`BUILTINS`], the shipped JSON) read with the
//! format's reader: one by name, all of them, and the commit-cost
//! comparison three of them measure.

use crate::scenario::{BUILTINS, Scenario, ScenarioError};

fn builtin_from(text: &str) -> Scenario {
    Scenario::parse(text).expect("a built-in is valid (tested)")
}

/// Built-ins renamed after links to them were shared: `(old, new)`. An old
/// name still loads the scenario, under its new name.
const RENAMED: &[(&str, &str)] = &[("booblik-checkpoint", "consumer-checkpoint")];

/// A built-in scenario by name (or by a name it had before, see [`RENAMED`]).
pub fn builtin(name: &str) -> Result<Scenario, ScenarioError> {
    let asked = name;
    let name = RENAMED.iter().find(|(old, _)| *old == asked).map_or(asked, |(_, new)| *new);
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| builtin_from(text))
        .ok_or_else(|| ScenarioError::UnknownBuiltin(asked.to_string()))
}

/// Every built-in scenario, in listing order.
#[must_use]
pub fn builtins() -> Vec<Scenario> {
    BUILTINS.iter().map(|(_, text)| builtin_from(text)).collect()
}

/// One way of committing, measured: commit requests against what a crash replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CommitCost {
    pub scenario: &'static str,
    pub label: &'static str,
    pub commit_requests: u64,
    /// Records delivered again after the crash at tick 40.
    pub replayed: u64,
}

/// Committing every record, every batch, or on a timer, side by side: the
/// three built-in commit-cost scenarios (same traffic, same crash) run headless.
#[must_use]
pub fn commit_cost_comparison() -> Vec<CommitCost> {
    [
        ("commit-each-record", "every record"),
        ("commit-each-batch", "every batch"),
        ("commit-on-timer", "on a timer (10 ticks)"),
    ]
    .into_iter()
    .map(|(scenario, label)| {
        let sim = builtin(scenario)
            .and_then(|s| s.run(None, None))
            .expect("the commit-cost scenarios are built in and run (tested)");
        let m = sim.metrics();
        CommitCost { scenario, label, commit_requests: m.commit_requests, replayed: m.duplicates }
    })
    .collect()
}
