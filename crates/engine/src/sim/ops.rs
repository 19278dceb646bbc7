//! Operations (seed 004): lag and the age of the oldest unprocessed record
//! per partition over time, partition growth, and the payout ledger with its
//! "killed after the ledger commit, before the offset commit" fault.

use super::Sim;
use crate::config::{ConfigError, check_range, limits};
use crate::event::{Event, RebalanceReason, Tick};
use crate::input::{ConsumerId, InputError};
use crate::log::PartitionLog;
use serde::Serialize;
use std::collections::VecDeque;

/// Samples of lag and age kept per partition.
pub const HISTORY_SAMPLES_MAX: usize = 120;

/// One tick's lag and oldest-unprocessed age for a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LagSample {
    pub tick: Tick,
    pub lag: u64,
    /// Ticks since the oldest record the group has not moved past was produced (0 when none).
    pub oldest_unprocessed_age: u64,
}

/// What the last partition growth moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpansionView {
    pub tick: Tick,
    pub from: u32,
    pub to: u32,
    /// `(subject, old partition, new partition)` of every key that now maps elsewhere.
    pub moved: Vec<(u32, u32, u32)>,
}

/// One account's ledger: what the payouts did to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LedgerEntry {
    pub account: u32,
    /// Money paid out, in cents (every effect counts).
    pub balance_cents: u64,
    pub effects: u64,
    /// Effects of an operation that had taken effect before: a double payout.
    pub duplicate_effects: u64,
}

/// A payout operation's amount, from its operation (record) id: deterministic, 1.00 to 99.99.
#[must_use]
pub fn payout_cents(operation_id: u64) -> u64 {
    100 + operation_id.wrapping_mul(7919) % 9_900
}

impl Sim {
    /// The age of the oldest record the group has not moved past, in ticks.
    pub(crate) fn oldest_unprocessed_age(&self, partition: u32) -> u64 {
        let log = &self.partitions[partition as usize];
        let held = self.held_position(partition).1.unwrap_or(log.log_start).max(log.log_start);
        log.get(held).map_or(0, |r| self.now - r.produced_tick)
    }

    pub(super) fn sample_lag(&mut self) {
        for p in 0..self.partition_count() {
            let log = &self.partitions[p as usize];
            let held = self.held_position(p).1.unwrap_or(log.log_start).min(log.log_end());
            let sample = LagSample {
                tick: self.now,
                lag: log.log_end() - held,
                oldest_unprocessed_age: self.oldest_unprocessed_age(p),
            };
            let history = &mut self.lag_history[p as usize];
            if history.len() == HISTORY_SAMPLES_MAX {
                history.pop_front();
            }
            history.push_back(sample);
        }
    }

    /// The last [`HISTORY_SAMPLES_MAX`] ticks of `partition`'s lag and age, oldest first.
    #[must_use]
    pub fn lag_history(&self, partition: u32) -> Vec<LagSample> {
        self.lag_history.get(partition as usize).map(|h| h.iter().copied().collect()).unwrap_or_default()
    }

    /// `kafka-topics --alter --partitions`: the topic grows while the group
    /// runs. Keys remap for future records (old records stay where they are),
    /// and the group rebalances to take the new partitions.
    pub(super) fn add_partitions(&mut self, count: u32) -> Result<(), InputError> {
        let from = self.config.partitions;
        let to = from.saturating_add(count);
        let out_of_range = |e: ConfigError| InputError::OutOfRange { field: "count", message: e.message };
        check_range("partitions", count, 1, limits::PARTITIONS_MAX).map_err(out_of_range)?;
        check_range("partitions", to, 2, limits::PARTITIONS_MAX).map_err(out_of_range)?;
        if u64::from(to) * self.config.retention_records > limits::RETAINED_RECORDS_MAX {
            return Err(InputError::OutOfRange {
                field: "count",
                message: format!(
                    "{to} partitions × {} retained records would pass {}",
                    self.config.retention_records,
                    limits::RETAINED_RECORDS_MAX
                ),
            });
        }
        let added = (to - from) as usize;
        self.config.partitions = to;
        self.partitions.extend((0..added).map(|_| PartitionLog::default()));
        self.committed.extend(std::iter::repeat_n(None, added));
        self.owners.extend(std::iter::repeat_n(None, added));
        self.handled_end.extend(std::iter::repeat_n(0, added));
        self.retention_lost.extend((0..added).map(|_| (Vec::new(), 0)));
        self.far.extend((0..added).map(|_| super::booblik::FarLog::default()));
        self.lag_history.extend((0..added).map(|_| VecDeque::new()));
        for consumer in &mut self.consumers {
            consumer.positions.extend(std::iter::repeat_n(None, added));
            consumer.store.extend(std::iter::repeat_n(None, added));
            consumer.resumed_from.extend(std::iter::repeat_n(None, added));
            consumer.handled_by_partition.extend(std::iter::repeat_n(0, added));
        }
        let old = self.key_partitions.clone();
        self.refresh_key_partitions();
        let moved: Vec<(u32, u32, u32)> = old
            .iter()
            .zip(&self.key_partitions)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(s, (&a, &b))| (s as u32, a, b))
            .collect();
        // Keys keep their partition only while the count is fixed: a new count, new homes.
        self.keyed_home.iter_mut().for_each(|home| *home = None);
        self.emit(Event::PartitionsAdded { tick: self.now, from, to, moved_keys: moved.len() as u32 });
        self.last_expansion = Some(ExpansionView { tick: self.now, from, to, moved });
        if !self.members.is_empty() {
            // The consumers' metadata sees the new partitions and they rejoin.
            self.begin_rebalance(RebalanceReason::PartitionsAdded);
        }
        Ok(())
    }

    pub(super) fn last_expansion(&self) -> Option<ExpansionView> {
        self.last_expansion.clone()
    }

    /// Books a handled payout in its account's ledger.
    pub(super) fn book(&mut self, account: u32, operation_id: u64, first: bool, effect: bool) {
        if !effect {
            return;
        }
        let index = account as usize;
        if self.ledger.len() <= index {
            self.ledger.resize(index + 1, LedgerEntry::default());
        }
        let entry = &mut self.ledger[index];
        entry.account = account;
        entry.effects += 1;
        entry.balance_cents += payout_cents(operation_id);
        if !first {
            entry.duplicate_effects += 1;
            self.sink.metrics.double_paid_cents += payout_cents(operation_id);
        }
    }

    /// Every account's ledger that saw a payout.
    #[must_use]
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        self.ledger.iter().filter(|e| e.effects > 0).copied().collect()
    }

    /// Arms the fault: the consumer dies the next time it is about to commit,
    /// after its batch's effects are persisted.
    pub(super) fn arm_kill_before_commit(&mut self, consumer: ConsumerId) -> Result<(), InputError> {
        let c = self.consumer_index(consumer)?;
        if !self.consumers[c].alive() {
            return Err(self.wrong_state(c, "running, paused or stopping"));
        }
        self.consumers[c].kill_before_commit = true;
        Ok(())
    }

    /// Fires an armed fault at the commit point; returns whether the consumer died.
    pub(super) fn fault_at_commit(&mut self, c: usize) -> bool {
        if !std::mem::take(&mut self.consumers[c].kill_before_commit) {
            return false;
        }
        let consumer = self.consumers[c].id;
        self.emit(Event::KilledBeforeCommit { tick: self.now, consumer });
        self.crash(c);
        true
    }
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

/// Where a rolling update is, for the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RollingView {
    /// The consumer being restarted now.
    pub current: ConsumerId,
    /// `true` while it is stopping, `false` while it rejoins.
    pub stopping: bool,
    pub remaining: Vec<ConsumerId>,
}

impl Sim {
    /// Starts a rolling update of `consumers` (every running one when empty).
    pub(super) fn begin_rolling_update(&mut self, consumers: Vec<ConsumerId>) -> Result<(), InputError> {
        if self.rolling.is_some() || self.pending_restart.is_some() {
            return Err(InputError::RestartPending);
        }
        let mut queue: VecDeque<ConsumerId> = if consumers.is_empty() {
            self.consumers.iter().filter(|c| c.member_id.is_some()).map(|c| c.id).collect()
        } else {
            consumers.into_iter().collect()
        };
        for &id in &queue {
            let c = self.consumer_index(id)?;
            if !matches!(self.consumers[c].process, super::Process::Running | super::Process::Paused) {
                return Err(self.wrong_state(c, "running or paused"));
            }
        }
        let Some(first) = queue.pop_front() else { return Ok(()) };
        let c = self.consumer_index(first)?;
        self.begin_stop(c, false);
        self.rolling = Some(RollingUpdate { queue, phase: RollingPhase::Stopping(first) });
        Ok(())
    }

    /// Moves a rolling update on: restart the stopped consumer, and once the
    /// group is stable again, stop the next.
    pub(super) fn step_rolling_update(&mut self) {
        let Some(mut rolling) = self.rolling.take() else { return };
        match rolling.phase {
            RollingPhase::Stopping(id) => {
                let Ok(c) = self.consumer_index(id) else {
                    return; // removed: the update ends
                };
                if self.consumers[c].process == super::Process::Stopped {
                    rolling.phase = RollingPhase::Starting(id);
                    self.start_consumer(id);
                } else if !matches!(self.consumers[c].process, super::Process::Stopping { .. }) {
                    // It crashed on the way out: the update goes on without it.
                    rolling.phase = RollingPhase::Starting(id);
                }
            }
            RollingPhase::Starting(_) => {
                if self.group_state == super::GroupState::Stable {
                    let Some(next) = rolling.queue.pop_front() else {
                        return; // every consumer restarted: done
                    };
                    rolling.phase = match self.consumer_index(next) {
                        Ok(c)
                            if matches!(
                                self.consumers[c].process,
                                super::Process::Running | super::Process::Paused
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
        self.rolling = Some(rolling);
    }

    pub(super) fn rolling_view(&self) -> Option<RollingView> {
        self.rolling.as_ref().map(|r| {
            let (current, stopping) = match r.phase {
                RollingPhase::Stopping(id) => (id, true),
                RollingPhase::Starting(id) => (id, false),
            };
            RollingView { current, stopping, remaining: r.queue.iter().copied().collect() }
        })
    }
}
