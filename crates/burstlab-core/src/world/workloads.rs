//! Flows generated during the run (`[[workload]]`; docs/guide/workloads.md): one pending
//! arrival event per workload, a slab of flow slots reused by index, and the compact
//! `fct` rows of the flows done.
//!
//! Read first: [`Generated`], then `World::arrival`, `World::finished` and
//! `World::release`. At each arrival (`Ev::Arrival`, one pending per workload: the next
//! is drawn and scheduled when one is handled, design.md's one pending event per busy
//! resource) a TCP flow starts in a free slot of the hosts' flow table, or a new slot
//! at its end, on the routes wired for its pair (`wiring.rs`: every path of every pair
//! a workload can draw is a route, resolved once). When its sender has all its data
//! acknowledged it leaves a [`GenRow`] (64 bytes) and stops; once none of its packets is
//! in flight (`Hosts::quiet`) its slot is free for the next arrival. So the flow table
//! follows the flows alive, and only the rows grow with the arrivals.

use super::{Ev, World};
use crate::rng::RngStream;
use crate::scenario::{Resolved, RoutePolicy, ScenarioError};
use crate::stats::{FctRow, StreamedTrace};
use crate::tcp::{Profile, TcpConfig};
use crate::tracefile::{csv_field, py_float, Stamp, TraceFile, CHUNK_ROWS};
use crate::units::SimTime;
use crate::workload::{below, FlowArrival, Workload};
use std::collections::HashMap;

/// One workload while the run goes.
struct Wl {
    name: String,
    gen: Workload,
    /// The next arrival, drawn and scheduled (`None`: no more).
    next: Option<FlowArrival>,
    /// No arrival at or after this instant (the workload's `stop` or the run's end).
    stop: SimTime,
    /// Arrivals still allowed (`max_flows`).
    left: u64,
    cfg: TcpConfig,
    /// Per pair: its first route template (see [`Generated`]) and its paths.
    pair_at: HashMap<(u32, u32), (u32, u32)>,
    policy: RoutePolicy,
    /// `workload/<name>/routing`: the `random` path policy's draws.
    rng_routing: RngStream,
    /// `round_robin`: flows routed so far per pair (by first template).
    turns: HashMap<u32, u64>,
    /// `workload/<name>/boot`: each ns2-profile flow's clock phase (ns-2 `boot_time_`).
    rng_boot: RngStream,
    /// Arrivals so far: the next flow is `<name>#<n>`.
    n: u64,
}

/// What occupies a slot above the listed flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A flow of workload `wl`, its `n`-th arrival, of `size` bytes on route template
    /// `tpl`, still sending.
    Running {
        wl: u32,
        n: u64,
        size: u64,
        tpl: u32,
    },
    /// Done (its row is out); waiting for its last packets.
    Draining,
    Free,
}

/// A generated flow's `fct` row, compact (expanded into an [`FctRow`] at the end).
#[derive(Clone, Copy, Debug)]
pub struct GenRow {
    wl: u32,
    tpl: u32,
    n: u64,
    size: u64,
    start: SimTime,
    /// [`SimTime::MAX`]: not completed.
    end: SimTime,
    delivered: u64,
    retx: u32,
    td: u32,
    to: u32,
    bursts_lost: u32,
}

/// Every workload, the slots of the flows they generated, and their rows.
#[derive(Default)]
pub struct Generated {
    wl: Vec<Wl>,
    /// Route templates: per (workload, pair, path), in that order, the pair; template
    /// `t` is routes `2(listed + t)` and `2(listed + t) + 1` of the world.
    tpl_pair: Vec<(u32, u32)>,
    /// The listed flows (the first slots, and the first routes).
    listed: u32,
    /// Slot `listed + i` is `slots[i]`.
    slots: Vec<Slot>,
    /// Freed slots, reused last freed first.
    free: Vec<u32>,
    rows: Vec<GenRow>,
    /// Most slots taken at once.
    peak: usize,
    taken: usize,
    /// `sim.trace.dir`: the `fct` table is streamed to `<dir>/fct.csv`, `CHUNK_ROWS`
    /// rows at a time, so that not even the rows grow with the arrivals.
    out: Option<TraceFile>,
    /// The first error writing it (the run stops on it).
    write_error: Option<ScenarioError>,
}

/// The columns of the `fct` table, in `FctRow`'s order.
const FCT_COLUMNS: [&str; 18] = [
    "flow",
    "name",
    "workload",
    "src",
    "dst",
    "size_segments",
    "size_bytes",
    "start_s",
    "end_s",
    "fct_s",
    "ideal_fct_s",
    "slowdown",
    "completed",
    "segments_delivered",
    "retransmits",
    "td_events",
    "to_events",
    "bursts_lost",
];

/// `r` as CSV cells, as the Python `Result.to_dir` writes a streamed table's
/// (`tracefile.rs`: floats as Python's `repr`, booleans `True`/`False`).
fn fct_cells(r: &FctRow, out: &mut String) {
    use std::fmt::Write as _;
    out.clear();
    let _ = write!(out, "{},", r.flow);
    for s in [&r.name, &r.workload, &r.src, &r.dst] {
        csv_field(s, out);
        out.push(',');
    }
    let _ = write!(out, "{},{},", r.size_segments, r.size_bytes);
    for x in [r.start_s, r.end_s, r.fct_s, r.ideal_fct_s, r.slowdown] {
        py_float(x, out);
        out.push(',');
    }
    out.push_str(if r.completed { "True" } else { "False" });
    let _ = write!(
        out,
        ",{},{},{},{},{}",
        r.segments_delivered, r.retransmits, r.td_events, r.to_events, r.bursts_lost
    );
}

impl Generated {
    /// The workloads of `r`, seeded; nothing scheduled yet. With `sim.trace.dir` the
    /// `fct` file is created now (an unwritable directory is an error before the run).
    pub fn new(r: &Resolved) -> Result<Generated, ScenarioError> {
        let mut g = Generated {
            listed: r.flows.len() as u32,
            ..Default::default()
        };
        if let (Some(dir), false) = (&r.trace.dir, r.workloads.is_empty()) {
            let stamp = Stamp::new(&r.name, r.seed, r.replication, crate::VERSION);
            let f = TraceFile::create(std::path::Path::new(dir), "fct", &FCT_COLUMNS, &stamp)
                .map_err(|e| {
                    ScenarioError::new("sim.trace.dir", format!("cannot write {dir}/fct.csv: {e}"))
                })?;
            g.out = Some(f);
        }
        for w in &r.workloads {
            let mut pair_at = HashMap::with_capacity(w.routes.len());
            for p in &w.routes {
                let at = g.tpl_pair.len() as u32;
                pair_at.insert((p.src, p.dst), (at, p.paths.len() as u32));
                g.tpl_pair
                    .extend(std::iter::repeat_n((p.src, p.dst), p.paths.len()));
            }
            let s = |what: &str| {
                RngStream::derive(
                    r.seed,
                    r.replication,
                    &format!("workload/{}/{what}", w.name),
                )
            };
            let stop = w.stop.map_or(r.duration, |s| s.min(r.duration));
            g.wl.push(Wl {
                name: w.name.clone(),
                gen: Workload::new(
                    &w.name,
                    r.seed,
                    r.replication,
                    w.arrivals.clone(),
                    w.sizes.clone(),
                    w.pairs.clone(),
                ),
                next: None,
                stop,
                left: w.max_flows.unwrap_or(u64::MAX),
                cfg: w.cfg.clone(),
                pair_at,
                policy: w.routing.policy,
                rng_routing: s("routing"),
                turns: HashMap::new(),
                rng_boot: s("boot"),
                n: 0,
            });
        }
        Ok(g)
    }

    /// The first error writing the streamed `fct` table, if any.
    pub fn write_error(&self) -> Option<&ScenarioError> {
        self.write_error.as_ref()
    }

    pub fn is_empty(&self) -> bool {
        self.wl.is_empty()
    }

    /// Draws workload `w`'s next arrival; its instant if it is to be scheduled.
    fn draw(&mut self, w: usize) -> Option<SimTime> {
        let wl = &mut self.wl[w];
        if wl.left == 0 {
            return None;
        }
        let a = wl.gen.next_flow().filter(|a| a.at < wl.stop)?;
        wl.left -= 1;
        wl.next = Some(a);
        Some(a.at)
    }

    /// Bytes held (slots, rows, pair tables), for the memory guard.
    pub fn mem_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.free.capacity() * 4
            + self.rows.capacity() * std::mem::size_of::<GenRow>()
    }

    /// Most generated flows alive at once, and arrivals so far (for tests and
    /// benchmarks).
    pub fn peak_and_arrivals(&self) -> (usize, u64) {
        (self.peak, self.wl.iter().map(|w| w.n).sum())
    }
}

impl World {
    /// Schedules each workload's first arrival.
    pub(super) fn start_workloads(&mut self) {
        for w in 0..self.gen.wl.len() {
            if let Some(at) = self.gen.draw(w) {
                self.q.push(at, Ev::Arrival(w as u32));
            }
        }
    }

    /// Workload `w`'s arrival: its flow starts now; the next arrival is drawn.
    pub(super) fn arrival(&mut self, now: SimTime, w: u32) {
        let g = &mut self.gen;
        let wl = &mut g.wl[w as usize];
        let Some(a) = wl.next.take() else {
            return;
        };
        debug_assert_eq!(a.at, now);
        let (first, paths) = wl.pair_at[&(a.src, a.dst)];
        let j = match wl.policy {
            _ if paths <= 1 => 0,
            RoutePolicy::Random => below(&mut wl.rng_routing, paths as u64) as u32,
            RoutePolicy::RoundRobin => {
                let t = wl.turns.entry(first).or_insert(0);
                *t += 1;
                ((*t - 1) % paths as u64) as u32
            }
            // `least_loaded` is refused for workloads (`scenario/workload.rs`).
            RoutePolicy::First | RoutePolicy::LeastLoaded => 0,
        };
        let tpl = first + j;
        let mut cfg = wl.cfg.clone();
        if cfg.profile == Profile::Ns2 && cfg.clock_phase.is_none() {
            // ns-2 draws each agent's boot_time_ uniformly in [0, tick) (`tcp/ns2.rs`).
            cfg.clock_phase = Some(cfg.clock_granularity.as_secs_f64() * wl.rng_boot.uniform());
        }
        let segments = a.size.div_ceil(cfg.mss as u64).max(1);
        let n = wl.n;
        wl.n += 1;
        let route = 2 * (g.listed + tpl);
        let slot = g.free.pop();
        let fi = self.hosts.add_generated(
            slot,
            &cfg,
            segments,
            (a.src, a.dst),
            (route, route + 1),
            now,
        );
        let g = &mut self.gen;
        let i = (fi - g.listed) as usize;
        if i == g.slots.len() {
            g.slots.push(Slot::Free);
        }
        g.slots[i] = Slot::Running {
            wl: w,
            n,
            size: a.size,
            tpl,
        };
        g.taken += 1;
        g.peak = g.peak.max(g.taken);
        self.edges.ensure_flows(fi as usize + 1);
        self.edges.reset_flow(fi);
        if let Some(at) = self.gen.draw(w as usize) {
            self.q.push(at, Ev::Arrival(w));
        }
        self.host(now, |h, acts| h.start(now, fi, acts));
    }

    /// The row of the generated flow in slot `fi` (`end`: when it completed).
    fn gen_row(&self, fi: u32, now: SimTime) -> Option<GenRow> {
        let Slot::Running { wl, n, size, tpl } = self.gen.slots[(fi - self.gen.listed) as usize]
        else {
            return None;
        };
        let (_, start, end, delivered, retx, td, to) = self.hosts.gen_facts(fi, now);
        let c = |x: u64| u32::try_from(x).unwrap_or(u32::MAX);
        Some(GenRow {
            wl,
            tpl,
            n,
            size,
            start,
            end: end.unwrap_or(SimTime::MAX),
            delivered,
            retx: c(retx),
            td: c(td),
            to: c(to),
            bursts_lost: c(self.edges.flow_bursts_lost(fi)),
        })
    }

    /// Generated flow `fi` has all its data acknowledged: its row; it stops, and its slot
    /// is freed now if none of its packets is in flight.
    pub(super) fn finished(&mut self, now: SimTime, fi: u32) {
        if let Some(row) = self.gen_row(fi, now) {
            self.gen.rows.push(row);
            if self.gen.out.is_some() && self.gen.rows.len() >= CHUNK_ROWS {
                let rows = std::mem::take(&mut self.gen.rows);
                let table = self.expand(&rows);
                self.gen.rows = rows;
                self.gen.rows.clear();
                self.write_fct(&table);
            }
        }
        self.gen.slots[(fi - self.gen.listed) as usize] = Slot::Draining;
        self.hosts.retire(fi);
        if self.hosts.quiet(fi) {
            self.release(fi);
        }
    }

    /// Generated flow `fi` is done and quiet: its slot takes the next arrival.
    pub(super) fn release(&mut self, fi: u32) {
        let g = &mut self.gen;
        let s = &mut g.slots[(fi - g.listed) as usize];
        if *s == Slot::Draining {
            *s = Slot::Free;
            g.free.push(fi);
            g.taken -= 1;
        }
    }

    /// Most generated flows alive at once, and arrivals so far.
    pub fn generated_peak_and_arrivals(&self) -> (usize, u64) {
        self.gen.peak_and_arrivals()
    }

    /// The `fct` rows of the generated flows: those done, in completion order, then
    /// those still running at the end (`completed = false`), in slot order.
    fn gen_fct_rows(&self, now: SimTime) -> Vec<FctRow> {
        let g = &self.gen;
        let mut rows = g.rows.clone();
        for i in 0..g.slots.len() {
            if let Some(r) = self.gen_row(g.listed + i as u32, now) {
                rows.push(r);
            }
        }
        self.expand(&rows)
    }

    /// Appends `rows` to the streamed `fct` file (the first error is kept and ends the
    /// streaming).
    fn write_fct(&mut self, rows: &[FctRow]) {
        let Some(f) = self.gen.out.as_mut() else {
            return;
        };
        let mut line = String::new();
        for r in rows {
            fct_cells(r, &mut line);
            if let Err(e) = f.write_row(&line) {
                self.gen.write_error = Some(ScenarioError::new(
                    "sim.trace.dir",
                    format!("cannot write {}: {e}", f.path().display()),
                ));
                self.gen.out = None;
                return;
            }
        }
    }

    /// The `fct` table at the end: `listed` (the listed flows' rows) and the generated
    /// flows' (those done, in completion order, then those still running, in slot
    /// order). Streamed (`sim.trace.dir`): every row goes to the file, which is
    /// returned, and the table in memory is empty.
    pub(super) fn fct_table(
        &mut self,
        mut listed: Vec<FctRow>,
        now: SimTime,
    ) -> (Vec<FctRow>, Option<StreamedTrace>) {
        if self.gen.is_empty() {
            return (listed, None);
        }
        let gen = self.gen_fct_rows(now);
        if self.gen.out.is_none() {
            listed.extend(gen);
            return (listed, None);
        }
        self.write_fct(&listed);
        self.write_fct(&gen);
        let streamed = self.gen.out.take().and_then(|f| match f.finish() {
            Ok(s) => Some(s),
            Err(e) => {
                self.gen.write_error = Some(ScenarioError::new(
                    "sim.trace.dir",
                    format!("cannot write fct.csv: {e}"),
                ));
                None
            }
        });
        (Vec::new(), streamed)
    }

    /// `rows` as `fct` rows.
    fn expand(&self, rows: &[GenRow]) -> Vec<FctRow> {
        let g = &self.gen;
        let names = &self.node_names;
        let mut ideal: HashMap<(u32, u64), f64> = HashMap::new();
        rows.iter()
            .map(|r| {
                let wl = &g.wl[r.wl as usize];
                let (s, d) = g.tpl_pair[r.tpl as usize];
                let cfg = &wl.cfg;
                let segments = r.size.div_ceil(cfg.mss as u64).max(1);
                let route = 2 * (g.listed + r.tpl);
                let ideal = *ideal
                    .entry((r.tpl, segments))
                    .or_insert_with(|| self.ideal_on((route, route + 1), cfg, segments));
                let completed = r.end != SimTime::MAX;
                let (end, fct) = if completed {
                    let e = r.end.as_secs_f64();
                    (e, e - r.start.as_secs_f64())
                } else {
                    (f64::NAN, f64::NAN)
                };
                FctRow {
                    flow: u32::try_from(r.n).unwrap_or(u32::MAX),
                    name: format!("{}#{}", wl.name, r.n),
                    workload: wl.name.clone(),
                    src: names[s as usize].clone(),
                    dst: names[d as usize].clone(),
                    size_segments: segments,
                    size_bytes: r.size,
                    start_s: r.start.as_secs_f64(),
                    end_s: end,
                    fct_s: fct,
                    ideal_fct_s: ideal,
                    slowdown: fct / ideal,
                    completed,
                    segments_delivered: r.delivered,
                    retransmits: r.retx as u64,
                    td_events: r.td as u64,
                    to_events: r.to as u64,
                    bursts_lost: r.bursts_lost as u64,
                }
            })
            .collect()
    }
}
