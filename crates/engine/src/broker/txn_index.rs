//! A partition leader's transaction state, as Kafka 4.4.0's
//! `ProducerStateManager` (`ongoingTxns`, `unreplicatedTxns`,
//! `firstUnstableOffset`), `ProducerAppendInfo` (`appendDataBatch`,
//! `appendEndTxnMarker`, `checkProducerEpoch`), `UnifiedLog.lastStableOffset`
//! and the segments' `TransactionIndex` of aborted transactions keep it; and
//! what a consumer's fetch returns under each `isolation.level`, as the
//! consumer's `CompletedFetch` filters it.
//!
//! - A transactional batch starts the producer's transaction in the partition
//!   when it has none (`currentTxnFirstOffset`); the transaction is ongoing
//!   until the producer's COMMIT or ABORT marker.
//! - A control marker takes one offset and is never delivered to an
//!   application: offsets in a transactional topic have gaps.
//! - A write (data or marker) with an epoch older than the one the partition
//!   last saw from the producer is refused (`INVALID_PRODUCER_EPOCH`, which
//!   Kafka answers instead of `PRODUCER_FENCED` since 2.7): a marker with a
//!   bumped epoch fences the instance that wrote the transaction. With
//!   transaction version 2 a marker's epoch must be strictly newer
//!   (KIP-1228, Kafka 4.2: the coordinator bumps before every marker, so one
//!   at the current epoch is late or a duplicate). A plain write while the
//!   producer's transaction is ongoing is `INVALID_TXN_STATE`.
//! - A completed transaction stays unstable until the high watermark passes
//!   its marker (`unreplicatedTxns`, `onHighWatermarkUpdated`).
//! - The last stable offset (LSO) is the high watermark, or the first offset
//!   of the earliest unstable transaction if that is lower.
//! - An ABORT marker of a transaction with data adds (producer id, first
//!   offset, marker offset) to the aborted-transactions index
//!   (`CompletedTxn`, `AbortedTxn`).
//! - [`PartitionTxns::fetchable`]: `read_uncommitted` returns every data
//!   record below the high watermark; `read_committed` stops at the LSO and
//!   drops the records of aborted transactions (transactional records of a
//!   producer from an aborted transaction's first offset to its marker, as
//!   the consumer does with the fetch's `abortedTransactions`). Neither
//!   returns markers (`isControlBatch`).
//!
//! Sequence numbers and duplicates stay with `producer_state.rs`: the caller
//! checks a batch here first (the epoch, as Kafka's `checkProducerEpoch`
//! comes before `checkSequence`), then there, then appends to both.
//!
//! Calling contract: for a data batch [`PartitionTxns::check_data`] (the
//! epoch first, as `maybeStartTransactionVerification` refuses an old epoch
//! before it asks the coordinator); for a transactional batch whose producer
//! has no transaction of its epoch here ([`PartitionTxns::in_transaction`])
//! the coordinator's `AddPartitionsToTxn` (its `PRODUCER_FENCED` answered to
//! the producer as `INVALID_PRODUCER_EPOCH`, `TxnError::on_produce`); then
//! the sequence checks, then the append to the log at its end and
//! [`PartitionTxns::append_data`]; for a marker [`PartitionTxns::append_marker`]
//! at the log end (it checks, and writes nothing on an error). Offsets passed
//! increase. [`PartitionTxns::set_high_watermark`] whenever the HW moves,
//! [`PartitionTxns::truncate_to`] when the log is cut (a marker is written
//! with acks=all, so a cut marker is one the coordinator still waits for),
//! [`PartitionTxns::advance_log_start`] when retention deletes.
//!
//! Simplified: a truncation keeps the producers' epochs (Kafka rebuilds them
//! from the log's remaining batches and snapshots), and brings back as ongoing
//! a transaction whose marker it cut; the coordinator epoch of markers
//! (`TRANSACTION_COORDINATOR_FENCED`) is not modelled (one coordinator that
//! never moves); nor is Kafka 4.x's rule that a version 2 producer the leader
//! has no state for must start at sequence 0 (`checkSequence` with a
//! verification entry), which belongs with the sequences in
//! `producer_state.rs`; nor producer id expiration or transactional
//! compaction.

#![cfg_attr(not(test), allow(dead_code))]

use crate::broker::producer_state::{PRODUCERS_MAX, ProducerId};
use crate::broker::transaction::TransactionVersion;
pub(crate) use crate::limits::ABORTED_TXNS_MAX;
use std::collections::VecDeque;

pub(crate) use crate::config::IsolationLevel;

/// What the log holds at an offset, as the fetch filter needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogEntry {
    /// A record outside any transaction (plain or idempotent).
    Plain,
    /// A record of a transactional batch of this producer.
    Transactional(ProducerId),
    /// A COMMIT or ABORT control marker.
    Marker,
}

/// Why the leader refuses a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxnWriteError {
    /// `INVALID_PRODUCER_EPOCH`: older than the producer's last epoch here.
    InvalidProducerEpoch { current: u32, got: u32 },
    /// `INVALID_TXN_STATE`: a non-transactional write while the producer's
    /// transaction is ongoing.
    InvalidTxnState,
    /// The model's bound: more than [`PRODUCERS_MAX`] producers.
    TooManyProducers,
}

/// An aborted transaction in the index (`AbortedTxn`): the consumer drops the
/// producer's transactional records from `first_offset` to `last_offset`
/// (its ABORT marker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AbortedTxn {
    pub producer_id: ProducerId,
    pub first_offset: u64,
    pub last_offset: u64,
}

/// One producer's transactional state here (part of `ProducerStateEntry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProducerTxn {
    producer_id: ProducerId,
    epoch: u32,
    /// `currentTxnFirstOffset`.
    current_txn_first_offset: Option<u64>,
}

/// A transaction that is decided but not yet below the HW (`TxnMetadata` in
/// `unreplicatedTxns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CompletedTxn {
    producer_id: ProducerId,
    first_offset: u64,
    /// The marker's offset.
    last_offset: u64,
    aborted: bool,
}

/// One partition's transaction state; see the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PartitionTxns {
    /// At most [`PRODUCERS_MAX`], in the order first seen.
    producers: Vec<ProducerTxn>,
    /// Decided transactions whose marker is at or above the HW, by first offset.
    unreplicated: Vec<CompletedTxn>,
    /// The aborted-transactions index, by marker offset; at most [`ABORTED_TXNS_MAX`].
    aborted: VecDeque<AbortedTxn>,
    high_watermark: u64,
    /// One past the last offset written (a record or a marker).
    log_end: u64,
}

impl PartitionTxns {
    /// A partition whose log ends (and whose HW stands) at `log_end`.
    pub(crate) fn new(log_end: u64) -> Self {
        PartitionTxns { high_watermark: log_end, log_end, ..Self::default() }
    }

    fn producer(&self, producer_id: ProducerId) -> Option<&ProducerTxn> {
        self.producers.iter().find(|p| p.producer_id == producer_id)
    }

    /// `checkProducerEpoch`, shared by data (`strict` false) and markers
    /// (`strict` under transaction version 2, KIP-1228).
    fn check_epoch(&self, producer_id: ProducerId, epoch: u32, strict: bool) -> Result<(), TxnWriteError> {
        match self.producer(producer_id) {
            Some(p) if epoch < p.epoch || (strict && epoch == p.epoch) => {
                Err(TxnWriteError::InvalidProducerEpoch { current: p.epoch, got: epoch })
            }
            Some(_) => Ok(()),
            None if self.producers.len() == PRODUCERS_MAX => Err(TxnWriteError::TooManyProducers),
            None => Ok(()),
        }
    }

    /// The checks before appending a data batch of `producer_id` (an
    /// idempotent or transactional producer).
    pub(crate) fn check_data(
        &self,
        producer_id: ProducerId,
        epoch: u32,
        transactional: bool,
    ) -> Result<(), TxnWriteError> {
        self.check_epoch(producer_id, epoch, false)?;
        let ongoing = self.producer(producer_id).is_some_and(|p| p.current_txn_first_offset.is_some());
        if ongoing && !transactional {
            return Err(TxnWriteError::InvalidTxnState);
        }
        Ok(())
    }

    /// Where `producer_id`'s ongoing transaction here began (`currentTxnFirstOffset`).
    pub(crate) fn ongoing_first_offset(&self, producer_id: ProducerId) -> Option<u64> {
        self.producer(producer_id).and_then(|p| p.current_txn_first_offset)
    }

    /// Whether `producer_id` has a transaction of `epoch` ongoing here
    /// (`UnifiedLog.hasOngoingTransaction`): when it has not, the leader
    /// verifies the write with the coordinator first
    /// (`maybeStartTransactionVerification`; with transaction version 2 an
    /// `AddPartitionsToTxn` on the producer's behalf). A write of a newer
    /// epoch while the old epoch's transaction still waits for its marker is
    /// verified too, and the coordinator answers `CONCURRENT_TRANSACTIONS`.
    pub(crate) fn in_transaction(&self, producer_id: ProducerId, epoch: u32) -> bool {
        self.producer(producer_id).is_some_and(|p| p.current_txn_first_offset.is_some() && p.epoch == epoch)
    }

    /// Records a data batch written at `base_offset..base_offset + records`,
    /// after a passed [`check_data`](Self::check_data).
    pub(crate) fn append_data(
        &mut self,
        producer_id: ProducerId,
        epoch: u32,
        transactional: bool,
        base_offset: u64,
        records: u64,
    ) {
        assert!(records >= 1, "a batch holds a record");
        assert!(base_offset >= self.log_end, "batches are appended at the log end");
        assert_eq!(self.check_data(producer_id, epoch, transactional), Ok(()), "checked before the append");
        let p = self.entry(producer_id);
        p.epoch = epoch;
        if transactional && p.current_txn_first_offset.is_none() {
            p.current_txn_first_offset = Some(base_offset);
        }
        self.log_end = base_offset + records;
        self.check();
    }

    fn entry(&mut self, producer_id: ProducerId) -> &mut ProducerTxn {
        match self.producers.iter().position(|p| p.producer_id == producer_id) {
            Some(i) => &mut self.producers[i],
            None => {
                self.producers.push(ProducerTxn { producer_id, epoch: 0, current_txn_first_offset: None });
                self.producers.last_mut().expect("just pushed")
            }
        }
    }

    /// Writes a COMMIT (`aborted` false) or ABORT marker of `producer_id` at
    /// `offset` (`appendEndTxnMarker`), sent by a coordinator running
    /// `version` (`WriteTxnMarkers` v2 carries it). Answers whether it ended a
    /// transaction with data here; a marker for a producer with none still
    /// takes its offset.
    pub(crate) fn append_marker(
        &mut self,
        producer_id: ProducerId,
        epoch: u32,
        aborted: bool,
        offset: u64,
        version: TransactionVersion,
    ) -> Result<bool, TxnWriteError> {
        assert!(offset >= self.log_end, "markers are appended at the log end");
        self.check_epoch(producer_id, epoch, version == TransactionVersion::V2)?;
        let p = self.entry(producer_id);
        // The marker's epoch becomes the producer's (`update`): with
        // transaction version 2 it is the bumped one, which fences the writes
        // of the epoch that wrote the transaction.
        p.epoch = epoch;
        let first = p.current_txn_first_offset.take();
        self.log_end = offset + 1;
        if let Some(first_offset) = first {
            // `completeTxn`: decided, unstable until the HW passes the marker.
            let done = CompletedTxn { producer_id, first_offset, last_offset: offset, aborted };
            let at = self.unreplicated.partition_point(|t| t.first_offset < first_offset);
            self.unreplicated.insert(at, done);
            if aborted {
                if self.aborted.len() == ABORTED_TXNS_MAX {
                    self.aborted.pop_front();
                }
                self.aborted.push_back(AbortedTxn { producer_id, first_offset, last_offset: offset });
            }
        }
        self.check();
        Ok(first.is_some())
    }

    /// The high watermark moved (`onHighWatermarkUpdated`).
    pub(crate) fn set_high_watermark(&mut self, high_watermark: u64) {
        assert!(high_watermark <= self.log_end, "the HW is at most the log end");
        self.high_watermark = high_watermark;
        self.unreplicated.retain(|t| t.last_offset >= high_watermark);
        self.check();
    }

    pub(crate) fn high_watermark(&self) -> u64 {
        self.high_watermark
    }

    /// `firstUnstableOffset`: the first offset of the earliest transaction
    /// that is ongoing, or decided with its marker not yet below the HW.
    pub(crate) fn first_unstable_offset(&self) -> Option<u64> {
        let ongoing = self.producers.iter().filter_map(|p| p.current_txn_first_offset).min();
        let unreplicated = self.unreplicated.first().map(|t| t.first_offset);
        match (ongoing, unreplicated) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// `UnifiedLog.lastStableOffset`: the HW, or the first unstable offset
    /// when it is lower. A `read_committed` consumer reads below it, and its
    /// lag is measured to it.
    pub(crate) fn last_stable_offset(&self) -> u64 {
        self.first_unstable_offset().map_or(self.high_watermark, |first| first.min(self.high_watermark))
    }

    /// The aborted transactions whose range meets `from..to`
    /// (`collectAbortedTransactions`).
    pub(crate) fn aborted_in(&self, from: u64, to: u64) -> impl Iterator<Item = &AbortedTxn> {
        self.aborted.iter().filter(move |t| t.last_offset >= from && t.first_offset < to)
    }

    /// The offsets in `from..to` a consumer with `isolation` receives, given
    /// what the log holds at each (`entry_at`).
    pub(crate) fn fetchable(
        &self,
        from: u64,
        to: u64,
        isolation: IsolationLevel,
        entry_at: impl Fn(u64) -> LogEntry,
    ) -> Vec<u64> {
        let end = to.min(match isolation {
            IsolationLevel::ReadUncommitted => self.high_watermark,
            IsolationLevel::ReadCommitted => self.last_stable_offset(),
        });
        let aborted: Vec<AbortedTxn> = match isolation {
            IsolationLevel::ReadUncommitted => Vec::new(),
            IsolationLevel::ReadCommitted => self.aborted_in(from, end).copied().collect(),
        };
        (from..end)
            .filter(|&offset| match entry_at(offset) {
                LogEntry::Marker => false,
                LogEntry::Plain => true,
                LogEntry::Transactional(producer_id) => !aborted.iter().any(|t| {
                    t.producer_id == producer_id && t.first_offset <= offset && offset <= t.last_offset
                }),
            })
            .collect()
    }

    /// The log was cut to `offset` (everything at or past it is gone).
    pub(crate) fn truncate_to(&mut self, offset: u64) {
        assert!(offset <= self.log_end, "a truncation cuts the log");
        for p in &mut self.producers {
            if p.current_txn_first_offset.is_some_and(|first| first >= offset) {
                p.current_txn_first_offset = None;
            }
        }
        // A decided transaction whose marker was cut is undecided again.
        for t in std::mem::take(&mut self.unreplicated) {
            if t.last_offset < offset {
                self.unreplicated.push(t);
            } else if t.first_offset < offset {
                let p = self.entry(t.producer_id);
                p.current_txn_first_offset = Some(t.first_offset);
            }
        }
        self.aborted.retain(|t| t.last_offset < offset);
        self.log_end = offset;
        self.high_watermark = self.high_watermark.min(offset);
        self.check();
    }

    /// Retention deleted everything below `offset`: the index forgets the
    /// aborted transactions that ended there (`onLogStartOffsetIncremented`).
    pub(crate) fn advance_log_start(&mut self, offset: u64) {
        self.aborted.retain(|t| t.last_offset >= offset);
        self.unreplicated.retain(|t| t.last_offset >= offset);
        self.check();
    }

    /// The invariants no write can break.
    pub(crate) fn check(&self) {
        if !cfg!(debug_assertions) {
            return; // the whole-state sweep: debug builds and tests (ARCHITECTURE.md)
        }
        assert!(self.producers.len() <= PRODUCERS_MAX, "producers are bounded");
        assert!(self.aborted.len() <= ABORTED_TXNS_MAX, "the aborted index is bounded");
        assert!(self.high_watermark <= self.log_end, "HW ≤ log end");
        let lso = self.last_stable_offset();
        assert!(lso <= self.high_watermark, "LSO ≤ HW");
        for (i, p) in self.producers.iter().enumerate() {
            assert!(
                self.producers[..i].iter().all(|o| o.producer_id != p.producer_id),
                "one entry per producer"
            );
            if let Some(first) = p.current_txn_first_offset {
                assert!(first < self.log_end, "an ongoing transaction starts in the log");
                assert!(lso <= first, "the LSO stops at an ongoing transaction");
            }
        }
        assert!(
            self.unreplicated.windows(2).all(|w| w[0].first_offset < w[1].first_offset),
            "by first offset"
        );
        for t in &self.unreplicated {
            assert!(
                t.first_offset < t.last_offset && t.last_offset < self.log_end,
                "a transaction ends at its marker"
            );
            assert!(t.last_offset >= self.high_watermark, "only markers at or above the HW are unstable");
        }
        for pair in self.aborted.iter().zip(self.aborted.iter().skip(1)) {
            assert!(pair.0.last_offset < pair.1.last_offset, "the index is in marker order");
        }
        for t in &self.aborted {
            assert!(
                t.first_offset < t.last_offset && t.last_offset < self.log_end,
                "an aborted range ends at its marker"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    const A: ProducerId = ProducerId(1);
    const B: ProducerId = ProducerId(2);

    /// A partition and its log's entries, written the way a leader writes.
    struct Log {
        txns: PartitionTxns,
        entries: Vec<LogEntry>,
        version: TransactionVersion,
    }

    impl Log {
        /// A transaction version 1 partition, whose markers may repeat the
        /// data's epoch.
        fn new() -> Self {
            Log { txns: PartitionTxns::new(0), entries: Vec::new(), version: TransactionVersion::V1 }
        }

        fn write(
            &mut self,
            producer: ProducerId,
            epoch: u32,
            transactional: bool,
            records: u64,
        ) -> Result<u64, TxnWriteError> {
            self.txns.check_data(producer, epoch, transactional)?;
            let base = self.entries.len() as u64;
            self.txns.append_data(producer, epoch, transactional, base, records);
            let entry = if transactional { LogEntry::Transactional(producer) } else { LogEntry::Plain };
            self.entries.extend((0..records).map(|_| entry));
            Ok(base)
        }

        fn marker(&mut self, producer: ProducerId, epoch: u32, aborted: bool) -> Result<u64, TxnWriteError> {
            let offset = self.entries.len() as u64;
            self.txns.append_marker(producer, epoch, aborted, offset, self.version)?;
            self.entries.push(LogEntry::Marker);
            Ok(offset)
        }

        fn hw_to_end(&mut self) {
            self.txns.set_high_watermark(self.entries.len() as u64);
        }

        fn read(&self, isolation: IsolationLevel) -> Vec<u64> {
            self.txns.fetchable(0, u64::MAX, isolation, |o| self.entries[o as usize])
        }
    }

    /// Kafka's LSO: an ongoing transaction holds a `read_committed` reader at
    /// its first offset, while `read_uncommitted` reads to the HW.
    #[test]
    fn the_last_stable_offset_stops_at_the_first_ongoing_transaction() {
        let mut log = Log::new();
        log.write(B, 0, false, 2).unwrap();
        log.write(A, 0, true, 3).unwrap();
        log.write(B, 0, false, 1).unwrap();
        log.hw_to_end();
        assert_eq!(log.txns.last_stable_offset(), 2);
        assert_eq!(log.read(IsolationLevel::ReadCommitted), [0, 1]);
        assert_eq!(log.read(IsolationLevel::ReadUncommitted), [0, 1, 2, 3, 4, 5]);
        log.marker(A, 0, false).unwrap();
        // The marker at 6 is at the HW (6), not below: still unstable
        // (`unreplicatedTxns`).
        assert_eq!(log.txns.high_watermark(), 6);
        assert_eq!(log.txns.last_stable_offset(), 2);
        log.hw_to_end();
        assert_eq!(log.txns.last_stable_offset(), 7);
        assert_eq!(
            log.read(IsolationLevel::ReadCommitted),
            [0, 1, 2, 3, 4, 5],
            "the marker at 6 is never delivered"
        );
    }

    /// `CompletedFetch`: a `read_committed` consumer drops the aborted
    /// transaction's records, a `read_uncommitted` one sees them; neither
    /// sees markers, so the offsets it gets have gaps.
    #[test]
    fn read_committed_drops_aborted_records_and_markers() {
        let mut log = Log::new();
        log.write(A, 0, true, 2).unwrap(); // 0, 1 aborted
        log.write(B, 0, true, 1).unwrap(); // 2 committed
        log.write(A, 0, true, 1).unwrap(); // 3 aborted
        assert_eq!(log.marker(A, 0, true), Ok(4));
        assert_eq!(log.write(B, 0, false, 1), Err(TxnWriteError::InvalidTxnState)); // B's transaction is ongoing: a plain write is refused
        assert_eq!(log.marker(B, 0, false), Ok(5));
        log.write(A, 0, true, 1).unwrap(); // 6, committed below
        log.marker(A, 0, false).unwrap(); // 7
        log.hw_to_end();
        assert_eq!(
            log.txns.aborted_in(0, 8).copied().collect::<Vec<_>>(),
            [AbortedTxn { producer_id: A, first_offset: 0, last_offset: 4 }]
        );
        assert_eq!(log.read(IsolationLevel::ReadCommitted), [2, 6]);
        assert_eq!(log.read(IsolationLevel::ReadUncommitted), [0, 1, 2, 3, 6]);
    }

    /// `appendDataBatch`: "Expected transactional write from producer".
    #[test]
    fn a_plain_write_during_the_producers_transaction_is_invalid_txn_state() {
        let mut log = Log::new();
        log.write(A, 0, true, 1).unwrap();
        assert_eq!(log.write(A, 0, false, 1), Err(TxnWriteError::InvalidTxnState));
        log.marker(A, 0, false).unwrap();
        assert_eq!(log.write(A, 0, false, 1), Ok(2));
    }

    /// `checkProducerEpoch`: with transaction version 2 the marker carries the
    /// bumped epoch, and a late write of the old epoch is refused.
    #[test]
    fn a_marker_with_a_bumped_epoch_fences_the_old_epoch() {
        let mut log = Log::new();
        log.write(A, 3, true, 1).unwrap();
        log.marker(A, 4, false).unwrap();
        assert_eq!(log.write(A, 3, true, 1), Err(TxnWriteError::InvalidProducerEpoch { current: 4, got: 3 }));
        assert_eq!(log.marker(A, 3, true), Err(TxnWriteError::InvalidProducerEpoch { current: 4, got: 3 }));
        assert_eq!(log.write(A, 4, true, 1), Ok(2), "the producer's next transaction");
    }

    /// KIP-1228: under transaction version 2 a marker at the epoch the
    /// partition already has is late or a duplicate, and refused; under
    /// version 1 the marker repeats the data's epoch.
    #[test]
    fn version_2_markers_must_bump_the_epoch() {
        let mut log = Log { version: TransactionVersion::V2, ..Log::new() };
        log.write(A, 3, true, 1).unwrap();
        assert_eq!(log.marker(A, 3, false), Err(TxnWriteError::InvalidProducerEpoch { current: 3, got: 3 }));
        assert_eq!(log.marker(A, 4, false), Ok(1));
        assert_eq!(
            log.marker(A, 4, false),
            Err(TxnWriteError::InvalidProducerEpoch { current: 4, got: 4 }),
            "a duplicate"
        );
        let mut v1 = Log::new();
        v1.write(A, 3, true, 1).unwrap();
        assert_eq!(v1.marker(A, 3, false), Ok(1));
    }

    /// A marker for a partition the producer wrote nothing to still takes an
    /// offset (Kafka writes it) but ends no transaction and indexes nothing.
    #[test]
    fn an_empty_marker_takes_an_offset_and_indexes_nothing() {
        let mut log = Log::new();
        assert_eq!(log.txns.append_marker(A, 0, true, 0, TransactionVersion::V1), Ok(false));
        log.entries.push(LogEntry::Marker);
        log.hw_to_end();
        assert_eq!(log.txns.aborted_in(0, 1).count(), 0);
        assert_eq!(log.txns.last_stable_offset(), 1);
        assert!(log.read(IsolationLevel::ReadCommitted).is_empty());
    }

    /// The LSO follows the earliest of several producers' transactions.
    #[test]
    fn the_earliest_of_several_transactions_holds_the_lso() {
        let mut log = Log::new();
        log.write(A, 0, true, 1).unwrap();
        log.write(B, 0, true, 1).unwrap();
        log.hw_to_end();
        assert_eq!(log.txns.last_stable_offset(), 0);
        log.marker(A, 0, false).unwrap();
        log.hw_to_end();
        assert_eq!(log.txns.last_stable_offset(), 1, "B's transaction from 1");
        log.marker(B, 0, false).unwrap();
        log.hw_to_end();
        assert_eq!(log.txns.last_stable_offset(), 4);
        assert_eq!(log.read(IsolationLevel::ReadCommitted), [0, 1]);
    }

    /// Retention: the index forgets aborted transactions whose marker it
    /// deleted (the segment and its `.txnindex` go together).
    #[test]
    fn retention_forgets_old_aborted_transactions() {
        let mut log = Log::new();
        log.write(A, 0, true, 1).unwrap();
        log.marker(A, 0, true).unwrap(); // 1
        log.write(A, 0, true, 1).unwrap();
        log.marker(A, 0, true).unwrap(); // 3
        log.hw_to_end();
        log.txns.advance_log_start(2);
        assert_eq!(log.txns.aborted_in(0, 4).map(|t| t.first_offset).collect::<Vec<_>>(), [2]);
    }

    /// A truncation that cuts a marker makes its transaction undecided again,
    /// as Kafka's rebuild from the remaining log would.
    #[test]
    fn truncation_undoes_a_cut_marker() {
        let mut log = Log::new();
        log.write(A, 0, true, 2).unwrap();
        log.marker(A, 0, true).unwrap();
        log.txns.set_high_watermark(2);
        log.txns.truncate_to(2);
        log.entries.truncate(2);
        assert!(log.txns.in_transaction(A, 0));
        assert_eq!(log.txns.aborted_in(0, 3).count(), 0);
        assert_eq!(log.txns.last_stable_offset(), 0);
        log.txns.truncate_to(0);
        assert!(!log.txns.in_transaction(A, 0));
    }
}
