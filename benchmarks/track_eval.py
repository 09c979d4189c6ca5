#!/usr/bin/env python3
"""Tracking started the way a user starts it: from clicks, on real clips. Prints one table.

Every clip in ``--clips`` (default ``../shared/data/video/tracking``; any folder of ``NAME.mp4``
with ``NAME_gt.csv`` = ``frame,x,y,w,h`` works, so a user can run it on their own footage):
sensekit's ``ColorTracker`` picked by 5 clicks (the true box's centre and 25 % of its width or
height left, right, up, down) on each of 3 start frames (0, 1/3, 2/3 of the clip), ``--frames``
frames from each; beside it, in the same pass, the same tracker, OpenCV's CamShift and OpenCV's
MIL tracker started from the true box. Columns: mean success (IoU > 0.5) with the median
centre error in px in brackets; the clicks' success over the same tracker's from the true box;
the share of clicks whose first box is within 25 % of the true width and height; and the time
a click's segmentation takes (``segment_click``; mean and max over the clicks, ms).
(``sensekit.vision.evaluate``; ``tests/vision/test_track_eval.py``.)

    .venv/bin/python benchmarks/track_eval.py [--clips DIR] [--only coke,tiger1] [--frames 100]
                                              [--starts 3] [--no-mil]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _reference import SHARED_DATA

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.evaluate import BASELINES, click_points, clip_names, evaluate_clip, format_table, \
    frames_of, load_clip
from sensekit.vision.segment import segment_click


def click_times_ms(folder: Path, names: list[str], starts: int) -> list[float]:
    """Wall time of ``segment_click`` for the 5 clicks on each start frame, frames scaled to 640x480."""
    import cv2

    out = []
    for name in names:
        clip = load_clip(folder, name)
        n = len(clip.truth)
        wanted = {k * n // starts for k in range(starts)}
        for k, frame in enumerate(frames_of(clip)):
            if k not in wanted:
                continue
            sx, sy = 640 / frame.shape[1], 480 / frame.shape[0]
            big = cv2.resize(frame, (640, 480))
            x, y, w, h = clip.truth[k]
            for cx, cy in click_points((x * sx, y * sy, w * sx, h * sy)).values():
                t0 = time.perf_counter()
                segment_click(big, cx, cy)
                out.append(1000 * (time.perf_counter() - t0))
            if k >= max(wanted):
                break
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking",
                    help="folder of NAME.mp4 + NAME_gt.csv (frame,x,y,w,h)")
    ap.add_argument("--only", help="comma-separated clip names (default: every clip in the folder)")
    ap.add_argument("--frames", type=int, default=100, help="frames per start (default 100)")
    ap.add_argument("--starts", type=int, default=3, help="start frames spread over each clip (default 3)")
    ap.add_argument("--no-mil", action="store_true", help="skip OpenCV's MIL tracker (the slow baseline)")
    args = ap.parse_args(argv)
    if not args.clips.is_dir():
        print(f"clip folder not found: {args.clips}", file=sys.stderr)
        return 2
    names = args.only.split(",") if args.only else clip_names(args.clips)
    baselines = [b for b in BASELINES if not (args.no_mil and b.startswith("MIL"))]
    t0 = time.perf_counter()
    results = {}
    for name in names:
        results[name] = evaluate_clip(load_clip(args.clips, name), starts=args.starts, frames=args.frames,
                                      baselines=baselines)
        print(f"  {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    print(format_table(results))
    ms = click_times_ms(args.clips, names, args.starts)
    print(f"\nsegment_click at 640x480: mean {np.mean(ms):.0f} ms, max {np.max(ms):.0f} ms over {len(ms)} clicks"
          f" ({time.perf_counter() - t0:.0f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
