#!/usr/bin/env python3
"""``background.samples``: what fewer samples per pixel cost in quality and save in time.

Fewer samples mean fewer match passes (the match is ~60 % of the background model), so the
count is the first knob for issue 24's speed bar. Each value (``--samples``, default 20 16)
is run on:

1. **CDnet highway halves** (frames 470-619 to choose on, 620-769 held back, as
   ``blob_eval.py`` and ``motion_eval.py``): pixel F-measure, and blob F1, MOTA and ID
   switches of the default ``BlobTracker`` on the model's mask.
2. **Swaying and rippling backgrounds** (real frames warped, ``tests/vision/scenes.py``; no
   real clip with moving background and ground truth is at hand): over ``--seeds`` model
   seeds, the background-only frames reported as motion (the 0.2 % rule of
   ``MotionDetector``, out of 60), the largest false foreground in them, and the frames where
   the box of the mask matches the car's (IoU > 0.5, out of 60).
3. **Cost** (``--cost``): median wall ms per frame of the model alone at 640x480, every value
   interleaved frame by frame in the same run, with MOG2 beside it.

    .venv/bin/python benchmarks/background_samples.py [--samples 20 16] [--seeds 6] [--cost]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from _cdnet import FIRST, SECOND, open_highway, resized
from _reference import SHARED_DATA

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import blob_eval  # benchmarks/ is on the path when run as a script

from sensekit.vision.background import BackgroundModel
from sensekit.evaluation.vision.blob_scoring import truth_objects
from sensekit.vision.blobs import box_iou
from sensekit.vision.motion import MotionDetector
from sensekit.evaluation.vision.motion_scoring import f_measure, score_run, subtractor


def report_highway(data: Path, values: list[int]) -> None:
    clip = open_highway(data)
    truth = truth_objects(clip.truths, clip.roi)
    print("CDnet highway: choice half 470-619 | held-back half 620-769")
    print("| samples | pixel F choice | blob F1 choice | MOTA choice | pixel F held-back | "
          "blob F1 held-back | MOTA held-back | ID switches held-back |")
    print("|---|---|---|---|---|---|---|---|")
    for n in values:
        c1, c2 = score_run(lambda: subtractor("background", samples=n), clip, ranges=[FIRST, SECOND])
        tracks = blob_eval.track(blob_eval.sensekit_masks(clip, samples=n))
        s1 = blob_eval.score(truth, tracks, clip.roi, FIRST)
        s2 = blob_eval.score(truth, tracks, clip.roi, SECOND)
        print(f"| {n} | {f_measure(c1):.3f} | {s1['F1']:.3f} | {s1['MOTA']:.3f} | {f_measure(c2):.3f} | "
              f"{s2['F1']:.3f} | {s2['MOTA']:.3f} | {s2['IDSW']} |", flush=True)
    print()


def report_scenes(data: Path, values: list[int], seeds: int) -> None:
    from tests.vision import scenes as sc

    built = sc.scenes(data)
    names = [k for k in ("foliage", "water") if k in built]
    print(f"Scenes (tests/vision/scenes.py), seeds 0-{seeds - 1}: false frames / largest false "
          "foreground px / car boxes found, per seed")
    print("| samples | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    frames = {k: [built[k].frame(i) for i in range(sc.N_FRAMES)] for k in names}
    for n in values:
        cells = []
        for k in names:
            per_seed = []
            for seed in range(seeds):
                md = MotionDetector(method="background", background=BackgroundModel(samples=n, seed=seed))
                false, peak, hits = 0, 0, 0
                for i, (frame, truth) in enumerate(frames[k]):
                    r = md.update(frame)
                    if i in sc.QUIET[k]:
                        false += r.moving
                        peak = max(peak, int(np.count_nonzero(r.mask)))
                    elif i in sc.OBJECT:
                        hits += box_iou(sc.box_of(r.mask > 0), sc.box_of(truth > 0)) > 0.5
                per_seed.append(f"{false}/{peak}/{hits}")
            cells.append(", ".join(per_seed))
        print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
    print()


def report_cost(data: Path, values: list[int], rounds: int) -> None:
    frames = resized(open_highway(data), 640, 480)
    models = {n: BackgroundModel(samples=n) for n in values}
    mog2 = cv2.createBackgroundSubtractorMOG2()
    times: dict[str, list[float]] = {k: [] for k in [*map(str, values), "mog2"]}
    load0 = os.getloadavg()[0]
    for i in range(rounds + 30):
        f = frames[i % len(frames)]
        for n, m in models.items():
            t0 = time.perf_counter()
            m.update(f)
            times[str(n)].append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        mog2.apply(f)
        times["mog2"].append((time.perf_counter() - t0) * 1e3)
    med = {k: statistics.median(v[30:]) for k, v in times.items()}
    print(f"Cost of the model alone at 640x480, median wall ms over {rounds} frames, interleaved "
          f"(load average {load0:.1f} before, {os.getloadavg()[0]:.1f} after)")
    print("| " + " | ".join(f"samples {n}" for n in values) + " | MOG2 |")
    print("|---" * (len(values) + 1) + "|")
    print("| " + " | ".join(f"{med[str(n)]:.2f}" for n in values) + f" | {med['mog2']:.2f} |\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    ap.add_argument("--samples", type=int, nargs="+", default=[20, 16], help="values to compare")
    ap.add_argument("--seeds", type=int, default=6, help="model seeds on the scenes")
    ap.add_argument("--no-highway", action="store_true", help="skip the CDnet halves")
    ap.add_argument("--cost", action="store_true", help="also time the model at 640x480")
    ap.add_argument("--rounds", type=int, default=200, help="timed frames (default %(default)s)")
    args = ap.parse_args(argv)
    if not args.no_highway:
        report_highway(args.data, args.samples)
    report_scenes(args.data, args.samples, args.seeds)
    if args.cost:
        report_cost(args.data, args.samples, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
