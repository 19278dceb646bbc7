//! The simulation: topic `orders`, producer `orders-api`, consumer group `demo`
//! and the application behind it.

use crate::assign;
use crate::config::{
    CommitMode, Config, ConfigError, PositionModel, check_commit_mode, check_position_model, check_range,
    limits,
};
use crate::event::{Event, PartitionMove, RebalanceReason, Tick, TraceHasher};
use crate::input::{ConsumerId, Input, InputError, ResetSpec};
use crate::log::{PartitionLog, Record};
use crate::partitioner::{KeylessState, partition_for_key};
use crate::rng::Rng;
use crate::view::{
    ConsumerState, ConsumerView, HandledRecord, InFlightRecord, LoopStep, Metrics, PartitionView,
    ProducerView, RebalanceView, RecordView, SettingsView, View,
};
use std::collections::VecDeque;

mod booblik;
mod check;
mod ops;

pub use booblik::{CheckpointView, ConsumerStats, FarPartitionView, FarRecordView, PeekView};
pub use check::{Finding, FindingKind, PartitionSplit, SplitCheck, SplitStatus};
pub use ops::{ExpansionView, HISTORY_SAMPLES_MAX, LagSample, LedgerEntry, RollingView, payout_cents};

/// The group coordinator's view of the group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupState {
    Empty,
    Stable,
    PreparingRebalance,
}

impl GroupState {
    /// Kafka's `GroupState` names, as the CLI prints them.
    pub(crate) fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::Stable => "Stable",
            GroupState::PreparingRebalance => "PreparingRebalance",
        }
    }
}

/// A member as the coordinator knows it. A crashed process's member stays
/// here, dead, until its session times out.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub member_id: String,
    pub consumer: ConsumerId,
    pub host: String,
    /// `Some(tick)` once its process died: removed at that tick.
    pub expires_at: Option<Tick>,
    /// Its partitions in the current generation.
    pub assignment: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Process {
    Running,
    Paused,
    /// Finishing its batch before it leaves; `remove` drops the card after.
    Stopping {
        deadline: Tick,
        remove: bool,
    },
    Crashed,
    Stopped,
}

/// A record fetched by `poll()` and not yet handled: the consumer holds a copy,
/// so retention deleting it from the log does not take it away.
#[derive(Debug, Clone, Copy)]
struct Fetched {
    partition: u32,
    offset: u64,
    id: u64,
    subject: u32,
    produced_tick: Tick,
}

/// A consumer process: the loop `poll → handle → commit` on one card.
#[derive(Debug, Clone)]
struct Consumer {
    id: ConsumerId,
    process: Process,
    /// The member id of its current incarnation while it is in the group.
    member_id: Option<String>,
    host: String,
    /// Partitions of the current generation (the client's copy).
    assigned: Vec<u32>,
    /// Fetch position per partition (next offset to fetch); `None` when not assigned.
    positions: Vec<Option<u64>>,
    batch: VecDeque<Fetched>,
    /// Partitions `poll()` starts from rotates so none starves.
    fetch_rotation: usize,
    next_auto_commit: Tick,
    /// Handled records since its last commit (commit-after knows to commit).
    uncommitted: bool,
    /// Has sent its JoinGroup for the rebalance in progress.
    joined: bool,
    handled: u64,
    step: LoopStep,
    crashed_at: Option<Tick>,
    /// Where its loop was when it crashed ("crash here…").
    crashed_during: Option<LoopStep>,
    /// Left with `RemoveConsumer`: the card goes at the end of the step.
    remove_after_leave: bool,
    /// Cooperative protocol: the assignment this member applies at its next
    /// poll (revoking what it loses, adding what it gains).
    pending_assignment: Option<Vec<u32>>,
    /// booblik: the offset store on the consumer's volume, per partition. It
    /// survives crashes and restarts; a torn write leaves what the naive reader sees.
    store: Vec<Option<u64>>,
    /// A checkpoint being written.
    checkpoint: Option<booblik::PendingCheckpoint>,
    /// Where this incarnation started each partition from.
    resumed_from: Vec<Option<u64>>,
    last_checkpoint: Option<CheckpointView>,
    handled_by_partition: Vec<u64>,
    /// The fault "killed after the ledger commit, before the offset commit" is armed.
    kill_before_commit: bool,
}

/// The application behind the consumers ("what the application did").
#[derive(Debug, Clone, Default)]
struct Sink {
    metrics: Metrics,
    recent: VecDeque<HandledRecord>,
    /// Per subject, the highest record id handled for the first time.
    subject_high: Vec<Option<u64>>,
}

/// The whole-group reset waiting for the group to empty.
#[derive(Debug, Clone)]
struct PendingRestart {
    reset: ResetSpec,
    restart: Vec<ConsumerId>,
}

/// The effect of restarting one partition from an offset (see [`Sim::restart_preview`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct RestartPreview {
    /// The offset after clamping to the log.
    pub offset: u64,
    /// Handled records between the offset and the committed offset: they come back.
    pub replay: u64,
    /// Unhandled records between the committed offset and the offset: nobody will handle them.
    pub skip: u64,
}

/// The simulation.
///
/// # Calling contract (sans-IO)
///
/// - Create it with [`Sim::new`]; it starts at tick 0 with `config.consumers`
///   members joining group `demo`.
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
#[derive(Debug, Clone)]
pub struct Sim {
    config: Config,
    now: Tick,
    partitions: Vec<PartitionLog>,
    producer_rng: Rng,
    group_rng: Rng,
    keyless: KeylessState,
    /// Partition of each subject's key (murmur2), cached for the current partition count.
    key_partitions: Vec<u32>,
    next_record_id: u64,
    consumers: Vec<Consumer>,
    next_consumer_number: u32,
    group_state: GroupState,
    generation: u32,
    members: Vec<Member>,
    committed: Vec<Option<u64>>,
    sink: Sink,
    pending_restart: Option<PendingRestart>,
    events: VecDeque<Event>,
    events_dropped: u64,
    trace: TraceHasher,
    /// The partition each subject's keyed records went to (invariant check).
    keyed_home: Vec<Option<u32>>,
    /// Each partition's owner in the last completed generation.
    owners: Vec<Option<ConsumerId>>,
    last_rebalance: Option<RebalanceView>,
    /// Per partition, one past the highest offset handled: the last known position.
    handled_end: Vec<u64>,
    /// The split check's findings so far (bounded).
    findings: VecDeque<Finding>,
    findings_dropped: u64,
    /// Per partition, ids of records retention deleted unhandled (bounded) and their count.
    retention_lost: Vec<(Vec<u64>, u64)>,
    /// The booblik topic the bridge writes to.
    far: Vec<booblik::FarLog>,
    last_peek: Option<PeekView>,
    lag_history: Vec<VecDeque<LagSample>>,
    last_expansion: Option<ExpansionView>,
    /// Per account (subject): the payout ledger.
    ledger: Vec<LedgerEntry>,
    rolling: Option<ops::RollingUpdate>,
}

impl Sim {
    /// A simulation at tick 0 with `config.consumers` consumers joining.
    pub fn new(config: Config) -> Result<Sim, ConfigError> {
        config.validate()?;
        let partitions = config.partitions as usize;
        let mut sim = Sim {
            producer_rng: Rng::with_stream(config.seed, 1),
            group_rng: Rng::with_stream(config.seed, 2),
            now: 0,
            partitions: vec![PartitionLog::default(); partitions],
            keyless: KeylessState::default(),
            key_partitions: Vec::new(),
            next_record_id: 0,
            consumers: Vec::new(),
            next_consumer_number: 1,
            group_state: GroupState::Empty,
            generation: 0,
            members: Vec::new(),
            committed: vec![None; partitions],
            sink: Sink::default(),
            pending_restart: None,
            events: VecDeque::new(),
            events_dropped: 0,
            trace: TraceHasher::default(),
            keyed_home: Vec::new(),
            owners: vec![None; partitions],
            last_rebalance: None,
            handled_end: vec![0; partitions],
            findings: VecDeque::new(),
            findings_dropped: 0,
            retention_lost: vec![(Vec::new(), 0); partitions],
            far: vec![booblik::FarLog::default(); partitions],
            last_peek: None,
            lag_history: vec![VecDeque::new(); partitions],
            last_expansion: None,
            ledger: Vec::new(),
            rolling: None,
            config,
        };
        sim.refresh_key_partitions();
        for _ in 0..sim.config.consumers {
            let id = sim.add_consumer_card();
            sim.start_consumer(id);
        }
        Ok(sim)
    }

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

    fn emit(&mut self, event: Event) {
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
        match input {
            Input::Send { count } => {
                check_input_range("count", count, 1, limits::SEND_COUNT_MAX)?;
                self.produce(count);
                self.enforce_retention();
            }
            Input::KeepSending { per_tick } => {
                check_input_range("per_tick", per_tick, 0, limits::SEND_RATE_MAX)?;
                self.config.producer.send_per_tick = per_tick;
                self.setting_changed("send_per_tick", per_tick.to_string());
            }
            Input::UseKeys { on } => {
                self.config.producer.use_keys = on;
                self.setting_changed("use_keys", on.to_string());
            }
            Input::KeyCount { keys } => {
                check_input_range("keys", keys, 1, limits::KEYS_MAX)?;
                self.config.producer.key_count = keys;
                self.refresh_key_partitions();
                self.setting_changed("key_count", keys.to_string());
            }
            Input::HotKey { share_percent } => {
                check_input_range("share_percent", share_percent, 0, 100)?;
                self.config.producer.hot_key_share_percent = share_percent;
                self.setting_changed("hot_key_share_percent", share_percent.to_string());
            }
            Input::Pause { consumer } => {
                let c = self.consumer_index(consumer)?;
                if self.consumers[c].process != Process::Running {
                    return Err(self.wrong_state(c, "running"));
                }
                self.consumers[c].process = Process::Paused;
                self.emit(Event::Paused { tick: self.now, consumer });
            }
            Input::Resume { consumer } => {
                let c = self.consumer_index(consumer)?;
                if self.consumers[c].process != Process::Paused {
                    return Err(self.wrong_state(c, "paused"));
                }
                self.consumers[c].process = Process::Running;
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
                if !matches!(self.consumers[c].process, Process::Running | Process::Paused) {
                    return Err(self.wrong_state(c, "running or paused"));
                }
                self.begin_stop(c, false);
            }
            Input::Start { consumer } => {
                let c = self.consumer_index(consumer)?;
                if !matches!(self.consumers[c].process, Process::Crashed | Process::Stopped) {
                    return Err(self.wrong_state(c, "stopped or crashed"));
                }
                self.start_consumer(consumer);
            }
            Input::AddConsumer => {
                if self.consumers.len() >= limits::CONSUMERS_MAX as usize {
                    return Err(InputError::TooManyConsumers);
                }
                let id = self.add_consumer_card();
                self.start_consumer(id);
            }
            Input::RemoveConsumer { consumer } => {
                let c = self.consumer_index(consumer)?;
                match self.consumers[c].process {
                    Process::Running | Process::Paused => self.begin_stop(c, true),
                    Process::Stopping { deadline, .. } => {
                        self.consumers[c].process = Process::Stopping { deadline, remove: true };
                    }
                    Process::Crashed | Process::Stopped => self.remove_card(c),
                }
            }
            Input::RecordsPerPoll { records } => {
                check_input_range("records", records, 1, limits::RECORDS_PER_POLL_MAX)?;
                self.config.records_per_poll = records;
                self.setting_changed("records_per_poll", records.to_string());
            }
            Input::HandlePerTick { records } => {
                check_input_range("records", records, 1, limits::HANDLE_PER_TICK_MAX)?;
                self.config.handle_per_tick = records;
                self.setting_changed("handle_per_tick", records.to_string());
            }
            Input::Commit { commit } => {
                check_commit_mode("commit.interval_ticks", commit)
                    .map_err(|e| InputError::OutOfRange { field: e.field, message: e.message })?;
                self.config.commit = commit;
                self.setting_changed("commit", commit.label().to_string());
            }
            Input::Assignor { assignor } => {
                if self.group_state == GroupState::PreparingRebalance
                    || self.consumers.iter().any(|c| c.pending_assignment.is_some())
                {
                    // Switching protocols mid-rebalance would mix eager and cooperative rounds.
                    return Err(InputError::RebalanceInProgress);
                }
                self.config.assignor = assignor;
                self.setting_changed("assignor", assignor.variant_name().to_string());
            }
            Input::Idempotent { on } => {
                self.config.idempotent = on;
                self.setting_changed("idempotent", on.to_string());
            }
            Input::ResetOffsets { reset } => {
                if !self.members.is_empty() {
                    return Err(InputError::GroupNotInactive { state: self.group_state.name() });
                }
                self.reset_offsets(reset)?;
            }
            Input::PositionStore { position } => {
                check_position_model("position.write_ticks", position)
                    .map_err(|e| InputError::OutOfRange { field: e.field, message: e.message })?;
                self.config.position = position;
                let label = match position {
                    PositionModel::Group => "group",
                    PositionModel::Consumer { writes: crate::config::CheckpointWrites::Atomic, .. } => {
                        "atomic"
                    }
                    PositionModel::Consumer { writes: crate::config::CheckpointWrites::InPlace, .. } => {
                        "in-place"
                    }
                };
                self.setting_changed("position", label.to_string());
            }
            Input::Peek { advancing } => self.peek(advancing),
            Input::AddPartitions { count } => self.add_partitions(count)?,
            Input::KillBeforeCommit { consumer } => self.arm_kill_before_commit(consumer)?,
            Input::RollingUpdate { consumers } => self.begin_rolling_update(consumers)?,
            Input::LoadCheckpoint { consumer, partition, offset } => {
                let c = self.consumer_index(consumer)?;
                if partition >= self.config.partitions {
                    return Err(InputError::NoSuchPartition { partition });
                }
                self.consumers[c].store[partition as usize] = Some(offset);
            }
            Input::RestartFrom { reset } => {
                if self.pending_restart.is_some() || self.rolling.is_some() {
                    return Err(InputError::RestartPending);
                }
                self.validate_reset(reset)?;
                let restart: Vec<ConsumerId> =
                    self.consumers.iter().filter(|c| c.process != Process::Stopped).map(|c| c.id).collect();
                for c in 0..self.consumers.len() {
                    if matches!(self.consumers[c].process, Process::Running | Process::Paused) {
                        self.begin_stop(c, false);
                    }
                }
                self.pending_restart = Some(PendingRestart { reset, restart });
                self.try_finish_restart();
            }
        }
        Ok(())
    }

    fn setting_changed(&mut self, setting: &'static str, value: String) {
        self.emit(Event::SettingChanged { tick: self.now, setting, value });
    }

    fn consumer_index(&self, id: ConsumerId) -> Result<usize, InputError> {
        self.consumers.iter().position(|c| c.id == id).ok_or(InputError::NoSuchConsumer(id))
    }

    fn wrong_state(&self, c: usize, wanted: &'static str) -> InputError {
        let consumer = &self.consumers[c];
        InputError::WrongState { consumer: consumer.id, state: consumer.state().label(), wanted }
    }

    // ------------------------------------------------------------------ time

    /// Advances the simulation to tick `now`, one step per tick.
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
        let rate = self.config.producer.send_per_tick;
        if rate > 0 {
            self.produce(rate);
        }
        self.expire_sessions();
        for c in 0..self.consumers.len() {
            self.step_consumer(c);
        }
        self.try_complete_rebalance();
        self.finish_leaving();
        self.try_finish_restart();
        self.step_rolling_update();
        self.count_stopped_partitions();
        self.enforce_retention();
        self.sample_lag();
    }

    // -------------------------------------------------------------- producer

    fn refresh_key_partitions(&mut self) {
        let keys = self.config.producer.key_count as usize;
        let partitions = self.config.partitions;
        self.key_partitions =
            (0..keys).map(|i| partition_for_key(subject_key(i as u32).as_bytes(), partitions)).collect();
        if self.keyed_home.len() < keys {
            self.keyed_home.resize(keys, None);
        }
        if self.sink.subject_high.len() < keys {
            self.sink.subject_high.resize(keys, None);
        }
    }

    fn pick_subject(&mut self) -> u32 {
        let keys = self.config.producer.key_count;
        let hot = u32::from(self.config.producer.hot_key_share_percent);
        if hot == 0 || keys == 1 {
            return self.producer_rng.below(keys);
        }
        if self.producer_rng.below(100) < hot { 0 } else { 1 + self.producer_rng.below(keys - 1) }
    }

    fn produce(&mut self, count: u32) {
        assert!(count <= limits::SEND_RATE_MAX.max(limits::SEND_COUNT_MAX));
        let use_keys = self.config.producer.use_keys;
        for _ in 0..count {
            let subject = self.pick_subject();
            let partition = if use_keys {
                let p = self.key_partitions[subject as usize];
                let home = &mut self.keyed_home[subject as usize];
                // A keyed record's partition never changes while P is fixed.
                assert!(home.is_none_or(|h| h == p), "key user-{subject} moved partitions");
                *home = Some(p);
                p
            } else {
                self.keyless.next_partition(
                    self.config.producer.keyless,
                    self.config.partitions,
                    &mut self.producer_rng,
                )
            };
            let id = self.next_record_id;
            self.next_record_id += 1;
            let record = Record {
                id,
                produced_tick: self.now,
                subject,
                keyed: use_keys,
                handled: 0,
                lost: false,
                in_flight: false,
            };
            let offset = self.partitions[partition as usize].append(record);
            self.sink.metrics.produced += 1;
            self.emit(Event::Produced {
                tick: self.now,
                partition,
                offset,
                record_id: id,
                subject,
                keyed: use_keys,
            });
        }
    }

    fn enforce_retention(&mut self) {
        let retention = self.config.retention_records;
        for p in 0..self.partitions.len() {
            let log = &mut self.partitions[p];
            let excess = (log.records.len() as u64).saturating_sub(retention);
            if excess == 0 {
                continue;
            }
            let mut lost = 0u32;
            for _ in 0..excess {
                let record = log.records.pop_front().expect("excess records exist");
                log.log_start += 1;
                if record.handled == 0 && !record.in_flight && !record.lost {
                    lost += 1;
                    let (ids, count) = &mut self.retention_lost[p];
                    *count += 1;
                    if ids.len() < limits::FINDING_IDS_MAX {
                        ids.push(record.id);
                    }
                }
            }
            let new_log_start = log.log_start;
            self.sink.metrics.never_processed += u64::from(lost);
            self.sink.metrics.lost_to_retention += u64::from(lost);
            self.emit(Event::RetentionDeleted { tick: self.now, partition: p as u32, new_log_start, lost });
        }
    }

    // ------------------------------------------------------------- consumers

    fn add_consumer_card(&mut self) -> ConsumerId {
        let id = ConsumerId(self.next_consumer_number);
        self.next_consumer_number += 1;
        self.consumers.push(Consumer {
            id,
            process: Process::Stopped,
            member_id: None,
            host: format!("/10.0.0.{}", 10 + id.0),
            assigned: Vec::new(),
            positions: vec![None; self.partitions.len()],
            batch: VecDeque::new(),
            fetch_rotation: 0,
            next_auto_commit: 0,
            uncommitted: false,
            joined: false,
            handled: 0,
            step: LoopStep::Idle,
            crashed_at: None,
            crashed_during: None,
            remove_after_leave: false,
            pending_assignment: None,
            store: vec![None; self.partitions.len()],
            checkpoint: None,
            resumed_from: vec![None; self.partitions.len()],
            last_checkpoint: None,
            handled_by_partition: vec![0; self.partitions.len()],
            kill_before_commit: false,
        });
        id
    }

    /// A new incarnation joins the group (a JoinGroup without a member id).
    fn start_consumer(&mut self, id: ConsumerId) {
        let c = self.consumer_index(id).expect("starting a consumer that exists");
        let member_id = format!("{id}-{}", uuid(&mut self.group_rng));
        let consumer = &mut self.consumers[c];
        consumer.process = Process::Running;
        consumer.member_id = Some(member_id.clone());
        consumer.assigned.clear();
        consumer.positions.iter_mut().for_each(|p| *p = None);
        consumer.batch.clear();
        consumer.uncommitted = false;
        consumer.joined = true;
        consumer.crashed_at = None;
        consumer.crashed_during = None;
        consumer.pending_assignment = None;
        consumer.resumed_from.iter_mut().for_each(|r| *r = None);
        consumer.step = LoopStep::Idle;
        let host = consumer.host.clone();
        self.members.push(Member {
            member_id: member_id.clone(),
            consumer: id,
            host,
            expires_at: None,
            assignment: Vec::new(),
        });
        assert!(self.members.len() <= 2 * limits::CONSUMERS_MAX as usize);
        self.emit(Event::Started { tick: self.now, consumer: id, member_id });
        self.begin_rebalance(RebalanceReason::MemberJoined);
    }

    fn crash(&mut self, c: usize) {
        let now = self.now;
        self.abort_checkpoint(c);
        let abandoned = self.abandon_batch(c);
        let consumer = &mut self.consumers[c];
        let id = consumer.id;
        let member_id = consumer.member_id.take().expect("a live consumer is a member");
        consumer.process = Process::Crashed;
        consumer.assigned.clear();
        consumer.pending_assignment = None;
        consumer.positions.iter_mut().for_each(|p| *p = None);
        consumer.crashed_at = Some(now);
        consumer.crashed_during = Some(consumer.step);
        consumer.step = LoopStep::Idle;
        let expires_at = now + self.config.session_timeout_ticks;
        let member = self
            .members
            .iter_mut()
            .find(|m| m.member_id == member_id)
            .expect("a live consumer's member is in the group");
        member.expires_at = Some(expires_at);
        self.emit(Event::Crashed { tick: now, consumer: id, member_id, abandoned });
    }

    fn begin_stop(&mut self, c: usize, remove: bool) {
        let deadline = self.now + self.config.shutdown_deadline_ticks;
        self.consumers[c].process = Process::Stopping { deadline, remove };
        let consumer = self.consumers[c].id;
        self.emit(Event::Stopping { tick: self.now, consumer });
    }

    fn remove_card(&mut self, c: usize) {
        let consumer = self.consumers.remove(c);
        assert!(consumer.member_id.is_none(), "only a consumer out of the group is removed");
        self.emit(Event::Removed { tick: self.now, consumer: consumer.id });
    }

    /// Drops the in-flight batch; returns how many records were in it.
    fn abandon_batch(&mut self, c: usize) -> u32 {
        let batch = std::mem::take(&mut self.consumers[c].batch);
        let abandoned = batch.len() as u32;
        for fetched in batch {
            let committed = self.committed[fetched.partition as usize];
            let Some(record) = self.partitions[fetched.partition as usize].get_mut(fetched.offset) else {
                // Retention deleted it while in flight: nobody can read it again.
                self.sink.metrics.never_processed += 1;
                self.sink.metrics.lost_to_retention += 1;
                continue;
            };
            assert!(record.in_flight);
            record.in_flight = false;
            // Commit-before already moved the group past it: nobody will handle it.
            if record.handled == 0 && committed.is_some_and(|o| fetched.offset < o) && !record.lost {
                record.lost = true;
                self.sink.metrics.never_processed += 1;
            }
        }
        abandoned
    }

    fn step_consumer(&mut self, c: usize) {
        if self.consumers[c].checkpoint.is_some() && !self.finish_checkpoint(c) {
            return; // still writing its checkpoint: the loop waits for it
        }
        match self.consumers[c].process {
            Process::Crashed | Process::Stopped => {}
            Process::Stopping { deadline, .. } => {
                self.handle_some(c);
                if self.consumers[c].batch.is_empty() {
                    self.commit_on_close(c);
                    if !matches!(self.consumers[c].process, Process::Stopping { .. }) {
                        return; // an armed fault killed it at the commit
                    }
                    if self.consumers[c].checkpoint.is_none() {
                        self.leave(c);
                    }
                } else if self.now >= deadline {
                    let abandoned = self.abandon_batch(c);
                    let consumer = self.consumers[c].id;
                    self.emit(Event::ShutdownDeadlinePassed { tick: self.now, consumer, abandoned });
                    self.leave(c);
                }
            }
            Process::Running | Process::Paused => match self.group_state {
                GroupState::PreparingRebalance if !self.config.assignor.cooperative() => {
                    if !self.consumers[c].joined {
                        if !self.consumers[c].batch.is_empty() {
                            self.handle_some(c);
                            self.commit_if_batch_done(c);
                            if !self.consumers[c].alive() {
                                return; // an armed fault killed it at the commit
                            }
                        }
                        if self.consumers[c].batch.is_empty() && self.consumers[c].checkpoint.is_none() {
                            // onJoinPrepare: auto-commit commits what poll returned.
                            if self.group_commits() && matches!(self.config.commit, CommitMode::Auto { .. }) {
                                self.commit(c);
                            }
                            self.consumers[c].joined = true;
                            self.consumers[c].step = LoopStep::Poll;
                        }
                    } else {
                        self.consumers[c].step = LoopStep::Poll;
                    }
                }
                _ => {
                    if self.consumers[c].batch.is_empty() && self.consumers[c].checkpoint.is_none() {
                        // The poll boundary: a cooperative member applies its new
                        // assignment here, and rejoins a rebalance in progress
                        // without stopping what it keeps.
                        self.apply_pending_assignment(c);
                        if self.group_state == GroupState::PreparingRebalance {
                            self.consumers[c].joined = true;
                        }
                    }
                    let consumer = &self.consumers[c];
                    if consumer.batch.is_empty() && consumer.process == Process::Running {
                        self.poll(c);
                    }
                    self.handle_some(c);
                    self.commit_if_batch_done(c);
                }
            },
        }
    }

    /// `poll()`: auto-commit if due, fetch up to `records_per_poll`, and with
    /// commit-before, commit before handling anything.
    fn poll(&mut self, c: usize) {
        let now = self.now;
        if let (true, CommitMode::Auto { interval_ticks }) = (self.group_commits(), self.config.commit) {
            if now >= self.consumers[c].next_auto_commit {
                if self.consumers[c].positions.iter().any(Option::is_some) {
                    self.commit(c);
                }
                self.consumers[c].next_auto_commit = now + interval_ticks;
            }
        }
        let limit = self.config.records_per_poll;
        let mut remaining = limit;
        let n = self.consumers[c].assigned.len();
        if n == 0 {
            self.consumers[c].step = LoopStep::Idle;
            return;
        }
        let rotation = self.consumers[c].fetch_rotation % n;
        self.consumers[c].fetch_rotation = (rotation + 1) % n;
        for k in 0..n {
            if remaining == 0 {
                break;
            }
            let p = self.consumers[c].assigned[(rotation + k) % n] as usize;
            let log = &mut self.partitions[p];
            let mut position = self.consumers[c].positions[p].expect("assigned partitions have positions");
            if position < log.log_start {
                // OffsetOutOfRange → auto.offset.reset=earliest.
                let to = log.log_start;
                let consumer = self.consumers[c].id;
                self.consumers[c].positions[p] = Some(to);
                self.emit(Event::PositionReset {
                    tick: now,
                    consumer,
                    partition: p as u32,
                    from: position,
                    to,
                });
                position = to;
            }
            let log = &mut self.partitions[p];
            let available = log.log_end().saturating_sub(position);
            let take = available.min(u64::from(remaining));
            if take == 0 {
                continue;
            }
            let consumer = &mut self.consumers[c];
            for offset in position..position + take {
                let record = log.get_mut(offset).expect("fetched offsets are in the log");
                assert!(!record.in_flight, "one owner per partition: a record is fetched once at a time");
                record.in_flight = true;
                consumer.batch.push_back(Fetched {
                    partition: p as u32,
                    offset,
                    id: record.id,
                    subject: record.subject,
                    produced_tick: record.produced_tick,
                });
            }
            consumer.positions[p] = Some(position + take);
            remaining -= take as u32;
            let id = consumer.id;
            self.emit(Event::Fetched {
                tick: now,
                consumer: id,
                partition: p as u32,
                from: position,
                to: position + take,
            });
        }
        if remaining == limit {
            self.consumers[c].step = LoopStep::Poll;
            return;
        }
        self.consumers[c].step = LoopStep::Handle;
        if self.group_commits() && self.config.commit == CommitMode::Before {
            self.commit(c);
        }
    }

    fn handle_some(&mut self, c: usize) {
        let rate = self.config.handle_per_tick;
        for _ in 0..rate {
            let Some(fetched) = self.consumers[c].batch.pop_front() else { break };
            let (partition, offset) = (fetched.partition, fetched.offset);
            self.handle_record(c, fetched);
            if self.group_commits() && self.config.commit == CommitMode::EachRecord {
                if self.fault_at_commit(c) {
                    return;
                }
                self.commit_record(c, partition, offset + 1);
            }
        }
        if !self.consumers[c].batch.is_empty() {
            self.consumers[c].step = LoopStep::Handle;
        }
    }

    fn handle_record(&mut self, c: usize, fetched: Fetched) {
        let metrics = &mut self.sink.metrics;
        metrics.delivered += 1;
        let first = match self.partitions[fetched.partition as usize].get_mut(fetched.offset) {
            Some(record) => {
                assert_eq!(record.id, fetched.id);
                assert!(record.in_flight);
                record.in_flight = false;
                record.handled += 1;
                if record.lost {
                    record.lost = false;
                    metrics.never_processed -= 1;
                }
                record.handled == 1
            }
            // Deleted by retention while in flight: it was never handled before,
            // since a handled record is not fetched again once deleted.
            None => true,
        };
        let duplicate = !first;
        let mut out_of_key_order = false;
        if first {
            metrics.distinct_handled += 1;
            let high = &mut self.sink.subject_high[fetched.subject as usize];
            match *high {
                Some(h) if h > fetched.id => out_of_key_order = true,
                _ => *high = Some(fetched.id),
            }
        } else {
            metrics.duplicates += 1;
        }
        if out_of_key_order {
            metrics.out_of_key_order += 1;
        }
        let effect = !self.config.idempotent || first;
        if effect {
            metrics.effects += 1;
        }
        self.book(fetched.subject, fetched.id, first, effect);
        let end = &mut self.handled_end[fetched.partition as usize];
        *end = (*end).max(fetched.offset + 1);
        if self.config.bridge {
            self.bridge(&fetched);
        }
        let consumer = &mut self.consumers[c];
        consumer.handled += 1;
        consumer.handled_by_partition[fetched.partition as usize] += 1;
        consumer.uncommitted = true;
        let id = consumer.id;
        if self.sink.recent.len() == limits::SINK_RECENT_MAX {
            self.sink.recent.pop_front();
        }
        self.sink.recent.push_back(HandledRecord {
            tick: self.now,
            consumer: id,
            partition: fetched.partition,
            offset: fetched.offset,
            record_id: fetched.id,
            subject: fetched.subject,
            duplicate,
            out_of_key_order,
            effect,
            produced_tick: fetched.produced_tick,
        });
        self.emit(Event::Handled {
            tick: self.now,
            consumer: id,
            partition: fetched.partition,
            offset: fetched.offset,
            record_id: fetched.id,
            duplicate,
            out_of_key_order,
            effect,
        });
    }

    fn commit_if_batch_done(&mut self, c: usize) {
        let consumer = &self.consumers[c];
        if consumer.batch.is_empty() && consumer.uncommitted {
            if self.fault_at_commit(c) {
                return;
            }
            let commits = if !self.group_commits() {
                // booblik: checkpoint after the collector handled the batch.
                self.begin_checkpoint(c);
                true
            } else if self.config.commit == CommitMode::After {
                self.commit(c);
                true
            } else {
                false
            };
            self.consumers[c].uncommitted = false;
            // The loop's next line: the commit after the batch, or back to poll.
            self.consumers[c].step = if commits { LoopStep::Commit } else { LoopStep::Poll };
        }
    }

    /// `close()`: commit-after has committed at the batch end already;
    /// auto-commit commits on close.
    fn commit_on_close(&mut self, c: usize) {
        if !self.group_commits() {
            return self.commit_if_batch_done(c);
        }
        match self.config.commit {
            CommitMode::After => self.commit_if_batch_done(c),
            CommitMode::Auto { .. } => {
                if self.consumers[c].positions.iter().any(Option::is_some) {
                    self.commit(c);
                }
            }
            CommitMode::Before | CommitMode::EachRecord => {}
        }
    }

    /// `commitSync()`: the consumer's positions for all its partitions.
    fn commit(&mut self, c: usize) {
        let consumer = &self.consumers[c];
        let offsets: Vec<(u32, u64)> = consumer
            .assigned
            .iter()
            .map(|&p| (p, consumer.positions[p as usize].expect("assigned partitions have positions")))
            .collect();
        let id = consumer.id;
        for &(p, offset) in &offsets {
            self.set_committed(p, offset);
        }
        self.consumers[c].uncommitted = false;
        self.sink.metrics.commit_requests += 1;
        self.emit(Event::Committed { tick: self.now, consumer: id, offsets });
    }

    /// `commitSync({partition: offset})` for one handled record.
    fn commit_record(&mut self, c: usize, partition: u32, offset: u64) {
        self.set_committed(partition, offset);
        self.consumers[c].uncommitted = false;
        self.sink.metrics.commit_requests += 1;
        let consumer = self.consumers[c].id;
        self.emit(Event::Committed { tick: self.now, consumer, offsets: vec![(partition, offset)] });
    }

    /// Writes a committed offset, counting the records the group moves past unhandled.
    fn set_committed(&mut self, partition: u32, offset: u64) {
        let p = partition as usize;
        let log = &mut self.partitions[p];
        assert!(offset <= log.log_end(), "committed {offset} beyond log end {}", log.log_end());
        let old = self.committed[p];
        let metrics = &mut self.sink.metrics;
        match old {
            Some(old) if offset < old => {
                // Moving back: skipped records are back in the group's future.
                for o in log.present(offset, old) {
                    let record = log.get_mut(o).expect("present");
                    if record.lost {
                        record.lost = false;
                        metrics.never_processed -= 1;
                    }
                }
            }
            _ => {
                let from = old.unwrap_or(log.log_start);
                for o in log.present(from, offset) {
                    let record = log.get_mut(o).expect("present");
                    if record.handled == 0 && !record.in_flight && !record.lost {
                        record.lost = true;
                        metrics.never_processed += 1;
                    }
                }
            }
        }
        self.committed[p] = Some(offset);
    }

    fn leave(&mut self, c: usize) {
        let consumer = &mut self.consumers[c];
        let member_id = consumer.member_id.take().expect("a leaving consumer is a member");
        let remove = matches!(consumer.process, Process::Stopping { remove: true, .. });
        consumer.process = Process::Stopped;
        consumer.assigned.clear();
        consumer.pending_assignment = None;
        consumer.positions.iter_mut().for_each(|p| *p = None);
        consumer.step = LoopStep::Idle;
        assert!(consumer.batch.is_empty());
        let id = consumer.id;
        self.members.retain(|m| m.member_id != member_id);
        self.emit(Event::Left { tick: self.now, consumer: id, member_id });
        self.consumers[c].remove_after_leave = remove;
        self.begin_rebalance(RebalanceReason::MemberLeft);
    }

    /// Removes the cards of consumers that left with `RemoveConsumer`.
    fn finish_leaving(&mut self) {
        let mut c = 0;
        while c < self.consumers.len() {
            let consumer = &self.consumers[c];
            if consumer.process == Process::Stopped && consumer.remove_after_leave {
                self.remove_card(c);
            } else {
                c += 1;
            }
        }
    }

    // ----------------------------------------------------------------- group

    fn begin_rebalance(&mut self, reason: RebalanceReason) {
        if self.group_state != GroupState::PreparingRebalance {
            self.group_state = GroupState::PreparingRebalance;
            for consumer in &mut self.consumers {
                if consumer.member_id.is_some() {
                    consumer.joined = false;
                }
            }
            self.emit(Event::RebalanceStarted { tick: self.now, reason });
        }
    }

    fn expire_sessions(&mut self) {
        let now = self.now;
        let mut i = 0;
        while i < self.members.len() {
            if self.members[i].expires_at.is_some_and(|t| t <= now) {
                let member = self.members.remove(i);
                self.emit(Event::SessionExpired {
                    tick: now,
                    consumer: member.consumer,
                    member_id: member.member_id,
                });
                self.begin_rebalance(RebalanceReason::SessionExpired);
            } else {
                i += 1;
            }
        }
    }

    /// Completes a rebalance once every member has rejoined (a dead member
    /// holds it up until its session expires, as in Kafka).
    fn try_complete_rebalance(&mut self) {
        if self.group_state != GroupState::PreparingRebalance {
            return;
        }
        let ready = self.members.iter().all(|m| {
            m.expires_at.is_none()
                && self
                    .consumers
                    .iter()
                    .any(|c| c.member_id.as_deref() == Some(m.member_id.as_str()) && c.joined)
        });
        if !ready {
            return;
        }
        self.generation += 1;
        let plan = self.plan_assignment();
        let cooperative = self.config.assignor.cooperative();
        let mut assignment = Vec::with_capacity(plan.len());
        let mut resumes = Vec::new();
        for (member_id, partitions) in plan {
            let m = self.members.iter().position(|m| m.member_id == member_id).expect("planned member");
            self.members[m].assignment.clone_from(&partitions);
            let consumer_id = self.members[m].consumer;
            let c = self.consumer_index(consumer_id).expect("a member's consumer exists");
            if cooperative {
                // Applied at the member's next poll; it keeps consuming what it keeps.
                self.consumers[c].pending_assignment = Some(partitions.clone());
                assignment.push((consumer_id, partitions));
                continue;
            }
            let consumer = &mut self.consumers[c];
            assert!(consumer.batch.is_empty(), "members rejoin with no batch in flight");
            consumer.positions.iter_mut().for_each(|p| *p = None);
            let from_store = !matches!(self.config.position, PositionModel::Group);
            for &p in &partitions {
                let log = &self.partitions[p as usize];
                // The committed offset (or, booblik, the consumer's own store),
                // else auto.offset.reset=earliest.
                let stored = if from_store { consumer.store[p as usize] } else { self.committed[p as usize] };
                // A checkpoint restored from disk may be ahead of this run's log: it waits there.
                let start = stored.unwrap_or(log.log_start);
                consumer.positions[p as usize] = Some(start);
                resumes.push((c, p, start));
            }
            consumer.step = if partitions.is_empty() { LoopStep::Idle } else { LoopStep::Poll };
            consumer.assigned.clone_from(&partitions);
            consumer.fetch_rotation = 0;
            assignment.push((consumer_id, partitions));
        }
        crate::sort::sort_by(&mut assignment, |a, b| a.0.cmp(&b.0));
        self.group_state = if self.members.is_empty() { GroupState::Empty } else { GroupState::Stable };
        self.check_one_owner();
        let mut owners = vec![None; self.partitions.len()];
        for (consumer, partitions) in &assignment {
            for &p in partitions {
                owners[p as usize] = Some(*consumer);
            }
        }
        let moved: Vec<PartitionMove> = (0..self.partitions.len())
            .filter(|&p| owners[p] != self.owners[p])
            .map(|p| PartitionMove { partition: p as u32, from: self.owners[p], to: owners[p] })
            .collect();
        self.owners = owners;
        for (c, p, start) in resumes {
            self.note_resume(c, p, start);
        }
        self.last_rebalance =
            Some(RebalanceView { tick: self.now, generation: self.generation, moved: moved.clone() });
        self.emit(Event::RebalanceCompleted {
            tick: self.now,
            generation: self.generation,
            assignment,
            moved,
        });
    }

    /// The assignor's plan for the members in the group now: `(member id, partitions)`.
    fn plan_assignment(&self) -> Vec<(String, Vec<u32>)> {
        if self.config.assignor == crate::config::Assignor::Range {
            let mut member_ids: Vec<String> = self.members.iter().map(|m| m.member_id.clone()).collect();
            crate::sort::sort(&mut member_ids);
            let sorted: Vec<&str> = member_ids.iter().map(String::as_str).collect();
            return assign::range(&sorted, self.config.partitions)
                .into_iter()
                .map(|(m, p)| (m.to_string(), p))
                .collect();
        }
        const TOPIC: &str = "orders";
        // JoinGroup order: the order members joined (Kafka's leader sees them so).
        let members: Vec<String> = self.members.iter().map(|m| m.member_id.clone()).collect();
        // Built by insertion: `collect()` and `from([…])` sort first (see crate::sort).
        let topics: assign::TopicPartitions =
            crate::sort::map_from([(TOPIC.to_string(), self.config.partitions)]);
        let previous: assign::Assignment = crate::sort::map_from(self.members.iter().map(|m| {
            (m.member_id.clone(), crate::sort::map_from([(TOPIC.to_string(), m.assignment.clone())]))
        }));
        let result = match self.config.assignor.strategy() {
            assign::Strategy::CooperativeSticky => assign::cooperative_first_round(
                &assign::assign(assign::Strategy::Sticky, &members, &topics, &previous),
                &previous,
            ),
            strategy => assign::assign(strategy, &members, &topics, &previous),
        };
        members
            .into_iter()
            .map(|m| {
                let partitions = result.get(&m).and_then(|t| t.get(TOPIC)).cloned().unwrap_or_default();
                (m, partitions)
            })
            .collect()
    }

    /// Cooperative protocol, at a poll boundary: revoke what the new
    /// assignment drops (a member that revoked anything rejoins, so a second
    /// rebalance hands it on) and start what it adds from the committed offset.
    fn apply_pending_assignment(&mut self, c: usize) {
        let Some(new) = self.consumers[c].pending_assignment.take() else { return };
        let old = self.consumers[c].assigned.clone();
        let revoked: Vec<u32> = old.iter().copied().filter(|p| !new.contains(p)).collect();
        if !revoked.is_empty()
            && self.group_commits()
            && matches!(self.config.commit, CommitMode::Auto { .. })
        {
            // onPartitionsRevoked: auto-commit what poll returned for them.
            self.commit(c);
        }
        let from_store = !matches!(self.config.position, PositionModel::Group);
        let mut resumes = Vec::new();
        let consumer = &mut self.consumers[c];
        for &p in &revoked {
            consumer.positions[p as usize] = None;
        }
        for &p in new.iter().filter(|p| !old.contains(p)) {
            let log = &self.partitions[p as usize];
            let stored = if from_store { consumer.store[p as usize] } else { self.committed[p as usize] };
            let start = stored.unwrap_or(log.log_start);
            consumer.positions[p as usize] = Some(start);
            resumes.push((p, start));
        }
        consumer.step = if new.is_empty() { LoopStep::Idle } else { LoopStep::Poll };
        consumer.assigned = new;
        consumer.fetch_rotation = 0;
        for (p, start) in resumes {
            self.note_resume(c, p, start);
        }
        if !revoked.is_empty() {
            self.begin_rebalance(RebalanceReason::PartitionsRevoked);
        }
    }

    /// Counts the partitions no consumer works on because of a rebalance.
    fn count_stopped_partitions(&mut self) {
        let preparing = self.group_state == GroupState::PreparingRebalance;
        let handing_over = self.consumers.iter().any(|c| c.pending_assignment.is_some());
        if self.members.is_empty() || !(preparing || handing_over) {
            return;
        }
        let cooperative = self.config.assignor.cooperative();
        let stopped = (0..self.partitions.len() as u32)
            .filter(|p| {
                !self.consumers.iter().any(|c| {
                    matches!(c.process, Process::Running | Process::Paused)
                        && c.assigned.contains(p)
                        && (cooperative || !preparing || !c.joined)
                })
            })
            .count();
        self.sink.metrics.partition_ticks_stopped += stopped as u64;
    }

    fn check_one_owner(&self) {
        let mut owners = vec![0u8; self.partitions.len()];
        for member in &self.members {
            for &p in &member.assignment {
                owners[p as usize] += 1;
                assert!(
                    owners[p as usize] == 1,
                    "partition {p} has two owners in generation {}",
                    self.generation
                );
            }
        }
    }

    // ----------------------------------------------------------------- reset

    fn validate_reset(&self, reset: ResetSpec) -> Result<(), InputError> {
        match reset {
            ResetSpec::Offset { partition: Some(p), .. } if p >= self.config.partitions => {
                Err(InputError::NoSuchPartition { partition: p })
            }
            _ => Ok(()),
        }
    }

    fn reset_offsets(&mut self, reset: ResetSpec) -> Result<(), InputError> {
        self.validate_reset(reset)?;
        let mut targets = Vec::new();
        for (p, log) in self.partitions.iter().enumerate() {
            let clamp = |o: u64| o.clamp(log.log_start, log.log_end());
            let target = match reset {
                ResetSpec::Earliest => Some(log.log_start),
                ResetSpec::Latest => Some(log.log_end()),
                ResetSpec::Offset { partition, offset } => {
                    (partition.is_none_or(|q| q as usize == p)).then(|| clamp(offset))
                }
                ResetSpec::ShiftBy { by } => {
                    let current =
                        self.committed[p].ok_or(InputError::NoCommittedOffset { partition: p as u32 })?;
                    Some(clamp(current.saturating_add_signed(by)))
                }
            };
            if let Some(t) = target {
                targets.push((p as u32, t));
            }
        }
        for &(p, offset) in &targets {
            self.set_committed(p, offset);
            // The operator chose this replay (or skip): it is the new last known position.
            self.handled_end[p as usize] = offset;
        }
        self.emit(Event::OffsetsReset { tick: self.now, reset, offsets: targets });
        Ok(())
    }

    fn try_finish_restart(&mut self) {
        if self.pending_restart.is_none() || !self.members.is_empty() {
            return;
        }
        if self.group_state == GroupState::PreparingRebalance {
            self.try_complete_rebalance();
        }
        let PendingRestart { reset, restart } = self.pending_restart.take().expect("checked");
        // A refusal here (shift-by with nothing committed) leaves offsets as they were.
        let _ = self.reset_offsets(reset);
        for id in restart {
            if self.consumer_index(id).is_ok() {
                self.start_consumer(id);
            }
        }
    }

    // ------------------------------------------------------------------ read

    /// What restarting `partition` from `offset` would do: how many handled
    /// records the group would deliver again, and how many unhandled ones it
    /// would skip. `None` for a partition that does not exist.
    #[must_use]
    pub fn restart_preview(&self, partition: u32, offset: u64) -> Option<RestartPreview> {
        let log = self.partitions.get(partition as usize)?;
        let target = offset.clamp(log.log_start, log.log_end());
        let current = self.committed[partition as usize].unwrap_or(log.log_start);
        let count = |range: std::ops::Range<u64>, handled: bool| {
            range.filter(|&o| log.get(o).is_some_and(|r| (r.handled > 0) == handled)).count() as u64
        };
        Some(RestartPreview {
            offset: target,
            replay: count(log.present(target, current), true),
            skip: count(log.present(current, target), false),
        })
    }

    /// The group's committed offset for `partition`.
    #[must_use]
    pub fn committed(&self, partition: u32) -> Option<u64> {
        self.committed[partition as usize]
    }

    pub(crate) fn group_state(&self) -> GroupState {
        self.group_state
    }

    pub(crate) fn members(&self) -> &[Member] {
        &self.members
    }

    pub(crate) fn log_end(&self, partition: u32) -> u64 {
        self.partitions[partition as usize].log_end()
    }

    pub(crate) fn partition_count(&self) -> u32 {
        self.partitions.len() as u32
    }

    #[must_use]
    pub fn metrics(&self) -> Metrics {
        let mut m = self.sink.metrics.clone();
        m.total_lag = (0..self.partition_count())
            .map(|p| {
                let log = &self.partitions[p as usize];
                log.log_end() - self.held_position(p).1.unwrap_or(log.log_start).min(log.log_end())
            })
            .sum();
        m.active_consumers =
            self.members.iter().filter(|m| m.expires_at.is_none() && !m.assignment.is_empty()).count() as u32;
        m.generation = self.generation;
        m
    }

    /// Up to `count` records of `partition` from `from` (clamped to the log).
    #[must_use]
    pub fn records(&self, partition: u32, from: u64, count: u32) -> Vec<RecordView> {
        let Some(log) = self.partitions.get(partition as usize) else { return Vec::new() };
        let range = log.present(from, from.saturating_add(u64::from(count)));
        range
            .map(|offset| {
                let r = log.get(offset).expect("present");
                RecordView {
                    offset,
                    record_id: r.id,
                    subject: r.subject,
                    keyed: r.keyed,
                    produced_tick: r.produced_tick,
                    handled: r.handled,
                    lost: r.lost,
                    in_flight: r.in_flight,
                }
            })
            .collect()
    }

    /// The whole state as plain data.
    #[must_use]
    pub fn view(&self) -> View {
        let owner_of = |p: u32| self.members.iter().find(|m| m.assignment.contains(&p));
        let partitions = (0..self.partition_count())
            .map(|p| {
                let log = &self.partitions[p as usize];
                let committed = self.committed[p as usize];
                let owner = owner_of(p);
                let position = owner.and_then(|m| {
                    self.consumers
                        .iter()
                        .find(|c| c.member_id.as_deref() == Some(m.member_id.as_str()))
                        .and_then(|c| c.positions[p as usize])
                });
                PartitionView {
                    partition: p,
                    log_start: log.log_start,
                    log_end: log.log_end(),
                    committed,
                    held: self.held_position(p).1,
                    oldest_unprocessed_age: self.oldest_unprocessed_age(p),
                    lag: self.held_position(p).1.map(|o| log.log_end() - o.min(log.log_end())),
                    owner: owner.map(|m| m.consumer),
                    owner_alive: owner.is_some_and(|m| m.expires_at.is_none()),
                    position,
                }
            })
            .collect();
        let consumers = self
            .consumers
            .iter()
            .map(|c| {
                let member =
                    c.member_id.as_deref().and_then(|id| self.members.iter().find(|m| m.member_id == id));
                let ghost = self.members.iter().find(|m| m.consumer == c.id && m.expires_at.is_some());
                let state = c.state();
                ConsumerView {
                    id: c.id,
                    member_id: c.member_id.clone(),
                    state,
                    idle_spare: matches!(state, ConsumerState::Running | ConsumerState::Paused)
                        && self.group_state == GroupState::Stable
                        && member.is_some_and(|m| m.assignment.is_empty()),
                    partitions: match c.process {
                        Process::Crashed => ghost.map(|m| m.assignment.clone()).unwrap_or_default(),
                        _ => c.assigned.clone(),
                    },
                    in_flight: c
                        .batch
                        .iter()
                        .map(|f| InFlightRecord {
                            partition: f.partition,
                            offset: f.offset,
                            record_id: f.id,
                            subject: f.subject,
                        })
                        .collect(),
                    handled: c.handled,
                    step: c.step,
                    session_expires_at: ghost.and_then(|m| m.expires_at),
                    crashed_at: c.crashed_at,
                    crashed_during: c.crashed_during,
                    resumed_from: indexed(&c.resumed_from),
                    stored: indexed(&c.store),
                    writing_checkpoint: c.checkpoint.is_some(),
                }
            })
            .collect();
        View {
            tick: self.now,
            seed: self.config.seed,
            generation: self.generation,
            group_state: self.group_state.name().to_string(),
            settings: SettingsView {
                records_per_poll: self.config.records_per_poll,
                handle_per_tick: self.config.handle_per_tick,
                commit: self.config.commit,
                idempotent: self.config.idempotent,
                session_timeout_ticks: self.config.session_timeout_ticks,
                retention_records: self.config.retention_records,
                position: self.config.position,
                assignor: self.config.assignor,
                bridge: self.config.bridge,
            },
            producer: ProducerView {
                use_keys: self.config.producer.use_keys,
                key_count: self.config.producer.key_count,
                hot_key_share_percent: self.config.producer.hot_key_share_percent,
                send_per_tick: self.config.producer.send_per_tick,
                next_keyless_partition: self.next_keyless_partition(),
                last_peek: self.last_peek(),
            },
            partitions,
            consumers,
            metrics: self.metrics(),
            recent: self.sink.recent.iter().copied().collect(),
            restart_pending: self.pending_restart.is_some(),
            last_rebalance: self.last_rebalance.clone(),
            far: self.far_partitions(),
            last_expansion: self.last_expansion(),
            rolling_update: self.rolling_view(),
            events_dropped: self.events_dropped,
        }
    }

    /// Checks every invariant over the whole state (slow: for tests).
    ///
    /// # Panics
    /// With a message naming the broken invariant.
    pub fn check_invariants(&self) {
        self.check_one_owner();
        let mut lost_present = 0u64;
        for (p, log) in self.partitions.iter().enumerate() {
            if let Some(c) = self.committed[p] {
                assert!(c <= log.log_end(), "partition {p}: committed {c} > log end {}", log.log_end());
            }
            let mut previous = None;
            for r in &log.records {
                assert!(previous.is_none_or(|id| id < r.id), "partition {p}: ids increase with offsets");
                previous = Some(r.id);
                assert!(!(r.lost && r.handled > 0), "a handled record is not lost");
                lost_present += u64::from(r.lost);
            }
        }
        let in_flight: usize = self.consumers.iter().map(|c| c.batch.len()).sum();
        let flagged: usize =
            self.partitions.iter().map(|log| log.records.iter().filter(|r| r.in_flight).count()).sum();
        assert!(flagged <= in_flight, "every in-flight flag belongs to a batch");
        let m = &self.sink.metrics;
        assert!(m.never_processed >= lost_present, "never processed counts every lost record");
        assert!(m.delivered == m.distinct_handled + m.duplicates);
        if self.config.idempotent {
            // Holds when idempotence was on from the start; tests check that case.
            assert!(m.effects <= m.delivered);
        }
        assert!(self.members.len() <= 2 * limits::CONSUMERS_MAX as usize);
        assert!(self.events.len() <= limits::EVENTS_QUEUED_MAX);
        assert!(self.sink.recent.len() <= limits::SINK_RECENT_MAX);
        for log in &self.partitions {
            assert!(log.records.len() as u64 <= self.config.retention_records);
        }
    }
}

impl Consumer {
    fn alive(&self) -> bool {
        matches!(self.process, Process::Running | Process::Paused | Process::Stopping { .. })
    }

    fn state(&self) -> ConsumerState {
        match self.process {
            Process::Running => ConsumerState::Running,
            Process::Paused => ConsumerState::Paused,
            Process::Stopping { .. } => ConsumerState::Stopping,
            Process::Crashed => ConsumerState::Crashed,
            Process::Stopped => ConsumerState::Stopped,
        }
    }
}

fn check_input_range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &'static str,
    value: T,
    min: T,
    max: T,
) -> Result<(), InputError> {
    check_range(field, value, min, max)
        .map_err(|e| InputError::OutOfRange { field: e.field, message: e.message })
}

/// `(index, value)` of the entries that are set.
fn indexed(values: &[Option<u64>]) -> Vec<(u32, u64)> {
    values.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i as u32, v))).collect()
}

/// The key of subject `i`: `user-i`.
#[must_use]
pub fn subject_key(i: u32) -> String {
    format!("user-{i}")
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
