//! Packets, their pool, and precomputed routes (htsim-style, STYLE.md §7).
//!
//! Read first: [`Packet`], then [`Hop`]. Packets live in a [`PacketPool`] addressed by
//! index; a slot is reused as soon as its packet is delivered or dropped, so the hot
//! loop allocates nothing once the pool has reached its working size.

use crate::tcp::AckSeg;

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
}

/// The packet pool: slots addressed by index, freed slots reused first.
#[derive(Default)]
pub struct PacketPool {
    pkts: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
    pub fn with_capacity(n: usize) -> Self {
        PacketPool {
            pkts: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
        }
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        if let Some(i) = self.free.pop() {
            self.pkts[i as usize] = p;
            i
        } else {
            self.pkts.push(p);
            (self.pkts.len() - 1) as u32
        }
    }

    #[inline]
    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.pkts[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.pkts[id as usize]
    }

    /// Bytes the pool holds (for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.pkts.capacity() * std::mem::size_of::<Packet>() + self.free.capacity() * 4
    }

    /// Packets currently alive.
    pub fn live(&self) -> usize {
        self.pkts.len() - self.free.len()
    }

    /// Live packets matching `f` (for conservation checks; O(pool size)).
    pub fn count_live(&self, f: impl Fn(&Packet) -> bool) -> u64 {
        let mut dead = vec![false; self.pkts.len()];
        for &i in &self.free {
            dead[i as usize] = true;
        }
        self.pkts
            .iter()
            .enumerate()
            .filter(|(i, p)| !dead[*i] && f(p))
            .count() as u64
    }
}
