//! Sack1's scoreboard for the `ns2` profile's sender (`tcp/ns2.rs`): ns-2.35's
//! `ScoreBoardRQ` (scoreboard-rq.cc) over the reassembly queue, as sorted disjoint
//! `[start, end)` blocks of SACKed segments above the cumulative ACK, with its routines
//! `UpdateScoreBoard`, `nexthole`, `GetNextRetran` and `GetNextUnacked`.
//!
//! Read first: [`SackBoard::update`]; the tests below check the board against a plain
//! set of segments and `nexthole` against ns-2's scan from the first block.

use crate::tcp::AckSeg;

/// Sack1's scoreboard (ns-2 `ScoreBoardRQ` over the reassembly queue): the SACKed blocks
/// above the cumulative ACK, `[start, end)` in segments, sorted and disjoint.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub(super) struct SackBoard {
    pub(super) blocks: Vec<(i64, i64)>,
    /// One past the highest segment retransmitted (`h_seqno_`), −1 when cleared.
    h_seqno: i64,
    /// Highest cumulative ACK + 1 seen by the scoreboard (`sack_min`).
    sack_min: i64,
    /// Whether the last update changed the scoreboard (`CheckUpdate`).
    pub(super) changed: bool,
}

impl SackBoard {
    pub(super) fn new() -> Self {
        SackBoard {
            blocks: Vec::with_capacity(8),
            h_seqno: -1,
            sack_min: -1,
            changed: false,
        }
    }
    pub(super) fn clear(&mut self) {
        self.blocks.clear();
        self.h_seqno = -1;
    }
    #[cfg(debug_assertions)]
    fn total(&self) -> i64 {
        self.blocks.iter().map(|b| b.1 - b.0).sum()
    }
    /// Adds `[s, e)`, merging with the blocks it overlaps or touches, and returns
    /// whether the board grew. The blocks are sorted, disjoint and never touch (every
    /// add merges touching neighbours), so both their starts and their ends increase
    /// along the board: binary searches find the blocks to merge, and `[s, e)` was held
    /// already exactly when one block covers it. O(log n) plus the blocks merged away,
    /// where a scan from the first block with an insert and removals was O(n).
    fn add(&mut self, s: i64, e: i64) -> bool {
        if e <= s {
            return false;
        }
        // Blocks i..j end at or after `s` and start at or before `e`.
        let i = self.blocks.partition_point(|b| b.1 < s);
        let j = i + self.blocks[i..].partition_point(|b| b.0 <= e);
        if j == i {
            self.blocks.insert(i, (s, e));
            return true;
        }
        let (a, b) = (self.blocks[i].0, self.blocks[j - 1].1);
        if j == i + 1 && a <= s && e <= b {
            return false;
        }
        self.blocks[i] = (s.min(a), e.max(b));
        self.blocks.drain(i + 1..j);
        true
    }
    /// `UpdateScoreBoard`: forget what the cumulative ACK `last_ack` covers, add the
    /// ACK's blocks, and note whether anything changed.
    pub(super) fn update(&mut self, last_ack: i64, ack: &AckSeg) {
        #[cfg(debug_assertions)]
        let old_total = self.total();
        self.changed = false;
        if self.sack_min <= last_ack {
            self.sack_min = last_ack + 1;
            if !self.blocks.is_empty() {
                // `cleartonxt`: drop the blocks the cumulative ACK has passed (a prefix:
                // the ends increase along the board).
                let m = self.sack_min;
                let passed = self.blocks.partition_point(|b| b.1 <= m);
                self.blocks.drain(..passed);
                if let Some(f) = self.blocks.first_mut() {
                    f.0 = f.0.max(m);
                }
                self.changed = true;
            }
        }
        let mut grew = false;
        for b in &ack.sack[..(ack.nsack as usize).min(4)] {
            grew |= self.add(b.start as i64, b.end as i64);
        }
        // `CheckUpdate`: the board changed if blocks were cleared or it grew (an add
        // never shrinks it, so this is "the total SACKed changed" of ns-2).
        #[cfg(debug_assertions)]
        debug_assert!(self.changed || grew == (old_total != self.total()));
        debug_assert!(self.blocks.windows(2).all(|w| w[0].1 < w[1].0));
        self.changed = self.changed || grew;
    }
    /// `nexthole`: the first segment ≥ `seq` not covered by a block, and the number of
    /// blocks above it (−1 when `seq` is above every block). By binary search: the
    /// first block that ends at or after `seq` decides.
    fn nexthole(&self, seq: i64) -> (i64, i64) {
        let k = self.blocks.partition_point(|b| b.1 < seq);
        let Some(&(a, b)) = self.blocks.get(k) else {
            return (-1, -1);
        };
        if a > seq {
            return (seq, (self.blocks.len() - k) as i64);
        }
        let above = self.blocks.len() - k - 1;
        (b, if above > 0 { above as i64 } else { -1 })
    }
    /// `GetNextRetran`: the next hole above the highest retransmission that has a SACKed
    /// block above it, or −1.
    pub(super) fn next_retran(&mut self) -> i64 {
        if self.h_seqno < self.sack_min {
            self.h_seqno = self.sack_min;
        }
        let (seq, cnt) = self.nexthole(self.h_seqno);
        if seq > 0 {
            if cnt <= 0 {
                return -1;
            }
            if seq > self.h_seqno {
                self.h_seqno = seq;
            }
            return seq;
        }
        -1
    }
    pub(super) fn mark_retran(&mut self, seq: i64) {
        if seq >= self.h_seqno {
            self.h_seqno = seq + 1;
        }
    }
    /// `GetNextUnacked`.
    pub(super) fn next_unacked(&self, seq: i64) -> i64 {
        self.nexthole(seq).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::SackBlock;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// The maximal runs of a set of segments, as `[start, end)` blocks.
    fn runs(set: &BTreeSet<i64>) -> Vec<(i64, i64)> {
        let mut v: Vec<(i64, i64)> = Vec::new();
        for &x in set {
            match v.last_mut() {
                Some(r) if r.1 == x => r.1 = x + 1,
                _ => v.push((x, x + 1)),
            }
        }
        v
    }

    /// `nexthole` by a scan from the first block, as ns-2's `ScoreBoard` does it.
    fn nexthole_scan(blocks: &[(i64, i64)], seq: i64) -> (i64, i64) {
        for (k, &(a, b)) in blocks.iter().enumerate() {
            if a > seq {
                return (seq, (blocks.len() - k) as i64);
            }
            if a <= seq && b >= seq {
                let above = blocks.len() - k - 1;
                return (b, if above > 0 { above as i64 } else { -1 });
            }
        }
        (-1, -1)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5ACB), ..ProptestConfig::default() })]
        /// The board against a set of segments: after every update its blocks are the
        /// set's maximal runs, `changed` says whether blocks were cleared or the set
        /// grew, and `nexthole` agrees with a scan.
        #[test]
        fn prop_board_matches_a_set_of_segments(
            acks in proptest::collection::vec(
                (0i64..6, proptest::collection::vec((0i64..120, 0i64..12), 0..5)),
                1..60,
            ),
        ) {
            let mut sb = SackBoard::new();
            let mut set = BTreeSet::new();
            let mut last_ack = -1i64;
            for (step, blocks) in acks {
                last_ack += step;
                let mut ack = AckSeg { cum: (last_ack + 1) as u64, ..AckSeg::default() };
                for (k, &(a, l)) in blocks.iter().take(4).enumerate() {
                    ack.sack[k] = SackBlock { start: a as u64, end: (a + l) as u64 };
                    ack.nsack += 1;
                }
                let before = set.len();
                let mut cleared = false;
                if sb.sack_min <= last_ack {
                    cleared = !set.is_empty();
                    set.retain(|&x| x > last_ack);
                }
                for b in &ack.sack[..ack.nsack as usize] {
                    set.extend(b.start as i64..b.end as i64);
                }
                sb.update(last_ack, &ack);
                let want = runs(&set);
                prop_assert_eq!(&sb.blocks, &want);
                prop_assert_eq!(sb.changed, cleared || set.len() != before);
                for q in [-1, last_ack, last_ack + 1, 30, 60, 119, 130] {
                    prop_assert_eq!(sb.nexthole(q), nexthole_scan(&want, q));
                }
            }
        }
    }
}
