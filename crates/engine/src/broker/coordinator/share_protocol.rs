//! Share groups (KIP-932) as Kafka 4.4's group coordinator runs them: a
//! group epoch bumped when a member joins or leaves or the topic grows, and a
//! target assignment of the `simple` assignor for that epoch. A member takes
//! its share of the target at its next heartbeat, with nothing to revoke
//! first: partitions are shared, records are acquired one by one at the
//! share-partition, so no barrier and no reconciliation states. The group is
//! `Empty` or `Stable` (Kafka's `ShareGroupState`).
//!
//! Initialisation, as Kafka 4.4.0's broker runs it (seen by the conformance
//! run): the first member's join takes a new share group to epoch 2 with an
//! empty target, because the share coordinator has not initialised the
//! partitions' share state yet; that completes a tick later here, and the
//! next heartbeat or join after it bumps the epoch once (a join's own bump
//! counts for both) and the target then holds the partitions.

use super::{Coordinator, GroupState, HeartbeatReply, Member, MemberState, ShareInitialisation};
use crate::assign;
use crate::config::GroupProtocol;
use crate::event::Tick;
use crate::input::ConsumerId;
use crate::limits;

impl Coordinator {
    /// A `ShareGroupHeartbeat` with member epoch 0: a new member.
    pub fn handle_share_join(
        &mut self,
        member_id: String,
        consumer: ConsumerId,
        host: String,
        partitions: u32,
        now: Tick,
    ) -> HeartbeatReply {
        assert_eq!(self.protocol, GroupProtocol::Share);
        self.members.push(Member::new(member_id.clone(), consumer, host, None));
        assert!(self.members.len() <= 2 * limits::CONSUMERS_MAX as usize);
        if self.group_epoch == 0 {
            // A new group: epoch 2, and the share coordinator starts initialising.
            self.group_epoch = 2;
            self.share_initialised = ShareInitialisation::Pending { done_at: now + 1 };
        } else {
            // A join after the initialisation completed carries its bump too.
            let _ = self.take_share_initialisation(now);
            self.group_epoch += 1;
        }
        self.update_share_state();
        let i = self.members.len() - 1;
        let mut reply = self.share_heartbeat(i, partitions);
        reply.assignment = Some(self.members[i].assignment.clone());
        reply
    }

    /// A regular `ShareGroupHeartbeat`; `None` when the member is unknown
    /// (its session ran out: `UNKNOWN_MEMBER_ID`).
    pub fn handle_share_heartbeat(
        &mut self,
        member_id: &str,
        partitions: u32,
        now: Tick,
    ) -> Option<HeartbeatReply> {
        let i = self.members.iter().position(|m| m.member_id == member_id)?;
        if self.take_share_initialisation(now) {
            self.group_epoch += 1;
        }
        Some(self.share_heartbeat(i, partitions))
    }

    /// Whether the share coordinator's initialisation completed by `now` and
    /// no request has taken its epoch bump yet (this one does).
    fn take_share_initialisation(&mut self, now: Tick) -> bool {
        match self.share_initialised {
            ShareInitialisation::Pending { done_at } if now >= done_at => {
                self.share_initialised = ShareInitialisation::Done;
                true
            }
            _ => false,
        }
    }

    /// A heartbeat with epoch -1 (`close()`): the member leaves at once.
    pub fn handle_share_leave(&mut self, member_id: &str) {
        let Some(i) = self.members.iter().position(|m| m.member_id == member_id) else {
            return; // its session ran out already
        };
        self.members.remove(i);
        self.after_removal();
    }

    fn share_heartbeat(&mut self, i: usize, partitions: u32) -> HeartbeatReply {
        if self.group_epoch > self.target_epoch {
            let members: Vec<assign::ShareMember> = self
                .members
                .iter()
                .map(|m| assign::ShareMember { id: m.member_id.clone(), owned: m.target.clone() })
                .collect();
            // Only initialised partitions are assigned.
            let target = if self.share_initialised == ShareInitialisation::Done {
                assign::simple(&members, partitions)
            } else {
                vec![Vec::new(); members.len()]
            };
            for (member, partitions) in self.members.iter_mut().zip(target) {
                member.target = partitions;
            }
            self.target_epoch = self.group_epoch;
        }
        let member = &mut self.members[i];
        let changed = member.assignment != member.target;
        member.assignment.clone_from(&member.target);
        member.member_epoch = self.target_epoch as i32;
        member.state = MemberState::Stable;
        HeartbeatReply {
            member_epoch: member.member_epoch,
            assignment: changed.then(|| member.assignment.clone()),
        }
    }

    /// `ShareGroup.maybeUpdateGroupState`: Empty or Stable.
    pub(super) fn update_share_state(&mut self) {
        self.state = if self.members.is_empty() { GroupState::Empty } else { GroupState::Stable };
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn members_share_partitions_once_the_share_state_is_initialised() {
        let mut co = Coordinator::new(GroupProtocol::Share, 2);
        // The first join: epoch 2 and nothing yet, the share state is not initialised.
        let a = co.handle_share_join("a".into(), ConsumerId(1), "/h".into(), 2, 0);
        assert_eq!((a.member_epoch, a.assignment), (2, Some(vec![])));
        assert_eq!(co.state(), GroupState::Stable);
        // Joins before the initialisation completes bump by one each.
        co.handle_share_join("b".into(), ConsumerId(2), "/h".into(), 2, 0);
        assert_eq!(co.group_epoch(), 3);
        // Completed at tick 1: the next heartbeat bumps once and brings the partitions.
        let a = co.handle_share_heartbeat("a", 2, 1).expect("a member");
        assert_eq!((a.member_epoch, co.group_epoch()), (4, 4));
        assert_eq!(a.assignment.map(|p| p.len()), Some(1), "two members, two partitions");
        // Three members on two partitions: each partition shared by two.
        co.handle_share_join("c".into(), ConsumerId(3), "/h".into(), 2, 2);
        assert_eq!(co.group_epoch(), 5, "a later join bumps by one");
        for m in ["a", "b", "c"] {
            assert_eq!(co.handle_share_heartbeat(m, 2, 3).expect("a member").member_epoch, 5);
        }
        let held: Vec<usize> =
            (0..2).map(|p| co.members().iter().filter(|m| m.assignment.contains(&p)).count()).collect();
        assert_eq!(held, [2, 2], "{:?}", co.members());
        co.handle_share_leave("a");
        co.handle_share_leave("b");
        co.handle_share_leave("c");
        assert_eq!(co.state(), GroupState::Empty);
        assert!(co.handle_share_heartbeat("a", 2, 4).is_none(), "unknown after leaving");
    }

    #[test]
    fn a_join_after_the_initialisation_carries_its_bump() {
        let mut co = Coordinator::new(GroupProtocol::Share, 2);
        co.handle_share_join("a".into(), ConsumerId(1), "/h".into(), 2, 0);
        // Completed at tick 1; b's join at tick 5 is the next request: one bump for both.
        let b = co.handle_share_join("b".into(), ConsumerId(2), "/h".into(), 2, 5);
        assert_eq!((b.member_epoch, co.group_epoch()), (3, 3));
        assert_eq!(b.assignment.map(|a| a.len()), Some(1));
    }
}
