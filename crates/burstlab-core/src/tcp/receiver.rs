//! PLACEHOLDER — the TCP receiver (being written). Signatures are the contract.
use super::*;

pub struct TcpReceiver {}

impl TcpReceiver {
    pub fn new(_cfg: &TcpConfig) -> Self {
        TcpReceiver {}
    }
    pub fn on_segment(&mut self, _now: SimTime, _seq: u64) -> Option<AckSeg> {
        None
    }
    pub fn delack_deadline(&self) -> Option<SimTime> {
        None
    }
    pub fn on_delack_timer(&mut self, _now: SimTime) -> Option<AckSeg> {
        None
    }
    /// Segments delivered in order to the application (= cumulative ACK point).
    pub fn delivered(&self) -> u64 {
        0
    }
    /// All data segments that arrived, duplicates included.
    pub fn received(&self) -> u64 {
        0
    }
}
