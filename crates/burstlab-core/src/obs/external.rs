//! External assemblers: burst assembly policies written outside the core (in Python,
//! through `crates/burstlab-py`), called at a queue's decision points only.
//!
//! Read first: [`ExternalAssembler`] (the two calls and what they see), then
//! [`HookDecision`] (the answer) and [`ExternalState::on_packet`] (how an answer
//! becomes the node's [`Decision`], and which answers are errors).
//!
//! The core has no Python in it: a scenario's `assembly = { type = "python", object =
//! "module:Class", params = { … } }` resolves to [`ExternalSpec`] (the strings and the
//! params table as JSON), and the world asks an [`ExternalFactory`] given by its caller
//! for one [`ExternalAssembler`] per queue. Without a factory (the `burstlab` binary,
//! the core alone) such a scenario is refused, naming the assembly's `type` field.
//!
//! Cost: the external object is called when a packet joins its queue and when a wake-up
//! it asked for fires, never for other events; built-in policies stay enum variants of
//! [`super::Assembler`] with static dispatch and are not slowed by this one.
//!
//! Timer protocol: the external object keeps its own state and answers with the time it
//! wants to be woken at ([`Wake`]); the core keeps the queue's one [`TimerSlot`](super::assembler::TimerSlot)-like
//! deadline and generation, so a wake-up that was replaced or withdrawn never reaches
//! the object (lazy cancellation, as for the built-ins in `assembler.rs`).

use super::decision::{Decision, Emit, PktMeta, QueueState, TimerCmd};
use crate::units::SimTime;

/// A `type = "python"` assembly table as the scenario gives it: the core stores the
/// strings and resolves nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalSpec {
    /// The object to instantiate, `module:Class` (or `module:function`).
    pub object: String,
    /// The `params` table, as JSON text of an object (`{}` when absent).
    pub params_json: String,
    /// Where the table is in the scenario (`obs.assembly`, `flow[2].assembly`…), for
    /// errors.
    pub path: String,
}

/// What the factory knows of the queue it builds an assembler for.
#[derive(Clone, Debug)]
pub struct QueueInfo<'a> {
    /// The queue's index among all assembly queues of the run.
    pub queue: u32,
    /// The ingress edge node (index and name).
    pub edge: u32,
    pub edge_name: &'a str,
    /// The egress edge node's name.
    pub egress_name: &'a str,
    /// The queue's key (the classifier's name for it: egress, class or flow).
    pub key: &'a str,
    /// `obs.max_pkts_per_burst`: the largest burst the node forms.
    pub max_pkts_per_burst: u32,
    /// The queue's own random seed: the first draw of its substream
    /// (`edge/<ingress>/asm/<queue>`, see `rng.rs`), so a hook's randomness depends only
    /// on the master seed, the replication and the queue.
    pub seed: u64,
}

/// When the external object wants its next `on_timer` call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// Whatever was pending stays pending (after `on_timer`: nothing is pending).
    Keep,
    /// At this time (≥ now), replacing any pending wake-up; the same time as the pending
    /// one keeps it.
    At(SimTime),
    /// No wake-up: a pending one is withdrawn.
    Off,
}

/// An external object's answer: release up to two bursts, each the first `pkts` packets
/// of the queue as it is after the previous one left, with `pad` bytes of padding; then
/// the wake-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookDecision {
    /// `(pkts, pad_bytes)` of each burst, in order; `pkts ≥ 1`.
    pub release: [Option<(u32, u64)>; 2],
    pub wake: Wake,
}

impl HookDecision {
    /// No burst; the pending wake-up stays.
    pub const NOTHING: HookDecision = HookDecision {
        release: [None, None],
        wake: Wake::Keep,
    };
}

/// Which packets an external object's `on_packet` needs to see (what it declares; the
/// core filters before calling, so a packet it skips costs no call).
///
/// [`CallFilter::EVERY_PACKET`] (the default) calls it for every packet. Otherwise it
/// is called for a packet only when (a) the packet joins an empty queue, (b) a wake-up
/// is pending and due (its time ≤ now: the packet arrived at the deadline before the
/// timer fired), or (c) the queue, counting the packet, holds `max_bytes` bytes or
/// `max_pkts` packets or more. A skipped packet is as if the object had answered
/// [`HookDecision::NOTHING`]: the declaration is the object's promise that it would
/// have, and results are exact only if it keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallFilter {
    /// `false`: every packet (the thresholds are then unused).
    pub first_packet: bool,
    /// Call when the queue holds at least this many bytes (`None`: no such trigger).
    pub max_bytes: Option<u64>,
    /// Call when the queue holds at least this many packets (`None`: no such trigger).
    pub max_pkts: Option<u32>,
}

impl CallFilter {
    /// Every packet (no declaration).
    pub const EVERY_PACKET: CallFilter = CallFilter {
        first_packet: false,
        max_bytes: None,
        max_pkts: None,
    };

    /// Whether `on_packet` must be called for a packet that left the queue as `q`
    /// (counting it) at `now`, with the wake-up `deadline` pending.
    #[inline]
    pub fn wants(&self, now: SimTime, q: QueueState, deadline: Option<SimTime>) -> bool {
        !self.first_packet
            || q.pkts <= 1
            || deadline.is_some_and(|d| d <= now)
            || self.max_bytes.is_some_and(|b| q.bytes >= b)
            || self.max_pkts.is_some_and(|p| q.pkts >= p)
    }
}

/// An assembly policy living outside the core, one per queue. Each call gets the time,
/// the queue *including* the packet that just joined (as for the built-ins), and for
/// `on_packet` the packet's [`PktMeta`] (size, flow, kind, sequence number and the
/// sender's window mark that CWBA reads, ozsarac §2.1). An `Err` is the hook's failure
/// (an exception, a wrong type), its text shown to the user.
pub trait ExternalAssembler: Send {
    /// A packet joined the queue.
    fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &PktMeta,
        q: QueueState,
    ) -> Result<HookDecision, String>;
    /// The wake-up it asked for is due.
    fn on_timer(&mut self, now: SimTime, q: QueueState) -> Result<HookDecision, String>;
    /// Which packets `on_packet` needs (read once, when the queue is built).
    fn calls(&self) -> CallFilter {
        CallFilter::EVERY_PACKET
    }
}

/// Builds the external assembler of one queue (given to the world by its caller).
pub trait ExternalFactory {
    /// `Err` names what is wrong (the object does not import, lacks a method…); the
    /// world reports it under `spec.path`.
    fn make(
        &mut self,
        spec: &ExternalSpec,
        queue: &QueueInfo<'_>,
    ) -> Result<Box<dyn ExternalAssembler>, String>;
}

/// One queue's external assembler with the core's side of the protocol: the pending
/// deadline and its generation, the answer checks, the first failure.
pub struct ExternalState {
    hook: Box<dyn ExternalAssembler>,
    /// The object's declaration ([`ExternalAssembler::calls`]).
    filter: CallFilter,
    /// `Some` iff a timer event carrying `gen` is pending and current.
    deadline: Option<SimTime>,
    gen: u64,
    /// Names the object and the queue in errors.
    label: String,
    /// The first failure (a hook's error or an invalid answer); after it the object is
    /// not called again and the world stops the run.
    error: Option<String>,
    /// Set with the first failure, never cleared.
    dead: bool,
}

impl std::fmt::Debug for ExternalState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalState")
            .field("label", &self.label)
            .field("filter", &self.filter)
            .field("deadline", &self.deadline)
            .field("gen", &self.gen)
            .finish()
    }
}

impl ExternalState {
    /// Wraps `hook`; `label` names the object and its queue in errors (e.g.
    /// `obs.assembly (my_mod:Timer), queue 'e2' at edge 'e1'`).
    pub fn new(hook: Box<dyn ExternalAssembler>, label: String) -> Self {
        ExternalState {
            filter: hook.calls(),
            hook,
            deadline: None,
            gen: 0,
            label,
            error: None,
            dead: false,
        }
    }

    /// The pending wake-up `(deadline, gen)`, if any.
    pub fn pending(&self) -> Option<(SimTime, u64)> {
        self.deadline.map(|d| (d, self.gen))
    }

    /// Whether a timer event carrying `gen` is the current one.
    pub fn is_current(&self, gen: u64) -> bool {
        self.deadline.is_some() && gen == self.gen
    }

    /// The first failure, if any (taken: the world reports it once).
    pub fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }

    /// Whether the object failed (it is not called any more).
    pub fn failed(&self) -> bool {
        self.dead
    }

    /// A packet joined the queue (`q` includes it). The object is not called when its
    /// [`CallFilter`] says the packet changes nothing.
    pub fn on_packet(&mut self, now: SimTime, pkt: &PktMeta, q: QueueState) -> Decision {
        if self.failed() || !self.filter.wants(now, q, self.deadline) {
            return Decision::NONE;
        }
        let r = self.hook.on_packet(now, pkt, q);
        self.apply("on_packet", now, q, r, false)
    }

    /// Timer event `gen` popped at `now`; stale events return [`Decision::NONE`].
    pub fn on_timer(&mut self, now: SimTime, gen: u64, q: QueueState) -> Decision {
        if !self.is_current(gen) || self.failed() {
            return Decision::NONE;
        }
        self.deadline = None; // the event is consumed
        let r = self.hook.on_timer(now, q);
        let mut d = self.apply("on_timer", now, q, r, true);
        if d.timer == TimerCmd::Keep {
            // The consumed event leaves nothing pending unless the hook asked again.
            d.timer = TimerCmd::Cancel;
        }
        d
    }

    /// Checks the answer of `hook` against the queue and turns it into the node's
    /// [`Decision`]. An invalid answer is a failure naming the hook.
    fn apply(
        &mut self,
        hook: &str,
        now: SimTime,
        q: QueueState,
        r: Result<HookDecision, String>,
        fired: bool,
    ) -> Decision {
        let a = match r {
            Ok(a) => a,
            Err(m) => return self.fail(hook, now, m),
        };
        let mut d = Decision::NONE;
        let mut left = q.pkts;
        for &(pkts, pad) in a.release.iter().flatten() {
            if pkts == 0 || pkts > left {
                let m = format!(
                    "released {pkts} packets, but the queue holds {left} (a burst takes 1 to the number queued)"
                );
                return self.fail(hook, now, m);
            }
            left -= pkts;
            let e = Emit {
                pkts,
                pad_bytes: pad,
                only: None,
            };
            if d.emit.is_none() {
                d.emit = Some(e);
            } else {
                d.then = Some(e);
            }
        }
        let had = self.deadline;
        d.timer = match a.wake {
            Wake::Keep => TimerCmd::Keep,
            Wake::Off => {
                self.deadline = None;
                if had.is_some() {
                    TimerCmd::Cancel
                } else {
                    TimerCmd::Keep
                }
            }
            Wake::At(t) if t < now => {
                let m = format!("asked to be woken at t = {t}, in the past (now t = {now})");
                return self.fail(hook, now, m);
            }
            Wake::At(t) if had == Some(t) && !fired => TimerCmd::Keep,
            Wake::At(t) => {
                self.gen += 1;
                self.deadline = Some(t);
                TimerCmd::Arm {
                    deadline: t,
                    gen: self.gen,
                }
            }
        };
        d
    }

    fn fail(&mut self, hook: &str, now: SimTime, m: String) -> Decision {
        self.error = Some(format!("{}: {hook} at t = {now}: {m}", self.label));
        self.dead = true;
        self.deadline = None;
        Decision::NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::obs::decision::PktKind;

    /// Answers from a script, one per call, recording what it saw.
    struct Scripted {
        answers: Vec<Result<HookDecision, String>>,
        filter: CallFilter,
    }
    impl ExternalAssembler for Scripted {
        fn on_packet(
            &mut self,
            _: SimTime,
            _: &PktMeta,
            _: QueueState,
        ) -> Result<HookDecision, String> {
            self.answers.remove(0)
        }
        fn on_timer(&mut self, _: SimTime, _: QueueState) -> Result<HookDecision, String> {
            self.answers.remove(0)
        }
        fn calls(&self) -> CallFilter {
            self.filter
        }
    }

    fn state(answers: Vec<Result<HookDecision, String>>) -> ExternalState {
        filtered(answers, CallFilter::EVERY_PACKET)
    }

    fn filtered(answers: Vec<Result<HookDecision, String>>, filter: CallFilter) -> ExternalState {
        ExternalState::new(
            Box::new(Scripted { answers, filter }),
            "obs.assembly (m:A)".into(),
        )
    }

    fn q(pkts: u32) -> QueueState {
        QueueState {
            pkts,
            bytes: pkts as u64 * 100,
            oldest_arrival: SimTime::ZERO,
        }
    }

    const PKT: PktMeta = PktMeta {
        bytes: 100,
        flow: 0,
        kind: PktKind::Data,
        seq: 0,
        mark: false,
    };

    fn wake(t: u64) -> HookDecision {
        HookDecision {
            release: [None, None],
            wake: Wake::At(SimTime(t)),
        }
    }

    #[test]
    fn wake_arms_and_fires_once_and_stale_events_are_ignored() {
        let release1 = HookDecision {
            release: [Some((1, 0)), None],
            wake: Wake::Keep,
        };
        let mut s = state(vec![Ok(wake(10)), Ok(wake(10)), Ok(wake(20)), Ok(release1)]);
        let d = s.on_packet(SimTime(0), &PKT, q(1));
        assert_eq!(
            d.timer,
            TimerCmd::Arm {
                deadline: SimTime(10),
                gen: 1
            }
        );
        // The same time again keeps the pending event.
        assert_eq!(s.on_packet(SimTime(1), &PKT, q(2)).timer, TimerCmd::Keep);
        // A new time replaces it: the event of generation 1 is stale.
        let d = s.on_packet(SimTime(2), &PKT, q(3));
        assert_eq!(
            d.timer,
            TimerCmd::Arm {
                deadline: SimTime(20),
                gen: 2
            }
        );
        assert_eq!(s.on_timer(SimTime(10), 1, q(3)), Decision::NONE);
        let d = s.on_timer(SimTime(20), 2, q(3));
        assert_eq!(d.emit.map(|e| e.pkts), Some(1));
        assert_eq!(d.timer, TimerCmd::Cancel);
        assert_eq!(s.pending(), None);
        assert!(s.take_error().is_none());
    }

    #[test]
    fn invalid_answers_fail_naming_the_hook() {
        let too_many = HookDecision {
            release: [Some((2, 0)), Some((2, 0))],
            wake: Wake::Keep,
        };
        let mut s = state(vec![Ok(too_many)]);
        assert_eq!(s.on_packet(SimTime(5), &PKT, q(3)), Decision::NONE);
        let e = s.take_error().expect("an error");
        assert!(
            e.starts_with("obs.assembly (m:A): on_packet at t = "),
            "{e}"
        );
        assert!(
            e.contains("released 2 packets, but the queue holds 1"),
            "{e}"
        );

        let mut s = state(vec![Ok(wake(4))]);
        s.on_packet(SimTime(5), &PKT, q(1));
        assert!(s.take_error().unwrap().contains("in the past"));

        let mut s = state(vec![Err("ValueError: boom".into()), Ok(wake(9))]);
        s.on_packet(SimTime(5), &PKT, q(1));
        assert!(s.failed());
        // A failed object is not called again.
        assert_eq!(s.on_packet(SimTime(6), &PKT, q(2)), Decision::NONE);
        assert!(s.take_error().unwrap().ends_with("ValueError: boom"));
    }

    #[test]
    fn a_declared_filter_calls_only_first_packets_due_wakeups_and_thresholds() {
        let release = |k| HookDecision {
            release: [Some((k, 0)), None],
            wake: Wake::Off,
        };
        let f = CallFilter {
            first_packet: true,
            max_bytes: Some(450),
            max_pkts: Some(6),
        };
        // Only the calls the filter lets through take an answer: a packet wrongly let
        // through would take the script out of step (a call past its end panics).
        let mut s = filtered(vec![Ok(wake(10)), Ok(wake(20)), Ok(release(5))], f);
        // First packet of a burst: called, arms t = 10.
        let d = s.on_packet(SimTime(0), &PKT, q(1));
        assert!(matches!(d.timer, TimerCmd::Arm { .. }));
        // Mid-burst, before the deadline, under both thresholds: not called.
        assert_eq!(s.on_packet(SimTime(5), &PKT, q(2)), Decision::NONE);
        assert_eq!(s.on_packet(SimTime(9), &PKT, q(3)), Decision::NONE);
        // At the deadline (before the timer): called.
        let d = s.on_packet(SimTime(10), &PKT, q(4));
        assert!(matches!(
            d.timer,
            TimerCmd::Arm {
                deadline: SimTime(20),
                ..
            }
        ));
        // 5 packets of 100 bytes cross max_bytes = 450: called.
        let d = s.on_packet(SimTime(11), &PKT, q(5));
        assert_eq!(d.emit.map(|e| e.pkts), Some(5));
        assert!(s.take_error().is_none());

        // max_pkts alone triggers too (bytes stay under max_bytes).
        let mut s = filtered(vec![Ok(wake(100)), Ok(release(6))], f);
        s.on_packet(SimTime(0), &PKT, q(1));
        let small = |n: u32| QueueState {
            pkts: n,
            bytes: n as u64,
            oldest_arrival: SimTime::ZERO,
        };
        for n in 2..6 {
            assert_eq!(
                s.on_packet(SimTime(n as u64), &PKT, small(n)),
                Decision::NONE
            );
        }
        let d = s.on_packet(SimTime(6), &PKT, small(6));
        assert_eq!(d.emit.map(|e| e.pkts), Some(6));
    }
}
