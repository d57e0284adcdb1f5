"""Grid syntax (burstlab.grid) and the Student-t quantiles behind sweep summaries."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from burstlab.grid import (
    GridError,
    apply,
    normalise_grid,
    numeric_values,
    parse_axis,
    parse_grid_entry,
    points,
    quantity,
    set_path,
)
from burstlab.stats import summarise, t_ppf


def test_log_range_with_units_gives_unit_strings_with_exact_end_points() -> None:
    vals = parse_axis("1us..100ms:log:13")
    assert len(vals) == 13
    assert vals[0] == "1us" and vals[-1] == "100ms"
    assert all(isinstance(v, str) for v in vals)
    si, unit = numeric_values(vals) or ([], "")
    assert unit == "s"
    ratios = [b / a for a, b in zip(si, si[1:], strict=False)]
    step = 10 ** (5 / 12)  # five decades in twelve steps
    assert all(r == pytest.approx(step, rel=1e-5) for r in ratios)
    assert si[0] == pytest.approx(1e-6) and si[-1] == pytest.approx(0.1)


def test_log_range_of_plain_numbers() -> None:
    assert parse_axis("1e-4..1e-1:log:4") == pytest.approx([1e-4, 1e-3, 1e-2, 1e-1])
    assert parse_axis("1e-4..1e-1:log:7")[1] == pytest.approx(10**-3.5)


def test_integer_end_points_give_integers() -> None:
    assert parse_axis("16..512:log:6") == [16, 32, 64, 128, 256, 512]
    assert parse_axis("10..50:lin:5") == [10, 20, 30, 40, 50]
    assert parse_axis("1..10:log:3") == [1, 3, 10]
    # a fractional step keeps floats
    assert parse_axis("0..1:lin:5") == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert parse_axis("1.0..10:log:3") == pytest.approx([1.0, math.sqrt(10), 10.0])


def test_lin_range_with_units_and_zero() -> None:
    assert parse_axis("0..10ms:lin:3") == ["0s", "5ms", "10ms"]
    assert parse_axis("10Mb/s..10Gb/s:log:4") == ["10Mb/s", "100Mb/s", "1Gb/s", "10Gb/s"]
    assert parse_axis("1KiB..1MiB:log:3") == ["1KiB", "32KiB", "1MiB"]
    assert numeric_values(parse_axis("125KB/s..125MB/s:log:4")) == (
        pytest.approx([1e6, 1e7, 1e8, 1e9]), "b/s")


def test_lists_keep_types() -> None:
    assert parse_axis("reno,newreno,sack") == ["reno", "newreno", "sack"]
    assert parse_axis("1e-4, 1e-3,1e-2") == [1e-4, 1e-3, 1e-2]
    assert parse_axis("1,2.5,true,1ms") == [1, 2.5, True, "1ms"]
    assert parse_axis("sack") == ["sack"]
    assert numeric_values(["1ms", "10ms"]) == (pytest.approx([1e-3, 1e-2]), "s")
    assert numeric_values(["reno", "sack"]) is None
    assert numeric_values(["1ms", "1Gb/s"]) is None


def test_quantity() -> None:
    assert quantity("2.5ms") == (2.5, "time", pytest.approx(2.5e-3))
    assert quantity("1.25KB/s") == (1.25, "rate", pytest.approx(1e4))
    assert quantity("500Mbps") == (500, "rate", pytest.approx(5e8))
    assert quantity("3") == (3.0, None, 3.0)
    assert quantity("3 parsecs") is None


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("obs.tb=1us..100ms:log", "obs.tb='1us..100ms:log': a range must read"),
        ("obs.tb=1us..100ms:cubic:3", "a range must read a..b:lin:n"),
        ("obs.tb=1us..100ms:log:0", "number of points must be a positive integer"),
        ("obs.tb=1us..100ms:log:x", "number of points must be a positive integer"),
        ("obs.tb=1us..1Gb/s:log:3", "different dimensions (time and rate)"),
        ("obs.tb=1furlong..2ms:log:3", "'1furlong' is not a number"),
        ("loss.p=0..1e-1:log:3", "a log range needs positive end points"),
        ("loss.p=1e-4,,1e-2", "empty item in list"),
        ("loss.p=", "empty value list"),
        ("loss.p", "expected path=values"),
        ("flow..variant=reno", "is not a dotted path"),
        ("=reno", "is not a dotted path"),
    ],
)
def test_bad_syntax_names_the_entry(entry: str, message: str) -> None:
    with pytest.raises(GridError) as ei:
        parse_grid_entry(entry)
    assert message in str(ei.value)
    assert "grid entry" in str(ei.value)
    assert isinstance(ei.value, ValueError)


def test_normalise_grid_accepts_specs_and_literal_lists() -> None:
    g = normalise_grid({"sim.duration": "1s,2s", "flow.0.wm": [10, 20], "link.0.loss": 0.1})
    assert g == {"sim.duration": ["1s", "2s"], "flow.0.wm": [10, 20], "link.0.loss": [0.1]}
    with pytest.raises(GridError, match="'flow.0.wm': repeated values"):
        normalise_grid({"flow.0.wm": [10, 10]})
    with pytest.raises(GridError, match="'flow.0.wm': no values"):
        normalise_grid({"flow.0.wm": []})
    with pytest.raises(GridError, match="must be str, int, float or bool"):
        normalise_grid({"flow.0.wm": [None]})


def test_points_are_the_cartesian_product_first_axis_slowest() -> None:
    pts = points({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(pts) == 6
    assert pts[0] == {"a": 1, "b": "x"} and pts[1] == {"a": 1, "b": "y"}
    assert pts[-1] == {"a": 2, "b": "z"}


def test_set_path_through_lists_and_new_keys() -> None:
    base = {"sim": {"duration": "1s"}, "flow": [{"type": "tcp"}, {"type": "cbr"}]}
    sc = apply(base, {"flow.1.rate": "1Mb/s", "sim.warmup": "1s", "sim.duration": 5})
    assert sc["flow"][1]["rate"] == "1Mb/s"
    assert sc["sim"] == {"duration": 5, "warmup": "1s"}
    assert "rate" not in base["flow"][1]  # the base is not modified
    with pytest.raises(GridError, match="index 2 out of range"):
        set_path(sc, "flow.2.rate", "1Mb/s")
    with pytest.raises(GridError, match="'flow' is a list; expected an index"):
        set_path(sc, "flow.rate", "1Mb/s")
    with pytest.raises(GridError, match="'sim.duration' is a value"):
        set_path(sc, "sim.duration.x", 1)
    with pytest.raises(GridError, match="'link' does not exist"):
        set_path(sc, "link.0.loss", 0.1)


@pytest.mark.parametrize(
    ("df", "q"),
    [(1, 12.706204736), (2, 4.302652730), (4, 2.776445105), (9, 2.262157163),
     (29, 2.045229642), (1000, 1.962339081)],
)
def test_t_quantiles_match_tables(df: int, q: float) -> None:
    assert t_ppf(0.975, df) == pytest.approx(q, rel=1e-8)
    assert t_ppf(0.025, df) == pytest.approx(-q, rel=1e-8)


def test_summarise_mean_std_and_ci() -> None:
    df = pd.DataFrame({"g": ["a"] * 4 + ["b"], "x": [1.0, 2.0, 3.0, 4.0, 7.0]})
    s = summarise(df, ["g"], ["x"]).set_index("g")
    assert s.loc["a", "n"] == 4
    assert s.loc["a", "x_mean"] == pytest.approx(2.5)
    sd = math.sqrt(5 / 3)
    assert s.loc["a", "x_std"] == pytest.approx(sd)
    half = 3.182446305 * sd / 2  # t_{0.975, 3}
    assert s.loc["a", "x_ci_lo"] == pytest.approx(2.5 - half)
    assert s.loc["a", "x_ci_hi"] == pytest.approx(2.5 + half)
    assert math.isnan(s.loc["b", "x_ci_lo"]) and s.loc["b", "x_mean"] == 7.0


def test_summarise_cuts_intervals_at_the_metric_range() -> None:
    # Two replications of a goodput: the t interval 0.5 ± 5.08 goes below 0 uncut.
    df = pd.DataFrame({"g": ["a", "a"], "x": [0.1, 0.9], "y": [-1.0, 1.0]})
    raw = summarise(df, ["g"], ["x"]).iloc[0]
    assert raw["x_ci_lo"] < 0
    s = summarise(df, ["g"], ["x", "y"], lower={"x": 0.0}).iloc[0]
    assert s["x_ci_lo"] == 0.0 and s["x_ci_hi"] == raw["x_ci_hi"]
    assert s["y_ci_lo"] < 0  # a signed metric keeps its interval
    from burstlab.sweep import non_negative

    assert non_negative(df, ["x", "y"]) == {"x": 0.0}
