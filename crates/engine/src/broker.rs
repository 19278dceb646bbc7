//! The broker side: the topic's partition logs, one group coordinator per
//! group, each group's committed offsets, and each share group's
//! share-partitions. It knows nothing of the
//! clients' loops or the applications: requests come in as plain values
//! (records to append, member joins and leaves, offsets to commit) and
//! answers go back as plain values.

pub(crate) mod coordinator;
pub(crate) mod offsets;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod payouts;
pub(crate) mod producer_state;
// Some of its reads serve only its tests and the describe output.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod replication;
pub(crate) mod share_partition;
pub(crate) mod topic;
// Transactions: the coordinator, and a partition's transaction state.
pub(crate) mod transaction;
pub(crate) mod txn_index;

pub(crate) use coordinator::{Coordinator, GroupState, HeartbeatError, Joined, MemberState};
pub(crate) use offsets::OffsetStore;
pub(crate) use share_partition::{AcknowledgeType, RecordState, SharePartition};
pub(crate) use topic::Topic;

use crate::event::{PartitionMove, Tick};
use serde::Serialize;

/// A group's last completed rebalance, as its coordinator keeps it: which
/// partitions changed owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RebalanceView {
    pub tick: Tick,
    pub generation: u32,
    pub moved: Vec<PartitionMove>,
}
