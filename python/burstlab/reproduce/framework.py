"""The reproduction framework: a paper is data plus experiments plus claims.

Read first: :class:`Paper` (what a reproduction declares), then :func:`reproduce` (the
pipeline every paper goes through), then :class:`Claim` and :data:`VERDICTS`.

A paper (one package under :mod:`burstlab.reproduce.papers`) declares:

- its **reported numbers** in ``paper.toml`` beside its code (:class:`PaperData`): each
  with an id, its source (table, figure, section), how it was obtained (``printed``,
  ``read off plot`` with the reading's uncertainty, or ``stated`` in the text);
- its **experiments** (:class:`Experiment`): lists of ``(params, scenario)`` points run
  through :func:`burstlab.sweep.sweep_points` and its SQLite store, so every run, trace
  runs included, is parallel and resumable. An experiment may depend on earlier ones
  (a trace run that drops the burst a probe run chose);
- an **analysis** turning the sweep results into named tables (written as CSV);
- **figures**, registered where they are drawn (:meth:`Paper.figure`);
- **claims** (:meth:`Paper.claim`): small functions comparing a paper value with a
  simulated value (with its CI) or a model value, returning :class:`Claim` objects with
  a verdict from :data:`VERDICTS` and a one-sentence reason;
- a **report** body (Markdown), into which the framework puts the claims table.

:func:`reproduce` runs all of it and writes ``OUT/<paper>/``: the CSVs, the figures,
``claims.csv``, ``report.md`` and a self-contained ``report.html``.
"""

from __future__ import annotations

import json
import math
import os
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from burstlab.reproduce.report import Report
    from burstlab.sweep import SweepResult

#: The verdicts a claim may return. Every claim is decided by
#: :mod:`burstlab.reproduce.verdict` (one rule; see ``docs/topics/verdicts.md``):
#: ``reproduces``: burstlab's 95 % interval meets the paper value's band and is no
#: wider than it; ``same direction``: it misses the band on the paper's side of the
#: no-effect value (or some, not all, claimed differences are significant);
#: ``differs``: it misses the band otherwise; ``not comparable``: the runs cannot decide
#: (no interval, or an interval wider than the band that meets it).
VERDICTS = ("reproduces", "same direction", "differs", "not comparable")

#: How a paper value was obtained.
HOW = ("printed", "read off plot", "stated")

#: Columns of ``claims.csv``.
CLAIM_COLUMNS = ("paper", "claim_id", "source", "statement", "paper_value",
                 "burstlab_value", "ci", "verdict", "note")


# ---------------------------------------------------------------------------------------
# The paper's numbers.


@dataclass(frozen=True)
class PaperValue:
    """One reported number or statement of a paper (an entry of ``paper.toml``).

    Attributes:
        id: unique within the paper, e.g. ``table1.sack_over_reno``.
        source: where it is: ``Table I``, ``Fig. 5(a), §V.A``.
        how: one of :data:`HOW`.
        value: the number, a list of numbers (over ``x``), a string, or None for a
            purely qualitative statement.
        unit: the value's unit (``s``, ``ratio``, …).
        uncertainty: for plot readings, how precise the reading is; for printed numbers,
            their rounding.
        text: the paper's words.
        x_name, x: for a list of values, the variable they are indexed by.
        precision: the value's own precision as a number in its unit (half a unit of
            the last printed digit; the stated uncertainty of a plot reading), used by
            :func:`burstlab.reproduce.verdict.judge` to widen the claim kind's band; for
            a location (``log`` kind) a relative precision (0.1 = ±10 %).
    """

    id: str
    source: str
    how: str
    value: Any = None
    unit: str = ""
    uncertainty: str = ""
    text: str = ""
    x_name: str = ""
    x: tuple[float, ...] = ()
    precision: float = 0.0

    def at(self, x: float) -> float:
        """The value at ``x`` (for list values), NaN if ``x`` is not listed."""
        for xi, v in zip(self.x, self.value, strict=True):
            if math.isclose(xi, x, rel_tol=1e-9, abs_tol=1e-12):
                return float(v)
        return math.nan


class PaperData:
    """The reported values of one paper, read from its TOML data file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        doc = tomllib.loads(self.path.read_text(encoding="utf-8"))
        self.info: dict[str, str] = dict(doc.get("paper", {}))
        self.values: dict[str, PaperValue] = {}
        for i, raw in enumerate(doc.get("value", [])):
            where = f"{self.path.name}: value[{i}]"
            for key in ("id", "source", "how"):
                if key not in raw:
                    raise ValueError(f"{where}: missing '{key}'")
            if raw["how"] not in HOW:
                raise ValueError(f"{where}: how must be one of {', '.join(HOW)}, "
                                 f"got {raw['how']!r}")
            if raw["how"] == "read off plot" and not raw.get("uncertainty"):
                raise ValueError(f"{where}: a value read off a plot needs its uncertainty")
            if raw["id"] in self.values:
                raise ValueError(f"{where}: duplicate id {raw['id']!r}")
            x = tuple(float(v) for v in raw.get("x", ()))
            prec = raw.get("precision", 0.0)
            if (isinstance(prec, bool) or not isinstance(prec, int | float)
                    or not math.isfinite(prec) or prec < 0):
                raise ValueError(f"{where}: precision must be a number ≥ 0, got {prec!r}")
            if x and (not isinstance(raw.get("value"), list) or len(raw["value"]) != len(x)):
                raise ValueError(f"{where}: 'value' must be a list as long as 'x'")
            self.values[raw["id"]] = PaperValue(
                id=raw["id"], source=raw["source"], how=raw["how"], value=raw.get("value"),
                unit=raw.get("unit", ""), uncertainty=raw.get("uncertainty", ""),
                text=raw.get("text", ""), x_name=raw.get("x_name", ""), x=x,
                precision=float(prec))

    def __getitem__(self, key: str) -> PaperValue:
        try:
            return self.values[key]
        except KeyError:
            raise KeyError(f"{self.path.name} has no value {key!r}") from None

    def __contains__(self, key: object) -> bool:
        return key in self.values


# ---------------------------------------------------------------------------------------
# Claims.


@dataclass(frozen=True)
class Claim:
    """One comparison of a paper value with burstlab, with its verdict.

    Attributes:
        id: unique within the paper (``table1.sack_over_reno.log10p=-2``).
        source: where the paper value is.
        statement: what the paper says (short).
        paper_value: the paper's number or words, as text.
        burstlab_value: burstlab's simulated or model value, as text.
        ci: burstlab's 95 % confidence interval, as text (empty when not applicable).
        verdict: one of :data:`VERDICTS`.
        note: the reason for the verdict, in one sentence, with numbers.
        full: in quick mode, the claim's verdict in the paper's committed full-mode
            record (:mod:`burstlab.reproduce.modes`), or why there is none; empty in
            full mode.
        quick_note: in quick mode, where quick's verdict differs from full mode's, why
            quick shows :data:`burstlab.reproduce.modes.QUICK_NOT_COMPARABLE` (both
            values and what quick reduced); empty otherwise.
    """

    id: str
    source: str
    statement: str
    paper_value: str
    burstlab_value: str
    verdict: str
    note: str
    ci: str = ""
    full: str = ""
    quick_note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict must be one of "
                             f"{', '.join(VERDICTS)}, got {self.verdict!r}")

    @property
    def shown(self) -> str:
        """The verdict a report shows: :data:`burstlab.reproduce.modes.QUICK_NOT_COMPARABLE`
        where quick mode's verdict is not the full-mode record's, else :attr:`verdict`."""
        from burstlab.reproduce.modes import QUICK_NOT_COMPARABLE

        return QUICK_NOT_COMPARABLE if self.quick_note else self.verdict

    def row(self, paper: str) -> dict[str, str]:
        return {"paper": paper, "claim_id": self.id, "source": self.source,
                "statement": self.statement, "paper_value": self.paper_value,
                "burstlab_value": self.burstlab_value, "ci": self.ci,
                "verdict": self.verdict, "note": self.note}


def verdict_counts(verdicts: Iterable[str]) -> dict[str, int]:
    """``{verdict: count}`` over :data:`VERDICTS` (zeros included, in order)."""
    vs = list(verdicts)
    return {v: vs.count(v) for v in VERDICTS}


# ---------------------------------------------------------------------------------------
# Experiments and the run context.


@dataclass(frozen=True)
class Experiment:
    """A list of simulation points run through the sweep store.

    Attributes:
        name: key of its :class:`burstlab.SweepResult` in :attr:`Context.results`.
        points: ``(ctx) -> [(params, scenario), …]``; may read the results of the
            experiments named in ``after``.
        replications: runs per point (per mode: ``(ctx) -> int``).
        keep_traces: keep the scenario's ``sim.trace`` and store the trace tables with
            each run (:meth:`burstlab.SweepResult.result`).
        after: experiments whose results ``points`` needs.
        refine: sequential run-length control (:mod:`burstlab.reproduce.settle`):
            ``(ctx, result) -> points or None``, called after each round; a new point
            list (typically the same points, the unsettled ones with a doubled
            duration) is run as the next round, ``None`` ends the experiment. Points
            already in the store are not run again, so a round costs only its new runs.
    """

    name: str
    points: Callable[[Context], list[tuple[dict[str, Any], dict[str, Any]]]]
    replications: Callable[[Context], int] = lambda ctx: 1
    keep_traces: bool = False
    after: tuple[str, ...] = ()
    refine: Callable[[Context, SweepResult],
                     list[tuple[dict[str, Any], dict[str, Any]]] | None] | None = None


@dataclass
class Context:
    """Everything a paper's analysis, figures, claims and report see.

    Attributes:
        paper: the :class:`Paper`.
        data: its reported values.
        mode: the paper's mode object (``quick``, ``full``, …).
        out_dir: ``OUT/<paper>/``.
        results: sweep results per experiment name.
        tables: named tables, each written as ``<name>.csv``.
        values: anything else the analysis computes for figures, claims and report.
        stamp: seed, replications, version, mode (columns of every CSV).
        files: files written so far.
        missing: experiments left out of a ``stored_only`` run, each with the runs its
            store held and the runs it needs (``{name: (stored, total)}``); empty when
            every experiment ran.
    """

    paper: Paper
    data: PaperData
    mode: Any
    out_dir: Path
    results: dict[str, SweepResult] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    stamp: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    wall_s: float = 0.0
    missing: dict[str, tuple[int, int]] = field(default_factory=dict)


FigureFn = Callable[[Context, Path], None]
ClaimFn = Callable[[Context], "Claim | Sequence[Claim]"]


@dataclass(frozen=True)
class Figure:
    name: str
    caption: str
    draw: FigureFn

    @property
    def file(self) -> str:
        return f"{self.name}.png"


@dataclass
class Paper:
    """A reproduction: set the fields, then register figures and claims on it.

    Attributes:
        name: the command-line name (``burstlab reproduce <name>``).
        title: shown on the site.
        data_file: the TOML file of reported values.
        modes: mode name → mode object; must hold ``quick``, ``full`` and ``smoke`` (a
            tiny grid the tests run through ``burstlab reproduce all --smoke``).
        experiments: run in order of their dependencies.
        analyse: ``(ctx) -> None``; fills ``ctx.tables`` and ``ctx.values``.
        report: ``(ctx, claims) -> Report``; the page's body (the framework adds the
            claims table where the body calls :meth:`Report.claims`).
        stamp: ``(ctx) -> dict``; the columns stamped on every CSV.
    """

    name: str
    title: str
    data_file: Path
    modes: Mapping[str, Any]
    experiments: list[Experiment] = field(default_factory=list)
    analyse: Callable[[Context], None] = lambda ctx: None
    report: Callable[[Context, list[Claim]], Report] | None = None
    stamp: Callable[[Context], dict[str, Any]] = lambda ctx: {}
    figures: list[Figure] = field(default_factory=list)
    claim_fns: list[ClaimFn] = field(default_factory=list)

    def figure(self, name: str, caption: str) -> Callable[[FigureFn], FigureFn]:
        """Registers the decorated function as the drawer of ``<name>.png``."""
        def deco(fn: FigureFn) -> FigureFn:
            if any(f.name == name for f in self.figures):
                raise ValueError(f"{self.name}: figure {name!r} registered twice")
            self.figures.append(Figure(name, caption, fn))
            return fn
        return deco

    def claim(self, fn: ClaimFn) -> ClaimFn:
        """Registers the decorated function as a claim (or a family of claims)."""
        self.claim_fns.append(fn)
        return fn

    def figure_named(self, name: str) -> Figure:
        for f in self.figures:
            if f.name == name:
                return f
        raise KeyError(f"{self.name}: no figure {name!r} is registered")

    def image(self, r: Report, name: str) -> None:
        """Puts the registered figure ``name`` (its file and caption) into report ``r``;
        fails if no such figure is registered."""
        f = self.figure_named(name)
        r.image(f.file, f.caption)

    def load_data(self) -> PaperData:
        return PaperData(self.data_file)

    def evaluate_claims(self, ctx: Context) -> list[Claim]:
        out: list[Claim] = []
        for fn in self.claim_fns:
            got = fn(ctx)
            out.extend([got] if isinstance(got, Claim) else got)
        ids = [c.id for c in out]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"{self.name}: duplicate claim ids {sorted(dup)}")
        return out


# ---------------------------------------------------------------------------------------
# The pipeline.


@dataclass
class Outcome:
    """What :func:`reproduce` produced."""

    paper: Paper
    out_dir: Path
    ctx: Context
    claims: list[Claim]
    files: list[Path]
    wall_s: float
    cpu_s: float = math.nan


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its children that have ended
    (the sweep's worker processes, which each sweep joins, and ns-2's runs): the
    difference over a reproduction is its CPU cost on any number of cores."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


#: Most rounds of run-length control per experiment (:attr:`Experiment.refine`): a
#: doubling from seconds to hours is about a dozen.
MAX_ROUNDS = 16


def run_experiments(ctx: Context, *, jobs: int | None, progress: bool,
                    log: Callable[[str], None], scheduler: str | None = None,
                    stored_only: bool = False) -> None:
    """Runs the paper's experiments through the sweep store ``OUT/<paper>/runs.sqlite``,
    each after those it depends on; on the Dask cluster at ``scheduler``
    (``tcp://host:8786``) when given, else in local worker processes. Runs already in
    the store are read from it, so an interrupted reproduction resumes where it
    stopped, on either executor.

    ``stored_only`` runs nothing: an experiment whose runs the store does not all hold
    (in any round of its run-length control), and every experiment after it, is left
    out of ``ctx.results`` and named in ``ctx.missing``."""
    from burstlab.sweep import NotStored, sweep_points

    store = ctx.out_dir / "runs.sqlite"
    pending = list(ctx.paper.experiments)
    names = {e.name for e in pending}
    for e in pending:
        missing = [a for a in e.after if a not in names]
        if missing:
            raise ValueError(f"experiment {e.name} depends on unknown {missing}")
    while pending:
        for e in [e for e in pending if any(a in ctx.missing for a in e.after)]:
            log(f"  {e.name}: left out (it needs {', '.join(e.after)})")
            ctx.missing[e.name] = (0, 0)
            pending.remove(e)
        if not pending:
            break
        ready = [e for e in pending if all(a in ctx.results for a in e.after)]
        if not ready:
            raise ValueError("experiments depend on each other in a cycle: "
                             + ", ".join(e.name for e in pending))
        for e in ready:
            pts = e.points(ctx)
            reps = e.replications(ctx)
            log(f"  {e.name}: {len(pts)} points × {reps} replications")
            rounds = 0
            while True:
                try:
                    sw = sweep_points(pts, replications=reps, store=store, jobs=jobs,
                                      progress=progress, keep_traces=e.keep_traces,
                                      scheduler=scheduler, stored_only=stored_only)
                except NotStored as ns:
                    log(f"  {e.name}: left out, the store holds {ns.stored} of its "
                        f"{ns.total} runs" + (f" (round {rounds + 1})" if rounds else ""))
                    ctx.missing[e.name] = (ns.stored, ns.total)
                    break
                if len(sw.errors):
                    first = sw.errors.iloc[0]
                    raise RuntimeError(f"{e.name}: {len(sw.errors)} runs failed, "
                                       f"e.g. {first['error']}")
                rounds += 1
                nxt = e.refine(ctx, sw) if e.refine is not None else None
                if nxt is None:
                    break
                if rounds >= MAX_ROUNDS:
                    raise RuntimeError(f"{e.name}: run-length control did not end after "
                                       f"{MAX_ROUNDS} rounds (its refine must reach a cap)")
                pts = nxt
                log(f"  {e.name}: round {rounds + 1}, {len(pts)} points")
            if e.name not in ctx.missing:
                ctx.results[e.name] = sw
            pending.remove(e)


def reproduce(
    paper: Paper,
    out: str | os.PathLike[str] = "out",
    *,
    mode: str = "full",
    jobs: int | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
    scheduler: str | None = None,
    stored_only: bool = False,
) -> Outcome:
    """Runs ``paper`` and writes everything under ``OUT/<paper>/`` (its simulations on
    the Dask cluster at ``scheduler`` when given: :func:`run_experiments`).

    ``stored_only`` judges the paper from the runs its store already holds and runs
    nothing: experiments with runs missing are left out (``ctx.missing``), the paper's
    analysis and claims see only the others (a claim whose experiment is missing is
    ``not comparable``), and ``run.json`` says ``"complete": false`` with what is
    missing."""
    from burstlab.reproduce.report import write_page

    if mode not in paper.modes:
        raise ValueError(f"mode must be one of {', '.join(paper.modes)}, got {mode!r}")
    t0 = time.perf_counter()
    cpu0 = cpu_seconds()
    d = Path(out) / paper.name
    d.mkdir(parents=True, exist_ok=True)
    ctx = Context(paper=paper, data=paper.load_data(), mode=paper.modes[mode], out_dir=d)
    ctx.stamp = paper.stamp(ctx)
    log(f"burstlab reproduce {paper.name} ({mode}): store {d / 'runs.sqlite'}")
    if stored_only and not (d / "runs.sqlite").is_file():
        raise FileNotFoundError(f"{d / 'runs.sqlite'}: no store to judge from "
                                "(stored_only runs nothing)")
    run_experiments(ctx, jobs=jobs, progress=progress, log=log, scheduler=scheduler,
                    stored_only=stored_only)
    paper.analyse(ctx)
    for name, df in ctx.tables.items():
        p = d / f"{name}.csv"
        df.to_csv(p, index=False)
        ctx.files.append(p)
    for fig in paper.figures:
        p = d / fig.file
        fig.draw(ctx, p)
        ctx.files.append(p)
    claims = paper.evaluate_claims(ctx)
    ctx.files.append(write_claims_csv(paper.name, claims, d / "claims.csv"))
    if mode == "quick":
        from burstlab.reproduce.modes import against_full, write_against_full

        claims = against_full(paper, claims, mode)
        ctx.files.append(write_against_full(paper.name, claims, d / "quick_vs_full.csv"))
    ctx.wall_s = time.perf_counter() - t0
    if paper.report is None:
        from burstlab.reproduce.report import Report

        rep = Report(paper.title)
        rep.claims(claims)
    else:
        rep = paper.report(ctx, claims)
    ctx.files += write_page(rep, d, title=paper.title)
    wall = time.perf_counter() - t0
    cpu = cpu_seconds() - cpu0
    (d / "run.json").write_text(json.dumps(
        {**ctx.stamp, "paper": paper.name, "wall_s": wall, "cpu_s": cpu,
         "runs": {k: v.stats for k, v in ctx.results.items()},
         "complete": not ctx.missing,
         **({"missing": {k: {"stored": a, "total": b} for k, (a, b) in ctx.missing.items()}}
            if ctx.missing else {}),
         "verdicts": verdict_counts(c.verdict for c in claims)},
        indent=2, default=str), encoding="utf-8")
    ctx.files.append(d / "run.json")
    return Outcome(paper, d, ctx, claims, list(ctx.files), wall, cpu)


def write_claims_csv(paper: str, claims: Sequence[Claim], path: Path) -> Path:
    """``claims.csv``: one row per claim, columns :data:`CLAIM_COLUMNS`."""
    return write_claims_csv_rows([c.row(paper) for c in claims], path)


def write_claims_csv_rows(rows: Sequence[Mapping[str, str]], path: Path) -> Path:
    import csv

    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CLAIM_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(dict(r))
    return path
