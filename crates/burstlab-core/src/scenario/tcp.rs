//! A TCP flow's settings: the `[[flow]]` keys of a `type = "tcp"` flow checked and laid
//! over the defaults of its profile and ns-2 release (`tcp::TcpConfig::defaults`,
//! `tcp::Ns2Version`), in a fixed order so that the first error found is reported.

use super::error::ScenarioError;
use super::spec::FlowSpec;
use crate::tcp::{CcKind, CubicSsthresh, Ns2Version, Profile, RecoveryKind, TcpConfig, Variant};
use crate::units::SimTime;

/// Builds the error of a flow key: `fld` prefixes the key with its flow's path.
type KeyError<'a> = &'a dyn Fn(&str, String) -> ScenarioError;

/// The [`TcpConfig`] of one TCP flow; `fld` turns a key into its field path
/// (`flow[3].mss`).
pub(super) fn tcp_config(
    t: &FlowSpec,
    fld: &dyn Fn(&str) -> String,
) -> Result<TcpConfig, ScenarioError> {
    let e = |f: &str, r: String| ScenarioError::new(fld(f), r);
    let mut c = preset(t, &e)?;
    sizes(t, &mut c, &e)?;
    timers(t, &mut c, &e)?;
    cross_checks(t, &c, &e)?;
    ns2_switches(t, &mut c, &e)?;
    controller(t, &mut c, &e)?;
    Ok(c)
}

/// The profile's defaults, the ns-2 release preset (`ns2_version`) and the congestion
/// controller (`cc`) with what ns-2's Agent/TCP/Linux changes with it.
fn preset(t: &FlowSpec, e: KeyError) -> Result<TcpConfig, ScenarioError> {
    let mut c = TcpConfig::defaults(
        t.variant.unwrap_or(Variant::Reno),
        t.profile.unwrap_or(Profile::Ns2),
    );
    if let Some(v) = t.ns2_version {
        if c.profile != Profile::Ns2 {
            return Err(e(
                "ns2_version",
                "selects ns-2's Agent/TCP defaults; it needs profile = \"ns2\"".into(),
            ));
        }
        if v != Ns2Version::V2_35 && t.cc.is_some_and(|k| k != CcKind::Aimd) {
            return Err(e(
                "ns2_version",
                format!(
                    "cc = \"{}\" is ns-2's Agent/TCP/Linux, which ns-2 {} did not have \
                     (it is ns-2.35's): use ns2_version = \"2.35\" or cc = \"aimd\"",
                    t.cc.map_or("", |k| k.name()),
                    v.name()
                ),
            ));
        }
        v.apply(&mut c);
    }
    if let Some(k) = t.cc {
        c.cc = k;
        if c.profile == Profile::Ns2 && k != CcKind::Aimd {
            // ns-2.35's Agent/TCP/Linux: maxrto_ 120 (ns-default.tcl) and, once a Linux
            // module is selected, tcp_tick_ = 1/JIFFY_RATIO = 1 ms (tcp-linux.cc).
            c.max_rto = SimTime::from_secs(120);
            c.clock_granularity = SimTime::from_ms(1);
        }
    }
    Ok(c)
}

/// Segment, header and ACK sizes, windows, the duplicate-ACK threshold and `b`.
fn sizes(t: &FlowSpec, c: &mut TcpConfig, e: KeyError) -> Result<(), ScenarioError> {
    if let Some(m) = t.mss {
        if m.0 == 0 || m.0 > 1 << 24 {
            return Err(e(
                "mss",
                format!("must be between 1 B and 16 MiB, got {} B", m.0),
            ));
        }
        c.mss = m.0 as u32;
    }
    if let Some(h) = t.header_bytes {
        if h.0 > 65_535 {
            return Err(e(
                "header_bytes",
                format!("at most 65535 B of headers per packet (got {})", h.0),
            ));
        }
        c.header_bytes = h.0 as u32;
    }
    if let Some(a) = t.ack_bytes {
        if a.0 == 0 || a.0 > 1 << 20 {
            return Err(e(
                "ack_bytes",
                format!("must be between 1 B and 1 MiB, got {}", a.0),
            ));
        }
        c.ack_bytes = a.0 as u32;
    }
    if let Some(w) = t.wm {
        if w == 0 {
            return Err(e(
                "wm",
                "the maximum window must be at least 1 segment".into(),
            ));
        }
        c.wm = w;
        // ns-2's TcpAgent::reset() starts ssthresh_ at window_ (the maximum window).
        if c.profile == Profile::Ns2 {
            c.init_ssthresh = w.max(2);
        }
    }
    if let Some(w) = t.init_cwnd {
        if w == 0 {
            return Err(e("init_cwnd", "must be at least 1 segment".into()));
        }
        c.init_cwnd = w;
    }
    if let Some(s) = t.init_ssthresh {
        if s < 2 {
            return Err(e("init_ssthresh", "must be at least 2 segments".into()));
        }
        c.init_ssthresh = s;
    }
    if let Some(d) = t.dupack_thresh {
        if d == 0 {
            return Err(e("dupack_thresh", "must be at least 1".into()));
        }
        c.dupack_thresh = d;
    }
    if let Some(b) = t.b {
        c.delayed_ack = match b {
            1 => false,
            2 => true,
            _ => return Err(e("b", format!("segments per ACK must be 1 or 2, got {b}"))),
        };
    }
    Ok(())
}

/// Timers (delayed ACK, RTO bounds, clock tick, back-off) and SACK blocks.
fn timers(t: &FlowSpec, c: &mut TcpConfig, e: KeyError) -> Result<(), ScenarioError> {
    if let Some(d) = t.delack_timeout {
        if d.0 == SimTime::ZERO {
            return Err(e("delack_timeout", "must be positive".into()));
        }
        c.delack_timeout = d.0;
    }
    if let Some(d) = t.min_rto {
        c.min_rto = d.0;
    }
    if let Some(d) = t.max_rto {
        c.max_rto = d.0;
    }
    if let Some(d) = t.init_rto {
        // Below 1 µs a timer backed off to its cap would fire every few picoseconds
        // on a path that loses everything: billions of events per simulated second.
        if d.0 < SimTime::from_us(1) {
            return Err(e(
                "init_rto",
                format!("must be at least 1 µs (got {})", d.0),
            ));
        }
        c.init_rto = d.0;
    }
    if let Some(d) = t.clock_granularity {
        c.clock_granularity = d.0;
    }
    if let Some(b) = t.max_backoff {
        if b == 0 {
            return Err(e("max_backoff", "must be at least 1".into()));
        }
        c.max_backoff = b;
    }
    if let Some(s) = t.sack_blocks {
        if !(1..=4).contains(&s) {
            return Err(e("sack_blocks", format!("must be 1 to 4, got {s}")));
        }
        c.sack_blocks = s;
    }
    Ok(())
}

/// Settings that must agree with each other once all are applied.
fn cross_checks(t: &FlowSpec, c: &TcpConfig, e: KeyError) -> Result<(), ScenarioError> {
    if c.max_rto < c.min_rto {
        return Err(e(
            "max_rto",
            format!(
                "must not be below min_rto ({} s, got {} s)",
                c.min_rto.as_secs_f64(),
                c.max_rto.as_secs_f64()
            ),
        ));
    }
    if t.init_rto.is_some() && c.init_rto > c.max_rto {
        return Err(e(
            "init_rto",
            format!(
                "must not exceed max_rto ({} s, got {} s)",
                c.max_rto.as_secs_f64(),
                c.init_rto.as_secs_f64()
            ),
        ));
    }
    if t.init_cwnd.is_some() && t.wm.is_some() && c.init_cwnd > c.wm {
        return Err(e(
            "init_cwnd",
            format!(
                "must not exceed the maximum window wm = {} segments (got {})",
                c.wm, c.init_cwnd
            ),
        ));
    }
    Ok(())
}

/// ns-2.35's agent switches and clock phase, which need the ns2 profile.
fn ns2_switches(t: &FlowSpec, c: &mut TcpConfig, e: KeyError) -> Result<(), ScenarioError> {
    // ns-2.35 behaviour switches: meaningful only for the ns2 profile's agents.
    let switches = [
        ("syn", t.syn, &mut c.syn),
        (
            "limited_transmit",
            t.limited_transmit,
            &mut c.limited_transmit,
        ),
        (
            "precision_reduce",
            t.precision_reduce,
            &mut c.precision_reduce,
        ),
        ("bug_fix", t.bug_fix, &mut c.bug_fix),
        (
            "newreno_changes1",
            t.newreno_changes1,
            &mut c.newreno_changes1,
        ),
        (
            "partial_window_deflation",
            t.partial_window_deflation,
            &mut c.partial_window_deflation,
        ),
        (
            "sack_partial_ack",
            t.sack_partial_ack,
            &mut c.sack_partial_ack,
        ),
    ];
    let ns2 = c.profile == Profile::Ns2;
    for (name, v, slot) in switches {
        if let Some(v) = v {
            if !ns2 {
                return Err(e(
                    name,
                    "is an ns-2.35 agent setting; it needs profile = \"ns2\"".into(),
                ));
            }
            *slot = v;
        }
    }
    if let Some(p) = t.clock_phase {
        if !ns2 {
            return Err(e(
                "clock_phase",
                "is an ns-2.35 agent setting; it needs profile = \"ns2\"".into(),
            ));
        }
        if c.clock_granularity > SimTime::ZERO && p.0 >= c.clock_granularity {
            return Err(e(
                "clock_phase",
                format!(
                    "must be below clock_granularity ({} s), got {} s",
                    c.clock_granularity.as_secs_f64(),
                    p.0.as_secs_f64()
                ),
            ));
        }
        c.clock_phase = Some(p.0.as_secs_f64());
    }
    if ns2 && c.clock_granularity == SimTime::ZERO {
        return Err(e(
            "clock_granularity",
            "the ns2 profile's RTT clock needs a positive tick".into(),
        ));
    }
    Ok(())
}

/// SACK recovery (`recovery`), CUBIC's ssthresh rule, and which controllers each
/// profile runs.
fn controller(t: &FlowSpec, c: &mut TcpConfig, e: KeyError) -> Result<(), ScenarioError> {
    let ns2 = c.profile == Profile::Ns2;
    if let Some(r) = t.recovery {
        if r != RecoveryKind::Rfc6675 {
            if ns2 {
                return Err(e(
                    "recovery",
                    format!(
                        "\"{}\" is the rfc profile's SACK recovery; the ns2 profile runs \
                         ns-2's own agents: set profile = \"rfc\"",
                        r.name()
                    ),
                ));
            }
            if c.variant != Variant::Sack {
                return Err(e(
                    "recovery",
                    format!(
                        "\"{}\" sets cwnd from RFC 6675's pipe: it needs variant = \"sack\" \
                         (got \"{}\")",
                        r.name(),
                        c.variant.name()
                    ),
                ));
            }
            if c.cc == CcKind::Bbr {
                return Err(e(
                    "recovery",
                    format!(
                        "cc = \"bbr\" sets cwnd itself during recovery (as ns-3's TcpBbr, \
                         which bypasses the recovery algorithm); leave recovery unset \
                         (got \"{}\")",
                        r.name()
                    ),
                ));
            }
        }
        c.recovery = r;
    }
    if let Some(b) = t.cubic_ssthresh {
        if b != CubicSsthresh::FlightSize && (ns2 || c.cc != CcKind::Cubic) {
            return Err(e(
                "cubic_ssthresh",
                format!(
                    "\"{}\" applies to cc = \"cubic\" under profile = \"rfc\" (got cc = \
                     \"{}\", profile = \"{}\"; under ns2, Linux's cubic module uses cwnd)",
                    b.name(),
                    c.cc.name(),
                    if ns2 { "ns2" } else { "rfc" }
                ),
            ));
        }
        c.cubic_ssthresh = b;
    }
    if ns2 && c.cc == CcKind::Bbr {
        // ns-2.35 has no BBR (its Agent/TCP/Linux modules are Linux 2.6.22's).
        return Err(e(
            "cc",
            "\"bbr\" runs only under profile = \"rfc\" (ns-2.35 has no BBR; burstlab's \
             BBR follows ns-3's TcpBbr)"
                .into(),
        ));
    }
    if ns2 && c.cc != CcKind::Aimd {
        // Under the ns2 profile a modern controller is ns-2.35's Agent/TCP/Linux, a SACK
        // sender whose RTT clock ticks in 1 ms jiffies.
        if c.variant != Variant::Sack {
            return Err(e(
                "variant",
                format!(
                    "cc = \"{}\" under the ns2 profile is ns-2's Agent/TCP/Linux, a SACK \
                     sender: set variant = \"sack\" (got \"{}\")",
                    c.cc.name(),
                    c.variant.name()
                ),
            ));
        }
        if c.clock_granularity != SimTime::from_ms(1) {
            return Err(e(
                "clock_granularity",
                "ns-2's Agent/TCP/Linux ticks its RTT clock in 1 ms jiffies; leave it unset \
                 or set 1ms"
                    .into(),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod ns2_version_tests {
    use super::*;

    fn flow(extra: &str) -> FlowSpec {
        toml::from_str(&format!("src = \"a\"\ndst = \"b\"\n{extra}")).expect("a flow")
    }

    fn cfg(extra: &str) -> Result<TcpConfig, ScenarioError> {
        tcp_config(&flow(extra), &|f: &str| format!("flow[0].{f}"))
    }

    #[test]
    fn the_default_preset_is_ns2_35() {
        let d = cfg("").unwrap();
        assert_eq!(cfg("ns2_version = \"2.35\"").unwrap(), d);
        assert_eq!(d.min_rto, SimTime::from_ms(200));
        assert_eq!(d.max_rto, SimTime::from_secs(60));
    }

    #[test]
    fn old_presets_set_their_release_defaults_and_overrides_win() {
        for v in ["2.1b9", "2.26"] {
            let c = cfg(&format!("variant = \"newreno\"\nns2_version = \"{v}\"")).unwrap();
            assert_eq!(c.min_rto, SimTime::from_secs(1), "{v}");
            assert_eq!(c.max_rto, SimTime::from_secs(100_000), "{v}");
            assert_eq!(c.init_rto, SimTime::from_secs(6), "{v}");
            assert!(!c.precision_reduce && !c.newreno_changes1 && !c.partial_window_deflation);
            assert_eq!(c.clock_granularity, SimTime::from_ms(10));
        }
        let c = cfg("ns2_version = \"2.27\"").unwrap();
        assert!(c.newreno_changes1 && c.partial_window_deflation && !c.precision_reduce);
        let c = cfg("ns2_version = \"2.26\"\nmin_rto = \"0.2s\"\nprecision_reduce = true").unwrap();
        assert_eq!(c.min_rto, SimTime::from_ms(200));
        assert!(c.precision_reduce);
        assert_eq!(c.init_rto, SimTime::from_secs(6));
    }

    #[test]
    fn a_preset_outside_the_ns2_profile_or_with_linux_is_refused() {
        let e = cfg("profile = \"rfc\"\nns2_version = \"2.26\"").unwrap_err();
        assert!(e.to_string().starts_with("flow[0].ns2_version"), "{e}");
        let e = cfg("variant = \"sack\"\ncc = \"cubic\"\nns2_version = \"2.26\"").unwrap_err();
        assert!(e.to_string().contains("Agent/TCP/Linux"), "{e}");
        assert!(cfg("variant = \"sack\"\ncc = \"cubic\"\nns2_version = \"2.35\"").is_ok());
    }
}
