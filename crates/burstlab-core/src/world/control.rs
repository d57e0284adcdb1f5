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
