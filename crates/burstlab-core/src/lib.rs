//! burstlab-core: a deterministic packet-level simulator of TCP over optical burst
//! switching (OBS) networks.
//!
//! Read first: `units` (integer picosecond time), `engine` (the event queue and its
//! ordering guarantees), `scenario` (the declarative input), then `sim` (the world and
//! its event loop). TCP lives in `tcp`, burst switching in `obs`.
//!
//! This crate has no Python dependency; `burstlab-py` wraps it.

pub mod engine;
pub mod obs;
pub mod rng;
pub mod tcp;
pub mod units;

/// The burstlab version recorded in every output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
