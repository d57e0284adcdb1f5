//! burstlab-core: a deterministic packet-level simulator of TCP over optical burst
//! switching (OBS) networks.
//!
//! Read first: `units` (integer picosecond time), `engine` (the event queue and its
//! ordering guarantees), `scenario` (the declarative input), then `world` (the
//! components of the simulated network and the event loop that dispatches to them).
//! TCP lives in `tcp`, burst assembly and wavelength scheduling in `obs`.
//!
//! This crate has no Python dependency; `burstlab-py` wraps it.

pub mod engine;
pub mod events;
pub mod memory;
pub mod obs;
pub mod rng;
pub mod tcp;
pub mod units;
pub mod workload;

/// The burstlab version recorded in every output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The core's identity: the first 16 hex digits of a SHA-256 over this crate's source,
/// its `Cargo.toml` and the `Cargo.lock` entries of its dependencies (`build.rs` says
/// exactly what). Two builds with the same identity make the same numbers from the same
/// scenario and seed; the sweep store keys every run by it.
pub const CORE_IDENTITY: &str = env!("BURSTLAB_CORE_IDENTITY");

pub mod scenario;
pub mod schema;
pub mod stats;
pub mod tracefile;
pub mod world;

pub use scenario::ScenarioError;
use scenario::ScenarioSpec;
use stats::RunResult;

impl serde::Serialize for units::SimTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_secs_f64())
    }
}

/// Parses, validates and runs a TOML scenario. `seed` / `replication` override the file.
pub fn run_toml(
    text: &str,
    seed: Option<u64>,
    replication: Option<u64>,
) -> Result<RunResult, ScenarioError> {
    run_spec(&ScenarioSpec::from_toml_str(text)?, seed, replication)
}

/// Same as [`run_toml`] for a JSON scenario (what the Python front passes).
pub fn run_json(
    text: &str,
    seed: Option<u64>,
    replication: Option<u64>,
) -> Result<RunResult, ScenarioError> {
    run_spec(&ScenarioSpec::from_json_str(text)?, seed, replication)
}

pub fn run_spec(
    spec: &ScenarioSpec,
    seed: Option<u64>,
    replication: Option<u64>,
) -> Result<RunResult, ScenarioError> {
    let r = spec.resolve(seed, replication)?;
    preflight(&r)?;
    world::World::new(&r)?.try_run()
}

/// The checks before a run: its memory estimate against `sim.max_memory`
/// ([`memory::check`]), then its event estimate against `sim.max_events`
/// ([`events::check`]).
pub fn preflight(
    r: &scenario::Resolved,
) -> Result<(memory::MemoryEstimate, events::EventEstimate), ScenarioError> {
    Ok((memory::check(r)?, events::check(r)?))
}
