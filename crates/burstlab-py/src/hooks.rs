//! Python assemblers (`type = "python"`): the core's `ExternalFactory` and
//! `ExternalAssembler` (`crates/burstlab-core/src/obs/external.rs`) over Python objects.
//!
//! The Python side (`python/burstlab/hooks.py`) imports and instantiates the object;
//! here are only the calls and the conversions: one reused [`HookView`] per queue
//! (updated in place, so a call allocates no Python object besides the integers), and
//! the answer (`None` or `(release, wake)`) checked into a `HookDecision`. A Python
//! exception becomes the hook's error with the user's traceback.

use burstlab_core::obs::{
    CallFilter, ExternalAssembler, ExternalFactory, ExternalSpec, HookDecision, PktKind, PktMeta,
    QueueInfo, QueueState, Wake,
};
use burstlab_core::units::SimTime;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyTuple};

/// What a Python assembler may read at a call (read-only; the same object for every
/// call of a queue, so keep values, not the view). Times in integer picoseconds.
#[pyclass(module = "burstlab._core")]
pub struct HookView {
    /// Simulated time now (ps).
    #[pyo3(get)]
    now: u64,
    /// `on_packet`: the packet's size on the wire (bytes); 0 in `on_timer`.
    #[pyo3(get)]
    size: u32,
    /// `on_packet`: the packet's flow index (`[[flow]]` order); 0 in `on_timer`.
    #[pyo3(get)]
    flow: u32,
    /// `on_packet`: `"data"`, `"ack"` or `"udp"`; `""` in `on_timer`.
    #[pyo3(get)]
    kind: &'static str,
    /// `on_packet`: data sequence number or cumulative ACK (segments); 0 otherwise.
    #[pyo3(get)]
    seq: u64,
    /// `on_packet`: the sender's mark, this data segment fills its window (ozsarac §2.1).
    #[pyo3(get)]
    mark: bool,
    /// Packets queued (including the one that just joined).
    #[pyo3(get)]
    queue_pkts: u32,
    /// Bytes queued.
    #[pyo3(get)]
    queue_bytes: u64,
    /// Arrival time of the oldest queued packet (ps; `now` when the queue is empty).
    #[pyo3(get)]
    oldest: u64,
}

#[pymethods]
impl HookView {
    fn __repr__(&self) -> String {
        format!(
            "HookView(now={}, size={}, flow={}, kind={:?}, seq={}, mark={}, queue_pkts={}, queue_bytes={}, oldest={})",
            self.now, self.size, self.flow, self.kind, self.seq, self.mark, self.queue_pkts,
            self.queue_bytes, self.oldest
        )
    }
}

/// Builds each queue's assembler through `factory.make(object, params_json, info)`
/// (`burstlab.hooks.Factory`).
pub struct PyFactory {
    pub factory: Py<PyAny>,
}

impl ExternalFactory for PyFactory {
    fn make(
        &mut self,
        spec: &ExternalSpec,
        q: &QueueInfo<'_>,
    ) -> Result<Box<dyn ExternalAssembler>, String> {
        Python::attach(|py| {
            let info = PyDict::new(py);
            let set = |k: &str, v: Bound<'_, PyAny>| info.set_item(k, v);
            let r: PyResult<()> = (|| {
                set("queue", q.queue.into_pyobject(py)?.into_any())?;
                set("edge", q.edge.into_pyobject(py)?.into_any())?;
                set("edge_name", q.edge_name.into_pyobject(py)?.into_any())?;
                set("egress_name", q.egress_name.into_pyobject(py)?.into_any())?;
                set("key", q.key.into_pyobject(py)?.into_any())?;
                set(
                    "max_pkts_per_burst",
                    q.max_pkts_per_burst.into_pyobject(py)?.into_any(),
                )?;
                set("seed", q.seed.into_pyobject(py)?.into_any())?;
                set("path", spec.path.as_str().into_pyobject(py)?.into_any())?;
                Ok(())
            })();
            r.map_err(|e| e.to_string())?;
            let made = self
                .factory
                .call_method1(py, "make", (&spec.object, &spec.params_json, info))
                .map_err(|e| {
                    // The factory's own checks read as they are; anything else
                    // raised while importing or building shows its traceback.
                    if e.is_instance_of::<crate::ScenarioError>(py) {
                        e.value(py).to_string()
                    } else {
                        described(py, &e)
                    }
                })?;
            // `(object, (first_packet, max_bytes, max_pkts))`, checked by
            // `burstlab.hooks.calls_of`.
            let (obj, (first_packet, max_bytes, max_pkts)): (
                Py<PyAny>,
                (bool, Option<u64>, Option<u32>),
            ) = made.extract(py).map_err(|e: PyErr| e.to_string())?;
            let filter = CallFilter {
                first_packet,
                max_bytes,
                max_pkts,
            };
            let on_packet = obj.getattr(py, "on_packet").map_err(|e| e.to_string())?;
            let on_timer = obj.getattr(py, "on_timer").map_err(|e| e.to_string())?;
            let view = Py::new(
                py,
                HookView {
                    now: 0,
                    size: 0,
                    flow: 0,
                    kind: "",
                    seq: 0,
                    mark: false,
                    queue_pkts: 0,
                    queue_bytes: 0,
                    oldest: 0,
                },
            )
            .map_err(|e| e.to_string())?;
            Ok(Box::new(PyAssembler {
                on_packet,
                on_timer,
                view,
                filter,
            }) as Box<dyn ExternalAssembler>)
        })
    }
}

/// One queue's Python assembler: its bound methods, its view and which packets its
/// `on_packet` needs (its `calls` declaration).
struct PyAssembler {
    on_packet: Py<PyAny>,
    on_timer: Py<PyAny>,
    view: Py<HookView>,
    filter: CallFilter,
}

impl PyAssembler {
    fn call(
        &self,
        now: SimTime,
        pkt: Option<&PktMeta>,
        q: QueueState,
    ) -> Result<HookDecision, String> {
        Python::attach(|py| {
            {
                let mut v = self.view.bind(py).borrow_mut();
                v.now = now.ps();
                v.queue_pkts = q.pkts;
                v.queue_bytes = q.bytes;
                v.oldest = q.oldest_arrival.ps();
                match pkt {
                    Some(p) => {
                        v.size = p.bytes;
                        v.flow = p.flow;
                        v.kind = match p.kind {
                            PktKind::Data => "data",
                            PktKind::Ack => "ack",
                            PktKind::Udp => "udp",
                        };
                        v.seq = p.seq;
                        v.mark = p.mark;
                    }
                    None => {
                        (v.size, v.flow, v.kind, v.seq, v.mark) = (0, 0, "", 0, false);
                    }
                }
            }
            let f = if pkt.is_some() {
                &self.on_packet
            } else {
                &self.on_timer
            };
            let r = f
                .call1(py, (self.view.clone_ref(py),))
                .map_err(|e| described(py, &e))?;
            decision(r.bind(py))
        })
    }
}

impl ExternalAssembler for PyAssembler {
    fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &PktMeta,
        q: QueueState,
    ) -> Result<HookDecision, String> {
        self.call(now, Some(pkt), q)
    }
    fn on_timer(&mut self, now: SimTime, q: QueueState) -> Result<HookDecision, String> {
        self.call(now, None, q)
    }
    fn calls(&self) -> CallFilter {
        self.filter
    }
}

/// A Python exception as text: the user's traceback (`traceback.format_exception`).
fn described(py: Python<'_>, e: &PyErr) -> String {
    let tb = (|| -> PyResult<String> {
        let lines = py.import("traceback")?.call_method1(
            "format_exception",
            (e.get_type(py), e.value(py), e.traceback(py)),
        )?;
        Ok(lines.extract::<Vec<String>>()?.concat())
    })();
    match tb {
        Ok(t) => format!("raised\n{}", t.trim_end()),
        Err(_) => format!("raised {e}"),
    }
}

/// An integer (not a bool, not a float) as `u64`, or why not.
fn int_of(x: &Bound<'_, PyAny>, what: &str) -> Result<u64, String> {
    if x.is_instance_of::<PyInt>() && !x.is_instance_of::<pyo3::types::PyBool>() {
        return x
            .extract::<u64>()
            .map_err(|_| format!("{what} must be a non-negative integer, got {x}"));
    }
    Err(format!(
        "{what} must be an integer, got {} {}",
        x.get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |n| n.to_string()),
        x.repr().map_or_else(|_| "?".to_string(), |r| r.to_string())
    ))
}

/// One burst of `release`: `k` or `(k, pad_bytes)`.
fn burst(x: &Bound<'_, PyAny>) -> Result<(u64, u64), String> {
    if let Ok(t) = x.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(format!(
                "a burst is k or (k, pad_bytes), got a tuple of {}",
                t.len()
            ));
        }
        let k = int_of(&t.get_item(0).map_err(|e| e.to_string())?, "k")?;
        let pad = int_of(&t.get_item(1).map_err(|e| e.to_string())?, "pad_bytes")?;
        return Ok((k, pad));
    }
    Ok((int_of(x, "release")?, 0))
}

/// The answer of a hook: `None` (nothing; a pending wake-up stays) or `(release, wake)`
/// with `release` an int (0: no burst), `(k, pad_bytes)` or a list of up to two of
/// those, and `wake` an int time in ps or `None` (no wake-up).
fn decision(r: &Bound<'_, PyAny>) -> Result<HookDecision, String> {
    if r.is_none() {
        return Ok(HookDecision::NOTHING);
    }
    let Ok(t) = r.cast::<PyTuple>() else {
        return Err(format!(
            "returned {} {}; a hook returns None or a tuple (release, wake)",
            r.get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string()),
            r.repr().map_or_else(|_| "?".to_string(), |x| x.to_string())
        ));
    };
    if t.len() != 2 {
        return Err(format!(
            "returned a tuple of {} items; a hook returns None or (release, wake)",
            t.len()
        ));
    }
    let (rel, wake) = (t.get_item(0).unwrap(), t.get_item(1).unwrap());
    let mut d = HookDecision::NOTHING;
    let mut n = 0;
    let mut push = |b: &Bound<'_, PyAny>| -> Result<(), String> {
        let (k, pad) = burst(b)?;
        if k == 0 && pad == 0 {
            return Ok(()); // "no burst"
        }
        let k = u32::try_from(k).map_err(|_| format!("release {k} is too large"))?;
        if k == 0 {
            return Err("a padded burst must release at least one packet".into());
        }
        d.release[n] = Some((k, pad));
        n += 1;
        Ok(())
    };
    if let Ok(l) = rel.cast::<PyList>() {
        if l.len() > 2 {
            return Err(format!(
                "release lists {} bursts; at most 2 per call",
                l.len()
            ));
        }
        for b in l.iter() {
            push(&b)?;
        }
    } else {
        push(&rel)?;
    }
    d.wake = if wake.is_none() {
        Wake::Off
    } else {
        Wake::At(SimTime(int_of(&wake, "wake (ps)")?))
    };
    Ok(d)
}
