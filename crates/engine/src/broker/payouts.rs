//! The output topic `payouts` of an exactly-once application: per partition
//! its log of results and control markers, the leader's transaction state
//! (`txn_index.rs`: producer epochs, the last stable offset, the aborted
//! index), and what became of each result (open, committed or aborted), so
//! that the page can strike aborted results through and the downstream
//! counters can tell an aborted record that was read.
//!
//! One broker holds it: the high watermark is the log end after every write
//! (the topic `orders` may be replicated; `payouts` is not modelled on the
//! cluster).
//!
//! # Calling contract
//! For a result: [`PayoutsTopic::in_transaction`]; when false the
//! coordinator's `AddPartitionsToTxn` first (the caller's); then
//! [`PayoutsTopic::handle_write`], which checks the producer's epoch and
//! writes nothing on an error. For a marker the coordinator asked for:
//! [`PayoutsTopic::handle_marker`]. Reads: [`PayoutsTopic::fetch`].

use crate::broker::producer_state::ProducerId;
use crate::broker::transaction::{ProducerIdAndEpoch, TransactionVersion, TxnResult};
use crate::broker::txn_index::{IsolationLevel, LogEntry, PartitionTxns, TxnWriteError};
use crate::limits::PAYOUT_RECORDS_MAX;
use serde::Serialize;
use std::collections::VecDeque;

/// What became of a result: its transaction is still open, or ended with a
/// COMMIT or an ABORT marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fate {
    Open,
    Committed,
    Aborted,
}

/// One offset of `payouts`: a result the application wrote for an `orders`
/// record, or a control marker (never delivered to an application).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PayoutEntry {
    Result {
        /// The `orders` record this is the result of.
        source_id: u64,
        producer_id: ProducerId,
        fate: Fate,
        /// The downstream consumer has read it at least once.
        delivered: bool,
    },
    Marker {
        producer_id: ProducerId,
        commit: bool,
    },
}

/// A result read downstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PayoutRead {
    pub offset: u64,
    pub source_id: u64,
    /// Its transaction was aborted when it was read (read_uncommitted only).
    pub aborted: bool,
}

#[derive(Debug, Clone, Default)]
struct PayoutPartition {
    log_start: u64,
    entries: VecDeque<PayoutEntry>,
    txns: PartitionTxns,
}

impl PayoutPartition {
    fn log_end(&self) -> u64 {
        self.log_start + self.entries.len() as u64
    }

    fn entry(&self, offset: u64) -> Option<&PayoutEntry> {
        offset.checked_sub(self.log_start).and_then(|i| self.entries.get(i as usize))
    }

    fn push(&mut self, entry: PayoutEntry) -> u64 {
        let offset = self.log_end();
        self.entries.push_back(entry);
        if self.entries.len() as u64 > PAYOUT_RECORDS_MAX {
            self.entries.pop_front();
            self.log_start += 1;
            self.txns.advance_log_start(self.log_start);
        }
        offset
    }
}

/// The topic `payouts`; see the module documentation.
#[derive(Debug, Clone, Default)]
pub(crate) struct PayoutsTopic {
    partitions: Vec<PayoutPartition>,
    version: Option<TransactionVersion>,
}

/// A partition's offsets for the views: log start, last stable offset, log end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PayoutPartitionView {
    pub partition: u32,
    pub log_start: u64,
    /// Below it every transaction is decided: what read_committed reads up to.
    pub last_stable_offset: u64,
    pub log_end: u64,
}

/// One offset of `payouts` for the views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PayoutRecordView {
    Result { offset: u64, source_record_id: u64, fate: Fate },
    Marker { offset: u64, commit: bool },
}

impl PayoutsTopic {
    pub fn new(partitions: u32, version: TransactionVersion) -> PayoutsTopic {
        PayoutsTopic {
            partitions: vec![PayoutPartition::default(); partitions as usize],
            version: Some(version),
        }
    }

    fn version(&self) -> TransactionVersion {
        self.version.expect("made with new")
    }

    pub fn add_partitions(&mut self, added: u32) {
        self.partitions.extend((0..added).map(|_| PayoutPartition::default()));
    }

    pub fn partition_count(&self) -> u32 {
        self.partitions.len() as u32
    }

    pub fn log_end(&self, partition: u32) -> u64 {
        self.partitions[partition as usize].log_end()
    }

    pub fn last_stable_offset(&self, partition: u32) -> u64 {
        self.partitions[partition as usize].txns.last_stable_offset()
    }

    /// Whether the producer has a transaction of its epoch open on `partition`.
    pub fn in_transaction(&self, partition: u32, producer: ProducerIdAndEpoch) -> bool {
        self.partitions[partition as usize].txns.in_transaction(producer.producer_id, producer.epoch)
    }

    /// Appends a transactional result of `source_id`; returns its offset.
    pub fn handle_write(
        &mut self,
        partition: u32,
        producer: ProducerIdAndEpoch,
        source_id: u64,
    ) -> Result<u64, TxnWriteError> {
        let part = &mut self.partitions[partition as usize];
        part.txns.check_data(producer.producer_id, producer.epoch, true)?;
        let offset = part.log_end();
        part.txns.append_data(producer.producer_id, producer.epoch, true, offset, 1);
        let entry = PayoutEntry::Result {
            source_id,
            producer_id: producer.producer_id,
            fate: Fate::Open,
            delivered: false,
        };
        assert_eq!(part.push(entry), offset);
        let end = part.log_end();
        part.txns.set_high_watermark(end);
        Ok(offset)
    }

    /// Writes the coordinator's COMMIT or ABORT marker for `marker`'s producer
    /// on `partition`, and decides the fate of that producer's open results
    /// there. Returns the marker's offset and how many of the results it
    /// aborted had been read downstream already.
    pub fn handle_marker(
        &mut self,
        partition: u32,
        marker: ProducerIdAndEpoch,
        result: TxnResult,
    ) -> Result<(u64, u64), TxnWriteError> {
        let version = self.version();
        let part = &mut self.partitions[partition as usize];
        let aborted = result == TxnResult::Abort;
        let offset = part.log_end();
        // Only the transaction's own records are open: from its first offset on.
        let first = part.txns.ongoing_first_offset(marker.producer_id).unwrap_or(offset).max(part.log_start);
        part.txns.append_marker(marker.producer_id, marker.epoch, aborted, offset, version)?;
        let mut aborted_read = 0;
        for entry in part.entries.range_mut((first - part.log_start) as usize..) {
            if let PayoutEntry::Result { producer_id, fate, delivered, .. } = entry
                && *producer_id == marker.producer_id
                && *fate == Fate::Open
            {
                *fate = if aborted { Fate::Aborted } else { Fate::Committed };
                aborted_read += u64::from(aborted && *delivered);
            }
        }
        let entry = PayoutEntry::Marker { producer_id: marker.producer_id, commit: !aborted };
        assert_eq!(part.push(entry), offset);
        let end = part.log_end();
        part.txns.set_high_watermark(end);
        Ok((offset, aborted_read))
    }

    /// A read of `partition` from `from`, at most `max` offsets, with
    /// `isolation`: the results it returns (markers never; with
    /// read_committed neither aborted results), and the next position.
    pub fn fetch(
        &mut self,
        partition: u32,
        from: u64,
        max: u32,
        isolation: IsolationLevel,
    ) -> (Vec<PayoutRead>, u64) {
        let part = &mut self.partitions[partition as usize];
        let from = from.max(part.log_start);
        let bound = match isolation {
            IsolationLevel::ReadUncommitted => part.txns.high_watermark(),
            IsolationLevel::ReadCommitted => part.txns.last_stable_offset(),
        };
        let to = from.saturating_add(u64::from(max)).min(bound).max(from);
        let entry_at = |offset: u64| match part.entry(offset) {
            Some(PayoutEntry::Result { producer_id, .. }) => LogEntry::Transactional(*producer_id),
            _ => LogEntry::Marker,
        };
        let offsets = part.txns.fetchable(from, to, isolation, entry_at);
        let mut reads = Vec::with_capacity(offsets.len());
        for offset in offsets {
            let i = (offset - part.log_start) as usize;
            if let PayoutEntry::Result { source_id, fate, delivered, .. } = &mut part.entries[i] {
                *delivered = true;
                reads.push(PayoutRead { offset, source_id: *source_id, aborted: *fate == Fate::Aborted });
            }
        }
        (reads, to)
    }

    pub fn partitions(&self) -> Vec<PayoutPartitionView> {
        self.partitions
            .iter()
            .enumerate()
            .map(|(p, part)| PayoutPartitionView {
                partition: p as u32,
                log_start: part.log_start,
                last_stable_offset: part.txns.last_stable_offset(),
                log_end: part.log_end(),
            })
            .collect()
    }

    /// Up to `count` offsets of `partition` from `from`.
    pub fn records(&self, partition: u32, from: u64, count: u32) -> Vec<PayoutRecordView> {
        let Some(part) = self.partitions.get(partition as usize) else { return Vec::new() };
        let from = from.max(part.log_start);
        let to = from.saturating_add(u64::from(count)).min(part.log_end());
        (from..to)
            .map(|offset| match *part.entry(offset).expect("within the log") {
                PayoutEntry::Result { source_id, fate, .. } => {
                    PayoutRecordView::Result { offset, source_record_id: source_id, fate }
                }
                PayoutEntry::Marker { commit, .. } => PayoutRecordView::Marker { offset, commit },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn producer(id: u64, epoch: u32) -> ProducerIdAndEpoch {
        ProducerIdAndEpoch { producer_id: ProducerId(id), epoch }
    }

    #[test]
    fn read_committed_skips_aborted_results_and_markers_while_read_uncommitted_sees_them() {
        let mut topic = PayoutsTopic::new(1, TransactionVersion::V2);
        assert_eq!(topic.handle_write(0, producer(1, 0), 100), Ok(0));
        assert_eq!(topic.handle_write(0, producer(1, 0), 101), Ok(1));
        // Open: read_committed stops at the LSO, read_uncommitted reads on.
        assert_eq!(topic.last_stable_offset(0), 0);
        let (uncommitted, next) = topic.fetch(0, 0, 10, IsolationLevel::ReadUncommitted);
        assert_eq!((uncommitted.len(), next), (2, 2));
        assert!(uncommitted.iter().all(|r| !r.aborted));
        // The coordinator aborts with the bumped epoch: both results were read.
        assert_eq!(topic.handle_marker(0, producer(1, 1), TxnResult::Abort), Ok((2, 2)));
        assert_eq!(topic.handle_write(0, producer(2, 0), 100), Ok(3));
        assert_eq!(topic.handle_marker(0, producer(2, 1), TxnResult::Commit), Ok((4, 0)));
        let (committed, next) = topic.fetch(0, 0, 10, IsolationLevel::ReadCommitted);
        assert_eq!(committed, vec![PayoutRead { offset: 3, source_id: 100, aborted: false }]);
        assert_eq!(next, 5);
        // The fenced producer's late write is refused and writes nothing.
        assert!(topic.handle_write(0, producer(1, 0), 102).is_err());
        assert_eq!(topic.log_end(0), 5);
        let views = topic.records(0, 0, 10);
        assert_eq!(
            views[0],
            PayoutRecordView::Result { offset: 0, source_record_id: 100, fate: Fate::Aborted }
        );
        assert_eq!(views[2], PayoutRecordView::Marker { offset: 2, commit: false });
        assert_eq!(
            views[3],
            PayoutRecordView::Result { offset: 3, source_record_id: 100, fate: Fate::Committed }
        );
    }
}
