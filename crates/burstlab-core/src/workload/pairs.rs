//! Source–destination choice for generated flows.
//!
//! Read first: [`Pairs`]. Either uniform over the pairs of a `src` list and a `dst`
//! list with src ≠ dst (rejection of equal pairs: exact, and at least half of all
//! pairs are valid whenever one is, so a draw takes fewer than two tries on average),
//! or weighted by an origin–destination matrix. A matrix of per-pair Poisson rates
//! λ_ij is the superposition of independent Poisson processes: one process of rate
//! Λ = Σ λ_ij whose arrivals pick pair (i, j) with probability λ_ij / Λ (the
//! superposition and thinning properties of the Poisson process). Host ids are the
//! caller's; a draw allocates nothing.

use super::{below, err};
use crate::rng::RngStream;
use crate::ScenarioError;

/// How a workload picks the source and destination of each flow.
#[derive(Clone, Debug)]
pub enum Pairs {
    /// Uniform over `src × dst` without the pairs whose ends are equal.
    Uniform { src: Vec<u32>, dst: Vec<u32> },
    /// Weighted: `pairs[k]` with probability (`cum[k] − cum[k−1]`) / total, pairs of
    /// zero weight left out. `cum` is the running sum of the weights, row by row.
    Matrix {
        pairs: Vec<(u32, u32)>,
        cum: Vec<f64>,
    },
}

impl Pairs {
    /// Uniform over the valid pairs of two host lists. Errors (naming `<field>.src` or
    /// `<field>.dst`): an empty list, a host listed twice, or lists that make no pair
    /// of distinct hosts.
    pub fn uniform(src: Vec<u32>, dst: Vec<u32>, field: &str) -> Result<Self, ScenarioError> {
        for (list, name) in [(&src, "src"), (&dst, "dst")] {
            if list.is_empty() {
                return Err(err(&format!("{field}.{name}"), "the host list is empty"));
            }
            for (i, h) in list.iter().enumerate() {
                if let Some(j) = list[..i].iter().position(|x| x == h) {
                    return Err(err(
                        &format!("{field}.{name}[{i}]"),
                        format!("the same host as {name}[{j}]: list each host once"),
                    ));
                }
            }
        }
        if src.len() == 1 && dst.len() == 1 && src[0] == dst[0] {
            return Err(err(
                &format!("{field}.dst"),
                "src and dst are the same single host: no flow can be drawn",
            ));
        }
        Ok(Pairs::Uniform { src, dst })
    }

    /// Weighted by an origin–destination matrix over `hosts` (`rows[i][j]` is the weight
    /// or rate from `hosts[i]` to `hosts[j]`). Errors, naming `<field>` or the entry
    /// `<field>[i][j]`: a matrix whose size is not hosts × hosts, a negative, NaN or
    /// infinite entry, a non-zero diagonal entry, or all entries zero.
    pub fn matrix(hosts: &[u32], rows: &[Vec<f64>], field: &str) -> Result<Self, ScenarioError> {
        let n = hosts.len();
        if rows.len() != n {
            return Err(err(
                field,
                format!("the matrix has {} rows but there are {n} nodes", rows.len()),
            ));
        }
        let mut pairs = Vec::new();
        let mut cum = Vec::new();
        let mut total = 0.0;
        for (i, row) in rows.iter().enumerate() {
            if row.len() != n {
                return Err(err(
                    &format!("{field}[{i}]"),
                    format!("row {i} has {} entries but there are {n} nodes", row.len()),
                ));
            }
            for (j, &w) in row.iter().enumerate() {
                let at = || format!("{field}[{i}][{j}]");
                if !(w.is_finite() && w >= 0.0) {
                    return Err(err(
                        &at(),
                        format!("must be a non-negative finite number, got {w}"),
                    ));
                }
                if i == j && w != 0.0 {
                    return Err(err(
                        &at(),
                        format!("a node sends nothing to itself: got {w}"),
                    ));
                }
                if w > 0.0 {
                    total += w;
                    pairs.push((hosts[i], hosts[j]));
                    cum.push(total);
                }
            }
        }
        if pairs.is_empty() {
            return Err(err(field, "every entry is zero: no flow can be drawn"));
        }
        Ok(Pairs::Matrix { pairs, cum })
    }

    /// The matrix's total (Λ = Σ λ_ij: the arrival rate when the entries are rates);
    /// `None` for uniform pairs.
    pub fn total(&self) -> Option<f64> {
        match self {
            Pairs::Uniform { .. } => None,
            Pairs::Matrix { cum, .. } => cum.last().copied(),
        }
    }

    /// One (src, dst) pair, src ≠ dst.
    #[inline]
    pub fn sample(&self, rng: &mut RngStream) -> (u32, u32) {
        match self {
            Pairs::Uniform { src, dst } => loop {
                let s = src[below(rng, src.len() as u64) as usize];
                let d = dst[below(rng, dst.len() as u64) as usize];
                if s != d {
                    return (s, d);
                }
            },
            Pairs::Matrix { pairs, cum } => {
                let x = rng.uniform() * cum[cum.len() - 1];
                // The first pair whose running sum exceeds x (x < total).
                let k = cum.partition_point(|&c| c <= x).min(pairs.len() - 1);
                pairs[k]
            }
        }
    }
}

/// A matrix read from CSV: either only numbers (n rows of n cells), or with node
/// names, a header row whose first cell is a label (or empty) and whose other cells
/// name the columns, then rows whose first cell names the row, in the header's order.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvMatrix {
    pub names: Option<Vec<String>>,
    pub rows: Vec<Vec<f64>>,
}

/// Parses an origin–destination matrix file (see [`CsvMatrix`]); blank lines and `#`
/// comments are skipped. Errors name the file's line and column: a cell that is not a
/// number, a row of the wrong length, a row name that differs from the header's.
pub fn parse_matrix_csv(text: &str, field: &str) -> Result<CsvMatrix, ScenarioError> {
    let mut names: Option<Vec<String>> = None;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut first = true;
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |why: String| err(field, format!("line {}: {why}", ln + 1));
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if first {
            first = false;
            if cells.iter().any(|c| c.parse::<f64>().is_err()) {
                names = Some(cells[1..].iter().map(|c| c.to_string()).collect());
                continue;
            }
        }
        let nums = match &names {
            Some(ns) => {
                let i = rows.len();
                match ns.get(i) {
                    Some(want) if want == cells[0] => {}
                    Some(want) => {
                        return Err(at(format!(
                            "row {} is named '{}' but the header's column {} is '{want}'",
                            i + 1,
                            cells[0],
                            i + 1
                        )))
                    }
                    None => {
                        return Err(at(format!(
                            "more rows than the header's {} names",
                            ns.len()
                        )))
                    }
                }
                &cells[1..]
            }
            None => &cells[..],
        };
        let mut row = Vec::with_capacity(nums.len());
        for (j, c) in nums.iter().enumerate() {
            let v: f64 = c
                .parse()
                .map_err(|_| at(format!("column {}: '{c}' is not a number", j + 1)))?;
            row.push(v);
        }
        if let Some(w) = rows.first().map(Vec::len).or(names.as_ref().map(Vec::len)) {
            if row.len() != w {
                return Err(at(format!("{} entries, expected {w}", row.len())));
            }
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(err(field, "the matrix has no rows"));
    }
    if rows.len() != rows[0].len() {
        return Err(err(
            field,
            format!(
                "the matrix is {}×{}: it must be square",
                rows.len(),
                rows[0].len()
            ),
        ));
    }
    Ok(CsvMatrix { names, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draw counts against the expected shares: each count is binomial, and the
    /// tolerance is five standard deviations √(n p (1 − p)).
    fn check_shares(p: &Pairs, want: &[((u32, u32), f64)], n: u64, seed: u64) {
        let mut r = RngStream::derive(seed, 0, "workload/t/pairs");
        let mut counts = vec![0u64; want.len()];
        for _ in 0..n {
            let x = p.sample(&mut r);
            let k = want
                .iter()
                .position(|w| w.0 == x)
                .unwrap_or_else(|| panic!("{x:?}"));
            counts[k] += 1;
        }
        for (k, &(pair, share)) in want.iter().enumerate() {
            let mean = n as f64 * share;
            let sd = (n as f64 * share * (1.0 - share)).sqrt();
            assert!(
                (counts[k] as f64 - mean).abs() <= 5.0 * sd + 1e-9,
                "{pair:?}: {} draws, expected {mean} ± {}",
                counts[k],
                5.0 * sd
            );
        }
    }

    #[test]
    fn uniform_pairs_skip_equal_ends() {
        // src = {0, 1}, dst = {1, 2}: valid pairs (0,1) (0,2) (1,2), each 1/3.
        let p = Pairs::uniform(vec![0, 1], vec![1, 2], "w").unwrap();
        let third = 1.0 / 3.0;
        check_shares(
            &p,
            &[((0, 1), third), ((0, 2), third), ((1, 2), third)],
            90_000,
            1,
        );
    }

    #[test]
    fn bad_host_lists_are_refused() {
        assert_eq!(
            Pairs::uniform(vec![], vec![1], "w[0]").unwrap_err().field,
            "w[0].src"
        );
        assert_eq!(
            Pairs::uniform(vec![1], vec![], "w[0]").unwrap_err().field,
            "w[0].dst"
        );
        assert_eq!(
            Pairs::uniform(vec![3], vec![3], "w[0]").unwrap_err().field,
            "w[0].dst"
        );
        let e = Pairs::uniform(vec![1, 2, 1], vec![4], "w[0]").unwrap_err();
        assert_eq!(e.field, "w[0].src[2]");
    }

    #[test]
    fn matrix_pairs_follow_the_rates() {
        let hosts = [10, 11, 12];
        let m = vec![
            vec![0.0, 3.0, 1.0],
            vec![0.0, 0.0, 0.0],
            vec![2.0, 4.0, 0.0],
        ];
        let p = Pairs::matrix(&hosts, &m, "w.matrix").unwrap();
        assert_eq!(p.total(), Some(10.0));
        check_shares(
            &p,
            &[
                ((10, 11), 0.3),
                ((10, 12), 0.1),
                ((12, 10), 0.2),
                ((12, 11), 0.4),
            ],
            100_000,
            2,
        );
    }

    #[test]
    fn bad_matrices_name_the_entry() {
        let h = [0, 1];
        let e = |m: Vec<Vec<f64>>| Pairs::matrix(&h, &m, "workload[2].matrix").unwrap_err();
        let x = e(vec![vec![0.0, 1.0]]);
        assert_eq!(x.field, "workload[2].matrix");
        assert!(x.reason.contains("1 rows but there are 2 nodes"), "{x}");
        assert_eq!(
            e(vec![vec![0.0, 1.0], vec![1.0]]).field,
            "workload[2].matrix[1]"
        );
        assert_eq!(
            e(vec![vec![0.0, -1.0], vec![1.0, 0.0]]).field,
            "workload[2].matrix[0][1]"
        );
        assert_eq!(
            e(vec![vec![0.0, f64::NAN], vec![1.0, 0.0]]).field,
            "workload[2].matrix[0][1]"
        );
        assert_eq!(
            e(vec![vec![0.0, 1.0], vec![1.0, 5.0]]).field,
            "workload[2].matrix[1][1]"
        );
        assert!(e(vec![vec![0.0, 0.0], vec![0.0, 0.0]])
            .reason
            .contains("zero"));
    }

    #[test]
    fn matrix_csv_plain_and_named() {
        let m = parse_matrix_csv("0,1\n2,0\n", "w.matrix").unwrap();
        assert_eq!(
            m,
            CsvMatrix {
                names: None,
                rows: vec![vec![0.0, 1.0], vec![2.0, 0.0]]
            }
        );
        let t = "# tm\n,A,B,C\nA,0,1,2\nB,3,0,4\nC,5,6,0\n";
        let m = parse_matrix_csv(t, "w.matrix").unwrap();
        assert_eq!(m.names.unwrap(), ["A", "B", "C"]);
        assert_eq!(m.rows[2], [5.0, 6.0, 0.0]);
        let e = |t: &str| parse_matrix_csv(t, "w.matrix").unwrap_err().reason;
        assert!(e(",A,B\nB,0,1\nA,1,0\n").contains("named 'B'"));
        assert!(e("0,1,2\n1,0\n").starts_with("line 2: 2 entries, expected 3"));
        assert!(e("0,1\n1,x\n").contains("not a number"));
        assert!(e("0,1,2\n1,0,3\n").contains("2×3"));
        assert!(e("").contains("no rows"));
    }
}
