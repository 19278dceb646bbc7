//! Shrinking (`offsetlab shrink`): every built-in whose run ends with an
//! anomaly shrinks to a scenario that still shows it, no longer than the
//! original, that the format reads back as it is; the sizes are on record
//! in `snapshots/shrink.txt`.

#![cfg(not(target_arch = "wasm32"))]

use offsetlab_engine::{
    ConsumerId, Input, Metric, Scenario, ScenarioError, ShrinkError, ShrinkLimit, ShrinkReport, Sim,
    TimedInput, anomaly, builtin, builtins, shrink,
};
use std::fmt::Write as _;

/// The counters that count something going wrong: records handled twice or
/// never, out of order, lost after an acknowledgement, money paid twice,
/// commits refused, results read twice. The others count what happens
/// anyway (records sent, rebalances, handler failures of a poison record).
const ANOMALIES: [Metric; 15] = [
    Metric::Duplicates,
    Metric::DuplicateEffects,
    Metric::NeverProcessed,
    Metric::LostToRetention,
    Metric::OutOfKeyOrder,
    Metric::TornCheckpoints,
    Metric::DoublePaidCents,
    Metric::SplitViolations,
    Metric::CommitFailed,
    Metric::SkippedByReset,
    Metric::AckedLost,
    Metric::ProducerDuplicates,
    Metric::ProducerReordered,
    Metric::DownstreamDuplicates,
    Metric::AbortedSeen,
];

/// Runs in the tests: far more than any built-in needs (under 100), so
/// that the sizes on record are where the search ends, not where it was cut.
const RUNS: u32 = 1_000;

/// The counter at the end of `scenario`'s run as `offsetlab run` makes it:
/// the highest of the groups' values.
fn value(scenario: &Scenario, counter: Metric) -> u64 {
    let sim: Sim = scenario.run(None, None).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
    (0..sim.group_count()).map(|g| counter.of(&sim, g)).max().unwrap_or(0)
}

/// What every shrink promises, checked on its report.
fn check(original: &Scenario, report: &ShrinkReport) {
    let shrunk = &report.scenario;
    let what = format!("{} shrunk for {}", original.name, report.counter.name());
    assert_eq!(report.value_after, value(shrunk, report.counter), "{what}: the value reported is the run's");
    assert!(report.value_after > 0, "{what}: the result still shows it");
    assert_eq!(report.value_before, value(original, report.counter), "{what}");
    assert_eq!((report.inputs_before, report.ticks_before), (original.timeline.len(), original.ticks));
    assert_eq!((report.inputs_after, report.ticks_after), (shrunk.timeline.len(), shrunk.ticks), "{what}");
    assert!(report.inputs_after <= report.inputs_before, "{what}: no more inputs");
    assert!(report.ticks_after <= report.ticks_before, "{what}: no more ticks");
    assert!(report.runs_tried <= RUNS.max(2), "{what}: within the budget");
    assert_eq!(Scenario::parse(&shrunk.to_json()).as_ref(), Ok(shrunk), "{what}: reads back as it is");
    assert!(shrunk.guide.is_none() && shrunk.timeline.iter().all(|t| !t.learner), "{what}: no guide");
}

/// Every built-in, for every anomaly its run ends with: the result shows it,
/// is no longer, reads back; the table of sizes is the snapshot.
#[test]
fn every_builtin_with_an_anomaly_shrinks_to_a_scenario_that_shows_it() {
    let mut table = String::new();
    writeln!(table, "{:<30} {:<22} {:<10} {:<12} runs", "built-in", "counter", "inputs", "ticks").unwrap();
    let mut shrunk = 0;
    for scenario in builtins() {
        for counter in ANOMALIES {
            let report = match shrink(&scenario, counter, RUNS, || true) {
                Ok(report) => report,
                Err(ShrinkError::NotShown { .. }) => continue,
                Err(e) => panic!("{} for {}: {e}", scenario.name, counter.name()),
            };
            check(&scenario, &report);
            assert_eq!(report.stopped, None, "{} for {}: the budget is ample", scenario.name, counter.name());
            shrunk += 1;
            writeln!(
                table,
                "{:<30} {:<22} {:>2} -> {:<4} {:>3} -> {:<5} {:>4}",
                scenario.name,
                counter.name(),
                report.inputs_before,
                report.inputs_after,
                report.ticks_before,
                report.ticks_after,
                report.runs_tried
            )
            .unwrap();
        }
    }
    assert!(shrunk >= 40, "the built-ins show anomalies: {shrunk} shrunk");
    expect_test::expect_file!["snapshots/shrink.txt"].assert_eq(&table);
}

/// Any counter, not only the anomalies: whatever a built-in's run ends with
/// above 0 shrinks to a scenario that still ends with it above 0.
#[test]
fn every_counter_above_zero_shrinks() {
    for scenario in builtins() {
        for counter in Metric::ALL {
            match shrink(&scenario, counter, RUNS, || true) {
                Ok(report) => check(&scenario, &report),
                Err(ShrinkError::NotShown { .. }) => assert_eq!(value(&scenario, counter), 0),
                Err(e) => panic!("{} for {}: {e}", scenario.name, counter.name()),
            }
        }
    }
}

/// Counters are named as scenario JSON names them; another name is refused
/// with the list of names.
#[test]
fn an_unknown_counter_is_refused_with_the_names() {
    assert_eq!(anomaly("duplicates"), Ok(Metric::Duplicates));
    assert_eq!(anomaly("acked_lost"), Ok(Metric::AckedLost));
    let error = anomaly("dupes").unwrap_err().to_string();
    assert!(
        error.starts_with("no counter named \"dupes\"; the counters are produced, delivered, "),
        "{error}"
    );
    for counter in Metric::ALL {
        assert!(error.contains(counter.name()), "{error}");
    }
    assert!(anomaly("").is_err() && anomaly("Duplicates").is_err());
}

#[test]
fn a_counter_at_zero_is_refused() {
    let scenario = builtin("keys-keep-order").unwrap();
    let error = shrink(&scenario, Metric::Duplicates, RUNS, || true).unwrap_err();
    assert_eq!(error, ShrinkError::NotShown { counter: Metric::Duplicates, ticks: 150 });
    assert_eq!(
        error.to_string(),
        "the scenario does not show duplicates: it is 0 in every group after its 150 ticks"
    );
}

/// An invalid scenario, or one whose run refuses an input, is refused as it is.
#[test]
fn a_scenario_that_does_not_run_is_refused() {
    let mut late = builtin("crash-commit-after").unwrap();
    late.ticks = 2;
    let error = shrink(&late, Metric::Duplicates, RUNS, || true).unwrap_err();
    assert!(matches!(&error, ShrinkError::Scenario(ScenarioError::Invalid { .. })), "{error}");
    let mut refused = builtin("crash-commit-after").unwrap();
    refused
        .timeline
        .insert(0, TimedInput { tick: 0, input: Input::Crash { consumer: ConsumerId(9) }, learner: false });
    let error = shrink(&refused, Metric::Duplicates, RUNS, || true).unwrap_err();
    assert!(matches!(&error, ShrinkError::Scenario(ScenarioError::Refused { index: 0, .. })), "{error}");
}

/// With the fewest runs (the original's and the check), or a caller that
/// stops at once, the result is the original as the shrinker writes it,
/// and the report says what stopped it.
#[test]
fn a_spent_budget_returns_what_it_has() {
    let original = builtin("crash-commit-after").unwrap();
    for max_runs in [0, 1, 2] {
        let report = shrink(&original, Metric::Duplicates, max_runs, || true).unwrap();
        check(&original, &report);
        assert_eq!((report.runs_tried, report.stopped), (2, Some(ShrinkLimit::Runs)));
        assert_eq!((report.scenario.timeline.len(), report.scenario.ticks), (2, 60));
    }
    let report = shrink(&original, Metric::Duplicates, RUNS, || false).unwrap();
    check(&original, &report);
    assert_eq!((report.runs_tried, report.stopped), (2, Some(ShrinkLimit::Caller)));
    // A few runs in, then stopped during one: what it has is still shown.
    for asked in [1, 3, 10, 20] {
        let mut left = asked;
        let report = shrink(&original, Metric::Duplicates, RUNS, || {
            left -= 1;
            left > 0
        })
        .unwrap();
        check(&original, &report);
        assert_eq!(report.stopped, Some(ShrinkLimit::Caller), "stopped after {asked} questions");
    }
    for max_runs in [3, 5, 10, 20] {
        let report = shrink(&original, Metric::Duplicates, max_runs, || true).unwrap();
        check(&original, &report);
        assert!(report.runs_tried <= max_runs);
        assert_eq!(report.stopped, Some(ShrinkLimit::Runs), "{max_runs} runs");
    }
}

/// The same scenario shrinks to the same result: no clock, no entropy.
#[test]
fn shrinking_is_deterministic() {
    let scenario = builtin("offsets-expired").unwrap();
    let first = shrink(&scenario, Metric::NeverProcessed, RUNS, || true).unwrap();
    let second = shrink(&scenario, Metric::NeverProcessed, RUNS, || true).unwrap();
    assert_eq!(first, second);
    // A result shrinks no further: it keeps its name, and its size.
    let again = shrink(&first.scenario, Metric::NeverProcessed, RUNS, || true).unwrap();
    assert_eq!(again.scenario.name, "offsets-expired-shrunk");
    assert_eq!((again.inputs_after, again.ticks_after), (first.inputs_after, first.ticks_after));
}
