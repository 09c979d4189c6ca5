"""Scoring motion masks against per-pixel ground truth, CDnet style, and the OpenCV baselines.

- ``load_cdnet(folder)``: a CDnet sequence folder (``input/inNNNNNN.jpg``,
  ``groundtruth/gtNNNNNN.png``, ``ROI.bmp``) as frames, truth masks and the region of interest.
- ``counts(mask, truth, roi)``: true positives, false positives and false negatives of one frame
  with CDnet's conventions: truth 255 is moving; 0 (static) and 50 (hard shadow) are not; 85
  (outside the region of interest) and 170 (unknown, at motion boundaries) are not scored.
- ``f_measure(c)``: ``2PR / (P + R)`` of summed counts (pixels pooled over frames, as CDnet).
- ``subtractor(name, ...)``: a fresh ``frame -> bool mask`` callable: sensekit's
  ``"background"`` and ``"difference"`` methods (``MotionDetector``), or OpenCV's ``"mog2"`` and
  ``"knn"`` (foreground = 255; their shadow label 127 counts as background), optionally with the
  same clean-up as sensekit's background model (``clean=True``).
- ``score_run(make, clip, start=, stop=, ranges=)``: run one fresh subtractor over
  ``frames[start:stop]`` and sum the counts inside each scored range.

Used by ``benchmarks/motion_eval.py`` and ``tests/vision/test_motion.py``. Cost: what the
subtractors cost, plus ~1 ms per frame of counting at 320x240.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from sensekit.vision.background import BackgroundModel
from sensekit.vision.foreground_mask import clean_mask
from sensekit.vision.motion import MotionDetector

__all__ = ["CdnetClip", "load_cdnet", "counts", "f_measure", "subtractor", "score_run"]

Subtractor = Callable[[np.ndarray], np.ndarray]


@dataclass
class CdnetClip:
    frames: list[np.ndarray]          # BGR uint8
    truths: list[np.ndarray]          # HxW uint8 with CDnet's labels
    roi: np.ndarray                   # HxW bool
    first: int                        # number of the first frame (inNNNNNN)


def load_cdnet(folder: Path) -> CdnetClip:
    """Read every ``input/in*.jpg`` with its ``groundtruth/gt*.png`` and ``ROI.bmp``."""
    folder = Path(folder)
    inputs = sorted((folder / "input").glob("in*.jpg"))
    if not inputs:
        raise FileNotFoundError(f"no input/in*.jpg frames in {folder}")
    frames, truths = [], []
    for p in inputs:
        gt_path = folder / "groundtruth" / f"gt{p.stem[2:]}.png"
        frame = cv2.imread(str(p))
        truth = cv2.imread(str(gt_path), cv2.IMREAD_GRAYSCALE)
        if frame is None or truth is None:
            raise FileNotFoundError(f"cannot read {p} or {gt_path}")
        frames.append(frame)
        truths.append(truth)
    roi_img = cv2.imread(str(folder / "ROI.bmp"), cv2.IMREAD_GRAYSCALE)
    roi = np.ones(truths[0].shape, bool) if roi_img is None else roi_img > 0
    return CdnetClip(frames, truths, roi, int(inputs[0].stem[2:]))


def counts(mask: np.ndarray, truth: np.ndarray, roi: np.ndarray) -> np.ndarray:
    """``[tp, fp, fn]`` of one frame (see the module docstring for the labels)."""
    scored = roi & (truth != 85) & (truth != 170)
    pos = truth == 255
    pred = mask > 0
    return np.array([np.count_nonzero(pred & pos & scored),
                     np.count_nonzero(pred & ~pos & scored),
                     np.count_nonzero(~pred & pos & scored)], np.int64)


def f_measure(c: Sequence[int] | np.ndarray) -> float:
    tp, fp, fn = (int(v) for v in c)
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    return 2 * p * r / max(1e-12, p + r)


def subtractor(name: str, *, clean: bool = False, **params: Any) -> Subtractor:
    """A fresh foreground detector: see the module docstring for the names."""
    if name in ("background", "difference"):
        kw: dict[str, Any] = {}
        if name == "background":
            kw["background"] = BackgroundModel(**params)
        elif params:
            kw.update(params)
        md = MotionDetector(method=name, min_amount=0.0, **kw)
        return lambda frame: md.update(frame).mask.copy()
    sub: cv2.BackgroundSubtractor
    if name == "mog2":
        sub = cv2.createBackgroundSubtractorMOG2(**params)
    elif name == "knn":
        sub = cv2.createBackgroundSubtractorKNN(**params)
    else:
        raise ValueError(f"unknown subtractor {name!r} (background, difference, mog2, knn)")

    def apply(frame: np.ndarray) -> np.ndarray:
        fg = cv2.compare(sub.apply(frame), 255, cv2.CMP_EQ)  # type: ignore[call-overload]  # stub: scalar src2       # 127 = shadow: background
        return clean_mask(fg) if clean else fg

    return apply


def score_run(make: Callable[[], Subtractor], clip: CdnetClip, *, start: int = 0, stop: int | None = None,
              ranges: Sequence[range] = ()) -> list[np.ndarray]:
    """One fresh subtractor over ``frames[start:stop]``; summed counts inside each range."""
    fn = make()
    stop = len(clip.frames) if stop is None else stop
    totals = [np.zeros(3, np.int64) for _ in ranges]
    for i in range(start, stop):
        mask = fn(clip.frames[i])
        for tot, rng in zip(totals, ranges):
            if i in rng:
                tot += counts(mask, clip.truths[i], clip.roi)
    return totals
