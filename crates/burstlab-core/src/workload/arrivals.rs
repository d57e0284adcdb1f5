//! Flow arrival processes: when each generated flow starts.
//!
//! Read first: [`Arrivals`]. A process is a small state machine with one pending
//! instant, the next arrival, so a workload costs one pending event however many flows
//! it will start (the design's "one pending event per busy resource",
//! docs/design.md). Time stays integer: a Poisson gap is drawn in picoseconds and
//! rounded once, then added exactly. A trace is parsed and validated when it is built
//! ([`parse_trace`]); its rows carry their own pair and size.

use super::err;
use crate::rng::RngStream;
use crate::units::{parse_bytes, parse_duration, SimTime, PS_PER_SEC};
use crate::ScenarioError;

/// One row of an arrival trace: a flow of `size` bytes from host `src` to host `dst`
/// starting at `start`. Host ids are the caller's (whatever `host` returned when the
/// trace was parsed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRow {
    pub start: SimTime,
    pub src: u32,
    pub dst: u32,
    pub size: u64,
}

/// The next arrival of a process: its instant, and for a trace the row's pair and
/// size (drawn by the workload's pair chooser and size distribution otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub at: SimTime,
    pub row: Option<TraceRow>,
}

/// An arrival process.
#[derive(Clone, Debug)]
pub enum Arrivals {
    /// Exponential gaps of mean `mean_gap_ps` picoseconds (a Poisson process of rate
    /// 1/mean); the first arrival one gap after the start.
    Poisson { mean_gap_ps: f64, next: SimTime },
    /// Arrivals at `start`, `start + period`, `start + 2·period`, …
    Fixed { period: SimTime, next: SimTime },
    /// The rows of a trace, in order.
    Trace { rows: Vec<TraceRow>, next: usize },
}

impl Arrivals {
    /// A Poisson process of `rate` arrivals per second starting at `start`
    /// (`<field>` names the rate in errors: NaN, infinite, zero or negative rates are
    /// refused).
    pub fn poisson(rate: f64, start: SimTime, field: &str) -> Result<Self, ScenarioError> {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(err(
                field,
                format!("an arrival rate must be a positive finite number per second, got {rate}"),
            ));
        }
        let mean_gap_ps = PS_PER_SEC as f64 / rate;
        if mean_gap_ps < 1.0 {
            return Err(err(
                field,
                format!("{rate}/s is more than one arrival per picosecond"),
            ));
        }
        Ok(Arrivals::Poisson {
            mean_gap_ps,
            next: start,
        })
    }

    /// Arrivals every `period` (positive) from `start` on.
    pub fn fixed(period: SimTime, start: SimTime, field: &str) -> Result<Self, ScenarioError> {
        if period == SimTime::ZERO {
            return Err(err(field, "the period between arrivals must be positive"));
        }
        Ok(Arrivals::Fixed {
            period,
            next: start,
        })
    }

    /// The rows of a trace (from [`parse_trace`]; at least one row, starts sorted).
    pub fn trace(rows: Vec<TraceRow>, field: &str) -> Result<Self, ScenarioError> {
        if rows.is_empty() {
            return Err(err(field, "the trace has no rows"));
        }
        if let Some(i) = rows.windows(2).position(|w| w[1].start < w[0].start) {
            return Err(err(
                field,
                format!("row {} starts before row {}", i + 2, i + 1),
            ));
        }
        Ok(Arrivals::Trace { rows, next: 0 })
    }

    /// The next arrival (`None` once a trace is exhausted); draws one exponential from
    /// `rng` for a Poisson process and nothing otherwise. Arrival instants never
    /// decrease; past the clock's range they saturate at [`SimTime::MAX`], after
    /// every run's end.
    #[inline]
    pub fn next(&mut self, rng: &mut RngStream) -> Option<Arrival> {
        match self {
            Arrivals::Poisson { mean_gap_ps, next } => {
                // Rounded to the picosecond; `as` saturates a gap beyond the range.
                let gap = rng.exponential(*mean_gap_ps).round() as u64;
                *next += SimTime(gap);
                Some(Arrival {
                    at: *next,
                    row: None,
                })
            }
            Arrivals::Fixed { period, next } => {
                let at = *next;
                *next += *period;
                Some(Arrival { at, row: None })
            }
            Arrivals::Trace { rows, next } => {
                let r = *rows.get(*next)?;
                *next += 1;
                Some(Arrival {
                    at: r.start,
                    row: Some(r),
                })
            }
        }
    }

    /// The mean arrival rate per second (a trace's: rows over the span from zero to its
    /// last start), for load and memory estimates.
    pub fn rate_per_s(&self) -> f64 {
        match self {
            Arrivals::Poisson { mean_gap_ps, .. } => PS_PER_SEC as f64 / mean_gap_ps,
            Arrivals::Fixed { period, .. } => 1.0 / period.as_secs_f64(),
            Arrivals::Trace { rows, .. } => {
                let span = rows.last().map_or(0.0, |r| r.start.as_secs_f64());
                if span > 0.0 {
                    rows.len() as f64 / span
                } else {
                    f64::INFINITY
                }
            }
        }
    }
}

/// Parses an arrival rate: `"50/s"`, `"3000/min"`, `"0.5/ms"`, `"5/100ms"` (a count
/// over a duration, any unit [`parse_duration`] reads) or a bare number per second.
/// NaN, infinite, zero and negative rates are refused.
pub fn parse_rate_per_s(s: &str) -> Result<f64, String> {
    let (num, per) = match s.split_once('/') {
        Some((n, p)) => (n.trim(), p.trim()),
        None => (s.trim(), "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a rate: write a count per time, e.g. '50/s'"))?;
    let per = if per.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        parse_duration(per)
    } else {
        parse_duration(&format!("1{per}"))
    }
    .map_err(|e| format!("'{s}': {e}"))?;
    let r = n / per.as_secs_f64();
    if r.is_finite() && r > 0.0 {
        Ok(r)
    } else {
        Err(format!(
            "an arrival rate must be a positive finite number, got '{s}'"
        ))
    }
}

/// Parses an arrival trace: one flow per line, `start, src, dst, size`, the start in
/// seconds or with a unit (`"1.5ms"`), hosts by name, the size in bytes or with a
/// unit (`"64KB"`). Blank lines and `#` comments are skipped; a first line whose first
/// cell is not a time must be the header `start,src,dst,size`. Each row is checked:
/// four cells, a valid start not before the previous row's, known and distinct hosts
/// (`host` maps a name to the caller's id), a size of at least one byte. Errors name
/// the file's line and the column.
pub fn parse_trace(
    text: &str,
    host: impl Fn(&str) -> Option<u32>,
    field: &str,
) -> Result<Vec<TraceRow>, ScenarioError> {
    const COLS: [&str; 4] = ["start", "src", "dst", "size"];
    let mut rows: Vec<TraceRow> = Vec::new();
    let mut first = true;
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |col: &str, why: String| {
            let col = if col.is_empty() {
                String::new()
            } else {
                format!(", column {col}")
            };
            err(field, format!("line {}{col}: {why}", ln + 1))
        };
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if first && parse_duration(cells[0]).is_err() && cells[0].parse::<f64>().is_err() {
            first = false;
            let names: Vec<String> = cells.iter().map(|c| c.to_ascii_lowercase()).collect();
            if names != COLS {
                return Err(at(
                    "",
                    format!("the header must be 'start,src,dst,size', got '{line}'"),
                ));
            }
            continue;
        }
        first = false;
        if cells.len() != 4 {
            return Err(at(
                "",
                format!(
                    "expected 4 cells (start, src, dst, size), got {}",
                    cells.len()
                ),
            ));
        }
        let start = parse_duration(cells[0]).map_err(|e| at("start", e))?;
        if let Some(p) = rows.last() {
            if start < p.start {
                return Err(at(
                    "start",
                    format!(
                        "{} s is before the previous row's {} s: rows must be sorted by start",
                        start.as_secs_f64(),
                        p.start.as_secs_f64()
                    ),
                ));
            }
        }
        let src =
            host(cells[1]).ok_or_else(|| at("src", format!("unknown host '{}'", cells[1])))?;
        let dst =
            host(cells[2]).ok_or_else(|| at("dst", format!("unknown host '{}'", cells[2])))?;
        if src == dst {
            return Err(at("dst", format!("a flow from '{}' to itself", cells[1])));
        }
        let size = parse_bytes(cells[3]).map_err(|e| at("size", e))?;
        if size == 0 {
            return Err(at("size", "a flow size must be at least 1 byte".into()));
        }
        rows.push(TraceRow {
            start,
            src,
            dst,
            size,
        });
    }
    if rows.is_empty() {
        return Err(err(field, "the trace has no rows"));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(name: &str) -> Option<u32> {
        ["S1", "S2", "D1", "D2"]
            .iter()
            .position(|h| *h == name)
            .map(|i| i as u32)
    }

    #[test]
    fn poisson_count_and_gaps_match_the_rate() {
        // 50/s for 2 000 s: the count is Poisson(100 000), sd 316; five sd = 1 581.
        let mut a = Arrivals::poisson(50.0, SimTime::ZERO, "rate").unwrap();
        let mut r = RngStream::derive(1, 0, "workload/web/arrivals");
        let end = SimTime::from_secs(2_000);
        let (mut n, mut prev, mut sq) = (0u64, SimTime::ZERO, 0.0);
        while let Some(x) = a.next(&mut r) {
            if x.at > end {
                break;
            }
            assert!(x.at >= prev && x.row.is_none());
            let g = (x.at - prev).as_secs_f64();
            sq += g * g;
            prev = x.at;
            n += 1;
        }
        assert!((n as f64 - 100_000.0).abs() < 1_581.0, "{n}");
        // Exponential gaps: E[g²] = 2/λ² = 8e-4 s²; its estimate has a standard error
        // of √20/(2√n) ≈ 0.7 % (E[g⁴] = 24/λ⁴), so 5 % is seven standard errors.
        let m2 = sq / n as f64;
        assert!((m2 - 8e-4).abs() < 0.05 * 8e-4, "{m2}");
        assert!((a.rate_per_s() - 50.0).abs() < 1e-9);
    }

    #[test]
    fn fixed_arrivals_are_exact() {
        let mut a = Arrivals::fixed(SimTime::from_ms(20), SimTime::from_secs(1), "p").unwrap();
        let mut r = RngStream::derive(1, 0, "x");
        let ts: Vec<u64> = (0..3).map(|_| a.next(&mut r).unwrap().at.ps()).collect();
        assert_eq!(
            ts,
            [1_000_000_000_000, 1_020_000_000_000, 1_040_000_000_000]
        );
        assert!(Arrivals::fixed(SimTime::ZERO, SimTime::ZERO, "p").is_err());
    }

    #[test]
    fn bad_rates_are_refused_naming_the_field() {
        for bad in [f64::NAN, -1.0, 0.0, f64::INFINITY] {
            let e = Arrivals::poisson(bad, SimTime::ZERO, "workload[0].rate").unwrap_err();
            assert_eq!(e.field, "workload[0].rate");
        }
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate_per_s("50/s").unwrap(), 50.0);
        assert_eq!(parse_rate_per_s("50").unwrap(), 50.0);
        assert_eq!(parse_rate_per_s("3000/min").unwrap(), 50.0);
        assert!((parse_rate_per_s("5/100ms").unwrap() - 50.0).abs() < 1e-9);
        assert!((parse_rate_per_s("0.05 / ms").unwrap() - 50.0).abs() < 1e-9);
        for bad in ["-5/s", "NaN/s", "0/s", "inf", "5/fortnight", "fast", "5/0s"] {
            assert!(parse_rate_per_s(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn trace_parses_and_replays() {
        let t =
            "start,src,dst,size\n# two flows\n0.5ms,S1,D1,100KB\n1.5ms,S2,D2,1000\n1.5ms,S1,D2,1\n";
        let rows = parse_trace(t, hosts, "workload[1].trace").unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].size, 100_000);
        let mut a = Arrivals::trace(rows, "w").unwrap();
        let mut r = RngStream::derive(1, 0, "x");
        let x = a.next(&mut r).unwrap();
        assert_eq!(x.at, SimTime::from_us(500));
        assert_eq!(x.row.unwrap().dst, 2);
        assert_eq!(a.next(&mut r).unwrap().at, SimTime::from_us(1_500));
        assert!(a.next(&mut r).is_some());
        assert!(a.next(&mut r).is_none());
    }

    #[test]
    fn bad_traces_name_line_and_column() {
        let e = |t: &str| parse_trace(t, hosts, "workload[1].trace").unwrap_err();
        let x = e("1,S1,D1,10\n0.5,S1,D1,10\n");
        assert_eq!(x.field, "workload[1].trace");
        assert!(
            x.reason.starts_with("line 2, column start") && x.reason.contains("sorted"),
            "{x}"
        );
        let x = e("1,S1,X9,10\n");
        assert!(
            x.reason
                .starts_with("line 1, column dst: unknown host 'X9'"),
            "{x}"
        );
        let x = e("1,S1,S1,10\n");
        assert!(
            x.reason.contains("column dst") && x.reason.contains("itself"),
            "{x}"
        );
        let x = e("1,S1,D1,0\n");
        assert!(x.reason.contains("column size"), "{x}");
        let x = e("1,S1,D1,-3\n");
        assert!(x.reason.contains("column size"), "{x}");
        let x = e("1,S1,D1\n");
        assert!(x.reason.contains("expected 4 cells"), "{x}");
        let x = e("when,from,to,bytes\n1,S1,D1,1\n");
        assert!(x.reason.contains("header"), "{x}");
        let x = e("start,src,dst,size\n");
        assert!(x.reason.contains("no rows"), "{x}");
        let x = e("1,S1,D1,5\n-2,S1,D1,5\n");
        assert!(x.reason.starts_with("line 2, column start"), "{x}");
        let x = e("1,S1,D1,5\nNaN,S1,D1,5\n");
        assert!(x.reason.starts_with("line 2, column start"), "{x}");
    }
}
