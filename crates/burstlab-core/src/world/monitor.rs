//! A run's periodic look from outside: progress and stop requests.
//!
//! The event loop ([`super::World::run_until_end`]) calls the monitor when the memory
//! guard looks (once every `MEMORY_CHECK_EVERY` events), so a run with a monitor costs
//! the loop nothing per event. The monitor only observes: it reads the clock and the
//! event count and answers whether the run should go on; no result depends on it, and a
//! run it lets finish is bit-identical to one without it.
//!
//! The Python binding (`crates/burstlab-py/src/lib.rs`) uses it to stop a run on Ctrl-C
//! within a fraction of a second and to draw a run's progress.

use crate::units::SimTime;

/// Where a run is, as the monitor sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time reached (the event being handled).
    pub now: SimTime,
    /// Events handled so far.
    pub events: u64,
}

/// What the monitor answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Go on.
    Continue,
    /// Stop now: [`super::World::try_run`] returns the [`STOPPED_FIELD`] error.
    Stop,
}

/// A monitor: called with the run's progress every few thousand events.
pub type Monitor = Box<dyn FnMut(Progress) -> Verdict + Send>;

/// The field named by the error of a run its monitor stopped.
pub const STOPPED_FIELD: &str = "run";
