"""What a paper declares: its reported values, modes, experiments, figures and claims.

Read first: :class:`Paper` (the declaration), :class:`PaperData` (``paper.toml``: the
paper's numbers with their source, its modes and its setting), :class:`Experiment` and
:class:`Context`. The pipeline that runs a declaration is :mod:`.framework`; a claim and
its verdicts are :mod:`.claim`. This module imports neither the pipeline nor the
report, so every module of :mod:`burstlab.reproduce` may import it.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burstlab.reproduce.claim import HOW, Claim

if TYPE_CHECKING:
    import pandas as pd

    from burstlab.reproduce.report import Report
    from burstlab.sweep import SweepResult

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
        printed: the value's digits as the paper prints them (one string per entry of
            a list value), when the digits differ between entries ("1.0" beside
            "1.07"): :meth:`precision_at` then takes each entry's half unit of its last
            digit (:func:`burstlab.reproduce.verdict.printed_precision`).
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
    printed: tuple[str, ...] = ()

    def precision_at(self, x: float | None = None) -> float:
        """The precision of the entry at ``x`` (of the value itself when ``x`` is None):
        from its printed digits when ``printed`` is given, else :attr:`precision`."""
        from burstlab.reproduce.verdict import printed_precision

        if not self.printed:
            return self.precision
        if x is None:
            return printed_precision(self.printed[0])
        for xi, txt in zip(self.x, self.printed, strict=True):
            if math.isclose(xi, x, rel_tol=1e-9, abs_tol=1e-12):
                return printed_precision(txt)
        return self.precision

    def at(self, x: float) -> float:
        """The value at ``x`` (for list values), NaN if ``x`` is not listed."""
        for xi, v in zip(self.x, self.value, strict=True):
            if math.isclose(xi, x, rel_tol=1e-9, abs_tol=1e-12):
                return float(v)
        return math.nan


@dataclass(frozen=True)
class ClaimSpec:
    """A claim declared in ``paper.toml`` (``[claim."ID"]``): what it says, the paper's
    value as the claims table shows it, and the paper value (``value``, an id of
    :class:`PaperValue`) whose source it cites. The claim's function computes
    burstlab's side and the verdict."""

    id: str
    statement: str
    paper_value: str
    value: str


class PaperData:
    """The reported values of one paper, read from its TOML data file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        doc = tomllib.loads(self.path.read_text(encoding="utf-8"))
        self.info: dict[str, str] = dict(doc.get("paper", {}))
        #: ``[setting]``: the experiment's fixed numbers (from the paper or chosen).
        self.setting: dict[str, Any] = _tuples(doc.get("setting", {}))
        #: ``[claim."ID"]``: a claim's specification (``statement``, ``paper_value`` as
        #: shown, ``value``: the id of the paper value it is judged against).
        self.claims: dict[str, ClaimSpec] = {}
        for cid, raw in doc.get("claim", {}).items():
            where = f"{self.path.name}: claim.{cid}"
            for key in ("statement", "paper_value", "value"):
                if not isinstance(raw.get(key), str):
                    raise ValueError(f"{where}: '{key}' must be a string")
            self.claims[cid] = ClaimSpec(cid, raw["statement"], raw["paper_value"],
                                         raw["value"])
        #: ``[mode.NAME]``: each mode's fields (:func:`read_modes`).
        self.mode_fields: dict[str, dict[str, Any]] = {
            k: _tuples(v) for k, v in doc.get("mode", {}).items()}
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
            printed = _printed(where, raw)
            self.values[raw["id"]] = PaperValue(
                id=raw["id"], source=raw["source"], how=raw["how"], value=raw.get("value"),
                unit=raw.get("unit", ""), uncertainty=raw.get("uncertainty", ""),
                text=raw.get("text", ""), x_name=raw.get("x_name", ""), x=x,
                precision=float(prec), printed=printed)
        for spec in self.claims.values():
            if spec.value not in self.values:
                raise ValueError(f"{self.path.name}: claim.{spec.id}: no value "
                                 f"{spec.value!r}")

    def claim_base(self, cid: str) -> dict[str, str]:
        """The declared claim ``cid``'s ``id``, ``source`` (its paper value's),
        ``statement`` and ``paper_value``: the fields a :class:`Claim` takes besides
        burstlab's value and the verdict."""
        try:
            spec = self.claims[cid]
        except KeyError:
            raise KeyError(f"{self.path.name} declares no claim {cid!r}") from None
        return {"id": cid, "source": self.values[spec.value].source,
                "statement": spec.statement, "paper_value": spec.paper_value}

    def __getitem__(self, key: str) -> PaperValue:
        try:
            return self.values[key]
        except KeyError:
            raise KeyError(f"{self.path.name} has no value {key!r}") from None

    def __contains__(self, key: object) -> bool:
        return key in self.values




def _printed(where: str, raw: dict[str, Any]) -> tuple[str, ...]:
    """``printed``: the value's digits as printed, one string per entry, each the value
    it stands for (a typo in either is an error naming the entry)."""
    if "printed" not in raw:
        return ()
    from burstlab.reproduce.verdict import printed_precision

    got, val = raw["printed"], raw.get("value")
    texts = got if isinstance(got, list) else [got]
    vals = val if isinstance(val, list) else [val]
    if len(texts) != len(vals) or not all(isinstance(t, str) for t in texts):
        raise ValueError(f"{where}: 'printed' must be strings, one per entry of 'value'")
    for i, (t, v) in enumerate(zip(texts, vals, strict=True)):
        printed_precision(t)  # digits only, or a clear error
        if not (isinstance(v, int | float) and math.isclose(float(t.replace("−", "-")), v,
                                                            rel_tol=1e-12, abs_tol=0.0)):
            raise ValueError(f"{where}: printed[{i}] = {t!r} is not value[{i}] = {v!r}")
    return tuple(texts)


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


FigureFn = Callable[[Context], Any]
ClaimFn = Callable[[Context], "Claim | Sequence[Claim]"]


@dataclass(frozen=True)
class Figure:
    """A registered figure: ``draw(ctx)`` returns a Matplotlib figure, which the framework
    saves as ``<name>.png`` at ``dpi`` (:func:`save_figure`)."""

    name: str
    caption: str
    draw: FigureFn
    dpi: int = 110

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

    def figure(self, name: str, caption: str, *, dpi: int = 110
               ) -> Callable[[FigureFn], FigureFn]:
        """Registers the decorated function, ``(ctx) -> matplotlib figure``, as the
        drawer of ``<name>.png``; the framework saves and closes the figure."""
        def deco(fn: FigureFn) -> FigureFn:
            if any(f.name == name for f in self.figures):
                raise ValueError(f"{self.name}: figure {name!r} registered twice")
            self.figures.append(Figure(name, caption, fn, dpi))
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


def _tuples(x: Any) -> Any:
    """TOML arrays as tuples (modes are frozen, hashable dataclasses), recursively."""
    if isinstance(x, list):
        return tuple(_tuples(v) for v in x)
    if isinstance(x, dict):
        return {k: _tuples(v) for k, v in x.items()}
    return x


def read_modes(path: str | os.PathLike[str], cls: type[Any]) -> dict[str, Any]:
    """The modes of ``paper.toml`` at ``path`` (``[mode.full]``, ``[mode.quick]``,
    ``[mode.smoke]``, …) as instances of the paper's mode dataclass ``cls``, each built as
    ``cls(name=NAME, **fields)``; fields the table leaves out take ``cls``'s defaults.

    Raises:
        ValueError: a mode names a field ``cls`` does not have, or lacks one it needs
            (the message names the mode and the field).
    """
    data = PaperData(path)
    known = {f.name for f in dataclasses.fields(cls)}
    out = {}
    for name, fields in data.mode_fields.items():
        odd = sorted(set(fields) - known)
        if odd:
            raise ValueError(f"{Path(path).name}: mode.{name}: unknown field(s) {odd}; "
                             f"{cls.__name__} has {sorted(known)}")
        try:
            out[name] = cls(name=name, **fields)
        except TypeError as e:
            raise ValueError(f"{Path(path).name}: mode.{name}: {e}") from None
    return out


def standard_stamp(ctx: Context, seed: int, **columns: Any) -> dict[str, Any]:
    """The columns stamped on every CSV of a paper: ``seed``, the paper's own
    ``columns`` (replications, grid sizes …) in their order, ``burstlab_version`` and
    ``mode`` (the mode object's ``name``)."""
    from burstlab import _core

    return {"seed": seed, **columns, "burstlab_version": _core.__version__,
            "mode": ctx.mode.name}


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the file-only Agg backend (figures are PNG files)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path, dpi: int = 110) -> Path:
    """Lays ``fig`` out, writes it to ``path`` at ``dpi`` and closes it."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path
