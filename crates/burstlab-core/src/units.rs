//! Unit-typed quantities: simulated time, byte counts and bit rates.
//!
//! Read first: [`SimTime`]. All simulated time is an integer number of
//! picoseconds (`u64`), which covers about 213 days of simulated time — ample
//! for the 10^6-second runs of yu §V — while representing every transmission
//! time of the papers' links (e.g. 512 B at 1.25 Gb/s = 3 276 800 ps) exactly.
//! Floats appear only when converting to and from human units.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// The longest run a scenario may ask for: 10^7 s (about 116 days), a little over half
/// of the clock's range (2^64 ps ≈ 1.8·10^7 s), so that every timer, offset and
/// serialisation time scheduled before the end stays representable.
pub const MAX_DURATION: SimTime = SimTime(10_000_000 * PS_PER_SEC);

/// The fastest rate a scenario may give: 1 Pb/s (10^15 b/s), 25 000 times the fastest
/// line rate of the papers (40 Gb/s). A byte then still takes 8 ps to send; much faster
/// rates would round serialisation times to nothing and flood the event queue.
pub const MAX_RATE_BPS: f64 = 1e15;

/// A point in (or span of) simulated time, in integer picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns * 1_000)
    }
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * 1_000_000)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * PS_PER_SEC)
    }
    /// Rounds to the nearest picosecond. Negative or non-finite input gives an error.
    pub fn from_secs_f64(s: f64) -> Result<Self, String> {
        if !s.is_finite() || s < 0.0 {
            return Err(format!(
                "time must be a finite non-negative number, got {s}"
            ));
        }
        let ps = (s * PS_PER_SEC as f64).round();
        if ps >= u64::MAX as f64 {
            return Err(format!(
                "time {s} s exceeds the simulator's range (~1.8e7 s)"
            ));
        }
        Ok(SimTime(ps as u64))
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    pub fn saturating_sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
    /// `None` if the sum does not fit in a `u64` of picoseconds.
    pub fn checked_add(self, o: SimTime) -> Option<SimTime> {
        self.0.checked_add(o.0).map(SimTime)
    }
    pub fn saturating_mul(self, k: u64) -> SimTime {
        SimTime(self.0.saturating_mul(k))
    }
}

/// Adding spans never wraps the clock: a sum beyond the clock's range saturates at
/// [`SimTime::MAX`], an instant after the end of every run (validation keeps
/// `sim.duration` at most [`MAX_DURATION`], far below it), so an event scheduled there
/// simply never happens. Without this, a timer backed off near the end of the range
/// would wrap to an instant in the past and the run would never end.
impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}
impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, o: SimTime) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

/// A line rate in bits per second (integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitRate(pub u64);

impl BitRate {
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Serialisation time of `bytes` bytes (a packet or a whole burst) at this rate,
    /// rounded up to a whole picosecond.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> SimTime {
        // Bits × ps per s fits 64 bits up to 2.3 MB (every packet): one 64-bit division
        // instead of a 128-bit one, the same result.
        if let Some(num) = bytes.checked_mul(8 * PS_PER_SEC) {
            return SimTime(num.div_ceil(self.0));
        }
        let num = bytes as u128 * 8 * PS_PER_SEC as u128;
        let r = self.0 as u128;
        SimTime(num.div_ceil(r) as u64)
    }

    /// Bits sent in `span` at this rate, times [`PS_PER_SEC`] (exact in 128 bits): the
    /// numerator of both byte counts below.
    #[inline]
    fn bit_ps(self, span: SimTime) -> u128 {
        span.0 as u128 * self.0 as u128
    }

    /// Bytes sent whole within `span` from the start of a transmission at this rate
    /// (rounded down: a byte still being sent when `span` ends does not count). The
    /// bytes a burst keeps when its tail is cut `span` after its byte 0 was sent.
    #[inline]
    pub fn bytes_sent_in(self, span: SimTime) -> u64 {
        (self.bit_ps(span) / (8 * PS_PER_SEC as u128)) as u64
    }

    /// Bytes whose transmission begins within `span` from the start of a transmission
    /// at this rate (rounded up: a byte partly inside `span` counts). The bytes lost
    /// when the first (or last) `span` of a transmission is cut off.
    #[inline]
    pub fn bytes_begun_in(self, span: SimTime) -> u64 {
        self.bit_ps(span).div_ceil(8 * PS_PER_SEC as u128) as u64
    }
}

/// Parses a duration written as a number of seconds or a string with a unit:
/// `"10ms"`, `"1.5 s"`, `"250us"`, `"250µs"`, `"5ns"`, `"3ps"`, `"2min"`.
pub fn parse_duration(s: &str) -> Result<SimTime, String> {
    let (num, unit) = split_number(s)?;
    let mult = match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" | "μs" => 1e-6,
        "ns" => 1e-9,
        "ps" => 1e-12,
        "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!(
                "unknown time unit '{other}' (use s, ms, us, ns, ps, min, h)"
            ))
        }
    };
    if num < 0.0 {
        return Err(format!("a duration must not be negative, got '{s}'"));
    }
    SimTime::from_secs_f64(num * mult)
}

/// Parses a rate: `"10Gb/s"`, `"125MB/s"` (bytes), `"1.25KB/s"`, `"500Mbps"`, or a plain
/// number of bits per second. `b` = bit, `B` = byte; prefixes are decimal (k/K, M, G, T).
pub fn parse_rate(s: &str) -> Result<BitRate, String> {
    let (num, unit) = split_number(s)?;
    // A unit without "/s" (or "ps") is a size, not a rate: "10GB" would otherwise read
    // as 10 GB/s, eight times what "10Gb" users of link speeds usually mean.
    if !(unit.is_empty() || unit.ends_with("/s") || unit.ends_with("ps")) {
        return Err(format!(
            "'{s}' is not a rate: write the unit per second, e.g. '{num}{unit}/s' \
             (B = byte, b = bit)"
        ));
    }
    let u = unit.trim_end_matches("/s").trim_end_matches("ps");
    let (prefix, base) = if u.is_empty() {
        ("", "b")
    } else {
        let base = &u[u.len() - 1..];
        (&u[..u.len() - 1], base)
    };
    let bits = match base {
        "b" => 1.0,
        "B" => 8.0,
        _ => {
            return Err(format!(
                "unknown rate unit '{unit}' (use b/s or B/s with k, M, G, T prefixes)"
            ))
        }
    };
    let p = match prefix {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        other => return Err(format!("unknown rate prefix '{other}' in '{s}'")),
    };
    let v = num * bits * p;
    if !(v.is_finite() && v >= 1.0) {
        return Err(format!(
            "a rate must be positive (at least 1 b/s), got '{s}'"
        ));
    }
    if v > MAX_RATE_BPS {
        return Err(format!(
            "'{s}' is faster than the largest rate burstlab simulates (1 Pb/s = 1e15 b/s)"
        ));
    }
    Ok(BitRate(v.round() as u64))
}

/// Parses a size in bytes: `"1000B"`, `"1KB"` (=1000), `"64KiB"`, `"10MB"`, or a plain number.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (num, unit) = split_number(s)?;
    let mult = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "unknown size unit '{other}' (use B, KB, MB, GB, KiB, MiB)"
            ))
        }
    };
    let v = num * mult;
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!(
            "a size must be a non-negative number of bytes, got '{s}'"
        ));
    }
    Ok(v.round() as u64)
}

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let t = s.trim();
    let end = t
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '-'
                || c == '+'
                || ((c == 'e' || c == 'E')
                    && t[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+')))
        })
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    let (n, u) = t.split_at(end);
    let num: f64 = n
        .parse()
        .map_err(|_| format!("'{s}' does not start with a number"))?;
    Ok((num, u.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_exactly() {
        assert_eq!(parse_duration("10ms").unwrap(), SimTime::from_ms(10));
        assert_eq!(parse_duration("2.5 us").unwrap(), SimTime(2_500_000));
        assert_eq!(parse_duration("1e-3").unwrap(), SimTime::from_ms(1));
        assert_eq!(parse_duration("3ps").unwrap(), SimTime(3));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("1 fortnight").is_err());
        assert!(parse_duration("abc").is_err());
    }

    #[test]
    fn a_size_is_not_a_rate() {
        let e = parse_rate("10GB").unwrap_err();
        assert!(
            e.contains("'10GB' is not a rate") && e.contains("10GB/s"),
            "{e}"
        );
        assert!(parse_rate("10Gb").is_err());
        assert_eq!(parse_rate("10Gbps").unwrap(), BitRate(10_000_000_000));
        assert_eq!(parse_rate("1000").unwrap(), BitRate(1000));
    }

    #[test]
    fn rates_parse_bits_and_bytes() {
        assert_eq!(parse_rate("10Gb/s").unwrap(), BitRate(10_000_000_000));
        assert_eq!(parse_rate("125MB/s").unwrap(), BitRate(1_000_000_000));
        assert_eq!(parse_rate("1.25KB/s").unwrap(), BitRate(10_000));
        assert_eq!(parse_rate("500Mbps").unwrap(), BitRate(500_000_000));
        assert!(parse_rate("-1Mb/s").is_err());
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("5 furlongs").is_err());
    }

    #[test]
    fn tx_time_rounds_up_to_ps() {
        // 512 B at 1.25 Gb/s = 3.2768 us exactly.
        assert_eq!(BitRate(1_250_000_000).tx_time(512), SimTime(3_276_800));
        // 1000 B at 3 b/s is not whole: rounded up.
        assert_eq!(BitRate(3).tx_time(1), SimTime(2_666_666_666_667));
        // Past 2.3 MB the product needs 128 bits; both ways agree at the boundary.
        let r = BitRate(155_520_000);
        for b in [1u64, 1500, 2_305_843, 2_305_844, 10_000_000, 1 << 40] {
            let exact = (b as u128 * 8 * PS_PER_SEC as u128).div_ceil(r.0 as u128);
            assert_eq!(r.tx_time(b).0 as u128, exact, "{b} bytes");
        }
    }

    #[test]
    fn bytes_in_an_interval_round_each_way() {
        // 1 Gb/s: one byte every 8 000 ps.
        let r = BitRate(1_000_000_000);
        assert_eq!(r.bytes_sent_in(SimTime(0)), 0);
        assert_eq!(r.bytes_begun_in(SimTime(0)), 0);
        // Exactly 3 bytes: both agree.
        assert_eq!(r.bytes_sent_in(SimTime(24_000)), 3);
        assert_eq!(r.bytes_begun_in(SimTime(24_000)), 3);
        // One picosecond into the 4th byte: 3 sent whole, 4 begun.
        assert_eq!(r.bytes_sent_in(SimTime(24_001)), 3);
        assert_eq!(r.bytes_begun_in(SimTime(24_001)), 4);
        // One picosecond short of the 3rd byte's end: 2 whole, 3 begun.
        assert_eq!(r.bytes_sent_in(SimTime(23_999)), 2);
        assert_eq!(r.bytes_begun_in(SimTime(23_999)), 3);
        // The inverse of `tx_time` where it is exact (512 B at 1.25 Gb/s).
        let r = BitRate(1_250_000_000);
        assert_eq!(r.bytes_sent_in(r.tx_time(512)), 512);
        assert_eq!(r.bytes_begun_in(r.tx_time(512)), 512);
        // A long span at a fast rate needs the 128-bit product (1e4 s at 1 Pb/s: 1e31
        // bit-picoseconds).
        let r = BitRate(1_000_000_000_000_000);
        assert_eq!(
            r.bytes_sent_in(SimTime::from_secs(10_000)),
            1_250_000_000_000_000_000
        );
        assert_eq!(
            r.bytes_begun_in(SimTime::from_secs(10_000)),
            1_250_000_000_000_000_000
        );
    }

    #[test]
    fn bytes_parse() {
        assert_eq!(parse_bytes("64KiB").unwrap(), 65536);
        assert_eq!(parse_bytes("1KB").unwrap(), 1000);
        assert_eq!(parse_bytes("1040").unwrap(), 1040);
        assert!(parse_bytes("-3B").is_err());
    }
}
