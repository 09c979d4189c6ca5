"""Finding several people for a one-person pose model: boxes, crops, masking and windows.

MediaPipe Pose finds one person per call. ``PoseStage`` gets the others by calling it again:

- on the frame with everyone found so far painted over in grey (``paint_out``), until it
  finds nobody new;
- then on overlapping square windows (``search_windows``: sides 0.6 and 0.4 of the larger
  image side, half-overlapping), still with the found people painted over, so a person too
  small for the model's 224-pixel view of the whole frame fills enough of a window.

These are pure functions on NumPy arrays; the calls to the model are the stage's. A window
result is kept only when its torso (both shoulders and both hips) is visible and upright
(``upright``: nearer vertical than horizontal), which keeps the model's guesses on an empty
window or a patterned floor out; a person lying down is found only by the first,
whole-frame call. The two window sizes were the first ones tried (a
person 0.3-0.6 of the window high is what the model sees best), on the developer stills
(``benchmarks/pose_eval.py``), which are therefore not a held-out measure of them.

Cost: the search is 1 + (number of people) full-frame calls plus 18 window calls at 640x480
(~20 detector runs; ~0.2-0.4 s on one core), which is why a video runs it once in
``search_every_frames`` and tracks the people in between.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["WINDOW_FRACTIONS", "TORSO", "landmark_box", "box_iou", "crop_box", "paint_out",
           "search_windows", "torso_visible", "upright"]

WINDOW_FRACTIONS = (0.6, 0.4)    # window sides, fractions of the larger image side
TORSO = (11, 12, 23, 24)         # shoulders and hips, MediaPipe Pose numbering
GREY = 128

Box = tuple[int, int, int, int]  # x, y, w, h


def landmark_box(points: np.ndarray, *, min_visibility: float = 0.5) -> Box:
    """The box around the landmarks at least ``min_visibility`` visible (all of them when
    fewer than four are)."""
    seen = points[:, 3] >= min_visibility
    q = points[seen] if seen.sum() >= 4 else points
    x0, y0 = np.floor(q[:, :2].min(axis=0))
    x1, y1 = np.ceil(q[:, :2].max(axis=0))
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two ``(x, y, w, h)`` boxes (0 when either is empty)."""
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def crop_box(box: Box, width: int, height: int, *, margin: float = 0.25) -> Box:
    """A square around ``box``, its side the box's larger side plus ``margin`` of it on each
    side, clipped to the image (empty when nothing is left)."""
    x, y, w, h = box
    cx, cy = x + w / 2.0, y + h / 2.0
    side = max(w, h) * (1.0 + 2.0 * margin)
    x0, y0 = int(max(0.0, cx - side / 2)), int(max(0.0, cy - side / 2))
    x1, y1 = int(min(float(width), cx + side / 2)), int(min(float(height), cy + side / 2))
    return (x0, y0, x1 - x0, y1 - y0) if x1 > x0 and y1 > y0 else (0, 0, 0, 0)


def paint_out(image: np.ndarray, boxes: list[Box]) -> None:
    """Fill each box of ``image`` with grey, in place."""
    for x, y, w, h in boxes:
        image[max(y, 0):max(y + h, 0), max(x, 0):max(x + w, 0)] = GREY


def _starts(length: int, side: int, step: int) -> list[int]:
    """Window starts along one axis: every ``step``, the last one flush with the end."""
    if side >= length:
        return [0]
    starts = list(range(0, length - side + 1, step))
    if starts[-1] + side < length:
        starts.append(length - side)
    return starts


def search_windows(width: int, height: int,
                   fractions: tuple[float, ...] = WINDOW_FRACTIONS) -> Iterator[Box]:
    """Half-overlapping square windows (clipped to the image) covering it, large ones first."""
    for frac in fractions:
        side = int(frac * max(width, height))
        if side < 32:
            continue
        step = max(side // 2, 1)
        for y in _starts(height, side, step):
            for x in _starts(width, side, step):
                yield x, y, min(side, width - x), min(side, height - y)


def torso_visible(points: np.ndarray, *, min_visibility: float = 0.5) -> bool:
    """Both shoulders and both hips at least ``min_visibility`` visible."""
    return bool((points[list(TORSO), 3] >= min_visibility).all())


def upright(points: np.ndarray) -> bool:
    """The torso (hip midpoint to shoulder midpoint) is nearer vertical than horizontal."""
    d = (points[11, :2] + points[12, :2]) / 2 - (points[23, :2] + points[24, :2]) / 2
    return bool(abs(float(d[1])) >= abs(float(d[0])))
