//! ns-2's `ScoreBoard1` (scoreboard1.cc), the SACK scoreboard of `Agent/TCP/Linux`:
//! FACK-style loss marking over runs of segments with one state each.
//!
//! Read first: [`Sb1::update`]. A segment is lost once the highest SACKed segment is
//! more than [`SB_DUPTHRESH`] beyond it; a retransmission is lost once a later one is
//! SACKed or the highest SACK passes the `snd_nxt` it was sent at.

use crate::tcp::AckSeg;

// Scoreboard node states (scoreboard1.h SKB_FLAG_*).
pub(super) const INFLIGHT: u8 = 0;
pub(super) const SACKED: u8 = 1;
pub(super) const LOST: u8 = 2;
pub(super) const RETRANSMITTED: u8 = 4;

// ACK flags (ns-linux-util.h FLAG_*).
pub(super) const FLAG_DATA_SACKED: u8 = 2;
pub(super) const FLAG_DATA_ACKED: u8 = 4;
pub(super) const FLAG_DATA_LOST: u8 = 8;
pub(super) const FLAG_UNSURE_TSTAMP: u8 = 16;
/// FLAG_CA_ALERT without ECN.
pub(super) const FLAG_CA_ALERT: u8 = FLAG_DATA_SACKED;
/// FLAG_NOT_DUP.
pub(super) const FLAG_NOT_DUP: u8 = FLAG_DATA_ACKED;

/// ns-2's `ScoreBoard1::UpdateScoreBoard` default `dupack_threshold`.
pub(super) const SB_DUPTHRESH: i64 = 3;

/// Bytes of one node of the list (for `memory.rs`).
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// One run of segments with one state (`ScoreBoardNode1`): `[seq, nxt]` inclusive, or
/// for a retransmitted segment `seq` alone with `nxt` the `snd_nxt` it was resent at.
#[derive(Clone, Copy, Debug)]
struct Node {
    flag: u8,
    seq: i64,
    nxt: i64,
    rtx: i64,
}

impl Node {
    pub(super) fn new(seq: i64, nxt: i64, flag: u8) -> Self {
        Node {
            flag,
            seq,
            nxt,
            rtx: 0,
        }
    }
    pub(super) fn end(&self) -> i64 {
        if self.flag == RETRANSMITTED {
            self.seq
        } else {
            self.nxt
        }
    }
    pub(super) fn len(&self) -> i64 {
        if self.flag == RETRANSMITTED {
            1
        } else {
            self.nxt + 1 - self.seq
        }
    }
    pub(super) fn set_flag(&mut self, f: u8) {
        if self.flag == RETRANSMITTED {
            self.nxt = self.seq;
        }
        self.flag = f;
    }
}

/// ns-2's `ScoreBoard1` (scoreboard1.cc) over a vector of runs, head first; `nxt` (the
/// run where the search for the next retransmission starts, `nxt_to_retrx_`) is an index
/// kept valid across inserts and removals.
#[derive(Clone, Debug, Default)]
pub(super) struct Sb1 {
    nodes: Vec<Node>,
    nxt: Option<usize>,
    acked_rtx_id: i64,
    rtx_id: i64,
    fack: i64,
    fack_out: i64,
    sack_out: i64,
}

impl Sb1 {
    /// Bytes of its hole list (for the run's memory guard).
    pub(super) fn mem_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }
    pub(super) fn new() -> Self {
        let mut s = Sb1 {
            nodes: Vec::with_capacity(16),
            ..Sb1::default()
        };
        s.clear();
        s
    }
    pub(super) fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// `ClearScoreBoard`.
    pub(super) fn clear(&mut self) {
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
        self.fack_out = 0;
        self.sack_out = 0;
        self.fack = 0;
        self.nxt = None;
        self.nodes.clear();
    }
    pub(super) fn packets_in_flight(&self, snd_una: i64, snd_nxt: i64) -> i64 {
        snd_nxt - snd_una - self.fack_out - self.sack_out
    }
    /// `Split(seq)`: run `i` keeps `[seq_i, seq − 1]`, a new run `[seq, end]` follows it.
    pub(super) fn split(&mut self, i: usize, seq: i64) {
        let n = self.nodes[i];
        self.nodes.insert(i + 1, Node::new(seq, n.nxt, n.flag));
        self.nodes[i].nxt = seq - 1;
        if let Some(x) = self.nxt {
            if x > i {
                self.nxt = Some(x + 1);
            }
        }
    }
    /// `Merge()`: run `i` absorbs run `i + 1`.
    pub(super) fn merge(&mut self, i: usize) {
        self.nodes[i].nxt = self.nodes[i + 1].nxt;
        self.nodes.remove(i + 1);
        if let Some(x) = self.nxt {
            if x > i + 1 {
                self.nxt = Some(x - 1);
            } else if x == i + 1 {
                self.nxt = Some(i);
            }
        }
    }
    pub(super) fn mergeable(&self, i: usize) -> bool {
        i + 1 < self.nodes.len()
            && self.nodes[i + 1].flag != RETRANSMITTED
            && self.nodes[i + 1].flag == self.nodes[i].flag
    }
    /// `CleanRtxQueue`: forget what the cumulative ACK covers. Returns whether a
    /// later retransmission than any before was acknowledged.
    pub(super) fn clean(&mut self, last_ack: i64, flag: &mut u8) -> bool {
        let mut changed = false;
        while let Some(&h) = self.nodes.first() {
            // ShouldClean: 0 untouched, −1 whole run, > 0 its first n segments.
            let cmp = if last_ack < h.seq {
                0
            } else if h.flag == RETRANSMITTED || last_ack >= h.nxt {
                -1
            } else {
                last_ack + 1 - h.seq
            };
            if cmp == 0 {
                break;
            }
            let n = if cmp < 0 { h.len() } else { cmp };
            match h.flag {
                SACKED => self.sack_out -= n,
                LOST => self.fack_out -= n,
                _ => {}
            }
            if cmp < 0 {
                if h.flag == RETRANSMITTED {
                    if h.rtx > self.acked_rtx_id {
                        changed = true;
                        self.acked_rtx_id = h.rtx;
                    }
                    *flag |= FLAG_UNSURE_TSTAMP;
                }
                self.nodes.remove(0);
                self.nxt = match self.nxt {
                    Some(0) if self.nodes.is_empty() => None,
                    Some(0) => Some(0),
                    Some(x) => Some(x - 1),
                    None => None,
                };
            } else {
                self.nodes[0].seq = last_ack + 1;
                break;
            }
        }
        changed
    }

    /// `UpdateScoreBoard(last_ack, tcph)`: returns the ACK flags it raises.
    pub(super) fn update(&mut self, last_ack: i64, ack: &AckSeg) -> u8 {
        let mut flag = 0u8;
        let mut thorough = self.clean(last_ack, &mut flag);
        if self.nodes.is_empty() {
            self.clear();
            thorough = false;
        }
        let nsa = ack.nsack as usize;
        if !thorough && nsa == 0 {
            return flag;
        }
        // D-SACK filter and insertion sort by left edge.
        let mut left = [0i64; 4];
        let mut right = [0i64; 4];
        let mut n = 0usize;
        for b in &ack.sack[..nsa.min(4)] {
            let (l, r) = (b.start as i64, b.end as i64);
            if l >= last_ack {
                let mut j = n;
                n += 1;
                while j > 0 && left[j - 1] > l {
                    left[j] = left[j - 1];
                    right[j] = right[j - 1];
                    j -= 1;
                }
                left[j] = l;
                right[j] = r;
            }
        }
        if !thorough && n == 0 {
            return flag;
        }
        if n > 0 && self.fack < right[n - 1] - 1 {
            self.fack = right[n - 1] - 1;
            thorough = true;
        }
        if self.nodes.is_empty() {
            self.nodes
                .push(Node::new(last_ack + 1, self.fack, INFLIGHT));
        }
        self.nxt = None;
        let lost_thr = self.fack - (SB_DUPTHRESH + 1);
        let mut now = Some(0usize);
        let mut prev: Option<usize> = None;
        let mut si = 0usize;
        while let Some(c) = now {
            if !(si < n || thorough) {
                break;
            }
            if self.nodes[c].flag != SACKED {
                while si < n && right[si] <= self.nodes[c].seq {
                    si += 1;
                }
                if si < n && left[si] <= self.nodes[c].end() {
                    if left[si] > self.nodes[c].seq {
                        self.split(c, left[si]);
                    } else {
                        if right[si] <= self.nodes[c].end() {
                            self.split(c, right[si]);
                        }
                        let k = self.nodes[c].len();
                        match self.nodes[c].flag {
                            LOST => self.fack_out -= k,
                            RETRANSMITTED => {
                                self.acked_rtx_id = self.nodes[c].rtx;
                                flag |= FLAG_UNSURE_TSTAMP;
                                thorough = true;
                            }
                            _ => {}
                        }
                        self.sack_out += k;
                        flag |= FLAG_DATA_SACKED;
                        self.nodes[c].set_flag(SACKED);
                    }
                }
                if si >= n || left[si] > self.nodes[c].end() {
                    match self.nodes[c].flag {
                        RETRANSMITTED => {
                            let nd = self.nodes[c];
                            if nd.nxt <= self.fack || nd.rtx + SB_DUPTHRESH + 1 < self.acked_rtx_id
                            {
                                self.nodes[c].set_flag(LOST);
                                self.fack_out += 1;
                                flag |= FLAG_DATA_LOST;
                                self.nxt.get_or_insert(c);
                            }
                        }
                        INFLIGHT if self.nodes[c].seq <= lost_thr => {
                            if lost_thr < self.nodes[c].end() {
                                self.split(c, lost_thr + 1);
                            }
                            self.nodes[c].set_flag(LOST);
                            self.fack_out += self.nodes[c].len();
                            flag |= FLAG_DATA_LOST;
                            self.nxt.get_or_insert(c);
                        }
                        LOST => {
                            self.nxt.get_or_insert(c);
                        }
                        _ => {}
                    }
                }
            }
            let p = match prev {
                Some(p) if self.mergeable(p) => {
                    self.merge(p);
                    p
                }
                _ => {
                    prev = Some(c);
                    c
                }
            };
            if p + 1 == self.nodes.len() && self.nodes[p].end() < self.fack {
                let s = self.nodes[p].end() + 1;
                self.nodes.push(Node::new(s, self.fack, INFLIGHT));
            }
            now = (p + 1 < self.nodes.len()).then_some(p + 1);
        }
        flag
    }

    /// `MarkLoss(snd_una, snd_nxt)` on a timeout: every unSACKed segment is lost.
    pub(super) fn mark_loss(&mut self, snd_una: i64, snd_nxt: i64) {
        self.nxt = None;
        let mut i = 0usize;
        let mut prev: Option<usize> = None;
        let mut last_lost = false;
        while i < self.nodes.len() {
            let mut cur = i;
            if self.nodes[cur].flag & SACKED == 0 {
                if self.nodes[cur].flag & LOST == 0 {
                    self.fack_out += self.nodes[cur].end() - self.nodes[cur].seq + 1;
                }
                self.nodes[cur].set_flag(LOST);
                match prev {
                    Some(p) if last_lost => {
                        self.merge(p);
                        cur = p;
                    }
                    _ => {
                        self.nxt.get_or_insert(cur);
                    }
                }
                last_lost = true;
            } else {
                last_lost = false;
            }
            prev = Some(cur);
            i = cur + 1;
            if i == self.nodes.len() && self.nodes[cur].end() + 1 < snd_nxt {
                let s = self.nodes[cur].end() + 1;
                self.nodes.push(Node::new(s, snd_nxt - 1, INFLIGHT));
            }
        }
        if prev.is_none() && snd_una < snd_nxt {
            self.nodes.push(Node::new(snd_una, snd_nxt - 1, LOST));
            self.nxt = Some(0);
            self.fack_out += snd_nxt - snd_una;
        }
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
    }

    /// `GetNextRetran`: the first lost segment from `nxt` on, or −1.
    pub(super) fn next_retran(&mut self) -> i64 {
        while let Some(x) = self.nxt {
            if x >= self.nodes.len() {
                self.nxt = None;
            } else if self.nodes[x].flag != LOST {
                self.nxt = Some(x + 1);
            } else {
                return self.nodes[x].seq;
            }
        }
        -1
    }

    /// `MarkRetran(seq, snd_nxt)`: the first segment of the run at `nxt` is resent.
    pub(super) fn mark_retran(&mut self, snd_nxt: i64) {
        let Some(x) = self.nxt else { return };
        self.fack_out -= 1;
        if self.nodes[x].nxt > self.nodes[x].seq {
            let s = self.nodes[x].seq + 1;
            self.split(x, s);
        }
        let nd = &mut self.nodes[x];
        nd.flag = RETRANSMITTED;
        nd.nxt = snd_nxt;
        nd.rtx = self.rtx_id;
        self.rtx_id += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::SackBlock;

    fn sack(blocks: &[(u64, u64)]) -> AckSeg {
        let mut a = AckSeg::default();
        for (i, &(s, e)) in blocks.iter().enumerate() {
            a.sack[i] = SackBlock { start: s, end: e };
        }
        a.nsack = blocks.len() as u8;
        a
    }

    #[test]
    fn test_scoreboard_marks_fack_losses_and_retransmits_them_in_order() {
        // Segment 1 acknowledged (last_ack 1); 2 and 3 lost; 4..=9 SACKed: fack = 9,
        // lost threshold 9 − 4 = 5, so 2 and 3 are lost, nothing else is in flight.
        let mut sb = Sb1::new();
        let f = sb.update(1, &sack(&[(4, 10)]));
        assert_ne!(f & FLAG_DATA_LOST, 0);
        assert_eq!((sb.fack, sb.fack_out, sb.sack_out), (9, 2, 6));
        assert_eq!(sb.packets_in_flight(2, 10), 0);
        assert_eq!(sb.next_retran(), 2);
        sb.mark_retran(10);
        assert_eq!(sb.next_retran(), 3);
        sb.mark_retran(10);
        assert_eq!(sb.next_retran(), -1);
        assert_eq!(sb.packets_in_flight(2, 10), 2);
        // The retransmission of 2 arrives: cumulative ACK to 3.
        let f = sb.update(2, &sack(&[(4, 10)]));
        assert_eq!(f & FLAG_DATA_LOST, 0);
        assert_eq!(sb.packets_in_flight(3, 10), 1);
    }

    #[test]
    fn test_mark_loss_makes_every_unsacked_segment_lost() {
        let mut sb = Sb1::new();
        sb.update(1, &sack(&[(5, 6)]));
        sb.mark_loss(2, 12);
        assert_eq!(sb.sack_out, 1);
        assert_eq!(sb.fack_out, 9); // 2, 3, 4 and 6..=11
        assert_eq!(sb.packets_in_flight(2, 12), 0);
        let mut resent = vec![];
        while sb.next_retran() != -1 {
            resent.push(sb.next_retran());
            sb.mark_retran(12);
        }
        assert_eq!(resent, vec![2, 3, 4, 6, 7, 8, 9, 10, 11]);
    }
}
