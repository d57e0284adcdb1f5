//! Where a burst is on its path: the state a burst carries from its ingress to its
//! egress (owned by the burst in the world's pool, updated by the core and its
//! contention stages).
//!
//! Read first: [`BurstRoute::window`], the interval a burst asks each fibre for.

use super::fibre::{burst_time, Owned};
use crate::units::{BitRate, SimTime};

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
    /// of its current departure (set by the core), naming it in a `TailCut` (`world::contention`).
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
    pub fn kept(&self) -> u64 {
        self.bytes.min(self.keep)
    }

    /// The interval the burst asks a fibre of `rate` for, its BCP processed at `now`:
    /// from `now` under JIT, else from its arrival (after the head a segmentation cut
    /// off), to the end of what it still carries.
    #[inline]
    pub fn window(&self, rate: BitRate, jit: bool, now: SimTime) -> (SimTime, SimTime) {
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

    /// This burst as the holder of `[start, end)` on the fibre it is reserving (its
    /// byte 0 sent there at `arrive`).
    #[inline]
    pub(super) fn owned(&self, start: SimTime, end: SimTime) -> Owned {
        Owned {
            start,
            end,
            origin: self.arrive,
            slot: self.slot,
            serial: self.serial,
            priority: self.priority,
        }
    }
}
