//! Routes exactly-once processing (`config.transactions`): the
//! transactional group's members' producers to the `TransactionCoordinator`
//! (`InitProducerId` when a member starts, the implicit `AddPartitionsToTxn`
//! of transaction version 2 when a batch's first result reaches a payouts
//! partition, `TxnOffsetCommit` and `EndTxn` at the end of each batch), the
//! coordinator's control markers to payouts and its committed offsets to the
//! group's offsets, its transaction timeouts once a tick, and the downstream
//! consumer's reads of payouts.
//!
//! The application's loop is Kafka's consume-transform-produce: `poll()`;
//! for each record the application's handler (the payout ledger, an effect
//! outside Kafka) and one result sent to payouts, the first in a batch
//! beginning the transaction; at the end of the batch
//! `sendOffsetsToTransaction(positions, groupMetadata)` and
//! `commitTransaction()`. A commit refused for an old generation aborts the
//! transaction, and the member seeks back to its group's committed offsets
//! (what Kafka's examples do), so the batch is processed again. A fenced
//! producer (`INVALID_PRODUCER_EPOCH`, `PRODUCER_FENCED`) is fatal: the
//! application closes, as `ProducerFencedException` asks.
//!
//! Simplified (the page's fine print): the member's generation is the
//! group's while the coordinator knows its member id, else an older one;
//! every request is answered in the tick it is made and markers are written
//! at once (one broker holds payouts and
//! the transaction log); the downstream consumer is one member that reads
//! every payouts partition from the start and never restarts.

// Without the `cluster` feature no path exists and the events go (`emit_txn`).
#![cfg_attr(not(feature = "transactions"), allow(unused_variables))]

use super::Sim;

use super::TxnSlot;
use crate::broker::payouts::PayoutsTopic;
use crate::broker::transaction::{
    Generations, TransactionCoordinator, TxnError, TxnOutput, TxnResult, TxnTarget,
};
use crate::broker::txn_index::TxnWriteError;
use crate::client::Fetched;
use crate::client::transactional::{Downstream, TransactionalProducer};
use crate::config::{Config, ConfigError, TransactionsConfig};
use crate::event::Event;
use crate::input::ConsumerId;
use crate::partitioner::partition_for_key;
use crate::sim::subject_key;
use crate::view::ConsumerState;

/// The counters of exactly-once processing (`Metrics`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct EosCounters {
    /// Writes and offset commits refused because a newer instance fenced the producer.
    pub fenced_writes: u64,
    /// Results the downstream consumer received whose transaction was
    /// aborted (by the time of the read, or later).
    pub aborted_seen: u64,
    pub committed_transactions: u64,
    pub aborted_transactions: u64,
}

/// Exactly-once processing beside the `Sim`'s other parts.
///
/// # Calling contract
/// Only the `Sim` touches it: when a member of `group` starts, handles a
/// record or ends a batch, once a tick for the timeouts and the downstream
/// reads, and when the topic grows.
#[derive(Debug, Clone)]
pub(crate) struct EosPath {
    pub group: usize,
    pub config: TransactionsConfig,
    pub coordinator: TransactionCoordinator,
    pub payouts: PayoutsTopic,
    /// One per member card of `group` that ever started, in start order.
    pub producers: Vec<TransactionalProducer>,
    pub downstream: Downstream,
    pub counters: EosCounters,
}

/// Exactly-once processing for a config with a transactions section.
pub(crate) fn open(config: &Config) -> Result<TxnSlot, ConfigError> {
    #[cfg(feature = "transactions")]
    {
        let transactions = config.transactions.clone().expect("called with a transactions section");
        let group = transactions.group_index(&config.groups).expect("validated");
        let coordinator_config = crate::broker::transaction::TxnCoordinatorConfig::new(1000);
        let version = coordinator_config.transaction_version;
        Ok(Box::new(EosPath {
            group,
            coordinator: TransactionCoordinator::new(coordinator_config),
            payouts: PayoutsTopic::new(config.partitions, version),
            producers: Vec::new(),
            downstream: Downstream::new(
                transactions.isolation_level,
                transactions.downstream_per_tick,
                config.partitions,
            ),
            counters: EosCounters::default(),
            config: transactions,
        }))
    }
    #[cfg(not(feature = "transactions"))]
    {
        let _ = config;
        Err(ConfigError { field: "transactions", message: crate::config::NO_TRANSACTIONS.into() })
    }
}

fn error_name(error: TxnError) -> &'static str {
    match error {
        TxnError::InvalidTransactionTimeout => "INVALID_TRANSACTION_TIMEOUT",
        TxnError::InvalidProducerIdMapping => "INVALID_PRODUCER_ID_MAPPING",
        TxnError::ProducerFenced => "PRODUCER_FENCED",
        TxnError::InvalidProducerEpoch => "INVALID_PRODUCER_EPOCH",
        TxnError::ConcurrentTransactions => "CONCURRENT_TRANSACTIONS",
        TxnError::InvalidTxnState => "INVALID_TXN_STATE",
        TxnError::IllegalGeneration => "ILLEGAL_GENERATION",
        TxnError::LimitExceeded => "the model's limit of transactional ids",
    }
}

fn fenced(error: TxnError) -> bool {
    matches!(error, TxnError::ProducerFenced | TxnError::InvalidProducerEpoch)
}

impl Sim {
    /// Whether consumer `c`'s application is the transactional one.
    pub(super) fn transactional(&self, c: usize) -> bool {
        self.eos.as_ref().is_some_and(|eos| eos.group == self.consumers[c].group())
    }

    /// The `transactional.id` of consumer `c`: its group's name and its
    /// `group.instance.id` when static (so a new instance of it fences the
    /// old), else its client id.
    fn transactional_id(&self, c: usize) -> String {
        let consumer = &self.consumers[c];
        let member = consumer.instance_id().map(str::to_owned).unwrap_or_else(|| consumer.id().to_string());
        format!("{}-{member}", self.groups[consumer.group()].config.name)
    }

    fn producer_index(&self, id: ConsumerId) -> Option<usize> {
        self.eos.as_ref().and_then(|eos| eos.producers.iter().position(|p| p.consumer == id))
    }

    /// `initTransactions()` when consumer `c` starts: a new epoch for its
    /// transactional id, fencing an older instance (whose open transaction the
    /// coordinator aborts first; the call is retried once its markers are written).
    pub(super) fn eos_init(&mut self, c: usize) {
        let id = self.consumers[c].id();
        let transactional_id = self.transactional_id(c);
        let now = self.now;
        let i = match self.producer_index(id) {
            Some(i) => i,
            None => {
                let eos = self.eos.as_mut().expect("transactional");
                eos.producers.push(TransactionalProducer::new(id, transactional_id.clone()));
                eos.producers.len() - 1
            }
        };
        let eos = self.eos.as_mut().expect("transactional");
        let timeout = eos.config.transaction_timeout_ticks;
        let mut answer = eos.coordinator.handle_init_producer_id(&transactional_id, timeout, None, now);
        if answer == Err(TxnError::ConcurrentTransactions) {
            // The coordinator fenced the previous instance and is aborting its
            // transaction: its markers are written now, then the client's retry succeeds.
            eos.counters.aborted_transactions += 1;
            emit_txn!(
                self,
                Event::TxnAborted {
                    tick: now,
                    transactional_id: transactional_id.clone(),
                    reason: "fenced by a new instance",
                }
            );
            self.route_txn_outputs();
            let eos = self.eos.as_mut().expect("transactional");
            answer = eos.coordinator.handle_init_producer_id(&transactional_id, timeout, None, now);
        }
        let eos = self.eos.as_mut().expect("transactional");
        let producer = &mut eos.producers[i];
        producer.in_transaction = false;
        match answer {
            Ok(pid) => {
                producer.producer = Some(pid);
                producer.fenced = false;
                emit_txn!(
                    self,
                    Event::TxnInitialized {
                        tick: now,
                        consumer: id,
                        transactional_id,
                        producer_id: pid.producer_id.0,
                        epoch: pid.epoch,
                    }
                );
            }
            Err(error) => {
                producer.producer = None;
                emit_txn!(self, Event::TxnInitRefused { tick: now, consumer: id, error: error_name(error) });
            }
        }
        self.route_txn_outputs();
    }

    /// The application's send of `fetched`'s result to payouts, inside the
    /// member's transaction (begun by the batch's first send). A fenced
    /// producer ends the member's process.
    pub(super) fn eos_write(&mut self, c: usize, fetched: &Fetched) {
        let id = self.consumers[c].id();
        let now = self.now;
        let Some(i) = self.producer_index(id) else { unreachable!("a started member has its producer") };
        let partitions = self.eos.as_ref().expect("transactional").payouts.partition_count();
        let partition = if fetched.keyed {
            partition_for_key(subject_key(fetched.subject).as_bytes(), partitions)
        } else {
            fetched.partition
        };
        let eos = self.eos.as_mut().expect("transactional");
        let producer = &mut eos.producers[i];
        if producer.fenced {
            return self.end_fenced_producer(c, "PRODUCER_FENCED");
        }
        let Some(pid) = producer.producer else {
            // initTransactions() failed: the application cannot write and stops.
            return self.end_uninitialised(c);
        };
        producer.in_transaction = true;
        let transactional_id = producer.transactional_id.clone();
        let written = if eos.payouts.in_transaction(partition, pid) {
            Ok(())
        } else {
            // Transaction version 2: the leader adds the partition for the producer.
            eos.coordinator
                .handle_add_partitions(&transactional_id, pid, &[partition], now)
                .map_err(TxnError::on_produce)
        }
        .and_then(|()| {
            eos.payouts.handle_write(partition, pid, fetched.id).map_err(|e| match e {
                TxnWriteError::InvalidProducerEpoch { .. } => TxnError::InvalidProducerEpoch,
                TxnWriteError::InvalidTxnState => TxnError::InvalidTxnState,
                TxnWriteError::TooManyProducers => TxnError::LimitExceeded,
            })
        });
        match written {
            Ok(offset) => emit_txn!(
                self,
                Event::PayoutWritten { tick: now, consumer: id, partition, offset, record_id: fetched.id }
            ),
            Err(error) if fenced(error) => self.end_fenced_producer(c, error_name(error)),
            // Markers take no time here, so nothing is retriable: the
            // application aborts and processes the batch again.
            Err(_) => self.eos_abort(c, "the write failed"),
        }
    }

    /// The end of a batch: `sendOffsetsToTransaction` with the positions and
    /// the group's metadata, then `commitTransaction()`.
    pub(super) fn eos_commit(&mut self, c: usize) {
        let id = self.consumers[c].id();
        let g = self.consumers[c].group();
        let now = self.now;
        let Some(i) = self.producer_index(id) else { unreachable!("a started member has its producer") };
        let offsets = self.consumers[c].poll_commit();
        // The group's generation moves only when a rebalance completes, and the
        // member learns the new one then: it is stale only once the coordinator
        // no longer knows it. Kafka does not refuse a transactional commit
        // during a rebalance (`ClassicGroup.validateOffsetCommit`).
        let current = self.consumers[c].member_id().is_some_and(|m| self.coordinators[g].member(m).is_some());
        let group_generation = self.coordinators[g].epoch();
        let generations = Generations {
            member: if current { group_generation } else { group_generation.wrapping_sub(1) },
            group: group_generation,
        };
        let eos = self.eos.as_mut().expect("transactional");
        let producer = &eos.producers[i];
        if producer.fenced {
            return self.end_fenced_producer(c, "PRODUCER_FENCED");
        }
        let Some(pid) = producer.producer else { return self.end_uninitialised(c) };
        let transactional_id = producer.transactional_id.clone();
        let committed = eos
            .coordinator
            .handle_txn_offset_commit(&transactional_id, pid, g as u32, generations, &offsets, now)
            .and_then(|()| eos.coordinator.handle_end_txn(&transactional_id, pid, TxnResult::Commit, now));
        match committed {
            Ok(next) => {
                let producer = &mut eos.producers[i];
                producer.producer = Some(next);
                producer.in_transaction = false;
                eos.counters.committed_transactions += 1;
                self.consumers[c].handle_committed();
                self.observers[g].handle_commit_request();
                self.route_txn_outputs();
                emit_txn!(self, Event::TxnCommitted { tick: now, consumer: id, epoch: next.epoch, offsets });
            }
            Err(error) if fenced(error) => self.end_fenced_producer(c, error_name(error)),
            Err(_) => {
                self.emit(Event::CommitRefused { tick: now, consumer: id, offsets });
                self.eos_abort(c, "the offset commit was refused");
            }
        }
    }

    /// `abortTransaction()`, then the member seeks back to its group's
    /// committed offsets so that the batch is processed again.
    fn eos_abort(&mut self, c: usize, reason: &'static str) {
        let id = self.consumers[c].id();
        let now = self.now;
        let i = self.producer_index(id).expect("a started member has its producer");
        let eos = self.eos.as_mut().expect("transactional");
        let producer = &eos.producers[i];
        let transactional_id = producer.transactional_id.clone();
        if let Some(pid) = producer.producer
            && let Ok(next) = eos.coordinator.handle_end_txn(&transactional_id, pid, TxnResult::Abort, now)
        {
            let producer = &mut eos.producers[i];
            producer.producer = Some(next);
            producer.in_transaction = false;
            eos.counters.aborted_transactions += 1;
            self.route_txn_outputs();
            emit_txn!(self, Event::TxnAborted { tick: now, transactional_id, reason });
        }
        self.abandon_batch(c);
        self.consumers[c].handle_batch_dropped();
        for p in self.consumers[c].assigned().to_vec() {
            let committed = self.start_position(c, p);
            if let Some(at) = self.consumers[c].position(p)
                && at != committed
            {
                self.reset_position(c, p, at, committed);
            }
        }
    }

    /// The application's `initTransactions()` failed (its `TxnInitRefused`
    /// event said why): at its first write it stops, as its process would
    /// on the exception, without committing.
    fn end_uninitialised(&mut self, c: usize) {
        self.end_application(c);
    }

    /// The producer is fenced: the write or commit is refused, and the
    /// application closes its producer and consumer (its process ends
    /// without committing; a member its group still knows is removed when
    /// its session runs out).
    fn end_fenced_producer(&mut self, c: usize, error: &'static str) {
        let id = self.consumers[c].id();
        let now = self.now;
        let eos = self.eos.as_mut().expect("transactional");
        eos.counters.fenced_writes += 1;
        let i =
            eos.producers.iter().position(|p| p.consumer == id).expect("a started member has its producer");
        eos.producers[i].fenced = true;
        eos.producers[i].in_transaction = false;
        let transactional_id = eos.producers[i].transactional_id.clone();
        emit_txn!(self, Event::WriteFenced { tick: now, consumer: id, transactional_id, error });
        self.end_application(c);
    }

    /// The application closes on an exception: its batch is dropped, nothing
    /// committed, and a member its group still knows is removed when its
    /// session runs out.
    fn end_application(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let now = self.now;
        self.abandon_batch(c);
        self.consumers[c].handle_batch_dropped();
        let known = self.consumers[c].member_id().is_some_and(|m| self.coordinators[g].member(m).is_some());
        let member_id = self.consumers[c].handle_crash(now);
        if known {
            let expires_at = now + self.groups[g].config.session_timeout_ticks;
            self.coordinators[g].handle_member_died(&member_id, expires_at);
        }
    }

    /// Routes what the transaction coordinator asked for: markers to payouts
    /// (or to the group's offsets), committed offsets to the group, timeouts.
    pub(super) fn route_txn_outputs(&mut self) {
        let now = self.now;
        loop {
            let eos = self.eos.as_mut().expect("transactional");
            let Some(output) = eos.coordinator.poll_output() else { break };
            match output {
                TxnOutput::WriteMarker { target, marker, result } => {
                    if let TxnTarget::Partition(partition) = target {
                        let (offset, aborted_read) = eos
                            .payouts
                            .handle_marker(partition, marker, result)
                            .expect("the coordinator's marker carries the newest epoch");
                        eos.counters.aborted_seen += aborted_read;
                        let commit = result == TxnResult::Commit;
                        eos.coordinator.handle_marker_written(marker.producer_id, target);
                        emit_txn!(self, Event::MarkerWritten { tick: now, partition, offset, commit });
                    } else {
                        eos.coordinator.handle_marker_written(marker.producer_id, target);
                    }
                }
                TxnOutput::CommitOffsets { group, offsets } => {
                    for &(p, offset) in &offsets {
                        self.set_committed(group as usize, p, offset);
                    }
                }
                TxnOutput::TimedOut { transactional_id, .. } => {
                    eos.counters.aborted_transactions += 1;
                    emit_txn!(self, Event::TxnAborted { tick: now, transactional_id, reason: "timed out" });
                }
            }
        }
    }

    /// Once a tick, after the groups' sessions: the coordinator's transaction timeouts.
    pub(super) fn eos_tick(&mut self) {
        let now = self.now;
        self.eos.as_mut().expect("transactional").coordinator.handle_tick(now);
        self.route_txn_outputs();
    }

    /// Once a tick, after the consumers: the downstream consumer reads
    /// payouts, partition by partition, up to its records per tick.
    pub(super) fn eos_downstream(&mut self) {
        let eos = self.eos.as_mut().expect("transactional");
        let mut budget = eos.downstream.per_tick;
        for p in 0..eos.payouts.partition_count() {
            if budget == 0 {
                break;
            }
            let from = eos.downstream.position(p);
            let isolation = eos.downstream.isolation;
            let (reads, next) = eos.payouts.fetch(p, from, budget, isolation);
            budget -= (next - from.min(next)).min(u64::from(budget)) as u32;
            eos.counters.aborted_seen += reads.iter().filter(|r| r.aborted).count() as u64;
            eos.downstream.handle_reads(&reads);
            if next > from {
                eos.downstream.set_position(p, next);
            }
        }
    }

    /// The invariants no input can break: the coordinator's own, every
    /// payouts partition's last stable offset within its log, the downstream
    /// reader within the log and below what its isolation level allows, and
    /// the members' producers of the transactional group only.
    pub(super) fn check_eos(&self) {
        let eos = self.eos.as_ref().expect("transactional");
        eos.coordinator.check();
        for p in 0..eos.payouts.partition_count() {
            let (lso, end) = (eos.payouts.last_stable_offset(p), eos.payouts.log_end(p));
            assert!(lso <= end, "payouts-{p}: the LSO {lso} is within the log ({end})");
            let bound = match eos.downstream.isolation {
                crate::config::IsolationLevel::ReadCommitted => lso,
                crate::config::IsolationLevel::ReadUncommitted => end,
            };
            let at = eos.downstream.position(p);
            // A retention cut may move the log start past it, never the end.
            assert!(at <= bound, "payouts-{p}: the downstream read {at} past what it may ({bound})");
        }
        for producer in &eos.producers {
            assert!(
                self.consumers.iter().all(|c| c.id() != producer.consumer || c.group() == eos.group),
                "only the transactional group's members have transactional producers"
            );
        }
        assert!(eos.downstream.duplicates <= eos.downstream.delivered);
    }

    /// The downstream and the coordinator's view for `offsetlab run`.
    #[must_use]
    pub fn transactions_view(&self) -> Option<crate::view::TransactionsView> {
        let eos = self.eos.as_ref()?;
        Some(crate::view::TransactionsView {
            group: self.groups[eos.group].config.name.clone(),
            isolation_level: eos.downstream.isolation,
            payouts: eos.payouts.partitions(),
            producers: eos.producers.iter().filter_map(|p| self.txn_producer_view(p.consumer)).collect(),
            downstream_delivered: eos.downstream.delivered,
            downstream_duplicates: eos.downstream.duplicates,
            aborted_seen: eos.counters.aborted_seen,
            fenced_writes: eos.counters.fenced_writes,
            committed_transactions: eos.counters.committed_transactions,
            aborted_transactions: eos.counters.aborted_transactions,
        })
    }

    /// Consumer `id`'s transactional producer, if it has one.
    pub(super) fn txn_producer_view(&self, id: ConsumerId) -> Option<crate::view::TxnProducerView> {
        let eos = self.eos.as_ref()?;
        let p = eos.producers.iter().find(|p| p.consumer == id)?;
        // An id the coordinator has not seen yet (initTransactions not sent) is `Empty` to it.
        let coordinator_state =
            eos.coordinator.describe(&p.transactional_id).map_or("Empty", |(state, _, _)| state.name());
        let c = self.consumers.iter().find(|x| x.id() == id);
        Some(crate::view::TxnProducerView {
            consumer: p.consumer,
            transactional_id: p.transactional_id.clone(),
            producer_id: p.producer.map(|pid| pid.producer_id.0),
            epoch: p.producer.map(|pid| pid.epoch),
            in_transaction: p.in_transaction,
            fenced: p.fenced,
            running: c.is_some_and(|c| c.alive() && c.state() != ConsumerState::Stopped),
            coordinator_state,
        })
    }

    /// Up to `count` offsets of payouts' `partition` from `from` (empty
    /// without transactions).
    #[must_use]
    pub fn payout_records(
        &self,
        partition: u32,
        from: u64,
        count: u32,
    ) -> Vec<crate::broker::payouts::PayoutRecordView> {
        self.eos.as_ref().map_or_else(Vec::new, |eos| eos.payouts.records(partition, from, count))
    }
}
