//! Phase timings for speed work, built only with the cargo feature `probe`.
//!
//! `cargo build --release -p burstlab-core --features probe --bin burstlab-bench` gives a
//! benchmark binary that reads the CPU's time-stamp counter around each phase of the
//! event loop and of a host's work, and prints, after the run, how often each phase ran
//! and its mean length in counter ticks. The readings do not wait for earlier
//! instructions, so phases still overlap as in a plain run; each reading costs about 25
//! ticks. Compare phases between two scenarios (10 and 320 flows, say) or two revisions,
//! not against wall time. This machine's sampling profiler lands its samples after the
//! instruction the core waited on, which more than once blamed the wrong load; timing
//! phases found the loads that the look-ahead did not fetch (docs/performance.md,
//! 2026-11-25).
//!
//! Without the feature every function here is empty and inlined away: the plain build's
//! code is unchanged.

/// A phase of the event loop or of a host's work. The host phases run inside the event
/// that delivers the packet, so they are part of that event's time too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Taking the next event from the queue.
    Pop,
    /// The look-ahead's first stage and the memory guard's periodic look.
    LookAheadFirst,
    /// A link's arrival event that names its packet (it may deliver it).
    LinkNamed,
    /// A link's arrival event that does not.
    LinkUnnamed,
    /// Any other event (timers, flow starts, OBS).
    OtherEvent,
    /// The look-ahead's second stage.
    LookAheadSecond,
    /// A TCP receiver taking a data segment (`Hosts::on_data`).
    ReceiverData,
    /// Writing the receiver's ACK into the segment's record and sending it on.
    ReceiverAck,
    /// A host's handler run through `World::host` (an ACK at a sender, a timer, ...).
    HostHandler,
    /// What that handler sends: new segments into the pool and onto their links, and
    /// its other actions (timers).
    HostSends,
}

/// Every phase, in the order reports list them.
pub const PHASES: [Phase; 10] = [
    Phase::Pop,
    Phase::LookAheadFirst,
    Phase::LinkNamed,
    Phase::LinkUnnamed,
    Phase::OtherEvent,
    Phase::LookAheadSecond,
    Phase::ReceiverData,
    Phase::ReceiverAck,
    Phase::HostHandler,
    Phase::HostSends,
];

/// How often a phase ran and its total length in counter ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub phase: Phase,
    pub count: u64,
    pub ticks: u64,
}

#[cfg(feature = "probe")]
mod imp {
    use super::{Phase, Timing, PHASES};
    use std::cell::RefCell;

    thread_local! {
        static SUMS: RefCell<[(u64, u64); PHASES.len()]> =
            const { RefCell::new([(0, 0); PHASES.len()]) };
    }

    /// The time-stamp counter (nanoseconds since an arbitrary start where there is none).
    #[inline(always)]
    pub fn now() -> u64 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: RDTSC reads a counter; it has no preconditions and touches no memory.
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            use std::sync::OnceLock;
            use std::time::Instant;
            static START: OnceLock<Instant> = OnceLock::new();
            START.get_or_init(Instant::now).elapsed().as_nanos() as u64
        }
    }

    /// Adds the time since `since` to `phase`; returns the current reading.
    #[inline(always)]
    pub fn lap(phase: Phase, since: u64) -> u64 {
        let t = now();
        SUMS.with(|s| {
            let e = &mut s.borrow_mut()[phase as usize];
            e.0 += 1;
            e.1 += t.wrapping_sub(since);
        });
        t
    }

    /// The timings of this thread so far, and resets them.
    pub fn take() -> Vec<Timing> {
        SUMS.with(|s| {
            let sums = std::mem::replace(&mut *s.borrow_mut(), [(0, 0); PHASES.len()]);
            PHASES
                .iter()
                .zip(sums)
                .map(|(&phase, (count, ticks))| Timing {
                    phase,
                    count,
                    ticks,
                })
                .collect()
        })
    }
}

#[cfg(not(feature = "probe"))]
mod imp {
    use super::{Phase, Timing};

    /// 0: the probe is not built.
    #[inline(always)]
    pub fn now() -> u64 {
        0
    }

    /// Nothing: the probe is not built.
    #[inline(always)]
    pub fn lap(_phase: Phase, _since: u64) -> u64 {
        0
    }

    /// Nothing: the probe is not built.
    pub fn take() -> Vec<Timing> {
        Vec::new()
    }
}

pub use imp::{lap, now, take};

/// Whether this build has the probe (the cargo feature `probe`).
pub const BUILT: bool = cfg!(feature = "probe");
