"""The Python face of the simulator: ``run(scenario) -> Result``.

A scenario is a TOML file, TOML text, or a plain dict with the same structure (see
``examples/`` and the README). It is validated in Rust; errors raise
:class:`burstlab.ScenarioError` with a message that names the field.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from burstlab import _core

ScenarioLike = str | os.PathLike[str] | Mapping[str, Any]

#: The optional OBS tables of a :class:`Result` (empty without an OBS network).
OBS_TABLES = ("bursts", "obs_links", "obs_flows", "burst_hist", "burst_trace",
              "cwnd_estimates")


def load_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Returns the scenario as a dict (reading a TOML/JSON file or TOML text)."""
    if isinstance(scenario, Mapping):
        return dict(scenario)
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
        return path.read_text(encoding="utf-8"), fmt
    return str(scenario), "toml"


#: Seeds and replication indices are unsigned 64-bit integers in the core.
U64_MAX = 2**64 - 1


def check_u64(name: str, v: object) -> None:
    """Raises ScenarioError unless ``v`` is None or an integer in [0, 2^64 − 1]."""
    if v is None:
        return
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= U64_MAX:
        raise _core.ScenarioError(
            f"{name}: must be an integer from 0 to 2^64 - 1 = {U64_MAX}, got {v!r}")


@dataclass
class Result:
    """The outcome of one run.

    Attributes:
        meta: seed, replication, scenario name, burstlab version, duration, events.
        flows: one row per flow (goodput/throughput in segments/s and bit/s, segments
            sent and retransmitted, TD and TO loss events, mean RTT, time-average cwnd).
        links: one row per link direction (packets, drops by cause, utilisation).
        cwnd: cwnd trace (time_s, flow, cwnd_segments, ssthresh_segments) if enabled.
        packets: packet trace (time_s, flow, seq, event, retransmit) if enabled.
        scenario: the scenario as run (a dict).
        bursts: OBS, one row per assembly queue (bursts sent/lost by reason, loss
            probability, burst length in bytes and packets with quantiles, yu's S as
            ``mean_data_pkts``, ACK bursts, assembly delay).
        obs_links: OBS, one row per fibre direction (bursts offered/scheduled, losses by
            reason, loss probability, wavelength utilisation).
        obs_flows: OBS, one row per flow crossing an OBS network (its S as
            ``mean_segments_per_burst``, ACK bursts, bursts lost, assembly delay).
        burst_hist: OBS, packets-per-burst histogram (queue, pkts_lo, pkts_hi, count).
        burst_trace: OBS burst trace (time_s, queue, burst, event, pkts, bytes, reason,
            fibre) if ``sim.trace.bursts`` is on.
        cwnd_estimates: OBS, one row per flow assembled by ``ecwba``: the ingress's
            cwnd estimate against the true cwnd (mean absolute error in segments, mean
            relative error).
    """

    meta: dict[str, Any]
    flows: pd.DataFrame
    links: pd.DataFrame
    cwnd: pd.DataFrame
    packets: pd.DataFrame
    scenario: dict[str, Any] = field(default_factory=dict)
    bursts: pd.DataFrame = field(default_factory=pd.DataFrame)
    obs_links: pd.DataFrame = field(default_factory=pd.DataFrame)
    obs_flows: pd.DataFrame = field(default_factory=pd.DataFrame)
    burst_hist: pd.DataFrame = field(default_factory=pd.DataFrame)
    burst_trace: pd.DataFrame = field(default_factory=pd.DataFrame)
    cwnd_estimates: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def seed(self) -> int:
        return int(self.meta["seed"])

    def summary(self) -> str:
        """A fixed-width table of the main per-flow figures."""
        cols = [
            "flow", "name", "kind", "variant", "cc", "goodput_segps", "goodput_bps",
            "segments_sent", "retransmits", "td_events", "to_events", "mean_rtt_s",
            "mean_cwnd_segments",
        ]
        df = self.flows[[c for c in cols if c in self.flows.columns]]
        head = (
            f"scenario {self.meta['scenario']!r}  seed {self.meta['seed']}  "
            f"replication {self.meta['replication']}  burstlab {self.meta['version']}  "
            f"simulated {self.meta['duration_s']:g} s"
        )
        text = head + "\n" + df.to_string(index=False, float_format=lambda x: f"{x:.4g}")
        if not self.obs_flows.empty:
            ocols = ["flow", "data_bursts", "mean_segments_per_burst", "burst_loss_prob",
                     "ack_bursts", "mean_assembly_delay_s"]
            odf = self.obs_flows[[c for c in ocols if c in self.obs_flows.columns]]
            text += "\nOBS (mean_segments_per_burst is yu's S)\n" + odf.to_string(
                index=False, float_format=lambda x: f"{x:.4g}")
        return text

    def _repr_html_(self) -> str:
        """Jupyter: the run's header, then its flow, link and OBS tables as HTML."""
        import html

        m = self.meta
        parts = [f"<p><b>burstlab Result</b>: scenario {html.escape(str(m.get('scenario')))}, "
                 f"seed {m.get('seed')}, replication {m.get('replication')}, "
                 f"{m.get('duration_s', float('nan')):g} s simulated, burstlab "
                 f"{html.escape(str(m.get('version')))}</p>"]
        for name in ("flows", "links", "obs_flows", "bursts"):
            df = getattr(self, name)
            if not df.empty:
                parts.append(f"<p><code>{name}</code></p>"
                             + df.to_html(index=False, max_rows=40, border=0))
        return "\n".join(parts)

    def to_dir(self, out: str | os.PathLike[str]) -> list[Path]:
        """Writes flows.csv, links.csv, traces (if any) and result.json into ``out``.

        Every CSV carries the seed, replication, scenario name and burstlab version as
        columns; result.json also holds the full scenario.
        """
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        written = []
        stamp = {
            "scenario": self.meta["scenario"],
            "seed": self.meta["seed"],
            "replication": self.meta["replication"],
            "burstlab_version": self.meta["version"],
        }
        for name, df in [
            ("flows", self.flows),
            ("links", self.links),
            ("cwnd_trace", self.cwnd),
            ("packet_trace", self.packets),
            ("bursts", self.bursts),
            ("obs_links", self.obs_links),
            ("obs_flows", self.obs_flows),
            ("burst_hist", self.burst_hist),
            ("burst_trace", self.burst_trace),
            ("cwnd_estimates", self.cwnd_estimates),
        ]:
            optional = name.endswith("trace") or name in OBS_TABLES
            if optional and df.empty:
                continue
            p = d / f"{name}.csv"
            df.assign(**stamp).to_csv(p, index=False)
            written.append(p)
        p = d / "result.json"
        doc = {
            "meta": self.meta,
            "scenario": self.scenario,
            "flows": json.loads(self.flows.to_json(orient="records")),
            "links": json.loads(self.links.to_json(orient="records")),
        }
        for name in OBS_TABLES:
            df = getattr(self, name)
            if not df.empty:
                doc[name] = json.loads(df.to_json(orient="records"))
        p.write_text(json.dumps(doc, indent=2, default=str), encoding="utf-8")
        written.append(p)
        return written


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    replication: int | None = None,
) -> Result:
    """Runs one simulation.

    Args:
        scenario: a path to a TOML/JSON file, TOML text, or a dict.
        seed: master seed (overrides ``sim.seed``).
        replication: replication index (overrides ``sim.replication``).

    Raises:
        ScenarioError: the scenario is malformed; the message names the field.
    """
    for name, v in (("seed", seed), ("replication", replication)):
        check_u64(name, v)
    if isinstance(scenario, Mapping):
        spec = dict(scenario)
        try:
            text = json.dumps(spec)
        except (TypeError, ValueError) as e:
            raise _core.ScenarioError(f"scenario is not JSON-serialisable: {e}") from None
        raw = _core.run(text, "json", seed, replication)
    else:
        text, fmt = _text_and_format(scenario)
        raw = _core.run(text, fmt, seed, replication)
        spec = json.loads(text) if fmt == "json" else tomllib.loads(text)
    flows = pd.DataFrame(json.loads(raw["flows"]))
    for c in ("mean_rtt_s", "mean_cwnd_segments", "mean_rto_s"):
        if c in flows.columns:  # JSON carries NaN as null
            flows[c] = pd.to_numeric(flows[c], errors="coerce").astype(float)
    return Result(
        meta=dict(raw["meta"]),
        flows=flows,
        links=pd.DataFrame(json.loads(raw["links"])),
        cwnd=pd.DataFrame(raw["cwnd_trace"]),
        packets=pd.DataFrame(raw["packet_trace"]),
        scenario=spec,
        bursts=_rows(raw, "bursts"),
        obs_links=_rows(raw, "obs_links"),
        obs_flows=_rows(raw, "obs_flows"),
        burst_hist=_rows(raw, "burst_hist"),
        burst_trace=pd.DataFrame(raw.get("burst_trace", {})),
        cwnd_estimates=_rows(raw, "cwnd_estimates"),
    )


def _rows(raw: Mapping[str, Any], key: str) -> pd.DataFrame:
    """A JSON row list from the core as a DataFrame; JSON nulls (NaN) become float NaN."""
    df = pd.DataFrame(json.loads(raw.get(key, "[]")))
    for c in df.columns:
        if df[c].dtype == object and df[c].isna().any():
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    return df
