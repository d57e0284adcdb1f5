"""A scenario must never run a command through the exporters.

The ns-2 and nOBS exports write a Tcl program that `burstlab export … --compare` runs.
Names built to break out of the script (a newline and a command, a `[exec …]` word, a
`;`, a `$variable`, a brace, a backslash) are refused with an error naming the field,
before any line is written, and never reach the interpreter: the marker file a payload
would create stays absent. Hypothesis tries names from a hostile alphabet in every place
a name is written (burstlab.export.tcl documents the rules)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _nobs_scenarios import EDGE_CORE_EDGE
from hypothesis import given, settings
from hypothesis import strategies as st

import burstlab
from burstlab.export import export_nobs, export_ns2, tcl


def packet_path() -> dict[str, Any]:
    return {
        "name": "sec", "sim": {"duration": "1s", "seed": 1},
        "node": [{"name": "s", "kind": "host"}, {"name": "r"}, {"name": "d", "kind": "host"}],
        "link": [{"a": "s", "b": "r", "rate": "10Mb/s", "delay": "1ms"},
                 {"a": "r", "b": "d", "rate": "10Mb/s", "delay": "1ms"}],
        "flow": [{"name": "f0", "type": "tcp", "src": "s", "dst": "d", "wm": 20}],
    }


def rename_node(spec: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """``spec`` with node ``old`` called ``new`` everywhere it is referred to."""
    s = copy.deepcopy(spec)
    for n in s["node"]:
        if n["name"] == old:
            n["name"] = new
    for table in ("link", "fibre", "flow"):
        for row in s.get(table, []):
            for key in ("a", "b", "src", "dst"):
                if row.get(key) == old:
                    row[key] = new
    return s


def payloads(marker: Path) -> list[str]:
    m = str(marker)
    return [
        f"x\nexec touch {m}",
        f"x\r\nexec touch {m}",
        f"a[exec touch {m}]",
        f"a;exec touch {m}",
        "a$env(HOME)",
        "a{b",
        "a}b",
        "a\\",
        f"a\\\nexec touch {m}",
        "a b",
        "é",
        "x" * 65,
    ]


EXPORTS = [(export_ns2, packet_path, "r"), (export_nobs, lambda: copy.deepcopy(EDGE_CORE_EDGE), "C1")]


@pytest.mark.parametrize("export, base, node", EXPORTS, ids=["ns2", "nobs"])
def test_hostile_names_are_refused_naming_the_field(export: Any, base: Any, node: str,
                                                    tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for bad in payloads(marker):
        cases = {
            "name": {**base(), "name": bad},
            "flow[0].name": {**base(), "flow": [{**base()["flow"][0], "name": bad}]},
            "node[": rename_node(base(), node, bad),
        }
        for field, spec in cases.items():
            with pytest.raises(burstlab.ScenarioError) as err:
                export(spec)
            # The core may refuse the name itself; otherwise the export names the field.
            assert field in str(err.value) or "name" in str(err.value), (bad, str(err.value))
    assert not marker.exists()


@pytest.mark.parametrize("export, base, node", EXPORTS, ids=["ns2", "nobs"])
def test_safe_names_still_export(export: Any, base: Any, node: str) -> None:
    spec = rename_node(base(), node, "core-1.a_B")
    spec["flow"][0]["name"] = "flow_0.x-y"
    script = export(spec).tcl
    assert "core-1.a_B" in script or "flow_0.x-y" in script


@pytest.mark.parametrize("export, base", [(export_ns2, packet_path),
                                          (export_nobs, lambda: copy.deepcopy(EDGE_CORE_EDGE))],
                         ids=["ns2", "nobs"])
def test_trace_path_is_braced_or_refused(export: Any, base: Any, tmp_path: Path) -> None:
    ok = export(base(), trace=str(tmp_path / "a [x] $y.tr")).tcl
    assert f"[open {{{tmp_path}/a [x] $y.tr}} w]" in ok
    for bad in ("t{.tr", "t}.tr", "t\\.tr", "t\n.tr"):
        with pytest.raises(burstlab.ScenarioError, match="trace"):
            export(base(), trace=bad)


HOSTILE = st.text(alphabet=st.sampled_from(list("ab0_.-[]{}$;\\\"\n\r\t #é\x00")), min_size=1,
                  max_size=12)


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_exported_names_are_plain_words(name: str) -> None:
    """Whatever the name, the export either refuses it or writes a word of the safe
    alphabet; a refusal is a ScenarioError, never another exception."""
    spec = packet_path()
    spec["flow"][0]["name"] = name
    spec = rename_node(spec, "r", name) if name not in ("s", "d") else spec
    script = _refused_or_plain(export_ns2, spec, name)
    assert script is None or f"set n({name}) [$ns node]" in script


def _refused_or_plain(export: Any, spec: dict[str, Any], name: str) -> str | None:
    """The script ``export`` writes for ``spec``, whose name ``name`` must then be a
    plain word; None when the export refused it, as it must every other name."""
    try:
        script = export(spec).tcl
    except burstlab.ScenarioError:
        assert not tcl.NAME_PATTERN.fullmatch(name) or len(name) > tcl.MAX_NAME
        return None
    assert tcl.NAME_PATTERN.fullmatch(name)
    return str(script)


@settings(max_examples=150, deadline=None)
@given(HOSTILE, st.sampled_from(["scenario", "flow", "core", "edge", "host"]))
def test_nobs_exported_names_are_plain_words(name: str, where: str) -> None:
    """The same for the nOBS export, the name put in each place a name can be: the
    scenario's, a flow's, and a core, edge or host node's."""
    spec = copy.deepcopy(EDGE_CORE_EDGE)
    if where == "scenario":
        spec["name"] = name
    elif where == "flow":
        spec["flow"][0]["name"] = name
    else:
        old = {"core": "C1", "edge": "E0", "host": "src"}[where]
        if name in {n["name"] for n in spec["node"]}:
            return
        spec = rename_node(spec, old, name)
    script = _refused_or_plain(export_nobs, spec, name)
    # No name split a line of the script or put a NUL in it.
    assert script is None or ("\r" not in script and "\x00" not in script)


@given(st.text(max_size=40))
def test_comments_cannot_end_their_line(text: str) -> None:
    out = tcl.comment(text)
    assert len(out) == len(text)
    assert not any(c in out for c in "\n\r\\{}") and all(" " <= c <= "~" for c in out)


def test_every_scenario_string_is_checked() -> None:
    spec = packet_path()
    spec["link"][0]["note"] = "x[exec ls]"  # not a key the core knows: checked all the same
    with pytest.raises(burstlab.ScenarioError, match=r"link\[0\]\.note"):
        tcl.check_scenario(spec)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "burstlab.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", ["ns2", "nobs"])
def test_cli_compare_refuses_a_breakout_name(kind: str, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    if kind == "ns2":
        toml = f'''name = "sec"
[sim]
duration = "1s"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s"
b = "d"
rate = "10Mb/s"
delay = "1ms"
[[flow]]
name = "x\\nexec touch {marker}"
src = "s"
dst = "d"
'''
    else:
        toml = f'''name = "sec"
[sim]
duration = "1s"
[[node]]
name = "E0"
kind = "edge"
[[node]]
name = "C1[exec touch {marker}]"
kind = "core"
[[node]]
name = "E2"
kind = "edge"
[[node]]
name = "h0"
kind = "host"
[[node]]
name = "h1"
kind = "host"
[[link]]
a = "h0"
b = "E0"
rate = "100Mb/s"
delay = "1ms"
[[link]]
a = "E2"
b = "h1"
rate = "100Mb/s"
delay = "1ms"
[[fibre]]
a = "E0"
b = "C1[exec touch {marker}]"
rate = "1Gb/s"
delay = "1ms"
[[fibre]]
a = "C1[exec touch {marker}]"
b = "E2"
rate = "1Gb/s"
delay = "1ms"
[[flow]]
src = "h0"
dst = "h1"
'''
    f = tmp_path / "s.toml"
    f.write_text(toml)
    for extra in ([], ["--compare"]):
        proc = _cli("export", kind, str(f), *extra, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        if "--compare needs" in proc.stderr:
            continue  # no simulator to run the script here; CI installs both
        assert "name" in proc.stderr and "Tcl script" in proc.stderr, proc.stderr
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["ns2", "nobs"])
@pytest.mark.parametrize("opt", ["--seed", "--replication"])
def test_cli_export_refuses_negative_seed_and_replication(kind: str, opt: str,
                                                          tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    spec = packet_path() if kind == "ns2" else copy.deepcopy(EDGE_CORE_EDGE)
    f.write_text(json.dumps(spec))
    proc = _cli("export", kind, str(f), f"{opt}=-1", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert opt.lstrip("-") in proc.stderr


def test_api_export_refuses_negative_seed() -> None:
    with pytest.raises(burstlab.ScenarioError, match="seed"):
        export_ns2(packet_path(), seed=-1)
    with pytest.raises(burstlab.ScenarioError, match="replication"):
        export_nobs(copy.deepcopy(EDGE_CORE_EDGE), replication=-1)


def test_nobs_refuses_burst_retransmission() -> None:
    spec = copy.deepcopy(EDGE_CORE_EDGE)
    spec["obs"]["retransmit"] = {"max": 1, "hold": "1ms"}
    with pytest.raises(burstlab.ScenarioError, match=r"obs\.retransmit"):
        export_nobs(spec)


def test_prr_is_named_in_a_warning() -> None:
    spec = packet_path()
    spec["flow"][0].update(variant="sack", profile="rfc", recovery="prr")
    warnings = export_ns2(spec).warnings
    assert any(w.startswith("flow[0].recovery:") and "prr" in w for w in warnings), warnings
    spec = copy.deepcopy(EDGE_CORE_EDGE)
    spec["flow"][0].update(variant="sack", profile="rfc", recovery="prr")
    assert any(w.startswith("flow[0].recovery:") for w in export_nobs(spec).warnings)

