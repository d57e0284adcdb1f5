//! Retransmission timer state: RFC 6298 estimator, Karn's algorithm, exponential backoff.
//!
//! Read first: [`RttEstimator::sample`] (RFC 6298 §2) and [`RttEstimator::timeout`].
//!
//! Arithmetic is integer picoseconds (exact, deterministic). SRTT is kept scaled by 8 and
//! RTTVAR by 4, as in BSD and ns-2 (`T_SRTT_BITS` = 3, `T_RTTVAR_BITS` = 2), so the
//! α = 1/8, β = 1/4 updates of RFC 6298 (2.3) lose no precision beyond 1 ps.
//! RTT samples are *not* quantised to the clock granularity `G`; `G` enters only through
//! the `max(G, K·RTTVAR)` term of RFC 6298 (2.2)/(2.3).

use crate::units::SimTime;

/// RFC 6298 (2.2) K.
pub const K: u64 = 4;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// 8 × SRTT in ps; `None` until the first sample (RFC 6298 (2.1)).
    srtt8: Option<u64>,
    /// 4 × RTTVAR in ps.
    rttvar4: u64,
    /// Unbacked-off RTO (already clamped to `[min_rto, max_rto]`).
    rto: SimTime,
    /// Backoff multiplier, a power of two in `[1, max_backoff]`.
    backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    g: SimTime,
    max_backoff: u32,
}

impl RttEstimator {
    pub fn new(
        init_rto: SimTime,
        min_rto: SimTime,
        max_rto: SimTime,
        g: SimTime,
        max_backoff: u32,
    ) -> Self {
        RttEstimator {
            srtt8: None,
            rttvar4: 0,
            // RFC 6298 (2.1): RTO ← initial value before any sample. Not clamped by
            // min_rto (ns-2 `rtxcur_init_` is not either, except through (2.4) below).
            rto: init_rto.min(max_rto),
            backoff: 1,
            min_rto,
            max_rto,
            g,
            max_backoff: max_backoff.max(1),
        }
    }

    /// Feeds one valid RTT measurement `r` (Karn: never from a retransmitted segment).
    /// Also collapses the backoff (a valid sample proves the path is alive; ns-2 resets
    /// `t_backoff_` when the timed segment is acknowledged).
    pub fn sample(&mut self, r: SimTime) {
        let r = r.ps();
        match self.srtt8 {
            None => {
                // RFC 6298 (2.2): SRTT ← R, RTTVAR ← R/2.
                self.srtt8 = Some(r * 8);
                self.rttvar4 = r * 2;
            }
            Some(srtt8) => {
                // RFC 6298 (2.3): RTTVAR ← 3/4 RTTVAR + 1/4 |SRTT − R'|,
                //                 SRTT ← 7/8 SRTT + 1/8 R'   (in this order).
                let srtt = srtt8 / 8;
                let err = srtt.abs_diff(r);
                // rttvar4' = 4·(3/4·rttvar + 1/4·err) = rttvar4 − rttvar4/4 + err
                self.rttvar4 = self.rttvar4 - self.rttvar4 / 4 + err;
                // srtt8' = 8·(7/8·srtt + 1/8·r) = srtt8 − srtt8/8 + r
                self.srtt8 = Some(srtt8 - srtt8 / 8 + r);
            }
        }
        let srtt = self.srtt8.unwrap() / 8;
        let var_term = (K * self.rttvar4 / 4).max(self.g.ps());
        // RFC 6298 (2.4) min RTO, (2.5) max RTO.
        self.rto = SimTime(srtt + var_term).max(self.min_rto).min(self.max_rto);
        self.backoff = 1;
    }

    /// RFC 6298 (5.5): back off the timer (RTO ← 2·RTO), capped at `max_backoff` × RTO
    /// (yu eq. 23: 64) and at `max_rto`.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff.saturating_mul(2)).min(self.max_backoff);
    }

    /// The current timeout interval: RTO × backoff, clamped to `max_rto`.
    pub fn timeout(&self) -> SimTime {
        self.rto
            .saturating_mul(self.backoff as u64)
            .min(self.max_rto)
    }
    /// The un-backed-off RTO.
    pub fn rto(&self) -> SimTime {
        self.rto
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
    /// SRTT, if any sample has been taken.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt8.map(|s| SimTime(s / 8))
    }
    pub fn rttvar(&self) -> SimTime {
        SimTime(self.rttvar4 / 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_secs(1),
            SimTime::from_secs(60),
            SimTime::from_ms(1),
            64,
        )
    }

    #[test]
    fn test_rto_first_sample_rfc6298_2_2() {
        let mut e = RttEstimator::new(
            SimTime::from_secs(3),
            SimTime::from_ms(10),
            SimTime::from_secs(60),
            SimTime::from_ms(1),
            64,
        );
        assert_eq!(e.timeout(), SimTime::from_secs(3));
        e.sample(SimTime::from_ms(100));
        // SRTT = 100 ms, RTTVAR = 50 ms, RTO = 100 + 4·50 = 300 ms.
        assert_eq!(e.srtt(), Some(SimTime::from_ms(100)));
        assert_eq!(e.rttvar(), SimTime::from_ms(50));
        assert_eq!(e.rto(), SimTime::from_ms(300));
        // Second sample 200 ms: RTTVAR = 3/4·50 + 1/4·100 = 62.5; SRTT = 112.5.
        e.sample(SimTime::from_ms(200));
        assert_eq!(e.rttvar(), SimTime(62_500_000_000));
        assert_eq!(e.srtt(), Some(SimTime(112_500_000_000)));
        assert_eq!(e.rto(), SimTime(112_500_000_000 + 250_000_000_000));
    }

    #[test]
    fn test_rto_min_rto_respected() {
        let mut e = est();
        e.sample(SimTime::from_ms(10));
        assert_eq!(e.rto(), SimTime::from_secs(1));
        // Granularity: zero variance still adds G.
        let mut e = RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::ZERO,
            SimTime::from_secs(60),
            SimTime::from_ms(1),
            64,
        );
        for _ in 0..200 {
            e.sample(SimTime::from_ms(50));
        }
        assert_eq!(e.rto(), SimTime::from_ms(51));
    }

    #[test]
    fn test_rto_backoff_doubles_and_caps_at_64() {
        let mut e = RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_ms(100),
            SimTime::from_secs(1000),
            SimTime::from_ms(1),
            64,
        );
        let mut seen = vec![e.timeout().ps() / 1_000_000_000];
        for _ in 0..9 {
            e.back_off();
            seen.push(e.timeout().ps() / 1_000_000_000);
        }
        assert_eq!(
            seen,
            vec![1000, 2000, 4000, 8000, 16000, 32000, 64000, 64000, 64000, 64000]
        );
        // A valid sample collapses the backoff.
        e.sample(SimTime::from_ms(100));
        assert_eq!(e.backoff(), 1);
        // max_rto also caps.
        let mut e = est();
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.timeout(), SimTime::from_secs(60));
    }
}
