"""Keep up: a pursuer's top speed that follows the speed of what it pursues.

A vehicle arriving at a moving target with a fixed top speed trails it: inside the slow
radius arrive's desired speed is ``max_speed * d / slow_radius``, so against a target moving
at ``v`` it settles about ``v * slow_radius / max_speed`` behind, and a target faster than
``max_speed`` it never catches. A pursuer has to be faster than what it pursues.

- ``TargetSpeed``: the target's speed, smoothed exponentially with time constant ``tau_s``
  (default 0.25 s); one step's jump is capped at ``max_step_speed`` px/s so a tracker that
  re-finds its object elsewhere does not count as speed; a lost target (``None``) resets it.
- ``keep_up_speed(base, target_speed, ratio)``: ``max(base, ratio * target_speed)``; ratio 0
  keeps the fixed ``base`` (the book's arrive, chapter 2).

Cost: a few float operations per step. Failure modes: ``ConfigError`` naming the value for a
non-positive ``tau_s`` or ``max_step_speed``, a negative ``ratio`` or ``base``, a non-positive ``dt``.
"""
from __future__ import annotations

import math
from typing import Any

from sensekit.validate import as_vec, check_positive


class TargetSpeed:
    """The smoothed speed (units per second) of a point seen once per step."""

    def __init__(self, *, tau_s: float = 0.25, max_step_speed: float = 2000.0) -> None:
        self.tau_s = check_positive("tau_s", tau_s)
        self.max_step_speed = check_positive("max_step_speed", max_step_speed)
        self.speed = 0.0
        self._last: Any = None

    def reset(self) -> None:
        self.speed, self._last = 0.0, None

    def update(self, point: Any, dt: float) -> float:
        """Take the target's position this step (``None``: no target; resets) and return the
        smoothed speed."""
        dt = check_positive("dt", dt)
        if point is None:
            self.reset()
            return 0.0
        p = as_vec("target", point)
        if self._last is not None:
            step = min(math.hypot(*(p - self._last)) / dt, self.max_step_speed)
            a = 1.0 - math.exp(-dt / self.tau_s)
            self.speed += a * (step - self.speed)
        self._last = p
        return self.speed


def keep_up_speed(base: float, target_speed: float, ratio: float) -> float:
    """A pursuer's top speed: ``base``, or ``ratio`` times the target's speed when that is more."""
    check_positive("base", base, allow_zero=True)
    check_positive("target_speed", target_speed, allow_zero=True)
    check_positive("ratio", ratio, allow_zero=True)
    return max(base, ratio * target_speed)
