"""Preset OBS paths as scenario dicts (pass them to :func:`burstlab.run`): the papers' set-ups.

Each function returns a plain dict with the structure of a TOML scenario (see
``examples/yu_path.toml``), so it can be inspected, tweaked and serialised. Quantities
are unit strings (``"10ms"``, ``"125MB/s"``) or numbers (seconds, bit/s, bytes).

- :func:`yu_path` — yu §V: sender – E1 – C1 – C2 – E2 – receiver.
- :func:`ozsarac_linear` — ozsarac §3: an FTP flow and a real-time UDP on/off source
  whose bursts contend on one wavelength.
- :func:`obs_chain` — a generic linear chain of OBS nodes between two hosts.
"""

from __future__ import annotations

from typing import Any

Quantity = str | float | int

__all__ = ["obs_chain", "ozsarac_linear", "yu_path"]


def _node(name: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "kind": kind, **extra}


def obs_chain(
    *,
    cores: int = 2,
    access: Quantity = "1Gb/s",
    access_delay: Quantity = "10ms",
    core_rate: Quantity = "10Gb/s",
    fibre_delay: Quantity = "10ms",
    wavelengths: int = 1,
    obs: dict[str, Any] | None = None,
    duration: Quantity = "10s",
    seed: int = 1,
) -> dict[str, Any]:
    """``sender –(access)– E1 – C1 … C<cores> – E2 –(access)– receiver``, no flows.

    Add flows with ``scenario["flow"].append({...})`` (hosts ``sender``, ``receiver``).

    >>> s = obs_chain(cores=3)
    >>> [n["name"] for n in s["node"]], s["flow"]
    (['sender', 'E1', 'C1', 'C2', 'C3', 'E2', 'receiver'], [])
    """
    if cores < 0:
        raise ValueError(f"cores: must be non-negative, got {cores}")
    path = ["E1", *[f"C{i}" for i in range(1, cores + 1)], "E2"]
    nodes = [_node("sender", "host")]
    nodes += [_node(n, "edge" if n.startswith("E") else "core") for n in path]
    nodes.append(_node("receiver", "host"))
    links = [
        {"a": "sender", "b": "E1", "rate": access, "delay": access_delay},
        {"a": "E2", "b": "receiver", "rate": access, "delay": access_delay},
    ]
    fibres = [
        {"a": a, "b": b, "rate": core_rate, "delay": fibre_delay, "wavelengths": wavelengths}
        for a, b in zip(path, path[1:], strict=False)
    ]
    return {
        "name": "obs-chain",
        "sim": {"duration": duration, "seed": seed},
        "node": nodes,
        "link": links,
        "fibre": fibres,
        "obs": dict(obs or {}),
        "flow": [],
    }


def yu_path(
    tb: Quantity,
    p: float,
    *,
    access: Quantity = "125MB/s",
    variant: str = "sack",
    wm: int = 50,
    duration: Quantity = "100s",
    seed: int = 1,
    mss: Quantity = "1000B",
    b: int = 1,
    core_rate: Quantity = "10GB/s",
    delay: Quantity = "10ms",
    wavelengths: int = 1,
    loss_scope: str = "per_path",
    ack_mode: str = "assemble",
    drop_bursts: list[int] | None = None,
    trace: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """yu §V's path with one TCP flow.

    sender –(access λ, 10 ms)– E1 –(10 ms)– C1 –(10 ms)– C2 –(10 ms)– E2 –(access,
    10 ms)– receiver; core fibres 10 GB/s; 1 KB segments; per-flow timer assembly with
    period ``tb``; ACKs assembled too (RTT = RTT0 + 2·Tb); independent loss ``p`` on
    data bursts, once per path (the models' assumption, yu §III).

    Args:
        tb: assembly period Tb.
        p: burst loss probability on data bursts.
        access: access bandwidth λ.
        variant: tahoe, reno, newreno or sack.
        wm: maximum window Wm in segments.
        drop_bursts: 0-based indices of the flow's data bursts to drop
            deterministically (yu figs 8, 9); usually with ``p = 0``.
        trace: ``sim.trace`` settings (e.g. ``{"packets": True, "bursts": True}``).

    >>> s = yu_path("1ms", 0.01, duration="20s")
    >>> [n["name"] for n in s["node"]]
    ['sender', 'E1', 'C1', 'C2', 'E2', 'receiver']
    >>> res = burstlab.run(s, seed=1)
    >>> round(float(res.obs_flows.loc[0, "mean_segments_per_burst"]), 2)   # yu's S
    48.79
    """
    sc = obs_chain(
        cores=2,
        access=access,
        access_delay=delay,
        core_rate=core_rate,
        fibre_delay=delay,
        wavelengths=wavelengths,
        duration=duration,
        seed=seed,
        obs={
            "assembly": {"type": "timer", "tb": tb},
            "classifier": "per_flow",
            "ack_mode": ack_mode,
            "loss": {"p": p, "scope": loss_scope, "applies_to": "data"},
        },
    )
    sc["name"] = "yu-path"
    if trace:
        sc["sim"]["trace"] = dict(trace)
    sc["flow"].append(
        {
            "type": "tcp",
            "name": "tcp",
            "src": "sender",
            "dst": "receiver",
            "variant": variant,
            "mss": mss,
            "wm": wm,
            "b": b,
        }
    )
    if drop_bursts:
        sc["obs"]["drop_burst"] = [{"edge": "E1", "queue": "tcp", "bursts": list(drop_bursts)}]
    return sc


def ozsarac_linear(
    tb: Quantity,
    *,
    variant: str = "reno",
    duration: Quantity = "1000s",
    seed: int = 1,
    udp_tb: Quantity = "4ms",
    udp_rate: Quantity = "500Mb/s",
    udp_mean_on: Quantity = "10ms",
    udp_mean_off: Quantity = "990ms",
    mss: Quantity = "1040B",
    wm: int = 10_000,
) -> dict[str, Any]:
    """ozsarac §3's linear topology (its fig. 1 is not in the text; this is our reading).

    ftp_server –E1–, rt_server –E2– both feed core C1; C1 – C2 – E3, then E3 – ftp_client
    and E3 – rt_client. Optical links 1 Gb/s, 1 ms, ONE data wavelength, no FDLs;
    electrical links 500 Mb/s, 1 ms; switching 5 µs; per-hop processing 200 µs; JET +
    LAUC-VF; ≤ 10 000 packets per burst; assembly queues of 100 000 packets; ACKs
    (40 B) bypass assembly and loss. The FTP ingress E1 assembles with timer ``tb``; the
    real-time server's ingress E2 with a 4 ms timer. The UDP source is exponential
    on/off at 500 Mb/s, on 1 % of the time (mean on 10 ms, off 990 ms — the paper gives
    only the fraction). Burst losses come from contention between TCP and UDP bursts on
    C1→C2 and C2→E3.

    >>> s = ozsarac_linear("2ms", duration="10s")
    >>> [f["type"] for f in s["flow"]], len(s["node"])
    (['tcp', 'onoff'], 9)
    """
    nodes = [
        _node("ftp_server", "host"),
        _node("rt_server", "host"),
        _node("E1", "edge", assembly={"type": "timer", "tb": tb}),
        _node("E2", "edge", assembly={"type": "timer", "tb": udp_tb}),
        _node("C1", "core"),
        _node("C2", "core"),
        _node("E3", "edge"),
        _node("ftp_client", "host"),
        _node("rt_client", "host"),
    ]
    el = {"rate": "500Mb/s", "delay": "1ms"}
    links = [
        {"a": "ftp_server", "b": "E1", **el},
        {"a": "rt_server", "b": "E2", **el},
        {"a": "E3", "b": "ftp_client", **el},
        {"a": "E3", "b": "rt_client", **el},
    ]
    op = {"rate": "1Gb/s", "delay": "1ms", "wavelengths": 1}
    fibres = [
        {"a": "E1", "b": "C1", **op},
        {"a": "E2", "b": "C1", **op},
        {"a": "C1", "b": "C2", **op},
        {"a": "C2", "b": "E3", **op},
    ]
    return {
        "name": "ozsarac-linear",
        "sim": {"duration": duration, "seed": seed},
        "node": nodes,
        "link": links,
        "fibre": fibres,
        "obs": {
            "classifier": "per_egress",
            "ack_mode": "bypass",
            "scheduler": "laucvf",
            "signalling": "jet",
            "bcp_processing": "200us",
            "switch_setup": "5us",
            "max_pkts_per_burst": 10_000,
            "queue_limit": 100_000,
        },
        "flow": [
            {
                "type": "tcp",
                "name": "ftp",
                "src": "ftp_server",
                "dst": "ftp_client",
                "variant": variant,
                "mss": mss,
                "ack_bytes": 40,
                "wm": wm,
            },
            {
                "type": "onoff",
                "name": "realtime",
                "src": "rt_server",
                "dst": "rt_client",
                "rate": udp_rate,
                "packet_size": mss,
                "mean_on": udp_mean_on,
                "mean_off": udp_mean_off,
            },
        ],
    }
