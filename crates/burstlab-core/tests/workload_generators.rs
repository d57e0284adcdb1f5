//! The workload generators through the crate's public API (`burstlab_core::workload`):
//! an origin–destination matrix read from CSV drives a Poisson superposition whose
//! per-pair counts follow the matrix's rates, a trace file is replayed row by row,
//! and a run of 10^6 arrivals is bit-identical from the same seed.

use burstlab_core::units::SimTime;
use burstlab_core::workload::{parse_matrix_csv, parse_trace, Arrivals, Pairs, SizeDist, Workload};

#[test]
fn a_matrix_sets_each_pairs_poisson_rate() {
    // Rates per second between three nodes; the workload's arrival rate is their sum.
    let csv = ",A,B,C\nA,0,6,2\nB,4,0,0\nC,1,7,0\n";
    let m = parse_matrix_csv(csv, "workload[0].matrix").unwrap();
    let names = m.names.unwrap();
    let hosts: Vec<u32> = (0..names.len() as u32).collect();
    let pairs = Pairs::matrix(&hosts, &m.rows, "workload[0].matrix").unwrap();
    let total = pairs.total().unwrap();
    assert_eq!(total, 20.0);
    let arrivals = Arrivals::poisson(total, SimTime::ZERO, "workload[0].rate").unwrap();
    let sizes = SizeDist::fixed(1_000, "workload[0].size").unwrap();
    let mut w = Workload::new("tm", 11, 0, arrivals, sizes, pairs);
    let horizon = 5_000.0;
    let mut count = [[0u64; 3]; 3];
    while let Some(f) = w.next_flow() {
        if f.at.as_secs_f64() > horizon {
            break;
        }
        count[f.src as usize][f.dst as usize] += 1;
    }
    // Thinning a Poisson process of rate Λ by pair gives independent Poisson counts of
    // mean λ_ij·T: five standard deviations √(λ_ij·T) each.
    for i in 0..3 {
        for j in 0..3 {
            let want = m.rows[i][j] * horizon;
            let got = count[i][j] as f64;
            assert!(
                (got - want).abs() <= 5.0 * want.sqrt(),
                "{}->{}: {got} flows, expected {want}",
                names[i],
                names[j]
            );
        }
    }
}

#[test]
fn a_trace_is_replayed_exactly() {
    let text = "start,src,dst,size\n0,h0,h1,1500\n0.25,h1,h0,64KB\n0.25,h0,h1,1MB\n";
    let host = |n: &str| n.strip_prefix('h').and_then(|d| d.parse().ok());
    let rows = parse_trace(text, host, "workload[0].trace").unwrap();
    let mut w = Workload::new(
        "replay",
        1,
        0,
        Arrivals::trace(rows, "workload[0].trace").unwrap(),
        SizeDist::fixed(1, "workload[0].size").unwrap(),
        Pairs::uniform(vec![0], vec![1], "workload[0]").unwrap(),
    );
    let got: Vec<(u64, u32, u32, u64)> = std::iter::from_fn(|| w.next_flow())
        .map(|f| (f.at.ps(), f.src, f.dst, f.size))
        .collect();
    assert_eq!(
        got,
        [
            (0, 0, 1, 1500),
            (250_000_000_000, 1, 0, 64_000),
            (250_000_000_000, 0, 1, 1_000_000)
        ]
    );
}

#[test]
fn a_million_arrivals_are_reproducible() {
    let make = || {
        Workload::new(
            "web",
            7,
            3,
            Arrivals::poisson(1_000.0, SimTime::ZERO, "rate").unwrap(),
            SizeDist::pareto(1.2, 1_000.0, Some(1e8), "size").unwrap(),
            Pairs::uniform(vec![0, 1, 2, 3], vec![0, 1, 2, 3], "w").unwrap(),
        )
    };
    // A running digest of every arrival (FNV-1a over the fields).
    let digest = |mut w: Workload| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut last = SimTime::ZERO;
        for _ in 0..1_000_000 {
            let f = w.next_flow().unwrap();
            assert!(f.at >= last && f.src != f.dst && f.size >= 1_000);
            last = f.at;
            for x in [f.at.ps(), f.src as u64, f.dst as u64, f.size] {
                h = (h ^ x).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        (h, last)
    };
    let (a, end) = digest(make());
    let (b, _) = digest(make());
    assert_eq!(a, b);
    // 10^6 arrivals at 1 000/s: the last near 1 000 s (sd 1 s).
    assert!((end.as_secs_f64() - 1_000.0).abs() < 5.0, "{end}");
}
