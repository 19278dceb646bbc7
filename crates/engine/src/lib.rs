//! offsetlab's engine: a deterministic, sans-IO simulation of a partitioned
//! log (topic `orders`), its producer, and one to eight consumer groups with
//! the applications behind them, following Kafka's rules.
//!
//! The parts follow quinn-proto's endpoint/connection split: the broker side
//! (`broker`: the topic's logs, group coordinators, committed offsets), the
//! client side (`client`: the producer and the consumers), the applications
//! (`app`) and the observers fed by what happens (`observe`). They
//! exchange plain values that [`Sim`] routes in a documented order.
//!
//! Inputs and ticks go in; events, a plain-data [`View`] and the
//! `kafka-consumer-groups --describe` text come out. No clock, no entropy:
//! randomness comes from a PRNG seeded by [`Config::seed`]. See [`Sim`] for
//! the calling contract.

mod app;
mod assign;
mod bridge;
mod broker;
mod client;
/// Scenario JSON through serde (field paths, positions, bounds) and shareable links.
pub mod codec;
mod config;
mod delivery;
mod describe;
mod event;
mod evidence;
mod explain;
mod guide;
mod history;
mod input;
mod letters;
pub mod limits;
mod log;
mod observe;
mod order;
mod partitioner;
mod quote;
mod rng;
mod scenario;
mod sim;
mod view;

pub use app::payout_cents;
pub use assign::range as range_assignment;
pub use assign::range_order;
pub use assign::{
    Assignment, Member, ShareMember, Strategy, TargetMember, TopicPartitions, UniformError, UnknownStrategy,
    assign, assign_members, cooperative_first_round, cooperative_first_round_of, simple as simple_assignment,
    uniform as uniform_assignment,
};
pub use bridge::{BridgePartitionView, BridgeRecordView};
pub use broker::payouts::{Fate, PayoutPartitionView, PayoutRecordView};
pub use codec::builtins::{
    CommitCost, builtin, builtins, builtins_loaded, commit_cost_comparison, provide_builtins,
};
pub use codec::{Link, LinkError, LinkScenario, fnv1a_64};
pub use config::{
    AcknowledgementMode, Assignor, AutoOffsetReset, CheckpointWrites, CommitMode, Config, ConfigError,
    ErrorPolicy, GroupProtocol, PositionModel, ProducerConfig, RemoteAssignor, ShareAutoOffsetReset,
};
pub use config::{ClusterConfig, DeliverySettings, IsolationLevel, TransactionsConfig};
pub use config::{GroupConfig, GroupSettings};
pub use delivery::Acks;
pub use describe::{
    DescribeView, describe, describe_group, describe_members, describe_offsets, describe_state, describe_view,
};
#[cfg(feature = "cluster")]
pub use event::LeaderElected;
pub use event::{
    Acknowledged, Event, PartitionMove, RebalanceReason, Reconciled, StaticMemberReplaced, Tick, TraceHasher,
};
pub use explain::{
    Anomaly, EXPLANATIONS_MAX, Explanation, Part, Report, StandardName, Step, explain_record, report,
    run_head, run_records, run_sentence, runs,
};
pub use guide::{Condition, GUIDE_STEPS_MAX, Guide, Metric, OUTCOME_CONDITIONS_MAX, Outcome, Topic};
pub use history::{
    History, JournalEntry, ReplayError, SNAPSHOT_INTERVAL_TICKS, SNAPSHOT_TAIL_CHUNKS_MAX, SNAPSHOTS_MAX,
    SNAPSHOTS_MIN, snapshots_max,
};
pub use input::{ConsumerId, Input, InputError, ResetSpec};
pub use letters::{
    CopiedRecord, DEAD_LETTER_TOPIC, Letter, LetterPartitionView, LetterRecordView, LetterTopicId,
    ShareDeadLetter, ShareDeadLetterView, ShareDlqCause, retry_topic_name,
};
pub use limits::{SCENARIO_BYTES_MAX, SCENARIO_TICKS_MAX, TIMELINE_INPUTS_MAX};
pub use observe::{FailingRecord, HISTORY_SAMPLES_MAX, StuckPartition};
pub use partitioner::{KeylessStrategy, murmur2, partition_for_key, to_positive};
pub use scenario::shrink::{ShrinkError, ShrinkLimit, ShrinkReport, anomaly, shrink};
pub use scenario::{BUILTIN_NAMES, BUILTINS, Scenario, ScenarioError, TimedInput};
pub use sim::{IN_FLIGHT_SHOWN_MAX, Sim, subject_key};
pub use view::{BrokerView, ClusterView, ReplicaSetView, ReplicaView, TransactionsView, TxnProducerView};
pub use view::{
    CheckpointView, ConsumerState, ConsumerStats, ConsumerView, ExpansionView, Finding, FindingKind,
    GroupView, HandledRecord, InFlightRecord, LagSample, LedgerEntry, LoopStep, MemberView, Metrics,
    PartitionSplit, PartitionView, PeekView, PollTimerView, ProducerView, RebalanceView, RecordAt,
    RecordView, RestartPreview, RollingView, SessionTimerView, SettingsView, ShareRecordView, SplitCheck,
    SplitStatus, View,
};
pub use view::{LetterTopicView, ShareDeadLetterTopicView};

// The in-crate unit tests run in headless Chromium too (`cargo test --target wasm32-unknown-unknown`).
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
