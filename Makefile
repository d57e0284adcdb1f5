# burstlab — the two set-up commands of the README are `make demo` and `make test`.
# Both create an isolated environment in .venv (Python deps from PyPI, Rust crates from
# crates.io) and build the native module in release mode first.

VENV    ?= .venv
PY      := $(VENV)/bin/python
BIN     := $(VENV)/bin
PYTHON  ?= python3
OUT     ?= out

.PHONY: demo demo-variants reproduce-yu test build env lint rust-test py-test bench clean

$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "maturin>=1.5,<2"

env: $(BIN)/maturin

build: env
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras dev -q

demo: build
	$(BIN)/burstlab reproduce yu --quick --out $(OUT)

# The older single-path demo (four TCP variants, cwnd plot): `burstlab demo`.
demo-variants: build
	$(BIN)/burstlab demo --out $(OUT)/demo

# The full yu reproduction (see README: about 6 minutes on 2 cores).
reproduce-yu: build
	$(BIN)/burstlab reproduce yu --out $(OUT)

lint: build
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests benchmarks
	$(BIN)/mypy python/burstlab

# Core tests twice: debug (where the fast structures are checked against their slow
# references on every call) and release (what users run); the golden tables must agree.
rust-test:
	cargo test -p burstlab-core
	cargo test -p burstlab-core --release

py-test: build
	$(BIN)/pytest tests

test: lint rust-test py-test

bench: build
	$(PY) benchmarks/bench_path.py
	$(PY) benchmarks/bench_path.py --scenario benchmarks/yu_1flow.toml
	$(PY) benchmarks/bench_path.py --scenario benchmarks/mesh_9flow.toml --runs 3 --no-short
	$(PY) benchmarks/bench_path.py --scenario benchmarks/dumbbell_320.toml --runs 3 --no-short
	$(PY) benchmarks/bench_sweep.py

clean:
	rm -rf $(VENV) target $(OUT) python/burstlab/_core*.so
