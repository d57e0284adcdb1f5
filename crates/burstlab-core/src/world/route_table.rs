//! The `routes` result table: one [`RouteRow`] per flow, from the resolved scenario
//! (the route each flow's packets follow, and how `[routing]` chose it).

use crate::scenario::{Resolved, RouteMetric, RoutePolicy};
use crate::stats::RouteRow;
use std::collections::HashMap;

/// Per directed hop (from, to): (km, delay in ps) of its shortest link or fibre;
/// km is `None` for a fibre without `length_km` (packet links count 0 km).
type HopCosts = HashMap<(u32, u32), (Option<f64>, u64)>;

fn hop_costs(r: &Resolved) -> HopCosts {
    let mut m: HopCosts = HashMap::new();
    let mut put = |a: u32, b: u32, km: Option<f64>, ps: u64| {
        m.entry((a, b))
            .and_modify(|x| {
                if ps < x.1 {
                    *x = (km, ps);
                }
            })
            .or_insert((km, ps));
    };
    for l in &r.links {
        put(l.from, l.to, Some(0.0), l.delay.ps());
    }
    for f in &r.fibres {
        put(f.from, f.to, f.length_km, f.delay.ps());
    }
    m
}

/// The rows of every flow of `r`, in `[[flow]]` order.
pub fn rows(r: &Resolved) -> Vec<RouteRow> {
    let costs = hop_costs(r);
    let name = |n: u32| r.nodes[n as usize].0.as_str();
    let join = |p: &[u32]| p.iter().map(|&n| name(n)).collect::<Vec<_>>().join(">");
    r.flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (mut km, mut ps) = (Some(0.0), 0u64);
            for w in f.route.windows(2) {
                let (k, d) = costs.get(&(w[0], w[1])).copied().unwrap_or((None, 0));
                km = km.zip(k).map(|(a, b)| a + b);
                ps = ps.saturating_add(d);
            }
            let c = f.routing;
            RouteRow {
                flow: i as u32,
                name: f.name.clone(),
                src: name(f.src).to_string(),
                dst: name(f.dst).to_string(),
                route: join(&f.route),
                reverse_route: join(&f.reverse_route),
                hops: f.route.len().saturating_sub(1) as u32,
                km: km.unwrap_or(f64::NAN),
                delay_s: crate::units::SimTime::from_ps(ps).as_secs_f64(),
                metric: match c.metric {
                    RouteMetric::Hops => "hops",
                    RouteMetric::Km => "km",
                    RouteMetric::Delay => "delay",
                },
                k: c.k,
                policy: match (c.index, c.policy) {
                    (None, _) => "explicit",
                    (Some(_), RoutePolicy::First) => "first",
                    (Some(_), RoutePolicy::Random) => "random",
                    (Some(_), RoutePolicy::RoundRobin) => "round_robin",
                    (Some(_), RoutePolicy::LeastLoaded) => "least_loaded",
                },
                path: c.index,
                paths: c.paths,
            }
        })
        .collect()
}
