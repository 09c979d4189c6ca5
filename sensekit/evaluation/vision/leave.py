"""The object leaving the picture, made from a real clip without synthetic pixels.

A **view** is a crop window of ``fraction`` (default 0.5) of the frame's width and height,
resized back to the frame's size (bilinear). Two ways for the object to leave it:

- ``pan_plan``: the window follows the true box (its centre moves ``gain`` (0.2) of the way to
  the box's centre each frame, an operator catching up; kept inside the frame) until
  frame ``start`` (or later), then moves at ``speed_px`` source pixels per frame in one
  direction (``"left"`` moves the window left, so the object leaves through the view's right
  edge); the camera panning away. The window stops at the frame's border (no invented
  pixels). The pan begins at the first frame from ``start`` on from which the pan takes the
  true box fully outside before the window reaches the border, and it stays outside ``after``
  frames; ``None`` when no frame allows it.
- ``still_plan``: the window stays still while the object moves out of it on its own (a walk
  out of view and stays out ``after`` frames); searched over start frames and window positions
  along x, ``None`` when the clip's object never does.

Each plan gives the window per frame and three frames: ``edge`` (the true box first touches
the window's border), ``half`` (half of its area outside) and ``out`` (fully outside). Cost:
one ``cv2.resize`` per frame. Used by ``benchmarks/track_eval.py --loss`` and the tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

__all__ = ["LeavePlan", "DIRECTIONS", "pan_plan", "still_plan", "view", "outside_share"]

#: window motion per frame for each direction (unit vectors)
DIRECTIONS = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "up": (0.0, -1.0), "down": (0.0, 1.0)}


@dataclass(frozen=True)
class LeavePlan:
    windows: np.ndarray        # (frames, 4) x0, y0, w, h of the window in source pixels
    edge: int                  # first frame the true box touches the window's border
    half: int                  # first frame with half the true box outside
    out: int                   # first frame with the true box fully outside
    label: str
    first: int = 0             # the clip frame the plan's frame 0 is
    turn: int = 0              # the frame the window starts to pan (0 for a still window)


def outside_share(box: Sequence[float], window: Sequence[float]) -> float:
    """Share of ``box``'s area outside ``window`` (both x, y, w, h)."""
    x, y, w, h = box
    wx, wy, ww, wh = window
    ix = max(0.0, min(x + w, wx + ww) - max(x, wx))
    iy = max(0.0, min(y + h, wy + wh) - max(y, wy))
    return 1.0 - ix * iy / max(1e-9, w * h)


def view(frame: np.ndarray, window: Sequence[float]) -> np.ndarray:
    """The window of ``frame`` resized to the frame's size."""
    H, W = frame.shape[:2]
    x0, y0, w, h = (int(round(v)) for v in window)
    return cv2.resize(frame[y0:y0 + h, x0:x0 + w], (W, H), interpolation=cv2.INTER_LINEAR)


def view_box(box: Sequence[float], window: Sequence[float], size: tuple[int, int]) -> tuple[float, ...]:
    """``box`` in the coordinates of ``view`` (``size`` = frame width, height)."""
    sx, sy = size[0] / window[2], size[1] / window[3]
    return ((box[0] - window[0]) * sx, (box[1] - window[1]) * sy, box[2] * sx, box[3] * sy)


def _marks(truth: np.ndarray, windows: np.ndarray, label: str) -> LeavePlan | None:
    shares = np.array([outside_share(b, w) for b, w in zip(truth, windows)])
    inside = shares <= 1e-6
    first = int(np.argmax(~inside)) if not inside.all() else len(shares)
    out = np.flatnonzero(shares >= 1 - 1e-6)
    if not len(out):
        return None
    return LeavePlan(windows, first, int(np.argmax(shares >= 0.5)), int(out[0]), label)


def _stays_out(truth: np.ndarray, window: Sequence[float]) -> bool:
    return all(outside_share(b, window) >= 1 - 1e-6 for b in truth)


def _follow(truth: np.ndarray, size: tuple[int, int], fraction: float, gain: float) -> np.ndarray:
    W, H = size
    ww, wh = fraction * W, fraction * H
    centres = truth[:, :2] + truth[:, 2:] / 2
    aim = np.empty_like(centres)
    aim[0] = centres[0]
    for k in range(1, len(centres)):                 # an operator catching up, not a locked crop
        aim[k] = aim[k - 1] + gain * (centres[k] - aim[k - 1])
    x0 = np.clip(aim[:, 0] - ww / 2, 0, W - ww)
    y0 = np.clip(aim[:, 1] - wh / 2, 0, H - wh)
    return np.stack([x0, y0, np.full_like(x0, ww), np.full_like(y0, wh)], -1)


def pan_plan(truth: np.ndarray, size: tuple[int, int], *, direction: str, speed_px: float,
             start: int = 30, fraction: float = 0.5, after: int = 15, gain: float = 0.2) -> LeavePlan | None:
    """Follow, then pan away from the first feasible frame >= ``start`` (see the module);
    ``after`` frames must remain in the clip once the object is out."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {sorted(DIRECTIONS)}, got {direction!r}")
    W, H = size
    dx, dy = DIRECTIONS[direction]
    follow = _follow(truth, size, fraction, gain)
    n = len(truth)
    for s in range(start, n):
        k = np.arange(n - s, dtype=float)
        moved = follow[s].copy() + np.outer(k, [dx * speed_px, dy * speed_px, 0, 0])
        free = (moved[:, 0] >= 0) & (moved[:, 1] >= 0) & (moved[:, 0] + moved[:, 2] <= W) & \
            (moved[:, 1] + moved[:, 3] <= H)
        moved[:, 0] = np.clip(moved[:, 0], 0, W - moved[:, 2])      # the pan stops at the frame's border
        moved[:, 1] = np.clip(moved[:, 1], 0, H - moved[:, 3])
        windows = np.concatenate([follow[:s], moved])
        plan = _marks(truth, windows, f"pan {direction} {speed_px:g} px/frame")
        if plan is None or plan.out + after >= n or plan.edge < s or not free[:plan.out - s + 1].all():
            continue
        if all(_stays_out(truth[k:k + 1], windows[k]) for k in range(plan.out, plan.out + after + 1)):
            return LeavePlan(windows[:plan.out + after + 1], plan.edge, plan.half, plan.out, plan.label, 0, s)
    return None


def still_plan(truth: np.ndarray, size: tuple[int, int], *, fraction: float = 0.5, inside: int = 30,
               after: int = 15, step_px: int = 8) -> LeavePlan | None:
    """A still window the object walks out of: the first start frame (steps of 10) and window
    x (steps of ``step_px``; y centred on the object at the start) where the true box stays
    fully inside for ``inside`` frames and then leaves completely with ``after`` frames left."""
    W, H = size
    ww, wh = fraction * W, fraction * H
    n = len(truth)
    for s in range(0, n - inside - after, 10):
        cy = truth[s, 1] + truth[s, 3] / 2
        y0 = float(np.clip(cy - wh / 2, 0, H - wh))
        for x0 in np.arange(0, W - ww + 1, step_px, dtype=float):
            windows = np.tile([x0, y0, ww, wh], (n - s, 1))
            plan = _marks(truth[s:], windows, "object walks out")
            if plan is None or plan.edge < inside or plan.out + after >= n - s or \
                    not _stays_out(truth[s + plan.out:s + plan.out + after + 1], windows[0]):
                continue
            return LeavePlan(windows[:plan.out + after + 1], plan.edge, plan.half, plan.out,
                             f"object walks out (from frame {s}, window x {x0:.0f})", s)
    return None
