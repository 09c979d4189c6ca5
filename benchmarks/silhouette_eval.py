#!/usr/bin/env python3
"""The silhouette stage on the developer stills with person masks, and its cost (needs the extra).

Prints, for ../shared/data/video/pose:

- per still with a mask (``masks/NAME_person_mask.png``: the union of the annotated people),
  the intersection over union of the stage's mask with it, for the ``general`` (default) and
  the ``landscape`` model at the default threshold 0.5 (chosen before this was run, not fitted);
  the mean over the 7 photos of people (COCO and OCHuman) and, apart, the DeepLab-made mask of
  ``tflitetest_segmentation_input`` (not a human annotation);
- cost on a one-person clip (ntu_drink_water resized to 640x480, ``--frames`` frames): the
  stage's ``process`` against a bare ``SelfieSegmentation.process`` on the same frames,
  alternated frame by frame, ms per frame and the ratio of the means.

    .venv-hands/bin/python benchmarks/silhouette_eval.py [--frames 200]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from _images import read_image
from _reference import SHARED_DATA

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import VideoFrame
from sensekit.vision.silhouette import SilhouetteStage, load_segmentation

DATA = SHARED_DATA / "video" / "pose"
APART = ("tflitetest_segmentation_input",)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a > 0, b > 0
    union = int((a | b).sum())
    return float((a & b).sum()) / union if union else 1.0


def stills() -> None:
    stages = {m: SilhouetteStage(model=m) for m in ("general", "landscape")}
    rows: dict[str, list[tuple[float, ...]]] = {"dev": [], "apart": []}
    print("IoU with the person mask: general | landscape   (share of the picture that is person: truth)")
    for mask_path in sorted((DATA / "masks").glob("*_person_mask.png")):
        name = mask_path.name.removesuffix("_person_mask.png")
        image = next(p for p in (DATA / "stills").glob(name + ".*"))
        bgr = read_image(image)
        truth = read_image(mask_path, cv2.IMREAD_GRAYSCALE)
        if truth.shape != bgr.shape[:2]:
            truth = cv2.resize(truth, (bgr.shape[1], bgr.shape[0]), interpolation=cv2.INTER_NEAREST)
        scores = tuple(iou(stage.segment(bgr), truth) for stage in stages.values())
        rows["apart" if name in APART else "dev"].append(scores)
        print(f"  {name:34s} {scores[0]:.2f} | {scores[1]:.2f}   ({(truth > 0).mean():.2f})"
              + ("   (apart: DeepLab mask)" if name in APART else ""))
    dev = np.array(rows["dev"])
    print(f"mean IoU over {len(dev)} photos: general {dev[:, 0].mean():.2f} | landscape {dev[:, 1].mean():.2f}")


def cost(frames: int) -> None:
    cap = cv2.VideoCapture(str(DATA / "ntu_drink_water.mp4"))
    clip: list[np.ndarray] = []
    while True:
        ok, image = cap.read()
        if not ok:
            break
        clip.append(cv2.resize(image, (640, 480)))
    cap.release()
    clip = (clip + clip[::-1]) * (frames // (2 * len(clip)) + 1)
    stage = SilhouetteStage()
    bare = load_segmentation().SelfieSegmentation(model_selection=0)
    t_stage: list[float] = []
    t_bare: list[float] = []
    for i, image in enumerate(clip[:frames]):
        for which in ((0, 1) if i % 2 == 0 else (1, 0)):
            t0 = time.perf_counter()
            if which == 0:
                stage.process(VideoFrame(i, i / 30.0, image))
            else:
                bare.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
            (t_stage if which == 0 else t_bare).append(time.perf_counter() - t0)
    s, b = 1000 * statistics.mean(t_stage[5:]), 1000 * statistics.mean(t_bare[5:])
    print(f"cost at 640x480 over {frames} frames: stage {s:.1f} ms, bare {b:.1f} ms per frame, ratio {s / b:.2f} "
          f"(medians {1000 * statistics.median(t_stage[5:]):.1f} and {1000 * statistics.median(t_bare[5:]):.1f} ms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200)
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no pose data at {DATA}")
    stills()
    cost(args.frames)


if __name__ == "__main__":
    main()
