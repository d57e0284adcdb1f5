"""Burst assemblers written in Python (``assembly = { type = "python", … }``).

A scenario selects one per assembly queue like a built-in policy::

    [obs]
    assembly = { type = "python", object = "python_timer:Assembler", params = { tb = "1ms" } }

The module is imported from the scenario file's folder, then from ``sys.path``; a class
may also be given directly in a scenario dict (``"object": MyAssembler``). The class is
instantiated once per queue as ``cls(ctx, **params)`` (``ctx``: :class:`QueueContext`)
and called only at the queue's decision points (see docs/topics/python-hooks.md):

- ``on_packet(view)`` when a packet joins the queue (the view counts it);
- ``on_timer(view)`` when the wake-up it asked for is due.

An assembler that needs only a burst's first packet may say so with ``calls =
"first_packet"`` (and ``max_bytes``/``max_pkts`` thresholds): the core then skips the
other packets without calling (:func:`calls_of`).

Each returns ``None`` (no burst; a pending wake-up stays) or ``(release, wake)``:
``release`` is the number of packets to send as one burst from the head of the queue
(0: none), ``(k, pad_bytes)`` for a padded burst, or a list of up to two of those
(formed in order); ``wake`` is the time, integer picoseconds ≥ now, of the next
``on_timer`` call (replacing any pending one), or ``None`` for no wake-up. Anything
else stops the run with an error naming the hook. The view (:class:`HookView`) is the
same object at every call of a queue: read values from it, do not keep it.

The core side is ``crates/burstlab-core/src/obs/external.rs``; the calls are made from
``crates/burstlab-py/src/hooks.rs``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from burstlab import _core

HookView = _core.HookView

#: How deep the scenario walks here go (a scenario needs 5 levels; deeper input is
#: refused by ``burstlab.api.plain`` with an error naming it).
MAX_DEPTH = 40



def ps(value: str | float) -> int:
    """A duration (``"1ms"``, or seconds as a number) in integer picoseconds, parsed
    exactly as a scenario's durations are."""
    return int(_core.parse_duration(value))


def nbytes(value: str | float) -> int:
    """A size (``"25kB"``, or bytes as a number) in integer bytes, as a scenario's."""
    return int(_core.parse_size(value))


@dataclasses.dataclass(frozen=True)
class QueueContext:
    """What an assembler knows of its queue when it is built."""

    #: The queue's index among all assembly queues of the run.
    queue: int
    #: The ingress edge node (index, name) and the egress's name.
    edge: int
    edge_name: str
    egress_name: str
    #: The queue's key (egress, class or flow name, by the classifier).
    key: str
    #: ``obs.max_pkts_per_burst``: the largest burst the node forms (packets).
    max_pkts_per_burst: int
    #: The queue's own seed: the first draw of its substream of the master seed
    #: (``edge/<ingress>/asm/<queue>``, as rng.rs derives every component's stream).
    seed: int
    #: Where the assembly table is in the scenario (``obs.assembly``, …).
    path: str

    @property
    def rng(self) -> Any:
        """A ``numpy.random.Generator`` seeded with :attr:`seed` (a new one per call:
        keep it)."""
        import numpy as np

        return np.random.default_rng(self.seed)


class AssemblerProtocol(Protocol):
    """What the core calls (see the module docs)."""

    def on_packet(self, view: HookView) -> tuple[Any, int | None] | None: ...

    def on_timer(self, view: HookView) -> tuple[Any, int | None] | None: ...


class Assembler:
    """A convenient base: keeps ``ctx``; by default does nothing on either call."""

    def __init__(self, ctx: QueueContext, **params: Any) -> None:
        if params:
            raise TypeError(f"unexpected parameters {sorted(params)}")
        self.ctx = ctx

    def on_packet(self, view: HookView) -> tuple[Any, int | None] | None:
        return None

    def on_timer(self, view: HookView) -> tuple[Any, int | None] | None:
        return None


class Factory:
    """Builds each queue's assembler for the core (``_core.run(…, hooks=factory)``).

    ``base``: the scenario file's folder, searched before ``sys.path``; ``direct``:
    classes given directly in a scenario dict, by the name that stands for them
    (:func:`extract_direct`).
    """

    def __init__(self, base: Path | None, direct: Mapping[str, Any] | None = None) -> None:
        self.base = base
        self.direct = dict(direct or {})

    def resolve(self, object_path: str) -> Any:
        if object_path in self.direct:
            return self.direct[object_path]
        module_name, _, attr = object_path.partition(":")
        module = self._import(module_name.strip())
        obj = module
        for part in attr.strip().split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise _core.ScenarioError(
                    f"module '{module_name}' ({getattr(module, '__file__', '?')}) has no "
                    f"'{attr}'") from None
        return obj

    def _import(self, name: str) -> Any:
        added = False
        if self.base is not None and str(self.base) not in sys.path:
            sys.path.insert(0, str(self.base))
            added = True
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise  # the module itself imports something missing: show its traceback
            where = f"{self.base} or sys.path" if self.base is not None else "sys.path"
            raise _core.ScenarioError(
                f"cannot import module '{name}' (looked in {where})") from None
        finally:
            if added:
                sys.path.remove(str(self.base))

    def make(self, object_path: str, params_json: str,
             info: Mapping[str, Any]) -> tuple[Any, tuple[bool, int | None, int | None]]:
        """The assembler of one queue and its call declaration (:func:`calls_of`),
        called by the core."""
        cls = self.resolve(object_path)
        if not callable(cls):
            raise _core.ScenarioError(f"'{object_path}' is not a class")
        name = getattr(cls, "__qualname__", object_path)
        for hook in ("on_packet", "on_timer"):
            if not callable(getattr(cls, hook, None)):
                raise _core.ScenarioError(f"{name} has no method {hook}(view)")
        params = json.loads(params_json)
        ctx = QueueContext(**info)
        try:
            obj = cls(ctx, **params)
        except TypeError as e:
            raise _core.ScenarioError(
                f"{name}(ctx, **params) with params {params!r}: {e}") from None
        return obj, calls_of(obj, name)


def calls_of(obj: Any, name: str) -> tuple[bool, int | None, int | None]:
    """An assembler's declaration of which packets its ``on_packet`` needs, as
    ``(first_packet, max_bytes, max_pkts)``; read once per queue (class or instance
    attributes, see docs/topics/python-hooks.md):

    - ``calls = "packet"`` (the default): every packet;
    - ``calls = "first_packet"``: only a packet joining an empty queue, one arriving
      when the pending wake-up is due, and (if set) one that brings the queue to
      ``max_bytes`` bytes or ``max_pkts`` packets or more.
    """
    calls = getattr(obj, "calls", "packet")
    if calls not in ("packet", "first_packet"):
        raise _core.ScenarioError(
            f"{name}.calls must be 'packet' or 'first_packet', got {calls!r}")
    limits: list[int | None] = []
    for attr, top in (("max_bytes", 2**64 - 1), ("max_pkts", 2**32 - 1)):
        v = getattr(obj, attr, None)
        if v is not None:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= top:
                raise _core.ScenarioError(
                    f"{name}.{attr} must be None or an integer from 1 to {top}, got {v!r}")
            if calls != "first_packet":
                raise _core.ScenarioError(
                    f"{name}.{attr} is a trigger of calls = 'first_packet' (calls is "
                    f"{calls!r})")
        limits.append(v)
    return calls == "first_packet", limits[0], limits[1]


def extract_direct(spec: Any) -> tuple[Any, dict[str, Any]]:
    """``spec`` with every assembly table's non-string ``object`` (a class given
    directly) replaced by its name (``module:QualName``, ``#n`` added if two differ),
    and those objects by name, for the :class:`Factory`."""
    found: dict[str, Any] = {}

    def name_of(obj: Any) -> str:
        base = (f"{getattr(obj, '__module__', None) or 'object'}:"
                f"{getattr(obj, '__qualname__', None) or type(obj).__qualname__}")
        name, n = base, 1
        while name in found and found[name] is not obj:
            n += 1
            name = f"{base}#{n}"
        found[name] = obj
        return name

    def walk(x: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            return x  # too deep for a scenario: the API's own check names it
        if isinstance(x, Mapping):
            out = {k: walk(v, depth + 1) for k, v in x.items()}
            obj = out.get("object")
            if out.get("type") == "python" and obj is not None and not isinstance(obj, str):
                out["object"] = name_of(obj)
            return out
        if isinstance(x, list):
            return [walk(v, depth + 1) for v in x]
        return x

    return walk(spec), found


def has_python_assembly(text: str) -> bool:
    """Whether a scenario's text may name a Python assembly (a cheap look first)."""
    return "python" in text


def python_assemblies(spec: Any, path: str = "", depth: int = 0) -> list[str]:
    """The scenario paths (``obs.assembly``, ``flow[2].assembly``…) of every
    ``type = "python"`` assembly table in ``spec`` (a scenario dict)."""
    out: list[str] = []
    if depth > MAX_DEPTH:
        return out
    if isinstance(spec, Mapping):
        if path.endswith("assembly") and spec.get("type") == "python":
            out.append(path)
        for k, v in spec.items():
            out += python_assemblies(v, f"{path}.{k}" if path else str(k), depth + 1)
    elif isinstance(spec, list):
        for i, v in enumerate(spec):
            out += python_assemblies(v, f"{path}[{i}]", depth + 1)
    return out


def refuse_in_export(spec: Any, simulator: str) -> None:
    """Raises ScenarioError naming the first Python assembly of ``spec``: another
    simulator cannot run it."""
    found = python_assemblies(spec)
    if found:
        raise _core.ScenarioError(
            f"{found[0]}.type: {simulator} cannot run a Python assembler; export the "
            f"scenario with a built-in assembly (timer, length, hybrid)")
