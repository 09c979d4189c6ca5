"""``Vehicle``: a point mass that only moves when ``update(forces, dt)`` integrates it.

    v = Vehicle((100, 100), max_speed=120, max_force=240, edges="wrap", bounds=(640, 480))
    v.update(seek(v, target), dt=1/60)          # or v.apply_force(f) ... v.update(dt=dt)

Units are whatever the caller uses, per second: ``max_speed`` in px/s, ``max_force`` in
mass * px/s**2. Defaults: mass 1, max_speed 120, max_force 240 (full speed from rest in
half a second), response_s 0.1, radius 8 (used by avoidance and non-penetration), edges
"none".

``update`` is the one integrating method (OpenSteer's ``applySteeringForce``):
1. forces (plus anything queued with ``apply_force``) are summed. Behaviours return
   steering in velocity units, "desired velocity minus velocity", as in the book;
2. that change is asked for within ``response_s`` (default 0.1 s): force = steering /
   response_s, truncated to ``max_force``, divided by ``mass``. With dt = 1 per frame and
   ``response_s=1`` this is exactly the book's per-frame update;
3. velocity += acceleration * dt, truncated to ``max_speed``; position += velocity * dt;
4. the edge rule: ``"wrap"`` re-enters on the opposite side, ``"bounce"`` reflects the
   velocity and mirrors the position back into ``bounds`` (``(width, height)`` from 0, 0),
   ``"none"`` leaves the world unbounded;
5. an optional ``displacement`` (e.g. from ``non_penetration``) is added to the position.
Behaviours (``sensekit.steer.behaviours``) only read a vehicle and return forces.

Cost: a few microseconds per update (NumPy on 2-vectors); use ``sensekit.steer.Flock``
for hundreds or thousands of agents.
Failure modes: ``ConfigError`` naming the value for ``max_speed``/``max_force``/``mass``/
``response_s`` <= 0, an unknown edge mode, edges without ``bounds``, non-finite
positions, velocities or forces, ``dt`` < 0.
"""
from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from sensekit.errors import ConfigError
from sensekit.validate import as_vec, check_positive

Edges = Literal["none", "wrap", "bounce"]
EDGE_MODES = ("none", "wrap", "bounce")


def _check_bounds(bounds: Any) -> tuple[float, float] | None:
    if bounds is None:
        return None
    try:
        w, h = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ConfigError(f"`bounds` must be (width, height), got {bounds!r}") from None
    if not (math.isfinite(w) and math.isfinite(h) and w > 0 and h > 0):
        raise ConfigError(f"`bounds` must be positive (width, height), got {bounds!r}")
    return w, h


def check_edges(edges: Any, bounds: Any) -> tuple[str, tuple[float, float] | None]:
    """Validate an edge mode and its bounds (shared with ``Flock``)."""
    if edges not in EDGE_MODES:
        raise ConfigError(f"`edges` must be one of {', '.join(EDGE_MODES)}, got {edges!r}")
    b = _check_bounds(bounds)
    if edges != "none" and b is None:
        raise ConfigError(f"`edges`={edges!r} needs `bounds` (width, height), got None")
    return edges, b


def truncate(vec: np.ndarray, limit: float) -> np.ndarray:
    """``vec`` scaled down to length ``limit`` if longer (a new array)."""
    n = math.hypot(vec[0], vec[1])
    if n > limit:
        return vec * (limit / n)
    return vec.copy()


class Vehicle:
    """A steerable point mass (see module docstring)."""

    def __init__(self, position: Any = (0.0, 0.0), velocity: Any = (0.0, 0.0), *,
                 mass: float = 1.0, max_speed: float = 120.0, max_force: float = 240.0,
                 radius: float = 8.0, response_s: float = 0.1, edges: Edges = "none",
                 bounds: tuple[float, float] | None = None) -> None:
        self.position = as_vec("position", position)
        self.velocity = as_vec("velocity", velocity)
        self.mass = mass
        self.max_speed = max_speed
        self.max_force = max_force
        self.radius = check_positive("radius", radius)
        self.response_s = check_positive("response_s", response_s)
        self.edges, self.bounds = check_edges(edges, bounds)
        self._pending = np.zeros(2)
        self._heading = np.array([1.0, 0.0])
        self._update_heading()

    # validated properties -------------------------------------------------------------
    @property
    def mass(self) -> float:
        return self._mass

    @mass.setter
    def mass(self, value: float) -> None:
        self._mass = check_positive("mass", value)

    @property
    def max_speed(self) -> float:
        return self._max_speed

    @max_speed.setter
    def max_speed(self, value: float) -> None:
        self._max_speed = check_positive("max_speed", value)

    @property
    def max_force(self) -> float:
        return self._max_force

    @max_force.setter
    def max_force(self, value: float) -> None:
        self._max_force = check_positive("max_force", value)

    @property
    def speed(self) -> float:
        return math.hypot(self.velocity[0], self.velocity[1])

    @property
    def heading(self) -> np.ndarray:
        """Unit vector of the velocity (the last non-zero one; (1, 0) from rest)."""
        return self._heading.copy()

    def _update_heading(self) -> None:
        s = self.speed
        if s > 1e-12:
            self._heading = self.velocity / s

    # the one integrator -----------------------------------------------------------------
    def apply_force(self, force: Any) -> None:
        """Queue a force for the next ``update`` (does not move the vehicle)."""
        self._pending = self._pending + as_vec("force", force)

    def update(self, forces: Any = None, dt: float = 1.0, *,
               displacement: Any = None) -> None:
        """Integrate ``forces`` (one (x, y) force, or an iterable of them) plus queued ones."""
        dt = check_positive("dt", dt, allow_zero=True)
        total = self._pending
        self._pending = np.zeros(2)
        if forces is not None:
            total = total + _sum_forces(forces)
        f = truncate(total * (1.0 / self.response_s), self._max_force)
        self.velocity = truncate(self.velocity + f * (dt / self._mass), self._max_speed)
        self.position = self.position + self.velocity * dt
        if displacement is not None:
            self.position = self.position + as_vec("displacement", displacement)
        self._apply_edges()
        self._update_heading()

    def _apply_edges(self) -> None:
        if self.edges == "none" or self.bounds is None:
            return
        w, h = self.bounds
        if self.edges == "wrap":
            self.position = np.array([self.position[0] % w, self.position[1] % h])
            return
        p, v = self.position.copy(), self.velocity.copy()
        for axis, size in ((0, w), (1, h)):
            if p[axis] < 0:
                p[axis] = -p[axis] if -p[axis] <= size else 0.0
                v[axis] = abs(v[axis])
            elif p[axis] > size:
                p[axis] = 2 * size - p[axis] if p[axis] <= 2 * size else size
                v[axis] = -abs(v[axis])
        self.position, self.velocity = p, v

    def __repr__(self) -> str:
        return (f"Vehicle(position={self.position.round(2).tolist()}, "
                f"velocity={self.velocity.round(2).tolist()}, max_speed={self._max_speed:g})")


def _sum_forces(forces: Any) -> np.ndarray:
    arr = np.asarray(forces, dtype=np.float64) if not isinstance(forces, np.ndarray) else forces
    if arr.dtype == object:
        raise ConfigError(f"`forces` must be an (x, y) force or a list of them, got {forces!r}")
    if arr.shape == (2,):
        return as_vec("force", arr)
    if arr.ndim == 2 and arr.shape[1] == 2:
        if not np.isfinite(arr).all():
            raise ConfigError(f"`forces` must be finite, got {arr.tolist()!r}")
        total: np.ndarray = arr.sum(axis=0)
        return total
    raise ConfigError(f"`forces` must be an (x, y) force or an (K, 2) list of forces, "
                      f"got shape {arr.shape}")
