"""ViewChange: has most of the picture changed at once (a cut, a camera swung away)?

Each frame is shrunk to a 32x24 thumbnail (bilinear); ``view_change(a, b)`` is the share of
its cells whose colour moved by more than ``level`` (40 of 255 in any channel) from the
previous frame's. An object moving, or a camera panning to follow it, changes a band of cells;
a cut or a swung camera changes most of them. On the five developer tracking clips the share
between consecutive frames stays at or below 0.38 (the panning sprinter; the others at or
below 0.21), while a cut to another clip reads 0.76-0.93 (``benchmarks/loss_misses.py
--cue``). ``ColorTracker`` takes above ``tracker.cut_above`` (0.5: half the picture, chosen
before looking at the scores) as a changed view and then re-verifies its box strictly.

Cost: ~80 us per 640x480 frame at a load of ~8 (one ``cv2.resize`` and a 32x24x3
difference), about 1 % of a model tracker's update. Failure
modes: a sudden exposure or white-balance jump, or a flash, also changes most cells (the
tracker then only re-checks its box, which passes when the object is still there); a slow
pan of a whole new scene into view changes a little each frame and is not a cut (the
appearance check is left to catch it).
"""
from __future__ import annotations

import cv2
import numpy as np

__all__ = ["THUMB_SIZE", "ViewChange", "thumbnail", "view_change"]

#: (width, height) of the thumbnail the cue compares
THUMB_SIZE = (32, 24)


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """``frame`` (HxW or HxWx3, uint8) shrunk to ``THUMB_SIZE`` (bilinear)."""
    return cv2.resize(frame, THUMB_SIZE, interpolation=cv2.INTER_LINEAR)


def view_change(a: np.ndarray, b: np.ndarray, *, level: int = 40) -> float:
    """The share (0..1) of the cells of two thumbnails whose colour differs by more than
    ``level`` in any channel."""
    d = cv2.absdiff(a, b)
    if d.ndim == 3:
        d = d.max(axis=2)
    return float(np.count_nonzero(d > level)) / float(d.size)


class ViewChange:
    """Keeps the previous frame's thumbnail; ``update(frame)`` -> the share changed since it
    (0 for the first frame, or when the frame size changes)."""

    def __init__(self) -> None:
        self.previous: np.ndarray | None = None
        self.shape: tuple[int, ...] | None = None
        #: the last share measured
        self.share = 0.0

    def reset(self) -> None:
        self.previous = None
        self.shape = None
        self.share = 0.0

    def update(self, frame: np.ndarray) -> float:
        thumb = thumbnail(frame)
        same = self.previous is not None and self.shape == frame.shape
        self.share = view_change(self.previous, thumb) if same and self.previous is not None else 0.0
        self.previous = thumb
        self.shape = frame.shape
        return self.share
