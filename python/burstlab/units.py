"""Parse and format human-readable times, rates and sizes.

Read first: :func:`parse_time`, :func:`parse_rate`, :func:`parse_size`.

* Times return seconds: ``"1ms"``, ``"250us"``, ``"250µs"``, ``"10ns"``,
  ``"0.1s"``, ``"2min"``; a bare number (``"1e-3"``) is seconds.
* Rates return **bits per second**. A capital ``B`` means bytes, a small ``b``
  bits: ``"125MB/s"`` and ``"125MBps"`` are 125·10⁶ bytes/s = 10⁹ bit/s;
  ``"10Gb/s"``, ``"10Gbps"`` and ``"10Gbit/s"`` are 10¹⁰ bit/s. SI prefixes
  (k/K, M, G, T) are powers of 1000; binary prefixes (Ki, Mi, Gi, Ti) powers of
  1024. A bare number is bits/s.
* Sizes return **bytes**: ``"1000B"``, ``"1KB"`` (1000), ``"64KiB"`` (65 536),
  ``"1kb"`` (1000 bits = 125 bytes); a bare number is bytes.

Every parser accepts an ``int``/``float`` as well (taken in the base unit) and
raises ``ValueError`` naming the bad string otherwise. Negative and non-finite
values are rejected; zero is allowed (callers decide whether it makes sense).
"""

from __future__ import annotations

import math
import re

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

_NUMBER = r"(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
_PATTERN = re.compile(rf"^\s*{_NUMBER}\s*(?P<unit>[^\s\d.+-][^\s]*)?\s*$")

_TIME_UNITS = {
    "": 1.0,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ns": 1e-9,
    "ps": 1e-12,
    "min": 60.0,
    "h": 3600.0,
}

_PREFIX = {
    "": 1.0,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "Ki": 1024.0,
    "Mi": 1024.0**2,
    "Gi": 1024.0**3,
    "Ti": 1024.0**4,
}

# Unit word after the prefix -> multiplier to bits.
_QUANTITY = {
    "B": 8.0,
    "byte": 8.0,
    "bytes": 8.0,
    "b": 1.0,
    "bit": 1.0,
    "bits": 1.0,
}

_RATE_SUFFIXES = ("/s", "ps")


def _split(kind: str, text: str) -> tuple[float, str]:
    m = _PATTERN.match(text)
    if m is None:
        raise ValueError(
            f"cannot parse {kind} {text!r}: expected a number followed by a unit"
        )
    value = float(m.group("num"))
    if not math.isfinite(value):
        raise ValueError(f"{kind} {text!r} is not finite")
    if value < 0:
        raise ValueError(f"{kind} {text!r} must not be negative")
    return value, m.group("unit") or ""


def _check_number(kind: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{kind} must be a string or a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{kind} must be a finite non-negative number, got {value!r}")
    return v


def parse_time(text: str | float) -> float:
    """Parse a duration and return seconds, e.g. ``"250us"`` → ``0.00025``."""
    if not isinstance(text, str):
        return _check_number("time", text)
    value, unit = _split("time", text)
    if unit not in _TIME_UNITS:
        known = ", ".join(u for u in _TIME_UNITS if u)
        raise ValueError(f"unknown time unit {unit!r} in {text!r} (use one of {known})")
    return value * _TIME_UNITS[unit]


def _prefixed(kind: str, text: str, word: str) -> float:
    """Multiplier to bits for ``<prefix><quantity>``, e.g. ``"MB"`` → 8e6."""
    for q in sorted(_QUANTITY, key=len, reverse=True):
        if word.endswith(q):
            prefix = word[: len(word) - len(q)]
            if prefix in _PREFIX:
                return _PREFIX[prefix] * _QUANTITY[q]
    raise ValueError(
        f"unknown {kind} unit {word!r} in {text!r} "
        "(use e.g. B, KB, KiB, MB, b, kb, Mb; capital B = bytes, small b = bits)"
    )


def parse_rate(text: str | float) -> float:
    """Parse a data rate and return bits per second.

    ``"125MB/s"`` → 1e9, ``"10Gb/s"`` → 1e10, ``"1.25KB/s"`` → 1e4,
    ``"500Mbps"`` → 5e8, ``"125MBps"`` → 1e9, ``"1e6"`` → 1e6.
    """
    if not isinstance(text, str):
        return _check_number("rate", text)
    value, unit = _split("rate", text)
    if unit == "":
        return value
    for suffix in _RATE_SUFFIXES:
        if unit.endswith(suffix) and len(unit) > len(suffix):
            return value * _prefixed("rate", text, unit[: -len(suffix)])
    raise ValueError(
        f"rate {text!r} must end in /s or ps (e.g. 125MB/s, 10Gb/s, 500Mbps)"
    )


def parse_size(text: str | float) -> float:
    """Parse a data size and return bytes: ``"1KB"`` → 1000, ``"64KiB"`` → 65536."""
    if not isinstance(text, str):
        return _check_number("size", text)
    value, unit = _split("size", text)
    if unit == "":
        return value
    if unit.endswith(("/s", "ps")):
        raise ValueError(
            f"size {text!r} looks like a rate; give a size such as 1000B or 64KiB"
        )
    return value * _prefixed("size", text, unit) / 8.0


def segments_per_second(rate_bps: float, mss_bytes: float) -> float:
    """Convert a rate in bits/s to segments/s for a segment size in bytes: ``rate/(8·MSS)``."""
    r = _check_number("rate", rate_bps)
    m = _check_number("mss", mss_bytes)
    if m <= 0:
        raise ValueError(f"mss must be > 0 bytes, got {mss_bytes!r}")
    return r / (8.0 * m)


def rate_to_segments_per_second(rate: str | float, mss: str | float) -> float:
    """Parse a rate (e.g. ``"125MB/s"``) and an MSS (e.g. ``"1000B"``) into segments/s.

    ``rate_to_segments_per_second("125MB/s", "1000B")`` → 125 000.
    """
    return segments_per_second(parse_rate(rate), parse_size(mss))


def segments_to_bits_per_second(segments_per_s: float, mss_bytes: float) -> float:
    """Convert segments/s to bits/s: ``segments × MSS × 8``."""
    s = _check_number("segment rate", segments_per_s)
    m = _check_number("mss", mss_bytes)
    return s * m * 8.0


def format_time(seconds: float) -> str:
    """Format seconds with a readable unit: ``0.00397`` → ``"3.97 ms"``."""
    s = float(seconds)
    a = abs(s)
    if a == 0 or not math.isfinite(s):
        return f"{s:g} s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if a >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-12:.3g} ps"


def format_rate(bits_per_s: float) -> str:
    """Format bits/s with an SI prefix: ``1.5e9`` → ``"1.5 Gb/s"``."""
    r = float(bits_per_s)
    a = abs(r)
    for unit, scale in (("Tb/s", 1e12), ("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if a >= scale:
            return f"{r / scale:.4g} {unit}"
    return f"{r:.4g} b/s"
