"""The extension page on today's controllers (``burstlab.reproduce.modern_tcp``): its
sentences come from the runs, it is labelled as an extension, and the site links it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from burstlab.reproduce import modern_tcp
from burstlab.reproduce.modern_tcp import OzPoint, Point, oz_sentences, sentences


def _points(reno: float, sack: float) -> list[Point]:
    vals = {"reno": reno, "sack": sack, "cubic": 2 * sack, "highspeed": 1.5 * sack,
            "vegas": 0.5 * sack, "bbr": 3 * sack}
    return [Point(tb="1ms", sender=s, mean_segps=v, lo_segps=0.9 * v, hi_segps=1.1 * v,
                  settled=True, why="", duration_s=100.0, warmup_s=10.0)
            for s, v in vals.items()]


def test_sentences_are_computed_from_the_points() -> None:
    said = sentences(_points(reno=100.0, sack=200.0))
    assert said[0] == ("At Tb = 1ms, against SACK's 200 segments/s: cubic 2.00×, highspeed "
                       "1.50×, vegas 0.50×, bbr 3.00×; the highest goodput is bbr's "
                       "(600 segments/s).")
    assert not any("same goodput" in s for s in said)
    assert any(s.startswith("At Tb = 1ms Vegas delivers less than SACK") for s in said)
    assert any("same goodput" in s for s in sentences(_points(reno=200.0, sack=200.0)))


def test_ozsarac_sentences_compare_cwba_with_the_best_timer() -> None:
    def pt(sender: str, asm: str, tb: float, v: float, half: float) -> OzPoint:
        return OzPoint(sender=sender, assembler=asm, tb_ms=tb, mean_segps=v,
                       lo_segps=v - half, hi_segps=v + half, settled=True, why="",
                       duration_s=60.0, warmup_s=5.0)

    pts = [pt("reno", "cwba", 0, 300.0, 10), pt("reno", "timer", 1, 100.0, 10),
           pt("reno", "timer", 4, 150.0, 10), pt("reno", "timer", 16, 120.0, 10),
           pt("sack", "cwba", 0, 300.0, 10), pt("sack", "timer", 1, 100.0, 10),
           pt("sack", "timer", 4, 290.0, 30), pt("bbr", "cwba", 0, 10.0, 1),
           pt("bbr", "timer", 16, 500.0, 20)]
    said = oz_sentences(pts)
    assert said[0] == ("reno: CWBA 300 segments/s against the best timer (Tb = 4 ms) 150 "
                       "segments/s, 2.00×; above it, the 95 % intervals apart.")
    assert said[1].endswith("1.03×; the 95 % intervals overlap (the largest period run: "
                            "a better timer may lie above it).")
    assert said[2].endswith("0.02×; below it, the 95 % intervals apart.")
    assert "same goodput to the last digit (300.00" in said[3]
    assert len(said) == 4


def test_page_is_an_extension_with_its_table(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(modern_tcp, "QUICK_TBS", ("20ms",))
    monkeypatch.setattr(modern_tcp, "QUICK_START_S", 30.0)
    monkeypatch.setattr(modern_tcp, "QUICK_CAP_S", 30.0)
    monkeypatch.setattr(modern_tcp, "QUICK_OZ_TIMERS_MS", (16.0,))
    monkeypatch.setattr(modern_tcp, "QUICK_OZ_START_S", 30.0)
    monkeypatch.setattr(modern_tcp, "QUICK_OZ_CAP_S", 30.0)
    page, cpu = modern_tcp.write_page(tmp_path, quick=True)
    text = page.read_text(encoding="utf-8")
    assert "Extension beyond the five papers" in text and "no verdicts" in text
    assert "goodput_vs_tb.png" in text and (page.parent / "goodput_vs_tb.png").exists()
    with open(page.parent / "goodput.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["sender"] for r in rows] == [s[0] for s in modern_tcp.SENDERS]
    assert all(float(r["goodput_segps"]) > 0 for r in rows)
    assert "CWBA against the best timer" in text
    assert (page.parent / "ozsarac_cwba_vs_timer.png").exists()
    with open(page.parent / "ozsarac_cwba.csv") as f:
        oz = list(csv.DictReader(f))
    assert [(r["sender"], r["assembler"]) for r in oz] == [
        (s[0], a) for s in modern_tcp.OZ_SENDERS for a in ("cwba", "timer")]
    assert all(float(r["goodput_segps"]) > 0 for r in oz)
    assert cpu >= 0


def test_site_links_extensions(tmp_path: Path) -> None:
    from burstlab.reproduce.site import write_site

    index = write_site(tmp_path, [], [("modern_tcp/report.html", "Today's TCP", "note")])
    text = index.read_text(encoding="utf-8")
    assert '<a href="modern_tcp/report.html">Today&#39;s TCP</a>' in text
    assert "Extensions beyond the papers" in text
    assert "Extensions beyond the papers" not in write_site(tmp_path, []).read_text(
        encoding="utf-8")
