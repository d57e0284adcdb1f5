//! Quantity wrappers that deserialise from numbers or unit strings (`units.rs` parses
//! the strings): durations, rates, sizes, and counts written as `1e9`.

use crate::units::{parse_bytes, parse_duration, parse_rate, BitRate, SimTime};
use serde::de::{self, Deserializer};
use serde::Deserialize;

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
