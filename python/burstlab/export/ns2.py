"""Export a packet-network scenario as an ns-2.35 Tcl script.

Read first: :func:`to_ns2`. The script builds the same hosts, routers and links (rate,
delay, drop-tail limit, independent loss), the same TCP and UDP flows with their settings,
start and stop times and scripted drops, runs for ``sim.duration`` and prints one
``burstlab-ns2-flow`` line per flow at the end (the agents' own counters), and a
``burstlab-ns2-done`` line when a finite TCP flow completes (:func:`write_done`), so that
the two simulators can be compared flow by flow (:mod:`burstlab.export.ns2trace` reads
both).

Conventions that differ between the two simulators, and how the export bridges them:

* **Queue limits.** burstlab's ``queue_pkts = N`` lets N packets *wait* behind the one
  being transmitted. ns-2's ``queue-limit N`` (``DropTail::enque``: drop when
  ``length + 1 >= limit``) lets N − 1 wait. The export writes ``N + 1``. A link without a
  limit gets ``queue-limit 1000000`` (ns-2's own default, 50, would drop). ``queue_bytes =
  B`` becomes a byte-counted queue (``queue_in_bytes_``, ``mean_pktsize_ 1``) of
  ``B + 1`` for the same reason.
* **Segment numbers.** burstlab's ``ns2`` profile numbers segments as ns-2 does: with
  ``syn`` (ns-2's ``syn_ true``, the default) segment 0 is the 40-byte SYN and data
  segments are 1, 2, ... Scripted drops of segments ``[a, b]`` become packets ``a … b`` of
  an ``ErrorModel/List`` on the flow's first link, which counts every packet that link
  carries (the SYN is packet 0). That count equals the segment number only while no
  retransmission precedes the drop and no other flow shares that link direction: the
  script says so in a comment, and :func:`to_ns2` lists such cases in ``warnings``.
* **The RTT clock's phase.** ns-2 draws each TCP agent's ``boot_time_`` (where between
  two 10 ms ticks its clock started) from ``defaultRNG`` when the agent is reset. The
  script re-seeds ``defaultRNG`` with :func:`boot_seed` of the flow and resets the agent
  at time 0, before it starts; burstlab computes the same phase from the same seed, so
  both quantise RTT samples identically.
* **Randomness.** Loss and on-off sources draw from ns-2's ``defaultRNG``, seeded from
  burstlab's seed and replication. Random runs agree only in distribution, never packet
  by packet.
* **Routes.** ns-2 routes by fewest hops, as burstlab does by default; explicit
  ``route`` / ``reverse_route`` lists are not carried over (listed in ``warnings``).

OBS scenarios (``[[fibre]]``, ``[obs]``) cannot be exported: ns-2 has no burst switching.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from burstlab import _core
from burstlab.export import tcl
from burstlab.export.view import resolve

#: burstlab TCP variant -> (ns-2 sender class, sink class, delayed-ACK sink class).
AGENTS: dict[str, tuple[str, str, str]] = {
    "tahoe": ("Agent/TCP", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "reno": ("Agent/TCP/Reno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "newreno": ("Agent/TCP/Newreno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1", "Agent/TCPSink/Sack1/DelAck"),
}

#: burstlab's modern controllers and the Linux module ns-2.35's ``Agent/TCP/Linux`` runs
#: for each (``$tcp select_ca NAME``; tcp/linux/src/tcp_NAME.c).
LINUX_MODULES = {"cubic": "cubic", "highspeed": "highspeed", "vegas": "vegas"}

#: Settings of burstlab's ``rfc`` profile that have an ns-2 knob (sender side). The
#: recovery algorithms themselves (RFC 6582, RFC 6675) are ns-2's own in the export.
_RFC_SENDER = {"minrto_": 1.0, "rtxcur_init_": 1.0, "tcpTick_": 0.001}

#: burstlab's ns-2 behaviour switches (``profile = "ns2"``) and their ns-2 names.
_NS2_SWITCHES = {"syn": "syn_", "limited_transmit": "singledup_",
                 "precision_reduce": "precisionReduce_", "bug_fix": "bugFix_",
                 "newreno_changes1": "newreno_changes1_",
                 "partial_window_deflation": "partial_window_deflation_",
                 "sack_partial_ack": "partial_ack_"}

#: ``flow.ns2_version`` presets: the Agent/TCP defaults of an older ns-2 release that
#: differ from ns-2.35's, as the ``Agent/TCP set`` values written into the script. The
#: table is the core's (``Ns2Version::tcl_overrides`` in crates/burstlab-core/src/tcp/
#: mod.rs, from each release's tcl/lib/ns-default.tcl; docs/topics/ns2-versions.md), so
#: burstlab's runs and the exported scripts cannot drift apart.
NS2_PRESETS: dict[str, dict[str, float]] = _core.ns2_presets()
_NEWRENO_ONLY = ("newreno_changes1_", "partial_window_deflation_")

#: A flow's settings with an ns-2 knob, written when the flow gives them: key -> (agent,
#: ns-2 name). Counts and bytes are the view's integers, durations its seconds.
_GIVEN = {
    "wm": ("tcp", "window_"), "init_cwnd": ("tcp", "windowInit_"),
    "init_ssthresh": ("tcp", "ssthresh_"), "dupack_thresh": ("tcp", "numdupacks_"),
    "sack_blocks": ("sink", "maxSackBlocks_"),
    "mss": ("tcp", "packetSize_"), "header_bytes": ("tcp", "tcpip_base_hdr_size_"),
    "ack_bytes": ("sink", "packetSize_"),
    "min_rto": ("tcp", "minrto_"), "max_rto": ("tcp", "maxrto_"),
    "init_rto": ("tcp", "rtxcur_init_"), "clock_granularity": ("tcp", "tcpTick_"),
    "delack_timeout": ("sink", "interval_"),
}

#: Unlimited queues: large enough that nothing is dropped.
UNLIMITED_QUEUE = 1_000_000

#: The line prefix of the per-flow summary the script prints at the end.
SUMMARY_TAG = "burstlab-ns2-flow"
#: The line prefix a finite TCP flow prints when it completes: ``DONE_TAG FLOW TIME``.
DONE_TAG = "burstlab-ns2-done"


@dataclass
class Ns2Script:
    """An exported script and what the export could not carry over exactly."""

    tcl: str
    flows: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _num(x: float) -> str:
    """A Tcl number that reads back as the same double."""
    return repr(float(x)) if not float(x).is_integer() else str(int(x))


def boot_seed(seed: int, replication: int, flow: int) -> int:
    """The ``defaultRNG`` seed of flow ``flow``'s clock phase (the same number as
    burstlab's ``tcp::ns2::boot_seed``)."""
    m = 2_147_483_646
    base = (seed * 1_000_003 + replication) % m
    return (base + 7919 * (flow + 1)) % m + 1


def _err(path: str, reason: str) -> _core.ScenarioError:
    return _core.ScenarioError(f"{path}: {reason}")


def seed_and_replication(sim: Mapping[str, Any], seed: int | None,
                         replication: int | None) -> tuple[int, int]:
    """The run's seed and replication (the arguments override ``sim.seed`` and
    ``sim.replication``), each a whole number from 0 to 2^64 − 1 as ``burstlab run``
    takes them; anything else is a ScenarioError naming it."""
    out = []
    for what, given, default in (("seed", seed, 1), ("replication", replication, 0)):
        v = sim.get(what, default) if given is None else given
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**64:
            where = f"sim.{what}" if given is None else what
            raise _err(where, f"must be a whole number from 0 to 2^64 - 1 (got {v!r})")
        out.append(v)
    return out[0], out[1]


def refuse_workloads(spec: Mapping[str, Any], target: str) -> None:
    """A ScenarioError naming ``workload`` when the scenario generates flows: the
    exporters write the listed ``[[flow]]`` tables only, and would drop the generated
    ones without a word."""
    for key in ("workload", "workloads"):
        if spec.get(key):
            raise _err(key, f"flows generated by [[workload]] are not exported to {target}; "
                       "list the flows to compare as [[flow]] tables")


Write = Callable[[str], None]


def to_ns2(
    spec: Mapping[str, Any],
    *,
    seed: int | None = None,
    replication: int | None = None,
    trace: str | None = None,
) -> Ns2Script:
    """Translates a validated scenario dict into an ns-2.35 Tcl script.

    The script is written from the core's resolved scenario
    (:func:`burstlab.export.view.resolve`: every default applied, every route found), one
    section at a time: :func:`_write_header`, :func:`_write_nodes`, :func:`_write_links`,
    :func:`_write_flows` (each flow's agents: :func:`_tcp_flow`, :func:`_udp_flow`),
    :func:`_write_finish`. ``spec`` itself only says which settings were given (an ns-2
    knob is set only for those; ns-2's own default stands for the others).

    Args:
        spec: the scenario (validate it first: :func:`burstlab.export.export_ns2` does).
        seed, replication: override ``sim.seed`` / ``sim.replication``.
        trace: if given, the script writes ns-2's packet trace (``trace-all``) there.

    Raises:
        ScenarioError: the scenario uses something ns-2 does not have (an OBS network);
            the message names the field.
    """
    for key in ("fibre", "obs"):
        if spec.get(key):
            raise _err(key, "OBS scenarios cannot be exported to ns-2 (it has no burst "
                       "switching); export the packet network only")
    tcl.check_scenario(spec)
    refuse_workloads(spec, "ns-2")
    seed_v, rep_v = seed_and_replication(spec.get("sim", {}), seed, replication)
    view = resolve(spec)
    out: list[str] = []
    warnings: list[str] = []
    w = out.append
    _write_header(w, spec.get("name", "scenario"), seed_v, rep_v, trace)
    _write_nodes(w, view)
    _write_links(w, view)
    summary, flows_out = _write_flows(w, spec, view, seed_v, rep_v, warnings)
    _write_finish(w, summary, trace, view["duration_s"])
    for msg in warnings:
        out.insert(3, tcl.comment(f"# warning: {msg}"))
    return Ns2Script(tcl="\n".join(out) + "\n", flows=flows_out, warnings=warnings)


def _write_header(w: Write, name: Any, seed_v: int, rep_v: int, trace: str | None) -> None:
    """Provenance, the simulator, ``defaultRNG``'s seed and the packet trace."""
    # ns-2's RNG takes seeds in [1, 2^31 - 2]; 0 would mean "from the clock".
    ns_seed = (seed_v * 1_000_003 + rep_v) % 2_147_483_646 + 1
    w(tcl.comment(f"# ns-2.35 script exported by burstlab from scenario {name!r}"))
    w(f"# burstlab seed {seed_v}, replication {rep_v} -> ns-2 defaultRNG seed {ns_seed}")
    w("# Run: ns THIS_FILE   (Debian/Ubuntu: apt-get install ns2)")
    w("set ns [new Simulator]")
    w(f"$defaultRNG seed {ns_seed}")
    if trace:
        w(f"set tf [open {tcl.path(trace, 'trace')} w]")
        w("$ns trace-all $tf")


def _write_nodes(w: Write, view: Mapping[str, Any]) -> None:
    """One ns-2 node per burstlab node, in scenario order."""
    for node in view["nodes"]:
        w(f"set n({node['name']}) [$ns node]")


def _write_links(w: Write, view: Mapping[str, Any]) -> None:
    """Each ``[[link]]``: rate, delay, drop-tail limit (converted: see the module docs)
    and independent loss per direction. The core's view lists a link's directions
    (``a`` to ``b`` first) under its ``spec_index``; a simplex link has one."""
    links: dict[int, list[Mapping[str, Any]]] = {}
    for d in view["links"]:
        links.setdefault(int(d["spec_index"]), []).append(d)
    for i, dirs in sorted(links.items()):
        a, b = dirs[0]["from"], dirs[0]["to"]
        kind = "duplex-link" if len(dirs) == 2 else "simplex-link"
        w(f"$ns {kind} $n({a}) $n({b}) {_num(dirs[0]['rate_bps'])} "
          f"{_num(dirs[0]['delay_s'])} DropTail")
        for d in dirs:
            x, y = d["from"], d["to"]
            if d["queue_bytes"] is not None:
                qb = int(d["queue_bytes"])
                w(f"set q [[$ns link $n({x}) $n({y})] queue]")
                w("$q set queue_in_bytes_ true")
                w("$q set mean_pktsize_ 1")
                w(f"$q set limit_ {qb + 1}  ;# burstlab queue_bytes {qb}: B bytes may wait")
            elif d["queue_pkts"] is not None:
                qp = int(d["queue_pkts"])
                w(f"$ns queue-limit $n({x}) $n({y}) {qp + 1}  ;# burstlab queue_pkts {qp}")
            else:
                w(f"$ns queue-limit $n({x}) $n({y}) {UNLIMITED_QUEUE}  ;# unlimited")
        for d in dirs:
            x, y, p = d["from"], d["to"], float(d["loss"])
            if p > 0:
                w(f"set em [new ErrorModel]  ;# link[{i}] {x}->{y}: independent loss")
                w("$em unit pkt")
                w(f"$em set rate_ {_num(p)}")
                w("$em ranvar [new RandomVariable/Uniform]")
                w("$em drop-target [new Agent/Null]")
                w(f"$ns lossmodel $em $n({x}) $n({y})")


def _write_flows(w: Write, spec: Mapping[str, Any], view: Mapping[str, Any], seed_v: int,
                 rep_v: int, warnings: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """Each flow's agents and applications; returns the finish procedure's summary lines
    and the flows' records. A TCP flow's scripted drops go on its first link, taken
    from the core's route."""
    first_hop_users: dict[tuple[str, str], int] = {}
    flows_out: list[dict[str, Any]] = []
    summary: list[str] = []
    given = spec.get("flow", [])
    for i, fv in enumerate(view["flows"]):
        f = given[i] if i < len(given) else {}
        kind, src, dst, fname = fv["type"], fv["src"], fv["dst"], fv["name"]
        for key in ("route", "reverse_route"):
            if key in f:
                warnings.append(f"flow[{i}].{key}: explicit routes are not exported; ns-2 "
                                "routes by fewest hops")
        w(tcl.comment(f"# flow[{i}] {fname}: {kind} {src} -> {dst}"))
        if kind == "tcp":
            route = fv["route"]
            _tcp_flow(w, i, f, fv, src, dst, warnings,
                      str(route[1]) if len(route) > 1 else None, first_hop_users,
                      boot_seed(seed_v, rep_v, i))
            if fv["segments"] is not None:
                write_done(w, i, DONE_TAG)
            summary.append(
                f'puts "{SUMMARY_TAG} {i} [$tcp({i}) set ack_] [$tcp({i}) set ndatapack_] '
                f'[$tcp({i}) set nrexmitpack_] [$tcp({i}) set nrexmit_]"'
            )
        else:
            _udp_flow(w, i, fv, src, dst)
            summary.append(f'puts "{SUMMARY_TAG} {i} [$sink({i}) set npkts_] 0 0 0"')
        flows_out.append({"flow": i, "name": fname, "type": kind})
    for (x, y), users in first_hop_users.items():
        if users > 1:
            warnings.append(f"link {x}->{y} is the first hop of {users} TCP flows: scripted "
                            "drops count all their packets")
    return summary, flows_out


def _write_finish(w: Write, summary: list[str], trace: str | None, duration: float) -> None:
    """The finish procedure (each flow's counters) at ``sim.duration``, and the run."""
    w("proc finish {} {")
    w("    global ns tcp sink tf")
    w(f"    puts \"# {SUMMARY_TAG} flow ack_or_packets ndatapack nrexmitpack nrexmit\"")
    for line in summary:
        w("    " + line)
    if trace:
        w("    $ns flush-trace")
        w("    close $tf")
    w("    exit 0")
    w("}")
    w(f"$ns at {_num(duration)} finish")
    w("$ns run")


def _tcp_flow(
    w: Write, i: int, f: Mapping[str, Any], fv: Mapping[str, Any], src: str, dst: str,
    warnings: list[str], hop: str | None, first_hop_users: dict[tuple[str, str], int],
    clock_seed: int,
) -> None:
    """One TCP flow's agents: ``fv`` is the flow in the core's resolved view (its
    settings with every default applied), ``f`` the flow as given (an ns-2 knob is set
    only for what it gives); ``src``/``dst`` name the nodes in the script; ``hop`` is the
    node after ``src`` on the core's route (where scripted drops go), ``None`` where the
    caller writes no scripted drops."""
    tcp = fv["tcp"]
    variant, profile, cc = str(tcp["variant"]), str(tcp["profile"]), str(tcp["cc"])
    b = int(tcp["b"])
    sender, sink, delack_sink = AGENTS[variant]
    if cc != "aimd":
        # A modern controller is ns-2's Agent/TCP/Linux running that Linux module
        # (tcp-linux.cc), a SACK sender; burstlab's ns2 profile requires variant "sack".
        if cc not in LINUX_MODULES:
            raise _err(f"flow[{i}].cc", f"ns-2.35's Agent/TCP/Linux has no module for {cc!r}")
        sender = "Agent/TCP/Linux"
        _, sink, delack_sink = AGENTS["sack"]
        if variant != "sack":
            warnings.append(f"flow[{i}].variant: cc = {cc!r} is exported as Agent/TCP/Linux, "
                            "a SACK sender, whatever the variant")
    w(f"set tcp({i}) [new {sender}]")
    w(f"set sink({i}) [new {delack_sink if b == 2 else sink}]")
    w(f"$tcp({i}) set fid_ {i}")
    sets: list[tuple[str, str, Any]] = []  # (agent, ns-2 name, value)
    if profile == "rfc":
        warnings.append(f"flow[{i}].profile: 'rfc' is exported as ns-2's {sender} with the "
                        "RFC profile's timer settings; its recovery is ns-2's, not RFC 6675")
        mss_rfc = int(tcp["mss"])
        iw = 2 if mss_rfc > 2190 else 3 if mss_rfc > 1095 else 4  # RFC 5681 §3.1
        sets += [("tcp", "windowInit_", iw), ("tcp", "ssthresh_", 1 << 30),
                 ("sink", "interval_", 0.2)]
        sets += [("tcp", k, v) for k, v in _RFC_SENDER.items()]
        if "mss" not in f:
            sets.append(("tcp", "packetSize_", mss_rfc))
    if str(tcp["recovery"]) != "rfc6675":
        warnings.append(f"flow[{i}].recovery: {str(tcp['recovery'])!r} (RFC 6937's "
                        "Proportional Rate Reduction) is not exported: ns-2.35 has no PRR, "
                        f"its {sender} recovers as it always does")
    version = str(f.get("ns2_version", "2.35"))
    if version not in NS2_PRESETS:
        raise _err(f"flow[{i}].ns2_version",
                   f"unknown ns-2 release {version!r} (one of {', '.join(NS2_PRESETS)})")
    for nsname, value in NS2_PRESETS[version].items():
        if nsname in _NEWRENO_ONLY and variant != "newreno":
            continue
        sets.append(("tcp", nsname, value))
    # The settings the flow gives, each as the core resolved it (a count, bytes, or
    # seconds in the view's `*_s` key).
    for key, (agent, nsname) in _GIVEN.items():
        if key in f:
            sets.append((agent, nsname, tcp[key if key in tcp else f"{key}_s"]))
    if int(tcp["max_backoff"]) != 64:
        warnings.append(f"flow[{i}].max_backoff: ns-2 caps the back-off at 64; not exported")
    for key, nsname in _NS2_SWITCHES.items():
        if key in f:
            if key == "newreno_changes1" or key == "partial_window_deflation":
                if variant != "newreno":
                    continue
            sets.append(("tcp", nsname, 1 if tcp[key] else 0))
    if "init_ssthresh" in f and int(tcp["init_ssthresh"]) != int(tcp["wm"]):
        warnings.append(f"flow[{i}].init_ssthresh: ns-2's TcpAgent::reset() sets ssthresh_ "
                        "to window_ when the agent is reset, so this value does not carry "
                        "over")
    if "clock_phase" in f:
        warnings.append(f"flow[{i}].clock_phase: ns-2 draws boot_time_ itself; the script "
                        "cannot set it (remove clock_phase for an exact comparison)")
    for agent, nsname, value in sets:
        if agent == "sink" and nsname == "interval_" and b != 2:
            continue
        if cc != "aimd" and nsname == "tcpTick_":
            continue  # select_ca sets tcp_tick_ to one jiffy (1 ms)
        w(f"${agent}({i}) set {nsname} {_num(value)}")
    if cc != "aimd":
        w(f"$tcp({i}) select_ca {LINUX_MODULES[cc]}")
    w(f"$ns attach-agent $n({src}) $tcp({i})")
    w(f"$ns attach-agent $n({dst}) $sink({i})")
    w(f"$ns connect $tcp({i}) $sink({i})")
    w(f"set app({i}) [$tcp({i}) attach-app FTP]")
    w(f"# the RTT clock's phase (boot_time_): drawn from defaultRNG seeded {clock_seed}, as "
      "burstlab draws it")
    w(f'$ns at 0 "$defaultRNG seed {clock_seed}; $tcp({i}) reset"')
    start, stop = fv["start_s"], fv["stop_s"]
    if fv["segments"] is not None:
        w(f'$ns at {_num(start)} "$app({i}) produce {int(fv["segments"])}"')
    else:
        w(f'$ns at {_num(start)} "$app({i}) start"')
    if stop is not None:
        w(f'$ns at {_num(stop)} "$app({i}) stop"')
    if hop is not None:
        first_hop_users[(src, hop)] = first_hop_users.get((src, hop), 0) + 1
    drops = f.get("drop_segments")
    if drops:
        if hop is None:
            raise _err(f"flow[{i}].dst", f"no path from {src} to {dst}")
        pkts = sorted({s for a, z in drops for s in range(int(a), int(z) + 1)})
        if len(drops) > 1:
            warnings.append(f"flow[{i}].drop_segments: several ranges; ns-2 drops by packet "
                            "count, which matches segment numbers only before the first "
                            "retransmission")
        w(f"# drop_segments {list(map(list, drops))}: segment s is packet s on the first "
          "link (the SYN is packet 0 and segment 0); exact only while no retransmission "
          "precedes the drop and no other flow uses that link direction")
        w(f"set drop({i}) [new ErrorModel/List]")
        w(f"$drop({i}) droplist {{{' '.join(map(str, pkts))}}}")
        w(f"$ns lossmodel $drop({i}) $n({src}) $n({hop})")


def write_done(w: Any, i: int, tag: str) -> None:
    """A finite TCP flow's completion: ns-2's agent calls its ``done`` instproc when the
    cumulative ACK covers the last segment it was given (``TcpAgent::recv_newack_helper``,
    ``highest_ack_ >= curseq_ - 1``, tcp/tcp.cc), the instant burstlab's ``end_s`` is
    (docs/guide/completion-times.md). The per-agent ``done`` prints that time (the
    shortest string that reads back as the same double) as ``tag FLOW TIME``; a flow
    that does not complete prints nothing."""
    w(f"$tcp({i}) proc done {{}} {{ puts \"{tag} {i} [[Simulator instance] now]\" }}")


def _udp_flow(w: Write, i: int, fv: Mapping[str, Any], src: str, dst: str) -> None:
    """One UDP flow's agents and traffic source, from the flow in the core's resolved
    view (``fv``); ``src``/``dst`` name the nodes in the script."""
    kind = fv["type"]
    if kind == "poisson":
        # ns-2's traffic generators have no exponential packet sizes.
        raise _err(f"flow[{i}].type", "a poisson flow is not exported (ns-2 and nOBS have "
                   "no source with exponential packet sizes)")
    if kind in ("self_similar", "pareto_onoff"):
        # ns-2's Application/Traffic/Pareto restarts its packet clock at every on period
        # and starts off, where burstlab's sources start stationary and carry the clock
        # over (crates/burstlab-core/src/workload/onoff.rs): the runs would differ.
        raise _err(f"flow[{i}].type", f"a {kind} flow is not exported (ns-2's and nOBS's "
                   "Pareto source starts each on period afresh and is not started in its "
                   "stationary state, so the two runs would not be comparable)")
    size, rate = int(fv["packet_size"]), int(fv["rate_bps"])
    w(f"set udp({i}) [new Agent/UDP]")
    w(f"$udp({i}) set fid_ {i}")
    w(f"$udp({i}) set packetSize_ {size}")
    w(f"set sink({i}) [new Agent/LossMonitor]")
    w(f"$ns attach-agent $n({src}) $udp({i})")
    w(f"$ns attach-agent $n({dst}) $sink({i})")
    w(f"$ns connect $udp({i}) $sink({i})")
    if kind == "cbr":
        w(f"set app({i}) [new Application/Traffic/CBR]")
    else:
        w(f"set app({i}) [new Application/Traffic/Exponential]")
        w(f"$app({i}) set burst_time_ {_num(fv['mean_on_s'])}")
        w(f"$app({i}) set idle_time_ {_num(fv['mean_off_s'])}")
    w(f"$app({i}) set packetSize_ {size}")
    w(f"$app({i}) set rate_ {_num(rate)}")
    w(f"$app({i}) attach-agent $udp({i})")
    w(f'$ns at {_num(fv["start_s"])} "$app({i}) start"')
    if fv["stop_s"] is not None:
        w(f'$ns at {_num(fv["stop_s"])} "$app({i}) stop"')
