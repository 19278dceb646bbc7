//! The smallest run that still shows an anomaly: the engine's shrinker on the
//! run on screen (its scenario with the reader's inputs, up to the tick shown),
//! bounded in runs and by the caller's clock, and the shrunk run as the page's
//! own link, or as a scenario file when the link cannot carry it.

use offsetlab_engine::{Link, LinkScenario, Metric, Scenario, ShrinkLimit, shrink};
use std::rc::Rc;

/// Runs one shrink may try in the page: each is a whole (short) simulation, so
/// the page stays responsive (a few seconds at most in wasm).
pub const SHRINK_RUNS_PAGE: u32 = 150;

/// What shrinking found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shrunk {
    /// The counter it kept above 0 (its label on screen).
    pub counter: Metric,
    /// What it found, or why it could not shrink.
    pub outcome: Result<ShrunkRun, String>,
}

/// A shrunk run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShrunkRun {
    pub inputs_before: usize,
    pub inputs_after: usize,
    pub ticks_before: u64,
    pub ticks_after: u64,
    pub value_after: u64,
    pub runs_tried: u32,
    /// What stopped it early: its run budget or its time.
    pub stopped: Option<ShrinkLimit>,
    /// The page's link to the shrunk run at its last tick; `None` when it
    /// is longer than a link may be (then only the file).
    pub query: Option<String>,
    /// The shrunk scenario as JSON (`offsetlab run --scenario FILE` reads it).
    pub json: Rc<str>,
    pub name: String,
}

/// The run on screen at `tick` as a scenario to shrink: its inputs before
/// `tick`, run for `tick` ticks (a run of t ticks ends where the page's tick t is,
/// before the inputs made at t).
#[must_use]
pub fn on_screen(mut scenario: Scenario, tick: u64) -> Scenario {
    scenario.timeline.retain(|t| t.tick < tick);
    scenario.ticks = tick.max(1);
    scenario
}

/// Shrinks `scenario` (the run on screen) while `counter` stays above 0, in
/// at most [`SHRINK_RUNS_PAGE`] runs, asking `go_on` between runs.
#[must_use]
pub fn shrink_run(scenario: &Scenario, counter: Metric, go_on: impl FnMut() -> bool) -> Shrunk {
    let outcome = shrink(scenario, counter, SHRINK_RUNS_PAGE, go_on).map_err(|e| e.to_string()).map(|r| {
        let s = r.scenario;
        let link = Link {
            scenario: LinkScenario::Inline(Box::new(s.clone())),
            seed: s.config.seed,
            tick: s.ticks,
            inputs: Vec::new(),
        };
        // What the page opens is what the link codec reads back (64 KiB at most).
        let query = Some(link.to_query()).filter(|q| Link::parse_query(q).is_ok());
        ShrunkRun {
            inputs_before: r.inputs_before,
            inputs_after: r.inputs_after,
            ticks_before: r.ticks_before,
            ticks_after: r.ticks_after,
            value_after: r.value_after,
            runs_tried: r.runs_tried,
            stopped: r.stopped,
            query,
            json: s.to_json().into(),
            name: s.name,
        }
    });
    Shrunk { counter, outcome }
}
