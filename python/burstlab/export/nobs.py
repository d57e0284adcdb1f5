"""Export an OBS scenario as an nOBS v2.1 (ns-2.35 extension) Tcl script.

Read first: :func:`to_nobs`. The script builds the same hosts, edge and core nodes,
electronic links and fibres, the same assembly, signalling, scheduling and wavelength
settings, the same TCP and UDP flows, and prints one ``burstlab-nobs-flow`` line per flow
at the end, so that the two simulators can be compared flow by flow and, with
``trace``, burst by burst (:mod:`burstlab.export.nobstrace`). The mapping of every
setting, and what nOBS does differently, is documented in ``docs/topics/nobs.md``.

nOBS's model, as its sources (``optical/``) implement it, and how the export meets it:

* **Nodes.** nOBS numbers optical nodes (``OpNode``) and electronic hosts in one id
  space and needs hosts at ids >= 2 (the burst agent's flow queue is ``(host − 2) mod
  MAX_FLOW_QUEUE``). The script creates the edge and core nodes first, in scenario
  order, then the hosts. ``MAX_DEST`` (the size of every per-node table, at least 10)
  is the node count.
* **Routes.** nOBS routes by source routes: a host's route lists itself, its ingress
  edge, the egress edge and the destination host; the optical path is installed on the
  ingress edge per egress. The script installs burstlab's routes (fewest hops, ties to
  the lower-numbered neighbour, or the flow's explicit ``route``).
* **Offset and timeline** (``op-sragent.cc``, ``op-delay.cc``, ``op-schedule.cc``): the
  control packet leaves the ingress at once; the data burst leaves ``hops × HOP_DELAY``
  later (``+ SWITCHTIME`` with ``JET_TYPE 1``); control packets take ``HOP_DELAY`` more
  on each fibre after the first. burstlab's offset ``hops·δ + setup`` is nOBS's
  ``JET_TYPE 1`` with ``HOP_DELAY = δ`` and ``SWITCHTIME = setup``; with ``setup = 0``
  both ``JET_TYPE``s give the same offset and the script writes ``JET_TYPE 0``.
* **Burst size.** nOBS adds ``BURST_HEADER`` bytes to every data burst; burstlab's burst
  is its packets' bytes alone. The script sets ``BURST_HEADER 0``.
* **Assembly.** ``TIMEOUT`` runs from a burst's first packet (burstlab's timer);
  ``BURST_SIZE_THRESHOLD`` (payload bytes, the burst leaves when reached) and
  ``MAX_PACKET_NUM`` are burstlab's ``length`` thresholds; ``hybrid`` is both. Unused
  triggers are set out of reach.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from burstlab import _core
from burstlab.export import tcl
from burstlab.export.ns2 import (
    UNLIMITED_QUEUE,
    _num,
    _tcp_flow,
    _udp_flow,
    boot_seed,
    seed_and_replication,
)
from burstlab.units import parse_rate, parse_size, parse_time

#: The line prefix of the per-flow summary the script prints at the end.
SUMMARY_TAG = "burstlab-nobs-flow"

#: ``MAX_PACKET_NUM`` when no count trigger is wanted (it also sizes nOBS's burst
#: buffers: MAX_DEST² × MAX_PACKET_NUM pointers).
NO_COUNT_LIMIT = 10_000
#: ``BURST_SIZE_THRESHOLD`` (bytes) when no size trigger is wanted (an int in nOBS).
NO_SIZE_LIMIT = 2_000_000_000
#: ``TIMEOUT`` (s) when no timer is wanted.
NO_TIMEOUT = 1.0e6


@dataclass
class NobsScript:
    """An exported nOBS script, the ids it gave the nodes and what it could not carry
    over exactly."""

    tcl: str
    node_ids: dict[str, int] = field(default_factory=dict)
    flows: list[dict[str, Any]] = field(default_factory=list)
    #: Per flow (index): the optical path (node names, ingress to egress) of its data.
    paths: dict[int, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _t(x: float) -> str:
    """A time in seconds as Tcl reads it, without the binary noise of ``parse_time``
    (``10us`` is 1e-05, not 9.999999999999999e-06)."""
    return format(float(x), ".15g")


#: The ``[obs]`` keys the export writes, refuses with a reason or warns about by name
#: (``safe_offset`` only acts on a fixed offset, which is refused). Any other key is
#: refused, so a setting the export does not know is never dropped without a word.
_OBS_KEYS = frozenset({
    "assembly", "classifier", "ack_mode", "scheduler", "conversion", "signalling",
    "bcp_processing", "switch_setup", "extra_offset", "offset", "safe_offset",
    "max_pkts_per_burst", "queue_limit", "loss", "drop_burst", "drop_bursts", "class",
    "classes", "ingress", "control", "contention", "retransmit", "ack_ratio_max",
    "wavelengths",
})


def _err(path: str, reason: str) -> _core.ScenarioError:
    return _core.ScenarioError(f"{path}: {reason}")


def _adjacency(spec: Mapping[str, Any], names: list[str]) -> list[list[int]]:
    """Neighbours by scenario index, sorted (as burstlab's router sees them)."""
    idx = {n: i for i, n in enumerate(names)}
    adj: list[set[int]] = [set() for _ in names]
    for key in ("link", "fibre"):
        for e in spec.get(key, []):
            a, b = idx[str(e["a"])], idx[str(e["b"])]
            adj[a].add(b)
            if e.get("duplex", True):
                adj[b].add(a)
    return [sorted(s) for s in adj]


def _shortest(adj: list[list[int]], s: int, d: int) -> list[int] | None:
    """Fewest hops, ties to the lower-numbered neighbour (``scenario::shortest_route``)."""
    prev = {s: s}
    queue = [s]
    while queue:
        u = queue.pop(0)
        if u == d:
            break
        for v in adj[u]:
            if v not in prev:
                prev[v] = u
                queue.append(v)
    if d not in prev:
        return None
    path = [d]
    while path[-1] != s:
        path.append(prev[path[-1]])
    return path[::-1]


def _route(spec: Mapping[str, Any], names: list[str], adj: list[list[int]], i: int,
           f: Mapping[str, Any], reverse: bool) -> list[str]:
    key = "reverse_route" if reverse else "route"
    src, dst = (str(f["dst"]), str(f["src"])) if reverse else (str(f["src"]), str(f["dst"]))
    if key in f:
        return [str(x) for x in f[key]]
    idx = {n: k for k, n in enumerate(names)}
    r = _shortest(adj, idx[src], idx[dst])
    if r is None:
        raise _err(f"flow[{i}].dst", f"no path from {src} to {dst}")
    return [names[k] for k in r]


def _uniform(items: list[tuple[str, Any]], what: str) -> Any:
    """The one value all ``(field, value)`` pairs share, or an error naming the first
    field that differs (nOBS has one global setting)."""
    first = items[0][1]
    for path, v in items[1:]:
        if v != first:
            raise _err(path, f"nOBS has one {what} for the whole network ({first} at "
                       f"{items[0][0]}, {v} here)")
    return first


def _triggers(asm: Mapping[str, Any], path: str) -> tuple[float, int, int]:
    """nOBS's (TIMEOUT, BURST_SIZE_THRESHOLD, MAX_PACKET_NUM) for an assembly table."""
    atype = str(asm.get("type", "timer"))
    timeout, size_thr, count = NO_TIMEOUT, NO_SIZE_LIMIT, NO_COUNT_LIMIT
    if "ack_ratio_max" in asm:
        raise _err(f"{path}.ack_ratio_max", "nOBS has no ACK-ratio assembly")
    if atype == "timer":
        if float(asm.get("jitter", 0) or 0) != 0:
            raise _err(f"{path}.jitter", "nOBS's assembly timer has no jitter")
        timeout = parse_time(asm["tb"])
    elif atype == "length":
        if "max_bytes" in asm:
            size_thr = int(parse_size(asm["max_bytes"]))
        if "max_pkts" in asm:
            count = int(asm["max_pkts"])
    elif atype == "hybrid":
        if "lmin" in asm:
            raise _err(f"{path}.lmin", "nOBS does not pad bursts")
        timeout = parse_time(asm["tmax"])
        size_thr = int(parse_size(asm["lmax"]))
    else:
        raise _err(f"{path}.type", f"nOBS has timer, size and count assembly, not "
                   f"{atype!r}")
    return timeout, size_thr, count


#: nOBS's default MAX_MTU (tcl/lib/ns-default.tcl), which the export leaves as is.
NOBS_MAX_MTU = 1040


def _ingress_buffer(obs: Mapping[str, Any], linkspeed: float, size_thr: int, count: int,
                    warnings: list[str]) -> tuple[int, int]:
    """``obs.ingress`` as nOBS's delayed first reservation: returns the
    ``BURST_SIZE_THRESHOLD`` to write and ``MAX_DELAYED_BURST``.

    nOBS (``optical/op-schedule.cc``) delays a burst's first reservation by at most
    ``min(MAX_PACKET_NUM × MAX_MTU, BURST_SIZE_THRESHOLD) × 8 × MAX_DELAYED_BURST /
    LINKSPEED`` (``BURST_HEADER`` is 0), computed in C ``int`` (wrapping past 2³¹).
    nOBS cannot drop a burst at the ingress: with a bound of 0 (or a wrapped negative
    one) it crashes (SIGSEGV) when a first fibre has no wavelength. So without
    ``obs.ingress`` the export keeps nOBS's default (``MAX_DELAYED_BURST 2``) and warns
    that nOBS delays where burstlab's bufferless ingress drops. With a timer assembly
    (no size trigger) the size threshold becomes the wait's bytes, one burst's worth
    (``MAX_DELAYED_BURST 1``).
    """
    ing = obs.get("ingress")
    if not ing:
        warnings.append("obs.ingress: absent (burstlab drops a burst that finds no "
                        "wavelength on its first fibre); nOBS cannot drop there and "
                        "delays it (its default MAX_DELAYED_BURST 2): the simulators "
                        "agree only while no first fibre is contended")
        return size_thr, 0
    for key in ("max_bursts", "max_bytes"):
        if ing.get(key) is not None:
            raise _err(f"obs.ingress.{key}", "nOBS bounds only the wait (MAX_DELAYED_BURST "
                       "bursts of the largest size); its ingress buffer has no size limit")
    if "max_wait" not in ing:
        raise _err("obs.ingress.max_wait", "missing")
    wait_bytes = parse_time(ing["max_wait"]) * linkspeed / 8
    if abs(wait_bytes - round(wait_bytes)) > 1e-6 or round(wait_bytes) < 1:
        raise _err("obs.ingress.max_wait", f"nOBS bounds the wait by whole bytes at "
                   f"LINKSPEED; {ing['max_wait']} is {wait_bytes:g} bytes")
    wait_b = round(wait_bytes)
    if size_thr == NO_SIZE_LIMIT:
        size_thr = wait_b
        warnings.append(f"obs.ingress: nOBS bounds the wait by its size threshold; "
                        f"BURST_SIZE_THRESHOLD is set to the wait's {wait_b} bytes, so a "
                        "burst reaching that size is sent at once in nOBS")
    unit = min(count * NOBS_MAX_MTU, size_thr)
    if wait_b % unit:
        raise _err("obs.ingress.max_wait", f"nOBS bounds the wait by a whole number of "
                   f"bursts of {unit} bytes (min(MAX_PACKET_NUM × MAX_MTU, "
                   f"BURST_SIZE_THRESHOLD)); {ing['max_wait']} is {wait_b} bytes")
    k = wait_b // unit
    if unit * 8 * k >= 2**31:
        raise _err("obs.ingress.max_wait", "nOBS computes the bound in a C int, which "
                   f"{wait_b} bytes × 8 overflows")
    warnings.append("obs.ingress: nOBS's buffer is not FIFO (a later burst may take a free "
                    "wavelength while an earlier one waits) and searches for the delayed "
                    "reservation on the first wavelength that has one "
                    "(optical/op-schedule.cc); burstlab's is FIFO per first fibre and "
                    "takes the earliest reservation on any wavelength")
    return size_thr, k


def to_nobs(
    spec: Mapping[str, Any],
    *,
    seed: int | None = None,
    replication: int | None = None,
    trace: str | None = None,
    drop_as: str = "data",
    trace_fibres_only: bool = False,
) -> NobsScript:
    """Translates a validated OBS scenario dict into an nOBS v2.1 Tcl script.

    Args:
        spec: the scenario (validate it first: :func:`burstlab.export.export_nobs` does).
        seed, replication: override ``sim.seed`` / ``sim.replication``.
        trace: if given, the script writes ns-2's packet trace (``trace-all``) there.
        drop_as: how ``obs.drop_burst`` is injected in nOBS: ``"data"`` drops the data
            burst on its first fibre, ``"control"`` its control packet there (the burst
            then finds no reservation at the next node and is lost there).
        trace_fibres_only: trace only the fibre directions that carry data bursts (bursts
            and control packets), not the electronic links nor the ACKs' way back: a
            much smaller trace for long runs.

    Raises:
        ScenarioError: the scenario uses something nOBS cannot express; the message
            names the field.
    """
    if drop_as not in ("data", "control"):
        raise _err("drop_as", f"must be 'data' or 'control' (got {drop_as!r})")
    tcl.check_scenario(spec)
    if not spec.get("fibre"):
        raise _err("fibre", "not an OBS scenario (no [[fibre]]); use `burstlab export ns2`")
    sim = spec.get("sim", {})
    duration = parse_time(sim.get("duration", 0))
    seed_v, rep_v = seed_and_replication(sim, seed, replication)
    ns_seed = (seed_v * 1_000_003 + rep_v) % 2_147_483_646 + 1
    obs: Mapping[str, Any] = spec.get("obs", {})
    warnings: list[str] = []
    unknown = sorted(set(obs) - _OBS_KEYS)
    if unknown:
        raise _err(f"obs.{unknown[0]}", "the nOBS export does not carry this setting")

    # --- what nOBS cannot express -------------------------------------------------
    unsupported = {
        "classes": "nOBS has no burst classes", "class": "nOBS has no burst classes",
        "offset": "nOBS computes its own offset (hops × HOP_DELAY [+ SWITCHTIME])",
        "ack_ratio_max": "nOBS has no ACK-ratio assembly",
        "retransmit": "nOBS has no burst retransmission (its ingress keeps no copy of a "
                      "burst and its core sends no NACK)",
    }
    for key, why in unsupported.items():
        if obs.get(key):
            raise _err(f"obs.{key}", why)
    if parse_time(obs.get("extra_offset", 0) or 0) != 0:
        raise _err("obs.extra_offset", "nOBS's offset is hops × HOP_DELAY (+ SWITCHTIME); "
                   "it has no extra offset")
    if str(obs.get("signalling", "jet")) != "jet":
        raise _err("obs.signalling", "nOBS implements JET only")
    if str(obs.get("scheduler", "laucvf")) != "laucvf":
        raise _err("obs.scheduler", "nOBS schedules by LAUC-VF (smallest void) only; "
                   "use scheduler = \"laucvf\"")
    classifier = str(obs.get("classifier", "per_flow"))
    if classifier not in ("per_flow", "per_egress"):
        raise _err("obs.classifier", "nOBS queues per (source host, egress) or per egress "
                   "only: per_flow or per_egress")
    ack_mode = str(obs.get("ack_mode", "assemble"))
    if ack_mode == "bypass":
        warnings.append("obs.ack_mode: 'bypass' is exported as nOBS's ackdontburst 1: each "
                        "ACK crosses the core at once as a burst of its own, without "
                        "offset or reservation (optical/op-sragent.cc); burstlab's bypass "
                        "link also queues ACKs behind one another")
    default_asm = obs.get("assembly") or {"type": "timer", "tb": "1ms"}
    timeout, size_thr, count = _triggers(default_asm, "obs.assembly")
    atype = str(default_asm.get("type", "timer"))
    if size_thr != NO_SIZE_LIMIT and count != NO_COUNT_LIMIT:
        warnings.append("obs.assembly: with both a size and a packet-count threshold, nOBS "
                        "sends an extra empty burst after every burst whose last packet "
                        "reaches both (BurstAgent::recv tests the count on the burst it "
                        "has just sent; docs/topics/nobs.md)")
    cap = obs.get("max_pkts_per_burst")
    if cap is not None:
        if atype == "timer":
            warnings.append("obs.max_pkts_per_burst: nOBS sends a burst as soon as it "
                            "holds MAX_PACKET_NUM packets; burstlab's timer cap takes at "
                            "most that many at expiry")
        count = min(count, int(cap))
    if obs.get("queue_limit") is not None:
        warnings.append("obs.queue_limit: nOBS's assembly queues are unlimited")
    loss = obs.get("loss") or {}
    loss_p = float(loss.get("p", 0) or 0)
    loss_scope = str(loss.get("scope", "per_link"))
    loss_all = str(loss.get("applies_to", "data")) == "all"

    # --- nodes ------------------------------------------------------------------------
    nodes = list(spec.get("node", []))
    names = [str(n["name"]) for n in nodes]
    kinds = {str(n["name"]): str(n.get("kind", "host")) for n in nodes}
    for k, n in enumerate(nodes):
        if kinds[str(n["name"])] == "router":
            raise _err(f"node[{k}].kind", "nOBS connects hosts to edge nodes directly; "
                       "it has no routers")
        if n.get("fabric"):
            raise _err(f"node[{k}].fabric", "nOBS nodes have one switching fabric")
    optical = [n for n in names if kinds[n] in ("edge", "core")]
    # Per-edge assembly: nOBS's burst agent reads TIMEOUT when its node is created
    # (optical/op-burst_agent.cc), so a node's own timer is an OpticalDefaults object
    # created just before it; the size and count thresholds are read while running, from
    # the last one created, and must be the same everywhere.
    node_timeout: dict[str, float] = {}
    for k, n in enumerate(nodes):
        nm = str(n["name"])
        if kinds[nm] in ("edge", "core"):
            node_timeout[nm] = timeout
            if n.get("assembly"):
                t, sz, c = _triggers(n["assembly"], f"node[{k}].assembly")
                c = min(c, int(cap)) if cap is not None else c
                if (sz, c) != (size_thr, count):
                    raise _err(f"node[{k}].assembly", "nOBS's size and packet-count "
                               "thresholds are global; only the timer may differ per edge")
                node_timeout[nm] = t
    hosts = [n for n in names if kinds[n] == "host"]
    ids = {n: k for k, n in enumerate(optical + hosts)}
    max_dest = max(10, len(ids))

    # --- global optical settings --------------------------------------------------------
    fibres = list(spec["fibre"])
    rates = [(f"fibre[{k}].rate", parse_rate(f["rate"])) for k, f in enumerate(fibres)
             if "rate" in f]
    if len(rates) != len(fibres):
        k = next(k for k, f in enumerate(fibres) if "rate" not in f)
        raise _err(f"fibre[{k}].rate", "nOBS needs every fibre's rate (LINKSPEED)")
    linkspeed = _uniform(rates, "wavelength rate (LINKSPEED)")
    wl = [(f"fibre[{k}].wavelengths", int(f.get("wavelengths", obs.get("wavelengths", 1))))
          for k, f in enumerate(fibres)]
    max_lambda = _uniform(wl, "number of wavelengths (MAX_LAMBDA)")
    for k, f in enumerate(fibres):
        for key in ("fabric_a", "fabric_b"):
            if key in f:
                raise _err(f"fibre[{k}].{key}", "nOBS nodes have one switching fabric")
        if float(f.get("loss", 0) or 0) > 0:
            raise _err(f"fibre[{k}].loss", "per-fibre loss is not exported; use obs.loss")
        if f.get("duplex", True) is False:
            raise _err(f"fibre[{k}].duplex", "nOBS fibres are duplex")
    setups = [("obs.switch_setup", parse_time(obs.get("switch_setup", 0) or 0))]
    deltas = [("obs.bcp_processing", parse_time(obs.get("bcp_processing", 0) or 0))]
    for k, n in enumerate(nodes):
        if kinds[str(n["name"])] in ("edge", "core"):
            if "switch_setup" in n:
                setups.append((f"node[{k}].switch_setup", parse_time(n["switch_setup"])))
            if "bcp_processing" in n:
                deltas.append((f"node[{k}].bcp_processing", parse_time(n["bcp_processing"])))
    switchtime = _uniform(setups, "switch set-up time (SWITCHTIME)")
    hop_delay = _uniform(deltas, "BCP processing time (HOP_DELAY)")
    jet_type = 1 if switchtime > 0 else 0
    size_thr, max_delayed = _ingress_buffer(obs, linkspeed, size_thr, count, warnings)
    conversion = bool(obs.get("conversion", True))
    # optical/op-sragent.cc: LinkReservation_.recv(pkt, conversiontype_): 1 = any
    # wavelength, 2 = the one the burst used on the previous fibre.
    conversiontype = 1 if conversion else 2
    # --- contention resolution (docs/topics/contention.md) ---------------------------------
    # optical/op-sragent.cc: nodetype_ 1 = converters, 2 = FDLs, 3 = both, tried at every
    # node after the ingress, as burstlab's [obs.contention].
    cont: Mapping[str, Any] = obs.get("contention") or {}
    # nOBS resolves contention with converters and FDLs only: a scenario that relies on
    # segmentation, preemption or deflection would run a different network there.
    for key in ("segmentation", "preemption", "deflection"):
        if cont.get(key) not in (None, "none", [], ""):
            raise _err(f"obs.contention.{key}", f"nOBS has no {key}; it resolves "
                       "contention with wavelength converters and FDLs only")
    fdls = [parse_time(x) for x in cont.get("fdl", []) or []]
    converters = int(cont.get("converters", 0) or 0)
    if converters and str(cont.get("converter_scope", "node")) != "node":
        raise _err("obs.contention.converter_scope", "nOBS's converters are a pool per node")
    if fdls and converters:
        warnings.append("obs.contention: with both converters and FDLs, nOBS's last "
                        "attempt (an FDL with conversion) books no converter "
                        "(optical/op-sragent.cc, nodetype_ 3); burstlab books one")
    if converters and switchtime > 0:
        warnings.append("obs.contention.converters: nOBS keeps SWITCHTIME between two "
                        "bursts on one converter; burstlab's converter is free at once")
    nodetype = (1 if converters else 0) + (2 if fdls else 0)
    fdl_cap = 1 if str(cont.get("fdl_capacity", "one")) == "one" else 0

    # --- electronic links: each host hangs off one edge -----------------------------------
    host_edge: dict[str, str] = {}
    for k, link in enumerate(spec.get("link", [])):
        a, b = str(link["a"]), str(link["b"])
        pair = {kinds[a], kinds[b]}
        if pair != {"host", "edge"}:
            raise _err(f"link[{k}]", "nOBS's electronic links join a host to an edge node "
                       f"({a} is {kinds[a]}, {b} is {kinds[b]})")
        h, e = (a, b) if kinds[a] == "host" else (b, a)
        if h in host_edge and host_edge[h] != e:
            raise _err(f"link[{k}]", f"host {h} already hangs off edge {host_edge[h]}")
        host_edge[h] = e
        if float(link.get("loss", 0) or 0) or link.get("loss_ab") or link.get("loss_ba"):
            raise _err(f"link[{k}].loss", "random loss on electronic links is not exported")
        if link.get("duplex", True) is False:
            raise _err(f"link[{k}].duplex", "the export writes duplex links only")

    # --- flows: routes, queues --------------------------------------------------------
    adj = _adjacency(spec, names)
    flows = list(spec.get("flow", []))
    host_conn: dict[tuple[str, str], tuple[str, str]] = {}  # (src, dst) -> (ingress, egress)
    # Fibre directions by whether data (forward) or ACK-only (reverse) bursts use them,
    # and the last fibre of each path: where random loss goes.
    data_dirs: set[tuple[str, str]] = set()
    ack_dirs: set[tuple[str, str]] = set()
    last_dirs: dict[tuple[str, str], bool] = {}  # direction -> carries data
    edge_paths: dict[tuple[str, str], list[str]] = {}
    paths: dict[int, list[str]] = {}
    queue_owner: dict[tuple[str, str], int] = {}
    for i, f in enumerate(flows):
        kind = str(f.get("type", "tcp"))
        dirs = [False, True] if kind == "tcp" else [False]
        for rev in dirs:
            r = _route(spec, names, adj, i, f, rev)
            key = f"flow[{i}].{'reverse_route' if rev else 'route'}"
            if len(r) < 4 or kinds[r[0]] != "host" or kinds[r[-1]] != "host" \
                    or kinds[r[1]] != "edge" or kinds[r[-2]] != "edge" \
                    or any(kinds[x] not in ("edge", "core") for x in r[1:-1]):
                raise _err(key, "nOBS carries a flow host – ingress edge – (core nodes) – "
                           f"egress edge – host; this route is {' – '.join(r)}")
            src, ing, egr, dst = r[0], r[1], r[-2], r[-1]
            opt = r[1:-1]
            if edge_paths.setdefault((ing, egr), opt) != opt:
                raise _err(key, f"nOBS installs one optical path per (ingress, egress): "
                           f"{' – '.join(edge_paths[(ing, egr)])} already, {' – '.join(opt)} "
                           "here")
            host_conn[(src, dst)] = (ing, egr)
            hops = set(zip(opt, opt[1:], strict=False))
            (ack_dirs if rev else data_dirs).update(hops)
            last_dirs[(opt[-2], opt[-1])] = last_dirs.get((opt[-2], opt[-1]), False) or not rev
            if not rev:
                paths[i] = opt
            if classifier == "per_flow":
                # optical/op-burst_agent.cc: the queue is (origin host − 2) mod
                # MAX_FLOW_QUEUE per egress; with MAX_FLOW_QUEUE = node count each origin
                # host has its own queue, so two flows from one host to one egress share.
                q = (src, egr)
                if queue_owner.setdefault(q, i) != i:
                    raise _err(f"flow[{i}].src", f"nOBS queues per source host: flow "
                               f"[{queue_owner[q]}] also sends from {src} to egress {egr}, "
                               "so per_flow assembly cannot separate them")
    flow_queues = len(ids) if classifier == "per_flow" else 1

    # --- the script -----------------------------------------------------------------------
    out: list[str] = []
    w = out.append
    name = spec.get("name", "scenario")
    w(tcl.comment(f"# nOBS v2.1 (ns-2.35) script exported by burstlab from scenario {name!r}"))
    w(f"# burstlab seed {seed_v}, replication {rep_v} -> ns-2 defaultRNG seed {ns_seed}")
    w("# Run: ns THIS_FILE   (ns built with nOBS: make nobs)")
    w("# node ids: " + ", ".join(f"{n}={k}" for n, k in ids.items()))
    w("set ns [new Simulator]")
    w(f"$defaultRNG seed {ns_seed}")
    # OpticalDefaults: every setting, with the TIMEOUT of the node created next.
    w("proc optical_defaults {timeout} {")
    w("    set settings [new OpticalDefaults]")
    w("    $settings set TIMEOUT $timeout")
    w(f"    $settings set BURST_SIZE_THRESHOLD {size_thr}")
    w(f"    $settings set MAX_PACKET_NUM {count}")
    w(f"    $settings set MAX_LAMBDA {max_lambda}")
    w(f"    $settings set HOP_DELAY {_t(hop_delay)}")
    w(f"    $settings set SWITCHTIME {_t(switchtime)}")
    w(f"    $settings set JET_TYPE {jet_type}")
    w(f"    $settings set LINKSPEED {_num(linkspeed)}")
    w("    $settings set BURST_HEADER 0 ;  # burstlab's burst is its packets' bytes")
    if fdls:
        w(f"    $settings set FDLBURSTCAP {fdl_cap}")
        w("    $settings set FDLSWITCHTIME 0 ;  # burstlab's delay lines need no guard")
    w(f"    $settings set MAX_DEST {max_dest}")
    w(f"    $settings set MAX_FLOW_QUEUE {flow_queues}")
    if max_delayed:
        w(f"    $settings set MAX_DELAYED_BURST {max_delayed} ;  # obs.ingress.max_wait")
    w("    $settings set DEBUG 0")
    w("}")
    w(f"optical_defaults {_t(timeout)}")
    if trace:
        w(f"set tf [open {tcl.path(trace, 'trace')} w]")
        if not trace_fibres_only:
            w("$ns trace-all $tf")
    w("$ns op_src_rting 1")
    ackdontburst = 1 if ack_mode == "bypass" else 0
    opt_ids = " ".join(str(ids[n]) for n in optical)
    current = timeout
    for n in optical:
        k = ids[n]
        if node_timeout[n] != current:
            current = node_timeout[n]
            w(f"optical_defaults {_t(current)}  ;# {n}'s own assembly timer")
        w(f"set n({k}) [$ns OpNode]  ;# {n} ({kinds[n]})")
        w(f"set sa [$n({k}) set src_agent_]")
        w(f"$sa optic_nodes {opt_ids}")
        w(f"$sa set nodetype_ {nodetype}")
        w(f"$sa set conversiontype_ {conversiontype}")
        w(f"$sa set converternumber_ {converters}")
        w(f"$sa set fdlnumber_ {len(fdls)}")
        w("$sa create")
        if fdls:
            w("$sa fdl_size " + " ".join(_t(d) for d in fdls))
        w(f"$sa set ackdontburst {ackdontburst}")
        w(f"set ba [$n({k}) set burst_agent_]")
        w("$ba burst_create")
        w(f"$ba optic_nodes {opt_ids}")
        w(f"$ba set ackdontburst {ackdontburst}")
        w(f"[$n({k}) set classifier_] optic_nodes {opt_ids}")
    for n in hosts:
        k = ids[n]
        w(f"set n({k}) [$ns node]  ;# {n} (host)")
        w(f"[$n({k}) set src_agent_] optic_nodes {opt_ids}")
        w(f"[$n({k}) set classifier_] optic_nodes {opt_ids}")
    for k, fb in enumerate(fibres):
        fa, fb_ = ids[str(fb["a"])], ids[str(fb["b"])]
        if "delay" not in fb:
            raise _err(f"fibre[{k}].delay", "give the fibre's delay (length_km is not "
                       "exported)")
        fdelay = parse_time(fb["delay"])
        w(f"$ns optical-duplex-link $n({fa}) $n({fb_}) {_num(linkspeed)} {_t(fdelay)} "
          "OpQueue")
        if trace and trace_fibres_only:
            for tx_, ty_ in ((str(fb["a"]), str(fb["b"])), (str(fb["b"]), str(fb["a"]))):
                if (tx_, ty_) in data_dirs:
                    w(f"$ns trace-queue $n({ids[tx_]}) $n({ids[ty_]}) $tf")
    for k, link in enumerate(spec.get("link", [])):
        la, lb = ids[str(link["a"])], ids[str(link["b"])]
        rate, delay = parse_rate(link["rate"]), parse_time(link["delay"])
        w(f"$ns duplex-link $n({la}) $n({lb}) {_num(rate)} {_t(delay)} DropTail")
        for x, y in ((la, lb), (lb, la)):
            if "queue_pkts" in link:
                qp = int(link["queue_pkts"])
                w(f"$ns queue-limit $n({x}) $n({y}) {qp + 1}  ;# burstlab queue_pkts {qp}")
            elif "queue_bytes" in link:
                raise _err(f"link[{k}].queue_bytes", "the export writes packet-counted "
                           "queues only")
            else:
                w(f"$ns queue-limit $n({x}) $n({y}) {UNLIMITED_QUEUE}  ;# unlimited")

    # Injected losses: obs.drop_burst -> ErrorModel/List on the queue's first fibre,
    # counting data bursts (opticaldrop_ 0) or control packets (1) on that direction.
    fibre_users: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for (src, _dst), (ing, egr) in host_conn.items():
        p = edge_paths[(ing, egr)]
        fibre_users.setdefault((p[0], p[1]), set()).add((src, egr) if classifier ==
                                                         "per_flow" else ("", egr))
    for k, d in enumerate(obs.get("drop_bursts", obs.get("drop_burst", [])) or []):
        edge = str(d["edge"])
        qkey = str(d["queue"])
        if classifier == "per_flow":
            fi = next((i for i, f in enumerate(flows)
                       if str(f.get("name", f"flow{i}")) == qkey), None)
            if fi is None:
                raise _err(f"obs.drop_burst[{k}].queue", f"no flow named {qkey!r}")
            f = flows[fi]
            src = str(f["src"]) if host_edge.get(str(f["src"])) == edge else str(f["dst"])
            dst = str(f["dst"]) if src == str(f["src"]) else str(f["src"])
            ing, egr = host_conn[(src, dst)]
            q = (src, egr)
        else:
            ing, egr = edge, qkey
            q = ("", egr)
        found = edge_paths.get((ing, egr))
        if found is None:
            raise _err(f"obs.drop_burst[{k}]", f"no traffic from {edge} to {egr}")
        p = found
        users = fibre_users[(p[0], p[1])]
        if users != {q}:
            raise _err(f"obs.drop_burst[{k}]", "nOBS's loss list counts every burst on the "
                       f"fibre {p[0]} -> {p[1]}, which other queues use too")
        which = 0 if drop_as == "data" else 1
        lst = " ".join(str(int(x)) for x in sorted(d["bursts"]))
        w(f"set em({k}) [new ErrorModel/List]  ;# obs.drop_burst[{k}] as {drop_as} loss")
        w(f"$em({k}) unit pkt")
        w(f"$em({k}) set opticaldrop_ {which}")
        w(f"$em({k}) droplist {{{lst}}}")
        w(f"$ns lossmodel $em({k}) $n({ids[p[0]]}) $n({ids[p[1]]})")

    # Random burst loss (obs.loss): an ErrorModel with rate p on data bursts
    # (opticaldrop_ 0) on every fibre direction (per_link) or on the last fibre of every
    # path (per_path, one draw per burst). nOBS cannot tell ACK-only bursts from data
    # bursts, so with applies_to = "data" no direction may carry both.
    if loss_p > 0:
        if loss_scope == "per_path":
            where = sorted(d for d, data in last_dirs.items() if data or loss_all)
        else:
            where = sorted(data_dirs | (ack_dirs if loss_all else set()))
        if not loss_all:
            both = [d for d in where if d in ack_dirs and d in data_dirs]
            if both:
                raise _err("obs.loss.applies_to", f"nOBS cannot spare the ACK-only bursts "
                           f"on {both[0][0]} -> {both[0][1]}, which data bursts also cross")
        for lx, ly in where:
            w(f"set em [new ErrorModel]  ;# obs.loss {loss_scope}: {lx} -> {ly}")
            w("$em unit pkt")
            w(f"$em set rate_ {_num(loss_p)}")
            w("$em set opticaldrop_ 0")
            w("$em ranvar [new RandomVariable/Uniform]")
            w(f"$ns lossmodel $em $n({ids[lx]}) $n({ids[ly]})")

    # Control-packet loss (obs.control.loss): an ErrorModel with rate p on control
    # packets (opticaldrop_ 1) on every fibre direction bursts cross; nOBS then finds
    # no reservation for the burst at the next node and drops it there.
    control = obs.get("control") or {}
    for key in ("rate", "bcp_size"):
        if control.get(key) is not None:
            raise _err(f"obs.control.{key}", "nOBS does not serialise control packets on a "
                       "control wavelength nor queue them for processing")
    control_p = float(control.get("loss", 0) or 0)
    if control_p > 0:
        if loss_p > 0:
            raise _err("obs.control.loss", "nOBS takes one loss model per fibre direction: "
                       "export obs.loss and obs.control.loss separately")
        if obs.get("drop_bursts") or obs.get("drop_burst"):
            raise _err("obs.control.loss", "nOBS takes one loss model per fibre direction: "
                       "export obs.drop_burst and obs.control.loss separately")
        for lx, ly in sorted(data_dirs | ack_dirs):
            w(f"set em [new ErrorModel]  ;# obs.control.loss: {lx} -> {ly}")
            w("$em unit pkt")
            w(f"$em set rate_ {_num(control_p)}")
            w("$em set opticaldrop_ 1")
            w("$em ranvar [new RandomVariable/Uniform]")
            w(f"$ns lossmodel $em $n({ids[lx]}) $n({ids[ly]})")

    # Flows: the agents of burstlab's ns-2 export, handed to nOBS's source routing.
    seen_host: set[str] = set()
    summary: list[str] = []
    flows_out: list[dict[str, Any]] = []
    for i, f in enumerate(flows):
        kind = str(f.get("type", "tcp"))
        src, dst = str(f["src"]), str(f["dst"])
        start = parse_time(f.get("start", 0))
        stop = parse_time(f["stop"]) if "stop" in f else None
        fname = str(f.get("name", f"flow{i}"))
        w(tcl.comment(f"# flow[{i}] {fname}: {kind} {src} -> {dst}"))
        body: list[str] = []
        if kind == "tcp":
            if "drop_segments" in f:
                raise _err(f"flow[{i}].drop_segments", "not exported to nOBS; use "
                           "obs.drop_burst")
            _tcp_flow(body.append, i, f, str(ids[src]), str(ids[dst]), start, stop,
                      warnings, {}, {}, boot_seed(seed_v, rep_v, i))
            agent, sink = f"$tcp({i})", f"$sink({i})"
            summary.append(
                f'puts "{SUMMARY_TAG} {i} [$tcp({i}) set ack_] [$tcp({i}) set ndatapack_] '
                f'[$tcp({i}) set nrexmitpack_] [$tcp({i}) set nrexmit_]"')
        else:
            _udp_flow(body.append, i, f, str(ids[src]), str(ids[dst]), start, stop, kind)
            agent, sink = f"$udp({i})", f"$sink({i})"
            summary.append(f'puts "{SUMMARY_TAG} {i} [$sink({i}) set npkts_] 0 0 0"')
        out.extend(body)
        # nOBS's source routing: agents send to their host's OpSRAgent.
        w(f"{agent} target [$n({ids[src]}) set src_agent_]")
        w(f"{sink} target [$n({ids[dst]}) set src_agent_]")
        seen_host.update((src, dst))
        flows_out.append({"flow": i, "name": fname, "type": kind})
    for (src, dst), (ing, egr) in sorted(host_conn.items(), key=lambda x: (ids[x[0][0]],
                                                                          ids[x[0][1]])):
        s, d = ids[src], ids[dst]
        w(f"[$n({s}) set src_agent_] install_connection {d}  {s} {d}  {s} {ids[ing]} "
          f"{ids[egr]} {d}")
    for (ing, egr), p in sorted(edge_paths.items(), key=lambda x: (ids[x[0][0]],
                                                                   ids[x[0][1]])):
        ia, ib = ids[ing], ids[egr]
        w(f"[$n({ia}) set src_agent_] install_connection {ib}  {ia} {ib}  "
          + " ".join(str(ids[x]) for x in p))

    w("proc finish {} {")
    w("    global ns tcp sink udp tf")
    w(f"    puts \"# {SUMMARY_TAG} flow ack_or_packets ndatapack nrexmitpack nrexmit\"")
    for line in summary:
        w("    " + line)
    if trace:
        w("    $ns flush-trace")
        w("    close $tf")
    w("    exit 0")
    w("}")
    w(f"$ns at {_t(duration)} finish")
    w("$ns run")
    for msg in warnings:
        out.insert(4, tcl.comment(f"# warning: {msg}"))
    return NobsScript(tcl="\n".join(out) + "\n", node_ids=ids, flows=flows_out,
                      paths=paths, warnings=warnings)
