#!/usr/bin/env python3
"""The split of side-by-side people (``blobs.split_aspect``, ``blobs.split_dip``): cars and people side by side.

For each pair of values, with the background model and every other tracker setting at its
default:

- **CDnet highway** (``benchmarks/blob_eval.py``'s ground truth and scoring): detection F1 and
  MOTA on the choice half (frames 470-619) and on the held-back half (620-769). Cars must not
  be split: the split must leave these where they are without it.
- **PETS 2009 people clip** (no ground truth): on how many of frames 130-350 the couple
  walking side by side shows two ids (``docs/blobs_people.py``'s ``couple_ids``: the blobs
  with ids inside the couple's region), and how many regions were split on frames 120-399.

The defaults were chosen from this table on the choice half and the people clip (docs/blobs.md).

    .venv/bin/python benchmarks/blob_split_eval.py [--data ../shared/data]     # ~1 min
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from _cdnet import FIRST, HALF, SECOND, open_highway
from _reference import SHARED_DATA

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from blob_eval import score, sensekit_masks, track

from sensekit.evaluation.vision.blob_scoring import truth_objects
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.motion import MotionDetector

GRID = [(0.0, 0.0)] + [(a, d) for a in (0.6, 0.65, 0.7) for d in (0.04, 0.06, 0.08, 0.1)]


def _blobs_people() -> Any:
    spec = importlib.util.spec_from_file_location("blobs_people", REPO / "docs" / "blobs_people.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def people_masks(path: Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        print(f"cannot open {path} (use --data)", file=sys.stderr)
        raise SystemExit(2)
    md = MotionDetector(method="background")
    out: list[np.ndarray] = []
    while True:
        ok, image = cap.read()
        if not ok:
            return out
        out.append(md.update(image).mask.copy())


def couple(bp: Any, masks: list[np.ndarray], fps: float, **split: Any) -> tuple[int, int]:
    """Frames on which the couple shows two ids; regions split off others on frames 120-399."""
    bt = BlobTracker(**split)
    two = parts = 0
    for i, m in enumerate(masks):
        bt.update(m, i / fps)
        if i in bp.COUPLE_FRAMES:
            two += bp.couple_ids(bt, i) >= 2
        if i >= 120:
            parts += len(bt.regions) - len({r.label for r in bt.regions})
    return two, parts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    args = ap.parse_args(argv)
    clip = open_highway(args.data)
    bp = _blobs_people()
    truth = truth_objects(clip.truths, clip.roi)
    highway = sensekit_masks(clip)
    pets = people_masks(args.data / bp.CLIP)
    defaults = (BlobTracker().split_aspect, BlobTracker().split_dip)
    print(f"defaults: split_aspect {defaults[0]}, split_dip {defaults[1]}\n")
    print("| split_aspect | split_dip | highway F1, choice / held-back | MOTA, choice / held-back | "
          f"PETS: couple with two ids (of {len(bp.COUPLE_FRAMES)} frames) | PETS: parts split off |")
    print("|---|---|---|---|---|---|")
    for aspect, dip in GRID:
        split = {"split_aspect": aspect, "split_dip": dip}
        first = score(truth, track(highway[:HALF], **split), clip.roi, FIRST)
        second = score(truth, track(highway, **split), clip.roi, SECOND)
        two, parts = couple(bp, pets, 10.0, **split)
        label = "off" if aspect == 0 else f"{aspect:g}"
        mark = "**" if (aspect, dip) == defaults else ""
        print(f"| {mark}{label}{mark} | {dip:g} | {first['F1']:.3f} / {second['F1']:.3f} | "
              f"{first['MOTA']:.3f} / {second['MOTA']:.3f} | {two} | {parts} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
