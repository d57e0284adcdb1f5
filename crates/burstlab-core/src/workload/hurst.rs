//! Estimating the Hurst parameter of a count process, to check the self-similar
//! sources of `onoff.rs`.
//!
//! Read first: [`aggregated_variance`], the variance-time estimator (Beran, "Statistics
//! for Long-Memory Processes", 1994, §4.1; Taqqu, Teverovsky and Willinger, "Estimators
//! for long-range dependence: an empirical study", Fractals 1995, §2.1): for a
//! second-order self-similar series the variance of the mean of blocks of m samples
//! decays like m^(2H−2), so the slope β of log Var(X^(m)) against log m gives
//! H = 1 + β/2. Short-range-dependent series give β = −1, H = 1/2. The estimator is
//! known to be biased low for H near 1 and on short series; callers state their
//! tolerance.

/// The aggregation levels used: about 20 levels spaced evenly in log m from 10 to
/// n/10 (so every level has at least ten blocks).
fn levels(n: usize) -> Vec<usize> {
    let (lo, hi) = (10f64, (n / 10) as f64);
    let mut v: Vec<usize> = (0..20)
        .map(|i| (lo * (hi / lo).powf(i as f64 / 19.0)).round() as usize)
        .collect();
    v.dedup();
    v
}

/// The variance-time (aggregated variance) estimate of H of the series `x` (at least
/// 1 000 samples, not constant).
pub fn aggregated_variance(x: &[f64]) -> f64 {
    assert!(
        x.len() >= 1_000,
        "the variance-time estimate needs at least 1 000 samples"
    );
    let mut pts = Vec::new();
    for m in levels(x.len()) {
        let k = x.len() / m;
        let means: Vec<f64> = x[..k * m]
            .chunks(m)
            .map(|c| c.iter().sum::<f64>() / m as f64)
            .collect();
        let mu = means.iter().sum::<f64>() / k as f64;
        let var = means.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / (k - 1) as f64;
        assert!(var > 0.0, "a constant series has no Hurst parameter");
        pts.push(((m as f64).ln(), var.ln()));
    }
    1.0 + slope(&pts) / 2.0
}

/// The least-squares slope of y on x.
fn slope(pts: &[(f64, f64)]) -> f64 {
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    sxy / sxx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::RngStream;

    #[test]
    fn white_noise_has_h_one_half() {
        let mut r = RngStream::derive(1, 0, "t");
        let x: Vec<f64> = (0..1 << 16).map(|_| r.normal(0.0, 1.0)).collect();
        let h = aggregated_variance(&x);
        assert!((h - 0.5).abs() < 0.05, "{h}");
    }

    #[test]
    fn a_random_walk_in_blocks_is_near_one() {
        // Cumulative sums of white noise are non-stationary (their block means have a
        // variance that does not fall with m): the estimate is at or above 1, far from
        // one half. Only the direction is checked: it shows the estimator can fail.
        let mut r = RngStream::derive(2, 0, "t");
        let mut s = 0.0;
        let x: Vec<f64> = (0..1 << 16)
            .map(|_| {
                s += r.normal(0.0, 1.0);
                s
            })
            .collect();
        assert!(aggregated_variance(&x) > 0.95);
    }
}
