"""Person boxes under a click, for the person-proposal experiments (branch ``click10``; not shipped).

People click on people, and a person is the multi-coloured object the click's proposals
(``sensekit/vision/proposals.py``) split worst: the shirt without the legs, or the sprinter with
the track. Two detectors give the person's box around a click; ``person_box_eval.py`` and
``person_pool_eval.py`` measure them held out (``docs/tracking.md``, "Person boxes").

- ``person_boxes(frame, x, y)``: MediaPipe Pose (the full model of the ``hands`` extra,
  still-image mode, ``enable_segmentation``) on square crops centred on the click (``WINDOWS``:
  0.25, 0.5 and 1.0 of the frame's short side, shifted to stay inside the frame). In each crop
  where a person is found, the part of the segmentation mask (> 0.5) holding the click is the
  person's region; its box is a ``PersonBox`` scored by the mean visibility of the 33
  landmarks. A region cut by a crop's edge inside the frame is dropped, as is a crop whose mask
  misses the click (the person found is not the one clicked). ``[]`` without the extra.
- ``hog_boxes(frame, x, y)``: OpenCV's HOG people detector (``HOGDescriptor`` with its default
  SVM; OpenCV 4.x only: OpenCV 5, what the default install resolves to, has no HOG and no Haar
  cascades in its main modules) on two crops around the click enlarged so that their smallest
  person is ~100 px tall; detections holding the click, shrunk by ``HOG_PAD`` (the window's
  margin around a person, set before looking at the scores), scored by the SVM's margin.

Cost (CPU per click, 640x480-ish frames, ``person_box_eval.py``): Pose ~70 ms for the three
crops (max ~190), HOG ~80 ms (max ~96): either alone is more than the budget a click has left
(< 100 ms in all, ~60 ms already spent on the proposals). Nothing is downloaded.
Failure modes: around small people in a crowd (the basketball player, the sprinter) Pose
mostly finds no one, or another person than the one clicked; both detectors find the person
holding a clicked object (the can, the plush tiger) and the rider of the motorbike.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

__all__ = ["PersonBox", "WINDOWS", "HOG_PAD", "HOG_WINDOWS", "available", "hog_boxes", "person_boxes"]

#: crop sides, as fractions of the frame's short side
WINDOWS = (0.25, 0.5, 1.0)

_graph: Any = None


@dataclass(frozen=True)
class PersonBox:
    """A person's region under the click: ``box`` (x, y, w, h, frame px), ``score`` (mean
    landmark visibility, 0-1) and ``window`` (the index into the windows asked for)."""
    box: tuple[int, int, int, int]
    score: float
    window: int


def available() -> bool:
    """Is MediaPipe Pose (the ``hands`` extra) installed?"""
    try:
        from sensekit.vision.pose import load_pose

        load_pose()
    except Exception:       # ConfigError without the extra; any import failure means the same
        return False
    return True


def _pose() -> Any:
    global _graph
    if _graph is None:
        from sensekit.vision.mediapipe_base import filtered_native_stderr
        from sensekit.vision.pose import load_pose

        with filtered_native_stderr():
            _graph = load_pose().Pose(static_image_mode=True, model_complexity=1, enable_segmentation=True,
                                      min_detection_confidence=0.5)
    return _graph


def _crop(W: int, H: int, x: float, y: float, side: int) -> tuple[int, int, int, int]:
    x0 = int(min(max(0.0, x - side / 2), max(0, W - side)))
    y0 = int(min(max(0.0, y - side / 2), max(0, H - side)))
    return x0, y0, min(W, x0 + side), min(H, y0 + side)


_hog: Any = None
#: HOG's window holds the person with a margin: the box is shrunk by these shares of its width, height
HOG_PAD = (0.15, 0.07)
#: HOG crops: (side as a fraction of the short side, smallest person height looked for, same unit)
HOG_WINDOWS = ((0.5, 0.1), (1.2, 0.35))


def hog_boxes(frame: np.ndarray, x: float, y: float) -> list[PersonBox]:
    """OpenCV's HOG people detector (OpenCV 4.x; not in OpenCV 5's main modules) on crops
    around the click, each enlarged so its smallest person is ~100 px tall; the detections
    holding the click, shrunk by ``HOG_PAD``, scored by the SVM's margin."""
    global _hog
    if not hasattr(cv2, "HOGDescriptor"):
        return []
    if _hog is None:
        _hog = cv2.HOGDescriptor()
        _hog.setSVMDetector(cv2.HOGDescriptor.getDefaultPeopleDetector())
    H, W = frame.shape[:2]
    short = min(H, W)
    out: list[PersonBox] = []
    for i, (frac, smallest) in enumerate(HOG_WINDOWS):
        side = frac * short
        x0, y0 = int(max(0.0, x - side / 2)), int(max(0.0, y - 0.6 * side))
        x1, y1 = int(min(float(W), x + side / 2)), int(min(float(H), y + 0.6 * side))
        f = 100 / (smallest * short)
        img = cv2.resize(np.ascontiguousarray(frame[y0:y1, x0:x1]), None, fx=f, fy=f)
        if img.shape[1] < 64 or img.shape[0] < 128:
            continue
        rects, weights = _hog.detectMultiScale(img, hitThreshold=-0.5, winStride=(8, 8), padding=(16, 16),
                                               scale=1.1)
        for (rx, ry, rw, rh), s in zip(rects, np.ravel(weights)):
            bx, by, bw, bh = x0 + rx / f, y0 + ry / f, rw / f, rh / f
            bx, by = bx + HOG_PAD[0] * bw, by + HOG_PAD[1] * bh
            bw, bh = bw * (1 - 2 * HOG_PAD[0]), bh * (1 - 2 * HOG_PAD[1])
            if bx <= x <= bx + bw and by <= y <= by + bh:
                out.append(PersonBox((int(bx), int(by), int(round(bw)), int(round(bh))), float(s), i))
    return out


def person_boxes(frame: np.ndarray, x: float, y: float, *, windows: tuple[float, ...] = WINDOWS
                 ) -> list[PersonBox]:
    """The person regions holding the click ``(x, y)`` in each window (see the module
    docstring); ``[]`` without the ``hands`` extra. ``frame`` BGR uint8, the click inside it."""
    if not available():
        return []
    graph = _pose()
    H, W = frame.shape[:2]
    short = min(H, W)
    out: list[PersonBox] = []
    for i, frac in enumerate(windows):
        x0, y0, x1, y1 = _crop(W, H, x, y, max(16, int(frac * short)))
        result = graph.process(np.ascontiguousarray(frame[y0:y1, x0:x1, ::-1]))
        if result.pose_landmarks is None or result.segmentation_mask is None:
            continue
        mask = (np.asarray(result.segmentation_mask) > 0.5).astype(np.uint8)
        _n, labels, stats, _c = cv2.connectedComponentsWithStats(mask, connectivity=8)
        lab = labels[min(y1 - y0 - 1, int(y - y0)), min(x1 - x0 - 1, int(x - x0))]
        if lab == 0:
            continue
        bx, by, bw, bh = (int(v) for v in stats[lab][:4])
        h, w = mask.shape
        cut = ((bx == 0 and x0 > 0) or (by == 0 and y0 > 0) or (bx + bw == w and x1 < W)
               or (by + bh == h and y1 < H))
        if cut:
            continue
        score = float(np.mean([p.visibility for p in result.pose_landmarks.landmark]))
        out.append(PersonBox((x0 + bx, y0 + by, bw, bh), score, i))
    return out
