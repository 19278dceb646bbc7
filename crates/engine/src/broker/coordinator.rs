//! The group coordinator of one consumer group: membership, and either the
//! classic protocol's generations with the assignment the group leader
//! computes, or the consumer protocol's epochs and target assignment
//! (`consumer_protocol`).

use crate::assign::{self, TimelineHashOrder};
use crate::broker::RebalanceView;
use crate::config::{Assignor, GroupProtocol};
use crate::event::{PartitionMove, Tick};
use crate::input::ConsumerId;
use crate::limits;

mod consumer_protocol;
mod share_protocol;
pub(crate) use consumer_protocol::{HeartbeatError, HeartbeatReply};

/// The coordinator's view of the group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupState {
    Empty,
    Stable,
    /// Classic: a rebalance is under way, members are rejoining.
    PreparingRebalance,
    /// Consumer protocol: the group epoch is ahead of the target assignment's.
    Assigning,
    /// Consumer protocol: some member has not reached the target assignment.
    Reconciling,
}

impl GroupState {
    /// Kafka's `GroupState` names, as the CLI prints them.
    pub(crate) fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::Stable => "Stable",
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::Assigning => "Assigning",
            GroupState::Reconciling => "Reconciling",
        }
    }
}

/// A consumer-protocol member's reconciliation state (Kafka's `MemberState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemberState {
    /// At the target epoch with everything it was assigned.
    Stable,
    /// It must revoke partitions before it may move to the next epoch.
    UnrevokedPartitions,
    /// At the target epoch, waiting for partitions another member still holds.
    UnreleasedPartitions,
}

impl MemberState {
    /// Kafka's names, as `--describe --members --verbose` would print them.
    pub(crate) fn name(self) -> &'static str {
        match self {
            MemberState::Stable => "STABLE",
            MemberState::UnrevokedPartitions => "UNREVOKED_PARTITIONS",
            MemberState::UnreleasedPartitions => "UNRELEASED_PARTITIONS",
        }
    }
}

/// A member as the coordinator knows it. A crashed process's member stays
/// here, dead, until its session times out.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub member_id: String,
    pub consumer: ConsumerId,
    pub host: String,
    /// `group.instance.id`: a static member.
    pub instance_id: Option<String>,
    /// `Some(tick)` once its heartbeats stopped (its process died, or a static
    /// member shut down without leaving): removed at that tick.
    pub expires_at: Option<Tick>,
    /// Its partitions: in the current generation (classic), or assigned to it
    /// by the coordinator so far (consumer protocol).
    pub assignment: Vec<u32>,
    /// Has sent its JoinGroup for the rebalance in progress.
    pub rejoined: bool,
    /// Consumer protocol: the epoch of the assignment it holds; -2 once a
    /// static member left for a while (`LEAVE_GROUP_STATIC_MEMBER_EPOCH`).
    pub member_epoch: i32,
    pub state: MemberState,
    /// Consumer protocol: partitions it must give up before its epoch moves on.
    pub pending_revocation: Vec<u32>,
    /// Consumer protocol: its share of the target assignment.
    pub target: Vec<u32>,
    /// Consumer protocol: fenced at this tick unless it has revoked by then.
    pub revoke_deadline: Option<Tick>,
}

impl Member {
    fn new(member_id: String, consumer: ConsumerId, host: String, instance_id: Option<String>) -> Member {
        Member {
            member_id,
            consumer,
            host,
            instance_id,
            expires_at: None,
            assignment: Vec::new(),
            rejoined: true,
            member_epoch: 0,
            state: MemberState::Stable,
            pending_revocation: Vec::new(),
            target: Vec::new(),
            revoke_deadline: None,
        }
    }
}

/// What a classic JoinGroup from a new incarnation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Joined {
    /// A new member: the group must rebalance.
    New,
    /// A static member took its instance's place: its member id changes, it
    /// keeps the assignment, and no rebalance starts. `fenced` is the member
    /// id it replaced when that incarnation was still alive: its next request
    /// fails with `FENCED_INSTANCE_ID`.
    Replaced { assignment: Vec<u32>, fenced: Option<String> },
}

/// A rebalance the coordinator completed: the new generation's plan.
#[derive(Debug, Clone)]
pub(crate) struct Completed {
    pub generation: u32,
    /// `(consumer, partitions)` in JoinGroup order.
    pub plan: Vec<(ConsumerId, Vec<u32>)>,
}

/// A share group's partitions' share state, initialised by the share
/// coordinator after the group's first join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShareInitialisation {
    NotYet,
    /// Requested; completes at `done_at`, and the next request bumps the epoch.
    Pending {
        done_at: Tick,
    },
    Done,
}

/// One group's coordinator.
///
/// # Calling contract
/// - Membership: [`Coordinator::handle_join_group`] (a JoinGroup without a member id),
///   [`Coordinator::handle_rejoin`] (a member's JoinGroup in a rebalance),
///   [`Coordinator::handle_leave_group`] (LeaveGroup), [`Coordinator::handle_member_died`] (its
///   session starts running out), [`Coordinator::poll_expired_sessions`].
/// - [`Coordinator::handle_rebalance_trigger`] returns whether a rebalance started;
///   the caller tells the members (they stop and rejoin, or, cooperative,
///   rejoin at their next poll).
/// - [`Coordinator::poll_completed_rebalance`] completes a rebalance once every member
///   has rejoined (a dead member holds it up until its session expires) and
///   returns the new generation's plan; [`Coordinator::handle_assignment_applied`]
///   then records which partitions changed owner.
#[derive(Debug, Clone)]
pub(crate) struct Coordinator {
    protocol: GroupProtocol,
    state: GroupState,
    generation: u32,
    /// Consumer protocol: bumped when membership or the topic changes.
    group_epoch: u32,
    /// Consumer protocol: the group epoch the target assignment was computed for.
    target_epoch: u32,
    members: Vec<Member>,
    /// Consumer protocol: the iteration order of Kafka's map of the members
    /// (a `TimelineHashMap`), which the target assignment follows.
    member_order: TimelineHashOrder,
    /// Share groups: whether the share coordinator has initialised the partitions.
    share_initialised: ShareInitialisation,
    /// Each partition's owner in the last completed generation.
    owners: Vec<Option<ConsumerId>>,
    last_rebalance: Option<RebalanceView>,
    /// Classic: the first rebalance of an empty group waits
    /// (`group.initial.rebalance.delay.ms`, Kafka's `InitialDelayedJoin`).
    initial_join: Option<InitialJoin>,
}

/// The delayed first join of an empty classic group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InitialJoin {
    /// When the join phase may complete.
    fires_at: Tick,
    /// What is left of the rebalance timeout for further extensions.
    remaining_ticks: u64,
    /// A member joined since the delay was last scheduled: it is extended.
    new_member_added: bool,
}

impl Coordinator {
    pub fn new(protocol: GroupProtocol, partitions: u32) -> Coordinator {
        Coordinator {
            protocol,
            state: GroupState::Empty,
            generation: 0,
            group_epoch: 0,
            target_epoch: 0,
            members: Vec::new(),
            member_order: TimelineHashOrder::default(),
            share_initialised: ShareInitialisation::NotYet,
            owners: vec![None; partitions as usize],
            last_rebalance: None,
            initial_join: None,
        }
    }

    /// Classic, before a rebalance starts: an empty group's first join
    /// phase waits `delay_ticks` so that members starting a little apart
    /// join one generation (`group.initial.rebalance.delay.ms`), extended
    /// while members keep joining, within the rebalance timeout.
    pub fn handle_initial_delay(&mut self, now: Tick, delay_ticks: u64, rebalance_timeout_ticks: u64) {
        if self.protocol != GroupProtocol::Classic || self.state != GroupState::Empty || delay_ticks == 0 {
            return;
        }
        self.initial_join = Some(InitialJoin {
            fires_at: now + delay_ticks,
            remaining_ticks: rebalance_timeout_ticks.saturating_sub(delay_ticks),
            new_member_added: false,
        });
    }

    /// Whether the first join phase still waits at `now`: when its delay is
    /// over and members joined meanwhile, it waits again (the shorter of
    /// the delay and what remains of the rebalance timeout), as Kafka's
    /// `tryCompleteInitialRebalanceElseSchedule` does.
    pub fn poll_initial_delay(&mut self, now: Tick, delay_ticks: u64) -> bool {
        let Some(join) = &mut self.initial_join else { return false };
        if now < join.fires_at {
            return true;
        }
        if join.new_member_added && join.remaining_ticks > 0 {
            let delay = delay_ticks.min(join.remaining_ticks);
            join.fires_at = now + delay;
            join.remaining_ticks = join.remaining_ticks.saturating_sub(delay_ticks);
            join.new_member_added = false;
            return true;
        }
        self.initial_join = None;
        false
    }

    /// The group was deleted (Kafka's `cleanupGroupMetadata` removes an
    /// empty group whose committed offsets all expired): the next member
    /// creates it anew, at generation (group epoch) 0, its first join
    /// delayed again.
    pub fn handle_group_deleted(&mut self) {
        assert!(self.members.is_empty() && self.state == GroupState::Empty, "only an empty group is deleted");
        let partitions = self.owners.len() as u32;
        *self = Coordinator::new(self.protocol, partitions);
    }

    /// Whether the coordinator knows the group: it has had members since it
    /// was created or last deleted. (A group known only by its committed
    /// offsets exists too; the caller knows those.)
    pub fn has_history(&self) -> bool {
        !self.members.is_empty() || self.generation > 0 || self.group_epoch > 0
    }

    pub fn state(&self) -> GroupState {
        self.state
    }

    /// The group's epoch as people count rebalances: the generation (classic)
    /// or the group epoch (consumer protocol).
    pub fn epoch(&self) -> u32 {
        match self.protocol {
            GroupProtocol::Classic => self.generation,
            GroupProtocol::Consumer | GroupProtocol::Share => self.group_epoch,
        }
    }

    pub fn members(&self) -> &[Member] {
        &self.members
    }

    pub fn member(&self, member_id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.member_id == member_id)
    }

    /// The dead member a crashed consumer left behind, while its session runs.
    pub fn ghost_of(&self, consumer: ConsumerId) -> Option<&Member> {
        self.members.iter().find(|m| m.consumer == consumer && m.expires_at.is_some())
    }

    pub fn owners(&self) -> &[Option<ConsumerId>] {
        &self.owners
    }

    /// The member that owns `partition` in the current generation (maybe a dead one).
    pub fn owner_of(&self, partition: u32) -> Option<&Member> {
        self.members.iter().find(|m| m.assignment.contains(&partition))
    }

    pub fn last_rebalance(&self) -> Option<&RebalanceView> {
        self.last_rebalance.as_ref()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Live members that own at least one partition.
    pub fn active_members(&self) -> u32 {
        self.members.iter().filter(|m| m.expires_at.is_none() && !m.assignment.is_empty()).count() as u32
    }

    /// A JoinGroup without a member id (classic). A static member whose
    /// instance id the group knows takes that member's place (KIP-345).
    pub fn handle_join_group(
        &mut self,
        member_id: String,
        consumer: ConsumerId,
        host: String,
        instance_id: Option<String>,
    ) -> Joined {
        assert_eq!(self.protocol, GroupProtocol::Classic);
        let known = instance_id
            .as_deref()
            .and_then(|id| self.members.iter().position(|m| m.instance_id.as_deref() == Some(id)));
        if let Some(i) = known {
            let known = &mut self.members[i];
            let fenced = known.expires_at.is_none().then(|| known.member_id.clone());
            known.member_id = member_id;
            known.consumer = consumer;
            known.host = host;
            known.expires_at = None;
            known.rejoined = true;
            let assignment = known.assignment.clone();
            for &p in &assignment {
                self.owners[p as usize] = Some(consumer);
            }
            return Joined::Replaced { assignment, fenced };
        }
        self.members.push(Member::new(member_id, consumer, host, instance_id));
        assert!(self.members.len() <= 2 * limits::CONSUMERS_MAX as usize);
        if let Some(join) = &mut self.initial_join {
            join.new_member_added = true;
        }
        Joined::New
    }

    /// The member holding `instance_id`, if any.
    pub fn static_member(&self, instance_id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.instance_id.as_deref() == Some(instance_id))
    }

    pub fn handle_rejoin(&mut self, member_id: &str) {
        let member = self.members.iter_mut().find(|m| m.member_id == member_id).expect("a member rejoins");
        member.rejoined = true;
    }

    pub fn handle_leave_group(&mut self, member_id: &str) {
        self.members.retain(|m| m.member_id != member_id);
    }

    /// Its heartbeats stopped: it is removed at `expires_at` unless a static
    /// member's instance comes back first.
    pub fn handle_member_died(&mut self, member_id: &str, expires_at: Tick) {
        let Some(member) = self.members.iter_mut().find(|m| m.member_id == member_id) else {
            // A consumer-protocol member fenced by its rebalance timeout learns
            // it only at its next heartbeat: it may die before that.
            assert_ne!(self.protocol, GroupProtocol::Classic, "a live classic consumer is a member");
            return;
        };
        member.expires_at = Some(expires_at);
    }

    /// Its heartbeats resumed before its session ran out (a stalled process
    /// woke): it stays.
    pub fn handle_member_alive(&mut self, member_id: &str) {
        let member = self.members.iter_mut().find(|m| m.member_id == member_id).expect("a known member");
        member.expires_at = None;
    }

    /// Removes the members whose session ran out by `now`, in member order.
    pub fn poll_expired_sessions(&mut self, now: Tick) -> Vec<Member> {
        let mut expired = Vec::new();
        let mut i = 0;
        while i < self.members.len() {
            if self.members[i].expires_at.is_some_and(|t| t <= now) {
                self.member_order.remove(&self.members[i].member_id);
                expired.push(self.members.remove(i));
            } else {
                i += 1;
            }
        }
        if self.protocol != GroupProtocol::Classic && !expired.is_empty() {
            self.after_removal();
        }
        expired
    }

    /// Moves the group to `PreparingRebalance`; `false` if it was already there.
    pub fn handle_rebalance_trigger(&mut self) -> bool {
        if self.state == GroupState::PreparingRebalance {
            return false;
        }
        self.state = GroupState::PreparingRebalance;
        for member in &mut self.members {
            member.rejoined = false;
        }
        true
    }

    /// The next generation, once every member has rejoined.
    pub fn poll_completed_rebalance(&mut self, assignor: Assignor, partitions: u32) -> Option<Completed> {
        if self.state != GroupState::PreparingRebalance || self.initial_join.is_some() {
            return None;
        }
        if !self.members.iter().all(|m| m.expires_at.is_none() && m.rejoined) {
            return None;
        }
        self.generation += 1;
        let plan = self.plan(assignor, partitions);
        let plan: Vec<(ConsumerId, Vec<u32>)> = plan
            .into_iter()
            .map(|(member_id, partitions)| {
                let member =
                    self.members.iter_mut().find(|m| m.member_id == member_id).expect("planned member");
                member.assignment.clone_from(&partitions);
                (member.consumer, partitions)
            })
            .collect();
        self.state = if self.members.is_empty() { GroupState::Empty } else { GroupState::Stable };
        self.check_one_owner();
        Some(Completed { generation: self.generation, plan })
    }

    /// The classic group's leader: the live member that joined first, which
    /// computes the assignment with its own client's metadata.
    pub fn leader(&self) -> Option<ConsumerId> {
        self.members.iter().find(|m| m.expires_at.is_none()).map(|m| m.consumer)
    }

    /// Records the completed generation's owners; returns the partitions that moved.
    pub fn handle_assignment_applied(
        &mut self,
        now: Tick,
        assignment: &[(ConsumerId, Vec<u32>)],
    ) -> Vec<PartitionMove> {
        let mut owners = vec![None; self.owners.len()];
        for (consumer, partitions) in assignment {
            for &p in partitions {
                owners[p as usize] = Some(*consumer);
            }
        }
        let moved: Vec<PartitionMove> = (0..self.owners.len())
            .filter(|&p| owners[p] != self.owners[p])
            .map(|p| PartitionMove { partition: p as u32, from: self.owners[p], to: owners[p] })
            .collect();
        self.owners = owners;
        self.last_rebalance =
            Some(RebalanceView { tick: now, generation: self.generation, moved: moved.clone() });
        moved
    }

    pub fn add_partitions(&mut self, added: u32) {
        self.owners.extend(std::iter::repeat_n(None, added as usize));
    }

    /// The assignor's plan for the members in the group now: `(member id, partitions)`.
    fn plan(&self, assignor: Assignor, partitions: u32) -> Vec<(String, Vec<u32>)> {
        if assignor == Assignor::Range {
            let member_ids = self.range_order();
            return assign::range(&member_ids, partitions)
                .into_iter()
                .map(|(m, p)| (m.to_string(), p))
                .collect();
        }
        const TOPIC: &str = "orders";
        // JoinGroup order: the order members joined (Kafka's leader sees them so).
        let members: Vec<&str> = self.members.iter().map(|m| m.member_id.as_str()).collect();
        let owned: Vec<Vec<u32>> = self.members.iter().map(|m| m.assignment.clone()).collect();
        let result = match assignor.strategy() {
            assign::Strategy::CooperativeSticky => assign::cooperative_first_round_topic(
                &assign::assign_topic(assign::Strategy::Sticky, TOPIC, partitions, &members, &owned),
                &owned,
                partitions,
            ),
            strategy => assign::assign_topic(strategy, TOPIC, partitions, &members, &owned),
        };
        members.into_iter().zip(result).map(|(m, partitions)| (m.to_string(), partitions)).collect()
    }

    /// Member ids in the range assignors' order: static members first, by
    /// instance id, then the others by member id (the classic client's
    /// `RangeAssignor` and the coordinator's `range` sort alike).
    fn range_order(&self) -> Vec<&str> {
        assign::range_order(self.members.iter().map(|m| (m.member_id.as_str(), m.instance_id.as_deref())))
    }

    /// One owner per partition per generation.
    pub fn check_one_owner(&self) {
        match self.protocol {
            GroupProtocol::Consumer => return self.check_consumer_protocol(),
            // Share groups share partitions by design.
            GroupProtocol::Share => return,
            GroupProtocol::Classic => {}
        }
        let mut owners = vec![0u8; self.owners.len()];
        for member in &self.members {
            for &p in &member.assignment {
                owners[p as usize] += 1;
                assert!(
                    owners[p as usize] == 1,
                    "partition {p} has two owners in generation {}",
                    self.generation
                );
            }
        }
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

    #[test]
    fn a_rebalance_completes_once_every_member_rejoined() {
        let mut coordinator = Coordinator::new(GroupProtocol::Classic, 3);
        coordinator.handle_join_group("a".into(), c(1), "/h".into(), None);
        assert!(coordinator.handle_rebalance_trigger());
        assert!(!coordinator.handle_rebalance_trigger(), "already preparing");
        coordinator.handle_join_group("b".into(), c(2), "/h".into(), None);
        // "a" was told to rejoin and has not yet.
        assert!(coordinator.poll_completed_rebalance(Assignor::Range, 3).is_none());
        coordinator.handle_rejoin("a");
        let completed = coordinator.poll_completed_rebalance(Assignor::Range, 3).expect("everyone rejoined");
        assert_eq!(completed.generation, 1);
        assert_eq!(completed.plan, vec![(c(1), vec![0, 1]), (c(2), vec![2])]);
        assert_eq!(coordinator.state(), GroupState::Stable);
        let moved = coordinator.handle_assignment_applied(5, &completed.plan);
        assert_eq!(moved.len(), 3);
        assert_eq!(coordinator.owners(), &[Some(c(1)), Some(c(1)), Some(c(2))]);
        assert_eq!(coordinator.active_members(), 2);
    }

    #[test]
    fn a_dead_member_holds_the_rebalance_until_its_session_expires() {
        let mut coordinator = Coordinator::new(GroupProtocol::Classic, 2);
        coordinator.handle_join_group("a".into(), c(1), "/h".into(), None);
        coordinator.handle_join_group("b".into(), c(2), "/h".into(), None);
        coordinator.handle_rebalance_trigger();
        coordinator.handle_rejoin("a");
        coordinator.handle_rejoin("b");
        coordinator.poll_completed_rebalance(Assignor::Range, 2).expect("completes");
        coordinator.handle_member_died("b", 10);
        assert_eq!(coordinator.ghost_of(c(2)).map(|m| m.assignment.clone()), Some(vec![1]));
        coordinator.handle_rebalance_trigger();
        coordinator.handle_rejoin("a");
        assert!(
            coordinator.poll_completed_rebalance(Assignor::Range, 2).is_none(),
            "b is dead but still a member"
        );
        assert!(coordinator.poll_expired_sessions(9).is_empty());
        let expired = coordinator.poll_expired_sessions(10);
        assert_eq!(expired.iter().map(|m| m.consumer).collect::<Vec<_>>(), vec![c(2)]);
        let completed = coordinator.poll_completed_rebalance(Assignor::Range, 2).expect("b is gone");
        assert_eq!(completed.plan, vec![(c(1), vec![0, 1])]);
    }
}
