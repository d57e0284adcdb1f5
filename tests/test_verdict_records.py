"""The committed full-mode records judged again by the present verdict rule
(:mod:`burstlab.reproduce.rejudge`, issue 53): the verdicts that move are recomputed from
the records' numbers and must be the ones docs/topics/verdicts.md lists, with the reason;
zhou's fitted base round trip is the one the record judged on."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from burstlab.reproduce import claim as C
from burstlab.reproduce import paper_names
from burstlab.reproduce.modes import load_record
from burstlab.reproduce.rejudge import NEEDS_STORE, number, rejudge_record, rejudge_row

ROOT = Path(__file__).resolve().parents[1]


def documented() -> set[tuple[str, str, str, str]]:
    """``(paper, claim, recorded, now)`` of the page's table of moved verdicts."""
    text = (ROOT / "docs" / "topics" / "verdicts.md").read_text(encoding="utf-8")
    part = text.split("## The records judged again", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\w+) \| `([^`]+)` \| ([a-z ]+) \| ([a-z ']+) \|", part, re.M)
    return {(p, c, a.strip(), b.strip()) for p, c, a, b in rows}


def test_the_moved_verdicts_are_the_documented_ones() -> None:
    moved = {(p, r.claim_id, r.recorded, r.now) for p in paper_names()
             for r in rejudge_record(p) if r.moved}
    assert moved, "the present rule moves some recorded verdicts"
    assert moved == documented()


def test_every_moved_verdict_has_its_reason() -> None:
    for p in paper_names():
        for r in rejudge_record(p):
            assert r.moved == bool(r.why), (p, r)


def test_each_rule_change_is_seen_in_a_record() -> None:
    got = {(p, r.claim_id): r for p in paper_names() for r in rejudge_record(p)}
    assert "other side of 0" in got["ozsarac", "mcwba.gain_linear"].why
    assert "a tie" in got["sodhatar", "ranking.newreno_best.size=1460B"].why
    assert got["yu", "table1.sack_over_reno.log10p=-3"].now == "reproduces"  # "1.0"
    assert "grid step" in got["yu", "fig6.optimum_matches_model.p=0.1"].why
    assert got["zhou", "fig2.optimum_independent_of_pb"].now == NEEDS_STORE
    # printed to two decimals: the band is as recorded
    assert not got["yu", "table1.sack_over_reno.log10p=-2"].moved


def test_numbers_as_notes_print_them() -> None:
    assert number("+168 %") == 168.0 and number("−5 %") == -5.0
    assert number("158 µs") == pytest.approx(158e-6) and number("6.32 ms") == 6.32e-3
    assert number("4.39 Gb/s") == 4.39 and number("∞") == float("inf")
    assert number("1.2e+04 segments") == 1.2e4
    assert number("–") != number("–")  # no number: NaN


def test_a_cut_interval_that_reproduced_needs_its_store() -> None:
    """A recorded interval cut at its range hides the spread the rule now judges."""
    note = ("burstlab's -95 %, 95 % interval [-100 %, -83 %], meets the paper's band "
            "[-100 %, -80 %]")
    r = rejudge_row("sodhatar", "size.tahoe_change", "reproduces", note)
    assert r.now == "reproduces"  # the band is cut too: the paper value is not in the note
    note = ("burstlab's -95 %, 95 % interval [-100 %, -83 %], meets the paper's band "
            "[-99.5 %, -79.5 %]")
    r = rejudge_row("sodhatar", "size.tahoe_change", "reproduces", note)
    assert r.now == NEEDS_STORE and "cut to the range" in r.why


def test_zhou_fit_on_the_optimum_alone_picks_the_recorded_setup() -> None:
    """The record's calibration claims were judged at access delay 1ms, fitted on every
    printed fig. 2 number; fitted on the printed optimum alone (experiments.rtt_fit now),
    the record's own table of best periods per set-up picks the same set-up, so the
    four claims judged there judge numbers the fit does not use."""
    rec = load_record("zhou")
    assert rec is not None
    row = rec.claims.set_index("claim_id").loc["fig2.optimal_period"]
    table = re.findall(r"(\w+) \(RTT0 [^)]*\): ([0-9, ]+) µs", str(row["note"]))
    assert len(table) == 4
    misfit = {name: sum(abs(math.log2(float(t) / 250.0))
                        for t in opts.split(", ")) / len(opts.split(", "))
              for name, opts in table}
    assert min(misfit, key=misfit.__getitem__) == "1ms"
    fitted = rec.claims[rec.claims["claim_id"].str.endswith("@rtt0_fit")]
    assert len(fitted) == 5 and fitted["statement"].str.contains("access delay 1ms").all()
    assert {C.claim_role(c) for c in fitted["claim_id"]} == {C.CALIBRATION}


def test_rejudge_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from burstlab.reproduce.rejudge import main

    assert main(["nope"]) == 2
    assert "papers must be among" in capsys.readouterr().err
    assert main(["ozsarac"]) == 0
    out = capsys.readouterr().out
    assert "ozsarac: 37 rows, 1 moved" in out and "mcwba.gain_linear: reproduces → differs" in out
