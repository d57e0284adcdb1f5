//! Flow-size distributions: how many bytes each generated flow transfers.
//!
//! Read first: [`SizeDist`]. Every distribution is validated when it is built (errors
//! name the sub-field, e.g. `workload[0].size.shape`) and knows its closed-form mean
//! and variance, which the tests compare with sample moments. A draw takes one uniform
//! (two for the lognormal's Box–Muller) from the workload's `sizes` substream and
//! allocates nothing; the result is rounded to whole bytes and is at least one byte.

use super::err;
use crate::rng::RngStream;
use crate::units::parse_bytes;
use crate::ScenarioError;

/// A flow-size distribution, in bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every flow has this size.
    Fixed(u64),
    /// Exponential with this mean (inverse transform).
    Exponential { mean: f64 },
    /// Pareto with `shape` α and lower bound (scale) `lower`, truncated at `upper` if
    /// given: P(X > x) = (L/x)^α for L ≤ x, renormalised on [L, H] when bounded
    /// (the bounded Pareto of Harchol-Balter's size-based scheduling studies). Without
    /// `upper`, α must exceed 1 (the mean is infinite otherwise).
    Pareto {
        shape: f64,
        lower: f64,
        upper: Option<f64>,
    },
    /// ln X ~ N(mu, sigma²).
    Lognormal { mu: f64, sigma: f64 },
    /// An empirical CDF: points (size, P(X ≤ size)), sizes and probabilities
    /// non-decreasing, the last probability 1. With `interpolate` the CDF is linear
    /// between points (ns-3's `EmpiricalRandomVariable`), otherwise a step function
    /// (each size carries the probability mass up to its point). The first point is an
    /// atom of mass p₀ in both cases.
    Empirical {
        points: Vec<(f64, f64)>,
        interpolate: bool,
    },
}

fn positive(field: &str, what: &str, x: f64) -> Result<f64, ScenarioError> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(err(
            field,
            format!("{what} must be a positive finite number, got {x}"),
        ))
    }
}

/// E[X^k] of the Pareto on [lower, upper] (upper = ∞ allowed when k < α):
/// C ∫_L^H x^(k−α−1) dx with C = α L^α / (1 − (L/H)^α).
fn pareto_moment(shape: f64, lower: f64, upper: Option<f64>, k: f64) -> f64 {
    let a = shape;
    match upper {
        None => {
            if k >= a {
                f64::INFINITY
            } else {
                a * lower.powf(k) / (a - k)
            }
        }
        Some(h) => {
            let c = a * lower.powf(a) / (1.0 - (lower / h).powf(a));
            let int = if (k - a).abs() < 1e-12 {
                (h / lower).ln()
            } else {
                (h.powf(k - a) - lower.powf(k - a)) / (k - a)
            };
            c * int
        }
    }
}

impl SizeDist {
    /// A fixed size (`"100KB"` parsed by the caller); at least one byte.
    pub fn fixed(bytes: u64, field: &str) -> Result<Self, ScenarioError> {
        if bytes == 0 {
            return Err(err(field, "a flow size must be at least 1 byte, got 0"));
        }
        Ok(SizeDist::Fixed(bytes))
    }

    /// Exponential with the given mean in bytes (`<field>.mean`).
    pub fn exponential(mean: f64, field: &str) -> Result<Self, ScenarioError> {
        let mean = positive(&format!("{field}.mean"), "the mean", mean)?;
        Ok(SizeDist::Exponential { mean })
    }

    /// Pareto with `shape` α > 0 and `lower` L ≥ 1 byte, bounded by `upper` H > L if
    /// given. α ≤ 1 without an upper bound is refused: the mean is infinite.
    pub fn pareto(
        shape: f64,
        lower: f64,
        upper: Option<f64>,
        field: &str,
    ) -> Result<Self, ScenarioError> {
        let shape = positive(&format!("{field}.shape"), "the shape", shape)?;
        let lower = positive(&format!("{field}.lower"), "the lower bound", lower)?;
        if lower < 1.0 {
            return Err(err(
                &format!("{field}.lower"),
                format!("the lower bound is in bytes and must be at least 1, got {lower}"),
            ));
        }
        if let Some(h) = upper {
            positive(&format!("{field}.upper"), "the upper bound", h)?;
            if h <= lower {
                return Err(err(
                    &format!("{field}.upper"),
                    format!("the upper bound {h} must exceed the lower bound {lower}"),
                ));
            }
        } else if shape <= 1.0 {
            return Err(err(
                &format!("{field}.shape"),
                format!(
                    "a Pareto shape of {shape} (≤ 1) without an upper bound has an infinite \
                     mean: give a shape above 1 or an upper bound"
                ),
            ));
        }
        Ok(SizeDist::Pareto {
            shape,
            lower,
            upper,
        })
    }

    /// Lognormal from the parameters of ln X (`<field>.mu`, `<field>.sigma`).
    pub fn lognormal(mu: f64, sigma: f64, field: &str) -> Result<Self, ScenarioError> {
        if !mu.is_finite() {
            return Err(err(
                &format!("{field}.mu"),
                format!("must be finite, got {mu}"),
            ));
        }
        let sigma = positive(&format!("{field}.sigma"), "sigma", sigma)?;
        Ok(SizeDist::Lognormal { mu, sigma })
    }

    /// Lognormal from its mean and median in bytes: mu = ln(median),
    /// sigma² = 2 ln(mean / median) (since mean = exp(mu + sigma²/2)); the mean must
    /// exceed the median.
    pub fn lognormal_mean_median(
        mean: f64,
        median: f64,
        field: &str,
    ) -> Result<Self, ScenarioError> {
        let mean = positive(&format!("{field}.mean"), "the mean", mean)?;
        let median = positive(&format!("{field}.median"), "the median", median)?;
        if mean <= median {
            return Err(err(
                &format!("{field}.mean"),
                format!("a lognormal's mean exceeds its median: mean {mean} ≤ median {median}"),
            ));
        }
        Self::lognormal(median.ln(), (2.0 * (mean / median).ln()).sqrt(), field)
    }

    /// An empirical CDF from its points (size in bytes, cumulative probability),
    /// validated: at least one point, sizes ≥ 1 byte and non-decreasing, probabilities
    /// in [0, 1] and non-decreasing, the last equal to 1 (within 1e-9). Errors name
    /// the point, `<field>.cdf[i]`.
    pub fn empirical(
        points: Vec<(f64, f64)>,
        interpolate: bool,
        field: &str,
    ) -> Result<Self, ScenarioError> {
        let f = |i: usize| format!("{field}.cdf[{i}]");
        if points.is_empty() {
            return Err(err(
                &format!("{field}.cdf"),
                "an empirical CDF needs at least one point",
            ));
        }
        let mut prev = (0.0f64, 0.0f64);
        for (i, &(s, p)) in points.iter().enumerate() {
            if !(s.is_finite() && s >= 1.0) {
                return Err(err(&f(i), format!("size must be at least 1 byte, got {s}")));
            }
            if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
                return Err(err(
                    &f(i),
                    format!("probability must lie in [0, 1], got {p}"),
                ));
            }
            if i > 0 && s < prev.0 {
                return Err(err(
                    &f(i),
                    format!("sizes must not decrease: {s} after {}", prev.0),
                ));
            }
            if p < prev.1 {
                return Err(err(
                    &f(i),
                    format!(
                        "cumulative probabilities must not decrease: {p} after {}",
                        prev.1
                    ),
                ));
            }
            prev = (s, p);
        }
        if (prev.1 - 1.0).abs() > 1e-9 {
            return Err(err(
                &f(points.len() - 1),
                format!("the last cumulative probability must be 1, got {}", prev.1),
            ));
        }
        let mut points = points;
        let n = points.len();
        points[n - 1].1 = 1.0;
        Ok(SizeDist::Empirical {
            points,
            interpolate,
        })
    }

    /// The mean in bytes of the continuous distribution (before rounding to whole
    /// bytes, which moves it by at most half a byte).
    pub fn mean(&self) -> f64 {
        self.moment(1.0)
    }

    /// The variance in bytes² (infinite for a Pareto with α ≤ 2 and no upper bound).
    pub fn variance(&self) -> f64 {
        let m = self.mean();
        self.moment(2.0) - m * m
    }

    /// E[X^k] for k = 1, 2.
    fn moment(&self, k: f64) -> f64 {
        match self {
            SizeDist::Fixed(b) => (*b as f64).powf(k),
            // E[X^k] = k! mean^k.
            SizeDist::Exponential { mean } => {
                if k == 1.0 {
                    *mean
                } else {
                    2.0 * mean * mean
                }
            }
            SizeDist::Pareto {
                shape,
                lower,
                upper,
            } => pareto_moment(*shape, *lower, *upper, k),
            // E[X^k] = exp(k mu + k² sigma² / 2).
            SizeDist::Lognormal { mu, sigma } => (k * mu + k * k * sigma * sigma / 2.0).exp(),
            SizeDist::Empirical {
                points,
                interpolate,
            } => {
                let (s0, p0) = points[0];
                let mut m = p0 * s0.powf(k);
                for w in points.windows(2) {
                    let ((a, pa), (b, pb)) = (w[0], w[1]);
                    let dp = pb - pa;
                    m += dp
                        * match (interpolate, k == 1.0) {
                            // Uniform on [a, b]: mean (a+b)/2, E[X²] = (a²+ab+b²)/3.
                            (true, true) => (a + b) / 2.0,
                            (true, false) => (a * a + a * b + b * b) / 3.0,
                            (false, _) => b.powf(k),
                        };
                }
                m
            }
        }
    }

    /// One size in bytes (at least 1), drawn from `rng` without allocating.
    #[inline]
    pub fn sample(&self, rng: &mut RngStream) -> u64 {
        let x = match self {
            SizeDist::Fixed(b) => return *b,
            SizeDist::Exponential { mean } => rng.exponential(*mean),
            SizeDist::Pareto {
                shape,
                lower,
                upper,
            } => {
                // Inverse transform; 1 − U lies in (0, 1].
                let v = 1.0 - rng.uniform();
                match upper {
                    None => lower / v.powf(1.0 / shape),
                    Some(h) => {
                        // F(x) = (1 − (L/x)^α) / (1 − (L/H)^α)  ⇒
                        // x = L / (1 − U (1 − (L/H)^α))^(1/α), with 1 − U ↦ v.
                        let r = (lower / h).powf(*shape);
                        lower / (r + v * (1.0 - r)).powf(1.0 / shape)
                    }
                }
            }
            SizeDist::Lognormal { mu, sigma } => rng.normal(*mu, *sigma).exp(),
            SizeDist::Empirical {
                points,
                interpolate,
            } => {
                let u = rng.uniform();
                // The first point whose probability exceeds u; u < 1 = the last one's.
                let i = points.partition_point(|&(_, p)| p <= u);
                if i == 0 || !interpolate {
                    points[i].0
                } else {
                    let ((a, pa), (b, pb)) = (points[i - 1], points[i]);
                    a + (u - pa) / (pb - pa) * (b - a)
                }
            }
        };
        // `as` saturates at u64::MAX for the far tail of an unbounded distribution.
        (x.round() as u64).max(1)
    }
}

/// Parses an empirical CDF file: one point per line, `size, cumulative probability`,
/// the size in bytes with an optional unit (`"64KB"`); blank lines and lines starting
/// with `#` are skipped, and a first line whose first cell is not a size is a header.
/// Errors name the file's line. The points are validated by [`SizeDist::empirical`].
pub fn parse_cdf(text: &str, field: &str) -> Result<Vec<(f64, f64)>, ScenarioError> {
    let mut pts = Vec::new();
    let mut first = true;
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at =
            |col: &str, why: String| err(field, format!("line {}, column {col}: {why}", ln + 1));
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let is_header = first && parse_bytes(cells[0]).is_err();
        first = false;
        if is_header {
            continue;
        }
        if cells.len() != 2 {
            return Err(at(
                "",
                format!(
                    "expected 2 cells (size, cumulative probability), got {}",
                    cells.len()
                ),
            ));
        }
        let s = parse_bytes(cells[0]).map_err(|e| at("size", e))?;
        let p: f64 = cells[1]
            .parse()
            .map_err(|_| at("probability", format!("'{}' is not a number", cells[1])))?;
        pts.push((s as f64, p));
    }
    Ok(pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 400_000;

    /// Sample mean of `n` draws against the closed form. The tolerance is five standard
    /// errors of the mean (σ/√n from the closed-form variance: a false failure has
    /// probability below 10^-6 by the central limit theorem) plus half a byte for the
    /// rounding to whole bytes.
    fn check_mean(d: &SizeDist, seed: u64) -> (f64, f64) {
        let mut r = RngStream::derive(seed, 0, "workload/test/sizes");
        let mut sum = 0.0;
        for _ in 0..N {
            sum += d.sample(&mut r) as f64;
        }
        let m = sum / N as f64;
        let var = d.variance();
        assert!(var.is_finite(), "{d:?}: the test needs a finite variance");
        let tol = 5.0 * (var / N as f64).sqrt() + 0.5;
        assert!(
            (m - d.mean()).abs() <= tol,
            "{d:?}: sample mean {m}, closed form {}, tolerance {tol}",
            d.mean()
        );
        (m, tol)
    }

    #[test]
    fn fixed_is_fixed() {
        let d = SizeDist::fixed(100_000, "size").unwrap();
        let mut r = RngStream::derive(1, 0, "x");
        assert!((0..100).all(|_| d.sample(&mut r) == 100_000));
        assert_eq!(d.mean(), 100_000.0);
        assert_eq!(d.variance(), 0.0);
        assert!(SizeDist::fixed(0, "size").is_err());
    }

    #[test]
    fn exponential_mean() {
        check_mean(&SizeDist::exponential(100_000.0, "size").unwrap(), 1);
    }

    #[test]
    fn bounded_pareto_mean_heavy_tail() {
        // α = 1.1 (the web-like heavy tail), bounded at 1 MB: finite variance, a
        // standard error of about 0.7 % of the mean at this n.
        let d = SizeDist::pareto(1.1, 1_000.0, Some(1e6), "size").unwrap();
        check_mean(&d, 2);
        // α = 1 exactly uses the logarithmic form of the moment.
        let d = SizeDist::pareto(1.0, 1_000.0, Some(1e7), "size").unwrap();
        let (l, h): (f64, f64) = (1e3, 1e7);
        assert!((d.mean() - l * h * (h / l).ln() / (h - l)).abs() < 1e-6 * d.mean());
        check_mean(&d, 3);
    }

    #[test]
    fn unbounded_pareto_mean() {
        // α = 2.5 has a finite variance: L²α / ((α−1)²(α−2)).
        let d = SizeDist::pareto(2.5, 10_000.0, None, "size").unwrap();
        assert!((d.mean() - 2.5 * 10_000.0 / 1.5).abs() < 1e-6);
        assert!((d.variance() - 1e8 * 2.5 / (1.5 * 1.5 * 0.5)).abs() < 1e-3);
        check_mean(&d, 4);
        // α ≤ 2: infinite variance, reported as such.
        assert!(SizeDist::pareto(1.5, 1e3, None, "size")
            .unwrap()
            .variance()
            .is_infinite());
    }

    #[test]
    fn pareto_with_infinite_mean_is_refused() {
        let e = SizeDist::pareto(1.0, 1000.0, None, "workload[0].size").unwrap_err();
        assert_eq!(e.field, "workload[0].size.shape");
        assert!(e.reason.contains("infinite mean"), "{e}");
        assert!(SizeDist::pareto(0.8, 1000.0, Some(1e6), "s").is_ok());
        let e = SizeDist::pareto(1.5, 1000.0, Some(500.0), "s").unwrap_err();
        assert_eq!(e.field, "s.upper");
        for bad in [f64::NAN, -1.0, 0.0, f64::INFINITY] {
            assert_eq!(
                SizeDist::pareto(bad, 1e3, None, "s").unwrap_err().field,
                "s.shape"
            );
            assert_eq!(
                SizeDist::pareto(1.5, bad, None, "s").unwrap_err().field,
                "s.lower"
            );
        }
    }

    #[test]
    fn lognormal_mean_both_forms() {
        let d = SizeDist::lognormal(10.0, 1.0, "size").unwrap();
        check_mean(&d, 5);
        let d = SizeDist::lognormal_mean_median(50_000.0, 20_000.0, "size").unwrap();
        assert!((d.mean() - 50_000.0).abs() < 1e-6);
        if let SizeDist::Lognormal { mu, .. } = d {
            assert!((mu.exp() - 20_000.0).abs() < 1e-6);
        }
        check_mean(&d, 6);
        let e = SizeDist::lognormal_mean_median(1e3, 2e3, "w.size").unwrap_err();
        assert_eq!(e.field, "w.size.mean");
        assert_eq!(
            SizeDist::lognormal(f64::NAN, 1.0, "s").unwrap_err().field,
            "s.mu"
        );
        assert_eq!(
            SizeDist::lognormal(1.0, -1.0, "s").unwrap_err().field,
            "s.sigma"
        );
    }

    #[test]
    fn empirical_mean_linear_and_step() {
        // A web-search-like CDF: an atom at 1 KB, then linear pieces.
        let pts = vec![
            (1_000.0, 0.2),
            (10_000.0, 0.5),
            (100_000.0, 0.9),
            (1_000_000.0, 1.0),
        ];
        let lin = SizeDist::empirical(pts.clone(), true, "size").unwrap();
        let want = 0.2 * 1e3 + 0.3 * 5.5e3 + 0.4 * 5.5e4 + 0.1 * 5.5e5;
        assert!((lin.mean() - want).abs() < 1e-6);
        check_mean(&lin, 7);
        let step = SizeDist::empirical(pts, false, "size").unwrap();
        let want = 0.2 * 1e3 + 0.3 * 1e4 + 0.4 * 1e5 + 0.1 * 1e6;
        assert!((step.mean() - want).abs() < 1e-6);
        check_mean(&step, 8);
        // A step CDF draws only its points.
        let mut r = RngStream::derive(1, 0, "x");
        for _ in 0..1000 {
            let s = step.sample(&mut r);
            assert!([1_000, 10_000, 100_000, 1_000_000].contains(&s), "{s}");
        }
    }

    #[test]
    fn empirical_is_validated() {
        let f = |pts: Vec<(f64, f64)>| SizeDist::empirical(pts, true, "w.size").unwrap_err();
        assert_eq!(f(vec![]).field, "w.size.cdf");
        let e = f(vec![(10.0, 0.5), (5.0, 1.0)]);
        assert_eq!(e.field, "w.size.cdf[1]");
        assert!(e.reason.contains("must not decrease"), "{e}");
        let e = f(vec![(10.0, 0.5), (20.0, 0.4), (30.0, 1.0)]);
        assert_eq!(e.field, "w.size.cdf[1]");
        let e = f(vec![(10.0, 0.5), (20.0, 0.9)]);
        assert_eq!(e.field, "w.size.cdf[1]");
        assert!(e.reason.contains("must be 1"), "{e}");
        assert_eq!(f(vec![(0.0, 1.0)]).field, "w.size.cdf[0]");
        assert_eq!(f(vec![(10.0, f64::NAN)]).field, "w.size.cdf[0]");
    }

    #[test]
    fn cdf_file_parses_with_header_units_and_comments() {
        let t = "size,cdf\n# web search\n1KB, 0.2\n\n10000,0.5\n1MB,1\n";
        let pts = parse_cdf(t, "w.size.file").unwrap();
        assert_eq!(pts, vec![(1000.0, 0.2), (10000.0, 0.5), (1e6, 1.0)]);
        let e = parse_cdf("1KB,0.2\n2KB\n", "w.size.file").unwrap_err();
        assert!(e.reason.starts_with("line 2"), "{e}");
        let e = parse_cdf("1KB,0.2\n2KB,x\n", "w.size.file").unwrap_err();
        assert!(e.reason.contains("column probability"), "{e}");
    }

    #[test]
    fn same_seed_same_sizes() {
        let d = SizeDist::pareto(1.2, 1e3, Some(1e8), "s").unwrap();
        let draw = || {
            let mut r = RngStream::derive(9, 2, "workload/web/sizes");
            (0..64).map(|_| d.sample(&mut r)).collect::<Vec<_>>()
        };
        assert_eq!(draw(), draw());
    }
}
