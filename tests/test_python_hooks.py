"""Python assemblers (burstlab/hooks.py, crates/burstlab-core/src/obs/external.rs):
bit-identical to the built-ins they re-implement (examples/python_*.py), deterministic,
and every bad object or answer an error naming the hook."""

from __future__ import annotations

import copy
import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import burstlab
from burstlab import _core
from burstlab.cli import main
from burstlab.hooks import Assembler

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "crates" / "burstlab-core" / "tests" / "golden" / "scenarios"
EXAMPLES = ROOT / "examples"


def load(p: Path) -> dict[str, Any]:
    return tomllib.loads(p.read_text(encoding="utf-8"))


def with_assembly(spec: dict[str, Any], asm: dict[str, Any], **obs: Any) -> dict[str, Any]:
    s = copy.deepcopy(spec)
    s["obs"].update(obs)
    s["obs"]["assembly"] = asm
    return s


def py_asm(module: str, **params: Any) -> dict[str, Any]:
    return {"type": "python", "object": f"{module}:Assembler", "params": params}


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # A scenario given as a dict looks in the working directory, then sys.path.
    monkeypatch.syspath_prepend(str(EXAMPLES))


def same(a: burstlab.Result, b: burstlab.Result) -> None:
    """Every result table equal, value for value (traces included), and the same
    number of events."""
    assert a.tables == b.tables

    def raw(r: burstlab.Result, t: str) -> Any:
        x = r._raw.get(t)
        return json.loads(x) if isinstance(x, str) else x  # JSON rows, or columns

    for t in a.tables:
        assert raw(a, t) == raw(b, t), t
    assert a.meta["events"] == b.meta["events"]


# The golden scenarios that use timer or hybrid assembly, and window-based variants of
# the one-flow golden scenario (no golden scenario uses CWBA).
CASES = [
    ("mesh_contention", {"type": "timer", "tb": "1ms"}, py_asm("python_timer", tb="1ms"), {}),
    ("yu_obs_warmup", {"type": "timer", "tb": "4ms"}, py_asm("python_timer", tb="4ms"), {}),
    ("obs_linear_jit_udp",
     {"type": "hybrid", "tmax": "2ms", "lmax": "60KB", "lmin": "5KB"},
     py_asm("python_hybrid", tmax="2ms", lmax="60KB", lmin="5KB"), {}),
    ("yu_obs_warmup", {"type": "hybrid", "tmax": "4ms", "lmax": "3KB", "lmin": "2KB"},
     py_asm("python_hybrid", tmax="4ms", lmax="3KB", lmin="2KB"), {}),
    ("yu_obs_warmup", {"type": "mcwba", "tmax": "4ms"}, py_asm("python_cwba", tmax="4ms"), {}),
    ("yu_obs_warmup", {"type": "cwba", "window": "mark"}, py_asm("python_cwba"),
     {"ack_mode": "bypass"}),
    ("yu_obs_warmup", {"type": "cwba", "window": "mark", "tmax": "30ms"},
     py_asm("python_cwba", tmax="30ms"), {"ack_mode": "bypass"}),
]


@pytest.mark.parametrize(("golden", "builtin", "python", "obs"), CASES)
def test_python_assemblers_match_the_builtins_bit_for_bit(
        golden: str, builtin: dict[str, Any], python: dict[str, Any],
        obs: dict[str, Any]) -> None:
    spec = load(GOLDEN / f"{golden}.toml")
    a = burstlab.run(with_assembly(spec, builtin, **obs))
    b = burstlab.run(with_assembly(spec, python, **obs))
    assert a.obs_flows["data_bursts"].sum() > 10  # bursts were formed
    same(a, b)


@pytest.mark.parametrize(("example", "builtin", "obs"), [
    ("python_timer", {"type": "timer", "tb": "4ms"}, {}),
    ("python_hybrid", {"type": "hybrid", "tmax": "4ms", "lmax": "3KB", "lmin": "2KB"}, {}),
    ("python_cwba", {"type": "mcwba", "tmax": "30ms"}, {}),
])
def test_example_scenarios_match_their_builtin(
        example: str, builtin: dict[str, Any], obs: dict[str, Any]) -> None:
    path = EXAMPLES / f"{example}.toml"
    b = burstlab.run(path)  # the module is found beside the file
    a = burstlab.run(with_assembly(load(path), builtin, **obs))
    same(a, b)


def test_a_class_given_directly_and_twice_the_same_seed_are_bit_identical() -> None:
    import python_timer  # examples/, on sys.path by the fixture

    spec = load(GOLDEN / "yu_obs_warmup.toml")
    direct = with_assembly(spec, {"type": "python", "object": python_timer.Assembler,
                                  "params": {"tb": "4ms"}})
    a = burstlab.run(direct)
    same(a, burstlab.run(direct))
    same(a, burstlab.run(with_assembly(spec, {"type": "timer", "tb": "4ms"})))


class SeedRecorder:
    """Records each queue's seed (a length-1 assembler otherwise)."""

    seen: list[tuple[int, int]] = []

    def __init__(self, ctx: burstlab.hooks.QueueContext) -> None:
        self.ctx = ctx
        SeedRecorder.seen.append((ctx.queue, ctx.seed))

    def on_packet(self, v: Any) -> Any:
        return 1, None

    def on_timer(self, v: Any) -> Any:
        return None


def test_each_queue_gets_its_own_substream_of_the_master_seed() -> None:
    spec = load(GOLDEN / "mesh_contention.toml")
    spec["sim"]["duration"] = 0.01
    s = with_assembly(spec, {"type": "python", "object": SeedRecorder})

    def seeds(seed: int) -> list[tuple[int, int]]:
        SeedRecorder.seen = []
        burstlab.run(s, seed=seed)
        return SeedRecorder.seen

    a = seeds(1)
    assert len(a) > 1 and len({x for _, x in a}) == len(a)  # one stream per queue
    assert seeds(1) == a
    assert [x for _, x in seeds(2)] != [x for _, x in a]


# ---------------------------------------------------------------------------------------
# Errors: each names the hook (or the object) and the table.

class Raises:
    def __init__(self, ctx: Any) -> None:
        self.n = 0

    def on_packet(self, v: Any) -> Any:
        self.n += 1
        if self.n == 3:
            raise ZeroDivisionError("my own bug")
        return None

    def on_timer(self, v: Any) -> Any:
        return None


def answers(packet_answer: Any) -> type:
    class Answers:
        def __init__(self, ctx: Any) -> None:
            pass

        def on_packet(self, v: Any) -> Any:
            a = packet_answer
            return a(v) if callable(a) else a

        def on_timer(self, v: Any) -> Any:
            return None

    return Answers


class NoTimer:
    def __init__(self, ctx: Any) -> None:
        pass

    def on_packet(self, v: Any) -> Any:
        return None


def run_with(obj: Any, **params: Any) -> burstlab.Result:
    spec = load(GOLDEN / "yu_obs_warmup.toml")
    asm: dict[str, Any] = {"type": "python", "object": obj}
    if params:
        asm["params"] = params
    return burstlab.run(with_assembly(spec, asm))


@pytest.mark.parametrize(("obj", "params", "words"), [
    ("no_such_module_xyz:Assembler", {}, ["obs.assembly.object",
                                          "cannot import module 'no_such_module_xyz'"]),
    ("python_timer:Nope", {}, ["obs.assembly.object", "has no 'Nope'"]),
    (NoTimer, {}, ["obs.assembly.object", "NoTimer has no method on_timer(view)"]),
    ("python_timer:Assembler", {"tb": "1ms", "bogus": 1},
     ["obs.assembly.object", "bogus"]),
    ("python_timer:Assembler", {}, ["obs.assembly.object", "tb"]),
    ("not-a-path", {}, ["obs.assembly.object", "module:Class"]),
])
def test_bad_objects_are_scenario_errors_naming_the_field(
        obj: Any, params: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(burstlab.ScenarioError) as e:
        run_with(obj, **params)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_a_hook_that_raises_stops_the_run_with_its_name_queue_time_and_traceback() -> None:
    with pytest.raises(burstlab.ScenarioError) as e:
        run_with(Raises)
    msg = str(e.value)
    assert msg.startswith("obs.assembly ("), msg
    assert "Raises" in msg and "queue 'flow0' at edge 'E1'" in msg
    assert "on_packet at t = " in msg
    assert "Traceback" in msg and "ZeroDivisionError: my own bug" in msg
    assert "self.n == 3" in msg or "raise ZeroDivisionError" in msg  # the user's line


@pytest.mark.parametrize(("answer", "words"), [
    (lambda v: (0, v.now - 1), ["on_packet", "in the past"]),
    (lambda v: (0, float("nan")), ["on_packet", "wake (ps) must be an integer", "nan"]),
    (lambda v: (0, 1.5e12), ["on_packet", "must be an integer, got float"]),
    ("release", ["on_packet", "returned str 'release'"]),
    (lambda v: (v.queue_pkts + 1, None), ["on_packet", "released", "the queue holds"]),
    (lambda v: ([1, 1, 1], None), ["on_packet", "at most 2 per call"]),
    (lambda v: (True, None), ["on_packet", "must be an integer, got bool"]),
    (lambda v: (1, None, 3), ["on_packet", "tuple of 3 items"]),
])
def test_invalid_decisions_are_errors_naming_the_hook(answer: Any, words: list[str]) -> None:
    with pytest.raises(burstlab.ScenarioError) as e:
        run_with(answers(answer))
    for w in words:
        assert w in str(e.value), str(e.value)


def test_the_cli_exits_2_without_a_traceback(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "bad_hook.py").write_text(
        "class Assembler:\n"
        "    def __init__(self, ctx):\n        pass\n"
        "    def on_packet(self, v):\n        return {'release': 1}\n"
        "    def on_timer(self, v):\n        return None\n", encoding="utf-8")
    text = (EXAMPLES / "python_timer.toml").read_text(encoding="utf-8")
    sc = tmp_path / "s.toml"
    sc.write_text(text.replace('object = "python_timer:Assembler", params = { tb = "4ms" }',
                               'object = "bad_hook:Assembler"'), encoding="utf-8")
    assert main(["run", str(sc)]) == 2  # its module is found beside the scenario
    err = capsys.readouterr().err
    assert "on_packet" in err and "returned dict" in err
    assert main(["validate", str(sc)]) == 0  # the objects build; the hook is not called
    missing = tmp_path / "m.toml"
    missing.write_text(text.replace("python_timer:", "missing_mod:"), encoding="utf-8")
    assert main(["validate", str(missing)]) == 2
    assert "cannot import module 'missing_mod'" in capsys.readouterr().err


def test_the_core_alone_and_the_exporters_refuse_python_assemblies() -> None:
    text = (EXAMPLES / "python_timer.toml").read_text(encoding="utf-8")
    with pytest.raises(burstlab.ScenarioError, match=r"^obs\.assembly\.type: .*Python"):
        _core.run(text)  # no factory: what the core alone does
    from burstlab.export import export_nobs, export_ns2

    for export, name in ((export_nobs, "nOBS"), (export_ns2, "ns-2")):
        with pytest.raises(burstlab.ScenarioError,
                           match=rf"^obs\.assembly\.type: {name} cannot run a Python"):
            export(EXAMPLES / "python_timer.toml")


def test_assembly_keys_of_other_types_are_refused() -> None:
    spec = load(GOLDEN / "yu_obs_warmup.toml")
    with pytest.raises(burstlab.ScenarioError, match=r"obs\.assembly\.tb: does not apply"):
        burstlab.run(with_assembly(spec, {**py_asm("python_timer"), "tb": "1ms"}))
    with pytest.raises(burstlab.ScenarioError, match=r"obs\.assembly\.object: does not apply"):
        burstlab.run(with_assembly(spec, {"type": "timer", "tb": "1ms", "object": "a:b"}))
    with pytest.raises(burstlab.ScenarioError, match=r"obs\.assembly\.object: required"):
        burstlab.run(with_assembly(spec, {"type": "python"}))
    assert sys.modules.get("python_timer") is not None


def test_deeply_nested_input_is_still_refused_by_name() -> None:
    d: dict[str, Any] = {}
    x = d
    for _ in range(5000):  # far past Python's recursion limit
        x["a"] = {}
        x = x["a"]
    with pytest.raises(burstlab.ScenarioError, match="nested more than"):
        burstlab.run(d)


def counting(base: Any, calls: str) -> Any:
    """``base`` with its declaration set to ``calls`` and its on_packet calls counted."""

    class Counted(base):  # type: ignore[misc, valid-type]
        n = 0

        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            self.calls = calls
            if calls == "packet":  # python_hybrid's thresholds go with first_packet
                self.max_bytes = self.max_pkts = None

        def on_packet(self, v: Any) -> Any:
            Counted.n += 1
            return super().on_packet(v)

    return Counted


@pytest.mark.parametrize(("module", "params"), [
    ("python_timer", {"tb": "1ms"}),
    ("python_hybrid", {"tmax": "2ms", "lmax": "6KB", "lmin": "2KB"}),
])
def test_a_first_packet_declaration_skips_calls_and_changes_nothing(
        module: str, params: dict[str, Any]) -> None:
    base = __import__(module).Assembler
    spec = load(GOLDEN / "mesh_contention.toml")
    every, first = counting(base, "packet"), counting(base, "first_packet")
    a = burstlab.run(with_assembly(spec, {"type": "python", "object": every,
                                          "params": params}))
    b = burstlab.run(with_assembly(spec, {"type": "python", "object": first,
                                          "params": params}))
    same(a, b)
    assert a.obs_flows["data_bursts"].sum() > 10
    # Per packet: one call per queued packet; declared: far fewer, never none.
    assert 0 < first.n < every.n / 2, (first.n, every.n)


class Declares(Assembler):
    def __init__(self, ctx: Any, calls: Any = "first_packet", max_bytes: Any = None,
                 max_pkts: Any = None) -> None:
        super().__init__(ctx)
        self.calls, self.max_bytes, self.max_pkts = calls, max_bytes, max_pkts


@pytest.mark.parametrize(("params", "words"), [
    ({"calls": "burst"}, ["Declares.calls must be 'packet' or 'first_packet'", "'burst'"]),
    ({"max_bytes": 0}, ["Declares.max_bytes must be None or an integer from 1"]),
    ({"max_pkts": 1.5}, ["Declares.max_pkts must be None or an integer", "1.5"]),
    ({"max_pkts": 2**32}, ["Declares.max_pkts must be None or an integer from 1 to"]),
    ({"calls": "packet", "max_pkts": 3}, ["Declares.max_pkts is a trigger of calls"]),
])
def test_bad_call_declarations_are_scenario_errors(
        params: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(burstlab.ScenarioError) as e:
        run_with(Declares, **params)
    for w in words:
        assert w in str(e.value), str(e.value)
