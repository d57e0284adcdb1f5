"""The dumbbell benchmark's generator (``benchmarks/make_dumbbell.py``): the committed
320-flow file is its default output, and ``--delay-scale`` scales every delay and sizes
the buffer to the scaled round trip (docs/performance.md uses it to separate flows from
packets in flight)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import burstlab

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from make_dumbbell import dumbbell  # noqa: E402


def test_committed_file_is_the_default_output() -> None:
    assert (ROOT / "benchmarks" / "dumbbell_320.toml").read_text(encoding="utf-8") == dumbbell(320)


def test_delay_scale_scales_every_delay_and_the_buffer() -> None:
    base = tomllib.loads(dumbbell(20))
    scaled = tomllib.loads(dumbbell(20, delay_scale=0.1))
    assert [lk["delay"] for lk in base["link"]] == ["10ms"] + ["1ms"] * 40
    assert [lk["delay"] for lk in scaled["link"]] == ["1ms"] + ["0.1ms"] * 40
    # One bandwidth-delay product of the round trip: 20 × 50 Mb/s × 24 ms (2.4 ms) / 8,000 bits.
    assert base["link"][0]["queue_pkts"] == 3000
    assert scaled["link"][0]["queue_pkts"] == 300
    # Everything but the delays and the buffer is the same.
    for k in ("node", "flow"):
        assert base[k] == scaled[k]
    # burstlab runs it, and its flows see the scaled round trip: 2 × (10 + 100 + 10) ms.
    res = burstlab.run(dumbbell(4, delay_scale=10.0).replace('duration = "1s"', 'duration = "2s"'))
    rtt = res.table("flows")["mean_rtt_s"]
    assert rtt.notna().all()
    assert rtt.min() >= 0.240


def test_cli_rejects_a_bad_scale(tmp_path: Path) -> None:
    cp = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "make_dumbbell.py"), "5",
                         "--delay-scale", "0", "--out", str(tmp_path / "d.toml")],
                        capture_output=True, text=True, check=False)
    assert cp.returncode == 2
    assert "--delay-scale: 0.0 is not positive" in cp.stderr
    assert "Traceback" not in cp.stderr
    assert not (tmp_path / "d.toml").exists()


def test_fixed_packets_family_keeps_the_buffer_and_bdp_at_every_n() -> None:
    import bench_scaling

    make = bench_scaling.FAMILIES["dumbbell-fixed-packets"]
    # The benchmark's N, and N whose scale 32 / N is not exact in binary (truncating the
    # product instead of rounding it gave 4,799 at 19, 21 and 55).
    for n in (10, 19, 21, 40, 55, 160, 320):
        sc = tomllib.loads(make(n, 1.0))
        assert len(sc["flow"]) == n
        # Delays × 32 / N: the round trip 24 ms × 32 / N, so N × 50 Mb/s of it is 4,800 packets.
        assert sc["link"][0]["queue_pkts"] == 4800, n
        assert sc["sim"]["duration"] == 1.0
    assert "dumbbell-fixed-packets" not in bench_scaling.DEFAULT_FAMILIES


def test_scaling_ratio_is_paired_by_round_and_its_interval_covers_the_median() -> None:
    import bench_scaling

    # Round k's ratio is its own two ends': a machine twice as slow in round 2 moves
    # both ends and leaves that round's ratio where it was.
    lo = [200.0, 400.0, 210.0]
    hi = [300.0, 600.0, 336.0]
    assert bench_scaling.paired_ratios(lo, hi) == [1.5, 1.5, 1.6]
    with pytest.raises(ValueError, match="as many runs"):
        bench_scaling.paired_ratios(lo, hi[:2])
    xs = [1.40, 1.55, 1.45, 1.60, 1.50, 1.48, 1.52]
    a, b = bench_scaling.bootstrap_median_interval(xs)
    assert min(xs) <= a <= 1.50 <= b <= max(xs)
    assert (a, b) == bench_scaling.bootstrap_median_interval(xs)  # seeded: repeatable
    assert bench_scaling.bootstrap_median_interval([1.7]) == (1.7, 1.7)
    # Alternate rounds reverse the order, so no point is always run first.
    pts = [("dumbbell", 10), ("dumbbell", 320), ("obs-mixed", 10)]
    assert bench_scaling.round_order(pts, 0) == pts
    assert bench_scaling.round_order(pts, 1) == pts[::-1]
