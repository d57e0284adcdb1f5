"""Records proven current: each full-mode record carries a sample of its runs, re-run and
compared bit for bit.

Read first: :func:`result_digest` (what "the same run" means), then :func:`check_sample`
(the check) and :func:`record_status` (what ``modes --records``, the README and a quick
page show), then :func:`draw_sample` (how a sample is chosen). The design is in
docs/topics/settled-runs.md, "Records proven current".

A full-mode record (``papers/<paper>/full_mode/``, :mod:`burstlab.reproduce.modes`)
holds the verdicts of runs made at an older commit; the runs are not in the repository.
``full_mode/sample.json`` holds a few of those runs: for each, its scenario exactly as
the sweep passes it to the core (:func:`burstlab.sweep.sweep_points`: ``sim.seed``,
``sim.replication`` and, unless the experiment keeps traces, ``sim.trace`` removed), its
seed and replication, and the SHA-256 of each column of its result (every number of
every table the core returns, :func:`table_digests`). The check runs each again with the
installed core: one recorded column whose values differ or that is gone, or a run the
core now refuses, makes the record **stale** (a column or table the core has added since
changes none of the record's numbers and does not), and a stale record's verdicts are shown as
stale, never as full mode's (:func:`burstlab.reproduce.modes.against_full`).

    python -m burstlab.reproduce.records --check [PAPER ...]
    python -m burstlab.reproduce.records --sample PAPER [--max-runs 6] [--cap-s 3]

A check's outcome is cached per (paper, core identity, sample) under
:func:`cache_dir`: the same core (:func:`burstlab._core.core_identity`, a hash of its
source and locked dependencies) makes the same numbers, so a status computed once holds
until either changes; any other core is checked again.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: The sample's file in a record's folder.
SAMPLE_FILE = "sample.json"

#: Format of ``sample.json``.
SAMPLE_FORMAT = 2  # 2: per-column digests (table_digests); 1 held one digest per table

#: Statuses a record's sample can have.
CURRENT, STALE, NO_SAMPLE, UNCHECKED = "current", "stale", "no sample", "unchecked"

#: The most runs :func:`draw_sample` picks per paper, the most CPU seconds one picked run
#: may take, and the most CPU seconds a paper's whole sample may take: the five papers'
#: samples together stay under a minute.
MAX_RUNS = 6
RUN_CAP_S = 3.0
PAPER_BUDGET_S = 12.0

#: Candidates tried per experiment before :func:`draw_sample` gives it up.
TRIES = 3

#: Per paper, the point parameters whose values tell its kinds of scenario apart (the
#: TCP variant, the network, the assembler…): :func:`draw_sample` prefers a point of a
#: kind not yet in the sample. Experiments are kinds too.
KIND_KEYS: dict[str, tuple[str, ...]] = {
    "yu": ("variant",),
    "zhou": ("setup", "variant", "rmax", "pb"),
    "ozsarac": ("topology", "assembler"),
    "hybrid": ("path_class", "rto_mode"),
    "sodhatar": ("network",),
}


# ---------------------------------------------------------------------------------------
# What "the same run" means.


def canonical(obj: Any) -> str:
    """Sorted keys, no whitespace; floats as Python's shortest round-trip repr (two
    floats print alike exactly when their bits are equal, NaN aside), NaN as ``NaN``."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=True)


def _table(value: Any) -> Any:
    """A result table as plain data: row tables come from the core as JSON text."""
    return json.loads(value) if isinstance(value, str) else value


def table_digests(raw: Mapping[str, Any]) -> dict[str, str]:
    """SHA-256 of every number a :func:`burstlab._core.run` result holds, one per column:
    ``meta.KEY`` for each meta field but the package version, and for each result table
    (the names in ``raw["tables"]``) that has rows, ``TABLE.#rows`` (its row count) and
    ``TABLE.COLUMN`` (the column's values in row order). A table without rows holds no
    number: a core that adds an empty table (a trace the scenario does not ask for) makes
    the same run. Keyed by column so that a core which only *adds* a column or a table
    is seen to leave every recorded number as it was (:func:`changed_columns`)."""
    out = {f"meta.{k}": _sha(v) for k, v in raw["meta"].items() if k != "version"}
    for name in raw["tables"]:
        t = _table(raw.get(name))
        if _empty(t):
            continue
        rows = t if isinstance(t, list) else [dict(zip(t, r, strict=True))
                                              for r in zip(*t.values(), strict=True)]
        out[f"{name}.#rows"] = _sha(len(rows))
        for col in sorted({c for row in rows for c in row}):
            out[f"{name}.{col}"] = _sha([row.get(col) for row in rows])
    return out


def changed_columns(recorded: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The recorded columns (:func:`table_digests`) whose values differ now, or that are
    gone: empty when every number the record saw is unchanged. Columns and tables the
    core added since are not changes of the record's numbers and are not listed."""
    return sorted(k for k, v in recorded.items() if now.get(k) != v)


def _empty(t: Any) -> bool:
    """A table without rows: none, ``[]``, or columns that are all empty."""
    if isinstance(t, dict):
        return all(isinstance(v, list) and not v for v in t.values())
    return t is None or t == []


def result_digest(raw: Mapping[str, Any]) -> str:
    """SHA-256 of a run's whole result: each table's digest by name
    (:func:`table_digests`; the order the core lists its tables in is no number). Any
    changed number, row, column or non-empty table changes it."""
    return _sha(table_digests(raw))


def _sha(obj: Any) -> str:
    return hashlib.sha256(canonical(obj).encode("utf-8")).hexdigest()


def run_sample(run: Mapping[str, Any]) -> dict[str, Any]:
    """Runs one sample entry with the installed core: ``digest``, ``tables`` (per-table
    digests), ``events`` and ``cpu_s``; ``error`` instead when the core refuses or fails."""
    from burstlab import _core
    from burstlab.sweep import canonical_json

    text = canonical_json(run["scenario"])
    t0 = time.process_time()
    try:
        raw = _core.run(text, "json", int(run["seed"]), int(run["replication"]))
    except (_core.ScenarioError, _core.SimulationError) as e:
        return {"error": f"{type(e).__name__}: {e}", "cpu_s": time.process_time() - t0}
    return {"digest": result_digest(raw), "tables": table_digests(raw),
            "events": int(raw["meta"]["events"]), "cpu_s": time.process_time() - t0}


# ---------------------------------------------------------------------------------------
# Samples and their check.


def sample_path(paper: str, root: Path | None = None) -> Path:
    from burstlab.reproduce.modes import RECORD_DIR, records_root

    return (root or records_root()) / paper / RECORD_DIR / SAMPLE_FILE


def load_sample(paper: str, root: Path | None = None) -> dict[str, Any] | None:
    """``sample.json`` of ``paper``'s record, None when it has none.

    Raises:
        ValueError: the file is not a sample (names the file and the field).
    """
    p = sample_path(paper, root)
    if not p.is_file():
        return None
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{p}: not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != SAMPLE_FORMAT:
        raise ValueError(f"{p}: format must be {SAMPLE_FORMAT}")
    runs = doc.get("runs")
    if not isinstance(runs, list) or not runs:
        raise ValueError(f"{p}: runs must be a non-empty list")
    for i, r in enumerate(runs):
        for k, typ in (("scenario", dict), ("seed", int), ("replication", int),
                       ("digest", str), ("tables", dict)):
            if not isinstance(r, dict) or not isinstance(r.get(k), typ):
                raise ValueError(f"{p}: runs[{i}].{k} must be a {typ.__name__}")
    return doc


@dataclass
class Check:
    """The outcome of re-running one record's sample.

    Attributes:
        paper: the paper.
        status: :data:`CURRENT`, :data:`STALE`, :data:`NO_SAMPLE` or :data:`UNCHECKED`.
        runs: how many runs the sample holds.
        failures: one line per run that differs (its experiment, point, seed,
            replication, the recorded and the new digest, the tables that differ) or fails.
        cpu_s: CPU seconds the check took (0 when it came from the cache).
        core: the core identity that was checked.
        cached: the outcome came from :func:`cache_dir`.
    """

    paper: str
    status: str
    runs: int = 0
    failures: list[str] = field(default_factory=list)
    cpu_s: float = 0.0
    core: str = ""
    cached: bool = False

    @property
    def shown(self) -> str:
        """What a table shows: ``current (5 runs bit for bit, core 37a3d821)``, ``stale:
        1 of 5 sample runs differ (core …)``, ``no sample``, ``unchecked``."""
        if self.status == CURRENT:
            return f"current ({self.runs} runs bit for bit, core {self.core[:8]})"
        if self.status == STALE:
            return (f"stale: {len(self.failures)} of {self.runs} sample runs differ "
                    f"(core {self.core[:8]})")
        return self.status


def _label(r: Mapping[str, Any]) -> str:
    return (f"{r.get('experiment', '?')} point {r.get('point', '?')} "
            f"(seed {r['seed']}, replication {r['replication']})")


def check_sample(paper: str, root: Path | None = None) -> Check:
    """Re-runs every run of ``paper``'s sample with the installed core and compares its
    digest with the recorded one, bit for bit (no cache)."""
    from burstlab import _core

    core = _core.core_identity()
    doc = load_sample(paper, root)
    if doc is None:
        return Check(paper, NO_SAMPLE, core=core)
    failures = []
    cpu = 0.0
    for r in doc["runs"]:
        if _sha(r["tables"]) != r["digest"]:
            failures.append(f"{paper}: {_label(r)}: recorded digest {r['digest']} is not the "
                            "digest of its recorded columns: the sample is damaged")
            continue
        got = run_sample(r)
        cpu += got["cpu_s"]
        if "error" in got:
            failures.append(f"{paper}: {_label(r)}: recorded digest {r['digest']}, now the "
                            f"run fails: {got['error']}")
        elif diff := changed_columns(r["tables"], got["tables"]):
            shown = ", ".join(diff[:8]) + (f" and {len(diff) - 8} more" if len(diff) > 8 else "")
            failures.append(f"{paper}: {_label(r)}: recorded digest {r['digest']}, now "
                            f"{got['digest']} (columns that differ: {shown})")
    return Check(paper, STALE if failures else CURRENT, len(doc["runs"]), failures, cpu, core)


def cache_dir() -> Path:
    """Where check outcomes are cached: ``$BURSTLAB_RECORDS_CACHE``, else
    ``$XDG_CACHE_HOME/burstlab/records`` (``~/.cache/burstlab/records``)."""
    env = os.environ.get("BURSTLAB_RECORDS_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "burstlab" / "records"


def _cache_file(paper: str, core: str, sample: Path) -> Path:
    h = hashlib.sha256(sample.read_bytes()).hexdigest()[:16]
    return cache_dir() / f"{paper}-{core}-{h}.json"


def record_status(paper: str, root: Path | None = None, *, run: bool = True) -> Check:
    """``paper``'s sample status for the installed core: from the cache when this core
    and this sample were checked before, else checked now (``run``) and cached, else
    :data:`UNCHECKED`. A sample that cannot be read is :data:`STALE` with the reason."""
    from burstlab import _core

    core = _core.core_identity()
    p = sample_path(paper, root)
    if not p.is_file():
        return Check(paper, NO_SAMPLE, core=core)
    cf = _cache_file(paper, core, p)
    if cf.is_file():
        try:
            d = json.loads(cf.read_text(encoding="utf-8"))
            return Check(paper, str(d["status"]), int(d["runs"]), list(d["failures"]),
                         0.0, core, cached=True)
        except (ValueError, KeyError, TypeError):
            pass  # a damaged cache entry: check again
    if not run:
        return Check(paper, UNCHECKED, core=core)
    try:
        c = check_sample(paper, root)
    except ValueError as e:
        return Check(paper, STALE, 0, [str(e)], core=core)
    remember(c, root)
    return c


def remember(c: Check, root: Path | None = None) -> None:
    """Caches a fresh check's outcome for its core and sample (:func:`cache_dir`)."""
    p = sample_path(c.paper, root)
    if c.status not in (CURRENT, STALE) or not p.is_file():
        return
    cf = _cache_file(c.paper, c.core, p)
    try:
        cf.parent.mkdir(parents=True, exist_ok=True)
        tmp = cf.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"paper": c.paper, "core": c.core, "status": c.status,
                                   "runs": c.runs, "failures": c.failures,
                                   "when": datetime.now(UTC).isoformat()}), encoding="utf-8")
        tmp.replace(cf)
    except OSError:
        pass  # an unwritable cache only costs the next caller a check


# ---------------------------------------------------------------------------------------
# Drawing a sample.


@dataclass(frozen=True)
class Candidate:
    """One full-mode run a sample may hold."""

    experiment: str
    point: int
    params: dict[str, Any]
    scenario: dict[str, Any]
    seed: int
    replication: int
    estimate: float
    kind: tuple[str, ...]


def resolved(sc: Any, keep_traces: bool) -> tuple[dict[str, Any], int]:
    """A point's scenario as :func:`burstlab.sweep.sweep_points` passes it to the core
    (its ``sim.trace`` dropped unless the experiment keeps traces, ``sim.seed`` and
    ``sim.replication`` taken out: the core gets them as arguments), and its seed."""
    from burstlab.api import as_int, load_scenario, plain

    spec = plain(load_scenario(sc))
    sim = spec.get("sim")
    seed = sim.get("seed", 1) if isinstance(sim, dict) else 1
    seed = as_int(seed) if as_int(seed) is not None else seed
    if isinstance(sim, dict) and not keep_traces:
        sim.pop("trace", None)
    spec = copy.deepcopy(spec)
    if isinstance(spec.get("sim"), dict):
        spec["sim"].pop("seed", None)
        spec["sim"].pop("replication", None)
    if not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return spec, seed


def candidates(paper: str) -> list[Candidate]:
    """Every full-mode run of ``paper``'s experiments that need no other experiment's
    results (an experiment with ``after`` chooses its points from them), each at its
    last replication, with the core's event estimate as a first cost guess. An
    experiment with run-length control (``refine``) gives its first round, which every
    full run runs."""
    from burstlab import _core
    from burstlab.reproduce import load
    from burstlab.reproduce.framework import Context
    from burstlab.sweep import canonical_json

    p = load(paper)
    keys = KIND_KEYS.get(paper, ())
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Context(paper=p, data=p.load_data(), mode=p.modes["full"], out_dir=Path(tmp))
        ctx.stamp = p.stamp(ctx)
        for e in p.experiments:
            if e.after:
                continue
            reps = int(e.replications(ctx))
            for i, (params, sc) in enumerate(e.points(ctx)):
                spec, seed = resolved(sc, e.keep_traces)
                try:
                    est = float(_core.event_estimate(canonical_json(spec), "json")["events"])
                except (_core.ScenarioError, ValueError):
                    continue
                kind = tuple(str(params.get(k, "")) for k in keys)
                out.append(Candidate(e.name, i, dict(params), spec, seed, reps - 1, est,
                                     kind))
    return out


def _measure(c: Candidate, cap_s: float) -> dict[str, Any] | None:
    """Runs ``c`` in a child process that the kernel stops once the run has taken
    ``cap_s`` CPU seconds (``RLIMIT_CPU``, set after the child's imports): its
    :func:`run_sample` outcome, None when it needs more (or fails)."""
    code = ("import json, math, resource, sys\n"
            "from burstlab.reproduce.records import run_sample\n"
            "u = resource.getrusage(resource.RUSAGE_SELF)\n"
            f"lim = math.ceil(u.ru_utime + u.ru_stime + {cap_s!r})\n"
            "resource.setrlimit(resource.RLIMIT_CPU, (lim, lim + 1))\n"
            "print(json.dumps(run_sample(json.load(sys.stdin))))\n")
    job = {"scenario": c.scenario, "seed": c.seed, "replication": c.replication}
    try:
        p = subprocess.run([sys.executable, "-c", code], input=json.dumps(job),
                           capture_output=True, text=True, check=False,
                           timeout=60 * max(1.0, cap_s) + 60)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return None
    got: dict[str, Any] = json.loads(p.stdout)
    return None if "error" in got or got["cpu_s"] > cap_s else got


def draw_sample(paper: str, *, max_runs: int = MAX_RUNS, cap_s: float = RUN_CAP_S,
                budget_s: float = PAPER_BUDGET_S,
                log: Any = print) -> dict[str, Any]:
    """Chooses ``paper``'s sample and runs it: rounds over the experiments (in the
    paper's order) until ``max_runs`` runs or ``budget_s`` CPU seconds; in each round an
    experiment offers its cheapest candidates by the core's event estimate (ties: point
    order), those of a kind not yet sampled first, and the first of at most
    :data:`TRIES` that runs within ``cap_s`` CPU seconds is taken. Deterministic up to
    the CPU-time cut."""
    cands = candidates(paper)
    exps = list(dict.fromkeys(c.experiment for c in cands))
    pool = {e: sorted((c for c in cands if c.experiment == e),
                      key=lambda c: (c.estimate, c.point)) for e in exps}
    tried: set[tuple[str, int]] = set()
    gave_up: set[str] = set()
    kinds: set[tuple[str, ...]] = set()
    runs: list[dict[str, Any]] = []
    spent = 0.0
    while len(runs) < max_runs and spent < budget_s and len(gave_up) < len(exps):
        took = False
        for e in exps:
            if e in gave_up or len(runs) >= max_runs or spent >= budget_s:
                continue
            left = [c for c in pool[e] if (e, c.point) not in tried]
            order = ([c for c in left if c.kind not in kinds]
                     + [c for c in left if c.kind in kinds])
            for c in order[:TRIES]:
                tried.add((e, c.point))
                got = _measure(c, min(cap_s, budget_s - spent))
                log(f"  {paper} {e} point {c.point}: "
                    + (f"{got['cpu_s']:.2f} CPU-s" if got else f"over {cap_s} CPU-s"))
                if got is None:
                    continue
                spent += got["cpu_s"]
                kinds.add(c.kind)
                runs.append({"experiment": e, "point": c.point, "params": c.params,
                             "seed": c.seed, "replication": c.replication,
                             "scenario": c.scenario, "digest": got["digest"],
                             "tables": got["tables"], "events": got["events"],
                             "cpu_s": round(got["cpu_s"], 3)})
                took = True
                break
            else:
                gave_up.add(e)
        if not took:
            break
    rank = {e: i for i, e in enumerate(exps)}
    runs.sort(key=lambda r: (rank[r["experiment"]], r["point"]))
    return {"format": SAMPLE_FORMAT, "paper": paper, "runs": runs}


def write_sample(paper: str, root: Path | None = None, note: str = "", **kw: Any) -> Path:
    """Draws ``paper``'s sample (:func:`draw_sample`) and writes ``sample.json`` beside
    its record, with the commit, core identity and date it was drawn at."""
    from burstlab import _core
    from burstlab.reproduce.modes import load_record

    rec = load_record(paper, root)
    if rec is None:
        raise ValueError(f"{paper} has no full-mode record to sample")
    doc = draw_sample(paper, **kw)
    if not doc["runs"]:
        raise ValueError(f"{paper}: no full-mode run fits the sample's CPU cap")
    head = {"format": SAMPLE_FORMAT, "paper": paper,
            "drawn_at": {"commit": _git_head(), "core_identity": _core.core_identity(),
                         "burstlab_version": _core.__version__,
                         "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")},
            "record_commit": str(rec.run.get("commit", "")),
            "rule": (f"draw_sample: rounds over the experiments without 'after', the "
                     f"cheapest point by event estimate of a new kind {KIND_KEYS.get(paper, ())}"
                     f" first, at its last replication; at most {kw.get('max_runs', MAX_RUNS)}"
                     f" runs, {kw.get('cap_s', RUN_CAP_S)} CPU-s per run, "
                     f"{kw.get('budget_s', PAPER_BUDGET_S)} CPU-s per paper"),
            "cpu_s": round(sum(r["cpu_s"] for r in doc["runs"]), 3),
            **({"note": note} if note else {})}
    return dump_sample(sample_path(paper, root), head, doc["runs"])


def dump_sample(p: Path, head: Mapping[str, Any], runs: Sequence[Mapping[str, Any]]) -> Path:
    """Writes a sample file: the head readable, then one run per line (a hybrid scenario
    lists 400 flows)."""
    text = json.dumps(dict(head), indent=1, ensure_ascii=False)[:-2] + ',\n "runs": [\n'
    text += ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":"))
                       for r in runs)
    p.write_text(text + "\n ]\n}\n", encoding="utf-8")
    json.loads(p.read_text(encoding="utf-8"))  # the file is JSON
    return p


def _git_head() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


# ---------------------------------------------------------------------------------------
# Command line.


def main(argv: Sequence[str] | None = None) -> int:
    from burstlab.reproduce import paper_names

    ap = argparse.ArgumentParser(prog="python -m burstlab.reproduce.records",
                                 description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", nargs="*", metavar="PAPER",
                   help="re-run the samples (every paper's by default) and compare them "
                        "bit for bit; exit 1 when a record is stale")
    g.add_argument("--sample", metavar="PAPER",
                   help="draw the paper's sample and write full_mode/sample.json")
    ap.add_argument("--max-runs", type=int, default=MAX_RUNS)
    ap.add_argument("--cap-s", type=float, default=RUN_CAP_S,
                    help="most CPU seconds a sampled run may take")
    ap.add_argument("--budget-s", type=float, default=PAPER_BUDGET_S,
                    help="most CPU seconds of a paper's whole sample")
    ap.add_argument("--note", default="", help="with --sample: a note kept in sample.json")
    a = ap.parse_args(argv)
    names = paper_names()
    asked = [a.sample] if a.sample is not None else (a.check or list(names))
    bad = [n for n in asked if n not in names]
    if bad:
        print(f"error: unknown paper {bad[0]!r}; known papers: {', '.join(names)}",
              file=sys.stderr)
        return 2
    if a.sample is not None:
        if a.max_runs < 1 or a.cap_s <= 0 or a.budget_s <= 0:
            print("error: --max-runs, --cap-s and --budget-s must be positive",
                  file=sys.stderr)
            return 2
        try:
            p = write_sample(a.sample, note=a.note, max_runs=a.max_runs, cap_s=a.cap_s,
                             budget_s=a.budget_s)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"wrote {p}")
        return 0
    stale = False
    for n in asked:
        try:
            c = check_sample(n)
        except ValueError as e:
            print(f"{n}: {STALE}: {e}")
            stale = True
            continue
        remember(c)
        print(f"{n}: {c.shown} ({c.cpu_s:.1f} CPU-s, core {c.core})")
        for f in c.failures:
            print(f"  {f}")
        stale = stale or c.status == STALE
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
