"""Generated pages of the documentation site: the scenario reference and the CLI reference.

Read first: :func:`scenario_keys` and :func:`scenario_reference`. Nothing here is kept by
hand. The keys, their kinds, enum values and aliases come from the Rust parser itself
(``burstlab._core.scenario_schema()``, built by ``crates/burstlab-core/src/schema.rs``),
each key's description, Rust type and serde default from its field in
``crates/burstlab-core/src/scenario/spec.rs``, the TCP defaults from the core's profiles,
and the error for a bad value by giving the validator that value and printing what it says.
The CLI reference is each parser's ``--help``; the output reference lists the columns of
every result table as runs write them (:func:`output_tables`), with units from the
column names and descriptions from the row structs of ``crates/burstlab-core/src/stats.rs``.

As a Sphinx extension it replaces the marker ``<!-- generated -->`` in
``reference/scenario.md``, ``reference/outputs.md`` and ``reference/cli.md`` when Sphinx
reads them.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = ROOT / "crates" / "burstlab-core" / "src" / "scenario"
TCP_RS = ROOT / "crates" / "burstlab-core" / "src" / "tcp" / "mod.rs"
MARKER = "<!-- generated -->"

# ---------------------------------------------------------------------------------------
# The schema.


@dataclass
class Field:
    """One field of a struct in scenario/: its serde name, Rust type, docs, default."""

    name: str
    rust_type: str
    doc: str
    serde_default: str | None  # None: required; "": `#[serde(default)]`; else the fn


@dataclass
class Key:
    path: str  # the TOML form, e.g. "flow[].mss"
    rust_path: str  # the schema's form, e.g. "flows[].mss"
    kind: str
    struct: str  # the struct holding it, e.g. "FlowSpec"
    rust_type: str = ""
    values: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    doc: str = ""
    default: str = ""
    unit: str = ""
    error: str = ""


def _schema() -> dict[str, Any]:
    from burstlab import _core

    return json.loads(_core.scenario_schema())


def _parse_structs(text: str) -> dict[str, dict[str, Field]]:
    """The fields of every `pub struct` in scenario/, with their doc comments.

    A struct marked `#[serde(default, ...)]` gives every field without its own
    `default` attribute the container's default."""
    structs: dict[str, dict[str, Field]] = {}
    for m in re.finditer(r"((?:#\[[^\n]*\]\n)*)pub struct (\w+) \{\n(.*?)\n\}", text, re.S):
        container_default = re.search(r"#\[serde\([^]]*\bdefault\b", m.group(1)) is not None
        fields: dict[str, Field] = {}
        doc: list[str] = []
        attrs: list[str] = []
        for line in m.group(3).splitlines():
            s = line.strip()
            if s.startswith("///"):
                doc.append(s[3:].strip())
            elif s.startswith("#["):
                attrs.append(s)
            elif s.startswith("pub "):
                fm = re.match(r"pub (\w+): (.+),$", s)
                if fm:
                    name, ty = fm.group(1), fm.group(2)
                    attr = " ".join(attrs)
                    rename = re.search(r'rename = "(\w+)"', attr)
                    dflt: str | None = None
                    dm = re.search(r'default = "(\w+)"', attr)
                    if dm:
                        dflt = dm.group(1)
                    elif re.search(r"\bdefault\b", attr) or container_default:
                        dflt = ""
                    serde_name = rename.group(1) if rename else name
                    fields[serde_name] = Field(serde_name, ty, " ".join(doc), dflt)
                doc, attrs = [], []
            elif not s.startswith("//"):
                doc, attrs = [], []
        structs[m.group(2)] = fields
    return structs


def _default_fns(text: str) -> dict[str, str]:
    """`fn default_x() -> T { value }` of scenario/: name → value as written."""
    out = {}
    for m in re.finditer(r"fn (default_\w+)\(\) -> \w+ \{\s*(.*?)\s*\}", text, re.S):
        v = m.group(2)
        v = v.split("::")[-1].lower() if "::" in v else v
        out[m.group(1)] = v
    return out


def _enum_defaults(text: str) -> dict[str, str]:
    """Enums deriving `Default`: name → the serde name of their `#[default]` variant."""
    out = {}
    for m in re.finditer(r"#\[serde\(rename_all = \"(\w+)\"\)\]\npub enum (\w+) \{(.*?)\n\}", text, re.S):
        style, name, body = m.groups()
        d = re.search(r"#\[default\]\s*(\w+)", body)
        if d:
            v = d.group(1)
            v = re.sub(r"(?<!^)([A-Z])", r"_\1", v).lower() if style == "snake_case" else v.lower()
            out[name] = v
    return out


UNITS = {
    "Dur": 'duration: seconds, or a string with a unit ("10ms", "250us")',
    "Rate": 'rate: bit/s, or a string with a unit ("10Gb/s", "125MB/s"; B = byte)',
    "Size": 'size: bytes, or a string with a unit ("1000B", "64KiB")',
}

# A list's type in words, by its element's Rust type (a struct: a list of tables).
LIST_OF = {
    "String": "list of strings (node names)",
    "u32": "list of integers",
    "u64": "list of integers",
    "[u64; 2]": "list of [first, last] pairs",
    "Dur": "list of durations (each: seconds, or a string with a unit)",
    "Rate": "list of rates (each: bit/s, or a string with a unit)",
    "Size": "list of sizes (each: bytes, or a string with a unit)",
    "f64": "list of numbers",
}

# Keys whose value names something else in the scenario: a bad value is a name that does
# not exist (every other string key gets a number, a type error).
NAME_REFS = {"src", "dst", "a", "b", "fabric_a", "fabric_b", "edge", "fabric"}


def _toml_path(rust_path: str, aliases: dict[str, str]) -> str:
    """`flows[].mss` → `flow[].mss`: each table under the name TOML files use."""
    parts = []
    prefix = ""
    for seg in rust_path.split("."):
        prefix = f"{prefix}.{seg}" if prefix else seg
        base = seg.removesuffix("[]").removesuffix("[]")
        nb = seg[len(base):]
        parts.append(aliases.get(prefix.removesuffix(nb), base) + nb)
    return ".".join(parts)


def stated_default(doc: str) -> str | None:
    """The default a key's description states — "(default 5 us)", "(default: the node's
    first)", "…; default 0)", "Default `hops`." — or that it has none because it is
    required ("required for `timer`", "give it or `delay`"); None if it says neither."""
    m = (re.search(r"[(;,]\s*default:?\s+([^;()]+(?:\([^)]*\)[^;()]*)*)[;)]", doc)
         or re.search(r"(?:^|\.\s+)Default:?\s+(.+?)\.(?:\s|$)", doc))
    if m:
        return m.group(1).strip()
    # No default: the key is required in some setting, or one of two keys is.
    m = re.search(r"\brequired (for|with) ([^;.]+)", doc)
    if m:
        return f"none: required {m.group(1)} {m.group(2).strip()}"
    m = re.search(r"give (?:it|either `\w+`) or `(\w+)`", doc)
    if m:
        return f"none: give it or `{m.group(1)}`"
    return None


def scenario_keys() -> list[Key]:
    """Every key of the scenario schema, described from the code."""
    schema = _schema()
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SCENARIO_DIR.glob("*.rs")))
    structs = _parse_structs(text)
    # A TCP key without a doc comment of its own is described by its `TcpConfig` field.
    tcp_docs = _parse_structs(TCP_RS.read_text(encoding="utf-8")).get("TcpConfig", {})
    fns = _default_fns(text)
    enum_defaults = _enum_defaults(text)
    tcp = schema["tcp_defaults"]
    # The singular alias of a list of tables is what TOML files write (`[[flow]]`).
    singular = {}
    for k in schema["keys"]:
        names = [a for a in k["aliases"] if not k["path"].endswith(a)]
        short = [a for a in names if k["path"].rsplit(".", 1)[-1].startswith(a)]
        if short:
            singular[k["path"]] = min(short, key=len)
    parent_struct: dict[str, str] = {"": "ScenarioSpec"}
    keys = []
    for k in schema["keys"]:
        path = k["path"]
        if k["kind"] == "table" and k["rust_type"]:
            parent_struct[path] = k["rust_type"]
        parent, _, name = path.rpartition(".")
        if name.endswith("[]"):
            continue  # the element of a list: described by the list's key
        struct = parent_struct.get(parent, "")
        f = structs.get(struct, {}).get(name)
        key = Key(
            path=_toml_path(path, singular),
            rust_path=path,
            kind=k["kind"],
            struct=struct,
            rust_type=f.rust_type if f else "",
            values=k["values"],
            aliases=k["aliases"],
            doc=f.doc if f else "",
        )
        if not key.doc and struct in ("FlowSpec", "WorkloadSpec") and name in tcp_docs:
            key.doc = tcp_docs[name].doc
        # The other names of this key: serde's aliases and the Rust field name.
        shown = key.path.rsplit(".", 1)[-1]
        key.aliases = sorted(({name, *k["aliases"]}) - {shown})
        inner = key.rust_type.removeprefix("Option<").removesuffix(">")
        key.unit = UNITS.get(inner, "")
        if f is None or f.serde_default is None:
            key.default = "required"
        elif f.serde_default:
            key.default = fns.get(f.serde_default, f.serde_default)
        elif struct in ("FlowSpec", "WorkloadSpec") and name in tcp["ns2"]:
            a, b = tcp["ns2"][name], tcp["rfc"][name]
            key.default = f"{a} (ns2), {b} (rfc)" if a != b else a
        elif key.rust_type == "bool":
            key.default = "false"
        elif key.rust_type in ("f64", "f32", "u8", "u16", "u32", "u64"):
            key.default = "0"
        elif key.rust_type in enum_defaults:
            key.default = enum_defaults[key.rust_type]
        elif (stated := stated_default(key.doc)) is not None:
            key.default = stated
        elif inner in enum_defaults:  # an Option of an enum: None takes its default
            key.default = enum_defaults[inner]
        elif key.rust_type.startswith("Vec<"):
            key.default = "none"
        elif key.rust_type == "TraceSpec":
            key.default = "no traces"
        else:
            key.default = "unset"
        keys.append(key)
    _probe_errors(keys)
    return keys


# ---------------------------------------------------------------------------------------
# The error for a bad value: asked of the validator.

def _base_packet() -> dict[str, Any]:
    return {
        "name": "probe",
        "sim": {"duration": 1.0},
        "node": [{"name": "s", "kind": "host"}, {"name": "r"}, {"name": "d", "kind": "host"}],
        "link": [
            {"a": "s", "b": "r", "rate": "10Mb/s", "delay": "1ms"},
            {"a": "r", "b": "d", "rate": "10Mb/s", "delay": "1ms"},
        ],
        "flow": [{"src": "s", "dst": "d"}],
    }


def _base_obs() -> dict[str, Any]:
    return {
        "name": "probe",
        "sim": {"duration": 1.0},
        "node": [  # the edge first: keys of `node[]` are probed on node[0]
            {"name": "E1", "kind": "edge"},
            {"name": "s", "kind": "host"},
            {"name": "C1", "kind": "core"},
            {"name": "E2", "kind": "edge"},
            {"name": "d", "kind": "host"},
        ],
        "link": [
            {"a": "s", "b": "E1", "rate": "100Mb/s", "delay": "1ms"},
            {"a": "E2", "b": "d", "rate": "100Mb/s", "delay": "1ms"},
        ],
        "fibre": [
            {"a": "E1", "b": "C1", "rate": "1Gb/s", "delay": "1ms"},
            {"a": "C1", "b": "E2", "rate": "1Gb/s", "delay": "1ms"},
        ],
        "flow": [{"src": "s", "dst": "d"}],
        "obs": {"assembly": {"type": "timer", "tb": "1ms"}},
    }


# The assembly type that accepts each assembly key (add a new policy's keys here, so that
# the probe tests the value and not the type).
ASSEMBLY_TYPE = {
    "tb": {"type": "timer", "tb": "1ms"},
    "jitter": {"type": "timer", "tb": "1ms"},
    "max_bytes": {"type": "length", "max_pkts": 10},
    "max_pkts": {"type": "length", "max_pkts": 10},
    "tmax": {"type": "hybrid", "tmax": "1ms", "lmax": "10KB"},
    "lmax": {"type": "hybrid", "tmax": "1ms", "lmax": "10KB"},
    "lmin": {"type": "hybrid", "tmax": "1ms", "lmax": "10KB"},
    "window": {"type": "cwba", "window": "mark"},
    "ack_ratio_max": {"type": "timer", "tb": "1ms"},
    "type": {"type": "timer", "tb": "1ms"},
}


def _base_for(key: Key) -> dict[str, Any]:
    p = key.path
    obs = p.startswith(("obs", "fibre")) or ".fabric" in p or ".assembly" in p or p in (
        "node[].switch_setup", "flow[].class")
    spec = _base_obs() if obs else _base_packet()
    flow = spec["flow"][0]
    if p in ("flow[].rate", "flow[].packet_size"):
        flow.update(type="cbr", rate="1Mb/s", packet_size="500B")
    elif p in ("flow[].mean_on", "flow[].mean_off"):
        flow.update(type="onoff", rate="1Mb/s", packet_size="500B", mean_on="10ms", mean_off="10ms")
    elif p in ("flow[].hurst", "flow[].alpha", "flow[].sources"):
        flow.update(type="self_similar", rate="1Mb/s", packet_size="500B", mean_on="10ms",
                    mean_off="10ms", sources=4, **({"alpha": 1.5} if p == "flow[].alpha" else {"hurst": 0.8}))
    if p.startswith("workload[]"):
        spec["workload"] = [{"name": "w", "src": ["s"], "dst": ["d"], "rate": "10/s", "size": "10KB"}]
        if p.startswith("workload[].size."):
            spec["workload"][0]["size"] = {"type": "pareto", "shape": 1.5, "lower": "1KB", "upper": "1MB"}
    if p == "fibre[].length_km":
        del spec["fibre"][0]["delay"]
        spec["fibre"][0]["length_km"] = 10.0
    if p.startswith("node[].fabric"):
        spec["node"][0]["fabric"] = [{"name": "f"}]
    if p.startswith("node[].assembly"):
        pass  # set on the edge below
    if p.startswith("obs.class") or p == "flow[].class":
        spec["obs"]["classifier"] = "per_class"
        spec["obs"]["class"] = [{"name": "c"}]
    if p.startswith("obs.ingress"):
        spec["obs"]["ingress"] = {"max_wait": "1ms"}
    if p.startswith("obs.retransmit"):
        spec["obs"]["retransmit"] = {"max": 1, "hold": "1ms"}
    if p.startswith("obs.drop_burst"):
        spec["obs"]["drop_burst"] = [{"edge": "E1", "queue": "f0", "bursts": [1]}]
        flow["name"] = "f0"
    if ".assembly." in p:
        name = p.rsplit(".", 1)[1]
        # A key added later gets the timer table (its probe then says whether it applies).
        table = copy.deepcopy(ASSEMBLY_TYPE.get(name, ASSEMBLY_TYPE["type"]))
        where = p.split(".assembly.")[0]
        if where == "obs":
            spec["obs"]["assembly"] = table
        elif where == "node[]":
            spec["node"][0]["assembly"] = table
        elif where == "flow[]":
            flow["assembly"] = table
        elif where == "obs.class[]":
            spec["obs"]["class"][0]["assembly"] = table
        if name == "window":
            spec["obs"]["classifier"] = "per_flow"  # window-based assembly needs it
    return spec


def _set(spec: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Sets `path` (TOML form; `[]` = the first element) in a copy of `spec`."""
    spec = copy.deepcopy(spec)
    cur: Any = spec
    parts = path.split(".")
    for seg in parts[:-1]:
        name = seg.removesuffix("[]")
        if seg.endswith("[]"):
            cur = cur.setdefault(name, [{}])[0]
        else:
            cur = cur.setdefault(name, {})
    last = parts[-1]
    if last.endswith("[]"):
        cur[last.removesuffix("[]")] = [value]
    else:
        cur[last] = value
    return spec


def _bad_values(key: Key) -> list[Any]:
    inner = key.rust_type.removeprefix("Option<").removesuffix(">")
    name = key.path.rsplit(".", 1)[-1]
    if inner == "Dur":
        return ["-1s", "soon"]
    if inner == "Rate":
        return ["0b/s", "fast"]
    if inner == "Size":
        return ["-1B", "big"]
    if inner == "PerSec":
        return ["-5/s", "fast"]
    if inner == "SizeSpec":
        return ["big", -1]
    if key.kind == "integer":
        return [0, -1]
    if key.kind == "float":
        return [-0.5, 2.0, "x"]
    if key.kind == "bool":
        return ["yes"]
    if key.kind == "enum":
        return ["nonsense"]
    if key.kind == "string":
        return ["nowhere", 7] if name in NAME_REFS else [7]
    if key.kind == "list":
        return ["x"]
    return [7]


def _concrete(path: str) -> str:
    return path.replace("[]", "[0]")


def _probe_errors(keys: list[Key]) -> None:
    from burstlab import _core

    for key in keys:
        base = _base_for(key)
        _core.validate(json.dumps(base), "json")  # the base itself must be valid
        want = _concrete(key.path)
        for bad in _bad_values(key):
            try:
                _core.validate(json.dumps(_set(base, key.path, bad)), "json")
            except _core.ScenarioError as e:
                msg = str(e)
                if msg.startswith(want) or msg.startswith(want.rsplit(".", 1)[0] + ".") or key.kind == "table":
                    key.error = f"`{json.dumps(bad)}` → {msg}"
                    break


# ---------------------------------------------------------------------------------------
# Markdown.

def _cell(text: str) -> str:
    text = re.sub(r"\[`([^`]+)`\](\([^)]*\))?", r"`\1`", text)  # rustdoc links → code
    return text.replace("|", "\\|").replace("\n", " ")


SECTIONS = [
    ("", "The scenario file", "Top-level keys."),
    ("sim", "`[sim]`", "How long to run, the seed, the measurement window and the memory cap."),
    ("sim.trace", "`[sim.trace]`", "Opt-in traces (see [Output columns](../guide/scenarios.md))."),
    ("node[]", "`[[node]]`", "Hosts, routers, and the OBS edge and core nodes."),
    ("node[].fabric[]", "`[[node.fabric]]`", "Switching fabrics of an OBS node."),
    ("link[]", "`[[link]]`", "Packet links."),
    ("flow[]", "`[[flow]]`", "TCP transfers and UDP sources."),
    ("routing", "`[routing]`",
     "How the simulator chooses routes ([networks](../guide/networks.md#routes)); a "
     "flow's `routing` table takes the same keys and overrides these for that flow."),
    ("flow[].routing", "`[flow.routing]`", "A flow's own routing keys (see `[routing]`)."),
    ("workload[]", "`[[workload]]`",
     "Flows generated during the run, one per arrival ([workloads](../guide/workloads.md))."),
    ("workload[].size", "`[workload.size]`",
     "A flow-size distribution (or write `size` as one size, e.g. `\"100KB\"`)."),
    ("workload[].routing", "`[workload.routing]`", "A workload's own routing keys (see `[routing]`)."),
    ("fibre[]", "`[[fibre]]`", "Fibres between OBS nodes."),
    ("obs", "`[obs]`", "OBS settings shared by every edge and core node."),
    ("obs.loss", "`[obs.loss]`", "Independent random burst loss."),
    ("obs.drop_burst[]", "`[[obs.drop_burst]]`", "Deterministic burst drops."),
    ("obs.class[]", "`[[obs.class]]`", "Per-class overrides (`per_class` classifier)."),
    ("obs.contention", "`[obs.contention]`",
     "Contention resolution at the nodes after the ingress (topics/contention.md)."),
    ("obs.contention.deflection[]", "`[[obs.contention.deflection]]`",
     "Deflection tables: the neighbours a node may send a contending burst to "
     "(topics/contention.md)."),
    ("obs.ingress", "`[obs.ingress]`",
     "Ingress electronic buffer ([control plane](../topics/control-plane.md))."),
    ("obs.control", "`[obs.control]`",
     "The control channel ([control plane](../topics/control-plane.md))."),
    ("obs.retransmit", "`[obs.retransmit]`",
     "Burst retransmission at the ingress ([control plane](../topics/control-plane.md))."),
    ("*.assembly", "Assembly tables",
     "`obs.assembly`, `node[].assembly`, `flow[].assembly` and `obs.class[].assembly` take the "
     "same keys (the `AssemblySpec` struct); which keys apply depends on `type`."),
]


def _section_of(key: Key) -> str:
    if ".assembly" in key.path or key.path.startswith("obs.assembly"):
        return "*.assembly"
    parent = key.path.rpartition(".")[0]
    return parent


def scenario_reference() -> str:
    """The scenario reference as MyST Markdown."""
    keys = scenario_keys()
    out = []
    seen_assembly: set[str] = set()
    for sec, title, intro in SECTIONS:
        rows = []
        for k in keys:
            if _section_of(k) != sec:
                continue
            if sec == "*.assembly":
                name = k.path.rsplit(".", 1)[-1]
                if name in seen_assembly:
                    continue
                seen_assembly.add(name)
                shown = f"assembly.{name}"
            else:
                shown = k.path
            typ = k.kind
            if k.values:
                typ = "one of " + ", ".join(f"`{v}`" for v in k.values)
            elif k.kind == "number or string":
                typ = k.unit or typ
            elif k.kind == "list":
                elem = re.sub(r"^(Option<)?Vec<(.*?)>>?$", r"\2", k.rust_type)
                typ = LIST_OF.get(elem) or f"list of tables (`{elem}`)"
            elif k.kind == "table":
                struct = re.sub(r"^(Option|Vec)<(.*)>$", r"\2", k.rust_type)
                typ = f"table (`{struct}`)"
            alias = f" (also `{'`, `'.join(k.aliases)}`)" if k.aliases else ""
            rows.append(
                f"| `{shown}`{alias} | {_cell(typ)} | {_cell(k.default)} | {_cell(k.doc)} | {_cell(k.error)} |"
            )
        if not rows:
            continue
        out += [f"## {title}", "", intro, "",
                "| key | type and unit | default | description | a bad value → the error |",
                "|---|---|---|---|---|", *rows, ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# Output tables: their columns as a run writes them, units from the column names.

STATS_RS = ROOT / "crates" / "burstlab-core" / "src" / "stats.rs"

#: A column's unit, from the suffix of its name (the project writes units into names).
COLUMN_UNITS = [
    ("_segps", "segments/s"), ("_bps", "bit/s"), ("_segments", "segments"),
    ("_bytes", "bytes"), ("_pkts", "packets"), ("_km", "km"), ("_prob", "probability"),
    ("_s", "s"), ("_frac", "fraction"),
]
#: Columns without a unit suffix: identifiers and labels, counts, flags and ratios.
UNITLESS = "—"


def column_unit(name: str) -> str:
    """The unit a column's name states (``fct_s`` → s), or :data:`UNITLESS`."""
    for suffix, unit in COLUMN_UNITS:
        if name.endswith(suffix):
            return unit
    return UNITLESS


def probe_scenarios() -> list[dict[str, Any]]:
    """Scenarios that together fill every result table: ozsarac's OBS line with ECWBA
    assembly (``cwnd_estimates``), per-wavelength contention (``obs_channels``), every
    trace on, a CUBIC flow (``cc_trace``) and a finite flow (``fct``)."""
    from burstlab.reproduce.papers.ozsarac import topology as topo

    sc = topo.linear(topo.assembly("ecwba"), "reno", duration=0.3)
    sc["sim"]["trace"] = {"cwnd": True, "packets": True, "bursts": True, "cc": True,
                          "goodput": 0.05}
    sc["obs"]["contention"] = {"per_wavelength": True}
    ftp = sc["flow"][0]
    sc["flow"].append({**ftp, "name": "short", "variant": "sack", "cc": "cubic",
                       "segments": 20})
    return [sc]


def output_tables() -> dict[str, list[str]]:
    """Every result table of the core (``RunResult::tables``, in its order) and the
    columns a run writes into it, from runs of :func:`probe_scenarios`."""
    import burstlab

    out: dict[str, list[str]] = {}
    for sc in probe_scenarios():
        res = burstlab.run(sc, progress=False)
        for name in res.tables:
            cols = out.setdefault(name, [])
            for c in res.table(name).columns:
                if c not in cols:
                    cols.append(str(c))
    return out


def _row_docs() -> dict[str, dict[str, str]]:
    """table name → {column: description} from the doc comments of the row structs in
    ``stats.rs`` (a column ``x_unit`` takes the doc of a field ``x`` or ``x_unit``)."""
    text = STATS_RS.read_text(encoding="utf-8")
    structs = _parse_structs(text)
    result = structs.get("RunResult", {})
    docs: dict[str, dict[str, str]] = {}
    for f in result.values():
        m = re.match(r"Vec<(\w+)>", f.rust_type)
        if m:
            docs[f.name] = {k: v.doc for k, v in structs.get(m.group(1), {}).items()}
    for m in re.finditer(r"impl TraceRow for (\w+) \{.*?const TABLE: &'static str = \"(\w+)\"",
                         text, re.S):
        docs.setdefault(m.group(2), {k: v.doc for k, v in structs.get(m.group(1), {}).items()})
    return docs


def output_reference() -> str:
    """The result tables and their columns with units, as MyST Markdown."""
    tables = output_tables()
    docs = _row_docs()
    out = []
    for name, cols in tables.items():
        d = docs.get(name, {})
        out += [f"## `{name}`", "", "| column | unit | description |", "|---|---|---|"]
        for c in cols:
            base = next((c.removesuffix(sfx) for sfx, _ in COLUMN_UNITS if c.endswith(sfx)), c)
            text = d.get(c) or d.get(base) or ""
            out.append(f"| `{c}` | {_cell(column_unit(c))} | {_cell(text)} |")
        out.append("")
    return "\n".join(out)


def cli_reference() -> str:
    """Every command's `--help`, as MyST Markdown."""

    from burstlab.cli import build_parser

    top = build_parser()
    out = ["## `burstlab`", "", "```text", top.format_help().rstrip(), "```", ""]
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for name in sub.choices:
        parser = build_parser(name)
        sp = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        out += _parser_md(f"burstlab {name}", sp.choices[name])
    return "\n".join(out)


def _parser_md(title: str, parser: argparse.ArgumentParser) -> list[str]:

    out = [f"## `{title}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, p in a.choices.items():
                out += _parser_md(f"{title} {name}", p)
    return out


# ---------------------------------------------------------------------------------------
# Sphinx.

GENERATORS = {"reference/scenario": scenario_reference, "reference/cli": cli_reference,
              "reference/outputs": output_reference}


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    gen = GENERATORS.get(docname)
    if gen and MARKER in source[0]:
        source[0] = source[0].replace(MARKER, gen())


def setup(app: Any) -> dict[str, Any]:
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # pragma: no cover - a look at the generated text
    import sys

    print(GENERATORS[sys.argv[1]]())
