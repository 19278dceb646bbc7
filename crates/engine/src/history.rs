//! Time travel: a simulation together with its past.
//!
//! The simulation is deterministic, so its state at any tick is a function of
//! the scenario, the seed and the inputs applied so far. [`History`] keeps
//! those inputs (the journal) and a bounded set of snapshots, and shows any
//! past tick again by restoring the nearest snapshot at or before it and
//! replaying the ticks in between. Snapshots are cheap because the logs are
//! shared copy-on-write between them (see `log::Chunks`).

use crate::event::{Event, Tick};
use crate::input::{Input, InputError};
use crate::limits::{SCENARIO_TICKS_MAX, TIMELINE_INPUTS_MAX};
use crate::scenario::{Scenario, ScenarioError, TimedInput};
use crate::sim::Sim;

/// A snapshot is taken whenever the simulation reaches a multiple of this tick.
pub const SNAPSHOT_INTERVAL_TICKS: u64 = 64;
/// Snapshots kept. Past this, every other one of the older half is dropped:
/// recent ticks stay close to a snapshot, old ones get further apart.
pub const SNAPSHOTS_MAX: usize = 256;
/// Partition tail chunks the snapshots may hold between them. A snapshot
/// shares every full chunk with the live logs, but the chunk each partition
/// is still filling is copied the next time the live log writes it, so each
/// snapshot keeps one chunk of records, and of marks per group, per partition
/// of its own (about 14 KiB a partition with one group). With 12 partitions
/// 256 snapshots held 43 MiB that way, with 256 partitions almost 1 GiB: the
/// count of snapshots shrinks as partitions grow, keeping this near 14 MiB.
pub const SNAPSHOT_TAIL_CHUNKS_MAX: usize = 1_024;
/// Snapshots kept however many partitions (then the tail chunks may reach 16 × 256).
pub const SNAPSHOTS_MIN: usize = 16;

/// Snapshots kept with `partitions` partitions.
#[must_use]
pub fn snapshots_max(partitions: u32) -> usize {
    let partitions = usize::try_from(partitions.max(1)).expect("u32 fits usize");
    (SNAPSHOT_TAIL_CHUNKS_MAX / partitions).clamp(SNAPSHOTS_MIN, SNAPSHOTS_MAX)
}

/// One input the user applied, and the tick it was applied at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    pub tick: Tick,
    pub input: Input,
}

impl From<(Tick, Input)> for JournalEntry {
    /// A link's `(tick, input)` pair.
    fn from((tick, input): (Tick, Input)) -> Self {
        JournalEntry { tick, input }
    }
}

#[derive(Debug, Clone)]
struct Snapshot {
    sim: Sim,
}

/// Why a recorded run could not be replayed.
#[derive(Clone, PartialEq, Eq)]
pub enum ReplayError {
    Scenario(ScenarioError),
    /// The journal's entry `index` was refused when its tick came.
    Refused {
        index: usize,
        tick: Tick,
        message: String,
    },
    /// The journal is out of order, or an entry is after the tick to reach.
    Order {
        index: usize,
        tick: Tick,
    },
    TooLong {
        field: &'static str,
        message: String,
    },
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Scenario(e) => write!(f, "{e}"),
            ReplayError::Refused { index, tick, message } => {
                write!(f, "input {} (tick {tick}) was refused: {message}", index + 1)
            }
            ReplayError::Order { index, tick } => {
                write!(f, "input {} (tick {tick}) is out of order or past the end", index + 1)
            }
            ReplayError::TooLong { field, message } => write!(f, "{field}: {message}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// A simulation that can be shown at any tick it has reached.
///
/// # Calling contract
///
/// - [`History::new`] starts `scenario` with `seed` at tick 0 (its tick-0
///   inputs applied).
/// - [`History::step`] moves one tick forward: along the recorded future when
///   the tick shown is in the past, otherwise the simulation runs a new tick.
///   At [`SCENARIO_TICKS_MAX`] it refuses (returns `false`; see [`History::can_step`]).
/// - [`History::handle_input`] applies an input at the tick shown. In the
///   past, it first forks: the recorded future (inputs and ticks after now)
///   is discarded.
/// - [`History::seek`] shows any tick from 0 to [`History::head`], the
///   furthest tick reached; [`History::sim`] is the simulation at that tick.
/// - [`History::poll_event`] drains the events of steps and inputs; a seek
///   replays silently and discards the events of the ticks it replays.
///
/// The state at tick `t` is the state after the step to `t` and after every
/// input at `t` (the scenario's timeline first, then the journal, in order).
#[derive(Debug, Clone)]
pub struct History {
    scenario: Scenario,
    seed: u64,
    journal: Vec<JournalEntry>,
    /// In tick order; the first is always tick 0.
    snapshots: Vec<Snapshot>,
    sim: Sim,
    head: Tick,
    /// The scenario's timeline inputs refused so far, as messages (a deterministic
    /// replay refuses the same ones); the newest is kept.
    refusal: Option<String>,
}

impl History {
    /// `scenario` with `seed` (replacing the scenario's own) at tick 0.
    pub fn new(scenario: Scenario, seed: u64) -> Result<History, ScenarioError> {
        scenario.validate()?;
        let mut config = scenario.config.clone();
        config.seed = seed;
        let sim = Sim::new(config).map_err(ScenarioError::Config)?;
        let mut history = History {
            scenario,
            seed,
            journal: Vec::new(),
            snapshots: Vec::new(),
            sim,
            head: 0,
            refusal: None,
        };
        history.apply_inputs_at_now();
        history.snapshots.push(Snapshot { sim: history.sim.clone() });
        Ok(history)
    }

    /// Replays a recorded run: `scenario` with `seed`, the journal's inputs at
    /// their ticks, up to `tick`. Every input must be accepted again.
    pub fn replay(
        scenario: Scenario,
        seed: u64,
        journal: Vec<JournalEntry>,
        tick: Tick,
    ) -> Result<History, ReplayError> {
        if tick > SCENARIO_TICKS_MAX {
            return Err(ReplayError::TooLong {
                field: "tick",
                message: format!("must be at most {SCENARIO_TICKS_MAX}, got {tick}"),
            });
        }
        if journal.len() > TIMELINE_INPUTS_MAX {
            return Err(ReplayError::TooLong {
                field: "inputs",
                message: format!("at most {TIMELINE_INPUTS_MAX}, got {}", journal.len()),
            });
        }
        let mut previous = 0;
        for (index, entry) in journal.iter().enumerate() {
            if entry.tick < previous || entry.tick > tick {
                return Err(ReplayError::Order { index, tick: entry.tick });
            }
            previous = entry.tick;
        }
        let mut history = History::new(scenario, seed).map_err(ReplayError::Scenario)?;
        let mut next = 0;
        loop {
            while let Some(entry) = journal.get(next).filter(|e| e.tick == history.now()) {
                history.handle_input(entry.input.clone()).map_err(|e| ReplayError::Refused {
                    index: next,
                    tick: entry.tick,
                    message: e.to_string(),
                })?;
                next += 1;
            }
            if history.now() == tick {
                break;
            }
            // `tick` is at most SCENARIO_TICKS_MAX (checked above): every step here is taken.
            let stepped = history.step();
            debug_assert!(stepped, "a replay stops at its tick, within the limit");
            // Nobody reads a replay's events; keep the queue from filling.
            while history.poll_event().is_some() {}
        }
        while history.poll_event().is_some() {}
        assert_eq!(next, journal.len(), "every entry is at or before the tick reached");
        Ok(history)
    }

    /// The simulation at the tick shown.
    #[must_use]
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The tick shown.
    #[must_use]
    pub fn now(&self) -> Tick {
        self.sim.now()
    }

    /// The furthest tick reached: the end of the recorded timeline.
    #[must_use]
    pub fn head(&self) -> Tick {
        self.head
    }

    #[must_use]
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The inputs applied by hand, in order, up to the head.
    #[must_use]
    pub fn journal(&self) -> &[JournalEntry] {
        &self.journal
    }

    /// The newest refusal of one of the scenario's own inputs, if any.
    #[must_use]
    pub fn refusal(&self) -> Option<&str> {
        self.refusal.as_deref()
    }

    /// The run so far as a scenario the `offsetlab` command reads: the scenario
    /// with this seed, the journal merged into its timeline (after the
    /// scenario's own inputs at the same tick, the order they applied in), and
    /// at least enough ticks to reach the head.
    #[must_use]
    pub fn to_scenario(&self) -> Scenario {
        let mut scenario = self.scenario.clone();
        scenario.config.seed = self.seed;
        let mut timeline = Vec::with_capacity(scenario.timeline.len() + self.journal.len());
        let mut journal = self.journal.iter().peekable();
        for timed in std::mem::take(&mut scenario.timeline) {
            while let Some(entry) = journal.next_if(|e| e.tick < timed.tick) {
                timeline.push(TimedInput { tick: entry.tick, input: entry.input.clone(), learner: false });
            }
            timeline.push(timed);
        }
        timeline.extend(journal.map(|e| TimedInput { tick: e.tick, input: e.input.clone(), learner: false }));
        scenario.timeline = timeline;
        scenario.ticks = scenario.ticks.max(self.head + 1);
        scenario
    }

    /// Snapshots held (for tests and the page's diagnostics).
    #[must_use]
    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.sim.poll_event()
    }

    /// Whether [`History::step`] can move on: a run ends at [`SCENARIO_TICKS_MAX`]
    /// (a link may show that tick), and the page disables its clock there.
    #[must_use]
    pub fn can_step(&self) -> bool {
        self.now() < SCENARIO_TICKS_MAX
    }

    /// One tick forward: the recorded future when in the past, a new tick at
    /// the head. Returns whether it stepped: at [`SCENARIO_TICKS_MAX`] it does
    /// nothing and returns `false`.
    pub fn step(&mut self) -> bool {
        if !self.can_step() {
            return false;
        }
        let next = self.now() + 1;
        self.sim.handle_tick(next);
        self.apply_inputs_at_now();
        if next > self.head {
            self.head = next;
            if next % SNAPSHOT_INTERVAL_TICKS == 0 {
                self.take_snapshot();
            }
        }
        true
    }

    /// Applies `input` at the tick shown; in the past, forks first. A refused
    /// input changes nothing (not even the recorded future).
    pub fn handle_input(&mut self, input: Input) -> Result<(), InputError> {
        if self.journal.len() >= TIMELINE_INPUTS_MAX {
            return Err(InputError::OutOfRange {
                field: "inputs",
                message: format!("a run holds at most {TIMELINE_INPUTS_MAX} inputs; start again"),
            });
        }
        self.sim.handle_input(input.clone())?;
        let now = self.now();
        if now < self.head {
            self.fork();
        }
        self.journal.push(JournalEntry { tick: now, input });
        // A snapshot at this tick was taken before the input: it must hold the state after it.
        if let Some(last) = self.snapshots.last_mut().filter(|s| s.sim.now() == now) {
            last.sim = self.sim.clone();
        }
        Ok(())
    }

    /// Discards everything recorded after the tick shown.
    fn fork(&mut self) {
        let now = self.now();
        self.journal.truncate(self.journal.partition_point(|e| e.tick <= now));
        self.snapshots.truncate(self.snapshots.partition_point(|s| s.sim.now() <= now));
        self.head = now;
        self.check();
    }

    /// Shows `tick` (clamped to the head); returns the tick shown.
    pub fn seek(&mut self, tick: Tick) -> Tick {
        let target = tick.min(self.head);
        if target == self.now() {
            return target;
        }
        let index = self.snapshots.partition_point(|s| s.sim.now() <= target);
        assert!(index > 0, "the tick-0 snapshot precedes every tick");
        let nearest = &self.snapshots[index - 1];
        // Replay from here when that is closer than the snapshot.
        if !(self.now() < target && self.now() >= nearest.sim.now()) {
            self.sim = nearest.sim.clone();
        }
        while self.now() < target {
            let next = self.now() + 1;
            self.sim.handle_tick(next);
            self.apply_inputs_at_now();
        }
        while self.sim.poll_event().is_some() {}
        assert_eq!(self.now(), target);
        target
    }

    /// The scenario's inputs at the tick shown, then the journal's.
    fn apply_inputs_at_now(&mut self) {
        let now = self.now();
        let timeline = &self.scenario.timeline;
        let from = timeline.partition_point(|t| t.tick < now);
        for (index, timed) in timeline.iter().enumerate().skip(from).take_while(|(_, t)| t.tick == now) {
            if let Err(e) = self.sim.handle_input(timed.input.clone()) {
                self.refusal =
                    Some(format!("the scenario's input {} at tick {now} was refused: {e}", index + 1));
            }
        }
        if now <= self.head {
            let from = self.journal.partition_point(|e| e.tick < now);
            for entry in self.journal[from..].iter().take_while(|e| e.tick == now) {
                let accepted = self.sim.handle_input(entry.input.clone());
                assert!(accepted.is_ok(), "a recorded input is accepted again on replay: {accepted:?}");
            }
        }
    }

    fn take_snapshot(&mut self) {
        // More than once only when the topic grew: fewer snapshots fit its partitions.
        let max = snapshots_max(self.sim.partition_count());
        while self.snapshots.len() >= max {
            // Thin the older half: drop every other snapshot there, never tick 0
            // (with at least SNAPSHOTS_MIN of them, that drops some).
            let before = self.snapshots.len();
            let half = before / 2;
            let mut index = 0;
            self.snapshots.retain(|_| {
                index += 1;
                index > half || index % 2 == 1
            });
            assert!(self.snapshots.len() < before);
        }
        self.snapshots.push(Snapshot { sim: self.sim.clone() });
        assert!(self.snapshots.len() <= max);
        self.check();
    }

    fn check(&self) {
        if !cfg!(debug_assertions) {
            return; // the whole-state sweep: debug builds and tests (ARCHITECTURE.md)
        }
        assert!(self.snapshots.len() <= SNAPSHOTS_MAX);
        assert_eq!(self.snapshots.first().map(|s| s.sim.now()), Some(0), "tick 0 is always kept");
        assert!(self.snapshots.windows(2).all(|w| w[0].sim.now() < w[1].sim.now()));
        assert!(self.snapshots.last().is_some_and(|s| s.sim.now() <= self.head));
        assert!(self.journal.last().is_none_or(|e| e.tick <= self.head));
    }
}

/// `Debug` is the message: an `expect` or a failed test shows the sentence,
/// and the page carries no derived formatting for the error's strings.
impl std::fmt::Debug for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
