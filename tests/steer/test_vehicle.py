"""Vehicle: the one integrator, limits, edges, and validation."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.steer import Mix, Vehicle, mix


def test_update_truncates_force_and_speed():
    v = Vehicle((0, 0), max_speed=10, max_force=1, response_s=1.0)
    v.update((100, 0), dt=1.0)                     # force capped at 1 -> speed 1
    assert np.allclose(v.velocity, [1, 0]) and np.allclose(v.position, [1, 0])
    for _ in range(50):
        v.update((100, 0), dt=1.0)
    assert np.isclose(v.speed, 10)                 # capped at max_speed


def test_mass_scales_acceleration_and_forces_sum():
    v = Vehicle(mass=2.0, max_force=100, response_s=1.0)
    v.update([(2, 0), (0, 4)], dt=0.5)
    assert np.allclose(v.velocity, [0.5, 1.0])


def test_apply_force_queues_until_update():
    v = Vehicle(response_s=1.0)
    v.apply_force((3, 0))
    assert np.allclose(v.position, 0) and np.allclose(v.velocity, 0)
    v.update(dt=1.0)
    assert np.allclose(v.velocity, [3, 0])
    v.update(dt=1.0)                               # queue was cleared
    assert np.allclose(v.velocity, [3, 0])


def test_wrap_and_bounce_edges():
    w = Vehicle((95, 50), (20, 0), edges="wrap", bounds=(100, 100))
    w.update(None, dt=0.5)
    assert np.allclose(w.position, [5, 50])
    b = Vehicle((95, 50), (20, 0), edges="bounce", bounds=(100, 100))
    b.update(None, dt=0.5)
    assert np.allclose(b.position, [95, 50]) and np.allclose(b.velocity, [-20, 0])


def test_heading_survives_stopping():
    v = Vehicle(velocity=(0, -5))
    v.update((0, 5), dt=0.1)                       # comes to rest
    assert np.allclose(v.heading, [0, -1])


@pytest.mark.parametrize("value", [0, -3.5, float("nan")])
def test_max_speed_must_be_positive(value):
    with pytest.raises(ConfigError, match=r"`max_speed`.*" + str(value)[:3]):
        Vehicle(max_speed=value)
    v = Vehicle()
    with pytest.raises(ConfigError, match=r"`max_speed`"):
        v.max_speed = value


def test_other_bad_inputs_name_the_value():
    with pytest.raises(ConfigError, match=r"`position`.*nan"):
        Vehicle((float("nan"), 0))
    with pytest.raises(ConfigError, match=r"`edges`.*'loop'"):
        Vehicle(edges="loop")
    with pytest.raises(ConfigError, match=r"`edges`='wrap' needs `bounds`"):
        Vehicle(edges="wrap")
    with pytest.raises(ConfigError, match=r"`force`.*inf"):
        Vehicle().update((float("inf"), 0), dt=0.1)
    with pytest.raises(ConfigError, match=r"`dt`.*-1"):
        Vehicle().update(None, dt=-1)


def test_mix_weights_are_named_and_adjustable():
    m = Mix(seek=1.0, avoid=3.0, wander=0.5)
    assert np.allclose(m(seek=(1, 0), avoid=(0, 1)), [1, 3])
    m["avoid"] = 0
    assert np.allclose(m(seek=(1, 0), avoid=(0, 1)), [1, 0])
    assert np.allclose(mix({"a": (1, 1)}, {"a": 2}), [2, 2])
    with pytest.raises(ConfigError, match=r"weight `seek`.*nan"):
        Mix(seek=float("nan"))
