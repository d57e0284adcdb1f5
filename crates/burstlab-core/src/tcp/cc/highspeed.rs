//! HighSpeed TCP (RFC 3649) for the `rfc` profile, in segments.
//!
//! Read first: [`HighSpeed::on_ack`]. Above `Low_Window` = 38 segments the window grows
//! by a(w) segments per RTT and a loss cuts it by the fraction b(w) (RFC 3649 §5): b(w)
//! falls log-linearly from 0.5 at 38 segments to `High_Decrease` = 0.1 at `High_Window`
//! = 83000, and a(w) is read from the table of RFC 3649 Appendix B ([`HSTCP_W`]: a(w) =
//! k + 1 for w up to its k-th entry), which Linux's tcp_highspeed.c uses as well. At or
//! below 38 segments it is RFC 5681's AIMD (a = 1, b = 0.5).

use super::CongestionControl;
use crate::tcp::tcb::Tcb;
use crate::units::SimTime;

/// RFC 3649 Appendix B, column w: a(w) = k + 1 for `HSTCP_W[k − 1] < w ≤ HSTCP_W[k]`.
pub const HSTCP_W: [u32; 72] = [
    38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076, 2378, 2699, 3039, 3399, 3778,
    4177, 4596, 5036, 5497, 5979, 6483, 7009, 7558, 8130, 8726, 9346, 9991, 10661, 11358, 12082,
    12834, 13614, 14424, 15265, 16137, 17042, 17981, 18955, 19965, 21013, 22101, 23230, 24402,
    25618, 26881, 28193, 29557, 30975, 32450, 33986, 35586, 37253, 38992, 40808, 42707, 44694,
    46776, 48961, 51258, 53677, 56230, 58932, 61799, 64851, 68113, 71617, 75401, 79517, 84035,
    89053,
];

/// RFC 3649 §5 parameters.
pub const LOW_WINDOW: f64 = 38.0;
pub const HIGH_WINDOW: f64 = 83000.0;
pub const HIGH_DECREASE: f64 = 0.1;

/// RFC 3649 §5: b(w) = (High_Decrease − 0.5)·(log w − log W)/(log W_1 − log W) + 0.5.
pub fn b_of_w(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

/// The table index for a window (`w ≤ HSTCP_W[k]`, the last index beyond the table).
pub fn table_index(w: f64) -> usize {
    HSTCP_W
        .partition_point(|&x| (x as f64) < w)
        .min(HSTCP_W.len() - 1)
}

/// a(w) of RFC 3649 Appendix B.
pub fn a_of_w(w: f64) -> f64 {
    (table_index(w) + 1) as f64
}

/// HighSpeed TCP has no state beyond the control block.
#[derive(Clone, Debug, Default)]
pub struct HighSpeed;

impl CongestionControl for HighSpeed {
    fn on_ack(&mut self, tcb: &mut Tcb, _now: SimTime, _acked_segs: u64) {
        let w = tcb.cwnd();
        if w < tcb.ssthresh() as f64 {
            tcb.set_cwnd(w + 1.0); // RFC 5681 §3.1 slow start
        } else {
            // RFC 3649 §5: cwnd += a(w)/cwnd per ACK.
            tcb.set_cwnd(w + a_of_w(w) / w);
        }
    }
    fn on_loss(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        // RFC 3649 §5: cwnd = (1 − b(w))·cwnd, at least 2 segments.
        let w = tcb.loss_window() as f64;
        (((1.0 - b_of_w(w)) * w) as u32).max(2)
    }
    fn on_timeout(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        // RFC 5681 eq. (4): a timeout is not a HighSpeed decision (RFC 3649 §5 changes
        // only the response to a loss signalled by duplicate ACKs).
        (tcb.flight_size() / 2).max(2) as u32
    }
    fn name(&self) -> &'static str {
        "highspeed"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_b_runs_from_half_to_high_decrease() {
        assert_eq!(b_of_w(38.0), 0.5);
        assert!((b_of_w(83000.0) - 0.1).abs() < 1e-12);
        // Linux's md = ⌊256·b(w)⌋ at the table's windows (tcp_highspeed.c's column).
        let md: Vec<u32> = [38u32, 118, 221, 347, 1058, 89053]
            .iter()
            .map(|&w| (b_of_w(w as f64) * 256.0) as u32)
            .collect();
        assert_eq!(md, vec![128, 112, 104, 98, 83, 24]);
    }

    #[test]
    fn test_a_steps_at_the_table_windows() {
        assert_eq!(a_of_w(38.0), 1.0);
        assert_eq!(a_of_w(39.0), 2.0);
        assert_eq!(a_of_w(118.0), 2.0);
        assert_eq!(a_of_w(119.0), 3.0);
        assert_eq!(a_of_w(1e9), 72.0);
    }
}
