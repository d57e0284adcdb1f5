"""Parameter grids for sweeps: parsing ``path=spec`` entries and applying them to a scenario.

Read :func:`parse_axis` first. A grid is an ordered mapping from a *path* to a list of
values; the sweep runs the Cartesian product of all axes, first axis slowest.

Paths are dotted keys into the scenario dict, with list indices as plain integers:
``sim.duration``, ``flow.0.variant``, ``link.1.loss_ab``. Missing dict keys are created
(so optional fields such as ``flow.0.wm`` can be swept); list indices must exist.

Specs (the right-hand side of ``--grid path=spec``):

- ``a..b:log:n`` — ``n`` log-spaced points from ``a`` to ``b`` inclusive (``a, b > 0``);
- ``a..b:lin:n`` — ``n`` evenly spaced points;
- ``x,y,z`` — a list; each item becomes an int, a float, ``true``/``false`` or is kept as
  a string (``reno,newreno,sack``; ``1ms,10ms``). A single item is a one-point axis.

Units. Range end points may carry a unit (``1us..100ms``, ``10Mb/s..10Gb/s``,
``1KB..1MB``); both ends must have the same dimension (time, rate or size). The generated
points are then **strings with a unit**, written with six significant digits in the unit
that gives a mantissa in [1, 1000) — ``1us, 2.61016us, …, 46.4159ms, 100ms`` — so the
scenario receives exactly what a user would have typed and the Rust validator parses the
unit as usual (a bare number would mean seconds, bit/s or bytes depending on the field).
For tables and plots, :func:`numeric_values` converts such an axis to SI numbers
(seconds, bit/s, bytes); the sweep table carries both (``obs.tb`` and ``obs.tb [s]``).

Integer ranges: if both end points are written as integers (``16..512:log:6``,
``10..50:lin:5``) the points are integers — log points are rounded and duplicates
removed — so integer fields (``wm``) accept them. A linear range whose step is not a whole
number (``0..1:lin:5``) gives floats; write ``1.0..100:log:5`` to get unrounded log points.
"""

from __future__ import annotations

import copy
import itertools
import math
import numbers
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence, Sized
from typing import Any

from burstlab import units

Value = str | int | float | bool

# Output units, smallest first, for formatting generated points.
_TIME_OUT = [("ps", 1e-12), ("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)]
_SIZE_OUT = [("B", 1.0), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9)]
_SIZE_OUT_BIN = [("B", 1.0), ("KiB", 1024.0), ("MiB", 1024.0**2), ("GiB", 1024.0**3)]

#: The SI unit each dimension converts to, as used in column names and axis labels.
SI_UNIT = {"time": "s", "rate": "b/s", "size": "B"}

_NUM = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*?)\s*$")
_INT = re.compile(r"^\s*[+-]?\d+\s*$")

#: The most values one axis may have — a range expands to, or a list, collection or
#: iterator gives through the API (a sweep runs at most a million runs in all:
#: ``burstlab.sweep.MAX_RUNS``); more is refused before anything is expanded.
MAX_AXIS_POINTS = 1_000_000
_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.([A-Za-z_][A-Za-z0-9_]*|\d+))*$")


class GridError(ValueError):
    """A malformed grid entry; the message names the entry."""


def quantity(text: str) -> tuple[float, str | None, float] | None:
    """Parses ``"2.5ms"`` into ``(2.5, "time", 0.0025)``; a bare number gives
    ``(x, None, x)``; anything else ``None``.

    >>> quantity("2.5ms"), quantity("7"), quantity("reno")
    ((2.5, 'time', 0.0025), (7.0, None, 7.0), None)
    """
    m = _NUM.match(text)
    if not m:
        return None
    num, unit = float(m.group(1)), m.group(2)
    if unit == "":
        return num, None, num
    dim = _unit_dimension(unit)
    if dim is None:
        return None
    return num, dim[0], num * dim[1]


def _unit_dimension(unit: str) -> tuple[str, float] | None:
    """The dimension of a unit and its factor to SI, using the parsers of
    :mod:`burstlab.units` (time before rate, so ``ps`` is a picosecond)."""
    parsers = (("time", units.parse_time), ("rate", units.parse_rate), ("size", units.parse_size))
    for dim, parse in parsers:
        try:
            return dim, parse(f"1{unit}")
        except ValueError:
            continue
    return None


def _format(si: float, dim: str, style: str) -> str:
    """Formats an SI value with six significant digits in a unit giving a mantissa in
    [1, 1000) (or the extreme unit)."""
    if dim == "time":
        table = _TIME_OUT
    elif dim == "size":
        table = _SIZE_OUT_BIN if style == "bin" else _SIZE_OUT
    else:
        base, mult = ("B", 8.0) if style == "bytes" else ("b", 1.0)
        table = [(f"{p}{base}/s", f * mult) for p, f in (("", 1.0), ("k", 1e3), ("M", 1e6),
                                                          ("G", 1e9), ("T", 1e12))]
    if si == 0:
        return f"0{table[-1][0] if dim == 'time' else table[0][0]}"
    name, factor = table[0]
    for n, f in table:
        if abs(si) >= f * (1 - 1e-12):
            name, factor = n, f
    return f"{si / factor:.6g}{name}"


def _scalar(item: str) -> Value:
    s = item.strip()
    if _INT.match(s):
        return int(s)
    low = s.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        x = float(s)
    except ValueError:
        return s
    if not math.isfinite(x):
        return s
    return x


def parse_axis(spec: str, *, name: str = "") -> list[Value]:
    """Parses one grid spec (the part after ``=``) into its list of values.

    Raises:
        GridError: the spec is malformed; the message quotes ``name`` and the spec.

    >>> parse_axis("1ms..4ms:lin:4"), parse_axis("1e-3..1e-1:log:3"), parse_axis("reno,sack")
    (['1ms', '2ms', '3ms', '4ms'], [0.001, 0.01, 0.1], ['reno', 'sack'])
    >>> parse_axis("1ms..4ms:3")
    Traceback (most recent call last):
    ...
    burstlab.grid.GridError: grid entry '1ms..4ms:3': a range must read a..b:lin:n or a..b:log:n
    """
    where = f"grid entry {name + '=' if name else ''}{spec!r}"
    text = spec.strip()
    if not text:
        raise GridError(f"{where}: empty value list")
    if ".." in text and not text.startswith(("'", '"')):
        return _parse_range(text, where)
    items = [p.strip() for p in text.split(",")]
    if any(not p for p in items):
        raise GridError(f"{where}: empty item in list (use a,b,c)")
    return [_scalar(p) for p in items]


def _parse_range(text: str, where: str) -> list[Value]:
    m = re.fullmatch(r"(.+?)\.\.(.+?):(lin|log):(.+)", text)
    if not m:
        raise GridError(f"{where}: a range must read a..b:lin:n or a..b:log:n")
    a_txt, b_txt, kind, n_txt = (g.strip() for g in m.groups())
    if not _INT.match(n_txt) or int(n_txt) < 1:
        raise GridError(f"{where}: the number of points must be a positive integer, "
                        f"got {n_txt!r}")
    n = int(n_txt)
    if n > MAX_AXIS_POINTS:
        raise GridError(f"{where}: {n:,} points, more than {MAX_AXIS_POINTS:,} in one "
                        "range: split it into smaller sweeps (they can share one --store)")
    qa, qb = quantity(a_txt), quantity(b_txt)
    for t, q in ((a_txt, qa), (b_txt, qb)):
        if q is None:
            raise GridError(f"{where}: {t!r} is not a number or a quantity with a known "
                            "unit (time s/ms/us/ns, rate b/s B/s, size B/KB/MB/KiB)")
    assert qa is not None and qb is not None
    dims = {qa[1], qb[1]}
    dim: str | None
    if len(dims) > 1:
        if None in dims:  # allow 0..10ms: the bare end takes the other end's unit family
            dim = next(d for d in dims if d is not None)
        else:
            raise GridError(f"{where}: the end points have different dimensions "
                            f"({qa[1]} and {qb[1]})")
    else:
        dim = qa[1]
    a, b = qa[2], qb[2]
    # a..b runs upwards from a to b: a reversed or empty range is a contradiction.
    if a > b:
        raise GridError(f"{where}: the range runs from {a_txt} down to {b_txt}; write it "
                        "upwards (a..b with a < b), or list the values in the order wanted")
    if n > 1 and a == b:
        raise GridError(f"{where}: {n} points between equal end points; give one value")
    if n == 1 and a != b:
        raise GridError(f"{where}: one point cannot span {a_txt}..{b_txt}; give n >= 2 "
                        "or a single value")
    if kind == "log":
        if a <= 0 or b <= 0:
            raise GridError(f"{where}: a log range needs positive end points")
        if n == 1:
            si = [a]
        else:
            la, lb = math.log10(a), math.log10(b)
            si = [10 ** (la + (lb - la) * i / (n - 1)) for i in range(n)]
            si[0], si[-1] = a, b  # exact end points
    else:
        si = [a + (b - a) * i / (n - 1) for i in range(n)] if n > 1 else [a]
        if n > 1:
            si[-1] = b
    if dim is not None:
        style: str = "bin" if any(t.endswith("iB") for t in (a_txt, b_txt)) else "dec"
        if dim == "rate":
            ends = [t for t, q in ((a_txt, qa), (b_txt, qb)) if q[1] == "rate"]
            style = "bytes" if all(re.search(r"B(/s|ps)$", t) for t in ends) else "bits"
        return [_format(x, dim, style) for x in si]
    ints = _INT.match(a_txt) and _INT.match(b_txt)
    if ints and kind == "lin" and n > 1 and (int(b) - int(a)) % (n - 1) != 0:
        ints = None  # 0..1:lin:5 means 0, 0.25, …: keep floats
    if ints:
        out: list[Value] = []
        for x in si:
            v = int(round(x))
            if v not in out:
                out.append(v)
        return out
    return [float(f"{x:.12g}") for x in si]


def parse_grid_entry(entry: str) -> tuple[str, list[Value]]:
    """Parses ``"path=spec"`` (the CLI's ``--grid``).

    >>> parse_grid_entry("obs.tb=1ms,2ms")
    ('obs.tb', ['1ms', '2ms'])
    """
    if "=" not in entry:
        raise GridError(f"grid entry {entry!r}: expected path=values, e.g. "
                        "sim.duration=10s,20s or link.1.loss_ab=1e-4..1e-1:log:4")
    path, spec = entry.split("=", 1)
    path = path.strip()
    check_path(path, entry)
    return path, parse_axis(spec, name=path)


def check_path(path: str, entry: str | None = None) -> None:
    """Raises :class:`GridError` unless ``path`` is a dotted path of keys and list
    indices (``entry``, the grid entry it came from, is quoted in the message).

    >>> check_path("flow.0.variant")
    >>> check_path("flow..x")
    Traceback (most recent call last):
    ...
    burstlab.grid.GridError: grid entry 'flow..x': 'flow..x' is not a dotted path (...)
    """
    if not _PATH.match(path):
        raise GridError(f"grid entry {entry or path!r}: {path!r} is not a dotted path "
                        "(keys and list indices separated by dots, e.g. flow.0.variant)")


def normalise_grid(grid: Mapping[str, Any]) -> dict[str, list[Value]]:
    """Turns an API grid (values: a spec string, or a sequence of literal values) into
    ``{path: [values]}``, checking paths and rejecting empty axes.

    >>> normalise_grid({"obs.tb": "1ms,2ms", "flow.0.wm": [10, 20]})
    {'obs.tb': ['1ms', '2ms'], 'flow.0.wm': [10, 20]}
    """
    out: dict[str, list[Value]] = {}
    for path, spec in grid.items():
        check_path(path)
        if isinstance(spec, str):
            vals = parse_axis(spec, name=path)
        elif isinstance(spec, Iterable) and not isinstance(spec, (bytes, Mapping)):
            vals = _literals(path, spec)
        else:
            vals = [_literal(path, spec)]
        if not vals:
            raise GridError(f"grid entry {path!r}: no values")
        if len(set(map(repr, vals))) != len(vals):
            raise GridError(f"grid entry {path!r}: repeated values {vals!r}")
        out[path] = vals
    return out


def _literals(path: str, spec: Iterable[Any]) -> list[Value]:
    """The values of an API axis, at most :data:`MAX_AXIS_POINTS` of them: a sized
    collection (``range(10**7)``) is refused by its length before anything is expanded,
    and an iterator is read one value past the bound, so an endless one is refused too
    instead of growing until memory runs out."""
    split = "split it into smaller sweeps (they can share one --store)"
    if isinstance(spec, Sized) and len(spec) > MAX_AXIS_POINTS:
        raise GridError(f"grid entry {path!r}: {len(spec):,} values, more than "
                        f"{MAX_AXIS_POINTS:,} in one axis: {split}")
    vals = [_literal(path, v) for v in itertools.islice(spec, MAX_AXIS_POINTS + 1)]
    if len(vals) > MAX_AXIS_POINTS:
        raise GridError(f"grid entry {path!r}: more than {MAX_AXIS_POINTS:,} values in one "
                        f"axis (an endless iterator?): {split}")
    return vals


def _literal(path: str, v: Any) -> Value:
    """A grid value given through the API as a plain ``str``/``int``/``float``/``bool``:
    numpy scalars and other :class:`numbers.Integral` / :class:`numbers.Real` become
    ints and floats (``numpy.arange(1, 5)`` is a valid axis)."""
    if isinstance(v, (str, bool)):
        return v
    if type(v).__module__ == "numpy" and type(v).__name__ in ("bool_", "bool"):
        return bool(v)
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        if not math.isfinite(v):
            raise GridError(f"grid entry {path!r}: {float(v)!r} is not a finite number")
        return float(v)
    raise GridError(f"grid entry {path!r}: values must be str, int, float or bool, "
                    f"got {v!r}")


def numeric_values(values: Sequence[Value]) -> tuple[list[float], str] | None:
    """If every value of an axis is a quantity string of one dimension, returns the SI
    values and the SI unit (``"s"``, ``"b/s"``, ``"B"``); otherwise ``None``.

    >>> numeric_values(["1ms", "2ms"]), numeric_values(["reno"])
    (([0.001, 0.002], 's'), None)
    """
    if not values or not all(isinstance(v, str) for v in values):
        return None
    qs = [quantity(str(v)) for v in values]
    dims = {q[1] for q in qs if q is not None}
    if any(q is None for q in qs) or len(dims) != 1 or None in dims:
        return None
    (dim,) = dims
    assert dim is not None
    return [q[2] for q in qs if q is not None], SI_UNIT[dim]


def set_path(scenario: dict[str, Any], path: str, value: Value) -> None:
    """Sets ``scenario[path] = value`` in place (``flow.0.variant``).

    Raises:
        GridError: an index is out of range, or the path runs through a scalar.

    >>> spec = {"flow": [{"variant": "reno"}]}
    >>> set_path(spec, "flow.0.variant", "sack")
    >>> spec
    {'flow': [{'variant': 'sack'}]}
    """
    parts = path.split(".")
    node: Any = scenario
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        here = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not part.isdigit():
                raise GridError(f"grid entry {path!r}: {'.'.join(parts[:i])!r} is a list; "
                                f"expected an index, got {part!r}")
            k = int(part)
            if k >= len(node):
                raise GridError(f"grid entry {path!r}: index {k} out of range "
                                f"({'.'.join(parts[:i])!r} has {len(node)} entries)")
            if last:
                node[k] = value
            else:
                node = node[k]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                if part not in node:
                    if parts[i + 1].isdigit():
                        raise GridError(f"grid entry {path!r}: {here!r} does not exist")
                    node[part] = {}
                node = node[part]
        else:
            raise GridError(f"grid entry {path!r}: {'.'.join(parts[:i])!r} is a value, "
                            "not a table or list")


def points(grid: Mapping[str, Sequence[Value]]) -> list[dict[str, Value]]:
    """The Cartesian product of the axes, first axis slowest, as ``{path: value}``.

    >>> points({"obs.tb": ["1ms", "2ms"], "flow.0.variant": ["reno", "sack"]})
    [{'obs.tb': '1ms', 'flow.0.variant': 'reno'}, {'obs.tb': '1ms', 'flow.0.variant': 'sack'},
     {'obs.tb': '2ms', 'flow.0.variant': 'reno'}, {'obs.tb': '2ms', 'flow.0.variant': 'sack'}]
    """
    return list(iter_points(grid))


def iter_points(grid: Mapping[str, Sequence[Value]]) -> Iterator[dict[str, Value]]:
    """:func:`points` one at a time: the grid is expanded as it is consumed, never held
    whole.

    >>> it = iter_points({"obs.tb": ["1ms", "2ms"]})
    >>> next(it), next(it)
    ({'obs.tb': '1ms'}, {'obs.tb': '2ms'})
    """
    paths = list(grid)
    for combo in itertools.product(*(grid[p] for p in paths)):
        yield dict(zip(paths, combo, strict=True))


def apply(base: Mapping[str, Any], point: Mapping[str, Value]) -> dict[str, Any]:
    """A deep copy of ``base`` with every ``path: value`` of ``point`` set.

    A float with an integral value is written as an integer (``10.0`` → ``10``): an
    integer setting (``wm``) accepts it, and a real-valued one reads it unchanged.

    >>> apply({"flow": [{"wm": 5}]}, {"flow.0.wm": 10.0})
    {'flow': [{'wm': 10}]}
    """
    sc = copy.deepcopy(dict(base))
    for path, v in point.items():
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
            v = int(v)
        set_path(sc, path, v)
    return sc


def check_cases(cases: Sequence[Mapping[str, Any]] | None,
                axes: Mapping[str, Sequence[Value]],
                ) -> tuple[list[dict[str, Value]], dict[str, list[Value]]]:
    """The cases of :func:`burstlab.sweep.sweep` as ``{path: value}`` dicts, and per path the values
    the cases give it, in order (``""`` for a case that leaves it unset).

    >>> cases, values = check_cases([{"flow.0.variant": "reno"},
    ...                              {"flow.0.variant": "sack", "flow.0.cc": "cubic"}], {})
    >>> values
    {'flow.0.variant': ['reno', 'sack'], 'flow.0.cc': ['', 'cubic']}
    """
    if cases is None:
        return [], {}
    if isinstance(cases, (str, bytes, Mapping)) or not isinstance(cases, Sequence):
        raise GridError("cases: expected a list of {path: value} dicts")
    out: list[dict[str, Value]] = []
    for i, case in enumerate(cases):
        if not isinstance(case, Mapping) or not case:
            raise GridError(f"cases[{i}]: expected a non-empty {{path: value}} dict, "
                            f"got {case!r}")
        c: dict[str, Value] = {}
        for path, v in case.items():
            if path in axes:
                raise GridError(f"cases[{i}]: {path} is also a grid entry")
            # the path and the value checked as a grid entry's
            c[path] = normalise_grid({path: [v]})[path][0]
        if c in out:
            raise GridError(f"cases[{i}] repeats cases[{out.index(c)}]: {c}")
        out.append(c)
    paths = list(dict.fromkeys(p for c in out for p in c))
    case_axes = {p: list(dict.fromkeys((c.get(p, "") for c in out), None)) for p in paths}
    return out, case_axes
