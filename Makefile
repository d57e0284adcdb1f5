# burstlab — the two set-up commands of the README are `make demo` and `make test`.
# Both create an isolated environment in .venv (Python deps from PyPI, Rust crates from
# crates.io) and build the native module in release mode first.

VENV    ?= .venv
PY      := $(VENV)/bin/python
BIN     := $(VENV)/bin
PYTHON  ?= python3
OUT     ?= out

.PHONY: ns2 ns3 demo demo-variants reproduce-yu reproduce-all browser test build build-pgo env lint rust-test py-test bench bench-pgo pgo clean system-deps fuzz nobs docs docs-env wheel-test

$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "maturin>=1.5,<2"

env: $(BIN)/maturin

# PGO=1 (or `make build-pgo`): then rebuild the extension profile-guided, checked to give
# the plain build's results (benchmarks/pgo.py --extension; about 2.5 minutes more, needs
# llvm-profdata, which system-deps installs). Worth it for long sweeps and full
# reproductions (a fifth less CPU on the yu reproduction), not for one quick demo.
PGO ?= 0
build: env $(if $(filter 1,$(PGO)),system-deps)
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras dev -q
	@if [ "$(PGO)" = 1 ]; then $(PY) benchmarks/pgo.py --extension; fi

build-pgo:
	$(MAKE) build PGO=1

# Every paper's quick reproduction and the site: $(OUT)/index.html links each paper's
# page $(OUT)/<paper>/report.html (1.5–3.5 minutes per paper on 2 cores). ns-2 (Debian's
# ns2, a few MB) is installed first when root, so sodhatar's ns-2 columns are filled;
# otherwise its report says they are missing.
demo: build ns2
	$(BIN)/burstlab reproduce all --quick --out $(OUT)

# The older single-path demo (four TCP variants, cwnd plot): `burstlab demo`.
demo-variants: build
	$(BIN)/burstlab demo --out $(OUT)/demo

# The full yu reproduction (see docs/reproductions/yu.md: about 6 minutes on 2 cores).
reproduce-yu: build
	$(BIN)/burstlab reproduce yu --out $(OUT)

# Every paper in full mode, plus the site.
reproduce-all: build
	$(BIN)/burstlab reproduce all --out $(OUT)

lint: build
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p burstlab-core --all-targets --features probe -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
	$(BIN)/ruff check python tests benchmarks docs
	$(BIN)/mypy python/burstlab

# Core tests twice: debug (where the fast structures are checked against their slow
# references on every call) and release (what users run); the golden tables must agree.
rust-test:
	cargo test -p burstlab-core
	cargo test -p burstlab-core --release
	cargo test -p burstlab-core --release --features probe --test probe

py-test: build system-deps nobs ns3 docs-env
	$(BIN)/pytest tests

# nOBS v2.1 (the OBS extension of ns-2.35), the oracle of tests/test_nobs_differential.py:
# built once from the archives in shared/refsim (../shared/refsim beside the clone; from a
# git worktree one level deeper, ../../shared/refsim; or REFSIM=...) into
# target/nobs/ns-2.35/ns (about a minute on 2 cores). Its Debian build packages are
# installed when missing and running as root with apt-get. When it cannot be built, the
# reason is written to target/nobs/UNAVAILABLE and the nOBS tests skip with it.
REFSIM ?= $(firstword $(wildcard ../shared/refsim ../../shared/refsim))
NOBS_DIR := target/nobs
NOBS_DEBS := tcl-dev tk-dev libotcl1-dev tclcl libtclcl1-dev libxext-dev libxt-dev libpcap0.8-dev
nobs:
	@if [ -x $(NOBS_DIR)/ns-2.35/ns ]; then exit 0; fi; \
	mkdir -p $(NOBS_DIR); rm -f $(NOBS_DIR)/UNAVAILABLE; \
	if [ -z "$(REFSIM)" ] || [ ! -f "$(REFSIM)/build-nobs.sh" ]; then \
	  echo "no shared/refsim (looked for ../shared/refsim and ../../shared/refsim; set REFSIM)" \
	    | tee $(NOBS_DIR)/UNAVAILABLE; exit 0; fi; \
	missing=""; for p in $(NOBS_DEBS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian packages:$$missing"; apt-get update -qq; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "nOBS needs the Debian packages$$missing (not root or no apt-get)" \
	    | tee $(NOBS_DIR)/UNAVAILABLE; exit 0; fi; fi; \
	echo "building nOBS from $(REFSIM) into $(NOBS_DIR) (about a minute)"; \
	sh $(REFSIM)/build-nobs.sh $(NOBS_DIR) nobs > $(NOBS_DIR)/build.log 2>&1 \
	  || { tail -20 $(NOBS_DIR)/build.log; \
	       echo "nOBS build failed: see $(NOBS_DIR)/build.log" | tee $(NOBS_DIR)/UNAVAILABLE; }

# ns-3.44, the oracle of tests/test_ns3_bbr.py (BBR and CUBIC): PyPI's ns3 wheel unpacked
# with --no-deps into target/ns3/wheel (its shared libraries and headers; its Python
# bindings' dependency cppyy would be built from source for minutes and is not needed),
# and tests/ns3/tcp_path.cc compiled against it with g++ into target/ns3/tcp_path (about
# 10 s after a 69 MB download). g++ is installed when missing and running as root with
# apt-get. When it cannot be built, the reason is written to target/ns3/UNAVAILABLE and
# the ns-3 tests skip with it.
NS3_DIR := target/ns3
NS3_WHEEL := ns3==3.44.post0
NS3_LIBS := point-to-point applications internet traffic-control bridge network core
ns3: env
	@if [ -x $(NS3_DIR)/tcp_path ] && [ $(NS3_DIR)/tcp_path -nt tests/ns3/tcp_path.cc ]; then exit 0; fi; \
	mkdir -p $(NS3_DIR); rm -f $(NS3_DIR)/UNAVAILABLE; \
	if ! command -v g++ >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++; \
	  else echo "ns-3 tests need g++ (not root or no apt-get)" | tee $(NS3_DIR)/UNAVAILABLE; exit 0; fi; fi; \
	if [ ! -d $(NS3_DIR)/wheel/ns3/lib64 ]; then \
	  $(BIN)/pip install -q --no-deps --target $(NS3_DIR)/wheel "$(NS3_WHEEL)" \
	    || { echo "pip could not install $(NS3_WHEEL)" | tee $(NS3_DIR)/UNAVAILABLE; exit 0; }; fi; \
	N=$(abspath $(NS3_DIR))/wheel/ns3; \
	g++ -std=c++20 -O1 -w -o $(NS3_DIR)/tcp_path tests/ns3/tcp_path.cc -I$$N/include \
	  -L$$N/lib64 -Wl,-rpath,$$N/lib64 $(foreach l,$(NS3_LIBS),-lns3.44-$(l)) \
	  > $(NS3_DIR)/build.log 2>&1 \
	  || { tail -20 $(NS3_DIR)/build.log; \
	       echo "compiling tests/ns3/tcp_path.cc failed: see $(NS3_DIR)/build.log" | tee $(NS3_DIR)/UNAVAILABLE; }

# Debian packages some tests use: ns-2.35 (differential tests against ns-2), Chromium
# (the site's browser test) and the llvm-profdata of rustc's LLVM (the profile-guided
# build, `make pgo`). Installed when missing and running as root with apt-get (CI);
# elsewhere those tests skip and say why. `command:package` pairs. The llvm package
# follows rustc's LLVM major version, which Debian may not (yet) have: it is installed
# only if apt knows it, and the profile-guided build's test skips otherwise.
LLVM_MAJOR := $(shell rustc -vV 2>/dev/null | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
SYSTEM_DEPS := ns:ns2 chromium:chromium
OPTIONAL_DEPS := llvm-profdata-$(LLVM_MAJOR):llvm-$(LLVM_MAJOR)
browser: system-deps
# ns-2.35 alone (the demo's one system dependency), when root and apt-get are there.
ns2:
	@command -v ns >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2; \
	  else echo "ns-2 (ns) not installed and not root: sodhatar's report will say its ns-2 columns are missing"; fi; }
system-deps:
	@missing=""; optional=""; for d in $(SYSTEM_DEPS); do \
	  command -v $${d%%:*} >/dev/null 2>&1 || missing="$$missing $${d#*:}"; done; \
	for d in $(OPTIONAL_DEPS); do \
	  command -v $${d%%:*} >/dev/null 2>&1 || optional="$$optional $${d#*:}"; done; \
	if [ -n "$$missing$$optional" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq; \
	    for o in $$optional; do \
	      if apt-cache show $$o >/dev/null 2>&1; then missing="$$missing $$o"; \
	      else echo "Debian has no $$o here: tests needing it will skip"; fi; done; \
	    if [ -n "$$missing" ]; then echo "installing Debian packages:$$missing"; \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi; \
	  else echo "not root or no apt-get: tests needing$$missing$$optional will skip"; fi; \
	fi

test: system-deps lint rust-test py-test wheel-test

# The documentation site (docs/, Sphinx + MyST-NB, the `docs` extra of pyproject.toml):
# docs/_build/html/index.html. Warnings are errors (broken internal links included); the
# tutorial notebooks run at every build. tests/test_docs.py builds it too, and opens every
# page in headless Chromium.
DOCS_OUT ?= docs/_build/html
$(VENV)/.docs-env: pyproject.toml | env
	$(PY) -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs']))" \
	  | xargs $(BIN)/pip install -q
	touch $@
docs-env: $(VENV)/.docs-env
docs: build docs-env
	$(BIN)/sphinx-build -b html -W --keep-going -q docs $(DOCS_OUT)
	@echo "docs: open $(DOCS_OUT)/index.html"

# The package as a user installs it: a wheel built with maturin, installed into a fresh
# virtual environment (no development install, no source tree on the path), then a short
# run from it (tests/wheel_test.sh).
wheel-test: env
	PYTHON=$(PYTHON) BUILD_PYTHON=$(abspath $(PY)) MATURIN=$(BIN)/maturin sh tests/wheel_test.sh

# The long fuzzing run (the test suite runs a short one): findings go to out/fuzz.jsonl.
FUZZ_COUNT ?= 5000
FUZZ_SEED  ?= 7
fuzz: build
	mkdir -p $(OUT)
	$(PY) -m burstlab.fuzz --count $(FUZZ_COUNT) --seed $(FUZZ_SEED) --out $(OUT)/fuzz.jsonl

# bench_ns2.py runs Debian's ns-2.35 beside burstlab (`make system-deps` installs it when
# root); without `ns` it is skipped with a note. bench_scaling and bench_ns2 take about
# 1 and 3 minutes on a quiet 2-core machine (`--quick`: under a minute each).
bench: build
	$(PY) benchmarks/bench_path.py
	$(PY) benchmarks/bench_path.py --scenario benchmarks/yu_1flow.toml
	$(PY) benchmarks/bench_path.py --scenario benchmarks/mesh_9flow.toml --runs 3 --no-short
	$(PY) benchmarks/bench_path.py --scenario benchmarks/dumbbell_320.toml --runs 3 --no-short
	$(PY) benchmarks/bench_sweep.py
	$(PY) benchmarks/bench_scaling.py
	@if command -v ns >/dev/null 2>&1; then $(PY) benchmarks/bench_ns2.py; \
	else echo "ns-2 (ns) not installed: skipping benchmarks/bench_ns2.py (apt-get install ns2)"; fi

# The profile-guided build of the benchmark binary, checked to give the plain build's
# results (benchmarks/pgo.py; about 2.5 minutes on 2 cores): target/pgo/burstlab-bench.
pgo: env system-deps
	$(PY) benchmarks/pgo.py

# The ns-2 and scaling figures of docs/benchmarks.md for the profile-guided build.
bench-pgo: build pgo
	$(PY) benchmarks/bench_scaling.py --pgo
	@if command -v ns >/dev/null 2>&1; then $(PY) benchmarks/bench_ns2.py --pgo; \
	else echo "ns-2 (ns) not installed: skipping benchmarks/bench_ns2.py (apt-get install ns2)"; fi

clean:
	rm -rf $(VENV) target $(OUT) python/burstlab/_core*.so docs/_build docs/jupyter_execute
