//! Priority preemption (`obs.contention.preemption`, with `obs.class[i].priority`; JET
//! only): after every other per-fibre attempt, a burst may take the one reservation it
//! overlaps from a burst of a lower priority.
//!
//! Read first: [`resolve`]. With `full` the victim's whole reservation is taken and the
//! victim is lost (`preempted`, charged to this fibre, at its next event); with
//! `segment` a victim that started before the contending burst's arrival `a` keeps its
//! head (the bytes it sent whole before `a`) and loses its tail from `a` on, as a tail
//! cut; one that starts later loses its whole reservation as with `full`. The world
//! applies either through the [`TailCut`](super::TailCut) the stage leaves in
//! [`Contention::cuts`].

use super::{Contention, Cx, Grant, Outcome, TailCut, Via};
use crate::scenario::Preemption;
use crate::stats::BurstLoss;
use crate::units::SimTime;
use crate::world::fibre::{burst_time, Fibre};

/// Stage 4: preemption of a lower-priority reservation.
pub(in crate::world) fn resolve(st: &mut Contention, cx: &mut Cx<'_>) -> Outcome {
    if st.preempt == Preemption::None || cx.jit {
        return Outcome::Pass;
    }
    let (r, want, fibre) = (cx.r, cx.want(), cx.fibre);
    let f = cx.f();
    let a = r.arrive;
    let e = a + burst_time(f.p.rate, r.kept());
    let Some((c, i)) = victim(f, a, e, want, r.priority) else {
        return Outcome::Pass;
    };
    let o = f.owners[c][i];
    let seg = st.preempt == Preemption::Segment && o.start < a;
    if seg {
        f.cs.set_end(c, o.start, a);
    } else {
        f.cs.remove(c, o.start);
    }
    if !f.cs.reserve_on(c, a, e) {
        // Unreachable while the owners table mirrors the channel set: restore.
        if seg {
            f.cs.set_end(c, o.start, o.end);
        } else {
            assert!(f.cs.reserve_on(c, o.start, o.end));
        }
        return Outcome::Pass;
    }
    let cut_from = if seg { a } else { o.start };
    f.unreserve(c, o.end - cut_from);
    let keep = if seg {
        f.owners[c][i].end = a;
        f.count_tail_cut(c, o.end - a);
        // Bytes the victim sent whole before `a` on this fibre.
        f.p.rate.bytes_sent_in(a.saturating_sub(o.origin))
    } else {
        f.owners[c].remove(i);
        f.c.lost[BurstLoss::Preempted] += 1;
        0
    };
    st.cuts.push(TailCut {
        slot: o.slot,
        serial: o.serial,
        keep,
        lost: !seg,
        fibre,
    });
    Outcome::Take(Grant {
        fibre,
        channel: c as u32,
        start: a,
        end: e,
        via: Via::Preempt,
    })
}

/// The channel (any, or `want`) on which exactly one stored reservation overlaps `[s,
/// e)`, held by a burst of priority below `prio`, such that without it the fibre's
/// policy can take `[s, e)` (LAUC-VF: always; FFUC and LAUC: if it is the channel's last
/// reservation). The lowest such priority wins, then the lowest channel; the channel
/// and the reservation's index in the owners table.
fn victim(
    f: &Fibre,
    s: SimTime,
    e: SimTime,
    want: Option<usize>,
    prio: u32,
) -> Option<(usize, usize)> {
    let voids = f.cs.kind().fills_voids();
    let range = f.victim_channels(want)?;
    let mut best: Option<(usize, usize, u32)> = None;
    for c in range {
        let own = &f.owners[c];
        let i = own.partition_point(|o| o.end <= s);
        let Some(o) = own.get(i) else { continue };
        if o.start >= e || o.priority >= prio {
            continue;
        }
        let ok = match own.get(i + 1) {
            None => true,
            Some(n) => voids && n.start >= e,
        };
        if ok && best.is_none_or(|(_, _, p)| o.priority < p) {
            best = Some((c, i, o.priority));
        }
    }
    best.map(|(c, i, _)| (c, i))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::obs::SchedulerKind::LaucVf;
    use crate::world::fibre::Owned;

    fn preempt(mode: Preemption, fibres: &mut [Fibre]) -> Contention {
        let mut c = off();
        c.preemption = mode;
        Contention::new(&c, 2, fibres, |_, a, _| Some(a))
    }

    /// Burst `slot` of `priority` holds `[s, e)` on channel `c`, byte 0 sent at `s`.
    fn hold(f: &mut Fibre, c: u32, s: SimTime, e: SimTime, slot: u32, priority: u32) {
        assert!(f.cs.reserve_on(c as usize, s, e));
        let who = Owned {
            start: s,
            end: e,
            origin: s,
            slot,
            serial: 1,
            priority,
        };
        f.own(c, who);
    }

    fn urgent(arrive: SimTime, priority: u32) -> crate::world::route::BurstRoute {
        let mut r = burst(1000, arrive, 0, &[9, 0]);
        r.priority = priority;
        r
    }

    #[test]
    fn test_preempt_full_takes_a_lower_priority_reservation_whole() {
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = preempt(Preemption::Full, &mut fibres);
        hold(&mut fibres[0], 0, us(0), us(16), 5, 1);
        let r = urgent(us(4), 2);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        let want = Grant {
            fibre: 0,
            channel: 0,
            start: us(4),
            end: us(12),
            via: Via::Preempt,
        };
        assert_eq!(got, Outcome::Take(want));
        let cut = TailCut {
            slot: 5,
            serial: 1,
            keep: 0,
            lost: true,
            fibre: 0,
        };
        assert_eq!(st.cuts, vec![cut]);
        assert_eq!(held(&fibres[0], 0), vec![(4, 12)]);
        assert_eq!(fibres[0].c.lost[BurstLoss::Preempted], 1);
        assert!(fibres[0].owners[0].is_empty());
    }

    #[test]
    fn test_preempt_only_a_lower_priority() {
        for holder in [2, 3] {
            let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
            let mut st = preempt(Preemption::Full, &mut fibres);
            hold(&mut fibres[0], 0, us(0), us(16), 5, holder);
            let r = urgent(us(4), 2);
            assert_eq!(
                resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
                Outcome::Pass,
                "holder priority {holder}"
            );
            assert_eq!(held(&fibres[0], 0), vec![(0, 16)]);
        }
        // Off: never.
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = preempt(Preemption::None, &mut fibres);
        assert!(fibres[0].cs.reserve_on(0, us(0), us(16)));
        let r = urgent(us(4), 9);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
            Outcome::Pass
        );
    }

    #[test]
    fn test_preempt_not_when_the_burst_overlaps_two_reservations() {
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = preempt(Preemption::Full, &mut fibres);
        hold(&mut fibres[0], 0, us(0), us(6), 5, 0);
        hold(&mut fibres[0], 0, us(8), us(20), 6, 0);
        let r = urgent(us(4), 2);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
            Outcome::Pass
        );
    }

    #[test]
    fn test_preempt_the_lowest_priority_channel() {
        let mut fibres = vec![fibre(0, 1, 2, LaucVf)];
        let mut st = preempt(Preemption::Full, &mut fibres);
        hold(&mut fibres[0], 0, us(0), us(16), 5, 1);
        hold(&mut fibres[0], 1, us(0), us(16), 6, 0);
        let r = urgent(us(4), 2);
        // Full conversion: any channel; the priority-0 holder on channel 1 goes.
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, true));
        assert!(matches!(got, Outcome::Take(g) if g.channel == 1));
        assert_eq!(st.cuts[0].slot, 6);
    }

    #[test]
    fn test_preempt_segment_cuts_the_tail_of_a_victim_that_started_before() {
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = preempt(Preemption::Segment, &mut fibres);
        hold(&mut fibres[0], 0, us(0), us(16), 5, 1);
        // Arrives at 4 µs: the victim keeps 500 B (4 µs) and loses 12 µs = 1 500 B.
        let r = urgent(us(4), 2);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        assert!(matches!(got, Outcome::Take(g) if g.start == us(4) && g.via == Via::Preempt));
        let cut = TailCut {
            slot: 5,
            serial: 1,
            keep: 500,
            lost: false,
            fibre: 0,
        };
        assert_eq!(st.cuts, vec![cut]);
        assert_eq!(held(&fibres[0], 0), vec![(0, 4), (4, 12)]);
        let f = &fibres[0];
        assert_eq!((f.ch[0].tail_cut, f.ch[0].tail_bytes_cut), (1, 1500));
        assert_eq!(f.c.lost[BurstLoss::Preempted], 0);
        // A victim that starts after the arrival loses everything, as with `full`.
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = preempt(Preemption::Segment, &mut fibres);
        hold(&mut fibres[0], 0, us(6), us(16), 5, 1);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        assert!(matches!(got, Outcome::Take(_)));
        assert!(st.cuts[0].lost);
        assert_eq!(held(&fibres[0], 0), vec![(4, 12)]);
    }
}
