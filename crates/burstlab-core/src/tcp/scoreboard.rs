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

use std::collections::BTreeSet;

/// Fast scoreboard: one bit per segment in a power-of-two ring covering `[una, una+cap)`.
/// Range counts use `popcount` over 64-bit words, so every query is O(window/64).
#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// Invariant: bit `s & mask` is set iff segment `s ∈ [una, una+cap)` has been SACKed.
    bits: Vec<u64>,
    mask: u64,
    una: u64,
    /// Number of set bits (SACKed segments ≥ `una`).
    sacked: u64,
    /// One past the highest SACKed segment (≤ `una` when nothing is SACKed).
    high_sacked: u64,
}

impl Scoreboard {
    /// A scoreboard able to hold `window` segments without growing.
    pub fn new(window: u64) -> Self {
        let cap = (window.max(64) * 2).next_power_of_two();
        Scoreboard {
            bits: vec![0; (cap / 64) as usize],
            mask: cap - 1,
            una: 0,
            sacked: 0,
            high_sacked: 0,
        }
    }
    fn cap(&self) -> u64 {
        self.mask + 1
    }
    #[inline]
    fn get(&self, s: u64) -> bool {
        let i = s & self.mask;
        self.bits[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }
    #[inline]
    fn set(&mut self, s: u64) {
        let i = s & self.mask;
        self.bits[(i >> 6) as usize] |= 1 << (i & 63);
    }
    #[inline]
    fn clear_bit(&mut self, s: u64) {
        let i = s & self.mask;
        self.bits[(i >> 6) as usize] &= !(1 << (i & 63));
    }
    fn grow(&mut self, need_end: u64) {
        let mut cap = self.cap();
        while need_end - self.una > cap {
            cap *= 2;
        }
        let mut nb = Scoreboard {
            bits: vec![0; (cap / 64) as usize],
            mask: cap - 1,
            ..self.clone()
        };
        nb.bits.iter_mut().for_each(|w| *w = 0);
        for s in self.una..self.high_sacked.max(self.una) {
            if self.get(s) {
                nb.set(s);
            }
        }
        *self = nb;
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
        s >= self.una && s < self.high_sacked && self.get(s)
    }

    /// Forgets everything (RFC 2018 §8 / RFC 6675 §5.1: after an RTO the SACK state is
    /// not trusted; ns-2 Sack1 clears its scoreboard on timeout).
    pub fn clear(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.sacked = 0;
        self.high_sacked = self.una;
    }

    /// Cumulative ACK: everything below `cum` is acknowledged.
    pub fn advance(&mut self, cum: u64) {
        if cum <= self.una {
            return;
        }
        if cum >= self.high_sacked || cum - self.una >= self.cap() {
            // Everything SACKed is now cumulatively acknowledged. Clear only what can be
            // set (the common ACK carries no SACK information: nothing to clear).
            if self.sacked > 0 {
                if self.high_sacked - self.una >= self.cap() {
                    self.bits.iter_mut().for_each(|w| *w = 0);
                } else {
                    for s in self.una..self.high_sacked {
                        self.clear_bit(s);
                    }
                }
            }
            self.sacked = 0;
            self.una = cum;
            self.high_sacked = cum;
            return;
        }
        let gone = self.count_range(self.una, cum);
        for s in self.una..cum {
            self.clear_bit(s);
        }
        self.sacked -= gone;
        self.una = cum;
    }

    /// Records SACK block `[start, end)`; the part below `una` is ignored.
    pub fn mark(&mut self, start: u64, end: u64) {
        let start = start.max(self.una);
        if end <= start {
            return;
        }
        if end - self.una > self.cap() {
            self.grow(end);
        }
        for s in start..end {
            if !self.get(s) {
                self.set(s);
                self.sacked += 1;
            }
        }
        self.high_sacked = self.high_sacked.max(end);
    }

    /// Number of SACKed segments in `[a, b)` (clamped to the ring).
    pub fn count_range(&self, a: u64, b: u64) -> u64 {
        let a = a.max(self.una);
        let b = b.min(self.high_sacked);
        if b <= a {
            return 0;
        }
        let mut n = 0u64;
        let mut s = a;
        while s < b {
            let i = s & self.mask;
            let off = i & 63;
            let take = (64 - off).min(b - s);
            let mut w = self.bits[(i >> 6) as usize] >> off;
            if take < 64 {
                w &= (1u64 << take) - 1;
            }
            n += w.count_ones() as u64;
            s += take;
        }
        n
    }

    /// First segment `s ∈ [a, b)` that is not SACKed.
    pub fn next_unsacked(&self, a: u64, b: u64) -> Option<u64> {
        let a = a.max(self.una);
        let mut s = a;
        while s < b {
            if s >= self.high_sacked {
                return Some(s);
            }
            let i = s & self.mask;
            let off = i & 63;
            let take = (64 - off).min(b - s);
            let mut w = !(self.bits[(i >> 6) as usize] >> off);
            if take < 64 {
                w &= (1u64 << take) - 1;
            }
            if w != 0 {
                return Some(s + w.trailing_zeros() as u64);
            }
            s += take;
        }
        None
    }

    /// The loss bound `L`: every un-SACKed segment below `L` satisfies `IsLost` (it has at
    /// least `dupthresh` SACKed segments above it), and none at or above `L` does.
    /// `L` is the `dupthresh`-th highest SACKed segment (or `una` if fewer are SACKed).
    pub fn lost_bound(&self, dupthresh: u32) -> u64 {
        let k = dupthresh.max(1) as u64;
        if self.sacked < k {
            return self.una;
        }
        // Walk down from high_sacked word by word.
        let mut need = k;
        let mut e = self.high_sacked;
        while e > self.una {
            // Start of the 64-segment word holding e − 1 (ring words align with seq/64).
            let s = ((e - 1) & !63).max(self.una);
            let c = self.count_range(s, e);
            if c >= need {
                // The answer is inside [s, e): scan bit by bit downward.
                let mut x = e;
                while x > s {
                    x -= 1;
                    if self.get(x) {
                        need -= 1;
                        if need == 0 {
                            return x;
                        }
                    }
                }
            }
            need -= c;
            e = s;
        }
        self.una
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
