"""Cut the hand that holds a clicked object out of its first box.

A measured extent (``extent.measure_extent``) often takes the object with the hand and arm that
hold it (the can of coke: "too big, with skin", ``benchmarks/extent_diagnose.py``). A hand that
holds something comes from outside the object: its skin crosses the box's border. The rule,
fixed before it was measured (``docs/tracking.md``, branch ``click17``):

- skin is YCrCb Cr 133-173, Cb 77-127 (the definition of ``extent_diagnose.py``), opened with a
  3x3 square;
- nothing is cut when the click's 5x5 px are more than half skin (the user clicked a hand or a
  face);
- in a window of the box grown by half its width and height on each side, a connected part of
  skin is a **holder** when it has pixels in the box's mask and pixels outside the box, and does
  not hold the click;
- the mask less the holders, its part holding the click (``segment.part_at``), gives the new
  box; it is kept when its area is between ``MIN_KEEP`` (0.25) and ``MAX_KEEP`` (0.9) of the old
  box's, else the box is left as it was.

``cut_holder(frame, segment, x, y)`` returns the cut ``Segment`` (same method)
or ``segment`` itself. Pure NumPy and OpenCV; ~1 ms at 640x480.
"""
from __future__ import annotations

import cv2
import numpy as np

from sensekit.vision.segment import Segment, part_at

__all__ = ["skin_mask", "cut_holder", "MIN_KEEP", "MAX_KEEP"]

MIN_KEEP = 0.25
MAX_KEEP = 0.9
_OPEN = np.ones((3, 3), np.uint8)


def skin_mask(img: np.ndarray) -> np.ndarray:
    """Skin pixels of a BGR image (YCrCb Cr 133-173, Cb 77-127), opened with a 3x3 square."""
    ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)
    cr, cb = ycc[..., 1], ycc[..., 2]
    skin = ((cr >= 133) & (cr <= 173) & (cb >= 77) & (cb <= 127)).view(np.uint8)
    return cv2.morphologyEx(skin, cv2.MORPH_OPEN, _OPEN) > 0


def cut_holder(frame: np.ndarray, segment: Segment, x: float, y: float) -> Segment:
    """``segment`` without the skin that crosses its box's border (see the module docstring)."""
    H, W = frame.shape[:2]
    bx, by, bw, bh = segment.box
    if bw < 2 or bh < 2:
        return segment
    xi, yi = int(round(x)), int(round(y))
    X0, Y0 = max(0, bx - bw // 2), max(0, by - bh // 2)
    X1, Y1 = min(W, bx + bw + bw // 2), min(H, by + bh + bh // 2)
    skin = skin_mask(np.ascontiguousarray(frame[Y0:Y1, X0:X1]))
    cx, cy = xi - X0, yi - Y0
    near = skin[max(0, cy - 2):cy + 3, max(0, cx - 2):cx + 3]
    if near.size == 0 or near.mean() > 0.5:
        return segment
    n, labels = cv2.connectedComponents(skin.view(np.uint8), connectivity=8)
    if n < 2:
        return segment
    mask = segment.mask[Y0:Y1, X0:X1]
    inside = np.zeros_like(skin)
    inside[by - Y0:by - Y0 + bh, bx - X0:bx + bw - X0] = True
    in_mask = np.bincount(labels[mask & skin], minlength=n) > 0
    outside = np.bincount(labels[~inside & skin], minlength=n) > 0
    holders = in_mask & outside
    holders[0] = False
    if 0 <= cy < labels.shape[0] and 0 <= cx < labels.shape[1]:
        holders[labels[cy, cx]] = False
    if not holders.any():
        return segment
    left = mask & ~holders[labels]
    part = part_at(left, cx, cy)
    if part is None:
        return segment
    ys, xs = np.nonzero(part)
    box = (int(xs.min()) + X0, int(ys.min()) + Y0, int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
    share = box[2] * box[3] / float(bw * bh)
    if not MIN_KEEP <= share <= MAX_KEEP:
        return segment
    out = np.zeros((H, W), bool)
    out[Y0:Y1, X0:X1] = part
    return Segment(box, out, segment.method)
