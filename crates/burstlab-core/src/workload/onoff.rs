//! Self-similar background traffic: Pareto on/off UDP sources and their superposition.
//!
//! Read first: [`ParetoOnOff`], then [`SelfSimilar`]. A Pareto on/off source sends
//! packets at a constant peak rate during its on periods and nothing during its off
//! periods, both Pareto-distributed (ns-2's `Application/Traffic/Pareto` does the
//! same). Superposing N such sources whose periods have tail index 1 < α < 2 gives, as
//! N grows and on large time scales, a long-range-dependent count process with Hurst
//! parameter H = (3 − α)/2 (Taqqu, Willinger and Sherman, "Proof of a fundamental
//! result in self-similar traffic modeling", CCR 1997; Willinger et al., ToN 1997).
//!
//! Each source starts in its stationary state (on with probability
//! E\[on\]/(E\[on\] + E\[off\]), its first period drawn from the equilibrium residual-life
//! distribution of renewal theory), so there is no start-up transient: with heavy
//! tails a source started at the beginning of a period would take very long to settle.
//! Time is integer: periods are drawn in seconds, rounded to picoseconds once, and
//! packets within an on period are spaced exactly by the integer packet gap. Every
//! source draws from its own stream, so adding a source perturbs no other.

use super::err;
use crate::rng::RngStream;
use crate::units::SimTime;
use crate::ScenarioError;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A Pareto distribution with shape α > 1 and scale (minimum) `xm`:
/// P(X > x) = (xm/x)^α for x ≥ xm, mean α·xm/(α − 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pareto {
    pub shape: f64,
    pub xm: f64,
}

impl Pareto {
    /// The Pareto of shape `shape` (> 1) and mean `mean` (> 0): xm = mean (α − 1)/α.
    pub fn with_mean(shape: f64, mean: f64, field: &str) -> Result<Self, ScenarioError> {
        if !(shape.is_finite() && shape > 1.0) {
            return Err(err(
                &format!("{field}.shape"),
                format!("a Pareto period needs a shape above 1 (a finite mean), got {shape}"),
            ));
        }
        if !(mean.is_finite() && mean > 0.0) {
            return Err(err(
                &format!("{field}.mean"),
                format!("must be a positive finite duration, got {mean}"),
            ));
        }
        Ok(Pareto {
            shape,
            xm: mean * (shape - 1.0) / shape,
        })
    }

    pub fn mean(&self) -> f64 {
        self.shape * self.xm / (self.shape - 1.0)
    }

    /// One draw (inverse transform: xm / V^(1/α) with V = 1 − U in (0, 1]).
    #[inline]
    pub fn sample(&self, rng: &mut RngStream) -> f64 {
        self.xm / (1.0 - rng.uniform()).powf(1.0 / self.shape)
    }

    /// One draw of the equilibrium residual life, density F̄(x)/mean: with m the mean,
    /// P(R ≤ x) = x/m on [0, xm] (total mass (α − 1)/α), and
    /// P(R > x) = (1/α)(xm/x)^(α−1) beyond.
    pub fn sample_residual(&self, rng: &mut RngStream) -> f64 {
        let (a, m) = (self.shape, self.mean());
        let u = rng.uniform();
        if u < (a - 1.0) / a {
            u * m
        } else {
            // (1/α)(xm/x)^(α−1) = 1 − u.
            self.xm * (1.0 / (a * (1.0 - u))).powf(1.0 / (a - 1.0))
        }
    }
}

/// Seconds to picoseconds, at least 1 ps (a period of length zero would stall).
fn ps(s: f64) -> SimTime {
    SimTime(((s * 1e12).round() as u64).max(1))
}

/// One Pareto on/off source: a packet every `gap` of on time. The packet clock runs
/// only while the source is on and carries over from one on period to the next (a
/// fluid constant-rate source sampled every `gap`), so the long-run rate is exactly
/// duty / gap; an on period shorter than the remaining gap sends nothing. (Sending a
/// first packet at the start of every on period, as a fresh clock per period would,
/// adds about half a packet per period: +5 % at 10 packets per mean on period.)
#[derive(Clone, Debug)]
pub struct ParetoOnOff {
    on: Pareto,
    off: Pareto,
    gap: SimTime,
    /// The next packet's instant, if it falls before `on_end`; otherwise `next −
    /// on_end` is the on time still owed before the next packet.
    next: SimTime,
    /// The end (exclusive) of the current or last on period.
    on_end: SimTime,
}

impl ParetoOnOff {
    /// A source sending one packet every `gap` (> 0) while on, with on and off periods
    /// `on` and `off`, in its stationary state at `start`.
    pub fn new(
        on: Pareto,
        off: Pareto,
        gap: SimTime,
        start: SimTime,
        rng: &mut RngStream,
        field: &str,
    ) -> Result<Self, ScenarioError> {
        if gap == SimTime::ZERO {
            return Err(err(
                &format!("{field}.rate"),
                "the peak packet rate is too high: the gap between packets rounds to zero",
            ));
        }
        let p_on = on.mean() / (on.mean() + off.mean());
        // The packet clock's phase is uniform over one gap in the stationary state.
        let phase = SimTime((rng.uniform() * gap.ps() as f64) as u64);
        let (next, on_end) = if rng.uniform() < p_on {
            (start + phase, start + ps(on.sample_residual(rng)))
        } else {
            let s = start + ps(off.sample_residual(rng));
            (s + phase, s + ps(on.sample(rng)))
        };
        Ok(ParetoOnOff {
            on,
            off,
            gap,
            next,
            on_end,
        })
    }

    /// The fraction of time on, E\[on\]/(E\[on\] + E\[off\]).
    pub fn duty(&self) -> f64 {
        self.on.mean() / (self.on.mean() + self.off.mean())
    }

    /// The mean packet rate per second: duty / gap.
    pub fn mean_rate(&self) -> f64 {
        self.duty() / self.gap.as_secs_f64()
    }

    /// The instant of the next packet (non-decreasing from call to call), drawing an
    /// off and an on period when the current on period is over.
    #[inline]
    pub fn next_send(&mut self, rng: &mut RngStream) -> SimTime {
        while self.next >= self.on_end {
            // The on time still owed carries into the next on period.
            let owed = self.next - self.on_end;
            let start = self.on_end + ps(self.off.sample(rng));
            self.next = start + owed;
            self.on_end = start + ps(self.on.sample(rng));
        }
        let t = self.next;
        self.next += self.gap;
        t
    }
}

/// A superposition of N Pareto on/off sources with a target Hurst parameter.
#[derive(Clone, Debug)]
pub struct SelfSimilar {
    sources: Vec<(ParetoOnOff, RngStream)>,
    /// (next packet instant, source) per source; ties in source order.
    heap: BinaryHeap<Reverse<(SimTime, u32)>>,
    hurst: f64,
}

/// The parameters of a [`SelfSimilar`] source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfSimilarParams {
    /// N, the number of on/off sources superposed (≥ 1).
    pub sources: u32,
    /// The target Hurst parameter, 0.5 < H < 1: the periods' shape is α = 3 − 2H.
    pub hurst: f64,
    /// Mean on and off periods in seconds.
    pub mean_on_s: f64,
    pub mean_off_s: f64,
    /// The aggregate mean rate in packets per second; each source's peak rate is
    /// rate / (N · duty).
    pub rate_pps: f64,
}

impl SelfSimilar {
    /// N sources, source k drawing from the substream `<stream>/<k>` of the run
    /// `(seed, replication)`, all in their stationary state at `start`.
    pub fn new(
        p: SelfSimilarParams,
        seed: u64,
        replication: u64,
        stream: &str,
        start: SimTime,
        field: &str,
    ) -> Result<Self, ScenarioError> {
        if p.sources == 0 {
            return Err(err(
                &format!("{field}.sources"),
                "at least one source is needed",
            ));
        }
        if !(p.hurst > 0.5 && p.hurst < 1.0) {
            return Err(err(
                &format!("{field}.hurst"),
                format!(
                    "the Hurst parameter of a superposition of Pareto on/off sources lies \
                     strictly between 0.5 and 1, got {}",
                    p.hurst
                ),
            ));
        }
        let alpha = 3.0 - 2.0 * p.hurst;
        let on = Pareto::with_mean(alpha, p.mean_on_s, &format!("{field}.on"))?;
        let off = Pareto::with_mean(alpha, p.mean_off_s, &format!("{field}.off"))?;
        if !(p.rate_pps.is_finite() && p.rate_pps > 0.0) {
            return Err(err(
                &format!("{field}.rate"),
                format!("must be a positive finite packet rate, got {}", p.rate_pps),
            ));
        }
        let duty = on.mean() / (on.mean() + off.mean());
        let gap = ps(p.sources as f64 * duty / p.rate_pps);
        let mut sources = Vec::with_capacity(p.sources as usize);
        let mut heap = BinaryHeap::with_capacity(p.sources as usize);
        for k in 0..p.sources {
            let mut rng = RngStream::derive(seed, replication, &format!("{stream}/{k}"));
            let mut s = ParetoOnOff::new(on, off, gap, start, &mut rng, field)?;
            heap.push(Reverse((s.next_send(&mut rng), k)));
            sources.push((s, rng));
        }
        Ok(SelfSimilar {
            sources,
            heap,
            hurst: p.hurst,
        })
    }

    /// The target Hurst parameter.
    pub fn hurst(&self) -> f64 {
        self.hurst
    }

    /// The next packet of the aggregate and the source that sends it; instants never
    /// decrease. Allocates nothing (the heap holds one entry per source).
    #[inline]
    pub fn next_send(&mut self) -> (SimTime, u32) {
        let Reverse((t, k)) = self.heap.pop().expect("one entry per source");
        let (s, rng) = &mut self.sources[k as usize];
        self.heap.push(Reverse((s.next_send(rng), k)));
        (t, k)
    }
}

#[cfg(test)]
mod tests {
    use super::super::hurst::aggregated_variance;
    use super::*;

    #[test]
    fn pareto_mean_and_residual_mean() {
        // α = 2.5: finite variance, mean 1.0; the residual's mean is E[X²]/(2 E[X]).
        let p = Pareto::with_mean(2.5, 1.0, "on").unwrap();
        let mut r = RngStream::derive(1, 0, "t");
        let n = 400_000;
        let m: f64 = (0..n).map(|_| p.sample(&mut r)).sum::<f64>() / n as f64;
        // Var = xm² α / ((α−1)²(α−2)) = 0.36·2.5/(2.25·0.5) = 0.8: five standard errors.
        assert!((m - 1.0).abs() < 5.0 * (0.8f64 / n as f64).sqrt(), "{m}");
        // E[X²] = α xm²/(α − 2) = 1.8, residual mean 0.9. The residual's own second moment
        // E[X³]/(3E[X]) is infinite for α < 3, so compare the median instead: the
        // residual's CDF at 0.9·... is closed form; check P(R ≤ xm) = xm/m = 0.6.
        let below = (0..n).filter(|_| p.sample_residual(&mut r) <= p.xm).count();
        let share = below as f64 / n as f64;
        assert!(
            (share - 0.6).abs() < 5.0 * (0.24f64 / n as f64).sqrt(),
            "{share}"
        );
        assert!(Pareto::with_mean(1.0, 1.0, "w.on").is_err());
        assert_eq!(
            Pareto::with_mean(1.5, -1.0, "w.on").unwrap_err().field,
            "w.on.mean"
        );
    }

    #[test]
    fn one_source_sends_at_its_duty_cycle() {
        // α = 2.5 on and off (finite variance), equal means 10 ms, 1 000 packets/s peak:
        // 500/s on average.
        let on = Pareto::with_mean(2.5, 0.01, "on").unwrap();
        let mut r = RngStream::derive(2, 0, "background/b/0");
        let mut s =
            ParetoOnOff::new(on, on, SimTime::from_ms(1), SimTime::ZERO, &mut r, "b").unwrap();
        assert!((s.mean_rate() - 500.0).abs() < 1e-9);
        let end = SimTime::from_secs(2_000);
        let (mut n, mut prev) = (0u64, SimTime::ZERO);
        loop {
            let t = s.next_send(&mut r);
            assert!(t >= prev);
            prev = t;
            if t >= end {
                break;
            }
            n += 1;
        }
        // The on fraction over n = 10^5 cycles has variance
        // ((1−p)² Var(on) + p² Var(off)) / (n E[cycle]²) = 0.1/n (p = 1/2,
        // Var = xm² α/((α−1)²(α−2)) = 8e-5 s², E[cycle] = 20 ms): sd 0.001, i.e.
        // 1 packet/s of the rate. Five sd: 5 packets/s.
        let rate = n as f64 / 2_000.0;
        assert!((rate - 500.0).abs() < 5.0, "{rate}");
    }

    fn counts(p: SelfSimilarParams, seed: u64, bin: SimTime, bins: usize) -> Vec<f64> {
        let mut ss = SelfSimilar::new(p, seed, 0, "background/ss", SimTime::ZERO, "b").unwrap();
        let mut c = vec![0.0; bins];
        loop {
            let (t, _) = ss.next_send();
            let i = (t.ps() / bin.ps()) as usize;
            if i >= bins {
                break;
            }
            c[i] += 1.0;
        }
        c
    }

    fn params(hurst: f64) -> SelfSimilarParams {
        SelfSimilarParams {
            sources: 32,
            hurst,
            mean_on_s: 0.01,
            mean_off_s: 0.01,
            rate_pps: 8_000.0,
        }
    }

    #[test]
    fn superposition_has_the_target_hurst_parameter() {
        // 2^17 bins of 10 ms (1 311 s, about 10^7 packets). The variance-time estimate
        // (aggregation levels 10 to n/10) is biased low for H near 1, and a finite
        // superposition of Pareto on/off sources reaches its limit slowly; on series of
        // this length the estimator's error is a few hundredths (Taqqu, Teverovsky and
        // Willinger, Fractals 1995). The tolerance 0.1 is that error with margin, and
        // still tells the targets from short-range dependence: Poisson counts at the
        // same rate give 0.5 within 0.05 (the next test).
        let bin = SimTime::from_ms(10);
        for h in [0.7, 0.8, 0.9] {
            let c = counts(params(h), 1, bin, 1 << 17);
            let est = aggregated_variance(&c);
            assert!((est - h).abs() < 0.1, "target H {h}, estimated {est}");
        }
    }

    #[test]
    fn poisson_counts_are_not_self_similar() {
        // The control: Poisson arrivals (exponential gaps) at the same mean rate give
        // H ≈ 0.5 with the same estimator, far from the targets above.
        let mut r = RngStream::derive(1, 0, "t");
        let mut c = vec![0.0; 1 << 17];
        let mut t = 0.0;
        loop {
            t += r.exponential(1.0 / 8_000.0);
            let i = (t / 0.01) as usize;
            if i >= c.len() {
                break;
            }
            c[i] += 1.0;
        }
        let est = aggregated_variance(&c);
        assert!((est - 0.5).abs() < 0.05, "{est}");
    }

    #[test]
    fn superposition_is_seeded_and_per_source() {
        let p = params(0.8);
        let take = |seed| {
            let mut s = SelfSimilar::new(p, seed, 0, "background/x", SimTime::ZERO, "b").unwrap();
            (0..200).map(|_| s.next_send()).collect::<Vec<_>>()
        };
        assert_eq!(take(3), take(3));
        assert_ne!(take(3), take(4));
        // Source 0's own packets do not depend on how many other sources there are.
        let own = |n| {
            let mut s = SelfSimilar::new(
                SelfSimilarParams {
                    sources: n,
                    rate_pps: 250.0 * n as f64,
                    ..p
                },
                5,
                0,
                "background/x",
                SimTime::ZERO,
                "b",
            )
            .unwrap();
            let mut v = Vec::new();
            while v.len() < 50 {
                let (t, k) = s.next_send();
                if k == 0 {
                    v.push(t);
                }
            }
            v
        };
        assert_eq!(own(4), own(9));
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let f = |p: SelfSimilarParams| {
            SelfSimilar::new(p, 1, 0, "s", SimTime::ZERO, "background[0]")
                .unwrap_err()
                .field
        };
        assert_eq!(
            f(SelfSimilarParams {
                hurst: 0.5,
                ..params(0.8)
            }),
            "background[0].hurst"
        );
        assert_eq!(
            f(SelfSimilarParams {
                hurst: f64::NAN,
                ..params(0.8)
            }),
            "background[0].hurst"
        );
        assert_eq!(
            f(SelfSimilarParams {
                sources: 0,
                ..params(0.8)
            }),
            "background[0].sources"
        );
        assert_eq!(
            f(SelfSimilarParams {
                rate_pps: -1.0,
                ..params(0.8)
            }),
            "background[0].rate"
        );
        assert_eq!(
            f(SelfSimilarParams {
                mean_on_s: 0.0,
                ..params(0.8)
            }),
            "background[0].on.mean"
        );
    }
}
