//! Kafka's client-side partitioning: murmur2 for keyed records, sticky or
//! round-robin for keyless ones.
//!
//! The keyed path is bit-for-bit Kafka's `Utils.murmur2` and
//! `BuiltInPartitioner.partitionForKey`: `toPositive(murmur2(key)) % partitions`,
//! where `toPositive` masks the sign bit (`& 0x7fffffff`) rather than taking
//! `abs`, so `i32::MIN` maps to 0 instead of overflowing.

use crate::rng::Rng;
use serde::Serialize;

/// Kafka's murmur2 (`org.apache.kafka.common.utils.Utils.murmur2`), seed `0x9747b28c`.
#[must_use]
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    // Kafka computes in wrapping 32-bit ints; u32 arithmetic gives the same bits.
    let length = u32::try_from(data.len()).expect("a key longer than 4 GiB cannot be hashed");
    let mut h: u32 = SEED ^ length;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    // Kafka's switch falls through: case 3 then 2 then 1.
    if tail.len() >= 3 {
        h ^= u32::from(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        h ^= u32::from(tail[1]) << 8;
    }
    if !tail.is_empty() {
        h ^= u32::from(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Kafka's `Utils.toPositive`: clears the sign bit (not `abs`).
#[must_use]
pub fn to_positive(n: i32) -> u32 {
    (n & 0x7fff_ffff) as u32
}

/// The partition Kafka's default partitioner picks for a keyed record.
#[must_use]
pub fn partition_for_key(key: &[u8], partitions: u32) -> u32 {
    assert!(partitions > 0, "a topic has at least one partition");
    to_positive(murmur2(key)) % partitions
}

/// How keyless records are spread over partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "strategy", rename_all = "kebab-case")]
pub enum KeylessStrategy {
    /// Kafka's sticky partitioning: fill a batch of `batch_records` on one
    /// partition, then move to another partition chosen at random (never the
    /// same one again when there is more than one).
    Sticky { batch_records: u32 },
    /// Kafka's `RoundRobinPartitioner`: a counter from 0, `counter % partitions`.
    RoundRobin,
}

impl Default for KeylessStrategy {
    fn default() -> Self {
        KeylessStrategy::Sticky { batch_records: 4 }
    }
}

/// The mutable part of keyless partitioning: the sticky partition and its
/// batch fill, or the round-robin counter.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeylessState {
    sticky_partition: Option<u32>,
    sticky_filled: u32,
    round_robin_counter: u32,
}

impl KeylessState {
    pub(crate) fn next_partition(
        &mut self,
        strategy: KeylessStrategy,
        partitions: u32,
        rng: &mut Rng,
    ) -> u32 {
        assert!(partitions > 0);
        match strategy {
            KeylessStrategy::RoundRobin => {
                let value = self.round_robin_counter;
                self.round_robin_counter = self.round_robin_counter.wrapping_add(1);
                to_positive(value as i32) % partitions
            }
            KeylessStrategy::Sticky { batch_records } => {
                assert!(batch_records > 0);
                let current = match self.sticky_partition {
                    Some(p) if self.sticky_filled < batch_records && p < partitions => p,
                    previous => {
                        let next = if partitions == 1 {
                            0
                        } else {
                            // Kafka's StickyPartitionCache draws again until the
                            // new partition differs from the old one; drawing
                            // from the other P-1 partitions is the same
                            // distribution in one bounded step.
                            match previous.filter(|&p| p < partitions) {
                                Some(old) => {
                                    let draw = rng.below(partitions - 1);
                                    if draw >= old { draw + 1 } else { draw }
                                }
                                None => rng.below(partitions),
                            }
                        };
                        self.sticky_partition = Some(next);
                        self.sticky_filled = 0;
                        next
                    }
                };
                self.sticky_filled += 1;
                current
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn kafka_murmur2_vectors() {
        // From Kafka's UtilsTest.testMurmur2.
        assert_eq!(murmur2(b"21"), -973_932_308);
        assert_eq!(murmur2(b"foobar"), -790_332_482);
        assert_eq!(murmur2(b"a-little-bit-long-string"), -985_981_536);
        assert_eq!(murmur2(b"a-little-bit-longer-string"), -1_486_304_829);
        assert_eq!(murmur2(b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58_897_971);
        assert_eq!(murmur2(b"abc"), 479_470_107);
    }

    #[test]
    fn to_positive_masks_rather_than_abs() {
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(to_positive(-1), 0x7fff_ffff);
        assert_eq!(to_positive(5), 5);
    }

    #[test]
    fn round_robin_counts_from_zero() {
        let mut state = KeylessState::default();
        let mut rng = Rng::new(1);
        let got: Vec<u32> =
            (0..7).map(|_| state.next_partition(KeylessStrategy::RoundRobin, 3, &mut rng)).collect();
        assert_eq!(got, vec![0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn sticky_fills_a_batch_then_moves_to_another_partition() {
        let mut state = KeylessState::default();
        let mut rng = Rng::new(42);
        let strategy = KeylessStrategy::Sticky { batch_records: 4 };
        let got: Vec<u32> = (0..40).map(|_| state.next_partition(strategy, 5, &mut rng)).collect();
        for batch in got.chunks(4) {
            assert!(batch.iter().all(|&p| p == batch[0]), "a batch stays on one partition: {got:?}");
        }
        for pair in got.chunks(4).collect::<Vec<_>>().windows(2) {
            assert_ne!(pair[0][0], pair[1][0], "the next batch moves: {got:?}");
        }
    }
}
