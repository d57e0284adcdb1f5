"""A scenario fuzzer: valid and nearly valid scenarios through ``validate`` and ``run``
under a time and memory budget.

    python -m burstlab.fuzz --count 200 --seed 1          # the short run (CI)
    python -m burstlab.fuzz --count 5000 --seed 7 --out fuzz-findings.jsonl
    python -m burstlab.fuzz --seed 7 --show 1234 > f.json   # replay finding #1234
    burstlab run f.json

Read first: :func:`generate` (what a scenario may look like) and :func:`classify` (what
counts as a finding). A generated scenario is either valid by construction (small
packet, dumbbell or OBS networks with TCP and UDP flows, short durations) or *nearly*
valid: one field mutated to an edge value (zero, negative, huge, NaN, wrong type, a
nonsense unit, a missing reference). Each is sent to a child process that validates and
runs it with an address-space limit; the parent enforces a wall-clock limit.

Acceptable outcomes: the run finishes, or the scenario is rejected with a
``ScenarioError`` whose message names a field (``path: reason``). Findings: the child
dies (abort, out-of-memory, a signal), exceeds the time budget, or raises anything else
(a panic surfaces as ``SimulationError``). Each finding is written with its scenario so
it can be replayed with ``burstlab run``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Budget of one scenario: wall seconds and address space (bytes) of the child.
TIME_BUDGET_S = 20.0
MEMORY_BUDGET = 2 << 30
#: Events of one scenario: the child lowers ``sim.max_events`` to this (or sets it), so
#: that a long run is refused or stopped by burstlab's own estimate and guard within
#: the time budget (a few seconds of CPU) rather than killed as a hang.
EVENT_BUDGET = 10**7

_FIELD = re.compile(r"^[A-Za-z_][\w.\[\]]*: ")


def _dur(rng: random.Random, lo_us: float, hi_us: float) -> str:
    return f"{math.exp(rng.uniform(math.log(lo_us), math.log(hi_us))):.3f}us"


def _rate(rng: random.Random, lo: float, hi: float) -> str:
    return f"{math.exp(rng.uniform(math.log(lo), math.log(hi))):.0f}b/s"


def _tcp_flow(rng: random.Random, src: str, dst: str) -> dict[str, Any]:
    f: dict[str, Any] = {"type": "tcp", "src": src, "dst": dst,
                         "variant": rng.choice(["tahoe", "reno", "newreno", "sack"]),
                         "profile": rng.choice(["ns2", "rfc"]),
                         "wm": rng.choice([2, 10, 50, 200, 1000]),
                         "mss": rng.choice(["512B", "1000B", "1460B", "9000B"])}
    if rng.random() < 0.3:
        f["b"] = rng.choice([1, 2])
    if rng.random() < 0.2:
        a = rng.randrange(0, 200)
        f["drop_segments"] = [[a, a + rng.randrange(0, 5)]]
    if rng.random() < 0.2:
        f["start"] = _dur(rng, 1, 2e6)
    if rng.random() < 0.3:
        # A modern controller: BBR's and Agent/TCP/Linux's rings were once sized by wm.
        if f["profile"] == "rfc":
            f["cc"] = rng.choice(["cubic", "highspeed", "vegas", "bbr"])
        else:
            f["cc"] = rng.choice(["cubic", "highspeed", "vegas"])
            f["variant"] = "sack"
    if rng.random() < 0.1:
        # A window near its limits (issue 56), and now and then the whole of it (or more)
        # as the initial window: sent in one event.
        f["wm"] = rng.choice([2**16, 2**31 - 1, 2**32 - 1])
        if rng.random() < 0.5:
            f["init_cwnd"] = rng.choice([f["wm"], 2**20, 1000])
    return f


def _udp_flow(rng: random.Random, src: str, dst: str) -> dict[str, Any]:
    kind = rng.choice(["cbr", "onoff"])
    f: dict[str, Any] = {"type": kind, "src": src, "dst": dst,
                         "rate": _rate(rng, 1e4, 1e9),
                         "packet_size": rng.choice(["40B", "500B", "1500B"])}
    if kind == "onoff":
        f["mean_on"] = _dur(rng, 100, 1e6)
        f["mean_off"] = _dur(rng, 100, 1e6)
    return f


def _valid(rng: random.Random) -> dict[str, Any]:
    """A scenario valid by construction, small enough to run in well under a second."""
    kind = rng.choice(["path", "dumbbell", "obs"])
    sim: dict[str, Any] = {"duration": f"{rng.uniform(0.1, 5):.3f}s",
                           "seed": rng.randrange(1 << 32)}
    if rng.random() < 0.2:
        sim["warmup"] = "0.05s"
    if rng.random() < 0.2:
        sim["trace"] = {"cwnd": True, "packets": rng.random() < 0.5}
    sc: dict[str, Any] = {"name": f"fuzz-{kind}", "sim": sim}
    link = {"rate": _rate(rng, 1e6, 1e9), "delay": _dur(rng, 1, 5e4)}
    if kind == "path":
        hops = rng.randrange(1, 5)
        names = ["s", *[f"r{i}" for i in range(hops - 1)], "d"]
        sc["node"] = [{"name": n, "kind": "host" if n in ("s", "d") else "router"}
                      for n in names]
        sc["link"] = [{"a": a, "b": b, **link} for a, b in zip(names, names[1:], strict=False)]
        if rng.random() < 0.6:
            sc["link"][-1]["loss_ab"] = rng.choice([0.0, 1e-3, 0.01, 0.1])
        if rng.random() < 0.5:
            sc["link"][-1]["queue_pkts"] = rng.choice([1, 5, 100])
        sc["flow"] = [_tcp_flow(rng, "s", "d") if rng.random() < 0.7
                      else _udp_flow(rng, "s", "d") for _ in range(rng.randrange(1, 4))]
    elif kind == "dumbbell":
        n = rng.randrange(1, 5)
        sc["node"] = ([{"name": f"s{i}", "kind": "host"} for i in range(n)]
                      + [{"name": "l"}, {"name": "r"}]
                      + [{"name": f"d{i}", "kind": "host"} for i in range(n)])
        sc["link"] = ([{"a": f"s{i}", "b": "l", **link} for i in range(n)]
                      + [{"a": "l", "b": "r", "rate": _rate(rng, 1e6, 1e8),
                          "delay": "10ms", "queue_pkts": rng.choice([2, 10, 50])}]
                      + [{"a": "r", "b": f"d{i}", **link} for i in range(n)])
        sc["flow"] = [_tcp_flow(rng, f"s{i}", f"d{i}") for i in range(n)]
    else:
        sc["node"] = [{"name": "s", "kind": "host"}, {"name": "E1", "kind": "edge"},
                      {"name": "C1", "kind": "core"}, {"name": "E2", "kind": "edge"},
                      {"name": "d", "kind": "host"}]
        sc["link"] = [{"a": "s", "b": "E1", **link}, {"a": "E2", "b": "d", **link}]
        fib = {"rate": _rate(rng, 1e8, 1e10), "delay": _dur(rng, 1, 1e4),
               "wavelengths": rng.choice([1, 2, 8])}
        sc["fibre"] = [{"a": "E1", "b": "C1", **fib}, {"a": "C1", "b": "E2", **fib}]
        asm = rng.choice([{"type": "timer", "tb": _dur(rng, 1, 1e4)},
                          {"type": "length", "max_bytes": "20KB"},
                          {"type": "hybrid", "tmax": _dur(rng, 10, 1e4), "lmax": "50KB"}])
        sc["obs"] = {"assembly": asm,
                     "classifier": rng.choice(["per_flow", "per_egress"]),
                     "ack_mode": rng.choice(["assemble", "bypass"]),
                     "scheduler": rng.choice(["ffuc", "lauc", "laucvf"]),
                     "signalling": rng.choice(["jet", "jit"])}
        if rng.random() < 0.5:
            sc["obs"]["loss"] = {"p": rng.choice([1e-3, 0.01, 0.1])}
        if rng.random() < 0.3:
            sc["obs"]["ingress"] = {"max_wait": _dur(rng, 1, 1e4)}
        if rng.random() < 0.3:
            # Checked by the child: channels sum to their fibre (_bookkeeping).
            sc["obs"]["contention"] = {"per_wavelength": True}
        sc["flow"] = [_tcp_flow(rng, "s", "d")]
        if rng.random() < 0.4:
            sc["flow"].append(_udp_flow(rng, "s", "d"))
    return sc


#: Edge values a mutation puts in place of a field.
EDGE_VALUES: list[Any] = [
    0, -1, 1, 2**31, 2**32 - 1, 2**53, 2**64 - 1, 2**64, 1e300, -1e-9, float("nan"),
    float("inf"), "", "x", "1ps", "0s", "18446744073709551615ps", "1e19b/s", "1e30b/s",
    "10GB", "-5ms", "NaNs", "4294967295B", "1TiB", None, True, [], {}, "s", "nosuchnode",
]


def _leaves(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in _leaves(v, (*path, k))] or [path]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in _leaves(v, (*path, i))] or [path]
    return [path]


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for k in path[:-1]:
        obj = obj[k]
    if value is _DELETE and isinstance(obj, dict):
        obj.pop(path[-1], None)
    elif value is not _DELETE:
        obj[path[-1]] = value


_DELETE = object()


def _contradict(rng: random.Random, sc: dict[str, Any], choice: int | None = None) -> None:
    """Puts one pair of settings with an order or containment relation out of order
    (start/stop, trace window, warm-up/duration, min/max RTO, initial/maximum window,
    drop ranges and transfer length, hybrid lmin/lmax), asks for far too many events
    (picosecond on-off periods, a UDP flood over a long run, a tiny sim.max_events) or
    too much memory (a window of 2^32 − 1 segments sent at once, or over a long run
    without queue limits), or sets what can never act (preemption with every burst
    in one class). ``choice`` picks the case (0–11; drawn when None)."""
    sim = sc["sim"]
    flow = rng.choice(sc["flow"])
    drawn = rng.randrange(12)
    choice = drawn if choice is None else choice
    if choice == 0:
        flow["start"], flow["stop"] = "2s", rng.choice(["1s", "2s"])
    elif choice == 1:
        sim["trace"] = {"cwnd": True, "start": "1s", "end": rng.choice(["0.5s", "1s", "0s"])}
    elif choice == 2:
        sim["warmup"] = sim["duration"] if rng.random() < 0.5 else "1000s"
    elif choice == 3 and flow.get("type") == "tcp":
        flow["min_rto"], flow["max_rto"] = "2s", "1s"
    elif choice == 4 and flow.get("type") == "tcp":
        flow["wm"], flow["init_cwnd"] = 4, 8
    elif choice == 5 and flow.get("type") == "tcp":
        flow["segments"], flow["drop_segments"] = 10, [[50, 60]]
    elif choice == 6 and isinstance(sc.get("obs"), dict):
        sc["obs"]["assembly"] = {"type": "hybrid", "tmax": "1ms", "lmax": "10KB",
                                 "lmin": "20KB"}
    elif choice == 9 and flow.get("type") == "tcp":
        flow["wm"] = flow["init_cwnd"] = 2**32 - 1
    elif choice == 10 and flow.get("type") == "tcp":
        flow["wm"] = 2**32 - 1
        flow.pop("init_cwnd", None)
        for link in sc["link"]:
            link.pop("queue_pkts", None)
        sim["duration"] = "1000s"
    elif choice == 11 and isinstance(sc.get("obs"), dict):
        sc["obs"]["classifier"] = "per_egress"
        sc["obs"]["class"] = [{"priority": 0}, {"priority": 1}]
        sc["obs"]["contention"] = {"preemption": "full"}
    elif choice == 7:
        sc["flow"].append({"type": "onoff", "src": flow["src"], "dst": flow["dst"],
                           "rate": "1Mb/s", "mean_on": rng.choice(["1ps", "1ns", "3ps"]),
                           "mean_off": rng.choice(["1ps", "1ns"])})
        sim["duration"] = rng.choice(["10s", "1000s"])
    else:
        sim["max_events"] = rng.choice([1000, 5000, 1e4])
        sim["duration"] = "100s"


def generate(rng: random.Random, nearly_valid: float = 0.5) -> dict[str, Any]:
    """One scenario: valid, or (with probability ``nearly_valid``) valid but for one or
    two fields set to an edge value or deleted, or (a quarter of those) two settings
    that contradict each other or a run far too long (:func:`_contradict`)."""
    sc = _valid(rng)
    if rng.random() < nearly_valid:
        if rng.random() < 0.25:
            _contradict(rng, sc)
            return sc
        for _ in range(rng.choice([1, 1, 2])):
            leaves = [p for p in _leaves(sc) if p]
            path = rng.choice(leaves)
            value = _DELETE if rng.random() < 0.1 else rng.choice(EDGE_VALUES)
            _set(sc, path, value)
    return sc


def scenario_at(seed: int, index: int, nearly_valid: float = 0.5) -> dict[str, Any]:
    """The scenario number ``index`` (from 0) of the run with generator seed ``seed``:
    what a finding's ``seed`` and ``index`` name (the generator draws them in order)."""
    rng = random.Random(seed)
    for _ in range(index):
        generate(rng, nearly_valid)
    return generate(rng, nearly_valid)


def _cap_events(text: str) -> str:
    """The scenario with ``sim.max_events`` at most :data:`EVENT_BUDGET` (a value that is
    not a number is left for the validator to refuse)."""
    try:
        sc = json.loads(text)
    except ValueError:
        return text
    sim = sc.get("sim") if isinstance(sc, dict) else None
    if not isinstance(sim, dict):
        return text
    v = sim.get("max_events", EVENT_BUDGET)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v:
        sim["max_events"] = min(v, EVENT_BUDGET)
        return json.dumps(sc, allow_nan=True)
    return text


def _bookkeeping(res: dict[str, Any]) -> str:
    """A documented equality the result breaks, or "": summed over a fibre's
    wavelengths, ``obs_channels`` gives the fibre's ``bursts_scheduled`` in ``obs_links``
    (docs/topics/contention.md)."""
    channels = json.loads(res.get("obs_channels") or "[]")
    if not channels:
        return ""
    per_fibre: Counter[int] = Counter()
    for c in channels:
        per_fibre[c["fibre"]] += c["bursts_scheduled"]
    for link in json.loads(res.get("obs_links") or "[]"):
        if per_fibre[link["fibre"]] != link["bursts_scheduled"]:
            return (f"fibre {link['fibre']} ({link['from']}->{link['to']}) scheduled "
                    f"{link['bursts_scheduled']} bursts, its wavelengths "
                    f"{per_fibre[link['fibre']]}")
    return ""


def _child(conn: Any) -> None:
    """Runs scenarios sent through ``conn`` under an address-space limit."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BUDGET, MEMORY_BUDGET))
    from burstlab import _core

    while True:
        text = conn.recv()
        if text is None:
            return
        text = _cap_events(text)
        try:
            _core.validate(text, "json")
            bad = _bookkeeping(_core.run(text, "json", None, None))
            conn.send(("exception", f"bookkeeping: {bad}") if bad else ("ok", ""))
        except _core.ScenarioError as e:
            conn.send(("rejected", str(e)))
        except BaseException as e:  # noqa: BLE001 - a panic (SimulationError) is a finding
            conn.send(("exception", f"{type(e).__name__}: {e}"))


@dataclass
class Outcome:
    kind: str  # ok | rejected | finding
    detail: str


def classify(status: str, detail: str) -> Outcome:
    """``rejected`` must name a field (``path: reason``); anything but ok/rejected is a
    finding."""
    if status == "ok":
        return Outcome("ok", "")
    if status == "rejected":
        if _FIELD.match(detail) or detail.startswith(("malformed", "scenario")):
            return Outcome("rejected", detail)
        return Outcome("finding", f"rejection without a field name: {detail}")
    return Outcome("finding", detail)


class Runner:
    """A child process kept alive across scenarios, restarted after a death or a hang."""

    def __init__(self) -> None:
        self.ctx = mp.get_context("spawn")
        self.proc: Any = None
        self.conn: Any = None

    def _start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_child, args=(child,), daemon=True)
        self.proc.start()
        self.conn = parent

    def run(self, scenario: dict[str, Any], budget_s: float = TIME_BUDGET_S) -> Outcome:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        try:
            text = json.dumps(scenario, allow_nan=True)
        except (TypeError, ValueError) as e:
            return Outcome("rejected", f"scenario: not JSON ({e})")
        self.conn.send(text)
        if not self.conn.poll(budget_s):
            self.proc.kill()
            self.proc.join()
            self.proc = None
            return Outcome("finding", f"hang: no answer within {budget_s:g} s")
        try:
            status, detail = self.conn.recv()
        except EOFError:
            self.proc.join()
            code = self.proc.exitcode
            self.proc = None
            return Outcome("finding", f"crash: the process died (exit code {code})")
        return classify(status, detail)

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(5)


def fuzz(count: int, seed: int, out: Path | None = None, *, budget_s: float = TIME_BUDGET_S,
         nearly_valid: float = 0.5, progress: bool = False) -> Counter[str]:
    """Runs ``count`` generated scenarios; returns the outcome counts and writes each
    finding (with its scenario) as a JSON line to ``out``."""
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    runner = Runner()
    sink = out.open("w", encoding="utf-8") if out else None
    t0 = time.monotonic()
    try:
        for i in range(count):
            sc = generate(rng, nearly_valid)
            res = runner.run(sc, budget_s)
            counts[res.kind] += 1
            if res.kind == "finding":
                line = json.dumps({"index": i, "seed": seed, "finding": res.detail,
                                   "scenario": sc}, default=str)
                print(f"finding #{i}: {res.detail[:200]}", file=sys.stderr)
                if sink:
                    sink.write(line + "\n")
                    sink.flush()
            if progress and (i + 1) % 50 == 0:
                print(f"{i + 1}/{count} scenarios, {dict(counts)}, "
                      f"{time.monotonic() - t0:.0f} s", file=sys.stderr)
    finally:
        runner.close()
        if sink:
            sink.close()
    return counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m burstlab.fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=200, help="scenarios (default 200)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--out", type=Path, default=None, help="JSON lines of the findings")
    p.add_argument("--budget", type=float, default=TIME_BUDGET_S,
                   help=f"wall seconds per scenario (default {TIME_BUDGET_S:g})")
    p.add_argument("--show", type=int, default=None, metavar="INDEX",
                   help="print scenario INDEX of the run with --seed as JSON (to replay a "
                        "finding: --show INDEX > f.json; burstlab run f.json) and exit")
    args = p.parse_args(argv)
    if args.show is not None:
        print(json.dumps(scenario_at(args.seed, args.show), indent=2))
        return 0
    counts = fuzz(args.count, args.seed, args.out, budget_s=args.budget, progress=True)
    print(f"burstlab fuzz: {args.count} scenarios (seed {args.seed}): {counts['ok']} ran, "
          f"{counts['rejected']} rejected with a field named, {counts['finding']} findings")
    return 1 if counts["finding"] else 0


if __name__ == "__main__":
    sys.exit(main())
