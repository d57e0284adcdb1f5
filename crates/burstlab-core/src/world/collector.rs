//! The results collector: run metadata, the measurement window, and the opt-in traces
//! (cwnd, packets, bursts). Observation never changes behaviour and costs one branch
//! when off (docs/design.md, "Observation").
//!
//! Each trace is a [`Trace`]: held in memory for the result, or — with `sim.trace.dir`
//! — streamed to its CSV file in chunks of [`CHUNK_ROWS`] records, so that a traced
//! run holds a bounded amount of trace however long it runs.
//!
//! A new trace kind: implement [`TraceRow`] for its record (table name, enabling
//! setting, columns), keep a `Trace<T>` of it here (it is then held or streamed like the
//! others, and counted by the memory guard), hand its rows over in [`TraceOutput`], and
//! list `T::columns` in `RunResult::tables`; the Python side handles any streamed table
//! by name. Its bound belongs in `memory::estimate`.
//!
//! Read first: [`Collector::packet`]; the tables it assembles are in `stats`.

use crate::scenario::{Resolved, ScenarioError};
use crate::stats::{
    BurstSample, CcSample, CwndSample, GoodputSample, PacketEvent, PacketSample, StreamedTrace,
    TraceRow,
};
use crate::tracefile::{Stamp, TraceFile, CHUNK_ROWS};
use crate::units::SimTime;
use std::path::Path;

/// One trace: its records, and the file they go to when it is streamed.
pub struct Trace<T: TraceRow> {
    rows: Vec<T>,
    file: Option<TraceFile>,
    /// The first write error (the trace stops being written; the run reports it).
    error: Option<ScenarioError>,
    /// Most records held at once (a streamed trace never holds more than a chunk).
    peak: usize,
}

impl<T: TraceRow> Trace<T> {
    /// A trace held in memory.
    fn held() -> Trace<T> {
        Trace {
            rows: Vec::new(),
            file: None,
            error: None,
            peak: 0,
        }
    }

    /// A trace streamed to `<dir>/<table>.csv` (created now, so that an unwritable
    /// folder is an error before the run starts).
    fn streamed(dir: &Path, stamp: &Stamp) -> Result<Trace<T>, ScenarioError> {
        let names: Vec<&str> = T::columns(&[]).iter().map(|c| c.0).collect();
        let file = TraceFile::create(dir, T::TABLE, &names, stamp).map_err(|e| {
            ScenarioError::new(
                "sim.trace.dir",
                format!(
                    "cannot write {}: {e}",
                    dir.join(format!("{}.csv", T::TABLE)).display()
                ),
            )
        })?;
        Ok(Trace {
            rows: Vec::with_capacity(CHUNK_ROWS),
            file: Some(file),
            error: None,
            peak: 0,
        })
    }

    #[inline]
    fn push(&mut self, x: T) {
        self.rows.push(x);
        if self.file.is_some() && self.rows.len() >= CHUNK_ROWS {
            self.write_out();
        }
    }

    /// Appends the held records to the file and forgets them (streamed traces only).
    #[cold]
    fn write_out(&mut self) {
        self.peak = self.peak.max(self.rows.len());
        let Some(f) = &mut self.file else { return };
        if self.error.is_none() {
            if let Err(e) = f.write(&T::columns(&self.rows)) {
                self.error = Some(write_error(f.path(), &e));
            }
        }
        self.rows.clear();
    }

    /// Writes what is left and closes the file; the records for the result (none
    /// when streamed), and the file when streamed.
    fn finish(mut self) -> (Vec<T>, Option<Result<StreamedTrace, ScenarioError>>) {
        self.peak = self.peak.max(self.rows.len());
        if self.file.is_none() {
            return (self.rows, None);
        }
        self.write_out();
        let f = self.file.take().expect("a streamed trace has its file");
        let path = f.path().to_path_buf();
        let done = match self.error.take() {
            Some(e) => Err(e),
            None => f.finish().map_err(|e| write_error(&path, &e)),
        };
        (Vec::new(), Some(done))
    }

    fn mem_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<T>()
    }
}

fn write_error(path: &Path, e: &std::io::Error) -> ScenarioError {
    ScenarioError::new(
        "sim.trace.dir",
        format!("writing {} failed: {e}", path.display()),
    )
}

pub struct Collector {
    pub name: String,
    pub seed: u64,
    pub replication: u64,
    pub duration: SimTime,
    pub warmup: SimTime,
    trace_pkts: bool,
    trace_bursts: bool,
    trace_flows: Option<Vec<bool>>,
    trace_start: SimTime,
    trace_end: SimTime,
    pub cwnd_trace: Trace<CwndSample>,
    pub pkt_trace: Trace<PacketSample>,
    pub burst_trace: Trace<BurstSample>,
    /// The interval of the goodput samples (`sim.trace.goodput`), if on.
    pub goodput_every: Option<SimTime>,
    pub goodput_trace: Trace<GoodputSample>,
    pub cc_trace: Trace<CcSample>,
    /// Each fibre direction's rate, for the ideal completion times (`world/fct.rs`).
    pub fibre_rate: Vec<crate::units::BitRate>,
    /// Per listed flow, the one-way delays of its data segments (UDP: packets) that
    /// reached the receiver after the warm-up: `flows.delay_mean_s`, `flows.jitter_s`.
    delays: Vec<DelaySum>,
}

/// The one-way delays of one flow, as exact integer sums of picoseconds: count, sum and
/// sum of squares (a delay below 10^4 s squared is below 10^32 ps², so 10^6 of them fit
/// in a `u128`'s 3.4·10^38).
#[derive(Clone, Copy, Default)]
struct DelaySum {
    n: u64,
    sum: u128,
    sq: u128,
}

impl DelaySum {
    /// Mean and population standard deviation in seconds (NaN without a delay).
    fn mean_sd_s(&self) -> (f64, f64) {
        if self.n == 0 {
            return (f64::NAN, f64::NAN);
        }
        let n = self.n as f64;
        let mean = self.sum as f64 / n;
        // n·Σx² − (Σx)² is exact in integers; then n² divides it.
        let var = match (
            self.sq.checked_mul(self.n as u128),
            self.sum.checked_mul(self.sum),
        ) {
            (Some(a), Some(b)) => a.saturating_sub(b) as f64 / (n * n),
            _ => (self.sq as f64 / n - mean * mean).max(0.0),
        };
        (mean / 1e12, var.sqrt() / 1e12)
    }
}

/// What the traces left for the result: the records held in memory, and the files
/// of the streamed ones.
pub struct TraceOutput {
    pub cwnd: Vec<CwndSample>,
    pub packets: Vec<PacketSample>,
    pub bursts: Vec<BurstSample>,
    pub goodput: Vec<GoodputSample>,
    pub cc: Vec<CcSample>,
    pub streamed: Result<Vec<StreamedTrace>, ScenarioError>,
}

impl Collector {
    pub fn new(r: &Resolved) -> Result<Collector, ScenarioError> {
        let trace_flows = r.trace.flows.as_ref().map(|fl| {
            let mut v = vec![false; r.flows.len()];
            for &f in fl {
                v[f as usize] = true;
            }
            v
        });
        let stamp = Stamp::new(&r.name, r.seed, r.replication, crate::VERSION);
        let dir = r.trace.dir.as_deref().map(Path::new);
        fn trace<T: TraceRow>(
            on: bool,
            dir: Option<&Path>,
            stamp: &Stamp,
        ) -> Result<Trace<T>, ScenarioError> {
            match dir {
                Some(d) if on => Trace::streamed(d, stamp),
                _ => Ok(Trace::held()),
            }
        }
        Ok(Collector {
            name: r.name.clone(),
            seed: r.seed,
            replication: r.replication,
            duration: r.duration,
            warmup: r.warmup,
            trace_pkts: r.trace.packets,
            trace_bursts: r.trace.bursts,
            trace_flows,
            trace_start: r.trace.start.map(|d| d.0).unwrap_or(SimTime::ZERO),
            trace_end: r.trace.end.map(|d| d.0).unwrap_or(SimTime::MAX),
            cwnd_trace: trace(r.trace.cwnd, dir, &stamp)?,
            pkt_trace: trace(r.trace.packets, dir, &stamp)?,
            burst_trace: trace(r.trace.bursts, dir, &stamp)?,
            goodput_every: r.trace.goodput.map(|d| d.0),
            goodput_trace: trace(r.trace.goodput.is_some(), dir, &stamp)?,
            cc_trace: trace(r.trace.cc, dir, &stamp)?,
            fibre_rate: r.fibres.iter().map(|f| f.rate).collect(),
            delays: vec![DelaySum::default(); r.flows.len()],
        })
    }

    /// A data segment or UDP packet of `flow`, sent at `sent`, reached its receiver at
    /// `now`. Counted after the warm-up, for the flows the scenario lists (a workload's
    /// flows have their own table, `fct`).
    #[inline]
    pub fn delay(&mut self, now: SimTime, flow: u32, sent: SimTime) {
        if now < self.warmup {
            return;
        }
        if let Some(d) = self.delays.get_mut(flow as usize) {
            let x = now.saturating_sub(sent).ps() as u128;
            d.n += 1;
            d.sum += x;
            d.sq += x * x;
        }
    }

    /// Writes each listed flow's one-way delay mean and jitter into its row.
    pub fn fill_delays(&self, flows: &mut [crate::stats::FlowRow]) {
        for row in flows {
            if let Some(d) = self.delays.get(row.flow as usize) {
                (row.delay_mean_s, row.jitter_s) = d.mean_sd_s();
            }
        }
    }

    fn window(&self, now: SimTime) -> bool {
        now >= self.trace_start && now <= self.trace_end
    }

    fn flow_on(&self, flow: u32, now: SimTime) -> bool {
        self.window(now)
            && self
                .trace_flows
                .as_ref()
                .is_none_or(|v| v.get(flow as usize) == Some(&true))
    }

    /// Bytes held by the traces (for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.cwnd_trace.mem_bytes()
            + self.pkt_trace.mem_bytes()
            + self.burst_trace.mem_bytes()
            + self.goodput_trace.mem_bytes()
            + self.cc_trace.mem_bytes()
    }

    /// The first error writing a streamed trace, if any (the run stops on it).
    pub fn write_error(&self) -> Option<&ScenarioError> {
        self.cwnd_trace
            .error
            .as_ref()
            .or(self.pkt_trace.error.as_ref())
            .or(self.burst_trace.error.as_ref())
            .or(self.goodput_trace.error.as_ref())
            .or(self.cc_trace.error.as_ref())
    }

    /// Most trace records held at once by any trace, so far.
    pub fn peak_rows_held(&self) -> usize {
        [
            self.cwnd_trace.peak.max(self.cwnd_trace.rows.len()),
            self.pkt_trace.peak.max(self.pkt_trace.rows.len()),
            self.burst_trace.peak.max(self.burst_trace.rows.len()),
            self.goodput_trace.peak.max(self.goodput_trace.rows.len()),
            self.cc_trace.peak.max(self.cc_trace.rows.len()),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    /// Whether packet events are traced at all (so callers can skip building them).
    #[inline]
    pub fn packets_on(&self) -> bool {
        self.trace_pkts
    }

    /// Whether burst events are traced at all.
    #[inline]
    pub fn bursts_on(&self) -> bool {
        self.trace_bursts
    }

    #[inline]
    pub fn packet(&mut self, now: SimTime, flow: u32, seq: u64, ev: PacketEvent, retx: bool) {
        if self.trace_pkts && self.flow_on(flow, now) {
            self.pkt_trace.push(PacketSample {
                time: now,
                flow,
                seq,
                event: ev,
                retransmit: retx,
            });
        }
    }

    pub fn cwnd(&mut self, s: CwndSample) {
        if self.flow_on(s.flow, s.time) {
            self.cwnd_trace.push(s);
        }
    }

    pub fn cc(&mut self, s: CcSample) {
        if self.flow_on(s.flow, s.time) {
            self.cc_trace.push(s);
        }
    }

    pub fn burst(&mut self, s: BurstSample) {
        if self.trace_bursts && self.window(s.time) {
            self.burst_trace.push(s);
        }
    }

    /// A goodput sample of TCP flow `flow` (`sim.trace.goodput`; the caller schedules
    /// the samples only when it is on).
    pub fn goodput(&mut self, now: SimTime, flow: u32, delivered: u64) {
        if self.flow_on(flow, now) {
            self.goodput_trace.push(GoodputSample {
                time: now,
                flow,
                delivered,
            });
        }
    }

    /// Ends the traces: writes out and closes the streamed ones.
    pub fn take_traces(&mut self) -> TraceOutput {
        let (cwnd, a) = std::mem::replace(&mut self.cwnd_trace, Trace::held()).finish();
        let (packets, b) = std::mem::replace(&mut self.pkt_trace, Trace::held()).finish();
        let (bursts, c) = std::mem::replace(&mut self.burst_trace, Trace::held()).finish();
        let (goodput, d) = std::mem::replace(&mut self.goodput_trace, Trace::held()).finish();
        let (cc, e) = std::mem::replace(&mut self.cc_trace, Trace::held()).finish();
        let streamed = [a, b, c, d, e].into_iter().flatten().collect();
        TraceOutput {
            cwnd,
            packets,
            bursts,
            goodput,
            cc,
            streamed,
        }
    }
}
