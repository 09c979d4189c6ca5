"""``sensekit.steer.keep_up``: a pursuer's top speed that follows its target's smoothed speed."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.steer import TargetSpeed, Vehicle, arrive, keep_up_speed

DT = 1 / 30


def test_the_smoothed_speed_converges_to_a_steady_targets_speed():
    ts = TargetSpeed(tau_s=0.25)
    speeds = [ts.update((100 + 200 * k * DT, 50.0), DT) for k in range(60)]
    assert speeds[0] == 0.0                          # one position is no speed yet
    assert speeds[3] < speeds[10] < speeds[30]       # it rises smoothly, no jump to the value
    assert speeds[-1] == pytest.approx(200.0, rel=1e-3)


def test_a_lost_target_resets_and_a_jump_is_capped():
    ts = TargetSpeed(tau_s=0.25, max_step_speed=500.0)
    for k in range(30):
        ts.update((10.0 * k, 0.0), DT)
    assert ts.update(None, DT) == 0.0
    assert ts.update((0.0, 0.0), DT) == 0.0          # found again: no speed from before the loss
    after_jump = ts.update((600.0, 0.0), DT)          # 18000 px/s for one step: a re-found object
    assert after_jump == pytest.approx(500.0 * (1 - math.exp(-DT / 0.25)))


def test_keep_up_speed_is_the_larger_of_base_and_ratio_times_target():
    assert keep_up_speed(160.0, 50.0, 2.5) == 160.0
    assert keep_up_speed(160.0, 200.0, 2.5) == 500.0
    assert keep_up_speed(160.0, 900.0, 0.0) == 160.0   # ratio 0: the book's fixed top speed


@pytest.mark.parametrize("call, name", [
    (lambda: TargetSpeed(tau_s=0), "tau_s"),
    (lambda: TargetSpeed(max_step_speed=-1), "max_step_speed"),
    (lambda: TargetSpeed().update((0, 0), 0.0), "dt"),
    (lambda: TargetSpeed().update((math.nan, 0), DT), "target"),
    (lambda: keep_up_speed(160.0, 10.0, -1.0), "ratio"),
])
def test_bad_values_name_themselves(call, name):
    with pytest.raises(ConfigError, match=name):
        call()


def _chase(ratio: float, target_speed: float = 250.0, steps: int = 300) -> list[float]:
    """A vehicle (top speed 160) arriving at a point moving at ``target_speed`` px/s in a
    straight line; its distance to the point after each step."""
    veh = Vehicle((0.0, 0.0), max_speed=160.0, max_force=480.0)
    ts, gaps = TargetSpeed(), []
    for k in range(steps):
        target = np.array([200.0 + target_speed * k * DT, 0.0])
        top = keep_up_speed(160.0, ts.update(target, DT), ratio)
        veh.max_speed, veh.max_force = top, 3 * top
        veh.update(arrive(veh, target, slow_radius=120), DT)
        gaps.append(float(np.hypot(*(veh.position - target))))
    return gaps


def test_a_pursuer_that_keeps_up_closes_in_on_a_faster_target():
    fixed, keeping = _chase(0.0), _chase(2.5)
    assert fixed[-1] > fixed[100] > 200                # the book's arrive falls further behind
    assert max(keeping[200:]) < 60                     # keeping up, it settles within 60 px
    assert keeping[-1] < 0.2 * fixed[-1]
