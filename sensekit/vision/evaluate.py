"""Scoring trackers on clips with per-frame boxes, started the way a user starts them: by a click.

The developer clips (``../shared/data/video/tracking``: ``NAME.mp4`` and ``NAME_gt.csv`` with
``frame,x,y,w,h``, OTB boxes, 1-based) are read once each; every tracker of a run sees the
same decoded frames in the same pass.

- **From clicks**: ``ColorTracker.pick(frame0, x, y)`` at the true box's centre and at 4
  clicks offset by ``offset`` (25 %) of the box's width (left, right) or height (up, down).
  The box the click picked is the answer on frame 0; the tracker answers from frame 1 on.
- **Baselines**: OpenCV's CamShift on a hue histogram of the true box (the usual recipe:
  saturation >= 60, value >= 32), ``ColorTracker.pick_box`` on the true box, and the book's
  method from the centre click (blur 10, 4 levels, the exact clicked colour, its
  ``getColorBoundsRect`` box).

A tracker that reports nothing on a frame keeps its last box (so a loss costs accuracy, not
a missing value). Scores: **success** = fraction of frames with IoU > 0.5 against the truth,
and the **median centre error** in pixels. ``evaluate`` runs all of it; ``format_table``
prints it (``benchmarks/track_eval.py``, ``tests/vision/test_track_eval.py``).
Cost: one decode of each clip plus ~5-10 ms per tracker per 640x480 frame (about 20 s for
coke and tiger1 with 7 trackers). A missing or unreadable clip raises ``SourceError``.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Protocol, Sequence

import cv2
import numpy as np

from sensekit.errors import SourceError
from sensekit.vision.color_tracker import ColorTracker

__all__ = ["TrackClip", "Score", "load_clip", "click_points", "iou", "score", "CamShiftTracker",
           "SensekitTracker", "evaluate_clip", "evaluate", "format_table", "CLIPS"]

#: the developer clips, in ``video/tracking`` of the shared data folder
CLIPS = ("coke", "tiger1")

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class TrackClip:
    name: str
    video: Path
    truth: np.ndarray          # (frames, 4) x, y, w, h; 0-based pixels


@dataclass(frozen=True)
class Score:
    success: float             # fraction of frames with IoU > 0.5
    centre_error_px: float     # median over frames
    frames: int


def load_clip(folder: Path, name: str) -> TrackClip:
    """``folder/NAME.mp4`` and ``folder/NAME_gt.csv`` (OTB boxes are 1-based: x - 1, y - 1)."""
    video, gt = Path(folder) / f"{name}.mp4", Path(folder) / f"{name}_gt.csv"
    for p in (video, gt):
        if not p.is_file():
            raise SourceError(f"tracking clip file not found: {p}")
    with gt.open() as fh:
        rows = list(csv.DictReader(fh))
    truth = np.array([(float(r["x"]) - 1, float(r["y"]) - 1, float(r["w"]), float(r["h"])) for r in rows])
    return TrackClip(name, video, truth)


def frames_of(clip: TrackClip) -> Iterator[np.ndarray]:
    """The clip's frames (BGR), read by sensekit's own media source."""
    from sensekit.capture.base import VideoFrame
    from sensekit.capture.spec import open_source

    with open_source(f"file:{clip.video}") as source:
        for item in source:
            if isinstance(item, VideoFrame):
                yield item.image


def click_points(box: Sequence[float], offset: float = 0.25) -> dict[str, tuple[float, float]]:
    """The centre of ``box`` and 4 clicks moved by ``offset`` of its width or height."""
    x, y, w, h = (float(v) for v in box)
    cx, cy = x + w / 2, y + h / 2
    return {"centre": (cx, cy), "left": (cx - offset * w, cy), "right": (cx + offset * w, cy),
            "up": (cx, cy - offset * h), "down": (cx, cy + offset * h)}


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def score(boxes: Sequence[Sequence[float]], truth: np.ndarray) -> Score:
    n = min(len(boxes), len(truth))
    ious = np.array([iou(b, g) for b, g in zip(boxes[:n], truth[:n])])
    b = np.asarray(boxes[:n], np.float64)
    g = truth[:n]
    ce = np.hypot(b[:, 0] + b[:, 2] / 2 - g[:, 0] - g[:, 2] / 2, b[:, 1] + b[:, 3] / 2 - g[:, 1] - g[:, 3] / 2)
    return Score(float(np.mean(ious > 0.5)), float(np.median(ce)), n)


class Tracker(Protocol):
    box: Box

    def update(self, frame: np.ndarray) -> Box: ...


class CamShiftTracker:
    """OpenCV's CamShift on a hue histogram of the start box (the usual recipe)."""

    def __init__(self, frame: np.ndarray, box: Sequence[float]) -> None:
        x, y, w, h = (int(round(v)) for v in box)
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        roi = hsv[y:y + h, x:x + w]
        mask = cv2.inRange(roi, (0, 60, 32), (180, 255, 255))
        self.hist = cv2.calcHist([roi], [0], mask, [180], [0, 180])
        cv2.normalize(self.hist, self.hist, 0, 255, cv2.NORM_MINMAX)
        self.box: Box = (x, y, w, h)
        self._start = self.box

    def update(self, frame: np.ndarray) -> Box:
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        bp = cv2.calcBackProject([hsv], [0], self.hist, [0, 180], 1)
        bp &= cv2.inRange(hsv, (0, 60, 32), (180, 255, 255))
        crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 10, 1)
        _, window = cv2.CamShift(bp, tuple(int(v) for v in self.box), crit)
        if window[2] <= 0 or window[3] <= 0:
            window = self._start
        self.box = tuple(float(v) for v in window)  # type: ignore[assignment]
        return self.box


class SensekitTracker:
    """A ``ColorTracker`` started by a click (``click``) or a box (``box``); keeps its last box
    on a frame without a match. ``union`` reports the union box (the book's bounds)."""

    def __init__(self, frame: np.ndarray, *, click: tuple[float, float] | None = None,
                 box: Sequence[float] | None = None,
                 make: Callable[[], ColorTracker] = ColorTracker, fps: float = 30.0,
                 union: bool = False) -> None:
        self.tracker = make()
        self.union = union
        if click is not None:
            self.tracker.pick(frame, *click)
            picked = self.tracker.picked
            if picked is not None:
                self.box: Box = tuple(float(v) for v in picked.box)  # type: ignore[assignment]
            else:                                  # colour methods: what the colour matches now
                r = self.tracker.update(frame, 0.0)
                self.box = tuple(float(v) for v in (r.union_box if union else r.box))  # type: ignore[assignment]
        elif box is not None:
            self.tracker.pick_box(frame, box)
            self.box = tuple(float(v) for v in box)  # type: ignore[assignment]
        else:
            raise ValueError("SensekitTracker needs a click or a box")
        self._dt = 1.0 / fps
        self._k = 0

    def update(self, frame: np.ndarray) -> Box:
        self._k += 1
        r = self.tracker.update(frame, self._k * self._dt)
        box = r.union_box if self.union else r.box
        if r.found and box[2] > 0:
            self.box = tuple(float(v) for v in box)  # type: ignore[assignment]
        return self.box


def evaluate_clip(clip: TrackClip, *, offset: float = 0.25,
                  make: Callable[[], ColorTracker] = ColorTracker,
                  baselines: bool = True, start_frame: int = 0,
                  frames: int | None = None) -> dict[str, Score]:
    """Scores of sensekit from each click (``"click centre"``, ``"click left"``...) and, with
    ``baselines``, of CamShift and sensekit from the true box and the book from the centre.
    ``start_frame``/``frames`` pick a stretch of the clip (default: all of it from frame 0)."""
    stream = frames_of(clip)
    for _ in range(start_frame):
        next(stream, None)
    first = next(stream, None)
    if first is None:
        raise SourceError(f"{clip.video} has no frame {start_frame}")
    end = len(clip.truth) if frames is None else min(len(clip.truth), start_frame + frames)
    truth = clip.truth[start_frame:end]
    start = truth[0]
    trackers: dict[str, Tracker] = {f"click {name}": SensekitTracker(first, click=xy, make=make)
                                    for name, xy in click_points(start, offset).items()}
    if baselines:
        trackers["sensekit (true box)"] = SensekitTracker(first, box=start, make=make)
        trackers["CamShift (true box)"] = CamShiftTracker(first, start)
        trackers["book (centre click)"] = SensekitTracker(
            first, click=click_points(start)["centre"], union=True,
            make=lambda: ColorTracker(method="exact", blur_px=10, levels=4))
    boxes: dict[str, list[Box]] = {name: [t.box] for name, t in trackers.items()}
    for n, frame in enumerate(stream, start=1):
        if n >= len(truth):
            break
        for name, t in trackers.items():
            boxes[name].append(t.update(frame))
    return {name: score(b, truth) for name, b in boxes.items()}


def evaluate(folder: Path, clips: Sequence[str] = CLIPS, **kwargs: object) -> dict[str, dict[str, Score]]:
    """``evaluate_clip`` on each clip of ``folder`` (``.../video/tracking``)."""
    return {name: evaluate_clip(load_clip(folder, name), **kwargs) for name in clips}  # type: ignore[arg-type]


def format_table(results: dict[str, dict[str, Score]]) -> str:
    """One block per clip: success and median centre error per start, then the clicks' mean."""
    lines = []
    for clip, scores in results.items():
        n = next(iter(scores.values())).frames
        lines.append(f"{clip} ({n} frames)             success (IoU>0.5)   median centre error px")
        for name, s in scores.items():
            lines.append(f"  {name:26s} {s.success:8.3f}          {s.centre_error_px:8.1f}")
        clicks = [s for name, s in scores.items() if name.startswith("click ")]
        if clicks:
            lines.append(f"  {'clicks, mean':26s} {np.mean([s.success for s in clicks]):8.3f}          "
                         f"{np.mean([s.centre_error_px for s in clicks]):8.1f}")
    return "\n".join(lines)
