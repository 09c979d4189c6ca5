#!/usr/bin/env python3
"""Tracking started the way a user starts it: from clicks. Prints two tables.

1. **Real clips** (``../shared/data/video/tracking``: coke, tiger1): sensekit's ``ColorTracker``
   picked by a click on the first frame at the true box's centre and at 4 clicks moved by 25 %
   of the box's width (left, right) or height (up, down); beside it, in the same run, OpenCV's
   CamShift and sensekit started from the true box, and the book's method from the centre
   click. Success = fraction of frames with IoU > 0.5; centre error = median in pixels
   (``sensekit.vision.evaluate``).
2. **Size from a click** (``sensekit.vision.segment.segment_click``): plain shaded balls of
   14-96 px, 8 colours, pasted on frames of the developer videos with sensor noise and
   JPEG/H.264 compression (``tests/vision/scenes.py``), clicked at their centre; the
   fraction whose box is within 20 % of the true width and height, and the median IoU. The
   backgrounds come in two disjoint groups: TUNE (constants were chosen there) and CHECK.
   Also the ball of the bundled demo recording, clicked at its centre on 10 frames.

    .venv/bin/python benchmarks/track_eval.py [--data ../shared/data] [--per-background 2]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.evaluate import evaluate, format_table, iou  # noqa: E402
from sensekit.vision.segment import segment_click  # noqa: E402


def size_from_click(scenes: list) -> tuple[float, float, int]:
    """(fraction within 20 % in width and height, median IoU, count) of centre clicks."""
    ok, ious = [], []
    for s in scenes:
        box = segment_click(s.frame, *s.centre).box
        ok.append(abs(box[2] / s.box[2] - 1) <= 0.2 and abs(box[3] / s.box[3] - 1) <= 0.2)
        ious.append(iou(box, s.box))
    return float(np.mean(ok)), float(np.median(ious)), len(scenes)


def demo_ball(frames: int = 10) -> tuple[float, float, int]:
    """Centre clicks on the demo recording's ball (its truth file), every 30th frame."""
    from sensekit.capture.spec import open_source
    from sensekit.capture.base import VideoFrame

    truth = json.loads((REPO / "recordings" / "demo.truth.json").read_text())
    balls = {f["index"]: f["ball"] for f in truth["frames"]}
    ok, ious, n = [], [], 0
    with open_source(str(REPO / "recordings" / "demo.skrec")) as source:
        while n < frames:
            item = source.read()
            if item is None:
                break
            if not isinstance(item, VideoFrame) or item.index % 30:
                continue
            b = balls[item.index]
            r = b["r"]
            true = (b["cx"] - r, b["cy"] - r, 2 * r, 2 * r)
            box = segment_click(item.image, b["cx"], b["cy"]).box
            ok.append(abs(box[2] / true[2] - 1) <= 0.2 and abs(box[3] / true[3] - 1) <= 0.2)
            ious.append(iou(box, true))
            n += 1
    return float(np.mean(ok)), float(np.median(ious)), n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path,
                    default=Path(os.environ.get("SENSEKIT_SHARED_DATA", REPO.parent / "shared" / "data")))
    ap.add_argument("--per-background", type=int, default=2, help="balls per diameter and background")
    args = ap.parse_args(argv)
    if not (args.data / "labels.csv").is_file():
        print(f"shared data not found at {args.data}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    results = evaluate(args.data / "video" / "tracking")
    print(format_table(results))
    print(f"({time.perf_counter() - t0:.0f} s)\n")

    from tests.vision.scenes import CHECK, TUNE, background_frames, ball_scenes

    print("size from a click (centre of a plain ball)   within 20 %   median IoU   n")
    for name, group, seed in (("TUNE backgrounds", TUNE, 1), ("CHECK backgrounds", CHECK, 2)):
        scenes = ball_scenes(background_frames(args.data, group), seed=seed,
                             per_background=args.per_background)
        frac, med, n = size_from_click(scenes)
        print(f"  {name:40s} {frac:8.3f}      {med:8.3f}   {n}")
    frac, med, n = demo_ball()
    print(f"  {'demo recording ball (28 px)':40s} {frac:8.3f}      {med:8.3f}   {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
