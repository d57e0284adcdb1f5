"""Input checking and array plumbing shared by the analytical models.

Every public model function converts its numeric arguments with :func:`arr`,
checks them with one of the ``check_*`` helpers (which raise a ``ValueError``
that names the offending parameter and shows an offending value), broadcasts
them against each other, and returns its result through :func:`finish`, so
that scalar inputs give a ``numpy.float64`` and array inputs give an array.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: What every model function returns: a ``numpy.float64`` for scalar inputs,
#: otherwise a float64 array of the broadcast shape of the inputs.
FloatOrArray = np.float64 | npt.NDArray[np.float64]

Array = npt.NDArray[np.float64]


def arr(name: str, value: npt.ArrayLike) -> Array:
    """Convert ``value`` to a float64 array, rejecting non-numeric and non-finite input."""
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"{name} must be a number or an array of numbers, got {value!r}"
        )
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must be a number or an array of numbers, got {value!r}"
        ) from exc
    if a.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(a)):
        bad = a[~np.isfinite(a)].flat[0]
        raise ValueError(f"{name} must be finite, got {bad}")
    return a


def _first_bad(a: Array, ok: npt.NDArray[np.bool_]) -> float:
    return float(a[~ok].flat[0])


def check_probability(name: str, value: npt.ArrayLike) -> Array:
    """A loss probability: strictly inside (0, 1)."""
    a = arr(name, value)
    ok = (a > 0.0) & (a < 1.0)
    if not np.all(ok):
        raise ValueError(
            f"{name} must lie strictly between 0 and 1, got {_first_bad(a, ok)}"
        )
    return a


def check_nonnegative(name: str, value: npt.ArrayLike, unit: str = "") -> Array:
    """A non-negative quantity, e.g. an assembly time (s)."""
    a = arr(name, value)
    ok = a >= 0.0
    if not np.all(ok):
        u = f" {unit}" if unit else ""
        raise ValueError(f"{name} must be >= 0{u}, got {_first_bad(a, ok)}")
    return a


def check_positive(name: str, value: npt.ArrayLike, unit: str = "") -> Array:
    """A strictly positive quantity, e.g. RTT0 (s), RTO (s) or λ (segments/s)."""
    a = arr(name, value)
    ok = a > 0.0
    if not np.all(ok):
        u = f" {unit}" if unit else ""
        raise ValueError(f"{name} must be > 0{u}, got {_first_bad(a, ok)}")
    return a


def check_at_least_one(
    name: str, value: npt.ArrayLike, unit: str = "segments"
) -> Array:
    """A segment count that is at least 1, e.g. ``Wm`` or ``S``."""
    a = arr(name, value)
    ok = a >= 1.0
    if not np.all(ok):
        raise ValueError(f"{name} must be >= 1 {unit}, got {_first_bad(a, ok)}")
    return a


def check_b(value: npt.ArrayLike) -> Array:
    """Segments acknowledged per ACK: 1 (every segment ACKed) or 2 (delayed ACKs)."""
    a = arr("b", value)
    ok = (a == 1.0) | (a == 2.0)
    if not np.all(ok):
        raise ValueError(
            f"b (segments per ACK) must be 1 or 2, got {_first_bad(a, ok)}"
        )
    return a


def finish(value: npt.ArrayLike) -> FloatOrArray:
    """Return a ``numpy.float64`` for 0-d results, else a float64 array."""
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 0:
        return np.float64(a[()])
    return a
