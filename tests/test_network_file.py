"""A scenario file that names a graph (``[network] file = "…"``,
burstlab/topologies/network_table.py): built as from_graph builds it, wherever scenario
files and dicts enter the package, with errors naming ``network.*``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import burstlab
from burstlab import topologies as T
from burstlab.api import load_scenario
from burstlab.topologies.network_table import NETWORK_KEYS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "graph_network.toml"
GRAPH = ROOT / "examples" / "germany5.gml"

FLOW = {"name": "f", "src": "H_Hamburg_1", "dst": "H_Munich_1", "variant": "sack",
        "segments": 300}


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env_path = str(ROOT / "python")
    return subprocess.run([sys.executable, "-m", "burstlab.cli", *args], cwd=cwd,
                          capture_output=True, text=True, check=False,
                          env={**__import__("os").environ, "PYTHONPATH": env_path})


def _toml(tmp: Path, network: str, extra: str = "") -> Path:
    p = tmp / "scenario.toml"
    p.write_text(f'name = "t"\n[network]\n{network}\n[sim]\nduration = "0.5s"\n{extra}'
                 '[[flow]]\nsrc = "H_Hamburg_1"\ndst = "H_Munich_1"\nsegments = 300\n',
                 encoding="utf-8")
    return p


def test_the_example_is_the_scenario_from_graph_builds() -> None:
    """The file's run is bit for bit the run of the scenario built in Python with the
    same keywords and the file's own tables."""
    spec = load_scenario(EXAMPLE)
    assert "network" not in spec
    built = T.from_graph(GRAPH, name="germany5", wavelengths=4, core_rate="10Gb/s",
                         hosts=1, access="1Gb/s", duration="2s", seed=1)
    for key in ("node", "link", "fibre"):
        assert spec[key] == built[key], key
    assert spec["sim"] == {"duration": "2s", "seed": 1}
    assert spec["routing"] == {"metric": "km"}
    a = burstlab.run(EXAMPLE)
    b = burstlab.run({**built, "routing": {"metric": "km"}, "flow": spec["flow"]})
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.fct, b.fct)
    assert bool(a.fct.completed.iloc[0])
    # Routed by km over the graph's great-circle lengths: Hamburg – Berlin – Munich.
    assert a.routes.route.iloc[0].split(">")[2:5] == ["Hamburg", "Berlin", "Munich"]


def test_the_file_is_found_beside_the_scenario_from_any_directory(tmp_path: Path) -> None:
    p = _cli("run", str(EXAMPLE), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "hamburg-munich" in p.stdout
    p = _cli("validate", str(EXAMPLE), cwd=tmp_path)
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr


def test_text_and_dicts_take_the_file_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "g.gml").write_text(GRAPH.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    text = ('[network]\nfile = "g.gml"\n[sim]\nduration = "0.5s"\n'
            '[[flow]]\nsrc = "H_Hamburg_1"\ndst = "H_Munich_1"\nsegments = 300\n')
    a = burstlab.run(text)
    assert a.meta["scenario"] == "g"  # the name defaults to the file's stem
    d = {"network": {"file": "g.gml"}, "sim": {"duration": "0.5s"}, "flow": [FLOW]}
    b = burstlab.run(d)
    assert int(a.flows.segments_delivered.iloc[0]) == int(b.flows.segments_delivered.iloc[0])
    assert int(b.flows.segments_delivered.iloc[0]) == 300
    # An absolute path needs no working directory.
    monkeypatch.chdir(ROOT)
    assert burstlab.run({**d, "network": {"file": str(tmp_path / "g.gml")}}).fct.completed[0]


def test_the_scenarios_own_tables_are_added_and_kept(tmp_path: Path) -> None:
    extra = ('[obs]\nassembly = { type = "timer", tb = "2ms" }\n'
             '[[node]]\nname = "H_extra"\nkind = "host"\n'
             '[[link]]\na = "H_extra"\nb = "E_Berlin"\nrate = "1Gb/s"\ndelay = "1us"\n')
    p = _toml(tmp_path, 'file = "g.gml"\nhosts = 2\nkm = 300\ndelay_per_km = "4us"', extra)
    (tmp_path / "g.gml").write_text(GRAPH.read_text(encoding="utf-8"), encoding="utf-8")
    spec = load_scenario(p)
    names = [n["name"] for n in spec["node"]]
    assert names[:5] == ["Hamburg", "Berlin", "Cologne", "Frankfurt", "Munich"]
    assert names[-1] == "H_extra" and "H_Munich_2" in names
    assert spec["link"][-1]["a"] == "H_extra"
    assert spec["obs"] == {"assembly": {"type": "timer", "tb": "2ms"}}
    assert spec["fibre"][0]["delay"] == "1200000ns"  # 300 km at 4 us/km
    assert spec["sim"] == {"duration": "0.5s", "seed": 1}


@pytest.mark.parametrize(("network", "graph", "message"), [
    ('file = "missing.gml"', None, r"^network\.file: no such graph file: .*missing\.gml"),
    ('file = "g.gml"', "graph [ node [ id 0 ", r"^network\.file: g\.gml: cannot read the graph"),
    ('file = "g.txt"', "not a graph", r"^network\.file: g\.txt: unknown graph format"),
    ('file = "g.gml"\nkm = 100', "graph [ node [ id 0 label \"A\" ] node [ id 1 label \"B\" ] "
     "node [ id 2 label \"C\" ] edge [ source 0 target 1 ] ]",
     r"^network\.file: g\.gml: disconnected — node 'C'"),
    ('file = "g.gml"\nkm = 100', "graph [ node [ id 0 label \"A\" ] node [ id 1 label \"B\" ] "
     "edge [ source 0 target 1 ] edge [ source 1 target 1 ] ]",
     r"^network\.file: g\.gml: self-loop at node 'B'"),
    ('file = "g.gml"', "graph [ node [ id 0 label \"A\" ] node [ id 1 label \"B\" ] "
     "edge [ source 0 target 1 ] ]", r"^network\.file: g\.gml: node 'A' has no Latitude"),
    ('file = "g.gml"\nwavelengths = 0', "GRAPH", r"^network\.wavelengths: must be an integer"),
    ('file = "g.gml"\nhosts = 1000000000', "GRAPH", r"^network\.hosts: at most 10000 hosts"),
    ('file = "g.gml"\nhosts = 1.5', "GRAPH", r"^network\.hosts: must be an integer"),
    ('file = "g.gml"\nedges = 5', "GRAPH", r"^network\.edges: must be a list"),
    ('file = "g.gml"\nkm = true', "GRAPH", r"^network\.km: must be 'haversine'"),
    ('file = "g.gml"\nedges = ["Paris"]', "GRAPH", r"^network\.edges: unknown core node 'Paris'"),
    ('file = "g.gml"\nparallel = "keep"', "GRAPH", r"^network\.parallel: must be"),
    ('file = "g.gml"\ndelay_per_km = "fast"', "GRAPH", r"^network\.delay_per_km: "),
    ('file = "g.gml"\ndelay_per_km = "-1us"', "GRAPH", r"^network\.delay_per_km: .*negative"),
    ('file = "g.gml"\naccess = "x"', "GRAPH", r"^network\.access: rate 'x'"),
    ('file = "g.gml"\ncore_rate = 0', "GRAPH", r"^network\.core_rate: .*positive"),
    ('file = "g.gml"\naccess_delay = "-1s"', "GRAPH", r"^network\.access_delay: .*negative"),
    ('file = "g.gml"\ncolour = "red"', "GRAPH", r"^network\.colour: unknown key"),
    ('file = "g.gml"\nname = "x"', "GRAPH", r"^network\.name: unknown key"),
    ("hosts = 2", "GRAPH", r"^network\.file: missing"),
    ("file = 3", "GRAPH", r"^network\.file: must be a file path"),
])
def test_bad_input_names_the_field(tmp_path: Path, network: str, graph: str | None,
                                   message: str) -> None:
    if graph is not None:
        text = GRAPH.read_text(encoding="utf-8") if graph == "GRAPH" else graph
        name = "g.txt" if 'file = "g.txt"' in network else "g.gml"
        (tmp_path / name).write_text(text, encoding="utf-8")
    p = _toml(tmp_path, network)
    with pytest.raises(burstlab.ScenarioError, match=message):
        burstlab.run(p)
    with pytest.raises(burstlab.ScenarioError, match=message):
        load_scenario(p)
    r = _cli("validate", str(p))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "network." in r.stderr


def test_network_must_be_a_table(tmp_path: Path) -> None:
    with pytest.raises(burstlab.ScenarioError, match="^network: must be a table"):
        burstlab.run({"network": "g.gml", "sim": {"duration": "1s"}})
    with pytest.raises(burstlab.ScenarioError, match="^nodes: must be a list of tables"):
        burstlab.run({"network": {"file": str(GRAPH)}, "nodes": "x"})


def test_malformed_text_still_gets_the_cores_error() -> None:
    """A file mentioning "network" that is not valid TOML is left to the core's parser."""
    with pytest.raises(burstlab.ScenarioError, match="TOML|expected"):
        burstlab.run('name = "network\n[sim\n')


def test_a_sweep_varies_the_built_scenario(tmp_path: Path) -> None:
    from burstlab.sweep import sweep

    res = sweep(EXAMPLE, {"sim.duration": "0.3s,0.6s"}, replications=1,
                executor="serial", progress=False)
    assert list(res.runs.status) == ["ok", "ok"]
    t = res.table[res.table.flow == 0]
    assert t.segments_delivered.iloc[0] < t.segments_delivered.iloc[1]


def test_the_docs_list_every_key() -> None:
    page = (ROOT / "docs" / "guide" / "networks.md").read_text(encoding="utf-8")
    ref = (ROOT / "docs" / "reference" / "scenario.md").read_text(encoding="utf-8")
    for key in NETWORK_KEYS | {"file"}:
        assert f"`{key}`" in page, key
        assert f"`network.{key}`" in ref, key


def test_example_is_valid_json_round_trip() -> None:
    """The expanded scenario is plain data (what a sweep stores)."""
    spec = load_scenario(EXAMPLE)
    assert json.loads(json.dumps(spec)) == spec


def test_the_table_is_found_however_toml_writes_it(tmp_path: Path) -> None:
    g = str(GRAPH).replace("\\", "/")
    flow = '[[flow]]\nsrc = "H_Hamburg_1"\ndst = "H_Munich_1"\nsegments = 30\n'
    for head in (f'[network]\nfile = "{g}"\n', f'network = {{ file = "{g}" }}\n',
                 f'network.file = "{g}"\n', f'"network" = {{ file = "{g}" }}\n',
                 f'[ "network" ]\nfile = "{g}"\n'):
        res = burstlab.run('# an OBS network\nname = "g"\n' + head + flow)
        assert bool(res.fct.completed.iloc[0]), head
