"""The profile-guided build (``benchmarks/pgo.py``): it must give exactly the plain build's
results, and it refuses to finish when it does not."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import pgo  # noqa: E402


def fake_binary(tmp: Path, name: str, out: dict[str, object]) -> Path:
    """A stand-in for burstlab-bench that prints one fixed JSON line."""
    p = tmp / name
    p.write_text(f"#!/bin/sh\necho '{json.dumps(out)}'\n", encoding="utf-8")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


def test_check_ignores_timings_and_catches_a_changed_result(tmp_path: Path) -> None:
    scen = [(tmp_path / "s.toml", 1.0)]
    base = {"simulated_s": 1, "delivered_segments": 100, "events": 400}
    plain = fake_binary(tmp_path, "plain", {**base, "wall_s": 0.5, "peak_rss_kib": 10})
    faster = fake_binary(tmp_path, "faster", {**base, "wall_s": 0.4, "peak_rss_kib": 12})
    pgo.check_same(plain, faster, scen, quiet=True)  # timings differ: fine
    changed = fake_binary(tmp_path, "changed", {**base, "events": 401, "wall_s": 0.4})
    with pytest.raises(pgo.PgoError, match="differ"):
        pgo.check_same(plain, changed, scen, quiet=True)


def test_missing_profdata_is_a_clear_error(tmp_path: Path) -> None:
    # Hide every llvm-profdata: a PATH with only rustc's and Python's folders.
    env = dict(os.environ)
    rustc = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True,
                           check=True).stdout.strip()
    if list(Path(rustc).glob("lib/rustlib/*/bin/llvm-profdata")):
        pytest.skip("rustup's llvm-tools are installed: llvm-profdata cannot be hidden")
    cargo_bin = Path(subprocess.run(["sh", "-c", "command -v rustc"], capture_output=True,
                                    text=True, check=True).stdout.strip()).parent
    if list(cargo_bin.glob("llvm-profdata*")):
        pytest.skip(f"llvm-profdata sits beside rustc in {cargo_bin}: it cannot be hidden")
    env["PATH"] = f"{cargo_bin}:{Path(sys.executable).parent}"
    cp = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pgo.py")], env=env,
                        capture_output=True, text=True, check=False)
    assert cp.returncode == 2, cp.stderr
    assert "no llvm-profdata of LLVM" in cp.stderr and "apt-get install llvm-" in cp.stderr
    assert "Traceback" not in cp.stderr


def test_pgo_build_gives_the_plain_builds_results() -> None:
    """The whole build (about 2.5 minutes): trains, rebuilds, and checks six benchmark
    scenarios itself; here one more scenario is compared outside it."""
    if pgo.find_profdata(pgo.llvm_major()) is None:
        pytest.skip(f"no llvm-profdata of LLVM {pgo.llvm_major()} (make system-deps installs it)")
    cp = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pgo.py"), "--quiet"],
                        capture_output=True, text=True, check=False)
    assert cp.returncode == 0, cp.stderr
    built = Path(cp.stdout.strip().splitlines()[-1])
    assert built == pgo.PGO_BINARY and built.exists()
    plain = ROOT / "target" / "release" / "burstlab-bench"
    assert built.read_bytes() != plain.read_bytes()
    scen = ROOT / "examples" / "ozsarac_mesh.toml"
    a = pgo.results(pgo.run(plain, scen, 3.0))
    b = pgo.results(pgo.run(built, scen, 3.0))
    assert a["delivered_segments"] > 0
    assert a == b


def test_extension_check_sees_every_table(tmp_path: Path) -> None:
    """The extension build's check (a digest of the whole result, run in a fresh
    interpreter) repeats for the same run and changes with the run."""
    scen = ROOT / "examples" / "single_flow.toml"
    a, b, c = pgo._drive([(scen, 20.0), (scen, 20.0), (scen, 21.0)], tmp_path)
    assert a["digest"] == b["digest"] and a["events"] == b["events"]
    assert c["digest"] != a["digest"]
    assert int(str(a["events"])) > 0
