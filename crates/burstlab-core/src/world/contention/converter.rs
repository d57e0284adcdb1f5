//! Limited wavelength converters (`obs.contention.converters`, `converter_scope`):
//! a pool of `n` converters per node (nOBS `converternumber_`) or per output fibre.
//!
//! Read first: [`resolve`]. Under wavelength continuity a burst that finds its own
//! wavelength busy may take any wavelength the fibre's scheduler finds, if a converter
//! of the pool is free for its whole passage `[a, a + L)` (`a` its head's arrival, `L`
//! its length on the fibre); the converter is then busy for that interval (nOBS
//! `OpConverterSchedule`, `optical/op-converterschedule.cc`). Each pool is a channel
//! set of `n` channels under LAUC-VF, so out-of-order JET requests are handled
//! exactly. The delay lines borrow a converter through [`Converters::take`] too.

use super::{Contention, Cx, Grant, Outcome, Via};
use crate::obs::{ChannelSet, SchedulerKind};
use crate::scenario::{ConverterScope, ResolvedContention};
use crate::units::SimTime;
use crate::world::fibre::burst_time;

/// The converter pools, indexed by node (`node` scope) or fibre (`fibre` scope).
#[derive(Default)]
pub(in crate::world) struct Converters {
    /// Converters per pool; 0 = none.
    n: u32,
    per_fibre: bool,
    pools: Vec<ChannelSet>,
}

impl Converters {
    pub fn new(c: &ResolvedContention, nodes: usize, fibres: usize) -> Converters {
        let per_fibre = c.converter_scope == ConverterScope::Fibre;
        let pools = match (c.converters, per_fibre) {
            (0, _) => 0,
            (_, true) => fibres,
            (_, false) => nodes,
        };
        Converters {
            n: c.converters,
            per_fibre,
            pools: (0..pools)
                .map(|_| ChannelSet::new(c.converters as usize, SchedulerKind::LaucVf))
                .collect(),
        }
    }

    /// Whether there are converters at all.
    #[inline]
    pub fn any(&self) -> bool {
        self.n > 0
    }

    /// Whether the burst of `cx` may use one: there are converters and it is bound to
    /// its wavelength (with a free choice it needs none).
    #[inline]
    pub fn usable(&self, cx: &Cx<'_>) -> bool {
        self.n > 0 && !cx.free_choice
    }

    /// Takes a converter of the pool serving `cx`'s fibre for `[s, e)`, if one is free
    /// then and `reserve` (the reservation on the fibre that needs it) succeeds: the
    /// channel `reserve` returns. Forgets what ended before `cx.now` first.
    pub fn take(
        &mut self,
        cx: &mut Cx<'_>,
        s: SimTime,
        e: SimTime,
        reserve: impl FnOnce(&mut Cx<'_>) -> Option<u32>,
    ) -> Option<u32> {
        let ix = if self.per_fibre {
            cx.fibre as usize
        } else {
            cx.fibres[cx.fibre as usize].p.from as usize
        };
        let pool = &mut self.pools[ix];
        pool.release_before(cx.now);
        pool.choose(s, e)?;
        let c = reserve(cx)?;
        pool.reserve(s, e);
        Some(c)
    }
}

/// Stage 1: a free converter, no delay; the burst takes any wavelength the fibre's
/// scheduler finds for `[a, a + L)` (JIT: from `now`).
pub(in crate::world) fn resolve(st: &mut Contention, cx: &mut Cx<'_>) -> Outcome {
    if !st.conv.usable(cx) {
        return Outcome::Pass;
    }
    let a = cx.r.arrive;
    let end = a + burst_time(cx.f().p.rate, cx.r.kept());
    let start = if cx.jit { cx.now } else { a };
    let got = st.conv.take(cx, a, end, |cx| {
        cx.f().cs.reserve(start, end).map(|c| c as u32)
    });
    match got {
        Some(channel) => Outcome::Take(Grant {
            fibre: cx.fibre,
            channel,
            start,
            end,
            via: Via::Converter,
        }),
        None => Outcome::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::obs::SchedulerKind::LaucVf;
    use crate::scenario::ConverterScope;

    fn pools(n: u32, scope: ConverterScope) -> Contention {
        let mut c = off();
        c.converters = n;
        c.converter_scope = scope;
        let mut fibres = [fibre(0, 1, 2, LaucVf)];
        Contention::new(&c, 2, &mut fibres, |_, a, _| Some(a))
    }

    /// Channel 0 busy over `[0, 100)` µs on a 2-wavelength fibre: a burst bound to
    /// channel 0 needs a converter.
    fn busy() -> Vec<crate::world::fibre::Fibre> {
        let mut f = fibre(0, 1, 2, LaucVf);
        assert!(f.cs.reserve_on(0, us(0), us(100)));
        vec![f]
    }

    #[test]
    fn test_converter_taken_for_the_burst_passage_and_free_after_it() {
        let mut st = pools(1, ConverterScope::Node);
        let mut fibres = busy();
        // 1 000 B = 8 µs: [10, 18) µs, converted to channel 1.
        let r = burst(1000, us(10), 0, &[9, 0]);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 0, false));
        let want = Grant {
            fibre: 0,
            channel: 1,
            start: us(10),
            end: us(18),
            via: Via::Converter,
        };
        assert_eq!(got, Outcome::Take(want));
        assert_eq!(held(&fibres[0], 1), vec![(10, 18)]);
        // The only converter is busy over [10, 18): a burst at 17 µs finds none…
        let r2 = burst(1000, us(17), 0, &[9, 0]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r2, us(6), 0, false)),
            Outcome::Pass
        );
        // …one at 18 µs (the first burst has left the converter) does.
        let r3 = burst(1000, us(18), 0, &[9, 0]);
        let got = resolve(&mut st, &mut cx(&mut fibres, &r3, us(7), 0, false));
        assert!(matches!(got, Outcome::Take(g) if g.start == us(18) && g.channel == 1));
    }

    #[test]
    fn test_converter_not_taken_when_the_fibre_has_no_wavelength() {
        let mut st = pools(1, ConverterScope::Node);
        let mut fibres = busy();
        assert!(fibres[0].cs.reserve_on(1, us(0), us(100)));
        let r = burst(1000, us(10), 0, &[9, 0]);
        let mut c = cx(&mut fibres, &r, us(5), 0, false);
        assert_eq!(resolve(&mut st, &mut c), Outcome::Pass);
        // The pool was left untouched: the converter is still free for [10, 18).
        let mut got = None;
        let took = st.conv.take(&mut c, us(10), us(18), |_| {
            got = Some(());
            Some(0)
        });
        assert_eq!((took, got), (Some(0), Some(())));
    }

    #[test]
    fn test_converter_not_used_with_free_choice_or_without_pool() {
        let mut fibres = busy();
        let r = burst(1000, us(10), 0, &[9, 0]);
        let mut st = pools(1, ConverterScope::Node);
        // Full conversion at the node: the direct reservation already had every
        // wavelength, a converter adds nothing.
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 0, true)),
            Outcome::Pass
        );
        let mut none = pools(0, ConverterScope::Node);
        assert_eq!(
            resolve(&mut none, &mut cx(&mut fibres, &r, us(5), 0, false)),
            Outcome::Pass
        );
        assert!(held(&fibres[0], 1).is_empty());
    }

    #[test]
    fn test_converter_pools_per_fibre_are_separate() {
        // Two fibres leaving node 0, channel 0 busy on both; one converter per fibre.
        let mut c = off();
        c.converters = 1;
        c.converter_scope = ConverterScope::Fibre;
        let mut fibres = vec![fibre(0, 1, 2, LaucVf), fibre(0, 2, 2, LaucVf)];
        for f in &mut fibres {
            assert!(f.cs.reserve_on(0, us(0), us(100)));
        }
        let mut st = Contention::new(&c, 3, &mut fibres, |_, a, _| Some(a));
        let r = burst(1000, us(10), 0, &[9, 0]);
        let a = resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 0, false));
        let b = resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 1, false));
        assert!(matches!(a, Outcome::Take(g) if g.fibre == 0));
        assert!(matches!(b, Outcome::Take(g) if g.fibre == 1));
        // A node-wide pool of one converter serves only the first of them.
        c.converter_scope = ConverterScope::Node;
        let mut fibres = vec![fibre(0, 1, 2, LaucVf), fibre(0, 2, 2, LaucVf)];
        for f in &mut fibres {
            assert!(f.cs.reserve_on(0, us(0), us(100)));
        }
        let mut st = Contention::new(&c, 3, &mut fibres, |_, a, _| Some(a));
        let a = resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 0, false));
        let b = resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 1, false));
        assert!(matches!(a, Outcome::Take(_)));
        assert_eq!(b, Outcome::Pass);
    }
}
