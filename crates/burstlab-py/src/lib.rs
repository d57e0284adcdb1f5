//! PyO3 glue for burstlab-core: conversions and error mapping only.
//!
//! Each core error maps to its own Python exception; panics are caught and surfaced as
//! `SimulationError` so nothing panics across the boundary. The GIL is released while
//! simulating.

use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::stats::RunResult;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

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

/// Validates a scenario without running it. Raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, format = "toml"))]
fn validate(text: &str, format: &str) -> PyResult<()> {
    let spec = parse(text, format)?;
    let r = spec
        .resolve(None, None)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    // Wiring checks (paths through fabrics) run when the world is built.
    burstlab_core::world::World::new(&r).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(())
}

/// Runs a scenario given as TOML or JSON text. Returns a dict with `meta`, `flows`,
/// `links`, `bursts`, `obs_links`, `obs_flows`, `burst_hist` (JSON row lists) and
/// `cwnd_trace`, `packet_trace`, `burst_trace` (columns).
#[pyfunction]
#[pyo3(signature = (text, format = "toml", seed = None, replication = None))]
fn run(
    py: Python<'_>,
    text: &str,
    format: &str,
    seed: Option<u64>,
    replication: Option<u64>,
) -> PyResult<Py<PyDict>> {
    let spec = parse(text, format)?;
    let outcome: Result<Result<RunResult, String>, String> = py.detach(|| {
        std::panic::catch_unwind(|| {
            spec.resolve(seed, replication)
                .map_err(|e| e.to_string())
                .map(|r| {
                    burstlab_core::world::World::new(&r)
                        .map_err(|e| e.to_string())
                        .map(|s| s.run())
                })
        })
        .map_err(|p| {
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into())
        })
        .map(|r| r.and_then(|x| x))
    });
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
    let js = |v: &dyn erased::Ser| v.json();
    d.set_item("flows", js(&r.flows))?;
    d.set_item("links", js(&r.links))?;
    let c = PyDict::new(py);
    c.set_item(
        "time_s",
        r.cwnd_trace
            .iter()
            .map(|s| s.time.as_secs_f64())
            .collect::<Vec<_>>(),
    )?;
    c.set_item(
        "flow",
        r.cwnd_trace.iter().map(|s| s.flow).collect::<Vec<_>>(),
    )?;
    c.set_item(
        "cwnd_segments",
        r.cwnd_trace.iter().map(|s| s.cwnd).collect::<Vec<_>>(),
    )?;
    c.set_item(
        "ssthresh_segments",
        r.cwnd_trace.iter().map(|s| s.ssthresh).collect::<Vec<_>>(),
    )?;
    d.set_item("cwnd_trace", c)?;
    let p = PyDict::new(py);
    p.set_item(
        "time_s",
        r.packet_trace
            .iter()
            .map(|s| s.time.as_secs_f64())
            .collect::<Vec<_>>(),
    )?;
    p.set_item(
        "flow",
        r.packet_trace.iter().map(|s| s.flow).collect::<Vec<_>>(),
    )?;
    p.set_item(
        "seq",
        r.packet_trace.iter().map(|s| s.seq).collect::<Vec<_>>(),
    )?;
    p.set_item(
        "event",
        r.packet_trace
            .iter()
            .map(|s| s.event.name())
            .collect::<Vec<_>>(),
    )?;
    p.set_item(
        "retransmit",
        r.packet_trace
            .iter()
            .map(|s| s.retransmit)
            .collect::<Vec<_>>(),
    )?;
    d.set_item("packet_trace", p)?;
    d.set_item("bursts", js(&r.bursts))?;
    d.set_item("obs_links", js(&r.obs_links))?;
    d.set_item("obs_flows", js(&r.obs_flows))?;
    d.set_item("burst_hist", js(&r.burst_hist))?;
    d.set_item("cwnd_estimates", js(&r.cwnd_estimates))?;
    let b = PyDict::new(py);
    let t = &r.burst_trace;
    b.set_item(
        "time_s",
        t.iter().map(|s| s.time.as_secs_f64()).collect::<Vec<_>>(),
    )?;
    b.set_item("queue", t.iter().map(|s| s.queue).collect::<Vec<_>>())?;
    b.set_item("burst", t.iter().map(|s| s.burst).collect::<Vec<_>>())?;
    b.set_item(
        "event",
        t.iter().map(|s| s.event.name()).collect::<Vec<_>>(),
    )?;
    b.set_item("pkts", t.iter().map(|s| s.pkts).collect::<Vec<_>>())?;
    b.set_item("bytes", t.iter().map(|s| s.bytes).collect::<Vec<_>>())?;
    b.set_item(
        "reason",
        t.iter()
            .map(|s| s.reason.map_or("", |x| x.name()))
            .collect::<Vec<_>>(),
    )?;
    b.set_item(
        "fibre",
        t.iter()
            .map(|s| s.fibre.map_or(-1, |f| f as i64))
            .collect::<Vec<_>>(),
    )?;
    d.set_item("burst_trace", b)?;
    Ok(d.unbind())
}

mod erased {
    pub trait Ser {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_else(|_| "[]".into())
        }
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", burstlab_core::VERSION)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    Ok(())
}
