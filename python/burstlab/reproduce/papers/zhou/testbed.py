"""zhou §2.1: the OBS testbed as a burstlab scenario, with our choices for what the
paper does not give.

Read first: :func:`testbed` (the scenario), then :data:`BASE` (the chosen unknowns, each
with its reason) and :data:`SENSITIVITY` (the alternatives run to show how much the
conclusions depend on them).

What zhou §2.1 gives, and how it maps onto burstlab:

- two edge nodes and one core node: ``server –(access)– E1 ═ C1 ═ E2 –(access)– client``;
- "8 × 1.25 Gb/s channels including a control channel" per fibre: ``wavelengths = 7``
  data channels of 1.25 Gb/s; burstlab's fibre carries the burst control packets on a
  separate control channel that is never congested, which is the eighth;
- LAUC-VF at edge and core: ``scheduler = "laucvf"`` (JET signalling);
- maximum processing delay 2.5 µs at an edge, 10 µs at the core: burstlab's
  ``obs.bcp_processing`` is one value for every node (offset = hops × δ + switch
  set-up), so we use the larger, 10 µs. The offset is then 2 × 10 µs + 0.1 µs = 20.1 µs
  instead of about 12.6 µs: 7.5 µs more per direction, under 2 % of the smallest
  round-trip time simulated here (a core change for per-node δ is noted in the report);
- switching time "less than 100 ns": ``switch_setup = 100 ns`` at every OBS node;
- one TCP connection server → client, maximum window 64 KB and MSS 512 B:
  ``wm = 128`` segments of 512 B;
- static timer assembly with period ``Tb`` (per flow; ACKs from the client are
  assembled at E2 with the same timer, as they cross the same OBS network);
- burst loss "through intentional dropping at nodes" with probability ``Pb``: an
  independent loss with probability ``Pb`` of every **data** burst on the fibre E1 → C1
  (``obs.loss.scope = "per_link"``, ``fibre[0].loss = Pb``, ``applies_to = "data"``), so
  each data burst is dropped at most once, at one node, as with a deliberate dropper at
  the core's input. Bursts holding only ACKs are never dropped (the paper studies ACK
  loss only in §3, and says "ACK loss … is either ignored or set to zero" in earlier
  work); the sensitivity runs include one where they are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from burstlab.reproduce.paper import PaperData
from burstlab.units import parse_time

#: The paper's printed numbers (``paper.toml``): the set-up below is read from them.
DATA = PaperData(Path(__file__).with_name("paper.toml"))

#: zhou §2.1: 8 channels per fibre, one of them the control channel.
DATA_WAVELENGTHS = int(DATA["setup.channels"].value) - 1
CHANNEL_RATE = "1.25Gb/s"
#: zhou §2.1: maximum processing delay at an edge / at the core (µs).
EDGE_PROCESSING_US, CORE_PROCESSING_US = (float(v) for v in DATA["setup.processing_delay"].value)
#: zhou §2.1: switching time "less than 100 ns".
SWITCH_SETUP = f"{DATA['setup.switching_time'].value:g}ns"
#: zhou §2.1: maximum window 64 KB, MSS 512 B.
MAX_WINDOW_BYTES, MSS_BYTES = (int(v) for v in DATA["setup.window_mss"].value)
WM_SEGMENTS = MAX_WINDOW_BYTES // MSS_BYTES
HEADER_BYTES = 40


@dataclass(frozen=True)
class Setup:
    """The unknowns of zhou §2.1 (access network, fibre, TCP host), one choice each.

    Attributes:
        name: short label used in tables and claim ids.
        access: access link rate (server–E1 and E2–client).
        access_delay: one-way delay of each access link (cabling, NIC and host stack).
        fibre_km: length of each fibre (E1–C1 and C1–E2), 5 µs per km.
        variant: TCP loss recovery of the server.
        b: segments acknowledged per ACK (2 = delayed ACKs).
        delack_timeout: the receiver's delayed-ACK timer.
        min_rto: lower bound of the retransmission timeout.
        ack_loss: whether bursts holding only ACKs may be dropped too.
        why: the reason for this choice, one sentence.
    """

    name: str
    access: str = "1Gb/s"
    access_delay: str = "10us"
    fibre_km: float = 2.0
    variant: str = "sack"
    b: int = 2
    delack_timeout: str = "40ms"
    min_rto: str = "200ms"
    ack_loss: bool = False
    why: str = ""


#: One-way access delays of the base-RTT sensitivity (the base set-up has 10 µs).
ACCESS_DELAYS = ("100us", "1ms", "4ms")

#: Our choice for the testbed of 2005–2007 (reasons in the report and docs/reproductions/zhou.md).
BASE = Setup(
    name="base",
    why="Gigabit Ethernet hosts (the 1.25 Gb/s channels are GbE line rate), lab fibre "
        "spools of 2 km, a Linux 2.6 sender: SACK (on by default since Linux 2.4, "
        "net.ipv4.tcp_sack = 1), delayed ACKs (40 ms timer), "
        "200 ms minimum RTO")

#: The alternatives of the sensitivity experiment: one unknown changed at a time.
SENSITIVITY = (
    replace(BASE, name="fast_ethernet", access="100Mb/s",
            why="Fast Ethernet access instead of Gigabit Ethernet"),
    replace(BASE, name="newreno", variant="newreno",
            why="NewReno instead of SACK (a host with SACK switched off)"),
    replace(BASE, name="reno", variant="reno", why="Reno instead of SACK"),
    replace(BASE, name="fibre_50km", fibre_km=50.0,
            why="50 km fibres instead of 2 km (0.5 ms more round-trip time)"),
    replace(BASE, name="ack_loss", ack_loss=True,
            why="ACK-only bursts dropped with Pb too"),
    # The base round trip (§2.1 gives no host, cabling or stack delays): one-way access
    # delays from a lab patch cable to a campus path, each adding 4 × the delay to RTT0.
    *(replace(BASE, name=f"access_delay_{d}", access_delay=d,
              why=f"{d} one-way access delay instead of 10 µs (base RTT "
                  f"+{4 * float(parse_time(d)) * 1e3 - 0.04:.2f} ms)")
      for d in ACCESS_DELAYS),
)


def setups() -> dict[str, Setup]:
    """Every setup by name, the base first."""
    return {s.name: s for s in (BASE, *SENSITIVITY)}


def testbed(tb: float, pb: float, setup: Setup = BASE, *, duration: float = 10.0,
            warmup: float = 0.0, seed: int = 1) -> dict[str, Any]:
    """zhou §2.1's testbed with assembly period ``tb`` (s) and burst loss ``pb``.

    ``server –(access)– E1 ═ C1 ═ E2 –(access)– client``; each fibre carries 7 data
    wavelengths of 1.25 Gb/s (the eighth channel is the control channel); JET with
    LAUC-VF; BCP processing 10 µs per node; switching 100 ns; per-flow timer assembly
    of data and ACKs; data bursts (and, with ``setup.ack_loss``, ACK bursts) dropped
    independently with probability ``pb`` on E1–C1 only.
    """
    if not 0.0 <= pb <= 1.0:
        raise ValueError(f"pb: a probability must lie in [0, 1], got {pb}")
    if tb <= 0:
        raise ValueError(f"tb: the assembly period must be positive, got {tb}")
    fibre = {"rate": CHANNEL_RATE, "length_km": setup.fibre_km,
             "wavelengths": DATA_WAVELENGTHS}
    sc: dict[str, Any] = {
        "name": f"zhou-testbed-{setup.name}",
        "sim": {"duration": duration, "seed": seed},
        "node": [
            {"name": "server", "kind": "host"},
            {"name": "E1", "kind": "edge"},
            {"name": "C1", "kind": "core"},
            {"name": "E2", "kind": "edge"},
            {"name": "client", "kind": "host"},
        ],
        "link": [
            {"a": "server", "b": "E1", "rate": setup.access, "delay": setup.access_delay},
            {"a": "E2", "b": "client", "rate": setup.access, "delay": setup.access_delay},
        ],
        "fibre": [
            # Deliberate dropping at one node: the only lossy fibre (zhou §2.1).
            {"a": "E1", "b": "C1", **fibre, "loss": pb},
            {"a": "C1", "b": "E2", **fibre, "loss": 0.0},
        ],
        "obs": {
            "assembly": {"type": "timer", "tb": tb},
            "classifier": "per_flow",
            "ack_mode": "assemble",
            "scheduler": "laucvf",
            "signalling": "jet",
            "bcp_processing": f"{CORE_PROCESSING_US:g}us",
            "switch_setup": SWITCH_SETUP,
            "loss": {"p": 0.0, "scope": "per_link",
                     "applies_to": "all" if setup.ack_loss else "data"},
        },
        "flow": [{
            "type": "tcp", "name": "tcp", "src": "server", "dst": "client",
            "variant": setup.variant, "profile": "rfc", "mss": MSS_BYTES,
            "header_bytes": HEADER_BYTES, "wm": WM_SEGMENTS, "b": setup.b,
            "delack_timeout": setup.delack_timeout, "min_rto": setup.min_rto,
        }],
    }
    if warmup > 0:
        sc["sim"]["warmup"] = warmup
    return sc
