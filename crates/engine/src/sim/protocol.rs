//! Routing for Kafka 4's consumer protocol (KIP-848) and for static members
//! (KIP-345): each member's heartbeats to its coordinator and the assignment
//! changes they carry back, the timeouts that fence a member, and a static
//! member's new incarnation taking its old place.

use super::Sim;
use crate::broker::{Coordinator, HeartbeatError, Joined, MemberState};
use crate::config::GroupProtocol;
use crate::event::{Event, RebalanceReason, Reconciled, StaticMemberReplaced};
use crate::input::ConsumerId;
use crate::rng::Rng;
use crate::view::ConsumerState;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// What the page and the trace follow of one member: epoch, state,
/// assignment, partitions pending revocation.
type MemberSnapshot = (String, i32, MemberState, Vec<u32>, Vec<u32>);

/// A coordinator's epochs and members before a request.
struct CoordinatorSnapshot {
    group_epoch: u32,
    target_epoch: u32,
    members: Vec<MemberSnapshot>,
}

impl CoordinatorSnapshot {
    fn of(co: &Coordinator) -> CoordinatorSnapshot {
        CoordinatorSnapshot {
            group_epoch: co.group_epoch(),
            target_epoch: co.target_epoch(),
            members: co
                .members()
                .iter()
                .map(|m| {
                    (
                        m.member_id.clone(),
                        m.member_epoch,
                        m.state,
                        m.assignment.clone(),
                        m.pending_revocation.clone(),
                    )
                })
                .collect(),
        }
    }
}

/// A member id as Kafka 4's consumer makes one: a random UUID
/// (`Uuid.randomUuid()`, version 4) in URL-safe base64, 22 characters.
pub(super) fn consumer_member_id(rng: &mut Rng) -> String {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&rng.next_u64().to_be_bytes());
    bytes[8..].copy_from_slice(&rng.next_u64().to_be_bytes());
    bytes[6] = bytes[6] & 0x0f | 0x40;
    bytes[8] = bytes[8] & 0x3f | 0x80;
    URL_SAFE_NO_PAD.encode(bytes)
}

impl Sim {
    pub(super) fn protocol(&self, g: usize) -> GroupProtocol {
        self.groups[g].config.protocol
    }

    /// Runs one request through group `g`'s coordinator and emits what it
    /// changed: the group epoch (for `reason`), the target assignment, and
    /// every member whose epoch, state or partitions moved.
    pub(super) fn with_coordinator<R>(
        &mut self,
        g: usize,
        reason: RebalanceReason,
        request: impl FnOnce(&mut Coordinator) -> R,
    ) -> R {
        let before = CoordinatorSnapshot::of(&self.coordinators[g]);
        let answer = request(&mut self.coordinators[g]);
        self.emit_coordinator_changes(g, reason, &before);
        answer
    }

    /// The events for what group `g`'s coordinator changed since `before`
    /// (not generic: one copy, however many requests go through it).
    fn emit_coordinator_changes(&mut self, g: usize, reason: RebalanceReason, before: &CoordinatorSnapshot) {
        let co = &self.coordinators[g];
        let mut events = Vec::new();
        if co.group_epoch() != before.group_epoch {
            events.push(Event::GroupEpochBumped {
                tick: self.now,
                group: g as u32,
                group_epoch: co.group_epoch(),
                reason,
            });
        }
        if co.target_epoch() != before.target_epoch {
            let mut target: Vec<(ConsumerId, Vec<u32>)> =
                co.members().iter().map(|m| (m.consumer, m.target.clone())).collect();
            super::sort_by_consumer(&mut target);
            events.push(Event::TargetAssignment {
                tick: self.now,
                group: g as u32,
                target_epoch: co.target_epoch(),
                target,
            });
        }
        // Compared in place: a heartbeat that changes nothing copies nothing.
        for member in co.members() {
            let unchanged = before.members.iter().any(|(id, epoch, state, assignment, revoking)| {
                *id == member.member_id
                    && *epoch == member.member_epoch
                    && *state == member.state
                    && *assignment == member.assignment
                    && *revoking == member.pending_revocation
            });
            if unchanged {
                continue;
            }
            events.push(Event::Reconciled(Box::new(Reconciled {
                tick: self.now,
                consumer: member.consumer,
                member_epoch: member.member_epoch,
                state: member.state.name(),
                assignment: member.assignment.clone(),
                revoking: member.pending_revocation.clone(),
            })));
        }
        for event in events {
            self.emit(event);
        }
    }

    /// What a new incarnation's join carries: member id, client id, host, instance id.
    pub(super) fn join_request(&self, c: usize) -> (String, ConsumerId, String, Option<String>) {
        let consumer = &self.consumers[c];
        (
            consumer.member_id().expect("a started consumer").to_owned(),
            consumer.id(),
            consumer.host().to_owned(),
            consumer.instance_id().map(str::to_owned),
        )
    }

    /// Consumer protocol: the first heartbeat (member epoch 0). A static
    /// member whose instance id is held by a member that has not left is
    /// refused, and the consumer ends (`UNRELEASED_INSTANCE_ID` is fatal).
    pub(super) fn join_consumer_group(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let (member_id, id, host, instance_id) = self.join_request(c);
        let (assignor, partitions) = (self.groups[g].config.remote_assignor, self.topic.partition_count());
        let replaces = instance_id.as_deref().and_then(|i| self.coordinators[g].static_member(i)).is_some();
        let reply = self.with_coordinator(g, RebalanceReason::MemberJoined, |co| {
            co.handle_consumer_join(member_id.clone(), id, host, instance_id.clone(), assignor, partitions)
        });
        match reply {
            Ok(reply) => {
                let interval = self.groups[g].config.heartbeat_interval_ticks;
                self.consumers[c].handle_join_answer(
                    self.now,
                    reply.member_epoch,
                    reply.assignment.clone(),
                    interval,
                );
                if let (true, Some(instance_id)) = (replaces, instance_id) {
                    self.observers[g].handle_static_rejoin();
                    self.emit(Event::StaticMemberReplaced(Box::new(StaticMemberReplaced {
                        tick: self.now,
                        group: g as u32,
                        consumer: id,
                        instance_id,
                        member_id,
                        assignment: reply.assignment.unwrap_or_default(),
                    })));
                }
            }
            Err(error) => self.end_fenced(c, error.name()),
        }
    }

    /// Consumer protocol: a heartbeat when one is due, or at once after the
    /// member changed what it owns (its acknowledgement).
    pub(super) fn heartbeat_if_due(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let interval = self.groups[g].config.heartbeat_interval_ticks;
        if !self.consumers[c].poll_heartbeat_due(self.now, interval) {
            return; // not due, or out of the group until its next poll
        }
        let consumer = &self.consumers[c];
        let member_id = consumer.member_id().expect("a live member heartbeats").to_owned();
        let owned = consumer.assigned().to_vec();
        let (assignor, partitions) = (self.groups[g].config.remote_assignor, self.topic.partition_count());
        let reply = self.with_coordinator(g, RebalanceReason::MemberJoined, |co| {
            co.handle_consumer_heartbeat(&member_id, &owned, assignor, partitions)
        });
        let timeout = self.groups[g].config.max_poll_interval_ticks;
        self.coordinators[g].arm_rebalance_timeouts(self.now, timeout);
        match reply {
            Ok(reply) => self.consumers[c].handle_heartbeat_answer(reply.member_epoch, reply.assignment),
            Err(HeartbeatError::UnknownMemberId) => self.rejoin_after_fence(c),
            Err(error @ HeartbeatError::UnreleasedInstanceId { .. }) => self.end_fenced(c, error.name()),
        }
    }

    /// Consumer protocol: the session and rebalance timeouts of group `g`.
    pub(super) fn expire_consumer_group(&mut self, g: usize) {
        let now = self.now;
        let expired =
            self.with_coordinator(g, RebalanceReason::SessionExpired, |co| co.poll_expired_sessions(now));
        for member in expired {
            self.emit(Event::SessionExpired {
                tick: now,
                consumer: member.consumer,
                member_id: member.member_id,
            });
        }
        let fenced =
            self.with_coordinator(g, RebalanceReason::RebalanceTimeout, |co| co.poll_rebalance_timeouts(now));
        for member in fenced {
            // The rebalance timeout is the member's `max.poll.interval.ms`: its
            // own poll timer, started no later, has run out too, so the client
            // knows at once.
            let holder = self.consumers.iter().position(|x| x.member_id() == Some(member.member_id.as_str()));
            if let Some(c) = holder.filter(|&c| self.consumers[c].alive()) {
                self.rejoin_after_fence(c);
            }
        }
    }

    /// Fenced after a timeout (`UNKNOWN_MEMBER_ID`): the member loses its
    /// partitions (onPartitionsLost: nothing committed for them), then joins
    /// again at epoch 0 with its member id. With a batch in hand (a stalled
    /// member that woke), its application finishes it first and its commits
    /// fail; it joins again at its next poll.
    fn rejoin_after_fence(&mut self, c: usize) {
        let running = matches!(self.consumers[c].state(), ConsumerState::Running | ConsumerState::Paused);
        if running && !self.consumers[c].batch_is_empty() {
            // The records poll() returned are in the application's hands: it goes on
            // with them, its commits fail, and it joins again at its next poll.
            let consumer = &mut self.consumers[c];
            consumer.handle_out_of_group(crate::client::OutOfGroup::Fenced);
            let member_id = consumer.member_id().expect("a fenced consumer was a member").to_owned();
            let id = consumer.id();
            self.emit(Event::Fenced { tick: self.now, consumer: id, member_id, error: "UNKNOWN_MEMBER_ID" });
            return;
        }
        self.abandon_batch(c);
        let consumer = &mut self.consumers[c];
        consumer.handle_fenced();
        let member_id = consumer.member_id().expect("a fenced consumer was a member").to_owned();
        let id = consumer.id();
        self.emit(Event::Fenced { tick: self.now, consumer: id, member_id, error: "UNKNOWN_MEMBER_ID" });
        if matches!(self.consumers[c].state(), ConsumerState::Running | ConsumerState::Paused) {
            self.join_consumer_group(c);
        }
    }

    /// The coordinator refused this incarnation for good
    /// (`FENCED_INSTANCE_ID`, `UNRELEASED_INSTANCE_ID`): the consumer throws
    /// and its process ends, committing nothing; it holds no place in the group.
    pub(super) fn end_fenced(&mut self, c: usize, error: &'static str) {
        self.abandon_batch(c);
        let now = self.now;
        let member_id = self.consumers[c].handle_crash(now);
        let consumer = self.consumers[c].id();
        self.emit(Event::Fenced { tick: now, consumer, member_id, error });
    }

    /// Classic: a JoinGroup from a new incarnation. A static member takes its
    /// instance's place and keeps the partitions, with no rebalance; the
    /// incarnation it replaced, if still running, is fenced.
    pub(super) fn join_classic_group(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let (member_id, id, host, instance_id) = self.join_request(c);
        match self.coordinators[g].handle_join_group(member_id.clone(), id, host, instance_id.clone()) {
            Joined::New => self.begin_rebalance(g, crate::event::RebalanceReason::MemberJoined),
            Joined::Replaced { assignment, fenced } => {
                if let Some(old) = fenced {
                    if let Some(o) = self.consumers.iter().position(|x| x.member_id() == Some(old.as_str())) {
                        self.end_fenced(o, "FENCED_INSTANCE_ID");
                    }
                }
                let c = self.consumer_index(id).expect("the joining consumer");
                let starts: Vec<(u32, u64)> =
                    assignment.iter().map(|&p| (p, self.start_position(c, p))).collect();
                self.consumers[c].assign(assignment.clone(), &starts);
                for &(p, start) in &starts {
                    self.note_resume(c, p, start);
                }
                self.observers[g].handle_static_rejoin();
                self.emit(Event::StaticMemberReplaced(Box::new(StaticMemberReplaced {
                    tick: self.now,
                    group: g as u32,
                    consumer: id,
                    instance_id: instance_id.expect("only a static member is replaced"),
                    member_id,
                    assignment,
                })));
            }
        }
    }

    /// `close()` of a member: a dynamic classic member sends LeaveGroup and
    /// the group rebalances; a static classic member sends none, so it stays
    /// with its partitions until its session runs out; a consumer-protocol
    /// member heartbeats epoch -1, or -2 when static (it keeps its place
    /// until its session runs out).
    pub(super) fn send_leave(&mut self, g: usize, member_id: &str, is_static: bool) {
        let expires_at = self.now + self.groups[g].config.session_timeout_ticks;
        match (self.protocol(g), is_static) {
            (GroupProtocol::Classic, false) => {
                self.coordinators[g].handle_leave_group(member_id);
                self.begin_rebalance(g, RebalanceReason::MemberLeft);
            }
            (GroupProtocol::Classic, true) => self.coordinators[g].handle_member_died(member_id, expires_at),
            (GroupProtocol::Consumer, _) => {
                self.with_coordinator(g, RebalanceReason::MemberLeft, |co| {
                    co.handle_consumer_leave(member_id, expires_at)
                });
            }
            (GroupProtocol::Share, _) => {
                self.with_coordinator(g, RebalanceReason::MemberLeft, |co| co.handle_share_leave(member_id));
            }
        }
    }
}
