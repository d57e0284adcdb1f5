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
//!
//! A `[[flow]]` of type `self_similar` (N sources, target H) or `pareto_onoff` (one
//! source, shape α) runs one [`SelfSimilar`] in its UDP agent (`world/hosts.rs`): one
//! send event per packet, at the generator's instants; the keys are checked in
//! `scenario/flows.rs`.

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
    /// Errors name `shape_field` or `mean_field`.
    pub fn with_mean(
        shape: f64,
        mean: f64,
        shape_field: &str,
        mean_field: &str,
    ) -> Result<Self, ScenarioError> {
        if !(shape.is_finite() && shape > 1.0) {
            return Err(err(
                shape_field,
                format!("a Pareto period needs a shape above 1 (a finite mean), got {shape}"),
            ));
        }
        if !(mean.is_finite() && mean > 0.0) {
            return Err(err(
                mean_field,
                format!("must be a positive finite duration, got {mean} s"),
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

/// A superposition of N Pareto on/off sources (N = 1: one Pareto on/off source).
#[derive(Clone, Debug)]
pub struct SelfSimilar {
    sources: Vec<(ParetoOnOff, RngStream)>,
    /// (next packet instant, source) per source; ties in source order.
    heap: BinaryHeap<Reverse<(SimTime, u32)>>,
}

/// The parameters of a [`SelfSimilar`] source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfSimilarParams {
    /// N, the number of on/off sources superposed (1 to [`MAX_SOURCES`]).
    pub sources: u32,
    /// The shape α of the on and off periods (> 1, a finite mean); with 1 < α < 2 the
    /// superposition is long-range dependent with Hurst parameter H = (3 − α)/2.
    pub alpha: f64,
    /// Mean on and off periods in seconds.
    pub mean_on_s: f64,
    pub mean_off_s: f64,
    /// Each source's gap between packets while it is on (its peak rate is 1/gap).
    pub gap: SimTime,
}

/// The most sources one [`SelfSimilar`] superposes (each holds about 100 bytes of
/// state and one heap entry, so 10^6 sources take about 100 MB).
pub const MAX_SOURCES: u32 = 1_000_000;

/// The period shape α = 3 − 2H that gives a superposition Hurst parameter H.
pub fn alpha_for_hurst(hurst: f64) -> f64 {
    3.0 - 2.0 * hurst
}

impl SelfSimilarParams {
    /// The on and off period distributions, checking every parameter; errors name
    /// `<field>.sources`, `.alpha`, `.mean_on`, `.mean_off` or `.rate` (the gap).
    pub fn periods(&self, field: &str) -> Result<(Pareto, Pareto), ScenarioError> {
        if self.sources == 0 || self.sources > MAX_SOURCES {
            return Err(err(
                &format!("{field}.sources"),
                format!(
                    "must be between 1 and {MAX_SOURCES} on/off sources, got {}",
                    self.sources
                ),
            ));
        }
        let alpha = format!("{field}.alpha");
        let on = Pareto::with_mean(
            self.alpha,
            self.mean_on_s,
            &alpha,
            &format!("{field}.mean_on"),
        )?;
        let off = Pareto::with_mean(
            self.alpha,
            self.mean_off_s,
            &alpha,
            &format!("{field}.mean_off"),
        )?;
        if self.gap == SimTime::ZERO {
            return Err(err(
                &format!("{field}.rate"),
                "the peak packet rate is too high: the gap between packets rounds to zero",
            ));
        }
        Ok((on, off))
    }

    /// The fraction of time a source is on, E\[on\]/(E\[on\] + E\[off\]).
    pub fn duty(&self) -> f64 {
        self.mean_on_s / (self.mean_on_s + self.mean_off_s)
    }

    /// The aggregate's long-run mean packet rate per second: N · duty / gap (exact for
    /// the packet clock of [`ParetoOnOff`], which carries over between on periods).
    pub fn mean_pps(&self) -> f64 {
        self.sources as f64 * self.duty() / self.gap.as_secs_f64()
    }

    /// The Hurst parameter of the superposition's limit, (3 − α)/2, for 1 < α < 2
    /// (None otherwise: short-range dependent, H = 1/2 on large scales).
    pub fn hurst(&self) -> Option<f64> {
        (self.alpha > 1.0 && self.alpha < 2.0).then(|| (3.0 - self.alpha) / 2.0)
    }
}

impl SelfSimilar {
    /// N sources, source k drawing from the substream `<stream>/<k>` of the run
    /// `(seed, replication)`, all in their stationary state at `start`. Errors name
    /// the sub-field of `field` (see [`SelfSimilarParams::periods`]).
    pub fn new(
        p: SelfSimilarParams,
        seed: u64,
        replication: u64,
        stream: &str,
        start: SimTime,
        field: &str,
    ) -> Result<Self, ScenarioError> {
        let (on, off) = p.periods(field)?;
        let mut sources = Vec::with_capacity(p.sources as usize);
        let mut heap = BinaryHeap::with_capacity(p.sources as usize);
        for k in 0..p.sources {
            let mut rng = RngStream::derive(seed, replication, &format!("{stream}/{k}"));
            let mut s = ParetoOnOff::new(on, off, p.gap, start, &mut rng, field)?;
            heap.push(Reverse((s.next_send(&mut rng), k)));
            sources.push((s, rng));
        }
        Ok(SelfSimilar { sources, heap })
    }

    /// Bytes of its state (for the memory guard): the sources and the heap.
    pub fn mem_bytes(&self) -> usize {
        self.sources.capacity() * std::mem::size_of::<(ParetoOnOff, RngStream)>()
            + self.heap.capacity() * std::mem::size_of::<Reverse<(SimTime, u32)>>()
    }

    /// Bytes of the state of `sources` sources (for the memory estimate).
    pub fn state_bytes(sources: u32) -> usize {
        sources as usize
            * (std::mem::size_of::<(ParetoOnOff, RngStream)>()
                + std::mem::size_of::<Reverse<(SimTime, u32)>>())
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
        let p = Pareto::with_mean(2.5, 1.0, "on.alpha", "on.mean").unwrap();
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
        assert_eq!(
            Pareto::with_mean(1.0, 1.0, "w.alpha", "w.mean_on")
                .unwrap_err()
                .field,
            "w.alpha"
        );
        assert_eq!(
            Pareto::with_mean(1.5, -1.0, "w.alpha", "w.mean_on")
                .unwrap_err()
                .field,
            "w.mean_on"
        );
    }

    #[test]
    fn one_source_sends_at_its_duty_cycle() {
        // α = 2.5 on and off (finite variance), equal means 10 ms, 1 000 packets/s peak:
        // 500/s on average.
        let on = Pareto::with_mean(2.5, 0.01, "alpha", "mean_on").unwrap();
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

    /// 32 sources, mean on and off 10 ms, 8 000 packets/s in all (500/s peak each).
    fn params(hurst: f64) -> SelfSimilarParams {
        SelfSimilarParams {
            sources: 32,
            alpha: alpha_for_hurst(hurst),
            mean_on_s: 0.01,
            mean_off_s: 0.01,
            gap: SimTime::from_ms(2),
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
                SelfSimilarParams { sources: n, ..p },
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
            SelfSimilar::new(p, 1, 0, "s", SimTime::ZERO, "flow[0]")
                .unwrap_err()
                .field
        };
        let p = params(0.8);
        for (bad, field) in [
            (SelfSimilarParams { alpha: 1.0, ..p }, "flow[0].alpha"),
            (
                SelfSimilarParams {
                    alpha: f64::NAN,
                    ..p
                },
                "flow[0].alpha",
            ),
            (SelfSimilarParams { sources: 0, ..p }, "flow[0].sources"),
            (
                SelfSimilarParams {
                    sources: MAX_SOURCES + 1,
                    ..p
                },
                "flow[0].sources",
            ),
            (
                SelfSimilarParams {
                    gap: SimTime::ZERO,
                    ..p
                },
                "flow[0].rate",
            ),
            (
                SelfSimilarParams {
                    mean_on_s: 0.0,
                    ..p
                },
                "flow[0].mean_on",
            ),
            (
                SelfSimilarParams {
                    mean_off_s: -1.0,
                    ..p
                },
                "flow[0].mean_off",
            ),
        ] {
            assert_eq!(f(bad), field);
        }
        assert!((p.hurst().unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(SelfSimilarParams { alpha: 2.5, ..p }.hurst(), None);
        assert!((p.mean_pps() - 8_000.0).abs() < 1e-9);
    }
}
