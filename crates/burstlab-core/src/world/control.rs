//! How BCPs travel. [`BcpLanes`] (the default): a BCP takes no time on the channel,
//! and the BCPs crossing one fibre wait in its lane for their processing events.
//!
//! The control channel (`obs.control.rate`): each fibre's control wavelength carries
//! BCPs one after another (FIFO, one serialisation time each), and each node processes
//! them one at a time (FIFO, its δ each). Without it a BCP takes no time on the channel
//! and is processed as soon as it arrives (`core_node.rs`'s timeline).
//!
//! A BCP is handed to the channel when its node has processed it (at the ingress: when
//! the burst's reservation is made, so with `obs.ingress` a waiting burst's BCP takes
//! its place in the channel's queue at formation, for its later departure). NACKs
//! (`obs.retransmit`) are not serialised.

use crate::units::SimTime;
use std::collections::VecDeque;

pub struct ControlChannel {
    /// Serialisation time of one BCP.
    tx: SimTime,
    /// Per fibre: when its control wavelength is free again.
    link_free: Vec<SimTime>,
    /// Per node: when it has finished processing the BCPs it holds.
    node_free: Vec<SimTime>,
}

impl ControlChannel {
    pub fn new(tx: SimTime) -> ControlChannel {
        ControlChannel {
            tx,
            link_free: Vec::new(),
            node_free: Vec::new(),
        }
    }

    /// A BCP ready at `left` to cross fibre `f` (delay `d`): when it reaches the far
    /// node, after waiting for the BCPs ahead of it and its own serialisation.
    pub fn send(&mut self, f: u32, left: SimTime, d: SimTime) -> SimTime {
        let f = f as usize;
        if f >= self.link_free.len() {
            self.link_free.resize(f + 1, SimTime::ZERO);
        }
        let done = left.max(self.link_free[f]) + self.tx;
        self.link_free[f] = done;
        done + d
    }

    /// A BCP reaching node `n` at `now`: when its processing (δ) ends, after the BCPs
    /// the node holds.
    pub fn process(&mut self, n: u32, now: SimTime, delta: SimTime) -> SimTime {
        let n = n as usize;
        if n >= self.node_free.len() {
            self.node_free.resize(n + 1, SimTime::ZERO);
        }
        let done = now.max(self.node_free[n]) + delta;
        self.node_free[n] = done;
        done
    }
}

/// The BCPs crossing each fibre without a control channel, so that the event queue
/// holds one of them per fibre instead of one per burst in flight.
///
/// A BCP that has crossed fibre `f` is processed at `left + d_f + δ` (`core_node.rs`'s
/// timeline), `d_f` and the δ of `f`'s far node fixed: BCPs handed to a fibre in time
/// order are processed in that order, so they form a FIFO like a link's pipe
/// (`links.rs`), and only its head needs an event. Each held BCP keeps the sequence
/// number its event took when it was sent ([`EventQueue::take_seq`]), and the next one
/// is pushed when the head pops, before anything else can pop: the queue pops the
/// same events in the same order as with one event per BCP
/// ([`EventQueue::push_seq`]). A BCP due before the last one held (a burst the ingress
/// buffer launched later) is not held: its event goes to the queue at once.
///
/// In `benchmarks/mesh_9flow.toml` about 100 bursts are in flight, nearly all of them
/// as a pending BCP, against 36 fibre directions; docs/performance.md (issue 57) has
/// the figures.
///
/// [`EventQueue::take_seq`]: crate::engine::EventQueue::take_seq
/// [`EventQueue::push_seq`]: crate::engine::EventQueue::push_seq
#[derive(Default)]
pub struct BcpLanes {
    /// Per fibre: its held BCPs in the order they are due; the first one's event is in
    /// the queue. Empty when the lanes are off ([`BcpLanes::set`]).
    lanes: Vec<VecDeque<Held>>,
    fibres: usize,
}

/// A BCP due at `at`, its event numbered `seq`, of burst `burst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    pub at: SimTime,
    pub seq: u64,
    pub burst: u32,
}

impl BcpLanes {
    /// One lane per fibre direction.
    pub fn new(fibres: usize) -> BcpLanes {
        BcpLanes {
            lanes: (0..fibres).map(|_| VecDeque::new()).collect(),
            fibres,
        }
    }

    /// Turns the lanes on (the default) or off: off, every BCP's event goes to the
    /// queue when it is sent. Before the run only (`tests/bcp_lanes.rs` runs scenarios
    /// both ways).
    pub fn set(&mut self, on: bool) {
        let n = if on { self.fibres } else { 0 };
        self.lanes = (0..n).map(|_| VecDeque::new()).collect();
    }

    /// Burst `h.burst`'s BCP has been sent on fibre `f`, due at its next node at `h.at`:
    /// whether its event must be pushed now (first in its lane, or not held at all),
    /// else it waits in the lane behind earlier ones.
    #[inline]
    pub fn send(&mut self, f: u32, h: Held) -> bool {
        let Some(lane) = self.lanes.get_mut(f as usize) else {
            return true; // off
        };
        match lane.back() {
            None => {
                lane.push_back(h);
                true
            }
            Some(b) if h.at >= b.at => {
                lane.push_back(h);
                false
            }
            Some(_) => true,
        }
    }

    /// The event numbered `seq` (a BCP that crossed fibre `f`) has popped: if it was
    /// its lane's first, the next BCP held there, whose event the caller pushes now.
    #[inline]
    pub fn popped(&mut self, f: u32, seq: u64) -> Option<Held> {
        let lane = self.lanes.get_mut(f as usize)?;
        if lane.front().is_some_and(|h| h.seq == seq) {
            lane.pop_front();
            lane.front().copied()
        } else {
            None
        }
    }

    /// Bytes the lanes hold (for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.lanes
            .iter()
            .map(|l| l.capacity() * std::mem::size_of::<Held>() + 32)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(at: u64, seq: u64, burst: u32) -> Held {
        Held {
            at: SimTime(at),
            seq,
            burst,
        }
    }

    #[test]
    fn lanes_hold_all_but_the_first_and_release_in_order() {
        let mut l = BcpLanes::new(2);
        assert!(l.send(0, h(10, 0, 7)));
        assert!(!l.send(0, h(10, 1, 8)));
        assert!(!l.send(0, h(12, 2, 9)));
        // Due before the last held one: not held, pushed at once.
        assert!(l.send(0, h(11, 3, 5)));
        assert!(l.send(1, h(5, 4, 6)));
        // A standalone event, or the wrong lane, releases nothing.
        assert_eq!(l.popped(0, 3), None);
        assert_eq!(l.popped(0, 4), None);
        assert_eq!(l.popped(1, 4), None);
        assert_eq!(l.popped(0, 0), Some(h(10, 1, 8)));
        assert_eq!(l.popped(0, 1), Some(h(12, 2, 9)));
        assert_eq!(l.popped(0, 2), None);
        // Empty again: the next BCP is pushed at once.
        assert!(l.send(0, h(20, 5, 1)));
        // Off: nothing is held.
        l.set(false);
        assert!(l.send(0, h(30, 6, 2)));
        assert!(l.send(0, h(30, 7, 3)));
        assert_eq!(l.popped(0, 6), None);
        l.set(true);
        assert!(l.send(1, h(30, 8, 2)));
        assert!(!l.send(1, h(30, 9, 3)));
    }
}
