//! Replication of the topic's partitions over 1 to 5 brokers, as Apache Kafka
//! 4.4.0 runs it in KRaft mode: per partition the assigned replicas, the
//! leader and its epoch, the partition epoch, the in-sync replicas (ISR), the
//! eligible leader replicas (ELR, KIP-966) and the last known ELR, each
//! replica's log end offset (LEO) and the high watermark (HW).
//!
//! Records stay out of this part. The topic keeps one log per partition — the
//! current leader's — and every replica is a prefix of it: followers copy the
//! leader, and when a leader takes over, every replica past its LEO is cut
//! back to it (what Kafka's leader-epoch truncation does in every case this
//! model reaches). So this part deals in offsets only and tells the caller
//! what to do to the log ([`Election::truncate_to`]).
//!
//! Two halves of Kafka are modelled, and the split is kept because the rules
//! differ:
//! - the partition leader (`Partition.scala`, `Replica.scala`,
//!   `DelayedProduce.scala`): appends with `acks`, follower fetches, the HW,
//!   the ISR shrink by `replica.lag.time.max.ms` and the expansion when a
//!   follower catches up, acks=all completions;
//! - the controller (`ReplicationControlManager`, `PartitionChangeBuilder`):
//!   fencing a broker whose session ran out, a restarted broker's
//!   registration (an unclean shutdown) and unfencing, ISR and ELR
//!   bookkeeping, and the elections (`change`, which follows
//!   `PartitionChangeBuilder.build` step by step).
//!
//! Simplifications (for the page's fine print):
//! - Ticks, not milliseconds: `replica.lag.time.max.ms`, `broker.session.timeout.ms`
//!   and the produce request's timeout are in ticks.
//! - A leader's AlterPartition (ISR shrink or expansion) and the controller's
//!   answer take no time: the ISR changes in the step that asked for it. A
//!   restarted broker registers and is unfenced in one step.
//! - A crashed broker keeps its whole log (a process crash: the page cache
//!   survives). Every restart is an unclean shutdown (no controlled shutdown
//!   is modelled), so with ELR the broker leaves every ELR when it registers.
//! - A restart before the controller fenced the crashed broker waits for the
//!   fence: Kafka refuses the new incarnation's registration while the old
//!   session is valid.
//! - A replica that is down is cut back to a new leader's LEO at the election
//!   (Kafka truncates it when it next fetches; the difference shows only
//!   after two unclean elections in a row).
//! - A new leader keeps the HW the old leader had (Kafka's new leader starts
//!   from the HW its last fetch response carried, and consumers may briefly
//!   see an older HW); an unclean election lowers it to the new leader's LEO.
//! - The leader recovery after an unclean election (`RECOVERING`) ends at once.
//! - No preferred leader election (`auto.leader.rebalance.enable`): a
//!   restarted preferred replica stays a follower.
//! - Replica placement: partition `p`'s replicas are brokers
//!   `(p + i) % brokers + 1` for `i` in `0..replication_factor` (Kafka's
//!   `StripedReplicaPlacer` starts at a random broker; this starts at `p`).

mod describe;

pub(crate) use describe::{PartitionDescription, TopicDescription, describe_topic};

use crate::config::{ConfigError, ReplicationConfig};
pub(crate) use crate::delivery::{Acks, ProduceError};
use std::collections::VecDeque;

/// A broker's node id, 1 to [`BROKERS_MAX`](crate::limits::BROKERS_MAX).
pub(crate) type BrokerId = u32;

// The bounds live in `limits`, with every other bound of the engine.
pub(crate) use crate::limits::{
    ACKED_RUNS_MAX, APPEND_RECORDS_MAX, BATCH_ENDS_MAX, EVENTS_QUEUED_MAX, PENDING_ACKS_MAX,
};

impl ReplicationConfig {
    /// The configs `kafka-topics --describe` lists for the topic: those whose
    /// source is not Kafka's default. With ELR on, the controller writes a
    /// cluster-level `min.insync.replicas` (KAFKA-16540), so it is always
    /// listed; without ELR only a value other than 1 is (set on the topic).
    /// `unclean.leader.election.enable=true` is taken as set on the topic.
    pub(crate) fn describe_configs(&self) -> Vec<(String, String)> {
        let mut configs = Vec::new();
        if self.eligible_leader_replicas || self.min_insync_replicas != 1 {
            configs.push(("min.insync.replicas".to_owned(), self.min_insync_replicas.to_string()));
        }
        if self.unclean_leader_election {
            configs.push(("unclean.leader.election.enable".to_owned(), "true".to_owned()));
        }
        configs
    }
}

/// An append the leader took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Appended {
    /// The first offset written.
    pub base_offset: u64,
    /// One past the last offset written (the new log end).
    pub end_offset: u64,
    /// True when the producer has its answer now (acks=1). acks=all answers
    /// later, as an [`AckOutcome`]; acks=0 never.
    pub acknowledged: bool,
}

/// How a leader was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ElectionKind {
    /// A live member of the ISR, the first in assignment order.
    Clean,
    /// The ISR was empty: a live member of the ELR (KIP-966).
    Elr,
    /// ISR and ELR empty: the last leader, back (KIP-966's "last known
    /// leader"; Kafka flags it unclean and sets the ISR to it alone).
    LastKnownLeader,
    /// `unclean.leader.election.enable`: a live replica outside the ISR.
    Unclean,
    /// Nobody eligible is alive: the partition is offline (`Leader: none`).
    Offline,
}

/// A leader change of one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Election {
    pub partition: u32,
    pub leader: Option<BrokerId>,
    pub leader_epoch: u32,
    pub kind: ElectionKind,
    /// The caller cuts the topic's log back to this offset (the new leader's
    /// LEO) when some replica held more.
    pub truncate_to: Option<u64>,
    /// Offsets cut off.
    pub lost: u64,
    /// Of those, offsets below the HW before the election: records consumers
    /// could read (only an unclean election loses them).
    pub lost_below_high_watermark: u64,
    /// Of those, offsets the producer had been told were written (acks=1 on
    /// append, acks=all on completion).
    pub lost_acknowledged: u64,
}

/// The answer to an acks=all produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AckOutcome {
    pub partition: u32,
    pub base_offset: u64,
    pub end_offset: u64,
    pub result: Result<(), ProduceError>,
}

/// What changed, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReplicationEvent {
    /// The controller fenced a broker (its session ran out).
    Fenced {
        broker: BrokerId,
    },
    /// A restarted broker registered and was unfenced.
    Unfenced {
        broker: BrokerId,
    },
    Elected(Election),
    /// The ISR or ELR changed without a leader change.
    IsrChanged {
        partition: u32,
        isr: Vec<BrokerId>,
        elr: Vec<BrokerId>,
        partition_epoch: u32,
    },
    HighWatermark {
        partition: u32,
        high_watermark: u64,
    },
    Acked(AckOutcome),
}

/// One replica as the leader (and the model) sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Replica {
    broker: BrokerId,
    /// The replica's own log end.
    leo: u64,
    /// The offset of its last fetch, which is what the leader knows of its
    /// LEO (`ReplicaState.logEndOffset`); `None` until it fetches from this leader.
    fetch_offset: Option<u64>,
    /// The leader's LEO at its previous fetch (`lastFetchLeaderLogEndOffset`).
    last_fetch_leader_leo: Option<u64>,
    last_fetch_tick: u64,
    /// Kafka's `lastCaughtUpTimeMs`, in ticks.
    last_caught_up_tick: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct PartitionState {
    /// Assignment order; the first is the preferred leader.
    replicas: Vec<Replica>,
    leader: Option<BrokerId>,
    leader_epoch: u32,
    partition_epoch: u32,
    isr: Vec<BrokerId>,
    elr: Vec<BrokerId>,
    last_known_elr: Vec<BrokerId>,
    high_watermark: u64,
    /// The leader's LEO when it took over: a follower joins the ISR only past it.
    leader_epoch_start_offset: u64,
    /// Acknowledged offsets as disjoint runs `(start, end)` (end exclusive),
    /// in offset order, for counting what an election cuts off. (A sorted
    /// deque rather than a map: runs mostly grow at the log end and leave at
    /// the front, and the page's wasm carries less code.)
    acked: VecDeque<(u64, u64)>,
    /// Where each record batch the leader appended ends, above the slowest
    /// replica's LEO. A follower copies whole batches, as Kafka's fetch
    /// returns them (at least one, even past the fetch's size limit), so
    /// every replica's LEO is a batch end: an election never leaves half a
    /// batch, whose producer sequence the new leader would not know.
    batch_ends: VecDeque<u64>,
}

impl PartitionState {
    fn replica(&self, broker: BrokerId) -> Option<&Replica> {
        self.replicas.iter().find(|r| r.broker == broker)
    }

    fn replica_mut(&mut self, broker: BrokerId) -> Option<&mut Replica> {
        self.replicas.iter_mut().find(|r| r.broker == broker)
    }

    /// The topic's log end: the longest replica (every replica is a prefix of it).
    fn log_end(&self) -> u64 {
        self.replicas.iter().map(|r| r.leo).max().unwrap_or(0)
    }

    fn acknowledge(&mut self, from: u64, to: u64) {
        if from >= to {
            return;
        }
        let (mut start, mut end) = (from, to);
        // The runs that touch or overlap [from, to) merge with it: those from
        // the first ending at or after `from` to the last starting at or before `to`.
        let first = self.acked.partition_point(|&(_, e)| e < from);
        let last = self.acked.partition_point(|&(s, _)| s <= to);
        if first < last {
            start = start.min(self.acked[first].0);
            end = end.max(self.acked[last - 1].1);
            self.acked.drain(first..last);
        }
        self.acked.insert(first, (start, end));
        assert!(self.acked.len() <= ACKED_RUNS_MAX, "acknowledged runs are bounded");
    }

    /// Removes and counts the acknowledged offsets at or past `offset`.
    fn cut_acknowledged(&mut self, offset: u64) -> u64 {
        let mut lost = 0;
        while let Some(&(s, e)) = self.acked.back()
            && e > offset
        {
            self.acked.pop_back();
            lost += e - s.max(offset);
            if s < offset {
                self.acked.push_back((s, offset));
                break;
            }
        }
        lost
    }

    /// Forgets runs and batch ends at or below every replica's LEO: no
    /// election can cut them, no follower fetches from below them.
    fn prune_acknowledged(&mut self) {
        let floor = self.replicas.iter().map(|r| r.leo).min().unwrap_or(0);
        while self.acked.front().is_some_and(|&(_, e)| e <= floor) {
            self.acked.pop_front();
        }
        while self.batch_ends.front().is_some_and(|&end| end <= floor) {
            self.batch_ends.pop_front();
        }
    }

    /// Records a fetch from `fetch_offset` copies with at most `max_records`:
    /// whole batches up to `max_records`, and always the first one.
    fn fetch_size(&self, fetch_offset: u64, max_records: u64) -> u64 {
        let mut copied = 0;
        let first = self.batch_ends.partition_point(|&end| end <= fetch_offset);
        for &end in self.batch_ends.range(first..) {
            if copied > 0 && end - fetch_offset > max_records {
                break;
            }
            copied = end - fetch_offset;
        }
        copied
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BrokerState {
    /// The process runs.
    alive: bool,
    /// The controller has fenced it (its session ran out) and it has not
    /// registered again.
    fenced: bool,
    /// Crashed and not fenced yet: the controller fences it at this tick.
    fence_at_tick: Option<u64>,
    /// Records a follower on this broker copies per fetch step (`u64::MAX`:
    /// everything; 0: it does not fetch).
    fetch_records_per_tick: u64,
}

impl BrokerState {
    /// Registered, unfenced and running: it leads and follows.
    fn serving(&self) -> bool {
        self.alive && !self.fenced && self.fence_at_tick.is_none()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PendingAck {
    partition: u32,
    base_offset: u64,
    /// `requiredOffset`: the HW that completes it.
    end_offset: u64,
    leader_epoch: u32,
    deadline_tick: u64,
}

/// Who a controller change is about (`generateLeaderAndIsrUpdates`' three brokers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Subject {
    /// Fenced: out of the ISR and never an acceptable leader.
    remove: Option<BrokerId>,
    /// Being unfenced: acceptable although the controller still shows it fenced.
    add: Option<BrokerId>,
    /// Registered after an unclean shutdown: out of the ISR and the ELR.
    unclean_shutdown: Option<BrokerId>,
}

/// The cluster's replication state; see the module documentation.
///
/// # Calling contract
/// - Time is the caller's tick, passed to every `handle_*` call; calls come in
///   non-decreasing tick order. Nothing reads a clock.
/// - [`Replication::handle_append`] is a produce to a partition's leader: on
///   `Ok` the caller appends that many records to the topic's log; on `Err`
///   nothing was written.
/// - [`Replication::handle_tick`] runs one tick of the cluster, in this
///   order: the controller fences brokers whose session ran out (and
///   registers restarted ones that waited for it), every live follower
///   fetches from its leader (partitions in order, followers in assignment
///   order, each copying up to its broker's rate), the leader's ISR check when
///   due, then acks=all timeouts. [`Replication::handle_fetch_step`] is one
///   follower fetch, for a caller that drives fetches itself.
/// - [`Replication::handle_crash`] and [`Replication::handle_restart`] stop and
///   start a broker's process; [`Replication::set_fetch_rate`] makes a
///   follower slow (or stalled, with 0).
/// - [`Replication::poll_event`] returns what changed, in order: elections
///   (with the truncation the caller must apply to the topic's log before
///   its next append), ISR and ELR changes, HW advances, acks=all answers.
/// - A request the state does not allow (a produce without a leader, a fetch
///   by a broker that is down) is refused with an error or does nothing;
///   never asserted on. [`Replication::check`] asserts the invariants.
#[derive(Debug, Clone)]
pub(crate) struct Replication {
    config: ReplicationConfig,
    /// Index = broker id − 1.
    brokers: Vec<BrokerState>,
    partitions: Vec<PartitionState>,
    pending: VecDeque<PendingAck>,
    events: VecDeque<ReplicationEvent>,
    events_dropped: u64,
}

impl Replication {
    /// A new cluster: every broker up, every partition led by its preferred
    /// replica with the whole assignment in sync, epochs 0, empty logs.
    pub(crate) fn new(config: ReplicationConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let brokers = vec![
            BrokerState {
                alive: true,
                fenced: false,
                fence_at_tick: None,
                fetch_records_per_tick: u64::MAX
            };
            config.brokers as usize
        ];
        let partitions = (0..config.partitions)
            .map(|p| {
                let replicas: Vec<Replica> = (0..config.replication_factor)
                    .map(|i| Replica {
                        broker: (p + i) % config.brokers + 1,
                        leo: 0,
                        fetch_offset: None,
                        last_fetch_leader_leo: None,
                        last_fetch_tick: 0,
                        last_caught_up_tick: 0,
                    })
                    .collect();
                PartitionState {
                    leader: Some(replicas[0].broker),
                    isr: replicas.iter().map(|r| r.broker).collect(),
                    replicas,
                    leader_epoch: 0,
                    partition_epoch: 0,
                    elr: Vec::new(),
                    last_known_elr: Vec::new(),
                    high_watermark: 0,
                    leader_epoch_start_offset: 0,
                    acked: VecDeque::new(),
                    batch_ends: VecDeque::new(),
                }
            })
            .collect();
        let replication = Replication {
            config,
            brokers,
            partitions,
            pending: VecDeque::new(),
            events: VecDeque::new(),
            events_dropped: 0,
        };
        replication.check();
        Ok(replication)
    }

    pub(crate) fn config(&self) -> &ReplicationConfig {
        &self.config
    }

    fn broker(&self, id: BrokerId) -> &BrokerState {
        &self.brokers[(id - 1) as usize]
    }

    fn broker_mut(&mut self, id: BrokerId) -> &mut BrokerState {
        &mut self.brokers[(id - 1) as usize]
    }

    fn valid_broker(&self, id: BrokerId) -> bool {
        (1..=self.config.brokers).contains(&id)
    }

    // ---- reads ----

    pub(crate) fn leader(&self, partition: u32) -> Option<BrokerId> {
        self.partitions[partition as usize].leader
    }

    pub(crate) fn leader_epoch(&self, partition: u32) -> u32 {
        self.partitions[partition as usize].leader_epoch
    }

    pub(crate) fn partition_epoch(&self, partition: u32) -> u32 {
        self.partitions[partition as usize].partition_epoch
    }

    pub(crate) fn replicas(&self, partition: u32) -> Vec<BrokerId> {
        self.partitions[partition as usize].replicas.iter().map(|r| r.broker).collect()
    }

    pub(crate) fn isr(&self, partition: u32) -> &[BrokerId] {
        &self.partitions[partition as usize].isr
    }

    pub(crate) fn elr(&self, partition: u32) -> &[BrokerId] {
        &self.partitions[partition as usize].elr
    }

    pub(crate) fn last_known_elr(&self, partition: u32) -> &[BrokerId] {
        &self.partitions[partition as usize].last_known_elr
    }

    /// Consumers read below it, and lag is measured to it.
    pub(crate) fn high_watermark(&self, partition: u32) -> u64 {
        self.partitions[partition as usize].high_watermark
    }

    /// The topic's log end (the longest replica's LEO).
    pub(crate) fn log_end(&self, partition: u32) -> u64 {
        self.partitions[partition as usize].log_end()
    }

    /// A replica's LEO; `None` when the broker holds no replica of the partition.
    pub(crate) fn replica_log_end(&self, partition: u32, broker: BrokerId) -> Option<u64> {
        self.partitions[partition as usize].replica(broker).map(|r| r.leo)
    }

    /// The tick the leader last saw this follower caught up (`lastCaughtUpTimeMs`).
    pub(crate) fn last_caught_up_tick(&self, partition: u32, broker: BrokerId) -> Option<u64> {
        self.partitions[partition as usize].replica(broker).map(|r| r.last_caught_up_tick)
    }

    pub(crate) fn is_alive(&self, broker: BrokerId) -> bool {
        self.broker(broker).alive
    }

    /// Fenced by the controller (and not registered again).
    pub(crate) fn is_fenced(&self, broker: BrokerId) -> bool {
        self.broker(broker).fenced
    }

    /// Events dropped because the queue was full.
    pub(crate) fn events_dropped(&self) -> u64 {
        self.events_dropped
    }

    pub(crate) fn poll_event(&mut self) -> Option<ReplicationEvent> {
        self.events.pop_front()
    }

    /// `kafka-topics --describe --topic NAME` for this cluster (the topic id
    /// is Kafka's random UUID, so the caller gives it, in Kafka's base64 form).
    pub(crate) fn describe(&self, topic: &str, topic_id: &str) -> String {
        let partitions = self
            .partitions
            .iter()
            .enumerate()
            .map(|(p, part)| PartitionDescription {
                partition: p as u32,
                leader: part.leader,
                replicas: part.replicas.iter().map(|r| r.broker).collect(),
                isr: part.isr.clone(),
                elr: Some(part.elr.clone()),
                last_known_elr: Some(part.last_known_elr.clone()),
            })
            .collect();
        describe_topic(&TopicDescription {
            topic: topic.to_owned(),
            topic_id: topic_id.to_owned(),
            replication_factor: self.config.replication_factor,
            configs: self.config.describe_configs(),
            partitions,
        })
    }

    fn emit(&mut self, event: ReplicationEvent) {
        if self.events.len() >= EVENTS_QUEUED_MAX {
            self.events.pop_front();
            self.events_dropped += 1;
        }
        self.events.push_back(event);
    }

    // ---- inputs ----

    /// A produce of `records` records to `partition` at `now_tick`.
    pub(crate) fn handle_append(
        &mut self,
        partition: u32,
        records: u64,
        acks: Acks,
        now_tick: u64,
    ) -> Result<Appended, ProduceError> {
        assert!(
            (1..=APPEND_RECORDS_MAX).contains(&records),
            "an append carries 1 to {APPEND_RECORDS_MAX} records"
        );
        let p = partition as usize;
        let leader = self.partitions[p].leader.ok_or(ProduceError::LeaderNotAvailable)?;
        let state = *self.broker(leader);
        if !state.alive {
            return Err(ProduceError::NetworkException);
        }
        if !state.serving() {
            return Err(ProduceError::NotLeaderOrFollower { leader: None });
        }
        // `appendRecordsToLeader`: acks=all is refused before the append when
        // the ISR is below min.insync.replicas; acks 0 and 1 are not checked.
        if acks == Acks::All && self.partitions[p].isr.len() < self.config.min_insync_replicas as usize {
            return Err(ProduceError::NotEnoughReplicas);
        }
        let part = &mut self.partitions[p];
        let base_offset = part.replica(leader).expect("the leader is a replica").leo;
        let end_offset = base_offset + records;
        part.replica_mut(leader).expect("the leader is a replica").leo = end_offset;
        // Appends end past every kept end: the deque stays sorted.
        part.batch_ends.push_back(end_offset);
        if part.batch_ends.len() > BATCH_ENDS_MAX {
            part.batch_ends.pop_front();
        }
        if acks == Acks::One {
            part.acknowledge(base_offset, end_offset);
        }
        // "we may need to increment high watermark since ISR could be down to 1"
        self.maybe_increment_high_watermark(p, now_tick);
        if acks == Acks::All {
            assert!(self.pending.len() < PENDING_ACKS_MAX, "acks=all produces waiting are bounded");
            let leader_epoch = self.partitions[p].leader_epoch;
            self.pending.push_back(PendingAck {
                partition,
                base_offset,
                end_offset,
                leader_epoch,
                deadline_tick: now_tick + self.config.request_timeout_ticks,
            });
            // `tryCompleteElseWatch`: a single in-sync replica completes it at once.
            self.complete_pending(now_tick);
        }
        self.check();
        Ok(Appended { base_offset, end_offset, acknowledged: acks == Acks::One })
    }

    /// Sets how many records a follower on `broker` copies per fetch step
    /// (`u64::MAX`: all it can; 0: it stops fetching, as a stuck follower).
    pub(crate) fn set_fetch_rate(&mut self, broker: BrokerId, records_per_tick: u64) {
        if self.valid_broker(broker) {
            self.broker_mut(broker).fetch_records_per_tick = records_per_tick;
        }
    }

    /// One tick of the cluster; see the calling contract for the order.
    pub(crate) fn handle_tick(&mut self, now_tick: u64) {
        // The controller fences one stale broker at a time, the longest silent first.
        let mut due: Vec<(u64, BrokerId)> = (1..=self.config.brokers)
            .filter_map(|b| self.broker(b).fence_at_tick.filter(|&t| t <= now_tick).map(|t| (t, b)))
            .collect();
        crate::order::sort_stable_by(&mut due, Ord::cmp);
        for (_, broker) in due {
            self.fence(broker, now_tick);
        }
        for p in 0..self.partitions.len() {
            let Some(leader) = self.partitions[p].leader else { continue };
            let followers: Vec<BrokerId> =
                self.partitions[p].replicas.iter().map(|r| r.broker).filter(|&b| b != leader).collect();
            for follower in followers {
                let rate = self.broker(follower).fetch_records_per_tick;
                if rate > 0 {
                    self.handle_fetch_step(p as u32, follower, rate, now_tick);
                }
            }
        }
        // `isr-expiration` runs every replica.lag.time.max.ms / 2 from startup.
        let period = (self.config.replica_lag_time_max_ticks / 2).max(1);
        if now_tick % period == 0 {
            for p in 0..self.partitions.len() {
                self.maybe_shrink_isr(p, now_tick);
            }
        }
        self.complete_pending(now_tick);
        self.check();
    }

    /// One fetch by the follower on `broker` of `partition` at `now_tick`,
    /// copying at most `max_records`. Returns the records copied (0 when the
    /// follower or the leader is not serving).
    ///
    /// As Kafka's, the fetch first tells the leader where the follower is
    /// (its fetch offset: `updateFollowerFetchState`, which may add it to the
    /// ISR and move the HW) and then carries records: the leader learns of
    /// what it copies at its next fetch.
    pub(crate) fn handle_fetch_step(
        &mut self,
        partition: u32,
        broker: BrokerId,
        max_records: u64,
        now_tick: u64,
    ) -> u64 {
        let p = partition as usize;
        let Some(leader) = self.partitions[p].leader else { return 0 };
        if leader == broker
            || !self.valid_broker(broker)
            || !self.broker(broker).serving()
            || !self.broker(leader).serving()
            || self.partitions[p].replica(broker).is_none()
        {
            return 0;
        }
        let part = &mut self.partitions[p];
        let leader_leo = part.replica(leader).expect("the leader is a replica").leo;
        let replica = part.replica_mut(broker).expect("checked above");
        let fetch_offset = replica.leo;
        // `Replica.updateFetchStateOrThrow`.
        if fetch_offset >= leader_leo {
            replica.last_caught_up_tick = replica.last_caught_up_tick.max(now_tick);
        } else if replica.last_fetch_leader_leo.is_none_or(|l| fetch_offset >= l) {
            replica.last_caught_up_tick = replica.last_caught_up_tick.max(replica.last_fetch_tick);
        }
        replica.last_fetch_leader_leo =
            Some(replica.last_fetch_leader_leo.map_or(leader_leo, |l| l.max(leader_leo)));
        replica.last_fetch_tick = now_tick;
        let moved = replica.fetch_offset != Some(fetch_offset);
        replica.fetch_offset = Some(fetch_offset);
        self.maybe_expand_isr(p, broker, now_tick);
        if moved {
            self.maybe_increment_high_watermark(p, now_tick);
        }
        // The response carries the records from the fetch offset on.
        let part = &mut self.partitions[p];
        let copied = part.fetch_size(fetch_offset, max_records);
        let replica = part.replica_mut(broker).expect("checked above");
        replica.leo += copied;
        part.prune_acknowledged();
        self.complete_pending(now_tick);
        self.check();
        copied
    }

    /// The broker's process stops at `now_tick`: it stops fetching and
    /// answering at once; the controller fences it when its session runs out.
    pub(crate) fn handle_crash(&mut self, broker: BrokerId, now_tick: u64) {
        if !self.valid_broker(broker) || !self.broker(broker).alive {
            return;
        }
        let timeout = self.config.broker_session_timeout_ticks;
        let state = self.broker_mut(broker);
        state.alive = false;
        if !state.fenced && state.fence_at_tick.is_none() {
            state.fence_at_tick = Some(now_tick + timeout);
        }
        // Produces waiting on its partitions lose their connection.
        let led: Vec<u32> = (0..self.config.partitions).filter(|&p| self.leader(p) == Some(broker)).collect();
        self.fail_pending(|a| led.contains(&a.partition), ProduceError::NetworkException);
        if timeout == 0 {
            self.fence(broker, now_tick);
        }
        self.check();
    }

    /// The broker's process starts again at `now_tick`. It registers (an
    /// unclean shutdown, see the module documentation) and is unfenced — once
    /// the controller has fenced its previous incarnation.
    pub(crate) fn handle_restart(&mut self, broker: BrokerId, now_tick: u64) {
        if !self.valid_broker(broker) || self.broker(broker).alive {
            return;
        }
        self.broker_mut(broker).alive = true;
        if self.broker(broker).fenced {
            self.register(broker, now_tick);
        }
        self.check();
    }

    // ---- controller ----

    /// `handleBrokerFenced`: the broker leaves every ISR, with elections where it led.
    fn fence(&mut self, broker: BrokerId, now_tick: u64) {
        let state = self.broker_mut(broker);
        state.fence_at_tick = None;
        state.fenced = true;
        self.emit(ReplicationEvent::Fenced { broker });
        for p in 0..self.partitions.len() {
            if self.partitions[p].isr.contains(&broker) {
                let target = self.partitions[p].isr.iter().copied().filter(|&b| b != broker).collect();
                self.change(p, target, Subject { remove: Some(broker), ..Subject::default() }, now_tick);
            }
        }
        // A restart that waited for the old session registers now.
        if self.broker(broker).alive {
            self.register(broker, now_tick);
        }
    }

    /// `registerBroker` of a new incarnation (`handleBrokerShutdown` with an
    /// unclean shutdown), then `handleBrokerUnfenced`.
    fn register(&mut self, broker: BrokerId, now_tick: u64) {
        let elr = self.config.eligible_leader_replicas;
        for in_elr in [false, true] {
            if in_elr && !elr {
                break;
            }
            for p in 0..self.partitions.len() {
                let part = &self.partitions[p];
                let member = if in_elr { part.elr.contains(&broker) } else { part.isr.contains(&broker) };
                if !member {
                    continue;
                }
                let target = part.isr.iter().copied().filter(|&b| b != broker).collect();
                // With ELR the broker is an unclean-shutdown replica (out of
                // ISR and ELR); without, it is handled as fenced.
                let subject = if elr {
                    Subject { unclean_shutdown: Some(broker), ..Subject::default() }
                } else {
                    Subject { remove: Some(broker), ..Subject::default() }
                };
                self.change(p, target, subject, now_tick);
            }
        }
        self.broker_mut(broker).fenced = false;
        self.emit(ReplicationEvent::Unfenced { broker });
        for p in 0..self.partitions.len() {
            if self.partitions[p].leader.is_none() {
                let target = self.partitions[p].isr.clone();
                self.change(p, target, Subject { add: Some(broker), ..Subject::default() }, now_tick);
            }
        }
    }

    /// `PartitionChangeBuilder.build` for an ONLINE election (UNCLEAN when the
    /// topic allows it), with the ISR set to `target_isr`, then the record
    /// applied (`PartitionRegistration.merge`) and the leader's side of it.
    fn change(&mut self, p: usize, mut target_isr: Vec<BrokerId>, subject: Subject, now_tick: u64) {
        let elr_on = self.config.eligible_leader_replicas;
        let min_isr = self.config.min_insync_replicas as usize;
        // `isAcceptableLeader`: not the broker being removed, and active (or being added).
        let active: Vec<bool> = (1..=self.config.brokers).map(|b| !self.broker(b).fenced).collect();
        let acceptable = |r: BrokerId| {
            Some(r) != subject.remove
                && Some(r) != subject.unclean_shutdown
                && (Some(r) == subject.add || active[(r - 1) as usize])
        };
        let part = &self.partitions[p];
        let old_leader = part.leader;
        let old_isr = part.isr.clone();
        let old_elr = part.elr.clone();
        let old_last_known = part.last_known_elr.clone();
        let replicas: Vec<BrokerId> = part.replicas.iter().map(|r| r.broker).collect();

        // `maybePopulateTargetElr`: below min ISR, the ELR gains the ISR members
        // that leave it (except an unclean-shutdown replica); at or above, it empties.
        let mut target_elr = old_elr.clone();
        if elr_on {
            if target_isr.len() >= min_isr {
                target_elr.clear();
            } else {
                let mut candidates: Vec<BrokerId> = old_elr.iter().chain(&old_isr).copied().collect();
                candidates.retain(|r| !target_isr.contains(r) && Some(*r) != subject.unclean_shutdown);
                // Kafka collects a `HashSet<Integer>`: ids below 16 come out ascending.
                crate::order::sort_ids(&mut candidates);
                candidates.dedup();
                target_elr = candidates;
            }
        }

        // `electAnyLeader`: the current leader if still valid, then the first
        // valid replica in assignment order (ISR, or ELR when the ISR is
        // empty), then the last known leader, then (unclean) any live replica.
        let valid = |r: BrokerId| {
            (target_isr.contains(&r) || (target_isr.is_empty() && target_elr.contains(&r))) && acceptable(r)
        };
        let (elected, unclean, last_known) = if old_leader.is_some_and(valid) {
            (old_leader, false, false)
        } else if let Some(&r) = replicas.iter().find(|&&r| valid(r)) {
            (Some(r), false, false)
        } else if elr_on
            && target_isr.is_empty()
            && target_elr.is_empty()
            && old_last_known.len() == 1
            && acceptable(old_last_known[0])
        {
            // KAFKA-19522 (4.1): only an unfenced last known leader.
            (Some(old_last_known[0]), true, true)
        } else if let Some(&r) =
            replicas.iter().find(|&&r| self.config.unclean_leader_election && acceptable(r))
        {
            (Some(r), true, false)
        } else {
            (None, false, false)
        };

        // `tryElection`.
        let mut new_leader = None; // `None`: no leader change in the record.
        let mut record_isr: Option<Vec<BrokerId>> = None;
        let mut kind = ElectionKind::Offline;
        if elected != old_leader {
            kind = match elected {
                None => ElectionKind::Offline,
                Some(_) if last_known => ElectionKind::LastKnownLeader,
                Some(_) if unclean => ElectionKind::Unclean,
                Some(n) if target_elr.contains(&n) => ElectionKind::Elr,
                Some(_) => ElectionKind::Clean,
            };
            if let Some(n) = elected
                && target_elr.contains(&n)
            {
                target_isr = vec![n];
                target_elr.retain(|&r| r != n);
            }
            new_leader = Some(elected);
            if unclean {
                // "we have to forcibly set the ISR to just the new leader".
                record_isr = Some(vec![elected.expect("an unclean election elects")]);
            }
        }

        // `maybeUpdateRecordElr`: an unclean election (or ELR off) empties the ELR.
        if record_isr.is_some() || !elr_on {
            target_elr.clear();
        }
        // The ISR: an empty one is written only with ELR on.
        if record_isr.is_none() && (!target_isr.is_empty() || elr_on) && target_isr != old_isr {
            record_isr = Some(target_isr);
        }
        // `maybeUpdateLastKnownLeader` (`useLastKnownLeaderInBalancedRecovery` is
        // on outside Kafka's tests): the leader when the ISR first empties;
        // cleared once there is a leader again.
        let mut new_last_known = old_last_known.clone();
        if elr_on {
            let isr_emptied = record_isr.as_ref().is_some_and(|isr| isr.is_empty());
            if isr_emptied && (old_last_known.len() != 1 || Some(old_last_known[0]) != old_leader) {
                // Kafka would write [-1] for a leaderless partition; the ISR only
                // empties here with a leader (fencing or an unclean shutdown of it).
                new_last_known = old_leader.into_iter().collect();
            } else if (matches!(new_leader, Some(Some(_)))
                || (old_leader.is_some() && new_leader != Some(None)))
                && !old_last_known.is_empty()
            {
                new_last_known.clear();
            }
        }

        let isr_changed = record_isr.as_ref().is_some_and(|isr| *isr != old_isr);
        if new_leader.is_none() && !isr_changed && target_elr == old_elr && new_last_known == old_last_known {
            return; // `changeRecordIsNoOp`
        }
        let part = &mut self.partitions[p];
        part.partition_epoch += 1;
        if let Some(isr) = record_isr {
            part.isr = isr;
        }
        part.elr = target_elr;
        part.last_known_elr = new_last_known;
        match new_leader {
            Some(leader) => {
                part.leader_epoch += 1;
                part.leader = leader;
                self.take_over(p, kind, now_tick);
            }
            None => {
                let event = ReplicationEvent::IsrChanged {
                    partition: p as u32,
                    isr: part.isr.clone(),
                    elr: part.elr.clone(),
                    partition_epoch: part.partition_epoch,
                };
                self.emit(event);
                // A smaller ISR may let the HW move (or complete acks=all produces).
                self.maybe_increment_high_watermark(p, now_tick);
            }
        }
        self.complete_pending(now_tick);
    }

    /// The new leader's side of a leader change (`makeLeader`; the others'
    /// `makeFollower` with the leader-epoch truncation).
    fn take_over(&mut self, p: usize, kind: ElectionKind, now_tick: u64) {
        let partition = p as u32;
        // Produces waiting on the old leader are answered NOT_LEADER_OR_FOLLOWER.
        self.fail_pending(|a| a.partition == partition, ProduceError::NotLeaderOrFollower { leader: None });
        let part = &mut self.partitions[p];
        let mut election = Election {
            partition,
            leader: part.leader,
            leader_epoch: part.leader_epoch,
            kind,
            truncate_to: None,
            lost: 0,
            lost_below_high_watermark: 0,
            lost_acknowledged: 0,
        };
        if let Some(leader) = part.leader {
            let new_leo = part.replica(leader).expect("the leader is a replica").leo;
            let log_end = part.log_end();
            if new_leo < log_end {
                election.truncate_to = Some(new_leo);
                election.lost = log_end - new_leo;
                election.lost_below_high_watermark = part.high_watermark.saturating_sub(new_leo);
                election.lost_acknowledged = part.cut_acknowledged(new_leo);
                part.high_watermark = part.high_watermark.min(new_leo);
            }
            part.leader_epoch_start_offset = new_leo;
            let kept = part.batch_ends.partition_point(|&end| end <= new_leo);
            part.batch_ends.truncate(kept);
            let isr = part.isr.clone();
            for replica in &mut part.replicas {
                replica.leo = replica.leo.min(new_leo);
                if replica.broker != leader {
                    // `resetReplicaState` for a new leader.
                    replica.fetch_offset = None;
                    replica.last_fetch_leader_leo = None;
                    replica.last_fetch_tick = 0;
                    replica.last_caught_up_tick = if isr.contains(&replica.broker) { now_tick } else { 0 };
                }
            }
            part.prune_acknowledged();
        }
        self.emit(ReplicationEvent::Elected(election));
        if self.partitions[p].leader.is_some() {
            self.maybe_increment_high_watermark(p, now_tick);
        }
    }

    // ---- the leader ----

    /// `Replica.isCaughtUp`, as the leader sees the follower.
    fn is_caught_up(&self, replica: &Replica, leader_leo: u64, now_tick: u64) -> bool {
        replica.fetch_offset == Some(leader_leo)
            || now_tick.saturating_sub(replica.last_caught_up_tick) <= self.config.replica_lag_time_max_ticks
    }

    /// `isReplicaIsrEligible` (KRaft): not fenced, not shutting down, this incarnation.
    fn isr_eligible(&self, broker: BrokerId) -> bool {
        self.broker(broker).serving()
    }

    /// `maybeIncrementLeaderHW`: never under min ISR (the "strict min ISR" of
    /// KIP-966, applied whether or not ELR is on); otherwise the smallest
    /// fetch offset among the ISR and the caught-up eligible followers.
    fn maybe_increment_high_watermark(&mut self, p: usize, now_tick: u64) {
        let part = &self.partitions[p];
        let Some(leader) = part.leader else { return };
        if part.isr.len() < self.config.min_insync_replicas as usize {
            return;
        }
        let leader_leo = part.replica(leader).expect("the leader is a replica").leo;
        let mut candidate = Some(leader_leo);
        for replica in part.replicas.iter().filter(|r| r.broker != leader) {
            let counts = part.isr.contains(&replica.broker)
                || (self.is_caught_up(replica, leader_leo, now_tick) && self.isr_eligible(replica.broker));
            // An unknown fetch offset (-1 in Kafka) holds the HW where it is.
            let below = match (replica.fetch_offset, candidate) {
                (None, _) => true,
                (Some(f), Some(c)) => f < c,
                (Some(_), None) => false,
            };
            if counts && below {
                candidate = replica.fetch_offset;
            }
        }
        if let Some(new_hw) = candidate
            && new_hw > part.high_watermark
        {
            self.partitions[p].high_watermark = new_hw;
            self.emit(ReplicationEvent::HighWatermark { partition: p as u32, high_watermark: new_hw });
        }
    }

    /// `maybeExpandIsr`: a follower joins once its fetch offset reaches the HW
    /// and the leader's epoch start offset (`isFollowerInSync`).
    fn maybe_expand_isr(&mut self, p: usize, broker: BrokerId, now_tick: u64) {
        let part = &self.partitions[p];
        if part.isr.contains(&broker) || !self.isr_eligible(broker) {
            return;
        }
        let fetch_offset = part.replica(broker).and_then(|r| r.fetch_offset);
        if fetch_offset.is_some_and(|f| f >= part.high_watermark && f >= part.leader_epoch_start_offset) {
            // The leader sends its ISR as a Scala `HashSet`: ascending ids.
            let mut target = part.isr.clone();
            target.push(broker);
            crate::order::sort_ids(&mut target);
            self.change(p, target, Subject::default(), now_tick);
        }
    }

    /// `maybeShrinkIsr`: followers not caught up within the lag time leave.
    fn maybe_shrink_isr(&mut self, p: usize, now_tick: u64) {
        let part = &self.partitions[p];
        let Some(leader) = part.leader else { return };
        if !self.broker(leader).serving() {
            return;
        }
        let leader_leo = part.replica(leader).expect("the leader is a replica").leo;
        let out: Vec<BrokerId> = part
            .isr
            .iter()
            .copied()
            .filter(|&b| b != leader)
            .filter(|&b| part.replica(b).is_none_or(|r| !self.is_caught_up(r, leader_leo, now_tick)))
            .collect();
        if out.is_empty() {
            return;
        }
        let mut target: Vec<BrokerId> = part.isr.iter().copied().filter(|b| !out.contains(b)).collect();
        crate::order::sort_ids(&mut target);
        self.change(p, target, Subject::default(), now_tick);
    }

    /// `DelayedProduce.tryComplete` for every waiting acks=all produce, and
    /// the request timeout.
    fn complete_pending(&mut self, now_tick: u64) {
        let min_isr = self.config.min_insync_replicas as usize;
        let mut waiting = VecDeque::with_capacity(self.pending.len());
        let mut done = Vec::new();
        for ack in std::mem::take(&mut self.pending) {
            let part = &self.partitions[ack.partition as usize];
            let leading = part.leader_epoch == ack.leader_epoch
                && part.leader.is_some_and(|l| self.broker(l).serving());
            // `checkEnoughReplicasReachOffset`.
            let result = if !leading {
                Some(Err(ProduceError::NotLeaderOrFollower { leader: None }))
            } else if part.high_watermark >= ack.end_offset {
                Some(if part.isr.len() >= min_isr {
                    Ok(())
                } else {
                    Err(ProduceError::NotEnoughReplicasAfterAppend)
                })
            } else if now_tick >= ack.deadline_tick {
                Some(Err(ProduceError::RequestTimedOut))
            } else {
                None
            };
            match result {
                Some(result) => done.push((ack, result)),
                None => waiting.push_back(ack),
            }
        }
        self.pending = waiting;
        for (ack, result) in done {
            self.answer(ack, result);
        }
    }

    fn fail_pending(&mut self, which: impl Fn(&PendingAck) -> bool, error: ProduceError) {
        let (failed, kept): (Vec<PendingAck>, Vec<PendingAck>) =
            self.pending.drain(..).partition(|a| which(a));
        self.pending = kept.into();
        for ack in failed {
            self.answer(ack, Err(error));
        }
    }

    fn answer(&mut self, ack: PendingAck, result: Result<(), ProduceError>) {
        if result.is_ok() {
            self.partitions[ack.partition as usize].acknowledge(ack.base_offset, ack.end_offset);
        }
        self.emit(ReplicationEvent::Acked(AckOutcome {
            partition: ack.partition,
            base_offset: ack.base_offset,
            end_offset: ack.end_offset,
            result,
        }));
    }

    /// The invariants, asserted (the tests call it after every step).
    pub(crate) fn check(&self) {
        if !cfg!(debug_assertions) {
            return; // the whole-state sweep: debug builds and tests (ARCHITECTURE.md)
        }
        let min_isr = self.config.min_insync_replicas as usize;
        for (p, part) in self.partitions.iter().enumerate() {
            let replicas: Vec<BrokerId> = part.replicas.iter().map(|r| r.broker).collect();
            assert_eq!(
                replicas.len(),
                self.config.replication_factor as usize,
                "P{p}: the assignment is fixed"
            );
            for set in [&part.isr, &part.elr, &part.last_known_elr] {
                assert!(
                    set.iter().all(|b| replicas.contains(b)),
                    "P{p}: ISR, ELR, last known ELR ⊆ replicas"
                );
                let mut sorted = set.clone();
                crate::order::sort_ids(&mut sorted);
                sorted.dedup();
                assert_eq!(sorted.len(), set.len(), "P{p}: no broker twice");
            }
            assert!(part.elr.iter().all(|b| !part.isr.contains(b)), "P{p}: ELR ∩ ISR = ∅");
            if !self.config.eligible_leader_replicas {
                assert!(
                    part.elr.is_empty() && part.last_known_elr.is_empty(),
                    "P{p}: no ELR without the feature"
                );
                assert!(!part.isr.is_empty(), "P{p}: without ELR the ISR keeps its last member");
            }
            assert!(part.elr.is_empty() || part.isr.len() < min_isr, "P{p}: an ELR only below min ISR");
            assert!(part.last_known_elr.len() <= 1, "P{p}: the last known ELR holds the last leader");
            if let Some(leader) = part.leader {
                // A clean election takes an ISR member; ELR, last-known and
                // unclean elections set the ISR to the new leader.
                assert!(part.isr.contains(&leader), "P{p}: the leader is in the ISR");
                let leader_leo = part.replica(leader).expect("leader is a replica").leo;
                assert_eq!(leader_leo, part.log_end(), "P{p}: LEOs ≤ the leader's LEO");
            } else if self.config.eligible_leader_replicas {
                assert!(part.isr.is_empty(), "P{p}: with ELR a leaderless partition has an empty ISR");
            }
            for b in &part.isr {
                let r = part.replica(*b).expect("ISR ⊆ replicas");
                assert!(part.high_watermark <= r.leo, "P{p}: HW ≤ every ISR member's LEO");
            }
            for r in &part.replicas {
                assert!(
                    r.fetch_offset.is_none_or(|f| f <= r.leo),
                    "P{p}: the leader knows no more than the follower has"
                );
            }
            assert!(part.leader_epoch <= part.partition_epoch, "P{p}: a leader change is a partition change");
            assert!(
                part.acked.iter().zip(part.acked.iter().skip(1)).all(|(a, b)| a.0 < a.1 && a.1 < b.0),
                "P{p}: acknowledged runs are disjoint, apart and in order"
            );
            if let Some(&(_, end)) = part.acked.back() {
                assert!(end <= part.log_end(), "P{p}: acknowledged offsets are in the log");
            }
            assert!(part.batch_ends.len() <= BATCH_ENDS_MAX, "P{p}: batch ends are bounded");
            assert!(
                part.batch_ends.iter().zip(part.batch_ends.iter().skip(1)).all(|(a, b)| a < b),
                "P{p}: batch ends increase"
            );
            assert!(
                part.batch_ends.back().is_none_or(|&end| end == part.log_end()),
                "P{p}: the log ends a batch"
            );
            if part.batch_ends.len() < BATCH_ENDS_MAX {
                let first_end = part.batch_ends.front().copied().unwrap_or(u64::MAX);
                for r in &part.replicas {
                    assert!(
                        r.leo < first_end || part.batch_ends.binary_search(&r.leo).is_ok(),
                        "P{p}: broker {}'s log ends a batch",
                        r.broker
                    );
                }
            }
        }
        for b in &self.brokers {
            assert!(b.fence_at_tick.is_none() || !b.fenced, "a fenced broker awaits no fencing");
        }
        assert!(self.pending.len() <= PENDING_ACKS_MAX && self.events.len() <= EVENTS_QUEUED_MAX);
    }
}

#[cfg(test)]
mod tests;
