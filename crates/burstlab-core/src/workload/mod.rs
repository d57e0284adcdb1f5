//! Workloads: TCP flows generated inside the core, and self-similar background traffic.
//!
//! Read first: [`Workload`], which combines the three generators a `[[workload]]`
//! table describes: when flows arrive (`arrivals.rs`: Poisson, fixed period, trace),
//! how large they are (`sizes.rs`: fixed, exponential, bounded Pareto, lognormal,
//! empirical CDF) and between which hosts (`pairs.rs`: uniform over host lists, or an
//! origin–destination matrix). Then `onoff.rs` (Pareto on/off UDP sources and their
//! superposition with a target Hurst parameter) and `hurst.rs` (the estimator that
//! checks it).
//!
//! Every generator is validated when it is built, with errors naming the field
//! (`workload[0].size.shape`), and draws without allocating. Each of a workload's
//! three generators has its own named substream of the run's seed
//! (`workload/<name>/arrivals`, `/sizes`, `/pairs`; `rng.rs`), so changing the size
//! distribution moves no arrival instant and no pair, and one workload's draws never
//! move another's.

pub mod arrivals;
pub mod hurst;
pub mod onoff;
pub mod pairs;
pub mod sizes;

pub use arrivals::{parse_rate_per_s, parse_trace, Arrival, Arrivals, TraceRow};
pub use onoff::{alpha_for_hurst, Pareto, ParetoOnOff, SelfSimilar, SelfSimilarParams};
pub use pairs::{parse_matrix_csv, CsvMatrix, Pairs};
pub use sizes::{parse_cdf, SizeDist};

use crate::rng::RngStream;
use crate::units::SimTime;
use crate::ScenarioError;

pub(crate) fn err(field: &str, reason: impl Into<String>) -> ScenarioError {
    ScenarioError::new(field, reason)
}

/// A uniform integer in [0, n), n > 0, without modulo bias (Lemire, "Fast random
/// integer generation in an interval", ACM TOMACS 2019, algorithm 5: a 128-bit
/// product, rejecting the few low halves below 2^64 mod n).
#[inline]
pub(crate) fn below(rng: &mut RngStream, n: u64) -> u64 {
    debug_assert!(n > 0);
    let mut m = rng.next_u64() as u128 * n as u128;
    if (m as u64) < n {
        let t = n.wrapping_neg() % n;
        while (m as u64) < t {
            m = rng.next_u64() as u128 * n as u128;
        }
    }
    (m >> 64) as u64
}

/// One generated flow: it starts at `at`, from host `src` to host `dst`, and carries
/// `size` bytes. Host ids are the caller's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowArrival {
    pub at: SimTime,
    pub src: u32,
    pub dst: u32,
    pub size: u64,
}

/// A workload's generators and their three substreams.
#[derive(Clone, Debug)]
pub struct Workload {
    arrivals: Arrivals,
    sizes: SizeDist,
    pairs: Pairs,
    rng_arrivals: RngStream,
    rng_sizes: RngStream,
    rng_pairs: RngStream,
}

impl Workload {
    /// The workload `name` of run `(seed, replication)`. A trace brings its own pairs
    /// and sizes; `sizes` and `pairs` are then not drawn from.
    pub fn new(
        name: &str,
        seed: u64,
        replication: u64,
        arrivals: Arrivals,
        sizes: SizeDist,
        pairs: Pairs,
    ) -> Self {
        let s =
            |what: &str| RngStream::derive(seed, replication, &format!("workload/{name}/{what}"));
        Workload {
            arrivals,
            sizes,
            pairs,
            rng_arrivals: s("arrivals"),
            rng_sizes: s("sizes"),
            rng_pairs: s("pairs"),
        }
    }

    /// The next flow (`None` once a trace is exhausted). Instants never decrease.
    #[inline]
    pub fn next_flow(&mut self) -> Option<FlowArrival> {
        let a = self.arrivals.next(&mut self.rng_arrivals)?;
        Some(match a.row {
            Some(r) => FlowArrival {
                at: a.at,
                src: r.src,
                dst: r.dst,
                size: r.size,
            },
            None => {
                let (src, dst) = self.pairs.sample(&mut self.rng_pairs);
                FlowArrival {
                    at: a.at,
                    src,
                    dst,
                    size: self.sizes.sample(&mut self.rng_sizes),
                }
            }
        })
    }

    /// The offered load in bits per second: arrival rate × mean size × 8 (for memory and
    /// event estimates, and to scale a matrix to a target load).
    pub fn offered_bps(&self) -> f64 {
        let mean = match &self.arrivals {
            Arrivals::Trace { rows, .. } => {
                rows.iter().map(|r| r.size as f64).sum::<f64>() / rows.len() as f64
            }
            _ => self.sizes.mean(),
        };
        self.arrivals.rate_per_s() * mean * 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_uniform_and_in_range() {
        let mut r = RngStream::derive(1, 0, "t");
        let n = 7u64;
        let mut c = [0u64; 7];
        let draws = 700_000;
        for _ in 0..draws {
            let x = below(&mut r, n);
            c[x as usize] += 1;
        }
        // Each count is binomial(700 000, 1/7): sd 293; five sd = 1 464.
        for x in c {
            assert!((x as f64 - 100_000.0).abs() < 1_464.0, "{c:?}");
        }
        assert_eq!(below(&mut r, 1), 0);
        assert!((0..1000).all(|_| below(&mut r, u64::MAX) < u64::MAX));
    }

    fn web(seed: u64, sizes: SizeDist) -> Workload {
        Workload::new(
            "web",
            seed,
            0,
            Arrivals::poisson(50.0, SimTime::ZERO, "rate").unwrap(),
            sizes,
            Pairs::uniform(vec![0, 1], vec![2, 3], "w").unwrap(),
        )
    }

    #[test]
    fn substreams_are_independent() {
        // Changing the size distribution moves no arrival instant and no pair.
        let a: Vec<FlowArrival> = {
            let mut w = web(1, SizeDist::fixed(100_000, "s").unwrap());
            (0..100).map(|_| w.next_flow().unwrap()).collect()
        };
        let b: Vec<FlowArrival> = {
            let mut w = web(1, SizeDist::exponential(1e5, "s").unwrap());
            (0..100).map(|_| w.next_flow().unwrap()).collect()
        };
        assert!(a
            .iter()
            .zip(&b)
            .all(|(x, y)| x.at == y.at && (x.src, x.dst) == (y.src, y.dst)));
        assert!(a.iter().zip(&b).any(|(x, y)| x.size != y.size));
        // Same seed, same flows; another seed, other flows.
        let c: Vec<FlowArrival> = {
            let mut w = web(1, SizeDist::exponential(1e5, "s").unwrap());
            (0..100).map(|_| w.next_flow().unwrap()).collect()
        };
        assert_eq!(b, c);
        let mut w = web(2, SizeDist::exponential(1e5, "s").unwrap());
        assert_ne!(w.next_flow().unwrap().at, b[0].at);
    }

    #[test]
    fn offered_load_is_rate_times_mean_size() {
        let w = web(1, SizeDist::fixed(100_000, "s").unwrap());
        assert!((w.offered_bps() - 50.0 * 100_000.0 * 8.0).abs() < 1e-6);
    }

    #[test]
    fn a_trace_brings_its_own_pairs_and_sizes() {
        let rows = parse_trace(
            "0.1,A,B,10\n0.2,B,A,20\n",
            |h| ["A", "B"].iter().position(|x| *x == h).map(|i| i as u32),
            "t",
        )
        .unwrap();
        let mut w = Workload::new(
            "tr",
            1,
            0,
            Arrivals::trace(rows, "t").unwrap(),
            SizeDist::fixed(1, "s").unwrap(),
            Pairs::uniform(vec![5], vec![6], "w").unwrap(),
        );
        let x = w.next_flow().unwrap();
        assert_eq!((x.src, x.dst, x.size), (0, 1, 10));
        assert_eq!(w.next_flow().unwrap().size, 20);
        assert!(w.next_flow().is_none());
    }
}
