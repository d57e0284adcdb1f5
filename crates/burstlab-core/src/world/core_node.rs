//! The bufferless OBS core: fibres (wavelength channel sets) and the switching fabrics
//! of OBS nodes (edge and core), which process burst control packets (BCPs) and
//! reserve wavelengths; plus the random burst-loss models.
//!
//! Read first: the timeline below, then [`Core::depart`] and [`Core::bcp`].
//!
//! Data model. Every OBS node has one or more switching [`Fabric`]s, each with its own
//! set-up time, BCP processing time δ, signalling (JET/JIT), channel scheduler and
//! wavelength conversion. A fibre attaches to one fabric at each end. A burst is
//! switched at node `n_i` by the fabric its incoming fibre attaches to there (at the
//! ingress: the fabric of its first fibre); its outgoing fibre must attach to the same
//! fabric. Parallel fibres (same ends, same fabrics) are distinct resources: a node
//! tries the burst's fibre first, then its parallels in scenario order (first fit);
//! the burst's path records the fibre it took.
//!
//! Timeline of a burst on a path `n0 (ingress) –f0→ n1 –f1→ … –f(h−1)→ nh (egress)`
//! with fibre delays `d_j`, BCP processing `δ_i` and set-up `s_i` of the fabric at
//! `n_i`, offset `T` (fixed at the ingress, carried by the burst):
//! - at `t0` the ingress reserves a wavelength of `f0` (no processing there) and sends
//!   the BCP; the burst leaves at `t0 + T`. Base offset `T = Σ_i δ_i + max_i s_i +
//!   extra` over the nodes `n1..nh` (or a fixed `obs.offset` / `obs.class[i].offset`;
//!   with `obs.safe_offset` a fixed offset below [`Core::min_safe_offset`] is an error).
//! - the BCP is processed at `n_i` by `t_i = t0 + Σ_{j<i} d_j + Σ_{j≤i} δ_j` (one event
//!   per burst per node); the burst's head arrives at `a_i = t0 + T + Σ_{j<i} d_j`. If
//!   `a_i < t_i + s_i` the switch cannot be ready: the burst is lost
//!   (`offset_too_short`, charged to the incoming fibre). Otherwise a core node
//!   reserves `f_i`: JET `[a_i, a_i + L/R_i)`, JIT `[t_i, a_i + L/R_i)`, with its
//!   fabric's scheduler; without conversion only the wavelength used on `f0`. No
//!   wavelength on any parallel fibre → `contention` / `no_wavelength` (charged to the
//!   last fibre tried). BCPs are not serialised on the control channel.
//! - the egress checks its set-up like a core node; the burst's tail arrives at
//!   `a_h + L/R_(h−1)`, when it is disassembled.
//! - random loss: `per_link` — after a successful reservation of `f_i` the burst is lost
//!   with that fibre's `p`; `per_path` — once, at the egress, with `obs.loss.p`. Either
//!   applies to bursts with data only (`applies_to = "data"`) or to all bursts.
//!   A burst lost anywhere stops there; wavelengths reserved upstream stay reserved.

use crate::obs::{ChannelSet, SchedulerKind};
use crate::rng::RngStream;
use crate::scenario::{ConverterScope, FdlCapacity, Preemption, ResolvedContention, Segmentation};
use crate::stats::{BurstLoss, LossCounts, ObsChannelRow, ObsLinkRow};
use crate::units::{BitRate, SimTime};
use std::collections::VecDeque;

/// One switching fabric of an OBS node (hybrid §II: a slow MEMS and a fast SOA fabric
/// may sit side by side in one node).
#[derive(Clone, Debug)]
pub struct Fabric {
    pub name: String,
    pub node: u32,
    /// Switch set-up time: the offset left when the burst arrives must cover it.
    pub setup: SimTime,
    /// BCP processing time δ at this fabric's node.
    pub bcp_processing: SimTime,
    /// JIT (reserve from BCP processing) instead of JET (from the burst's arrival).
    pub jit: bool,
    pub scheduler: SchedulerKind,
    pub conversion: bool,
}

/// One fibre direction as the wiring resolves it.
pub struct FibreParams {
    pub from: u32,
    pub to: u32,
    pub rate: BitRate,
    pub delay: SimTime,
    pub wavelengths: u32,
    /// Per-burst loss probability (`per_link` scope; 0 otherwise).
    pub loss: f64,
    pub spec_index: usize,
    /// Fabric (index into the core's fabric table) at the `from` and `to` ends.
    pub fabric_a: u32,
    pub fabric_b: u32,
    pub rng: RngStream,
}

#[derive(Clone, Copy, Debug, Default)]
struct FibreCounters {
    offered: u64,
    scheduled: u64,
    lost: LossCounts,
    bytes: u64,
    reserved_ps: u128,
    /// Bursts scheduled here with their head cut, and scheduled bursts whose tail was
    /// cut here (segmentation).
    head_cuts: u64,
    tail_cuts: u64,
    /// Bursts deflected onto this fibre (deflection routing).
    deflected: u64,
}

/// Per-wavelength counters (`obs_channels`), indexed by channel.
#[derive(Clone, Copy, Debug, Default)]
struct ChannelCounters {
    scheduled: u64,
    reserved_ps: u128,
    /// Bursts lost under wavelength continuity because this channel was busy.
    lost: u64,
    /// Bursts scheduled here after a fibre delay line.
    via_fdl: u64,
    /// Bursts scheduled here through a limited converter.
    converted: u64,
    /// Bursts scheduled here with their head cut (segmentation), and the bytes cut.
    segmented: u64,
    bytes_cut: u64,
    /// Scheduled bursts whose tail was cut here (tail-dropping), and the bytes cut.
    tail_cut: u64,
    tail_bytes_cut: u64,
}

struct Fibre {
    p: FibreParams,
    cs: ChannelSet,
    /// Parallel fibres (same ends, same fabrics), this one excluded, in index order.
    parallel: Vec<u32>,
    c: FibreCounters,
    ch: Vec<ChannelCounters>,
    /// Tail-dropping segmentation and preemption only: per channel, who holds each
    /// stored reservation (sorted by start, as the channel set's own list).
    owners: Vec<VecDeque<Owned>>,
}

/// A reservation `[start, end)` and the burst that holds it (tail-dropping
/// segmentation must find the burst whose tail it cuts).
#[derive(Clone, Copy, Debug)]
struct Owned {
    start: SimTime,
    end: SimTime,
    /// When the burst's head reaches this fibre's far end minus its delay: the time
    /// its byte 0 is (or would have been, before a head cut) sent on the fibre.
    origin: SimTime,
    slot: u32,
    serial: u64,
    priority: u32,
}

/// What the world applies to the burst in `slot` if it is still `serial`: it keeps
/// its first `keep` bytes (a tail cut), or, with `lost`, it was preempted on fibre
/// `fibre` and is lost at its next event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TailCut {
    pub slot: u32,
    pub serial: u64,
    pub keep: u64,
    pub lost: bool,
    pub fibre: u32,
}

/// How a reservation was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    Direct,
    /// Through a converter of a limited pool.
    Converter,
    /// After fibre delay line `0` (index into the node's lines).
    Fdl(usize, bool),
    /// With `0` more bytes cut from its head (segmentation).
    Segment(u64),
    /// After cutting the tail of the burst holding the overlapping reservation.
    TailCut,
    /// After taking a lower-priority burst's reservation (whole or its tail).
    Preempt,
    /// On a fibre of the node's deflection table instead of the burst's own.
    Deflect,
}

/// Deflection routing (`obs.contention.deflection`, docs/topics/contention.md).
///
/// At node `n` after the ingress, when the burst finds no wavelength on its output
/// fibre (and its parallels) and every other mechanism has failed, the neighbours `v`
/// of `n`'s table are tried in order (the burst's own next node skipped): each fibre
/// `n → v` that leaves through the fabric the burst arrived on, in fibre order, with a
/// direct reservation. The burst then continues from `v` on the shortest path (fewest
/// fibres, never back through `n`; lowest fibre index first on a tie) to its egress.
/// The alternative is taken only if the burst's remaining offset `a − t` covers the
/// new path's BCP processing and set-up ([`Core::min_safe_offset`] of it). All tables
/// are built once: no allocation per burst (the burst's path keeps its capacity).
#[derive(Default)]
struct Deflection {
    /// Deflections allowed per burst; 0 = off.
    max: u32,
    /// Node count (the stride of `tail`).
    nodes: usize,
    /// Per node: range into `alts`.
    by_node: Vec<(u32, u32)>,
    /// Per table entry: the neighbour and its range into `fibres`.
    alts: Vec<(u32, u32, u32)>,
    /// Fibres `n → v` of every entry, in fibre order.
    fibres: Vec<u32>,
    /// Per (entry of `fibres`, egress node): the rest of the path after that fibre
    /// (range into `paths`) and the offset it needs, or `None` if the egress cannot
    /// be reached.
    tail: Vec<Option<(u32, u32, SimTime)>>,
    paths: Vec<u32>,
    /// The longest path a deflection can make (the burst's path is pre-sized to it).
    max_len: usize,
}

/// Contention resolution state (`[obs.contention]`, docs/topics/contention.md).
///
/// Semantics follow nOBS's `OpSRAgent` (`nodetype_` 1–3): at a node after the
/// ingress, when the burst finds no wavelength, try (1) a free converter of the pool
/// with full conversion, then (2) each delay line in order with the node's own
/// conversion setting, then (3) each delay line with a converter. A delay line `D` is
/// free when its occupancy interval is free: `[a, a + D + L)` with capacity `one`,
/// `[a, a + L)` with `many` (nOBS `OpFDLSchedule::ScheduleBurst`); the output fibre is
/// then reserved `[a + D, a + D + L)` (JET) and the burst arrives `D` later at every
/// following node (its offset grows by `D`, the BCP is not delayed). A converter is
/// busy while the burst passes through it, `[a, a + L)` (after the line, `[a + D, a +
/// D + L)`).
#[derive(Default)]
struct Contention {
    fdl: Vec<SimTime>,
    fdl_one: bool,
    /// Delay lines, `node * fdl.len() + k`; each a one-channel set (void filling, so
    /// out-of-order JET requests are handled exactly).
    lines: Vec<ChannelSet>,
    converters: u32,
    per_fibre: bool,
    /// Converter pools, indexed by node (`node` scope) or fibre (`fibre` scope).
    pools: Vec<ChannelSet>,
    seg_head: bool,
    /// Tail-dropping segmentation: cut the scheduled burst's tail instead.
    seg_tail: bool,
    /// Priority preemption (`obs.contention.preemption`).
    preempt: Preemption,
    per_wavelength: bool,
    /// Tail cuts made by the last step, for the world to apply (pre-sized).
    cuts: Vec<TailCut>,
    /// The next burst departure's serial number.
    next_serial: u64,
}

/// Where a burst is on its path; owned by the burst, updated by the core.
#[derive(Clone, Debug, Default)]
pub struct BurstRoute {
    /// Fibres from the ingress to the egress; entry `i` is rewritten with the parallel
    /// fibre actually reserved.
    pub path: Vec<u32>,
    /// Offset time `T` between the BCP and the burst at the ingress.
    pub offset: SimTime,
    /// Next node on the path (`n_hop`) whose BCP processing is pending.
    pub hop: u32,
    /// Arrival time of the burst's head at node `n_hop`.
    pub arrive: SimTime,
    /// Wavelength used on the previous fibre.
    pub channel: u32,
    pub bytes: u64,
    pub has_data: bool,
    /// Bytes cut from the burst's head by segmentation (`obs.contention.segmentation`);
    /// the packets that start within them are lost at the egress.
    pub cut_bytes: u64,
    /// Tail-dropping segmentation: the burst keeps only its first `keep` bytes (the
    /// packets that end after them are lost at the egress); `u64::MAX` when uncut.
    pub keep: u64,
    /// The burst's slot in the world's pool (set by the world) and the serial number
    /// of its current departure (set by the core), naming it in a [`TailCut`].
    pub slot: u32,
    pub serial: u64,
    /// Priority of the burst's class (`obs.class[i].priority`, set by the world).
    pub priority: u32,
    /// Set (to the fibre) when a higher-priority burst took this burst's reservation.
    pub preempted: Option<u32>,
    /// Deflections so far on this departure (`obs.contention.max_deflections`).
    pub deflections: u32,
}

impl BurstRoute {
    /// The bytes the burst still occupies a wavelength for (its tail cut off).
    #[inline]
    fn kept(&self) -> u64 {
        self.bytes.min(self.keep)
    }

    /// The interval the burst asks a fibre of `rate` for, its BCP processed at `now`:
    /// from `now` under JIT, else from its arrival (after the head a segmentation cut
    /// off), to the end of what it still carries.
    #[inline]
    fn window(&self, rate: BitRate, jit: bool, now: SimTime) -> (SimTime, SimTime) {
        let end = self.arrive + burst_time(rate, self.kept());
        let start = if jit {
            now
        } else if self.cut_bytes > 0 {
            self.arrive + rate.tx_time(self.cut_bytes)
        } else {
            self.arrive
        };
        (start, end)
    }
}

/// The outcome of one BCP processing step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The burst is lost at this node, charged to fibre `1`.
    Lost(BurstLoss, u32),
    /// The BCP is processed at the next node at `0`.
    Bcp(SimTime),
    /// The burst's tail reaches the egress at `0`.
    Egress(SimTime),
}

/// Random burst loss settings (yu §III's independent loss `p`).
#[derive(Clone, Debug)]
pub struct LossModel {
    pub per_path: bool,
    pub applies_to_all: bool,
    pub path_p: f64,
    pub path_rng: RngStream,
}

/// All fibres and fabrics of the OBS network.
pub struct Core {
    fabrics: Vec<Fabric>,
    fibres: Vec<Fibre>,
    loss: LossModel,
    cont: Contention,
    defl: Deflection,
}

/// Transmission time of a burst of `bytes` at `rate` (at least 1 ps, so that even an
/// empty burst occupies its wavelength for a non-empty interval).
fn burst_time(rate: BitRate, bytes: u64) -> SimTime {
    rate.tx_time(bytes).max(SimTime(1))
}

impl Core {
    pub fn new(fabrics: Vec<Fabric>, fibres: Vec<FibreParams>, loss: LossModel) -> Core {
        let mut out: Vec<Fibre> = fibres
            .into_iter()
            .map(|p| {
                let sched = fabrics[p.fabric_a as usize].scheduler;
                Fibre {
                    cs: ChannelSet::new(p.wavelengths as usize, sched),
                    ch: vec![ChannelCounters::default(); p.wavelengths as usize],
                    p,
                    parallel: Vec::new(),
                    c: FibreCounters::default(),
                    owners: Vec::new(),
                }
            })
            .collect();
        for i in 0..out.len() {
            let key = |f: &Fibre| (f.p.from, f.p.to, f.p.fabric_a, f.p.fabric_b);
            let k = key(&out[i]);
            out[i].parallel = (0..out.len())
                .filter(|&j| j != i && key(&out[j]) == k)
                .map(|j| j as u32)
                .collect();
        }
        Core {
            fabrics,
            fibres: out,
            loss,
            cont: Contention::default(),
            defl: Deflection::default(),
        }
    }

    /// Installs `[obs.contention]` (fibre delay lines, converter pools, per-wavelength
    /// statistics). Without it the core behaves exactly as before.
    pub fn with_contention(mut self, c: &ResolvedContention) -> Core {
        let nodes = self
            .fibres
            .iter()
            .map(|f| f.p.from.max(f.p.to) as usize + 1)
            .max()
            .unwrap_or(0);
        let lines = nodes * c.fdl.len();
        let pools = if c.converters == 0 {
            0
        } else if c.converter_scope == ConverterScope::Fibre {
            self.fibres.len()
        } else {
            nodes
        };
        self.cont = Contention {
            fdl: c.fdl.clone(),
            fdl_one: c.fdl_capacity == FdlCapacity::One,
            lines: (0..lines)
                .map(|_| ChannelSet::new(1, SchedulerKind::LaucVf))
                .collect(),
            converters: c.converters,
            per_fibre: c.converter_scope == ConverterScope::Fibre,
            pools: (0..pools)
                .map(|_| ChannelSet::new(c.converters as usize, SchedulerKind::LaucVf))
                .collect(),
            seg_head: c.segmentation == Some(Segmentation::Head),
            seg_tail: c.segmentation == Some(Segmentation::Tail),
            preempt: c.preemption,
            per_wavelength: c.per_wavelength,
            cuts: Vec::with_capacity(16),
            next_serial: 0,
        };
        if self.cont.seg_tail || self.cont.preempt != Preemption::None {
            for f in &mut self.fibres {
                f.owners = (0..f.cs.k()).map(|_| VecDeque::with_capacity(16)).collect();
            }
        }
        if c.max_deflections > 0 {
            self.build_deflection(nodes, &c.deflection, c.max_deflections);
        }
        self
    }

    /// Builds the deflection tables ([`Deflection`]): for every fibre `n → v` of the
    /// table and every egress, the shortest continuation by breadth-first search over
    /// fibres (a fibre may follow another if it leaves the node the other reaches,
    /// through the fabric the other arrives on), never entering `n` again.
    fn build_deflection(&mut self, nodes: usize, table: &[(u32, Vec<u32>)], max: u32) {
        let mut d = Deflection {
            max,
            nodes,
            by_node: vec![(0, 0); nodes],
            ..Deflection::default()
        };
        let nf = self.fibres.len();
        let mut prev: Vec<u32> = vec![u32::MAX; nf];
        let mut queue: VecDeque<u32> = VecDeque::with_capacity(nf);
        let mut best: Vec<Option<u32>> = vec![None; nodes];
        let mut rev: Vec<u32> = Vec::new();
        for (n, via) in table {
            let lo = d.alts.len() as u32;
            for &v in via {
                let flo = d.fibres.len() as u32;
                for (g, f) in self.fibres.iter().enumerate() {
                    if f.p.from != *n || f.p.to != v {
                        continue;
                    }
                    d.fibres.push(g as u32);
                    // Breadth-first search from `g`: `best[e]` is the first fibre
                    // found that reaches `e`.
                    prev.fill(u32::MAX);
                    best.fill(None);
                    queue.clear();
                    queue.push_back(g as u32);
                    prev[g] = g as u32;
                    best[v as usize] = Some(g as u32);
                    while let Some(x) = queue.pop_front() {
                        let fx = &self.fibres[x as usize].p;
                        for (h, fh) in self.fibres.iter().enumerate() {
                            let ph = &fh.p;
                            if ph.from != fx.to
                                || ph.fabric_a != fx.fabric_b
                                || ph.to == *n
                                || prev[h] != u32::MAX
                            {
                                continue;
                            }
                            prev[h] = x;
                            if best[ph.to as usize].is_none() {
                                best[ph.to as usize] = Some(h as u32);
                            }
                            queue.push_back(h as u32);
                        }
                    }
                    for reach in &best {
                        let entry = reach.and_then(|last| {
                            rev.clear();
                            let mut x = last;
                            while x != g as u32 {
                                rev.push(x);
                                x = prev[x as usize];
                            }
                            let start = d.paths.len() as u32;
                            d.paths.extend(rev.iter().rev());
                            let len = rev.len() as u32;
                            let mut whole = Vec::with_capacity(rev.len() + 1);
                            whole.push(g as u32);
                            whole.extend(rev.iter().rev());
                            let need = self.min_safe_offset(&whole)?;
                            Some((start, len, need))
                        });
                        d.tail.push(entry);
                    }
                }
                d.alts.push((v, flo, d.fibres.len() as u32));
            }
            d.by_node[*n as usize] = (lo, d.alts.len() as u32);
        }
        // A path grows by at most the longest continuation plus one fibre per
        // deflection.
        let longest = d.tail.iter().flatten().map(|t| t.1 as usize + 1).max();
        d.max_len = longest.unwrap_or(0).saturating_mul(max as usize);
        self.defl = d;
    }

    /// The fabric that processes a burst arriving on fibre `f` (its `to` end).
    fn fabric_in(&self, f: u32) -> &Fabric {
        &self.fabrics[self.fibres[f as usize].p.fabric_b as usize]
    }

    /// Base offset of a path: Σ δ + max set-up over the nodes after the ingress
    /// (parallel fibres share fabrics, so the choice among them does not change it).
    pub fn base_offset(&self, path: &[u32]) -> Option<SimTime> {
        let mut sum = SimTime::ZERO;
        let mut setup = SimTime::ZERO;
        for &f in path {
            let fab = self.fabric_in(f);
            sum = sum.checked_add(fab.bcp_processing)?;
            setup = setup.max(fab.setup);
        }
        sum.checked_add(setup)
    }

    /// The shortest offset with which no node on `path` loses the burst to its set-up
    /// check: `max_i (Σ_{j≤i} δ_j + s_i)` over the nodes after the ingress (the
    /// timeline above: `a_i ≥ t_i + s_i` ⇔ `T ≥ Σ_{j≤i} δ_j + s_i`). Never above
    /// [`Core::base_offset`].
    pub fn min_safe_offset(&self, path: &[u32]) -> Option<SimTime> {
        let mut sum = SimTime::ZERO;
        let mut need = SimTime::ZERO;
        for &f in path {
            let fab = self.fabric_in(f);
            sum = sum.checked_add(fab.bcp_processing)?;
            need = need.max(sum.checked_add(fab.setup)?);
        }
        Some(need)
    }

    /// Reserves path fibre `i` (or a parallel one) for `r` at BCP-processing time `now`:
    /// first directly on the fibre and its parallels (first fit), then, at a node after
    /// the ingress, by contention resolution ([`Contention`]) in the same fibre order.
    fn reserve(&mut self, now: SimTime, r: &mut BurstRoute, i: usize) -> Result<(), Step> {
        let first = r.path[i];
        let fab = &self.fabrics[self.fibres[first as usize].p.fabric_a as usize];
        let (jit, conversion) = (fab.jit, fab.conversion);
        let n_alt = self.fibres[first as usize].parallel.len();
        let free_choice = conversion || i == 0;
        let nth = |core: &Core, k: usize| {
            if k == 0 {
                first
            } else {
                core.fibres[first as usize].parallel[k - 1]
            }
        };
        for k in 0..=n_alt {
            let fi = nth(self, k);
            let f = &mut self.fibres[fi as usize];
            let (start, end) = r.window(f.p.rate, jit, now);
            f.cs.release_before(now);
            if let Some(c) = Self::try_on(f, free_choice, r.channel, start, end) {
                return self.commit(i, fi, c, start, end, r, Via::Direct);
            }
        }
        let cont = &self.cont;
        if i > 0
            && (!cont.fdl.is_empty()
                || cont.converters > 0
                || cont.seg_head
                || cont.seg_tail
                || cont.preempt != Preemption::None)
        {
            for k in 0..=n_alt {
                let fi = nth(self, k);
                if let Some((c, start, end, via)) = self.resolve(now, r, fi, jit, free_choice) {
                    return self.commit(i, fi, c, start, end, r, via);
                }
            }
        }
        let fi = nth(self, n_alt);
        if i > 0 && r.deflections < self.defl.max {
            match self.deflect(now, r, i, jit, free_choice) {
                Some(Ok(taken)) => return taken,
                Some(Err(why)) => {
                    let f = &mut self.fibres[fi as usize];
                    f.c.offered += 1;
                    f.c.lost[why] += 1;
                    return Err(Step::Lost(why, fi));
                }
                None => {}
            }
        }
        let f = &mut self.fibres[fi as usize];
        f.c.offered += 1;
        let why = if free_choice {
            BurstLoss::Contention
        } else {
            if let Some(ch) = f.ch.get_mut(r.channel as usize) {
                ch.lost += 1;
            }
            BurstLoss::NoWavelength
        };
        f.c.lost[why] += 1;
        Err(Step::Lost(why, fi))
    }

    /// Deflection routing at node `n_i` (see [`Deflection`]) after path fibre `i` and
    /// its parallels had no wavelength: `Some(Ok(_))` when the burst was deflected
    /// (the commit's outcome; `r.path` from `i` on is the deflected path),
    /// `Some(Err(why))` when the node's table had alternatives but none could take the
    /// burst (`deflection_offset` if every one was too long for its remaining offset),
    /// `None` when it had none (no entry, or only the burst's own next node).
    fn deflect(
        &mut self,
        now: SimTime,
        r: &mut BurstRoute,
        i: usize,
        jit: bool,
        free_choice: bool,
    ) -> Option<Result<Result<(), Step>, BurstLoss>> {
        let first = &self.fibres[r.path[i] as usize].p;
        let (n, next) = (first.from, first.to);
        let egress = self.fibres[*r.path.last()? as usize].p.to as usize;
        let in_fab = self.fibres[r.path[i - 1] as usize].p.fabric_b;
        let (lo, hi) = *self.defl.by_node.get(n as usize)?;
        // The offset left at this node: the burst's head arrives `left` after now.
        let left = r.arrive.saturating_sub(now);
        let (mut tried, mut short) = (false, false);
        for a in lo..hi {
            let (v, flo, fhi) = self.defl.alts[a as usize];
            if v == next {
                continue;
            }
            for k in flo..fhi {
                let g = self.defl.fibres[k as usize];
                if self.fibres[g as usize].p.fabric_a != in_fab {
                    continue;
                }
                let Some((ps, pl, need)) = self.defl.tail[k as usize * self.defl.nodes + egress]
                else {
                    continue;
                };
                if left < need {
                    short = true;
                    continue;
                }
                tried = true;
                let f = &mut self.fibres[g as usize];
                let (start, end) = r.window(f.p.rate, jit, now);
                f.cs.release_before(now);
                if let Some(c) = Self::try_on(f, free_choice, r.channel, start, end) {
                    f.c.deflected += 1;
                    r.path.truncate(i);
                    r.path.push(g);
                    r.path
                        .extend_from_slice(&self.defl.paths[ps as usize..(ps + pl) as usize]);
                    r.deflections += 1;
                    return Some(Ok(self.commit(i, g, c, start, end, r, Via::Deflect)));
                }
            }
        }
        if tried {
            Some(Err(BurstLoss::DeflectionFailed))
        } else if short {
            Some(Err(BurstLoss::DeflectionOffset))
        } else {
            None
        }
    }

    /// A direct reservation on `f`: any channel by the policy (`free_choice`) or only
    /// `channel` (wavelength continuity).
    #[inline]
    fn try_on(
        f: &mut Fibre,
        free_choice: bool,
        channel: u32,
        start: SimTime,
        end: SimTime,
    ) -> Option<u32> {
        if free_choice {
            f.cs.reserve(start, end).map(|c| c as u32)
        } else if (channel as usize) < f.cs.k() && f.cs.reserve_on(channel as usize, start, end) {
            Some(channel)
        } else {
            None
        }
    }

    /// Contention resolution on fibre `fi` (see [`Contention`] for the order and the
    /// intervals): the channel, the reserved interval and how, or `None`.
    fn resolve(
        &mut self,
        now: SimTime,
        r: &BurstRoute,
        fi: u32,
        jit: bool,
        free_choice: bool,
    ) -> Option<(u32, SimTime, SimTime, Via)> {
        let node = self.fibres[fi as usize].p.from as usize;
        let len = burst_time(self.fibres[fi as usize].p.rate, r.kept());
        let a = r.arrive;
        let Core { fibres, cont, .. } = self;
        let f = &mut fibres[fi as usize];
        let pool_ix = if cont.per_fibre { fi as usize } else { node };
        let use_conv = cont.converters > 0 && !free_choice;
        // (1) a converter, no delay.
        if use_conv {
            let pool = &mut cont.pools[pool_ix];
            pool.release_before(now);
            if pool.choose(a, a + len).is_some() {
                let start = if jit { now } else { a };
                if let Some(c) = f.cs.reserve(start, a + len) {
                    pool.reserve(a, a + len);
                    return Some((c as u32, start, a + len, Via::Converter));
                }
            }
        }
        // (2) each delay line with the node's own conversion; (3) each with a converter.
        let n = cont.fdl.len();
        for with_conv in [false, true] {
            if with_conv && !use_conv {
                break;
            }
            for k in 0..n {
                let d = cont.fdl[k];
                let line = &mut cont.lines[node * n + k];
                line.release_before(now);
                let occ_end = if cont.fdl_one { a + d + len } else { a + len };
                if line.choose(a, occ_end).is_none() {
                    continue;
                }
                let (s2, e2) = (a + d, a + d + len);
                let start = if jit { now } else { s2 };
                let got = if with_conv {
                    let pool = &mut cont.pools[pool_ix];
                    pool.release_before(now);
                    if pool.choose(s2, e2).is_none() {
                        continue;
                    }
                    let c = f.cs.reserve(start, e2);
                    if c.is_some() {
                        pool.reserve(s2, e2);
                    }
                    c.map(|c| c as u32)
                } else {
                    Self::try_on(f, free_choice, r.channel, start, e2)
                };
                if let Some(c) = got {
                    line.reserve(a, occ_end);
                    return Some((c, start, e2, Via::Fdl(k, with_conv)));
                }
            }
        }
        // (4) segmentation, head-dropping (JET only): keep the tail `[t*, end)` that a
        // channel can take, the head before `t*` is dropped.
        if cont.seg_head && !jit {
            let rate = f.p.rate;
            let s0 = a + rate.tx_time(r.cut_bytes);
            let end = a + len;
            if s0 < end {
                // (`len` is the whole burst: a head cut never follows a tail cut, as
                // one run uses one mode.)
                let want = if free_choice {
                    None
                } else {
                    Some(r.channel as usize)
                };
                if let Some((c, t)) = f.cs.head_cut(s0, end, want) {
                    // Bytes whose transmission starts before t* (whole picoseconds,
                    // rounded up: a byte partly cut is lost).
                    let cut =
                        ((t - s0).0 as u128 * rate.bps() as u128).div_ceil(8 * 1_000_000_000_000);
                    let total = r.cut_bytes + cut as u64;
                    if total < r.bytes && f.cs.reserve_on(c, t, end) {
                        return Some((c as u32, t, end, Via::Segment(cut as u64)));
                    }
                }
            }
        }
        // (4') segmentation, tail-dropping (JET only): the burst holding the reservation
        // that overlaps `a` loses its tail from `a` on; this burst passes whole.
        if cont.seg_tail && !jit {
            let want = (!free_choice).then_some(r.channel as usize);
            if let Some((c, i)) = Self::tail_victim(f, a, a + len, want) {
                let o = f.owners[c][i];
                f.cs.set_end(c, o.start, a);
                if f.cs.reserve_on(c, a, a + len) {
                    let rate = f.p.rate;
                    // Bytes sent whole before `a` on this fibre (a byte partly cut is lost).
                    let sent = a.0.saturating_sub(o.origin.0) as u128;
                    let keep = (sent * rate.bps() as u128) / (8 * 1_000_000_000_000);
                    let cut_ps = (o.end - a).0 as u128;
                    f.owners[c][i].end = a;
                    let ch = &mut f.ch[c];
                    // The cut part is no longer reserved (saturating: the reservation
                    // may predate the end of warm-up, when the counters were zeroed).
                    ch.reserved_ps = ch.reserved_ps.saturating_sub(cut_ps);
                    f.c.reserved_ps = f.c.reserved_ps.saturating_sub(cut_ps);
                    ch.tail_cut += 1;
                    ch.tail_bytes_cut +=
                        (cut_ps * rate.bps() as u128).div_ceil(8 * 1_000_000_000_000) as u64;
                    f.c.tail_cuts += 1;
                    cont.cuts.push(TailCut {
                        slot: o.slot,
                        serial: o.serial,
                        keep: keep as u64,
                        lost: false,
                        fibre: fi,
                    });
                    return Some((c as u32, a, a + len, Via::TailCut));
                }
                // The owners table mirrors the channel set, so this cannot happen; if it
                // did, the reservation is restored and the burst is lost as before.
                f.cs.set_end(c, o.start, o.end);
            }
        }
        // (5) preemption (after every other attempt): take the one reservation the burst
        // overlaps from a burst of a lower priority, whole (`full`) or from `a` on
        // (`segment`, when it started before `a`).
        if cont.preempt != Preemption::None && !jit {
            let want = (!free_choice).then_some(r.channel as usize);
            if let Some((c, i)) = Self::preempt_victim(f, a, a + len, want, r.priority) {
                let o = f.owners[c][i];
                let seg = cont.preempt == Preemption::Segment && o.start < a;
                if seg {
                    f.cs.set_end(c, o.start, a);
                } else {
                    f.cs.remove(c, o.start);
                }
                if f.cs.reserve_on(c, a, a + len) {
                    let rate = f.p.rate;
                    let cut_from = if seg { a } else { o.start };
                    let cut_ps = (o.end - cut_from).0 as u128;
                    let ch = &mut f.ch[c];
                    ch.reserved_ps = ch.reserved_ps.saturating_sub(cut_ps);
                    f.c.reserved_ps = f.c.reserved_ps.saturating_sub(cut_ps);
                    let keep = if seg {
                        f.owners[c][i].end = a;
                        ch.tail_cut += 1;
                        ch.tail_bytes_cut +=
                            (cut_ps * rate.bps() as u128).div_ceil(8 * 1_000_000_000_000) as u64;
                        f.c.tail_cuts += 1;
                        let sent = a.0.saturating_sub(o.origin.0) as u128;
                        ((sent * rate.bps() as u128) / (8 * 1_000_000_000_000)) as u64
                    } else {
                        f.owners[c].remove(i);
                        f.c.lost[BurstLoss::Preempted] += 1;
                        0
                    };
                    cont.cuts.push(TailCut {
                        slot: o.slot,
                        serial: o.serial,
                        keep,
                        lost: !seg,
                        fibre: fi,
                    });
                    return Some((c as u32, a, a + len, Via::Preempt));
                }
                // Unreachable while the owners table mirrors the channel set.
                if seg {
                    f.cs.set_end(c, o.start, o.end);
                } else {
                    assert!(f.cs.reserve_on(c, o.start, o.end));
                }
            }
        }
        None
    }

    /// The channels a victim may be sought on: `want` alone when given (none when it is
    /// out of range), else every channel of the fibre.
    fn victim_channels(f: &Fibre, want: Option<usize>) -> Option<std::ops::Range<usize>> {
        match want {
            Some(c) if c < f.cs.k() => Some(c..c + 1),
            Some(_) => None,
            None => Some(0..f.cs.k()),
        }
    }

    /// Preemption: the channel (any, or `want`) on which exactly one stored reservation
    /// overlaps `[s, e)`, held by a burst of priority below `prio`, such that without
    /// it the fibre's policy can take `[s, e)` (LAUC-VF: always; FFUC and LAUC: if it is
    /// the channel's last reservation). The lowest such priority wins, then the lowest
    /// channel; the channel and the reservation's index in `owners`.
    fn preempt_victim(
        f: &Fibre,
        s: SimTime,
        e: SimTime,
        want: Option<usize>,
        prio: u32,
    ) -> Option<(usize, usize)> {
        let voids = f.cs.kind().fills_voids();
        let range = Self::victim_channels(f, want)?;
        let mut best: Option<(usize, usize, u32)> = None;
        for c in range {
            let own = &f.owners[c];
            let i = own.partition_point(|o| o.end <= s);
            let Some(o) = own.get(i) else { continue };
            if o.start >= e || o.priority >= prio {
                continue;
            }
            let ok = match own.get(i + 1) {
                None => true,
                Some(n) => voids && n.start >= e,
            };
            if ok && best.is_none_or(|(_, _, p)| o.priority < p) {
                best = Some((c, i, o.priority));
            }
        }
        best.map(|(c, i, _)| (c, i))
    }

    /// Tail-dropping: the channel (any, or `want`) on which cutting the reservation
    /// that contains `s` (it starts before `s`, ends after it) back to `[start, s)`
    /// lets `[s, e)` be reserved by the fibre's policy, with the shortest cut (ties:
    /// lowest channel); the channel and the reservation's index in `owners`.
    fn tail_victim(
        f: &Fibre,
        s: SimTime,
        e: SimTime,
        want: Option<usize>,
    ) -> Option<(usize, usize)> {
        let voids = f.cs.kind().fills_voids();
        let range = Self::victim_channels(f, want)?;
        let mut best: Option<(usize, usize, SimTime)> = None;
        for c in range {
            let own = &f.owners[c];
            let i = own.partition_point(|o| o.end <= s);
            let Some(o) = own.get(i) else { continue };
            if o.start >= s {
                continue;
            }
            // After the cut the next reservation bounds the gap from `s`: LAUC-VF may
            // use it if `[s, e)` fits, FFUC and LAUC only if there is none.
            let ok = match own.get(i + 1) {
                None => true,
                Some(n) => voids && n.start >= e,
            };
            if ok && best.is_none_or(|(_, _, cut)| o.end < cut) {
                best = Some((c, i, o.end));
            }
        }
        best.map(|(c, i, _)| (c, i))
    }

    /// Books a successful reservation of channel `c` on fibre `fi` and applies the
    /// per-link random loss.
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &mut self,
        i: usize,
        fi: u32,
        c: u32,
        start: SimTime,
        end: SimTime,
        r: &mut BurstRoute,
        via: Via,
    ) -> Result<(), Step> {
        let loss_all = self.loss.applies_to_all;
        let d = match via {
            Via::Fdl(k, _) => self.cont.fdl[k],
            _ => SimTime::ZERO,
        };
        let f = &mut self.fibres[fi as usize];
        f.c.offered += 1;
        f.c.scheduled += 1;
        f.c.bytes += r.bytes;
        f.c.reserved_ps += (end - start).0 as u128;
        let ch = &mut f.ch[c as usize];
        ch.scheduled += 1;
        ch.reserved_ps += (end - start).0 as u128;
        match via {
            Via::Direct => {}
            Via::Converter => ch.converted += 1,
            Via::Fdl(_, conv) => {
                ch.via_fdl += 1;
                ch.converted += conv as u64;
            }
            Via::Segment(cut) => {
                ch.segmented += 1;
                ch.bytes_cut += cut;
                r.cut_bytes += cut;
                f.c.head_cuts += 1;
            }
            Via::TailCut | Via::Preempt | Via::Deflect => {}
        }
        r.path[i] = fi;
        // The burst leaves this node `d` later (fibre delay line); so it arrives later
        // everywhere downstream.
        r.arrive += d;
        if !f.owners.is_empty() {
            Self::own(f, c, start, end, r);
        }
        if f.p.loss > 0.0 && (r.has_data || loss_all) && f.p.rng.bernoulli(f.p.loss) {
            f.c.lost[BurstLoss::Random] += 1;
            return Err(Step::Lost(BurstLoss::Random, fi));
        }
        r.channel = c;
        Ok(())
    }

    /// Records that `r` holds `[start, end)` on channel `c` of `f` (tail-dropping), and
    /// forgets the entries the channel set has forgotten.
    fn own(f: &mut Fibre, c: u32, start: SimTime, end: SimTime, r: &BurstRoute) {
        let own = &mut f.owners[c as usize];
        let floor = own.partition_point(|o| o.end <= f.cs.released_to());
        own.drain(..floor);
        let at = own.partition_point(|o| o.start < start);
        own.insert(
            at,
            Owned {
                start,
                end,
                origin: r.arrive,
                slot: r.slot,
                serial: r.serial,
                priority: r.priority,
            },
        );
    }

    /// The tail cuts made since the last call, for the world to apply
    /// ([`BurstRoute::keep`]); the list is emptied by the caller.
    pub fn tail_cuts(&mut self) -> &mut Vec<TailCut> {
        &mut self.cont.cuts
    }

    /// Moves `r` from node `n_hop` onto fibre `path[hop]` (reserved): the next BCP time.
    fn advance(&self, now: SimTime, r: &mut BurstRoute) -> SimTime {
        let f = r.path[r.hop as usize];
        let d = self.fibres[f as usize].p.delay;
        let delta = self.fabric_in(f).bcp_processing;
        r.hop += 1;
        r.arrive += d;
        now + d + delta
    }

    /// The ingress emits the burst at `now` with `r.offset`: it reserves the first fibre
    /// at once (no BCP processing there) and sends the BCP.
    pub fn depart(&mut self, now: SimTime, r: &mut BurstRoute) -> Step {
        r.hop = 0;
        r.arrive = now + r.offset;
        r.channel = 0;
        r.cut_bytes = 0;
        r.keep = u64::MAX;
        r.preempted = None;
        r.deflections = 0;
        if self.defl.max > 0 {
            // A deflection rewrites the path: room for the longest, once per slot.
            r.path.reserve(self.defl.max_len);
        }
        r.serial = self.cont.next_serial;
        self.cont.next_serial += 1;
        if let Err(s) = self.reserve(now, r, 0) {
            return s;
        }
        Step::Bcp(self.advance(now, r))
    }

    /// The BCP of `r` has been processed at node `n_hop` at `now`.
    pub fn bcp(&mut self, now: SimTime, r: &mut BurstRoute) -> Step {
        let hop = r.hop as usize;
        let incoming = r.path[hop - 1];
        let setup = self.fabric_in(incoming).setup;
        if r.arrive < now + setup {
            self.fibres[incoming as usize].c.lost[BurstLoss::OffsetTooShort] += 1;
            return Step::Lost(BurstLoss::OffsetTooShort, incoming);
        }
        if hop == r.path.len() {
            // Egress.
            if self.loss.per_path
                && (r.has_data || self.loss.applies_to_all)
                && self.loss.path_rng.bernoulli(self.loss.path_p)
            {
                self.fibres[incoming as usize].c.lost[BurstLoss::Random] += 1;
                return Step::Lost(BurstLoss::Random, incoming);
            }
            let f = &self.fibres[incoming as usize];
            return Step::Egress(r.arrive + burst_time(f.p.rate, r.kept()));
        }
        if let Err(s) = self.reserve(now, r, hop) {
            return s;
        }
        Step::Bcp(self.advance(now, r))
    }

    /// Zeroes the statistics at the end of warm-up.
    pub fn warmup(&mut self) {
        for f in &mut self.fibres {
            f.c = FibreCounters::default();
            f.ch.fill(ChannelCounters::default());
        }
    }

    /// Reservations currently stored over all fibres (memory check).
    pub fn stored_reservations(&self) -> usize {
        self.fibres.iter().map(|f| f.cs.stored()).sum()
    }

    /// The `obs_links` rows; utilisation is reserved time over `span_s` × wavelengths.
    pub fn rows(&self, names: &[String], span_s: f64) -> Vec<ObsLinkRow> {
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { f64::NAN };
        self.fibres
            .iter()
            .enumerate()
            .map(|(i, f)| ObsLinkRow {
                fibre: i as u32,
                spec_index: f.p.spec_index as u32,
                from: names[f.p.from as usize].clone(),
                to: names[f.p.to as usize].clone(),
                wavelengths: f.cs.k() as u32,
                rate_bps: f.p.rate.bps(),
                delay_s: f.p.delay.as_secs_f64(),
                bursts_offered: f.c.offered,
                bursts_scheduled: f.c.scheduled,
                lost_contention: f.c.lost[BurstLoss::Contention],
                lost_no_wavelength: f.c.lost[BurstLoss::NoWavelength],
                lost_offset_too_short: f.c.lost[BurstLoss::OffsetTooShort],
                lost_random: f.c.lost[BurstLoss::Random],
                lost_control: f.c.lost[BurstLoss::Control],
                lost_preempted: f.c.lost[BurstLoss::Preempted],
                bursts_head_cut: f.c.head_cuts,
                bursts_tail_cut: f.c.tail_cuts,
                lost_deflection_failed: f.c.lost[BurstLoss::DeflectionFailed],
                lost_deflection_offset: f.c.lost[BurstLoss::DeflectionOffset],
                bursts_deflected: f.c.deflected,
                loss_prob: ratio(f.c.lost.total(), f.c.offered),
                utilisation: if span_s > 0.0 {
                    f.c.reserved_ps as f64 / 1e12 / (span_s * f.cs.k() as f64)
                } else {
                    f64::NAN
                },
                mean_burst_bytes: ratio(f.c.bytes, f.c.scheduled),
            })
            .collect()
    }

    /// The `obs_channels` rows (only with `obs.contention.per_wavelength`): one per
    /// fibre direction and wavelength.
    pub fn channel_rows(&self, names: &[String], span_s: f64) -> Vec<ObsChannelRow> {
        if !self.cont.per_wavelength {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (i, f) in self.fibres.iter().enumerate() {
            for (c, ch) in f.ch.iter().enumerate() {
                let busy_s = ch.reserved_ps as f64 / 1e12;
                out.push(ObsChannelRow {
                    fibre: i as u32,
                    from: names[f.p.from as usize].clone(),
                    to: names[f.p.to as usize].clone(),
                    channel: c as u32,
                    bursts_scheduled: ch.scheduled,
                    busy_s,
                    utilisation: if span_s > 0.0 {
                        busy_s / span_s
                    } else {
                        f64::NAN
                    },
                    bursts_lost_no_wavelength: ch.lost,
                    bursts_via_fdl: ch.via_fdl,
                    bursts_converted: ch.converted,
                    bursts_segmented: ch.segmented,
                    bytes_cut: ch.bytes_cut,
                    bursts_tail_cut: ch.tail_cut,
                    tail_bytes_cut: ch.tail_bytes_cut,
                });
            }
        }
        out
    }
}

// ------------------------------------------------------------------------------------
// Ingress electronic buffer (`obs.ingress`, docs/topics/control-plane.md): the delayed
// first reservation. A block of its own, beside the bufferless path above.

impl Core {
    /// The earliest BCP time `t` in `[from, latest]` at which the first fibre of `r`
    /// (or a parallel one, first fit on ties) has a wavelength for the burst: JET
    /// `[t + T, t + T + L)`, JIT `[t, t + T + L)`. The candidates are `from` and every
    /// time a stored reservation or a channel's horizon ends (a gap can only open
    /// there), as nOBS's delayed-reservation search at the first link
    /// (`optical/op-schedule.cc`) tries the ends of the reservations. Reserves nothing.
    pub fn ingress_earliest(
        &mut self,
        now: SimTime,
        from: SimTime,
        latest: SimTime,
        r: &BurstRoute,
    ) -> Option<(SimTime, u32)> {
        let first = r.path[0];
        let mut best: Option<(SimTime, u32)> = None;
        let n_alt = self.fibres[first as usize].parallel.len();
        for k in 0..=n_alt {
            let fi = if k == 0 {
                first
            } else {
                self.fibres[first as usize].parallel[k - 1]
            };
            // Forget what ended by now, as the bufferless ingress does (memory bound).
            self.fibres[fi as usize].cs.release_before(now);
            let f = &self.fibres[fi as usize];
            let jit = self.fabrics[f.p.fabric_a as usize].jit;
            let len = burst_time(f.p.rate, r.bytes);
            // BCP time `t` -> the reservation it asks for.
            let window = |t: SimTime| {
                let arrive = t.checked_add(r.offset)?;
                let end = arrive.checked_add(len)?;
                Some((if jit { t } else { arrive }, end))
            };
            // The BCP time at which a reservation would start at `s`.
            let bcp_for = |s: SimTime| {
                if jit {
                    s
                } else {
                    SimTime(s.0.saturating_sub(r.offset.0))
                }
            };
            let feasible = |t: SimTime| match window(t) {
                Some((s, e)) => f.cs.choose(s, e).is_some(),
                None => false,
            };
            let mut consider = |t: SimTime| {
                let t = t.max(from);
                if t <= latest && best.is_none_or(|(b, _)| t < b) && feasible(t) {
                    best = Some((t, fi));
                }
            };
            consider(from);
            for c in 0..f.cs.k() {
                consider(bcp_for(f.cs.horizon(c)));
                for res in f.cs.reservations(c) {
                    consider(bcp_for(res.end));
                }
            }
        }
        best
    }

    /// Launches `r` from the ingress with its BCP at `t` on fibre `fi`, both found by
    /// [`Core::ingress_earliest`] at `now ≤ t` (the burst waits electronically for
    /// `t − now`): reserves, counts and draws the per-link loss as the bufferless
    /// ingress does, and returns the next BCP step.
    pub fn depart_at(&mut self, t: SimTime, fi: u32, r: &mut BurstRoute) -> Step {
        r.hop = 0;
        r.arrive = t + r.offset;
        r.cut_bytes = 0;
        r.keep = u64::MAX;
        r.preempted = None;
        r.deflections = 0;
        if self.defl.max > 0 {
            r.path.reserve(self.defl.max_len);
        }
        r.serial = self.cont.next_serial;
        self.cont.next_serial += 1;
        let loss_all = self.loss.applies_to_all;
        let jit = self.fabrics[self.fibres[fi as usize].p.fabric_a as usize].jit;
        let f = &mut self.fibres[fi as usize];
        let end = r.arrive + burst_time(f.p.rate, r.bytes);
        let start = if jit { t } else { r.arrive };
        let c =
            f.cs.reserve(start, end)
                .expect("ingress_earliest found this reservation feasible");
        f.c.offered += 1;
        f.c.scheduled += 1;
        f.c.bytes += r.bytes;
        f.c.reserved_ps += (end - start).0 as u128;
        r.path[0] = fi;
        if !f.owners.is_empty() {
            Self::own(f, c as u32, start, end, r);
        }
        if f.p.loss > 0.0 && (r.has_data || loss_all) && f.p.rng.bernoulli(f.p.loss) {
            f.c.lost[BurstLoss::Random] += 1;
            return Step::Lost(BurstLoss::Random, fi);
        }
        r.channel = c as u32;
        Step::Bcp(self.advance(t, r))
    }

    /// A burst the ingress buffer cannot hold (full, or no wavelength within
    /// `obs.ingress.max_wait`) is lost to contention on its first fibre.
    pub fn ingress_refused(&mut self, r: &BurstRoute) -> Step {
        let f = &mut self.fibres[r.path[0] as usize];
        f.c.offered += 1;
        f.c.lost[BurstLoss::Contention] += 1;
        Step::Lost(BurstLoss::Contention, r.path[0])
    }
}

// ------------------------------------------------------------------------------------
// Control channel (`obs.control`, docs/topics/control-plane.md).

impl Core {
    /// The BCP of `r`, bound for node `n_hop`, was lost on the fibre it crossed last:
    /// charges that fibre (the wavelength reserved on it stays reserved, as nOBS's
    /// dropped control packet leaves its upstream reservations).
    pub fn control_lost(&mut self, r: &BurstRoute) -> Step {
        let f = r.path[r.hop as usize - 1];
        self.fibres[f as usize].c.lost[BurstLoss::Control] += 1;
        Step::Lost(BurstLoss::Control, f)
    }
}

// ------------------------------------------------------------------------------------
// Burst retransmission (`obs.retransmit`, docs/topics/control-plane.md).

impl Core {
    /// How long a NACK from node `n_hop` (where `r` was lost) takes back to the
    /// ingress on the control channel: the delays of the fibres `path[0..hop]` and the
    /// BCP processing δ at each node it crosses on the way (`n_1 … n_(hop−1)`).
    pub fn nack_delay(&self, r: &BurstRoute) -> SimTime {
        let hop = r.hop as usize;
        let mut t = SimTime::ZERO;
        for (j, &f) in r.path[..hop].iter().enumerate() {
            t += self.fibres[f as usize].p.delay;
            if j + 1 < hop {
                t += self.fabric_in(f).bcp_processing;
            }
        }
        t
    }
}

impl Core {
    /// Fibre `f`'s delay, the BCP processing δ at its far node, and that node.
    pub fn hop_info(&self, f: u32) -> (SimTime, SimTime, u32) {
        let p = &self.fibres[f as usize].p;
        (p.delay, self.fabric_in(f).bcp_processing, p.to)
    }
}
