//! Routing for each group: rebalances between its coordinator and its
//! consumers, offset resets and the restart from an offset, rolling updates,
//! and the stopped-partition and lag samples its observer keeps.

use super::Sim;
use crate::broker::GroupState;
use crate::config::{CommitMode, GroupProtocol, PositionModel};
use crate::event::{Event, RebalanceReason};
use crate::input::{ConsumerId, InputError, ResetSpec};
use crate::view::ConsumerState;
use crate::view::{LagSample, RollingView};
use std::collections::VecDeque;

/// The whole-group reset waiting for the group to empty.
#[derive(Debug, Clone)]
pub(crate) struct PendingRestart {
    reset: ResetSpec,
    restart: Vec<ConsumerId>,
}

/// A rolling update under way: each consumer in turn stops (finishing its
/// batch within the shutdown deadline), then starts again as a new member
/// once the group has settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RollingUpdate {
    /// Consumers still to restart, in order.
    queue: VecDeque<ConsumerId>,
    phase: RollingPhase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RollingPhase {
    Stopping(ConsumerId),
    Starting(ConsumerId),
}

impl Sim {
    /// Tells the coordinator; when a rebalance starts, every member of the
    /// group learns it must rejoin.
    pub(super) fn begin_rebalance(&mut self, g: usize, reason: RebalanceReason) {
        assert_eq!(self.protocol(g), GroupProtocol::Classic, "only the classic protocol rebalances");
        let config = &self.groups[g].config;
        let (delay, timeout) = (config.initial_rebalance_delay_ticks, config.max_poll_interval_ticks);
        self.coordinators[g].handle_initial_delay(self.now, delay, timeout);
        if !self.coordinators[g].handle_rebalance_trigger() {
            return;
        }
        for consumer in self.consumers.iter_mut().filter(|c| c.group() == g && c.member_id().is_some()) {
            consumer.handle_rebalance_started();
        }
        self.emit(Event::RebalanceStarted { tick: self.now, group: g as u32, reason });
    }

    /// `offsets.retention`: a group without members loses its committed
    /// offsets once it has been empty that long, and with them the group.
    pub(super) fn expire_offsets(&mut self, g: usize) {
        let Some(retention) = self.groups[g].config.offsets_retention_ticks else { return };
        let empty = self.coordinators[g].state() == crate::broker::GroupState::Empty
            && self.consumers.iter().all(|c| c.group() != g || c.member_id().is_none());
        self.offsets[g].handle_group_empty(self.now, empty);
        let Some(expired) = self.offsets[g].poll_expired(self.now, retention) else { return };
        // A group the coordinator never saw and that never committed does not exist yet.
        let existed = self.coordinators[g].has_history() || !expired.is_empty();
        if !expired.is_empty() {
            self.emit(Event::OffsetsExpired { tick: self.now, group: g as u32, offsets: expired });
        }
        // No offset is left, so Kafka deletes the empty group (a share group's
        // state lives in the share coordinator and is not retained this way).
        if existed && self.protocol(g) != GroupProtocol::Share {
            self.coordinators[g].handle_group_deleted();
            self.emit(Event::GroupDeleted { tick: self.now, group: g as u32 });
        }
    }

    pub(super) fn expire_sessions(&mut self, g: usize) {
        if self.protocol(g) != GroupProtocol::Classic {
            return self.expire_consumer_group(g);
        }
        for member in self.coordinators[g].poll_expired_sessions(self.now) {
            self.emit(Event::SessionExpired {
                tick: self.now,
                consumer: member.consumer,
                member_id: member.member_id,
            });
            self.begin_rebalance(g, RebalanceReason::SessionExpired);
        }
    }

    /// Completes group `g`'s rebalance once every member has rejoined: eager
    /// members start their new partitions from the committed offsets now;
    /// cooperative members apply theirs at their next poll.
    pub(super) fn try_complete_rebalance(&mut self, g: usize) {
        let delay = self.groups[g].config.initial_rebalance_delay_ticks;
        if self.coordinators[g].poll_initial_delay(self.now, delay) {
            return; // an empty group's first join phase still waits for members
        }
        let assignor = self.groups[g].settings.assignor;
        // The leader assigns the partitions its client's metadata knows.
        let partitions = self.leader_metadata(g).unwrap_or(self.topic.partition_count());
        let Some(completed) = self.coordinators[g].poll_completed_rebalance(assignor, partitions) else {
            return;
        };
        if self.groups[g].config.metadata_max_age_ticks.is_some() {
            let leader = self.coordinators[g].leader();
            for consumer in self.consumers.iter_mut().filter(|c| c.group() == g) {
                consumer.handle_assignment_snapshot((leader == Some(consumer.id())).then_some(partitions));
            }
        }
        let cooperative = assignor.cooperative();
        let mut assignment = Vec::with_capacity(completed.plan.len());
        let mut resumes = Vec::new();
        for (consumer_id, partitions) in completed.plan {
            let c = self.consumer_index(consumer_id).expect("a member's consumer exists");
            if cooperative {
                // Applied at the member's next poll; it keeps consuming what it keeps.
                self.consumers[c].handle_cooperative_assignment(partitions.clone());
                assignment.push((consumer_id, partitions));
                continue;
            }
            let starts: Vec<(u32, u64)> =
                partitions.iter().map(|&p| (p, self.start_position(c, p))).collect();
            self.consumers[c].assign(partitions.clone(), &starts);
            if let CommitMode::Auto { interval_ticks } = self.groups[g].settings.commit {
                self.consumers[c].handle_join_complete(self.now, interval_ticks);
            }
            resumes.extend(starts.into_iter().map(|(p, start)| (c, p, start)));
            assignment.push((consumer_id, partitions));
        }
        super::sort_by_consumer(&mut assignment);
        let moved = self.coordinators[g].handle_assignment_applied(self.now, &assignment);
        for (c, p, start) in resumes {
            self.note_resume(c, p, start);
        }
        self.emit(Event::RebalanceCompleted {
            tick: self.now,
            group: g as u32,
            generation: completed.generation,
            assignment,
            moved: moved.into(),
        });
    }

    /// With `metadata_max_age_ticks`, the partition count the classic group
    /// leader's metadata holds; `None` when the leader sees the topic as it is.
    fn leader_metadata(&self, g: usize) -> Option<u32> {
        self.groups[g].config.metadata_max_age_ticks?;
        let leader = self.coordinators[g].leader()?;
        self.consumers.iter().find(|c| c.id() == leader)?.known_partitions()
    }

    /// `metadata.max.age.ms`, in a classic member's `poll()`: its client
    /// refreshes the topic's metadata when the age has passed, and a leader
    /// whose metadata no longer matches what it assigned rejoins, which
    /// starts a rebalance. Until then, added partitions have no owner.
    pub(super) fn refresh_metadata(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let Some(age) = self.groups[g].config.metadata_max_age_ticks else { return };
        let partitions = self.topic.partition_count();
        self.consumers[c].handle_metadata_tick(self.now, age, partitions);
        let leads = self.coordinators[g].leader() == Some(self.consumers[c].id());
        if leads
            && self.consumers[c].metadata_changed_since_assignment()
            && self.coordinators[g].state() == GroupState::Stable
        {
            self.begin_rebalance(g, RebalanceReason::PartitionsAdded);
        }
    }

    /// Cooperative protocol, at a poll boundary: revoke what the new
    /// assignment drops (a member that revoked anything rejoins, so a second
    /// rebalance hands it on) and start what it adds from the committed offset.
    pub(super) fn apply_pending_assignment(&mut self, c: usize) {
        let Some(new) = self.consumers[c].poll_pending_assignment() else { return };
        let g = self.consumers[c].group();
        let settings = self.groups[g].settings;
        let old = self.consumers[c].assigned();
        let revokes = old.iter().any(|p| !new.contains(p));
        let changed = *old != new;
        let consumer_protocol = self.protocol(g) == GroupProtocol::Consumer;
        let auto_commit = settings.group_commits() && settings.commit.is_auto();
        if consumer_protocol && changed && auto_commit && self.consumers[c].has_positions() {
            // The KIP-848 client commits before every reconciliation
            // (`maybeAutoCommitSyncBeforeRevocation`). The classic one does not
            // at a cooperative revocation: it committed at its JoinGroup.
            self.commit(c);
        }
        let old = self.consumers[c].assigned();
        let starts: Vec<(u32, u64)> =
            new.iter().filter(|p| !old.contains(p)).map(|&p| (p, self.start_position(c, p))).collect();
        self.consumers[c].apply_assignment(new, &starts);
        for (p, start) in starts {
            self.note_resume(c, p, start);
        }
        if let (false, CommitMode::Auto { interval_ticks }) = (consumer_protocol, settings.commit) {
            // The SyncGroup answer's onJoinComplete, at this poll.
            self.consumers[c].handle_join_complete(self.now, interval_ticks);
        }
        if consumer_protocol {
            // Owned partitions changed: the next heartbeat goes now.
            if changed {
                self.consumers[c].handle_owned_partitions_changed();
            }
        } else if revokes {
            self.begin_rebalance(g, RebalanceReason::PartitionsRevoked);
        }
    }

    /// Counts the partitions no consumer of group `g` works on because of a rebalance.
    pub(super) fn count_stopped_partitions(&mut self, g: usize) {
        match self.protocol(g) {
            GroupProtocol::Consumer => return self.count_reconciling_partitions(g),
            // Nobody stops in a share group: a member takes its new partitions at once.
            GroupProtocol::Share => return,
            GroupProtocol::Classic => {}
        }
        let preparing = self.coordinators[g].state() == GroupState::PreparingRebalance;
        let handing_over = self.consumers.iter().any(|c| c.group() == g && c.has_pending_assignment());
        if self.coordinators[g].is_empty() || !(preparing || handing_over) {
            return;
        }
        let cooperative = self.groups[g].settings.assignor.cooperative();
        self.count_unconsumed_partitions(g, |c| cooperative || !preparing || !c.joined());
    }

    /// Adds to group `g`'s stopped partition-ticks the partitions no running
    /// member consumes, a member counting only when `works(member)`.
    fn count_unconsumed_partitions(&mut self, g: usize, works: impl Fn(&crate::client::Consumer) -> bool) {
        let stopped = (0..self.topic.partition_count())
            .filter(|p| {
                !self.consumers.iter().any(|c| {
                    c.group() == g
                        && matches!(c.state(), ConsumerState::Running | ConsumerState::Paused)
                        && c.assigned().contains(p)
                        && works(c)
                })
            })
            .count();
        self.observers[g].handle_partitions_stopped(stopped as u64);
    }

    /// Consumer protocol: while the group is assigning or reconciling, the
    /// partitions no running member of group `g` is consuming.
    fn count_reconciling_partitions(&mut self, g: usize) {
        if !matches!(self.coordinators[g].state(), GroupState::Assigning | GroupState::Reconciling) {
            return;
        }
        self.count_unconsumed_partitions(g, |_| true);
    }

    // ----------------------------------------------------------------- reset

    fn validate_reset(&self, reset: ResetSpec) -> Result<(), InputError> {
        match reset {
            ResetSpec::Offset { partition: Some(p), .. } if p >= self.topic.partition_count() => {
                Err(InputError::NoSuchPartition { partition: p })
            }
            _ => Ok(()),
        }
    }

    /// `kafka-consumer-groups --reset-offsets` on group `g` (the caller
    /// checked it is inactive): every target is clamped to the log.
    pub(super) fn reset_offsets(&mut self, g: usize, reset: ResetSpec) -> Result<(), InputError> {
        self.validate_reset(reset)?;
        let mut targets = Vec::new();
        for p in 0..self.topic.partition_count() {
            // `--to-latest` is listOffsets(latest): the high watermark. Retention
            // counts the leader's records: with followers behind it may have deleted
            // past the high watermark, and nothing below the log start is left.
            let start = self.topic.log_start(p);
            let end = self.high_watermark(p).max(start);
            let clamp = |o: u64| o.clamp(start, end);
            let target = match reset {
                ResetSpec::Earliest => Some(start),
                ResetSpec::Latest => Some(end),
                ResetSpec::Offset { partition, offset } => {
                    partition.is_none_or(|q| q == p).then(|| clamp(offset))
                }
                ResetSpec::ShiftBy { by } => {
                    let current =
                        self.offsets[g].get(p).ok_or(InputError::NoCommittedOffset { partition: p })?;
                    Some(clamp(current.saturating_add_signed(by)))
                }
            };
            if let Some(t) = target {
                targets.push((p, t));
            }
        }
        for &(p, offset) in &targets {
            self.set_committed(g, p, offset);
            // The operator chose this replay (or skip): it is the new last known position.
            self.observers[g].handle_offsets_reset(p, offset);
        }
        self.emit(Event::OffsetsReset { tick: self.now, group: g as u32, reset, offsets: targets });
        Ok(())
    }

    /// Stop every consumer of group `g`, reset its offsets once it is empty,
    /// and start them again.
    pub(super) fn begin_restart(&mut self, g: usize, reset: ResetSpec) -> Result<(), InputError> {
        if self.groups[g].pending_restart.is_some() || self.groups[g].rolling.is_some() {
            return Err(InputError::RestartPending);
        }
        self.validate_reset(reset)?;
        let restart: Vec<ConsumerId> = self
            .consumers
            .iter()
            .filter(|c| c.group() == g && c.state() != ConsumerState::Stopped)
            .map(|c| c.id())
            .collect();
        for c in 0..self.consumers.len() {
            if self.consumers[c].group() == g
                && matches!(self.consumers[c].state(), ConsumerState::Running | ConsumerState::Paused)
            {
                self.begin_stop(c, false);
            }
        }
        self.groups[g].pending_restart = Some(PendingRestart { reset, restart });
        self.try_finish_restart(g);
        Ok(())
    }

    pub(super) fn try_finish_restart(&mut self, g: usize) {
        if self.groups[g].pending_restart.is_none() || !self.coordinators[g].is_empty() {
            return;
        }
        if self.coordinators[g].state() == GroupState::PreparingRebalance {
            self.try_complete_rebalance(g);
        }
        let PendingRestart { reset, restart } = self.groups[g].pending_restart.take().expect("checked");
        // A refusal here (shift-by with nothing committed) leaves offsets as they were.
        let _ = self.reset_offsets(g, reset);
        for id in restart {
            let Ok(c) = self.consumer_index(id) else { continue };
            if self.consumers[c].alive() {
                // A stalled process the group no longer counts: the operator kills it.
                self.crash(c);
            }
            self.start_consumer(id);
        }
    }

    // ------------------------------------------------------- rolling update

    /// Starts a rolling update of `consumers` (every member of group `g` when empty).
    pub(super) fn begin_rolling_update(
        &mut self,
        g: usize,
        consumers: Vec<ConsumerId>,
    ) -> Result<(), InputError> {
        if self.groups[g].rolling.is_some() || self.groups[g].pending_restart.is_some() {
            return Err(InputError::RestartPending);
        }
        let mut queue: VecDeque<ConsumerId> = if consumers.is_empty() {
            self.consumers
                .iter()
                .filter(|c| c.group() == g && c.member_id().is_some())
                .map(|c| c.id())
                .collect()
        } else {
            consumers.into_iter().collect()
        };
        for &id in &queue {
            let c = self.consumer_index(id)?;
            if self.consumers[c].group() != g {
                return Err(InputError::NotInGroup {
                    consumer: id,
                    group: self.groups[g].config.name.clone(),
                });
            }
            if !matches!(self.consumers[c].state(), ConsumerState::Running | ConsumerState::Paused) {
                return Err(self.wrong_state(c, "running or paused"));
            }
        }
        let Some(first) = queue.pop_front() else { return Ok(()) };
        let c = self.consumer_index(first)?;
        self.begin_stop(c, false);
        self.groups[g].rolling = Some(RollingUpdate { queue, phase: RollingPhase::Stopping(first) });
        Ok(())
    }

    /// Moves a rolling update on: restart the stopped consumer, and once the
    /// group is stable again, stop the next.
    pub(super) fn step_rolling_update(&mut self, g: usize) {
        let Some(mut rolling) = self.groups[g].rolling.take() else { return };
        match rolling.phase {
            RollingPhase::Stopping(id) => {
                let Ok(c) = self.consumer_index(id) else {
                    return; // removed: the update ends
                };
                if self.consumers[c].state() == ConsumerState::Stopped {
                    rolling.phase = RollingPhase::Starting(id);
                    self.start_consumer(id);
                } else if !matches!(self.consumers[c].state(), ConsumerState::Stopping { .. }) {
                    // It crashed on the way out: the update goes on without it.
                    rolling.phase = RollingPhase::Starting(id);
                }
            }
            RollingPhase::Starting(_) => {
                if self.coordinators[g].state() == GroupState::Stable {
                    let Some(next) = rolling.queue.pop_front() else {
                        return; // every consumer restarted: done
                    };
                    rolling.phase = match self.consumer_index(next) {
                        Ok(c)
                            if matches!(
                                self.consumers[c].state(),
                                ConsumerState::Running | ConsumerState::Paused
                            ) =>
                        {
                            self.begin_stop(c, false);
                            RollingPhase::Stopping(next)
                        }
                        _ => RollingPhase::Starting(next),
                    };
                }
            }
        }
        self.groups[g].rolling = Some(rolling);
    }

    pub(super) fn rolling_view(&self, g: usize) -> Option<RollingView> {
        self.groups[g].rolling.as_ref().map(|r| {
            let (current, stopping) = match r.phase {
                RollingPhase::Stopping(id) => (id, true),
                RollingPhase::Starting(id) => (id, false),
            };
            RollingView { current, stopping, remaining: r.queue.iter().copied().collect() }
        })
    }

    // ------------------------------------------------------------ lag, age

    /// The position held for `partition` in group `g` and by whom: the
    /// committed offset (Kafka), or the owner's stored checkpoint (positions
    /// on the consumer).
    pub(crate) fn held_position(&self, g: usize, partition: u32) -> (Option<ConsumerId>, Option<u64>) {
        if self.protocol(g) == crate::config::GroupProtocol::Share {
            return (None, self.share_start(g, partition));
        }
        let holder = self.coordinators[g].owners().get(partition as usize).copied().flatten();
        let position = match self.groups[g].settings.position {
            PositionModel::Group => self.offsets[g].get(partition),
            PositionModel::Consumer { .. } => holder
                .and_then(|id| self.consumers.iter().find(|c| c.id() == id))
                .and_then(|c| c.stored(partition)),
        };
        (holder, position)
    }

    /// The age of the oldest record group `g` has not moved past, in ticks.
    pub(crate) fn oldest_unprocessed_age(&self, g: usize, partition: u32) -> u64 {
        let start = self.topic.log_start(partition);
        let held = self.held_position(g, partition).1.unwrap_or(start).max(start);
        self.topic.get(partition, held).map_or(0, |r| self.now - r.produced_tick)
    }

    /// Log end − the position held (from the log start before any).
    pub(crate) fn lag_of(&self, g: usize, partition: u32) -> u64 {
        // Lag is measured to the high watermark (listOffsets(latest)).
        let (start, end) = (self.topic.log_start(partition), self.high_watermark(partition));
        // A share group's records done inside its window are not lag either.
        let done = self.share_partition(g, partition).map_or(0, |sp| sp.done_count());
        (end - self.held_position(g, partition).1.unwrap_or(start).min(end)).saturating_sub(done)
    }

    pub(super) fn sample_lag(&mut self, g: usize) {
        let mut total = 0;
        for p in 0..self.topic.partition_count() {
            let sample = LagSample {
                tick: self.now,
                lag: self.lag_of(g, p),
                oldest_unprocessed_age: self.oldest_unprocessed_age(g, p),
            };
            total += sample.lag;
            self.observers[g].handle_lag_sample(p, sample);
        }
        self.observers[g].handle_total_lag(total);
    }
}
