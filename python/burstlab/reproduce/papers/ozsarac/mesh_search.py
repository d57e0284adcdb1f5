"""The search for a reading of ozsarac's fig. 2 whose flows share the goodput as Table 2
does (every flow 5.48–21.05 % under CWBA), run with
``python -m burstlab.reproduce.papers.ozsarac.mesh_search [SECONDS] [START_SETS]``.

Read first: :func:`least_shared_routes` (how a candidate's routes are chosen), then
:data:`CANDIDATES` and :func:`shares`. Each candidate is a core graph and where the edges
attach (burstlab's choices: fig. 2 is not in the text) with the routes of
:func:`least_shared_routes`, or a reading of :data:`.topology.MESH_READINGS`, and the
edge fibres' wavelengths. For each it prints every flow's share of the total goodput
under CWBA and under the timer at the paper's AP_opt (26 ms, 10 % jitter), per start
set (:func:`.experiments.mesh_starts`). docs/reproductions/ozsarac.md gives the results.
"""

from __future__ import annotations

import itertools
import sys
import time
from dataclasses import dataclass

import burstlab
from burstlab.reproduce.papers.ozsarac.experiments import mesh_starts
from burstlab.reproduce.papers.ozsarac.topology import (
    _RING,
    MESH_READINGS,
    MeshReading,
    assembly,
    mesh,
)

#: Flow i's ingress and egress edges (S1–S3 at N9, …; D1, D4, D7 at N12, …).
INGRESS = {i: f"N{9 + (i - 1) // 3}" for i in range(1, 10)}
EGRESS = {i: f"N{12 + (i - 1) % 3}" for i in range(1, 10)}


def _paths(adj: dict[str, set[str]], a: str, b: str, hops: int) -> list[list[str]]:
    out: list[list[str]] = []

    def go(p: list[str]) -> None:
        if p[-1] == b:
            out.append(p)
            return
        if len(p) - 1 < hops:
            for n in sorted(adj[p[-1]]):
                if n not in p:
                    go([*p, n])

    go([a])
    return out


def least_shared_routes(core: tuple[tuple[str, str], ...], attach: dict[str, str],
                        extra_hops: int = 1, per_flow: int = 6) -> dict[int, list[str]]:
    """Routes for the nine flows over ``core`` with the edges at ``attach``: for each
    flow its ``per_flow`` shortest simple core paths at most ``extra_hops`` longer than
    its shortest; of all combinations, the one whose busiest directed core fibre carries
    the fewest flows, then with the fewest hops, then using the most fibres."""
    adj: dict[str, set[str]] = {}
    for u, v in core:
        adj.setdefault(u, set()).add(v)
        adj.setdefault(v, set()).add(u)
    opts = []
    for i in range(1, 10):
        a, b = attach[INGRESS[i]], attach[EGRESS[i]]
        ps = _paths(adj, a, b, len(adj))
        short = min(len(p) for p in ps)
        ps = sorted((p for p in ps if len(p) <= short + extra_hops), key=lambda p: (len(p), p))
        opts.append(ps[:per_flow])
    best: tuple[tuple[int, int, int], tuple[list[str], ...]] | None = None
    for combo in itertools.product(*opts):
        load: dict[tuple[str, str], int] = {}
        for p in combo:
            for u, v in zip(p, p[1:], strict=False):
                load[(u, v)] = load.get((u, v), 0) + 1
        key = (max(load.values()), sum(len(p) for p in combo), -len(load))
        if best is None or key < best[0]:
            best = (key, combo)
    assert best is not None
    return {i: [INGRESS[i], *best[1][i - 1], EGRESS[i]] for i in range(1, 10)}


@dataclass(frozen=True)
class Candidate:
    """A reading tried: the mesh and the edge fibres' wavelengths."""

    name: str
    reading: MeshReading
    edge_wavelengths: int = 3


def _derived(name: str, core: tuple[tuple[str, str], ...], attach: dict[str, str]
             ) -> MeshReading:
    return MeshReading(name, core, attach, least_shared_routes(core, attach),
                       "least_shared_routes")


_CHORDS = _RING + (("N1", "N5"), ("N3", "N7"))
_ALTERNATE = {"N9": "N1", "N10": "N4", "N11": "N7", "N12": "N3", "N13": "N5", "N14": "N8"}

#: The readings tried (docs/reproductions/ozsarac.md).
CANDIDATES: tuple[Candidate, ...] = (
    Candidate("ring-chords", MESH_READINGS["ring-chords"]),
    Candidate("ring-chords, 1 edge wavelength", MESH_READINGS["ring-chords"], 1),
    Candidate("ring-chords, fewest shared", _derived(
        "ring-chords, fewest shared", _CHORDS, dict(MESH_READINGS["ring-chords"].attach))),
    Candidate("ring, alternate edges", _derived("ring, alternate edges", _RING, _ALTERNATE)),
    Candidate("least-shared", MESH_READINGS["least-shared"]),
    Candidate("least-shared, 1 edge wavelength", MESH_READINGS["least-shared"], 1),
)


def shares(c: Candidate, kind: str, seconds: float, start_set: int) -> tuple[list[float],
                                                                                float]:
    """Every flow's goodput (Mb/s) in one run of ``c``, and the run's CPU seconds."""
    asm = assembly(kind, 26e-3 if kind == "timer" else None,
                   jitter=0.1 if kind == "timer" else 0.0)
    sc = mesh(asm, "reno", duration=seconds, warmup=min(10.0, seconds / 5), seed=1,
              active=mesh_starts(start_set), reading=c.reading,
              edge_wavelengths=c.edge_wavelengths)
    t0 = time.process_time()
    f = burstlab.run(sc).flows
    cpu = time.process_time() - t0
    f = f[f["kind"] == "tcp"].sort_values("flow")
    return [float(x) / 1e6 for x in f["goodput_bps"]], cpu


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    seconds = float(args[0]) if args else 60.0
    sets = int(args[1]) if len(args) > 1 else 1
    print("candidate | assembler | start set | total Mb/s | flows < 1 % | shares % "
          "(flows 1–9) | CPU s")
    for c in CANDIDATES:
        for kind in ("cwba", "timer"):
            for r in range(sets):
                g, cpu = shares(c, kind, seconds, r)
                tot = sum(g)
                sh = [100 * x / tot if tot > 0 else 0.0 for x in g]
                print(f"{c.name} | {kind} | {r} | {tot:.0f} | {sum(x < 1 for x in sh)} | "
                      + " ".join(f"{x:.1f}" for x in sh) + f" | {cpu:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
