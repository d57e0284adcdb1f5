//! The declarative scenario: what a user writes (TOML, or JSON / a Python dict), parsed
//! with serde and validated here — the one source of truth for the schema.
//!
//! Every error names the field it is about, e.g. `link[2].rate: a rate must be positive`.
//! Parsing goes through `serde_path_to_error` so that type errors carry their path too.
//!
//! Quantities accept readable strings: durations `"10ms"`, rates `"10Gb/s"` / `"125MB/s"`,
//! sizes `"1000B"`; bare numbers mean seconds, bits per second and bytes respectively.
//!
//! Layout, in layers (a file uses only the files above it; every public name is
//! re-exported here, so users write `crate::scenario::Name` whatever file it is in):
//! - `error.rs`: [`ScenarioError`];
//! - `quantity.rs`: [`Dur`], [`Rate`], [`Size`], [`Count`], the values with units;
//! - `spec.rs`: the file format, serde structs with a doc comment per key (the scenario
//!   reference is generated from them), and [`ScenarioSpec::from_toml_str`] /
//!   [`ScenarioSpec::from_json_str`];
//! - `resolved.rs`: what validation produces ([`Resolved`]), the simulator's input;
//! - `routing.rs`: node names, the network's adjacency, routes ([`Router`]);
//!   `ksp.rs`: least-cost and k shortest paths ([`Graph`]); `route_plan.rs`: each
//!   flow's route under `[routing]` and its own `routing`;
//! - `tcp.rs`: a TCP flow's settings; `contention.rs`: `[obs.contention]`; `obs.rs`:
//!   assembly policies, the nodes' fabrics, fibres and `[obs]`; `flows.rs`: the flows;
//!   `workload.rs`: the `[[workload]]` tables (flows generated during the run);
//! - `resolve.rs`: [`ScenarioSpec::resolve`], one resolver per section called in a
//!   fixed order (the first error found is the one reported);
//! - `view.rs`: [`Resolved::view`], the resolved scenario as plain serialisable data
//!   ([`ScenarioView`]) for the exporters and Python.
//!
//! A new key goes into its struct in `spec.rs`, its check into the resolver of its
//! section, its resolved value into `resolved.rs`.

mod contention;
mod error;
mod flows;
mod ksp;
mod obs;
mod quantity;
mod resolve;
mod resolved;
mod route_plan;
mod routing;
mod spec;
mod tcp;
mod view;
mod workload;

pub use error::ScenarioError;
pub use ksp::{Cost, Graph};
pub use quantity::{
    Count, Dur, MatrixSpec, PerSec, Rate, Size, SizeDistKind, SizeDistSpec, SizeSpec,
};
pub use resolved::{
    Resolved, ResolvedClass, ResolvedContention, ResolvedFabric, ResolvedFibre, ResolvedFlow,
    ResolvedFlowKind, ResolvedIngress, ResolvedLink, ResolvedObs, ResolvedWorkload, RouteChoice,
    WorkloadPair,
};
pub use route_plan::MAX_K;
pub use routing::{shortest_route, Router};
pub use spec::{
    AckMode, ArrivalKind, AssemblySpec, AssemblyType, ClassSpec, Classifier, ContentionSpec,
    ControlSpec, ConverterScope, DeflectionSpec, DropBurstSpec, FabricSpec, FdlCapacity, FibreSpec,
    FlowSpec, FlowType, IngressSpec, LinkSpec, LossAppliesTo, LossScope, LossSpec, NodeKind,
    NodeSpec, ObsSpec, Preemption, RetransmitSpec, RouteMetric, RoutePolicy, RoutingSpec,
    ScenarioSpec, SchedulerName, Segmentation, Signalling, SimSpec, TraceSpec, WindowName,
    WorkloadSpec, DEFAULT_MAX_EVENTS, DEFAULT_MAX_MEMORY, MAX_PKTS_PER_SEC, MIN_MAX_EVENTS,
};
pub use view::{
    assembly_view, AssemblyView, ClassView, ContentionView, DeflectionView, DropBurstView,
    FabricView, FibreView, FlowView, IngressView, LinkView, NodeView, ObsView, RetransmitView,
    ScenarioView, SegmentView, TcpView,
};
