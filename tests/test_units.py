"""burstlab.units: parsing readable times, rates and sizes — by the core's parsers, so
that Python and a scenario accept the same strings with the same values."""

from __future__ import annotations

import json
from typing import Any

import pytest

from burstlab import _core, units


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1ms", 1e-3),
        ("250us", 250e-6),
        ("250µs", 250e-6),
        ("0.1s", 0.1),
        ("1e-3", 1e-3),
        ("10 ns", 1e-8),
        ("2min", 120.0),
        (".5s", 0.5),
        ("0", 0.0),
        (0.25, 0.25),
    ],
)
def test_parse_time(text: str | float, seconds: float) -> None:
    assert units.parse_time(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        ("125MB/s", 1e9),
        ("125MBps", 1e9),
        ("10Gb/s", 1e10),
        ("10Gbps", 1e10),
        ("1.25KB/s", 1e4),
        ("1.25kB/s", 1e4),
        ("500KB/s", 4e6),
        ("500Mbps", 5e8),
        ("1e6", 1e6),
        (2.5e9, 2.5e9),
    ],
)
def test_parse_rate(text: str | float, bps: float) -> None:
    assert units.parse_rate(text) == pytest.approx(bps)


@pytest.mark.parametrize(
    ("text", "nbytes"),
    [
        ("1000B", 1000.0),
        ("1KB", 1000.0),
        ("64KiB", 65536.0),
        ("512", 512.0),
        ("1.5MB", 1.5e6),
    ],
)
def test_parse_size(text: str, nbytes: float) -> None:
    assert units.parse_size(text) == pytest.approx(nbytes)


@pytest.mark.parametrize(
    "text", ["", "abc", "ms", "1xs", "-1ms", "1 ms s", "nan", "inf s", "1..2s"]
)
def test_parse_time_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="time"):
        units.parse_time(text)


@pytest.mark.parametrize(
    "text", ["", "10G", "1MB", "12 furlongs/s", "MB/s", "-1Mb/s", "1XB/s", "ps",
             "10Gbit/s", "1KiB/s", "1GiB/s", "0", "0.4b/s", "2Pb/s"]
)
def test_parse_rate_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="rate"):
        units.parse_rate(text)


@pytest.mark.parametrize("text", ["", "1MB/s", "1 parsec", "KB", "-1B", "1kb", "1TB", "1Kib"])
def test_parse_size_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="size"):
        units.parse_size(text)


def test_non_string_non_number_rejected() -> None:
    with pytest.raises(TypeError):
        units.parse_time(True)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        units.parse_rate(-1.0)
    with pytest.raises(ValueError):
        units.parse_size(float("nan"))


def test_segment_conversions() -> None:
    assert units.rate_to_segments_per_second("125MB/s", "1000B") == pytest.approx(
        125_000
    )
    assert units.rate_to_segments_per_second("1.25KB/s", "1KB") == pytest.approx(1.25)
    assert units.rate_to_segments_per_second("200Mbps", "512B") == pytest.approx(
        2e8 / 4096
    )
    assert units.segments_per_second(8e6, 1000) == pytest.approx(1000)
    assert units.segments_to_bits_per_second(418.37, 1000) == pytest.approx(3_346_960)
    with pytest.raises(ValueError, match="mss"):
        units.segments_per_second(1e6, 0)


def test_formatting() -> None:
    assert units.format_time(0.0039711) == "3.97 ms"
    assert units.format_time(9.0) == "9 s"
    assert units.format_time(250e-6) == "250 us"
    assert units.format_rate(1e9) == "1 Gb/s"
    assert units.format_rate(790_600) == "790.6 kb/s"


# ----------------------------------------------------------- Python and the core agree

#: Strings for each kind, with the value the core gives (None: refused). Among them the
#: ones Python's own parser used to accept and the core refuses (binary rate prefixes,
#: "bit" spelt out, sizes in bits or terabytes, "secs", a zero rate), and "1/s", which the
#: core accepts as 1 b/s.
TABLE: dict[str, list[tuple[str, float | None]]] = {
    "time": [("1ms", 1e-3), ("250us", 250e-6), ("250µs", 250e-6), ("250μs", 250e-6),
             ("10 ns", 1e-8), ("3ps", 3e-12), ("0.1s", 0.1), ("1.5 sec", 1.5),
             ("2min", 120.0), ("1h", 3600.0), ("1e-3", 1e-3), (".5s", 0.5), ("+2s", 2.0),
             ("0", 0.0), ("0.4ps", 0.0), ("0.6ps", 1e-12), ("1.8e7s", 1.8e7),
             ("2e7s", None), ("2secs", None), ("1 fortnight", None), ("", None),
             ("ms", None), ("-1ms", None), ("nan", None), ("inf s", None), ("1e999", None)],
    "rate": [("125MB/s", 1e9), ("125MBps", 1e9), ("10Gb/s", 1e10), ("10Gbps", 1e10),
             ("1.25KB/s", 1e4), ("1.25kB/s", 1e4), ("500Mbps", 5e8), ("1e6", 1e6),
             ("1.5", 2.0), ("100Tb/s", 1e14), ("1e15", 1e15), ("1/s", 1.0),
             ("1GiB/s", None), ("1KiB/s", None), ("10Gbit/s", None), ("0", None),
             ("0.4", None), ("2e15", None), ("10GB", None), ("10Gb", None),
             ("5 furlongs", None), ("-1Mb/s", None), ("1PB/s", None)],
    "size": [("1000B", 1000.0), ("1KB", 1000.0), ("1kB", 1000.0), ("64KiB", 65536.0),
             ("1.5MB", 1.5e6), ("2MiB", 2.0 * 2**20), ("1GiB", 2.0**30), ("1GB", 1e9),
             ("512", 512.0), ("1.5", 2.0), ("0", 0.0),
             ("1kb", None), ("1TB", None), ("1TiB", None), ("1MB/s", None),
             ("1 parsec", None), ("-3B", None), ("KB", None)],
}

PARSERS = {"time": units.parse_time, "rate": units.parse_rate, "size": units.parse_size}

#: The scenario field each kind is checked in: fields with no constraint beyond the
#: parse (validate accepts every value the parser gives).
FIELD = {"time": "delay", "rate": "rate", "size": "queue_bytes"}


def _scenario(sim: dict[str, Any] | None = None, **link: Any) -> str:
    return json.dumps({
        "sim": {"duration": "1s", **(sim or {})},
        "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "link": [{"a": "a", "b": "b", "rate": "10Mb/s", "delay": "1ms", **link}]})


def _core_accepts(kind: str, text: str) -> bool:
    try:
        _core.validate(_scenario(**{FIELD[kind]: text}), "json")
    except _core.ScenarioError as e:
        assert str(e).startswith(f"link[0].{FIELD[kind]}: "), e
        return False
    return True


@pytest.mark.parametrize(("kind", "text", "value"),
                         [(k, t, v) for k, rows in TABLE.items() for t, v in rows])
def test_python_and_the_core_agree(kind: str, text: str, value: float | None) -> None:
    """Accepted by burstlab.units exactly when a scenario field accepts it; the value is
    the table's, and for times and sizes also the one the core resolves."""
    try:
        got: float | None = PARSERS[kind](text)
    except ValueError as e:
        assert repr(text) in str(e) and str(e).startswith(kind), e  # names the value
        got = None
    assert (got is not None) == _core_accepts(kind, text)
    if value is None:
        assert got is None
        return
    assert got == pytest.approx(value, rel=1e-15, abs=0.0)
    if kind == "time" and 0 < value <= 1e7:
        est = _core.event_estimate(_scenario({"duration": text}), "json")
        assert got == est["duration_s"]
    if kind == "size" and value >= 2**20:
        est = _core.memory_estimate(_scenario({"max_memory": text}), "json")
        assert got == est["max_memory"]


def test_numbers_go_through_the_core_too() -> None:
    assert units.parse_time(0.25) == 0.25
    assert units.parse_time(1e-13) == 0.0  # below a picosecond
    assert units.parse_rate(2.5e9) == 2.5e9
    assert units.parse_rate(1.5) == 2.0  # whole bits per second
    assert units.parse_size(1.5) == 2.0
    assert units.parse_size(10**6) == 1e6
    for bad in (0, 0.4, -1, float("inf")):
        with pytest.raises(ValueError, match=r"^rate "):
            units.parse_rate(bad)
    # Numbers, like strings, are accepted exactly when a scenario field accepts them.
    for kind, numbers in (("time", (0, 1e-13, 2.5, 1.8e7, 2e7, -1.0)),
                          ("rate", (1, 0.4, 1.5, 1e15, 2e15, -3)),
                          ("size", (0, 1.5, 1e15, -2))):
        for x in numbers:
            try:
                PARSERS[kind](x)
                accepted = True
            except ValueError:
                accepted = False
            try:
                _core.validate(_scenario(**{FIELD[kind]: x}), "json")
                core = True
            except _core.ScenarioError:
                core = False
            assert accepted == core, (kind, x)
    with pytest.raises(ValueError, match=r"^time 1e\+300: .*range"):
        units.parse_time(1e300)
    with pytest.raises(ValueError, match=r"too large"):
        units.parse_size(10**400)
