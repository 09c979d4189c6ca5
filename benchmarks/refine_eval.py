#!/usr/bin/env python3
"""Clicks without the frames before them (a still picture, a camera's first frame): what the
second look (``tracker.refine_after_frames``, ``tracker.refine_gain``; ``click_refine``) gives.

On every clip of ``--clips`` (``NAME.mp4`` + ``NAME_gt.csv``), the 5 clicks of
``track_eval.py`` on 3 start frames (0, 1/3 and 2/3 of the clip), **no history given**,
``--frames`` frames each, the extent scored with the weights fitted without the clip
(``sensekit.evaluation.vision.held_out``). One row per clip and setting: mean success (IoU > 0.5) of the clicks.
The gain is then chosen leaving one clip out (the best mean success on the other clips) and
that clip's success at the chosen gain is printed beside its success without the second look.

    .venv/bin/python benchmarks/refine_eval.py [--clips DIR] [--only coke,tiger1] [--frames 100]
                                               [--after 9] [--gains 1,1.3,1.6,2]
"""
from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

from _reference import SHARED_DATA

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, evaluate_clip, load_clip, summary
from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
from sensekit.evaluation.vision.held_out import unseen_by_fit


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking")
    ap.add_argument("--after", type=int, default=9, help="frames before the second look (default 9)")
    ap.add_argument("--gains", default="1,1.3,1.6,2", help="refine_gain values to try (default 1,1.3,1.6,2)")
    args = ap.parse_args(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    try:
        gains = [float(v) for v in args.gains.split(",")]
    except ValueError:
        print(f"--gains must be numbers separated by commas, got {args.gains!r}", file=sys.stderr)
        return 2
    settings = [("off", 0, 1.0)] + [(f"gain {g:g}", args.after, g) for g in gains]
    t0 = time.perf_counter()
    table: dict[str, dict[str, float]] = {}
    for name in names:
        clip = load_clip(args.clips, name)
        n = len(clip.truth)
        table[name] = {}
        exp = unseen_by_fit(name)
        for label, after, gain in settings:
            make = partial(ExperimentTracker, refine_after_frames=after, refine_gain=gain, extent_experiment=exp)
            runs = evaluate_clip(clip, starts=[0, n // 3, 2 * n // 3], frames=args.frames, make=make,
                                 baselines=[], look_back=False)
            table[name][label] = summary(runs)["clicks"]
        print(f"  {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    labels = [s[0] for s in settings]
    if len(names) < 2:                    # nothing to choose the gain on without the clip
        print("| clip | " + " | ".join(labels) + " |\n| --- |" + " --- |" * len(labels))
        for name in names:
            print(f"| {name} | " + " | ".join(f"{table[name][lab]:.3f}" for lab in labels) + " |")
        print("\nheld out: no choice of the gain (it needs 2 clips or more)")
        return 0
    print("| clip | " + " | ".join(labels) + " | gain chosen without the clip | success then |")
    print("| --- |" + " --- |" * (len(labels) + 2))
    held = []
    for name in names:
        others = [m for m in names if m != name]
        best = max(labels[1:], key=lambda lab: np.mean([table[m][lab] for m in others]))
        held.append((table[name]["off"], table[name][best]))
        cells = " | ".join(f"{table[name][lab]:.3f}" for lab in labels)
        print(f"| {name} | {cells} | {best} | {table[name][best]:.3f} |")
    means = " | ".join(f"{np.mean([table[m][lab] for m in names]):.3f}" for lab in labels)
    print(f"| mean | {means} | | {np.mean([h[1] for h in held]):.3f} |")
    print(f"\nheld out: off {np.mean([h[0] for h in held]):.3f}, second look {np.mean([h[1] for h in held]):.3f}"
          f" ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
