"""``FlowField``: a grid of 2-D vectors that agents can steer along.

    field = FlowField.from_optical_flow(flow, cell_px=16, world_size=(640, 480))
    field = FlowField.from_motion(motion_mask, cell_px=16, away=True)
    field.sample(points)            # (N, 2) vectors, nearest cell, zero outside

``vectors`` has shape ``(rows, cols, 2)`` (x, y components) and covers the rectangle from
``origin`` with square cells of ``cell`` world units. Vector lengths are meant to be in
0..1 (a fraction of the agent's ``max_speed``); both builders produce that.

- ``from_optical_flow``: ``cv2.calcOpticalFlowFarneback`` output (``HxWx2`` float32, pixels
  per frame) averaged over ``cell_px`` blocks and divided by ``full_px`` (default 4 px per
  frame counts as full speed), lengths clipped to 1.
- ``from_motion``: a motion mask (``HxW`` bool/uint8, non-zero = moving) pooled over
  ``cell_px`` blocks, box-blurred over ``reach_cells`` [2] cells around, and turned into
  the direction *away from* the motion (``away=True``; towards it with ``away=False``);
  length grows with how much motion is nearby (1 when ``full_fraction`` [0.1] of the
  blurred neighbourhood is moving). Cells further than ``reach_cells`` stay zero.
- ``world_size`` maps frame pixels to world units when the world is not the frame.

Cost: building is O(H*W) NumPy (from a mask: about 0.4 ms for 320x240, 0.8 ms for 640x480;
the blocks' pixel counts are made once per size); ``sample`` is one gather per
point (about 0.1 ms per 10,000 points).
Failure modes: ``ConfigError`` naming the value for arrays of the wrong shape or dtype,
non-finite vectors, ``cell``/``cell_px`` <= 0, non-finite sample points.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from sensekit.arg_types import checked
from sensekit.errors import ConfigError
from sensekit.safe_read import short
from sensekit.validate import as_points, as_vec, check_int_range, check_positive


@functools.lru_cache(maxsize=16)
def _cell_sizes(h: int, w: int, cell_px: int) -> np.ndarray:
    """How many pixels each ``cell_px`` block of an ``h`` x ``w`` picture holds (the last row and
    column of blocks may be partial): made once per size, not per frame (read-only)."""
    r = np.minimum(cell_px, h - cell_px * np.arange(-(-h // cell_px)))
    c = np.minimum(cell_px, w - cell_px * np.arange(-(-w // cell_px)))
    sizes = np.outer(r, c).astype(np.float64)
    sizes.flags.writeable = False
    return sizes


def _block_sums(a: np.ndarray, cell_px: int) -> np.ndarray:
    """Sums over ``cell_px`` x ``cell_px`` blocks (zero-padded to whole blocks only when needed)."""
    h, w = a.shape[:2]
    rows, cols = -(-h // cell_px), -(-w // cell_px)
    if rows * cell_px != h or cols * cell_px != w:
        a = np.pad(a, ((0, rows * cell_px - h), (0, cols * cell_px - w)) + ((0, 0),) * (a.ndim - 2))
    sums: np.ndarray = a.reshape(rows, cell_px, cols, cell_px, *a.shape[2:]).sum(axis=(1, 3))
    return sums


def _pool(a: np.ndarray, cell_px: int) -> np.ndarray:
    """Mean over ``cell_px`` x ``cell_px`` blocks (partial edge blocks averaged too)."""
    sizes = _cell_sizes(a.shape[0], a.shape[1], cell_px)
    mean: np.ndarray = _block_sums(a, cell_px) / (sizes[:, :, None] if a.ndim == 3 else sizes)
    return mean


class FlowField:
    """A grid of vectors over a rectangle of the world (see module docstring)."""

    @checked
    def __init__(self, vectors: Any, *, cell: float, origin: Any = (0.0, 0.0)) -> None:
        try:
            v = np.asarray(vectors, dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"`FlowField(vectors=...)` must be an array of numbers (rows, cols, 2), "
                              f"got {type(vectors).__name__} {short(vectors)}") from None
        if v.ndim != 3 or v.shape[2] != 2 or v.shape[0] == 0 or v.shape[1] == 0:
            raise ConfigError(f"`vectors` must have shape (rows, cols, 2), got {v.shape}")
        if not np.isfinite(v).all():
            raise ConfigError("`vectors` must be finite; found NaN or inf at cell "
                              f"{np.argwhere(~np.isfinite(v).all(axis=2))[0].tolist()}")
        self.vectors = np.ascontiguousarray(v)
        self.cell = check_positive("cell", cell)
        self.origin = as_vec("origin", origin)
        self._flat = self.vectors.reshape(-1, 2)

    @property
    def shape(self) -> tuple[int, int]:
        return self.vectors.shape[0], self.vectors.shape[1]

    def sample(self, points: Any) -> np.ndarray:
        """Vectors at ``points`` (N, 2): the containing cell's vector, zero outside the grid."""
        p = as_points("points", points)
        rows, cols = self.shape
        c = np.floor((p - self.origin) / self.cell)
        cx, cy = c[:, 0], c[:, 1]
        inside = (cx >= 0) & (cx < cols) & (cy >= 0) & (cy < rows)
        idx = np.where(inside, cy * cols + cx, 0).astype(np.int64)
        out = np.take(self._flat, idx, axis=0)
        out[~inside] = 0.0
        return out

    # ------------------------------------------------------------------------ builders
    @staticmethod
    def _scale(shape: tuple[int, int], cell_px: int, world_size: Any) -> float:
        if world_size is None:
            return float(cell_px)
        ws = as_vec("world_size", world_size)
        if (ws <= 0).any():
            raise ConfigError(f"`world_size` must be positive (width, height), got {world_size!r}")
        return float(cell_px) * float(ws[0]) / shape[1]

    @classmethod
    def from_optical_flow(cls, flow: Any, *, cell_px: int = 16, full_px: float = 4.0,
                          world_size: Any = None) -> FlowField:
        """Average dense optical flow (``HxWx2`` float, px/frame) into cells."""
        f = np.asarray(flow)
        if f.ndim != 3 or f.shape[2] != 2 or not np.issubdtype(f.dtype, np.floating):
            raise ConfigError(f"`flow` must be an HxWx2 float array (Farneback output), "
                              f"got shape {f.shape} dtype {f.dtype}")
        cell_px = int(check_positive("cell_px", cell_px))
        full = check_positive("full_px", full_px)
        f = np.nan_to_num(f.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
        v = _pool(f, cell_px) / full
        n = np.hypot(v[..., 0], v[..., 1])
        v *= (1.0 / np.maximum(n, 1.0))[..., None]
        return cls(v, cell=cls._scale(f.shape[:2], cell_px, world_size))

    @classmethod
    def from_motion(cls, mask: Any, *, cell_px: int = 16, away: bool = True,
                    reach_cells: int = 2, full_fraction: float = 0.1,
                    world_size: Any = None) -> FlowField:
        """Vectors pointing away from (or towards) the moving areas of ``mask``."""
        m = np.asarray(mask)
        if m.ndim != 2 or not (m.dtype == np.bool_ or m.dtype == np.uint8):
            raise ConfigError(f"`mask` must be an HxW bool or uint8 array, "
                              f"got shape {m.shape} dtype {m.dtype}")
        cell_px = int(check_positive("cell_px", cell_px))
        full = check_positive("full_fraction", full_fraction)
        # the share of moving pixels per block: counted as integers (the same values as summing
        # 0.0 / 1.0 in float64, without a float copy of the mask)
        density = _block_sums(m != 0, cell_px) / _cell_sizes(m.shape[0], m.shape[1], cell_px)
        reach = check_int_range("reach_cells", reach_cells, 0, 64)
        # box blur over (2 * reach + 1)^2 cells so the field extends `reach` cells beyond
        pd = np.pad(density, reach, mode="edge")
        rows, cols = density.shape
        k = 2 * reach + 1
        blur = sum(pd[dy:dy + rows, dx:dx + cols] for dy in range(k) for dx in range(k)) / (k * k)
        if rows > 1 and cols > 1:
            gy, gx = np.gradient(blur)
        else:
            gy = np.gradient(blur, axis=0) if rows > 1 else np.zeros_like(blur)
            gx = np.gradient(blur, axis=1) if cols > 1 else np.zeros_like(blur)
        sign = -1.0 if away else 1.0
        g = np.stack((gx * sign, gy * sign), axis=-1)
        n = np.hypot(g[..., 0], g[..., 1])
        strength = np.clip(blur / full, 0.0, 1.0)
        unit = np.where(n[..., None] > 1e-12, g / np.maximum(n, 1e-12)[..., None], 0.0)
        return cls(unit * strength[..., None], cell=cls._scale(m.shape, cell_px, world_size))
