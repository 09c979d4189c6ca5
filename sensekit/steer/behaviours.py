"""Steering behaviours: pure functions that read an agent and return a force.

No function here moves anything; ``Vehicle.update`` integrates what they return. An
*agent* is anything with ``position``, ``velocity`` ((2,) arrays) and ``max_speed``
(``Vehicle`` qualifies; ``radius`` is read where stated). Forces are "desired velocity
minus current velocity" (Reynolds), so a weight of 1 steers at full strength and
``Vehicle.max_force`` decides how fast the agent can turn.

    seek(a, target)                       full speed towards target
    flee(a, target, panic_distance=None)  full speed away (zero beyond panic_distance)
    arrive(a, target, slow_radius=100)    seek, slowing linearly inside slow_radius
    pursue(a, quarry, max_prediction=2)   seek where the quarry will be in d / closing speed
    evade(a, pursuer, max_prediction=2)   flee from where the pursuer will be
    wander(a, angle, rng, distance=60, radius=30, jitter=0.6) -> (force, new_angle)
    avoid(a, centres, radii, lookahead=80, buffer=6)   feeler method
    follow_path(a, path, index, threshold=20, loop=False, slow_radius=100) -> (force, index)
    separation / alignment / cohesion / flock(a, others, radius=60, ...)
    leader_follow(a, leader, behind=30, ...)   arrive behind the leader, step out of its way
    follow_flow(a, field, lookahead=0.2)       steer along a FlowField
    non_penetration(a, others) -> displacement (pass to ``update(displacement=...)``)

Targets are (x, y) points or agents. ``wander`` takes the rng and returns the new angle
so it stays a pure function (seed a ``numpy.random.Generator`` for repeatable runs);
``follow_path`` likewise returns the next waypoint index.

Cost: microseconds per call (NumPy on 2-vectors; ``avoid`` and the flock rules are
vectorised over obstacles / neighbours). For thousands of agents use ``Flock``.
Failure modes: ``ConfigError`` naming the value for non-finite targets, an empty or
malformed path, obstacles with non-positive radii, negative distances.
"""
from __future__ import annotations

import math
from typing import Any, Protocol, Sequence

import numpy as np
from numpy.typing import NDArray

from sensekit.errors import ConfigError
from sensekit.validate import as_points, as_sizes, as_vec, check_positive

#: a 2-vector or an (N, 2) array of float64: positions, velocities, forces
Vec = NDArray[np.float64]

_ZERO = np.zeros(2)


class Agent(Protocol):
    position: Vec
    velocity: Vec
    max_speed: float


def _point(target: Any, name: str = "target") -> Vec:
    pos = getattr(target, "position", None)
    return as_vec(name, target if pos is None else pos)


def _unit(v: Vec) -> Vec:
    n = math.hypot(v[0], v[1])
    return v / n if n > 1e-12 else np.zeros(2)


def _heading(a: Agent) -> Vec:
    h = getattr(a, "heading", None)
    if h is not None:
        return np.asarray(h, dtype=np.float64)
    u = _unit(np.asarray(a.velocity, dtype=np.float64))
    return u if u.any() else np.array([1.0, 0.0])


# ----------------------------------------------------------------------------- basics
def seek(a: Agent, target: Any) -> Vec:
    """Steer towards ``target`` at full speed."""
    desired = _unit(_point(target) - a.position) * a.max_speed
    return desired - a.velocity


def flee(a: Agent, target: Any, *, panic_distance: float | None = None) -> Vec:
    """Steer away from ``target`` at full speed; zero force beyond ``panic_distance``."""
    away = a.position - _point(target)
    if panic_distance is not None and math.hypot(away[0], away[1]) > check_positive("panic_distance",
                                                                                  panic_distance):
        return np.zeros(2)
    if math.hypot(away[0], away[1]) <= 1e-12:
        away = -_heading(a)  # on top of the threat: run straight back
    return _unit(away) * a.max_speed - a.velocity


def arrive(a: Agent, target: Any, *, slow_radius: float = 100.0) -> Vec:
    """Seek, but inside ``slow_radius`` the desired speed falls linearly to 0 at the target."""
    slow = check_positive("slow_radius", slow_radius)
    offset = _point(target) - a.position
    d = math.hypot(offset[0], offset[1])
    if d < 1e-12:
        return -np.asarray(a.velocity, dtype=np.float64)
    speed = a.max_speed * min(1.0, d / slow)
    return offset * (speed / d) - a.velocity


def _predict(a: Agent, other: Any, max_prediction: float) -> Vec:
    p = _point(other, "quarry")
    v = as_vec("quarry velocity", getattr(other, "velocity", (0.0, 0.0)))
    d = math.hypot(*(p - a.position))
    # time for the two to meet head-on at full speed: never predicts past the agent itself
    closing = a.max_speed + math.hypot(v[0], v[1])
    t = min(d / closing, check_positive("max_prediction", max_prediction, allow_zero=True))
    return p + v * t


def pursue(a: Agent, quarry: Any, *, max_prediction: float = 2.0) -> Vec:
    """Seek the quarry's predicted position ``d / (max_speed + quarry speed)`` seconds ahead
    (capped at ``max_prediction``)."""
    return seek(a, _predict(a, quarry, max_prediction))


def evade(a: Agent, pursuer: Any, *, max_prediction: float = 2.0,
          panic_distance: float | None = None) -> Vec:
    """Flee from the pursuer's predicted position."""
    return flee(a, _predict(a, pursuer, max_prediction), panic_distance=panic_distance)


def wander(a: Agent, angle: float, rng: np.random.Generator, *, distance: float = 60.0,
           radius: float = 30.0, jitter: float = 0.6) -> tuple[Vec, float]:
    """Smooth random steering: a point on a circle ``distance`` ahead, whose angle moves by
    up to ``jitter`` radians per call. Returns ``(force, new_angle)``."""
    distance = check_positive("distance", distance, allow_zero=True)
    radius = check_positive("radius", radius, allow_zero=True)
    jitter = check_positive("jitter", jitter, allow_zero=True)
    if not math.isfinite(angle):
        raise ConfigError(f"`angle` must be finite, got {angle!r}")
    new_angle = angle + float(rng.uniform(-jitter, jitter))
    h = _heading(a)
    target_dir = h * distance + radius * np.array([math.cos(new_angle), math.sin(new_angle)])
    return seek(a, a.position + target_dir), new_angle


# ----------------------------------------------------------------------------- obstacles
def avoid(a: Agent, centres: Any, radii: Any, *, lookahead: float = 80.0,
          buffer: float = 6.0) -> Vec:
    """Feeler method: a feeler of ``lookahead`` * speed / max_speed (at least a quarter of
    it), plus the agent's radius and ``buffer``, points along the heading; every circle whose
    ``radius + buffer + agent radius`` the feeler's line passes within pushes sideways
    (away from its centre), more strongly the closer it is, and the most urgent one brakes.
    Obstacles behind the agent or beyond the feeler are ignored (zero force)."""
    c = as_points("centres", centres)
    if len(c) == 0:
        return np.zeros(2)
    r = as_sizes("radii", radii, len(c))
    look = check_positive("lookahead", lookahead)
    buf = check_positive("buffer", buffer, allow_zero=True)
    own = float(getattr(a, "radius", 0.0))
    h = _heading(a)
    speed = math.hypot(*a.velocity)
    feeler = look * max(0.25, speed / a.max_speed) + own + buf
    diff = c - a.position
    along = diff @ h
    lateral = diff[:, 0] * -h[1] + diff[:, 1] * h[0]       # signed distance left of heading
    reach = r + buf + own
    threat = (along > -reach) & (along - reach < feeler) & (np.abs(lateral) < reach)
    if not threat.any():
        return np.zeros(2)
    k = np.flatnonzero(threat)
    gap = along[k] - reach[k]                               # feeler length left before contact
    urgency = np.clip(1.0 - gap / feeler, 0.0, 1.0)
    side = np.where(lateral[k] > 0, -1.0, 1.0)              # steer to the side away from each
    left = np.array([-h[1], h[0]])
    steer = left * (a.max_speed * float((side * (0.5 + urgency)).sum()))
    brake = -np.asarray(a.velocity, dtype=np.float64) * (0.5 * float(urgency.max()))
    return steer + brake


def follow_path(a: Agent, path: Any, index: int, *, threshold: float = 20.0,
                loop: bool = False, slow_radius: float = 100.0) -> tuple[Vec, int]:
    """Head for ``path[index]``; within ``threshold`` of it move on to the next waypoint.
    On the last waypoint of an open path, arrive there; a looped path goes back to 0.
    Returns ``(force, index)`` with the waypoint to aim for next time."""
    pts = np.asarray(path, dtype=np.float64) if not isinstance(path, np.ndarray) else path
    if pts.size == 0:
        raise ConfigError(f"`path` must have at least one waypoint, got {list(path)!r}")
    pts = as_points("path", pts)
    thr = check_positive("threshold", threshold)
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) \
            or not 0 <= index < len(pts):
        raise ConfigError(f"`index` must be 0..{len(pts) - 1}, got {index!r}")
    index = int(index)
    last = len(pts) - 1
    if math.hypot(*(pts[index] - a.position)) < thr:
        if index < last:
            index += 1
        elif loop:
            index = 0
    if index == last and not loop:
        return arrive(a, pts[index], slow_radius=slow_radius), index
    return seek(a, pts[index]), index


# ----------------------------------------------------------------------------- groups
def _neighbours(a: Agent, others: Sequence[Any], radius: float) -> tuple[Vec, Vec]:
    """Positions and velocities of the others within ``radius`` (excluding ``a`` itself)."""
    rad = check_positive("radius", radius)
    rest = [o for o in others if o is not a]
    if not rest:
        return np.zeros((0, 2)), np.zeros((0, 2))
    p = as_points("others' positions", [o.position for o in rest])
    v = as_points("others' velocities", [o.velocity for o in rest])
    d = p - a.position
    near = (d * d).sum(axis=1) <= rad * rad
    return p[near], v[near]


def separation(a: Agent, others: Sequence[Any], *, radius: float = 25.0) -> Vec:
    """Steer away from the others closer than ``radius``: ``push`` is the sum of unit vectors
    away from each, weighted ``min(radius / d - 1, 10)``; the force is
    ``(unit(push) * max_speed - velocity) * min(|push|, 10)`` (the same rule as ``Flock``)."""
    p, _ = _neighbours(a, others, radius)
    if len(p) == 0:
        return np.zeros(2)
    away = a.position - p
    d = np.hypot(away[:, 0], away[:, 1])
    same = d <= 1e-12
    h = _heading(a)
    dirs = np.where(same[:, None], -h, away / np.where(same, 1.0, d)[:, None])
    wgt = np.where(same, 10.0, np.minimum(radius / np.where(same, 1.0, d) - 1.0, 10.0))
    push = (dirs * wgt[:, None]).sum(axis=0)
    k = min(10.0, math.hypot(push[0], push[1]))
    return (_unit(push) * a.max_speed - a.velocity) * k


def alignment(a: Agent, others: Sequence[Any], *, radius: float = 60.0) -> Vec:
    """Fly the mean heading of the others within ``radius`` at full speed (headings, not
    velocities, so a flock keeps its speed as it lines up)."""
    _, v = _neighbours(a, others, radius)
    if len(v) == 0:
        return np.zeros(2)
    s = np.hypot(v[:, 0], v[:, 1])
    heads = np.where(s[:, None] > 1e-12, v / np.maximum(s, 1e-12)[:, None], [1.0, 0.0])
    return _unit(heads.sum(axis=0)) * a.max_speed - a.velocity


def cohesion(a: Agent, others: Sequence[Any], *, radius: float = 60.0) -> Vec:
    """Seek the centre of the others within ``radius``."""
    p, _ = _neighbours(a, others, radius)
    if len(p) == 0:
        return np.zeros(2)
    return seek(a, p.mean(axis=0))


def flock(a: Agent, others: Sequence[Any], *, radius: float = 60.0,
          separation_radius: float = 25.0, separation_weight: float = 1.5,
          alignment_weight: float = 1.0, cohesion_weight: float = 1.0) -> Vec:
    """Separation + alignment + cohesion with named weights (single-agent version of
    ``Flock``)."""
    return (separation_weight * separation(a, others, radius=separation_radius)
            + alignment_weight * alignment(a, others, radius=radius)
            + cohesion_weight * cohesion(a, others, radius=radius))


def leader_follow(a: Agent, leader: Agent, *, behind: float = 30.0,
                  sight_distance: float = 60.0, sight_width: float = 20.0,
                  slow_radius: float = 60.0) -> Vec:
    """Arrive at a point ``behind`` units behind the leader; if standing in the leader's way
    (within ``sight_distance`` ahead of it and ``sight_width`` of its line), evade it first."""
    behind = check_positive("behind", behind, allow_zero=True)
    h = _heading(leader)
    lp = np.asarray(leader.position, dtype=np.float64)
    rel = a.position - lp
    ahead = float(rel @ h)
    side = abs(float(rel[0] * -h[1] + rel[1] * h[0]))
    force = arrive(a, lp - h * behind, slow_radius=slow_radius)
    if 0.0 < ahead < sight_distance and side < sight_width:
        force = force + evade(a, leader)
    return force


def follow_flow(a: Agent, field: Any, *, lookahead: float = 0.2) -> Vec:
    """Steer to move along ``field`` (a ``FlowField``) sampled ``lookahead`` seconds ahead;
    the field's vector length (0..1) scales the desired speed. Zero force where the field
    is zero or outside it."""
    look = check_positive("lookahead", lookahead, allow_zero=True)
    at = a.position + np.asarray(a.velocity, dtype=np.float64) * look
    v = field.sample(at[None, :])[0]
    if not v.any():
        return np.zeros(2)
    force: Vec = v * a.max_speed - a.velocity
    return force


def non_penetration(a: Agent, others: Sequence[Any]) -> Vec:
    """The displacement that moves ``a`` out of every other agent it overlaps (each overlap
    shared half and half, as the other agent moves too). Both need ``radius``; pass the
    result to ``update(displacement=...)`` -- it is a constraint, not a force."""
    rest = [o for o in others if o is not a]
    if not rest:
        return np.zeros(2)
    p = as_points("others' positions", [o.position for o in rest])
    r = as_sizes("others' radii", [getattr(o, "radius", 0.0) or 1e-12 for o in rest], len(rest))
    own = check_positive("radius", getattr(a, "radius", 0.0))
    away = a.position - p
    d = np.hypot(away[:, 0], away[:, 1])
    overlap = own + r - d
    hit = overlap > 0
    if not hit.any():
        return np.zeros(2)
    dirs = np.where(d[hit, None] > 1e-12, away[hit] / np.maximum(d[hit], 1e-12)[:, None],
                    np.array([1.0, 0.0]))
    push: Vec = (dirs * (overlap[hit] * 0.5)[:, None]).sum(axis=0)
    return push
