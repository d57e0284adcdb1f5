//! PLACEHOLDER — the TCP sender (being written). Signatures are the contract.
use super::*;

pub fn default_config(variant: Variant, profile: Profile) -> TcpConfig {
    TcpConfig {
        variant,
        profile,
        mss: 1000,
        header_bytes: 40,
        ack_bytes: 40,
        wm: 20,
        init_cwnd: 1,
        init_ssthresh: u32::MAX,
        dupack_thresh: 3,
        delayed_ack: false,
        delack_timeout: SimTime::from_ms(100),
        min_rto: SimTime::from_ms(200),
        max_rto: SimTime::from_secs(60),
        init_rto: SimTime::from_secs(3),
        clock_granularity: SimTime::from_ms(10),
        max_backoff: 64,
        sack_blocks: 3,
    }
}

pub struct TcpSender {
    cfg: TcpConfig,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, _now: SimTime) -> Self {
        TcpSender { cfg }
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Opens the connection (no handshake) and sends the initial window.
    pub fn start(&mut self, _now: SimTime, _out: &mut TcpOutput) {}
    pub fn on_ack(&mut self, _now: SimTime, _ack: &AckSeg, _out: &mut TcpOutput) {}
    /// Called when the retransmission timer deadline has been reached.
    pub fn on_rto(&mut self, _now: SimTime, _out: &mut TcpOutput) {}
    pub fn rto_deadline(&self) -> Option<SimTime> {
        None
    }
    /// Stops sending segments with `seq >= limit` (None: infinite source).
    pub fn set_data_limit(&mut self, _limit: Option<u64>) {}
    pub fn cwnd(&self) -> f64 {
        0.0
    }
    pub fn ssthresh(&self) -> u32 {
        0
    }
    pub fn stats(&self, _now: SimTime) -> SenderStats {
        SenderStats::default()
    }
}
