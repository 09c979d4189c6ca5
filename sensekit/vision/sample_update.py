"""Learning into per-pixel colour samples: which pixels update, still objects absorbed, the match distance adapted.

The background model's (``sensekit.vision.background``) rules for its samples, as functions on
a band of rows (every array of the band's shape, written in place):

- ``update_limits(update_every_frames)``: the table from a pixel's "blinking" to its update
  limit: a background pixel replaces a sample when its random 16-bit number is below it. The
  base rate is one frame in ``update_every_frames``, plus 10x that per unit of blinking, at most
  one frame in two (SuBSENSE's update period falls to 2 as fast).
- ``copy_to_neighbour``: the colours learned at a row band into a random neighbour's samples
  (one direction a frame, ViBe), so colours that sway in from next door are learned too.
- ``absorb_still``: foreground whose colour has not changed for ``after_frames`` frames joins the
  background (a parked car, a person standing still).
- ``adapt_distance``: each pixel's match distance: at least ``base``, at least 5x its running
  distance to its nearest sample (PBAS), raised by 10 % per unit of blinking (SuBSENSE: +1 per
  foreground/background flip away from objects, -0.1 per frame).

Blinking is kept in tenths in a uint8 (so it stays below 25.5). Cost: a few OpenCV passes each;
nothing allocated.
"""
# cv2's stubs reject a scalar second operand (cv2.add(img, 1, dst=...)), which OpenCV accepts:
# mypy: disable-error-code="call-overload"
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

__all__ = ["UpdateDraws", "update_limits", "copy_to_neighbour", "absorb_still", "adapt_distance",
           "BLINK_TENTHS", "BLINK_UPDATE"]

BLINK_TENTHS = 10.0             # blinking is kept in tenths
BLINK_UPDATE = 10.0             # the update rate grows by 10x the base rate per unit of blinking
_BLINK_UP = 11                  # +1.1 on a flip (the -0.1 of every frame included)
_BLINK_GAIN = 0.1               # the match distance grows by 10 % per unit of blinking
_DMIN_RATE = 0.01               # running average of the nearest-sample distance (100 frames)
_DMIN_SCALE = 5.0               # PBAS: match distance >= 5x that average


@dataclass(frozen=True, slots=True)
class UpdateDraws:
    """One frame's random choices for the sample updates (drawn in this order)."""
    rand: np.ndarray        # HxW uint16: a pixel updates when below its limit
    own: np.ndarray         # the sample slot replaced at the updating pixels (3xHxW)
    dy: int                 # the neighbour direction
    dx: int
    target: np.ndarray      # the neighbour's sample slot (3xHxW)
    limits: np.ndarray      # 256x1 uint16: the update limit of each blinking level (``update_limits``)


def update_limits(update_every_frames: float) -> np.ndarray:
    """The 256x1 uint16 table from a pixel's blinking (tenths) to its update limit (of 65536).

    Made by the same OpenCV arithmetic (and its rounding) a whole frame once went through."""
    step = 65536.0 / update_every_frames
    levels = np.arange(256, dtype=np.uint8).reshape(1, 256)
    table = cv2.multiply(levels, step * BLINK_UPDATE / BLINK_TENTHS, dtype=cv2.CV_16U)
    cv2.add(table, min(65535.0, step), dst=table)
    cv2.min(table, 32768.0, dst=table)                 # at most every 2nd frame
    out: np.ndarray = table.reshape(256, 1)
    return out


def copy_to_neighbour(planes: Sequence[np.ndarray], upd: np.ndarray, dst_y: slice, d: UpdateDraws) -> None:
    """The colours of ``planes`` (B, G, R; HxW) where ``upd`` is set, at rows ``dst_y - d.dy``,
    into the neighbour's sample ``d.target`` at ``dst_y`` (shifted by ``d.dx`` columns)."""
    h, w = upd.shape
    dst_y = slice(max(dst_y.start, d.dy, 0), min(dst_y.stop, h + d.dy, h))
    if dst_y.stop <= dst_y.start:
        return
    src_y = slice(dst_y.start - d.dy, dst_y.stop - d.dy)
    src_x = slice(max(0, -d.dx), w - max(0, d.dx))
    dst_x = slice(max(0, d.dx), w - max(0, -d.dx))
    for c in range(3):
        cv2.copyTo(planes[c][src_y, src_x], upd[src_y, src_x], d.target[c][dst_y, dst_x])


def absorb_still(now: Sequence[np.ndarray], before: Sequence[np.ndarray], thr: np.ndarray, raw: np.ndarray,
                 still: np.ndarray, upd: np.ndarray, *, after_frames: int, frame_no: int,
                 scratch: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """Set ``upd`` where foreground (``raw``) has kept its colour (this frame's planes ``now``
    within ``thr`` of the last frame's ``before``) for ``after_frames`` frames.

    ``still`` counts those frames in a uint8, one tick every ``ceil(after_frames / 250)``
    frames (on the frames ``frame_no`` divisible by it), and is reset where the colour changed
    or the pixel is background. ``scratch``: three uint8 work arrays.
    """
    tick = -(-after_frames // 250)
    steady, d, old = scratch
    for c, (a, b) in enumerate(zip(now, before)):
        cv2.absdiff(a, b, dst=d if c else steady)
        if c:
            cv2.max(steady, d, dst=steady)
    cv2.compare(steady, thr, cv2.CMP_LT, dst=steady)
    cv2.bitwise_and(steady, raw, dst=steady)
    cv2.bitwise_and(still, steady, dst=still)          # reset where it changed or is background
    if frame_no % tick == 0:
        cv2.add(still, 1, dst=still, mask=steady)
    cv2.compare(still, float(after_frames // tick), cv2.CMP_GE, dst=old)
    cv2.bitwise_or(upd, old, dst=upd)


def adapt_distance(nearest: np.ndarray, raw: np.ndarray, prev_raw: np.ndarray, bg: np.ndarray, near: np.ndarray, *,
                   base: float, dmin: np.ndarray, blink: np.ndarray, thr: np.ndarray,
                   scratch: tuple[np.ndarray, np.ndarray]) -> None:
    """Update ``dmin`` (the running nearest-sample distance at background pixels ``bg``),
    ``blink`` (flips of ``raw`` against ``prev_raw`` away from ``near``, where objects are or
    were) and from them ``thr``, the match distance. ``near`` is overwritten; ``scratch``: two
    uint8 work arrays."""
    flips, extra = scratch
    cv2.accumulateWeighted(nearest, dmin, _DMIN_RATE, mask=bg)
    cv2.bitwise_xor(raw, prev_raw, dst=flips)
    cv2.bitwise_and(flips, cv2.bitwise_not(near, dst=near), dst=flips)     # not at an object's edges
    cv2.subtract(blink, 1, dst=blink)
    cv2.add(blink, _BLINK_UP, dst=blink, mask=flips)
    cv2.convertScaleAbs(dmin, alpha=_DMIN_SCALE, dst=thr)
    cv2.max(thr, min(255.0, round(base)), dst=thr)
    cv2.multiply(thr, blink, scale=_BLINK_GAIN / BLINK_TENTHS, dst=extra)
    cv2.add(thr, extra, dst=thr)
