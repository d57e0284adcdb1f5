"""The scenario fuzzer: its short run (the CI's) and how it tells findings from
acceptable outcomes."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from burstlab.fuzz import Runner, _contradict, _valid, classify, fuzz, generate, scenario_at

#: The CI's fuzz run: a few hundred scenarios (about 4 s). Another seed:
#: ``BURSTLAB_FUZZ_SEED=9 pytest tests/test_fuzz.py``; a finding is replayed with
#: ``python -m burstlab.fuzz --seed S --show INDEX > f.json; burstlab run f.json``.
FUZZ_COUNT = 400


def test_short_fuzz_run_has_no_findings() -> None:
    seed = int(os.environ.get("BURSTLAB_FUZZ_SEED", "1"))
    counts = fuzz(FUZZ_COUNT, seed=seed)
    assert counts["finding"] == 0, (seed, counts)
    # both halves of the generator are exercised: runs that finish and clear rejections
    assert counts["ok"] >= 100 and counts["rejected"] >= 100, counts


def test_contradictions_and_floods_are_generated_and_refused() -> None:
    """The generator's hostile quarter: contradicting pairs and runs far too long, each
    refused naming a field (sim.max_events for the floods) well within its budget."""
    rng = random.Random(3)
    r = Runner()
    fields: set[str] = set()
    try:
        for _ in range(60):
            sc = _valid(rng)
            _contradict(rng, sc)
            out = r.run(sc, budget_s=10)
            assert out.kind != "finding", (out, sc)
            if out.kind == "rejected":
                field = re.sub(r"\[\d+\]", "", out.detail.split(":")[0])
                fields.add(field.split(".")[-1])
    finally:
        r.close()
    assert {"stop", "end", "warmup", "max_events", "mean_on", "max_rto"} <= fields, fields


def test_windows_and_classes_at_their_limits_are_refused_naming_the_field() -> None:
    """The hostile cases of issue 56 in the generator: a window of 2^32 − 1 segments
    sent at once (``init_cwnd``), such a window over 1000 s without queue limits (``wm``,
    or the event budget on slow links), preemption under ``per_egress`` (every burst in
    class 0). Each is refused naming its field, in a child under the fuzzer's 2 GiB
    address-space limit, where the window once aborted the process."""
    rng = random.Random(4)
    r = Runner()
    want = {9: {"init_cwnd"}, 10: {"wm", "max_events"}, 11: {"preemption"}}
    seen: dict[int, set[str]] = {k: set() for k in want}
    try:
        while any(not seen[k] for k in want):
            sc = _valid(rng)
            tcp = any(f.get("type") == "tcp" for f in sc["flow"])
            for choice in want:
                if (choice == 11) != ("obs" in sc) or not tcp:
                    continue
                sc_k = json.loads(json.dumps(sc))
                sc_k["flow"] = [f for f in sc_k["flow"] if f.get("type") == "tcp"]
                sc_k["sim"].pop("trace", None)  # else the packet trace's estimate leads
                _contradict(rng, sc_k, choice)
                out = r.run(sc_k, budget_s=10)
                assert out.kind == "rejected", (out, sc_k)
                field = out.detail.split(":")[0].split(".")[-1]
                assert field in want[choice], (choice, out)
                seen[choice].add(field)
    finally:
        r.close()


def test_a_finding_is_replayed_from_its_seed_and_index(tmp_path: Path) -> None:
    rng = random.Random(11)
    drawn = [generate(rng) for _ in range(8)]
    assert scenario_at(11, 7) == drawn[7]
    out = subprocess.run([sys.executable, "-m", "burstlab.fuzz", "--seed", "11",
                          "--show", "7"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == json.loads(json.dumps(drawn[7]))


def test_generator_is_deterministic_and_mixes_valid_and_mutated() -> None:
    a = [generate(random.Random(5)) for _ in range(3)]
    b = [generate(random.Random(5)) for _ in range(3)]
    assert repr(a) == repr(b)
    kinds = {generate(random.Random(s))["name"] for s in range(40)}
    assert kinds == {"fuzz-path", "fuzz-dumbbell", "fuzz-obs"}


def test_classify_accepts_only_runs_and_field_naming_rejections() -> None:
    assert classify("ok", "").kind == "ok"
    assert classify("rejected", "link[0].rate: a rate must be positive").kind == "rejected"
    assert classify("rejected", "something went wrong").kind == "finding"
    assert classify("exception", "SimulationError: panicked at ...").kind == "finding"


def test_runner_reports_a_hang_and_recovers() -> None:
    # 9.4e6 events (within the child's event budget, fuzz.EVENT_BUDGET), about 0.25 s of
    # CPU: longer than the 0.05 s budget given to it once the child is up.
    slow = {"sim": {"duration": "1ms"},
            "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
            "link": [{"a": "a", "b": "b", "rate": "10Gb/s", "delay": "1ms"}],
            "flow": [{"type": "cbr", "src": "a", "dst": "b", "rate": "500Mb/s",
                      "packet_size": "40B"}]}
    r = Runner()
    try:
        assert r.run(slow).kind == "ok"  # the child started and warm
        slow["sim"]["duration"] = "3s"
        out = r.run(slow, budget_s=0.05)
        assert out.kind == "finding" and out.detail.startswith("hang")
        slow["sim"]["duration"] = "1ms"
        assert r.run(slow).kind == "ok"  # a fresh child after the kill
    finally:
        r.close()
