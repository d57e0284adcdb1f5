//! The `[[workload]]` tables: TCP flows generated inside the core, one per arrival
//! (docs/guide/workloads.md).
//!
//! Read first: `WorkloadSpec` in `spec.rs` (the keys; the values that are one thing
//! or another in `quantity.rs`), then `ScenarioSpec::resolve_workloads`. A
//! workload is checked whole before anything runs: its generators are built here by
//! `workload/` (which validates each and names the sub-field, `workload[0].size.shape`),
//! its TCP keys go through the `[[flow]]` parser (`tcp.rs`, on a `FlowSpec` made of
//! them), and the routes of every pair it can draw are found once (`route_plan.rs`), so
//! a pair with no route is an error before the run, not a surprise during it.

use super::error::{e, ScenarioError};
use super::flows::{check_obs_segments, flow_class};
use super::quantity::{MatrixSpec, Size, SizeDistKind, SizeSpec};
use super::resolved::{
    ResolvedFibre, ResolvedLink, ResolvedObs, ResolvedWorkload, RouteChoice, WorkloadPair,
};
use super::route_plan::{Planner, Settings};
use super::routing::Names;
use super::spec::{
    ArrivalKind, Classifier, FlowSpec, FlowType, NodeKind, RoutePolicy, ScenarioSpec, WorkloadSpec,
};
use super::tcp::tcp_config;
use crate::units::SimTime;
use crate::workload::{parse_cdf, parse_matrix_csv, parse_trace, Arrivals, Pairs, SizeDist};
use std::collections::HashMap;

/// The workload's TCP keys as a `[[flow]]` of type "tcp" (between no hosts), so that
/// they go through the flow's own checks (`tcp.rs`).
fn tcp_flow(w: &WorkloadSpec) -> FlowSpec {
    FlowSpec {
        kind: FlowType::Tcp,
        name: Some(w.name.clone()),
        src: String::new(),
        dst: String::new(),
        start: None,
        stop: None,
        route: None,
        reverse_route: None,
        variant: w.variant,
        cc: w.cc,
        recovery: w.recovery,
        cubic_ssthresh: w.cubic_ssthresh,
        profile: w.profile,
        ns2_version: w.ns2_version,
        segments: None,
        drop_segments: None,
        mss: w.mss,
        header_bytes: w.header_bytes,
        ack_bytes: w.ack_bytes,
        wm: w.wm,
        init_cwnd: w.init_cwnd,
        init_ssthresh: w.init_ssthresh,
        dupack_thresh: w.dupack_thresh,
        b: w.b,
        delack_timeout: w.delack_timeout,
        min_rto: w.min_rto,
        max_rto: w.max_rto,
        init_rto: w.init_rto,
        clock_granularity: w.clock_granularity,
        max_backoff: w.max_backoff,
        sack_blocks: w.sack_blocks,
        syn: w.syn,
        limited_transmit: w.limited_transmit,
        precision_reduce: w.precision_reduce,
        bug_fix: w.bug_fix,
        newreno_changes1: w.newreno_changes1,
        partial_window_deflation: w.partial_window_deflation,
        sack_partial_ack: w.sack_partial_ack,
        clock_phase: w.clock_phase,
        rate: None,
        packet_size: None,
        mean_on: None,
        mean_off: None,
        hurst: None,
        alpha: None,
        sources: None,
        class: w.class,
        assembly: None,
        routing: None,
    }
}

/// Names a workload's key in errors (`workload[2].size`).
type Fld<'a> = &'a dyn Fn(&str) -> String;

/// Reads a file a workload names (`field` names the key in errors).
fn read(path: &str, field: &str) -> Result<String, ScenarioError> {
    std::fs::read_to_string(path).map_err(|x| e(field, format!("cannot read '{path}': {x}")))
}

/// Host names to node indices; every name must be a host.
fn host_ids(list: &[String], names: &Names, field: &str) -> Result<Vec<u32>, ScenarioError> {
    let mut v = Vec::with_capacity(list.len());
    for (k, h) in list.iter().enumerate() {
        let f = format!("{field}[{k}]");
        let ix = names.lookup(f.clone(), h)?;
        if names.nodes[ix as usize].1 != NodeKind::Host {
            return Err(e(
                f,
                format!("node '{h}' is not a host; flows start and end at hosts"),
            ));
        }
        v.push(ix);
    }
    Ok(v)
}

/// The size distribution (`size`).
fn sizes(size: &SizeSpec, fld: Fld) -> Result<SizeDist, ScenarioError> {
    let f = fld("size");
    let d = match size {
        SizeSpec::Fixed(b) => return SizeDist::fixed(*b, &f),
        SizeSpec::Dist(d) => d,
    };
    let key = |k: &str| format!("{f}.{k}");
    let need = |x: Option<f64>, k: &str| {
        x.ok_or_else(|| {
            e(
                key(k),
                format!("required for size type {:?}", d.kind).to_lowercase(),
            )
        })
    };
    let b = |s: Option<Size>| s.map(|s| s.0 as f64);
    let allowed: &[&str] = match d.kind {
        SizeDistKind::Exponential => &["mean"],
        SizeDistKind::Pareto => &["shape", "lower", "upper"],
        SizeDistKind::Lognormal => &["mu", "sigma", "mean", "median"],
        SizeDistKind::Empirical => &["cdf", "file", "interpolate"],
    };
    let given = [
        ("mean", d.mean.is_some()),
        ("shape", d.shape.is_some()),
        ("lower", d.lower.is_some()),
        ("upper", d.upper.is_some()),
        ("mu", d.mu.is_some()),
        ("sigma", d.sigma.is_some()),
        ("median", d.median.is_some()),
        ("cdf", d.cdf.is_some()),
        ("file", d.file.is_some()),
        ("interpolate", d.interpolate.is_some()),
    ];
    if let Some((k, _)) = given.iter().find(|(k, g)| *g && !allowed.contains(k)) {
        return Err(e(
            key(k),
            format!("does not apply to size type {:?}", d.kind).to_lowercase(),
        ));
    }
    match d.kind {
        SizeDistKind::Exponential => SizeDist::exponential(need(b(d.mean), "mean")?, &f),
        SizeDistKind::Pareto => SizeDist::pareto(
            need(d.shape, "shape")?,
            need(b(d.lower), "lower")?,
            b(d.upper),
            &f,
        ),
        SizeDistKind::Lognormal => match (d.mu, d.sigma, d.mean, d.median) {
            (Some(mu), Some(s), None, None) => SizeDist::lognormal(mu, s, &f),
            (None, None, Some(m), Some(md)) => {
                SizeDist::lognormal_mean_median(m.0 as f64, md.0 as f64, &f)
            }
            _ => Err(e(
                f.clone(),
                "a lognormal needs mu and sigma, or mean and median",
            )),
        },
        SizeDistKind::Empirical => {
            let pts = match (&d.cdf, &d.file) {
                (Some(c), None) => c.iter().map(|p| (p[0], p[1])).collect(),
                (None, Some(p)) => parse_cdf(&read(p, &key("file"))?, &key("file"))?,
                _ => {
                    return Err(e(
                        f.clone(),
                        "an empirical size needs cdf or file (one of them)",
                    ))
                }
            };
            SizeDist::empirical(pts, d.interpolate.unwrap_or(true), &f)
        }
    }
}

/// A key that does not apply to the workload's arrivals, if one was given.
fn misplaced(w: &WorkloadSpec) -> Option<&'static str> {
    let given = [
        ("src", w.src.is_some()),
        ("dst", w.dst.is_some()),
        ("matrix", w.matrix.is_some()),
        ("hosts", w.hosts.is_some()),
        ("rate", w.rate.is_some()),
        ("load", w.load.is_some()),
        ("size", w.size.is_some()),
        ("start", w.start.is_some()),
        ("trace", w.trace.is_some()),
    ];
    let bad: &[&str] = match w.arrivals {
        ArrivalKind::Trace => &[
            "src", "dst", "matrix", "hosts", "rate", "load", "size", "start",
        ],
        _ if w.matrix.is_some() => &["src", "dst", "trace"],
        _ => &["hosts", "trace"],
    };
    given
        .iter()
        .find(|(k, g)| *g && bad.contains(k))
        .map(|x| x.0)
}

/// The pair chooser and the pairs it can draw (`src`/`dst` or `matrix`).
fn pairs(
    w: &WorkloadSpec,
    names: &Names,
    fld: Fld,
) -> Result<(Pairs, Vec<(u32, u32)>), ScenarioError> {
    let Some(m) = &w.matrix else {
        let src = w.src.as_ref().ok_or_else(|| {
            e(
                fld("src"),
                "required: the hosts flows leave from (or a matrix)",
            )
        })?;
        let dst = w
            .dst
            .as_ref()
            .ok_or_else(|| e(fld("dst"), "required: the hosts flows go to (or a matrix)"))?;
        let (s, d) = (
            host_ids(src, names, &fld("src"))?,
            host_ids(dst, names, &fld("dst"))?,
        );
        let all = s
            .iter()
            .flat_map(|&a| d.iter().filter(move |&&b| b != a).map(move |&b| (a, b)))
            .collect();
        let p = Pairs::uniform(s, d, fld("").trim_end_matches('.'))?;
        return Ok((p, all));
    };
    let fm = fld("matrix");
    let (names_csv, rows) = match m {
        MatrixSpec::Invalid => {
            return Err(e(
                fm,
                "expected a CSV file name or an array of rows, got a number",
            ))
        }
        MatrixSpec::Rows(r) => (None, r.clone()),
        MatrixSpec::File(p) => {
            let c = parse_matrix_csv(&read(p, &fm)?, &fm)?;
            (c.names, c.rows)
        }
    };
    let hosts = match (&w.hosts, names_csv) {
        (Some(h), _) => host_ids(h, names, &fld("hosts"))?,
        (None, Some(n)) => host_ids(&n, names, &fm)?,
        (None, None) => {
            return Err(e(
                fld("hosts"),
                "required: the hosts of the matrix's rows and columns, in order",
            ))
        }
    };
    let p = Pairs::matrix(&hosts, &rows, &fm)?;
    let all = match &p {
        Pairs::Matrix { pairs, .. } => pairs.clone(),
        Pairs::Uniform { .. } => unreachable!("a matrix makes weighted pairs"),
    };
    Ok((p, all))
}

impl ScenarioSpec {
    /// Resolves every workload, in `[[workload]]` order; `net` as for the flows.
    pub(super) fn resolve_workloads(
        &self,
        names: &Names,
        (adj, links, fibres): (&[Vec<u32>], &[ResolvedLink], &[ResolvedFibre]),
        obs: Option<&ResolvedObs>,
        run: (u64, u64),
    ) -> Result<Vec<ResolvedWorkload>, ScenarioError> {
        if self.workloads.is_empty() {
            return Ok(Vec::new());
        }
        let classifier = self.obs.as_ref().map(|o| o.classifier);
        if !fibres.is_empty() && classifier.unwrap_or_default() == Classifier::PerFlow {
            return Err(e(
                "obs.classifier",
                "generated flows ([[workload]]) share assembly queues: set obs.classifier \
                 = \"per_egress\" or \"per_class\" (\"per_flow\", the default, makes queues \
                 per listed flow)",
            ));
        }
        let global = Settings::merge(Settings::DEFAULT, self.routing.as_ref(), "routing")?;
        let mut planner = Planner::new(adj, links, fibres, run, false);
        let mut out = Vec::with_capacity(self.workloads.len());
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, w) in self.workloads.iter().enumerate() {
            let fld = |s: &str| format!("workload[{i}].{s}");
            if w.name.is_empty() {
                return Err(e(fld("name"), "must not be empty"));
            }
            if let Some(j) = seen.insert(&w.name, i) {
                return Err(e(
                    fld("name"),
                    format!("'{}' is already the name of workload[{j}]", w.name),
                ));
            }
            if let Some(k) = misplaced(w) {
                return Err(e(
                    fld(k),
                    format!(
                        "does not apply to arrivals = \"{}\"{}",
                        format!("{:?}", w.arrivals).to_lowercase(),
                        match (w.arrivals, w.matrix.is_some()) {
                            (ArrivalKind::Trace, _) =>
                                ": the trace gives each flow's start, pair and size",
                            (_, true) => " with a matrix",
                            _ => "",
                        }
                    ),
                ));
            }
            let fs = tcp_flow(w);
            let cfg = tcp_config(&fs, &fld)?;
            let class = flow_class(&fs, classifier, obs, &fld)?;
            let st = Settings::merge(global, w.routing.as_ref(), &fld("routing"))?;
            if st.policy == RoutePolicy::LeastLoaded {
                let own = w.routing.as_ref().and_then(|r| r.policy).is_some();
                return Err(e(
                    if own {
                        fld("routing.policy")
                    } else {
                        "routing.policy".into()
                    },
                    "least_loaded counts the flows routed at set-up; generated flows \
                     start during the run: use first, random or round_robin for them",
                ));
            }
            let start = w.start.map_or(SimTime::ZERO, |d| d.0);
            let stop = w.stop.map(|d| d.0);
            if let Some(s) = stop {
                if s <= start {
                    return Err(e(fld("stop"), "must be later than start"));
                }
            }
            if w.max_flows == Some(0) {
                return Err(e(fld("max_flows"), "must be at least 1"));
            }
            let (arrivals, size_dist, chooser, all) = match w.arrivals {
                ArrivalKind::Trace => {
                    let ft = fld("trace");
                    let path = w.trace.as_ref().ok_or_else(|| {
                        e(ft.clone(), "required with arrivals = \"trace\": a CSV file")
                    })?;
                    let host = |h: &str| {
                        names
                            .by_name
                            .get(h)
                            .copied()
                            .filter(|&x| names.nodes[x as usize].1 == NodeKind::Host)
                    };
                    let rows = parse_trace(&read(path, &ft)?, host, &ft)?;
                    let mut all: Vec<(u32, u32)> = Vec::new();
                    let mut have = std::collections::HashSet::new();
                    for r in &rows {
                        if have.insert((r.src, r.dst)) {
                            all.push((r.src, r.dst));
                        }
                    }
                    let (a, b) = all[0];
                    (
                        Arrivals::trace(rows, &ft)?,
                        SizeDist::Fixed(1),
                        Pairs::uniform(vec![a], vec![b], &ft)?,
                        all,
                    )
                }
                kind => {
                    let (chooser, all) = pairs(w, names, &fld)?;
                    let size = w.size.as_ref().ok_or_else(|| {
                        e(fld("size"), "required: a size or a distribution table")
                    })?;
                    let sd = sizes(size, &fld)?;
                    let (rate, rf) = match (w.rate, w.load, chooser.total()) {
                        (Some(_), Some(_), _) => {
                            return Err(e(fld("load"), "give rate or load, not both"))
                        }
                        (Some(r), None, _) => (r.0, fld("rate")),
                        (None, Some(l), _) => (l.0.bps() as f64 / (8.0 * sd.mean()), fld("load")),
                        (None, None, Some(t)) => (t, fld("matrix")),
                        (None, None, None) => {
                            return Err(e(
                                fld("rate"),
                                "required: flow arrivals per second (or load)",
                            ))
                        }
                    };
                    let a = match kind {
                        ArrivalKind::Fixed => {
                            if !(rate.is_finite() && rate > 0.0) {
                                return Err(e(
                                    rf,
                                    format!("an arrival rate must be a positive finite number per second, got {rate}"),
                                ));
                            }
                            let period =
                                SimTime::from_secs_f64(1.0 / rate).map_err(|x| e(rf.clone(), x))?;
                            Arrivals::fixed(period, start, &rf)?
                        }
                        _ => Arrivals::poisson(rate, start, &rf)?,
                    };
                    (a, sd, chooser, all)
                }
            };
            let metric_field = if w.routing.as_ref().is_some_and(|r| r.metric.is_some()) {
                fld("routing.metric")
            } else {
                "routing.metric".to_string()
            };
            let nm = |x: u32| &names.nodes[x as usize].0;
            let mut pairs_out = Vec::with_capacity(all.len());
            for &(s, d) in &all {
                let fwd = planner.pair_paths(st, s, d, &metric_field)?;
                if fwd.is_empty() {
                    return Err(e(
                        fld("dst"),
                        format!("unreachable: no path from '{}' to '{}'", nm(s), nm(d)),
                    ));
                }
                let rev = planner.pair_paths(st, d, s, &metric_field)?;
                if rev.is_empty() {
                    return Err(e(
                        fld("src"),
                        format!(
                            "unreachable: no return path from '{}' to '{}'",
                            nm(d),
                            nm(s)
                        ),
                    ));
                }
                let mut paths = Vec::with_capacity(fwd.len());
                for (j, f) in fwd.iter().enumerate() {
                    let r = &rev[j.min(rev.len() - 1)];
                    check_obs_segments(f, &names.nodes, &fld("dst"))?;
                    check_obs_segments(r, &names.nodes, &fld("src"))?;
                    paths.push((f.clone(), r.clone()));
                }
                pairs_out.push(WorkloadPair {
                    src: s,
                    dst: d,
                    paths,
                });
            }
            out.push(ResolvedWorkload {
                name: w.name.clone(),
                arrivals,
                sizes: size_dist,
                pairs: chooser,
                stop,
                max_flows: w.max_flows,
                cfg,
                class,
                routing: RouteChoice {
                    metric: st.metric,
                    k: st.k,
                    policy: st.policy,
                    index: None,
                    paths: 0,
                },
                routes: pairs_out,
            });
        }
        Ok(out)
    }
}
