"""A stretch of a clip around a burst's peak, as the evaluation's clap features read it.

``clap_attack``, ``clap_early_decay``, ``clap_ring_modes`` and ``clap_hpss`` each measure windows a
few ms before and after the peak at sample ``p``: ``ms_samples`` turns their milliseconds into
samples (rounded), ``window_in`` says whether a clip holds a window up to some ms after the peak,
``padded`` cuts ``x[a:b]`` with zeros where the window runs past the clip (a clap in its first or
last milliseconds is measured as if silence surrounded it), and ``check_peak`` refuses what none
of them can measure, in one line naming the value. Pure NumPy.
"""
from __future__ import annotations

import numpy as np

__all__ = ["check_peak", "ms_samples", "padded", "window_in"]


def ms_samples(ms: float, rate: int) -> int:
    """``ms`` milliseconds at ``rate`` Hz, in whole samples (rounded)."""
    return int(round(ms * 1e-3 * rate))


def window_in(n: int, p: int, rate: int, to_ms: float) -> bool:
    """Whether ``n`` samples hold a window up to ``to_ms`` after the peak at sample ``p``."""
    return p + ms_samples(to_ms, rate) <= n


def padded(x: np.ndarray, a: int, b: int) -> np.ndarray:
    """``x[a:b]`` as float64, zeros where ``a..b`` lies outside ``x`` (``a`` may be negative)."""
    w = np.zeros(b - a, np.float64)
    lo, hi = max(a, 0), min(b, len(x))
    if hi > lo:
        w[lo - a:hi - a] = x[lo:hi]
    return w


def check_peak(x: np.ndarray, p: int, rate: int, *, what: str, min_rate: int = 2000) -> None:
    """``ValueError`` for a rate under ``min_rate`` ("``what`` a rate of at least 2 kHz, got 1000")
    or a peak ``p`` outside ``x``."""
    if rate < min_rate:
        raise ValueError(f"{what} a rate of at least {min_rate // 1000:g} kHz, got {rate}")
    if not 0 <= p < len(x):
        raise ValueError(f"peak {p} outside the {len(x)} samples")
