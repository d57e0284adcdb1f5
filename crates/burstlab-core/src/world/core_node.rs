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
//!   wavelength on any parallel fibre → contention resolution (`contention/`, when
//!   `[obs.contention]` sets it), else `contention` / `no_wavelength` (charged to the
//!   last fibre tried).
//! - the control channel: this timeline is a BCP's when it takes no time on the
//!   channel (the default). With `obs.control.rate` the world serialises each BCP on
//!   its fibre's control wavelength and queues it at each node (`control.rs`), so
//!   `t_i` is later by its waits and serialisation times; the checks above are made at
//!   the `t_i` the BCP actually reaches.
//! - the egress checks its set-up like a core node; the burst's tail arrives at
//!   `a_h + L/R_(h−1)`, when it is disassembled.
//! - random loss: `per_link` — after a successful reservation of `f_i` the burst is lost
//!   with that fibre's `p`; `per_path` — once, at the egress, with `obs.loss.p`. Either
//!   applies to bursts with data only (`applies_to = "data"`) or to all bursts.
//!   A burst lost anywhere stops there; wavelengths reserved upstream stay reserved.

use super::contention::{
    converter, deflection, fdl, preemption, segmentation, Contention, Cx, Grant, Outcome, TailCut,
    Via,
};
use super::fibre::{burst_time, Fibre};
use crate::obs::SchedulerKind;
use crate::rng::RngStream;
use crate::scenario::ResolvedContention;
use crate::stats::{BurstLoss, ObsChannelRow, ObsLinkRow};
use crate::units::SimTime;

pub use super::fibre::FibreParams;
pub use super::route::BurstRoute;

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
    /// The contention stages (`contention/`; all off by default).
    cont: Contention,
}

/// Fibre `k` of the first-fit order for path fibre `first`: itself, then its parallels.
#[inline]
fn nth(fibres: &[Fibre], first: u32, k: usize) -> u32 {
    if k == 0 {
        first
    } else {
        fibres[first as usize].parallel[k - 1]
    }
}

/// The fabric that processes a burst arriving on fibre `f` (its `to` end).
#[inline]
fn fabric_in<'a>(fabrics: &'a [Fabric], fibres: &[Fibre], f: u32) -> &'a Fabric {
    &fabrics[fibres[f as usize].p.fabric_b as usize]
}

/// [`Core::min_safe_offset`] over the given tables (the deflection tables are built
/// with it before the core holds them).
fn min_safe_offset(fabrics: &[Fabric], fibres: &[Fibre], path: &[u32]) -> Option<SimTime> {
    let mut acc = (SimTime::ZERO, SimTime::ZERO);
    for &f in path {
        acc = safe_offset_step(fabrics, fibres, acc, f)?;
    }
    Some(acc.1)
}

/// One fibre `f` more of [`min_safe_offset`]: `(Σ δ, max (Σ δ + s))` so far, extended
/// by the node `f` reaches (the deflection tables fold it along their searches).
fn safe_offset_step(
    fabrics: &[Fabric],
    fibres: &[Fibre],
    (sum, need): (SimTime, SimTime),
    f: u32,
) -> Option<(SimTime, SimTime)> {
    let fab = fabric_in(fabrics, fibres, f);
    let sum = sum.checked_add(fab.bcp_processing)?;
    Some((sum, need.max(sum.checked_add(fab.setup)?)))
}

impl Core {
    pub fn new(fabrics: Vec<Fabric>, fibres: Vec<FibreParams>, loss: LossModel) -> Core {
        let mut out: Vec<Fibre> = fibres
            .into_iter()
            .map(|p| {
                let sched = fabrics[p.fabric_a as usize].scheduler;
                Fibre::new(p, sched)
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
        }
    }

    /// Installs `[obs.contention]` (the stages of `contention/`, per-wavelength
    /// statistics). Without it the core behaves exactly as before.
    pub fn with_contention(mut self, c: &ResolvedContention) -> Core {
        let nodes = self
            .fibres
            .iter()
            .map(|f| f.p.from.max(f.p.to) as usize + 1)
            .max()
            .unwrap_or(0);
        let Core {
            fabrics,
            fibres,
            cont,
            ..
        } = &mut self;
        *cont = Contention::new(c, nodes, fibres, |fs, acc, f| {
            safe_offset_step(fabrics, fs, acc, f)
        });
        self
    }

    /// Number of fibre directions.
    pub fn fibre_count(&self) -> usize {
        self.fibres.len()
    }

    /// Bytes of the deflection tables (for the memory guard).
    pub fn tables_bytes(&self) -> usize {
        self.cont.defl.mem_bytes()
    }

    /// The fabric that processes a burst arriving on fibre `f` (its `to` end).
    fn fabric_in(&self, f: u32) -> &Fabric {
        fabric_in(&self.fabrics, &self.fibres, f)
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
        min_safe_offset(&self.fabrics, &self.fibres, path)
    }

    /// Reserves path fibre `i` (or a parallel one) for `r` at BCP-processing time `now`:
    /// first directly on the fibre and its parallels (first fit), then, at a node after
    /// the ingress, by contention resolution ([`Core::resolve`]).
    fn reserve(&mut self, now: SimTime, r: &mut BurstRoute, i: usize) -> Result<(), Step> {
        let first = r.path[i];
        let fab = &self.fabrics[self.fibres[first as usize].p.fabric_a as usize];
        let (jit, conversion) = (fab.jit, fab.conversion);
        let n_alt = self.fibres[first as usize].parallel.len();
        let free_choice = conversion || i == 0;
        for k in 0..=n_alt {
            let fi = nth(&self.fibres, first, k);
            let f = &mut self.fibres[fi as usize];
            let (start, end) = r.window(f.p.rate, jit, now);
            f.cs.release_before(now);
            if let Some(c) = f.try_on(free_choice, r.channel, start, end) {
                let g = Grant {
                    fibre: fi,
                    channel: c,
                    start,
                    end,
                    via: Via::Direct,
                };
                return self.commit(i, g, r);
            }
        }
        // Charged to the last fibre tried.
        let fi = nth(&self.fibres, first, n_alt);
        if i > 0 {
            match self.resolve(now, r, i, jit, free_choice) {
                Outcome::Pass => {}
                Outcome::Take(g) => {
                    if let Via::Deflect { at, len } = g.via {
                        r.path.truncate(i);
                        r.path.push(g.fibre);
                        self.cont.defl.write_path(at, len, &mut r.path);
                        r.deflections += 1;
                    }
                    return self.commit(i, g, r);
                }
                Outcome::Lose(why) => {
                    let f = &mut self.fibres[fi as usize];
                    f.c.offered += 1;
                    f.c.lost[why] += 1;
                    return Err(Step::Lost(why, fi));
                }
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

    /// Contention resolution at the node where path fibre `i` starts, the direct
    /// reservation having failed on it and its parallels: the stages of `contention/`
    /// in their documented order (its module doc) — for the burst's fibre and then each
    /// parallel, a converter, the delay lines, segmentation, preemption; then, once,
    /// deflection. The first stage that takes or loses the burst ends the search.
    fn resolve(
        &mut self,
        now: SimTime,
        r: &BurstRoute,
        i: usize,
        jit: bool,
        free_choice: bool,
    ) -> Outcome {
        let Core { fibres, cont, .. } = self;
        let first = r.path[i];
        let n_alt = fibres[first as usize].parallel.len();
        let mut cx = Cx {
            fibres,
            r,
            now,
            hop: i,
            fibre: first,
            jit,
            free_choice,
        };
        if cont.any_fibre_stage() {
            for k in 0..=n_alt {
                cx.fibre = nth(cx.fibres, first, k);
                let out = converter::resolve(cont, &mut cx)
                    .or_else(|| fdl::resolve(cont, &mut cx))
                    .or_else(|| segmentation::resolve(cont, &mut cx))
                    .or_else(|| preemption::resolve(cont, &mut cx));
                if out != Outcome::Pass {
                    return out;
                }
            }
        }
        deflection::resolve(cont, &mut cx)
    }

    /// Books reservation `g` as path fibre `i` of `r` and applies the per-link random
    /// loss.
    fn commit(&mut self, i: usize, g: Grant, r: &mut BurstRoute) -> Result<(), Step> {
        let loss_all = self.loss.applies_to_all;
        let Grant {
            fibre: fi,
            channel: c,
            start,
            end,
            via,
        } = g;
        let f = &mut self.fibres[fi as usize];
        f.c.offered += 1;
        f.c.scheduled += 1;
        f.c.bytes += r.bytes;
        f.c.reserved_ps += (end - start).0 as u128;
        let ch = &mut f.ch[c as usize];
        ch.scheduled += 1;
        ch.reserved_ps += (end - start).0 as u128;
        let mut delay = SimTime::ZERO;
        match via {
            Via::Direct => {}
            Via::Converter => ch.converted += 1,
            Via::Fdl {
                delay: d,
                converted,
            } => {
                ch.via_fdl += 1;
                ch.converted += converted as u64;
                delay = d;
            }
            Via::Segment(cut) => {
                ch.segmented += 1;
                ch.bytes_cut += cut;
                r.cut_bytes += cut;
                f.c.head_cuts += 1;
            }
            Via::Deflect { .. } => f.c.deflected += 1,
            Via::TailCut | Via::Preempt => {}
        }
        r.path[i] = fi;
        // The burst leaves this node `delay` later (fibre delay line); so it arrives
        // later everywhere downstream.
        r.arrive += delay;
        if !f.owners.is_empty() {
            f.own(c, r.owned(start, end));
        }
        if f.p.loss > 0.0 && (r.has_data || loss_all) && f.p.rng.bernoulli(f.p.loss) {
            f.c.lost[BurstLoss::Random] += 1;
            return Err(Step::Lost(BurstLoss::Random, fi));
        }
        r.channel = c;
        Ok(())
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
        if self.cont.defl.max > 0 {
            // A deflection rewrites the path: room for the longest, once per slot.
            r.path.reserve(self.cont.defl.max_len);
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
            f.zero_counters();
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
        if self.cont.defl.max > 0 {
            r.path.reserve(self.cont.defl.max_len);
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
        // The wavelength's counters too, as `commit` keeps them: summed over a fibre's
        // wavelengths, `obs_channels` gives `obs_links` (docs/topics/contention.md).
        let ch = &mut f.ch[c];
        ch.scheduled += 1;
        ch.reserved_ps += (end - start).0 as u128;
        r.path[0] = fi;
        if !f.owners.is_empty() {
            f.own(c as u32, r.owned(start, end));
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
