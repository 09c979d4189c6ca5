"""Scoring blobs with ids against per-pixel ground truth, and the OpenCV baseline blob tracker.

- ``truth_objects(truths, roi, min_area_px)``: CDnet masks -> per frame ``{id: box}``. The
  objects are the 8-connected components of the moving label (255) inside the region of
  interest, at least ``min_area_px`` pixels; a component takes the id of the previous frame's
  component it overlaps most (pixels), the larger overlap winning when two claim the same
  one; any other component is a new object.
- ``frame_matches(truth, found, min_iou)``: one-to-one matching of boxes by IoU (SciPy's
  ``linear_sum_assignment``), pairs under ``min_iou`` dropped.
- ``ContourBaseline``: OpenCV MOG2 (shadows as background) + a 3x3 opening + ``findContours``
  (outer contours of at least ``min_area_px``) + greedy IoU linking to the previous frame's
  boxes (IoU > ``link_iou`` keeps the id). What a user of OpenCV writes in twenty lines.

Used by ``benchmarks/blob_eval.py`` (which adds py-motmetrics' MOTA and ID switches) and
``tests/vision/test_blob_tracker.py``. Cost: a labelling and a bincount per frame.
"""
from __future__ import annotations

from typing import Any, Sequence

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from sensekit.events import Box
from sensekit.vision.blobs import box_iou

__all__ = ["truth_objects", "frame_matches", "ContourBaseline", "in_roi"]

_K3 = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))


def truth_objects(truths: Sequence[np.ndarray], roi: np.ndarray, *, min_area_px: int = 150) -> list[dict[int, Box]]:
    """Per frame, the ground-truth objects ``{id: (x, y, w, h)}`` (see the module docstring)."""
    out: list[dict[int, Box]] = []
    prev_labels: np.ndarray | None = None
    prev_ids: dict[int, int] = {}
    next_id = 1
    for truth in truths:
        moving = ((truth == 255) & roi).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(moving, connectivity=8, ltype=cv2.CV_32S)
        keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_area_px]
        ids: dict[int, int] = {}
        if prev_labels is not None and keep:
            both = (labels > 0) & (prev_labels > 0)
            pairs = labels[both].astype(np.int64) * 65536 + prev_labels[both]
            uniq, cnt = np.unique(pairs, return_counts=True)
            claims: dict[int, tuple[int, int]] = {}          # previous label -> (overlap, label)
            best_prev: dict[int, tuple[int, int]] = {}        # label -> (overlap, previous label)
            for code, c in zip(uniq.tolist(), cnt.tolist()):
                lab, plab = divmod(code, 65536)
                if plab in prev_ids and c > best_prev.get(lab, (0, 0))[0]:
                    best_prev[lab] = (c, plab)
            for lab, (c, plab) in best_prev.items():
                if lab in keep and c > claims.get(plab, (0, 0))[0]:
                    claims[plab] = (c, lab)
            for plab, (_, lab) in claims.items():
                ids[lab] = prev_ids[plab]
        frame: dict[int, Box] = {}
        for lab in keep:
            if lab not in ids:
                ids[lab] = next_id
                next_id += 1
            x, y, w, h = (int(v) for v in stats[lab, :4])
            frame[ids[lab]] = (x, y, w, h)
        out.append(frame)
        prev_labels, prev_ids = labels, {lab: ids[lab] for lab in keep}
    return out


def in_roi(box: Box, roi: np.ndarray) -> bool:
    """Whether the centre of ``box`` lies in the region of interest."""
    x, y, w, h = box
    cx, cy = min(roi.shape[1] - 1, x + w // 2), min(roi.shape[0] - 1, y + h // 2)
    return bool(roi[cy, cx])


def frame_matches(truth: Sequence[Box], found: Sequence[Box], *, min_iou: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one (truth index, found index) pairs with IoU >= ``min_iou``, best total IoU."""
    if not truth or not found:
        return []
    iou = np.array([[box_iou(a, b) for b in found] for a in truth])
    rows, cols = linear_sum_assignment(-iou)
    return [(int(i), int(j)) for i, j in zip(rows, cols) if iou[i, j] >= min_iou]


class ContourBaseline:
    """MOG2 + 3x3 opening + ``findContours`` + greedy IoU linking; ``update(frame)`` -> ``{id: box}``."""

    def __init__(self, *, min_area_px: int = 150, link_iou: float = 0.3, **mog2: Any) -> None:
        self.sub = cv2.createBackgroundSubtractorMOG2(**mog2)
        self.min_area_px = min_area_px
        self.link_iou = link_iou
        self.prev: dict[int, Box] = {}
        self.next_id = 1

    def mask(self, frame: np.ndarray) -> np.ndarray:
        fg = cv2.compare(self.sub.apply(frame), 255, cv2.CMP_EQ)  # type: ignore[call-overload]  # 127 = shadow
        return cv2.morphologyEx(fg, cv2.MORPH_OPEN, _K3)

    def boxes(self, mask: np.ndarray) -> list[Box]:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        out = []
        for c in contours:
            if cv2.contourArea(c) >= self.min_area_px:
                x, y, w, h = cv2.boundingRect(c)
                out.append((int(x), int(y), int(w), int(h)))
        return out

    def update(self, frame: np.ndarray) -> dict[int, Box]:
        return self.link(self.boxes(self.mask(frame)))

    def link(self, boxes: list[Box]) -> dict[int, Box]:
        """Ids for this frame's boxes: greedy by IoU with the last frame's, new ids for the rest."""
        pairs = sorted(((box_iou(pb, b), pid, j) for pid, pb in self.prev.items() for j, b in enumerate(boxes)),
                       reverse=True)
        out: dict[int, Box] = {}
        used: set[int] = set()
        for iou, pid, j in pairs:
            if iou <= self.link_iou:
                break
            if pid in out or j in used:
                continue
            out[pid] = boxes[j]
            used.add(j)
        for j, b in enumerate(boxes):
            if j not in used:
                out[self.next_id] = b
                self.next_id += 1
        self.prev = out
        return out
