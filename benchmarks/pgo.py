"""A profile-guided build of ``burstlab-bench`` (``make pgo``), checked to change no result.

Three steps, each in its own cargo target directory under ``target/pgo/`` so that the
plain release build (``target/release``) is never rebuilt by them:

1. an instrumented build (``-Cprofile-generate``) runs a training set of scenarios;
2. ``llvm-profdata`` merges the counts it wrote;
3. the optimised build (``-Cprofile-use``) is copied to ``target/pgo/burstlab-bench``.

The training set is the example scenarios (examples/) plus scenarios the performance
benchmarks never measure (a 24-flow dumbbell and a 24-flow OBS mixed network, the 9-flow
mesh, the yu path): the benchmarks report speed on scenarios the profile has not seen.

Then the check: every benchmark scenario (the 5-hop path, the dumbbells and OBS mixed
networks at 10 and 320 flows, the mesh) runs a short time on both the plain release build
and the new one, and every number either prints except the timings (delivered segments,
events, simulated time, peak memory aside) must be equal; otherwise the PGO binary is
deleted and the script exits 1. Compiler optimisation must not change a result.

``llvm-profdata`` must come from the same LLVM major version as ``rustc`` (``rustc -vV``
names it): it is looked for as ``llvm-profdata-<major>``, then ``llvm-profdata`` if its
version matches, then in rustup's ``llvm-tools`` component. Without it the script exits 2
and says what to install (Debian: ``apt-get install llvm-<major>``; ``make pgo``
installs it when run as root).

    python benchmarks/pgo.py [--quiet]   # prints the binary's path on its last line

``--extension`` does the same for the Python extension (``burstlab._core``, what
``burstlab run``, sweeps and the reproductions use; ``make build-pgo``): the profile of
the benchmark binary does not apply to it (cargo gives ``burstlab-core`` other symbol
hashes in the extension's build), so the extension is built instrumented into the
environment of the Python running this script with ``maturin develop``, trained through
``burstlab._core.run`` on the same training set, and rebuilt with its own profile. The
check compares the whole result of each check scenario (every table, as the extension
returns it) with the plain release extension's, built first; if any differs the plain
extension is installed again and the script exits 1. ``make build`` installs the plain
extension again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import with_duration  # noqa: E402
from make_dumbbell import dumbbell  # noqa: E402
from make_obs_mixed import obs_mixed  # noqa: E402

PGO_DIR = ROOT / "target" / "pgo"
#: Where the profile-guided binary ends up.
PGO_BINARY = PGO_DIR / "burstlab-bench"
BIN_ARGS = ["-p", "burstlab-core", "--bin", "burstlab-bench"]

#: Output fields that are measurements of the run, not results of the simulation.
TIMING_FIELDS = {"wall_s", "segments_per_s", "events_per_s", "peak_rss_kib"}


class PgoError(Exception):
    """A step failed; the message says which and why."""


class NoProfdata(PgoError):
    """No ``llvm-profdata`` of rustc's LLVM: the script exits 2."""


def log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


def llvm_major() -> str:
    out = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^LLVM version: (\d+)", out, re.MULTILINE)
    if not m:
        raise PgoError("`rustc -vV` names no LLVM version")
    return m.group(1)


def find_profdata(major: str) -> Path | None:
    """An ``llvm-profdata`` of LLVM ``major``, or None."""
    named = shutil.which(f"llvm-profdata-{major}")
    if named:
        return Path(named)
    plain = shutil.which("llvm-profdata")
    if plain:
        v = subprocess.run([plain, "--version"], capture_output=True, text=True).stdout
        if re.search(rf"LLVM version {major}\.", v):
            return Path(plain)
    sysroot = subprocess.run(
        ["rustc", "--print", "sysroot"], check=True, capture_output=True, text=True
    ).stdout.strip()
    for p in Path(sysroot).glob("lib/rustlib/*/bin/llvm-profdata"):
        return p
    return None


def require_profdata() -> Path:
    """The ``llvm-profdata`` of rustc's LLVM, or ``NoProfdata`` saying what to install."""
    major = llvm_major()
    profdata = find_profdata(major)
    if profdata is None:
        raise NoProfdata(
            f"no llvm-profdata of LLVM {major} (rustc's) found: install it "
            f"(Debian: apt-get install llvm-{major}; rustup: rustup component add llvm-tools)"
        )
    return profdata


def fresh_dir(d: Path) -> Path:
    """``d``, emptied (where an instrumented build writes its counts)."""
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return d


def merge(profdata: Path, raw: Path, stem: str) -> Path:
    """Merges the counts in ``raw`` into ``PGO_DIR/<stem>-<hash>.profdata`` and returns it.

    Named by its content: cargo rebuilds when RUSTFLAGS change, not when a file they name
    does, so a new profile must have a new name. Older profiles of ``stem`` are removed."""
    merged = PGO_DIR / f"{stem}.profdata"
    r = subprocess.run(
        [str(profdata), "merge", "-o", str(merged), str(raw)], capture_output=True, text=True
    )
    if r.returncode != 0:
        raise PgoError(f"{profdata} merge failed:\n{r.stderr}")
    for old in PGO_DIR.glob(f"{stem}-*.profdata"):
        old.unlink()
    digest = hashlib.sha256(merged.read_bytes()).hexdigest()[:16]
    return merged.rename(PGO_DIR / f"{stem}-{digest}.profdata")


def env_with_rustflags(rustflags: str) -> dict[str, str]:
    """This process's environment with ``rustflags`` appended to RUSTFLAGS (any flags the
    caller set come first, so that the profile flag is not overridden)."""
    env = dict(os.environ)
    env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " " + rustflags).strip()
    return env


def cargo_build(target_dir: Path, rustflags: str) -> Path:
    env = env_with_rustflags(rustflags)
    cmd = ["cargo", "build", "--release", "-q", *BIN_ARGS, "--target-dir", str(target_dir)]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise PgoError(f"`{' '.join(cmd)}` with RUSTFLAGS={rustflags!r} failed:\n{r.stderr}")
    return target_dir / "release" / "burstlab-bench"


def run(binary: Path, scenario: Path, duration_s: float) -> dict[str, object]:
    cmd = [str(binary), str(scenario), "--duration", str(duration_s)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise PgoError(f"`{' '.join(cmd)}` exited {r.returncode}:\n{r.stderr}")
    return dict(json.loads(r.stdout))


def training_set(scratch: Path) -> list[tuple[Path, float]]:
    """(scenario, simulated seconds): about 20 s of instrumented running in all."""
    (scratch / "dumbbell_24.toml").write_text(dumbbell(24), encoding="utf-8")
    (scratch / "obs_mixed_24.toml").write_text(obs_mixed(24), encoding="utf-8")
    # An example naming a graph file ([network]) is built by the Python loader, one with
    # a Python assembler (type = "python") needs the Python package; the bench binary
    # refuses both.
    runs = [(p, 5.0) for p in sorted((ROOT / "examples").glob("*.toml"))
            if "\n[network]" not in "\n" + (t := p.read_text(encoding="utf-8"))
            and 'type = "python"' not in t]
    runs += [
        (ROOT / "benchmarks" / "mesh_9flow.toml", 5.0),
        (ROOT / "benchmarks" / "yu_1flow.toml", 200.0),
        (scratch / "dumbbell_24.toml", 4.0),
        (scratch / "obs_mixed_24.toml", 2.0),
    ]
    return runs


def check_set(scratch: Path) -> list[tuple[Path, float]]:
    """(scenario, simulated seconds): the benchmarks' scenarios, briefly."""
    for n in (10, 320):
        (scratch / f"check_dumbbell_{n}.toml").write_text(dumbbell(n), encoding="utf-8")
        (scratch / f"check_obs_mixed_{n}.toml").write_text(obs_mixed(n), encoding="utf-8")
    return [
        (ROOT / "benchmarks" / "path_5hop.toml", 500.0),
        (ROOT / "benchmarks" / "mesh_9flow.toml", 2.0),
        (scratch / "check_dumbbell_10.toml", 4.0),
        (scratch / "check_dumbbell_320.toml", 0.5),
        (scratch / "check_obs_mixed_10.toml", 1.0),
        (scratch / "check_obs_mixed_320.toml", 0.5),
    ]


def results(out: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in out.items() if k not in TIMING_FIELDS}


def check_same(plain: Path, used: Path, scenarios: list[tuple[Path, float]], quiet: bool) -> None:
    """Raises ``PgoError`` unless both binaries give the same results on every scenario."""
    for scenario, dur in scenarios:
        a, b = results(run(plain, scenario, dur)), results(run(used, scenario, dur))
        if a != b:
            raise PgoError(
                f"the PGO build's results differ from the plain build's on {scenario.name} "
                f"({dur:g} s simulated): {b} against {a}"
            )
        log(f"pgo: {scenario.name}: same results ({a.get('delivered_segments')} segments, "
            f"{a.get('events')} events)", quiet)


def build_pgo(quiet: bool = False) -> Path:
    """Builds, trains, rebuilds and checks; returns the profile-guided binary's path."""
    profdata = require_profdata()
    t0 = time.perf_counter()
    raw = fresh_dir(PGO_DIR / "profraw")
    log("pgo: instrumented build", quiet)
    gen = cargo_build(PGO_DIR / "gen", f"-Cprofile-generate={raw}")
    with tempfile.TemporaryDirectory(prefix="burstlab-pgo-") as tmp:
        scratch = Path(tmp)
        for scenario, dur in training_set(scratch):
            log(f"pgo: training on {scenario.name} ({dur:g} s simulated)", quiet)
            run(gen, scenario, dur)
        merged = merge(profdata, raw, "merged")
        log("pgo: profile-guided build", quiet)
        # -Wbackend-plugin warnings name functions the training never ran: expected.
        used = cargo_build(PGO_DIR / "use", f"-Cprofile-use={merged}")
        log("pgo: plain release build, for the check", quiet)
        plain = cargo_build(ROOT / "target", "")
        PGO_BINARY.unlink(missing_ok=True)
        check_same(plain, used, check_set(scratch), quiet)
    shutil.copy2(used, PGO_BINARY)
    log(f"pgo: done in {time.perf_counter() - t0:.0f} s", quiet)
    return PGO_BINARY


#: Runs scenarios through the installed extension; prints, per scenario, a digest of its
#: whole result (every table) and the number of events.
_DRIVER = """
import hashlib, json, sys
import burstlab._core as core
for path in sys.argv[1:]:
    raw = core.run(open(path, encoding="utf-8").read(), "toml", None, None)
    blob = json.dumps(raw, sort_keys=True, default=str).encode()
    print(json.dumps({"scenario": path, "digest": hashlib.sha256(blob).hexdigest(),
                      "events": raw["meta"]["events"]}))
"""


def _drive(runs: list[tuple[Path, float]], scratch: Path) -> list[dict[str, object]]:
    """Runs each (scenario, simulated seconds) through the installed extension, in a fresh
    interpreter (so the extension just installed is the one imported)."""
    files = []
    for i, (scenario, dur) in enumerate(runs):
        f = scratch / f"drive_{i}_{scenario.name}"
        f.write_text(with_duration(scenario.read_text(encoding="utf-8"), dur), encoding="utf-8")
        files.append(str(f))
    r = subprocess.run([sys.executable, "-c", _DRIVER, *files], capture_output=True, text=True)
    if r.returncode != 0:
        raise PgoError(f"running scenarios through the extension failed:\n{r.stderr[-2000:]}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def _develop(target_dir: Path | None, rustflags: str) -> None:
    maturin = Path(sys.executable).with_name("maturin")
    if not maturin.exists():
        raise PgoError(f"no maturin beside {sys.executable}: run `make build` first")
    env = env_with_rustflags(rustflags)
    env["VIRTUAL_ENV"] = str(Path(sys.executable).parent.parent)
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    cmd = [str(maturin), "develop", "--release", "-q"]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise PgoError(f"`{' '.join(cmd)}` with RUSTFLAGS={rustflags!r} failed:\n{r.stderr[-3000:]}")


def build_extension_pgo(quiet: bool = False) -> None:
    """Installs a profile-guided build of the extension, checked against the plain one."""
    profdata = require_profdata()
    t0 = time.perf_counter()
    raw = fresh_dir(PGO_DIR / "ext-profraw")
    with tempfile.TemporaryDirectory(prefix="burstlab-pgo-ext-") as tmp:
        scratch = Path(tmp)
        checks = check_set(scratch)
        log("pgo: plain release extension, for the check", quiet)
        _develop(None, "")
        want = _drive(checks, scratch)
        log("pgo: instrumented extension", quiet)
        _develop(PGO_DIR / "ext-gen", f"-Cprofile-generate={raw}")
        log("pgo: training", quiet)
        _drive(training_set(scratch), scratch)
        merged = merge(profdata, raw, "ext-merged")
        log("pgo: profile-guided extension", quiet)
        _develop(PGO_DIR / "ext-use", f"-Cprofile-use={merged}")
        got = _drive(checks, scratch)
        for (scenario, dur), a, b in zip(checks, want, got, strict=True):
            if a["digest"] != b["digest"]:
                _develop(None, "")  # the plain extension back
                raise PgoError(
                    f"the PGO extension's results differ from the plain one's on {scenario.name} "
                    f"({dur:g} s simulated); the plain extension is installed again"
                )
            log(f"pgo: {scenario.name}: same results (every table; {a['events']} events)", quiet)
    log(f"pgo: extension installed in {time.perf_counter() - t0:.0f} s", quiet)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quiet", action="store_true", help="print only the binary's path")
    ap.add_argument("--extension", action="store_true",
                    help="build and install the Python extension instead of burstlab-bench")
    args = ap.parse_args(argv)
    try:
        if args.extension:
            build_extension_pgo(args.quiet)
            return 0
        path = build_pgo(args.quiet)
    except PgoError as e:
        print(f"pgo: {e}", file=sys.stderr)
        return 2 if isinstance(e, NoProfdata) else 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
