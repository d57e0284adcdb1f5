"""Parse and format human-readable times, rates and sizes.

Read first: :func:`parse_time`, :func:`parse_rate`, :func:`parse_size`. The three
parsers are the core's (``crates/burstlab-core/src/units.rs``, through the deserialisers
of ``burstlab_core::scenario::{Dur, Rate, Size}`` and ``burstlab._core``): a string or
number is accepted here exactly when a scenario field of that kind accepts it, with the
same value. The core keeps time in whole picoseconds, rates in whole bits per second and
sizes in whole bytes; the parsers return those as floats in the base unit.

* Times return seconds: ``"1ms"``, ``"250us"``, ``"250µs"``, ``"10ns"``, ``"3ps"``,
  ``"0.1s"``, ``"2min"``, ``"1h"``; a bare number is seconds. Rounded to the picosecond.
* Rates return **bits per second**. A capital ``B`` means bytes, a small ``b`` bits,
  per second as ``/s`` or ``ps``: ``"125MB/s"`` and ``"125MBps"`` are 10⁹ bit/s,
  ``"10Gb/s"`` and ``"10Gbps"`` 10¹⁰ bit/s. Prefixes are decimal (k/K, M, G, T); a bare
  number is bits/s. A rate is at least 1 b/s and at most 1 Pb/s (10¹⁵), rounded to the
  bit per second.
* Sizes return **bytes**: ``"1000B"``, ``"1KB"``/``"1kB"`` (1000), ``"10MB"``,
  ``"1GB"``, ``"64KiB"`` (65 536), ``"1MiB"``, ``"1GiB"``; a bare number is bytes.
  Rounded to the byte.

Every parser accepts an ``int``/``float`` as well (taken in the base unit), raises
``TypeError`` for anything else, and ``ValueError`` naming the kind and the value with
the core's reason otherwise (negative, non-finite, an unknown unit, a size given where a
rate is expected). Zero is a valid time and size, not a rate.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from burstlab import _core

__all__ = [
    "format_rate",
    "format_time",
    "parse_rate",
    "parse_size",
    "parse_time",
    "rate_to_segments_per_second",
    "segments_per_second",
    "segments_to_bits_per_second",
]

#: Picoseconds per second: the core's unit of time (``units.rs``, ``PS_PER_SEC``).
PS_PER_S = 1e12


def _core_parse(kind: str, parse: Callable[[str | float], int], value: str | float) -> int:
    """``parse(value)`` by the core, with errors that name the kind and the value."""
    if isinstance(value, str):
        arg: str | float = value
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            arg = float(value)
        except OverflowError:
            raise ValueError(f"{kind} {value!r} is too large") from None
    else:
        raise TypeError(f"{kind} must be a string or a number, got {value!r}")
    try:
        return parse(arg)
    except ValueError as e:
        raise ValueError(f"{kind} {value!r}: {e}") from None


def _check_number(kind: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{kind} must be a string or a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{kind} must be a finite non-negative number, got {value!r}")
    return v


def parse_time(text: str | float) -> float:
    """Parse a duration and return seconds.

    >>> parse_time("250us"), parse_time("2min"), parse_time(0.1)
    (0.00025, 120.0, 0.1)
    >>> parse_time("-1s")
    Traceback (most recent call last):
    ...
    ValueError: time '-1s': ...
    """
    return _core_parse("time", _core.parse_duration, text) / PS_PER_S


def parse_rate(text: str | float) -> float:
    """Parse a data rate and return bits per second.

    ``"125MB/s"`` → 1e9, ``"10Gb/s"`` → 1e10, ``"1.25KB/s"`` → 1e4,
    ``"500Mbps"`` → 5e8, ``"125MBps"`` → 1e9, ``"1e6"`` → 1e6.

    >>> parse_rate("125MB/s"), parse_rate("10Gb/s"), parse_rate("500Mbps")
    (1000000000.0, 10000000000.0, 500000000.0)
    """
    return float(_core_parse("rate", _core.parse_rate, text))


def parse_size(text: str | float) -> float:
    """Parse a data size and return bytes.

    >>> parse_size("1KB"), parse_size("64KiB"), parse_size(1500)
    (1000.0, 65536.0, 1500.0)
    """
    return float(_core_parse("size", _core.parse_size, text))


def segments_per_second(rate_bps: float, mss_bytes: float) -> float:
    """Convert a rate in bits/s to segments/s for a segment size in bytes: ``rate/(8·MSS)``.

    >>> segments_per_second(1e9, 1000)
    125000.0
    """
    r = _check_number("rate", rate_bps)
    m = _check_number("mss", mss_bytes)
    if m <= 0:
        raise ValueError(f"mss must be > 0 bytes, got {mss_bytes!r}")
    return r / (8.0 * m)


def rate_to_segments_per_second(rate: str | float, mss: str | float) -> float:
    """Parse a rate (e.g. ``"125MB/s"``) and an MSS (e.g. ``"1000B"``) into segments/s.

    >>> rate_to_segments_per_second("125MB/s", "1000B")
    125000.0
    """
    return segments_per_second(parse_rate(rate), parse_size(mss))


def segments_to_bits_per_second(segments_per_s: float, mss_bytes: float) -> float:
    """Convert segments/s to bits/s: ``segments × MSS × 8``.

    >>> segments_to_bits_per_second(120.68, 1000)
    965440.0
    """
    s = _check_number("segment rate", segments_per_s)
    m = _check_number("mss", mss_bytes)
    return s * m * 8.0


def format_time(seconds: float) -> str:
    """Format seconds with a readable unit.

    >>> format_time(0.00397), format_time(2.5e-7), format_time(300)
    ('3.97 ms', '250 ns', '300 s')
    """
    s = float(seconds)
    a = abs(s)
    if a == 0 or not math.isfinite(s):
        return f"{s:g} s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if a >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-12:.3g} ps"


def format_rate(bits_per_s: float) -> str:
    """Format bits/s with an SI prefix.

    >>> format_rate(1.5e9), format_rate(965440.0)
    ('1.5 Gb/s', '965.4 kb/s')
    """
    r = float(bits_per_s)
    a = abs(r)
    for unit, scale in (("Tb/s", 1e12), ("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if a >= scale:
            return f"{r / scale:.4g} {unit}"
    return f"{r:.4g} b/s"
