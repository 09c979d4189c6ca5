"""More real objects with exact extents for ``train_extent.py``: click cases beyond the tracking clips.

The five tracking clips give 225 click cases. These sources add other objects, scenes and
cameras; they are **always in training** (no tracking clip is ever held out against them):

- **highway** (``video/motion/cdnet_highway_a``, CDnet): cars on a road, 320x240. Each car is a
  connected component of the per-pixel ground truth (label 255), every ``every``-th frame from
  the 7th on, so each case has the 6 frames before it (the motion cues). Cars touching the
  frame's edge (cut off) and blobs under ``MIN_SIDE_PX`` or ``MIN_AREA_PX`` are left out.
- **people** (``video/pose``, COCO / OCHuman / TF-Lite stills): each annotated person's box
  whose sides are at least ``MIN_SIDE_PX`` and 8 % of the image's short side and which no
  other person's box overlaps with IoU > 0.3 (which of two overlapping people a click means is
  not known). Stills: no history.
- **hands** (``video/hands/annotations``, OneHand10K / FreiHAND stills): the hand box of the
  COCO-style annotation. Stills.

Each object gives ``evaluate.click_points`` (its centre and 25 % off it); on the stills with
a person mask a click off the mask (between the legs) is dropped. ``cases(data, scales)``
yields ``(source, scale, frame, history, truth)`` with each view at each scale
(``track_eval.scale_view``: a crop around the object enlarged, or the frame shrunk and
padded), history through the same transform.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from track_eval import scale_box, scale_view

from sensekit.evaluation.vision.evaluate import click_points, iou
from sensekit.vision.extent import HISTORY_FRAMES

SOURCES = ("highway", "people", "hands")
MIN_SIDE_PX = 10
MIN_AREA_PX = 120
Case = tuple[str, float, np.ndarray, list[np.ndarray], np.ndarray, list[tuple[float, float]]]


def _views(source: str, frame: np.ndarray, history: list[np.ndarray], truth: np.ndarray,
           clicks: list[tuple[float, float]], scales: list[float]) -> Iterator[Case]:
    centre = (float(truth[0] + truth[2] / 2), float(truth[1] + truth[3] / 2))
    for factor in scales:
        img, M = scale_view(frame, factor, centre)
        hist = [scale_view(h, factor, centre)[0] for h in history]
        box = scale_box(truth[None].astype(np.float64), M)[0]
        pts = [(x * M[0, 0] + M[0, 2], y * M[1, 1] + M[1, 2]) for x, y in clicks]
        yield source, factor, img, hist, box, pts


def highway(data: Path, scales: list[float], every: int = 3) -> Iterator[Case]:
    """Cars of the CDnet highway clip (see the module docstring)."""
    from sensekit.evaluation.vision.motion_scoring import load_cdnet

    clip = load_cdnet(Path(data) / "video" / "motion" / "cdnet_highway_a")
    back = max(HISTORY_FRAMES)
    H, W = clip.frames[0].shape[:2]
    for k in range(back, len(clip.frames), every):
        _n, _lab, stats, _c = cv2.connectedComponentsWithStats((clip.truths[k] == 255).astype(np.uint8))
        for x, y, w, h, area in stats[1:]:
            if area < MIN_AREA_PX or min(w, h) < MIN_SIDE_PX or x == 0 or y == 0 or x + w >= W or y + h >= H:
                continue
            truth = np.array([x, y, w, h], np.float64)
            yield from _views("highway", clip.frames[k], clip.frames[k - back:k], truth,
                              list(click_points(truth).values()), scales)


def _on_mask(mask: np.ndarray | None, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    if mask is None:
        return pts
    h, w = mask.shape
    return [(x, y) for x, y in pts if mask[min(h - 1, int(y)), min(w - 1, int(x))] > 0]


def people(data: Path, scales: list[float]) -> Iterator[Case]:
    """Annotated people on the pose stills (see the module docstring)."""
    folder = Path(data) / "video" / "pose"
    for ann in sorted((folder / "annotations").glob("*.json")):
        meta = json.loads(ann.read_text())
        frame = cv2.imread(str(folder / meta["image"])) if "image" in meta else None
        if frame is None:
            frame = next((cv2.imread(str(p)) for p in sorted((folder / "stills").glob(ann.stem + ".*"))), None)
        if frame is None:
            continue
        mask_path = folder / "masks" / f"{ann.stem}_person_mask.png"
        mask = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE) if mask_path.is_file() else None
        boxes = [np.array(p["bbox"], np.float64) for p in meta["persons"]]
        short = min(frame.shape[:2])
        for i, b in enumerate(boxes):
            if min(b[2], b[3]) < max(MIN_SIDE_PX, 0.08 * short):
                continue
            if any(iou(b, o) > 0.3 for j, o in enumerate(boxes) if j != i):
                continue
            pts = _on_mask(mask, list(click_points(b).values()))
            if pts:
                yield from _views("people", frame, [], b, pts, scales)


def hands(data: Path, scales: list[float]) -> Iterator[Case]:
    """The annotated hand stills (see the module docstring)."""
    folder = Path(data) / "video" / "hands"
    for ann in sorted((folder / "annotations").glob("*.json")):
        meta = json.loads(ann.read_text())
        frame = cv2.imread(str(folder / meta.get("staged_file", "")))
        if frame is None:
            continue
        for a in meta.get("annotations", []):
            b = np.array(a["bbox"], np.float64)
            if min(b[2], b[3]) >= MIN_SIDE_PX:
                yield from _views("hands", frame, [], b, list(click_points(b).values()), scales)


def cases(data: Path, scales: list[float], sources: tuple[str, ...] = SOURCES) -> Iterator[Case]:
    """Every case of the named ``sources`` at every scale."""
    makers = {"highway": highway, "people": people, "hands": hands}
    for name in sources:
        yield from makers[name](data, scales)
