//! The simulation: the topic `orders` and its producer `orders-api`, one to
//! eight consumer groups with their consumers and the applications behind
//! them. `Sim` owns the parts and routes the plain values they exchange, in
//! the order written in [`Sim::handle_tick`]; no part holds or reaches into
//! another.

use crate::app::Application;
use crate::bridge::BridgeTopic;
use crate::broker::{Coordinator, GroupState, OffsetStore, SharePartition, Topic};
use crate::client::{Consumer, Producer};
use crate::config::{
    CheckpointWrites, CommitMode, Config, ConfigError, ErrorPolicy, GroupConfig, GroupProtocol,
    GroupSettings, PositionModel, check_commit_mode, check_error_policy, check_position_model, check_range,
};
use crate::event::{Event, RebalanceReason, Tick, TraceHasher};
use crate::evidence::Evidence;
use crate::input::{ConsumerId, Input, InputError};
use crate::letters::DeadLetters;
use crate::limits;
use crate::log::{Failing, Record};
use crate::observe::GroupObserver;
use crate::rng::Rng;
use crate::view::ConsumerState;
use crate::view::ExpansionView;
use std::collections::VecDeque;

/// Emits an event of the brokers or the delivery path. The
/// page's build (no `cluster` feature) can emit none of them, so it has no
/// such `Event` variants, and the statement goes.
macro_rules! emit_cluster {
    ($sim:expr, $event:expr) => {{
        #[cfg(feature = "cluster")]
        $sim.emit($event);
    }};
}

/// The same for transactions' events, without the `transactions` feature.
macro_rules! emit_txn {
    ($sim:expr, $event:expr) => {{
        #[cfg(feature = "transactions")]
        $sim.emit($event);
    }};
}

mod consumers;
mod delivery;
mod eos;
mod failures;
mod group;
mod protocol;
mod read;
mod share;

pub(crate) use group::{PendingRestart, RollingUpdate};
pub use read::IN_FLIGHT_SHOWN_MAX;
// The producer's key of a subject: the routing hashes it too (bridge and payouts partitions).
pub use crate::client::producer::subject_key;

/// Where the `Sim` keeps a part a build may leave out (the page's, for its
/// size budget: docs/page-build.md): with the feature a box; without it an
/// uninhabited type, so that `Option<Slot>` is always `None` and the compiler
/// drops every use of the part.
#[derive(Debug, Clone)]
#[allow(dead_code)] // never constructed: that is its purpose
pub(crate) enum Absent<T> {
    Never(std::convert::Infallible, std::marker::PhantomData<T>),
}

impl<T> std::ops::Deref for Absent<T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Absent::Never(never, _) => match *never {},
        }
    }
}

impl<T> std::ops::DerefMut for Absent<T> {
    fn deref_mut(&mut self) -> &mut T {
        match self {
            Absent::Never(never, _) => match *never {},
        }
    }
}

/// Where the `Sim` keeps exactly-once processing (`sim/eos.rs`).
#[cfg(feature = "transactions")]
pub(crate) type TxnSlot = Box<eos::EosPath>;
#[cfg(not(feature = "transactions"))]
pub(crate) type TxnSlot = Absent<eos::EosPath>;

/// One group's runtime beside its parts: its static config, the settings
/// inputs change, its PRNG stream (member ids, torn writes), and the
/// operator's actions under way.
#[derive(Debug, Clone)]
pub(crate) struct GroupRuntime {
    pub config: GroupConfig,
    pub settings: GroupSettings,
    pub rng: Rng,
    pub pending_restart: Option<PendingRestart>,
    pub rolling: Option<RollingUpdate>,
}

/// The simulation.
///
/// # Calling contract (sans-IO)
///
/// - Create it with [`Sim::new`]; it starts at tick 0 with each group's
///   `consumers` members joining.
/// - Feed inputs with [`Sim::handle_input`]: each applies at the current tick,
///   before the next step, or is refused with an [`InputError`] and changes nothing.
/// - Advance time with [`Sim::handle_tick`]`(now)`: runs one step per tick up to
///   `now`. There is no clock inside; the caller owns time.
/// - Drain what happened with [`Sim::poll_event`] (a bounded queue: past
///   [`limits::EVENTS_QUEUED_MAX`] the oldest are dropped and counted; the
///   trace hash still covers every event).
/// - Read the state with [`Sim::view`] (plain data), [`Sim::records`] (a window
///   of one tape) and [`crate::describe`] (the CLI table).
///
/// The same config and the same inputs at the same ticks give the same events
/// and the same [`Sim::trace_hash`] on every platform.
///
/// # The parts
///
/// Broker side: the `Topic`, and per group a `Coordinator` and an
/// `OffsetStore`. Client side: the `Producer` and every `Consumer` (each
/// knows its group). Per group, the `Application` behind it and a
/// `GroupObserver` that watches what the group did to each record. The
/// bridge target topic is written by applications that bridge. Each part's
/// calling contract is on its type.
#[derive(Debug, Clone)]
pub struct Sim {
    /// As the run started; live settings live in the parts and `groups`.
    config: Config,
    now: Tick,
    topic: Topic,
    coordinators: Vec<Coordinator>,
    offsets: Vec<OffsetStore>,
    producer: Producer,
    /// Every group's consumers, in card order.
    consumers: Vec<Consumer>,
    next_consumer_number: u32,
    apps: Vec<Application>,
    bridge: BridgeTopic,
    /// `orders.DLT`, the retry topics, and the applications' readers of them (issue 40).
    letters: DeadLetters,
    observers: Vec<GroupObserver>,
    /// What the explanations of anomalies are built from (it watches).
    evidence: Evidence,
    /// Per group, per partition: a share group's share-partition, once a
    /// member first reads the partition (empty for other groups).
    shares: Vec<Vec<Option<SharePartition>>>,
    groups: Vec<GroupRuntime>,
    last_expansion: Option<ExpansionView>,
    events: VecDeque<Event>,
    events_dropped: u64,
    trace: TraceHasher,
    /// The producer's delivery path and the cluster, when the config has a
    /// cluster or a delivery section; `None`: sends are appended at once.
    delivery: Option<delivery::Slot>,
    /// Exactly-once processing into payouts, when the config has a
    /// transactions section (`sim/eos.rs`).
    eos: Option<TxnSlot>,
}

/// The PRNG stream of group `g`'s member ids. The first group's is the one
/// the single-group model used, so its member ids are unchanged.
fn group_stream(g: usize) -> u64 {
    if g == 0 { 2 } else { 100 + g as u64 }
}

impl Sim {
    /// A simulation at tick 0 with every group's consumers joining.
    pub fn new(config: Config) -> Result<Sim, ConfigError> {
        config.validate()?;
        let partitions = config.partitions;
        let group_configs = config.groups.clone();
        let n = group_configs.len();
        let mut sim = Sim {
            now: 0,
            topic: Topic::new(partitions, config.retention_records),
            coordinators: config.groups.iter().map(|g| Coordinator::new(g.protocol, partitions)).collect(),
            offsets: vec![OffsetStore::new(partitions); n],
            producer: Producer::new(config.producer.clone(), config.seed, partitions),
            consumers: Vec::new(),
            next_consumer_number: 1,
            apps: vec![Application::default(); n],
            bridge: BridgeTopic::new(partitions),
            letters: DeadLetters::new(
                partitions,
                n,
                config
                    .groups
                    .iter()
                    .map(|g| match g.error_policy {
                        crate::config::ErrorPolicy::RetryTopics { levels, .. } => levels,
                        _ => 0,
                    })
                    .max()
                    .unwrap_or(0),
            ),
            observers: vec![GroupObserver::new(partitions); n],
            evidence: Evidence::new(n, partitions),
            shares: config
                .groups
                .iter()
                .map(|g| match g.protocol {
                    GroupProtocol::Share => vec![None; partitions as usize],
                    _ => Vec::new(),
                })
                .collect(),
            groups: group_configs
                .into_iter()
                .enumerate()
                .map(|(g, group)| GroupRuntime {
                    settings: group.settings(),
                    config: group,
                    rng: Rng::with_stream(config.seed, group_stream(g)),
                    pending_restart: None,
                    rolling: None,
                })
                .collect(),
            last_expansion: None,
            events: VecDeque::new(),
            events_dropped: 0,
            trace: TraceHasher::default(),
            delivery: if config.cluster.is_some() || config.producer.delivery.is_some() {
                Some(delivery::open(&config)?)
            } else {
                None
            },
            eos: if config.transactions.is_some() { Some(eos::open(&config)?) } else { None },
            config,
        };
        for g in 0..n {
            for _ in 0..sim.groups[g].config.consumers {
                let id = sim.add_consumer_card(g);
                sim.start_consumer(id);
            }
        }
        Ok(sim)
    }

    /// The config the run started with (settings changed since are in [`Sim::view`]).
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    #[must_use]
    pub fn now(&self) -> Tick {
        self.now
    }

    /// A hash of every event so far: equal traces give equal hashes.
    #[must_use]
    pub fn trace_hash(&self) -> u64 {
        self.trace.finish()
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Events dropped because nobody polled them in time.
    #[must_use]
    pub fn events_dropped(&self) -> u64 {
        self.events_dropped
    }

    /// Moves consumer `c`'s position on `p` from `from` back to `to` (a
    /// shorter log, or one reset under it) and says so.
    pub(super) fn reset_position(&mut self, c: usize, p: u32, from: u64, to: u64) {
        self.consumers[c].handle_position_reset(p, to);
        let consumer = self.consumers[c].id();
        self.emit(Event::PositionReset { tick: self.now, consumer, partition: p, from, to });
    }

    fn emit(&mut self, event: Event) {
        // A commit's partitions are its group's: the evidence keeps them per group.
        let group = match &event {
            Event::Committed { consumer, .. } | Event::Checkpointed { consumer, .. } => {
                self.consumer_index(*consumer).ok().map(|c| self.consumers[c].group())
            }
            _ => None,
        };
        self.evidence.handle_event(&event, group);
        self.emit_inline(event);
    }

    /// [`Sim::emit`], inlined where it is called: for the events of every
    /// record (produced, handled), which the evidence does not keep (it has
    /// the application's handlings instead), where the compiler, knowing the variant,
    /// hashes its fields without `hash_into`'s match and a call (with
    /// `hash_into` and `tick` inlined too: 12% fewer instructions on
    /// examples/busy).
    #[inline(always)]
    fn emit_inline(&mut self, event: Event) {
        event.hash_into(&mut self.trace);
        if self.events.len() == limits::EVENTS_QUEUED_MAX {
            self.events.pop_front();
            self.events_dropped += 1;
        }
        self.events.push_back(event);
    }

    // ---------------------------------------------------------------- inputs

    /// Applies one input at the current tick. A refused input changes nothing.
    pub fn handle_input(&mut self, input: Input) -> Result<(), InputError> {
        self.refuse_for_share_groups(&input)?;
        self.refuse_for_transactions(&input)?;
        match input {
            Input::Send { count } => {
                check_input_range("count", count, 1, limits::SEND_COUNT_MAX)?;
                self.produce(count, false, Failing::default());
                self.enforce_retention();
            }
            Input::SendPoison {} => {
                self.produce(1, true, Failing::default());
                self.enforce_retention();
            }
            Input::SendFailing { failures, after_effect } => {
                check_input_range("failures", failures, 1, limits::FAILING_ATTEMPTS_MAX)?;
                let first = u8::try_from(failures).expect("at most FAILING_ATTEMPTS_MAX");
                self.produce(1, false, Failing { first, after_effect });
                self.enforce_retention();
            }
            Input::FixHandler { group } => {
                let g = self.group_index(group.as_deref())?;
                self.apps[g].handle_fixed();
                self.emit(Event::HandlerFixed { tick: self.now, group: g as u32 });
            }
            Input::ReplayDeadLetters { group } => {
                let g = self.group_index(group.as_deref())?;
                self.start_replay(g)?;
            }
            Input::ErrorPolicy { group, error_policy } => {
                let g = self.group_index(group.as_deref())?;
                check_error_policy(error_policy)
                    .map_err(|e| InputError::OutOfRange { field: e.field, message: e.message })?;
                if let ErrorPolicy::RetryTopics { levels, .. } = error_policy {
                    // The retry topics it writes to, made on the redeploy as
                    // Spring's `@RetryableTopic` makes them at start-up.
                    self.letters.ensure_levels(levels);
                }
                self.groups[g].settings.error_policy = error_policy;
                self.setting_changed(Some(g), "error-policy", error_policy.kind().to_string());
            }
            Input::KeepSending { per_tick } => {
                check_input_range("per_tick", per_tick, 0, limits::SEND_RATE_MAX)?;
                self.producer.handle_send_rate(per_tick);
                self.setting_changed(None, "send_per_tick", per_tick.to_string());
            }
            Input::UseKeys { on } => {
                self.producer.handle_use_keys(on);
                self.setting_changed(None, "use_keys", on.to_string());
            }
            Input::KeyCount { keys } => {
                check_input_range("keys", keys, 1, limits::KEYS_MAX)?;
                self.producer.handle_key_count(keys);
                self.setting_changed(None, "key_count", keys.to_string());
            }
            Input::HotKey { share_percent } => {
                check_input_range("share_percent", share_percent, 0, 100)?;
                self.producer.handle_hot_key(share_percent);
                self.setting_changed(None, "hot_key_share_percent", share_percent.to_string());
            }
            Input::Pause { consumer } => {
                let c = self.consumer_index(consumer)?;
                if self.consumers[c].state() != ConsumerState::Running {
                    return Err(self.wrong_state(c, "running"));
                }
                self.consumers[c].handle_pause();
                self.emit(Event::Paused { tick: self.now, consumer });
            }
            Input::Resume { consumer } => {
                let c = self.consumer_index(consumer)?;
                if self.consumers[c].state() != ConsumerState::Paused {
                    return Err(self.wrong_state(c, "paused"));
                }
                self.consumers[c].handle_resume();
                self.emit(Event::Resumed { tick: self.now, consumer });
            }
            Input::Crash { consumer } => {
                let c = self.consumer_index(consumer)?;
                if !self.consumers[c].alive() {
                    return Err(self.wrong_state(c, "running, paused or stopping"));
                }
                self.crash(c);
            }
            Input::Stop { consumer } => {
                let c = self.consumer_index(consumer)?;
                if !matches!(self.consumers[c].state(), ConsumerState::Running | ConsumerState::Paused) {
                    return Err(self.wrong_state(c, "running or paused"));
                }
                self.begin_stop(c, false);
            }
            Input::Start { consumer } => {
                let c = self.consumer_index(consumer)?;
                if !matches!(self.consumers[c].state(), ConsumerState::Crashed | ConsumerState::Stopped) {
                    return Err(self.wrong_state(c, "stopped or crashed"));
                }
                self.start_consumer(consumer);
            }
            Input::AddConsumer { group } => {
                let g = self.group_index(group.as_deref())?;
                if self.consumers.iter().filter(|c| c.group() == g).count() >= limits::CONSUMERS_MAX as usize
                {
                    return Err(InputError::TooManyConsumers);
                }
                let id = self.add_consumer_card(g);
                self.start_consumer(id);
            }
            Input::DuplicateInstance { consumer } => {
                let c = self.consumer_index(consumer)?;
                let g = self.consumers[c].group();
                let Some(instance_id) = self.consumers[c].instance_id().map(str::to_owned) else {
                    return Err(InputError::NotStatic { consumer });
                };
                if self.consumers.iter().filter(|c| c.group() == g).count() >= limits::CONSUMERS_MAX as usize
                {
                    return Err(InputError::TooManyConsumers);
                }
                let id = self.add_consumer_card(g);
                let twin = self.consumer_index(id)?;
                self.consumers[twin].handle_instance_id(instance_id);
                self.start_consumer(id);
            }
            Input::Stall { consumer, ticks } => {
                let c = self.consumer_index(consumer)?;
                check_input_range("ticks", ticks, 1, limits::STALL_TICKS_MAX)?;
                let g = self.consumers[c].group();
                if self.protocol(g) == GroupProtocol::Share {
                    return Err(InputError::ShareGroup {
                        group: self.groups[g].config.name.clone(),
                        input: "stall",
                    });
                }
                if !matches!(self.consumers[c].state(), ConsumerState::Running | ConsumerState::Paused)
                    || self.consumers[c].is_stalled()
                {
                    return Err(self.wrong_state(c, "running or paused, and not stalled"));
                }
                let until = self.consumers[c].handle_stall(self.now, ticks);
                // Its heartbeats froze with it (the classic heartbeat thread, the KIP-848
                // background thread): its session runs out unless it wakes first. One
                // that left on its poll timeout has no session left to run out.
                if self.consumers[c].out_of_group().is_none() {
                    let member_id =
                        self.consumers[c].member_id().expect("a running consumer is a member").to_owned();
                    let expires_at = self.now + self.groups[g].config.session_timeout_ticks;
                    self.coordinators[g].handle_member_died(&member_id, expires_at);
                }
                self.emit(Event::Stalled { tick: self.now, consumer, until });
            }
            Input::RemoveConsumer { consumer } => {
                let c = self.consumer_index(consumer)?;
                match self.consumers[c].state() {
                    ConsumerState::Running | ConsumerState::Paused => self.begin_stop(c, true),
                    ConsumerState::Stopping { .. } => self.consumers[c].handle_remove(),
                    ConsumerState::Crashed | ConsumerState::Stopped => self.remove_card(c),
                }
            }
            Input::RecordsPerPoll { group, records } => {
                let g = self.group_index(group.as_deref())?;
                check_input_range("records", records, 1, limits::RECORDS_PER_POLL_MAX)?;
                self.groups[g].settings.records_per_poll = records;
                self.setting_changed(Some(g), "records_per_poll", records.to_string());
            }
            Input::HandlePerTick { group, records } => {
                let g = self.group_index(group.as_deref())?;
                check_input_range("records", records, 1, limits::HANDLE_PER_TICK_MAX)?;
                self.groups[g].settings.handle_per_tick = records;
                self.setting_changed(Some(g), "handle_per_tick", records.to_string());
            }
            Input::Commit { group, commit } => {
                let g = self.group_index(group.as_deref())?;
                check_commit_mode("commit.interval_ticks", commit)
                    .map_err(|e| InputError::OutOfRange { field: e.field, message: e.message })?;
                self.groups[g].settings.commit = commit;
                self.setting_changed(Some(g), "commit", commit.label().to_string());
            }
            Input::Assignor { group, assignor } => {
                let g = self.group_index(group.as_deref())?;
                if self.coordinators[g].state() == GroupState::PreparingRebalance
                    || self.consumers.iter().any(|c| c.group() == g && c.has_pending_assignment())
                {
                    // Switching protocols mid-rebalance would mix eager and cooperative rounds.
                    return Err(InputError::RebalanceInProgress);
                }
                self.groups[g].settings.assignor = assignor;
                self.setting_changed(Some(g), "assignor", assignor.variant_name().to_string());
            }
            Input::Idempotent { group, on } => {
                let g = self.group_index(group.as_deref())?;
                self.groups[g].settings.idempotent = on;
                self.setting_changed(Some(g), "idempotent", on.to_string());
            }
            Input::ResetOffsets { group, reset } => {
                let g = self.group_index(group.as_deref())?;
                if !self.coordinators[g].is_empty() {
                    return Err(InputError::GroupNotInactive {
                        group: self.groups[g].config.name.clone(),
                        state: self.coordinators[g].state().name(),
                    });
                }
                self.reset_offsets(g, reset)?;
            }
            Input::PositionStore { group, position } => {
                let g = self.group_index(group.as_deref())?;
                check_position_model("position.write_ticks", position)
                    .map_err(|e| InputError::OutOfRange { field: e.field, message: e.message })?;
                self.set_position_model(g, position);
            }
            Input::Peek { advancing } => {
                let peek = self.producer.handle_peek(self.now, advancing);
                self.emit(Event::Peeked { tick: self.now, partition: peek.partition, advanced: advancing });
            }
            Input::AddPartitions { count } => self.add_partitions(count)?,
            Input::KillBeforeCommit { consumer } => {
                let c = self.consumer_index(consumer)?;
                if !self.consumers[c].alive() {
                    return Err(self.wrong_state(c, "running, paused or stopping"));
                }
                self.consumers[c].handle_kill_before_commit();
            }
            Input::RollingUpdate { group, consumers } => {
                let g = self.group_index(group.as_deref())?;
                self.begin_rolling_update(g, consumers)?;
            }
            Input::LoadCheckpoint { consumer, partition, offset } => {
                let c = self.consumer_index(consumer)?;
                if partition >= self.topic.partition_count() {
                    return Err(InputError::NoSuchPartition { partition });
                }
                // A store restored from disk may be ahead of this run's log:
                // with positions on the consumer, it waits there.
                self.consumers[c].handle_checkpoint_loaded(partition, offset);
            }
            Input::RestartFrom { group, reset } => {
                let g = self.group_index(group.as_deref())?;
                self.begin_restart(g, reset)?;
            }
            Input::CrashBroker { broker } => self.crash_broker(broker)?,
            Input::RestartBroker { broker } => self.restart_broker(broker)?,
            Input::LoseNextAck { partition } => self.inject_fault(
                crate::client::accumulator::ProduceFault::LoseNextAck { partition },
                "lose-next-ack",
            )?,
            Input::LoseNextRequest { partition } => self.inject_fault(
                crate::client::accumulator::ProduceFault::LoseNextRequest { partition },
                "lose-next-request",
            )?,
            Input::SlowFollower { broker, fetch_per_tick } => self.slow_follower(broker, fetch_per_tick)?,
        }
        Ok(())
    }

    /// Inputs that would take the transactional group's offsets out of its
    /// transactions: its commit mode and where its positions live.
    fn refuse_for_transactions(&self, input: &Input) -> Result<(), InputError> {
        let Some(eos) = &self.eos else { return Ok(()) };
        let (g, name) = match input {
            Input::Commit { group, .. } => (self.group_index(group.as_deref())?, "commit"),
            Input::PositionStore { group, .. } => (self.group_index(group.as_deref())?, "position-store"),
            _ => return Ok(()),
        };
        if g == eos.group {
            return Err(InputError::Transactional { group: self.groups[g].config.name.clone(), input: name });
        }
        Ok(())
    }

    /// Inputs about offsets, the client-side assignor or consumer-side
    /// positions: a share group has none of them.
    fn refuse_for_share_groups(&self, input: &Input) -> Result<(), InputError> {
        let (g, name) = match input {
            Input::Commit { group, .. } => (self.group_index(group.as_deref())?, "commit"),
            Input::Assignor { group, .. } => (self.group_index(group.as_deref())?, "assignor"),
            Input::ErrorPolicy { group, .. } => (self.group_index(group.as_deref())?, "error-policy"),
            Input::ResetOffsets { group, .. } => (self.group_index(group.as_deref())?, "reset-offsets"),
            Input::RestartFrom { group, .. } => (self.group_index(group.as_deref())?, "restart-from"),
            Input::PositionStore { group, .. } => (self.group_index(group.as_deref())?, "position-store"),
            Input::LoadCheckpoint { consumer, .. } => {
                (self.consumers[self.consumer_index(*consumer)?].group(), "load-checkpoint")
            }
            _ => return Ok(()),
        };
        if self.protocol(g) == GroupProtocol::Share {
            return Err(InputError::ShareGroup { group: self.groups[g].config.name.clone(), input: name });
        }
        Ok(())
    }

    fn setting_changed(&mut self, group: Option<usize>, setting: &'static str, value: String) {
        let group = group.map(|g| g as u32);
        self.emit(Event::SettingChanged { tick: self.now, group, setting, value });
    }

    /// The group an input names, or the first.
    fn group_index(&self, name: Option<&str>) -> Result<usize, InputError> {
        match name {
            None => Ok(0),
            Some(name) => self
                .groups
                .iter()
                .position(|g| g.config.name == name)
                .ok_or_else(|| InputError::NoSuchGroup(name.to_string())),
        }
    }

    fn consumer_index(&self, id: ConsumerId) -> Result<usize, InputError> {
        self.consumers.iter().position(|c| c.id() == id).ok_or(InputError::NoSuchConsumer(id))
    }

    fn wrong_state(&self, c: usize, wanted: &'static str) -> InputError {
        let consumer = &self.consumers[c];
        InputError::WrongState { consumer: consumer.id(), state: consumer.state().label(), wanted }
    }

    /// Switches where group `g`'s positions live. Moving them to the group:
    /// a consumer-side position past the log end (a store restored from
    /// another run) would be committed beyond the log, so it is reset now, as
    /// the next fetch would be answered OFFSET_OUT_OF_RANGE
    /// (`auto.offset.reset=earliest`).
    fn set_position_model(&mut self, g: usize, position: PositionModel) {
        self.groups[g].settings.position = position;
        if matches!(position, PositionModel::Group) {
            for c in 0..self.consumers.len() {
                if self.consumers[c].group() != g {
                    continue;
                }
                for p in 0..self.topic.partition_count() {
                    let Some(at) = self.consumers[c].position(p) else { continue };
                    if at > self.topic.log_end(p) {
                        self.reset_position(c, p, at, self.topic.log_start(p));
                    }
                }
            }
        }
        let label = match position {
            PositionModel::Group => "group",
            PositionModel::Consumer { writes: CheckpointWrites::Atomic, .. } => "atomic",
            PositionModel::Consumer { writes: CheckpointWrites::InPlace, .. } => "in-place",
        };
        self.setting_changed(Some(g), "position", label.to_string());
    }

    // ------------------------------------------------------------------ time

    /// Advances the simulation to tick `now`, one step per tick.
    ///
    /// One step routes, in this order: the producer's sends to the topic
    /// (and every group's observer) — or, with a delivery path (a cluster or
    /// a producer delivery section): the producer's delivery and request
    /// timeouts, the leaders' answers owed from earlier ticks (in request
    /// order per connection), the tick's sends into batches, each drained
    /// produce request to its partition's leader (an injected fault, the
    /// idempotence check, the append with acks and min ISR, the records to
    /// the leader's log), the cluster's tick (fencing, follower fetches, ISR
    /// changes, elections and the truncation they cause, acks=all answers),
    /// the batches' outcomes; then each coordinator's expired sessions; each
    /// consumer's loop in card order (fetches from the topic, records to its
    /// application and observer, commits to its group's offsets); each
    /// group's rebalance completion; removal of departed cards; each group's
    /// pending restart, rolling update and stopped-partition count; retention;
    /// each group's lag sample.
    ///
    /// # Panics
    /// If `now` is in the past or more than [`limits::CATCH_UP_TICKS_MAX`] ahead.
    pub fn handle_tick(&mut self, now: Tick) {
        assert!(now >= self.now, "time runs forward: at {} asked for {now}", self.now);
        assert!(
            now - self.now <= limits::CATCH_UP_TICKS_MAX,
            "at most {} ticks per call",
            limits::CATCH_UP_TICKS_MAX
        );
        while self.now < now {
            self.step();
        }
    }

    fn step(&mut self) {
        self.now += 1;
        if self.delivery.is_some() {
            self.delivery_begin_tick();
        }
        let rate = self.producer.settings().send_per_tick;
        if rate > 0 {
            self.produce(rate, false, Failing::default());
        }
        if self.delivery.is_some() {
            self.delivery_end_tick();
        }
        for g in 0..self.groups.len() {
            self.expire_sessions(g);
            if self.protocol(g) == GroupProtocol::Share {
                self.expire_share_locks(g);
            }
        }
        if self.eos.is_some() {
            self.eos_tick();
        }
        for c in 0..self.consumers.len() {
            self.step_consumer(c);
        }
        for g in 0..self.groups.len() {
            // 3b. Issue 40: each application's retry consumer and dead-letter replay job.
            self.step_retry_consumer(g);
            self.step_replay(g);
        }
        if self.eos.is_some() {
            self.eos_downstream();
        }
        for g in 0..self.groups.len() {
            self.try_complete_rebalance(g);
        }
        self.finish_leaving();
        for g in 0..self.groups.len() {
            self.try_finish_restart(g);
            self.step_rolling_update(g);
            self.count_stopped_partitions(g);
        }
        self.enforce_retention();
        for g in 0..self.groups.len() {
            self.expire_offsets(g);
            self.sample_lag(g);
        }
    }

    // ------------------------------------------------------- producer, topic

    fn produce(&mut self, count: u32, poison: bool, failing: Failing) {
        assert!(count <= limits::SEND_RATE_MAX.max(limits::SEND_COUNT_MAX));
        for _ in 0..count {
            let send = self.producer.poll_send();
            if self.delivery.is_some() {
                self.send_to_accumulator(send, poison, failing);
                continue;
            }
            let record = Record {
                id: send.id,
                produced_tick: self.now,
                subject: send.subject,
                keyed: send.keyed,
                poison,
                failing,
                producer_copy: false,
                producer_reordered: false,
            };
            // The observers' marks trail the log: a new record has the default mark.
            let offset = self.topic.handle_produce(send.partition, record);
            self.emit_inline(Event::Produced {
                tick: self.now,
                partition: send.partition,
                offset,
                record_id: send.id,
                subject: send.subject,
                keyed: send.keyed,
                poison,
                fails_first: failing.first,
                after_effect: failing.after_effect,
            });
        }
    }

    fn enforce_retention(&mut self) {
        for deleted in self.topic.poll_retention() {
            for g in 0..self.groups.len() {
                let topic = &self.topic;
                let p = deleted.partition;
                let lost = self.observers[g].handle_retention(deleted, |o| topic.get(p, o).map(|r| r.id));
                self.emit(Event::RetentionDeleted {
                    tick: self.now,
                    group: g as u32,
                    partition: deleted.partition,
                    new_log_start: deleted.new_log_start,
                    lost,
                });
            }
            self.topic.handle_delete(deleted);
            self.share_log_start_moved(deleted.partition, deleted.new_log_start);
        }
    }

    /// `kafka-topics --alter --partitions`: the topic grows while the groups
    /// run. Keys remap for future records (old records stay where they are),
    /// and every group with members rebalances to take the new partitions.
    fn add_partitions(&mut self, count: u32) -> Result<(), InputError> {
        if self.delivery.is_some() {
            // The replication model's partitions are fixed at start.
            return Err(InputError::OutOfRange {
                field: "count",
                message: "a topic on the delivery path keeps its partitions".into(),
            });
        }
        let from = self.topic.partition_count();
        let to = from.saturating_add(count);
        let out_of_range = |e: ConfigError| InputError::OutOfRange { field: "count", message: e.message };
        check_range("partitions", count, 1, limits::PARTITIONS_MAX).map_err(out_of_range)?;
        check_range("partitions", to, 2, limits::PARTITIONS_MAX).map_err(out_of_range)?;
        let retention = self.topic.retention_records();
        if u64::from(to) * retention > limits::RETAINED_RECORDS_MAX {
            return Err(InputError::OutOfRange {
                field: "count",
                message: format!(
                    "{to} partitions × {retention} retained records would pass {}",
                    limits::RETAINED_RECORDS_MAX
                ),
            });
        }
        let added = to - from;
        self.topic.add_partitions(added);
        self.bridge.add_partitions(added);
        self.letters.add_partitions(added);
        self.evidence.add_partitions(added);
        if let Some(eos) = &mut self.eos {
            eos.payouts.add_partitions(added);
            eos.downstream.add_partitions(added);
        }
        for g in 0..self.groups.len() {
            self.offsets[g].add_partitions(added);
            self.coordinators[g].add_partitions(added);
            self.observers[g].add_partitions(added);
            if self.protocol(g) == GroupProtocol::Share {
                // A subscribed group's new partitions start at 0, whatever its reset.
                let subscribed = self.coordinators[g].group_epoch() > 0;
                let limits = self.share_limits(g);
                self.shares[g].extend((0..added).map(|_| subscribed.then(|| SharePartition::added(limits))));
            }
        }
        for consumer in &mut self.consumers {
            consumer.add_partitions(added);
        }
        let moved = self.producer.handle_partitions_added(to);
        self.emit(Event::PartitionsAdded { tick: self.now, from, to, moved_keys: moved.len() as u32 });
        self.last_expansion = Some(ExpansionView { tick: self.now, from, to, moved });
        for g in 0..self.groups.len() {
            if self.protocol(g) != GroupProtocol::Classic {
                // The coordinator's metadata sees the new partitions: a new group epoch.
                self.with_coordinator(
                    g,
                    RebalanceReason::PartitionsAdded,
                    Coordinator::handle_metadata_changed,
                );
            } else if !self.coordinators[g].is_empty()
                && self.groups[g].config.metadata_max_age_ticks.is_none()
            {
                // The leader's metadata sees the new partitions at once and it rejoins
                // (with metadata_max_age_ticks, at its next refresh: `refresh_metadata`).
                self.begin_rebalance(g, RebalanceReason::PartitionsAdded);
            }
        }
        Ok(())
    }

    /// Checks every invariant over the whole state (slow: for tests).
    ///
    /// # Panics
    /// With a message naming the broken invariant.
    pub fn check_invariants(&self) {
        self.topic.check();
        if let Some(path) = &self.delivery {
            path.check();
            for p in 0..self.topic.partition_count() {
                let end = self.topic.log_end(p);
                assert_eq!(
                    path.replication.log_end(p),
                    end,
                    "P{p}: the topic's log is the longest replica's"
                );
                assert!(self.high_watermark(p) <= end, "P{p}: the high watermark is within the log");
            }
        }
        if self.eos.is_some() {
            self.check_eos();
        }
        for g in 0..self.groups.len() {
            self.coordinators[g].check_one_owner();
            for p in 0..self.topic.partition_count() {
                if let Some(c) = self.offsets[g].get(p) {
                    let end = self.topic.log_end(p);
                    assert!(c <= end, "group {g} partition {p}: committed {c} > log end {end}");
                }
            }
            for p in 0..self.topic.partition_count() {
                let (start, end) = self.observers[g].bounds(p);
                assert_eq!(
                    start,
                    self.topic.log_start(p),
                    "group {g} P{p}: marks start where the log starts"
                );
                assert!(end <= self.topic.log_end(p), "group {g} P{p}: marks trail the log");
            }
            let flagged = self.observers[g].check();
            let in_flight: usize =
                self.consumers.iter().filter(|c| c.group() == g).map(|c| c.batch_len()).sum();
            assert!(flagged <= in_flight, "every in-flight mark belongs to a batch");
            let m = self.apps[g].counters();
            assert!(m.delivered == m.distinct_handled + m.duplicates);
            if self.groups[g].settings.idempotent {
                // Holds when idempotence was on from the start; tests check that case.
                assert!(m.effects <= m.delivered);
            }
            assert!(self.coordinators[g].members().len() <= 2 * limits::CONSUMERS_MAX as usize);
            assert!(self.apps[g].recent().len() <= limits::SINK_RECENT_MAX);
        }
        assert!(self.events.len() <= limits::EVENTS_QUEUED_MAX);
    }
}

pub(crate) fn check_input_range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &'static str,
    value: T,
    min: T,
    max: T,
) -> Result<(), InputError> {
    check_range(field, value, min, max)
        .map_err(|e| InputError::OutOfRange { field: e.field, message: e.message })
}

/// An assignment in client-id order, as the events list it (one sort for all of them).
pub(crate) fn sort_by_consumer(assignment: &mut [(ConsumerId, Vec<u32>)]) {
    crate::order::sort_stable_by_key(assignment, |(consumer, _)| *consumer);
}

/// A UUID-shaped member id suffix from the seeded PRNG (Kafka uses a random UUID).
fn uuid(rng: &mut Rng) -> String {
    let a = rng.next_u64();
    let b = rng.next_u64();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        (a >> 32) as u32,
        (a >> 16) as u16,
        a as u16 & 0x0fff,
        (b >> 48) as u16 & 0x3fff | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

impl CommitMode {
    pub(crate) fn is_auto(self) -> bool {
        matches!(self, CommitMode::Auto { .. })
    }
}
