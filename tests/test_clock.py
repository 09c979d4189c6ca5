"""Clocks: ``ScaledClock`` is wall time running faster (tests and benchmarks of a running piece)."""
from __future__ import annotations

import time

import pytest

from sensekit.clock import ScaledClock


def test_a_scaled_clock_runs_faster_than_the_wall(monkeypatch):
    asked: list[float] = []
    real_sleep = time.sleep

    def sleep(s: float) -> None:
        asked.append(s)
        real_sleep(s)

    monkeypatch.setattr(time, "sleep", sleep)
    start = time.monotonic()                      # before the clock's own start
    clock = ScaledClock(4.0)
    before = clock.now()
    clock.sleep_until(0.4)
    # one sleep of at most the scaled delay: 0.4 s of clock is 0.1 s of wall (exact, whatever
    # the load: time passing before the sleep only shortens it)
    assert len(asked) == 1 and 0 < asked[0] <= (0.4 - before) / 4.0 <= 0.1
    assert clock.now() >= 0.4 and time.monotonic() - start >= 0.09


def test_a_scaled_clock_needs_a_positive_speed():
    with pytest.raises(ValueError, match="speed"):
        ScaledClock(0)
