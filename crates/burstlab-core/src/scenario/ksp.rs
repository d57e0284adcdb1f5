//! Least-cost routes and Yen's k shortest loop-free paths on a directed graph with
//! integer costs, under one strict total order of paths.
//!
//! Read first: [`Cost`] and [`Graph::best`]; then [`Graph::k_shortest`].
//!
//! Paths are ordered by (cost, hops, node-index sequence): the cost (hops, fibre
//! millimetres or propagation picoseconds, integers, so sums are exact), then fewer hops,
//! then the lexicographically smaller sequence of node indices. A [`Cost`] carries the
//! hops as its second component, so every hop costs strictly more than nothing and a
//! least-cost path is simple even where a metric is zero (a packet link's km).
//!
//! [`Graph::best`] finds the least path in that order: a Dijkstra search towards the
//! destination gives each node its least cost to go, `togo(v)`; the walk from the source
//! then takes, at each node `u`, the lowest-numbered neighbour `v` on a least-cost path
//! (`c(u, v) + togo(v) = togo(u)`). Every prefix it commits to extends to a least-cost
//! path, so the walk is the lexicographically smallest of them; `togo` falls strictly
//! along it, so it cannot loop.
//!
//! [`Graph::k_shortest`] is Yen's algorithm (J. Y. Yen, "Finding the K shortest loopless
//! paths in a network", Management Science 17(11), 1971): path i + 1 is the least of
//! the candidates that leave path i at a spur node, each the root up to the spur node
//! plus the least spur path that avoids the root's nodes and the next hop of every path
//! found so far with the same root. The order above is kept by concatenation (a common
//! root adds the same cost and hops and the same leading nodes), which is what Yen's
//! argument needs: the k paths returned are the first k loop-free paths of the order.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashSet};

/// The cost of a path: (metric sum, hops). Compared as a tuple.
pub type Cost = (u64, u32);

const UNREACHED: Cost = (u64::MAX, u32::MAX);

fn add(a: Cost, b: Cost) -> Cost {
    (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
}

/// A directed graph with a non-negative integer metric per arc.
pub struct Graph {
    /// Per node: (neighbour, metric), sorted by neighbour, one arc per neighbour.
    out: Vec<Vec<(u32, u64)>>,
    /// Per node: (predecessor, metric).
    inc: Vec<Vec<(u32, u64)>>,
}

impl Graph {
    /// The graph of `arcs` (from, to, metric) on `n` nodes; of parallel arcs the
    /// cheapest counts.
    pub fn new(n: usize, arcs: impl IntoIterator<Item = (u32, u32, u64)>) -> Self {
        let mut out: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
        for (a, b, m) in arcs {
            out[a as usize].push((b, m));
        }
        let mut inc: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
        for (a, v) in out.iter_mut().enumerate() {
            v.sort_unstable();
            v.dedup_by_key(|x| x.0); // sorted by (to, metric): the cheapest is kept
            for &(b, m) in v.iter() {
                inc[b as usize].push((a as u32, m));
            }
        }
        Graph { out, inc }
    }

    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// The metric of the arc `a → b`, if there is one.
    pub fn arc(&self, a: u32, b: u32) -> Option<u64> {
        let v = &self.out[a as usize];
        v.binary_search_by_key(&b, |x| x.0).ok().map(|i| v[i].1)
    }

    /// The cost of `path` (which must follow arcs).
    pub fn cost(&self, path: &[u32]) -> Cost {
        path.windows(2).fold((0, 0), |c, w| {
            add(c, (self.arc(w[0], w[1]).unwrap_or(u64::MAX), 1))
        })
    }

    /// Least cost to `d` from every node (`UNREACHED` where there is none), avoiding
    /// the nodes in `banned` and the arcs in `cut`.
    pub fn togo(&self, d: u32, banned: &[bool], cut: &HashSet<(u32, u32)>) -> Vec<Cost> {
        let mut dist = vec![UNREACHED; self.out.len()];
        let mut heap = BinaryHeap::new();
        dist[d as usize] = (0, 0);
        heap.push(Reverse(((0u64, 0u32), d)));
        while let Some(Reverse((c, v))) = heap.pop() {
            if c > dist[v as usize] {
                continue;
            }
            for &(u, m) in &self.inc[v as usize] {
                if banned.get(u as usize).copied().unwrap_or(false) || cut.contains(&(u, v)) {
                    continue;
                }
                let nc = add(c, (m, 1));
                if nc < dist[u as usize] {
                    dist[u as usize] = nc;
                    heap.push(Reverse((nc, u)));
                }
            }
        }
        dist
    }

    /// The least path from `s` to `d` given `togo` (from [`Graph::togo`] with the same
    /// `banned` and `cut`), or `None` if `d` is unreachable.
    pub fn walk(
        &self,
        s: u32,
        d: u32,
        togo: &[Cost],
        banned: &[bool],
        cut: &HashSet<(u32, u32)>,
    ) -> Option<Vec<u32>> {
        if togo[s as usize] == UNREACHED {
            return None;
        }
        let mut path = vec![s];
        let mut u = s;
        while u != d {
            let here = togo[u as usize];
            let next = self.out[u as usize].iter().find(|&&(v, m)| {
                !banned.get(v as usize).copied().unwrap_or(false)
                    && !cut.contains(&(u, v))
                    && togo[v as usize] != UNREACHED
                    && add((m, 1), togo[v as usize]) == here
            })?;
            u = next.0;
            path.push(u);
        }
        Some(path)
    }

    /// The least path from `s` to `d` (see the module docs), or `None`.
    pub fn best(&self, s: u32, d: u32) -> Option<Vec<u32>> {
        let cut = HashSet::new();
        let togo = self.togo(d, &[], &cut);
        self.walk(s, d, &togo, &[], &cut)
    }

    /// The first `k` loop-free paths from `s` to `d` in the order of the module docs
    /// (fewer if there are fewer), each with its cost; `first` is the least path when the
    /// caller has it already.
    pub fn k_shortest(
        &self,
        s: u32,
        d: u32,
        k: usize,
        first: Option<Vec<u32>>,
    ) -> Vec<(Cost, Vec<u32>)> {
        let Some(p0) = first.or_else(|| self.best(s, d)) else {
            return Vec::new();
        };
        let mut found = vec![(self.cost(&p0), p0)];
        let mut candidates: BTreeSet<(Cost, Vec<u32>)> = BTreeSet::new();
        let mut banned = vec![false; self.out.len()];
        while found.len() < k {
            let prev = found[found.len() - 1].1.clone();
            for j in 0..prev.len() - 1 {
                let (root, spur) = (&prev[..=j], prev[j]);
                // The next hop of every path found with this root is cut.
                let mut cut = HashSet::new();
                for (_, p) in &found {
                    if p.len() > j + 1 && &p[..=j] == root {
                        cut.insert((p[j], p[j + 1]));
                    }
                }
                for &n in &root[..j] {
                    banned[n as usize] = true;
                }
                let togo = self.togo(d, &banned, &cut);
                if let Some(tail) = self.walk(spur, d, &togo, &banned, &cut) {
                    let mut p = root[..j].to_vec();
                    p.extend(tail);
                    let c = self.cost(&p);
                    if !found.iter().any(|(_, q)| *q == p) {
                        candidates.insert((c, p));
                    }
                }
                for &n in &root[..j] {
                    banned[n as usize] = false;
                }
            }
            match candidates.pop_first() {
                Some(next) => found.push(next),
                None => break,
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every loop-free path from `s` to `d`, by exhaustive search (the slow reference).
    fn all_paths(g: &Graph, s: u32, d: u32) -> Vec<(Cost, Vec<u32>)> {
        fn go(g: &Graph, p: &mut Vec<u32>, d: u32, out: &mut Vec<Vec<u32>>) {
            let u = *p.last().unwrap();
            if u == d {
                out.push(p.clone());
                return;
            }
            for &(v, _) in &g.out[u as usize] {
                if !p.contains(&v) {
                    p.push(v);
                    go(g, p, d, out);
                    p.pop();
                }
            }
        }
        let mut out = Vec::new();
        go(g, &mut vec![s], d, &mut out);
        let mut v: Vec<_> = out.into_iter().map(|p| (g.cost(&p), p)).collect();
        v.sort();
        v
    }

    fn random_graph(seed: u64, n: usize, p: f64, zero: bool) -> Graph {
        let mut rng = crate::rng::RngStream::derive(seed, 0, "ksp-test");
        let mut arcs = Vec::new();
        for a in 0..n as u32 {
            for b in 0..n as u32 {
                if a != b && rng.uniform() < p {
                    // Small metrics make ties common; zero-metric arcs stand for links.
                    let m = rng.next_u64() % if zero { 3 } else { 4 } + u64::from(!zero);
                    arcs.push((a, b, m));
                }
            }
        }
        Graph::new(n, arcs)
    }

    #[test]
    fn yen_returns_the_first_k_paths_of_the_order() {
        for seed in 0..200 {
            let g = random_graph(seed, 7, 0.4, seed % 2 == 0);
            let (s, d) = (0, 6);
            let all = all_paths(&g, s, d);
            for k in [1, 2, 3, 5, 40] {
                let got = g.k_shortest(s, d, k, None);
                let want: Vec<_> = all.iter().take(k).cloned().collect();
                assert_eq!(got, want, "seed {seed}, k {k}");
            }
        }
    }

    #[test]
    fn best_is_the_least_path_even_with_zero_metrics() {
        for seed in 0..200 {
            let g = random_graph(seed, 8, 0.3, true);
            for d in 1..8 {
                let all = all_paths(&g, 0, d);
                assert_eq!(
                    g.best(0, d),
                    all.first().map(|x| x.1.clone()),
                    "seed {seed}"
                );
            }
        }
    }
}
