"""One-Euro filter (Casiez, Roussel and Vogel, CHI 2012) for tracked positions.

A low-pass filter whose cutoff rises with speed: a held object barely jitters, a fast
move is followed with little lag. Defaults (pixels, seconds): ``min_cutoff_hz=1.0``,
``beta=0.05`` (per px/s; the tracker uses 0.05), ``d_cutoff_hz=1.0``. Cost: a few float operations per value.
Time comes from the items' ``t`` (so replays smooth identically); a repeated or
backwards time stamp is treated as one frame at ``fallback_dt_s``.
"""
from __future__ import annotations

import math

from sensekit.validate import check_positive

__all__ = ["OneEuroFilter", "OneEuro2D"]


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
