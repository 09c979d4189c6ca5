"""Clocks. Anything that waits on time takes one, so tests and replays can drive time.

``MonotonicClock`` reads ``time.monotonic``; ``ManualClock`` only moves when told
(``advance``/``set``), which is how a replay makes every run identical; ``ScaledClock(speed)``
is wall time running ``speed`` times faster (a replay paced at 4x real time: tests and
benchmarks of things that watch a running piece).
"""
from __future__ import annotations

import numbers
import time
from typing import Protocol


class Clock(Protocol):
    """What waits on time takes: ``now()`` in seconds and ``sleep_until(t)``, which returns
    at once when ``t`` has passed."""

    def now(self) -> float:
        """Seconds on this clock."""
        ...

    def sleep_until(self, t: float) -> None:
        """Return once ``now()`` has reached ``t`` (at once if it has)."""
        ...


class MonotonicClock:
    """Wall-clock seconds since the clock was made."""

    def __init__(self) -> None:
        self._t0 = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self._t0

    def sleep_until(self, t: float) -> None:
        delay = t - self.now()
        if delay > 0:
            time.sleep(delay)


class ScaledClock(MonotonicClock):
    """Wall-clock seconds since the clock was made, times ``speed``."""

    def __init__(self, speed: float = 1.0) -> None:
        # by hand, not arg_types.checked: the clock is on the floor below it (tests/test_house.py)
        if isinstance(speed, bool) or not isinstance(speed, numbers.Real) or not speed > 0:
            raise ValueError(f"`ScaledClock(speed=...)` must be a number > 0, got {type(speed).__name__} {speed!r}")
        super().__init__()
        self.speed: float = float(speed)

    def now(self) -> float:
        return super().now() * self.speed

    def sleep_until(self, t: float) -> None:
        delay = (t - self.now()) / self.speed
        if delay > 0:
            time.sleep(delay)


class ManualClock:
    """A clock that only moves when told; ``sleep_until`` jumps forward at once."""

    def __init__(self, t: float = 0.0) -> None:
        self._t = float(t)
        self.calls = 0

    def now(self) -> float:
        self.calls += 1
        return self._t

    def set(self, t: float) -> None:
        """Move the clock to ``t`` seconds (backwards too)."""
        self._t = float(t)

    def advance(self, dt: float) -> None:
        """Move the clock ``dt`` seconds on."""
        self._t += float(dt)

    def sleep_until(self, t: float) -> None:
        if t > self._t:
            self._t = float(t)
