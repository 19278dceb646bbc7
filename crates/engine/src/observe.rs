//! Observers: what one group did to each record (handled, in flight, moved
//! past unhandled), the split check's findings, lag and age history, and the
//! group's operational counters. They watch; nothing in the model reads them
//! to decide what a client or the broker does, except the application, which
//! asks whether a record is new to its group (its unique constraint).

use crate::broker::topic::Deleted;
use crate::client::Fetched;
use crate::event::Tick;
use crate::input::ConsumerId;
use crate::limits;
use crate::log::PartitionLog;
use serde::Serialize;
use std::collections::VecDeque;
use std::rc::Rc;

/// Samples of lag and age kept per partition.
pub const HISTORY_SAMPLES_MAX: usize = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// Resumed within one batch of the last known position: at-least-once replay.
    LegalReplay,
    /// Resumed more than one batch behind the last known position.
    ResumedTooFarBack,
    /// Records no consumer handled that the group has moved past (or retention deleted).
    NeverProcessed,
}

/// One thing the split check saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub tick: Tick,
    pub kind: FindingKind,
    pub partition: u32,
    pub consumer: Option<ConsumerId>,
    pub message: String,
    /// The records concerned (at most [`crate::limits::FINDING_IDS_MAX`]).
    pub record_ids: Vec<u64>,
    /// How many more records than listed.
    pub more: u64,
}

/// One tick's lag and oldest-unprocessed age for a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LagSample {
    pub tick: Tick,
    pub lag: u64,
    /// Ticks since the oldest record the group has not moved past was produced (0 when none).
    pub oldest_unprocessed_age: u64,
}

/// What one group did to one record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    /// Times the group's application handled it.
    pub handled: u32,
    /// Counted as never processed: the group moved past it unhandled.
    pub lost: bool,
    /// Counted as skipped: an `auto.offset.reset` started the group past it.
    pub skipped: bool,
    /// In how many of the group's consumers' fetched, unhandled batches it
    /// is: at most one, except in a share group, where a record whose lock
    /// expired can be acquired again while a stalled member still holds its copy.
    /// A byte: one copy per consumer at most (`CONSUMERS_MAX` is 64), and the
    /// mark stays 8 bytes, one per record the topic holds.
    pub in_flight: u8,
    /// The application wrote it to a retry topic or the dead-letter topic:
    /// moved past, but not lost (issue 40).
    pub parked: bool,
}

// One mark per record the topic holds, per group: kept at 8 bytes.
const _: () = assert!(std::mem::size_of::<Mark>() == 8);

/// A partition whose head record the group's handler keeps failing on (issue 40).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StuckPartition {
    /// Ticks the handler retried a record of it in place: no progress, records waiting.
    pub ticks: u64,
    /// The record it is failing on now, while it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing: Option<FailingRecord>,
    #[serde(skip)]
    last_tick: Option<Tick>,
}

/// The record a stuck partition's handler is failing on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FailingRecord {
    pub offset: u64,
    pub record_id: u64,
    /// Attempts so far.
    pub attempts: u32,
    /// The tick of its first failure while stuck.
    pub since: Tick,
}

/// A group's operational counters as its observer counted them: a copy,
/// for the `Sim` to compose the group's `Metrics` from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ObserverCounters {
    pub never_processed: u64,
    pub lost_to_retention: u64,
    pub peak_total_lag: u64,
    pub commit_requests: u64,
    pub torn_checkpoints: u64,
    pub bridged: u64,
    pub partition_ticks_stopped: u64,
    pub static_rejoins: u64,
    pub commit_failed: u64,
    pub members_left_poll_timeout: u64,
    pub skipped_by_reset: u64,
    pub archived: u64,
    pub redelivered: u64,
    /// Partition-ticks a handler retried a record in place, summed.
    pub stuck_partition_ticks: u64,
}

/// One group's observer.
///
/// # Calling contract
/// The `Sim` feeds it every change that concerns its group, in the order it
/// happens: records deleted, fetched, handled, abandoned, and committed
/// offsets moving. Its marks log starts where the topic's partition starts,
/// offset for offset, and trails its end: a record the group has not fetched
/// or moved past has the default mark, so producing costs the observers
/// nothing and the marks are written out only as far as the group got.
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupObserver {
    marks: Vec<PartitionLog<Mark>>,
    /// Offsets of retained records marked lost, per partition: the split
    /// check lists them without scanning the logs. Shared with snapshots until it changes.
    /// Sorted: offsets join near the end as the group moves on and leave at
    /// the front with retention, so a deque keeps both cheap.
    lost: Vec<Rc<VecDeque<u64>>>,
    never_processed: u64,
    lost_to_retention: u64,
    /// Per partition, one past the highest offset handled: the last known position.
    handled_end: Vec<u64>,
    /// Legal replays and resumes too far back, oldest first (bounded).
    findings: VecDeque<Finding>,
    findings_dropped: u64,
    /// Per partition, ids of records retention deleted unhandled (bounded) and their count.
    retention_lost: Vec<(Vec<u64>, u64)>,
    lag_history: Vec<VecDeque<LagSample>>,
    /// The highest total lag sampled.
    peak_total_lag: u64,
    /// Commit requests (Kafka) or checkpoint writes (consumer-side stores).
    commit_requests: u64,
    torn_checkpoints: u64,
    /// Records the application wrote to the bridge target topic.
    bridged: u64,
    /// Partition-ticks no consumer worked because a rebalance was in progress.
    partition_ticks_stopped: u64,
    /// Static members that came back within their session and took their own place.
    static_rejoins: u64,
    /// Commits that failed with `CommitFailedException` (the member had left the group).
    commit_failed: u64,
    /// Members whose client left the group when their poll timer ran out.
    members_left_poll_timeout: u64,
    /// Records an `auto.offset.reset` jumped over, unhandled (part of
    /// never processed once the group commits past them).
    skipped_by_reset: u64,
    /// Share group: records archived (delivered up to the limit, or rejected).
    archived: u64,
    /// Share group: acquisitions of a record delivered before.
    redelivered: u64,
    /// Per partition: ticks its handler retried in place, and the record now failing.
    stuck: Vec<StuckPartition>,
}

impl GroupObserver {
    pub fn new(partitions: u32) -> GroupObserver {
        let mut observer = GroupObserver::default();
        observer.add_partitions(partitions);
        observer
    }

    pub fn add_partitions(&mut self, added: u32) {
        let added = added as usize;
        self.marks.extend((0..added).map(|_| PartitionLog::default()));
        self.lost.extend((0..added).map(|_| Rc::default()));
        self.handled_end.extend(std::iter::repeat_n(0, added));
        self.retention_lost.extend((0..added).map(|_| (Vec::new(), 0)));
        self.lag_history.extend((0..added).map(|_| VecDeque::new()));
        self.stuck.extend((0..added).map(|_| StuckPartition::default()));
    }

    /// Its counters, a copy.
    pub fn counters(&self) -> ObserverCounters {
        ObserverCounters {
            never_processed: self.never_processed,
            lost_to_retention: self.lost_to_retention,
            peak_total_lag: self.peak_total_lag,
            commit_requests: self.commit_requests,
            torn_checkpoints: self.torn_checkpoints,
            bridged: self.bridged,
            partition_ticks_stopped: self.partition_ticks_stopped,
            static_rejoins: self.static_rejoins,
            commit_failed: self.commit_failed,
            members_left_poll_timeout: self.members_left_poll_timeout,
            skipped_by_reset: self.skipped_by_reset,
            archived: self.archived,
            redelivered: self.redelivered,
            stuck_partition_ticks: self.stuck_partition_ticks(),
        }
    }

    /// A member of the group sent a commit request (Kafka), wrote a
    /// checkpoint (a consumer-side store), or a share consumer its
    /// acknowledgements.
    pub fn handle_commit_request(&mut self) {
        self.commit_requests += 1;
    }

    /// A member's checkpoint tore (an in-place write cut by a crash).
    pub fn handle_torn_checkpoint(&mut self) {
        self.torn_checkpoints += 1;
    }

    /// The application wrote a record to the bridge target topic.
    pub fn handle_bridged(&mut self) {
        self.bridged += 1;
    }

    /// `partitions` partitions had no consumer working this tick: a rebalance was in progress.
    pub fn handle_partitions_stopped(&mut self, partitions: u64) {
        self.partition_ticks_stopped += partitions;
    }

    /// A static member came back within its session and took its own place.
    pub fn handle_static_rejoin(&mut self) {
        self.static_rejoins += 1;
    }

    /// A commit threw `CommitFailedException`: the member had left the group.
    pub fn handle_commit_failed(&mut self) {
        self.commit_failed += 1;
    }

    /// A member's client left the group: its poll timer ran out.
    pub fn handle_member_left_poll_timeout(&mut self) {
        self.members_left_poll_timeout += 1;
    }

    /// Share group: the broker archived `records` records of the group.
    pub fn handle_archived(&mut self, records: u64) {
        self.archived += records;
    }

    /// Share group: a record delivered before was acquired again.
    pub fn handle_redelivered(&mut self) {
        self.redelivered += 1;
    }

    /// An operator's reset moved `partition`'s committed offset to `offset`:
    /// the group's new last known position there.
    pub fn handle_offsets_reset(&mut self, partition: u32, offset: u64) {
        self.handled_end[partition as usize] = offset;
    }

    /// The group's total lag this tick, for its peak.
    pub fn handle_total_lag(&mut self, total: u64) {
        self.peak_total_lag = self.peak_total_lag.max(total);
    }

    /// One past the highest offset of `partition` handled: its last known position.
    pub fn handled_end(&self, partition: u32) -> u64 {
        self.handled_end[partition as usize]
    }

    /// Legal replays and resumes too far back, oldest first, and how many older ones went.
    pub fn findings(&self) -> (&VecDeque<Finding>, u64) {
        (&self.findings, self.findings_dropped)
    }

    /// Ids of `partition`'s records retention deleted unhandled (bounded), and their count.
    pub fn retention_lost(&self, partition: u32) -> &(Vec<u64>, u64) {
        &self.retention_lost[partition as usize]
    }

    /// `partition`'s lag and age samples, oldest first.
    pub fn lag_history(&self, partition: u32) -> Option<&VecDeque<LagSample>> {
        self.lag_history.get(partition as usize)
    }

    /// Per partition: ticks its handler retried in place, and the record failing now.
    pub fn stuck(&self) -> &[StuckPartition] {
        &self.stuck
    }

    /// The handler failed on `fetched` at `attempt` and will try it again in
    /// place: the partition is stuck this tick (counted once a tick).
    pub fn handle_stuck(&mut self, fetched: &Fetched, attempts: u32, now: Tick) {
        let stuck = &mut self.stuck[fetched.partition as usize];
        if stuck.last_tick != Some(now) {
            stuck.last_tick = Some(now);
            stuck.ticks += 1;
        }
        let since = match stuck.failing {
            Some(f) if f.offset == fetched.offset => f.since,
            _ => now,
        };
        stuck.failing =
            Some(FailingRecord { offset: fetched.offset, record_id: fetched.id, attempts, since });
    }

    /// The partition's failing record is done with (handled, skipped,
    /// written elsewhere): it flows again.
    fn unstick(&mut self, partition: u32, offset: u64) {
        let stuck = &mut self.stuck[partition as usize];
        if stuck.failing.is_some_and(|f| f.offset == offset) {
            stuck.failing = None;
        }
    }

    /// Ticks any partition of the group was stuck, summed.
    pub fn stuck_partition_ticks(&self) -> u64 {
        self.stuck.iter().map(|s| s.ticks).sum()
    }

    /// The application wrote the failed `fetched` to a retry topic or the
    /// dead-letter topic and moves past it: out of flight, not lost.
    pub fn handle_parked(&mut self, fetched: &Fetched) {
        self.unstick(fetched.partition, fetched.offset);
        if let Some(mark) = self.marks[fetched.partition as usize].get_mut(fetched.offset) {
            assert!(mark.in_flight > 0);
            mark.in_flight -= 1;
            mark.parked = true;
        }
    }

    /// A parked record handled from a retry topic or the dead-letter replay:
    /// handled, as if delivered. Returns whether it is the group's first handling.
    pub fn handle_unparked(&mut self, partition: u32, offset: u64) -> bool {
        let p = partition as usize;
        let Some(marks) = self.marks.get_mut(p) else { return true };
        let first = match marks.get_mut(offset) {
            Some(mark) => {
                mark.handled += 1;
                if mark.lost {
                    mark.lost = false;
                    self.never_processed -= 1;
                    remove_sorted(Rc::make_mut(&mut self.lost[p]), offset);
                }
                mark.handled == 1
            }
            None => true,
        };
        let end = &mut self.handled_end[p];
        *end = (*end).max(offset + 1);
        first
    }

    /// The mark of a record the topic holds (`None` before the log start).
    pub fn mark(&self, partition: u32, offset: u64) -> Option<Mark> {
        let marks = self.marks.get(partition as usize)?;
        if offset < marks.log_start {
            return None;
        }
        Some(marks.get(offset).copied().unwrap_or_default())
    }

    /// `(log start, end of the written marks)` of a partition, for the invariant checks.
    pub fn bounds(&self, partition: u32) -> (u64, u64) {
        let marks = &self.marks[partition as usize];
        (marks.log_start, marks.log_end())
    }

    /// Writes default marks out to `to`.
    fn extend_to(&mut self, partition: u32, to: u64) {
        let marks = &mut self.marks[partition as usize];
        let missing = to.saturating_sub(marks.log_end());
        marks.records.extend_with(missing as usize, Mark::default());
    }

    /// Offsets of retained records the group moved past unhandled.
    pub fn lost_offsets(&self, partition: u32) -> &VecDeque<u64> {
        &self.lost[partition as usize]
    }

    /// Retention is about to delete `deleted`; `id_of` names a record still there.
    pub fn handle_retention(&mut self, deleted: Deleted, id_of: impl Fn(u64) -> Option<u64>) -> u32 {
        let p = deleted.partition as usize;
        let marks = &self.marks[p];
        let mut lost = 0u32;
        // Past the written marks, nothing was fetched or moved past: all lost.
        let unwritten = marks.log_end().max(marks.log_start)..deleted.new_log_start;
        for offset in marks.present(marks.log_start, deleted.new_log_start) {
            let mark = marks.get(offset).expect("present");
            if mark.lost {
                remove_sorted(Rc::make_mut(&mut self.lost[p]), offset);
            }
            if mark.handled == 0 && mark.in_flight == 0 && !mark.lost && !mark.parked {
                lost += 1;
                let (ids, count) = &mut self.retention_lost[p];
                *count += 1;
                if ids.len() < limits::FINDING_IDS_MAX {
                    ids.extend(id_of(offset));
                }
            }
        }
        if !unwritten.is_empty() {
            lost += (unwritten.end - unwritten.start) as u32;
            let (ids, count) = &mut self.retention_lost[p];
            *count += unwritten.end - unwritten.start;
            let room = limits::FINDING_IDS_MAX.saturating_sub(ids.len());
            ids.extend(unwritten.take(room).filter_map(&id_of));
        }
        self.marks[p].delete_before(deleted.new_log_start);
        assert_eq!(self.marks[p].log_start, deleted.new_log_start, "marks start where the log starts");
        self.never_processed += u64::from(lost);
        self.lost_to_retention += u64::from(lost);
        lost
    }

    /// A consumer fetched `from..to`. `shared`: a share group's acquisition,
    /// or a fetch while a member of the group is stalled (`stall`) or has
    /// left on its poll timeout with a batch in hand: either may overlap that
    /// member's copy, which its group gave away.
    pub fn handle_fetched(&mut self, partition: u32, from: u64, to: u64, shared: bool) {
        self.extend_to(partition, to);
        let marks = &mut self.marks[partition as usize];
        assert!(from >= marks.log_start, "fetched offsets are in the log");
        marks.for_each_mut(from, to, |mark| {
            assert!(
                shared || mark.in_flight == 0,
                "one owner per partition: a record is fetched once at a time"
            );
            // Bounded by the group's consumers, each holding one copy at most.
            assert!(u32::from(mark.in_flight) < limits::CONSUMERS_MAX);
            mark.in_flight += 1;
        });
    }

    /// The handler failed on `fetched` (a poison record): out of flight, not handled.
    pub fn handle_failed(&mut self, fetched: &Fetched) {
        self.unstick(fetched.partition, fetched.offset);
        if let Some(mark) = self.marks[fetched.partition as usize].get_mut(fetched.offset) {
            assert!(mark.in_flight > 0);
            mark.in_flight -= 1;
        }
    }

    /// A share group is done with a record it never handled: archived (its
    /// handler failed at every delivery, or it was rejected) or accepted
    /// without being handled (implicit acknowledgement after a failure).
    pub fn handle_done_unhandled(&mut self, partition: u32, offset: u64) {
        let p = partition as usize;
        // Read first: writing would copy a chunk a snapshot shares.
        let unhandled =
            self.marks[p].get(offset).is_some_and(|m| m.handled == 0 && m.in_flight == 0 && !m.lost);
        if unhandled {
            self.marks[p].get_mut(offset).expect("present").lost = true;
            self.never_processed += 1;
            insert_sorted(Rc::make_mut(&mut self.lost[p]), offset);
        }
    }

    /// The topic's partition was cut back to `offset` (a new leader's
    /// shorter log): the marks past it go with the records, and what was
    /// counted never processed among them no longer exists to be processed.
    pub fn handle_truncated(&mut self, partition: u32, offset: u64) {
        let p = partition as usize;
        let kept = self.lost[p].partition_point(|&o| o < offset);
        let gone = self.lost[p].len() - kept;
        if gone > 0 {
            Rc::make_mut(&mut self.lost[p]).truncate(kept);
            self.never_processed -= gone as u64;
        }
        self.marks[p].truncate_to(offset);
        self.handled_end[p] = self.handled_end[p].min(offset);
    }

    /// The application handles `fetched`; returns whether the group handles it
    /// for the first time.
    pub fn handle_delivered(&mut self, fetched: &Fetched) -> bool {
        if fetched.may_fail() {
            // Only a record the handler may fail on gets a partition stuck.
            self.unstick(fetched.partition, fetched.offset);
        }
        let p = fetched.partition as usize;
        let first = match self.marks[p].get_mut(fetched.offset) {
            Some(mark) => {
                assert!(mark.in_flight > 0);
                mark.in_flight -= 1;
                mark.handled += 1;
                if mark.lost {
                    mark.lost = false;
                    self.never_processed -= 1;
                    remove_sorted(Rc::make_mut(&mut self.lost[p]), fetched.offset);
                }
                mark.handled == 1
            }
            // Deleted by retention while in flight: it was never handled before,
            // since a handled record is not fetched again once deleted.
            None => true,
        };
        let end = &mut self.handled_end[p];
        *end = (*end).max(fetched.offset + 1);
        first
    }

    /// A batch was dropped unhandled (a crash, a missed shutdown deadline).
    pub fn handle_abandoned(&mut self, fetched: &Fetched, committed: Option<u64>) {
        let p = fetched.partition as usize;
        let Some(mark) = self.marks[p].get_mut(fetched.offset) else {
            // Retention deleted it while in flight: nobody can read it again.
            self.never_processed += 1;
            self.lost_to_retention += 1;
            return;
        };
        assert!(mark.in_flight > 0);
        mark.in_flight -= 1;
        // Commit-before already moved the group past it: nobody will handle it.
        if mark.handled == 0 && committed.is_some_and(|o| fetched.offset < o) && !mark.lost {
            mark.lost = true;
            self.never_processed += 1;
            insert_sorted(Rc::make_mut(&mut self.lost[p]), fetched.offset);
        }
    }

    /// The committed offset moved from `old` to `new`: records moved past
    /// unhandled are lost; moving back brings them into the group's future.
    /// Only marks that change are written, so snapshots keep sharing the rest.
    pub fn handle_commit(&mut self, partition: u32, old: Option<u64>, new: u64) {
        let p = partition as usize;
        let marks = &mut self.marks[p];
        match old {
            Some(old) if new < old => {
                for o in marks.present(new, old) {
                    if marks.get(o).is_some_and(|m| m.lost) {
                        marks.get_mut(o).expect("present").lost = false;
                        self.never_processed -= 1;
                        remove_sorted(Rc::make_mut(&mut self.lost[p]), o);
                    }
                }
            }
            _ => {
                self.extend_to(partition, new);
                let marks = &mut self.marks[p];
                let from = old.unwrap_or(marks.log_start);
                for o in marks.present(from, new) {
                    if marks
                        .get(o)
                        .is_some_and(|m| m.handled == 0 && m.in_flight == 0 && !m.lost && !m.parked)
                    {
                        marks.get_mut(o).expect("present").lost = true;
                        self.never_processed += 1;
                        insert_sorted(Rc::make_mut(&mut self.lost[p]), o);
                    }
                }
            }
        }
    }

    /// An `auto.offset.reset` starts `partition` at `to` instead of `from`:
    /// counts the records in between nobody of the group handled, once
    /// each. Returns how many.
    pub fn handle_reset_skip(&mut self, partition: u32, from: u64, to: u64) -> u64 {
        self.extend_to(partition, to);
        let marks = &mut self.marks[partition as usize];
        let mut skipped = 0;
        for o in marks.present(from, to) {
            let mark = marks.get_mut(o).expect("present");
            if mark.handled == 0 && mark.in_flight == 0 && !mark.skipped {
                mark.skipped = true;
                skipped += 1;
            }
        }
        self.skipped_by_reset += skipped;
        skipped
    }

    /// A consumer starts `partition` from `start`: what the split check makes
    /// of the gap to the last known position. `id_of` names the records.
    pub fn judge_resume(
        &mut self,
        now: Tick,
        consumer: ConsumerId,
        partition: u32,
        start: u64,
        batch: u64,
        id_of: impl Fn(u64) -> Option<u64>,
    ) {
        let last_known = self.handled_end[partition as usize];
        if start >= last_known {
            return;
        }
        let gap = last_known - start;
        let marks = &self.marks[partition as usize];
        let replayed: Vec<u64> = marks
            .present(start, last_known)
            .filter(|&o| marks.get(o).is_some_and(|m| m.handled > 0))
            .filter_map(&id_of)
            .take(limits::FINDING_IDS_MAX)
            .collect();
        let (kind, message) = if gap <= batch {
            (
                FindingKind::LegalReplay,
                format!(
                    "{consumer} resumed P{partition} from {start}, {gap} behind the last known position {last_known}: within one batch ({batch}), legal under at-least-once"
                ),
            )
        } else {
            (
                FindingKind::ResumedTooFarBack,
                format!(
                    "{consumer} resumed P{partition} from {start}, {gap} behind the last known position {last_known}: more than one batch ({batch})"
                ),
            )
        };
        let more = gap.saturating_sub(replayed.len() as u64);
        if self.findings.len() == limits::FINDINGS_MAX {
            self.findings.pop_front();
            self.findings_dropped += 1;
        }
        self.findings.push_back(Finding {
            tick: now,
            kind,
            partition,
            consumer: Some(consumer),
            message,
            record_ids: replayed,
            more,
        });
    }

    pub fn handle_lag_sample(&mut self, partition: u32, sample: LagSample) {
        let history = &mut self.lag_history[partition as usize];
        if history.len() == HISTORY_SAMPLES_MAX {
            history.pop_front();
        }
        history.push_back(sample);
    }

    /// The invariants over the marks: returns how many are in flight.
    pub fn check(&self) -> usize {
        let mut lost_present = 0u64;
        let mut in_flight = 0;
        for (p, marks) in self.marks.iter().enumerate() {
            let mut lost_here = 0usize;
            for m in &marks.records {
                assert!(!(m.lost && m.handled > 0), "a handled record is not lost");
                lost_here += usize::from(m.lost);
                in_flight += usize::from(m.in_flight);
            }
            assert_eq!(lost_here, self.lost[p].len(), "P{p}: the lost set matches the marks");
            assert!(
                self.lost[p].iter().zip(self.lost[p].iter().skip(1)).all(|(a, b)| a < b),
                "P{p}: the lost set is sorted"
            );
            lost_present += lost_here as u64;
        }
        assert!(self.never_processed >= lost_present, "never processed counts every lost record");
        in_flight
    }
}

/// Adds `offset` to a sorted set of offsets (nothing if it is there).
fn insert_sorted(set: &mut VecDeque<u64>, offset: u64) {
    if let Err(at) = set.binary_search(&offset) {
        set.insert(at, offset);
    }
}

/// Takes `offset` out of a sorted set of offsets (nothing if it is not there).
fn remove_sorted(set: &mut VecDeque<u64>, offset: u64) {
    if let Ok(at) = set.binary_search(&offset) {
        set.remove(at);
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn fetched(offset: u64) -> Fetched {
        Fetched {
            partition: 0,
            offset,
            id: offset,
            subject: 0,
            keyed: true,
            produced_tick: 0,
            poison: false,
            failing: crate::log::Failing::default(),
            delivery_count: 0,
            producer_copy: false,
            producer_reordered: false,
        }
    }

    #[test]
    fn records_moved_past_unhandled_are_lost_until_handled_or_moved_back() {
        let mut observer = GroupObserver::new(1);
        observer.handle_fetched(0, 0, 2, false);
        assert!(observer.handle_delivered(&fetched(0)), "first time");
        // Commit-before moved the group to 5: 2, 3, 4 are lost; 1 is in flight.
        observer.handle_commit(0, None, 5);
        assert_eq!(observer.never_processed, 3);
        assert_eq!(observer.lost_offsets(0).iter().copied().collect::<Vec<_>>(), vec![2, 3, 4]);
        // The in-flight one is abandoned past the committed offset: lost too.
        observer.handle_abandoned(&fetched(1), Some(5));
        assert_eq!(observer.never_processed, 4);
        // A reset back to 3 brings 3 and 4 back into the group's future.
        observer.handle_commit(0, Some(5), 3);
        assert_eq!(observer.never_processed, 2);
        observer.handle_fetched(0, 3, 4, false);
        assert!(observer.handle_delivered(&fetched(3)));
        assert_eq!(observer.never_processed, 2, "1 and 2 stay behind the committed offset, unhandled");
        assert_eq!(observer.lost_offsets(0).iter().copied().collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(observer.check(), 0);
    }

    /// A snapshot (a clone) keeps sharing the marks a reset or a commit
    /// leaves as they are: only chunks with a changed mark are copied.
    #[test]
    fn commits_and_resets_copy_only_the_chunks_they_change() {
        let mut observer = GroupObserver::new(1);
        observer.handle_fetched(0, 0, 2_000, false);
        for o in 0..2_000 {
            observer.handle_delivered(&fetched(o));
        }
        observer.handle_commit(0, None, 2_000);
        let snapshot = observer.clone();
        let chunks = |o: &GroupObserver| o.marks[0].records.shared_chunks(&snapshot.marks[0].records);
        assert_eq!(chunks(&observer), 8, "2,000 marks in 8 chunks, all shared");
        // A reset back to 0 and forward again: nothing was lost, nothing changes.
        observer.handle_commit(0, Some(2_000), 0);
        observer.handle_commit(0, Some(0), 2_000);
        assert_eq!(chunks(&observer), 8, "no chunk copied");
        // Fetching one record again changes one chunk.
        observer.handle_commit(0, Some(2_000), 1_000);
        observer.handle_fetched(0, 1_000, 1_001, false);
        assert_eq!(chunks(&observer), 7);
        assert!(snapshot.mark(0, 1_000).is_some_and(|m| m.in_flight == 0), "the snapshot is unchanged");
    }

    #[test]
    fn retention_counts_what_the_group_never_handled() {
        let mut observer = GroupObserver::new(1);
        observer.handle_fetched(0, 0, 1, false);
        observer.handle_delivered(&fetched(0));
        let deleted = Deleted { partition: 0, new_log_start: 2 };
        assert_eq!(observer.handle_retention(deleted, Some), 1);
        assert_eq!((observer.never_processed, observer.lost_to_retention), (1, 1));
        assert_eq!(observer.retention_lost[0], (vec![1], 1));
        assert_eq!(observer.mark(0, 1), None);
        assert_eq!(observer.mark(0, 2), Some(Mark::default()));
    }

    #[test]
    fn a_resume_behind_the_last_known_position_is_judged_by_the_batch() {
        let mut observer = GroupObserver::new(1);
        observer.handle_fetched(0, 0, 8, false);
        for o in 0..8 {
            observer.handle_delivered(&fetched(o));
        }
        observer.judge_resume(1, ConsumerId(1), 0, 6, 3, Some);
        observer.judge_resume(2, ConsumerId(1), 0, 2, 3, Some);
        let kinds: Vec<FindingKind> = observer.findings.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, vec![FindingKind::LegalReplay, FindingKind::ResumedTooFarBack]);
        assert_eq!(observer.findings[1].record_ids, vec![2, 3, 4, 5, 6, 7]);
    }
}
