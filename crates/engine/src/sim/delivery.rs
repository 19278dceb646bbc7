//! Routes the producer's delivery path and the cluster: the `Accumulator`'s
//! produce requests to each partition's leader (`Replication`, the
//! partition's `ProducerStates`, the `Topic`'s log), the leaders' answers back
//! in request order per connection, the injected faults, broker crashes and
//! restarts, elections and the truncation they cause, and the counters.
//!
//! Active when the config has a cluster or a producer delivery section;
//! without either the `Sim` appends each send at once, as before.

// Without the `cluster` feature no path exists and its events go (`emit_cluster`).
#![cfg_attr(not(feature = "cluster"), allow(unused_variables, dead_code))]

use super::Sim;
use crate::broker::producer_state::{Check, ProducerId, ProducerStates, SequenceError};
use crate::broker::replication::{ElectionKind, Replication, ReplicationEvent};
use crate::client::accumulator::{
    Accumulator, DeliveryError, Outcome, ProduceFault, ProduceRequest, ProduceResponse, RequestId,
};
use crate::client::producer::Send;
use crate::delivery::{Acks, ProduceError};
#[cfg(feature = "cluster")]
use crate::event::LeaderElected;
use crate::event::{Event, Tick};
use crate::input::InputError;
use crate::limits;
use crate::log::Failing;
use crate::log::Record;
use litemap::LiteMap;
use std::collections::VecDeque;

/// The producer's id: Kafka's comes from the controller's id blocks; one
/// producer runs, so any fixed value does.
const PRODUCER_ID: ProducerId = ProducerId(0);

/// An answer the leader owes on the producer's connection, in request order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owed {
    request: RequestId,
    partition: u32,
    /// `None` while an acks=all append waits for the high watermark.
    answer: Option<Result<u64, ProduceError>>,
    /// The acks=all append it waits for: its base offset.
    waiting_base: Option<u64>,
}

/// What the log needs of a sent record beyond its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sent {
    subject: u32,
    keyed: bool,
    poison: bool,
    failing: Failing,
    sent_tick: Tick,
}

/// The producer's and the cluster's counters (`Metrics`; see docs/counters.md's "Counters").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DeliveryCounters {
    /// Records the producer was told were written that an election cut off.
    pub acked_lost: u64,
    /// Records appended whose id was already in the partition's log.
    pub producer_duplicates: u64,
    /// Records appended after a later-sent record of the partition (copies not counted).
    pub producer_reordered: u64,
    /// Produce requests answered `NOT_ENOUGH_REPLICAS`.
    pub writes_refused: u64,
    /// Sends refused because the producer's buffer was full.
    pub sends_refused: u64,
}

/// The delivery path's state beside the `Sim`'s other parts.
///
/// # Calling contract
/// Only the `Sim` touches it, from [`Sim::step_delivery`] once a tick and from
/// the cluster inputs; its parts (`Replication`, `Accumulator`, the
/// partitions' `ProducerStates`) keep their own contracts.
#[derive(Debug, Clone)]
pub(crate) struct DeliveryPath {
    pub replication: Replication,
    pub accumulator: Accumulator,
    /// Per partition, the leader's idempotent-producer state (the log's).
    states: Vec<ProducerStates>,
    /// Per broker (index = node id − 1), the answers owed on the producer's connection.
    owed: Vec<VecDeque<Owed>>,
    faults: Vec<ProduceFault>,
    /// Per broker: the connection lost a request (`Some(false)`: every later
    /// request is lost too) or an answer (`Some(true)`: later requests are
    /// written, their answers lost), until the producer closes it.
    stalled: Vec<Option<bool>>,
    /// Records sent and not yet acknowledged or failed, by id.
    sent: LiteMap<u64, Sent>,
    /// Per partition, ids in the log whose batch has no outcome yet (only
    /// those can be written again), with how many copies the log holds.
    written: Vec<LiteMap<u64, u32>>,
    /// Per partition, the highest record id in the log.
    highest: Vec<Option<u64>>,
    pub counters: DeliveryCounters,
}

/// Where the `Sim` keeps its delivery path. A build without the `cluster`
/// feature (the page's: docs/page-build.md says why) has no path: the slot's type
/// is then uninhabited, `Option<Slot>` is always `None`, and the compiler
/// drops every use of the path, the replication model and the accumulator.
#[cfg(feature = "cluster")]
pub(crate) type Slot = Box<DeliveryPath>;
#[cfg(not(feature = "cluster"))]
pub(crate) type Slot = super::Absent<DeliveryPath>;

/// The delivery path for a config that has a cluster or a delivery section.
pub(crate) fn open(config: &crate::config::Config) -> Result<Slot, crate::config::ConfigError> {
    #[cfg(feature = "cluster")]
    {
        DeliveryPath::new(config).map(Box::new)
    }
    #[cfg(not(feature = "cluster"))]
    {
        Err(crate::config::ConfigError {
            field: if config.cluster.is_some() { "cluster" } else { "producer.delivery" },
            message: crate::config::NO_CLUSTER.into(),
        })
    }
}

impl DeliveryPath {
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn new(config: &crate::config::Config) -> Result<Self, crate::config::ConfigError> {
        let replication = Replication::new(config.replication_config())?;
        let delivery = config.producer.delivery.unwrap_or_default();
        let leaders: Vec<Option<u32>> =
            (0..config.partitions).map(|p| replication.leader(p).map(|b| b - 1)).collect();
        let brokers = replication.config().brokers;
        let accumulator = Accumulator::new(delivery.delivery_config(), PRODUCER_ID, brokers, &leaders)?;
        let partitions = config.partitions as usize;
        Ok(DeliveryPath {
            replication,
            accumulator,
            states: vec![ProducerStates::new(); partitions],
            owed: vec![VecDeque::new(); brokers as usize],
            faults: Vec::new(),
            stalled: vec![None; brokers as usize],
            sent: LiteMap::new(),
            written: vec![LiteMap::new(); partitions],
            highest: vec![None; partitions],
            counters: DeliveryCounters::default(),
        })
    }

    fn take_fault(&mut self, fault: ProduceFault) -> bool {
        let found = self.faults.iter().position(|&f| f == fault);
        found.map(|i| self.faults.remove(i)).is_some()
    }

    /// Answers owed on the connection to broker `b` (index).
    pub(crate) fn owed_answers(&self) -> usize {
        self.owed.iter().map(VecDeque::len).sum()
    }

    /// The invariants across the path's parts.
    pub(crate) fn check(&self) {
        self.replication.check();
        assert!(self.owed_answers() <= limits::PRODUCE_RESPONSES_MAX, "owed answers are bounded");
        assert!(
            self.sent.len() <= limits::PRODUCER_BUFFER_RECORDS_MAX as usize,
            "sent records are bounded by the buffer"
        );
        for (b, owed) in self.owed.iter().enumerate() {
            assert!(owed.len() <= self.accumulator.in_flight(b as u32), "every owed answer is in flight");
        }
    }
}

fn error_name(error: ProduceError) -> &'static str {
    match error {
        ProduceError::LeaderNotAvailable => "LEADER_NOT_AVAILABLE",
        ProduceError::NetworkException => "NETWORK_EXCEPTION",
        ProduceError::NotLeaderOrFollower { .. } => "NOT_LEADER_OR_FOLLOWER",
        ProduceError::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
        ProduceError::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
        ProduceError::OutOfOrderSequence => "OUT_OF_ORDER_SEQUENCE_NUMBER",
        ProduceError::InvalidProducerEpoch => "INVALID_PRODUCER_EPOCH",
        ProduceError::RequestTimedOut => "REQUEST_TIMED_OUT",
    }
}

fn kind_name(kind: ElectionKind) -> &'static str {
    match kind {
        ElectionKind::Clean => "clean",
        ElectionKind::Elr => "elr",
        ElectionKind::LastKnownLeader => "last-known-leader",
        ElectionKind::Unclean => "unclean",
        ElectionKind::Offline => "offline",
    }
}

impl Sim {
    fn path(&mut self) -> &mut DeliveryPath {
        self.delivery.as_deref_mut().expect("the delivery path is configured")
    }

    /// The offset consumers read below and lag is measured to: the
    /// partition's high watermark (the log end without a delivery path).
    pub(crate) fn high_watermark(&self, partition: u32) -> u64 {
        match &self.delivery {
            Some(path) => path.replication.high_watermark(partition),
            None => self.topic.log_end(partition),
        }
    }

    /// `send()` of one record on the delivery path: it joins a batch.
    pub(super) fn send_to_accumulator(&mut self, send: Send, poison: bool, failing: Failing) {
        let now = self.now;
        let path = self.path();
        match path.accumulator.handle_send(now, send) {
            Ok(_) => {
                let sent = Sent { subject: send.subject, keyed: send.keyed, poison, failing, sent_tick: now };
                path.sent.insert(send.id, sent);
            }
            Err(_) => path.counters.sends_refused += 1,
        }
    }

    /// The start of a tick on the delivery path: the producer's timeouts,
    /// then the answers owed from earlier ticks, in request order per
    /// connection (the accumulator's calling order: timeouts, answers, sends).
    pub(super) fn delivery_begin_tick(&mut self) {
        let now = self.now;
        let path = self.path();
        path.accumulator.handle_tick(now);
        for b in 0..path.owed.len() {
            if path.accumulator.in_flight(b as u32) == 0 {
                // The client closed the connection (or nothing is on it): a new one works.
                path.stalled[b] = None;
                path.owed[b].clear();
            }
        }
        let mut answers = Vec::new();
        for b in 0..path.owed.len() {
            while path.owed[b].front().is_some_and(|o| o.answer.is_some()) {
                let owed = path.owed[b].pop_front().expect("a front");
                answers.push((b as u32, owed));
            }
        }
        for (b, owed) in answers {
            let result = owed.answer.expect("answered");
            let response = ProduceResponse { broker: b, request: owed.request, result };
            self.path().accumulator.handle_response(now, response);
            let error = result.err().map(error_name);
            emit_cluster!(
                self,
                Event::ProduceAnswered { tick: now, partition: owed.partition, broker: b + 1, error }
            );
        }
    }

    /// The rest of a tick on the delivery path, after the tick's sends:
    /// requests to the leaders, the cluster's tick, then the batches' outcomes.
    pub(super) fn delivery_end_tick(&mut self) {
        let now = self.now;
        while let Some(request) = self.path().accumulator.poll_request(now) {
            self.handle_produce_request(request);
        }
        self.path().replication.handle_tick(now);
        self.route_replication_events();
        self.route_outcomes();
        self.enforce_retention();
        if let Some(path) = &self.delivery {
            path.check();
        }
    }

    /// One produce request at its partition's leader.
    fn handle_produce_request(&mut self, req: ProduceRequest) {
        let now = self.now;
        let (p, b) = (req.partition, req.broker as usize);
        let broker = req.broker + 1;
        emit_cluster!(
            self,
            Event::ProduceSent {
                tick: now,
                partition: p,
                broker,
                batch: req.batch.0,
                records: req.records.len() as u32,
                attempt: req.attempt,
            }
        );
        let path = self.path();
        if path.take_fault(ProduceFault::LoseNextRequest { partition: p }) {
            path.stalled[b] = Some(false);
            emit_cluster!(self, Event::ProduceLost { tick: now, partition: p, broker, what: "request" });
        }
        let path = self.path();
        if path.stalled[b] == Some(false) {
            // The connection stalled on a lost request: nothing from there on arrives.
            return;
        }
        if !path.replication.is_alive(broker) {
            // Connection refused: the client hears it at once.
            if req.acks != Acks::Zero {
                let answer = Some(Err(ProduceError::NetworkException));
                path.owed[b].push_back(Owed {
                    request: req.request,
                    partition: p,
                    answer,
                    waiting_base: None,
                });
            }
            return;
        }
        let duplicate = match &req.idempotent {
            Some(batch) => match path.states[p as usize].check(batch) {
                Ok(Check::Duplicate { base_offset }) => Some(Ok(base_offset)),
                Ok(Check::Append) => None,
                Err(SequenceError::OutOfOrderSequence { .. }) => Some(Err(ProduceError::OutOfOrderSequence)),
                Err(SequenceError::InvalidProducerEpoch { .. }) => {
                    Some(Err(ProduceError::InvalidProducerEpoch))
                }
            },
            None => None,
        };
        let (answer, waiting_base) = match duplicate {
            Some(answer) => (Some(answer), None),
            None => match path.replication.handle_append(p, req.records.len() as u64, req.acks, now) {
                Err(error) => {
                    if error == ProduceError::NotEnoughReplicas {
                        path.counters.writes_refused += 1;
                    }
                    let error = match error {
                        ProduceError::NotLeaderOrFollower { .. } => ProduceError::NotLeaderOrFollower {
                            leader: path.replication.leader(p).map(|l| l - 1),
                        },
                        e => e,
                    };
                    (Some(Err(error)), None)
                }
                Ok(appended) => {
                    if let Some(batch) = &req.idempotent {
                        path.states[p as usize].append(batch, appended.base_offset);
                    }
                    self.append_records(p, appended.base_offset, &req.records);
                    match req.acks {
                        Acks::All => (None, Some(appended.base_offset)),
                        _ => (Some(Ok(appended.base_offset)), None),
                    }
                }
            },
        };
        let path = self.path();
        if path.take_fault(ProduceFault::LoseNextAck { partition: p }) {
            path.stalled[b] = Some(true);
            emit_cluster!(
                self,
                Event::ProduceLost { tick: now, partition: p, broker, what: "acknowledgement" }
            );
        }
        let path = self.path();
        if req.acks != Acks::Zero && path.stalled[b].is_none() {
            path.owed[b].push_back(Owed { request: req.request, partition: p, answer, waiting_base });
        }
        // An acks=all append a single in-sync replica completes at once.
        self.route_replication_events();
    }

    /// The leader appended `ids` at `base`: the records go to the topic's log.
    fn append_records(&mut self, p: u32, base: u64, ids: &[u64]) {
        let now = self.now;
        assert_eq!(self.topic.log_end(p), base, "the topic's log is the leader's");
        for &id in ids {
            let path = self.delivery.as_deref_mut().expect("the delivery path");
            let sent = *path.sent.get(&id).expect("a record in flight was sent");
            let q = p as usize;
            let copies = path.written[q].entry(id).or_insert(0);
            let copy = *copies > 0;
            *copies += 1;
            let reordered = !copy && path.highest[q].is_some_and(|h| h > id);
            path.highest[q] = Some(path.highest[q].map_or(id, |h| h.max(id)));
            path.counters.producer_duplicates += u64::from(copy);
            path.counters.producer_reordered += u64::from(reordered);
            let record = Record {
                id,
                produced_tick: sent.sent_tick,
                subject: sent.subject,
                keyed: sent.keyed,
                poison: sent.poison,
                failing: sent.failing,
                producer_copy: copy,
                producer_reordered: reordered,
            };
            let offset = self.topic.handle_produce(p, record);
            self.emit(Event::Produced {
                tick: now,
                partition: p,
                offset,
                record_id: id,
                subject: sent.subject,
                keyed: sent.keyed,
                poison: sent.poison,
                fails_first: sent.failing.first,
                after_effect: sent.failing.after_effect,
            });
        }
    }

    /// What the cluster reports: elections (with the truncation), ISR
    /// changes, fencing, and acks=all answers.
    pub(super) fn route_replication_events(&mut self) {
        let now = self.now;
        while let Some(event) = self.path().replication.poll_event() {
            match event {
                ReplicationEvent::Fenced { broker } => {
                    emit_cluster!(self, Event::BrokerFenced { tick: now, broker })
                }
                ReplicationEvent::Unfenced { broker } => {
                    emit_cluster!(self, Event::BrokerUnfenced { tick: now, broker });
                }
                ReplicationEvent::Elected(e) => {
                    if let Some(offset) = e.truncate_to {
                        self.truncate(e.partition, offset);
                    }
                    let path = self.path();
                    path.counters.acked_lost += e.lost_acknowledged;
                    path.accumulator.handle_leader(e.partition, e.leader.map(|l| l - 1));
                    emit_cluster!(
                        self,
                        Event::LeaderElected(Box::new(LeaderElected {
                            tick: now,
                            partition: e.partition,
                            leader: e.leader,
                            leader_epoch: e.leader_epoch,
                            kind: kind_name(e.kind),
                            truncated_to: e.truncate_to,
                            lost: e.lost,
                            lost_acknowledged: e.lost_acknowledged,
                        }))
                    );
                }
                ReplicationEvent::IsrChanged { partition, isr, elr, .. } => {
                    emit_cluster!(self, Event::IsrChanged { tick: now, partition, isr, elr: elr.into() });
                }
                ReplicationEvent::HighWatermark { .. } => {}
                ReplicationEvent::Acked(outcome) => {
                    let path = self.path();
                    let slot = path.owed.iter_mut().flatten().find(|o| {
                        o.partition == outcome.partition && o.waiting_base == Some(outcome.base_offset)
                    });
                    // No slot: its answer was lost, or the producer closed the connection.
                    if let Some(slot) = slot {
                        slot.answer = Some(outcome.result.map(|()| outcome.base_offset));
                        slot.waiting_base = None;
                    }
                }
            }
        }
    }

    /// The batches' outcomes: `send()`'s callbacks.
    fn route_outcomes(&mut self) {
        let now = self.now;
        while let Some(outcome) = self.path().accumulator.poll_outcome() {
            let (partition, batch, records) = match &outcome {
                Outcome::Acknowledged { partition, batch, records, .. }
                | Outcome::Failed { partition, batch, records, .. } => (*partition, *batch, records),
            };
            let path = self.delivery.as_deref_mut().expect("the delivery path");
            for id in records {
                // Never sent again: a later copy of it cannot come.
                path.sent.remove(id);
                path.written[partition as usize].remove(id);
            }
            let n = records.len() as u32;
            match outcome {
                Outcome::Acknowledged { .. } => {
                    emit_cluster!(
                        self,
                        Event::BatchAcknowledged { tick: now, partition, batch: batch.0, records: n }
                    );
                }
                Outcome::Failed { error, .. } => {
                    let error = match error {
                        DeliveryError::Timeout => "TimeoutException",
                        DeliveryError::Refused(e) => error_name(e),
                    };
                    emit_cluster!(
                        self,
                        Event::BatchFailed { tick: now, partition, batch: batch.0, records: n, error }
                    );
                }
            }
        }
    }

    /// A new leader's log is shorter: the topic's log, the producer state,
    /// every group's marks, consumers' fetched records and positions, and
    /// committed offsets past the cut follow it back.
    ///
    /// Kafka's consumer finds the truncation through the leader epoch
    /// (KIP-320: `OffsetsForLeaderEpoch` on a fetch past the new log end, or
    /// a validation after the leader changed) and resumes at the divergence
    /// point, the new log end; a position past it moves back there here, at
    /// once. Records past the cut in a fetched, unhandled batch go with the
    /// cut (Kafka's client would still hand them to the application).
    /// Committed offsets past the cut are lowered to it: Kafka keeps them,
    /// and the next consumer to start from one detects the truncation and
    /// resumes at the divergence point, which is the same place.
    fn truncate(&mut self, p: u32, offset: u64) {
        let end = self.topic.log_end(p);
        let path = self.delivery.as_deref_mut().expect("the delivery path");
        for o in offset.max(self.topic.log_start(p))..end {
            let id = self.topic.get(p, o).expect("retained").id;
            // A copy may go while the first stays: count them down.
            let written = &mut path.written[p as usize];
            if let Some(copies) = written.get_mut(&id) {
                *copies -= 1;
                if *copies == 0 {
                    written.remove(&id);
                }
            }
        }
        self.topic.truncate_to(p, offset);
        let path = self.delivery.as_deref_mut().expect("the delivery path");
        path.states[p as usize].truncate_to(offset);
        // Truncation is rare (an election); one scan of the retained log.
        let log = self.topic.log(p).expect("a partition");
        path.highest[p as usize] = log.records.iter().map(|r| r.id).max();
        for g in 0..self.groups.len() {
            self.observers[g].handle_truncated(p, offset);
        }
        for c in 0..self.consumers.len() {
            self.consumers[c].handle_truncated(p, offset);
            let Some(at) = self.consumers[c].position(p) else { continue };
            if at > offset {
                self.reset_position(c, p, at, offset);
            }
        }
        for g in 0..self.groups.len() {
            if self.offsets[g].get(p).is_some_and(|c| c > offset) {
                self.set_committed(g, p, offset);
            }
        }
    }

    /// `kafka-topics --bootstrap-server localhost:9092 --describe --topic
    /// orders`, as Kafka 4.4.0 prints it for this cluster (one broker,
    /// replication factor 1, without one). The topic id is random in Kafka;
    /// here it is derived from the seed (its own PRNG stream), so a run
    /// prints the same id every time.
    #[must_use]
    pub fn describe_topic(&self) -> String {
        let id = topic_id(self.config.seed);
        match &self.delivery {
            Some(path) => path.replication.describe("orders", &id),
            None => Replication::new(self.config.replication_config())
                .expect("one broker, replication factor 1, is valid")
                .describe("orders", &id),
        }
    }

    /// The brokers and each partition's replicas now, when the run has a
    /// delivery path (`None` without one: the tapes are one broker's log).
    #[must_use]
    pub fn cluster_view(&self) -> Option<crate::view::ClusterView> {
        use crate::view::{BrokerView, ClusterView, ReplicaSetView, ReplicaView};
        let path = self.delivery.as_deref()?;
        let replication = &path.replication;
        let config = replication.config();
        let partitions: Vec<ReplicaSetView> = (0..self.partition_count())
            .map(|p| {
                let isr = replication.isr(p);
                let elr = replication.elr(p);
                ReplicaSetView {
                    partition: p,
                    leader: replication.leader(p),
                    leader_epoch: replication.leader_epoch(p),
                    high_watermark: replication.high_watermark(p),
                    replicas: replication
                        .replicas(p)
                        .into_iter()
                        .map(|broker| ReplicaView {
                            broker,
                            log_end: replication.replica_log_end(p, broker).unwrap_or(0),
                            in_isr: isr.contains(&broker),
                            in_elr: elr.contains(&broker),
                        })
                        .collect(),
                }
            })
            .collect();
        let brokers = (1..=config.brokers)
            .map(|id| BrokerView {
                id,
                alive: replication.is_alive(id),
                fenced: replication.is_fenced(id),
                leader_of: partitions.iter().filter(|r| r.leader == Some(id)).map(|r| r.partition).collect(),
            })
            .collect();
        let delivery = self.config.producer.delivery.unwrap_or_default();
        Some(ClusterView {
            brokers,
            partitions,
            replication_factor: config.replication_factor,
            min_insync_replicas: config.min_insync_replicas,
            unclean_leader_election: config.unclean_leader_election,
            acks: delivery.acks,
            idempotence: path.accumulator.idempotent(),
            max_in_flight: delivery.max_in_flight,
            buffered_records: path.accumulator.buffered_records(),
        })
    }

    // ---------------------------------------------------------------- inputs

    fn need_path(&self, input: &'static str) -> Result<(), InputError> {
        if self.delivery.is_none() {
            return Err(InputError::NoCluster { input });
        }
        Ok(())
    }

    fn broker_index(&self, broker: u32, input: &'static str) -> Result<(), InputError> {
        self.need_path(input)?;
        let brokers = self.delivery.as_ref().expect("checked").replication.config().brokers;
        if !(1..=brokers).contains(&broker) {
            return Err(InputError::NoSuchBroker { broker });
        }
        Ok(())
    }

    pub(super) fn crash_broker(&mut self, broker: u32) -> Result<(), InputError> {
        self.broker_index(broker, "crash-broker")?;
        let now = self.now;
        let path = self.path();
        if !path.replication.is_alive(broker) {
            return Err(InputError::BrokerState { broker, wanted: "running" });
        }
        path.replication.handle_crash(broker, now);
        // The producer's connection breaks: what was on it fails and is retried.
        let b = (broker - 1) as usize;
        path.owed[b].clear();
        path.stalled[b] = None;
        path.accumulator.handle_disconnect(now, broker - 1);
        emit_cluster!(self, Event::BrokerCrashed { tick: now, broker });
        self.route_replication_events();
        self.route_outcomes();
        Ok(())
    }

    pub(super) fn restart_broker(&mut self, broker: u32) -> Result<(), InputError> {
        self.broker_index(broker, "restart-broker")?;
        let now = self.now;
        let path = self.path();
        if path.replication.is_alive(broker) {
            return Err(InputError::BrokerState { broker, wanted: "crashed" });
        }
        path.replication.handle_restart(broker, now);
        emit_cluster!(self, Event::BrokerRestarted { tick: now, broker });
        self.route_replication_events();
        Ok(())
    }

    pub(super) fn inject_fault(
        &mut self,
        fault: ProduceFault,
        input: &'static str,
    ) -> Result<(), InputError> {
        self.need_path(input)?;
        let partition = match fault {
            ProduceFault::LoseNextAck { partition } | ProduceFault::LoseNextRequest { partition } => {
                partition
            }
        };
        if partition >= self.topic.partition_count() {
            return Err(InputError::NoSuchPartition { partition });
        }
        let path = self.path();
        if path.faults.len() >= limits::FAULTS_PENDING_MAX {
            return Err(InputError::OutOfRange {
                field: "partition",
                message: format!("at most {} faults wait at once", limits::FAULTS_PENDING_MAX),
            });
        }
        path.faults.push(fault);
        Ok(())
    }

    pub(super) fn slow_follower(&mut self, broker: u32, fetch_per_tick: u64) -> Result<(), InputError> {
        self.broker_index(broker, "slow-follower")?;
        super::check_input_range("fetch_per_tick", fetch_per_tick, 0, limits::APPEND_RECORDS_MAX)?;
        self.path().replication.set_fetch_rate(broker, fetch_per_tick);
        self.setting_changed(None, "follower_fetch_per_tick", format!("{broker}:{fetch_per_tick}"));
        Ok(())
    }
}

/// The PRNG stream of the topic id (apart from the producer's and the groups').
const TOPIC_ID_STREAM: u64 = 14;

/// A topic id as Kafka prints one (`Uuid.toString()`: 16 bytes, a version 4
/// UUID's bits, in unpadded base64url), from the seeded PRNG.
fn topic_id(seed: u64) -> String {
    use base64::Engine as _;
    let mut rng = crate::rng::Rng::with_stream(seed, TOPIC_ID_STREAM);
    let (a, b) = (rng.next_u64(), rng.next_u64());
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&b.to_be_bytes());
    bytes[6] = bytes[6] & 0x0f | 0x40;
    bytes[8] = bytes[8] & 0x3f | 0x80;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
