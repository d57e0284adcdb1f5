"""The Python face of the simulator: ``run(scenario) -> Result``.

A scenario is a TOML file, TOML text, or a plain dict with the same structure (see
``examples/`` and docs/reference/scenario.md). It is validated in Rust; errors raise
:class:`burstlab.ScenarioError` with a message that names the field.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burstlab import _core

if TYPE_CHECKING:
    import pandas as pd

ScenarioLike = str | os.PathLike[str] | Mapping[str, Any]

def load_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Returns the scenario as a dict (reading a TOML/JSON file or TOML text), its
    ``[network]`` graph, if any, built (:func:`_with_network`).

    >>> spec = load_scenario("examples/single_flow.toml")
    >>> spec["name"], len(spec["link"]), spec["flow"][0]["variant"]
    ('single-flow', 3, 'sack')
    >>> load_scenario("name = 'demo'")
    {'name': 'demo'}
    """
    if isinstance(scenario, Mapping):
        return _with_network(scenario)
    text, fmt = _text_and_format(scenario)
    if fmt == "json":
        return dict(json.loads(text))
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _core.ScenarioError(f"malformed TOML: {e}") from None


def _text_and_format(scenario: str | os.PathLike[str]) -> tuple[str, str]:
    if not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(f"scenario must be a file path, TOML text or a dict, got "
                        f"{type(scenario).__name__}")
    # An existing file wins, even if its name contains '=' ("a=1.toml"); otherwise text
    # with a newline or '=' is TOML, anything else a path that must exist.
    if isinstance(scenario, str) and ("\n" in scenario or "=" in scenario):
        is_path = "\n" not in scenario and len(scenario) < 4096 and Path(scenario).is_file()
    else:
        is_path = True
    if is_path:
        path = Path(scenario)
        if not path.is_file():
            raise _core.ScenarioError(f"scenario file not found: {path}")
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        return _network_text(path.read_text(encoding="utf-8"), fmt, path.parent)
    return _network_text(str(scenario), "toml", None)


def _with_network(spec: Mapping[str, Any], base: Path | None = None) -> dict[str, Any]:
    """``spec`` as a dict, its ``[network]`` table (a graph file) replaced by the
    scenario built from the graph (burstlab/topologies/network_table.py), a relative
    file taken from ``base`` (default: the working directory)."""
    if "network" not in spec:
        return dict(spec)
    from burstlab.topologies.network_table import expand_network

    return expand_network(spec, base)


#: Where a scenario's text may hold a ``network`` key: a ``[network]`` table or a
#: ``network = …`` / ``network.file = …`` line in TOML, a ``"network"`` key in JSON.
_NETWORK_TOML = re.compile(
    r"""(?m)^[ \t]*(\[[ \t]*(network|"network"|'network')[ \t]*[\].]"""
    r"""|(network|"network"|'network')[ \t]*[.=])""")
_NETWORK_JSON = re.compile(r'"network"[ \t\r\n]*:')


def _network_text(text: str, fmt: str, base: Path | None) -> tuple[str, str]:
    """``(text, fmt)`` as it is, or, when the scenario has a ``[network]`` table, the
    expanded scenario as JSON text (:func:`_with_network`; the core has no such key).
    Malformed text is returned as it is, for the core to report."""
    # A cheap look first: the word alone is common in comments and descriptions.
    if not (_NETWORK_JSON if fmt == "json" else _NETWORK_TOML).search(text):
        return text, fmt
    try:
        spec = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError):
        return text, fmt
    if not isinstance(spec, Mapping) or "network" not in spec:
        return text, fmt
    return _to_json(_with_network(spec, base)), "json"


#: Seeds and replication indices are unsigned 64-bit integers in the core.
U64_MAX = 2**64 - 1


def is_numpy_bool(v: object) -> bool:
    """Whether ``v`` is ``numpy.bool_`` (without importing numpy).

    >>> import numpy as np
    >>> is_numpy_bool(np.bool_(True)), is_numpy_bool(True)
    (True, False)
    """
    t = type(v)
    return t.__module__ == "numpy" and t.__name__ in ("bool_", "bool")


def as_int(v: object) -> int | None:
    """``v`` as a Python int if it is an integer (``int``, ``numpy.int64``, any
    :class:`numbers.Integral`, or a real number with an integral value such as
    ``numpy.float64(3.0)``), else None. Booleans are not integers here.

    >>> import numpy as np
    >>> as_int(np.int64(7)), as_int(3.0), as_int(2.5), as_int(True)
    (7, 3, None, None)
    """
    if isinstance(v, bool) or is_numpy_bool(v):
        return None
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        f = float(v)
        if math.isfinite(f) and f.is_integer():
            return int(f)
    return None


def check_u64(name: str, v: object) -> int | None:
    """``v`` as an int; raises ScenarioError unless ``v`` is None or an integer in
    [0, 2^64 − 1] (numpy integers and other :class:`numbers.Integral` are accepted).

    >>> check_u64("seed", 3.0), check_u64("seed", None)
    (3, None)
    >>> check_u64("seed", -1)
    Traceback (most recent call last):
    ...
    _core.ScenarioError: seed: must be an integer from 0 to 2^64 - 1 = 18446744073709551615, got -1
    """
    if v is None:
        return None
    i = as_int(v)
    if i is None or not 0 <= i <= U64_MAX:
        raise _core.ScenarioError(
            f"{name}: must be an integer from 0 to 2^64 - 1 = {U64_MAX}, got {v!r}")
    return i


#: The deepest a scenario given as a dict may nest (the schema needs 5 levels:
#: ``obs.class[0].assembly.tb``); deeper input is refused before it can exhaust the
#: stack of the JSON encoder or the parser.
MAX_NESTING = 32


def plain(value: Any, path: str = "", depth: int = 0) -> Any:
    """``value`` with plain JSON types only, for the core: mappings become dicts with
    string keys, lists/tuples/numpy arrays lists, numpy and other
    :class:`numbers.Integral` / :class:`numbers.Real` scalars ints and floats, paths
    strings. NaN or infinity (which JSON cannot carry), anything else, or nesting deeper
    than :data:`MAX_NESTING`, raises ScenarioError naming the field and the value.

    >>> import numpy as np
    >>> plain({"sim": {"seed": np.int64(4)}, "flow": (1, np.float64(0.5))})
    {'sim': {'seed': 4}, 'flow': [1, 0.5]}
    >>> plain({"link": [{"loss_ab": float("nan")}]})
    Traceback (most recent call last):
    ...
    _core.ScenarioError: link[0].loss_ab: nan is not a finite number
    """
    where = path or "scenario"
    if depth > MAX_NESTING:
        if len(where) > 80:
            where = where[:40] + "…" + where[-36:]
        raise _core.ScenarioError(
            f"{where}: nested more than {MAX_NESTING} levels deep (a scenario needs at "
            f"most 5)")
    if value is None or isinstance(value, (str, bool)):
        return value
    if is_numpy_bool(value):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x):  # JSON has no NaN or infinity: name the field here
            raise _core.ScenarioError(f"{where}: {x!r} is not a finite number")
        return x
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _core.ScenarioError(
                    f"{where}: keys must be strings, got {k!r} ({type(k).__name__})")
            out[k] = plain(v, f"{path}.{k}" if path else k, depth + 1)
        return out
    if hasattr(value, "tolist") and hasattr(value, "ndim"):  # a numpy array
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, (bytes, bytearray)):
        raise _core.ScenarioError(f"{where}: bytes are not text; decode them first")
    # TOML dates and times: text, as tomllib/JSON round trips give.
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise _core.ScenarioError(
        f"{where}: a value of type {type(value).__name__} is not a number, string, "
        f"boolean, list or table")


def _to_json(scenario: Mapping[str, Any]) -> str:
    """The scenario dict as JSON text for the core (see :func:`plain`), its
    ``[network]`` graph built (:func:`_with_network`)."""
    return json.dumps(plain(_with_network(scenario)))


#: A table as the core hands it over: JSON rows (text) or a list of row dicts, or a
#: dict of columns (the traces).
RawTable = str | list[dict[str, Any]] | dict[str, list[Any]]

#: The columns every result CSV carries besides the table's own.
STAMP_COLUMNS = ("scenario", "seed", "replication", "burstlab_version")

#: The :class:`Result` attribute of each core table whose name differs from it.
_ATTR_OF = {"cwnd_trace": "cwnd", "packet_trace": "packets"}
_TABLE_OF = {v: k for k, v in _ATTR_OF.items()}


class Result:
    """The outcome of one run.

    >>> res = burstlab.run("examples/single_flow.toml", seed=3)
    >>> res
    <burstlab Result: scenario 'single-flow', seed 3, replication 0, tables flows, links, ...>
    >>> res.flows.loc[0, "goodput_segps"], res.flows.loc[0, "retransmits"]
    (np.float64(120.68), np.int64(356))

    The tables are the core's (``burstlab_core::stats::RunResult::tables``, their one
    list); each is a pandas DataFrame built on first access, so a run that only prints
    its summary or writes its CSV files never imports pandas.

    Attributes:
        meta: seed, replication, scenario name, burstlab version, duration, events.
        scenario: the scenario as run (a dict).
        tables: the names of the core's tables, in order (``cwnd_trace`` and
            ``packet_trace`` are the attributes ``cwnd`` and ``packets``).
        flows: one row per flow (goodput/throughput in segments/s and bit/s, segments
            sent and retransmitted, TD and TO loss events, mean RTT, time-average cwnd,
            the one-way delay of the segments that arrived, ``delay_mean_s``, and its
            standard deviation, ``jitter_s``).
        links: one row per link direction (packets, drops by cause, utilisation).
        cwnd: cwnd trace (time_s, flow, cwnd_segments, ssthresh_segments) if enabled.
        packets: packet trace (time_s, flow, seq, event, retransmit) if enabled.
        bursts: OBS, one row per assembly queue (bursts sent/lost by reason, loss
            probability, burst length in bytes and packets with quantiles, yu's S as
            ``mean_data_pkts``, ACK bursts, assembly delay).
        obs_links: OBS, one row per fibre direction (bursts offered/scheduled, losses by
            reason, loss probability, wavelength utilisation).
        obs_channels: OBS, one row per fibre direction and wavelength when
            ``obs.contention.per_wavelength`` is on (bursts scheduled, busy time in s,
            utilisation, bursts lost waiting for it, bursts via an FDL or a converter).
        obs_flows: OBS, one row per flow crossing an OBS network (its S as
            ``mean_segments_per_burst``, ACK bursts, bursts lost, assembly delay).
        burst_hist: OBS, packets-per-burst histogram (queue, pkts_lo, pkts_hi, count).
        burst_trace: OBS burst trace (time_s, queue, burst, event, pkts, bytes, reason,
            fibre) if ``sim.trace.bursts`` is on.
        goodput_trace: every TCP flow's in-order delivered segments, cumulative from
            the start (time_s, flow, delivered_segments), sampled every
            ``sim.trace.goodput`` seconds (a goodput time series).
        cc_trace: the congestion controller's state of every flow with a modern
            controller (``cc`` other than ``aimd``) after each sender call that changed
            it, if ``sim.trace.cc`` is on: time_s, flow, cc, cwnd_segments, CUBIC's
            cubic_w_max_segments, cubic_epoch_start_s and cubic_k_s, Vegas's
            vegas_base_rtt_s and vegas_diff_segments, BBR's bbr_mode (0 STARTUP,
            1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT), bbr_pacing_rate_segps, bbr_btlbw_segps
            and bbr_min_rtt_s (NaN where a column does not apply).
        cwnd_estimates: OBS, one row per flow assembled by ``ecwba``: the ingress's
            cwnd estimate against the true cwnd (mean absolute error in segments, mean
            relative error).
        fct: one row per finite TCP flow (``segments = N``): size, ``start_s``,
            ``end_s`` (its last segment's ACK back at the sender), ``fct_s``, the ideal
            ``ideal_fct_s`` alone on its path, ``slowdown``, ``completed`` (False, with
            NaN times, for a flow still running at the end), loss events and bursts
            lost; summaries in :mod:`burstlab.fct` (docs/guide/completion-times.md).
        streamed: the traces written to disk while the run went (``sim.trace.dir``,
            ``run(trace_dir=...)``): table name -> (CSV path, rows). Their tables read
            the file on first access.
    """

    if TYPE_CHECKING:  # the tables, for type checkers (tests check them against the core)
        flows: pd.DataFrame
        links: pd.DataFrame
        cwnd: pd.DataFrame
        packets: pd.DataFrame
        bursts: pd.DataFrame
        obs_links: pd.DataFrame
        obs_flows: pd.DataFrame
        obs_channels: pd.DataFrame
        burst_hist: pd.DataFrame
        burst_trace: pd.DataFrame
        goodput_trace: pd.DataFrame
        cwnd_estimates: pd.DataFrame
        cc_trace: pd.DataFrame
        fct: pd.DataFrame
        routes: pd.DataFrame

    def __init__(self, meta: Mapping[str, Any], raw: Mapping[str, RawTable],
                 tables: Sequence[str], optional: Sequence[str] = (),
                 scenario: Mapping[str, Any] | None = None,
                 streamed: Mapping[str, Sequence[Any]] | None = None) -> None:
        self.meta: dict[str, Any] = dict(meta)
        self.scenario: dict[str, Any] = dict(scenario or {})
        self.tables: tuple[str, ...] = tuple(tables)
        self._optional = frozenset(optional)
        self._raw: dict[str, RawTable] = {k: raw[k] for k in self.tables if k in raw}
        self._frames: dict[str, pd.DataFrame] = {}
        self.streamed: dict[str, tuple[Path, int]] = {
            k: (Path(v[0]), int(v[1])) for k, v in (streamed or {}).items()}

    @classmethod
    def from_core(cls, raw: Mapping[str, Any],
                  scenario: Mapping[str, Any] | None = None) -> Result:
        """A :class:`Result` from what ``_core.run`` returned.

        >>> from burstlab import _core
        >>> from burstlab.api import _to_json
        >>> spec = load_scenario("examples/single_flow.toml")
        >>> raw = _core.run(_to_json(spec), "json", 3, 0, None)
        >>> Result.from_core(raw, spec).flows.loc[0, "retransmits"]
        np.int64(356)
        """
        return cls(raw["meta"], raw, raw["tables"], raw.get("optional_tables", ()), scenario,
                   raw.get("streamed"))

    def __getattr__(self, attr: str) -> Any:
        name = _TABLE_OF.get(attr, attr)
        if attr.startswith("_") or name not in self.__dict__.get("tables", ()):
            raise AttributeError(f"{type(self).__name__!s} has no attribute {attr!r}")
        return self.table(name)

    def table(self, name: str) -> pd.DataFrame:
        """The core table ``name`` as a DataFrame (JSON nulls, i.e. NaN, as float NaN).

        >>> res = burstlab.run("examples/single_flow.toml", seed=3)
        >>> res.table("links").shape
        (6, 9)
        >>> res.table("cwnd_trace").equals(res.cwnd)    # cwnd is the attribute's name
        True
        """
        if name not in self.tables:
            raise KeyError(f"no table {name!r}; the tables are {', '.join(self.tables)}")
        df = self._frames.get(name)
        if df is None:
            import pandas as pd

            if name in self.streamed:
                df = self._read_streamed(name)
            else:
                df = pd.DataFrame(self._records(name) if self._is_rows(name)
                                  else self._raw.get(name, {}))
            for c in df.columns:
                if df[c].dtype == object and df[c].isna().any():
                    df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
            self._frames[name] = df
        return df

    def _read_streamed(self, name: str) -> pd.DataFrame:
        """A streamed trace read back from its file, without the stamp columns."""
        import pandas as pd

        path, rows = self.streamed[name]
        if rows == 0:
            return pd.DataFrame()
        if path.suffix == ".parquet":  # a table burstlab.load found written as Parquet
            df = pd.read_parquet(path)
        else:
            df = pd.read_csv(path, keep_default_na=False, na_values=["nan"])
        return df.drop(columns=[c for c in STAMP_COLUMNS if c in df.columns])

    def _is_rows(self, name: str) -> bool:
        return not isinstance(self._raw.get(name, "[]"), dict)

    def _records(self, name: str) -> list[dict[str, Any]]:
        """A row table as a list of dicts (parsed once)."""
        v = self._raw.get(name, "[]")
        if isinstance(v, str):
            v = json.loads(v)
            self._raw[name] = v
        assert isinstance(v, list)
        return v

    def _columns(self, name: str) -> dict[str, list[Any]]:
        """Any table as columns (without pandas, unless the table was streamed)."""
        if name in self.streamed:
            return {str(k): list(v) for k, v in self.table(name).to_dict("list").items()}
        if self._is_rows(name):
            recs = self._records(name)
            keys: dict[str, None] = {}
            for r in recs:
                keys.update(dict.fromkeys(r))
            return {k: [r.get(k) for r in recs] for k in keys}
        v = self._raw.get(name, {})
        assert isinstance(v, dict)
        return v

    def _is_empty(self, name: str) -> bool:
        if name in self.streamed:
            return self.streamed[name][1] == 0
        if self._is_rows(name):
            return not self._records(name)
        return not any(len(c) for c in self._columns(name).values())

    @property
    def seed(self) -> int:
        """The run's master seed.

        >>> burstlab.run("examples/single_flow.toml", seed=3).seed
        3
        """
        return int(self.meta["seed"])

    def __repr__(self) -> str:
        m = self.meta
        return (f"<burstlab Result: scenario {m.get('scenario')!r}, seed {m.get('seed')}, "
                f"replication {m.get('replication')}, tables {', '.join(self.tables)}>")

    @property
    def summary(self) -> RunSummary:
        """The main per-flow figures: a table, like :attr:`burstlab.SweepResult.summary`
        (``res.summary["goodput_bps"]``, ``res.summary.columns``; a pandas DataFrame
        built on first use), and, called (``res.summary()``), the fixed-width text
        ``burstlab run`` prints.

        >>> res = burstlab.run("examples/single_flow.toml", seed=3)
        >>> res.summary["goodput_bps"].tolist()
        [965440.0]
        >>> print(res.summary())
        scenario 'single-flow'  seed 3  replication 0  burstlab ...  simulated 300 s
        flow  name kind variant   cc goodput_segps goodput_bps segments_sent ...
           0 flow0  tcp    sack aimd         120.7   9.654e+05         36570 ...
        """
        return RunSummary(self)

    def summary_text(self) -> str:
        """A fixed-width table of the main per-flow figures (OBS runs add yu's S and
        the burst losses of each flow).

        >>> res = burstlab.run("examples/single_flow.toml", seed=3)
        >>> res.summary_text().splitlines()[0]
        "scenario 'single-flow'  seed 3  replication 0  burstlab ...  simulated 300 s"
        """
        cols = list(RunSummary.COLUMNS)
        head = (
            f"scenario {self.meta['scenario']!r}  seed {self.meta['seed']}  "
            f"replication {self.meta['replication']}  burstlab {self.meta['version']}  "
            f"simulated {self.meta['duration_s']:g} s"
        )
        text = head + "\n" + _text_table(self._columns("flows"), cols)
        if not self._is_empty("obs_flows"):
            ocols = ["flow", "data_bursts", "mean_segments_per_burst", "burst_loss_prob",
                     "ack_bursts", "mean_assembly_delay_s"]
            text += ("\nOBS (mean_segments_per_burst is yu's S)\n"
                     + _text_table(self._columns("obs_flows"), ocols))
        return text

    def plot_cwnd(self, flows: Sequence[int] | None = None, *,
                  ssthresh: bool = False) -> Any:
        """A figure of each flow's cwnd against time (needs ``sim.trace.cwnd = true``);
        see :func:`burstlab.plot.plot_cwnd`.

        >>> spec = burstlab.load_scenario("examples/single_flow.toml")
        >>> spec["sim"]["trace"] = {"cwnd": True}
        >>> fig = burstlab.run(spec, seed=3).plot_cwnd()
        >>> fig.axes[0].get_ylabel()
        'cwnd [segments]'
        """
        from burstlab.plot import plot_cwnd

        return plot_cwnd(self, flows, ssthresh=ssthresh)

    def _repr_html_(self) -> str:
        """Jupyter: the run's header, then its flow, link and OBS tables as HTML."""
        import html

        m = self.meta
        parts = [f"<p><b>burstlab Result</b>: scenario {html.escape(str(m.get('scenario')))}, "
                 f"seed {m.get('seed')}, replication {m.get('replication')}, "
                 f"{m.get('duration_s', float('nan')):g} s simulated, burstlab "
                 f"{html.escape(str(m.get('version')))}</p>"]
        for name in ("flows", "links", "obs_flows", "bursts"):
            if name in self.tables and not self._is_empty(name):
                parts.append(f"<p><code>{name}</code></p>"
                             + self.table(name).to_html(index=False, max_rows=40, border=0))
        return "\n".join(parts)

    def to_dir(self, out: str | os.PathLike[str], format: str = "parquet") -> list[Path]:
        """Writes one table file per table (an optional table — OBS, traces — only when
        it has rows) and result.json into ``out``: ``<table>.parquet`` (the default),
        or ``<table>.csv`` with ``format="csv"``.

        Every table carries the seed, replication, scenario name and burstlab version as
        columns; result.json holds the meta data, the full scenario, every row table and
        the name of each table's file (``files``). A streamed trace's file is a CSV
        whatever ``format`` says (the core writes it while the run goes, in bounded
        memory): it is copied (or left where it is, when it was streamed to ``out``), as
        it already has this form, byte for byte. :func:`burstlab.load` reads either.

        >>> import tempfile
        >>> res = burstlab.run("examples/single_flow.toml", seed=3)
        >>> [p.name for p in res.to_dir(tempfile.mkdtemp())]
        ['flows.parquet', 'links.parquet', 'routes.parquet', 'result.json']
        >>> [p.name for p in res.to_dir(tempfile.mkdtemp(), format="csv")]
        ['flows.csv', 'links.csv', 'routes.csv', 'result.json']
        """
        import shutil

        check_format(format)
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        written = []
        stamp = {
            "scenario": self.meta["scenario"],
            "seed": self.meta["seed"],
            "replication": self.meta["replication"],
            "burstlab_version": self.meta["version"],
        }
        doc: dict[str, Any] = {"meta": self.meta, "scenario": self.scenario,
                               "tables": list(self.tables),
                               "optional_tables": sorted(self._optional),
                               "format": format, "files": {}}
        for name in self.tables:
            if name in self._optional and self._is_empty(name):
                continue
            if name in self.streamed:
                src, dst = self.streamed[name][0], d / f"{name}.csv"
                if not (dst.exists() and dst.resolve() == src.resolve()):
                    shutil.copyfile(src, dst)
                written.append(dst)
                doc["files"][name] = dst.name
                continue
            cols = {**self._columns(name)}
            n = max((len(c) for c in cols.values()), default=0)
            cols.update({k: [v] * n for k, v in stamp.items()})
            p = d / f"{name}.{format}"
            if format == "csv":
                _write_csv(p, cols)
            else:
                _write_parquet(p, cols)
            written.append(p)
            doc["files"][name] = p.name
            if self._is_rows(name):
                doc[name] = self._records(name)
        p = d / "result.json"
        p.write_text(json.dumps(doc, indent=2, default=str), encoding="utf-8")
        written.append(p)
        return written


#: The formats :meth:`Result.to_dir` and :meth:`burstlab.SweepResult.to_dir` write.
FORMATS = ("parquet", "csv")


def check_format(format: str) -> None:
    """Raises ValueError unless ``format`` is one of :data:`FORMATS`; ImportError
    saying what to install when it is ``parquet`` and pyarrow is missing.

    >>> check_format("csv")
    >>> check_format("xlsx")
    Traceback (most recent call last):
    ...
    ValueError: format: 'parquet' or 'csv', got 'xlsx'
    """
    if format not in FORMATS:
        raise ValueError(f"format: 'parquet' or 'csv', got {format!r}")
    if format == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ImportError("format 'parquet' needs pyarrow, a dependency of burstlab "
                              "(pip install pyarrow); or write CSV (format='csv', "
                              "--format csv)") from None


def _write_csv(p: Path, cols: Mapping[str, Sequence[Any]]) -> None:
    import csv

    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(cols)
        w.writerows(zip(*(cols[k] for k in cols), strict=True))


def _write_parquet(p: Path, cols: Mapping[str, Sequence[Any]]) -> None:
    """The columns as one Parquet file. Missing values (None, NaN) are nulls (a column
    of nothing else is a float column); a column of integers stays integer (a seed up
    to 2^64 − 1 as unsigned)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for k, v in cols.items():
        vals = [None if isinstance(x, float) and x != x else x for x in v]
        try:
            if any(type(x) is int and x > 2**63 - 1 for x in vals):  # a seed: u64
                arrays[k] = pa.array(vals, type=pa.uint64())
            elif vals and all(x is None for x in vals):  # no value: NaN, as res.table has it
                arrays[k] = pa.array(vals, type=pa.float64())
            else:
                arrays[k] = pa.array(vals)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            # Mixed kinds (a parameter given as 1 and as "1ms"): as text, as CSV has it.
            arrays[k] = pa.array([None if x is None else str(x) for x in vals])
    pq.write_table(pa.table(arrays), p)


class RunSummary:
    """:attr:`Result.summary`: the flow table's main columns. Indexing it, or any
    DataFrame attribute, builds the DataFrame (``.frame()``); calling it gives the text
    (:meth:`Result.summary_text`), as ``res.summary()`` always has.

    >>> s = burstlab.run("examples/single_flow.toml", seed=3).summary
    >>> len(s), s["variant"].tolist()
    (1, ['sack'])
    """

    COLUMNS = ("flow", "name", "kind", "variant", "cc", "goodput_segps", "goodput_bps",
               "segments_sent", "retransmits", "td_events", "to_events", "mean_rtt_s",
               "mean_cwnd_segments")

    def __init__(self, res: Result) -> None:
        self._res = res

    def __call__(self) -> str:
        return self._res.summary_text()

    def frame(self) -> pd.DataFrame:
        """The summary as a DataFrame (the columns of :attr:`COLUMNS` the run has).

        >>> burstlab.run("examples/single_flow.toml", seed=3).summary.frame().shape
        (1, 13)
        """
        flows = self._res.flows
        return flows[[c for c in self.COLUMNS if c in flows.columns]]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.frame(), name)

    def __getitem__(self, key: Any) -> Any:
        return self.frame()[key]

    def __len__(self) -> int:
        return len(self.frame())

    def __repr__(self) -> str:
        return self()

    def _repr_html_(self) -> str:
        return str(self.frame().to_html(index=False, border=0))


def with_trace_dir(spec: Mapping[str, Any],
                   trace_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """A copy of the scenario dict ``spec`` with ``sim.trace.dir`` set to ``trace_dir``.

    >>> with_trace_dir({"sim": {"duration": "1s"}}, "out")
    {'sim': {'duration': '1s', 'trace': {'dir': 'out'}}}
    """
    out = dict(spec)
    sim = out.get("sim")
    if isinstance(sim, Mapping):
        sim = dict(sim)
        trace = sim.get("trace")
        sim["trace"] = {**(trace if isinstance(trace, Mapping) else {}),
                        "dir": os.fspath(trace_dir)}
        out["sim"] = sim
    return out


def memory_estimate(scenario: ScenarioLike) -> dict[str, Any]:
    """The scenario's memory estimate (upper bounds from its link rates; see
    docs/guide/running.md, "Memory"): ``lines`` (the text ``burstlab validate`` prints),
    ``trace_bytes``, ``queue_bytes``, ``window_bytes``, ``total_bytes`` (everything the
    guard compares with ``sim.max_memory``), ``max_memory``, ``streamed`` and ``traces`` (per
    enabled trace: ``setting``, ``table``, ``rows``, ``bytes``, ``csv_bytes``).

    >>> est = memory_estimate("examples/single_flow.toml")
    >>> est["total_bytes"], est["traces"]
    (16025.0, [])
    """
    if isinstance(scenario, Mapping):
        return dict(_core.memory_estimate(_to_json(scenario), "json"))
    text, fmt = _text_and_format(scenario)
    return dict(_core.memory_estimate(text, fmt))


def event_estimate(scenario: ScenarioLike) -> dict[str, Any]:
    """The scenario's event estimate (an upper bound from its link and source rates;
    see ``docs/topics/limits.md``): ``lines`` (the text ``burstlab validate`` prints),
    ``events``, ``max_events``, ``duration_s`` and ``flows`` (per flow: ``index``,
    ``name``, ``packet_events``, ``toggle_events``, ``burst_events``).

    >>> est = event_estimate("examples/single_flow.toml")
    >>> est["duration_s"], f"{est['events']:.3g}"
    (300.0, '2.4e+06')
    """
    if isinstance(scenario, Mapping):
        return dict(_core.event_estimate(_to_json(scenario), "json"))
    text, fmt = _text_and_format(scenario)
    return dict(_core.event_estimate(text, fmt))


def _scenario_dir(scenario: ScenarioLike) -> Path:
    """Where a scenario's Python assembler modules are looked for first: the folder of
    a scenario file, else the working directory."""
    if isinstance(scenario, (str, os.PathLike)):
        s = os.fspath(scenario)
        if "\n" not in s and len(s) < 4096 and Path(s).is_file():
            return Path(s).resolve().parent
    return Path.cwd()


def _text_table(cols: Mapping[str, Sequence[Any]], want: Sequence[str]) -> str:
    """The columns ``want`` (those present) as a right-aligned fixed-width text table,
    floats to 4 significant digits, missing values as NaN."""
    names = [c for c in want if c in cols]

    def fmt(v: Any) -> str:
        if v is None or (isinstance(v, float) and v != v):
            return "NaN"
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    cells = [[fmt(v) for v in cols[c]] for c in names]
    widths = [max([len(c), *map(len, cs)]) for c, cs in zip(names, cells, strict=True)]
    lines = [" ".join(c.rjust(w) for c, w in zip(names, widths, strict=True))]
    for row in zip(*cells, strict=True):
        lines.append(" ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)))
    return "\n".join(lines)


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    replication: int | None = None,
    trace_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> Result:
    """Runs one simulation.

    Ctrl-C stops it within a fraction of a second (KeyboardInterrupt): the core looks
    for signals every few thousand events.

    Args:
        scenario: a path to a TOML/JSON file, TOML text, or a dict.
        seed: master seed (overrides ``sim.seed``).
        replication: replication index (overrides ``sim.replication``).
        trace_dir: stream the enabled traces to ``<trace_dir>/<table>.csv`` while the
            run goes, in bounded memory (sets ``sim.trace.dir``); the files are what
            :meth:`Result.to_dir` writes for the same tables held in memory.
        progress: show simulated time, events per second and an ETA once the run has
            taken 2 s (on stderr, or a widget in Jupyter); ``None`` (default): when
            stderr is a terminal or in Jupyter.

    Raises:
        ScenarioError: the scenario is malformed, or its estimated memory exceeds
            ``sim.max_memory`` (or a streamed trace cannot be written); the message
            names the field.

    >>> res = run("examples/single_flow.toml", seed=3)
    >>> round(float(res.flows.loc[0, "goodput_segps"]), 1)
    120.7
    >>> run({"sim": {"duration": "1s"}, "link": [{"a": "x"}]})
    Traceback (most recent call last):
    ...
    _core.ScenarioError: link[0]: missing field `b`
    """
    seed = check_u64("seed", seed)
    replication = check_u64("replication", replication)
    from burstlab import hooks as _hooks

    base = _scenario_dir(scenario)
    direct: dict[str, Any] = {}
    if isinstance(scenario, Mapping):
        scenario, direct = _hooks.extract_direct(scenario)
    if trace_dir is not None:
        spec = load_scenario(scenario)
        trace = (spec.get("sim") or {}).get("trace") or {}
        if any(v is True for v in trace.values()):  # any trace on (a flag per kind)
            scenario = with_trace_dir(spec, trace_dir)
    if isinstance(scenario, Mapping):
        text, fmt = _to_json(scenario), "json"
    else:
        text, fmt = _text_and_format(scenario)
    from burstlab._progress import RunProgress, wanted

    bar = RunProgress() if (wanted() if progress is None else progress) else None
    factory = _hooks.Factory(base, direct) if _hooks.has_python_assembly(text) else None
    try:
        raw = _core.run(text, fmt, seed, replication, bar, factory)
    finally:
        if bar is not None:
            bar.close()
    spec = json.loads(text) if fmt == "json" else tomllib.loads(text)
    return Result.from_core(raw, spec)
