"""The reproduction framework: paper data files, claims and verdicts, the registry, the
experiment pipeline through the sweep store (traces included)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from _scenarios import two_host_cbr
from burstlab.reproduce import load, paper_names
from burstlab.reproduce.framework import (
    VERDICTS,
    Claim,
    Context,
    Experiment,
    Paper,
    PaperData,
    pyplot,
    read_modes,
    reproduce,
    verdict_counts,
)


def _toml(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "paper.toml"
    p.write_text('[paper]\nname = "t"\n\n' + body, encoding="utf-8")
    return p


def test_paper_data_reads_values_with_sources(tmp_path: Path) -> None:
    d = PaperData(_toml(tmp_path, """
[[value]]
id = "table1.x"
source = "Table I"
how = "printed"
x_name = "log10_p"
x = [-3, -2]
value = [1.0, 1.5]

[[value]]
id = "fig2.peak"
source = "Fig. 2"
how = "read off plot"
value = 0.001
uncertainty = "±half a decade"
"""))
    assert d["table1.x"].at(-2.0) == 1.5
    assert d["table1.x"].at(-1.0) != d["table1.x"].at(-1.0)  # NaN: not listed
    assert d["fig2.peak"].how == "read off plot" and d["fig2.peak"].uncertainty
    with pytest.raises(KeyError, match="no value 'nope'"):
        d["nope"]


@pytest.mark.parametrize(("body", "message"), [
    ('[[value]]\nid = "a"\nsource = "T"\nhow = "guessed"\n', "how must be one of"),
    ('[[value]]\nid = "a"\nhow = "printed"\n', "missing 'source'"),
    ('[[value]]\nid = "a"\nsource = "F"\nhow = "read off plot"\nvalue = 1\n', "uncertainty"),
    ('[[value]]\nid = "a"\nsource = "T"\nhow = "printed"\nx = [1, 2]\nvalue = [1]\n',
     "as long as 'x'"),
    ('[[value]]\nid = "a"\nsource = "T"\nhow = "stated"\n' * 2, "duplicate id"),
])
def test_paper_data_rejects_bad_entries(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PaperData(_toml(tmp_path, body))


def test_claim_verdicts_are_a_fixed_vocabulary() -> None:
    c = Claim(id="a", source="Fig. 1", statement="s", paper_value="1", burstlab_value="2",
              verdict="differs", note="2 is not 1")
    assert c.row("p")["verdict"] == "differs" and c.row("p")["paper"] == "p"
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim(id="a", source="", statement="", paper_value="", burstlab_value="",
              verdict="partly", note="")
    assert verdict_counts(["differs", "reproduces", "differs"]) == {
        "reproduces": 1, "same direction": 0, "differs": 2, "not comparable": 0}


def test_registry_finds_every_paper_folder() -> None:
    assert "yu" in paper_names()
    for name in paper_names():
        p = load(name)
        assert p.name == name and p.data_file.is_file()
        assert {"quick", "full", "smoke"} <= set(p.modes)
        assert p.figures and p.claim_fns and p.experiments
    with pytest.raises(ValueError, match="known papers: .*yu"):
        load("nosuchpaper")


def _toy_paper(tmp_path: Path) -> Paper:
    """A two-stage toy reproduction: a probe with traces, then runs chosen from it."""
    data = _toml(tmp_path, '[[value]]\nid = "rate"\nsource = "§1"\nhow = "printed"\n'
                           'value = 1000.0\nunit = "pkt/s"\n')

    def probe(ctx: Context) -> list[tuple[dict, dict]]:
        sc = {"name": "probe", "sim": {"duration": 2.0, "trace": {"packets": True}},
              "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
              "link": [{"a": "a", "b": "b", "rate": "10Mb/s", "delay": "1ms", "loss": 0.01}],
              "flow": [{"type": "tcp", "src": "a", "dst": "b", "variant": "reno"}]}
        return [({"role": "probe"}, sc)]

    def follow(ctx: Context) -> list[tuple[dict, dict]]:
        res = ctx.results["probe"].result(0)
        n = len(res.packets)
        ctx.values["probe_packets"] = n
        return [({"rate": r}, two_host_cbr(rate=r, duration=1.0)) for r in ("4Mb/s", "8Mb/s")]

    paper = Paper(name="toy", title="toy", data_file=data, modes={"quick": 1, "full": 2},
                  stamp=lambda ctx: {"seed": 1})
    paper.experiments += [
        Experiment("follow", follow, replications=lambda ctx: int(ctx.mode), after=("probe",)),
        Experiment("probe", probe, keep_traces=True),
    ]

    def analyse(ctx: Context) -> None:
        ctx.tables["follow"] = ctx.results["follow"].summary

    paper.analyse = analyse

    @paper.claim
    def rate(ctx: Context) -> Claim:
        s = ctx.results["follow"].summary
        got = float(s["throughput_segps_mean"].iloc[-1]) if "throughput_segps_mean" in s else 0
        return Claim(id="rate", source=ctx.data["rate"].source, statement="rate",
                     paper_value="1000", burstlab_value=f"{got:g}",
                     verdict="reproduces" if ctx.values["probe_packets"] > 0 else "differs",
                     note="the probe's packet trace came back from the store")

    @paper.figure("f", "a figure")
    def draw(ctx: Context) -> Any:
        fig, ax = pyplot().subplots(figsize=(2, 2))
        ax.plot([0, 1], [0, ctx.values["probe_packets"]])
        return fig  # the framework saves it as f.png

    return paper


def test_pipeline_runs_stages_through_the_store(tmp_path: Path) -> None:
    paper = _toy_paper(tmp_path)
    out = tmp_path / "out"
    res = reproduce(paper, out, mode="quick", jobs=1, progress=False, log=lambda s: None)
    d = out / "toy"
    assert {"probe", "follow"} == set(res.ctx.results)
    assert res.ctx.results["follow"].stats["ran"] == 2
    assert res.ctx.values["probe_packets"] > 0
    with (d / "claims.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["claim_id"] for r in rows] == ["rate"] and rows[0]["verdict"] in VERDICTS
    assert (d / "follow.csv").is_file()
    assert (d / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "`rate`" in (d / "report.md").read_text(encoding="utf-8")
    again = reproduce(paper, out, mode="quick", jobs=1, progress=False, log=lambda s: None)
    assert again.ctx.results["probe"].stats["cached"] == 1  # resumed from the store
    assert again.ctx.results["follow"].stats["ran"] == 0
    assert again.ctx.values["probe_packets"] == res.ctx.values["probe_packets"]


def test_pipeline_rejects_unknown_mode_and_cycles(tmp_path: Path) -> None:
    paper = _toy_paper(tmp_path)
    with pytest.raises(ValueError, match="mode must be one of"):
        reproduce(paper, tmp_path / "o", mode="smoke", progress=False, log=lambda s: None)
    paper.experiments[1] = Experiment("probe", paper.experiments[1].points, after=("follow",))
    with pytest.raises(ValueError, match="cycle"):
        reproduce(paper, tmp_path / "o", mode="quick", progress=False, log=lambda s: None)


def test_stored_only_judges_from_the_store_and_leaves_out_what_is_missing(
        tmp_path: Path) -> None:
    import json

    from burstlab.sweep import NotStored, sweep_points

    paper = _toy_paper(tmp_path)
    out = tmp_path / "out"
    quiet = {"jobs": 1, "progress": False, "log": lambda s: None}
    with pytest.raises(FileNotFoundError, match="no store"):
        reproduce(paper, out, mode="quick", stored_only=True, **quiet)
    first = reproduce(paper, out, mode="quick", **quiet)
    again = reproduce(paper, out, mode="quick", stored_only=True, **quiet)
    assert again.ctx.missing == {}
    assert again.ctx.results["follow"].stats["ran"] == 0
    assert [c.verdict for c in again.claims] == [c.verdict for c in first.claims]
    assert json.loads((out / "toy" / "run.json").read_text("utf-8"))["complete"] is True
    # Full mode wants a second replication of "follow", which the store lacks: it is
    # left out, nothing runs, and the claim that needs it says so.
    paper.analyse = lambda ctx: None
    paper.claim_fns.clear()

    @paper.claim
    def follow_rate(ctx: Context) -> Claim:
        got = ctx.missing.get("follow")
        return Claim(id="rate", source="§1", statement="rate", paper_value="1000",
                     burstlab_value="", verdict="not comparable",
                     note=f"{got[0]} of {got[1]} runs stored" if got else "all stored")

    log: list[str] = []
    part = reproduce(paper, out, mode="full", stored_only=True, jobs=1, progress=False,
                     log=log.append)
    assert part.ctx.missing == {"follow": (2, 4)}
    assert set(part.ctx.results) == {"probe"}
    assert part.claims[0].note == "2 of 4 runs stored"
    assert any("left out, the store holds 2 of its 4 runs" in x for x in log)
    run = json.loads((out / "toy" / "run.json").read_text("utf-8"))
    assert run["complete"] is False and run["missing"] == {"follow": {"stored": 2, "total": 4}}
    pts = [({"rate": r}, two_host_cbr(rate=r, duration=1.0)) for r in ("4Mb/s", "8Mb/s")]
    with pytest.raises(NotStored) as e:
        sweep_points(pts, replications=2, store=out / "toy" / "runs.sqlite",
                     stored_only=True, executor="serial", progress=False)
    assert (e.value.stored, e.value.total) == (2, 4)


def test_kept_traces_equal_a_direct_run(tmp_path: Path) -> None:
    """A trace run through the store returns exactly what burstlab.run returns."""
    import burstlab
    from burstlab.sweep import sweep_points

    sc = {"name": "probe", "sim": {"duration": 2.0, "seed": 4,
                                   "trace": {"packets": True, "cwnd": True}},
          "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
          "link": [{"a": "a", "b": "b", "rate": "10Mb/s", "delay": "1ms", "loss": 0.02}],
          "flow": [{"type": "tcp", "src": "a", "dst": "b", "variant": "sack"}]}
    sw = sweep_points([({"k": 1}, sc)], store=tmp_path / "s.sqlite", keep_traces=True,
                      executor="serial", progress=False)
    direct = burstlab.run(sc, seed=4, replication=0)
    kept = sw.result(0)
    assert len(kept.packets) > 100
    for name in ("packets", "cwnd", "flows"):
        a, b = getattr(kept, name), getattr(direct, name)
        assert a.equals(b), name
    with pytest.raises(KeyError, match="keep_traces"):
        sw.result(0, 1)


def test_read_modes_builds_the_mode_dataclass_from_paper_toml(tmp_path: Path) -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class M:
        name: str
        reps: int
        grid: tuple[tuple[int, float], ...] = ()
        tb_s: float = 1.0

    p = _toml(tmp_path, "[mode.full]\nreps = 5\ngrid = [[64, 1e-3], [128, 0.01]]\n\n"
                        "[mode.quick]\nreps = 2\ntb_s = 0.5\n")
    modes = read_modes(p, M)
    assert modes == {"full": M("full", 5, ((64, 1e-3), (128, 0.01))),
                     "quick": M("quick", 2, (), 0.5)}
    assert type(modes["full"].grid[0][1]) is float and type(modes["full"].reps) is int
    bad = _toml(tmp_path, "[mode.full]\nreps = 5\nrepz = 1\n")
    with pytest.raises(ValueError, match=r"mode\.full: unknown field\(s\) \['repz'\]"):
        read_modes(bad, M)
    with pytest.raises(ValueError, match=r"mode\.quick: .*reps"):
        read_modes(_toml(tmp_path, "[mode.quick]\ntb_s = 2.0\n"), M)


def test_every_paper_reads_its_modes_from_paper_toml() -> None:
    for name in paper_names():
        paper = load(name)
        data = PaperData(paper.data_file)
        assert set(data.mode_fields) >= {"full", "quick", "smoke"}, name
        assert {k: m.name for k, m in paper.modes.items()} == {k: k for k in data.mode_fields}


def test_claims_section_states_the_verdict_rule_once() -> None:
    from burstlab.reproduce.report import VERDICT_RULES, Report

    c = Claim(id="a", source="Table 1", statement="s", paper_value="1", burstlab_value="2",
              verdict="differs", note="n")
    r = Report("t")
    r.claims_section([c], "what this paper's claims compare")
    md = r.markdown()
    assert md.count("## Claims") == 1 and md.count(VERDICT_RULES) == 1
    assert md.index("what this paper's claims compare") < md.index(VERDICT_RULES)
    assert md.index(VERDICT_RULES) < md.index("| `a` |")
    for v in VERDICTS:
        assert f"*{v}*" in VERDICT_RULES


def test_claim_specs_in_paper_toml_cite_their_value(tmp_path: Path) -> None:
    v = '[[value]]\nid = "fig1.x"\nsource = "Fig. 1"\nhow = "printed"\nvalue = 2\n\n'
    d = PaperData(_toml(tmp_path, v + '[claim."fig1.x.p=0.1%"]\nstatement = "x is 2"\n'
                                      'paper_value = "2 (printed)"\nvalue = "fig1.x"\n'))
    assert d.claim_base("fig1.x.p=0.1%") == {"id": "fig1.x.p=0.1%", "source": "Fig. 1",
                                              "statement": "x is 2",
                                              "paper_value": "2 (printed)"}
    with pytest.raises(ValueError, match=r"claim\.c: no value 'fig9'"):
        PaperData(_toml(tmp_path, v + '[claim.c]\nstatement = "s"\npaper_value = "p"\n'
                                      'value = "fig9"\n'))
    with pytest.raises(ValueError, match=r"claim\.c: 'statement' must be a string"):
        PaperData(_toml(tmp_path, v + '[claim.c]\npaper_value = "p"\nvalue = "fig1.x"\n'))


def test_unjudged_and_shown_not_judged_keep_the_reason() -> None:
    from burstlab.reproduce.framework import (
        NOT_RUN,
        QUICK_NOT_COMPARABLE,
        missed,
        shown_not_judged,
        unjudged,
        worst_of,
    )

    u = unjudged("a", "Fig. 1", "s", "1 (printed)")
    assert (u.verdict, u.note, u.burstlab_value) == ("not comparable", NOT_RUN, "–")
    c = Claim(id="b", source="T1", statement="s", paper_value="1", burstlab_value="2",
              verdict="differs", note="2 is not 1")
    (s,) = shown_not_judged([c], "runs of 20 s are shown but not judged")
    assert s.verdict == "not comparable" and s.burstlab_value == "2"
    assert s.note == (f"{QUICK_NOT_COMPARABLE}: runs of 20 s are shown but not judged "
                      "(judged: differs); 2 is not 1")
    assert [missed(v) for v in VERDICTS] == [False, True, True, False]
    assert worst_of(["reproduces", "not comparable", "same direction"]) == "same direction"
