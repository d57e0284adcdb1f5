//! Deflection routing (`obs.contention.deflection`, `max_deflections`;
//! docs/topics/contention.md).
//!
//! Read first: [`resolve`]. At node `n` after the ingress, when the burst finds no
//! wavelength on its output fibre (and its parallels) and every other stage has failed,
//! the neighbours `v` of `n`'s table are tried in order (the burst's own next node
//! skipped): each fibre `n → v` that leaves through the fabric the burst arrived on, in
//! fibre order, with a direct reservation. The burst then continues from `v` on the
//! shortest path (fewest fibres, never back through `n`; lowest fibre index first on a
//! tie) to its egress. The alternative is taken only if the burst's remaining offset `a
//! − t` covers the new path's BCP processing and set-up (`Core::min_safe_offset` of it).
//! All tables are built once ([`Deflection::build`]): no allocation per burst (the
//! burst's path keeps its capacity, [`Deflection::max_len`]).

use super::{Contention, Cx, Grant, Outcome, Via};
use crate::stats::BurstLoss;
use crate::units::SimTime;
use crate::world::fibre::Fibre;
use std::collections::VecDeque;

/// The deflection tables.
#[derive(Default)]
pub(in crate::world) struct Deflection {
    /// Deflections allowed per burst; 0 = off.
    pub max: u32,
    /// Node count (the stride of `tail`).
    nodes: usize,
    /// Per node: range into `alts`.
    by_node: Vec<(u32, u32)>,
    /// Per table entry: the neighbour and its range into `fibres`.
    alts: Vec<(u32, u32, u32)>,
    /// Fibres `n → v` of every entry, in fibre order.
    fibres: Vec<u32>,
    /// Per (entry of `fibres`, egress node): the rest of the path after that fibre
    /// (range into `paths`) and the offset it needs, or `None` if the egress cannot be
    /// reached.
    tail: Vec<Option<(u32, u32, SimTime)>>,
    paths: Vec<u32>,
    /// The longest path a deflection can make (the burst's path is pre-sized to it).
    pub max_len: usize,
}

impl Deflection {
    /// Builds the tables for `table` (node, neighbours in the order tried) over
    /// `fibres` on `nodes` nodes: for every fibre `n → v` of the table and every egress,
    /// the shortest continuation by breadth-first search over fibres (a fibre may
    /// follow another if it leaves the node the other reaches, through the fabric the
    /// other arrives on), never entering `n` again; `need(fibres, path)` is the offset a
    /// whole path needs.
    pub fn build(
        fibres: &[Fibre],
        nodes: usize,
        table: &[(u32, Vec<u32>)],
        max: u32,
        need: impl Fn(&[Fibre], &[u32]) -> Option<SimTime>,
    ) -> Deflection {
        let mut d = Deflection {
            max,
            nodes,
            by_node: vec![(0, 0); nodes],
            ..Deflection::default()
        };
        let nf = fibres.len();
        let mut prev: Vec<u32> = vec![u32::MAX; nf];
        let mut queue: VecDeque<u32> = VecDeque::with_capacity(nf);
        let mut best: Vec<Option<u32>> = vec![None; nodes];
        let mut rev: Vec<u32> = Vec::new();
        for (n, via) in table {
            let lo = d.alts.len() as u32;
            for &v in via {
                let flo = d.fibres.len() as u32;
                for (g, f) in fibres.iter().enumerate() {
                    if f.p.from != *n || f.p.to != v {
                        continue;
                    }
                    d.fibres.push(g as u32);
                    // Breadth-first search from `g`: `best[e]` is the first fibre
                    // found that reaches `e`.
                    prev.fill(u32::MAX);
                    best.fill(None);
                    queue.clear();
                    queue.push_back(g as u32);
                    prev[g] = g as u32;
                    best[v as usize] = Some(g as u32);
                    while let Some(x) = queue.pop_front() {
                        let fx = &fibres[x as usize].p;
                        for (h, fh) in fibres.iter().enumerate() {
                            let ph = &fh.p;
                            if ph.from != fx.to
                                || ph.fabric_a != fx.fabric_b
                                || ph.to == *n
                                || prev[h] != u32::MAX
                            {
                                continue;
                            }
                            prev[h] = x;
                            if best[ph.to as usize].is_none() {
                                best[ph.to as usize] = Some(h as u32);
                            }
                            queue.push_back(h as u32);
                        }
                    }
                    for reach in &best {
                        let entry = reach.and_then(|last| {
                            rev.clear();
                            let mut x = last;
                            while x != g as u32 {
                                rev.push(x);
                                x = prev[x as usize];
                            }
                            let start = d.paths.len() as u32;
                            d.paths.extend(rev.iter().rev());
                            let len = rev.len() as u32;
                            let mut whole = Vec::with_capacity(rev.len() + 1);
                            whole.push(g as u32);
                            whole.extend(rev.iter().rev());
                            let need = need(fibres, &whole)?;
                            Some((start, len, need))
                        });
                        d.tail.push(entry);
                    }
                }
                d.alts.push((v, flo, d.fibres.len() as u32));
            }
            d.by_node[*n as usize] = (lo, d.alts.len() as u32);
        }
        // A path grows by at most the longest continuation plus one fibre per
        // deflection.
        let longest = d.tail.iter().flatten().map(|t| t.1 as usize + 1).max();
        d.max_len = longest.unwrap_or(0).saturating_mul(max as usize);
        d
    }

    /// The rest of a deflected path, from a [`Via::Deflect`].
    #[inline]
    pub fn path(&self, from: u32, len: u32) -> &[u32] {
        &self.paths[from as usize..(from + len) as usize]
    }
}

/// Stage 5 (once per node, after every fibre failed stages 1–4): a direct reservation
/// on a fibre to another neighbour of the node's table. Takes the burst
/// ([`Via::Deflect`] names the rest of its new path, which the core writes into it),
/// loses it (`deflection_failed` when some alternative was tried and had no
/// wavelength, `deflection_offset` when every one was too long for its remaining
/// offset), or passes when the node has no alternative (no entry, only the burst's
/// own next node, or no deflection left to the burst).
pub(in crate::world) fn resolve(st: &mut Contention, cx: &mut Cx<'_>) -> Outcome {
    let d = &st.defl;
    let r = cx.r;
    if r.deflections >= d.max {
        return Outcome::Pass;
    }
    let i = cx.hop;
    let first = &cx.fibres[r.path[i] as usize].p;
    let (n, next) = (first.from, first.to);
    let Some(&last) = r.path.last() else {
        return Outcome::Pass;
    };
    let egress = cx.fibres[last as usize].p.to as usize;
    let in_fab = cx.fibres[r.path[i - 1] as usize].p.fabric_b;
    let Some(&(lo, hi)) = d.by_node.get(n as usize) else {
        return Outcome::Pass;
    };
    // The offset left at this node: the burst's head arrives `left` after now.
    let left = r.arrive.saturating_sub(cx.now);
    let (mut tried, mut short) = (false, false);
    for a in lo..hi {
        let (v, flo, fhi) = d.alts[a as usize];
        if v == next {
            continue;
        }
        for k in flo..fhi {
            let g = d.fibres[k as usize];
            if cx.fibres[g as usize].p.fabric_a != in_fab {
                continue;
            }
            let Some((ps, pl, need)) = d.tail[k as usize * d.nodes + egress] else {
                continue;
            };
            if left < need {
                short = true;
                continue;
            }
            tried = true;
            let f = &mut cx.fibres[g as usize];
            let (start, end) = r.window(f.p.rate, cx.jit, cx.now);
            f.cs.release_before(cx.now);
            if let Some(channel) = f.try_on(cx.free_choice, r.channel, start, end) {
                return Outcome::Take(Grant {
                    fibre: g,
                    channel,
                    start,
                    end,
                    via: Via::Deflect { from: ps, len: pl },
                });
            }
        }
    }
    if tried {
        Outcome::Lose(BurstLoss::DeflectionFailed)
    } else if short {
        Outcome::Lose(BurstLoss::DeflectionOffset)
    } else {
        Outcome::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::obs::SchedulerKind::LaucVf;

    /// A diamond: 0 → 1 → 3 and 0 → 2 → 3, plus 1 → 2 and 2 → 1 (fibre index =
    /// position). One wavelength each.
    fn diamond() -> Vec<Fibre> {
        [(0, 1), (1, 3), (0, 2), (2, 3), (1, 2), (2, 1), (1, 0)]
            .iter()
            .map(|&(a, b)| fibre(a, b, 1, LaucVf))
            .collect()
    }

    /// Node 1 deflects to 2 (and names 3, its usual next hop, which is skipped).
    fn tables(fibres: &mut [Fibre], max: u32, need: SimTime) -> Contention {
        let mut c = off();
        c.deflection = vec![(1, vec![3, 2])];
        c.max_deflections = max;
        Contention::new(&c, 4, fibres, move |_, p| {
            Some(need.saturating_mul(p.len() as u64))
        })
    }

    #[test]
    fn test_deflect_to_the_next_neighbour_and_continue_on_the_shortest_path() {
        let mut fibres = diamond();
        let mut st = tables(&mut fibres, 1, SimTime::ZERO);
        // The burst 0 → 1 → 3 finds 1 → 3 busy at node 1.
        assert!(fibres[1].cs.reserve_on(0, us(0), us(100)));
        let r = burst(1000, us(10), 0, &[0, 1]);
        let mut c = cx(&mut fibres, &r, us(5), 1, false);
        let got = resolve(&mut st, &mut c);
        // Fibre 4 (1 → 2), then 2 → 3 (fibre 3).
        let Outcome::Take(g) = got else {
            panic!("{got:?}")
        };
        assert_eq!((g.fibre, g.channel, g.start, g.end), (4, 0, us(10), us(18)));
        let Via::Deflect { from, len } = g.via else {
            panic!("{g:?}")
        };
        assert_eq!(st.defl.path(from, len), &[3]);
        // The path may grow by one fibre plus the continuation per deflection.
        assert_eq!(st.defl.max_len, 2);
    }

    #[test]
    fn test_deflect_respects_the_limit_and_the_remaining_offset() {
        let mut fibres = diamond();
        let mut st = tables(&mut fibres, 1, us(1));
        assert!(fibres[1].cs.reserve_on(0, us(0), us(100)));
        // Already deflected once: no more.
        let mut r = burst(1000, us(10), 0, &[0, 1]);
        r.deflections = 1;
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 1, false)),
            Outcome::Pass
        );
        // The new path (1 → 2 → 3) needs 2 µs of offset; 1 µs is left.
        let r = burst(1000, us(6), 0, &[0, 1]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 1, false)),
            Outcome::Lose(BurstLoss::DeflectionOffset)
        );
        // Enough offset, but the deflection fibre is busy too.
        assert!(fibres[4].cs.reserve_on(0, us(0), us(100)));
        let r = burst(1000, us(10), 0, &[0, 1]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 1, false)),
            Outcome::Lose(BurstLoss::DeflectionFailed)
        );
    }

    #[test]
    fn test_deflect_passes_at_a_node_without_alternatives() {
        let mut fibres = diamond();
        let mut c = off();
        // Node 2's table names only its own next hop 3.
        c.deflection = vec![(2, vec![3])];
        c.max_deflections = 2;
        let mut st = Contention::new(&c, 4, &mut fibres, |_, _| Some(SimTime::ZERO));
        assert!(fibres[3].cs.reserve_on(0, us(0), us(100)));
        let r = burst(1000, us(10), 0, &[2, 3]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 3, false)),
            Outcome::Pass
        );
    }
}
