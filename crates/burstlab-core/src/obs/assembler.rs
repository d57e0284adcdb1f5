//! Burst assembly decisions for one assembly queue at an ingress edge node.
//!
//! Read first: [`AssemblerConfig`] (the policies), then [`Assembler::on_packet`] /
//! [`Assembler::on_timer`] and [`Decision`] (what the node must do afterwards).
//!
//! Division of labour: the **node** owns the FIFO queue of packets and the event queue;
//! the **assembler** owns only the policy state (its timer, its random stream). The node
//! appends each arriving packet to the queue, then calls `on_packet` with the packet's
//! metadata and the queue state *including* that packet. Each [`Emit`] tells the node
//! to take that many packets from the head of the queue (plus `pad_bytes` of padding)
//! and form one burst. Nothing here allocates.
//!
//! Policies:
//! - **Timer** (yu §II): "a burst assembly timer is initialized at the beginning of each
//!   assembly cycle"; a cycle begins when a packet enters an empty queue, and "the
//!   packets … that arrive before the timer expires are assembled into the same burst".
//!   Optional jitter (ozsarac §3.3): each cycle's period is `Tb + N(0, (f·Tb)²)`, drawn
//!   from the assembler's own [`RngStream`] when the timer is armed.
//! - **Length**: emit as soon as the queue holds `max_bytes` bytes or `max_pkts` packets.
//! - **Hybrid time–volume** (hybrid §II): emit when `Lmax` bytes are reached or `Tmax`
//!   after the burst's first packet, whichever is first; a burst shorter than `Lmin` is
//!   padded up to `Lmin` (the `Lmin` option is burstlab's own addition; the hybrid paper
//!   itself only uses `Tmax` and `Lmax`).
//! - **Window** (ozsarac §2): per-flow assembly of one TCP flow's data. CWBA (§2.1):
//!   emit when the flow's whole congestion window has arrived — learnt from the
//!   sender's mark on the last segment of its window (the mechanism §2.1 proposes; see
//!   `world::hosts` for what the mark means after a loss, in fast recovery and after a
//!   timeout), from the ingress's replica of the sender's Reno state machine (ECWBA,
//!   §2.3; `world::edge::RenoFsmEstimator`), from a flight estimate, or from the true
//!   cwnd (an oracle, for diagnostics). With `tmax` it is MCWBA (§2.2): also emit when
//!   `tmax` has passed since the burst's first packet, whichever is first. The §2.2
//!   pseudocode starts the timer on a packet arrival when it "is not running" and stops
//!   it whenever a burst is sent, so the timer runs from each burst's first packet, as
//!   here; the half-open convention below applies to it.
//!
//! Conventions (the same for every policy):
//! - **Half-open cycles.** A cycle that starts at `t0` with period `T` collects packets
//!   arriving in `[t0, t0 + T)`; a packet arriving exactly at the deadline belongs to
//!   the *next* burst (yu §II: "arrive *before* the timer expires"). For a paced flow
//!   with spacing `d` this gives `floor(T/d) + 1` packets per burst when `T` is not a
//!   multiple of `d` — yu's `S = λ·Tb + 1` — and `T/d` when it is. The convention
//!   does not depend on how the event queue orders a packet arrival and the timer event
//!   at the same instant: if the packet is delivered first, `on_packet` sees the
//!   expired deadline, closes the old burst without the new packet, and starts a new
//!   cycle with it (the timer event then pops stale and is ignored).
//! - **Volume thresholds include the packet that reaches them**: with `max_bytes = L`
//!   a burst is emitted when the queue holds `≥ L` bytes, so it may exceed `L` by less
//!   than one packet.
//! - **`max_pkts_per_burst`** caps every burst. For Length and Hybrid it is one more
//!   volume threshold (reaching it emits at once). For Timer it caps what one expiry
//!   takes: the remaining packets start the next cycle immediately (a new timer is
//!   armed at the expiry instant), as ozsarac's 10 000-packet limit requires without
//!   changing the timer's burst boundaries below the cap.
//!
//! Timer protocol (lazy cancellation, as in `engine`): [`TimerCmd::Arm`] carries a
//! deadline and a generation number; the node schedules one event at the deadline
//! carrying the generation, and passes it back to [`Assembler::on_timer`]. An event
//! whose generation is not the currently armed one (the timer was cancelled or re-armed
//! since) is stale: `on_timer` returns [`Decision::NONE`] and changes nothing. The node
//! therefore never needs to remove events; it may also use
//! [`Assembler::pending_timer`] to check before calling.
//!
//! Extension point: TCP-aware assemblers — CWBA, MCWBA, ECWBA (ozsarac §2) and
//! ACK-ratio assembly (zhou §3) — become new [`AssemblerConfig`] and [`Assembler`]
//! variants with their own state, fed by [`PktMeta`] (`flow`, `kind`, `seq` let them
//! follow each flow's window or count ACKs). The node does not change as long as a
//! policy's bursts are head-of-queue prefixes. Zhou's ACK-ratio policy holds surplus
//! ACKs back in "Extra-Queues" with priority: see the section "ACK-ratio assembly"
//! below ([`AckRatioBase`], [`ack_ratio_allowed`]).

pub use super::decision::{Decision, Emit, PktKind, PktMeta, QueueState, TimerCmd};
use super::external::{ExternalSpec, ExternalState};
use crate::rng::RngStream;
use crate::units::SimTime;
use std::sync::Arc;

/// What else an assembler may read when a packet arrives, besides the packet and the
/// queue: the flow's true cwnd (an ORACLE an ingress cannot know, for diagnostics and
/// upper bounds), the edge's passive estimate of the flow's window (segments in
/// flight as seen at the ingress; see `world::edge::FlightEstimator`) and the edge's
/// replica of the sender's Reno state machine (ozsarac §2.3; see
/// `world::edge::RenoFsmEstimator`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AsmCtx {
    pub cwnd_oracle: Option<f64>,
    pub flight_estimate: Option<u64>,
    /// cwnd (segments) of the ingress's Reno state-machine replica.
    pub fsm_estimate: Option<f64>,
}

/// Where a window-based assembler learns that a whole window has arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowSource {
    /// The sender's mark on the segment that fills its window.
    Mark,
    /// `⌊cwnd_oracle⌋` data packets of the flow are queued (diagnostic oracle).
    Oracle,
    /// As many data packets are queued as the edge's flight estimate.
    Estimator,
    /// `⌊cwnd_est⌋` data packets of the flow are queued, `cwnd_est` from the ingress's
    /// replica of the sender's Reno state machine (ozsarac §2.3: ECWBA).
    RenoFsm,
}

/// The policy and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum AssemblerConfig {
    /// Timer-based assembly with period `tb`; `jitter_sd_frac` is the standard deviation
    /// of the period as a fraction of `tb` (ozsarac §3.3 uses 0.1; 0 disables jitter).
    Timer { tb: SimTime, jitter_sd_frac: f64 },
    /// Length-based assembly; at least one threshold must be given.
    Length {
        max_bytes: Option<u64>,
        max_pkts: Option<u32>,
    },
    /// Hybrid time–volume assembly (`Tmax`, `Lmax`, optional `Lmin` padding).
    Hybrid {
        tmax: SimTime,
        lmax_bytes: u64,
        lmin_bytes: Option<u64>,
    },
    /// Window-based assembly (ozsarac §2.1 CWBA: a burst when a whole congestion window
    /// has arrived), the window learnt from `window`; with `tmax`, also when `tmax` has
    /// passed since the burst's first packet, whichever is first (ozsarac §2.2 MCWBA).
    Window {
        window: WindowSource,
        tmax: Option<SimTime>,
    },
    /// ACK-ratio assembly (zhou §3): `base` decides when a burst is formed; the ACK
    /// share of every burst is held at or below `r_max` (see [`ack_ratio_allowed`]).
    AckRatio { base: AckRatioBase, r_max: f64 },
    /// A policy outside the core (`type = "python"`; `external.rs`): built by the
    /// world's [`super::ExternalFactory`], refused without one.
    External(Arc<ExternalSpec>),
}

/// The one timer of an assembly queue. Invariant: `deadline.is_some()` iff a timer event
/// carrying `gen` is pending and current.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerSlot {
    deadline: Option<SimTime>,
    /// Incremented on every arm, so each scheduled event carries a unique generation.
    gen: u64,
}

impl TimerSlot {
    fn arm(&mut self, deadline: SimTime) {
        self.gen += 1;
        self.deadline = Some(deadline);
    }
    fn expired(&self, now: SimTime) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }
    fn is_current(&self, gen: u64) -> bool {
        self.deadline.is_some() && gen == self.gen
    }
    /// The command that turns the node's view from `before` into `self`.
    fn cmd_since(&self, before: TimerSlot) -> TimerCmd {
        match self.deadline {
            Some(deadline) if self.gen != before.gen => TimerCmd::Arm {
                deadline,
                gen: self.gen,
            },
            Some(_) => TimerCmd::Keep,
            None if before.deadline.is_some() => TimerCmd::Cancel,
            None => TimerCmd::Keep,
        }
    }
}

/// Assembly policy state for one queue (static dispatch; docs/design.md).
#[derive(Debug)]
pub enum Assembler {
    Timer {
        tb: SimTime,
        jitter_sd_frac: f64,
        max_pkts_per_burst: u32,
        rng: RngStream,
        timer: TimerSlot,
    },
    Length {
        /// `u64::MAX` if not configured.
        max_bytes: u64,
        /// `min(max_pkts, max_pkts_per_burst)`.
        max_pkts: u32,
    },
    Hybrid {
        tmax: SimTime,
        lmax_bytes: u64,
        /// 0 if no padding.
        lmin_bytes: u64,
        max_pkts_per_burst: u32,
        timer: TimerSlot,
    },
    Window {
        window: WindowSource,
        /// MCWBA's cap (`None`: plain CWBA, no timer).
        tmax: Option<SimTime>,
        max_pkts_per_burst: u32,
        timer: TimerSlot,
        /// Data packets queued since the last burst.
        data: u32,
    },
    /// ACK-ratio assembly (zhou §3): the base policy's state, fed the *input* queue;
    /// the node applies the R-control rule ([`ack_ratio_allowed`]) when it forms the
    /// burst. Boxed once at construction (never per packet).
    AckRatio { base: Box<Assembler>, r_max: f64 },
    /// A policy outside the core (`external.rs`), boxed once at construction; called
    /// only when a packet joins and when its own wake-up fires.
    External(Box<ExternalState>),
}

impl Assembler {
    /// Builds the policy state, after [`crate::obs::validate_assembler`]. `rng` is the
    /// queue's own substream (e.g. `"edge/3/asm/0"`); only timer jitter draws from it.
    pub fn new(
        cfg: &AssemblerConfig,
        max_pkts_per_burst: u32,
        rng: RngStream,
    ) -> Result<Self, String> {
        super::validate_assembler(cfg, max_pkts_per_burst)?;
        Ok(match *cfg {
            AssemblerConfig::Timer { tb, jitter_sd_frac } => Assembler::Timer {
                tb,
                jitter_sd_frac,
                max_pkts_per_burst,
                rng,
                timer: TimerSlot::default(),
            },
            AssemblerConfig::Length {
                max_bytes,
                max_pkts,
            } => Assembler::Length {
                max_bytes: max_bytes.unwrap_or(u64::MAX),
                max_pkts: max_pkts.unwrap_or(u32::MAX).min(max_pkts_per_burst),
            },
            AssemblerConfig::Hybrid {
                tmax,
                lmax_bytes,
                lmin_bytes,
            } => Assembler::Hybrid {
                tmax,
                lmax_bytes,
                lmin_bytes: lmin_bytes.unwrap_or(0),
                max_pkts_per_burst,
                timer: TimerSlot::default(),
            },
            AssemblerConfig::Window { window, tmax } => Assembler::Window {
                window,
                tmax,
                max_pkts_per_burst,
                timer: TimerSlot::default(),
                data: 0,
            },
            AssemblerConfig::AckRatio { base, r_max } => Assembler::AckRatio {
                base: Box::new(Assembler::new(&base.config(), max_pkts_per_burst, rng)?),
                r_max,
            },
            AssemblerConfig::External(ref x) => return Err(external_refused(&x.path)),
        })
    }

    /// The pending timer `(deadline, gen)`, if one is armed.
    pub fn pending_timer(&self) -> Option<(SimTime, u64)> {
        if let Assembler::External(x) = self {
            return x.pending();
        }
        let slot = self.slot()?;
        slot.deadline.map(|d| (d, slot.gen))
    }

    /// Whether a timer event carrying `gen` is the current one (not stale).
    pub fn is_current(&self, gen: u64) -> bool {
        if let Assembler::External(x) = self {
            return x.is_current(gen);
        }
        self.slot().is_some_and(|s| s.is_current(gen))
    }

    fn slot(&self) -> Option<&TimerSlot> {
        match self {
            Assembler::Timer { timer, .. }
            | Assembler::Hybrid { timer, .. }
            | Assembler::Window { timer, .. } => Some(timer),
            Assembler::Length { .. } | Assembler::External(_) => None,
            Assembler::AckRatio { base, .. } => base.slot(),
        }
    }

    /// `R_MAX` if this is ACK-ratio assembly (zhou §3): the node must then keep surplus
    /// ACKs in its extra queue (see [`ack_ratio_allowed`]).
    pub fn ack_ratio_max(&self) -> Option<f64> {
        match self {
            Assembler::AckRatio { r_max, .. } => Some(*r_max),
            _ => None,
        }
    }

    /// Whether this policy reads one of the edge's passive estimators (so the edge hook
    /// must feed them).
    pub fn uses_estimator(&self) -> bool {
        matches!(
            self,
            Assembler::Window {
                window: WindowSource::Estimator | WindowSource::RenoFsm,
                ..
            }
        )
    }

    /// Call after appending a packet to the queue; `q` includes it.
    pub fn on_packet(&mut self, now: SimTime, pkt: &PktMeta, q: QueueState) -> Decision {
        self.on_packet_ctx(now, pkt, q, &AsmCtx::default())
    }

    /// [`Assembler::on_packet`] with what the edge knows beyond the packet and queue.
    #[inline]
    pub fn on_packet_ctx(
        &mut self,
        now: SimTime,
        pkt: &PktMeta,
        q: QueueState,
        ctx: &AsmCtx,
    ) -> Decision {
        debug_assert!(
            q.pkts >= 1 && q.bytes >= pkt.bytes as u64,
            "q must include pkt"
        );
        let mut d = Decision::NONE;
        match self {
            Assembler::Timer {
                tb,
                jitter_sd_frac,
                max_pkts_per_burst,
                rng,
                timer,
            } => {
                let before = *timer;
                if timer.expired(now) {
                    // The packet arrived at or after the deadline: the burst is what came
                    // before it (half-open cycle), and it opens the next cycle.
                    timer.deadline = None;
                    let n = (q.pkts - 1).min(*max_pkts_per_burst);
                    if n > 0 {
                        d.push(Emit {
                            pkts: n,
                            pad_bytes: 0,
                            only: None,
                        });
                    }
                }
                if timer.deadline.is_none() {
                    timer.arm(now + period(*tb, *jitter_sd_frac, rng));
                }
                d.timer = timer.cmd_since(before);
            }
            Assembler::Length {
                max_bytes,
                max_pkts,
            } => {
                if q.bytes >= *max_bytes || q.pkts >= *max_pkts {
                    d.push(Emit {
                        pkts: q.pkts,
                        pad_bytes: 0,
                        only: None,
                    });
                }
            }
            Assembler::Hybrid {
                tmax,
                lmax_bytes,
                lmin_bytes,
                max_pkts_per_burst,
                timer,
            } => {
                let before = *timer;
                let mut q = q;
                if timer.expired(now) {
                    timer.deadline = None;
                    let n = q.pkts - 1;
                    let bytes = q.bytes - pkt.bytes as u64;
                    if n > 0 {
                        d.push(Emit {
                            pkts: n,
                            pad_bytes: lmin_bytes.saturating_sub(bytes),
                            only: None,
                        });
                    }
                    q = QueueState {
                        pkts: 1,
                        bytes: pkt.bytes as u64,
                        oldest_arrival: now,
                    };
                }
                if q.bytes >= *lmax_bytes || q.pkts >= *max_pkts_per_burst {
                    timer.deadline = None;
                    d.push(Emit {
                        pkts: q.pkts,
                        pad_bytes: lmin_bytes.saturating_sub(q.bytes),
                        only: None,
                    });
                } else if timer.deadline.is_none() {
                    timer.arm(now + *tmax);
                }
                d.timer = timer.cmd_since(before);
            }
            Assembler::Window {
                window,
                tmax,
                max_pkts_per_burst,
                timer,
                data,
            } => {
                let before = *timer;
                let mut q = q;
                if timer.expired(now) {
                    // MCWBA (ozsarac §2.2): the timer expired before this packet (it
                    // arrived at the deadline, delivered before the timer event): the
                    // burst is what came before it (half-open cycles) and the packet
                    // opens the next one.
                    timer.deadline = None;
                    *data = 0;
                    if q.pkts > 1 {
                        d.push(Emit {
                            pkts: q.pkts - 1,
                            pad_bytes: 0,
                            only: None,
                        });
                    }
                    q = QueueState {
                        pkts: 1,
                        bytes: pkt.bytes as u64,
                        oldest_arrival: now,
                    };
                }
                if pkt.kind == PktKind::Data {
                    *data += 1;
                }
                // ozsarac §2.1 (CWBA): "if (Number of packets in assembler ≥ cwnd) then
                // send" — or, with the sender's mark, "whenever the CWBA assembler
                // receives a TCP packet with the corresponding bit set".
                let complete = match window {
                    WindowSource::Mark => pkt.mark,
                    WindowSource::Oracle => ctx
                        .cwnd_oracle
                        .is_some_and(|w| *data as f64 >= w.floor().max(1.0)),
                    WindowSource::Estimator => ctx
                        .flight_estimate
                        .is_some_and(|w| *data as u64 >= w.max(1)),
                    WindowSource::RenoFsm => ctx
                        .fsm_estimate
                        .is_some_and(|w| *data as f64 >= w.floor().max(1.0)),
                };
                if complete || q.pkts >= *max_pkts_per_burst {
                    // §2.2: "Reset the burst length; stop the … timer".
                    timer.deadline = None;
                    *data = 0;
                    d.push(Emit {
                        pkts: q.pkts,
                        pad_bytes: 0,
                        only: None,
                    });
                } else if let (None, Some(t)) = (timer.deadline, *tmax) {
                    // ozsarac §2.2 (MCWBA): "if (… timer is not running) then start the
                    // … timer": it runs from the burst's first packet.
                    timer.arm(now + t);
                }
                d.timer = timer.cmd_since(before);
            }
            // zhou §3: the base trigger runs on the input queue; the ratio is applied
            // by the node when it forms the burst.
            Assembler::AckRatio { base, .. } => return base.on_packet_ctx(now, pkt, q, ctx),
            Assembler::External(x) => return x.on_packet(now, pkt, q),
        }
        d
    }

    /// Call when a timer event carrying `gen` pops at `now`. Stale events (see the
    /// module docs) return [`Decision::NONE`]. A current event is consumed: the answer
    /// is `Arm` if a new cycle starts at once, else `Cancel` (no timer pending).
    pub fn on_timer(&mut self, now: SimTime, gen: u64, q: QueueState) -> Decision {
        let mut d = Decision::NONE;
        match self {
            Assembler::Timer {
                tb,
                jitter_sd_frac,
                max_pkts_per_burst,
                rng,
                timer,
            } => {
                if !timer.is_current(gen) {
                    return d;
                }
                debug_assert!(timer.expired(now), "timer event before its deadline");
                let before = *timer;
                timer.deadline = None;
                let n = q.pkts.min(*max_pkts_per_burst);
                if n > 0 {
                    d.push(Emit {
                        pkts: n,
                        pad_bytes: 0,
                        only: None,
                    });
                }
                if q.pkts > n {
                    // The cap left packets behind: they start the next cycle now.
                    timer.arm(now + period(*tb, *jitter_sd_frac, rng));
                }
                d.timer = timer.cmd_since(before);
            }
            Assembler::Length { .. } => {}
            Assembler::Hybrid {
                lmin_bytes, timer, ..
            } => {
                if !timer.is_current(gen) {
                    return d;
                }
                debug_assert!(timer.expired(now), "timer event before its deadline");
                let before = *timer;
                timer.deadline = None;
                if q.pkts > 0 {
                    d.push(Emit {
                        pkts: q.pkts,
                        pad_bytes: lmin_bytes.saturating_sub(q.bytes),
                        only: None,
                    });
                }
                d.timer = timer.cmd_since(before);
            }
            Assembler::Window { timer, data, .. } => {
                if !timer.is_current(gen) {
                    return d;
                }
                let before = *timer;
                timer.deadline = None;
                *data = 0;
                if q.pkts > 0 {
                    d.push(Emit {
                        pkts: q.pkts,
                        pad_bytes: 0,
                        only: None,
                    });
                }
                d.timer = timer.cmd_since(before);
            }
            Assembler::AckRatio { base, .. } => return base.on_timer(now, gen, q),
            Assembler::External(x) => return x.on_timer(now, gen, q),
        }
        d
    }
}

/// The error of a `type = "python"` assembly where no factory can build it (the core
/// alone, the `burstlab` binary), naming the table's `type` field.
pub fn external_refused(path: &str) -> String {
    format!(
        "{path}.type: \"python\" assembly runs only from the Python package (burstlab.run or `python -m burstlab run`); the core alone cannot call Python"
    )
}

/// One assembly period: `tb`, or `tb + N(0, (frac·tb)²)` rounded to the picosecond and
/// clamped to at least 1 ps (ozsarac §3.3).
fn period(tb: SimTime, frac: f64, rng: &mut RngStream) -> SimTime {
    if frac <= 0.0 {
        return tb;
    }
    let mean = tb.ps() as f64;
    let p = rng.normal(mean, frac * mean).round();
    SimTime(if p < 1.0 { 1 } else { p as u64 })
}

// ---------------------------------------------------------------------------------------
// ACK-ratio assembly (zhou §3).

/// The trigger under ACK-ratio assembly (zhou §3.1: "ACKs and other TCP segments are
/// assembled together into one burst, just like the conventional timer-based assembly
/// algorithm"): it decides *when* a burst is formed, exactly as the plain policy of the
/// same parameters would, looking only at the input queue.
///
/// How the ratio composes with the trigger (the node, `world::edge`, does the packet
/// moving; this module owns the rule):
/// - The **extra queue** holds the ACKs a previous burst could not take. It sits at the
///   head of the node's FIFO (its ACKs are older than any input packet); the trigger
///   sees only the input queue behind it (`QueueState` excludes the extra queue), so
///   held ACKs never start a timer nor count towards a length threshold.
/// - When the trigger emits `n` packets, the **candidate** is every ACK of the extra
///   queue followed by the first `n` input packets. With `d` non-ACK packets (data and
///   UDP) and `a` ACKs in it, the burst takes all `d` and the first
///   `a' = ack_ratio_allowed(r_max, d, a)` ACKs in queue order — the extra queue's
///   first, which is zhou §3.1's priority of "the delayed ACK packets in Extra-Queues
///   … over those from the Input Queues". The `a − a'` others form the new extra
///   queue, in order.
/// - A candidate that would leave an empty burst (only ACKs and `r_max < 1`) forms no
///   burst: its ACKs wait for the next assembly. With `r_max = 0` no ACK ever leaves
///   (zhou §3.2: "all ACK packets are queued and only data segments are assembled").
/// - With `r_max = 1` every ACK is always allowed and the extra queue stays empty: the
///   bursts are those of the base policy, bit for bit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AckRatioBase {
    Timer {
        tb: SimTime,
        jitter_sd_frac: f64,
    },
    Length {
        max_bytes: Option<u64>,
        max_pkts: Option<u32>,
    },
    Hybrid {
        tmax: SimTime,
        lmax_bytes: u64,
        lmin_bytes: Option<u64>,
    },
}

impl AckRatioBase {
    /// The plain policy with the same trigger.
    pub fn config(self) -> AssemblerConfig {
        match self {
            AckRatioBase::Timer { tb, jitter_sd_frac } => {
                AssemblerConfig::Timer { tb, jitter_sd_frac }
            }
            AckRatioBase::Length {
                max_bytes,
                max_pkts,
            } => AssemblerConfig::Length {
                max_bytes,
                max_pkts,
            },
            AckRatioBase::Hybrid {
                tmax,
                lmax_bytes,
                lmin_bytes,
            } => AssemblerConfig::Hybrid {
                tmax,
                lmax_bytes,
                lmin_bytes,
            },
        }
    }

    /// The trigger of a plain policy, if it can carry an ACK ratio (window-based
    /// assembly cannot: it has its own idea of which packets complete a burst).
    pub fn of(cfg: AssemblerConfig) -> Option<AckRatioBase> {
        match cfg {
            AssemblerConfig::Timer { tb, jitter_sd_frac } => {
                Some(AckRatioBase::Timer { tb, jitter_sd_frac })
            }
            AssemblerConfig::Length {
                max_bytes,
                max_pkts,
            } => Some(AckRatioBase::Length {
                max_bytes,
                max_pkts,
            }),
            AssemblerConfig::Hybrid {
                tmax,
                lmax_bytes,
                lmin_bytes,
            } => Some(AckRatioBase::Hybrid {
                tmax,
                lmax_bytes,
                lmin_bytes,
            }),
            _ => None,
        }
    }
}

/// The R-control rule (zhou §3.1, fig. 3): of `acks` ACKs offered to a burst that
/// carries `others` non-ACK packets, how many may go so that the burst's ACK share
/// `R = a / (a + others)` stays at or below `r_max` — the largest `a ≤ acks` with
/// `a ≤ r_max·(a + others)` (evaluated in `f64`, the form [`ack_share_ok`] checks).
/// `r_max = 1` allows every ACK; `r_max = 0` none.
pub fn ack_ratio_allowed(r_max: f64, others: u32, acks: u32) -> u32 {
    if ack_share_ok(r_max, others, acks) {
        return acks;
    }
    // a ≤ r·(a + d)  ⇔  a ≤ r·d / (1 − r) for r < 1; then correct the rounding.
    let est = (r_max * others as f64 / (1.0 - r_max)).floor();
    let mut a = if est.is_finite() && est >= 0.0 {
        (est as u64).min(acks as u64) as u32
    } else {
        0
    };
    while a > 0 && !ack_share_ok(r_max, others, a) {
        a -= 1;
    }
    while a < acks && ack_share_ok(r_max, others, a + 1) {
        a += 1;
    }
    a
}

/// Whether a burst of `acks` ACKs and `others` other packets respects `R ≤ r_max`.
pub fn ack_share_ok(r_max: f64, others: u32, acks: u32) -> bool {
    acks as f64 <= r_max * (acks as f64 + others as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;
    use std::collections::VecDeque;

    fn rng() -> RngStream {
        RngStream::derive(1, 0, "test/asm")
    }

    fn pkt(bytes: u32) -> PktMeta {
        PktMeta {
            mark: false,
            bytes,
            flow: 0,
            kind: PktKind::Data,
            seq: 0,
        }
    }

    /// A minimal node: a FIFO of (arrival, bytes) and the bursts it formed.
    #[derive(Default)]
    struct Node {
        q: VecDeque<(SimTime, u32)>,
        /// (emission time, packets, payload bytes, pad bytes)
        bursts: Vec<(SimTime, u32, u64, u64)>,
    }

    impl Node {
        fn state(&self) -> QueueState {
            QueueState {
                pkts: self.q.len() as u32,
                bytes: self.q.iter().map(|p| p.1 as u64).sum(),
                oldest_arrival: self.q.front().map_or(SimTime::ZERO, |p| p.0),
            }
        }
        fn apply(&mut self, now: SimTime, d: &Decision) {
            for e in d.bursts() {
                let b: u64 = self.q.drain(..e.pkts as usize).map(|p| p.1 as u64).sum();
                self.bursts.push((now, e.pkts, b, e.pad_bytes));
            }
        }
    }

    #[derive(Clone, Copy, Debug)]
    enum Ev {
        Arrive(u32),
        Timer(u64),
    }
    crate::plain_event!(Ev);

    /// Drives one assembler through the real event queue. Packets arrive at `times`.
    /// With `prescheduled`, all arrivals are scheduled up front, so an arrival at a
    /// deadline pops *before* the timer event; otherwise each arrival schedules the
    /// next one, so the timer (armed earlier) pops first.
    fn drive(asm: &mut Assembler, times: &[(SimTime, u32)], prescheduled: bool) -> Node {
        let mut eq: EventQueue<Ev> = EventQueue::new();
        let mut node = Node::default();
        if prescheduled {
            for &(t, b) in times {
                eq.push(t, Ev::Arrive(b));
            }
        } else if let Some(&(t, b)) = times.first() {
            eq.push(t, Ev::Arrive(b));
        }
        let mut next = 1;
        while let Some((now, ev)) = eq.pop() {
            let d = match ev {
                Ev::Arrive(b) => {
                    if !prescheduled && next < times.len() {
                        eq.push(times[next].0, Ev::Arrive(times[next].1));
                        next += 1;
                    }
                    node.q.push_back((now, b));
                    asm.on_packet(now, &pkt(b), node.state())
                }
                Ev::Timer(gen) => asm.on_timer(now, gen, node.state()),
            };
            node.apply(now, &d);
            if let TimerCmd::Arm { deadline, gen } = d.timer {
                eq.push(deadline, Ev::Timer(gen));
            }
        }
        node
    }

    fn paced(n: u64, d: SimTime, bytes: u32) -> Vec<(SimTime, u32)> {
        (0..n).map(|i| (SimTime(i * d.ps()), bytes)).collect()
    }

    fn timer(tb: SimTime) -> Assembler {
        let cfg = AssemblerConfig::Timer {
            tb,
            jitter_sd_frac: 0.0,
        };
        Assembler::new(&cfg, u32::MAX, rng()).unwrap()
    }

    /// yu §II: a paced flow (one segment every d = 1/λ) and timer Tb gives bursts of
    /// S = floor(Tb/d) + 1 segments (= λ·Tb + 1 up to rounding) when Tb is not a multiple
    /// of d, and Tb/d when it is (half-open cycles), emitted Tb after each burst's first
    /// segment — whichever way the event queue orders simultaneous events.
    #[test]
    fn timer_paced_flow_gives_floor_tb_over_d_plus_one() {
        let cases = [
            (SimTime::from_us(8), SimTime::from_us(1)), // λ = 125 000 seg/s, Tb < d: S = 1
            (SimTime::from_us(8), SimTime::from_us(100)), // S = 13
            (SimTime::from_us(8), SimTime::from_us(96)), // Tb = 12 d exactly: S = 12
            (SimTime::from_ms(2), SimTime::from_ms(5)), // λ = 500 seg/s: S = 3
            (SimTime::from_ms(2), SimTime::from_ms(4)), // exact multiple: S = 2
            (SimTime(3), SimTime(10)),                  // S = 4
        ];
        for (d, tb) in cases {
            let s = if tb.ps() % d.ps() == 0 {
                tb.ps() / d.ps()
            } else {
                tb.ps() / d.ps() + 1
            };
            let n_bursts = 20;
            for pre in [true, false] {
                let mut asm = timer(tb);
                let node = drive(&mut asm, &paced(s * n_bursts, d, 1000), pre);
                assert_eq!(
                    node.bursts.len() as u64,
                    n_bursts,
                    "d={d:?} tb={tb:?} pre={pre}"
                );
                for (j, &(at, k, bytes, pad)) in node.bursts.iter().enumerate() {
                    let first = SimTime(j as u64 * s * d.ps());
                    assert_eq!((at, k as u64, bytes, pad), (first + tb, s, s * 1000, 0));
                }
                assert!(node.q.is_empty() && asm.pending_timer().is_none());
            }
        }
    }

    #[test]
    fn timer_starts_when_first_packet_enters_empty_queue() {
        let mut asm = timer(SimTime(10));
        // Arrivals at 5, 7 (cycle [5,15)), then 30 (new cycle [30,40)).
        let times = [(SimTime(5), 100), (SimTime(7), 100), (SimTime(30), 100)];
        let node = drive(&mut asm, &times, true);
        assert_eq!(
            node.bursts,
            vec![(SimTime(15), 2, 200, 0), (SimTime(40), 1, 100, 0)]
        );
    }

    #[test]
    fn timer_cap_leaves_the_rest_for_the_next_cycle() {
        let cfg = AssemblerConfig::Timer {
            tb: SimTime(10),
            jitter_sd_frac: 0.0,
        };
        let mut asm = Assembler::new(&cfg, 3, rng()).unwrap();
        let times: Vec<_> = (0..8).map(|i| (SimTime(i), 100)).collect();
        let node = drive(&mut asm, &times, true);
        // Expiry at 10 takes 3 of 8; the rest (5) start a cycle at 10, expiring at 20,
        // which takes 3; the last 2 go at 30.
        assert_eq!(
            node.bursts,
            vec![
                (SimTime(10), 3, 300, 0),
                (SimTime(20), 3, 300, 0),
                (SimTime(30), 2, 200, 0)
            ]
        );
    }

    #[test]
    fn stale_timer_events_are_ignored() {
        let cfg = AssemblerConfig::Hybrid {
            tmax: SimTime(100),
            lmax_bytes: 1000,
            lmin_bytes: None,
        };
        let mut asm = Assembler::new(&cfg, u32::MAX, rng()).unwrap();
        let q1 = QueueState {
            pkts: 1,
            bytes: 600,
            oldest_arrival: SimTime(0),
        };
        let d = asm.on_packet(SimTime(0), &pkt(600), q1);
        let TimerCmd::Arm { deadline, gen } = d.timer else {
            panic!("{d:?}")
        };
        assert_eq!((deadline, d.emit), (SimTime(100), None));
        assert!(asm.is_current(gen));
        // Lmax reached at t=1: emitted, timer cancelled.
        let q2 = QueueState {
            pkts: 2,
            bytes: 1200,
            oldest_arrival: SimTime(0),
        };
        let d = asm.on_packet(SimTime(1), &pkt(600), q2);
        assert_eq!(
            d,
            Decision {
                emit: Some(Emit {
                    pkts: 2,
                    pad_bytes: 0,
                    only: None
                }),
                then: None,
                timer: TimerCmd::Cancel
            }
        );
        assert!(!asm.is_current(gen));
        // A new cycle at t=50 arms generation gen+1; the old event pops at 100: ignored.
        let q3 = QueueState {
            pkts: 1,
            bytes: 10,
            oldest_arrival: SimTime(50),
        };
        let d = asm.on_packet(SimTime(50), &pkt(10), q3);
        assert_eq!(
            d.timer,
            TimerCmd::Arm {
                deadline: SimTime(150),
                gen: gen + 1
            }
        );
        assert_eq!(asm.on_timer(SimTime(100), gen, q3), Decision::NONE);
        assert_eq!(asm.pending_timer(), Some((SimTime(150), gen + 1)));
        let d = asm.on_timer(SimTime(150), gen + 1, q3);
        assert_eq!(
            d.emit,
            Some(Emit {
                pkts: 1,
                pad_bytes: 0,
                only: None
            })
        );
        assert_eq!(
            d.timer,
            TimerCmd::Cancel,
            "the fired event is consumed; nothing pending"
        );
        assert_eq!(asm.pending_timer(), None);
    }

    fn length(max_bytes: Option<u64>, max_pkts: Option<u32>, cap: u32) -> Assembler {
        Assembler::new(
            &AssemblerConfig::Length {
                max_bytes,
                max_pkts,
            },
            cap,
            rng(),
        )
        .unwrap()
    }

    /// Sizes of the bursts a packet sequence (all at t = 0) produces, and what is left.
    fn sizes(asm: &mut Assembler, bytes: &[u32]) -> (Vec<(u32, u64, u64)>, usize) {
        let times: Vec<_> = bytes.iter().map(|&b| (SimTime::ZERO, b)).collect();
        let node = drive(asm, &times, true);
        (
            node.bursts.iter().map(|b| (b.1, b.2, b.3)).collect(),
            node.q.len(),
        )
    }

    #[test]
    fn length_thresholds() {
        // Bytes: emitted when the queue holds ≥ 3000 B, the crossing packet included.
        let (b, left) = sizes(&mut length(Some(3000), None, u32::MAX), &[1000; 7]);
        assert_eq!((b, left), (vec![(3, 3000, 0), (3, 3000, 0)], 1));
        let (b, _) = sizes(&mut length(Some(3000), None, u32::MAX), &[1400; 6]);
        assert_eq!(
            b,
            vec![(3, 4200, 0), (3, 4200, 0)],
            "overshoot < one packet"
        );
        // Packets.
        let (b, left) = sizes(&mut length(None, Some(4), u32::MAX), &[10; 9]);
        assert_eq!((b, left), (vec![(4, 40, 0), (4, 40, 0)], 1));
        // Both: whichever first.
        let (b, _) = sizes(
            &mut length(Some(250), Some(4), u32::MAX),
            &[100, 100, 100, 10, 10, 10, 10],
        );
        assert_eq!(b, vec![(3, 300, 0), (4, 40, 0)]);
        // max_pkts_per_burst below max_pkts wins.
        let (b, _) = sizes(&mut length(None, Some(4), 2), &[10; 4]);
        assert_eq!(b, vec![(2, 20, 0), (2, 20, 0)]);
        // Length never arms a timer.
        let mut a = length(Some(1), None, u32::MAX);
        let d = a.on_packet(
            SimTime(0),
            &pkt(5),
            QueueState {
                pkts: 1,
                bytes: 5,
                oldest_arrival: SimTime(0),
            },
        );
        assert_eq!(d.timer, TimerCmd::Keep);
        assert_eq!(a.pending_timer(), None);
    }

    fn hybrid(tmax: u64, lmax: u64, lmin: Option<u64>, cap: u32) -> Assembler {
        let cfg = AssemblerConfig::Hybrid {
            tmax: SimTime(tmax),
            lmax_bytes: lmax,
            lmin_bytes: lmin,
        };
        Assembler::new(&cfg, cap, rng()).unwrap()
    }

    #[test]
    fn hybrid_emits_at_lmax_or_tmax_whichever_first() {
        // 500 B every 10 ps, Lmax 2000 B, Tmax 100 ps: Lmax first, at the 4th packet.
        let mut a = hybrid(100, 2000, None, u32::MAX);
        let node = drive(&mut a, &paced(8, SimTime(10), 500), true);
        assert_eq!(
            node.bursts,
            vec![(SimTime(30), 4, 2000, 0), (SimTime(70), 4, 2000, 0)]
        );
        // Tmax 25 ps: the timer is first; packets at 0,10,20 then 30,40,50 then 60,70.
        for pre in [true, false] {
            let mut a = hybrid(25, 2000, None, u32::MAX);
            let node = drive(&mut a, &paced(8, SimTime(10), 500), pre);
            assert_eq!(
                node.bursts,
                vec![
                    (SimTime(25), 3, 1500, 0),
                    (SimTime(55), 3, 1500, 0),
                    (SimTime(85), 2, 1000, 0)
                ],
                "pre={pre}"
            );
        }
        // Tmax 30 ps: the 4th packet arrives exactly at the deadline and goes to the next
        // burst, whichever event pops first.
        for pre in [true, false] {
            let mut a = hybrid(30, 1_000_000, None, u32::MAX);
            let node = drive(&mut a, &paced(6, SimTime(10), 500), pre);
            assert_eq!(
                node.bursts,
                vec![(SimTime(30), 3, 1500, 0), (SimTime(60), 3, 1500, 0)],
                "pre={pre}"
            );
        }
    }

    #[test]
    fn hybrid_pads_short_bursts_to_lmin() {
        // Tmax expires with 1500 B queued; Lmin 4000 → 2500 B of padding.
        let mut a = hybrid(25, 10_000, Some(4000), u32::MAX);
        let node = drive(&mut a, &paced(3, SimTime(10), 500), true);
        assert_eq!(node.bursts, vec![(SimTime(25), 3, 1500, 2500)]);
        // Bursts closed by Lmax are never padded (Lmax ≥ Lmin).
        let mut a = hybrid(1000, 2000, Some(2000), u32::MAX);
        let node = drive(&mut a, &paced(4, SimTime(10), 500), true);
        assert_eq!(node.bursts, vec![(SimTime(30), 4, 2000, 0)]);
        // A burst closed by max_pkts_per_burst is padded too.
        let mut a = hybrid(1000, 1_000_000, Some(3000), 2);
        let node = drive(&mut a, &paced(2, SimTime(10), 500), true);
        assert_eq!(node.bursts, vec![(SimTime(10), 2, 1000, 2000)]);
    }

    #[test]
    fn hybrid_packet_at_deadline_that_fills_lmax_emits_two_bursts() {
        let mut a = hybrid(30, 2000, Some(1000), u32::MAX);
        let q = |p, b| QueueState {
            pkts: p,
            bytes: b,
            oldest_arrival: SimTime(0),
        };
        a.on_packet(SimTime(0), &pkt(100), q(1, 100));
        // A 3000-B packet delivered at the deadline before the timer event.
        let d = a.on_packet(SimTime(30), &pkt(3000), q(2, 3100));
        assert_eq!(
            d.emit,
            Some(Emit {
                pkts: 1,
                pad_bytes: 900,
                only: None
            })
        );
        assert_eq!(
            d.then,
            Some(Emit {
                pkts: 1,
                pad_bytes: 0,
                only: None
            })
        );
        assert_eq!(d.timer, TimerCmd::Cancel);
        assert_eq!(d.bursts().count(), 2);
    }

    #[test]
    fn jitter_is_seeded_and_has_the_requested_spread() {
        let tb = SimTime::from_ms(4);
        let cfg = AssemblerConfig::Timer {
            tb,
            jitter_sd_frac: 0.1,
        };
        let periods = |seed: u64| -> Vec<f64> {
            let mut a = Assembler::new(&cfg, u32::MAX, RngStream::derive(seed, 0, "asm")).unwrap();
            let q = QueueState {
                pkts: 1,
                bytes: 100,
                oldest_arrival: SimTime::ZERO,
            };
            let mut now = SimTime::ZERO;
            (0..20_000)
                .map(|_| {
                    let d = a.on_packet(now, &pkt(100), q);
                    let TimerCmd::Arm { deadline, gen } = d.timer else {
                        panic!()
                    };
                    let p = (deadline - now).as_secs_f64();
                    a.on_timer(deadline, gen, q);
                    now = deadline;
                    p
                })
                .collect()
        };
        let a = periods(7);
        assert_eq!(a, periods(7), "same seed, same periods");
        assert_ne!(a[..10], periods(8)[..10]);
        let n = a.len() as f64;
        let mean = a.iter().sum::<f64>() / n;
        let sd = (a.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        // Standard errors: mean 0.4 ms/√n ≈ 2.8 µs; sd ≈ 0.4 ms/√(2n) ≈ 2 µs. 4σ bounds.
        assert!((mean - 4e-3).abs() < 12e-6, "mean {mean}");
        assert!((sd - 0.4e-3).abs() < 8e-6, "sd {sd}");
        // Without jitter the period is exact and no number is drawn.
        let mut a = timer(tb);
        let q = QueueState {
            pkts: 1,
            bytes: 1,
            oldest_arrival: SimTime::ZERO,
        };
        assert_eq!(
            a.on_packet(SimTime(5), &pkt(1), q).timer,
            TimerCmd::Arm {
                deadline: SimTime(5) + tb,
                gen: 1
            }
        );
    }

    #[test]
    fn invalid_configs_are_rejected_by_new() {
        let e = Assembler::new(
            &AssemblerConfig::Timer {
                tb: SimTime::ZERO,
                jitter_sd_frac: 0.0,
            },
            1,
            rng(),
        )
        .unwrap_err();
        assert!(e.starts_with("obs.assembler.tb:"), "{e}");
    }
}
