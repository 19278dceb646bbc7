//! A partition leader's idempotent-producer state, as Kafka 4.4.0's
//! `ProducerStateManager`, `ProducerStateEntry` and `ProducerAppendInfo`
//! keep it: per producer id, its epoch and the metadata (first sequence, last
//! sequence, first and last offset) of its last [`BATCHES_RETAINED`] batches.
//!
//! An idempotent batch is checked before it is appended, in Kafka's order
//! (`UnifiedLog.analyzeAndValidateProducerState`, then
//! `ProducerAppendInfo.checkProducerEpoch` and `checkSequence`):
//!
//! 1. A duplicate — same epoch, and exactly the sequence range of a retained
//!    batch — is answered with that batch's base offset and not appended:
//!    the client's retry of a batch whose acknowledgement it lost.
//! 2. An epoch below the producer's is fenced (`INVALID_PRODUCER_EPOCH`,
//!    which Kafka answers since 2.7 instead of `PRODUCER_FENCED`).
//! 3. A new (higher) epoch must start at sequence 0; the old epoch's batches
//!    are dropped when it is appended (`maybeUpdateProducerEpoch`).
//! 4. Within the epoch, the first sequence must be the last one + 1
//!    (wrapping after `i32::MAX` to 0), else `OUT_OF_ORDER_SEQUENCE_NUMBER`.
//!
//! A producer id the leader has no state for is accepted at any sequence:
//! Kafka 4.x's `checkSequence` treats an entry with no epoch
//! (`NO_PRODUCER_EPOCH`, a producer it has never seen or whose state expired)
//! as a fresh start whatever the sequence (KIP-360). The broker no longer
//! answers `UNKNOWN_PRODUCER_ID` to a produce request; only older brokers did.
//!
//! A new leader's producer state is what its log holds. Kafka rebuilds it on
//! truncation (`UnifiedLog.truncateTo` → `rebuildProducerState`: the latest
//! producer snapshot at or below the offset, then the log's batches replayed
//! up to it), and a follower keeps it up to date as it replicates
//! (`AppendOrigin.REPLICATION`: appended without validation). Here the
//! caller does the same with [`ProducerStates::append`] for each replicated
//! batch and [`ProducerStates::truncate_to`] when its log is truncated.
//!
//! Simplified: truncation drops the retained batches at or past the offset
//! and does not bring back batches older than the last five (Kafka's replay
//! would find them in the log); a producer left with no batch is forgotten,
//! so its next batch is accepted at any sequence, as when Kafka's state for
//! it is gone. Producer ids never expire (`producer.id.expiration.ms`, a day
//! by default). No transactions.
//!
//! Calling contract: for each idempotent batch of a produce request,
//! [`ProducerStates::check`] first; on [`Check::Append`] the caller writes the
//! batch to its log at the log end and then calls [`ProducerStates::append`]
//! with the offset it got; on [`Check::Duplicate`] it writes nothing and
//! answers with the offset given. Offsets passed to `append` increase.

#![cfg_attr(not(test), allow(dead_code))]

use std::collections::VecDeque;

/// Batches whose metadata a leader keeps per producer
/// (`ProducerStateEntry.NUM_BATCHES_TO_RETAIN`): why an idempotent producer
/// may have at most 5 requests in flight.
pub(crate) const BATCHES_RETAINED: usize = 5;

/// Producers one partition keeps state for: the model runs one producer; the
/// bound keeps the map small whatever the caller does.
pub(crate) const PRODUCERS_MAX: usize = 64;

/// A producer id (Kafka's `producerId`, handed out by `InitProducerId`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ProducerId(pub u64);

/// The producer fields of an idempotent record batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IdempotentBatch {
    pub producer_id: ProducerId,
    pub epoch: u32,
    pub base_sequence: i32,
    pub record_count: u32,
}

impl IdempotentBatch {
    /// The sequence of the batch's last record (`DefaultRecordBatch.lastSequence`,
    /// wrapping after `i32::MAX`).
    pub(crate) fn last_sequence(&self) -> i32 {
        increment_sequence(self.base_sequence, self.record_count.saturating_sub(1))
    }
}

/// `DefaultRecordBatch.incrementSequence`: sequences wrap from `i32::MAX` to 0.
pub(crate) fn increment_sequence(sequence: i32, increment: u32) -> i32 {
    let next = i64::from(sequence) + i64::from(increment);
    if next > i64::from(i32::MAX) { (next - i64::from(i32::MAX) - 1) as i32 } else { next as i32 }
}

/// What the leader does with an idempotent batch that passed the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// New: append it, then [`ProducerStates::append`].
    Append,
    /// Already in the log at `base_offset`: answer success with it, append nothing.
    Duplicate { base_offset: u64 },
}

/// Why the leader refuses an idempotent batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SequenceError {
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER`: not the next sequence (`last` is the
    /// producer's last sequence in this epoch; `None` for a new epoch, which
    /// must start at 0).
    OutOfOrderSequence { last: Option<i32>, got: i32 },
    /// `INVALID_PRODUCER_EPOCH`: an epoch older than the producer's.
    InvalidProducerEpoch { current: u32, got: u32 },
}

/// A retained batch's metadata (`BatchMetadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BatchMetadata {
    first_sequence: i32,
    last_sequence: i32,
    first_offset: u64,
    last_offset: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    epoch: u32,
    /// Oldest first, at most [`BATCHES_RETAINED`], never empty.
    batches: VecDeque<BatchMetadata>,
}

/// One partition's producer state; see the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProducerStates {
    /// In the order the producers first wrote (no hash order anywhere); at
    /// most [`PRODUCERS_MAX`], so a scan finds one.
    producers: Vec<(ProducerId, Entry)>,
}

impl ProducerStates {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn entry(&self, producer_id: ProducerId) -> Option<&Entry> {
        self.producers.iter().find(|(id, _)| *id == producer_id).map(|(_, entry)| entry)
    }

    /// The checks a leader makes before appending `batch` from a client.
    pub(crate) fn check(&self, batch: &IdempotentBatch) -> Result<Check, SequenceError> {
        let Some(entry) = self.entry(batch.producer_id) else {
            // No state: any sequence starts the producer afresh (KIP-360).
            return Ok(Check::Append);
        };
        let last = batch.last_sequence();
        if batch.epoch == entry.epoch
            && let Some(dup) = entry
                .batches
                .iter()
                .find(|b| b.first_sequence == batch.base_sequence && b.last_sequence == last)
        {
            return Ok(Check::Duplicate { base_offset: dup.first_offset });
        }
        if batch.epoch < entry.epoch {
            return Err(SequenceError::InvalidProducerEpoch { current: entry.epoch, got: batch.epoch });
        }
        if batch.epoch != entry.epoch {
            return if batch.base_sequence == 0 {
                Ok(Check::Append)
            } else {
                Err(SequenceError::OutOfOrderSequence { last: None, got: batch.base_sequence })
            };
        }
        let current_last = entry.batches.back().expect("an entry holds a batch").last_sequence;
        if batch.base_sequence == increment_sequence(current_last, 1) {
            Ok(Check::Append)
        } else {
            Err(SequenceError::OutOfOrderSequence { last: Some(current_last), got: batch.base_sequence })
        }
    }

    /// Records `batch`, written at `base_offset..base_offset + record_count`:
    /// after a passed [`check`](Self::check), or as a follower replicates it
    /// (no validation, as Kafka's `AppendOrigin.REPLICATION`).
    pub(crate) fn append(&mut self, batch: &IdempotentBatch, base_offset: u64) {
        assert!(batch.record_count >= 1, "a batch holds a record");
        let meta = BatchMetadata {
            first_sequence: batch.base_sequence,
            last_sequence: batch.last_sequence(),
            first_offset: base_offset,
            last_offset: base_offset + u64::from(batch.record_count) - 1,
        };
        let at = match self.producers.iter().position(|(id, _)| *id == batch.producer_id) {
            Some(at) => at,
            None => {
                self.producers
                    .push((batch.producer_id, Entry { epoch: batch.epoch, batches: VecDeque::new() }));
                self.producers.len() - 1
            }
        };
        let entry = &mut self.producers[at].1;
        if entry.epoch != batch.epoch {
            // A new epoch forgets the old one's batches (`maybeUpdateProducerEpoch`).
            entry.epoch = batch.epoch;
            entry.batches.clear();
        }
        assert!(
            entry.batches.back().is_none_or(|b| b.last_offset < base_offset),
            "a producer's batches are appended at increasing offsets"
        );
        if entry.batches.len() == BATCHES_RETAINED {
            entry.batches.pop_front();
        }
        entry.batches.push_back(meta);
        self.check_invariants();
    }

    /// The log was truncated to `offset` (everything at or past it is gone):
    /// the state forgets the batches written there.
    pub(crate) fn truncate_to(&mut self, offset: u64) {
        for (_, entry) in &mut self.producers {
            while entry.batches.back().is_some_and(|b| b.last_offset >= offset) {
                entry.batches.pop_back();
            }
        }
        self.producers.retain(|(_, entry)| !entry.batches.is_empty());
        self.check_invariants();
    }

    /// The producer's epoch and last sequence, if the leader knows it.
    pub(crate) fn last_sequence(&self, producer_id: ProducerId) -> Option<(u32, i32)> {
        let entry = self.entry(producer_id)?;
        entry.batches.back().map(|b| (entry.epoch, b.last_sequence))
    }

    fn check_invariants(&self) {
        if !cfg!(debug_assertions) {
            return; // the whole-state sweep: debug builds and tests (ARCHITECTURE.md)
        }
        assert!(self.producers.len() <= PRODUCERS_MAX, "producer state is bounded");
        for (i, (id, entry)) in self.producers.iter().enumerate() {
            assert!(self.producers[..i].iter().all(|(other, _)| other != id), "one entry per producer");
            assert!(
                (1..=BATCHES_RETAINED).contains(&entry.batches.len()),
                "an entry keeps 1 to {BATCHES_RETAINED} batches"
            );
            for pair in entry.batches.iter().zip(entry.batches.iter().skip(1)) {
                assert!(pair.0.last_offset < pair.1.first_offset, "retained batches are in offset order");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    const P: ProducerId = ProducerId(7);

    fn batch(epoch: u32, base_sequence: i32, record_count: u32) -> IdempotentBatch {
        IdempotentBatch { producer_id: P, epoch, base_sequence, record_count }
    }

    /// Checks and appends at `log_end` like a leader; returns the offset answered.
    fn produce(
        states: &mut ProducerStates,
        log_end: &mut u64,
        b: IdempotentBatch,
    ) -> Result<u64, SequenceError> {
        match states.check(&b)? {
            Check::Append => {
                let offset = *log_end;
                states.append(&b, offset);
                *log_end += u64::from(b.record_count);
                Ok(offset)
            }
            Check::Duplicate { base_offset } => Ok(base_offset),
        }
    }

    #[test]
    fn a_retried_batch_is_answered_with_its_first_offset_and_not_appended() {
        let (mut s, mut end) = (ProducerStates::new(), 0);
        assert_eq!(produce(&mut s, &mut end, batch(0, 0, 3)), Ok(0));
        assert_eq!(produce(&mut s, &mut end, batch(0, 3, 2)), Ok(3));
        assert_eq!(produce(&mut s, &mut end, batch(0, 0, 3)), Ok(0), "a duplicate of the first batch");
        assert_eq!(end, 5, "nothing appended for the duplicate");
        assert_eq!(s.last_sequence(P), Some((0, 4)));
    }

    #[test]
    fn only_the_last_five_batches_are_recognised_as_duplicates() {
        let (mut s, mut end) = (ProducerStates::new(), 0);
        for seq in 0..6 {
            produce(&mut s, &mut end, batch(0, seq, 1)).unwrap();
        }
        assert_eq!(produce(&mut s, &mut end, batch(0, 1, 1)), Ok(1), "seq 1 is among the last five");
        assert_eq!(
            produce(&mut s, &mut end, batch(0, 0, 1)),
            Err(SequenceError::OutOfOrderSequence { last: Some(5), got: 0 }),
            "seq 0 was forgotten: too old to be a known duplicate"
        );
    }

    #[test]
    fn a_gap_in_sequences_is_out_of_order() {
        let (mut s, mut end) = (ProducerStates::new(), 0);
        produce(&mut s, &mut end, batch(0, 0, 2)).unwrap();
        assert_eq!(
            produce(&mut s, &mut end, batch(0, 3, 1)),
            Err(SequenceError::OutOfOrderSequence { last: Some(1), got: 3 })
        );
        assert_eq!(produce(&mut s, &mut end, batch(0, 2, 1)), Ok(2));
    }

    #[test]
    fn an_unknown_producer_is_accepted_at_any_sequence() {
        let (mut s, mut end) = (ProducerStates::new(), 10);
        assert_eq!(produce(&mut s, &mut end, batch(3, 42, 1)), Ok(10));
        assert_eq!(s.last_sequence(P), Some((3, 42)));
    }

    #[test]
    fn epochs_fence_older_and_restart_sequences_at_zero() {
        let (mut s, mut end) = (ProducerStates::new(), 0);
        produce(&mut s, &mut end, batch(1, 0, 2)).unwrap();
        assert_eq!(
            produce(&mut s, &mut end, batch(0, 2, 1)),
            Err(SequenceError::InvalidProducerEpoch { current: 1, got: 0 })
        );
        assert_eq!(
            produce(&mut s, &mut end, batch(2, 2, 1)),
            Err(SequenceError::OutOfOrderSequence { last: None, got: 2 }),
            "a new epoch starts at 0"
        );
        assert_eq!(produce(&mut s, &mut end, batch(2, 0, 1)), Ok(2));
        // The old epoch's batches are gone: its retry is fenced, not a duplicate.
        assert!(matches!(
            produce(&mut s, &mut end, batch(1, 0, 2)),
            Err(SequenceError::InvalidProducerEpoch { .. })
        ));
    }

    #[test]
    fn sequences_wrap_after_i32_max() {
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(batch(0, i32::MAX - 1, 3).last_sequence(), 0);
        let (mut s, mut end) = (ProducerStates::new(), 0);
        produce(&mut s, &mut end, batch(0, i32::MAX - 1, 2)).unwrap();
        assert_eq!(produce(&mut s, &mut end, batch(0, 0, 1)), Ok(2));
    }

    #[test]
    fn truncation_forgets_what_the_log_lost() {
        let (mut s, mut end) = (ProducerStates::new(), 0);
        for seq in 0..3 {
            produce(&mut s, &mut end, batch(0, seq * 2, 2)).unwrap();
        }
        // A new leader whose log ends at 4: the third batch (offsets 4, 5) is gone.
        s.truncate_to(4);
        end = 4;
        assert_eq!(s.last_sequence(P), Some((0, 3)));
        // The client's retry of that batch is appended again, not a duplicate.
        assert_eq!(produce(&mut s, &mut end, batch(0, 4, 2)), Ok(4));
        s.truncate_to(0);
        assert_eq!(s.last_sequence(P), None, "nothing left: the producer is unknown again");
    }

    #[test]
    fn a_follower_builds_the_same_state_from_replicated_batches() {
        let (mut leader, mut end) = (ProducerStates::new(), 0);
        let mut follower = ProducerStates::new();
        for seq in 0..7 {
            let b = batch(0, seq, 1);
            let offset = produce(&mut leader, &mut end, b).unwrap();
            follower.append(&b, offset);
        }
        assert_eq!(leader, follower);
        assert_eq!(follower.check(&batch(0, 5, 1)), Ok(Check::Duplicate { base_offset: 5 }));
    }
}
