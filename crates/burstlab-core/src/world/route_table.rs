//! The `routes` result table: one [`RouteRow`] per flow, then one per path of each
//! pair a `[[workload]]` can draw, from the resolved scenario (the route each flow's
//! packets follow, and how `[routing]` chose it).

use crate::scenario::{Resolved, RouteChoice, RouteMetric, RoutePolicy};
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

/// Names of a route choice's metric and policy (`explicit` when `index` is None).
fn choice_names(c: RouteChoice) -> (&'static str, &'static str) {
    let metric = match c.metric {
        RouteMetric::Hops => "hops",
        RouteMetric::Km => "km",
        RouteMetric::Delay => "delay",
    };
    let policy = match (c.index, c.policy) {
        (None, _) => "explicit",
        (Some(_), RoutePolicy::First) => "first",
        (Some(_), RoutePolicy::Random) => "random",
        (Some(_), RoutePolicy::RoundRobin) => "round_robin",
        (Some(_), RoutePolicy::LeastLoaded) => "least_loaded",
    };
    (metric, policy)
}

/// The rows of every flow of `r`, in `[[flow]]` order, then of every `[[workload]]`'s
/// pairs: one row per pair and path (the paths its generated flows choose among by the
/// workload's policy, `world/workloads.rs`), in the order the workload met the pairs,
/// `flow` the pair's index in its workload, `name` `<workload>:<src>><dst>`.
pub fn rows(r: &Resolved) -> Vec<RouteRow> {
    let costs = hop_costs(r);
    let name = |n: u32| r.nodes[n as usize].0.as_str();
    let join = |p: &[u32]| p.iter().map(|&n| name(n)).collect::<Vec<_>>().join(">");
    let length = |route: &[u32]| {
        let (mut km, mut ps) = (Some(0.0), 0u64);
        for w in route.windows(2) {
            let (k, d) = costs.get(&(w[0], w[1])).copied().unwrap_or((None, 0));
            km = km.zip(k).map(|(a, b)| a + b);
            ps = ps.saturating_add(d);
        }
        (
            km.unwrap_or(f64::NAN),
            crate::units::SimTime::from_ps(ps).as_secs_f64(),
        )
    };
    let row = |flow: u32,
               label: String,
               workload: &str,
               (src, dst): (u32, u32),
               (fwd, rev): (&[u32], &[u32]),
               c: RouteChoice| {
        let (km, delay_s) = length(fwd);
        let (metric, policy) = choice_names(c);
        RouteRow {
            flow,
            name: label,
            workload: workload.to_string(),
            src: name(src).to_string(),
            dst: name(dst).to_string(),
            route: join(fwd),
            reverse_route: join(rev),
            hops: fwd.len().saturating_sub(1) as u32,
            km,
            delay_s,
            metric,
            k: c.k,
            policy,
            path: c.index,
            paths: c.paths,
        }
    };
    let mut out: Vec<RouteRow> = r
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            row(
                i as u32,
                f.name.clone(),
                "",
                (f.src, f.dst),
                (&f.route, &f.reverse_route),
                f.routing,
            )
        })
        .collect();
    for w in &r.workloads {
        for (pi, p) in w.routes.iter().enumerate() {
            let label = format!("{}:{}>{}", w.name, name(p.src), name(p.dst));
            for (j, (fwd, rev)) in p.paths.iter().enumerate() {
                let c = RouteChoice {
                    index: Some(j as u32),
                    paths: p.paths.len() as u32,
                    ..w.routing
                };
                out.push(row(
                    pi as u32,
                    label.clone(),
                    &w.name,
                    (p.src, p.dst),
                    (fwd, rev),
                    c,
                ));
            }
        }
    }
    out
}
