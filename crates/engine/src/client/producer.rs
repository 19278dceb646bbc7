//! The producer `orders-api`: picks each record's subject, and its partition
//! with Kafka's partitioner (murmur2 for keys, sticky or round-robin without).

use crate::config::ProducerConfig;
use crate::event::Tick;
use crate::partitioner::{KeylessState, partition_for_key};
use crate::rng::Rng;
use serde::Serialize;

/// A record the producer sends: where it goes and what it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Send {
    /// The record's id: unique across the topic, increasing in production order.
    pub id: u64,
    pub partition: u32,
    pub subject: u32,
    pub keyed: bool,
}

/// The key of subject `i`: `user-i`.
#[must_use]
pub fn subject_key(i: u32) -> String {
    format!("user-{i}")
}

/// The answer to the last keyless peek.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PeekView {
    pub tick: Tick,
    pub partition: u32,
    /// `partitionFor(null)`: it moved the round-robin counter.
    pub advanced: bool,
}

/// The producer.
///
/// # Calling contract
/// [`Producer::poll_send`] returns the next record to append; the caller
/// appends it to the topic. Settings change through [`Producer::handle_send_rate`],
/// [`Producer::handle_use_keys`], [`Producer::handle_hot_key`] and
/// [`Producer::handle_key_count`]; [`Producer::handle_partitions_added`] tells it the topic grew (keys remap).
#[derive(Debug, Clone)]
pub(crate) struct Producer {
    /// The live settings (the page's toggles).
    settings: ProducerConfig,
    rng: Rng,
    keyless: KeylessState,
    partitions: u32,
    /// Partition of each subject's key (murmur2), for the current partition count.
    key_partitions: Vec<u32>,
    /// The partition each subject's keyed records went to (invariant check).
    keyed_home: Vec<Option<u32>>,
    next_record_id: u64,
    produced: u64,
    /// `partitionFor(null)` calls that moved the round-robin counter.
    advancing_peeks: u64,
    last_peek: Option<PeekView>,
}

impl Producer {
    pub fn new(settings: ProducerConfig, seed: u64, partitions: u32) -> Producer {
        let mut producer = Producer {
            settings,
            rng: Rng::with_stream(seed, 1),
            keyless: KeylessState::default(),
            partitions,
            key_partitions: Vec::new(),
            keyed_home: Vec::new(),
            next_record_id: 0,
            produced: 0,
            advancing_peeks: 0,
            last_peek: None,
        };
        producer.refresh_key_partitions();
        producer
    }

    /// `keep-sending`: records produced each tick from now on.
    pub fn handle_send_rate(&mut self, per_tick: u32) {
        self.settings.send_per_tick = per_tick;
    }

    /// Whether records carry their subject as the key from now on.
    pub fn handle_use_keys(&mut self, on: bool) {
        self.settings.use_keys = on;
    }

    /// The share of records that go to the hot key from now on.
    pub fn handle_hot_key(&mut self, share_percent: u8) {
        self.settings.hot_key_share_percent = share_percent;
    }

    pub fn settings(&self) -> &ProducerConfig {
        &self.settings
    }

    /// Records produced.
    pub fn produced(&self) -> u64 {
        self.produced
    }

    /// `partitionFor(null)` calls that moved the round-robin counter.
    pub fn advancing_peeks(&self) -> u64 {
        self.advancing_peeks
    }

    pub fn last_peek(&self) -> Option<PeekView> {
        self.last_peek
    }

    pub fn handle_key_count(&mut self, keys: u32) {
        self.settings.key_count = keys;
        self.refresh_key_partitions();
    }

    /// The topic grew to `partitions`: keys map anew for future records.
    /// Returns `(subject, old partition, new partition)` of every key that moved.
    pub fn handle_partitions_added(&mut self, partitions: u32) -> Vec<(u32, u32, u32)> {
        self.partitions = partitions;
        let old = self.key_partitions.clone();
        self.refresh_key_partitions();
        // Keys keep their partition only while the count is fixed: a new count, new homes.
        self.keyed_home.iter_mut().for_each(|home| *home = None);
        old.iter()
            .zip(&self.key_partitions)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(s, (&a, &b))| (s as u32, a, b))
            .collect()
    }

    fn refresh_key_partitions(&mut self) {
        let keys = self.settings.key_count as usize;
        let partitions = self.partitions;
        self.key_partitions =
            (0..keys).map(|i| partition_for_key(subject_key(i as u32).as_bytes(), partitions)).collect();
        if self.keyed_home.len() < keys {
            self.keyed_home.resize(keys, None);
        }
    }

    fn pick_subject(&mut self) -> u32 {
        let keys = self.settings.key_count;
        let hot = u32::from(self.settings.hot_key_share_percent);
        if hot == 0 || keys == 1 {
            return self.rng.below(keys);
        }
        if self.rng.below(100) < hot { 0 } else { 1 + self.rng.below(keys - 1) }
    }

    /// The next record.
    pub fn poll_send(&mut self) -> Send {
        let use_keys = self.settings.use_keys;
        let subject = self.pick_subject();
        let partition = if use_keys {
            let p = self.key_partitions[subject as usize];
            let home = &mut self.keyed_home[subject as usize];
            // A keyed record's partition never changes while P is fixed.
            assert!(home.is_none_or(|h| h == p), "key user-{subject} moved partitions");
            *home = Some(p);
            p
        } else {
            self.keyless.next_partition(self.settings.keyless, self.partitions, &mut self.rng)
        };
        let id = self.next_record_id;
        self.next_record_id += 1;
        self.produced += 1;
        Send { id, partition, subject, keyed: use_keys }
    }

    /// `partitionFor(null)` (advancing) or a fixed peek.
    pub fn handle_peek(&mut self, now: Tick, advancing: bool) -> PeekView {
        let partition = if advancing {
            self.advancing_peeks += 1;
            self.keyless.next_partition(self.settings.keyless, self.partitions, &mut self.rng)
        } else {
            self.next_keyless_partition()
        };
        let peek = PeekView { tick: now, partition, advanced: advancing };
        self.last_peek = Some(peek);
        peek
    }

    /// Where the next keyless record would go, without moving anything.
    pub fn next_keyless_partition(&self) -> u32 {
        let mut keyless = self.keyless.clone();
        let mut rng = self.rng.clone();
        keyless.next_partition(self.settings.keyless, self.partitions, &mut rng)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::partitioner::KeylessStrategy;

    #[test]
    fn keyed_records_follow_murmur2_and_ids_increase() {
        let mut producer = Producer::new(ProducerConfig::default(), 7, 3);
        let sends: Vec<Send> = (0..50).map(|_| producer.poll_send()).collect();
        assert!(sends.windows(2).all(|w| w[0].id + 1 == w[1].id));
        for send in &sends {
            assert!(send.keyed);
            assert_eq!(send.partition, partition_for_key(subject_key(send.subject).as_bytes(), 3));
        }
        assert_eq!(producer.produced, 50);
    }

    #[test]
    fn an_advancing_peek_moves_the_round_robin_counter_and_a_fixed_one_does_not() {
        let settings = ProducerConfig {
            use_keys: false,
            keyless: KeylessStrategy::RoundRobin,
            ..ProducerConfig::default()
        };
        let mut producer = Producer::new(settings, 1, 3);
        assert_eq!(producer.handle_peek(0, false).partition, 0);
        assert_eq!(producer.handle_peek(0, false).partition, 0);
        assert_eq!(producer.handle_peek(0, true).partition, 0);
        assert_eq!(producer.advancing_peeks, 1);
        // The peek took partition 0: the next send skips it.
        assert_eq!(producer.poll_send().partition, 1);
    }

    #[test]
    fn growing_the_topic_remaps_some_keys() {
        let mut producer =
            Producer::new(ProducerConfig { key_count: 100, ..ProducerConfig::default() }, 1, 3);
        let moved = producer.handle_partitions_added(4);
        assert!(!moved.is_empty());
        for (subject, from, to) in moved {
            assert_eq!(from, partition_for_key(subject_key(subject).as_bytes(), 3));
            assert_eq!(to, partition_for_key(subject_key(subject).as_bytes(), 4));
        }
    }
}
