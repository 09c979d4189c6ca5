"""Neighbour search on the grid broad phase: who is near whom, with the offsets.

    pairs = neighbour_pairs(points, 60.0)            # NeighbourPairs(i, j, dx, dy, d2)
    grid = NeighbourGrid(points, 60.0)               # stream candidates block by block
    grid.scan(test)                                  # test(I, J) -> tuple of kept arrays

``neighbour_pairs`` returns every unordered pair closer than ``distance`` (``<=`` with
``closed=True``) once, in the caller's indices, with the offset ``dx, dy = p_j - p_i``
and the squared distance ``d2``. Rows come in grid order, not sorted (``pairs_within``
in ``sensekit.collide.grid`` gives sorted ``[i, j]`` rows without offsets).

``NeighbourGrid`` is for callers that reduce over the pairs without ever holding them all
(``sensekit.steer.Flock`` sums forces with ``np.bincount``): the points are sorted into
the grid once (``order[k]`` is the caller's index of sorted point ``k``; ``x``, ``y`` the
sorted coordinates), and ``scan(test)`` hands ``test`` candidate pairs as sorted-space index
arrays ``I``, ``J`` about 16k at a time. Every unordered pair within ``radius`` is among
the candidates exactly once; so are some farther pairs, which ``test`` filters with its
own exact distance check (``close_pairs``). ``test`` returns a tuple of arrays to keep (or ``()``); ``scan``
concatenates them column by column.

Cost: that of ``sensekit.collide.grid`` (one argsort of N keys plus one pass over the
candidates); the arrays behind ``x``, ``y`` are per-thread scratch buffers reused by the
next grid query on the same thread, so read them before building another grid.
Failure modes: ``ConfigError`` (naming the value) for points that are not finite
``(N, 2)`` numbers (or no points, for a grid) or a radius/distance that is not a positive
number.
"""
from typing import Any, Callable, NamedTuple

import numpy as np

from sensekit.validate import as_points, as_sizes
from sensekit.collide.grid import _SLACK, _Sorted, _within_sorted, close_pairs
from sensekit.errors import ConfigError

__all__ = ["NeighbourGrid", "NeighbourPairs", "neighbour_pairs", "close_pairs"]


class NeighbourPairs(NamedTuple):
    """Pairs within a distance: caller's indices ``i``, ``j`` (int64), ``dx, dy = p_j - p_i``
    and ``d2 = dx**2 + dy**2`` (float64); one row per unordered pair."""

    i: np.ndarray
    j: np.ndarray
    dx: np.ndarray
    dy: np.ndarray
    d2: np.ndarray


class NeighbourGrid:
    """Points sorted into a uniform grid of cell ``radius``, ready for ``scan``."""

    def __init__(self, positions: Any, radius: float) -> None:
        p = as_points("positions", positions)
        self.radius = float(as_sizes("radius", radius, 1)[0])
        if len(p) == 0:
            raise ConfigError("`positions` must hold at least one point for a NeighbourGrid")
        self._sorted = _Sorted(p[:, 0], p[:, 1], self.radius, self.radius,
                               self.radius * (1 + _SLACK))

    @property
    def order(self) -> np.ndarray:
        """``order[k]``: the caller's index of sorted point ``k``."""
        return self._sorted.order

    @property
    def x(self) -> np.ndarray:
        """x of the points in sorted order."""
        return self._sorted.x

    @property
    def y(self) -> np.ndarray:
        """y of the points in sorted order."""
        return self._sorted.y

    def scan(self, test: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]]
             ) -> list[np.ndarray]:
        """Hand ``test`` the candidate pairs (sorted-space ``I``, ``J``) block by block and
        return what it kept, concatenated column by column (``[]`` when nothing was kept)."""
        return self._sorted.pairs(self.radius, self.radius, test)


def neighbour_pairs(positions: Any, distance: float, *, closed: bool = False) -> NeighbourPairs:
    """Every unordered pair closer than ``distance`` (``<=`` if ``closed``), with offsets."""
    p = as_points("positions", positions)
    d = float(as_sizes("distance", distance, 1)[0])
    if len(p) < 2:
        e = np.zeros(0, dtype=np.int64)
        f = np.zeros(0)
        return NeighbourPairs(e, e, f, f, f)
    s, (i, j, dx, dy, d2) = _within_sorted(p, d, None, closed=closed)
    return NeighbourPairs(np.take(s.order, i), np.take(s.order, j), dx, dy, d2)
