//! offsetlab's engine: a deterministic, sans-IO simulation of a partitioned
//! log (topic `orders`), its producer, and a consumer group (`demo`) with
//! the application behind it, following Kafka's rules.
//!
//! Inputs and ticks go in; events, a plain-data [`View`] and the
//! `kafka-consumer-groups --describe` text come out. No clock, no entropy:
//! randomness comes from a PRNG seeded by [`Config::seed`]. See [`Sim`] for
//! the calling contract.

mod assign;
/// Scenario JSON through serde (field paths, positions, bounds) and shareable links.
pub mod codec;
mod config;
mod describe;
mod event;
mod guide;
mod history;
mod input;
mod log;
mod partitioner;
mod rng;
mod scenario;
mod sim;
mod sort;
mod view;

pub use assign::range as range_assignment;
pub use assign::{Assignment, Strategy, TopicPartitions, UnknownStrategy, assign, cooperative_first_round};
pub use codec::{Link, LinkError, LinkScenario};
pub use config::{
    Assignor, CheckpointWrites, CommitMode, Config, ConfigError, PositionModel, ProducerConfig, limits,
};
pub use describe::describe;
pub use event::{Event, PartitionMove, RebalanceReason, Tick, TraceHasher};
pub use guide::{Condition, GUIDE_STEPS_MAX, Guide, Metric, OUTCOME_CONDITIONS_MAX, Outcome, Topic};
pub use history::{History, JournalEntry, ReplayError, SNAPSHOT_INTERVAL_TICKS, SNAPSHOTS_MAX};
pub use input::{ConsumerId, Input, InputError, ResetSpec};
pub use partitioner::{KeylessStrategy, murmur2, partition_for_key, to_positive};
pub use scenario::{
    BUILTINS, CommitCost, SCENARIO_BYTES_MAX, SCENARIO_TICKS_MAX, Scenario, ScenarioError,
    TIMELINE_INPUTS_MAX, TimedInput, builtin, builtins, commit_cost_comparison,
};
pub use sim::{
    CheckpointView, ConsumerStats, FarPartitionView, FarRecordView, Finding, FindingKind, PartitionSplit,
    PeekView, RestartPreview, Sim, SplitCheck, SplitStatus, subject_key,
};
pub use sim::{ExpansionView, HISTORY_SAMPLES_MAX, LagSample, LedgerEntry, payout_cents};
pub use view::{
    ConsumerState, ConsumerView, HandledRecord, InFlightRecord, LoopStep, Metrics, PartitionView,
    ProducerView, RebalanceView, RecordView, SettingsView, View,
};

// The in-crate unit tests run in headless Chromium too (`cargo test --target wasm32-unknown-unknown`).
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
