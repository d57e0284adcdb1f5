"""OBS scenarios shared by the nOBS export and differential tests."""

from __future__ import annotations

import copy
from typing import Any

#: host – ingress E0 ==fibre== core C1 ==fibre== egress E2 – host: the refsim example's
#: network (ids E0=0, C1=1, E2=2, src=3, dst=4 in nOBS), one Reno flow, 2 ms timer.
EDGE_CORE_EDGE: dict[str, Any] = {
    "name": "edge-core-edge",
    "sim": {"duration": "2s", "seed": 1},
    "node": [
        {"name": "E0", "kind": "edge"},
        {"name": "C1", "kind": "core"},
        {"name": "E2", "kind": "edge"},
        {"name": "src", "kind": "host"},
        {"name": "dst", "kind": "host"},
    ],
    "link": [
        {"a": "src", "b": "E0", "rate": "100Mb/s", "delay": "1ms"},
        {"a": "E2", "b": "dst", "rate": "100Mb/s", "delay": "1ms"},
    ],
    "fibre": [
        {"a": "E0", "b": "C1", "rate": "1Gb/s", "delay": "5ms", "wavelengths": 1},
        {"a": "C1", "b": "E2", "rate": "1Gb/s", "delay": "5ms", "wavelengths": 1},
    ],
    "obs": {
        "assembly": {"type": "timer", "tb": "2ms"},
        "classifier": "per_flow",
        "ack_mode": "assemble",
        "scheduler": "laucvf",
        "conversion": False,
        "signalling": "jet",
        "bcp_processing": "10us",
        "switch_setup": "5us",
    },
    "flow": [
        {"name": "f0", "type": "tcp", "src": "src", "dst": "dst", "variant": "reno",
         "mss": "1000B", "wm": 64},
    ],
}


def edge_core_edge(**obs: Any) -> dict[str, Any]:
    """A copy of :data:`EDGE_CORE_EDGE` with ``obs`` keys replaced."""
    s = copy.deepcopy(EDGE_CORE_EDGE)
    s["obs"].update(obs)
    return s


def two_sources(duration: str = "2s", wavelengths: int = 1, **obs: Any) -> dict[str, Any]:
    """Two hosts behind E0 sending to two hosts behind E2 over the same fibres: their
    bursts meet on each fibre (one TCP flow per pair)."""
    s = edge_core_edge(**obs)
    s["sim"]["duration"] = duration
    s["node"] += [{"name": "src2", "kind": "host"}, {"name": "dst2", "kind": "host"}]
    s["link"] += [
        {"a": "src2", "b": "E0", "rate": "100Mb/s", "delay": "1ms"},
        {"a": "E2", "b": "dst2", "rate": "100Mb/s", "delay": "1ms"},
    ]
    for f in s["fibre"]:
        f["wavelengths"] = wavelengths
    s["flow"].append({"name": "f1", "type": "tcp", "src": "src2", "dst": "dst2",
                      "variant": "reno", "mss": "1000B", "wm": 64, "start": "0.0013s"})
    return s


def contention(seed: int, duration: str = "20s", udp_rate: str = "80Mb/s") -> dict[str, Any]:
    """Random contention as in ozsarac's linear topology, scaled down: a Reno flow
    (src – E0) and an exponential on/off UDP source (usrc – E1) whose bursts meet on
    the core's fibre C1 → E2 (one wavelength, no conversion); 2 ms timers at both
    ingresses. Burst losses come from contention alone."""
    s = edge_core_edge()
    s["name"] = "contention"
    s["sim"] = {"duration": duration, "seed": seed}
    s["node"] = [{"name": "E0", "kind": "edge"}, {"name": "E1", "kind": "edge"},
                 {"name": "C1", "kind": "core"}, {"name": "E2", "kind": "edge"},
                 {"name": "src", "kind": "host"}, {"name": "usrc", "kind": "host"},
                 {"name": "dst", "kind": "host"}, {"name": "udst", "kind": "host"}]
    s["link"] = [
        {"a": "src", "b": "E0", "rate": "100Mb/s", "delay": "1ms"},
        {"a": "usrc", "b": "E1", "rate": "100Mb/s", "delay": "1ms"},
        {"a": "E2", "b": "dst", "rate": "100Mb/s", "delay": "1ms"},
        {"a": "E2", "b": "udst", "rate": "100Mb/s", "delay": "1ms"},
    ]
    op = {"rate": "1Gb/s", "delay": "1ms", "wavelengths": 1}
    s["fibre"] = [{"a": "E0", "b": "C1", **op}, {"a": "E1", "b": "C1", **op},
                  {"a": "C1", "b": "E2", **op}]
    s["obs"]["bcp_processing"] = "20us"
    s["flow"] = [
        {"name": "tcp", "type": "tcp", "src": "src", "dst": "dst", "variant": "reno",
         "mss": "1000B", "wm": 64},
        {"name": "udp", "type": "onoff", "src": "usrc", "dst": "udst", "rate": udp_rate,
         "packet_size": "1000B", "mean_on": "20ms", "mean_off": "80ms"},
    ]
    return s


def contention_cbr(wavelengths: int, conversion: bool = False) -> dict[str, Any]:
    """:func:`contention` with a constant-rate UDP source instead of the on/off one
    (deterministic: the same bursts meet at C1 in every run), 5 s, ``wavelengths`` per
    fibre, with or without conversion."""
    s = contention(1, duration="5s")
    s["obs"]["conversion"] = conversion
    for f in s["fibre"]:
        f["wavelengths"] = wavelengths
    s["flow"][1] = {"name": "udp", "type": "cbr", "src": "usrc", "dst": "udst",
                    "rate": "30Mb/s", "packet_size": "1000B", "start": "0.0005s"}
    return s


def three_sources(wavelengths: int = 2, duration: str = "5s", start: str = "0.0011s",
                  fibre_rate: str = "250Mb/s", **obs: Any) -> dict[str, Any]:
    """:func:`contention_cbr` with a third ingress: a Reno flow (src – E0) and two
    constant-rate UDP sources (usrc – E1 at 78.125 Mb/s, vsrc – E3 at 62.5 Mb/s from
    ``start``) on three ingress fibres into C1, all leaving on C1 → E2; 2 ms timers,
    no set-up time (nOBS keeps ``SWITCHTIME`` as a guard between reservations:
    docs/topics/nobs.md). The fibres run at 250 Mb/s so that bursts of 125–210 µs at
    1 Gb/s last four times longer and three of them often overlap. The sources' packet
    intervals, 102.4 µs and 128 µs, are whole picoseconds (burstlab's CBR rounds its
    interval up to the picosecond and drifts from ns-2's otherwise) and do not divide
    the 2 ms timer (ties at the timer)."""
    s = contention_cbr(wavelengths)
    s["name"] = "three-sources"
    s["sim"]["duration"] = duration
    s["obs"]["switch_setup"] = "0s"
    s["obs"].update(obs)
    s["node"].insert(2, {"name": "E3", "kind": "edge"})
    s["node"] += [{"name": "vsrc", "kind": "host"}, {"name": "vdst", "kind": "host"}]
    s["link"] += [{"a": "vsrc", "b": "E3", "rate": "100Mb/s", "delay": "1ms"},
                  {"a": "E2", "b": "vdst", "rate": "100Mb/s", "delay": "1ms"}]
    s["fibre"].insert(2, {"a": "E3", "b": "C1", **{k: v for k, v in s["fibre"][0].items()
                                                   if k not in ("a", "b")}})
    for f in s["fibre"]:
        f["rate"] = fibre_rate
    s["flow"][1]["rate"] = "78.125Mb/s"
    s["flow"].append({"name": "udp2", "type": "cbr", "src": "vsrc", "dst": "vdst",
                      "rate": "62.5Mb/s", "packet_size": "1000B", "start": start})
    return s


def chain_of_cores(duration: str = "5s", start: str = "0.0005s", ack_tmax: str | None = None,
                   **obs: Any) -> dict[str, Any]:
    """Three core nodes in a chain C1 → C2 → C3 → E4 (2 wavelengths, no conversion),
    and three sources joining it at different nodes: a Reno flow from Ea (into C1),
    a Reno flow from Eb (into C2, from 1.3 ms) and a 31.25 Mb/s CBR source from Ec
    (into C3, from ``start``; 256 µs between packets), so the three have different
    offsets (4, 3 and 2 hops); 3 ms timers, no set-up time. With ``ack_tmax``, the
    egress E4, where the ACKs are assembled, times its bursts with it instead."""
    nodes = [{"name": n, "kind": "edge"} for n in ("Ea", "Eb", "Ec")]
    nodes += [{"name": n, "kind": "core"} for n in ("C1", "C2", "C3")]
    nodes += [{"name": "E4", "kind": "edge"}]
    nodes += [{"name": h, "kind": "host"} for h in ("sa", "sb", "sc", "da", "db", "dc")]
    acc = {"rate": "100Mb/s", "delay": "1ms"}
    op = {"rate": "1Gb/s", "delay": "1ms", "wavelengths": 2}
    s: dict[str, Any] = {
        "name": "chain-of-cores",
        "sim": {"duration": duration, "seed": 1},
        "node": nodes,
        "link": [{"a": h, "b": e, **acc} for h, e in (("sa", "Ea"), ("sb", "Eb"),
                                                        ("sc", "Ec"))]
        + [{"a": "E4", "b": h, **acc} for h in ("da", "db", "dc")],
        "fibre": [{"a": a, "b": b, **op} for a, b in (("Ea", "C1"), ("Eb", "C2"),
                                                       ("Ec", "C3"), ("C1", "C2"),
                                                       ("C2", "C3"), ("C3", "E4"))],
        "obs": {"assembly": {"type": "timer", "tb": "3ms"}, "classifier": "per_flow",
                "ack_mode": "assemble", "scheduler": "laucvf", "conversion": False,
                "signalling": "jet", "bcp_processing": "20us", "switch_setup": "0s"},
        "flow": [
            {"name": "ta", "type": "tcp", "src": "sa", "dst": "da", "variant": "reno",
             "mss": "1000B", "wm": 64},
            {"name": "tb", "type": "tcp", "src": "sb", "dst": "db", "variant": "reno",
             "mss": "1000B", "wm": 64, "start": "0.0013s"},
            {"name": "u", "type": "cbr", "src": "sc", "dst": "dc", "rate": "31.25Mb/s",
             "packet_size": "1000B", "start": start},
        ],
    }
    s["obs"].update(obs)
    if ack_tmax is not None:
        asm = dict(s["obs"]["assembly"])
        asm["tmax" if asm["type"] == "hybrid" else "tb"] = ack_tmax
        s["node"][6]["assembly"] = asm
    return s
