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
   JPEG/H.264 compression (``tests/vision/ball_scenes.py``), clicked at their centre; the
   fraction whose box is within 20 % of the true width and height, and the median IoU. The
   backgrounds come in two disjoint groups: TUNE (constants were chosen there) and CHECK.
   Also the ball of the bundled demo recording, clicked at its centre on 10 frames.
3. With ``--starts 0,40,...``: the same clicks and baselines started on each of those frames
   (``--frames`` long), averaged - one start frame is one sample, and a tracker's fate on it
   can turn on a single frame, so this is the steadier comparison of two settings.

    .venv/bin/python benchmarks/track_eval.py [--data ../shared/data] [--per-background 2]
                                              [--starts 0,40,80,120,160,200 --frames 100]
                                              [--scene-weight W]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial
from pathlib import Path

from _reference import SHARED_DATA

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.evaluate import CLIPS, evaluate, evaluate_clip, format_table, iou, load_clip
from sensekit.vision.segment import segment_click


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
                    default=SHARED_DATA)
    ap.add_argument("--per-background", type=int, default=2, help="balls per diameter and background")
    ap.add_argument("--starts", help="also start on these frames (comma-separated) and average")
    ap.add_argument("--frames", type=int, default=100, help="frames per start with --starts (default 100)")
    ap.add_argument("--scene-weight", type=float, default=None,
                    help="ColorTracker scene_weight to compare (default: the tracker's own)")
    args = ap.parse_args(argv)
    kw = {} if args.scene_weight is None else {"scene_weight": args.scene_weight}
    make = partial(ColorTracker, **kw)
    if not (args.data / "labels.csv").is_file():
        print(f"shared data not found at {args.data}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    results = evaluate(args.data / "video" / "tracking", make=make)
    print(format_table(results))
    print(f"({time.perf_counter() - t0:.0f} s)\n")

    from tests.vision.ball_scenes import CHECK, TUNE, background_frames, ball_scenes

    print("size from a click (centre of a plain ball)   within 20 %   median IoU   n")
    for name, group, seed in (("TUNE backgrounds", TUNE, 1), ("CHECK backgrounds", CHECK, 2)):
        scenes = ball_scenes(background_frames(args.data, group), seed=seed,
                             per_background=args.per_background)
        frac, med, n = size_from_click(scenes)
        print(f"  {name:40s} {frac:8.3f}      {med:8.3f}   {n}")
    frac, med, n = demo_ball()
    print(f"  {'demo recording ball (28 px)':40s} {frac:8.3f}      {med:8.3f}   {n}")
    if args.starts:
        starts = [int(v) for v in args.starts.split(",")]
        print(f"\nstarted on frames {starts}, {args.frames} frames each: mean success / median of the "
              "median centre errors")
        for name in CLIPS:
            clip = load_clip(args.data / "video" / "tracking", name)
            runs = [evaluate_clip(clip, start_frame=s, frames=args.frames, make=make) for s in starts]
            for label, keys in (("5 clicks", [k for k in runs[0] if k.startswith("click ")]),
                                ("sensekit, true box", ["sensekit (true box)"]),
                                ("CamShift, true box", ["CamShift (true box)"])):
                got = [r[k] for r in runs for k in keys]
                print(f"  {name:7s} {label:20s} {np.mean([g.success for g in got]):6.3f} / "
                      f"{np.median([g.centre_error_px for g in got]):5.1f} px")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
