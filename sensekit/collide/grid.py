"""Uniform-grid broad phase: all overlapping pairs of N circles or boxes, and proximity.

    circle_pairs(positions, radii, *, cell=None, method="grid")  -> (M, 2) int64
    box_pairs(boxes, *, cell=None, method="grid")                 -> (M, 2) int64
    pairs_within(positions, distance, *, cell=None, method="grid")-> (M, 2) int64

Every function returns each unordered pair once as ``[i, j]`` with ``i < j``, rows
sorted (by ``i``, then ``j``). Overlap is strict: circles collide when
``|p_i - p_j|**2 < (r_i + r_j)**2`` (float64, the same expression everywhere, so
``method="grid"`` and ``method="brute"`` give identical results); boxes
``(x0, y0, x1, y1)`` when their interiors intersect; ``pairs_within`` keeps
``|p_i - p_j| < distance``.

How the grid works. The cell size defaults to the largest object's diameter
(for boxes its larger side; for ``pairs_within`` the distance), so an object can
only touch objects in its own and the eight surrounding cells. A cell is hashed as
``row * span + column``; objects are sorted once by ``row`` then ``x``
(``np.argsort``), which makes every row of cells contiguous. The neighbour cells
that still need checking (the own cell and the east cell after the object, and the
row below from south-west to south-east: the chapter-1 scheme that visits each pair
once) then form one contiguous range per row. The range ends come from a per-cell
"end index" table (one ``np.take`` each) when the grid has at most 8 cells per
object, otherwise from ``np.searchsorted`` on the sorted keys, trimmed to each
object's own reach in x (so a huge, sparse world costs no table). The ranges are
expanded and filtered exactly in cache-sized blocks of ~16k candidates with
``np.take`` (not boolean masks, which are ~2x slower here). A ``cell`` smaller than
the objects is allowed: the search then spans ``ceil(reach / cell)`` rows and the
result is still exact.

Cost: one argsort of N keys, a few gathers of N and one pass over the candidates
(about 1.4 per circle at 10 % area cover). 100,000 circles (r 2..10) take about half
the time of the dense-table reference grid in ``../shared/bench`` (same process, same
circles: ``benchmarks/collide.py``); below ~2,000 objects the fixed cost (~0.2 ms of
NumPy calls) dominates and the reference's leaner code is faster. Memory: N-sized and
per-cell work arrays are kept per thread and reused between calls (fresh multi-MB
arrays cost more in page faults than in arithmetic on this kind of machine); they
grow to the largest call seen, ~90 bytes per object + 8 per cell.

Failure modes: ``ConfigError`` (naming the value) for positions that are not
finite ``(N, 2)`` numbers, non-positive radii or distance, boxes with
``x1 < x0``, a ``cell`` that is not a positive number, an unknown ``method``.
A very small ``cell`` relative to the objects is exact but slow (many rows).
"""
from __future__ import annotations

import itertools
import math
import threading
from typing import Any, Callable, Literal

import numpy as np

from sensekit.validate import as_points, as_rows, as_sizes
from sensekit.errors import ConfigError

Method = Literal["grid", "brute"]

_EMPTY = np.zeros((0, 2), dtype=np.int64)
_SLACK = 1e-9  # relative widening of search windows: the exact test decides
_BLOCK = 16384  # candidate pairs per expansion block (cache-sized temporaries)
_MAX_CELLS_PER_AXIS = float(1 << 22)
_DENSE_CELLS_PER_OBJECT = 8  # above this many cells per object, binary search instead of tables


# ----------------------------------------------------------------------------- checks
def _check_cell(cell: Any) -> float | None:
    if cell is None:
        return None
    try:
        v = float(cell)
    except (TypeError, ValueError):
        raise ConfigError(f"`cell` must be a positive number, got {cell!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise ConfigError(f"`cell` must be a positive number, got {cell!r}")
    return v


def _check_method(method: str) -> None:
    if method not in ("grid", "brute"):
        raise ConfigError(f"`method` must be 'grid' or 'brute', got {method!r}")


def _check_boxes(boxes: Any) -> np.ndarray:
    b = as_rows("boxes", boxes, 4, layout=" as (x0, y0, x1, y1)")
    bad = (b[:, 2] < b[:, 0]) | (b[:, 3] < b[:, 1])
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ConfigError(f"`boxes` rows must be (x0, y0, x1, y1) with x0 <= x1 and y0 <= y1; "
                          f"row {row} is {b[row].tolist()!r}")
    return b


# ----------------------------------------------------------------------------- core
class _Scratch(threading.local):
    """Per-thread work buffers reused across calls. Fresh multi-megabyte NumPy arrays cost
    more in page faults than in arithmetic on this kind of machine (see the bench README),
    so the grid keeps its N-sized and per-cell arrays here; they grow to the largest call
    seen (about 90 bytes per object plus 8 per grid cell) and are never shared between
    threads. Nothing returned to a caller lives in them."""

    def __init__(self) -> None:
        self.bufs: dict[str, np.ndarray] = {}

    def get(self, name: str, shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
        size = shape if isinstance(shape, int) else math.prod(shape)
        buf = self.bufs.get(name)
        if buf is None or buf.size < size or buf.dtype != dtype:
            buf = np.empty(max(size + size // 4, 1024), dtype=dtype)
            self.bufs[name] = buf
        return buf[:size] if isinstance(shape, int) else buf[:size].reshape(shape)


_SCRATCH = _Scratch()


def _canonical(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Unordered pairs (a, b) -> (M, 2) int64 rows [lo, hi], sorted."""
    if len(a) == 0:
        return _EMPTY.copy()
    lo = np.minimum(a, b).astype(np.int64)
    hi = np.maximum(a, b).astype(np.int64)
    key = lo * n + hi
    key.sort()
    out = np.empty((len(key), 2), dtype=np.int64)
    np.floor_divide(key, n, out=out[:, 0])
    np.subtract(key, out[:, 0] * n, out=out[:, 1])
    return out


class _Sorted:
    """Objects sorted by grid row then x (``order[k]`` = original id of sorted object k), and
    the neighbour ranges of each object in sorted order.

    Keys are ``row * span + kx + (x - xmin) / cell``: their integer part is the cell id, so
    one sort groups objects by cell, cells by row, and orders each row by x."""

    __slots__ = ("order", "x", "y", "key", "span", "cell", "rows", "kx")
    order: np.ndarray
    x: np.ndarray
    y: np.ndarray
    key: np.ndarray

    def __init__(self, x: np.ndarray, y: np.ndarray, reach_x_max: float, reach_y_max: float,
                 cell: float):
        xmin, xmax = float(x.min()), float(x.max())
        ymin, ymax = float(y.min()), float(y.max())
        # keys must stay exact in float64: at most 2**22 cells along either axis (a coarser
        # grid is still exact, only slower); also never more rows to search than objects
        extent = max(xmax - xmin, ymax - ymin)
        cell = max(cell, extent / _MAX_CELLS_PER_AXIS, reach_y_max / max(len(x), 1))
        self.cell = cell
        # rows that can hold a partner: |dy| < reach_y_max => row difference <= rows
        self.rows = max(1, math.ceil(reach_y_max * (1 + _SLACK) / cell))
        kx = math.ceil(reach_x_max * (1 + _SLACK) / cell) + 1  # margin so windows stay in the row
        self.kx = kx
        ncols = math.floor((xmax - xmin) / cell) + 1
        self.span = float(ncols + 2 * kx + 1)
        inv = 1.0 / cell
        n = len(x)
        key = np.subtract(x, xmin, out=_SCRATCH.get("key", n, np.float64))
        key *= inv
        key += kx
        row = np.subtract(y, ymin, out=_SCRATCH.get("row", n, np.float64))
        row *= inv
        np.floor(row, out=row)
        row *= self.span
        key += row
        self.order = order = key.argsort()
        self.key = key.take(order, out=_SCRATCH.get("skey", n, np.float64))
        self.x = x.take(order, out=_SCRATCH.get("sx", n, np.float64))
        self.y = y.take(order, out=_SCRATCH.get("sy", n, np.float64))

    def ranges(self, reach_x: np.ndarray | float, reach_x_max: float
               ) -> tuple[np.ndarray, np.ndarray]:
        """Candidate ranges ``[S, E)`` in sorted order, shape ``(rows + 1, n)``: row 0 is the
        object's own row ahead of it, row ``dy`` the cells ``dy`` rows below. Together they
        hold every partner within the reach, and each unordered pair is in exactly one range.

        When the cell table is small (at most ``_DENSE_CELLS_PER_OBJECT`` cells per object)
        ranges are whole cells, read from a dense per-cell end table (one gather each);
        otherwise binary searches on the sorted keys, trimmed to each object's own x reach."""
        ks = self.key
        n = len(ks)
        span = int(self.span)
        ncells = (int(ks[-1]) // span + self.rows + 1) * span
        S = _SCRATCH.get("S", (self.rows + 1, n), np.int64)
        E = _SCRATCH.get("E", (self.rows + 1, n), np.int64)
        S[0] = np.arange(1, n + 1)
        if ncells <= _DENSE_CELLS_PER_OBJECT * n + 4096:
            kxw = min(self.kx - 1, math.ceil(reach_x_max * (1 + _SLACK) / self.cell))
            cid = ks.astype(np.int64)
            # end[c] = index one past the last object in cells <= c (so start[c] = end[c - 1])
            end = _SCRATCH.get("end", ncells, np.int64)
            end.fill(0)
            last = np.flatnonzero(cid[1:] != cid[:-1])
            end[np.take(cid, last)] = last + 1
            end[cid[-1]] = n
            np.maximum.accumulate(end, out=end)
            end.take(cid + kxw, out=E[0])
            for dy in range(1, self.rows + 1):
                base = cid + (dy * span)
                end.take(base - (kxw + 1), out=S[dy])
                end.take(base + kxw, out=E[dy])
        else:
            w: np.ndarray | float
            if isinstance(reach_x, np.ndarray):
                w = np.take(reach_x, self.order) * ((1 + _SLACK) / self.cell)
                w += _SLACK
            else:
                w = reach_x * (1 + _SLACK) / self.cell + _SLACK
            E[0] = np.searchsorted(ks, ks + w, side="right")
            for dy in range(1, self.rows + 1):
                row_base = ks + dy * self.span
                S[dy] = np.searchsorted(ks, row_base - w, side="left")
                E[dy] = np.searchsorted(ks, row_base + w, side="right")
        return S, E

    def pairs(self, reach_x: np.ndarray | float, reach_x_max: float,
              test: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]],
              block: int = _BLOCK) -> list[np.ndarray]:
        """Expand the candidate ranges block by block and keep what ``test(I, J)`` keeps.

        ``test`` gets sorted-space candidate indices (about ``block`` at a time) and returns
        a tuple of filtered arrays; the blocks' tuples are concatenated column by column.
        Blocks keep every temporary cache-sized, so no call pays for fresh pages."""
        S_all, E_all = self.ranges(reach_x, reach_x_max)
        n = S_all.shape[1]
        np.subtract(E_all, S_all, out=E_all)
        np.maximum(E_all, 0, out=E_all)
        C_all = E_all                                   # candidate count per range
        total = int(C_all.sum())
        if total == 0:
            return []
        if total <= block:                              # one block: skip the split
            edges = [0, n]
        else:
            per_obj = np.cumsum(C_all.sum(axis=0))
            cuts = np.searchsorted(per_obj, np.arange(block, total, block), side="left") + 1
            edges = sorted({0, n, *cuts.tolist()})
        parts: list[tuple[np.ndarray, ...]] = []
        for a, b in itertools.pairwise(edges):
            m = b - a
            if m <= 0:
                continue
            C = C_all[:, a:b].ravel()
            nz = np.flatnonzero(C)
            if len(nz) == 0:
                continue
            C = C[nz]
            S = S_all[:, a:b].ravel()[nz]
            first = np.cumsum(C)
            cnt = int(first[-1])
            first -= C
            S -= first
            J = np.repeat(S, C)
            J += np.arange(cnt, dtype=np.int64)
            nz %= m
            nz += a
            I = np.repeat(nz, C)
            out = test(I, J)
            if out:
                parts.append(out)
        if not parts:
            return []
        return [np.concatenate(col) for col in zip(*parts)]


def _sorted_for(p: np.ndarray, reach_x_max: float, reach_y_max: float, cell: float) -> _Sorted:
    return _Sorted(p[:, 0], p[:, 1], reach_x_max, reach_y_max, cell)


def close_pairs(xs: np.ndarray, ys: np.ndarray, I: np.ndarray, J: np.ndarray, limit2: float, *,
                closed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of the candidate pairs ``I``, ``J`` (indices into ``xs``, ``ys``), those whose squared
    distance is ``<= limit2`` (``<`` unless ``closed``), as ``I, J, dx, dy, d2`` with
    ``dx, dy = p_J - p_I``: the exact check after the grid's broad phase."""
    dx = xs.take(J)
    dx -= xs.take(I)
    dy = ys.take(J)
    dy -= ys.take(I)
    d2 = dx * dx
    d2 += dy * dy
    k = np.flatnonzero(d2 <= limit2 if closed else d2 < limit2)     # index once, then take (2x faster than masks)
    return I.take(k), J.take(k), dx.take(k), dy.take(k), d2.take(k)


def _within_sorted(p: np.ndarray, distance: float, cell: float | None, *, closed: bool
                   ) -> tuple[_Sorted, list[np.ndarray]]:
    """Pairs within ``distance`` (``<=`` if closed, else ``<``) as sorted-space
    ``[I, J, dx, dy, d2]`` with ``dx, dy = p_J - p_I``; each unordered pair once. Used by
    ``pairs_within`` and by the vectorised flock."""
    s = _Sorted(p[:, 0], p[:, 1], distance, distance, cell or distance * (1 + _SLACK))
    xs, ys = s.x, s.y
    lim = distance * distance

    def test(I: np.ndarray, J: np.ndarray) -> tuple[np.ndarray, ...]:
        return close_pairs(xs, ys, I, J, lim, closed=closed)

    out = s.pairs(distance, distance, test)
    if not out:
        e = np.zeros(0, dtype=np.int64)
        f = np.zeros(0)
        out = [e, e, f, f, f]
    return s, out


# ----------------------------------------------------------------------------- brute force
def _brute_circles(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    n = len(p)
    out_a, out_b = [], []
    rows = max(1, (1 << 16) // max(n, 1))
    for a in range(0, n, rows):
        b = min(n, a + rows)
        dx = p[None, :, 0] - p[a:b, None, 0]
        dy = p[None, :, 1] - p[a:b, None, 1]
        rr = r[a:b, None] + r[None, :]
        hit = dx * dx + dy * dy < rr * rr
        ii, jj = np.nonzero(hit)
        ii += a
        keep = jj > ii
        out_a.append(ii[keep])
        out_b.append(jj[keep])
    if not out_a:
        return _EMPTY.copy()
    return _canonical(np.concatenate(out_a), np.concatenate(out_b), n)


def _brute_boxes(b: np.ndarray) -> np.ndarray:
    n = len(b)
    if n == 0:
        return _EMPTY.copy()
    hit = ((b[:, None, 0] < b[None, :, 2]) & (b[None, :, 0] < b[:, None, 2])
           & (b[:, None, 1] < b[None, :, 3]) & (b[None, :, 1] < b[:, None, 3]))
    ii, jj = np.nonzero(np.triu(hit, 1))
    return _canonical(ii, jj, n)


# ----------------------------------------------------------------------------- public
def auto_cell(radii: Any) -> float:
    """The default cell size for circles: the largest diameter (never zero)."""
    r = np.asarray(radii, dtype=np.float64)
    return float(2.0 * r.max()) if r.size else 1.0


def circle_pairs(positions: Any, radii: Any, *, cell: float | None = None,
                 method: Method = "grid") -> np.ndarray:
    """All overlapping circle pairs as an (M, 2) int64 array ``[i, j]``, ``i < j``, sorted.

    ``radii`` is a number or one per circle (positive). ``cell`` defaults to the largest
    diameter; any positive cell gives the same pairs. ``method="brute"`` checks all pairs
    (O(N^2), for testing and for tiny N).
    """
    p = as_points("positions", positions)
    n = len(p)
    r = as_sizes("radii", radii, n)
    c = _check_cell(cell)
    _check_method(method)
    if n < 2:
        return _EMPTY.copy()
    if method == "brute":
        return _brute_circles(p, r)
    rmax = float(r.max())
    reach = 2.0 * rmax
    s = _sorted_for(p, reach, reach, c if c is not None else reach * (1 + _SLACK))
    xs, ys, rs = s.x, s.y, np.take(r, s.order)

    def test(I: np.ndarray, J: np.ndarray) -> tuple[np.ndarray, ...]:
        dx = xs.take(J)
        dx -= xs.take(I)
        dy = ys.take(J)
        dy -= ys.take(I)
        rr = rs.take(I)
        rr += rs.take(J)
        rr *= rr
        d2 = dx * dx
        d2 += dy * dy
        k = np.flatnonzero(d2 < rr)
        return I.take(k), J.take(k)

    out = s.pairs(r + rmax, reach, test)
    if not out:
        return _EMPTY.copy()
    return _canonical(np.take(s.order, out[0]), np.take(s.order, out[1]), n)


def box_pairs(boxes: Any, *, cell: float | None = None, method: Method = "grid") -> np.ndarray:
    """All overlapping axis-aligned boxes ``(x0, y0, x1, y1)`` as (M, 2) ``[i, j]``, sorted.

    Boxes overlap when their interiors intersect (touching edges do not count). ``cell``
    defaults to the largest box side.
    """
    b = _check_boxes(boxes)
    c = _check_cell(cell)
    _check_method(method)
    n = len(b)
    if n < 2:
        return _EMPTY.copy()
    if method == "brute":
        return _brute_boxes(b)
    w = b[:, 2] - b[:, 0]
    h = b[:, 3] - b[:, 1]
    wmax, hmax = float(w.max()), float(h.max())
    big = max(wmax, hmax)
    if c is None:
        c = big * (1 + _SLACK) if big > 0 else 1.0
    centre = np.column_stack(((b[:, 0] + b[:, 2]) * 0.5, (b[:, 1] + b[:, 3]) * 0.5))
    s = _sorted_for(centre, wmax, hmax, c)
    bs = np.take(b, s.order, axis=0)
    x0, y0, x1, y1 = (np.ascontiguousarray(bs[:, k]) for k in range(4))

    def test(I: np.ndarray, J: np.ndarray) -> tuple[np.ndarray, ...]:
        keep = ((x0.take(I) < x1.take(J)) & (x0.take(J) < x1.take(I))
                & (y0.take(I) < y1.take(J)) & (y0.take(J) < y1.take(I)))
        k = np.flatnonzero(keep)
        return I.take(k), J.take(k)

    out = s.pairs((w + wmax) * 0.5, wmax, test)
    if not out:
        return _EMPTY.copy()
    return _canonical(np.take(s.order, out[0]), np.take(s.order, out[1]), n)


def pairs_within(positions: Any, distance: float, *, cell: float | None = None,
                 method: Method = "grid") -> np.ndarray:
    """All pairs of points closer than ``distance`` (strict), as (M, 2) ``[i, j]``, sorted.

    The proximity query of the "node garden". ``cell`` defaults to ``distance``.
    """
    p = as_points("positions", positions)
    d = float(as_sizes("distance", distance, 1)[0])
    c = _check_cell(cell)
    _check_method(method)
    n = len(p)
    if n < 2:
        return _EMPTY.copy()
    if method == "brute":
        return _brute_circles(p, np.full(n, d * 0.5))
    s, out = _within_sorted(p, d, c, closed=False)
    return _canonical(np.take(s.order, out[0]), np.take(s.order, out[1]), n)
