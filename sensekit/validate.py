"""Shared validators. Each raises ``ConfigError`` quoting the name and the bad value."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from sensekit.errors import ConfigError


def check_range(name: str, value: float, lo: float, hi: float) -> float:
    """Return ``value`` if ``lo <= value <= hi`` (and finite), else raise."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be a number in {lo:g}..{hi:g}, got {value!r}") from None
    if not math.isfinite(v) or v < lo or v > hi:
        raise ConfigError(f"`{name}` must be {lo:g}..{hi:g}, got {value!r}")
    return v


def check_int_range(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError(f"`{name}` must be an integer {lo}..{hi}, got {value!r}")
    if not lo <= int(value) <= hi:
        raise ConfigError(f"`{name}` must be {lo}..{hi}, got {value!r}")
    return int(value)


def check_positive(name: str, value: Any, *, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be a positive number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        word = "non-negative" if allow_zero else "positive"
        raise ConfigError(f"`{name}` must be {word}, got {value!r}")
    return v


def check_frame(frame: Any, name: str = "frame") -> np.ndarray:
    """A BGR frame must be an HxWx3 uint8 array."""
    if not isinstance(frame, np.ndarray):
        raise ConfigError(f"`{name}` must be an HxWx3 uint8 numpy array, got {type(frame).__name__}")
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ConfigError(
            f"`{name}` must be an HxWx3 uint8 array, got shape {frame.shape} dtype {frame.dtype}"
        )
    return frame
