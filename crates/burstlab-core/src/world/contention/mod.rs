//! Contention resolution (`[obs.contention]`, docs/topics/contention.md): what a core
//! node tries when a burst finds no wavelength on its output fibre. One file per
//! resource, each a *stage* with the one signature [`Stage`]:
//!
//! | file | resource |
//! |---|---|
//! | `converter.rs` | limited wavelength converter pools (per node or per fibre) |
//! | `fdl.rs` | fibre delay lines (per node) |
//! | `segmentation.rs` | head- or tail-dropping burst segmentation |
//! | `preemption.rs` | priority preemption (whole reservation or its tail) |
//! | `deflection.rs` | deflection to another neighbour, and its tables |
//!
//! Read first: the order below, then [`Cx`] and [`Outcome`].
//!
//! ## Order (`Core::resolve` in `core_node.rs`)
//!
//! At a node after the ingress (at the ingress the burst is still electronic: see
//! `world/ingress.rs`), once the direct reservation has failed on the burst's fibre
//! and every parallel fibre, for the burst's fibre and then each parallel (first fit),
//! the per-fibre stages in this order, the first that takes the burst winning:
//!
//! 1. [`converter::resolve`] — a free converter, no delay (continuity only);
//! 2. [`fdl::resolve`] — each delay line with the node's own conversion, then each
//!    delay line with a converter;
//! 3. [`segmentation::resolve`] — cut the contending burst's head, or the scheduled
//!    burst's tail (JET only);
//! 4. [`preemption::resolve`] — take a lower-priority burst's reservation (JET only);
//!
//! then, once for the node, after every fibre failed every stage:
//!
//! 5. [`deflection::resolve`] — a direct reservation towards another neighbour.
//!
//! This is nOBS's `OpSRAgent` order (`nodetype_` 1–3: converter, then delay lines
//! without, then with a converter), with the mechanisms nOBS lacks after it. If every
//! stage passes, the burst is lost with the bufferless reason (`contention` or
//! `no_wavelength`).
//!
//! A stage reads the burst and the fibres through [`Cx`], its own state (and, for the
//! delay lines with a converter, the converter pool) through [`Contention`], and
//! returns an [`Outcome`]; the core books a [`Grant`] (`Core::commit`). Stages are
//! plain functions called by name: no dynamic dispatch, no allocation per burst.

pub mod converter;
pub mod deflection;
pub mod fdl;
pub mod preemption;
pub mod segmentation;

use super::fibre::Fibre;
use super::route::BurstRoute;
use crate::scenario::{Preemption, ResolvedContention, Segmentation};
use crate::stats::BurstLoss;
use crate::units::SimTime;
use converter::Converters;
use deflection::{Deflection, Need};
use fdl::DelayLines;

/// The signature every stage has.
pub(in crate::world) type Stage = fn(&mut Contention, &mut Cx<'_>) -> Outcome;

/// Every stage, in the order `Core::resolve` calls them (a compile-time proof that
/// they share [`Stage`]; the core calls them by name).
#[allow(dead_code)]
const STAGES: [Stage; 5] = [
    converter::resolve,
    fdl::resolve,
    segmentation::resolve,
    preemption::resolve,
    deflection::resolve,
];

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
pub(in crate::world) enum Via {
    Direct,
    /// Through a converter of a limited pool.
    Converter,
    /// After a fibre delay line of `delay`, through a converter or not.
    Fdl {
        delay: SimTime,
        converted: bool,
    },
    /// With `0` more bytes cut from its head (segmentation).
    Segment(u64),
    /// After cutting the tail of the burst holding the overlapping reservation.
    TailCut,
    /// After taking a lower-priority burst's reservation (whole or its tail).
    Preempt,
    /// On a fibre of the node's deflection table instead of the burst's own; the rest
    /// of the path is `len` fibres, entry `at` of the deflection tables
    /// (`Deflection::write_path`).
    Deflect {
        at: u32,
        len: u32,
    },
}

/// A reservation a stage made: channel `channel` of fibre `fibre`, `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::world) struct Grant {
    pub fibre: u32,
    pub channel: u32,
    pub start: SimTime,
    pub end: SimTime,
    pub via: Via,
}

/// What a stage did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::world) enum Outcome {
    /// Nothing (the stage is off, does not apply, or found no room): the next stage.
    Pass,
    /// The burst has a reservation (already made in the fibre's channel set).
    Take(Grant),
    /// The burst is lost for this reason (deflection only: the node had alternatives
    /// and none could take it); no later stage is tried.
    Lose(BurstLoss),
}

impl Outcome {
    /// `self`, or `next()` if `self` passed.
    #[inline]
    pub fn or_else(self, next: impl FnOnce() -> Outcome) -> Outcome {
        match self {
            Outcome::Pass => next(),
            o => o,
        }
    }
}

/// The situation a stage resolves: burst `r`, its BCP processed at `now` at the node
/// where path fibre `hop` starts, asking for fibre `fibre` (the burst's or a parallel
/// one; deflection tries its own).
pub(in crate::world) struct Cx<'a> {
    pub fibres: &'a mut [Fibre],
    pub r: &'a BurstRoute,
    pub now: SimTime,
    pub hop: usize,
    pub fibre: u32,
    /// JIT signalling at this node's fabric (reservations start at `now`).
    pub jit: bool,
    /// Any wavelength may be taken (conversion), else only `r.channel` (continuity).
    pub free_choice: bool,
}

impl Cx<'_> {
    /// The fibre asked for.
    #[inline]
    pub fn f(&mut self) -> &mut Fibre {
        &mut self.fibres[self.fibre as usize]
    }

    /// The only wavelength the burst may take under continuity, `None` with a free
    /// choice.
    #[inline]
    pub fn want(&self) -> Option<usize> {
        (!self.free_choice).then_some(self.r.channel as usize)
    }
}

/// The state of every stage (built once from `[obs.contention]`), and what the stages
/// hand back to the world.
#[derive(Default)]
pub(in crate::world) struct Contention {
    pub conv: Converters,
    pub fdl: DelayLines,
    /// Burst segmentation (`obs.contention.segmentation`); `None` = off.
    pub seg: Option<Segmentation>,
    /// Priority preemption (`obs.contention.preemption`).
    pub preempt: Preemption,
    pub defl: Deflection,
    /// The `obs_channels` table is kept (`obs.contention.per_wavelength`).
    pub per_wavelength: bool,
    /// Tail cuts made by the last step, for the world to apply (pre-sized).
    pub cuts: Vec<TailCut>,
    /// The next burst departure's serial number.
    pub next_serial: u64,
}

impl Contention {
    /// The stages `c` configures over `fibres` on `nodes` nodes; `step(fibres, need, f)`
    /// extends the offset a path needs by fibre `f` (`Core::min_safe_offset` one fibre
    /// at a time), for deflection.
    pub fn new(
        c: &ResolvedContention,
        nodes: usize,
        fibres: &mut [Fibre],
        step: impl Fn(&[Fibre], Need, u32) -> Option<Need>,
    ) -> Contention {
        let out = Contention {
            conv: Converters::new(c, nodes, fibres.len()),
            fdl: DelayLines::new(c, nodes),
            seg: c.segmentation,
            preempt: c.preemption,
            defl: if c.max_deflections > 0 {
                Deflection::build(fibres, nodes, &c.deflection, c.max_deflections, step)
            } else {
                Deflection::default()
            },
            per_wavelength: c.per_wavelength,
            cuts: Vec::with_capacity(16),
            next_serial: 0,
        };
        if out.seg == Some(Segmentation::Tail) || out.preempt != Preemption::None {
            for f in fibres {
                f.track_owners();
            }
        }
        out
    }

    /// Whether any per-fibre stage (1–4) is on.
    #[inline]
    pub fn any_fibre_stage(&self) -> bool {
        self.fdl.any() || self.conv.any() || self.seg.is_some() || self.preempt != Preemption::None
    }
}

/// Hand-built situations for the stages' timeline tests.
#[cfg(test)]
pub(super) mod testkit {
    use super::*;
    use crate::obs::SchedulerKind;
    use crate::rng::RngStream;
    use crate::scenario::{ConverterScope, FdlCapacity};
    use crate::world::fibre::FibreParams;

    /// 1 Gb/s: a byte every 8 ns, so 1 000 B take 8 µs.
    pub const RATE: u64 = 1_000_000_000;

    pub fn us(x: u64) -> SimTime {
        SimTime::from_us(x)
    }

    /// A fibre `from → to` of `k` wavelengths at [`RATE`], zero delay, fabrics 0.
    pub fn fibre(from: u32, to: u32, k: u32, sched: SchedulerKind) -> Fibre {
        Fibre::new(
            FibreParams {
                from,
                to,
                rate: crate::units::BitRate(RATE),
                delay: SimTime::ZERO,
                wavelengths: k,
                loss: 0.0,
                spec_index: 0,
                fabric_a: 0,
                fabric_b: 0,
                rng: RngStream::derive(1, 0, "test"),
            },
            sched,
        )
    }

    /// A burst of `bytes` whose head arrives at `arrive` on wavelength `channel`, on a
    /// path of `path`, hop 1 pending.
    pub fn burst(bytes: u64, arrive: SimTime, channel: u32, path: &[u32]) -> BurstRoute {
        BurstRoute {
            path: path.to_vec(),
            hop: 1,
            arrive,
            channel,
            bytes,
            has_data: true,
            keep: u64::MAX,
            ..BurstRoute::default()
        }
    }

    /// `[obs.contention]` with everything off.
    pub fn off() -> ResolvedContention {
        ResolvedContention {
            fdl: Vec::new(),
            fdl_capacity: FdlCapacity::One,
            converters: 0,
            converter_scope: ConverterScope::Node,
            segmentation: None,
            preemption: Preemption::None,
            per_wavelength: true,
            deflection: Vec::new(),
            max_deflections: 0,
            deflection_offset: SimTime::ZERO,
        }
    }

    /// A context asking for fibre `fibre` at `now` (JET), continuity unless `free`.
    pub fn cx<'a>(
        fibres: &'a mut [Fibre],
        r: &'a BurstRoute,
        now: SimTime,
        fibre: u32,
        free: bool,
    ) -> Cx<'a> {
        Cx {
            fibres,
            r,
            now,
            hop: 1,
            fibre,
            jit: false,
            free_choice: free,
        }
    }

    /// The stored reservations of channel `c` as `(start, end)` in µs (rounded down).
    pub fn held(f: &Fibre, c: usize) -> Vec<(u64, u64)> {
        f.cs.reservations(c)
            .map(|r| (r.start.0 / 1_000_000, r.end.0 / 1_000_000))
            .collect()
    }
}
