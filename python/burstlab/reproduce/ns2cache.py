"""ns-2.35 runs of exported scenarios for the paper reproductions, cached on disk.

Read first: :func:`run_cached`. A scenario is exported (:func:`burstlab.export.export_ns2`,
with its packet trace), run with ``ns`` and reduced by the paper's ``extract`` to a JSON
record, which is cached under the paper's output folder by the hash of the script (and
of a version the paper bumps when what it extracts changes), so a repeated reproduction
does not run ns-2 again. Without ``ns`` (:func:`available`) a paper leaves its ns-2
columns empty and says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd

from burstlab.export import export_ns2
from burstlab.export.ns2trace import Ns2Flow, ns_binary, read_trace, run_ns2

#: The packet trace's file name inside the run's temporary folder.
TRACE = "ns2.tr"

#: ``extract(scenario, flows, trace) -> record``: what a paper keeps of one ns-2 run
#: (``flows``: the agents' counters per flow; ``trace``: the packet trace).
Extract = Callable[[Mapping[str, Any], dict[int, Ns2Flow], pd.DataFrame], dict[str, Any]]


def available() -> bool:
    return ns_binary() is not None


def jobs() -> int:
    """Usable cores (ns-2 runs go in parallel threads, each a subprocess)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_cached(scenario: Mapping[str, Any], cache: Path, *, version: int,
               extract: Extract) -> dict[str, Any]:
    """Runs one exported scenario with ns-2 and returns ``extract``'s record, or reads
    the cached record of the same script."""
    script = export_ns2(dict(scenario), trace=TRACE)
    key = hashlib.sha256((f"{version}\n" + script.tcl + str(ns_binary())).encode()
                         ).hexdigest()[:24]
    path = cache / f"{key}.json"
    if path.is_file():
        rec: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return rec
    with tempfile.TemporaryDirectory() as tmp:
        flows = run_ns2(script, workdir=tmp)
        tr = read_trace(Path(tmp) / TRACE)
    rec = extract(scenario, flows, tr)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec), encoding="utf-8")
    return rec


def run_many(scenarios: Sequence[Mapping[str, Any]], cache: Path, *, version: int,
             extract: Extract) -> list[dict[str, Any]]:
    """:func:`run_cached` for each scenario, in parallel; ``[]`` without ``ns``."""
    if not available():
        return []
    cache.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=jobs()) as pool:
        return list(pool.map(lambda sc: run_cached(sc, cache, version=version,
                                                   extract=extract), scenarios))
