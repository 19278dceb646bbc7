//! The transaction coordinator for transactional ids, as Kafka 4.4.0's
//! `TransactionCoordinator` (core, Scala), `TransactionMetadata` and
//! `TransactionState` (`transaction-coordinator`, Java) run it, in ticks:
//! per `transactional.id` its producer id and epoch, the state of its
//! transaction, the partitions and groups in it, and its timeout.
//!
//! The requests, each answered at once (the transaction log's append and its
//! replication take no time here):
//!
//! - `InitProducerId` ([`TransactionCoordinator::handle_init_producer_id`],
//!   `prepareInitProducerIdTransit`): a new producer id on the first call for
//!   an id; each later call bumps the epoch (`prepareIncrementProducerEpoch`),
//!   which fences the previous instance: its requests now carry an older
//!   epoch. If the previous instance left a transaction ongoing, that
//!   transaction is aborted first (`prepareFenceProducerEpoch`, then an abort
//!   with the fenced epoch) and the caller is answered `CONCURRENT_TRANSACTIONS`
//!   to retry once the markers are written; while a commit or abort is being
//!   completed the answer is `CONCURRENT_TRANSACTIONS` too. An expected
//!   producer id and epoch (a producer that already had one, KIP-360) must
//!   match the current epoch (bump) or the previous one (a retry, no bump),
//!   else `PRODUCER_FENCED`. `transaction.timeout.ms` above
//!   `transaction.max.timeout.ms` is `INVALID_TRANSACTION_TIMEOUT`.
//! - `AddPartitionsToTxn` ([`TransactionCoordinator::handle_add_partitions`],
//!   `handleAddPartitionsToTransaction`): the first starts the transaction
//!   (`Ongoing`, its start tick). With transaction version 2 (KIP-890 part 2)
//!   the producer sends none: the partition leader asks on its behalf when the
//!   producer's first transactional batch of a transaction reaches it; the
//!   rules are the same, so the caller calls this either way.
//! - `AddOffsetsToTxn` ([`TransactionCoordinator::handle_add_offsets`]): puts
//!   the group's offsets partition in the transaction, with the same rules.
//!   Version 1 only: with version 2 the `TxnOffsetCommit` adds it.
//! - `TxnOffsetCommit` ([`TransactionCoordinator::handle_txn_offset_commit`]):
//!   Kafka's group coordinator holds the offsets pending
//!   (`pendingTransactionalOffsetCommits`) until the transaction's marker
//!   reaches the group's offsets partition: committed on COMMIT, dropped on
//!   ABORT. A member whose generation (classic) or member epoch (consumer
//!   protocol) is not the group's current one is refused with
//!   `ILLEGAL_GENERATION` ([`TxnError::IllegalGeneration`];
//!   `OffsetMetadataManager.validateTransactionalOffsetCommit` turns the
//!   consumer protocol's `STALE_MEMBER_EPOCH` into it, as the API has no such
//!   code): a member fenced by a rebalance cannot commit offsets of partitions
//!   it may no longer own (KIP-447). The caller passes both values. With
//!   version 2 the request itself adds the group to the transaction first
//!   (the client sends no `AddOffsetsToTxn`), so a refused commit may still
//!   have started the transaction, as in Kafka.
//! - `EndTxn` ([`TransactionCoordinator::handle_end_txn`], `endTransaction`
//!   and `endTransactionWithTV1`): `Ongoing` → `PrepareCommit` or
//!   `PrepareAbort`; a marker goes to each partition and group in the
//!   transaction ([`TxnOutput::WriteMarker`]); when the caller has written
//!   them all ([`TransactionCoordinator::handle_marker_written`]) →
//!   `CompleteCommit` or `CompleteAbort` (`prepareComplete`). With
//!   transaction version 2 every `EndTxn` bumps the epoch
//!   (`prepareAbortOrCommit` with `supportsEpochBump`), the markers carry the
//!   new epoch, and the answer tells the client the new epoch. The retry rules
//!   of version 2 (the table above `endTransaction`): an `EndTxn` at the epoch
//!   just before the current one is a retry (answered again without a new
//!   bump, or `CONCURRENT_TRANSACTIONS` while the markers are being written);
//!   an abort with nothing ongoing is allowed (an empty `PrepareAbort` that
//!   completes at once); a commit with nothing ongoing is `INVALID_TXN_STATE`.
//! - The transaction timeout ([`TransactionCoordinator::handle_tick`],
//!   `abortTimedOutTransactions` and `TransactionStateManager.timedOutTransactions`):
//!   an `Ongoing` transaction whose start + `transaction.timeout.ms` is
//!   before now is aborted with the epoch fenced (bumped), so the producer
//!   that stopped — crashed or stuck — can neither write nor commit in it
//!   again; with version 2 the abort bumps it once more.
//!
//! Errors are Kafka's, in Kafka's order of checks: `INVALID_PRODUCER_ID_MAPPING`
//! (no such id, or another producer id), `PRODUCER_FENCED` (an epoch that is not
//! the current one), `CONCURRENT_TRANSACTIONS` (a commit or abort is being
//! completed), `INVALID_TXN_STATE` (a request the state does not allow).
//!
//! Calling contract: the `handle_*` requests in any order, each refused with a
//! [`TxnError`] and nothing changed (but version 2's implicit add above, and
//! the abort an `InitProducerId` starts), or applied; `handle_tick(now)` with a
//! non-decreasing `now`; then [`TransactionCoordinator::poll_output`] until
//! `None`, routing each [`TxnOutput::WriteMarker`] to its partition or
//! group and reporting it written with `handle_marker_written`. Ticks passed to
//! the requests are the current tick.
//!
//! Simplified (for the page's fine print):
//! - Ticks, not milliseconds. The timeout is checked every tick (Kafka checks
//!   every `transaction.abort.timed.out.transaction.cleanup.interval.ms`, 10 s).
//! - The transaction log's writes take no time and never fail, so no
//!   `hasFailedEpochFence`, no coordinator epoch, no `NOT_COORDINATOR`, no
//!   coordinator failover; transactional ids never expire
//!   (`transactional.id.expiration.ms`, so no `Dead` state).
//! - The epoch is a `u32`: Kafka's is a `short`, and when it is exhausted
//!   (32766) the coordinator rotates to a new producer id with epoch 0.
//! - `TxnOffsetCommit` goes to the group coordinator in Kafka; here this part
//!   holds the pending offsets and tells the caller when to commit them.
//!   Under version 1 it refuses offsets for a group not added with
//!   `AddOffsetsToTxn` with `INVALID_TXN_STATE`, what Kafka's verification
//!   answers clients of that version. Group coordinator details (a simple
//!   consumer's generation -1, `UNKNOWN_MEMBER_ID`, offset metadata size)
//!   are left out. Two-phase commit (KIP-939) is not modelled.

#![cfg_attr(not(test), allow(dead_code))]

use crate::broker::producer_state::ProducerId;
use crate::config::{ConfigError, check_range};
pub(crate) use crate::limits::{
    GROUPS_MAX, PARTITIONS_MAX, TRANSACTION_TIMEOUT_TICKS_MAX, TRANSACTIONAL_IDS_MAX, TXN_OFFSETS_MAX,
    TXN_OUTPUTS_QUEUED_MAX,
};
use std::collections::VecDeque;

/// The transaction version a new Kafka 4.x cluster runs (`transaction.version`
/// feature level, `TransactionVersion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TransactionVersion {
    /// `TV_1`: the epoch is bumped only by `InitProducerId` and fencing.
    V1,
    /// `TV_2` (KIP-890, the default of a cluster formatted with 4.0 or later):
    /// every `EndTxn` bumps the epoch, and partitions are added implicitly.
    V2,
}

impl TransactionVersion {
    /// `TransactionVersion.supportsEpochBump`.
    fn supports_epoch_bump(self) -> bool {
        self == TransactionVersion::V2
    }
}

/// What the coordinator is told when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TxnCoordinatorConfig {
    pub transaction_version: TransactionVersion,
    /// `transaction.max.timeout.ms` in ticks: a longer `transaction.timeout.ms`
    /// is refused with `INVALID_TRANSACTION_TIMEOUT`.
    pub max_timeout_ticks: u64,
    /// The first producer id this coordinator hands out (Kafka takes blocks of
    /// ids from the controller; the caller keeps them apart from others).
    pub first_producer_id: u64,
}

impl TxnCoordinatorConfig {
    /// Refuses a bad value with an error naming the field.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        check_range(
            "transactions.max_timeout_ticks",
            self.max_timeout_ticks,
            1,
            TRANSACTION_TIMEOUT_TICKS_MAX,
        )
    }

    /// Kafka 4.4.0's defaults, in ticks of a second: version 2, 900 ticks.
    pub(crate) fn new(first_producer_id: u64) -> Self {
        TxnCoordinatorConfig {
            transaction_version: TransactionVersion::V2,
            max_timeout_ticks: 900,
            first_producer_id,
        }
    }
}

/// `TransactionState`, without `Dead` (ids never expire here) and
/// `PrepareEpochFence` (a pending state Kafka leaves within the same request).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxnState {
    Empty,
    Ongoing,
    PrepareCommit,
    PrepareAbort,
    CompleteCommit,
    CompleteAbort,
}

impl TxnState {
    /// Kafka's name of the state, as `kafka-transactions --describe` prints it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            TxnState::Empty => "Empty",
            TxnState::Ongoing => "Ongoing",
            TxnState::PrepareCommit => "PrepareCommit",
            TxnState::PrepareAbort => "PrepareAbort",
            TxnState::CompleteCommit => "CompleteCommit",
            TxnState::CompleteAbort => "CompleteAbort",
        }
    }

    /// `TransactionState.validPreviousStates`: whether `self` may follow `from`.
    fn may_follow(self, from: TxnState) -> bool {
        use TxnState::*;
        match self {
            Empty => matches!(from, Empty | CompleteCommit | CompleteAbort),
            Ongoing => matches!(from, Ongoing | Empty | CompleteCommit | CompleteAbort),
            PrepareCommit => from == Ongoing,
            // Empty and complete states only with version 2 (an abort with
            // nothing ongoing), which `end_txn` checks.
            PrepareAbort => matches!(from, Ongoing | Empty | CompleteCommit | CompleteAbort),
            CompleteCommit => from == PrepareCommit,
            CompleteAbort => from == PrepareAbort,
        }
    }
}

/// Where a transaction's marker goes: a partition of the output topic, or the
/// offsets partition of a group whose offsets the transaction commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TxnTarget {
    Partition(u32),
    Group(u32),
}

/// `TransactionResult`: what a marker says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxnResult {
    Commit,
    Abort,
}

/// A producer id and epoch (`ProducerIdAndEpoch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProducerIdAndEpoch {
    pub producer_id: ProducerId,
    pub epoch: u32,
}

/// Why the coordinator refused a request (Kafka's error codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxnError {
    /// `INVALID_TRANSACTION_TIMEOUT`: 0 or above `transaction.max.timeout.ms`.
    InvalidTransactionTimeout,
    /// `INVALID_PRODUCER_ID_MAPPING`: the transactional id is unknown, or has
    /// another producer id.
    InvalidProducerIdMapping,
    /// `PRODUCER_FENCED`: not the transactional id's current epoch; a newer
    /// instance initialised, or the coordinator aborted on a timeout.
    ProducerFenced,
    /// `INVALID_PRODUCER_EPOCH`: what a produce request is answered when the
    /// leader's `AddPartitionsToTxn` on its behalf was `PRODUCER_FENCED`
    /// ([`TxnError::on_produce`]).
    InvalidProducerEpoch,
    /// `CONCURRENT_TRANSACTIONS`: a commit or abort is being completed (its
    /// markers are not all written); retriable.
    ConcurrentTransactions,
    /// `INVALID_TXN_STATE`: the request does not fit the transaction's state.
    InvalidTxnState,
    /// `ILLEGAL_GENERATION`: `TxnOffsetCommit` from a member of an older
    /// generation (classic) or member epoch (consumer protocol).
    IllegalGeneration,
    /// The model's bound: [`TRANSACTIONAL_IDS_MAX`] ids, or more partitions,
    /// groups or offsets than a transaction holds. Kafka has no such error.
    LimitExceeded,
}

impl TxnError {
    /// The error a produce request gets when the partition leader's
    /// `AddPartitionsToTxn` (version 2's implicit add, or version 1's
    /// verification) failed with `self`: `AddPartitionsToTxnManager` answers
    /// `INVALID_PRODUCER_EPOCH` for `PRODUCER_FENCED`, which producers expect
    /// there, and passes the others on.
    pub(crate) fn on_produce(self) -> TxnError {
        match self {
            TxnError::ProducerFenced => TxnError::InvalidProducerEpoch,
            other => other,
        }
    }
}

/// A `TxnOffsetCommit`'s group fencing: the generation (classic) or member
/// epoch (consumer protocol) the member sent, and the group's current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Generations {
    pub member: u32,
    pub group: u32,
}

/// What the caller routes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TxnOutput {
    /// Write a COMMIT or ABORT control marker for this producer id and epoch
    /// (`WriteTxnMarkers`), then call `handle_marker_written`.
    WriteMarker { target: TxnTarget, marker: ProducerIdAndEpoch, result: TxnResult },
    /// The COMMIT marker reached the group: commit these offsets
    /// (partition, offset) to its committed offsets.
    CommitOffsets { group: u32, offsets: Vec<(u32, u64)> },
    /// The coordinator aborted an ongoing transaction whose timeout passed;
    /// `aborted_with` is the epoch its ABORT markers carry (fenced, and bumped
    /// again under version 2).
    TimedOut { transactional_id: String, aborted_with: ProducerIdAndEpoch },
}

/// A group in the transaction and the offsets it holds pending.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingOffsets {
    group: u32,
    /// By partition, each at most once; at most [`TXN_OFFSETS_MAX`].
    offsets: Vec<(u32, u64)>,
}

/// `TransactionMetadata`, for one transactional id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TxnMetadata {
    transactional_id: String,
    producer_id: ProducerId,
    /// `None` is Kafka's `NO_PRODUCER_EPOCH`: created, never initialised.
    epoch: Option<u32>,
    /// The epoch before the last bump (`lastProducerEpoch`), to recognise a
    /// retry; `None` once a new instance initialised.
    last_epoch: Option<u32>,
    timeout_ticks: u64,
    state: TxnState,
    /// The transaction's partitions, ascending, at most [`PARTITIONS_MAX`].
    partitions: Vec<u32>,
    /// The transaction's groups (`AddOffsetsToTxn`), at most [`GROUPS_MAX`].
    groups: Vec<PendingOffsets>,
    /// `txnStartTimestamp`: when it became `Ongoing`.
    start_tick: Option<u64>,
    /// Markers sent and not yet written, while `PrepareCommit`/`PrepareAbort`.
    markers_pending: Vec<TxnTarget>,
}

impl TxnMetadata {
    fn current(&self) -> ProducerIdAndEpoch {
        ProducerIdAndEpoch {
            producer_id: self.producer_id,
            epoch: self.epoch.expect("an initialised id has an epoch"),
        }
    }

    fn transition(&mut self, to: TxnState) {
        assert!(to.may_follow(self.state), "{:?} cannot follow {:?}", to, self.state);
        self.state = to;
    }

    /// The producer id and epoch check every request but `InitProducerId` makes.
    fn check_producer(&self, producer: ProducerIdAndEpoch) -> Result<(), TxnError> {
        if self.producer_id != producer.producer_id {
            return Err(TxnError::InvalidProducerIdMapping);
        }
        if self.epoch != Some(producer.epoch) {
            return Err(TxnError::ProducerFenced);
        }
        Ok(())
    }
}

/// The transaction coordinator; see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TransactionCoordinator {
    config: TxnCoordinatorConfig,
    /// In the order the ids first came; at most [`TRANSACTIONAL_IDS_MAX`].
    transactions: Vec<TxnMetadata>,
    next_producer_id: u64,
    outputs: VecDeque<TxnOutput>,
}

impl TransactionCoordinator {
    pub(crate) fn new(config: TxnCoordinatorConfig) -> Self {
        assert_eq!(config.validate(), Ok(()), "the caller validates the config");
        TransactionCoordinator {
            config,
            transactions: Vec::new(),
            next_producer_id: config.first_producer_id,
            outputs: VecDeque::new(),
        }
    }

    /// The id's state, producer id and epoch, if it has been seen.
    pub(crate) fn describe(&self, transactional_id: &str) -> Option<(TxnState, ProducerId, Option<u32>)> {
        self.find(transactional_id).map(|i| {
            let m = &self.transactions[i];
            (m.state, m.producer_id, m.epoch)
        })
    }

    /// The offsets a transaction holds pending for `group`.
    pub(crate) fn pending_offsets(&self, transactional_id: &str, group: u32) -> &[(u32, u64)] {
        self.find(transactional_id)
            .and_then(|i| self.transactions[i].groups.iter().find(|g| g.group == group))
            .map_or(&[], |g| &g.offsets)
    }

    fn find(&self, transactional_id: &str) -> Option<usize> {
        self.transactions.iter().position(|m| m.transactional_id == transactional_id)
    }

    fn generate_producer_id(&mut self) -> ProducerId {
        let id = ProducerId(self.next_producer_id);
        self.next_producer_id += 1;
        id
    }

    /// `InitProducerId` with a transactional id: the producer id and epoch
    /// the new instance uses. `expected` is the id and epoch the producer
    /// already had (KIP-360), `None` for a new instance.
    pub(crate) fn handle_init_producer_id(
        &mut self,
        transactional_id: &str,
        timeout_ticks: u64,
        expected: Option<ProducerIdAndEpoch>,
        now: u64,
    ) -> Result<ProducerIdAndEpoch, TxnError> {
        if timeout_ticks == 0 || timeout_ticks > self.config.max_timeout_ticks {
            return Err(TxnError::InvalidTransactionTimeout);
        }
        let index = match self.find(transactional_id) {
            Some(index) => index,
            None => {
                if self.transactions.len() == TRANSACTIONAL_IDS_MAX {
                    return Err(TxnError::LimitExceeded);
                }
                let producer_id = self.generate_producer_id();
                self.transactions.push(TxnMetadata {
                    transactional_id: transactional_id.to_owned(),
                    producer_id,
                    epoch: None,
                    last_epoch: None,
                    timeout_ticks,
                    state: TxnState::Empty,
                    partitions: Vec::new(),
                    groups: Vec::new(),
                    start_tick: None,
                    markers_pending: Vec::new(),
                });
                self.transactions.len() - 1
            }
        };
        let m = &mut self.transactions[index];
        // `isValidProducerId`: a fresh entry, or the same producer id.
        if let Some(e) = expected
            && m.epoch.is_some()
            && e.producer_id != m.producer_id
        {
            return Err(TxnError::ProducerFenced);
        }
        let result = match m.state {
            TxnState::PrepareCommit | TxnState::PrepareAbort => Err(TxnError::ConcurrentTransactions),
            TxnState::Ongoing => {
                // `prepareFenceProducerEpoch` then the abort: the epoch is never
                // returned; the client retries and bumps it once more.
                self.fence_and_abort(index, now);
                return Err(TxnError::ConcurrentTransactions);
            }
            TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort => {
                // `prepareIncrementProducerEpoch`.
                let bumped = m.epoch.map_or(0, |e| e + 1);
                let (epoch, last_epoch) = match expected {
                    None => (bumped, None),
                    Some(e) if m.epoch.is_none() || Some(e.epoch) == m.epoch => (bumped, m.epoch),
                    // A retry of a call that succeeded: no second bump.
                    Some(e) if Some(e.epoch) == m.last_epoch => {
                        (m.epoch.expect("bumped before"), m.last_epoch)
                    }
                    Some(_) => return Err(TxnError::ProducerFenced),
                };
                m.transition(TxnState::Empty);
                m.epoch = Some(epoch);
                m.last_epoch = last_epoch;
                m.timeout_ticks = timeout_ticks;
                m.partitions.clear();
                m.groups.clear();
                m.start_tick = None;
                Ok(m.current())
            }
        };
        self.check();
        result
    }

    /// `AddPartitionsToTxn` (version 1 from the producer, version 2 from the
    /// partition leader on the producer's behalf).
    pub(crate) fn handle_add_partitions(
        &mut self,
        transactional_id: &str,
        producer: ProducerIdAndEpoch,
        partitions: &[u32],
        now: u64,
    ) -> Result<(), TxnError> {
        let index = self.find(transactional_id).ok_or(TxnError::InvalidProducerIdMapping)?;
        let m = &mut self.transactions[index];
        Self::check_addable(m, producer)?;
        let mut added = m.partitions.clone();
        for &p in partitions {
            if let Err(at) = added.binary_search(&p) {
                added.insert(at, p);
            }
        }
        if added.len() > PARTITIONS_MAX as usize {
            return Err(TxnError::LimitExceeded);
        }
        m.partitions = added;
        Self::start(m, now);
        self.check();
        Ok(())
    }

    /// `AddOffsetsToTxn`: the group's offsets partition joins the transaction.
    pub(crate) fn handle_add_offsets(
        &mut self,
        transactional_id: &str,
        producer: ProducerIdAndEpoch,
        group: u32,
        now: u64,
    ) -> Result<(), TxnError> {
        let index = self.find(transactional_id).ok_or(TxnError::InvalidProducerIdMapping)?;
        let m = &mut self.transactions[index];
        Self::check_addable(m, producer)?;
        if !m.groups.iter().any(|g| g.group == group) {
            if m.groups.len() == GROUPS_MAX {
                return Err(TxnError::LimitExceeded);
            }
            m.groups.push(PendingOffsets { group, offsets: Vec::new() });
        }
        Self::start(m, now);
        self.check();
        Ok(())
    }

    /// `handleAddPartitionsToTransaction`'s checks.
    fn check_addable(m: &TxnMetadata, producer: ProducerIdAndEpoch) -> Result<(), TxnError> {
        m.check_producer(producer)?;
        if matches!(m.state, TxnState::PrepareCommit | TxnState::PrepareAbort) {
            return Err(TxnError::ConcurrentTransactions);
        }
        Ok(())
    }

    /// `prepareAddPartitions`: a transaction starts with its first addition.
    fn start(m: &mut TxnMetadata, now: u64) {
        if m.state != TxnState::Ongoing {
            m.start_tick = Some(now);
        }
        m.transition(TxnState::Ongoing);
    }

    /// `TxnOffsetCommit`: `offsets` (partition, next offset to read) held
    /// pending in the transaction until its marker reaches the group.
    /// `generations` are the committing member's generation (or member epoch)
    /// and the group's current one, which the caller reads from the group.
    ///
    /// With transaction version 2 the producer sends no `AddOffsetsToTxn`
    /// (`TransactionManager.sendOffsetsToTransaction`): the group joins the
    /// transaction with this request, as a partition joins with its first
    /// write, and that happens before the group checks the generation (Kafka
    /// verifies the transaction, then the group coordinator validates), so a
    /// stale member's request may still start the transaction. With version 1
    /// the group must have been added (else `INVALID_TXN_STATE`, what the
    /// verification answers clients of that version).
    pub(crate) fn handle_txn_offset_commit(
        &mut self,
        transactional_id: &str,
        producer: ProducerIdAndEpoch,
        group: u32,
        generations: Generations,
        offsets: &[(u32, u64)],
        now: u64,
    ) -> Result<(), TxnError> {
        let index = self.find(transactional_id).ok_or(TxnError::InvalidProducerIdMapping)?;
        if self.config.transaction_version.supports_epoch_bump() {
            self.handle_add_offsets(transactional_id, producer, group, now)?;
        }
        let m = &mut self.transactions[index];
        m.check_producer(producer)?;
        if generations.member != generations.group {
            return Err(TxnError::IllegalGeneration);
        }
        if m.state != TxnState::Ongoing {
            return Err(TxnError::InvalidTxnState);
        }
        let pending = m.groups.iter_mut().find(|g| g.group == group).ok_or(TxnError::InvalidTxnState)?;
        let mut merged = pending.offsets.clone();
        for &(partition, offset) in offsets {
            match merged.iter_mut().find(|(p, _)| *p == partition) {
                // A later commit in the same transaction replaces the earlier one.
                Some(entry) => entry.1 = offset,
                None => merged.push((partition, offset)),
            }
        }
        if merged.len() > TXN_OFFSETS_MAX {
            return Err(TxnError::LimitExceeded);
        }
        pending.offsets = merged;
        self.check();
        Ok(())
    }

    /// `EndTxn`: commit or abort. Answers the producer id and epoch the
    /// producer goes on with (bumped under version 2).
    pub(crate) fn handle_end_txn(
        &mut self,
        transactional_id: &str,
        producer: ProducerIdAndEpoch,
        result: TxnResult,
        now: u64,
    ) -> Result<ProducerIdAndEpoch, TxnError> {
        let index = self.find(transactional_id).ok_or(TxnError::InvalidProducerIdMapping)?;
        let v2 = self.config.transaction_version.supports_epoch_bump();
        let m = &self.transactions[index];
        if m.producer_id != producer.producer_id {
            return Err(TxnError::InvalidProducerIdMapping);
        }
        let Some(current) = m.epoch else { return Err(TxnError::ProducerFenced) };
        let commit = result == TxnResult::Commit;
        let answer = if v2 {
            // `endTransaction`: the retry of an EndTxn carries the epoch the
            // bump replaced.
            let retry = producer.epoch.checked_add(1) == Some(current);
            let valid = match m.state {
                TxnState::Ongoing | TxnState::Empty => producer.epoch == current,
                TxnState::PrepareCommit | TxnState::PrepareAbort => retry,
                TxnState::CompleteCommit | TxnState::CompleteAbort => retry || producer.epoch == current,
            };
            if !valid {
                return Err(TxnError::ProducerFenced);
            }
            match (m.state, commit) {
                (TxnState::Ongoing, _) => Action::Prepare,
                (TxnState::CompleteCommit, true) | (TxnState::CompleteAbort, false) if retry => {
                    Action::Answer
                }
                (TxnState::CompleteCommit, false) | (TxnState::CompleteAbort, false) if !retry => {
                    Action::Prepare
                }
                (TxnState::Empty, false) => Action::Prepare,
                (TxnState::PrepareCommit, true) | (TxnState::PrepareAbort, false) => {
                    return Err(TxnError::ConcurrentTransactions);
                }
                _ => return Err(TxnError::InvalidTxnState),
            }
        } else {
            // `endTransactionWithTV1`: strict equality.
            if producer.epoch != current {
                return Err(TxnError::ProducerFenced);
            }
            match (m.state, commit) {
                (TxnState::Ongoing, _) => Action::Prepare,
                (TxnState::CompleteCommit, true) | (TxnState::CompleteAbort, false) => Action::Answer,
                (TxnState::PrepareCommit, true) | (TxnState::PrepareAbort, false) => {
                    return Err(TxnError::ConcurrentTransactions);
                }
                _ => return Err(TxnError::InvalidTxnState),
            }
        };
        if answer == Action::Prepare {
            self.prepare_end(index, result, v2, now);
        }
        self.check();
        Ok(self.transactions[index].current())
    }

    /// `prepareAbortOrCommit`, then the markers (`addTxnMarkersToSend`).
    fn prepare_end(&mut self, index: usize, result: TxnResult, bump: bool, now: u64) {
        let m = &mut self.transactions[index];
        let current = m.epoch.expect("an initialised id has an epoch");
        if bump {
            m.epoch = Some(current + 1);
            m.last_epoch = Some(current);
        }
        if m.start_tick.is_none() {
            // An abort with nothing ongoing (version 2, `noPartitionAdded`).
            m.start_tick = Some(now);
        }
        m.transition(match result {
            TxnResult::Commit => TxnState::PrepareCommit,
            TxnResult::Abort => TxnState::PrepareAbort,
        });
        let mut targets: Vec<TxnTarget> = m.partitions.iter().map(|&p| TxnTarget::Partition(p)).collect();
        targets.extend(m.groups.iter().map(|g| TxnTarget::Group(g.group)));
        let marker = m.current();
        for &target in &targets {
            Self::push(&mut self.outputs, TxnOutput::WriteMarker { target, marker, result });
        }
        self.transactions[index].markers_pending = targets;
        if self.transactions[index].markers_pending.is_empty() {
            Self::complete(&mut self.transactions[index]);
        }
    }

    /// `prepareFenceProducerEpoch`, then the abort `endTransaction` makes of it
    /// (not from the client, with the server's transaction version).
    fn fence_and_abort(&mut self, index: usize, now: u64) -> ProducerIdAndEpoch {
        let m = &mut self.transactions[index];
        assert_eq!(m.state, TxnState::Ongoing, "only an ongoing transaction is fenced");
        let fenced = m.epoch.expect("an ongoing transaction has an epoch") + 1;
        m.epoch = Some(fenced);
        // A new instance's retry must not pass for the fenced one's.
        m.last_epoch = None;
        let v2 = self.config.transaction_version.supports_epoch_bump();
        self.prepare_end(index, TxnResult::Abort, v2, now);
        self.transactions[index].current()
    }

    /// `prepareComplete`: every marker is written.
    fn complete(m: &mut TxnMetadata) {
        assert!(m.markers_pending.is_empty(), "complete once every marker is written");
        m.transition(match m.state {
            TxnState::PrepareCommit => TxnState::CompleteCommit,
            _ => TxnState::CompleteAbort,
        });
        m.partitions.clear();
        m.groups.clear();
    }

    /// The caller wrote the marker for `producer_id`'s transaction to
    /// `target` (`TransactionMarkerRequestCompletionHandler`): to a partition,
    /// once it is replicated (`handleWriteTxnMarkersRequest` appends markers
    /// with acks=all, so a clean election never cuts a marker the coordinator
    /// counts). A report of a marker not pending (written twice) changes
    /// nothing.
    pub(crate) fn handle_marker_written(&mut self, producer_id: ProducerId, target: TxnTarget) {
        let Some(index) = self.transactions.iter().position(|m| m.producer_id == producer_id) else {
            return;
        };
        let m = &mut self.transactions[index];
        let Some(at) = m.markers_pending.iter().position(|t| *t == target) else { return };
        m.markers_pending.remove(at);
        if let TxnTarget::Group(group) = target
            && m.state == TxnState::PrepareCommit
            && let Some(g) = m.groups.iter_mut().find(|g| g.group == group)
            && !g.offsets.is_empty()
        {
            let offsets = std::mem::take(&mut g.offsets);
            Self::push(&mut self.outputs, TxnOutput::CommitOffsets { group, offsets });
        }
        if m.markers_pending.is_empty() {
            Self::complete(m);
        }
        self.check();
    }

    /// Aborts every ongoing transaction whose timeout passed
    /// (`timedOutTransactions`: start + timeout < now).
    pub(crate) fn handle_tick(&mut self, now: u64) {
        for index in 0..self.transactions.len() {
            let m = &self.transactions[index];
            let expired = m.state == TxnState::Ongoing
                && m.start_tick.is_some_and(|start| start.saturating_add(m.timeout_ticks) < now);
            if expired {
                let aborted_with = self.fence_and_abort(index, now);
                let transactional_id = self.transactions[index].transactional_id.clone();
                Self::push(&mut self.outputs, TxnOutput::TimedOut { transactional_id, aborted_with });
            }
        }
        self.check();
    }

    pub(crate) fn poll_output(&mut self) -> Option<TxnOutput> {
        self.outputs.pop_front()
    }

    fn push(outputs: &mut VecDeque<TxnOutput>, output: TxnOutput) {
        // The caller drains the outputs every tick; a caller that does not
        // is a bug, not input.
        assert!(outputs.len() < TXN_OUTPUTS_QUEUED_MAX, "transaction outputs are drained");
        outputs.push_back(output);
    }

    /// The invariants no request can break.
    pub(crate) fn check(&self) {
        if !cfg!(debug_assertions) {
            return; // the whole-state sweep: debug builds and tests (ARCHITECTURE.md)
        }
        assert!(self.transactions.len() <= TRANSACTIONAL_IDS_MAX, "transactional ids are bounded");
        for (i, m) in self.transactions.iter().enumerate() {
            assert!(
                self.transactions[..i].iter().all(|o| o.producer_id != m.producer_id),
                "each transactional id has its own producer id"
            );
            assert!(m.producer_id.0 < self.next_producer_id, "producer ids come from the coordinator");
            assert!(m.timeout_ticks >= 1, "a transaction has a timeout");
            assert!(m.partitions.windows(2).all(|w| w[0] < w[1]), "partitions are a sorted set");
            assert!(m.partitions.len() <= PARTITIONS_MAX as usize && m.groups.len() <= GROUPS_MAX);
            for g in &m.groups {
                assert!(g.offsets.len() <= TXN_OFFSETS_MAX, "pending offsets are bounded");
            }
            let preparing = matches!(m.state, TxnState::PrepareCommit | TxnState::PrepareAbort);
            assert!(preparing || m.markers_pending.is_empty(), "markers are pending only while preparing");
            for target in &m.markers_pending {
                match target {
                    TxnTarget::Partition(p) => {
                        assert!(m.partitions.contains(p), "a marker goes to a partition of its transaction")
                    }
                    TxnTarget::Group(g) => assert!(
                        m.groups.iter().any(|o| o.group == *g),
                        "a marker goes to a group of its transaction"
                    ),
                }
            }
            match m.state {
                TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort => {
                    assert!(
                        m.partitions.is_empty() && m.groups.is_empty(),
                        "no partitions outside a transaction"
                    );
                }
                TxnState::Ongoing | TxnState::PrepareCommit | TxnState::PrepareAbort => {
                    assert!(
                        m.epoch.is_some() && m.start_tick.is_some(),
                        "a transaction has an epoch and a start"
                    );
                }
            }
            if m.epoch.is_none() {
                assert_eq!(m.state, TxnState::Empty, "an id never initialised has no transaction");
            }
            if let (Some(last), Some(epoch)) = (m.last_epoch, m.epoch) {
                assert!(last < epoch, "the last epoch is older than the current one");
            }
        }
    }
}

/// What `handle_end_txn` does once the request passed its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// Move to PrepareCommit/PrepareAbort and send the markers.
    Prepare,
    /// A retry of a completed request: answer it again, change nothing.
    Answer,
}

#[cfg(test)]
mod tests;
