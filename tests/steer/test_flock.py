"""The vectorised Flock: grid == brute force, flocking, spacing, targets, validation."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.collide import pairs_within
from sensekit.errors import ConfigError
from sensekit.steer import Flock, FlowField, Vehicle
from sensekit.steer.behaviours import flock as single_flock

DT = 1 / 60


def random_flock(n: int, seed: int, size: float = 500.0, **kw) -> Flock:
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, n)
    vel = np.column_stack((np.cos(ang), np.sin(ang))) * 60
    kw.setdefault("edges", "wrap")
    kw.setdefault("bounds", (size, size))
    return Flock(rng.uniform(0, size, (n, 2)), vel, **kw)


def min_spacing(p: np.ndarray) -> float:
    pr = pairs_within(p, 200.0)
    if len(pr) == 0:
        return np.inf
    return float(np.hypot(*(p[pr[:, 0]] - p[pr[:, 1]]).T).min())


@pytest.mark.parametrize("front_only", [True, False])
def test_grid_neighbours_give_the_same_forces_as_brute_force(front_only):
    for seed in range(3):
        a = random_flock(400, seed, front_only=front_only)
        b = random_flock(400, seed, front_only=front_only, neighbours="brute")
        a.positions[5] = a.positions[6]                  # coincident agents too
        b.positions[5] = b.positions[6]
        fa, fb = a.forces(targets=(250, 250)), b.forces(targets=(250, 250))
        assert np.array_equal(a.neighbour_counts, b.neighbour_counts)
        assert np.allclose(fa, fb, rtol=1e-9, atol=1e-9)


def test_flock_force_matches_the_single_vehicle_rules():
    f = random_flock(120, 4, front_only=False)
    k = 17
    me = Vehicle(f.positions[k], f.velocities[k], max_speed=f.max_speed)
    others = [Vehicle(p, v, max_speed=f.max_speed) for p, v in zip(f.positions, f.velocities)]
    others[k] = me
    expect = single_flock(me, others, radius=f.radius, separation_radius=f.separation_radius,
                    separation_weight=f.weights["separation"],
                    alignment_weight=f.weights["alignment"],
                    cohesion_weight=f.weights["cohesion"])
    assert np.allclose(f.forces()[k], expect, atol=1e-9)


def test_flocking_raises_polarization_from_random_starts():
    for seed in (1, 2):
        f = random_flock(300, seed)
        p0 = f.polarization
        for _ in range(6 * 60):
            f.step(DT)
        assert p0 < 0.2 and f.polarization > 0.8, (seed, p0, f.polarization)
        assert np.hypot(*f.velocities.T).mean() > 0.5 * f.max_speed      # and keeps flying


def test_separation_spreads_a_clump_and_keeps_a_minimum_spacing():
    rng = np.random.default_rng(3)
    f = Flock(rng.uniform(200, 260, (80, 2)), None,
              weights={"alignment": 0.0, "cohesion": 0.0})
    assert min_spacing(f.positions) < 2
    spacings = []
    for _ in range(4 * 60):
        f.step(DT)
        spacings.append(min_spacing(f.positions))
    assert min(spacings[2 * 60:]) > 0.8 * f.separation_radius


def test_non_penetration_keeps_agents_apart_every_step():
    rng = np.random.default_rng(3)
    f = Flock(rng.uniform(0, 300, (200, 2)), rng.normal(0, 60, (200, 2)), agent_radius=5,
              edges="none", non_penetration_iterations=8)
    for _ in range(200):
        f.step(DT)
        assert min_spacing(f.positions) > 0.95 * 10


def test_seek_targets_and_flee_points():
    rng = np.random.default_rng(0)
    f = Flock(rng.uniform(0, 100, (100, 2)), None, weights={"separation": 0.5})
    for _ in range(6 * 60):
        f.step(DT, targets=(400, 50))
    assert np.hypot(*(f.positions.mean(axis=0) - (400, 50))) < 40     # the flock got there
    assert np.hypot(*(f.positions - (400, 50)).T).mean() < 120        # around it, spaced out
    hand = f.positions.mean(axis=0)
    before = np.hypot(*(f.positions - hand).T)
    for _ in range(60):
        f.step(DT, flee_points=[hand])
    after = np.hypot(*(f.positions - hand).T)
    assert np.median(after) > np.median(before) + 40


def test_flow_field_moves_the_flock():
    field = FlowField(np.tile([1.0, 0.0], (20, 20, 1)), cell=25)    # all to the right
    rng = np.random.default_rng(0)
    f = Flock(rng.uniform(100, 400, (150, 2)), rng.normal(0, 30, (150, 2)),
              weights={"separation": 0.5, "alignment": 0, "cohesion": 0})
    for _ in range(60):
        f.step(DT, flow=field)
    assert f.velocities[:, 0].mean() > 0.8 * f.max_speed


def test_edges_wrap_and_bounce():
    w = Flock([(95, 50)], [(20, 0)], edges="wrap", bounds=(100, 100))
    w.step(0.5)
    assert np.allclose(w.positions, [(5, 50)])
    b = Flock([(95, 50)], [(20, 0)], edges="bounce", bounds=(100, 100))
    b.step(0.5)
    assert np.allclose(b.positions, [(95, 50)]) and b.velocities[0, 0] < 0


def test_nan_is_rejected_at_the_boundary_and_never_spreads():
    pos = np.zeros((10, 2))
    pos[4] = (np.nan, 1)
    with pytest.raises(ConfigError, match=r"`positions`.*row 4"):
        Flock(pos)
    f = random_flock(10, 0)
    with pytest.raises(ConfigError, match=r"`targets`.*nan"):
        f.step(DT, targets=(np.nan, 0))
    with pytest.raises(ConfigError, match=r"`flee_points`.*row 1"):
        f.step(DT, flee_points=[(1, 1), (np.inf, 0)])
    f.positions[3, 0] = np.nan                 # written behind the flock's back
    with pytest.raises(ConfigError, match=r"`positions`.*row 3"):
        f.step(DT)


def test_bad_settings_name_the_value():
    with pytest.raises(ConfigError, match=r"`max_speed`.*0"):
        Flock([(0, 0)], max_speed=0)
    with pytest.raises(ConfigError, match=r"unknown flock weight 'cohesian'"):
        Flock([(0, 0)], weights={"cohesian": 1})
    with pytest.raises(ConfigError, match=r"`radius`.*-5"):
        Flock([(0, 0)], radius=-5)
    f = Flock([(0, 0), (1, 1)])
    f.weights["alignmnet"] = 2.0               # a typo after construction is caught too
    with pytest.raises(ConfigError, match=r"unknown flock weight 'alignmnet'"):
        f.step(DT)
