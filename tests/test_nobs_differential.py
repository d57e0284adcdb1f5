"""burstlab's OBS layer against nOBS v2.1 (ns-2.35 with the Bilkent OBS extension).

Deterministic scenarios must agree burst by burst (send time at the ingress, arrival of
the tail at each node, size, fate) to nOBS's 1 µs trace precision, and on every TCP
segment sent (number, retransmission flag, time). `make nobs` builds nOBS from
../shared/refsim into target/nobs (or set BURSTLAB_NOBS); without it these tests skip
and say why. What is compared, and what nOBS does differently, is docs/topics/nobs.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _nobs_scenarios import edge_core_edge, two_sources

import burstlab
from burstlab.export import export_nobs
from burstlab.export.nobstrace import (
    burstlab_bursts,
    default_binary,
    nobs_binary,
    nobs_bursts,
    run_nobs,
)
from burstlab.export.ns2trace import burstlab_sends, first_divergence, ns2_sends
from burstlab.units import parse_rate, parse_time


def _why_no_nobs() -> str:
    note = default_binary().parents[1] / "UNAVAILABLE"
    why = note.read_text().strip() if note.exists() else "not built"
    return f"nOBS unavailable ({why}); `make nobs` builds it from ../shared/refsim"


needs_nobs = pytest.mark.skipif(nobs_binary() is None, reason=_why_no_nobs())

#: nOBS's trace prints times to 1 µs (trace/basetrace.h PRECISION): rounding error
#: <= 0.5 µs, plus floating-point sums far below that.
TRACE_TOL_S = 5.01e-7


def _both(spec: dict[str, Any], tmp: Path, drop_as: str = "data") -> tuple[Any, Any, Any]:
    script = export_nobs(spec, trace="trace.tr", drop_as=drop_as)
    nb = run_nobs(script, workdir=tmp, trace=True)
    s = dict(spec)
    s["sim"] = {**spec["sim"], "trace": {"packets": True, "bursts": True}}
    res = burstlab.run(s)
    return script, nb, res


def _burst_tables(spec: dict[str, Any], script: Any, nb: Any, res: Any,
                  flow: int = 0) -> tuple[Any, Any]:
    names = script.paths[flow]
    path = [script.node_ids[n] for n in names]
    fib = {(str(f["a"]), str(f["b"])): f for f in spec["fibre"]}
    fib.update({(str(f["b"]), str(f["a"])): f for f in spec["fibre"]})
    def delay(f: dict[str, Any]) -> float:  # the core's 5 us/km for a length_km fibre
        return parse_time(f["delay"]) if "delay" in f else float(f["length_km"]) * 5e-6

    delays = [delay(fib[(a, b)]) for a, b in zip(names, names[1:], strict=False)]
    rate = parse_rate(spec["fibre"][0]["rate"])
    b = res.bursts
    row = b[(b.edge == names[0]) & (b.egress == names[-1])]
    if (row.flow == flow).any():
        row = row[row.flow == flow]
    q, offset = int(row["queue"].iloc[0]), float(row["offset_s"].iloc[0])
    ours = burstlab_bursts(res.burst_trace, q, offset, delays, rate)
    per_flow = spec["obs"].get("classifier", "per_flow") == "per_flow"
    theirs = nobs_bursts(nb.trace, path, flow if per_flow else None)
    return ours, theirs


def _assert_same_bursts(ours: Any, theirs: Any, hops: int) -> None:
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    assert len(ours) > 10
    np.testing.assert_array_equal(ours.bytes.to_numpy(), theirs.bytes.to_numpy())
    np.testing.assert_array_equal(ours.fate.to_numpy(), theirs.fate.to_numpy())
    cols = ["bcp_time_s", "send_time_s"]
    for c in cols:
        np.testing.assert_allclose(ours[c], theirs[c], rtol=0, atol=TRACE_TOL_S, err_msg=c)
    ok = theirs.fate == "delivered"
    for j in range(1, hops + 1):
        c = f"arrive_{j}_s"
        np.testing.assert_allclose(ours.loc[ok, c], theirs.loc[ok, c], rtol=0,
                                   atol=TRACE_TOL_S, err_msg=c)


def _assert_same_sends(nb: Any, res: Any, src: int, flow: int = 0) -> int:
    a = ns2_sends(nb.trace, src, flow)
    b = burstlab_sends(res.packets, flow)
    d = first_divergence(a, b)
    assert d is None, d
    return len(a)


def lost_in_both(spec: dict[str, Any], tmp: Path) -> tuple[int, Any]:
    """Runs the two-flow contention scenario ``spec`` (TCP flow 0 from ``src``, UDP flow
    1) in both simulators, asserts that both flows' bursts agree burst by burst, that the
    TCP sends agree and that the UDP flow delivers as many segments in both; returns the
    bursts lost (both flows) and burstlab's result."""
    script, nb, res = _both(spec, tmp)
    lost = 0
    for flow in (0, 1):
        ours, theirs = _burst_tables(spec, script, nb, res, flow)
        _assert_same_bursts(ours, theirs, hops=2)
        lost += int((ours.fate == "lost").sum())
    _assert_same_sends(nb, res, script.node_ids["src"], 0)
    assert nb.flows[1].acked_segments == int(res.flows.segments_delivered.iloc[1])
    return lost, res


CASES = {
    "timer": ({}, "data"),
    "timer_lost_burst": ({"drop_burst": [{"edge": "E0", "queue": "f0", "bursts": [4, 30]}]},
                         "data"),
    "timer_lost_control": ({"drop_burst": [{"edge": "E0", "queue": "f0",
                                            "bursts": [4, 30]}]}, "control"),
    # A TCP flow alone never fills a volume threshold (its SYN waits for ever, in both
    # simulators): the length cases carry a constant-rate UDP flow.
    "length_bytes": ({"assembly": {"type": "length", "max_bytes": "5000B"}}, "data"),
    "length_pkts": ({"assembly": {"type": "length", "max_pkts": 3}}, "data"),
    "hybrid": ({"assembly": {"type": "hybrid", "tmax": "1ms", "lmax": "20000B"}}, "data"),
    "jet_type0": ({"switch_setup": "0s"}, "data"),
}


@needs_nobs
@pytest.mark.parametrize("case", list(CASES))
def test_one_flow_burst_timeline_and_sends(case: str, tmp_path: Path) -> None:
    obs, drop_as = CASES[case]
    spec = edge_core_edge(**obs)
    if case.startswith("length"):
        spec["flow"] = [{"name": "f0", "type": "cbr", "src": "src", "dst": "dst",
                         "rate": "30Mb/s", "packet_size": "1000B"}]
    script, nb, res = _both(spec, tmp_path, drop_as)
    ours, theirs = _burst_tables(spec, script, nb, res)
    _assert_same_bursts(ours, theirs, hops=2)
    if case.startswith("length"):
        assert nb.flows[0].acked_segments == int(res.flows.segments_delivered.iloc[0])
        return
    n = _assert_same_sends(nb, res, script.node_ids["src"])
    assert n > 100
    if "drop_burst" in obs:
        assert (ours.fate == "lost").sum() == 2
        assert int(res.flows.retransmits.iloc[0]) > 0
    fl = res.flows.iloc[0]
    assert nb.flows[0].data_packets == int(fl.segments_sent)
    assert nb.flows[0].retransmitted_packets == int(fl.retransmits)


@needs_nobs
@pytest.mark.parametrize("wavelengths", [1, 2])
def test_two_flows_share_the_fibres(wavelengths: int, tmp_path: Path) -> None:
    spec = two_sources(wavelengths=wavelengths)
    script, nb, res = _both(spec, tmp_path)
    for flow, src in ((0, "src"), (1, "src2")):
        ours, theirs = _burst_tables(spec, script, nb, res, flow)
        _assert_same_bursts(ours, theirs, hops=2)
        _assert_same_sends(nb, res, script.node_ids[src], flow)


@needs_nobs
@pytest.mark.parametrize(("wavelengths", "conversion"), [(1, False), (2, False), (2, True)])
def test_contention_with_a_cbr_source_is_identical(wavelengths: int, conversion: bool,
                                                   tmp_path: Path) -> None:
    """The contention scenario with a constant-rate UDP source instead of the on/off one:
    deterministic, so the same TCP and UDP bursts must lose to contention at C1 in both
    simulators (LAUC-VF, the later BCP losing), burst by burst. With two wavelengths and
    no conversion both ingresses pick the same wavelength on their empty first fibres,
    so the bursts still meet at C1; with conversion the second wavelength takes them."""
    from _nobs_scenarios import contention_cbr

    lost, _ = lost_in_both(contention_cbr(wavelengths, conversion), tmp_path)
    if conversion:
        assert lost == 0  # two bursts at a time fit two wavelengths
    else:
        assert lost >= 10  # contention happened (8 TCP and 8 UDP bursts at 5 s)


@needs_nobs
def test_ozsarac_linear_with_a_cbr_burst_is_identical(tmp_path: Path) -> None:
    """ozsarac's linear topology (per-egress queues, per-edge timers 2 ms and 4 ms, ACKs
    bypassing assembly: nOBS's ackdontburst 1) with its on/off source replaced by one
    20 ms CBR period at 500 Mb/s: both flows' bursts and the FTP flow's segments are the
    same in both simulators."""
    from burstlab.topologies import ozsarac_linear

    spec = ozsarac_linear("2ms", duration="1s", seed=1)
    spec["flow"][1] = {"name": "realtime", "type": "cbr", "src": "rt_server",
                       "dst": "rt_client", "rate": "500Mb/s", "packet_size": "1040B",
                       "start": "0.3s", "stop": "0.32s"}
    script, nb, res = _both(spec, tmp_path)
    ours, theirs = _burst_tables(spec, script, nb, res, 0)
    _assert_same_bursts(ours, theirs, hops=3)
    n = _assert_same_sends(nb, res, script.node_ids["ftp_server"], 0)
    assert n > 10_000
    assert int(res.flows.segments_delivered.iloc[1]) == nb.flows[1].acked_segments > 1000


@needs_nobs
def test_ozsarac_linear_with_replayed_on_off_periods_is_identical(tmp_path: Path) -> None:
    """ozsarac's linear topology with its on/off source's periods drawn once (exponential,
    mean on 10 ms, off 990 ms, numpy's generator seeded 5) and replayed in both
    simulators as CBR flows at 500 Mb/s: contention on C1 -> C2 then loses the same
    FTP bursts in both, and Reno retransmits and times out alike. (With the on/off
    source itself the periods come from different generators: the random runs of
    nobs_ozsarac differ by seed, not on average.)"""
    from burstlab.topologies import ozsarac_linear

    spec = ozsarac_linear("2ms", duration="10s", seed=1)
    spec["sim"]["max_memory"] = "1000GiB"  # the CBR flows take turns; none overloads
    rng = np.random.default_rng(5)
    t, flows = 0.0, [spec["flow"][0]]
    while t < 10:
        t += rng.exponential(0.99)
        on = rng.exponential(0.01)
        flows.append({"name": f"u{len(flows)}", "type": "cbr", "src": "rt_server",
                      "dst": "rt_client", "rate": "500Mb/s", "packet_size": "1040B",
                      "start": f"{t:.6f}s", "stop": f"{t + on:.6f}s"})
        t += on
    spec["flow"] = flows
    script = export_nobs(spec, trace="trace.tr", trace_fibres_only=True)
    nb = run_nobs(script, workdir=tmp_path, trace=True)
    res = burstlab.run({**spec, "sim": {**spec["sim"], "trace": {"bursts": True}}})
    ours, theirs = _burst_tables(spec, script, nb, res, 0)
    _assert_same_bursts(ours, theirs, hops=3)
    assert (ours.fate == "lost").sum() >= 5
    fl = res.flows.iloc[0]
    assert nb.flows[0].retransmitted_packets == int(fl.retransmits) > 0
    assert nb.flows[0].timeouts == int(fl.to_events)
    assert nb.flows[0].data_packets == int(fl.segments_sent)


# ---------------------------------------------------------------- finite transfers
#
# A finite flow (``segments = N``) ends when the ACK of its last segment reaches its
# sender: burstlab's ``res.fct`` and nOBS's agent's ``done`` (printed at full precision,
# not through the 1 µs trace). On these deterministic paths the sends agree segment by
# segment, so the completion times agree to the suite's tolerance for a segment's time
# (TRACE_TOL_S); measured, they differ by at most 1.7e-14 s (floating-point rounding of
# nOBS's clock against burstlab's integer picoseconds).


def _assert_same_fct(spec: dict[str, Any], nb: Any, res: Any) -> Any:
    fct = res.fct.set_index("flow")
    for i, f in enumerate(spec["flow"]):
        if "segments" not in f:
            assert i not in fct.index and i not in nb.ends
            continue
        assert bool(fct.at[i, "completed"]), f"flow {i} did not complete in burstlab"
        assert i in nb.ends, f"flow {i} did not complete in nOBS"
        ours = float(fct.at[i, "fct_s"])
        theirs = nb.ends[i] - parse_time(f.get("start", 0))
        assert abs(ours - theirs) <= TRACE_TOL_S, (i, ours, theirs)
    return fct


@needs_nobs
@pytest.mark.parametrize("case", ["lossless", "lost", "delayed_ack"])
def test_one_finite_flow_completes_at_the_same_time(case: str, tmp_path: Path) -> None:
    """One Reno transfer of 400 segments over the edge–core–edge path: lossless; with
    data bursts 4 and 30 dropped (fast retransmit and two timeouts in both); and of 401
    segments to a delayed-ACK sink, whose odd last segment waits for the sink's timer
    (100 ms in both)."""
    lost = case == "lost"
    obs = {"drop_burst": [{"edge": "E0", "queue": "f0", "bursts": [4, 30]}]} if lost else {}
    spec = edge_core_edge(**obs)
    spec["sim"]["duration"] = "5s"
    spec["flow"][0]["segments"] = 400
    if case == "delayed_ack":
        spec["flow"][0].update(segments=401, b=2)
    script, nb, res = _both(spec, tmp_path)
    ours, theirs = _burst_tables(spec, script, nb, res)
    _assert_same_bursts(ours, theirs, hops=2)
    n = int(spec["flow"][0]["segments"])
    assert _assert_same_sends(nb, res, script.node_ids["src"]) == n + 1 + (39 if lost else 0)
    fct = _assert_same_fct(spec, nb, res)
    if lost:
        assert int(fct.at[0, "to_events"]) == nb.flows[0].timeouts == 2
        assert float(fct.at[0, "slowdown"]) > 3
    else:
        # Alone and lossless: both equal burstlab's closed-form ideal (world/fct.rs).
        assert abs(nb.ends[0] - float(fct.at[0, "ideal_fct_s"])) <= TRACE_TOL_S


@needs_nobs
def test_a_finite_flow_with_acks_bypassing_assembly(tmp_path: Path) -> None:
    """ozsarac's linear topology (per-egress queues, ACKs bypassing assembly: nOBS's
    ackdontburst 1) with its FTP flow made a 3 000-segment transfer and no UDP source:
    the ACKs do not queue, so the two ACK-bypass models (docs/topics/nobs.md) agree."""
    from burstlab.topologies import ozsarac_linear

    spec = ozsarac_linear("2ms", duration="2s", seed=1)
    spec["flow"] = [{**spec["flow"][0], "segments": 3000}]
    script, nb, res = _both(spec, tmp_path)
    ours, theirs = _burst_tables(spec, script, nb, res, 0)
    _assert_same_bursts(ours, theirs, hops=3)
    assert _assert_same_sends(nb, res, script.node_ids["ftp_server"], 0) == 3001
    _assert_same_fct(spec, nb, res)


@needs_nobs
@pytest.mark.parametrize("wavelengths", [1, 2])
def test_two_finite_flows_complete_at_the_same_times(wavelengths: int,
                                                     tmp_path: Path) -> None:
    spec = two_sources(duration="3s", wavelengths=wavelengths)
    spec["flow"][0]["segments"] = 2000
    spec["flow"][1]["segments"] = 1500
    script, nb, res = _both(spec, tmp_path)
    for flow, src in ((0, "src"), (1, "src2")):
        ours, theirs = _burst_tables(spec, script, nb, res, flow)
        _assert_same_bursts(ours, theirs, hops=2)
        _assert_same_sends(nb, res, script.node_ids[src], flow)
    fct = _assert_same_fct(spec, nb, res)
    assert 0.5 < float(fct.at[1, "fct_s"]) < float(fct.at[0, "fct_s"]) < 2.0


@needs_nobs
def test_a_graph_file_scenario_exports_and_completes_alike(tmp_path: Path) -> None:
    """examples/graph_network.toml names its network as a GML graph (five cities,
    fibres of great-circle km, routes by km): its finite transfer and an infinite flow
    on another route send the same segments in both simulators, and the transfer
    completes at the same time."""
    spec = burstlab.load_scenario(ROOT / "examples" / "graph_network.toml")
    script, nb, res = _both(spec, tmp_path)
    for flow, src in ((0, "H_Hamburg_1"), (1, "H_Cologne_1")):
        ours, theirs = _burst_tables(spec, script, nb, res, flow)
        _assert_same_bursts(ours, theirs, hops=len(script.paths[flow]) - 1)
        _assert_same_sends(nb, res, script.node_ids[src], flow)
    assert script.paths[0] == ["E_Hamburg", "Hamburg", "Berlin", "Munich", "E_Munich"]
    _assert_same_fct(spec, nb, res)


@needs_nobs
def test_an_unfinished_flow_has_no_completion_time_in_either(tmp_path: Path) -> None:
    spec = edge_core_edge(drop_burst=[{"edge": "E0", "queue": "f0", "bursts": [4, 30]}])
    spec["flow"][0]["segments"] = 1000  # needs 2.2 s; the run is 2 s
    _, nb, res = _both(spec, tmp_path)
    assert not bool(res.fct.completed.iloc[0]) and 0 not in nb.ends
    assert nb.flows[0].data_packets == int(res.flows.segments_sent.iloc[0]) < 1000


# ---------------------------------------------------------------- random contention
#
# Why the tolerance is what it is (as tests/test_ns2_random_loss.py). The UDP source's
# on/off periods come from different generators, so one seed gives the two simulators
# different contention; each quantity is compared as two independent samples of N runs.
# The difference of the means has standard error SE = sqrt(s_b²/N + s_n²/N); it passes
# when |mean_b − mean_n| ≤ 3.29·SE (two-sided 99.9 % normal quantile: a 0.1 % false
# alarm per quantity were both simulators the same), and it must resolve: 3.29·SE at
# most 35 % of nOBS's mean. Both simulators are deterministic per seed: not flaky.
#
# The UDP rate is 77 Mb/s, not 80: at 80 Mb/s a 1000-byte packet arrives every 100 µs
# and the 2 ms timer expires exactly on a packet's arrival in every on period, a tie that
# burstlab's half-open cycle gives to the next burst and nOBS's floating-point clock to
# either (docs/topics/nobs.md, "Ties at the timer").
CONTENTION_SEEDS = range(9, 25)
Z = 3.29


@pytest.fixture(scope="module")
def contention_runs() -> Any:
    import pandas as pd
    from _nobs_scenarios import contention

    from burstlab.export.nobstrace import compare

    rows = []
    for seed in CONTENTION_SEEDS:
        df = compare(contention(seed, udp_rate="77Mb/s"))
        df["seed"] = seed
        rows.append(df)
    d = pd.concat(rows)
    d["loss_burstlab"] = d.bursts_lost_burstlab / d.data_bursts_burstlab
    d["loss_nobs"] = d.bursts_lost_nobs / d.data_bursts_nobs
    both = d.groupby("seed")[["bursts_lost_burstlab", "data_bursts_burstlab",
                              "bursts_lost_nobs", "data_bursts_nobs"]].sum()
    both["loss_burstlab"] = both.bursts_lost_burstlab / both.data_bursts_burstlab
    both["loss_nobs"] = both.bursts_lost_nobs / both.data_bursts_nobs
    both["name"] = "all"
    return pd.concat([d, both.reset_index()])


def _agree(d: Any, name: str, col: str) -> None:
    x = d[d.name == name]
    b, n = x[f"{col}_burstlab"], x[f"{col}_nobs"]
    se = float(np.sqrt(b.var() / len(b) + n.var() / len(n)))
    diff = float(b.mean() - n.mean())
    msg = (f"{name} {col}: burstlab {b.mean():.5g}, nOBS {n.mean():.5g}, "
           f"difference {diff:.3g} = {diff / se:.2f} SE over {len(b)} seeds")
    assert Z * se <= 0.35 * float(n.mean()), "does not resolve: " + msg
    assert abs(diff) <= Z * se, msg


@needs_nobs
@pytest.mark.parametrize(("name", "col"), [
    ("tcp", "loss"), ("all", "loss"), ("tcp", "goodput_segps"), ("udp", "goodput_segps"),
])
def test_random_contention_agrees(contention_runs: Any, name: str, col: str) -> None:
    _agree(contention_runs, name, col)


# ---------------------------------------------------------------- the CLI

ROOT = Path(__file__).resolve().parents[1]


@needs_nobs
def test_cli_compare_on_the_examples() -> None:
    import subprocess
    import sys

    cli = [sys.executable, "-m", "burstlab.cli", "export", "nobs"]
    p = subprocess.run([*cli, str(ROOT / "examples" / "nobs_edge_core_edge.toml"),
                        "--compare"], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    rows = dict(line.split(None, 1) for line in p.stdout.splitlines()[1:])
    # One injected data-burst loss; both simulators send the same segments.
    assert rows["bursts_lost_burstlab"].strip() == rows["bursts_lost_nobs"].strip() == "1"
    assert rows["segments_sent_burstlab"].strip() == rows["segments_sent_nobs"].strip()
    # The README's OBS example: 10 GB/s fibres, 100 s. nOBS aborts past 64 s on its own
    # floating-point check (the error says so); 30 s compare.
    yu = str(ROOT / "examples" / "yu_path.toml")
    p = subprocess.run([*cli, yu, "--compare"], capture_output=True, text=True, check=False)
    assert p.returncode == 2 and "BIG PROBLEM: wrong delay" in p.stderr
    assert "Traceback" not in p.stderr
    p = subprocess.run([*cli, yu, "--compare", "--duration", "30s"], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert "data_bursts_nobs" in p.stdout


@needs_nobs
def test_cli_compare_prints_completion_times(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    spec = two_sources()
    spec["flow"][0]["segments"] = 300  # the other flow is infinite
    path = tmp_path / "finite.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "burstlab.cli", "export", "nobs", str(path),
                        "--compare"], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    rows = {k: v.split() for k, v in (line.split(None, 1)
                                      for line in p.stdout.splitlines()[1:])}
    assert rows["size_segments"] == ["300", "NaN"]
    assert rows["fct_s_burstlab"][0] == rows["fct_s_nobs"][0] == "0.285551"
    assert rows["fct_s_burstlab"][1] == rows["fct_s_nobs"][1] == "NaN"


@needs_nobs
def test_ozsarac_runner_rows(tmp_path: Path) -> None:
    from burstlab.export.nobs_ozsarac import run_pair

    rows = run_pair("2ms", 1, 0.5, workdir=tmp_path)
    assert [r["simulator"] for r in rows] == ["burstlab", "nobs"]
    for r in rows:
        assert r["tb_ms"] == 2.0 and r["goodput_mbps"] > 0 and r["data_bursts"] > 100
    settled = run_pair("2ms", 1, 0.5, workdir=tmp_path, warmup=0.25)
    for r, whole in zip(settled, rows, strict=True):
        assert r["duration_s"] == 0.25 and 0 < r["data_bursts"] < whole["data_bursts"]
    # nOBS's counters at the warm-up's end were read then, not when scheduled.
    assert settled[1]["goodput_mbps"] * 0.25 < rows[1]["goodput_mbps"] * 0.5
