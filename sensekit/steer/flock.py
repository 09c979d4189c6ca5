"""``Flock``: thousands of agents with separation, alignment and cohesion, vectorised.

    flock = Flock(positions, velocities, bounds=(640, 480), edges="wrap")
    flock.step(1 / 60, targets=hand_xy, flee_points=hands, flow=field)
    flock.positions, flock.velocities          # (N, 2) float64, read them to draw

Per agent ``i`` (defaults in brackets), neighbours are the agents within ``radius`` [60]
and, with ``front_only`` [True], in front of it (``(p_j - p_i) . heading_i >= 0``) --
except for separation, which always looks all round:
- separation: ``push = sum over neighbours closer than separation_radius [25] of
  unit(p_i - p_j) * min(separation_radius / d - 1, 10)``; force
  ``(unit(push) * max_speed - v_i) * min(|push|, 10)`` -- gentle at the edge of the radius,
  dominant when agents nearly touch;
- alignment: fly the neighbours' mean heading at full speed,
  ``unit(sum heading_j) * max_speed - v_i``;
- cohesion: seek the neighbours' centre, ``unit(mean(p_j) - p_i) * max_speed - v_i``;
- seek (optional ``targets``: one point for all or one per agent), flee (optional
  ``flee_points``: each agent flees the nearest one within ``flee_radius`` [150], more
  strongly the closer), flow (optional ``FlowField``: ``field * max_speed - v_i``).
Forces are mixed with named ``weights`` (defaults ``separation 2.0, alignment 1.0,
cohesion 0.3, seek 1.0, flee 3.0, flow 1.0``; change ``flock.weights[...]``), then
``step`` -- the one integrating method -- turns the steering (velocity units, as in
``Vehicle``) into a force over ``response_s`` [0.1], truncates it to ``max_force`` [240],
divides by ``mass`` [1], adds to the velocity (truncated to ``max_speed`` [120]) and moves
by ``velocity * dt``. Edges: "wrap" (modulo ``bounds``), "bounce", or "none".
Non-penetration (``agent_radius`` set): after moving, overlapping agents are pushed apart
along their centre line, half each (``non_penetration_iterations`` [4] Jacobi passes, kept
inside bounce walls), so no two centres end up much closer than ``2 * agent_radius``
(within ~5 % in a loose flock; a flock jammed into a corner can stay more compressed).

Neighbour search is ``sensekit.collide.neighbours`` (``NeighbourGrid``, ``neighbour_pairs``:
the sort-based uniform grid of ``sensekit.collide.grid``, exact; cell = ``radius``);
``neighbours="brute"`` uses an O(N^2) check instead, for tests. Neighbours
are not searched across a wrapped edge.

Cost: O(N * neighbours) NumPy per step, no per-agent Python; the neighbour pairs are
streamed from the grid in cache-sized blocks and summed with ``np.bincount``, so the pair
list never exists in full. 5,000 agents with ~10 in-sight neighbours each take about half
the time of the cKDTree step in ``../shared/bench/flock_ref.py`` (same process, same
state: ``benchmarks/flock.py``); 20,000 about four times as long as 5,000.
Failure modes: ``ConfigError`` naming the value for non-finite or mis-shaped positions,
velocities, targets or flee points (checked on every ``step``, so a NaN never spreads
through the flock), ``max_speed``/``max_force``/``mass``/``radius`` <= 0, unknown weight
names, an unknown edge mode or edges without bounds.
"""
from __future__ import annotations

import math
from typing import Any, Literal, Mapping

import numpy as np

from sensekit.arg_types import checked
from sensekit.collide.neighbours import NeighbourGrid, NeighbourPairs, close_pairs, neighbour_pairs
from sensekit.errors import ConfigError
from sensekit.steer.mix import Mix
from sensekit.steer.vehicle import check_edges
from sensekit.validate import as_points, as_vec, check_int_range, check_positive

_SEP_MAX = 10.0  # cap of one neighbour's separation weight (reached at d = rs / 11)
DEFAULT_WEIGHTS = {"separation": 2.0, "alignment": 1.0, "cohesion": 0.3,
                   "seek": 1.0, "flee": 3.0, "flow": 1.0}


def _unit_rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = np.hypot(x, y)
    inv = np.divide(1.0, n, out=np.zeros_like(n), where=n > 1e-12)
    return x * inv, y * inv, n


class Flock:
    """A vectorised flock (see module docstring)."""

    @checked
    def __init__(self, positions: Any, velocities: Any = None, *, radius: float = 60.0,
                 separation_radius: float = 25.0, front_only: bool = True,
                 max_speed: float = 120.0, max_force: float = 240.0, mass: float = 1.0,
                 response_s: float = 0.1,
                 edges: Literal["none", "wrap", "bounce"] = "none",
                 bounds: tuple[float, float] | None = None,
                 weights: Mapping[str, float] | None = None,
                 flee_radius: float = 150.0, agent_radius: float | None = None,
                 non_penetration_iterations: int = 4,
                 neighbours: Literal["grid", "brute"] = "grid") -> None:
        self.positions = as_points("positions", positions)
        n = len(self.positions)
        self.velocities = (np.zeros((n, 2)) if velocities is None
                           else as_points("velocities", velocities, n))
        self.radius = check_positive("radius", radius)
        self.separation_radius = check_positive("separation_radius", separation_radius)
        self.front_only = bool(front_only)
        self.max_speed = check_positive("max_speed", max_speed)
        self.max_force = check_positive("max_force", max_force)
        self.mass = check_positive("mass", mass)
        self.response_s = check_positive("response_s", response_s)
        self.edges, self.bounds = check_edges(edges, bounds)
        self.weights = Mix(DEFAULT_WEIGHTS)
        for k, w in (weights or {}).items():
            if k not in DEFAULT_WEIGHTS:
                raise ConfigError(f"unknown flock weight {k!r}; weights are {sorted(DEFAULT_WEIGHTS)}")
            self.weights[k] = w
        self.flee_radius = check_positive("flee_radius", flee_radius)
        self.agent_radius = None if agent_radius is None else check_positive("agent_radius",
                                                                             agent_radius)
        self.non_penetration_iterations = check_int_range(
            "non_penetration_iterations", non_penetration_iterations, 0, 100)
        if neighbours not in ("grid", "brute"):
            raise ConfigError(f"`neighbours` must be 'grid' or 'brute', got {neighbours!r}")
        self.neighbours = neighbours
        self.neighbour_counts = np.zeros(n, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.positions)

    # ------------------------------------------------------------------------ queries
    @property
    def headings(self) -> np.ndarray:
        """Unit velocity per agent ((1, 0) for an agent at rest)."""
        hx, hy, s = _unit_rows(self.velocities[:, 0], self.velocities[:, 1])
        hx = np.where(s > 1e-12, hx, 1.0)
        return np.column_stack((hx, hy))

    @property
    def polarization(self) -> float:
        """Length of the mean heading: 1 when all agents fly the same way, ~0 when random."""
        hx, hy, s = _unit_rows(self.velocities[:, 0], self.velocities[:, 1])
        moving = s > 1e-12
        if not moving.any():
            return 0.0
        return float(math.hypot(hx[moving].mean(), hy[moving].mean()))

    # ------------------------------------------------------------------------ neighbours
    def _pairs(self, p: np.ndarray, dist: float, closed: bool) -> NeighbourPairs:
        """Unordered pairs within ``dist`` in original indices, with dx, dy = p_j - p_i, d2."""
        if self.neighbours == "brute" or len(p) < 64:
            ii, jj = np.triu_indices(len(p), 1)
            dx = p[jj, 0] - p[ii, 0]
            dy = p[jj, 1] - p[ii, 1]
            d2 = dx * dx + dy * dy
            keep = d2 <= dist * dist if closed else d2 < dist * dist
            return NeighbourPairs(ii[keep], jj[keep], dx[keep], dy[keep], d2[keep])
        return neighbour_pairs(p, dist, closed=closed)

    def _neighbour_sums(self, p: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Per agent: [count, sum heading_x, sum heading_y, sum offset_x, sum offset_y, push_x,
        push_y]
        over its neighbours (offset = p_j - p_i; push = separation sum), shape (7, N).

        Pairs are streamed block by block from the grid and accumulated with bincount, so
        the full pair list never exists (temporaries stay cache-sized)."""
        n = len(p)
        R2 = self.radius * self.radius
        rs = self.separation_radius
        rs2 = rs * rs
        h = self.headings
        acc = np.zeros((7, n))
        brute = self.neighbours == "brute" or n < 64
        if brute:
            order = None
            xs, ys = p[:, 0].copy(), p[:, 1].copy()
        else:
            grid = NeighbourGrid(p, self.radius)
            order = grid.order
            xs, ys = grid.x, grid.y
        hx, hy = (np.take(c, order) if order is not None else c.copy()
                  for c in (h[:, 0], h[:, 1]))
        front = self.front_only

        def test(I: np.ndarray, J: np.ndarray) -> tuple[np.ndarray, ...]:
            I, J, dx, dy, d2 = close_pairs(xs, ys, I, J, R2, closed=True)
            if front:
                ka = np.flatnonzero(dx * hx.take(I) + dy * hy.take(I) >= 0)   # I sees J
                kb = np.flatnonzero(dx * hx.take(J) + dy * hy.take(J) <= 0)   # J sees I
                obs = np.concatenate((I.take(ka), J.take(kb)))
                nbr = np.concatenate((J.take(ka), I.take(kb)))
                ox = np.concatenate((dx.take(ka), -dx.take(kb)))
                oy = np.concatenate((dy.take(ka), -dy.take(kb)))
            else:
                obs = np.concatenate((I, J))
                nbr = np.concatenate((J, I))
                ox = np.concatenate((dx, -dx))
                oy = np.concatenate((dy, -dy))
            acc[0] += np.bincount(obs, minlength=n)
            acc[1] += np.bincount(obs, hx.take(nbr), n)
            acc[2] += np.bincount(obs, hy.take(nbr), n)
            acc[3] += np.bincount(obs, ox, n)
            acc[4] += np.bincount(obs, oy, n)
            # separation looks all round (not only ahead), on the undirected pairs
            close = np.flatnonzero(d2 < rs2)
            if len(close):
                ci, cj = I.take(close), J.take(close)
                sx, sy = dx.take(close), dy.take(close)
                d = np.sqrt(d2.take(close))
                # weight min(rs/d - 1, 10): gentle at the edge, dominant when nearly touching
                same = d <= 1e-12
                dd = np.where(same, 1.0, d)
                wgt = np.minimum(rs / dd - 1.0, _SEP_MAX) / dd
                acc[5] -= np.bincount(ci, sx * wgt, n)
                acc[6] -= np.bincount(ci, sy * wgt, n)
                acc[5] += np.bincount(cj, sx * wgt, n)
                acc[6] += np.bincount(cj, sy * wgt, n)
                if same.any():                 # coincident: each backs off along its heading
                    for who in (ci[same], cj[same]):
                        acc[5] -= np.bincount(who, hx.take(who) * _SEP_MAX, n)
                        acc[6] -= np.bincount(who, hy.take(who) * _SEP_MAX, n)
            return ()

        if brute:
            ii, jj = np.triu_indices(n, 1)
            test(ii, jj)
            return acc
        grid.scan(test)
        out = np.empty_like(acc)
        out[:, order] = acc
        return out

    # ------------------------------------------------------------------------ forces
    def forces(self, *, targets: Any = None, flee_points: Any = None,
               flow: Any = None) -> np.ndarray:
        """The mixed steering force per agent, (N, 2). Reads the flock; changes nothing."""
        p = self.positions = as_points("positions", self.positions)
        v = self.velocities = as_points("velocities", self.velocities, len(p))
        n = len(p)
        w = self.weights
        unknown = set(w) - set(DEFAULT_WEIGHTS)
        if unknown:
            raise ConfigError(f"unknown flock weight {sorted(unknown)[0]!r}; weights are "
                              f"{sorted(DEFAULT_WEIGHTS)}")
        ms = self.max_speed
        fx = np.zeros(n)
        fy = np.zeros(n)
        vx = np.ascontiguousarray(v[:, 0])
        vy = np.ascontiguousarray(v[:, 1])
        if n >= 2 and (w["separation"] or w["alignment"] or w["cohesion"]):
            cnt, shx, shy, sox, soy, px, py = self._neighbour_sums(p, v)
            self.neighbour_counts = cnt.astype(np.int64)
            has = cnt > 0
            inv_cnt = 1.0 / np.maximum(cnt, 1.0)
            if w["alignment"]:
                ux, uy, _ = _unit_rows(shx, shy)
                fx += w["alignment"] * np.where(has, ux * ms - vx, 0.0)
                fy += w["alignment"] * np.where(has, uy * ms - vy, 0.0)
            if w["cohesion"]:
                ux, uy, _ = _unit_rows(sox * inv_cnt, soy * inv_cnt)
                fx += w["cohesion"] * np.where(has, ux * ms - vx, 0.0)
                fy += w["cohesion"] * np.where(has, uy * ms - vy, 0.0)
            if w["separation"]:
                ux, uy, mag = _unit_rows(px, py)
                k = np.minimum(mag, _SEP_MAX)
                fx += w["separation"] * (ux * ms - vx) * k
                fy += w["separation"] * (uy * ms - vy) * k
        else:
            self.neighbour_counts = np.zeros(n, dtype=np.int64)
        if targets is not None and w["seek"]:
            t = self._targets(targets, n)
            ux, uy, _ = _unit_rows(t[:, 0] - p[:, 0], t[:, 1] - p[:, 1])
            fx += w["seek"] * (ux * ms - vx)
            fy += w["seek"] * (uy * ms - vy)
        if flee_points is not None and w["flee"]:
            q = as_points("flee_points", np.reshape(np.asarray(flee_points, dtype=np.float64),
                                                    (-1, 2)))
            if len(q):
                gx, gy = self._flee(p, q)
                fx += w["flee"] * gx
                fy += w["flee"] * gy
        if flow is not None and w["flow"]:
            fv = flow.sample(p)
            live = (fv != 0).any(axis=1)
            fx += w["flow"] * np.where(live, fv[:, 0] * ms - vx, 0.0)
            fy += w["flow"] * np.where(live, fv[:, 1] * ms - vy, 0.0)
        return np.column_stack((fx, fy))

    def _targets(self, targets: Any, n: int) -> np.ndarray:
        arr = np.asarray(targets, dtype=np.float64)
        if arr.shape == (2,):
            return np.broadcast_to(as_vec("targets", arr), (n, 2))
        return as_points("targets", arr, n)

    def _flee(self, p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flee the nearest of the K flee points within flee_radius (O(N*K); K is small)."""
        best = np.full(len(p), np.inf)
        bx = np.zeros(len(p))
        by = np.zeros(len(p))
        for qx, qy in q:  # K points, each a vectorised pass over the flock
            dx = p[:, 0] - qx
            dy = p[:, 1] - qy
            d2 = dx * dx + dy * dy
            nearer = d2 < best
            best = np.where(nearer, d2, best)
            bx = np.where(nearer, dx, bx)
            by = np.where(nearer, dy, by)
        d = np.sqrt(best)
        ux, uy, _ = _unit_rows(bx, by)
        ux = np.where(d > 1e-12, ux, 1.0)
        k = np.clip(1.0 - d / self.flee_radius, 0.0, 1.0)
        v = self.velocities
        return ((ux * self.max_speed - v[:, 0]) * k, (uy * self.max_speed - v[:, 1]) * k)

    # ------------------------------------------------------------------------ integrate
    def step(self, dt: float, *, targets: Any = None, flee_points: Any = None,
             flow: Any = None, extra_forces: Any = None) -> None:
        """Compute the forces and integrate them (the only method that moves the flock)."""
        dt = check_positive("dt", dt, allow_zero=True)
        f = self.forces(targets=targets, flee_points=flee_points, flow=flow)
        if extra_forces is not None:
            f += as_points("extra_forces", extra_forces, len(f))
        p, v = self.positions, self.velocities
        f *= 1.0 / self.response_s
        fx, fy = f[:, 0], f[:, 1]
        mag = np.hypot(fx, fy)
        k = np.where(mag > self.max_force, self.max_force / np.maximum(mag, 1e-300), 1.0)
        k *= dt / self.mass
        v = v + f * k[:, None]
        s = np.hypot(v[:, 0], v[:, 1])
        v *= np.where(s > self.max_speed, self.max_speed / np.maximum(s, 1e-300), 1.0)[:, None]
        p = p + v * dt
        p, v = self._edges(p, v)
        if self.agent_radius is not None:
            p = self._separate(p)
        self.positions, self.velocities = p, v

    def _separate(self, p: np.ndarray) -> np.ndarray:
        """Non-penetration: push overlapping pairs apart, half each, along the centre line."""
        assert self.agent_radius is not None
        r2 = 2.0 * self.agent_radius
        n = len(p)
        for _ in range(self.non_penetration_iterations):
            i, j, dx, dy, d2 = self._pairs(p, r2, closed=False)
            if len(i) == 0:
                break
            d = np.sqrt(d2)
            ux = np.divide(dx, d, out=np.ones_like(d), where=d > 1e-12)
            uy = np.divide(dy, d, out=np.zeros_like(d), where=d > 1e-12)
            half = (r2 - d) * 0.5
            p = p.copy()
            p[:, 0] += np.bincount(j, ux * half, n) - np.bincount(i, ux * half, n)
            p[:, 1] += np.bincount(j, uy * half, n) - np.bincount(i, uy * half, n)
            if self.edges == "bounce":                   # stay inside: walls are walls
                p = np.clip(p, 0.0, np.array(self.bounds))
            elif self.edges == "wrap":
                p = np.mod(p, np.array(self.bounds))
        return p

    def _edges(self, p: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.edges == "none" or self.bounds is None:
            return p, v
        size = np.array(self.bounds)
        if self.edges == "wrap":
            return np.mod(p, size), v
        low = p < 0
        high = p > size
        p = np.where(low, -p, np.where(high, 2 * size - p, p))
        p = np.clip(p, 0, size)
        v = np.where(low, np.abs(v), np.where(high, -np.abs(v), v))
        return p, v
