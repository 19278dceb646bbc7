//! The consumer rebalance protocol (KIP-848, `group.protocol=consumer`), as
//! Kafka 4.4's group coordinator runs it: a group epoch bumped whenever
//! membership or the topic changes, a target assignment the coordinator's own
//! assignor computes for that epoch, and each member reconciled towards its
//! share of the target one heartbeat at a time, with no group-wide barrier.
//!
//! Reconciliation is Kafka's `CurrentAssignmentBuilder`: a member keeps what
//! it holds that is still its target; what it must give up goes pending
//! revocation and it stays at its epoch (`UNREVOKED_PARTITIONS`) until a
//! heartbeat reports it no longer owns them; only then does it move to the
//! target epoch and receive its new partitions, those still held by another
//! member waiting (`UNRELEASED_PARTITIONS`) until they are released.

use super::{Coordinator, GroupState, Member, MemberState};
use crate::assign;
use crate::config::{GroupProtocol, RemoteAssignor};
use crate::event::Tick;
use crate::input::ConsumerId;
use crate::limits;

/// `LEAVE_GROUP_STATIC_MEMBER_EPOCH`: a static member that left for a while.
const STATIC_LEFT_EPOCH: i32 = -2;

/// The coordinator's answer to a `ConsumerGroupHeartbeat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeartbeatReply {
    pub member_epoch: i32,
    /// The partitions the member is to own now: sent when they changed, and
    /// on the join (a full request gets the full assignment).
    pub assignment: Option<Vec<u32>>,
}

/// A heartbeat the coordinator refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HeartbeatError {
    /// `UNRELEASED_INSTANCE_ID`: another member holds this `group.instance.id`
    /// and has not left; fatal for the joining consumer.
    UnreleasedInstanceId { owner: String },
    /// `UNKNOWN_MEMBER_ID`: the member was fenced (session or rebalance
    /// timeout); the consumer drops its partitions and joins again.
    UnknownMemberId,
}

impl HeartbeatError {
    /// Kafka's error code name.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            HeartbeatError::UnreleasedInstanceId { .. } => "UNRELEASED_INSTANCE_ID",
            HeartbeatError::UnknownMemberId => "UNKNOWN_MEMBER_ID",
        }
    }
}

impl Coordinator {
    pub fn group_epoch(&self) -> u32 {
        self.group_epoch
    }

    pub fn target_epoch(&self) -> u32 {
        self.target_epoch
    }

    /// A heartbeat with member epoch 0: a new member, or a static member's
    /// new incarnation taking the place of one that left with epoch -2.
    #[allow(clippy::too_many_arguments)]
    pub fn handle_consumer_join(
        &mut self,
        member_id: String,
        consumer: ConsumerId,
        host: String,
        instance_id: Option<String>,
        assignor: RemoteAssignor,
        partitions: u32,
    ) -> Result<HeartbeatReply, HeartbeatError> {
        assert_eq!(self.protocol, GroupProtocol::Consumer);
        let known = instance_id
            .as_deref()
            .and_then(|id| self.members.iter().position(|m| m.instance_id.as_deref() == Some(id)));
        match known {
            Some(i) if self.members[i].member_epoch != STATIC_LEFT_EPOCH => {
                return Err(HeartbeatError::UnreleasedInstanceId {
                    owner: self.members[i].member_id.clone(),
                });
            }
            Some(i) => {
                // The new incarnation copies the old member (its assignment and
                // target) under its own member id, at epoch 0: no epoch bump.
                let member = &mut self.members[i];
                self.member_order.remove(&member.member_id);
                member.member_id.clone_from(&member_id);
                member.consumer = consumer;
                member.host = host;
                member.expires_at = None;
                member.member_epoch = 0;
            }
            None => {
                self.members.push(Member::new(member_id.clone(), consumer, host, instance_id));
                assert!(self.members.len() <= 2 * limits::CONSUMERS_MAX as usize);
                // Kafka 4.4.0 takes a new group from epoch 0 to 2 with its first
                // member (seen on the broker: the conformance run's
                // consumer-protocol-scale-out); every later join adds one.
                self.group_epoch += if self.group_epoch == 0 { 2 } else { 1 };
            }
        }
        let i = self.members.iter().position(|m| m.member_id == member_id).expect("just joined");
        let owned = self.members[i].assignment.clone();
        // The target is computed with the joining member last (Kafka's builder
        // lays it over the coordinator's map); its records then put it in the map.
        let mut reply = self.reconcile(i, &owned, assignor, partitions);
        self.member_order.join(&member_id);
        reply.assignment = Some(self.members[i].assignment.clone());
        Ok(reply)
    }

    /// A regular heartbeat reporting the partitions the member owns.
    pub fn handle_consumer_heartbeat(
        &mut self,
        member_id: &str,
        owned: &[u32],
        assignor: RemoteAssignor,
        partitions: u32,
    ) -> Result<HeartbeatReply, HeartbeatError> {
        let Some(i) = self.members.iter().position(|m| m.member_id == member_id) else {
            return Err(HeartbeatError::UnknownMemberId);
        };
        Ok(self.reconcile(i, owned, assignor, partitions))
    }

    /// A leave heartbeat: epoch -1 removes the member; a static member sends
    /// -2 and keeps its place and partitions until its session runs out at
    /// `expires_at` or its instance comes back.
    pub fn handle_consumer_leave(&mut self, member_id: &str, expires_at: Tick) {
        let Some(i) = self.members.iter().position(|m| m.member_id == member_id) else {
            return; // fenced already (UNKNOWN_MEMBER_ID): nothing to leave
        };
        if self.members[i].instance_id.is_some() {
            let member = &mut self.members[i];
            member.member_epoch = STATIC_LEFT_EPOCH;
            member.pending_revocation.clear();
            member.revoke_deadline = None;
            member.expires_at = Some(expires_at);
            self.update_consumer_state();
        } else {
            self.member_order.remove(member_id);
            self.members.remove(i);
            self.after_removal();
        }
    }

    /// Members that held on to partitions they were told to revoke past
    /// their rebalance timeout: fenced, their partitions free at once.
    pub fn poll_rebalance_timeouts(&mut self, now: Tick) -> Vec<Member> {
        let mut fenced = Vec::new();
        let mut i = 0;
        while i < self.members.len() {
            if self.members[i].revoke_deadline.is_some_and(|t| t <= now) {
                self.member_order.remove(&self.members[i].member_id);
                fenced.push(self.members.remove(i));
            } else {
                i += 1;
            }
        }
        if !fenced.is_empty() {
            self.after_removal();
        }
        fenced
    }

    /// The topic grew: the subscription metadata changed.
    pub fn handle_metadata_changed(&mut self) {
        if !self.members.is_empty() {
            self.group_epoch += 1;
            if self.protocol == GroupProtocol::Share {
                return self.update_share_state();
            }
            self.update_consumer_state();
        }
    }

    /// A member left or was fenced: its partitions are free and the group epoch moves on.
    pub(super) fn after_removal(&mut self) {
        self.group_epoch += 1;
        if self.protocol == GroupProtocol::Share {
            return self.update_share_state();
        }
        self.update_owners();
        self.update_consumer_state();
    }

    /// One heartbeat of member `i`: bring the target assignment up to the
    /// group epoch if it is behind, then move the member towards its target.
    fn reconcile(
        &mut self,
        i: usize,
        owned: &[u32],
        assignor: RemoteAssignor,
        partitions: u32,
    ) -> HeartbeatReply {
        if self.group_epoch > self.target_epoch {
            self.compute_target(assignor, partitions);
        }
        let before = self.members[i].assignment.clone();
        self.next_assignment(i, owned);
        self.update_owners();
        self.update_consumer_state();
        let member = &self.members[i];
        let changed = member.assignment != before;
        HeartbeatReply {
            member_epoch: member.member_epoch,
            assignment: changed.then(|| member.assignment.clone()),
        }
    }

    /// The assignor's target for every member at the current group epoch.
    fn compute_target(&mut self, assignor: RemoteAssignor, partitions: u32) {
        let target: Vec<Vec<u32>> = match assignor {
            RemoteAssignor::Uniform => {
                // Kafka fills the assignor's map in its member map's order, then
                // the member joining now: the fill order decides which of two ids
                // in one HashMap bucket comes first.
                let mut order: Vec<usize> = self
                    .member_order
                    .order()
                    .map(|id| {
                        self.members.iter().position(|m| m.member_id == id).expect("a member in the map")
                    })
                    .collect();
                let joining: Vec<usize> = (0..self.members.len()).filter(|i| !order.contains(i)).collect();
                order.extend(joining);
                let members: Vec<assign::TargetMember> = order
                    .iter()
                    .map(|&i| assign::TargetMember {
                        id: self.members[i].member_id.clone(),
                        owned: self.members[i].target.clone(),
                    })
                    .collect();
                // Member ids are unique, targets never overlap, partitions only
                // grow, and with at most 256 partitions no HashSet bucket holds
                // the 8 that would make Java treeify it.
                let target = assign::uniform(&members, partitions)
                    .expect("a target assignment the uniform assignor takes");
                let mut by_member = vec![Vec::new(); self.members.len()];
                for (&i, partitions) in order.iter().zip(target) {
                    by_member[i] = partitions;
                }
                by_member
            }
            RemoteAssignor::Range => {
                let order = self.range_order();
                let plan = assign::range(&order, partitions);
                self.members
                    .iter()
                    .map(|m| {
                        plan.iter()
                            .find(|(id, _)| *id == m.member_id)
                            .map(|(_, p)| p.clone())
                            .unwrap_or_default()
                    })
                    .collect()
            }
        };
        for (member, mut partitions) in self.members.iter_mut().zip(target) {
            crate::order::sort_ids(&mut partitions);
            member.target = partitions;
        }
        self.target_epoch = self.group_epoch;
    }

    /// Kafka's `CurrentAssignmentBuilder.build` for member `i`, given the
    /// partitions its heartbeat says it owns.
    fn next_assignment(&mut self, i: usize, owned: &[u32]) {
        let target_epoch = self.target_epoch as i32;
        let member = &self.members[i];
        match member.state {
            MemberState::Stable if member.member_epoch == target_epoch => {}
            MemberState::Stable | MemberState::UnreleasedPartitions => {
                let (epoch, assigned) = (member.member_epoch, member.assignment.clone());
                self.compute_next(i, epoch, &assigned, owned);
            }
            MemberState::UnrevokedPartitions => {
                if member.pending_revocation.iter().any(|p| owned.contains(p)) {
                    return; // still owns some: no progress until it revokes them
                }
                let (epoch, assigned) = (member.member_epoch + 1, member.assignment.clone());
                self.compute_next(i, epoch, &assigned, owned);
            }
        }
    }

    fn compute_next(&mut self, i: usize, member_epoch: i32, assigned: &[u32], owned: &[u32]) {
        let target = self.members[i].target.clone();
        let kept: Vec<u32> = assigned.iter().copied().filter(|p| target.contains(p)).collect();
        let revoke: Vec<u32> = assigned.iter().copied().filter(|p| !target.contains(p)).collect();
        let mut unreleased = false;
        let mut gained = Vec::new();
        for &p in target.iter().filter(|p| !kept.contains(p)) {
            if self.held_by_anyone(p) {
                unreleased = true;
            } else {
                gained.push(p);
            }
        }
        let target_epoch = self.target_epoch as i32;
        let member = &mut self.members[i];
        if !revoke.is_empty() && revoke.iter().any(|p| owned.contains(p)) {
            member.state = MemberState::UnrevokedPartitions;
            member.member_epoch = member_epoch;
            member.assignment = kept;
            member.pending_revocation = revoke;
            return;
        }
        let mut assignment = kept;
        assignment.extend(gained);
        crate::order::sort_ids(&mut assignment);
        member.state = if unreleased { MemberState::UnreleasedPartitions } else { MemberState::Stable };
        member.member_epoch = target_epoch;
        member.assignment = assignment;
        member.pending_revocation.clear();
        member.revoke_deadline = None;
    }

    /// `currentPartitionEpoch != -1`: some member holds the partition,
    /// assigned or pending revocation.
    fn held_by_anyone(&self, partition: u32) -> bool {
        self.members
            .iter()
            .any(|m| m.assignment.contains(&partition) || m.pending_revocation.contains(&partition))
    }

    /// Starts the rebalance timeout of every member that just went to
    /// `UNREVOKED_PARTITIONS` (the caller passes the tick and the timeout).
    pub fn arm_rebalance_timeouts(&mut self, now: Tick, timeout_ticks: u64) {
        for member in &mut self.members {
            if member.state == MemberState::UnrevokedPartitions && member.revoke_deadline.is_none() {
                member.revoke_deadline = Some(now + timeout_ticks);
            }
        }
    }

    /// Each partition's holder: the member it is assigned to or being revoked from.
    fn update_owners(&mut self) {
        let mut owners = vec![None; self.owners.len()];
        for member in &self.members {
            for &p in member.assignment.iter().chain(&member.pending_revocation) {
                owners[p as usize] = Some(member.consumer);
            }
        }
        self.owners = owners;
    }

    /// Kafka's `ConsumerGroup.maybeUpdateGroupState`.
    pub(super) fn update_consumer_state(&mut self) {
        let target_epoch = self.target_epoch as i32;
        self.state = if self.members.is_empty() {
            GroupState::Empty
        } else if self.group_epoch > self.target_epoch {
            GroupState::Assigning
        } else if self
            .members
            .iter()
            .any(|m| !(m.state == MemberState::Stable && m.member_epoch == target_epoch))
        {
            GroupState::Reconciling
        } else {
            GroupState::Stable
        };
    }

    /// Every member reconciled: one holder per partition, and no partition
    /// both pending revocation and assigned.
    pub(super) fn check_consumer_protocol(&self) {
        let mut held = vec![0u8; self.owners.len()];
        for member in &self.members {
            for &p in member.assignment.iter().chain(&member.pending_revocation) {
                held[p as usize] += 1;
                assert!(
                    held[p as usize] == 1,
                    "partition {p} is held twice at group epoch {}",
                    self.group_epoch
                );
            }
            assert!(member.member_epoch <= self.target_epoch as i32, "a member is never ahead of the target");
        }
        // Between requests, the map of members Kafka's target follows holds exactly the members.
        assert_eq!(
            self.member_order.order().count(),
            self.members.len(),
            "the member map holds every member once"
        );
        assert!(self.member_order.order().all(|id| self.members.iter().any(|m| m.member_id == id)));
        assert!(self.target_epoch <= self.group_epoch);
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn c(n: u32) -> ConsumerId {
        ConsumerId(n)
    }

    fn join(co: &mut Coordinator, id: &str, n: u32, instance: Option<&str>) -> HeartbeatReply {
        co.handle_consumer_join(
            id.into(),
            c(n),
            "/h".into(),
            instance.map(Into::into),
            RemoteAssignor::Range,
            4,
        )
        .expect("joins")
    }

    fn beat(co: &mut Coordinator, id: &str, owned: &[u32]) -> HeartbeatReply {
        co.handle_consumer_heartbeat(id, owned, RemoteAssignor::Range, 4).expect("a member")
    }

    #[test]
    fn a_newcomer_waits_for_what_the_old_member_still_owns() {
        let mut co = Coordinator::new(GroupProtocol::Consumer, 4);
        let a = join(&mut co, "a", 1, None);
        assert_eq!((a.member_epoch, a.assignment), (2, Some(vec![0, 1, 2, 3])));
        assert_eq!(co.state(), GroupState::Stable);
        // b joins: epoch 3, target a=[0,1] b=[2,3]; a still owns 2 and 3.
        let b = join(&mut co, "b", 2, None);
        assert_eq!((b.member_epoch, b.assignment), (3, Some(vec![])));
        assert_eq!(co.member("b").map(|m| m.state), Some(MemberState::UnreleasedPartitions));
        assert_eq!(co.state(), GroupState::Reconciling);
        // a's heartbeat: revoke 2 and 3, stay at epoch 2.
        let a = beat(&mut co, "a", &[0, 1, 2, 3]);
        assert_eq!((a.member_epoch, a.assignment), (2, Some(vec![0, 1])));
        assert_eq!(co.member("a").map(|m| m.pending_revocation.clone()), Some(vec![2, 3]));
        // Still owned: b gets nothing yet, and a cannot move on.
        assert_eq!(beat(&mut co, "b", &[]).assignment, None);
        assert_eq!(beat(&mut co, "a", &[0, 1, 2, 3]).member_epoch, 2);
        // a revoked them: it moves to epoch 3; b receives them at its next heartbeat.
        assert_eq!(beat(&mut co, "a", &[0, 1]).member_epoch, 3);
        let b = beat(&mut co, "b", &[]);
        assert_eq!((b.member_epoch, b.assignment), (3, Some(vec![2, 3])));
        assert_eq!(co.state(), GroupState::Stable);
        co.check_consumer_protocol();
    }

    #[test]
    fn a_static_member_that_left_is_replaced_without_an_epoch_bump() {
        let mut co = Coordinator::new(GroupProtocol::Consumer, 4);
        join(&mut co, "a", 1, Some("inst-1"));
        join(&mut co, "b", 2, Some("inst-2"));
        beat(&mut co, "a", &[0, 1, 2, 3]);
        beat(&mut co, "a", &[0, 1]);
        beat(&mut co, "b", &[]);
        assert_eq!(co.group_epoch(), 3);
        // A second process with inst-1 while a is alive: refused.
        let refused = co.handle_consumer_join(
            "x".into(),
            c(3),
            "/h".into(),
            Some("inst-1".into()),
            RemoteAssignor::Range,
            4,
        );
        assert_eq!(refused, Err(HeartbeatError::UnreleasedInstanceId { owner: "a".into() }));
        // a shuts down (epoch -2) and comes back as a2: same partitions, same group epoch.
        co.handle_consumer_leave("a", 50);
        assert_eq!(co.owner_of(0).map(|m| m.member_id.as_str()), Some("a"));
        let back = join(&mut co, "a2", 1, Some("inst-1"));
        assert_eq!((back.member_epoch, back.assignment), (3, Some(vec![0, 1])));
        assert_eq!(co.group_epoch(), 3);
        assert_eq!(co.state(), GroupState::Stable);
    }

    #[test]
    fn a_member_that_does_not_revoke_in_time_is_fenced() {
        let mut co = Coordinator::new(GroupProtocol::Consumer, 4);
        join(&mut co, "a", 1, None);
        join(&mut co, "b", 2, None);
        beat(&mut co, "a", &[0, 1, 2, 3]);
        co.arm_rebalance_timeouts(10, 5);
        assert!(co.poll_rebalance_timeouts(14).is_empty());
        let fenced = co.poll_rebalance_timeouts(15);
        assert_eq!(fenced.iter().map(|m| m.member_id.as_str()).collect::<Vec<_>>(), vec!["a"]);
        assert_eq!(co.group_epoch(), 4);
        assert_eq!(co.state(), GroupState::Assigning);
        let b = beat(&mut co, "b", &[]);
        assert_eq!((b.member_epoch, b.assignment), (4, Some(vec![0, 1, 2, 3])));
        assert_eq!(
            co.handle_consumer_heartbeat("a", &[], RemoteAssignor::Range, 4),
            Err(HeartbeatError::UnknownMemberId)
        );
    }
}
