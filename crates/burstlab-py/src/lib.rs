//! PyO3 glue for burstlab-core: conversions and error mapping only.
//!
//! Each core error maps to its own Python exception; panics are caught and surfaced as
//! `SimulationError` so nothing panics across the boundary. The GIL is released while
//! simulating; a run takes it back every 0.1 s to let Ctrl-C stop it (see `run`).

mod hooks;

use burstlab_core::obs::{AssemblerConfig, ExternalFactory};
use burstlab_core::scenario::{Resolved, ScenarioSpec};
use burstlab_core::stats::{Column, RunResult, TableData};
use burstlab_core::world::monitor::{Monitor, Verdict};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The simulator's memory comes from mimalloc (see `burstlab-bench` for why: at hundreds
/// of flows its huge-page-backed segments cut the address-translation misses of the
/// packet pool and link pipes). Built for a library loaded with `dlopen` (the
/// `local_dynamic_tls` feature).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario is malformed or invalid; the message names the field."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The simulator failed internally (a bug: please report it with the scenario)."
);

fn parse(text: &str, format: &str) -> PyResult<ScenarioSpec> {
    let r = match format {
        "toml" => ScenarioSpec::from_toml_str(text),
        "json" => ScenarioSpec::from_json_str(text),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown scenario format '{other}' (use 'toml' or 'json')"
            )))
        }
    };
    r.map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Whether any assembly of `r` is `type = "python"` (`hooks.rs`).
fn has_python(r: &Resolved) -> bool {
    let py = |c: &AssemblerConfig| matches!(c, AssemblerConfig::External(_));
    r.obs.as_ref().is_some_and(|o| {
        py(&o.assembly) || o.classes.iter().filter_map(|c| c.assembly.as_ref()).any(py)
    }) || r.node_assembly.iter().flatten().any(py)
        || r.flows.iter().filter_map(|f| f.assembly.as_ref()).any(py)
}

/// The factory of Python assemblers, if the caller gave one (`burstlab.hooks.Factory`).
fn factory(hooks: &Option<Py<PyAny>>, py: Python<'_>) -> Option<hooks::PyFactory> {
    hooks.as_ref().map(|h| hooks::PyFactory {
        factory: h.clone_ref(py),
    })
}

/// Validates a scenario without running it; `hooks` (`burstlab.hooks.Factory`) builds
/// its Python assemblers, if any. Raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", hooks = None))]
fn validate(py: Python<'_>, text: &str, format: &str, hooks: Option<Py<PyAny>>) -> PyResult<()> {
    let spec = parse(text, format)?;
    let r = spec
        .resolve(None, None)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    burstlab_core::preflight(&r).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    // Wiring checks (paths through fabrics) run when the world is built; a scenario
    // that streams its traces is validated without creating its trace files.
    let mut r = r;
    r.trace.dir = None;
    let mut fac = factory(&hooks, py);
    let ext = fac.as_mut().map(|f| f as &mut dyn ExternalFactory);
    burstlab_core::world::World::with_externals(&r, ext)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(())
}

/// The memory estimate of a scenario (see `burstlab_core::memory`), without checking it
/// against `sim.max_memory`: a dict with `lines` (the text `burstlab validate` prints),
/// `trace_bytes`, `queue_bytes`, `window_bytes` (TCP flights), `total_bytes` (everything
/// the guard compares with `sim.max_memory`), `max_memory`, `streamed`,
/// `traces` (one dict per enabled trace: `setting`, `table`, `rows`, `bytes`,
/// `csv_bytes`) and `windows` (one dict per TCP flow that starts: `flow`, `name`,
/// `segments`, `capped`, `state_bytes`, `queue_bytes`).
#[pyfunction]
#[pyo3(signature = (text, format = "toml"))]
fn memory_estimate(py: Python<'_>, text: &str, format: &str) -> PyResult<Py<PyDict>> {
    let spec = parse(text, format)?;
    let r = spec
        .resolve(None, None)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let est = burstlab_core::memory::estimate(&r);
    let d = PyDict::new(py);
    d.set_item("lines", est.lines())?;
    d.set_item("trace_bytes", est.trace_bytes())?;
    d.set_item("queue_bytes", est.queue_bytes())?;
    d.set_item("window_bytes", est.window_bytes())?;
    d.set_item("total_bytes", est.total_bytes())?;
    d.set_item("max_memory", est.max_memory)?;
    d.set_item("streamed", est.streamed)?;
    let traces = PyList::empty(py);
    for t in &est.traces {
        let x = PyDict::new(py);
        x.set_item("setting", t.setting)?;
        x.set_item("table", t.table)?;
        x.set_item("rows", t.rows)?;
        x.set_item("bytes", t.bytes)?;
        x.set_item("csv_bytes", t.csv_bytes)?;
        traces.append(x)?;
    }
    d.set_item("traces", traces)?;
    let windows = PyList::empty(py);
    for w in &est.windows {
        let x = PyDict::new(py);
        x.set_item("flow", w.flow)?;
        x.set_item("name", &w.name)?;
        x.set_item("segments", w.segments)?;
        x.set_item("capped", w.capped)?;
        x.set_item("state_bytes", w.state_bytes)?;
        x.set_item("queue_bytes", w.queue_bytes)?;
        windows.append(x)?;
    }
    d.set_item("windows", windows)?;
    Ok(d.unbind())
}

/// The event estimate of a scenario (see `burstlab_core::events`), without checking it
/// against `sim.max_events`: a dict with `lines` (the text `burstlab validate` prints),
/// `events`, `max_events`, `duration_s` and `flows` (one dict per flow: `index`,
/// `name`, `packet_events`, `toggles`, `toggle_events`, `burst_events`).
#[pyfunction]
#[pyo3(signature = (text, format = "toml"))]
fn event_estimate(py: Python<'_>, text: &str, format: &str) -> PyResult<Py<PyDict>> {
    let spec = parse(text, format)?;
    let r = spec
        .resolve(None, None)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let est = burstlab_core::events::estimate(&r);
    let d = PyDict::new(py);
    d.set_item("lines", est.lines())?;
    d.set_item("events", est.events)?;
    d.set_item("max_events", est.max_events)?;
    d.set_item("duration_s", est.duration_s)?;
    let flows = PyList::empty(py);
    for f in &est.flows {
        let x = PyDict::new(py);
        x.set_item("index", f.index)?;
        x.set_item("name", &f.name)?;
        x.set_item("packet_events", f.packet_events)?;
        x.set_item("toggles", f.toggles)?;
        x.set_item("toggle_events", f.toggle_events)?;
        x.set_item("burst_events", f.burst_events)?;
        flows.append(x)?;
    }
    d.set_item("flows", flows)?;
    Ok(d.unbind())
}

/// How often a run looks for Ctrl-C (`Python::check_signals`, which takes the GIL for a
/// moment) and how often it reports its progress, in wall-clock time. The core calls the
/// monitor every few thousand events (`burstlab_core::world::monitor`); reading the
/// clock there costs nothing next to those events.
const SIGNAL_EVERY: Duration = Duration::from_millis(100);
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// The monitor of a run from Python: stops the run when a signal handler raises (Ctrl-C:
/// KeyboardInterrupt) or `progress(now_s, end_s, events)` raises, keeping the exception
/// in `failed` for the binding to re-raise.
fn monitor(end_s: f64, progress: Option<Py<PyAny>>, failed: Arc<Mutex<Option<PyErr>>>) -> Monitor {
    let mut last_signal = Instant::now();
    let mut last_progress = last_signal;
    Box::new(move |p| {
        let t = Instant::now();
        if t.duration_since(last_signal) < SIGNAL_EVERY {
            return Verdict::Continue;
        }
        last_signal = t;
        let report = progress.is_some() && t.duration_since(last_progress) >= PROGRESS_EVERY;
        if report {
            last_progress = t;
        }
        let r = Python::attach(|py| -> PyResult<()> {
            py.check_signals()?;
            if let (true, Some(cb)) = (report, &progress) {
                cb.call1(py, (p.now.as_secs_f64(), end_s, p.events))?;
            }
            Ok(())
        });
        match r {
            Ok(()) => Verdict::Continue,
            Err(e) => {
                *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                Verdict::Stop
            }
        }
    })
}

/// Runs a scenario given as TOML or JSON text. Returns a dict with `meta`, one entry per
/// result table of `RunResult::tables` (JSON row lists, or dicts of columns for the
/// traces), `tables` (their names, in order) and `optional_tables`.
///
/// The GIL is released while simulating; every 0.1 s of wall time the run takes it back
/// for a moment to run Python's signal handlers, so Ctrl-C stops it (KeyboardInterrupt)
/// within a fraction of a second. `progress`, if given, is called as
/// `progress(simulated_s, end_s, events)` every 0.25 s; an exception it raises stops the
/// run and is raised here.
///
/// `hooks` (`burstlab.hooks.Factory`) builds the queues' Python assemblers
/// (`type = "python"`); a run with any keeps the GIL (its hooks are called from the
/// simulation's thread), others release it.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", seed = None, replication = None, progress = None, hooks = None))]
fn run(
    py: Python<'_>,
    text: &str,
    format: &str,
    seed: Option<u64>,
    replication: Option<u64>,
    progress: Option<Py<PyAny>>,
    hooks: Option<Py<PyAny>>,
) -> PyResult<Py<PyDict>> {
    let spec = parse(text, format)?;
    let failed: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let slot = failed.clone();
    if hooks.is_some() {
        let r = spec
            .resolve(seed, replication)
            .and_then(|r| burstlab_core::preflight(&r).map(|_| r))
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        if has_python(&r) {
            return run_with_hooks(py, &r, progress, hooks, failed);
        }
    }
    let outcome: Result<Result<RunResult, String>, String> = py.detach(move || {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            spec.resolve(seed, replication)
                .and_then(|r| burstlab_core::preflight(&r).map(|_| r))
                .map_err(|e| e.to_string())
                .map(|r| {
                    burstlab_core::world::World::new(&r)
                        .and_then(|mut s| {
                            s.set_monitor(monitor(r.duration.as_secs_f64(), progress, slot));
                            s.try_run()
                        })
                        .map_err(|e| e.to_string())
                })
        }))
        .map_err(|p| {
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into())
        })
        .map(|r| r.and_then(|x| x))
    });
    if let Some(e) = failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e); // Ctrl-C or the progress callback stopped the run
    }
    let res = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(msg)) => return Err(ScenarioError::new_err(msg)),
        Err(msg) => {
            return Err(SimulationError::new_err(format!(
                "internal simulator error: {msg}"
            )))
        }
    };
    to_py(py, res)
}

/// [`run`] of a scenario with Python assemblers: the GIL held throughout (the hooks
/// take it at every call otherwise).
fn run_with_hooks(
    py: Python<'_>,
    r: &Resolved,
    progress: Option<Py<PyAny>>,
    hooks: Option<Py<PyAny>>,
    failed: Arc<Mutex<Option<PyErr>>>,
) -> PyResult<Py<PyDict>> {
    let mut fac = factory(&hooks, py);
    let ext = fac.as_mut().map(|f| f as &mut dyn ExternalFactory);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        burstlab_core::world::World::with_externals(r, ext).and_then(|mut s| {
            s.set_monitor(monitor(r.duration.as_secs_f64(), progress, failed.clone()));
            s.try_run()
        })
    }));
    if let Some(e) = failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e); // Ctrl-C or the progress callback stopped the run
    }
    match outcome {
        Ok(Ok(res)) => to_py(py, res),
        Ok(Err(e)) => Err(ScenarioError::new_err(e.to_string())),
        Err(p) => Err(SimulationError::new_err(format!(
            "internal simulator error: {}",
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into())
        ))),
    }
}

fn to_py(py: Python<'_>, r: RunResult) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    let meta = PyDict::new(py);
    meta.set_item("scenario", &r.scenario)?;
    meta.set_item("seed", r.seed)?;
    meta.set_item("replication", r.replication)?;
    meta.set_item("version", &r.version)?;
    meta.set_item("duration_s", r.duration_s)?;
    meta.set_item("warmup_s", r.warmup_s)?;
    meta.set_item("events", r.events)?;
    d.set_item("meta", meta)?;
    // The tables, generically: `RunResult::tables` is their one list.
    let names = PyList::empty(py);
    let optional = PyList::empty(py);
    for t in r.tables() {
        names.append(t.name)?;
        if t.optional {
            optional.append(t.name)?;
        }
        match t.data {
            TableData::Rows(json) => d.set_item(t.name, json)?,
            TableData::Columns(cols) => {
                let c = PyDict::new(py);
                for (name, column) in cols {
                    match column {
                        Column::F64(v) => c.set_item(name, v)?,
                        Column::U64(v) => c.set_item(name, v)?,
                        Column::I64(v) => c.set_item(name, v)?,
                        Column::Bool(v) => c.set_item(name, v)?,
                        Column::Str(v) => c.set_item(name, v)?,
                    }
                }
                d.set_item(t.name, c)?;
            }
        }
    }
    // Traces streamed to files (`sim.trace.dir`): table name -> (path, rows).
    let streamed = PyDict::new(py);
    for t in &r.streamed {
        streamed.set_item(t.table, (t.path.to_string_lossy().into_owned(), t.rows))?;
    }
    d.set_item("streamed", streamed)?;
    d.set_item("tables", names)?;
    d.set_item("optional_tables", optional)?;
    Ok(d.unbind())
}

/// The resolved scenario as JSON: every default applied and every route computed (the
/// fields of `burstlab_core::scenario::ScenarioView`, documented in `scenario/view.rs`),
/// for the exporters. Raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, format = "toml"))]
fn resolve_scenario(text: &str, format: &str) -> PyResult<String> {
    let r = parse(text, format)?
        .resolve(None, None)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    serde_json::to_string(&r.view()).map_err(|e| SimulationError::new_err(e.to_string()))
}

/// The route table of a scenario without running it (`burstlab.routes`): the rows of
/// the `routes` result table (`burstlab_core::world::route_table`) as a JSON list.
/// Raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", seed = None, replication = None))]
fn routes(
    text: &str,
    format: &str,
    seed: Option<u64>,
    replication: Option<u64>,
) -> PyResult<String> {
    let spec = parse(text, format)?;
    let r = spec
        .resolve(seed, replication)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let rows = burstlab_core::world::route_table::rows(&r);
    serde_json::to_string(&rows).map_err(|e| SimulationError::new_err(e.to_string()))
}

/// The scenario schema as JSON: every key the parser accepts (path, kind, Rust type,
/// enum values, aliases) and the TCP defaults of each profile (`burstlab_core::schema`).
#[pyfunction]
fn scenario_schema() -> String {
    burstlab_core::schema::schema_json()
}

/// `{release: {ns-2 setting: value}}`: the `Agent/TCP` settings of each
/// `flow.ns2_version` preset that differ from ns-2.35's (`Ns2Version::tcl_overrides`,
/// the table the core applies), for `burstlab export ns2`.
#[pyfunction]
fn ns2_presets(py: Python<'_>) -> PyResult<Py<PyDict>> {
    use burstlab_core::tcp::Ns2Version;
    let out = PyDict::new(py);
    for v in Ns2Version::ALL {
        let d = PyDict::new(py);
        for &(name, value) in v.tcl_overrides() {
            d.set_item(name, value)?;
        }
        out.set_item(v.name(), d)?;
    }
    Ok(out.unbind())
}

// ---------------------------------------------------------------------------------------
// Units: the quantities of a scenario field, parsed by the core (`burstlab_core::units`
// through the deserialisers of `burstlab_core::scenario::{Dur, Rate, Size}`), so that
// `burstlab.units` accepts exactly what a scenario accepts, with the same value.

/// A unit string or a number, as a scenario field holds it.
#[derive(FromPyObject)]
enum Quantity {
    Text(String),
    Number(f64),
}

fn quantity<T: for<'de> serde::Deserialize<'de>>(q: Quantity) -> PyResult<T> {
    use serde::de::value::Error;
    use serde::de::IntoDeserializer;
    let r = match q {
        Quantity::Text(s) => T::deserialize(IntoDeserializer::<Error>::into_deserializer(s)),
        Quantity::Number(x) => T::deserialize(IntoDeserializer::<Error>::into_deserializer(x)),
    };
    r.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A duration (`sim.duration`, a link's `delay`, …) in integer picoseconds: `"250us"` →
/// 250 000 000; a number is seconds. Raises ValueError with the core's message.
#[pyfunction]
fn parse_duration(value: Quantity) -> PyResult<u64> {
    quantity::<burstlab_core::scenario::Dur>(value).map(|d| d.0.ps())
}

/// A rate (a link's `rate`, …) in integer bits per second: `"125MB/s"` → 10^9; a number
/// is bits per second. Raises ValueError with the core's message.
#[pyfunction]
fn parse_rate(value: Quantity) -> PyResult<u64> {
    quantity::<burstlab_core::scenario::Rate>(value).map(|r| r.0.bps())
}

/// A size (`mss`, `queue_bytes`, …) in integer bytes: `"64KiB"` → 65 536; a number is
/// bytes. Raises ValueError with the core's message.
#[pyfunction]
fn parse_size(value: Quantity) -> PyResult<u64> {
    quantity::<burstlab_core::scenario::Size>(value).map(|s| s.0)
}

fn add_units(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    Ok(())
}

/// The core's identity (`burstlab_core::CORE_IDENTITY`: 16 hex digits hashing the core's
/// source and locked dependencies), part of every sweep-store key.
#[pyfunction]
fn core_identity() -> &'static str {
    burstlab_core::CORE_IDENTITY
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", burstlab_core::VERSION)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_class::<hooks::HookView>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(memory_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(event_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(ns2_presets, m)?)?;
    add_units(m)?;
    m.add_function(wrap_pyfunction!(core_identity, m)?)?;
    m.add_function(wrap_pyfunction!(routes, m)?)?;
    Ok(())
}
