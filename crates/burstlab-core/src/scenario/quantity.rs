//! Quantity wrappers that deserialise from numbers or unit strings (`units.rs` parses
//! the strings): durations, rates, sizes, and counts written as `1e9`; and the values of
//! a `[[workload]]` that are one thing or another (a size or a size distribution, a
//! matrix file or inline rows, an arrival rate per second).

use crate::units::{parse_bytes, parse_duration, parse_rate, BitRate, SimTime};
use crate::workload::parse_rate_per_s;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dur(pub SimTime);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d)? {
            NumOrStr::Num(x) => SimTime::from_secs_f64(x)
                .map(Dur)
                .map_err(de::Error::custom),
            NumOrStr::Str(s) => parse_duration(&s).map(Dur).map_err(de::Error::custom),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub BitRate);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d)? {
            NumOrStr::Num(x) => {
                if !(x.is_finite() && x >= 1.0) {
                    return Err(de::Error::custom(format!(
                        "a rate must be positive (at least 1 b/s), got {x}"
                    )));
                }
                Ok(Rate(BitRate(x.round() as u64)))
            }
            NumOrStr::Str(s) => parse_rate(&s).map(Rate).map_err(de::Error::custom),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size(pub u64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d)? {
            NumOrStr::Num(x) => {
                if !(x.is_finite() && x >= 0.0) {
                    return Err(de::Error::custom(format!(
                        "a size must be a non-negative number of bytes, got {x}"
                    )));
                }
                Ok(Size(x.round() as u64))
            }
            NumOrStr::Str(s) => parse_bytes(&s).map(Size).map_err(de::Error::custom),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrStr {
    Num(f64),
    Str(String),
}

/// A count given as an integer or a number such as `1e9` (rounded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let x = f64::deserialize(d)?;
        if !(0.0..1.8e19).contains(&x) {
            return Err(de::Error::custom(format!(
                "a count must be a non-negative number below 2^64, got {x}"
            )));
        }
        Ok(Count(x.round() as u64))
    }
}

/// A flow-size distribution table (`workload.size` as a table).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeDistSpec {
    /// `exponential`, `pareto` (bounded with `upper`), `lognormal` or `empirical`.
    #[serde(rename = "type")]
    pub kind: SizeDistKind,
    /// Mean size (exponential; lognormal with `median`); required for `exponential`.
    #[serde(default)]
    pub mean: Option<Size>,
    /// Pareto shape α (above 1 unless `upper` is given); required for `pareto`.
    #[serde(default)]
    pub shape: Option<f64>,
    /// Pareto lower bound (scale), at least 1 B; required for `pareto`.
    #[serde(default)]
    pub lower: Option<Size>,
    /// Pareto upper bound (default: none, an unbounded Pareto).
    #[serde(default)]
    pub upper: Option<Size>,
    /// Lognormal: mean of ln(size in bytes); give it or `mean`.
    #[serde(default)]
    pub mu: Option<f64>,
    /// Lognormal: standard deviation of ln(size in bytes); give it or `mean`.
    #[serde(default)]
    pub sigma: Option<f64>,
    /// Lognormal: median size; required with `mean` for `lognormal`.
    #[serde(default)]
    pub median: Option<Size>,
    /// Empirical: points `[size in bytes, cumulative probability]`, both non-decreasing,
    /// the last probability 1; give it or `file`.
    #[serde(default)]
    pub cdf: Option<Vec<[f64; 2]>>,
    /// Empirical: a CSV file of `size, cumulative probability` rows: give it or `cdf`.
    #[serde(default)]
    pub file: Option<String>,
    /// Empirical: linear between points (default `true`) or a step function.
    #[serde(default)]
    pub interpolate: Option<bool>,
}

/// `workload.size.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SizeDistKind {
    Exponential,
    Pareto,
    Lognormal,
    Empirical,
}

/// `workload.size`: one size, or a distribution table.
#[derive(Debug, Clone)]
pub enum SizeSpec {
    Fixed(u64),
    Dist(SizeDistSpec),
}

impl<'de> Deserialize<'de> for SizeSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SizeSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size (\"100KB\", bytes) or a distribution table with a type")
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<SizeSpec, E> {
                Ok(SizeSpec::Fixed(x))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<SizeSpec, E> {
                u64::try_from(x)
                    .map(SizeSpec::Fixed)
                    .map_err(|_| E::custom(format!("a size must not be negative, got {x}")))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<SizeSpec, E> {
                if x.is_finite() && x >= 0.0 {
                    Ok(SizeSpec::Fixed(x.round() as u64))
                } else {
                    Err(E::custom(format!(
                        "a size must be a non-negative number of bytes, got {x}"
                    )))
                }
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<SizeSpec, E> {
                parse_bytes(s).map(SizeSpec::Fixed).map_err(E::custom)
            }
            fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<SizeSpec, M::Error> {
                SizeDistSpec::deserialize(de::value::MapAccessDeserializer::new(m))
                    .map(SizeSpec::Dist)
            }
        }
        d.deserialize_any(V)
    }
}

/// `workload.matrix`: a CSV file, or rows given inline.
#[derive(Debug, Clone)]
pub enum MatrixSpec {
    File(String),
    Rows(Vec<Vec<f64>>),
    /// Neither (a number): refused when the workload is resolved, naming the key.
    Invalid,
}

impl<'de> Deserialize<'de> for MatrixSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MatrixSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a CSV file name or an array of rows of numbers")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<MatrixSpec, E> {
                Ok(MatrixSpec::File(s.to_string()))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<MatrixSpec, S::Error> {
                let mut rows = Vec::new();
                while let Some(r) = s.next_element::<Vec<f64>>()? {
                    rows.push(r);
                }
                Ok(MatrixSpec::Rows(rows))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<MatrixSpec, E> {
                Ok(MatrixSpec::Invalid)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<MatrixSpec, E> {
                Ok(MatrixSpec::Invalid)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<MatrixSpec, E> {
                Ok(MatrixSpec::Invalid)
            }
        }
        d.deserialize_any(V)
    }
}

/// An arrival rate per second, from `"50/s"` or a number (`workload::parse_rate_per_s`).
/// NaN, infinite, zero and negative rates are refused where the workload is resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerSec(pub f64);

impl<'de> Deserialize<'de> for PerSec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PerSec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a rate per second: a number or a string such as \"50/s\"")
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<PerSec, E> {
                Ok(PerSec(x))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<PerSec, E> {
                Ok(PerSec(x as f64))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<PerSec, E> {
                Ok(PerSec(x as f64))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<PerSec, E> {
                parse_rate_per_s(s).map(PerSec).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}
