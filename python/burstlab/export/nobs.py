"""Export an OBS scenario as an nOBS v2.1 (ns-2.35 extension) Tcl script.

Read first: :func:`to_nobs`. The script builds the same hosts, edge and core nodes,
electronic links and fibres, the same assembly, signalling, scheduling and wavelength
settings, the same TCP and UDP flows, and prints one ``burstlab-nobs-flow`` line per flow
at the end (and a ``burstlab-nobs-done`` line when a finite TCP flow completes, its
completion time: :func:`_write_done`), so that the two simulators can be compared flow
by flow and, with
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

from collections.abc import Callable, Mapping
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
    refuse_workloads,
    seed_and_replication,
    write_done,
)
from burstlab.export.view import resolve

#: The line prefix of the per-flow summary the script prints at the end.
SUMMARY_TAG = "burstlab-nobs-flow"
#: The line prefix a finite TCP flow prints when it completes: ``DONE_TAG FLOW TIME``.
DONE_TAG = "burstlab-nobs-done"

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
    over exactly.

    >>> spec = burstlab.load_scenario("examples/nobs_edge_core_edge.toml")
    >>> script = to_nobs(spec, seed=1)
    >>> script.node_ids, script.paths
    ({'E0': 0, 'C1': 1, 'E2': 2, 'src': 3, 'dst': 4}, {0: ['E0', 'C1', 'E2']})
    >>> script.tcl.splitlines()[1]
    '# burstlab seed 1, replication 0 -> ns-2 defaultRNG seed 1000004'
    >>> script.warnings[0][:40]
    'obs.ingress: absent (burstlab drops a bu'
    """

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
    """nOBS's (TIMEOUT, BURST_SIZE_THRESHOLD, MAX_PACKET_NUM) for an assembly policy as
    the core's view gives it (seconds, bytes; ``null`` where a trigger is unset)."""
    atype = str(asm["type"])
    timeout, size_thr, count = NO_TIMEOUT, NO_SIZE_LIMIT, NO_COUNT_LIMIT
    if asm.get("ack_ratio_max") is not None:
        raise _err(f"{path}.ack_ratio_max", "nOBS has no ACK-ratio assembly")
    if atype == "timer":
        if float(asm.get("jitter") or 0) != 0:
            raise _err(f"{path}.jitter", "nOBS's assembly timer has no jitter")
        timeout = float(asm["tb"])
    elif atype == "length":
        if asm.get("max_bytes") is not None:
            size_thr = int(asm["max_bytes"])
        if asm.get("max_pkts") is not None:
            count = int(asm["max_pkts"])
    elif atype == "hybrid":
        if asm.get("lmin") is not None:
            raise _err(f"{path}.lmin", "nOBS does not pad bursts")
        timeout = float(asm["tmax"])
        size_thr = int(asm["lmax"])
    else:
        raise _err(f"{path}.type", f"nOBS has timer, size and count assembly, not "
                   f"{atype!r}")
    return timeout, size_thr, count


#: nOBS's default MAX_MTU (tcl/lib/ns-default.tcl), which the export leaves as is.
NOBS_MAX_MTU = 1040


def _ingress_buffer(obs: Mapping[str, Any], view_obs: Mapping[str, Any], linkspeed: float,
                    size_thr: int, count: int, warnings: list[str]) -> tuple[int, int]:
    """``obs.ingress`` (as given: ``obs``; as the core resolved it: ``view_obs``) as nOBS's
    delayed first reservation: returns the
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
    ing_v = view_obs["ingress"]
    if not ing or ing_v is None:
        warnings.append("obs.ingress: absent (burstlab drops a burst that finds no "
                        "wavelength on its first fibre); nOBS cannot drop there and "
                        "delays it (its default MAX_DELAYED_BURST 2): the simulators "
                        "agree only while no first fibre is contended")
        return size_thr, 0
    for key in ("max_bursts", "max_bytes"):
        if ing_v[key] is not None:
            raise _err(f"obs.ingress.{key}", "nOBS bounds only the wait (MAX_DELAYED_BURST "
                       "bursts of the largest size); its ingress buffer has no size limit")
    if "max_wait" not in ing:
        raise _err("obs.ingress.max_wait", "missing")
    wait_bytes = float(ing_v["max_wait_s"]) * linkspeed / 8
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


@dataclass
class _Plan:
    """What the script is written from: the scenario's settings in nOBS's terms, filled
    in by the ``_plan_*`` steps of :func:`to_nobs` in order and read by the ``_write_*``
    steps. Node names map to nOBS ids in :attr:`ids` (optical nodes first, then hosts)."""

    spec: Mapping[str, Any]
    obs: Mapping[str, Any]
    #: the core's resolved scenario (:func:`burstlab.export.view.resolve`)
    view: Mapping[str, Any]
    warnings: list[str] = field(default_factory=list)
    # assembly and loss ([obs])
    classifier: str = "per_flow"
    ack_mode: str = "assemble"
    timeout: float = NO_TIMEOUT
    size_thr: int = NO_SIZE_LIMIT
    count: int = NO_COUNT_LIMIT
    cap: int | None = None
    loss_p: float = 0.0
    loss_scope: str = "per_link"
    loss_all: bool = False
    # nodes
    names: list[str] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)
    optical: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)
    node_timeout: dict[str, float] = field(default_factory=dict)
    # the optical network's global settings
    linkspeed: float = 0.0
    max_lambda: int = 1
    switchtime: float = 0.0
    hop_delay: float = 0.0
    max_delayed: int = 0
    conversiontype: int = 1
    fdls: list[float] = field(default_factory=list)
    converters: int = 0
    nodetype: int = 0
    fdl_cap: int = 1
    # electronic links, flows and their paths
    host_edge: dict[str, str] = field(default_factory=dict)
    #: (source host, destination host) -> (ingress, egress)
    host_conn: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    #: fibre directions data (forward) and ACK-only (reverse) bursts use
    data_dirs: set[tuple[str, str]] = field(default_factory=set)
    ack_dirs: set[tuple[str, str]] = field(default_factory=set)
    #: the last fibre of each path -> whether data bursts end there (random loss)
    last_dirs: dict[tuple[str, str], bool] = field(default_factory=dict)
    edge_paths: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    paths: dict[int, list[str]] = field(default_factory=dict)
    flow_queues: int = 1


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

    Read the steps in order: :func:`_plan_obs` (what nOBS cannot express, assembly and
    loss), :func:`_plan_nodes`, :func:`_plan_optics` (global settings and contention),
    :func:`_plan_links`, :func:`_plan_flows` (routes, queues); then the script's sections
    :func:`_write_header`, :func:`_write_nodes`, :func:`_write_links`,
    :func:`_write_losses`, :func:`_write_flows`, :func:`_write_finish`.

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

    >>> spec = burstlab.load_scenario("examples/nobs_edge_core_edge.toml")
    >>> script = to_nobs(spec, seed=1)
    >>> script.node_ids, script.paths
    ({'E0': 0, 'C1': 1, 'E2': 2, 'src': 3, 'dst': 4}, {0: ['E0', 'C1', 'E2']})
    >>> script.tcl.splitlines()[1]
    '# burstlab seed 1, replication 0 -> ns-2 defaultRNG seed 1000004'
    >>> script.warnings[0][:40]
    'obs.ingress: absent (burstlab drops a bu'
    """
    if drop_as not in ("data", "control"):
        raise _err("drop_as", f"must be 'data' or 'control' (got {drop_as!r})")
    tcl.check_scenario(spec)
    refuse_workloads(spec, "nOBS")
    if not spec.get("fibre"):
        raise _err("fibre", "not an OBS scenario (no [[fibre]]); use `burstlab export ns2`")
    seed_v, rep_v = seed_and_replication(spec.get("sim", {}), seed, replication)
    p = _Plan(spec=spec, obs=spec.get("obs", {}), view=resolve(spec))
    duration = float(p.view["duration_s"])
    _plan_obs(p)
    _plan_nodes(p)
    _plan_optics(p)
    _plan_links(p)
    _plan_flows(p)

    out: list[str] = []
    w = out.append
    _write_header(p, w, seed_v, rep_v, trace, trace_fibres_only)
    _write_nodes(p, w)
    _write_links(p, w, trace, trace_fibres_only)
    _write_losses(p, w, drop_as)
    summary, flows_out = _write_flows(p, out, seed_v, rep_v)
    _write_finish(w, summary, trace, duration)
    for msg in p.warnings:
        out.insert(4, tcl.comment(f"# warning: {msg}"))
    return NobsScript(tcl="\n".join(out) + "\n", node_ids=dict(p.ids), flows=flows_out,
                      paths=p.paths, warnings=p.warnings)


#: ``[obs]`` settings nOBS has no counterpart for, and why.
_UNSUPPORTED_OBS = {
    "classes": "nOBS has no burst classes", "class": "nOBS has no burst classes",
    "offset": "nOBS computes its own offset (hops × HOP_DELAY [+ SWITCHTIME])",
    "ack_ratio_max": "nOBS has no ACK-ratio assembly",
    "retransmit": "nOBS has no burst retransmission (its ingress keeps no copy of a "
                  "burst and its core sends no NACK)",
}


def _directions(view_links: list[Mapping[str, Any]]) -> dict[int, list[Mapping[str, Any]]]:
    """The core's view lists each direction of a ``[[link]]`` or ``[[fibre]]`` (``a`` to
    ``b`` first): the directions by the table's index."""
    out: dict[int, list[Mapping[str, Any]]] = {}
    for d in view_links:
        out.setdefault(int(d["spec_index"]), []).append(d)
    return out


def _plan_obs(p: _Plan) -> None:
    """``[obs]``: refuses what nOBS cannot express; the assembly triggers and loss."""
    obs, warnings = p.obs, p.warnings
    unknown = sorted(set(obs) - _OBS_KEYS)
    if unknown:
        raise _err(f"obs.{unknown[0]}", "the nOBS export does not carry this setting")
    for key, why in _UNSUPPORTED_OBS.items():
        if obs.get(key):
            raise _err(f"obs.{key}", why)
    ov = p.view["obs"]  # the values, defaults applied
    if float(ov["extra_offset_s"]) != 0:
        raise _err("obs.extra_offset", "nOBS's offset is hops × HOP_DELAY (+ SWITCHTIME); "
                   "it has no extra offset")
    if str(ov["signalling"]) != "jet":
        raise _err("obs.signalling", "nOBS implements JET only")
    if str(ov["scheduler"]) != "laucvf":
        raise _err("obs.scheduler", "nOBS schedules by LAUC-VF (smallest void) only; "
                   "use scheduler = \"laucvf\"")
    p.classifier = str(ov["classifier"])
    if p.classifier not in ("per_flow", "per_egress"):
        raise _err("obs.classifier", "nOBS queues per (source host, egress) or per egress "
                   "only: per_flow or per_egress")
    p.ack_mode = str(ov["ack_mode"])
    if p.ack_mode == "bypass":
        warnings.append("obs.ack_mode: 'bypass' is exported as nOBS's ackdontburst 1: each "
                        "ACK crosses the core at once as a burst of its own, without "
                        "offset or reservation (optical/op-sragent.cc); burstlab's bypass "
                        "link also queues ACKs behind one another")
    p.timeout, p.size_thr, p.count = _triggers(ov["assembly"], "obs.assembly")
    atype = str(ov["assembly"]["type"])
    if p.size_thr != NO_SIZE_LIMIT and p.count != NO_COUNT_LIMIT:
        warnings.append("obs.assembly: with both a size and a packet-count threshold, nOBS "
                        "sends an extra empty burst after every burst whose last packet "
                        "reaches both (BurstAgent::recv tests the count on the burst it "
                        "has just sent; docs/topics/nobs.md)")
    cap = ov["max_pkts_per_burst"]
    if cap is not None:
        p.cap = int(cap)
        if atype == "timer":
            warnings.append("obs.max_pkts_per_burst: nOBS sends a burst as soon as it "
                            "holds MAX_PACKET_NUM packets; burstlab's timer cap takes at "
                            "most that many at expiry")
        p.count = min(p.count, p.cap)
    if ov["queue_limit"] is not None:
        warnings.append("obs.queue_limit: nOBS's assembly queues are unlimited")
    p.loss_p = float(ov["loss_p"])
    p.loss_scope = str(ov["loss_scope"])
    p.loss_all = str(ov["loss_applies_to"]) == "all"


def _plan_nodes(p: _Plan) -> None:
    """Nodes: kinds, ids (optical nodes first, then hosts) and each edge's timer."""
    nodes = list(p.spec.get("node", []))
    views = p.view["nodes"]
    p.names = [str(n["name"]) for n in views]
    p.kinds = {str(n["name"]): str(n["kind"]) for n in views}
    for k, n in enumerate(nodes):
        if p.kinds[str(n["name"])] == "router":
            raise _err(f"node[{k}].kind", "nOBS connects hosts to edge nodes directly; "
                       "it has no routers")
        if n.get("fabric"):
            raise _err(f"node[{k}].fabric", "nOBS nodes have one switching fabric")
    p.optical = [n for n in p.names if p.kinds[n] in ("edge", "core")]
    # Per-edge assembly: nOBS's burst agent reads TIMEOUT when its node is created
    # (optical/op-burst_agent.cc), so a node's own timer is an OpticalDefaults object
    # created just before it; the size and count thresholds are read while running, from
    # the last one created, and must be the same everywhere.
    for k, n in enumerate(views):
        nm = str(n["name"])
        if p.kinds[nm] in ("edge", "core"):
            p.node_timeout[nm] = p.timeout
            if n["assembly"]:
                t, sz, c = _triggers(n["assembly"], f"node[{k}].assembly")
                c = min(c, p.cap) if p.cap is not None else c
                if (sz, c) != (p.size_thr, p.count):
                    raise _err(f"node[{k}].assembly", "nOBS's size and packet-count "
                               "thresholds are global; only the timer may differ per edge")
                p.node_timeout[nm] = t
    p.hosts = [n for n in p.names if p.kinds[n] == "host"]
    p.ids = {n: k for k, n in enumerate(p.optical + p.hosts)}


def _plan_optics(p: _Plan) -> None:
    """The settings nOBS holds once for the whole network (LINKSPEED, MAX_LAMBDA,
    SWITCHTIME, HOP_DELAY, the ingress wait), and contention resolution."""
    obs, spec, ov = p.obs, p.spec, p.view["obs"]
    fibres = list(spec["fibre"])
    dirs = _directions(p.view["fibres"])
    rates = [(f"fibre[{k}].rate", float(dirs[k][0]["rate_bps"])) for k, f in enumerate(fibres)
             if "rate" in f]
    if len(rates) != len(fibres):
        k = next(k for k, f in enumerate(fibres) if "rate" not in f)
        raise _err(f"fibre[{k}].rate", "nOBS needs every fibre's rate (LINKSPEED)")
    p.linkspeed = _uniform(rates, "wavelength rate (LINKSPEED)")
    wl = [(f"fibre[{k}].wavelengths", int(dirs[k][0]["wavelengths"]))
          for k in range(len(fibres))]
    p.max_lambda = _uniform(wl, "number of wavelengths (MAX_LAMBDA)")
    for k, f in enumerate(fibres):
        for key in ("fabric_a", "fabric_b"):
            if key in f:
                raise _err(f"fibre[{k}].{key}", "nOBS nodes have one switching fabric")
        # The view's loss includes obs.loss; a fibre's own loss is refused as given.
        if float(f.get("loss", 0) or 0) > 0:
            raise _err(f"fibre[{k}].loss", "per-fibre loss is not exported; use obs.loss")
        if len(dirs[k]) != 2:
            raise _err(f"fibre[{k}].duplex", "nOBS fibres are duplex")
    # The core's values, defaults applied (obs.switch_setup 5 µs, obs.bcp_processing
    # 10 µs unless set; a node's own setting wins).
    setups = [("obs.switch_setup", float(ov["switch_setup_s"]))]
    deltas = [("obs.bcp_processing", float(ov["bcp_processing_s"]))]
    for k, n in enumerate(p.view["nodes"]):
        if n["kind"] in ("edge", "core"):
            setups.append((f"node[{k}].switch_setup", float(n["switch_setup_s"])))
            deltas.append((f"node[{k}].bcp_processing",
                           float(n["fabrics"][0]["bcp_processing_s"])))
    p.switchtime = _uniform(setups, "switch set-up time (SWITCHTIME)")
    p.hop_delay = _uniform(deltas, "BCP processing time (HOP_DELAY)")
    p.size_thr, p.max_delayed = _ingress_buffer(obs, ov, p.linkspeed, p.size_thr, p.count,
                                                p.warnings)
    # optical/op-sragent.cc: LinkReservation_.recv(pkt, conversiontype_): 1 = any
    # wavelength, 2 = the one the burst used on the previous fibre.
    p.conversiontype = 1 if bool(ov["conversion"]) else 2
    _plan_contention(p)


def _plan_contention(p: _Plan) -> None:
    """``[obs.contention]`` (docs/topics/contention.md). optical/op-sragent.cc: nodetype_
    1 = converters, 2 = FDLs, 3 = both, tried at every node after the ingress, as
    burstlab's [obs.contention]."""
    cont: Mapping[str, Any] = p.view["obs"]["contention"]  # defaults applied
    # nOBS resolves contention with converters and FDLs only: a scenario that relies on
    # segmentation, preemption or deflection would run a different network there.
    for key in ("segmentation", "preemption", "deflection"):
        if cont.get(key) not in (None, "none", [], ""):
            raise _err(f"obs.contention.{key}", f"nOBS has no {key}; it resolves "
                       "contention with wavelength converters and FDLs only")
    p.fdls = [float(x) for x in cont["fdl_s"]]
    p.converters = int(cont["converters"])
    if p.converters and str(cont["converter_scope"]) != "node":
        raise _err("obs.contention.converter_scope", "nOBS's converters are a pool per node")
    if p.fdls and p.converters:
        p.warnings.append("obs.contention: with both converters and FDLs, nOBS's last "
                          "attempt (an FDL with conversion) books no converter "
                          "(optical/op-sragent.cc, nodetype_ 3); burstlab books one")
    if p.converters and p.switchtime > 0:
        p.warnings.append("obs.contention.converters: nOBS keeps SWITCHTIME between two "
                          "bursts on one converter; burstlab's converter is free at once")
    p.nodetype = (1 if p.converters else 0) + (2 if p.fdls else 0)
    p.fdl_cap = 1 if str(cont["fdl_capacity"]) == "one" else 0


def _plan_links(p: _Plan) -> None:
    """Electronic links: each host hangs off one edge."""
    kinds = p.kinds
    for k, dirs in sorted(_directions(p.view["links"]).items()):
        a, b = str(dirs[0]["from"]), str(dirs[0]["to"])
        if {kinds[a], kinds[b]} != {"host", "edge"}:
            raise _err(f"link[{k}]", "nOBS's electronic links join a host to an edge node "
                       f"({a} is {kinds[a]}, {b} is {kinds[b]})")
        h, e = (a, b) if kinds[a] == "host" else (b, a)
        if h in p.host_edge and p.host_edge[h] != e:
            raise _err(f"link[{k}]", f"host {h} already hangs off edge {p.host_edge[h]}")
        p.host_edge[h] = e
        if any(float(d["loss"]) > 0 for d in dirs):
            raise _err(f"link[{k}].loss", "random loss on electronic links is not exported")
        if len(dirs) != 2:
            raise _err(f"link[{k}].duplex", "the export writes duplex links only")


def _plan_flows(p: _Plan) -> None:
    """Each flow's route (host – ingress – core… – egress – host), the one optical path
    per (ingress, egress) nOBS installs, the fibre directions in use, and the assembly
    queues."""
    kinds = p.kinds
    queue_owner: dict[tuple[str, str], int] = {}
    for i, f in enumerate(p.view["flows"]):
        kind = str(f["type"])
        for rev in ([False, True] if kind == "tcp" else [False]):
            r = [str(x) for x in f["reverse_route" if rev else "route"]]
            key = f"flow[{i}].{'reverse_route' if rev else 'route'}"
            if len(r) < 4 or kinds[r[0]] != "host" or kinds[r[-1]] != "host" \
                    or kinds[r[1]] != "edge" or kinds[r[-2]] != "edge" \
                    or any(kinds[x] not in ("edge", "core") for x in r[1:-1]):
                raise _err(key, "nOBS carries a flow host – ingress edge – (core nodes) – "
                           f"egress edge – host; this route is {' – '.join(r)}")
            src, ing, egr, dst = r[0], r[1], r[-2], r[-1]
            opt = r[1:-1]
            if p.edge_paths.setdefault((ing, egr), opt) != opt:
                raise _err(key, f"nOBS installs one optical path per (ingress, egress): "
                           f"{' – '.join(p.edge_paths[(ing, egr)])} already, "
                           f"{' – '.join(opt)} here")
            p.host_conn[(src, dst)] = (ing, egr)
            hops = set(zip(opt, opt[1:], strict=False))
            (p.ack_dirs if rev else p.data_dirs).update(hops)
            last = (opt[-2], opt[-1])
            p.last_dirs[last] = p.last_dirs.get(last, False) or not rev
            if not rev:
                p.paths[i] = opt
            if p.classifier == "per_flow":
                # optical/op-burst_agent.cc: the queue is (origin host − 2) mod
                # MAX_FLOW_QUEUE per egress; with MAX_FLOW_QUEUE = node count each origin
                # host has its own queue, so two flows from one host to one egress share.
                q = (src, egr)
                if queue_owner.setdefault(q, i) != i:
                    raise _err(f"flow[{i}].src", f"nOBS queues per source host: flow "
                               f"[{queue_owner[q]}] also sends from {src} to egress {egr}, "
                               "so per_flow assembly cannot separate them")
    p.flow_queues = len(p.ids) if p.classifier == "per_flow" else 1


Write = Callable[[str], None]


def _write_header(p: _Plan, w: Write, seed_v: int, rep_v: int, trace: str | None,
                  trace_fibres_only: bool) -> None:
    """The script's head: provenance, the RNG seed, nOBS's OpticalDefaults, the trace."""
    ns_seed = (seed_v * 1_000_003 + rep_v) % 2_147_483_646 + 1
    name = p.spec.get("name", "scenario")
    w(tcl.comment(f"# nOBS v2.1 (ns-2.35) script exported by burstlab from scenario {name!r}"))
    w(f"# burstlab seed {seed_v}, replication {rep_v} -> ns-2 defaultRNG seed {ns_seed}")
    w("# Run: ns THIS_FILE   (ns built with nOBS: make nobs)")
    w("# node ids: " + ", ".join(f"{n}={k}" for n, k in p.ids.items()))
    w("set ns [new Simulator]")
    w(f"$defaultRNG seed {ns_seed}")
    # OpticalDefaults: every setting, with the TIMEOUT of the node created next.
    w("proc optical_defaults {timeout} {")
    w("    set settings [new OpticalDefaults]")
    w("    $settings set TIMEOUT $timeout")
    w(f"    $settings set BURST_SIZE_THRESHOLD {p.size_thr}")
    w(f"    $settings set MAX_PACKET_NUM {p.count}")
    w(f"    $settings set MAX_LAMBDA {p.max_lambda}")
    w(f"    $settings set HOP_DELAY {_t(p.hop_delay)}")
    w(f"    $settings set SWITCHTIME {_t(p.switchtime)}")
    w(f"    $settings set JET_TYPE {1 if p.switchtime > 0 else 0}")
    w(f"    $settings set LINKSPEED {_num(p.linkspeed)}")
    w("    $settings set BURST_HEADER 0 ;  # burstlab's burst is its packets' bytes")
    if p.fdls:
        w(f"    $settings set FDLBURSTCAP {p.fdl_cap}")
        w("    $settings set FDLSWITCHTIME 0 ;  # burstlab's delay lines need no guard")
    w(f"    $settings set MAX_DEST {max(10, len(p.ids))}")
    w(f"    $settings set MAX_FLOW_QUEUE {p.flow_queues}")
    if p.max_delayed:
        w(f"    $settings set MAX_DELAYED_BURST {p.max_delayed} ;  # obs.ingress.max_wait")
    w("    $settings set DEBUG 0")
    w("}")
    w(f"optical_defaults {_t(p.timeout)}")
    if trace:
        w(f"set tf [open {tcl.path(trace, 'trace')} w]")
        if not trace_fibres_only:
            w("$ns trace-all $tf")
    w("$ns op_src_rting 1")


def _write_nodes(p: _Plan, w: Write) -> None:
    """Optical nodes (each after the OpticalDefaults of its own timer), then hosts."""
    ackdontburst = 1 if p.ack_mode == "bypass" else 0
    opt_ids = " ".join(str(p.ids[n]) for n in p.optical)
    current = p.timeout
    for n in p.optical:
        k = p.ids[n]
        if p.node_timeout[n] != current:
            current = p.node_timeout[n]
            w(f"optical_defaults {_t(current)}  ;# {n}'s own assembly timer")
        w(f"set n({k}) [$ns OpNode]  ;# {n} ({p.kinds[n]})")
        w(f"set sa [$n({k}) set src_agent_]")
        w(f"$sa optic_nodes {opt_ids}")
        w(f"$sa set nodetype_ {p.nodetype}")
        w(f"$sa set conversiontype_ {p.conversiontype}")
        w(f"$sa set converternumber_ {p.converters}")
        w(f"$sa set fdlnumber_ {len(p.fdls)}")
        w("$sa create")
        if p.fdls:
            w("$sa fdl_size " + " ".join(_t(d) for d in p.fdls))
        w(f"$sa set ackdontburst {ackdontburst}")
        w(f"set ba [$n({k}) set burst_agent_]")
        w("$ba burst_create")
        w(f"$ba optic_nodes {opt_ids}")
        w(f"$ba set ackdontburst {ackdontburst}")
        w(f"[$n({k}) set classifier_] optic_nodes {opt_ids}")
    for n in p.hosts:
        k = p.ids[n]
        w(f"set n({k}) [$ns node]  ;# {n} (host)")
        w(f"[$n({k}) set src_agent_] optic_nodes {opt_ids}")
        w(f"[$n({k}) set classifier_] optic_nodes {opt_ids}")


def _write_links(p: _Plan, w: Write, trace: str | None, trace_fibres_only: bool) -> None:
    """Fibres (one rate for all) and the hosts' electronic links."""
    ids = p.ids
    fibres = _directions(p.view["fibres"])
    for k, fb in enumerate(p.spec["fibre"]):
        fa, fb_ = ids[str(fb["a"])], ids[str(fb["b"])]
        # The delay given, or for a fibre given by length_km the one the core gave it
        # (5 us/km, crates/burstlab-core/src/scenario/obs.rs).
        fdelay = float(fibres[k][0]["delay_s"])
        w(f"$ns optical-duplex-link $n({fa}) $n({fb_}) {_num(p.linkspeed)} {_t(fdelay)} "
          "OpQueue")
        if trace and trace_fibres_only:
            for tx_, ty_ in ((str(fb["a"]), str(fb["b"])), (str(fb["b"]), str(fb["a"]))):
                if (tx_, ty_) in p.data_dirs:
                    w(f"$ns trace-queue $n({ids[tx_]}) $n({ids[ty_]}) $tf")
    for k, dirs in sorted(_directions(p.view["links"]).items()):
        la, lb = ids[str(dirs[0]["from"])], ids[str(dirs[0]["to"])]
        rate, delay = float(dirs[0]["rate_bps"]), float(dirs[0]["delay_s"])
        w(f"$ns duplex-link $n({la}) $n({lb}) {_num(rate)} {_t(delay)} DropTail")
        for (x, y), d in zip(((la, lb), (lb, la)), dirs, strict=True):
            if d["queue_pkts"] is not None:
                qp = int(d["queue_pkts"])
                w(f"$ns queue-limit $n({x}) $n({y}) {qp + 1}  ;# burstlab queue_pkts {qp}")
            elif d["queue_bytes"] is not None:
                raise _err(f"link[{k}].queue_bytes", "the export writes packet-counted "
                           "queues only")
            else:
                w(f"$ns queue-limit $n({x}) $n({y}) {UNLIMITED_QUEUE}  ;# unlimited")


def _write_losses(p: _Plan, w: Write, drop_as: str) -> None:
    """Injected burst drops, random burst loss and control-packet loss."""
    _write_drop_bursts(p, w, drop_as)
    # Random burst loss (obs.loss): an ErrorModel with rate p on data bursts
    # (opticaldrop_ 0) on every fibre direction (per_link) or on the last fibre of every
    # path (per_path, one draw per burst). nOBS cannot tell ACK-only bursts from data
    # bursts, so with applies_to = "data" no direction may carry both.
    if p.loss_p > 0:
        if p.loss_scope == "per_path":
            where = sorted(d for d, data in p.last_dirs.items() if data or p.loss_all)
        else:
            where = sorted(p.data_dirs | (p.ack_dirs if p.loss_all else set()))
        if not p.loss_all:
            both = [d for d in where if d in p.ack_dirs and d in p.data_dirs]
            if both:
                raise _err("obs.loss.applies_to", f"nOBS cannot spare the ACK-only bursts "
                           f"on {both[0][0]} -> {both[0][1]}, which data bursts also cross")
        _write_error_models(p, w, where, p.loss_p, 0, f"obs.loss {p.loss_scope}")
    # Control-packet loss (obs.control.loss): an ErrorModel with rate p on control
    # packets (opticaldrop_ 1) on every fibre direction bursts cross; nOBS then finds
    # no reservation for the burst at the next node and drops it there.
    control = p.obs.get("control") or {}
    for key in ("rate", "bcp_size"):
        if control.get(key) is not None:
            raise _err(f"obs.control.{key}", "nOBS does not serialise control packets on a "
                       "control wavelength nor queue them for processing")
    control_p = float(p.view["obs"]["control_loss"])
    if control_p > 0:
        if p.loss_p > 0:
            raise _err("obs.control.loss", "nOBS takes one loss model per fibre direction: "
                       "export obs.loss and obs.control.loss separately")
        if p.obs.get("drop_bursts") or p.obs.get("drop_burst"):
            raise _err("obs.control.loss", "nOBS takes one loss model per fibre direction: "
                       "export obs.drop_burst and obs.control.loss separately")
        _write_error_models(p, w, sorted(p.data_dirs | p.ack_dirs), control_p, 1,
                            "obs.control.loss")


def _write_error_models(p: _Plan, w: Write, where: list[tuple[str, str]], rate: float,
                        opticaldrop: int, what: str) -> None:
    """One uniform ErrorModel of ``rate`` per fibre direction of ``where``, on data
    bursts (``opticaldrop_`` 0) or control packets (1)."""
    for lx, ly in where:
        w(f"set em [new ErrorModel]  ;# {what}: {lx} -> {ly}")
        w("$em unit pkt")
        w(f"$em set rate_ {_num(rate)}")
        w(f"$em set opticaldrop_ {opticaldrop}")
        w("$em ranvar [new RandomVariable/Uniform]")
        w(f"$ns lossmodel $em $n({p.ids[lx]}) $n({p.ids[ly]})")


def _write_drop_bursts(p: _Plan, w: Write, drop_as: str) -> None:
    """Injected losses: obs.drop_burst -> ErrorModel/List on the queue's first fibre,
    counting data bursts (opticaldrop_ 0) or control packets (1) on that direction."""
    fibre_users: dict[tuple[str, str], set[tuple[str, str]]] = {}
    per_flow = p.classifier == "per_flow"
    for (src, _dst), (ing, egr) in p.host_conn.items():
        path = p.edge_paths[(ing, egr)]
        fibre_users.setdefault((path[0], path[1]), set()).add((src, egr) if per_flow
                                                              else ("", egr))
    flows = list(p.spec.get("flow", []))
    for k, d in enumerate(p.obs.get("drop_bursts", p.obs.get("drop_burst", [])) or []):
        edge = str(d["edge"])
        qkey = str(d["queue"])
        if per_flow:
            fi = next((i for i, f in enumerate(flows)
                       if str(f.get("name", f"flow{i}")) == qkey), None)
            if fi is None:
                raise _err(f"obs.drop_burst[{k}].queue", f"no flow named {qkey!r}")
            f = flows[fi]
            src = str(f["src"]) if p.host_edge.get(str(f["src"])) == edge else str(f["dst"])
            dst = str(f["dst"]) if src == str(f["src"]) else str(f["src"])
            ing, egr = p.host_conn[(src, dst)]
            q = (src, egr)
        else:
            ing, egr = edge, qkey
            q = ("", egr)
        found = p.edge_paths.get((ing, egr))
        if found is None:
            raise _err(f"obs.drop_burst[{k}]", f"no traffic from {edge} to {egr}")
        if fibre_users[(found[0], found[1])] != {q}:
            raise _err(f"obs.drop_burst[{k}]", "nOBS's loss list counts every burst on the "
                       f"fibre {found[0]} -> {found[1]}, which other queues use too")
        lst = " ".join(str(int(x)) for x in sorted(d["bursts"]))
        w(f"set em({k}) [new ErrorModel/List]  ;# obs.drop_burst[{k}] as {drop_as} loss")
        w(f"$em({k}) unit pkt")
        w(f"$em({k}) set opticaldrop_ {0 if drop_as == 'data' else 1}")
        w(f"$em({k}) droplist {{{lst}}}")
        w(f"$ns lossmodel $em({k}) $n({p.ids[found[0]]}) $n({p.ids[found[1]]})")


def _write_flows(p: _Plan, out: list[str], seed_v: int, rep_v: int
                 ) -> tuple[list[str], list[dict[str, Any]]]:
    """The agents of burstlab's ns-2 export, handed to nOBS's source routing, and the
    connections installed along each path. Returns the finish procedure's summary lines
    and the flows' records."""
    ids, w = p.ids, out.append
    summary: list[str] = []
    flows_out: list[dict[str, Any]] = []
    given = p.spec.get("flow", [])
    for i, fv in enumerate(p.view["flows"]):
        f = given[i] if i < len(given) else {}
        kind, src, dst, fname = str(fv["type"]), str(fv["src"]), str(fv["dst"]), fv["name"]
        w(tcl.comment(f"# flow[{i}] {fname}: {kind} {src} -> {dst}"))
        if kind == "tcp":
            if fv["drop_segments"]:
                raise _err(f"flow[{i}].drop_segments", "not exported to nOBS; use "
                           "obs.drop_burst")
            _tcp_flow(w, i, f, fv, str(ids[src]), str(ids[dst]), p.warnings, None, {},
                      boot_seed(seed_v, rep_v, i))
            agent = f"$tcp({i})"
            if fv["segments"] is not None:
                _write_done(w, i)
            summary.append(
                f'puts "{SUMMARY_TAG} {i} [$tcp({i}) set ack_] [$tcp({i}) set ndatapack_] '
                f'[$tcp({i}) set nrexmitpack_] [$tcp({i}) set nrexmit_]"')
        else:
            _udp_flow(w, i, fv, str(ids[src]), str(ids[dst]))
            agent = f"$udp({i})"
            summary.append(f'puts "{SUMMARY_TAG} {i} [$sink({i}) set npkts_] 0 0 0"')
        # nOBS's source routing: agents send to their host's OpSRAgent.
        w(f"{agent} target [$n({ids[src]}) set src_agent_]")
        w(f"$sink({i}) target [$n({ids[dst]}) set src_agent_]")
        flows_out.append({"flow": i, "name": fname, "type": kind})
    for (src, dst), (ing, egr) in sorted(p.host_conn.items(),
                                         key=lambda x: (ids[x[0][0]], ids[x[0][1]])):
        s, d = ids[src], ids[dst]
        w(f"[$n({s}) set src_agent_] install_connection {d}  {s} {d}  {s} {ids[ing]} "
          f"{ids[egr]} {d}")
    for (ing, egr), path in sorted(p.edge_paths.items(),
                                   key=lambda x: (ids[x[0][0]], ids[x[0][1]])):
        ia, ib = ids[ing], ids[egr]
        w(f"[$n({ia}) set src_agent_] install_connection {ib}  {ia} {ib}  "
          + " ".join(str(ids[x]) for x in path))
    return summary, flows_out


def _write_done(w: Write, i: int) -> None:
    """A finite TCP flow prints its completion time (``DONE_TAG FLOW TIME``) from its
    agent's ``done`` (:func:`burstlab.export.ns2.write_done`)."""
    write_done(w, i, DONE_TAG)


def _write_finish(w: Write, summary: list[str], trace: str | None, duration: float) -> None:
    """The finish procedure (each flow's counters) and the run."""
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
