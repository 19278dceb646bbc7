//! What happened: one event per change, for the page to animate and tests to
//! assert on. Every event also feeds the trace hash.

use crate::input::{ConsumerId, ResetSpec};
use serde::Serialize;

pub type Tick = u64;

/// Why a rebalance began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RebalanceReason {
    MemberJoined,
    MemberLeft,
    SessionExpired,
    PartitionsAdded,
    /// Cooperative: a member revoked partitions and rejoins to hand them on.
    PartitionsRevoked,
    /// Consumer protocol: a member held on to partitions past its rebalance timeout.
    RebalanceTimeout,
}

/// A partition that changed owner in a rebalance (`None`: no owner).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PartitionMove {
    pub partition: u32,
    pub from: Option<ConsumerId>,
    pub to: Option<ConsumerId>,
}

/// [`Event::Reconciled`]: a heartbeat moved a consumer-protocol member on:
/// its epoch, its state (`STABLE`, `UNREVOKED_PARTITIONS`,
/// `UNRELEASED_PARTITIONS`), and the partitions the coordinator now has it hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reconciled {
    pub tick: Tick,
    pub consumer: ConsumerId,
    pub member_epoch: i32,
    pub state: &'static str,
    pub assignment: Vec<u32>,
    /// Partitions it must revoke before it moves on.
    pub revoking: Vec<u32>,
}

/// [`Event::StaticMemberReplaced`]: a static member's new incarnation took
/// its place without a rebalance and kept its partitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StaticMemberReplaced {
    pub tick: Tick,
    pub group: u32,
    pub consumer: ConsumerId,
    pub instance_id: String,
    pub member_id: String,
    pub assignment: Vec<u32>,
}

/// [`Event::Acknowledged`]: share group acknowledgements of one kind
/// (`accept`, `release`, `reject`) the broker took; `archived` are those it
/// archived (a release at the delivery count limit, a reject).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Acknowledged {
    pub tick: Tick,
    pub consumer: ConsumerId,
    pub partition: u32,
    pub kind: &'static str,
    pub offsets: Vec<u64>,
    pub archived: Vec<u64>,
}

/// [`Event::LeaderElected`]: a partition's leader changed: `kind` is clean,
/// elr, last-known-leader, unclean or offline; the log was cut back to
/// `truncated_to`, losing `lost` records, `lost_acknowledged` of them acknowledged.
#[cfg(feature = "cluster")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaderElected {
    pub tick: Tick,
    pub partition: u32,
    pub leader: Option<u32>,
    pub leader_epoch: u32,
    pub kind: &'static str,
    pub truncated_to: Option<u64>,
    pub lost: u64,
    pub lost_acknowledged: u64,
}

/// One change in the simulation. `tick` is when it happened.
///
/// An event is at most 64 bytes (a test checks it): one goes through the
/// queue for each record produced and each record handled, and a byte more
/// is copied millions of times. A rare variant whose fields would pass that
/// holds them in a box (`Reconciled`, `StaticMemberReplaced`, `Acknowledged`,
/// `LeaderElected`; the JSON is the same), and a few lists are boxed slices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    Produced {
        tick: Tick,
        partition: u32,
        offset: u64,
        record_id: u64,
        subject: u32,
        keyed: bool,
        /// Every handler fails on it.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        poison: bool,
        /// Every handler fails at its first attempts (`send-failing`).
        #[serde(skip_serializing_if = "is_zero")]
        fails_first: u8,
        /// Each failing attempt makes its payout before it fails.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        after_effect: bool,
    },
    /// `poll()` returned records `from..to` of `partition`.
    Fetched {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        from: u64,
        to: u64,
    },
    Handled {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        record_id: u64,
        duplicate: bool,
        out_of_key_order: bool,
        /// The application's effect took place (false when the idempotent
        /// application dropped a duplicate).
        effect: bool,
    },
    /// A commit request: the offsets it wrote (partition, next offset to read).
    Committed {
        tick: Tick,
        consumer: ConsumerId,
        offsets: Vec<(u32, u64)>,
    },
    /// `commitSync()` threw `RebalanceInProgressException`: the member had sent
    /// its JoinGroup and the rebalance was still in progress, so no request
    /// went out and these offsets stay uncommitted.
    CommitRefused {
        tick: Tick,
        consumer: ConsumerId,
        offsets: Vec<(u32, u64)>,
    },
    /// The member's poll timer ran out (`max.poll.interval.ms`: more than
    /// that since its loop last called `poll()`, while it works through a
    /// batch), so its client left the group by itself: the classic heartbeat
    /// thread's LeaveGroup (a static member sends none and is removed when
    /// its session runs out), the KIP-848 client's leave heartbeat.
    MemberLeft {
        tick: Tick,
        consumer: ConsumerId,
        member_id: String,
        /// Kafka's words: "consumer poll timeout has expired".
        reason: &'static str,
        since_poll_ticks: u64,
    },
    /// `commitSync()` threw `CommitFailedException` (an auto-commit's failure
    /// is logged): the member is no longer part of an active group, so these
    /// offsets were not written and another member reads them again.
    CommitFailed {
        tick: Tick,
        consumer: ConsumerId,
        offsets: Vec<(u32, u64)>,
        /// Kafka's words for why.
        reason: &'static str,
    },
    /// A member that left on its own joins again at its next poll, as a new
    /// member: the partitions it held are lost (`onPartitionsLost`), its
    /// positions with them.
    Rejoined {
        tick: Tick,
        consumer: ConsumerId,
        member_id: String,
        lost: Box<[u32]>,
    },
    /// `offsets.retention`: the group had no members for that long, and its
    /// committed offsets were deleted; a member that starts again has none.
    OffsetsExpired {
        tick: Tick,
        group: u32,
        offsets: Vec<(u32, u64)>,
    },
    /// The empty group had no committed offset left after `offsets.retention`,
    /// and the coordinator deleted it (Kafka's `cleanupGroupMetadata`): the
    /// next consumer that starts creates it anew, at generation 1.
    GroupDeleted {
        tick: Tick,
        group: u32,
    },
    /// A consumer starts a partition its group has no committed offset for:
    /// `auto.offset.reset` (`policy`) puts it at `to`; `skipped` records
    /// before it, never handled by the group, it will never read.
    ResetPosition {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        policy: &'static str,
        to: u64,
        skipped: u64,
    },
    /// `auto.offset.reset=none` and no position to start from: `poll()`
    /// threw (`NoOffsetForPartitionException` without a committed offset,
    /// `OffsetOutOfRangeException` when retention deleted the position), and
    /// the application died with it.
    NoOffset {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        error: &'static str,
    },
    /// The consumer's position fell below the log start (retention) and
    /// `auto.offset.reset` moved it (to the log start for `earliest`).
    PositionReset {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        from: u64,
        to: u64,
    },
    Paused {
        tick: Tick,
        consumer: ConsumerId,
    },
    Resumed {
        tick: Tick,
        consumer: ConsumerId,
    },
    /// The in-flight batch is gone: `abandoned` records were fetched but not handled.
    Crashed {
        tick: Tick,
        consumer: ConsumerId,
        member_id: String,
        abandoned: u32,
    },
    Stopping {
        tick: Tick,
        consumer: ConsumerId,
    },
    /// A stopping consumer ran out of shutdown time with records unhandled.
    ShutdownDeadlinePassed {
        tick: Tick,
        consumer: ConsumerId,
        abandoned: u32,
    },
    Left {
        tick: Tick,
        consumer: ConsumerId,
        member_id: String,
    },
    Started {
        tick: Tick,
        consumer: ConsumerId,
        member_id: String,
    },
    Removed {
        tick: Tick,
        consumer: ConsumerId,
    },
    SessionExpired {
        tick: Tick,
        consumer: ConsumerId,
        member_id: String,
    },
    RebalanceStarted {
        tick: Tick,
        /// The group (index in the config's groups).
        group: u32,
        reason: RebalanceReason,
    },
    /// A new generation and who owns what (client ids, partitions ascending).
    RebalanceCompleted {
        tick: Tick,
        group: u32,
        generation: u32,
        assignment: Vec<(ConsumerId, Vec<u32>)>,
        /// Partitions whose owner changed from the previous generation.
        moved: Box<[PartitionMove]>,
    },
    OffsetsReset {
        tick: Tick,
        group: u32,
        reset: ResetSpec,
        offsets: Vec<(u32, u64)>,
    },
    /// Retention deleted records; `lost` of them were never handled by `group`
    /// (one event per group).
    RetentionDeleted {
        tick: Tick,
        group: u32,
        partition: u32,
        new_log_start: u64,
        lost: u32,
    },
    /// A consumer's own offset store now holds these positions.
    Checkpointed {
        tick: Tick,
        consumer: ConsumerId,
        positions: Vec<(u32, u64)>,
    },
    /// A crash during an in-place write left a prefix of the new position.
    CheckpointTorn {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        intended: u64,
        stored: u64,
    },
    /// A crash during an atomic write: the temp file is left behind, the old position stands.
    CheckpointAbandoned {
        tick: Tick,
        consumer: ConsumerId,
    },
    /// A consumer read its offset store and resumes `partition` from `offset`
    /// (`resumedFrom`); `last_known` is how far the partition had been handled.
    ResumedFrom {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        last_known: u64,
    },
    /// The answer to a keyless peek (`partitionFor(null)` when `advanced`).
    Peeked {
        tick: Tick,
        partition: u32,
        advanced: bool,
    },
    /// An application wrote a handled record to the bridge target topic, without its key.
    Bridged {
        tick: Tick,
        partition: u32,
        target_offset: u64,
        record_id: u64,
    },
    /// The topic grew; `moved_keys` keys now map to another partition.
    PartitionsAdded {
        tick: Tick,
        from: u32,
        to: u32,
        moved_keys: u32,
    },
    /// The armed fault fired: the consumer dies between its effects and its commit.
    KilledBeforeCommit {
        tick: Tick,
        consumer: ConsumerId,
    },
    SettingChanged {
        tick: Tick,
        /// The group whose setting changed; `None` for the producer's.
        group: Option<u32>,
        setting: &'static str,
        value: String,
    },
    /// Consumer protocol: membership or the topic changed, so the group epoch
    /// moved on and the target assignment will be computed again.
    GroupEpochBumped {
        tick: Tick,
        group: u32,
        group_epoch: u32,
        reason: RebalanceReason,
    },
    /// Consumer protocol: the coordinator's assignor computed the target
    /// assignment for `target_epoch` (client ids, partitions ascending).
    TargetAssignment {
        tick: Tick,
        group: u32,
        target_epoch: u32,
        target: Vec<(ConsumerId, Vec<u32>)>,
    },
    /// Consumer protocol: a heartbeat moved the member on.
    Reconciled(Box<Reconciled>),
    /// The coordinator refused the member: `FENCED_INSTANCE_ID` (a newer
    /// incarnation took its static place) and `UNRELEASED_INSTANCE_ID` (its
    /// instance id is held by a member that has not left) end the consumer;
    /// `UNKNOWN_MEMBER_ID` (fenced after a timeout) makes it drop its
    /// partitions and join again.
    Fenced {
        tick: Tick,
        consumer: ConsumerId,
        member_id: String,
        error: &'static str,
    },
    /// A static member's new incarnation took its place without a rebalance
    /// and kept its partitions.
    StaticMemberReplaced(Box<StaticMemberReplaced>),
    /// Share group: a `poll()` acquired these records of `partition`
    /// (offset, delivery count), each under an acquisition lock.
    Acquired {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        records: Vec<(u64, u8)>,
    },
    /// Share group: acknowledgements of one kind the broker took.
    Acknowledged(Box<Acknowledged>),
    /// Share group: an acknowledgement refused with `INVALID_RECORD_STATE`:
    /// the member no longer holds the record (its lock expired).
    AcknowledgeRefused {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
    },
    /// Share group: a record's acquisition lock ran out; the record is
    /// available again, or archived after its last allowed delivery.
    LockExpired {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        archived: bool,
    },
    /// Share group: the member left or its process died, and the broker gave
    /// back what it held (`archived`: those past the delivery count limit).
    Released {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offsets: Vec<u64>,
        archived: Box<[u64]>,
    },
    /// The application's handler failed on a (poison) record.
    HandlerFailed {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        record_id: u64,
        /// The record's failed attempts in this group, this one included.
        attempt: u32,
        /// It made its payout before it threw.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        after_effect: bool,
    },
    /// Issue 40, `skip`: the application logs the failure and moves past the record.
    FailedRecordSkipped {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        record_id: u64,
    },
    /// The application tries the record again in place at `next_tick`
    /// (retry-forever, or retry-then-dead-letter's retries): its partition waits.
    RetryingInPlace {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        attempt: u32,
        next_tick: Tick,
    },
    /// The record went to `orders.DLT` (partition `partition`, offset `dlt_offset`).
    DeadLettered {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        record_id: u64,
        dlt_offset: u64,
        attempts: u32,
    },
    /// The record went to `orders-retry-<level>`, handled again at `due_tick`.
    SentToRetryTopic {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        record_id: u64,
        level: u32,
        retry_offset: u64,
        due_tick: Tick,
    },
    /// `fix-handler`: group `group`'s handler succeeds from now on.
    HandlerFixed {
        tick: Tick,
        group: u32,
    },
    /// `replay-dead-letters`: group `group`'s replay job starts at the DLT's start.
    ReplayStarted {
        tick: Tick,
        group: u32,
    },
    /// The replay job applied the dead letter at `orders.DLT` `partition`:`dlt_offset`
    /// (the original at `partition`:`source_offset`) under its effect key.
    Replayed {
        tick: Tick,
        group: u32,
        partition: u32,
        dlt_offset: u64,
        source_offset: u64,
        record_id: u64,
        /// The payout took place now (not dropped by the unique constraint).
        effect: bool,
        /// A failed attempt had made this payout already: paid twice.
        double_applied: bool,
    },
    /// The consumer's process froze (`stall`: a long GC pause, a stuck
    /// call): no heartbeats, no handling, until `until`.
    Stalled {
        tick: Tick,
        consumer: ConsumerId,
        until: Tick,
    },
    /// A stalled consumer runs again; `replaced`: its group no longer knows
    /// its member id (its session ran out, or a new instance took its place),
    /// which it learns only at its next request.
    Woke {
        tick: Tick,
        consumer: ConsumerId,
        replaced: bool,
    },
    #[cfg(feature = "transactions")]
    /// `initTransactions()`: the member's transactional producer has its
    /// producer id and a new epoch; an older instance with the same
    /// `transactional.id` is fenced.
    TxnInitialized {
        tick: Tick,
        consumer: ConsumerId,
        transactional_id: String,
        producer_id: u64,
        epoch: u32,
    },
    #[cfg(feature = "transactions")]
    /// `initTransactions()` failed (the coordinator's error): the member's
    /// application cannot write to payouts.
    TxnInitRefused {
        tick: Tick,
        consumer: ConsumerId,
        error: &'static str,
    },
    #[cfg(feature = "transactions")]
    /// The application wrote a record's result to payouts inside its transaction.
    PayoutWritten {
        tick: Tick,
        consumer: ConsumerId,
        partition: u32,
        offset: u64,
        record_id: u64,
    },
    #[cfg(feature = "transactions")]
    /// `commitTransaction()`: the results and the consumed offsets committed
    /// together; the producer's epoch is now `epoch` (transaction version 2).
    TxnCommitted {
        tick: Tick,
        consumer: ConsumerId,
        epoch: u32,
        offsets: Vec<(u32, u64)>,
    },
    #[cfg(feature = "transactions")]
    /// A transaction was aborted: by its application (`commit refused`), by
    /// the coordinator when a new instance initialised (`fenced`) or when
    /// its timeout passed (`timed out`).
    TxnAborted {
        tick: Tick,
        transactional_id: String,
        reason: &'static str,
    },
    #[cfg(feature = "transactions")]
    /// A COMMIT or ABORT control marker took `offset` of payouts' `partition`.
    MarkerWritten {
        tick: Tick,
        partition: u32,
        offset: u64,
        commit: bool,
    },
    #[cfg(feature = "transactions")]
    /// A write or offset commit of a fenced producer was refused (`error`:
    /// INVALID_PRODUCER_EPOCH, PRODUCER_FENCED); the application closes.
    WriteFenced {
        tick: Tick,
        consumer: ConsumerId,
        transactional_id: String,
        error: &'static str,
    },
    #[cfg(feature = "cluster")]
    /// A broker's process stopped (`crash-broker`).
    BrokerCrashed {
        tick: Tick,
        broker: u32,
    },
    #[cfg(feature = "cluster")]
    /// A broker's process started again (`restart-broker`).
    BrokerRestarted {
        tick: Tick,
        broker: u32,
    },
    #[cfg(feature = "cluster")]
    /// The controller fenced a broker whose session ran out.
    BrokerFenced {
        tick: Tick,
        broker: u32,
    },
    #[cfg(feature = "cluster")]
    /// A restarted broker registered and was unfenced.
    BrokerUnfenced {
        tick: Tick,
        broker: u32,
    },
    #[cfg(feature = "cluster")]
    /// A partition's leader changed.
    LeaderElected(Box<LeaderElected>),
    #[cfg(feature = "cluster")]
    /// The ISR (or ELR) changed without a leader change.
    IsrChanged {
        tick: Tick,
        partition: u32,
        isr: Vec<u32>,
        elr: Box<[u32]>,
    },
    #[cfg(feature = "cluster")]
    /// The producer sent a batch to the partition's leader.
    ProduceSent {
        tick: Tick,
        partition: u32,
        broker: u32,
        batch: u64,
        records: u32,
        attempt: u32,
    },
    #[cfg(feature = "cluster")]
    /// The leader's answer reached the producer (`error`: Kafka's name, or none).
    ProduceAnswered {
        tick: Tick,
        partition: u32,
        broker: u32,
        error: Option<&'static str>,
    },
    #[cfg(feature = "cluster")]
    /// A fault: the request, or its acknowledgement, was lost on the way.
    ProduceLost {
        tick: Tick,
        partition: u32,
        broker: u32,
        what: &'static str,
    },
    #[cfg(feature = "cluster")]
    /// `send()`'s callback: the batch is acknowledged.
    BatchAcknowledged {
        tick: Tick,
        partition: u32,
        batch: u64,
        records: u32,
    },
    #[cfg(feature = "cluster")]
    /// `send()`'s callback: the batch failed.
    BatchFailed {
        tick: Tick,
        partition: u32,
        batch: u64,
        records: u32,
        error: &'static str,
    },
}

/// A fast, platform-independent 64-bit hash of the event stream: the same
/// seed and inputs give the same value natively and in wasm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceHasher(u64);

impl Default for TraceHasher {
    fn default() -> Self {
        TraceHasher(0x6f66_6673_6574_6c61) // "offsetla"
    }
}

impl TraceHasher {
    #[inline]
    pub fn word(&mut self, w: u64) {
        // A multiply-xorshift mix; u64 on every target (never usize).
        self.0 = (self.0 ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 ^= self.0 >> 29;
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.word(b.len() as u64);
        for chunk in b.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.word(u64::from_le_bytes(buf));
        }
    }

    #[must_use]
    pub fn finish(self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn reset_words(reset: &ResetSpec) -> [u64; 3] {
    match *reset {
        ResetSpec::Earliest => [1, 0, 0],
        ResetSpec::Latest => [2, 0, 0],
        ResetSpec::Offset { partition, offset } => [3, partition.map_or(u64::MAX, u64::from), offset],
        ResetSpec::ShiftBy { by } => [4, by as u64, 0],
    }
}

impl Event {
    /// A sentence for the notable events (crashes, expiries, rebalances,
    /// resets, shutdowns): what a screen reader announces and a log prints.
    /// `None` for the steady traffic of records and commits.
    #[must_use]
    pub fn announcement(&self) -> Option<String> {
        Some(match self {
            Event::Crashed { consumer, abandoned, .. } => format!(
                "{consumer} crashed with {abandoned} record{} in flight; its partitions wait for the session timeout.",
                plural(*abandoned as u64)
            ),
            Event::Paused { consumer, .. } => {
                format!("{consumer} paused: it stays in the group and fetches nothing.")
            }
            Event::Resumed { consumer, .. } => format!("{consumer} resumed fetching."),
            Event::Stopping { consumer, .. } => {
                format!("{consumer} is stopping: it finishes its batch, commits and leaves.")
            }
            Event::ShutdownDeadlinePassed { consumer, abandoned, .. } => format!(
                "{consumer} ran out of shutdown time and abandoned {abandoned} record{}.",
                plural(*abandoned as u64)
            ),
            Event::CommitRefused { consumer, .. } => format!(
                "{consumer}'s commit was refused (RebalanceInProgressException): it is rejoining the \
                 rebalance, so what it handled stays uncommitted until its next commit."
            ),
            Event::Left { consumer, .. } => format!("{consumer} left the group."),
            Event::MemberLeft { consumer, since_poll_ticks, .. } => format!(
                "{consumer} left the group by itself: {since_poll_ticks} ticks since its last poll, more than \
                 max.poll.interval. It still finishes its batch, but it can no longer commit it."
            ),
            Event::CommitFailed { consumer, offsets, .. } => format!(
                "{consumer}'s commit failed (CommitFailedException: it is no longer part of an active group): \
                 {} not written, so the group reads what it handled there again.",
                offsets_text(offsets)
            ),
            Event::Rejoined { consumer, lost, .. } if lost.is_empty() => {
                format!("{consumer} joins the group again as a new member.")
            }
            Event::Rejoined { consumer, lost, .. } => format!(
                "{consumer} joins the group again as a new member; the partitions it held ({}) are lost, \
                 with their positions.",
                lost.iter().map(|p| format!("P{p}")).collect::<Vec<_>>().join(", ")
            ),
            Event::Started { consumer, .. } => format!("{consumer} started and is joining the group."),
            Event::Removed { consumer, .. } => format!("{consumer} was removed."),
            Event::SessionExpired { consumer, .. } => {
                format!("{consumer}'s session timed out; the coordinator removed it from the group.")
            }
            Event::RebalanceStarted { reason, .. } => format!(
                "Rebalance started ({}): members finish their batches and rejoin.",
                reason_text(*reason)
            ),
            Event::RebalanceCompleted { generation, assignment, .. } => {
                let owners: Vec<String> = assignment
                    .iter()
                    .map(|(c, parts)| {
                        if parts.is_empty() {
                            format!("{c} idle")
                        } else {
                            let list: Vec<String> = parts.iter().map(|p| format!("P{p}")).collect();
                            format!("{c} {}", list.join(" "))
                        }
                    })
                    .collect();
                if owners.is_empty() {
                    format!("Generation {generation}: the group is empty.")
                } else {
                    format!("Generation {generation}: {}.", owners.join(", "))
                }
            }
            Event::OffsetsReset { offsets, .. } => {
                let list: Vec<String> = offsets.iter().map(|(p, o)| format!("P{p} → {o}")).collect();
                format!("Committed offsets reset: {}.", list.join(", "))
            }
            Event::PositionReset { consumer, partition, from, to, .. } => format!(
                "{consumer}: offset {from} of P{partition} was deleted by retention; it jumps to {to} (auto.offset.reset)."
            ),
            Event::ResetPosition { consumer, partition, policy, to, skipped: 0, .. } => format!(
                "{consumer} starts P{partition} at {to}: the group has no committed offset for it (auto.offset.reset={policy})."
            ),
            Event::ResetPosition { consumer, partition, policy, to, skipped, .. } => format!(
                "{consumer} starts P{partition} at {to}: the group has no committed offset for it, and \
                 auto.offset.reset={policy} skips the {skipped} record{} before, which this group will never read.",
                plural(*skipped)
            ),
            Event::OffsetsExpired { offsets, .. } => format!(
                "The group's committed offsets expired ({}): it had no members for offsets.retention. A consumer \
                 that starts again has no committed offset, and auto.offset.reset decides where it begins.",
                offsets_text(offsets)
            ),
            Event::GroupDeleted { .. } => {
                "The group was empty and had no committed offset left, so the coordinator \
                 deleted it: a consumer that starts again creates it anew, at generation 1."
                    .to_string()
            }
            Event::NoOffset { consumer, partition, error, .. } => format!(
                "{consumer}'s poll() threw {error} for P{partition} (auto.offset.reset=none): its application stopped."
            ),
            Event::CheckpointTorn { consumer, partition, intended, stored, .. } => format!(
                "{consumer} crashed while writing its checkpoint in place: P{partition}'s file holds {stored} instead of {intended}."
            ),
            Event::CheckpointAbandoned { consumer, .. } => format!(
                "{consumer} crashed while writing its checkpoint to a temp file: the old position stands."
            ),
            Event::ResumedFrom { consumer, partition, offset, last_known, .. } => {
                if offset < last_known {
                    format!(
                        "{consumer} resumed P{partition} from {offset} (resumedFrom); it had handled up to {last_known}, so {} records replay.",
                        last_known - offset
                    )
                } else {
                    format!("{consumer} resumed P{partition} from {offset} (resumedFrom).")
                }
            }
            Event::PartitionsAdded { from, to, moved_keys, .. } => format!(
                "The topic grew from {from} to {to} partitions: {moved_keys} key{} now map to another partition; their old records stay where they are.",
                plural(u64::from(*moved_keys))
            ),
            Event::KilledBeforeCommit { consumer, .. } => format!(
                "{consumer} was killed after its effects were persisted and before it committed the offset."
            ),
            Event::Peeked { partition, advanced: true, .. } => format!(
                "partitionFor(null) answered P{partition} and advanced the round-robin counter: the next keyless send skips it."
            ),
            Event::Peeked { partition, advanced: false, .. } => {
                format!("A fixed peek answered P{partition}; the counter did not move.")
            }
            Event::GroupEpochBumped { group_epoch, reason, .. } => {
                format!("Group epoch {group_epoch} ({}).", reason_text(*reason))
            }
            Event::Fenced { consumer, error, .. } => format!("{consumer} was fenced ({error})."),
            Event::LockExpired { consumer, partition, offset, archived, .. } => {
                if *archived {
                    format!(
                        "The lock {consumer} held on P{partition}:{offset} expired after its last allowed delivery: archived."
                    )
                } else {
                    format!(
                        "The lock {consumer} held on P{partition}:{offset} expired: the record is available to the group again."
                    )
                }
            }
            Event::Acknowledged(ack) if !ack.archived.is_empty() => format!(
                "Archived P{}:{}: it reached the delivery count limit, nobody will get it again.",
                ack.partition, ack.archived[0]
            ),
            Event::AcknowledgeRefused { consumer, partition, offset, .. } => format!(
                "{consumer}'s acknowledgement of P{partition}:{offset} was refused (INVALID_RECORD_STATE): its lock had expired."
            ),
            Event::HandlerFailed { consumer, partition, offset, attempt: 1, .. } => {
                format!("{consumer}'s handler failed on P{partition}:{offset}.")
            }
            Event::HandlerFailed { consumer, partition, offset, attempt, .. } => {
                format!("{consumer}'s handler failed on P{partition}:{offset} again (attempt {attempt}).")
            }
            Event::FailedRecordSkipped { consumer, partition, offset, .. } => format!(
                "{consumer}'s application logged the failure and skipped P{partition}:{offset}: it is committed past, never processed."
            ),
            Event::RetryingInPlace { consumer, partition, offset, attempt, next_tick, .. } => format!(
                "{consumer} retries P{partition}:{offset} in place at tick {next_tick} (attempt {attempt} failed): P{partition} waits behind it."
            ),
            Event::DeadLettered { consumer, partition, offset, dlt_offset, attempts, .. } => format!(
                "{consumer} wrote P{partition}:{offset} to orders.DLT (P{partition}:{dlt_offset}) after {attempts} failed attempt{}, and moves past it.",
                plural(u64::from(*attempts))
            ),
            Event::SentToRetryTopic { consumer, partition, offset, level, due_tick, .. } => format!(
                "{consumer} wrote P{partition}:{offset} to orders-retry-{level}, to be handled again at tick {due_tick}; P{partition} flows on."
            ),
            Event::HandlerFixed { .. } => {
                "The handler is fixed: it succeeds on every record from now on.".into()
            }
            Event::ReplayStarted { .. } => "The replay job reads orders.DLT from its start.".into(),
            Event::Replayed { partition, source_offset, double_applied: true, .. } => format!(
                "The replay applied P{partition}:{source_offset} again: a failed attempt had paid it already, and the ledger has no unique constraint."
            ),
            Event::Replayed { .. } => return None,
            Event::Stalled { consumer, until, .. } => format!(
                "{consumer} froze until tick {until}: no heartbeats, no handling, and it does not know it."
            ),
            Event::Woke { consumer, replaced: true, .. } => format!(
                "{consumer} runs again, unaware that its group went on without it: it goes on with the batch it held."
            ),
            Event::Woke { consumer, replaced: false, .. } => format!("{consumer} runs again."),
            #[cfg(feature = "transactions")]
            Event::TxnInitialized { consumer, transactional_id, epoch, .. } => format!(
                "{consumer} initialised transactional.id {transactional_id} at epoch {epoch}: an older instance with that id is fenced."
            ),
            #[cfg(feature = "transactions")]
            Event::TxnInitRefused { consumer, error, .. } => {
                format!("{consumer}'s initTransactions() failed ({error}).")
            }
            #[cfg(feature = "transactions")]
            Event::TxnAborted { transactional_id, reason, .. } => {
                format!(
                    "The transaction of {transactional_id} was aborted ({reason}): its results will never reach read_committed readers."
                )
            }
            #[cfg(feature = "transactions")]
            Event::WriteFenced { consumer, transactional_id, error, .. } => format!(
                "{consumer}'s write as {transactional_id} was refused ({error}): a newer instance owns that transactional.id. It closes."
            ),
            Event::RetentionDeleted { partition, new_log_start, lost, .. } if *lost > 0 => format!(
                "Retention deleted P{partition}'s records before offset {new_log_start}: {lost} of them nobody in the group had handled."
            ),
            Event::SettingChanged { setting, value, .. } => setting_sentence(setting, value),
            Event::StaticMemberReplaced(replaced) => format!(
                "{} came back as static member {} and took back {} without a rebalance.",
                replaced.consumer,
                replaced.instance_id,
                partitions_text(&replaced.assignment)
            ),
            Event::Released { consumer, partition, offsets, .. } if !offsets.is_empty() => format!(
                "{consumer} released {} record{} of P{partition}: the group can have {} again.",
                offsets.len(),
                plural(offsets.len() as u64),
                if offsets.len() == 1 { "it" } else { "them" }
            ),
            #[cfg(feature = "transactions")]
            Event::TxnCommitted { consumer, offsets, .. } => format!(
                "{consumer} committed its transaction: its results and its offsets ({}) became visible together.",
                offsets.iter().map(|(p, o)| format!("P{p} → {o}")).collect::<Vec<_>>().join(", ")
            ),
            #[cfg(feature = "cluster")]
            Event::BrokerCrashed { broker, .. } => format!(
                "Broker {broker} crashed: the partitions it led need a new leader, and its replicas fall out of the ISR."
            ),
            #[cfg(feature = "cluster")]
            Event::BrokerRestarted { broker, .. } => {
                format!(
                    "Broker {broker} restarted: its replicas catch up from the leaders before they rejoin the ISR."
                )
            }
            #[cfg(feature = "cluster")]
            Event::BrokerFenced { broker, .. } => format!(
                "The controller fenced broker {broker}: its heartbeats stopped, so it leads nothing any more."
            ),
            #[cfg(feature = "cluster")]
            Event::BrokerUnfenced { broker, .. } => {
                format!("The controller unfenced broker {broker}: it can lead again.")
            }
            #[cfg(feature = "cluster")]
            Event::LeaderElected(elected) => {
                let LeaderElected {
                    partition,
                    leader,
                    leader_epoch,
                    kind,
                    truncated_to,
                    lost,
                    lost_acknowledged,
                    ..
                } = &**elected;
                let Some(leader) = leader else {
                    return Some(format!(
                        "P{partition} has no leader left to elect: it is offline until a replica comes back."
                    ));
                };
                let how = match *kind {
                    "clean" => "A clean election (from the ISR)",
                    "elr" => "An election from the eligible leader replicas (ELR)",
                    "unclean" => "An unclean election (from outside the ISR)",
                    "last-known-leader" => "The last known leader's return",
                    other => other,
                };
                let mut text = format!(
                    "{how} made broker {leader} P{partition}'s leader (leader epoch {leader_epoch})."
                );
                if let Some(to) = truncated_to.filter(|_| *lost > 0) {
                    text.push_str(&format!(
                        " The log was cut back to {to}: {lost} record{} gone, {lost_acknowledged} of them acknowledged.",
                        plural(*lost)
                    ));
                }
                text
            }
            #[cfg(feature = "cluster")]
            Event::IsrChanged { partition, isr, .. } => format!(
                "P{partition}'s in-sync replicas (ISR, the replicas that hold every acknowledged record) are now {}.",
                if isr.is_empty() {
                    "none".to_owned()
                } else {
                    isr.iter().map(|b| format!("broker {b}")).collect::<Vec<_>>().join(", ")
                }
            ),
            #[cfg(feature = "cluster")]
            Event::ProduceLost { partition, broker, what, .. } => {
                format!(
                    "The network lost a produce {what} for P{partition} on broker {broker}: the producer will time out and retry."
                )
            }
            #[cfg(feature = "cluster")]
            Event::ProduceAnswered { partition, broker, error: Some(error), .. } => {
                format!("Broker {broker} refused a write to P{partition} ({error}).")
            }
            #[cfg(feature = "cluster")]
            Event::BatchFailed { partition, records, error, .. } => format!(
                "The producer gave up on a batch of {records} record{} for P{partition} ({error}): they were never written.",
                plural(u64::from(*records))
            ),
            // The steady traffic of records, commits and acknowledgements: the tapes,
            // the markers and the sink draw it as it happens, and a sentence each would
            // push every notable one out of the log within a tick.
            Event::Produced { .. }
            | Event::Fetched { .. }
            | Event::Handled { .. }
            | Event::Committed { .. }
            | Event::Checkpointed { .. }
            | Event::Bridged { .. }
            | Event::RetentionDeleted { .. }
            | Event::TargetAssignment { .. }
            | Event::Reconciled { .. }
            | Event::Acquired { .. }
            | Event::Acknowledged { .. }
            | Event::Released { .. } => return None,
            #[cfg(feature = "cluster")]
            Event::ProduceSent { .. } | Event::ProduceAnswered { .. } | Event::BatchAcknowledged { .. } => {
                return None;
            }
            #[cfg(feature = "transactions")]
            Event::PayoutWritten { .. } | Event::MarkerWritten { .. } => return None,
        })
    }

    /// The consumer the event is about, if it is about one.
    #[must_use]
    pub fn consumer(&self) -> Option<ConsumerId> {
        match self {
            Event::Fetched { consumer, .. }
            | Event::Handled { consumer, .. }
            | Event::Committed { consumer, .. }
            | Event::CommitRefused { consumer, .. }
            | Event::MemberLeft { consumer, .. }
            | Event::CommitFailed { consumer, .. }
            | Event::Rejoined { consumer, .. }
            | Event::ResetPosition { consumer, .. }
            | Event::NoOffset { consumer, .. }
            | Event::PositionReset { consumer, .. }
            | Event::Paused { consumer, .. }
            | Event::Resumed { consumer, .. }
            | Event::Crashed { consumer, .. }
            | Event::Stopping { consumer, .. }
            | Event::ShutdownDeadlinePassed { consumer, .. }
            | Event::Left { consumer, .. }
            | Event::Started { consumer, .. }
            | Event::Removed { consumer, .. }
            | Event::SessionExpired { consumer, .. }
            | Event::Checkpointed { consumer, .. }
            | Event::CheckpointTorn { consumer, .. }
            | Event::CheckpointAbandoned { consumer, .. }
            | Event::ResumedFrom { consumer, .. }
            | Event::KilledBeforeCommit { consumer, .. }
            | Event::Fenced { consumer, .. }
            | Event::Acquired { consumer, .. }
            | Event::AcknowledgeRefused { consumer, .. }
            | Event::LockExpired { consumer, .. }
            | Event::Released { consumer, .. }
            | Event::HandlerFailed { consumer, .. }
            | Event::FailedRecordSkipped { consumer, .. }
            | Event::RetryingInPlace { consumer, .. }
            | Event::DeadLettered { consumer, .. }
            | Event::SentToRetryTopic { consumer, .. }
            | Event::Stalled { consumer, .. }
            | Event::Woke { consumer, .. } => Some(*consumer),
            Event::Reconciled(reconciled) => Some(reconciled.consumer),
            Event::StaticMemberReplaced(replaced) => Some(replaced.consumer),
            Event::Acknowledged(ack) => Some(ack.consumer),
            #[cfg(feature = "transactions")]
            Event::TxnInitialized { consumer, .. } => Some(*consumer),
            #[cfg(feature = "transactions")]
            Event::TxnInitRefused { consumer, .. } => Some(*consumer),
            #[cfg(feature = "transactions")]
            Event::PayoutWritten { consumer, .. } => Some(*consumer),
            #[cfg(feature = "transactions")]
            Event::TxnCommitted { consumer, .. } => Some(*consumer),
            #[cfg(feature = "transactions")]
            Event::WriteFenced { consumer, .. } => Some(*consumer),
            _ => None,
        }
    }

    // Inlined: `hash_into` reads it first, and inlined there its match folds
    // into `hash_into`'s own.
    #[must_use]
    #[inline(always)]
    pub fn tick(&self) -> Tick {
        match self {
            Event::Produced { tick, .. }
            | Event::Fetched { tick, .. }
            | Event::Handled { tick, .. }
            | Event::Committed { tick, .. }
            | Event::CommitRefused { tick, .. }
            | Event::PositionReset { tick, .. }
            | Event::ResetPosition { tick, .. }
            | Event::OffsetsExpired { tick, .. }
            | Event::GroupDeleted { tick, .. }
            | Event::NoOffset { tick, .. }
            | Event::Paused { tick, .. }
            | Event::Resumed { tick, .. }
            | Event::Crashed { tick, .. }
            | Event::Stopping { tick, .. }
            | Event::ShutdownDeadlinePassed { tick, .. }
            | Event::Left { tick, .. }
            | Event::MemberLeft { tick, .. }
            | Event::CommitFailed { tick, .. }
            | Event::Rejoined { tick, .. }
            | Event::Started { tick, .. }
            | Event::Removed { tick, .. }
            | Event::SessionExpired { tick, .. }
            | Event::RebalanceStarted { tick, .. }
            | Event::RebalanceCompleted { tick, .. }
            | Event::OffsetsReset { tick, .. }
            | Event::RetentionDeleted { tick, .. }
            | Event::Checkpointed { tick, .. }
            | Event::CheckpointTorn { tick, .. }
            | Event::CheckpointAbandoned { tick, .. }
            | Event::ResumedFrom { tick, .. }
            | Event::Peeked { tick, .. }
            | Event::Bridged { tick, .. }
            | Event::PartitionsAdded { tick, .. }
            | Event::KilledBeforeCommit { tick, .. }
            | Event::SettingChanged { tick, .. }
            | Event::GroupEpochBumped { tick, .. }
            | Event::TargetAssignment { tick, .. }
            | Event::Fenced { tick, .. }
            | Event::Acquired { tick, .. }
            | Event::AcknowledgeRefused { tick, .. }
            | Event::LockExpired { tick, .. }
            | Event::Released { tick, .. }
            | Event::HandlerFailed { tick, .. }
            | Event::FailedRecordSkipped { tick, .. }
            | Event::RetryingInPlace { tick, .. }
            | Event::DeadLettered { tick, .. }
            | Event::SentToRetryTopic { tick, .. }
            | Event::HandlerFixed { tick, .. }
            | Event::ReplayStarted { tick, .. }
            | Event::Replayed { tick, .. }
            | Event::Stalled { tick, .. }
            | Event::Woke { tick, .. } => *tick,
            Event::Reconciled(reconciled) => reconciled.tick,
            Event::StaticMemberReplaced(replaced) => replaced.tick,
            Event::Acknowledged(ack) => ack.tick,
            #[cfg(feature = "cluster")]
            Event::LeaderElected(elected) => elected.tick,
            #[cfg(feature = "cluster")]
            Event::BrokerCrashed { tick, .. }
            | Event::BrokerRestarted { tick, .. }
            | Event::BrokerFenced { tick, .. }
            | Event::BrokerUnfenced { tick, .. }
            | Event::IsrChanged { tick, .. }
            | Event::ProduceSent { tick, .. }
            | Event::ProduceAnswered { tick, .. }
            | Event::ProduceLost { tick, .. }
            | Event::BatchAcknowledged { tick, .. }
            | Event::BatchFailed { tick, .. } => *tick,
            #[cfg(feature = "transactions")]
            Event::TxnInitialized { tick, .. }
            | Event::TxnInitRefused { tick, .. }
            | Event::PayoutWritten { tick, .. }
            | Event::TxnCommitted { tick, .. }
            | Event::TxnAborted { tick, .. }
            | Event::MarkerWritten { tick, .. }
            | Event::WriteFenced { tick, .. } => *tick,
        }
    }

    /// Feeds every field into the trace hash.
    // Inlined into `Sim`'s emitters: where the variant is known (the events
    // of every record), only its arm is left.
    #[inline(always)]
    pub fn hash_into(&self, h: &mut TraceHasher) {
        h.word(self.tick());
        match self {
            Event::Produced {
                partition,
                offset,
                record_id,
                subject,
                keyed,
                poison,
                fails_first,
                after_effect,
                ..
            } => {
                h.word(1);
                h.word(u64::from(*partition));
                h.word(*offset);
                h.word(*record_id);
                // Zero for the records before issue 40: their words are unchanged.
                h.word(
                    u64::from(*subject)
                        | (u64::from(*keyed) << 32)
                        | (u64::from(*poison) << 33)
                        | (u64::from(*fails_first) << 34)
                        | (u64::from(*after_effect) << 42),
                );
            }
            Event::Fetched { consumer, partition, from, to, .. } => {
                h.word(2);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*from);
                h.word(*to);
            }
            Event::Handled {
                consumer,
                partition,
                offset,
                record_id,
                duplicate,
                out_of_key_order,
                effect,
                ..
            } => {
                h.word(3);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*offset);
                h.word(*record_id);
                h.word(u64::from(*duplicate) | u64::from(*out_of_key_order) << 1 | u64::from(*effect) << 2);
            }
            Event::Committed { consumer, offsets, .. } | Event::CommitRefused { consumer, offsets, .. } => {
                h.word(if matches!(self, Event::Committed { .. }) { 4 } else { 28 });
                h.word(u64::from(consumer.0));
                for &(p, o) in offsets {
                    h.word(u64::from(p));
                    h.word(o);
                }
            }
            Event::ResetPosition { consumer, partition, to, skipped, .. } => {
                h.word(60);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*to);
                h.word(*skipped);
            }
            Event::OffsetsExpired { group, offsets, .. } => {
                h.word(62);
                h.word(u64::from(*group));
                for &(p, o) in offsets {
                    h.word(u64::from(p));
                    h.word(o);
                }
            }
            Event::GroupDeleted { group, .. } => {
                h.word(63);
                h.word(u64::from(*group));
            }
            Event::NoOffset { consumer, partition, .. } => {
                h.word(61);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
            }
            Event::PositionReset { consumer, partition, from, to, .. } => {
                h.word(5);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*from);
                h.word(*to);
            }
            Event::Paused { consumer, .. } => {
                h.word(6);
                h.word(u64::from(consumer.0));
            }
            Event::Resumed { consumer, .. } => {
                h.word(7);
                h.word(u64::from(consumer.0));
            }
            Event::Crashed { consumer, member_id, abandoned, .. } => {
                h.word(8);
                h.word(u64::from(consumer.0) << 32 | u64::from(*abandoned));
                h.bytes(member_id.as_bytes());
            }
            Event::Stopping { consumer, .. } => {
                h.word(9);
                h.word(u64::from(consumer.0));
            }
            Event::ShutdownDeadlinePassed { consumer, abandoned, .. } => {
                h.word(10);
                h.word(u64::from(consumer.0) << 32 | u64::from(*abandoned));
            }
            Event::Left { consumer, member_id, .. } => {
                h.word(11);
                h.word(u64::from(consumer.0));
                h.bytes(member_id.as_bytes());
            }
            Event::MemberLeft { consumer, member_id, since_poll_ticks, .. } => {
                h.word(57);
                h.word(u64::from(consumer.0));
                h.word(*since_poll_ticks);
                h.bytes(member_id.as_bytes());
            }
            Event::CommitFailed { consumer, offsets, .. } => {
                h.word(58);
                h.word(u64::from(consumer.0));
                for &(p, o) in offsets {
                    h.word(u64::from(p));
                    h.word(o);
                }
            }
            Event::Rejoined { consumer, member_id, lost, .. } => {
                h.word(59);
                h.word(u64::from(consumer.0));
                hash_partitions(h, lost);
                h.bytes(member_id.as_bytes());
            }
            Event::Started { consumer, member_id, .. } => {
                h.word(12);
                h.word(u64::from(consumer.0));
                h.bytes(member_id.as_bytes());
            }
            Event::Removed { consumer, .. } => {
                h.word(13);
                h.word(u64::from(consumer.0));
            }
            Event::SessionExpired { consumer, member_id, .. } => {
                h.word(14);
                h.word(u64::from(consumer.0));
                h.bytes(member_id.as_bytes());
            }
            Event::RebalanceStarted { group, reason, .. } => {
                h.word(15);
                h.word(u64::from(*group) << 32 | *reason as u64);
            }
            Event::RebalanceCompleted { group, generation, assignment, .. } => {
                h.word(16);
                h.word(u64::from(*group) << 32 | u64::from(*generation));
                for (c, parts) in assignment {
                    h.word(u64::from(c.0));
                    h.word(parts.len() as u64);
                    for &p in parts {
                        h.word(u64::from(p));
                    }
                }
            }
            Event::OffsetsReset { group, reset, offsets, .. } => {
                h.word(17);
                h.word(u64::from(*group));
                for w in reset_words(reset) {
                    h.word(w);
                }
                for &(p, o) in offsets {
                    h.word(u64::from(p));
                    h.word(o);
                }
            }
            Event::RetentionDeleted { group, partition, new_log_start, lost, .. } => {
                h.word(18);
                h.word(u64::from(*group));
                h.word(u64::from(*partition) << 32 | u64::from(*lost));
                h.word(*new_log_start);
            }
            Event::SettingChanged { group, setting, value, .. } => {
                h.word(19);
                h.word(group.map_or(u64::MAX, u64::from));
                h.bytes(setting.as_bytes());
                h.bytes(value.as_bytes());
            }
            Event::Checkpointed { consumer, positions, .. } => {
                h.word(20);
                h.word(u64::from(consumer.0));
                for &(p, o) in positions {
                    h.word(u64::from(p));
                    h.word(o);
                }
            }
            Event::CheckpointTorn { consumer, partition, intended, stored, .. } => {
                h.word(21);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*intended);
                h.word(*stored);
            }
            Event::CheckpointAbandoned { consumer, .. } => {
                h.word(22);
                h.word(u64::from(consumer.0));
            }
            Event::ResumedFrom { consumer, partition, offset, last_known, .. } => {
                h.word(23);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*offset);
                h.word(*last_known);
            }
            Event::Peeked { partition, advanced, .. } => {
                h.word(24);
                h.word(u64::from(*partition) << 1 | u64::from(*advanced));
            }
            Event::PartitionsAdded { from, to, moved_keys, .. } => {
                h.word(26);
                h.word(u64::from(*from) << 32 | u64::from(*to));
                h.word(u64::from(*moved_keys));
            }
            Event::KilledBeforeCommit { consumer, .. } => {
                h.word(27);
                h.word(u64::from(consumer.0));
            }
            Event::Bridged { partition, target_offset, record_id, .. } => {
                h.word(25);
                h.word(u64::from(*partition));
                h.word(*target_offset);
                h.word(*record_id);
            }
            Event::GroupEpochBumped { group, group_epoch, reason, .. } => {
                h.word(28);
                h.word(u64::from(*group) << 32 | u64::from(*group_epoch));
                h.word(*reason as u64);
            }
            Event::TargetAssignment { group, target_epoch, target, .. } => {
                h.word(29);
                h.word(u64::from(*group) << 32 | u64::from(*target_epoch));
                hash_assignment(h, target);
            }
            Event::Reconciled(reconciled) => {
                let Reconciled { consumer, member_epoch, state, assignment, revoking, .. } = &**reconciled;
                h.word(30);
                h.word(u64::from(consumer.0) << 32 | u64::from(*member_epoch as u32));
                h.bytes(state.as_bytes());
                hash_partitions(h, assignment);
                hash_partitions(h, revoking);
            }
            Event::Fenced { consumer, member_id, error, .. } => {
                h.word(31);
                h.word(u64::from(consumer.0));
                h.bytes(member_id.as_bytes());
                h.bytes(error.as_bytes());
            }
            Event::StaticMemberReplaced(replaced) => {
                let StaticMemberReplaced { group, consumer, instance_id, member_id, assignment, .. } =
                    &**replaced;
                h.word(32);
                h.word(u64::from(*group) << 32 | u64::from(consumer.0));
                h.bytes(instance_id.as_bytes());
                h.bytes(member_id.as_bytes());
                hash_partitions(h, assignment);
            }
            Event::Acquired { consumer, partition, records, .. } => {
                h.word(33);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(records.len() as u64);
                for &(offset, count) in records {
                    h.word(offset);
                    h.word(u64::from(count));
                }
            }
            Event::Acknowledged(ack) => {
                let Acknowledged { consumer, partition, kind, offsets, archived, .. } = &**ack;
                h.word(34);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.bytes(kind.as_bytes());
                hash_offsets(h, offsets);
                hash_offsets(h, archived);
            }
            Event::AcknowledgeRefused { consumer, partition, offset, .. } => {
                h.word(35);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*offset);
            }
            Event::LockExpired { consumer, partition, offset, archived, .. } => {
                h.word(36);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*offset << 1 | u64::from(*archived));
            }
            Event::Released { consumer, partition, offsets, archived, .. } => {
                h.word(37);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                hash_offsets(h, offsets);
                hash_offsets(h, archived);
            }
            Event::HandlerFailed {
                consumer, partition, offset, record_id, attempt, after_effect, ..
            } => {
                h.word(38);
                h.word(u64::from(consumer.0) << 32 | u64::from(*partition));
                h.word(*offset);
                h.word(*record_id);
                h.word(u64::from(*attempt) | u64::from(*after_effect) << 32);
            }
            Event::FailedRecordSkipped { consumer, partition, offset, record_id, .. } => {
                h.word(60 << 32 | u64::from(consumer.0));
                h.word(u64::from(*partition));
                h.word(*offset);
                h.word(*record_id);
            }
            Event::RetryingInPlace { consumer, partition, offset, attempt, next_tick, .. } => {
                h.word(61 << 32 | u64::from(consumer.0));
                h.word(u64::from(*partition) << 32 | u64::from(*attempt));
                h.word(*offset);
                h.word(*next_tick);
            }
            Event::DeadLettered { consumer, partition, offset, record_id, dlt_offset, attempts, .. } => {
                h.word(62 << 32 | u64::from(consumer.0));
                h.word(u64::from(*partition) << 32 | u64::from(*attempts));
                h.word(*offset);
                h.word(*record_id);
                h.word(*dlt_offset);
            }
            Event::SentToRetryTopic {
                consumer,
                partition,
                offset,
                record_id,
                level,
                retry_offset,
                due_tick,
                ..
            } => {
                h.word(63 << 32 | u64::from(consumer.0));
                h.word(u64::from(*partition) << 32 | u64::from(*level));
                h.word(*offset);
                h.word(*record_id);
                h.word(*retry_offset);
                h.word(*due_tick);
            }
            Event::HandlerFixed { group, .. } => h.word(64 << 32 | u64::from(*group)),
            Event::ReplayStarted { group, .. } => h.word(65 << 32 | u64::from(*group)),
            Event::Replayed {
                group,
                partition,
                dlt_offset,
                source_offset,
                record_id,
                effect,
                double_applied,
                ..
            } => {
                h.word(66 << 32 | u64::from(*group));
                h.word(u64::from(*partition) << 2 | u64::from(*effect) << 1 | u64::from(*double_applied));
                h.word(*dlt_offset);
                h.word(*source_offset);
                h.word(*record_id);
            }
            #[cfg(feature = "cluster")]
            Event::BrokerCrashed { broker, .. } => h.word(39 << 32 | u64::from(*broker)),
            #[cfg(feature = "cluster")]
            Event::BrokerRestarted { broker, .. } => h.word(40 << 32 | u64::from(*broker)),
            #[cfg(feature = "cluster")]
            Event::BrokerFenced { broker, .. } => h.word(41 << 32 | u64::from(*broker)),
            #[cfg(feature = "cluster")]
            Event::BrokerUnfenced { broker, .. } => h.word(42 << 32 | u64::from(*broker)),
            #[cfg(feature = "cluster")]
            Event::LeaderElected(elected) => {
                let LeaderElected {
                    partition,
                    leader,
                    leader_epoch,
                    kind,
                    truncated_to,
                    lost,
                    lost_acknowledged,
                    ..
                } = &**elected;
                h.word(43);
                h.word(u64::from(*partition) << 32 | u64::from(leader.unwrap_or(0)));
                h.word(u64::from(*leader_epoch));
                h.bytes(kind.as_bytes());
                h.word(truncated_to.map_or(u64::MAX, |o| o));
                h.word(*lost);
                h.word(*lost_acknowledged);
            }
            #[cfg(feature = "cluster")]
            Event::IsrChanged { partition, isr, elr, .. } => {
                h.word(44);
                h.word(u64::from(*partition));
                hash_partitions(h, isr);
                hash_partitions(h, elr);
            }
            #[cfg(feature = "cluster")]
            Event::ProduceSent { partition, broker, batch, records, attempt, .. } => {
                h.word(45);
                h.word(u64::from(*partition) << 32 | u64::from(*broker));
                h.word(*batch);
                h.word(u64::from(*records) << 32 | u64::from(*attempt));
            }
            #[cfg(feature = "cluster")]
            Event::ProduceAnswered { partition, broker, error, .. } => {
                h.word(46);
                h.word(u64::from(*partition) << 32 | u64::from(*broker));
                h.bytes(error.unwrap_or("").as_bytes());
            }
            #[cfg(feature = "cluster")]
            Event::ProduceLost { partition, broker, what, .. } => {
                h.word(47);
                h.word(u64::from(*partition) << 32 | u64::from(*broker));
                h.bytes(what.as_bytes());
            }
            #[cfg(feature = "cluster")]
            Event::BatchAcknowledged { partition, batch, records, .. } => {
                h.word(48);
                h.word(u64::from(*partition) << 32 | u64::from(*records));
                h.word(*batch);
            }
            #[cfg(feature = "cluster")]
            Event::BatchFailed { partition, batch, records, error, .. } => {
                h.word(49);
                h.word(u64::from(*partition) << 32 | u64::from(*records));
                h.word(*batch);
                h.bytes(error.as_bytes());
            }
            Event::Stalled { consumer, until, .. } => {
                h.word(50 << 32 | u64::from(consumer.0));
                h.word(*until);
            }
            Event::Woke { consumer, replaced, .. } => {
                h.word(51 << 32 | u64::from(consumer.0));
                h.word(u64::from(*replaced));
            }
            #[cfg(feature = "transactions")]
            Event::TxnInitialized { consumer, transactional_id, producer_id, epoch, .. } => {
                h.word(52 << 32 | u64::from(consumer.0));
                h.bytes(transactional_id.as_bytes());
                h.word(*producer_id);
                h.word(u64::from(*epoch));
            }
            #[cfg(feature = "transactions")]
            Event::TxnInitRefused { consumer, error, .. } => {
                h.word(53 << 32 | u64::from(consumer.0));
                h.bytes(error.as_bytes());
            }
            #[cfg(feature = "transactions")]
            Event::PayoutWritten { consumer, partition, offset, record_id, .. } => {
                h.word(54 << 32 | u64::from(consumer.0));
                h.word(u64::from(*partition));
                h.word(*offset);
                h.word(*record_id);
            }
            #[cfg(feature = "transactions")]
            Event::TxnCommitted { consumer, epoch, offsets, .. } => {
                h.word(55 << 32 | u64::from(consumer.0));
                h.word(u64::from(*epoch));
                h.word(offsets.len() as u64);
                for &(p, o) in offsets {
                    h.word(u64::from(p));
                    h.word(o);
                }
            }
            #[cfg(feature = "transactions")]
            Event::TxnAborted { transactional_id, reason, .. } => {
                h.word(56);
                h.bytes(transactional_id.as_bytes());
                h.bytes(reason.as_bytes());
            }
            #[cfg(feature = "transactions")]
            Event::MarkerWritten { partition, offset, commit, .. } => {
                h.word(57 << 32 | u64::from(*partition));
                h.word(*offset);
                h.word(u64::from(*commit));
            }
            #[cfg(feature = "transactions")]
            Event::WriteFenced { consumer, transactional_id, error, .. } => {
                h.word(58 << 32 | u64::from(consumer.0));
                h.bytes(transactional_id.as_bytes());
                h.bytes(error.as_bytes());
            }
        }
    }
}

fn hash_offsets(h: &mut TraceHasher, offsets: &[u64]) {
    h.word(offsets.len() as u64);
    for &o in offsets {
        h.word(o);
    }
}

fn hash_partitions(h: &mut TraceHasher, partitions: &[u32]) {
    h.word(partitions.len() as u64);
    for &p in partitions {
        h.word(u64::from(p));
    }
}

fn hash_assignment(h: &mut TraceHasher, assignment: &[(ConsumerId, Vec<u32>)]) {
    h.word(assignment.len() as u64);
    for (c, parts) in assignment {
        h.word(u64::from(c.0));
        hash_partitions(h, parts);
    }
}

fn reason_text(reason: RebalanceReason) -> &'static str {
    match reason {
        RebalanceReason::MemberJoined => "a member joined",
        RebalanceReason::MemberLeft => "a member left",
        RebalanceReason::SessionExpired => "a session expired",
        RebalanceReason::PartitionsAdded => "the topic grew",
        RebalanceReason::PartitionsRevoked => "a member revoked partitions to hand them on",
        RebalanceReason::RebalanceTimeout => "a member did not revoke in time",
    }
}

/// A setting's change in words: what the run does differently from now on.
fn setting_sentence(setting: &str, value: &str) -> String {
    let n: Option<u64> = value.parse().ok();
    let records = |n: u64| format!("{n} record{}", plural(n));
    match (setting, value, n) {
        ("send_per_tick", _, Some(0)) => "The producer stopped sending.".to_owned(),
        ("send_per_tick", _, Some(n)) => format!("The producer keeps sending {} a tick.", records(n)),
        ("use_keys", "true", _) => {
            "The producer sends with keys: each user's records go to that user's partition.".to_owned()
        }
        ("use_keys", _, _) => "The producer sends without keys: the partitioner spreads records over the \
             partitions, so one user's records can land on different partitions."
            .to_owned(),
        ("key_count", _, Some(n)) => format!("The producer now uses {n} key{} (user-0 …).", plural(n)),
        ("hot_key_share_percent", _, Some(n)) => format!("user-0 now gets {n}% of the records: a hot key."),
        ("records_per_poll", _, Some(n)) => {
            format!("poll() now returns up to {} (max.poll.records).", records(n))
        }
        ("handle_per_tick", _, Some(n)) => format!("Each consumer now handles up to {} a tick.", records(n)),
        ("commit", "auto", _) => "The consumers now commit on a timer (enable.auto.commit).".to_owned(),
        ("commit", "each-record", _) => "The consumers now commit after each record.".to_owned(),
        ("commit", mode, _) => format!("The consumers now commit {mode} handling each batch."),
        ("assignor", name, _) => format!("The group's assignor is now {name}, from the next rebalance."),
        ("idempotent", "true", _) => {
            "The application is idempotent: a record it handled before takes no effect again.".to_owned()
        }
        ("idempotent", _, _) => {
            "The application is no longer idempotent: every delivery takes effect.".to_owned()
        }
        ("position", "group", _) => {
            "The consumers keep their positions as the group's committed offsets.".to_owned()
        }
        ("position", "atomic", _) => {
            "Each consumer keeps its position in a file of its own, written to a temp file and renamed."
                .to_owned()
        }
        ("position", _, _) => {
            "Each consumer keeps its position in a file of its own, written in place.".to_owned()
        }
        ("follower_fetch_per_tick", value, _) => match value.split_once(':') {
            Some((broker, "0")) => {
                format!("Broker {broker}'s replicas stopped fetching: they fall behind their leaders.")
            }
            Some((broker, n)) => format!("Broker {broker}'s replicas fetch up to {n} records a tick."),
            None => format!("follower_fetch_per_tick is now {value}."),
        },
        (setting, value, _) => format!("{setting} is now {value}."),
    }
}

/// "P0 and P2", "P1", "no partition".
fn partitions_text(partitions: &[u32]) -> String {
    match partitions {
        [] => "no partition".to_owned(),
        [only] => format!("P{only}"),
        [rest @ .., last] => {
            format!("{} and P{last}", rest.iter().map(|p| format!("P{p}")).collect::<Vec<_>>().join(", "))
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `P0 up to 12, P2 up to 7`: the offsets a commit would have written.
fn offsets_text(offsets: &[(u32, u64)]) -> String {
    if offsets.is_empty() {
        return "nothing".into();
    }
    offsets.iter().map(|(p, o)| format!("P{p} up to {o}")).collect::<Vec<_>>().join(", ")
}

// 64-bit targets: wasm32's pointers, and so its events, are smaller.
#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::Event;

    /// One event goes through the queue for each record produced and each
    /// record handled: a variant that grows past 64 bytes makes them all
    /// bigger (box its fields, as `Event::Reconciled` does).
    #[test]
    fn an_event_is_at_most_64_bytes() {
        assert!(size_of::<Event>() <= 64, "Event is {} bytes", size_of::<Event>());
    }
}
