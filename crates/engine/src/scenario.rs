//! Scenarios: a config plus a timeline of inputs at ticks, their validation
//! and headless runs. The built-in ones ship in `scenarios/`, embedded as
//! they are ([`BUILTINS`]).
//!
//! The JSON is serde's (derived `Serialize` and `Deserialize`), read and
//! written by `crate::codec` (`Scenario::parse`, `Scenario::to_json`, the
//! built-ins by name, with the same reader as user files), which adds field
//! paths (serde_json gives the line and column) and bounds the nesting and
//! the number of values.

use crate::config::{Config, ConfigError};
use crate::guide::Guide;
use crate::input::Input;
use crate::limits::{SCENARIO_TICKS_MAX, TIMELINE_INPUTS_MAX};
use crate::sim::Sim;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::ControlFlow;

pub(crate) mod shrink;

/// `ticks` when a scenario's JSON leaves it out.
pub(crate) const TICKS_DEFAULT: u64 = 100;

fn ticks_default() -> u64 {
    TICKS_DEFAULT
}

/// A runnable setup: the same JSON `offsetlab run --scenario FILE.json` reads.
/// In JSON only `name` is required: the rest have defaults (`config` field by
/// field from `Config::default()`, `ticks` 100), and unknown fields are refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// One line: what it shows.
    #[serde(default)]
    pub summary: String,
    /// What to watch while it runs.
    #[serde(default)]
    pub watch: String,
    #[serde(default)]
    pub config: Config,
    /// How many ticks `run` advances.
    #[serde(default = "ticks_default")]
    pub ticks: u64,
    #[serde(default)]
    pub timeline: Vec<TimedInput>,
    /// Built-in scenarios are guided experiments: story, steps, outcome check.
    /// Left out of the JSON when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guide: Option<Guide>,
}

/// An input applied when the clock reads `tick` (before the step to `tick + 1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct TimedInput {
    pub tick: u64,
    pub input: Input,
    /// One of the guide's steps: a guided run leaves it to the learner. In
    /// JSON, `"learner": true`, absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub learner: bool,
}

/// What is wrong with a scenario; every variant names the place.
#[derive(Clone, PartialEq, Eq)]
pub enum ScenarioError {
    /// JSON syntax or shape: the field path, the message, and where.
    Json {
        path: String,
        message: String,
        line: usize,
        column: usize,
    },
    Config(ConfigError),
    Invalid {
        field: String,
        message: String,
    },
    /// A timeline input the simulation refused when its tick came.
    Refused {
        index: usize,
        tick: u64,
        message: String,
    },
    UnknownBuiltin(String),
    /// A built-in this build does not carry, not given yet
    /// ([`crate::provide_builtins`]): the page before its fetch has arrived.
    BuiltinNotLoaded(String),
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Json { path, message, line, column } => {
                if path.is_empty() || path == "." {
                    write!(f, "{message} (line {line}, column {column})")
                } else {
                    write!(f, "{path}: {message} (line {line}, column {column})")
                }
            }
            ScenarioError::Config(e) => write!(f, "{e}"),
            ScenarioError::Invalid { field, message } => write!(f, "{field}: {message}"),
            ScenarioError::Refused { index, tick, message } => {
                write!(f, "timeline[{index}] (tick {tick}): refused: {message}")
            }
            ScenarioError::UnknownBuiltin(name) => {
                write!(
                    f,
                    "no built-in scenario named {}; the built-ins are {}",
                    crate::quote::quoted(name),
                    builtin_names().collect::<Vec<_>>().join(", ")
                )
            }
            ScenarioError::BuiltinNotLoaded(name) => {
                write!(f, "the built-in scenario {} has not loaded yet", crate::quote::quoted(name))
            }
        }
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// Checks the config and the timeline's shape (not yet whether each input
    /// will be accepted: that depends on the state when its tick comes).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.config.validate().map_err(ScenarioError::Config)?;
        if self.ticks > SCENARIO_TICKS_MAX {
            return Err(ScenarioError::Invalid {
                field: "ticks".into(),
                message: format!("must be at most {SCENARIO_TICKS_MAX}, got {}", self.ticks),
            });
        }
        if self.timeline.len() > TIMELINE_INPUTS_MAX {
            return Err(ScenarioError::Invalid {
                field: "timeline".into(),
                message: format!("at most {TIMELINE_INPUTS_MAX} inputs, got {}", self.timeline.len()),
            });
        }
        for (i, pair) in self.timeline.windows(2).enumerate() {
            if pair[1].tick < pair[0].tick {
                return Err(ScenarioError::Invalid {
                    field: format!("timeline[{}].tick", i + 1),
                    message: format!("ticks must not decrease: {} after {}", pair[1].tick, pair[0].tick),
                });
            }
        }
        if let Some((i, late)) = self.timeline.iter().enumerate().find(|(_, t)| t.tick >= self.ticks) {
            return Err(ScenarioError::Invalid {
                field: format!("timeline[{i}].tick"),
                message: format!(
                    "tick {} is not before the scenario's end at tick {}",
                    late.tick, self.ticks
                ),
            });
        }
        if let Some(guide) = &self.guide {
            guide.validate().map_err(|(field, message)| ScenarioError::Invalid { field, message })?;
            let named = |name: &str| self.config.groups.iter().any(|g| g.name == name);
            let unknown =
                guide.outcome.when.iter().position(|c| c.group.as_deref().is_some_and(|g| !named(g)));
            if let Some(i) = unknown {
                return Err(ScenarioError::Invalid {
                    field: format!("guide.outcome.when[{i}].group"),
                    message: "names no group in config.groups".into(),
                });
            }
        }
        let has_steps = self.guide.as_ref().is_some_and(|g| !g.steps.is_empty());
        if let Some(i) = self.timeline.iter().position(|t| t.learner).filter(|_| !has_steps) {
            return Err(ScenarioError::Invalid {
                field: format!("timeline[{i}].learner"),
                message: "a learner input needs a guide with steps".into(),
            });
        }
        Ok(())
    }

    /// The guided run: the same scenario without the inputs the learner does by hand.
    #[must_use]
    pub fn guided(&self) -> Scenario {
        Scenario { timeline: self.timeline.iter().filter(|t| !t.learner).cloned().collect(), ..self.clone() }
    }

    /// Runs the scenario: `seed` and `ticks` override the file's. Inputs past
    /// a shorter `ticks` are not reached.
    pub fn run(&self, seed: Option<u64>, ticks: Option<u64>) -> Result<Sim, ScenarioError> {
        // A headless run reads no events; dropping them keeps the queue from filling.
        self.run_observed(seed, ticks, |_| {})
    }

    /// [`Scenario::run`], handing every event to `on_event` in the order the
    /// simulation emitted it (what `offsetlab run --events` prints, and what the
    /// conformance harness replays against a real Kafka).
    pub fn run_observed(
        &self,
        seed: Option<u64>,
        ticks: Option<u64>,
        on_event: impl FnMut(crate::Event),
    ) -> Result<Sim, ScenarioError> {
        self.run_watched(seed, ticks, on_event, |_| ControlFlow::Continue(()))
    }

    /// [`Scenario::run_observed`], showing the simulation to `after_tick`
    /// after every tick, which may end the run there: the shrinker watches a
    /// counter through the very run `run` makes, and stops a run when its
    /// caller's time is up. A run ended after tick `t` is where a run of `t`
    /// ticks ends (the inputs of later ticks are not reached either way).
    pub(crate) fn run_watched(
        &self,
        seed: Option<u64>,
        ticks: Option<u64>,
        mut on_event: impl FnMut(crate::Event),
        mut after_tick: impl FnMut(&Sim) -> ControlFlow<()>,
    ) -> Result<Sim, ScenarioError> {
        let mut config = self.config.clone();
        if let Some(seed) = seed {
            config.seed = seed;
        }
        let ticks = ticks.unwrap_or(self.ticks);
        if ticks > SCENARIO_TICKS_MAX {
            return Err(ScenarioError::Invalid {
                field: "ticks".into(),
                message: format!("must be at most {SCENARIO_TICKS_MAX}, got {ticks}"),
            });
        }
        let mut sim = Sim::new(config).map_err(ScenarioError::Config)?;
        let mut next = 0;
        for tick in 0..ticks {
            while let Some(timed) = self.timeline.get(next).filter(|t| t.tick == tick) {
                sim.handle_input(timed.input.clone()).map_err(|e| ScenarioError::Refused {
                    index: next,
                    tick,
                    message: e.to_string(),
                })?;
                next += 1;
            }
            // Inputs emit events too (a send's records, a crash): read them before the tick's.
            while let Some(event) = sim.poll_event() {
                on_event(event);
            }
            sim.handle_tick(tick + 1);
            while let Some(event) = sim.poll_event() {
                on_event(event);
            }
            if after_tick(&sim).is_break() {
                break;
            }
        }
        Ok(sim)
    }
}

/// For each name, in the order given: [`BUILTIN_NAMES`], and [`BUILTINS`] with
/// `scenarios/NAME.json` embedded (with the `builtin-texts` feature).
macro_rules! builtins {
    ($($(#[$attr:meta])* $name:literal),* $(,)?) => {
        /// The built-in scenarios' names, in listing order (`offsetlab run --list`,
        /// the page's experiments).
        pub const BUILTIN_NAMES: &[&str] = &[$($(#[$attr])* $name),*];

        /// The built-in scenarios, by name, as shipped JSON, in listing order.
        /// The tests check that every file in `scenarios/` is listed and reads back.
        #[cfg(feature = "builtin-texts")]
        pub const BUILTINS: &[(&str, &str)] =
            &[$($(#[$attr])* ($name, include_str!(concat!("../scenarios/", $name, ".json")))),*];
    };
}

/// The built-in scenarios this build carries: only the starting point, whose
/// first render cannot wait; the others are given at run time
/// ([`crate::provide_builtins`]).
#[cfg(not(feature = "builtin-texts"))]
pub const BUILTINS: &[(&str, &str)] = &[("default", include_str!("../scenarios/default.json"))];

builtins![
    "default",
    "keys-keep-order",
    "no-keys-reorder",
    "spare-consumers",
    "crash-commit-after",
    "crash-commit-before",
    "idempotent-absorbs-duplicates",
    "busy-group",
    "consumer-checkpoint",
    "torn-checkpoint",
    "atomic-checkpoint",
    "key-erasure-bridge",
    "partition-for-null",
    "payout-ledger",
    "payout-double-payout",
    "hot-account",
    "partition-growth",
    "rolling-update",
    "commit-each-record",
    "commit-each-batch",
    "commit-on-timer",
    "scale-out-eager",
    "scale-out-cooperative",
    "two-groups",
    "consumer-protocol-scale-out",
    "static-rolling-update",
    "share-group-busy",
    "share-poison-record",
    "share-lock-timeout",
    "slow-handler-poll-timeout",
    "rebalance-storm",
    "zombie-commit-refused",
    "kip848-stalled-member-fenced",
    "new-group-latest-skips",
    "offsets-expired",
    "auto-commit-on-rebalance",
    "partitions-added-latest-skips",
    "poison-blocks-partition",
    "poison-skipped",
    "poison-dead-lettered",
    "retry-topic-reorders",
    "dead-letter-replay-idempotent",
    "dead-letter-replay-not-idempotent",
    "share-dlq",
    #[cfg(feature = "cluster")]
    "acks1-leader-crash",
    #[cfg(feature = "cluster")]
    "acks-all-survives",
    #[cfg(feature = "cluster")]
    "retry-without-idempotence",
    #[cfg(feature = "cluster")]
    "idempotent-producer",
    #[cfg(feature = "cluster")]
    "inflight-reorders",
    #[cfg(feature = "cluster")]
    "unclean-election",
    #[cfg(feature = "transactions")]
    "eos-read-process-write",
    #[cfg(feature = "transactions")]
    "eos-read-uncommitted",
    #[cfg(feature = "transactions")]
    "eos-zombie-fenced",
    #[cfg(feature = "transactions")]
    "eos-external-effect",
];

/// The built-ins' names, in listing order.
fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN_NAMES.iter().copied()
}

/// `Debug` is the message: an `expect` or a failed test shows the sentence,
/// and the page carries no derived formatting for the error's strings.
impl std::fmt::Debug for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
