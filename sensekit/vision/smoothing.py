"""One-Euro filter (Casiez, Roussel and Vogel, CHI 2012) for tracked positions.

A low-pass filter whose cutoff rises with speed: a held object barely jitters, a fast
move is followed with little lag. Defaults (pixels, seconds): ``min_cutoff_hz=1.0``,
``beta=0.05`` (per px/s; the tracker uses 0.05), ``d_cutoff_hz=1.0``. Cost: a few float operations per value.
Time comes from the items' ``t`` (so replays smooth identically); a repeated or
backwards time stamp is treated as one frame at ``fallback_dt_s``.

``OneEuroArray`` is the same filter on a whole NumPy array at once (e.g. 21 hand landmarks x
3 coordinates, ~15 us), with a ``speed_scale`` so ``beta`` can be given per hand size per
second instead of per pixel per second.
"""
from __future__ import annotations

import math

import numpy as np

from sensekit.validate import check_positive

__all__ = ["OneEuroFilter", "OneEuro2D", "OneEuroArray"]


def _alpha(cutoff_hz: float, dt_s: float) -> float:
    tau = 1.0 / (2.0 * math.pi * cutoff_hz)
    return 1.0 / (1.0 + tau / dt_s)


class OneEuroFilter:
    """Filters one scalar signal. ``reset()`` forgets the history (e.g. after a loss)."""

    def __init__(self, *, min_cutoff_hz: float = 1.0, beta: float = 0.02,
                 d_cutoff_hz: float = 1.0, fallback_dt_s: float = 1 / 30) -> None:
        self.min_cutoff_hz = check_positive("min_cutoff_hz", min_cutoff_hz)
        self.beta = check_positive("beta", beta, allow_zero=True)
        self.d_cutoff_hz = check_positive("d_cutoff_hz", d_cutoff_hz)
        self.fallback_dt_s = check_positive("fallback_dt_s", fallback_dt_s)
        self.reset()

    def reset(self) -> None:
        self._x: float | None = None
        self._dx = 0.0
        self._t: float | None = None

    def __call__(self, x: float, t: float) -> float:
        if self._x is None or self._t is None:
            self._x, self._t, self._dx = float(x), float(t), 0.0
            return self._x
        dt = t - self._t
        if not dt > 0:
            dt = self.fallback_dt_s
        self._t = float(t)
        dx = (x - self._x) / dt
        self._dx += _alpha(self.d_cutoff_hz, dt) * (dx - self._dx)
        cutoff = self.min_cutoff_hz + self.beta * abs(self._dx)
        self._x += _alpha(cutoff, dt) * (x - self._x)
        return self._x


class OneEuro2D:
    """Two One-Euro filters sharing the settings, for an ``(x, y)`` point."""

    def __init__(self, **kwargs: float) -> None:
        self.fx = OneEuroFilter(**kwargs)
        self.fy = OneEuroFilter(**kwargs)

    def reset(self) -> None:
        self.fx.reset()
        self.fy.reset()

    def __call__(self, x: float, y: float, t: float) -> tuple[float, float]:
        return self.fx(x, t), self.fy(y, t)


class OneEuroArray(OneEuroFilter):
    """One-Euro on every element of an array (same shape each call), vectorized.

    Same settings as ``OneEuroFilter``. The cutoff of each element rises with its own speed
    times ``speed_scale`` (pass ``1 / size`` to make ``beta`` independent of how large the
    object is in the picture).
    """

    def reset(self) -> None:
        self._xa: np.ndarray | None = None
        self._dxa: np.ndarray | None = None
        self._ta = 0.0

    def __call__(self, x: np.ndarray, t: float, speed_scale: float = 1.0) -> np.ndarray:  # type: ignore[override]
        """The filtered values (a new array)."""
        x = np.asarray(x, dtype=np.float64)
        if self._xa is None or self._dxa is None or self._xa.shape != x.shape:
            self._xa, self._dxa, self._ta = x.copy(), np.zeros_like(x), float(t)
            return self._xa.copy()
        dt = t - self._ta
        if not dt > 0:
            dt = self.fallback_dt_s
        self._ta = float(t)
        dx = (x - self._xa) / dt
        self._dxa += _alpha(self.d_cutoff_hz, dt) * (dx - self._dxa)
        cutoff = self.min_cutoff_hz + (self.beta * speed_scale) * np.abs(self._dxa)
        tau = 1.0 / (2.0 * math.pi * cutoff)
        self._xa += (x - self._xa) / (1.0 + tau / dt)
        return self._xa.copy()
