"""burstlab.units: parsing readable times, rates and sizes."""

from __future__ import annotations

import pytest

from burstlab import units


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
        ("10Gbit/s", 1e10),
        ("1.25KB/s", 1e4),
        ("1.25kB/s", 1e4),
        ("500KB/s", 4e6),
        ("500Mbps", 5e8),
        ("1KiB/s", 8192.0),
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
        ("1kb", 125.0),
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
    "text", ["", "10G", "1MB", "12 furlongs/s", "MB/s", "-1Mb/s", "1XB/s", "ps"]
)
def test_parse_rate_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="rate"):
        units.parse_rate(text)


@pytest.mark.parametrize("text", ["", "1MB/s", "1 parsec", "KB", "-1B"])
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
