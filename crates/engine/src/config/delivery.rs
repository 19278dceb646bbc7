//! The producer's delivery settings as its accumulator runs them
//! (`client/accumulator.rs`), and their validation: `ProducerConfig`'s and
//! `KafkaProducer`'s checks, which settle idempotence and the delivery
//! timeout. `config.producer.delivery` gives one
//! ([`DeliverySettings::delivery_config`](super::DeliverySettings::delivery_config)).

use super::{ConfigError, check_range};
use crate::delivery::Acks;
use crate::limits;

/// The producer's delivery settings, with Kafka's names in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeliveryConfig {
    pub acks: Acks,
    /// `enable.idempotence`: `None` is Kafka's default, on unless `acks` is
    /// not `all` or `retries` is 0 (then quietly off); `Some(true)` with
    /// either of those is refused, as Kafka refuses an explicit setting.
    pub enable_idempotence: Option<bool>,
    /// `max.in.flight.requests.per.connection`: at most 5 unless idempotence
    /// is explicitly off (refused otherwise since Kafka 4.0, KAFKA-17927).
    pub max_in_flight: u32,
    /// `retries`: retries of a batch (Kafka's default `Integer.MAX_VALUE`:
    /// the delivery timeout is what bounds them).
    pub retries: u32,
    /// `batch.size`, in records.
    pub batch_records: u32,
    /// `linger.ms`.
    pub linger_ticks: u64,
    /// `request.timeout.ms`.
    pub request_timeout_ticks: u64,
    /// `delivery.timeout.ms`: `None` is Kafka's default (120000), raised to
    /// `linger_ticks + request_timeout_ticks` when below it; a value set
    /// below that is refused.
    pub delivery_timeout_ticks: Option<u64>,
    /// `retry.backoff.ms`.
    pub retry_backoff_ticks: u64,
    /// `retry.backoff.max.ms`.
    pub retry_backoff_max_ticks: u64,
    /// `buffer.memory`, in records: records sent and not yet acknowledged or failed.
    pub buffer_records: u32,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        Self {
            acks: Acks::All,
            enable_idempotence: None,
            max_in_flight: 5,
            retries: i32::MAX as u32,
            batch_records: 4,
            linger_ticks: 5,
            request_timeout_ticks: 30_000,
            delivery_timeout_ticks: None,
            retry_backoff_ticks: 100,
            retry_backoff_max_ticks: 1_000,
            buffer_records: 10_000,
        }
    }
}

/// `max.in.flight.requests.per.connection` allowed with idempotence: the
/// leader remembers a producer's last 5 batches.
pub(crate) const MAX_IN_FLIGHT_FOR_IDEMPOTENCE: u32 = 5;

/// Kafka's default `delivery.timeout.ms`.
const DEFAULT_DELIVERY_TIMEOUT_TICKS: u64 = 120_000;

/// What validation settles: whether idempotence is on and the delivery timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub idempotent: bool,
    pub delivery_timeout_ticks: u64,
}

impl DeliveryConfig {
    /// Checks every field as `ProducerConfig` and `KafkaProducer` do; errors
    /// name the field.
    pub(crate) fn validate(&self) -> Result<Resolved, ConfigError> {
        use limits::*;
        check_range("producer.delivery.max_in_flight", self.max_in_flight, 1, PRODUCER_MAX_IN_FLIGHT_MAX)?;
        check_range("producer.delivery.batch_records", self.batch_records, 1, PRODUCER_BATCH_RECORDS_MAX)?;
        check_range("producer.delivery.buffer_records", self.buffer_records, 1, PRODUCER_BUFFER_RECORDS_MAX)?;
        check_range("producer.delivery.linger_ticks", self.linger_ticks, 0, PRODUCER_TIMEOUT_TICKS_MAX)?;
        check_range(
            "producer.delivery.request_timeout_ticks",
            self.request_timeout_ticks,
            1,
            PRODUCER_TIMEOUT_TICKS_MAX,
        )?;
        check_range(
            "producer.delivery.retry_backoff_ticks",
            self.retry_backoff_ticks,
            0,
            PRODUCER_TIMEOUT_TICKS_MAX,
        )?;
        check_range(
            "producer.delivery.retry_backoff_max_ticks",
            self.retry_backoff_max_ticks,
            0,
            PRODUCER_TIMEOUT_TICKS_MAX,
        )?;
        // `KafkaProducer.configureDeliveryTimeout`.
        let floor = self.linger_ticks + self.request_timeout_ticks;
        let delivery_timeout_ticks = match self.delivery_timeout_ticks {
            Some(ticks) => {
                check_range(
                    "producer.delivery.delivery_timeout_ticks",
                    ticks,
                    1,
                    PRODUCER_TIMEOUT_TICKS_MAX,
                )?;
                if ticks < floor {
                    return Err(ConfigError {
                        field: "producer.delivery.delivery_timeout_ticks",
                        message: format!(
                            "should be equal to or larger than linger_ticks + request_timeout_ticks ({floor}), got {ticks}"
                        ),
                    });
                }
                ticks
            }
            None => DEFAULT_DELIVERY_TIMEOUT_TICKS.max(floor),
        };
        // `ProducerConfig.postProcessAndValidateIdempotenceConfigs`: retries,
        // then acks, then in-flight requests.
        let explicit = self.enable_idempotence == Some(true);
        let mut idempotent = self.enable_idempotence != Some(false);
        if idempotent && self.retries == 0 {
            if explicit {
                return Err(ConfigError {
                    field: "producer.delivery.retries",
                    message: "must be non-zero when using the idempotent producer".into(),
                });
            }
            idempotent = false;
        }
        if self.enable_idempotence != Some(false) && self.acks != Acks::All {
            if explicit {
                return Err(ConfigError {
                    field: "producer.delivery.acks",
                    message: "must be all in order to use the idempotent producer".into(),
                });
            }
            idempotent = false;
        }
        // Checked whenever idempotence is not set off, as Kafka 4.x does
        // (its config value, before the quiet switch-off above).
        if self.enable_idempotence != Some(false) && self.max_in_flight > MAX_IN_FLIGHT_FOR_IDEMPOTENCE {
            return Err(ConfigError {
                field: "producer.delivery.max_in_flight",
                message: format!(
                    "must be at most {MAX_IN_FLIGHT_FOR_IDEMPOTENCE} to use the idempotent producer \
                     (set enable_idempotence to false for more), got {}",
                    self.max_in_flight
                ),
            });
        }
        Ok(Resolved { idempotent, delivery_timeout_ticks })
    }
}
