//! The produce path's vocabulary, shared by the broker's replication model
//! (`broker/replication.rs`) and the producer's delivery path
//! (`client/accumulator.rs`): `acks` and the errors a produce request can end
//! with, by Kafka's names. One definition, so the `Sim` routes a leader's
//! answer to the producer without translating it.

use serde::{Deserialize, Serialize};

/// `acks`: what the leader waits for before it answers. In JSON `"0"`,
/// `"1"` or `"all"`, as Kafka's property takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Acks {
    /// `acks=0`: no answer at all. The producer counts the batch as
    /// acknowledged when the request is sent, without an offset; nothing is
    /// ever retried.
    #[serde(rename = "0")]
    Zero,
    /// `acks=1`: answered once the leader appended.
    #[serde(rename = "1")]
    One,
    /// `acks=all` (-1, Kafka's default since 3.0): answered once the high
    /// watermark passed the append; refused with `NOT_ENOUGH_REPLICAS` while
    /// the ISR is smaller than `min.insync.replicas`.
    #[default]
    #[serde(rename = "all")]
    All,
}

impl Acks {
    /// Every setting, in the order a menu lists them.
    pub const ALL: [Acks; 3] = [Acks::Zero, Acks::One, Acks::All];

    /// The setting as Kafka and the scenario JSON write it: `0`, `1`, `all`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Acks::Zero => "0",
            Acks::One => "1",
            Acks::All => "all",
        }
    }
}

/// Why a produce request did not succeed: the leader's error codes, and the
/// two the client makes up itself (a request timeout, a broken connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProduceError {
    /// The partition has no leader (`LEADER_NOT_AVAILABLE`). Retriable; nothing written.
    LeaderNotAvailable,
    /// The connection to the broker broke (`NETWORK_EXCEPTION`): the leader's
    /// process is down, or an acks=all produce waited on a leader that
    /// crashed. Retriable.
    NetworkException,
    /// `NOT_LEADER_OR_FOLLOWER`, with the new leader when the response names
    /// it (KIP-951). Retriable; nothing written.
    NotLeaderOrFollower { leader: Option<u32> },
    /// `NOT_ENOUGH_REPLICAS` (acks=all, ISR below `min.insync.replicas`):
    /// refused before the append (`Partition.appendRecordsToLeader`). Retriable.
    NotEnoughReplicas,
    /// `NOT_ENOUGH_REPLICAS_AFTER_APPEND`: written by the leader, then the
    /// ISR shrank below `min.insync.replicas` before acks=all completed
    /// (`checkEnoughReplicasReachOffset`). Retriable: the retry writes it
    /// again unless the producer is idempotent.
    NotEnoughReplicasAfterAppend,
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER` (idempotence): nothing written.
    OutOfOrderSequence,
    /// `INVALID_PRODUCER_EPOCH` (idempotence, a stale epoch): not retriable.
    InvalidProducerEpoch,
    /// No answer in time: acks=all whose HW did not reach the append within
    /// the request's timeout (the broker's `REQUEST_TIMED_OUT`), or the
    /// client's own timeout, which closes the connection. Retriable.
    RequestTimedOut,
}

impl ProduceError {
    /// Kafka's `RetriableException` subclasses.
    pub(crate) fn retriable(self) -> bool {
        !matches!(self, ProduceError::OutOfOrderSequence | ProduceError::InvalidProducerEpoch)
    }
}
