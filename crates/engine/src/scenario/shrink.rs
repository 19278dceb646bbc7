//! Shrinking: from a scenario whose run ends with an anomaly counter above
//! zero (duplicates, never processed, …), a smaller scenario whose run still
//! does. The run is deterministic, so a candidate either shows the anomaly
//! or it does not; the search keeps only candidates it ran and saw show it,
//! so whatever it returns reproduces with `offsetlab run`.
//!
//! The passes, repeated until a round changes nothing (or the budget ends):
//!
//! 1. Cut the run where the counter first rises above zero: one run watched
//!    tick by tick gives that tick, and the inputs after it were not needed.
//! 2. Remove inputs: delta debugging (ddmin) over the timeline, removing
//!    chunks of halving size, then single inputs.
//! 3. Remove consumer groups, when there are several.
//! 4. Lower numbers: each input's count or rate, the config's partitions,
//!    keys, send rate, consumers, records per poll and per tick; then move
//!    inputs earlier (each one and those after it, the run shortened as
//!    much). Each number tries its least value first, then halves the
//!    distance to the least value that showed it; the counter need not be
//!    monotone in a number, so the value kept is one that showed it, not
//!    always the least that would.
//!
//! A candidate the format refuses (`Scenario::validate`, what the codec
//! checks after reading) or whose run the simulation refuses (an input that
//! names a consumer that is gone, say) does not show it. No clock: the
//! caller bounds the runs, and may stop the search (its wall clock) through
//! a callback asked between runs and every [`SHRINK_ASK_EVERY_TICKS`] ticks.

use super::{Scenario, ScenarioError};
use crate::guide::Metric;
use crate::input::Input;
use crate::limits::{SHRINK_ASK_EVERY_TICKS, SHRINK_RUNS_MIN};
use crate::sim::Sim;
use std::fmt;
use std::ops::ControlFlow;

/// What a shrink found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShrinkReport {
    /// The smallest scenario found that shows the anomaly: without the
    /// guide (whose story and steps were the original's), renamed
    /// `NAME-shrunk`, its summary saying what it was shrunk from.
    pub scenario: Scenario,
    pub counter: Metric,
    pub inputs_before: usize,
    pub inputs_after: usize,
    pub ticks_before: u64,
    pub ticks_after: u64,
    /// The counter at the end of the original's run and of the result's:
    /// the highest of the groups' values.
    pub value_before: u64,
    pub value_after: u64,
    /// Simulations run, the original's and the check of the result included.
    pub runs_tried: u32,
    /// What stopped the search before it had tried everything, if anything.
    pub stopped: Option<ShrinkLimit>,
}

/// A bound that ended a shrink early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShrinkLimit {
    /// The runs it was given are spent (one is kept for the check of the result).
    Runs,
    /// The caller said to stop (its time is up).
    Caller,
}

/// Why a scenario cannot be shrunk.
#[derive(Clone, PartialEq, Eq)]
pub enum ShrinkError {
    /// No counter has this name.
    UnknownCounter(String),
    /// The original's run ends with the counter at 0 in every group.
    NotShown { counter: Metric, ticks: u64 },
    /// The original is not a valid scenario, or its run refused an input.
    Scenario(ScenarioError),
}

impl fmt::Display for ShrinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShrinkError::UnknownCounter(name) => {
                let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
                write!(
                    f,
                    "no counter named {}; the counters are {}",
                    crate::quote::quoted(name),
                    names.join(", ")
                )
            }
            ShrinkError::NotShown { counter, ticks } => write!(
                f,
                "the scenario does not show {}: it is 0 in every group after its {ticks} ticks",
                counter.name()
            ),
            ShrinkError::Scenario(e) => write!(f, "{e}"),
        }
    }
}

/// `Debug` is the message, as for [`ScenarioError`].
impl fmt::Debug for ShrinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ShrinkError {}

/// The counter an anomaly is named by (`offsetlab shrink --anomaly NAME`),
/// as scenario JSON names it: an outcome condition's `metric`, a field of
/// `run --json`'s `metrics`.
pub fn anomaly(name: &str) -> Result<Metric, ShrinkError> {
    Metric::named(name).ok_or_else(|| ShrinkError::UnknownCounter(name.to_string()))
}

/// Shrinks `scenario` while its run still ends with `counter` above 0 in
/// some group, in at most `max_runs` runs (at least [`SHRINK_RUNS_MIN`]:
/// the original's and the check of the result), asking `go_on` before
/// each run and every [`SHRINK_ASK_EVERY_TICKS`] ticks of one whether to
/// go on (a run it stops counts as not showing). The original's run and
/// the check of the result are not asked: without them there is nothing
/// to return.
pub fn shrink(
    scenario: &Scenario,
    counter: Metric,
    max_runs: u32,
    go_on: impl FnMut() -> bool,
) -> Result<ShrinkReport, ShrinkError> {
    scenario.validate().map_err(ShrinkError::Scenario)?;
    let mut search =
        Search { counter, runs: 0, max_runs: max_runs.max(SHRINK_RUNS_MIN), go_on, stopped: None };
    let value_before = search.value_of(scenario)?;
    if value_before == 0 {
        return Err(ShrinkError::NotShown { counter, ticks: scenario.ticks });
    }
    // The guide tells the original's story; its steps and outcome describe
    // inputs the shrink removes. A run reads neither it nor the learner marks.
    let original = Scenario {
        guide: None,
        timeline: scenario
            .timeline
            .iter()
            .map(|t| super::TimedInput { learner: false, ..t.clone() })
            .collect(),
        ..scenario.clone()
    };
    let mut current = original.clone();
    loop {
        let mut changed = search.cut(&mut current);
        changed |= search.remove_inputs(&mut current);
        changed |= search.remove_groups(&mut current);
        for knob in knobs(&current) {
            changed |= search.lower(&mut current, knob);
        }
        if !changed || search.stopped.is_some() {
            break;
        }
    }
    current.name = if scenario.name.ends_with("-shrunk") {
        scenario.name.clone()
    } else if scenario.name.is_empty() {
        "shrunk".to_string()
    } else {
        format!("{}-shrunk", scenario.name)
    };
    current.summary = format!(
        "{} shrunk to {} of its {} inputs and {} of its {} ticks: {} still above 0",
        if scenario.name.is_empty() { "A scenario" } else { scenario.name.as_str() },
        current.timeline.len(),
        scenario.timeline.len(),
        current.ticks,
        scenario.ticks,
        counter.name(),
    );
    current.watch = format!("{} at the end of the run.", counter.label());
    // Every candidate kept was run and showed the counter, and runs are
    // deterministic: this check is the promise kept, not a search step.
    search.runs += 1;
    let value_after = match current.run(None, None) {
        Ok(sim) => value(counter, &sim),
        Err(_) => 0,
    };
    let (current, value_after) =
        if value_after > 0 { (current, value_after) } else { (original, value_before) };
    Ok(ShrinkReport {
        inputs_before: scenario.timeline.len(),
        inputs_after: current.timeline.len(),
        ticks_before: scenario.ticks,
        ticks_after: current.ticks,
        scenario: current,
        counter,
        value_before,
        value_after,
        runs_tried: search.runs,
        stopped: search.stopped,
    })
}

/// The counter at the end of a run: the highest of the groups' values.
fn value(counter: Metric, sim: &Sim) -> u64 {
    (0..sim.group_count()).map(|g| counter.of(sim, g)).max().unwrap_or(0)
}

/// The search's state: what it looks for and what it has spent.
struct Search<F> {
    counter: Metric,
    runs: u32,
    max_runs: u32,
    go_on: F,
    stopped: Option<ShrinkLimit>,
}

impl<F: FnMut() -> bool> Search<F> {
    /// The counter at the end of `scenario`'s run, run whole (the original's).
    fn value_of(&mut self, scenario: &Scenario) -> Result<u64, ShrinkError> {
        self.runs += 1;
        let sim = scenario.run(None, None).map_err(ShrinkError::Scenario)?;
        Ok(value(self.counter, &sim))
    }

    /// Whether a candidate may run: one run stays for the check of the result.
    fn may_run(&mut self) -> bool {
        if self.stopped.is_some() {
            return false;
        }
        if self.runs.saturating_add(1) >= self.max_runs {
            self.stopped = Some(ShrinkLimit::Runs);
            return false;
        }
        if !(self.go_on)() {
            self.stopped = Some(ShrinkLimit::Caller);
            return false;
        }
        true
    }

    /// Runs `candidate` as `offsetlab run` does, handing the simulation to
    /// `watch` after every tick (which may end the run); asks the caller
    /// whether to go on every [`SHRINK_ASK_EVERY_TICKS`] ticks. `None` when
    /// it did not run (invalid, or the budget is spent), was refused, or
    /// was stopped by the caller.
    fn run(&mut self, candidate: &Scenario, mut watch: impl FnMut(&Sim) -> ControlFlow<()>) -> Option<Sim> {
        if candidate.validate().is_err() || !self.may_run() {
            return None;
        }
        self.runs += 1;
        let go_on = &mut self.go_on;
        let mut interrupted = false;
        let sim = candidate.run_watched(
            None,
            None,
            |_| {},
            |sim| {
                if sim.now() % SHRINK_ASK_EVERY_TICKS == 0 && !go_on() {
                    interrupted = true;
                    return ControlFlow::Break(());
                }
                watch(sim)
            },
        );
        if interrupted {
            self.stopped = Some(ShrinkLimit::Caller);
            return None;
        }
        sim.ok()
    }

    /// Whether `candidate`'s run ends with the counter above 0.
    fn shows(&mut self, candidate: &Scenario) -> bool {
        self.run(candidate, |_| ControlFlow::Continue(())).is_some_and(|sim| value(self.counter, &sim) > 0)
    }

    /// Ends the run at the first tick after which the counter is above 0,
    /// without the inputs of later ticks: a run of that many ticks ends in
    /// the very state the watched run was in then (the inputs before it are
    /// the same), whatever the counter does later.
    fn cut(&mut self, current: &mut Scenario) -> bool {
        let counter = self.counter;
        let mut first = None;
        self.run(current, |sim| {
            if value(counter, sim) > 0 {
                first = Some(sim.now());
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        let Some(ticks) = first.filter(|&t| t < current.ticks) else { return false };
        let candidate = Scenario {
            ticks,
            timeline: current.timeline.iter().filter(|t| t.tick < ticks).cloned().collect(),
            ..current.clone()
        };
        self.keep_if_shown(current, candidate)
    }

    fn keep_if_shown(&mut self, current: &mut Scenario, candidate: Scenario) -> bool {
        let shown = self.shows(&candidate);
        if shown {
            *current = candidate;
        }
        shown
    }

    /// ddmin's complements: removes chunks of the timeline, `n` of them
    /// covering it, `n` from 2 doubling up to one input a chunk; after a
    /// removal it goes on with the chunks that remain, one chunk fewer.
    fn remove_inputs(&mut self, current: &mut Scenario) -> bool {
        let mut changed = false;
        let mut n: usize = 2;
        while !current.timeline.is_empty() && self.stopped.is_none() {
            let len = current.timeline.len();
            n = n.min(len);
            let size = len.div_ceil(n);
            let mut removed = false;
            let mut start = 0;
            while start < current.timeline.len() && self.stopped.is_none() {
                let end = (start + size).min(current.timeline.len());
                let mut candidate = current.clone();
                candidate.timeline.drain(start..end);
                if self.keep_if_shown(current, candidate) {
                    removed = true;
                } else {
                    start = end;
                }
            }
            changed |= removed;
            if removed {
                n = n.saturating_sub(1).max(2);
            } else if n >= len {
                break;
            } else {
                n = n.saturating_mul(2).min(len);
            }
        }
        changed
    }

    /// Removes whole consumer groups while more than one is left (inputs
    /// naming a removed group are refused, so such a candidate does not show it).
    fn remove_groups(&mut self, current: &mut Scenario) -> bool {
        let mut changed = false;
        for g in (0..current.config.groups.len()).rev() {
            if current.config.groups.len() < 2 || self.stopped.is_some() {
                break;
            }
            let mut candidate = current.clone();
            candidate.config.groups.remove(g);
            changed |= self.keep_if_shown(current, candidate);
        }
        changed
    }

    /// Lowers one number: its least value first, then halving the distance
    /// between the highest value that did not show the counter and the
    /// lowest that did.
    fn lower(&mut self, current: &mut Scenario, knob: Knob) -> bool {
        let Some((value, least)) = knob.get(current) else { return false };
        if value <= least || self.stopped.is_some() {
            return false;
        }
        let with = |base: &Scenario, v: u64| {
            let mut candidate = base.clone();
            knob.set(&mut candidate, v);
            candidate
        };
        if self.keep_if_shown(current, with(current, least)) {
            return true;
        }
        let (mut missing, mut shown) = (least, value);
        let mut changed = false;
        while shown - missing > 1 && self.stopped.is_none() {
            let mid = missing + (shown - missing) / 2;
            if self.keep_if_shown(current, with(current, mid)) {
                shown = mid;
                changed = true;
            } else {
                missing = mid;
            }
        }
        changed
    }
}

/// A number the shrinker lowers.
#[derive(Debug, Clone, Copy)]
enum Knob {
    /// Timeline input `i`'s count or rate ([`amount`]).
    Amount(usize),
    /// Timeline input `i`'s tick: it and the inputs after it move earlier
    /// together, down to the input before it, and the run ends as much earlier.
    Tick(usize),
    Partitions,
    KeyCount,
    SendPerTick,
    /// Group `g`'s members at tick 0.
    Consumers(usize),
    RecordsPerPoll(usize),
    HandlePerTick(usize),
}

/// The numbers of `s` to lower, in order: the inputs' amounts, the
/// config's, then the inputs' ticks.
fn knobs(s: &Scenario) -> Vec<Knob> {
    let inputs = 0..s.timeline.len();
    let groups = 0..s.config.groups.len();
    inputs
        .clone()
        .map(Knob::Amount)
        .chain([Knob::Partitions, Knob::KeyCount, Knob::SendPerTick])
        .chain(groups.flat_map(|g| [Knob::Consumers(g), Knob::RecordsPerPoll(g), Knob::HandlePerTick(g)]))
        .chain(inputs.map(Knob::Tick))
        .collect()
}

/// `v` (at most the field's value now) as the field's type.
fn narrow<T: TryFrom<u64>>(v: u64, now: T) -> T {
    T::try_from(v).unwrap_or(now)
}

impl Knob {
    /// Its value in `s` and the least value to try; `None` where `s` has no such number.
    fn get(self, s: &Scenario) -> Option<(u64, u64)> {
        let c = &s.config;
        match self {
            Knob::Amount(i) => amount(&s.timeline.get(i)?.input),
            Knob::Tick(i) => {
                let before = i.checked_sub(1).and_then(|b| s.timeline.get(b)).map_or(0, |t| t.tick);
                Some((s.timeline.get(i)?.tick, before))
            }
            Knob::Partitions => Some((u64::from(c.partitions), 1)),
            Knob::KeyCount => Some((u64::from(c.producer.key_count), 1)),
            // 0 is no sending: another scenario, not a slower one.
            Knob::SendPerTick => Some((u64::from(c.producer.send_per_tick), 1)),
            Knob::Consumers(g) => Some((u64::from(c.groups.get(g)?.consumers), 0)),
            Knob::RecordsPerPoll(g) => Some((u64::from(c.groups.get(g)?.records_per_poll), 1)),
            Knob::HandlePerTick(g) => Some((u64::from(c.groups.get(g)?.handle_per_tick), 1)),
        }
    }

    /// Sets it to `v`, between the least value and the value now.
    fn set(self, s: &mut Scenario, v: u64) {
        let c = &mut s.config;
        match self {
            Knob::Amount(i) => {
                if let Some(t) = s.timeline.get_mut(i) {
                    set_amount(&mut t.input, v);
                }
            }
            Knob::Tick(i) => {
                let Some(earlier) = s.timeline.get(i).map(|t| t.tick.saturating_sub(v)) else { return };
                for t in s.timeline.iter_mut().skip(i) {
                    t.tick = t.tick.saturating_sub(earlier);
                }
                s.ticks = s.ticks.saturating_sub(earlier);
            }
            Knob::Partitions => c.partitions = narrow(v, c.partitions),
            Knob::KeyCount => c.producer.key_count = narrow(v, c.producer.key_count),
            Knob::SendPerTick => c.producer.send_per_tick = narrow(v, c.producer.send_per_tick),
            Knob::Consumers(g) => {
                if let Some(group) = c.groups.get_mut(g) {
                    group.consumers = narrow(v, group.consumers);
                }
            }
            Knob::RecordsPerPoll(g) => {
                if let Some(group) = c.groups.get_mut(g) {
                    group.records_per_poll = narrow(v, group.records_per_poll);
                }
            }
            Knob::HandlePerTick(g) => {
                if let Some(group) = c.groups.get_mut(g) {
                    group.handle_per_tick = narrow(v, group.handle_per_tick);
                }
            }
        }
    }
}

/// An input's count or rate and the least value to try: 1 where 0 would
/// make it another input (no sending, no hot key, a follower that stops).
fn amount(input: &Input) -> Option<(u64, u64)> {
    match *input {
        Input::Send { count } | Input::AddPartitions { count } => Some((u64::from(count), 1)),
        Input::KeepSending { per_tick } => Some((u64::from(per_tick), 1)),
        Input::KeyCount { keys } => Some((u64::from(keys), 1)),
        Input::HotKey { share_percent } => Some((u64::from(share_percent), 1)),
        Input::RecordsPerPoll { records, .. } | Input::HandlePerTick { records, .. } => {
            Some((u64::from(records), 1))
        }
        Input::Stall { ticks, .. } => Some((ticks, 1)),
        Input::SlowFollower { fetch_per_tick, .. } => Some((fetch_per_tick, 1)),
        Input::SendFailing { failures, .. } => Some((u64::from(failures), 1)),
        // Names, switches, modes and places: nothing to lower. (A checkpoint's
        // offset is a place in the log, not an amount.)
        Input::SendPoison {}
        | Input::FixHandler { .. }
        | Input::ReplayDeadLetters { .. }
        | Input::ErrorPolicy { .. }
        | Input::UseKeys { .. }
        | Input::Pause { .. }
        | Input::Resume { .. }
        | Input::Crash { .. }
        | Input::Stop { .. }
        | Input::Start { .. }
        | Input::AddConsumer { .. }
        | Input::RemoveConsumer { .. }
        | Input::Commit { .. }
        | Input::Idempotent { .. }
        | Input::ResetOffsets { .. }
        | Input::RestartFrom { .. }
        | Input::PositionStore { .. }
        | Input::Peek { .. }
        | Input::LoadCheckpoint { .. }
        | Input::KillBeforeCommit { .. }
        | Input::RollingUpdate { .. }
        | Input::DuplicateInstance { .. }
        | Input::CrashBroker { .. }
        | Input::RestartBroker { .. }
        | Input::LoseNextAck { .. }
        | Input::LoseNextRequest { .. }
        | Input::Assignor { .. } => None,
    }
}

/// Sets the amount [`amount`] reads.
fn set_amount(input: &mut Input, v: u64) {
    match input {
        Input::Send { count } | Input::AddPartitions { count } => *count = narrow(v, *count),
        Input::KeepSending { per_tick } => *per_tick = narrow(v, *per_tick),
        Input::KeyCount { keys } => *keys = narrow(v, *keys),
        Input::HotKey { share_percent } => *share_percent = narrow(v, *share_percent),
        Input::RecordsPerPoll { records, .. } | Input::HandlePerTick { records, .. } => {
            *records = narrow(v, *records);
        }
        Input::Stall { ticks, .. } => *ticks = v,
        Input::SlowFollower { fetch_per_tick, .. } => *fetch_per_tick = v,
        Input::SendFailing { failures, .. } => *failures = narrow(v, *failures),
        _ => {}
    }
}
