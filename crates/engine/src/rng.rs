//! The engine's only source of randomness: a PCG generator seeded from the
//! config, so the same seed gives the same draws natively and in wasm.

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

/// A seeded PRNG. Streams are derived from the seed so that drawing more in
/// one part of the model (the producer) does not shift another (member ids).
#[derive(Debug, Clone)]
pub struct Rng {
    inner: Pcg64Mcg,
}

impl Rng {
    #[cfg(test)]
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self::with_stream(seed, 0)
    }

    #[must_use]
    pub fn with_stream(seed: u64, stream: u64) -> Self {
        // splitmix64 spreads nearby seeds apart before they reach the MCG state.
        let a = splitmix64(seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let b = splitmix64(a);
        let state = (u128::from(a) << 64) | u128::from(b);
        Self { inner: Pcg64Mcg::new(state | 1) }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    pub fn next_u32(&mut self) -> u32 {
        self.inner.next_u32()
    }

    /// A uniform draw in `0..bound` (Lemire's multiply-and-reject).
    pub fn below(&mut self, bound: u32) -> u32 {
        assert!(bound > 0, "below(0) has no values to draw");
        let threshold = bound.wrapping_neg() % bound;
        // The rejection loop ends with probability > 1/2 per round; bound it anyway.
        for _ in 0..64 {
            let product = u64::from(self.next_u32()) * u64::from(bound);
            if (product as u32) >= threshold {
                return (product >> 32) as u32;
            }
        }
        unreachable!("64 consecutive rejections: the generator is broken");
    }
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn same_seed_same_draws() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
        assert_ne!(Rng::with_stream(7, 1).next_u64(), Rng::new(7).next_u64());
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = Rng::new(3);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            let v = rng.below(6);
            seen[v as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "roughly uniform: {seen:?}");
    }
}
