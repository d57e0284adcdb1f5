#!/bin/sh
# The package as a user installs it (`make wheel-test`, part of `make test`): build the
# wheel with maturin, install it into a fresh virtual environment, and run burstlab from
# there, outside the source tree, so nothing of the development install or of python/
# can stand in for it. Checks: the package imports from the new environment, the wheel
# carries the LICENSE, `burstlab --version` agrees with the crate's version, and a short
# run and a validation error behave as documented (exit 0 with the tables written; exit
# 2 with one line naming the field).
#
# Environment: PYTHON (the interpreter for the new venv, default python3), BUILD_PYTHON
# (the interpreter maturin builds for: `make` passes .venv's, so the build reuses the
# artifacts of `make build` and takes seconds), MATURIN
# (default maturin).
set -eu
PYTHON=${PYTHON:-python3}
MATURIN=${MATURIN:-maturin}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
t0=$(date +%s)

(cd "$ROOT" && "$MATURIN" build --release --out "$WORK/dist" --quiet ${BUILD_PYTHON:+--interpreter "$BUILD_PYTHON"})
WHEEL=$(ls "$WORK"/dist/burstlab-*.whl)
echo "wheel-test: built $(basename "$WHEEL")"
t1=$(date +%s)

"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$WHEEL"
t2=$(date +%s)

cd "$WORK"
"$WORK/venv/bin/python" - "$WHEEL" "$WORK/venv" <<'PY'
import sys, zipfile
wheel, venv = sys.argv[1], sys.argv[2]
import burstlab
assert burstlab.__file__.startswith(venv), f"burstlab imported from {burstlab.__file__}"
names = zipfile.ZipFile(wheel).namelist()
lic = [n for n in names if n.endswith("LICENSE")]
assert lic, f"no LICENSE in the wheel: {names}"
assert any(n.startswith("burstlab/_core") for n in names), names
print("wheel-test: burstlab", burstlab.__version__, "from", burstlab.__file__, "; LICENSE:", lic[0])
PY
version=$("$WORK/venv/bin/burstlab" --version)
crate=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1)
case "$version" in *"$crate"*) ;; *) echo "wheel-test: --version says '$version', the crate $crate"; exit 1;; esac

cat > short.toml <<'TOML'
name = "wheel-test"
[sim]
duration = "5s"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "r"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s"
b = "r"
rate = "10Mb/s"
delay = "10ms"
[[link]]
a = "r"
b = "d"
rate = "10Mb/s"
delay = "10ms"
loss_ab = 0.01
[[flow]]
src = "s"
dst = "d"
variant = "sack"
TOML
"$WORK/venv/bin/burstlab" run short.toml --seed 3 --out out
test -s out/flows.csv && test -s out/result.json
sed 's/rate = "10Mb\/s"/rate = 0/' short.toml > bad.toml
set +e
"$WORK/venv/bin/burstlab" validate bad.toml 2> err.txt
rc=$?
set -e
test "$rc" = 2 || { echo "wheel-test: bad scenario exited $rc, not 2"; exit 1; }
grep -q '^burstlab: error: link\[0\]\.rate: ' err.txt || { cat err.txt; exit 1; }
test "$(wc -l < err.txt)" = 1 || { cat err.txt; exit 1; }
t3=$(date +%s)
echo "wheel-test: passed (build $((t1 - t0)) s, install $((t2 - t1)) s, runs $((t3 - t2)) s)"
