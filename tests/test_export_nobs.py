"""`burstlab export nobs`: the script's content and the refusals, each naming the field.
Runs against nOBS itself are in test_nobs_differential.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from _nobs_scenarios import edge_core_edge, two_sources

import burstlab
from burstlab.export import export_nobs


def test_script_carries_the_obs_settings() -> None:
    tcl = export_nobs(edge_core_edge()).tcl
    # nOBS's global settings (optical/opticaldefaults.h), from burstlab's [obs] and fibres.
    assert "optical_defaults 0.002" in tcl
    for line in ("$settings set MAX_LAMBDA 1",
                 "$settings set HOP_DELAY 1e-05", "$settings set SWITCHTIME 5e-06",
                 "$settings set JET_TYPE 1", "$settings set LINKSPEED 1000000000",
                 "$settings set BURST_HEADER 0", "$settings set MAX_DEST 10",
                 "$settings set MAX_FLOW_QUEUE 5"):
        assert line in tcl, line
    # Optical nodes first (ids 0..2), then the hosts (3, 4): hosts need ids >= 2.
    assert "set n(0) [$ns OpNode]  ;# E0 (edge)" in tcl
    assert "set n(3) [$ns node]  ;# src (host)" in tcl
    assert "$sa set conversiontype_ 2" in tcl  # conversion = false
    assert "$ns optical-duplex-link $n(0) $n(1) 1000000000 0.005 OpQueue" in tcl
    assert "$ns duplex-link $n(3) $n(0) 100000000 0.001 DropTail" in tcl
    # Source routes: host -> ingress, egress -> host; the optical path on the ingress.
    assert "[$n(3) set src_agent_] install_connection 4  3 4  3 0 2 4" in tcl
    assert "[$n(4) set src_agent_] install_connection 3  4 3  4 2 0 3" in tcl
    assert "[$n(0) set src_agent_] install_connection 2  0 2  0 1 2" in tcl
    assert "[$n(2) set src_agent_] install_connection 0  2 0  2 1 0" in tcl
    assert "$tcp(0) target [$n(3) set src_agent_]" in tcl
    assert "[new Agent/TCP/Reno]" in tcl and "$tcp(0) set window_ 64" in tcl


def test_a_finite_flow_reports_its_completion() -> None:
    """A finite TCP flow is an FTP ``produce`` of its segments and prints its end from
    the agent's ``done``; an infinite flow has no ``done``."""
    spec = two_sources()
    spec["flow"][1]["segments"] = 250
    tcl = export_nobs(spec).tcl
    assert '$ns at 0.0013 "$app(1) produce 250"' in tcl
    assert ('$tcp(1) proc done {} { puts "burstlab-nobs-done 1 [[Simulator instance] now]" }'
            in tcl)
    assert '"$app(0) start"' in tcl and "$tcp(0) proc done" not in tcl


def test_assembly_triggers_and_jet_type() -> None:
    tcl = export_nobs(edge_core_edge(assembly={"type": "length", "max_bytes": "5000B"},
                                     switch_setup="0s")).tcl
    assert "$settings set BURST_SIZE_THRESHOLD 5000" in tcl
    assert "optical_defaults 1000000" in tcl  # the timer out of reach
    assert "$settings set JET_TYPE 0" in tcl  # no set-up: both JET types agree
    tcl = export_nobs(edge_core_edge(assembly={"type": "length", "max_pkts": 7})).tcl
    assert "$settings set MAX_PACKET_NUM 7" in tcl
    tcl = export_nobs(edge_core_edge(assembly={"type": "hybrid", "tmax": "3ms",
                                               "lmax": "9000B"}, conversion=True)).tcl
    assert "optical_defaults 0.003" in tcl
    assert "$settings set BURST_SIZE_THRESHOLD 9000" in tcl
    assert "$sa set conversiontype_ 1" in tcl


def test_injected_losses_become_error_model_lists() -> None:
    spec = edge_core_edge(drop_burst=[{"edge": "E0", "queue": "f0", "bursts": [6, 4]}])
    tcl = export_nobs(spec).tcl
    assert "$em(0) set opticaldrop_ 0" in tcl and "$em(0) droplist {4 6}" in tcl
    assert "$ns lossmodel $em(0) $n(0) $n(1)" in tcl
    tcl = export_nobs(spec, drop_as="control").tcl
    assert "$em(0) set opticaldrop_ 1" in tcl


def test_random_loss_on_data_fibres() -> None:
    tcl = export_nobs(edge_core_edge(loss={"p": 0.01, "scope": "per_path"})).tcl
    assert "$em set rate_ 0.01" in tcl and "$em set opticaldrop_ 0" in tcl
    assert tcl.count("$ns lossmodel $em ") == 1
    assert "$ns lossmodel $em $n(1) $n(2)" in tcl  # the data path's last fibre
    tcl = export_nobs(edge_core_edge(loss={"p": 0.01, "scope": "per_link"})).tcl
    assert tcl.count("$ns lossmodel $em ") == 2  # E0->C1, C1->E2; not the ACK direction
    tcl = export_nobs(edge_core_edge(loss={"p": 0.01, "applies_to": "all"})).tcl
    assert tcl.count("$ns lossmodel $em ") == 4


def test_trace_and_per_egress() -> None:
    tcl = export_nobs(two_sources(classifier="per_egress"), trace="t.tr").tcl
    assert 'set tf [open {t.tr} w]' in tcl and "$ns trace-all $tf" in tcl
    assert "$settings set MAX_FLOW_QUEUE 1" in tcl


@pytest.mark.parametrize(("obs", "field"), [
    ({"scheduler": "lauc"}, "obs.scheduler"),
    ({"signalling": "jit"}, "obs.signalling"),
    ({"offset": "1ms"}, "obs.offset"),
    ({"extra_offset": "1us"}, "obs.extra_offset"),
    ({"classifier": "per_class"}, "obs.classifier"),
    ({"assembly": {"type": "cwba", "window": "mark"}}, "obs.assembly.type"),
    ({"assembly": {"type": "timer", "tb": "1ms", "jitter": 0.1}}, "obs.assembly.jitter"),
    ({"assembly": {"type": "hybrid", "tmax": "1ms", "lmax": "9000B", "lmin": "1000B"}},
     "obs.assembly.lmin"),
])
def test_refusals_name_the_field(obs: dict[str, object], field: str) -> None:
    with pytest.raises(burstlab.ScenarioError, match="^" + re.escape(field)):
        export_nobs(edge_core_edge(**obs))


@pytest.mark.parametrize(("contention", "field"), [
    ({"segmentation": "head"}, "obs.contention.segmentation"),
    ({"preemption": "full"}, "obs.contention.preemption"),
    ({"deflection": [{"node": "C1", "via": ["E2"]}]}, "obs.contention.deflection"),
])
def test_contention_nobs_lacks_is_refused(contention: dict[str, object],
                                          field: str) -> None:
    # (preemption with one priority is refused before the export, naming the same field)
    with pytest.raises(burstlab.ScenarioError, match="^" + re.escape(field) + ": "):
        export_nobs(edge_core_edge(contention=contention))
    # "none" is the default preemption and exports as nOBS's behaviour
    export_nobs(edge_core_edge(contention={"preemption": "none"}))


def test_refusals_of_the_network() -> None:
    s = edge_core_edge()
    s["fibre"][1]["rate"] = "2Gb/s"
    with pytest.raises(burstlab.ScenarioError, match=r"^fibre\[1\]\.rate: nOBS has one"):
        export_nobs(s)
    s = edge_core_edge()
    s["fibre"][1]["wavelengths"] = 2
    with pytest.raises(burstlab.ScenarioError, match=r"^fibre\[1\]\.wavelengths"):
        export_nobs(s)
    s = two_sources()
    s["flow"][1]["src"] = "src"  # two flows from one host to one egress
    with pytest.raises(burstlab.ScenarioError, match=r"^flow\[1\]\.src: nOBS queues"):
        export_nobs(s)
    s = two_sources()  # drop list on a fibre two queues share
    s["obs"]["drop_burst"] = [{"edge": "E0", "queue": "f0", "bursts": [1]}]
    with pytest.raises(burstlab.ScenarioError, match=r"^obs\.drop_burst\[0\]"):
        export_nobs(s)
    s = edge_core_edge()
    del s["fibre"]
    s["link"].append({"a": "E0", "b": "E2", "rate": "1Gb/s", "delay": "1ms"})
    with pytest.raises(burstlab.ScenarioError):
        export_nobs(s)


def test_cli_writes_and_refuses(tmp_path: Path) -> None:
    import json

    scen = tmp_path / "s.json"
    scen.write_text(json.dumps(edge_core_edge()))
    out = tmp_path / "s.tcl"
    cli = [sys.executable, "-m", "burstlab.cli", "export", "nobs"]
    p = subprocess.run([*cli, str(scen), "--out", str(out), "--drop-as", "control"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert "$ns OpNode" in out.read_text()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(edge_core_edge(scheduler="ffuc")))
    p = subprocess.run([*cli, str(bad)], capture_output=True, text=True, check=False)
    assert p.returncode == 2 and "obs.scheduler" in p.stderr
    assert "Traceback" not in p.stderr
