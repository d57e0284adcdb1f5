"""The scenario fuzzer: its short run (the CI's) and how it tells findings from
acceptable outcomes."""

from __future__ import annotations

import random

from burstlab.fuzz import Runner, classify, fuzz, generate


def test_short_fuzz_run_has_no_findings() -> None:
    counts = fuzz(120, seed=1)
    assert counts["finding"] == 0, counts
    # both halves of the generator are exercised: runs that finish and clear rejections
    assert counts["ok"] >= 30 and counts["rejected"] >= 30, counts


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
    slow = {"sim": {"duration": "300s"},
            "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
            "link": [{"a": "a", "b": "b", "rate": "10Gb/s", "delay": "1ms"}],
            "flow": [{"type": "cbr", "src": "a", "dst": "b", "rate": "5Gb/s",
                      "packet_size": "40B"}]}
    r = Runner()
    try:
        out = r.run(slow, budget_s=0.5)
        assert out.kind == "finding" and out.detail.startswith("hang")
        slow["sim"]["duration"] = "1ms"
        assert r.run(slow).kind == "ok"  # a fresh child after the kill
    finally:
        r.close()
