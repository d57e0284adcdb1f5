//! Completion times of finite TCP flows (issue 52 item 7): the `fct` table, and the
//! ideal completion time of a flow alone on its path, a closed recursion over its
//! slow-start rounds.
//!
//! Read first: docs/guide/completion-times.md (what `end_s` and `ideal_fct_s` mean),
//! then [`ideal_fct`].
//!
//! **The ideal.** A flow of `N` data segments, alone on its path and lossless, sends in
//! rounds: round 0 is its initial window (after the SYN's round trip under the ns2
//! profile with `syn`), and the ACKs of round `k` release round `k + 1` (slow start:
//! +1 segment per ACK while cwnd < ssthresh, +1/cwnd after, cwnd at most `wm`; under
//! the ns2 profile the first ACK does not open the window, ns-2 `delay_growth_`). A
//! round is a *train*: `n` packets, the time its first and its last packet are at a
//! point of the path, and how many packets share the last instant (`m`). Each stage of
//! the path moves the train on:
//! - a packet link of transmission time τ = bytes / rate and delay d (FIFO, idle from
//!   `busy`, the instant it finished the previous round's last packet):
//!   `first' = max(first, busy) + τ + d`,
//!   `last' = max(last + m·τ, max(first, busy) + n·τ) + d`, `m' = 1` — the Lindley
//!   recursion `dᵢ = max(aᵢ, dᵢ₋₁) + τ` evaluated at the first and last packet, exact
//!   when the packets in between arrive evenly spaced or in evenly spaced pairs (what a
//!   link or an ACK clock makes of them);
//! - an OBS segment (ingress assembly, then the fibres to the egress): the train's
//!   arrival instants, taken evenly spaced between `first` and `last`, are cut into
//!   bursts by the queue's rule — timer `Tb` (a cycle opened by a packet arriving at an
//!   empty queue closes `Tb` later; a packet arriving at the deadline opens the next
//!   one, `obs/assembler.rs`), or hybrid (`Tmax`, or as soon as `Lmax` bytes are in,
//!   with `Lmin` padding) — and each burst reaches the egress
//!   `offset + Σ fibre delays + burst bytes / rate of the last fibre` after it formed
//!   (`core_node.rs`, `Core::depart`, `Step::Egress`). The train leaves the egress as
//!   its first and its last burst: `first'` / `last'` their arrivals, `m'` the last
//!   one's packets;
//! - the receiver turns the data train into the ACK train (one ACK per segment; with
//!   delayed ACKs one per two, a segment left alone acknowledged by the timer set at
//!   its arrival unless another arrives first), which the reverse path moves on with
//!   the ACK's bytes.
//!
//! The round's ACK train at the sender releases the next round at its first and its
//! last ACK. The flow completes when the last round's last ACK reaches the sender:
//! `ideal_fct_s` is that instant minus the flow's start. Per round this costs the
//! path's base round trip (propagation, each link's transmission of one packet, the
//! assembly wait and offset of each OBS segment, both ways) plus what the round's
//! packets wait behind each other at the bottleneck.
//!
//! Checked against uncontended, lossless runs (`tests/fct.rs`): exact to the
//! picosecond on packet paths (both profiles, with and without the SYN and delayed
//! ACKs, 1 to 2 000 segments) and on yu's OBS path with timer and hybrid assembly. An
//! estimate where a round reaches an ingress unevenly spaced and a byte threshold cuts
//! it mid-round, where a round overlaps a burst still being assembled, or with timer
//! jitter (the mean period is taken). Not computed (NaN): assembly by length only (a
//! lone flow's last burst may never fill), window-based and ACK-ratio assembly, an
//! ingress buffer or a queued control channel.

use super::packet::Hop;
use super::World;
use crate::obs::Assembler;
use crate::stats::{FctRow, FlowRow, ObsFlowRow};
use crate::tcp::{Profile, TcpConfig};
use crate::units::{BitRate, SimTime};

/// One stage of a path, as the ideal sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    /// A packet link direction.
    Link { rate: BitRate, delay: SimTime },
    /// An OBS segment: the ingress assembly rule, the burst's offset, the fibres'
    /// delays summed, and the rate of the last fibre (the tail's arrival).
    Obs {
        rule: AsmRule,
        offset: SimTime,
        fibre_delay: SimTime,
        tail_rate: BitRate,
    },
}

/// The assembly rules the ideal models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AsmRule {
    /// Timer-based (`Tb`; the jitter, if any, is left out: the mean period).
    Timer { tb: SimTime, max_pkts: u32 },
    /// Hybrid time–volume (`Tmax`, `Lmax`, `Lmin` padding; 0 if none).
    Hybrid {
        tmax: SimTime,
        lmax_bytes: u64,
        lmin_bytes: u64,
        max_pkts: u32,
    },
}

/// A finite flow alone on its path: what its ideal completion time depends on.
#[derive(Clone, Debug)]
pub struct LoneFlow {
    /// Data segments.
    pub segments: u64,
    /// Wire bytes of a data segment, of the first data segment (ns-2 without the SYN
    /// sends segment 0 without a header: `hosts.rs`), of an ACK, and of the SYN
    /// (`None`: no SYN round).
    pub seg_bytes: u32,
    pub seg0_bytes: u32,
    pub ack_bytes: u32,
    pub syn_bytes: Option<u32>,
    pub init_cwnd: u32,
    pub init_ssthresh: u32,
    pub wm: u32,
    /// ns-2 `delay_growth_`: the first ACK does not open the window.
    pub delay_growth: bool,
    /// The receiver's delayed-ACK timeout (`None`: one ACK per segment).
    pub delack: Option<SimTime>,
    pub fwd: Vec<Stage>,
    pub rev: Vec<Stage>,
}

/// A round's packets at a point of the path: `n` packets, the first at `first`, the
/// last at `last`, `m` of them at `last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Train {
    first: SimTime,
    last: SimTime,
    n: u64,
    m: u64,
}

fn mul(t: SimTime, k: u64) -> SimTime {
    SimTime(t.0.saturating_mul(k))
}

/// The arrival instant `i` of `k` evenly spaced instants from `t.first` to `t.last`.
fn instant(t: &Train, k: u64, i: u64) -> SimTime {
    if i + 1 >= k {
        return t.last;
    }
    let span = (t.last.0 - t.first.0) as u128;
    SimTime(t.first.0 + (span * i as u128 / (k - 1) as u128) as u64)
}

/// The bursts an OBS ingress makes of train `t` of packets of `bytes` (its first of
/// `head`): (formation time, packets, bytes incl. padding) of the first and of the last
/// burst.
fn bursts(t: &Train, bytes: u32, head: u32, rule: AsmRule) -> [(SimTime, u64, u64); 2] {
    let (period, lmax, lmin, cap) = match rule {
        AsmRule::Timer { tb, max_pkts } => (tb, u64::MAX, 0, max_pkts.max(1) as u64),
        AsmRule::Hybrid {
            tmax,
            lmax_bytes,
            lmin_bytes,
            max_pkts,
        } => (tmax, lmax_bytes, lmin_bytes, max_pkts.max(1) as u64),
    };
    let k = t.n - t.m + 1; // distinct arrival instants; the last holds m packets
    let b = bytes as u64;
    let mut first: Option<(SimTime, u64, u64)> = None;
    let mut last = (SimTime::ZERO, 0, 0);
    // The open cycle: its deadline, packets and bytes.
    let mut open: Option<(SimTime, u64, u64)> = None;
    let mut close = |at: SimTime, pk: u64, by: u64, first: &mut Option<_>| {
        let x = (at, pk, by.max(lmin));
        if first.is_none() {
            *first = Some(x);
        }
        last = x;
    };
    for i in 0..k {
        let at = instant(t, k, i);
        let here = if i + 1 == k { t.m } else { 1 };
        for _ in 0..here {
            if let Some((dl, pk, by)) = open {
                if at >= dl {
                    // Half-open cycle: a packet at the deadline opens the next one.
                    close(dl, pk, by, &mut first);
                    open = None;
                }
            }
            let (dl, pk, by) = open.unwrap_or((at + period, 0, 0));
            let this = if i == 0 && pk == 0 && first.is_none() {
                head as u64
            } else {
                b
            };
            let (pk, by) = (pk + 1, by + this);
            if by >= lmax || pk >= cap {
                close(at, pk, by, &mut first);
                open = None;
            } else {
                open = Some((dl, pk, by));
            }
        }
    }
    if let Some((dl, pk, by)) = open {
        close(dl, pk, by, &mut first);
    }
    [first.unwrap_or(last), last]
}

/// Moves train `t` of packets of `bytes` (its first of `head`) through `stage`; `busy`
/// is the link's transmitter, free from that instant (unused at an OBS stage).
fn pass(t: Train, bytes: u32, head: u32, stage: &Stage, busy: &mut SimTime) -> Train {
    match stage {
        Stage::Link { rate, delay } => {
            let tau = rate.tx_time(bytes as u64);
            let start = t.first.max(*busy);
            let done_first = start + rate.tx_time(head as u64);
            // The packets at `last` (the head among them if they are all there).
            let tail = if t.m >= t.n {
                rate.tx_time(head as u64) + mul(tau, t.m - 1)
            } else {
                mul(tau, t.m)
            };
            let done_last = if t.n == 1 {
                done_first
            } else {
                (t.last + tail).max(done_first + mul(tau, t.n - 1))
            };
            *busy = done_last;
            Train {
                first: done_first + *delay,
                last: done_last + *delay,
                n: t.n,
                m: if tau > SimTime::ZERO { 1 } else { t.m },
            }
        }
        Stage::Obs {
            rule,
            offset,
            fibre_delay,
            tail_rate,
        } => {
            let [(f_at, _, f_by), (l_at, l_pk, l_by)] = bursts(&t, bytes, head, *rule);
            // `core_node.rs`: Egress at formation + offset + Σ delays + burst time (≥ 1 ps).
            let arrive = |at: SimTime, by: u64| {
                at + *offset + *fibre_delay + tail_rate.tx_time(by).max(SimTime(1))
            };
            Train {
                first: arrive(f_at, f_by),
                last: arrive(l_at, l_by),
                n: t.n,
                m: l_pk,
            }
        }
    }
}

/// Moves `t` along `path`, with the links' transmitters `busy` (one per stage).
fn along(mut t: Train, bytes: u32, head: u32, path: &[Stage], busy: &mut [SimTime]) -> Train {
    for (s, b) in path.iter().zip(busy.iter_mut()) {
        t = pass(t, bytes, head, s, b);
    }
    t
}

/// Rounds the recursion computes before it gives up (a flow that never reaches a
/// steady state; none is known).
const MAX_ROUNDS: u64 = 10_000_000;

/// The flow's ideal completion time: from its start to the arrival at the sender of
/// the ACK of its last segment, alone on its path and without loss (module docs).
/// `SimTime::MAX` when it lies beyond the simulator's time range or the recursion did
/// not reach a steady state within `MAX_ROUNDS` rounds (the table shows NaN).
pub fn ideal_fct(f: &LoneFlow) -> SimTime {
    let mut fbusy = vec![SimTime::ZERO; f.fwd.len()];
    let mut rbusy = vec![SimTime::ZERO; f.rev.len()];
    let mut now = SimTime::ZERO;
    let mut grown_once = !f.delay_growth;
    if let Some(sb) = f.syn_bytes {
        let t = Train {
            first: now,
            last: now,
            n: 1,
            m: 1,
        };
        let t = along(t, sb, sb, &f.fwd, &mut fbusy);
        let t = along(t, f.ack_bytes, f.ack_bytes, &f.rev, &mut rbusy);
        now = t.last;
        grown_once = true; // the SYN's ACK was the one that does not open the window
    }
    let wm = f.wm.max(1) as f64;
    let mut cwnd = (f.init_cwnd.max(1) as f64).min(wm);
    let ssthresh = f.init_ssthresh as f64;
    let mut sent = 0u64;
    // The receiver: segments received, the arrival of one not yet acknowledged, and
    // the round's ACKs (time, segments acknowledged in all).
    let mut rcvd = 0u64;
    let mut pending: Option<SimTime> = None;
    let mut acks: Vec<(SimTime, u64)> = Vec::new();
    let n0 = (cwnd.floor() as u64).min(f.segments);
    let mut train = Train {
        first: now,
        last: now,
        n: n0,
        m: n0,
    };
    if f.segments == 0 {
        return now;
    }
    // The state of the previous round relative to its first packet, to find the
    // steady state (below).
    let mut prev: Option<(Vec<i128>, SimTime)> = None;
    let mut rounds = 0u64;
    loop {
        rounds += 1;
        if rounds > MAX_ROUNDS {
            return SimTime::MAX;
        }
        // Steady state: once the window is at `wm`, a round that finds the path as the
        // previous one did (same train, same transmitters and receiver relative to its
        // first packet) repeats it one period later, and so do the rounds after it: they
        // are skipped in one step, so the ideal of a flow of any size takes a few rounds
        // to compute.
        if cwnd >= wm && train.n == wm as u64 {
            let rel = |t: SimTime| t.0 as i128 - train.first.0 as i128;
            let mut sig = vec![train.n as i128, train.m as i128, rel(train.last)];
            sig.extend(fbusy.iter().chain(&rbusy).map(|&b| rel(b)));
            sig.push(pending.map_or(i128::MIN, rel));
            if let Some((ps, pf)) = &prev {
                if *ps == sig && f.segments - sent > 2 * train.n {
                    let period = train.first - *pf;
                    let skip = (f.segments - sent) / train.n - 1;
                    // Beyond the simulator's time range (2⁶⁴ ps, 213 days): no ideal.
                    let Some(jump) = period.0.checked_mul(skip) else {
                        return SimTime::MAX;
                    };
                    if SimTime::MAX.0 - jump < 2 * train.last.0 {
                        return SimTime::MAX;
                    }
                    let jump = SimTime(jump);
                    train.first += jump;
                    train.last += jump;
                    for b in fbusy.iter_mut().chain(rbusy.iter_mut()) {
                        *b += jump;
                    }
                    pending = pending.map(|p| p + jump);
                    sent += skip * train.n;
                    rcvd += skip * train.n;
                    prev = None;
                    continue;
                }
            }
            prev = Some((sig, train.first));
        }
        sent += train.n;
        let head = if sent == train.n {
            f.seg0_bytes
        } else {
            f.seg_bytes
        };
        let data = along(train, f.seg_bytes, head, &f.fwd, &mut fbusy);
        // The receiver (`tcp/receiver.rs`): one ACK per segment; with delayed ACKs one
        // per two, a segment left alone acknowledged when the timer set at its arrival
        // runs out — at the latest when no other segment is coming (the last, or a
        // round whose segments would otherwise get no ACK).
        acks.clear();
        let k = data.n - data.m + 1;
        for j in 0..data.n {
            let a = instant(&data, k, j.min(k - 1));
            rcvd += 1;
            match (f.delack, pending) {
                (None, _) => acks.push((a, rcvd)),
                (Some(to), Some(p)) if a >= p + to => {
                    acks.push((p + to, rcvd - 1));
                    pending = Some(a);
                }
                (Some(_), Some(_)) => {
                    acks.push((a, rcvd));
                    pending = None;
                }
                (Some(_), None) => pending = Some(a),
            }
        }
        if let (Some(to), Some(p)) = (f.delack, pending) {
            if acks.is_empty() || rcvd >= f.segments {
                acks.push((p + to, rcvd));
                pending = None;
            }
        }
        let (t_first, t_last) = (acks[0].0, acks[acks.len() - 1].0);
        let ack_train = Train {
            first: t_first,
            last: t_last,
            n: acks.len() as u64,
            m: acks.iter().filter(|x| x.0 == t_last).count() as u64,
        };
        let back = along(ack_train, f.ack_bytes, f.ack_bytes, &f.rev, &mut rbusy);
        if sent >= f.segments {
            return back.last;
        }
        // The ACKs open the window (RFC 5681 §3.1; ns-2 `opencwnd`), each releasing
        // what the window then allows: the next round starts at the first ACK that
        // releases a segment and ends at the last (a truncated last round is released
        // by the first ACKs of the train). ACK `i` is at instant `min(i, k − 1)` of
        // the train's `k` evenly spaced instants.
        let k = back.n - back.m + 1;
        let mut released = sent;
        let (mut first_at, mut last_at, mut m) = (None, 0u64, 0u64);
        for (i, &(_, acked)) in acks.iter().enumerate() {
            let i = i as u64;
            if !grown_once {
                grown_once = true;
            } else if cwnd < ssthresh {
                cwnd = (cwnd + 1.0).min(wm);
            } else {
                cwnd = (cwnd + 1.0 / cwnd).min(wm);
            }
            let allowed = (acked + cwnd.floor() as u64).min(f.segments);
            let rel = allowed.saturating_sub(released);
            if rel > 0 {
                let at = i.min(k - 1);
                first_at.get_or_insert(at);
                if at != last_at {
                    m = 0;
                }
                last_at = at;
                m += rel;
                released += rel;
            }
        }
        let n = released - sent;
        let first_at = first_at.unwrap_or(k - 1);
        train = Train {
            first: instant(&back, k, first_at),
            last: instant(&back, k, last_at.max(first_at)),
            n: n.max(1),
            m: m.clamp(1, n.max(1)),
        };
    }
}

impl World {
    /// The path of route `r` as the ideal sees it (`None` if it has a stage without a
    /// closed form).
    fn stages(&self, r: u32) -> Option<Vec<Stage>> {
        let mut out = Vec::new();
        for h in &self.routes[r as usize] {
            match *h {
                Hop::Link(li) => {
                    let (rate, delay) = self.links.rate_delay(li);
                    out.push(Stage::Link { rate, delay });
                }
                Hop::Obs(qi) => {
                    if self.ingress.is_some() || self.control_chan.is_some() {
                        return None;
                    }
                    let core = self.core.as_ref()?;
                    let spec = self.edges.spec(qi);
                    let rule = match spec.asm {
                        Assembler::Timer {
                            tb,
                            max_pkts_per_burst,
                            ..
                        } => AsmRule::Timer {
                            tb,
                            max_pkts: max_pkts_per_burst,
                        },
                        Assembler::Hybrid {
                            tmax,
                            lmax_bytes,
                            lmin_bytes,
                            max_pkts_per_burst,
                            ..
                        } => AsmRule::Hybrid {
                            tmax,
                            lmax_bytes,
                            lmin_bytes,
                            max_pkts: max_pkts_per_burst,
                        },
                        _ => return None,
                    };
                    let fibre_delay = spec
                        .path
                        .iter()
                        .fold(SimTime::ZERO, |a, &f| a + core.hop_info(f).0);
                    let last = *spec.path.last()?;
                    out.push(Stage::Obs {
                        rule,
                        offset: spec.offset,
                        fibre_delay,
                        tail_rate: *self.collector.fibre_rate.get(last as usize)?,
                    });
                }
                Hop::Unused | Hop::Deliver => return None,
            }
        }
        Some(out)
    }

    /// The flow's ideal completion time in seconds (NaN without a closed form).
    fn ideal_s(&self, fi: usize, cfg: &TcpConfig, segments: u64) -> f64 {
        self.ideal_on(self.hosts.routes(fi), cfg, segments)
    }

    /// The ideal completion time in seconds of a flow of `cfg` and `segments` on routes
    /// `(fwd, rev)` (NaN without a closed form).
    pub(super) fn ideal_on(&self, (fwd, rev): (u32, u32), cfg: &TcpConfig, segments: u64) -> f64 {
        let (Some(fwd), Some(rev)) = (self.stages(fwd), self.stages(rev)) else {
            return f64::NAN;
        };
        let ns2 = cfg.profile == Profile::Ns2;
        let lone = LoneFlow {
            segments,
            seg_bytes: cfg.seg_bytes(),
            seg0_bytes: if ns2 && !cfg.syn {
                cfg.mss
            } else {
                cfg.seg_bytes()
            },
            ack_bytes: cfg.ack_bytes,
            syn_bytes: (ns2 && cfg.syn).then_some(cfg.header_bytes),
            init_cwnd: cfg.init_cwnd,
            init_ssthresh: cfg.init_ssthresh,
            wm: cfg.wm,
            delay_growth: ns2,
            delack: cfg.delayed_ack.then_some(cfg.delack_timeout),
            fwd,
            rev,
        };
        match ideal_fct(&lone) {
            SimTime::MAX => f64::NAN,
            t => t.as_secs_f64(),
        }
    }

    /// One `fct` row per finite TCP flow, from its `flows` row and its `obs_flows` row.
    pub(super) fn fct_rows(&self, flows: &[FlowRow], obs_flows: &[ObsFlowRow]) -> Vec<FctRow> {
        let mut out = Vec::new();
        for row in flows {
            let Some(size) = row.size_segments else {
                continue;
            };
            let fi = row.flow as usize;
            let Some(cfg) = self.hosts.tcp_config(fi) else {
                continue;
            };
            let ideal = self.ideal_s(fi, cfg, size);
            let fct = if row.completed {
                row.end_s - row.start_s
            } else {
                f64::NAN
            };
            let bursts_lost = obs_flows
                .iter()
                .find(|o| o.flow == row.flow)
                .map_or(0, |o| o.data_bursts_lost + o.ack_bursts_lost);
            out.push(FctRow {
                flow: row.flow,
                name: row.name.clone(),
                workload: String::new(),
                src: row.src.clone(),
                dst: row.dst.clone(),
                size_segments: size,
                size_bytes: size * cfg.mss as u64,
                start_s: row.start_s,
                end_s: row.end_s,
                fct_s: fct,
                ideal_fct_s: ideal,
                slowdown: fct / ideal,
                completed: row.completed,
                segments_delivered: row.segments_delivered,
                retransmits: row.retransmits,
                td_events: row.td_events,
                to_events: row.to_events,
                bursts_lost,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(rate_bps: u64, delay_ms: u64) -> Stage {
        Stage::Link {
            rate: BitRate(rate_bps),
            delay: SimTime::from_ms(delay_ms),
        }
    }

    fn flow(n: u64, fwd: Vec<Stage>, rev: Vec<Stage>) -> LoneFlow {
        LoneFlow {
            segments: n,
            seg_bytes: 1000,
            seg0_bytes: 1000,
            ack_bytes: 40,
            syn_bytes: None,
            init_cwnd: 1,
            init_ssthresh: u32::MAX,
            wm: 1000,
            delay_growth: false,
            delack: None,
            fwd,
            rev,
        }
    }

    /// One segment: the base round trip, transmission included, both ways.
    #[test]
    fn one_segment_costs_one_round_trip() {
        let f = flow(1, vec![link(8_000_000, 10)], vec![link(8_000_000, 10)]);
        // 1000 B at 8 Mb/s = 1 ms, 40 B = 40 µs, 2 × 10 ms.
        assert_eq!(ideal_fct(&f), SimTime::from_us(21_040));
    }

    /// Slow start from 1 on a fast link: rounds 1, 2, 4 take one round trip each, plus
    /// the last round's packets one behind the other.
    #[test]
    fn slow_start_rounds_and_the_last_rounds_train() {
        let f = flow(7, vec![link(8_000_000, 10)], vec![link(8_000_000, 10)]);
        let rtt = SimTime::from_us(21_040);
        // Round 1 (2 segments) leaves at rtt; its ACKs come back at 2·rtt and 2·rtt +
        // 1 ms, each releasing two segments: round 2's four leave back to back from
        // 2·rtt, the last done transmitting 4 ms later, and its ACK is back after the
        // rest of a round trip (rtt − 1 ms).
        assert_eq!(ideal_fct(&f), mul(rtt, 3) + SimTime::from_ms(3));
    }

    /// A window-limited flow: `wm` segments per round trip.
    #[test]
    fn a_window_limited_flow_sends_wm_per_round() {
        let mut f = flow(
            40,
            vec![link(1_000_000_000, 50)],
            vec![link(1_000_000_000, 50)],
        );
        f.init_cwnd = 10;
        f.wm = 10;
        let t = ideal_fct(&f).as_secs_f64();
        // 4 rounds of 100 ms (plus µs of transmission).
        assert!((0.4..0.401).contains(&t), "{t}");
    }

    /// The steady state is skipped, not iterated: a flow of 10⁸ segments takes a few
    /// rounds, and each round more costs one period.
    #[test]
    fn the_steady_state_repeats_with_its_period() {
        let mut f = flow(
            0,
            vec![link(1_000_000_000, 50)],
            vec![link(1_000_000_000, 50)],
        );
        f.init_cwnd = 10;
        f.wm = 10;
        let at = |n: u64| {
            let mut g = f.clone();
            g.segments = n;
            ideal_fct(&g)
        };
        let period = at(50) - at(40);
        assert!(period > SimTime::from_ms(100), "{period:?}");
        assert_eq!(at(60) - at(50), period);
        let big = 100_000_000;
        assert_eq!(at(big) - at(big - 10), period);
        assert_eq!(at(big) - at(40), mul(period, (big - 40) / 10));
        // Past 2⁶⁴ ps (213 days) there is no ideal.
        assert_eq!(at(1_000_000_000_000), SimTime::MAX);
    }

    /// A timer-assembled OBS segment: a round that fits one burst waits Tb once.
    #[test]
    fn one_burst_per_round_waits_tb() {
        let obs = |tb_ms| Stage::Obs {
            rule: AsmRule::Timer {
                tb: SimTime::from_ms(tb_ms),
                max_pkts: u32::MAX,
            },
            offset: SimTime::from_us(35),
            fibre_delay: SimTime::from_ms(30),
            tail_rate: BitRate(80_000_000_000),
        };
        let f = flow(1, vec![obs(2)], vec![obs(2)]);
        // 2 × (2 ms + 35 µs + 30 ms) + the bursts' tails (1000 B: 100 ns, 40 B: 4 ns).
        assert_eq!(
            ideal_fct(&f),
            SimTime::from_us(64_070) + SimTime::from_ns(104)
        );
    }
}
