"""Steering behaviours, each checked as a property a player would recognise."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sensekit.errors import ConfigError
from sensekit.steer import (Mix, Vehicle, alignment, arrive, avoid, cohesion, evade, flee,
                            follow_path, leader_follow, non_penetration, pursue, seek,
                            separation, wander)

DT = 1 / 60
coord = st.floats(-500, 500, allow_nan=False)


def dist(a, b) -> float:
    return float(np.hypot(*(np.asarray(a, float) - np.asarray(b, float))))


@settings(max_examples=40, deadline=None)
@given(coord, coord, coord, coord)
def test_seek_reduces_the_distance_every_step(x, y, tx, ty):
    v = Vehicle((x, y))
    d0 = dist((x, y), (tx, ty))
    prev = d0
    for _ in range(90):
        if prev < 2 * v.max_speed * DT:       # arrived: seek overshoots and circles, by design
            break
        v.update(seek(v, (tx, ty)), DT)
        d = dist(v.position, (tx, ty))
        assert d <= prev + 1e-9
        prev = d
    assert prev < d0 or d0 < 2 * v.max_speed * DT


@settings(max_examples=40, deadline=None)
@given(coord, coord, coord, coord)
def test_flee_increases_the_distance_every_step(x, y, tx, ty):
    v = Vehicle((x, y))
    prev = dist((x, y), (tx, ty))
    d0 = prev
    for _ in range(90):
        v.update(flee(v, (tx, ty)), DT)
        d = dist(v.position, (tx, ty))
        assert d >= prev - 1e-9
        prev = d
    assert prev > d0 + 50


def test_flee_ignores_threats_beyond_panic_distance():
    v = Vehicle((0, 0))
    assert not flee(v, (300, 0), panic_distance=100).any()
    assert flee(v, (50, 0), panic_distance=100)[0] < 0


@pytest.mark.parametrize("start_velocity", [(0, 0), (0, 120), (-100, 30)])
def test_arrive_comes_to_rest_without_oscillating(start_velocity):
    target = np.array([300.0, 40.0])
    v = Vehicle((0, 0), start_velocity)
    ds = []
    for _ in range(8 * 60):
        v.update(arrive(v, target), DT)
        ds.append(dist(v.position, target))
    assert ds[-1] < 0.5 and v.speed < 0.5
    # once close, it stays close: no overshoot and swing back
    first = next(i for i, d in enumerate(ds) if d < 5.0)
    assert max(ds[first:]) < 5.0
    # the distance shrinks monotonically over the last second and a half (settling, not ringing)
    tail = np.array(ds[-90:])
    assert (np.diff(tail) <= 1e-9).all()


def test_arrive_from_rest_never_passes_the_target():
    target = np.array([250.0, -80.0])
    v = Vehicle((0, 0))
    axis = target / np.linalg.norm(target)
    for _ in range(5 * 60):
        v.update(arrive(v, target), DT)
        assert (target - v.position) @ axis > -0.01


def _steps_to_catch(behaviour) -> int:
    quarry = Vehicle((200, 0), (0, 80), max_speed=80)
    chaser = Vehicle((0, 0))
    for k in range(2000):
        if dist(quarry.position, chaser.position) < 10:
            return k
        chaser.update(behaviour(chaser, quarry), DT)
        quarry.update(None, DT)               # straight line, constant speed
    raise AssertionError("never caught")


def test_pursue_catches_a_straight_moving_target_sooner_than_seek():
    assert _steps_to_catch(pursue) < _steps_to_catch(seek)


def _closest_approach(behaviour) -> float:
    """A fast pursuer that turns slowly (a charging bull) starts beside the path."""
    runner = Vehicle((0, 0))
    bull = Vehicle((-200, 40), (200, 0), max_speed=200, max_force=60)
    closest = math.inf
    for _ in range(600):
        runner.update(behaviour(runner, bull), DT)
        bull.update(pursue(bull, runner), DT)
        closest = min(closest, dist(runner.position, bull.position))
    return closest


def test_evade_keeps_a_larger_distance_than_flee_from_a_pursuer():
    assert _closest_approach(evade) > _closest_approach(flee) + 20


def test_wander_is_repeatable_with_a_seed_and_smooth():
    def path(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        v = Vehicle((0, 0), (60, 0))
        angle, out = 0.0, []
        for _ in range(300):
            f, angle = wander(v, angle, rng)
            v.update(f, DT)
            out.append(v.position.copy())
        return np.array(out)

    a, b, c = path(1), path(1), path(2)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    steps = np.diff(a, axis=0)
    turn = np.abs(np.diff(np.unwrap(np.arctan2(steps[:, 1], steps[:, 0]))))
    assert turn.max() < 0.2                  # no jitter: < ~11 degrees per frame
    assert dist(a[0], a[-1]) > 50            # it does go somewhere


@pytest.mark.parametrize("loop", [False, True])
def test_path_following_visits_waypoints_in_order(loop):
    path = np.array([(0, 0), (200, 0), (200, 150), (0, 150), (-100, 60)], float)
    v = Vehicle((-50, -50))
    index, visits = 0, []
    for _ in range(60 * 25):
        f, new = follow_path(v, path, index, threshold=15, loop=loop)
        if new != index:
            assert dist(path[index], v.position) < 15     # only moves on once there
            visits.append(index)
        index = new
        v.update(f, DT)
    expect = [0, 1, 2, 3] + ([4, 0, 1, 2, 3] if loop else [])
    assert visits[:len(expect)] == expect
    if not loop:
        assert index == 4 and dist(v.position, path[4]) < 1.0   # arrives at the end


def test_avoidance_never_enters_an_obstacle_in_a_corridor():
    # a corridor 0..800 in x, walls of circles along y = +-90, pillars in the middle
    wall_x = np.arange(0, 801, 40.0)
    centres = np.concatenate([
        np.column_stack((wall_x, np.full_like(wall_x, 90.0))),
        np.column_stack((wall_x, np.full_like(wall_x, -90.0))),
        [(200, 5), (400, -25), (600, 20)],
    ])
    radii = np.concatenate([np.full(2 * len(wall_x), 20.0), [30.0, 30.0, 30.0]])
    weights = Mix(seek=1.0, avoid=3.0)
    v = Vehicle((0, 0), (100, 0), radius=6)
    goal = (850, 0)
    for _ in range(60 * 20):
        f = weights(seek=seek(v, goal), avoid=avoid(v, centres, radii))
        v.update(f, DT)
        gaps = np.hypot(*(centres - v.position).T) - radii
        assert gaps.min() > 0, f"entered an obstacle at {v.position}"
        if v.position[0] > 820:
            break
    assert v.position[0] > 820               # and it got through


def test_avoid_ignores_obstacles_behind_or_off_the_path():
    v = Vehicle((0, 0), (100, 0))
    assert not avoid(v, [(-60, 0), (50, 80)], [20, 20]).any()
    f = avoid(v, [(60, 5)], [20])
    assert f[1] < 0                          # obstacle slightly left -> steer right (-y)


def test_leader_following_stays_behind_the_leader():
    leader = Vehicle((0, 0), (60, 0), max_speed=60)
    followers = [Vehicle((x, y)) for x, y in [(100, 30), (150, -40), (-80, 60)]]
    for _ in range(60 * 10):
        leader.update(seek(leader, leader.position + (100, 10)), DT)
        for f in followers:
            f.update(leader_follow(f, leader) + 1.5 * separation(f, followers), DT)
    for f in followers:
        rel = f.position - leader.position
        assert rel @ leader.heading < -10    # behind
        assert np.hypot(*rel) < 100          # and keeping up


def test_group_rules_on_hand_made_neighbours():
    me = Vehicle((0, 0), (10, 0))
    others = [Vehicle((10, 0), (0, 20)), Vehicle((0, 10), (0, 20)), Vehicle((500, 0))]
    assert np.allclose(alignment(me, others), [-10, 120])   # their heading (up), at full speed
    assert np.allclose(cohesion(me, others),
                       np.array([5, 5]) / np.hypot(5, 5) * me.max_speed - me.velocity)
    s = separation(me, others, radius=25)
    assert s[0] < 0 and s[1] < 0                                  # away from both


def test_non_penetration_pushes_overlapping_agents_apart():
    a = Vehicle((0, 0), radius=10)
    b = Vehicle((12, 0), radius=10)
    d = non_penetration(a, [a, b])
    assert np.allclose(d, [-4, 0])                                 # half of the 8 overlap
    a.update(None, DT, displacement=d)
    assert np.allclose(a.position, [-4, 0])


def test_bad_inputs_name_the_value():
    with pytest.raises(ConfigError, match=r"`path`.*\[\]"):
        follow_path(Vehicle(), [], 0)
    with pytest.raises(ConfigError, match=r"`index`.*7"):
        follow_path(Vehicle(), [(0, 0)], 7)
    with pytest.raises(ConfigError, match=r"`target`.*nan"):
        seek(Vehicle(), (float("nan"), 0))
    with pytest.raises(ConfigError, match=r"`radii`"):
        avoid(Vehicle(velocity=(1, 0)), [(5, 0)], [-1])
    with pytest.raises(ConfigError, match=r"no weight for behaviour 'sek'"):
        Mix(seek=1.0)(sek=(1, 0))
