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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# The declarations and the claim are re-exported: a paper imports what it needs from here.
from burstlab.reproduce.claim import (
    CLAIM_COLUMNS,
    DIFFERS,
    HOW,
    NOT_COMPARABLE,
    NOT_RUN,
    QUICK_NOT_COMPARABLE,
    REPRODUCES,
    SAME_DIRECTION,
    VERDICTS,
    Claim,
    missed,
    shown_not_judged,
    unjudged,
    verdict_counts,
    worst_of,
    write_claims_csv,
    write_claims_csv_rows,
)
from burstlab.reproduce.paper import (
    ClaimFn,
    ClaimSpec,
    Context,
    Experiment,
    Figure,
    FigureFn,
    Paper,
    PaperData,
    PaperValue,
    pyplot,
    read_modes,
    save_figure,
    standard_stamp,
)

__all__ = ["CLAIM_COLUMNS", "DIFFERS", "HOW", "NOT_COMPARABLE", "NOT_RUN",
           "QUICK_NOT_COMPARABLE", "REPRODUCES", "SAME_DIRECTION", "VERDICTS", "Claim",
           "ClaimFn", "ClaimSpec", "Context", "Experiment", "Figure", "FigureFn",
           "Outcome", "Paper", "PaperData", "PaperValue", "cpu_seconds", "missed",
           "pyplot", "read_modes", "reproduce", "run_experiments", "save_figure",
           "shown_not_judged", "standard_stamp", "unjudged", "verdict_counts",
           "worst_of", "write_claims_csv", "write_claims_csv_rows"]


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
        ctx.files.append(save_figure(fig.draw(ctx), d / fig.file, fig.dpi))
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
        rep.claims_section(claims)
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

