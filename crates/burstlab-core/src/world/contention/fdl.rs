//! Fibre delay lines (`obs.contention.fdl`, `fdl_capacity`): every OBS node has its own
//! set of lines, shared by its output fibres, tried in the scenario's order.
//!
//! Read first: [`resolve`]. A line of delay `D` is free for a burst arriving at `a` of
//! length `L` when its occupancy interval is free: `[a, a + D + L)` with capacity `one`
//! (one burst inside at a time, nOBS `FDLBURSTCAP = 1`), `[a, a + L)` with `many` (only
//! the entries must not overlap, `FDLBURSTCAP = 0`), as nOBS's
//! `OpFDLSchedule::ScheduleBurst` (`optical/op-fdlschedule.cc`). The output fibre is then
//! reserved `[a + D, a + D + L)` (JET; JIT from `now`) and the burst arrives `D` later at
//! every following node: its offset grows by `D`, the BCP is not delayed. Each line is a
//! one-channel set under LAUC-VF, so out-of-order JET requests are handled exactly.

use super::{Contention, Cx, Grant, Outcome, Via};
use crate::obs::{ChannelSet, SchedulerKind};
use crate::scenario::{FdlCapacity, ResolvedContention};
use crate::units::SimTime;
use crate::world::fibre::burst_time;

/// The delay lines of every node, `node * delays.len() + k` for line `k`.
#[derive(Default)]
pub(in crate::world) struct DelayLines {
    delays: Vec<SimTime>,
    /// `fdl_capacity = "one"`: a line holds one burst at a time.
    one: bool,
    lines: Vec<ChannelSet>,
}

impl DelayLines {
    pub fn new(c: &ResolvedContention, nodes: usize) -> DelayLines {
        DelayLines {
            delays: c.fdl.clone(),
            one: c.fdl_capacity == FdlCapacity::One,
            lines: (0..nodes * c.fdl.len())
                .map(|_| ChannelSet::new(1, SchedulerKind::LaucVf))
                .collect(),
        }
    }

    /// Whether there are delay lines at all.
    #[inline]
    pub fn any(&self) -> bool {
        !self.delays.is_empty()
    }
}

/// Stage 2: each delay line in order with the node's own conversion (any wavelength
/// with conversion, the burst's own without), then, where converters serve a burst
/// bound to its wavelength, each line again with a converter free for `[a + D, a + D +
/// L)` and any wavelength.
pub(in crate::world) fn resolve(st: &mut Contention, cx: &mut Cx<'_>) -> Outcome {
    let Contention { fdl, conv, .. } = st;
    let n = fdl.delays.len();
    if n == 0 {
        return Outcome::Pass;
    }
    let node = cx.f().p.from as usize;
    let a = cx.r.arrive;
    let len = burst_time(cx.f().p.rate, cx.r.kept());
    let use_conv = conv.usable(cx);
    for with_conv in [false, true] {
        if with_conv && !use_conv {
            break;
        }
        for k in 0..n {
            let d = fdl.delays[k];
            let line = &mut fdl.lines[node * n + k];
            line.release_before(cx.now);
            let occ_end = if fdl.one { a + d + len } else { a + len };
            if line.choose(a, occ_end).is_none() {
                continue;
            }
            let (s2, e2) = (a + d, a + d + len);
            let start = if cx.jit { cx.now } else { s2 };
            let got = if with_conv {
                conv.take(cx, s2, e2, |cx| {
                    cx.f().cs.reserve(start, e2).map(|c| c as u32)
                })
            } else {
                let (free, ch) = (cx.free_choice, cx.r.channel);
                cx.f().try_on(free, ch, start, e2)
            };
            if let Some(channel) = got {
                line.reserve(a, occ_end);
                return Outcome::Take(Grant {
                    fibre: cx.fibre,
                    channel,
                    start,
                    end: e2,
                    via: Via::Fdl {
                        delay: d,
                        converted: with_conv,
                    },
                });
            }
        }
    }
    Outcome::Pass
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::obs::SchedulerKind::LaucVf;

    /// Lines of 10 and 20 µs at every node of a 2-node network.
    fn lines(cap: FdlCapacity, converters: u32) -> Contention {
        let mut c = off();
        c.fdl = vec![us(10), us(20)];
        c.fdl_capacity = cap;
        c.converters = converters;
        let mut fibres = [fibre(0, 1, 1, LaucVf)];
        Contention::new(&c, 2, &mut fibres, |_, a, _| Some(a))
    }

    fn fdl(delay: u64, converted: bool) -> Via {
        Via::Fdl {
            delay: us(delay),
            converted,
        }
    }

    #[test]
    fn test_fdl_delays_by_the_first_line_that_clears_the_reservation() {
        let mut st = lines(FdlCapacity::One, 0);
        // One wavelength, busy over [0, 15) µs; a burst of 8 µs arrives at 2 µs.
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        assert!(fibres[0].cs.reserve_on(0, us(0), us(15)));
        let r = burst(1000, us(2), 0, &[9, 0]);
        // The 10 µs line would put it at [12, 20): still overlapping. The 20 µs line
        // clears it: [22, 30).
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        let want = Grant {
            fibre: 0,
            channel: 0,
            start: us(22),
            end: us(30),
            via: fdl(20, false),
        };
        assert_eq!(got, Outcome::Take(want));
        assert_eq!(held(&fibres[0], 0), vec![(0, 15), (22, 30)]);
        // The first line that clears it wins: after a reservation ending at 11 µs the
        // 10 µs line does ([12, 20)).
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        assert!(fibres[0].cs.reserve_on(0, us(0), us(11)));
        let mut st = lines(FdlCapacity::One, 0);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        assert!(matches!(got, Outcome::Take(g) if g.via == fdl(10, false) && g.start == us(12)));
    }

    #[test]
    fn test_fdl_drops_when_no_line_clears_the_reservation() {
        let mut st = lines(FdlCapacity::One, 0);
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        assert!(fibres[0].cs.reserve_on(0, us(0), us(25)));
        let r = burst(1000, us(2), 0, &[9, 0]);
        // [12, 20) and [22, 30) both overlap [0, 25).
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
            Outcome::Pass
        );
        assert_eq!(held(&fibres[0], 0), vec![(0, 25)]);
    }

    #[test]
    fn test_fdl_capacity_one_holds_one_burst_many_overlaps_inside() {
        // The first burst (8 µs from 2 µs, channel 0 busy until 11 µs) goes through
        // the 10 µs line: [12, 20) on channel 0. The second (8 µs from 12 µs, channel 1
        // busy until 15 µs) needs a line too: with capacity `one` the 10 µs line is
        // occupied [2, 20) by the first, so it takes the 20 µs line ([32, 40)); with
        // `many` only the entries [2, 10) and [12, 20) must not overlap, so it takes
        // the 10 µs line ([22, 30)).
        for (cap, second) in [(FdlCapacity::One, 20), (FdlCapacity::Many, 10)] {
            let mut st = lines(cap, 0);
            let mut fibres = vec![fibre(0, 1, 2, LaucVf)];
            assert!(fibres[0].cs.reserve_on(0, us(0), us(11)));
            assert!(fibres[0].cs.reserve_on(1, us(0), us(15)));
            let r1 = burst(1000, us(2), 0, &[9, 0]);
            let r2 = burst(1000, us(12), 1, &[9, 0]);
            let g1 = resolve(&mut st, &mut cx(&mut fibres, &r1, us(1), 0, false));
            assert!(
                matches!(g1, Outcome::Take(g) if g.via == fdl(10, false) && g.start == us(12)),
                "{cap:?}: {g1:?}"
            );
            let g2 = resolve(&mut st, &mut cx(&mut fibres, &r2, us(11), 0, false));
            assert!(
                matches!(g2, Outcome::Take(g) if g.via == fdl(second, false)
                    && g.channel == 1 && g.start == us(12 + second)),
                "{cap:?}: {g2:?}"
            );
        }
    }

    #[test]
    fn test_fdl_line_with_a_converter_after_lines_without() {
        // Two wavelengths, the burst (8 µs from 2 µs) bound to channel 0, busy until
        // 40 µs; channel 1 busy until 15 µs. Without a converter no line helps ([12, 20)
        // and [22, 30) on channel 0); with one, the lines are tried again with any
        // wavelength: [12, 20) still overlaps channel 1's [0, 15), the 20 µs line takes
        // channel 1 at [22, 30).
        let mut fibres = vec![fibre(0, 1, 2, LaucVf)];
        assert!(fibres[0].cs.reserve_on(0, us(0), us(40)));
        assert!(fibres[0].cs.reserve_on(1, us(0), us(15)));
        let r = burst(1000, us(2), 0, &[9, 0]);
        let mut st = lines(FdlCapacity::One, 0);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
            Outcome::Pass
        );
        let mut st = lines(FdlCapacity::One, 1);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        let want = Grant {
            fibre: 0,
            channel: 1,
            start: us(22),
            end: us(30),
            via: fdl(20, true),
        };
        assert_eq!(got, Outcome::Take(want));
    }
}
