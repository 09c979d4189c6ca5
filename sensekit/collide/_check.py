"""Input checks shared by ``sensekit.collide`` and ``sensekit.steer``.

Every array that crosses the public boundary goes through one of these, so a NaN
or a wrong shape is rejected here with a ``ConfigError`` that names the argument
and quotes the bad value, instead of silently spreading through a simulation.
Cost: one ``np.isfinite(...).all()`` pass (about 0.1 ms per 100,000 points).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sensekit.errors import ConfigError


def _first_bad(name: str, arr: np.ndarray, what: str) -> ConfigError:
    bad = ~np.isfinite(arr)
    if arr.ndim > 1:
        row = int(np.flatnonzero(bad.any(axis=tuple(range(1, arr.ndim))))[0])
        return ConfigError(f"`{name}` must be {what}; row {row} is {arr[row].tolist()!r}")
    idx = int(np.flatnonzero(bad)[0])
    return ConfigError(f"`{name}` must be {what}; item {idx} is {float(arr[idx])!r}")


def as_points(name: str, value: Any, n: int | None = None) -> NDArray[np.float64]:
    """``value`` as a C-contiguous float64 ``(N, 2)`` array of finite points."""
    try:
        arr = np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be an (N, 2) array of numbers, got {value!r}") from None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ConfigError(f"`{name}` must have shape (N, 2), got {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ConfigError(f"`{name}` must have {n} rows, got {arr.shape[0]}")
    if not np.isfinite(arr).all():
        raise _first_bad(name, arr, "finite")
    return arr


def as_vec(name: str, value: Any) -> NDArray[np.float64]:
    """``value`` as a finite float64 vector of shape ``(2,)``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be an (x, y) pair of numbers, got {value!r}") from None
    if arr.shape != (2,):
        raise ConfigError(f"`{name}` must be an (x, y) pair, got shape {arr.shape} ({value!r})")
    if not (np.isfinite(arr[0]) and np.isfinite(arr[1])):
        raise ConfigError(f"`{name}` must be finite, got {arr.tolist()!r}")
    return arr.copy()


def as_sizes(name: str, value: Any, n: int, *, allow_zero: bool = False) -> NDArray[np.float64]:
    """A scalar or length-``n`` array of finite positive numbers as float64 ``(n,)``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be numbers, got {value!r}") from None
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ConfigError(f"`{name}` must be a number or have shape ({n},), got shape {arr.shape}")
    arr = np.ascontiguousarray(arr)
    if not np.isfinite(arr).all():
        raise _first_bad(name, arr, "finite")
    bad = arr < 0 if allow_zero else arr <= 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        word = "non-negative" if allow_zero else "positive"
        raise ConfigError(f"`{name}` must be {word}; item {i} is {float(arr[i])!r}")
    return arr
