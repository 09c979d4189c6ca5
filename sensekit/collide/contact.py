"""Contact points and normals for circle pairs and circles against a box, and bouncing.

    circle_contacts(positions, radii, pairs) -> Contacts(points, normals, depths)
    box_contacts(positions, radii, box)      -> (touching index array, Contacts)
    resolve(positions, velocities, radii, pairs, *, restitution=1.0, masses=None)
    resolve_box(positions, velocities, radii, box, *, restitution=1.0)

Conventions: for a pair ``[i, j]`` the normal is the unit vector from circle ``i``
towards circle ``j``; the contact point is the middle of the overlap along that line;
the depth is ``r_i + r_j - |p_j - p_i|`` (> 0 while they overlap). Two circles with the
same centre get the normal ``(1, 0)``. For a box ``(x0, y0, x1, y1)`` the normal points
from the box towards the circle; a centre inside the box is pushed out through the
nearest side.

``resolve`` returns new position and velocity arrays (the inputs are not changed):
each touching pair is pushed apart along its normal by its depth, shared in inverse
proportion to mass, and, if the pair is closing, gets the impulse
``-(1 + restitution) * v_rel.n / (1/m_i + 1/m_j)``. A circle in several contacts
receives the sum of its pairs' corrections (one Jacobi step; stacks settle over a few
frames, which is what a game wants). Default ``restitution=1.0`` (elastic),
``masses`` default to ``radius**2`` (area).

Cost: O(M) for M pairs, all NumPy; pairs come from ``grid.circle_pairs``.
Failure modes: ``ConfigError`` (naming the value) for non-finite positions or
velocities, bad radii, pair indices out of range, ``restitution`` outside 0..1.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from sensekit.errors import ConfigError
from sensekit.validate import as_points, as_sizes, check_range


# The functional form keeps the field types real classes: a class-syntax NamedTuple under
# ``from __future__ import annotations`` leaves them as strings that its generated __new__
# cannot resolve (the API docs build warns about that).
# the functional form keeps real types (this module's annotations are strings, which pdoc cannot
# resolve in the generated __init__)
Contacts = NamedTuple("Contacts", [("points", np.ndarray), ("normals", np.ndarray),  # noqa: UP014
                                   ("depths", np.ndarray)])
Contacts.__doc__ = """Contacts of M touching pairs: ``points`` (M, 2), unit ``normals`` (M, 2) from i to j
(or from the box to the circle), and ``depths`` (M,), the penetration (> 0 when overlapping)."""


def _check_pairs(pairs: Any, n: int) -> np.ndarray:
    try:
        pr = np.asarray(pairs, dtype=np.int64)
    except (TypeError, ValueError):
        raise ConfigError(f"`pairs` must be an (M, 2) integer array, got {pairs!r}") from None
    if pr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if pr.ndim != 2 or pr.shape[1] != 2:
        raise ConfigError(f"`pairs` must have shape (M, 2), got {pr.shape}")
    if pr.min() < 0 or pr.max() >= n:
        bad = int(np.flatnonzero((pr < 0).any(1) | (pr >= n).any(1))[0])
        raise ConfigError(f"`pairs` indices must be 0..{n - 1}; row {bad} is {pr[bad].tolist()}")
    return pr


def _check_box(box: Any) -> tuple[float, float, float, float]:
    try:
        x0, y0, x1, y1 = (float(v) for v in box)
    except (TypeError, ValueError):
        raise ConfigError(f"`box` must be (x0, y0, x1, y1), got {box!r}") from None
    if not np.isfinite([x0, y0, x1, y1]).all() or x1 < x0 or y1 < y0:
        raise ConfigError(f"`box` must be finite (x0, y0, x1, y1) with x0 <= x1, y0 <= y1, "
                          f"got {box!r}")
    return x0, y0, x1, y1


def _unit(dx: np.ndarray, dy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = np.hypot(dx, dy)
    zero = d == 0
    safe = np.where(zero, 1.0, d)
    nx = np.where(zero, 1.0, dx / safe)
    ny = np.where(zero, 0.0, dy / safe)
    return nx, ny, d


def circle_contacts(positions: Any, radii: Any, pairs: Any) -> Contacts:
    """Contact point, normal (i -> j) and depth for each pair ``[i, j]``."""
    p = as_points("positions", positions)
    r = as_sizes("radii", radii, len(p))
    pr = _check_pairs(pairs, len(p))
    i, j = pr[:, 0], pr[:, 1]
    dx = p[j, 0] - p[i, 0]
    dy = p[j, 1] - p[i, 1]
    nx, ny, d = _unit(dx, dy)
    depth = r[i] + r[j] - d
    along = r[i] - depth * 0.5
    pts = np.column_stack((p[i, 0] + nx * along, p[i, 1] + ny * along))
    return Contacts(pts, np.column_stack((nx, ny)), depth)


def box_contacts(positions: Any, radii: Any, box: Any) -> tuple[np.ndarray, Contacts]:
    """Circles touching the box ``(x0, y0, x1, y1)``: their indices and contacts.

    The contact point is the box point nearest the centre (for a centre inside the box,
    the nearest point on its boundary); the normal points from the box to the circle."""
    p = as_points("positions", positions)
    r = as_sizes("radii", radii, len(p))
    x0, y0, x1, y1 = _check_box(box)
    cx = np.clip(p[:, 0], x0, x1)
    cy = np.clip(p[:, 1], y0, y1)
    dx = p[:, 0] - cx
    dy = p[:, 1] - cy
    d2 = dx * dx + dy * dy
    inside = d2 == 0
    touching = np.flatnonzero((d2 < r * r) | inside)
    cx, cy, dx, dy, inside = cx[touching], cy[touching], dx[touching], dy[touching], \
        inside[touching]
    px, py, rt = p[touching, 0], p[touching, 1], r[touching]
    nx, ny, d = _unit(dx, dy)
    depth = rt - d
    if inside.any():
        # centre inside: leave through the nearest side
        k = np.flatnonzero(inside)
        gaps = np.column_stack((px[k] - x0, x1 - px[k], py[k] - y0, y1 - py[k]))
        side = np.argmin(gaps, axis=1)
        gap = gaps[np.arange(len(k)), side]
        nx[k] = np.choose(side, (-1.0, 1.0, 0.0, 0.0))
        ny[k] = np.choose(side, (0.0, 0.0, -1.0, 1.0))
        cx[k] = np.choose(side, (x0, x1, px[k], px[k]))
        cy[k] = np.choose(side, (py[k], py[k], y0, y1))
        depth[k] = rt[k] + gap
    return touching, Contacts(np.column_stack((cx, cy)), np.column_stack((nx, ny)), depth)


def _check_velocities(velocities: Any, n: int) -> np.ndarray:
    return as_points("velocities", velocities, n)


def resolve(positions: Any, velocities: Any, radii: Any, pairs: Any, *,
            restitution: float = 1.0, masses: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Push touching pairs apart and bounce the closing ones; returns (positions, velocities)."""
    p = as_points("positions", positions)
    n = len(p)
    v = _check_velocities(velocities, n)
    r = as_sizes("radii", radii, n)
    e = check_range("restitution", restitution, 0.0, 1.0)
    m = r * r if masses is None else as_sizes("masses", masses, n)
    pr = _check_pairs(pairs, n)
    p, v = p.copy(), v.copy()
    if len(pr) == 0:
        return p, v
    c = circle_contacts(p, r, pr)
    keep = c.depths > 0
    i, j = pr[keep, 0], pr[keep, 1]
    nrm, depth = c.normals[keep], c.depths[keep]
    inv = 1.0 / m
    wsum = inv[i] + inv[j]
    # positional correction, split by inverse mass
    share_i = (depth * inv[i] / wsum)[:, None] * nrm
    share_j = (depth * inv[j] / wsum)[:, None] * nrm
    # impulse for closing pairs
    vrel = ((v[j] - v[i]) * nrm).sum(axis=1)
    jimp = np.where(vrel < 0, -(1.0 + e) * vrel / wsum, 0.0)[:, None] * nrm
    for axis in (0, 1):
        p[:, axis] -= np.bincount(i, share_i[:, axis], n)
        p[:, axis] += np.bincount(j, share_j[:, axis], n)
        v[:, axis] -= np.bincount(i, jimp[:, axis] * inv[i], n)
        v[:, axis] += np.bincount(j, jimp[:, axis] * inv[j], n)
    return p, v


def resolve_box(positions: Any, velocities: Any, radii: Any, box: Any, *,
                restitution: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bounce circles off a static box: returns (positions, velocities, touching indices)."""
    p = as_points("positions", positions)
    n = len(p)
    v = _check_velocities(velocities, n)
    r = as_sizes("radii", radii, n)
    e = check_range("restitution", restitution, 0.0, 1.0)
    idx, c = box_contacts(p, r, box)
    p, v = p.copy(), v.copy()
    if len(idx):
        p[idx] += c.normals * c.depths[:, None]
        vn = (v[idx] * c.normals).sum(axis=1)
        v[idx] -= (np.where(vn < 0, (1.0 + e) * vn, 0.0))[:, None] * c.normals
    return p, v, idx
