//! The client side of exactly-once processing: each member's transactional
//! producer (the `KafkaProducer` with a `transactional.id` its application
//! writes to payouts with), and the downstream consumer that reads payouts.

use crate::broker::payouts::PayoutRead;
use crate::broker::transaction::ProducerIdAndEpoch;
use crate::config::IsolationLevel;
use crate::input::ConsumerId;
use litemap::LiteMap;

/// Distinct result ids the downstream consumer remembers to count
/// duplicates; past it the smallest are forgotten (a duplicate of one of
/// those is then not counted).
pub(crate) const DOWNSTREAM_SEEN_MAX: usize = 1_000_000;

/// One member's transactional producer.
///
/// # Calling contract
/// Made when its consumer starts for the first time (a restart keeps it: the
/// same `transactional.id`); the `Sim` sets `producer` from the
/// coordinator's `InitProducerId` answer, opens a transaction at the first
/// write of a batch, and closes it with the `EndTxn` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TransactionalProducer {
    pub consumer: ConsumerId,
    pub transactional_id: String,
    /// `None` until `initTransactions()` succeeds.
    pub producer: Option<ProducerIdAndEpoch>,
    /// `beginTransaction()` was called and the transaction not ended.
    pub in_transaction: bool,
    /// The producer learned it is fenced: it writes and commits nothing more.
    pub fenced: bool,
}

impl TransactionalProducer {
    pub fn new(consumer: ConsumerId, transactional_id: String) -> Self {
        TransactionalProducer {
            consumer,
            transactional_id,
            producer: None,
            in_transaction: false,
            fenced: false,
        }
    }
}

/// The downstream consumer of payouts: one member reading every partition
/// from the start with its `isolation.level`, counting what it receives.
///
/// # Calling contract
/// [`Downstream::handle_reads`] with each fetch's results, in offset order
/// per partition; [`Downstream::position`] / [`Downstream::set_position`]
/// around each fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Downstream {
    pub isolation: IsolationLevel,
    pub per_tick: u32,
    positions: Vec<u64>,
    /// Per result id (the `orders` record it was made from): deliveries.
    seen: LiteMap<u64, u32>,
    /// Results delivered.
    pub delivered: u64,
    /// Deliveries of a result already delivered (another copy, another offset).
    pub duplicates: u64,
}

impl Downstream {
    #[cfg_attr(not(feature = "transactions"), allow(dead_code))]
    pub fn new(isolation: IsolationLevel, per_tick: u32, partitions: u32) -> Self {
        Downstream {
            isolation,
            per_tick,
            positions: vec![0; partitions as usize],
            seen: LiteMap::new(),
            delivered: 0,
            duplicates: 0,
        }
    }

    pub fn add_partitions(&mut self, added: u32) {
        self.positions.extend((0..added).map(|_| 0));
    }

    pub fn position(&self, partition: u32) -> u64 {
        self.positions[partition as usize]
    }

    pub fn set_position(&mut self, partition: u32, position: u64) {
        assert!(position >= self.positions[partition as usize], "the downstream reads forward");
        self.positions[partition as usize] = position;
    }

    pub fn handle_reads(&mut self, reads: &[PayoutRead]) {
        for read in reads {
            self.delivered += 1;
            match self.seen.get_mut(&read.source_id) {
                Some(count) => {
                    *count += 1;
                    self.duplicates += 1;
                }
                None => {
                    if self.seen.len() == DOWNSTREAM_SEEN_MAX {
                        self.seen.remove(&self.seen.first().map(|(k, _)| *k).expect("full"));
                    }
                    self.seen.insert(read.source_id, 1);
                }
            }
        }
        assert!(self.seen.len() <= DOWNSTREAM_SEEN_MAX);
        assert!(self.duplicates <= self.delivered);
    }
}
