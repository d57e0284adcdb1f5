//! Optical burst switching: assembly at the ingress edge, wavelength scheduling in the
//! bufferless core, disassembly at the egress edge.
//!
//! Read first: `scheduler` (data-channel selection: FFUC, LAUC, LAUC-VF) and
//! `assembler` (burst assembly policies). Both are pure decision logic: the network
//! driver owns packets, bursts and the event queue and calls into them.

pub mod assembler;
pub mod decision;
pub mod external;
pub mod scheduler;

pub use assembler::{ack_ratio_allowed, ack_share_ok, AckRatioBase};
pub use assembler::{
    AsmCtx, Assembler, AssemblerConfig, Decision, Emit, PktKind, PktMeta, QueueState, TimerCmd,
    WindowSource,
};
pub use external::{
    CallFilter, ExternalAssembler, ExternalFactory, ExternalSpec, ExternalState, HookDecision,
    QueueInfo, Wake,
};
pub use scheduler::{ChannelSet, Fit, Reservation, SchedulerKind};

use crate::units;

/// Checks the number of data wavelengths per fibre.
pub fn validate_wavelengths(k: usize) -> Result<(), String> {
    if k == 0 {
        return Err("obs.wavelengths: must be at least 1 data channel per fibre (got 0)".into());
    }
    // Each channel keeps its own reservation timeline, allocated up front: bound the
    // count so that a typo (4294967295) is an error, not an allocation abort.
    if k > MAX_WAVELENGTHS {
        return Err(format!(
            "at most {MAX_WAVELENGTHS} data channels per fibre, got {k}"
        ));
    }
    Ok(())
}

/// The most data wavelengths a fibre may have (DWDM systems carry up to a few hundred).
pub const MAX_WAVELENGTHS: usize = 4096;

/// Checks an assembler configuration; errors name the field under `obs.assembler`.
pub fn validate_assembler(cfg: &AssemblerConfig, max_pkts_per_burst: u32) -> Result<(), String> {
    validate_assembler_at("obs.assembler", cfg, max_pkts_per_burst)
}

/// Like [`validate_assembler`], with the field path given by the caller (e.g.
/// `"edges[2].assembler"`), so scenario errors point at the right place.
pub fn validate_assembler_at(
    path: &str,
    cfg: &AssemblerConfig,
    max_pkts_per_burst: u32,
) -> Result<(), String> {
    if max_pkts_per_burst == 0 {
        return Err(format!(
            "{path}.max_pkts_per_burst: must be at least 1 (got 0)"
        ));
    }
    match *cfg {
        AssemblerConfig::External(_) => {}
        AssemblerConfig::Timer { tb, jitter_sd_frac } => {
            if tb == units::SimTime::ZERO {
                return Err(format!(
                    "{path}.tb: the assembly timer must be positive (got 0)"
                ));
            }
            if !(jitter_sd_frac.is_finite() && jitter_sd_frac >= 0.0) {
                return Err(format!(
                    "{path}.jitter_sd_frac: must be a finite non-negative fraction of tb (got {jitter_sd_frac})"
                ));
            }
        }
        AssemblerConfig::Length {
            max_bytes,
            max_pkts,
        } => {
            if max_bytes.is_none() && max_pkts.is_none() {
                return Err(format!(
                    "{path}: length-based assembly needs max_bytes or max_pkts"
                ));
            }
            if max_bytes == Some(0) {
                return Err(format!("{path}.max_bytes: must be positive (got 0)"));
            }
            if max_pkts == Some(0) {
                return Err(format!("{path}.max_pkts: must be positive (got 0)"));
            }
        }
        AssemblerConfig::Hybrid {
            tmax,
            lmax_bytes,
            lmin_bytes,
        } => {
            if tmax == units::SimTime::ZERO {
                return Err(format!(
                    "{path}.tmax: the assembly timer must be positive (got 0)"
                ));
            }
            if lmax_bytes == 0 {
                return Err(format!("{path}.lmax: must be positive (got 0)"));
            }
            if let Some(lmin) = lmin_bytes {
                if lmin > lmax_bytes {
                    return Err(format!(
                        "{path}.lmin: must not exceed lmax (lmin = {lmin} B, lmax = {lmax_bytes} B)"
                    ));
                }
            }
        }
        AssemblerConfig::Window { tmax, .. } => {
            if tmax == Some(units::SimTime::ZERO) {
                return Err(format!(
                    "{path}.tmax: the assembly timer cap must be positive (got 0)"
                ));
            }
        }
        AssemblerConfig::AckRatio { base, r_max } => {
            // zhou §3.1: R is a share of the packets in a burst.
            if !(r_max.is_finite() && (0.0..=1.0).contains(&r_max)) {
                return Err(format!(
                    "{path}.ack_ratio_max: the largest share of ACKs in a burst must lie in [0, 1] (got {r_max})"
                ));
            }
            validate_assembler_at(path, &base.config(), max_pkts_per_burst)?;
        }
    }
    Ok(())
}

/// Checks that a window-based assembler (ozsarac §2: CWBA, MCWBA, ECWBA) is given one
/// TCP flow's data: it follows one sender's congestion window, so its queue must be
/// per-flow (`per_flow`) and the flow TCP. `path` names the assembly table in errors
/// (the error names its `type` field). Other policies always pass.
pub fn validate_window_queue(
    path: &str,
    cfg: &AssemblerConfig,
    flow: &str,
    tcp: bool,
    per_flow: bool,
) -> Result<(), String> {
    if !matches!(cfg, AssemblerConfig::Window { .. }) {
        return Ok(());
    }
    if !per_flow {
        return Err(format!(
            "{path}.type: window-based assembly (cwba/mcwba/ecwba) follows one TCP flow's window and needs the per_flow classifier"
        ));
    }
    if !tcp {
        return Err(format!(
            "{path}.type: window-based assembly (cwba/mcwba/ecwba) needs a TCP flow, but flow '{flow}' is not TCP"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use units::SimTime;

    fn err(r: Result<(), String>) -> String {
        r.expect_err("should be rejected")
    }

    #[test]
    fn validation_names_the_field() {
        assert!(err(validate_wavelengths(0)).starts_with("obs.wavelengths:"));
        assert!(validate_wavelengths(1).is_ok());
        let hy = |lmin| AssemblerConfig::Hybrid {
            tmax: SimTime::from_ms(10),
            lmax_bytes: 25_000,
            lmin_bytes: lmin,
        };
        assert_eq!(
            err(validate_assembler(&hy(Some(30_000)), 100)),
            "obs.assembler.lmin: must not exceed lmax (lmin = 30000 B, lmax = 25000 B)"
        );
        assert!(validate_assembler(&hy(Some(25_000)), 100).is_ok());
        assert!(validate_assembler(&hy(None), 100).is_ok());
        let tmax0 = AssemblerConfig::Hybrid {
            tmax: SimTime::ZERO,
            lmax_bytes: 1,
            lmin_bytes: None,
        };
        assert!(err(validate_assembler(&tmax0, 1)).starts_with("obs.assembler.tmax:"));
        let tb0 = AssemblerConfig::Timer {
            tb: SimTime::ZERO,
            jitter_sd_frac: 0.1,
        };
        assert!(err(validate_assembler(&tb0, 1)).starts_with("obs.assembler.tb:"));
        let jit = AssemblerConfig::Timer {
            tb: SimTime(1),
            jitter_sd_frac: -0.1,
        };
        assert!(err(validate_assembler(&jit, 1)).starts_with("obs.assembler.jitter_sd_frac:"));
        let none = AssemblerConfig::Length {
            max_bytes: None,
            max_pkts: None,
        };
        assert!(err(validate_assembler(&none, 1)).starts_with("obs.assembler:"));
        let ok = AssemblerConfig::Length {
            max_bytes: Some(1),
            max_pkts: None,
        };
        assert!(err(validate_assembler(&ok, 0)).starts_with("obs.assembler.max_pkts_per_burst:"));
        assert!(err(validate_assembler_at("edges[2].assembler", &tb0, 1))
            .starts_with("edges[2].assembler.tb:"));
        // zhou §3: R_MAX is a share; the base trigger is validated too.
        let base = AckRatioBase::Timer {
            tb: SimTime::from_ms(1),
            jitter_sd_frac: 0.0,
        };
        for r in [-0.1, 1.5, f64::NAN, f64::INFINITY] {
            let cfg = AssemblerConfig::AckRatio { base, r_max: r };
            assert!(
                err(validate_assembler(&cfg, 1)).starts_with("obs.assembler.ack_ratio_max:"),
                "{r}"
            );
        }
        for r in [0.0, 0.3, 1.0] {
            assert!(validate_assembler(&AssemblerConfig::AckRatio { base, r_max: r }, 1).is_ok());
        }
        let bad_base = AssemblerConfig::AckRatio {
            base: AckRatioBase::Timer {
                tb: SimTime::ZERO,
                jitter_sd_frac: 0.0,
            },
            r_max: 0.5,
        };
        assert!(err(validate_assembler(&bad_base, 1)).starts_with("obs.assembler.tb:"));
    }
}
