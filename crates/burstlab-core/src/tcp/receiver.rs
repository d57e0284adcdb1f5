//! The TCP receiver: cumulative ACKs, out-of-order buffer, SACK blocks, delayed ACKs.
//!
//! Read first: [`TcpReceiver::on_segment`].
//! - `cum` is the next segment expected; segments above it are remembered in a ring
//!   bitmap (grown only when a segment arrives further ahead than ever before, so
//!   steady state allocates nothing).
//! - SACK blocks (only for `Variant::Sack`): up to `cfg.sack_blocks`, the first one
//!   containing the segment that triggered the ACK, the others in order of most recent
//!   change (RFC 2018 §4).
//! - Delayed ACKs (`cfg.delayed_ack`, b = 2): an in-order segment is acknowledged at the
//!   latest with the next in-order segment or when the delayed-ACK timer fires
//!   (RFC 5681 §4.2); out-of-order, duplicate and gap-filling segments are acknowledged
//!   immediately (RFC 5681 §4.2, "SHOULD send an immediate ACK").

use super::*;

/// At most this many recently changed blocks are remembered.
const RECENT: usize = 8;

pub struct TcpReceiver {
    /// Next expected segment. Invariant: segment `cum` has not arrived.
    cum: u64,
    /// Bit `s & mask` set ⇔ segment `s ∈ (cum, cum+cap)` arrived out of order.
    bits: Vec<u64>,
    mask: u64,
    /// Segments held out of order (set bits).
    ooo: u64,
    /// One past the highest segment held out of order (meaningful when `ooo > 0`).
    ooo_high: u64,
    /// A member segment of each recently changed SACK block, most recent first.
    recent: [u64; RECENT],
    nrecent: usize,
    sack: bool,
    max_blocks: usize,
    delayed: bool,
    delack_timeout: SimTime,
    /// An in-order segment awaits its (delayed) ACK; the timer fires at this time.
    delack_at: Option<SimTime>,
    received: u64,
    /// ns-2.35 sinks (`Profile::Ns2`): `TCPSink`, `TCPSink/DelAck` and `TCPSink/Sack1`
    /// rules for when to ACK and which SACK blocks to send (see [`Ns2Sink`]).
    ns2: Option<Ns2Sink>,
    /// Segments at the start that carry no data (1: ns-2's SYN).
    syn_off: u64,
}

/// The ns-2.35 sink's own state: the highest segment seen (`maxseen_`) and the SACK
/// history stack (`SackStack`, as deep as the number of blocks).
#[derive(Clone, Copy, Debug)]
struct Ns2Sink {
    maxseen: i64,
    stack: [(i64, i64); 4],
    cnt: usize,
    size: usize,
    syn: bool,
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
        let cap = ((cfg.wm.max(32) as u64) * 2).next_power_of_two();
        TcpReceiver {
            cum: 0,
            bits: vec![0; (cap / 64) as usize],
            mask: cap - 1,
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

    #[inline]
    fn has(&self, s: u64) -> bool {
        s > self.cum && s < self.cum + self.mask + 1 && {
            let i = s & self.mask;
            self.bits[(i >> 6) as usize] >> (i & 63) & 1 == 1
        }
    }
    #[inline]
    fn flip(&mut self, s: u64) {
        let i = s & self.mask;
        self.bits[(i >> 6) as usize] ^= 1 << (i & 63);
    }
    fn ensure(&mut self, s: u64) {
        if s - self.cum <= self.mask {
            return;
        }
        let mut cap = self.mask + 1;
        while s - self.cum > cap - 1 {
            cap *= 2;
        }
        let old: Vec<u64> = (self.cum + 1..self.ooo_high)
            .filter(|&x| self.has(x))
            .collect();
        self.bits = vec![0; (cap / 64) as usize];
        self.mask = cap - 1;
        for x in old {
            self.flip(x);
        }
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
        self.cum += 1;
        while self.ooo > 0 && self.has_at_cum() {
            self.flip(self.cum);
            self.ooo -= 1;
            self.cum += 1;
        }
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
                self.cum += 1;
                while self.ooo > 0 && self.has_at_cum() {
                    self.flip(self.cum);
                    self.ooo -= 1;
                    self.cum += 1;
                }
            }
        }
        let mut sink = self.ns2?;
        sink.maxseen = sink.maxseen.max(seq as i64);
        self.ns2 = Some(sink);
        if self.delayed {
            // DelAckSink::recv: delay an in-order segment that is the new cumulative
            // point when no ACK is pending, unless it fills a gap below the highest
            // segment seen (RFC2581_immediate_ack_) or is the SYN (SYN_immediate_ack_).
            let newest_in_order = seq + 1 == self.cum;
            if self.delack_at.is_none() && newest_in_order {
                let gap_fill = (seq as i64) < sink.maxseen;
                let syn = sink.syn && seq == 0;
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
        let Some(mut sk) = self.ns2 else {
            return ack;
        };
        let seqno = self.cum as i64 - 1;
        let old = old as i64;
        if seqno >= sk.maxseen && sk.cnt != 0 {
            sk.reset();
        } else if seqno < sk.maxseen || is_dup {
            let seen = |r: &Self, i: i64| i <= seqno || r.has(i as u64);
            let mut right = -1;
            let mut i = old;
            while i <= sk.maxseen {
                if !seen(self, i) {
                    right = i;
                    break;
                }
                i += 1;
            }
            if right == -1 {
                right = sk.maxseen + 1;
            }
            let mut left = 0;
            let mut n = 0usize;
            if old > seqno {
                let mut j = right - 1;
                while j > seqno {
                    if !seen(self, j) {
                        left = j + 1;
                        break;
                    }
                    j -= 1;
                }
                ack.sack[n] = SackBlock {
                    start: left.max(0) as u64,
                    end: right as u64,
                };
                n += 1;
            }
            let (rl, rr) = (left, right);
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
        self.ns2 = Some(sk);
        ack
    }

    fn has_at_cum(&self) -> bool {
        let i = self.cum & self.mask;
        self.bits[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// Moves the block containing `seq` to the front of the recency list (RFC 2018 §4).
    fn touch(&mut self, seq: u64) {
        let n = self.nrecent.min(RECENT - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = seq;
        self.nrecent = n + 1;
    }

    /// The block `[start, end)` of held segments containing `s` (which must be held).
    fn block_of(&self, s: u64) -> SackBlock {
        let mut a = s;
        while a > self.cum + 1 && self.has(a - 1) {
            a -= 1;
        }
        let mut e = s + 1;
        while self.has(e) {
            e += 1;
        }
        SackBlock { start: a, end: e }
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
