//! booblik's mechanisms (seed 000): a consumer-side offset store with atomic
//! or in-place checkpoint writes, `resumedFrom` and `/stats`, the bridge that
//! erases keys, and the `partitionFor(null)` peek.

use super::{Consumer, Sim};
use crate::config::{CheckpointWrites, PositionModel, limits};
use crate::event::{Event, Tick};
use crate::input::ConsumerId;
use crate::partitioner::partition_for_key;
use crate::sim::subject_key;
use serde::Serialize;
use std::collections::VecDeque;

/// A checkpoint write under way: these positions land at `done_at`.
#[derive(Debug, Clone)]
pub(crate) struct PendingCheckpoint {
    positions: Vec<(u32, u64)>,
    done_at: Tick,
}

/// The last checkpoint a consumer completed (booblik's `lastCheckpoint`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointView {
    pub tick: Tick,
    pub positions: Vec<(u32, u64)>,
}

/// One entry of booblik's `/stats`, per consumer and partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerStats {
    pub consumer: ConsumerId,
    pub partition: u32,
    /// The next offset it will read (its live position); `None` while it does not own the partition.
    pub position: Option<u64>,
    /// Where this incarnation started the partition from.
    pub resumed_from: Option<u64>,
    /// Records of this partition it handled (all incarnations).
    pub handled: u64,
    /// What its offset store holds for the partition now.
    pub stored: Option<u64>,
    pub last_checkpoint_tick: Option<Tick>,
}

/// The answer to the last keyless peek.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PeekView {
    pub tick: Tick,
    pub partition: u32,
    /// `partitionFor(null)`: it moved the round-robin counter.
    pub advanced: bool,
}

/// A partition of the booblik topic the bridge writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct FarLog {
    log_start: u64,
    /// The source record id of each record: its key did not cross.
    records: VecDeque<(u64, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FarPartitionView {
    pub partition: u32,
    pub log_start: u64,
    pub log_end: u64,
}

/// A record on the booblik side: the wire format has no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FarRecordView {
    pub offset: u64,
    pub source_record_id: u64,
    /// Always `None`: booblik's wire format has no field for it.
    pub key: Option<u32>,
}

/// What the naive reader makes of a prefix of `value`'s digits: the digits it
/// finds, or 0 from an empty file.
fn torn(value: u64, kept_digits: usize) -> u64 {
    let digits = value.to_string();
    digits[..kept_digits.min(digits.len())].parse().unwrap_or(0)
}

impl Sim {
    /// Whether the group's committed offsets are written (Kafka), rather than
    /// each consumer's store (booblik).
    pub(crate) fn group_commits(&self) -> bool {
        matches!(self.config.position, PositionModel::Group)
    }

    pub(super) fn begin_checkpoint(&mut self, c: usize) {
        let PositionModel::Consumer { write_ticks, .. } = self.config.position else {
            unreachable!("checkpoints belong to the consumer store model")
        };
        let consumer = &mut self.consumers[c];
        let positions: Vec<(u32, u64)> = consumer
            .assigned
            .iter()
            .map(|&p| (p, consumer.positions[p as usize].expect("assigned partitions have positions")))
            .collect();
        consumer.uncommitted = false;
        consumer.checkpoint = Some(PendingCheckpoint { positions, done_at: self.now + write_ticks });
        self.sink.metrics.commit_requests += 1;
        if write_ticks == 0 {
            self.finish_checkpoint(c);
        }
    }

    /// Completes a due checkpoint; returns whether the consumer is free again.
    pub(super) fn finish_checkpoint(&mut self, c: usize) -> bool {
        let consumer = &mut self.consumers[c];
        let Some(pending) = consumer.checkpoint.take_if(|p| p.done_at <= self.now) else {
            return consumer.checkpoint.is_none();
        };
        for &(p, offset) in &pending.positions {
            consumer.store[p as usize] = Some(offset);
        }
        consumer.last_checkpoint =
            Some(CheckpointView { tick: self.now, positions: pending.positions.clone() });
        let id = consumer.id;
        self.emit(Event::Checkpointed { tick: self.now, consumer: id, positions: pending.positions });
        true
    }

    /// The process died mid-write: an atomic write leaves the old file, an
    /// in-place write leaves a prefix of the new digits.
    pub(super) fn abort_checkpoint(&mut self, c: usize) {
        let Some(pending) = self.consumers[c].checkpoint.take() else { return };
        let id = self.consumers[c].id;
        match self.config.position {
            PositionModel::Consumer { writes: CheckpointWrites::InPlace, .. } => {
                for (p, intended) in pending.positions {
                    let len = intended.to_string().len() as u32;
                    // How many digits reached the file before the crash: fewer than all.
                    let kept = self.group_rng.below(len) as usize;
                    let stored = torn(intended, kept);
                    self.consumers[c].store[p as usize] = Some(stored);
                    self.sink.metrics.torn_checkpoints += 1;
                    self.emit(Event::CheckpointTorn {
                        tick: self.now,
                        consumer: id,
                        partition: p,
                        intended,
                        stored,
                    });
                }
            }
            _ => self.emit(Event::CheckpointAbandoned { tick: self.now, consumer: id }),
        }
    }

    /// A consumer starts `partition` from `start`: records `resumedFrom` and
    /// what the split check makes of the gap to the last known position.
    pub(super) fn note_resume(&mut self, c: usize, partition: u32, start: u64) {
        let last_known = self.handled_end[partition as usize];
        let group_commits = self.group_commits();
        let consumer = &mut self.consumers[c];
        let id = consumer.id;
        if !group_commits {
            consumer.resumed_from[partition as usize] = Some(start);
            self.emit(Event::ResumedFrom {
                tick: self.now,
                consumer: id,
                partition,
                offset: start,
                last_known,
            });
        }
        self.judge_resume(id, partition, start, last_known);
    }

    pub(super) fn peek(&mut self, advancing: bool) {
        let strategy = self.config.producer.keyless;
        let partitions = self.config.partitions;
        let partition = if advancing {
            self.sink.metrics.advancing_peeks += 1;
            self.keyless.next_partition(strategy, partitions, &mut self.producer_rng)
        } else {
            self.next_keyless_partition()
        };
        self.last_peek = Some(PeekView { tick: self.now, partition, advanced: advancing });
        self.emit(Event::Peeked { tick: self.now, partition, advanced: advancing });
    }

    /// Where the next keyless record would go, without moving anything.
    #[must_use]
    pub fn next_keyless_partition(&self) -> u32 {
        let mut keyless = self.keyless.clone();
        let mut rng = self.producer_rng.clone();
        keyless.next_partition(self.config.producer.keyless, self.config.partitions, &mut rng)
    }

    /// The bridge's write: the key picks the booblik partition (same count, so
    /// the same partition) and is then dropped; keyless records keep theirs.
    pub(super) fn bridge(&mut self, fetched: &super::Fetched) {
        let keyed = self.partitions[fetched.partition as usize].get(fetched.offset).is_none_or(|r| r.keyed);
        let partition = if keyed {
            partition_for_key(subject_key(fetched.subject).as_bytes(), self.config.partitions)
        } else {
            fetched.partition
        };
        let far = &mut self.far[partition as usize];
        far.records.push_back((fetched.id, fetched.subject));
        if far.records.len() as u64 > self.config.retention_records {
            far.records.pop_front();
            far.log_start += 1;
        }
        let far_offset = far.log_start + far.records.len() as u64 - 1;
        self.sink.metrics.bridged += 1;
        self.emit(Event::Bridged { tick: self.now, partition, far_offset, record_id: fetched.id });
    }

    /// The booblik topic's partitions (`None` without a bridge).
    #[must_use]
    pub fn far_partitions(&self) -> Option<Vec<FarPartitionView>> {
        self.config.bridge.then(|| {
            self.far
                .iter()
                .enumerate()
                .map(|(p, log)| FarPartitionView {
                    partition: p as u32,
                    log_start: log.log_start,
                    log_end: log.log_start + log.records.len() as u64,
                })
                .collect()
        })
    }

    /// Up to `count` records of the booblik topic's `partition` from `from`.
    #[must_use]
    pub fn far_records(&self, partition: u32, from: u64, count: u32) -> Vec<FarRecordView> {
        let Some(log) = self.far.get(partition as usize) else { return Vec::new() };
        let skip = from.saturating_sub(log.log_start) as usize;
        log.records
            .iter()
            .enumerate()
            .skip(skip)
            .take(count as usize)
            .map(|(i, &(source_record_id, _))| FarRecordView {
                offset: log.log_start + i as u64,
                source_record_id,
                key: None,
            })
            .collect()
    }

    /// booblik's `/stats`: one entry per consumer and partition it owns or has stored.
    #[must_use]
    pub fn stats(&self) -> Vec<ConsumerStats> {
        let mut out = Vec::new();
        for consumer in &self.consumers {
            for p in 0..self.partitions.len() {
                let owned = consumer.assigned.contains(&(p as u32));
                if !owned && consumer.store[p].is_none() && consumer.handled_by_partition[p] == 0 {
                    continue;
                }
                out.push(stats_entry(consumer, p as u32, owned));
                assert!(out.len() <= limits::CONSUMERS_MAX as usize * limits::PARTITIONS_MAX as usize);
            }
        }
        out
    }

    pub(super) fn last_peek(&self) -> Option<PeekView> {
        self.last_peek
    }
}

fn stats_entry(consumer: &Consumer, partition: u32, owned: bool) -> ConsumerStats {
    let p = partition as usize;
    ConsumerStats {
        consumer: consumer.id,
        partition,
        position: if owned { consumer.positions[p] } else { None },
        resumed_from: consumer.resumed_from[p],
        handled: consumer.handled_by_partition[p],
        stored: consumer.store[p],
        last_checkpoint_tick: consumer
            .last_checkpoint
            .as_ref()
            .filter(|c| c.positions.iter().any(|&(q, _)| q == partition))
            .map(|c| c.tick),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::torn;

    #[test]
    fn a_torn_write_keeps_a_prefix_of_the_digits() {
        assert_eq!(torn(1234, 2), 12);
        assert_eq!(torn(1234, 0), 0);
        assert_eq!(torn(1234, 3), 123);
        assert_eq!(torn(7, 0), 0);
    }
}
