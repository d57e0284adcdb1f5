//! Node names and routes: the table of nodes by name ([`Names`]), the directed
//! adjacency of links and fibres, explicit routes checked against it, and the default
//! fewest-hops route ([`shortest_route`], computed for many flows at once by
//! [`Router`]).

use super::error::ScenarioError;
use super::resolved::{ResolvedFibre, ResolvedLink};
use super::spec::NodeKind;
use std::collections::HashMap;

/// The nodes of a scenario by index and by name (the resolvers look names up here).
pub(super) struct Names<'a> {
    /// Per node: its name and kind, in `[[node]]` order.
    pub nodes: Vec<(String, NodeKind)>,
    pub by_name: HashMap<&'a str, u32>,
}

impl Names<'_> {
    /// The index of the node called `name`; the error names `field`.
    pub fn lookup(&self, field: String, name: &str) -> Result<u32, ScenarioError> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| ScenarioError::new(field, format!("unknown node '{name}'")))
    }
}

/// The directed adjacency of the network for routing and route checks: per node, the
/// nodes a link or fibre leads to, sorted and without repeats.
pub(super) fn adjacency(
    n_nodes: usize,
    links: &[ResolvedLink],
    fibres: &[ResolvedFibre],
) -> Vec<Vec<u32>> {
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
    for l in links {
        adj[l.from as usize].push(l.to);
    }
    for f in fibres {
        adj[f.from as usize].push(f.to);
    }
    for v in adj.iter_mut() {
        v.sort_unstable();
        v.dedup();
    }
    adj
}

/// Checks a route given as node names (`field` names it in errors): it joins `s` to `d`
/// without a loop, along links or fibres.
pub(super) fn explicit_route(
    field: &str,
    names: &[String],
    s: u32,
    d: u32,
    lookup: &dyn Fn(String, &str) -> Result<u32, ScenarioError>,
    adj: &[Vec<u32>],
) -> Result<Vec<u32>, ScenarioError> {
    let mut r = Vec::new();
    for (k, n) in names.iter().enumerate() {
        r.push(lookup(format!("{field}[{k}]"), n)?);
    }
    if r.first() != Some(&s) || r.last() != Some(&d) {
        return Err(ScenarioError::new(
            field,
            "must start at the flow's source and end at its destination",
        ));
    }
    for (k, n) in r.iter().enumerate() {
        if let Some(j) = r[..k].iter().position(|m| m == n) {
            return Err(ScenarioError::new(
                format!("{field}[{k}]"),
                format!(
                    "the route visits '{}' twice (also at [{j}]): a route must not loop",
                    names[k]
                ),
            ));
        }
    }
    for (k, w) in r.windows(2).enumerate() {
        if adj[w[0] as usize].binary_search(&w[1]).is_err() {
            return Err(ScenarioError::new(
                format!("{field}[{}]", k + 1),
                format!("no link or fibre from '{}' to '{}'", names[k], names[k + 1]),
            ));
        }
    }
    Ok(r)
}

/// The routes of [`shortest_route`] for many flows, in time linear in the flows and
/// the network (a breadth-first search per flow would be quadratic at 10^4 flows).
///
/// A host that reaches the network through one node `x` only (its sole out-neighbour)
/// has the route `[s] + route(x, d)`: the search from `s` visits `x` next and then
/// proceeds exactly as the search from `x` (`s` itself leads nowhere else). Likewise a
/// destination `d` entered from one node `y` only has `prev[d] = y` in every search,
/// and the search reaches `y` before `d` is queued, so the route is `route(s, y) + [d]`.
/// What remains is a search from `x`, kept (its `prev` tree) for the next flows from
/// `x` while the kept trees stay small.
pub struct Router<'a> {
    adj: &'a [Vec<u32>],
    /// Per node: its only in-neighbour, or `u32::MAX` (none or several).
    sole_in: Vec<u32>,
    trees: HashMap<u32, Vec<u32>>,
    kept: usize,
}

/// The most `prev` entries [`Router`] keeps (4 bytes each).
const ROUTER_KEEP: usize = 1 << 25;

impl<'a> Router<'a> {
    pub fn new(adj: &'a [Vec<u32>]) -> Self {
        let mut sole_in = vec![u32::MAX; adj.len()];
        let mut n_in = vec![0u32; adj.len()];
        for (u, vs) in adj.iter().enumerate() {
            for &v in vs {
                n_in[v as usize] += 1;
                sole_in[v as usize] = u as u32;
            }
        }
        for (x, &n) in sole_in.iter_mut().zip(&n_in) {
            if n != 1 {
                *x = u32::MAX;
            }
        }
        Router {
            adj,
            sole_in,
            trees: HashMap::new(),
            kept: 0,
        }
    }

    /// The same route as `shortest_route(adj, s, d)`.
    pub fn route(&mut self, s: u32, d: u32) -> Option<Vec<u32>> {
        if s == d {
            return Some(vec![s]);
        }
        let mut head = Vec::new();
        let mut from = s;
        if let [x] = self.adj[s as usize][..] {
            head.push(s);
            from = x;
        }
        let mut tail = None;
        let mut to = d;
        let y = self.sole_in[d as usize];
        if y != u32::MAX && from != d {
            tail = Some(d);
            to = y;
        }
        let mid = if from == to {
            vec![from]
        } else if let Some(prev) = self.trees.get(&from) {
            path_from(prev, from, to)?
        } else {
            let prev = bfs_prev(self.adj, from, None);
            let p = path_from(&prev, from, to)?;
            if self.kept + prev.len() <= ROUTER_KEEP {
                self.kept += prev.len();
                self.trees.insert(from, prev);
            }
            p
        };
        head.extend(mid);
        head.extend(tail);
        Some(head)
    }
}

/// The breadth-first search tree from `s` (`prev[v]`: `v`'s parent; `u32::MAX`: not
/// reached; `prev[s] = s`), stopping when `stop` is found.
fn bfs_prev(adj: &[Vec<u32>], s: u32, stop: Option<u32>) -> Vec<u32> {
    let mut prev = vec![u32::MAX; adj.len()];
    let mut q = std::collections::VecDeque::new();
    prev[s as usize] = s;
    q.push_back(s);
    while let Some(u) = q.pop_front() {
        if Some(u) == stop {
            break;
        }
        for &v in &adj[u as usize] {
            if prev[v as usize] == u32::MAX {
                prev[v as usize] = u;
                q.push_back(v);
            }
        }
    }
    prev
}

fn path_from(prev: &[u32], s: u32, d: u32) -> Option<Vec<u32>> {
    if prev[d as usize] == u32::MAX {
        return None;
    }
    let mut path = vec![d];
    let mut cur = d;
    while cur != s {
        cur = prev[cur as usize];
        path.push(cur);
    }
    path.reverse();
    Some(path)
}

/// Fewest-hops path by breadth-first search; ties go to the lower-numbered neighbour,
/// so routes are deterministic.
pub fn shortest_route(adj: &[Vec<u32>], s: u32, d: u32) -> Option<Vec<u32>> {
    let n = adj.len();
    let mut prev = vec![u32::MAX; n];
    let mut seen = vec![false; n];
    let mut q = std::collections::VecDeque::new();
    seen[s as usize] = true;
    q.push_back(s);
    while let Some(u) = q.pop_front() {
        if u == d {
            break;
        }
        for &v in &adj[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                prev[v as usize] = u;
                q.push_back(v);
            }
        }
    }
    if !seen[d as usize] {
        return None;
    }
    let mut path = vec![d];
    let mut cur = d;
    while cur != s {
        cur = prev[cur as usize];
        path.push(cur);
    }
    path.reverse();
    Some(path)
}
