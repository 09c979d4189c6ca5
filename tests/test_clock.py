"""Clocks: ``ScaledClock`` is wall time running faster (tests and benchmarks of a running piece)."""
from __future__ import annotations

import time

import pytest

from sensekit.clock import ScaledClock


def test_a_scaled_clock_runs_faster_than_the_wall():
    clock = ScaledClock(4.0)
    start = time.monotonic()
    clock.sleep_until(0.4)
    assert 0.09 <= time.monotonic() - start < 0.5 and clock.now() >= 0.4


def test_a_scaled_clock_needs_a_positive_speed():
    with pytest.raises(ValueError, match="speed"):
        ScaledClock(0)
