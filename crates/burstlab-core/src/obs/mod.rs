//! Optical burst switching: assembly at the ingress edge, wavelength scheduling in the
//! bufferless core, disassembly at the egress edge.
//!
//! Read first: `scheduler` (data-channel selection: FFUC, LAUC, LAUC-VF) and
//! `assembler` (burst assembly policies). Both are pure decision logic: the network
//! driver owns packets, bursts and the event queue and calls into them.

pub mod scheduler;

pub use scheduler::{ChannelSet, Fit, Reservation, SchedulerKind};

/// Checks the number of data wavelengths per fibre.
pub fn validate_wavelengths(k: usize) -> Result<(), String> {
    if k == 0 {
        return Err("obs.wavelengths: must be at least 1 data channel per fibre (got 0)".into());
    }
    Ok(())
}
