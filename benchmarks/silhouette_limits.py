#!/usr/bin/env python3
"""What limits the silhouette's overlap with the person masks of the developer stills (needs the extra).

For the 7 photos with a person mask (``silhouette_eval.py``'s), with the ``general`` model:

- threshold: IoU at thresholds 0.1-0.9 of the same probability map; and the threshold chosen
  on the other 6 photos (best mean IoU there), scored on the seventh (leave one photo out);
- resolution: the model sees a 256x256 picture. The same still segmented also on 2x2
  half-overlapping square tiles (side 0.6 of the larger side) plus the whole, keeping per pixel
  the highest probability; and, as an upper bound that needs to know where the people are, on
  one crop around the annotated mask's box (10 % margin) pasted back;
- the errors at 0.5: the share of the union missed (person not in the mask) and the share
  added (mask where no annotated person is).

There are no per-frame person masks for the clips, so temporal smoothing cannot be scored.

    .venv-hands/bin/python benchmarks/silhouette_limits.py
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any          # graph: mediapipe's SelfieSegmentation (mediapipe ships no type hints)

from _images import read_image
from silhouette_eval import APART, DATA, iou

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.silhouette import load_segmentation

THRESHOLDS = np.round(np.arange(0.1, 0.95, 0.1), 2)


def probability(graph: Any, bgr: np.ndarray) -> np.ndarray:
    """The model's person probability per pixel of ``bgr`` (HxW float)."""
    prob = graph.process(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)).segmentation_mask
    if prob is None:
        return np.zeros(bgr.shape[:2], np.float32)
    return np.asarray(cv2.resize(prob, (bgr.shape[1], bgr.shape[0]), interpolation=cv2.INTER_LINEAR))


def on_crops(graph: Any, bgr: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
    """Highest probability per pixel over the whole picture and each crop (x0, y0, x1, y1)."""
    out = probability(graph, bgr)
    for x0, y0, x1, y1 in boxes:
        crop = probability(graph, np.ascontiguousarray(bgr[y0:y1, x0:x1]))
        np.maximum(out[y0:y1, x0:x1], crop, out=out[y0:y1, x0:x1])
    return out


def tiles(h: int, w: int) -> list[tuple[int, int, int, int]]:
    side = int(0.6 * max(h, w))
    xs = sorted({0, max(w - side, 0)})
    ys = sorted({0, max(h - side, 0)})
    return [(x, y, min(x + side, w), min(y + side, h)) for y in ys for x in xs]


def truth_box(truth: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(truth)
    h, w = truth.shape
    mx, my = int(0.1 * (xs.max() - xs.min())), int(0.1 * (ys.max() - ys.min()))
    return max(xs.min() - mx, 0), max(ys.min() - my, 0), min(xs.max() + mx, w), min(ys.max() + my, h)


def main() -> int:
    if not (DATA / "masks").is_dir():
        print(f"pose stills not found at {DATA}", file=sys.stderr)
        return 2
    graph = load_segmentation().SelfieSegmentation(model_selection=0)
    names, sweeps, rows = [], [], []
    print("IoU: whole picture at 0.5 | tiles | crop on the annotated box (upper bound)   "
          "missed / added share of the union at 0.5")
    for mask_path in sorted((DATA / "masks").glob("*_person_mask.png")):
        name = mask_path.name.removesuffix("_person_mask.png")
        if name in APART:
            continue
        bgr = read_image(next((DATA / "stills").glob(name + ".*")))
        truth = read_image(mask_path, cv2.IMREAD_GRAYSCALE)
        if truth.shape != bgr.shape[:2]:
            truth = cv2.resize(truth, (bgr.shape[1], bgr.shape[0]), interpolation=cv2.INTER_NEAREST)
        prob = probability(graph, bgr)
        sweeps.append([iou(prob > t, truth) for t in THRESHOLDS])
        tiled = on_crops(graph, bgr, tiles(*bgr.shape[:2]))
        boxed = on_crops(graph, bgr, [truth_box(truth > 0)])
        mask, real = prob > 0.5, truth > 0
        union = max(int((mask | real).sum()), 1)
        missed, added = (real & ~mask).sum() / union, (mask & ~real).sum() / union
        rows.append((iou(mask, truth), iou(tiled > 0.5, truth), iou(boxed > 0.5, truth)))
        names.append(name)
        print(f"  {name:22s} {rows[-1][0]:.2f} | {rows[-1][1]:.2f} | {rows[-1][2]:.2f}   "
              f"{missed:.2f} / {added:.2f}")
    graph.close()
    r, s = np.array(rows), np.array(sweeps)
    print(f"mean: whole {r[:, 0].mean():.2f} | tiles {r[:, 1].mean():.2f} | crop on the annotated box "
          f"{r[:, 2].mean():.2f}")
    print("mean IoU per threshold: " + ", ".join(f"{t:.1f} {v:.2f}" for t, v in zip(THRESHOLDS, s.mean(axis=0))))
    held = []
    for k in range(len(names)):
        others = np.delete(s, k, axis=0).mean(axis=0)
        best = int(np.argmax(others))
        held.append(s[k, best])
        print(f"  {names[k]:22s} threshold chosen on the others {THRESHOLDS[best]:.1f}: {s[k, best]:.2f} "
              f"(at 0.5: {s[k, 4]:.2f})")
    print(f"leave one photo out: mean IoU {np.mean(held):.2f} (0.5 everywhere: {s[:, 4].mean():.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
