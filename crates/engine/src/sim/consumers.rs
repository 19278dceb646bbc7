//! Routing for the consumers' loops: each consumer's `poll → handle → commit`
//! as one tick of it, with what it asks for carried to the topic (fetches),
//! its group's coordinator (joins and leaves), its group's offsets
//! (commits), its application and its group's observer (handled records).

use super::failures::AfterFailure;
use super::protocol::consumer_member_id;
use super::{Sim, uuid};
use crate::app::HandledRecord;
use crate::client::{Consumer, FetchStep, Fetched, OutOfGroup};
use crate::config::GroupProtocol;
use crate::config::{AutoOffsetReset, CheckpointWrites, CommitMode, PositionModel};
use crate::event::Event;
use crate::evidence::Runs;
use crate::input::ConsumerId;
use crate::partitioner::partition_for_key;
use crate::sim::subject_key;
use crate::view::ConsumerState;

impl Sim {
    pub(super) fn add_consumer_card(&mut self, group: usize) -> ConsumerId {
        let id = ConsumerId(self.next_consumer_number);
        self.next_consumer_number += 1;
        let mut consumer = Consumer::new(id, group, self.topic.partition_count());
        if self.groups[group].config.static_members {
            consumer.handle_instance_id(format!("inst-{}", id.0));
        }
        self.consumers.push(consumer);
        id
    }

    /// A new incarnation joins its group: a JoinGroup without a member id
    /// (classic; the coordinator names it `clientId-UUID`, or
    /// `groupInstanceId-UUID` for a static member), or a heartbeat at
    /// epoch 0 with the member id the consumer made (consumer protocol).
    pub(super) fn start_consumer(&mut self, id: ConsumerId) {
        let c = self.consumer_index(id).expect("starting a consumer that exists");
        let g = self.consumers[c].group();
        let member_id = self.new_member_id(c);
        self.consumers[c].handle_start(member_id.clone(), self.now);
        self.emit(Event::Started { tick: self.now, consumer: id, member_id });
        if self.transactional(c) {
            self.eos_init(c);
        }
        match self.protocol(g) {
            GroupProtocol::Classic => self.join_classic_group(c),
            GroupProtocol::Consumer => self.join_consumer_group(c),
            GroupProtocol::Share => self.join_share_group(c),
        }
    }

    /// A member id for a JoinGroup without one: Kafka names a classic member
    /// after its client id (its `group.instance.id` when static) and a UUID;
    /// a consumer-protocol member makes its own.
    fn new_member_id(&mut self, c: usize) -> String {
        let g = self.consumers[c].group();
        match self.protocol(g) {
            GroupProtocol::Classic => {
                let id = self.consumers[c].id();
                let prefix =
                    self.consumers[c].instance_id().map(str::to_owned).unwrap_or_else(|| id.to_string());
                format!("{prefix}-{}", uuid(&mut self.groups[g].rng))
            }
            GroupProtocol::Consumer | GroupProtocol::Share => consumer_member_id(&mut self.groups[g].rng),
        }
    }

    pub(super) fn crash(&mut self, c: usize) {
        let now = self.now;
        self.abort_checkpoint(c);
        let abandoned = self.abandon_batch(c);
        let g = self.consumers[c].group();
        let id = self.consumers[c].id();
        let left = self.consumers[c].out_of_group().is_some();
        let member_id = self.consumers[c].handle_crash(now);
        let expires_at = now + self.groups[g].config.session_timeout_ticks;
        // A stalled member its group already removed (its session ran out, or
        // a new instance took its place), or one that left on its poll
        // timeout, has nothing left to expire.
        if !left
            && (self.protocol(g) != GroupProtocol::Classic
                || self.coordinators[g].member(&member_id).is_some())
        {
            self.coordinators[g].handle_member_died(&member_id, expires_at);
        }
        if self.protocol(g) == GroupProtocol::Share {
            // Its connections closed with the process: the broker gives back
            // what it held (acknowledgements not sent yet went with the process).
            self.release_share_member(g, id);
        }
        self.emit(Event::Crashed { tick: now, consumer: id, member_id, abandoned });
    }

    /// A stalled consumer of any group wakes at `now`; with its member id gone
    /// from the group it goes on with its batch for this tick and then learns
    /// at its next request that it is out: `FENCED_INSTANCE_ID` (fatal) when
    /// another incarnation holds its `group.instance.id`, else
    /// `UNKNOWN_MEMBER_ID`, and it joins again as a new member. Returns
    /// whether the tick's normal step still runs.
    pub(super) fn wake(&mut self, c: usize) -> bool {
        let g = self.consumers[c].group();
        let id = self.consumers[c].id();
        let member = self.consumers[c].member_id().map(str::to_owned);
        let known = member.as_deref().is_some_and(|m| self.coordinators[g].member(m).is_some());
        let classic = self.protocol(g) == GroupProtocol::Classic;
        let replaced = classic && !known;
        self.emit(Event::Woke { tick: self.now, consumer: id, replaced });
        if known {
            // Its heartbeats resume before its session ran out: it stays.
            self.coordinators[g].handle_member_alive(member.as_deref().expect("known"));
            return true;
        }
        if !classic || self.consumers[c].out_of_group().is_some() {
            // A KIP-848 member learns of its fencing from its next heartbeat's answer;
            // one that had left on its poll timeout was out of the group already.
            return true;
        }
        // The zombie's tick: the records it held are handled (their effects
        // happen; a transactional producer's write is refused), then its next
        // request tells it it is out of the group.
        self.handle_some(c);
        if !self.consumers[c].alive() {
            return false;
        }
        // Another incarnation with its group.instance.id took its place: fatal.
        // Else its session ran out: it rejoins as a new member.
        let replaced_by_twin = self.consumers[c]
            .instance_id()
            .is_some_and(|instance| self.coordinators[g].static_member(instance).is_some());
        if replaced_by_twin {
            self.end_fenced(c, "FENCED_INSTANCE_ID");
        } else {
            self.end_fenced(c, "UNKNOWN_MEMBER_ID");
            self.start_consumer(id);
        }
        false
    }

    pub(super) fn begin_stop(&mut self, c: usize, remove: bool) {
        let g = self.consumers[c].group();
        let deadline = self.now + self.groups[g].config.shutdown_deadline_ticks;
        self.consumers[c].handle_stop(deadline, remove);
        let consumer = self.consumers[c].id();
        self.emit(Event::Stopping { tick: self.now, consumer });
    }

    pub(super) fn remove_card(&mut self, c: usize) {
        let consumer = self.consumers.remove(c);
        assert!(consumer.member_id().is_none(), "only a consumer out of the group is removed");
        self.emit(Event::Removed { tick: self.now, consumer: consumer.id() });
    }

    /// Drops the in-flight batch; returns how many records were in it.
    pub(super) fn abandon_batch(&mut self, c: usize) -> u32 {
        let g = self.consumers[c].group();
        let batch = self.consumers[c].take_batch();
        for fetched in &batch {
            let committed = self.offsets[g].get(fetched.partition);
            self.observers[g].handle_abandoned(fetched, committed);
        }
        batch.len() as u32
    }

    pub(super) fn step_consumer(&mut self, c: usize) {
        if self.consumers[c].frozen(self.now) {
            return; // frozen
        }
        if self.consumers[c].poll_wake(self.now) && !self.wake(c) {
            return; // its zombie tick is over
        }
        if self.consumers[c].writing_checkpoint() && !self.finish_checkpoint(c) {
            return; // still writing its checkpoint: the loop waits for it
        }
        let g = self.consumers[c].group();
        if self.protocol(g) == GroupProtocol::Share {
            return self.step_share_consumer(c);
        }
        let settings = self.groups[g].settings;
        let heartbeats = self.protocol(g) == GroupProtocol::Consumer;
        if matches!(self.consumers[c].state(), ConsumerState::Running | ConsumerState::Paused) {
            if self.consumers[c].out_of_group().is_some() {
                return self.step_out_of_group(c);
            }
            // The poll timer: the loop calls poll() whenever it holds no batch (a paused
            // consumer too: pause() stops fetching, not polling); a batch that takes
            // longer than max.poll.interval makes the client leave by itself.
            let max = self.groups[g].config.max_poll_interval_ticks;
            let consumer = &mut self.consumers[c];
            if consumer.batch_is_empty() && !consumer.writing_checkpoint() {
                consumer.handle_polled(self.now);
            } else if consumer.poll_timer_expired(self.now, max) {
                self.leave_on_poll_timeout(c);
                return self.step_out_of_group(c);
            }
            if !heartbeats {
                self.refresh_metadata(c);
            }
        }
        match self.consumers[c].state() {
            ConsumerState::Crashed | ConsumerState::Stopped => {}
            ConsumerState::Running | ConsumerState::Paused if heartbeats => {
                if self.consumers[c].batch_is_empty() && !self.consumers[c].writing_checkpoint() {
                    // The poll boundary: reconcile to what the last heartbeat
                    // answered (revoking first), then tell the coordinator.
                    self.apply_pending_assignment(c);
                }
                self.heartbeat_if_due(c);
                if !self.consumers[c].alive() {
                    return; // refused for good
                }
                if self.consumers[c].batch_is_empty() {
                    self.poll(c);
                }
                self.handle_some(c);
                self.commit_if_batch_done(c);
            }
            ConsumerState::Stopping { deadline, .. } => {
                if heartbeats {
                    self.heartbeat_if_due(c);
                }
                self.handle_some(c);
                if !self.consumers[c].alive() {
                    return; // its producer was fenced: the application closed
                }
                if self.consumers[c].batch_is_empty() {
                    self.commit_on_close(c);
                    if !matches!(self.consumers[c].state(), ConsumerState::Stopping { .. }) {
                        return; // an armed fault killed it at the commit
                    }
                    if !self.consumers[c].writing_checkpoint() {
                        self.leave(c);
                    }
                } else if self.now >= deadline {
                    let abandoned = self.abandon_batch(c);
                    let consumer = self.consumers[c].id();
                    self.emit(Event::ShutdownDeadlinePassed { tick: self.now, consumer, abandoned });
                    self.leave(c);
                }
            }
            ConsumerState::Running | ConsumerState::Paused => match self.coordinators[g].state() {
                crate::broker::GroupState::PreparingRebalance if !settings.assignor.cooperative() => {
                    if !self.consumers[c].joined() {
                        if !self.consumers[c].batch_is_empty() {
                            self.handle_some(c);
                            self.commit_if_batch_done(c);
                            if !self.consumers[c].alive() {
                                return; // an armed fault killed it at the commit
                            }
                        }
                        if self.consumers[c].batch_is_empty() && !self.consumers[c].writing_checkpoint() {
                            self.join_prepare(c);
                            self.join_group(c);
                            self.consumers[c].handle_awaiting_assignment();
                        }
                    } else {
                        self.consumers[c].handle_awaiting_assignment();
                    }
                }
                _ => {
                    if self.consumers[c].batch_is_empty() && !self.consumers[c].writing_checkpoint() {
                        // The poll boundary: a cooperative member applies its new
                        // assignment here (which may start a rebalance), and rejoins
                        // a rebalance in progress without stopping what it keeps.
                        self.apply_pending_assignment(c);
                        let preparing =
                            self.coordinators[g].state() == crate::broker::GroupState::PreparingRebalance;
                        if preparing && !self.consumers[c].joined() {
                            // Kafka's client polls the group with a zero timer: the
                            // onJoinPrepare commit goes at one poll, the JoinGroup once
                            // it is answered, at the next.
                            if self.consumers[c].join_prepared() || !self.join_prepare(c) {
                                self.join_group(c);
                            } else if self.consumers[c].alive() {
                                self.consumers[c].handle_join_prepared();
                            }
                        }
                    }
                    if self.consumers[c].batch_is_empty() {
                        self.poll(c);
                    }
                    self.handle_some(c);
                    self.commit_if_batch_done(c);
                }
            },
        }
    }

    /// Its poll timer ran out: the client leaves its group by itself (the
    /// heartbeat thread's LeaveGroup; a static member sends none and its
    /// session runs out instead) while the application goes on with its batch.
    fn leave_on_poll_timeout(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let now = self.now;
        let consumer = &mut self.consumers[c];
        let since_poll_ticks = consumer.since_poll(now);
        let member_id = consumer.member_id().expect("a member in its group").to_owned();
        let is_static = consumer.instance_id().is_some();
        let id = consumer.id();
        consumer.handle_out_of_group(OutOfGroup::PollTimeout);
        self.observers[g].handle_member_left_poll_timeout();
        self.emit(Event::MemberLeft {
            tick: now,
            consumer: id,
            member_id: member_id.clone(),
            reason: "consumer poll timeout has expired",
            since_poll_ticks,
        });
        self.send_leave(g, &member_id, is_static);
    }

    /// A member out of its group since its poll timer ran out: it handles the
    /// rest of its batch, whose commit fails, then at its next poll joins
    /// again as a new member (an auto-commit there fails too) and has lost
    /// the partitions it held.
    fn step_out_of_group(&mut self, c: usize) {
        if !self.consumers[c].batch_is_empty() {
            self.handle_some(c);
            if self.consumers[c].alive() {
                self.commit_if_batch_done(c);
            }
            return;
        }
        if self.consumers[c].writing_checkpoint() {
            return;
        }
        let g = self.consumers[c].group();
        let settings = self.groups[g].settings;
        if settings.group_commits() && settings.commit.is_auto() && self.consumers[c].has_positions() {
            self.commit(c);
        }
        // A KIP-848 member keeps the member id it made; a classic one is given a new one.
        let member_id = match self.protocol(g) {
            GroupProtocol::Classic => self.new_member_id(c),
            _ => self.consumers[c].member_id().expect("its member id stays until it rejoins").to_owned(),
        };
        let lost = self.consumers[c].handle_rejoin(member_id.clone(), self.now);
        let consumer = self.consumers[c].id();
        self.emit(Event::Rejoined { tick: self.now, consumer, member_id, lost: lost.into() });
        match self.protocol(g) {
            GroupProtocol::Classic => self.join_classic_group(c),
            GroupProtocol::Consumer => self.join_consumer_group(c),
            GroupProtocol::Share => unreachable!("a share consumer has no poll timer here"),
        }
    }

    /// Why a commit from this member fails with `CommitFailedException`, if it
    /// does: it left its group on its poll timeout (the client knows it is out:
    /// no request), or the classic coordinator no longer knows its member id
    /// (a zombie whose session ran out: `UNKNOWN_MEMBER_ID`).
    fn commit_fails(&self, c: usize) -> Option<&'static str> {
        let consumer = &self.consumers[c];
        match consumer.out_of_group() {
            Some(OutOfGroup::PollTimeout) => {
                return Some(
                    "the consumer is not part of an active group; it is likely that the consumer was kicked out of the group",
                );
            }
            Some(OutOfGroup::Fenced) => {
                return Some("UNKNOWN_MEMBER_ID: the member was fenced; its session ran out");
            }
            None => {}
        }
        let g = consumer.group();
        let known = consumer.member_id().is_some_and(|m| self.coordinators[g].member(m).is_some());
        (self.protocol(g) == GroupProtocol::Classic && !known)
            .then_some("UNKNOWN_MEMBER_ID: the coordinator no longer knows this member; its session ran out")
    }

    /// `commitSync()` refused for `reason` ([`Sim::commit_fails`]):
    /// `CommitFailedException`, nothing written; another member reads these
    /// records again, and the group's offset never goes back.
    fn fail_commit(&mut self, c: usize, offsets: Vec<(u32, u64)>, reason: &'static str) {
        let g = self.consumers[c].group();
        self.consumers[c].handle_commit_failed();
        self.observers[g].handle_commit_failed();
        let consumer = self.consumers[c].id();
        self.emit(Event::CommitFailed { tick: self.now, consumer, offsets, reason });
    }

    /// A classic member's `onJoinPrepare`, eager and cooperative alike: with
    /// auto-commit, commit what earlier polls returned for every partition it
    /// owns, before its JoinGroup (while its generation is still current, so
    /// the coordinator accepts it).
    /// Returns whether it committed.
    fn join_prepare(&mut self, c: usize) -> bool {
        let settings = self.groups[self.consumers[c].group()].settings;
        let commits =
            settings.group_commits() && settings.commit.is_auto() && self.consumers[c].has_positions();
        if commits {
            self.commit(c);
        }
        commits
    }

    /// The member's JoinGroup in the rebalance in progress.
    fn join_group(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let member_id = self.consumers[c].poll_join_group();
        self.coordinators[g].handle_rejoin(&member_id);
    }

    /// `poll()`: auto-commit if due, fetch up to `records_per_poll`, and with
    /// commit-before, commit before handling anything.
    fn poll(&mut self, c: usize) {
        let now = self.now;
        let g = self.consumers[c].group();
        let settings = self.groups[g].settings;
        if settings.group_commits() && self.groups[g].config.auto_offset_reset == AutoOffsetReset::None {
            // Nothing to start from and nothing allowed to guess: poll() throws
            // before it fetches or auto-commits, and the application dies with it.
            let consumer = &self.consumers[c];
            let missing = consumer.assigned().iter().find_map(|&p| {
                if self.offsets[g].get(p).is_none() {
                    Some((p, "NoOffsetForPartitionException"))
                } else {
                    let below = consumer.position(p).is_some_and(|o| o < self.topic.log_start(p));
                    below.then_some((p, "OffsetOutOfRangeException"))
                }
            });
            if let Some((partition, error)) = missing {
                let consumer = self.consumers[c].id();
                self.emit(Event::NoOffset { tick: now, consumer, partition, error });
                return self.crash(c);
            }
        }
        if let (true, CommitMode::Auto { interval_ticks }) = (settings.group_commits(), settings.commit) {
            if self.consumers[c].poll_auto_commit(now, interval_ticks) && self.consumers[c].has_positions() {
                self.commit(c);
            }
        }
        if self.consumers[c].assigned().is_empty() {
            self.consumers[c].handle_poll_unassigned();
            return;
        }
        if self.consumers[c].state() == ConsumerState::Paused {
            // pause() stops the fetching, not the poll: the timers above go on.
            return;
        }
        // Consumers read below the high watermark (the log end without a cluster).
        let topic = &self.topic;
        let hw: Vec<u64> = match &self.delivery {
            Some(path) => (0..topic.partition_count()).map(|p| path.replication.high_watermark(p)).collect(),
            None => Vec::new(),
        };
        // Where a position retention deleted goes: auto.offset.reset again. Worked out
        // only when one did (rare): not on every poll.
        let consumer = &self.consumers[c];
        let out_of_range =
            consumer.assigned().iter().any(|&p| consumer.position(p).is_some_and(|o| o < topic.log_start(p)));
        let resets: Vec<u64> = match self.groups[g].config.auto_offset_reset {
            AutoOffsetReset::Latest | AutoOffsetReset::ByDuration(_) if out_of_range => {
                (0..topic.partition_count()).map(|p| self.auto_reset_position(g, p)).collect()
            }
            _ => Vec::new(),
        };
        let plan = self.consumers[c].poll_fetch(
            |p| {
                let log_start = topic.log_start(p);
                let end = hw.get(p as usize).copied().unwrap_or_else(|| topic.log_end(p));
                (log_start, end, resets.get(p as usize).copied().unwrap_or(log_start))
            },
            settings.records_per_poll,
        );
        let consumer = self.consumers[c].id();
        // A stalled member, or one that left on its poll timeout, may still hold
        // a copy its group gave away.
        let overlap =
            self.consumers.iter().any(|x| x.group() == g && (x.is_stalled() || x.out_of_group().is_some()));
        let mut fetched_any = false;
        for step in plan {
            match step {
                FetchStep::Reset { partition, from, to } => {
                    let log_start = self.topic.log_start(partition);
                    if to > log_start {
                        self.observers[g].handle_reset_skip(partition, log_start, to);
                    }
                    self.emit(Event::PositionReset { tick: now, consumer, partition, from, to });
                }
                FetchStep::Read { partition, from, to } => {
                    fetched_any = true;
                    self.observers[g].handle_fetched(partition, from, to, overlap);
                    let records = self.topic.handle_fetch(partition, from, to).map(|(offset, r)| Fetched {
                        partition,
                        offset,
                        id: r.id,
                        subject: r.subject,
                        keyed: r.keyed,
                        produced_tick: r.produced_tick,
                        poison: r.poison,
                        failing: r.failing,
                        delivery_count: 0,
                        producer_copy: r.producer_copy,
                        producer_reordered: r.producer_reordered,
                    });
                    self.consumers[c].handle_fetched(records);
                    self.emit(Event::Fetched { tick: now, consumer, partition, from, to });
                }
            }
        }
        self.consumers[c].handle_poll_returned(fetched_any);
        if !fetched_any {
            return;
        }
        if settings.group_commits() && settings.commit == CommitMode::Before {
            self.commit(c);
        }
    }

    pub(super) fn handle_some(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let settings = self.groups[g].settings;
        // The evidence takes the tick's handled offsets as runs, built here.
        let mut runs = Runs::default();
        let mut ended = false;
        for _ in 0..settings.handle_per_tick {
            let Some(fetched) = self.consumers[c].poll_record() else { break };
            // Only a record that may fail has a backoff or fails (issue 40's
            // error policies): every other one goes straight to the handler.
            if fetched.may_fail() && !self.attempt_due(c, &fetched) {
                // The handler sleeps out its backoff: nothing else of the batch goes on.
                self.consumers[c].handle_record_again(fetched);
                break;
            }
            if fetched.may_fail() && self.apps[g].fails(&fetched) {
                // The group's error policy (issue 40); `skip`, the default, is
                // what the application did before: it catches the failure and moves on.
                match self.handle_failure(c, &fetched) {
                    AfterFailure::Again => {
                        self.consumers[c].handle_record_again(fetched);
                        break;
                    }
                    AfterFailure::MovedOn => self.consumers[c].handle_record_skipped(),
                }
            } else {
                self.handle_record(c, &fetched, &mut runs);
                if !self.consumers[c].alive() {
                    ended = true; // its producer was fenced: the application closed
                    break;
                }
            }
            if settings.group_commits() && settings.commit == CommitMode::EachRecord {
                if self.fault_at_commit(c) {
                    ended = true;
                    break;
                }
                self.commit_record(c, fetched.partition, fetched.offset + 1);
            }
        }
        if let Some(over) = runs.finish() {
            let consumer = self.consumers[c].id();
            self.evidence.handle_run(g, consumer, over, self.now);
        }
        if !ended {
            self.consumers[c].handle_batch_pending();
        }
    }

    /// One record through the group's observer (is it new to the group?),
    /// its application, and the bridge when the application bridges.
    /// `runs`: the run the caller's loop is building for the evidence.
    pub(super) fn handle_record(&mut self, c: usize, fetched: &Fetched, runs: &mut Runs) {
        let g = self.consumers[c].group();
        let consumer = self.consumers[c].id();
        let first = self.observers[g].handle_delivered(fetched);
        let idempotent = self.groups[g].settings.idempotent;
        let handled = self.apps[g].handle_record(self.now, consumer, fetched, first, idempotent);
        if self.groups[g].config.bridge {
            self.bridge_write(g, fetched);
        }
        self.consumers[c].handle_record_done(fetched);
        if let Some(over) = runs.handle(fetched.partition, fetched.offset) {
            self.evidence.handle_run(g, consumer, over, self.now);
        }
        self.report_handled(g, &handled);
        if self.transactional(c) {
            // After the handler's effect (the ledger), as the application sends.
            self.eos_write(c, fetched);
        }
    }

    /// What group `g`'s application did with a record, told to the
    /// evidence (an anomaly) and as the `Handled` event: the end of a
    /// handling from the consumer's loop and from a retry topic alike.
    #[inline(always)]
    pub(super) fn report_handled(&mut self, g: usize, handled: &HandledRecord) {
        if handled.duplicate || handled.out_of_key_order {
            self.evidence.handle_anomaly(g, handled);
        }
        self.emit_inline(Event::Handled {
            tick: self.now,
            consumer: handled.consumer,
            partition: handled.partition,
            offset: handled.offset,
            record_id: handled.record_id,
            duplicate: handled.duplicate,
            out_of_key_order: handled.out_of_key_order,
            effect: handled.effect,
        });
    }

    /// The bridge's write: the key picks the target partition (same count, so
    /// the same partition) and is then dropped; keyless records keep theirs.
    fn bridge_write(&mut self, g: usize, fetched: &Fetched) {
        let partition = if fetched.keyed {
            partition_for_key(subject_key(fetched.subject).as_bytes(), self.topic.partition_count())
        } else {
            fetched.partition
        };
        let target_offset = self.bridge.handle_write(partition, fetched.id, self.topic.retention_records());
        self.observers[g].handle_bridged();
        self.emit(Event::Bridged { tick: self.now, partition, target_offset, record_id: fetched.id });
    }

    pub(super) fn commit_if_batch_done(&mut self, c: usize) {
        let consumer = &self.consumers[c];
        if !(consumer.alive() && consumer.batch_is_empty() && consumer.uncommitted()) {
            return;
        }
        let settings = self.groups[consumer.group()].settings;
        if self.fault_at_commit(c) {
            return;
        }
        let commits = if !settings.group_commits() {
            // Positions on the consumer: checkpoint after the batch was handled.
            self.begin_checkpoint(c);
            true
        } else if self.transactional(c) {
            self.eos_commit(c);
            if !self.consumers[c].alive() {
                return; // its producer was fenced: the application closed
            }
            true
        } else if settings.commit == CommitMode::After {
            self.commit(c);
            true
        } else {
            false
        };
        // The loop's next line: the commit after the batch, or back to poll.
        self.consumers[c].handle_batch_end(commits);
    }

    /// `close()`: commit-after has committed at the batch end already;
    /// auto-commit commits on close.
    fn commit_on_close(&mut self, c: usize) {
        let settings = self.groups[self.consumers[c].group()].settings;
        if !settings.group_commits() {
            return self.commit_if_batch_done(c);
        }
        match settings.commit {
            CommitMode::After => self.commit_if_batch_done(c),
            CommitMode::Auto { .. } => {
                if self.consumers[c].has_positions() {
                    self.commit(c);
                }
            }
            CommitMode::Before | CommitMode::EachRecord => {}
        }
    }

    /// A member that has sent its JoinGroup and awaits the new generation: Kafka's
    /// classic consumer fails its commits (`RebalanceInProgressException`, "retry
    /// after poll()"). Only a cooperative member gets here with partitions: an
    /// eager one commits before it rejoins and fetches nothing until it is assigned.
    fn rejoining(&self, c: usize) -> bool {
        let consumer = &self.consumers[c];
        consumer.joined()
            && (self.coordinators[consumer.group()].state() == crate::broker::GroupState::PreparingRebalance
                || consumer.awaiting_sync())
    }

    /// The commit failed without a request: what it would have written stays
    /// uncommitted until the member's next commit, after the rebalance.
    fn refuse_commit(&mut self, c: usize, offsets: Vec<(u32, u64)>) {
        self.consumers[c].handle_commit_failed();
        let consumer = self.consumers[c].id();
        self.emit(Event::CommitRefused { tick: self.now, consumer, offsets });
    }

    /// `commitSync()`: the consumer's positions for all its partitions.
    pub(super) fn commit(&mut self, c: usize) {
        let offsets = self.consumers[c].poll_commit();
        if let Some(reason) = self.commit_fails(c) {
            return self.fail_commit(c, offsets, reason);
        }
        if self.rejoining(c) {
            return self.refuse_commit(c, offsets);
        }
        let g = self.consumers[c].group();
        for &(p, offset) in &offsets {
            self.set_committed(g, p, offset);
        }
        self.consumers[c].handle_committed();
        self.observers[g].handle_commit_request();
        let consumer = self.consumers[c].id();
        self.emit(Event::Committed { tick: self.now, consumer, offsets });
    }

    /// `commitSync({partition: offset})` for one handled record.
    fn commit_record(&mut self, c: usize, partition: u32, offset: u64) {
        if let Some(reason) = self.commit_fails(c) {
            return self.fail_commit(c, vec![(partition, offset)], reason);
        }
        if self.rejoining(c) {
            return self.refuse_commit(c, vec![(partition, offset)]);
        }
        let g = self.consumers[c].group();
        self.set_committed(g, partition, offset);
        self.consumers[c].handle_committed();
        self.observers[g].handle_commit_request();
        let consumer = self.consumers[c].id();
        self.emit(Event::Committed { tick: self.now, consumer, offsets: vec![(partition, offset)] });
    }

    /// Writes group `g`'s committed offset and tells its observer.
    pub(super) fn set_committed(&mut self, g: usize, partition: u32, offset: u64) {
        let end = self.topic.log_end(partition);
        // Positions only move by fetching, resets clamp to the log, and a
        // consumer-side position past the log end is reset when positions move
        // to the group: a commit never passes the log end.
        assert!(offset <= end, "committed {offset} beyond log end {end}");
        let old = self.offsets[g].handle_commit(partition, offset);
        self.observers[g].handle_commit(partition, old, offset);
    }

    fn leave(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let is_static = self.consumers[c].instance_id().is_some();
        // One that left on its poll timeout is no longer in the group: nothing to send.
        let in_group = self.consumers[c].out_of_group().is_none();
        let member_id = self.consumers[c].handle_leave();
        let consumer = self.consumers[c].id();
        self.emit(Event::Left { tick: self.now, consumer, member_id: member_id.clone() });
        if in_group {
            self.send_leave(g, &member_id, is_static);
        }
    }

    /// Removes the cards of consumers that left with `RemoveConsumer`.
    pub(super) fn finish_leaving(&mut self) {
        let mut c = 0;
        while c < self.consumers.len() {
            let consumer = &self.consumers[c];
            if consumer.state() == ConsumerState::Stopped && consumer.remove_after_leave() {
                self.remove_card(c);
            } else {
                c += 1;
            }
        }
    }

    /// Fires an armed "killed after the ledger commit, before the offset
    /// commit" fault at the commit point; returns whether the consumer died.
    pub(super) fn fault_at_commit(&mut self, c: usize) -> bool {
        if !self.consumers[c].poll_kill_before_commit() {
            return false;
        }
        let consumer = self.consumers[c].id();
        self.emit(Event::KilledBeforeCommit { tick: self.now, consumer });
        self.crash(c);
        true
    }

    // ------------------------------------------------- consumer-side stores

    fn begin_checkpoint(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let PositionModel::Consumer { write_ticks, .. } = self.groups[g].settings.position else {
            unreachable!("checkpoints belong to the consumer-side store model")
        };
        self.consumers[c].begin_checkpoint(self.now, write_ticks);
        self.observers[g].handle_commit_request();
        if write_ticks == 0 {
            self.finish_checkpoint(c);
        }
    }

    /// Completes a due checkpoint; returns whether the consumer is free again.
    fn finish_checkpoint(&mut self, c: usize) -> bool {
        let Some(done) = self.consumers[c].finish_checkpoint(self.now) else {
            return !self.consumers[c].writing_checkpoint();
        };
        let consumer = self.consumers[c].id();
        self.emit(Event::Checkpointed { tick: self.now, consumer, positions: done.positions });
        true
    }

    /// The process died mid-write: an atomic write leaves the old file, an
    /// in-place write leaves a prefix of the new digits (how many reached
    /// the file before the crash: fewer than all, from the group's PRNG).
    fn abort_checkpoint(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let writes = match self.groups[g].settings.position {
            PositionModel::Consumer { writes: CheckpointWrites::InPlace, .. } => CheckpointWrites::InPlace,
            _ => CheckpointWrites::Atomic,
        };
        let rng = &mut self.groups[g].rng;
        let Some(torn) = self.consumers[c].abort_checkpoint(writes, |digits| rng.below(digits)) else {
            return;
        };
        let consumer = self.consumers[c].id();
        if writes == CheckpointWrites::Atomic {
            self.emit(Event::CheckpointAbandoned { tick: self.now, consumer });
            return;
        }
        for (partition, intended, stored) in torn {
            self.observers[g].handle_torn_checkpoint();
            self.emit(Event::CheckpointTorn { tick: self.now, consumer, partition, intended, stored });
        }
    }

    /// A consumer starts `partition` from `start`: records `resumedFrom` and
    /// what the split check makes of the gap to the last known position.
    pub(super) fn note_resume(&mut self, c: usize, partition: u32, start: u64) {
        let g = self.consumers[c].group();
        let settings = self.groups[g].settings;
        let id = self.consumers[c].id();
        let policy = self.groups[g].config.auto_offset_reset;
        if settings.group_commits()
            && self.offsets[g].get(partition).is_none()
            && !matches!(policy, AutoOffsetReset::Earliest | AutoOffsetReset::None)
        {
            // No committed offset: auto.offset.reset chose the start, past what it skips.
            let log_start = self.topic.log_start(partition);
            let skipped = self.observers[g].handle_reset_skip(partition, log_start, start);
            self.emit(Event::ResetPosition {
                tick: self.now,
                consumer: id,
                partition,
                policy: policy.kind(),
                to: start,
                skipped,
            });
        }
        if !settings.group_commits() {
            self.consumers[c].handle_resumed(partition, start);
            let last_known = self.observers[g].handled_end(partition);
            self.emit(Event::ResumedFrom {
                tick: self.now,
                consumer: id,
                partition,
                offset: start,
                last_known,
            });
        }
        let topic = &self.topic;
        self.observers[g].judge_resume(
            self.now,
            id,
            partition,
            start,
            u64::from(settings.records_per_poll),
            |offset| topic.get(partition, offset).map(|r| r.id),
        );
    }

    /// Where consumer `c` starts `partition`: the committed offset (or, with
    /// positions on the consumer, its own store), else `auto.offset.reset=earliest`.
    /// A checkpoint restored from disk may be ahead of this run's log: it waits there.
    pub(super) fn start_position(&self, c: usize, partition: u32) -> u64 {
        let consumer = &self.consumers[c];
        let g = consumer.group();
        if self.groups[g].settings.group_commits() {
            self.offsets[g].get(partition).unwrap_or_else(|| self.auto_reset_position(g, partition))
        } else {
            // booblik's own store: a consumer without a checkpoint starts at the beginning.
            consumer.stored(partition).unwrap_or(self.topic.log_start(partition))
        }
    }

    /// Where `auto.offset.reset` puts a consumer of group `g` on `partition`:
    /// the log start (`earliest`; `none` too, whose consumer throws before it
    /// reads), the high watermark (`latest`), or the first record produced
    /// within the duration (`by_duration`, the high watermark when none is).
    pub(super) fn auto_reset_position(&self, g: usize, partition: u32) -> u64 {
        let log_start = self.topic.log_start(partition);
        let end = self.high_watermark(partition).max(log_start);
        match self.groups[g].config.auto_offset_reset {
            AutoOffsetReset::Earliest | AutoOffsetReset::None => log_start,
            AutoOffsetReset::Latest => end,
            AutoOffsetReset::ByDuration(ticks) => {
                let since = self.now.saturating_sub(ticks);
                let Some(log) = self.topic.log(partition) else { return end };
                // Produce ticks grow along a partition's offsets: the first at or after `since`.
                let (mut lo, mut hi) = (log_start, end);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if log.get(mid).is_some_and(|r| r.produced_tick < since) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
        }
    }
}
