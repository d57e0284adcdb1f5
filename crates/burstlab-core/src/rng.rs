//! Seeded random streams.
//!
//! One master seed plus a replication index define a run. Each component derives its
//! own named substream with [`RngStream::derive`], e.g. `"link/3/loss"` or
//! `"flow/0/onoff"`, so adding a component or drawing more numbers in one component
//! never perturbs another's sequence. Nothing reads the clock.

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// FNV-1a 64-bit hash of a stream name (stable across platforms and versions).
fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser, used to mix (seed, replication, name) into a 64-bit seed.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random stream (xoshiro256++).
#[derive(Clone, Debug)]
pub struct RngStream {
    rng: Xoshiro256PlusPlus,
}

impl RngStream {
    /// The stream named `name` of run `(seed, replication)`.
    pub fn derive(seed: u64, replication: u64, name: &str) -> Self {
        let s = mix(mix(seed) ^ mix(replication.wrapping_add(0x5151_5151)) ^ fnv1a(name));
        RngStream {
            rng: Xoshiro256PlusPlus::seed_from_u64(s),
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (p outside \[0, 1\] is clamped).
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponential with the given mean (inverse transform).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U lies in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Standard normal variate (Box–Muller; one of the pair is discarded so that the
    /// stream position depends only on the number of calls).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::derive(1, 0, "link/0/loss");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::derive(1, 0, "link/0/loss");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        let mut c = RngStream::derive(1, 1, "link/0/loss");
        let mut d = RngStream::derive(2, 0, "link/0/loss");
        let mut e = RngStream::derive(1, 0, "link/1/loss");
        assert_ne!(a[0], c.next_u64());
        assert_ne!(a[0], d.next_u64());
        assert_ne!(a[0], e.next_u64());
    }

    #[test]
    fn uniform_mean_and_exponential_mean() {
        let mut r = RngStream::derive(7, 0, "t");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "{m}");
        let e: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((e - 2.0).abs() < 0.03, "{e}");
        let z: f64 = (0..n).map(|_| r.normal(0.0, 1.0)).sum::<f64>() / n as f64;
        assert!(z.abs() < 0.01, "{z}");
    }
}
