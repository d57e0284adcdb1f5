//! Delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation-00) and pacing
//! state for the `rfc` profile's sender, used by BBR (`cc/bbr.rs`).
//!
//! Read first: [`RateEstimator::on_ack`]. Each transmission records, in a ring indexed
//! by segment number (a power of two slots, at first `wm` or `RING_START_SEGMENTS` in
//! `tcp/mod.rs` if fewer, doubled whenever a segment is sent `cap` or more beyond
//! `snd_una`, so live segments never share a slot and the ring follows the flight, not
//! `wm`), the connection's `delivered` count and `delivered_time` and the
//! send time (draft §3.2 "Transmitting a data packet"). An ACK turns the most recently
//! sent of the segments it delivers into one rate sample (§3.3):
//! `delivery_rate = delivered / max(send_elapsed, ack_elapsed)`.
//!
//! Delivered counting is segment granular. A segment leaves the network when a
//! cumulative ACK covers it or, before that, when a duplicate ACK reports it (Linux's
//! `tcp_add_reno_sack` bookkeeping: each duplicate ACK counts one segment delivered,
//! and the cumulative ACK that follows counts the hole it fills plus the segments no
//! duplicate ACK counted, `tcp_remove_reno_sacks`). Samples are taken only
//! from cumulative ACKs, whose delivered segment is known exactly.

use crate::units::{SimTime, PS_PER_SEC};

/// Per-segment send state (draft §3.1 "per-packet state").
#[derive(Clone, Copy, Debug, Default)]
struct SegState {
    /// Segment number this slot holds (slots are reused modulo the ring size).
    seq: u64,
    sent: SimTime,
    delivered: u64,
    delivered_time: SimTime,
    first_sent: SimTime,
    retransmit: bool,
}

/// Bytes of one slot of the ring (for `memory.rs`).
pub const SLOT_BYTES: usize = std::mem::size_of::<SegState>();

/// One rate sample (draft §3.3 "rs").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Segments delivered over the sample's interval.
    pub delivered: u64,
    /// The interval, max(send_elapsed, ack_elapsed).
    pub interval: SimTime,
    /// delivered / interval, segments per second.
    pub rate_sps: f64,
    /// `C.delivered` when the sampled segment was sent (round counting, BBR §4.1.1.3).
    pub prior_delivered: u64,
    /// RTT of the sampled segment (`None` if it was retransmitted: Karn).
    pub rtt: Option<SimTime>,
    /// Segments newly delivered by this ACK.
    pub acked: u64,
}

/// Connection-wide delivery state (draft §3.1 "C") and the per-segment ring.
#[derive(Debug)]
pub struct RateEstimator {
    ring: Vec<SegState>,
    mask: u64,
    /// Segments delivered so far (C.delivered).
    pub delivered: u64,
    /// When `delivered` last grew (C.delivered_time).
    pub delivered_time: SimTime,
    /// Send time of the segment that began the current sampling flight (C.first_sent_time).
    first_sent: SimTime,
    /// Segments already counted as delivered by duplicate ACKs and not yet covered by a
    /// cumulative ACK.
    dup_credit: u64,
}

impl RateEstimator {
    pub fn new(wm: u64, now: SimTime) -> Self {
        let n = wm.clamp(1, super::RING_START_SEGMENTS).next_power_of_two();
        RateEstimator {
            ring: vec![SegState::default(); n as usize],
            mask: n - 1,
            delivered: 0,
            delivered_time: now,
            first_sent: now,
            dup_credit: 0,
        }
    }

    /// Bytes of the ring (for the run's memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.ring.len() * std::mem::size_of::<SegState>()
    }

    /// Doubles the ring until segment `seq` and every live segment from `una` on have
    /// slots of their own, keeping the live ones (`[una, una + cap)`).
    #[cold]
    fn grow(&mut self, una: u64, seq: u64) {
        let mut n = self.mask + 1;
        while seq - una >= n {
            n *= 2;
        }
        let mut ring = vec![SegState::default(); n as usize];
        for s in una..una + self.mask + 1 {
            let p = self.ring[(s & self.mask) as usize];
            if p.seq == s {
                ring[(s & (n - 1)) as usize] = p;
            }
        }
        self.ring = ring;
        self.mask = n - 1;
    }

    /// Draft §3.2: records the connection state in the segment's slot when it is sent;
    /// `una` is the first unacknowledged segment (`seq ≥ una`).
    pub fn on_send(
        &mut self,
        seq: u64,
        una: u64,
        now: SimTime,
        retransmit: bool,
        nothing_in_flight: bool,
    ) {
        if seq.saturating_sub(una) > self.mask {
            self.grow(una, seq);
        }
        if nothing_in_flight {
            // Nothing in flight: the sampling flight begins now.
            self.first_sent = now;
            self.delivered_time = now;
        }
        self.ring[(seq & self.mask) as usize] = SegState {
            seq,
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent,
            retransmit,
        };
    }

    /// A duplicate ACK: one segment has left the network.
    pub fn on_dupack(&mut self, now: SimTime) {
        self.delivered += 1;
        self.dup_credit += 1;
        self.delivered_time = now;
    }

    /// Draft §3.3: a cumulative ACK moved `snd_una` from `old_una` to `cum`. Returns the
    /// rate sample of the most recently sent segment among `[old_una, cum)`.
    pub fn on_ack(&mut self, old_una: u64, cum: u64, now: SimTime) -> Option<RateSample> {
        if cum <= old_una {
            return None;
        }
        let n = cum - old_una;
        // Linux `tcp_remove_reno_sacks`: "One ACK acked hole. The rest eat duplicate
        // ACKs": the first segment a cumulative ACK covers is the hole the duplicate
        // ACKs were waiting for, never one of the segments they reported, so at least
        // one segment is newly delivered (and every sample has `delivered` ≥ 1).
        let credited = (n - 1).min(self.dup_credit);
        self.dup_credit -= credited;
        self.delivered += n - credited;
        self.delivered_time = now;
        // The most recently sent segment among those delivered (largest `delivered`,
        // later send time on ties).
        let mut best: Option<SegState> = None;
        let lo = old_una.max(cum.saturating_sub(self.mask + 1));
        for s in lo..cum {
            let p = self.ring[(s & self.mask) as usize];
            if p.seq != s {
                continue;
            }
            if best.is_none_or(|b| (p.delivered, p.sent) >= (b.delivered, b.sent)) {
                best = Some(p);
            }
        }
        let p = best?;
        self.first_sent = p.sent;
        let send_elapsed = p.sent.saturating_sub(p.first_sent);
        let ack_elapsed = now.saturating_sub(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivered - p.delivered;
        if interval == SimTime::ZERO {
            return None;
        }
        Some(RateSample {
            delivered,
            interval,
            rate_sps: delivered as f64 * PS_PER_SEC as f64 / interval.ps() as f64,
            prior_delivered: p.delivered,
            rtt: (!p.retransmit).then(|| now.saturating_sub(p.sent)),
            acked: n,
        })
    }
}

/// Pacing (BBR §4.2.1): after each transmission the next one may leave no earlier than
/// one segment time at the pacing rate later.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    /// Time between segments (zero: pacing off).
    pub interval: SimTime,
    /// Earliest time of the next transmission.
    pub next_send: SimTime,
}

impl Pacer {
    /// Sets the rate in segments per second (≤ 0 or not finite: off). The interval is
    /// rounded up to a whole picosecond, so the paced rate never exceeds the one asked.
    pub fn set_rate_sps(&mut self, sps: f64) {
        self.interval = if sps.is_finite() && sps > 0.0 {
            SimTime::from_ps((PS_PER_SEC as f64 / sps).ceil().min(1e18) as u64)
        } else {
            SimTime::ZERO
        };
    }
    #[inline]
    pub fn blocked(&self, now: SimTime) -> bool {
        self.interval != SimTime::ZERO && now < self.next_send
    }
    #[inline]
    pub fn on_send(&mut self, now: SimTime) {
        if self.interval != SimTime::ZERO {
            self.next_send = now.checked_add(self.interval).unwrap_or(SimTime::MAX);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_rate_of_a_steady_flight() {
        // Segments sent 1 ms apart, each acked 50 ms after it was sent: 1000 seg/s.
        let mut r = RateEstimator::new(64, SimTime::ZERO);
        for s in 0..40u64 {
            r.on_send(s, 0, SimTime::from_ms(s), false, s == 0);
        }
        let mut last = None;
        for s in 0..40u64 {
            last = r.on_ack(s, s + 1, SimTime::from_ms(s + 50));
        }
        let rs = last.unwrap();
        assert_eq!(rs.rtt, Some(SimTime::from_ms(50)));
        // The first flight: the last segment was sent (39 ms) before anything was
        // delivered, so the sample spans from the flight's start (0) to its ACK (89 ms):
        // 40 segments over 89 ms (draft §3.3, ack_elapsed).
        assert_eq!(rs.delivered, 40);
        assert_eq!(rs.interval, SimTime::from_ms(89));
        assert!((rs.rate_sps - 40.0 / 0.089).abs() < 1e-9, "{}", rs.rate_sps);
    }

    #[test]
    fn test_dupacks_count_once() {
        let mut r = RateEstimator::new(8, SimTime::ZERO);
        for s in 0..5u64 {
            r.on_send(s, 0, SimTime::ZERO, false, s == 0);
        }
        r.on_dupack(SimTime::from_ms(10));
        r.on_dupack(SimTime::from_ms(11));
        assert_eq!(r.delivered, 2);
        let rs = r.on_ack(0, 5, SimTime::from_ms(20)).unwrap();
        assert_eq!(r.delivered, 5);
        assert_eq!(rs.acked, 5);
        assert_eq!(rs.rtt, Some(SimTime::from_ms(20)));
    }

    #[test]
    fn test_cumulative_ack_of_a_hole_delivers_it() {
        // Segments 0–9 sent; 0–4 lost together (one lost burst), 5–9 reported by five
        // duplicate ACKs. The retransmissions of 0–3 are acked one at a time, then the
        // one of 4 acks everything: every partial ACK delivers its hole (Linux
        // `tcp_remove_reno_sacks`), so no sample has nothing delivered.
        let mut r = RateEstimator::new(16, SimTime::ZERO);
        for s in 0..10u64 {
            r.on_send(s, 0, SimTime::from_ms(s), false, s == 0);
        }
        for k in 0..5u64 {
            r.on_dupack(SimTime::from_ms(100 + k));
        }
        assert_eq!(r.delivered, 5);
        for s in 0..5u64 {
            r.on_send(s, 0, SimTime::from_ms(200 + s), true, false);
        }
        for s in 0..4u64 {
            let rs = r.on_ack(s, s + 1, SimTime::from_ms(300 + s)).unwrap();
            assert_eq!(rs.delivered, 1 + s, "partial ACK {s}");
            assert_eq!(r.delivered, 6 + s);
        }
        let rs = r.on_ack(4, 10, SimTime::from_ms(304)).unwrap();
        assert_eq!(r.delivered, 10);
        assert_eq!(rs.delivered, 5);
    }

    /// The ring grows with the flight (from `RING_START_SEGMENTS`): against a ring
    /// allocated for the whole window at once (the reference), every sample is the
    /// same under random flights of up to 5000 segments with losses, retransmissions
    /// and duplicate ACKs.
    #[test]
    fn test_growing_ring_matches_a_ring_sized_for_the_window() {
        use rand_xoshiro::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x5eed);
        for round in 0..20 {
            let wm = 1 + rng.next_u64() % 5000;
            let mut grown = RateEstimator::new(wm, SimTime::ZERO);
            let mut full = RateEstimator::new(wm, SimTime::ZERO);
            let n = wm.next_power_of_two();
            full.ring = vec![SegState::default(); n as usize];
            full.mask = n - 1;
            let (mut una, mut nxt, mut t) = (0u64, 0u64, 0u64);
            for _ in 0..400 {
                t += 1 + rng.next_u64() % 1000;
                let now = SimTime::from_us(t);
                match rng.next_u64() % 4 {
                    0 | 1 => {
                        // Send up to the window, now and then a retransmission of una.
                        let k = rng.next_u64() % (wm + 1);
                        while nxt < una + wm && nxt < una + k {
                            for r in [&mut grown, &mut full] {
                                r.on_send(nxt, una, now, false, una == nxt);
                            }
                            nxt += 1;
                        }
                        if una < nxt && rng.next_u64() % 5 == 0 {
                            for r in [&mut grown, &mut full] {
                                r.on_send(una, una, now, true, false);
                            }
                        }
                    }
                    2 => {
                        for r in [&mut grown, &mut full] {
                            r.on_dupack(now);
                        }
                    }
                    _ => {
                        let cum = una + rng.next_u64() % (nxt - una + 1);
                        let a = grown.on_ack(una, cum, now);
                        let b = full.on_ack(una, cum, now);
                        assert_eq!(a, b, "round {round}: ack {una}..{cum}");
                        una = una.max(cum);
                    }
                }
                assert_eq!(grown.delivered, full.delivered);
            }
            assert!(grown.ring.len() <= full.ring.len());
        }
    }

    #[test]
    fn test_pacer_spaces_sends() {
        let mut p = Pacer::default();
        assert!(!p.blocked(SimTime::ZERO));
        p.set_rate_sps(1000.0);
        p.on_send(SimTime::ZERO);
        assert!(p.blocked(SimTime::from_us(999)));
        assert!(!p.blocked(SimTime::from_ms(1)));
    }
}
