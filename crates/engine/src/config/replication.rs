//! The cluster's and the topic's replication settings as the replication
//! model runs them (`broker/replication.rs`), and their validation.
//! `config.cluster` gives one ([`Config::replication_config`](super::Config::replication_config)).

use super::ConfigError;
// The bounds live in `limits`, with every other bound of the engine.
use crate::limits::{BROKERS_MAX, CLUSTER_TIMEOUT_TICKS_MAX as TIMEOUT_TICKS_MAX, PARTITIONS_MAX};

/// The cluster's and the topic's replication settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReplicationConfig {
    /// Brokers, node ids 1 to `brokers` (1 to 5).
    pub brokers: u32,
    /// The topic's partitions (1 to 256).
    pub partitions: u32,
    /// Replicas per partition, 1 to `brokers` (`--replication-factor`; Kafka's
    /// `default.replication.factor` is 1).
    pub replication_factor: u32,
    /// `min.insync.replicas`, 1 to `replication_factor` (Kafka's default: 1).
    pub min_insync_replicas: u32,
    /// `replica.lag.time.max.ms` in ticks (Kafka's default: 30,000 ms). The
    /// leader checks for lagging followers every half of it
    /// (`ReplicaManager`'s `isr-expiration` task).
    pub replica_lag_time_max_ticks: u64,
    /// `broker.session.timeout.ms` in ticks (Kafka's default: 9,000 ms): the
    /// controller fences a crashed broker this long after it stopped
    /// heartbeating. 0 fences it in the step it crashes.
    pub broker_session_timeout_ticks: u64,
    /// How long an acks=all produce waits for the HW before it fails with
    /// `REQUEST_TIMED_OUT` (the producer's `request.timeout.ms`, sent as the
    /// request's timeout; Kafka's default: 30,000 ms).
    pub request_timeout_ticks: u64,
    /// `unclean.leader.election.enable` (Kafka's default: false).
    pub unclean_leader_election: bool,
    /// `eligible.leader.replicas.version=1` (KIP-966). On by default for a
    /// cluster formatted with Kafka 4.1 or later, so for a new 4.4.0 cluster
    /// (`EligibleLeaderReplicasVersion.ELRV_1` bootstraps at `IBP_4_1_IV0`).
    pub eligible_leader_replicas: bool,
}

impl ReplicationConfig {
    /// `brokers` brokers, `partitions` partitions of `replication_factor`
    /// replicas, Kafka 4.4.0's defaults otherwise (milliseconds read as
    /// ticks of a second: lag 30, session 9, request timeout 30).
    #[cfg_attr(not(test), allow(dead_code))] // its tests build one
    pub(crate) fn new(brokers: u32, partitions: u32, replication_factor: u32) -> Self {
        ReplicationConfig {
            brokers,
            partitions,
            replication_factor,
            min_insync_replicas: 1,
            replica_lag_time_max_ticks: 30,
            broker_session_timeout_ticks: 9,
            request_timeout_ticks: 30,
            unclean_leader_election: false,
            eligible_leader_replicas: true,
        }
    }

    /// Refuses a bad value with an error naming the field.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        fn range(field: &'static str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
            if value < min || value > max {
                return Err(ConfigError {
                    field,
                    message: format!("must be between {min} and {max}, got {value}"),
                });
            }
            Ok(())
        }
        range("cluster.brokers", self.brokers.into(), 1, BROKERS_MAX.into())?;
        range("partitions", self.partitions.into(), 1, PARTITIONS_MAX.into())?;
        range("cluster.replication_factor", self.replication_factor.into(), 1, self.brokers.into())?;
        range(
            "cluster.min_insync_replicas",
            self.min_insync_replicas.into(),
            1,
            self.replication_factor.into(),
        )?;
        range("cluster.replica_lag_time_max_ticks", self.replica_lag_time_max_ticks, 1, TIMEOUT_TICKS_MAX)?;
        range(
            "cluster.broker_session_timeout_ticks",
            self.broker_session_timeout_ticks,
            0,
            TIMEOUT_TICKS_MAX,
        )?;
        range("producer.delivery.request_timeout_ticks", self.request_timeout_ticks, 1, TIMEOUT_TICKS_MAX)?;
        Ok(())
    }
}
