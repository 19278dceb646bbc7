//! The client side: the producer, and each consumer's poll loop. Clients
//! hold their own state (positions, batches, a consumer-side offset store)
//! and talk to the broker only through the plain values the `Sim` routes.

pub(crate) mod accumulator;
pub(crate) mod consumer;
pub(crate) mod producer;
pub(crate) mod transactional;

pub(crate) use consumer::{Consumer, FetchStep, Fetched, OutOfGroup};
pub(crate) use producer::Producer;

use crate::event::Tick;
use serde::Serialize;

/// Where a consumer process is: the one enum for the process (the consumer
/// keeps it) and its card (the view shows it). In JSON, its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumerState {
    Running,
    /// `consumer.pause()`: in the group, fetching nothing.
    Paused,
    /// Finishing its batch before it leaves, until `deadline`; `remove` drops
    /// the card after it left.
    Stopping {
        deadline: Tick,
        remove: bool,
    },
    Crashed,
    Stopped,
}

impl ConsumerState {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ConsumerState::Running => "running",
            ConsumerState::Paused => "paused",
            ConsumerState::Stopping { .. } => "stopping",
            ConsumerState::Crashed => "crashed",
            ConsumerState::Stopped => "stopped",
        }
    }
}

impl Serialize for ConsumerState {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.label())
    }
}

/// Where the consumer's loop is, for highlighting the poll-loop code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoopStep {
    Idle,
    Poll,
    Handle,
    Commit,
}

/// The last checkpoint a consumer completed (`lastCheckpoint`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointView {
    pub tick: Tick,
    pub positions: Vec<(u32, u64)>,
}
