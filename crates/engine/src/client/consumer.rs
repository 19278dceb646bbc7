//! One consumer process: the loop `poll → handle → commit` on one card, its
//! fetch positions and in-flight batch, and (where positions live on the
//! consumer) its own offset store on its volume.

use crate::broker::AcknowledgeType;
use crate::client::{CheckpointView, ConsumerState, LoopStep};
use crate::config::CheckpointWrites;
use crate::event::Tick;
use crate::input::ConsumerId;
use std::collections::VecDeque;

/// A record fetched by `poll()` and not yet handled: the consumer holds a copy,
/// so retention deleting it from the log does not take it away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fetched {
    pub partition: u32,
    pub offset: u64,
    pub id: u64,
    pub subject: u32,
    pub keyed: bool,
    pub produced_tick: Tick,
    /// The handler fails on it.
    pub poison: bool,
    /// The handler fails on its first attempts.
    pub failing: crate::log::Failing,
    /// Share groups: the broker's delivery count of this acquisition (1 on
    /// the first); 0 for the other protocols.
    pub delivery_count: u8,
    /// The producer wrote this copy again (its id is earlier in the partition).
    pub producer_copy: bool,
    /// The producer wrote it after a later-sent record of the partition.
    pub producer_reordered: bool,
}

impl Fetched {
    /// Whether the handler may fail on it (poison, or failing at first): only
    /// such a record has attempts, a backoff or a payout before a failure, so
    /// every other record skips those lookups (issue 40's error policies).
    #[inline]
    pub fn may_fail(&self) -> bool {
        self.poison || self.failing.first > 0
    }
}

/// A checkpoint write under way: these positions land at `done_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingCheckpoint {
    pub positions: Vec<(u32, u64)>,
    pub done_at: Tick,
}

/// One step of a `poll()`'s fetch, in the order the consumer takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FetchStep {
    /// The position `from` was deleted by retention: OffsetOutOfRange, and
    /// `auto.offset.reset=earliest` moves it to `to`.
    Reset { partition: u32, from: u64, to: u64 },
    /// Read `from..to`.
    Read { partition: u32, from: u64, to: u64 },
}

/// A consumer.
///
/// # Calling contract
/// The `Sim` drives its loop one tick at a time and routes what it asks for:
/// [`Consumer::poll_fetch`] says what to read given the partitions' bounds,
/// [`Consumer::handle_fetched`] takes the records read, and
/// [`Consumer::handle_poll_returned`] says whether `poll()` returned any;
/// [`Consumer::poll_record`] hands out the batch one record at a time;
/// [`Consumer::poll_commit`] is what `commitSync()` sends, and
/// [`Consumer::handle_committed`], [`Consumer::handle_commit_failed`] and
/// [`Consumer::handle_batch_end`] what came of it.
///
/// Its timers are its own, each asked with the time: the poll timer
/// ([`Consumer::handle_polled`], [`Consumer::poll_timer_expired`]), the
/// auto-commit ([`Consumer::poll_auto_commit`], [`Consumer::handle_join_complete`]),
/// the metadata refresh ([`Consumer::handle_metadata_tick`]), the consumer
/// protocol's heartbeat ([`Consumer::poll_heartbeat_due`]) and a stall
/// ([`Consumer::handle_stall`], [`Consumer::frozen`], [`Consumer::poll_wake`]).
///
/// What the group tells it arrives through `handle_*` methods: a rebalance
/// ([`Consumer::handle_rebalance_started`]; its JoinGroup is
/// [`Consumer::poll_join_group`]), a generation's assignment
/// ([`Consumer::assign`], or [`Consumer::handle_cooperative_assignment`] to
/// apply at its next poll boundary, taken with
/// [`Consumer::poll_pending_assignment`]), a heartbeat's answer
/// ([`Consumer::handle_join_answer`], [`Consumer::handle_heartbeat_answer`]),
/// a fencing ([`Consumer::handle_fenced`], [`Consumer::handle_out_of_group`]).
///
/// All its fields are private: the `Sim` reads it through getters and
/// [`Consumer::snapshot`], and its state changes only through its own
/// methods (`tests/parts_own_their_state.rs` checks both).
#[derive(Debug, Clone)]
pub(crate) struct Consumer {
    id: ConsumerId,
    /// The group it belongs to (index in the config's groups).
    group: usize,
    process: ConsumerState,
    /// The member id of its current incarnation while it is in the group.
    member_id: Option<String>,
    host: String,
    /// Partitions of the current generation (the client's copy).
    assigned: Vec<u32>,
    /// Fetch position per partition (next offset to fetch); `None` when not assigned.
    positions: Vec<Option<u64>>,
    batch: VecDeque<Fetched>,
    /// Partitions `poll()` starts from rotates so none starves.
    fetch_rotation: usize,
    /// The auto-commit timer (`auto.commit.interval.ms`): when the next
    /// auto-commit is due; `None` until the process's first `poll()`, which
    /// is when Kafka's consumer is created and its timer starts.
    auto_commit_due: Option<Tick>,
    /// Its client's copy of the topic's metadata (`metadata.max.age.ms`):
    /// the partition count it knows, and when it last refreshed it; `None`
    /// until the process's first refresh, when it starts.
    metadata: Option<(u32, Tick)>,
    /// The group leader's `assignmentSnapshot`: the partition count its
    /// metadata held when it computed the current generation's assignment.
    /// A refresh that differs makes it rejoin.
    assignment_snapshot: Option<u32>,
    /// Handled records since its last commit (commit-after knows to commit).
    uncommitted: bool,
    /// Has sent its JoinGroup for the rebalance in progress.
    joined: bool,
    /// Classic, cooperative: its `onJoinPrepare` auto-commit went out at an
    /// earlier poll; its JoinGroup goes at the next (Kafka's client polls the
    /// group with a zero timer, so each step of a rejoin takes a `poll()`).
    join_prepared: bool,
    /// Classic, cooperative: polls left before its new generation's
    /// assignment applies (one reads the JoinGroup answer and sends the
    /// SyncGroup, one reads the SyncGroup answer).
    sync_polls_left: u8,
    handled: u64,
    step: LoopStep,
    crashed_at: Option<Tick>,
    /// Where its loop was when it crashed ("crash here…").
    crashed_during: Option<LoopStep>,
    /// Left with `RemoveConsumer`: the card goes at the end of the step.
    remove_after_leave: bool,
    /// Cooperative, consumer and share protocols: the assignment this member
    /// applies at its next poll (revoking what it loses, adding what it gains).
    pending_assignment: Option<Vec<u32>>,
    /// The consumer-side offset store on its volume, per partition. It
    /// survives crashes and restarts; a torn write leaves what a naive reader sees.
    store: Vec<Option<u64>>,
    /// A checkpoint being written.
    checkpoint: Option<PendingCheckpoint>,
    /// Where this incarnation started each partition from (`resumedFrom`).
    resumed_from: Vec<Option<u64>>,
    last_checkpoint: Option<CheckpointView>,
    handled_by_partition: Vec<u64>,
    /// The fault "killed after the ledger commit, before the offset commit" is armed.
    kill_before_commit: bool,
    /// `group.instance.id`: kept by the card across restarts (static membership).
    instance_id: Option<String>,
    /// Consumer and share protocols: the member epoch its last heartbeat answer gave.
    member_epoch: i32,
    /// Consumer and share protocols, the heartbeat timer: when its next heartbeat is due.
    next_heartbeat: Tick,
    /// Consumer protocol: its owned partitions changed, so it heartbeats now
    /// to tell the coordinator (the acknowledgement of a reconciliation).
    heartbeat_now: bool,
    /// Share group, explicit mode: acknowledgements the application made,
    /// sent with the next `poll()` (or `commitSync()` on close).
    acks: Vec<(u32, u64, AcknowledgeType)>,
    /// Share group, implicit mode: what the last `poll()` returned, which
    /// the next one accepts.
    last_poll: Vec<(u32, u64)>,
    /// The process is frozen until this tick (`stall`): it neither heartbeats nor handles.
    stalled_until: Option<Tick>,
    /// The poll timer (`max.poll.interval.ms`): when the loop last called `poll()`.
    polled_at: Tick,
    /// Out of its group with a batch in hand (it left when its poll timer
    /// expired, or a KIP-848 member learned it was fenced): it finishes the
    /// batch, its commits fail, and at its next poll it joins again.
    out_of_group: Option<OutOfGroup>,
}

/// Why a member is out of its group while its application goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutOfGroup {
    /// It left by itself: more than `max.poll.interval` since its last poll.
    PollTimeout,
    /// A KIP-848 member's heartbeat was answered `UNKNOWN_MEMBER_ID` (its session ran out).
    Fenced,
}

impl OutOfGroup {
    /// How the page's card says it.
    pub fn name(self) -> &'static str {
        match self {
            OutOfGroup::PollTimeout => "poll timeout",
            OutOfGroup::Fenced => "fenced",
        }
    }
}

/// What the page's card and `/stats` read of a consumer at once: plain data
/// borrowed from it, through which nothing changes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConsumerSnapshot<'a> {
    pub id: ConsumerId,
    pub member_id: Option<&'a str>,
    pub instance_id: Option<&'a str>,
    pub state: ConsumerState,
    pub assigned: &'a [u32],
    /// Fetch position per partition.
    pub positions: &'a [Option<u64>],
    /// Fetched and not handled yet, in order.
    pub batch: &'a VecDeque<Fetched>,
    pub handled: u64,
    pub handled_by_partition: &'a [u64],
    pub step: LoopStep,
    pub crashed_at: Option<Tick>,
    pub crashed_during: Option<LoopStep>,
    pub resumed_from: &'a [Option<u64>],
    /// Its own offset store, per partition.
    pub store: &'a [Option<u64>],
    pub writing_checkpoint: bool,
    pub last_checkpoint: Option<&'a CheckpointView>,
}

impl Consumer {
    pub fn new(id: ConsumerId, group: usize, partitions: u32) -> Consumer {
        let n = partitions as usize;
        Consumer {
            id,
            group,
            process: ConsumerState::Stopped,
            member_id: None,
            host: format!("/10.0.0.{}", 10 + id.0),
            assigned: Vec::new(),
            positions: vec![None; n],
            batch: VecDeque::new(),
            fetch_rotation: 0,
            auto_commit_due: None,
            metadata: None,
            assignment_snapshot: None,
            uncommitted: false,
            joined: false,
            join_prepared: false,
            sync_polls_left: 0,
            handled: 0,
            step: LoopStep::Idle,
            crashed_at: None,
            crashed_during: None,
            remove_after_leave: false,
            pending_assignment: None,
            store: vec![None; n],
            checkpoint: None,
            resumed_from: vec![None; n],
            last_checkpoint: None,
            handled_by_partition: vec![0; n],
            kill_before_commit: false,
            instance_id: None,
            member_epoch: 0,
            next_heartbeat: 0,
            heartbeat_now: false,
            acks: Vec::new(),
            last_poll: Vec::new(),
            stalled_until: None,
            polled_at: 0,
            out_of_group: None,
        }
    }

    /// The loop called `poll()` (or `pause()`d, which keeps polling): the
    /// poll timer starts again.
    pub fn handle_polled(&mut self, now: Tick) {
        self.polled_at = now;
    }

    /// The poll timer ran out: more than `max_ticks` since the loop last
    /// called `poll()`, while the member is still in its group.
    pub fn poll_timer_expired(&self, now: Tick, max_ticks: u64) -> bool {
        self.out_of_group.is_none()
            && self.member_id.is_some()
            && now.saturating_sub(self.polled_at) > max_ticks
    }

    /// Ticks since the loop last called `poll()`.
    pub fn since_poll(&self, now: Tick) -> u64 {
        now.saturating_sub(self.polled_at)
    }

    /// It is out of its group (`why`) with its batch in hand. Its member id
    /// stays until it joins again, for the events; nothing is sent with it.
    pub fn handle_out_of_group(&mut self, why: OutOfGroup) {
        self.out_of_group = Some(why);
        self.joined = false;
        self.join_prepared = false;
        self.pending_assignment = None;
        self.sync_polls_left = 0;
        self.heartbeat_now = false;
    }

    /// Out of its group, and why, until it joins again.
    pub fn out_of_group(&self) -> Option<OutOfGroup> {
        self.out_of_group
    }

    /// At its next poll after leaving: its partitions are lost (no revocation
    /// callback can commit them), and it joins again as `member_id`, a new
    /// member. Returns the partitions it lost.
    pub fn handle_rejoin(&mut self, member_id: String, now: Tick) -> Vec<u32> {
        let lost = std::mem::take(&mut self.assigned);
        self.positions.iter_mut().for_each(|p| *p = None);
        self.member_id = Some(member_id);
        self.out_of_group = None;
        self.joined = true;
        self.uncommitted = false;
        self.pending_assignment = None;
        self.sync_polls_left = 0;
        self.member_epoch = 0;
        self.step = LoopStep::Idle;
        self.polled_at = now;
        lost
    }

    pub fn alive(&self) -> bool {
        matches!(
            self.process,
            ConsumerState::Running | ConsumerState::Paused | ConsumerState::Stopping { .. }
        )
    }

    pub fn state(&self) -> ConsumerState {
        self.process
    }

    pub fn id(&self) -> ConsumerId {
        self.id
    }

    /// The group it belongs to (index in the config's groups).
    pub fn group(&self) -> usize {
        self.group
    }

    /// The member id of its current incarnation while it is in the group.
    pub fn member_id(&self) -> Option<&str> {
        self.member_id.as_deref()
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    /// `group.instance.id`, when it is a static member.
    pub fn instance_id(&self) -> Option<&str> {
        self.instance_id.as_deref()
    }

    /// Partitions of the current generation (the client's copy).
    pub fn assigned(&self) -> &[u32] {
        &self.assigned
    }

    /// Its fetch position on `partition`; `None` when not assigned.
    pub fn position(&self, partition: u32) -> Option<u64> {
        self.positions[partition as usize]
    }

    /// What its own offset store on its volume holds for `partition`.
    pub fn stored(&self, partition: u32) -> Option<u64> {
        self.store.get(partition as usize).copied().flatten()
    }

    /// Holds no fetched record that it has not handled.
    pub fn batch_is_empty(&self) -> bool {
        self.batch.is_empty()
    }

    /// How many fetched records it has not handled yet.
    pub fn batch_len(&self) -> usize {
        self.batch.len()
    }

    /// Handled records since its last commit (commit-after knows to commit).
    pub fn uncommitted(&self) -> bool {
        self.uncommitted
    }

    /// Has sent its JoinGroup for the rebalance in progress.
    pub fn joined(&self) -> bool {
        self.joined
    }

    /// Cooperative, consumer and share protocols: holds an assignment to apply
    /// at its next poll boundary.
    pub fn has_pending_assignment(&self) -> bool {
        self.pending_assignment.is_some()
    }

    /// A checkpoint write is under way.
    pub fn writing_checkpoint(&self) -> bool {
        self.checkpoint.is_some()
    }

    /// It left with `RemoveConsumer`: its card goes once it has stopped.
    pub fn remove_after_leave(&self) -> bool {
        self.remove_after_leave
    }

    /// What the card and `/stats` show of it.
    pub fn snapshot(&self) -> ConsumerSnapshot<'_> {
        ConsumerSnapshot {
            id: self.id,
            member_id: self.member_id.as_deref(),
            instance_id: self.instance_id.as_deref(),
            state: self.process,
            assigned: &self.assigned,
            positions: &self.positions,
            batch: &self.batch,
            handled: self.handled,
            handled_by_partition: &self.handled_by_partition,
            step: self.step,
            crashed_at: self.crashed_at,
            crashed_during: self.crashed_during,
            resumed_from: &self.resumed_from,
            store: &self.store,
            writing_checkpoint: self.checkpoint.is_some(),
            last_checkpoint: self.last_checkpoint.as_ref(),
        }
    }

    /// Its card is made static (`group.instance.id`), before its first
    /// process starts; the card keeps it across restarts.
    pub fn handle_instance_id(&mut self, instance_id: String) {
        self.instance_id = Some(instance_id);
    }

    /// `pause()`: the loop keeps polling (its timers go on) and fetches nothing.
    pub fn handle_pause(&mut self) {
        assert_eq!(self.process, ConsumerState::Running, "only a running consumer pauses");
        self.process = ConsumerState::Paused;
    }

    /// `resume()`: it fetches again at its next poll.
    pub fn handle_resume(&mut self) {
        assert_eq!(self.process, ConsumerState::Paused, "only a paused consumer resumes");
        self.process = ConsumerState::Running;
    }

    /// `close()` was called: it finishes its batch by `deadline`, commits,
    /// and leaves; with `remove`, its card goes after that.
    pub fn handle_stop(&mut self, deadline: Tick, remove: bool) {
        self.process = ConsumerState::Stopping { deadline, remove };
    }

    /// `RemoveConsumer` while it is stopping already: its card goes once it has left.
    pub fn handle_remove(&mut self) {
        let ConsumerState::Stopping { deadline, .. } = self.process else {
            panic!("only a stopping consumer is removed once it has left")
        };
        self.process = ConsumerState::Stopping { deadline, remove: true };
    }

    /// `stall`: the process freezes for `ticks` from `now` (a long GC, a
    /// stuck call); it neither heartbeats nor handles until then. Returns
    /// the tick it wakes at.
    pub fn handle_stall(&mut self, now: Tick, ticks: u64) -> Tick {
        let until = now + ticks;
        self.stalled_until = Some(until);
        until
    }

    /// Stalled: frozen, or its stall's tick has come and it has not woken yet.
    pub fn is_stalled(&self) -> bool {
        self.stalled_until.is_some()
    }

    /// The stall's timer: the process is still frozen at `now`.
    pub fn frozen(&self, now: Tick) -> bool {
        self.stalled_until.is_some_and(|until| now < until)
    }

    /// The stall's timer ran out at `now`: the process wakes, and its
    /// stall is over. The caller then finds out whether it is still in its group.
    pub fn poll_wake(&mut self, now: Tick) -> bool {
        self.stalled_until.take_if(|until| now >= *until).is_some()
    }

    /// The fault "killed after the ledger commit, before the offset commit"
    /// is armed: it fires at this process's next commit point.
    pub fn handle_kill_before_commit(&mut self) {
        self.kill_before_commit = true;
    }

    /// At a commit point: whether the armed fault fires here (it fires once).
    pub fn poll_kill_before_commit(&mut self) -> bool {
        std::mem::take(&mut self.kill_before_commit)
    }

    /// A checkpoint file restored onto its volume: its store holds `offset`
    /// for `partition` (possibly ahead of this run's log: it waits there).
    pub fn handle_checkpoint_loaded(&mut self, partition: u32, offset: u64) {
        self.store[partition as usize] = Some(offset);
    }

    /// This incarnation starts `partition` from `start` (`resumedFrom`).
    pub fn handle_resumed(&mut self, partition: u32, start: u64) {
        self.resumed_from[partition as usize] = Some(start);
    }

    /// Its position on `partition` moves to `to`: its log got shorter under
    /// it, the position was reset under it, or it seeks back after an abort.
    pub fn handle_position_reset(&mut self, partition: u32, to: u64) {
        self.positions[partition as usize] = Some(to);
    }

    /// The leader's log of `partition` was cut at `offset` (an election):
    /// the fetched records past the cut go with it.
    pub fn handle_truncated(&mut self, partition: u32, offset: u64) {
        self.batch.retain(|f| f.partition != partition || f.offset < offset);
    }

    /// A new incarnation with `member_id` (a JoinGroup without a member id).
    pub fn handle_start(&mut self, member_id: String, now: Tick) {
        self.polled_at = now;
        self.process = ConsumerState::Running;
        self.member_id = Some(member_id);
        self.assigned.clear();
        self.positions.iter_mut().for_each(|p| *p = None);
        self.batch.clear();
        self.uncommitted = false;
        self.joined = true;
        self.crashed_at = None;
        self.crashed_during = None;
        self.pending_assignment = None;
        self.sync_polls_left = 0;
        self.resumed_from.iter_mut().for_each(|r| *r = None);
        self.step = LoopStep::Idle;
        self.member_epoch = 0;
        self.heartbeat_now = false;
        self.acks.clear();
        self.last_poll.clear();
        self.stalled_until = None;
        // A fault armed for the previous process died with it.
        self.kill_before_commit = false;
        self.out_of_group = None;
        // A new process: a new consumer, whose auto-commit timer starts at its
        // first poll and whose metadata is fetched afresh.
        self.auto_commit_due = None;
        self.metadata = None;
        self.assignment_snapshot = None;
    }

    /// The metadata timer: once `max_age_ticks` have passed since the last
    /// refresh (or at the process's first tick), the client learns the
    /// topic's `partitions` again. Returns whether this refresh grew what it knew.
    pub fn handle_metadata_tick(&mut self, now: Tick, max_age_ticks: u64, partitions: u32) -> bool {
        match self.metadata {
            None => {
                self.metadata = Some((partitions, now));
                false
            }
            Some((known, at)) if now.saturating_sub(at) >= max_age_ticks => {
                self.metadata = Some((partitions, now));
                partitions > known
            }
            Some(_) => false,
        }
    }

    /// The partition count its client's metadata holds, once it has fetched it.
    pub fn known_partitions(&self) -> Option<u32> {
        self.metadata.map(|(known, _)| known)
    }

    /// A classic generation completed: as its leader it assigned `partitions`
    /// (its metadata then); any other member keeps no snapshot.
    pub fn handle_assignment_snapshot(&mut self, partitions: Option<u32>) {
        self.assignment_snapshot = partitions;
    }

    /// The leader's check in `poll()` (`rejoinNeededOrPending`): its metadata
    /// no longer matches what it assigned, so it rejoins.
    pub fn metadata_changed_since_assignment(&self) -> bool {
        matches!((self.known_partitions(), self.assignment_snapshot), (Some(known), Some(assigned)) if known != assigned)
    }

    /// `poll()`'s auto-commit check (`maybeAutoCommitOffsetsAsync`): whether
    /// `interval_ticks` have run out since the timer last started, which
    /// restarts it. The first poll only starts it.
    pub fn poll_auto_commit(&mut self, now: Tick, interval_ticks: u64) -> bool {
        let due = self.auto_commit_due.is_some_and(|due| now >= due);
        if due || self.auto_commit_due.is_none() {
            self.auto_commit_due = Some(now + interval_ticks);
        }
        due
    }

    /// A classic member's `onJoinComplete`: Kafka reschedules the auto-commit
    /// from now, so the first auto-commit of a generation comes a whole
    /// interval after its assignment.
    pub fn handle_join_complete(&mut self, now: Tick, auto_commit_interval_ticks: u64) {
        self.auto_commit_due = Some(now + auto_commit_interval_ticks);
    }

    /// When the next auto-commit is due, once the timer has started.
    pub fn auto_commit_due(&self) -> Option<Tick> {
        self.auto_commit_due
    }

    /// The process dies: no commit, no LeaveGroup; its connections close
    /// with it, so a share consumer's acknowledgements not sent yet are gone.
    /// Returns its member id.
    pub fn handle_crash(&mut self, now: Tick) -> String {
        let member_id = self.member_id.take().expect("a live consumer is a member");
        self.process = ConsumerState::Crashed;
        self.assigned.clear();
        self.pending_assignment = None;
        self.sync_polls_left = 0;
        self.positions.iter_mut().for_each(|p| *p = None);
        self.crashed_at = Some(now);
        self.crashed_during = Some(self.step);
        self.step = LoopStep::Idle;
        self.stalled_until = None;
        self.acks.clear();
        self.last_poll.clear();
        member_id
    }

    /// LeaveGroup after `close()`. Returns its member id.
    pub fn handle_leave(&mut self) -> String {
        let member_id = self.member_id.take().expect("a leaving consumer is a member");
        self.remove_after_leave = matches!(self.process, ConsumerState::Stopping { remove: true, .. });
        self.process = ConsumerState::Stopped;
        self.assigned.clear();
        self.pending_assignment = None;
        self.sync_polls_left = 0;
        self.positions.iter_mut().for_each(|p| *p = None);
        self.step = LoopStep::Idle;
        assert!(self.batch.is_empty(), "a consumer leaves with no batch in flight");
        member_id
    }

    pub fn take_batch(&mut self) -> VecDeque<Fetched> {
        std::mem::take(&mut self.batch)
    }

    /// A rebalance started (classic): it must send its JoinGroup again.
    pub fn handle_rebalance_started(&mut self) {
        self.joined = false;
        self.join_prepared = false;
        // A new rebalance before its SyncGroup answer: the model applies the
        // generation it has at its next poll, so the coordinator's record of
        // who owns what stays true (Kafka's client fails the SyncGroup with
        // REBALANCE_IN_PROGRESS and rejoins still owning those partitions).
        self.sync_polls_left = self.sync_polls_left.min(1);
    }

    /// Its JoinGroup for the rebalance in progress: the member id it sends.
    pub fn poll_join_group(&mut self) -> String {
        self.joined = true;
        self.join_prepared = false;
        self.member_id.clone().expect("a running consumer is a member")
    }

    /// Cooperative: its `onJoinPrepare` commit went out at this poll; the
    /// JoinGroup follows at the next.
    pub fn handle_join_prepared(&mut self) {
        self.join_prepared = true;
    }

    pub fn join_prepared(&self) -> bool {
        self.join_prepared
    }

    /// Cooperative: between its JoinGroup and the SyncGroup answer, its
    /// client is not part of a stable generation (`generationIfStable` is
    /// null): a commit then fails with `RebalanceInProgressException`.
    pub fn awaiting_sync(&self) -> bool {
        self.sync_polls_left > 0
    }

    /// Eager, in a rebalance with its JoinGroup sent: its loop waits in
    /// `poll()` for the new generation.
    pub fn handle_awaiting_assignment(&mut self) {
        self.step = LoopStep::Poll;
    }

    /// Cooperative: the new generation's assignment, which it applies two
    /// polls on: one reads the JoinGroup answer and sends the SyncGroup, the
    /// next reads the SyncGroup answer (`onJoinComplete`).
    pub fn handle_cooperative_assignment(&mut self, partitions: Vec<u32>) {
        self.pending_assignment = Some(partitions);
        self.sync_polls_left = 2;
    }

    /// At a poll boundary: the assignment to apply now, if one came (a
    /// cooperative one once its JoinGroup and SyncGroup answers are read).
    pub fn poll_pending_assignment(&mut self) -> Option<Vec<u32>> {
        if self.sync_polls_left > 0 {
            self.sync_polls_left -= 1;
            if self.sync_polls_left > 0 {
                return None;
            }
        }
        self.pending_assignment.take()
    }

    /// Consumer and share protocols: the answer to its first heartbeat
    /// (epoch 0): its member epoch and the assignment it applies at its next
    /// poll boundary. Its heartbeat timer starts: the next is due
    /// `interval_ticks` from `now`.
    pub fn handle_join_answer(
        &mut self,
        now: Tick,
        member_epoch: i32,
        assignment: Option<Vec<u32>>,
        interval_ticks: u64,
    ) {
        self.member_epoch = member_epoch;
        self.pending_assignment = assignment;
        self.next_heartbeat = now + interval_ticks;
    }

    /// Consumer and share protocols, the heartbeat timer: whether a
    /// heartbeat goes at `now`, because `heartbeat.interval` has passed or
    /// its owned partitions changed (the acknowledgement of a
    /// reconciliation). One that goes restarts the timer: the next is due
    /// `interval_ticks` from `now`. Out of its group, it sends none until it
    /// joins again.
    pub fn poll_heartbeat_due(&mut self, now: Tick, interval_ticks: u64) -> bool {
        if self.out_of_group.is_some() || !(self.heartbeat_now || now >= self.next_heartbeat) {
            return false;
        }
        self.next_heartbeat = now + interval_ticks;
        self.heartbeat_now = false;
        true
    }

    /// A heartbeat's answer: its member epoch, and a new assignment when the
    /// coordinator sent one (applied at its next poll boundary).
    pub fn handle_heartbeat_answer(&mut self, member_epoch: i32, assignment: Option<Vec<u32>>) {
        self.member_epoch = member_epoch;
        if let Some(assignment) = assignment {
            self.pending_assignment = Some(assignment);
        }
    }

    /// Consumer protocol: what it owns changed at a poll boundary, so its
    /// next heartbeat goes at once to tell the coordinator.
    pub fn handle_owned_partitions_changed(&mut self) {
        self.heartbeat_now = true;
    }

    /// Consumer protocol: fenced (`UNKNOWN_MEMBER_ID`) with no batch in hand:
    /// it loses its partitions (`onPartitionsLost`: nothing committed for
    /// them) and joins again at epoch 0.
    pub fn handle_fenced(&mut self) {
        self.apply_assignment(Vec::new(), &[]);
        self.pending_assignment = None;
        self.sync_polls_left = 0;
        self.member_epoch = 0;
        self.uncommitted = false;
    }

    /// `poll()` with nothing assigned: the loop idles.
    pub fn handle_poll_unassigned(&mut self) {
        self.step = LoopStep::Idle;
    }

    /// `poll()` returned `records` (some, or none): the loop goes on to
    /// handle them, or polls again.
    pub fn handle_poll_returned(&mut self, records: bool) {
        self.step = if records { LoopStep::Handle } else { LoopStep::Poll };
    }

    /// The tick's handling is over (or a stalled share consumer holds its
    /// records): with records of its batch left, the loop is handling.
    pub fn handle_batch_pending(&mut self) {
        if !self.batch.is_empty() {
            self.step = LoopStep::Handle;
        }
    }

    /// A share consumer handled what the tick allows: with its batch done,
    /// the loop's next line is `poll()` (which carries the acknowledgements);
    /// else it goes on handling.
    pub fn handle_share_tick_handled(&mut self) {
        self.step = if self.batch.is_empty() { LoopStep::Poll } else { LoopStep::Handle };
    }

    /// The end of a handled batch: nothing it handled waits for a commit
    /// after it any more, and the loop's next line is the commit (`commits`:
    /// it committed or checkpointed) or `poll()`.
    pub fn handle_batch_end(&mut self, commits: bool) {
        self.uncommitted = false;
        self.step = if commits { LoopStep::Commit } else { LoopStep::Poll };
    }

    /// Its commit (or its transaction's offsets) was written.
    pub fn handle_committed(&mut self) {
        self.uncommitted = false;
    }

    /// Its commit failed or was refused: what it would have written stays
    /// uncommitted until its next commit, and nothing it handled waits for one.
    pub fn handle_commit_failed(&mut self) {
        self.uncommitted = false;
    }

    /// Its batch was dropped without a commit (its transaction aborted, or
    /// its application closed on an exception): nothing waits for one.
    pub fn handle_batch_dropped(&mut self) {
        self.uncommitted = false;
    }

    /// What `commitSync()` sends: the position of every assigned partition.
    pub fn poll_commit(&self) -> Vec<(u32, u64)> {
        self.assigned
            .iter()
            .map(|&p| (p, self.positions[p as usize].expect("assigned partitions have positions")))
            .collect()
    }

    pub fn has_positions(&self) -> bool {
        self.positions.iter().any(Option::is_some)
    }

    /// An eager generation's assignment: every partition starts from `starts`.
    pub fn assign(&mut self, partitions: Vec<u32>, starts: &[(u32, u64)]) {
        assert!(self.batch.is_empty(), "members rejoin with no batch in flight");
        self.positions.iter_mut().for_each(|p| *p = None);
        for &(p, start) in starts {
            self.positions[p as usize] = Some(start);
        }
        self.step = if partitions.is_empty() { LoopStep::Idle } else { LoopStep::Poll };
        self.assigned = partitions;
        self.fetch_rotation = 0;
    }

    /// Cooperative, at a poll boundary: the new assignment revokes what it
    /// drops and starts what it adds at `starts`.
    pub fn apply_assignment(&mut self, new: Vec<u32>, starts: &[(u32, u64)]) {
        for &p in &self.assigned {
            if !new.contains(&p) {
                self.positions[p as usize] = None;
            }
        }
        for &(p, start) in starts {
            self.positions[p as usize] = Some(start);
        }
        self.step = if new.is_empty() { LoopStep::Idle } else { LoopStep::Poll };
        self.assigned = new;
        self.fetch_rotation = 0;
    }

    /// `poll()`'s fetch: up to `limit` records from the assigned partitions in
    /// turn, starting one partition further each time. `bounds(p)` is the
    /// partition's `(log start, log end, where auto.offset.reset puts a
    /// position retention deleted)`. Moves the positions.
    pub fn poll_fetch(&mut self, bounds: impl Fn(u32) -> (u64, u64, u64), limit: u32) -> Vec<FetchStep> {
        let mut plan = Vec::new();
        let n = self.assigned.len();
        if n == 0 {
            return plan;
        }
        let rotation = self.fetch_rotation % n;
        self.fetch_rotation = (rotation + 1) % n;
        let mut remaining = limit;
        for k in 0..n {
            if remaining == 0 {
                break;
            }
            let p = self.assigned[(rotation + k) % n];
            let (log_start, log_end, reset_to) = bounds(p);
            let mut position = self.positions[p as usize].expect("assigned partitions have positions");
            if position < log_start {
                // OffsetOutOfRange → auto.offset.reset.
                let to = reset_to.clamp(log_start, log_end.max(log_start));
                plan.push(FetchStep::Reset { partition: p, from: position, to });
                self.positions[p as usize] = Some(to);
                position = to;
            }
            let take = log_end.saturating_sub(position).min(u64::from(remaining));
            if take == 0 {
                continue;
            }
            plan.push(FetchStep::Read { partition: p, from: position, to: position + take });
            self.positions[p as usize] = Some(position + take);
            remaining -= take as u32;
        }
        plan
    }

    /// A share consumer's fetch: its partitions in turn, starting one
    /// further each time, as `poll_fetch` walks them.
    pub fn share_fetch_order(&mut self) -> Vec<u32> {
        let n = self.assigned.len();
        if n == 0 {
            return Vec::new();
        }
        let rotation = self.fetch_rotation % n;
        self.fetch_rotation = (rotation + 1) % n;
        (0..n).map(|k| self.assigned[(rotation + k) % n]).collect()
    }

    pub fn handle_fetched(&mut self, records: impl IntoIterator<Item = Fetched>) {
        self.batch.extend(records);
    }

    pub fn poll_record(&mut self) -> Option<Fetched> {
        self.batch.pop_front()
    }

    /// Share group, explicit mode: the application acknowledged a record;
    /// the acknowledgement goes with the next `poll()` (or on close).
    pub fn handle_acknowledged(&mut self, partition: u32, offset: u64, kind: AcknowledgeType) {
        self.acks.push((partition, offset, kind));
    }

    /// Share group, implicit mode: what this `poll()` returned, which the next accepts.
    pub fn handle_share_polled(&mut self, records: impl IntoIterator<Item = (u32, u64)>) {
        self.last_poll.extend(records);
    }

    /// Share group: the acknowledgements its next request carries: the
    /// application's (explicit mode), then accept for what the last `poll()`
    /// returned (implicit mode). They are sent: it holds none after.
    pub fn poll_acknowledgements(&mut self) -> Vec<(u32, u64, AcknowledgeType)> {
        let mut acks = std::mem::take(&mut self.acks);
        acks.extend(self.last_poll.drain(..).map(|(p, o)| (p, o, AcknowledgeType::Accept)));
        acks
    }

    /// The application handled `fetched`.
    pub fn handle_record_done(&mut self, fetched: &Fetched) {
        self.handled += 1;
        self.handled_by_partition[fetched.partition as usize] += 1;
        self.uncommitted = true;
    }

    /// The handler failed on `fetched` and the application tries it again in
    /// place (issue 40): it stays at the front of the batch, so the loop does
    /// not poll (and its poll timer runs) until it is done with it.
    pub fn handle_record_again(&mut self, fetched: Fetched) {
        self.batch.push_front(fetched);
    }

    /// The application gave up on a record it could not handle: the loop
    /// moves on, so the position past it is committed like any other.
    pub fn handle_record_skipped(&mut self) {
        self.uncommitted = true;
    }

    /// Starts a checkpoint of the assigned positions into its own store.
    pub fn begin_checkpoint(&mut self, now: Tick, write_ticks: u64) {
        let positions = self.poll_commit();
        self.uncommitted = false;
        self.checkpoint = Some(PendingCheckpoint { positions, done_at: now + write_ticks });
    }

    /// Completes a due checkpoint; returns it.
    pub fn finish_checkpoint(&mut self, now: Tick) -> Option<CheckpointView> {
        let pending = self.checkpoint.take_if(|p| p.done_at <= now)?;
        for &(p, offset) in &pending.positions {
            self.store[p as usize] = Some(offset);
        }
        let done = CheckpointView { tick: now, positions: pending.positions };
        self.last_checkpoint = Some(done.clone());
        Some(done)
    }

    /// The process died mid-write. An atomic write (temp file, rename) leaves
    /// the old file; an in-place write leaves a prefix of the new digits,
    /// `kept(digits)` of them. Returns the torn `(partition, intended, stored)`.
    pub fn abort_checkpoint(
        &mut self,
        writes: CheckpointWrites,
        mut kept: impl FnMut(u32) -> u32,
    ) -> Option<Vec<(u32, u64, u64)>> {
        let pending = self.checkpoint.take()?;
        let mut torn_writes = Vec::new();
        if writes == CheckpointWrites::InPlace {
            for (p, intended) in pending.positions {
                let digits = intended.to_string().len() as u32;
                let stored = torn(intended, kept(digits) as usize);
                self.store[p as usize] = Some(stored);
                torn_writes.push((p, intended, stored));
            }
        }
        Some(torn_writes)
    }

    pub fn add_partitions(&mut self, added: u32) {
        let added = added as usize;
        self.positions.extend(std::iter::repeat_n(None, added));
        self.store.extend(std::iter::repeat_n(None, added));
        self.resumed_from.extend(std::iter::repeat_n(None, added));
        self.handled_by_partition.extend(std::iter::repeat_n(0, added));
    }
}

/// What the naive reader makes of a prefix of `value`'s digits: the digits it
/// finds, or 0 from an empty file.
fn torn(value: u64, kept_digits: usize) -> u64 {
    let digits = value.to_string();
    digits[..kept_digits.min(digits.len())].parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn a_torn_write_keeps_a_prefix_of_the_digits() {
        assert_eq!(torn(1234, 2), 12);
        assert_eq!(torn(1234, 0), 0);
        assert_eq!(torn(1234, 3), 123);
        assert_eq!(torn(7, 0), 0);
    }

    #[test]
    fn a_fetch_rotates_over_partitions_and_jumps_over_deleted_offsets() {
        let mut c = Consumer::new(ConsumerId(1), 0, 3);
        c.handle_start("m".into(), 0);
        c.assign(vec![0, 2], &[(0, 0), (2, 1)]);
        let plan = c.poll_fetch(|p| [(0, 2, 0), (0, 0, 0), (5, 9, 5)][p as usize], 3);
        assert_eq!(
            plan,
            vec![
                FetchStep::Read { partition: 0, from: 0, to: 2 },
                FetchStep::Reset { partition: 2, from: 1, to: 5 },
                FetchStep::Read { partition: 2, from: 5, to: 6 },
            ]
        );
        assert_eq!(c.positions[2], Some(6));
        // The next poll starts from the other partition.
        let plan = c.poll_fetch(|p| [(0, 2, 0), (0, 0, 0), (5, 9, 5)][p as usize], 3);
        assert_eq!(plan, vec![FetchStep::Read { partition: 2, from: 6, to: 9 }]);
    }
}
