//! The TCP receiver: cumulative ACKs, out-of-order buffer, SACK blocks, delayed ACKs.
//!
//! Read first: [`TcpReceiver::on_segment`].
//! - `cum` is the next segment expected; segments above it are remembered in a ring
//!   bitmap (grown only when a segment arrives further ahead than ever before, so
//!   steady state allocates nothing). Runs of held segments are found 64 at a time
//!   ([`BitRing`]): advancing `cum` over a run and finding a SACK block's edges cost
//!   O(run/64), not O(run). In debug builds each edge search is checked against the
//!   segment-at-a-time walk it replaces.
//! - SACK blocks (only for `Variant::Sack`): up to `cfg.sack_blocks`, the first one
//!   containing the segment that triggered the ACK, the others in order of most recent
//!   change (RFC 2018 §4).
//! - Delayed ACKs (`cfg.delayed_ack`, b = 2): an in-order segment is acknowledged at the
//!   latest with the next in-order segment or when the delayed-ACK timer fires
//!   (RFC 5681 §4.2); out-of-order, duplicate and gap-filling segments are acknowledged
//!   immediately (RFC 5681 §4.2, "SHOULD send an immediate ACK").

use super::bitring::BitRing;
use super::*;

/// At most this many recently changed blocks are remembered.
const RECENT: usize = 8;

/// Fields in the order one segment's arrival reads them (`#[repr(C)]` keeps it): with
/// hundreds of flows a receiver has left the caches between two of its segments, and
/// each further cache line its fields spread over is one more miss. The first line holds
/// everything an in-order segment reads and writes, the second the ns-2 sink's state;
/// the rest is read only for segments out of order or with delayed ACKs.
#[repr(C, align(64))]
pub struct TcpReceiver {
    // --- line 0
    /// Next expected segment. Invariant: segment `cum` has not arrived.
    cum: u64,
    received: u64,
    /// Segments held out of order (set bits).
    ooo: u64,
    /// Bit `s` set ⇔ segment `s ∈ (cum, cum+cap)` arrived out of order. Invariant: no
    /// other bit is set; in particular the bit of `cum` (ring position `cum & (cap−1)`)
    /// is clear, so every upward or downward search for a clear bit within one ring
    /// length of `cum` ends.
    bits: BitRing,
    /// An in-order segment awaits its (delayed) ACK; the timer fires at this time.
    delack_at: Option<SimTime>,
    // --- line 1
    sack: bool,
    delayed: bool,
    /// Size of an ACK without SACK blocks and of each block, bytes (ns-2's sink adds 8
    /// bytes per block; the RFC profile's ACKs have a fixed size).
    ack_bytes: u32,
    ack_block_bytes: u32,
    /// ns-2.35 sinks (`Profile::Ns2`): `TCPSink`, `TCPSink/DelAck` and `TCPSink/Sack1`
    /// rules for when to ACK and which SACK blocks to send (see [`Ns2Sink`]).
    ns2: Option<Ns2Sink>,
    // --- cold
    /// Segments at the start that carry no data (1: ns-2's SYN).
    syn_off: u64,
    /// One past the highest segment held out of order (meaningful when `ooo > 0`).
    ooo_high: u64,
    /// A member segment of each recently changed SACK block, most recent first.
    recent: [u64; RECENT],
    nrecent: usize,
    max_blocks: usize,
    delack_timeout: SimTime,
}

/// The ns-2.35 sink's own state: the highest segment seen (`maxseen_`) and the SACK
/// history stack (`SackStack`, as deep as the number of blocks).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Ns2Sink {
    // Read for every segment; the stack only while blocks are reported.
    maxseen: i64,
    cnt: usize,
    size: usize,
    syn: bool,
    stack: [(i64, i64); 4],
}

impl Ns2Sink {
    fn head(&self, k: usize) -> (i64, i64) {
        if k < self.size {
            self.stack[k]
        } else {
            (-1, -1)
        }
    }
    fn reset(&mut self) {
        for e in self.stack.iter_mut().take(self.cnt) {
            *e = (-1, -1);
        }
        self.cnt = 0;
    }
    fn push(&mut self, e: (i64, i64)) {
        if self.cnt >= self.size {
            self.cnt = self.size - 1;
        }
        let mut i = self.cnt;
        while i > 0 {
            self.stack[i] = self.stack[i - 1];
            i -= 1;
        }
        self.cnt += 1;
        self.stack[0] = e;
    }
    fn pop(&mut self, n: usize) {
        let mut i = n;
        while i + 1 < self.cnt {
            self.stack[i] = self.stack[i + 1];
            i += 1;
        }
        self.stack[i] = (-1, -1);
        self.cnt -= 1;
    }
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            cum: 0,
            // Grows with the flight (`ensure`), from at most RING_START_SEGMENTS.
            bits: BitRing::new((cfg.wm.max(32) as u64).min(super::RING_START_SEGMENTS) * 2),
            ooo: 0,
            ooo_high: 0,
            recent: [0; RECENT],
            nrecent: 0,
            sack: cfg.variant == Variant::Sack,
            max_blocks: (cfg.sack_blocks as usize).clamp(1, 4),
            delayed: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            delack_at: None,
            received: 0,
            ack_bytes: cfg.ack_bytes,
            ack_block_bytes: if cfg.profile == Profile::Ns2 { 8 } else { 0 },
            ns2: (cfg.profile == Profile::Ns2).then_some(Ns2Sink {
                maxseen: -1,
                stack: [(-1, -1); 4],
                cnt: 0,
                size: (cfg.sack_blocks as usize).clamp(1, 4),
                syn: cfg.syn,
            }),
            syn_off: u64::from(cfg.profile == Profile::Ns2 && cfg.syn),
        }
    }

    /// Bytes of the out-of-order ring (for the run's memory guard).
    pub fn mem_bytes(&self) -> usize {
        (self.bits.cap() / 8) as usize
    }

    #[inline]
    fn has(&self, s: u64) -> bool {
        s > self.cum && s < self.cum + self.bits.cap() && self.bits.get(s)
    }
    #[inline]
    fn flip(&mut self, s: u64) {
        self.bits.flip(s);
    }
    fn ensure(&mut self, s: u64) {
        let mut cap = self.bits.cap();
        if s - self.cum < cap {
            return;
        }
        while s - self.cum > cap - 1 {
            cap *= 2;
        }
        let hi = self.ooo_high.max(self.cum + 1);
        self.bits = self.bits.regrown(cap, self.cum + 1, hi);
    }
    /// The first segment `≥ x` that has not arrived: `cum` itself when `x ≤ cum`, else
    /// the end of the run of held segments starting at `x`.
    fn first_missing(&self, x: u64) -> u64 {
        let cap = self.bits.cap();
        let got = if x <= self.cum || x >= self.cum + cap {
            x.max(self.cum)
        } else {
            // Positions [x, cum + cap]: the last one is cum's own (clear) bit.
            self.bits
                .first_zero(x, self.cum + cap + 1)
                .unwrap_or(self.cum + cap)
        };
        #[cfg(debug_assertions)]
        {
            let mut w = x.max(self.cum);
            while self.has(w) {
                w += 1;
            }
            debug_assert_eq!(got, w, "first_missing({x}), cum {}", self.cum);
        }
        got
    }
    /// The highest segment in `[cum, e)` that has not arrived (`cum < e ≤ cum + cap`);
    /// `cum` itself has not, so there is one.
    fn last_missing_below(&self, e: u64) -> u64 {
        let got = self.bits.last_zero(self.cum, e).unwrap_or(self.cum);
        #[cfg(debug_assertions)]
        {
            let mut w = e - 1;
            while w > self.cum && self.has(w) {
                w -= 1;
            }
            debug_assert_eq!(got, w, "last_missing_below({e}), cum {}", self.cum);
        }
        got
    }
    /// Segment `cum` has just arrived in order: move `cum` past it and past the run of
    /// held segments that follows (if any).
    #[inline]
    fn advance_cum(&mut self) {
        self.cum += 1;
        if self.ooo != 0 && self.bits.get(self.cum) {
            self.absorb_run();
        }
    }
    /// `cum` is held: move it to the end of its run, clearing the run's bits one word at
    /// a time.
    #[inline(never)]
    fn absorb_run(&mut self) {
        // Held segments lie in [cum, cum + cap − 1); position cum + cap − 1 is the old
        // cum's bit, which is clear, so the run ends inside the ring.
        let cap = self.bits.cap();
        let end = self
            .bits
            .first_zero(self.cum, self.cum + cap)
            .unwrap_or(self.cum + cap - 1);
        #[cfg(debug_assertions)]
        {
            let mut w = self.cum;
            while self.bits.get(w) {
                w += 1;
            }
            debug_assert_eq!(end, w, "absorb_run from {}", self.cum);
        }
        let n = self.bits.clear_range(self.cum, end);
        debug_assert_eq!(n, end - self.cum);
        self.ooo -= n;
        self.cum = end;
    }

    pub fn on_segment(&mut self, now: SimTime, seq: u64) -> Option<AckSeg> {
        if self.ns2.is_some() {
            return self.on_segment_ns2(now, seq);
        }
        self.received += 1;
        if seq < self.cum || self.has(seq) {
            // Duplicate: acknowledge at once (it also answers any pending delayed ACK).
            return Some(self.make_ack(None));
        }
        if seq > self.cum {
            // Out of order: hold it, immediate duplicate ACK (RFC 5681 §4.2).
            self.ensure(seq);
            self.flip(seq);
            self.ooo += 1;
            self.ooo_high = self.ooo_high.max(seq + 1);
            self.touch(seq);
            return Some(self.make_ack(Some(seq)));
        }
        // In order.
        let filled_gap = self.ooo > 0;
        self.advance_cum();
        if filled_gap || !self.delayed {
            return Some(self.make_ack(None));
        }
        if self.delack_at.is_some() {
            // Second in-order segment: ACK now (b = 2).
            return Some(self.make_ack(None));
        }
        self.delack_at = Some(now + self.delack_timeout);
        None
    }
    /// ns-2.35 `TcpSink::recv` / `DelAckSink::recv` with `Acker::update` and, for SACK,
    /// `Sacker::append_ack`.
    fn on_segment_ns2(&mut self, now: SimTime, seq: u64) -> Option<AckSeg> {
        self.received += 1;
        let dup = seq < self.cum || self.has(seq);
        if !dup {
            if seq > self.cum {
                self.ensure(seq);
                self.flip(seq);
                self.ooo += 1;
                self.ooo_high = self.ooo_high.max(seq + 1);
            } else {
                self.advance_cum();
            }
        }
        // In place: a copy of the sink out and back (96 bytes) was written in parts and
        // read back whole by the ACK just after, a stall on every segment.
        let sink = self.ns2.as_mut()?;
        sink.maxseen = sink.maxseen.max(seq as i64);
        let (maxseen, syn) = (sink.maxseen, sink.syn);
        if self.delayed {
            // DelAckSink::recv: delay an in-order segment that is the new cumulative
            // point when no ACK is pending, unless it fills a gap below the highest
            // segment seen (RFC2581_immediate_ack_) or is the SYN (SYN_immediate_ack_).
            let newest_in_order = seq + 1 == self.cum;
            if self.delack_at.is_none() && newest_in_order {
                let gap_fill = (seq as i64) < maxseen;
                let syn = syn && seq == 0;
                if !gap_fill && !syn {
                    self.delack_at = Some(now + self.delack_timeout);
                    return None;
                }
            }
        }
        Some(self.make_ack_ns2(seq, dup))
    }

    /// The ACK of ns-2's sink for the segment `old` just received (`is_dup`).
    fn make_ack_ns2(&mut self, old: u64, is_dup: bool) -> AckSeg {
        self.delack_at = None;
        let mut ack = AckSeg {
            cum: self.cum,
            ..AckSeg::default()
        };
        if !self.sack {
            return ack;
        }
        let Some(&Ns2Sink { maxseen, cnt, .. }) = self.ns2.as_ref() else {
            return ack;
        };
        let seqno = self.cum as i64 - 1;
        let old = old as i64;
        if seqno >= maxseen && cnt != 0 {
            if let Some(sk) = self.ns2.as_mut() {
                sk.reset();
            }
        } else if seqno < maxseen || is_dup {
            // Sacker::append_ack: `right` = first segment ≥ old not seen (everything
            // ≤ seqno counts as seen), at most maxseen + 1; `left` = one past the
            // highest unseen segment below `right`, searched only if old is above seqno.
            let right = (self.first_missing(old as u64) as i64).min(maxseen + 1);
            let mut left = 0;
            let mut n = 0usize;
            if old > seqno {
                if right > seqno + 1 {
                    // Every segment ≤ seqno is seen, so the search stops at cum (unseen).
                    left = self.last_missing_below(right as u64) as i64 + 1;
                }
                ack.sack[n] = SackBlock {
                    start: left.max(0) as u64,
                    end: right as u64,
                };
                n += 1;
            }
            let (rl, rr) = (left, right);
            let Some(sk) = self.ns2.as_mut() else {
                return ack;
            };
            let mut k = 0;
            while n < sk.size {
                let (l, r) = sk.head(k);
                if l < 0 || r < 0 || r > sk.maxseen + 1 {
                    break;
                }
                if rl <= l && rr >= r {
                    sk.pop(k);
                    continue;
                }
                ack.sack[n] = SackBlock {
                    start: l as u64,
                    end: r as u64,
                };
                n += 1;
                k += 1;
            }
            if old > seqno {
                sk.push((rl, rr));
            }
            ack.nsack = n as u8;
        }
        ack
    }

    /// Moves the block containing `seq` to the front of the recency list (RFC 2018 §4).
    fn touch(&mut self, seq: u64) {
        let n = self.nrecent.min(RECENT - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = seq;
        self.nrecent = n + 1;
    }

    /// The block `[start, end)` of held segments containing `s` (which must be held):
    /// its edges are the nearest missing segments on either side (RFC 2018 §4: a block
    /// is a contiguous run of received segments).
    fn block_of(&self, s: u64) -> SackBlock {
        SackBlock {
            start: self.last_missing_below(s) + 1,
            end: self.first_missing(s + 1),
        }
    }

    fn make_ack(&mut self, _trigger: Option<u64>) -> AckSeg {
        self.delack_at = None;
        let mut ack = AckSeg {
            cum: self.cum,
            ..AckSeg::default()
        };
        if !self.sack || self.ooo == 0 {
            self.nrecent = 0;
            return ack;
        }
        // Walk the recency list: drop stale entries and entries whose block is already
        // reported; the first block is the one containing the triggering segment
        // (touched last, so it is at the front).
        let mut keep = 0;
        for i in 0..self.nrecent {
            let r = self.recent[i];
            if !self.has(r) {
                continue;
            }
            let b = self.block_of(r);
            if ack.sack[..ack.nsack as usize].contains(&b) {
                continue;
            }
            self.recent[keep] = r;
            keep += 1;
            if (ack.nsack as usize) < self.max_blocks {
                ack.sack[ack.nsack as usize] = b;
                ack.nsack += 1;
            }
        }
        self.nrecent = keep;
        ack
    }

    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.delack_at
    }
    pub fn on_delack_timer(&mut self, now: SimTime) -> Option<AckSeg> {
        match self.delack_at {
            // ns-2 DelAckSink::timeout acknowledges the saved (newest in-order) segment.
            Some(t) if t <= now && self.ns2.is_some() => {
                let old = self.cum.saturating_sub(1);
                Some(self.make_ack_ns2(old, false))
            }
            Some(t) if t <= now => Some(self.make_ack(None)),
            _ => None,
        }
    }
    /// Wire size of ACK `a`: ns-2's SACK sink adds 8 bytes per block
    /// (`Sacker::append_ack`); the RFC profile's ACKs keep `ack_bytes`.
    #[inline]
    pub fn ack_size(&self, a: &AckSeg) -> u32 {
        self.ack_bytes + self.ack_block_bytes * u32::from(a.nsack)
    }

    /// Data segments delivered in order to the application (the cumulative ACK point,
    /// without ns-2's SYN).
    pub fn delivered(&self) -> u64 {
        self.cum.saturating_sub(self.syn_off)
    }
    /// All data segments that arrived, duplicates included.
    pub fn received(&self) -> u64 {
        self.received
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rcv(sack: bool, delayed: bool) -> TcpReceiver {
        let mut cfg = TcpConfig::defaults(
            if sack { Variant::Sack } else { Variant::Reno },
            Profile::Ns2,
        );
        cfg.profile = Profile::Rfc; // the RFC receiver's rules
        cfg.delayed_ack = delayed;
        cfg.sack_blocks = 3;
        TcpReceiver::new(&cfg)
    }
    fn blocks(a: &AckSeg) -> Vec<(u64, u64)> {
        a.sack[..a.nsack as usize]
            .iter()
            .map(|b| (b.start, b.end))
            .collect()
    }
    const T: SimTime = SimTime::ZERO;

    #[test]
    fn test_receiver_cumulative_and_counts() {
        let mut r = rcv(false, false);
        assert_eq!(r.on_segment(T, 0).unwrap().cum, 1);
        assert_eq!(r.on_segment(T, 2).unwrap().cum, 1);
        assert_eq!(r.on_segment(T, 2).unwrap().cum, 1); // duplicate
        assert_eq!(r.on_segment(T, 1).unwrap().cum, 3);
        assert_eq!((r.delivered(), r.received()), (3, 4));
        assert_eq!(r.on_segment(T, 0).unwrap().nsack, 0);
    }

    #[test]
    fn test_receiver_sack_blocks_most_recent_first_rfc2018() {
        let mut r = rcv(true, false);
        r.on_segment(T, 0);
        assert_eq!(blocks(&r.on_segment(T, 2).unwrap()), vec![(2, 3)]);
        assert_eq!(blocks(&r.on_segment(T, 5).unwrap()), vec![(5, 6), (2, 3)]);
        assert_eq!(
            blocks(&r.on_segment(T, 8).unwrap()),
            vec![(8, 9), (5, 6), (2, 3)]
        );
        // A fourth block: only 3 fit; the oldest (2,3) is dropped from the ACK.
        assert_eq!(
            blocks(&r.on_segment(T, 11).unwrap()),
            vec![(11, 12), (8, 9), (5, 6)]
        );
        // Extending an old block makes it the most recent.
        assert_eq!(
            blocks(&r.on_segment(T, 3).unwrap()),
            vec![(2, 4), (11, 12), (8, 9)]
        );
        // Merging two blocks.
        assert_eq!(
            blocks(&r.on_segment(T, 4).unwrap()),
            vec![(2, 6), (11, 12), (8, 9)]
        );
        // Filling the first hole: cum jumps, the covered block disappears.
        let a = r.on_segment(T, 1).unwrap();
        assert_eq!(a.cum, 6);
        assert_eq!(blocks(&a), vec![(11, 12), (8, 9)]);
    }

    #[test]
    fn test_receiver_delayed_ack_every_second_segment_and_timer() {
        let mut r = rcv(false, true);
        let t1 = SimTime::from_ms(5);
        assert_eq!(r.on_segment(t1, 0), None);
        assert_eq!(r.delack_deadline(), Some(t1 + SimTime::from_ms(100)));
        assert_eq!(r.on_segment(t1, 1).unwrap().cum, 2);
        assert_eq!(r.delack_deadline(), None);
        assert_eq!(r.on_segment(t1, 2), None);
        // Early (stale) timer event: nothing.
        assert_eq!(r.on_delack_timer(t1), None);
        let a = r.on_delack_timer(t1 + SimTime::from_ms(100)).unwrap();
        assert_eq!(a.cum, 3);
        assert_eq!(r.delack_deadline(), None);
    }

    #[test]
    fn test_receiver_delayed_ack_immediate_on_out_of_order_and_gap_fill() {
        let mut r = rcv(true, true);
        assert_eq!(r.on_segment(T, 0), None);
        // Out of order → immediate duplicate ACK carrying SACK; clears the pending delack.
        let a = r.on_segment(T, 2).unwrap();
        assert_eq!((a.cum, blocks(&a)), (1, vec![(2, 3)]));
        assert_eq!(r.delack_deadline(), None);
        // Gap-filling segment → immediate ACK (RFC 5681 §4.2).
        let a = r.on_segment(T, 1).unwrap();
        assert_eq!((a.cum, a.nsack), (3, 0));
        // Back in order: delayed again.
        assert_eq!(r.on_segment(T, 3), None);
        // A duplicate segment → immediate ACK.
        assert_eq!(r.on_segment(T, 0).unwrap().cum, 4);
    }

    /// Random loss patterns over windows up to 10^5 segments, for the RFC receiver and
    /// ns-2's Sack1 sink, with rings that start small and grow. Every SACK block must be
    /// a maximal run of received segments (edges checked against a plain model); in
    /// debug builds every word-level edge search is also checked against the
    /// segment-at-a-time walk (`first_missing`, `last_missing_below`, `advance_cum`).
    #[test]
    fn test_receiver_sack_blocks_word_level_match_model_seeded() {
        use rand_xoshiro::rand_core::{RngCore, SeedableRng};
        use rand_xoshiro::Xoshiro256PlusPlus;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2018);
        // The debug cross-checks walk each block segment by segment: keep them cheap.
        let windows: &[u64] = if cfg!(debug_assertions) {
            &[70, 129, 1000, 3000]
        } else {
            &[70, 129, 1000, 10_000, 100_000]
        };
        for (round, &w) in windows.iter().cycle().take(3 * windows.len()).enumerate() {
            let ns2 = round % 2 == 1;
            let mut cfg = TcpConfig::defaults(Variant::Sack, Profile::Ns2);
            cfg.profile = if ns2 { Profile::Ns2 } else { Profile::Rfc };
            cfg.delayed_ack = false;
            cfg.sack_blocks = 3;
            cfg.wm = if round % 3 == 0 { 32 } else { w as u32 };
            let mut r = TcpReceiver::new(&cfg);
            let mut got = vec![false; w as usize + 1];
            // One window sent in order with bursts of losses (a few long, many short),
            // then the holes retransmitted in random order, some twice.
            let mut lost = Vec::new();
            let mut order = Vec::new();
            let mut s = 0u64;
            while s < w {
                let run = 1 + rng.next_u64() % (w / 8).max(2);
                order.extend(s..(s + run).min(w));
                s += run;
                let gap = 1 + rng.next_u64() % if rng.next_u64() % 4 == 0 { 70 } else { 3 };
                lost.extend(s..(s + gap).min(w));
                s += gap;
            }
            for i in (1..lost.len()).rev() {
                lost.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
            let dups: Vec<u64> = lost.iter().step_by(5).copied().collect();
            order.extend(lost);
            order.extend(dups);
            for (k, &seq) in order.iter().enumerate() {
                got[seq as usize] = true;
                let Some(a) = r.on_segment(T, seq) else {
                    continue;
                };
                let cum = got.iter().position(|&g| !g).unwrap_or(got.len()) as u64;
                let ctx = format!("round {round} w {w} ns2 {ns2} arrival {k} seq {seq}");
                assert_eq!(a.cum, cum, "{ctx}");
                for b in &a.sack[..a.nsack as usize] {
                    assert!(
                        cum < b.start && b.start < b.end && b.end <= w,
                        "{ctx} {b:?}"
                    );
                    assert!(
                        !got[b.start as usize - 1] && !got[b.end as usize],
                        "{ctx} {b:?}"
                    );
                    let mid = b.start + rng.next_u64() % (b.end - b.start);
                    assert!(
                        got[b.start as usize] && got[b.end as usize - 1],
                        "{ctx} {b:?}"
                    );
                    assert!(got[mid as usize], "{ctx} {b:?} at {mid}");
                }
                // The first block holds the segment that triggered the ACK (RFC 2018 §4).
                if seq >= cum {
                    let b = a.sack[0];
                    assert!(a.nsack >= 1 && b.start <= seq && seq < b.end, "{ctx}");
                }
            }
            assert_eq!(r.delivered(), w - u64::from(ns2 && cfg.syn));
        }
    }

    #[test]
    fn test_receiver_ring_grows_far_ahead() {
        let mut r = rcv(true, false);
        r.on_segment(T, 5);
        let a = r.on_segment(T, 10_000).unwrap();
        assert_eq!(blocks(&a), vec![(10_000, 10_001), (5, 6)]);
        for s in 0..5 {
            r.on_segment(T, s);
        }
        assert_eq!(r.delivered(), 6);
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::{align_of, offset_of};

    /// An in-order segment's fields fill line 0, the ns-2 sink's line 1 (see the docs
    /// of [`TcpReceiver`]); `Hosts::prefetch` asks for these two lines.
    #[test]
    fn in_order_fields_fill_line_0_and_the_sink_line_1() {
        assert_eq!(align_of::<TcpReceiver>(), 64);
        assert_eq!(offset_of!(TcpReceiver, delack_at) + 16, 64);
        assert_eq!(offset_of!(TcpReceiver, sack), 64);
        let sink = offset_of!(TcpReceiver, ns2);
        assert!(sink + offset_of!(Ns2Sink, syn) < 128);
        assert!(sink + offset_of!(Ns2Sink, stack) >= sink + 25);
    }
}
