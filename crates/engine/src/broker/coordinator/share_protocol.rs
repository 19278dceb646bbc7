//! Share groups (KIP-932) as Kafka 4.4's group coordinator runs them: a
//! group epoch bumped when a member joins or leaves or the topic grows, and a
//! target assignment of the `simple` assignor for that epoch. A member takes
//! its share of the target at its next heartbeat, with nothing to revoke
//! first: partitions are shared, records are acquired one by one at the
//! share-partition, so no barrier and no reconciliation states. The group is
//! `Empty` or `Stable` (Kafka's `ShareGroupState`).

use super::{Coordinator, GroupState, HeartbeatReply, Member, MemberState};
use crate::assign;
use crate::config::{GroupProtocol, limits};
use crate::input::ConsumerId;

impl Coordinator {
    /// A `ShareGroupHeartbeat` with member epoch 0: a new member.
    pub fn handle_share_join(
        &mut self,
        member_id: String,
        consumer: ConsumerId,
        host: String,
        partitions: u32,
    ) -> HeartbeatReply {
        assert_eq!(self.protocol, GroupProtocol::Share);
        self.members.push(Member::new(member_id.clone(), consumer, host, None));
        assert!(self.members.len() <= 2 * limits::CONSUMERS_MAX as usize);
        self.group_epoch += 1;
        self.update_share_state();
        let i = self.members.len() - 1;
        let mut reply = self.share_heartbeat(i, partitions);
        reply.assignment = Some(self.members[i].assignment.clone());
        reply
    }

    /// A regular `ShareGroupHeartbeat`; `None` when the member is unknown
    /// (its session ran out: `UNKNOWN_MEMBER_ID`).
    pub fn handle_share_heartbeat(&mut self, member_id: &str, partitions: u32) -> Option<HeartbeatReply> {
        let i = self.members.iter().position(|m| m.member_id == member_id)?;
        Some(self.share_heartbeat(i, partitions))
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
            let target = assign::simple(&members, partitions);
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
    fn members_share_partitions_without_revoking_first() {
        let mut co = Coordinator::new(GroupProtocol::Share, 2);
        let a = co.handle_share_join("a".into(), ConsumerId(1), "/h".into(), 2);
        assert_eq!((a.member_epoch, a.assignment), (1, Some(vec![0, 1])));
        assert_eq!(co.state(), GroupState::Stable);
        // Three members on two partitions: each partition shared by two.
        co.handle_share_join("b".into(), ConsumerId(2), "/h".into(), 2);
        co.handle_share_join("c".into(), ConsumerId(3), "/h".into(), 2);
        co.handle_share_heartbeat("a", 2).expect("a member");
        co.handle_share_heartbeat("b", 2).expect("a member");
        let held: Vec<usize> =
            (0..2).map(|p| co.members().iter().filter(|m| m.assignment.contains(&p)).count()).collect();
        assert_eq!(held, [2, 2], "{:?}", co.members());
        assert_eq!(co.group_epoch(), 3);
        co.handle_share_leave("a");
        co.handle_share_leave("b");
        co.handle_share_leave("c");
        assert_eq!(co.state(), GroupState::Empty);
        assert!(co.handle_share_heartbeat("a", 2).is_none(), "unknown after leaving");
    }
}
