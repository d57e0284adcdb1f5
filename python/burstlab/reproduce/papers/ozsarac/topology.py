"""ozsarac §3: the linear and mesh OBS topologies as burstlab scenarios, with our
reading of what the paper does not give.

Read first: :func:`linear` (fig. 1), :func:`mesh` (fig. 2, whose picture is not in the
text) and :data:`MESH_ROUTES`.

What §3 gives, and how it maps onto burstlab:

- JET with LAUC-VF, one data wavelength per fibre, no FDL: ``signalling = "jet"``,
  ``scheduler = "laucvf"``, ``wavelengths = 1``;
- optical links 1 Gb/s, 1 ms; electrical links 500 Mb/s, 1 ms; switching time 5 µs;
  per-hop processing 200 µs (``bcp_processing``; the offset is hops × 200 µs + 5 µs);
- MSS "1040 bytes": ns-2's ``packetSize_`` is the segment on the wire, so a segment is
  1000 B of payload + 40 B of headers = 1040 B (this is also what makes §3.4's
  ``T_max = 166.6 ms`` come out: 10 000 × 1040 B at 500 Mb/s is 166.4 ms); goodput is
  counted in payload;
- receive window 10 000 segments, at most 10 000 packets per burst, an assembly queue
  of 100 000 packets (``queue_limit``);
- ACKs of 40 B that are "never dropped and never assembled": ``ack_mode = "bypass"``
  (a lossless link along the reverse OBS path, at its rate and delay);
- the real-time server: exponential on/off UDP at 500 Mb/s, on 1 % of the time, behind
  its own ingress with 4 ms timer assembly. Not given: the mean on period and the packet
  size. We use mean on 10 ms / off 990 ms and 1040 B packets;
- "the only reason for burst losses … is the contention between TCP and UDP bursts",
  and nothing is said of the electrical queues: the access links have unbounded queues
  (no packet is dropped outside the OBS core);
- TCP: ns-2 agents (``profile = "ns2"``: initial window 2, no delayed ACKs, 200 ms
  minimum RTO), an infinite FTP flow.

Linear topology (our reading of fig. 1)::

    ftp_server ─ E1 ═╗                    ╔═ E2 ─ ftp_client
                     C1 ═════════════ C2 ═╣
    rt_server ── E3 ═╝                    ╚═ E4 ─ rt_client

The TCP and UDP bursts meet on the one wavelength of C1 → C2.

Mesh topology (fig. 2, whose picture is not in the text). The text gives 14 nodes,
ingress edges N9–N11, egress edges N12–N14, access links of 0.1 ms, core links of
2.5 ms, nine flows S_i → D_i, losses from "the contention between nine optical burst
flows", flow 7 on "one of the longest routes" (§3.6), flow 4 losing more bursts than the
average (fig. 14) and, in Table 2, every flow's share of the total goodput under CWBA
(5.48–21.05 %). burstlab has two readings (:data:`MESH_READINGS`): eight core nodes
N1–N8 in a ring with the chords N1–N5 and N3–N7, three FTP servers per ingress and
three clients per egress, and

- ``ring-chords`` (the first reading): busiest core fibres shared by two to four flows;
- ``least-shared`` (the default, :data:`MESH_READING`): the edges on alternate core
  nodes and the near-shortest routes whose busiest core fibre carries the fewest flows
  (two): only N4 → N3 (flows 4, 6) and N7 → N8 (flows 6, 9) are shared.

On a single-wavelength fibre without buffers, the flow whose whole-window bursts hold
the wavelength keeps it and the flow it meets times out and backs off (capture); the
fewer fibres flows share, the fewer flows starve (``ring-chords``: six of nine below
1 % of the goodput; ``least-shared``: one; docs/reproductions/ozsarac.md has the
numbers). The edge–core fibres (0.1 ms, like the access links) carry three wavelengths,
one per flow of the edge, so that contention happens in the core as §3 says, not
between the bursts of one edge on its own output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: ozsarac §3.
OPTICAL_RATE = "1Gb/s"
OPTICAL_DELAY = "1ms"
ELECTRICAL_RATE = "500Mb/s"
ELECTRICAL_DELAY = "1ms"
SWITCH_SETUP_S = 5e-6
HOP_PROCESSING_S = 200e-6
PAYLOAD_BYTES = 1000
HEADER_BYTES = 40
SEGMENT_BYTES = PAYLOAD_BYTES + HEADER_BYTES  # "MSS 1040 B" on the wire
RWND_SEGMENTS = 10_000
MAX_PKTS_PER_BURST = 10_000
QUEUE_PKTS = 100_000
ELECTRICAL_RATE_BPS = 500e6
#: The real-time server: on 1 % of the time at 500 Mb/s (our mean on/off periods).
UDP_MEAN_ON = "10ms"
UDP_MEAN_OFF = "990ms"
UDP_TIMER = "4ms"
#: Mesh: access links 0.1 ms, core links 2.5 ms.
MESH_ACCESS_DELAY = "0.1ms"
MESH_CORE_DELAY = "2.5ms"


def t_max_s(pkts: int = MAX_PKTS_PER_BURST, bytes_per_pkt: int = SEGMENT_BYTES,
            rate_bps: float = ELECTRICAL_RATE_BPS) -> float:
    """ozsarac §3.4: ``T_max = T_trans + T_sw + T_hprc``, ``T_trans`` being the time the
    largest burst (``pkts`` packets) takes to reach the ingress over the electrical link."""
    return pkts * bytes_per_pkt * 8 / rate_bps + SWITCH_SETUP_S + HOP_PROCESSING_S


def assembly(kind: str, tb_s: float | None = None, jitter: float = 0.0) -> dict[str, Any]:
    """An assembly table: ``timer`` (period ``tb_s``), ``cwba`` (sender marks), ``ecwba``
    (Reno state-machine estimate) or ``mcwba`` (marks, timer cap ``tb_s``)."""
    if kind == "timer":
        a: dict[str, Any] = {"type": "timer", "tb": tb_s}
        if jitter > 0:
            a["jitter"] = jitter
        return a
    if kind == "cwba":
        return {"type": "cwba", "window": "mark"}
    if kind == "ecwba":
        return {"type": "ecwba"}
    if kind == "mcwba":
        return {"type": "mcwba", "tmax": tb_s}
    raise ValueError(f"assembly: unknown kind {kind!r}")


def _obs(asm: dict[str, Any]) -> dict[str, Any]:
    return {
        "assembly": asm, "classifier": "per_flow", "ack_mode": "bypass",
        "scheduler": "laucvf", "signalling": "jet",
        "bcp_processing": HOP_PROCESSING_S, "switch_setup": SWITCH_SETUP_S,
        "max_pkts_per_burst": MAX_PKTS_PER_BURST, "queue_limit": QUEUE_PKTS,
    }


def _tcp(name: str, src: str, dst: str, variant: str, **kw: Any) -> dict[str, Any]:
    return {"type": "tcp", "name": name, "src": src, "dst": dst, "variant": variant,
            "profile": "ns2", "mss": PAYLOAD_BYTES, "header_bytes": HEADER_BYTES,
            "wm": RWND_SEGMENTS, **kw}


def linear(asm: dict[str, Any], variant: str = "reno", *, duration: float = 60.0,
           warmup: float = 0.0, seed: int = 1, cwnd_trace: bool = False,
           goodput_every: float | None = None,
           udp_mean_on: str = UDP_MEAN_ON) -> dict[str, Any]:
    """Fig. 1: one FTP flow (``variant``, assembly ``asm`` at E1) against the on/off UDP
    real-time source (4 ms timer assembly at E3) on C1 → C2. ``goodput_every``: sample
    the FTP flow's delivered segments every this many seconds (``sim.trace.goodput``, for
    :mod:`burstlab.reproduce.settle`). ``udp_mean_on``: the UDP source's mean on period
    (not given by the paper); its mean off period keeps it on 1 % of the time."""
    opt = {"rate": OPTICAL_RATE, "delay": OPTICAL_DELAY, "wavelengths": 1}
    el = {"rate": ELECTRICAL_RATE, "delay": ELECTRICAL_DELAY}
    sc: dict[str, Any] = {
        "name": "ozsarac-linear",
        "sim": {"duration": duration, "seed": seed},
        "node": [
            {"name": "ftp_server", "kind": "host"},
            {"name": "rt_server", "kind": "host"},
            {"name": "E1", "kind": "edge"},
            {"name": "E3", "kind": "edge",
             "assembly": {"type": "timer", "tb": UDP_TIMER}},
            {"name": "C1", "kind": "core"},
            {"name": "C2", "kind": "core"},
            {"name": "E2", "kind": "edge"},
            {"name": "E4", "kind": "edge"},
            {"name": "ftp_client", "kind": "host"},
            {"name": "rt_client", "kind": "host"},
        ],
        "link": [
            {"a": "ftp_server", "b": "E1", **el},
            {"a": "rt_server", "b": "E3", **el},
            {"a": "E2", "b": "ftp_client", **el},
            {"a": "E4", "b": "rt_client", **el},
        ],
        "fibre": [
            {"a": "E1", "b": "C1", **opt},
            {"a": "E3", "b": "C1", **opt},
            {"a": "C1", "b": "C2", **opt},
            {"a": "C2", "b": "E2", **opt},
            {"a": "C2", "b": "E4", **opt},
        ],
        "obs": _obs(asm),
        "flow": [
            _tcp("ftp", "ftp_server", "ftp_client", variant),
            {"type": "onoff", "name": "rt", "src": "rt_server", "dst": "rt_client",
             "rate": ELECTRICAL_RATE, "packet_size": f"{SEGMENT_BYTES}B",
             "mean_on": udp_mean_on, "mean_off": _off_for(udp_mean_on)},
        ],
    }
    if warmup > 0:
        sc["sim"]["warmup"] = warmup
    trace: dict[str, Any] = {}
    if cwnd_trace:
        trace["cwnd"] = True
    if goodput_every:
        trace["goodput"] = float(goodput_every)
    if trace:
        sc["sim"]["trace"] = trace
    return sc


def _off_for(mean_on: str) -> str:
    """The mean off period that keeps the UDP source on 1 % of the time (§3: "on 1 % of
    the time"): 99 × the mean on period (990 ms for our 10 ms)."""
    if mean_on == UDP_MEAN_ON:
        return UDP_MEAN_OFF
    from burstlab.units import parse_time

    return f"{99 * float(parse_time(mean_on)):.9g}s"


@dataclass(frozen=True)
class MeshReading:
    """One reading of fig. 2 (whose picture is not in the text): core fibres, where the
    edges attach, and each flow's OBS route (ingress, core nodes, egress).

    Attributes:
        name: the reading's name (a key of :data:`MESH_READINGS`).
        core: the core fibres (both directions).
        attach: edge node → the core node it attaches to.
        routes: flow i → its route, edge to edge. S1–S3 at N9, S4–S6 at N10, S7–S9 at
            N11; D1, D4, D7 at N12; D2, D5, D8 at N13; D3, D6, D9 at N14.
        why: how the reading was chosen.
    """

    name: str
    core: tuple[tuple[str, str], ...]
    attach: dict[str, str]
    routes: dict[int, list[str]]
    why: str

    def shared_fibres(self) -> dict[tuple[str, str], list[int]]:
        """Directed core fibre → the flows whose route crosses it, for the fibres that
        carry two or more flows (where bursts of different flows contend)."""
        use: dict[tuple[str, str], list[int]] = {}
        for i, r in self.routes.items():
            for a, b in zip(r[1:-2], r[2:-1], strict=True):
                use.setdefault((a, b), []).append(i)
        return {k: v for k, v in sorted(use.items()) if len(v) > 1}


_RING = tuple((f"N{i}", f"N{i % 8 + 1}") for i in range(1, 9))

#: The readings of fig. 2 burstlab has run (docs/reproductions/ozsarac.md compares them).
MESH_READINGS: dict[str, MeshReading] = {r.name: r for r in (
    # The first reading: a ring with two chords, routes chosen so that the busiest core
    # fibres carry two to four flows (N1 → N5: flows 1, 2, 7; N3 → N4: 3, 4, 6, 9;
    # N7 → N6: 5, 8), flow 7 on one of the longest routes (§3.6).
    MeshReading(
        "ring-chords", _RING + (("N1", "N5"), ("N3", "N7")),
        {"N9": "N1", "N10": "N3", "N11": "N7", "N12": "N5", "N13": "N6", "N14": "N4"},
        {1: ["N9", "N1", "N5", "N12"],
         2: ["N9", "N1", "N5", "N6", "N13"],
         3: ["N9", "N1", "N2", "N3", "N4", "N14"],
         4: ["N10", "N3", "N4", "N5", "N12"],
         5: ["N10", "N3", "N7", "N6", "N13"],
         6: ["N10", "N3", "N4", "N14"],
         7: ["N11", "N7", "N8", "N1", "N5", "N12"],
         8: ["N11", "N7", "N6", "N13"],
         9: ["N11", "N7", "N3", "N4", "N14"]},
        "busiest core fibres shared by two to four flows; flow 7 on a long route"),
    # The least-shared reading: the same ring and chords, the edges attached to
    # alternate core nodes, and among the routes at most one hop longer than shortest
    # the set whose busiest directed core fibre carries the fewest flows (two), then
    # the fewest hops. Only N4 → N3 (flows 4, 6) and N7 → N8 (flows 6, 9) are shared.
    MeshReading(
        "least-shared", _RING + (("N1", "N5"), ("N3", "N7")),
        {"N9": "N1", "N10": "N4", "N11": "N7", "N12": "N3", "N13": "N5", "N14": "N8"},
        {1: ["N9", "N1", "N2", "N3", "N12"],
         2: ["N9", "N1", "N5", "N13"],
         3: ["N9", "N1", "N8", "N14"],
         4: ["N10", "N4", "N3", "N12"],
         5: ["N10", "N4", "N5", "N13"],
         6: ["N10", "N4", "N3", "N7", "N8", "N14"],
         7: ["N11", "N7", "N3", "N12"],
         8: ["N11", "N7", "N6", "N5", "N13"],
         9: ["N11", "N7", "N8", "N14"]},
        "fewest flows on the busiest core fibre (two) over near-shortest routes"),
)}
#: The reading the reproduction runs (docs/reproductions/ozsarac.md: why).
MESH_READING = "least-shared"
#: The default reading's fibres, attachments and routes.
MESH_CORE = list(MESH_READINGS[MESH_READING].core)
MESH_ATTACH = MESH_READINGS[MESH_READING].attach
MESH_ROUTES: dict[int, list[str]] = MESH_READINGS[MESH_READING].routes


def mesh(asm: dict[str, Any], variant: str = "reno", *, duration: float = 60.0,
         warmup: float = 0.0, seed: int = 1,
         active: dict[int, tuple[float, float | None]] | None = None,
         goodput_every: float | None = None,
         reading: str | MeshReading = MESH_READING,
         edge_wavelengths: int = 3) -> dict[str, Any]:
    """Fig. 2 (our ``reading``, :data:`MESH_READINGS`): nine FTP flows S_i → D_i over
    the mesh, every ingress with assembly ``asm``. ``active`` maps a flow to its
    (start, stop) seconds (the dynamic-flow scenario of §3.6); by default every flow
    runs throughout. ``edge_wavelengths``: wavelengths of the edge–core fibres (module
    docs; 1 makes the flows of one edge contend on its own fibre)."""
    if isinstance(reading, MeshReading):
        rd = reading
    elif reading in MESH_READINGS:
        rd = MESH_READINGS[reading]
    else:
        raise ValueError(f"mesh reading must be one of {', '.join(MESH_READINGS)}, got "
                         f"{reading!r}")
    opt = {"rate": OPTICAL_RATE, "delay": MESH_CORE_DELAY, "wavelengths": 1}
    # Edge fibres carry three wavelengths, one per flow of the edge (module docs).
    acc = {"rate": OPTICAL_RATE, "delay": MESH_ACCESS_DELAY,
           "wavelengths": int(edge_wavelengths)}
    el = {"rate": ELECTRICAL_RATE, "delay": MESH_ACCESS_DELAY}
    nodes: list[dict[str, Any]] = [{"name": f"N{i}", "kind": "core"} for i in range(1, 9)]
    nodes += [{"name": f"N{i}", "kind": "edge"} for i in range(9, 15)]
    nodes += [{"name": f"S{i}", "kind": "host"} for i in range(1, 10)]
    nodes += [{"name": f"D{i}", "kind": "host"} for i in range(1, 10)]
    fibres = [{"a": a, "b": b, **opt} for a, b in rd.core]
    fibres += [{"a": e, "b": c, **acc} for e, c in rd.attach.items()]
    links, flows = [], []
    for i, route in rd.routes.items():
        links.append({"a": f"S{i}", "b": route[0], **el})
        links.append({"a": route[-1], "b": f"D{i}", **el})
        kw: dict[str, Any] = {"route": [f"S{i}", *route, f"D{i}"]}
        if active is not None:
            start, stop = active.get(i, (0.0, None))
            if start > 0:
                kw["start"] = start
            if stop is not None:
                kw["stop"] = stop
        flows.append(_tcp(f"flow{i}", f"S{i}", f"D{i}", variant, **kw))
    sc: dict[str, Any] = {
        "name": "ozsarac-mesh",
        "sim": {"duration": duration, "seed": seed},
        "node": nodes, "link": links, "fibre": fibres,
        "obs": _obs(asm), "flow": flows,
    }
    if warmup > 0:
        sc["sim"]["warmup"] = warmup
    if goodput_every:
        sc["sim"]["trace"] = {"goodput": float(goodput_every)}
    return sc


# ---------------------------------------------------------------------------------------
# The two ceilings a flow of these scenarios cannot exceed (issue 53), from a scenario's
# own parameters: the flow's route, its links' and fibres' rates and delays, its segment,
# header and window sizes, and the offset's processing and set-up times.


def _route_parts(spec: dict[str, Any], i: int) -> tuple[dict[str, Any], dict[str, Any],
                                                        list[dict[str, Any]]]:
    """Flow ``i``'s access link, egress link and fibres in route order (the flow must
    name its ``route``: host, ingress, core nodes, egress, host)."""
    route = spec["flow"][i].get("route")
    if not route:
        raise ValueError(f"flow[{i}].route: the ceilings need the flow's route")
    links = {(str(x["a"]), str(x["b"])): x for x in spec["link"]}
    links.update({(str(x["b"]), str(x["a"])): x for x in spec["link"]})
    fib = {(str(x["a"]), str(x["b"])): x for x in spec["fibre"]}
    fib.update({(str(x["b"]), str(x["a"])): x for x in spec["fibre"]})
    fibres = [fib[(a, b)] for a, b in zip(route[1:-2], route[2:-1], strict=True)]
    return links[(route[0], route[1])], links[(route[-2], route[-1])], fibres


def access_ceiling_bps(spec: dict[str, Any], i: int) -> float:
    """Flow ``i``'s payload rate at its access link's line rate: the link carries
    ``mss + header`` bytes per ``mss`` of payload (480.8 Mb/s for 500 Mb/s, 1000 B + 40 B).
    A timer-assembled flow alone on its fibres runs at this rate."""
    from burstlab.units import parse_rate

    f = spec["flow"][i]
    acc, _, _ = _route_parts(spec, i)
    mss, hdr = float(f["mss"]), float(f["header_bytes"])
    return parse_rate(acc["rate"]) * mss / (mss + hdr)


def cwba_ceiling_bps(spec: dict[str, Any], i: int) -> float:
    """Flow ``i``'s goodput with CWBA (one burst per window) when nothing is lost: one
    window of ``W = min(wm, max_pkts_per_burst)`` segments per cycle, the cycle being
    the window's transmission on the access link (the sender sends as the ACKs of the
    previous window return), the access delay, the burst's offset (a ``bcp_processing``
    per fibre of the route plus ``switch_setup``: world/core_node.rs, ``base_offset``),
    the burst's transmission on the wavelength, the fibres' delays, the first segment's
    transmission and delay on the egress link, and its ACK's way back (the egress link,
    the bypass link at the slowest fibre's rate and the fibres' summed delay:
    world/wiring.rs, then the access link). About 311 Mb/s on the mesh's routes
    (ozsarac §3.3: 10 000 segments of 1040 B, 500 Mb/s access, 1 Gb/s fibres)."""
    from burstlab.units import parse_rate, parse_time

    f, obs = spec["flow"][i], spec["obs"]
    acc, egr, fibres = _route_parts(spec, i)
    mss, hdr = float(f["mss"]), float(f["header_bytes"])
    w = min(int(f["wm"]), int(obs.get("max_pkts_per_burst", f["wm"])))
    seg, ack = 8.0 * (mss + hdr), 8.0 * hdr
    ra, da = parse_rate(acc["rate"]), parse_time(acc["delay"])
    re_, de = parse_rate(egr["rate"]), parse_time(egr["delay"])
    ro = parse_rate(fibres[0]["rate"])
    slowest = min(parse_rate(x["rate"]) for x in fibres)
    df = sum(parse_time(x["delay"]) for x in fibres)
    offset = len(fibres) * parse_time(obs["bcp_processing"]) + parse_time(obs["switch_setup"])
    cycle = (w * seg / ra + da + offset + w * seg / ro + df + seg / re_ + de
             + ack / re_ + de + ack / slowest + df + ack / ra + da)
    return w * mss * 8.0 / cycle
