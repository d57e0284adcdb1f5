//! One fibre direction of the OBS core: its wavelengths (a [`ChannelSet`]), its
//! counters (`obs_links`, `obs_channels`) and, when a contention stage may cut or take a
//! reservation (tail-dropping segmentation, preemption), who holds each reservation.
//!
//! Read first: [`Fibre::try_on`] (the direct reservation every stage falls back on),
//! then [`Fibre::own`]. The core (`core_node.rs`) owns the fibres; the contention stages
//! (`contention/`) get one fibre, or the table, for the length of one BCP step.

use crate::obs::{ChannelSet, SchedulerKind};
use crate::rng::RngStream;
use crate::stats::LossCounts;
use crate::units::{BitRate, SimTime};
use std::collections::VecDeque;

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
pub(super) struct FibreCounters {
    pub offered: u64,
    pub scheduled: u64,
    pub lost: LossCounts,
    pub bytes: u64,
    pub reserved_ps: u128,
    /// Bursts scheduled here with their head cut, and scheduled bursts whose tail was
    /// cut here (segmentation).
    pub head_cuts: u64,
    pub tail_cuts: u64,
    /// Bursts deflected onto this fibre (deflection routing).
    pub deflected: u64,
}

/// Per-wavelength counters (`obs_channels`), indexed by channel.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ChannelCounters {
    pub scheduled: u64,
    pub reserved_ps: u128,
    /// Bursts lost under wavelength continuity because this channel was busy.
    pub lost: u64,
    /// Bursts scheduled here after a fibre delay line.
    pub via_fdl: u64,
    /// Bursts scheduled here through a limited converter.
    pub converted: u64,
    /// Bursts scheduled here with their head cut (segmentation), and the bytes cut.
    pub segmented: u64,
    pub bytes_cut: u64,
    /// Scheduled bursts whose tail was cut here (tail-dropping), and the bytes cut.
    pub tail_cut: u64,
    pub tail_bytes_cut: u64,
}

/// A reservation `[start, end)` and the burst that holds it (tail-dropping
/// segmentation and preemption must find the burst whose tail they cut).
#[derive(Clone, Copy, Debug)]
pub(super) struct Owned {
    pub start: SimTime,
    pub end: SimTime,
    /// When the burst's head reaches this fibre's far end minus its delay: the time
    /// its byte 0 is (or would have been, before a head cut) sent on the fibre.
    pub origin: SimTime,
    pub slot: u32,
    pub serial: u64,
    pub priority: u32,
}

pub(super) struct Fibre {
    pub p: FibreParams,
    pub cs: ChannelSet,
    /// Parallel fibres (same ends, same fabrics), this one excluded, in index order.
    pub parallel: Vec<u32>,
    pub c: FibreCounters,
    pub ch: Vec<ChannelCounters>,
    /// Tail-dropping segmentation and preemption only (empty otherwise): per channel,
    /// who holds each stored reservation (sorted by start, as the channel set's own
    /// list).
    pub owners: Vec<VecDeque<Owned>>,
}

impl Fibre {
    /// A fibre with every wavelength free, scheduled by `sched` (its `from` fabric's).
    pub fn new(p: FibreParams, sched: SchedulerKind) -> Fibre {
        Fibre {
            cs: ChannelSet::new(p.wavelengths as usize, sched),
            ch: vec![ChannelCounters::default(); p.wavelengths as usize],
            p,
            parallel: Vec::new(),
            c: FibreCounters::default(),
            owners: Vec::new(),
        }
    }

    /// Zeroes the counters (end of warm-up); reservations stay.
    pub fn zero_counters(&mut self) {
        self.c = FibreCounters::default();
        self.ch.fill(ChannelCounters::default());
    }

    /// Starts keeping the owners table (tail-dropping segmentation, preemption).
    pub fn track_owners(&mut self) {
        self.owners = (0..self.cs.k())
            .map(|_| VecDeque::with_capacity(16))
            .collect();
    }

    /// A direct reservation of `[start, end)`: any channel by the policy
    /// (`free_choice`) or only `channel` (wavelength continuity).
    #[inline]
    pub fn try_on(
        &mut self,
        free_choice: bool,
        channel: u32,
        start: SimTime,
        end: SimTime,
    ) -> Option<u32> {
        if free_choice {
            self.cs.reserve(start, end).map(|c| c as u32)
        } else if (channel as usize) < self.cs.k()
            && self.cs.reserve_on(channel as usize, start, end)
        {
            Some(channel)
        } else {
            None
        }
    }

    /// Records who holds the reservation `[who.start, who.end)` on channel `c` (only
    /// while owners are tracked), and forgets the entries the channel set has
    /// forgotten.
    pub fn own(&mut self, c: u32, who: Owned) {
        let own = &mut self.owners[c as usize];
        let floor = own.partition_point(|o| o.end <= self.cs.released_to());
        own.drain(..floor);
        let at = own.partition_point(|o| o.start < who.start);
        own.insert(at, who);
    }

    /// The channels a victim may be sought on: `want` alone when given (none when it is
    /// out of range), else every channel of the fibre.
    pub fn victim_channels(&self, want: Option<usize>) -> Option<std::ops::Range<usize>> {
        match want {
            Some(c) if c < self.cs.k() => Some(c..c + 1),
            Some(_) => None,
            None => Some(0..self.cs.k()),
        }
    }

    /// `cut` of channel `c`'s reserved time was given back (a tail cut or a preempted
    /// reservation): no longer counted as reserved (saturating: the reservation may
    /// predate the end of warm-up, when the counters were zeroed).
    pub fn unreserve(&mut self, c: usize, cut: SimTime) {
        let ch = &mut self.ch[c];
        ch.reserved_ps = ch.reserved_ps.saturating_sub(cut.0 as u128);
        self.c.reserved_ps = self.c.reserved_ps.saturating_sub(cut.0 as u128);
    }

    /// Counts a scheduled burst's tail cut on channel `c`: the last `cut` of its
    /// transmission (the bytes begun in it are lost, a byte partly cut included).
    pub fn count_tail_cut(&mut self, c: usize, cut: SimTime) {
        let ch = &mut self.ch[c];
        ch.tail_cut += 1;
        ch.tail_bytes_cut += self.p.rate.bytes_begun_in(cut);
        self.c.tail_cuts += 1;
    }
}

/// Transmission time of a burst of `bytes` at `rate` (at least 1 ps, so that even an
/// empty burst occupies its wavelength for a non-empty interval).
#[inline]
pub(super) fn burst_time(rate: BitRate, bytes: u64) -> SimTime {
    rate.tx_time(bytes).max(SimTime(1))
}
