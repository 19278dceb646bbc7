//! The producer's delivery path, in ticks: Kafka 4.4.0's `RecordAccumulator`
//! (per-partition batches, linger, retry queues), its `Sender` (ready batches
//! become produce requests, responses complete or retry them, batches past
//! `delivery.timeout.ms` fail) and the idempotent part of its
//! `TransactionManager` (producer id and epoch, per-partition sequence
//! numbers, retries kept in sequence order, epoch bumps). Named after the
//! accumulator because the batches live in it from `send()` to their outcome.
//!
//! - A record ([`Send`], from `Producer::poll_send`) joins the last batch of
//!   its partition while that batch has room and has not been sent, else a new
//!   batch. A batch holds up to `batch_records` records: `batch.size` counted
//!   in records, not bytes, as the model's sticky partitioner counts it.
//! - A partition's first batch is ready when it is full, when another batch
//!   waits behind it, when it was sent before (a retry), or when `linger_ticks`
//!   have passed since its first record (`RecordAccumulator.ready`); a retry
//!   waits out its backoff first.
//! - A ready batch goes to its partition's leader as a produce request, while
//!   that broker's connection has fewer than `max_in_flight` unanswered
//!   requests (`NetworkClient.canSendMore`).
//! - Success completes the batch with its base offset. An error is retried
//!   (the batch goes back to the front of its partition's queue) while it is
//!   retriable, the batch is younger than the delivery timeout and it has
//!   retries left; otherwise the batch fails. A request with no answer after
//!   `request_timeout_ticks` closes the connection: every request on it fails
//!   with a timeout, oldest first (`NetworkClient.handleTimedOutRequests`).
//! - A batch whose delivery timeout has passed fails (a `TimeoutException`),
//!   queued or in flight (`Sender.getExpiredInflightBatches`,
//!   `RecordAccumulator.expiredBatches`). One in flight may still be written:
//!   the application was told it failed, and it is in the log.
//!
//! Without idempotence a retried batch goes back to the front of the queue
//! (`deque.addFirst`), so with more than one request in flight it lands after
//! batches sent after it: records reorder before any consumer sees them; and
//! a retry after a lost acknowledgement writes the batch again. The queue's
//! expiry stops at its first batch not yet expired, so an old batch behind
//! younger retries fails only once they have left (up to their own timeout).
//!
//! With idempotence the caller gives the producer id (Kafka's
//! `InitProducerId`, answered by a broker from the id blocks the controller
//! hands out; here the `Sim` assigns it); the epoch starts at 0 and the client
//! bumps it itself (KIP-360). A batch gets its base sequence when it is first
//! drained and keeps it across retries. Retries are put back in sequence
//! order (`insertInSequenceOrder`), and a retried batch is sent only when it
//! is the lowest sequence still unfinished for its partition
//! (`shouldStopDrainBatchesForPartition`): while retrying, a partition has
//! one request in flight. An out-of-order answer is retried, and when it
//! shows a real gap, or when batches that may have been written expired
//! (`markSequenceUnresolved`, `maybeResolveSequences`), the epoch is bumped
//! and the partition's unfinished batches are renumbered from 0
//! (`startSequencesAtBeginning`).
//!
//! Idempotence keeps every acknowledged record once and in order, with one
//! exception Kafka 4.x has too: a leader that does not know the producer
//! takes any sequence (KIP-360), so when a producer's first batch to a
//! partition is refused and later ones are written, the first's retry is out
//! of order at the next expected sequence; the client bumps the epoch and
//! renumbers its unfinished batches, and one that was written but not
//! acknowledged is written again.
//!
//! Kafka 4.4.0's defaults, which [`DeliveryConfig::default`] takes as ticks
//! (1 tick = 1 ms): `acks=all`, `enable.idempotence=true`,
//! `max.in.flight.requests.per.connection=5`, `retries=2147483647`,
//! `delivery.timeout.ms=120000`, `request.timeout.ms=30000`, `linger.ms=5`
//! (0 before 4.0, KIP-1030), `retry.backoff.ms=100`,
//! `retry.backoff.max.ms=1000`. Scenarios pick their own tick values.
//!
//! Simplified (for the page's fine print):
//! - One batch per produce request; Kafka's `Sender` puts one batch per
//!   partition the broker leads in one request, so `max_in_flight` bounds
//!   requests there and batches here (the same with one partition per broker).
//! - The retry backoff doubles from `retry_backoff_ticks` up to
//!   `retry_backoff_max_ticks` as Kafka's does, without its ±20% jitter.
//! - `send()` on a full buffer (`buffer_records`, Kafka's `buffer.memory` in
//!   records) is refused at once; Kafka blocks it for up to `max.block.ms`.
//! - Partitions are drained in turn, one batch per call; a partition that
//!   must wait for its sequence is skipped (Kafka stops draining that broker
//!   for the round).
//! - Time is whole ticks, and a tick's delivery timeouts are settled before
//!   its answers: Kafka's `Sender` can take an answer for a batch that passed
//!   its delivery timeout since the loop's expiry check, fail it with that
//!   error and bump the epoch; here such a batch has already expired.
//! - The epoch is a `u32`: Kafka's is a `short`, and at 32767 the idempotent
//!   producer asks for a new producer id instead of bumping it.
//! - No transactions, no `UNKNOWN_PRODUCER_ID` (4.x brokers accept an unknown
//!   producer at any sequence), no `MESSAGE_TOO_LARGE` splits.

#![cfg_attr(not(test), allow(dead_code))]

use crate::broker::producer_state::{IdempotentBatch, ProducerId, increment_sequence};
use crate::client::producer::Send;
use crate::config::{ConfigError, DeliveryConfig};
use crate::delivery::{Acks, ProduceError};
use crate::limits;
use litemap::LiteMap;
use std::collections::VecDeque;

impl DeliveryConfig {
    /// Kafka's `ExponentialBackoff` for the `retry`-th retry (0 for the
    /// first), without jitter.
    fn backoff_ticks(&self, retry: u32) -> u64 {
        let max = self.retry_backoff_max_ticks;
        let initial = self.retry_backoff_ticks.min(max);
        if max <= initial {
            return initial;
        }
        let factor = 1u64.checked_shl(retry.min(63)).unwrap_or(u64::MAX);
        initial.saturating_mul(factor).min(max)
    }
}

/// A batch, named for its whole life (retries keep it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct BatchId(pub u64);

/// A produce request, named so that its response can find it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RequestId(pub u64);

/// A produce request for one batch, to the partition's leader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProduceRequest {
    pub request: RequestId,
    pub broker: u32,
    pub partition: u32,
    pub batch: BatchId,
    pub acks: Acks,
    /// The producer id, epoch and base sequence, with idempotence.
    pub idempotent: Option<IdempotentBatch>,
    /// The records' ids, in send order.
    pub records: Vec<u64>,
    /// Retries before this one (0 for the first send).
    pub attempt: u32,
}

/// The leader's answer to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProduceResponse {
    pub broker: u32,
    pub request: RequestId,
    /// The base offset the batch was written at (or found at, for a duplicate).
    pub result: Result<u64, ProduceError>,
}

/// Why a batch failed, as the application's callback sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeliveryError {
    /// Its delivery timeout passed, queued or in flight (`TimeoutException`).
    Timeout,
    /// The last error, not retried (not retriable, out of retries, or the
    /// delivery timeout had passed when it came).
    Refused(ProduceError),
}

/// A batch's end, for the application: what `send()`'s callback is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Record `i` is at `base_offset + i`; `None` with `acks=0`.
    Acknowledged {
        partition: u32,
        batch: BatchId,
        records: Vec<u64>,
        base_offset: Option<u64>,
    },
    Failed {
        partition: u32,
        batch: BatchId,
        records: Vec<u64>,
        error: DeliveryError,
    },
}

/// Why `send()` refused a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SendRefused {
    /// `buffer_records` records are unacknowledged.
    BufferFull,
}

/// A fault on the produce path, which the `Sim` routes. A connection is
/// ordered (TCP, and the broker answers its requests in turn), so what is
/// lost stalls the connection from there on: requests and answers after it
/// on the same connection are lost too, until the client's request timeout
/// closes the connection and it retries every batch that was on it
/// (`NetworkClient.handleTimedOutRequests`, oldest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProduceFault {
    /// The next produce request to partition P is lost before the broker:
    /// nothing from it on is written on that connection. Without idempotence
    /// the batches are retried newest first (each goes back to the front of
    /// its queue), so they land in reverse order; with it they go in
    /// sequence order, one at a time.
    LoseNextRequest { partition: u32 },
    /// The next acknowledgement from partition P's leader is lost: the batch
    /// was written (and, with acks=all, replicated), and the requests after
    /// it on the connection are written too, their answers lost. Without
    /// idempotence every retry writes its batch a second time; with it the
    /// leader recognises each sequence among the producer's last five batches
    /// and answers with the first write's offset.
    LoseNextAck { partition: u32 },
}

/// Unacknowledged outcomes the caller may leave unpolled: one tick completes
/// at most every buffered batch.
const OUTCOMES_MAX: usize = limits::PRODUCER_BUFFER_RECORDS_MAX as usize;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Batch {
    id: BatchId,
    partition: u32,
    records: Vec<u64>,
    created_tick: u64,
    /// When it was created, then when it was last put back for a retry
    /// (linger and backoff count from here: `ProducerBatch.lastAttemptMs`).
    last_attempt_tick: u64,
    /// Retries so far.
    attempts: u32,
    /// Sent at least once: closed to new records.
    drained: bool,
    /// Put back for a retry at least once (`ProducerBatch.inRetry`).
    in_retry: bool,
    /// `(epoch, base sequence)`, given when first drained (idempotence).
    sequence: Option<(u32, i32)>,
    /// Renumbered by an epoch bump since it was last sent
    /// (`sequenceHasBeenReset`).
    sequence_reset: bool,
    /// The broker it was last sent to: a retry to a new leader skips the
    /// backoff (`hasLeaderChangedForTheOngoingRetry`).
    last_leader: Option<u32>,
}

impl Batch {
    fn last_sequence(&self) -> Option<i32> {
        let (_, base) = self.sequence?;
        Some(increment_sequence(base, self.records.len() as u32 - 1))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct InFlight {
    request: RequestId,
    sent_tick: u64,
    batch: Batch,
    /// The batch already failed (delivery timeout); the request still holds
    /// its place on the connection until answered or timed out.
    expired: bool,
}

/// One partition's queue and (with idempotence) its `TxnPartitionEntry`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct PartitionState {
    leader: Option<u32>,
    /// Kafka's deque: retries at the front, then batches never sent.
    queue: VecDeque<Batch>,
    /// The epoch the partition's sequences belong to.
    epoch: u32,
    next_sequence: i32,
    last_acked_sequence: Option<i32>,
    /// Batches drained and not finished, by (epoch, base sequence):
    /// `inflightBatchesBySequence`, retries waiting in the queue included.
    unfinished: LiteMap<(u32, i32), BatchId>,
    /// Batches that may have been written expired: no new batch is drained
    /// until the sequence is settled (`partitionsWithUnresolvedSequences`).
    unresolved: Option<i32>,
    /// Renumber from 0 at the next epoch bump (`partitionsToRewriteSequences`).
    rewrite: bool,
}

/// The producer's delivery path; see the module documentation.
///
/// # Calling contract
/// Each tick, in this order: [`handle_tick`](Self::handle_tick) (delivery
/// timeouts, request timeouts); answers that arrived go to
/// [`handle_response`](Self::handle_response), a broker that went away
/// (crash, closed connection) to [`handle_disconnect`](Self::handle_disconnect);
/// the tick's records to [`handle_send`](Self::handle_send); then
/// [`poll_request`](Self::poll_request) until `None`, each request to its
/// broker; last, [`poll_outcome`](Self::poll_outcome) until `None`. Leaders
/// change through [`handle_leader`](Self::handle_leader). Time is the tick
/// passed in and never goes back. A connection's answers come in the order
/// of its requests (the broker answers one connection's requests in turn and
/// `NetworkClient` takes each answer for its oldest request): a lost request
/// or answer stalls the connection until the client times it out. An answer
/// for a request the client gave up on (timed out, disconnected) is ignored,
/// as Kafka never reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Accumulator {
    config: DeliveryConfig,
    idempotent: bool,
    delivery_timeout_ticks: u64,
    producer_id: ProducerId,
    epoch: u32,
    epoch_bump_required: bool,
    partitions: Vec<PartitionState>,
    /// Per broker, the requests on its connection, oldest first.
    connections: Vec<VecDeque<InFlight>>,
    /// The partition the next drain starts at: each gets its turn.
    drain_cursor: usize,
    next_batch: u64,
    next_request: u64,
    /// Records in batches not yet acknowledged or failed.
    buffered_records: u64,
    outcomes: VecDeque<Outcome>,
}

impl Accumulator {
    /// A producer with `producer_id` (used with idempotence), talking to
    /// `brokers` brokers, with `leaders[p]` the leader of partition `p`.
    pub(crate) fn new(
        config: DeliveryConfig,
        producer_id: ProducerId,
        brokers: u32,
        leaders: &[Option<u32>],
    ) -> Result<Self, ConfigError> {
        let resolved = config.validate()?;
        assert!((1..=limits::PRODUCER_CONNECTIONS_MAX).contains(&brokers), "1 to 64 brokers");
        assert!((1..=limits::PARTITIONS_MAX as usize).contains(&leaders.len()), "1 to 256 partitions");
        assert!(leaders.iter().flatten().all(|&b| b < brokers), "leaders are brokers");
        Ok(Self {
            config,
            idempotent: resolved.idempotent,
            delivery_timeout_ticks: resolved.delivery_timeout_ticks,
            producer_id,
            epoch: 0,
            epoch_bump_required: false,
            partitions: leaders
                .iter()
                .map(|&leader| PartitionState { leader, ..PartitionState::default() })
                .collect(),
            connections: (0..brokers).map(|_| VecDeque::new()).collect(),
            drain_cursor: 0,
            next_batch: 0,
            next_request: 0,
            buffered_records: 0,
            outcomes: VecDeque::new(),
        })
    }

    pub(crate) fn idempotent(&self) -> bool {
        self.idempotent
    }

    pub(crate) fn delivery_timeout_ticks(&self) -> u64 {
        self.delivery_timeout_ticks
    }

    /// The producer's current epoch (bumped by the client, KIP-360).
    pub(crate) fn epoch(&self) -> u32 {
        self.epoch
    }

    pub(crate) fn brokers(&self) -> u32 {
        self.connections.len() as u32
    }

    /// Unanswered requests on the connection to `broker`.
    pub(crate) fn in_flight(&self, broker: u32) -> usize {
        self.connections[broker as usize].len()
    }

    /// Records sent and not yet acknowledged or failed.
    pub(crate) fn buffered_records(&self) -> u64 {
        self.buffered_records
    }

    /// Partition `partition`'s leader is now `leader` (metadata); `None` while
    /// it has none (its batches wait). Partitions added to the topic come in
    /// here too, one past the last.
    pub(crate) fn handle_leader(&mut self, partition: u32, leader: Option<u32>) {
        assert!(leader.is_none_or(|b| (b as usize) < self.connections.len()), "the leader is a broker");
        let p = partition as usize;
        assert!(
            p <= self.partitions.len() && p < limits::PARTITIONS_MAX as usize,
            "partitions are added in order"
        );
        if p == self.partitions.len() {
            self.partitions.push(PartitionState::default());
        }
        self.partitions[p].leader = leader;
    }

    /// `send()`: the record joins its partition's open batch, or a new one.
    pub(crate) fn handle_send(&mut self, now: u64, send: Send) -> Result<BatchId, SendRefused> {
        let p = send.partition as usize;
        assert!(p < self.partitions.len(), "the record's partition exists");
        if self.buffered_records >= u64::from(self.config.buffer_records) {
            return Err(SendRefused::BufferFull);
        }
        let room = self.config.batch_records as usize;
        let queue = &mut self.partitions[p].queue;
        let id = match queue.back_mut() {
            Some(last) if !last.drained && last.records.len() < room => {
                last.records.push(send.id);
                last.id
            }
            _ => {
                let id = BatchId(self.next_batch);
                self.next_batch += 1;
                queue.push_back(Batch {
                    id,
                    partition: send.partition,
                    records: vec![send.id],
                    created_tick: now,
                    last_attempt_tick: now,
                    attempts: 0,
                    drained: false,
                    in_retry: false,
                    sequence: None,
                    sequence_reset: false,
                    last_leader: None,
                });
                id
            }
        };
        self.buffered_records += 1;
        self.check();
        Ok(id)
    }

    /// The next produce request to send, if a batch is ready and its
    /// leader's connection has room. Call until `None`.
    pub(crate) fn poll_request(&mut self, now: u64) -> Option<ProduceRequest> {
        if self.idempotent {
            // The start of each `Sender.runOnce`.
            self.maybe_resolve_sequences();
            self.bump_epoch_if_needed();
        }
        let n = self.partitions.len();
        let start = self.drain_cursor;
        let request = (0..n).map(|k| (start + k) % n).find_map(|p| {
            let request = self.drain(p, now)?;
            self.drain_cursor = (p + 1) % n;
            Some(request)
        });
        // `Sender.sendProducerData` expires batches right after each drain:
        // a batch that waited behind the one just sent expires now, not after
        // that one's answer puts it back in front.
        self.expire_batches(now);
        self.check();
        request
    }

    /// `RecordAccumulator.ready` and `drainBatchesForOneNode` for one partition.
    fn drain(&mut self, p: usize, now: u64) -> Option<ProduceRequest> {
        let part = &self.partitions[p];
        let leader = part.leader?;
        if self.connections[leader as usize].len() >= self.config.max_in_flight as usize {
            return None;
        }
        let first = part.queue.front()?;
        let waited = now.saturating_sub(first.last_attempt_tick);
        let leader_changed = first.attempts > 0 && first.last_leader.is_some_and(|l| l != leader);
        if !leader_changed && first.attempts > 0 && waited < self.config.backoff_ticks(first.attempts - 1) {
            return None;
        }
        let full = part.queue.len() > 1
            || first.drained
            || first.records.len() >= self.config.batch_records as usize;
        if !full && waited < self.config.linger_ticks {
            return None;
        }
        if self.idempotent && self.must_wait_for_sequence(p) {
            return None;
        }
        let mut batch = self.partitions[p].queue.pop_front().expect("a first batch");
        if self.idempotent && batch.sequence.is_none() {
            let part = &mut self.partitions[p];
            if part.epoch != self.epoch && part.unfinished.is_empty() {
                // `maybeUpdateProducerIdAndEpoch`: the partition starts over in the new epoch.
                part.epoch = self.epoch;
                part.next_sequence = 0;
                part.last_acked_sequence = None;
            }
            batch.sequence = Some((self.epoch, part.next_sequence));
            part.unfinished.insert((self.epoch, part.next_sequence), batch.id);
            part.next_sequence = increment_sequence(part.next_sequence, batch.records.len() as u32);
        }
        batch.drained = true;
        batch.sequence_reset = false;
        batch.last_leader = Some(leader);
        let request = ProduceRequest {
            request: RequestId(self.next_request),
            broker: leader,
            partition: batch.partition,
            batch: batch.id,
            acks: self.config.acks,
            idempotent: batch.sequence.map(|(epoch, base_sequence)| IdempotentBatch {
                producer_id: self.producer_id,
                epoch,
                base_sequence,
                record_count: batch.records.len() as u32,
            }),
            records: batch.records.clone(),
            attempt: batch.attempts,
        };
        self.next_request += 1;
        if self.config.acks == Acks::Zero {
            // No response is expected: done when sent (`Sender.handleProduceResponse`).
            self.complete(batch, Ok(None), now);
        } else {
            self.connections[leader as usize].push_back(InFlight {
                request: request.request,
                sent_tick: now,
                batch,
                expired: false,
            });
        }
        Some(request)
    }

    /// `shouldStopDrainBatchesForPartition`, for the partition's first batch.
    fn must_wait_for_sequence(&self, p: usize) -> bool {
        let part = &self.partitions[p];
        let first = part.queue.front().expect("a first batch");
        if first.sequence.is_none() {
            // New sequences wait while the epoch's old batches are out, or
            // while expired batches may or may not have been written.
            if !part.unfinished.is_empty() && part.epoch != self.epoch {
                return true;
            }
            if part.unresolved.is_some() {
                return true;
            }
        }
        // A retry goes only as the lowest unfinished sequence: one in flight.
        let lowest = part.unfinished.keys().next().map(|&(_, seq)| seq);
        match (first.sequence, lowest) {
            (Some((_, seq)), Some(lowest)) => seq != lowest,
            _ => false,
        }
    }

    /// The answer to `response.request`.
    pub(crate) fn handle_response(&mut self, now: u64, response: ProduceResponse) {
        let b = response.broker as usize;
        assert!(b < self.connections.len(), "the response comes from a broker");
        let Some(i) = self.connections[b].iter().position(|r| r.request == response.request) else {
            return; // Given up on: the connection it came on was closed.
        };
        assert_eq!(i, 0, "a connection's answers come in the order of its requests");
        let request = self.connections[b].pop_front().expect("found");
        if let Err(ProduceError::NotLeaderOrFollower { leader: Some(leader) }) = response.result {
            // KIP-951: the response names the new leader; no metadata round trip.
            self.handle_leader(request.batch.partition, Some(leader));
        }
        if request.expired {
            // Already failed; a success still moves the acknowledged sequence on.
            if response.result.is_ok() && self.idempotent {
                self.handle_completed_sequence(&request.batch);
            }
        } else {
            self.complete(request.batch, response.result.map(Some), now);
        }
        self.check();
    }

    /// The connection to `broker` broke: every request on it fails with
    /// `NETWORK_EXCEPTION`, oldest first, and is retried if it may be.
    pub(crate) fn handle_disconnect(&mut self, now: u64, broker: u32) {
        self.close_connection(now, broker as usize, ProduceError::NetworkException);
        self.check();
    }

    /// Delivery timeouts, then request timeouts, at `now`: the order of
    /// one `Sender` loop (`sendProducerData` expires batches, then
    /// `NetworkClient.poll` times requests out). A batch whose delivery
    /// timeout has passed has failed before any answer of this tick comes.
    pub(crate) fn handle_tick(&mut self, now: u64) {
        self.expire_batches(now);
        for b in 0..self.connections.len() {
            let timeout = self.config.request_timeout_ticks;
            if self.connections[b].iter().any(|r| now.saturating_sub(r.sent_tick) > timeout) {
                self.close_connection(now, b, ProduceError::RequestTimedOut);
            }
        }
        self.check();
    }

    /// The next batch outcome for the application.
    pub(crate) fn poll_outcome(&mut self) -> Option<Outcome> {
        self.outcomes.pop_front()
    }

    /// `NetworkClient.cancelInFlightRequests`, oldest first.
    fn close_connection(&mut self, now: u64, b: usize, error: ProduceError) {
        let requests = std::mem::take(&mut self.connections[b]);
        for request in requests {
            if !request.expired {
                self.complete(request.batch, Err(error), now);
            }
        }
    }

    fn reached_delivery_timeout(&self, batch: &Batch, now: u64) -> bool {
        now.saturating_sub(batch.created_tick) >= self.delivery_timeout_ticks
    }

    /// `Sender.getExpiredInflightBatches`, then `RecordAccumulator.expiredBatches`.
    fn expire_batches(&mut self, now: u64) {
        for p in 0..self.partitions.len() {
            // The partition's batches on the wire, in the order they were sent;
            // the first one not yet expired stops the scan, as in Kafka.
            let mut sent: Vec<(RequestId, usize)> = self
                .connections
                .iter()
                .enumerate()
                .flat_map(|(b, c)| {
                    c.iter()
                        .filter(|r| !r.expired && r.batch.partition as usize == p)
                        .map(move |r| (r.request, b))
                })
                .collect();
            crate::order::sort_stable_by(&mut sent, Ord::cmp);
            for (request, b) in sent {
                let r = self.connections[b].iter_mut().find(|r| r.request == request).expect("on the wire");
                if now.saturating_sub(r.batch.created_tick) < self.delivery_timeout_ticks {
                    break;
                }
                r.expired = true;
                let batch = r.batch.clone();
                self.expire(batch);
            }
            while let Some(first) = self.partitions[p].queue.front() {
                if !self.reached_delivery_timeout(first, now) {
                    break;
                }
                let batch = self.partitions[p].queue.pop_front().expect("a first batch");
                self.expire(batch);
            }
        }
    }

    fn expire(&mut self, batch: Batch) {
        let unresolved = (self.idempotent && batch.in_retry).then(|| batch.last_sequence()).flatten();
        let p = batch.partition as usize;
        self.fail(batch, DeliveryError::Timeout, false);
        if let Some(last) = unresolved {
            // It may have been written: hold new sequences until that is settled.
            let next = i64::from(last) + 1;
            let part = &mut self.partitions[p];
            let next = part.unresolved.map_or(next, |u| next.max(i64::from(u)));
            part.unresolved = Some(i32::try_from(next).unwrap_or(0));
        }
    }

    /// `Sender.completeBatch`: success, retry, or failure.
    fn complete(&mut self, mut batch: Batch, result: Result<Option<u64>, ProduceError>, now: u64) {
        match result {
            Ok(base_offset) => {
                if self.idempotent {
                    self.handle_completed_sequence(&batch);
                }
                self.buffered_records -= batch.records.len() as u64;
                self.outcomes.push_back(Outcome::Acknowledged {
                    partition: batch.partition,
                    batch: batch.id,
                    records: batch.records,
                    base_offset,
                });
            }
            Err(error) if self.can_retry(&batch, error, now) => {
                // `RecordAccumulator.reenqueue`.
                batch.attempts += 1;
                batch.last_attempt_tick = batch.last_attempt_tick.max(now);
                batch.in_retry = true;
                let queue = &mut self.partitions[batch.partition as usize].queue;
                match batch.sequence {
                    Some((_, seq)) => {
                        // `insertInSequenceOrder`: behind the retries with lower sequences.
                        let at =
                            queue.iter().take_while(|b| b.sequence.is_some_and(|(_, s)| s < seq)).count();
                        queue.insert(at, batch);
                    }
                    None => queue.push_front(batch),
                }
            }
            Err(error) => {
                let adjust = batch.attempts < self.config.retries;
                self.fail(batch, DeliveryError::Refused(error), adjust);
            }
        }
    }

    /// `Sender.canRetry` and, with idempotence, `TransactionManager.canRetry`.
    fn can_retry(&mut self, batch: &Batch, error: ProduceError, now: u64) -> bool {
        if self.reached_delivery_timeout(batch, now) || batch.attempts >= self.config.retries {
            return false;
        }
        if !self.idempotent || error != ProduceError::OutOfOrderSequence {
            return error.retriable();
        }
        let p = batch.partition as usize;
        let (_, seq) = batch.sequence.expect("an idempotent batch has a sequence");
        let part = &self.partitions[p];
        if part.unresolved.is_none() && (batch.sequence_reset || !is_next_sequence(part, seq)) {
            // Not the next batch: an earlier one failed first; retry behind it.
            return true;
        }
        if part.unresolved.is_none() || part.unresolved == Some(seq) {
            // A real gap: a new epoch renumbers the partition from 0.
            self.request_epoch_bump(p);
        }
        true
    }

    /// `Sender.failBatch` and `TransactionManager.handleFailedBatch`.
    fn fail(&mut self, batch: Batch, error: DeliveryError, adjust_sequences: bool) {
        let p = batch.partition as usize;
        if let Some(key) = batch.sequence {
            self.partitions[p].unfinished.remove(&key);
            if error == DeliveryError::Refused(ProduceError::OutOfOrderSequence) || adjust_sequences {
                // Its sequence may or may not be in the log: start over in a new epoch.
                self.request_epoch_bump(p);
            }
        }
        self.buffered_records -= batch.records.len() as u64;
        self.outcomes.push_back(Outcome::Failed {
            partition: batch.partition,
            batch: batch.id,
            records: batch.records,
            error,
        });
    }

    /// `TransactionManager.handleCompletedBatch`.
    fn handle_completed_sequence(&mut self, batch: &Batch) {
        let (Some(key), Some(last)) = (batch.sequence, batch.last_sequence()) else { return };
        let part = &mut self.partitions[batch.partition as usize];
        part.last_acked_sequence = Some(part.last_acked_sequence.map_or(last, |acked| acked.max(last)));
        part.unfinished.remove(&key);
    }

    fn request_epoch_bump(&mut self, p: usize) {
        self.epoch_bump_required = true;
        self.partitions[p].rewrite = true;
    }

    /// `maybeResolveSequences`: once a partition with expired batches has
    /// nothing unfinished, either the sequences line up (a later batch was
    /// acknowledged past them) or the epoch is bumped.
    fn maybe_resolve_sequences(&mut self) {
        for p in 0..self.partitions.len() {
            let part = &self.partitions[p];
            if part.unresolved.is_none() || !part.unfinished.is_empty() {
                continue;
            }
            if !is_next_sequence(part, part.next_sequence) {
                self.request_epoch_bump(p);
            }
            self.partitions[p].unresolved = None;
        }
    }

    /// `bumpIdempotentProducerEpoch`: the partitions that asked for it
    /// renumber their unfinished batches from 0 in the new epoch.
    fn bump_epoch_if_needed(&mut self) {
        if !self.epoch_bump_required {
            return;
        }
        self.epoch += 1;
        self.epoch_bump_required = false;
        for p in 0..self.partitions.len() {
            if !self.partitions[p].rewrite {
                continue;
            }
            // `startSequencesAtBeginning`.
            let ids: Vec<BatchId> = self.partitions[p].unfinished.values().copied().collect();
            let mut unfinished = LiteMap::new();
            let mut seq = 0;
            for id in ids {
                let epoch = self.epoch;
                let batch = self.unfinished_batch_mut(p, id);
                batch.sequence = Some((epoch, seq));
                batch.sequence_reset = true;
                unfinished.insert((epoch, seq), id);
                seq = increment_sequence(seq, batch.records.len() as u32);
            }
            let part = &mut self.partitions[p];
            part.unfinished = unfinished;
            part.epoch = self.epoch;
            part.next_sequence = seq;
            part.last_acked_sequence = None;
            part.unresolved = None;
            part.rewrite = false;
        }
    }

    /// An unfinished batch: queued for a retry, or on the wire.
    fn unfinished_batch_mut(&mut self, p: usize, id: BatchId) -> &mut Batch {
        if let Some(i) = self.partitions[p].queue.iter().position(|b| b.id == id) {
            return &mut self.partitions[p].queue[i];
        }
        self.connections
            .iter_mut()
            .flat_map(|c| c.iter_mut())
            .find(|r| !r.expired && r.batch.id == id)
            .map(|r| &mut r.batch)
            .expect("an unfinished batch is queued or on the wire")
    }

    /// The invariants, after every call.
    fn check(&self) {
        if !cfg!(debug_assertions) {
            return; // the whole-state sweep: debug builds and tests (ARCHITECTURE.md)
        }
        let mut buffered = 0u64;
        for connection in &self.connections {
            assert!(connection.len() <= self.config.max_in_flight as usize, "in flight ≤ max_in_flight");
            buffered +=
                connection.iter().filter(|r| !r.expired).map(|r| r.batch.records.len() as u64).sum::<u64>();
        }
        for (p, part) in self.partitions.iter().enumerate() {
            let room = self.config.batch_records as usize;
            for (i, batch) in part.queue.iter().enumerate() {
                assert!(
                    (1..=room).contains(&batch.records.len()),
                    "a batch holds 1 to batch_records records"
                );
                assert_eq!(batch.partition as usize, p, "a batch is queued at its partition");
                assert!(
                    batch.drained || i + 1 == part.queue.len() || batch.records.len() == room,
                    "only the last batch takes more records"
                );
                buffered += batch.records.len() as u64;
            }
            assert!(
                part.queue.iter().skip_while(|b| b.sequence.is_some()).all(|b| b.sequence.is_none()),
                "retries with sequences come before new batches"
            );
            if self.idempotent {
                let live = part.queue.iter().filter(|b| b.sequence.is_some()).count()
                    + self
                        .connections
                        .iter()
                        .flatten()
                        .filter(|r| !r.expired && r.batch.partition as usize == p)
                        .count();
                assert_eq!(live, part.unfinished.len(), "every drained, unfinished batch is tracked");
            }
        }
        assert_eq!(buffered, self.buffered_records, "the buffer counts every unfinished record");
        assert!(self.buffered_records <= u64::from(self.config.buffer_records), "the buffer is bounded");
        assert!(self.outcomes.len() <= OUTCOMES_MAX, "poll_outcome is drained every tick");
    }
}

/// `isNextSequence`: `seq` follows the last acknowledged sequence.
fn is_next_sequence(part: &PartitionState, seq: i32) -> bool {
    i64::from(seq) - i64::from(part.last_acked_sequence.unwrap_or(-1)) == 1
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::broker::producer_state::{Check, ProducerStates, SequenceError};
    use crate::config::delivery::Resolved;

    const PID: ProducerId = ProducerId(1);

    /// Small timeouts: linger 2, request timeout 10, delivery timeout 60,
    /// backoff 3 doubling to 12, batches of 2 records.
    fn config(idempotence: bool) -> DeliveryConfig {
        DeliveryConfig {
            enable_idempotence: Some(idempotence),
            batch_records: 2,
            linger_ticks: 2,
            request_timeout_ticks: 10,
            delivery_timeout_ticks: Some(60),
            retry_backoff_ticks: 3,
            retry_backoff_max_ticks: 12,
            ..DeliveryConfig::default()
        }
    }

    fn send(id: u64, partition: u32) -> Send {
        Send { id, partition, subject: 0, keyed: false }
    }

    /// A tiny cluster: one log of record ids per partition, the leader's
    /// producer state for idempotent batches, answers a tick after the
    /// request, and the faults.
    #[derive(Debug, Default)]
    struct Cluster {
        logs: Vec<Vec<u64>>,
        states: Vec<ProducerStates>,
        /// Answers on the way: (due tick, answer).
        answers: VecDeque<(u64, ProduceResponse)>,
        faults: Vec<ProduceFault>,
        /// Partitions whose ISR is too small: acks=all is refused.
        not_enough_replicas: Vec<u32>,
        /// Brokers that are down: requests vanish.
        down: Vec<u32>,
        /// Connections that break this tick (answers on them are lost).
        disconnects: Vec<u32>,
        /// Per broker, a connection that lost a request (`Some(false)`: every
        /// request from there on is lost) or an answer (`Some(true)`: requests
        /// are written, answers lost), until the client closes it.
        stalled: Vec<Option<bool>>,
        /// Partitions whose next request is refused with NOT_ENOUGH_REPLICAS.
        refuse_next: Vec<u32>,
        out_of_order: u32,
        /// Batches the leader took from a producer it had no state for, at a
        /// sequence other than 0 (KIP-360): past a gap it cannot see.
        unknown_producer_gaps: u32,
        outcomes: Vec<Outcome>,
        /// The tick each outcome came at.
        outcome_ticks: Vec<u64>,
        /// (tick, request) as sent.
        requests: Vec<(u64, ProduceRequest)>,
    }

    impl Cluster {
        fn new(partitions: usize) -> Self {
            Cluster {
                logs: vec![Vec::new(); partitions],
                states: vec![ProducerStates::new(); partitions],
                ..Cluster::default()
            }
        }

        fn take_fault(&mut self, fault: ProduceFault) -> bool {
            let found = self.faults.iter().position(|&f| f == fault);
            found.map(|i| self.faults.remove(i)).is_some()
        }

        fn handle_request(&mut self, now: u64, req: &ProduceRequest) {
            let (p, b) = (req.partition, req.broker as usize);
            if self.take_fault(ProduceFault::LoseNextRequest { partition: p })
                || self.down.contains(&req.broker)
            {
                self.stalled[b] = Some(false);
            }
            if self.stalled[b] == Some(false) {
                return;
            }
            let refused = self.refuse_next.iter().position(|&q| q == p).map(|i| self.refuse_next.remove(i));
            let result =
                if req.acks == Acks::All && (refused.is_some() || self.not_enough_replicas.contains(&p)) {
                    Err(ProduceError::NotEnoughReplicas)
                } else {
                    self.append(req)
                };
            if self.take_fault(ProduceFault::LoseNextAck { partition: p }) {
                self.stalled[b] = Some(true);
            }
            if req.acks != Acks::Zero && self.stalled[b].is_none() {
                self.answers.push_back((
                    now + 1,
                    ProduceResponse { broker: req.broker, request: req.request, result },
                ));
            }
        }

        fn append(&mut self, req: &ProduceRequest) -> Result<u64, ProduceError> {
            let p = req.partition as usize;
            let log_end = self.logs[p].len() as u64;
            if let Some(batch) = &req.idempotent {
                let known = self.states[p].last_sequence(batch.producer_id).is_some();
                match self.states[p].check(batch) {
                    Ok(Check::Duplicate { base_offset }) => return Ok(base_offset),
                    Ok(Check::Append) => {
                        self.unknown_producer_gaps += u32::from(!known && batch.base_sequence != 0);
                        self.states[p].append(batch, log_end);
                    }
                    Err(SequenceError::OutOfOrderSequence { .. }) => {
                        self.out_of_order += 1;
                        return Err(ProduceError::OutOfOrderSequence);
                    }
                    Err(SequenceError::InvalidProducerEpoch { .. }) => {
                        return Err(ProduceError::InvalidProducerEpoch);
                    }
                }
            }
            self.logs[p].extend(&req.records);
            Ok(log_end)
        }

        /// One tick in the accumulator's calling order; `sends` are this tick's records.
        fn tick(&mut self, acc: &mut Accumulator, now: u64, sends: &[Send]) {
            acc.handle_tick(now);
            self.stalled.resize(acc.brokers() as usize, None);
            for (b, stalled) in self.stalled.iter_mut().enumerate() {
                // The client closed the connection: the next one works.
                if acc.in_flight(b as u32) == 0 {
                    *stalled = None;
                }
            }
            for b in std::mem::take(&mut self.disconnects) {
                self.answers.retain(|(_, a)| a.broker != b);
                acc.handle_disconnect(now, b);
            }
            while self.answers.front().is_some_and(|(due, _)| *due <= now) {
                let (_, answer) = self.answers.pop_front().unwrap();
                acc.handle_response(now, answer);
            }
            for &s in sends {
                acc.handle_send(now, s).expect("room in the buffer");
            }
            while let Some(req) = acc.poll_request(now) {
                self.handle_request(now, &req);
                self.requests.push((now, req));
            }
            while let Some(outcome) = acc.poll_outcome() {
                self.outcomes.push(outcome);
                self.outcome_ticks.push(now);
            }
        }

        fn run(&mut self, acc: &mut Accumulator, ticks: std::ops::Range<u64>) {
            for now in ticks {
                self.tick(acc, now, &[]);
            }
        }

        fn acknowledged(&self) -> Vec<(u64, Option<u64>)> {
            let mut out = Vec::new();
            for o in &self.outcomes {
                if let Outcome::Acknowledged { records, base_offset, .. } = o {
                    for (i, &id) in records.iter().enumerate() {
                        out.push((id, base_offset.map(|b| b + i as u64)));
                    }
                }
            }
            out
        }

        fn failed(&self) -> Vec<(u64, DeliveryError)> {
            let mut out = Vec::new();
            for o in &self.outcomes {
                if let Outcome::Failed { records, error, .. } = o {
                    out.extend(records.iter().map(|&id| (id, *error)));
                }
            }
            out
        }
    }

    fn accumulator(config: DeliveryConfig, partitions: usize) -> Accumulator {
        Accumulator::new(config, PID, 1, &vec![Some(0); partitions]).expect("a valid config")
    }

    #[test]
    fn a_lost_acknowledgement_without_idempotence_writes_the_batch_twice() {
        let mut acc = accumulator(config(false), 1);
        let mut cluster = Cluster::new(1);
        cluster.faults.push(ProduceFault::LoseNextAck { partition: 0 });
        cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 0)]);
        cluster.run(&mut acc, 1..30);
        assert_eq!(cluster.logs[0], [0, 1, 0, 1], "the retry wrote the batch again");
        // Request timeout 10: the first try at 0 timed out at 11, the retry went after the backoff.
        let sent: Vec<(u64, u32)> = cluster.requests.iter().map(|(t, r)| (*t, r.attempt)).collect();
        assert_eq!(sent, [(0, 0), (14, 1)]);
        assert_eq!(
            cluster.acknowledged(),
            [(0, Some(2)), (1, Some(3))],
            "acknowledged with the second write"
        );
    }

    #[test]
    fn a_lost_acknowledgement_with_idempotence_is_written_once_and_acknowledged_with_the_first_offset() {
        let mut acc = accumulator(config(true), 1);
        let mut cluster = Cluster::new(1);
        cluster.faults.push(ProduceFault::LoseNextAck { partition: 0 });
        cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 0)]);
        cluster.run(&mut acc, 1..30);
        assert_eq!(cluster.logs[0], [0, 1]);
        let retry = &cluster.requests[1].1;
        assert_eq!(
            retry.idempotent,
            Some(IdempotentBatch { producer_id: PID, epoch: 0, base_sequence: 0, record_count: 2 }),
            "the retry keeps its sequence"
        );
        assert_eq!(
            cluster.acknowledged(),
            [(0, Some(0)), (1, Some(1))],
            "the duplicate's answer: the first offset"
        );
    }

    /// Five one-record batches, five in flight, after one acknowledged record
    /// (so that the leader knows the producer); the first of the five is lost
    /// (`lost`) or refused with NOT_ENOUGH_REPLICAS.
    fn five_in_flight_first_fails(idempotence: bool, lost: bool) -> Cluster {
        let cfg = DeliveryConfig { batch_records: 1, ..config(idempotence) };
        let mut acc = accumulator(cfg, 1);
        let mut cluster = Cluster::new(1);
        cluster.tick(&mut acc, 0, &[send(0, 0)]);
        cluster.run(&mut acc, 1..3);
        if lost {
            cluster.faults.push(ProduceFault::LoseNextRequest { partition: 0 });
        } else {
            cluster.refuse_next.push(0);
        }
        cluster.tick(&mut acc, 3, &(1..6).map(|i| send(i, 0)).collect::<Vec<_>>());
        assert_eq!(acc.in_flight(0), 5, "five requests at once");
        cluster.run(&mut acc, 4..60);
        assert!(cluster.failed().is_empty());
        let mut acked: Vec<u64> = cluster.acknowledged().iter().map(|a| a.0).collect();
        acked.sort_unstable();
        assert_eq!(acked, [0, 1, 2, 3, 4, 5]);
        cluster
    }

    fn retried_sequences(cluster: &Cluster) -> Vec<i32> {
        let retries = cluster.requests.iter().filter(|(_, r)| r.attempt > 0);
        retries.map(|(_, r)| r.idempotent.unwrap().base_sequence).collect()
    }

    #[test]
    fn without_idempotence_a_retried_batch_lands_after_later_ones() {
        let cluster = five_in_flight_first_fails(false, false);
        assert_eq!(cluster.logs[0], [0, 2, 3, 4, 5, 1], "record 1 was retried after 2 to 5 were written");
        // A lost request stalls the connection: nothing after it is written,
        // all five time out, and each goes back to the front of the queue.
        let cluster = five_in_flight_first_fails(false, true);
        assert_eq!(cluster.logs[0], [0, 5, 4, 3, 2, 1], "retried newest first");
    }

    #[test]
    fn with_idempotence_the_same_faults_keep_the_order() {
        let cluster = five_in_flight_first_fails(true, false);
        assert_eq!(cluster.logs[0], [0, 1, 2, 3, 4, 5]);
        assert_eq!(cluster.out_of_order, 4, "2 to 5 came after 1 was refused, and were refused");
        assert_eq!(retried_sequences(&cluster), [1, 2, 3, 4, 5], "one at a time, in sequence order");
        let cluster = five_in_flight_first_fails(true, true);
        assert_eq!(cluster.logs[0], [0, 1, 2, 3, 4, 5]);
        assert_eq!(retried_sequences(&cluster), [1, 2, 3, 4, 5], "put back in sequence order");
    }

    #[test]
    fn an_unknown_producers_refused_first_batch_fails_rather_than_reorders() {
        // The leader takes sequence 1 from a producer it does not know
        // (KIP-360), so the retried sequence 0 is out of order until it expires.
        let cfg = DeliveryConfig { batch_records: 1, ..config(true) };
        let mut acc = accumulator(cfg, 1);
        let mut cluster = Cluster::new(1);
        cluster.refuse_next.push(0);
        cluster.tick(&mut acc, 0, &(0..3).map(|i| send(i, 0)).collect::<Vec<_>>());
        cluster.run(&mut acc, 1..70);
        assert_eq!(cluster.logs[0], [1, 2]);
        assert_eq!(cluster.failed(), [(0, DeliveryError::Timeout)]);
        // Later records carry on in the same epoch: 1 and 2 were acknowledged.
        cluster.tick(&mut acc, 70, &[send(3, 0)]);
        cluster.run(&mut acc, 71..80);
        assert_eq!(cluster.logs[0], [1, 2, 3]);
        assert_eq!(acc.epoch(), 0);
    }

    #[test]
    fn a_gap_the_leader_cannot_see_lets_an_idempotent_retry_write_twice() {
        // Kafka 4.x's corner: the leader takes sequence 2 from a producer it
        // does not know (KIP-360); the first batch's retry is then out of order
        // at the next expected sequence, a gap, so the client bumps the epoch
        // and renumbers both batches, and the second, whose acknowledgement
        // was lost, is written again under its new sequence.
        let mut acc = accumulator(DeliveryConfig { max_in_flight: 2, ..config(true) }, 1);
        let mut cluster = Cluster::new(1);
        cluster.refuse_next.push(0);
        cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 0), send(2, 0), send(3, 0)]);
        // The second batch is written; its answer is lost, stalling the connection.
        cluster.answers.pop_back();
        cluster.stalled[0] = Some(true);
        cluster.run(&mut acc, 1..40);
        assert_eq!(cluster.unknown_producer_gaps, 1);
        assert_eq!(acc.epoch(), 1, "bumped");
        assert_eq!(cluster.logs[0], [2, 3, 0, 1, 2, 3]);
    }

    #[test]
    fn linger_and_batch_size_decide_when_a_batch_leaves() {
        let cfg = DeliveryConfig { batch_records: 3, linger_ticks: 4, ..config(false) };
        let mut acc = accumulator(cfg, 2);
        let mut cluster = Cluster::new(2);
        // Partition 0 fills its batch at once; partition 1 has one record.
        cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 0), send(2, 0), send(3, 1)]);
        assert_eq!(cluster.requests.len(), 1, "the full batch leaves at once");
        assert_eq!(cluster.requests[0].1.records, [0, 1, 2]);
        cluster.tick(&mut acc, 1, &[send(4, 1)]);
        cluster.run(&mut acc, 2..4);
        assert_eq!(cluster.requests.len(), 1, "partition 1 lingers");
        cluster.tick(&mut acc, 4, &[]);
        assert_eq!(cluster.requests[1], (4, cluster.requests[1].1.clone()));
        assert_eq!(cluster.requests[1].1.records, [3, 4], "4 ticks after its first record");
        // A batch with another behind it does not wait either.
        cluster.tick(&mut acc, 5, &[send(5, 1), send(6, 1), send(7, 1), send(8, 1)]);
        let sent: Vec<Vec<u64>> = cluster.requests[2..].iter().map(|(_, r)| r.records.clone()).collect();
        assert_eq!(sent, [vec![5, 6, 7]], "the full one goes; the one behind lingers");
    }

    #[test]
    fn the_delivery_timeout_fails_a_batch_that_keeps_timing_out() {
        let mut acc = accumulator(config(false), 1);
        let mut cluster = Cluster::new(1);
        cluster.down.push(0);
        cluster.tick(&mut acc, 0, &[send(0, 0)]);
        cluster.run(&mut acc, 1..60);
        assert!(cluster.outcomes.is_empty());
        cluster.tick(&mut acc, 60, &[]);
        // Sent at 2 (linger), then after each 10-tick timeout and a doubling backoff.
        let sent: Vec<u64> = cluster.requests.iter().map(|(t, _)| *t).collect();
        assert_eq!(sent, [2, 16, 33, 56]);
        assert_eq!(cluster.failed(), [(0, DeliveryError::Timeout)], "60 ticks after the record");
        assert_eq!(acc.buffered_records(), 0);
        assert_eq!(acc.in_flight(0), 1, "the last request holds its place until it times out");
        cluster.run(&mut acc, 61..80);
        assert_eq!(acc.in_flight(0), 0);
    }

    #[test]
    fn not_enough_replicas_is_retried_and_then_fails_at_the_delivery_timeout() {
        for idempotence in [false, true] {
            let mut acc = accumulator(config(idempotence), 2);
            let mut cluster = Cluster::new(2);
            cluster.not_enough_replicas.push(0);
            cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 1)]);
            cluster.run(&mut acc, 1..30);
            // The ISR recovers for partition 1 only.
            assert_eq!(cluster.acknowledged(), [(1, Some(0))]);
            cluster.run(&mut acc, 30..70);
            assert!(cluster.logs[0].is_empty());
            assert!(cluster.requests.iter().filter(|(_, r)| r.partition == 0).count() > 3, "retried");
            let failed = cluster.failed();
            assert_eq!(failed.len(), 1);
            assert!(matches!(
                failed[0].1,
                DeliveryError::Timeout | DeliveryError::Refused(ProduceError::NotEnoughReplicas)
            ));
            // Refused until then: the ISR is back, the next record goes through.
            cluster.not_enough_replicas.clear();
            cluster.tick(&mut acc, 70, &[send(2, 0), send(3, 0)]);
            cluster.run(&mut acc, 71..80);
            assert_eq!(cluster.logs[0], [2, 3]);
        }
    }

    #[test]
    fn a_request_timeout_closes_the_connection_and_retries_everything_on_it() {
        let cfg = DeliveryConfig { batch_records: 1, ..config(false) };
        let mut acc = accumulator(cfg, 1);
        let mut cluster = Cluster::new(1);
        cluster.down.push(0);
        cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 0), send(2, 0)]);
        cluster.down.clear();
        cluster.run(&mut acc, 1..30);
        // All three timed out at 11; each went back to the front in turn, so
        // without idempotence they were retried newest first.
        assert_eq!(cluster.logs[0], [2, 1, 0]);
    }

    #[test]
    fn acks_zero_counts_a_batch_acknowledged_when_sent() {
        let cfg = DeliveryConfig { acks: Acks::Zero, enable_idempotence: None, ..config(false) };
        let mut acc = accumulator(cfg, 1);
        assert!(!acc.idempotent(), "acks=0 turns the default idempotence off");
        let mut cluster = Cluster::new(1);
        cluster.faults.push(ProduceFault::LoseNextRequest { partition: 0 });
        cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 0)]);
        assert_eq!(cluster.acknowledged(), [(0, None), (1, None)]);
        assert!(cluster.logs[0].is_empty(), "lost, and nobody knows");
    }

    #[test]
    fn a_disconnect_fails_the_requests_on_it_and_they_are_retried() {
        let mut acc = accumulator(config(true), 1);
        let mut cluster = Cluster::new(1);
        cluster.tick(&mut acc, 0, &[send(0, 0), send(1, 0)]);
        // The broker wrote it, then crashed before answering.
        cluster.answers.clear();
        acc.handle_disconnect(1, 0);
        cluster.run(&mut acc, 1..10);
        assert_eq!(cluster.logs[0], [0, 1], "the idempotent retry is a duplicate");
        assert_eq!(cluster.acknowledged(), [(0, Some(0)), (1, Some(1))]);
    }

    #[test]
    fn not_leader_names_the_new_leader_and_the_retry_goes_there_without_backoff() {
        let cfg = DeliveryConfig { batch_records: 1, ..config(true) };
        let mut acc = Accumulator::new(cfg, PID, 2, &[Some(0)]).unwrap();
        acc.handle_send(0, send(0, 0)).unwrap();
        let first = acc.poll_request(0).unwrap();
        assert_eq!(first.broker, 0);
        let moved = Err(ProduceError::NotLeaderOrFollower { leader: Some(1) });
        acc.handle_response(1, ProduceResponse { broker: 0, request: first.request, result: moved });
        let retry = acc.poll_request(1).expect("a new leader skips the backoff (KIP-951)");
        assert_eq!((retry.broker, retry.attempt), (1, 1));
        assert_eq!(retry.idempotent, first.idempotent, "same sequence at the new leader");
    }

    #[test]
    fn not_enough_replicas_after_append_is_retried_after_the_backoff() {
        let mut acc = accumulator(DeliveryConfig { batch_records: 1, ..config(false) }, 1);
        acc.handle_send(0, send(0, 0)).unwrap();
        let first = acc.poll_request(0).unwrap();
        let refused = Err(ProduceError::NotEnoughReplicasAfterAppend);
        acc.handle_response(1, ProduceResponse { broker: 0, request: first.request, result: refused });
        assert!(acc.poll_request(3).is_none(), "backing off for 3 ticks");
        // The leader had written it: without idempotence this is a second copy.
        let retry = acc.poll_request(4).unwrap();
        assert_eq!((retry.records.as_slice(), retry.attempt, retry.idempotent), (&[0][..], 1, None));
    }

    #[test]
    fn the_backoff_doubles_up_to_its_maximum() {
        let cfg = config(false);
        let backoffs: Vec<u64> = (0..5).map(|retry| cfg.backoff_ticks(retry)).collect();
        assert_eq!(backoffs, [3, 6, 12, 12, 12]);
        let flat = DeliveryConfig { retry_backoff_ticks: 100, retry_backoff_max_ticks: 50, ..cfg };
        assert_eq!(flat.backoff_ticks(3), 50, "the initial backoff is capped by the maximum");
    }

    #[test]
    fn configs_kafka_refuses_are_refused_naming_the_field() {
        let field = |c: DeliveryConfig| c.validate().unwrap_err().field;
        let d = DeliveryConfig::default();
        assert_eq!(d.validate(), Ok(Resolved { idempotent: true, delivery_timeout_ticks: 120_000 }));
        assert_eq!(field(DeliveryConfig { max_in_flight: 6, ..d }), "producer.delivery.max_in_flight");
        assert_eq!(
            field(DeliveryConfig { max_in_flight: 6, acks: Acks::One, ..d }),
            "producer.delivery.max_in_flight",
            "refused unless idempotence is set off, as in Kafka 4.x"
        );
        assert!(DeliveryConfig { max_in_flight: 6, enable_idempotence: Some(false), ..d }.validate().is_ok());
        assert_eq!(
            field(DeliveryConfig { enable_idempotence: Some(true), acks: Acks::One, ..d }),
            "producer.delivery.acks"
        );
        assert_eq!(
            field(DeliveryConfig { enable_idempotence: Some(true), retries: 0, ..d }),
            "producer.delivery.retries"
        );
        assert_eq!(
            DeliveryConfig { acks: Acks::One, ..d }.validate().map(|r| r.idempotent),
            Ok(false),
            "left at its default, idempotence quietly turns off"
        );
        assert_eq!(DeliveryConfig { retries: 0, ..d }.validate().map(|r| r.idempotent), Ok(false));
        assert_eq!(
            field(DeliveryConfig { delivery_timeout_ticks: Some(30_004), ..d }),
            "producer.delivery.delivery_timeout_ticks"
        );
        assert_eq!(
            DeliveryConfig { request_timeout_ticks: 200_000, ..d }
                .validate()
                .map(|r| r.delivery_timeout_ticks),
            Ok(200_005),
            "the default is raised to linger + request timeout"
        );
        assert_eq!(field(DeliveryConfig { max_in_flight: 0, ..d }), "producer.delivery.max_in_flight");
        assert_eq!(field(DeliveryConfig { batch_records: 0, ..d }), "producer.delivery.batch_records");
        assert_eq!(
            field(DeliveryConfig { request_timeout_ticks: 0, ..d }),
            "producer.delivery.request_timeout_ticks"
        );
        assert_eq!(
            DeliveryConfig { enable_idempotence: Some(true), acks: Acks::One, ..d }
                .validate()
                .unwrap_err()
                .to_string(),
            "config.producer.delivery.acks: must be all in order to use the idempotent producer"
        );
    }

    #[test]
    fn a_full_buffer_refuses_the_send() {
        let mut acc = accumulator(DeliveryConfig { buffer_records: 2, ..config(false) }, 1);
        assert!(acc.handle_send(0, send(0, 0)).is_ok());
        assert!(acc.handle_send(0, send(1, 0)).is_ok());
        assert_eq!(acc.handle_send(0, send(2, 0)), Err(SendRefused::BufferFull));
    }

    /// Random faults (proptest is a native dev-dependency).
    #[cfg(not(target_arch = "wasm32"))]
    mod faults {
        use super::*;
        use proptest::prelude::*;

        #[derive(Debug, Clone)]
        enum Step {
            Send { partition: u32, count: u64 },
            LoseRequest(u32),
            LoseAck(u32),
            NotEnoughReplicas(u32),
            ReplicasBack(u32),
            Crash(u32),
            Restart(u32),
            Disconnect(u32),
            Wait,
        }

        fn step() -> impl Strategy<Value = Step> {
            prop_oneof![
                4 => (0..3u32, 1..4u64).prop_map(|(partition, count)| Step::Send { partition, count }),
                1 => (0..3u32).prop_map(Step::LoseRequest),
                1 => (0..3u32).prop_map(Step::LoseAck),
                1 => (0..3u32).prop_map(Step::NotEnoughReplicas),
                1 => (0..3u32).prop_map(Step::ReplicasBack),
                1 => (0..2u32).prop_map(Step::Crash),
                1 => (0..2u32).prop_map(Step::Restart),
                1 => (0..2u32).prop_map(Step::Disconnect),
                3 => Just(Step::Wait),
            ]
        }

        fn run(steps: &[Step], idempotence: bool, max_in_flight: u32) -> Result<(), TestCaseError> {
            let cfg = DeliveryConfig { max_in_flight, ..config(idempotence) };
            // Partitions 0 and 2 on broker 0, partition 1 on broker 1.
            let mut acc = Accumulator::new(cfg, PID, 2, &[Some(0), Some(1), Some(0)]).unwrap();
            let mut cluster = Cluster::new(3);
            let mut next_id = 0;
            let mut sent_tick = std::collections::BTreeMap::new();
            let mut now = 0;
            for step in steps {
                let mut sends = Vec::new();
                match *step {
                    Step::Send { partition, count } => {
                        for _ in 0..count {
                            sends.push(send(next_id, partition));
                            sent_tick.insert(next_id, now);
                            next_id += 1;
                        }
                    }
                    Step::LoseRequest(p) => {
                        cluster.faults.push(ProduceFault::LoseNextRequest { partition: p })
                    }
                    Step::LoseAck(p) => cluster.faults.push(ProduceFault::LoseNextAck { partition: p }),
                    Step::NotEnoughReplicas(p) => cluster.not_enough_replicas.push(p),
                    Step::ReplicasBack(p) => cluster.not_enough_replicas.retain(|&q| q != p),
                    Step::Crash(b) => cluster.down.push(b),
                    Step::Restart(b) => cluster.down.retain(|&d| d != b),
                    Step::Disconnect(b) => cluster.disconnects.push(b),
                    Step::Wait => {}
                }
                cluster.tick(&mut acc, now, &sends);
                for b in 0..2 {
                    prop_assert!(acc.in_flight(b) <= max_in_flight as usize);
                }
                now += 1;
            }
            // Faults heal; every record gets its outcome within the delivery timeout.
            cluster.faults.clear();
            cluster.not_enough_replicas.clear();
            cluster.down.clear();
            // A batch behind a younger one (a retry at the front of the queue,
            // or sent earlier) expires once that one is sent or answered.
            let slack = cfg.request_timeout_ticks + cfg.retry_backoff_max_ticks + cfg.linger_ticks + 2;
            // Without idempotence retries go in front of older batches, and
            // the queue's expiry stops at the first batch not expired
            // (`RecordAccumulator.expiredBatches`): an old batch behind
            // younger retries fails when they leave, up to their own timeout.
            let bound = if idempotence { 1 } else { 2 } * acc.delivery_timeout_ticks() + slack;
            for _ in 0..bound {
                cluster.tick(&mut acc, now, &[]);
                now += 1;
            }
            let mut outcomes = 0;
            for (outcome, &tick) in cluster.outcomes.iter().zip(&cluster.outcome_ticks) {
                let (Outcome::Acknowledged { records, .. } | Outcome::Failed { records, .. }) = outcome;
                for id in records {
                    outcomes += 1;
                    let waited = tick - sent_tick[id];
                    prop_assert!(waited <= bound, "record {} waited {} ticks for its outcome", id, waited);
                }
                let Outcome::Acknowledged { partition, records, base_offset: Some(base), .. } = outcome
                else {
                    continue;
                };
                let log = &cluster.logs[*partition as usize];
                for (i, id) in records.iter().enumerate() {
                    prop_assert_eq!(log.get(*base as usize + i), Some(id), "acknowledged at its offset");
                    let copies = log.iter().filter(|&r| r == id).count();
                    if idempotence && cluster.unknown_producer_gaps == 0 {
                        prop_assert_eq!(
                            copies,
                            1,
                            "acknowledged, in the log exactly once: {} in {:?}",
                            id,
                            log
                        );
                    }
                }
            }
            prop_assert_eq!(outcomes, next_id, "every record has one outcome");
            prop_assert_eq!(acc.buffered_records(), 0);
            if idempotence && cluster.unknown_producer_gaps == 0 {
                for log in &cluster.logs {
                    prop_assert!(log.windows(2).all(|w| w[0] < w[1]), "in send order: {:?}", log);
                }
            }
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            #[test]
            fn idempotent_delivery_writes_each_acknowledged_record_once_in_order(
                steps in proptest::collection::vec(step(), 0..120),
                max_in_flight in 1..=5u32,
            ) {
                run(&steps, true, max_in_flight)?;
            }

            #[test]
            fn delivery_without_idempotence_writes_each_acknowledged_record_at_least_once(
                steps in proptest::collection::vec(step(), 0..120),
                max_in_flight in 1..=8u32,
            ) {
                run(&steps, false, max_in_flight)?;
            }
        }
    }
}
