//! Packets, their pool, and precomputed routes (htsim-style; docs/design.md).
//!
//! Read first: [`Packet`], then [`Hop`]. Packets live in a [`PacketPool`] addressed by
//! index; a slot is reused as soon as its packet is delivered or dropped, so the hot
//! loop allocates nothing once the pool has reached its working size.

use crate::tcp::AckSeg;
use crate::units::SimTime;

pub use crate::obs::PktKind;

/// A packet in the pool.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: PktKind,
    pub flow: u32,
    /// Data: segment number. ACK: cumulative ACK. UDP: packet number.
    pub seq: u64,
    pub bytes: u32,
    pub retransmit: bool,
    /// A mark the sending host put on a data segment: this segment is the last one the
    /// sender could send under its current window (it fills `cwnd`). Read by assemblers
    /// (an ingress may see what the sender marks); never changes TCP behaviour.
    pub mark: bool,
    /// Route (index into the route table) and the index of the next hop on it.
    pub route: u32,
    pub hop: u32,
    pub ack: AckSeg,
}

impl Default for Packet {
    fn default() -> Self {
        Packet {
            kind: PktKind::Data,
            flow: 0,
            seq: 0,
            bytes: 0,
            retransmit: false,
            mark: false,
            route: 0,
            hop: 0,
            ack: AckSeg::default(),
        }
    }
}

/// One hop of a precomputed route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Transmit on packet link `0`.
    Link(u32),
    /// Join assembly queue `0` of an ingress edge node (an OBS segment of the route).
    Obs(u32),
    /// An OBS segment no packet ever takes (a UDP flow's reverse route).
    Unused,
    /// The end of the route: deliver to the host (closes each route in the world's flat
    /// hop table, so reaching a node costs one table read).
    Deliver,
}

/// The hot part of a packet's record in the pool: everything but the SACK blocks of an
/// ACK. At hundreds of flows the pool holds ~100 000 packets and outgrows the caches, so
/// reading a record when its packet is delivered is a cache miss: the hot part is kept to
/// 32 bytes (see `Hdr`) and the SACK blocks, read only for an ACK that has some, live
/// apart (a whole record was 112 bytes, two cache lines, often three), in a pool of
/// their own that only such ACKs take slots of (`sack` is the slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PktHdr {
    /// Data: segment number. ACK: cumulative ACK (= `ack.cum`). UDP: packet number.
    pub seq: u64,
    pub flow: u32,
    pub bytes: u32,
    /// Route (index into the route table) and the index of the next hop on it.
    pub route: u32,
    pub hop: u32,
    /// An ACK with SACK blocks (`nsack > 0`): its slot in the pool's SACK-block store.
    /// Set by the pool; 0 otherwise.
    sack: u32,
    pub kind: PktKind,
    /// `RETRANSMIT | MARK`.
    flags: u8,
    /// An ACK's number of SACK blocks (kept in the pool's cold part when non-zero).
    nsack: u8,
}

impl PktHdr {
    /// The hot part of `p`.
    #[inline]
    pub fn of(p: &Packet) -> PktHdr {
        debug_assert!(p.kind != PktKind::Ack || p.ack.cum == p.seq);
        PktHdr {
            seq: p.seq,
            flow: p.flow,
            bytes: p.bytes,
            route: p.route,
            hop: p.hop,
            sack: 0,
            kind: p.kind,
            flags: if p.retransmit { RETRANSMIT } else { 0 } | if p.mark { MARK } else { 0 },
            nsack: if p.kind == PktKind::Ack {
                p.ack.nsack
            } else {
                0
            },
        }
    }

    /// The record of a new data segment or UDP packet (no ACK fields), at hop 0.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn new_seg(
        kind: PktKind,
        flow: u32,
        seq: u64,
        bytes: u32,
        retransmit: bool,
        mark: bool,
        route: u32,
    ) -> PktHdr {
        debug_assert!(kind != PktKind::Ack);
        PktHdr {
            seq,
            flow,
            bytes,
            route,
            hop: 0,
            sack: 0,
            kind,
            flags: if retransmit { RETRANSMIT } else { 0 } | if mark { MARK } else { 0 },
            nsack: 0,
        }
    }

    #[inline]
    pub fn retransmit(&self) -> bool {
        self.flags & RETRANSMIT != 0
    }

    #[inline]
    pub fn mark(&self) -> bool {
        self.flags & MARK != 0
    }
}

/// A [`PktHdr`] in the pool: 32 bytes aligned so that a record never straddles two
/// cache lines (a whole record was 112 bytes).
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Hdr(PktHdr);

const RETRANSMIT: u8 = 1;
const MARK: u8 = 2;

/// The cold part of an ACK's record: its SACK blocks, read only when `nsack > 0`.
type Sacks = [crate::tcp::SackBlock; 4];

/// The packet pool: slots addressed by index, freed slots reused first. A record's hot
/// part is a slot of `hdrs` (see `Hdr`); an ACK with SACK blocks also holds a slot of
/// `sacks`, named by its `PktHdr::sack` ([`PacketPool::get`] puts the two back
/// together). Data segments, most of the pool at hundreds of flows, take no `sacks`
/// slot: with one beside every record the pool was 100 bytes per slot instead of 36,
/// all of it written (and its pages zeroed by the kernel) as the pool grew.
///
/// Each slot also has its packet's send time in `sent`, beside `hdrs` rather than in
/// the 32-byte record: written once when a host sends the packet, read once when it
/// arrives (the one-way delay, `world/collector.rs`), never on the way.
#[derive(Default)]
pub struct PacketPool {
    hdrs: Vec<Hdr>,
    free: Vec<u32>,
    sacks: Vec<Sacks>,
    sacks_free: Vec<u32>,
    sent: Vec<SimTime>,
}

impl PacketPool {
    pub fn with_capacity(n: usize) -> Self {
        PacketPool {
            hdrs: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
            sacks: Vec::new(),
            sacks_free: Vec::new(),
            sent: Vec::with_capacity(n),
        }
    }

    /// Records that the host sent packet `id` at `now`. `sent` grows with the pool
    /// (amortised, as `hdrs` does), not per packet.
    #[inline]
    pub fn set_sent(&mut self, id: u32, now: SimTime) {
        let i = id as usize;
        if i >= self.sent.len() {
            self.sent.resize(self.hdrs.len().max(i + 1), SimTime::ZERO);
        }
        self.sent[i] = now;
    }

    /// When the host sent packet `id` (see [`PacketPool::set_sent`]).
    #[inline]
    pub fn sent(&self, id: u32) -> SimTime {
        self.sent.get(id as usize).copied().unwrap_or(SimTime::ZERO)
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        let id = match self.free.pop() {
            Some(i) => i,
            None => {
                self.hdrs.push(Hdr(PktHdr::of(&Packet::default())));
                (self.hdrs.len() - 1) as u32
            }
        };
        self.set(id, &p);
        id
    }

    /// A new packet without SACK blocks (a data segment or UDP packet), from its hot
    /// part alone.
    #[inline]
    pub fn alloc_hdr(&mut self, h: PktHdr) -> u32 {
        debug_assert!(h.nsack == 0);
        let id = match self.free.pop() {
            Some(i) => i,
            None => {
                self.hdrs.push(Hdr(h));
                return (self.hdrs.len() - 1) as u32;
            }
        };
        self.hdrs[id as usize] = Hdr(h);
        id
    }

    /// The ACK fields of a live ACK whose hot part, as the pool holds it, is `h`.
    #[inline]
    pub fn ack(&self, h: &PktHdr) -> AckSeg {
        debug_assert!(h.kind == PktKind::Ack);
        let mut ack = AckSeg {
            cum: h.seq,
            nsack: h.nsack,
            ..AckSeg::default()
        };
        if h.nsack > 0 {
            ack.sack = self.sacks[h.sack as usize];
        }
        ack
    }

    /// Overwrites the record of live packet `id` (or of a freed slot that `alloc` is
    /// handing out, whose SACK-block slot was returned when it was freed) with `p`.
    #[inline]
    pub fn set(&mut self, id: u32, p: &Packet) {
        let mut h = PktHdr::of(p);
        let old = &self.hdrs[id as usize].0;
        if (h.nsack | old.nsack) != 0 {
            h.sack = self.set_sacks(old.nsack > 0, old.sack, h.nsack > 0, &p.ack.sack);
        }
        self.hdrs[id as usize] = Hdr(h);
    }

    /// [`PacketPool::set`] of a record that holds (`held`: slot `slot`) or will hold
    /// (`has`) SACK blocks: keeps or takes a slot for the new `blocks`, or frees the held
    /// one. Returns the new record's slot (0 if it has no blocks). Out of line and
    /// given no reference to the new header, so that `set` stays small enough to inline
    /// and builds the header in registers: written to the stack field by field and read
    /// back whole, it waited on the stores (+4 % CPU at 10 flows).
    #[cold]
    #[inline(never)]
    fn set_sacks(&mut self, held: bool, slot: u32, has: bool, blocks: &Sacks) -> u32 {
        if !has {
            self.sacks_free.push(slot);
            return 0;
        }
        let s = if held {
            slot
        } else {
            self.sacks_free.pop().unwrap_or_else(|| {
                self.sacks.push(Sacks::default());
                (self.sacks.len() - 1) as u32
            })
        };
        self.sacks[s as usize] = *blocks;
        s
    }

    /// Frees packet `id`'s slot (and its SACK-block slot, if it holds one).
    #[inline]
    pub fn release(&mut self, id: u32) {
        let h = &mut self.hdrs[id as usize].0;
        if h.nsack > 0 {
            self.sacks_free.push(h.sack);
            // A freed record holds no SACK-block slot (`set` relies on it).
            h.nsack = 0;
        }
        self.free.push(id);
    }

    /// The record of packet `id`.
    #[inline]
    pub fn get(&self, id: u32) -> Packet {
        self.packet(&self.hdrs[id as usize].0)
    }

    /// The hot part of packet `id`'s record (its `hop` is brought up to date only when
    /// the packet leaves the packet links: see [`super::links::Pos`]).
    #[inline]
    pub fn hdr(&self, id: u32) -> PktHdr {
        self.hdrs[id as usize].0
    }

    /// A live packet put back together from its hot part `h`, as the pool holds it (an
    /// ACK with SACK blocks names their slot there), and those blocks.
    #[inline]
    pub fn packet(&self, h: &PktHdr) -> Packet {
        let ack = if h.kind == PktKind::Ack {
            self.ack(h)
        } else {
            AckSeg::default()
        };
        Packet {
            kind: h.kind,
            flow: h.flow,
            seq: h.seq,
            bytes: h.bytes,
            retransmit: h.retransmit(),
            mark: h.mark(),
            route: h.route,
            hop: h.hop,
            ack,
        }
    }

    /// Hints the CPU to fetch the hot part of packet `id`'s record (see `world::hint`).
    #[inline]
    pub fn prefetch(&self, id: u32) {
        // No bounds check: a live id is in range, and a prefetch reads nothing anyway.
        super::hint::prefetch(self.hdrs.as_ptr().wrapping_add(id as usize));
    }

    /// Hints the CPU to fetch the SACK blocks of an ACK whose hot part is `h`, if it
    /// carries any.
    #[inline]
    pub fn prefetch_sacks(&self, h: &PktHdr) {
        if h.nsack > 0 {
            self.prefetch_sack_slot(h.sack);
        }
    }

    /// Hints the CPU to fetch the SACK-block slot the next ACK with SACK blocks will
    /// take ([`PacketPool::set`]).
    #[inline]
    pub fn prefetch_next_sacks(&self) {
        if let Some(&s) = self.sacks_free.last() {
            self.prefetch_sack_slot(s);
        }
    }

    /// Hints the CPU to fetch SACK-block slot `s` (no bounds check: a hint reads nothing).
    #[inline(always)]
    fn prefetch_sack_slot(&self, s: u32) {
        let p = self.sacks.as_ptr().wrapping_add(s as usize);
        super::hint::prefetch_span(p, std::mem::size_of::<Sacks>().min(64));
    }

    /// Sets the index of packet `id`'s next hop on its route.
    #[inline]
    pub fn set_hop(&mut self, id: u32, hop: u32) {
        self.hdrs[id as usize].0.hop = hop;
    }

    /// Bytes the pool holds (for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.hdrs.capacity() * std::mem::size_of::<Hdr>()
            + self.free.capacity() * 4
            + self.sacks.capacity() * std::mem::size_of::<Sacks>()
            + self.sacks_free.capacity() * 4
    }

    /// Packets currently alive.
    pub fn live(&self) -> usize {
        self.hdrs.len() - self.free.len()
    }

    /// Live packets matching `f` (for conservation checks; O(pool size)).
    pub fn count_live(&self, f: impl Fn(&Packet) -> bool) -> u64 {
        let mut dead = vec![false; self.hdrs.len()];
        for &i in &self.free {
            dead[i as usize] = true;
        }
        (0..self.hdrs.len())
            .filter(|&i| !dead[i] && f(&self.get(i as u32)))
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::SackBlock;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// A packet for the property test: kind 0 data, 1 ACK without SACK blocks, 2 an ACK
    /// with `1 + k % 4` of them.
    fn sample(kind: u8, k: u64) -> Packet {
        let mut p = Packet {
            kind: PktKind::Data,
            flow: k as u32 % 7,
            seq: k,
            bytes: 1000,
            route: k as u32 % 5,
            ..Packet::default()
        };
        if kind > 0 {
            p.kind = PktKind::Ack;
            p.bytes = 40;
            p.ack.cum = k;
        }
        if kind == 2 {
            p.ack.nsack = 1 + (k % 4) as u8;
            for i in 0..p.ack.nsack as usize {
                let start = k + 2 + 3 * i as u64;
                p.ack.sack[i] = SackBlock {
                    start,
                    end: start + 1,
                };
            }
        }
        p
    }

    proptest! {
        /// The pool against a map of live packets under random allocations (both
        /// kinds), overwrites (a data segment becoming its ACK, an ACK's blocks
        /// changing) and releases: every live record reads back as written, and the
        /// SACK-block store never holds more slots than ACKs with blocks were ever
        /// alive at once (freed slots are reused, none leaks).
        #[test]
        fn records_and_sack_slots_are_kept(ops in prop::collection::vec((0u8..8, 0u8..3), 0..2000)) {
            let mut pool = PacketPool::default();
            let mut live: BTreeMap<u32, Packet> = BTreeMap::new();
            let mut most_with_sacks = 0;
            for (k, (op, kind)) in ops.into_iter().enumerate() {
                let p = sample(kind, k as u64);
                let pick = live.keys().nth(k % live.len().max(1)).copied();
                match (op, pick) {
                    (0..=2, _) | (_, None) => {
                        let id = if kind == 0 { pool.alloc_hdr(PktHdr::of(&p)) } else { pool.alloc(p) };
                        prop_assert!(live.insert(id, p).is_none());
                    }
                    (3..=4, Some(id)) => {
                        pool.set(id, &p);
                        live.insert(id, p);
                    }
                    (_, Some(id)) => {
                        pool.release(id);
                        live.remove(&id);
                    }
                }
                let with_sacks = live.values().filter(|q| q.ack.nsack > 0).count();
                most_with_sacks = most_with_sacks.max(with_sacks);
                prop_assert!(pool.sacks.len() <= most_with_sacks);
                prop_assert_eq!(pool.sacks.len() - pool.sacks_free.len(), with_sacks);
                prop_assert_eq!(pool.live(), live.len());
                // Every record now and then, and the one picked, at every step.
                if k % 16 == 0 {
                    for (&id, q) in &live {
                        prop_assert_eq!(format!("{:?}", pool.get(id)), format!("{q:?}"));
                    }
                }
                if let Some((&id, q)) = pick.and_then(|i| live.get_key_value(&i)) {
                    prop_assert_eq!(format!("{:?}", pool.get(id)), format!("{q:?}"));
                }
            }
        }
    }

    #[test]
    fn a_record_is_one_aligned_half_line() {
        assert_eq!(std::mem::size_of::<Hdr>(), 32);
        assert_eq!(std::mem::size_of::<PktHdr>(), 32);
        assert_eq!(std::mem::align_of::<Hdr>(), 32);
    }

    #[test]
    fn records_round_trip() {
        let mut pool = PacketPool::default();
        let data = Packet {
            kind: PktKind::Data,
            flow: 3,
            seq: 77,
            bytes: 1000,
            retransmit: true,
            mark: true,
            route: 5,
            hop: 2,
            ack: AckSeg::default(),
        };
        let mut ack = AckSeg {
            cum: 70,
            nsack: 2,
            ..AckSeg::default()
        };
        ack.sack[0] = SackBlock { start: 72, end: 75 };
        ack.sack[1] = SackBlock { start: 77, end: 78 };
        let ackp = Packet {
            kind: PktKind::Ack,
            seq: 70,
            bytes: 56,
            retransmit: false,
            mark: false,
            ack,
            ..data
        };
        let a = pool.alloc(data);
        let b = pool.alloc(ackp);
        assert_eq!(format!("{:?}", pool.get(a)), format!("{data:?}"));
        assert_eq!(format!("{:?}", pool.get(b)), format!("{ackp:?}"));
        pool.release(b);
        // A reused slot holding an ACK without SACK blocks reads back no stale blocks.
        let plain = Packet {
            ack: AckSeg {
                cum: 70,
                ..AckSeg::default()
            },
            ..ackp
        };
        assert_eq!(pool.alloc(plain), b);
        assert_eq!(pool.get(b).ack, plain.ack);
        pool.set_hop(a, 3);
        assert_eq!(
            pool.hdr(a),
            PktHdr {
                hop: 3,
                ..PktHdr::of(&data)
            }
        );
        assert_eq!(
            format!("{:?}", pool.packet(&PktHdr::of(&plain))),
            format!("{:?}", pool.get(b))
        );
    }
}
