//! The broker side: the topic's partition logs, one group coordinator per
//! group, and each group's committed offsets. It knows nothing of the
//! clients' loops or the applications: requests come in as plain values
//! (records to append, member joins and leaves, offsets to commit) and
//! answers go back as plain values.

pub(crate) mod coordinator;
pub(crate) mod offsets;
// The share groups' broker side: built and tested here, routed by the `Sim`
// once share groups have their consumer loop.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod share_partition;
pub(crate) mod topic;

pub(crate) use coordinator::{Coordinator, GroupState, HeartbeatError, Joined, MemberState};
pub(crate) use offsets::OffsetStore;
pub(crate) use topic::Topic;
