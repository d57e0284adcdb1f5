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
//! All tables are built once ([`Deflection::build`]): one breadth-first search per
//! fibre of the tables, over the fibres leaving each node (O(N + E) each, so
//! O(G·(N + E)) time and memory in all for G table fibres, N nodes and E fibres; the
//! paths are kept as each search's tree, not written out per egress, which made the
//! tables cubic in the nodes on a ring). No allocation per burst: a deflected path is
//! written from its tree into the burst's path, which keeps its capacity
//! ([`Deflection::max_len`]).

use super::{Contention, Cx, Grant, Outcome, Via};
use crate::stats::BurstLoss;
use crate::units::SimTime;
use crate::world::fibre::Fibre;
use std::collections::VecDeque;

/// What a path needs so far, extended one fibre at a time by the `step` given to
/// [`Deflection::build`]: `(Σ δ, offset needed)`, as `Core::min_safe_offset` folds it.
pub(in crate::world) type Need = (SimTime, SimTime);

/// The deflection tables.
#[derive(Default)]
pub(in crate::world) struct Deflection {
    /// Deflections allowed per burst; 0 = off.
    pub max: u32,
    /// Node count (the stride of `tail`).
    nodes: usize,
    /// Fibre count (the stride of `tree`).
    nf: usize,
    /// Per node: range into `alts`.
    by_node: Vec<(u32, u32)>,
    /// Per table entry: the neighbour and its range into `fibres`.
    alts: Vec<(u32, u32, u32)>,
    /// Fibres `n → v` of every entry, in fibre order.
    fibres: Vec<u32>,
    /// Per (entry `k` of `fibres`, egress node): the last fibre of the rest of the path
    /// after `fibres[k]`, the rest's length and the offset the whole path needs, or
    /// `None` if the egress cannot be reached.
    tail: Vec<Option<(u32, u32, SimTime)>>,
    /// Per (entry `k`, fibre `h`): the fibre before `h` on entry `k`'s shortest paths
    /// (`u32::MAX`: `h` not reached).
    tree: Vec<u32>,
    /// The longest path a deflection can make (the burst's path is pre-sized to it).
    pub max_len: usize,
}

impl Deflection {
    /// Builds the tables for `table` (node, neighbours in the order tried) over
    /// `fibres` on `nodes` nodes: for every fibre `n → v` of the table and every egress,
    /// the shortest continuation by breadth-first search over fibres (a fibre may
    /// follow another if it leaves the node the other reaches, through the fabric the
    /// other arrives on; fibres in index order, the first found reaching a node ends
    /// its path), never entering `n` again; `step(fibres, need, f)` extends what a path
    /// needs by fibre `f` (`None`: the offset cannot be computed).
    pub fn build(
        fibres: &[Fibre],
        nodes: usize,
        table: &[(u32, Vec<u32>)],
        max: u32,
        step: impl Fn(&[Fibre], Need, u32) -> Option<Need>,
    ) -> Deflection {
        let nf = fibres.len();
        let mut d = Deflection {
            max,
            nodes,
            nf,
            by_node: vec![(0, 0); nodes],
            ..Deflection::default()
        };
        // The fibres leaving each node, in fibre order: `out[lo[n]..lo[n + 1]]`.
        let mut lo = vec![0usize; nodes + 1];
        for f in fibres {
            lo[f.p.from as usize + 1] += 1;
        }
        for i in 0..nodes {
            lo[i + 1] += lo[i];
        }
        let mut out = vec![0u32; nf];
        let mut at = lo.clone();
        for (g, f) in fibres.iter().enumerate() {
            out[at[f.p.from as usize]] = g as u32;
            at[f.p.from as usize] += 1;
        }
        let leaving = |n: u32| &out[lo[n as usize]..lo[n as usize + 1]];
        // The tables' size is known before the searches: allocate it once, exactly.
        let g_all: usize = table
            .iter()
            .flat_map(|(n, via)| via.iter().map(move |&v| (*n, v)))
            .map(|(n, v)| {
                leaving(n)
                    .iter()
                    .filter(|&&g| fibres[g as usize].p.to == v)
                    .count()
            })
            .sum();
        d.fibres.reserve_exact(g_all);
        d.tail.reserve_exact(g_all * nodes);
        d.tree.reserve_exact(g_all * nf);
        let mut queue: VecDeque<u32> = VecDeque::with_capacity(nf);
        let mut depth: Vec<u32> = vec![0; nf];
        let mut need: Vec<Option<Need>> = vec![None; nf];
        // Per node: the first fibre found that reaches it.
        let mut best: Vec<Option<u32>> = vec![None; nodes];
        for (n, via) in table {
            let first = d.alts.len() as u32;
            for &v in via {
                let flo = d.fibres.len() as u32;
                for &g in leaving(*n) {
                    if fibres[g as usize].p.to != v {
                        continue;
                    }
                    d.fibres.push(g);
                    let base = d.tree.len();
                    d.tree.resize(base + nf, u32::MAX);
                    let tree = &mut d.tree[base..];
                    best.fill(None);
                    queue.clear();
                    queue.push_back(g);
                    tree[g as usize] = g;
                    depth[g as usize] = 0;
                    need[g as usize] = step(fibres, (SimTime::ZERO, SimTime::ZERO), g);
                    best[v as usize] = Some(g);
                    while let Some(x) = queue.pop_front() {
                        let fx = &fibres[x as usize].p;
                        for &h in leaving(fx.to) {
                            let ph = &fibres[h as usize].p;
                            if ph.fabric_a != fx.fabric_b
                                || ph.to == *n
                                || tree[h as usize] != u32::MAX
                            {
                                continue;
                            }
                            tree[h as usize] = x;
                            depth[h as usize] = depth[x as usize] + 1;
                            need[h as usize] = need[x as usize].and_then(|a| step(fibres, a, h));
                            best[ph.to as usize].get_or_insert(h);
                            queue.push_back(h);
                        }
                    }
                    d.tail.extend(best.iter().map(|b| {
                        b.and_then(|h| Some((h, depth[h as usize], need[h as usize]?.1)))
                    }));
                }
                d.alts.push((v, flo, d.fibres.len() as u32));
            }
            d.by_node[*n as usize] = (first, d.alts.len() as u32);
        }
        // A path grows by at most the longest continuation plus one fibre per
        // deflection.
        let longest = d.tail.iter().flatten().map(|t| t.1 as usize + 1).max();
        d.max_len = longest.unwrap_or(0).saturating_mul(max as usize);
        d
    }

    /// Appends to `path` the rest of a deflected path, from a [`Via::Deflect`] (`at`
    /// names its entry and egress): `len` fibres read back along its search tree.
    /// `path` has room for them ([`Deflection::max_len`]): nothing is allocated.
    #[inline]
    pub fn write_path(&self, at: u32, len: u32, path: &mut Vec<u32>) {
        let k = at as usize / self.nodes;
        let tree = &self.tree[k * self.nf..(k + 1) * self.nf];
        let Some((last, _, _)) = self.tail[at as usize] else {
            return;
        };
        let from = path.len();
        path.resize(from + len as usize, 0);
        let mut x = last;
        for slot in path[from..].iter_mut().rev() {
            *slot = x;
            x = tree[x as usize];
        }
    }

    /// Bytes of the tables (what [`Deflection::build`] allocates).
    pub fn mem_bytes(&self) -> usize {
        self.tail.capacity() * std::mem::size_of::<Option<(u32, u32, SimTime)>>()
            + self.tree.capacity() * 4
            + (self.fibres.capacity() + self.alts.capacity() * 3 + self.by_node.capacity() * 2) * 4
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
            let at = k as usize * d.nodes + egress;
            let Some((_, len, need)) = d.tail[at] else {
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
                    via: Via::Deflect { at: at as u32, len },
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
        Contention::new(&c, 4, fibres, move |_, (sum, n), _| Some((sum, n + need)))
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
        let Via::Deflect { at, len } = g.via else {
            panic!("{g:?}")
        };
        let mut rest = Vec::new();
        st.defl.write_path(at, len, &mut rest);
        assert_eq!(rest, [3]);
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
        let mut st = Contention::new(&c, 4, &mut fibres, |_, a, _| Some(a));
        assert!(fibres[3].cs.reserve_on(0, us(0), us(100)));
        let r = burst(1000, us(10), 0, &[2, 3]);
        assert_eq!(
            resolve(&mut st, &mut cx(&mut fibres, &r, us(5), 3, false)),
            Outcome::Pass
        );
    }

    /// The tables as the first build made them (the slow reference): for every fibre
    /// of the table, a breadth-first search scanning every fibre at each step, and for
    /// every egress the whole path written out and `need` of it. Per entry and egress:
    /// the rest of the path and the offset, or `None`.
    #[allow(clippy::type_complexity)]
    fn reference_build(
        fibres: &[Fibre],
        nodes: usize,
        table: &[(u32, Vec<u32>)],
        need: impl Fn(&[u32]) -> Option<SimTime>,
    ) -> Vec<Option<(Vec<u32>, SimTime)>> {
        let nf = fibres.len();
        let mut out = Vec::new();
        for (n, via) in table {
            for &v in via {
                for (g, f) in fibres.iter().enumerate() {
                    if f.p.from != *n || f.p.to != v {
                        continue;
                    }
                    let mut prev = vec![u32::MAX; nf];
                    let mut best: Vec<Option<u32>> = vec![None; nodes];
                    let mut queue = VecDeque::from([g as u32]);
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
                        out.push(reach.and_then(|last| {
                            let mut rev = Vec::new();
                            let mut x = last;
                            while x != g as u32 {
                                rev.push(x);
                                x = prev[x as usize];
                            }
                            rev.reverse();
                            let mut whole = vec![g as u32];
                            whole.extend(&rev);
                            Some((rev, need(&whole)?))
                        }));
                    }
                }
            }
        }
        out
    }

    /// The build (one search per table fibre over the fibres leaving each node, paths
    /// kept as trees) gives the reference's tables on random graphs: random fibres
    /// (parallel ones, self-loops excluded) between up to 12 nodes on two fabrics,
    /// random tables, per-fibre BCP processing and set-up, and an offset that overflows
    /// on some paths (`None`).
    #[test]
    fn test_build_matches_the_reference_on_random_graphs() {
        use rand_xoshiro::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0xdef1);
        let mut entries = 0;
        for round in 0..600 {
            let nodes = 2 + (rng.next_u64() % 11) as usize;
            let nf = rng.next_u64() % (3 * nodes as u64 + 1);
            let mut fibres = Vec::new();
            let mut cost = Vec::new();
            for _ in 0..nf {
                let a = (rng.next_u64() % nodes as u64) as u32;
                let b = (rng.next_u64() % nodes as u64) as u32;
                if a == b {
                    continue;
                }
                let mut f = fibre(a, b, 1, LaucVf);
                f.p.fabric_a = (rng.next_u64() % 4 == 0) as u32;
                f.p.fabric_b = (rng.next_u64() % 4 == 0) as u32;
                fibres.push(f);
                let big = rng.next_u64() % 40 == 0;
                cost.push((
                    SimTime::from_ps(if big {
                        u64::MAX / 2
                    } else {
                        rng.next_u64() % 100
                    }),
                    SimTime::from_ps(rng.next_u64() % 300),
                ));
            }
            let mut table = Vec::new();
            for n in 0..nodes as u32 {
                if rng.next_u64() % 2 == 0 {
                    let via = (0..1 + rng.next_u64() % 3)
                        .map(|_| (rng.next_u64() % nodes as u64) as u32)
                        .filter(|&v| v != n)
                        .collect::<Vec<_>>();
                    table.push((n, via));
                }
            }
            let step = |_: &[Fibre], (sum, need): Need, f: u32| {
                let (d, s) = cost[f as usize];
                let sum = sum.checked_add(d)?;
                Some((sum, need.max(sum.checked_add(s)?)))
            };
            let whole = |p: &[u32]| {
                let mut acc = (SimTime::ZERO, SimTime::ZERO);
                for &f in p {
                    acc = step(&fibres, acc, f)?;
                }
                Some(acc.1)
            };
            let d = Deflection::build(&fibres, nodes, &table, 3, step);
            let want = reference_build(&fibres, nodes, &table, whole);
            assert_eq!(d.tail.len(), want.len(), "round {round}");
            let mut longest = 0;
            for (at, w) in want.iter().enumerate() {
                let got = d.tail[at].map(|(_, len, need)| {
                    let mut p = Vec::new();
                    d.write_path(at as u32, len, &mut p);
                    (p, need)
                });
                assert_eq!(
                    &got,
                    w,
                    "round {round}, entry {}, egress {}",
                    at / nodes,
                    at % nodes
                );
                longest = longest.max(w.as_ref().map_or(0, |(p, _)| p.len() + 1));
            }
            assert_eq!(d.max_len, longest * 3, "round {round}");
            entries += want.iter().flatten().count();
        }
        assert!(entries > 1000, "{entries}");
    }

    /// A ring of 1 500 nodes (3 000 fibres) with a deflection table at every node
    /// (both neighbours): the tables hold one search tree (a fibre each) and one entry
    /// per egress for each of the 3 000 table fibres, about 150 MB; the first build
    /// wrote every path out, 750 fibres on average per (fibre, egress): 13 GB, and
    /// scanned every fibre at each step of each search (2.7·10^10 steps).
    #[test]
    fn test_a_1500_node_ring_builds_tables_linear_in_the_network_per_table_fibre() {
        let n = 1500u32;
        let mut fibres = Vec::new();
        for i in 0..n {
            fibres.push(fibre(i, (i + 1) % n, 1, LaucVf));
            fibres.push(fibre((i + 1) % n, i, 1, LaucVf));
        }
        let table: Vec<(u32, Vec<u32>)> = (0..n)
            .map(|i| (i, vec![(i + 1) % n, (i + n - 1) % n]))
            .collect();
        let d = Deflection::build(&fibres, n as usize, &table, 2, |_, a, _| Some(a));
        let (g, nodes, nf) = (d.fibres.len(), n as usize, fibres.len());
        assert_eq!(g, 3000);
        assert_eq!(d.tail.len(), g * nodes);
        assert_eq!(d.tree.len(), g * nf);
        let entry = std::mem::size_of::<Option<(u32, u32, SimTime)>>();
        assert!(
            d.mem_bytes() <= g * (entry * nodes + 4 * nf) + (1 << 20),
            "{}",
            d.mem_bytes()
        );
        // From node 0 deflected to 1 (never back through 0), egress 1499 is 1 498
        // fibres further, the longest continuation: a path of at most 2 × 1 499 fibres.
        let k = (0..g)
            .find(|&k| fibres[d.fibres[k] as usize].p.from == 0)
            .unwrap();
        let at = (k * nodes + 1499) as u32;
        let (_, len, _) = d.tail[at as usize].unwrap();
        assert_eq!(len, 1498);
        let mut p = Vec::with_capacity(len as usize);
        d.write_path(at, len, &mut p);
        assert!(p
            .windows(2)
            .all(|w| fibres[w[0] as usize].p.to == fibres[w[1] as usize].p.from));
        assert_eq!(fibres[*p.last().unwrap() as usize].p.to, 1499);
        assert_eq!(d.max_len, 2 * 1499);
    }
}
