"""Global exposure: a frame's per-channel gain against a reference, and applying a gain.

``exposure_gain(frame, reference)`` is the median per-channel ratio over a grid of ~3000
pixels (``grid_for``) that are neither dark nor possibly clipped, so a moving minority does
not move it; ``apply_gain`` / ``gain_table`` scale a frame by it with one table lookup. The
background model divides each frame by its gain against its samples; the frame difference
scales the previous frame. Cost: ~0.1 ms a frame for the gain (640x480), one LUT pass to apply it.
Failure modes: a change covering most of the frame (a person filling the view) is taken for
an exposure change; below 50 usable grid pixels the gain is 1.
"""
from __future__ import annotations

import cv2
import numpy as np

__all__ = ["GAIN_TOLERANCE", "SATURATED", "grid_for", "exposure_gain", "gain_table", "apply_gain"]

GAIN_TOLERANCE = 0.02           # smaller global gain changes are left alone (JPEG/noise wobble)
SATURATED = 250                # a channel this bright may have been clipped by the camera


def grid_for(height: int, width: int, pixels: int = 3000) -> tuple[slice, slice]:
    """A regular grid of about ``pixels`` points (for frame-wide statistics)."""
    step = max(1, int(round(np.sqrt(height * width / pixels))))
    return (slice(step // 2, None, step), slice(step // 2, None, step))


def exposure_gain(frame: np.ndarray, reference: np.ndarray, *, grid: tuple[slice, slice] | None = None,
                  ignore: np.ndarray | None = None) -> np.ndarray:
    """Per-channel global gain of ``frame`` against ``reference`` (same shape, uint8).

    The median of ``frame / reference`` over a grid of pixels that are neither dark (<= 15)
    nor possibly clipped (>= 250) in either image, and not set in ``ignore`` (HxW, e.g. the
    last foreground). A moving minority does not move the median. Returns ones when fewer
    than 50 grid pixels qualify.
    """
    if grid is None:
        grid = grid_for(*frame.shape[:2])
    ch = 1 if frame.ndim == 2 else frame.shape[2]
    cur = np.ascontiguousarray(frame[grid])
    ref = np.ascontiguousarray(reference[grid])
    # usable: every channel of both within 16..249 (one pass each: cv2.inRange)
    lo, hi = (16,) * ch, (SATURATED - 1,) * ch
    ok = cv2.inRange(cur, lo, hi)
    cv2.bitwise_and(ok, cv2.inRange(ref, lo, hi), dst=ok)
    if ignore is not None:
        ok[ignore[grid] != 0] = 0
    idx = np.flatnonzero(ok)
    if idx.size < 50:
        return np.ones(ch, np.float32)
    c = np.take(cur.reshape(-1, ch), idx, axis=0).astype(np.float32)
    r = np.take(ref.reshape(-1, ch), idx, axis=0).astype(np.float32)
    ratios = np.ascontiguousarray((c / r).T)                 # a channel a row: a faster median
    return _median_rows(ratios)


def _median_rows(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=1)`` of a float32 2-D array, the same values at a fraction of the
    cost: the middle of each sorted row, or the float32 mean of the two middle ones."""
    s = np.sort(a, axis=1)
    n = s.shape[1]
    if n % 2:
        return s[:, n // 2].copy()
    mid: np.ndarray = (s[:, n // 2 - 1] + s[:, n // 2]) / np.float32(2)
    return mid.astype(np.float32)


def gain_table(gain: np.ndarray) -> np.ndarray:
    """The 256 x 1 x C lookup table of ``x gain`` per channel, rounded and clipped to uint8."""
    g = np.asarray(gain, np.float32).reshape(-1)
    levels = np.arange(256, dtype=np.float32)[:, None] * g[None, :]
    table: np.ndarray = np.clip(levels + 0.5, 0, 255).astype(np.uint8).reshape(256, 1, g.size)
    return table


def apply_gain(frame: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """``frame x gain`` per channel, rounded and clipped to uint8 (one table lookup)."""
    lut = gain_table(gain)
    out: np.ndarray = cv2.LUT(frame, lut[:, 0, 0] if frame.ndim == 2 else lut)
    return out
