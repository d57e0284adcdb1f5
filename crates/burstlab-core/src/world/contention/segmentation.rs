//! Burst segmentation (`obs.contention.segmentation`, JET only): only the overlapping
//! part of two contending bursts is dropped, a whole number of bytes.
//!
//! Read first: [`resolve`]. With `head` (head-dropping) the contending burst keeps the
//! longest tail `[t*, a + L)` a channel can take (`ChannelSet::head_cut`) and loses the
//! bytes whose transmission begins before `t*`; with `tail` (tail-dropping, as NCTUns)
//! the scheduled burst whose reservation contains the contending burst's arrival `a`
//! loses its tail from `a` on (it keeps the bytes it sent whole before `a`) and the
//! contending burst passes whole. The world applies a tail cut through the
//! [`TailCut`](super::TailCut) the stage leaves in [`Contention::cuts`].

use super::{Contention, Cx, Grant, Outcome, TailCut, Via};
use crate::scenario::Segmentation;
use crate::units::SimTime;
use crate::world::fibre::{burst_time, Fibre};

/// Stage 3: segmentation, head- or tail-dropping by the scenario's mode.
pub(in crate::world) fn resolve(st: &mut Contention, cx: &mut Cx<'_>) -> Outcome {
    if cx.jit {
        return Outcome::Pass;
    }
    match st.seg {
        None => Outcome::Pass,
        Some(Segmentation::Head) => head(cx),
        Some(Segmentation::Tail) => tail(st, cx),
    }
}

/// Head-dropping: keep the tail `[t*, end)` that a channel can take; the head before
/// `t*` (after what earlier cuts already took) is dropped.
fn head(cx: &mut Cx<'_>) -> Outcome {
    let (r, want, fibre) = (cx.r, cx.want(), cx.fibre);
    let f = cx.f();
    let rate = f.p.rate;
    let a = r.arrive;
    let s0 = a + rate.tx_time(r.cut_bytes);
    // (`kept` is the whole burst: a head cut never follows a tail cut, as one run
    // uses one mode.)
    let end = a + burst_time(rate, r.kept());
    if s0 >= end {
        return Outcome::Pass;
    }
    let Some((c, t)) = f.cs.head_cut(s0, end, want) else {
        return Outcome::Pass;
    };
    // Bytes whose transmission begins before t* (a byte partly cut is lost).
    let cut = rate.bytes_begun_in(t - s0);
    if r.cut_bytes + cut < r.bytes && f.cs.reserve_on(c, t, end) {
        return Outcome::Take(Grant {
            fibre,
            channel: c as u32,
            start: t,
            end,
            via: Via::Segment(cut),
        });
    }
    Outcome::Pass
}

/// Tail-dropping: the burst holding the reservation that contains `a` loses its tail
/// from `a` on; this burst passes whole.
fn tail(st: &mut Contention, cx: &mut Cx<'_>) -> Outcome {
    let (r, want, fibre) = (cx.r, cx.want(), cx.fibre);
    let f = cx.f();
    let a = r.arrive;
    let e = a + burst_time(f.p.rate, r.kept());
    let Some((c, i)) = victim(f, a, e, want) else {
        return Outcome::Pass;
    };
    let o = f.owners[c][i];
    f.cs.set_end(c, o.start, a);
    if !f.cs.reserve_on(c, a, e) {
        // The owners table mirrors the channel set, so this cannot happen; if it did,
        // the reservation is restored and the burst is lost as before.
        f.cs.set_end(c, o.start, o.end);
        return Outcome::Pass;
    }
    f.owners[c][i].end = a;
    let cut = o.end - a;
    f.unreserve(c, cut);
    f.count_tail_cut(c, cut);
    st.cuts.push(TailCut {
        slot: o.slot,
        serial: o.serial,
        // Bytes sent whole before `a` on this fibre.
        keep: f.p.rate.bytes_sent_in(a.saturating_sub(o.origin)),
        lost: false,
        fibre,
    });
    Outcome::Take(Grant {
        fibre,
        channel: c as u32,
        start: a,
        end: e,
        via: Via::TailCut,
    })
}

/// The channel (any, or `want`) on which cutting the reservation that contains `s` (it
/// starts before `s`, ends after it) back to `[start, s)` lets `[s, e)` be reserved by
/// the fibre's policy, with the shortest cut (ties: lowest channel); the channel and
/// the reservation's index in the owners table.
fn victim(f: &Fibre, s: SimTime, e: SimTime, want: Option<usize>) -> Option<(usize, usize)> {
    let voids = f.cs.kind().fills_voids();
    let range = f.victim_channels(want)?;
    let mut best: Option<(usize, usize, SimTime)> = None;
    for c in range {
        let own = &f.owners[c];
        let i = own.partition_point(|o| o.end <= s);
        let Some(o) = own.get(i) else { continue };
        if o.start >= s {
            continue;
        }
        // After the cut the next reservation bounds the gap from `s`: LAUC-VF may use
        // it if `[s, e)` fits, FFUC and LAUC only if there is none.
        let ok = match own.get(i + 1) {
            None => true,
            Some(n) => voids && n.start >= e,
        };
        if ok && best.is_none_or(|(_, _, cut)| o.end < cut) {
            best = Some((c, i, o.end));
        }
    }
    best.map(|(c, i, _)| (c, i))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::obs::SchedulerKind::{Lauc, LaucVf};
    use crate::world::fibre::Owned;

    fn seg(mode: Segmentation, fibres: &mut [Fibre]) -> Contention {
        let mut c = off();
        c.segmentation = Some(mode);
        Contention::new(&c, 2, fibres, |_, a, _| Some(a))
    }

    /// Reserves `[s, e)` on channel `c` for burst `slot`, its byte 0 sent at `origin`.
    fn hold(f: &mut Fibre, c: u32, s: SimTime, e: SimTime, origin: SimTime, slot: u32) {
        assert!(f.cs.reserve_on(c as usize, s, e));
        let who = Owned {
            start: s,
            end: e,
            origin,
            slot,
            serial: 7,
            priority: 0,
        };
        f.own(c, who);
    }

    #[test]
    fn test_head_cut_drops_the_bytes_begun_before_the_reservation_ends() {
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = seg(Segmentation::Head, &mut fibres);
        // Busy until 10.004 µs; a burst of 1 000 B (8 µs) arrives at 5 µs: its bytes
        // begun before 10.004 µs are those of [5, 10.004): 5.004 µs / 8 ns = 625.5, so
        // 626 bytes (the 626th is partly cut) are dropped and [10.004, 13) is reserved.
        let busy_end = us(10) + SimTime(4_000);
        assert!(fibres[0].cs.reserve_on(0, us(0), busy_end));
        let r = burst(1000, us(5), 0, &[9, 0]);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        let want = Grant {
            fibre: 0,
            channel: 0,
            start: busy_end,
            end: us(13),
            via: Via::Segment(626),
        };
        assert_eq!(got, Outcome::Take(want));
    }

    #[test]
    fn test_head_cut_counts_from_what_earlier_cuts_took() {
        // The burst already lost 250 B (2 µs) upstream: its remaining bytes start at
        // 7 µs, so a reservation ending at 9 µs cuts 250 more.
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = seg(Segmentation::Head, &mut fibres);
        assert!(fibres[0].cs.reserve_on(0, us(0), us(9)));
        let mut r = burst(1000, us(5), 0, &[9, 0]);
        r.cut_bytes = 250;
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        assert!(matches!(got, Outcome::Take(g) if g.via == Via::Segment(250) && g.start == us(9)));
    }

    #[test]
    fn test_head_cut_never_drops_the_whole_burst() {
        // A reservation covering the burst but its last picosecond would leave a
        // segment with no whole byte: the burst is not cut (it is lost as before).
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = seg(Segmentation::Head, &mut fibres);
        assert!(fibres[0].cs.reserve_on(0, us(0), us(13) - SimTime(1)));
        let r = burst(1000, us(5), 0, &[9, 0]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
            Outcome::Pass
        );
        // JIT never cuts.
        let mut c = cx(&mut fibres, &r, us(1), 0, false);
        c.jit = true;
        assert_eq!(resolve(&mut st, &mut c), Outcome::Pass);
    }

    #[test]
    fn test_tail_cut_keeps_the_bytes_sent_whole_before_the_contender() {
        let mut fibres = vec![fibre(0, 1, 1, LaucVf)];
        let mut st = seg(Segmentation::Tail, &mut fibres);
        // Burst 3 holds [0, 16) µs (2 000 B from 0). A burst arrives at 5.004 µs: the
        // holder keeps 625 bytes (5.004 µs / 8 ns = 625.5, the 626th not whole) and its
        // last 10.996 µs are cut: 1 374.5 bytes begun there, so 1 375 counted.
        hold(&mut fibres[0], 0, us(0), us(16), us(0), 3);
        let a = us(5) + SimTime(4_000);
        let r = burst(1000, a, 0, &[9, 0]);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false));
        let want = Grant {
            fibre: 0,
            channel: 0,
            start: a,
            end: a + us(8),
            via: Via::TailCut,
        };
        assert_eq!(got, Outcome::Take(want));
        let cut = TailCut {
            slot: 3,
            serial: 7,
            keep: 625,
            lost: false,
            fibre: 0,
        };
        assert_eq!(st.cuts, vec![cut]);
        let f = &fibres[0];
        assert_eq!(
            (f.ch[0].tail_cut, f.ch[0].tail_bytes_cut, f.c.tail_cuts),
            (1, 1375, 1)
        );
        assert_eq!(f.owners[0][0].end, a);
        let held: Vec<_> = f.cs.reservations(0).map(|x| (x.start, x.end)).collect();
        assert_eq!(held, vec![(us(0), a), (a, a + us(8))]);
    }

    #[test]
    fn test_tail_cut_needs_a_holder_that_started_before_and_room_after() {
        let mut fibres = vec![fibre(0, 1, 1, Lauc)];
        let mut st = seg(Segmentation::Tail, &mut fibres);
        // The reservation starts at the burst's arrival: nothing to cut from.
        hold(&mut fibres[0], 0, us(5), us(16), us(5), 3);
        let r = burst(1000, us(5), 0, &[9, 0]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
            Outcome::Pass
        );
        // Under LAUC a later reservation behind the holder leaves no room (no voids).
        let mut fibres = vec![fibre(0, 1, 1, Lauc)];
        let mut st = seg(Segmentation::Tail, &mut fibres);
        hold(&mut fibres[0], 0, us(0), us(16), us(0), 3);
        hold(&mut fibres[0], 0, us(30), us(40), us(30), 4);
        let r = burst(1000, us(5), 0, &[9, 0]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(1), 0, false)),
            Outcome::Pass
        );
        assert!(st.cuts.is_empty());
        assert_eq!(held(&fibres[0], 0), vec![(0, 16), (30, 40)]);
    }
}
