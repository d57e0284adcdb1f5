//! The routes of flows without an explicit `route`: `[routing]` and each flow's
//! `routing` (metric, `k`, policy) resolved into a path per flow ([`Planner`]).
//!
//! Read first: [`Planner::plan`]. The default (`hops`, `k = 1`) goes through
//! [`Router`], today's fewest-hops search, so every scenario without routing keys keeps
//! its routes bit for bit; every other setting goes through `ksp.rs`, whose order of
//! paths (cost, hops, node-index sequence) is the same one the breadth-first search
//! produces for hops (its queue visits equal-length paths in lexicographic order).
//!
//! A flow draws one path index `j` for the first of its directions that is not given
//! explicitly (forward, else reverse): `first` takes 0, `random` draws uniformly from
//! the `routing` substream (one draw per flow whose pair has more than one path),
//! `round_robin` takes the pair's count of earlier such flows mod the paths found, and
//! `least_loaded` the path whose busiest hop carries the fewest earlier forward routes.
//! The other direction, if not explicit, takes its own pair's path `min(j, paths − 1)`,
//! so that with `first` both directions are least-cost paths.

use super::error::{e, ScenarioError};
use super::ksp::{Cost, Graph};
use super::resolved::{ResolvedFibre, ResolvedLink, RouteChoice};
use super::routing::Router;
use super::spec::{RouteMetric, RoutePolicy, RoutingSpec};
use crate::rng::RngStream;
use std::collections::HashMap;

/// Most paths per pair (`routing.k`): Yen's search costs about k × hops searches.
pub const MAX_K: u32 = 64;

/// The most `togo` entries kept for least-cost routes (16 bytes each).
const TOGO_KEEP: usize = 1 << 24;

/// `[routing]` or a flow's `routing`, with the other's keys filled in and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Settings {
    pub metric: RouteMetric,
    pub k: u32,
    pub policy: RoutePolicy,
}

impl Settings {
    /// `over`'s keys over `base`'s; `field` (`routing` or `flow[i].routing`) names errors.
    pub fn merge(
        base: Settings,
        over: Option<&RoutingSpec>,
        field: &str,
    ) -> Result<Self, ScenarioError> {
        let Some(o) = over else { return Ok(base) };
        let k = o.k.unwrap_or(base.k);
        if k == 0 || k > MAX_K {
            return Err(e(
                format!("{field}.k"),
                format!("must be between 1 and {MAX_K} paths per pair, got {k}"),
            ));
        }
        Ok(Settings {
            metric: o.metric.unwrap_or(base.metric),
            k,
            policy: o.policy.unwrap_or(base.policy),
        })
    }

    pub const DEFAULT: Settings = Settings {
        metric: RouteMetric::Hops,
        k: 1,
        policy: RoutePolicy::First,
    };
}

/// A direction's route given explicitly, or to be chosen.
pub(super) type Given = Option<Vec<u32>>;

/// Chooses the routes of the flows, in `[[flow]]` order (the order is part of the
/// result: `round_robin` counts and `least_loaded` loads follow it).
pub(super) struct Planner<'a> {
    router: Router<'a>,
    n_nodes: usize,
    links: &'a [ResolvedLink],
    fibres: &'a [ResolvedFibre],
    /// Per metric (`hops`, `km`, `delay`): the graph, built at first use.
    graphs: [Option<Graph>; 3],
    /// (metric, destination) → least cost to it from every node (`k = 1`).
    togo: HashMap<(u8, u32), Vec<Cost>>,
    kept: usize,
    /// (metric, k, source, destination) → the pair's paths.
    paths: HashMap<(u8, u32, u32, u32), Vec<Vec<u32>>>,
    /// `round_robin`: flows so far per directed pair.
    turns: HashMap<(u32, u32), u64>,
    /// `least_loaded`: forward routes so far per directed hop (kept only when some flow
    /// uses the policy).
    loads: Option<HashMap<(u32, u32), u64>>,
    rng: RngStream,
}

impl<'a> Planner<'a> {
    pub fn new(
        adj: &'a [Vec<u32>],
        links: &'a [ResolvedLink],
        fibres: &'a [ResolvedFibre],
        (seed, replication): (u64, u64),
        least_loaded: bool,
    ) -> Self {
        Planner {
            router: Router::new(adj),
            n_nodes: adj.len(),
            links,
            fibres,
            graphs: [None, None, None],
            togo: HashMap::new(),
            kept: 0,
            paths: HashMap::new(),
            turns: HashMap::new(),
            loads: least_loaded.then(HashMap::new),
            rng: RngStream::derive(seed, replication, "routing"),
        }
    }

    /// The graph of `metric`; `field` names the key that asked for it in errors.
    fn graph(&mut self, metric: RouteMetric, field: &str) -> Result<&Graph, ScenarioError> {
        let m = metric as usize;
        if self.graphs[m].is_none() {
            let mut arcs = Vec::with_capacity(self.links.len() + self.fibres.len());
            for l in self.links {
                let c = match metric {
                    RouteMetric::Hops => 1,
                    RouteMetric::Km => 0,
                    RouteMetric::Delay => l.delay.ps(),
                };
                arcs.push((l.from, l.to, c));
            }
            for f in self.fibres {
                let c = match metric {
                    RouteMetric::Hops => 1,
                    RouteMetric::Delay => f.delay.ps(),
                    RouteMetric::Km => match f.length_km {
                        // Whole millimetres, so that sums are exact.
                        Some(km) => (km * 1e6).round() as u64,
                        None => {
                            return Err(e(
                                format!("fibre[{}].length_km", f.spec_index),
                                format!(
                                    "{field} = \"km\" routes by fibre length, and this \
                                     fibre gives only its delay"
                                ),
                            ))
                        }
                    },
                };
                arcs.push((f.from, f.to, c));
            }
            self.graphs[m] = Some(Graph::new(self.n_nodes, arcs));
        }
        Ok(self.graphs[m].as_ref().expect("built above"))
    }

    /// The pair's paths under `st` (at most `st.k`, least first; empty: unreachable).
    pub(super) fn pair_paths(
        &mut self,
        st: Settings,
        s: u32,
        d: u32,
        field: &str,
    ) -> Result<Vec<Vec<u32>>, ScenarioError> {
        if st.metric == RouteMetric::Hops && st.k == 1 {
            return Ok(self.router.route(s, d).into_iter().collect());
        }
        let key = (st.metric as u8, st.k, s, d);
        if let Some(p) = self.paths.get(&key) {
            return Ok(p.clone());
        }
        self.graph(st.metric, field)?;
        let g = self.graphs[st.metric as usize]
            .as_ref()
            .expect("built above");
        let found: Vec<Vec<u32>> = if st.k == 1 {
            let tk = (st.metric as u8, d);
            let cut = Default::default();
            let p = match self.togo.get(&tk) {
                Some(t) => g.walk(s, d, t, &[], &cut),
                None => {
                    let t = g.togo(d, &[], &cut);
                    let p = g.walk(s, d, &t, &[], &cut);
                    if self.kept + t.len() <= TOGO_KEEP {
                        self.kept += t.len();
                        self.togo.insert(tk, t);
                    }
                    p
                }
            };
            p.into_iter().collect()
        } else {
            let v: Vec<Vec<u32>> = g
                .k_shortest(s, d, st.k as usize, None)
                .into_iter()
                .map(|x| x.1)
                .collect();
            self.paths.insert(key, v.clone());
            v
        };
        Ok(found)
    }

    /// The path index `policy` picks among `paths` of the pair `(s, d)`.
    fn pick(&mut self, policy: RoutePolicy, (s, d): (u32, u32), paths: &[Vec<u32>]) -> usize {
        let n = paths.len();
        if n <= 1 {
            return 0;
        }
        match policy {
            RoutePolicy::First => 0,
            RoutePolicy::Random => ((self.rng.uniform() * n as f64) as usize).min(n - 1),
            RoutePolicy::RoundRobin => {
                let t = self.turns.entry((s, d)).or_insert(0);
                let j = (*t % n as u64) as usize;
                *t += 1;
                j
            }
            RoutePolicy::LeastLoaded => {
                let loads = self.loads.as_ref();
                let load =
                    |a: u32, b: u32| loads.and_then(|l| l.get(&(a, b))).copied().unwrap_or(0);
                (0..n)
                    .min_by_key(|&j| {
                        let hop = paths[j].windows(2).map(|w| load(w[0], w[1]));
                        (hop.clone().max().unwrap_or(0), hop.sum::<u64>(), j)
                    })
                    .unwrap_or(0)
            }
        }
    }

    /// The forward and reverse routes of a flow from `s` to `d`: `given` where given,
    /// else chosen under `st` (see the module docs). `field` names the metric's key in
    /// errors; `unreachable(reverse)` is the error for a direction without a path.
    pub fn plan(
        &mut self,
        st: Settings,
        (s, d): (u32, u32),
        (fwd, rev): (Given, Given),
        field: &str,
        unreachable: &dyn Fn(bool) -> ScenarioError,
    ) -> Result<(Vec<u32>, Vec<u32>, RouteChoice), ScenarioError> {
        let mut choice = RouteChoice {
            metric: st.metric,
            k: st.k,
            policy: st.policy,
            index: None,
            paths: 0,
        };
        let mut j = None;
        let mut take = |me: &mut Self, given: Given, (a, b): (u32, u32), reverse: bool| {
            if let Some(r) = given {
                return Ok((r, None));
            }
            let paths = me.pair_paths(st, a, b, field)?;
            if paths.is_empty() {
                return Err(unreachable(reverse));
            }
            let i = match j {
                Some(i) => usize::min(i, paths.len() - 1),
                None => {
                    let i = me.pick(st.policy, (a, b), &paths);
                    j = Some(i);
                    i
                }
            };
            let n = paths.len() as u32;
            Ok((
                paths.into_iter().nth(i).expect("index in range"),
                Some((i as u32, n)),
            ))
        };
        let (route, f) = take(self, fwd, (s, d), false)?;
        let (reverse_route, _) = take(self, rev, (d, s), true)?;
        if let Some((i, n)) = f {
            choice.index = Some(i);
            choice.paths = n;
        }
        if let Some(l) = self.loads.as_mut() {
            for w in route.windows(2) {
                *l.entry((w[0], w[1])).or_insert(0) += 1;
            }
        }
        Ok((route, reverse_route, choice))
    }
}
