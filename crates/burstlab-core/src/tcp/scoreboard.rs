//! SACK scoreboard (RFC 6675 §3–4) at segment granularity.
//!
//! Read first: [`Scoreboard`] (the fast ring bitmap used by the sender) and
//! [`RefScoreboard`] (a slow, literal transcription of RFC 6675 §4 `IsLost`, `SetPipe`
//! and `NextSeg`, used as the reference). [`check_against`] compares the two; the SACK
//! strategy runs it in debug builds on every ACK, and a seeded proptest fuzzes it.
//!
//! Notation: `una` = HighACK + 1 (the first unacknowledged segment), `high_data` =
//! HighData + 1 (one past the highest segment sent), `high_rxt` = one past the highest segment
//! retransmitted in the current recovery (HighRxt + 1). Every segment is one "octet" of
//! RFC 6675, so "DupThresh discontiguous SACKed sequences" and "(DupThresh − 1)·SMSS
//! bytes SACKed" coincide: `IsLost(s)` ⇔ at least `DupThresh` SACKed segments above `s`.

use super::bitring::BitRing;
use std::collections::BTreeSet;

/// Fast scoreboard: one bit per segment in a power-of-two [`BitRing`] covering
/// `[una, una+cap)`. Every update and query works on 64-bit words (masks to set and
/// clear ranges, popcount to count, trailing/leading zeros to find holes and the loss
/// bound), so a SACK block of `n` segments costs O(n/64) and `pipe` O(1) plus the
/// shorter side of one count.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// Invariant: bit `s` is set iff segment `s ∈ [una, high_sacked)` has been SACKed;
    /// every other bit is clear.
    bits: BitRing,
    una: u64,
    /// Number of set bits (SACKed segments ≥ `una`).
    sacked: u64,
    /// One past the highest SACKed segment (≤ `una` when nothing is SACKed).
    /// Invariant: `high_sacked − una ≤ cap`.
    high_sacked: u64,
}

impl Scoreboard {
    /// A scoreboard able to hold `window` segments without growing.
    pub fn new(window: u64) -> Self {
        Scoreboard {
            bits: BitRing::new(window.max(64) * 2),
            una: 0,
            sacked: 0,
            high_sacked: 0,
        }
    }
    fn cap(&self) -> u64 {
        self.bits.cap()
    }
    /// Bytes of the ring (for the run's memory guard).
    pub fn mem_bytes(&self) -> usize {
        (self.cap() / 8) as usize
    }
    fn grow(&mut self, need_end: u64) {
        let mut cap = self.cap();
        while need_end - self.una > cap {
            cap *= 2;
        }
        self.bits = self
            .bits
            .regrown(cap, self.una, self.high_sacked.max(self.una));
    }

    /// First unacknowledged segment.
    pub fn una(&self) -> u64 {
        self.una
    }
    pub fn sacked_count(&self) -> u64 {
        self.sacked
    }
    /// One past the highest SACKed segment, if any segment is SACKed.
    pub fn high_sacked(&self) -> Option<u64> {
        (self.sacked > 0).then_some(self.high_sacked)
    }
    pub fn is_sacked(&self, s: u64) -> bool {
        s >= self.una && s < self.high_sacked && self.bits.get(s)
    }

    /// Forgets everything (RFC 2018 §8 / RFC 6675 §5.1: after an RTO the SACK state is
    /// not trusted; ns-2 Sack1 clears its scoreboard on timeout).
    pub fn clear(&mut self) {
        if self.sacked > 0 {
            self.bits.clear_range(self.una, self.high_sacked);
        }
        self.sacked = 0;
        self.high_sacked = self.una;
    }

    /// Cumulative ACK: everything below `cum` is acknowledged.
    pub fn advance(&mut self, cum: u64) {
        if cum <= self.una {
            return;
        }
        if cum >= self.high_sacked {
            // Everything SACKed is now cumulatively acknowledged. Clear only what can be
            // set (the common ACK carries no SACK information: nothing to clear).
            if self.sacked > 0 {
                self.bits.clear_range(self.una, self.high_sacked);
            }
            self.sacked = 0;
            self.una = cum;
            self.high_sacked = cum;
            return;
        }
        // una < cum < high_sacked ≤ una + cap: the range lies inside the ring.
        self.sacked -= self.bits.clear_range(self.una, cum);
        self.una = cum;
    }

    /// Records SACK block `[start, end)` (RFC 6675 §4 `Update()`, run for every ACK that
    /// carries SACK information, §5); the part below `una` is ignored.
    pub fn mark(&mut self, start: u64, end: u64) {
        let start = start.max(self.una);
        if end <= start {
            return;
        }
        if end - self.una > self.cap() {
            self.grow(end);
        }
        self.sacked += self.bits.set_range(start, end);
        self.high_sacked = self.high_sacked.max(end);
    }

    /// Number of SACKed segments in `[a, b)`. Counts whichever is shorter: `[a, b)`
    /// itself or its complement in `[una, high_sacked)` (subtracted from `sacked`).
    pub fn count_range(&self, a: u64, b: u64) -> u64 {
        let a = a.max(self.una);
        let b = b.min(self.high_sacked);
        if b <= a {
            return 0;
        }
        let outside = (a - self.una) + (self.high_sacked - b);
        if outside < b - a {
            self.sacked
                - self.bits.count_ones(self.una, a)
                - self.bits.count_ones(b, self.high_sacked)
        } else {
            self.bits.count_ones(a, b)
        }
    }

    /// First segment `s ∈ [a, b)` that is not SACKed.
    pub fn next_unsacked(&self, a: u64, b: u64) -> Option<u64> {
        let a = a.max(self.una);
        if a >= b {
            return None;
        }
        let top = b.min(self.high_sacked);
        if a < top {
            if let Some(z) = self.bits.first_zero(a, top) {
                return Some(z);
            }
        }
        // Nothing at or above high_sacked is SACKed.
        (top.max(a) < b).then_some(top.max(a))
    }

    /// The loss bound `L`: every un-SACKed segment below `L` satisfies `IsLost` (it has at
    /// least `dupthresh` SACKed segments above it), and none at or above `L` does.
    /// `L` is the `dupthresh`-th highest SACKed segment (or `una` if fewer are SACKed).
    pub fn lost_bound(&self, dupthresh: u32) -> u64 {
        let k = dupthresh.max(1) as u64;
        if self.sacked < k {
            return self.una;
        }
        self.bits
            .kth_one_from_top(self.una, self.high_sacked, k)
            .unwrap_or(self.una)
    }

    /// RFC 6675 §4 `IsLost(s)`.
    pub fn is_lost(&self, s: u64, dupthresh: u32) -> bool {
        s >= self.una && !self.is_sacked(s) && s < self.lost_bound(dupthresh)
    }

    /// RFC 6675 §4 `SetPipe` for the segments in `[una, high_data)`.
    pub fn pipe(&self, high_data: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let una = self.una;
        if high_data <= una {
            return 0;
        }
        let unsacked = |a: u64, b: u64| -> u64 {
            let b = b.min(high_data);
            if b <= a {
                0
            } else {
                (b - a) - self.count_range(a, b)
            }
        };
        let l = self.lost_bound(dupthresh);
        // (a) un-SACKed and not lost; (b) un-SACKed and retransmitted (s < high_rxt).
        let not_lost = unsacked(una, high_data) - unsacked(una, l);
        let rexmitted = unsacked(una, high_rxt);
        not_lost + rexmitted
    }

    /// RFC 6675 §4 `NextSeg` rules (1) and (3) (retransmissions only). Rule (2), new
    /// data, is decided by the caller, which knows the window and the data limit.
    /// Returns `(seg, rule)`. The optional rescue retransmission, rule (4), is not used.
    pub fn next_rexmit(
        &self,
        high_data: u64,
        high_rxt: u64,
        dupthresh: u32,
    ) -> (Option<u64>, Option<u64>) {
        let from = high_rxt.max(self.una);
        let l = self.lost_bound(dupthresh).min(high_data);
        // (1) smallest un-SACKed s ≥ HighRxt+1 with IsLost(s).
        let r1 = if from < l {
            self.next_unsacked(from, l)
        } else {
            None
        };
        // (3) smallest un-SACKed s ≥ HighRxt+1 below the highest SACKed segment.
        let top = self.high_sacked().unwrap_or(self.una).min(high_data);
        let r3 = if from < top {
            self.next_unsacked(from, top)
        } else {
            None
        };
        (r1, r3)
    }
}

/// Slow RFC-literal reference scoreboard (a set of SACKed segments).
#[derive(Clone, Debug, Default)]
pub struct RefScoreboard {
    pub una: u64,
    pub sacked: BTreeSet<u64>,
}

impl RefScoreboard {
    pub fn advance(&mut self, cum: u64) {
        if cum > self.una {
            self.una = cum;
            self.sacked = self.sacked.split_off(&cum);
        }
    }
    pub fn mark(&mut self, start: u64, end: u64) {
        for s in start.max(self.una)..end {
            self.sacked.insert(s);
        }
    }
    pub fn clear(&mut self) {
        self.sacked.clear();
    }
    /// RFC 6675 §4 IsLost: DupThresh SACKed segments above `s`.
    pub fn is_lost(&self, s: u64, dupthresh: u32) -> bool {
        !self.sacked.contains(&s) && self.sacked.range(s + 1..).count() >= dupthresh as usize
    }
    /// RFC 6675 §4 SetPipe, one segment at a time.
    pub fn pipe(&self, high_data: u64, high_rxt: u64, dupthresh: u32) -> u64 {
        let mut pipe = 0;
        for s in self.una..high_data {
            if self.sacked.contains(&s) {
                continue;
            }
            if !self.is_lost(s, dupthresh) {
                pipe += 1; // (a)
            }
            if s < high_rxt {
                pipe += 1; // (b) S1 <= HighRxt
            }
        }
        pipe
    }
    /// RFC 6675 §4 NextSeg rules (1) and (3).
    pub fn next_rexmit(
        &self,
        high_data: u64,
        high_rxt: u64,
        dupthresh: u32,
    ) -> (Option<u64>, Option<u64>) {
        let from = high_rxt.max(self.una);
        let r1 =
            (from..high_data).find(|&s| !self.sacked.contains(&s) && self.is_lost(s, dupthresh));
        let top = self
            .sacked
            .iter()
            .next_back()
            .map(|&h| h + 1)
            .unwrap_or(self.una);
        let r3 = (from..high_data.min(top)).find(|&s| !self.sacked.contains(&s));
        (r1, r3)
    }
}

/// Compares the fast scoreboard with the reference; returns a description of the first
/// difference.
pub fn check_against(
    fast: &Scoreboard,
    slow: &RefScoreboard,
    high_data: u64,
    high_rxt: u64,
    dupthresh: u32,
) -> Result<(), String> {
    if fast.una() != slow.una {
        return Err(format!("una {} vs {}", fast.una(), slow.una));
    }
    if fast.sacked_count() != slow.sacked.len() as u64 {
        return Err(format!(
            "sacked {} vs {}",
            fast.sacked_count(),
            slow.sacked.len()
        ));
    }
    for s in slow.una..high_data {
        if fast.is_sacked(s) != slow.sacked.contains(&s) {
            return Err(format!("is_sacked({s})"));
        }
        if fast.is_lost(s, dupthresh) != slow.is_lost(s, dupthresh) {
            return Err(format!("is_lost({s})"));
        }
    }
    let (pf, ps) = (
        fast.pipe(high_data, high_rxt, dupthresh),
        slow.pipe(high_data, high_rxt, dupthresh),
    );
    if pf != ps {
        return Err(format!("pipe {pf} vs {ps}"));
    }
    let (nf, ns) = (
        fast.next_rexmit(high_data, high_rxt, dupthresh),
        slow.next_rexmit(high_data, high_rxt, dupthresh),
    );
    if nf != ns {
        return Err(format!("next_rexmit {nf:?} vs {ns:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn test_scoreboard_rfc6675_pipe_example() {
        // 10 segments outstanding, 0..=2 lost, 3..10 SACKed.
        let mut f = Scoreboard::new(16);
        let mut r = RefScoreboard::default();
        f.mark(3, 10);
        r.mark(3, 10);
        assert_eq!(f.lost_bound(3), 7);
        assert!(f.is_lost(0, 3) && f.is_lost(2, 3));
        assert_eq!(f.pipe(10, 0, 3), 0);
        assert_eq!(f.next_rexmit(10, 0, 3), (Some(0), Some(0)));
        assert_eq!(f.pipe(10, 1, 3), 1);
        check_against(&f, &r, 10, 1, 3).unwrap();
        f.advance(1);
        r.advance(1);
        check_against(&f, &r, 12, 2, 3).unwrap();
    }

    /// RFC 6675 §4 `IsLost`, `SetPipe` and `NextSeg` (1), (3) evaluated segment by
    /// segment from the reference's set in one downward pass (the reference's own
    /// methods are quadratic, too slow for 10^5-segment windows).
    fn literal(
        r: &RefScoreboard,
        high_data: u64,
        high_rxt: u64,
        dt: u32,
    ) -> (Vec<bool>, u64, (Option<u64>, Option<u64>)) {
        let n = (high_data - r.una) as usize;
        let mut lost = vec![false; n];
        let mut above = 0u64; // SACKed segments above the current one
        for i in (0..n).rev() {
            let s = r.una + i as u64;
            if r.sacked.contains(&s) {
                above += 1;
            } else {
                lost[i] = above >= dt as u64;
            }
        }
        let mut pipe = 0;
        let (mut r1, mut r3) = (None, None);
        let top = r.sacked.iter().next_back().map_or(r.una, |&h| h + 1);
        let from = high_rxt.max(r.una);
        for (i, &is_lost) in lost.iter().enumerate() {
            let s = r.una + i as u64;
            if r.sacked.contains(&s) {
                continue;
            }
            pipe += u64::from(!is_lost) + u64::from(s < high_rxt);
            if s >= from && is_lost && r1.is_none() {
                r1 = Some(s);
            }
            if s >= from && s < top && r3.is_none() {
                r3 = Some(s);
            }
        }
        (lost, pipe, (r1, r3))
    }

    #[test]
    fn test_scoreboard_large_windows_match_reference_seeded() {
        use rand_xoshiro::rand_core::{RngCore, SeedableRng};
        use rand_xoshiro::Xoshiro256PlusPlus;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x6675);
        fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
            rng.next_u64() % n.max(1)
        }
        for round in 0..24u64 {
            let w = [64u64, 100, 1000, 10_000, 100_000][round as usize % 5];
            // Start near a word boundary (…62, 63, 64, 65 …), and sometimes with a ring
            // smaller than the window so that `mark` has to grow it.
            let una0 = 64 * below(&mut rng, 1000) + [0, 1, 62, 63][round as usize % 4];
            let mut f = Scoreboard::new(if round % 3 == 0 { 8 } else { w });
            let mut r = RefScoreboard::default();
            f.advance(una0);
            r.advance(una0);
            let (mut high_data, mut high_rxt) = (una0, una0);
            let dt = 1 + below(&mut rng, 4) as u32;
            for step in 0..40 {
                match below(&mut rng, 10) {
                    0..=2 => high_data = (high_data + below(&mut rng, w / 2) + 1).min(r.una + w),
                    3..=6 => {
                        // A SACK block: short, word-sized or up to half the window.
                        let a = r.una + below(&mut rng, high_data - r.una + 1);
                        let len = match below(&mut rng, 3) {
                            0 => 1 + below(&mut rng, 3),
                            1 => 63 + below(&mut rng, 3),
                            _ => 1 + below(&mut rng, w / 2),
                        };
                        let e = (a + len).min(high_data);
                        f.mark(a, e);
                        r.mark(a, e);
                    }
                    7 => {
                        let c =
                            (r.una + below(&mut rng, (high_data - r.una) / 2 + 1)).min(high_data);
                        f.advance(c);
                        r.advance(c);
                    }
                    8 => {
                        high_rxt = (high_rxt.max(r.una) + below(&mut rng, w / 4 + 1)).min(high_data)
                    }
                    _ => {
                        if below(&mut rng, 4) == 0 {
                            f.clear();
                            r.clear();
                        }
                    }
                }
                let ctx = format!("round {round} step {step} w {w} dt {dt}");
                assert_eq!(f.una(), r.una, "{ctx}");
                assert_eq!(f.sacked_count(), r.sacked.len() as u64, "{ctx}");
                let (lost, pipe, next) = literal(&r, high_data, high_rxt, dt);
                let lb = f.lost_bound(dt);
                for (i, &l) in lost.iter().enumerate() {
                    let s = r.una + i as u64;
                    let sacked = f.is_sacked(s);
                    assert_eq!(sacked, r.sacked.contains(&s), "{ctx} sacked {s}");
                    assert_eq!(!sacked && s < lb, l, "{ctx} lost bound {lb}, {s}");
                    if i % 97 == 0 || s.abs_diff(lb) <= 2 {
                        assert_eq!(f.is_lost(s, dt), l, "{ctx} is_lost {s}");
                    }
                }
                assert_eq!(f.pipe(high_data, high_rxt, dt), pipe, "{ctx}");
                assert_eq!(f.next_rexmit(high_data, high_rxt, dt), next, "{ctx}");
                if high_data - r.una <= 300 {
                    assert_eq!(check_against(&f, &r, high_data, high_rxt, dt), Ok(()));
                }
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Send(u64),
        Sack(u64, u64),
        Ack(u64),
        Rxt(u64),
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (1u64..40).prop_map(Op::Send),
            (0u64..300, 1u64..30).prop_map(|(a, l)| Op::Sack(a, l)),
            (0u64..20).prop_map(Op::Ack),
            (0u64..10).prop_map(Op::Rxt),
            Just(Op::Clear),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, rng_seed: proptest::test_runner::RngSeed::Fixed(0xB0B5), ..ProptestConfig::default() })]
        #[test]
        fn prop_scoreboard_matches_reference(ops in proptest::collection::vec(op(), 1..80), dt in 1u32..5) {
            let mut f = Scoreboard::new(8);
            let mut r = RefScoreboard::default();
            let (mut high_data, mut high_rxt) = (0u64, 0u64);
            for o in ops {
                match o {
                    Op::Send(n) => high_data += n,
                    Op::Sack(a, l) => {
                        let a = r.una + a % (high_data - r.una + 1);
                        let e = (a + l).min(high_data);
                        f.mark(a, e);
                        r.mark(a, e);
                    }
                    Op::Ack(n) => {
                        let c = (r.una + n).min(high_data);
                        f.advance(c);
                        r.advance(c);
                    }
                    Op::Rxt(n) => high_rxt = (high_rxt.max(r.una) + n).min(high_data),
                    Op::Clear => { f.clear(); r.clear(); }
                }
                prop_assert_eq!(check_against(&f, &r, high_data, high_rxt, dt), Ok(()));
            }
        }
    }
}
