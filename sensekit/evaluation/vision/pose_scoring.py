"""Scoring poses against COCO-style keypoint annotations (for benchmarks/pose_eval.py and tests).

- ``COCO_FROM_MEDIAPIPE``: which of MediaPipe's 33 points is each of COCO's 17 (nose, eyes,
  ears, shoulders, elbows, wrists, hips, knees, ankles; left and right are the person's in
  both);
- ``pck(points, keypoints, bbox)``: the fraction of the labelled keypoints (v > 0) that lie
  within 0.2 x the larger side of the annotated box (mmpose's PCK@0.2 convention);
- ``score_people(predicted, persons)``: each annotated person's best PCK, each prediction
  used for one person at most (greedy, best pair first); a person nobody matched scores 0.

A person counts as *found* when their PCK is at least ``FOUND_PCK`` (0.5).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["COCO_FROM_MEDIAPIPE", "FOUND_PCK", "pck", "score_people"]

COCO_FROM_MEDIAPIPE = (0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28)
FOUND_PCK = 0.5


def pck(points: np.ndarray, keypoints: Sequence[float], bbox: Sequence[float], *, alpha: float = 0.2) -> float:
    """PCK@alpha of one MediaPipe pose ``(33, >=2)`` pixels against 17 COCO ``[x, y, v]`` keypoints."""
    kp = np.asarray(keypoints, dtype=np.float64).reshape(17, 3)
    labelled = kp[:, 2] > 0
    if not labelled.any():
        return 0.0
    err = np.linalg.norm(np.asarray(points, dtype=np.float64)[list(COCO_FROM_MEDIAPIPE), :2] - kp[:, :2], axis=1)
    return float(np.mean(err[labelled] < alpha * max(float(bbox[2]), float(bbox[3]))))


def score_people(predicted: Sequence[np.ndarray], persons: Sequence[dict[str, Any]]) -> list[float]:
    """PCK of each annotated person (``keypoints``, ``bbox``), predictions matched one to one."""
    table = [(pck(p, person["keypoints"], person["bbox"]), i, j)
             for i, person in enumerate(persons) for j, p in enumerate(predicted)]
    table.sort(key=lambda x: -x[0])
    out = [0.0] * len(persons)
    done_i: set[int] = set()
    done_j: set[int] = set()
    for score, i, j in table:
        if i not in done_i and j not in done_j:
            out[i] = score
            done_i.add(i)
            done_j.add(j)
    return out
